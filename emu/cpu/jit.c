/* The fast engine: A32 blocks translated to x86-64 (see README, "Fast
 * engine"). A block is straight-line code within one code page, keyed by
 * its physical and virtual start address. Every instruction of a block
 * does, in order, what the reference loop in exec.c does: compare the raw
 * word in memory with the translated one (self-modifying code), count the
 * instruction, check the condition, then either run inline x86 code (data
 * processing, MOVW/MOVT, B/BL, the soft-TLB fast path of word, byte and
 * halfword loads and stores and of LDM/STM) or
 * call the exec.c handler with c->insns and c->r[15] up to date. After a
 * call, any FLOW bit leaves the block at that instruction, so a hook that
 * asks for an exit (a frequency change, an interrupt line, a TLB flush) is
 * honoured at the same instruction as in the reference loop. The loop
 * enters a block only when the whole block fits in the remaining budget;
 * the tail of a run goes to the reference loop. While a PMU counter
 * follows loads, stores or PC writes (c->pmu.per_insn), blocks come from a
 * second map whose blocks count them in rbp (EV_BITS bits each) and add
 * that to c->pmu before any call and on leaving; the other map's blocks
 * carry no trace of them, so counting costs nothing until enabled. */
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/mman.h>
#include "arm_int.h"
#include "panlab/error.h"

#if defined(__x86_64__)

/* Bounds of one core's caches; when any is full, all are dropped. */
#define JIT_CODE_BYTES (32u << 20)
#define JIT_MAX_BLOCKS (1u << 16)
#define JIT_MAX_INSNS (1u << 19)
#define JIT_MAP_BITS 18 /* 1 MiB of code before two blocks collide */
#define JIT_BLOCK_INSNS 64
#define JIT_INSN_BYTES \
    640                         /* worst case per instruction, stubs included
                                   (an LDM of 15 registers: about 450) */
#define JIT_BLOCK_BYTES 1024    /* and per block */
/* rbp's fields in counting blocks: PC writes, loads, stores. A run of
 * chained blocks executes at most its budget of instructions, so that
 * budget is kept below 2^EV_BITS. */
#define EV_BITS 21
#define EV_MAX ((1u << EV_BITS) - 1)
enum { EV_PC = 0, EV_LOAD = EV_BITS, EV_STORE = 2 * EV_BITS };

typedef void jit_code(arm_cpu *c, const uint8_t *host_page);

/* va is the block's key: its virtual start | the privilege (c->priv) it was
 * translated for, which its soft-TLB lookups assume. A32 blocks start
 * word-aligned, and only an instruction that leaves the block (FLOW_BREAK)
 * changes the privilege, so chained blocks share it. */
typedef struct jit_block {
    uint32_t pa, va, len;
    jit_code *code;
    uint8_t *body;          /* after the prologue: where chained jumps enter */
} jit_block;

struct jit_cache {
    uint8_t *code;
    size_t code_used;
    jit_block *blocks;
    uint32_t nblocks;
    arm_insn *insns;
    uint32_t ninsns;
    jit_block *map[2][1u << JIT_MAP_BITS]; /* [c->pmu.per_insn] */
    uint64_t flushes;
};

/* ---- x86-64 emitter ---- */

enum { RAX = 0, RCX = 1, RDX = 2, RBX = 3, RSI = 6, RDI = 7, R8 = 8, R9 = 9,
       R10 = 10, R11 = 11, R13 = 13, R15 = 15 };
enum {
    CC_O = 0, CC_NO = 1, CC_C = 2, CC_NC = 3, CC_E = 4, CC_NE = 5,
    CC_S = 8, CC_NS = 9,
};
/* Group-1 ALU opcodes (the /n of 0x81 and op*8+1 for reg, reg). */
enum { X_ADD = 0, X_OR = 1, X_ADC = 2, X_SBB = 3, X_AND = 4, X_SUB = 5,
       X_XOR = 6, X_CMP = 7 };

typedef struct emit {
    uint8_t *p;
} emit;

#define OFF(f) ((int32_t)offsetof(arm_cpu, f))
#define OFF_R(n) (OFF(r) + 4 * (n))

static void b1(emit *e, uint8_t v) { *e->p++ = v; }
static void b4(emit *e, uint32_t v) { memcpy(e->p, &v, 4); e->p += 4; }
static void b8(emit *e, uint64_t v) { memcpy(e->p, &v, 8); e->p += 8; }
/* n bytes: one x86 instruction's encoding on one line */
static void bn(emit *e, int n, ...)
{
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n; i++)
        b1(e, (uint8_t)va_arg(ap, int));
    va_end(ap);
}

/* op r32, [rbx + disp] */
static void x_mem(emit *e, uint8_t op, int r, int32_t disp)
{
    if (r >= 8)
        b1(e, 0x44);
    b1(e, op);
    b1(e, 0x80 | (r & 7) << 3 | RBX);
    b4(e, (uint32_t)disp);
}
static void ld(emit *e, int r, int32_t disp) { x_mem(e, 0x8b, r, disp); }
static void st(emit *e, int r, int32_t disp) { x_mem(e, 0x89, r, disp); }
static void alu_m(emit *e, int op, int r, int32_t disp)
{
    x_mem(e, (uint8_t)(op * 8 + 3), r, disp);
}
/* mov dword [rbx + disp], imm */
static void st_imm(emit *e, int32_t disp, uint32_t imm)
{
    b1(e, 0xc7);
    b1(e, 0x83);
    b4(e, (uint32_t)disp);
    b4(e, imm);
}
/* cmp dword [rbx + disp], 0 */
static void cmp0(emit *e, int32_t disp)
{
    b1(e, 0x83);
    b1(e, 0xbb);
    b4(e, (uint32_t)disp);
    b1(e, 0);
}
/* op dst, src (32-bit, registers below r8) */
static void alu_rr(emit *e, int op, int dst, int src)
{
    b1(e, (uint8_t)(op * 8 + 1));
    b1(e, 0xc0 | src << 3 | dst);
}
static void alu_ri(emit *e, int op, int r, uint32_t imm)
{
    b1(e, 0x81);
    b1(e, 0xc0 | op << 3 | r);
    b4(e, imm);
}
static void mov_rr(emit *e, int dst, int src)
{
    b1(e, 0x89);
    b1(e, 0xc0 | src << 3 | dst);
}
static void mov_ri(emit *e, int r, uint32_t imm)
{
    b1(e, 0xb8 + r);
    b4(e, imm);
}
/* shl/shr/sar/ror r, amt: the /n of 0xc1 */
static void shift_ri(emit *e, int n, int r, int amt)
{
    b1(e, 0xc1);
    b1(e, 0xc0 | n << 3 | r);
    b1(e, (uint8_t)amt);
}
static void not_r(emit *e, int r)
{
    b1(e, 0xf7);
    b1(e, 0xd0 | r);
}
/* setcc r8 then movzx r32, r8 (r below 4 or r8) */
static void setcc(emit *e, int cc, int r)
{
    if (r >= 8)
        b1(e, 0x41);
    b1(e, 0x0f);
    b1(e, 0x90 + cc);
    b1(e, 0xc0 | (r & 7));
    if (r >= 8)
        b1(e, 0x45);
    b1(e, 0x0f);
    b1(e, 0xb6);
    b1(e, 0xc0 | (r & 7) << 3 | (r & 7));
}
/* jcc/jmp rel32 to be patched; returns where the rel32 is. */
static uint8_t *jcc(emit *e, int cc)
{
    b1(e, 0x0f);
    b1(e, 0x80 + cc);
    b4(e, 0);
    return e->p - 4;
}
static uint8_t *jmp(emit *e)
{
    b1(e, 0xe9);
    b4(e, 0);
    return e->p - 4;
}
static void patch(uint8_t *rel, const uint8_t *target)
{
    int32_t d = (int32_t)(target - (rel + 4));
    memcpy(rel, &d, 4);
}
/* r12 counts instructions; straight-line inline code adds them up at
 * translation and only exits and handler calls add them to r12. */
