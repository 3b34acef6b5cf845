/* Unit tests of the injector's frames and ground-truth lines, played into pipes instead of
 * uinput so they run anywhere. */
#include "test_replay.h"

#include <CUnit/Basic.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <linux/input.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "panlab/error.h"
#include "panlab/guest_abi.h"

#define MS 1000000ull

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Reads what is buffered in a pipe whose write end is closed. */
static size_t drain(int fd, void *buf, size_t cap)
{
	size_t len = 0;
	ssize_t n;
	while (len < cap && (n = read(fd, (char *)buf + len, cap - len)) > 0)
		len += (size_t)n;
	return len;
}

struct played {
	struct input_event ev[32];
	size_t nev;
	char gt[1024];
	uint64_t ready_ns, start_ns, end_ns;
	int rc;
	struct pl_error err;
};

static void play(const char *text, bool with_gt, uint64_t ready_offset_ns, struct played *out)
{
	struct pl_script *s = test_replay_parse(text);
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	int ev_pipe[2], gt_pipe[2];
	CU_ASSERT_FATAL(pipe(ev_pipe) == 0 && pipe(gt_pipe) == 0);
	memset(out, 0, sizeof *out);
	out->start_ns = now_ns();
	out->ready_ns = out->start_ns - ready_offset_ns;
	out->rc = pl_replay_play(ev_pipe[1], with_gt ? gt_pipe[1] : -1, s, out->ready_ns, NULL, &out->err);
	out->end_ns = now_ns();
	close(ev_pipe[1]);
	close(gt_pipe[1]);
	out->nev = drain(ev_pipe[0], out->ev, sizeof out->ev) / sizeof out->ev[0];
	drain(gt_pipe[0], out->gt, sizeof out->gt - 1);
	close(ev_pipe[0]);
	close(gt_pipe[0]);
	pl_script_free(s);
}

static void expect_event(const struct input_event *ev, uint16_t type, uint16_t code,
			 int32_t value)
{
	CU_ASSERT_EQUAL(ev->type, type);
	CU_ASSERT_EQUAL(ev->code, code);
	CU_ASSERT_EQUAL(ev->value, value);
}

/* A swipe: the press at the start, steps move frames at equal times along the line, the
 * release at the end; its ground truth is a tap's at the starting point. */
static void test_swipe_frames(void)
{
	struct played p;
	play("swipe 100 700 300 100 40ms steps=4 param=3\n", true, 0, &p);
	CU_ASSERT_EQUAL_FATAL(p.rc, 0);
	CU_ASSERT_EQUAL_FATAL(p.nev, 5 + 4 * 3 + 2);
	expect_event(&p.ev[0], EV_ABS, ABS_X, 100);
	expect_event(&p.ev[1], EV_ABS, ABS_Y, 700);
	expect_event(&p.ev[2], EV_KEY, BTN_TOUCH, 1);
	expect_event(&p.ev[3], EV_MSC, MSC_RAW, 3);
	expect_event(&p.ev[4], EV_SYN, SYN_REPORT, 0);
	static const int32_t xs[4] = {150, 200, 250, 300}, ys[4] = {550, 400, 250, 100};
	for (int k = 0; k < 4; k++) {
		expect_event(&p.ev[5 + 3 * k], EV_ABS, ABS_X, xs[k]);
		expect_event(&p.ev[6 + 3 * k], EV_ABS, ABS_Y, ys[k]);
		expect_event(&p.ev[7 + 3 * k], EV_SYN, SYN_REPORT, 0);
	}
	expect_event(&p.ev[17], EV_KEY, BTN_TOUCH, 0);
	expect_event(&p.ev[18], EV_SYN, SYN_REPORT, 0);
	CU_ASSERT(p.end_ns - p.start_ns >= 40 * MS);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.gt, " tap 100 700\n"));
}

static void test_frames(void)
{
	struct played p;
	play("tap 10 20 param=7\nkey BACK\n", false, 0, &p);
	CU_ASSERT_EQUAL_FATAL(p.rc, 0);
	CU_ASSERT_EQUAL_FATAL(p.nev, 5 + 2 + 2 + 2);
	/* Press: position, touch, param, then the report that ends the frame. */
	expect_event(&p.ev[0], EV_ABS, ABS_X, 10);
	expect_event(&p.ev[1], EV_ABS, ABS_Y, 20);
	expect_event(&p.ev[2], EV_KEY, BTN_TOUCH, 1);
	expect_event(&p.ev[3], EV_MSC, MSC_RAW, 7);
	expect_event(&p.ev[4], EV_SYN, SYN_REPORT, 0);
	expect_event(&p.ev[5], EV_KEY, BTN_TOUCH, 0);
	expect_event(&p.ev[6], EV_SYN, SYN_REPORT, 0);
	expect_event(&p.ev[7], EV_KEY, KEY_BACK, 1);
	expect_event(&p.ev[8], EV_SYN, SYN_REPORT, 0);
	expect_event(&p.ev[9], EV_KEY, KEY_BACK, 0);
	expect_event(&p.ev[10], EV_SYN, SYN_REPORT, 0);
	for (size_t i = 0; i < p.nev; i++)
		CU_ASSERT(p.ev[i].input_event_sec == 0 && p.ev[i].input_event_usec == 0);
	CU_ASSERT_STRING_EQUAL(p.gt, "");
}

