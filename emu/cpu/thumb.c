/* Thumb (T16) instruction set, ARM ARM A6.2, plus the 32-bit BL/BLX pair:
 * what armel code compiled with -mthumb or interworking uses. Other 32-bit
 * Thumb-2 encodings and IT blocks are UNDEFINED here (the guest kernel is
 * ARM-only and armel userland is ARMv5TE). Outside an IT block every T16
 * data-processing instruction except the high-register forms sets the
 * flags. While a Thumb instruction runs, c->r[15] is its address + 4. */
#include "arm_int.h"

#define F(raw, lo, n) (((raw) >> (lo)) & ((1u << (n)) - 1))

static inline uint32_t cur_pc(const arm_cpu *c)
{
    return c->r[15] - 4;
}

/* LSL/LSR/ASR Rd, Rm, #imm5 (A6.2.1). */
static void th_shift_imm(arm_cpu *c, const arm_insn *d)
{
    uint32_t raw = d->raw, carry;
    uint32_t r = shift_imm(c, c->r[F(raw, 3, 3)], F(raw, 11, 2), F(raw, 6, 5),
                           &carry);
    c->cf = carry;
    set_nz(c, r);
    c->r[F(raw, 0, 3)] = r;
}

/* ADD/SUB register or 3-bit immediate. */
static void th_addsub(arm_cpu *c, const arm_insn *d)
{
    uint32_t raw = d->raw;
    uint32_t b = F(raw, 10, 1) ? F(raw, 6, 3) : c->r[F(raw, 6, 3)];
    c->r[F(raw, 0, 3)] = alu_op(c, F(raw, 9, 1) ? 2 : 4, c->r[F(raw, 3, 3)],
                                b, 1, 0);
}

/* MOV/CMP/ADD/SUB Rdn, #imm8. */
static void th_imm8(arm_cpu *c, const arm_insn *d)
{
    static const uint8_t ops[4] = { 13, 10, 4, 2 };
    uint32_t raw = d->raw, rd = F(raw, 8, 3);
    uint32_t r = alu_op(c, ops[F(raw, 11, 2)], c->r[rd], raw & 0xff, 1, c->cf);
    if (F(raw, 11, 2) != 1)
        c->r[rd] = r;
}

/* Data processing on low registers (A6.2.2). */
static void th_dp(arm_cpu *c, const arm_insn *d)
{
    uint32_t raw = d->raw, rd = F(raw, 0, 3), op = F(raw, 6, 4);
    uint32_t a = c->r[rd], b = c->r[F(raw, 3, 3)], r, carry;
    switch (op) {
    case 2: case 3: case 4: case 7: {
        static const uint8_t ty[8] = { [2] = 0, [3] = 1, [4] = 2, [7] = 3 };
        r = shift_reg(c, a, ty[op], b, &carry);
        c->cf = carry;
        set_nz(c, r);
        c->r[rd] = r;
        return;
    }
    case 9: r = alu_op(c, 3, b, 0, 1, 0); break;     /* RSB Rd, Rm, #0 */
    case 13:
        r = a * b;
        set_nz(c, r);
        break;
    default: {
        /* AND EOR - - - ADC SBC - TST - CMP CMN ORR - BIC MVN */
        static const uint8_t alu[16] = { 0, 1, 0, 0, 0, 5, 6, 0, 8, 0, 10,
                                         11, 12, 0, 14, 15 };
        r = alu_op(c, alu[op], a, b, 1, c->cf);
        if (op >= 8 && op <= 11)
            return;
    }
    }
    c->r[rd] = r;
}

/* ADD/CMP/MOV with high registers, BX, BLX (A6.2.3). */
static void th_hireg(arm_cpu *c, const arm_insn *d)
{
    uint32_t raw = d->raw, rd = F(raw, 7, 1) << 3 | F(raw, 0, 3);
    uint32_t m = c->r[F(raw, 3, 4)], r;
    switch (F(raw, 8, 2)) {
    case 0: r = c->r[rd] + m; break;
    case 1: alu_op(c, 10, c->r[rd], m, 1, 0); return;
    case 2: r = m; break;
    default:
        if (F(raw, 7, 1))
            c->r[14] = (cur_pc(c) + 2) | 1;
        bx_write_pc(c, m);
        return;
    }
    if (rd == 15)
        jump_to(c, r & ~1u);
    else
        c->r[rd] = r;
}

