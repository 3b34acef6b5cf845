/* Network wire, libslirp glue, content server and capture; see
 * slirp_net.h. */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pcap/pcap.h>
#include <slirp/libslirp.h>
#include "content_request.h"
#include "slirp_net.h"
#include "panlab/error.h"

#define WIRE_FRAMES 256
#define POLL_NS 2000000ull       /* slirp's fast TCP timer is 2 ms */
#define SERVER_ADDR "10.0.2.100"
#define SERVER_PORT 80
#define SERVER_UDP_PORT 7070    /* svc-content's port, content_service.h */
#define REQ_MAX 4096

typedef struct slirp_net slirp_net;

/* One direction of the wire: frames in flight, in order. */
typedef struct wire {
    slirp_net *s;
    int to_guest;
    uint8_t data[WIRE_FRAMES][NET_FRAME_MAX];
    uint16_t len[WIRE_FRAMES];
    uint64_t due[WIRE_FRAMES];
    int head, count;
    uint64_t free_ns;           /* the wire is idle from here */
    vt_event ev;
} wire;

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
    pcap_t *pcap;
    pcap_dumper_t *dump;
    wire up, down;              /* guest -> slirp, slirp -> guest */
    vt_event poll;
    stimer *timers;
    const char *content_dir;
    struct in_addr server;
    char req[REQ_MAX];
    size_t req_len;
    uint8_t *resp;              /* response bytes not yet taken by slirp */
    size_t resp_len, resp_off;
    size_t resp_ready;          /* bytes of resp released to slirp so far */
    size_t resp_first;          /* the first release (head + a piece); 0 once done */
    uint64_t piece_ns;          /* between paced pieces; 0 = unpaced */
    vt_event pace;              /* releases the next piece */
    struct udp_reply {          /* the UDP responder's one response */
        uint8_t mac[6];         /* the requester's */
        uint8_t ip[4];
        uint16_t port;
        uint32_t left;          /* bytes not yet sent */
        uint64_t piece_ns;
        uint16_t ip_id;         /* the next datagram's IPv4 id */
        vt_event ev;            /* sends the next piece */
    } udp;
};

static int udp_intercept(slirp_net *s, const uint8_t *f, size_t len);

void net_timing_phone(net_timing *t)
{
    t->one_way_ns = 25000000;
    t->bytes_per_s = 1000000;
}

static void capture(slirp_net *s, const uint8_t *f, size_t len)
{
    if (!s->dump)
        return;
    uint64_t ns = vt_now_ns(s->t);
    struct pcap_pkthdr h;
    h.ts.tv_sec = (time_t)(ns / VT_NS_PER_S);
    h.ts.tv_usec = (suseconds_t)(ns % VT_NS_PER_S);     /* ns precision */
    h.caplen = h.len = (bpf_u_int32)len;
    pcap_dump((u_char *)s->dump, &h, f);
}

/* ---- the wire ---- */

static void wire_fire(void *opaque)
{
    wire *w = opaque;
    slirp_net *s = w->s;
    while (w->count > 0 && w->due[w->head] <= vt_now_ns(s->t)) {
        const uint8_t *f = w->data[w->head];
        size_t len = w->len[w->head];
        if (w->to_guest) {
            capture(s, f, len);
            if (s->nic)
                virtio_net_receive(s->nic, f, len);
        } else {
            if (!udp_intercept(s, f, len))
                slirp_input(s->slirp, f, (int)len);
        }
        w->head = (w->head + 1) % WIRE_FRAMES;
        w->count--;
    }
    if (w->count > 0)
        vt_schedule(s->t, &w->ev, w->due[w->head]);
}

/* Serialises a frame at the wire's bandwidth, then the latency. */
static void wire_send(wire *w, const uint8_t *f, size_t len)
{
    slirp_net *s = w->s;
    if (w->count == WIRE_FRAMES || len > NET_FRAME_MAX)
        return;                 /* the queue overflowed: the frame is lost */
    uint64_t now = vt_now_ns(s->t);
    if (w->free_ns < now)
        w->free_ns = now;
    w->free_ns += len * VT_NS_PER_S / s->tm.bytes_per_s;
    int i = (w->head + w->count++) % WIRE_FRAMES;
    memcpy(w->data[i], f, len);
    w->len[i] = (uint16_t)len;
    w->due[i] = w->free_ns + s->tm.one_way_ns;
    if (!vt_event_pending(&w->ev))
        vt_schedule(s->t, &w->ev, w->due[w->head]);
}

