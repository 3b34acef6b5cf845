/* SPDX-License-Identifier: MIT */
/* Trace writer -> reader round trip, and every malformed-trace check with its exact message. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "panlab/error.h"
#include "test_analyzer.h"

static void test_round_trip(void)
{
	struct pl_trace_builder b;
	struct pl_trace t;
	struct pl_error err = { "" };
	uint8_t *buf;
	size_t len;

	pl_trace_builder_init(&b, 2);
	uint32_t k0 = pl_trace_builder_add_source(&b, PL_SRC_KERNEL_CPU, 0, 0);
	uint32_t k1 = pl_trace_builder_add_source(&b, PL_SRC_KERNEL_CPU, 1, 7);
	uint32_t u = pl_trace_builder_add_source(&b, PL_SRC_USER_THREAD, 4242, 0xffffffffffull);
	struct pl_event fork = { 5, PL_EV_FORK, 0, 4242, 4243, 4242, 0 };
	struct pl_event name = { 6, PL_EV_THREAD_NAME, 0, 4243, 0x72656b726f77ull, 0, 0 };
	struct pl_event sw = { 5, PL_EV_CONTEXT_SWITCH, 1, 4243, 0, PL_STATE_BLOCKED, 0 };
	struct pl_event in = { 1, PL_EV_UI_INPUT, PL_CPU_NONE, 4242, UINT64_MAX, 0, 0 };
	struct pl_event enq = { 5, PL_EV_ENQUEUE_MSG, PL_CPU_NONE, 4242, 42, UINT32_MAX, 1234 };

	pl_trace_builder_add_event(&b, k0, &fork);
	pl_trace_builder_add_event(&b, k0, &name);
	pl_trace_builder_add_event(&b, k1, &sw);
	pl_trace_builder_add_event(&b, u, &in);
	pl_trace_builder_add_event(&b, u, &enq);
	pl_trace_builder_serialize(&b, &buf, &len);

	CU_ASSERT_EQUAL(len, 32 + 3 * 24 + 5 * 32);
	CU_ASSERT_EQUAL(
		memcmp(buf, "PANLABTR\x06\x00\x20\x00\x01\x00\x00\x00\x02\x00\x00\x00\x03", 17), 0);
	CU_ASSERT_EQUAL_FATAL(pl_trace_parse("t.bin", buf, len, &t, &err), 0);
	CU_ASSERT_EQUAL(t.ncpus, 2);
	CU_ASSERT_EQUAL(t.nsources, 3);
	CU_ASSERT_EQUAL(t.sources[2].kind, PL_SRC_USER_THREAD);
	CU_ASSERT_EQUAL(t.sources[2].id, 4242);
	CU_ASSERT_EQUAL(t.sources[2].records, 2);
	CU_ASSERT_EQUAL(t.events_lost, 7 + 0xffffffffffull);
	CU_ASSERT_EQUAL_FATAL(t.nevents, 5);
	/* Time order; equal times keep file order (cpu 0, cpu 1, then the thread). */
	const struct pl_event *want[] = { &in, &fork, &sw, &enq, &name };

	for (int i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(memcmp(&t.events[i], want[i], sizeof(struct pl_event)), 0);
	CU_ASSERT_EQUAL(t.events[0].a0, UINT64_MAX);
	CU_ASSERT_EQUAL(t.events[3].a1, UINT32_MAX);
	CU_ASSERT_EQUAL(t.events[3].a2, 1234);
	pl_trace_free(&t);

	/* The same through a file. */
	char path[256];

	snprintf(path, sizeof(path), "%s/round.bin", test_tmpdir());
	CU_ASSERT_EQUAL_FATAL(pl_trace_builder_write_file(&b, path, &err), 0);
	CU_ASSERT_EQUAL_FATAL(pl_trace_read_file(path, &t, &err), 0);
	CU_ASSERT_EQUAL(t.nevents, 5);
	CU_ASSERT_EQUAL(memcmp(&t.events[4], &name, sizeof(name)), 0);
	pl_trace_free(&t);
	free(buf);
	pl_trace_builder_free(&b);
}

