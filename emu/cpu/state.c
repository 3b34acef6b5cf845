/* Saving and restoring a core's architectural state for snapshots. The
 * field lists are written once and expanded for both directions, so save
 * and load cannot drift apart. What is not saved is derived: the soft
 * TLBs are flushed on load, and the decoded-instruction caches need no
 * invalidation because every entry is checked against the raw word in
 * memory at fetch (see exec.c), so stale entries are never used. */
#include <string.h>
#include "arm_int.h"
#include "../snapio.h"

/* clang-format off */
#define CORE_U32(X) \
    X(nf) X(zf) X(cf) X(vf) X(cpsr) X(pc) X(priv) X(halted) X(powered) \
    X(irq_line) X(fiq_line) X(event) X(cpi) X(asid)
#define CORE_U64(X) X(insns) X(insns_base) X(cycles_base)
#define CORE_ARRAYS(X) \
    X(r, 16) X(bank_r13, NBANKS) X(bank_r14, NBANKS) X(bank_spsr, NBANKS) \
    X(fiq_r8, 5) X(usr_r8, 5)
/* The PMU (pmu.c) after CP15, so that the fields before keep their
 * offsets in the record. */
#define PMU_U32(X) \
    X(pmu.pmcr) X(pmu.cnten) X(pmu.ovs) X(pmu.inten) X(pmu.selr) \
    X(pmu.userenr) X(pmu.running) X(pmu.presc) X(pmu.irq_level) \
    X(pmu.per_insn)
#define PMU_U64(X) X(pmu_deadline) \
    X(pmu.start[0]) X(pmu.start[1]) X(pmu.start[2]) X(pmu.start[3]) \
    X(pmu.start[4]) X(pmu.start[5]) X(pmu.start[6]) X(pmu.aborted) \
    X(pmu.exc_taken) X(pmu.exc_return) X(pmu.cid_writes) \
    X(pmu.loads) X(pmu.stores) X(pmu.pc_writes)
#define PMU_ARRAYS(X) X(pmu.evtype, PMU_NCNT + 1) X(pmu.cnt, PMU_NCNT + 1)
#define CP15_U32(X) \
    X(sctlr) X(actlr) X(cpacr) X(ttbr0) X(ttbr1) X(ttbcr) X(dacr) X(dfsr) \
    X(ifsr) X(dfar) X(ifar) X(par) X(prrr) X(nmrr) X(vbar) X(contextidr) \
    X(tpidrurw) X(tpidruro) X(tpidrprw) X(csselr) X(teecr) X(teehbr) \
    X(cntfrq) X(cntkctl) X(cnt_ctl[0]) X(cnt_ctl[1])
#define CP15_U64(X) X(cnt_cval[0]) X(cnt_cval[1])
/* clang-format on */

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
    PMU_U32(PUT32)
    PMU_U64(PUT64)
    PMU_ARRAYS(PUTARR)
    const excl_state *x = &c->sys->excl[c->index];
    snap_put_u32(w, x->va);
    snap_put_u32(w, x->pa);
    snap_put_u32(w, x->size);
    snap_put_u64(w, x->val);
}

static uint64_t field_offset(const char *name);