void slirp_net_from_guest(void *opaque, const uint8_t *f, size_t len)
{
    slirp_net *s = opaque;
    capture(s, f, len);
    wire_send(&s->up, f, len);
}

/* ---- libslirp callbacks: its clock and timers are the engine's ---- */

static ssize_t send_packet(const void *buf, size_t len, void *opaque)
{
    slirp_net *s = opaque;
    wire_send(&s->down, buf, len);
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

/* ---- the content server ---- */

static void flush_response(slirp_net *s)
{
    while (s->resp && s->resp_off < s->resp_ready) {
        size_t room = slirp_socket_can_recv(s->slirp, s->server, SERVER_PORT);
        if (!room)
            return;
        size_t k = s->resp_ready - s->resp_off < room ? s->resp_ready - s->resp_off : room;
        slirp_socket_recv(s->slirp, s->server, SERVER_PORT, s->resp + s->resp_off, (int)k);
        s->resp_off += k;
    }
    if (s->resp && s->resp_off < s->resp_len)
        return;                 /* the rest is not released yet */
    free(s->resp);
    s->resp = NULL;
}

/* Releases the head with the first piece, then a piece each piece_ns, as
 * svc-content sends them; unpaced, the rest at once. */
static void pace_fire(void *opaque)
{
    slirp_net *s = opaque;
    if (!s->resp)
        return;
    if (s->resp_first) {
        s->resp_ready = s->resp_first;
        s->resp_first = 0;
    } else {
        s->resp_ready += CONTENT_PIECE_BYTES;
    }
    if (!s->piece_ns || s->resp_ready > s->resp_len)
        s->resp_ready = s->resp_len;
    flush_response(s);
    if (s->resp_ready < s->resp_len)
        vt_schedule(s->t, &s->pace, vt_now_ns(s->t) + s->piece_ns);
}

/* Queues a response: a head, then body_len bytes of body (the file's, or
 * generated when body is NULL), released after latency_ns and paced to
 * bytes_per_s (0: all at once). */
static void respond(slirp_net *s, const char *status, const uint8_t *body,
                    size_t body_len, uint64_t latency_ns, uint32_t bytes_per_s)
{
    char head[256];
    int n = snprintf(head, sizeof(head), "HTTP/1.0 %s\r\nContent-Length: %zu\r\n"
                     "Content-Type: application/octet-stream\r\n"
                     "Connection: close\r\n\r\n", status, body_len);
    vt_cancel(s->t, &s->pace);
    free(s->resp);
    s->resp = calloc(1, (size_t)n + body_len);
    if (!s->resp)
        return;
    memcpy(s->resp, head, (size_t)n);
    if (body)
        memcpy(s->resp + n, body, body_len);
    else                        /* svc-content's content: 0x5a opens each piece */
        for (size_t i = 0; i < body_len; i += CONTENT_PIECE_BYTES)
            s->resp[(size_t)n + i] = 0x5a;
    s->resp_len = (size_t)n + body_len;
    s->resp_off = s->resp_ready = 0;
    s->resp_first = (size_t)n + (body_len < CONTENT_PIECE_BYTES ? body_len : CONTENT_PIECE_BYTES);
    s->piece_ns = bytes_per_s ? (uint64_t)CONTENT_PIECE_BYTES * VT_NS_PER_S / bytes_per_s : 0;
    vt_schedule(s->t, &s->pace, vt_now_ns(s->t) + latency_ns);
}

static void respond_text(slirp_net *s, const char *status, const char *text)
{
    respond(s, status, (const uint8_t *)text, strlen(text), 0, 0);
}

/* A request (content_request.h): generated content, or a file under
 * content_dir; a bad one gets 400 with the reason as its body. */
static void serve(slirp_net *s)
{
    content_req r;
    struct pl_error err;
    char file[1024];
    if (content_req_parse(s->req, &r, &err) < 0) {
        fprintf(stderr, "panlab-phone: content server: %s\n", err.msg);
        char body[sizeof(err.msg) + 1];
        snprintf(body, sizeof(body), "%s\n", err.msg);
        respond_text(s, "400 Bad Request", body);
        return;
    }
    if (r.generated) {
        respond(s, "200 OK", NULL, r.bytes, r.latency_ms * 1000000ull, r.bytes_per_s);
        return;
    }
    if (!s->content_dir) {
        respond_text(s, "404 Not Found", "no --content-dir\n");
        return;
    }
    snprintf(file, sizeof(file), "%s%s", s->content_dir, r.path);
    FILE *f = fopen(file, "rb");
    uint8_t *body = NULL;
    long len = -1;
    if (f && fseek(f, 0, SEEK_END) == 0 && (len = ftell(f)) >= 0 &&
        fseek(f, 0, SEEK_SET) == 0 && (body = malloc((size_t)len + 1)) &&
        fread(body, 1, (size_t)len, f) == (size_t)len)
        respond(s, "200 OK", body, (size_t)len, 0, 0);
    else
        respond_text(s, "404 Not Found", "no such file\n");
    free(body);
    if (f)
        fclose(f);
}

static ssize_t server_write(const void *buf, size_t len, void *opaque)
{
    slirp_net *s = opaque;
    size_t k = len < REQ_MAX - 1 - s->req_len ? len : REQ_MAX - 1 - s->req_len;
    memcpy(s->req + s->req_len, buf, k);
    s->req_len += k;
    s->req[s->req_len] = 0;
    if (strstr(s->req, "\r\n\r\n") || s->req_len == REQ_MAX - 1) {
        serve(s);
        s->req_len = 0;
    }
    return (ssize_t)len;
}

/* ---- the UDP responder ----
 * libslirp forwards only TCP to an in-emulator server, so a datagram to
 * 10.0.2.100:7070 is taken off the wire before slirp and answered with
 * frames made here: svc-content's UDP response (content_service.h), one
 * datagram per piece, the last shorter or empty. The request is the same
 * text as over TCP, "GET /fetch?... HTTP/1.0". */

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v >> 8);
    p[1] = (uint8_t)v;
}

