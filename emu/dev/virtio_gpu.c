/* virtio-gpu 2D; command layouts from virtio 1.2 §5.7.6. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "virtio_gpu.h"
#include "panlab/error.h"

enum {
    CMD_GET_DISPLAY_INFO = 0x0100, CMD_RESOURCE_CREATE_2D, CMD_RESOURCE_UNREF,
    CMD_SET_SCANOUT, CMD_RESOURCE_FLUSH, CMD_TRANSFER_TO_HOST_2D,
    CMD_RESOURCE_ATTACH_BACKING, CMD_RESOURCE_DETACH_BACKING,
    RESP_OK_NODATA = 0x1100, RESP_OK_DISPLAY_INFO,
    RESP_ERR_UNSPEC = 0x1200, RESP_ERR_OUT_OF_MEMORY,
    RESP_ERR_INVALID_SCANOUT_ID, RESP_ERR_INVALID_RESOURCE_ID,
    RESP_ERR_INVALID_CONTEXT_ID, RESP_ERR_INVALID_PARAMETER,
};
#define FLAG_FENCE 1u
#define HDR_BYTES 24
#define MAX_RESOURCES 64
#define MAX_BACKING 16384
#define MAX_PENDING 256
enum { CONTROLQ = 0, CURSORQ = 1 };

/* Latency model: a fixed cost per command plus the bytes a transfer
 * copies at a memory-copy bandwidth; one command at a time, in order. */
#define CMD_NS 5000ull
#define COPY_BYTES_PER_US 2000ull

typedef struct gpu_rect {
    uint32_t x, y, w, h;
} gpu_rect;

typedef struct backing {
    uint64_t addr;
    uint32_t len;
} backing;

typedef struct resource {
    uint32_t id;                /* 0: free slot */
    uint32_t width, height;
    uint8_t *pixels;            /* width * height * 4 bytes */
    backing *mem;
    uint32_t nmem;
} resource;

typedef struct outcome {
    uint32_t type;
    uint8_t body[16 * 24];      /* display info is the largest */
    uint32_t body_bytes;
    uint64_t latency_ns;
    int frame;
} outcome;

struct virtio_gpu {
    virtio_dev *vd;
    virtio_ops ops;
    vt_engine *t;
    gpu_host host;
    resource res[MAX_RESOURCES];
    uint32_t scanout_res;
    virtio_req pending[MAX_PENDING];
    int head, count;
    outcome out;                /* of the command at the head */
    vt_event done;
};

static resource *find(virtio_gpu *g, uint32_t id)
{
    for (int i = 0; id && i < MAX_RESOURCES; i++)
        if (g->res[i].id == id)
            return &g->res[i];
    return NULL;
}

static void drop(resource *r)
{
    free(r->pixels);
    free(r->mem);
    memset(r, 0, sizeof(*r));
}

static uint32_t u32_at(const uint8_t *p, int off)
{
    uint32_t v;
    memcpy(&v, p + off, 4);
    return v;
}

static gpu_rect rect_at(const uint8_t *p, int off)
{
    gpu_rect r = { u32_at(p, off), u32_at(p, off + 4), u32_at(p, off + 8),
                   u32_at(p, off + 12) };
    return r;
}

static int rect_inside(gpu_rect r, const resource *res)
{
    return r.x <= res->width && r.w <= res->width - r.x &&
           r.y <= res->height && r.h <= res->height - r.y;
}

/* Copies len bytes at offset off of the resource's guest backing (the
 * concatenation of its entries, §5.7.6.9) into dst. */
static void backing_read(virtio_gpu *g, const resource *r, uint64_t off,
                         uint8_t *dst, uint32_t len)
{
    uint64_t base = 0;
    for (uint32_t i = 0; i < r->nmem && len; i++) {
        const backing *b = &r->mem[i];
        if (off < base + b->len) {
            uint32_t in = (uint32_t)(off - base);
            uint32_t k = b->len - in < len ? b->len - in : len;
            uint8_t *p = virtio_guest_ptr(g->vd, b->addr + in, k);
            if (p)
                memcpy(dst, p, k);
            dst += k;
            off += k;
            len -= k;
        }
        base += b->len;
    }
}


static void display_info(outcome *o)
{
    /* pmodes[0]: rect 0,0,480,800, enabled; the other 15 zero. */
    uint32_t v[6] = { 0, 0, GPU_WIDTH_PX, GPU_HEIGHT_PX, 1, 0 };
    memset(o->body, 0, sizeof(o->body));
    memcpy(o->body, v, sizeof(v));
    o->body_bytes = sizeof(o->body);
    o->type = RESP_OK_DISPLAY_INFO;
}

