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

/* Exceptions, ARM ARM B1.8. */
enum { EXC_UND, EXC_SVC, EXC_PABT, EXC_DABT, EXC_IRQ, EXC_FIQ };

/* Access kinds for translation. */
enum { ACC_READ = 0, ACC_WRITE = 1, ACC_EXEC = 2 };

/* One decoded instruction. Handlers take their register fields from raw
 * (cheap shifts); decoding chooses the handler and precomputes what is
 * expensive (rotated immediates, shift forms). */
typedef struct arm_insn arm_insn;
typedef void arm_exec_fn(arm_cpu *c, const arm_insn *d);
struct arm_insn {
    arm_exec_fn *fn;
    uint32_t raw;       /* encoding; compared at fetch (self-modifying code) */
    uint32_t imm;
    uint32_t aux;
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
typedef struct tlb_entry {
    uint32_t tag;
    uint32_t pa_page;
    uintptr_t addend;   /* host = va + addend */
    uint32_t region_mask; /* size of the mapping it came from, for TLBIMVA */
    uint8_t global;
    uint8_t asid;
} tlb_entry;

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
    /* PMU, ARM ARM C12: only the cycle counter counts. */
    uint32_t pmcr, pmcnten, pmovsr, pmselr, pmuserenr, pminten;
    uint64_t pmccntr_base;  /* cycle count when PMCCNTR read 0 */
    uint32_t pmccntr_frozen;
    /* Generic timer, ARM ARM B8. */
    uint32_t cntfrq, cntkctl;
    uint32_t cnt_ctl[2];
    uint64_t cnt_cval[2];
} cp15_state;

struct arm_cpu {
    uint32_t r[16];
    /* Flags kept apart for fast condition checks: N is bit 31 of nf, Z is
     * zf == 0, C is cf (0 or 1), V is bit 31 of vf. */
    uint32_t nf, zf, cf, vf;
    uint32_t cpsr;          /* all other CPSR bits (mode, AIF, T, Q, GE...) */
    uint32_t pc;            /* next instruction, between instructions */
    uint32_t next_pc;       /* set by handlers; the loop continues there */
    uint32_t brk;           /* leave the inner loop after this instruction */
    uint32_t bank_r13[NBANKS], bank_r14[NBANKS], bank_spsr[NBANKS];
    uint32_t fiq_r8[5], usr_r8[5];
    uint32_t priv;          /* 1 at PL1 */
    uint32_t halted;        /* HALT_WFI or HALT_WFE */
    uint32_t powered, exit_req, irq_line, fiq_line, event;
    uint32_t cpi;
    /* Instructions executed, counted as they run; cycles are derived so
     * that a mid-run read (PMCCNTR, the engine's counter) is exact. */
    uint64_t insns, insns_base, cycles_base;
    int index;
    arm_sys *sys;
    cp15_state cp15;
    uint32_t asid;
    /* Soft TLBs indexed [pl1][va page]. */
    tlb_entry tlb_r[2][TLB_SIZE], tlb_w[2][TLB_SIZE], tlb_x[2][TLB_SIZE];
    arm_insn *dcache;       /* ARM decode cache, indexed by pa >> 2 */
    arm_insn *tcache;       /* Thumb decode cache, indexed by pa >> 1 */
};

struct arm_sys {
    int ncores;
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
/* Interworking branch (BXWritePC). */
static inline void bx_write_pc(arm_cpu *c, uint32_t v)
{
    if (v & 1) {
        c->cpsr |= CPSR_T;
        c->next_pc = v & ~1u;
    } else {
        c->cpsr &= ~CPSR_T;
        c->next_pc = v & ~3u;
    }
    c->brk = 1;
}
/* Exception return: CPSR from SPSR, then branch. */
void exception_return(arm_cpu *c, uint32_t pc);

/* mmu.c */
void tlb_flush(arm_cpu *c);
void tlb_flush_mva(arm_cpu *c, uint32_t va, int all_asids);
void tlb_flush_asid(arm_cpu *c, uint32_t asid);
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
    X(clrex) X(cps) X(srs) X(rfe) X(mcr) X(mrc) X(mcrr) X(mrrc)
#define ARM_DECLARE(n) arm_exec_fn exec_##n;
ARM_HANDLERS(ARM_DECLARE)

/* Shared with thumb.c. */
uint32_t alu_op(arm_cpu *c, int op, uint32_t a, uint32_t b, int s,
                uint32_t shc);
uint32_t shift_imm(const arm_cpu *c, uint32_t v, int type, int amt,
                   uint32_t *carry);
uint32_t shift_reg(const arm_cpu *c, uint32_t v, int type, uint32_t n,
                   uint32_t *carry);

#endif
