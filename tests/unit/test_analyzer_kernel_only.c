/* SPDX-License-Identifier: MIT */
/*
 * Kernel-only inference (kernel_only.c): an unmodified program that logs
 * nothing reads its key from the console, draws into the fbdev emulation,
 * and a kworker flushes the damage; a platform process's reads and flushes
 * stay out of it.
 */
#include "test_analyzer.h"

#include "panlab/kernel_only.h"

#define US(x) ((uint64_t)(x) * 1000)
enum { SESSION = 150, FBI = 200, KWORKER = 30, INPUTD = 300, COMPOSITOR = 310 };
#define KEY_J 36

static void viewer_scenario(struct tb *t)
{
	tb_init(t, 2);
	tb_kernel(t, 0, US(10), PL_EV_FORK, SESSION, FBI, FBI);
	/* A platform process (it logs userspace events) reads the press too. */
	tb_user(t, INPUTD, US(20), PL_EV_ENQUEUE_MSG, 1, 7);
	tb_kernel(t, 0, US(1000), PL_EV_KEY_REPORT, 0, KEY_J, 0);
	tb_kernel(t, 0, US(1010), PL_EV_KEY_READ, INPUTD, KEY_J, PL_KEY_READ_EVDEV);
	tb_kernel(t, 1, US(1050), PL_EV_KEY_READ, FBI, 0, PL_KEY_READ_TTY);
	tb_kernel(t, 1, US(1060), PL_EV_KEY_READ, FBI, 0, PL_KEY_READ_TTY);
	tb_kernel(t, 1, US(2000), PL_EV_FB_DAMAGE, FBI, 0, 0);
	tb_kernel(t, 0, US(2500), PL_EV_GPU_FLUSH, KWORKER, 1, 480 << 16 | 800);
	tb_kernel(t, 1, US(3000), PL_EV_FB_DAMAGE, FBI, 0, 0);
	tb_kernel(t, 0, US(3500), PL_EV_GPU_FLUSH, KWORKER, 1, 480 << 16 | 800);
	tb_kernel(t, 0, US(10000), PL_EV_KEY_REPORT, 0, KEY_J, 0);
	tb_kernel(t, 1, US(10100), PL_EV_KEY_READ, FBI, 0, PL_KEY_READ_TTY);
	tb_kernel(t, 1, US(11000), PL_EV_FB_DAMAGE, FBI, 0, 0);
	tb_kernel(t, 0, US(11500), PL_EV_GPU_FLUSH, KWORKER, 1, 480 << 16 | 800);
	/* The compositor's flush is the platform's: no update of this program. */
	tb_user(t, COMPOSITOR, US(11900), PL_EV_ENQUEUE_MSG, 2, 8);
	tb_kernel(t, 0, US(12000), PL_EV_GPU_FLUSH, COMPOSITOR, 2, 480 << 16 | 800);
}

static void test_kernel_only_viewer(void)
{
	struct tb t;
	struct model m;
	char shape[64];
	uint64_t id;

	viewer_scenario(&t);
	model_build(&t, &m);
	CU_ASSERT_EQUAL(m.trace.kernel_only_presses, 2);
	CU_ASSERT_EQUAL(m.trace.kernel_only_inputs, 2);
	CU_ASSERT_EQUAL(m.s.graph.by_kind[PL_EDGE_INVALIDATE], 3);
	CU_ASSERT_EQUAL(m.s.tx.updates, 3);
	CU_ASSERT_EQUAL(m.s.tx.unattributed_updates, 0);
	CU_ASSERT_EQUAL_FATAL(m.s.tx.count, 2);
	CU_ASSERT_STRING_EQUAL(pl_transactions_inference(&m.trace, &m.s.tx), "kernel-only");
	for (uint64_t k = 0; k < 2; k++) {
		const struct pl_event *in = &m.trace.events[m.s.tx.items[k].input_event];

		CU_ASSERT(pl_event_is_input(in, &id));
		CU_ASSERT_EQUAL(id, k);
		CU_ASSERT_EQUAL(m.s.tx.items[k].input_id, k);
		CU_ASSERT_EQUAL(in->tid, FBI);
		CU_ASSERT(pl_event_is_key_input(in));
		CU_ASSERT_EQUAL(m.s.tx.items[k].animation, 0);
	}
	/* The first read delivered the press; the second read of it splits nothing. */
	CU_ASSERT_EQUAL(m.s.tx.items[0].input_ns, US(1050));
	CU_ASSERT_EQUAL(m.s.tx.items[0].latency_ns, US(3500) - US(1050));
	CU_ASSERT_EQUAL(m.s.tx.items[0].nupdates, 2);
	CU_ASSERT_EQUAL(m.s.tx.items[1].latency_ns, US(11500) - US(10100));
	CU_ASSERT_EQUAL(m.s.tx.items[1].nupdates, 1);
	CU_ASSERT_STRING_EQUAL(pl_critical_path_shape(&m.s.cp, 0, shape, sizeof(shape)),
			       "invalidate");
	uint64_t sum_ns = 0;

	for (int c = 0; c < PL_CATEGORIES; c++)
		sum_ns += m.s.bd.ns[1][c];
	CU_ASSERT_EQUAL(sum_ns, m.s.tx.items[1].latency_ns);
	model_free(&m);
}

