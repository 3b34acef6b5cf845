/* CP15 system control and CP14 debug registers as Linux 6.1 uses them.
 * The core presents itself as a Cortex-A15 r4p0 without VFP/NEON
 * (ARM ARM B4.1 for the registers, B8 for the generic timer, C12 for the
 * PMU). Cache and branch-predictor maintenance are no-ops: this model has
 * no caches, which ARM ARM B2.2 allows the operations to reflect. */
#include "arm_int.h"

#define KEY(opc1, crn, crm, opc2) ((opc1) << 12 | (crn) << 8 | (crm) << 4 | (opc2))

/* Cortex-A15 r4p0 identification (as QEMU 7.2 reports it), with the
 * floating-point and Advanced SIMD fields of the ID registers cleared and
 * no Security or Virtualization Extensions (like QEMU's virt machine
 * without EL2/EL3). */
/* clang-format off */
static const struct { uint32_t key, val; } id_regs[] = {
    { KEY(0, 0, 0, 0), 0x414fc0f0 },    /* MIDR */
    { KEY(0, 0, 0, 1), 0x8444c004 },    /* CTR */
    { KEY(0, 0, 0, 2), 0 },             /* TCMTR */
    { KEY(0, 0, 0, 3), 0 },             /* TLBTR */
    { KEY(0, 0, 0, 6), 0x414fc0f0 },    /* REVIDR: QEMU returns MIDR */
    { KEY(0, 0, 1, 0), 0x00001131 },    /* ID_PFR0 */
    { KEY(0, 0, 1, 1), 0x00010001 },    /* ID_PFR1: generic timer */
    { KEY(0, 0, 1, 2), 0x02010505 },    /* ID_DFR0 */
    { KEY(0, 0, 1, 3), 0 },             /* ID_AFR0 */
    { KEY(0, 0, 1, 4), 0x10201105 },    /* ID_MMFR0 as QEMU (VMSA 5: LPAE) */
    { KEY(0, 0, 1, 5), 0x20000000 },    /* ID_MMFR1 */
    { KEY(0, 0, 1, 6), 0x01240000 },    /* ID_MMFR2 */
    { KEY(0, 0, 1, 7), 0x02102211 },    /* ID_MMFR3 */
    { KEY(0, 0, 2, 0), 0x02101110 },    /* ID_ISAR0: SDIV/UDIV in ARM */
    { KEY(0, 0, 2, 1), 0x13112111 },    /* ID_ISAR1 */
    { KEY(0, 0, 2, 2), 0x21232041 },    /* ID_ISAR2 */
    { KEY(0, 0, 2, 3), 0x11112131 },    /* ID_ISAR3 */
    { KEY(0, 0, 2, 4), 0x10011142 },    /* ID_ISAR4 */
    { KEY(0, 0, 2, 5), 0 },             /* ID_ISAR5 */
    { KEY(1, 0, 0, 1), 0x0a200023 },    /* CLIDR: L1 I+D, L2 unified */
    { KEY(1, 0, 0, 7), 0 },             /* AIDR */
    { KEY(0, 5, 1, 0), 0 },             /* ADFSR */
    { KEY(0, 5, 1, 1), 0 },             /* AIFSR */
    { KEY(0, 13, 0, 0), 0 },            /* FCSEIDR: FCSE not implemented */
};
/* clang-format on */

void cp15_reset(arm_cpu *c)
{
    cp15_state *cp = &c->cp15;
    uint32_t frq = cp->cntfrq;
    memset(cp, 0, sizeof(*cp));
    cp->cntfrq = frq;
    cp->sctlr = 0x00c50078;
    pmu_reset(c);
    c->asid = 0;
    tlb_flush(c);
}

static int64_t cnt_now(arm_cpu *c)
{
    const arm_hooks *h = &c->sys->hooks;
    return h->counter ? (int64_t)h->counter(h->opaque, c) : 0;
}

static void timer_changed(arm_cpu *c, int which)
{
    const arm_hooks *h = &c->sys->hooks;
    if (h->timer_changed)
        h->timer_changed(h->opaque, c, which);
}

