/* SPDX-License-Identifier: MIT */
/*
 * panlab-analyze end to end (the sanitized build): outputs of a good run,
 * determinism, and for each bad input exactly one stderr line and exit 1.
 */
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "panlab/analyze_usage.h"
#include "panlab/read_file.h"
#include "test_analyzer.h"

struct result {
	int status;	/* exit code, or 128 + signal */
	char *out, *err;
};

/* Runs the analyzer with args, its stdout into stdout_path (NULL: a file r->out reads back). */
static void run_to(const char *const *args, const char *stdout_path, struct result *r)
{
	char out_path[256], err_path[256];
	const char *argv[16] = { PANLAB_ANALYZE };
	int n = 1;

	while (args[n - 1] && n < 15) {
		argv[n] = args[n - 1];
		n++;
	}
	argv[n] = NULL;
	if (stdout_path)
		snprintf(out_path, sizeof(out_path), "%s", stdout_path);
	else
		snprintf(out_path, sizeof(out_path), "%s/stdout", test_tmpdir());
	snprintf(err_path, sizeof(err_path), "%s/stderr", test_tmpdir());
	fflush(NULL);
	pid_t pid = fork();

	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		int o = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

		dup2(o, 1);
		dup2(e, 2);
		execv(argv[0], (char *const *)argv);
		_exit(127);
	}
	int st;

	CU_ASSERT_FATAL(waitpid(pid, &st, 0) == pid);
	r->status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	r->out = stdout_path ? NULL : read_text(out_path);
	r->err = read_text(err_path);
}

static void run(const char *const *args, struct result *r)
{
	run_to(args, NULL, r);
}

static void result_free(struct result *r)
{
	free(r->out);
	free(r->err);
}

/* Writes the sequential scenario, optionally damaged, to dir/name; returns its path. */
static char *write_trace(const char *name, size_t cut, size_t offset, int value)
{
	static char path[256];
	struct tb t;
	size_t len;

	scenario_sequential(&t);
	uint8_t *buf = tb_bytes(&t, &len);

	tb_free(&t);
	if (value >= 0)
		buf[offset] = (uint8_t)value;
	snprintf(path, sizeof(path), "%s/%s", test_tmpdir(), name);
	FILE *f = fopen(path, "wb");

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fwrite(buf, 1, len - cut, f);
	fclose(f);
	free(buf);
	return path;
}

static void analyze(const char *trace, const char *gt, const char *out, const char *run_id,
		    struct result *r)
{
	const char *args[] = { "--trace", trace, "--ground-truth", gt, "--out", out,
			       "--backend", "qemu", "--workload", "asynctask",
			       "--run-id", run_id, NULL };

	run(args, r);
}

static json_int_t integer_at(json_t *o, const char *key, const char *sub)
{
	json_t *v = json_object_get(o, key);

	if (sub)
		v = json_object_get(v, sub);
	CU_ASSERT(json_is_integer(v));
	return json_integer_value(v);
}

/* Without --run-id the run id is the output folder's name. */
static void test_default_run_id(void)
{
	char out[256], path[300];
	char *trace = write_trace("seq.bin", 0, 0, -1);
	const char *args[] = { "--trace", trace, "--ground-truth", PANLAB_TEST_DATA "/sequential.gt",
			       "--out", out, "--backend", "qemu", "--workload", "asynctask", NULL };
	struct result r;

	snprintf(out, sizeof(out), "%s/out/run-7//", test_tmpdir());
	run(args, &r);
	CU_ASSERT_EQUAL(r.status, 0);
	result_free(&r);
	snprintf(path, sizeof(path), "%s/summary.json", out);
	json_t *s = json_load_file(path, 0, NULL);

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(s, "run_id")), "run-7");
	json_decref(s);
}

