/* virtio-net (virtio 1.2 §5.1): one Ethernet interface with a fixed MAC
 * address. Frames the guest sends go to the host callback when the guest
 * queues them; frames from the host are delivered as soon as the guest
 * has posted receive buffers (up to NET_RX_BACKLOG wait, then they are
 * dropped, as a NIC would). Timing of the wire is the host side's.
 *
 * Ownership: virtio_net_new() allocates, virtio_net_free() frees. */
#ifndef PANLAB_DEV_VIRTIO_NET_H
#define PANLAB_DEV_VIRTIO_NET_H

#include "../time.h"
#include "virtio.h"

#define NET_RX_BACKLOG 64
#define NET_FRAME_MAX 1514

typedef struct net_host {
    void *opaque;
    void (*send)(void *opaque, const uint8_t *frame, size_t len_bytes);
} net_host;

typedef struct virtio_net virtio_net;

virtio_net *virtio_net_new(phys_map *m, irq_line irq, const uint8_t mac[6],
                           net_host host);
void virtio_net_free(virtio_net *n);
virtio_dev *virtio_net_dev(virtio_net *n);
/* A frame for the guest; returns -1 if it was dropped. */
int virtio_net_receive(virtio_net *n, const uint8_t *frame, size_t len_bytes);
/* Snapshots: transport and waiting frames. Load returns 0, or -1 with the
 * error in r. */
void virtio_net_save(const virtio_net *n, snap_w *w);
int virtio_net_load(virtio_net *n, snap_r *r);

#endif