static void add_r12(emit *e, int n, int sub)
{
    if (!n)
        return;
    b1(e, 0x49); b1(e, 0x81); b1(e, sub ? 0xec : 0xc4); b4(e, (uint32_t)n);
}

/* mov [rbx + insns], r12 */
static void sync_insns(emit *e)
{
    b1(e, 0x4c);
    b1(e, 0x89);
    b1(e, 0xa3);
    b4(e, (uint32_t)OFF(insns));
}

/* ---- translation ---- */

/* Host registers that cache guest registers (see cache_reg below). */
#define CACHE_SLOTS 6

/* Out-of-line exits, emitted after the block's straight-line code. */
enum { EX_SMC, EX_FLOW, EX_PC, EX_SLOW, EX_JUMP };
typedef struct exit_ref {
    uint8_t *rel;
    uint8_t *more[3]; /* EX_SLOW: other jumps to the same stub */
    int nmore;
    int kind, k;
    int pend;               /* instructions counted but not yet in r12 */
    uint8_t *back;          /* EX_SLOW: where to continue */
    uint32_t target;        /* EX_PC: the branch target */
    int8_t cached[CACHE_SLOTS]; /* EX_SLOW: the cache at `back`, reloaded */
} exit_ref;

typedef struct xlate {
    emit e;
    jit_cache *j;
    jit_block **map;        /* the map of this block's counting mode */
    int count;              /* c->pmu.per_insn: add the PMU's event counts */
    int priv;               /* c->priv: which half of the soft TLB */
    uint32_t pa;
    jit_block *b;
    arm_insn *insn;
    uint32_t va;
    exit_ref exits[JIT_BLOCK_INSNS * 8];
    int nexits;
    uint8_t *dyn[JIT_BLOCK_INSNS * 2 + 2];  /* jumps to the shared emit_chain_dyn */
    int ndyn;
    uint8_t *body;
    int pend;               /* see add_pend() */
    uint8_t *len_sites[JIT_BLOCK_INSNS + 1];  /* the block's length, once known */
    int nlen_sites;
    uint8_t *epilogue;
    int8_t cached[CACHE_SLOTS];     /* the guest register each slot holds, or -1 */
    uint32_t cache_use[CACHE_SLOTS]; /* when each slot was last used */
    uint32_t cache_clock;
} xlate;

static void add_exit(xlate *x, uint8_t *rel, int kind, int k, uint8_t *back)
{
    exit_ref *r = &x->exits[x->nexits++];
    *r = (exit_ref){ rel, { NULL, NULL, NULL }, 0, kind, k, x->pend, back, 0,
                     { 0 } };
    memcpy(r->cached, x->cached, sizeof(r->cached));
}

/* The n <= 4 jumps to instruction k's handler call, one stub for all. */
static void add_slow_exits(xlate *x, uint8_t **slow, int n, int k)
{
    add_exit(x, slow[0], EX_SLOW, k, x->e.p);
    exit_ref *r = &x->exits[x->nexits - 1];
    for (int i = 1; i < n; i++)
        r->more[r->nmore++] = slow[i];
}

static uint32_t pc_of(const xlate *x, int k)
{
    return x->va + 4u * (uint32_t)k;
}

/* One PMU event (EV_PC, EV_LOAD, EV_STORE) in rbp, in blocks that count
 * them; rax is free wherever one is counted. */
static void count_event(xlate *x, int field)
{
    emit *e = &x->e;
    if (!x->count)
        return;
    if (field == EV_STORE) {
        b1(e, 0x48); b1(e, 0xb8); b8(e, 1ull << EV_STORE); /* mov rax, imm */
        bn(e, 3, 0x48, 0x01, 0xc5);                         /* add rbp, rax */
    } else {
        bn(e, 3, 0x48, 0x81, 0xc5);                         /* add rbp, imm */
        b4(e, 1u << field);
    }
}

/* c->pmu's counts += rbp's fields; rbp = 0 (uses rax) */
static void drain_events(xlate *x)
{
    emit *e = &x->e;
    if (!x->count)
        return;
    static const int32_t low[2] = { OFF(pmu.pc_writes), OFF(pmu.loads) };
    for (int i = 0; i < 2; i++) {
        bn(e, 3, 0x48, 0x89, 0xe8);                     /* mov rax, rbp */
        if (i)
            bn(e, 4, 0x48, 0xc1, 0xe8, EV_BITS);        /* shr rax, EV_BITS */
        b1(e, 0x25); b4(e, EV_MAX);                     /* and eax, EV_MAX */
        bn(e, 3, 0x48, 0x01, 0x83); b4(e, (uint32_t)low[i]); /* add [rbx+], rax */
    }
    bn(e, 4, 0x48, 0xc1, 0xed, EV_STORE);               /* shr rbp, EV_STORE */
    bn(e, 3, 0x48, 0x01, 0xab); b4(e, (uint32_t)OFF(pmu.stores)); /* add [rbx+], rbp */
    bn(e, 2, 0x31, 0xed);                               /* xor ebp, ebp */
}

/* Guest registers cached in host registers that inline code leaves alone,
 * write-through: c->r[] in memory is exact at every instruction, so no exit
 * has to write anything back, and a value is read from the host register
 * instead of waiting on the store just made (or reloading what a load just
 * loaded). Inline data processing, loads, multiplies and base write-backs
 * fill the cache (least recently used slot first); inline code reads it.
 * A handler call clobbers the caller-saved slots: after a call in an
 * instruction's slow path the cache is reloaded from c->r[] (the handler
 * did the whole instruction there); after any other call, at a block's
 * entry and where paths join with different contents, it is dropped. */
static const int cache_reg[CACHE_SLOTS] = { R13, R15, R10, R11, RSI, RDI };

/* mov dst, src (32-bit, any two registers) */
static void mov_rr_any(emit *e, int dst, int src)
{
    if (dst >= 8 || src >= 8)
        b1(e, (uint8_t)(0x40 | (src >= 8) << 2 | (dst >= 8)));
    b1(e, 0x89);
    b1(e, (uint8_t)(0xc0 | (src & 7) << 3 | (dst & 7)));
}

static void cache_drop(xlate *x)
{
    memset(x->cached, -1, sizeof(x->cached));
}

/* Guest register n changed outside the cache. */
static void cache_forget(xlate *x, int n)
{
    for (int i = 0; i < CACHE_SLOTS; i++)
        if (x->cached[i] == n)
            x->cached[i] = -1;
}

/* host = guest register n */
static void ld_r(xlate *x, int host, int n)
{
    for (int i = 0; i < CACHE_SLOTS; i++)
        if (x->cached[i] == n) {
            mov_rr_any(&x->e, host, cache_reg[i]);
            x->cache_use[i] = ++x->cache_clock;
            return;
        }
    ld(&x->e, host, OFF_R(n));
}

/* guest register n = host, in memory and in the cache */
static void st_r(xlate *x, int host, int n)
{
    st(&x->e, host, OFF_R(n));
    int i = 0;
    for (int s = 0; s < CACHE_SLOTS; s++) {
        if (x->cached[s] == n) {
            i = s;
            break;
        }
        if (x->cached[i] != -1 &&
            (x->cached[s] == -1 || x->cache_use[s] < x->cache_use[i]))
            i = s; /* an empty slot, else the least recently used */
    }
    mov_rr_any(&x->e, cache_reg[i], host);
    x->cached[i] = (int8_t)n;
    x->cache_use[i] = ++x->cache_clock;
}

