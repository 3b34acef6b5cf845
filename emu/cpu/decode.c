/* A32 decoder: maps an encoding to its handler, following the tables of
 * ARM ARM A5 (A5.1 top level, A5.2 data processing and miscellaneous,
 * A5.3 load/store, A5.4 media, A5.5 block transfer, A5.6 coprocessor and
 * SVC, A5.7 unconditional). Anything not listed is UNDEFINED, including
 * every VFP/NEON (coprocessor 10/11) encoding. */
#include "arm_int.h"

#define BIT(raw, n) (((raw) >> (n)) & 1)

/* Modified immediate, ARM ARM A5.2.4; aux = carry out, or 2 for "C
 * unchanged" when the rotation is zero. */
static void mod_imm(arm_insn *d, uint32_t raw)
{
    uint32_t rot = ((raw >> 8) & 15) * 2;
    d->imm = ror32(raw & 0xff, rot);
    d->aux = rot ? d->imm >> 31 : 2;
}

static arm_exec_fn *decode_misc(uint32_t raw)
{
    int op = (raw >> 21) & 3;
    switch ((raw >> 4) & 7) {
    case 0:
        if (BIT(raw, 9))
            return exec_undef;      /* banked MRS/MSR need EL2 */
        return (op & 1) ? exec_msr : exec_mrs;
    case 1: return op == 1 ? exec_bx : op == 3 ? exec_clz : exec_undef;
    case 2: return op == 1 ? exec_bx : exec_undef;    /* BXJ: no Jazelle */
    case 3: return op == 1 ? exec_blx_reg : exec_undef;
    case 5: return exec_qaddsub;
    case 7:
        return op == 1 ? exec_bkpt : op == 2 ? exec_hvc : op == 3 ? exec_smc
                                                                  : exec_undef;
    default: return exec_undef;
    }
}

/* Extra load/store (A5.2.8, A5.2.9). LDRD/STRD have no T form. */
static arm_exec_fn *decode_extra(arm_insn *d, uint32_t raw)
{
    int op2 = (raw >> 5) & 3, l = BIT(raw, 20);
    int t = !BIT(raw, 24) && BIT(raw, 21);
    if (BIT(raw, 22))
        d->imm = ((raw >> 4) & 0xf0) | (raw & 0xf);
    if (op2 >= 2 && !l)
        return t ? exec_undef : exec_ldrd_strd;
    return exec_ldst_extra;
}

static arm_exec_fn *decode_dp_misc(arm_insn *d, uint32_t raw)
{
    uint32_t op1 = (raw >> 20) & 0x1f, op2 = (raw >> 4) & 15;
    if (op2 == 9) {
        if (!(op1 & 0x10)) {
            switch (op1 >> 1) {
            case 0: case 1: return exec_mul;
            case 2: return BIT(raw, 20) ? exec_undef : exec_mul;   /* UMAAL */
            case 3: return BIT(raw, 20) ? exec_undef : exec_mul;   /* MLS */
            default: return exec_mul_long;
            }
        }
        if ((op1 & 0xb) == 0)
            return exec_swp;
        if (op1 & 8)
            return BIT(raw, 20) ? exec_ldrex : exec_strex;
        return exec_undef;
    }
    if ((op2 & 9) == 9)
        return decode_extra(d, raw);
    if ((op1 & 0x19) == 0x10)
        return (op2 & 8) ? exec_mul_half : decode_misc(raw);
    if (op2 & 1)
        return exec_dp_regreg;
    if (d->rd == 15)
        return exec_dp_regimm;
    d->aux = (raw >> 5) & 0x7f;         /* type | amount << 2 */
    return dp_fast_handler((d->aux ? DPF_SHIFT : DPF_REG) + BIT(raw, 20),
                           (raw >> 21) & 15);
}

static arm_exec_fn *decode_dp_imm(arm_insn *d, uint32_t raw)
{
    uint32_t op1 = (raw >> 20) & 0x1f;
    if (op1 == 0x10 || op1 == 0x14) {
        d->imm = ((raw >> 4) & 0xf000) | (raw & 0xfff);
        return op1 == 0x10 ? exec_movw : exec_movt;
    }
    mod_imm(d, raw);
    if ((op1 & 0x1b) == 0x12) {
        if (op1 == 0x12 && !((raw >> 16) & 15))
            return exec_hint;
        return exec_msr;
    }
    if (d->rd == 15)
        return exec_dp_imm;
    return dp_fast_handler(DPF_IMM + BIT(raw, 20), (raw >> 21) & 15);
}

