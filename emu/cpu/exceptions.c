/* Modes, banked registers, CPSR/SPSR and exception entry and return.
 * ARM ARM B1.3 (modes and registers), B1.8 (exceptions). */
#include "arm_int.h"

int bank_of(uint32_t mode)
{
    switch (mode & 0x1f) {
    case MODE_FIQ: return BANK_FIQ;
    case MODE_IRQ: return BANK_IRQ;
    case MODE_SVC: return BANK_SVC;
    case MODE_ABT: return BANK_ABT;
    case MODE_UND: return BANK_UND;
    default: return BANK_USR;
    }
}

int mode_valid(uint32_t mode)
{
    switch (mode & 0x1f) {
    case MODE_USR: case MODE_FIQ: case MODE_IRQ: case MODE_SVC:
    case MODE_ABT: case MODE_UND: case MODE_SYS:
        return 1;
    default:
        return 0;
    }
}

uint32_t cpsr_read(const arm_cpu *c)
{
    return (c->nf & 0x80000000u) | (c->zf == 0) << 30 | c->cf << 29 |
           (c->vf >> 31) << 28 | c->cpsr;
}

static void switch_mode(arm_cpu *c, uint32_t old, uint32_t new)
{
    int ob = bank_of(old), nb = bank_of(new);
    if (ob == nb)
        return;
    c->bank_r13[ob] = c->r[13];
    c->bank_r14[ob] = c->r[14];
    c->r[13] = c->bank_r13[nb];
    c->r[14] = c->bank_r14[nb];
    if (ob == BANK_FIQ) {
        memcpy(c->fiq_r8, &c->r[8], sizeof(c->fiq_r8));
        memcpy(&c->r[8], c->usr_r8, sizeof(c->usr_r8));
    } else if (nb == BANK_FIQ) {
        memcpy(c->usr_r8, &c->r[8], sizeof(c->usr_r8));
        memcpy(&c->r[8], c->fiq_r8, sizeof(c->fiq_r8));
    }
}

void cpsr_write(arm_cpu *c, uint32_t val, uint32_t mask, int exc_return)
{
    if (!exc_return)
        mask &= ~(CPSR_T | CPSR_IT_MASK | CPSR_J);
    if ((mask & 0x1f) && !mode_valid(val))
        mask &= ~0x1fu;     /* UNPREDICTABLE; keep the mode like QEMU */
    if (mask & 0xf0000000u) {
        uint32_t f = (val & mask) | (cpsr_read(c) & ~mask);
        c->nf = f & 0x80000000u;
        c->zf = !(f & 0x40000000u);
        c->cf = (f >> 29) & 1;
        c->vf = (f << 3) & 0x80000000u;
    }
    mask &= 0x0fffffffu;
    uint32_t old = c->cpsr;
    c->cpsr = (old & ~mask) | (val & mask);
    if ((old ^ c->cpsr) & 0x1f) {
        switch_mode(c, old, c->cpsr);
        uint32_t was = c->priv;
        c->priv = (c->cpsr & 0x1f) != MODE_USR;
        /* Counters filtered by privilege start or stop here. */
        if (c->priv != was && (c->pmu.pmcr & 1) && c->pmu.cnten)
            pmu_sync(c);
    }
    if ((old ^ c->cpsr) & (0x1f | CPSR_I | CPSR_F | CPSR_A | CPSR_T))
        c->flow |= FLOW_BREAK;
}

uint32_t *spsr_ptr(arm_cpu *c)
{
    int b = bank_of(c->cpsr);
    return b == BANK_USR ? NULL : &c->bank_spsr[b];
}

/* r8-r14 of User mode seen from the current mode. */
static uint32_t *user_reg_slot(arm_cpu *c, int n)
{
    int b = bank_of(c->cpsr);
    if (n >= 13 && b != BANK_USR)
        return n == 13 ? &c->bank_r13[BANK_USR] : &c->bank_r14[BANK_USR];
    if (n >= 8 && n <= 12 && b == BANK_FIQ)
        return &c->usr_r8[n - 8];
    return &c->r[n];
}

uint32_t get_user_reg(arm_cpu *c, int n)
{
    return *user_reg_slot(c, n);
}

void set_user_reg(arm_cpu *c, int n, uint32_t v)
{
    *user_reg_slot(c, n) = v;
}

/* ARM ARM B1.8.3: vector offset, target mode and the return-address
 * offset for ARM and Thumb state. */
static const struct {
    uint8_t vec, mode, lr_arm, lr_thumb, mask_a, mask_f;
} exc_info[] = {
    [EXC_UND] = { 0x04, MODE_UND, 4, 2, 0, 0 },
    [EXC_SVC] = { 0x08, MODE_SVC, 4, 2, 0, 0 },
    [EXC_PABT] = { 0x0c, MODE_ABT, 4, 4, 1, 0 },
    [EXC_DABT] = { 0x10, MODE_ABT, 8, 8, 1, 0 },
    [EXC_IRQ] = { 0x18, MODE_IRQ, 4, 4, 1, 0 },
    [EXC_FIQ] = { 0x1c, MODE_FIQ, 4, 4, 1, 1 },
};

void take_exception(arm_cpu *c, int exc, uint32_t pc)
{
    /* Counted in the mode the exception is taken from. The instruction
     * that aborts or is UNDEFINED was charged but is not executed. */
    if (exc == EXC_UND || exc == EXC_PABT || exc == EXC_DABT)
        c->pmu.aborted++;
    pmu_event(c, &c->pmu.exc_taken);
    uint32_t old = cpsr_read(c);
    int thumb = (old & CPSR_T) != 0;
    uint32_t lr = pc + (thumb ? exc_info[exc].lr_thumb : exc_info[exc].lr_arm);
    uint32_t newc = (old & ~(0x1fu | CPSR_T | CPSR_IT_MASK | CPSR_J)) |
                    exc_info[exc].mode | CPSR_I;
    if (exc_info[exc].mask_a)
        newc |= CPSR_A;
    if (exc_info[exc].mask_f)
        newc |= CPSR_F;
    if (c->cp15.sctlr & SCTLR_TE)
        newc |= CPSR_T;
    cpsr_write(c, newc, 0xffffffffu, 1);
    c->bank_spsr[bank_of(newc)] = old;
    c->r[14] = lr;
    uint32_t base = (c->cp15.sctlr & SCTLR_V) ? 0xffff0000u : c->cp15.vbar;
    set_next_pc(c, base + exc_info[exc].vec);
    c->flow |= FLOW_BREAK;
    c->halted = 0;
}

void undefined(arm_cpu *c)
{
    uint32_t t = (c->cpsr & CPSR_T) ? 4 : 8;
    take_exception(c, EXC_UND, c->r[15] - t);
}

void exec_undef(arm_cpu *c, const arm_insn *d)
{
    (void)d;
    undefined(c);
}

void exception_return(arm_cpu *c, uint32_t pc)
{
    pmu_event(c, &c->pmu.exc_return);
    c->pmu.pc_writes += c->pmu.per_insn;
    uint32_t *sp = spsr_ptr(c);
    if (sp)
        cpsr_write(c, *sp, 0xffffffffu, 1);
    /* ARM ARM B1.9.10: the return address is aligned for the new state. */
    set_next_pc(c, pc & ((c->cpsr & CPSR_T) ? ~1u : ~3u));
    c->flow |= FLOW_BREAK;
}
