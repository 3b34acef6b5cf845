/* virtio-net; header layout from virtio 1.2 §5.1.6. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "virtio_net.h"
#include "panlab/error.h"

#define F_MAC (1ull << 5)
/* struct virtio_net_hdr with VIRTIO_F_VERSION_1: 12 bytes, num_buffers
 * included (§5.1.6). */
#define HDR_BYTES 12
enum { RXQ = 0, TXQ = 1 };

typedef struct frame {
    uint16_t len;
    uint8_t data[NET_FRAME_MAX];
} frame;

struct virtio_net {
    virtio_dev *vd;
    virtio_ops ops;
    net_host host;
    frame rx[NET_RX_BACKLOG];
    int head, count;
};

/* Copies queued frames into the guest's receive buffers. */
static void deliver(virtio_net *n)
{
    virtio_req r;
    while (n->count > 0 && virtio_pop(n->vd, RXQ, &r) == 1) {
        frame *f = &n->rx[n->head];
        uint8_t hdr[HDR_BYTES] = { 0 };
        hdr[10] = 1;            /* num_buffers */
        size_t k = virtio_req_write(n->vd, &r, 0, hdr, HDR_BYTES);
        k += virtio_req_write(n->vd, &r, HDR_BYTES, f->data, f->len);
        virtio_push(n->vd, &r, (uint32_t)k);
        n->head = (n->head + 1) % NET_RX_BACKLOG;
        n->count--;
    }
}

int virtio_net_receive(virtio_net *n, const uint8_t *data, size_t len)
{
    if (len > NET_FRAME_MAX || n->count == NET_RX_BACKLOG)
        return -1;
    frame *f = &n->rx[(n->head + n->count++) % NET_RX_BACKLOG];
    f->len = (uint16_t)len;
    memcpy(f->data, data, len);
    deliver(n);
    return 0;
}

static void notify(void *opaque, int q)
{
    virtio_net *n = opaque;
    virtio_req r;
    if (q == RXQ) {
        deliver(n);
        return;
    }
    while (virtio_pop(n->vd, TXQ, &r) == 1) {
        uint8_t buf[NET_FRAME_MAX];
        uint32_t len = r.out_bytes > HDR_BYTES ? r.out_bytes - HDR_BYTES : 0;
        if (len <= sizeof(buf) &&
            virtio_req_read(n->vd, &r, HDR_BYTES, buf, len) == len && len)
            n->host.send(n->host.opaque, buf, len);
        virtio_push(n->vd, &r, 0);
    }
}

static void reset(void *opaque)
{
    virtio_net *n = opaque;
    n->head = n->count = 0;
}

virtio_net *virtio_net_new(phys_map *m, irq_line irq, const uint8_t mac[6],
                           net_host host)
{
    virtio_net *n = pl_xcalloc(1, sizeof(*n));
    n->host = host;
    n->ops = (virtio_ops){ .device_id = 1, .features = F_MAC, .nqueues = 2,
                           .notify = notify, .reset = reset };
    n->vd = virtio_new(m, irq, &n->ops, n);
    memcpy(virtio_config(n->vd), mac, 6);
    return n;
}

void virtio_net_free(virtio_net *n)
{
    if (!n)
        return;
    virtio_free(n->vd);
    free(n);
}

virtio_dev *virtio_net_dev(virtio_net *n)
{
    return n->vd;
}

/* ---- snapshots ---- */

void virtio_net_save(const virtio_net *n, snap_w *w)
{
    virtio_save(n->vd, w);
    snap_put_u32(w, (uint32_t)n->count);
    for (int i = 0; i < n->count; i++) {
        const frame *f = &n->rx[(n->head + i) % NET_RX_BACKLOG];
        snap_put_u32(w, f->len);
        snap_put_bytes(w, f->data, f->len);
    }
}

int virtio_net_load(virtio_net *n, snap_r *r)
{
    if (virtio_load(n->vd, r) < 0)
        return -1;
    n->head = 0;
    n->count = (int)snap_get_u32_max(r, NET_RX_BACKLOG, "waiting frames");
    for (int i = 0; i < n->count; i++) {
        n->rx[i].len = (uint16_t)snap_get_u32_max(r, NET_FRAME_MAX, "frame length");
        snap_get_bytes(r, n->rx[i].data, n->rx[i].len);
    }
    return snap_r_failed(r) ? -1 : 0;
}
