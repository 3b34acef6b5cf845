/* Looper/MessageQueue: ordering, delays, at-front, cross-thread sends, fd watching, quit, trace ids. */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <pthread.h>
#include <semaphore.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "panlab/looper.h"
#include "panlab/thread.h"
#include "panlab/ulog.h"
#include "panlab/ulog_reader.h"
#include "test_platform.h"

#define MAX_LOG 4096

struct recorder {
	struct pl_looper *looper;
	struct pl_handler handler;
	int seen[MAX_LOG];
	uint64_t at_ns[MAX_LOG];
	int n;
	int quit_after;		/* quit once this many messages were seen */
};

static void record(struct pl_handler *h, const struct pl_message *m)
{
	struct recorder *r = h->ctx;
	r->at_ns[r->n] = pl_now_ns();
	r->seen[r->n++] = m->what;
	if (r->n == r->quit_after)
		pl_looper_quit(r->looper);
}

static void setup(struct recorder *r, int quit_after)
{
	r->looper = pl_looper_create();
	CU_ASSERT_PTR_NOT_NULL_FATAL(r->looper);
	pl_handler_init(&r->handler, r->looper, record, r);
	r->n = 0;
	r->quit_after = quit_after;
}

static int send_what(struct recorder *r, int what)
{
	struct pl_message m = { .what = what };
	return pl_handler_send(&r->handler, &m);
}

