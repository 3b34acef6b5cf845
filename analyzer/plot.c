/* SPDX-License-Identifier: MIT */
/* Plots: gnuplot scripts with inline data, one gnuplot process per plot. */
#include "panlab/plot.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "panlab/error.h"

#define GNUPLOT "gnuplot"
/* noenhanced: category names hold underscores, which would become subscripts. */
#define TERMINAL "set terminal svg size 900,520 dynamic font 'sans,11' background '#ffffff'\n" \
		 "set termoption noenhanced\n"

/* Is gnuplot on PATH? Looked up first so that a missing one is a message, not a broken pipe. */
static int have_gnuplot(void)
{
	const char *path = getenv("PATH");
	char buf[4096];

	while (path && *path) {
		size_t n = strcspn(path, ":");

		snprintf(buf, sizeof(buf), "%.*s/" GNUPLOT, (int)n, path);
		if (n && access(buf, X_OK) == 0)
			return 1;
		path += n + (path[n] == ':');
	}
	return 0;
}

/*
 * Opens gnuplot with its output set to dir/name. The path is quoted for
 * gnuplot, so a quote or newline in it is refused.
 */
static FILE *open_plot(const char *dir, const char *name, char *path, size_t size,
		       struct pl_error *err)
{
	snprintf(path, size, "%s/%s", dir, name);
	if (strpbrk(path, "'\n")) {
		pl_error_file(err, path, "cannot plot: a quote or newline in the path");
		return NULL;
	}
	FILE *gp = popen(GNUPLOT, "w");

	if (!gp) {
		pl_error_file(err, path, "cannot run " GNUPLOT ": %s", strerror(errno));
		return NULL;
	}
	fprintf(gp, TERMINAL "set output '%s'\n", path);
	return gp;
}

/* Whether path is a regular file ending in the SVG end tag (and blank lines). */
static int svg_complete(const char *path)
{
	static const char end[] = "</svg>";
	char tail[64];
	FILE *f = fopen(path, "rb");
	struct stat st;
	int ok = 0;

	if (f && fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_size >= (off_t)sizeof(tail) && fseeko(f, -(off_t)sizeof(tail), SEEK_END) == 0 &&
	    fread(tail, 1, sizeof(tail), f) == sizeof(tail)) {
		size_t n = sizeof(tail);

		while (n && (tail[n - 1] == '\n' || tail[n - 1] == '\r'))
			n--;
		ok = n >= sizeof(end) - 1 && !memcmp(tail + n - (sizeof(end) - 1), end, sizeof(end) - 1);
	}
	if (f)
		fclose(f);
	return ok;
}

static int close_plot(FILE *gp, const char *path, struct pl_error *err)
{
	int status = pclose(gp);

	if (status == -1 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		pl_error_file(err, path, GNUPLOT " failed (status %d)", status);
		return -1;
	}
	/* gnuplot exits 0 even when it could not write the file (a full disk). */
	if (!svg_complete(path)) {
		pl_error_file(err, path, "cannot write: " GNUPLOT " left no complete SVG (disk full?)");
		return -1;
	}
	return 0;
}

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Inline data block $name: sorted latencies in ms and their cumulative share. */
static void cdf_block(FILE *gp, const char *name, uint64_t *v, uint64_t n)
{
	qsort(v, n, sizeof(*v), cmp_u64);
	fprintf(gp, "$%s << EOD\n", name);
	for (uint64_t i = 0; i < n; i++)
		fprintf(gp, "%.6f %.6f\n", ms(v[i]), (double)(i + 1) / (double)n);
	fprintf(gp, "EOD\n");
}

