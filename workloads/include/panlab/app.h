/*
 * App bootstrap: what Android's ActivityThread does for an activity. An app's
 * main() is one call to pl_app_main, which
 *   - turns the userspace logger on if PANLAB_TRACE=1;
 *   - creates the main looper, the AsyncTask executors and the window
 *     (a surface on the compositor), then calls on_create to build views;
 *   - asks the input dispatcher for focus; on PL_WIRE_FOCUS it logs
 *     ENTER_FOREGROUND (and, back in the foreground after another app had it,
 *     raises its surface so its last frame is shown again), on
 *     PL_WIRE_FOCUS_LOST (another app took the foreground) EXIT_FOREGROUND,
 *     then acknowledges it; input arrives as messages on the main looper
 *     (UI_INPUT / UI_KEY logged as each is dispatched);
 *   - once focused and its first frame is posted, writes one byte to the fd
 *     named by PANLAB_READY_FD (if set) and closes it: the session's "ready";
 *   - on SIGTERM logs EXIT_FOREGROUND, quits the looper, lets accepted tasks
 *     finish and returns 0.
 * Any failure prints one line "app-NAME: what failed" to stderr and makes
 * pl_app_main return 1.
 *
 * Ownership: the app object and everything reachable from it belong to
 * pl_app_main and live until it returns; callbacks may use them freely on the
 * main thread (executors and handlers from any thread).
 */
#ifndef PANLAB_APP_H
#define PANLAB_APP_H

#include <stdint.h>

#include "panlab/async_task.h"
#include "panlab/executor.h"
#include "panlab/looper.h"
#include "panlab/view.h"

struct pl_app;

struct pl_app_ops {
	/* Build the views. Returns 0, or -errno to abort the app. */
	int (*on_create)(struct pl_app *app, void *ctx);
	/* A key press routed to this app; optional. */
	void (*on_key)(struct pl_app *app, void *ctx, uint32_t code);
	/* After the main looper quit, before waiting for executors and threads: tell
	 * the app's own threads to finish. Optional. */
	void (*on_destroy)(struct pl_app *app, void *ctx);
};

int pl_app_main(const char *name, const struct pl_app_ops *ops, void *ctx);

struct pl_window *pl_app_window(struct pl_app *app);
/* A handler on the main looper with no message callback: for posting runnables. */
struct pl_handler *pl_app_main_handler(struct pl_app *app);
struct pl_executor *pl_app_thread_pool_executor(struct pl_app *app);
struct pl_executor *pl_app_serial_executor(struct pl_app *app);

/*
 * Start a plain worker thread (Android's new Thread(r).start()), named name.
 * pl_app_main waits for it before tearing the app down, so fn may post to the
 * main handler until it returns (posts after quit are refused). Returns 0 or
 * -errno.
 */
int pl_app_start_thread(struct pl_app *app, const char *name, void (*fn)(void *arg), void *arg);

/* The app's binder connection (PL_BINDER_DEVICE), opened on first use; NULL if that fails. */
struct pl_binder *pl_app_binder(struct pl_app *app);

/*
 * Start the service process svc-NAME from the app's own directory and wait
 * until it is ready (registered with the service manager): the activity
 * manager's part when an Android app binds a remote service. pl_app_main
 * stops it (SIGTERM) when the app ends. Returns 0 or -1 after printing why.
 */
#define PL_APP_MAX_SERVICES 4
int pl_app_start_service(struct pl_app *app, const char *name);

#endif /* PANLAB_APP_H */
