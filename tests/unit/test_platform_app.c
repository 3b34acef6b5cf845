/*
 * The app platform end to end on the host: pl_app_main runs a small app
 * against a fake compositor and a fake input dispatcher speaking wire.h; a tap
 * starts an AsyncTask whose result is drawn. Checks the ready hand-shake, the
 * frames posted and the events the platform logged.
 */
#include <CUnit/CUnit.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>

#include "panlab/app.h"
#include "panlab/ulog.h"
#include "panlab/ulog_reader.h"
#include "panlab/wire.h"
#include "test_platform.h"

#define SURFACE_PX (PL_DISPLAY_WIDTH_PX * PL_DISPLAY_HEIGHT_PX)

/* --- the app under test: one full-screen view whose first pixel counts finished tasks --- */

struct tiny_app {
	struct pl_app *app;
	struct pl_view view;
	uint32_t finished;
	int frame_callbacks;	/* an "animation" of three frames */
	bool vsync_time_seen;
};

static void *work(struct pl_async_task *t, void *ctx) { (void)t; (void)ctx; return NULL; }

static void done(struct pl_async_task *t, void *ctx, void *result)
{
	struct tiny_app *a = ctx;
	(void)t;
	(void)result;
	a->finished++;
	pl_view_invalidate(&a->view);
}

static const struct pl_async_task_ops tiny_ops = { .do_in_background = work, .on_post_execute = done };

static void draw(struct pl_view *v, struct pl_canvas *c)
{
	const struct tiny_app *a = v->ctx;
	pl_canvas_fill_rect(c, 0, 0, 1, 1, a->finished);
}

static void tap(struct pl_view *v, int x, int y, int32_t param)
{
	struct tiny_app *a = v->ctx;
	(void)x;
	(void)y;
	CU_ASSERT_EQUAL(param, 7);
	CU_ASSERT_EQUAL(pl_async_task_execute(&tiny_ops, a, pl_app_main_handler(a->app),
					      pl_app_thread_pool_executor(a->app)), 0);
}

static void animate(void *ctx, uint64_t vsync_ns)
{
	struct tiny_app *a = ctx;
	a->vsync_time_seen |= vsync_ns != 0;
	if (++a->frame_callbacks < 3)
		CU_ASSERT_EQUAL(pl_window_post_frame_callback(pl_app_window(a->app), animate, a), 0);
}

static int create(struct pl_app *app, void *ctx)
{
	struct tiny_app *a = ctx;
	a->app = app;
	CU_ASSERT_EQUAL(pl_window_post_frame_callback(pl_app_window(app), animate, a), 0);
	a->view = (struct pl_view){ .w_px = PL_DISPLAY_WIDTH_PX, .h_px = PL_DISPLAY_HEIGHT_PX,
				    .draw = draw, .on_tap = tap, .ctx = a };
	return pl_window_add_view(pl_app_window(app), &a->view);
}

static struct tiny_app tiny;
static int app_status = -1;

static void *app_thread(void *p)
{
	static const struct pl_app_ops ops = { .on_create = create };
	(void)p;
	app_status = pl_app_main("test", &ops, &tiny);
	return NULL;
}

/* --- fake services --- */

struct fake {
	int comp_listen, input_listen;
	int comp, input;		/* accepted clients */
	atomic_int input_ready;		/* input socket accepted and focused */
	uint32_t *surface;
	uint64_t vsyncs;
	uint64_t posts, last_seq;
	atomic_uint first_pixel;	/* of the last posted frame */
	atomic_int focus_acks;		/* PL_WIRE_FOCUS_LOST sent back by the app */
	atomic_int raises;		/* PL_WIRE_RAISE from the app */
	atomic_bool stop;
};

