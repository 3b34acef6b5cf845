/*
 * The input a piece of work answers, for the frame marker (panlab/marker.h): a validation rig's
 * ground truth, not the tracer's (nothing here is logged). The dispatch of a tap or key sets it
 * on the main thread; the platform carries it along every hand-off it makes (a message, a
 * frame callback, an executor task, a thread started with pl_app_start_thread), and
 * pl_view_invalidate records it in the window, which draws the inputs each frame answers into
 * that frame.
 *
 * Work handed between threads outside the platform (a native library's own job queue, standing
 * for WebKit's renderer) carries it explicitly: pl_input_cause_get where the job is queued,
 * pl_input_cause_set on the thread that runs it.
 *
 * A cause is the input's dispatcher sequence number + 1; 0 is none. Per thread; no allocation.
 */
#ifndef PANLAB_INPUT_CAUSE_H
#define PANLAB_INPUT_CAUSE_H

#include <stdint.h>

uint64_t pl_input_cause_get(void);
void pl_input_cause_set(uint64_t cause);

#endif /* PANLAB_INPUT_CAUSE_H */
