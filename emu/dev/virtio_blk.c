/* virtio-blk; request layout from virtio 1.2 §5.2.6. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <unistd.h>
#include "virtio_blk.h"
#include "panlab/error.h"

#define F_FLUSH (1ull << 9)
enum { T_IN = 0, T_OUT = 1, T_FLUSH = 4, T_GET_ID = 8 };
enum { S_OK = 0, S_IOERR = 1, S_UNSUPP = 2 };
#define SECTOR 512u
#define HDR_BYTES 16
#define MAX_PENDING 256
#define ID "panlab-sd"

struct virtio_blk {
    virtio_dev *vd;
    virtio_ops ops;
    vt_engine *t;
    int fd;
    uint64_t size;
    blk_timing tm;
    uint64_t drained_ns;        /* the write-back cache is empty from here */
    virtio_req pending[MAX_PENDING];
    int head, count;
    vt_event done;
};

void blk_timing_sd(blk_timing *t)
{
    t->read_latency_ns = 200000;
    t->read_bytes_per_s = 20000000;
    t->write_latency_ns = 100000;
    t->write_bytes_per_s = 10000000;
    t->cache_bytes = 4u << 20;
    t->flush_latency_ns = 2000000;
}

static uint64_t xfer_ns(uint64_t bytes, uint64_t per_s)
{
    return bytes * VT_NS_PER_S / per_s;
}

/* When the head request completes, from the timing model. */
static uint64_t completion(virtio_blk *b, const virtio_req *r, uint32_t type)
{
    uint64_t now = vt_now_ns(b->t);
    uint64_t data = r->out_bytes > HDR_BYTES ? r->out_bytes - HDR_BYTES : 0;
    if (b->drained_ns < now)
        b->drained_ns = now;
    switch (type) {
    case T_IN:
        return now + b->tm.read_latency_ns +
               xfer_ns(r->in_bytes ? r->in_bytes - 1 : 0, b->tm.read_bytes_per_s);
    case T_OUT: {
        /* Wait until the cache has room for this write, then queue it. */
        uint64_t full_ns = xfer_ns(b->tm.cache_bytes, b->tm.write_bytes_per_s);
        uint64_t start = now;
        if (b->drained_ns > now + full_ns)
            start = b->drained_ns - full_ns;
        b->drained_ns += xfer_ns(data, b->tm.write_bytes_per_s);
        return start + b->tm.write_latency_ns;
    }
    case T_FLUSH:
        return b->drained_ns + b->tm.flush_latency_ns;
    default:
        return now;
    }
}

static uint32_t header_type(virtio_blk *b, const virtio_req *r, uint64_t *sector)
{
    uint8_t h[HDR_BYTES] = { 0 };
    uint32_t type;
    if (virtio_req_read(b->vd, r, 0, h, HDR_BYTES) != HDR_BYTES)
        return UINT32_MAX;
    memcpy(&type, h, 4);
    memcpy(sector, h + 8, 8);
    return type;
}

static void start(virtio_blk *b)
{
    if (b->count == 0 || vt_event_pending(&b->done))
        return;
    const virtio_req *r = &b->pending[b->head];
    uint64_t sector;
    vt_schedule(b->t, &b->done, completion(b, r, header_type(b, r, &sector)));
}

/* Moves bytes between the request and the file; returns the status. */
static uint8_t do_io(virtio_blk *b, const virtio_req *r, uint32_t type,
                     uint64_t sector, uint32_t *written)
{
    uint8_t buf[64 * 1024];
    uint64_t off = sector * SECTOR;
    uint32_t len = type == T_IN ? r->in_bytes - 1 : r->out_bytes - HDR_BYTES;
    if (len % SECTOR || off > b->size || len > b->size - off)
        return S_IOERR;
    for (uint32_t done = 0; done < len;) {
        uint32_t k = len - done < sizeof(buf) ? len - done : (uint32_t)sizeof(buf);
        if (type == T_IN) {
            if (pread(b->fd, buf, k, (off_t)(off + done)) != (ssize_t)k)
                return S_IOERR;
            virtio_req_write(b->vd, r, done, buf, k);
        } else {
            virtio_req_read(b->vd, r, HDR_BYTES + done, buf, k);
            if (pwrite(b->fd, buf, k, (off_t)(off + done)) != (ssize_t)k)
                return S_IOERR;
        }
        done += k;
    }
    *written = type == T_IN ? len : 0;
    return S_OK;
}

static void complete(void *opaque)
{
    virtio_blk *b = opaque;
    const virtio_req *r = &b->pending[b->head];
    uint64_t sector = 0;
    uint32_t type = header_type(b, r, &sector), written = 0;
    uint8_t status;
    if (r->in_bytes < 1 || type == UINT32_MAX) {
        status = S_IOERR;
    } else if (type == T_IN || type == T_OUT) {
        status = do_io(b, r, type, sector, &written);
    } else if (type == T_FLUSH) {
        status = fdatasync(b->fd) == 0 ? S_OK : S_IOERR;
    } else if (type == T_GET_ID) {
        /* 20 bytes, NUL-padded (§5.2.6). */
        char id[20] = ID;
        written = (uint32_t)virtio_req_write(b->vd, r, 0, id,
                                             r->in_bytes - 1 < 20 ? r->in_bytes - 1 : 20);
        status = S_OK;
    } else {
        status = S_UNSUPP;
    }
    if (r->in_bytes >= 1)
        virtio_req_write(b->vd, r, r->in_bytes - 1, &status, 1);
    virtio_push(b->vd, r, written + 1);
    b->head = (b->head + 1) % MAX_PENDING;
    b->count--;
    start(b);
}

