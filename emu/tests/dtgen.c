/* Seeded random A32 instruction streams for the differential test.
 *
 * Every encoding emitted is architecturally defined (no UNPREDICTABLE
 * register choices), so emu/ and QEMU must agree on it. r11 holds the
 * middle of the data area and is never written; r10 is the scratch base
 * for memory forms with write-back; all other registers are random.
 * Memory accesses stay within 4 KiB of r11.
 *
 * The seed also picks a scenario: System or User mode, MMU off or on. With
 * the MMU on, the data area is reached through a second virtual mapping
 * (section, supersection, small or large pages, or nothing) with random
 * AP bits, domain type, access flag and alignment checking, so the stream
 * meets every kind of data abort; SVC, UDF, VFP, BKPT, CP15 accesses and
 * mode changes exercise the exception paths. The frame's handlers log and
 * skip each exception. */
#include <stdlib.h>
#include <string.h>
#include "dt.h"

typedef struct gen {
    uint64_t s;
    uint32_t *w;
    uint32_t n, cap;
    uint32_t mode;      /* the body's mode, tracked (CPS, exception returns) */
} gen;

static uint32_t rnd(gen *g)
{
    g->s ^= g->s >> 12;
    g->s ^= g->s << 25;
    g->s ^= g->s >> 27;
    return (uint32_t)((g->s * 0x2545f4914f6cdd1dull) >> 32);
}

static uint32_t pick(gen *g, uint32_t n)
{
    return rnd(g) % n;
}

static void emit(gen *g, uint32_t w)
{
    if (g->n < g->cap)
        g->w[g->n++] = w;
}

static uint32_t cond(gen *g)
{
    return (pick(g, 2) ? 14u : pick(g, 15)) << 28;
}

/* Destination registers: everything but r10, r11 and pc. */
static uint32_t dreg(gen *g)
{
    static const uint8_t d[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 13, 14 };
    return d[pick(g, sizeof(d))];
}

static uint32_t sreg(gen *g)
{
    return pick(g, 15);
}

/* Values that sit on flag and shift edges. */
static uint32_t edge_val(gen *g)
{
    static const uint32_t v[] = {
        0, 1, 2, 0x7fffffff, 0x80000000, 0xffffffff, 0xfffffffe,
        0x80000001, 0x7ffffffe, 31, 32, 33, 0xff, 0x100, 0xffff, 0x8000,
        0x7fff, 0x10000, 0x80, 0x7f,
    };
    return pick(g, 3) ? v[pick(g, sizeof(v) / sizeof(v[0]))] : rnd(g);
}

static uint32_t rd_rn(uint32_t rd, uint32_t rn)
{
    return rn << 16 | rd << 12;
}

static void gen_dp(gen *g)
{
    uint32_t op = pick(g, 16), s = pick(g, 2), form = pick(g, 3);
    int cmp = op >= 8 && op <= 11, mov = op == 13 || op == 15;
    if (cmp)
        s = 1;
    uint32_t rd = cmp ? 0 : dreg(g), rn = mov ? 0 : sreg(g);
    uint32_t w = cond(g) | op << 21 | s << 20;
    if (form == 0) {
        uint32_t imm = pick(g, 4) ? pick(g, 16) << 8 | pick(g, 256)
                                  : (pick(g, 16) << 8) | 0xff;
        emit(g, w | 1u << 25 | rd_rn(rd, rn) | imm);
    } else if (form == 1) {
        if (!mov && !pick(g, 16))
            rn = 15;
        uint32_t rm = pick(g, 16) ? sreg(g) : 15;
        uint32_t amt = pick(g, 4) ? pick(g, 32) : (pick(g, 2) ? 0 : 31);
        emit(g, w | rd_rn(rd, rn) | amt << 7 | pick(g, 4) << 5 | rm);
    } else {
        uint32_t rs = sreg(g);
        if (pick(g, 3) == 0) {  /* an interesting shift amount in Rs */
            static const uint8_t a[] = { 0, 1, 31, 32, 33, 255, 64, 16 };
            rs = dreg(g);
            emit(g, 0xe3a00000u | rs << 12 | a[pick(g, 8)]);
        }
        emit(g, w | rd_rn(rd, rn) | rs << 8 | pick(g, 4) << 5 | 1u << 4 |
                    sreg(g));
    }
}

static void gen_mul(gen *g)
{
    uint32_t op = pick(g, 8), s = pick(g, 2);
    uint32_t w = cond(g) | 0x90u | sreg(g) << 8 | sreg(g);
    uint32_t hi = dreg(g), lo = dreg(g);
    if (op == 2 || op == 3)
        s = 0;
    if (op >= 4 || op == 2) {
        while (lo == hi)
            lo = dreg(g);
    } else if (op == 0) {
        lo = 0;
    } else {
        lo = sreg(g);   /* Ra */
    }
    emit(g, w | op << 21 | s << 20 | hi << 16 | lo << 12);
}