static int plot_cdf(const struct pl_analysis *a, const char *dir, struct pl_error *err)
{
	char path[4096];
	uint64_t *det = pl_xcalloc(a->tx->count + 1, sizeof(*det));
	uint64_t *truth = pl_xcalloc(a->val->nrows + 1, sizeof(*truth)), nt = 0;

	for (uint64_t k = 0; k < a->tx->count; k++)
		det[k] = a->tx->items[k].pixels.latency_ns;
	for (uint64_t i = 0; i < a->val->nrows; i++)
		if (a->val->rows[i].has_truth)
			truth[nt++] = a->val->rows[i].truth_latency_ns;
	/* An empty series has nothing to draw (an untraced run detects no transaction). */
	FILE *gp = a->tx->count || nt ? open_plot(dir, "latency_cdf.svg", path, sizeof(path), err)
				     : NULL;
	int rc = a->tx->count || nt ? -1 : 0;

	if (gp) {
		cdf_block(gp, "detected", det, a->tx->count);
		cdf_block(gp, "truth", truth, nt);
		fprintf(gp, "set title 'Latency CDF: %s on %s (%s)'\n"
			    "set xlabel 'latency (ms)'\nset ylabel 'share of transactions'\n"
			    "set yrange [0:1.02]\nset key bottom right\nset grid\nplot ",
			a->workload, a->backend, a->run_id);
		if (a->tx->count)
			fprintf(gp, "$detected using 1:2 with steps lw 2"
				    " title 'detected (UI_INPUT..UI_UPDATE)'%s", nt ? ", " : "");
		if (nt)
			fprintf(gp, "$truth using 1:2 with steps lw 2 title 'ground truth (T_in..T_out)'");
		fprintf(gp, "\n");
		rc = close_plot(gp, path, err);
	}
	free(det);
	free(truth);
	return rc;
}

static int plot_breakdown(const struct pl_analysis *a, const char *dir, struct pl_error *err)
{
	char path[4096];
	int used[PL_CATEGORIES] = { 0 }, nused = 0;

	if (a->tx->count == 0)
		return 0;
	for (int c = 0; c < PL_CATEGORIES; c++)
		if (a->bd->total_ns[c])
			used[c] = ++nused;
	FILE *gp = open_plot(dir, "breakdown.svg", path, sizeof(path), err);

	if (!gp)
		return -1;
	/* Rows: transaction id, dispatch, used categories, display pipeline. */
	fprintf(gp, "$rows << EOD\n");
	for (uint64_t i = 0; i < a->val->nrows; i++) {
		const struct pl_row *r = &a->val->rows[i];

		if (r->tx == PL_NONE)
			continue;
		fprintf(gp, "%" PRIu64 " %.6f", r->tx, (double)r->input_dispatch_ns / 1e6);
		for (int c = 0; c < PL_CATEGORIES; c++)
			if (used[c])
				fprintf(gp, " %.6f", ms(a->bd->ns[r->tx][c]));
		fprintf(gp, " %.6f\n", (double)r->display_pipeline_ns / 1e6);
	}
	fprintf(gp,
		"EOD\n"
		"set title 'Critical-path breakdown per transaction: %s on %s (%s)'\n"
		"set style data histograms\nset style histogram rowstacked\n"
		"set style fill solid 0.85 border -1\nset boxwidth 0.8\n"
		"set xlabel 'transaction'\nset ylabel 'ms'\nset key outside right\n"
		"set grid ytics\n"
		"plot $rows using 2:xtic(1) title 'input dispatch (trace)'",
		a->workload, a->backend, a->run_id);
	for (int c = 0, col = 3; c < PL_CATEGORIES; c++)
		if (used[c])
			fprintf(gp, ", '' using %d title '%s'", col++, pl_category_name(c));
	fprintf(gp, ", '' using %d title 'display pipeline (trace)'\n", nused + 3);
	return close_plot(gp, path, err);
}

/* The slowest transaction that is no animation (an animation's length says little), else the slowest. */
static uint64_t pick_transaction(const struct pl_transactions *tx)
{
	uint64_t best = PL_NONE;

	for (int pass = 0; pass < 2 && best == PL_NONE; pass++)
		for (uint64_t k = 0; k < tx->count; k++)
			if ((pass || !tx->items[k].animation) &&
			    (best == PL_NONE ||
			     tx->items[k].pixels.latency_ns > tx->items[best].pixels.latency_ns))
				best = k;
	return best;
}

