/* SPDX-License-Identifier: MIT */
/* Reports: text table, summary.json (jansson, never by hand), transactions.csv. */
#include "panlab/report.h"

#include <errno.h>
#include <inttypes.h>
#include <string.h>

#define SUMMARY_SCHEMA "panlab-summary 1"

/* ns as milliseconds with three decimals ("-12.345"), exact in integers. */
static const char *ms(char *buf, size_t size, int64_t ns)
{
	uint64_t a = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;

	snprintf(buf, size, "%s%" PRIu64 ".%03" PRIu64, ns < 0 ? "-" : "",
		 a / 1000000, a / 1000 % 1000);
	return buf;
}

/* A thread's or an idle cpu's holder's name (pl_holder_name), in a buffer of the caller's. */
#define HOLDER_NAME_BYTES 64
static const char *thread_name(const struct pl_analysis *a, uint32_t tid, char *buf)
{
	return pl_holder_name(a->bd, a->iv, tid, buf, HOLDER_NAME_BYTES);
}

static const struct pl_transaction *row_tx(const struct pl_analysis *a, const struct pl_row *r)
{
	return r->tx == PL_NONE ? NULL : &a->tx->items[r->tx];
}

static void text_row(FILE *out, const struct pl_analysis *a, const struct pl_row *r)
{
	const struct pl_transaction *t = row_tx(a, r);
	/* Input times are shown from `ready` when the ground truth has one. */
	uint64_t base = a->gt->has_ready ? a->gt->ready_ns : 0;
	/* A row without a ground-truth input is an unmatched transaction: t is set. */
	uint64_t in_ns = r->input != PL_NONE ? r->truth_in_ns : t->input_ns;
	char id[24] = "-", in[32], det[32] = "-", truth[32] = "-", diff[32] = "-";
	char disp[32] = "-", pipe[32] = "-";

	if (t) {
		snprintf(id, sizeof(id), "%" PRIu64, r->tx);
		ms(det, sizeof(det), (int64_t)t->pixels.latency_ns);
		ms(disp, sizeof(disp), r->input_dispatch_ns);
		ms(pipe, sizeof(pipe), r->display_pipeline_ns);
	}
	if (r->has_truth)
		ms(truth, sizeof(truth), (int64_t)r->truth_latency_ns);
	if (t && r->has_truth)
		ms(diff, sizeof(diff), r->difference_ns);
	char input[24] = "-";

	if (r->input != PL_NONE)
		snprintf(input, sizeof(input), "%" PRIu64, r->input);
	else
		snprintf(input, sizeof(input), "(id %" PRIu64 ")", t->input_id);
	fprintf(out, "%6s %10s %12s %12s %12s %11s %12s %12s %7s\n", id, input,
		ms(in, sizeof(in), (int64_t)(in_ns - base)), det, truth, diff, disp, pipe,
		r->has_truth ? pl_gt_rule_name(r->rule) : "-");
}

static void text_stat(FILE *out, const char *label, const struct pl_stat *s)
{
	char mean[32], min[32], max[32];

	if (s->n == 0) {
		fprintf(out, "  %-26s -\n", label);
		return;
	}
	fprintf(out, "  %-26s mean %s ms, min %s ms, max %s ms\n", label,
		ms(mean, sizeof(mean), s->mean), ms(min, sizeof(min), s->min),
		ms(max, sizeof(max), s->max));
}

static void text_percentiles(FILE *out, const char *label, const struct pl_percentiles *p)
{
	char p50[32], p90[32], p99[32], max[32];

	if (p->n == 0) {
		fprintf(out, "  %-26s -\n", label);
		return;
	}
	fprintf(out, "  %-26s p50 %s ms, p90 %s ms, p99 %s ms, max %s ms\n", label,
		ms(p50, sizeof(p50), (int64_t)p->p50), ms(p90, sizeof(p90), (int64_t)p->p90),
		ms(p99, sizeof(p99), (int64_t)p->p99), ms(max, sizeof(max), (int64_t)p->max));
}

struct pl_analysis pl_analysis_of(const struct pl_model *m, const struct pl_trace *trace,
				  const struct pl_ground_truth *gt, const struct pl_validation *val,
				  const struct pl_energy *energy, const struct pl_symbols *symbols)
{
	return (struct pl_analysis){
		.trace = trace,
		.gt = gt,
		.iv = &m->iv,
		.graph = &m->graph,
		.tx = &m->tx,
		.cp = &m->cp,
		.bd = &m->bd,
		.qs = &m->qs,
		.ag = &m->ag,
		.te = &m->te,
		.val = val,
		.energy = energy,
		.tasks = &m->tasks,
		.diag = &m->diag,
		.symbols = symbols,
	};
}

