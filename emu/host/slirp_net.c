/* libslirp glue: the guest's NIC, the wire (net_wire.h) in each direction,
 * libslirp on the engine's clock, and the content server over TCP
 * (content_http.h) and UDP (content_udp.h); see slirp_net.h. */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <slirp/libslirp.h>
#include "content_http.h"
#include "content_udp.h"
#include "inet_frame.h"
#include "net_capture.h"
#include "panlab/guest_abi.h"
#include "slirp_net.h"

#define POLL_NS 2000000ull       /* slirp's fast TCP timer is 2 ms */
#define SERVER_ADDR PL_CONTENT_HOST
#define SERVER_PORT CONTENT_HTTP_PORT

/* libslirp's timers, kept in creation order: slirp creates them in the
 * same order in every process, which is how a snapshot finds them. */
typedef struct stimer {
    slirp_net *s;
    SlirpTimerCb cb;
    void *cb_opaque;
    vt_event ev;
    struct stimer *next;
} stimer;

struct slirp_net {
    vt_engine *t;
    net_timing tm;
    Slirp *slirp;
    virtio_net *nic;
    net_capture *capture;
    net_wire up, down;          /* guest -> slirp, slirp -> guest */
    vt_event poll;
    stimer *timers;
    struct in_addr server;
    content_http http;
    content_udp udp;
};

/* ---- frames between the NIC, the wire and slirp ---- */

static void to_guest(void *opaque, const uint8_t *f, size_t len)
{
    slirp_net *s = opaque;
    net_capture_frame(s->capture, vt_now_ns(s->t), f, len);
    if (s->nic)
        virtio_net_receive(s->nic, f, len);
}

/* libslirp (4.7) has no call that closes a guest forward's connection from
 * the host side, and the server never closes (clients read Content-Length
 * bytes), so after the guest's FIN slirp's socket would stay in CLOSE-WAIT
 * for good. When the guest later picks that local port again, slirp finds
 * the stale socket: it answers the new SYN with a bare ACK, which the guest
 * resets, or, when the new initial sequence number lies before the old
 * window (Linux's grows by 2^31 in 137 s), drops it without an answer, and
 * the guest's connect() hangs for its two minutes of SYN retries. So once slirp
 * has taken the guest's FIN to the server, it is also handed an RST from
 * the guest at the next sequence number, which closes its socket
 * (RFC 9293 §3.10.7.4, CLOSE-WAIT). The guest's own side ends by its FIN
 * timeout as before; the RST never crosses the NIC, so it is not captured. */
static void end_server_conn(slirp_net *s, const uint8_t *f, size_t len)
{
    enum { ETH = 14, TCP_FIN = 0x01, TCP_RST = 0x04, TCP_ACK = 0x10 };
    if (len < ETH + 20 || inet_get_be(f + 12, 2) != 0x0800 || f[ETH] >> 4 != 4 ||
        f[ETH + 9] != 6 || memcmp(f + ETH + 16, &s->server.s_addr, 4) != 0)
        return;
    const uint8_t *ip = f + ETH;
    size_t ihl = (size_t)(ip[0] & 15) * 4, ip_len = inet_get_be(ip + 2, 2);
    if (ihl < 20 || ip_len > len - ETH || ip_len < ihl + 20)
        return;
    const uint8_t *tcp = ip + ihl;
    size_t doff = (size_t)(tcp[12] >> 4) * 4;
    if (inet_get_be(tcp + 2, 2) != SERVER_PORT || !(tcp[13] & TCP_FIN) ||
        doff < 20 || ip_len < ihl + doff)
        return;
    uint32_t next_seq = inet_get_be(tcp + 4, 4) + (uint32_t)(ip_len - ihl - doff) + 1;
    uint8_t rst[ETH + 20 + 20] = { 0 };
    uint8_t *rip = rst + ETH, *rtcp = rip + 20;
    memcpy(rst, f, 12);                         /* the same MACs */
    inet_put_be(rst + 12, 0x0800, 2);
    inet_put_ipv4(rip, 40, 0, 6, ip + 12, ip + 16);  /* guest -> server */
    memcpy(rtcp, tcp, 4);                       /* the same ports */
    inet_put_be(rtcp + 4, next_seq, 4);
    memcpy(rtcp + 8, tcp + 8, 4);               /* the FIN's ack */
    rtcp[12] = 5 << 4;
    rtcp[13] = TCP_RST | TCP_ACK;
    uint8_t pseudo[12] = { 0 };                 /* RFC 9293 §3.1 */
    memcpy(pseudo, rip + 12, 8);
    pseudo[9] = 6;
    inet_put_be(pseudo + 10, 20, 2);
    inet_put_be(rtcp + 16, inet_csum_fold(inet_csum_add(inet_csum_add(0, pseudo, 12),
                                                   rtcp, 20)), 2);
    slirp_input(s->slirp, rst, (int)sizeof(rst));
}

