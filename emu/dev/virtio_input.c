/* virtio-input device; config selectors from virtio 1.2 §5.8.4. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/input-event-codes.h>
#include "virtio_input.h"
#include "panlab/error.h"

enum {
    CFG_ID_NAME = 0x01, CFG_ID_DEVIDS = 0x03, CFG_PROP_BITS = 0x10, CFG_EV_BITS = 0x11,
    CFG_ABS_INFO = 0x12,
};
enum { EVENTQ = 0, STATUSQ = 1 };
#define NAME "panlab-touch"
#define MAX_EVENTS 1024
#define MAX_FRAMES 256

typedef struct frame_mark {
    uint32_t end;               /* events queued up to and including it */
    uint64_t tag;
} frame_mark;

struct virtio_input {
    virtio_dev *vd;
    virtio_ops ops;
    vt_engine *t;
    input_host host;
    uint8_t key_bits[128];      /* EV_KEY bitmap, the config union's size */
    input_ev ev[MAX_EVENTS];
    uint32_t ev_head, ev_count;
    frame_mark frame[MAX_FRAMES];
    uint32_t fr_head, fr_count;
    uint32_t sent;              /* events delivered since reset, mod 2^32 */
};

/* Answers the driver's select/subsel with size and data (§5.8.4). */
static void config_written(void *opaque, uint32_t off, uint32_t len)
{
    virtio_input *v = opaque;
    uint8_t *cfg = virtio_config(v->vd);
    (void)len;
    if (off > 1)                /* only select and subsel matter */
        return;
    uint8_t sel = cfg[0], sub = cfg[1], size = 0;
    uint8_t *u = cfg + 8;
    memset(u, 0, 128);
    switch (sel) {
    case CFG_ID_NAME:
        size = sizeof(NAME) - 1;
        memcpy(u, NAME, size);
        break;
    case CFG_ID_DEVIDS: {
        uint16_t ids[4] = { 0x06 /* BUS_VIRTUAL */, 0x0001, 0x0001, 0x0001 };
        memcpy(u, ids, sizeof(ids));
        size = sizeof(ids);
        break;
    }
    case CFG_PROP_BITS:
        if (sub == 0) {
            u[0] = 1u << INPUT_PROP_DIRECT;
            size = 1;
        }
        break;
    case CFG_EV_BITS:
        if (sub == EV_KEY) {
            memcpy(u, v->key_bits, 128);
            size = 128;
            while (size && !u[size - 1])
                size--;
        } else if (sub == EV_ABS) {
            u[0] = 1u << ABS_X | 1u << ABS_Y;
            size = 1;
        } else if (sub == EV_MSC) {
            u[0] = 1u << MSC_RAW;
            size = 1;
        }
        break;
    case CFG_ABS_INFO:
        if (sub == ABS_X || sub == ABS_Y) {
            /* min, max, fuzz, flat, res */
            uint32_t info[5] = { 0, sub == ABS_X ? 479 : 799, 0, 0, 0 };
            memcpy(u, info, sizeof(info));
            size = sizeof(info);
        }
        break;
    default:
        break;
    }
    cfg[2] = size;
}

/* Delivers whole frames while the guest has buffers for them. */
static void deliver(virtio_input *v)
{
    while (v->fr_count > 0) {
        frame_mark *f = &v->frame[v->fr_head];
        while (v->sent != f->end) {
            virtio_req r;
            if (virtio_pop(v->vd, EVENTQ, &r) != 1)
                return;
            input_ev *e = &v->ev[v->ev_head];
            /* struct virtio_input_event: le16 type, le16 code, le32 value */
            uint8_t b[8];
            memcpy(b, &e->type, 2);
            memcpy(b + 2, &e->code, 2);
            memcpy(b + 4, &e->value, 4);
            size_t n = virtio_req_write(v->vd, &r, 0, b, sizeof(b));
            virtio_push(v->vd, &r, (uint32_t)n);
            v->ev_head = (v->ev_head + 1) % MAX_EVENTS;
            v->ev_count--;
            v->sent++;
        }
        if (v->host.delivered)
            v->host.delivered(v->host.opaque, f->tag, vt_now_ns(v->t));
        v->fr_head = (v->fr_head + 1) % MAX_FRAMES;
        v->fr_count--;
    }
}

