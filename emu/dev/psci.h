/* PSCI 1.0 firmware (ARM DEN 0022D) for the SMC/HVC hooks of emu/cpu:
 * VERSION, FEATURES, CPU_ON, CPU_OFF, AFFINITY_INFO, MIGRATE_INFO_TYPE,
 * SYSTEM_OFF and SYSTEM_RESET, 32-bit function IDs; and SMCCC_VERSION
 * (1.1), which PSCI_FEATURES reports.
 *
 * Ownership: psci_new() allocates, psci_free() frees; the cluster and the
 * host callbacks' opaque pointer must outlive it. */
#ifndef PANLAB_DEV_PSCI_H
#define PANLAB_DEV_PSCI_H

#include "../cpu/arm.h"

typedef struct psci_host {
    void *opaque;
    /* A core was powered on; it runs from the caller's current time. */
    void (*cpu_started)(void *opaque, int core);
    /* SYSTEM_OFF (reset = 0) or SYSTEM_RESET (reset = 1). */
    void (*system_event)(void *opaque, int reset);
} psci_host;

typedef struct psci psci;

psci *psci_new(arm_sys *sys, psci_host host);
void psci_free(psci *p);
/* Handles the call in r0..r3 of cpu and sets r0; unknown functions get
 * NOT_SUPPORTED, as SMCCC §5.2 asks of any firmware. Returns 1. */
int psci_call(psci *p, arm_cpu *cpu);

#endif
