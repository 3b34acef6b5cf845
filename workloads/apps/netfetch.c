/*
 * app-netfetch: a network fetch (issue 5's resource patterns). A tap starts an AsyncTask on
 * THREAD_POOL_EXECUTOR whose background step fetches NETFETCH_BYTES from the content server
 * with the tap's param as the server's latency in ms and NETFETCH_BYTES_PER_S of bandwidth,
 * blocking in recv() on the socket; post-execute draws the result (the byte count's checksum).
 * The server is svc-content (another process, over loopback TCP), or, when the session exports
 * PANLAB_CONTENT_HOST (the phone, whose init brings eth0 up), the emulator's own HTTP content
 * server at that address over virtio-net: GET /fetch?bytes=&latency_ms=&rate= (TCP port 80, or
 * one datagram to UDP port 7070) gives the same response after the same latency and pacing,
 * timed on the emulator's clock.
 *
 * Built again with NETFETCH_UDP as app-netdgram: the same fetch as a request datagram and
 * paced response datagrams (UDP datagram blocking).
 *
 * Built again with NETFETCH_SDCACHE as app-sdcache, the Reddit News case: the fetched image is
 * also written to a cache file on the SD card (/sdcard, or /tmp on a machine without one) and
 * fsync'ed before it is shown (IO blocking, write-back work beside the main thread).
 *
 * No logging here: every trace event comes from the platform and the kernel.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "bench_ui.h"
#include "content_service.h"

#define NETFETCH_BYTES (32u * 1024u)
#define NETFETCH_BYTES_PER_S (512u * 1024u)

#if defined(NETFETCH_UDP)
#define SOCKET_TYPE SOCK_DGRAM
#define APP_NAME "netdgram"
#elif defined(NETFETCH_SDCACHE)
#define SOCKET_TYPE SOCK_STREAM
#define APP_NAME "sdcache"
#else
#define SOCKET_TYPE SOCK_STREAM
#define APP_NAME "netfetch"
#endif

#ifdef NETFETCH_SDCACHE
/* The cache file's directory: the SD card if the session mounted one. */
static const char *cache_dir(void)
{
	return access("/sdcard", W_OK) == 0 ? "/sdcard" : "/tmp";
}

/* Creates the cache file for the next fetch; -1 if it cannot (the fetch is then not cached). */
static int open_cache(void)
{
	static unsigned next;
	char path[64];
	snprintf(path, sizeof(path), "%s/cache-%u.img", cache_dir(), next++);
	return open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
}
#else
static int open_cache(void)
{
	return -1;
}
#endif

/* The emulator's content server, or NULL for svc-content. */
static const char *emulator_host(void)
{
	return getenv("PANLAB_CONTENT_HOST");
}

/* Sends the request: svc-content's struct, or an HTTP GET to the emulator's server. */
static int send_request(int fd, uint32_t latency_ms)
{
	struct content_request req = { NETFETCH_BYTES, latency_ms, NETFETCH_BYTES_PER_S };
	char get[128];
	int n;

	if (!emulator_host())
		return send(fd, &req, sizeof(req), MSG_NOSIGNAL) == (ssize_t)sizeof(req) ? 0 : -1;
	n = snprintf(get, sizeof(get), "GET /fetch?bytes=%u&latency_ms=%u&rate=%u HTTP/1.0\r\n\r\n",
		     req.bytes, req.latency_ms, req.bytes_per_s);
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

/* Fetches, caching what arrives when open_cache gives a file; returns a checksum of what
 * arrived, or 0 on failure (shown as such). */
static uint64_t fetch(uint32_t latency_ms)
{
	const char *host = emulator_host();
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(CONTENT_PORT),
				 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	/* A datagram lost on the way must not hang the app: give up after 5 s. */
	struct timeval timeout = { .tv_sec = 5 };
	uint8_t buf[CONTENT_CHUNK_BYTES];
	uint64_t sum = 0, got = 0;
	/* The emulator's TCP response has an HTTP head and is not closed after its body. */
	int http = host && SOCKET_TYPE == SOCK_STREAM;
	unsigned head_state = http ? 0 : 4, head_seen = 0;
	int head_ok = 1;
	int fd = socket(AF_INET, SOCKET_TYPE | SOCK_CLOEXEC, 0), cache = open_cache();
	if (fd < 0) {
		if (cache >= 0)
			close(cache);
		return 0;
	}
	if (host) {
		if (SOCKET_TYPE == SOCK_STREAM)
			a.sin_port = htons(CONTENT_HTTP_PORT);
		if (inet_pton(AF_INET, host, &a.sin_addr) != 1)
			head_ok = 0;
	}
	if (head_ok && setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout)) == 0 &&
	    connect(fd, (struct sockaddr *)&a, sizeof(a)) == 0 && send_request(fd, latency_ms) == 0) {
		while (!http || got < NETFETCH_BYTES) {
			ssize_t n = recv(fd, buf, sizeof(buf), 0);
			if (n <= 0)
				break;
			size_t off = head_state < 4 ?
				skip_head(buf, (size_t)n, &head_state, &head_seen, &head_ok) : 0;
			if (!head_ok)
				break;
			n -= (ssize_t)off;
			got += (uint64_t)n;
			if (cache >= 0 && write(cache, buf + off, (size_t)n) != n) {
				close(cache);
				cache = -1;
			}
			for (ssize_t i = 0; i < n; i++)
				sum = sum * 31 + buf[off + (size_t)i];
			/* A datagram response ends with a short datagram. */
			if (SOCKET_TYPE == SOCK_DGRAM && (size_t)n < sizeof(buf))
				break;
		}
	}
	close(fd);
	/* The image is shown once it is on the card, as the Reddit News app did. */
	if (cache >= 0 && (fsync(cache) != 0 || close(cache) != 0))
		return 0;
	return head_ok && got == NETFETCH_BYTES ? sum + got : 0;
}

static uint64_t fetch_job(struct bench_ui *ui, uint64_t latency_ms)
{
	(void)ui;
	return fetch((uint32_t)latency_ms);
}

static const struct bench_job_ops job_ops = { .work = fetch_job };

static void on_tap(struct bench_ui *ui, int32_t param)
{
	bench_ui_start_job(ui, param, pl_app_thread_pool_executor(ui->app), &job_ops);
}

static int on_create(struct pl_app *app, void *ctx)
{
	/* The emulator's server needs no peer in the guest. */
	if (!emulator_host() && pl_app_start_service(app, "content") != 0)
		return -ECHILD;
	return bench_ui_create(app, ctx);
}

int main(void)
{
	static const struct pl_app_ops ops = { .on_create = on_create, .on_key = bench_ui_on_key };
	static struct bench_ui ui = { .on_tap = on_tap };

	return pl_app_main(APP_NAME, &ops, &ui);
}
