/* CUnit tests of the board's virtual-time engine: event order, parallel
 * cores, CPU frequency, idle skip, cross-core causality (SGIs and memory
 * hand-offs seen at the sender's time), PSCI hotplug, and the guest clock
 * read from a System.map. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <zlib.h>
#include <libfdt.h>
#include <CUnit/Basic.h>
#include "../machine.h"
#include "board_test.h"
#include "../ports.h"
#include "../cpu/arm_int.h"
#include "../loader.h"
#include "../fdtgen.h"
#include "../dev/gic.h"
#include "../dev/pl011.h"
#include "../dev/virtio.h"
#include "../dev/virtio_console.h"
#include "../dev/pl181.h"
#include "../dev/virtio_gpu.h"
#include "../dev/virtio_input.h"
#include "../host/guest_clock.h"
#include "../host/snapshot.h"
#include "../host/slirp_net.h"
#include "panlab/error.h"
#include "panlab/read_file.h"

/* ---- the virtual-time engine ---- */

static int fired[8], nfired;

static void record(void *opaque)
{
    fired[nfired++] = (int)(intptr_t)opaque;
}

static void test_event_order(void)
{
    vt_engine *t = vt_new(NULL, 1200000000, 62500000, 100000);
    vt_event e[4];
    nfired = 0;
    for (int i = 0; i < 4; i++)
        vt_event_init(&e[i], record, (void *)(intptr_t)i);
    vt_schedule(t, &e[0], 300);
    vt_schedule(t, &e[1], 100);
    vt_schedule(t, &e[2], 300); /* same time as e[0]: fires after it */
    vt_schedule(t, &e[3], 200);
    vt_schedule(t, &e[1], 400); /* moved */
    vt_cancel(t, &e[3]);
    CU_ASSERT_EQUAL(vt_run(t, 1000), 1000);
    CU_ASSERT_EQUAL(nfired, 3);
    CU_ASSERT_EQUAL(fired[0], 0);
    CU_ASSERT_EQUAL(fired[1], 2);
    CU_ASSERT_EQUAL(fired[2], 1);
    CU_ASSERT_FALSE(vt_event_pending(&e[3]));
    /* Counter: 62.5 MHz is 16 ns per tick. */
    CU_ASSERT_EQUAL(vt_counter(t), 1000 / 16);
    CU_ASSERT_EQUAL(vt_counter_to_ns(t, 63), 1008);
    vt_free(t);
}

static uint64_t loop_time(int ncores, uint64_t cpu_hz)
{
    machine *m = small_machine();
    vt_set_cpu_hz(machine_engine(m), cpu_hz);
    load_loop(m, 300000); /* 600k instructions: 0.5 ms */
    for (int i = 0; i < ncores; i++) {
        arm_cpu *c = arm_sys_cpu(machine_cpus(m), i);
        arm_set_pc(c, MACH_RAM + 0x1000);
        arm_set_powered(c, 1);
    }
    uint64_t t = run_until_halted(m);
    /* 600003 instructions of one cycle each. */
    uint64_t want = 600003 * VT_NS_PER_S / cpu_hz;
    for (int i = 0; i < ncores; i++)
        CU_ASSERT(vt_busy_ns(machine_engine(m), i) >= want &&
                  vt_busy_ns(machine_engine(m), i) <= want + 10);
    machine_free(m);
    return t;
}

/* Two busy cores finish two loops in the virtual time one core takes for
 * one: the cores advance in parallel. */
static void test_parallel_cores(void)
{
    uint64_t one = loop_time(1, 1200000000), two = loop_time(2, 1200000000);
    CU_ASSERT(one >= 500000 && one <= 510000);
    CU_ASSERT_EQUAL(one, two);
}

/* DVFS: at half the frequency the same work takes twice the time, and
 * the generic-timer counter does not care. */