int arm_load(arm_cpu *c, snap_r *r)
{
    uint64_t record_off = snap_r_offset(r);
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
    PMU_U32(GET32)
    PMU_U64(GET64)
    PMU_ARRAYS(GETARR)
    /* Named at the field's own offset, not at the last value read. */
    if (!snap_r_failed(r) && !mode_valid(c->cpsr & 0x1f))
        return snap_r_fail_at(r, record_off + field_offset("cpsr"), "core %d: "
                              "cpsr %#010x has mode %#x, expected a valid ARM mode",
                              c->index, c->cpsr, (unsigned)(c->cpsr & 0x1f));
    if (!snap_r_failed(r) && c->cpi == 0)
        return snap_r_fail_at(r, record_off + field_offset("cpi"), "core %d: cpi 0, "
                              "expected at least 1 cycle per instruction", c->index);
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

/* Byte offset of a saved field in a core's record, from the lists above. */
static uint64_t field_offset(const char *name)
{
    uint64_t off = 0;
#define OFF(f, bytes) if (!strcmp(#f, name)) return off; off += (bytes);
#define OFF32(f) OFF(f, 4)
#define OFF64(f) OFF(f, 8)
#define OFFARR(f, n) OFF(f, 4 * (n))
    CORE_U32(OFF32)
    CORE_U64(OFF64)
    CORE_ARRAYS(OFFARR)
    CP15_U32(OFF32)
    CP15_U64(OFF64)
    PMU_U32(OFF32)
    PMU_U64(OFF64)
    PMU_ARRAYS(OFFARR)
    return 0;
}

/* Whether va translates, for execution at pl1 or not, to RAM; *pa gets the
 * address and *fsr the fault status (0 if it translated). */
static int code_in_ram(arm_cpu *c, uint32_t va, int pl1, uint32_t *pa, uint32_t *fsr)
{
    *pa = 0;
    *fsr = mmu_translate(c, va, ACC_EXEC, pl1, pa, NULL);
    return !*fsr && phys_ram_ptr(c->sys->map, *pa & ~3u, 4) != NULL;
}

int arm_check_resumable(arm_cpu *c, snap_r *r, uint64_t record_off)
{
    const cp15_state *cp = &c->cp15;
#define BAD(field, ...) \
    snap_r_fail_at(r, record_off + field_offset(#field), "core %d: " #field " " __VA_ARGS__)
    if (!c->powered)
        return 0;               /* CPU_ON gives it a new state */
    if (c->cpsr & CPSR_J)
        return BAD(cpsr, "%#010x has the Jazelle bit, expected ARM or Thumb state",
                   c->index, c->cpsr);
    if (cp->ttbcr & (1u << 31))
        return BAD(ttbcr, "%#010x selects long descriptors (EAE), expected the short "
                   "format (this core has no LPAE)", c->index, cp->ttbcr);
    if (cp->vbar & 0x1f)
        return BAD(vbar, "%#010x is not 32-byte aligned, expected a vector table base",
                   c->index, cp->vbar);
    if (cp->sctlr & SCTLR_M) {
        uint32_t n = cp->ttbcr & 7, base0 = cp->ttbr0 & (0xffffc000u << n);
        if (!phys_ram_ptr(c->sys->map, base0, 0x4000u >> n))
            return BAD(ttbr0, "%#010x puts the translation table at %#010x, outside RAM, "
                       "expected a table in RAM", c->index, cp->ttbr0, base0);
        /* TTBR1 too when TTBCR.N is 0 and the walk never uses it: Linux
         * copies it into TTBR0 as its global-only table on an ASID
         * rollover (arch/arm/mm/context.c, cpu_set_reserved_ttbr0). */
        if (!phys_ram_ptr(c->sys->map, cp->ttbr1 & 0xffffc000u, 0x4000))
            return BAD(ttbr1, "%#010x puts the translation table at %#010x, outside RAM, "
                       "expected a table in RAM", c->index, cp->ttbr1,
                       cp->ttbr1 & 0xffffc000u);
    }
    uint32_t pa, fsr;
    int thumb = (c->cpsr & CPSR_T) != 0, pl1 = (c->cpsr & 0x1f) != MODE_USR;
    if (c->pc & (thumb ? 1u : 3u))
        return BAD(pc, "%#010x is not aligned for %s state", c->index, c->pc,
                   thumb ? "Thumb" : "ARM");
    if (!code_in_ram(c, c->pc, pl1, &pa, &fsr))
        return BAD(pc, "%#010x %s %#010x, expected the next instruction in RAM", c->index,
                   c->pc, fsr ? "faults in translation, status" : "is at physical", fsr ? fsr : pa);
    /* An unmapped vector table makes every exception fault again at once.
     * Checked once the MMU is on: an OS that turned it on has set up its
     * vectors, while bare-metal code may never take an exception. */
    uint32_t vectors = (cp->sctlr & SCTLR_V) ? 0xffff0000u : cp->vbar;
    if ((cp->sctlr & SCTLR_M) && !code_in_ram(c, vectors, 1, &pa, &fsr))
        return BAD(vbar, "%#010x: the exception vectors at %#010x%s %s %#010x, expected "
                   "them in RAM", c->index, cp->vbar, vectors,
                   (cp->sctlr & SCTLR_V) ? " (SCTLR.V)" : "",
                   fsr ? "fault in translation, status" : "are at physical", fsr ? fsr : pa);
#undef BAD
    return 0;
}
