/* SPDX-License-Identifier: MIT */
/*
 * Stage 1: bytes -> events. Every check names the byte offset of the field or
 * record at fault, so a bad trace can be inspected with `xxd -s OFFSET`.
 */
#include "panlab/kernel_only.h"
#include "panlab/trace.h"
#include "panlab/read_file.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "panlab/error.h"
#include "bytes.h"

/* Kernel events are 1..63, userspace events 64..127 (trace_format.h). */
#define PL_FIRST_USER_TYPE 64
#define PL_MAX_CPUS 1024

#define PL_EV_NAME_ENTRY(name, value, str) [value] = str,
static const char *const type_names[PL_EV_TYPE_MAX + 1] = {
	PL_EVENT_TYPES(PL_EV_NAME_ENTRY)
};
#undef PL_EV_NAME_ENTRY

const char *pl_event_type_name(uint32_t type)
{
	if (type >= sizeof(type_names) / sizeof(type_names[0]))
		return NULL;
	return type_names[type];
}

static const char *kind_name(uint32_t kind)
{
	return kind == PL_SRC_KERNEL_CPU ? "kernel cpu" : "user thread";
}

static int check_header(const char *name, const uint8_t *p, size_t len,
			struct pl_trace *out, struct pl_error *err)
{
	char q[64];

	if (len < PL_HEADER_BYTES) {
		pl_error_at_offset(err, name, len,
				   "truncated header: file has %zu bytes, expected at least %d",
				   len, PL_HEADER_BYTES);
		return -1;
	}
	if (memcmp(p, PL_TRACE_MAGIC, 8) != 0) {
		pl_error_at_offset(err, name, 0, "bad magic \"%s\", expected \"%s\"",
				   pl_quote(q, sizeof(q), p, 8), PL_TRACE_MAGIC);
		return -1;
	}
	out->version = pl_get16(p + 8);
	if (out->version < PL_TRACE_VERSION_MIN || out->version > PL_TRACE_VERSION) {
		pl_error_at_offset(err, name, 8, "unsupported version %u, expected %d..%d",
				   out->version, PL_TRACE_VERSION_MIN, PL_TRACE_VERSION);
		return -1;
	}
	if (pl_get16(p + 10) != PL_RECORD_BYTES) {
		pl_error_at_offset(err, name, 10, "record size %u bytes, expected %d",
				   pl_get16(p + 10), PL_RECORD_BYTES);
		return -1;
	}
	if (pl_get32(p + 12) != PL_CLOCK_MONOTONIC) {
		pl_error_at_offset(err, name, 12,
				   "clock id %u, expected %d (CLOCK_MONOTONIC)",
				   pl_get32(p + 12), PL_CLOCK_MONOTONIC);
		return -1;
	}
	out->ncpus = pl_get32(p + 16);
	if (out->ncpus == 0 || out->ncpus > PL_MAX_CPUS) {
		pl_error_at_offset(err, name, 16, "cpu count %u, expected 1..%d",
				   out->ncpus, PL_MAX_CPUS);
		return -1;
	}
	out->nsources = pl_get32(p + 20);
	if (pl_get64(p + 24) != 0) {
		pl_error_at_offset(err, name, 24, "reserved field is 0x%llx, expected 0",
				   (unsigned long long)pl_get64(p + 24));
		return -1;
	}
	uint64_t table_end = PL_HEADER_BYTES + (uint64_t)PL_SOURCE_BYTES * out->nsources;

	if (table_end > len) {
		pl_error_at_offset(err, name, len,
				   "truncated source table: file ends at byte %zu, expected %u sources ending at byte %llu",
				   len, out->nsources, (unsigned long long)table_end);
		return -1;
	}
	return 0;
}

