/* SPDX-License-Identifier: MIT */
/*
 * Tracing overhead: two runs of the same replay script, one traced and one
 * not, compared on their ground truth alone (T_in -> T_out per input, taken
 * outside the tracer, so the untraced run needs no trace). Input i of one
 * run is input i of the other: the injector numbers them the same way.
 *
 * Ownership: pl_overhead_compare allocates the arrays of a caller-provided
 * struct; pl_overhead_free releases them. Times in ns.
 */
#ifndef PANLAB_OVERHEAD_H
#define PANLAB_OVERHEAD_H

#include <stdbool.h>
#include <stdint.h>

#include "panlab/error.h"
#include "panlab/ground_truth.h"
#include "panlab/validate.h"

struct pl_overhead_row {
	uint64_t input;			/* seq, in both runs */
	uint64_t on_ns, off_ns;		/* ground-truth latency traced / untraced */
	int64_t overhead_ns;		/* on - off */
};

/* One statistic of the latency in both runs. */
struct pl_overhead_stat {
	uint64_t on_ns, off_ns;
	int64_t overhead_ns;		/* on - off */
	double overhead_pct;		/* 100 * (on - off) / off; 0 if off is 0 */
};

struct pl_overhead {
	uint64_t inputs_on, inputs_off;	/* ground-truth inputs of each run */
	uint64_t nrows;			/* inputs with a frame in both runs */
	struct pl_overhead_row *rows;	/* in seq order */
	struct pl_overhead_stat mean, p50, p95;	/* over the rows */
	/* Q-Q: both runs' latencies over the rows, each sorted ascending. */
	uint64_t *quantile_on_ns, *quantile_off_ns;
};

void pl_overhead_compare(const struct pl_ground_truth *on, const struct pl_ground_truth *off,
			 struct pl_overhead *out);
void pl_overhead_free(struct pl_overhead *o);
/* overhead.json (jansson); 0, or -1 with err set. */
int pl_overhead_write_json(const struct pl_overhead *o, const char *on_name,
			   const char *off_name, const char *path, struct pl_error *err);

#endif /* PANLAB_OVERHEAD_H */
