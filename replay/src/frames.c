/* An input action as input frames: the one builder behind both injectors (inject.c into uinput
 * in the guest, emu/replay.c into the phone's virtio-input). See panlab/replay.h. */
#include <linux/input-event-codes.h>
#include <stdbool.h>

#include "panlab/replay.h"

uint32_t pl_action_frame_count(const struct pl_action *a)
{
	if (!pl_action_is_input(a))
		return 0;
	return a->kind == PL_ACTION_SWIPE ? a->steps + 2 : 2;
}

uint64_t pl_action_frame_at_ns(const struct pl_action *a, uint32_t frame)
{
	uint32_t release = pl_action_frame_count(a) - 1;
	if (frame == 0)
		return a->at_ns;
	if (frame >= release)
		return a->at_ns + a->hold_ns;
	return a->at_ns + a->hold_ns * frame / a->steps;
}

static size_t put(struct pl_input_event *ev, size_t n, uint16_t type, uint16_t code,
		  int32_t value)
{
	ev[n] = (struct pl_input_event){.type = type, .code = code, .value = value};
	return n + 1;
}

/* A swipe's move k of steps: k/steps of the way from start to end, in integer arithmetic. */
static int32_t between(int32_t from, int32_t to, uint32_t k, uint32_t steps)
{
	return from + (int32_t)((int64_t)(to - from) * k / steps);
}

size_t pl_action_frame(const struct pl_action *a, uint32_t frame,
		       struct pl_input_event ev[PL_FRAME_MAX_EVENTS])
{
	size_t n = 0;
	bool down = frame == 0, up = frame + 1 >= pl_action_frame_count(a);
	if (a->kind == PL_ACTION_KEY) {
		/* Modifiers go down before the key and up after it, in the same frames. */
		for (size_t i = 0; down && i < PL_MOD_COUNT; i++)
			if (a->mods & pl_mod_bit(i))
				n = put(ev, n, EV_KEY, pl_mod_code(i), 1);
		n = put(ev, n, EV_KEY, a->key_code, down);
		for (size_t i = PL_MOD_COUNT; !down && i-- > 0;)
			if (a->mods & pl_mod_bit(i))
				n = put(ev, n, EV_KEY, pl_mod_code(i), 0);
	} else if (!down && !up) {
		n = put(ev, n, EV_ABS, ABS_X, between(a->x_px, a->x2_px, frame, a->steps));
		n = put(ev, n, EV_ABS, ABS_Y, between(a->y_px, a->y2_px, frame, a->steps));
	} else {
		if (down) {
			n = put(ev, n, EV_ABS, ABS_X, a->x_px);
			n = put(ev, n, EV_ABS, ABS_Y, a->y_px);
		}
		n = put(ev, n, EV_KEY, BTN_TOUCH, down);
		/* The press carries the tap's param in the same frame, so the app reads both in
		 * one dispatch. */
		if (down)
			n = put(ev, n, EV_MSC, MSC_RAW, a->param);
	}
	return put(ev, n, EV_SYN, SYN_REPORT, 0);
}
