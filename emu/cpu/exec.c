/* A32 instruction semantics (ARM ARM A8) and the interpreter loop.
 *
 * Handlers read register fields from the encoding (the fast ones from the
 * fields decode.c extracted); decode.c has already chosen the handler and
 * precomputed immediates. A handler that branches or takes an exception
 * calls jump_to(), and sets FLOW_BREAK when the loop must re-check the
 * mode, the TLB or interrupts. c->r[15] holds the address of the current
 * instruction plus 8 (plus 4 in Thumb) while it executes. */
#include <stdlib.h>
#include "arm_int.h"
#include "panlab/error.h"

#define RN(raw) (((raw) >> 16) & 15)
#define RD(raw) (((raw) >> 12) & 15)
#define RS(raw) (((raw) >> 8) & 15)
#define RM(raw) ((raw) & 15)
#define BIT(raw, n) (((raw) >> (n)) & 1)

static inline uint32_t cur_pc(const arm_cpu *c)
{
    return c->r[15] - 8;
}

/* Result write-back. Rd = 15 branches with interworking (ALUWritePC,
 * ARM ARM A2.3.1) or, with S, returns from an exception. */
static inline void dp_write(arm_cpu *c, uint32_t raw, uint32_t r)
{
    int op = (raw >> 21) & 15, rd = RD(raw);
    if (op >= 8 && op <= 11)
        return;
    if (rd != 15)
        c->r[rd] = r;
    else if (BIT(raw, 20))
        exception_return(c, r);
    else
        bx_write_pc(c, r);
}

void exec_dp_imm(arm_cpu *c, const arm_insn *d)
{
    uint32_t raw = d->raw;
    uint32_t shc = d->aux == 2 ? c->cf : d->aux;
    dp_write(c, raw, alu_op(c, (raw >> 21) & 15, c->r[RN(raw)], d->imm,
                            BIT(raw, 20), shc));
}

void exec_dp_regimm(arm_cpu *c, const arm_insn *d)
{
    uint32_t raw = d->raw, carry;
    uint32_t b = shift_imm(c, c->r[RM(raw)], (raw >> 5) & 3,
                           (raw >> 7) & 31, &carry);
    dp_write(c, raw, alu_op(c, (raw >> 21) & 15, c->r[RN(raw)], b,
                            BIT(raw, 20), carry));
}

void exec_dp_regreg(arm_cpu *c, const arm_insn *d)
{
    uint32_t raw = d->raw, carry;
    uint32_t b = shift_reg(c, c->r[RM(raw)], (raw >> 5) & 3, c->r[RS(raw)],
                           &carry);
    dp_write(c, raw, alu_op(c, (raw >> 21) & 15, c->r[RN(raw)], b,
                            BIT(raw, 20), carry));
}

static inline void dpf_store(arm_cpu *c, const arm_insn *d, int op,
                             uint32_t r)
{
    if (op < 8 || op > 11)
        c->r[d->rd] = r;
}

#define DPF(op) \
static void dpf_imm_##op(arm_cpu *c, const arm_insn *d) \
{ \
    dpf_store(c, d, op, alu_op(c, op, c->r[d->rn], d->imm, 0, 0)); \
} \
static void dpf_imms_##op(arm_cpu *c, const arm_insn *d) \
{ \
    uint32_t shc = d->aux == 2 ? c->cf : d->aux; \
    dpf_store(c, d, op, alu_op(c, op, c->r[d->rn], d->imm, 1, shc)); \
} \
static void dpf_reg_##op(arm_cpu *c, const arm_insn *d) \
{ \
    dpf_store(c, d, op, alu_op(c, op, c->r[d->rn], c->r[d->rm], 0, 0)); \
} \
static void dpf_regs_##op(arm_cpu *c, const arm_insn *d) \
{ \
    dpf_store(c, d, op, alu_op(c, op, c->r[d->rn], c->r[d->rm], 1, c->cf)); \
} \
static void dpf_sh_##op(arm_cpu *c, const arm_insn *d) \
{ \
    uint32_t k; \
    uint32_t b = shift_imm(c, c->r[d->rm], d->aux & 3, d->aux >> 2, &k); \
    dpf_store(c, d, op, alu_op(c, op, c->r[d->rn], b, 0, 0)); \
} \
static void dpf_shs_##op(arm_cpu *c, const arm_insn *d) \
{ \
    uint32_t k; \
    uint32_t b = shift_imm(c, c->r[d->rm], d->aux & 3, d->aux >> 2, &k); \
    dpf_store(c, d, op, alu_op(c, op, c->r[d->rn], b, 1, k)); \
}
#define DPF_OPS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) \
    X(10) X(11) X(12) X(13) X(14) X(15)
DPF_OPS(DPF)
#define DPF_ROW(form) { DPF_OPS(form) }
#define F_IMM(op) dpf_imm_##op,
#define F_IMMS(op) dpf_imms_##op,
#define F_REG(op) dpf_reg_##op,
#define F_REGS(op) dpf_regs_##op,
#define F_SH(op) dpf_sh_##op,
#define F_SHS(op) dpf_shs_##op,

arm_exec_fn *dp_fast_handler(int form, int op)
{
    static arm_exec_fn *const tab[6][16] = {
        DPF_ROW(F_IMM), DPF_ROW(F_IMMS), DPF_ROW(F_REG), DPF_ROW(F_REGS),
        DPF_ROW(F_SH), DPF_ROW(F_SHS),
    };
    return tab[form][op];
}

void exec_movw(arm_cpu *c, const arm_insn *d)
{
    c->r[RD(d->raw)] = d->imm;
}

void exec_movt(arm_cpu *c, const arm_insn *d)
{
    int rd = RD(d->raw);
    c->r[rd] = (c->r[rd] & 0xffff) | d->imm << 16;
}

/* MUL, MLA, UMAAL, MLS: ARM ARM A8.8.114, A8.8.100, A8.8.255, A8.8.101. */
void exec_mul(arm_cpu *c, const arm_insn *d)
{
    uint32_t raw = d->raw;
    uint32_t n = c->r[RM(raw)], m = c->r[RS(raw)], a = c->r[RD(raw)];
    int rd = RN(raw);
    switch ((raw >> 21) & 7) {
    case 0: c->r[rd] = n * m; break;
    case 1: c->r[rd] = n * m + a; break;
    case 2: {
        uint64_t r = (uint64_t)n * m + c->r[rd] + a;
        c->r[RD(raw)] = (uint32_t)r;
        c->r[rd] = r >> 32;
        return;
    }
    default: c->r[rd] = a - n * m; return;
    }
    if (BIT(raw, 20))
        set_nz(c, c->r[rd]);
}

