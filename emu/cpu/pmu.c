/* Performance Monitors: ARM ARM C12 (PMUv2) with the register set of the
 * Cortex-A15 TRM, chapter 11, the core this model identifies as (MIDR
 * r4p0): PMCR (N = 6), PMCNTENSET/CLR, PMOVSR, PMOVSSET, PMSWINC, PMSELR,
 * PMCEID0/1, PMCCNTR, PMXEVTYPER (with PMCCFILTR at PMSELR 31),
 * PMXEVCNTR, PMUSERENR, PMINTENSET/CLR.
 *
 * Events implemented, each counted exactly (PMCEID0 says which):
 *   0x00 SW_INCR            writes to PMSWINC
 *   0x06 LD_RETIRED         load instructions executed (LDR*, LDM, POP,
 *                           LDREX*, RFE, SWP), condition passed
 *   0x07 ST_RETIRED         store instructions executed (STR*, STM, PUSH,
 *                           STREX* whether or not it stores, SRS, SWP)
 *   0x08 INST_RETIRED       instructions executed (an instruction that
 *                           aborts or is UNDEFINED is not, ARM ARM C12.8)
 *   0x09 EXC_TAKEN          exceptions taken
 *   0x0A EXC_RETURN         exception returns executed
 *   0x0B CID_WRITE_RETIRED  writes to CONTEXTIDR
 *   0x0C PC_WRITE_RETIRED   software changes of the PC: taken branches,
 *                           loads and data processing into the PC,
 *                           exception returns; not exception entries
 *   0x11 CPU_CYCLES         cycles (instructions x CPI; none in WFI)
 * Any other event number is accepted and never counts, as hardware does
 * for an event it does not implement: the model has no caches, TLB
 * timing, branch predictor or pipeline, so their events would be made up
 * (0x0D, immediate branches whether taken or not, is not counted either;
 * 0x0C is what Linux's A9 driver counts as "branches", its A15 driver asks
 * for 0x76, speculative PC writes, so perf names it as raw event r0c; 0x12
 * predictable branches needs a predictor).
 *
 * Instructions and cycles cost nothing per instruction: a counter keeps
 * its value at the last settle and the source's value then, and is settled
 * when anything that decides whether it counts changes (including a change
 * between PL0 and PL1, for the P and U filter bits). Overflow is exact:
 * arm_run stops at the instruction that wraps a counter (pmu_deadline),
 * and the overflow interrupt is raised there. */
#include "arm_int.h"

enum { PMCR_E = 1, PMCR_P = 2, PMCR_C = 4, PMCR_D = 8, PMCR_RW = 0x39 };
enum { EVT_P = 1u << 31, EVT_U = 1u << 30 };
enum {
    EV_SW_INCR = 0x00,
    EV_LD = 0x06,
    EV_ST = 0x07,
    EV_INST = 0x08,
    EV_EXC = 0x09,
    EV_EXC_RET = 0x0a,
    EV_CID = 0x0b,
    EV_PC_WRITE = 0x0c,
    EV_CYCLES = 0x11
};
/* Cortex-A15 TRM 11.4 (PMCR reset): IMP 0x41, IDCODE 0x0F, N = 6. */
#define PMCR_FIXED 0x410f3000u
#define PMCEID0                                                           \
    (1u << EV_SW_INCR | 1u << EV_LD | 1u << EV_ST | 1u << EV_INST |       \
     1u << EV_EXC | 1u << EV_EXC_RET | 1u << EV_CID | 1u << EV_PC_WRITE | \
     1u << EV_CYCLES)
/* With PMCR.D the cycle counter ticks once every 64 cycles. */
#define CYCLE_DIV 64

static uint32_t bit_of(int i)
{
    return i == PMU_CYCLE ? 1u << 31 : 1u << i;
}

static uint32_t event_of(const pmu_state *p, int i)
{
    return i == PMU_CYCLE ? EV_CYCLES : p->evtype[i] & 0xff;
}