/* A press no kernel-only thread reads (the platform's inputd took it) is no input. */
static void test_kernel_only_needs_a_reader(void)
{
	struct tb t;
	struct model m;

	tb_init(&t, 1);
	tb_user(&t, INPUTD, US(20), PL_EV_ENQUEUE_MSG, 1, 7);
	tb_kernel(&t, 0, US(1000), PL_EV_KEY_REPORT, 0, KEY_J, 0);
	tb_kernel(&t, 0, US(1010), PL_EV_KEY_READ, INPUTD, KEY_J, PL_KEY_READ_EVDEV);
	/* An evdev read of another key does not take this press either. */
	tb_kernel(&t, 0, US(1020), PL_EV_KEY_READ, FBI, KEY_J + 1, PL_KEY_READ_EVDEV);
	tb_kernel(&t, 0, US(2000), PL_EV_FB_DAMAGE, FBI, 0, 0);
	tb_kernel(&t, 0, US(2500), PL_EV_GPU_FLUSH, KWORKER, 1, 0);
	model_build(&t, &m);
	CU_ASSERT_EQUAL(m.trace.kernel_only_presses, 1);
	CU_ASSERT_EQUAL(m.trace.kernel_only_inputs, 0);
	CU_ASSERT_EQUAL(m.s.tx.count, 0);
	CU_ASSERT_PTR_NULL(pl_transactions_inference(&m.trace, &m.s.tx));
	CU_ASSERT_EQUAL(m.s.tx.unattributed_updates, 1);
	model_free(&m);
}

/*
 * A script's chords (SHIFT+A, CTRL+C): the modifier's report and the key's come from one
 * interrupt, the modifier's first, and are one press, as ground truth counts them; a modifier
 * pressed alone is a press; an evdev reader's read of the modifier takes no press.
 */
