/* Window: surface, view tree and Choreographer. See include/panlab/view.h. */
#include <assert.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <unistd.h>

#include "panlab/input_cause.h"
#include "panlab/marker.h"
#include "panlab/ulog.h"
#include "platform_internal.h"
#include "panlab/error.h"

#define BACKGROUND_XRGB 0x00202020u
#define BUFFER_PX (PL_DISPLAY_WIDTH_PX * PL_DISPLAY_HEIGHT_PX)

#define ANSWERS_MAX 64

enum { MSG_FRAME = 1 };

struct pl_window {
	struct pl_app *app;
	struct pl_handler handler;
	int sock;
	uint32_t *buffers;	/* PL_SURFACE_BUFFERS x BUFFER_PX, shared with the compositor */
	unsigned back;
	uint64_t frame_seq;
	bool dirty;		/* some view is invalidated, or a full redraw is due */
	bool full_redraw;	/* the back buffer holds nothing reusable */
	struct pl_damage last;	/* what the last frame repainted */
	bool vsync_requested;
	uint64_t vsync_ns;	/* time of the tick being handled */
	struct pl_view *views[PL_WINDOW_MAX_VIEWS];
	unsigned nviews;
	uint32_t next_view_id;
	/*
	 * Inputs whose work invalidated a view since the last frame, oldest first: the next frame
	 * answers them and carries them in its marker, PL_MARKER_MAX_INPUTS at most; the rest go
	 * in the frame after. Beyond ANSWERS_MAX pending inputs (a burst faster than frames can
	 * carry them), the newest are left out.
	 */
	uint32_t answers[ANSWERS_MAX];
	unsigned nanswers;
};

int pl_window_add_view(struct pl_window *w, struct pl_view *v)
{
	if (w->nviews == PL_WINDOW_MAX_VIEWS)
		return -ENOSPC;
	v->window = w;
	v->id = ++w->next_view_id;
	w->views[w->nviews++] = v;
	pl_view_invalidate(v);
	return 0;
}

static void request_vsync(struct pl_window *w)
{
	if (w->vsync_requested)
		return;
	struct pl_wire m = { .type = PL_WIRE_VSYNC_REQUEST };
	int err = pl_wire_send(w->sock, &m, -1);
	if (err)
		pl_app_fail(w->app, "request vsync", err);
	else
		w->vsync_requested = true;
}

void pl_window_raise(struct pl_window *w)
{
	struct pl_wire m = { .type = PL_WIRE_RAISE };
	int err = pl_wire_send(w->sock, &m, -1);
	if (err)
		pl_app_fail(w->app, "raise the surface", err);
}

static void add_answer(struct pl_window *w, uint64_t cause)
{
	if (!cause)
		return;
	uint32_t input = (uint32_t)(cause - 1);
	for (unsigned i = 0; i < w->nanswers; i++)
		if (w->answers[i] == input)
			return;
	if (w->nanswers < ANSWERS_MAX)
		w->answers[w->nanswers++] = input;
}

void pl_view_invalidate(struct pl_view *v)
{
	pl_ulog(PL_EV_UI_INVALIDATE, v->id, 0, 0);
	add_answer(v->window, pl_input_cause_get());
	v->dirty = true;
	v->window->dirty = true;
	request_vsync(v->window);
}

struct frame_callback {
	struct pl_window *w;
	pl_frame_fn fn;
	void *ctx;
};

static void run_frame_callback(void *arg)
{
	struct frame_callback *cb = arg;
	cb->fn(cb->ctx, cb->w->vsync_ns);
	free(cb);
}

/*
 * A held message, released by the next vsync: unlike Android's Choreographer,
 * whose callbacks leave no trace, each animation frame is then linked to the
 * interval that asked for it (ENQUEUE there, DEQUEUE at the tick).
 */
int pl_window_post_frame_callback(struct pl_window *w, pl_frame_fn fn, void *ctx)
{
	struct frame_callback *cb = malloc(sizeof(*cb));
	if (!cb)
		return -ENOMEM;
	*cb = (struct frame_callback){ w, fn, ctx };
	int err = pl_handler_post_held(&w->handler, run_frame_callback, cb);
	if (err) {
		free(cb);
		return err;
	}
	request_vsync(w);
	return 0;
}

void pl_window_request_frame(struct pl_window *w)
{
	w->dirty = true;
	w->full_redraw = true;
	request_vsync(w);
}

static bool overlap(const struct pl_view *a, const struct pl_view *b)
{
	return a->x_px < b->x_px + b->w_px && b->x_px < a->x_px + a->w_px &&
	       a->y_px < b->y_px + b->h_px && b->y_px < a->y_px + a->h_px;
}

