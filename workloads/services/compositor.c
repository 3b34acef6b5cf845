/*
 * compositor: SurfaceFlinger's job in miniature. Apps hand it a surface
 * (a memfd of PL_SURFACE_BUFFERS full-screen buffers) and post frames; on
 * each 60 Hz vsync it copies the newest posted frame of the topmost surface
 * to the DRM scan-out buffer, flushes it, and records the flush time as
 * ground truth. Apps that asked for vsync (Choreographer) get a tick right
 * after the composition, so they draw into the buffer not being shown.
 * An app back in the foreground raises its surface to the top; the activity
 * manager may ask to hear of the next flush (its `wait display`).
 *
 * Vsync is a CLOCK_MONOTONIC timerfd on a fixed 60 Hz grid from start-up,
 * armed only while someone needs a tick.
 *
 * It logs the display pipeline for the tracer: FRAME_LATCH when it takes an
 * app's frame, DISPLAY_SUBMIT before the flush, DISPLAY_FLUSHED when
 * display_flush returns, which is when the device has completed the flush
 * (display_drm.h).
 *
 * Ground truth (the qemu backend's; the phone takes its own at the device)
 * goes to the display port with one write() per line, never through the
 * tracer's logger: the flush time and the frame marker (panlab/marker.h)
 * read back from the scan-out buffer just flushed, as a camera would see it.
 *
 *   compositor [--no-display] [--ground-truth PATH]
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "display_drm.h"
#include "panlab/clock.h"
#include "panlab/looper.h"
#include "panlab/ground_truth_format.h"
#include "panlab/guest_abi.h"
#include "panlab/marker.h"
#include "panlab/ready.h"
#include "panlab/ulog.h"
#include "panlab/vport.h"
#include "panlab/wire.h"
#include "panlab/error.h"

#define VSYNC_PERIOD_NS 16666667ull
#define MAX_CLIENTS 8
#define SURFACE_PX (PL_DISPLAY_WIDTH_PX * PL_DISPLAY_HEIGHT_PX)
#define SURFACE_BYTES ((size_t)PL_SURFACE_BUFFERS * SURFACE_PX * PL_PIXEL_BYTES)

struct client {
	int sock;		/* -1: free */
	uint32_t *buffers;	/* NULL until PL_WIRE_SURFACE */
	uint32_t pid;		/* from PL_WIRE_SURFACE */
	bool has_frame;		/* posted at least one frame */
	uint32_t shown_buffer;	/* newest posted buffer */
	uint64_t shown_seq;	/* its frame sequence number (UI_UPDATE a0) */
	bool wants_vsync;
	bool wants_frame;	/* PL_WIRE_FRAME_WATCH: report the next flush */
	uint64_t order;		/* connection order or last raise: later is on top */
};

struct compositor {
	struct pl_looper *looper;
	struct display display;
	int listen_sock;
	int timer_fd;
	int gt_fd;		/* -1: no ground-truth port */
	struct pl_marker_seen seen;	/* app frames shown so far, for the ground truth */
	uint64_t epoch_ns;	/* vsync grid origin */
	bool timer_armed;
	bool frame_pending;	/* a frame was posted since the last composition */
	uint64_t vsync_seq;
	uint64_t frame_seq;	/* flushes so far: ground-truth frame numbering */
	uint64_t next_order;
	struct client clients[MAX_CLIENTS];
};

static void arm_vsync(struct compositor *c)
{
	if (c->timer_armed)
		return;
	uint64_t next = c->epoch_ns + ((pl_now_ns() - c->epoch_ns) / VSYNC_PERIOD_NS + 1) * VSYNC_PERIOD_NS;
	struct itimerspec its = { .it_value = { .tv_sec = (time_t)(next / 1000000000u),
						 .tv_nsec = (long)(next % 1000000000u) } };
	if (timerfd_settime(c->timer_fd, TFD_TIMER_ABSTIME, &its, NULL) < 0)
		pl_die("arm vsync timer: %s", strerror(errno));
	c->timer_armed = true;
}

static void drop_client(struct compositor *c, struct client *cl)
{
	pl_looper_remove_fd(c->looper, cl->sock);
	close(cl->sock);
	if (cl->buffers)
		munmap(cl->buffers, SURFACE_BYTES);
	*cl = (struct client){ .sock = -1 };
}