/* CNTx_CTL with ISTATUS (bit 2) computed, ARM ARM B8.1.5. */
static uint32_t timer_ctl(arm_cpu *c, int w)
{
    uint32_t ctl = c->cp15.cnt_ctl[w] & 3;
    if ((ctl & 1) && (uint64_t)cnt_now(c) >= c->cp15.cnt_cval[w])
        ctl |= 4;
    return ctl;
}

int arm_timer_irq_level(arm_cpu *c, int which)
{
    return (timer_ctl(c, which) & 6) == 4;
}

uint64_t arm_timer_deadline(const arm_cpu *c, int which)
{
    uint32_t ctl = c->cp15.cnt_ctl[which];
    return (ctl & 3) == 1 ? c->cp15.cnt_cval[which] : UINT64_MAX;
}

/* PL0 access rules for the registers user code may touch. */
static int pl0_ok(arm_cpu *c, uint32_t key, int write)
{
    const cp15_state *cp = &c->cp15;
    switch (key) {
    case KEY(0, 13, 0, 2): return 1;                /* TPIDRURW */
    case KEY(0, 13, 0, 3): return !write;           /* TPIDRURO */
    case KEY(0, 7, 5, 4): case KEY(0, 7, 10, 4): case KEY(0, 7, 10, 5):
        return write;                               /* CP15ISB/DSB/DMB */
    case KEY(0, 14, 0, 0):
        return !write && (cp->cntkctl & 3);         /* CNTFRQ */
    case KEY(0, 14, 2, 0): case KEY(0, 14, 2, 1):
        return (cp->cntkctl >> 9) & 1;              /* CNTP_* */
    case KEY(0, 14, 3, 0): case KEY(0, 14, 3, 1):
        return (cp->cntkctl >> 8) & 1;              /* CNTV_* */
    }
    /* PMU, ARM ARM B4.1.127: PMUSERENR is read-only at PL0, PMINTENSET
     * and PMINTENCLR are PL1 only, the rest follows PMUSERENR.EN. */
    if ((key >> 8) == KEY(0, 9, 0, 0) >> 8 && (key & 0xf0) >= 0xc0) {
        if (key == KEY(0, 9, 14, 0))
            return !write;
        if (key == KEY(0, 9, 14, 1) || key == KEY(0, 9, 14, 2))
            return 0;
        return c->pmu.userenr & 1;
    }
    return 0;
}

static uint32_t ccsidr(const cp15_state *cp)
{
    switch (cp->csselr & 0xf) {
    case 0: return 0x701fe00a;      /* L1 D: 32 KiB, 2-way, 64 B lines */
    case 1: return 0x201fe00a;      /* L1 I */
    case 2: return 0x711fe07a;      /* L2: 1 MiB */
    default: return 0;
    }
}

static uint32_t ats(arm_cpu *c, uint32_t va, int op)
{
    /* ATS1CPR/CPW/CUR/CUW, ARM ARM B4.2.6; PAR as QEMU writes it (NS set:
     * no Security Extensions). */
    uint32_t pa;
    int acc = (op & 1) ? ACC_WRITE : ACC_READ;
    tlb_entry n;
    uint32_t fsr = mmu_translate(c, va, acc, op < 2, &pa, &n);
    if (!fsr) {
        if (n.region_mask == 0xff000000u)
            return (pa & 0xff000000u) | 2 | 1u << 9;
        return (pa & 0xfffff000u) | 1u << 9;
    }
    return ((fsr & (1u << 10)) >> 5) | ((fsr & (1u << 12)) >> 6) |
           ((fsr & 0xf) << 1) | 1;
}

static void each_core(arm_cpu *c, int bcast, void (*fn)(arm_cpu *, uint32_t),
                      uint32_t arg)
{
    if (!bcast) {
        fn(c, arg);
        return;
    }
    for (int i = 0; i < c->sys->ncores; i++)
        fn(c->sys->cpu[i], arg);
}

static void tlbi_all(arm_cpu *c, uint32_t v)
{
    (void)v;
    tlb_flush(c);
}

static void tlbi_mva(arm_cpu *c, uint32_t v)
{
    tlb_flush_mva(c, v, 0);
}

static void tlbi_mvaa(arm_cpu *c, uint32_t v)
{
    tlb_flush_mva(c, v, 1);
}

