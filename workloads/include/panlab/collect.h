/*
 * The event collector (Panappticon section 3.2): drains the kernel logger
 * and every userspace logger buffer into one trace v1 file
 * (include/FORMAT.md): kernel per-cpu sources first, then one source per
 * userspace thread (in tid order), each with its lost count, then the
 * events of threads that found no slot, per process.
 *
 * Periodic drains (pl_collector_start with a period) keep the rings from
 * filling during a long run: every period a collector thread moves what the
 * kernel and userspace loggers hold into a spool, one append-only file per
 * source (kernel cpu or thread) in a private directory, and retires the shm
 * files of processes that have exited. It only advances the rings' tails, so
 * no producer ever waits for it. The trace v1 file states every source's
 * record count before the records, so the trace is written to the host link
 * at the end (pl_collector_finish): the spool first, then what the rings
 * still hold, copied a chunk at a time. The collector's own memory is a few
 * fixed buffers whatever the trace size; the spool grows with the trace, on
 * the SD card when spool_dir points there, else in tmpfs.
 *
 * Ownership: all strings are the caller's and must outlive the collector;
 * pl_collector_finish frees what pl_collector_start allocated.
 */
#ifndef PANLAB_COLLECT_H
#define PANLAB_COLLECT_H

#include <stddef.h>
#include <stdint.h>
#include "panlab/error.h"

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
	/* Where the spool's private directory is made (NULL: shm_dir); it is removed at the end. */
	const char *spool_dir;
	uint32_t drain_period_ms;	/* 0: no periodic drains, everything is drained at the end */
};

struct pl_collect_result {
	uint32_t nsources;
	uint64_t records;
	uint64_t lost;
	uint64_t spilled_bytes;	/* trace bytes in the spill file (0: the link took everything) */
	uint64_t drains;	/* periodic drains done */
	uint64_t spooled;	/* records moved by them (and the final kernel drain) to the spool */
};

#define PL_SPILL_MAGIC "PLSPILL1"

/* The spill file: this header, then the trace's bytes from offset_bytes to its end. */
struct pl_spill_header {
	char magic[8];		/* PL_SPILL_MAGIC, no NUL */
	uint64_t offset_bytes;	/* how much of the trace the host link took before it failed */
};

struct pl_collector;

/*
 * Opens the kernel logger and, with a drain period, starts the collector thread. *out is freed
 * by pl_collector_finish. Returns 0, or -1 with err holding one line.
 */
int pl_collector_start(const struct pl_collect_opts *o, struct pl_collector **out, struct pl_error *err);

/*
 * Stops the thread, drains what is left and writes the trace (see above), removes the drained
 * shm files and the spool, and frees c. res (if not NULL) gets the counts. Returns 0, or -1
 * with err holding one line (also any error the thread met).
 */
int pl_collector_finish(struct pl_collector *c, struct pl_collect_result *res, struct pl_error *err);

/*
 * Parses a drain period in ms (decimal digits only, min_ms to 3600000) into *ms. Returns 0, or
 * -1 if arg is not one.
 */
int pl_collect_parse_period_ms(const char *arg, uint32_t min_ms, uint32_t *ms);

/* pl_collector_start then pl_collector_finish: one drain at the end. */
int pl_collect(const struct pl_collect_opts *o, struct pl_collect_result *res, struct pl_error *err);

/*
 * Send a spill file over the link: out_path is opened without truncation; a seekable one (a
 * file) is written from the header's offset on, a port from where it is. The spill file is
 * removed only after every byte was written. *sent_bytes (if not NULL) gets the count.
 * Returns 0, or -1 with err holding one line (the spill file is then kept).
 */
int pl_collect_send_spill(const char *spill_path, const char *out_path, uint64_t *sent_bytes,
			  struct pl_error *err);

#endif /* PANLAB_COLLECT_H */