static void test_cpu_frequency(void)
{
    uint64_t slow = loop_time(1, 600000000);
    CU_ASSERT(slow >= 1000000 && slow <= 1010000);
    vt_engine *t = vt_new(NULL, 1200000000, 62500000, 100000);
    vt_set_cpu_hz(t, 350000000);
    CU_ASSERT_EQUAL(vt_cpu_hz(t), 350000000);
    vt_run(t, 1600);
    CU_ASSERT_EQUAL(vt_counter(t), 100);
    vt_free(t);
}

/* PSCI through the CPU's HVC hook: core 0 powers core 1 on with a
 * context id, core 1 powers itself off. */
static void test_psci_hotplug(void)
{
    machine *m = small_machine();
    static const uint32_t boot[] = {
        0xe3000003, /* movw r0, #3 */
        0xe3480400, /* movt r0, #0x8400: CPU_ON */
        0xe3a01001, /* mov r1, #1: target MPIDR */
        0xe3022000, /* movw r2, #0x2000 */
        0xe3442000, /* movt r2, #0x4000: entry */
        0xe3a03055, /* mov r3, #0x55: context id */
        0xe1400070, /* hvc #0 */
        0xe1a04000, /* mov r4, r0 */
        0xe320f003, /* wfi */
        0xeafffffd, /* b wfi */
    };
    static const uint32_t second[] = {
        0xe1a05000, /* mov r5, r0 */
        0xe3000002, /* movw r0, #2 */
        0xe3480400, /* movt r0, #0x8400: CPU_OFF */
        0xe1400070, /* hvc #0 */
        0xeafffffe, /* b . */
    };
    phys_map *p = machine_phys(m);
    memcpy(phys_ram_ptr(p, MACH_RAM + 0x1000, sizeof(boot)), boot,
           sizeof(boot));
    memcpy(phys_ram_ptr(p, MACH_RAM + 0x2000, sizeof(second)), second,
           sizeof(second));
    arm_cpu *c0 = arm_sys_cpu(machine_cpus(m), 0),
            *c1 = arm_sys_cpu(machine_cpus(m), 1);
    arm_set_pc(c0, MACH_RAM + 0x1000);
    arm_set_powered(c0, 1);
    vt_run(machine_engine(m), 1000000);
    CU_ASSERT_EQUAL(arm_get_reg(c0, 4), 0);    /* PSCI SUCCESS */
    CU_ASSERT_EQUAL(arm_get_reg(c1, 5), 0x55); /* context id in r0 */
    CU_ASSERT_FALSE(arm_is_powered(c1));
    CU_ASSERT(arm_insn_count(c1) >= 4);
    machine_free(m);
}

/* Runs sender on core 0 and receiver on core 1 until both halt. Each reads
 * the counter (core 0 into r5, core 1 into r0) at the two ends of a
 * cross-core effect; returns core 1's count minus core 0's, in ticks, and
 * core 1's r3 and (cuts may be NULL) the windows ended early. */
static int64_t cross_core_lag(int policy, const uint32_t *sender,
                              size_t sender_bytes, const uint32_t *receiver,
                              size_t receiver_bytes, uint32_t *core1_r3,
                              uint64_t *cuts)
{
    machine_config cfg;
    machine_config_default(&cfg);
    cfg.ncores = 2;
    cfg.ram_bytes = 16u << 20;
    cfg.console = (byte_sink){ discard, NULL };
    cfg.quantum_policy = policy;
    machine *m = board_machine(&cfg);
    phys_map *p = machine_phys(m);
    memcpy(phys_ram_ptr(p, MACH_RAM + 0x1000, sender_bytes), sender,
           sender_bytes);
    memcpy(phys_ram_ptr(p, MACH_RAM + 0x2000, receiver_bytes), receiver,
           receiver_bytes);
    arm_cpu *c0 = arm_sys_cpu(machine_cpus(m), 0),
            *c1 = arm_sys_cpu(machine_cpus(m), 1);
    arm_set_pc(c0, MACH_RAM + 0x1000);
    arm_set_pc(c1, MACH_RAM + 0x2000);
    arm_set_powered(c0, 1);
    arm_set_powered(c1, 1);
    run_until_halted(m);
    *core1_r3 = arm_get_reg(c1, 3);
    if (cuts)
        *cuts = vt_cross_core_cuts(machine_engine(m));
    int64_t lag = (int64_t)arm_get_reg(c1, 0) - (int64_t)arm_get_reg(c0, 5);
    machine_free(m);
    return lag;
}

