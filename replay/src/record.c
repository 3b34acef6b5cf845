/* The recorder: evdev events from a live device → a script in the replay language.
 * Presses become taps, long presses, swipes and keys at their times rounded to the millisecond;
 * rounding each absolute time, not each gap, keeps the error from adding up. A touch is written
 * when it ends (its release, the next key press, or the end of the recording), since only then
 * is its length known. Linux only. */
#include "panlab/replay.h"

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

#include <linux/input.h>
#include "panlab/error.h"

#define NS_PER_MS 1000000ull
/* A touch that ends farther than this (in x plus y) from where it began is a swipe. */
#define SWIPE_MIN_PX 8
/* A touch held this long is a long press (Android's ViewConfiguration long-press timeout);
 * shorter touches replay as taps with the fixed hold. */
#define LONGPRESS_MIN_NS 500000000ull

struct axis {
	int32_t min, max, screen_px;
	int32_t value; /* the device's position when recording starts */
};

struct recorder {
	FILE *out;
	uint64_t start_ns;
	uint64_t clock_ns; /* the script's clock after the last line written */
	uint64_t last_ns;  /* time of the last event read */
	struct axis ax, ay;
	int32_t x, y, param;
	bool pressed;  /* a touch went down in the current frame */
	bool released; /* a touch went up in the current frame */
	int key;       /* a key went down in the current frame, or -1 */
	int modifier;  /* a modifier key went down in the current frame, or -1 */
	uint8_t mods;  /* ... and the PL_MOD_* bits of those that did */
	bool touching; /* a touch is down and not yet written */
	bool moved;    /* the position changed in the current frame */
	uint64_t down_ns;
	int32_t down_x, down_y, down_param;
	uint32_t moves; /* frames that moved the touch since it went down */
};

static uint64_t event_ns(const struct input_event *ev)
{
	return (uint64_t)ev->input_event_sec * 1000000000ull +
	       (uint64_t)ev->input_event_usec * 1000ull;
}

/* A device reports in its own range (a virtio tablet uses 0..32767); scripts use pixels. A fd
 * that is no device (a pipe) reports pixels already. The current value matters because evdev
 * sends no ABS event for a tap at the position it already holds. */
static struct axis axis_of(int fd, int code, int32_t screen_px)
{
	struct input_absinfo info;
	if (ioctl(fd, EVIOCGABS(code), &info) == 0 && info.maximum > info.minimum)
		return (struct axis){info.minimum, info.maximum, screen_px, info.value};
	return (struct axis){0, screen_px - 1, screen_px, 0};
}

static int32_t to_px(const struct axis *a, int32_t v)
{
	int64_t px = ((int64_t)v - a->min) * (a->screen_px - 1) / ((int64_t)a->max - a->min);
	return (int32_t)(px < 0 ? 0 : px > a->screen_px - 1 ? a->screen_px - 1 : px);
}

static uint64_t to_script_ms(const struct recorder *r, uint64_t t_ns)
{
	uint64_t rel_ns = t_ns > r->start_ns ? t_ns - r->start_ns : 0;
	return (rel_ns + NS_PER_MS / 2) / NS_PER_MS * NS_PER_MS;
}

/* Moves the script's clock to t_ns (rounded to the ms) with a wait, if that is ahead. */
static void wait_until(struct recorder *r, uint64_t t_ns)
{
	uint64_t at_ns = to_script_ms(r, t_ns);
	if (at_ns > r->clock_ns) {
		char d[32];
		pl_format_duration(d, sizeof d, at_ns - r->clock_ns);
		fprintf(r->out, "wait %s\n", d);
		r->clock_ns = at_ns;
	}
}

/* Writes the touch that is down, as lasting until up_ns. */
static void end_touch(struct recorder *r, uint64_t up_ns)
{
	if (!r->touching)
		return;
	r->touching = false;
	wait_until(r, r->down_ns);
	uint64_t down_ms = to_script_ms(r, r->down_ns), up_ms = to_script_ms(r, up_ns);
	uint64_t hold_ns = up_ms > down_ms ? up_ms - down_ms : 0;
	char param[24] = "";
	if (r->down_param != 0)
		snprintf(param, sizeof param, " param=%d", (int)r->down_param);
	int32_t dx = r->x - r->down_x, dy = r->y - r->down_y;
	if ((dx < 0 ? -dx : dx) + (dy < 0 ? -dy : dy) > SWIPE_MIN_PX && hold_ns > 0) {
		char d[32];
		uint32_t steps = r->moves ? r->moves : 1;
		if (steps > PL_SWIPE_MAX_STEPS)
			steps = PL_SWIPE_MAX_STEPS;
		pl_format_duration(d, sizeof d, hold_ns);
		fprintf(r->out, "swipe %d %d %d %d %s steps=%u%s\n", (int)r->down_x, (int)r->down_y,
			(int)r->x, (int)r->y, d, (unsigned)steps, param);
		r->clock_ns += hold_ns;
	} else if (hold_ns >= LONGPRESS_MIN_NS) {
		char d[32];
		pl_format_duration(d, sizeof d, hold_ns);
		fprintf(r->out, "longpress %d %d %s%s\n", (int)r->down_x, (int)r->down_y, d, param);
		r->clock_ns += hold_ns;
	} else {
		fprintf(r->out, "tap %d %d%s\n", (int)r->down_x, (int)r->down_y, param);
		r->clock_ns += PL_PRESS_HOLD_NS;
	}
	fflush(r->out);
}