/* UMULL, UMLAL, SMULL, SMLAL. */
void exec_mul_long(arm_cpu *c, const arm_insn *d)
{
    uint32_t raw = d->raw;
    uint32_t n = c->r[RM(raw)], m = c->r[RS(raw)];
    int lo = RD(raw), hi = RN(raw);
    uint64_t acc = BIT(raw, 21) ? ((uint64_t)c->r[hi] << 32 | c->r[lo]) : 0;
    uint64_t r = BIT(raw, 22) ? (uint64_t)((int64_t)(int32_t)n * (int32_t)m)
                              : (uint64_t)n * m;
    r += acc;
    c->r[lo] = (uint32_t)r;
    c->r[hi] = r >> 32;
    if (BIT(raw, 20)) {
        c->nf = r >> 32;
        c->zf = (r >> 32) | (uint32_t)r;
    }
}

static inline int32_t half(uint32_t v, int top)
{
    return (int16_t)(top ? v >> 16 : v);
}

static inline uint32_t add_q(arm_cpu *c, uint32_t a, uint32_t b)
{
    uint32_t r = a + b;
    if ((a ^ r) & ~(a ^ b) & 0x80000000u)
        c->cpsr |= CPSR_Q;
    return r;
}

/* SMLA<x><y>, SMLAW<y>, SMULW<y>, SMLAL<x><y>, SMUL<x><y>: ARM ARM
 * A8.8.176-A8.8.183, A8.8.201, A8.8.209-A8.8.210. */
void exec_mul_half(arm_cpu *c, const arm_insn *d)
{
    uint32_t raw = d->raw;
    uint32_t n = c->r[RM(raw)], m = c->r[RS(raw)], a = c->r[RD(raw)];
    int rd = RN(raw), x = BIT(raw, 5), y = BIT(raw, 6);
    int32_t p = half(n, x) * half(m, y);
    switch ((raw >> 21) & 3) {
    case 0:
        c->r[rd] = add_q(c, (uint32_t)p, a);
        break;
    case 1: {
        uint32_t w = (uint32_t)(((int64_t)(int32_t)n * half(m, y)) >> 16);
        c->r[rd] = x ? w : add_q(c, w, a);
        break;
    }
    case 2: {
        uint64_t acc = (uint64_t)c->r[rd] << 32 | a;
        acc += (uint64_t)(int64_t)p;
        c->r[RD(raw)] = (uint32_t)acc;
        c->r[rd] = acc >> 32;
        break;
    }
    default:
        c->r[rd] = (uint32_t)p;
    }
}

/* MRS: execution-state bits read as zero, ARM ARM B9.3.8. */
void exec_mrs(arm_cpu *c, const arm_insn *d)
{
    uint32_t raw = d->raw, v;
    if (BIT(raw, 22)) {
        uint32_t *sp = spsr_ptr(c);
        v = sp ? *sp : 0;
    } else {
        v = cpsr_read(c) & 0xf8ff03dfu;
    }
    c->r[RD(raw)] = v;
}

/* MSR (immediate and register), ARM ARM B9.3.10-B9.3.12. */
void exec_msr(arm_cpu *c, const arm_insn *d)
{
    uint32_t raw = d->raw;
    uint32_t v = BIT(raw, 25) ? d->imm : c->r[RM(raw)];
    uint32_t mask = 0;
    for (int i = 0; i < 4; i++)
        if (BIT(raw, 16 + i))
            mask |= 0xffu << (8 * i);
    mask &= ~0x00f00000u;
    if (BIT(raw, 22)) {
        uint32_t *sp = spsr_ptr(c);
        if (sp)
            *sp = (*sp & ~mask) | (v & mask);
        return;
    }
    if (!c->priv)
        mask &= 0xf80f0000u;
    cpsr_write(c, v, mask, 0);
}

void exec_bx(arm_cpu *c, const arm_insn *d)
{
    bx_write_pc(c, c->r[RM(d->raw)]);
}

void exec_blx_reg(arm_cpu *c, const arm_insn *d)
{
    uint32_t t = c->r[RM(d->raw)];
    c->r[14] = cur_pc(c) + 4;
    bx_write_pc(c, t);
}

void exec_clz(arm_cpu *c, const arm_insn *d)
{
    uint32_t v = c->r[RM(d->raw)];
    c->r[RD(d->raw)] = v ? (uint32_t)__builtin_clz(v) : 32;
}

static uint32_t sat_add(arm_cpu *c, uint32_t a, uint32_t b, int sub)
{
    int64_t r = sub ? (int64_t)(int32_t)a - (int32_t)b
                    : (int64_t)(int32_t)a + (int32_t)b;
    if (r > INT32_MAX) {
        c->cpsr |= CPSR_Q;
        return INT32_MAX;
    }
    if (r < INT32_MIN) {
        c->cpsr |= CPSR_Q;
        return (uint32_t)INT32_MIN;
    }
    return (uint32_t)r;
}

/* QADD, QSUB, QDADD, QDSUB. */
void exec_qaddsub(arm_cpu *c, const arm_insn *d)
{
    uint32_t raw = d->raw, n = c->r[RN(raw)];
    int op = (raw >> 21) & 3;
    if (op & 2)
        n = sat_add(c, n, n, 0);
    c->r[RD(raw)] = sat_add(c, c->r[RM(raw)], n, op & 1);
}

/* BKPT is a debug event: Prefetch Abort with IFSR "debug event". */
void exec_bkpt(arm_cpu *c, const arm_insn *d)
{
    (void)d;
    c->cp15.ifsr = 0x2;
    take_exception(c, EXC_PABT, cur_pc(c));
}

static void firmware_call(arm_cpu *c, int (*fn)(void *, arm_cpu *))
{
    if (!c->priv || !fn || !fn(c->sys->hooks.opaque, c))
        undefined(c);
}

void exec_hvc(arm_cpu *c, const arm_insn *d)
{
    (void)d;
    firmware_call(c, c->sys->hooks.hvc);
}

void exec_smc(arm_cpu *c, const arm_insn *d)
{
    (void)d;
    firmware_call(c, c->sys->hooks.smc);
}

/* NOP, YIELD, WFE, WFI, SEV: ARM ARM A8.8.424-A8.8.427. */
void exec_hint(arm_cpu *c, const arm_insn *d)
{
    switch (d->raw & 0xff) {
    case 2:
        if (c->event)
            c->event = 0;
        else if (!c->irq_line && !c->fiq_line) {
            c->halted = HALT_WFE;
            c->flow |= FLOW_BREAK;
        }
        break;
    case 3:
        if (!c->irq_line && !c->fiq_line) {
            c->halted = HALT_WFI;
            c->flow |= FLOW_BREAK;
        }
        break;
    case 4:
        if (c->sys->hooks.send_event) {
            c->sys->hooks.send_event(c->sys->hooks.opaque, c);
            break;
        }
        for (int i = 0; i < c->sys->ncores; i++)
            arm_signal_event(c->sys->cpu[i]);
        break;
    }
}

void exec_nop(arm_cpu *c, const arm_insn *d)
{
    (void)c;
    (void)d;
}

