/* virtio-console multiport; control messages per virtio 1.2 §5.3.6.2. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "virtio_console.h"
#include "panlab/error.h"

#define F_MULTIPORT (1ull << 1)
enum {
    DEVICE_READY = 0, DEVICE_ADD = 1, PORT_READY = 3, PORT_OPEN = 6,
    PORT_NAME = 7,
};
enum { CTRL_RX = 2, CTRL_TX = 3 };
#define NAME_MAX_BYTES 64
#define CTRL_FIFO 32

typedef struct ctrl_msg {
    uint32_t len;
    uint8_t buf[8 + NAME_MAX_BYTES];
} ctrl_msg;

struct virtio_console {
    virtio_dev *vd;
    virtio_ops ops;
    int nports;
    char name[VCON_MAX_PORTS + 1][NAME_MAX_BYTES];
    byte_sink out[VCON_MAX_PORTS + 1];
    ctrl_msg fifo[CTRL_FIFO];
    int head, count;
    /* Host -> guest bytes not yet in a receive buffer, per port. */
    uint8_t in[VCON_MAX_PORTS + 1][VCON_INPUT_BYTES];
    uint32_t in_len[VCON_MAX_PORTS + 1];
};

/* Port p's receive queue; its transmit queue follows (§5.3.2). */
static int rx_queue(int port)
{
    return port == 0 ? 0 : 2 * (port + 1);
}

static void flush_ctrl(virtio_console *c)
{
    virtio_req r;
    while (c->count > 0 && virtio_pop(c->vd, CTRL_RX, &r) == 1) {
        ctrl_msg *m = &c->fifo[c->head];
        size_t n = virtio_req_write(c->vd, &r, 0, m->buf, m->len);
        virtio_push(c->vd, &r, (uint32_t)n);
        c->head = (c->head + 1) % CTRL_FIFO;
        c->count--;
    }
}

/* struct virtio_console_control: le32 id, le16 event, le16 value. */
static void send_ctrl(virtio_console *c, uint32_t id, uint16_t event,
                      uint16_t value, const char *extra)
{
    if (c->count == CTRL_FIFO) {
        fprintf(stderr, "virtio-console: control queue overflow\n");
        return;
    }
    ctrl_msg *m = &c->fifo[(c->head + c->count++) % CTRL_FIFO];
    memcpy(m->buf, &id, 4);
    memcpy(m->buf + 4, &event, 2);
    memcpy(m->buf + 6, &value, 2);
    m->len = 8;
    if (extra) {
        size_t n = strlen(extra);
        memcpy(m->buf + 8, extra, n);
        m->len += (uint32_t)n;
    }
    flush_ctrl(c);
}

/* Moves a port's waiting input into the receive buffers the guest has
 * posted. */
static void deliver_input(virtio_console *c, int port)
{
    virtio_req r;
    while (c->in_len[port] > 0 && virtio_pop(c->vd, rx_queue(port), &r) == 1) {
        size_t n = virtio_req_write(c->vd, &r, 0, c->in[port], c->in_len[port]);
        virtio_push(c->vd, &r, (uint32_t)n);
        memmove(c->in[port], c->in[port] + n, c->in_len[port] - n);
        c->in_len[port] -= (uint32_t)n;
    }
}

int virtio_console_send(virtio_console *c, const char *port,
                        const uint8_t *buf, size_t len_bytes)
{
    int p = 1;
    while (p <= c->nports && strcmp(c->name[p], port) != 0)
        p++;
    if (p > c->nports || len_bytes > VCON_INPUT_BYTES - c->in_len[p])
        return -1;
    memcpy(c->in[p] + c->in_len[p], buf, len_bytes);
    c->in_len[p] += (uint32_t)len_bytes;
    deliver_input(c, p);
    return 0;
}

static void control(virtio_console *c, const uint8_t *msg)
{
    uint32_t id;
    uint16_t event, value;
    memcpy(&id, msg, 4);
    memcpy(&event, msg + 4, 2);
    memcpy(&value, msg + 6, 2);
    if (event == DEVICE_READY && value == 1) {
        for (int p = 1; p <= c->nports; p++)
            send_ctrl(c, (uint32_t)p, DEVICE_ADD, 0, NULL);
    } else if (event == PORT_READY && value == 1 && id >= 1 &&
               id <= (uint32_t)c->nports) {
        /* The host side of every port is always connected. */
        send_ctrl(c, id, PORT_NAME, 0, c->name[id]);
        send_ctrl(c, id, PORT_OPEN, 1, NULL);
    }
}

