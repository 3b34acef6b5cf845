/*
 * The protocol between the network apps (app-netfetch, app-netdgram) and their network peer,
 * svc-content, over the guest's loopback interface: the request is one struct content_request
 * (a TCP stream's first bytes, or one UDP datagram); the response is `bytes` bytes of content
 * after `latency_ms`, sent in CONTENT_CHUNK_BYTES pieces paced to `bytes_per_s` (TCP: a stream
 * the server then closes; UDP: one datagram per piece, the last one shorter or empty).
 * On the phone the peer is the emulator's content server instead, at the address the session
 * exports in PANLAB_CONTENT_HOST (emu/host/content_request.h): the request is the text
 * "GET /fetch?bytes=&latency_ms=&rate= HTTP/1.0", over TCP on CONTENT_HTTP_PORT (the same
 * response after an HTTP head, not closed after it) or as one datagram to CONTENT_PORT (the same
 * datagrams).
 */
#ifndef PANLAB_CONTENT_SERVICE_H
#define PANLAB_CONTENT_SERVICE_H

#include <stdint.h>

#define CONTENT_PORT 7070
#define CONTENT_HTTP_PORT 80
#define CONTENT_CHUNK_BYTES 1024u

struct content_request {
	uint32_t bytes;
	uint32_t latency_ms;
	uint32_t bytes_per_s;
};

#endif /* PANLAB_CONTENT_SERVICE_H */