/* Reads the source table; on success *records_end is the exact file size the table implies. */
static int read_sources(const char *name, const uint8_t *p, struct pl_trace *out,
			uint64_t *records_end, struct pl_error *err)
{
	uint64_t end = PL_HEADER_BYTES + (uint64_t)PL_SOURCE_BYTES * out->nsources;

	out->sources = pl_xcalloc(out->nsources, sizeof(*out->sources));
	for (uint32_t i = 0; i < out->nsources; i++) {
		uint64_t off = PL_HEADER_BYTES + (uint64_t)PL_SOURCE_BYTES * i;
		struct pl_source *s = &out->sources[i];

		s->kind = pl_get32(p + off);
		s->id = pl_get32(p + off + 4);
		s->records = pl_get64(p + off + 8);
		s->lost = pl_get64(p + off + 16);
		if (s->kind != PL_SRC_KERNEL_CPU && s->kind != PL_SRC_USER_THREAD) {
			pl_error_at_offset(err, name, off,
					   "source %u has kind %u, expected %d (kernel cpu) or %d (user thread)",
					   i, s->kind, PL_SRC_KERNEL_CPU, PL_SRC_USER_THREAD);
			return -1;
		}
		if (s->kind == PL_SRC_KERNEL_CPU && s->id >= out->ncpus) {
			pl_error_at_offset(err, name, off + 4,
					   "kernel source %u is for cpu %u, expected a cpu below the header's %u",
					   i, s->id, out->ncpus);
			return -1;
		}
		/* tid 0 is the idle task; the model relies on user events having a thread. */
		if (s->kind == PL_SRC_USER_THREAD && s->id == 0) {
			pl_error_at_offset(err, name, off + 4,
					   "user source %u is for tid 0, expected a thread id above 0", i);
			return -1;
		}
		if (s->records > (UINT64_MAX - end) / PL_RECORD_BYTES) {
			pl_error_at_offset(err, name, off + 8,
					   "source %u claims %llu records, expected a count that fits a file",
					   i, (unsigned long long)s->records);
			return -1;
		}
		end += s->records * PL_RECORD_BYTES;
		/* Counts stay within JSON's signed 64-bit integers (summary.json). */
		if (s->lost > PL_COUNT_MAX - out->events_lost) {
			pl_error_at_offset(err, name, off + 16,
					   "source %u lost count %llu takes the total past 2^63-1, expected a plausible count",
					   i, (unsigned long long)s->lost);
			return -1;
		}
		out->nevents += s->records;
		out->events_lost += s->lost;
	}
	*records_end = end;
	return 0;
}

static int check_size(const char *name, size_t len, uint64_t table_end,
		      uint64_t records_end, uint64_t nevents, struct pl_error *err)
{
	if (len < records_end) {
		uint64_t whole = (len - table_end) / PL_RECORD_BYTES;

		pl_error_at_offset(err, name, table_end + whole * PL_RECORD_BYTES,
				   "truncated trace: file ends at byte %zu in record %llu of %llu, expected %llu bytes",
				   len, (unsigned long long)whole, (unsigned long long)nevents,
				   (unsigned long long)records_end);
		return -1;
	}
	if (len > records_end) {
		pl_error_at_offset(err, name, records_end,
				   "%llu bytes after the last record, expected the file to end at byte %llu",
				   (unsigned long long)(len - records_end),
				   (unsigned long long)records_end);
		return -1;
	}
	return 0;
}

/* The first trace version that knew an event type. */
static unsigned first_version(uint16_t type)
{
	switch (type) {
	case PL_EV_IRQ_ENTRY:
	case PL_EV_IRQ_EXIT:
	case PL_EV_IRQ_NAME:
		return 4;
	case PL_EV_SWITCH_COUNTS:
		return 3;
	default:
		return type > PL_EV_V1_MAX ? 2 : 1;
	}
}

static int decode_record(const char *name, const uint8_t *r, uint64_t off, uint16_t version,
			 const struct pl_source *s, uint32_t si, struct pl_event *ev,
			 struct pl_error *err)
{
	ev->ts_ns = pl_get64(r);
	ev->type = pl_get16(r + 8);
	ev->cpu = pl_get16(r + 10);
	ev->tid = pl_get32(r + 12);
	ev->a0 = pl_get64(r + 16);
	ev->a1 = pl_get32(r + 24);
	ev->a2 = pl_get32(r + 28);

	if (ev->ts_ns > PL_COUNT_MAX) {
		pl_error_at_offset(err, name, off,
				   "timestamp %llu ns is past 2^63-1, expected CLOCK_MONOTONIC ns",
				   (unsigned long long)ev->ts_ns);
		return -1;
	}
	if (!pl_event_type_name(ev->type)) {
		pl_error_at_offset(err, name, off,
				   "unknown event type %u, expected a type listed in trace_format.h",
				   ev->type);
		return -1;
	}
	if (version < first_version(ev->type)) {
		pl_error_at_offset(err, name, off,
				   "%s event in a version %u trace, expected version %u or later",
				   pl_event_type_name(ev->type), version, first_version(ev->type));
		return -1;
	}
	if (ev->type == PL_EV_IRQ_NAME && (uint32_t)ev->a0 >> 16 >= PL_IRQ_NAME_PARTS) {
		pl_error_at_offset(err, name, off, "irq_name part %u, expected a part below %d",
				   (uint32_t)ev->a0 >> 16, PL_IRQ_NAME_PARTS);
		return -1;
	}
	int user_type = ev->type >= PL_FIRST_USER_TYPE;

