/* See content_fetch.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "content_fetch.h"
#include "content_service.h"

/* The emulator's content server, or NULL for svc-content. */
const char *content_emulator_host(void)
{
	return getenv("PANLAB_CONTENT_HOST");
}

/* Sends the request: svc-content's struct, or an HTTP GET to the emulator's server. */
static int send_request(int fd, const struct content_request *req)
{
	char get[128];
	int n;

	if (!content_emulator_host())
		return send(fd, req, sizeof(*req), MSG_NOSIGNAL) == (ssize_t)sizeof(*req) ? 0 : -1;
	n = snprintf(get, sizeof(get), "GET /fetch?bytes=%u&latency_ms=%u&rate=%u HTTP/1.0\r\n\r\n",
		     req->bytes, req->latency_ms, req->bytes_per_s);
	return send(fd, get, (size_t)n, MSG_NOSIGNAL) == n ? 0 : -1;
}

/* Skips an HTTP response head ending in buf[0..n): returns how many of those bytes are still
 * head (the rest is body); *state counts the matched "\r\n\r\n" bytes, 4 once the head is over,
 * and *ok says the status line was 200. */
static size_t skip_head(const uint8_t *buf, size_t n, unsigned *state, unsigned *seen, int *ok)
{
	static const char status[] = "HTTP/1.0 200 ", end[] = "\r\n\r\n";
	size_t i;

	for (i = 0; i < n && *state < 4; i++, (*seen)++) {
		if (*seen < sizeof(status) - 1 && buf[i] != (uint8_t)status[*seen])
			*ok = 0;
		*state = buf[i] == (uint8_t)end[*state] ? *state + 1 : buf[i] == '\r';
	}
	return i;
}

uint64_t content_fetch(int sock_type, uint32_t bytes, uint32_t latency_ms, uint32_t bytes_per_s,
		       int *cache)
{
	const struct content_request req = { bytes, latency_ms, bytes_per_s };
	const char *host = content_emulator_host();
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(CONTENT_PORT),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	/* A datagram lost on the way must not hang the app: give up after 5 s. */
	struct timeval timeout = { .tv_sec = 5 };
	uint8_t buf[CONTENT_CHUNK_BYTES];
	uint64_t sum = 0, got = 0;
	/* The emulator's TCP response has an HTTP head and is not closed after its body. */
	int http = host && sock_type == SOCK_STREAM;
	unsigned head_state = http ? 0 : 4, head_seen = 0;
	int head_ok = 1;
	int fd = socket(AF_INET, sock_type | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	if (host) {
		if (sock_type == SOCK_STREAM)
			a.sin_port = htons(CONTENT_HTTP_PORT);
		if (inet_pton(AF_INET, host, &a.sin_addr) != 1)
			head_ok = 0;
	}
	if (head_ok && setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout)) == 0 &&
	    connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0 && send_request(fd, &req) == 0) {
		while (!http || got < bytes) {
			ssize_t n = recv(fd, buf, sizeof(buf), 0);
			if (n <= 0)
				break;
			size_t off = head_state < 4 ?
				skip_head(buf, (size_t)n, &head_state, &head_seen, &head_ok) : 0;
			if (!head_ok)
				break;
			n -= (ssize_t)off;
			got += (uint64_t)n;
			if (*cache >= 0 && write(*cache, buf + off, (size_t)n) != n) {
				close(*cache);
				*cache = -1;
			}
			for (ssize_t i = 0; i < n; i++)
				sum = sum * 31 + buf[off + (size_t)i];
			/* A datagram response ends with a short datagram. */
			if (sock_type == SOCK_DGRAM && (size_t)n < sizeof(buf))
				break;
		}
	}
	close(fd);
	return head_ok && got == bytes ? sum + got : 0;
}