void pl_report_text(FILE *out, const struct pl_analysis *a)
{
	const struct pl_validation *v = a->val;

	fprintf(out, "panlab-analyze: backend %s, workload %s, run %s\n", a->backend,
		a->workload, a->run_id);
	fprintf(out, "t_in_ms is the input time in ms since %s; diff = detected - truth\n",
		a->gt->has_ready ? "ground-truth `ready`" : "clock zero (no `ready` line)");
	fprintf(out, "%6s %10s %12s %12s %12s %11s %12s %12s %7s\n", "tx", "input", "t_in_ms",
		"detected_ms", "truth_ms", "diff_ms", "dispatch_ms", "display_ms", "match");
	for (uint64_t i = 0; i < v->nrows; i++)
		text_row(out, a, &v->rows[i]);
	fprintf(out, "summary:\n");
	fprintf(out, "  inputs %" PRIu64 ", transactions %" PRIu64 ", matched %" PRIu64,
		v->inputs, v->transactions, v->matched);
	if (v->true_negatives)
		fprintf(out, ", %" PRIu64 " rightly without (no frame)", v->true_negatives);
	if (v->has_precision)
		fprintf(out, ", precision %.3f", v->precision);
	if (v->has_recall)
		fprintf(out, ", recall %.3f", v->recall);
	fprintf(out, "\n");
	text_percentiles(out, "detected latency", &v->detected_latency_ns);
	text_percentiles(out, "ground-truth latency", &v->truth_latency_ns);
	text_stat(out, "latency error |det-truth|", &v->error_ns);
	text_stat(out, "difference det-truth", &v->difference_ns);
	text_stat(out, "input dispatch", &v->input_dispatch_ns);
	text_stat(out, "display pipeline", &v->display_pipeline_ns);
	text_stat(out, "  vsync queue", &v->vsync_queue_ns);
	text_stat(out, "  composition", &v->composition_ns);
	text_stat(out, "  flush", &v->flush_ns);
	fprintf(out, "  ground truth matched by marker %" PRIu64 ", by time window %" PRIu64
		"; frames with an unreadable marker %" PRIu64 "\n",
		v->rule_counts[PL_GT_RULE_MARKER], v->rule_counts[PL_GT_RULE_WINDOW],
		v->unreadable_frames);
	fprintf(out,
		"  detected latency runs from the kernel's delivery of the input (inputd) to the flush\n"
		"  that first showed its last update (compositor): input dispatch + critical path +\n"
		"  display pipeline\n");
	fprintf(out, "  critical-path time over all transactions (ms):");
	for (int c = 0; c < PL_CATEGORIES; c++) {
		char total[32];

		if (a->bd->total_ns[c])
			fprintf(out, " %s %s", pl_category_name(c),
				ms(total, sizeof(total), (int64_t)a->bd->total_ns[c]));
	}
	fprintf(out, "\n");
	for (uint32_t i = 0; i < a->bd->npreempters && i < 3; i++) {
		char pre[32], name[HOLDER_NAME_BYTES], tid[16] = "";
		uint32_t t = a->bd->preempter_tid[i];

		if (!PL_TID_IS_HOLDER(t))
			snprintf(tid, sizeof(tid), " (%" PRIu32 ")", t);
		fprintf(out, "%s %s%s %s ms", i ? "," : "  cpu held by", thread_name(a, t, name), tid,
			ms(pre, sizeof(pre), (int64_t)a->bd->preempted_ns[i]));
		if (i + 1 == a->bd->npreempters || i == 2)
			fprintf(out, "\n");
	}
	for (uint64_t i = 0; i < a->qs->count; i++) {
		const struct pl_queue_stats *q = &a->qs->queues[i];
		char wait[32], run[32];

		fprintf(out, "  %s %#" PRIx32 ": %" PRIu64 " items, threads %" PRIu32
			", max wait %s ms, max run %s ms%s\n",
			q->executor ? "executor" : "looper", q->id, q->items, q->threads,
			ms(wait, sizeof(wait), (int64_t)q->max_wait_ns),
			ms(run, sizeof(run), (int64_t)q->max_run_ns),
			q->flagged ? " (flagged: 500 ms or more)" : "");
	}
	if (a->diag)
		pl_report_diagnosis_text(out, a);
	for (uint64_t g = 0; g < a->ag->ngroups; g++) {
		const struct pl_shape_group *grp = &a->ag->groups[g];
		char mean[32], sd[32];

		fprintf(out, "  shape %s: %" PRIu64 " transactions, mean %s ms, sd %s ms, %" PRIu64
			" outliers above mean + 3 sd\n", grp->shape[0] ? grp->shape : "(same thread)",
			grp->transactions, ms(mean, sizeof(mean), (int64_t)grp->mean_latency_ns),
			ms(sd, sizeof(sd), (int64_t)grp->sd_latency_ns), grp->outliers);
	}
	for (uint64_t i = 0; a->te && i < a->te->count && i < 3; i++) {
		const struct pl_edge_total *e = &a->te->edges[i];
		char total[32], name[HOLDER_NAME_BYTES];

		fprintf(out, "  top critical-path edge %" PRIu64 ": %s %s (%" PRIu32 ")", i + 1,
			e->kind == PL_EDGE_TEMPORAL ? "work on" : pl_edge_kind_name(e->kind),
			thread_name(a, e->from_tid, name), e->from_tid);
		if (e->kind != PL_EDGE_TEMPORAL)
			fprintf(out, " -> %s (%" PRIu32 ")", thread_name(a, e->to_tid, name), e->to_tid);
		fprintf(out, ", %" PRIu64 " steps, %s ms\n", e->steps,
			ms(total, sizeof(total), (int64_t)e->total_ns));
	}
	if (a->expect) {
		fprintf(out, "  declared structure: %s (%" PRIu64 " inputs checked%s)\n",
			a->expect->ok ? "ok" : "FAILED", a->expect->checked,
			a->expect->count_ok ? "" : ", transaction count differs");
		for (uint64_t i = 0; i < a->expect->nfailed && i < 5; i++)
			if (a->expect->failed[i].input == PL_NONE)
				fprintf(out, "    diagnosis: %s\n", a->expect->failed[i].reason);
			else
				fprintf(out, "    input %" PRIu64 ": %s\n",
					a->expect->failed[i].input, a->expect->failed[i].reason);
	}
	if (a->tx->animations)
		fprintf(out, "  animations: %" PRIu64 " transactions draw chained frames (csv column"
			" animation); their latency is the animation's length\n", a->tx->animations);
	fprintf(out, "  critical paths: %" PRIu64 " of %" PRIu64
		" met a join, decided by taking the latest predecessor\n", a->cp->decided, a->cp->count);
	fprintf(out, "  events %" PRIu64 ", lost %" PRIu64 ", updates %" PRIu64
		", unattributed updates %" PRIu64 ", inputs without update %" PRIu64
		", ground-truth inputs without frame %" PRIu64 "\n",
		a->trace->nevents, a->trace->events_lost, a->tx->updates,
		a->tx->unattributed_updates, a->tx->inputs_without_update,
		v->inputs_without_frame);
	const char *inference = pl_transactions_inference(a->trace, a->tx);

	if (inference && strcmp(inference, "userspace"))
		fprintf(out, "  inference: %s: %" PRIu64 " of %" PRIu64 " kernel input presses were read"
			" by a process without userspace events (kernel_only.c)\n", inference,
			a->trace->kernel_only_inputs, a->trace->kernel_only_presses);
	if (a->trace->skew_repaired)
		fprintf(out, "  clock skew: %" PRIu64 " consumers were logged before their producer on"
			" another cpu and were moved after it\n", a->trace->skew_repaired);
	uint64_t pairs = 0, out_of_order = 0;

	for (int k = 0; k < PL_CAUSAL_KINDS; k++) {
		pairs += a->trace->causal.pairs[k];
		out_of_order += a->trace->causal.out_of_order[k];
	}
	fprintf(out, "  causal pairs: %" PRIu64 ", %" PRIu64 " with the consumer logged before its"
		" producer\n", pairs, out_of_order);
}