static int load(arm_cpu *c, uint32_t a, int size, int user, uint32_t *v)
{
    return user ? mem_read_slow(c, a, size, 1, v) : mem_read(c, a, size, v);
}

static int store(arm_cpu *c, uint32_t a, int size, int user, uint32_t v)
{
    return user ? mem_write_slow(c, a, size, 1, v)
                : mem_write(c, a, size, v);
}

/* LDR, STR, LDRB, STRB and the T forms, ARM ARM A8.8.62 and on. The
 * immediate offset is in d->imm; a register offset has an immediate
 * shift. P=0 W=1 selects the unprivileged (T) forms. */
void exec_ldst(arm_cpu *c, const arm_insn *d)
{
    uint32_t raw = d->raw, off, v, carry;
    int rn = RN(raw), rt = RD(raw), size = BIT(raw, 22) ? 1 : 4;
    if (BIT(raw, 25))
        off = shift_imm(c, c->r[RM(raw)], (raw >> 5) & 3, (raw >> 7) & 31,
                        &carry);
    else
        off = d->imm;
    uint32_t base = c->r[rn];
    uint32_t oa = BIT(raw, 23) ? base + off : base - off;
    int p = BIT(raw, 24), w = BIT(raw, 21);
    uint32_t a = p ? oa : base;
    int user = !p && w;
    if (BIT(raw, 20)) {
        if (load(c, a, size, user, &v))
            return;
        count_load(c);
        if (!p || w)
            c->r[rn] = oa;
        if (rt == 15)
            bx_write_pc(c, v);
        else
            c->r[rt] = v;
    } else {
        if (store(c, a, size, user, c->r[rt]))
            return;
        count_store(c);
        if (!p || w)
            c->r[rn] = oa;
    }
}

void exec_ldr_imm(arm_cpu *c, const arm_insn *d)
{
    uint32_t v;
    if (!mem_read(c, c->r[d->rn] + d->imm, 4, &v)) {
        count_load(c);
        c->r[d->rd] = v;
    }
}

void exec_str_imm(arm_cpu *c, const arm_insn *d)
{
    if (!mem_write(c, c->r[d->rn] + d->imm, 4, c->r[d->rd]))
        count_store(c);
}

void exec_ldrb_imm(arm_cpu *c, const arm_insn *d)
{
    uint32_t v;
    if (!mem_read(c, c->r[d->rn] + d->imm, 1, &v)) {
        count_load(c);
        c->r[d->rd] = v;
    }
}

void exec_strb_imm(arm_cpu *c, const arm_insn *d)
{
    if (!mem_write(c, c->r[d->rn] + d->imm, 1, c->r[d->rd]))
        count_store(c);
}

static inline uint32_t extra_offset(const arm_cpu *c, const arm_insn *d)
{
    return BIT(d->raw, 22) ? d->imm : c->r[RM(d->raw)];
}

/* LDRH, STRH, LDRSB, LDRSH and their T forms, ARM ARM A8.8.80-A8.8.89. */
void exec_ldst_extra(arm_cpu *c, const arm_insn *d)
{
    uint32_t raw = d->raw, off = extra_offset(c, d), v;
    int rn = RN(raw), rt = RD(raw), op2 = (raw >> 5) & 3;
    uint32_t base = c->r[rn];
    uint32_t oa = BIT(raw, 23) ? base + off : base - off;
    int p = BIT(raw, 24), w = BIT(raw, 21);
    uint32_t a = p ? oa : base;
    int user = !p && w;
    if (BIT(raw, 20)) {
        int size = op2 == 2 ? 1 : 2;
        if (load(c, a, size, user, &v))
            return;
        count_load(c);
        if (op2 == 2)
            v = (uint32_t)(int8_t)v;
        else if (op2 == 3)
            v = (uint32_t)(int16_t)v;
        if (!p || w)
            c->r[rn] = oa;
        c->r[rt] = v;
    } else {
        if (store(c, a, 2, user, c->r[rt]))
            return;
        count_store(c);
        if (!p || w)
            c->r[rn] = oa;
    }
}

static int check_align(arm_cpu *c, uint32_t a, uint32_t size, int wr)
{
    if (a & (size - 1)) {
        data_abort(c, a, 0x01 | (wr ? 1u << 11 : 0));
        return 1;
    }
    return 0;
}

/* LDRD and STRD: word alignment is required whatever SCTLR.A says. */
void exec_ldrd_strd(arm_cpu *c, const arm_insn *d)
{
    uint32_t raw = d->raw, off = extra_offset(c, d);
    int rn = RN(raw), rt = RD(raw) & 14, st = BIT(raw, 5);
    uint32_t base = c->r[rn];
    uint32_t oa = BIT(raw, 23) ? base + off : base - off;
    int p = BIT(raw, 24), w = BIT(raw, 21);
    uint32_t a = p ? oa : base, v0, v1;
    if (check_align(c, a, 4, st))
        return;
    if (st) {
        if (mem_write(c, a, 4, c->r[rt]) || mem_write(c, a + 4, 4, c->r[rt + 1]))
            return;
        count_store(c);
    } else {
        /* Rt is written before the second load, as QEMU does. */
        if (mem_read(c, a, 4, &v0))
            return;
        c->r[rt] = v0;
        if (mem_read(c, a + 4, 4, &v1))
            return;
        c->r[rt + 1] = v1;
        count_load(c);
    }
    if (!p || w)
        c->r[rn] = oa;
}

/* Number of registers in a 16-bit list (no libgcc call at -O2). */
static inline uint32_t count16(uint32_t x)
{
    x = x - ((x >> 1) & 0x5555);
    x = (x & 0x3333) + ((x >> 2) & 0x3333);
    x = (x + (x >> 4)) & 0x0f0f;
    return (x + (x >> 8)) & 0x1f;
}

/* Start address and write-back value of an LDM/STM; returns the bytes. */
static uint32_t block_range(const arm_cpu *c, uint32_t raw, uint32_t *start,
                            uint32_t *wb)
{
    uint32_t n = 4 * count16(raw & 0xffff);
    uint32_t base = c->r[RN(raw)];
    int p = BIT(raw, 24);
    if (BIT(raw, 23)) {
        *start = p ? base + 4 : base;
        *wb = base + n;
    } else {
        *start = p ? base - n : base - n + 4;
        *wb = base - n;
    }
    return n;
}

/* Host pointer for a whole block transfer when it hits one RAM page in the
 * TLB (function prologues and epilogues); NULL takes the per-word path. */
static inline uint8_t *block_host(arm_cpu *c, uint32_t a, uint32_t n, int wr)
{
    tlb_entry *e = tlb_slot(wr ? c->tlb_w : c->tlb_r, c->priv, a);
    if (((a ^ (a + n - 1)) & ~0xfffu) || e->tag != (a & ~0xfffu))
        return NULL;
    return (uint8_t *)(a + e->addend);
}

