/* GICv2 distributor and CPU interfaces (ARM IHI 0048B). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gic.h"
#include "../snapio.h"
#include "../time.h"
#include "panlab/error.h"

#define NSPI (GIC_NR_IRQS - 32)
#define SPURIOUS 1023u
#define IDLE_PRIO 0x100u

typedef struct gic_irq {
    uint8_t enabled;
    uint8_t pending;            /* latched: edge seen or set by software */
    uint8_t active;
    uint8_t level;              /* input line */
    uint8_t edge;               /* GICD_ICFGR: 1 = edge-triggered */
    uint8_t prio;
    uint8_t target;             /* SPIs: GICD_ITARGETSR cpu mask */
    uint8_t sgi_src;            /* SGIs: mask of cores that sent it */
    uint8_t active_cpu;         /* SPIs: the core that acknowledged it */
} gic_irq;

typedef struct gic_port {
    struct gic *g;
    int is_cpu;
} gic_port;

/* SGIs sent to a core whose clock is behind the sender's, delivered when it
 * reaches the sender's time (time.h, "Cross-core causality"). */
typedef struct gic_sgi_delay {
    struct gic *g;
    int cpu;
    vt_event ev;
    uint8_t src[16];            /* per SGI ID: the senders' mask */
} gic_sgi_delay;

struct gic {
    int ncpus;
    gic_port port[2];           /* distributor, CPU interface */
    irq_line out[GIC_MAX_CPUS];
    int out_level[GIC_MAX_CPUS];
    cpu_id_fn who;
    uint32_t dist_ctlr;
    uint32_t group[GIC_NR_IRQS / 32];
    uint32_t cpu_ctlr[GIC_MAX_CPUS], pmr[GIC_MAX_CPUS], bpr[GIC_MAX_CPUS];
    gic_irq banked[GIC_MAX_CPUS][32];
    gic_irq spi[NSPI];
    vt_engine *vt;              /* NULL: SGIs are delivered at once */
    gic_sgi_delay delay[GIC_MAX_CPUS];
};

static gic_irq *irq_of(gic *g, int cpu, int id)
{
    return id < 32 ? &g->banked[cpu][id] : &g->spi[id - 32];
}

/* Level-sensitive interrupts are pending while their line is high
 * (GICv2 arch spec §3.2.4). */
static int is_pending(const gic_irq *s)
{
    return s->pending || s->sgi_src || (!s->edge && s->level);
}

static uint32_t running_prio(gic *g, int cpu)
{
    uint32_t best = IDLE_PRIO;
    for (int id = 0; id < GIC_NR_IRQS; id++) {
        gic_irq *s = irq_of(g, cpu, id);
        if (s->active && (id < 32 || s->active_cpu == cpu) && s->prio < best)
            best = s->prio;
    }
    return best;
}

/* Highest-priority pending interrupt a core may take, or SPURIOUS. */
static uint32_t best_pending(gic *g, int cpu, uint32_t *prio)
{
    uint32_t best = SPURIOUS, bp = IDLE_PRIO;
    for (int id = 0; id < GIC_NR_IRQS; id++) {
        gic_irq *s = irq_of(g, cpu, id);
        if (!s->enabled || s->active || !is_pending(s))
            continue;
        if (id >= 32 && !(s->target & (1u << cpu)))
            continue;
        if (s->prio < bp) {
            bp = s->prio;
            best = (uint32_t)id;
        }
    }
    *prio = bp;
    return best;
}

/* Preemption compares group priorities, split by GICC_BPR (§3.3.3). */
static int signalled(gic *g, int cpu, uint32_t *id_out)
{
    uint32_t prio, id = best_pending(g, cpu, &prio);
    *id_out = id;
    if (id == SPURIOUS || prio >= g->pmr[cpu])
        return 0;
    uint32_t mask = (0xffu << (g->bpr[cpu] + 1)) & 0xffu;
    uint32_t run = running_prio(g, cpu);
    return run == IDLE_PRIO || (prio & mask) < (run & mask);
}

