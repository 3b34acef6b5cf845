/*
 * Turning evdev events into the platform's inputs: the part of inputd that
 * reads one device. Events accumulate until SYN_REPORT (one frame, Linux
 * Documentation/input/event-codes.rst); then a BTN_TOUCH or BTN_LEFT press
 * in the frame becomes a PL_WIRE_TAP at the last reported position, scaled
 * from the device's ABS range to the display, carrying the frame's MSC_RAW
 * value as param; each key press becomes a PL_WIRE_KEY. SYN_DROPPED discards
 * the frame. Each input's t_ns is the SYN_REPORT's time stamp: when the
 * kernel delivered the frame, on the clock the device was set to
 * (EVIOCSCLOCKID; inputd asks for CLOCK_MONOTONIC, the trace's clock).
 *
 * Ownership: the state is the caller's; nothing is allocated.
 */
#ifndef PANLAB_EVDEV_INPUT_H
#define PANLAB_EVDEV_INPUT_H

#include <linux/input.h>
#include <stdbool.h>
#include <stdint.h>

#include "panlab/wire.h"

struct pl_evdev_state {
	struct input_absinfo ax, ay;	/* the device's ranges (EVIOCGABS); all zero: unscaled */
	int32_t abs_x, abs_y;		/* raw, last reported */
	int32_t param;			/* MSC_RAW of the frame being read */
	bool touch_down;		/* a touch-down in the frame being read */
	uint16_t keys[8];		/* key-downs in the frame being read */
	unsigned nkeys;
};

/* Called for each input a frame produces, in order (seq left 0 for the dispatcher). */
typedef void (*pl_evdev_emit_fn)(void *ctx, struct pl_wire *input);

void pl_evdev_feed(struct pl_evdev_state *s, const struct input_event *e, pl_evdev_emit_fn emit,
		   void *ctx);

#endif /* PANLAB_EVDEV_INPUT_H */