static void th_ldr_lit(arm_cpu *c, const arm_insn *d)
{
    uint32_t v;
    if (!mem_read(c, (c->r[15] & ~3u) + (d->raw & 0xff) * 4, 4, &v)) {
        count_load(c);
        c->r[F(d->raw, 8, 3)] = v;
    }
}

/* Load/store at address a: kind 0 STR, 1 STRH, 2 STRB, 3 LDRSB, 4 LDR,
 * 5 LDRH, 6 LDRB, 7 LDRSH (the A6.2.4 register-offset order). */
static void th_access(arm_cpu *c, uint32_t kind, uint32_t a, uint32_t rt)
{
    static const uint8_t size[8] = { 4, 2, 1, 1, 4, 2, 1, 2 };
    uint32_t v;
    if (kind < 3) {
        if (!mem_write(c, a, size[kind], c->r[rt]))
            count_store(c);
        return;
    }
    if (mem_read(c, a, size[kind], &v))
        return;
    count_load(c);
    if (kind == 3)
        v = (uint32_t)(int8_t)v;
    else if (kind == 7)
        v = (uint32_t)(int16_t)v;
    c->r[rt] = v;
}

static void th_ldst_reg(arm_cpu *c, const arm_insn *d)
{
    uint32_t raw = d->raw;
    th_access(c, F(raw, 9, 3), c->r[F(raw, 3, 3)] + c->r[F(raw, 6, 3)],
              F(raw, 0, 3));
}

/* STR/LDR/STRB/LDRB/STRH/LDRH with imm5; kind and scale in aux/imm. */
static void th_ldst_imm(arm_cpu *c, const arm_insn *d)
{
    uint32_t raw = d->raw;
    th_access(c, d->aux, c->r[F(raw, 3, 3)] + F(raw, 6, 5) * d->imm,
              F(raw, 0, 3));
}

static void th_ldst_sp(arm_cpu *c, const arm_insn *d)
{
    uint32_t raw = d->raw;
    th_access(c, F(raw, 11, 1) ? 4 : 0, c->r[13] + (raw & 0xff) * 4,
              F(raw, 8, 3));
}

static void th_adr(arm_cpu *c, const arm_insn *d)
{
    uint32_t raw = d->raw;
    uint32_t base = F(raw, 11, 1) ? c->r[13] : (c->r[15] & ~3u);
    c->r[F(raw, 8, 3)] = base + (raw & 0xff) * 4;
}

static void th_sp_adj(arm_cpu *c, const arm_insn *d)
{
    uint32_t imm = (d->raw & 0x7f) * 4;
    c->r[13] += F(d->raw, 7, 1) ? -imm : imm;
}

static void th_extend(arm_cpu *c, const arm_insn *d)
{
    uint32_t v = c->r[F(d->raw, 3, 3)], r;
    switch (F(d->raw, 6, 2)) {
    case 0: r = (uint32_t)(int16_t)v; break;
    case 1: r = (uint32_t)(int8_t)v; break;
    case 2: r = v & 0xffff; break;
    default: r = v & 0xff; break;
    }
    c->r[F(d->raw, 0, 3)] = r;
}

static void th_rev(arm_cpu *c, const arm_insn *d)
{
    uint32_t v = c->r[F(d->raw, 3, 3)], r;
    switch (F(d->raw, 6, 2)) {
    case 0: r = __builtin_bswap32(v); break;
    case 1: r = ((v >> 8) & 0x00ff00ffu) | ((v << 8) & 0xff00ff00u); break;
    default: r = (uint32_t)(int16_t)__builtin_bswap16((uint16_t)v); break;
    }
    c->r[F(d->raw, 0, 3)] = r;
}