static void update(gic *g)
{
    for (int c = 0; c < g->ncpus; c++) {
        uint32_t id;
        int level = (g->dist_ctlr & 1) && (g->cpu_ctlr[c] & 1) &&
                    signalled(g, c, &id);
        if (level != g->out_level[c]) {
            g->out_level[c] = level;
            irq_set(&g->out[c], level);
        }
    }
}

static void set_input(void *opaque, int n, int level)
{
    gic *g = opaque;
    int cpu = n >> 8, id = n & 0xff;
    gic_irq *s = irq_of(g, cpu, id);
    if (s->edge && level && !s->level)
        s->pending = 1;
    s->level = (uint8_t)(level != 0);
    update(g);
}

irq_line gic_spi_line(gic *g, int spi)
{
    irq_line l = { set_input, g, 32 + spi };
    return l;
}

irq_line gic_ppi_line(gic *g, int cpu, int ppi)
{
    irq_line l = { set_input, g, cpu << 8 | (16 + ppi) };
    return l;
}

gic *gic_new(int ncpus, const irq_line *cpu_irq, cpu_id_fn who,
             struct pl_error *err)
{
    if (ncpus < 1 || ncpus > GIC_MAX_CPUS) {
        pl_error_set(err, "gic: %d cpus, expected 1..%d", ncpus, GIC_MAX_CPUS);
        return NULL;
    }
    gic *g = pl_xcalloc(1, sizeof(*g));
    g->ncpus = ncpus;
    g->who = who;
    for (int c = 0; c < ncpus; c++) {
        g->out[c] = cpu_irq[c];
        for (int id = 0; id < 16; id++)
            g->banked[c][id].edge = 1;      /* SGIs are edge (§4.3.13) */
    }
    return g;
}

static void deliver_sgis(void *opaque)
{
    gic_sgi_delay *d = opaque;
    for (int id = 0; id < 16; id++) {
        d->g->banked[d->cpu][id].sgi_src |= d->src[id];
        d->src[id] = 0;
    }
    update(d->g);
}

void gic_set_clock(gic *g, vt_engine *vt)
{
    g->vt = vt;
    for (int c = 0; c < g->ncpus; c++) {
        g->delay[c] = (gic_sgi_delay){ .g = g, .cpu = c };
        vt_event_init(&g->delay[c].ev, deliver_sgis, &g->delay[c]);
    }
}

void gic_free(gic *g)
{
    if (g && g->vt)
        for (int c = 0; c < g->ncpus; c++)
            vt_cancel(g->vt, &g->delay[c].ev);
    free(g);
}

/* ---- distributor, GICv2 arch spec §4.3 ---- */

/* Set/clear-enable, set/clear-pending, set/clear-active: one bit per ID. */
static uint32_t bits_read(gic *g, int cpu, int base_id, int field)
{
    uint32_t v = 0;
    for (int i = 0; i < 32 && base_id + i < GIC_NR_IRQS; i++) {
        gic_irq *s = irq_of(g, cpu, base_id + i);
        int b = field == 0 ? s->enabled : field == 1 ? is_pending(s)
                                                     : s->active;
        v |= (uint32_t)b << i;
    }
    return v;
}

static void bits_write(gic *g, int cpu, int base_id, int field, int set,
                       uint32_t val)
{
    for (int i = 0; i < 32 && base_id + i < GIC_NR_IRQS; i++) {
        if (!(val >> i & 1))
            continue;
        int id = base_id + i;
        gic_irq *s = irq_of(g, cpu, id);
        if (field == 0) {
            s->enabled = (uint8_t)set;
        } else if (field == 1) {
            if (id < 16)
                continue;           /* SGIs use GICD_[S|C]PENDSGIR */
            s->pending = (uint8_t)set;
        } else {
            s->active = (uint8_t)set;
            s->active_cpu = (uint8_t)cpu;
        }
    }
}

