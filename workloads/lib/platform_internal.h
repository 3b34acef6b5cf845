/* What the app bootstrap and the window tell each other. Internal. */
#ifndef PANLAB_PLATFORM_INTERNAL_H
#define PANLAB_PLATFORM_INTERNAL_H

#include <stddef.h>

#include "panlab/app.h"
#include "panlab/wire.h"
#include "panlab/error.h"

/* Connect to the compositor and register a surface. Returns NULL with err set. */
struct pl_window *pl_window_open(struct pl_app *app, struct pl_looper *l, struct pl_error *err);
void pl_window_close(struct pl_window *w);
/* Draw and post a frame on the next vsync even if no view invalidated. */
void pl_window_request_frame(struct pl_window *w);
/* Put the surface on top of the compositor's stack (the app came back to the foreground). */
void pl_window_raise(struct pl_window *w);
/* What a frame repainted: all of it, or the views it drew (by index). */
struct pl_damage {
	bool full;
	bool drawn[PL_WINDOW_MAX_VIEWS];
};

/*
 * Brings back buffer c up to date from front, the frame posted last (c is the one before it,
 * or anything if last->full): copies back what the last frame repainted, then repaints only the
 * invalidated views of views[0..n), with every view over them redrawn in z-order (Android's
 * dirty region, per view), or everything if full. Clears the views' dirty flags and records
 * this frame's damage in *last. front and c share c's geometry.
 */
void pl_views_redraw(struct pl_view *const *views, unsigned n, bool full, struct pl_damage *last,
		     const uint32_t *front, struct pl_canvas *c);

/* On the main thread: log UI_INPUT and deliver the tap to the view under it. */
void pl_window_dispatch_tap(struct pl_window *w, const struct pl_wire *tap);

/* Called by the window on the main thread. */
void pl_app_frame_posted(struct pl_app *app);
void pl_app_fail(struct pl_app *app, const char *what, int err);

#endif /* PANLAB_PLATFORM_INTERNAL_H */
