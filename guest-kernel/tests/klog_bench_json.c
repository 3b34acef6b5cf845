// SPDX-License-Identifier: GPL-2.0
/*
 * Host tool: turns the KLOG-BENCH lines that klog_bench prints on the guest
 * console into out/bench/kernel-logger.json and prints a table.
 *
 *   klog_bench_json OUT_JSON BACKEND=CONSOLE_LOG...
 *
 * BACKEND is qemu or phone; the JSON holds one object per backend. Per
 * benchmark: ns_per_event = (on_ns - off_ns) / events; slowdown_pct =
 * (on_ns - off_ns) / off_ns * 100; instructions_per_event = ns_per_event /
 * the backend's ns per instruction: 4 on qemu (-icount shift=2), 1/1.2 on
 * the phone (one cycle per instruction at 1.2 GHz, the performance
 * governor's operating point). The benchmark runs on one cpu that does not
 * idle, so guest time is instructions times that.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The targets: slowdown with tracing on, per benchmark. */
static const struct {
	const char *name;
	double max_pct;
} targets[] = {
	{ "pipe_pingpong", 5.0 },
	{ "futex_contention", 8.0 },
};

static double ns_per_instruction(const char *backend)
{
	if (!strcmp(backend, "qemu"))
		return 4.0;
	if (!strcmp(backend, "phone"))
		return 1.0 / 1.2;
	return 0;
}

/* Reads one console log into obj; returns 0, or 1 after an error message. */
static int read_log(const char *backend, const char *path, double ns_per_insn, json_t *obj)
{
	char line[512];
	int found = 0;
	FILE *in = fopen(path, "r");

	if (!in) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return 1;
	}
	for (int lineno = 1; fgets(line, sizeof(line), in); lineno++) {
		unsigned long long off, on, events, lost;
		long sleeps_off, sleeps_on;
		char name[64];
		int iters;
		double delta, per_ev, slow;
		char *p = strstr(line, "KLOG-BENCH ");

		if (!p)
			continue;
		if (sscanf(p, "KLOG-BENCH name=%63s iterations=%d off_ns=%llu on_ns=%llu events=%llu lost=%llu sleeps_off=%ld sleeps_on=%ld",
			   name, &iters, &off, &on, &events, &lost, &sleeps_off, &sleeps_on) != 8 ||
		    !off || !events) {
			fprintf(stderr, "%s:%d: malformed KLOG-BENCH line, expected name= iterations= off_ns= on_ns= events= lost= sleeps_off= sleeps_on=\n",
				path, lineno);
			fclose(in);
			return 1;
		}
		delta = (double)on - (double)off;
		per_ev = delta / (double)events;
		slow = delta / (double)off * 100.0;
		json_object_set_new(obj, name, json_pack("{s:f, s:f, s:f, s:I, s:I, s:i, s:I, s:I, s:I, s:I}",
			"instructions_per_event", per_ev / ns_per_insn,
			"ns_per_event", per_ev,
			"slowdown_pct", slow,
			"events", (json_int_t)events,
			"events_lost", (json_int_t)lost,
			"iterations", iters,
			"off_ns", (json_int_t)off,
			"on_ns", (json_int_t)on,
			"sleeps_off", (json_int_t)sleeps_off,
			"sleeps_on", (json_int_t)sleeps_on));
		printf("%-6s %-20s %10d %12llu %12llu %8llu %6llu %12.1f %9.2f%% %10ld %10ld\n", backend,
		       name, iters, off, on, events, lost, per_ev / ns_per_insn, slow, sleeps_off,
		       sleeps_on);
		found++;
	}
	fclose(in);
	if (!found) {
		fprintf(stderr, "%s: no KLOG-BENCH lines (did the guest benchmark run?)\n", path);
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	json_t *root = json_object();

	if (argc < 3) {
		fprintf(stderr, "usage: %s OUT_JSON BACKEND=CONSOLE_LOG...\n", argv[0]);
		return 2;
	}
	printf("%-6s %-20s %10s %12s %12s %8s %6s %12s %10s %10s %10s\n", "", "benchmark",
	       "iterations", "off ns", "on ns", "events", "lost", "instr/event", "slowdown",
	       "off sleeps", "on sleeps");
	for (int i = 2; i < argc; i++) {
		char backend[16];
		const char *eq = strchr(argv[i], '=');
		json_t *obj = json_object();
		double ns;

		if (!eq || eq - argv[i] >= (long)sizeof(backend)) {
			fprintf(stderr, "%s: '%s' is not BACKEND=CONSOLE_LOG\n", argv[0], argv[i]);
			return 2;
		}
		memcpy(backend, argv[i], eq - argv[i]);
		backend[eq - argv[i]] = 0;
		ns = ns_per_instruction(backend);
		if (!ns) {
			fprintf(stderr, "%s: unknown backend '%s' (qemu or phone)\n", argv[0], backend);
			return 2;
		}
		if (read_log(backend, eq + 1, ns, obj))
			return 1;
		for (size_t t = 0; t < sizeof(targets) / sizeof(targets[0]); t++) {
			json_t *b = json_object_get(obj, targets[t].name);
			double pct;

			if (!b)
				continue;
			pct = json_real_value(json_object_get(b, "slowdown_pct"));
			json_object_set_new(b, "target_slowdown_pct", json_real(targets[t].max_pct));
			printf("%-6s %s: %.2f%% against a target of <= %.0f%%: %s\n", backend,
			       targets[t].name, pct, targets[t].max_pct,
			       pct <= targets[t].max_pct ? "met" : "missed");
		}
		json_object_set_new(root, backend, obj);
	}
	if (json_dump_file(root, argv[1], JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0) {
		fprintf(stderr, "%s: cannot write\n", argv[1]);
		return 1;
	}
	json_decref(root);
	printf("wrote %s\n", argv[1]);
	return 0;
}