void pl_report_overhead_text(FILE *out, const struct pl_overhead *o, const char *on_name,
			     const char *off_name)
{
	char a[32], b[32], c[32];

	fprintf(out, "panlab-analyze overhead: traced run %s (%" PRIu64 " inputs), untraced run %s"
		" (%" PRIu64 " inputs), ground-truth latency T_in..T_out\n", on_name, o->inputs_on,
		off_name, o->inputs_off);
	fprintf(out, "%6s %12s %12s %12s\n", "input", "traced_ms", "untraced_ms", "overhead_ms");
	for (uint64_t i = 0; i < o->nrows; i++)
		fprintf(out, "%6" PRIu64 " %12s %12s %12s\n", o->rows[i].input,
			ms(a, sizeof(a), (int64_t)o->rows[i].on_ns),
			ms(b, sizeof(b), (int64_t)o->rows[i].off_ns),
			ms(c, sizeof(c), o->rows[i].overhead_ns));
	if (o->nrows == 0) {
		fprintf(out, "  no input has a frame in both runs: nothing to compare\n");
		return;
	}
	const struct { const char *name; const struct pl_overhead_stat *s; } stats[] = {
		{ "mean", &o->mean }, { "p50", &o->p50 }, { "p95", &o->p95 },
	};

	for (size_t i = 0; i < sizeof(stats) / sizeof(stats[0]); i++)
		fprintf(out, "  %-4s traced %s ms, untraced %s ms, overhead %s ms (%+.2f%%)\n",
			stats[i].name, ms(a, sizeof(a), (int64_t)stats[i].s->on_ns),
			ms(b, sizeof(b), (int64_t)stats[i].s->off_ns),
			ms(c, sizeof(c), stats[i].s->overhead_ns), stats[i].s->overhead_pct);
}