/* Each slot of `cached` = its guest register in c->r[]. */
static void cache_reload(xlate *x, const int8_t *cached)
{
    for (int i = 0; i < CACHE_SLOTS; i++)
        if (cached[i] >= 0)
            ld(&x->e, cache_reg[i], OFF_R(cached[i]));
}

/* Calls the handler of instruction k with c->insns and c->r[15] set; any
 * FLOW bit leaves the block. */
static void emit_call(xlate *x, int k)
{
    emit *e = &x->e;
    drain_events(x);
    sync_insns(e);
    st_imm(e, OFF_R(15), pc_of(x, k) + 8);
    b1(e, 0x48); b1(e, 0x89); b1(e, 0xdf);             /* mov rdi, rbx */
    b1(e, 0x48); b1(e, 0xbe); b8(e, (uintptr_t)&x->insn[k]);  /* mov rsi */
    b1(e, 0x48); b1(e, 0xb8); b8(e, (uintptr_t)x->insn[k].fn); /* mov rax */
    b1(e, 0xff); b1(e, 0xd0);                           /* call rax */
    cmp0(e, OFF(flow));
    add_exit(x, jcc(e, CC_NE), EX_FLOW, k, NULL);
}

/* Jumps to the returned patch sites when condition `cond` fails. */
static int emit_cond(xlate *x, uint32_t cond, uint8_t **skip)
{
    emit *e = &x->e;
    uint8_t *pass;
    switch (cond) {
    case 0: cmp0(e, OFF(zf)); skip[0] = jcc(e, CC_NE); return 1;
    case 1: cmp0(e, OFF(zf)); skip[0] = jcc(e, CC_E); return 1;
    case 2: cmp0(e, OFF(cf)); skip[0] = jcc(e, CC_E); return 1;
    case 3: cmp0(e, OFF(cf)); skip[0] = jcc(e, CC_NE); return 1;
    case 4: cmp0(e, OFF(nf)); skip[0] = jcc(e, CC_NS); return 1;
    case 5: cmp0(e, OFF(nf)); skip[0] = jcc(e, CC_S); return 1;
    case 6: cmp0(e, OFF(vf)); skip[0] = jcc(e, CC_NS); return 1;
    case 7: cmp0(e, OFF(vf)); skip[0] = jcc(e, CC_S); return 1;
    case 8:
        cmp0(e, OFF(cf)); skip[0] = jcc(e, CC_E);
        cmp0(e, OFF(zf)); skip[1] = jcc(e, CC_E);
        return 2;
    case 9:
        cmp0(e, OFF(cf)); pass = jcc(e, CC_E);
        cmp0(e, OFF(zf)); skip[0] = jcc(e, CC_NE);
        patch(pass, e->p);
        return 1;
    case 10: case 11:
        ld(e, RAX, OFF(nf)); alu_m(e, X_XOR, RAX, OFF(vf));
        skip[0] = jcc(e, cond == 10 ? CC_S : CC_NS);
        return 1;
    case 12:
        cmp0(e, OFF(zf)); skip[0] = jcc(e, CC_E);
        ld(e, RAX, OFF(nf)); alu_m(e, X_XOR, RAX, OFF(vf));
        skip[1] = jcc(e, CC_S);
        return 2;
    case 13:
        cmp0(e, OFF(zf)); pass = jcc(e, CC_E);
        ld(e, RAX, OFF(nf)); alu_m(e, X_XOR, RAX, OFF(vf));
        skip[0] = jcc(e, CC_NS);
        patch(pass, e->p);
        return 1;
    default:
        return 0;
    }
}

/* Data processing with Rd, Rn, Rm (and Rs) != PC can be inline, except
 * flag-setting ADC/SBC/RSC, the immediate shifts whose amount 0 means 32
 * or RRX, and flag-setting logical operations with a register-shifted
 * operand (their carry is the shifter's). */
static int dp_inline(const arm_insn *d)
{
    uint32_t raw = d->raw;
    int op = (raw >> 21) & 15, s = (raw >> 20) & 1;
    int imm = (raw >> 25) & 1;
    int logical = op <= 1 || op == 8 || op == 9 || op >= 12;
    if (raw >> 28 == 15 || (raw >> 26 & 3) != 0)
        return 0; /* not data processing */
    if (!s && op >= 8 && op <= 11)
        return 0;           /* MOVW/MOVT/MSR/hints; misc, multiplies */
    if (d->rd == 15 || d->rn == 15 || (!imm && d->rm == 15))
        return 0;
    if (s && (op == 5 || op == 6 || op == 7))
        return 0;
    if (!imm && (raw & 0x10))
        return d->fn == exec_dp_regreg && ((raw >> 8) & 15) != 15 &&
               !(s && logical);
    return imm || ((raw >> 7) & 31) || !((raw >> 5) & 3);
}

/* ecx = Rm shifted by the bottom byte of Rs (A8.4.4): LSL and LSR by 32
 * or more give 0, ASR by 32 or more is ASR by 31, ROR uses the amount
 * modulo 32 as x86 does. Clobbers edx and r8d. */
static void emit_shift_reg(xlate *x, int type, int rm, int rs)
{
    emit *e = &x->e;
    ld_r(x, RDX, rm);
    ld_r(x, RCX, rs);
    bn(e, 3, 0x0f, 0xb6, 0xc9); /* movzx ecx, cl */
    switch (type) {
    case 0:
    case 1:
        bn(e, 2, 0xd3, type ? 0xea : 0xe2); /* shr/shl edx, cl */
        bn(e, 3, 0x45, 0x31, 0xc0);         /* xor r8d, r8d */
        bn(e, 3, 0x83, 0xf9, 32);           /* cmp ecx, 32 */
        bn(e, 4, 0x41, 0x0f, 0x43, 0xd0);   /* cmovae edx, r8d */
        break;
    case 2:
        bn(e, 6, 0x41, 0xb8, 31, 0, 0, 0); /* mov r8d, 31 */
        bn(e, 3, 0x83, 0xf9, 31);          /* cmp ecx, 31 */
        bn(e, 4, 0x41, 0x0f, 0x47, 0xc8);  /* cmova ecx, r8d */
        bn(e, 2, 0xd3, 0xfa);              /* sar edx, cl */
        break;
    default:
        bn(e, 2, 0xd3, 0xca); /* ror edx, cl */
        break;
    }
    mov_rr(e, RCX, RDX);
}

/* MUL, MLA and MLS (A8.8.114, A8.8.100, A8.8.101) with no register PC:
 * MULS and MLAS set N and Z only. */
static int is_mul_inline(const arm_insn *d)
{
    uint32_t raw = d->raw;
    int op = (raw >> 21) & 7;
    if (d->fn != exec_mul || op == 2)
        return 0; /* UMAAL */
    return d->rn != 15 && d->rm != 15 && ((raw >> 8) & 15) != 15 &&
           (op == 0 || d->rd != 15);
}

static void emit_mul(xlate *x, const arm_insn *d)
{
    emit *e = &x->e;
    uint32_t raw = d->raw;
    int op = (raw >> 21) & 7;
    ld_r(x, RAX, d->rm);
    b1(e, 0x0f);
    x_mem(e, 0xaf, RAX, OFF_R((raw >> 8) & 15)); /* imul eax, [Rs] */
    if (op == 1) {
        alu_m(e, X_ADD, RAX, OFF_R(d->rd));
    } else if (op == 3) {
        ld(e, RCX, OFF_R(d->rd));
        alu_rr(e, X_SUB, RCX, RAX);
        mov_rr(e, RAX, RCX);
    }
    st_r(x, RAX, d->rn);
    if (op != 3 && ((raw >> 20) & 1)) {
        st(e, RAX, OFF(nf));
        st(e, RAX, OFF(zf));
    }
}

