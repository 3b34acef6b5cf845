/* ARMv7-A processor model: the API a machine and a time engine use.
 *
 * A cluster (arm_sys) holds the cores, the physical memory map they share
 * and the one global exclusive monitor. The machine creates it with
 * arm_sys_new() and frees it with arm_sys_free(); the cores belong to the
 * cluster. The memory map and the hooks' opaque pointer stay owned by the
 * caller and must outlive the cluster.
 *
 * Units: time in the guest is counted in core cycles (uint64_t); the
 * generic-timer counter is in counter ticks, supplied by the time engine.
 * Nothing here reads host time, so runs are deterministic. */
#ifndef PANLAB_ARM_H
#define PANLAB_ARM_H

#include <stdint.h>
#include <stdio.h>
#include "../physmem.h"
#include "../snapio.h"
#include "panlab/error.h"

typedef struct arm_cpu arm_cpu;
typedef struct arm_sys arm_sys;

enum { ARM_TIMER_PHYS = 0, ARM_TIMER_VIRT = 1 };

/* Calls out of the CPU. Any hook may be NULL. */
typedef struct arm_hooks {
    void *opaque;
    /* SMC and HVC: return 1 if the firmware handled the call (for PSCI it
     * sets r0 with arm_set_reg), 0 to make the instruction UNDEFINED. */
    int (*smc)(void *opaque, arm_cpu *cpu);
    int (*hvc)(void *opaque, arm_cpu *cpu);
    /* The generic-timer count (CNTPCT), in ticks of CNTFRQ. */
    uint64_t (*counter)(void *opaque, arm_cpu *cpu);
    /* CNTx_CTL or CNTx_CVAL of timer `which` changed: reschedule. */
    void (*timer_changed)(void *opaque, arm_cpu *cpu, int which);
    /* SEV: the hook signals every core (arm_signal_event), each at the
     * time it chooses; without it they are signalled at once. */
    void (*send_event)(void *opaque, arm_cpu *cpu);
    /* The core is about to synchronise with the others: it ran an LDREX
     * (the STREX after it may take a lock or publish data) or a DMB/DSB
     * (the stores after it may release a lock, e.g. spin_unlock). Called
     * after the instruction and before the store it announces, so the time
     * engine may end the core's run here, with nothing published yet. */
    void (*sync_point)(void *opaque, arm_cpu *cpu);
    /* The core's PMU overflow interrupt request (nPMUIRQ) changed level:
     * some PMOVSR bit with its PMINTENSET bit is set (1) or none is (0). */
    void (*pmu_irq)(void *opaque, arm_cpu *cpu, int level);
} arm_hooks;

#define ARM_MAX_CORES 8

/* Returns NULL with err set when ncores is not 1..ARM_MAX_CORES. */
arm_sys *arm_sys_new(phys_map *map, int ncores, const arm_hooks *hooks,
                     struct pl_error *err);
void arm_sys_free(arm_sys *s);
arm_cpu *arm_sys_cpu(arm_sys *s, int index);

/* Execution engines for ARM code. FAST (the default on x86-64) translates
 * blocks to host code; REF is the plain interpreter it is checked against.
 * Both give the same instruction and cycle counts, interrupts at the same
 * instructions and the same state. arm_set_engine() may be called between
 * runs; it returns -1 if the engine is not built for this host.
 * arm_engine_parse() maps "fast"/"ref" to an engine, or -1. */
enum { ARM_ENGINE_REF = 0, ARM_ENGINE_FAST = 1 };
int arm_set_engine(arm_sys *s, int engine);
int arm_engine_parse(const char *name);
int arm_sys_ncores(const arm_sys *s);

/* Architectural reset: SVC mode, MMU off, pc = 0 (or 0xffff0000 with
 * hivecs). */
