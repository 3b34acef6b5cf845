/* Saving and restoring a core's architectural state for snapshots. The
 * field lists are written once and expanded for both directions, so save
 * and load cannot drift apart. What is not saved is derived: the soft
 * TLBs are flushed on load, and the decoded-instruction caches need no
 * invalidation because every entry is checked against the raw word in
 * memory at fetch (see exec.c), so stale entries are never used. */
#include "arm_int.h"
#include "../snapio.h"

#define CORE_U32(X) \
    X(nf) X(zf) X(cf) X(vf) X(cpsr) X(pc) X(priv) X(halted) X(powered) \
    X(irq_line) X(fiq_line) X(event) X(cpi) X(asid)
#define CORE_U64(X) X(insns) X(insns_base) X(cycles_base)
#define CORE_ARRAYS(X) \
    X(r, 16) X(bank_r13, NBANKS) X(bank_r14, NBANKS) X(bank_spsr, NBANKS) \
    X(fiq_r8, 5) X(usr_r8, 5)
#define CP15_U32(X) \
    X(sctlr) X(actlr) X(cpacr) X(ttbr0) X(ttbr1) X(ttbcr) X(dacr) X(dfsr) \
    X(ifsr) X(dfar) X(ifar) X(par) X(prrr) X(nmrr) X(vbar) X(contextidr) \
    X(tpidrurw) X(tpidruro) X(tpidrprw) X(csselr) X(teecr) X(teehbr) \
    X(pmcr) X(pmcnten) X(pmovsr) X(pmselr) X(pmuserenr) X(pminten) \
    X(pmccntr_frozen) X(cntfrq) X(cntkctl) X(cnt_ctl[0]) X(cnt_ctl[1])
#define CP15_U64(X) X(pmccntr_base) X(cnt_cval[0]) X(cnt_cval[1])

void arm_save(const arm_cpu *c, snap_w *w)
{
#define PUT32(f) snap_put_u32(w, c->f);
#define PUT64(f) snap_put_u64(w, c->f);
#define PUTARR(f, n) for (int i = 0; i < (n); i++) snap_put_u32(w, c->f[i]);
#define PUTCP32(f) snap_put_u32(w, c->cp15.f);
#define PUTCP64(f) snap_put_u64(w, c->cp15.f);
    CORE_U32(PUT32)
    CORE_U64(PUT64)
    CORE_ARRAYS(PUTARR)
    CP15_U32(PUTCP32)
    CP15_U64(PUTCP64)
    const excl_state *x = &c->sys->excl[c->index];
    snap_put_u32(w, x->va);
    snap_put_u32(w, x->pa);
    snap_put_u32(w, x->size);
    snap_put_u64(w, x->val);
}

int arm_load(arm_cpu *c, snap_r *r)
{
#define GET32(f) c->f = snap_get_u32(r);
#define GET64(f) c->f = snap_get_u64(r);
#define GETARR(f, n) for (int i = 0; i < (n); i++) c->f[i] = snap_get_u32(r);
#define GETCP32(f) c->cp15.f = snap_get_u32(r);
#define GETCP64(f) c->cp15.f = snap_get_u64(r);
    CORE_U32(GET32)
    CORE_U64(GET64)
    CORE_ARRAYS(GETARR)
    CP15_U32(GETCP32)
    CP15_U64(GETCP64)
    if (!snap_r_failed(r) && (!mode_valid(c->cpsr & 0x1f) || c->cpi == 0))
        return snap_r_fail(r, "core %d: mode %#x, cpi %u, expected a valid "
                           "ARM mode and cpi >= 1", c->index,
                           (unsigned)(c->cpsr & 0x1f), (unsigned)c->cpi);
    excl_state *x = &c->sys->excl[c->index];
    x->va = snap_get_u32(r);
    x->pa = snap_get_u32(r);
    x->size = snap_get_u32_max(r, 8, "exclusive monitor size");
    x->val = snap_get_u64(r);
    tlb_flush(c);
    c->flow = 0;
    c->exit_req = 0;
    return snap_r_failed(r) ? -1 : 0;
}