static void gen_mul_half(gen *g)
{
    uint32_t op = pick(g, 4), hi = dreg(g), lo = sreg(g), xy = pick(g, 4);
    if (op == 2)
        while ((lo = dreg(g)) == hi)
            ;
    if (op == 3 || (op == 1 && (xy & 1)))
        lo = 0;                 /* SMULxy, SMULWy: the Ra field is SBZ */
    emit(g, cond(g) | 0x01000080u | op << 21 | hi << 16 | lo << 12 |
                sreg(g) << 8 | xy << 5 | sreg(g));
}

static void gen_misc(gen *g)
{
    uint32_t c = cond(g), rd = dreg(g), rm = sreg(g), rn = sreg(g);
    switch (pick(g, 10)) {
    case 0: emit(g, c | 0x016f0f10u | rd << 12 | rm); break;     /* CLZ */
    case 1: emit(g, c | 0x06bf0f30u | rd << 12 | rm); break;     /* REV */
    case 2: emit(g, c | 0x06bf0fb0u | rd << 12 | rm); break;     /* REV16 */
    case 3: emit(g, c | 0x06ff0fb0u | rd << 12 | rm); break;     /* REVSH */
    case 4: emit(g, c | 0x06ff0f30u | rd << 12 | rm); break;     /* RBIT */
    case 5:                                     /* QADD/QSUB/QDADD/QDSUB */
        emit(g, c | 0x01000050u | pick(g, 4) << 21 | rn << 16 | rd << 12 | rm);
        break;
    case 6:                                     /* SSAT/USAT */
        emit(g, c | 0x06a00010u | pick(g, 2) << 22 | pick(g, 32) << 16 |
                    rd << 12 | pick(g, 32) << 7 | pick(g, 2) << 6 | rm);
        break;
    case 7:                                     /* SSAT16/USAT16 */
        emit(g, c | 0x06a00f30u | pick(g, 2) << 22 | pick(g, 16) << 16 |
                    rd << 12 | rm);
        break;
    case 8: {                                   /* SXT*, UXT*, add forms */
        static const uint8_t ops[] = { 0, 2, 3, 4, 6, 7 };
        if (pick(g, 2))
            rn = 15;
        emit(g, c | 0x06800070u | (uint32_t)ops[pick(g, 6)] << 20 |
                    rn << 16 | rd << 12 | pick(g, 4) << 10 | rm);
        break;
    }
    default: {                                  /* SBFX/UBFX/BFI/BFC */
        uint32_t lsb = pick(g, 32), k = pick(g, 3);
        if (k < 2) {
            uint32_t wm1 = pick(g, 32 - lsb);
            emit(g, c | (k ? 0x07e00050u : 0x07a00050u) | wm1 << 16 |
                        rd << 12 | lsb << 7 | rm);
        } else {
            uint32_t msb = lsb + pick(g, 32 - lsb);
            if (pick(g, 4) == 0)
                rm = 15;                        /* BFC */
            emit(g, c | 0x07c00010u | msb << 16 | rd << 12 | lsb << 7 | rm);
        }
    }
    }
}

static void gen_media(gen *g)
{
    uint32_t c = cond(g), rd = dreg(g), rn = sreg(g), rm = sreg(g);
    switch (pick(g, 8)) {
    case 0: {                                   /* parallel add/subtract */
        static const uint8_t op2[] = { 0, 1, 2, 3, 4, 7 };
        uint32_t k = 1 + pick(g, 3);
        emit(g, c | 0x06000f10u | pick(g, 2) << 22 | k << 20 | rn << 16 |
                    rd << 12 | (uint32_t)op2[pick(g, 6)] << 5 | rm);
        break;
    }
    case 1: emit(g, c | 0x06800fb0u | rn << 16 | rd << 12 | rm); break; /* SEL */
    case 2:                                     /* PKHBT/PKHTB */
        emit(g, c | 0x06800010u | rn << 16 | rd << 12 | pick(g, 32) << 7 |
                    pick(g, 2) << 6 | rm);
        break;
    case 3:                                     /* SMLAD/SMUAD/SMLSD/SMUSD */
        emit(g, c | 0x07000010u | rd << 16 |
                    (pick(g, 2) ? 15u : sreg(g)) << 12 | rm << 8 |
                    pick(g, 4) << 5 | rn);
        break;
    case 4: {                                   /* SMLALD/SMLSLD */
        uint32_t lo;
        while ((lo = dreg(g)) == rd)
            ;
        emit(g, c | 0x07400010u | rd << 16 | lo << 12 | rm << 8 |
                    pick(g, 4) << 5 | rn);
        break;
    }
    case 5: {                                   /* SMMUL/SMMLA/SMMLS */
        static const uint8_t op2[] = { 0, 1, 6, 7 };
        uint32_t o = op2[pick(g, 4)];
        uint32_t ra = o < 2 && pick(g, 2) ? 15u : sreg(g);
        emit(g, c | 0x07500010u | rd << 16 | ra << 12 | rm << 8 | o << 5 | rn);
        break;
    }
    case 6:                                     /* USAD8/USADA8 */
        emit(g, c | 0x07800010u | rd << 16 |
                    (pick(g, 2) ? 15u : sreg(g)) << 12 | rm << 8 | rn);
        break;
    default:                                    /* SDIV/UDIV */
        emit(g, c | 0x0710f010u | pick(g, 2) << 21 | rd << 16 | rm << 8 | rn);
    }
}

