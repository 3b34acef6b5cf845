/* virtio-input (virtio 1.2 §5.8): the phone's touchscreen and keys as one
 * device, "panlab-touch", shaped like the replay injector's uinput device
 * (replay/include/panlab/replay.h) so the guest's input stack cannot tell
 * them apart: INPUT_PROP_DIRECT, ABS_X 0..479, ABS_Y 0..799, BTN_TOUCH,
 * MSC_RAW and the given key codes.
 *
 * The host queues whole frames (events up to SYN_REPORT); a frame is
 * delivered when the guest has posted buffers for all its events, and
 * the delivery time is reported through the callback.
 *
 * Ownership: virtio_input_new() allocates, virtio_input_free() frees;
 * keys are copied. */
#ifndef PANLAB_DEV_VIRTIO_INPUT_H
#define PANLAB_DEV_VIRTIO_INPUT_H

#include "../time.h"
#include "virtio.h"

typedef struct input_ev {
    uint16_t type, code;
    int32_t value;
} input_ev;

typedef struct input_host {
    void *opaque;
    /* Frame `tag` (the caller's) reached the guest at engine_ns. */
    void (*delivered)(void *opaque, uint64_t tag, uint64_t engine_ns);
} input_host;

typedef struct virtio_input virtio_input;

virtio_input *virtio_input_new(phys_map *m, irq_line irq, vt_engine *t,
                               const uint16_t *keys, size_t nkeys,
                               input_host host);
void virtio_input_free(virtio_input *v);
virtio_dev *virtio_input_dev(virtio_input *v);
/* Queues one frame; n events, the last of which should be SYN_REPORT.
 * Returns -1 if the device's queue is full. */
/* Snapshots: transport and the queued events. Load returns 0, or -1 with
 * the error in r. */
void virtio_input_save(const virtio_input *v, snap_w *w);
int virtio_input_load(virtio_input *v, snap_r *r);
int virtio_input_send(virtio_input *v, const input_ev *ev, size_t n,
                      uint64_t tag);

#endif