static void fake_compositor_message(struct fake *f)
{
	struct pl_wire m;
	int fd = -1;
	if (pl_wire_recv(f->comp, &m, &fd) <= 0) {
		f->comp = -1;
		return;
	}
	if (m.type == PL_WIRE_SURFACE) {
		f->surface = mmap(NULL, (size_t)PL_SURFACE_BUFFERS * SURFACE_PX * 4, PROT_READ, MAP_SHARED, fd, 0);
		close(fd);
	} else if (m.type == PL_WIRE_VSYNC_REQUEST) {
		/* Tick at once: the test is about order, not timing. */
		struct pl_wire v = { .type = PL_WIRE_VSYNC, .seq = ++f->vsyncs, .t_ns = pl_now_ns() };
		pl_wire_send(f->comp, &v, -1);
	} else if (m.type == PL_WIRE_RAISE) {
		atomic_fetch_add(&f->raises, 1);
	} else if (m.type == PL_WIRE_POST) {
		CU_ASSERT_EQUAL(m.seq, f->posts);
		f->posts++;
		f->last_seq = m.seq;
		atomic_store(&f->first_pixel, f->surface[(size_t)m.buffer * SURFACE_PX]);
	}
}

static void *fake_services(void *p)
{
	struct fake *f = p;
	while (!atomic_load(&f->stop)) {
		struct pollfd fds[4] = { { f->comp_listen, POLLIN, 0 }, { f->input_listen, POLLIN, 0 },
					 { f->comp, POLLIN, 0 }, { f->input, POLLIN, 0 } };
		if (poll(fds, 4, 20) <= 0)
			continue;
		if (fds[0].revents & POLLIN)
			f->comp = accept4(f->comp_listen, NULL, NULL, SOCK_CLOEXEC);
		if (fds[1].revents & POLLIN)
			f->input = accept4(f->input_listen, NULL, NULL, SOCK_CLOEXEC);
		if (fds[2].revents & (POLLIN | POLLHUP))
			fake_compositor_message(f);
		if (fds[3].revents & (POLLIN | POLLHUP)) {
			struct pl_wire m;
			if (pl_wire_recv(f->input, &m, NULL) <= 0) {
				f->input = -1;
			} else if (m.type == PL_WIRE_FOCUS_REQUEST) {
				struct pl_wire focus = { .type = PL_WIRE_FOCUS };
				pl_wire_send(f->input, &focus, -1);
				atomic_store(&f->input_ready, 1);
			} else if (m.type == PL_WIRE_FOCUS_LOST) {
				atomic_fetch_add(&f->focus_acks, 1);
			}
		}
	}
	return NULL;
}

