/* SPDX-License-Identifier: MIT */
/*
 * panlab-bench: the analyzer's part of `make bench`.
 *
 *   panlab-bench synth --seed TRACE --events N --out FILE
 *     The trace synthesizer: replicates a real run's trace until it holds at
 *     least N events. Replica r is the seed with every timestamp shifted by
 *     r * (the seed's span + 1 s) and every input, message, task and binder
 *     id shifted by r * (the largest such id + 1), so replicas never join one
 *     another; threads, queues and cpus are the seed's, as in one long run.
 *     A thread is forked once in a run, so a replica's FORK names a child
 *     r * (the largest tid + 1) above the seed's: a stream window that sees
 *     a thread's events before the next replica's FORK of the same tid would
 *     pair them seconds apart and refuse the trace's clocks. The file keeps
 *     the seed's version, so an older build can read it (the A/B).
 *     Written source by source with trace_write.c's encoders, so it never
 *     holds more than the seed.
 *
 *   panlab-bench run --trace FILE --json FILE
 *     Streams the trace through the analysis (pl_stream_analyze) and writes
 *     {trace_bytes, seconds, mb_per_s, events_per_s, peak_rss_mb, cpu_seconds,
 *     mb_per_cpu_s} and the
 *     streamed results (pl_stream_result_json: events, transactions, ...)
 *     with jansson. Peak RSS is getrusage's ru_maxrss of this process,
 *     which only analyses.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>

#include "panlab/stream.h"
#include "panlab/trace.h"
#include "../bytes.h"

#define USAGE "usage: panlab-bench synth --seed TRACE --events N --out FILE | " \
	      "panlab-bench run --trace FILE --json FILE"
#define REPLICA_GAP_NS 1000000000ull
#define WRITE_RECORDS 32768

static int fail(const char *msg)
{
	fprintf(stderr, "%s\n", msg);
	return 1;
}

/* Which of the seed's sources an event came from (the merge keeps no source index). */
static uint32_t source_of(const struct pl_trace *t, const struct pl_event *ev)
{
	int user = ev->type == PL_EV_LOST ? ev->cpu == PL_CPU_NONE : ev->type >= 64;
	uint32_t kind = user ? PL_SRC_USER_THREAD : PL_SRC_KERNEL_CPU;
	uint32_t id = user ? ev->tid : ev->cpu;

	for (uint32_t i = 0; i < t->nsources; i++)
		if (t->sources[i].kind == kind && t->sources[i].id == id)
			return i;
	return UINT32_MAX;	/* unreachable for a trace that parsed */
}

static int has_item_id(uint16_t type)
{
	switch (type) {
	case PL_EV_UI_INPUT: case PL_EV_UI_KEY:
	case PL_EV_ENQUEUE_MSG: case PL_EV_DEQUEUE_MSG: case PL_EV_MSG_DONE:
	case PL_EV_SUBMIT_ASYNC_TASK: case PL_EV_CONSUME_ASYNC_TASK: case PL_EV_ASYNC_TASK_END:
	case PL_EV_BINDER_PRODUCE_ONEWAY: case PL_EV_BINDER_PRODUCE_TWOWAY:
	case PL_EV_BINDER_REPLY: case PL_EV_BINDER_CONSUME:
		return 1;
	default:
		return 0;
	}
}