static void test_fifo_and_front(void)
{
	static struct recorder r;
	setup(&r, 5);
	for (int i = 1; i <= 3; i++)
		send_what(&r, i);
	struct pl_message front = { .what = 10 }, front2 = { .what = 11 };
	pl_handler_send_at_front(&r.handler, &front);
	pl_handler_send_at_front(&r.handler, &front2);
	CU_ASSERT_EQUAL(pl_looper_loop(r.looper), 0);
	/* Android semantics: each at-front message goes ahead of everything, so the last is first. */
	int want[] = { 11, 10, 1, 2, 3 };
	CU_ASSERT_EQUAL(r.n, 5);
	for (int i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(r.seen[i], want[i]);
	pl_looper_destroy(r.looper);
}

static void test_delays(void)
{
	static struct recorder r;
	setup(&r, 4);
	uint64_t t0 = pl_now_ns();
	struct pl_message a = { .what = 30 }, b = { .what = 10 }, c = { .what = 11 }, now = { .what = 0 };
	pl_handler_send_delayed(&r.handler, &a, 30000000);
	pl_handler_send_delayed(&r.handler, &b, 10000000);
	pl_handler_send_delayed(&r.handler, &c, 10000000);	/* same time as b: after it */
	pl_handler_send(&r.handler, &now);
	CU_ASSERT_EQUAL(pl_looper_loop(r.looper), 0);
	int want[] = { 0, 10, 11, 30 };
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(r.seen[i], want[i]);
	/* Never early. */
	CU_ASSERT(r.at_ns[1] - t0 >= 10000000);
	CU_ASSERT(r.at_ns[2] - t0 >= 10000000);
	CU_ASSERT(r.at_ns[3] - t0 >= 30000000);
	pl_looper_destroy(r.looper);
}

#define SENDERS 4
#define PER_SENDER 500

static void *sender(void *p)
{
	struct recorder *r = ((void **)p)[0];
	int base = (int)(intptr_t)((void **)p)[1];
	for (int i = 0; i < PER_SENDER; i++)
		send_what(r, base + i);
	return NULL;
}

static void test_cross_thread_fifo(void)
{
	static struct recorder r;
	setup(&r, SENDERS * PER_SENDER);
	pthread_t t[SENDERS];
	void *args[SENDERS][2];
	for (int i = 0; i < SENDERS; i++) {
		args[i][0] = &r;
		args[i][1] = (void *)(intptr_t)(i * 10000);
		pthread_create(&t[i], NULL, sender, args[i]);
	}
	CU_ASSERT_EQUAL(pl_looper_loop(r.looper), 0);
	for (int i = 0; i < SENDERS; i++)
		pthread_join(t[i], NULL);
	int last[SENDERS] = { -1, -1, -1, -1 }, bad = 0;
	for (int i = 0; i < r.n; i++) {
		int s = r.seen[i] / 10000, k = r.seen[i] % 10000;
		bad += k != last[s] + 1;
		last[s] = k;
	}
	CU_ASSERT_EQUAL(bad, 0);
	CU_ASSERT_EQUAL(r.n, SENDERS * PER_SENDER);
	pl_looper_destroy(r.looper);
}

struct fd_test {
	struct recorder r;
	int pipe[2];
};

static void on_readable(int fd, uint32_t events, void *ctx)
{
	struct fd_test *t = ctx;
	char c;
	CU_ASSERT(events & EPOLLIN);
	CU_ASSERT_EQUAL(read(fd, &c, 1), 1);
	/* As an input receiver does: turn the fd event into a message. */
	send_what(&t->r, c);
	pl_looper_remove_fd(t->r.looper, fd);
}

static void test_fd_watch_and_quit(void)
{
	static struct fd_test t;
	setup(&t.r, 1);
	CU_ASSERT_FATAL(pipe(t.pipe) == 0);
	CU_ASSERT_EQUAL(pl_looper_add_fd(t.r.looper, t.pipe[0], EPOLLIN, on_readable, &t), 0);
	CU_ASSERT_EQUAL(write(t.pipe[1], "x", 1), 1);
	struct pl_message late = { .what = 99 };
	pl_handler_send_delayed(&t.r.handler, &late, 1000000000);
	CU_ASSERT_EQUAL(pl_looper_loop(t.r.looper), 0);
	CU_ASSERT_EQUAL(t.r.n, 1);
	CU_ASSERT_EQUAL(t.r.seen[0], 'x');
	/* After quit nothing is accepted; the delayed message is dropped by destroy. */
	CU_ASSERT_EQUAL(send_what(&t.r, 5), -ESHUTDOWN);
	pl_looper_destroy(t.r.looper);
	close(t.pipe[0]);
	close(t.pipe[1]);
}

static void test_trace_events(void)
{
	static struct recorder r;
	char path[128];
	test_shm_path(path, sizeof(path), "looper");
	CU_ASSERT_FATAL(pl_ulog_open(path, 1 << 20, 4) == 0);
	setup(&r, 2);
	send_what(&r, 1);
	struct pl_message d = { .what = 2 };
	pl_handler_send_delayed(&r.handler, &d, 2000000);
	CU_ASSERT_EQUAL(pl_looper_loop(r.looper), 0);
	uint32_t qid = pl_looper_queue_id(r.looper);
	CU_ASSERT_EQUAL(qid >> 8, (uint32_t)getpid());
	pl_ulog_close();

	struct pl_ulog_reader rd;
	CU_ASSERT_FATAL(pl_ulog_reader_open(&rd, path) == 0);
	struct pl_event all[16], ev[16];
	size_t got = pl_ulog_reader_drain(&rd, 0, all, 16), n = 0;
	/* The looper's capacity, then each ENQUEUE followed by its context. */
	CU_ASSERT_FATAL(got == 9 && all[0].type == PL_EV_UNIT_CAPACITY);
	CU_ASSERT(all[0].a0 == qid && all[0].a1 == 1 && all[0].a2 == PL_UNIT_LOOPER);
	CU_ASSERT(all[2].type == PL_EV_TASK_CONTEXT && all[4].type == PL_EV_TASK_CONTEXT);
	for (size_t i = 1; i < got; i++)
		if (all[i].type != PL_EV_TASK_CONTEXT)
			ev[n++] = all[i];
	/* ENQ 1, ENQ 2 (delay 2000 us), DEQ 1, DONE 1, DEQ 2, DONE 2 */
	CU_ASSERT_EQUAL_FATAL(n, 6);
	uint16_t types[] = { PL_EV_ENQUEUE_MSG, PL_EV_ENQUEUE_MSG, PL_EV_DEQUEUE_MSG, PL_EV_MSG_DONE,
			     PL_EV_DEQUEUE_MSG, PL_EV_MSG_DONE };
	uint64_t ids[] = { 1, 2, 1, 1, 2, 2 };
	for (size_t i = 0; i < n; i++) {
		CU_ASSERT_EQUAL(ev[i].type, types[i]);
		CU_ASSERT_EQUAL(ev[i].a0, ids[i]);
		CU_ASSERT_EQUAL(ev[i].a1, qid);
		CU_ASSERT(i == 0 || ev[i].ts_ns >= ev[i - 1].ts_ns);
	}
	CU_ASSERT_EQUAL(ev[1].a2, 2000);
	CU_ASSERT(ev[4].ts_ns - ev[1].ts_ns >= 2000000);
	pl_ulog_reader_close(&rd);
	unlink(path);
	pl_looper_destroy(r.looper);
}

static void held_runnable(void *arg)
{
	struct recorder *r = arg;
	r->seen[r->n++] = 100;
}

/* The first message releases the held one, then sends another: held first, in send order. */
static void release_then_send(struct pl_handler *h, const struct pl_message *m)
{
	struct recorder *r = h->ctx;
	record(h, m);
	if (m->what == 1) {
		pl_handler_release_held(h);
		send_what(r, 2);
	}
}

static void test_held_messages(void)
{
	static struct recorder r;
	setup(&r, 0);
	pl_handler_init(&r.handler, r.looper, release_then_send, &r);
	r.quit_after = 3;	/* 1, the held runnable (not counted by record), 2 */
	CU_ASSERT_EQUAL(pl_handler_post_held(&r.handler, held_runnable, &r), 0);
	struct pl_message late = { .what = 3 };
	pl_handler_send_delayed(&r.handler, &late, 1000000000);	/* would be dropped at quit */
	send_what(&r, 1);
	CU_ASSERT_EQUAL(pl_looper_loop(r.looper), 0);
	int want[] = { 1, 100, 2 };
	CU_ASSERT_EQUAL(r.n, 3);
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(r.seen[i], want[i]);
	pl_looper_destroy(r.looper);
}

struct idle_test {
	struct recorder r;
	int idle_calls;
	int once_calls;
};

/* Counts idle periods; the first two send a message, so the queue goes idle three times. */
static bool on_idle(void *ctx)
{
	struct idle_test *t = ctx;
	if (++t->idle_calls <= 2) {
		send_what(&t->r, t->idle_calls);
	} else {
		pl_looper_quit(t->r.looper);
	}
	return true;
}

static bool on_idle_once(void *ctx)
{
	((struct idle_test *)ctx)->once_calls++;
	return false;
}

static void test_idle_handlers(void)
{
	static struct idle_test t;
	setup(&t.r, 0);
	CU_ASSERT_EQUAL(pl_looper_add_idle_handler(t.r.looper, on_idle, &t), 0);
	CU_ASSERT_EQUAL(pl_looper_add_idle_handler(t.r.looper, on_idle_once, &t), 0);
	send_what(&t.r, 0);
	CU_ASSERT_EQUAL(pl_looper_loop(t.r.looper), 0);
	/* Not before the first message: it was due. Then once per idle period. */
	CU_ASSERT_EQUAL(t.r.n, 3);
	CU_ASSERT_EQUAL(t.idle_calls, 3);
	CU_ASSERT_EQUAL(t.once_calls, 1);
	pl_looper_destroy(t.r.looper);
}

static void post_sem(void *arg)
{
	sem_post(arg);
}

static void test_handler_thread(void)
{
	static struct recorder r;
	sem_t done;
	struct pl_handler_thread *ht = pl_handler_thread_start("test-ht");
	CU_ASSERT_PTR_NOT_NULL_FATAL(ht);
	sem_init(&done, 0, 0);
	r.looper = pl_handler_thread_looper(ht);
	r.n = 0;
	r.quit_after = 0;
	pl_handler_init(&r.handler, r.looper, record, &r);
	for (int i = 0; i < 3; i++)
		send_what(&r, i);
	pl_handler_post(&r.handler, post_sem, &done);
	sem_wait(&done);
	pl_handler_thread_stop(ht);
	sem_destroy(&done);
	CU_ASSERT_EQUAL(r.n, 3);
	CU_ASSERT_EQUAL(r.seen[2], 2);
}

struct intents {
	pthread_t main;
	int seen[8];
	int n;
	bool off_main;
	sem_t done;
};

static void on_intent(void *ctx, int what, void *obj)
{
	struct intents *in = ctx;
	in->off_main |= !pthread_equal(pthread_self(), in->main);
	in->seen[in->n++] = what;
	if (obj)
		sem_post(obj);
}

static void test_intent_service(void)
{
	static struct intents in;
	in.main = pthread_self();
	sem_init(&in.done, 0, 0);
	struct pl_intent_service *s = pl_intent_service_create("test-intent", on_intent, &in);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	for (int i = 1; i <= 4; i++)
		CU_ASSERT_EQUAL(pl_intent_service_start(s, i, i == 4 ? &in.done : NULL), 0);
	sem_wait(&in.done);
	pl_intent_service_stop(s);
	sem_destroy(&in.done);
	CU_ASSERT_EQUAL(in.n, 4);
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(in.seen[i], i + 1);
	CU_ASSERT(in.off_main);
}

void add_looper_suite(void)
{
	CU_pSuite s = CU_add_suite("looper", NULL, NULL);
	CU_add_test(s, "FIFO and at-front", test_fifo_and_front);
	CU_add_test(s, "delayed messages", test_delays);
	CU_add_test(s, "per-sender FIFO across threads", test_cross_thread_fifo);
	CU_add_test(s, "fd watch, quit, send after quit", test_fd_watch_and_quit);
	CU_add_test(s, "ENQUEUE/DEQUEUE/MSG_DONE records", test_trace_events);
	CU_add_test(s, "held messages wait for release", test_held_messages);
	CU_add_test(s, "idle handlers once per idle period", test_idle_handlers);
	CU_add_test(s, "HandlerThread", test_handler_thread);
	CU_add_test(s, "IntentService: in order, off the caller's thread", test_intent_service);
}