static void test_good_run(void)
{
	char out1[256], out2[256], path[300];
	char *trace = write_trace("seq.bin", 0, 0, -1);
	struct result r;

	snprintf(out1, sizeof(out1), "%s/out/r1", test_tmpdir());
	snprintf(out2, sizeof(out2), "%s/out/r2", test_tmpdir());
	analyze(trace, PANLAB_TEST_DATA "/sequential.gt", out1, "r1", &r);
	CU_ASSERT_EQUAL(r.status, 0);
	CU_ASSERT_STRING_EQUAL(r.err, "");
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "inputs 2, transactions 2, matched 2, precision 1.000, recall 1.000"));
	result_free(&r);
	/* gnuplot is a build dependency here (scripts/install-deps.sh), so the plots are there. */
	static const char *const plots[] = { "latency_cdf.svg", "breakdown.svg", "timeline.svg" };

	for (size_t i = 0; i < sizeof(plots) / sizeof(plots[0]); i++) {
		char *svg;

		snprintf(path, sizeof(path), "%s/%s", out1, plots[i]);
		svg = read_text(path);
		CU_ASSERT_PTR_NOT_NULL(svg ? strstr(svg, "<svg") : NULL);
		free(svg);
	}

	snprintf(path, sizeof(path), "%s/summary.json", out1);
	json_error_t jerr;
	json_t *s = json_load_file(path, 0, &jerr);

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(s, "backend")), "qemu");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(s, "workload")), "asynctask");
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(s, "run_id")), "r1");
	CU_ASSERT_EQUAL(integer_at(s, "inputs", NULL), 2);
	CU_ASSERT_EQUAL(integer_at(s, "transactions", NULL), 2);
	CU_ASSERT_EQUAL(integer_at(s, "matched", NULL), 2);
	CU_ASSERT(json_real_value(json_object_get(s, "precision")) == 1.0);
	CU_ASSERT(json_real_value(json_object_get(s, "recall")) == 1.0);
	/* Detected 600 and 1100 us against 680 and 1190 us of ground truth. */
	CU_ASSERT_EQUAL(integer_at(s, "latency_error_ns", "max"), 90000);
	CU_ASSERT_EQUAL(integer_at(s, "latency_error_ns", "mean"), 85000);
	CU_ASSERT_EQUAL(integer_at(s, "latency_difference_ns", "min"), -90000);
	/* This trace has no inputd or compositor events: no pipeline segments, by time window. */
	CU_ASSERT_EQUAL(integer_at(s, "input_dispatch_ns", "mean"), 0);
	CU_ASSERT_EQUAL(integer_at(s, "display_pipeline_ns", "mean"), 0);
	CU_ASSERT_EQUAL(integer_at(s, "match_rule_counts", "window"), 2);
	CU_ASSERT_EQUAL(integer_at(s, "match_rule_counts", "marker"), 0);
	CU_ASSERT_EQUAL(integer_at(s, "unreadable_frames", NULL), 0);
	CU_ASSERT_EQUAL(integer_at(s, "breakdown_ns", "flush"), 0);
	CU_ASSERT_EQUAL(integer_at(s, "events", NULL), 37);
	CU_ASSERT_EQUAL(integer_at(s, "events_lost", NULL), 3);
	CU_ASSERT_EQUAL(integer_at(s, "updates", NULL), 3);
	CU_ASSERT_EQUAL(integer_at(s, "unattributed_updates", NULL), 1);
	/* The two paths' parts: running 330 + 830 us (each frame's 10 us of drawing included), each
	 * 80 us of task and 100 us of message queueing, and 90 us of frame wait. */
	CU_ASSERT_EQUAL(integer_at(s, "breakdown_ns", "running"), 1160000);
	CU_ASSERT_EQUAL(integer_at(s, "breakdown_ns", "queue_task"), 160000);
	CU_ASSERT_EQUAL(integer_at(s, "breakdown_ns", "frame_wait"), 180000);
	CU_ASSERT_EQUAL(integer_at(s, "critical_path", "transactions_with_joins"), 0);
	CU_ASSERT_EQUAL(integer_at(s, "running_ns_by_khz", "0"), 1160000); /* no CPU_FREQUENCY */
	json_t *pool = json_array_get(json_object_get(s, "queues"), 1);

	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(pool, "kind")), "executor");
	CU_ASSERT_EQUAL(integer_at(pool, "items", NULL), 2);
	CU_ASSERT_EQUAL(integer_at(pool, "max_run_ns", NULL), 810000);	/* task 2: 3200..4010 us */
	json_t *shape = json_array_get(json_object_get(s, "shapes"), 0);

	CU_ASSERT_EQUAL(json_array_size(json_object_get(s, "shapes")), 1);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(shape, "critical_path")),
			       "task>message>invalidate");
	CU_ASSERT_EQUAL(integer_at(shape, "transactions", NULL), 2);
	CU_ASSERT_EQUAL(integer_at(shape, "mean_latency_ns", NULL), 850000);
	CU_ASSERT_EQUAL(integer_at(shape, "sd_latency_ns", NULL), 250000);
	CU_ASSERT_EQUAL(integer_at(s, "detected_latency_ns", "p50"), 600000);
	CU_ASSERT_EQUAL(integer_at(s, "detected_latency_ns", "p90"), 1100000);
	CU_ASSERT_EQUAL(integer_at(s, "truth_latency_ns", "max"), 1190000);
	json_t *src = json_array_get(json_object_get(s, "sources"), 1);

	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(src, "kind")), "kernel_cpu");
	CU_ASSERT_EQUAL(integer_at(src, "lost", NULL), 3);
	CU_ASSERT_EQUAL(json_array_size(json_object_get(s, "sources")), 6);
	json_t *energy = json_object_get(s, "energy");

	CU_ASSERT_EQUAL(json_array_size(json_object_get(energy, "transaction_energy_mj")), 2);
	CU_ASSERT_PTR_NOT_NULL(json_object_get(json_object_get(energy, "cores"), "cpu1"));
	json_decref(s);

	snprintf(path, sizeof(path), "%s/transactions.csv", out1);
	char *csv = read_text(path);

	CU_ASSERT_STRING_EQUAL(
		csv,
		"transaction_id,input_id,input_ns,last_update_ns,detected_latency_ns,"
		"truth_input_ns,truth_output_ns,truth_latency_ns,difference_ns,"
		"match_rule,delivered_ns,shown_ns,input_dispatch_ns,display_pipeline_ns,"
		"vsync_queue_ns,composition_ns,flush_ns,updates,first_update_ns,chained_frames,"
		"animation,intervals,threads,running_ns,"
		"runnable_ns,io_ns,network_ns,lock_ns,sleeping_ns,unknown_ns,queue_message_ns,"
		"queue_task_ns,binder_ns,thread_start_ns,frame_wait_ns,ipc_ns,input_wait_ns,timer_ns,"
		"display_ns,running_ns_by_khz,top_preempter_tid,outlier,energy_mj,"
		"critical_path_instructions,critical_path_cycles,critical_path_mhz,critical_path\n"
		"0,0,1110000,1710000,600000,1050000,1730000,680000,-80000,window,1110000,1710000,0,0,"
		"0,0,0,1,1710000,1,0,4,2,"
		"330000,0,0,0,0,0,0,100000,80000,0,0,90000,0,0,0,0,0:330000,,0,2.193600,,,,"
		"task>message>invalidate\n"
		"1,1,3110000,4210000,1100000,3050000,4240000,1190000,-90000,window,3110000,4210000,0,0,"
		"0,0,0,1,4210000,1,0,4,2,"
		"830000,0,0,0,0,0,0,100000,80000,0,0,90000,0,0,0,0,0:830000,,0,4.246000,,,,"
		"task>message>invalidate\n");

	/* A second run of the same inputs differs only in run_id. */
	analyze(trace, PANLAB_TEST_DATA "/sequential.gt", out2, "r2", &r);
	CU_ASSERT_EQUAL(r.status, 0);
	result_free(&r);
	snprintf(path, sizeof(path), "%s/summary.json", out1);
	char *a = read_text(path);
	snprintf(path, sizeof(path), "%s/summary.json", out2);
	char *b = read_text(path);
	char *id = strstr(b, "\"run_id\": \"r2\"");

	CU_ASSERT_PTR_NOT_NULL_FATAL(id);
	id[strlen("\"run_id\": \"r")] = '1';
	CU_ASSERT_STRING_EQUAL(a, b);
	snprintf(path, sizeof(path), "%s/transactions.csv", out2);
	char *csv2 = read_text(path);

	CU_ASSERT_STRING_EQUAL(csv, csv2);
	snprintf(path, sizeof(path), "%s/trace.json", out1);
	char *tj1 = read_text(path);
	snprintf(path, sizeof(path), "%s/trace.json", out2);
	char *tj2 = read_text(path);

	CU_ASSERT(tj1 && tj2 && strlen(tj1) > 100 && strcmp(tj1, tj2) == 0);
	free(tj1);
	free(tj2);
	free(a);
	free(b);
	free(csv);
	free(csv2);
}

