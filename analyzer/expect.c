/* SPDX-License-Identifier: MIT */
/* The graph-shape check against a workload's declared structure (panlab/expect.h). */
#include "panlab/kernel_only.h"
#include "panlab/expect.h"
#include "panlab/read_file.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "panlab/error.h"

#define MAX_FIELDS 6
#define MAX_INPUTS 1000000	/* a script's inputs; guards the per-input array */

struct fields {
	char *f[MAX_FIELDS];
	int n;
};

static void split(char *s, struct fields *out)
{
	char *save = NULL;

	out->n = 0;
	for (char *t = strtok_r(s, " ", &save); t; t = strtok_r(NULL, " ", &save))
		if (out->n < MAX_FIELDS)
			out->f[out->n++] = t;
		else
			out->n = MAX_FIELDS + 1;	/* too many: reported by the caller */
}

static int number(const char *s, uint64_t max, uint64_t *v)
{
	char *end;

	if (*s < '0' || *s > '9' || (s[0] == '0' && s[1]))
		return -1;
	*v = strtoull(s, &end, 10);
	return *end || *v > max ? -1 : 0;
}

static const char *need_name(int k)
{
	return k == PL_NEED_NETWORK ? "network" : k == PL_NEED_IO ? "io" : pl_edge_kind_name(k);
}