static void gen_mov(gen *g)
{
    uint32_t c = cond(g), rd = dreg(g), v = edge_val(g);
    switch (pick(g, 4)) {
    case 0: emit(g, c | 0x03000000u | (v & 0xf000) << 4 | rd << 12 | (v & 0xfff)); break;
    case 1: emit(g, c | 0x03400000u | (v >> 28) << 16 | rd << 12 | (v >> 16 & 0xfff)); break;
    case 2: emit(g, c | 0x010f0000u | rd << 12); break;          /* MRS */
    default: {
        static const uint8_t masks[] = { 8, 4, 12 };     /* f, s, fs */
        uint32_t mask = masks[pick(g, 3)];
        if (pick(g, 2))                         /* MSR CPSR_{f,s,fs}, imm */
            emit(g, c | 0x0320f000u | mask << 16 | pick(g, 16) << 8 | pick(g, 256));
        else                                    /* MSR CPSR_{f,s,fs}, Rm */
            emit(g, c | 0x0120f000u | mask << 16 | sreg(g));
    }
    }
}

/* r10 = r11 + delta, |delta| < 4096 and encodable as two immediates. */
static void set_r10(gen *g, int32_t delta)
{
    uint32_t a = delta < 0 ? (uint32_t)-delta : (uint32_t)delta;
    uint32_t op = delta < 0 ? 0xe24ba000u : 0xe28ba000u;  /* SUB/ADD r10,r11 */
    emit(g, op | 0xc00 | (a >> 8 & 0xf));   /* imm8 ror 24 = a & 0xf00 */
    emit(g, (op & ~0x000f0000u) | 0x000a0000u | (a & 0xff));
}

static int32_t rand_delta(gen *g, int32_t lo, int32_t hi)
{
    return lo + (int32_t)pick(g, (uint32_t)(hi - lo + 1));
}

static void gen_ldst(gen *g)
{
    uint32_t c = cond(g), l = pick(g, 2), b = pick(g, 2), u = pick(g, 2);
    uint32_t rt = l ? dreg(g) : sreg(g);
    uint32_t w = c | 0x04000000u | b << 22 | l << 20 | u << 23;
    switch (pick(g, 4)) {
    case 0: {                               /* [r11, #+-imm12] */
        uint32_t imm = pick(g, 4000);
        emit(g, w | 1u << 24 | rd_rn(rt, 11) | imm);
        break;
    }
    case 1: {                               /* r10 with pre/post write-back */
        uint32_t p = pick(g, 2), imm = pick(g, 256);
        uint32_t t = !p && pick(g, 4) == 0; /* LDRT/STRT and byte forms */
        if (rt == 10)
            rt = 0;
        set_r10(g, rand_delta(g, -3500, 3500));
        emit(g, w | p << 24 | (p ? 1u : t) << 21 | rd_rn(rt, 10) | imm);
        break;
    }
    default: {                              /* [r11, +-r10, shift] */
        static const uint32_t masks[] = { 0xff, 0xfc, 0x3f, 0x80 };
        emit(g, 0xe2000000u | sreg(g) << 16 | 10u << 12 | masks[pick(g, 4)]);
        uint32_t ty = pick(g, 2), amt = ty ? 1 + pick(g, 8) : pick(g, 4);
        emit(g, w | 1u << 25 | 1u << 24 | rd_rn(rt, 11) | amt << 7 |
                    ty << 5 | 10);
    }
    }
}

static void gen_ldst_extra(gen *g)
{
    uint32_t c = cond(g), u = pick(g, 2), k = pick(g, 5);
    uint32_t w = c | 0x90u | u << 23;
    uint32_t op2, l;
    if (k < 4) {            /* LDRH, STRH, LDRSB, LDRSH */
        static const uint8_t o[4][2] = { { 1, 1 }, { 1, 0 }, { 2, 1 }, { 3, 1 } };
        op2 = o[k][0];
        l = o[k][1];
    } else {                /* LDRD, STRD */
        op2 = 2 + pick(g, 2);
        l = 0;
    }
    int dual = op2 >= 2 && !l;
    uint32_t rt = dual ? 2 * pick(g, 5) : (l ? dreg(g) : sreg(g));
    if (dual && rt == 10)
        rt = 12;
    w |= op2 << 5 | l << 20;
    uint32_t form = pick(g, 3);
    if (form == 0) {                        /* [r11, #+-imm8] */
        uint32_t imm = pick(g, 256);
        if (dual)
            imm &= ~3u;
        emit(g, w | 1u << 24 | 1u << 22 | rd_rn(rt, 11) | (imm & 0xf0) << 4 |
                    (imm & 0xf));
    } else if (form == 1) {                 /* r10 with write-back */
        uint32_t p = pick(g, 2), imm = pick(g, 256);
        int32_t d = rand_delta(g, -3500, 3500);
        if (dual) {
            imm &= ~3u;
            d &= ~3;
        }
        if (rt == 10)
            rt = 0;
        set_r10(g, d);
        emit(g, w | p << 24 | 1u << 22 | (p ? pick(g, 2) : 0) << 21 |
                    rd_rn(rt, 10) | (imm & 0xf0) << 4 | (imm & 0xf));
    } else {                                /* [r11, +-r10] */
        emit(g, 0xe2000000u | sreg(g) << 16 | 10u << 12 |
                    (dual ? 0xfcu : 0xffu));
        if (dual && (rt == 10 || rt + 1 == 10))
            rt = 0;
        emit(g, w | 1u << 24 | rd_rn(rt, 11) | 10);
    }
}