/*
 * A real run: the asynctask spine on the qemu backend, 24 taps (trace and
 * ground truth as the guest and the run script left them). Every tap is
 * one transaction through an async task back to the main looper.
 */
static void test_real_qemu_run(void)
{
	char out[256], path[300];
	struct result r;

	snprintf(out, sizeof(out), "%s/out/qemu", test_tmpdir());
	analyze(PANLAB_TEST_DATA "/qemu-asynctask.trace.bin", PANLAB_TEST_DATA "/qemu-asynctask.gt",
		out, "qemu", &r);
	CU_ASSERT_EQUAL(r.status, 0);
	CU_ASSERT_STRING_EQUAL(r.err, "");
	result_free(&r);
	snprintf(path, sizeof(path), "%s/summary.json", out);
	json_t *s = json_load_file(path, 0, NULL);

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	CU_ASSERT_EQUAL(integer_at(s, "events", NULL), 2099);
	CU_ASSERT_EQUAL(integer_at(s, "inputs", NULL), 24);
	CU_ASSERT_EQUAL(integer_at(s, "transactions", NULL), 24);
	CU_ASSERT_EQUAL(integer_at(s, "matched", NULL), 24);
	CU_ASSERT(json_real_value(json_object_get(s, "precision")) == 1.0);
	CU_ASSERT(json_real_value(json_object_get(s, "recall")) == 1.0);
	CU_ASSERT_EQUAL(integer_at(s, "unattributed_updates", NULL), 1);	/* the first frame */
	CU_ASSERT_EQUAL(integer_at(s, "latency_error_ns", "max"), 16314160);
	/* A run from before inputd and the compositor logged: no pipeline segments, so the
	 * whole difference is still the two pipelines (a vsync and more). */
	CU_ASSERT_EQUAL(integer_at(s, "input_dispatch_ns", "mean"), 0);
	CU_ASSERT(integer_at(s, "latency_difference_ns", "mean") < -6000000);
	json_decref(s);

	snprintf(path, sizeof(path), "%s/transactions.csv", out);
	char *csv = read_text(path);
	int rows = 0, shaped = 0;

	for (char *line = strchr(csv, '\n'); line && line[1]; line = strchr(line + 1, '\n')) {
		rows++;
		char *end = strchr(line + 1, '\n');
		size_t len = end ? (size_t)(end - line - 1) : strlen(line + 1);
		static const char shape[] = ",task>message>invalidate";

		shaped += len >= sizeof(shape) - 1 &&
			  !strncmp(line + 1 + len - (sizeof(shape) - 1), shape, sizeof(shape) - 1);
	}
	CU_ASSERT_EQUAL(rows, 24);
	CU_ASSERT_EQUAL(shaped, 24);
	free(csv);
}

/* Runs on a bad input and checks: exit 1, nothing on stdout, exactly `line` on stderr. */
static void expect_failure(const char *trace, const char *gt, const char *line)
{
	char out[256], want[1024];
	struct result r;

	snprintf(out, sizeof(out), "%s/out/bad", test_tmpdir());
	snprintf(want, sizeof(want), "panlab-analyze: %s\n", line);
	analyze(trace, gt, out, "bad", &r);
	CU_ASSERT_EQUAL(r.status, 1);
	CU_ASSERT_STRING_EQUAL(r.out, "");
	CU_ASSERT_STRING_EQUAL(r.err, want);
	if (strcmp(r.err, want) != 0)
		fprintf(stderr, "\n  got:      %s  expected: %s", r.err, want);
	result_free(&r);
}

static const char *gt_ok = PANLAB_TEST_DATA "/sequential.gt";

static void test_truncated_trace(void)
{
	char line[512];
	char *path = write_trace("truncated.bin", 10, 0, -1);

	snprintf(line, sizeof(line),
		 "%s@1328: truncated trace: file ends at byte 1350 in record 36 of 37, expected 1360 bytes",
		 path);
	expect_failure(path, gt_ok, line);
}

static void test_corrupt_header(void)
{
	char line[512];
	char *path = write_trace("magic.bin", 0, 3, 'x');

	snprintf(line, sizeof(line), "%s@0: bad magic \"PANxABTR\", expected \"PANLABTR\"", path);
	expect_failure(path, gt_ok, line);
	path = write_trace("version.bin", 0, 8, 9);
	snprintf(line, sizeof(line), "%s@8: unsupported version 9, expected 1..6", path);
	expect_failure(path, gt_ok, line);
}

static void test_unknown_type(void)
{
	char line[512];
	char *path = write_trace("type.bin", 0, 272 + 8, 200);

	snprintf(line, sizeof(line),
		 "%s@272: unknown event type 200, expected a type listed in trace_format.h", path);
	expect_failure(path, gt_ok, line);
}