/* Sends payload as a datagram from 10.0.2.100:7070 to the requester. */
static void udp_send(slirp_net *s, const uint8_t *payload, size_t n)
{
    uint8_t f[14 + 20 + 8 + CONTENT_PIECE_BYTES] = { 0 };
    struct udp_reply *u = &s->udp;
    if (n > CONTENT_PIECE_BYTES)
        n = CONTENT_PIECE_BYTES;
    memcpy(f, u->mac, 6);
    const uint8_t src_mac[6] = { 0x52, 0x55, 10, 0, 2, 100 };  /* slirp's for .100 */
    memcpy(f + 6, src_mac, 6);
    put16(f + 12, 0x0800);
    uint8_t *ip = f + 14;
    ip[0] = 0x45;
    put16(ip + 2, (uint16_t)(20 + 8 + n));
    put16(ip + 4, u->ip_id++);
    put16(ip + 6, 0x4000);                  /* don't fragment */
    ip[8] = 64;
    ip[9] = 17;
    memcpy(ip + 12, &s->server.s_addr, 4);
    memcpy(ip + 16, u->ip, 4);
    uint32_t sum = 0;
    for (int i = 0; i < 20; i += 2)
        sum += (uint32_t)(ip[i] << 8 | ip[i + 1]);
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    put16(ip + 10, (uint16_t)~sum);
    uint8_t *udp = ip + 20;
    put16(udp, SERVER_UDP_PORT);
    put16(udp + 2, u->port);
    put16(udp + 4, (uint16_t)(8 + n));      /* checksum 0: none, valid for IPv4 */
    memcpy(udp + 8, payload, n);
    wire_send(&s->down, f, 14 + 20 + 8 + n);
}

static void udp_fire(void *opaque)
{
    static const uint8_t content[CONTENT_PIECE_BYTES] = { 0x5a };
    slirp_net *s = opaque;
    struct udp_reply *u = &s->udp;
    uint32_t n = u->left < CONTENT_PIECE_BYTES ? u->left : CONTENT_PIECE_BYTES;
    udp_send(s, content, n);
    u->left -= n;
    if (n == CONTENT_PIECE_BYTES)
        vt_schedule(s->t, &u->ev, vt_now_ns(s->t) + u->piece_ns);
}

/* Returns 1 when the frame was a request to the UDP responder (answered
 * here), 0 for slirp. */
