/* One virtio-mmio transport (virtio 1.2 §4.2.2, version 2 only) and the
 * split-virtqueue core (§2.7) that every virtio device of the phone uses.
 * A device supplies its ID, features, config space and a notify handler;
 * it takes requests with virtio_pop(), moves bytes with virtio_req_read()
 * and virtio_req_write(), and completes them with virtio_push(), which
 * raises the interrupt. Devices decide when to push: that is where they
 * model latency, on the engine's clock.
 *
 * Ownership: virtio_new() allocates the transport, virtio_free() frees it.
 * The device's opaque pointer and the physical map stay the caller's. */
#ifndef PANLAB_DEV_VIRTIO_H
#define PANLAB_DEV_VIRTIO_H

#include <stddef.h>
#include <stdint.h>
#include "../physmem.h"
#include "irq.h"
#include "../snapio.h"

#define VIRTIO_MMIO_SIZE 0x200u
#define VIRTIO_MAX_QUEUES 16
#define VIRTIO_QUEUE_MAX 256
#define VIRTIO_CONFIG_BYTES 256

#define VIRTIO_F_VERSION_1 (1ull << 32)

typedef struct virtio_dev virtio_dev;

typedef struct virtio_ops {
    uint32_t device_id;          /* §5: 3 console, 16 gpu, 18 input, ... */
    uint64_t features;           /* device-specific; VERSION_1 is added */
    int nqueues;
    /* The driver made buffers available on queue q (QueueNotify). */
    void (*notify)(void *opaque, int q);
    /* The driver wrote config bytes [off, off + len); may be NULL. */
    void (*config_written)(void *opaque, uint32_t off, uint32_t len_bytes);
    /* The driver reset the device (Status = 0); may be NULL. */
    void (*reset)(void *opaque);
    /* The driver set DRIVER_OK; may be NULL. */
    void (*driver_ok)(void *opaque);
} virtio_ops;

/* A request: one descriptor chain, device-readable bytes first, then
 * device-writable ones (§2.7.5). */
typedef struct virtio_req {
    int q;
    uint16_t head;
    uint32_t out_bytes;          /* driver -> device */
    uint32_t in_bytes;           /* device -> driver */
} virtio_req;

virtio_dev *virtio_new(phys_map *m, irq_line irq, const virtio_ops *ops,
                       void *opaque);
void virtio_free(virtio_dev *d);
void virtio_register(virtio_dev *d, uint32_t addr);
uint32_t virtio_mmio_read(void *opaque, uint32_t off, int size_log2);
void virtio_mmio_write(void *opaque, uint32_t off, uint32_t val, int size_log2);

/* The config space the device fills and reads back (little-endian). */
uint8_t *virtio_config(virtio_dev *d);
uint64_t virtio_driver_features(const virtio_dev *d);
int virtio_queue_ready(const virtio_dev *d, int q);

/* Takes the next available chain of queue q. Returns 1 and fills r, 0 if
 * the queue is empty or not ready, -1 if the chain is malformed (it is
 * reported on stderr once and the device should stop using the queue). */
int virtio_pop(virtio_dev *d, int q, virtio_req *r);
/* Copy from the readable part at offset off, or into the writable part.
 * Return the bytes copied (short at the end of the part). */
size_t virtio_req_read(virtio_dev *d, const virtio_req *r, uint32_t off,
                       void *buf, size_t len_bytes);
size_t virtio_req_write(virtio_dev *d, const virtio_req *r, uint32_t off,
                        const void *buf, size_t len_bytes);
/* Host pointer for guest-physical [addr, addr + len) if it is RAM, for
 * devices that take guest buffers by address (virtio-gpu backing). */
void *virtio_guest_ptr(virtio_dev *d, uint64_t addr, uint32_t len_bytes);
/* Returns the chain to the driver with written_bytes used and interrupts. */
void virtio_push(virtio_dev *d, const virtio_req *r, uint32_t written_bytes);

/* Snapshots: the transport's registers, queues and config space; a
 * device saves its own state after it. A request in flight is saved by
 * the device holding it. Loads return 0, or -1 with the error in r. */
void virtio_save(const virtio_dev *d, snap_w *w);
int virtio_load(virtio_dev *d, snap_r *r);
void virtio_req_save(const virtio_req *q, snap_w *w);
int virtio_req_load(const virtio_dev *d, virtio_req *q, snap_r *r);

#endif
