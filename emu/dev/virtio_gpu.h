/* virtio-gpu, 2D only (virtio 1.2 §5.7): one 480x800 scanout, host-side
 * resources with guest backing, fences. Commands complete in order on
 * the engine's clock after a modelled delay (virtio_gpu.c), never on
 * host time. Each RESOURCE_FLUSH that touches the resource on scanout 0
 * is reported to the host as a displayed frame at its completion time.
 *
 * Ownership: virtio_gpu_new() allocates, virtio_gpu_free() frees. The
 * host callbacks' opaque pointer stays the caller's. */
#ifndef PANLAB_DEV_VIRTIO_GPU_H
#define PANLAB_DEV_VIRTIO_GPU_H

#include "../time.h"
#include "virtio.h"

#define GPU_WIDTH_PX 480
#define GPU_HEIGHT_PX 800

typedef struct gpu_host {
    void *opaque;
    /* The scanout showed a new frame; pixels are B8G8R8X8 rows of
     * width_px * 4 bytes, valid during the call. May be NULL. */
    void (*frame)(void *opaque, uint64_t engine_ns, const uint8_t *pixels,
                  uint32_t width_px, uint32_t height_px);
} gpu_host;

typedef struct virtio_gpu virtio_gpu;

virtio_gpu *virtio_gpu_new(phys_map *m, irq_line irq, vt_engine *t,
                           gpu_host host);
void virtio_gpu_free(virtio_gpu *g);
virtio_dev *virtio_gpu_dev(virtio_gpu *g);
/* Snapshots: transport, resources with their pixels and backing, the
 * command queue and its completion event. Load returns 0, or -1 with the
 * error in r. */
void virtio_gpu_save(const virtio_gpu *g, snap_w *w);
int virtio_gpu_load(virtio_gpu *g, snap_r *r);

#endif