/* LDM forms, ARM ARM A8.8.58-A8.8.61, B9.3.5 (user registers) and B9.3.6
 * (exception return). On a Data Abort the registers already loaded are
 * UNKNOWN architecturally; like QEMU they keep the loaded values, while
 * the base register and the PC are only written at the end. */
void exec_ldm(arm_cpu *c, const arm_insn *d)
{
    uint32_t raw = d->raw, a, wb, v, base_val = 0, pc_val = 0;
    uint32_t n = block_range(c, raw, &a, &wb);
    if (check_align(c, a, 4, 0))
        return;
    uint32_t list = raw & 0xffff;
    int rn = RN(raw), s = BIT(raw, 22), user = s && !(list & 0x8000);
    uint8_t *h = block_host(c, a, n, 0);
    for (uint32_t l = list; l; l &= l - 1) {
        int i = __builtin_ctz(l);
        if (h) {
            memcpy(&v, h, 4);
            h += 4;
        } else if (mem_read(c, a, 4, &v)) {
            return;
        }
        a += 4;
        if (user)
            set_user_reg(c, i, v);
        else if (i == rn)
            base_val = v;
        else if (i == 15)
            pc_val = v;
        else
            c->r[i] = v;
    }
    count_load(c);
    if (user)
        return;
    if (BIT(raw, 21))
        c->r[rn] = wb;
    if (list & (1u << rn))
        c->r[rn] = base_val;
    if (list & 0x8000) {
        if (s)
            exception_return(c, pc_val);
        else
            bx_write_pc(c, pc_val);
    }
}

void exec_stm(arm_cpu *c, const arm_insn *d)
{
    uint32_t raw = d->raw, a, wb;
    uint32_t n = block_range(c, raw, &a, &wb);
    if (check_align(c, a, 4, 1))
        return;
    uint32_t list = raw & 0xffff;
    int s = BIT(raw, 22);
    uint8_t *h = block_host(c, a, n, 1);
    for (uint32_t l = list; l; l &= l - 1) {
        int i = __builtin_ctz(l);
        uint32_t v = s ? get_user_reg(c, i) : c->r[i];
        if (h) {
            memcpy(h, &v, 4);
            h += 4;
        } else if (mem_write(c, a, 4, v)) {
            return;
        }
        a += 4;
    }
    count_store(c);
    if (BIT(raw, 21))
        c->r[RN(raw)] = wb;
}

/* SWP, SWPB: ARM ARM A8.8.229. One core runs at a time, so the pair is
 * atomic. */
void exec_swp(arm_cpu *c, const arm_insn *d)
{
    uint32_t raw = d->raw, a = c->r[RN(raw)], old;
    int size = BIT(raw, 22) ? 1 : 4;
    if (check_align(c, a, size, 0) || mem_read(c, a, size, &old) ||
        mem_write(c, a, size, c->r[RM(raw)]))
        return;
    count_load(c);
    count_store(c);
    c->r[RD(raw)] = old;
}

static const uint8_t excl_size[4] = { 4, 8, 1, 2 };

/* LDREX{B,H,D}, ARM ARM A8.8.75-A8.8.78: load and mark the address in
 * this core's slot of the global monitor. */
void exec_ldrex(arm_cpu *c, const arm_insn *d)
{
    uint32_t raw = d->raw, a = c->r[RN(raw)], pa, lo, hi = 0;
    int size = excl_size[(raw >> 21) & 3], rt = RD(raw);
    if (check_align(c, a, size, 0) || mem_va_to_pa(c, a, ACC_READ, &pa))
        return;
    if (mem_read(c, a, size > 4 ? 4 : size, &lo) ||
        (size == 8 && mem_read(c, a + 4, 4, &hi)))
        return;
    excl_state *e = &c->sys->excl[c->index];
    e->va = a;
    e->pa = pa;
    e->size = size;
    e->val = (uint64_t)hi << 32 | lo;
    count_load(c);
    c->r[rt] = lo;
    if (size == 8)
        c->r[rt + 1] = hi;
    if (c->sys->hooks.sync_point)
        c->sys->hooks.sync_point(c->sys->hooks.opaque, c);
}

/* STREX{B,H,D}, ARM ARM A8.8.212-A8.8.215. */
void exec_strex(arm_cpu *c, const arm_insn *d)
{
    uint32_t raw = d->raw, a = c->r[RN(raw)], pa, lo, hi = 0;
    int size = excl_size[(raw >> 21) & 3], rt = RM(raw);
    excl_state *e = &c->sys->excl[c->index];
    if (check_align(c, a, size, 1))
        return;
    int ok = e->size == (uint32_t)size && e->va == a;
    if (ok) {
        if (mem_va_to_pa(c, a, ACC_WRITE, &pa) ||
            mem_read(c, a, size > 4 ? 4 : size, &lo) ||
            (size == 8 && mem_read(c, a + 4, 4, &hi)))
            return;
        ok = ((uint64_t)hi << 32 | lo) == e->val;
    }
    if (ok) {
        if (mem_write(c, a, size > 4 ? 4 : size, c->r[rt]) ||
            (size == 8 && mem_write(c, a + 4, 4, c->r[rt + 1])))
            return;
        for (int i = 0; i < c->sys->ncores; i++)
            if (c->sys->excl[i].size && c->sys->excl[i].pa == pa)
                c->sys->excl[i].size = 0;
    }
    e->size = 0;
    count_store(c);
    c->r[RD(raw)] = !ok;
}

/* DMB and DSB: the stores after a barrier may hand data or a lock to
 * another core, so the time engine may end the core's run here. */
void exec_barrier(arm_cpu *c, const arm_insn *d)
{
    (void)d;
    if (c->sys->hooks.sync_point)
        c->sys->hooks.sync_point(c->sys->hooks.opaque, c);
}

void exec_clrex(arm_cpu *c, const arm_insn *d)
{
    (void)d;
    c->sys->excl[c->index].size = 0;
}

/* SXTB16, SXTB, SXTH, UXTB16, UXTB, UXTH and the add forms (Rn != 15). */
void exec_extend(arm_cpu *c, const arm_insn *d)
{
    uint32_t raw = d->raw;
    uint32_t v = ror32(c->r[RM(raw)], ((raw >> 10) & 3) * 8);
    uint32_t n = RN(raw) == 15 ? 0 : c->r[RN(raw)], r;
    switch ((raw >> 20) & 7) {
    case 0:
        r = ((n + (uint32_t)(int8_t)v) & 0xffff) |
            ((n >> 16) + (uint32_t)(int8_t)(v >> 16)) << 16;
        break;
    case 2: r = n + (uint32_t)(int8_t)v; break;
    case 3: r = n + (uint32_t)(int16_t)v; break;
    case 4:
        r = ((n + (v & 0xff)) & 0xffff) | ((n >> 16) + ((v >> 16) & 0xff)) << 16;
        break;
    case 6: r = n + (v & 0xff); break;
    default: r = n + (v & 0xffff); break;
    }
    c->r[RD(raw)] = r;
}