static void test_ground_truth_syntax(void)
{
	char *path = write_trace("seq.bin", 0, 0, -1);

	expect_failure(path, PANLAB_TEST_DATA "/bad_syntax.gt",
		       PANLAB_TEST_DATA "/bad_syntax.gt:4: tap y is \"two\", expected a decimal integer up to 4294967295");
	expect_failure(path, "/nonexistent.gt",
		       "/nonexistent.gt: cannot open: No such file or directory");
}

#define USAGE PL_ANALYZE_USAGE "\n"

static void test_usage(void)
{
	static const char *const none[] = { NULL };
	static const char *const bogus[] = { "--bogus", NULL };
	static const char *const no_workload[] = { "--trace", "t", "--ground-truth", "g",
						   "--out", "o", "--backend", "qemu", NULL };
	static const char *const stray[] = { "--trace", "t", "extra", NULL };
	static const char *const dangling[] = { "--trace", NULL };
	static const char *const bad_name[] = { "--trace", "t", "--ground-truth", "g",
						"--out", "o", "--backend", "q\x01", "--workload", "w", NULL };
	struct result r;

	run(bad_name, &r);
	CU_ASSERT_EQUAL(r.status, 2);
	CU_ASSERT_STRING_EQUAL(r.err,
			       "panlab-analyze: --backend has a character outside printable ASCII; " USAGE);
	result_free(&r);
	run(none, &r);
	CU_ASSERT_EQUAL(r.status, 2);
	CU_ASSERT_STRING_EQUAL(r.err, "panlab-analyze: missing --trace; " USAGE);
	result_free(&r);
	run(bogus, &r);
	CU_ASSERT_EQUAL(r.status, 2);
	CU_ASSERT_STRING_EQUAL(r.err, "panlab-analyze: unknown option or missing value: --bogus; " USAGE);
	result_free(&r);
	run(no_workload, &r);
	CU_ASSERT_EQUAL(r.status, 2);
	CU_ASSERT_STRING_EQUAL(r.err, "panlab-analyze: missing --workload; " USAGE);
	result_free(&r);
	run(stray, &r);
	CU_ASSERT_EQUAL(r.status, 2);
	CU_ASSERT_STRING_EQUAL(r.err, "panlab-analyze: unexpected argument: extra; " USAGE);
	result_free(&r);
	run(dangling, &r);
	CU_ASSERT_EQUAL(r.status, 2);
	CU_ASSERT_STRING_EQUAL(r.err, "panlab-analyze: unknown option or missing value: --trace; " USAGE);
	result_free(&r);
	/* The run id comes from --out when --run-id is absent: a bad --out is named as such. */
	static const char *const empty_out[] = { "--trace", "t", "--ground-truth", "g", "--out", "",
						 "--backend", "qemu", "--workload", "w", NULL };
	static const char *const accented_out[] = { "--trace", "t", "--ground-truth", "g",
						    "--out", "runs/caf\xc3\xa9", "--backend", "qemu",
						    "--workload", "w", NULL };
	static const char *const schema_extra[] = { "schema", "extra", NULL };

	run(empty_out, &r);
	CU_ASSERT_EQUAL(r.status, 2);
	CU_ASSERT_STRING_EQUAL(r.err, "panlab-analyze: --out is empty, expected a folder; " USAGE);
	result_free(&r);
	run(accented_out, &r);
	CU_ASSERT_EQUAL(r.status, 2);
	CU_ASSERT_STRING_EQUAL(r.err, "panlab-analyze: --out's last component (the run id without "
			       "--run-id) has a character outside printable ASCII; " USAGE);
	result_free(&r);
	run(schema_extra, &r);
	CU_ASSERT_EQUAL(r.status, 2);
	CU_ASSERT_STRING_EQUAL(r.err, "panlab-analyze: schema takes no arguments but --db FILE, got extra; " USAGE);
	result_free(&r);
}

static void test_findings_usage(void)
{
	static const char *const partial[] = { "findings", "--db", "x", NULL };
	static const char *const repeat[] = { "findings", "--repeat", "c1-on:a", NULL };
	static const char *const missing[] = { "findings", "--db", "/nonexistent/results.sqlite",
					       "--experiment", "s6", "--out", "o", NULL };
	static const char *const constants[] = { "model-constants", NULL };
	struct result r;

	run(partial, &r);
	CU_ASSERT_EQUAL(r.status, 2);
	CU_ASSERT_STRING_EQUAL(r.err, "panlab-analyze: findings needs --db, --experiment and --out; "
			       USAGE);
	result_free(&r);
	run(repeat, &r);
	CU_ASSERT_EQUAL(r.status, 2);
	CU_ASSERT_STRING_EQUAL(r.err, "panlab-analyze: --repeat takes CONFIG:DIR:DIR, got c1-on:a; "
			       USAGE);
	result_free(&r);
	run(missing, &r);
	CU_ASSERT_EQUAL(r.status, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "panlab-analyze: /nonexistent/results.sqlite: sqlite:"));
	CU_ASSERT_PTR_EQUAL(strchr(r.err, '\n'), r.err + strlen(r.err) - 1);
	result_free(&r);
	/* The analyzer's constants, in the model-constants format findings --constants reads. */
	run(constants, &r);
	CU_ASSERT_EQUAL(r.status, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "Table 5 power\tpower at 350 MHz\tCPU 220 mW, system 820 mW\t"));
	result_free(&r);
}

