/*
 * The event collector (Panappticon section 3.2): drains the kernel logger
 * and every userspace logger buffer into one trace v1 file
 * (analyzer/FORMAT.md): kernel per-cpu sources first, then one source per
 * userspace thread, each with its lost count.
 *
 * Memory stays bounded whatever the trace size: kernel records are spooled
 * to a memfd and written cpu by cpu; userspace rings are copied straight
 * from shared memory, a chunk at a time. Drained shm files are unlinked.
 *
 * Ownership: all strings are the caller's; nothing is retained.
 */
#ifndef PANLAB_COLLECT_H
#define PANLAB_COLLECT_H

#include <stddef.h>
#include <stdint.h>

#define PL_COLLECT_TRACE_PORT "panlab.trace"	/* virtio port name, see vport.h */
#define PL_COLLECT_DEFAULT_SHM_DIR "/dev/shm"
#define PL_COLLECT_DEFAULT_KLOG "/dev/panlab_klog"

struct pl_collect_opts {
	const char *out_path;	/* created or truncated */
	const char *shm_dir;	/* where panlab-log.<pid> files live */
	const char *klog_path;	/* NULL or absent file: no kernel sources */
};

struct pl_collect_result {
	uint32_t nsources;
	uint64_t records;
	uint64_t lost;
};

/* Returns 0, or -1 with err holding one line. */
int pl_collect(const struct pl_collect_opts *o, struct pl_collect_result *res, char *err,
	       size_t err_len);

#endif /* PANLAB_COLLECT_H */