/* The result and every flag word equal what alu_op() stores. */
static void emit_dp(xlate *x, const arm_insn *d)
{
    emit *e = &x->e;
    uint32_t raw = d->raw;
    int op = (raw >> 21) & 15, s = (raw >> 20) & 1;
    int imm = (raw >> 25) & 1;
    int logical = op <= 1 || op == 8 || op == 9 || op >= 12;
    int type = (raw >> 5) & 3, amt = (raw >> 7) & 31;
    /* ecx = shifter operand; edx = its carry (logical with S) */
    int carry_known = 0;
    if (imm) {
        mov_ri(e, RCX, d->imm);
    } else if (raw & 0x10) {
        emit_shift_reg(x, type, d->rm, (raw >> 8) & 15);
    } else {
        ld_r(x, RCX, d->rm);
        if (amt) {
            static const int n[4] = { 4, 5, 7, 1 };
            shift_ri(e, n[type], RCX, amt);
            if (s && logical) {
                setcc(e, CC_C, RDX);
                carry_known = 1;
            }
        }
    }
    if (op != 13 && op != 15)
        ld_r(x, RAX, d->rn);
    switch (op) {
    case 0: case 8: alu_rr(e, X_AND, RAX, RCX); break;
    case 1: case 9: alu_rr(e, X_XOR, RAX, RCX); break;
    case 12: alu_rr(e, X_OR, RAX, RCX); break;
    case 13: mov_rr(e, RAX, RCX); break;
    case 14: not_r(e, RCX); alu_rr(e, X_AND, RAX, RCX); break;
    case 15: not_r(e, RCX); mov_rr(e, RAX, RCX); break;
    case 2: case 10: case 3: case 4: case 11:
        if (s) {
            /* vf as alu_op computes it: r8 = a, r9 = b (after RSB's swap) */
            if (op == 3) {
                b1(e, 0x41); b1(e, 0x89); b1(e, 0xc8);  /* mov r8d, ecx */
                b1(e, 0x41); b1(e, 0x89); b1(e, 0xc1);  /* mov r9d, eax */
            } else {
                b1(e, 0x41); b1(e, 0x89); b1(e, 0xc0);  /* mov r8d, eax */
                b1(e, 0x41); b1(e, 0x89); b1(e, 0xc9);  /* mov r9d, ecx */
            }
        }
        if (op == 3) {
            alu_rr(e, X_SUB, RCX, RAX);
            mov_rr(e, RAX, RCX);
        } else {
            alu_rr(e, op == 4 || op == 11 ? X_ADD : X_SUB, RAX, RCX);
        }
        if (s) {
            int add = op == 4 || op == 11;
            setcc(e, add ? CC_C : CC_NC, RDX);
            st(e, RDX, OFF(cf));
            /* add: (a ^ r) & ~(a ^ b); sub: (a ^ b) & (a ^ r) */
            b1(e, 0x45); b1(e, 0x31); b1(e, 0xc1);      /* xor r9d, r8d */
            b1(e, 0x41); b1(e, 0x31); b1(e, 0xc0);      /* xor r8d, eax */
            if (add) {
                b1(e, 0x41); b1(e, 0xf7); b1(e, 0xd1);  /* not r9d */
            }
            b1(e, 0x45); b1(e, 0x21); b1(e, 0xc8);      /* and r8d, r9d */
            st(e, R8, OFF(vf));
        }
        break;
    case 5: case 6: case 7: {
        /* x86 CF = ARM C for ADC, = !C for SBC/RSC (a borrow) */
        ld(e, RDX, OFF(cf));
        if (op == 5) {
            b1(e, 0xf7); b1(e, 0xda);                    /* neg edx */
            alu_rr(e, X_ADC, RAX, RCX);
        } else {
            alu_ri(e, X_CMP, RDX, 1);
            if (op == 6) {
                alu_rr(e, X_SBB, RAX, RCX);
            } else {
                alu_rr(e, X_SBB, RCX, RAX);
                mov_rr(e, RAX, RCX);
            }
        }
        break;
    }
    }
    if (s) {
        st(e, RAX, OFF(nf));
        st(e, RAX, OFF(zf));
        if (logical) {
            if (carry_known)
                st(e, RDX, OFF(cf));
            else if (imm && d->aux != 2)
                st_imm(e, OFF(cf), d->aux);
        }
    }
    if (op < 8 || op > 11)
        st_r(x, RAX, d->rd);
}

/* The offset in arm_cpu of the block's privilege half of soft TLB `tlb`. */
static int32_t tlb_half(const xlate *x, int32_t tlb)
{
    _Static_assert(sizeof(tlb_entry) == 24, "the lookups scale by 3 * 8");
    return tlb + x->priv * TLB_SIZE * (int32_t)sizeof(tlb_entry);
}

/* The soft-TLB hit for an access of `bytes` at the va in eax, `span` more
 * bytes after it on the same page (a block transfer), aligned to `align`:
 * on a hit rax becomes the host address (rcx and rdx are clobbered); the
 * jumps stored in slow[] (returned count) go where it misses. */
static int emit_tlb_hit(xlate *x, int32_t tlb, int align, uint32_t span,
                        uint8_t **slow)
{
    emit *e = &x->e;
    int n = 0;
    mov_rr(e, RCX, RAX);
    shift_ri(e, 5, RCX, 12);
    alu_ri(e, X_AND, RCX, TLB_SIZE - 1);
    bn(e, 4, 0x48, 0x8d, 0x0c, 0x49);           /* lea rcx, [rcx + rcx*2] */
    bn(e, 4, 0x48, 0x8d, 0x8c, 0xcb);           /* lea rcx, [rbx + rcx*8 + */
    b4(e, (uint32_t)tlb_half(x, tlb));          /*   this half of the tlb] */
    if (align > 1) {
        bn(e, 2, 0xa8, (uint8_t)(align - 1)); /* test al, align-1 */
        slow[n++] = jcc(e, CC_NE);
    }
    if (span) { /* the last byte on the same page */
        /* lea edx, [rax + span]; xor edx, eax; test edx, ~0xfff */
        b1(e, 0x8d);
        b1(e, 0x90);
        b4(e, span);
        alu_rr(e, X_XOR, RDX, RAX);
        b1(e, 0xf7);
        b1(e, 0xc2);
        b4(e, ~0xfffu);
        slow[n++] = jcc(e, CC_NE);
    }
    mov_rr(e, RDX, RAX);
    alu_ri(e, X_AND, RDX, ~0xfffu);
    /* cmp edx, [rcx + tag] */
    b1(e, 0x3b);
    b1(e, 0x91);
    b4(e, offsetof(tlb_entry, tag));
    slow[n++] = jcc(e, CC_NE);
    /* add rax, [rcx + addend] (rax holds the zero-extended va) */
    b1(e, 0x48);
    b1(e, 0x03);
    b1(e, 0x81);
    b4(e, offsetof(tlb_entry, addend));
    return n;
}

/* LDM/STM without the S bit or (with write-back) the base in the list,
 * base not PC, PC only in an LDM's list (ARM ARM A8.8.58-A8.8.61,
 * A8.8.199-A8.8.202): when the whole transfer is aligned and on one RAM
 * page that hits the soft TLB, the registers move inline and nothing can
 * fault; anything else, and a loaded PC that would switch to Thumb, goes
 * to the handler before any register or memory is written, so it does
 * the whole instruction. A loaded PC then leaves as BX does (EX_JUMP). */
