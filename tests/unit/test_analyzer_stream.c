/* SPDX-License-Identifier: MIT */
/* Streaming: reading record by record and analysing in windows gives the whole-trace results. */
#include "test_analyzer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "panlab/stream.h"

static void check_same(const char *name, uint64_t window_events)
{
	char path[512];
	struct pl_error err;
	struct model m;
	struct pl_stream_result r;
	struct pl_stream_options opt = { window_events, PL_STREAM_CONTEXT_NS, 1 };

	snprintf(path, sizeof(path), PANLAB_TEST_DATA "/%s.trace.bin", name);
	CU_ASSERT_EQUAL_FATAL(pl_trace_read_file(path, &m.trace, &err), 0);
	/* The stages on the whole trace, as panlab-analyze runs them. */
	pl_model_build(&m.trace, &m.s);

	CU_ASSERT_EQUAL_FATAL(pl_stream_analyze(path, &opt, &r, &err), 0);
	CU_ASSERT_EQUAL(r.events, m.trace.nevents);
	CU_ASSERT_EQUAL(r.inputs, m.s.tx.inputs);
	CU_ASSERT_EQUAL(r.transactions, m.s.tx.count);
	CU_ASSERT_EQUAL(r.animations, m.s.tx.animations);
	CU_ASSERT(r.windows > (window_events < m.trace.nevents ? 1u : 0u));
	for (int c = 0; c < PL_CATEGORIES; c++)
		CU_ASSERT_EQUAL(r.breakdown_ns[c], m.s.bd.total_ns[c]);
	uint64_t sum_stream = 0, sum_whole = 0;

	for (uint64_t k = 0; k < r.transactions; k++)
		sum_stream += r.latency_ns[k];
	for (uint64_t k = 0; k < m.s.tx.count; k++)
		sum_whole += m.s.tx.items[k].latency_ns;
	CU_ASSERT_EQUAL(sum_stream, sum_whole);
	/* The kept transactions are the whole trace's, in the same order. */
	CU_ASSERT_EQUAL_FATAL(r.tx.count, m.s.tx.count);
	for (uint64_t k = 0; k < m.s.tx.count; k++) {
		CU_ASSERT_EQUAL(r.tx.items[k].input_id, m.s.tx.items[k].input_id);
		CU_ASSERT_EQUAL(r.tx.items[k].latency_ns, m.s.tx.items[k].latency_ns);
	}
	pl_stream_result_free(&r);
	pl_model_free(&m.s);
	pl_trace_free(&m.trace);
}

static void test_stream_matches_whole(void)
{
	/* Windows far smaller than a run, one window, and the default. */
	check_same("qemu-asynctask", 300);
	check_same("qemu-asynctask", 1000000);
	check_same("qemu-webview", 200);
	check_same("qemu-animation", 250);
	check_same("qemu-service", PL_STREAM_WINDOW_EVENTS);
}

static void test_stream_errors(void)
{
	struct pl_error err;
	struct pl_stream_result r;
	struct pl_stream_options opt = { 100, PL_STREAM_CONTEXT_NS, 0 };
	char path[512];

	CU_ASSERT_EQUAL(pl_stream_analyze("/nonexistent/trace.bin", &opt, &r, &err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "/nonexistent/trace.bin: cannot open"));
	snprintf(path, sizeof(path), PANLAB_TEST_DATA "/qemu-asynctask.gt");
	CU_ASSERT_EQUAL(pl_stream_analyze(path, &opt, &r, &err), -1);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "bad magic"));
}

/* A valid trace with no sources at all streams to an empty result (it once passed NULL to memcpy). */
static void test_stream_no_sources(void)
{
	struct pl_trace_builder b;
	struct pl_error err = { "" };
	struct pl_stream_result r;
	struct pl_stream_options opt = { 100, PL_STREAM_CONTEXT_NS, 0 };
	char path[512];

	snprintf(path, sizeof(path), "%s/no-sources.bin", test_tmpdir());
	pl_trace_builder_init(&b, 1);
	CU_ASSERT_EQUAL_FATAL(pl_trace_builder_write_file(&b, path, &err), 0);
	pl_trace_builder_free(&b);
	CU_ASSERT_EQUAL_FATAL(pl_stream_analyze(path, &opt, &r, &err), 0);
	CU_ASSERT_EQUAL(r.events, 0);
	CU_ASSERT_EQUAL(r.transactions, 0);
	pl_stream_result_free(&r);
}

/* Reads path as a stream to its end; returns -1 with err set on the first bad record. */
static int stream_all(const char *path, uint64_t *n, struct pl_error *err)
{
	struct pl_trace head;
	struct pl_trace_stream *st;
	struct pl_event ev;
	int rc;

	*n = 0;
	if (pl_trace_stream_open(path, &head, &st, err) < 0)
		return -1;
	while ((rc = pl_trace_stream_next(st, &ev, err)) == 1)
		(*n)++;
	pl_trace_stream_close(st);
	pl_trace_free(&head);
	return rc;
}

/*
 * The stream reader says what pl_trace_parse says, at the same byte offset,
 * for a damaged header, a damaged record and a truncated file; and reads
 * an intact trace whole.
 */
static void test_stream_reader_checks(void)
{
	struct { size_t cut, offset; int value; } cases[] = {
		{ 0, 0, -1 },		/* intact */
		{ 0, 2, 'X' },		/* magic */
		{ 0, 0, -2 },		/* a record's type (set below) */
		{ 5, 0, -1 },		/* truncated */
	};
	char path[512];

	snprintf(path, sizeof(path), "%s/stream-check.bin", test_tmpdir());
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct tb t;
		size_t len;
		struct pl_error e1 = { "" }, e2 = { "" };
		struct pl_trace whole;
		uint64_t n;

		scenario_sequential(&t);
		uint8_t *buf = tb_bytes(&t, &len);

		tb_free(&t);
		if (cases[i].value == -2)	/* the last record's type: 0 is no event type */
			buf[len - PL_RECORD_BYTES + 8] = 0, buf[len - PL_RECORD_BYTES + 9] = 0;
		else if (cases[i].value >= 0)
			buf[cases[i].offset] = (uint8_t)cases[i].value;
		len -= cases[i].cut;
		FILE *f = fopen(path, "wb");

		CU_ASSERT_PTR_NOT_NULL_FATAL(f);
		fwrite(buf, 1, len, f);
		fclose(f);
		int rc1 = pl_trace_parse(path, buf, len, &whole, &e1);
		int rc2 = stream_all(path, &n, &e2);

		CU_ASSERT_EQUAL(rc1 == 0, rc2 == 0);
		if (rc1 == 0) {
			CU_ASSERT_EQUAL(n, whole.nevents);
			pl_trace_free(&whole);
		} else {
			CU_ASSERT_STRING_EQUAL(e2.msg, e1.msg);
		}
		free(buf);
	}
}

void add_stream_tests(void)
{
	CU_pSuite s = CU_add_suite("stream", NULL, NULL);

	CU_add_test(s, "windows give the whole trace's results", test_stream_matches_whole);
	CU_add_test(s, "errors", test_stream_errors);
	CU_add_test(s, "a trace with no sources", test_stream_no_sources);
	CU_add_test(s, "the stream reader's checks are the parser's", test_stream_reader_checks);
}