/* CBZ, CBNZ (ARMv6T2 T16). */
static void th_cbz(arm_cpu *c, const arm_insn *d)
{
    uint32_t raw = d->raw;
    int nz = F(raw, 11, 1);
    if ((c->r[F(raw, 0, 3)] != 0) == nz)
        jump_to(c, c->r[15] + (F(raw, 9, 1) << 6 | F(raw, 3, 5) << 1));
}

/* PUSH/POP and STMIA/LDMIA, through the A32 handlers' semantics: POP
 * loading PC interworks (LoadWritePC). */
static void th_block(arm_cpu *c, uint32_t list, uint32_t rn, int load,
                     int wb, uint32_t a)
{
    uint32_t v[16], p = a;
    if (a & 3) {
        data_abort(c, a, 0x01 | (load ? 0 : 1u << 11));
        return;
    }
    for (int i = 0; i < 16; i++)
        if (list & (1u << i)) {
            if (load ? mem_read(c, p, 4, &v[i]) : mem_write(c, p, 4, c->r[i]))
                return;
            p += 4;
        }
    if (load)
        count_load(c);
    else
        count_store(c);
    if (wb)
        c->r[rn] = (rn == 13 && !load) ? a : p;     /* PUSH leaves SP at a */
    if (!load)
        return;
    for (int i = 0; i < 15; i++)
        if (list & (1u << i))
            c->r[i] = v[i];
    if (list & 0x8000)
        bx_write_pc(c, v[15]);
}

static void th_push_pop(arm_cpu *c, const arm_insn *d)
{
    uint32_t raw = d->raw, list = raw & 0xff, load = F(raw, 11, 1);
    if (F(raw, 8, 1))
        list |= load ? 0x8000 : 0x4000;
    uint32_t n = 4 * (uint32_t)__builtin_popcount(list);
    th_block(c, list, 13, load, 1, load ? c->r[13] : c->r[13] - n);
}

static void th_ldm_stm(arm_cpu *c, const arm_insn *d)
{
    uint32_t raw = d->raw, rn = F(raw, 8, 3), list = raw & 0xff;
    int load = F(raw, 11, 1);
    th_block(c, list, rn, load, !load || !(list & (1u << rn)), c->r[rn]);
}

static void th_cps(arm_cpu *c, const arm_insn *d)
{
    uint32_t raw = d->raw;
    if (!c->priv)
        return;
    uint32_t mask = (F(raw, 2, 1) ? CPSR_A : 0) | (F(raw, 1, 1) ? CPSR_I : 0) |
                    (F(raw, 0, 1) ? CPSR_F : 0);
    cpsr_write(c, F(raw, 4, 1) ? mask : 0, mask, 0);
}

static void th_bkpt(arm_cpu *c, const arm_insn *d)
{
    (void)d;
    c->cp15.ifsr = 0x2;
    take_exception(c, EXC_PABT, cur_pc(c));
}

static void th_bcond(arm_cpu *c, const arm_insn *d)
{
    if (cond_pass(c, F(d->raw, 8, 4)))
        jump_to(c, c->r[15] + d->imm);
}

static void th_b(arm_cpu *c, const arm_insn *d)
{
    jump_to(c, c->r[15] + d->imm);
}

static void th_svc(arm_cpu *c, const arm_insn *d)
{
    (void)d;
    take_exception(c, EXC_SVC, cur_pc(c));
}

/* BL/BLX immediate, T1/T2 encodings (A8.8.25). */
static void th_bl(arm_cpu *c, const arm_insn *d)
{
    c->r[14] = (cur_pc(c) + 4) | 1;
    if (d->aux)
        bx_write_pc(c, ((c->r[15] & ~3u) + d->imm) & ~1u);
    else
        jump_to(c, c->r[15] + d->imm);
}

static void th_hint(arm_cpu *c, const arm_insn *d)
{
    /* NOP, YIELD, WFE, WFI, SEV: the A32 hint semantics, same op2. */
    arm_insn a = { .raw = F(d->raw, 4, 4) };
    exec_hint(c, &a);
}

