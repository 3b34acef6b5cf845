/* The injector: plays a parsed script as evdev frames at exact CLOCK_MONOTONIC times and writes
 * ground truth (include/FORMAT.md). Linux only. Frames go to any fd, so tests read them from a
 * pipe; in the guest the fd is the uinput device "panlab-touch". Nothing here calls or links the
 * tracer's logger: ground truth must come from outside the tracer. */
#include "panlab/replay.h"
#include "panlab/ground_truth_format.h"
#include "panlab/guest_abi.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <sched.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/input.h>
#include <linux/uinput.h>
#include "panlab/error.h"

#define NS_PER_S 1000000000ull

struct pl_injector {
	int uinput_fd;
	int gt_fd;
};

static uint64_t monotonic_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NS_PER_S + (uint64_t)ts.tv_nsec;
}

/* One write() per frame: uinput hands a whole write to evdev before returning, so the time read
 * after it is when the frame reached the kernel. The events' time stays zero: evdev stamps
 * events itself when uinput passes them on. */
static int send_frame(int ev_fd, const struct pl_action *a, uint32_t frame, struct pl_error *err)
{
	struct pl_input_event pe[PL_FRAME_MAX_EVENTS];
	struct input_event ev[PL_FRAME_MAX_EVENTS];
	size_t count = pl_action_frame(a, frame, pe);
	for (size_t i = 0; i < count; i++)
		ev[i] = (struct input_event){.type = pe[i].type, .code = pe[i].code,
					     .value = pe[i].value};
	size_t bytes = count * sizeof ev[0];
	ssize_t n;
	do
		n = write(ev_fd, ev, bytes);
	while (n < 0 && errno == EINTR);
	if (n != (ssize_t)bytes)
		return pl_fail(err,
			       "line %" PRIu32 ": writing %s frame to the input device: %s, "
			       "expected a complete write",
			       a->line, frame == 0 ? "the press" :
			       frame + 1 == pl_action_frame_count(a) ? "the release" : "a move",
			       n < 0 ? strerror(errno) : "short write");
	return 0;
}

/* Each line goes out in one write() so that lines from other writers of the same ground-truth
 * file (the compositor's frames, with O_APPEND) never interleave inside a line. line is len
 * bytes from a panlab/ground_truth_format.h formatter. */
static int gt_line(int gt_fd, struct pl_error *err, const char *line, int len)
{
	if (gt_fd < 0)
		return 0;
	ssize_t n;
	do
		n = write(gt_fd, line, (size_t)len);
	while (n < 0 && errno == EINTR);
	if (n != len)
		return pl_fail(err,
			    "writing ground truth: %s, expected a complete write of \"%.*s\"",
			    n < 0 ? strerror(errno) : "short write", len - 1, line);
	return 0;
}

/* An absolute deadline does not drift with the time spent injecting; if it has passed already,
 * clock_nanosleep returns at once. glibc on 32-bit ARM makes the 32-bit-time system call whenever
 * the time fits, even with _TIME_BITS=64, so a kernel without CONFIG_COMPAT_32BIT_TIME fails it
 * with ENOSYS: say so rather than play everything at once. */
static int sleep_until(uint64_t t_ns, struct pl_error *err)
{
	struct timespec ts = {.tv_sec = (time_t)(t_ns / NS_PER_S), .tv_nsec = (long)(t_ns % NS_PER_S)};
	int rc;
	while ((rc = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL)) == EINTR)
		;
	if (rc != 0)
		return pl_fail(err,
			    "clock_nanosleep: %s, expected a kernel with CONFIG_COMPAT_32BIT_TIME=y",
			    strerror(rc));
	return 0;
}

static const char *control_name(const struct pl_action *a)
{
	switch (a->kind) {
	case PL_ACTION_WAIT_IDLE: return "wait idle";
	case PL_ACTION_WAIT_DISPLAY: return "wait display";
	case PL_ACTION_LAUNCH: return "launch";
	default: return "switch";
	}
}

/*
 * The injector stands in for a touch controller, whose interrupt no task delays. A frame's write
 * wakes the input dispatcher, which CFS may run on this CPU at once, and the app after it: the
 * time read after the write would then wait for them (the ground truth's input late by
 * milliseconds; 7 us otherwise). So the injector holds SCHED_FIFO from before the first
 * frame's write until it has read the time, and only then lets the woken tasks run.
 */