static void tlbi_asid(arm_cpu *c, uint32_t v)
{
    tlb_flush_asid(c, v);
}

/* TLB maintenance, ARM ARM B4.2.3: c8 c3 is the Inner Shareable
 * broadcast; c5, c6 and c7 act on this core. */
static int tlb_op(arm_cpu *c, int crm, int opc2, uint32_t v)
{
    if (crm != 3 && crm != 5 && crm != 6 && crm != 7)
        return 1;
    int bc = crm == 3;
    switch (opc2) {
    case 0: each_core(c, bc, tlbi_all, v); return 0;
    case 1: each_core(c, bc, tlbi_mva, v); return 0;
    case 2: each_core(c, bc, tlbi_asid, v); return 0;
    case 3: each_core(c, bc, tlbi_mvaa, v); return 0;
    default: return 1;
    }
}

/* One line per register, as the ARM ARM lists them. */
/* clang-format off */
static int cp15_read(arm_cpu *c, uint32_t key, uint32_t *v)
{
    cp15_state *cp = &c->cp15;
    for (size_t i = 0; i < sizeof(id_regs) / sizeof(id_regs[0]); i++)
        if (id_regs[i].key == key) {
            *v = id_regs[i].val;
            return 0;
        }
    switch (key) {
    case KEY(0, 0, 0, 5):   /* MPIDR: multiprocessor format, Aff0 = core */
        *v = 0x80000000u | c->index;
        return 0;
    case KEY(1, 0, 0, 0): *v = ccsidr(cp); return 0;
    case KEY(2, 0, 0, 0): *v = cp->csselr; return 0;
    case KEY(0, 1, 0, 0): *v = cp->sctlr; return 0;
    case KEY(0, 1, 0, 1): *v = cp->actlr; return 0;
    case KEY(0, 1, 0, 2): *v = cp->cpacr; return 0;
    case KEY(0, 2, 0, 0): *v = cp->ttbr0; return 0;
    case KEY(0, 2, 0, 1): *v = cp->ttbr1; return 0;
    case KEY(0, 2, 0, 2): *v = cp->ttbcr; return 0;
    case KEY(0, 3, 0, 0): *v = cp->dacr; return 0;
    case KEY(0, 5, 0, 0): *v = cp->dfsr; return 0;
    case KEY(0, 5, 0, 1): *v = cp->ifsr; return 0;
    case KEY(0, 6, 0, 0): *v = cp->dfar; return 0;
    case KEY(0, 6, 0, 2): *v = cp->ifar; return 0;
    case KEY(0, 7, 4, 0): *v = cp->par; return 0;
    case KEY(1, 9, 0, 2):   /* L2CTLR (A15): number of cores - 1 */
        *v = (uint32_t)(c->sys->ncores - 1) << 24;
        return 0;
    case KEY(0, 10, 2, 0): *v = cp->prrr; return 0;
    case KEY(0, 10, 2, 1): *v = cp->nmrr; return 0;
    case KEY(0, 12, 0, 0): *v = cp->vbar; return 0;
    case KEY(0, 12, 1, 0):  /* ISR */
        *v = (c->irq_line ? 1u << 7 : 0) | (c->fiq_line ? 1u << 6 : 0);
        return 0;
    case KEY(0, 13, 0, 1): *v = cp->contextidr; return 0;
    case KEY(0, 13, 0, 2): *v = cp->tpidrurw; return 0;
    case KEY(0, 13, 0, 3): *v = cp->tpidruro; return 0;
    case KEY(0, 13, 0, 4): *v = cp->tpidrprw; return 0;
    case KEY(0, 14, 0, 0): *v = cp->cntfrq; return 0;
    case KEY(0, 14, 1, 0): *v = cp->cntkctl; return 0;
    case KEY(0, 14, 2, 0): case KEY(0, 14, 3, 0): {    /* CNTx_TVAL */
        int w = key == KEY(0, 14, 3, 0);
        *v = (uint32_t)(cp->cnt_cval[w] - (uint64_t)cnt_now(c));
        return 0;
    }
    case KEY(0, 14, 2, 1): *v = timer_ctl(c, 0); return 0;
    case KEY(0, 14, 3, 1): *v = timer_ctl(c, 1); return 0;
    }
    return 1;
}

