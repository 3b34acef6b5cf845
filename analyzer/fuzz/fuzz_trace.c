/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: any bytes as a trace. A trace the reader accepts goes
 * through every stage and the trace.json export, so the stages are fuzzed
 * on inputs that look valid to them.
 */
#include <stddef.h>
#include <stdint.h>

#include "panlab/export_json.h"
#include "panlab/model.h"
#include "panlab/trace.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pl_trace trace;
	struct pl_error err;
	struct pl_model m;

	if (pl_trace_parse("fuzz.bin", data, size, &trace, &err) < 0)
		return 0;
	pl_model_build(&trace, &m);

	struct pl_analysis a = { .trace = &trace, .iv = &m.iv, .graph = &m.graph, .tx = &m.tx,
				 .cp = &m.cp, .bd = &m.bd, .te = &m.te };

	json_decref(pl_export_trace_json(&a));
	pl_model_free(&m);
	pl_trace_free(&trace);
	return 0;
}