static json_t *stat_json(const struct pl_stat *s, int with_min)
{
	json_t *o = json_object();

	if (with_min)
		json_object_set_new(o, "min", s->n ? json_integer(s->min) : json_null());
	json_object_set_new(o, "max", s->n ? json_integer(s->max) : json_null());
	json_object_set_new(o, "mean", s->n ? json_integer(s->mean) : json_null());
	return o;
}

static json_t *count(uint64_t n)
{
	return json_integer((json_int_t)n);
}

static json_t *percentiles_json(const struct pl_percentiles *p)
{
	if (p->n == 0)
		return json_pack("{s:n, s:n, s:n, s:n, s:n}", "p50", "p90", "p95", "p99", "max");
	return json_pack("{s:o, s:o, s:o, s:o, s:o}", "p50", count(p->p50), "p90", count(p->p90),
			 "p95", count(p->p95), "p99", count(p->p99), "max", count(p->max));
}

static json_t *sources_json(const struct pl_trace *t)
{
	json_t *arr = json_array();

	for (uint32_t i = 0; i < t->nsources; i++) {
		const struct pl_source *s = &t->sources[i];

		json_array_append_new(arr, json_pack("{s:s, s:I, s:I, s:I}",
			"kind", s->kind == PL_SRC_KERNEL_CPU ? "kernel_cpu" : "user_thread",
			"id", (json_int_t)s->id, "events", (json_int_t)s->records,
			"lost", (json_int_t)s->lost));
	}
	return arr;
}

static json_t *model_json(const struct pl_analysis *a)
{
	json_t *edges = json_object();

	json_t *pairs = json_object(), *out_of_order = json_object(), *repaired = json_object();
	uint64_t total_out_of_order = 0;

	for (int k = PL_EDGE_MESSAGE; k < PL_EDGE_KINDS; k++)
		json_object_set_new(edges, pl_edge_kind_name(k), count(a->graph->by_kind[k]));
	for (int k = 0; k < PL_CAUSAL_KINDS; k++) {
		json_object_set_new(pairs, pl_causal_kind_name(k), count(a->trace->causal.pairs[k]));
		json_object_set_new(out_of_order, pl_causal_kind_name(k),
				    count(a->trace->causal.out_of_order[k]));
		json_object_set_new(repaired, pl_causal_kind_name(k),
				    count(a->trace->skew_repaired_by_kind[k]));
		total_out_of_order += a->trace->causal.out_of_order[k];
	}
	return json_pack("{s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			 "threads", count(a->iv->nthreads),
			 "intervals", count(a->iv->nintervals),
			 "edges", edges,
			 "orphan_interval_ends", count(a->iv->orphan_ends),
			 "unterminated_intervals", count(a->iv->unterminated),
			 "unmatched_dequeues", count(a->graph->unmatched_dequeues),
			 "unmatched_consumes", count(a->graph->unmatched_consumes),
			 "unmatched_binder_consumes", count(a->graph->unmatched_binder_consumes),
			 "notifies_without_interval", count(a->graph->notifies_without_interval),
			 "skew_repaired", count(a->trace->skew_repaired),
			 "skew_repaired_by_kind", repaired,
			 "causal_pairs", pairs,
			 "causal_pairs_out_of_order", count(total_out_of_order),
			 "causal_pairs_out_of_order_by_kind", out_of_order);
}

/*
 * Animations apart: their latency is the animation's length, so they are
 * listed with the time to their first frame, the response the user sees.
 */
static json_t *animations_json(const struct pl_transactions *tx)
{
	json_t *ids = json_array();
	uint64_t latency_ns = 0, first_ns = 0;

	for (uint64_t k = 0; k < tx->count; k++) {
		const struct pl_transaction *t = &tx->items[k];

		if (!t->animation)
			continue;
		json_array_append_new(ids, count(k));
		latency_ns += t->latency_ns;
		first_ns += t->first_update_ns - t->input_ns;
	}
	return json_pack("{s:o, s:o, s:o, s:o}", "count", count(tx->animations),
			 "transactions", ids,
			 "mean_latency_ns", tx->animations ? count(latency_ns / tx->animations)
							    : json_null(),
			 "mean_first_frame_ns", tx->animations ? count(first_ns / tx->animations)
								: json_null());
}