static void test_kernel_only_chords(void)
{
	struct tb t;
	struct model m;
	enum { KEY_LEFTSHIFT = 42, KEY_C = 46, KEY_LEFTCTRL = 29 };

	tb_init(&t, 2);
	tb_kernel(&t, 0, US(10), PL_EV_FORK, SESSION, FBI, FBI);
	tb_kernel(&t, 0, US(1000), PL_EV_KEY_REPORT, 0, KEY_LEFTSHIFT, 0);
	tb_kernel(&t, 0, US(1001), PL_EV_KEY_REPORT, 0, KEY_J, 0);
	tb_kernel(&t, 1, US(1040), PL_EV_KEY_READ, FBI, KEY_LEFTSHIFT, PL_KEY_READ_EVDEV);
	tb_kernel(&t, 1, US(1050), PL_EV_KEY_READ, FBI, KEY_J, PL_KEY_READ_EVDEV);
	/* A switch on the other cpu between does not part the chord. */
	tb_kernel(&t, 0, US(60000), PL_EV_KEY_REPORT, 0, KEY_LEFTCTRL, 0);
	tb_kernel(&t, 1, US(60000), PL_EV_CONTEXT_SWITCH, FBI, 0, 1);
	tb_kernel(&t, 0, US(60001), PL_EV_KEY_REPORT, 0, KEY_C, 0);
	tb_kernel(&t, 1, US(60050), PL_EV_KEY_READ, FBI, KEY_C, PL_KEY_READ_EVDEV);
	/* Shift alone, then a key in another interrupt (a switch between): two presses. */
	tb_kernel(&t, 0, US(120000), PL_EV_KEY_REPORT, 0, KEY_LEFTSHIFT, 0);
	tb_kernel(&t, 0, US(120010), PL_EV_CONTEXT_SWITCH, 0, FBI, 0);
	tb_kernel(&t, 0, US(120020), PL_EV_KEY_REPORT, FBI, KEY_J, 0);
	/* ... and a modifier a later key follows only after the 50 ms a press holds. */
	tb_kernel(&t, 1, US(180000), PL_EV_KEY_REPORT, 0, KEY_LEFTSHIFT, 0);
	tb_kernel(&t, 1, US(230000), PL_EV_KEY_REPORT, 0, KEY_J, 0);
	model_build(&t, &m);
	CU_ASSERT_EQUAL(m.trace.kernel_only_presses, 6);
	CU_ASSERT_EQUAL(m.trace.kernel_only_inputs, 2);
	for (uint64_t e = 0; e < m.trace.nevents; e++) {
		const struct pl_event *ev = &m.trace.events[e];

		if (ev->type != PL_EV_KEY_READ)
			continue;
		/* The read of Shift takes nothing; SHIFT+J is input 0, CTRL+C input 1. */
		CU_ASSERT_EQUAL(ev->a2, ev->a0 == KEY_LEFTSHIFT ? 0 : ev->a0 == KEY_J ? 1 : 2);
	}
	model_free(&m);
}

/*
 * A timer's redraw (a cursor blink) written just before the next key and
 * flushed after it: the display gives that flush to the newer key, so the
 * older key's transaction ends at its own flush.
 */
static void test_kernel_only_flush_after_next_input(void)
{
	struct tb t;
	struct model m;

	tb_init(&t, 2);
	tb_kernel(&t, 0, US(1000), PL_EV_KEY_REPORT, 0, KEY_J, 0);
	tb_kernel(&t, 1, US(1010), PL_EV_KEY_READ, FBI, 0, PL_KEY_READ_TTY);
	tb_kernel(&t, 1, US(1020), PL_EV_FB_DAMAGE, FBI, 0, 0);
	tb_kernel(&t, 0, US(1500), PL_EV_GPU_FLUSH, KWORKER, 1, 480 << 16 | 800);
	tb_kernel(&t, 1, US(2900), PL_EV_FB_DAMAGE, FBI, 0, 0);	/* the blink */
	tb_kernel(&t, 0, US(3000), PL_EV_KEY_REPORT, 0, KEY_J, 0);
	tb_kernel(&t, 1, US(3010), PL_EV_KEY_READ, FBI, 0, PL_KEY_READ_TTY);
	tb_kernel(&t, 1, US(3020), PL_EV_FB_DAMAGE, FBI, 0, 0);
	tb_kernel(&t, 0, US(3400), PL_EV_GPU_FLUSH, KWORKER, 1, 480 << 16 | 800);
	model_build(&t, &m);
	CU_ASSERT_EQUAL_FATAL(m.s.tx.count, 2);
	CU_ASSERT_EQUAL(m.s.tx.items[0].latency_ns, US(1500) - US(1010));
	CU_ASSERT_EQUAL(m.s.tx.items[1].latency_ns, US(3400) - US(3010));
	CU_ASSERT_EQUAL(m.s.tx.unattributed_updates, 0);
	model_free(&m);
}

/*
 * An instrumented app behind inputd and the compositor: the kernel logs its
 * press, inputd's evdev read and the compositor's flush, but every one of
 * those processes logs userspace events, so the kernel-only stage marks
 * nothing and the transaction is the display pipeline's (INPUT_READ 76 is
 * inputd's, not the kernel's KEY_READ).
 */