/* A sender's start: core 0 computes for 517 us, then reads the counter
 * into r5. */
#define BUSY_517US_WORDS 5
static const uint32_t busy_517us[BUSY_517US_WORDS] = {
    0xe30b0af0, /* movw r0, #0xbaf0 */
    0xe3400004, /* movt r0, #4: 310000 iterations */
    0xe2500001, /* 1: subs r0, r0, #1 */
    0x1afffffd, /* bne 1b */
    0xec565f0e, /* mrrc p15, 0, r5, r6, c14: CNTPCT */
};

/* Core 0 computes for 517 us, reads the counter into r5 and sends SGI 1 to
 * core 1, which enabled its GIC interface and waits in WFI (IRQs masked:
 * the pending interrupt only wakes it); woken, core 1 reads the counter into
 * r0 and acknowledges. Returns core 1's counter minus core 0's, in ticks. */
static int64_t sgi_wake_lag(int policy)
{
    uint32_t sender[] = {
        [BUSY_517US_WORDS] = 0xe3002000, /* movw r2, #0 */
        0xe3402800,                      /* movt r2, #0x800: GICD */
        0xe3003001,                      /* movw r3, #1: SGI 1 */
        0xe3403002,                      /* movt r3, #2: to cpu 1 */
        0xe5823f00,                      /* str r3, [r2, #0xf00]: GICD_SGIR */
        0xe320f003,                      /* 2: wfi */
        0xeafffffd,                      /* b 2b */
    };
    static const uint32_t receiver[] = {
        0xe3002000, /* movw r2, #0 */
        0xe3402800, /* movt r2, #0x800: GICD */
        0xe3a03001, /* mov r3, #1 */
        0xe5823000, /* str r3, [r2]: GICD_CTLR */
        0xe3e03000, /* mvn r3, #0 */
        0xe5823100, /* str r3, [r2, #0x100]: its SGIs and PPIs on */
        0xe3004000, /* movw r4, #0 */
        0xe3404801, /* movt r4, #0x801: GICC */
        0xe3a03001, /* mov r3, #1 */
        0xe5843000, /* str r3, [r4]: GICC_CTLR */
        0xe3a030f0, /* mov r3, #0xf0 */
        0xe5843004, /* str r3, [r4, #4]: GICC_PMR */
        0xe320f003, /* wfi */
        0xec510f0e, /* mrrc p15, 0, r0, r1, c14: CNTPCT */
        0xe594300c, /* ldr r3, [r4, #0xc]: GICC_IAR */
        0xe5843010, /* str r3, [r4, #0x10]: GICC_EOIR */
        0xe320f003, /* 3: wfi */
        0xeafffffd, /* b 3b */
    };
    uint32_t irq;
    memcpy(sender, busy_517us, sizeof(busy_517us));
    int64_t lag = cross_core_lag(policy, sender, sizeof(sender), receiver,
                                 sizeof(receiver), &irq, NULL);
    CU_ASSERT_EQUAL(irq, 1); /* it took SGI 1 */
    return lag;
}

/* Cross-core causality (time.h): the SGI sent at 517 us wakes core 1 at the
 * sender's time (within a tick: the receiver reads the counter two
 * instructions later), not at the start of the window core 0 sent it in, as
 * the fixed quantum does (6.7 us early here). */
static void test_sgi_at_sender_time(void)
{
    int64_t causal = sgi_wake_lag(VT_CAUSAL),
            fixed = sgi_wake_lag(VT_FIXED_QUANTUM);
    CU_ASSERT(causal >= 0 && causal <= 2);
    CU_ASSERT(fixed < 0);
}