int virtio_input_send(virtio_input *v, const input_ev *ev, size_t n,
                      uint64_t tag)
{
    if (v->fr_count == MAX_FRAMES || v->ev_count + n > MAX_EVENTS)
        return -1;
    for (size_t i = 0; i < n; i++)
        v->ev[(v->ev_head + v->ev_count++) % MAX_EVENTS] = ev[i];
    frame_mark *f = &v->frame[(v->fr_head + v->fr_count++) % MAX_FRAMES];
    f->end = v->sent + v->ev_count;
    f->tag = tag;
    deliver(v);
    return 0;
}

static void notify(void *opaque, int q)
{
    virtio_input *v = opaque;
    virtio_req r;
    if (q == EVENTQ) {
        deliver(v);
        return;
    }
    /* Status (LED) events from the driver are accepted and ignored. */
    while (virtio_pop(v->vd, STATUSQ, &r) == 1)
        virtio_push(v->vd, &r, 0);
}

virtio_input *virtio_input_new(phys_map *m, irq_line irq, vt_engine *t,
                               const uint16_t *keys, size_t nkeys,
                               input_host host)
{
    virtio_input *v = pl_xcalloc(1, sizeof(*v));
    v->t = t;
    v->host = host;
    v->key_bits[BTN_TOUCH / 8] |= (uint8_t)(1u << (BTN_TOUCH % 8));
    for (size_t i = 0; i < nkeys; i++)
        if (keys[i] < 128 * 8)
            v->key_bits[keys[i] / 8] |= (uint8_t)(1u << (keys[i] % 8));
    v->ops = (virtio_ops){ .device_id = 18, .nqueues = 2, .notify = notify,
                           .config_written = config_written };
    v->vd = virtio_new(m, irq, &v->ops, v);
    return v;
}

void virtio_input_free(virtio_input *v)
{
    if (!v)
        return;
    virtio_free(v->vd);
    free(v);
}

virtio_dev *virtio_input_dev(virtio_input *v)
{
    return v->vd;
}

/* ---- snapshots ---- */

void virtio_input_save(const virtio_input *v, snap_w *w)
{
    virtio_save(v->vd, w);
    snap_put_u32(w, v->ev_count);
    for (uint32_t i = 0; i < v->ev_count; i++) {
        const input_ev *e = &v->ev[(v->ev_head + i) % MAX_EVENTS];
        snap_put_u16(w, e->type);
        snap_put_u16(w, e->code);
        snap_put_i32(w, e->value);
    }
    snap_put_u32(w, v->fr_count);
    for (uint32_t i = 0; i < v->fr_count; i++) {
        const frame_mark *f = &v->frame[(v->fr_head + i) % MAX_FRAMES];
        snap_put_u32(w, f->end);
        snap_put_u64(w, f->tag);
    }
    snap_put_u32(w, v->sent);
}

int virtio_input_load(virtio_input *v, snap_r *r)
{
    if (virtio_load(v->vd, r) < 0)
        return -1;
    v->ev_head = v->fr_head = 0;
    v->ev_count = snap_get_u32_max(r, MAX_EVENTS, "queued input events");
    for (uint32_t i = 0; i < v->ev_count; i++) {
        v->ev[i].type = snap_get_u16(r);
        v->ev[i].code = snap_get_u16(r);
        v->ev[i].value = snap_get_i32(r);
    }
    v->fr_count = snap_get_u32_max(r, MAX_FRAMES, "queued input frames");
    for (uint32_t i = 0; i < v->fr_count; i++) {
        v->frame[i].end = snap_get_u32(r);
        v->frame[i].tag = snap_get_u64(r);
    }
    v->sent = snap_get_u32(r);
    return snap_r_failed(r) ? -1 : 0;
}