static void notify(void *opaque, int q)
{
    virtio_blk *b = opaque;
    virtio_req r;
    while (b->count < MAX_PENDING && virtio_pop(b->vd, q, &r) == 1)
        b->pending[(b->head + b->count++) % MAX_PENDING] = r;
    start(b);
}

static void reset(void *opaque)
{
    virtio_blk *b = opaque;
    vt_cancel(b->t, &b->done);
    b->head = b->count = 0;
}

virtio_blk *virtio_blk_new(phys_map *m, irq_line irq, vt_engine *t, int fd,
                           uint64_t size_bytes, const blk_timing *timing)
{
    virtio_blk *b = pl_xcalloc(1, sizeof(*b));
    b->t = t;
    b->fd = fd;
    b->size = size_bytes;
    b->tm = *timing;
    vt_event_init(&b->done, complete, b);
    b->ops = (virtio_ops){ .device_id = 2, .features = F_FLUSH, .nqueues = 1,
                           .notify = notify, .reset = reset };
    b->vd = virtio_new(m, irq, &b->ops, b);
    uint64_t sectors = size_bytes / SECTOR;
    memcpy(virtio_config(b->vd), &sectors, 8);   /* capacity */
    return b;
}

void virtio_blk_free(virtio_blk *b)
{
    if (!b)
        return;
    reset(b);
    virtio_free(b->vd);
    free(b);
}

virtio_dev *virtio_blk_dev(virtio_blk *b)
{
    return b->vd;
}

/* ---- snapshots ---- */

/* The card's contents as the CRC-32 of (offset, bytes) of each 4 KiB
 * block that is not all zero. Holes are skipped unread (SEEK_DATA), so a
 * 64 MiB card that holds a fresh file system costs little to check, and
 * a sparse copy and a full copy of one image give the same value. */
#define CARD_BLOCK 4096u

static uint32_t image_crc(const virtio_blk *b)
{
    static const uint8_t zero[CARD_BLOCK];
    const size_t buf_bytes = 1u << 20;
    uint8_t *buf = malloc(buf_bytes);
    uint32_t crc = (uint32_t)crc32(0, NULL, 0);
    if (!buf)
        return crc ^ 0xffffffffu;       /* cannot check: never matches */
    off_t size = (off_t)b->size;
    for (off_t pos = 0; pos < size;) {
        off_t data = lseek(b->fd, pos, SEEK_DATA), end = size;
        if (data < 0 && errno == ENXIO)
            break;                      /* only holes from here */
        if (data < 0)
            data = pos;                 /* no SEEK_DATA: read it all */
        else if ((end = lseek(b->fd, data, SEEK_HOLE)) < 0 || end > size)
            end = size;
        data &= ~(off_t)(CARD_BLOCK - 1);
        for (off_t off = data; off < end;) {
            size_t want = (size_t)(end - off) < buf_bytes ? (size_t)(end - off)
                                                          : buf_bytes;
            ssize_t n = pread(b->fd, buf, want, off);
            if (n <= 0) {
                free(buf);
                return crc ^ 0xffffffffu;   /* unreadable: never matches */
            }
            for (ssize_t k = 0; k < n; k += CARD_BLOCK) {
                size_t len = (size_t)(n - k) < CARD_BLOCK ? (size_t)(n - k) : CARD_BLOCK;
                if (!memcmp(buf + k, zero, len))
                    continue;
                uint8_t at[8];
                for (int i = 0; i < 8; i++)
                    at[i] = (uint8_t)((uint64_t)(off + k) >> (8 * i));
                crc = (uint32_t)crc32(crc, at, 8);
                crc = (uint32_t)crc32(crc, buf + k, (uInt)len);
            }
            off += n;
        }
        pos = end;
    }
    free(buf);
    return crc;
}

void virtio_blk_save(const virtio_blk *b, snap_w *w)
{
    virtio_save(b->vd, w);
    snap_put_u64(w, b->size);
    snap_put_u32(w, image_crc(b));
    snap_put_u64(w, b->drained_ns);
    snap_put_u32(w, (uint32_t)b->count);
    for (int i = 0; i < b->count; i++)
        virtio_req_save(&b->pending[(b->head + i) % MAX_PENDING], w);
    vt_event_save(&b->done, w);
}

int virtio_blk_load(virtio_blk *b, snap_r *r)
{
    if (virtio_load(b->vd, r) < 0)
        return -1;
    uint64_t size = snap_get_u64(r);
    uint32_t crc = snap_get_u32(r);
    if (snap_r_failed(r))
        return -1;
    uint32_t now = image_crc(b);
    if (size != b->size || crc != now)
        return snap_r_fail(r, "the SD card was a %llu-byte image with CRC-32 "
                           "%08x; this run's is %llu bytes, %08x (give a "
                           "fresh copy of the card it was saved with)",
                           (unsigned long long)size, crc,
                           (unsigned long long)b->size, now);
    b->drained_ns = snap_get_u64(r);
    b->head = 0;
    b->count = (int)snap_get_u32_max(r, MAX_PENDING, "pending disk requests");
    for (int i = 0; i < b->count; i++)
        if (virtio_req_load(b->vd, &b->pending[i], r) < 0)
            return -1;
    return vt_event_load(b->t, &b->done, r);
}