static uint32_t create_2d(virtio_gpu *g, const uint8_t *c)
{
    uint32_t id = u32_at(c, 24), w = u32_at(c, 32), h = u32_at(c, 36);
    if (!id || find(g, id))
        return RESP_ERR_INVALID_RESOURCE_ID;
    if (!w || !h || w > 4096 || h > 4096)
        return RESP_ERR_INVALID_PARAMETER;
    for (int i = 0; i < MAX_RESOURCES; i++) {
        resource *r = &g->res[i];
        if (r->id)
            continue;
        r->pixels = calloc((size_t)w * h, 4);
        if (!r->pixels)
            return RESP_ERR_OUT_OF_MEMORY;
        r->id = id;
        r->width = w;
        r->height = h;
        return RESP_OK_NODATA;
    }
    return RESP_ERR_OUT_OF_MEMORY;
}

static uint32_t attach_backing(virtio_gpu *g, const virtio_req *q, const uint8_t *c)
{
    resource *r = find(g, u32_at(c, 24));
    uint32_t n = u32_at(c, 28);
    if (!r)
        return RESP_ERR_INVALID_RESOURCE_ID;
    if (r->mem || n == 0 || n > MAX_BACKING)
        return RESP_ERR_INVALID_PARAMETER;
    r->mem = calloc(n, sizeof(*r->mem));
    if (!r->mem)
        return RESP_ERR_OUT_OF_MEMORY;
    /* struct virtio_gpu_mem_entry: le64 addr, le32 length, le32 pad. */
    for (uint32_t i = 0; i < n; i++) {
        uint8_t e[16];
        if (virtio_req_read(g->vd, q, 32 + 16 * i, e, 16) != 16) {
            free(r->mem);
            r->mem = NULL;
            return RESP_ERR_INVALID_PARAMETER;
        }
        memcpy(&r->mem[i].addr, e, 8);
        memcpy(&r->mem[i].len, e + 8, 4);
    }
    r->nmem = n;
    return RESP_OK_NODATA;
}

static uint32_t transfer_2d(virtio_gpu *g, const uint8_t *c, outcome *o)
{
    gpu_rect rc = rect_at(c, 24);
    uint64_t off;
    memcpy(&off, c + 40, 8);
    resource *r = find(g, u32_at(c, 48));
    if (!r)
        return RESP_ERR_INVALID_RESOURCE_ID;
    if (!rect_inside(rc, r) || !r->mem)
        return RESP_ERR_INVALID_PARAMETER;
    uint32_t stride = r->width * 4;
    for (uint32_t row = 0; row < rc.h; row++)
        backing_read(g, r, off + (uint64_t)row * stride,
                     r->pixels + (size_t)(rc.y + row) * stride + rc.x * 4,
                     rc.w * 4);
    o->latency_ns += (uint64_t)rc.w * rc.h * 4 * 1000 / COPY_BYTES_PER_US;
    return RESP_OK_NODATA;
}

static uint32_t set_scanout(virtio_gpu *g, const uint8_t *c)
{
    gpu_rect rc = rect_at(c, 24);
    uint32_t scanout = u32_at(c, 40), id = u32_at(c, 44);
    if (scanout != 0)
        return RESP_ERR_INVALID_SCANOUT_ID;
    if (id == 0) {              /* disable the scanout */
        g->scanout_res = 0;
        return RESP_OK_NODATA;
    }
    resource *r = find(g, id);
    if (!r)
        return RESP_ERR_INVALID_RESOURCE_ID;
    if (!rect_inside(rc, r))
        return RESP_ERR_INVALID_PARAMETER;
    g->scanout_res = id;
    return RESP_OK_NODATA;
}

static uint32_t flush(virtio_gpu *g, const uint8_t *c, outcome *o)
{
    gpu_rect rc = rect_at(c, 24);
    resource *r = find(g, u32_at(c, 40));
    if (!r)
        return RESP_ERR_INVALID_RESOURCE_ID;
    if (!rect_inside(rc, r))
        return RESP_ERR_INVALID_PARAMETER;
    o->frame = r->id == g->scanout_res && rc.w && rc.h;
    return RESP_OK_NODATA;
}

/* Runs the command of q; its response goes out when the latency has
 * passed. Commands take effect at once: the driver may not touch a
 * buffer before the command completes. */