/* The event's source now; 0 if it has none to follow. */
static int source(const arm_cpu *c, uint32_t ev, uint64_t *v)
{
    const pmu_state *p = &c->pmu;
    switch (ev) {
    case EV_INST:
        *v = c->insns - p->aborted;
        return 1;
    case EV_EXC:
        *v = p->exc_taken;
        return 1;
    case EV_EXC_RET:
        *v = p->exc_return;
        return 1;
    case EV_CID:
        *v = p->cid_writes;
        return 1;
    case EV_LD:
        *v = p->loads;
        return 1;
    case EV_ST:
        *v = p->stores;
        return 1;
    case EV_PC_WRITE:
        *v = p->pc_writes;
        return 1;
    case EV_CYCLES:
        *v = arm_cycle_count(c);
        return 1;
    default:
        return 0;
    }
}

/* Enabled, and not filtered out at the current privilege. */
static int counts_now(const arm_cpu *c, int i)
{
    const pmu_state *p = &c->pmu;
    uint32_t filt = p->evtype[i] & (c->priv ? EVT_P : EVT_U);
    return (p->pmcr & PMCR_E) && (p->cnten & bit_of(i)) && !filt;
}

static void add(pmu_state *p, int i, uint64_t d)
{
    if (i == PMU_CYCLE && (p->pmcr & PMCR_D)) {
        d += p->presc;
        p->presc = (uint32_t)(d % CYCLE_DIV);
        d /= CYCLE_DIV;
    }
    uint64_t v = p->cnt[i] + d;
    if (v >> 32)
        p->ovs |= bit_of(i);
    p->cnt[i] = (uint32_t)v;
}

static void update_irq(arm_cpu *c)
{
    pmu_state *p = &c->pmu;
    uint32_t level = (p->ovs & p->inten) != 0;
    if (level == p->irq_level)
        return;
    p->irq_level = level;
    const arm_hooks *h = &c->sys->hooks;
    if (h->pmu_irq)
        h->pmu_irq(h->opaque, c, (int)level);
}

/* Instructions from now until counter i wraps, if its source is
 * instructions or cycles; UINT64_MAX otherwise. */
static uint64_t insns_to_wrap(const arm_cpu *c, int i)
{
    const pmu_state *p = &c->pmu;
    uint64_t left = (1ull << 32) - p->cnt[i];
    switch (event_of(p, i)) {
    case EV_INST:
    case EV_LD:
    case EV_ST:
    case EV_PC_WRITE:
        /* A lower bound, as each instruction counts at most once: the
         * settle at the deadline sets the next one. */
        return left;
    case EV_CYCLES:
        if (i == PMU_CYCLE && (p->pmcr & PMCR_D))
            left = left * CYCLE_DIV - p->presc;
        return (left + c->cpi - 1) / c->cpi;
    default:
        return UINT64_MAX;
    }
}

/* 1 if some enabled counter follows an event counted per instruction. */
static uint32_t per_insn(const pmu_state *p)
{
    if (!(p->pmcr & PMCR_E))
        return 0;
    for (int i = 0; i < PMU_NCNT; i++) {
        uint32_t ev = event_of(p, i);
        if ((p->cnten & bit_of(i)) &&
            (ev == EV_LD || ev == EV_ST || ev == EV_PC_WRITE))
            return 1;
    }
    return 0;
}

void pmu_sync(arm_cpu *c)
{
    pmu_state *p = &c->pmu;
    uint64_t now, deadline = UINT64_MAX;
    /* Set before the counters start, which read the sources; a change
     * leaves the engine's loop, whose next block then counts or not. */
    uint32_t pi = per_insn(p);
    if (pi != p->per_insn) {
        p->per_insn = pi;
        c->flow |= FLOW_BREAK;
    }
    for (int i = 0; i <= PMU_CYCLE; i++)
        if ((p->running & bit_of(i)) && source(c, event_of(p, i), &now))
            add(p, i, now - p->start[i]);
    p->running = 0;
    for (int i = 0; i <= PMU_CYCLE; i++) {
        if (!counts_now(c, i) || !source(c, event_of(p, i), &now))
            continue;
        p->running |= bit_of(i);
        p->start[i] = now;
        uint64_t n = insns_to_wrap(c, i);
        if (n != UINT64_MAX && c->insns + n < deadline)
            deadline = c->insns + n;
    }
    c->pmu_deadline = deadline;
    update_irq(c);
}

uint32_t arm_pmu_counter(arm_cpu *c, int i)
{
    pmu_sync(c);
    return i >= 0 && i <= PMU_CYCLE ? c->pmu.cnt[i] : 0;
}

