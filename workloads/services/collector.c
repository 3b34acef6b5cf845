/*
 * panlab-collector: drain the kernel and userspace loggers into one trace v1
 * file (see include/panlab/collect.h). panlab-session runs the same code
 * in-process; this binary is for collecting by hand.
 *
 *   panlab-collector [--out PATH] [--shm-dir DIR] [--klog PATH] [--spill PATH]
 *                    [--period-ms N [--spool-dir DIR]]
 *   panlab-collector --send-spill PATH [--out PATH]
 *
 * The default output is the virtio port panlab.trace. With --spill, a trace the link does not
 * take goes to PATH (on the SD card); --send-spill sends such a file later and removes it.
 * With --period-ms it drains every N ms into a spool under DIR (default: the shm dir) until
 * SIGTERM or SIGINT, then writes the trace.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "panlab/collect.h"
#include "panlab/guest_abi.h"
#include "panlab/vport.h"
#include "panlab/error.h"

static uint32_t period_ms(const char *arg)
{
	uint32_t ms;

	if (pl_collect_parse_period_ms(arg, 1, &ms) != 0)
		pl_die("--period-ms: expected milliseconds from 1 to 3600000, got '%s'", arg);
	return ms;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "shm-dir", required_argument, NULL, 's' },
		{ "klog", required_argument, NULL, 'k' },
		{ "spill", required_argument, NULL, 'p' },
		{ "send-spill", required_argument, NULL, 'S' },
		{ "period-ms", required_argument, NULL, 'P' },
		{ "spool-dir", required_argument, NULL, 'D' },
		{ 0 },
	};
	struct pl_collect_opts o = { .out_path = NULL,
				     .shm_dir = PL_COLLECT_DEFAULT_SHM_DIR,
				     .klog_path = PL_COLLECT_DEFAULT_KLOG };
	const char *send_spill = NULL;
	int c;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'o': o.out_path = optarg; break;
		case 's': o.shm_dir = optarg; break;
		case 'k': o.klog_path = optarg; break;
		case 'p': o.spill_path = optarg; break;
		case 'S': send_spill = optarg; break;
		case 'P': o.drain_period_ms = period_ms(optarg); break;
		case 'D': o.spool_dir = optarg; break;
		default: pl_die("usage: panlab-collector [--out PATH] [--shm-dir DIR] [--klog PATH] "
				"[--spill PATH] [--period-ms N [--spool-dir DIR]] | "
				"--send-spill PATH [--out PATH]");
		}
	}
	if (optind != argc)
		pl_die("unexpected argument '%s'", argv[optind]);
	char port[64];
	if (!o.out_path) {
		if (pl_vport_path(PL_PORT_TRACE, port, sizeof(port)) != 0)
			pl_die("no virtio port %s; give --out PATH", PL_PORT_TRACE);
		o.out_path = port;
	}
	struct pl_error err;
	if (send_spill) {
		uint64_t sent;
		if (pl_collect_send_spill(send_spill, o.out_path, &sent, &err) != 0)
			pl_die("%s", err.msg);
		printf("panlab-collector: sent %" PRIu64 " spilled bytes from %s -> %s\n", sent,
		       send_spill, o.out_path);
		return 0;
	}
	struct pl_collect_result res;
	struct pl_collector *col;
	/* Blocked before the drain thread starts, so it inherits the mask and sigwait gets them. */
	sigset_t stop;
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);
	if (pl_collector_start(&o, &col, &err) != 0)
		pl_die("%s", err.msg);
	int sig;
	if (o.drain_period_ms)
		sigwait(&stop, &sig);
	if (pl_collector_finish(col, &res, &err) != 0)
		pl_die("%s", err.msg);
	printf("panlab-collector: %" PRIu32 " sources, %" PRIu64 " records, %" PRIu64 " lost -> %s"
	       " (%" PRIu64 " bytes spilled to %s; %" PRIu64 " periodic drains)\n", res.nsources,
	       res.records, res.lost, o.out_path, res.spilled_bytes, o.spill_path ? o.spill_path : "-",
	       res.drains);
	return 0;
}
