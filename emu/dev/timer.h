/* Glue between each core's generic timers (ARM ARM B8, implemented in
 * emu/cpu) and the GIC: keeps each timer's interrupt line at the level the
 * architecture defines, with an engine event at the next compare value.
 * The counter is the engine's fixed-frequency clock (time.h).
 *
 * Ownership: arch_timer_new() allocates, arch_timer_free() cancels the
 * events and frees. The engine and cluster must outlive it. */
#ifndef PANLAB_DEV_TIMER_H
#define PANLAB_DEV_TIMER_H

#include "../time.h"
#include "irq.h"

#define ARCH_TIMER_MAX_CPUS 8

typedef struct arch_timer arch_timer;

/* lines[cpu][ARM_TIMER_PHYS or ARM_TIMER_VIRT] */
arch_timer *arch_timer_new(vt_engine *t, arm_sys *sys,
                           const irq_line (*lines)[2]);
void arch_timer_free(arch_timer *a);
/* The CPU's timer_changed hook. */
void arch_timer_changed(arch_timer *a, int cpu, int which);
/* Snapshots: the compare-value events (the timer registers are the
 * cores'). Load returns 0, or -1 with the error in r. */
void arch_timer_save(const arch_timer *a, snap_w *w);
int arch_timer_load(arch_timer *a, snap_r *r);

#endif
