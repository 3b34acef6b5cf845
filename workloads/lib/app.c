/* App bootstrap. See include/panlab/app.h. */
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/wait.h>
#include <unistd.h>

#include "panlab/binder.h"
#include "panlab/input_cause.h"
#include "panlab/ready.h"
#include "panlab/spawn.h"
#include "panlab/thread.h"
#include "panlab/ulog.h"
#include "platform_internal.h"
#include "panlab/error.h"

enum { MSG_TAP = 1, MSG_KEY = 2, MSG_FOCUS = 3, MSG_FOCUS_LOST = 4 };

struct pl_app {
	char prog[64]; /* app-NAME: what its error lines start with */
	const struct pl_app_ops *ops;
	void *ctx;
	struct pl_looper *looper;
	struct pl_handler main;		/* runnables only */
	struct pl_handler input;	/* input and focus messages */
	struct pl_window *window;
	struct pl_executor *pool;
	struct pl_executor *serial;
	int input_sock;
	bool ready;			/* ready has been signalled */
	bool created;			/* on_create succeeded */
	bool focused;
	bool frame_posted;
	int status;			/* pl_app_main's return value */
	pthread_mutex_t lock;		/* guards threads and binder */
	pthread_cond_t threads_done;
	unsigned threads;		/* plain worker threads still running */
	struct pl_binder *binder;	/* opened on first use */
	pid_t services[PL_APP_MAX_SERVICES];
	unsigned nservices;
};

struct pl_window *pl_app_window(struct pl_app *app) { return app->window; }
struct pl_handler *pl_app_main_handler(struct pl_app *app) { return &app->main; }
struct pl_executor *pl_app_thread_pool_executor(struct pl_app *app) { return app->pool; }
struct pl_executor *pl_app_serial_executor(struct pl_app *app) { return app->serial; }

struct thread_start {
	struct pl_app *app;
	void (*fn)(void *arg);
	void *arg;
	uint64_t cause;		/* the starter's input cause */
};

static void *run_thread(void *p)
{
	struct thread_start s = *(struct thread_start *)p;
	free(p);
	pl_input_cause_set(s.cause);
	s.fn(s.arg);
	pthread_mutex_lock(&s.app->lock);
	if (--s.app->threads == 0)
		pthread_cond_signal(&s.app->threads_done);
	pthread_mutex_unlock(&s.app->lock);
	return NULL;
}

int pl_app_start_thread(struct pl_app *app, const char *name, void (*fn)(void *arg), void *arg)
{
	struct thread_start *s = malloc(sizeof(*s));
	if (!s)
		return -ENOMEM;
	*s = (struct thread_start){ app, fn, arg, pl_input_cause_get() };
	pthread_t t;
	pthread_mutex_lock(&app->lock);
	int err = pl_thread_start(&t, name, run_thread, s);
	if (err) {
		free(s);
	} else {
		app->threads++;
		pthread_detach(t);
	}
	pthread_mutex_unlock(&app->lock);
	return err;
}

static void wait_threads(struct pl_app *app)
{
	pthread_mutex_lock(&app->lock);
	while (app->threads)
		pthread_cond_wait(&app->threads_done, &app->lock);
	pthread_mutex_unlock(&app->lock);
}

struct pl_binder *pl_app_binder(struct pl_app *app)
{
	struct pl_error err;
	pthread_mutex_lock(&app->lock);
	if (!app->binder && !(app->binder = pl_binder_open(PL_BINDER_DEVICE, &err)))
		pl_error_print(app->prog, &err);
	struct pl_binder *b = app->binder;
	pthread_mutex_unlock(&app->lock);
	return b;
}