static void notify(void *opaque, int q)
{
    virtio_console *c = opaque;
    virtio_req r;
    if (q == CTRL_RX) {
        flush_ctrl(c);
        return;
    }
    if (q == CTRL_TX) {
        while (virtio_pop(c->vd, q, &r) == 1) {
            uint8_t msg[8];
            if (virtio_req_read(c->vd, &r, 0, msg, 8) == 8)
                control(c, msg);
            virtio_push(c->vd, &r, 0);
        }
        return;
    }
    int port = q / 2 - 1;
    if (port < 1 || port > c->nports)
        return;
    if (!(q & 1)) {
        deliver_input(c, port);
        return;
    }
    while (virtio_pop(c->vd, q, &r) == 1) {
        uint8_t buf[4096];
        for (uint32_t off = 0; off < r.out_bytes;) {
            size_t n = virtio_req_read(c->vd, &r, off, buf, sizeof(buf));
            if (!n)
                break;
            c->out[port].put(c->out[port].opaque, buf, n);
            off += (uint32_t)n;
        }
        virtio_push(c->vd, &r, 0);
    }
}

static void reset(void *opaque)
{
    virtio_console *c = opaque;
    c->head = c->count = 0;
    memset(c->in_len, 0, sizeof(c->in_len));
}

virtio_console *virtio_console_new(phys_map *m, irq_line irq, int nports,
                                   const char *const *names,
                                   const byte_sink *outs, struct pl_error *err)
{
    if (nports < 0 || nports > VCON_MAX_PORTS) {
        pl_error_set(err, "virtio-console: %d ports, at most %d", nports,
                     VCON_MAX_PORTS);
        return NULL;
    }
    virtio_console *c = pl_xcalloc(1, sizeof(*c));
    c->nports = nports;
    for (int p = 1; p <= nports; p++) {
        snprintf(c->name[p], NAME_MAX_BYTES, "%s", names[p - 1]);
        c->out[p] = outs[p - 1];
    }
    c->ops = (virtio_ops){
        .device_id = 3, .features = F_MULTIPORT,
        .nqueues = rx_queue(nports) + 2, .notify = notify, .reset = reset,
    };
    /* Config: cols, rows (le16), max_nr_ports (le32), §5.3.4. */
    c->vd = virtio_new(m, irq, &c->ops, c);
    uint32_t max_ports = (uint32_t)nports + 1;
    memcpy(virtio_config(c->vd) + 4, &max_ports, 4);
    return c;
}

void virtio_console_free(virtio_console *c)
{
    if (!c)
        return;
    virtio_free(c->vd);
    free(c);
}

virtio_dev *virtio_console_dev(virtio_console *c)
{
    return c->vd;
}

/* ---- snapshots ---- */

void virtio_console_save(const virtio_console *c, snap_w *w)
{
    virtio_save(c->vd, w);
    snap_put_u32(w, (uint32_t)c->nports);
    for (int p = 1; p <= c->nports; p++) {
        snap_put_str(w, c->name[p]);
        snap_put_u32(w, c->in_len[p]);
        snap_put_bytes(w, c->in[p], c->in_len[p]);
    }
    snap_put_u32(w, (uint32_t)c->count);
    for (int i = 0; i < c->count; i++) {
        const ctrl_msg *m = &c->fifo[(c->head + i) % CTRL_FIFO];
        snap_put_u32(w, m->len);
        snap_put_bytes(w, m->buf, m->len);
    }
}

int virtio_console_load(virtio_console *c, snap_r *r)
{
    if (virtio_load(c->vd, r) < 0)
        return -1;
    uint32_t n = snap_get_u32(r);
    if (!snap_r_failed(r) && n != (uint32_t)c->nports)
        return snap_r_fail(r, "the snapshot has %u console ports, this run "
                           "%d (give the ports it was saved with)", n,
                           c->nports);
    for (int p = 1; p <= c->nports; p++) {
        char name[NAME_MAX_BYTES];
        snap_get_str(r, name, sizeof(name));
        if (!snap_r_failed(r) && strcmp(name, c->name[p]) != 0)
            return snap_r_fail(r, "console port %d is '%s' in the snapshot, "
                               "'%s' in this run", p, name, c->name[p]);
        c->in_len[p] = snap_get_u32_max(r, VCON_INPUT_BYTES, "port input");
        snap_get_bytes(r, c->in[p], c->in_len[p]);
    }
    c->head = 0;
    c->count = (int)snap_get_u32_max(r, CTRL_FIFO, "control messages");
    for (int i = 0; i < c->count; i++) {
        c->fifo[i].len = snap_get_u32_max(r, sizeof(c->fifo[i].buf),
                                          "control message length");
        snap_get_bytes(r, c->fifo[i].buf, c->fifo[i].len);
    }
    return snap_r_failed(r) ? -1 : 0;
}
