/* See content_fetch.h. */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "content_fetch.h"
#include "panlab/content_request.h"

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

/* A socket of sock_type connected to the content peer (HTTP over TCP, or the datagram port),
 * or -1 when there is no peer address or the connection fails. */
static int connect_peer(int sock_type)
{
	const char *host = getenv("PANLAB_CONTENT_HOST");
	struct sockaddr_in a = { .sin_family = AF_INET,
				 .sin_port = htons(sock_type == SOCK_STREAM ? CONTENT_HTTP_PORT :
						   CONTENT_UDP_PORT) };
	/* A datagram lost on the way, or a peer that stalls, must not hang the app: give up after
	 * 5 s without a byte. */
	struct timeval timeout = { .tv_sec = 5 };
	int fd;

	if (!host || inet_pton(AF_INET, host, &a.sin_addr) != 1)
		return -1;
	fd = socket(AF_INET, sock_type | SOCK_CLOEXEC, 0);
	if (fd >= 0 && (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout)) != 0 ||
			connect(fd, (struct sockaddr *)&a, sizeof(a)) != 0)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* Writes body[*done..have) to cache_fd in whole CONTENT_CACHE_WRITE_BYTES pieces, or all of it at
 * the end; a failed write stops the caching (*cache_fd = -1), not the fetch. */
static void cache_body(int *cache_fd, const uint8_t *body, size_t *done, size_t have, int end)
{
	while (*cache_fd >= 0 && have - *done >= (end ? 1 : CONTENT_CACHE_WRITE_BYTES)) {
		size_t n = have - *done < CONTENT_CACHE_WRITE_BYTES ? have - *done :
								      CONTENT_CACHE_WRITE_BYTES;
		if (write(*cache_fd, body + *done, n) != (ssize_t)n) {
			*cache_fd = -1;
			return;
		}
		*done += n;
	}
}

int content_get(const char *path, uint8_t **body, size_t *len_bytes, int cache_fd)
{
	/* The head fits here: content_response_head writes under 256 bytes. */
	char head[1024], get[300];
	size_t have = 0, want, cached = 0;
	char *end = NULL, *cl;
	int n = snprintf(get, sizeof(get), "GET %s HTTP/1.0\r\n\r\n", path);
	int fd = n > 0 && (size_t)n < sizeof(get) ? connect_peer(SOCK_STREAM) : -1;
	uint8_t *b;

	if (fd < 0 || send(fd, get, (size_t)n, MSG_NOSIGNAL) != n)
		goto fail;
	while (!end) {
		ssize_t r = have + 1 < sizeof(head) ? recv(fd, head + have, sizeof(head) - 1 - have, 0) : -1;
		if (r <= 0)
			goto fail;
		have += (size_t)r;
		head[have] = '\0';
		end = strstr(head, "\r\n\r\n");
	}
	cl = strstr(head, "\r\nContent-Length: ");
	if (strncmp(head, "HTTP/1.0 200 ", 13) || !cl || cl > end ||
	    sscanf(cl + 18, "%zu", &want) != 1 || want > CONTENT_MAX_BYTES)
		goto fail;
	b = malloc(want + 1);
	if (!b)
		goto fail;
	*len_bytes = have - (size_t)(end + 4 - head);
	if (*len_bytes > want)
		*len_bytes = want;
	memcpy(b, end + 4, *len_bytes);
	cache_body(&cache_fd, b, &cached, *len_bytes, 0);
	while (*len_bytes < want) {
		ssize_t r = recv(fd, b + *len_bytes, want - *len_bytes, 0);
		if (r <= 0) {
			free(b);
			goto fail;
		}
		*len_bytes += (size_t)r;
		cache_body(&cache_fd, b, &cached, *len_bytes, 0);
	}
	cache_body(&cache_fd, b, &cached, *len_bytes, 1);
	b[want] = 0;
	*body = b;
	close(fd);
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	return -1;
}

uint64_t content_fetch(int sock_type, uint32_t bytes, uint32_t latency_ms, uint32_t bytes_per_s,
		       int *cache)
{
	int http = sock_type == SOCK_STREAM;
	uint8_t buf[CONTENT_PIECE_BYTES];
	char get[128];
	uint64_t sum = 0, got = 0;
	/* Over TCP the body follows an HTTP head, and the server need not close after it. */
	unsigned head_state = http ? 0 : 4, head_seen = 0;
	int n = content_req_format(get, sizeof(get), bytes, latency_ms, bytes_per_s);
	int fd = connect_peer(sock_type);
	int head_ok = fd >= 0;

	if (fd < 0)
		return 0;
	if (send(fd, get, (size_t)n, MSG_NOSIGNAL) == n) {
		while (!http || got < bytes) {
			ssize_t r = recv(fd, buf, sizeof(buf), 0);
			if (r <= 0)
				break;
			size_t off = head_state < 4 ?
				skip_head(buf, (size_t)r, &head_state, &head_seen, &head_ok) : 0;
			if (!head_ok)
				break;
			r -= (ssize_t)off;
			got += (uint64_t)r;
			if (*cache >= 0 && write(*cache, buf + off, (size_t)r) != r) {
				close(*cache);
				*cache = -1;
			}
			for (ssize_t i = 0; i < r; i++)
				sum = sum * 31 + buf[off + (size_t)i];
			/* A datagram response ends with a short datagram. */
			if (!http && (size_t)r < sizeof(buf))
				break;
		}
	}
	close(fd);
	return head_ok && got == bytes ? sum + got : 0;
}