/* A frame is complete: a touch that ends here is written, one that begins is kept until it
 * ends, and a key press ends any touch (the language has no overlapping inputs). */
static void end_frame(struct recorder *r, uint64_t t_ns)
{
	/* A modifier pressed without a key in its frame is a key of its own, as replay counts it. */
	if (r->key < 0 && r->modifier >= 0) {
		r->key = r->modifier;
		r->mods = 0;
	}
	if (r->released || r->pressed || r->key >= 0)
		end_touch(r, t_ns);
	else if (r->touching && r->moved)
		r->moves++;
	if (r->pressed) {
		r->touching = true;
		r->moves = 0;
		r->down_ns = t_ns;
		r->down_x = r->x;
		r->down_y = r->y;
		r->down_param = r->param;
	}
	if (r->key >= 0) {
		wait_until(r, t_ns);
		char name[64];
		pl_key_format(name, sizeof name, (uint16_t)r->key, r->mods);
		fprintf(r->out, "key %s\n", name);
		fflush(r->out);
		r->clock_ns += PL_PRESS_HOLD_NS;
	}
	r->pressed = false;
	r->released = false;
	r->moved = false;
	r->param = 0;
	r->key = -1;
	r->modifier = -1;
	r->mods = 0;
}

static void on_event(struct recorder *r, const struct input_event *ev)
{
	switch (ev->type) {
	case EV_ABS:
		if (ev->code == ABS_X)
			r->x = to_px(&r->ax, ev->value);
		else if (ev->code == ABS_Y)
			r->y = to_px(&r->ay, ev->value);
		r->moved |= ev->code == ABS_X || ev->code == ABS_Y;
		break;
	case EV_MSC:
		if (ev->code == MSC_RAW)
			r->param = ev->value;
		break;
	case EV_KEY:
		/* 1 is a press, 0 a release, 2 autorepeat (which adds nothing). A key's release
		 * adds nothing either: keys replay with the fixed hold. */
		if (ev->code == BTN_TOUCH || ev->code == BTN_LEFT) {
			if (ev->value == 1)
				r->pressed = true;
			else if (ev->value == 0)
				r->released = true;
		} else if (ev->value == 1 && pl_key_name(ev->code)) {
			size_t m = 0;
			while (m < PL_MOD_COUNT && pl_mod_code(m) != ev->code)
				m++;
			if (m < PL_MOD_COUNT) {
				r->modifier = ev->code;
				r->mods |= pl_mod_bit(m);
			} else {
				r->key = ev->code;
			}
		}
		break;
	case EV_SYN:
		if (ev->code == SYN_REPORT)
			end_frame(r, event_ns(ev));
		break;
	}
}

int pl_record(int ev_fd, FILE *out, uint64_t start_ns, struct pl_error *err)
{
	struct recorder r = {
		.out = out,
		.start_ns = start_ns,
		.last_ns = start_ns,
		.ax = axis_of(ev_fd, ABS_X, PL_SCREEN_WIDTH_PX),
		.ay = axis_of(ev_fd, ABS_Y, PL_SCREEN_HEIGHT_PX),
		.key = -1,
		.modifier = -1,
	};
	r.x = to_px(&r.ax, r.ax.value);
	r.y = to_px(&r.ay, r.ay.value);
	/* Event times in the script's clock; a pipe refuses this and carries whatever it is given. */
	int clock_id = CLOCK_MONOTONIC;
	ioctl(ev_fd, EVIOCSCLOCKID, &clock_id);
	fprintf(out, "# recorded by panlab-replay record\n");
	struct input_event ev[64];
	for (;;) {
		ssize_t n = read(ev_fd, ev, sizeof ev);
		if (n < 0 && errno == EINTR) {
			/* Interrupted by the user: the script lasts until now. */
			struct timespec ts;
			clock_gettime(CLOCK_MONOTONIC, &ts);
			r.last_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
			break;
		}
		if (n == 0 || (n < 0 && errno == ENODEV))
			break; /* end of a pipe, or the device was removed */
		if (n < 0) {
			pl_error_set(err, "reading input events: %s, expected an evdev device",
				 strerror(errno));
			return -1;
		}
		if (n % (ssize_t)sizeof ev[0] != 0) {
			pl_error_set(err, "reading input events: a partial event of %zd bytes, "
				 "expected whole struct input_event", n % (ssize_t)sizeof ev[0]);
			return -1;
		}
		for (ssize_t i = 0; i < n / (ssize_t)sizeof ev[0]; i++) {
			on_event(&r, &ev[i]);
			r.last_ns = event_ns(&ev[i]);
		}
	}
	end_touch(&r, r.last_ns);
	wait_until(&r, r.last_ns);
	if (fflush(out) != 0 || ferror(out)) {
		pl_error_set(err, "writing the script: %s, expected a writable output",
			 strerror(errno));
		return -1;
	}
	return 0;
}
