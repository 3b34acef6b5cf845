/* SPDX-License-Identifier: MIT */
/*
 * panlab-analyze: the command line over the analyzer library.
 * Exit status: 0 analysed, 1 bad input or output failure (one line on
 * stderr), 2 bad options (one usage line on stderr).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "panlab/expect.h"
#include "panlab/analyze_usage.h"
#include "panlab/experiment_report.h"
#include "panlab/export_json.h"
#include "panlab/export_sqlite.h"
#include "panlab/findings.h"
#include "panlab/ground_truth.h"
#include "panlab/model.h"
#include "panlab/overhead.h"
#include "panlab/plot.h"
#include "panlab/report.h"
#include "panlab/energy.h"
#include "panlab/stream.h"
#include "panlab/trace.h"
#include "panlab/validate.h"
#include "panlab/verdict.h"

#define USAGE PL_ANALYZE_USAGE

static const char prog[] = "panlab-analyze";

struct options {
	const char *trace, *ground_truth, *out, *backend, *workload, *run_id;
	const char *on, *off;	/* overhead: the traced and the untraced run's folders */
	const char *expect;	/* the workload's declared structure (replay/scripts/NAME.expect) */
	const char *sqlite;	/* also write the model into this SQLite database */
	const char *symbols;	/* the guest's binaries, to symbolise execution contexts */
	int no_trace_json;	/* skip trace.json (benchmarks: it costs more than the analysis) */
	int no_plots;
};

static int usage_error(const char *what, const char *arg)
{
	fprintf(stderr, "%s: %s%s; " USAGE "\n", prog, what, arg ? arg : "");
	return PL_EXIT_USAGE;
}

/* Names go into JSON files, which must stay valid (UTF-8): printable ASCII only. */
static int check_name(const char *option, const char *name)
{
	const unsigned char *p = (const unsigned char *)name;

	if (!*p)
		return usage_error(option, " is empty, expected a name");
	for (; *p; p++)
		if (*p < 0x20 || *p > 0x7e)
			return usage_error(option, " has a character outside printable ASCII");
	return 0;
}

/* The last component of a path, into buf: out/<run-id>/ names the run. */
static const char *base_name(const char *path, char *buf, size_t size)
{
	size_t end = strlen(path), start;

	while (end > 1 && path[end - 1] == '/')
		end--;
	for (start = end; start > 0 && path[start - 1] != '/'; start--)
		;
	snprintf(buf, size, "%.*s", (int)(end - start), path + start);
	return buf;
}

/* Returns 0, or the exit status to leave with. */
enum command { ANALYZE, OVERHEAD, STREAM };