	/* LOST marks a gap in whichever buffer dropped records, kernel or user. */
	if (ev->type != PL_EV_LOST && user_type != (s->kind == PL_SRC_USER_THREAD)) {
		pl_error_at_offset(err, name, off,
				   "%s event in %s source %u, expected %s events only",
				   pl_event_type_name(ev->type), kind_name(s->kind), si,
				   user_type ? "kernel" : "userspace");
		return -1;
	}
	if (s->kind == PL_SRC_KERNEL_CPU && ev->cpu != s->id) {
		pl_error_at_offset(err, name, off,
				   "cpu %u in a record of the buffer of cpu %u, expected %u",
				   ev->cpu, s->id, s->id);
		return -1;
	}
	if (s->kind == PL_SRC_USER_THREAD && (ev->cpu != PL_CPU_NONE || ev->tid != s->id)) {
		pl_error_at_offset(err, name, off,
				   "user record has cpu %u tid %u, expected cpu %u and the buffer owner's tid %u",
				   ev->cpu, ev->tid, PL_CPU_NONE, s->id);
		return -1;
	}
	return 0;
}

/* A source's records, sorted (checked while decoding): one run of the merge. */
struct run {
	uint64_t pos, end;	/* indices into the file-order event array */
	uint32_t source;	/* ties go to the earlier source: file order */
};

static int run_before(const struct pl_event *ev, const struct run *a, const struct run *b)
{
	uint64_t x = ev[a->pos].ts_ns, y = ev[b->pos].ts_ns;

	return x != y ? x < y : a->source < b->source;
}

static void sift_down(struct run *heap, uint32_t n, uint32_t i, const struct pl_event *ev)
{
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < n && run_before(ev, &heap[l], &heap[m]))
			m = l;
		if (r < n && run_before(ev, &heap[r], &heap[m]))
			m = r;
		if (m == i)
			return;
		struct run t = heap[i];

		heap[i] = heap[m];
		heap[m] = t;
		i = m;
	}
}

/*
 * Merges the sources, each already in time order, into one timeline with a
 * binary heap of runs: O(n log sources), and the order (time, then file
 * order) does not depend on the sort algorithm.
 */
static void merge_in_time_order(struct pl_trace *t)
{
	struct run *heap = pl_xcalloc(t->nsources, sizeof(*heap));
	struct pl_event *sorted = pl_xcalloc(t->nevents, sizeof(*sorted));
	uint32_t n = 0;
	uint64_t pos = 0;

	for (uint32_t si = 0; si < t->nsources; pos += t->sources[si++].records)
		if (t->sources[si].records)
			heap[n++] = (struct run){ pos, pos + t->sources[si].records, si };
	for (uint32_t i = n / 2; i-- > 0;)
		sift_down(heap, n, i, t->events);
	for (uint64_t k = 0; n > 0; k++) {
		sorted[k] = t->events[heap[0].pos++];
		if (heap[0].pos == heap[0].end)
			heap[0] = heap[--n];
		sift_down(heap, n, 0, t->events);
	}
	free(heap);
	free(t->events);
	t->events = sorted;
}

int pl_trace_parse(const char *name, const void *buf, size_t len,
		   struct pl_trace *out, struct pl_error *err)
{
	const uint8_t *p = buf;
	uint64_t records_end;

	memset(out, 0, sizeof(*out));
	if (check_header(name, p, len, out, err) < 0 ||
	    read_sources(name, p, out, &records_end, err) < 0)
		goto fail;

	uint64_t table_end = PL_HEADER_BYTES + (uint64_t)PL_SOURCE_BYTES * out->nsources;

	if (check_size(name, len, table_end, records_end, out->nevents, err) < 0)
		goto fail;
	out->events = pl_xcalloc(out->nevents, sizeof(*out->events));
	uint64_t off = table_end, n = 0;