static void write_run_gt(const char *dir, const char *frames)
{
	char path[512];

	snprintf(path, sizeof(path), "mkdir -p '%s'", dir);
	CU_ASSERT_EQUAL_FATAL(system(path), 0);
	snprintf(path, sizeof(path), "%s/ground_truth.txt", dir);
	char text[512];

	snprintf(text, sizeof(text), "panlab-ground-truth 1\nready 0\n"
		 "input 0 1000 tap 1 1\ninput 1 5000 tap 1 1\ninput 2 9000 tap 1 1\n%send 20000\n",
		 frames);
	write_text(path, text);
}

/*
 * Overhead of a traced run over an untraced one, on ground truth only:
 * latencies 1000/2000/3000 ns traced against 1000/1500/2000 untraced.
 */
static void test_overhead(void)
{
	char on[256], off[256], out[256], path[300];
	const char *args[] = { "overhead", "--on", on, "--off", off, "--out", out, NULL };
	struct result r;

	snprintf(on, sizeof(on), "%s/ov/traced", test_tmpdir());
	snprintf(off, sizeof(off), "%s/ov/untraced", test_tmpdir());
	snprintf(out, sizeof(out), "%s/ov/out", test_tmpdir());
	write_run_gt(on, "frame 0 2000\nframe 1 7000\nframe 2 12000\n");
	write_run_gt(off, "frame 0 2000\nframe 1 6500\nframe 2 11000\n");
	run(args, &r);
	CU_ASSERT_EQUAL(r.status, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "mean traced 0.002 ms, untraced 0.001 ms"));
	result_free(&r);
	snprintf(path, sizeof(path), "%s/overhead.json", out);
	json_t *o = json_load_file(path, 0, NULL);

	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	CU_ASSERT_EQUAL(integer_at(o, "compared", NULL), 3);
	CU_ASSERT_EQUAL(integer_at(o, "mean", "on_ns"), 2000);
	CU_ASSERT_EQUAL(integer_at(o, "mean", "off_ns"), 1500);
	CU_ASSERT_EQUAL(integer_at(o, "mean", "overhead_ns"), 500);
	CU_ASSERT_EQUAL(integer_at(o, "p50", "overhead_ns"), 500);
	CU_ASSERT_EQUAL(integer_at(o, "p95", "on_ns"), 3000);
	CU_ASSERT_EQUAL(integer_at(o, "p95", "overhead_ns"), 1000);
	json_t *row = json_array_get(json_object_get(o, "transactions"), 2);

	CU_ASSERT_EQUAL(integer_at(row, "overhead_ns", NULL), 1000);
	CU_ASSERT_EQUAL(json_array_size(json_object_get(o, "qq_off_on_ns")), 3);
	/* Frames within half a vsync of the grid's shift: none moved; no cpu_time.txt, no CPU. */
	CU_ASSERT_EQUAL(integer_at(o, "latency_bound", "frames_moved_later"), 0);
	CU_ASSERT_EQUAL(integer_at(o, "latency_bound", "vsync_grid_shift_ns"), 500);
	CU_ASSERT_TRUE(json_is_null(json_object_get(o, "cpu_time")));
	json_decref(o);
	snprintf(path, sizeof(path), "%s/qq.svg", out);
	CU_ASSERT_EQUAL(access(path, R_OK), 0);

	/* Without gnuplot: the numbers, and one line saying why there is no plot. */
	const char *saved = getenv("PATH");
	char *keep = saved ? strdup(saved) : NULL;

	snprintf(out, sizeof(out), "%s/ov/out-noplot", test_tmpdir());
	setenv("PATH", "/nonexistent", 1);
	run(args, &r);
	if (keep)
		setenv("PATH", keep, 1);
	free(keep);
	CU_ASSERT_EQUAL(r.status, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "gnuplot is not on PATH, so no plots were written"));
	result_free(&r);
	snprintf(path, sizeof(path), "%s/qq.svg", out);
	CU_ASSERT_NOT_EQUAL(access(path, R_OK), 0);

	static const char *const missing[] = { "overhead", "--on", "a", "--out", "o", NULL };

	run(missing, &r);
	CU_ASSERT_EQUAL(r.status, 2);
	CU_ASSERT_STRING_EQUAL(r.err, "panlab-analyze: overhead needs --on, --off and --out; " USAGE);
	result_free(&r);
}

/* The streaming analysis from the command line: the real asynctask run's 24 transactions. */
static void test_stream(void)
{
	char out[256], path[300];
	const char *args[] = { "stream", "--trace", PANLAB_TEST_DATA "/qemu-asynctask.trace.bin",
			       "--out", out, "--ground-truth", PANLAB_TEST_DATA "/qemu-asynctask.gt",
			       NULL };
	static const char *const extra[] = { "stream", "--trace", "t", "--out", "o",
					     "--backend", "qemu", NULL };
	struct result r;

	snprintf(out, sizeof(out), "%s/stream", test_tmpdir());
	run(args, &r);
	CU_ASSERT_EQUAL(r.status, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "24 inputs, 24 transactions (0 animations)"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "ground truth: 24 inputs, 24 matched"));
	result_free(&r);
	snprintf(path, sizeof(path), "%s/stream.json", out);
	json_t *o = json_load_file(path, 0, NULL);

	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	CU_ASSERT_EQUAL(integer_at(o, "transactions", NULL), 24);
	CU_ASSERT(integer_at(o, "latency_ns", "max") > 500000000);
	/* Validated as the whole-trace analysis validates: every tap matched. */
	json_t *v = json_object_get(o, "validation");

	CU_ASSERT_EQUAL(integer_at(v, "matched", NULL), 24);
	CU_ASSERT_EQUAL(json_real_value(json_object_get(v, "recall")), 1.0);
	CU_ASSERT(integer_at(v, "latency_error_ns", "max") < 20000000);
	json_decref(o);
	run(extra, &r);
	CU_ASSERT_EQUAL(r.status, 2);
	CU_ASSERT_STRING_EQUAL(r.err,
			       "panlab-analyze: stream takes only --trace, --out and --ground-truth; " USAGE);
	result_free(&r);
}

