/* Internals shared by the files of emu/cpu/. Not part of the API. */
#ifndef PANLAB_ARM_INT_H
#define PANLAB_ARM_INT_H

#include <stdint.h>
#include <string.h>
#include "arm.h"

enum {
    MODE_USR = 0x10, MODE_FIQ = 0x11, MODE_IRQ = 0x12, MODE_SVC = 0x13,
    MODE_ABT = 0x17, MODE_UND = 0x1b, MODE_SYS = 0x1f,
};
/* Bank slots for r13/r14/SPSR. */
enum { BANK_USR, BANK_FIQ, BANK_IRQ, BANK_SVC, BANK_ABT, BANK_UND, NBANKS };

enum {
    CPSR_T = 1u << 5, CPSR_F = 1u << 6, CPSR_I = 1u << 7, CPSR_A = 1u << 8,
    CPSR_E = 1u << 9, CPSR_Q = 1u << 27,
    CPSR_IT_MASK = 0x0600fc00u, CPSR_J = 1u << 24,
};

enum {
    SCTLR_M = 1u << 0, SCTLR_A = 1u << 1, SCTLR_V = 1u << 13,
    SCTLR_TRE = 1u << 28, SCTLR_AFE = 1u << 29, SCTLR_TE = 1u << 30,
};

enum { HALT_WFI = 1, HALT_WFE = 2 };
/* FLOW_JUMP: continue at next_pc instead of the next instruction.
 * FLOW_BREAK: leave the inner loop (mode, state, TLB or interrupt mask
 * changed, or the engine wants control back). */
enum { FLOW_JUMP = 1, FLOW_BREAK = 2 };

/* Exceptions, ARM ARM B1.8. */
enum { EXC_UND, EXC_SVC, EXC_PABT, EXC_DABT, EXC_IRQ, EXC_FIQ };

/* Access kinds for translation. */
enum { ACC_READ = 0, ACC_WRITE = 1, ACC_EXEC = 2 };

/* One decoded instruction. Decoding chooses the handler and precomputes
 * what is expensive (rotated immediates, shift forms, register numbers for
 * the specialised handlers); other handlers shift fields out of raw. */
typedef struct arm_insn arm_insn;
typedef void arm_exec_fn(arm_cpu *c, const arm_insn *d);
struct arm_insn {
    arm_exec_fn *fn;
    uint32_t raw;       /* encoding; compared at fetch (self-modifying code) */
    uint32_t imm;
    uint32_t aux;
    uint8_t rd, rn, rm;     /* bits 15:12, 19:16, 3:0 */
};

#define DCACHE_BITS 16
#define TCACHE_BITS 12
#define TLB_BITS 8
#define TLB_SIZE (1 << TLB_BITS)

/* A software TLB entry for one 4 KiB virtual page. For RAM the fast path
 * compares tag with the page address and adds addend; MMIO pages carry
 * TLB_IO in tag so they always take the slow path. */
#define TLB_IO 1u
#define TLB_INVALID 3u
typedef struct jit_cache jit_cache;

typedef struct tlb_entry {
    uint32_t tag;
    uint32_t pa_page;
    uintptr_t addend;   /* host = va + addend */
    uint32_t region_mask; /* size of the mapping it came from, for TLBIMVA */
    uint8_t global;
    uint8_t asid;
    uint8_t domain;     /* TLB_NO_DOMAIN with the MMU off */
} tlb_entry;
#define TLB_NO_DOMAIN 16

/* Global exclusive monitor (ARM ARM A3.4): one per cluster, with one
 * reservation per core. Like QEMU, STREX also checks that memory still holds
 * the value LDREX read, so a plain store by another core breaks it. */
typedef struct excl_state {
    uint32_t va;        /* compared by STREX, as QEMU does */
    uint32_t pa;        /* to clear other cores' reservations */
    uint32_t size;      /* bytes: 1, 2, 4, 8; 0 = open */
    uint64_t val;
} excl_state;