static void gen_block(gen *g)
{
    uint32_t l = pick(g, 2), wb = pick(g, 2), mode = pick(g, 4);
    uint32_t list = rnd(g) & 0x73ff & ~(1u << 10);
    if (!l)
        list |= rnd(g) & 0x0c00 & ~(wb ? 1u << 10 : 0);
    if (!list)
        list = 1u << pick(g, 10);
    set_r10(g, rand_delta(g, -3000, 3000) & ~3);
    emit(g, cond(g) | 0x08000000u | mode << 23 | wb << 21 | l << 20 |
                10u << 16 | list);
}

static void gen_atomic(gen *g)
{
    static const uint32_t sz_align[4] = { 3, 7, 0, 1 };  /* W, D, B, H */
    uint32_t k = pick(g, 4);
    int32_t d = rand_delta(g, -3000, 3000) & ~7;
    if (pick(g, 5) == 0) {                  /* SWP/SWPB */
        uint32_t rt = dreg(g), rt2 = sreg(g), byte = pick(g, 2);
        if (rt2 == 10)
            rt2 = 0;
        set_r10(g, d + (int32_t)(pick(g, 8) & (byte ? 7u : 4u)));
        emit(g, cond(g) | 0x01000090u | byte << 22 | 10u << 16 |
                    rt << 12 | rt2);
        return;
    }
    set_r10(g, d + (int32_t)(pick(g, 8) & ~sz_align[k]));
    uint32_t rt = k == 1 ? 2 * pick(g, 5) : dreg(g);
    if (k == 1 && rt == 10)
        rt = 12;
    emit(g, 0xe1900f9fu | k << 21 | 10u << 16 | rt << 12);         /* LDREX */
    for (uint32_t i = pick(g, 3); i; i--)
        gen_dp(g);
    if (pick(g, 8) == 0)
        emit(g, 0xf57ff01fu);                                       /* CLREX */
    uint32_t st = k == 1 ? 2 * pick(g, 5) : sreg(g), rd;
    if (k == 1 && (st == 10 || st == 14))
        st = 4;
    do
        rd = dreg(g);
    while (rd == st || (k == 1 && rd == st + 1));
    if (pick(g, 6) == 0)
        set_r10(g, d);                      /* maybe another address */
    emit(g, cond(g) | 0x01800f90u | k << 21 | 10u << 16 | rd << 12 | st);
}

/* A forward B/BL over 0-3 single-word instructions, so a branch never
 * lands inside an address set-up sequence. */
/* Exceptions, CP15 accesses and mode changes. */
static void gen_system(gen *g)
{
    uint32_t c = cond(g), rt = dreg(g);
    switch (pick(g, 9)) {
    case 0: emit(g, c | 0x0f000000u | (rnd(g) & 0xffffff)); break;   /* SVC */
    case 1: emit(g, 0xe7f000f0u | (rnd(g) & 0xfff0f)); break;        /* UDF */
    case 2:                                     /* a VFP data operation */
        emit(g, c | 0x0e000a00u | (rnd(g) & 0x00fff1ef) | pick(g, 2) << 8);
        break;
    case 3: emit(g, 0xe1200070u | (rnd(g) & 0xfff0f)); break;        /* BKPT */
    case 4: {                                   /* CPS to SYS or IRQ */
        uint32_t m = pick(g, 2) ? 0x1fu : 0x12u;
        emit(g, 0xf1020000u | m);
        if (g->mode != 0x10)
            g->mode = m;                        /* a NOP in User mode */
        break;
    }
    default: {                                  /* MRC/MCR of CP15 */
        static const uint32_t regs[][2] = {
            { 0x0000, 1 },  /* MIDR */          { 0x0001, 1 },  /* CTR */
            { 0x0005, 1 },  /* MPIDR */         { 0x0d02, 0 },  /* TPIDRURW */
            { 0x0d03, 0 },  /* TPIDRURO */      { 0x0d04, 0 },  /* TPIDRPRW */
            { 0x0e00, 1 },  /* CNTFRQ */        { 0x0c00, 0 },  /* VBAR: ro */
            { 0x07a5, 2 },  /* CP15DMB */       { 0x0d01, 0 },  /* CONTEXTIDR */
        };
        uint32_t k = pick(g, 10), r = regs[k][0];
        uint32_t crn = r >> 8, crm = (r >> 4) & 15, op2 = r & 15;
        int write = regs[k][1] == 2 || (regs[k][1] == 0 && k != 7 && pick(g, 2));
        emit(g, c | 0x0e000f10u | (write ? 0 : 1u << 20) | crn << 16 |
                    (write ? sreg(g) : rt) << 12 | op2 << 5 | crm);
    }
    }
}