/*
 * The graph-shape check against a declared structure (replay/scripts/NAME.expect): the
 * lockcontention run as its workload declares it, then declarations it does not meet, then a
 * declaration with a syntax error.
 */
static void test_expect(void)
{
	char out[256], path[300], bad[300];
	const char *expect = PANLAB_TEST_DATA "/qemu-lockcontention.expect";
	const char *args[] = { "--trace", PANLAB_TEST_DATA "/qemu-lockcontention.trace.bin",
			       "--ground-truth", PANLAB_TEST_DATA "/qemu-lockcontention.gt",
			       "--out", out, "--backend", "qemu", "--workload", "lockcontention",
			       "--expect", expect, "--no-plots", "--no-trace-json", NULL };
	struct result r;

	for (int i = 0; i < 2; i++) {
		snprintf(out, sizeof(out), "%s/expect%d", test_tmpdir(), i);
		if (i == 1) {
			/* 12 transactions, taps 1-3 through binder, the key an animation. */
			snprintf(bad, sizeof(bad), "%s/wrong.expect", test_tmpdir());
			write_text(bad, "panlab-expect 1\n# wrong on purpose\ntransactions 12\n"
				   "expect 0,4-9 tap fork,lock?,message,invalidate\n"
				   "expect 1-3 tap fork,binder,lock?,message,invalidate\n"
				   "expect 10 key invalidate\n"
				   "expect 11 key none animation\n");
			args[11] = bad;
		}
		run(args, &r);
		CU_ASSERT_EQUAL(r.status, 0);
		CU_ASSERT_PTR_NOT_NULL(strstr(r.out, i ? "declared structure: FAILED (12 inputs checked,"
						       " transaction count differs)"
						     : "declared structure: ok (11 inputs checked)"));
		result_free(&r);
		snprintf(path, sizeof(path), "%s/summary.json", out);
		json_t *s = json_load_file(path, 0, NULL);

		CU_ASSERT_PTR_NOT_NULL_FATAL(s);
		CU_ASSERT_EQUAL(json_is_true(json_object_get(s, "shape_ok")), i == 0);
		json_t *failed = json_object_get(json_object_get(s, "expect"), "failed");

		/* Taps 1-3 cross no binder; input 11 has no transaction. */
		CU_ASSERT_EQUAL(json_array_size(failed), i ? 4 : 0);
		if (i)
			CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(
				json_array_get(failed, 0), "reason")), "critical path crosses no binder");
		json_decref(s);
		snprintf(path, sizeof(path), "%s/trace.json", out);
		CU_ASSERT_NOT_EQUAL(access(path, R_OK), 0);	/* --no-trace-json */
	}
	write_text(bad, "panlab-expect 1\ntransactions 2\nexpect 0 tap fork\nexpect 1 swipe fork\n");
	run(args, &r);
	CU_ASSERT_EQUAL(r.status, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.err, ":4: input kind \"swipe\", expected tap or key"));
	result_free(&r);
	/* Tap 5 declared without a transaction, in the middle: the one it has is a failure. */
	write_text(bad, "panlab-expect 1\ntransactions 10\nexpect 0,2,4,6,8 tap fork,message,invalidate\n"
		   "no-transaction 5\nexpect 1,3,7,9 tap fork,lock,message,invalidate\n"
		   "expect 10 key invalidate\n");
	snprintf(out, sizeof(out), "%s/expect-none", test_tmpdir());
	run(args, &r);
	CU_ASSERT_EQUAL(r.status, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "declared structure: FAILED (11 inputs checked,"));
	result_free(&r);
	snprintf(path, sizeof(path), "%s/summary.json", out);
	json_t *s = json_load_file(path, 0, NULL);

	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	json_t *failed = json_object_get(json_object_get(s, "expect"), "failed");

	CU_ASSERT_EQUAL(json_array_size(failed), 1);
	CU_ASSERT_EQUAL(json_integer_value(json_object_get(json_array_get(failed, 0), "input")), 5);
	CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(json_array_get(failed, 0), "reason")),
			       "a transaction, expected none");
	json_decref(s);
	/*
	 * Exact: A's taps (fork, message, invalidate) declared with B's lock hop fail for the
	 * missing one, and B's taps declared as A's fail for the extra one, unless it is optional.
	 */
	write_text(bad, "panlab-expect 1\ntransactions 11\n"
		   "expect 0,2 tap fork,lock,message,invalidate\n"
		   "expect 4,6,8 tap fork,message,invalidate,lock?\n"
		   "expect 1,3 tap fork,message,invalidate\n"
		   "expect 5,7,9 tap fork,lock?,message,invalidate\n"
		   "expect 10 key invalidate\n");
	snprintf(out, sizeof(out), "%s/expect-exact", test_tmpdir());
	run(args, &r);
	CU_ASSERT_EQUAL(r.status, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "declared structure: FAILED (11 inputs checked)"));
	result_free(&r);
	snprintf(path, sizeof(path), "%s/summary.json", out);
	s = json_load_file(path, 0, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	failed = json_object_get(json_object_get(s, "expect"), "failed");
	CU_ASSERT_EQUAL_FATAL(json_array_size(failed), 4);
	for (int i = 0; i < 4; i++) {
		json_t *f = json_array_get(failed, i);

		CU_ASSERT_EQUAL(json_integer_value(json_object_get(f, "input")), i);
		CU_ASSERT_STRING_EQUAL(json_string_value(json_object_get(f, "reason")),
				       i % 2 ? "critical path crosses lock, not declared"
					     : "critical path crosses no lock");
	}
	json_decref(s);
	/* A kind twice, or twice with and without '?', is an error naming the list. */
	write_text(bad, "panlab-expect 1\ntransactions 1\nexpect 0 tap fork,lock?,fork?\n");
	run(args, &r);
	CU_ASSERT_EQUAL(r.status, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "wrong.expect:3: edge kinds \"fork,lock?,fork?\","
					     " expected a comma-separated list of"));
	result_free(&r);
	/* As many expect'ed inputs as transactions, and no id left out. */
	write_text(bad, "panlab-expect 1\ntransactions 2\nexpect 0 tap fork\nno-transaction 1\n");
	run(args, &r);
	CU_ASSERT_EQUAL(r.status, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "wrong.expect: expect lines declare 1 inputs, expected one"
					     " per transaction (`transactions 2`)"));
	result_free(&r);
	write_text(bad, "panlab-expect 1\ntransactions 1\nexpect 0 tap fork\nno-transaction 2\n");
	run(args, &r);
	CU_ASSERT_EQUAL(r.status, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "wrong.expect: input 1 has no expect or no-transaction"
					     " line, expected every id from 0 to 2"));
	result_free(&r);
	write_text(bad, "panlab-expect 1\ntransactions 1\nexpect 0 tap fork\nno-transaction 0\n");
	run(args, &r);
	CU_ASSERT_EQUAL(r.status, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.err, ":4: input 0 declared again, expected each id once"));
	result_free(&r);
	/* A root cause needs its top group first. */
	write_text(bad, "panlab-expect 1\ntransactions 1\nexpect 0 tap fork\ndiagnosis cause f\n");
	run(args, &r);
	CU_ASSERT_EQUAL(r.status, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.err,
				      ":4: expected `diagnosis top FUNCTION capacity N` once,"
				      " then at most one `diagnosis cause FUNCTION`, or"
				      " `diagnosis none`"));
	result_free(&r);
}