void arm_reset(arm_cpu *c, int hivecs);
/* Cycles charged per instruction (default 1). */
void arm_set_cpi(arm_cpu *c, uint32_t cycles_per_insn);
/* CNTFRQ reset value in Hz, as firmware would program it. */
void arm_set_cntfrq(arm_cpu *c, uint32_t hz);

/* Runs until max_cycles are used (rounded up to whole instructions), the
 * core halts (WFI/WFE) or arm_request_exit() is called. Returns the cycles
 * used; interrupts are sampled at entry and whenever the loop leaves a code
 * page or an instruction changes the mode, the masks or the TLB. */
uint64_t arm_run(arm_cpu *c, uint64_t max_cycles);
void arm_request_exit(arm_cpu *c);
int arm_is_halted(const arm_cpu *c);
/* Halted in WFE: the one halt an event (SEV) ends. */
int arm_in_wfe(const arm_cpu *c);
/* Power state for PSCI CPU_OFF/CPU_ON: an off core never runs. */
void arm_set_powered(arm_cpu *c, int on);
int arm_is_powered(const arm_cpu *c);

/* The event register (ARM ARM B1.8.13): wakes the core from WFE, or makes
 * its next WFE return at once. */
void arm_signal_event(arm_cpu *c);
/* Interrupt lines, level-sensitive. Raising one wakes a halted core. */
void arm_set_irq(arm_cpu *c, int level);
void arm_set_fiq(arm_cpu *c, int level);

/* Generic timer state for the engine: ISTATUS-style output level and the
 * compare value in counter ticks (UINT64_MAX if disabled or masked). */
int arm_timer_irq_level(arm_cpu *c, int which);
uint64_t arm_timer_deadline(const arm_cpu *c, int which);

/* Registers. r[15] reads as the address of the next instruction. */
typedef struct arm_regs {
    uint32_t r[16];
    uint32_t cpsr;
    uint32_t spsr;              /* of the current mode; 0 in usr/sys */
} arm_regs;
void arm_get_regs(const arm_cpu *c, arm_regs *out);
uint32_t arm_get_reg(const arm_cpu *c, int n);
void arm_set_reg(arm_cpu *c, int n, uint32_t val);
void arm_set_pc(arm_cpu *c, uint32_t pc);
/* Writes the whole CPSR, switching register banks as a mode change does. */
void arm_set_cpsr(arm_cpu *c, uint32_t cpsr);
/* Exact even when called from a hook in the middle of arm_run(). */
uint64_t arm_insn_count(const arm_cpu *c);
uint64_t arm_cycle_count(const arm_cpu *c);
/* Exception returns the core has executed (the PMU's EXC_RETURN event,
 * counted whether or not a counter counts it). */
uint64_t arm_exc_return_count(const arm_cpu *c);
/* PMU event counter i (0-5), or the cycle counter for i = 6, as
 * PMXEVCNTR or PMCCNTR would read it now. */
uint32_t arm_pmu_counter(arm_cpu *c, int i);
int arm_cpu_index(const arm_cpu *c);
void arm_dump(const arm_cpu *c, FILE *f);

/* Snapshots (../snapio.h), between runs only: every architectural register
 * of the core (all banks, CP15/CP14, timers, PMU), its instruction and
 * cycle counts and its exclusive-monitor reservation. Loading flushes the
 * soft TLBs; it returns 0, or -1 with the error recorded in r. */
void arm_save(const arm_cpu *c, snap_w *w);
int arm_load(arm_cpu *c, snap_r *r);
/* After RAM is loaded too: whether a powered core can resume where it was
 * saved (a known instruction set state, its code in RAM and, with the MMU
 * on, its translation tables and exception vectors in RAM). Returns 0, or -1 with the error recorded in
 * r at the offending field of the core's record, which began at
 * record_off in the file. The checksums cannot catch a snapshot that was
 * written wrong or crafted. */
int arm_check_resumable(arm_cpu *c, snap_r *r, uint64_t record_off);

#endif