/* Core 1's side of a memory hand-off: spins on the flag at 0x40003000 with
 * plain loads (never halted, so no interrupt or event is involved) and
 * reads the counter into r0 when it sees it set. */
static const uint32_t flag_receiver[] = {
    0xe3037000, /* movw r7, #0x3000 */
    0xe3447000, /* movt r7, #0x4000 */
    0xe5973000, /* 1: ldr r3, [r7] */
    0xe3530000, /* cmp r3, #0 */
    0x0afffffc, /* beq 1b */
    0xec510f0e, /* mrrc p15, 0, r0, r1, c14: CNTPCT */
    0xe320f003, /* 2: wfi */
    0xeafffffd, /* b 2b */
};

/* Core 0 computes for 517 us, reads the counter into r5 and sets a flag in
 * memory, with a release store (exclusive = 0: DMB, STR, as spin_unlock) or
 * an atomic one (1: LDREX/STREX, as llist_add); core 1 spins on the flag
 * with plain loads (never halted, so no interrupt or event is involved) and
 * reads the counter into r0 when it sees it. */
static int64_t handoff_lag(int policy, int exclusive)
{
    static const uint32_t release[] = { 0xf57ff05b /* dmb ish */,
                                        0xe5873000 /* str r3, [r7] */ };
    static const uint32_t atomic[] = {
        0xe1971f9f, /* 1: ldrex r1, [r7] */
        0xe1872f93, /* strex r2, r3, [r7] */
        0xe3520000, /* cmp r2, #0 */
        0x1afffffb, /* bne 1b */
    };
    uint32_t sender[16] = {
        [BUSY_517US_WORDS] = 0xe3037000, /* movw r7, #0x3000 */
        0xe3447000,                      /* movt r7, #0x4000: the flag */
        0xe3a03001,                      /* mov r3, #1 */
    };
    size_t n = 8;
    memcpy(sender, busy_517us, sizeof(busy_517us));
    const uint32_t *store = exclusive ? atomic : release;
    size_t nstore = exclusive ? 4 : 2;
    memcpy(&sender[n], store, nstore * sizeof(*store));
    n += nstore;
    sender[n++] = 0xe320f003; /* 2: wfi */
    sender[n++] = 0xeafffffd; /* b 2b */
    uint32_t seen;
    int64_t lag = cross_core_lag(policy, sender, n * sizeof(*sender),
                                 flag_receiver, sizeof(flag_receiver), &seen,
                                 NULL);
    CU_ASSERT_EQUAL(seen, 1);
    return lag;
}

/* A flag set by core 0 after its barrier or LDREX is seen by core 1 at
 * core 0's time or later (a few instructions: within 2 ticks), never from
 * the start of the window it was written in, as with the fixed quantum. */
static void test_memory_handoff(void)
{
    for (int exclusive = 0; exclusive <= 1; exclusive++) {
        int64_t causal = handoff_lag(VT_CAUSAL, exclusive);
        int64_t fixed = handoff_lag(VT_FIXED_QUANTUM, exclusive);
        CU_ASSERT(causal >= 0 && causal <= 2);
        CU_ASSERT(fixed < 0);
    }
}

/* Core 0 runs 1000 barriers (a burst of sync points, as a lock, its
 * critical section and the unlock) and then a release store, while core 1
 * spins on the flag. Core 0 ends two windows in a row, then runs second,
 * where its barriers end no window; its store still reaches core 1 no
 * earlier than core 0's time, and at most a quantum (1250 ticks) later. */