/*
 * cpu 0's frequency from t0 to end (the one in force at t0, then each change) as the gnuplot
 * block $freq in ms since t0 and MHz, with its right-hand axis. 0 if the trace logs none (qemu).
 */
static int freq_track(FILE *gp, const struct pl_trace *trace, uint64_t t0, uint64_t end)
{
	uint64_t khz = 0;
	int points = 0;

	for (uint64_t e = 0; e < trace->nevents && trace->events[e].ts_ns <= end; e++) {
		const struct pl_event *ev = &trace->events[e];

		if (ev->type != PL_EV_CPU_FREQUENCY || ev->a1 != 0)
			continue;
		if (ev->ts_ns > t0) {
			if (!points++)
				fprintf(gp, "$freq << EOD\n");
			/* The frequency in force when the transaction began, if one was logged. */
			if (points == 1 && khz)
				fprintf(gp, "0 %.3f\n", (double)khz / 1e3);
			fprintf(gp, "%.6f %.3f\n", ms(ev->ts_ns - t0), (double)ev->a0 / 1e3);
		}
		khz = ev->a0;
	}
	if (!khz)
		return 0;
	if (!points)
		fprintf(gp, "$freq << EOD\n0 %.3f\n", (double)khz / 1e3);
	fprintf(gp, "%.6f %.3f\nEOD\nset y2label 'MHz'\nset y2range [0:1400]\nset y2tics\n",
		ms(end - t0), (double)khz / 1e3);
	return 1;
}

