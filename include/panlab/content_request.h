/* SPDX-License-Identifier: MIT */
/*
 * The content peer's protocol: how the network workloads (workloads/apps/content_fetch.c) ask
 * their peer for content, and how the peer answers. One protocol on both backends: the peer is
 * the emulator's content server on the phone (emu/host/content_http.c, content_udp.c) and the
 * guest's svc-content on qemu (workloads/apps/svc_content.c); the apps only learn its address
 * (PANLAB_CONTENT_HOST).
 *
 * A request is HTTP/1.0 text, its head ended by a blank line:
 *   GET /fetch?bytes=N&latency_ms=L&rate=B HTTP/1.0
 *       N bytes of generated content (each CONTENT_PIECE_BYTES piece opens with 0x5a, the
 *       rest is zero), the first piece after L ms, then a piece every
 *       CONTENT_PIECE_BYTES / B s (rate 0 or absent: unpaced);
 *   GET /PATH HTTP/1.0
 *       the file PATH (the emulator's --content-dir; svc-content serves none: 404).
 * Over TCP (CONTENT_HTTP_PORT) the response is an HTTP/1.0 head (content_response_head) and the
 * body; over UDP (CONTENT_UDP_PORT) the request is one datagram and the response the body's
 * pieces, one datagram each, ended by a shorter or empty one.
 *
 * Static inline, no allocation, so the guest (armel) and the emulator parse requests alike.
 */
#ifndef PANLAB_CONTENT_REQUEST_H
#define PANLAB_CONTENT_REQUEST_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "panlab/error.h"

#define CONTENT_HTTP_PORT 80
#define CONTENT_UDP_PORT 7070
#define CONTENT_PIECE_BYTES 1024u
#define CONTENT_MAX_BYTES (64u << 20)	/* a generated body, bytes */
#define CONTENT_MAX_LATENCY_MS 60000u
#define CONTENT_REQ_MAX 4096		/* a request head, bytes */

struct content_req {
	int generated;		/* 1: /fetch; 0: the file at path */
	char path[256];		/* the request target, from '/' */
	uint32_t bytes;		/* generated body, bytes */
	uint32_t latency_ms;	/* before the first piece, ms */
	uint32_t bytes_per_s;	/* pacing; 0 = unpaced */
};

/* The request for generated content; returns its length as snprintf does. */
static inline int content_req_format(char *buf, size_t size, uint32_t bytes, uint32_t latency_ms,
				     uint32_t bytes_per_s)
{
	return snprintf(buf, size, "GET /fetch?bytes=%u&latency_ms=%u&rate=%u HTTP/1.0\r\n\r\n",
			bytes, latency_ms, bytes_per_s);
}

/* A response head: status is "200 OK", "400 Bad Request", ... */
static inline int content_response_head(char *buf, size_t size, const char *status,
					const char *type, size_t body_bytes)
{
	return snprintf(buf, size, "HTTP/1.0 %s\r\nContent-Length: %zu\r\n"
			"Content-Type: %s\r\nConnection: close\r\n\r\n",
			status, body_bytes, type);
}

/* The query of /fetch: bytes (required), latency_ms, rate; each once. */
static inline int content_req_parse_query(const char *q, struct content_req *r,
					  struct pl_error *err)
{
	static const struct { const char *key; uint32_t max; size_t off; } keys[] = {
		{ "bytes", CONTENT_MAX_BYTES, offsetof(struct content_req, bytes) },
		{ "latency_ms", CONTENT_MAX_LATENCY_MS, offsetof(struct content_req, latency_ms) },
		{ "rate", UINT32_MAX, offsetof(struct content_req, bytes_per_s) },
	};
	unsigned int seen = 0;

	while (*q) {
		size_t len = strcspn(q, "&"), klen = strcspn(q, "=&"), i = 0;
		char value[16];
		uint64_t v;

		while (i < 3 && !(strlen(keys[i].key) == klen && !strncmp(q, keys[i].key, klen)))
			i++;
		if (i == 3 || klen == len)
			return pl_fail(err, "bad request: unknown or valueless parameter '%.*s'",
				       (int)len, q);
		if (seen & (1u << i))
			return pl_fail(err, "bad request: %s given twice", keys[i].key);
		seen |= 1u << i;
		snprintf(value, sizeof(value), "%.*s", (int)(len - klen - 1), q + klen + 1);
		if (len - klen - 1 >= sizeof(value) || pl_parse_u64(value, keys[i].max, &v) < 0)
			return pl_fail(err, "bad request: %s must be a number up to %u", keys[i].key,
				       keys[i].max);
		*(uint32_t *)((char *)r + keys[i].off) = (uint32_t)v;
		q += len + (q[len] == '&');
	}
	if (!(seen & 1u))
		return pl_fail(err, "bad request: /fetch needs bytes=N");
	return 0;
}

/* Parses one request head (the text up to its blank line): 0, or -1 with the reason in err. */
static inline int content_req_parse(const char *head, struct content_req *r, struct pl_error *err)
{
	const char *target;
	size_t len;

	memset(r, 0, sizeof(*r));
	if (strncmp(head, "GET ", 4))
		return pl_fail(err, "bad request: only GET is served");
	target = head + 4;
	len = strcspn(target, " \r\n");
	if (len == 0 || target[0] != '/' || len >= sizeof(r->path))
		return pl_fail(err, "bad request: the target must be /PATH of under %zu bytes",
			       sizeof(r->path));
	if (strncmp(target + len, " HTTP/1.", 8))
		return pl_fail(err, "bad request: no HTTP/1.x version after the target");
	memcpy(r->path, target, len);
	r->path[len] = '\0';
	if (!strncmp(r->path, "/fetch?", 7)) {
		r->generated = 1;
		return content_req_parse_query(r->path + 7, r, err);
	}
	if (strstr(r->path, "..") || strchr(r->path, '?'))
		return pl_fail(err, "bad request: file paths may not hold '..' or a query");
	return 0;
}

#endif /* PANLAB_CONTENT_REQUEST_H */