int pl_app_start_service(struct pl_app *app, const char *name)
{
	char program[64], path[PATH_MAX];
	struct pl_error err;
	snprintf(program, sizeof(program), "svc-%s", name);
	pid_t pid = -1;
	int e = 0;
	if (app->nservices == PL_APP_MAX_SERVICES)
		pl_error_set(&err, "cannot start service %s: %u running, expected at most %u", name,
			     app->nservices, PL_APP_MAX_SERVICES);
	else if ((e = pl_sibling_path(program, path, sizeof(path))) != 0)
		pl_error_set(&err, "cannot start service %s: the path of %s beside the app: %s",
			     name, program, strerror(-e));
	else
		pid = pl_spawn_ready(path, (char *[]){ path, NULL }, NULL, &err);
	if (pid < 0) {
		pl_error_print(app->prog, &err);
		return -1;
	}
	app->services[app->nservices++] = pid;
	return 0;
}

/* Services end with their app; one that did not exit cleanly is the app's failure. */
static void stop_services(struct pl_app *app)
{
	for (unsigned i = 0; i < app->nservices; i++) {
		int status = 0;
		kill(app->services[i], SIGTERM);
		waitpid(app->services[i], &status, 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
			char how[64];
			struct pl_error err;
			pl_describe_status(status, how, sizeof(how));
			pl_error_set(&err, "service process %d: %s", (int)app->services[i], how);
			pl_error_print(app->prog, &err);
			app->status = 1;
		}
	}
}

void pl_app_fail(struct pl_app *app, const char *what, int err)
{
	if (app->status == 0) {
		struct pl_error e;
		pl_error_set(&e, "%s: %s", what, strerror(err < 0 ? -err : err));
		pl_error_print(app->prog, &e);
	}
	app->status = 1;
	if (app->looper)
		pl_looper_quit(app->looper);
}

static void maybe_ready(struct pl_app *app)
{
	if (app->ready || !app->focused || !app->frame_posted)
		return;
	app->ready = true;
	int err = pl_ready_signal();
	if (err)
		pl_app_fail(app, "signal ready", err);
}

void pl_app_frame_posted(struct pl_app *app)
{
	app->frame_posted = true;
	maybe_ready(app);
}

static void on_input_message(struct pl_handler *h, const struct pl_message *m)
{
	struct pl_app *app = h->ctx;
	const struct pl_wire *w = m->obj;

	switch (m->what) {
	case MSG_TAP:
		pl_window_dispatch_tap(app->window, w);
		break;
	case MSG_KEY:
		pl_ulog(PL_EV_UI_KEY, w->seq, w->code, 0);
		pl_input_cause_set(w->seq + 1);
		if (app->ops->on_key)
			app->ops->on_key(app, app->ctx, w->code);
		break;
	case MSG_FOCUS:
		if (!app->focused)
			pl_ulog(PL_EV_ENTER_FOREGROUND, (uint64_t)getpid(), 0, 0);
		/* Back in the foreground (it was ready once): show its last frame again. A new
		 * app's surface is on top already, as the newest. */
		if (app->ready && !app->focused)
			pl_window_raise(app->window);
		app->focused = true;
		maybe_ready(app);
		break;
	case MSG_FOCUS_LOST: {
		/* The acknowledgement lets inputd tell the next app: EXIT precedes its ENTER. */
		struct pl_wire ack = { .type = PL_WIRE_FOCUS_LOST, .pid = (uint32_t)getpid() };
		if (app->focused)
			pl_ulog(PL_EV_EXIT_FOREGROUND, (uint64_t)getpid(), 0, 0);
		app->focused = false;
		int err = pl_wire_send(app->input_sock, &ack, -1);
		if (err)
			pl_app_fail(app, "acknowledge the lost foreground", err);
		break;
	}
	}
	free(m->obj);
}

/* InputEventReceiver: each event from the dispatcher becomes a message on the main looper. */
static void on_input_socket(int fd, uint32_t events, void *ctx)
{
	struct pl_app *app = ctx;
	struct pl_wire *w = malloc(sizeof(*w));
	int r = w && (events & EPOLLIN) ? pl_wire_recv(fd, w, NULL) : 0;

	if (r <= 0) {
		free(w);
		pl_app_fail(app, "input dispatcher connection", w ? (r ? r : -ECONNRESET) : -ENOMEM);
		return;
	}
	struct pl_message m = { .obj = w };
	switch (w->type) {
	case PL_WIRE_TAP: m.what = MSG_TAP; break;
	case PL_WIRE_KEY: m.what = MSG_KEY; break;
	case PL_WIRE_FOCUS: m.what = MSG_FOCUS; break;
	case PL_WIRE_FOCUS_LOST: m.what = MSG_FOCUS_LOST; break;
	default: free(w); return;
	}
	if (pl_handler_send(&app->input, &m) < 0)
		free(w);
}