/* Media instructions, A5.4. */
static arm_exec_fn *decode_media(arm_insn *d, uint32_t raw)
{
    uint32_t op1 = (raw >> 20) & 0x1f, op2 = (raw >> 5) & 7;
    uint32_t sub = op1 & 7;
    switch (op1 >> 3) {
    case 0:     /* parallel add/subtract */
        if (!(op1 & 3) || op2 == 5 || op2 == 6)
            return exec_undef;
        return exec_parallel;
    case 1:     /* packing, unpacking, saturation, reversal */
        if (sub == 0 && !(op2 & 1))
            return exec_pkh;
        if ((sub & 2) && !(op2 & 1))
            return exec_sat;
        if (op2 == 3)
            return sub == 1 || sub == 5 ? exec_undef : exec_extend;
        if (op2 == 5 && sub == 0)
            return exec_sel;
        if (op2 == 1 && (sub == 2 || sub == 6))
            return exec_sat16;
        d->aux = sub == 3 ? (op2 == 1 ? 0 : op2 == 5 ? 1 : 9)
                          : sub == 7 ? (op2 == 1 ? 3 : op2 == 5 ? 2 : 9) : 9;
        return d->aux == 9 ? exec_undef : exec_rev;
    case 2:     /* signed multiplies and divides */
        switch (sub) {
        case 0: return op2 < 4 ? exec_smlad : exec_undef;
        case 1: case 3: return op2 == 0 ? exec_div : exec_undef;
        case 4: return op2 < 4 ? exec_smlald : exec_undef;
        case 5: return (op2 < 2 || op2 >= 6) ? exec_smmul : exec_undef;
        default: return exec_undef;
        }
    default:
        if (op1 == 0x18 && op2 == 0)
            return exec_usad8;
        if ((op1 & 0x1e) == 0x1a && (op2 & 3) == 2)
            return (d->aux = 0, exec_bitfield);
        if ((op1 & 0x1e) == 0x1e && (op2 & 3) == 2)
            return (d->aux = 1, exec_bitfield);
        if ((op1 & 0x1e) == 0x1c && (op2 & 3) == 0)
            return (d->aux = 2, exec_bitfield);
        return exec_undef;     /* includes UDF */
    }
}

static arm_exec_fn *decode_coproc(uint32_t raw)
{
    if (((raw >> 24) & 15) == 15)
        return exec_svc;
    if (((raw >> 21) & 0x7f) == 0x62)
        return BIT(raw, 20) ? exec_mrrc : exec_mcrr;
    if (((raw >> 24) & 15) == 14 && BIT(raw, 4))
        return BIT(raw, 20) ? exec_mrc : exec_mcr;
    return exec_undef;      /* LDC, STC, CDP */
}

static arm_exec_fn *decode_uncond(arm_insn *d, uint32_t raw)
{
    if ((raw & 0xfff10020u) == 0xf1000000u)
        return exec_cps;
    if ((raw & 0xfffffdffu) == 0xf1010000u)
        return BIT(raw, 9) ? exec_undef : exec_nop;  /* SETEND LE only */
    if ((raw & 0xff700000u) == 0xf4500000u ||   /* PLI imm */
        (raw & 0xff300000u) == 0xf5100000u ||   /* PLD, PLDW imm */
        (raw & 0xff700010u) == 0xf6500000u ||   /* PLI reg */
        (raw & 0xff300010u) == 0xf7100000u)     /* PLD, PLDW reg */
        return exec_nop;
    if ((raw & 0xffffff00u) == 0xf57ff000u) {
        switch ((raw >> 4) & 15) {
        case 1: return exec_clrex;
        case 4: case 5: return exec_barrier;       /* DSB, DMB */
        case 6: return exec_nop;                    /* ISB */
        default: return exec_undef;
        }
    }
    if ((raw & 0xfe5fffe0u) == 0xf84d0500u)
        return exec_srs;
    if ((raw & 0xfe50ffffu) == 0xf8100a00u)
        return exec_rfe;
    if ((raw & 0xfe000000u) == 0xfa000000u) {
        d->imm = (uint32_t)(((int32_t)(raw << 8)) >> 6) | (BIT(raw, 24) << 1);
        return exec_blx_imm;
    }
    return exec_undef;
}

void arm_decode(arm_insn *d, uint32_t raw)
{
    arm_exec_fn *fn;
    d->raw = raw;
    d->imm = 0;
    d->aux = 0;
    d->rd = (raw >> 12) & 15;
    d->rn = (raw >> 16) & 15;
    d->rm = raw & 15;
    if (raw >> 28 == 15) {
        d->fn = decode_uncond(d, raw);
        return;
    }
    switch ((raw >> 25) & 7) {
    case 0: fn = decode_dp_misc(d, raw); break;
    case 1: fn = decode_dp_imm(d, raw); break;
    case 2:
        d->imm = raw & 0xfff;
        fn = exec_ldst;
        /* Immediate offset without write-back: the common case. */
        if (BIT(raw, 24) && !BIT(raw, 21) && d->rd != 15) {
            static arm_exec_fn *const fast[4] = {
                exec_str_imm, exec_ldr_imm, exec_strb_imm, exec_ldrb_imm,
            };
            d->imm = BIT(raw, 23) ? d->imm : -d->imm;
            fn = fast[BIT(raw, 22) * 2 + BIT(raw, 20)];
        }
        break;
    case 3: fn = BIT(raw, 4) ? decode_media(d, raw) : exec_ldst; break;
    case 4:
        fn = (raw & 0xffff) ? (BIT(raw, 20) ? exec_ldm : exec_stm)
                            : exec_undef;
        break;
    case 5:
        d->imm = (uint32_t)(((int32_t)(raw << 8)) >> 6);
        fn = exec_b;
        break;
    default: fn = decode_coproc(raw); break;
    }
    d->fn = fn;
}
