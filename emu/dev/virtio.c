/* virtio-mmio transport and split virtqueues (virtio 1.2 §4.2, §2.7). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "virtio.h"
#include "panlab/error.h"

#define MMIO_MAGIC 0x74726976u   /* "virt" */
#define MMIO_VENDOR 0x424c4e50u  /* "PNLB" */
#define VRING_DESC_F_NEXT 1u
#define VRING_DESC_F_WRITE 2u
#define VRING_AVAIL_F_NO_INTERRUPT 1u
enum { INT_VRING = 1 };
enum { STATUS_DRIVER_OK = 4 };

typedef struct vqueue {
    uint32_t num;
    uint32_t ready;
    uint64_t desc, avail, used;
    uint16_t last_avail;
    uint16_t used_idx;
    int broken;
} vqueue;

struct virtio_dev {
    const virtio_ops *ops;
    void *opaque;
    phys_map *map;
    irq_line irq;
    uint32_t dev_features_sel, drv_features_sel;
    uint64_t drv_features;
    uint32_t queue_sel;
    uint32_t int_status;
    uint32_t status;
    vqueue q[VIRTIO_MAX_QUEUES];
    uint8_t config[VIRTIO_CONFIG_BYTES];
};

virtio_dev *virtio_new(phys_map *m, irq_line irq, const virtio_ops *ops,
                       void *opaque)
{
    virtio_dev *d = pl_xcalloc(1, sizeof(*d));
    d->map = m;
    d->irq = irq;
    d->ops = ops;
    d->opaque = opaque;
    return d;
}

void virtio_free(virtio_dev *d)
{
    free(d);
}

uint8_t *virtio_config(virtio_dev *d) { return d->config; }
uint64_t virtio_driver_features(const virtio_dev *d) { return d->drv_features; }

int virtio_queue_ready(const virtio_dev *d, int q)
{
    return q < d->ops->nqueues && d->q[q].ready && !d->q[q].broken;
}

static void update_irq(virtio_dev *d)
{
    irq_set(&d->irq, d->int_status != 0);
}

static void reset(virtio_dev *d)
{
    d->dev_features_sel = d->drv_features_sel = 0;
    d->drv_features = 0;
    d->queue_sel = 0;
    d->int_status = 0;
    d->status = 0;
    memset(d->q, 0, sizeof(d->q));
    update_irq(d);
    if (d->ops->reset)
        d->ops->reset(d->opaque);
}

/* ---- guest memory ---- */

static void *gmem(virtio_dev *d, uint64_t addr, uint32_t len)
{
    if (addr >> 32 || (addr + len) >> 32)
        return NULL;
    return phys_ram_ptr(d->map, (uint32_t)addr, len);
}

void *virtio_guest_ptr(virtio_dev *d, uint64_t addr, uint32_t len_bytes)
{
    return gmem(d, addr, len_bytes);
}

static uint16_t rd16(virtio_dev *d, uint64_t addr)
{
    uint8_t *p = gmem(d, addr, 2);
    return p ? (uint16_t)(p[0] | p[1] << 8) : 0;
}

static void wr16(virtio_dev *d, uint64_t addr, uint16_t v)
{
    uint8_t *p = gmem(d, addr, 2);
    if (p) {
        p[0] = (uint8_t)v;
        p[1] = (uint8_t)(v >> 8);
    }
}

typedef struct vdesc {
    uint64_t addr;
    uint32_t len;
    uint16_t flags, next;
} vdesc;

/* Descriptor table entries are 16 bytes, §2.7.5. */
static int get_desc(virtio_dev *d, vqueue *vq, uint32_t i, vdesc *out)
{
    uint8_t *p = gmem(d, vq->desc + 16ull * i, 16);
    if (!p || i >= vq->num)
        return -1;
    memcpy(&out->addr, p, 8);
    memcpy(&out->len, p + 8, 4);
    memcpy(&out->flags, p + 12, 2);
    memcpy(&out->next, p + 14, 2);
    return 0;
}

static void broken(virtio_dev *d, int q, const char *why)
{
    if (!d->q[q].broken)
        fprintf(stderr, "virtio device %u, queue %d: %s; queue stopped\n",
                d->ops->device_id, q, why);
    d->q[q].broken = 1;
}