static void from_wire(void *opaque, const uint8_t *f, size_t len)
{
    slirp_net *s = opaque;
    if (content_udp_intercept(&s->udp, f, len))
        return;
    slirp_input(s->slirp, f, (int)len);
    end_server_conn(s, f, len);
}

static void send_down(void *opaque, const uint8_t *f, size_t len)
{
    slirp_net *s = opaque;
    net_wire_send(&s->down, f, len);
}

void slirp_net_from_guest(void *opaque, const uint8_t *f, size_t len)
{
    slirp_net *s = opaque;
    net_capture_frame(s->capture, vt_now_ns(s->t), f, len);
    net_wire_send(&s->up, f, len);
}

/* ---- libslirp callbacks: its clock and timers are the engine's ---- */

static ssize_t send_packet(const void *buf, size_t len, void *opaque)
{
    slirp_net *s = opaque;
    net_wire_send(&s->down, buf, len);
    return (ssize_t)len;
}

static void guest_error(const char *msg, void *opaque)
{
    (void)opaque;
    fprintf(stderr, "panlab-phone: network: %s\n", msg);
}

static int64_t clock_get_ns(void *opaque)
{
    slirp_net *s = opaque;
    return (int64_t)vt_now_ns(s->t);
}

static void timer_fire(void *opaque)
{
    stimer *st = opaque;
    st->cb(st->cb_opaque);
}

static void *timer_new(SlirpTimerCb cb, void *cb_opaque, void *opaque)
{
    stimer *st = calloc(1, sizeof(*st));
    if (!st)
        return NULL;
    st->s = opaque;
    st->cb = cb;
    st->cb_opaque = cb_opaque;
    vt_event_init(&st->ev, timer_fire, st);
    stimer **end = &st->s->timers;
    while (*end)
        end = &(*end)->next;
    *end = st;
    return st;
}

static void timer_free(void *timer, void *opaque)
{
    stimer *st = timer;
    (void)opaque;
    vt_cancel(st->s->t, &st->ev);
    stimer **p = &st->s->timers;
    while (*p != st)
        p = &(*p)->next;
    *p = st->next;
    free(st);
}

static void timer_mod(void *timer, int64_t expire_ms, void *opaque)
{
    stimer *st = timer;
    (void)opaque;
    vt_schedule(st->s->t, &st->ev, (uint64_t)expire_ms * 1000000ull);
}

/* Slirp in restricted mode with only the in-emulator server opens no host
 * sockets; any it would are never polled, so host I/O cannot leak in. */
static void no_fd(int fd, void *opaque)
{
    (void)fd;
    (void)opaque;
}

static void no_notify(void *opaque)
{
    (void)opaque;
}

static int add_poll(int fd, int events, void *opaque)
{
    (void)fd;
    (void)events;
    (void)opaque;
    return -1;
}

static int get_revents(int idx, void *opaque)
{
    (void)idx;
    (void)opaque;
    return 0;
}

static const SlirpCb callbacks = {
    .send_packet = send_packet, .guest_error = guest_error,
    .clock_get_ns = clock_get_ns, .timer_new = timer_new,
    .timer_free = timer_free, .timer_mod = timer_mod,
    .register_poll_fd = no_fd, .unregister_poll_fd = no_fd,
    .notify = no_notify,
};

/* ---- the content server's TCP connection: libslirp's guest forward ---- */

static size_t server_room(void *opaque)
{
    slirp_net *s = opaque;
    return slirp_socket_can_recv(s->slirp, s->server, SERVER_PORT);
}

static void server_put(void *opaque, const uint8_t *buf, size_t len)
{
    slirp_net *s = opaque;
    slirp_socket_recv(s->slirp, s->server, SERVER_PORT, buf, (int)len);
}

static ssize_t server_write(const void *buf, size_t len, void *opaque)
{
    slirp_net *s = opaque;
    content_http_receive(&s->http, buf, len);
    return (ssize_t)len;
}

/* Slirp's TCP timers run from its poll; so does the server's output. */
static void poll_tick(void *opaque)
{
    slirp_net *s = opaque;
    uint32_t timeout = UINT32_MAX;
    slirp_pollfds_fill(s->slirp, &timeout, add_poll, s);
    slirp_pollfds_poll(s->slirp, 0, get_revents, s);
    content_http_flush(&s->http);
    vt_schedule(s->t, &s->poll, vt_now_ns(s->t) + POLL_NS);
}

