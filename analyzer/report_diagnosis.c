/* SPDX-License-Identifier: MIT */
/*
 * The diagnosis section of the reports, worded as DiagDroid's report (FSE 2016, Fig. 5): per
 * suspicious group its context, max queuing time, pool capacity, the cases of queuing time at
 * or past 500 ms with their average queue length and the average execution time of the tasks
 * in the queue, and the contexts those tasks came from (the runtime dependency).
 */
#include "panlab/report.h"

#include <inttypes.h>

/* ns as ms with two decimals, exact in integers. */
static const char *ms2(char *buf, size_t size, uint64_t ns)
{
	snprintf(buf, size, "%" PRIu64 ".%02" PRIu64, ns / 1000000, ns / 10000 % 100);
	return buf;
}

/* sum / n with two decimals, rounded down. */
static const char *avg2(char *buf, size_t size, uint64_t sum, uint64_t n)
{
	uint64_t hundredths = n ? sum * 100 / n : 0;

	snprintf(buf, size, "%" PRIu64 ".%02" PRIu64, hundredths / 100, hundredths % 100);
	return buf;
}

static void text_context(FILE *out, const struct pl_analysis *a, uint64_t c)
{
	const struct pl_context *ctx = &a->tasks->contexts[c];

	fprintf(out, "c%" PRIu64 " [", c);
	for (uint32_t f = 0; f < ctx->nframes; f++)
		fprintf(out, "%s%s", f ? " < " : "", pl_symbols_frame(a->symbols, c, f));
	fputc(']', out);
}

void pl_report_diagnosis_text(FILE *out, const struct pl_analysis *a)
{
	const struct pl_diagnosis *d = a->diag;
	char b1[32], b2[32];

	fprintf(out,
		"  diagnosis (DiagDroid): %" PRIu64 " tasks, %" PRIu64 " contexts in %" PRIu64
		" groups (edit distance <= %u), %" PRIu64 " suspicious (M_q or M_e >= 500 ms)%s\n",
		a->tasks->count, a->tasks->ncontexts, d->ngroups, PL_DIAG_MAX_DISTANCE,
		d->suspicious,
		a->tasks->without_context ? "; tasks without a context (trace version 1) left out" :
					    "");
	for (uint64_t gi = 0; gi < d->ngroups && d->groups[gi].suspicious; gi++) {
		const struct pl_diag_group *g = &d->groups[gi];

		fprintf(out, "  %" PRIu64 ". asynchronous tasks with context ", gi + 1);
		text_context(out, a, g->context);
		fprintf(out, " (%" PRIu64 " tasks, %" PRIu64 " contexts)\n", g->tasks,
			g->ncontexts);
		fprintf(out,
			"     max queuing time: %s ms, max execution time: %s ms, pool capacity: %" PRIu32
			"\n",
			ms2(b1, sizeof(b1), g->max_queuing_ns),
			ms2(b2, sizeof(b2), g->max_execution_ns), g->capacity);
		fprintf(out, "     cases of queuing time >= 500 ms: %" PRIu64, g->long_waits);
		if (g->long_waits)
			fprintf(out,
				", avg. queue length: %s, avg. execution time of the in-queue"
				" tasks: %s ms",
				avg2(b1, sizeof(b1), g->queue_length_sum, g->long_waits),
				ms2(b2, sizeof(b2),
				    g->in_queue_tasks ?
					    g->in_queue_execution_ns / g->in_queue_tasks :
					    0));
		fputc('\n', out);
		for (uint64_t k = 0; k < g->ncauses; k++) {
			const struct pl_diag_cause *c = &d->causes[g->first_cause + k];

			fprintf(out, "     runtime dependency: group %" PRIu64 ", ", c->group + 1);
			text_context(out, a, d->groups[c->group].context);
			fprintf(out, ", %" PRIu64 " in-queue tasks, %s ms\n", c->tasks,
				ms2(b1, sizeof(b1), c->execution_ns));
		}
	}
}

static json_t *context_json(const struct pl_analysis *a, uint64_t c)
{
	const struct pl_context *ctx = &a->tasks->contexts[c];
	json_t *frames = json_array();

	for (uint32_t f = 0; f < ctx->nframes; f++)
		json_array_append_new(frames, json_string(pl_symbols_frame(a->symbols, c, f)));
	return json_pack("{s:I, s:I, s:o, s:s?}", "id", (json_int_t)c, "pid", (json_int_t)ctx->tgid,
			 "frames", frames, "binary", a->symbols->binaries[c]);
}

json_t *pl_report_diagnosis_json(const struct pl_analysis *a)
{
	const struct pl_diagnosis *d = a->diag;
	json_t *ranked = json_array();

	for (uint64_t gi = 0; gi < d->ngroups && d->groups[gi].suspicious; gi++) {
		const struct pl_diag_group *g = &d->groups[gi];
		json_t *deps = json_array();

		for (uint64_t k = 0; k < g->ncauses; k++) {
			const struct pl_diag_cause *c = &d->causes[g->first_cause + k];

			json_array_append_new(
				deps,
				json_pack("{s:I, s:o, s:I, s:I}", "group", (json_int_t)c->group + 1,
					  "context", context_json(a, d->groups[c->group].context),
					  "in_queue_tasks", (json_int_t)c->tasks, "execution_ns",
					  (json_int_t)c->execution_ns));
		}
		json_array_append_new(
			ranked,
			json_pack("{s:I, s:o, s:I, s:I, s:I, s:I, s:I, s:I, s:f, s:I, s:I, s:o}",
				  "rank", (json_int_t)gi + 1, "context",
				  context_json(a, g->context), "contexts", (json_int_t)g->ncontexts,
				  "tasks", (json_int_t)g->tasks, "max_queuing_ns",
				  (json_int_t)g->max_queuing_ns, "max_execution_ns",
				  (json_int_t)g->max_execution_ns, "pool_capacity",
				  (json_int_t)g->capacity, "long_waits", (json_int_t)g->long_waits,
				  "avg_queue_length",
				  g->long_waits ?
					  (double)g->queue_length_sum / (double)g->long_waits :
					  0.0,
				  "in_queue_tasks", (json_int_t)g->in_queue_tasks,
				  "avg_in_queue_execution_ns",
				  (json_int_t)(g->in_queue_tasks ? g->in_queue_execution_ns /
									   g->in_queue_tasks :
								   0),
				  "runtime_dependency", deps));
	}
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:o}", "threshold_ns",
			 (json_int_t)PL_DIAG_THRESHOLD_NS, "max_edit_distance",
			 (json_int_t)PL_DIAG_MAX_DISTANCE, "tasks", (json_int_t)a->tasks->count,
			 "tasks_without_context", (json_int_t)a->tasks->without_context, "contexts",
			 (json_int_t)a->tasks->ncontexts, "groups", (json_int_t)d->ngroups,
			 "suspicious", (json_int_t)d->suspicious, "ranked", ranked);
}
