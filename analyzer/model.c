/* SPDX-License-Identifier: MIT */
/* The stage chain of panlab/model.h, in one place for every front end. */
#include "panlab/model.h"

void pl_model_build(const struct pl_trace *trace, struct pl_model *m)
{
	pl_intervals_build(trace, &m->iv);
	pl_graph_build(trace, &m->iv, &m->graph);
	pl_transactions_extract(trace, &m->iv, &m->graph, &m->tx);
	pl_display_attach(trace, &m->tx);
	pl_critical_paths_build(trace, &m->iv, &m->graph, &m->tx, &m->cp);
	pl_breakdowns_build(trace, &m->iv, &m->cp, &m->bd);
	pl_queueing_build(trace, &m->iv, &m->graph, &m->qs);
	pl_tasks_build(trace, &m->iv, &m->graph, &m->tasks);
	pl_diagnosis_build(&m->tasks, &m->diag);
	pl_aggregates_build(&m->tx, &m->cp, &m->ag);
	pl_top_edges_build(trace, &m->iv, &m->cp, &m->te);
}

void pl_model_free(struct pl_model *m)
{
	pl_top_edges_free(&m->te);
	pl_aggregates_free(&m->ag);
	pl_diagnosis_free(&m->diag);
	pl_tasks_free(&m->tasks);
	pl_queueing_free(&m->qs);
	pl_breakdowns_free(&m->bd);
	pl_critical_paths_free(&m->cp);
	pl_transactions_free(&m->tx);
	pl_graph_free(&m->graph);
	pl_intervals_free(&m->iv);
}