static int cp15_write(arm_cpu *c, uint32_t key, uint32_t v)
{
    cp15_state *cp = &c->cp15;
    if ((key & 0xff00) == 0x0800 && (key >> 12) == 0)
        return tlb_op(c, (key >> 4) & 0xf, key & 0xf, v);
    switch (key) {
    case KEY(2, 0, 0, 0): cp->csselr = v & 0xf; return 0;
    case KEY(0, 1, 0, 0):
        /* Stored as written, as QEMU does for ARMv7; the TLBs cached the
         * old M/AFE state. */
        cp->sctlr = v;
        tlb_flush(c);
        return 0;
    case KEY(0, 1, 0, 1): cp->actlr = v; return 0;
    case KEY(0, 1, 0, 2): cp->cpacr = v & ~0x00f00000u; return 0;
    case KEY(0, 2, 0, 0): cp->ttbr0 = v; tlb_flush(c); return 0;
    case KEY(0, 2, 0, 1): cp->ttbr1 = v; tlb_flush(c); return 0;
    case KEY(0, 2, 0, 2): cp->ttbcr = v & 0x37; tlb_flush(c); return 0;
    case KEY(0, 3, 0, 0):
        tlb_dacr_changed(c, cp->dacr, v);
        cp->dacr = v;
        return 0;
    case KEY(0, 5, 0, 0): cp->dfsr = v & 0x1fff; return 0;
    case KEY(0, 5, 0, 1): cp->ifsr = v & 0x140f; return 0;
    case KEY(0, 6, 0, 0): cp->dfar = v; return 0;
    case KEY(0, 6, 0, 2): cp->ifar = v; return 0;
    case KEY(0, 7, 4, 0): cp->par = v; return 0;
    case KEY(0, 7, 8, 0): case KEY(0, 7, 8, 1):
    case KEY(0, 7, 8, 2): case KEY(0, 7, 8, 3):
        cp->par = ats(c, v, key & 3);
        return 0;
    /* Cache, branch predictor and barrier operations. */
    case KEY(0, 7, 1, 0): case KEY(0, 7, 1, 6): case KEY(0, 7, 5, 0):
    case KEY(0, 7, 5, 1): case KEY(0, 7, 5, 4): case KEY(0, 7, 5, 6):
    case KEY(0, 7, 5, 7): case KEY(0, 7, 6, 1): case KEY(0, 7, 6, 2):
    case KEY(0, 7, 10, 1): case KEY(0, 7, 10, 2): case KEY(0, 7, 10, 4):
    case KEY(0, 7, 10, 5): case KEY(0, 7, 11, 1): case KEY(0, 7, 14, 1):
    case KEY(0, 7, 14, 2):
        return 0;
    default:
        /* Like QEMU, the rest of the c7 maintenance space is a NOP. */
        if ((key >> 8) == 7)
            return 0;
        return 1;
    case KEY(0, 10, 2, 0): cp->prrr = v; return 0;
    case KEY(0, 10, 2, 1): cp->nmrr = v; return 0;
    case KEY(0, 12, 0, 0): cp->vbar = v & ~0x1fu; return 0;
    case KEY(0, 13, 0, 0): return 0;
    case KEY(0, 13, 0, 1):
        /* Our TLB does not tag lookups with the ASID: start afresh. */
        cp->contextidr = v;
        pmu_event(c, &c->pmu.cid_writes);
        if ((v & 0xff) != c->asid) {
            c->asid = v & 0xff;
            tlb_flush(c);
        }
        return 0;
    case KEY(0, 13, 0, 2): cp->tpidrurw = v; return 0;
    case KEY(0, 13, 0, 3): cp->tpidruro = v; return 0;
    case KEY(0, 13, 0, 4): cp->tpidrprw = v; return 0;
    case KEY(0, 14, 0, 0): cp->cntfrq = v; return 0;
    case KEY(0, 14, 1, 0): cp->cntkctl = v & 0x3ff; return 0;
    case KEY(0, 14, 2, 0): case KEY(0, 14, 3, 0): {
        int w = key == KEY(0, 14, 3, 0);
        cp->cnt_cval[w] = (uint64_t)cnt_now(c) + (int32_t)v;
        timer_changed(c, w);
        return 0;
    }
    case KEY(0, 14, 2, 1): case KEY(0, 14, 3, 1): {
        int w = key == KEY(0, 14, 3, 1);
        cp->cnt_ctl[w] = v & 3;
        timer_changed(c, w);
        return 0;
    }
    }
    return 1;
}