static void execute(virtio_gpu *g, const virtio_req *q, outcome *o)
{
    uint8_t c[64] = { 0 };
    size_t n = virtio_req_read(g->vd, q, 0, c, sizeof(c));
    o->body_bytes = 0;
    o->latency_ns = CMD_NS;
    o->frame = 0;
    if (q->q == CURSORQ) {      /* no cursor is drawn */
        o->type = RESP_OK_NODATA;
        return;
    }
    if (n < HDR_BYTES) {
        o->type = RESP_ERR_UNSPEC;
        return;
    }
    resource *r;
    switch (u32_at(c, 0)) {
    case CMD_GET_DISPLAY_INFO: display_info(o); break;
    case CMD_RESOURCE_CREATE_2D: o->type = create_2d(g, c); break;
    case CMD_RESOURCE_UNREF:
        r = find(g, u32_at(c, 24));
        o->type = r ? RESP_OK_NODATA : RESP_ERR_INVALID_RESOURCE_ID;
        if (r && r->id == g->scanout_res)
            g->scanout_res = 0;
        if (r)
            drop(r);
        break;
    case CMD_SET_SCANOUT: o->type = set_scanout(g, c); break;
    case CMD_RESOURCE_FLUSH: o->type = flush(g, c, o); break;
    case CMD_TRANSFER_TO_HOST_2D: o->type = transfer_2d(g, c, o); break;
    case CMD_RESOURCE_ATTACH_BACKING: o->type = attach_backing(g, q, c); break;
    case CMD_RESOURCE_DETACH_BACKING:
        r = find(g, u32_at(c, 24));
        o->type = r ? RESP_OK_NODATA : RESP_ERR_INVALID_RESOURCE_ID;
        if (r) {
            free(r->mem);
            r->mem = NULL;
            r->nmem = 0;
        }
        break;
    default:                    /* EDID, capsets, 3D, blobs: unsupported */
        o->type = RESP_ERR_UNSPEC;
        break;
    }
}

static void start(virtio_gpu *g)
{
    if (g->count == 0 || vt_event_pending(&g->done))
        return;
    execute(g, &g->pending[g->head], &g->out);
    vt_schedule(g->t, &g->done, vt_now_ns(g->t) + g->out.latency_ns);
}

/* The head command's latency has passed: respond (echoing the fence,
 * §5.7.6.7), report a displayed frame, start the next command. */
static void complete(void *opaque)
{
    virtio_gpu *g = opaque;
    virtio_req *q = &g->pending[g->head];
    uint8_t resp[HDR_BYTES + sizeof(g->out.body)] = { 0 };
    uint8_t hdr[HDR_BYTES] = { 0 };
    virtio_req_read(g->vd, q, 0, hdr, HDR_BYTES);
    uint32_t flags = u32_at(hdr, 4) & FLAG_FENCE;
    memcpy(resp, &g->out.type, 4);
    memcpy(resp + 4, &flags, 4);
    if (flags)
        memcpy(resp + 8, hdr + 8, 16);      /* fence_id, ctx_id, ring_idx */
    memcpy(resp + HDR_BYTES, g->out.body, g->out.body_bytes);
    uint32_t len = q->q == CURSORQ ? 0 : HDR_BYTES + g->out.body_bytes;
    size_t n = virtio_req_write(g->vd, q, 0, resp, len);
    virtio_push(g->vd, q, (uint32_t)n);
    if (g->out.frame && g->host.frame) {
        resource *r = find(g, g->scanout_res);
        if (r)
            g->host.frame(g->host.opaque, vt_now_ns(g->t), r->pixels,
                          r->width, r->height);
    }
    g->head = (g->head + 1) % MAX_PENDING;
    g->count--;
    start(g);
}

static void notify(void *opaque, int q)
{
    virtio_gpu *g = opaque;
    virtio_req r;
    while (g->count < MAX_PENDING && virtio_pop(g->vd, q, &r) == 1)
        g->pending[(g->head + g->count++) % MAX_PENDING] = r;
    start(g);
}

static void reset(void *opaque)
{
    virtio_gpu *g = opaque;
    vt_cancel(g->t, &g->done);
    g->head = g->count = 0;
    for (int i = 0; i < MAX_RESOURCES; i++)
        drop(&g->res[i]);
    g->scanout_res = 0;
}

