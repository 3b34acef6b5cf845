/*
 * The interface of the compute service (svc-compute), which app-service and app-svcjournal call
 * over binder:
 *   COMPUTE_CALL {u64 ms} -> {u64 checksum}: the benchmarks' unit of work done in another process.
 *   COMPUTE_NOTE {u64 bytes}, one-way: appends a note of `bytes` (at most COMPUTE_NOTE_MAX) to the
 *     service's journal.
 *   COMPUTE_NOTED_CALL {u64 ms} -> {u64 checksum}: appends a COMPUTE_RECORD_BYTES record of the
 *     request to the journal, then does COMPUTE_CALL's work.
 * The journal is one file on the SD card (/tmp without one), written synchronously (O_DSYNC)
 * through one open file shared by the binder threads, so a write waits for another thread's
 * write in progress on the file's position lock (a kernel mutex).
 */
#ifndef PANLAB_COMPUTE_SERVICE_H
#define PANLAB_COMPUTE_SERVICE_H

#define COMPUTE_SERVICE_NAME "panlab.compute"
enum { COMPUTE_CALL = 1, COMPUTE_NOTE = 2, COMPUTE_NOTED_CALL = 3 };
#define COMPUTE_NOTE_MAX (64u * 1024u)
#define COMPUTE_RECORD_BYTES 64u

#endif /* PANLAB_COMPUTE_SERVICE_H */