/*
 * An untraced run (tracing off: a trace without records) still analyses:
 * no transaction, the ground truth's latencies, and only the plots that
 * have data.
 */
static void test_untraced_run(void)
{
	char trace[256], out[256], path[300];
	struct tb t;
	size_t len;
	struct result r;

	tb_init(&t, 2);
	uint8_t *buf = tb_bytes(&t, &len);

	tb_free(&t);
	snprintf(trace, sizeof(trace), "%s/empty.bin", test_tmpdir());
	FILE *f = fopen(trace, "wb");

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fwrite(buf, 1, len, f);
	fclose(f);
	free(buf);
	snprintf(out, sizeof(out), "%s/untraced", test_tmpdir());
	analyze(trace, PANLAB_TEST_DATA "/sequential.gt", out, "off", &r);
	CU_ASSERT_EQUAL(r.status, 0);
	CU_ASSERT_STRING_EQUAL(r.err, "");
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "inputs 2, transactions 0, matched 0"));
	result_free(&r);
	snprintf(path, sizeof(path), "%s/latency_cdf.svg", out);
	CU_ASSERT_EQUAL(access(path, R_OK), 0);
	snprintf(path, sizeof(path), "%s/breakdown.svg", out);
	CU_ASSERT_NOT_EQUAL(access(path, R_OK), 0);
}

/* One stderr line holding want, and exit 1. */
static void expect_one_error(const char *const *args, const char *want)
{
	struct result r;

	run(args, &r);
	CU_ASSERT_EQUAL(r.status, 1);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.err, want));
	size_t lines = 0;

	for (const char *p = r.err; *p; p++)
		lines += *p == '\n';
	CU_ASSERT_EQUAL(lines, 1);
	if (!strstr(r.err, want))
		fprintf(stderr, "\n  got: %s\n", r.err);
	result_free(&r);
}

/*
 * Inputs that are not files of their kind: a directory anywhere a file goes, an endless device
 * (read up to its cap, never until memory runs out) and a file over the cap (refused before
 * reading).
 */
static void test_not_files(void)
{
	char out[256], huge[256], gt[] = PANLAB_TEST_DATA "/sequential.gt";
	char *trace = write_trace("seq-nf.bin", 0, 0, -1);
	const char *dir = test_tmpdir();

	snprintf(out, sizeof(out), "%s/not-files", dir);
	const char *trace_dir[] = { "--trace", dir, "--ground-truth", gt, "--out", out,
				    "--backend", "qemu", "--workload", "asynctask", NULL };
	expect_one_error(trace_dir, ": is a directory, expected a file");
	const char *gt_dir[] = { "--trace", trace, "--ground-truth", dir, "--out", out,
				 "--backend", "qemu", "--workload", "asynctask", NULL };
	expect_one_error(gt_dir, ": is a directory, expected a file");
	const char *expect_dir[] = { "--trace", trace, "--ground-truth", gt, "--out", out,
				     "--backend", "qemu", "--workload", "asynctask", "--expect", dir,
				     NULL };
	expect_one_error(expect_dir, ": is a directory, expected a file");
	const char *stream_dir[] = { "stream", "--trace", dir, "--out", out, NULL };
	expect_one_error(stream_dir, ": is a directory, expected a file");
	const char *gt_zero[] = { "--trace", trace, "--ground-truth", "/dev/zero", "--out", out,
				  "--backend", "qemu", "--workload", "asynctask", NULL };
	expect_one_error(gt_zero, "/dev/zero@268435456: more than the 268435456-byte cap for a "
				  "ground-truth file");
	const char *expect_zero[] = { "--trace", trace, "--ground-truth", gt, "--out", out,
				      "--backend", "qemu", "--workload", "asynctask", "--expect",
				      "/dev/zero", NULL };
	expect_one_error(expect_zero, "/dev/zero@1048576: more than the 1048576-byte cap");
	/* Streaming seeks: a device or a pipe (`--trace <(cat ...)`) is named for what it is. */
	const char *stream_zero[] = { "stream", "--trace", "/dev/zero", "--out", out, NULL };
	expect_one_error(stream_zero, "/dev/zero: is a character device, expected a regular file");
	char fifo[256];

	snprintf(fifo, sizeof(fifo), "%s/trace.fifo", dir);
	CU_ASSERT_FATAL(mkfifo(fifo, 0600) == 0);
	const char *stream_fifo[] = { "stream", "--trace", fifo, "--out", out, NULL };
	pid_t writer = fork();

	CU_ASSERT_FATAL(writer >= 0);
	if (writer == 0) {
		/* The other end of the pipe, as a shell's <(cat trace) would hold it. */
		FILE *w = fopen(fifo, "wb");

		_exit(w && fwrite("PLTR", 1, 4, w) == 4 ? 0 : 1);
	}
	expect_one_error(stream_fifo, "trace.fifo: is a pipe, expected a regular file");
	waitpid(writer, NULL, 0);
	unlink(fifo);
	/* A sparse file one byte over the whole-trace cap: refused from its size. */
	snprintf(huge, sizeof(huge), "%s/huge.bin", dir);
	FILE *f = fopen(huge, "wb");

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fclose(f);
	CU_ASSERT_FATAL(truncate(huge, (off_t)PL_CAP_TRACE_BYTES + 1) == 0);
	const char *trace_huge[] = { "--trace", huge, "--ground-truth", gt, "--out", out,
				     "--backend", "qemu", "--workload", "asynctask", NULL };
	expect_one_error(trace_huge, "huge.bin: 1073741825 bytes, more than the 1073741824-byte cap "
				     "for a trace read whole (`panlab-analyze stream` has no cap)");
	unlink(huge);
}