/* clang-format on */

/* CP14, ARM ARM C6 and A2.10. Debug (opc1 0): DBGDIDR reads as zero so
 * Linux finds no debug architecture and leaves the debug registers alone;
 * the rest of that space is RAZ/WI at PL1. ThumbEE (opc1 6): TEECR and
 * TEEHBR, which Linux saves and restores on every context switch because
 * ID_PFR0 (as on QEMU's cortex-a15) says ThumbEE is present; TEEHBR is
 * usable from PL0 unless TEECR.XED. Jazelle (opc1 7, trivial
 * implementation): RAZ/WI at PL1. */
static int cp14_access(arm_cpu *c, int opc1, int crn, int crm, int opc2,
                       uint32_t *rd, uint32_t wv)
{
    if (opc1 == 6 && crm == 0 && opc2 == 0 && crn <= 1) {
        uint32_t *r = crn ? &c->cp15.teehbr : &c->cp15.teecr;
        if (!c->priv && (crn == 0 || (c->cp15.teecr & 1)))
            return 1;
        if (rd)
            *rd = *r;
        else
            *r = crn ? wv : (wv & 1);
        return 0;
    }
    if ((opc1 != 0 && opc1 != 7) || !c->priv)
        return 1;
    if (rd)
        *rd = 0;
    return 0;
}

/* c9, c12-c14 with opc1 0: the PMU (pmu.c). */
static int is_pmu(uint32_t key)
{
    return (key >> 8) == 9 && (key & 0xf0) >= 0xc0;
}

int cp_read(arm_cpu *c, int cp, int opc1, int crn, int crm, int opc2,
            uint32_t *v)
{
    if (cp == 14)
        return cp14_access(c, opc1, crn, crm, opc2, v, 0);
    if (cp != 15)
        return 1;
    uint32_t key = KEY(opc1, crn, crm, opc2);
    if (!c->priv && !pl0_ok(c, key, 0))
        return 1;
    if (is_pmu(key))
        return pmu_read(c, crm, opc2, v);
    return cp15_read(c, key, v);
}

int cp_write(arm_cpu *c, int cp, int opc1, int crn, int crm, int opc2,
             uint32_t v)
{
    if (cp == 14)
        return cp14_access(c, opc1, crn, crm, opc2, NULL, v);
    if (cp != 15)
        return 1;
    uint32_t key = KEY(opc1, crn, crm, opc2);
    if (!c->priv && !pl0_ok(c, key, 1))
        return 1;
    if (is_pmu(key))
        return pmu_write(c, crm, opc2, v);
    return cp15_write(c, key, v);
}

/* 64-bit registers (MRRC/MCRR), c14: CNTPCT, CNTVCT, CNTP_CVAL and
 * CNTV_CVAL. Without the Virtualization Extensions CNTVOFF is zero. */
int cp_read64(arm_cpu *c, int cp, int opc1, int crm, uint64_t *v)
{
    if (cp != 15 || crm != 14 || opc1 > 3)
        return 1;
    const cp15_state *s = &c->cp15;
    if (!c->priv) {
        static const uint32_t bit[4] = { 1u << 0, 1u << 1, 1u << 9, 1u << 8 };
        if (!(s->cntkctl & bit[opc1]))
            return 1;
    }
    *v = opc1 < 2 ? (uint64_t)cnt_now(c) : s->cnt_cval[opc1 - 2];
    return 0;
}

int cp_write64(arm_cpu *c, int cp, int opc1, int crm, uint64_t v)
{
    if (cp != 15 || crm != 14 || opc1 < 2 || opc1 > 3)
        return 1;
    if (!c->priv && !(c->cp15.cntkctl & (opc1 == 2 ? 1u << 9 : 1u << 8)))
        return 1;
    c->cp15.cnt_cval[opc1 - 2] = v;
    timer_changed(c, opc1 - 2);
    return 0;
}