/* The back buffer holds the frame before the last: the last one differs from it only where
 * it repainted. Android's Surface copies back just that region from the front buffer, and so
 * does this, a view's rectangle at a time; views repainted now are skipped, as they are filled
 * and drawn whole after the copy. */
static_assert(PL_SURFACE_BUFFERS == 2, "copy_back assumes the back buffer is one frame behind");

static void copy_back(struct pl_view *const *views, unsigned n, const struct pl_damage *last,
		      const bool *dirty, const uint32_t *front, struct pl_canvas *c)
{
	if (last->full) {
		for (int y = 0; y < c->height_px; y++)
			memcpy(c->pixels + (size_t)y * c->stride_px,
			       front + (size_t)y * c->stride_px,
			       (size_t)c->width_px * PL_PIXEL_BYTES);
		return;
	}
	for (unsigned i = 0; i < n; i++) {
		const struct pl_view *v = views[i];
		if (!last->drawn[i] || dirty[i])
			continue;
		int x0 = v->x_px > 0 ? v->x_px : 0, y0 = v->y_px > 0 ? v->y_px : 0;
		int x1 = v->x_px + v->w_px < c->width_px ? v->x_px + v->w_px : c->width_px;
		int y1 = v->y_px + v->h_px < c->height_px ? v->y_px + v->h_px : c->height_px;
		for (int y = y0; y < y1 && x0 < x1; y++)
			memcpy(c->pixels + (size_t)y * c->stride_px + x0,
			       front + (size_t)y * c->stride_px + x0,
			       (size_t)(x1 - x0) * PL_PIXEL_BYTES);
	}
}

void pl_views_redraw(struct pl_view *const *views, unsigned n, bool full, struct pl_damage *last,
		     const uint32_t *front, struct pl_canvas *c)
{
	bool dirty[PL_WINDOW_MAX_VIEWS];
	struct pl_damage now = { .full = full };

	/* Cleared before drawing, so a view may invalidate itself from draw() (an animation). */
	for (unsigned i = 0; i < n; i++) {
		dirty[i] = views[i]->dirty;
		views[i]->dirty = false;
	}
	if (full) {
		pl_canvas_fill_rect(c, 0, 0, c->width_px, c->height_px, BACKGROUND_XRGB);
		for (unsigned i = 0; i < n; i++) {
			views[i]->draw(views[i], c);
			now.drawn[i] = true;
		}
	} else {
		copy_back(views, n, last, dirty, front, c);
		for (unsigned i = 0; i < n; i++) {
			struct pl_view *v = views[i];
			if (!dirty[i])
				continue;
			pl_canvas_fill_rect(c, v->x_px, v->y_px, v->w_px, v->h_px, BACKGROUND_XRGB);
			for (unsigned j = 0; j < n; j++)
				if (overlap(v, views[j])) {
					views[j]->draw(views[j], c);
					now.drawn[j] = true;
				}
		}
	}
	*last = now;
}

/* The inputs this frame answers, as a marker over its bottom rows (panlab/marker.h). */
static void draw_marker(struct pl_window *w, struct pl_canvas *c)
{
	struct pl_marker m = { .count = w->nanswers < PL_MARKER_MAX_INPUTS ? w->nanswers
									 : PL_MARKER_MAX_INPUTS,
			       .pid = (uint32_t)getpid(), .frame = (uint32_t)w->frame_seq };
	memcpy(m.input_ids, w->answers, m.count * sizeof(m.input_ids[0]));
	memmove(w->answers, w->answers + m.count, (w->nanswers - m.count) * sizeof(w->answers[0]));
	w->nanswers -= m.count;
	pl_marker_draw((uint8_t *)c->pixels, (uint32_t)c->width_px, (uint32_t)c->height_px,
		       (uint32_t)c->stride_px * PL_PIXEL_BYTES, &m);
	if (w->nanswers) {
		w->dirty = true;
		request_vsync(w);
	}
}