static void test_sync_burst(void)
{
    static const uint32_t sender[] = {
        0xe30003e8, /* movw r0, #1000 */
        0xf57ff05b, /* 1: dmb ish */
        0xe2500001, /* subs r0, r0, #1 */
        0x1afffffc, /* bne 1b */
        0xec565f0e, /* mrrc p15, 0, r5, r6, c14: CNTPCT */
        0xe3037000, /* movw r7, #0x3000 */
        0xe3447000, /* movt r7, #0x4000: the flag */
        0xe3a03001, /* mov r3, #1 */
        0xf57ff05b, /* dmb ish */
        0xe5873000, /* str r3, [r7] */
        0xe320f003, /* 2: wfi */
        0xeafffffd, /* b 2b */
    };
    uint32_t seen;
    uint64_t cuts;
    int64_t lag = cross_core_lag(VT_CAUSAL, sender, sizeof(sender),
                                 flag_receiver, sizeof(flag_receiver), &seen,
                                 &cuts);
    CU_ASSERT_EQUAL(seen, 1);
    CU_ASSERT(cuts <= 2);
    CU_ASSERT(lag >= 0 && lag <= 1250);
}

/* Core 0 computes for 517 us, reads the counter into r5 and sends an event
 * (SEV); core 1 waits for it in WFE, then reads the counter into r0: it
 * wakes at core 0's time (within 2 ticks), and with the fixed quantum at the
 * start of the window. Then core 0 sends 1000 events to core 1 halted in
 * WFI, which they do not wake: none ends a window (each did). */
static void test_sev(void)
{
    static const uint32_t sev_tail[] = {
        0xe320f004, /* sev */
        0xe320f003, /* 2: wfi */
        0xeafffffd, /* b 2b */
    };
    uint32_t sender[BUSY_517US_WORDS + 3];
    memcpy(sender, busy_517us, sizeof(busy_517us));
    memcpy(sender + BUSY_517US_WORDS, sev_tail, sizeof(sev_tail));
    static const uint32_t wfe_receiver[] = {
        0xe320f002, /* wfe */
        0xec510f0e, /* mrrc p15, 0, r0, r1, c14: CNTPCT */
        0xe320f003, /* 2: wfi */
        0xeafffffd, /* b 2b */
    };
    static const uint32_t many[] = {
        0xe30b0af0, /* movw r0, #0xbaf0: 80 us, core 1 halts meanwhile */
        0xe2500001, /* 1: subs r0, r0, #1 */
        0x1afffffd, /* bne 1b */
        0xe30003e8, /* movw r0, #1000 */
        0xe320f004, /* 1: sev */
        0xe2500001, /* subs r0, r0, #1 */
        0x1afffffc, /* bne 1b */
        0xe320f003, /* 2: wfi */
        0xeafffffd, /* b 2b */
    };
    static const uint32_t wfi_receiver[] = {
        0xe320f003, /* 2: wfi */
        0xeafffffd, /* b 2b */
    };
    uint32_t r3;
    uint64_t cuts;
    int64_t causal = cross_core_lag(VT_CAUSAL, sender, sizeof(sender),
                                    wfe_receiver, sizeof(wfe_receiver), &r3,
                                    NULL);
    int64_t fixed = cross_core_lag(VT_FIXED_QUANTUM, sender, sizeof(sender),
                                   wfe_receiver, sizeof(wfe_receiver), &r3,
                                   NULL);
    CU_ASSERT(causal >= 0 && causal <= 2);
    CU_ASSERT(fixed < 0);
    cross_core_lag(VT_CAUSAL, many, sizeof(many), wfi_receiver,
                   sizeof(wfi_receiver), &r3, &cuts);
    CU_ASSERT_EQUAL(cuts, 0);
}

/* With every core in WFI and nothing queued, time jumps to the end. */
static void test_idle_skip(void)
{
    machine *m = small_machine();
    load_loop(m, 1);
    arm_set_pc(arm_sys_cpu(machine_cpus(m), 0), MACH_RAM + 0x1000);
    arm_set_powered(arm_sys_cpu(machine_cpus(m), 0), 1);
    CU_ASSERT_EQUAL(vt_run(machine_engine(m), 5 * VT_NS_PER_S),
                    5 * VT_NS_PER_S);
    CU_ASSERT(arm_is_halted(arm_sys_cpu(machine_cpus(m), 0)));
    CU_ASSERT(arm_insn_count(arm_sys_cpu(machine_cpus(m), 0)) < 10);
    machine_free(m);
}