static void write_ground_truth(struct compositor *c, uint64_t t_ns)
{
	if (c->gt_fd < 0)
		return;
	const struct display *d = &c->display;
	struct pl_marker marker;
	enum pl_marker_status st = pl_marker_read((const uint8_t *)d->pixels, (uint32_t)d->width_px,
						  (uint32_t)d->height_px,
						  (uint32_t)d->stride_px * PL_PIXEL_BYTES, &marker, NULL);
	st = pl_marker_seen_check(&c->seen, st, &marker);
	char line[PL_GT_LINE_BYTES];
	int n = pl_marker_gt_frame(line, sizeof(line), c->frame_seq, t_ns, st, &marker);
	if (n < 0 || write(c->gt_fd, line, (size_t)n) != n)
		pl_die("write ground truth: %s", n < 0 ? "line too long" : strerror(errno));
}

static void compose(struct compositor *c)
{
	struct client *top = NULL;
	for (int i = 0; i < MAX_CLIENTS; i++) {
		struct client *cl = &c->clients[i];
		if (cl->sock >= 0 && cl->has_frame && (!top || cl->order > top->order))
			top = cl;
	}
	c->frame_pending = false;
	if (!top)
		return;
	pl_ulog(PL_EV_FRAME_LATCH, top->shown_seq, top->pid, (uint32_t)c->frame_seq);
	const uint32_t *src = top->buffers + (size_t)top->shown_buffer * SURFACE_PX;
	struct display *d = &c->display;
	int w = d->width_px < PL_DISPLAY_WIDTH_PX ? d->width_px : PL_DISPLAY_WIDTH_PX;
	int h = d->height_px < PL_DISPLAY_HEIGHT_PX ? d->height_px : PL_DISPLAY_HEIGHT_PX;
	for (int y = 0; y < h; y++)
		memcpy(d->pixels + (size_t)y * d->stride_px, src + (size_t)y * PL_DISPLAY_WIDTH_PX,
		       (size_t)w * PL_PIXEL_BYTES);
	pl_ulog(PL_EV_DISPLAY_SUBMIT, c->frame_seq, 0, 0);
	int err = display_flush(d);
	if (err)
		pl_die("flush display: %s", strerror(-err));
	uint64_t t_ns = pl_now_ns();
	pl_ulog(PL_EV_DISPLAY_FLUSHED, c->frame_seq, 0, 0);
	write_ground_truth(c, t_ns);
	for (int i = 0; i < MAX_CLIENTS; i++) {
		struct client *cl = &c->clients[i];
		struct pl_wire m = { .type = PL_WIRE_FRAME, .seq = c->frame_seq, .t_ns = t_ns };
		if (cl->sock < 0 || !cl->wants_frame)
			continue;
		cl->wants_frame = false;
		if (pl_wire_send(cl->sock, &m, -1) < 0)
			drop_client(c, cl);
	}
	c->frame_seq++;
}

static void on_vsync(int fd, uint32_t events, void *ctx)
{
	struct compositor *c = ctx;
	uint64_t expirations;

	(void)events;
	if (read(fd, &expirations, sizeof(expirations)) != sizeof(expirations))
		return;
	c->timer_armed = false;
	uint64_t tick_ns = pl_now_ns();
	c->vsync_seq++;
	if (c->frame_pending)
		compose(c);
	for (int i = 0; i < MAX_CLIENTS; i++) {
		struct client *cl = &c->clients[i];
		if (cl->sock < 0 || !cl->wants_vsync)
			continue;
		cl->wants_vsync = false;
		struct pl_wire m = { .type = PL_WIRE_VSYNC, .seq = c->vsync_seq, .t_ns = tick_ns };
		if (pl_wire_send(cl->sock, &m, -1) < 0)
			drop_client(c, cl);
	}
}