/* Choreographer's doFrame: update the back buffer and post it. */
static void do_frame(struct pl_window *w)
{
	if (!w->dirty)
		return;
	w->dirty = false;
	struct pl_canvas c = {
		.pixels = w->buffers + (size_t)w->back * BUFFER_PX,
		.width_px = PL_DISPLAY_WIDTH_PX,
		.height_px = PL_DISPLAY_HEIGHT_PX,
		.stride_px = PL_DISPLAY_WIDTH_PX,
	};
	const uint32_t *front =
		w->buffers + (size_t)((w->back + 1) % PL_SURFACE_BUFFERS) * BUFFER_PX;
	pl_views_redraw(w->views, w->nviews, w->full_redraw || w->frame_seq == 0, &w->last, front,
			&c);
	w->full_redraw = false;
	draw_marker(w, &c);
	/* Logged before the post: the compositor may latch the frame before this thread runs again. */
	pl_ulog(PL_EV_UI_UPDATE, w->frame_seq, (uint32_t)getpid(), 0);
	struct pl_wire m = { .type = PL_WIRE_POST, .seq = w->frame_seq, .buffer = w->back };
	int err = pl_wire_send(w->sock, &m, -1);
	if (err) {
		pl_app_fail(w->app, "post frame", err);
		return;
	}
	w->frame_seq++;
	w->back = (w->back + 1) % PL_SURFACE_BUFFERS;
	pl_app_frame_posted(w->app);
}

static void on_message(struct pl_handler *h, const struct pl_message *m)
{
	if (m->what == MSG_FRAME)
		do_frame(h->ctx);
}

static void on_compositor(int fd, uint32_t events, void *ctx)
{
	struct pl_window *w = ctx;
	struct pl_wire m;
	int r = (events & EPOLLIN) ? pl_wire_recv(fd, &m, NULL) : 0;

	if (r <= 0) {
		pl_app_fail(w->app, "compositor connection", r ? r : -ECONNRESET);
		return;
	}
	if (m.type != PL_WIRE_VSYNC)
		return;
	w->vsync_requested = false;
	w->vsync_ns = m.t_ns;
	/* Frame callbacks first, then the frame, which runs as a message as Android's
	 * FrameDisplayEventReceiver posts doFrame. */
	pl_handler_release_held(&w->handler);
	struct pl_message frame = { .what = MSG_FRAME };
	pl_handler_send(&w->handler, &frame);
}

void pl_window_dispatch_tap(struct pl_window *w, const struct pl_wire *tap)
{
	pl_ulog(PL_EV_UI_INPUT, tap->seq, 0, 0);
	pl_input_cause_set(tap->seq + 1);
	for (unsigned i = w->nviews; i-- > 0;) {
		struct pl_view *v = w->views[i];
		if (tap->x_px >= v->x_px && tap->x_px < v->x_px + v->w_px && tap->y_px >= v->y_px &&
		    tap->y_px < v->y_px + v->h_px) {
			if (v->on_tap)
				v->on_tap(v, tap->x_px - v->x_px, tap->y_px - v->y_px, tap->param);
			return;
		}
	}
}

struct pl_window *pl_window_open(struct pl_app *app, struct pl_looper *l, struct pl_error *err)
{
	size_t bytes = (size_t)PL_SURFACE_BUFFERS * BUFFER_PX * PL_PIXEL_BYTES;
	struct pl_window *w = calloc(1, sizeof(*w));
	if (!w) {
		pl_error_set(err, "window: out of memory");
		return NULL;
	}
	w->app = app;
	w->sock = -1;
	pl_handler_init(&w->handler, l, on_message, w);
	int mfd = memfd_create("panlab-surface", MFD_CLOEXEC);
	if (mfd < 0 || ftruncate(mfd, (off_t)bytes) < 0) {
		pl_error_set(err, "surface memfd: %s", strerror(errno));
		goto fail;
	}
	w->buffers = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	if (w->buffers == MAP_FAILED) {
		w->buffers = NULL;
		pl_error_set(err, "surface mmap: %s", strerror(errno));
		goto fail;
	}
	w->sock = pl_wire_connect(PL_COMPOSITOR_SOCKET);
	if (w->sock < 0) {
		pl_error_set(err, "connect to compositor: %s", strerror(-w->sock));
		goto fail;
	}
	struct pl_wire m = { .type = PL_WIRE_SURFACE, .pid = (uint32_t)getpid() };
	int e = pl_wire_send(w->sock, &m, mfd);
	if (!e)
		e = pl_looper_add_fd(l, w->sock, EPOLLIN, on_compositor, w);
	if (e) {
		pl_error_set(err, "register surface: %s", strerror(-e));
		goto fail;
	}
	close(mfd);
	return w;
fail:
	if (mfd >= 0)
		close(mfd);
	pl_window_close(w);
	return NULL;
}

void pl_window_close(struct pl_window *w)
{
	if (!w)
		return;
	if (w->sock >= 0) {
		pl_looper_remove_fd(w->handler.looper, w->sock);
		close(w->sock);
	}
	if (w->buffers)
		munmap(w->buffers, (size_t)PL_SURFACE_BUFFERS * BUFFER_PX * PL_PIXEL_BYTES);
	free(w);
}
