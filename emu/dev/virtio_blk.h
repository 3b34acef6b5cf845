/* virtio-blk (virtio 1.2 §5.2): the phone's SD card, backed by a host
 * file, with modelled timing on the engine's clock:
 *   - a read takes an access latency plus its bytes at the read bandwidth;
 *   - a write lands in a write-back cache after a short latency; the cache
 *     drains to the card at the write bandwidth, and a write that finds
 *     the cache full waits for room;
 *   - a flush completes when the cache has drained, plus a flush latency.
 * Requests are served one at a time, in order. Data reaches the host file
 * when a request completes.
 *
 * Ownership: virtio_blk_new() allocates, virtio_blk_free() frees; the
 * file descriptor stays the caller's. */
#ifndef PANLAB_DEV_VIRTIO_BLK_H
#define PANLAB_DEV_VIRTIO_BLK_H

#include "../time.h"
#include "virtio.h"

typedef struct blk_timing {
    uint64_t read_latency_ns;
    uint64_t read_bytes_per_s;
    uint64_t write_latency_ns;
    uint64_t write_bytes_per_s;
    uint64_t cache_bytes;
    uint64_t flush_latency_ns;
} blk_timing;

/* A class-10 SD card: 20 MB/s reads, 10 MB/s sustained writes. */
void blk_timing_sd(blk_timing *t);

typedef struct virtio_blk virtio_blk;

/* size_bytes must be a multiple of 512. */
virtio_blk *virtio_blk_new(phys_map *m, irq_line irq, vt_engine *t, int fd,
                           uint64_t size_bytes, const blk_timing *timing);
void virtio_blk_free(virtio_blk *b);
virtio_dev *virtio_blk_dev(virtio_blk *b);
/* Snapshots: transport, cache state, queued requests and the CRC-32 of the
 * whole card image, so a restore on a different card is refused (the
 * card's contents are not in the snapshot). Load returns 0, or -1 with
 * the error in r. */
void virtio_blk_save(const virtio_blk *b, snap_w *w);
int virtio_blk_load(virtio_blk *b, snap_r *r);

#endif