static void test_kernel_only_leaves_the_platform(void)
{
	enum { APP = 400 };
	struct tb t;
	struct model m;

	tb_init(&t, 1);
	tb_kernel(&t, 0, US(1000), PL_EV_KEY_REPORT, 0, KEY_J, 0);
	tb_kernel(&t, 0, US(1010), PL_EV_KEY_READ, INPUTD, KEY_J, PL_KEY_READ_EVDEV);
	tb_user(&t, INPUTD, US(1020), PL_EV_INPUT_READ, 0, 20000);
	tb_user(&t, INPUTD, US(1030), PL_EV_INPUT_DISPATCH, 0, APP);
	tb_user(&t, APP, US(1100), PL_EV_UI_KEY, 0, KEY_J);
	tb_user(&t, APP, US(1200), PL_EV_UI_INVALIDATE, 1, 0);
	tb_user(&t, APP, US(2000), PL_EV_UI_UPDATE, 1, APP);
	tb_user3(&t, COMPOSITOR, US(2100), PL_EV_FRAME_LATCH, 1, APP, 1);
	tb_user(&t, COMPOSITOR, US(2200), PL_EV_DISPLAY_SUBMIT, 1, 0);
	tb_kernel(&t, 0, US(2300), PL_EV_GPU_FLUSH, COMPOSITOR, 2, 480 << 16 | 800);
	tb_user(&t, COMPOSITOR, US(2400), PL_EV_DISPLAY_FLUSHED, 1, 0);
	model_build(&t, &m);
	CU_ASSERT_EQUAL(m.trace.kernel_only_presses, 1);
	CU_ASSERT_EQUAL(m.trace.kernel_only_inputs, 0);
	for (uint64_t e = 0; e < m.trace.nevents; e++)
		CU_ASSERT_EQUAL(m.trace.events[e].type < 64 ? m.trace.events[e].a2 : 0, 0);
	CU_ASSERT_EQUAL_FATAL(m.s.tx.count, 1);
	CU_ASSERT_EQUAL(m.trace.events[m.s.tx.items[0].input_event].type, PL_EV_UI_KEY);
	CU_ASSERT_EQUAL(m.s.tx.items[0].latency_ns, US(2000) - US(1100));
	CU_ASSERT_STRING_EQUAL(pl_transactions_inference(&m.trace, &m.s.tx), "userspace");
	model_free(&m);
}

/*
 * A browser's key: it waits in select() on its socket and the console, and
 * the network wakes it (WAKEUP a2); it then reads a pipe (FILE_WAIT of one
 * kind names the wait without its wake) and waits in an ioctl on the DRM
 * device. Each blocked segment is named for what it waited on; none is
 * sleeping. (A timer's wake-up of it would start a chain of its own: see
 * test_kernel_only_timer_chain.)
 */
