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
	struct pl_intervals iv;
	struct pl_graph graph;
	struct pl_transactions tx;
	struct pl_critical_paths cp;
	struct pl_breakdowns bd;
	struct pl_queueing qs;
	struct pl_aggregates ag;
	struct pl_top_edges te;

	if (pl_trace_parse("fuzz.bin", data, size, &trace, &err) < 0)
		return 0;
	pl_intervals_build(&trace, &iv);
	pl_graph_build(&trace, &iv, &graph);
	pl_transactions_extract(&trace, &iv, &graph, &tx);
	pl_critical_paths_build(&trace, &iv, &graph, &tx, &cp);
	pl_breakdowns_build(&trace, &iv, &cp, &bd);
	pl_queueing_build(&trace, &iv, &graph, &qs);
	pl_aggregates_build(&tx, &cp, &ag);
	pl_top_edges_build(&trace, &iv, &cp, &te);

	struct pl_analysis a = { .trace = &trace, .iv = &iv, .graph = &graph, .tx = &tx,
				 .cp = &cp, .bd = &bd, .te = &te };

	json_decref(pl_export_trace_json(&a));
	pl_top_edges_free(&te);
	pl_aggregates_free(&ag);
	pl_queueing_free(&qs);
	pl_breakdowns_free(&bd);
	pl_critical_paths_free(&cp);
	pl_transactions_free(&tx);
	pl_graph_free(&graph);
	pl_intervals_free(&iv);
	pl_trace_free(&trace);
	return 0;
}