static void send_sgi(gic *g, int src, uint32_t val)
{
    int id = val & 15;
    uint32_t targets;
    switch (val >> 24 & 3) {
    case 0: targets = val >> 16 & 0xff; break;
    case 1: targets = ((1u << g->ncpus) - 1) & ~(1u << src); break;
    case 2: targets = 1u << src; break;
    default: return;
    }
    for (int c = 0; c < g->ncpus; c++) {
        if (!(targets & (1u << c)))
            continue;
        if (g->vt && vt_defer_to_peer(g->vt, c, &g->delay[c].ev))
            g->delay[c].src[id] |= (uint8_t)(1u << src);
        else
            g->banked[c][id].sgi_src |= (uint8_t)(1u << src);
    }
}

uint32_t gic_dist_read(gic *g, int cpu, uint32_t off)
{
    if (off == 0x000)
        return g->dist_ctlr;
    if (off == 0x004)           /* TYPER: ITLinesNumber, CPUNumber */
        return (GIC_NR_IRQS / 32 - 1) | (uint32_t)(g->ncpus - 1) << 5;
    if (off == 0x008)           /* IIDR: ARM, GICv2 */
        return 0x0200043b;
    if (off >= 0x080 && off < 0x080 + GIC_NR_IRQS / 8)
        return g->group[(off - 0x080) / 4];
    if (off >= 0x100 && off < 0x400) {
        int field = (int)(off - 0x100) / 0x100;
        int base = (int)((off & 0x7f) * 8);
        return bits_read(g, cpu, base, field);
    }
    if (off >= 0x400 && off < 0x400 + GIC_NR_IRQS) {
        uint32_t v = 0;
        for (int i = 0; i < 4; i++)
            v |= (uint32_t)irq_of(g, cpu, (int)(off - 0x400) + i)->prio << 8 * i;
        return v;
    }
    if (off >= 0x800 && off < 0x800 + GIC_NR_IRQS) {
        uint32_t v = 0;
        for (int i = 0; i < 4; i++) {
            int id = (int)(off - 0x800) + i;
            uint32_t t = id < 32 ? 1u << cpu : g->spi[id - 32].target;
            v |= t << 8 * i;
        }
        return v;
    }
    if (off >= 0xc00 && off < 0xc00 + GIC_NR_IRQS / 4) {
        uint32_t v = 0;
        for (int i = 0; i < 16; i++)
            v |= (uint32_t)irq_of(g, cpu, (int)(off - 0xc00) * 4 + i)->edge
                 << (2 * i + 1);
        return v;
    }
    if (off >= 0xf10 && off < 0xf30) {  /* [C|S]PENDSGIR, §4.3.16 */
        uint32_t v = 0;
        for (int i = 0; i < 4; i++)
            v |= (uint32_t)g->banked[cpu][(off & 0xc) + i].sgi_src << 8 * i;
        return v;
    }
    if (off == 0xfe8)           /* ICPIDR2: ArchRev 2 */
        return 0x2b;
    return 0;
}

void gic_dist_write(gic *g, int cpu, uint32_t off, uint32_t val)
{
    if (off == 0x000) {
        g->dist_ctlr = val & 3;
    } else if (off >= 0x080 && off < 0x080 + GIC_NR_IRQS / 8) {
        g->group[(off - 0x080) / 4] = val;
    } else if (off >= 0x100 && off < 0x400) {
        int field = (int)(off - 0x100) / 0x100;
        int set = !((off - 0x100) & 0x80);
        bits_write(g, cpu, (int)((off & 0x7f) * 8), field, set, val);
    } else if (off >= 0x400 && off < 0x400 + GIC_NR_IRQS) {
        for (int i = 0; i < 4; i++)
            irq_of(g, cpu, (int)(off - 0x400) + i)->prio = (uint8_t)(val >> 8 * i);
    } else if (off >= 0x820 && off < 0x800 + GIC_NR_IRQS) {
        for (int i = 0; i < 4; i++)
            g->spi[off - 0x820 + (uint32_t)i].target = (uint8_t)(val >> 8 * i);
    } else if (off >= 0xc04 && off < 0xc00 + GIC_NR_IRQS / 4) {
        /* SGIs stay edge-triggered; PPIs and SPIs follow Int_config. */
        for (int i = 0; i < 16; i++)
            irq_of(g, cpu, (int)(off - 0xc00) * 4 + i)->edge =
                (uint8_t)(val >> (2 * i + 1) & 1);
    } else if (off == 0xf00) {
        send_sgi(g, cpu, val);
    } else if (off >= 0xf10 && off < 0xf30) {
        for (int i = 0; i < 4; i++) {
            gic_irq *s = &g->banked[cpu][(off & 0xc) + (uint32_t)i];
            uint8_t m = (uint8_t)(val >> 8 * i);
            s->sgi_src = off < 0xf20 ? s->sgi_src & (uint8_t)~m : s->sgi_src | m;
        }
    }
    update(g);
}