static int set_policy(int policy, int priority, struct pl_error *err)
{
	struct sched_param p = { .sched_priority = priority };
	if (sched_setscheduler(0, policy, &p) != 0)
		return pl_fail(err, "sched_setscheduler(%s): %s, expected an injector run as root",
			       policy == SCHED_FIFO ? "SCHED_FIFO" : "SCHED_OTHER",
			       strerror(errno));
	return 0;
}

/* Script time t maps to CLOCK_MONOTONIC base_ns + t. A control action stops the script's clock
 * until it is done: from then on base_ns is its resume time minus its script time, so what
 * follows is timed from the moment the condition held. realtime: stamp each input under
 * SCHED_FIFO (set_policy). */
static int play(int ev_fd, int gt_fd, const struct pl_script *script, uint64_t ready_ns,
		const struct pl_replay_hooks *hooks, bool realtime, struct pl_error *err)
{
	char line[PL_GT_LINE_BYTES];
	if (gt_line(gt_fd, err, line, pl_gt_ready(line, sizeof line, ready_ns)) < 0)
		return -1;
	uint64_t base_ns = ready_ns, seq = 0;
	size_t count = pl_script_action_count(script);
	for (size_t i = 0; i < count; i++) {
		const struct pl_action *a = pl_script_action(script, i);
		if (!pl_action_is_input(a)) {
			uint64_t resume_ns;
			if (!hooks || !hooks->control)
				return pl_fail(err,
					    "line %" PRIu32 ": '%s' needs the platform's activity "
					    "manager, expected a run under panlab-session",
					    a->line, control_name(a));
			if (sleep_until(base_ns + a->at_ns, err) < 0 ||
			    hooks->control(hooks->ctx, a, &resume_ns, err) < 0)
				return -1;
			base_ns = pl_script_base_ns(resume_ns, a->at_ns);
			continue;
		}
		if (sleep_until(base_ns + a->at_ns, err) < 0 ||
		    (realtime && set_policy(SCHED_FIFO, 1, err) < 0) ||
		    send_frame(ev_fd, a, 0, err) < 0)
			return -1;
		uint64_t t_in_ns = monotonic_ns();
		if (realtime && set_policy(SCHED_OTHER, 0, err) < 0)
			return -1;
		/* A swipe's ground truth is a tap's where the touch began. */
		int len =
			a->kind != PL_ACTION_KEY ?
				pl_gt_input_tap(line, sizeof line, seq, t_in_ns, a->x_px, a->y_px) :
				pl_gt_input_key(line, sizeof line, seq, t_in_ns, a->key_code);
		int rc = gt_line(gt_fd, err, line, len);
		seq++;
		/* The moves of a swipe, then the release. */
		for (uint32_t k = 1; rc == 0 && k < pl_action_frame_count(a); k++)
			if (sleep_until(base_ns + pl_action_frame_at_ns(a, k), err) < 0 ||
			    send_frame(ev_fd, a, k, err) < 0)
				rc = -1;
		if (rc < 0)
			return -1;
	}
	if (sleep_until(base_ns + pl_script_duration_ns(script), err) < 0)
		return -1;
	return gt_line(gt_fd, err, line, pl_gt_end(line, sizeof line, monotonic_ns()));
}

int pl_replay_play(int ev_fd, int gt_fd, const struct pl_script *script, uint64_t ready_ns,
		   const struct pl_replay_hooks *hooks, struct pl_error *err)
{
	return play(ev_fd, gt_fd, script, ready_ns, hooks, false, err);
}