/* REV, REV16, REVSH, RBIT (d->aux selects). */
void exec_rev(arm_cpu *c, const arm_insn *d)
{
    uint32_t v = c->r[RM(d->raw)], r;
    switch (d->aux) {
    case 0: r = __builtin_bswap32(v); break;
    case 1: r = ((v >> 8) & 0x00ff00ffu) | ((v << 8) & 0xff00ff00u); break;
    case 2: r = (uint32_t)(int16_t)__builtin_bswap16((uint16_t)v); break;
    default:
        r = 0;
        for (int i = 0; i < 32; i++)
            r |= ((v >> i) & 1) << (31 - i);
    }
    c->r[RD(d->raw)] = r;
}

static uint32_t ssat(arm_cpu *c, int64_t v, int bits)
{
    int64_t hi = ((int64_t)1 << (bits - 1)) - 1, lo = -hi - 1;
    if (v > hi || v < lo) {
        c->cpsr |= CPSR_Q;
        return (uint32_t)(v > hi ? hi : lo);
    }
    return (uint32_t)v;
}

static uint32_t usat(arm_cpu *c, int64_t v, int bits)
{
    int64_t hi = ((int64_t)1 << bits) - 1;
    if (v > hi || v < 0) {
        c->cpsr |= CPSR_Q;
        return (uint32_t)(v > hi ? hi : 0);
    }
    return (uint32_t)v;
}

/* SSAT, USAT, ARM ARM A8.8.190, A8.8.251. */
void exec_sat(arm_cpu *c, const arm_insn *d)
{
    uint32_t raw = d->raw, carry;
    int amt = (raw >> 7) & 31, sh = BIT(raw, 6), imm = (raw >> 16) & 31;
    uint32_t v = shift_imm(c, c->r[RM(raw)], sh ? 2 : 0, amt, &carry);
    c->r[RD(raw)] = BIT(raw, 22) ? usat(c, (int32_t)v, imm)
                                 : ssat(c, (int32_t)v, imm + 1);
}

void exec_sat16(arm_cpu *c, const arm_insn *d)
{
    uint32_t raw = d->raw, v = c->r[RM(raw)];
    int imm = (raw >> 16) & 15, u = BIT(raw, 22);
    uint32_t lo = u ? usat(c, (int16_t)v, imm) : ssat(c, (int16_t)v, imm + 1);
    uint32_t hi = u ? usat(c, (int16_t)(v >> 16), imm)
                    : ssat(c, (int16_t)(v >> 16), imm + 1);
    c->r[RD(raw)] = (lo & 0xffff) | hi << 16;
}

/* SBFX, UBFX, BFI, BFC (d->aux 0..2). */
void exec_bitfield(arm_cpu *c, const arm_insn *d)
{
    uint32_t raw = d->raw, v = c->r[RM(raw)];
    int lsb = (raw >> 7) & 31, hi = (raw >> 16) & 31, rd = RD(raw);
    if (d->aux < 2) {
        int width = hi + 1;
        uint32_t f = (v >> lsb) & (width == 32 ? ~0u : (1u << width) - 1);
        if (d->aux == 0 && width < 32 && (f >> (width - 1)) & 1)
            f |= ~0u << width;
        c->r[rd] = f;
        return;
    }
    if (hi < lsb)
        return;
    uint32_t mask = (hi == 31 ? ~0u : (1u << (hi + 1)) - 1) & (~0u << lsb);
    if (RM(raw) == 15)
        v = 0;
    c->r[rd] = (c->r[rd] & ~mask) | ((v << lsb) & mask);
}

/* SDIV, UDIV: division by zero gives zero (no SCTLR.DZ in ARMv7-A). */
void exec_div(arm_cpu *c, const arm_insn *d)
{
    uint32_t raw = d->raw, n = c->r[RM(raw)], m = c->r[RS(raw)], r;
    if (!m)
        r = 0;
    else if (BIT(raw, 21))
        r = n / m;
    else if (n == 0x80000000u && m == 0xffffffffu)
        r = n;
    else
        r = (uint32_t)((int32_t)n / (int32_t)m);
    c->r[RN(raw)] = r;
}

void exec_pkh(arm_cpu *c, const arm_insn *d)
{
    uint32_t raw = d->raw, carry, n = c->r[RN(raw)];
    int tb = BIT(raw, 6);
    uint32_t m = shift_imm(c, c->r[RM(raw)], tb ? 2 : 0, (raw >> 7) & 31,
                           &carry);
    c->r[RD(raw)] = tb ? (n & 0xffff0000u) | (m & 0xffff)
                       : (n & 0xffff) | (m & 0xffff0000u);
}

void exec_sel(arm_cpu *c, const arm_insn *d)
{
    uint32_t raw = d->raw, n = c->r[RN(raw)], m = c->r[RM(raw)], r = 0;
    for (int i = 0; i < 4; i++) {
        uint32_t b = 0xffu << (8 * i);
        r |= ((c->cpsr >> (16 + i)) & 1) ? (n & b) : (m & b);
    }
    c->r[RD(raw)] = r;
}

/* Parallel add and subtract, ARM ARM A5.4.1-A5.4.2: lanes of 8 or 16 bits;
 * signed (S), saturating (Q), halving (SH) and their unsigned twins. The
 * plain forms set GE per lane, ARM ARM A2.4. */
void exec_parallel(arm_cpu *c, const arm_insn *d)
{
    uint32_t raw = d->raw, n = c->r[RN(raw)], m = c->r[RM(raw)], r = 0;
    int kind = (raw >> 20) & 3, uns = BIT(raw, 22), op = (raw >> 5) & 7;
    int w = op >= 4 ? 8 : 16, lanes = 32 / w;
    uint32_t ge = 0, lm = (1u << w) - 1;
    for (int i = 0; i < lanes; i++) {
        int sh = i * w;
        int64_t a, b, x;
        int lane_sub;
        uint32_t av = (n >> sh) & lm, bv;
        if (w == 16 && (op == 1 || op == 2)) {  /* ASX, SAX swap halves */
            bv = (m >> (16 - sh)) & lm;
            lane_sub = (op == 1) ? (i == 0) : (i == 1);
        } else {
            bv = (m >> sh) & lm;
            lane_sub = op == 3 || op == 7;
        }
        if (uns) {
            a = av;
            b = bv;
        } else {
            a = w == 8 ? (int8_t)av : (int16_t)av;
            b = w == 8 ? (int8_t)bv : (int16_t)bv;
        }
        x = lane_sub ? a - b : a + b;
        uint32_t geb = uns ? (lane_sub ? x >= 0 : x >= (1 << w)) : x >= 0;
        if (kind == 2) {        /* saturating */
            int64_t hi = uns ? (1 << w) - 1 : (1 << (w - 1)) - 1;
            int64_t lo = uns ? 0 : -(1 << (w - 1));
            x = x > hi ? hi : x < lo ? lo : x;
        } else if (kind == 3) { /* halving */
            x >>= 1;
        }
        r |= ((uint32_t)x & lm) << sh;
        if (kind == 1)
            ge |= (w == 16 ? geb * 3u : geb) << (w == 16 ? 2 * i : i);
    }
    if (kind == 1)
        c->cpsr = (c->cpsr & ~0x000f0000u) | ge << 16;
    c->r[RD(raw)] = r;
}

