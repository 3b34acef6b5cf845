/*
 * panlab userspace logger: the platform's half of Panappticon's tracing
 * (Table 1, "User" rows). Linked into the platform library only; apps never
 * call it.
 *
 * Each process owns one POSIX shared-memory file, /dev/shm/panlab-log.<pid>,
 * holding a header and PL_ULOG_SLOTS per-thread ring buffers. A thread claims
 * a slot on its first event and keeps it until it exits; a thread that finds
 * every slot taken adopts the slot of a thread that has exited. Each
 * ring has exactly one producer (its thread) and one consumer (the
 * collector), so writing is lock-free and never waits for the collector: a
 * full ring drops the event and counts it in the slot's lost counter.
 *
 * Ownership: the logger is process-wide state (one shm file per process, as
 * Panappticon kept one buffer set per process). pl_ulog_open maps it,
 * pl_ulog_close unmaps it; the file itself outlives the process so the
 * collector can drain it after the app exits, and the collector unlinks it.
 */
#ifndef PANLAB_ULOG_H
#define PANLAB_ULOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "panlab/clock.h"
#include "panlab/trace_format.h"

/* Panappticon's 15 MB, split evenly over the slots (see README.md). */
#define PL_ULOG_DEFAULT_BYTES (15u * 1024u * 1024u)
#define PL_ULOG_SLOTS 32u
#define PL_ULOG_PATH_PREFIX "/dev/shm/panlab-log."

/* True only while a buffer is mapped; read by the inline fast path. */
extern bool pl_ulog_on;

/*
 * Create (truncate) the shm file at path with total_bytes split over nslots
 * rings, map it and turn logging on. Returns 0 or -errno.
 */
int pl_ulog_open(const char *path, size_t total_bytes, unsigned nslots);

/*
 * If the environment has PANLAB_TRACE=1, pl_ulog_open the default file
 * PL_ULOG_PATH_PREFIX<pid> with the default size. Returns 0 when tracing is
 * off or was opened, -errno on failure.
 */
int pl_ulog_open_from_env(void);

/* Stop logging and unmap. Threads must no longer be logging. */
void pl_ulog_close(void);

/* Slow path: claims the calling thread's slot on first use. */
void pl_ulog_write(uint16_t type, uint64_t a0, uint32_t a1, uint32_t a2);

/* Log one event; with tracing off this is one well-predicted branch. */
static inline void pl_ulog(uint16_t type, uint64_t a0, uint32_t a1, uint32_t a2)
{
	if (__builtin_expect(pl_ulog_on, 0))
		pl_ulog_write(type, a0, a1, a2);
}

/*
 * A task's submit (SUBMIT_ASYNC_TASK, ENQUEUE_MSG) followed by its TASK_CONTEXT: the return
 * addresses of the first PL_CONTEXT_FRAMES frames of the code that called the platform
 * function calling this one, walked by frame pointers (the platform and apps are built with
 * -fno-omit-frame-pointer). The walk starts after the first event is logged.
 */
void pl_ulog_submit_write(uint16_t type, uint64_t a0, uint32_t a1, uint32_t a2);

static inline void pl_ulog_submit(uint16_t type, uint64_t a0, uint32_t a1, uint32_t a2)
{
	if (__builtin_expect(pl_ulog_on, 0))
		pl_ulog_submit_write(type, a0, a1, a2);
}

/* UNIT_CAPACITY: an executor or looper (unit_id as its events' a1) runs capacity tasks at once. */
void pl_ulog_capacity(uint32_t unit_id, uint32_t capacity, enum pl_unit_kind kind);

#endif /* PANLAB_ULOG_H */
