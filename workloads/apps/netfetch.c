/*
 * app-netfetch: a network fetch (a resource pattern). A tap starts an AsyncTask on
 * THREAD_POOL_EXECUTOR whose background step fetches NETFETCH_BYTES from the content server
 * with the tap's param as the server's latency in ms and NETFETCH_BYTES_PER_S of bandwidth,
 * blocking in recv() on the socket; post-execute draws the result (the byte count's checksum).
 * The server is the content peer at PANLAB_CONTENT_HOST (content_fetch.h): GET
 * /fetch?bytes=&latency_ms=&rate= over HTTP (or one datagram) gives the same response after the
 * same latency and pacing on either backend.
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
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench_ui.h"
#include "content_fetch.h"

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

/* Fetches one image, caching it when open_cache gives a file; returns a checksum of what
 * arrived, or 0 on failure (shown as such). */
static uint64_t fetch(uint32_t latency_ms)
{
	int cache = open_cache();
	uint64_t sum = content_fetch(SOCKET_TYPE, NETFETCH_BYTES, latency_ms, NETFETCH_BYTES_PER_S,
				     &cache);

	/* The image is shown once it is on the card, as the Reddit News app did. */
	if (cache >= 0 && (fsync(cache) != 0 || close(cache) != 0))
		return 0;
	return sum;
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
	return bench_ui_create(app, ctx);
}

int main(void)
{
	static const struct pl_app_ops ops = { .on_create = on_create, .on_key = bench_ui_on_key };
	static struct bench_ui ui = { .on_tap = on_tap };

	return pl_app_main(APP_NAME, &ops, &ui);
}
