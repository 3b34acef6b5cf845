/*
 * panlab-collector: drain the kernel and userspace loggers into one trace v1
 * file (see include/panlab/collect.h). panlab-session runs the same code
 * in-process; this binary is for collecting by hand.
 *
 *   panlab-collector [--out PATH] [--shm-dir DIR] [--klog PATH]
 *
 * The default output is the virtio port panlab.trace.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>

#include "panlab/collect.h"
#include "panlab/die.h"
#include "panlab/vport.h"

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "shm-dir", required_argument, NULL, 's' },
		{ "klog", required_argument, NULL, 'k' },
		{ 0 },
	};
	struct pl_collect_opts o = { .out_path = NULL,
				     .shm_dir = PL_COLLECT_DEFAULT_SHM_DIR,
				     .klog_path = PL_COLLECT_DEFAULT_KLOG };
	int c;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'o': o.out_path = optarg; break;
		case 's': o.shm_dir = optarg; break;
		case 'k': o.klog_path = optarg; break;
		default: pl_die("usage: panlab-collector [--out PATH] [--shm-dir DIR] [--klog PATH]");
		}
	}
	if (optind != argc)
		pl_die("unexpected argument '%s'", argv[optind]);
	char port[64];
	if (!o.out_path) {
		if (pl_vport_path(PL_COLLECT_TRACE_PORT, port, sizeof(port)) != 0)
			pl_die("no virtio port %s; give --out PATH", PL_COLLECT_TRACE_PORT);
		o.out_path = port;
	}
	struct pl_collect_result res;
	char err[512];
	if (pl_collect(&o, &res, err, sizeof(err)) != 0)
		pl_die("%s", err);
	printf("panlab-collector: %" PRIu32 " sources, %" PRIu64 " records, %" PRIu64 " lost -> %s\n",
	       res.nsources, res.records, res.lost, o.out_path);
	return 0;
}