/* ---- CPU interface, GICv2 arch spec §4.4 ---- */

static uint32_t acknowledge(gic *g, int cpu)
{
    uint32_t id;
    if (!(g->cpu_ctlr[cpu] & 1) || !signalled(g, cpu, &id))
        return SPURIOUS;
    gic_irq *s = irq_of(g, cpu, (int)id);
    uint32_t ret = id;
    if (id < 16) {
        int src = __builtin_ctz(s->sgi_src);
        s->sgi_src &= (uint8_t)~(1u << src);
        ret |= (uint32_t)src << 10;
    }
    s->pending = 0;
    s->active = 1;
    s->active_cpu = (uint8_t)cpu;
    update(g);
    return ret;
}

static void deactivate(gic *g, int cpu, uint32_t val)
{
    uint32_t id = val & 0x3ff;
    if (id >= GIC_NR_IRQS)
        return;
    irq_of(g, cpu, (int)id)->active = 0;
    update(g);
}

uint32_t gic_cpu_read(gic *g, int cpu, uint32_t off)
{
    uint32_t id, prio;
    switch (off) {
    case 0x00: return g->cpu_ctlr[cpu];
    case 0x04: return g->pmr[cpu];
    case 0x08: return g->bpr[cpu];
    case 0x0c: return acknowledge(g, cpu);
    case 0x14: {
        uint32_t r = running_prio(g, cpu);
        return r == IDLE_PRIO ? 0xff : r;
    }
    case 0x18:
        id = best_pending(g, cpu, &prio);
        if (id < 16)
            id |= (uint32_t)__builtin_ctz(irq_of(g, cpu, (int)id)->sgi_src) << 10;
        return id;
    case 0xfc: return 0x0202043b;   /* GICC_IIDR: ARM, GICv2 */
    default: return 0;
    }
}

void gic_cpu_write(gic *g, int cpu, uint32_t off, uint32_t val)
{
    switch (off) {
    case 0x00: g->cpu_ctlr[cpu] = val & 0x3ff; break;
    case 0x04: g->pmr[cpu] = val & 0xff; break;
    case 0x08: g->bpr[cpu] = val & 7; break;
    case 0x10:
    case 0x1000: deactivate(g, cpu, val); return;
    default: return;
    }
    update(g);
}

/* ---- memory map glue: sub-word accesses act on the aligned word ---- */

static uint32_t mmio_read(void *opaque, uint32_t off, int size_log2)
{
    gic_port *p = opaque;
    int cpu = p->g->who.current(p->g->who.opaque);
    uint32_t w = off & ~3u, shift = (off & 3) * 8;
    uint32_t v = p->is_cpu ? gic_cpu_read(p->g, cpu, w)
                           : gic_dist_read(p->g, cpu, w);
    v >>= shift;
    return size_log2 == 2 ? v : v & ((1u << (8 << size_log2)) - 1);
}