static int map_surface(struct client *cl, int fd)
{
	void *p = mmap(NULL, SURFACE_BYTES, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return -errno;
	cl->buffers = p;
	return 0;
}

static void on_client(int fd, uint32_t events, void *ctx)
{
	struct compositor *c = ctx;
	struct client *cl = NULL;
	for (int i = 0; i < MAX_CLIENTS; i++)
		if (c->clients[i].sock == fd)
			cl = &c->clients[i];
	struct pl_wire m;
	int passed = -1;
	int r = (events & EPOLLIN) ? pl_wire_recv(fd, &m, &passed) : 0;
	if (r <= 0) {
		drop_client(c, cl);
		return;
	}
	switch (m.type) {
	case PL_WIRE_SURFACE:
		if (passed < 0 || cl->buffers) {
			if (passed >= 0)
				close(passed);
			drop_client(c, cl);
		} else if (map_surface(cl, passed) < 0) {
			drop_client(c, cl);
		} else {
			cl->pid = m.pid;
		}
		return;
	case PL_WIRE_VSYNC_REQUEST:
		cl->wants_vsync = true;
		arm_vsync(c);
		break;
	case PL_WIRE_POST:
		if (!cl->buffers || m.buffer >= PL_SURFACE_BUFFERS) {
			drop_client(c, cl);
			return;
		}
		cl->has_frame = true;
		cl->shown_buffer = m.buffer;
		cl->shown_seq = m.seq;
		c->frame_pending = true;
		arm_vsync(c);
		break;
	case PL_WIRE_RAISE:
		/* The app came back to the foreground: its last frame is shown at the next vsync. */
		cl->order = c->next_order++;
		if (cl->has_frame) {
			c->frame_pending = true;
			arm_vsync(c);
		}
		break;
	case PL_WIRE_FRAME_WATCH:
		cl->wants_frame = true;
		break;
	}
	if (passed >= 0)
		close(passed);
}

static void on_accept(int fd, uint32_t events, void *ctx)
{
	struct compositor *c = ctx;
	(void)events;
	int s = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
	if (s < 0)
		return;
	for (int i = 0; i < MAX_CLIENTS; i++) {
		struct client *cl = &c->clients[i];
		if (cl->sock >= 0)
			continue;
		*cl = (struct client){ .sock = s, .order = c->next_order++ };
		if (pl_looper_add_fd(c->looper, s, EPOLLIN, on_client, c) == 0)
			return;
		cl->sock = -1;
		break;
	}
	close(s);
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "no-display", no_argument, NULL, 'n' },
		{ "ground-truth", required_argument, NULL, 'g' },
		{ 0 },
	};
	bool no_display = false;
	const char *gt_path = NULL;
	int o;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		if (o == 'n')
			no_display = true;
		else if (o == 'g')
			gt_path = optarg;
		else
			pl_die("usage: compositor [--no-display] [--ground-truth PATH]");
	}

	static struct compositor c;
	struct pl_error err;
	if ((o = pl_ulog_open_from_env()) != 0)
		pl_die("userspace logger: %s", strerror(-o));
	for (int i = 0; i < MAX_CLIENTS; i++)
		c.clients[i].sock = -1;
	int r = no_display ? display_open_memory(&c.display, PL_DISPLAY_WIDTH_PX, PL_DISPLAY_HEIGHT_PX,
						 &err)
			   : display_open_drm(&c.display, "/dev/dri/card0", &err);
	if (r)
		pl_die("%s", err.msg);
	/* The port may be absent (other backends, runs by hand): then there is no ground truth. */
	char port[64];
	if (!gt_path && pl_vport_path(PL_PORT_DISPLAY, port, sizeof(port)) == 0)
		gt_path = port;
	c.gt_fd = gt_path ? open(gt_path, O_WRONLY | O_CLOEXEC) : -1;
	if (gt_path && c.gt_fd < 0)
		pl_die("open %s: %s", gt_path, strerror(errno));
	c.looper = pl_looper_create();
	if (!c.looper)
		pl_die("looper: %s", strerror(errno));
	c.timer_fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (c.timer_fd < 0)
		pl_die("timerfd: %s", strerror(errno));
	c.epoch_ns = pl_now_ns();
	c.listen_sock = pl_wire_listen(PL_COMPOSITOR_SOCKET);
	if (c.listen_sock < 0)
		pl_die("listen on @%s: %s", PL_COMPOSITOR_SOCKET, strerror(-c.listen_sock));
	if ((r = pl_looper_add_fd(c.looper, c.timer_fd, EPOLLIN, on_vsync, &c)) != 0 ||
	    (r = pl_looper_add_fd(c.looper, c.listen_sock, EPOLLIN, on_accept, &c)) != 0 ||
	    (r = pl_looper_watch_signals(c.looper, NULL, NULL)) != 0)
		pl_die("event loop: %s", strerror(-r));
	if ((r = pl_ready_signal()) != 0)
		pl_die("signal ready: %s", strerror(-r));
	r = pl_looper_loop(c.looper);
	if (r)
		pl_die("event loop: %s", strerror(-r));
	return 0;
}
