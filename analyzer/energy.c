/* SPDX-License-Identifier: MIT */
/* Stage: CPU platform events -> frequency residency and energy (panlab/energy.h). */
#include <stdlib.h>
#include <string.h>

#include "panlab/error.h"
#include "panlab/energy.h"

/* Panappticon Table 5: Galaxy Nexus, synthetic workload at 100% load. */
static const struct pl_power_opp table5[] = {
	{ 350000, 220, 820 },
	{ 700000, 610, 1260 },
	{ 920000, 1000, 1650 },
	{ 1200000, 1600, 2260 },
};

const struct pl_power_model pl_power_galaxy_nexus = {
	.name = "panappticon-table5",
	.nopps = sizeof(table5) / sizeof(table5[0]),
	.opps = table5,
	.wfi_permille = 100,
	.default_khz = 1200000,
};

/* Linear between operating points, clamped outside them. */
static uint32_t interpolate(const struct pl_power_model *m, uint32_t khz, int total)
{
	const struct pl_power_opp *o = m->opps;
	uint32_t n = m->nopps;
	uint32_t i = 1;

	if (khz <= o[0].khz)
		return total ? o[0].total_mw : o[0].cpu_mw;
	if (khz >= o[n - 1].khz)
		return total ? o[n - 1].total_mw : o[n - 1].cpu_mw;
	while (o[i].khz < khz)
		i++;
	uint64_t lo = total ? o[i - 1].total_mw : o[i - 1].cpu_mw;
	uint64_t hi = total ? o[i].total_mw : o[i].cpu_mw;
	return (uint32_t)(lo + (hi - lo) * (khz - o[i - 1].khz) / (o[i].khz - o[i - 1].khz));
}

uint32_t pl_power_core_mw(const struct pl_power_model *m, uint32_t khz, int busy)
{
	uint32_t mw = interpolate(m, khz, 0);

	return busy ? mw : (uint32_t)((uint64_t)mw * m->wfi_permille / 1000);
}

uint32_t pl_power_rest_mw(const struct pl_power_model *m, uint32_t khz)
{
	return interpolate(m, khz, 1) - interpolate(m, khz, 0);
}

struct cpu_state {
	uint32_t khz;		/* 0: not logged yet */
	int online;
	int idle;
};

static void add_residency(struct pl_core_energy *c, uint32_t khz, int idle, uint64_t ns)
{
	uint32_t i = 0;

	while (i < c->nfreqs && c->by_freq[i].khz < khz)
		i++;
	if (i == c->nfreqs || c->by_freq[i].khz != khz) {
		c->by_freq = pl_xrealloc(c->by_freq, c->nfreqs + 1, sizeof(*c->by_freq));
		memmove(&c->by_freq[i + 1], &c->by_freq[i], (c->nfreqs - i) * sizeof(*c->by_freq));
		c->by_freq[i] = (struct pl_residency){ .khz = khz };
		c->nfreqs++;
	}
	if (idle)
		c->by_freq[i].idle_ns += ns;
	else
		c->by_freq[i].busy_ns += ns;
}

/* Accounts [from, from + ns) to every core and the whole phone at the current state. */
static void account(struct pl_energy *e, const struct cpu_state *st, uint64_t from, uint64_t ns,
		    uint64_t *cap)
{
	const struct pl_power_model *m = e->model;
	uint32_t domain_khz = 0;
	uint64_t power = 0;

	for (uint32_t c = 0; c < e->ncpus; c++) {
		uint32_t khz = st[c].khz ? st[c].khz : m->default_khz;

		if (st[c].online && khz > domain_khz)
			domain_khz = khz;
	}
	if (!domain_khz)
		domain_khz = m->default_khz;
	power = pl_power_rest_mw(m, domain_khz);
	for (uint32_t c = 0; c < e->ncpus; c++) {
		struct pl_core_energy *core = &e->cores[c];
		uint32_t khz = st[c].khz ? st[c].khz : m->default_khz;
		uint32_t mw;

		if (!st[c].online) {
			core->offline_ns += ns;
			continue;
		}
		if (!st[c].khz)
			core->assumed_freq_ns += ns;
		add_residency(core, khz, st[c].idle, ns);
		mw = pl_power_core_mw(m, khz, !st[c].idle);
		core->energy_pj += (uint64_t)mw * ns;
		e->cpu_energy_pj += (uint64_t)mw * ns;
		power += mw;
	}
	if (!e->nchanges || e->power_mw[e->nchanges - 1] != power) {
		if (e->nchanges == *cap) {
			*cap = *cap ? 2 * *cap : 64;
			e->change_ns = pl_xrealloc(e->change_ns, *cap, sizeof(*e->change_ns));
			e->power_mw = pl_xrealloc(e->power_mw, *cap, sizeof(*e->power_mw));
			e->energy_before_pj = pl_xrealloc(e->energy_before_pj, *cap,
							  sizeof(*e->energy_before_pj));
		}
		e->change_ns[e->nchanges] = from;
		e->power_mw[e->nchanges] = (uint32_t)power;
		e->energy_before_pj[e->nchanges] = e->energy_pj;
		e->nchanges++;
	}
	e->energy_pj += power * ns;
}

static int idle_event(uint16_t type)
{
	return type == PL_EV_CPU_IDLE_ENTER || type == PL_EV_CPU_IDLE_EXIT;
}