int virtio_pop(virtio_dev *d, int q, virtio_req *r)
{
    if (!virtio_queue_ready(d, q))
        return 0;
    vqueue *vq = &d->q[q];
    uint16_t avail_idx = rd16(d, vq->avail + 2);
    if (avail_idx == vq->last_avail)
        return 0;
    uint16_t head = rd16(d, vq->avail + 4 + 2ull * (vq->last_avail % vq->num));
    vq->last_avail++;
    r->q = q;
    r->head = head;
    r->out_bytes = r->in_bytes = 0;
    vdesc ds;
    uint32_t i = head, n = 0;
    for (;;) {
        if (get_desc(d, vq, i, &ds) < 0 || !gmem(d, ds.addr, ds.len)) {
            broken(d, q, "descriptor outside the queue or RAM");
            return -1;
        }
        if (ds.flags & VRING_DESC_F_WRITE) {
            r->in_bytes += ds.len;
        } else if (r->in_bytes) {
            broken(d, q, "readable descriptor after a writable one");
            return -1;
        } else {
            r->out_bytes += ds.len;
        }
        if (!(ds.flags & VRING_DESC_F_NEXT))
            return 1;
        if (++n >= vq->num) {
            broken(d, q, "descriptor chain loops");
            return -1;
        }
        i = ds.next;
    }
}

/* Copies between buf and the chain's readable (write = 0) or writable
 * (write = 1) bytes starting at offset off within that part. */
static size_t copy(virtio_dev *d, const virtio_req *r, int write, uint32_t off,
                   uint8_t *buf, size_t len)
{
    vqueue *vq = &d->q[r->q];
    vdesc ds;
    uint32_t i = r->head;
    size_t done = 0;
    for (uint32_t n = 0; n < vq->num && done < len; n++) {
        if (get_desc(d, vq, i, &ds) < 0)
            break;
        if (!!(ds.flags & VRING_DESC_F_WRITE) == write) {
            if (off >= ds.len) {
                off -= ds.len;
            } else {
                size_t k = ds.len - off;
                if (k > len - done)
                    k = len - done;
                uint8_t *p = gmem(d, ds.addr + off, (uint32_t)k);
                if (!p)
                    break;
                if (write)
                    memcpy(p, buf + done, k);
                else
                    memcpy(buf + done, p, k);
                done += k;
                off = 0;
            }
        }
        if (!(ds.flags & VRING_DESC_F_NEXT))
            break;
        i = ds.next;
    }
    return done;
}

size_t virtio_req_read(virtio_dev *d, const virtio_req *r, uint32_t off,
                       void *buf, size_t len_bytes)
{
    return copy(d, r, 0, off, buf, len_bytes);
}

size_t virtio_req_write(virtio_dev *d, const virtio_req *r, uint32_t off,
                        const void *buf, size_t len_bytes)
{
    return copy(d, r, 1, off, (uint8_t *)buf, len_bytes);
}

void virtio_push(virtio_dev *d, const virtio_req *r, uint32_t written_bytes)
{
    vqueue *vq = &d->q[r->q];
    if (!vq->ready)
        return;                 /* reset while the request was in flight */
    /* Used ring: flags, idx, then {id, len} elements, §2.7.8. */
    uint8_t *e = gmem(d, vq->used + 4 + 8ull * (vq->used_idx % vq->num), 8);
    if (!e) {
        broken(d, r->q, "used ring outside RAM");
        return;
    }
    uint32_t id = r->head;
    memcpy(e, &id, 4);
    memcpy(e + 4, &written_bytes, 4);
    vq->used_idx++;
    wr16(d, vq->used + 2, vq->used_idx);
    if (!(rd16(d, vq->avail) & VRING_AVAIL_F_NO_INTERRUPT)) {
        d->int_status |= INT_VRING;
        update_irq(d);
    }
}

/* ---- MMIO registers, §4.2.2 ---- */

