/* SPDX-License-Identifier: MIT */
/*
 * Panappticon section 6 findings (findings.c), computed from an
 * experiment's results database: four configurations (1 or 2 cores x DVFS
 * on, the interactive governor, or off, a fixed frequency) of one workload.
 *
 * Each finding is computed on two transaction definitions:
 * - update: input to the app's last display update (the analyzer's detected
 *   transaction end, transactions.latency_ns): the paper's definition;
 * - pixel: input to the flush that shows it (ground truth,
 *   validation_rows.truth_latency_ns): panlab's extra.
 * Only taps count (validation_rows.input_kind = 'tap'). Latencies are ms.
 *
 * Each statistic gets a seeded percentile bootstrap interval (panlab/stats.h)
 * and a rule:
 * - direction: the interval lies on the paper's side of no effect (0 for a
 *   difference, 1 for a ratio);
 * - size: where the paper gives a figure, it lies within a factor of 2 of
 *   panlab's estimate (of the effect: the difference, or ratio - 1);
 * - negligible: the interval of the ratio lies within 0.95..1.05.
 *
 * Ownership: pl_s6_read_db fills a caller-provided pl_s6_data, allocating
 * its arrays; pl_s6_data_free releases them. pl_s6_compute fills a
 * caller-provided pl_s6_findings with no heap memory. Errors set err.
 */
#ifndef PANLAB_FINDINGS_H
#define PANLAB_FINDINGS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "panlab/error.h"
#include "panlab/stats.h"

enum pl_s6_config { PL_C1_ON, PL_C1_OFF, PL_C2_ON, PL_C2_OFF, PL_S6_CONFIGS };
enum pl_s6_def { PL_DEF_UPDATE, PL_DEF_PIXEL, PL_S6_DEFS };

#define PL_S6_FINDINGS 6
#define PL_S6_QQ_LEVELS 100		/* Q-Q at p = 1/100 .. 100/100 */
#define PL_S6_LONGEST_SHARE 0.10	/* Table 4: a run's longest tenth of its taps */
#define PL_S6_REPLICATES 2000
#define PL_S6_SEED 2013			/* the paper's year: any fixed seed will do */

extern const char *const pl_s6_config_name[PL_S6_CONFIGS];	/* "c1-on", ... */
extern const char *const pl_s6_def_name[PL_S6_DEFS];		/* "update", "pixel" */

struct pl_s6_tap {
	uint64_t input;			/* ground-truth seq */
	int64_t tx_id;			/* the detected transaction, -1 if none */
	bool has[PL_S6_DEFS];
	double latency_ms[PL_S6_DEFS];
	/* The critical path's breakdown (breakdown.c), if detected. */
	double running_ms, runnable_ms, network_ms, io_ms;
	/* Of running_ms, the time below the run's top frequency, and what that work takes at the
	 * top frequency: their difference is what DVFS added to the path. */
	double slow_ms, slow_work_ms;
};

struct pl_s6_run {
	char *run_id;
	uint64_t ntaps;
	struct pl_s6_tap *taps;		/* in input order */
};

struct pl_s6_data {
	char *experiment, *workload;
	struct pl_s6_run runs[PL_S6_CONFIGS];
};

/*
 * The ok runs of experiment in the database at path: exactly one per
 * configuration (cores 1 or 2; governor 'interactive', or freq_mhz set) and
 * one workload. 0, or -1 with err naming what is missing or repeated.
 */
int pl_s6_read_db(const char *path, const char *experiment, struct pl_s6_data *d,
		  struct pl_error *err);
void pl_s6_data_free(struct pl_s6_data *d);

enum pl_s6_rule { PL_RULE_DIRECTION, PL_RULE_NEGLIGIBLE };

/* One finding on one definition. */
struct pl_s6_outcome {
	bool computed;			/* false: why says why (pixel definition only) */
	char why[PL_ERROR_MAX];
	struct pl_ci ci;
	uint64_t n;			/* values (taps, Q-Q levels) the statistic rests on */
	bool direction, size, negligible;
	bool reproduced;
};

struct pl_s6_finding {
	const char *id, *paper, *statistic, *rule;
	enum pl_s6_rule kind;
	double zero;			/* the statistic's value for no effect */
	bool has_paper_value;
	double paper_value;		/* the paper's effect, in the statistic's units less zero */
	struct pl_s6_outcome def[PL_S6_DEFS];
};

struct pl_s6_findings {
	struct pl_s6_finding f[PL_S6_FINDINGS];
	unsigned reproduced;		/* on the paper's (update) definition */
};

/*
 * All six findings. A finding that cannot be computed on the update
 * definition is an error (err names the finding and why); on the pixel
 * definition it is recorded as not computed, with why.
 */
int pl_s6_compute(const struct pl_s6_data *d, unsigned replicates, uint64_t seed,
		  struct pl_s6_findings *out, struct pl_error *err);

/* The rules, on an interval. */
bool pl_s6_rule_direction(const struct pl_ci *ci, double zero);
bool pl_s6_rule_size(const struct pl_ci *ci, double zero, double paper_value);
bool pl_s6_rule_negligible(const struct pl_ci *ci);

/*
 * A model constant the result depends on, from a component's
 * model-constants file: tab-separated "group name value source" lines,
 * '#' comments and blank lines ignored.
 */
struct pl_s6_constant {
	char *group, *name, *value, *source;
};

struct pl_s6_constants {
	uint64_t n;
	struct pl_s6_constant *c;
};

/* Appends the analyzer's own constants (the power model: operating points, Table 5). */
void pl_s6_constants_analyzer(struct pl_s6_constants *k);
/* Appends a file's constants; 0, or -1 with err "file:line: ...". */
int pl_s6_constants_read(const char *path, struct pl_s6_constants *k, struct pl_error *err);
void pl_s6_constants_write(FILE *f, const struct pl_s6_constants *k);
void pl_s6_constants_free(struct pl_s6_constants *k);

/* The determinism repeat: two run folders of one configuration. */
struct pl_s6_repeat {
	const char *config;		/* e.g. "c1-on" */
	const char *a, *b;		/* run folders */
};

/*
 * Writes findings.json, findings.md, energy.md, breakdown.md, cdf.tsv and
 * qq.tsv into dir, reading energy and Table 4 from the database at db. With
 * repeat, the two runs' files must be identical (summary.json but its
 * run_id); else an error names the first that differs. 0, or -1 with err.
 */
int pl_s6_write(const char *db, const struct pl_s6_data *d, const struct pl_s6_findings *f,
		const struct pl_s6_constants *k, const struct pl_s6_repeat *repeat,
		unsigned replicates, uint64_t seed, const char *dir, struct pl_error *err);

/*
 * The section 6 bench (out/bench/section6.json): host seconds per virtual
 * second of the four runs (their folders under runs_dir, named by run id),
 * the whole command's wall_s and the taps per configuration. 0, or -1 with err.
 */
int pl_s6_write_bench(const char *runs_dir, const struct pl_s6_data *d, double wall_s,
		      const char *path, struct pl_error *err);

#endif /* PANLAB_FINDINGS_H */