/* The state each cpu is in before the trace says otherwise (panlab/energy.h). */
static void initial_state(const struct pl_trace *trace, struct cpu_state *st, int *by_idle_events)
{
	uint32_t n = trace->ncpus;
	uint8_t *seen = pl_xcalloc(n ? n : 1, 1);	/* bit 0 any, 1 hotplug, 2 idle */

	*by_idle_events = 0;
	for (uint64_t i = 0; i < trace->nevents; i++)
		if (idle_event(trace->events[i].type))
			*by_idle_events = 1;
	for (uint32_t c = 0; c < n; c++)
		st[c] = (struct cpu_state){ .online = 1 };
	for (uint64_t i = 0; i < trace->nevents; i++) {
		const struct pl_event *ev = &trace->events[i];
		uint32_t about = ev->a1;

		if (ev->cpu < n)
			seen[ev->cpu] |= 1;
		if (ev->type == PL_EV_CPU_ONLINE || ev->type == PL_EV_CPU_OFFLINE) {
			if (about < n && !(seen[about] & 2))
				st[about].online = ev->type == PL_EV_CPU_OFFLINE;
			if (about < n)
				seen[about] |= 3;
		} else if (*by_idle_events && idle_event(ev->type) && about < n) {
			if (!(seen[about] & 4))
				st[about].idle = ev->type == PL_EV_CPU_IDLE_EXIT;
			seen[about] |= 4;
		} else if (!*by_idle_events && ev->type == PL_EV_CONTEXT_SWITCH && ev->cpu < n) {
			if (!(seen[ev->cpu] & 4))
				st[ev->cpu].idle = ev->tid == 0;
			seen[ev->cpu] |= 4;
		}
	}
	for (uint32_t c = 0; c < n; c++)
		if (!seen[c])
			st[c].online = 0;
	free(seen);
}

static void apply(const struct pl_event *ev, struct cpu_state *st, struct pl_core_energy *cores,
		  uint32_t n, int by_idle_events)
{
	uint32_t about = ev->a1;

	switch (ev->type) {
	case PL_EV_CPU_FREQUENCY:
		if (about >= n)
			break;
		if (st[about].khz && st[about].khz != (uint32_t)ev->a0)
			cores[about].freq_changes++;
		st[about].khz = (uint32_t)ev->a0;
		break;
	case PL_EV_CPU_ONLINE:
	case PL_EV_CPU_OFFLINE:
		if (about < n)
			st[about].online = ev->type == PL_EV_CPU_ONLINE;
		break;
	case PL_EV_CPU_IDLE_ENTER:
	case PL_EV_CPU_IDLE_EXIT:
		if (by_idle_events && about < n)
			st[about].idle = ev->type == PL_EV_CPU_IDLE_ENTER;
		break;
	case PL_EV_CONTEXT_SWITCH:
		if (!by_idle_events && ev->cpu < n)
			st[ev->cpu].idle = ev->a0 == 0;
		break;
	default:
		break;
	}
}

void pl_energy_build(const struct pl_trace *trace, const struct pl_transactions *tx,
		     const struct pl_power_model *model, struct pl_energy *out)
{
	struct cpu_state *st;
	uint64_t cap = 0, t;
	int by_idle_events;

	memset(out, 0, sizeof(*out));
	out->model = model;
	out->ncpus = trace->ncpus;
	out->cores = pl_xcalloc(out->ncpus ? out->ncpus : 1, sizeof(*out->cores));
	st = pl_xcalloc(out->ncpus ? out->ncpus : 1, sizeof(*st));
	if (trace->nevents) {
		out->start_ns = trace->events[0].ts_ns;
		out->end_ns = trace->events[trace->nevents - 1].ts_ns;
	}
	initial_state(trace, st, &by_idle_events);
	t = out->start_ns;
	for (uint64_t i = 0; i < trace->nevents; i++) {
		const struct pl_event *ev = &trace->events[i];

		if (ev->ts_ns > t) {
			account(out, st, t, ev->ts_ns - t, &cap);
			t = ev->ts_ns;
		}
		apply(ev, st, out->cores, out->ncpus, by_idle_events);
	}
	free(st);
	out->count = tx->count;
	out->tx_energy_pj = pl_xcalloc(tx->count ? tx->count : 1, sizeof(*out->tx_energy_pj));
	for (uint64_t k = 0; k < tx->count; k++)
		out->tx_energy_pj[k] = pl_energy_between(out, tx->items[k].input_ns,
							 tx->items[k].end_ns);
}

/* Energy from start_ns to t. */
static uint64_t energy_at(const struct pl_energy *e, uint64_t t)
{
	uint64_t lo = 0, hi = e->nchanges;

	if (t <= e->start_ns || !e->nchanges)
		return 0;
	if (t >= e->end_ns)
		return e->energy_pj;
	while (hi - lo > 1) {		/* the last change at or before t */
		uint64_t mid = lo + (hi - lo) / 2;

		if (e->change_ns[mid] <= t)
			lo = mid;
		else
			hi = mid;
	}
	return e->energy_before_pj[lo] + (uint64_t)e->power_mw[lo] * (t - e->change_ns[lo]);
}

uint64_t pl_energy_between(const struct pl_energy *e, uint64_t from_ns, uint64_t to_ns)
{
	uint64_t a = energy_at(e, from_ns), b = energy_at(e, to_ns);

	return b > a ? b - a : 0;
}

void pl_energy_free(struct pl_energy *e)
{
	for (uint32_t c = 0; c < e->ncpus; c++)
		free(e->cores[c].by_freq);
	free(e->cores);
	free(e->tx_energy_pj);
	free(e->change_ns);
	free(e->power_mw);
	free(e->energy_before_pj);
	memset(e, 0, sizeof(*e));
}