	for (uint32_t si = 0; si < out->nsources; si++) {
		const struct pl_source *s = &out->sources[si];

		for (uint64_t j = 0; j < s->records; j++, n++, off += PL_RECORD_BYTES) {
			struct pl_event *ev = &out->events[n];

			if (decode_record(name, p + off, off, out->version, s, si, ev, err) < 0)
				goto fail;
			if (j > 0 && ev->ts_ns < ev[-1].ts_ns) {
				pl_error_at_offset(err, name, off,
						   "timestamp %llu ns is before the previous record's %llu ns, expected time order within source %u",
						   (unsigned long long)ev->ts_ns,
						   (unsigned long long)ev[-1].ts_ns, si);
				goto fail;
			}
		}
	}
	merge_in_time_order(out);
	/* The last steps of reading: the stages after them take the trace as it is. */
	pl_trace_repair_skew(out);
	if (pl_trace_check_clocks(name, out, err) < 0)
		goto fail;
	pl_trace_infer_kernel_only(out);
	return 0;
fail:
	pl_trace_free(out);
	return -1;
}

int pl_trace_read_file(const char *path, struct pl_trace *out, struct pl_error *err)
{
	char *buf;
	size_t len;

	memset(out, 0, sizeof(*out));
	if (pl_read_file(path, PL_CAP_TRACE_BYTES,
			 "a trace read whole (`panlab-analyze stream` has no cap)", &buf, &len,
			 err) < 0)
		return -1;
	int rc = pl_trace_parse(path, buf, len, out, err);

	free(buf);
	return rc;
}

/*
 * Streaming: the same checks, record by record, with a small buffer per
 * source and the same merge order (time, then file order), so memory does
 * not grow with the file.
 */
#define STREAM_BUFFER_RECORDS 2048

struct cursor {
	uint64_t off, left;		/* next record's file offset, records still unread */
	uint64_t j;			/* index of the next record within its source */
	uint64_t last_ts_ns;
	uint32_t n, pos;		/* records in buf, next one to use */
	struct pl_event *buf;
};

struct pl_trace_stream {
	const char *name;
	FILE *f;
	const struct pl_trace *head;
	struct cursor *cur;
	/* Sources by their next event's time, then index (file order); the time is cached here. */
	struct head_entry {
		uint64_t ts_ns;
		uint32_t source;
	} *heap;
	uint32_t nheap;
	uint8_t *raw;
};

/* Decodes the next batch of source si into its buffer; 0 if it has none left. */
static int refill(struct pl_trace_stream *st, uint32_t si, struct pl_error *err)
{
	struct cursor *c = &st->cur[si];
	uint64_t n = c->left < STREAM_BUFFER_RECORDS ? c->left : STREAM_BUFFER_RECORDS;

	c->n = c->pos = 0;
	if (n == 0)
		return 0;
	if (fseeko(st->f, (off_t)c->off, SEEK_SET) != 0 ||
	    fread(st->raw, PL_RECORD_BYTES, n, st->f) != n) {
		pl_error_at_offset(err, st->name, c->off, "cannot read: %s",
				   ferror(st->f) ? strerror(errno) : "file shrank while reading");
		return -1;
	}
	for (uint64_t k = 0; k < n; k++, c->off += PL_RECORD_BYTES, c->j++) {
		struct pl_event *ev = &c->buf[k];

		if (decode_record(st->name, st->raw + k * PL_RECORD_BYTES, c->off,
				  st->head->version, &st->head->sources[si], si, ev, err) < 0)
			return -1;
		if (c->j > 0 && ev->ts_ns < c->last_ts_ns) {
			pl_error_at_offset(err, st->name, c->off,
					   "timestamp %llu ns is before the previous record's %llu ns, expected time order within source %u",
					   (unsigned long long)ev->ts_ns,
					   (unsigned long long)c->last_ts_ns, si);
			return -1;
		}
		c->last_ts_ns = ev->ts_ns;
	}
	c->n = (uint32_t)n;
	c->left -= n;
	return 1;
}

static int entry_before(const struct head_entry *a, const struct head_entry *b)
{
	return a->ts_ns != b->ts_ns ? a->ts_ns < b->ts_ns : a->source < b->source;
}

static void stream_sift_down(struct pl_trace_stream *st, uint32_t i)
{
	for (;;) {
		uint32_t l = 2 * i + 1, r = l + 1, m = i;

		if (l < st->nheap && entry_before(&st->heap[l], &st->heap[m]))
			m = l;
		if (r < st->nheap && entry_before(&st->heap[r], &st->heap[m]))
			m = r;
		if (m == i)
			return;
		struct head_entry t = st->heap[i];

		st->heap[i] = st->heap[m];
		st->heap[m] = t;
		i = m;
	}
}