static void test_kernel_only_waits_named(void)
{
	enum { LINKS = 210, WRITER = 220, Q = 0x1000 };
	struct tb t;
	struct model m;

	tb_init(&t, 2);
	tb_kernel(&t, 0, US(1000), PL_EV_KEY_REPORT, 0, KEY_J, 0);
	tb_kernel(&t, 1, US(1010), PL_EV_KEY_READ, LINKS, 0, PL_KEY_READ_TTY);
	tb_kernel(&t, 1, US(1100), PL_EV_FILE_WAIT, LINKS,
		  1u << PL_FILE_NETWORK | 1u << PL_FILE_INPUT, 0);
	tb_kernel(&t, 1, US(1100), PL_EV_CONTEXT_SWITCH, LINKS, 0, PL_STATE_SLEEPING);
	tb_kernel3(&t, 1, US(1600), PL_EV_WAKEUP, 0, LINKS, 1, PL_FILE_NETWORK);
	tb_kernel(&t, 1, US(1650), PL_EV_CONTEXT_SWITCH, 0, LINKS, PL_STATE_RUNNABLE);
	tb_kernel(&t, 1, US(1700), PL_EV_WAITQUEUE_WAIT, LINKS, Q, 0);
	tb_kernel(&t, 1, US(1700), PL_EV_FILE_WAIT, LINKS, 1u << PL_FILE_IPC, 0);
	tb_kernel(&t, 1, US(1700), PL_EV_CONTEXT_SWITCH, LINKS, 0, PL_STATE_SLEEPING);
	tb_kernel(&t, 0, US(2000), PL_EV_WAITQUEUE_NOTIFY, WRITER, Q, LINKS);
	tb_kernel(&t, 1, US(2050), PL_EV_CONTEXT_SWITCH, 0, LINKS, PL_STATE_RUNNABLE);
	tb_kernel(&t, 1, US(2050), PL_EV_WAITQUEUE_WAKE, LINKS, Q, 0);
	tb_kernel(&t, 1, US(2100), PL_EV_FILE_WAIT, LINKS, 1u << PL_FILE_DISPLAY, 0);
	tb_kernel(&t, 1, US(2100), PL_EV_CONTEXT_SWITCH, LINKS, 0, PL_STATE_SLEEPING);
	tb_kernel(&t, 1, US(2600), PL_EV_WAKEUP, 0, LINKS, 1);
	tb_kernel(&t, 1, US(2650), PL_EV_CONTEXT_SWITCH, 0, LINKS, PL_STATE_RUNNABLE);
	tb_kernel(&t, 1, US(3000), PL_EV_FB_DAMAGE, LINKS, 0, 0);
	tb_kernel(&t, 0, US(3500), PL_EV_GPU_FLUSH, KWORKER, 1, 480 << 16 | 800);
	model_build(&t, &m);
	CU_ASSERT_EQUAL_FATAL(m.s.tx.count, 1);
	CU_ASSERT_EQUAL(m.s.bd.ns[0][PL_CAT_NETWORK], US(500));
	CU_ASSERT_EQUAL(m.s.bd.ns[0][PL_CAT_IPC], US(300));
	CU_ASSERT_EQUAL(m.s.bd.ns[0][PL_CAT_DISPLAY], US(500));
	CU_ASSERT_EQUAL(m.s.bd.ns[0][PL_CAT_RUNNABLE], US(150));
	CU_ASSERT_EQUAL(m.s.bd.ns[0][PL_CAT_SLEEPING], 0);
	CU_ASSERT_EQUAL(m.s.bd.ns[0][PL_CAT_LOCK], 0);
	CU_ASSERT_STRING_EQUAL(pl_category_name(PL_CAT_IPC), "ipc");
	CU_ASSERT_STRING_EQUAL(pl_category_name(PL_CAT_DISPLAY), "display");
	model_free(&m);
}

/*
 * A native thread's wait-queue wait with its FILE_WAIT and its SWITCH_COUNTS
 * (the instructions of its slice, logged after the switch with its tid): both
 * go with the switch out, so the thread resumes at its WAITQUEUE_WAKE, where
 * the notify joins it.
 */
static void test_file_wait_goes_with_the_switch(void)
{
	enum { WAITER = 250, WAKER = 260, Q = 0x2000 };
	struct tb t;
	struct model m;

	tb_init(&t, 2);
	tb_kernel(&t, 0, US(1000), PL_EV_WAITQUEUE_WAIT, WAITER, Q, 0);
	tb_kernel(&t, 0, US(1000), PL_EV_FILE_WAIT, WAITER, 1u << PL_FILE_IPC, 0);
	tb_kernel(&t, 0, US(1000), PL_EV_CONTEXT_SWITCH, WAITER, 0, PL_STATE_SLEEPING);
	tb_kernel(&t, 0, US(1000), PL_EV_SWITCH_COUNTS, WAITER, 1200000, 0);
	tb_kernel(&t, 1, US(2000), PL_EV_WAITQUEUE_NOTIFY, WAKER, Q, WAITER);
	tb_kernel(&t, 0, US(2100), PL_EV_CONTEXT_SWITCH, 0, WAITER, PL_STATE_RUNNABLE);
	tb_kernel(&t, 0, US(2100), PL_EV_WAITQUEUE_WAKE, WAITER, Q, 0);
	model_build(&t, &m);
	CU_ASSERT_EQUAL(m.s.graph.by_kind[PL_EDGE_NOTIFY], 1);
	CU_ASSERT_EQUAL(m.s.graph.notifies_without_interval, 0);
	model_free(&m);
}

/*
 * A compositor and its client, each a process that logs nothing: the
 * compositor reads a key from evdev and writes it to the client's socket
 * (a user thread's wake-up through a file: a file notify); the client,
 * asleep in epoll_wait, writes it to its pty and waits for the echo, which
 * a kworker's flush delivers (no thread: the client goes on, and the wait
 * is ipc); it draws and commits over its socket, waking the compositor,
 * which waits for its repaint timer (no thread either) and commits to DRM.
 * The critical path crosses compositor -> client -> compositor.
 */