/* Lines and times follow include/FORMAT.md; each input lands at ready + at_ns or just after. */
static void test_ground_truth(void)
{
	struct played p;
	play("wait 20ms\ntap 479 799 param=3\nkey 158\nwait 10ms\n", true, 0, &p);
	CU_ASSERT_EQUAL_FATAL(p.rc, 0);
	uint64_t ready_ns, t0_ns, t1_ns, end_ns;
	unsigned seq0, seq1, x, y, code;
	int used = 0;
	int n = sscanf(p.gt,
		       "ready %" SCNu64 "\ninput %u %" SCNu64 " tap %u %u\ninput %u %" SCNu64
		       " key %u\nend %" SCNu64 "\n%n",
		       &ready_ns, &seq0, &t0_ns, &x, &y, &seq1, &t1_ns, &code, &end_ns, &used);
	CU_ASSERT_EQUAL_FATAL(n, 9);
	CU_ASSERT_EQUAL(p.gt[used], '\0');
	CU_ASSERT_EQUAL(ready_ns, p.ready_ns);
	CU_ASSERT_EQUAL(seq0, 0);
	CU_ASSERT_EQUAL(seq1, 1);
	CU_ASSERT_EQUAL(x, 479);
	CU_ASSERT_EQUAL(y, 799);
	CU_ASSERT_EQUAL(code, KEY_BACK);
	CU_ASSERT(t0_ns >= ready_ns + 20 * MS);
	CU_ASSERT(t1_ns >= ready_ns + 70 * MS);
	CU_ASSERT(end_ns >= ready_ns + 130 * MS && end_ns <= p.end_ns);
	/* Generous bound: the host may be busy, but a late start must not accumulate. */
	CU_ASSERT(t0_ns < ready_ns + 20 * MS + 500 * MS);
	char line[64];
	snprintf(line, sizeof line, "input 0 %" PRIu64 " tap 479 799\n", t0_ns);
	CU_ASSERT_PTR_NOT_NULL(strstr(p.gt, line));
}

/* Deadlines already passed are played at once, still in order. */
static void test_late_start(void)
{
	struct played p;
	play("tap 1 1\nwait 1s\ntap 2 2\nwait 1s\n", true, 10000 * MS, &p);
	CU_ASSERT_EQUAL_FATAL(p.rc, 0);
	CU_ASSERT(p.end_ns - p.start_ns < 1000 * MS);
	CU_ASSERT_EQUAL(p.nev, 2 * (5 + 2));
	CU_ASSERT_PTR_NOT_NULL(strstr(p.gt, " tap 1 1\ninput 1 "));
}

