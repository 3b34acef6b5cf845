/*
 * One fetch from the content server (content_service.h): svc-content over loopback, or the
 * emulator's server at PANLAB_CONTENT_HOST on the phone. Shared by the network apps.
 */
#ifndef PANLAB_CONTENT_FETCH_H
#define PANLAB_CONTENT_FETCH_H

#include <stdint.h>

/* The emulator's content server's address (PANLAB_CONTENT_HOST), or NULL for svc-content. */
const char *content_emulator_host(void);

/*
 * Fetches `bytes` over sock_type (SOCK_STREAM or SOCK_DGRAM) after the server's latency_ms,
 * paced to bytes_per_s, blocking in recv(). What arrives is also written to *cache unless it
 * is -1; a failed write closes it and sets it to -1. Returns a checksum of the content plus
 * its length, or 0 on failure.
 */
uint64_t content_fetch(int sock_type, uint32_t bytes, uint32_t latency_ms, uint32_t bytes_per_s,
		       int *cache);

#endif /* PANLAB_CONTENT_FETCH_H */
