/*
 * Layout of a userspace logger shm file, shared by the producer side
 * (ulog.c) and the collector's reader (ulog_reader.c). Internal.
 *
 *   offset 0                 struct pl_ulog_file_hdr (one page)
 *   PL_ULOG_HDR_BYTES + i*stride   slot i: struct pl_ulog_slot, then
 *                            slot_records struct pl_event
 *
 * A slot whose thread exited is adopted by the next thread that finds no
 * unused slot: it appends after the old owner's records, and the collector
 * splits a ring into one source per run of equal tid (records carry their
 * tid). So short-lived worker threads do not exhaust the slots.
 *
 * head and tail count records since the slot was first claimed (uint32, compared
 * with unsigned wrap-around); wpos/rpos are their positions in the ring, kept
 * separately so neither side divides on the hot path (armv5 has no divider).
 * 32-bit atomics only: armel's 64-bit atomics would need libatomic.
 */
#ifndef PANLAB_ULOG_LAYOUT_H
#define PANLAB_ULOG_LAYOUT_H

#include <stdatomic.h>
#include <stdint.h>

#include "panlab/trace_format.h"

#define PL_ULOG_MAGIC "PLULOG1"
#define PL_ULOG_HDR_BYTES 4096u

struct pl_ulog_file_hdr {
	char magic[8];
	uint32_t pid;
	uint32_t nslots;
	uint32_t slot_records;
	uint32_t slot_stride_bytes;
	_Atomic uint32_t next_slot;	/* slots claimed so far */
	_Atomic uint32_t unslotted_lost;	/* events of threads that found no free slot */
};

/* Producer fields and consumer fields sit on separate 64-byte lines. */
struct pl_ulog_slot {
	_Atomic uint32_t tid;		/* current owner; 0 until first claimed */
	_Atomic uint32_t head;		/* records written (release by producer) */
	_Atomic uint32_t lost;		/* records dropped: ring full */
	uint32_t wpos;			/* producer-private */
	_Atomic uint32_t retired;	/* 1: the owner exited; another thread may adopt the slot */
	/* Producer-private: the tail as last read, so the producer reads the consumer's line
	 * (with a barrier) only when the ring looks full; and the ring's size in records. */
	uint32_t tail_seen;
	uint32_t records;
	uint8_t pad0[36];
	_Atomic uint32_t tail;		/* records consumed (release by consumer) */
	uint32_t rpos;			/* consumer-private */
	uint8_t pad1[56];
	struct pl_event ring[];
};

_Static_assert(sizeof(struct pl_ulog_file_hdr) <= PL_ULOG_HDR_BYTES, "header fits its page");
_Static_assert(sizeof(struct pl_ulog_slot) == 128, "slot header is two cache lines");
_Static_assert(sizeof(struct pl_event) == 32, "trace v1 record size");

static inline struct pl_ulog_slot *pl_ulog_slot_at(void *base, uint32_t i)
{
	const struct pl_ulog_file_hdr *h = base;
	return (struct pl_ulog_slot *)((char *)base + PL_ULOG_HDR_BYTES +
				       (size_t)i * h->slot_stride_bytes);
}

#endif /* PANLAB_ULOG_LAYOUT_H */
