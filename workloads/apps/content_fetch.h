/*
 * One fetch from the network workloads' content peer, in the one protocol of
 * include/panlab/content_request.h, at the address the session exports in PANLAB_CONTENT_HOST
 * (the emulator's server on the phone, svc-content on loopback on qemu). Shared by the network
 * apps.
 */
#ifndef PANLAB_CONTENT_FETCH_H
#define PANLAB_CONTENT_FETCH_H

#include <stdint.h>

/*
 * Fetches `bytes` over sock_type (SOCK_STREAM: HTTP over TCP; SOCK_DGRAM: a request datagram and
 * paced response datagrams) after the peer's latency_ms, paced to bytes_per_s, blocking in
 * recv(). What arrives is also written to *cache unless it is -1; a failed write closes it and
 * sets it to -1. Returns a checksum of the content plus its length, or 0 on failure (no peer
 * address among them).
 */
uint64_t content_fetch(int sock_type, uint32_t bytes, uint32_t latency_ms, uint32_t bytes_per_s,
		       int *cache);

/* A cached body is written in pieces of java.io.BufferedOutputStream's default buffer. */
#define CONTENT_CACHE_WRITE_BYTES 8192

/*
 * GETs the file at path ("/r/front/0.json") from the same peer over HTTP, blocking in recv(), and
 * returns its body in *body (malloc'd, the caller frees; NUL-terminated past *len_bytes) and its
 * length. Unless cache_fd is -1, the body is also written to it as it arrives, in
 * CONTENT_CACHE_WRITE_BYTES writes (the last one shorter); a failed write stops the caching,
 * not the fetch. Returns 0, or -1 when there is no peer, the connection fails, the status is not
 * 200, the head has no Content-Length or the body ends short (nothing allocated).
 */
int content_get(const char *path, uint8_t **body, size_t *len_bytes, int cache_fd);

#endif /* PANLAB_CONTENT_FETCH_H */
