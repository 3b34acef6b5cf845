/* SPDX-License-Identifier: MIT */
/* trace.json checked against the Trace Event Format rules Perfetto's importer relies on. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "panlab/export_json.h"
#include "test_analyzer.h"

static const char *str(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s ? s : "";
}

static double num(json_t *o, const char *key)
{
	return json_number_value(json_object_get(o, key));
}

static void test_overlap_export(void)
{
	struct tb t;
	struct model m;

	scenario_overlap(&t);
	model_build(&t, &m);
	struct pl_analysis a = { .trace = &m.trace, .iv = &m.s.iv, .graph = &m.s.graph, .tx = &m.s.tx,
				 .cp = &m.s.cp };
	json_t *root = pl_export_trace_json(&a);
	json_t *events = json_object_get(root, "traceEvents");
	size_t n_meta = 0, n_x = 0, n_i = 0, n_s = 0, n_f = 0, n_b = 0, n_e = 0, n_critical = 0;
	double flow_start[64] = { 0 }, begin_us[2] = { 0 }, end_us[2] = { 0 };

	CU_ASSERT_STRING_EQUAL(str(root, "displayTimeUnit"), "ns");
	CU_ASSERT_FATAL(json_is_array(events));
	for (size_t k = 0; k < json_array_size(events); k++) {
		json_t *ev = json_array_get(events, k);
		const char *ph = str(ev, "ph");

		/* Every event names its phase, process and thread. */
		CU_ASSERT(json_is_integer(json_object_get(ev, "pid")));
		CU_ASSERT(json_is_integer(json_object_get(ev, "tid")));
		if (!strcmp(ph, "M")) {
			n_meta += !strcmp(str(ev, "name"), "thread_name");
			CU_ASSERT(!strcmp(str(ev, "name"), "thread_name") ||
				  !strcmp(str(ev, "name"), "process_name"));
			CU_ASSERT(json_is_string(json_object_get(json_object_get(ev, "args"), "name")));
			continue;
		}
		CU_ASSERT(json_is_number(json_object_get(ev, "ts")));
		if (!strcmp(ph, "X")) {
			n_x++;
			CU_ASSERT(num(ev, "dur") >= 0);
		} else if (!strcmp(ph, "i")) {
			n_i++;
			CU_ASSERT_STRING_EQUAL(str(ev, "s"), "t");
		} else if (!strcmp(ph, "s") || !strcmp(ph, "f")) {
			json_int_t id = json_integer_value(json_object_get(ev, "id"));

			CU_ASSERT_FATAL(id >= 0 && id < 64);
			if (ph[0] == 's') {
				n_s++;
				n_critical += !strcmp(str(ev, "cat"), "critical_path");
				flow_start[id] = num(ev, "ts");
			} else {
				n_f++;
				CU_ASSERT_STRING_EQUAL(str(ev, "bp"), "e");
				/* Flows run forward in time; "s" precedes its "f" in the array. */
				CU_ASSERT(num(ev, "ts") >= flow_start[id] && flow_start[id] > 0);
			}
		} else if (!strcmp(ph, "b") || !strcmp(ph, "e")) {
			json_int_t id = json_integer_value(json_object_get(ev, "id"));

			CU_ASSERT_FATAL(id >= 0 && id < 2);
			CU_ASSERT_STRING_EQUAL(str(ev, "cat"), "transaction");
			if (ph[0] == 'b') {
				n_b++;
				begin_us[id] = num(ev, "ts");
			} else {
				n_e++;
				end_us[id] = num(ev, "ts");
			}
		} else {
			CU_FAIL("unexpected phase");
		}
	}
	CU_ASSERT_EQUAL(n_meta, m.s.iv.nthreads);
	CU_ASSERT_EQUAL(n_x, m.s.iv.nintervals);
	CU_ASSERT_EQUAL(n_i, 6);	/* 2 inputs, 2 invalidates, 2 updates */
	/* Every edge, then the 3 causal hops of each of the 2 critical paths. */
	CU_ASSERT_EQUAL(n_s, m.s.graph.nedges + 6);
	CU_ASSERT_EQUAL(n_f, m.s.graph.nedges + 6);
	CU_ASSERT_EQUAL(n_critical, 6);
	CU_ASSERT_EQUAL(n_b, 2);
	CU_ASSERT_EQUAL(n_e, 2);
	/* Transaction slices span input to last update: 1600 and 400 us. */
	CU_ASSERT(fabs(begin_us[0] - 1110.0) < 1e-6 && fabs(end_us[0] - 2710.0) < 1e-6);
	CU_ASSERT(fabs(end_us[1] - begin_us[1] - 400.0) < 1e-6);
	/* The file is written event by event; it must hold exactly the same JSON. */
	char path[256];
	struct pl_error err = { "" };

	snprintf(path, sizeof(path), "%s/export.json", test_tmpdir());
	CU_ASSERT_EQUAL_FATAL(pl_export_write_trace_json(&a, path, &err), 0);
	json_t *file = json_load_file(path, 0, NULL);

	CU_ASSERT_PTR_NOT_NULL_FATAL(file);
	CU_ASSERT(json_equal(file, root));
	json_decref(file);
	json_decref(root);
	model_free(&m);
}