/* The graph-shape check against the declared structure, null without one. */
static json_t *expect_json(const struct pl_expect_result *r)
{
	json_t *failed = json_array();

	if (!r) {
		json_decref(failed);
		return json_null();
	}
	for (uint64_t i = 0; i < r->nfailed; i++)
		json_array_append_new(failed, json_pack("{s:o, s:s}", "input",
							r->failed[i].input == PL_NONE ?
								json_null() :
								count(r->failed[i].input),
							"reason", r->failed[i].reason));
	return json_pack("{s:o, s:o, s:b, s:o}", "checked", count(r->checked),
			 "transactions_declared", count(r->declared), "transactions_as_declared",
			 r->count_ok, "failed", failed);
}

#define TOP_EDGES 10

static json_t *top_edges_json(const struct pl_analysis *a)
{
	json_t *arr = json_array();

	for (uint64_t i = 0; i < a->te->count && i < TOP_EDGES; i++) {
		const struct pl_edge_total *e = &a->te->edges[i];
		char from[HOLDER_NAME_BYTES], to[HOLDER_NAME_BYTES];

		json_array_append_new(arr, json_pack("{s:s, s:I, s:s, s:I, s:s, s:o, s:o, s:o}",
			"kind", pl_edge_kind_name(e->kind),
			"from_tid", (json_int_t)e->from_tid, "from", thread_name(a, e->from_tid, from),
			"to_tid", (json_int_t)e->to_tid, "to", thread_name(a, e->to_tid, to),
			"steps", count(e->steps), "total_ns", count(e->total_ns),
			"max_ns", count(e->max_ns)));
	}
	return arr;
}

json_t *pl_report_validation_json(const struct pl_validation *v)
{
	json_t *o = json_object();

	json_object_set_new(o, "inputs", count(v->inputs));
	json_object_set_new(o, "transactions", count(v->transactions));
	json_object_set_new(o, "matched", count(v->matched));
	json_object_set_new(o, "true_positives", count(v->true_positives));
	json_object_set_new(o, "false_negatives", count(v->false_negatives));
	json_object_set_new(o, "true_negatives", count(v->true_negatives));
	json_object_set_new(o, "precision", v->has_precision ? json_real(v->precision) : json_null());
	json_object_set_new(o, "recall", v->has_recall ? json_real(v->recall) : json_null());
	json_object_set_new(o, "latency_error_ns", stat_json(&v->error_ns, 0));
	json_object_set_new(o, "latency_difference_ns", stat_json(&v->difference_ns, 1));
	json_object_set_new(o, "input_dispatch_ns", stat_json(&v->input_dispatch_ns, 1));
	json_object_set_new(o, "display_pipeline_ns", stat_json(&v->display_pipeline_ns, 1));
	json_object_set_new(o, "vsync_queue_ns", stat_json(&v->vsync_queue_ns, 1));
	json_object_set_new(o, "composition_ns", stat_json(&v->composition_ns, 1));
	json_object_set_new(o, "flush_ns", stat_json(&v->flush_ns, 1));
	json_object_set_new(o, "match_rule_counts", json_pack("{s:o, s:o}",
		"marker", count(v->rule_counts[PL_GT_RULE_MARKER]),
		"window", count(v->rule_counts[PL_GT_RULE_WINDOW])));
	json_object_set_new(o, "unreadable_frames", count(v->unreadable_frames));
	json_object_set_new(o, "detected_latency_ns", percentiles_json(&v->detected_latency_ns));
	json_object_set_new(o, "truth_latency_ns", percentiles_json(&v->truth_latency_ns));
	json_object_set_new(o, "inputs_without_frame", count(v->inputs_without_frame));
	return o;
}

static json_t *mj(uint64_t pj)
{
	return json_real((double)pj / 1e9);
}

/* Energy of the run and per transaction (mJ), and each core's frequency residency. */
static json_t *energy_json(const struct pl_analysis *a)
{
	const struct pl_energy *e = a->energy;
	json_t *o = json_object(), *cores = json_object(), *tx = json_array();
	uint64_t window = e->end_ns - e->start_ns;

	json_object_set_new(o, "model", json_string(e->model->name));
	json_object_set_new(o, "window_ns", count(window));
	json_object_set_new(o, "energy_mj", mj(e->energy_pj));
	json_object_set_new(o, "cpu_energy_mj", mj(e->cpu_energy_pj));
	json_object_set_new(o, "mean_power_mw",
			    window ? json_real((double)e->energy_pj / (double)window) : json_null());
	for (uint64_t k = 0; k < e->count; k++)
		json_array_append_new(tx, mj(e->tx_energy_pj[k]));
	json_object_set_new(o, "transaction_energy_mj", tx);
	for (uint32_t c = 0; c < e->ncpus; c++) {
		const struct pl_core_energy *core = &e->cores[c];
		json_t *res = json_object(), *co = json_object();
		char name[16];

		for (uint32_t i = 0; i < core->nfreqs; i++) {
			char khz[16];

			snprintf(khz, sizeof(khz), "%" PRIu32, core->by_freq[i].khz);
			json_object_set_new(res, khz, json_pack("{s:o, s:o}",
				"busy_ns", count(core->by_freq[i].busy_ns),
				"idle_ns", count(core->by_freq[i].idle_ns)));
		}
		json_object_set_new(co, "residency_by_khz", res);
		json_object_set_new(co, "offline_ns", count(core->offline_ns));
		json_object_set_new(co, "assumed_frequency_ns", count(core->assumed_freq_ns));
		json_object_set_new(co, "frequency_changes", count(core->freq_changes));
		json_object_set_new(co, "energy_mj", mj(core->energy_pj));
		snprintf(name, sizeof(name), "cpu%" PRIu32, c);
		json_object_set_new(cores, name, co);
	}
	json_object_set_new(o, "cores", cores);
	return o;
}