static void test_write_error(void)
{
	struct pl_script *s = test_replay_parse("\ntap 1 1\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	int ro = open("/dev/null", O_RDONLY);
	struct pl_error err;
	CU_ASSERT_EQUAL(pl_replay_play(ro, -1, s, now_ns(), NULL, &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "line 2: writing the press frame to the input device: Bad file "
				    "descriptor, expected a complete write");
	CU_ASSERT_EQUAL(pl_replay_play(-1, ro, s, 5, NULL, &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "writing ground truth: Bad file descriptor, expected a "
				    "complete write of \"ready 5\"");
	close(ro);
	pl_script_free(s);
}

/* A control hook that records its calls and resumes the script a fixed delay later. */
struct control_log {
	enum pl_action_kind kind[4];
	uint64_t called_ns[4];
	size_t n;
	uint64_t delay_ns;
	int fail;
};

static int control(void *ctx, const struct pl_action *a, uint64_t *resume_ns, struct pl_error *err)
{
	struct control_log *log = ctx;
	if (log->fail) {
		pl_error_set(err, "line %u: no such app", (unsigned)a->line);
		return -1;
	}
	log->called_ns[log->n] = now_ns();
	log->kind[log->n++] = a->kind;
	*resume_ns = log->called_ns[log->n - 1] + log->delay_ns;
	return 0;
}

/* Control actions go to the hook at their time; the script's clock then runs on from the resume
 * time, so a later input lands after it, and input seq skips them. Without a hook they fail. */
static void test_control_hooks(void)
{
	struct pl_script *s = test_replay_parse("switch b\nwait 10ms\ntap 1 1\nwait display\n"
						"wait 10ms\nkey BACK\nwait 5ms\n");
	CU_ASSERT_PTR_NOT_NULL_FATAL(s);
	int ev_pipe[2], gt_pipe[2];
	CU_ASSERT_FATAL(pipe(ev_pipe) == 0 && pipe(gt_pipe) == 0);
	struct control_log log = {.delay_ns = 100 * MS};
	struct pl_replay_hooks hooks = {control, &log};
	struct pl_error err = { "" };
	char gt[512] = "";
	uint64_t ready_ns = now_ns();
	CU_ASSERT_EQUAL_FATAL(pl_replay_play(ev_pipe[1], gt_pipe[1], s, ready_ns, &hooks, &err), 0);
	close(gt_pipe[1]);
	drain(gt_pipe[0], gt, sizeof gt - 1);
	CU_ASSERT_EQUAL_FATAL(log.n, 2);
	CU_ASSERT_EQUAL(log.kind[0], PL_ACTION_SWITCH);
	CU_ASSERT_EQUAL(log.kind[1], PL_ACTION_WAIT_DISPLAY);
	uint64_t t0_ns, t1_ns, end_ns;
	CU_ASSERT_EQUAL_FATAL(sscanf(gt, "ready %*u\ninput 0 %" SCNu64 " tap 1 1\ninput 1 %" SCNu64
				     " key 158\nend %" SCNu64, &t0_ns, &t1_ns, &end_ns), 3);
	/* The tap comes 10 ms after the switch resumed, the key 10 ms after the display wait. */
	CU_ASSERT(t0_ns >= log.called_ns[0] + 110 * MS);
	CU_ASSERT(log.called_ns[1] >= log.called_ns[0] + 160 * MS);
	CU_ASSERT(t1_ns >= log.called_ns[1] + 110 * MS);
	CU_ASSERT(end_ns >= log.called_ns[1] + 165 * MS);

	log = (struct control_log){.fail = 1};
	CU_ASSERT_EQUAL(pl_replay_play(ev_pipe[1], -1, s, now_ns(), &hooks, &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "line 1: no such app");
	CU_ASSERT_EQUAL(pl_replay_play(ev_pipe[1], -1, s, now_ns(), NULL, &err), -1);
	CU_ASSERT_STRING_EQUAL(err.msg, "line 1: 'switch' needs the platform's activity manager, "
				    "expected a run under panlab-session");
	close(ev_pipe[1]);
	close(ev_pipe[0]);
	close(gt_pipe[0]);
	pl_script_free(s);
}

/* The handshake the session writes on the input port reads back as the phone parses it, and
 * nothing else does. */
static void test_handshake(void)
{
	char line[PL_HANDSHAKE_LINE_BYTES];
	uint64_t t_ns = 0;
	int n = pl_handshake_format(line, sizeof line, PL_HANDSHAKE_RESUME, UINT64_MAX);
	CU_ASSERT_EQUAL(n, 28);
	CU_ASSERT_STRING_EQUAL(line, "resume 18446744073709551615\n");
	line[n - 1] = '\0';
	CU_ASSERT_EQUAL(pl_handshake_parse(line, &t_ns), PL_HANDSHAKE_RESUME);
	CU_ASSERT_EQUAL(t_ns, UINT64_MAX);
	CU_ASSERT_EQUAL(pl_handshake_format(line, sizeof line, PL_HANDSHAKE_READY, 42), 9);
	CU_ASSERT_STRING_EQUAL(line, "ready 42\n");
	CU_ASSERT_EQUAL(pl_handshake_parse("ready 42", &t_ns), PL_HANDSHAKE_READY);
	CU_ASSERT_EQUAL(t_ns, 42);
	CU_ASSERT_EQUAL(pl_handshake_parse("ready 42 x", &t_ns), PL_HANDSHAKE_NONE);
	CU_ASSERT_EQUAL(pl_handshake_parse("ready", &t_ns), PL_HANDSHAKE_NONE);
	CU_ASSERT_EQUAL(pl_handshake_parse("panlab-init: up", &t_ns), PL_HANDSHAKE_NONE);
	/* A control action at script time 30 ms done at 1 s: script time 40 ms plays at 1.01 s. */
	CU_ASSERT_EQUAL(pl_script_base_ns(1000 * MS, 30 * MS) + 40 * MS, 1010 * MS);
}

int test_replay_add_play_suite(void)
{
	CU_pSuite suite = CU_add_suite("replay_play", NULL, NULL);
	if (!suite || !CU_add_test(suite, "frames", test_frames) ||
	    !CU_add_test(suite, "swipe frames", test_swipe_frames) ||
	    !CU_add_test(suite, "ground truth", test_ground_truth) ||
	    !CU_add_test(suite, "late start", test_late_start) ||
	    !CU_add_test(suite, "write error", test_write_error) ||
	    !CU_add_test(suite, "control hooks", test_control_hooks) ||
	    !CU_add_test(suite, "handshake and script clock", test_handshake))
		return CU_get_error();
	return CUE_SUCCESS;
}