static void test_empty_trace(void)
{
	struct pl_trace_builder b;
	struct pl_trace t;
	struct pl_error err = { "" };
	uint8_t *buf;
	size_t len;

	pl_trace_builder_init(&b, 1);
	pl_trace_builder_serialize(&b, &buf, &len);
	CU_ASSERT_EQUAL(len, 32);
	CU_ASSERT_EQUAL(pl_trace_parse("t.bin", buf, len, &t, &err), 0);
	CU_ASSERT_EQUAL(t.nevents, 0);
	CU_ASSERT_EQUAL(t.nsources, 0);
	pl_trace_free(&t);
	free(buf);
	pl_trace_builder_free(&b);
}

/*
 * The sequential scenario: 6 sources (cpu 0, cpu 1, then threads), table
 * ends at byte 176, 37 records, 1360 bytes. Record 3 (byte 272) is the
 * first of a user thread.
 */
static uint8_t *valid(size_t *len)
{
	struct tb t;

	scenario_sequential(&t);
	uint8_t *buf = tb_bytes(&t, len);

	tb_free(&t);
	CU_ASSERT_EQUAL(*len, 1360);
	return buf;
}

/* Parses len bytes of buf and checks the exact error and that nothing is left allocated. */
static void expect_error(const uint8_t *buf, size_t len, const char *msg)
{
	struct pl_trace t;
	struct pl_error err = { "" };

	CU_ASSERT_EQUAL(pl_trace_parse("t.bin", buf, len, &t, &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, msg);
	if (strcmp(err.msg, msg) != 0)
		fprintf(stderr, "\n  got:      %s\n  expected: %s\n", err.msg, msg);
	CU_ASSERT_PTR_NULL(t.events);
	CU_ASSERT_PTR_NULL(t.sources);
}

static void test_truncated(void)
{
	size_t len;
	uint8_t *buf = valid(&len);

	expect_error(buf, len - 10,
		     "t.bin@1328: truncated trace: file ends at byte 1350 in record 36 of 37, expected 1360 bytes");
	expect_error(buf, len - 32,
		     "t.bin@1328: truncated trace: file ends at byte 1328 in record 36 of 37, expected 1360 bytes");
	expect_error(buf, 100,
		     "t.bin@100: truncated source table: file ends at byte 100, expected 6 sources ending at byte 176");
	expect_error(buf, 20, "t.bin@20: truncated header: file has 20 bytes, expected at least 32");
	expect_error(buf, 0, "t.bin@0: truncated header: file has 0 bytes, expected at least 32");

	uint8_t *longer = malloc(len + 4);

	memcpy(longer, buf, len);
	memset(longer + len, 0, 4);
	expect_error(longer, len + 4,
		     "t.bin@1360: 4 bytes after the last record, expected the file to end at byte 1360");
	free(longer);
	free(buf);
}

/* Applies one byte change to a valid trace and checks the message. */
static void corrupt(size_t offset, uint8_t value, const char *msg)
{
	size_t len;
	uint8_t *buf = valid(&len);

	buf[offset] = value;
	expect_error(buf, len, msg);
	free(buf);
}

static void test_corrupt_header(void)
{
	corrupt(0, 'X', "t.bin@0: bad magic \"XANLABTR\", expected \"PANLABTR\"");
	corrupt(7, 0, "t.bin@0: bad magic \"PANLABT\\x00\", expected \"PANLABTR\"");
	corrupt(8, 7, "t.bin@8: unsupported version 7, expected 1..6");
	corrupt(8, 0, "t.bin@8: unsupported version 0, expected 1..6");
	corrupt(10, 24, "t.bin@10: record size 24 bytes, expected 32");
	corrupt(12, 2, "t.bin@12: clock id 2, expected 1 (CLOCK_MONOTONIC)");
	corrupt(16, 0, "t.bin@16: cpu count 0, expected 1..1024");
	corrupt(24, 1, "t.bin@24: reserved field is 0x1, expected 0");
	/* 7 sources: the 7th is read from the first record, whose ts is 10000. */
	corrupt(20, 7, "t.bin@176: source 6 has kind 10000, expected 1 (kernel cpu) or 2 (user thread)");
}

static void test_corrupt_sources(void)
{
	corrupt(32 + 24, 7, "t.bin@56: source 1 has kind 7, expected 1 (kernel cpu) or 2 (user thread)");
	corrupt(32 + 24 + 4, 2, "t.bin@60: kernel source 1 is for cpu 2, expected a cpu below the header's 2");
	corrupt(32 + 48 + 4, 0, "t.bin@84: user source 2 is for tid 0, expected a thread id above 0");
	corrupt(32 + 8, 3,
		"t.bin@1360: truncated trace: file ends at byte 1360 in record 37 of 38, expected 1392 bytes");
	/* Counts and times must fit JSON's signed integers (summary.json would show -1). */
	corrupt(32 + 16 + 7, 0x80,
		"t.bin@48: source 0 lost count 9223372036854775808 takes the total past 2^63-1, expected a plausible count");
	corrupt(176 + 7, 0x80,
		"t.bin@176: timestamp 9223372036854785808 ns is past 2^63-1, expected CLOCK_MONOTONIC ns");
}

/* An IRQ_NAME's part (a0 bits 16-31) past PL_IRQ_NAME_PARTS. */
static void test_irq_name_part(void)
{
	size_t len;
	uint8_t *buf = valid(&len);

	buf[176 + 8] = PL_EV_IRQ_NAME;
	buf[176 + 16 + 2] = PL_IRQ_NAME_PARTS;
	expect_error(buf, len, "t.bin@176: irq_name part 2, expected a part below 2");
	free(buf);
}

static void test_unknown_event_type(void)
{
	corrupt(272 + 8, 99, "t.bin@272: unknown event type 99, expected a type listed in trace_format.h");
	corrupt(176 + 8, 0, "t.bin@176: unknown event type 0, expected a type listed in trace_format.h");
}

/* The record at off made a type new in version v: read in a version v file, refused in v - 1. */
static void check_new_type(uint8_t *buf, size_t len, size_t off, uint16_t type, uint8_t v,
			   const char *refused)
{
	struct pl_trace t;
	struct pl_error err = { "" };

	buf[off + 8] = (uint8_t)type;
	buf[8] = v;
	CU_ASSERT_EQUAL_FATAL(pl_trace_parse("t.bin", buf, len, &t, &err), 0);
	CU_ASSERT_EQUAL(t.version, v);
	pl_trace_free(&t);
	buf[8] = v - 1;
	expect_error(buf, len, refused);
}

/*
 * Version 2 adds TASK_CONTEXT and UNIT_CAPACITY, version 3 SWITCH_COUNTS,
 * version 4 the IRQ events, version 5 IRQ_NAME parts past the first,
 * version 6 counts SWITCH_COUNTS in user mode only; an older file is read
 * as before.
 */
static void test_versions(void)
{
	size_t len;
	uint8_t *buf = valid(&len);
	struct pl_trace t;
	struct pl_error err = { "" };
	uint8_t type = buf[272 + 8], ktype = buf[176 + 8];

	CU_ASSERT_EQUAL(buf[8], PL_TRACE_VERSION);
	check_new_type(buf, len, 176, PL_EV_IRQ_ENTRY, 4,
		       "t.bin@176: irq_entry event in a version 3 trace, expected version 4 or later");
	check_new_type(
		buf, len, 176, PL_EV_SWITCH_COUNTS, 3,
		"t.bin@176: switch_counts event in a version 2 trace, expected version 3 or later");
	buf[176 + 8] = ktype;
	check_new_type(
		buf, len, 272, PL_EV_TASK_CONTEXT, 2,
		"t.bin@272: task_context event in a version 1 trace, expected version 2 or later");
	buf[272 + 8] = type;
	CU_ASSERT_EQUAL_FATAL(pl_trace_parse("t.bin", buf, len, &t, &err), 0);
	CU_ASSERT_EQUAL(t.version, 1);
	pl_trace_free(&t);
	free(buf);
}

static void test_bad_records(void)
{
	corrupt(176 + 8, PL_EV_UI_INPUT,
		"t.bin@176: ui_input event in kernel cpu source 0, expected kernel events only");
	corrupt(272 + 8, PL_EV_FORK,
		"t.bin@272: fork event in user thread source 2, expected userspace events only");
	corrupt(176 + 10, 1, "t.bin@176: cpu 1 in a record of the buffer of cpu 0, expected 0");
	corrupt(272 + 12, 1,
		"t.bin@272: user record has cpu 65535 tid 1, expected cpu 65535 and the buffer owner's tid 104");
	/* Record 1 of cpu 0 (byte 208) at 20 us: make it 5 ns, before record 0's 10 us. */
	size_t len;
	uint8_t *buf = valid(&len);

	memset(buf + 208, 0, 8);
	buf[208] = 5;
	expect_error(buf, len,
		     "t.bin@208: timestamp 5 ns is before the previous record's 10000 ns, expected time order within source 0");
	free(buf);
}

/* LOST may mark a gap in any buffer; every type of the X-macro list is known. */
static void test_lost_and_table1_types(void)
{
	struct pl_trace_builder b;
	struct pl_trace t;
	struct pl_error err = { "" };
	uint8_t *buf;
	size_t len;

	pl_trace_builder_init(&b, 1);
	uint32_t k = pl_trace_builder_add_source(&b, PL_SRC_KERNEL_CPU, 0, 2);
	uint32_t u = pl_trace_builder_add_source(&b, PL_SRC_USER_THREAD, 9, 5);
	struct pl_event lost_k = { 1, PL_EV_LOST, 0, 9, 2, 0, 0 };
	struct pl_event binder = { 2, PL_EV_BINDER_CONSUME, 0, 9, 77, 0, 0 };
	struct pl_event lost_u = { 3, PL_EV_LOST, PL_CPU_NONE, 9, 5, 0, 0 };

	pl_trace_builder_add_event(&b, k, &lost_k);
	pl_trace_builder_add_event(&b, k, &binder);
	pl_trace_builder_add_event(&b, u, &lost_u);
	pl_trace_builder_serialize(&b, &buf, &len);
	CU_ASSERT_EQUAL(pl_trace_parse("t.bin", buf, len, &t, &err), 0);
	CU_ASSERT_EQUAL(t.nevents, 3);
	CU_ASSERT_EQUAL(t.events_lost, 7);
	pl_trace_free(&t);
	free(buf);
	pl_trace_builder_free(&b);
	CU_ASSERT_STRING_EQUAL(pl_event_type_name(PL_EV_WAITQUEUE_NOTIFY), "waitqueue_notify");
	CU_ASSERT_STRING_EQUAL(pl_event_type_name(PL_EV_GPU_FLUSH), "gpu_flush");
	CU_ASSERT_PTR_NULL(pl_event_type_name(48));
	CU_ASSERT_PTR_NULL(pl_event_type_name(PL_EV_TYPE_MAX + 1));
}

static void test_open_error(void)
{
	struct pl_trace t;
	struct pl_error err = { "" };

	CU_ASSERT_EQUAL(pl_trace_read_file("/nonexistent/t.bin", &t, &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "/nonexistent/t.bin: cannot open: No such file or directory");
}

void add_trace_io_tests(void)
{
	CU_pSuite s = CU_add_suite("trace_io", NULL, NULL);

	CU_add_test(s, "writer/reader round trip", test_round_trip);
	CU_add_test(s, "empty trace", test_empty_trace);
	CU_add_test(s, "truncated trace", test_truncated);
	CU_add_test(s, "corrupt header", test_corrupt_header);
	CU_add_test(s, "corrupt source table", test_corrupt_sources);
	CU_add_test(s, "unknown event type", test_unknown_event_type);
	CU_add_test(s, "an irq_name part out of range", test_irq_name_part);
	CU_add_test(s, "records breaking the source rules", test_bad_records);
	CU_add_test(s, "versions 1 and 2", test_versions);
	CU_add_test(s, "LOST markers and Table 1 kernel types", test_lost_and_table1_types);
	CU_add_test(s, "missing file", test_open_error);
}
