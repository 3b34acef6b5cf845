/* An interrupt line between a device and an interrupt controller (or
 * between the controller and a core): the only way devices signal.
 * Lines are level-sensitive; set_level may be called with an unchanged
 * level. The struct is a value; whoever fills it keeps opaque alive. */
#ifndef PANLAB_DEV_IRQ_H
#define PANLAB_DEV_IRQ_H

typedef struct irq_line {
    void (*set_level)(void *opaque, int n, int level);
    void *opaque;
    int n;
} irq_line;

static inline void irq_set(const irq_line *l, int level)
{
    if (l->set_level)
        l->set_level(l->opaque, l->n, level);
}

/* Which core is making the current MMIO access, for banked registers. */
typedef struct cpu_id_fn {
    int (*current)(void *opaque);
    void *opaque;
} cpu_id_fn;

#endif