/* SMLAD, SMUAD, SMLSD, SMUSD (dual 16-bit multiplies). Rd is bits 19:16,
 * Ra bits 15:12 (15 for the non-accumulating forms). */
void exec_smlad(arm_cpu *c, const arm_insn *d)
{
    uint32_t raw = d->raw, n = c->r[RM(raw)], m = c->r[RS(raw)];
    if (BIT(raw, 5))
        m = ror32(m, 16);
    int64_t p1 = (int64_t)half(n, 0) * half(m, 0);
    int64_t p2 = (int64_t)half(n, 1) * half(m, 1);
    int64_t r = BIT(raw, 6) ? p1 - p2 : p1 + p2;
    if (RD(raw) != 15)
        r += (int32_t)c->r[RD(raw)];
    if (r != (int32_t)r)
        c->cpsr |= CPSR_Q;
    c->r[RN(raw)] = (uint32_t)r;
}

void exec_smlald(arm_cpu *c, const arm_insn *d)
{
    uint32_t raw = d->raw, n = c->r[RM(raw)], m = c->r[RS(raw)];
    if (BIT(raw, 5))
        m = ror32(m, 16);
    int64_t p1 = (int64_t)half(n, 0) * half(m, 0);
    int64_t p2 = (int64_t)half(n, 1) * half(m, 1);
    int lo = RD(raw), hi = RN(raw);
    uint64_t acc = (uint64_t)c->r[hi] << 32 | c->r[lo];
    acc += (uint64_t)(BIT(raw, 6) ? p1 - p2 : p1 + p2);
    c->r[lo] = (uint32_t)acc;
    c->r[hi] = acc >> 32;
}

/* SMMUL, SMMLA, SMMLS (most significant word, R = round). */
void exec_smmul(arm_cpu *c, const arm_insn *d)
{
    uint32_t raw = d->raw;
    int64_t p = (int64_t)(int32_t)c->r[RM(raw)] * (int32_t)c->r[RS(raw)];
    int64_t acc = RD(raw) == 15 ? 0 : (int64_t)((uint64_t)c->r[RD(raw)] << 32);
    uint64_t r = BIT(raw, 6) ? (uint64_t)acc - (uint64_t)p
                             : (uint64_t)acc + (uint64_t)p;
    if (BIT(raw, 5))
        r += 0x80000000u;
    c->r[RN(raw)] = r >> 32;
}

void exec_usad8(arm_cpu *c, const arm_insn *d)
{
    uint32_t raw = d->raw, n = c->r[RM(raw)], m = c->r[RS(raw)], s = 0;
    for (int i = 0; i < 32; i += 8) {
        int a = (n >> i) & 0xff, b = (m >> i) & 0xff;
        s += (uint32_t)(a > b ? a - b : b - a);
    }
    if (RD(raw) != 15)
        s += c->r[RD(raw)];
    c->r[RN(raw)] = s;
}

void exec_b(arm_cpu *c, const arm_insn *d)
{
    if (BIT(d->raw, 24))
        c->r[14] = cur_pc(c) + 4;
    jump_to(c, c->r[15] + d->imm);
}

void exec_blx_imm(arm_cpu *c, const arm_insn *d)
{
    c->r[14] = cur_pc(c) + 4;
    bx_write_pc(c, (c->r[15] + d->imm) | 1);
}

void exec_svc(arm_cpu *c, const arm_insn *d)
{
    (void)d;
    take_exception(c, EXC_SVC, cur_pc(c));
}

/* CPS, ARM ARM B9.3.2: a NOP in User mode. */
void exec_cps(arm_cpu *c, const arm_insn *d)
{
    uint32_t raw = d->raw, mask = 0, val = 0;
    if (!c->priv)
        return;
    int imod = (raw >> 18) & 3;
    if (imod & 2) {
        mask = raw & (CPSR_A | CPSR_I | CPSR_F);
        val = imod == 3 ? mask : 0;
    }
    if (BIT(raw, 17)) {
        mask |= 0x1f;
        val |= raw & 0x1f;
    }
    cpsr_write(c, val, mask, 0);
}

static uint32_t *mode_sp(arm_cpu *c, uint32_t mode)
{
    int b = bank_of(mode);
    return b == bank_of(c->cpsr) ? &c->r[13] : &c->bank_r13[b];
}

/* SRS: store LR and SPSR to the stack of another mode, ARM ARM B9.3.16. */
void exec_srs(arm_cpu *c, const arm_insn *d)
{
    uint32_t raw = d->raw, *sp = spsr_ptr(c);
    uint32_t mode = raw & 0x1f;
    if (!sp || !mode_valid(mode)) {
        undefined(c);
        return;
    }
    uint32_t *msp = mode_sp(c, mode), base = *msp, a, wb;
    int p = BIT(raw, 24), u = BIT(raw, 23);
    a = u ? (p ? base + 4 : base) : (p ? base - 8 : base - 4);
    wb = u ? base + 8 : base - 8;
    if (check_align(c, a, 4, 1) || mem_write(c, a, 4, c->r[14]) ||
        mem_write(c, a + 4, 4, *sp))
        return;
    count_store(c);
    if (BIT(raw, 21))
        *mode_sp(c, mode) = wb;
}

/* RFE, ARM ARM B9.3.13. */
void exec_rfe(arm_cpu *c, const arm_insn *d)
{
    uint32_t raw = d->raw, base = c->r[RN(raw)], a, wb, pc, psr;
    if (!c->priv) {
        undefined(c);
        return;
    }
    int p = BIT(raw, 24), u = BIT(raw, 23);
    a = u ? (p ? base + 4 : base) : (p ? base - 8 : base - 4);
    wb = u ? base + 8 : base - 8;
    if (check_align(c, a, 4, 0) || mem_read(c, a, 4, &pc) ||
        mem_read(c, a + 4, 4, &psr))
        return;
    if (BIT(raw, 21))
        c->r[RN(raw)] = wb;
    count_load(c);
    c->pmu.pc_writes += c->pmu.per_insn;
    pmu_event(c, &c->pmu.exc_return);
    cpsr_write(c, psr, 0xffffffffu, 1);
    set_next_pc(c, pc & ((c->cpsr & CPSR_T) ? ~1u : ~3u));
    c->flow |= FLOW_BREAK;
}

#define CP_FIELDS(raw) (int)(((raw) >> 8) & 15), (int)(((raw) >> 21) & 7), \
    (int)RN(raw), (int)RM(raw), (int)(((raw) >> 5) & 7)

