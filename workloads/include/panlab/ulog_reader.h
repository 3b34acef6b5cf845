/*
 * Reader of userspace logger shm files: the collector's side of the rings
 * described in ulog.h. Draining never blocks or slows a producer: it only
 * reads records the producer published and then advances the ring's tail.
 *
 * Ownership: pl_ulog_reader_open maps the file into a caller-provided struct;
 * pl_ulog_reader_close unmaps it. The file is not unlinked here.
 */
#ifndef PANLAB_ULOG_READER_H
#define PANLAB_ULOG_READER_H

#include <stddef.h>
#include <stdint.h>

#include "panlab/trace_format.h"

struct pl_ulog_reader {
	void *base;
	size_t bytes;
};

/*
 * What one per-thread ring holds at the moment of the snapshot. A ring may
 * hold runs of records of several threads in turn (see ulog.h); lost is the
 * ring's total.
 */
struct pl_ulog_slot_info {
	uint32_t tid;		/* current owner; 0: slot never claimed */
	uint32_t pending;	/* records published and not yet drained */
	uint64_t lost;		/* records dropped because the ring was full */
};

/* Map path read-write. Returns 0 or -errno (-EPROTO: not a logger file, or one still being set
 * up by its process: pl_ulog_open writes the magic last). */
int pl_ulog_reader_open(struct pl_ulog_reader *r, const char *path);
void pl_ulog_reader_close(struct pl_ulog_reader *r);

unsigned pl_ulog_reader_slots(const struct pl_ulog_reader *r);
uint32_t pl_ulog_reader_pid(const struct pl_ulog_reader *r);
/* Events dropped because their thread found every slot taken. */
uint64_t pl_ulog_reader_unslotted_lost(const struct pl_ulog_reader *r);

void pl_ulog_reader_slot(const struct pl_ulog_reader *r, unsigned slot,
			 struct pl_ulog_slot_info *out);

/* tid of the index-th pending record (index < pending), without consuming it. */
uint32_t pl_ulog_reader_peek_tid(const struct pl_ulog_reader *r, unsigned slot, uint32_t index);

/* Copy up to max records, oldest first, into out and consume them. Returns the count. */
size_t pl_ulog_reader_drain(struct pl_ulog_reader *r, unsigned slot, struct pl_event *out,
			    size_t max);

#endif /* PANLAB_ULOG_READER_H */
