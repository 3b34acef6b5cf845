/*
 * Views and the window that hosts them: the part of Android's View and
 * ViewRootImpl/Choreographer that matters for transactions.
 *
 * pl_view_invalidate marks the window dirty and asks the compositor for the
 * next vsync (UI_INVALIDATE, a0 = view id). On that vsync the main looper
 * redraws the invalidated views into the window's back buffer and posts the frame to
 * the compositor (UI_UPDATE, a0 = the window's frame seq, counted from 0),
 * which shows it at its following vsync. A tap is hit-tested against the
 * views, topmost (last added) first.
 *
 * Pixels are XRGB8888 (0x00RRGGBB); coordinates are display pixels, origin
 * top left; sizes in pixels.
 *
 * Ownership: views are caller-owned and must stay alive while added to a
 * window. The window belongs to the app (pl_app_window) and is only touched
 * on the main looper thread.
 */
#ifndef PANLAB_VIEW_H
#define PANLAB_VIEW_H

#include <stdbool.h>
#include <stdint.h>

struct pl_canvas {
	uint32_t *pixels;
	int width_px;
	int height_px;
	int stride_px;
};

/* Clipped to the canvas. */
void pl_canvas_fill_rect(struct pl_canvas *c, int x_px, int y_px, int w_px, int h_px,
			 uint32_t xrgb);
/* A decimal number in seven-segment digits, each digit_h_px tall. */
void pl_canvas_draw_number(struct pl_canvas *c, int x_px, int y_px, int digit_h_px, uint64_t value,
			   uint32_t xrgb);

struct pl_view;
struct pl_window;

struct pl_view {
	int x_px, y_px, w_px, h_px;
	void (*draw)(struct pl_view *v, struct pl_canvas *c);
	void (*on_tap)(struct pl_view *v, int x_px, int y_px, int32_t param);	/* optional */
	void *ctx;
	/* Set by pl_window_add_view and pl_view_invalidate. */
	struct pl_window *window;
	uint32_t id;
	bool dirty;
};

/* Returns 0, or -ENOSPC when the window holds PL_WINDOW_MAX_VIEWS already. */
#define PL_WINDOW_MAX_VIEWS 32
int pl_window_add_view(struct pl_window *w, struct pl_view *v);

void pl_view_invalidate(struct pl_view *v);

/*
 * Choreographer.postFrameCallback: fn(ctx, vsync_ns) runs once on the main
 * looper at the next vsync, before that frame is drawn; an animation posts
 * itself again from fn. It travels as a held message (looper.h), so the
 * trace links each frame to the one that asked for it. Returns 0 or -errno.
 */
typedef void (*pl_frame_fn)(void *ctx, uint64_t vsync_ns);
int pl_window_post_frame_callback(struct pl_window *w, pl_frame_fn fn, void *ctx);

#endif /* PANLAB_VIEW_H */
