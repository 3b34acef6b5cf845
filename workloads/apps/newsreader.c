/*
 * app-newsreader: a Reddit-News-like reader, the workload of the section 6 experiment
 * (scripts/section6.sh, Panappticon 6.2-6.3). A tap's param picks what it does
 * (action = param / 1000, n = param % 1000); each is an AsyncTask on THREAD_POOL_EXECUTOR
 * whose result is drawn on the main thread:
 *   0nnn  scroll, or open a story already loaded: n ms of CPU work;
 *   1nnn  open a story (Panappticon Fig. 11): n rounds of fetching 16 KiB of comments
 *         (30 ms server latency), parsing them (8 ms of CPU) and reading 64 KiB of the stored
 *         story from the SD card past the page cache (O_DIRECT), so CPU use is interleaved
 *         with network and disk blocking;
 *   2nnn  refresh the front page (the Reddit News case of Table 4): n thumbnails of 32 KiB,
 *         each fetched (20 ms latency), decoded (4 ms of CPU) and cached on the SD card with
 *         buffered writes and no fsync, so the kernel's writeback moves them to the card (by
 *         PIO on the phone) while the app goes on.
 * CPU work is bench_compute's: a fixed amount of work, stated as ms at 1.2 GHz.
 *
 * No logging here: every trace event comes from the platform and the kernel.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench_ui.h"
#include "content_fetch.h"

#define STORY_FILE_BYTES (1024u * 1024u)
#define STORY_CHUNK_BYTES (64u * 1024u)
#define COMMENTS_BYTES (16u * 1024u)
#define COMMENTS_LATENCY_MS 30u
#define PARSE_MS 8u
#define THUMB_BYTES (32u * 1024u)
#define THUMB_LATENCY_MS 20u
#define DECODE_MS 4u
#define THUMB_SLOTS 256u		/* thumbnails are cached under these many names, reused */
#define BYTES_PER_S (512u * 1024u)

enum action { SCROLL, OPEN_STORY, REFRESH };

static const char *card_dir(void)
{
	return access("/sdcard", W_OK) == 0 ? "/sdcard" : "/tmp";
}

static char story_path[64];

/* Writes the stored stories once, at start, and puts them on the card. Returns 0 or -1. */
static int make_story_file(void)
{
	static uint8_t chunk[STORY_CHUNK_BYTES];
	int fd;

	snprintf(story_path, sizeof(story_path), "%s/stories.dat", card_dir());
	fd = open(story_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	for (uint32_t off = 0; off < STORY_FILE_BYTES; off += STORY_CHUNK_BYTES) {
		memset(chunk, (int)(off / STORY_CHUNK_BYTES), sizeof(chunk));
		if (write(fd, chunk, sizeof(chunk)) != (ssize_t)sizeof(chunk)) {
			close(fd);
			return -1;
		}
	}
	return fsync(fd) == 0 && close(fd) == 0 ? 0 : -1;
}

/* Reads chunk k of the stored stories from the card itself (O_DIRECT where the file system
 * allows it, as ext2 on the card does). Returns a checksum, or 0 on failure. */
static uint64_t read_story(uint32_t k)
{
	static uint8_t buf[STORY_CHUNK_BYTES] __attribute__((aligned(4096)));
	off_t off = (off_t)(k % (STORY_FILE_BYTES / STORY_CHUNK_BYTES)) * STORY_CHUNK_BYTES;
	int fd = open(story_path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	uint64_t sum = 0;

	if (fd < 0)
		fd = open(story_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (pread(fd, buf, sizeof(buf), off) == (ssize_t)sizeof(buf))
		for (uint32_t i = 0; i < sizeof(buf); i += 512)
			sum = sum * 31 + buf[i];
	close(fd);
	return sum + 1;
}

static uint64_t open_story(uint32_t rounds)
{
	static uint32_t next_chunk;
	uint64_t sum = 0;

	for (uint32_t r = 0; r < rounds; r++) {
		int no_cache = -1;

		sum += content_fetch(SOCK_STREAM, COMMENTS_BYTES, COMMENTS_LATENCY_MS, BYTES_PER_S,
				     &no_cache);
		sum += bench_compute(PARSE_MS);
		sum += read_story(next_chunk++);
	}
	return sum;
}

static uint64_t refresh(uint32_t thumbs)
{
	static uint32_t next_slot;
	uint64_t sum = 0;

	for (uint32_t i = 0; i < thumbs; i++) {
		char path[64];
		int cache;

		snprintf(path, sizeof(path), "%s/thumb-%u.img", card_dir(), next_slot++ % THUMB_SLOTS);
		cache = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		sum += content_fetch(SOCK_STREAM, THUMB_BYTES, THUMB_LATENCY_MS, BYTES_PER_S, &cache);
		if (cache >= 0)
			close(cache);	/* no fsync: writeback takes it to the card later */
		sum += bench_compute(DECODE_MS);
	}
	return sum;
}

static uint64_t news_job(struct bench_ui *ui, uint64_t param)
{
	uint32_t n = (uint32_t)(param % 1000);

	(void)ui;
	switch (param / 1000) {
	case SCROLL:
		return bench_compute(n);
	case OPEN_STORY:
		return open_story(n);
	case REFRESH:
		return refresh(n);
	default:
		return 0;
	}
}

static const struct bench_job_ops job_ops = { .work = news_job };

static void on_tap(struct bench_ui *ui, int32_t param)
{
	bench_ui_start_job(ui, param, pl_app_thread_pool_executor(ui->app), &job_ops);
}

static int on_create(struct pl_app *app, void *ctx)
{
	if (make_story_file() != 0)
		return -EIO;
	/* The emulator's server needs no peer in the guest. */
	if (!content_emulator_host() && pl_app_start_service(app, "content") != 0)
		return -ECHILD;
	return bench_ui_create(app, ctx);
}

int main(void)
{
	static const struct pl_app_ops ops = { .on_create = on_create, .on_key = bench_ui_on_key };
	static struct bench_ui ui = { .on_tap = on_tap };

	return pl_app_main("newsreader", &ops, &ui);
}