static uint32_t lo(uint64_t v) { return (uint32_t)v; }
static uint32_t hi(uint64_t v) { return (uint32_t)(v >> 32); }
static void set_lo(uint64_t *v, uint32_t x) { *v = (*v & ~0xffffffffull) | x; }
static void set_hi(uint64_t *v, uint32_t x) { *v = (*v & 0xffffffffull) | (uint64_t)x << 32; }

uint32_t virtio_mmio_read(void *opaque, uint32_t off, int size_log2)
{
    virtio_dev *d = opaque;
    if (off >= 0x100) {
        uint32_t v = 0, n = 1u << size_log2;
        off -= 0x100;
        if (off + n <= VIRTIO_CONFIG_BYTES)
            memcpy(&v, d->config + off, n);
        return v;
    }
    if (size_log2 != 2)
        return 0;               /* §4.2.2.2: registers are 32-bit only */
    vqueue *vq = &d->q[d->queue_sel < VIRTIO_MAX_QUEUES ? d->queue_sel : 0];
    int qok = d->queue_sel < (uint32_t)d->ops->nqueues;
    uint64_t feat = d->ops->features | VIRTIO_F_VERSION_1;
    switch (off) {
    case 0x000: return MMIO_MAGIC;
    case 0x004: return 2;
    case 0x008: return d->ops->device_id;
    case 0x00c: return MMIO_VENDOR;
    case 0x010: return d->dev_features_sel == 0 ? lo(feat)
                     : d->dev_features_sel == 1 ? hi(feat) : 0;
    case 0x034: return qok ? VIRTIO_QUEUE_MAX : 0;
    case 0x044: return qok ? vq->ready : 0;
    case 0x060: return d->int_status;
    case 0x070: return d->status;
    case 0x080: return lo(vq->desc);
    case 0x084: return hi(vq->desc);
    case 0x090: return lo(vq->avail);
    case 0x094: return hi(vq->avail);
    case 0x0a0: return lo(vq->used);
    case 0x0a4: return hi(vq->used);
    case 0x0b0: case 0x0b4: return 0xffffffffu;  /* no shared memory */
    case 0x0fc: return 0;       /* ConfigGeneration: config never changes */
    default: return 0;
    }
}

void virtio_mmio_write(void *opaque, uint32_t off, uint32_t val, int size_log2)
{
    virtio_dev *d = opaque;
    if (off >= 0x100) {
        uint32_t n = 1u << size_log2;
        off -= 0x100;
        if (off + n <= VIRTIO_CONFIG_BYTES) {
            memcpy(d->config + off, &val, n);
            if (d->ops->config_written)
                d->ops->config_written(d->opaque, off, n);
        }
        return;
    }
    if (size_log2 != 2)
        return;
    int qok = d->queue_sel < (uint32_t)d->ops->nqueues;
    vqueue *vq = &d->q[qok ? d->queue_sel : 0];
    switch (off) {
    case 0x014: d->dev_features_sel = val; break;
    case 0x020:
        if (d->drv_features_sel == 0)
            set_lo(&d->drv_features, val);
        else if (d->drv_features_sel == 1)
            set_hi(&d->drv_features, val);
        break;
    case 0x024: d->drv_features_sel = val; break;
    case 0x030: d->queue_sel = val; break;
    case 0x038:
        /* Split queue sizes are powers of two, §2.7. */
        if (qok && val && val <= VIRTIO_QUEUE_MAX && !(val & (val - 1)))
            vq->num = val;
        break;
    case 0x044:
        if (qok) {
            vq->ready = val & 1;
            if (vq->ready && !vq->num)
                vq->num = VIRTIO_QUEUE_MAX;
        }
        break;
    case 0x050:
        if (val < (uint32_t)d->ops->nqueues && d->ops->notify)
            d->ops->notify(d->opaque, (int)val);
        break;
    case 0x064:
        d->int_status &= ~val;
        update_irq(d);
        break;
    case 0x070:
        if (val == 0) {
            reset(d);
        } else {
            uint32_t was = d->status;
            d->status = val;
            if (!(was & STATUS_DRIVER_OK) && (val & STATUS_DRIVER_OK) &&
                d->ops->driver_ok)
                d->ops->driver_ok(d->opaque);
        }
        break;
    case 0x080: if (qok) set_lo(&vq->desc, val); break;
    case 0x084: if (qok) set_hi(&vq->desc, val); break;
    case 0x090: if (qok) set_lo(&vq->avail, val); break;
    case 0x094: if (qok) set_hi(&vq->avail, val); break;
    case 0x0a0: if (qok) set_lo(&vq->used, val); break;
    case 0x0a4: if (qok) set_hi(&vq->used, val); break;
    default: break;
    }
}