static arm_exec_fn *decode_misc(uint32_t raw)
{
    switch (F(raw, 8, 4)) {
    case 0: return th_sp_adj;
    case 1: case 3: case 9: case 11: return th_cbz;
    case 2: return th_extend;
    case 4: case 5: case 12: case 13:   /* an empty list: UNDEFINED, as QEMU */
        return (raw & 0x1ff) ? th_push_pop : exec_undef;
    case 6:
        if ((raw & 0xffe8) == 0xb660)
            return th_cps;
        return (raw & 0xfff7) == 0xb650 ? exec_nop : exec_undef; /* SETEND LE */
    case 10: return F(raw, 6, 2) == 2 ? exec_undef : th_rev;
    case 14: return th_bkpt;
    case 15: return (raw & 0xf) ? exec_undef : th_hint;    /* IT: no */
    default:
        return exec_undef;
    }
}

static arm_exec_fn *decode32(arm_insn *d, uint32_t raw)
{
    uint32_t h1 = raw >> 16, h2 = raw & 0xffff;
    int blx = !(h2 & 0x1000);
    if ((h1 >> 11) != 0x1e || (h2 >> 14) != 3 || (blx && (h2 & 1)))
        return exec_undef;
    uint32_t s = F(h1, 10, 1), j1 = F(h2, 13, 1), j2 = F(h2, 11, 1);
    uint32_t i1 = !(j1 ^ s), i2 = !(j2 ^ s);
    uint32_t imm = s << 24 | i1 << 23 | i2 << 22 | F(h1, 0, 10) << 12 |
                   F(h2, 0, 11) << 1;
    d->imm = (uint32_t)((int32_t)(imm << 7) >> 7);
    d->aux = blx;               /* BLX switches to ARM */
    return th_bl;
}

void thumb_decode(arm_insn *d, uint32_t raw)
{
    arm_exec_fn *fn = exec_undef;
    d->raw = raw;
    d->imm = 0;
    d->aux = 0;
    if (raw > 0xffff) {
        d->fn = decode32(d, raw);
        return;
    }
    switch (raw >> 11) {
    case 0: case 1: case 2: fn = th_shift_imm; break;
    case 3: fn = th_addsub; break;
    case 4: case 5: case 6: case 7: fn = th_imm8; break;
    case 8:
        if (!F(raw, 10, 1))
            fn = th_dp;
        else
            fn = (F(raw, 8, 2) == 3 && (raw & 7)) ? exec_undef : th_hireg;
        break;
    case 9: fn = th_ldr_lit; break;
    case 10: case 11: fn = th_ldst_reg; break;
    case 12: case 13: case 14: case 15: {
        static const uint8_t kind[4] = { 0, 4, 2, 6 };  /* STR LDR STRB LDRB */
        d->aux = kind[F(raw, 11, 2)];
        d->imm = F(raw, 12, 1) ? 1 : 4;
        fn = th_ldst_imm;
        break;
    }
    case 16: case 17:
        d->aux = F(raw, 11, 1) ? 5 : 1;                 /* LDRH / STRH */
        d->imm = 2;
        fn = th_ldst_imm;
        break;
    case 18: case 19: fn = th_ldst_sp; break;
    case 20: case 21: fn = th_adr; break;
    case 22: case 23: fn = decode_misc(raw); break;
    case 24: case 25: fn = (raw & 0xff) ? th_ldm_stm : exec_undef; break;
    case 26: case 27:
        if (F(raw, 8, 4) == 15) {
            fn = th_svc;
        } else if (F(raw, 8, 4) != 14) {
            d->imm = (uint32_t)((int32_t)(raw << 24) >> 23);
            fn = th_bcond;
        }
        break;
    case 28:
        d->imm = (uint32_t)((int32_t)(raw << 21) >> 20);
        fn = th_b;
        break;
    default: break;
    }
    d->fn = fn;
}