void exec_mcr(arm_cpu *c, const arm_insn *d)
{
    if (cp_write(c, CP_FIELDS(d->raw), c->r[RD(d->raw)]))
        undefined(c);
}

/* MRC with Rt = 15 sets the flags from bits 31:28 (ARM ARM A8.8.108). */
void exec_mrc(arm_cpu *c, const arm_insn *d)
{
    uint32_t v;
    if (cp_read(c, CP_FIELDS(d->raw), &v)) {
        undefined(c);
        return;
    }
    if (RD(d->raw) == 15)
        cpsr_write(c, v, 0xf0000000u, 0);
    else
        c->r[RD(d->raw)] = v;
}

void exec_mcrr(arm_cpu *c, const arm_insn *d)
{
    uint32_t raw = d->raw;
    uint64_t v = (uint64_t)c->r[RN(raw)] << 32 | c->r[RD(raw)];
    if (cp_write64(c, (raw >> 8) & 15, (raw >> 4) & 15, RM(raw), v))
        undefined(c);
}

void exec_mrrc(arm_cpu *c, const arm_insn *d)
{
    uint32_t raw = d->raw;
    uint64_t v;
    if (cp_read64(c, (raw >> 8) & 15, (raw >> 4) & 15, RM(raw), &v)) {
        undefined(c);
        return;
    }
    c->r[RD(raw)] = (uint32_t)v;
    c->r[RN(raw)] = v >> 32;
}

/* ---- the interpreter loop ---- */

/* Takes a pending unmasked interrupt at an instruction boundary. FIQ has
 * priority over IRQ (ARM ARM B1.8.2). */
static void check_irq(arm_cpu *c)
{
    int e = -1;
    if (c->fiq_line && !(c->cpsr & CPSR_F))
        e = EXC_FIQ;
    else if (c->irq_line && !(c->cpsr & CPSR_I))
        e = EXC_IRQ;
    if (e < 0)
        return;
    c->r[15] = c->pc;
    take_exception(c, e, c->pc);
    c->pc = c->next_pc;
}

/* Executes ARM instructions within one page while nothing asks to stop.
 * Returns the number executed. */
uint8_t *enter_code_page(arm_cpu *c, uint32_t *ppage)
{
    /* A Prefetch Abort is charged as one instruction, in the mode that
     * fetched it, so that the PMU's instruction count, which does not
     * count it, stays right in each mode: charged first, then undone. */
    c->insns++;
    uint8_t *host = fetch_page(c, c->pc, ppage);
    if (host)
        c->insns--;
    else
        c->pc = c->next_pc;
    return host;
}

uint64_t run_arm_page(arm_cpu *c, uint64_t budget)
{
    uint32_t pc = c->pc, ppage;
    uint8_t *host = enter_code_page(c, &ppage);
    if (!host)
        return 1;
    uint32_t vpage = pc & ~0xfffu;
    arm_insn *dc = c->dcache + ((ppage >> 2) & ((1u << DCACHE_BITS) - 1));
    uint64_t n = c->insns, start = n, end = n + budget;
    c->flow = 0;
    for (;;) {
        uint32_t off = pc & 0xfff, raw;
        memcpy(&raw, host + off, 4);
        arm_insn *d = &dc[off >> 2];
        if (__builtin_expect(d->raw != raw, 0))
            arm_decode(d, raw);
        c->r[15] = pc + 8;
        c->insns = ++n;
        uint32_t cond = raw >> 28;
        if (cond >= 14 || cond_pass(c, cond))
            d->fn(c, d);
        if (__builtin_expect(c->flow != 0, 0)) {
            pc = (c->flow & FLOW_JUMP) ? c->next_pc : pc + 4;
            if (c->flow & FLOW_BREAK)
                break;
            c->flow = 0;
        } else {
            pc += 4;
        }
        if (n == end || (pc & ~0xfffu) != vpage)
            break;
    }
    c->pc = pc;
    return n - start;
}

static uint64_t run_thumb_page(arm_cpu *c, uint64_t budget)
{
    uint32_t pc = c->pc, ppage;
    uint8_t *host = enter_code_page(c, &ppage);
    if (!host)
        return 1;
    uint32_t vpage = pc & ~0xfffu;
    arm_insn *tc = c->tcache;
    uint64_t n = 0;
    c->flow = 0;
    do {
        uint32_t off = pc & 0xfff;
        uint16_t h;
        memcpy(&h, host + off, 2);
        uint32_t raw = h;
        /* A BL/BLX pair is one 32-bit instruction; its second half may
         * lie on the next page. */
        if ((h >> 11) >= 0x1d) {
            uint32_t h2;
            if (off == 0xffe) {
                c->r[15] = pc + 4;
                c->insns++; /* charged in its own mode, as above */
                if (mem_read(c, pc + 2, 2, &h2)) {
                    pc = c->next_pc; /* the abort's vector */
                    n++;
                    break;
                }
                c->insns--;
            } else {
                uint16_t t;
                memcpy(&t, host + off + 2, 2);
                h2 = t;
            }
            raw = raw << 16 | h2;
        }
        arm_insn *d = &tc[((ppage | off) >> 1) & ((1u << TCACHE_BITS) - 1)];
        if (d->raw != raw || !d->fn)
            thumb_decode(d, raw);
        c->r[15] = pc + 4;
        c->insns++;
        d->fn(c, d);
        n++;
        if (c->flow) {
            pc = (c->flow & FLOW_JUMP) ? c->next_pc
                                       : pc + (raw > 0xffff ? 4 : 2);
            if (c->flow & FLOW_BREAK)
                break;
            c->flow = 0;
        } else {
            pc += raw > 0xffff ? 4 : 2;
        }
    } while (n < budget && (pc & ~0xfffu) == vpage);
    c->pc = pc;
    return n;
}

uint64_t arm_run(arm_cpu *c, uint64_t max_cycles)
{
    /* Rounded up, so any positive budget makes progress; the overshoot is
     * below one instruction's cycles. */
    uint64_t budget = max_cycles / c->cpi + (max_cycles % c->cpi != 0);
    uint64_t done = 0;
    c->exit_req = 0;
    if (!c->powered)
        return 0;
    while (done < budget && !c->exit_req) {
        /* A PMU counter wraps here: its overflow is taken before the
         * next instruction. */
        if (c->insns >= c->pmu_deadline)
            pmu_sync(c);
        check_irq(c);
        if (c->halted)
            break;
        uint64_t left = budget - done;
        if (c->pmu_deadline - c->insns < left)
            left = c->pmu_deadline - c->insns;
        if (c->cpsr & CPSR_T)
            done += run_thumb_page(c, left);
        else if (c->sys->engine == ARM_ENGINE_FAST)
            done += jit_run_arm_page(c, left);
        else
            done += run_arm_page(c, left);
    }
    if (c->insns >= c->pmu_deadline)
        pmu_sync(c);
    return done * c->cpi;
}