static int is_ldm_stm_inline(const arm_insn *d)
{
    uint32_t raw = d->raw, list = raw & 0xffff;
    int rn = (raw >> 16) & 15;
    if (d->fn != exec_ldm && d->fn != exec_stm)
        return 0;
    if (((raw >> 22) & 1) || rn == 15 || ((list & 0x8000) && d->fn == exec_stm))
        return 0;
    return !(((raw >> 21) & 1) && (list & (1u << rn)));
}

static void emit_ldm_stm(xlate *x, int k, const arm_insn *d)
{
    emit *e = &x->e;
    uint32_t raw = d->raw, list = raw & 0xffff;
    int rn = (raw >> 16) & 15, load = (raw >> 20) & 1;
    int32_t n = 4 * __builtin_popcount(list);
    int p = (raw >> 24) & 1, u = (raw >> 23) & 1;
    int32_t start = u ? (p ? 4 : 0) : (p ? -n : 4 - n);
    ld_r(x, RAX, rn);
    if (start)
        alu_ri(e, X_ADD, RAX, (uint32_t)start);
    uint8_t *slow[4];
    int ns = emit_tlb_hit(x, load ? OFF(tlb_r) : OFF(tlb_w), 4, (uint32_t)n - 1,
                          slow);
    if (list & 0x8000) { /* BXWritePC (A2.3.1) staying in ARM state */
        bn(e, 3, 0x8b, 0x50, (uint8_t)(n - 4)); /* mov edx, [rax+n-4] */
        bn(e, 3, 0xf6, 0xc2, 1);                /* test dl, 1 */
        slow[ns++] = jcc(e, CC_NE);
        alu_ri(e, X_AND, RDX, ~3u);
        st(e, RDX, OFF(pc));
    }
    int32_t at = 0;
    for (uint32_t l = list & 0x7fff; l; l &= l - 1, at += 4) {
        int i = __builtin_ctz(l);
        if (load) {
            bn(e, 3, 0x8b, 0x48, (uint8_t)at); /* mov ecx, [rax+at] */
            st(e, RCX, OFF_R(i));
            cache_forget(x, i);
        } else {
            ld_r(x, RCX, i);
            bn(e, 3, 0x89, 0x48, (uint8_t)at); /* mov [rax+at], ecx */
        }
    }
    if ((raw >> 21) & 1) { /* rn is not in the list */
        ld_r(x, RAX, rn);
        alu_ri(e, X_ADD, RAX, u ? (uint32_t)n : (uint32_t)-n);
        st_r(x, RAX, rn);
    }
    count_event(x, load ? EV_LOAD : EV_STORE);
    if (list & 0x8000) {
        count_event(x, EV_PC);
        st_imm(e, OFF_R(15), pc_of(x, k) + 8);
        add_exit(x, jmp(e), EX_JUMP, k, NULL);
    }
    add_slow_exits(x, slow, ns, k);
}

/* LDR/STR/LDRB/STRB with an immediate or LSL-register offset, and
 * LDRH/STRH/LDRSB/LDRSH/LDRD/STRD with an immediate or register offset; offset,
 * pre-indexed or post-indexed: the soft-TLB hit inline, anything else
 * (miss, MMIO, unaligned, fault) through the handler, which also does the
 * write-back then. */
static void emit_ldst(xlate *x, int k, const arm_insn *d)
{
    emit *e = &x->e;
    uint32_t raw = d->raw;
    int dual = d->fn == exec_ldrd_strd, op2 = (raw >> 5) & 3;
    int extra = d->fn == exec_ldst_extra || dual;
    int load = (raw >> 20) & 1, size = (raw >> 22) & 1 ? 1 : 4, sign = 0;
    int p = (raw >> 24) & 1, u = (raw >> 23) & 1, w = (raw >> 21) & 1;
    int wb = !p || w, reg_off = (raw >> 25) & 1, amt = (raw >> 7) & 31;
    uint32_t imm_off = raw & 0xfff;
    if (extra) { /* A5.2.8: op2 1 H, 2 SB, 3 SH */
        size = op2 == 2 ? 1 : 2;
        sign = op2 >= 2;
        reg_off = !((raw >> 22) & 1);
        amt = 0;
        imm_off = d->imm;
    }
    if (dual) { /* A8.8.72, A8.8.210: op2 2 LDRD, 3 STRD */
        size = 4;
        sign = 0;
        load = op2 == 2;
    }
    int32_t tlb = load ? OFF(tlb_r) : OFF(tlb_w);
    ld_r(x, RAX, d->rn);
    if (d->fn != exec_ldst && !extra) { /* offset form, signed d->imm */
        if (d->imm)
            alu_ri(e, X_ADD, RAX, d->imm);
    } else {
        /* r9d = base +/- offset; eax = the address */
        b1(e, 0x41); b1(e, 0x89); b1(e, 0xc1);          /* mov r9d, eax */
        if (reg_off) {
            ld_r(x, RCX, d->rm);
            if (amt)
                shift_ri(e, 4, RCX, amt);
            b1(e, 0x41); b1(e, u ? 0x01 : 0x29); b1(e, 0xc9); /* add/sub r9d, ecx */
        } else if (imm_off) {
            b1(e, 0x41);
            b1(e, 0x81);
            b1(e, u ? 0xc1 : 0xe9);
            b4(e, imm_off);
        }
        if (p) {
            b1(e, 0x44); b1(e, 0x89); b1(e, 0xc8);      /* mov eax, r9d */
        }
    }
    uint8_t *slow[3];
    int n = emit_tlb_hit(x, tlb, size, dual ? 7 : 0, slow);
    if (dual) { /* both words on one page: nothing can fault */
        for (int i = 0; i < 2; i++) {
            if (load) {
                bn(e, 3, 0x8b, 0x48, 4 * i); /* mov ecx, [rax+4i] */
                st_r(x, RCX, d->rd + i);
            } else {
                ld_r(x, RCX, d->rd + i);
                bn(e, 3, 0x89, 0x48, 4 * i); /* mov [rax+4i], ecx */
            }
        }
    } else if (load) {
        if (size == 4) {
            b1(e, 0x8b); b1(e, 0x00);                   /* mov eax, [rax] */
        } else { /* movzx/movsx eax, byte/word [rax] */
            b1(e, 0x0f);
            b1(e, (uint8_t)((sign ? 0xbe : 0xb6) + (size == 2)));
            b1(e, 0x00);
        }
        st_r(x, RAX, d->rd);
    } else {
        ld_r(x, RDX, d->rd);
        if (size == 2)
            b1(e, 0x66);                         /* operand size */
        bn(e, 2, size == 1 ? 0x88 : 0x89, 0x10); /* mov [rax], dl/dx/edx */
    }
    if ((d->fn == exec_ldst || extra) && wb)
        st_r(x, R9, d->rn);
    count_event(x, load ? EV_LOAD : EV_STORE);
    add_slow_exits(x, slow, n, k);
}