/* Exception returns and user-bank transfers from IRQ mode (ARM ARM
 * B9.3): set SPSR_irq to a valid System/User/IRQ state, then return with
 * MOVS/SUBS PC, LR or LDM {..., pc}^, or move user r13/r14 with STM^/LDM^.
 * Never skipped by branches, so the mode can be tracked. */
static void gen_exc_return(gen *g)
{
    static const uint32_t modes[] = { 0x10, 0x1f, 0x1f, 0x12, 0x12 };
    if (g->mode == 0x10 || g->n + 12 > g->cap)
        return;
    if (g->mode != 0x12) {
        emit(g, 0xf1020012u);                   /* cps #irq */
        g->mode = 0x12;
    }
    uint32_t k = pick(g, 4), rx = dreg(g);
    if (rx == 14)
        rx = 0;
    if (k == 3) {                               /* STM^/LDM^ user r13, r14 */
        set_r10(g, rand_delta(g, -3000, 3000) & ~3);
        emit(g, 0xe8ca6000u | pick(g, 2) << 20);    /* stmia/ldmia r10, {sp,lr}^ */
        return;
    }
    uint32_t m = modes[pick(g, 5)];
    uint32_t v = (rnd(g) & 0xf80f0000u) | 0x1c0u | m;
    emit(g, 0xe3000000u | (v & 0xf000) << 4 | rx << 12 | (v & 0xfff));  /* movw */
    emit(g, 0xe3400000u | (v >> 28) << 16 | rx << 12 | (v >> 16 & 0xfff));
    emit(g, 0xe16ff000u | rx);                  /* msr spsr_fsxc, rx */
    if (k < 2) {
        emit(g, 0xe28fe000u);                   /* add lr, pc, #0 */
        emit(g, k ? 0xe1b0f00eu : 0xe25ef000u); /* movs pc, lr / subs pc, lr, #0 */
    } else {
        /* The PC goes through an already executed word of the body (the
         * data area may be unwritable): r10 = address of this SUB - 8. */
        emit(g, 0xe24fa010u);                   /* sub r10, pc, #16 */
        emit(g, 0xe28fe004u);                   /* add lr, pc, #4 */
        emit(g, 0xe58ae000u);                   /* str lr, [r10] */
        emit(g, 0xe8da8000u);                   /* ldmia r10, {pc}^ */
    }
    g->mode = m;
}

static void gen_branch(gen *g)
{
    uint32_t skip = pick(g, 4);
    emit(g, cond(g) | 0x0a000000u | pick(g, 2) << 24 | ((skip - 1) & 0xffffff));
    while (skip--) {
        if (pick(g, 2))
            gen_misc(g);
        else
            gen_mov(g);
    }
}


/* ---- Thumb (T16) bodies ----
 * r7 is the data base (never written), r6 the scratch address/index
 * register, SP points into the data area and its offset is tracked so
 * PUSH/POP and SP-relative accesses stay inside it. Results go to r0-r5,
 * r8-r12 and r14. Halfwords are emitted through emit16. */

typedef struct tgen {
    gen *g;
    uint16_t *h;
    uint32_t n, cap;
    int32_t sp;             /* SP - initial SP, bytes */
} tgen;

static void emit16(tgen *t, uint32_t h)
{
    if (t->n < t->cap)
        t->h[t->n++] = (uint16_t)h;
}

static uint32_t tlo(tgen *t)
{
    return pick(t->g, 6);           /* r0-r5 */
}

static uint32_t tsrc(tgen *t)
{
    return pick(t->g, 8);           /* r0-r7 */
}

/* r6 = r7 + delta, |delta| <= 255 */
static void t_set_r6(tgen *t, int32_t delta)
{
    emit16(t, 0x4600 | 7 << 3 | 6);                 /* mov r6, r7 */
    if (delta >= 0)
        emit16(t, 0x3000 | 6 << 8 | (uint32_t)delta);  /* adds r6, #d */
    else
        emit16(t, 0x3800 | 6 << 8 | (uint32_t)-delta); /* subs r6, #d */
}