static void test_kernel_only_crosses_sockets(void)
{
	enum { COMP = 68, CLIENT = 72, SHELL = 75, ANY_KIND = 1u << PL_FILE_UNKNOWN };
	struct tb t;
	struct model m;
	char shape[64];

	tb_init(&t, 2);
	tb_kernel(&t, 1, US(500), PL_EV_FILE_WAIT, CLIENT, ANY_KIND, 0);
	tb_kernel(&t, 1, US(500), PL_EV_CONTEXT_SWITCH, CLIENT, 0, PL_STATE_SLEEPING);
	tb_kernel(&t, 1, US(500), PL_EV_SWITCH_COUNTS, CLIENT, 1000, 0);
	tb_kernel(&t, 0, US(1000), PL_EV_KEY_REPORT, 0, KEY_J, 0);
	tb_kernel(&t, 0, US(1010), PL_EV_KEY_READ, COMP, KEY_J, PL_KEY_READ_EVDEV);
	tb_kernel3(&t, 0, US(1100), PL_EV_WAKEUP, COMP, CLIENT, 1, PL_FILE_IPC);
	tb_kernel(&t, 0, US(1110), PL_EV_FILE_WAIT, COMP, ANY_KIND, 0);
	tb_kernel(&t, 0, US(1110), PL_EV_CONTEXT_SWITCH, COMP, 0, PL_STATE_SLEEPING);
	tb_kernel(&t, 0, US(1110), PL_EV_SWITCH_COUNTS, COMP, 1000, 0);
	tb_kernel(&t, 1, US(1150), PL_EV_CONTEXT_SWITCH, 0, CLIENT, PL_STATE_RUNNABLE);
	tb_kernel3(&t, 1, US(1200), PL_EV_WAKEUP, CLIENT, KWORKER, 0, 0);
	tb_kernel(&t, 1, US(1210), PL_EV_FILE_WAIT, CLIENT, ANY_KIND, 0);
	tb_kernel(&t, 1, US(1210), PL_EV_CONTEXT_SWITCH, CLIENT, 0, PL_STATE_SLEEPING);
	tb_kernel3(&t, 0, US(1300), PL_EV_WAKEUP, 0, SHELL, 0, PL_FILE_IPC);
	tb_kernel3(&t, 1, US(1500), PL_EV_WAKEUP, 0, CLIENT, 1, PL_FILE_IPC);
	tb_kernel(&t, 1, US(1550), PL_EV_CONTEXT_SWITCH, 0, CLIENT, PL_STATE_RUNNABLE);
	tb_kernel3(&t, 1, US(3000), PL_EV_WAKEUP, CLIENT, COMP, 0, PL_FILE_IPC);
	tb_kernel(&t, 1, US(3010), PL_EV_FILE_WAIT, CLIENT, ANY_KIND, 0);
	tb_kernel(&t, 1, US(3010), PL_EV_CONTEXT_SWITCH, CLIENT, 0, PL_STATE_SLEEPING);
	tb_kernel(&t, 0, US(3050), PL_EV_CONTEXT_SWITCH, 0, COMP, PL_STATE_RUNNABLE);
	tb_kernel(&t, 0, US(3100), PL_EV_FILE_WAIT, COMP, ANY_KIND, 0);
	tb_kernel(&t, 0, US(3100), PL_EV_CONTEXT_SWITCH, COMP, 0, PL_STATE_SLEEPING);
	tb_kernel3(&t, 0, US(4000), PL_EV_WAKEUP, 0, COMP, 0, PL_FILE_TIMER);
	tb_kernel(&t, 0, US(4050), PL_EV_CONTEXT_SWITCH, 0, COMP, PL_STATE_RUNNABLE);
	tb_kernel(&t, 0, US(4100), PL_EV_FB_DAMAGE, COMP, 0, 1);
	tb_kernel(&t, 1, US(4500), PL_EV_GPU_FLUSH, KWORKER, 1, 480 << 16 | 800);
	model_build(&t, &m);
	CU_ASSERT_EQUAL(m.s.iv.nfile_wakes, 2);
	CU_ASSERT_EQUAL(m.s.graph.by_kind[PL_EDGE_NOTIFY], 2);
	CU_ASSERT_EQUAL_FATAL(m.s.tx.count, 1);
	CU_ASSERT_EQUAL(m.s.tx.items[0].latency_ns, US(4500) - US(1010));
	CU_ASSERT_EQUAL(m.s.tx.items[0].nthreads, 3);
	CU_ASSERT_STRING_EQUAL(pl_critical_path_shape(&m.s.cp, 0, shape, sizeof(shape)),
			       "notify>notify>invalidate");
	/* The client's wait for its pty's echo, delivered by no thread, stays on its path. */
	CU_ASSERT_EQUAL(m.s.bd.ns[0][PL_CAT_IPC], US(1500) - US(1210));
	CU_ASSERT_EQUAL(m.s.bd.ns[0][PL_CAT_TIMER], US(4000) - US(3100));
	CU_ASSERT_EQUAL(m.s.bd.ns[0][PL_CAT_SLEEPING], 0);
	model_free(&m);
}

