/* SPDX-License-Identifier: MIT */
/*
 * panlab-analyze: the command line over the analyzer library.
 * Exit status: 0 analysed, 1 bad input or output failure (one line on
 * stderr), 2 bad options (one usage line on stderr).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "panlab/export_json.h"
#include "panlab/ground_truth.h"
#include "panlab/model.h"
#include "panlab/report.h"
#include "panlab/trace.h"
#include "panlab/validate.h"

#define USAGE "usage: panlab-analyze --trace FILE --ground-truth FILE --out DIR " \
	      "--backend NAME --workload NAME [--run-id ID]"

struct options {
	const char *trace, *ground_truth, *out, *backend, *workload, *run_id;
};

static int usage_error(const char *what, const char *arg)
{
	fprintf(stderr, "panlab-analyze: %s%s; " USAGE "\n", what, arg ? arg : "");
	return 2;
}

/* Returns 0, or the exit status to leave with. */
static int parse_options(int argc, char **argv, struct options *o)
{
	static const struct option longopts[] = {
		{ "trace", required_argument, NULL, 't' },
		{ "ground-truth", required_argument, NULL, 'g' },
		{ "out", required_argument, NULL, 'o' },
		{ "backend", required_argument, NULL, 'b' },
		{ "workload", required_argument, NULL, 'w' },
		{ "run-id", required_argument, NULL, 'r' },
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
		case 'h':
			printf(USAGE "\n");
			return -1;
		default:
			return usage_error("unknown option or missing value: ", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return usage_error("unexpected argument: ", argv[optind]);
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
	if (!o->run_id) {
		/* The output folder is out/<run-id>/, so its name is the natural default. */
		static char base[256];
		size_t end = strlen(o->out), start;

		while (end > 1 && o->out[end - 1] == '/')
			end--;
		for (start = end; start > 0 && o->out[start - 1] != '/'; start--)
			;
		snprintf(base, sizeof(base), "%.*s", (int)(end - start), o->out + start);
		o->run_id = base;
	}
	/* These go into summary.json, which must stay valid JSON (UTF-8). */
	const char *names[][2] = { { "--backend", o->backend }, { "--workload", o->workload },
				   { "--run-id", o->run_id } };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const unsigned char *p = (const unsigned char *)names[i][1];

		if (!*p)
			return usage_error(names[i][0], " is empty, expected a name");
		for (; *p; p++)
			if (*p < 0x20 || *p > 0x7e)
				return usage_error(names[i][0], " has a character outside printable ASCII");
	}
	return 0;
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

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(int argc, char **argv)
{
	struct options o = { 0 };
	struct pl_error err;
	struct pl_trace trace;
	struct pl_ground_truth gt;
	struct pl_intervals iv;
	struct pl_graph graph;
	struct pl_transactions tx;
	struct pl_critical_paths cp;
	struct pl_breakdowns bd;
	struct pl_queueing qs;
	struct pl_aggregates ag;
	struct pl_validation val;
	char path[4096];
	int rc = parse_options(argc, argv, &o);

	if (rc)
		return rc < 0 ? 0 : rc;
	double start_ms = now_ms();

	if (pl_trace_read_file(o.trace, &trace, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		return 1;
	}
	if (pl_ground_truth_read_file(o.ground_truth, &gt, &err) < 0) {
		fprintf(stderr, "%s\n", err.msg);
		pl_trace_free(&trace);
		return 1;
	}
	pl_intervals_build(&trace, &iv);
	pl_graph_build(&trace, &iv, &graph);
	pl_transactions_extract(&trace, &iv, &graph, &tx);
	pl_critical_paths_build(&trace, &iv, &graph, &tx, &cp);
	pl_breakdowns_build(&trace, &iv, &cp, &bd);
	pl_queueing_build(&trace, &iv, &graph, &qs);
	pl_aggregates_build(&tx, &cp, &ag);
	pl_validate(&tx, &gt, &val);

	struct pl_analysis a = {
		.backend = o.backend, .workload = o.workload, .run_id = o.run_id,
		.trace = &trace, .gt = &gt, .iv = &iv, .graph = &graph, .tx = &tx, .cp = &cp,
		.bd = &bd, .qs = &qs, .ag = &ag, .val = &val,
	};

	rc = make_dirs(o.out, &err);
	if (rc == 0) {
		snprintf(path, sizeof(path), "%s/summary.json", o.out);
		rc = pl_report_write_summary(&a, path, &err);
	}
	if (rc == 0) {
		snprintf(path, sizeof(path), "%s/transactions.csv", o.out);
		rc = pl_report_write_csv(&a, path, &err);
	}
	if (rc == 0) {
		snprintf(path, sizeof(path), "%s/trace.json", o.out);
		rc = pl_export_write_trace_json(&a, path, &err);
	}
	if (rc == 0) {
		pl_report_text(stdout, &a);
		/* Host time goes to the console only, never into summary.json. */
		printf("  analysed in %.1f ms of host time; wrote summary.json, transactions.csv and trace.json in %s\n",
		       now_ms() - start_ms, o.out);
	} else {
		fprintf(stderr, "%s\n", err.msg);
	}
	pl_validation_free(&val);
	pl_aggregates_free(&ag);
	pl_queueing_free(&qs);
	pl_breakdowns_free(&bd);
	pl_critical_paths_free(&cp);
	pl_transactions_free(&tx);
	pl_graph_free(&graph);
	pl_intervals_free(&iv);
	pl_ground_truth_free(&gt);
	pl_trace_free(&trace);
	return rc == 0 ? 0 : 1;
}