static int parse_options(int argc, char **argv, struct options *o, enum command cmd)
{
	static const struct option longopts[] = {
		{ "trace", required_argument, NULL, 't' },
		{ "ground-truth", required_argument, NULL, 'g' },
		{ "out", required_argument, NULL, 'o' },
		{ "backend", required_argument, NULL, 'b' },
		{ "workload", required_argument, NULL, 'w' },
		{ "run-id", required_argument, NULL, 'r' },
		{ "no-trace-json", no_argument, NULL, 'n' },
		{ "no-plots", no_argument, NULL, 'p' },
		{ "expect", required_argument, NULL, 'e' },
		{ "sqlite", required_argument, NULL, 's' },
		{ "symbols", required_argument, NULL, 'y' },
		{ "on", required_argument, NULL, '1' },
		{ "off", required_argument, NULL, '0' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	opterr = 0;	/* one usage line of our own instead of getopt's messages */
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 't': o->trace = optarg; break;
		case 'g': o->ground_truth = optarg; break;
		case 'o': o->out = optarg; break;
		case 'b': o->backend = optarg; break;
		case 'w': o->workload = optarg; break;
		case 'r': o->run_id = optarg; break;
		case 'n': o->no_trace_json = 1; break;
		case 'p': o->no_plots = 1; break;
		case 'e': o->expect = optarg; break;
		case 's': o->sqlite = optarg; break;
		case 'y':
			o->symbols = optarg;
			break;
		case '1': o->on = optarg; break;
		case '0': o->off = optarg; break;
		case 'h':
			printf(USAGE "\n");
			return -1;
		default:
			return usage_error("unknown option or missing value: ", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument: ", argv[optind]);
	if (cmd != ANALYZE && o->sqlite)
		return usage_error("--sqlite belongs to the analysis of one run", NULL);
	if (cmd != ANALYZE && o->symbols)
		return usage_error("--symbols belongs to the analysis of one run", NULL);
	if (cmd == STREAM) {
		if (!o->trace || !o->out)
			return usage_error("stream needs --trace and --out", NULL);
		if (o->on || o->off || o->backend || o->workload || o->run_id)
			return usage_error("stream takes only --trace, --out and --ground-truth", NULL);
		return 0;
	}
	if (cmd == OVERHEAD) {
		if (!o->on || !o->off || !o->out)
			return usage_error("overhead needs --on, --off and --out", NULL);
		if (o->trace || o->ground_truth || o->backend || o->workload || o->run_id)
			return usage_error("overhead takes only --on, --off and --out", NULL);
		return 0;
	}
	if (o->on || o->off)
		return usage_error("--on and --off belong to the overhead command", NULL);
	if (!o->trace)
		return usage_error("missing --trace", NULL);
	if (!o->ground_truth)
		return usage_error("missing --ground-truth", NULL);
	if (!o->out)
		return usage_error("missing --out", NULL);
	if (!o->backend)
		return usage_error("missing --backend", NULL);
	if (!o->workload)
		return usage_error("missing --workload", NULL);
	if (!*o->out)
		return usage_error("--out is empty, expected a folder", NULL);
	int rc = check_name("--backend", o->backend);

	if (rc == 0)
		rc = check_name("--workload", o->workload);
	if (rc == 0 && o->run_id)
		rc = check_name("--run-id", o->run_id);
	if (rc == 0 && !o->run_id) {
		static char base[256];

		/* The run is named after the folder: it is --out that must be a name then. */
		o->run_id = base_name(o->out, base, sizeof(base));
		rc = check_name("--out's last component (the run id without --run-id)", o->run_id);
	}
	return rc;
}

/* mkdir -p: the output folder may be new. */
static int make_dirs(const char *path, struct pl_error *err)
{
	char buf[4096];
	size_t n = strlen(path);

	if (n >= sizeof(buf)) {
		pl_error_file(err, path, "path too long, expected under %zu bytes", sizeof(buf));
		return -1;
	}
	memcpy(buf, path, n + 1);
	for (size_t i = 1; i <= n; i++) {
		if (buf[i] != '/' && buf[i] != '\0')
			continue;
		buf[i] = '\0';
		if (mkdir(buf, 0777) != 0 && errno != EEXIST) {
			pl_error_file(err, buf, "cannot create directory: %s", strerror(errno));
			return -1;
		}
		buf[i] = path[i];
	}
	return 0;
}

/* Plots are extras: without gnuplot the run still succeeds, and says so in one line. */
static int plots_done(int rc)
{
	if (rc == 1) {
		printf("panlab-analyze: gnuplot is not on PATH, so no plots were written"
		       " (install Debian's gnuplot-nox)\n");
		return 0;
	}
	return rc;
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

/*
 * The CPU-time overhead when both runs have cpu_time.txt (the phone's),
 * none when neither has; one alone is an error.
 */
static int cpu_overhead_of(const struct options *o, struct pl_cpu_overhead *out, int *have,
			   struct pl_error *err)
{
	char p_on[4096], p_off[4096];
	struct pl_cpu_time on, off;
	int rc;

	snprintf(p_on, sizeof(p_on), "%s/cpu_time.txt", o->on);
	snprintf(p_off, sizeof(p_off), "%s/cpu_time.txt", o->off);
	*have = exists(p_on) || exists(p_off);
	if (!*have)
		return 0;
	if (pl_cpu_time_read_file(p_on, &on, err) < 0)
		return -1;
	rc = pl_cpu_time_read_file(p_off, &off, err);
	if (rc == 0) {
		rc = pl_cpu_overhead(&on, &off, out, err);
		if (rc < 0) {
			char why[sizeof(err->msg)];

			snprintf(why, sizeof(why), "%s", err->msg);
			pl_error_file(err, p_on, "against %s: %s", p_off, why);
		}
		pl_cpu_time_free(&off);
	}
	pl_cpu_time_free(&on);
	return rc;
}

/*
 * panlab-analyze overhead: ground truth (and the phone's cpu_time.txt) of a
 * traced and an untraced run of one replay -> overhead.json in --out.
 */
static int overhead_main(const struct options *o)
{
	struct pl_ground_truth on, off;
	struct pl_overhead ov;
	struct pl_cpu_overhead cpu;
	struct pl_error err;
	char path[4096], on_name[256], off_name[256];
	int have_cpu = 0;
	int rc = check_name("--on", base_name(o->on, on_name, sizeof(on_name)));

	if (rc == 0)
		rc = check_name("--off", base_name(o->off, off_name, sizeof(off_name)));
	if (rc)
		return rc;
	snprintf(path, sizeof(path), "%s/ground_truth.txt", o->on);
	if (pl_ground_truth_read_file(path, &on, &err) < 0) {
		pl_error_print(prog, &err);
		return PL_EXIT_FAILED;
	}
	snprintf(path, sizeof(path), "%s/ground_truth.txt", o->off);
	if (pl_ground_truth_read_file(path, &off, &err) < 0) {
		pl_error_print(prog, &err);
		pl_ground_truth_free(&on);
		return PL_EXIT_FAILED;
	}
	pl_overhead_compare(&on, &off, &ov);
	rc = cpu_overhead_of(o, &cpu, &have_cpu, &err);
	if (rc == 0)
		rc = make_dirs(o->out, &err);
	if (rc == 0) {
		snprintf(path, sizeof(path), "%s/overhead.json", o->out);
		rc = pl_overhead_write_json(&ov, have_cpu ? &cpu : NULL, on_name, off_name, path,
					    &err);
	}
	if (rc == 0 && !o->no_plots)
		rc = plots_done(pl_plot_overhead(&ov, o->out, &err));
	if (rc == 0)
		pl_report_overhead_text(stdout, &ov, on_name, off_name);
	else
		pl_error_print(prog, &err);
	pl_overhead_free(&ov);
	pl_ground_truth_free(&on);
	pl_ground_truth_free(&off);
	return rc == 0 ? 0 : 1;
}

/*
 * panlab-analyze stream: the windowed analysis (stream.c) of a trace too
 * large to hold -> DIR/stream.json.
 */
static int stream_main(const struct options *o)
{
	struct pl_stream_options opt = { PL_STREAM_WINDOW_EVENTS, PL_STREAM_CONTEXT_NS,
					  o->ground_truth != NULL };
	struct pl_stream_result r;
	struct pl_ground_truth gt;
	struct pl_validation val = { 0 };
	struct pl_error err;
	char path[4096];

	if (o->ground_truth && pl_ground_truth_read_file(o->ground_truth, &gt, &err) < 0) {
		pl_error_print(prog, &err);
		return PL_EXIT_FAILED;
	}
	if (pl_stream_analyze(o->trace, &opt, &r, &err) < 0) {
		pl_error_print(prog, &err);
		if (o->ground_truth)
			pl_ground_truth_free(&gt);
		return PL_EXIT_FAILED;
	}
	int rc = make_dirs(o->out, &err);

	if (o->ground_truth)
		pl_validate(&r.tx, &gt, &val);
	if (rc == 0) {
		json_t *doc = pl_stream_result_json(&r, &opt);

		if (o->ground_truth)
			json_object_set_new(doc, "validation", pl_report_validation_json(&val));
		snprintf(path, sizeof(path), "%s/stream.json", o->out);
		if (json_dump_file(doc, path, JSON_INDENT(2) | JSON_REAL_PRECISION(12)) != 0) {
			pl_error_file(&err, path, "cannot write: %s", strerror(errno));
			rc = -1;
		}
		json_decref(doc);
	}
	if (rc == 0) {
		printf("panlab-analyze stream: %" PRIu64 " events in %" PRIu64 " windows, %" PRIu64
		       " inputs, %" PRIu64 " transactions (%" PRIu64 " animations), latency p50 %"
		       PRIu64 " ns, p95 %" PRIu64 " ns", r.events, r.windows, r.inputs,
		       r.transactions, r.animations, r.latency.p50, r.latency.p95);
		if (o->ground_truth)
			printf("; ground truth: %" PRIu64 " inputs, %" PRIu64 " matched", val.inputs,
			       val.matched);
		printf("; wrote %s\n", path);
	} else {
		pl_error_print(prog, &err);
	}
	if (o->ground_truth) {
		pl_validation_free(&val);
		pl_ground_truth_free(&gt);
	}
	pl_stream_result_free(&r);
	return rc == 0 ? 0 : 1;
}

/*
 * panlab-analyze findings: Panappticon section 6's findings from an
 * experiment's results database -> findings.json, findings.md, energy.md,
 * breakdown.md, cdf.tsv, qq.tsv (and cdf.svg, qq.svg) in --out.
 */
static int findings_main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, 'd' },
		{ "experiment", required_argument, NULL, 'x' },
		{ "out", required_argument, NULL, 'o' },
		{ "constants", required_argument, NULL, 'k' },
		{ "repeat", required_argument, NULL, 'r' },
		{ "replicates", required_argument, NULL, 'n' },
		{ "seed", required_argument, NULL, 's' },
		{ "no-plots", no_argument, NULL, 'p' },
		{ "bench", required_argument, NULL, 'b' },
		{ "runs-dir", required_argument, NULL, 'R' },
		{ "wall-s", required_argument, NULL, 'w' },
		{ NULL, 0, NULL, 0 },
	};
	const char *db = NULL, *experiment = NULL, *out = NULL, *bench = NULL, *runs_dir = NULL;
	uint64_t wall_s = 0;
	struct pl_s6_constants k = { 0 };
	struct pl_s6_repeat repeat = { 0 };
	char repeat_buf[8192];
	uint64_t replicates = PL_S6_REPLICATES, seed = PL_S6_SEED;
	int no_plots = 0, c, rc = 0;
	struct pl_error err;

	pl_s6_constants_analyzer(&k);
	opterr = 0;
	while (rc == 0 && (c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		switch (c) {
		case 'd': db = optarg; break;
		case 'x': experiment = optarg; break;
		case 'o': out = optarg; break;
		case 'p': no_plots = 1; break;
		case 'b': bench = optarg; break;
		case 'R': runs_dir = optarg; break;
		case 'w':
			if (pl_parse_u64(optarg, UINT32_MAX, &wall_s) < 0)
				rc = usage_error("--wall-s takes whole seconds, got ", optarg);
			break;
		case 'k':
			if (pl_s6_constants_read(optarg, &k, &err) < 0) {
				pl_error_print(prog, &err);
				rc = 1;
			}
			break;
		case 'r': {
			char *a, *b;

			snprintf(repeat_buf, sizeof(repeat_buf), "%s", optarg);
			a = strchr(repeat_buf, ':');
			b = a ? strchr(a + 1, ':') : NULL;
			if (!b || a == repeat_buf || b == a + 1 || !b[1]) {
				rc = usage_error("--repeat takes CONFIG:DIR:DIR, got ", optarg);
				break;
			}
			*a = *b = '\0';
			repeat = (struct pl_s6_repeat){ repeat_buf, a + 1, b + 1 };
			break;
		}
		case 'n':
			if (pl_parse_u64(optarg, 1000000, &replicates) < 0 || replicates < 2)
				rc = usage_error("--replicates takes 2..1000000, got ", optarg);
			break;
		case 's':
			if (pl_parse_u64(optarg, UINT64_MAX, &seed) < 0)
				rc = usage_error("--seed takes a whole number, got ", optarg);
			break;
		default:
			rc = usage_error("unknown option or missing value: ", argv[optind - 1]);
		}
	}
	if (rc == 0 && optind < argc)
		rc = usage_error("unexpected argument: ", argv[optind]);
	if (rc == 0 && (!db || !experiment || !out))
		rc = usage_error("findings needs --db, --experiment and --out", NULL);
	if (rc == 0 && !bench != !runs_dir)
		rc = usage_error("--bench and --runs-dir go together", NULL);
	if (rc) {
		pl_s6_constants_free(&k);
		return rc;
	}
	struct pl_s6_data d;
	struct pl_s6_findings f;

	rc = pl_s6_read_db(db, experiment, &d, &err);
	if (rc == 0) {
		rc = pl_s6_compute(&d, (unsigned)replicates, seed, &f, &err);
		if (rc == 0)
			rc = make_dirs(out, &err);
		if (rc == 0)
			rc = pl_s6_write(db, &d, &f, &k, repeat.config ? &repeat : NULL,
					 (unsigned)replicates, seed, out, &err);
		if (rc == 0 && !no_plots)
			rc = plots_done(pl_plot_section6(out, &err));
		if (rc == 0 && bench)
			rc = pl_s6_write_bench(runs_dir, &d, (double)wall_s, bench, &err);
		pl_s6_data_free(&d);
	}
	pl_s6_constants_free(&k);
	if (rc) {
		pl_error_print(prog, &err);
		return PL_EXIT_FAILED;
	}
	printf("panlab-analyze findings: %u of %d reproduce (input to last display update);"
	       " wrote findings.json, findings.md, energy.md, breakdown.md, cdf.tsv, qq.tsv%s in %s\n",
	       f.reproduced, PL_S6_FINDINGS, no_plots ? "" : " and plots", out);
	return 0;
}

/*
 * getopt_long over options that each take a value: option i's value (its
 * `val`, 0..n-1) into values[i]. Returns 0, or the usage exit status.
 */
static int named_options(int argc, char **argv, const struct option *longopts, const char **values)
{
	int c;

	opterr = 0;
	while ((c = getopt_long(argc, argv, "", longopts, NULL)) != -1) {
		if (c == '?' || c == ':')
			return usage_error("unknown option or missing value: ", argv[optind - 1]);
		values[c] = optarg;
	}
	if (optind < argc)
		return usage_error("unexpected argument: ", argv[optind]);
	return 0;
}

/*
 * panlab-analyze verdict: every run of an experiment against its targets
 * (panlab/verdict.h) -> a table on stdout and the array in --out. Exit 1
 * when a run missed a target.
 */
static int verdict_main(int argc, char **argv)
{
	enum { DB, EXPERIMENT, RUNS_DIR, OUT, NV };
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, DB },
		{ "experiment", required_argument, NULL, EXPERIMENT },
		{ "runs-dir", required_argument, NULL, RUNS_DIR },
		{ "out", required_argument, NULL, OUT },
		{ NULL, 0, NULL, 0 },
	};
	const char *v[NV] = { 0 }, *out;
	struct pl_error err;
	json_t *all;
	uint64_t bad;
	int rc = named_options(argc, argv, longopts, v);

	if (rc)
		return rc;
	if (!v[DB] || !v[EXPERIMENT] || !v[RUNS_DIR] || !v[OUT])
		return usage_error("verdict needs --db, --experiment, --runs-dir and --out", NULL);
	out = v[OUT];
	if (pl_verdict_experiment(v[DB], v[EXPERIMENT], v[RUNS_DIR], stdout, &all, &bad, &err) <
	    0) {
		pl_error_print(prog, &err);
		return PL_EXIT_FAILED;
	}
	size_t n = json_array_size(all);

	rc = json_dump_file(all, out, JSON_INDENT(2) | JSON_REAL_PRECISION(12));

	json_decref(all);
	if (rc != 0) {
		pl_error_file(&err, out, "cannot write: %s", strerror(errno));
		pl_error_print(prog, &err);
		return PL_EXIT_FAILED;
	}
	if (bad == 0)
		printf("suite: all %zu workloads ok; %s\n", n, out);
	else
		printf("suite: %" PRIu64 " of %zu workloads missed a target (status column); %s\n",
		       bad, n, out);
	return bad ? 1 : 0;
}

