/* See include/panlab/evdev_input.h. */
#include "panlab/evdev_input.h"

#include <stdbool.h>

#include "panlab/ground_truth_format.h"

static int32_t scale(int32_t v, const struct input_absinfo *a, int32_t size_px)
{
	int64_t range = (int64_t)a->maximum - a->minimum + 1;
	if (range <= 1)
		return v;
	int64_t px = ((int64_t)v - a->minimum) * size_px / range;
	return (int32_t)(px < 0 ? 0 : px >= size_px ? size_px - 1 : px);
}

static void end_frame(struct pl_evdev_state *s, uint64_t t_ns, pl_evdev_emit_fn emit, void *ctx)
{
	if (s->touch_down) {
		struct pl_wire m = { .type = PL_WIRE_TAP, .x_px = scale(s->abs_x, &s->ax, PL_DISPLAY_WIDTH_PX),
				     .y_px = scale(s->abs_y, &s->ay, PL_DISPLAY_HEIGHT_PX), .param = s->param,
				     .t_ns = t_ns };
		emit(ctx, &m);
	}
	/* A modifier pressed with a key is part of that one input (CTRL+C), as the replay's
	 * ground truth counts it; pressed alone it is a key of its own. */
	bool chord = false;
	for (unsigned i = 0; i < s->nkeys; i++)
		chord |= !pl_gt_key_is_modifier(s->keys[i]);
	for (unsigned i = 0; i < s->nkeys; i++) {
		if (chord && pl_gt_key_is_modifier(s->keys[i]))
			continue;
		struct pl_wire m = { .type = PL_WIRE_KEY, .code = s->keys[i], .t_ns = t_ns };
		emit(ctx, &m);
	}
	s->touch_down = false;
	s->nkeys = 0;
	s->param = 0;
}

void pl_evdev_feed(struct pl_evdev_state *s, const struct input_event *e, pl_evdev_emit_fn emit,
		   void *ctx)
{
	switch (e->type) {
	case EV_ABS:
		if (e->code == ABS_X || e->code == ABS_MT_POSITION_X)
			s->abs_x = e->value;
		else if (e->code == ABS_Y || e->code == ABS_MT_POSITION_Y)
			s->abs_y = e->value;
		break;
	case EV_MSC:
		if (e->code == MSC_RAW)
			s->param = e->value;
		break;
	case EV_KEY:
		if (e->value != 1)
			break;
		if (e->code == BTN_TOUCH || e->code == BTN_LEFT)
			s->touch_down = true;
		else if (s->nkeys < sizeof(s->keys) / sizeof(s->keys[0]))
			s->keys[s->nkeys++] = e->code;
		break;
	case EV_SYN:
		if (e->code == SYN_REPORT) {
			end_frame(s, (uint64_t)e->input_event_sec * 1000000000u +
					     (uint64_t)e->input_event_usec * 1000u, emit, ctx);
		} else if (e->code == SYN_DROPPED) {
			s->touch_down = false;
			s->nkeys = 0;
			s->param = 0;
		}
		break;
	}
}