/* ---- cluster and core management ---- */

arm_sys *arm_sys_new(phys_map *map, int ncores, const arm_hooks *hooks,
                     struct pl_error *err)
{
    if (ncores < 1 || ncores > ARM_MAX_CORES) {
        pl_error_set(err, "arm: %d cores, expected 1..%d", ncores,
                     ARM_MAX_CORES);
        return NULL;
    }
    arm_sys *s = pl_xcalloc(1, sizeof(*s));
    s->cpu = pl_xcalloc((size_t)ncores, sizeof(*s->cpu));
    s->ncores = ncores;
    s->map = map;
    s->engine = jit_available() ? ARM_ENGINE_FAST : ARM_ENGINE_REF;
    if (hooks)
        s->hooks = *hooks;
    for (int i = 0; i < ncores; i++) {
        arm_cpu *c = pl_xcalloc(1, sizeof(*c));
        c->dcache = pl_xcalloc(1u << DCACHE_BITS, sizeof(arm_insn));
        c->tcache = pl_xcalloc(1u << TCACHE_BITS, sizeof(arm_insn));
        /* Entries must hold a valid decoding of their raw word. */
        for (uint32_t k = 0; k < (1u << DCACHE_BITS); k++)
            arm_decode(&c->dcache[k], 0);
        c->index = i;
        c->sys = s;
        c->cpi = 1;
        c->powered = i == 0;
        c->cp15.cntfrq = 62500000;
        arm_reset(c, 0);
        s->cpu[i] = c;
    }
    return s;
}

void arm_sys_free(arm_sys *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->ncores; i++) {
        free(s->cpu[i]->dcache);
        free(s->cpu[i]->tcache);
        jit_free(s->cpu[i]->jit);
        free(s->cpu[i]);
    }
    free(s->cpu);
    free(s);
}

int arm_set_engine(arm_sys *s, int engine)
{
    if (engine == ARM_ENGINE_FAST && !jit_available())
        return -1;
    s->engine = engine;
    return 0;
}

int arm_engine_parse(const char *name)
{
    if (!strcmp(name, "fast"))
        return ARM_ENGINE_FAST;
    if (!strcmp(name, "ref"))
        return ARM_ENGINE_REF;
    return -1;
}

arm_cpu *arm_sys_cpu(arm_sys *s, int index)
{
    return s->cpu[index];
}

int arm_sys_ncores(const arm_sys *s)
{
    return s->ncores;
}

void arm_reset(arm_cpu *c, int hivecs)
{
    memset(c->r, 0, sizeof(c->r));
    memset(c->bank_r13, 0, sizeof(c->bank_r13));
    memset(c->bank_r14, 0, sizeof(c->bank_r14));
    memset(c->bank_spsr, 0, sizeof(c->bank_spsr));
    memset(c->fiq_r8, 0, sizeof(c->fiq_r8));
    memset(c->usr_r8, 0, sizeof(c->usr_r8));
    c->nf = c->cf = c->vf = 0;
    c->zf = 1;
    c->cpsr = MODE_SVC | CPSR_A | CPSR_I | CPSR_F;
    c->priv = 1;
    c->halted = 0;
    c->event = 0;
    cp15_reset(c);
    if (hivecs)
        c->cp15.sctlr |= SCTLR_V;
    c->pc = hivecs ? 0xffff0000u : 0;
    c->sys->excl[c->index].size = 0;
}

void arm_set_cpi(arm_cpu *c, uint32_t cycles_per_insn)
{
    pmu_sync(c); /* cycles so far at the old CPI */
    c->cycles_base = arm_cycle_count(c);
    c->insns_base = c->insns;
    c->cpi = cycles_per_insn ? cycles_per_insn : 1;
    pmu_sync(c); /* the cycle counter's deadline at the new one */
}

void arm_set_cntfrq(arm_cpu *c, uint32_t hz)
{
    c->cp15.cntfrq = hz;
}

void arm_request_exit(arm_cpu *c)
{
    c->exit_req = 1;
    c->flow |= FLOW_BREAK;
}

int arm_is_halted(const arm_cpu *c)
{
    return c->halted != 0;
}

int arm_in_wfe(const arm_cpu *c)
{
    return c->halted == HALT_WFE;
}

void arm_set_powered(arm_cpu *c, int on)
{
    c->powered = on != 0;
    if (!on)
        arm_request_exit(c);
}

int arm_is_powered(const arm_cpu *c)
{
    return c->powered;
}

void arm_signal_event(arm_cpu *c)
{
    if (c->halted == HALT_WFE)
        c->halted = 0;
    else
        c->event = 1;
}

void arm_set_irq(arm_cpu *c, int level)
{
    c->irq_line = level != 0;
    if (level) {
        c->halted = 0;
        c->flow |= FLOW_BREAK;
    }
}

void arm_set_fiq(arm_cpu *c, int level)
{
    c->fiq_line = level != 0;
    if (level) {
        c->halted = 0;
        c->flow |= FLOW_BREAK;
    }
}

void arm_get_regs(const arm_cpu *c, arm_regs *out)
{
    memcpy(out->r, c->r, sizeof(out->r));
    out->r[15] = c->pc;
    out->cpsr = cpsr_read(c);
    int b = bank_of(c->cpsr);
    out->spsr = b == BANK_USR ? 0 : c->bank_spsr[b];
}

uint32_t arm_get_reg(const arm_cpu *c, int n)
{
    return n == 15 ? c->pc : c->r[n];
}

void arm_set_reg(arm_cpu *c, int n, uint32_t val)
{
    if (n == 15)
        c->pc = val;
    else
        c->r[n] = val;
}

void arm_set_pc(arm_cpu *c, uint32_t pc)
{
    c->pc = pc;
    c->flow |= FLOW_BREAK;
}

void arm_set_cpsr(arm_cpu *c, uint32_t cpsr)
{
    cpsr_write(c, cpsr, 0xffffffffu, 1);
}

uint64_t arm_insn_count(const arm_cpu *c)
{
    return c->insns;
}

uint64_t arm_cycle_count(const arm_cpu *c)
{
    return c->cycles_base + (c->insns - c->insns_base) * c->cpi;
}

uint64_t arm_exc_return_count(const arm_cpu *c)
{
    return c->pmu.exc_return;
}

int arm_cpu_index(const arm_cpu *c)
{
    return c->index;
}

void arm_dump(const arm_cpu *c, FILE *f)
{
    arm_regs r;
    arm_get_regs(c, &r);
    for (int i = 0; i < 16; i++)
        fprintf(f, "r%-2d=%08x%s", i, r.r[i], (i & 3) == 3 ? "\n" : " ");
    fprintf(f, "cpsr=%08x spsr=%08x insns=%llu\n", r.cpsr, r.spsr,
            (unsigned long long)c->insns);
}