static void t_alu(tgen *t)
{
    gen *g = t->g;
    switch (pick(g, 7)) {
    case 0:                             /* LSL/LSR/ASR #imm5 */
        emit16(t, pick(g, 3) << 11 | pick(g, 32) << 6 | tsrc(t) << 3 | tlo(t));
        break;
    case 1:                             /* ADDS/SUBS reg or imm3 */
        emit16(t, 0x1800 | pick(g, 4) << 9 | pick(g, 8) << 6 | tsrc(t) << 3 |
                      tlo(t));
        break;
    case 2:                             /* MOVS/CMP/ADDS/SUBS #imm8 */
        emit16(t, 0x2000 | pick(g, 4) << 11 | tlo(t) << 8 |
                      (pick(g, 3) ? pick(g, 256) : 0xff));
        break;
    case 3: case 4:                     /* data processing */
        emit16(t, 0x4000 | pick(g, 16) << 6 | tsrc(t) << 3 | tlo(t));
        break;
    case 5: {                           /* ADD/CMP/MOV with high registers */
        static const uint8_t dst[] = { 0, 1, 2, 3, 4, 5, 8, 9, 10, 11, 12, 14 };
        uint32_t op = pick(g, 3), d = dst[pick(g, sizeof(dst))];
        uint32_t m = pick(g, 15);
        if (op == 1) {                  /* CMP: one high register at least */
            d = pick(g, 15);
            if (d < 8 && m < 8)
                m = 8 + pick(g, 7);
        }
        emit16(t, 0x4400 | op << 8 | (d >> 3) << 7 | m << 3 | (d & 7));
        break;
    }
    default:                            /* SXTH/SXTB/UXTH/UXTB, REV* */
        if (pick(g, 2))
            emit16(t, 0xb200 | pick(g, 4) << 6 | tsrc(t) << 3 | tlo(t));
        else {
            static const uint8_t op[] = { 0, 1, 3 };
            emit16(t, 0xba00 | (uint32_t)op[pick(g, 3)] << 6 | tsrc(t) << 3 |
                          tlo(t));
        }
    }
}

static void t_mem(tgen *t)
{
    gen *g = t->g;
    switch (pick(g, 7)) {
    case 0: {                           /* [r7, r6] all eight kinds */
        uint32_t op = pick(g, 8), rt = op < 3 ? tsrc(t) : tlo(t);
        emit16(t, 0x2000 | 6 << 8 | pick(g, 256));       /* movs r6, #k */
        emit16(t, 0x5000 | op << 9 | 6 << 6 | 7 << 3 | rt);
        break;
    }
    case 1: case 2: {                   /* imm5 forms on r7 or r6 */
        static const uint16_t base[] = { 0x6000, 0x6800, 0x7000, 0x7800,
                                         0x8000, 0x8800 };
        uint32_t k = pick(g, 6), rn = 7;
        uint32_t rt = (k & 1) ? tlo(t) : tsrc(t);
        if (pick(g, 2)) {
            t_set_r6(t, (int32_t)pick(g, 511) - 255);
            rn = 6;
            if (rt == 6)
                rt = 0;
        }
        emit16(t, base[k] | pick(g, 32) << 6 | rn << 3 | rt);
        break;
    }
    case 3: {                           /* SP-relative */
        uint32_t l = pick(g, 2), rt = l ? tlo(t) : tsrc(t);
        emit16(t, 0x9000 | l << 11 | rt << 8 | pick(g, 200));
        break;
    }
    case 4: {                           /* PUSH/POP, tracking SP */
        uint32_t list = pick(g, 64), r = pick(g, 2);
        if (!list && !r)
            list = 1;
        uint32_t n = (uint32_t)__builtin_popcount(list) + r;
        if (t->sp - 4 * (int32_t)n > -1400 && (pick(g, 2) || t->sp < 4 * (int32_t)n)) {
            emit16(t, 0xb400 | r << 8 | list | (pick(g, 2) ? 0x40 : 0));
            t->sp -= 4 * (int32_t)(n + ((t->h[t->n - 1] & 0x40) ? 1 : 0));
        } else if (t->sp + 4 * (int32_t)n <= 1400) {
            list |= list ? 0 : 1;
            emit16(t, 0xbc00 | list);   /* POP r0-r5 */
            t->sp += 4 * __builtin_popcount(list);
        }
        break;
    }
    case 5: {                           /* LDMIA/STMIA r6! */
        uint32_t l = pick(g, 2), list = pick(g, 63) + 1;
        t_set_r6(t, ((int32_t)pick(g, 400) - 200) & ~3);
        emit16(t, 0xc000 | l << 11 | 6 << 8 | list);
        break;
    }
    default: {                          /* LDR literal, ADR, ADD SP */
        uint32_t k = pick(g, 4);
        if (k == 0)
            emit16(t, 0x4800 | tlo(t) << 8 | pick(g, 256));
        else if (k == 1)
            emit16(t, 0xa000 | pick(g, 2) << 11 | tlo(t) << 8 | pick(g, 256));
        else {
            int32_t imm = (int32_t)pick(g, 32) * 4;
            int sub = t->sp - imm > -1400 && (pick(g, 2) || t->sp + imm > 1400);
            if (sub || t->sp + imm <= 1400) {
                emit16(t, 0xb000 | (uint32_t)sub << 7 | (uint32_t)imm / 4);
                t->sp += sub ? -imm : imm;
            }
        }
    }
    }
}