static void on_signal(int signo, void *ctx)
{
	struct pl_app *app = ctx;

	(void)signo;
	if (app->focused)
		pl_ulog(PL_EV_EXIT_FOREGROUND, (uint64_t)getpid(), 0, 0);
	pl_looper_quit(app->looper);
}

static int open_input(struct pl_app *app)
{
	app->input_sock = pl_wire_connect(PL_INPUTD_SOCKET);
	if (app->input_sock < 0)
		return app->input_sock;
	struct pl_wire m = { .type = PL_WIRE_FOCUS_REQUEST, .pid = (uint32_t)getpid() };
	int err = pl_wire_send(app->input_sock, &m, -1);
	return err ? err : pl_looper_add_fd(app->looper, app->input_sock, EPOLLIN, on_input_socket, app);
}

static int start(struct pl_app *app)
{
	struct pl_error err;
	int e = pl_ulog_open_from_env();
	if (e) {
		pl_app_fail(app, "userspace logger", e);
		return -1;
	}
	app->looper = pl_looper_create();
	if (!app->looper) {
		pl_app_fail(app, "main looper", errno);
		return -1;
	}
	pl_handler_init(&app->main, app->looper, NULL, app);
	pl_handler_init(&app->input, app->looper, on_input_message, app);
	/* Before any thread starts, so every thread inherits the blocked SIGTERM. */
	if ((e = pl_looper_watch_signals(app->looper, on_signal, app)) != 0) {
		pl_app_fail(app, "signalfd", e);
		return -1;
	}
	app->pool = pl_executor_create_thread_pool();
	app->serial = pl_executor_create_serial();
	if (!app->pool || !app->serial) {
		pl_app_fail(app, "executors", -ENOMEM);
		return -1;
	}
	app->window = pl_window_open(app, app->looper, &err);
	if (!app->window) {
		pl_error_print(app->prog, &err);
		return -1;
	}
	if ((e = app->ops->on_create(app, app->ctx)) != 0) {
		pl_app_fail(app, "on_create", e);
		return -1;
	}
	app->created = true;
	/* Ready needs a posted frame, so draw one even if on_create added no views. */
	pl_window_request_frame(app->window);
	if ((e = open_input(app)) != 0) {
		pl_app_fail(app, "connect to input dispatcher", e);
		return -1;
	}
	return 0;
}

int pl_app_main(const char *name, const struct pl_app_ops *ops, void *ctx)
{
	struct pl_app app = {
		.ops = ops,
		.ctx = ctx,
		.input_sock = -1,
		.lock = PTHREAD_MUTEX_INITIALIZER,
		.threads_done = PTHREAD_COND_INITIALIZER,
	};
	snprintf(app.prog, sizeof(app.prog), "app-%s", name);

	if (start(&app) == 0) {
		int e = pl_looper_loop(app.looper);
		if (e)
			pl_app_fail(&app, "main looper", e);
	} else {
		app.status = 1;
	}
	if (app.created && ops->on_destroy)
		ops->on_destroy(&app, ctx);
	/* Tasks and threads still running may post results; the quit looper refuses them. */
	pl_executor_shutdown(app.pool);
	pl_executor_shutdown(app.serial);
	wait_threads(&app);
	stop_services(&app);
	pl_binder_close(app.binder);
	pl_window_close(app.window);
	if (app.input_sock >= 0)
		close(app.input_sock);
	pl_looper_destroy(app.looper);
	pl_ulog_close();
	return app.status;
}