int pl_injector_open(struct pl_injector **out, int gt_fd, struct pl_error *err)
{
	static const struct {
		unsigned long request;
		int value;
	} bits[] = {
		{UI_SET_EVBIT, EV_SYN},        {UI_SET_EVBIT, EV_KEY},
		{UI_SET_EVBIT, EV_ABS},        {UI_SET_EVBIT, EV_MSC},
		{UI_SET_KEYBIT, BTN_TOUCH},    {UI_SET_ABSBIT, ABS_X},
		{UI_SET_ABSBIT, ABS_Y},        {UI_SET_MSCBIT, MSC_RAW},
		{UI_SET_PROPBIT, INPUT_PROP_DIRECT},
	};
	struct uinput_setup setup = {
		.id = {.bustype = BUS_VIRTUAL, .vendor = 0x706c /* "pl" */, .product = 1, .version = 1},
		.name = "panlab-touch",
	};
	struct uinput_abs_setup axes[] = {
		{.code = ABS_X, .absinfo = {.minimum = 0, .maximum = PL_SCREEN_WIDTH_PX - 1}},
		{.code = ABS_Y, .absinfo = {.minimum = 0, .maximum = PL_SCREEN_HEIGHT_PX - 1}},
	};

	*out = NULL;
	int fd = open("/dev/uinput", O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return pl_fail(err,
			    "/dev/uinput: %s, expected a kernel with CONFIG_INPUT_UINPUT and its "
			    "device node",
			    strerror(errno));
	bool ok = true;
	for (size_t i = 0; ok && i < sizeof bits / sizeof bits[0]; i++)
		ok = ioctl(fd, bits[i].request, bits[i].value) == 0;
	for (size_t i = 0; ok && i < pl_key_count(); i++)
		ok = ioctl(fd, UI_SET_KEYBIT, (int)pl_key_code_at(i)) == 0;
	for (size_t i = 0; ok && i < sizeof axes / sizeof axes[0]; i++)
		ok = ioctl(fd, UI_ABS_SETUP, &axes[i]) == 0;
	ok = ok && ioctl(fd, UI_DEV_SETUP, &setup) == 0 && ioctl(fd, UI_DEV_CREATE) == 0;
	struct pl_injector *inj = ok ? malloc(sizeof *inj) : NULL;
	if (!inj) {
		pl_fail(err, "/dev/uinput: creating panlab-touch: %s, expected uinput 5 or later",
		     strerror(ok ? ENOMEM : errno));
		close(fd);
		return -1;
	}
	*inj = (struct pl_injector){.uinput_fd = fd, .gt_fd = gt_fd};
	*out = inj;
	char line[PL_GT_LINE_BYTES];
	if (gt_line(gt_fd, err, line, pl_gt_header(line, sizeof line)) < 0) {
		pl_injector_close(inj);
		*out = NULL;
		return -1;
	}
	return 0;
}

int pl_injector_run(struct pl_injector *injector, const struct pl_script *script,
		    uint64_t ready_ns, const struct pl_replay_hooks *hooks, struct pl_error *err)
{
	return play(injector->uinput_fd, injector->gt_fd, script, ready_ns, hooks, true, err);
}

/* uinput names the device's sysfs directory (UI_GET_SYSNAME, uinput 5+); its evdev node is the
 * one event* entry in it. */
int pl_injector_device_path(const struct pl_injector *injector, char *path, size_t path_len,
			    struct pl_error *err)
{
	char sysname[64], dir_path[128];
	if (ioctl(injector->uinput_fd, UI_GET_SYSNAME(sizeof sysname), sysname) < 0)
		return pl_fail(err, "/dev/uinput: UI_GET_SYSNAME: %s, expected uinput 5 or later",
			    strerror(errno));
	snprintf(dir_path, sizeof dir_path, "/sys/devices/virtual/input/%s", sysname);
	DIR *dir = opendir(dir_path);
	if (!dir)
		return pl_fail(err, "%s: %s, expected sysfs mounted", dir_path, strerror(errno));
	int rc = -1;
	for (struct dirent *de; rc < 0 && (de = readdir(dir)) != NULL;)
		if (!strncmp(de->d_name, "event", 5))
			rc = snprintf(path, path_len, "/dev/input/%s", de->d_name) < (int)path_len
				     ? 0 : -1;
	closedir(dir);
	if (rc < 0)
		return pl_fail(err, "%s: no event device, expected evdev (CONFIG_INPUT_EVDEV)",
			    dir_path);
	return 0;
}

void pl_injector_close(struct pl_injector *injector)
{
	if (!injector)
		return;
	ioctl(injector->uinput_fd, UI_DEV_DESTROY);
	close(injector->uinput_fd);
	free(injector);
}