void virtio_register(virtio_dev *d, uint32_t addr)
{
    phys_register_device(d->map, addr, VIRTIO_MMIO_SIZE, d, virtio_mmio_read,
                         virtio_mmio_write);
}

/* ---- snapshots ---- */

void virtio_save(const virtio_dev *d, snap_w *w)
{
    snap_put_u32(w, d->ops->device_id);
    snap_put_u32(w, (uint32_t)d->ops->nqueues);
    snap_put_u32(w, d->dev_features_sel);
    snap_put_u32(w, d->drv_features_sel);
    snap_put_u64(w, d->drv_features);
    snap_put_u32(w, d->queue_sel);
    snap_put_u32(w, d->int_status);
    snap_put_u32(w, d->status);
    for (int i = 0; i < d->ops->nqueues; i++) {
        const vqueue *q = &d->q[i];
        snap_put_u32(w, q->num);
        snap_put_u32(w, q->ready);
        snap_put_u64(w, q->desc);
        snap_put_u64(w, q->avail);
        snap_put_u64(w, q->used);
        snap_put_u16(w, q->last_avail);
        snap_put_u16(w, q->used_idx);
        snap_put_u32(w, (uint32_t)q->broken);
    }
    snap_put_bytes(w, d->config, VIRTIO_CONFIG_BYTES);
}

int virtio_load(virtio_dev *d, snap_r *r)
{
    uint32_t id = snap_get_u32(r), nq = snap_get_u32(r);
    if (!snap_r_failed(r) && (id != d->ops->device_id ||
                              nq != (uint32_t)d->ops->nqueues))
        return snap_r_fail(r, "virtio device %u with %u queues, expected "
                           "device %u with %d (another machine "
                           "configuration?)", id, nq, d->ops->device_id,
                           d->ops->nqueues);
    d->dev_features_sel = snap_get_u32(r);
    d->drv_features_sel = snap_get_u32(r);
    d->drv_features = snap_get_u64(r);
    d->queue_sel = snap_get_u32(r);
    d->int_status = snap_get_u32(r);
    d->status = snap_get_u32(r);
    for (int i = 0; i < d->ops->nqueues; i++) {
        vqueue *q = &d->q[i];
        q->num = snap_get_u32_max(r, VIRTIO_QUEUE_MAX, "virtqueue size");
        if (q->num & (q->num - 1))
            return snap_r_fail(r, "virtqueue size %u, expected a power of "
                               "two", q->num);
        q->ready = snap_get_u32_max(r, 1, "virtqueue ready");
        q->desc = snap_get_u64(r);
        q->avail = snap_get_u64(r);
        q->used = snap_get_u64(r);
        q->last_avail = snap_get_u16(r);
        q->used_idx = snap_get_u16(r);
        q->broken = (int)snap_get_u32_max(r, 1, "virtqueue broken flag");
    }
    snap_get_bytes(r, d->config, VIRTIO_CONFIG_BYTES);
    return snap_r_failed(r) ? -1 : 0;
}

void virtio_req_save(const virtio_req *q, snap_w *w)
{
    snap_put_u32(w, (uint32_t)q->q);
    snap_put_u16(w, q->head);
    snap_put_u32(w, q->out_bytes);
    snap_put_u32(w, q->in_bytes);
}

int virtio_req_load(const virtio_dev *d, virtio_req *q, snap_r *r)
{
    q->q = (int)snap_get_u32_max(r, (uint32_t)d->ops->nqueues - 1,
                                 "request queue");
    q->head = snap_get_u16(r);
    q->out_bytes = snap_get_u32(r);
    q->in_bytes = snap_get_u32(r);
    return snap_r_failed(r) ? -1 : 0;
}