/* A transaction's (or all transactions') counts, as pl_counts says; null where unknown. */
static json_t *counts_of(const struct pl_counts *c, int counted)
{
	return json_pack("{s:o, s:o, s:o, s:o}", "instructions",
			 counted ? count(c->instructions) : json_null(), "counted_ns",
			 count(c->counted_ns), "cycles",
			 c->clocked_ns ? count(c->khz_ns / 1000000) : json_null(), "clocked_ns",
			 count(c->clocked_ns));
}

/*
 * What the critical paths' running time executed: instructions (SWITCH_COUNTS) and cycles (time
 * x frequency), in total and per transaction; instructions_modes says what the trace's version
 * counted: "user" (version 6 on) or "all" (user and kernel, versions 3 to 5).
 */
static json_t *counts_json(const struct pl_analysis *a)
{
	struct pl_counts all = { 0 };
	json_t *per_tx = json_array();

	for (uint64_t k = 0; k < a->tx->count; k++) {
		const struct pl_counts *c = &a->bd->tx_counts[k];

		all.instructions += c->instructions;
		all.counted_ns += c->counted_ns;
		all.khz_ns += c->khz_ns;
		all.clocked_ns += c->clocked_ns;
		json_array_append_new(per_tx, counts_of(c, a->bd->counted));
	}
	json_t *o = counts_of(&all, a->bd->counted);

	json_object_set_new(o, "instructions_modes",
			    !a->bd->counted	   ? json_null() :
			    a->trace->version >= 6 ? json_string("user") :
						     json_string("all"));
	json_object_set_new(o, "transactions", per_tx);
	return o;
}