/* EDGES: a comma-separated list of kinds, each once, a kind ending in '?' optional; or "none". */
static int needs_of(char *s, uint32_t *needs, uint32_t *optional)
{
	char *save = NULL;

	*needs = *optional = 0;
	if (!strcmp(s, "none"))
		return 0;
	for (char *t = strtok_r(s, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		size_t len = strlen(t);
		bool maybe = len > 1 && t[len - 1] == '?';
		int k;

		if (maybe)
			t[len - 1] = '\0';
		for (k = PL_EDGE_MESSAGE; k < PL_NEEDS && strcmp(t, need_name(k)); k++)
			;
		if (k == PL_NEEDS || ((*needs | *optional) & (1u << k)))
			return -1;
		*(maybe ? optional : needs) |= 1u << k;
	}
	return 0;
}

/* Declares in->... for every id of SEQS (ids and ranges, each id once). */
static int declare(struct pl_expect *e, char *seqs, const struct pl_expect_input *in,
		   bool **seen, const char *path, uint64_t line, struct pl_error *err)
{
	char *save = NULL;

	for (char *r = strtok_r(seqs, ",", &save); r; r = strtok_r(NULL, ",", &save)) {
		char *dash = strchr(r, '-');
		uint64_t lo, hi;

		if (dash)
			*dash = '\0';
		if (number(r, UINT64_MAX, &lo) < 0 || number(dash ? dash + 1 : r, UINT64_MAX, &hi) < 0 ||
		    hi < lo || hi >= MAX_INPUTS) {
			pl_error_at_line(err, path, line, "input ids \"%s%s%s\", expected ids or ranges"
					 " below %d", r, dash ? "-" : "", dash ? dash + 1 : "", MAX_INPUTS);
			return -1;
		}
		if (hi >= e->ninputs) {
			e->inputs = pl_xrealloc(e->inputs, hi + 1, sizeof(*e->inputs));
			*seen = pl_xrealloc(*seen, hi + 1, sizeof(**seen));
			memset(*seen + e->ninputs, 0, (hi + 1 - e->ninputs) * sizeof(**seen));
			e->ninputs = hi + 1;
		}
		for (uint64_t s = lo; s <= hi; s++) {
			if ((*seen)[s]) {
				pl_error_at_line(err, path, line, "input %" PRIu64 " declared again,"
						 " expected each id once", s);
				return -1;
			}
			(*seen)[s] = true;
			e->inputs[s] = *in;
		}
	}
	return 0;
}

/* "expect SEQS INPUT EDGES [animation]" */
static int expect_line(struct pl_expect *e, struct fields *l, uint64_t line, bool **seen,
		       const char *path, struct pl_error *err)
{
	struct pl_expect_input in = { .line = line };

	if (l->n < 4 || l->n > 5 || (l->n == 5 && strcmp(l->f[4], "animation"))) {
		pl_error_at_line(err, path, line, "expected `expect SEQS tap|key EDGES [animation]`");
		return -1;
	}
	if (strcmp(l->f[2], "tap") && strcmp(l->f[2], "key")) {
		pl_error_at_line(err, path, line, "input kind \"%s\", expected tap or key", l->f[2]);
		return -1;
	}
	in.key = !strcmp(l->f[2], "key");
	in.animation = l->n == 5;
	char edges[128];

	snprintf(edges, sizeof(edges), "%s", l->f[3]);	/* needs_of cuts it up */
	if (needs_of(l->f[3], &in.needs, &in.optional) < 0) {
		pl_error_at_line(err, path, line, "edge kinds \"%s\", expected a comma-separated list"
				 " of message, task, binder, fork, invalidate, notify, lock, network, io"
				 " (each once, optional ones ending in ?), or none", edges);
		return -1;
	}
	return declare(e, l->f[1], &in, seen, path, line, err);
}

/* "diagnosis top FUNCTION capacity N", "diagnosis cause FUNCTION" or "diagnosis none" */
static int diagnosis_line(struct pl_expect *e, struct fields *l, uint64_t line, const char *path,
			  struct pl_error *err)
{
	uint64_t capacity;

	if (l->n == 5 && !strcmp(l->f[1], "top") && !strcmp(l->f[3], "capacity") &&
	    strlen(l->f[2]) < sizeof(e->top_function) &&
	    number(l->f[4], UINT32_MAX, &capacity) == 0 &&
	    e->diagnosis == PL_EXPECT_DIAG_UNDECLARED) {
		e->diagnosis = PL_EXPECT_DIAG_TOP;
		snprintf(e->top_function, sizeof(e->top_function), "%s", l->f[2]);
		e->top_capacity = (uint32_t)capacity;
		return 0;
	}
	if (l->n == 3 && !strcmp(l->f[1], "cause") && strlen(l->f[2]) < sizeof(e->cause_function) &&
	    e->diagnosis == PL_EXPECT_DIAG_TOP && !e->cause_function[0]) {
		snprintf(e->cause_function, sizeof(e->cause_function), "%s", l->f[2]);
		return 0;
	}
	if (l->n == 2 && !strcmp(l->f[1], "none") && e->diagnosis == PL_EXPECT_DIAG_UNDECLARED) {
		e->diagnosis = PL_EXPECT_DIAG_NONE;
		return 0;
	}
	pl_error_at_line(err, path, line,
			 "expected `diagnosis top FUNCTION capacity N` once, then at"
			 " most one `diagnosis cause FUNCTION`, or `diagnosis none`");
	return -1;
}

/* "no-transaction SEQS": inputs that change nothing on screen. */
static int no_transaction_line(struct pl_expect *e, struct fields *l, uint64_t line, bool **seen,
			       const char *path, struct pl_error *err)
{
	const struct pl_expect_input in = { .line = line, .no_transaction = true };

	if (l->n != 2) {
		pl_error_at_line(err, path, line, "expected `no-transaction SEQS`");
		return -1;
	}
	return declare(e, l->f[1], &in, seen, path, line, err);
}

int pl_expect_read_file(const char *path, struct pl_expect *out, struct pl_error *err)
{
	char *buf;
	size_t len;
	bool *seen = NULL;
	uint64_t line = 0;
	int state = 0, rc = -1;	/* 0: want the header, 1: want transactions, 2: expect lines */

	memset(out, 0, sizeof(*out));
	if (pl_read_file(path, PL_CAP_EXPECT_BYTES, "an expect file", &buf, &len, err) < 0)
		return -1;
	for (char *s = buf, *next; s && s < buf + len; s = next) {
		struct fields l;

		next = strchr(s, '\n');
		if (next)
			*next++ = '\0';
		line++;
		if (*s == '#' || *s == '\0')
			continue;
		split(s, &l);
		if (state == 0) {
			if (l.n != 2 || strcmp(l.f[0], "panlab-expect") || strcmp(l.f[1], "1")) {
				pl_error_at_line(err, path, line, "expected `panlab-expect 1`");
				goto out;
			}
			state = 1;
		} else if (state == 1) {
			if (l.n != 2 || strcmp(l.f[0], "transactions") ||
			    number(l.f[1], MAX_INPUTS, &out->transactions) < 0) {
				pl_error_at_line(err, path, line, "expected `transactions N`, N up to %d",
						 MAX_INPUTS);
				goto out;
			}
			state = 2;
		} else if (l.n >= 1 && !strcmp(l.f[0], "expect")) {
			if (expect_line(out, &l, line, &seen, path, err) < 0)
				goto out;
		} else if (l.n >= 1 && !strcmp(l.f[0], "no-transaction")) {
			if (no_transaction_line(out, &l, line, &seen, path, err) < 0)
				goto out;
		} else if (l.n >= 1 && !strcmp(l.f[0], "diagnosis")) {
			if (diagnosis_line(out, &l, line, path, err) < 0)
				goto out;
		} else {
			pl_error_at_line(err, path, line,
					 "unknown record \"%s\", expected expect,"
					 " no-transaction or diagnosis",
					 l.n ? l.f[0] : "");
			goto out;
		}
	}
	if (state < 2) {
		pl_error_file(err, path, "ends before its `transactions N` line");
		goto out;
	}
	uint64_t declared = 0;

	for (uint64_t s = 0; s < out->ninputs; s++) {
		if (!seen[s]) {
			pl_error_file(err, path, "input %" PRIu64 " has no expect or no-transaction line,"
				      " expected every id from 0 to %" PRIu64, s, out->ninputs - 1);
			goto out;
		}
		declared += !out->inputs[s].no_transaction;
	}
	if (declared != out->transactions) {
		pl_error_file(err, path, "expect lines declare %" PRIu64 " inputs, expected one per"
			      " transaction (`transactions %" PRIu64 "`)", declared, out->transactions);
		goto out;
	}
	rc = 0;
out:
	free(buf);
	free(seen);
	if (rc < 0)
		pl_expect_free(out);
	return rc;
}

void pl_expect_free(struct pl_expect *e)
{
	free(e->inputs);
	memset(e, 0, sizeof(*e));
}

static void fail(struct pl_expect_result *r, uint64_t input, const char *fmt, const char *what)
{
	r->failed = pl_xrealloc(r->failed, r->nfailed + 1, sizeof(*r->failed));
	r->failed[r->nfailed].input = input;
	snprintf(r->failed[r->nfailed].reason, sizeof(r->failed[0].reason), fmt, what);
	r->nfailed++;
}

void pl_expect_check(const struct pl_expect *e, const struct pl_trace *trace,
		     const struct pl_transactions *tx, const struct pl_critical_paths *cp,
		     const struct pl_breakdowns *bd, const struct pl_validation *val,
		     struct pl_expect_result *out)
{
	memset(out, 0, sizeof(*out));
	out->declared = e->transactions;
	out->count_ok = tx->count == e->transactions;
	for (uint64_t s = 0; s < e->ninputs; s++) {
		const struct pl_expect_input *want = &e->inputs[s];
		/* Rows come first one per ground-truth input, in seq order (validate.h). */
		uint64_t k = s < val->inputs ? val->rows[s].tx : PL_NONE;
		uint32_t have = 0;

		out->checked++;
		if (want->no_transaction) {
			if (k != PL_NONE)
				fail(out, s, "%s", "a transaction, expected none");
			continue;
		}
		if (k == PL_NONE) {
			fail(out, s, "%s", "no transaction");
			continue;
		}
		for (uint64_t i = cp->first_step[k]; i < cp->first_step[k + 1]; i++)
			have |= 1u << cp->steps[i].kind;
		if (bd->ns[k][PL_CAT_LOCK])
			have |= 1u << PL_EDGE_LOCK;	/* a lock wait inside an interval counts too */
		if (bd->ns[k][PL_CAT_NETWORK])
			have |= 1u << PL_NEED_NETWORK;
		if (bd->ns[k][PL_CAT_IO])
			have |= 1u << PL_NEED_IO;
		bool key = pl_event_is_key_input(&trace->events[tx->items[k].input_event]);

		if (key != want->key)
			fail(out, s, "a %s, expected the other input kind", key ? "key" : "tap");
		if (tx->items[k].animation != want->animation)
			fail(out, s, "%s", want->animation ? "no animation, expected one"
						  : "an animation, expected none");
		for (int n = PL_EDGE_MESSAGE; n < PL_NEEDS; n++) {
			if ((want->needs & ~have) & (1u << n))
				fail(out, s, "critical path crosses no %s", need_name(n));
			else if ((have & ~(want->needs | want->optional)) & (1u << n))
				fail(out, s, "critical path crosses %s, not declared", need_name(n));
		}
	}
	out->ok = out->count_ok && out->nfailed == 0;
}

/* Whether a frame of context c is in function fn ("fn+0x..."). */
static bool names(const struct pl_tasks *t, const struct pl_symbols *sym, uint64_t c,
		  const char *fn)
{
	size_t n = strlen(fn);

	for (uint32_t f = 0; f < t->contexts[c].nframes; f++) {
		const char *s = pl_symbols_frame(sym, c, f);

		if (!strncmp(s, fn, n) && s[n] == '+')
			return true;
	}
	return false;
}

void pl_expect_check_diagnosis(const struct pl_expect *e, const struct pl_tasks *t,
			       const struct pl_diagnosis *d, const struct pl_symbols *sym,
			       struct pl_expect_result *out)
{
	const struct pl_diag_group *g = d->suspicious ? &d->groups[0] : NULL;

	if (e->diagnosis == PL_EXPECT_DIAG_NONE && g)
		fail(out, PL_NONE, "%s", "a suspicious group, expected none");
	if (e->diagnosis == PL_EXPECT_DIAG_TOP) {
		if (!g)
			fail(out, PL_NONE, "no suspicious group, expected %s first",
			     e->top_function);
		else if (!names(t, sym, g->context, e->top_function))
			fail(out, PL_NONE, "the top group's context is not in %s", e->top_function);
		else if (g->capacity != e->top_capacity || !g->long_waits || !g->queue_length_sum)
			fail(out, PL_NONE, "%s",
			     "the top group's capacity or queue lengths differ");
		else if (e->cause_function[0] &&
			 (!g->ncauses ||
			  !names(t, sym, d->groups[d->causes[g->first_cause].group].context,
				 e->cause_function)))
			fail(out, PL_NONE, "the top group's root cause is not in %s",
			     e->cause_function);
	}
	out->ok = out->count_ok && out->nfailed == 0;
}

void pl_expect_result_free(struct pl_expect_result *r)
{
	free(r->failed);
	memset(r, 0, sizeof(*r));
}
