/* SPDX-License-Identifier: MIT */
/*
 * Tracing overhead: two runs of the same replay script, one traced and one
 * not, compared on their ground truth alone (T_in -> T_out per input, taken
 * outside the tracer, so the untraced run needs no trace). Input i of one
 * run is input i of the other: the injector numbers them the same way.
 *
 * Two statistics say how much the tracer adds:
 * - latency: frames leave at vsync, so each input's difference is the vsync
 *   grid's phase shift between the runs (the median difference) plus a whole
 *   period for each frame tracing pushed past a tick. With k frames moved
 *   later of n, the added latency per input is at most
 *   vsync * upper95(k) / n, upper95(k) = k + 1 + 1.96 sqrt(k + 1) (the normal
 *   approximation of a Poisson count's upper 95% bound);
 * - CPU time (phone, cpu_time.txt of both runs, emu/README.md "Replay"): a
 *   tap's CPU time is what the cores spent running from its input to the next
 *   input (the last one's, to the end), which no vsync grid rounds; the mean
 *   per tap traced against untraced, the p95 of the per-tap overheads, and the
 *   upper 95% confidence bound of the mean (mean difference + 1.96 standard
 *   errors).
 *
 * Ownership: pl_overhead_compare allocates the arrays of a caller-provided
 * struct; pl_overhead_free releases them; pl_cpu_time_read_file likewise
 * with pl_cpu_time_free. Times in ns, shares in percent.
 */
#ifndef PANLAB_OVERHEAD_H
#define PANLAB_OVERHEAD_H

#include <jansson.h>
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

/* The 60 Hz display's period (DESIGN.md, "The modelled device"): the compositor's vsync grid. */
#define PL_VSYNC_NS 16666667ull

struct pl_overhead_bound {
	double mean_pct, p95_pct; /* of the ground-truth latency, traced against untraced */
	double mean_bound_pct;	  /* upper 95% bound of the mean's overhead */
	uint64_t frames_later, frames_earlier; /* moved by more than half a period */
	int64_t grid_shift_ns;		       /* the median difference */
	uint64_t transactions;		       /* rows compared */
};

/* Per-tap CPU time of one run (cpu_time.txt). */
struct pl_cpu_time {
	uint64_t ntaps;
	uint64_t *tap_ns; /* ntaps: busy ns from input i to the next input or the end */
};

struct pl_cpu_overhead {
	double mean_pct, p95_pct, mean_bound_pct;
	double ms_per_tap_on, ms_per_tap_off;
	uint64_t taps;
};

void pl_overhead_compare(const struct pl_ground_truth *on, const struct pl_ground_truth *off,
			 struct pl_overhead *out);
void pl_overhead_free(struct pl_overhead *o);
/*
 * overhead.json (jansson), with the latency bound and, when cpu is not NULL,
 * the CPU-time overhead; 0, or -1 with err set.
 */
int pl_overhead_write_json(const struct pl_overhead *o, const struct pl_cpu_overhead *cpu,
			   const char *on_name, const char *off_name, const char *path,
			   struct pl_error *err);

/* The latency bound above; all zero when no row was compared. */
void pl_overhead_latency_bound(const struct pl_overhead *o, struct pl_overhead_bound *out);

/* Reads cpu_time.txt ("panlab-cpu-time 1", then input and end lines); 0, or -1 with err set. */
int pl_cpu_time_read_file(const char *path, struct pl_cpu_time *out, struct pl_error *err);
void pl_cpu_time_free(struct pl_cpu_time *c);
/*
 * The CPU-time overhead of on against off: 0, or -1 with err set when the
 * runs have different tap counts (not one replay) or fewer than 2 taps.
 */
int pl_cpu_overhead(const struct pl_cpu_time *on, const struct pl_cpu_time *off,
		    struct pl_cpu_overhead *out, struct pl_error *err);

/*
 * overhead.json's statistics objects (jansson, new references): the latency
 * bound, and the CPU-time overhead.
 */
json_t *pl_overhead_bound_json(const struct pl_overhead_bound *b);
json_t *pl_cpu_overhead_json(const struct pl_cpu_overhead *c);

#endif /* PANLAB_OVERHEAD_H */
