/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: any bytes as a trace for `panlab-analyze stream`: the
 * streaming reader and the windowed analysis, with windows small enough
 * that every input spans several, and the result's JSON (stream.json) must
 * parse back (jansson), or the target aborts.
 */
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "panlab/stream.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[] = "/tmp/panlab-fuzz-stream.XXXXXX";

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	int fd = mkstemp(path);

	if (fd < 0) {
		perror("fuzz_stream: mkstemp");
		abort();
	}
	close(fd);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Windows of 8 events with 1 ms of context: many windows per input. */
	const struct pl_stream_options opt = { .window_events = 8, .context_ns = 1000000,
					       .keep_transactions = 1 };
	struct pl_stream_result r;
	struct pl_error err;
	FILE *f = fopen(path, "wb");

	if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
		perror("fuzz_stream: writing the input");
		abort();
	}
	if (pl_stream_analyze(path, &opt, &r, &err) < 0)
		return 0;
	json_t *doc = pl_stream_result_json(&r, &opt);
	char *text = json_dumps(doc, JSON_INDENT(2) | JSON_REAL_PRECISION(12));
	json_error_t je;
	json_t *back = text ? json_loads(text, 0, &je) : NULL;

	if (!back) {
		fprintf(stderr, "fuzz_stream: stream.json is not valid JSON\n");
		abort();
	}
	json_decref(back);
	free(text);
	json_decref(doc);
	pl_stream_result_free(&r);
	return 0;
}