int pl_trace_stream_open(const char *path, struct pl_trace *head, struct pl_trace_stream **out,
			 struct pl_error *err)
{
	uint8_t fixed[PL_HEADER_BYTES];
	struct stat sb;
	FILE *f = pl_open_input(path, err);

	memset(head, 0, sizeof(*head));
	*out = NULL;
	if (!f)
		return -1;
	if (fstat(fileno(f), &sb) != 0) {
		pl_error_file(err, path, "cannot open: %s", strerror(errno));
		fclose(f);
		return -1;
	}
	/* Streaming seeks to each source's records, and a pipe has no size. */
	if (!S_ISREG(sb.st_mode)) {
		pl_error_file(err, path, "is a %s, expected a regular file (stream mode seeks in the trace; save it to a file first)",
			      S_ISFIFO(sb.st_mode) ? "pipe" : S_ISCHR(sb.st_mode) ? "character device" : "special file");
		fclose(f);
		return -1;
	}
	size_t len = (size_t)sb.st_size, got = fread(fixed, 1, sizeof(fixed), f);
	uint8_t *table = NULL;
	uint64_t records_end;

	if (check_header(path, fixed, got < sizeof(fixed) ? got : len, head, err) < 0)
		goto fail;
	uint64_t table_end = PL_HEADER_BYTES + (uint64_t)PL_SOURCE_BYTES * head->nsources;

	table = pl_xcalloc(table_end, 1);
	if (fseeko(f, 0, SEEK_SET) != 0 || fread(table, 1, table_end, f) != table_end) {
		pl_error_file(err, path, "cannot read the source table: %s", strerror(errno));
		goto fail;
	}
	if (read_sources(path, table, head, &records_end, err) < 0 ||
	    check_size(path, len, table_end, records_end, head->nevents, err) < 0)
		goto fail;
	free(table);
	table = NULL;

	struct pl_trace_stream *st = pl_xcalloc(1, sizeof(*st));

	*st = (struct pl_trace_stream){ .name = path, .f = f, .head = head };
	st->cur = pl_xcalloc(head->nsources ? head->nsources : 1, sizeof(*st->cur));
	st->heap = pl_xcalloc(head->nsources ? head->nsources : 1, sizeof(*st->heap));
	st->raw = pl_xcalloc(STREAM_BUFFER_RECORDS, PL_RECORD_BYTES);
	*out = st;
	uint64_t off = table_end;

	for (uint32_t si = 0; si < head->nsources; off += head->sources[si++].records * PL_RECORD_BYTES) {
		st->cur[si] = (struct cursor){ .off = off, .left = head->sources[si].records };
		st->cur[si].buf = pl_xcalloc(STREAM_BUFFER_RECORDS, sizeof(struct pl_event));
		int rc = refill(st, si, err);

		if (rc < 0) {
			pl_trace_stream_close(st);
			*out = NULL;
			pl_trace_free(head);
			return -1;
		}
		if (rc)
			st->heap[st->nheap++] = (struct head_entry){ st->cur[si].buf[0].ts_ns, si };
	}
	for (uint32_t i = st->nheap / 2; i-- > 0;)
		stream_sift_down(st, i);
	return 0;
fail:
	free(table);
	fclose(f);
	pl_trace_free(head);
	return -1;
}

int pl_trace_stream_next(struct pl_trace_stream *st, struct pl_event *ev, struct pl_error *err)
{
	if (st->nheap == 0)
		return 0;
	uint32_t si = st->heap[0].source;
	struct cursor *c = &st->cur[si];

	*ev = c->buf[c->pos++];
	if (c->pos == c->n) {
		int rc = refill(st, si, err);

		if (rc < 0)
			return -1;
		if (rc == 0) {
			st->heap[0] = st->heap[--st->nheap];
			stream_sift_down(st, 0);
			return 1;
		}
	}
	st->heap[0].ts_ns = c->buf[c->pos].ts_ns;
	stream_sift_down(st, 0);
	return 1;
}

void pl_trace_stream_close(struct pl_trace_stream *st)
{
	if (!st)
		return;
	for (uint32_t si = 0; si < st->head->nsources; si++)
		free(st->cur[si].buf);
	free(st->cur);
	free(st->heap);
	free(st->raw);
	fclose(st->f);
	free(st);
}

void pl_trace_free(struct pl_trace *trace)
{
	free(trace->sources);
	free(trace->events);
	memset(trace, 0, sizeof(*trace));
}
