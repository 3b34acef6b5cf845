/* SPDX-License-Identifier: MIT */
/*
 * energy.c: CPU platform events -> per-core frequency residency and the
 * energy of the run and of each transaction, from a power model.
 *
 * Inputs are the kernel's CPU_FREQUENCY, CPU_IDLE_ENTER/EXIT and
 * CPU_ONLINE/OFFLINE events (a trace without CPU_IDLE events falls back to
 * CONTEXT_SWITCH: a cpu is idle while it runs tid 0). The model is
 * Panappticon's Table 5 (Galaxy Nexus, 100% load) plus the assumptions
 * documented in analyzer/README.md ("Energy"):
 *   - power = rest(f) + the sum over cores of core(state, f), where
 *     rest(f) = total(f) - cpu(f): the display, memory and radios;
 *   - a busy core draws cpu(f) (Table 5's CPU power, taken as one busy core);
 *   - a core in WFI draws wfi_permille / 1000 of cpu(f) (leakage only);
 *   - an offline core draws nothing (power-gated by PSCI CPU_OFF);
 *   - f between operating points is interpolated linearly, outside them
 *     it is clamped;
 *   - before a cpu's first CPU_FREQUENCY it runs at default_khz; a cpu
 *     that logs nothing at all is offline; before a cpu's first
 *     online/offline event it is online unless that event is CPU_ONLINE,
 *     and likewise idle before a first CPU_IDLE_EXIT.
 * The window is the trace's first to last event.
 *
 * Energies are kept in pJ (mW x ns) as integers, so results are exact and
 * identical on every host; the JSON and CSV show mJ.
 *
 * Ownership: pl_energy_build fills a caller-provided struct, allocating its
 * arrays; pl_energy_free releases them. Out of memory aborts.
 */
#ifndef PANLAB_ENERGY_H
#define PANLAB_ENERGY_H

#include <stdint.h>

#include "panlab/model.h"
#include "panlab/trace.h"

struct pl_power_opp {
	uint32_t khz;
	uint32_t cpu_mw;	/* one core at 100% load */
	uint32_t total_mw;	/* the whole phone with that core at 100% load */
};

struct pl_power_model {
	const char *name;
	uint32_t nopps;
	const struct pl_power_opp *opps;	/* ascending khz */
	uint32_t wfi_permille;
	uint32_t default_khz;
};

/* Table 5 of Panappticon with the assumptions above. */
extern const struct pl_power_model pl_power_galaxy_nexus;

struct pl_residency {
	uint32_t khz;
	uint64_t busy_ns;
	uint64_t idle_ns;
};

struct pl_core_energy {
	uint32_t nfreqs;
	struct pl_residency *by_freq;	/* ascending khz */
	uint64_t offline_ns;
	uint64_t assumed_freq_ns;	/* online before its first CPU_FREQUENCY */
	uint64_t freq_changes;		/* CPU_FREQUENCY to another frequency than its last */
	uint64_t energy_pj;		/* this core's own draw (rest excluded) */
};

struct pl_energy {
	const struct pl_power_model *model;
	uint64_t start_ns, end_ns;
	uint32_t ncpus;
	struct pl_core_energy *cores;
	uint64_t energy_pj;		/* the whole phone over the window */
	uint64_t cpu_energy_pj;		/* the cores' part of it */
	uint64_t count;			/* = transactions */
	uint64_t *tx_energy_pj;		/* the phone's energy from input to last update */
	/* Power over time: power_mw[i] holds from change_ns[i] to change_ns[i + 1]. */
	uint64_t nchanges;
	uint64_t *change_ns;
	uint32_t *power_mw;
	uint64_t *energy_before_pj;	/* energy from start_ns to change_ns[i] */
};

void pl_energy_build(const struct pl_trace *trace, const struct pl_transactions *tx,
		     const struct pl_power_model *model, struct pl_energy *out);
void pl_energy_free(struct pl_energy *e);
/* The phone's energy between two times inside the window, in pJ. */
uint64_t pl_energy_between(const struct pl_energy *e, uint64_t from_ns, uint64_t to_ns);
/* Power in mW of one core (busy or idle) or of the rest at khz. */
uint32_t pl_power_core_mw(const struct pl_power_model *m, uint32_t khz, int busy);
uint32_t pl_power_rest_mw(const struct pl_power_model *m, uint32_t khz);

#endif