/* panlab-analyze report: an experiment's report.html from its results database. */
static int report_main(int argc, char **argv)
{
	enum { DB, OUT, NV };
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, DB },
		{ "out", required_argument, NULL, OUT },
		{ NULL, 0, NULL, 0 },
	};
	const char *v[NV] = { 0 }, *db, *out;
	struct pl_error err;
	int rc = named_options(argc, argv, longopts, v);

	if (rc)
		return rc;
	db = v[DB], out = v[OUT];
	if (!db || !out)
		return usage_error("report needs --db and --out", NULL);
	if (pl_experiment_report(db, out, &err) < 0) {
		pl_error_print(prog, &err);
		return PL_EXIT_FAILED;
	}
	printf("report: %s\n", out);
	return 0;
}

/*
 * panlab-analyze record: one runs row of a results database by column name
 * (panlab/export_sqlite.h), with the run's model when --model is given. A
 * finished run (ok, failed) gets finished_at, now in UTC.
 */
static int record_main(int argc, char **argv)
{
	enum {
		DB,
		RUN_ID,
		EXPERIMENT,
		CONFIG,
		BACKEND,
		WORKLOAD,
		CORES,
		GOVERNOR,
		FREQ_MHZ,
		TRACE,
		REPETITION,
		OPTIONS,
		INPUT_HASH,
		STATUS,
		REASON,
		WALL_S,
		MODEL,
		NV
	};
	static const struct option longopts[] = {
		{ "db", required_argument, NULL, DB },
		{ "run-id", required_argument, NULL, RUN_ID },
		{ "experiment", required_argument, NULL, EXPERIMENT },
		{ "config", required_argument, NULL, CONFIG },
		{ "backend", required_argument, NULL, BACKEND },
		{ "workload", required_argument, NULL, WORKLOAD },
		{ "cores", required_argument, NULL, CORES },
		{ "governor", required_argument, NULL, GOVERNOR },
		{ "freq-mhz", required_argument, NULL, FREQ_MHZ },
		{ "trace", required_argument, NULL, TRACE },
		{ "repetition", required_argument, NULL, REPETITION },
		{ "options", required_argument, NULL, OPTIONS },
		{ "input-hash", required_argument, NULL, INPUT_HASH },
		{ "status", required_argument, NULL, STATUS },
		{ "reason", required_argument, NULL, REASON },
		{ "wall-s", required_argument, NULL, WALL_S },
		{ "model", required_argument, NULL, MODEL },
		{ NULL, 0, NULL, 0 },
	};
	const char *v[NV] = { 0 };
	char finished[32], *end;
	struct pl_error err;
	int rc = named_options(argc, argv, longopts, v);

	if (rc)
		return rc;
	struct pl_run_row row = {
		.run_id = v[RUN_ID],
		.experiment = v[EXPERIMENT],
		.config = v[CONFIG],
		.backend = v[BACKEND],
		.workload = v[WORKLOAD],
		.governor = v[GOVERNOR],
		.options = v[OPTIONS],
		.input_hash = v[INPUT_HASH],
		.status = v[STATUS],
		.reason = v[REASON],
		.has_cores = v[CORES] != NULL,
		.has_freq_mhz = v[FREQ_MHZ] != NULL,
		.has_repetition = v[REPETITION] != NULL,
		.has_trace = v[TRACE] != NULL,
		.has_wall_s = v[WALL_S] != NULL,
	};

	if (!v[DB] || !row.run_id || !row.status)
		return usage_error("record needs --db, --run-id and --status", NULL);
	if (!pl_run_status_valid(row.status))
		return usage_error("--status takes pending, running, ok or failed, got ",
				   row.status);
	if (v[CORES] && (pl_parse_u64(v[CORES], 99, &row.cores) < 0 || !row.cores))
		return usage_error("--cores takes 1..99, got ", v[CORES]);
	if (v[FREQ_MHZ] && (pl_parse_u64(v[FREQ_MHZ], 99999, &row.freq_mhz) < 0 || !row.freq_mhz))
		return usage_error("--freq-mhz takes MHz, got ", v[FREQ_MHZ]);
	if (v[REPETITION] &&
	    (pl_parse_u64(v[REPETITION], 9999, &row.repetition) < 0 || !row.repetition))
		return usage_error("--repetition takes 1..9999, got ", v[REPETITION]);
	if (v[TRACE] && strcmp(v[TRACE], "on") && strcmp(v[TRACE], "off"))
		return usage_error("--trace takes on or off, got ", v[TRACE]);
	row.trace = v[TRACE] && !strcmp(v[TRACE], "on");
	if (v[WALL_S]) {
		errno = 0;
		row.wall_s = strtod(v[WALL_S], &end);
		if (errno || end == v[WALL_S] || *end || !(row.wall_s >= 0))
			return usage_error("--wall-s takes seconds (>= 0), got ", v[WALL_S]);
	}
	if (!strcmp(row.status, "ok") || !strcmp(row.status, "failed")) {
		time_t now = time(NULL);

		strftime(finished, sizeof(finished), "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
		row.finished_at = finished;
	}
	if (pl_sqlite_record_run(v[DB], &row, v[MODEL], &err) < 0) {
		pl_error_print(prog, &err);
		return PL_EXIT_FAILED;
	}
	return 0;
}

/* The command named by argv, with its exit status. */
static int run_command(int argc, char **argv)
{
	struct options o = { 0 };
	enum command cmd = argc < 2 ? ANALYZE : !strcmp(argv[1], "overhead") ? OVERHEAD
		: !strcmp(argv[1], "stream") ? STREAM : ANALYZE;
	int shift = cmd != ANALYZE;

	/*
	 * The results databases' schema, printed for users, or (--db FILE) a database
	 * created with it, or checked, for the experiment runner.
	 */
	if (argc >= 2 && !strcmp(argv[1], "schema")) {
		struct pl_error err;

		if (argc == 4 && !strcmp(argv[2], "--db")) {
			if (pl_sqlite_create(argv[3], &err) < 0) {
				pl_error_print(prog, &err);
				return PL_EXIT_FAILED;
			}
			return 0;
		}
		if (argc > 2)
			return usage_error("schema takes no arguments but --db FILE, got ", argv[2]);
		fputs(pl_sqlite_schema, stdout);
		return 0;
	}
	/* The analyzer's model constants, in the model-constants format (panlab/findings.h). */
	if (argc == 2 && !strcmp(argv[1], "model-constants")) {
		struct pl_s6_constants k = { 0 };

		pl_s6_constants_analyzer(&k);
		pl_s6_constants_write(stdout, &k);
		pl_s6_constants_free(&k);
		return 0;
	}
	if (argc >= 2 && !strcmp(argv[1], "findings"))
		return findings_main(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "verdict"))
		return verdict_main(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "report"))
		return report_main(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "record"))
		return record_main(argc - 1, argv + 1);
	struct pl_error err;
	struct pl_trace trace;
	struct pl_ground_truth gt;
	struct pl_model m;
	struct pl_energy energy;
	struct pl_symbols symbols;
	struct pl_validation val;
	struct pl_expect expect;
	struct pl_expect_result checked;
	char path[4096];
	int rc = parse_options(argc - shift, argv + shift, &o, cmd);

	if (rc)
		return rc < 0 ? 0 : rc;
	if (cmd == OVERHEAD)
		return overhead_main(&o);
	if (cmd == STREAM)
		return stream_main(&o);
	double start_ms = now_ms();

	if (pl_trace_read_file(o.trace, &trace, &err) < 0) {
		pl_error_print(prog, &err);
		return PL_EXIT_FAILED;
	}
	if (pl_ground_truth_read_file(o.ground_truth, &gt, &err) < 0) {
		pl_error_print(prog, &err);
		pl_trace_free(&trace);
		return PL_EXIT_FAILED;
	}
	if (o.expect && pl_expect_read_file(o.expect, &expect, &err) < 0) {
		pl_error_print(prog, &err);
		pl_ground_truth_free(&gt);
		pl_trace_free(&trace);
		return PL_EXIT_FAILED;
	}
	pl_model_build(&trace, &m);
	if (pl_symbols_build(&m.tasks, &m.iv, o.symbols, &symbols, &err) < 0) {
		pl_error_print(prog, &err);
		if (o.expect)
			pl_expect_free(&expect);
		pl_model_free(&m);
		pl_ground_truth_free(&gt);
		pl_trace_free(&trace);
		return PL_EXIT_FAILED;
	}
	pl_energy_build(&trace, &m.tx, &pl_power_galaxy_nexus, &energy);
	pl_validate(&m.tx, &gt, &val);
	if (o.expect) {
		pl_expect_check(&expect, &trace, &m.tx, &m.cp, &m.bd, &val, &checked);
		pl_expect_check_diagnosis(&expect, &m.tasks, &m.diag, &symbols, &checked);
	}

	struct pl_analysis a = pl_analysis_of(&m, &trace, &gt, &val, &energy, &symbols);

	a.backend = o.backend;
	a.workload = o.workload;
	a.run_id = o.run_id;
	a.expect = o.expect ? &checked : NULL;

	rc = make_dirs(o.out, &err);
	if (rc == 0) {
		snprintf(path, sizeof(path), "%s/summary.json", o.out);
		rc = pl_report_write_summary(&a, path, &err);
	}
	if (rc == 0) {
		snprintf(path, sizeof(path), "%s/transactions.csv", o.out);
		rc = pl_report_write_csv(&a, path, &err);
	}
	if (rc == 0 && !o.no_trace_json) {
		snprintf(path, sizeof(path), "%s/trace.json", o.out);
		rc = pl_export_write_trace_json(&a, path, &err);
	}
	if (rc == 0 && o.sqlite)
		rc = pl_export_write_sqlite(&a, o.sqlite, &err);
	if (rc == 0 && !o.no_plots)
		rc = plots_done(pl_plot_run(&a, o.out, &err));
	if (rc == 0) {
		pl_report_text(stdout, &a);
		/* Host time goes to the console only, never into summary.json. */
		printf("  analysed in %.1f ms of host time; wrote summary.json, transactions.csv%s%s in %s%s%s\n",
		       now_ms() - start_ms, o.no_trace_json ? "" : ", trace.json",
		       o.no_plots ? "" : " and plots (svg)", o.out,
		       o.sqlite ? "; the model in " : "", o.sqlite ? o.sqlite : "");
	} else {
		pl_error_print(prog, &err);
	}
	if (o.expect) {
		pl_expect_result_free(&checked);
		pl_expect_free(&expect);
	}
	pl_validation_free(&val);
	pl_energy_free(&energy);
	pl_symbols_free(&symbols);
	pl_model_free(&m);
	pl_ground_truth_free(&gt);
	pl_trace_free(&trace);
	return rc == 0 ? 0 : 1;
}

/* Every command's output on stdout must have been written, or the command fails. */
int main(int argc, char **argv)
{
	return pl_finish_stdout("panlab-analyze", run_command(argc, argv));
}