static int is_ldst_imm(const arm_insn *d)
{
    uint32_t raw = d->raw;
    int p = (raw >> 24) & 1, w = (raw >> 21) & 1;
    if (d->fn == exec_ldr_imm || d->fn == exec_str_imm ||
        d->fn == exec_ldrb_imm || d->fn == exec_strb_imm)
        return d->rn != 15;
    if ((d->fn != exec_ldst && d->fn != exec_ldst_extra &&
         d->fn != exec_ldrd_strd) ||
        d->rd == 15 || d->rn == 15)
        return 0;
    if (d->fn == exec_ldrd_strd &&
        ((d->rd & 1) || d->rd == 14 || ((!p || w) && d->rn == d->rd + 1)))
        return 0; /* UNPREDICTABLE register choices: the handler */
    if (!p && w)
        return 0; /* LDRT/STRT, LDRHT ... */
    if ((!p || w) && d->rd == d->rn)
        return 0;
    if (d->fn != exec_ldst)
        return ((raw >> 22) & 1) || d->rm != 15;
    return !((raw >> 25) & 1) || (d->rm != 15 && !((raw >> 5) & 3));
}

/* Instructions that always leave straight-line code. */
static int ends_block(const arm_insn *d)
{
    uint32_t raw = d->raw;
    if (raw >> 28 != 14)
        return d->fn == exec_undef || d->fn == exec_blx_imm;
    return d->fn == exec_b || d->fn == exec_bx || d->fn == exec_blx_reg ||
           d->fn == exec_svc || d->fn == exec_undef || d->fn == exec_bkpt ||
           d->fn == exec_hvc || d->fn == exec_smc || d->fn == exec_rfe ||
           d->rd == 15 || ((raw >> 25) == 0x74 && (raw & 0x8000));
}

/* Jumps to the block's one copy of emit_chain_dyn(), emitted last. */
static void to_chain_dyn(xlate *x)
{
    x->dyn[x->ndyn++] = jmp(&x->e);
}

/* Continues at the virtual address in edx (c->pc holds it), computed at
 * run time: on this page, or on another whose fetch translation is in the
 * soft TLB. Crossing a page is where the reference loop returns to
 * arm_run(), which takes a pending interrupt; one that is pending and
 * unmasked here leaves the block so that arm_run() takes it. */
static void emit_chain_dyn(xlate *x)
{
    emit *e = &x->e;
    uint8_t *out[9], *lookup;
    int n = 0;
    uint32_t vpage = x->va & ~0xfffu;
    mov_rr(e, RCX, RDX);
    alu_ri(e, X_AND, RCX, ~0xfffu);
    alu_ri(e, X_CMP, RCX, vpage);
    uint8_t *cross = jcc(e, CC_NE);
    mov_rr(e, RAX, RDX);                                /* same page */
    alu_ri(e, X_AND, RAX, 0xfff);
    alu_ri(e, X_OR, RAX, x->pa & ~0xfffu);
    lookup = jmp(e);
    patch(cross, e->p);
    static const uint32_t line[2] = { OFF(irq_line), OFF(fiq_line) };
    static const uint32_t mask[2] = { CPSR_I, CPSR_F };
    for (int i = 0; i < 2; i++) {
        cmp0(e, (int32_t)line[i]);
        uint8_t *quiet = jcc(e, CC_E);
        b1(e, 0xf7); b1(e, 0x83); b4(e, (uint32_t)OFF(cpsr)); b4(e, mask[i]);
        out[n++] = jcc(e, CC_E);                        /* unmasked */
        patch(quiet, e->p);
    }
    mov_rr(e, RAX, RDX);                                /* tlb_x[priv][page] */
    shift_ri(e, 5, RAX, 12);
    alu_ri(e, X_AND, RAX, TLB_SIZE - 1);
    bn(e, 4, 0x48, 0x8d, 0x04, 0x40);               /* lea rax, [rax + rax*2] */
    bn(e, 4, 0x48, 0x8d, 0xb4, 0xc3);               /* lea rsi, [rbx + rax*8 + */
    b4(e, (uint32_t)tlb_half(x, OFF(tlb_x)));       /*   tlb_x's half] */
    /* cmp ecx, [rsi + tag]: a RAM hit (not MMIO, not invalid) */
    b1(e, 0x3b); b1(e, 0x8e); b4(e, offsetof(tlb_entry, tag));
    out[n++] = jcc(e, CC_NE);
    st(e, RCX, OFF(jit_page));
    /* r14 = page + addend: the new host page */
    b1(e, 0x49); b1(e, 0x89); b1(e, 0xce);              /* mov r14, rcx */
    b1(e, 0x4c); b1(e, 0x03); b1(e, 0xb6); b4(e, offsetof(tlb_entry, addend));
    mov_rr(e, RAX, RDX);
    alu_ri(e, X_AND, RAX, 0xfff);
    /* or eax, [rsi + pa_page] */
    b1(e, 0x0b); b1(e, 0x86); b4(e, offsetof(tlb_entry, pa_page));
    patch(lookup, e->p);
    /* eax = pa, edx = va: rsi = map[(pa >> 2) & mask] */
    mov_rr(e, RCX, RAX);
    shift_ri(e, 5, RCX, 2);
    alu_ri(e, X_AND, RCX, (1u << JIT_MAP_BITS) - 1);
    b1(e, 0x48); b1(e, 0xbe); b8(e, (uintptr_t)x->map);
    b1(e, 0x48); b1(e, 0x8b); b1(e, 0x34); b1(e, 0xce);  /* mov rsi, [rsi+rcx*8] */
    b1(e, 0x48); b1(e, 0x85); b1(e, 0xf6);              /* test rsi, rsi */
    out[n++] = jcc(e, CC_E);
    b1(e, 0x39); b1(e, 0x86); b4(e, offsetof(jit_block, pa)); /* cmp [rsi+pa], eax */
    out[n++] = jcc(e, CC_NE);
    if (x->priv) {
        bn(e, 3, 0x8d, 0x4a, 1);                        /* lea ecx, [rdx + 1] */
        b1(e, 0x39); b1(e, 0x8e); b4(e, offsetof(jit_block, va)); /* cmp [rsi+va], ecx */
    } else {
        b1(e, 0x39); b1(e, 0x96); b4(e, offsetof(jit_block, va)); /* cmp [rsi+va], edx */
    }
    out[n++] = jcc(e, CC_NE);
    /* mov ecx, [rsi + len]; add rcx, r12; cmp rcx, [rbx + jit_end] */
    b1(e, 0x8b); b1(e, 0x8e); b4(e, offsetof(jit_block, len));
    b1(e, 0x4c); b1(e, 0x01); b1(e, 0xe1);
    b1(e, 0x48); b1(e, 0x3b); b1(e, 0x8b); b4(e, (uint32_t)OFF(jit_end));
    out[n++] = jcc(e, 7);                               /* ja */
    st_imm(e, OFF(flow), 0);
    b1(e, 0xff); b1(e, 0xa6); b4(e, offsetof(jit_block, body)); /* jmp [rsi+body] */
    for (int i = 0; i < n; i++)
        patch(out[i], e->p);
    patch(jmp(e), x->epilogue);
}

/* Into a block translated for the same page, privilege and counting mode
 * (its code stays until the caches are dropped, and checks its own words),
 * when its `len` instructions fit in the budget; else back to the loop. */
static void emit_direct(xlate *x, uint32_t len, uint8_t *body)
{
    emit *e = &x->e;
    /* lea rcx, [r12 + len]; cmp rcx, [rbx + jit_end]; ja out; jmp body */
    b1(e, 0x49); b1(e, 0x8d); b1(e, 0x8c); b1(e, 0x24); b4(e, len);
    uint8_t *len_site = e->p - 4;
    b1(e, 0x48); b1(e, 0x3b); b1(e, 0x8b); b4(e, (uint32_t)OFF(jit_end));
    uint8_t *over = jcc(e, 7);
    patch(jmp(e), body);
    patch(over, e->p);
    patch(jmp(e), x->epilogue);
    if (body == x->body) /* this block: its length is known at its end */
        x->len_sites[x->nlen_sites++] = len_site;
}