static int udp_intercept(slirp_net *s, const uint8_t *f, size_t len)
{
    if (len < 14 + 20 + 8 || f[12] != 0x08 || f[13] != 0x00 || (f[14] >> 4) != 4)
        return 0;
    const uint8_t *ip = f + 14;
    size_t ihl = (size_t)(ip[0] & 15) * 4;
    if (ip[9] != 17 || ihl < 20 || len < 14 + ihl + 8 ||
        memcmp(ip + 16, &s->server.s_addr, 4) != 0)
        return 0;
    const uint8_t *udp = ip + ihl;
    if ((udp[2] << 8 | udp[3]) != SERVER_UDP_PORT)
        return 0;
    size_t n = len - 14 - ihl - 8, ulen = (size_t)(udp[4] << 8 | udp[5]);
    if (ulen >= 8 && ulen - 8 < n)
        n = ulen - 8;                       /* the frame may be padded */
    char req[REQ_MAX];
    struct pl_error err;
    if (n > sizeof(req) - 1)
        n = sizeof(req) - 1;
    memcpy(req, udp + 8, n);
    req[n] = 0;
    struct udp_reply *u = &s->udp;
    vt_cancel(s->t, &u->ev);                /* a new request ends the last */
    memcpy(u->mac, f + 6, 6);
    memcpy(u->ip, ip + 12, 4);
    u->port = (uint16_t)(udp[0] << 8 | udp[1]);
    content_req r;
    int ok = content_req_parse(req, &r, &err) == 0;
    if (ok && !r.generated) {
        pl_error_set(&err, "bad request: UDP serves /fetch only");
        ok = 0;
    }
    if (ok) {
        u->left = r.bytes;
        u->piece_ns = r.bytes_per_s ?
            (uint64_t)CONTENT_PIECE_BYTES * VT_NS_PER_S / r.bytes_per_s : 0;
        vt_schedule(s->t, &u->ev, vt_now_ns(s->t) + r.latency_ms * 1000000ull);
        return 1;
    }
    fprintf(stderr, "panlab-phone: content server (UDP): %s\n", err.msg);
    udp_send(s, (const uint8_t *)err.msg, strlen(err.msg));
    return 1;
}

/* Slirp's TCP timers run from its poll; so does the server's output. */
static void poll_tick(void *opaque)
{
    slirp_net *s = opaque;
    uint32_t timeout = UINT32_MAX;
    slirp_pollfds_fill(s->slirp, &timeout, add_poll, s);
    slirp_pollfds_poll(s->slirp, 0, get_revents, s);
    flush_response(s);
    vt_schedule(s->t, &s->poll, vt_now_ns(s->t) + POLL_NS);
}

slirp_net *slirp_net_new(vt_engine *t, const net_timing *timing,
                         const char *pcap_path, const char *content_dir,
                         struct pl_error *err)
{
    slirp_net *s = calloc(1, sizeof(*s));
    if (!s) {
        pl_error_set(err, "--net: out of memory");
        return NULL;
    }
    s->t = t;
    s->tm = *timing;
    s->content_dir = content_dir;
    s->up.s = s;
    s->down.s = s;
    s->down.to_guest = 1;
    vt_event_init(&s->up.ev, wire_fire, &s->up);
    vt_event_init(&s->down.ev, wire_fire, &s->down);
    vt_event_init(&s->poll, poll_tick, s);
    vt_event_init(&s->pace, pace_fire, s);
    vt_event_init(&s->udp.ev, udp_fire, s);
    if (pcap_path) {
        s->pcap = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, 65535,
                                                      PCAP_TSTAMP_PRECISION_NANO);
        s->dump = s->pcap ? pcap_dump_open(s->pcap, pcap_path) : NULL;
        if (!s->dump) {
            pl_error_set(err, "%s: cannot create: %s", pcap_path,
                     s->pcap ? pcap_geterr(s->pcap) : "libpcap failed");
            slirp_net_free(s);
            return NULL;
        }
    }
    SlirpConfig cfg = { .version = 1, .restricted = 1, .in_enabled = true };
    inet_aton("10.0.2.0", &cfg.vnetwork);
    inet_aton("255.255.255.0", &cfg.vnetmask);
    inet_aton("10.0.2.2", &cfg.vhost);
    inet_aton("10.0.2.15", &cfg.vdhcp_start);
    inet_aton("10.0.2.3", &cfg.vnameserver);
    s->slirp = slirp_new(&cfg, &callbacks, s);
    inet_aton(SERVER_ADDR, &s->server);
    if (!s->slirp || slirp_add_guestfwd(s->slirp, server_write, s, &s->server,
                                        SERVER_PORT) < 0) {
        pl_error_set(err, "--net: libslirp could not start");
        slirp_net_free(s);
        return NULL;
    }
    vt_schedule(t, &s->poll, POLL_NS);
    return s;
}

void slirp_net_attach(slirp_net *s, virtio_net *nic)
{
    s->nic = nic;
}