/* Each output written to a full disk (a link to /dev/full): one line naming it, exit 1. */
static void test_full_disk(void)
{
	static const char *const outputs[] = { "summary.json", "transactions.csv", "trace.json",
					       "latency_cdf.svg", "breakdown.svg", "stream.json" };
	char *trace = write_trace("seq-full.bin", 0, 0, -1);

	for (size_t i = 0; i < sizeof(outputs) / sizeof(outputs[0]); i++) {
		char out[256], link[300], want[320];

		snprintf(out, sizeof(out), "%s/full-%zu", test_tmpdir(), i);
		CU_ASSERT_FATAL(mkdir(out, 0755) == 0);
		snprintf(link, sizeof(link), "%s/%s", out, outputs[i]);
		CU_ASSERT_FATAL(symlink("/dev/full", link) == 0);
		snprintf(want, sizeof(want), "%s: cannot write", link);
		int stream = !strcmp(outputs[i], "stream.json");
		const char *run_args[] = { "--trace", trace, "--ground-truth",
					   PANLAB_TEST_DATA "/sequential.gt", "--out", out, "--backend",
					   "qemu", "--workload", "asynctask", NULL };
		const char *stream_args[] = { "stream", "--trace", trace, "--out", out, NULL };

		expect_one_error(stream ? stream_args : run_args, want);
	}
}

/* The report, schema, overhead and stream on a full stdout: one line naming stdout, exit 1. */
static void test_full_stdout(void)
{
	char *trace = write_trace("seq-full-stdout.bin", 0, 0, -1);
	char out[256], on[256], off[256];
	struct result r;

	snprintf(out, sizeof(out), "%s/full-stdout", test_tmpdir());
	snprintf(on, sizeof(on), "%s/full-stdout-on", test_tmpdir());
	snprintf(off, sizeof(off), "%s/full-stdout-off", test_tmpdir());
	write_run_gt(on, "frame 0 2000\n");
	write_run_gt(off, "frame 0 1500\n");
	const char *report[] = { "--trace", trace, "--ground-truth", PANLAB_TEST_DATA "/sequential.gt",
				 "--out", out, "--backend", "qemu", "--workload", "asynctask",
				 "--no-plots", NULL };
	const char *schema[] = { "schema", NULL };
	const char *help[] = { "--help", NULL };
	const char *overhead[] = { "overhead", "--on", on, "--off", off, "--out", out, "--no-plots",
				   NULL };
	const char *stream[] = { "stream", "--trace", trace, "--out", out, NULL };
	const char *const *commands[] = { report, schema, help, overhead, stream };

	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		run_to(commands[i], "/dev/full", &r);
		CU_ASSERT_EQUAL(r.status, 1);
		/* A long output fails in an earlier write, whose errno stdio does not keep. */
		CU_ASSERT_EQUAL(strncmp(r.err, "panlab-analyze: stdout: cannot write: ", 38), 0);
		CU_ASSERT_PTR_EQUAL(strchr(r.err, '\n'), r.err + strlen(r.err) - 1);
		result_free(&r);
	}
}

void add_cli_tests(void)
{
	CU_pSuite s = CU_add_suite("panlab-analyze", NULL, NULL);

	CU_add_test(s, "good run: summary.json, transactions.csv, determinism", test_good_run);
	CU_add_test(s, "default run id", test_default_run_id);
	CU_add_test(s, "overhead: traced against untraced ground truth", test_overhead);
	CU_add_test(s, "stream: the windowed analysis", test_stream);
	CU_add_test(s, "graph-shape check against the declared structure", test_expect);
	CU_add_test(s, "an untraced run", test_untraced_run);
	CU_add_test(s, "a real qemu run of the asynctask spine", test_real_qemu_run);
	CU_add_test(s, "truncated trace", test_truncated_trace);
	CU_add_test(s, "corrupt header", test_corrupt_header);
	CU_add_test(s, "unknown event type", test_unknown_type);
	CU_add_test(s, "ground-truth syntax error", test_ground_truth_syntax);
	CU_add_test(s, "usage errors", test_usage);
	CU_add_test(s, "findings: usage and errors, model-constants", test_findings_usage);
	CU_add_test(s, "directories, endless and huge inputs", test_not_files);
	CU_add_test(s, "outputs on a full disk", test_full_disk);
	CU_add_test(s, "stdout on a full disk", test_full_stdout);
}