static void test_tap_to_frame(void)
{
	static struct fake f = { .comp = -1, .input = -1 };
	int ready[2];
	char fdnum[16];

	snprintf(fdnum, sizeof(fdnum), ".%d", (int)getpid());
	setenv("PANLAB_SOCKET_SUFFIX", fdnum, 1);
	f.comp_listen = pl_wire_listen(PL_COMPOSITOR_SOCKET);
	f.input_listen = pl_wire_listen(PL_INPUTD_SOCKET);
	CU_ASSERT_FATAL(f.comp_listen >= 0 && f.input_listen >= 0);
	CU_ASSERT_FATAL(pipe(ready) == 0);
	snprintf(fdnum, sizeof(fdnum), "%d", ready[1]);
	setenv("PANLAB_READY_FD", fdnum, 1);
	setenv("PANLAB_TRACE", "1", 1);
	pthread_t services, app;
	pthread_create(&services, NULL, fake_services, &f);
	pthread_create(&app, NULL, app_thread, NULL);

	/* Ready comes only after focus and a first posted frame. */
	char byte;
	CU_ASSERT_EQUAL(read(ready[0], &byte, 1), 1);
	CU_ASSERT(atomic_load(&f.input_ready));
	unsetenv("PANLAB_TRACE");

	struct pl_wire t = { .type = PL_WIRE_TAP, .seq = 0, .x_px = 10, .y_px = 10, .param = 7 };
	CU_ASSERT_EQUAL(pl_wire_send(f.input, &t, -1), 0);
	/* The frame showing the finished task arrives; give up after 5 s rather than hang. */
	for (int i = 0; i < 500 && atomic_load(&f.first_pixel) != 1; i++)
		usleep(10000);
	CU_ASSERT_EQUAL(atomic_load(&f.first_pixel), 1);

	/* Another app takes the foreground and gives it back: the app logs EXIT and acknowledges,
	 * then logs ENTER again and raises its surface. */
	struct pl_wire lost = { .type = PL_WIRE_FOCUS_LOST }, focus = { .type = PL_WIRE_FOCUS };
	CU_ASSERT_EQUAL(pl_wire_send(f.input, &lost, -1), 0);
	for (int i = 0; i < 500 && atomic_load(&f.focus_acks) == 0; i++)
		usleep(10000);
	CU_ASSERT_EQUAL(atomic_load(&f.focus_acks), 1);
	CU_ASSERT_EQUAL(atomic_load(&f.raises), 0);
	CU_ASSERT_EQUAL(pl_wire_send(f.input, &focus, -1), 0);
	for (int i = 0; i < 500 && atomic_load(&f.raises) == 0; i++)
		usleep(10000);
	CU_ASSERT_EQUAL(atomic_load(&f.raises), 1);

	pthread_kill(app, SIGTERM);
	pthread_join(app, NULL);
	CU_ASSERT_EQUAL(app_status, 0);
	CU_ASSERT_EQUAL(tiny.frame_callbacks, 3);
	CU_ASSERT(tiny.vsync_time_seen);
	atomic_store(&f.stop, true);
	pthread_join(services, NULL);

	/* The trace: one of each user event in the transaction, input seq and frame seqs as sent. */
	char path[64];
	snprintf(path, sizeof(path), PL_ULOG_PATH_PREFIX "%d", (int)getpid());
	struct pl_ulog_reader r;
	CU_ASSERT_FATAL(pl_ulog_reader_open(&r, path) == 0);
	unsigned count[128] = { 0 };
	uint64_t max_update = 0;
	for (unsigned s = 0; s < pl_ulog_reader_slots(&r); s++) {
		struct pl_event ev[256];
		size_t n = pl_ulog_reader_drain(&r, s, ev, 256);
		for (size_t i = 0; i < n; i++) {
			count[ev[i].type & 127]++;
			if (ev[i].type == PL_EV_UI_INPUT)
				CU_ASSERT_EQUAL(ev[i].a0, 0);
			if (ev[i].type == PL_EV_UI_UPDATE && ev[i].a0 > max_update)
				max_update = ev[i].a0;
		}
	}
	CU_ASSERT_EQUAL(count[PL_EV_UI_INPUT], 1);
	CU_ASSERT_EQUAL(count[PL_EV_ENTER_FOREGROUND], 2);
	CU_ASSERT_EQUAL(count[PL_EV_EXIT_FOREGROUND], 2);	/* focus lost, then SIGTERM */
	CU_ASSERT_EQUAL(count[PL_EV_SUBMIT_ASYNC_TASK], 1);
	CU_ASSERT_EQUAL(count[PL_EV_CONSUME_ASYNC_TASK], 1);
	CU_ASSERT_EQUAL(count[PL_EV_ASYNC_TASK_END], 1);
	CU_ASSERT_EQUAL(count[PL_EV_UI_UPDATE], f.posts);
	CU_ASSERT_EQUAL(max_update, f.last_seq);
	CU_ASSERT_EQUAL(count[PL_EV_ENQUEUE_MSG], count[PL_EV_DEQUEUE_MSG]);
	CU_ASSERT_EQUAL(count[PL_EV_DEQUEUE_MSG], count[PL_EV_MSG_DONE]);
	pl_ulog_reader_close(&r);
	unlink(path);
	if (f.surface)
		munmap(f.surface, (size_t)PL_SURFACE_BUFFERS * SURFACE_PX * 4);
	close(f.comp_listen);
	close(f.input_listen);
	close(f.comp);
	close(f.input);
	close(ready[0]);
}

void add_app_suite(void)
{
	CU_pSuite s = CU_add_suite("app", NULL, NULL);
	CU_add_test(s, "tap -> AsyncTask -> frame, with trace", test_tap_to_frame);
}