typedef struct cp15_state {
    uint32_t sctlr, actlr, cpacr;
    uint32_t ttbr0, ttbr1, ttbcr, dacr;
    uint32_t dfsr, ifsr, dfar, ifar, par;
    uint32_t prrr, nmrr, vbar, contextidr;
    uint32_t tpidrurw, tpidruro, tpidrprw, csselr;
    uint32_t teecr, teehbr; /* ThumbEE, CP14 */
    /* Generic timer, ARM ARM B8. */
    uint32_t cntfrq, cntkctl;
    uint32_t cnt_ctl[2];
    uint64_t cnt_cval[2];
} cp15_state;

/* Performance Monitors, ARM ARM C12 (PMUv2, as the Cortex-A15 TRM chapter 11
 * implements it): six event counters (index 0-5) and the cycle counter
 * (index PMU_CYCLE). Counters are kept lazily: a counter that counts has
 * the value `cnt` plus what its event source gained since `start`; pmu.c
 * settles them whenever what they count or whether they count changes
 * (a PMU register write, a change between PL0 and PL1). */
#define PMU_NCNT 6
#define PMU_CYCLE 6
typedef struct pmu_state {
    uint32_t pmcr; /* DP, X, D, E as written; IMP, IDCODE, N fixed */
    uint32_t cnten, ovs, inten, selr, userenr; /* bit 31: cycle counter */
    uint32_t evtype[PMU_NCNT + 1];             /* [PMU_CYCLE]: PMCCFILTR */
    uint32_t cnt[PMU_NCNT + 1];
    uint64_t start[PMU_NCNT + 1];
    uint32_t running;   /* bit i: counter i counts now */
    uint32_t presc;     /* cycles towards the next tick with PMCR.D */
    uint32_t irq_level; /* last level sent on the overflow line */
    /* Event sources, counted where they happen (slow paths only). */
    uint64_t aborted; /* instructions charged but not executed */
    uint64_t exc_taken, exc_return, cid_writes;
    /* Loads, stores and software PC writes (events 0x06, 0x07, 0x0C),
     * counted only while `per_insn` is 1: some enabled counter follows
     * one of them. Both engines add per_insn where the instruction
     * completes; the fast engine's blocks carry the adds only when
     * translated with per_insn set (jit.c keeps one block map for each). */
    uint64_t loads, stores, pc_writes;
    uint32_t per_insn;
} pmu_state;

struct arm_cpu {
    uint32_t r[16];
    /* Flags kept apart for fast condition checks: N is bit 31 of nf, Z is
     * zf == 0, C is cf (0 or 1), V is bit 31 of vf. */
    uint32_t nf, zf, cf, vf;
    uint32_t cpsr;          /* all other CPSR bits (mode, AIF, T, Q, GE...) */
    uint32_t pc;            /* next instruction, between instructions */
    uint32_t next_pc;       /* branch target, valid with FLOW_JUMP */
    uint32_t flow;          /* FLOW_* bits set by the current instruction */
    uint32_t bank_r13[NBANKS], bank_r14[NBANKS], bank_spsr[NBANKS];
    uint32_t fiq_r8[5], usr_r8[5];
    uint32_t priv;          /* 1 at PL1 */
    uint32_t halted;        /* HALT_WFI or HALT_WFE */
    uint32_t powered, exit_req, irq_line, fiq_line, event;
    uint32_t cpi;
    /* Instructions executed, counted as they run; cycles are derived so
     * that a mid-run read (PMCCNTR, the engine's counter) is exact. */
    uint64_t insns, insns_base, cycles_base;
    /* Instruction count at which a running counter overflows next
     * (UINT64_MAX: none); arm_run stops there. */
    uint64_t pmu_deadline;
    pmu_state pmu;
    int index;
    arm_sys *sys;
    cp15_state cp15;
    uint32_t asid;
    uint32_t tlb_domains;   /* bit d: some TLB entry was made in domain d */
    /* Bit s: since the last full flush, a TLB entry was made from a mapping
     * larger than 4 KiB covering some of the 1 MiB section s. A TLBIMVA in
     * a section without one can only hit the entry slots of its own page
     * (the kernel sweeps whole ranges page by page). */
    uint64_t tlb_large[4096 / 64];
    /* Soft TLBs indexed [pl1][va page]. */
    tlb_entry tlb_r[2][TLB_SIZE], tlb_w[2][TLB_SIZE], tlb_x[2][TLB_SIZE];
    arm_insn *dcache;       /* ARM decode cache, indexed by pa >> 2 */
    arm_insn *tcache;       /* Thumb decode cache, indexed by pa >> 1 */
    jit_cache *jit;         /* fast engine's blocks, made on first use */
    uint64_t jit_end;       /* insns at which the current page run ends */
    uint32_t jit_page;      /* virtual code page of the last block run */
};

