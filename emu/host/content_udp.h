/* The content server's UDP side. libslirp forwards only TCP to an
 * in-emulator server, so a datagram to the server's UDP port is taken off
 * the wire before slirp and answered with Ethernet/IPv4/UDP frames made
 * here: svc-content's UDP response (workloads/apps/content_service.h), one
 * datagram per piece, the last shorter or empty. The request is the same
 * text as over TCP, "GET /fetch?... HTTP/1.0".
 *
 * Ownership: the struct is the caller's; the engine must outlive it. */
#ifndef PANLAB_HOST_CONTENT_UDP_H
#define PANLAB_HOST_CONTENT_UDP_H

#include <stddef.h>
#include <stdint.h>
#include "../time.h"

#define CONTENT_UDP_PORT 7070   /* svc-content's port, content_service.h */

typedef struct content_udp {
    vt_engine *t;
    uint8_t server_ip[4];       /* the server's IPv4 address */
    void (*send)(void *opaque, const uint8_t *frame, size_t len_bytes);
    void *opaque;               /* frames to the guest go to send(opaque, ...) */
    uint8_t mac[6];             /* the requester's */
    uint8_t ip[4];
    uint16_t port;
    uint32_t left;              /* bytes not yet sent */
    uint64_t piece_ns;
    uint16_t ip_id;             /* the next datagram's IPv4 id */
    vt_event ev;                /* sends the next piece */
} content_udp;

void content_udp_init(content_udp *u, vt_engine *t, const uint8_t server_ip[4],
                      void (*send)(void *opaque, const uint8_t *frame,
                                   size_t len_bytes),
                      void *opaque);
void content_udp_cancel(content_udp *u);
/* A frame from the guest: returns 1 when it was a request to the server
 * (answered here), 0 when it is not the server's. */
int content_udp_intercept(content_udp *u, const uint8_t *frame, size_t len_bytes);
/* Snapshots: the requester and the response left. */
void content_udp_save(const content_udp *u, snap_w *w);
int content_udp_load(content_udp *u, snap_r *r);

#endif