void slirp_net_free(slirp_net *s)
{
    if (!s)
        return;
    vt_cancel(s->t, &s->poll);
    vt_cancel(s->t, &s->pace);
    vt_cancel(s->t, &s->udp.ev);
    vt_cancel(s->t, &s->up.ev);
    vt_cancel(s->t, &s->down.ev);
    if (s->slirp)
        slirp_cleanup(s->slirp);
    if (s->dump)
        pcap_dump_close(s->dump);
    if (s->pcap)
        pcap_close(s->pcap);
    free(s->resp);
    free(s);
}

/* ---- snapshots ---- */

static void wire_save(const wire *w, snap_w *sw)
{
    snap_put_u32(sw, (uint32_t)w->count);
    for (int i = 0; i < w->count; i++) {
        int k = (w->head + i) % WIRE_FRAMES;
        snap_put_u32(sw, w->len[k]);
        snap_put_bytes(sw, w->data[k], w->len[k]);
        snap_put_u64(sw, w->due[k]);
    }
    snap_put_u64(sw, w->free_ns);
    vt_event_save(&w->ev, sw);
}

static int wire_load(wire *w, snap_r *r)
{
    w->head = 0;
    w->count = (int)snap_get_u32_max(r, WIRE_FRAMES, "frames on the wire");
    for (int i = 0; i < w->count; i++) {
        w->len[i] = (uint16_t)snap_get_u32_max(r, NET_FRAME_MAX, "frame length");
        snap_get_bytes(r, w->data[i], w->len[i]);
        w->due[i] = snap_get_u64(r);
    }
    w->free_ns = snap_get_u64(r);
    return vt_event_load(w->s->t, &w->ev, r);
}

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
    wire_save(&s->up, w);
    wire_save(&s->down, w);
    vt_event_save(&s->poll, w);
    uint32_t ntimers = 0;
    for (const stimer *t = s->timers; t; t = t->next)
        ntimers++;
    snap_put_u32(w, ntimers);
    for (const stimer *t = s->timers; t; t = t->next)
        vt_event_save(&t->ev, w);
    snap_put_u32(w, (uint32_t)s->req_len);
    snap_put_bytes(w, s->req, s->req_len);
    size_t left = s->resp ? s->resp_len - s->resp_off : 0;
    snap_put_u32(w, (uint32_t)left);
    snap_put_bytes(w, s->resp ? s->resp + s->resp_off : NULL, left);
    snap_put_u32(w, (uint32_t)(s->resp ? s->resp_ready - s->resp_off : 0));
    snap_put_u32(w, (uint32_t)s->resp_first);
    snap_put_u64(w, s->piece_ns);
    vt_event_save(&s->pace, w);
    snap_put_bytes(w, s->udp.mac, 6);
    snap_put_bytes(w, s->udp.ip, 4);
    snap_put_u32(w, s->udp.port);
    snap_put_u32(w, s->udp.left);
    snap_put_u64(w, s->udp.piece_ns);
    snap_put_u32(w, s->udp.ip_id);
    vt_event_save(&s->udp.ev, w);
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
    if (wire_load(&s->up, r) < 0 || wire_load(&s->down, r) < 0 ||
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
    s->req_len = snap_get_u32_max(r, REQ_MAX - 1, "server request bytes");
    snap_get_bytes(r, s->req, s->req_len);
    s->req[s->req_len] = 0;
    uint32_t left = snap_get_u32_max(r, 1u << 30, "server response bytes");
    free(s->resp);
    s->resp = NULL;
    if (left) {
        if (!(s->resp = malloc(left)))
            return snap_r_fail(r, "out of memory for a response");
        snap_get_bytes(r, s->resp, left);
    }
    s->resp_len = left;
    s->resp_off = 0;
    s->resp_ready = snap_get_u32_max(r, left, "released response bytes");
    s->resp_first = snap_get_u32_max(r, left, "first response release");
    s->piece_ns = snap_get_u64(r);
    if (vt_event_load(s->t, &s->pace, r) < 0)
        return -1;
    snap_get_bytes(r, s->udp.mac, 6);
    snap_get_bytes(r, s->udp.ip, 4);
    s->udp.port = (uint16_t)snap_get_u32_max(r, 65535, "UDP requester port");
    s->udp.left = snap_get_u32_max(r, CONTENT_MAX_BYTES, "UDP response bytes");
    s->udp.piece_ns = snap_get_u64(r);
    s->udp.ip_id = (uint16_t)snap_get_u32_max(r, 65535, "UDP datagram id");
    if (vt_event_load(s->t, &s->udp.ev, r) < 0)
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