/*
 * CPU_FREQUENCY and CPU_ONLINE become counter tracks of the kernel (pid 0), and so do a slice's
 * instructions (SWITCH_COUNTS) and cycles (2 us at 700 MHz), from the slice's start; the slice
 * before the first switch has no start and no counters.
 */
static void test_counters(void)
{
	struct tb t;
	struct model m;

	tb_init(&t, 2);
	tb_kernel(&t, 1, 1000, PL_EV_CPU_ONLINE, 7, 0, 1);
	tb_kernel(&t, 1, 2000, PL_EV_CPU_FREQUENCY, 7, 700000, 1);
	tb_kernel(&t, 1, 3000, PL_EV_CONTEXT_SWITCH, 7, 8, PL_STATE_SLEEPING);
	tb_kernel(&t, 1, 3000, PL_EV_SWITCH_COUNTS, 7, 99, 0);
	tb_kernel(&t, 1, 5000, PL_EV_CONTEXT_SWITCH, 8, 7, PL_STATE_SLEEPING);
	tb_kernel(&t, 1, 5000, PL_EV_SWITCH_COUNTS, 8, 1234, 0);
	model_build(&t, &m);
	struct pl_analysis a = { .trace = &m.trace, .iv = &m.s.iv, .graph = &m.s.graph, .tx = &m.s.tx,
				 .cp = &m.s.cp };
	json_t *root = pl_export_trace_json(&a);
	json_t *events = json_object_get(root, "traceEvents");
	int counters = 0;

	for (size_t k = 0; k < json_array_size(events); k++) {
		json_t *ev = json_array_get(events, k);

		if (strcmp(str(ev, "ph"), "C") != 0)
			continue;
		counters++;
		CU_ASSERT_EQUAL(json_integer_value(json_object_get(ev, "pid")), 0);
		json_t *args = json_object_get(ev, "args");

		if (!strcmp(str(ev, "name"), "cpu 1 online")) {
			CU_ASSERT_EQUAL(json_integer_value(json_object_get(args, "online")), 1);
		} else if (!strcmp(str(ev, "name"), "cpu 1 frequency")) {
			CU_ASSERT_EQUAL(json_integer_value(json_object_get(args, "kHz")), 700000);
		} else if (!strcmp(str(ev, "name"), "cpu 1 instructions")) {
			CU_ASSERT_EQUAL(json_integer_value(json_object_get(args, "instructions")), 1234);
			CU_ASSERT(fabs(json_real_value(json_object_get(ev, "ts")) - 3.0) < 1e-9);
		} else if (!strcmp(str(ev, "name"), "cpu 1 cycles")) {
			CU_ASSERT_EQUAL(json_integer_value(json_object_get(args, "cycles")), 1400);
			CU_ASSERT(fabs(json_real_value(json_object_get(ev, "ts")) - 3.0) < 1e-9);
		} else {
			CU_FAIL("unexpected counter");
		}
	}
	CU_ASSERT_EQUAL(counters, 4);
	json_decref(root);
	model_free(&m);
}

/*
 * The Trace Event Format (JSON Object Format) rules each phase must follow
 * for Perfetto's JSON importer, checked on every event of a trace.json.
 * Counts the events of each kind the issue asks for into n[].
 */
enum { N_THREAD_NAME, N_PROCESS_NAME, N_SLICE, N_FLOW, N_CRITICAL, N_FREQ, N_ONLINE, N_TX, N_KINDS };