virtio_gpu *virtio_gpu_new(phys_map *m, irq_line irq, vt_engine *t,
                           gpu_host host)
{
    virtio_gpu *g = pl_xcalloc(1, sizeof(*g));
    g->t = t;
    g->host = host;
    vt_event_init(&g->done, complete, g);
    g->ops = (virtio_ops){ .device_id = 16, .nqueues = 2, .notify = notify,
                           .reset = reset };
    g->vd = virtio_new(m, irq, &g->ops, g);
    /* Config: events_read, events_clear, num_scanouts, num_capsets. */
    uint32_t one = 1;
    memcpy(virtio_config(g->vd) + 8, &one, 4);
    return g;
}

void virtio_gpu_free(virtio_gpu *g)
{
    if (!g)
        return;
    reset(g);
    virtio_free(g->vd);
    free(g);
}

virtio_dev *virtio_gpu_dev(virtio_gpu *g)
{
    return g->vd;
}

/* ---- snapshots ---- */

void virtio_gpu_save(const virtio_gpu *g, snap_w *w)
{
    virtio_save(g->vd, w);
    for (int i = 0; i < MAX_RESOURCES; i++) {
        const resource *r = &g->res[i];
        snap_put_u32(w, r->id);
        if (!r->id)
            continue;
        snap_put_u32(w, r->width);
        snap_put_u32(w, r->height);
        snap_put_bytes(w, r->pixels, (size_t)r->width * r->height * 4);
        snap_put_u32(w, r->nmem);
        for (uint32_t k = 0; k < r->nmem; k++) {
            snap_put_u64(w, r->mem[k].addr);
            snap_put_u32(w, r->mem[k].len);
        }
    }
    snap_put_u32(w, g->scanout_res);
    snap_put_u32(w, (uint32_t)g->count);
    for (int i = 0; i < g->count; i++)
        virtio_req_save(&g->pending[(g->head + i) % MAX_PENDING], w);
    snap_put_u32(w, g->out.type);
    snap_put_u32(w, g->out.body_bytes);
    snap_put_bytes(w, g->out.body, g->out.body_bytes);
    snap_put_u64(w, g->out.latency_ns);
    snap_put_u32(w, (uint32_t)g->out.frame);
    vt_event_save(&g->done, w);
}

static int load_resource(resource *r, snap_r *sr)
{
    drop(r);
    uint32_t id = snap_get_u32(sr);
    if (!id)
        return snap_r_failed(sr) ? -1 : 0;
    uint32_t w = snap_get_u32_max(sr, 4096, "resource width");
    uint32_t h = snap_get_u32_max(sr, 4096, "resource height");
    if (snap_r_failed(sr))
        return -1;
    r->pixels = calloc((size_t)w * h + 1, 4);
    if (!r->pixels)
        return snap_r_fail(sr, "out of memory for a %ux%u resource", w, h);
    r->id = id;
    r->width = w;
    r->height = h;
    snap_get_bytes(sr, r->pixels, (size_t)w * h * 4);
    r->nmem = snap_get_u32_max(sr, MAX_BACKING, "backing entries");
    if (r->nmem && !(r->mem = calloc(r->nmem, sizeof(*r->mem))))
        return snap_r_fail(sr, "out of memory for backing entries");
    for (uint32_t k = 0; k < r->nmem; k++) {
        r->mem[k].addr = snap_get_u64(sr);
        r->mem[k].len = snap_get_u32(sr);
    }
    return snap_r_failed(sr) ? -1 : 0;
}

int virtio_gpu_load(virtio_gpu *g, snap_r *r)
{
    if (virtio_load(g->vd, r) < 0)
        return -1;
    for (int i = 0; i < MAX_RESOURCES; i++)
        if (load_resource(&g->res[i], r) < 0)
            return -1;
    g->scanout_res = snap_get_u32(r);
    g->head = 0;
    g->count = (int)snap_get_u32_max(r, MAX_PENDING, "pending GPU commands");
    for (int i = 0; i < g->count; i++)
        if (virtio_req_load(g->vd, &g->pending[i], r) < 0)
            return -1;
    g->out.type = snap_get_u32(r);
    g->out.body_bytes = snap_get_u32_max(r, sizeof(g->out.body),
                                         "response body");
    snap_get_bytes(r, g->out.body, g->out.body_bytes);
    g->out.latency_ns = snap_get_u64(r);
    g->out.frame = (int)snap_get_u32_max(r, 1, "frame flag");
    return vt_event_load(g->t, &g->done, r);
}