/*
 * A wake-up that reaches a thread on its way into a sleep, still on its
 * cpu (sched_waking before its switch out is logged, which then says
 * asleep): from the wake on it waits for a cpu, so the gap to its switch
 * in is runnable, not sleeping.
 */
static void test_woken_before_its_switch_out(void)
{
	enum { COMP = 68, OTHER = 72 };
	struct tb t;
	struct model m;

	tb_init(&t, 2);
	tb_kernel(&t, 1, US(1000), PL_EV_KEY_REPORT, 0, KEY_J, 0);
	tb_kernel(&t, 1, US(1005), PL_EV_CONTEXT_SWITCH, 0, COMP, PL_STATE_RUNNABLE);
	tb_kernel(&t, 1, US(1010), PL_EV_KEY_READ, COMP, KEY_J, PL_KEY_READ_EVDEV);
	tb_kernel3(&t, 0, US(1100), PL_EV_WAKEUP, 0, COMP, 1, PL_FILE_DISPLAY);
	tb_kernel(&t, 1, US(1101), PL_EV_FILE_WAIT, COMP, 1u << PL_FILE_UNKNOWN, 0);
	tb_kernel(&t, 1, US(1101), PL_EV_CONTEXT_SWITCH, COMP, OTHER, PL_STATE_SLEEPING);
	tb_kernel(&t, 1, US(1103), PL_EV_CONTEXT_SWITCH, OTHER, COMP, PL_STATE_RUNNABLE);
	tb_kernel(&t, 1, US(1200), PL_EV_FB_DAMAGE, COMP, 0, 1);
	tb_kernel(&t, 0, US(1500), PL_EV_GPU_FLUSH, KWORKER, 1, 480 << 16 | 800);
	model_build(&t, &m);
	CU_ASSERT_EQUAL_FATAL(m.s.tx.count, 1);
	CU_ASSERT_EQUAL(m.s.bd.ns[0][PL_CAT_SLEEPING], 0);
	CU_ASSERT_EQUAL(m.s.bd.ns[0][PL_CAT_RUNNABLE], US(1103) - US(1101));
	model_free(&m);
}

void add_kernel_only_tests(void)
{
	CU_pSuite s = CU_add_suite("analyzer kernel-only inference", NULL, NULL);

	CU_add_test(s, "viewer: console read, fbdev damage, kworker flush", test_kernel_only_viewer);
	CU_add_test(s, "a press needs a kernel-only reader", test_kernel_only_needs_a_reader);
	CU_add_test(s, "a modifier held with a key is that key's press", test_kernel_only_chords);
	CU_add_test(s, "a flush after the next key is the next key's",
		    test_kernel_only_flush_after_next_input);
	CU_add_test(s, "an instrumented app keeps the display pipeline",
		    test_kernel_only_leaves_the_platform);
	CU_add_test(s, "every blocked segment named for what it waited on",
		    test_kernel_only_waits_named);
	CU_add_test(s, "a FILE_WAIT and a SWITCH_COUNTS go with their switch out",
		    test_file_wait_goes_with_the_switch);
	CU_add_test(s, "a write to a client's socket and its commit back cross processes",
		    test_kernel_only_crosses_sockets);
	CU_add_test(s, "a wake-up before the switch out it races is a wait for a cpu",
		    test_woken_before_its_switch_out);
}
