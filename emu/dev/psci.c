/* PSCI firmware; function IDs and return codes from ARM DEN 0022D §5. */
#include <stdio.h>
#include <stdlib.h>
#include "psci.h"
#include "panlab/error.h"

enum {
    PSCI_VERSION = 0x84000000u, CPU_OFF = 0x84000002u, CPU_ON = 0x84000003u,
    AFFINITY_INFO = 0x84000004u, MIGRATE_INFO_TYPE = 0x84000006u,
    SYSTEM_OFF = 0x84000008u, SYSTEM_RESET = 0x84000009u,
    PSCI_FEATURES = 0x8400000au,
    SMCCC_VERSION = 0x80000000u,
};
/* SMCCC 1.1 (ARM DEN0028, §7.2): Linux then makes SMCCC 1.1 calls through
 * PSCI's conduit, as the SCMI SMC transport does. */
#define SMCCC_1_1 0x10001
enum {
    SUCCESS = 0, NOT_SUPPORTED = -1, INVALID_PARAMETERS = -2,
    ALREADY_ON = -4,
};
/* MIGRATE_INFO_TYPE: no Trusted OS, nothing to migrate (§5.9.2). */
#define TOS_NOT_PRESENT 2

struct psci {
    arm_sys *sys;
    psci_host host;
};

psci *psci_new(arm_sys *sys, psci_host host)
{
    psci *p = pl_xcalloc(1, sizeof(*p));
    p->sys = sys;
    p->host = host;
    return p;
}

void psci_free(psci *p)
{
    free(p);
}

/* MPIDR affinity level 0 is the core index (emu/cpu's MPIDR). */
static arm_cpu *target(psci *p, uint32_t mpidr)
{
    if (mpidr & 0xffffff00u || (int)mpidr >= arm_sys_ncores(p->sys))
        return NULL;
    return arm_sys_cpu(p->sys, (int)mpidr);
}

static int32_t cpu_on(psci *p, uint32_t mpidr, uint32_t entry, uint32_t ctx)
{
    arm_cpu *c = target(p, mpidr);
    if (!c)
        return INVALID_PARAMETERS;
    if (arm_is_powered(c))
        return ALREADY_ON;
    /* The core enters the kernel as from reset: SVC, MMU and caches off,
     * interrupts masked, r0 = context_id (§6.4.3). */
    arm_reset(c, 0);
    arm_set_pc(c, entry & ~1u);
    arm_set_reg(c, 0, ctx);
    arm_set_powered(c, 1);
    if (p->host.cpu_started)
        p->host.cpu_started(p->host.opaque, arm_cpu_index(c));
    return SUCCESS;
}

static int supported(uint32_t fn)
{
    switch (fn) {
    case PSCI_VERSION: case CPU_OFF: case CPU_ON: case AFFINITY_INFO:
    case MIGRATE_INFO_TYPE: case SYSTEM_OFF: case SYSTEM_RESET:
    case PSCI_FEATURES: case SMCCC_VERSION:
        return 1;
    default:
        return 0;
    }
}

int psci_call(psci *p, arm_cpu *cpu)
{
    uint32_t fn = arm_get_reg(cpu, 0);
    uint32_t a1 = arm_get_reg(cpu, 1), a2 = arm_get_reg(cpu, 2),
             a3 = arm_get_reg(cpu, 3);
    int32_t ret;
    switch (fn) {
    case PSCI_VERSION:
        ret = 0x00010000;       /* 1.0 */
        break;
    case SMCCC_VERSION:
        ret = SMCCC_1_1;
        break;
    case PSCI_FEATURES:
        ret = supported(a1) ? SUCCESS : NOT_SUPPORTED;
        break;
    case CPU_ON:
        ret = cpu_on(p, a1, a2, a3);
        break;
    case CPU_OFF:
        arm_set_powered(cpu, 0);
        ret = SUCCESS;          /* never seen: the core is off */
        break;
    case AFFINITY_INFO: {
        arm_cpu *c = a2 == 0 ? target(p, a1) : NULL;
        ret = !c ? INVALID_PARAMETERS : arm_is_powered(c) ? 0 : 1;
        break;
    }
    case MIGRATE_INFO_TYPE:
        ret = TOS_NOT_PRESENT;
        break;
    case SYSTEM_OFF:
    case SYSTEM_RESET:
        if (p->host.system_event)
            p->host.system_event(p->host.opaque, fn == SYSTEM_RESET);
        ret = SUCCESS;
        break;
    default:
        ret = NOT_SUPPORTED;
        break;
    }
    arm_set_reg(cpu, 0, (uint32_t)ret);
    return 1;
}