static void t_flow(tgen *t)
{
    gen *g = t->g;
    uint32_t skip = pick(g, 4);
    switch (pick(g, 6)) {
    case 0: case 1: case 2:             /* B<cond> over 0-3 */
        emit16(t, 0xd000 | pick(g, 14) << 8 | ((skip - 1) & 0xff));
        break;
    case 3:                             /* B over 0-3 */
        emit16(t, 0xe000 | ((skip - 1) & 0x7ff));
        break;
    case 4:                             /* CBZ/CBNZ over 1-3 */
        skip = 1 + pick(g, 3);
        emit16(t, 0xb100 | pick(g, 2) << 11 | (skip - 1) << 3 | tsrc(t));
        break;
    default:                            /* SVC, UDF, CPS */
        skip = 0;
        if (pick(g, 3) == 0)
            emit16(t, 0xb660 | pick(g, 2) << 4 | pick(g, 8));
        else
            emit16(t, (pick(g, 2) ? 0xdf00 : 0xde00) | pick(g, 256));
    }
    while (skip--)
        t_alu(t);
}

static void gen_thumb_body(gen *g, uint8_t *body, uint32_t n_half)
{
    tgen t = { .g = g, .h = (uint16_t *)body, .cap = n_half };
    while (t.n < n_half) {
        uint32_t k = pick(g, 10);
        if (k < 5)
            t_alu(&t);
        else if (k < 8)
            t_mem(&t);
        else
            t_flow(&t);
    }
}

static void put32(uint8_t *p, uint32_t off, uint32_t v)
{
    memcpy(p + off, &v, 4);
}

/* Short-descriptor AP[2:0] for a section (APX bit 15, AP bits 11:10) or a
 * page (APX bit 9, AP bits 5:4). Reserved 100 is never used. */
static uint32_t ap_bits(uint32_t ap, int page)
{
    return page ? ((ap >> 2) << 9 | (ap & 3) << 4)
                : ((ap >> 2) << 15 | (ap & 3) << 10);
}

static uint32_t rand_ap(gen *g)
{
    static const uint8_t ap[] = { 0, 1, 2, 3, 3, 3, 5, 6, 7 };
    return ap[pick(g, sizeof(ap))];
}

/* Picks the scenario for seed and fills config, TTBR0, DACR and the SCTLR
 * bits (cfg[0..3]); builds the tables. Returns r11. */
static uint32_t build_scenario(gen *g, uint64_t seed, uint8_t *img,
                               uint32_t *cfg)
{
    uint32_t pa = DT_LOAD, center = DT_DATA_OFF + DT_DATA_BYTES / 2;
    cfg[0] = ((seed & 1) ? DT_CFG_USER : 0) | ((seed & 4) ? DT_CFG_PMU : 0);
    if (dt_thumb_seed(seed))
        return pa + center;
    cfg[1] = pa + DT_L1_OFF;
    cfg[2] = 0x55555555u;
    cfg[3] = 0;
    if (!(seed & 2))
        return pa + center;
    /* MMU on: the frame's MiB and the UART identity-mapped, full access,
     * domain 0; the data area again at 0x50000000 + offset. */
    uint32_t l1 = DT_L1_OFF, l2 = DT_L2_OFF, dom = 1 + pick(g, 15);
    put32(img, l1 + 4 * (pa >> 20), pa | 3u << 10 | 2);
    put32(img, l1 + 4 * (DT_UART >> 20), DT_UART | 3u << 10 | 1u << 4 | 2);
    static const uint8_t dtype[] = { 1, 1, 1, 1, 1, 3, 3, 0 };
    uint32_t dt = dtype[pick(g, sizeof(dtype))];
    cfg[2] = (cfg[2] & ~(3u << (2 * dom))) | dt << (2 * dom);
    cfg[3] = 1u | (pick(g, 3) == 0 ? 2u : 0) | (pick(g, 3) == 0 ? 1u << 29 : 0);
    uint32_t va = 0x50000000u, ng = pick(g, 2);
    switch (pick(g, 6)) {
    case 0:                                     /* section */
        put32(img, l1 + 4 * (va >> 20), pa | ap_bits(rand_ap(g), 0) |
                    dom << 5 | ng << 17 | pick(g, 2) << 4 | 2);
        return va + center;
    case 1: {                                   /* supersection */
        uint32_t e = (pa & 0xff000000u) | ap_bits(rand_ap(g), 0) |
                     ng << 17 | 1u << 18 | pick(g, 2) << 4 | 2;
        for (uint32_t i = 0; i < 16; i++)
            put32(img, l1 + 4 * ((va >> 20) + i), e);
        return va + (pa & 0x00ffffffu) + center;
    }
    case 2:                                     /* nothing: translation */
        return va + center;
    case 3: {                                   /* large page, 64 KiB */
        uint32_t e = pa | ap_bits(rand_ap(g), 1) | ng << 11 |
                     pick(g, 2) << 15 | 1;
        put32(img, l1 + 4 * (va >> 20), (pa + l2) | dom << 5 | 1);
        for (uint32_t i = 0; i < 16; i++)
            put32(img, l2 + 4 * i, e);
        return va + center;
    }
    default: {                                  /* small pages */
        put32(img, l1 + 4 * (va >> 20), (pa + l2) | dom << 5 | 1);
        for (uint32_t i = 1; i <= 2; i++)
            if (pick(g, 6))
                put32(img, l2 + 4 * i, (pa + DT_DATA_OFF + (i - 1) * 0x1000) |
                            ap_bits(rand_ap(g), 1) | ng << 11 |
                            pick(g, 2) | 2);
        return va + center;
    }
    }
}

