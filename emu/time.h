/* Virtual-time engine: a deterministic discrete-event simulation that
 * advances the cores in parallel in virtual time.
 *
 * Time is uint64_t nanoseconds of virtual time since power-on ("engine
 * ns"). The cores share one clock domain of cpu_hz; a core that runs for
 * C cycles advances by C * 1e9 / cpu_hz ns, carried exactly (no drift).
 * The generic-timer counter counts at a fixed counter_hz that the CPU
 * frequency does not affect: counter = engine ns * counter_hz / 1e9.
 *
 * Scheduling: the engine cuts time into windows of at most one quantum,
 * ending early at the next queued event. In each window one core runs up to
 * the window's end, then the next runs over the same span, so both cores
 * cover the same virtual time. Events are fired when every core has
 * reached their time; an event queued during a window for a time inside it
 * ends the window there (cores already past it run ahead of the others by
 * less than one quantum). A halted (WFI) or powered-off core consumes no
 * host time, and when every core is idle the engine jumps to the next
 * event. Nothing here reads host time.
 *
 * Cross-core causality (VT_CAUSAL, the default): the core that runs later
 * in a window starts at the window's start, behind the one that ran first.
 * An effect the running core has on a core whose clock is behind (an SGI,
 * an interrupt line, the event that ends a WFE) is not delivered at once:
 * the effect's owner queues it with vt_defer_to_peer, which ends the window
 * at the running core's time, and applies it when every core has reached
 * that time. So a core never sees another's interrupt or wake before the
 * virtual time it was sent. Memory hand-offs: the core that runs later
 * sees every store the first one made in the window, from the window's
 * start. So where the guest synchronises, before an STREX (at its LDREX:
 * a lock taken, an atomic update) and after a DMB or DSB (the release
 * store of spin_unlock, a published pointer), a core running ahead of
 * another running core ends the window (vt_sync_point) before the store:
 * the other core reaches that time without seeing it. A plain store with
 * no barrier before it is not cut (the guest does not synchronise on one).
 * Which core runs first is free: a core that ended two windows in a row
 * at its sync points, and synchronises more densely than the next core,
 * runs second from the next window on, where they cost nothing (no running
 * core is behind it).
 * VT_FIXED_QUANTUM delivers at once (the behind core may act up to a
 * quantum before the cause), for comparison.
 *
 * Ownership: vt_new() allocates the engine, vt_free() frees it. Events
 * are owned by whoever embeds them (usually a device) and must be
 * cancelled before they are freed. */
#ifndef PANLAB_TIME_H
#define PANLAB_TIME_H

#include <stdint.h>
#include "cpu/arm.h"
#include "snapio.h"

#define VT_NS_PER_S 1000000000ull
/* The longest run, --max-virtual-s's largest value (11.6 days): no run
 * reaches a later virtual time, so a snapshot saved later is refused. */
#define VT_MAX_S 1000000ull

typedef struct vt_engine vt_engine;

typedef void vt_event_fn(void *opaque);

/* A one-shot event; re-arm it from its callback for periodic work. Ties
 * at one time fire in the order they were scheduled. */
typedef struct vt_event {
    uint64_t at_ns;
    uint64_t seq;
    vt_event_fn *fn;
    void *opaque;
    int heap_index;             /* -1 when not queued */
} vt_event;

void vt_event_init(vt_event *e, vt_event_fn *fn, void *opaque);
/* Queues e at at_ns (now, if at_ns is in the past); moves it if queued. */
void vt_schedule(vt_engine *t, vt_event *e, uint64_t at_ns);
void vt_cancel(vt_engine *t, vt_event *e);
int vt_event_pending(const vt_event *e);

enum vt_quantum_policy {
    VT_CAUSAL = 0,              /* cross-core effects wait for the sender's time */
    VT_FIXED_QUANTUM = 1,       /* cores meet only at window ends */
};

/* sys may be NULL (unit tests drive events only). */
vt_engine *vt_new(arm_sys *sys, uint64_t cpu_hz, uint64_t counter_hz,
                  uint64_t quantum_ns);
