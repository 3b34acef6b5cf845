/* virtio-console with the multiport feature (virtio 1.2 §5.3): named
 * ports whose output goes to host byte sinks. The guest finds a port by
 * its name under /sys/class/virtio-ports/vportNpM/name. Output is taken
 * when the guest queues it; input the host sends waits in the device
 * until the guest has posted receive buffers on that port.
 *
 * Ownership: virtio_console_new() allocates, virtio_console_free()
 * frees. Names are copied; sinks' opaque pointers stay the caller's. */
#ifndef PANLAB_DEV_VIRTIO_CONSOLE_H
#define PANLAB_DEV_VIRTIO_CONSOLE_H

#include "virtio.h"
#include "pl011.h"
#include "panlab/error.h"

#define VCON_MAX_PORTS 6

typedef struct virtio_console virtio_console;

/* Ports get ids 1..nports (id 0 is the legacy console port, unused).
 * Returns NULL with err set when nports is not 0..VCON_MAX_PORTS. */
virtio_console *virtio_console_new(phys_map *m, irq_line irq, int nports,
                                   const char *const *names,
                                   const byte_sink *outs, struct pl_error *err);
void virtio_console_free(virtio_console *c);
virtio_dev *virtio_console_dev(virtio_console *c);
/* Sends bytes to the guest on the named port. Returns 0, or -1 if there
 * is no such port or more than VCON_INPUT_BYTES would be waiting. */
#define VCON_INPUT_BYTES 4096
int virtio_console_send(virtio_console *c, const char *port,
                        const uint8_t *buf, size_t len_bytes);
/* Snapshots: transport, port names (checked on load), pending control
 * messages and input. Load returns 0, or -1 with the error in r. */
void virtio_console_save(const virtio_console *c, snap_w *w);
int virtio_console_load(virtio_console *c, snap_r *r);

#endif
