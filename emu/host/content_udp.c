/* The content server over UDP; see content_udp.h. */
#include <stdio.h>
#include <string.h>
#include "content_udp.h"
#include "content_http.h"
#include "inet_frame.h"

/* Sends payload as a datagram from the server to the requester. */
static void udp_send(content_udp *u, const uint8_t *payload, size_t n)
{
    uint8_t f[14 + 20 + 8 + CONTENT_PIECE_BYTES] = { 0 };
    if (n > CONTENT_PIECE_BYTES)
        n = CONTENT_PIECE_BYTES;
    memcpy(f, u->mac, 6);
    const uint8_t src_mac[6] = { 0x52, 0x55, 10, 0, 2, 100 };  /* slirp's for .100 */
    memcpy(f + 6, src_mac, 6);
    inet_put_be(f + 12, 0x0800, 2);
    uint8_t *ip = f + 14;
    inet_put_ipv4(ip, 20 + 8 + n, u->ip_id++, 17, u->server_ip, u->ip);
    uint8_t *udp = ip + 20;
    inet_put_be(udp, CONTENT_UDP_PORT, 2);
    inet_put_be(udp + 2, u->port, 2);
    inet_put_be(udp + 4, (uint16_t)(8 + n), 2);      /* checksum 0: none, valid for IPv4 */
    memcpy(udp + 8, payload, n);
    u->send(u->opaque, f, 14 + 20 + 8 + n);
}

static void udp_fire(void *opaque)
{
    static const uint8_t content[CONTENT_PIECE_BYTES] = { 0x5a };
    content_udp *u = opaque;
    uint32_t n = u->left < CONTENT_PIECE_BYTES ? u->left : CONTENT_PIECE_BYTES;
    udp_send(u, content, n);
    u->left -= n;
    if (n == CONTENT_PIECE_BYTES)
        vt_schedule(u->t, &u->ev, vt_now_ns(u->t) + u->piece_ns);
}

int content_udp_intercept(content_udp *u, const uint8_t *f, size_t len)
{
    if (len < 14 + 20 + 8 || f[12] != 0x08 || f[13] != 0x00 || (f[14] >> 4) != 4)
        return 0;
    const uint8_t *ip = f + 14;
    size_t ihl = (size_t)(ip[0] & 15) * 4;
    if (ip[9] != 17 || ihl < 20 || len < 14 + ihl + 8 ||
        memcmp(ip + 16, u->server_ip, 4) != 0)
        return 0;
    const uint8_t *udp = ip + ihl;
    if ((udp[2] << 8 | udp[3]) != CONTENT_UDP_PORT)
        return 0;
    size_t n = len - 14 - ihl - 8, ulen = (size_t)(udp[4] << 8 | udp[5]);
    if (ulen >= 8 && ulen - 8 < n)
        n = ulen - 8;                       /* the frame may be padded */
    char req[CONTENT_REQ_MAX];
    struct pl_error err;
    if (n > sizeof(req) - 1)
        n = sizeof(req) - 1;
    memcpy(req, udp + 8, n);
    req[n] = 0;
    vt_cancel(u->t, &u->ev);                /* a new request ends the last */
    memcpy(u->mac, f + 6, 6);
    memcpy(u->ip, ip + 12, 4);
    u->port = (uint16_t)(udp[0] << 8 | udp[1]);
    struct content_req r;
    int ok = content_req_parse(req, &r, &err) == 0;
    if (ok && !r.generated) {
        pl_error_set(&err, "bad request: UDP serves /fetch only");
        ok = 0;
    }
    if (ok) {
        u->left = r.bytes;
        u->piece_ns = r.bytes_per_s ?
            (uint64_t)CONTENT_PIECE_BYTES * VT_NS_PER_S / r.bytes_per_s : 0;
        vt_schedule(u->t, &u->ev, vt_now_ns(u->t) + r.latency_ms * 1000000ull);
        return 1;
    }
    fprintf(stderr, "panlab-phone: content server (UDP): %s\n", err.msg);
    udp_send(u, (const uint8_t *)err.msg, strlen(err.msg));
    return 1;
}

void content_udp_init(content_udp *u, vt_engine *t, const uint8_t server_ip[4],
                      void (*send)(void *opaque, const uint8_t *frame,
                                   size_t len_bytes),
                      void *opaque)
{
    u->t = t;
    memcpy(u->server_ip, server_ip, 4);
    u->send = send;
    u->opaque = opaque;
    vt_event_init(&u->ev, udp_fire, u);
}

void content_udp_cancel(content_udp *u)
{
    vt_cancel(u->t, &u->ev);
}

void content_udp_save(const content_udp *u, snap_w *w)
{
    snap_put_bytes(w, u->mac, 6);
    snap_put_bytes(w, u->ip, 4);
    snap_put_u32(w, u->port);
    snap_put_u32(w, u->left);
    snap_put_u64(w, u->piece_ns);
    snap_put_u32(w, u->ip_id);
    vt_event_save(&u->ev, w);
}

int content_udp_load(content_udp *u, snap_r *r)
{
    snap_get_bytes(r, u->mac, 6);
    snap_get_bytes(r, u->ip, 4);
    u->port = (uint16_t)snap_get_u32_max(r, 65535, "UDP requester port");
    u->left = snap_get_u32_max(r, CONTENT_MAX_BYTES, "UDP response bytes");
    u->piece_ns = snap_get_u64(r);
    u->ip_id = (uint16_t)snap_get_u32_max(r, 65535, "UDP datagram id");
    return vt_event_load(u->t, &u->ev, r);
}