void pmu_reset(arm_cpu *c)
{
    memset(&c->pmu, 0, sizeof(c->pmu));
    c->pmu.pmcr = PMCR_FIXED;
    c->pmu_deadline = UINT64_MAX;
}

static void sw_incr(arm_cpu *c, uint32_t v)
{
    pmu_state *p = &c->pmu;
    for (int i = 0; i < PMU_NCNT; i++)
        if ((v & bit_of(i)) && event_of(p, i) == EV_SW_INCR && counts_now(c, i))
            add(p, i, 1);
}

/* The counter PMSELR selects for PMXEVTYPER/PMXEVCNTR, or -1 if none
 * (UNPREDICTABLE in ARM ARM C12; RAZ/WI here). */
static int selected(const pmu_state *p)
{
    if (p->selr < PMU_NCNT)
        return (int)p->selr;
    return p->selr == 31 ? PMU_CYCLE : -1;
}

int pmu_read(arm_cpu *c, int crm, int opc2, uint32_t *v)
{
    pmu_state *p = &c->pmu;
    pmu_sync(c);
    int sel = selected(p);
    switch (crm << 4 | opc2) {
    case 0xc0:
        *v = PMCR_FIXED | (p->pmcr & PMCR_RW);
        return 0;
    case 0xc1:
    case 0xc2:
        *v = p->cnten;
        return 0;
    case 0xc3:
    case 0xe3:
        *v = p->ovs;
        return 0;
    case 0xc4:
        *v = 0;
        return 0; /* PMSWINC is write-only: RAZ */
    case 0xc5:
        *v = p->selr;
        return 0;
    case 0xc6:
        *v = PMCEID0;
        return 0;
    case 0xc7:
        *v = 0;
        return 0; /* PMCEID1: no event 0x20-0x3f */
    case 0xd0:
        *v = p->cnt[PMU_CYCLE];
        return 0;
    case 0xd1:
        *v = sel < 0 ? 0 : p->evtype[sel];
        return 0;
    case 0xd2:
        *v = sel < 0 || sel == PMU_CYCLE ? 0 : p->cnt[sel];
        return 0;
    case 0xe0:
        *v = p->userenr;
        return 0;
    case 0xe1:
    case 0xe2:
        *v = p->inten;
        return 0;
    }
    return 1;
}

int pmu_write(arm_cpu *c, int crm, int opc2, uint32_t v)
{
    pmu_state *p = &c->pmu;
    const uint32_t all = 0x80000000u | ((1u << PMU_NCNT) - 1);
    pmu_sync(c);
    int sel = selected(p);
    switch (crm << 4 | opc2) {
    case 0xc0:
        if (v & PMCR_P)
            memset(p->cnt, 0, PMU_NCNT * sizeof(p->cnt[0]));
        if (v & PMCR_C) {
            p->cnt[PMU_CYCLE] = 0;
            p->presc = 0;
        }
        p->pmcr = PMCR_FIXED | (v & PMCR_RW);
        break;
    case 0xc1:
        p->cnten |= v & all;
        break;
    case 0xc2:
        p->cnten &= ~v;
        break;
    case 0xc3:
        p->ovs &= ~v;
        break;
    case 0xe3:
        p->ovs |= v & all;
        break;
    case 0xc4:
        sw_incr(c, v);
        break;
    case 0xc5:
        p->selr = v & 0x1f;
        break;
    case 0xd0:
        p->cnt[PMU_CYCLE] = v;
        break;
    case 0xd1:
        /* Event number and the P and U filters; NSK, NSU and NSH need
         * Security or Virtualization Extensions, which this core lacks. */
        if (sel == PMU_CYCLE)
            p->evtype[sel] = v & (EVT_P | EVT_U);
        else if (sel >= 0)
            p->evtype[sel] = v & (EVT_P | EVT_U | 0xff);
        break;
    case 0xd2:
        if (sel >= 0 && sel < PMU_NCNT)
            p->cnt[sel] = v;
        break;
    case 0xe0:
        p->userenr = v & 1;
        break;
    case 0xe1:
        p->inten |= v & all;
        break;
    case 0xe2:
        p->inten &= ~v;
        break;
    default:
        return 1;
    }
    pmu_sync(c);
    return 0;
}
