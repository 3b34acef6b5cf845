/* SPDX-License-Identifier: MIT */
/* The inverse of trace_read.c: lays out events exactly as include/FORMAT.md describes. */
#include "panlab/trace.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "panlab/error.h"
#include "bytes.h"

void pl_trace_builder_init(struct pl_trace_builder *b, uint32_t ncpus)
{
	memset(b, 0, sizeof(*b));
	b->ncpus = ncpus;
}

uint32_t pl_trace_builder_add_source(struct pl_trace_builder *b, uint32_t kind,
				     uint32_t id, uint64_t lost)
{
	b->sources = pl_xrealloc(b->sources, b->nsources + 1, sizeof(*b->sources));
	b->sources[b->nsources] = (struct pl_trace_builder_source){
		.src = { .kind = kind, .id = id, .records = 0, .lost = lost },
	};
	return b->nsources++;
}

void pl_trace_builder_add_event(struct pl_trace_builder *b, uint32_t source,
				const struct pl_event *ev)
{
	struct pl_trace_builder_source *s = &b->sources[source];

	if (s->src.records == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 16;
		s->events = pl_xrealloc(s->events, s->cap, sizeof(*s->events));
	}
	s->events[s->src.records++] = *ev;
}

void pl_trace_encode_header(uint8_t *out, uint32_t ncpus, const struct pl_source *sources,
			    uint32_t nsources)
{
	memcpy(out, PL_TRACE_MAGIC, 8);
	pl_put16(out + 8, PL_TRACE_VERSION);
	pl_put16(out + 10, PL_RECORD_BYTES);
	pl_put32(out + 12, PL_CLOCK_MONOTONIC);
	pl_put32(out + 16, ncpus);
	pl_put32(out + 20, nsources);
	pl_put64(out + 24, 0);
	for (uint32_t i = 0; i < nsources; i++) {
		uint8_t *s = out + PL_HEADER_BYTES + (size_t)PL_SOURCE_BYTES * i;

		pl_put32(s, sources[i].kind);
		pl_put32(s + 4, sources[i].id);
		pl_put64(s + 8, sources[i].records);
		pl_put64(s + 16, sources[i].lost);
	}
}

void pl_trace_encode_event(uint8_t *out, const struct pl_event *ev)
{
	pl_put64(out, ev->ts_ns);
	pl_put16(out + 8, ev->type);
	pl_put16(out + 10, ev->cpu);
	pl_put32(out + 12, ev->tid);
	pl_put64(out + 16, ev->a0);
	pl_put32(out + 24, ev->a1);
	pl_put32(out + 28, ev->a2);
}

void pl_trace_builder_serialize(const struct pl_trace_builder *b, uint8_t **buf,
				size_t *len)
{
	size_t n = PL_HEADER_BYTES + (size_t)PL_SOURCE_BYTES * b->nsources;
	struct pl_source *sources = pl_xcalloc(b->nsources ? b->nsources : 1, sizeof(*sources));

	for (uint32_t i = 0; i < b->nsources; i++) {
		n += (size_t)b->sources[i].src.records * PL_RECORD_BYTES;
		sources[i] = b->sources[i].src;
	}
	uint8_t *p = pl_xrealloc(NULL, n, 1);
	uint8_t *r = p + PL_HEADER_BYTES + (size_t)PL_SOURCE_BYTES * b->nsources;

	pl_trace_encode_header(p, b->ncpus, sources, b->nsources);
	free(sources);
	for (uint32_t i = 0; i < b->nsources; i++)
		for (uint64_t j = 0; j < b->sources[i].src.records; j++, r += PL_RECORD_BYTES)
			pl_trace_encode_event(r, &b->sources[i].events[j]);
	*buf = p;
	*len = n;
}

int pl_trace_builder_write_file(const struct pl_trace_builder *b,
				const char *path, struct pl_error *err)
{
	uint8_t *buf;
	size_t len;
	FILE *f = fopen(path, "wb");

	if (!f) {
		pl_error_file(err, path, "cannot create: %s", strerror(errno));
		return -1;
	}
	pl_trace_builder_serialize(b, &buf, &len);
	int ok = fwrite(buf, 1, len, f) == len;

	ok = (fclose(f) == 0) && ok;
	free(buf);
	if (!ok) {
		pl_error_file(err, path, "write failed: %s", strerror(errno));
		return -1;
	}
	return 0;
}

void pl_trace_builder_free(struct pl_trace_builder *b)
{
	for (uint32_t i = 0; i < b->nsources; i++)
		free(b->sources[i].events);
	free(b->sources);
	memset(b, 0, sizeof(*b));
}
