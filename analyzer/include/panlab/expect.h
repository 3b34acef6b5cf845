/* SPDX-License-Identifier: MIT */
/*
 * A workload's declared structure (workloads/README.md, "Expected structure":
 * replay/scripts/NAME.expect) and the graph-shape check of a run against it:
 * per input, its kind (tap or key), the causal-edge kinds its critical path
 * crosses (exactly: a kind not declared fails, as a missing one does, unless
 * it is declared optional), and whether it is an animation, or that it has no
 * transaction (it changes nothing on screen); and the number of transactions.
 *
 * Ownership: pl_expect_read_file allocates the arrays of a caller-provided
 * struct; pl_expect_free releases them (also after an error). pl_expect_check
 * fills a caller-provided result whose failure list pl_expect_result_free
 * releases.
 */
#ifndef PANLAB_EXPECT_H
#define PANLAB_EXPECT_H

#include <stdbool.h>
#include <stdint.h>

#include "panlab/error.h"
#include "panlab/breakdown.h"
#include "panlab/diagnosis.h"
#include "panlab/symbols.h"
#include "panlab/validate.h"

/* What an edge name in EDGES stands for: a causal hop, or time in a breakdown category. */
enum pl_expect_need {
	PL_NEED_NETWORK = PL_EDGE_KINDS,	/* breakdown network > 0 */
	PL_NEED_IO,				/* breakdown io > 0 */
	PL_NEEDS,
};

struct pl_expect_input {
	bool no_transaction;	/* declared by `no-transaction`: the rest is unused */
	bool key;		/* UI_KEY rather than a tap's UI_INPUT */
	bool animation;
	uint32_t needs;		/* bit k: PL_EDGE_* or PL_NEED_* k is required */
	uint32_t optional;	/* bit k: kind k may be crossed or not; any other kind fails */
	uint64_t line;		/* where it was declared */
};

/* `diagnosis` lines: what DiagDroid's diagnosis must rank (diagnosis.c). */
enum pl_expect_diagnosis {
	PL_EXPECT_DIAG_UNDECLARED = 0,
	PL_EXPECT_DIAG_TOP,  /* `diagnosis top FUNCTION capacity N` [+ `diagnosis cause F`] */
	PL_EXPECT_DIAG_NONE, /* `diagnosis none`: no suspicious group */
};

struct pl_expect {
	enum pl_expect_diagnosis diagnosis;
	char top_function[64];		/* a frame of the top group's context is in it */
	uint32_t top_capacity;		/* the top group's pool capacity */
	char cause_function[64];	/* its root cause's context names it; "" not declared */
	uint64_t transactions;		/* N */
	uint64_t ninputs;		/* declared inputs: N and the no-transaction ones */
	struct pl_expect_input *inputs;	/* ninputs, by input seq */
};

int pl_expect_read_file(const char *path, struct pl_expect *out, struct pl_error *err);
void pl_expect_free(struct pl_expect *e);

struct pl_expect_failure {
	uint64_t input;
	char reason[96];
};

struct pl_expect_result {
	uint64_t checked;		/* inputs checked (= ninputs) */
	uint64_t declared;		/* the transactions N declares */
	bool count_ok;			/* detected transactions = N */
	uint64_t nfailed;
	struct pl_expect_failure *failed;
	bool ok;			/* count_ok and no failure: the run's shape_ok */
};

void pl_expect_check(const struct pl_expect *e, const struct pl_trace *trace,
		     const struct pl_transactions *tx, const struct pl_critical_paths *cp,
		     const struct pl_breakdowns *bd, const struct pl_validation *val,
		     struct pl_expect_result *out);
/*
 * After pl_expect_check: the declared diagnosis, if any (the top group's context names
 * top_function, its capacity is top_capacity and its long waits had tasks ahead of them; its
 * root cause names cause_function; or no group is suspicious). A failure has input PL_NONE.
 */
void pl_expect_check_diagnosis(const struct pl_expect *e, const struct pl_tasks *t,
			       const struct pl_diagnosis *d, const struct pl_symbols *sym,
			       struct pl_expect_result *out);
void pl_expect_result_free(struct pl_expect_result *r);

#endif /* PANLAB_EXPECT_H */
