/* The in-emulator content server's requests (HTTP/1.0 text, one per TCP
 * connection or UDP datagram), parsed apart from libslirp so they can be
 * tested alone:
 *   GET /PATH HTTP/1.x            a file under --content-dir;
 *   GET /fetch?bytes=N&latency_ms=L&rate=B HTTP/1.x
 *                                 N bytes of generated content, the first
 *                                 after L ms of virtual time, then paced to
 *                                 B bytes/s in CONTENT_PIECE_BYTES pieces
 *                                 (rate 0 or absent: unpaced). The same
 *                                 semantics as the guest's svc-content
 *                                 (workloads/apps/content_service.h). */
#ifndef PANLAB_HOST_CONTENT_REQUEST_H
#define PANLAB_HOST_CONTENT_REQUEST_H

#include <stddef.h>
#include <stdint.h>
#include "panlab/error.h"

#define CONTENT_PIECE_BYTES 1024u
#define CONTENT_MAX_BYTES (64u << 20)        /* a generated body, bytes */
#define CONTENT_MAX_LATENCY_MS 60000u

typedef struct content_req {
    int generated;              /* 1: /fetch; 0: the file at path */
    char path[256];             /* the request target, from '/' */
    uint32_t bytes;             /* generated body, bytes */
    uint32_t latency_ms;        /* before the first byte, ms */
    uint32_t bytes_per_s;       /* pacing; 0 = unpaced */
} content_req;

/* Parses one request head (the text up to its blank line). Returns 0, or
 * -1 with a one-line reason in err (the server answers 400 with it). */
int content_req_parse(const char *head, content_req *r, struct pl_error *err);

#endif