static void test_guest_clock(void)
{
    struct pl_error err;
    phys_map *m = phys_map_new();
    uint8_t *ram = phys_register_ram(m, MACH_RAM, 16u << 20);
    static const char map_text[] = "c0100000 T _text\nc0800010 D linux_banner\n"
                                   "c0902000 d vdso_data_store\n";
    const char *sm = write_file("System.map", map_text, sizeof(map_text) - 1);
    guest_clock g;
    CU_ASSERT_EQUAL(guest_clock_init(&g, m, sm, 0xc0000000u, MACH_RAM, &err),
                    0);
    CU_ASSERT_EQUAL(g.data_pa, 0x40902000u);
    /* The map is this kernel's when linux_banner holds the banner: in the
     * kernel image (from _text), or in RAM for a restored guest. */
    static uint8_t image[0x800000];
    static const char banner[] = "Linux version 6.1.0-panlab";
    CU_ASSERT_EQUAL(guest_clock_check(&g, image, sizeof(image), &err), -1);
    CU_ASSERT_PTR_NOT_NULL(
        strstr(err.msg, "(byte 7340048 of the kernel image) does not hold"));
    memcpy(image + 0x700010, banner, sizeof(banner));
    CU_ASSERT_EQUAL(guest_clock_check(&g, image, sizeof(image), &err), 0);
    CU_ASSERT_EQUAL(guest_clock_check(&g, image, 0x700018, &err), -1);
    CU_ASSERT_EQUAL(guest_clock_check(&g, NULL, 0, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(
        strstr(err.msg, "System.map: linux_banner at 0xc0800010 "
                        "(physical 0x40800010 of the restored guest) does "
                        "not hold \"Linux version ...\", expected the "
                        "System.map of this kernel build"));
    memcpy(ram + 0x800010, banner, sizeof(banner));
    CU_ASSERT_EQUAL(guest_clock_check(&g, NULL, 0, &err), 0);
    uint64_t ns;
    CU_ASSERT_EQUAL(guest_clock_mono_ns(&g, 1100, &ns), -1); /* mode 0 */
    uint8_t *v = ram + 0x902000;
    uint32_t mode = 1, mult = 16u << 24, shift = 24;
    uint64_t last = 1000, mask = ~0ull, sec = 5, nsec = 123ull << 24;
    memcpy(v + 4, &mode, 4);
    memcpy(v + 8, &last, 8);
    memcpy(v + 16, &mask, 8);
    memcpy(v + 24, &mult, 4);
    memcpy(v + 28, &shift, 4);
    memcpy(v + 48, &sec, 8);
    memcpy(v + 56, &nsec, 8);
    CU_ASSERT_EQUAL(guest_clock_mono_ns(&g, 1100, &ns), 0);
    CU_ASSERT_EQUAL(ns, 5000000000ull + 123 + 1600);
    CU_ASSERT_EQUAL(guest_clock_init(&g, m, write_file("empty.map", "", 0),
                                     0xc0000000u, MACH_RAM, &err),
                    -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no symbol vdso_data_store"));
    phys_map_free(m);
}

int main(int argc, char **argv)
{
    static const board_case cases[] = {
        { "event order", test_event_order },
        { "parallel cores", test_parallel_cores },
        { "CPU frequency", test_cpu_frequency },
        { "idle skip", test_idle_skip },
        { "an SGI reaches its core at the sender's time",
          test_sgi_at_sender_time },
        { "memory hand-off: a release or atomic store is seen at the writer's time",
          test_memory_handoff },
        { "an SEV wakes a core in WFE at the sender's time, and costs one in WFI nothing",
          test_sev },
        { "a burst of sync points ends two windows, then runs second",
          test_sync_burst },
        { "PSCI hotplug", test_psci_hotplug },
        { "guest clock", test_guest_clock },
        { NULL, NULL },
    };
    return board_test_main(argc, argv, "board time", cases);
}