struct arm_sys {
    int ncores;
    int engine;             /* ARM_ENGINE_* */
    arm_cpu **cpu;
    phys_map *map;
    arm_hooks hooks;
    excl_state excl[8];
};

/* Condition check, ARM ARM A8.3. */
static inline int cond_pass(const arm_cpu *c, uint32_t cond)
{
    switch (cond) {
    case 0: return c->zf == 0;
    case 1: return c->zf != 0;
    case 2: return c->cf;
    case 3: return !c->cf;
    case 4: return c->nf >> 31;
    case 5: return !(c->nf >> 31);
    case 6: return c->vf >> 31;
    case 7: return !(c->vf >> 31);
    case 8: return c->cf && c->zf;
    case 9: return !c->cf || !c->zf;
    case 10: return !((c->nf ^ c->vf) >> 31);
    case 11: return (c->nf ^ c->vf) >> 31;
    case 12: return c->zf && !((c->nf ^ c->vf) >> 31);
    case 13: return !c->zf || ((c->nf ^ c->vf) >> 31);
    default: return 1;
    }
}

static inline void set_nz(arm_cpu *c, uint32_t v)
{
    c->nf = v;
    c->zf = v;
}

/* exceptions.c */
uint32_t cpsr_read(const arm_cpu *c);
/* Writes the CPSR bits in mask, switching register banks as needed.
 * exc_return allows the execution-state bits (T, IT, J). */
void cpsr_write(arm_cpu *c, uint32_t val, uint32_t mask, int exc_return);
uint32_t *spsr_ptr(arm_cpu *c);     /* NULL in usr/sys */
int mode_valid(uint32_t mode);
int bank_of(uint32_t mode);
/* User-mode view of r8-r14 from any mode (LDM/STM ^). */
uint32_t get_user_reg(arm_cpu *c, int n);
void set_user_reg(arm_cpu *c, int n, uint32_t v);
/* Takes an exception for the instruction at pc (the current one). */
void take_exception(arm_cpu *c, int exc, uint32_t pc);
void undefined(arm_cpu *c);
/* A load or a store instruction completed (the PMU's events 0x06, 0x07:
 * one per instruction, whatever it moves). */
static inline void count_load(arm_cpu *c)
{
    c->pmu.loads += c->pmu.per_insn;
}
static inline void count_store(arm_cpu *c)
{
    c->pmu.stores += c->pmu.per_insn;
}
static inline void set_next_pc(arm_cpu *c, uint32_t pc)
{
    c->next_pc = pc;
    c->flow |= FLOW_JUMP;
}
/* A software write of the PC, the PMU's event 0x0C. An exception's entry
 * is not one; an exception return is, counted at the privilege it
 * leaves. */
static inline void jump_to(arm_cpu *c, uint32_t pc)
{
    set_next_pc(c, pc);
    c->pmu.pc_writes += c->pmu.per_insn;
}