json_t *pl_report_summary(const struct pl_analysis *a)
{
	const struct pl_validation *v = a->val;
	const char *inference = pl_transactions_inference(a->trace, a->tx);
	json_t *o = json_object();

	json_object_set_new(o, "schema", json_string(SUMMARY_SCHEMA));
	json_object_set_new(o, "backend", json_string(a->backend));
	json_object_set_new(o, "workload", json_string(a->workload));
	json_object_set_new(o, "run_id", json_string(a->run_id));
	json_object_set_new(o, "inference", inference ? json_string(inference) : json_null());
	json_object_update_new(o, pl_report_validation_json(v));
	json_object_set_new(o, "inputs_without_update", count(a->tx->inputs_without_update));
	json_object_set_new(o, "updates", count(a->tx->updates));
	json_object_set_new(o, "unattributed_updates", count(a->tx->unattributed_updates));
	json_object_set_new(o, "events", count(a->trace->nevents));
	json_object_set_new(o, "events_lost", count(a->trace->events_lost));
	json_object_set_new(o, "sources", sources_json(a->trace));
	/* Share of transactions whose critical path met a join, decided by the latest predecessor. */
	json_object_set_new(o, "critical_path", json_pack("{s:o, s:o}",
		"transactions_with_joins", count(a->cp->decided),
		"tie_break_share", a->cp->count ? json_real((double)a->cp->decided /
							    (double)a->cp->count) : json_null()));
	/* Critical-path time per category over all transactions: sums to their total latency. */
	json_t *bd = json_object();

	for (int c = 0; c < PL_CATEGORIES; c++)
		json_object_set_new(bd, pl_category_name(c), count(a->bd->total_ns[c]));
	/*
	 * The trace's segments around the critical paths, over all transactions:
	 * with them, the parts sum to the detected latency (input to pixels).
	 */
	uint64_t dispatch_ns = 0, vsync_ns = 0, compose_ns = 0, flush_ns = 0;

	for (uint64_t k = 0; k < a->tx->count; k++) {
		const struct pl_pixels *p = &a->tx->items[k].pixels;

		dispatch_ns += p->input_dispatch_ns;
		vsync_ns += p->vsync_queue_ns;
		compose_ns += p->composition_ns;
		flush_ns += p->flush_ns;
	}
	json_object_set_new(bd, "input_dispatch", count(dispatch_ns));
	json_object_set_new(bd, "vsync_queue", count(vsync_ns));
	json_object_set_new(bd, "composition", count(compose_ns));
	json_object_set_new(bd, "flush", count(flush_ns));
	json_object_set_new(bd, "display_pipeline", count(vsync_ns + compose_ns + flush_ns));
	json_object_set_new(o, "breakdown_ns", bd);
	json_t *pre = json_array();

	for (uint32_t i = 0; i < a->bd->npreempters; i++) {
		char name[HOLDER_NAME_BYTES];

		json_array_append_new(pre, json_pack("{s:I, s:s, s:o}",
			"tid", (json_int_t)a->bd->preempter_tid[i],
			"name", thread_name(a, a->bd->preempter_tid[i], name),
			"ns", count(a->bd->preempted_ns[i])));
	}
	json_object_set_new(o, "preempted_by", pre);
	json_t *by_freq = json_object();

	for (uint32_t i = 0; i < a->bd->nfreqs; i++) {
		char khz[16];

		snprintf(khz, sizeof(khz), "%" PRIu32, a->bd->freq_khz[i]);
		json_object_set_new(by_freq, khz, count(a->bd->running_ns_by_freq[i]));
	}
	json_object_set_new(o, "running_ns_by_khz", by_freq);
	json_object_set_new(o, "critical_path_counts", counts_json(a));
	json_t *queues = json_array();

	for (uint64_t i = 0; i < a->qs->count; i++) {
		const struct pl_queue_stats *q = &a->qs->queues[i];

		json_array_append_new(queues, json_pack("{s:s, s:I, s:o, s:o, s:o, s:o, s:o, s:o, s:b}",
			"kind", q->executor ? "executor" : "looper", "id", (json_int_t)q->id,
			"items", count(q->items), "threads", count(q->threads),
			"max_wait_ns", count(q->max_wait_ns),
			"mean_wait_ns", count(q->total_wait_ns / q->items),
			"max_run_ns", count(q->max_run_ns),
			"mean_run_ns", count(q->total_run_ns / q->items),
			"flagged", q->flagged));
	}
	json_object_set_new(o, "queues", queues);
	if (a->diag)
		json_object_set_new(o, "diagnosis", pl_report_diagnosis_json(a));
	json_t *shapes = json_array();

	for (uint64_t g = 0; g < a->ag->ngroups; g++) {
		const struct pl_shape_group *grp = &a->ag->groups[g];
		json_t *outliers = json_array();

		for (uint64_t k = 0; k < a->tx->count; k++)
			if (a->ag->group_of[k] == g && a->ag->outlier[k])
				json_array_append_new(outliers, count(k));
		json_array_append_new(shapes, json_pack("{s:s, s:o, s:o, s:o, s:o}",
			"critical_path", grp->shape, "transactions", count(grp->transactions),
			"mean_latency_ns", count(grp->mean_latency_ns),
			"sd_latency_ns", count(grp->sd_latency_ns), "outliers", outliers));
	}
	json_object_set_new(o, "shapes", shapes);
	json_object_set_new(o, "queues_flagged", count(a->qs->flagged));
	json_object_set_new(o, "animation_transactions", animations_json(a->tx));
	json_object_set_new(o, "shape_ok", a->expect ? json_boolean(a->expect->ok) : json_null());
	json_object_set_new(o, "expect", expect_json(a->expect));
	if (a->te)
		json_object_set_new(o, "top_critical_path_edges", top_edges_json(a));
	json_object_set_new(o, "model", model_json(a));
	if (a->energy)
		json_object_set_new(o, "energy", energy_json(a));
	return o;
}

int pl_report_write_summary(const struct pl_analysis *a, const char *path,
			    struct pl_error *err)
{
	json_t *o = pl_report_summary(a);
	FILE *f = fopen(path, "w");
	int ok = f != NULL;

	/* 12 significant digits: stable text for ratios such as 19/20. */
	if (ok)
		ok = json_dumpf(o, f, JSON_INDENT(2) | JSON_REAL_PRECISION(12)) == 0 &&
		     fputc('\n', f) != EOF;
	if (f)
		ok = (fclose(f) == 0) && ok;
	json_decref(o);
	if (!ok) {
		pl_error_file(err, path, "cannot write: %s", strerror(errno));
		return -1;
	}
	return 0;
}

/* Appends ",value" or "," for an absent value. */
static void csv_u64(FILE *f, int present, uint64_t v)
{
	if (present)
		fprintf(f, ",%" PRIu64, v);
	else
		fputc(',', f);
}

static void csv_i64(FILE *f, int present, int64_t v)
{
	if (present)
		fprintf(f, ",%" PRId64, v);
	else
		fputc(',', f);
}