static int plot_timeline(const struct pl_analysis *a, const char *dir, struct pl_error *err)
{
	uint64_t k = pick_transaction(a->tx);

	if (k == PL_NONE)
		return 0;
	const struct pl_transaction *t = &a->tx->items[k];
	/* Time runs from the kernel's delivery of the input to the flush that showed the answer. */
	uint64_t t0 = t->pixels.delivered_ns;
	const struct pl_intervals *iv = a->iv;
	const struct pl_event *ev = a->trace->events;
	/* Lanes: the transaction's threads in order of first appearance. */
	uint32_t *lane = pl_xcalloc(iv->nthreads, sizeof(*lane)), nlanes = 0;
	uint8_t *seen = pl_xcalloc(iv->nintervals, 1);
	char path[4096];
	FILE *gp = open_plot(dir, "timeline.svg", path, sizeof(path), err);

	if (!gp) {
		free(lane);
		free(seen);
		return -1;
	}
	fprintf(gp, "$intervals << EOD\n");
	for (uint64_t m = 0; m < t->nevents; m++) {
		uint64_t i = iv->event_interval[a->tx->members[t->first_member + m]];

		if (i == PL_NONE || seen[i])
			continue;
		seen[i] = 1;
		const struct pl_interval *in = &iv->intervals[i];

		if (!lane[in->thread])
			lane[in->thread] = ++nlanes;
		/* Clipped to the transaction: a long-lived interval would hide the rest. */
		uint64_t from = in->start_ns < t->input_ns ? t->input_ns : in->start_ns;
		uint64_t to = in->end_ns > t->end_ns ? t->end_ns : in->end_ns;

		if (to < from)
			to = from;
		fprintf(gp, "%.6f %u %.6f\n", ms(from + to - 2 * t0) / 2, lane[in->thread],
			ms(to - from) / 2);
	}
	/* Two lanes above the threads: the input's way in and the frame's way out. */
	fprintf(gp, "EOD\n$pipeline << EOD\n%.6f %u %.6f\n%.6f %u %.6f\n",
		ms(t->input_ns - t0) / 2, nlanes + 1, ms(t->input_ns - t0) / 2,
		ms(t->end_ns + t->pixels.shown_ns - 2 * t0) / 2, nlanes + 2,
		ms(t->pixels.shown_ns - t->end_ns) / 2);
	fprintf(gp, "EOD\n$path << EOD\n");
	for (uint64_t s = a->cp->first_step[k]; s < a->cp->first_step[k + 1]; s++) {
		const struct pl_step *st = &a->cp->steps[s];
		uint32_t l0 = lane[iv->intervals[iv->event_interval[st->from_event]].thread];
		uint32_t l1 = lane[iv->intervals[iv->event_interval[st->to_event]].thread];

		fprintf(gp, "%.6f %u %.6f %d %s\n", ms(ev[st->from_event].ts_ns - t0), l0,
			ms(ev[st->to_event].ts_ns - ev[st->from_event].ts_ns), (int)l1 - (int)l0,
			pl_edge_kind_name(st->kind));
	}
	fprintf(gp, "EOD\n");
	int freq = freq_track(gp, a->trace, t0, t->pixels.shown_ns);

	fprintf(gp, "set ytics (");
	for (uint32_t th = 0, first = 1; th < iv->nthreads; th++)
		if (lane[th]) {
			/* Thread names come from the trace: keep only characters safe in a gnuplot string. */
			char name[17];
			size_t j;

			for (j = 0; iv->threads[th].name[j]; j++) {
				char c = iv->threads[th].name[j];

				name[j] = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
					  (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '/' ? c : '.';
			}
			name[j] = '\0';
			fprintf(gp, "%s\"%s %" PRIu32 "\" %u", first ? "" : ", ", name,
				iv->threads[th].tid, lane[th]);
			first = 0;
		}
	fprintf(gp, ", \"input dispatch\" %u, \"display pipeline\" %u", nlanes + 1, nlanes + 2);
	fprintf(gp,
		")\nset yrange [0.4:%u.6]\nset xrange [0:%.6f]\n"
		"set title 'Transaction %" PRIu64 " (input %" PRIu64 "), %.3f ms input to pixels:"
		" intervals per thread, critical path in red'\n"
		"set xlabel 'ms since the kernel delivered the input'\nset grid xtics\nset key below\n"
		"plot $intervals using 1:2:3:(0.3) with boxxyerror fs solid 0.3 lc rgb '#4a78b5'"
		" title 'execution interval', "
		"$pipeline using 1:2:3:(0.3) with boxxyerror fs solid 0.5 lc rgb '#3a9a4a'"
		" title 'input dispatch and display pipeline (inputd, compositor)', "
		"$path using 1:2:3:4 with vectors head filled lw 3 lc rgb '#d0312d'"
		" title 'critical path (temporal and causal steps)', "
		"$path using ($1+$3/2):($2+$4/2+0.35):(strcol(5) eq 'temporal' ? '' : strcol(5))"
		" with labels font ',9' notitle%s\n",
		nlanes + 2, ms(t->pixels.latency_ns), k, t->input_id, ms(t->pixels.latency_ns),
		freq ? ", $freq using 1:2 axes x1y2 with steps lw 2 lc rgb '#8e44ad'"
		       " title 'cpu 0 frequency (CPU_FREQUENCY; the cores share one clock)'" :
		       "");
	free(lane);
	free(seen);
	return close_plot(gp, path, err);
}

int pl_plot_run(const struct pl_analysis *a, const char *dir, struct pl_error *err)
{
	if (!have_gnuplot())
		return 1;
	if (plot_cdf(a, dir, err) < 0 || plot_breakdown(a, dir, err) < 0 ||
	    plot_timeline(a, dir, err) < 0)
		return -1;
	return 0;
}

int pl_plot_overhead(const struct pl_overhead *o, const char *dir, struct pl_error *err)
{
	char path[4096];

	if (!have_gnuplot())
		return 1;
	if (o->nrows == 0)
		return 0;	/* no input has a latency in both runs: nothing to plot */
	FILE *gp = open_plot(dir, "qq.svg", path, sizeof(path), err);

	if (!gp)
		return -1;
	uint64_t hi = 1;

	fprintf(gp, "$qq << EOD\n");
	for (uint64_t i = 0; i < o->nrows; i++) {
		fprintf(gp, "%.6f %.6f\n", ms(o->quantile_off_ns[i]), ms(o->quantile_on_ns[i]));
		hi = o->quantile_on_ns[i] > hi ? o->quantile_on_ns[i] : hi;
		hi = o->quantile_off_ns[i] > hi ? o->quantile_off_ns[i] : hi;
	}
	fprintf(gp, "EOD\nset title 'Q-Q plot of ground-truth latency, tracing off vs on'\n"
		    "set xlabel 'untraced latency quantile (ms)'\nset ylabel 'traced latency quantile (ms)'\n"
		    "set xrange [0:%.6f]\nset yrange [0:%.6f]\nset size square\nset grid\nset key top left\n"
		    "plot x with lines dt 2 lc rgb '#888888' title 'no overhead (y = x)', "
		    "$qq using 1:2 with linespoints pt 7 lc rgb '#d0312d' title 'quantiles'\n",
		ms(hi) * 1.05, ms(hi) * 1.05);
	return close_plot(gp, path, err);
}

/* A path gnuplot reads as a quoted string: no quote or newline. */
static int plot_input(const char *dir, const char *name, char *path, size_t size,
		      struct pl_error *err)
{
	snprintf(path, size, "%s/%s", dir, name);
	if (strpbrk(path, "'\n")) {
		pl_error_file(err, path, "cannot plot: a quote or newline in the path");
		return -1;
	}
	return 0;
}

int pl_plot_section6(const char *dir, struct pl_error *err)
{
	static const char *const configs[] = { "c1-on", "c1-off", "c2-on", "c2-off" };
	char path[4096], data[4096];
	FILE *gp;

	if (!have_gnuplot())
		return 1;
	if (plot_input(dir, "cdf.tsv", data, sizeof(data), err) < 0)
		return -1;
	gp = open_plot(dir, "cdf.svg", path, sizeof(path), err);
	if (!gp)
		return -1;
	/* Fig. 9: one step line per configuration, on the paper's definition. */
	fprintf(gp, "set title 'Latency CDF, input to last display update (Panappticon Fig. 9)'\n"
		    "set xlabel 'latency (ms)'\nset ylabel 'share of taps'\nset logscale x\nset grid\n"
		    "set key bottom right\nset yrange [0:1.02]\nset datafile separator '\\t'\nplot ");
	for (int c = 0; c < 4; c++)
		fprintf(gp, "%s'%s' using 3:((strcol(1) eq 'update' && strcol(2) eq '%s') ? $4 : NaN)"
			" with steps lw 2 title '%s'", c ? ", " : "", data, configs[c], configs[c]);
	fprintf(gp, "\n");
	if (close_plot(gp, path, err) < 0)
		return -1;
	if (plot_input(dir, "qq.tsv", data, sizeof(data), err) < 0)
		return -1;
	gp = open_plot(dir, "qq.svg", path, sizeof(path), err);
	if (!gp)
		return -1;
	/* Fig. 10: one core, DVFS off (x) against on (y). */
	fprintf(gp, "set title 'Q-Q, 1 core: DVFS off (x) against on (y) (Panappticon Fig. 10)'\n"
		    "set xlabel 'DVFS off: latency (ms)'\nset ylabel 'DVFS on: latency (ms)'\n"
		    "set logscale xy\nset grid\nset key top left\nset datafile separator '\\t'\n"
		    "plot '%s' using 3:(strcol(1) eq 'update' ? $4 : NaN) with points pt 7"
		    " title 'input to last update', '%s' using 3:(strcol(1) eq 'pixel' ? $4 : NaN)"
		    " with points pt 6 title 'input to pixel', x with lines dt 2 title 'y = x',"
		    " 1.75 * x with lines dt 3 title 'y = 1.75 x'\n", data, data);
	return close_plot(gp, path, err);
}