static void mmio_write(void *opaque, uint32_t off, uint32_t val, int size_log2)
{
    gic_port *p = opaque;
    gic *g = p->g;
    int cpu = g->who.current(g->who.opaque);
    uint32_t w = off & ~3u, shift = (off & 3) * 8;
    if (p->is_cpu) {
        gic_cpu_write(g, cpu, w, val);
        return;
    }
    if (size_log2 < 2) {
        /* Byte-wide registers (priority, targets) keep their other
         * bytes; bit registers are write-1-to-act, so zeros are harmless. */
        uint32_t m = ((1u << (8 << size_log2)) - 1) << shift;
        if ((w >= 0x400 && w < 0xd00) || (w >= 0xf10 && w < 0xf30))
            val = (gic_dist_read(g, cpu, w) & ~m) | (val << shift & m);
        else
            val = val << shift & m;
    }
    gic_dist_write(g, cpu, w, val);
}

void gic_register(gic *g, phys_map *m, uint32_t dist_addr, uint32_t cpu_addr)
{
    gic_port *d = &g->port[0], *c = &g->port[1];
    d->g = g;
    c->g = g;
    c->is_cpu = 1;
    phys_register_device(m, dist_addr, GIC_DIST_SIZE, d, mmio_read, mmio_write);
    phys_register_device(m, cpu_addr, GIC_CPU_SIZE, c, mmio_read, mmio_write);
}

/* ---- snapshots ---- */

#define GIC_IRQ_FIELDS(X) \
    X(enabled) X(pending) X(active) X(level) X(edge) X(prio) X(target) \
    X(sgi_src) X(active_cpu)

static void irq_save(const gic_irq *s, snap_w *w)
{
#define PUT(f) snap_put_u8(w, s->f);
    GIC_IRQ_FIELDS(PUT)
#undef PUT
}

static void irq_load(gic_irq *s, snap_r *r)
{
#define GET(f) s->f = snap_get_u8(r);
    GIC_IRQ_FIELDS(GET)
#undef GET
}

void gic_save(const gic *g, snap_w *w)
{
    snap_put_u32(w, (uint32_t)g->ncpus);
    snap_put_u32(w, g->dist_ctlr);
    for (int i = 0; i < GIC_NR_IRQS / 32; i++)
        snap_put_u32(w, g->group[i]);
    for (int c = 0; c < g->ncpus; c++) {
        snap_put_u32(w, (uint32_t)g->out_level[c]);
        snap_put_u32(w, g->cpu_ctlr[c]);
        snap_put_u32(w, g->pmr[c]);
        snap_put_u32(w, g->bpr[c]);
        for (int i = 0; i < 32; i++)
            irq_save(&g->banked[c][i], w);
    }
    for (int i = 0; i < NSPI; i++)
        irq_save(&g->spi[i], w);
    for (int c = 0; c < g->ncpus; c++) {
        snap_put_bytes(w, g->delay[c].src, sizeof(g->delay[c].src));
        if (g->vt)
            vt_event_save(&g->delay[c].ev, w);
    }
}

/* The cores' IRQ inputs are restored with the cores, so the output
 * levels are taken as saved, not re-signalled. */
int gic_load(gic *g, snap_r *r)
{
    uint32_t n = snap_get_u32(r);
    if (!snap_r_failed(r) && n != (uint32_t)g->ncpus)
        return snap_r_fail(r, "GIC with %u cores, this machine has %d", n,
                           g->ncpus);
    g->dist_ctlr = snap_get_u32(r);
    for (int i = 0; i < GIC_NR_IRQS / 32; i++)
        g->group[i] = snap_get_u32(r);
    for (int c = 0; c < g->ncpus; c++) {
        g->out_level[c] = (int)snap_get_u32_max(r, 1, "GIC output level");
        g->cpu_ctlr[c] = snap_get_u32(r);
        g->pmr[c] = snap_get_u32(r);
        g->bpr[c] = snap_get_u32(r);
        for (int i = 0; i < 32; i++)
            irq_load(&g->banked[c][i], r);
    }
    for (int i = 0; i < NSPI; i++)
        irq_load(&g->spi[i], r);
    for (int c = 0; c < g->ncpus; c++) {
        snap_get_bytes(r, g->delay[c].src, sizeof(g->delay[c].src));
        if (g->vt && vt_event_load(g->vt, &g->delay[c].ev, r) < 0)
            return -1;
    }
    return snap_r_failed(r) ? -1 : 0;
}