int pl_report_write_csv(const struct pl_analysis *a, const char *path, struct pl_error *err)
{
	FILE *f = fopen(path, "w");

	if (!f) {
		pl_error_file(err, path, "cannot write: %s", strerror(errno));
		return -1;
	}
	fprintf(f, "transaction_id,input_id,input_ns,last_update_ns,detected_latency_ns,"
		   "truth_input_ns,truth_output_ns,truth_latency_ns,difference_ns,"
		   "match_rule,delivered_ns,shown_ns,input_dispatch_ns,display_pipeline_ns,"
		   "vsync_queue_ns,composition_ns,flush_ns,updates,first_update_ns,chained_frames,"
		   "animation,intervals,threads");
	for (int c = 0; c < PL_CATEGORIES; c++)
		fprintf(f, ",%s_ns", pl_category_name(c));
	fprintf(f,
		",running_ns_by_khz,top_preempter_tid,outlier,energy_mj,"
		"critical_path_instructions,critical_path_cycles,critical_path_mhz,critical_path\n");
	for (uint64_t i = 0; i < a->val->nrows; i++) {
		const struct pl_row *r = &a->val->rows[i];
		const struct pl_transaction *t = row_tx(a, r);
		int both = t && r->has_truth;

		if (t)
			fprintf(f, "%" PRIu64, r->tx);
		csv_u64(f, 1, r->input != PL_NONE ? r->input : t->input_id);	/* as in text_row */
		csv_u64(f, t != NULL, t ? t->input_ns : 0);
		csv_u64(f, t != NULL, t ? t->end_ns : 0);
		csv_u64(f, t != NULL, t ? t->pixels.latency_ns : 0);
		csv_u64(f, r->input != PL_NONE, r->truth_in_ns);
		csv_u64(f, r->has_truth, r->truth_out_ns);
		csv_u64(f, r->has_truth, r->truth_latency_ns);
		csv_i64(f, both, r->difference_ns);
		fprintf(f, ",%s", r->has_truth ? pl_gt_rule_name(r->rule) : "");
		csv_u64(f, t != NULL, t ? t->pixels.delivered_ns : 0);
		csv_u64(f, t != NULL, t ? t->pixels.shown_ns : 0);
		csv_i64(f, t != NULL, r->input_dispatch_ns);
		csv_i64(f, t != NULL, r->display_pipeline_ns);
		csv_u64(f, t != NULL, t ? t->pixels.vsync_queue_ns : 0);
		csv_u64(f, t != NULL, t ? t->pixels.composition_ns : 0);
		csv_u64(f, t != NULL, t ? t->pixels.flush_ns : 0);
		csv_u64(f, t != NULL, t ? t->nupdates : 0);
		csv_u64(f, t != NULL, t ? t->first_update_ns : 0);
		csv_u64(f, t != NULL, t ? t->chained_frames : 0);
		csv_u64(f, t != NULL, t ? (uint64_t)t->animation : 0);
		csv_u64(f, t != NULL, t ? t->nintervals : 0);
		csv_u64(f, t != NULL, t ? t->nthreads : 0);
		for (int c = 0; c < PL_CATEGORIES; c++)
			csv_u64(f, t != NULL, t ? a->bd->ns[r->tx][c] : 0);
		/* "kHz:ns" pairs separated by spaces, ascending kHz: no comma, no quoting. */
		fputc(',', f);
		for (uint64_t i = t ? a->bd->tx_freq_first[r->tx] : 0;
		     t && i < a->bd->tx_freq_first[r->tx + 1]; i++)
			fprintf(f, "%s%" PRIu32 ":%" PRIu64, i > a->bd->tx_freq_first[r->tx] ? " " : "",
				a->bd->tx_freq_khz[i], a->bd->tx_running_ns[i]);
		csv_u64(f, t && a->bd->top_preempter_tid[r->tx], t ? a->bd->top_preempter_tid[r->tx] : 0);
		csv_u64(f, t != NULL, t ? a->ag->outlier[r->tx] : 0);
		fputc(',', f);
		if (t && a->energy)
			fprintf(f, "%.6f", (double)a->energy->tx_energy_pj[r->tx] / 1e9);
		const struct pl_counts *n = t ? &a->bd->tx_counts[r->tx] : NULL;

		csv_u64(f, n && a->bd->counted, n ? n->instructions : 0);
		csv_u64(f, n && n->clocked_ns, n ? n->khz_ns / 1000000 : 0);
		fputc(',', f);
		if (n && n->clocked_ns)
			fprintf(f, "%.1f", pl_counts_mhz(n));
		char shape[256] = "";

		/* Edge kind names hold no comma or quote, so the field needs no quoting. */
		fprintf(f, ",%s\n", t ? pl_critical_path_shape(a->cp, r->tx, shape, sizeof(shape)) : "");
	}
	int bad = ferror(f);

	if (fclose(f) != 0 || bad) {
		pl_error_file(err, path, "cannot write: %s", strerror(errno));
		return -1;
	}
	return 0;
}