int dt_thumb_seed(uint64_t seed)
{
    return (seed & 0xa) == 8;
}

void dt_gen(const dt_buf *frame, uint64_t seed, uint32_t n_insns,
            dt_buf *img)
{
    gen g = { .s = seed * 0x9e3779b97f4a7c15ull + 1 };
    size_t body_words = n_insns + 8;
    img->len = DT_BODY_OFF + 4 * body_words;
    img->p = calloc(1, img->len);
    memcpy(img->p, frame->p, frame->len < DT_BODY_OFF ? frame->len : DT_BODY_OFF);
    uint32_t init[21] = { 0 };
    for (int i = 0; i < 15; i++)
        init[i] = edge_val(&g);
    init[16] = rnd(&g) & 0xf80f0000u;   /* NZCVQ and GE */
    init[11] = build_scenario(&g, seed, img->p, &init[17]);
    memcpy(img->p + DT_INIT_OFF, init, sizeof(init));
    for (uint32_t i = 0; i < DT_DATA_BYTES; i += 4) {
        uint32_t v = edge_val(&g);
        memcpy(img->p + DT_DATA_OFF + i, &v, 4);
    }
    uint8_t *body = img->p + DT_BODY_OFF;
    if (dt_thumb_seed(seed)) {
        /* r7 is the Thumb data base; SP starts in the data area. */
        init[7] = init[11];
        init[13] = init[11] - 0x400;
        memcpy(img->p + DT_INIT_OFF, init, sizeof(init));
        gen_thumb_body(&g, body, 2 * n_insns);
        uint16_t *tail = (uint16_t *)body + 2 * n_insns;
        for (int i = 0; i < 4; i++)
            tail[i] = 0x46c0;               /* mov r8, r8 */
        /* BLX epilogue (T2): to ARM, target = Align(PC, 4) + imm. */
        uint32_t at = DT_BODY_OFF + 4 * n_insns + 8;
        int32_t off = (int32_t)DT_EPILOGUE_OFF - (int32_t)((at + 4) & ~3u);
        uint32_t imm = (uint32_t)off & 0x1ffffff, s24 = imm >> 24 & 1;
        uint32_t j1 = !((imm >> 23 & 1) ^ s24), j2 = !((imm >> 22 & 1) ^ s24);
        tail[4] = (uint16_t)(0xf000 | s24 << 10 | (imm >> 12 & 0x3ff));
        tail[5] = (uint16_t)(0xc000 | j1 << 13 | j2 << 11 | (imm >> 1 & 0x7ff));
        /* enter: blx body (A2: H is bit 1 of the offset) */
        int32_t e = (int32_t)DT_BODY_OFF - (int32_t)(DT_ENTER_OFF + 8);
        put32(img->p, DT_ENTER_OFF, 0xfa000000u | ((uint32_t)e >> 2 & 0xffffff) |
                                        ((uint32_t)e >> 1 & 1) << 24);
        return;
    }
    g.w = (uint32_t *)body;
    g.cap = n_insns;
    g.mode = (init[17] & DT_CFG_USER) ? 0x10 : 0x1f;
    while (g.n < n_insns) {
        uint32_t k = pick(&g, 100);
        if (k < 30) gen_dp(&g);
        else if (k < 38) gen_mul(&g);
        else if (k < 42) gen_mul_half(&g);
        else if (k < 54) gen_misc(&g);
        else if (k < 60) gen_media(&g);
        else if (k < 66) gen_mov(&g);
        else if (k < 78) gen_ldst(&g);
        else if (k < 86) gen_ldst_extra(&g);
        else if (k < 90) gen_block(&g);
        else if (k < 94) gen_atomic(&g);
        else if (k < 96) gen_branch(&g);
        else if (k < 98) gen_system(&g);
        else gen_exc_return(&g);
    }
    /* Branches skip at most 3 instructions: pad, then jump to the
     * epilogue. */
    uint32_t *tail = (uint32_t *)body + n_insns;
    for (int i = 0; i < 4; i++)
        tail[i] = 0xe320f000u;          /* NOP */
    int32_t off = (int32_t)DT_EPILOGUE_OFF -
                  (int32_t)(DT_BODY_OFF + 4 * (n_insns + 4) + 8);
    tail[4] = 0xea000000u | (((uint32_t)off >> 2) & 0xffffff);
}