/* Interworking branch (BXWritePC, ARM ARM A2.3.1). A change of
 * instruction set leaves the loop, which runs one set only. */
static inline void bx_write_pc(arm_cpu *c, uint32_t v)
{
    uint32_t t = (v & 1) ? CPSR_T : 0;
    if ((c->cpsr & CPSR_T) != t) {
        c->cpsr ^= CPSR_T;
        c->flow |= FLOW_BREAK;
    }
    jump_to(c, v & (t ? ~1u : ~3u));
}
/* Exception return: CPSR from SPSR, then branch. */
void exception_return(arm_cpu *c, uint32_t pc);

/* mmu.c */
void tlb_flush(arm_cpu *c);
void tlb_flush_mva(arm_cpu *c, uint32_t va, int all_asids);
void tlb_flush_asid(arm_cpu *c, uint32_t asid);
/* DACR changed: drop the entries of domains whose access type changed. */
void tlb_dacr_changed(arm_cpu *c, uint32_t old_dacr, uint32_t new_dacr);
/* Translation without side effects on the CPU; returns 0 or a short-format
 * FSR (with domain and WnR) describing the fault. */
uint32_t mmu_translate(arm_cpu *c, uint32_t va, int acc, int pl1,
                       uint32_t *pa, tlb_entry *fill);
/* Slow paths; return nonzero after taking a data abort. `user` selects
 * PL0 permissions (LDRT/STRT). size is 1, 2 or 4 bytes. */
int mem_read_slow(arm_cpu *c, uint32_t va, int size, int user, uint32_t *v);
int mem_write_slow(arm_cpu *c, uint32_t va, int size, int user, uint32_t v);
/* Instruction fetch: host pointer of the page holding va, or NULL after a
 * prefetch abort. *pa_page gets the physical page. */
uint8_t *fetch_page(arm_cpu *c, uint32_t va, uint32_t *pa_page);
/* Physical address for exclusives; nonzero after taking an abort. */
int mem_va_to_pa(arm_cpu *c, uint32_t va, int acc, uint32_t *pa);
void data_abort(arm_cpu *c, uint32_t va, uint32_t fsr);

static inline tlb_entry *tlb_slot(tlb_entry t[2][TLB_SIZE], int pl1,
                                  uint32_t va)
{
    return &t[pl1][(va >> 12) & (TLB_SIZE - 1)];
}

/* Fast paths: aligned RAM hits in the TLB; the rest goes slow. */
static inline int mem_read(arm_cpu *c, uint32_t va, int size, uint32_t *v)
{
    tlb_entry *e = tlb_slot(c->tlb_r, c->priv, va);
    if (e->tag == (va & ~0xfffu) && !(va & (size - 1))) {
        uint8_t *p = (uint8_t *)(va + e->addend);
        if (size == 4)
            memcpy(v, p, 4);
        else if (size == 2) {
            uint16_t h;
            memcpy(&h, p, 2);
            *v = h;
        } else
            *v = *p;
        return 0;
    }
    return mem_read_slow(c, va, size, 0, v);
}

static inline int mem_write(arm_cpu *c, uint32_t va, int size, uint32_t v)
{
    tlb_entry *e = tlb_slot(c->tlb_w, c->priv, va);
    if (e->tag == (va & ~0xfffu) && !(va & (size - 1))) {
        uint8_t *p = (uint8_t *)(va + e->addend);
        if (size == 4)
            memcpy(p, &v, 4);
        else if (size == 2) {
            uint16_t h = v;
            memcpy(p, &h, 2);
        } else
            *p = v;
        return 0;
    }
    return mem_write_slow(c, va, size, 0, v);
}

/* cp15.c: return 0, or 1 if the access is UNDEFINED. */
int cp_read(arm_cpu *c, int cp, int opc1, int crn, int crm, int opc2,
            uint32_t *v);
