/* Generic timer interrupt lines, ARM ARM B8.1.5: a timer asserts its
 * interrupt while enabled, unmasked and CompareValue <= counter. */
#include <stdio.h>
#include <stdlib.h>
#include "timer.h"
#include "panlab/error.h"

typedef struct timer_slot {
    arch_timer *owner;
    int cpu, which;
    irq_line line;
    vt_event ev;
} timer_slot;

struct arch_timer {
    vt_engine *t;
    arm_sys *sys;
    int ncpus;
    timer_slot slot[ARCH_TIMER_MAX_CPUS][2];
};

static void update(timer_slot *s)
{
    arch_timer *a = s->owner;
    arm_cpu *c = arm_sys_cpu(a->sys, s->cpu);
    int level = arm_timer_irq_level(c, s->which);
    irq_set(&s->line, level);
    uint64_t cval = arm_timer_deadline(c, s->which);
    if (level || cval == UINT64_MAX) {
        vt_cancel(a->t, &s->ev);
        return;
    }
    uint64_t at = vt_counter_to_ns(a->t, cval);
    if (at == UINT64_MAX)
        vt_cancel(a->t, &s->ev);
    else
        vt_schedule(a->t, &s->ev, at);
}

static void fire(void *opaque)
{
    update(opaque);
}

arch_timer *arch_timer_new(vt_engine *t, arm_sys *sys,
                           const irq_line (*lines)[2])
{
    arch_timer *a = pl_xcalloc(1, sizeof(*a));
    a->t = t;
    a->sys = sys;
    a->ncpus = arm_sys_ncores(sys);
    for (int c = 0; c < a->ncpus && c < ARCH_TIMER_MAX_CPUS; c++)
        for (int w = 0; w < 2; w++) {
            timer_slot *s = &a->slot[c][w];
            s->owner = a;
            s->cpu = c;
            s->which = w;
            s->line = lines[c][w];
            vt_event_init(&s->ev, fire, s);
        }
    return a;
}

void arch_timer_free(arch_timer *a)
{
    if (!a)
        return;
    for (int c = 0; c < a->ncpus; c++)
        for (int w = 0; w < 2; w++)
            vt_cancel(a->t, &a->slot[c][w].ev);
    free(a);
}

void arch_timer_changed(arch_timer *a, int cpu, int which)
{
    update(&a->slot[cpu][which]);
}

void arch_timer_save(const arch_timer *a, snap_w *w)
{
    for (int c = 0; c < a->ncpus; c++)
        for (int k = 0; k < 2; k++)
            vt_event_save(&a->slot[c][k].ev, w);
}

int arch_timer_load(arch_timer *a, snap_r *r)
{
    for (int c = 0; c < a->ncpus; c++)
        for (int k = 0; k < 2; k++)
            if (vt_event_load(a->t, &a->slot[c][k].ev, r) < 0)
                return -1;
    return 0;
}
