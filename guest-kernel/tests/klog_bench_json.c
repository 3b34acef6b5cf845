// SPDX-License-Identifier: GPL-2.0
/*
 * Host tool: turns the KLOG-BENCH lines that klog_bench prints on the guest
 * console into out/bench/kernel-logger.json and prints a table.
 *
 *   klog_bench_json CONSOLE_LOG OUT_JSON
 *
 * Per benchmark: instructions_per_event = (on_ns - off_ns) / 4 / events,
 * because qemu's -icount shift=2 makes each guest instruction 4 ns of guest
 * time (the benchmark runs on one cpu that does not idle); ns_per_event =
 * (on_ns - off_ns) / events; slowdown_pct = (on_ns - off_ns) / off_ns * 100.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NS_PER_INSTRUCTION 4.0	/* -icount shift=2 */

int main(int argc, char **argv)
{
	json_t *root = json_object();
	char line[512];
	int found = 0;
	FILE *in;

	if (argc != 3) {
		fprintf(stderr, "usage: %s CONSOLE_LOG OUT_JSON\n", argv[0]);
		return 2;
	}
	in = fopen(argv[1], "r");
	if (!in) {
		fprintf(stderr, "%s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	printf("%-20s %12s %14s %14s %10s %8s %12s %10s\n", "benchmark", "iterations",
	       "off ns", "on ns", "events", "lost", "instr/event", "slowdown");
	for (int lineno = 1; fgets(line, sizeof(line), in); lineno++) {
		unsigned long long off, on, events, lost;
		char name[64];
		int iters;
		double delta, per_ev, slow;
		char *p = strstr(line, "KLOG-BENCH ");

		if (!p)
			continue;
		if (sscanf(p, "KLOG-BENCH name=%63s iterations=%d off_ns=%llu on_ns=%llu events=%llu lost=%llu",
			   name, &iters, &off, &on, &events, &lost) != 6 || !off || !events) {
			fprintf(stderr, "%s:%d: malformed KLOG-BENCH line, expected name= iterations= off_ns= on_ns= events= lost=\n",
				argv[1], lineno);
			return 1;
		}
		delta = (double)on - (double)off;
		per_ev = delta / (double)events;
		slow = delta / (double)off * 100.0;
		json_object_set_new(root, name, json_pack("{s:f, s:f, s:f, s:I, s:I, s:i, s:I, s:I}",
			"instructions_per_event", per_ev / NS_PER_INSTRUCTION,
			"ns_per_event", per_ev,
			"slowdown_pct", slow,
			"events", (json_int_t)events,
			"events_lost", (json_int_t)lost,
			"iterations", iters,
			"off_ns", (json_int_t)off,
			"on_ns", (json_int_t)on));
		printf("%-20s %12d %14llu %14llu %10llu %8llu %12.1f %9.2f%%\n", name, iters, off, on,
		       events, lost, per_ev / NS_PER_INSTRUCTION, slow);
		found++;
	}
	fclose(in);
	if (!found) {
		fprintf(stderr, "%s: no KLOG-BENCH lines (did the guest benchmark run?)\n", argv[1]);
		return 1;
	}
	if (json_dump_file(root, argv[2], JSON_INDENT(2) | JSON_PRESERVE_ORDER) != 0) {
		fprintf(stderr, "%s: cannot write\n", argv[2]);
		return 1;
	}
	json_decref(root);
	printf("targets: < 200 instructions per event, <= 5%% slowdown on pipe_pingpong; wrote %s\n",
	       argv[2]);
	return 0;
}