void vt_set_quantum_policy(vt_engine *t, enum vt_quantum_policy p);

/* For an effect of the running core on core `target`: with VT_CAUSAL and
 * target's clock behind the running core's, queues e at the running
 * core's time (ending the window there) and returns 1; the caller applies
 * the effect from e's callback. Otherwise returns 0: apply it now. */
int vt_defer_to_peer(vt_engine *t, int target, vt_event *e);
/* SEV by the running core (ARM ARM A8.8.168): the other cores' event
 * registers are set, and a core halted in WFE wakes, at its time. */
void vt_send_event(vt_engine *t, int from_core);
/* The running core is about to make a store other cores synchronise on
 * (after an LDREX or a DMB/DSB; arm_hooks.sync_point): with VT_CAUSAL and
 * another core still running behind it, the window ends here, so that core
 * cannot see the store before its time. */
void vt_sync_point(vt_engine *t);
/* Windows the causal policy ended early, for the bench. */
uint64_t vt_cross_core_cuts(const vt_engine *t);
void vt_free(vt_engine *t);

/* The time of the code that is running: inside a core's run, that core's
 * position to the cycle; between windows, the global time. */
uint64_t vt_now_ns(const vt_engine *t);
/* The core inside arm_run, or 0 between runs (the engine and devices act
 * as core 0 then). */
int vt_current_core(const vt_engine *t);
/* The generic-timer count at vt_now_ns(). */
uint64_t vt_counter(vt_engine *t);
uint64_t vt_counter_hz(const vt_engine *t);
/* First engine ns at which the counter reaches ticks. */
uint64_t vt_counter_to_ns(const vt_engine *t, uint64_t ticks);

/* The shared CPU clock domain, for DVFS: takes effect at once, also when
 * called by a device from inside a core's run. */
void vt_set_cpu_hz(vt_engine *t, uint64_t cpu_hz);
uint64_t vt_cpu_hz(const vt_engine *t);
/* The core inside arm_run spends ns more, whatever the CPU frequency (a
 * DVFS transition in firmware, an uncached device access on the bus): its
 * clock moves on, busy, and its run ends at this instruction. Does nothing
 * between runs. */
void vt_stall(vt_engine *t, uint64_t ns);
int vt_ncores(const vt_engine *t);

/* Runs until virtual time until_ns or vt_stop(). Returns the time reached. */
uint64_t vt_run(vt_engine *t, uint64_t until_ns);
/* Makes vt_run return after the current instruction. */
void vt_stop(vt_engine *t);

/* A core powered on now (PSCI CPU_ON) starts at vt_now_ns(), not at the
 * start of the window it was powered on in. */
void vt_core_online(vt_engine *t, int core);

/* Debugging: with a hook, cores run one instruction at a time and the
 * hook is called after each with the core's index; a nonzero return
 * stops vt_run there. NULL removes it. */
typedef int vt_step_hook(void *opaque, int core);
void vt_set_step_hook(vt_engine *t, vt_step_hook *hook, void *opaque);
/* Clears a stop so vt_run can go on. */
void vt_resume(vt_engine *t);

/* Snapshots (snapio.h), between vt_run calls only. vt_save writes the
 * clocks (global, per core, CPU frequency) and the tie-break counter;
 * each event is saved by its owner with vt_event_save, so a restored
 * queue holds the same events at the same (time, order). The loads return
 * 0, or -1 with the error recorded in r; vt_load keeps the quantum given
 * at save time. */
void vt_save(const vt_engine *t, snap_w *w);
int vt_load(vt_engine *t, snap_r *r);
void vt_event_save(const vt_event *e, snap_w *w);
int vt_event_load(vt_engine *t, vt_event *e, snap_r *r);

/* Per-core virtual ns spent running (not halted, not off), for tests and
 * the parallel-core ratio. */
uint64_t vt_busy_ns(const vt_engine *t, int core);

#endif