slirp_net *slirp_net_new(vt_engine *t, const net_timing *timing,
                         const char *pcap_path, const char *content_dir,
                         struct pl_error *err)
{
    slirp_net *s = pl_xcalloc(1, sizeof(*s));
    s->t = t;
    s->tm = *timing;
    inet_aton(SERVER_ADDR, &s->server);
    net_wire_init(&s->up, t, &s->tm, 0, from_wire, s);
    net_wire_init(&s->down, t, &s->tm, 1, to_guest, s);
    vt_event_init(&s->poll, poll_tick, s);
    if (content_http_init(&s->http, t, content_dir,
                          (content_conn){ server_room, server_put, s }, err) < 0) {
        content_http_free(&s->http);
        free(s);
        return NULL;
    }
    content_udp_init(&s->udp, t, (const uint8_t *)&s->server.s_addr, send_down, s);
    if (pcap_path && !(s->capture = net_capture_open(pcap_path, err))) {
        slirp_net_free(s, err);
        return NULL;
    }
    SlirpConfig cfg = { .version = 1, .restricted = 1, .in_enabled = true };
    inet_aton("10.0.2.0", &cfg.vnetwork);
    inet_aton("255.255.255.0", &cfg.vnetmask);
    inet_aton(PL_GUEST_GATEWAY, &cfg.vhost);
    inet_aton(PL_GUEST_ADDR, &cfg.vdhcp_start);
    inet_aton("10.0.2.3", &cfg.vnameserver);
    s->slirp = slirp_new(&cfg, &callbacks, s);
    if (!s->slirp || slirp_add_guestfwd(s->slirp, server_write, s, &s->server,
                                        SERVER_PORT) < 0) {
        pl_error_set(err, "--net: libslirp could not start");
        slirp_net_free(s, err);
        return NULL;
    }
    vt_schedule(t, &s->poll, POLL_NS);
    return s;
}

void slirp_net_attach(slirp_net *s, virtio_net *nic)
{
    s->nic = nic;
}

int slirp_net_free(slirp_net *s, struct pl_error *err)
{
    if (!s)
        return 0;
    vt_cancel(s->t, &s->poll);
    content_http_free(&s->http);
    content_udp_cancel(&s->udp);
    net_wire_cancel(&s->up);
    net_wire_cancel(&s->down);
    if (s->slirp)
        slirp_cleanup(s->slirp);
    int rc = net_capture_close(s->capture, err);
    free(s);
    return rc;
}

/* ---- snapshots ---- */

static ssize_t mem_write(const void *buf, size_t len, void *opaque)
{
    return fwrite(buf, 1, len, opaque) == len ? (ssize_t)len : -1;
}

typedef struct mem_in {
    const uint8_t *p;
    size_t len, off;
} mem_in;

static ssize_t mem_read(void *buf, size_t len, void *opaque)
{
    mem_in *m = opaque;
    size_t k = len < m->len - m->off ? len : m->len - m->off;
    memcpy(buf, m->p + m->off, k);
    m->off += k;
    return (ssize_t)k;
}

void slirp_net_save(const slirp_net *s, snap_w *w)
{
    net_wire_save(&s->up, w);
    net_wire_save(&s->down, w);
    vt_event_save(&s->poll, w);
    uint32_t ntimers = 0;
    for (const stimer *t = s->timers; t; t = t->next)
        ntimers++;
    snap_put_u32(w, ntimers);
    for (const stimer *t = s->timers; t; t = t->next)
        vt_event_save(&t->ev, w);
    content_http_save(&s->http, w);
    content_udp_save(&s->udp, w);
    /* libslirp's own state: its sockets and connections. */
    char *blob = NULL;
    size_t blob_len = 0;
    FILE *f = open_memstream(&blob, &blob_len);
    if (f) {
        slirp_state_save(s->slirp, mem_write, f);
        fclose(f);
    }
    snap_put_u32(w, (uint32_t)slirp_state_version());
    snap_put_u32(w, (uint32_t)blob_len);
    snap_put_bytes(w, blob, blob_len);
    free(blob);
}

int slirp_net_load(slirp_net *s, snap_r *r)
{
    if (net_wire_load(&s->up, r) < 0 || net_wire_load(&s->down, r) < 0 ||
        vt_event_load(s->t, &s->poll, r) < 0)
        return -1;
    uint32_t ntimers = snap_get_u32(r), have = 0;
    for (const stimer *t = s->timers; t; t = t->next)
        have++;
    if (!snap_r_failed(r) && ntimers != have)
        return snap_r_fail(r, "%u libslirp timers, this libslirp made %u",
                           ntimers, have);
    for (stimer *t = s->timers; t; t = t->next)
        if (vt_event_load(s->t, &t->ev, r) < 0)
            return -1;
    if (content_http_load(&s->http, r) < 0 || content_udp_load(&s->udp, r) < 0)
        return -1;
    uint32_t version = snap_get_u32(r);
    uint32_t blob_len = snap_get_u32_max(r, 1u << 30, "libslirp state bytes");
    if (snap_r_failed(r))
        return -1;
    uint8_t *blob = malloc(blob_len ? blob_len : 1);
    if (!blob)
        return snap_r_fail(r, "out of memory for the libslirp state");
    snap_get_bytes(r, blob, blob_len);
    mem_in in = { blob, blob_len, 0 };
    int rc = snap_r_failed(r) ? -1 : slirp_state_load(s->slirp, (int)version,
                                                      mem_read, &in);
    free(blob);
    if (rc < 0 && !snap_r_failed(r))
        return snap_r_fail(r, "libslirp refused its saved state (version %u, "
                           "error %d)", version, rc);
    return snap_r_failed(r) ? -1 : 0;
}