/* Continues at va (on this block's page; c->pc holds it): straight into
 * its block when that is translated and fits in the budget, as the page
 * loop in jit_run_arm_page() would; else back to that loop. A block
 * already in the map when this one is translated (a loop, code run
 * before) is jumped to directly; any other is looked up when the jump is
 * taken. */
static void emit_chain(xlate *x, uint32_t va)
{
    emit *e = &x->e;
    uint32_t pa = (x->pa & ~0xfffu) | (va & 0xfff);
    if ((va ^ x->va) & ~0xfffu) {
        mov_ri(e, RDX, va);
        to_chain_dyn(x);
        return;
    }
    if (va == x->va) {      /* a loop over this block */
        emit_direct(x, 0, x->body);
        return;
    }
    const jit_block *t = x->map[(pa >> 2) & ((1u << JIT_MAP_BITS) - 1)];
    if (t && t->pa == pa && t->va == (va | (uint32_t)x->priv)) {
        emit_direct(x, t->len, t->body);
        return;
    }
    uint8_t *out[4];
    b1(e, 0x48); b1(e, 0xb8);                           /* mov rax, slot */
    b8(e, (uintptr_t)&x->map[(pa >> 2) & ((1u << JIT_MAP_BITS) - 1)]);
    b1(e, 0x48); b1(e, 0x8b); b1(e, 0x00);              /* mov rax, [rax] */
    b1(e, 0x48); b1(e, 0x85); b1(e, 0xc0);              /* test rax, rax */
    out[0] = jcc(e, CC_E);
    b1(e, 0x81); b1(e, 0xb8); b4(e, offsetof(jit_block, pa)); b4(e, pa);
    out[1] = jcc(e, CC_NE);
    b1(e, 0x81); b1(e, 0xb8); b4(e, offsetof(jit_block, va));
    b4(e, va | (uint32_t)x->priv);
    out[2] = jcc(e, CC_NE);
    /* mov edx, [rax + len]; add rdx, r12; cmp rdx, [rbx + jit_end] */
    b1(e, 0x8b); b1(e, 0x90); b4(e, offsetof(jit_block, len));
    b1(e, 0x4c); b1(e, 0x01); b1(e, 0xe2);
    b1(e, 0x48); b1(e, 0x3b); b1(e, 0x93); b4(e, (uint32_t)OFF(jit_end));
    out[3] = jcc(e, 7);                                 /* ja */
    b1(e, 0xff); b1(e, 0xa0); b4(e, offsetof(jit_block, body)); /* jmp [rax+body] */
    for (int i = 0; i < 4; i++)
        patch(out[i], e->p);
    patch(jmp(e), x->epilogue);
}

static void emit_exits(xlate *x)
{
    emit *e = &x->e;
    for (int i = 0; i < x->nexits; i++) {
        exit_ref *r = &x->exits[i];
        patch(r->rel, e->p);
        for (int m = 0; m < r->nmore; m++)
            patch(r->more[m], e->p);
        add_r12(e, r->pend, 0);
        switch (r->kind) {
        case EX_SMC:    /* r15 of the last instruction run, as the loop */
            if (r->k > 0)
                st_imm(e, OFF_R(15), pc_of(x, r->k - 1) + 8);
            st_imm(e, OFF(pc), pc_of(x, r->k));
            /* drop this block from the map unless another took its slot
             * (a direct jump can reach a block evicted from it):
             * mov rax, slot; mov rcx, b; cmp [rax], rcx; jne; mov [rax], 0 */
            b1(e, 0x48); b1(e, 0xb8);
            b8(e, (uintptr_t)&x->map[(x->pa >> 2) & ((1u << JIT_MAP_BITS) - 1)]);
            b1(e, 0x48); b1(e, 0xb9); b8(e, (uintptr_t)x->b);
            bn(e, 3, 0x48, 0x39, 0x08);
            patch(jcc(e, CC_NE), x->epilogue);
            b1(e, 0x48); b1(e, 0xc7); b1(e, 0x00); b4(e, 0);
            patch(jmp(e), x->epilogue);
            break;
        case EX_FLOW: {
            /* A jump alone (BX, LDM {pc}, ...) goes on at next_pc. */
            b1(e, 0x83); b1(e, 0xbb); b4(e, (uint32_t)OFF(flow)); b1(e, FLOW_JUMP);
            uint8_t *other = jcc(e, CC_NE);
            ld(e, RDX, OFF(next_pc));
            st(e, RDX, OFF(pc));
            to_chain_dyn(x);
            patch(other, e->p);
            st_imm(e, OFF(pc), pc_of(x, r->k) + 4);
            patch(jmp(e), x->epilogue);
            break;
        }
        case EX_JUMP: /* an inline LDM loaded the PC into c->pc */
            ld(e, RDX, OFF(pc));
            to_chain_dyn(x);
            break;
        case EX_PC:     /* B/BL taken: the target already in c->pc */
            emit_chain(x, r->target);
            break;
        case EX_SLOW:   /* r12 exact for the call, then as the main path */
            x->pend = 0;
            emit_call(x, r->k);
            cache_reload(x, r->cached);
            add_r12(e, r->pend, 1);
            patch(jmp(e), r->back);
            break;
        }
    }
}