int cp_write(arm_cpu *c, int cp, int opc1, int crn, int crm, int opc2,
             uint32_t v);
int cp_read64(arm_cpu *c, int cp, int opc1, int crm, uint64_t *v);
int cp_write64(arm_cpu *c, int cp, int opc1, int crm, uint64_t v);
void cp15_reset(arm_cpu *c);

/* pmu.c: the PMU's registers (c9, ARM ARM B4.1.116-B4.1.131 with C12)
 * for cp15.c, and the points where counting changes. */
int pmu_read(arm_cpu *c, int crm, int opc2, uint32_t *v);
int pmu_write(arm_cpu *c, int crm, int opc2, uint32_t v);
void pmu_reset(arm_cpu *c);
/* Settles every counter and recomputes which run: called after a change
 * of privilege, CPI or an event source, and when c->insns reaches
 * c->pmu_deadline. Cheap when nothing counts. */
void pmu_sync(arm_cpu *c);
static inline void pmu_event(arm_cpu *c, uint64_t *source)
{
    (*source)++;
    if (c->pmu.running)
        pmu_sync(c);
}

/* exec.c: the reference loop over ARM code in one page; jit.c: the fast
 * engine's, with the same exits and counts. Both return the instructions
 * run. */
uint64_t run_arm_page(arm_cpu *c, uint64_t budget);
/* Host page of the code at c->pc, its physical page in *ppage; NULL after
 * a Prefetch Abort, which counts as one instruction. */
uint8_t *enter_code_page(arm_cpu *c, uint32_t *ppage);
uint64_t jit_run_arm_page(arm_cpu *c, uint64_t budget);
int jit_available(void);
void jit_free(jit_cache *j);

/* decode.c / thumb.c */
void arm_decode(arm_insn *d, uint32_t raw);
void thumb_decode(arm_insn *d, uint32_t raw);

/* exec.c: the A32 handlers decode.c chooses among. */
#define ARM_HANDLERS(X) \
    X(undef) X(dp_imm) X(dp_regimm) X(dp_regreg) X(movw) X(movt) \
    X(mul) X(mul_long) X(mul_half) X(mrs) X(msr) X(bx) X(blx_reg) X(clz) \
    X(qaddsub) X(bkpt) X(hvc) X(smc) X(hint) X(ldst) X(ldst_extra) \
    X(ldrd_strd) X(ldm) X(stm) X(swp) X(ldrex) X(strex) X(extend) X(rev) \
    X(sat) X(sat16) X(bitfield) X(div) X(pkh) X(sel) X(parallel) \
    X(smlad) X(smlald) X(smmul) X(usad8) X(b) X(blx_imm) X(svc) X(nop) \
    X(clrex) X(barrier) X(cps) X(srs) X(rfe) X(mcr) X(mrc) X(mcrr) X(mrrc) \
    X(ldr_imm) X(str_imm) X(ldrb_imm) X(strb_imm)
#define ARM_DECLARE(n) arm_exec_fn exec_##n;
ARM_HANDLERS(ARM_DECLARE)

/* Data-processing handlers specialised by opcode for Rd != PC: form is
 * DPF_IMM (modified immediate), DPF_REG (plain register) or DPF_SHIFT
 * (register with an immediate shift in aux), plus 1 for S. */
enum { DPF_IMM = 0, DPF_REG = 2, DPF_SHIFT = 4 };
arm_exec_fn *dp_fast_handler(int form, int op);

/* The shifter and the ALU, shared with thumb.c; inline so that handlers
 * with a constant opcode compile to straight-line code. */
static inline uint32_t ror32(uint32_t v, unsigned n)
{
    n &= 31;
    return n ? (v >> n) | (v << (32 - n)) : v;
}

