/* SPDX-License-Identifier: MIT */
/*
 * Stage 5 (display.c): transactions -> input to pixels (struct pl_pixels in
 * panlab/transactions.h), from inputd's and the compositor's events
 * (FORMAT.md "The display pipeline").
 *
 * Ends by app frames only: an update is a UI_UPDATE (a0 frame number, a1
 * pid) that a FRAME_LATCH takes (same pid, frame number at or above it);
 * another kind of update (a native program's DRM or fbdev writes) would add
 * its own way of finding the frame that shows it beside display.c's
 * frame_of_update().
 *
 * Ownership: fills the pixels of every transaction in place; allocates
 * nothing that outlives the call. The trace is never changed.
 */
#ifndef PANLAB_DISPLAY_H
#define PANLAB_DISPLAY_H

#include "panlab/trace.h"
#include "panlab/transactions.h"

void pl_display_attach(const struct pl_trace *trace, struct pl_transactions *tx);

#endif /* PANLAB_DISPLAY_H */