static jit_block *translate(jit_cache *j, int count, int priv, uint32_t pa,
                            uint32_t va, const uint8_t *host)
{
    if (j->nblocks == JIT_MAX_BLOCKS ||
        j->ninsns + JIT_BLOCK_INSNS > JIT_MAX_INSNS ||
        j->code_used + JIT_BLOCK_INSNS * JIT_INSN_BYTES + JIT_BLOCK_BYTES >
            JIT_CODE_BYTES) {
        memset(j->map, 0, sizeof(j->map));
        j->nblocks = j->ninsns = 0;
        j->code_used = 0;
        j->flushes++;
    }
    xlate xs, *x = &xs;
    x->j = j;
    x->map = j->map[count];
    x->count = count;
    x->priv = priv;
    x->pa = pa;
    x->b = &j->blocks[j->nblocks++];
    x->insn = &j->insns[j->ninsns];
    x->va = va;
    x->nexits = 0;
    x->pend = 0;
    x->ndyn = 0;
    x->nlen_sites = 0;
    x->e.p = j->code + j->code_used;
    emit *e = &x->e;
    uint8_t *entry = e->p;
    /* push rbx, r12, r13, r14, r15; rbx = c, r14 = host page, r12 = insns */
    b1(e, 0x53); b1(e, 0x41); b1(e, 0x54); b1(e, 0x41); b1(e, 0x55);
    b1(e, 0x41); b1(e, 0x56); b1(e, 0x41); b1(e, 0x57);
    if (count) { /* push rbp; sub rsp, 8 (calls stay 16-aligned); rbp = 0 */
        b1(e, 0x55); bn(e, 4, 0x48, 0x83, 0xec, 8); bn(e, 2, 0x31, 0xed);
    }
    b1(e, 0x48); b1(e, 0x89); b1(e, 0xfb);              /* mov rbx, rdi */
    b1(e, 0x49); b1(e, 0x89); b1(e, 0xf6);              /* mov r14, rsi */
    b1(e, 0x4c); b1(e, 0x8b); b1(e, 0xa3); b4(e, (uint32_t)OFF(insns));
    uint8_t *to_body = jmp(e);
    /* epilogue: c->insns = r12 */
    x->epilogue = e->p;
    drain_events(x);
    if (count) { /* add rsp, 8; pop rbp */
        bn(e, 4, 0x48, 0x83, 0xc4, 8); b1(e, 0x5d);
    }
    sync_insns(e);
    b1(e, 0x41); b1(e, 0x5f); b1(e, 0x41); b1(e, 0x5e); b1(e, 0x41);
    b1(e, 0x5d); b1(e, 0x41); b1(e, 0x5c); b1(e, 0x5b); b1(e, 0xc3);
    patch(to_body, e->p);
    uint8_t *body = x->body = e->p;
    cache_drop(x);
    x->cache_clock = 0;

    uint32_t off = va & 0xfff;
    int k = 0;
    for (;;) {
        uint32_t raw;
        memcpy(&raw, host + off, 4);
        arm_insn *d = &x->insn[k];
        arm_decode(d, raw);
        /* cmp dword [r14 + off], raw; jne smc */
        b1(e, 0x41); b1(e, 0x81); b1(e, 0xbe); b4(e, off); b4(e, raw);
        add_exit(x, jcc(e, CC_NE), EX_SMC, k, NULL);
        x->pend++;
        int inl = d->fn == exec_b || is_ldst_imm(d) || dp_inline(d) ||
                  is_ldm_stm_inline(d) || is_mul_inline(d) ||
                  ((d->fn == exec_movw || d->fn == exec_movt) && d->rd != 15);
        if (!inl) {
            add_r12(e, x->pend, 0);
            x->pend = 0;
        }
        uint32_t cond = raw >> 28;
        uint8_t *skip[2];
        int nskip = emit_cond(x, cond, skip);
        int8_t before[CACHE_SLOTS];
        memcpy(before, x->cached, sizeof(before));
        if (d->fn == exec_b) {
            uint32_t target = pc_of(x, k) + 8 + d->imm;
            count_event(x, EV_PC);
            if ((raw >> 24) & 1)
                st_imm(e, OFF_R(14), pc_of(x, k) + 4);
            st_imm(e, OFF_R(15), pc_of(x, k) + 8);
            st_imm(e, OFF(pc), target);
            add_exit(x, jmp(e), EX_PC, k, NULL);
            x->exits[x->nexits - 1].target = target;
        } else if (is_ldst_imm(d)) {
            emit_ldst(x, k, d);
        } else if (is_ldm_stm_inline(d)) {
            emit_ldm_stm(x, k, d);
        } else if (is_mul_inline(d)) {
            emit_mul(x, d);
        } else if (d->fn == exec_movw && d->rd != 15) {
            st_imm(e, OFF_R(d->rd), d->imm);
            cache_forget(x, d->rd);
        } else if (d->fn == exec_movt && d->rd != 15) {
            b1(e, 0x66); b1(e, 0xc7); b1(e, 0x83);      /* mov word [rd + 2], imm */
            b4(e, (uint32_t)OFF_R(d->rd) + 2); b1(e, d->imm & 0xff); b1(e, d->imm >> 8);
            cache_forget(x, d->rd);
        } else if (inl) {
            emit_dp(x, d);
        } else {
            emit_call(x, k);
            cache_drop(x);
        }
        /* Where a skipped instruction's path joins, a slot holds the same
         * register on both paths or nothing. */
        for (int i = 0; nskip && i < CACHE_SLOTS; i++)
            if (x->cached[i] != before[i])
                x->cached[i] = -1;
        for (int i = 0; i < nskip; i++)
            patch(skip[i], e->p);
        k++;
        off += 4;
        if (off == 0x1000 || k == JIT_BLOCK_INSNS || ends_block(d))
            break;
    }
    /* fell through: r15 as the loop leaves it, then the next pc */
    add_r12(e, x->pend, 0);
    x->pend = 0;
    st_imm(e, OFF_R(15), pc_of(x, k - 1) + 8);
    st_imm(e, OFF(pc), pc_of(x, k));
    emit_chain(x, pc_of(x, k));
    emit_exits(x);
    if (x->ndyn) {
        for (int i = 0; i < x->ndyn; i++)
            patch(x->dyn[i], e->p);
        emit_chain_dyn(x);
    }
    for (int i = 0; i < x->nlen_sites; i++)
        memcpy(x->len_sites[i], &k, 4);
    if (e->p > entry + JIT_BLOCK_INSNS * JIT_INSN_BYTES + JIT_BLOCK_BYTES) {
        fprintf(stderr, "jit: a block overran its code budget\n");
        abort();
    }
    j->code_used += (size_t)(e->p - entry);
    j->code_used = (j->code_used + 15) & ~(size_t)15;
    j->ninsns += (uint32_t)k;
    jit_block *b = x->b;
    b->pa = pa;
    b->va = va | (uint32_t)priv;
    b->len = (uint32_t)k;
    b->code = (jit_code *)(void *)entry;
    b->body = body;
    return b;
}

static jit_cache *jit_new(void)
{
    jit_cache *j = pl_xcalloc(1, sizeof(*j));
    j->code = mmap(NULL, JIT_CODE_BYTES, PROT_READ | PROT_WRITE | PROT_EXEC,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (j->code == MAP_FAILED)
        pl_out_of_memory(1, JIT_CODE_BYTES);
    j->blocks = pl_xcalloc(JIT_MAX_BLOCKS, sizeof(jit_block));
    j->insns = pl_xcalloc(JIT_MAX_INSNS, sizeof(arm_insn));
    return j;
}

void jit_free(jit_cache *j)
{
    if (!j)
        return;
    munmap(j->code, JIT_CODE_BYTES);
    free(j->blocks);
    free(j->insns);
    free(j);
}

int jit_available(void)
{
    return 1;
}

/* The fast engine's version of run_arm_page (exec.c): the same exits, the
 * same counts. */
uint64_t jit_run_arm_page(arm_cpu *c, uint64_t budget)
{
    uint32_t pc = c->pc, ppage;
    uint8_t *host = enter_code_page(c, &ppage);
    if (!host)
        return 1;
    if (!c->jit)
        c->jit = jit_new();
    jit_cache *j = c->jit;
    uint32_t vpage = pc & ~0xfffu;
    if (c->pmu.per_insn && budget > EV_MAX)
        budget = EV_MAX; /* rbp's fields cannot overflow */
    uint64_t start = c->insns, end = start + budget;
    c->jit_end = end;
    c->jit_page = vpage;
    c->flow = 0;
    for (;;) {
        uint32_t pa = ppage | (pc & 0xfff);
        /* per_insn changes only with a FLOW_BREAK, which ends this loop */
        int count = (int)c->pmu.per_insn;
        jit_block **slot =
            &j->map[count][(pa >> 2) & ((1u << JIT_MAP_BITS) - 1)];
        jit_block *b = *slot;
        if (!b || b->pa != pa || b->va != (pc | c->priv))
            b = *slot = translate(j, count, (int)c->priv, pa, pc, host);
        if (c->insns + b->len > end) {
            c->pc = pc;
            run_arm_page(c, end - c->insns);
            return c->insns - start;
        }
        b->code(c, host);
        pc = c->pc;
        if (__builtin_expect(c->flow != 0, 0)) {
            if (c->flow & FLOW_JUMP)
                pc = c->next_pc;
            if (c->flow & FLOW_BREAK)
                break;
            c->flow = 0;
        }
        /* Blocks may have chained onto another page: go on here only if
         * the last one ran on this page and pc is on it too. */
        if (c->insns == end || (pc & ~0xfffu) != vpage || c->jit_page != vpage)
            break;
    }
    c->pc = pc;
    return c->insns - start;
}

#else

int jit_available(void)
{
    return 0;
}

void jit_free(jit_cache *j)
{
    (void)j;
}

uint64_t jit_run_arm_page(arm_cpu *c, uint64_t budget)
{
    return run_arm_page(c, budget);
}

#endif