/* ARM ARM A8.4.3, immediate shifts: LSR/ASR #0 mean #32, ROR #0 is RRX. */
static inline uint32_t shift_imm(const arm_cpu *c, uint32_t v, int type, int amt,
                   uint32_t *carry)
{
    switch (type) {
    case 0:
        if (!amt) {
            *carry = c->cf;
            return v;
        }
        *carry = (v >> (32 - amt)) & 1;
        return v << amt;
    case 1:
        if (!amt) {
            *carry = v >> 31;
            return 0;
        }
        *carry = (v >> (amt - 1)) & 1;
        return v >> amt;
    case 2:
        if (!amt) {
            *carry = v >> 31;
            return (uint32_t)((int32_t)v >> 31);
        }
        *carry = (v >> (amt - 1)) & 1;
        return (uint32_t)((int32_t)v >> amt);
    default:
        if (!amt) {
            *carry = v & 1;
            return (c->cf << 31) | (v >> 1);
        }
        *carry = (v >> (amt - 1)) & 1;
        return ror32(v, amt);
    }
}

/* Register-controlled shifts use the bottom byte of Rs, ARM ARM A8.4.4. */
static inline uint32_t shift_reg(const arm_cpu *c, uint32_t v, int type, uint32_t n,
                   uint32_t *carry)
{
    n &= 0xff;
    if (!n) {
        *carry = c->cf;
        return v;
    }
    switch (type) {
    case 0:
        if (n < 32) {
            *carry = (v >> (32 - n)) & 1;
            return v << n;
        }
        *carry = n == 32 ? v & 1 : 0;
        return 0;
    case 1:
        if (n < 32) {
            *carry = (v >> (n - 1)) & 1;
            return v >> n;
        }
        *carry = n == 32 ? v >> 31 : 0;
        return 0;
    case 2:
        if (n < 32) {
            *carry = (v >> (n - 1)) & 1;
            return (uint32_t)((int32_t)v >> n);
        }
        *carry = v >> 31;
        return (uint32_t)((int32_t)v >> 31);
    default:
        *carry = (ror32(v, n - 1)) & 1;
        return ror32(v, n);
    }
}

static inline uint32_t alu_op(arm_cpu *c, int op, uint32_t a, uint32_t b, int s,
                uint32_t shc)
{
    uint32_t r;
    uint64_t t;
    switch (op) {
    case 0: case 8: r = a & b; break;
    case 1: case 9: r = a ^ b; break;
    case 12: r = a | b; break;
    case 13: r = b; break;
    case 14: r = a & ~b; break;
    case 15: r = ~b; break;
    case 2: case 10:
        r = a - b;
        if (s) {
            c->cf = a >= b;
            c->vf = (a ^ b) & (a ^ r);
            set_nz(c, r);
        }
        return r;
    case 3:
        r = b - a;
        if (s) {
            c->cf = b >= a;
            c->vf = (b ^ a) & (b ^ r);
            set_nz(c, r);
        }
        return r;
    case 4: case 11:
        r = a + b;
        if (s) {
            c->cf = r < a;
            c->vf = (a ^ r) & ~(a ^ b);
            set_nz(c, r);
        }
        return r;
    case 5:
        t = (uint64_t)a + b + c->cf;
        r = (uint32_t)t;
        if (s) {
            c->cf = t >> 32;
            c->vf = (a ^ r) & ~(a ^ b);
            set_nz(c, r);
        }
        return r;
    case 6:
        t = (uint64_t)a + (uint32_t)~b + c->cf;
        r = (uint32_t)t;
        if (s) {
            c->cf = t >> 32;
            c->vf = (a ^ b) & (a ^ r);
            set_nz(c, r);
        }
        return r;
    default:
        t = (uint64_t)b + (uint32_t)~a + c->cf;
        r = (uint32_t)t;
        if (s) {
            c->cf = t >> 32;
            c->vf = (b ^ a) & (b ^ r);
            set_nz(c, r);
        }
        return r;
    }
    if (s) {
        c->cf = shc;
        set_nz(c, r);
    }
    return r;
}


#endif
