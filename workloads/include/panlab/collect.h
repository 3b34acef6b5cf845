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
	const char *out_path;	/* the host link (a virtio port) or a file: created or truncated */
	const char *shm_dir;	/* where panlab-log.<pid> files live */
	const char *klog_path;	/* NULL or absent file: no kernel sources */
	/*
	 * NULL, or a file on the SD card. If out_path cannot be opened, or a write to it fails
	 * (the host link is gone), the rest of the trace goes here instead, after a struct
	 * pl_spill_header saying at which byte of the trace it starts; pl_collect_send_spill
	 * sends it later. Records are drained from the loggers only once, so nothing is lost.
	 */
	const char *spill_path;
};

struct pl_collect_result {
	uint32_t nsources;
	uint64_t records;
	uint64_t lost;
	uint64_t spilled_bytes;	/* trace bytes in the spill file (0: the link took everything) */
};

#define PL_SPILL_MAGIC "PLSPILL1"

/* The spill file: this header, then the trace's bytes from offset_bytes to its end. */
struct pl_spill_header {
	char magic[8];		/* PL_SPILL_MAGIC, no NUL */
	uint64_t offset_bytes;	/* how much of the trace the host link took before it failed */
};

/* Returns 0, or -1 with err holding one line. */
int pl_collect(const struct pl_collect_opts *o, struct pl_collect_result *res, char *err,
	       size_t err_len);

/*
 * Send a spill file over the link: out_path is opened without truncation; a seekable one (a
 * file) is written from the header's offset on, a port from where it is. The spill file is
 * removed only after every byte was written. *sent_bytes (if not NULL) gets the count.
 * Returns 0, or -1 with err holding one line (the spill file is then kept).
 */
int pl_collect_send_spill(const char *spill_path, const char *out_path, uint64_t *sent_bytes,
			  char *err, size_t err_len);

#endif /* PANLAB_COLLECT_H */
