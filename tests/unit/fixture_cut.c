/* SPDX-License-Identifier: MIT */
/*
 * fixture-cut IN OUT END_NS: writes to OUT the trace IN with only the records
 * timestamped before END_NS, every source kept (with its lost count), so a
 * long run becomes a small analyzer fixture (tests/unit/make-phone-fixtures.sh).
 * IN must pass the analyzer's reader; the cut is made on the file's bytes, so
 * every kept record is the run's, unchanged.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "panlab/error.h"
#include "panlab/read_file.h"
#include "panlab/trace.h"
#include "bytes.h"

#define HEADER_BYTES 32
#define SOURCE_BYTES 24
#define RECORD_BYTES 32

int main(int argc, char **argv)
{
	struct pl_error err;
	struct pl_trace check;
	uint64_t end_ns;
	char *buf;
	size_t len;

	if (argc != 4 || pl_parse_u64(argv[3], UINT64_MAX, &end_ns) < 0) {
		fprintf(stderr, "usage: fixture-cut IN OUT END_NS (a decimal integer)\n");
		return PL_EXIT_USAGE;
	}
	if (pl_read_file(argv[1], PL_CAP_TRACE_BYTES, "a trace", &buf, &len, &err) < 0 ||
	    pl_trace_parse(argv[1], buf, len, &check, &err) < 0)
		pl_error_exit("fixture-cut", &err, PL_EXIT_FAILED);
	pl_trace_free(&check);

	uint8_t *in = (uint8_t *)buf, *out = pl_xcalloc(len, 1), *o;
	uint32_t nsources = pl_get32(in + 20);
	const uint8_t *rec = in + HEADER_BYTES + (size_t)nsources * SOURCE_BYTES;

	memcpy(out, in, HEADER_BYTES + (size_t)nsources * SOURCE_BYTES);
	o = out + HEADER_BYTES + (size_t)nsources * SOURCE_BYTES;
	for (uint32_t i = 0; i < nsources; i++) {
		uint8_t *src = out + HEADER_BYTES + (size_t)i * SOURCE_BYTES;
		uint64_t n = pl_get64(src + 8), kept = 0;

		for (uint64_t k = 0; k < n; k++, rec += RECORD_BYTES)
			if (pl_get64(rec) < end_ns) {
				memcpy(o, rec, RECORD_BYTES);
				o += RECORD_BYTES;
				kept++;
			}
		pl_put64(src + 8, kept);
	}

	FILE *f = fopen(argv[2], "wb");
	int ok = f && fwrite(out, 1, (size_t)(o - out), f) == (size_t)(o - out);

	if (f && fclose(f))
		ok = 0;
	free(out);
	free(buf);
	if (!ok) {
		pl_error_file(&err, argv[2], "cannot write");
		pl_error_exit("fixture-cut", &err, PL_EXIT_FAILED);
	}
	return PL_EXIT_OK;
}