static int synth(const char *seed, uint64_t want, const char *path)
{
	struct pl_trace t;
	struct pl_error err;

	if (pl_trace_read_file(seed, &t, &err) < 0)
		return fail(err.msg);
	if (t.nevents == 0) {
		pl_trace_free(&t);
		return fail("panlab-bench: the seed trace has no events");
	}
	uint64_t replicas = (want + t.nevents - 1) / t.nevents, id_span = 0, tid_span = 0;
	uint64_t span_ns = t.events[t.nevents - 1].ts_ns - t.events[0].ts_ns + REPLICA_GAP_NS;
	uint32_t *src = malloc(t.nevents * sizeof(*src));
	struct pl_source *sources = malloc(t.nsources * sizeof(*sources));
	size_t table = PL_HEADER_BYTES + (size_t)PL_SOURCE_BYTES * t.nsources;
	uint8_t *buf = malloc(table > WRITE_RECORDS * PL_RECORD_BYTES ? table
					: WRITE_RECORDS * PL_RECORD_BYTES);
	FILE *f = fopen(path, "wb");
	int ok = src && sources && buf && f;

	for (uint64_t e = 0; ok && e < t.nevents; e++) {
		src[e] = source_of(&t, &t.events[e]);
		if (has_item_id(t.events[e].type) && t.events[e].a0 >= id_span)
			id_span = t.events[e].a0 + 1;
		if (t.events[e].tid >= tid_span)
			tid_span = t.events[e].tid + 1;
		if (t.events[e].type == PL_EV_FORK && t.events[e].a0 >= tid_span)
			tid_span = t.events[e].a0 + 1;
	}
	for (uint32_t i = 0; ok && i < t.nsources; i++) {
		sources[i] = t.sources[i];
		sources[i].records *= replicas;
		sources[i].lost *= replicas;
	}
	if (ok) {
		pl_trace_encode_header(buf, t.ncpus, sources, t.nsources);
		pl_put16(buf + 8, t.version);
		ok = fwrite(buf, 1, table, f) == table;
	}
	for (uint32_t i = 0; ok && i < t.nsources; i++)
		for (uint64_t r = 0; ok && r < replicas; r++) {
			size_t n = 0;

			for (uint64_t e = 0; ok && e < t.nevents; e++) {
				if (src[e] != i)
					continue;
				struct pl_event ev = t.events[e];

				ev.ts_ns += r * span_ns;
				if (has_item_id(ev.type))
					ev.a0 += r * id_span;
				if (ev.type == PL_EV_FORK)
					ev.a0 += r * tid_span;
				pl_trace_encode_event(buf + n * PL_RECORD_BYTES, &ev);
				if (++n == WRITE_RECORDS) {
					ok = fwrite(buf, PL_RECORD_BYTES, n, f) == n;
					n = 0;
				}
			}
			if (ok && n)
				ok = fwrite(buf, PL_RECORD_BYTES, n, f) == n;
		}
	if (f)
		ok = fclose(f) == 0 && ok;
	if (ok)
		printf("panlab-bench: %s: %llu replicas of %s, %llu events\n", path,
		       (unsigned long long)replicas, seed, (unsigned long long)(replicas * t.nevents));
	else
		fprintf(stderr, "%s: cannot write: %s\n", path, strerror(errno));
	free(src);
	free(sources);
	free(buf);
	pl_trace_free(&t);
	return ok ? 0 : 1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int run(const char *trace, const char *json_path)
{
	struct pl_stream_options opt = { PL_STREAM_WINDOW_EVENTS, PL_STREAM_CONTEXT_NS, 0 };
	struct pl_stream_result r;
	struct pl_error err;
	struct rusage ru;
	struct stat sb;

	if (stat(trace, &sb) != 0) {
		fprintf(stderr, "%s: cannot stat: %s\n", trace, strerror(errno));
		return 1;
	}
	double start = now_s();

	if (pl_stream_analyze(trace, &opt, &r, &err) < 0)
		return fail(err.msg);
	double seconds = now_s() - start;

	getrusage(RUSAGE_SELF, &ru);
	double mb = (double)sb.st_size / 1e6, rss_mb = (double)ru.ru_maxrss / 1024.0;
	/* CPU time too: on a shared machine the wall-clock rate says as much about the load. */
	double cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
		       (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	json_t *o = pl_stream_result_json(&r, &opt);

	json_object_update_new(o, json_pack("{s:I, s:f, s:f, s:f, s:f, s:f, s:f}",
		"trace_bytes", (json_int_t)sb.st_size, "seconds", seconds, "mb_per_s", mb / seconds,
		"events_per_s", (double)r.events / seconds, "peak_rss_mb", rss_mb,
		"cpu_seconds", cpu_s, "mb_per_cpu_s", cpu_s > 0 ? mb / cpu_s : 0.0));
	int rc = json_dump_file(o, json_path, JSON_INDENT(2) | JSON_REAL_PRECISION(6));

	json_decref(o);
	printf("panlab-bench: analysed %.0f MB, %llu events, %llu transactions in %.1f s "
	       "(%.1f s of cpu): %.1f MB/s (%.1f per cpu second), %.0f events/s, peak RSS %.0f MB;"
	       " wrote %s\n", mb, (unsigned long long)r.events, (unsigned long long)r.transactions,
	       seconds, cpu_s, mb / seconds, cpu_s > 0 ? mb / cpu_s : 0.0,
	       (double)r.events / seconds, rss_mb, json_path);
	pl_stream_result_free(&r);
	if (rc != 0) {
		fprintf(stderr, "%s: cannot write: %s\n", json_path, strerror(errno));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 8 && !strcmp(argv[1], "synth") && !strcmp(argv[2], "--seed") &&
	    !strcmp(argv[4], "--events") && !strcmp(argv[6], "--out")) {
		char *end;
		unsigned long long n = strtoull(argv[5], &end, 10);

		if (*end || n == 0)
			return fail("panlab-bench: --events takes a positive integer; " USAGE);
		return synth(argv[3], n, argv[7]);
	}
	if (argc == 6 && !strcmp(argv[1], "run") && !strcmp(argv[2], "--trace") &&
	    !strcmp(argv[4], "--json"))
		return run(argv[3], argv[5]);
	fprintf(stderr, USAGE "\n");
	return 2;
}