static void check_format(json_t *root, size_t n[N_KINDS])
{
	json_t *events = json_object_get(root, "traceEvents");
	json_t *open_flows = json_object();

	CU_ASSERT_FATAL(json_is_array(events));
	memset(n, 0, N_KINDS * sizeof(n[0]));
	for (size_t k = 0; k < json_array_size(events); k++) {
		json_t *ev = json_array_get(events, k);
		const char *ph = str(ev, "ph");
		char id[32];

		CU_ASSERT(json_is_string(json_object_get(ev, "name")));
		CU_ASSERT(json_is_integer(json_object_get(ev, "pid")));
		if (!strcmp(ph, "M")) {
			n[N_THREAD_NAME] += !strcmp(str(ev, "name"), "thread_name");
			n[N_PROCESS_NAME] += !strcmp(str(ev, "name"), "process_name");
			CU_ASSERT(json_is_string(json_object_get(json_object_get(ev, "args"), "name")));
			continue;
		}
		CU_ASSERT(json_is_number(json_object_get(ev, "ts")) && num(ev, "ts") >= 0);
		if (!strcmp(ph, "C")) {
			json_t *args = json_object_get(ev, "args");

			CU_ASSERT(json_object_size(args) == 1);
			CU_ASSERT(json_is_number(json_object_iter_value(json_object_iter(args))));
			n[N_FREQ] += json_object_get(args, "kHz") != NULL;
			n[N_ONLINE] += json_object_get(args, "online") != NULL;
			continue;
		}
		CU_ASSERT(json_is_integer(json_object_get(ev, "tid")));
		if (!strcmp(ph, "X")) {
			CU_ASSERT(json_is_number(json_object_get(ev, "dur")) && num(ev, "dur") >= 0);
			n[N_SLICE]++;
		} else if (!strcmp(ph, "i")) {
			CU_ASSERT_STRING_EQUAL(str(ev, "s"), "t");
		} else if (!strcmp(ph, "s") || !strcmp(ph, "f")) {
			/* A flow ends ("f", binding to the enclosing slice) after it starts, same id. */
			CU_ASSERT_FATAL(json_is_integer(json_object_get(ev, "id")));
			snprintf(id, sizeof(id), "%s/%lld", str(ev, "cat"),
				 (long long)json_integer_value(json_object_get(ev, "id")));
			if (ph[0] == 's') {
				CU_ASSERT_PTR_NULL(json_object_get(open_flows, id));
				json_object_set_new(open_flows, id, json_real(num(ev, "ts")));
			} else {
				json_t *start = json_object_get(open_flows, id);

				CU_ASSERT_STRING_EQUAL(str(ev, "bp"), "e");
				CU_ASSERT(start && num(ev, "ts") >= json_real_value(start));
				json_object_del(open_flows, id);
				n[!strcmp(str(ev, "cat"), "critical_path") ? N_CRITICAL : N_FLOW]++;
			}
		} else if (!strcmp(ph, "b") || !strcmp(ph, "e")) {
			CU_ASSERT(json_is_integer(json_object_get(ev, "id")) ||
				  json_is_string(json_object_get(ev, "id")));
			CU_ASSERT_STRING_EQUAL(str(ev, "cat"), "transaction");
			n[N_TX] += ph[0] == 'b';
		} else {
			CU_FAIL("unknown phase");
		}
	}
	CU_ASSERT_EQUAL(json_object_size(open_flows), 0);
	json_decref(open_flows);
}

/* Every real run's trace.json follows the format and holds what the issue asks for. */
static void test_fixture_format(void)
{
	static const char *const runs[] = { "qemu-asynctask", "qemu-webview", "qemu-service",
					    "qemu-animation" };

	for (size_t r = 0; r < sizeof(runs) / sizeof(runs[0]); r++) {
		char path[512];
		struct pl_error err;
		struct model m;
		size_t n[N_KINDS];

		snprintf(path, sizeof(path), PANLAB_TEST_DATA "/%s.trace.bin", runs[r]);
		CU_ASSERT_EQUAL_FATAL(pl_trace_read_file(path, &m.trace, &err), 0);
		pl_model_build(&m.trace, &m.s);
		struct pl_analysis a = { .trace = &m.trace, .iv = &m.s.iv, .graph = &m.s.graph,
					 .tx = &m.s.tx, .cp = &m.s.cp };
		json_t *root = pl_export_trace_json(&a);

		check_format(root, n);
		CU_ASSERT_EQUAL(n[N_THREAD_NAME], m.s.iv.nthreads);
		CU_ASSERT(n[N_PROCESS_NAME] > 0);
		CU_ASSERT_EQUAL(n[N_SLICE], m.s.iv.nintervals);
		CU_ASSERT(n[N_FLOW] == m.s.graph.nedges);
		CU_ASSERT(n[N_CRITICAL] > 0);
		/* qemu onlines cpu1 before tracing starts and has no DVFS: no counters here (test_counters). */
		CU_ASSERT_EQUAL(n[N_TX], m.s.tx.count);
		json_decref(root);
		pl_model_free(&m.s);
		pl_trace_free(&m.trace);
	}
}

void add_export_tests(void)
{
	CU_pSuite s = CU_add_suite("export_json", NULL, NULL);

	CU_add_test(s, "trace.json of two overlapping transactions", test_overlap_export);
	CU_add_test(s, "cpu counters", test_counters);
	CU_add_test(s, "every real run's trace.json against the format", test_fixture_format);
}
