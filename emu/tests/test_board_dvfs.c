/* CUnit tests of the phone's DVFS: the SCMI platform (dev/scmi.c) answers
 * Linux's discovery and level requests, and every bad request (unknown
 * protocol, command, domain or level, a short or unreadable message, or
 * random bytes) gets an SCMI error or the channel's error bit and leaves
 * the frequency alone; on a core, a level set through the HVC takes effect
 * at that instruction and the caller waits the transition latency. */
#include <stdlib.h>
#include <string.h>
#include <CUnit/Basic.h>
#include "../machine.h"
#include "board_test.h"
#include "../dev/scmi.h"

enum { BASE = 0x10, PERF = 0x13 };

/* A platform on its own engine (no cores): the message path only. */
typedef struct rig {
    phys_map *map;
    vt_engine *vt;
    dvfs *dvfs;
    scmi *scmi;
} rig;

static void rig_new(rig *r)
{
    r->map = phys_map_new();
    r->vt = vt_new(NULL, 1200000000, 62500000, 20000);
    struct pl_error err;
    r->dvfs = dvfs_new(r->vt, dvfs_omap4460_opps, dvfs_omap4460_nopps,
                       DVFS_OMAP4460_LATENCY_NS, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r->dvfs);
    r->scmi = scmi_new(r->map, MACH_SCMI_SHMEM, r->dvfs);
}

static void rig_free(rig *r)
{
    scmi_free(r->scmi);
    dvfs_free(r->dvfs);
    vt_free(r->vt);
    phys_map_free(r->map);
}

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static void wr32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t header(uint32_t proto, uint32_t id, uint32_t token)
{
    return id | proto << 10 | token << 18;
}

/* Writes a message as Linux's shmem_tx_prepare does. */
static void put_msg(uint8_t *shm, uint32_t hdr, const uint32_t *args, int n)
{
    wr32(shm + SCMI_SHM_STATUS, 0);
    wr32(shm + SCMI_SHM_FLAGS, 0);
    wr32(shm + SCMI_SHM_LENGTH, 4 + 4u * (uint32_t)n);
    wr32(shm + SCMI_SHM_HEADER, hdr);
    for (int i = 0; i < n; i++)
        wr32(shm + SCMI_SHM_PAYLOAD + 4 * i, args[i]);
}

/* Sends a message; returns its status; *out (if given) points at the
 * return values and *out_bytes is their size. */
static int32_t call(rig *r, uint32_t proto, uint32_t id, const uint32_t *args,
                    int n, const uint8_t **out, uint32_t *out_bytes)
{
    uint8_t *shm = scmi_shmem(r->scmi);
    uint32_t hdr = header(proto, id, 0x155);
    put_msg(shm, hdr, args, n);
    scmi_process(r->scmi);
    CU_ASSERT_EQUAL(rd32(shm + SCMI_SHM_STATUS), SCMI_CHAN_FREE);
    CU_ASSERT_EQUAL(rd32(shm + SCMI_SHM_HEADER), hdr);
    uint32_t len = rd32(shm + SCMI_SHM_LENGTH);
    CU_ASSERT(len >= 8);
    if (out)
        *out = shm + SCMI_SHM_PAYLOAD + 4;
    if (out_bytes)
        *out_bytes = len - 8;
    return (int32_t)rd32(shm + SCMI_SHM_PAYLOAD);
}

/* A domain without OPPs, or with more than it holds, is an error. */
static void test_bad_opps(void)
{
    struct pl_error err;
    vt_engine *vt = vt_new(NULL, 1200000000, 62500000, 20000);
    CU_ASSERT_PTR_NULL(
        dvfs_new(vt, dvfs_omap4460_opps, 0, DVFS_OMAP4460_LATENCY_NS, &err));
    CU_ASSERT_STRING_EQUAL(err.msg, "dvfs: 0 OPPs, expected 1..8");
    CU_ASSERT_PTR_NULL(dvfs_new(vt, dvfs_omap4460_opps, DVFS_MAX_OPPS + 1,
                                DVFS_OMAP4460_LATENCY_NS, &err));
    CU_ASSERT_STRING_EQUAL(err.msg, "dvfs: 9 OPPs, expected 1..8");
    vt_free(vt);
}

static void test_base(void)
{
    rig r;
    rig_new(&r);
    const uint8_t *o;
    uint32_t n;
    CU_ASSERT_EQUAL(call(&r, BASE, 0, NULL, 0, &o, &n), SCMI_SUCCESS);
    CU_ASSERT_EQUAL(rd32(o), 0x20000);
    CU_ASSERT_EQUAL(call(&r, BASE, 1, NULL, 0, &o, &n), SCMI_SUCCESS);
    CU_ASSERT_EQUAL(o[0], 1);      /* protocols besides base */
    CU_ASSERT_EQUAL(o[1], 1);      /* agents */
    CU_ASSERT_EQUAL(call(&r, BASE, 3, NULL, 0, &o, &n), SCMI_SUCCESS);
    CU_ASSERT_EQUAL(n, 16);
    CU_ASSERT_STRING_EQUAL((const char *)o, "panlab");
    uint32_t skip = 0;
    CU_ASSERT_EQUAL(call(&r, BASE, 6, &skip, 1, &o, &n), SCMI_SUCCESS);
    CU_ASSERT_EQUAL(rd32(o), 1);
    CU_ASSERT_EQUAL(o[4], PERF);
    CU_ASSERT_EQUAL(n, 8);          /* the list is padded to a word */
    skip = 2;
    CU_ASSERT_EQUAL(call(&r, BASE, 6, &skip, 1, NULL, NULL),
                    SCMI_INVALID_PARAMETERS);
    uint32_t agent = 1;
    CU_ASSERT_EQUAL(call(&r, BASE, 7, &agent, 1, &o, &n), SCMI_SUCCESS);
    CU_ASSERT_STRING_EQUAL((const char *)o + 4, "OSPM");
    agent = 2;
    CU_ASSERT_EQUAL(call(&r, BASE, 7, &agent, 1, NULL, NULL), SCMI_NOT_FOUND);
    uint32_t msg = 6;
    CU_ASSERT_EQUAL(call(&r, BASE, 2, &msg, 1, NULL, NULL), SCMI_SUCCESS);
    msg = 8;                        /* BASE_NOTIFY_ERRORS: not offered */
    CU_ASSERT_EQUAL(call(&r, BASE, 2, &msg, 1, NULL, NULL), SCMI_NOT_FOUND);
    CU_ASSERT_EQUAL(call(&r, BASE, 8, &msg, 1, NULL, NULL), SCMI_NOT_SUPPORTED);
    rig_free(&r);
}

static void test_perf(void)
{
    rig r;
    rig_new(&r);
    const uint8_t *o;
    uint32_t n;
    CU_ASSERT_EQUAL(call(&r, PERF, 1, NULL, 0, &o, &n), SCMI_SUCCESS);
    CU_ASSERT_EQUAL(rd32(o) & 0xffff, 1);          /* one domain */
    CU_ASSERT_EQUAL(rd32(o) >> 16, 1);             /* power in mW */
    uint32_t a[3] = { 0, 0, 0 };
    CU_ASSERT_EQUAL(call(&r, PERF, 3, a, 1, &o, &n), SCMI_SUCCESS);
    CU_ASSERT_EQUAL(rd32(o) >> 30, 3);             /* set limits, level */
    CU_ASSERT_EQUAL(rd32(o + 8), 1200000);         /* sustained kHz */
    CU_ASSERT_EQUAL(rd32(o + 12), 1200000);        /* = sustained level */
    CU_ASSERT_EQUAL(call(&r, PERF, 4, a, 2, &o, &n), SCMI_SUCCESS);
    CU_ASSERT_EQUAL(rd32(o), 4);                   /* 4 returned, 0 left */
    static const uint32_t khz[] = { 350000, 700000, 920000, 1200000 };
    static const uint32_t mw[] = { 220, 610, 1000, 1600 };
    for (int i = 0; i < 4; i++) {
        CU_ASSERT_EQUAL(rd32(o + 4 + 12 * i), khz[i]);
        CU_ASSERT_EQUAL(rd32(o + 8 + 12 * i), mw[i]);
        CU_ASSERT_EQUAL(rd32(o + 12 + 12 * i), 300);   /* us, reserved 0 */
    }
    a[1] = 3;
    CU_ASSERT_EQUAL(call(&r, PERF, 4, a, 2, &o, &n), SCMI_SUCCESS);
    CU_ASSERT_EQUAL(rd32(o), 1);
    CU_ASSERT_EQUAL(rd32(o + 4), 1200000);

    CU_ASSERT_EQUAL(call(&r, PERF, 8, a, 1, &o, &n), SCMI_SUCCESS);
    CU_ASSERT_EQUAL(rd32(o), 1200000);
    a[1] = 700000;
    CU_ASSERT_EQUAL(call(&r, PERF, 7, a, 2, NULL, NULL), SCMI_SUCCESS);
    CU_ASSERT_EQUAL(vt_cpu_hz(r.vt), 700000000);
    CU_ASSERT_EQUAL(dvfs_current(r.dvfs), 1);
    CU_ASSERT_EQUAL(call(&r, PERF, 8, a, 1, &o, &n), SCMI_SUCCESS);
    CU_ASSERT_EQUAL(rd32(o), 700000);
    CU_ASSERT_EQUAL(call(&r, PERF, 7, a, 2, NULL, NULL), SCMI_SUCCESS);
    CU_ASSERT_EQUAL(dvfs_switches(r.dvfs), 1);     /* same level: no switch */

    /* Limits 350..700 MHz: a level above them is out of range; a
     * narrower top limit moves the level down to fit. */
    uint32_t lim[3] = { 0, 700000, 350000 };
    CU_ASSERT_EQUAL(call(&r, PERF, 5, lim, 3, NULL, NULL), SCMI_SUCCESS);
    a[1] = 920000;
    CU_ASSERT_EQUAL(call(&r, PERF, 7, a, 2, NULL, NULL), SCMI_OUT_OF_RANGE);
    CU_ASSERT_EQUAL(call(&r, PERF, 6, a, 1, &o, &n), SCMI_SUCCESS);
    CU_ASSERT_EQUAL(rd32(o), 700000);
    CU_ASSERT_EQUAL(rd32(o + 4), 350000);
    lim[1] = 350000;
    CU_ASSERT_EQUAL(call(&r, PERF, 5, lim, 3, NULL, NULL), SCMI_SUCCESS);
    CU_ASSERT_EQUAL(vt_cpu_hz(r.vt), 350000000);
    CU_ASSERT_EQUAL(dvfs_switches(r.dvfs), 2);
    rig_free(&r);
}

static void test_bad_requests(void)
{
    rig r;
    rig_new(&r);
    uint32_t a[3] = { 1, 700000, 0 };
    CU_ASSERT_EQUAL(call(&r, PERF, 7, a, 2, NULL, NULL), SCMI_NOT_FOUND);
    CU_ASSERT_EQUAL(call(&r, PERF, 3, a, 1, NULL, NULL), SCMI_NOT_FOUND);
    a[0] = 0;
    a[1] = 500000;                  /* not an operating point */
    CU_ASSERT_EQUAL(call(&r, PERF, 7, a, 2, NULL, NULL), SCMI_INVALID_PARAMETERS);
    a[1] = 4;
    CU_ASSERT_EQUAL(call(&r, PERF, 4, a, 2, NULL, NULL), SCMI_INVALID_PARAMETERS);
    uint32_t lim[3] = { 0, 350000, 700000 };      /* min above max */
    CU_ASSERT_EQUAL(call(&r, PERF, 5, lim, 3, NULL, NULL), SCMI_INVALID_PARAMETERS);
    lim[1] = 100000;
    lim[2] = 50000;                 /* below every OPP */
    CU_ASSERT_EQUAL(call(&r, PERF, 5, lim, 3, NULL, NULL), SCMI_OUT_OF_RANGE);
    /* Too short for its parameters. */
    CU_ASSERT_EQUAL(call(&r, PERF, 7, a, 1, NULL, NULL), SCMI_PROTOCOL_ERROR);
    CU_ASSERT_EQUAL(call(&r, PERF, 4, a, 1, NULL, NULL), SCMI_PROTOCOL_ERROR);
    CU_ASSERT_EQUAL(call(&r, PERF, 8, a, 0, NULL, NULL), SCMI_PROTOCOL_ERROR);
    CU_ASSERT_EQUAL(call(&r, BASE, 6, a, 0, NULL, NULL), SCMI_PROTOCOL_ERROR);
    /* Unknown command and protocol (0x14 is clock: not implemented). */
    CU_ASSERT_EQUAL(call(&r, PERF, 0x9, a, 2, NULL, NULL), SCMI_NOT_SUPPORTED);
    CU_ASSERT_EQUAL(call(&r, PERF, 0xff, a, 2, NULL, NULL), SCMI_NOT_SUPPORTED);
    CU_ASSERT_EQUAL(call(&r, 0x14, 0, NULL, 0, NULL, NULL), SCMI_NOT_SUPPORTED);
    CU_ASSERT_EQUAL(call(&r, 0xff, 7, a, 2, NULL, NULL), SCMI_NOT_SUPPORTED);
    CU_ASSERT_EQUAL(vt_cpu_hz(r.vt), 1200000000);
    CU_ASSERT_EQUAL(dvfs_switches(r.dvfs), 0);

    /* A delayed response or notification sent to the platform. */
    uint8_t *shm = scmi_shmem(r.scmi);
    put_msg(shm, header(PERF, 7, 1) | 2u << 8, a, 2);
    scmi_process(r.scmi);
    CU_ASSERT_EQUAL((int32_t)rd32(shm + SCMI_SHM_PAYLOAD), SCMI_PROTOCOL_ERROR);
    /* No header, or a length past the channel: the channel's error bit. */
    uint32_t lengths[] = { 0, 3, SCMI_SHMEM_BYTES, 0xffffffffu };
    for (size_t i = 0; i < sizeof(lengths) / sizeof(lengths[0]); i++) {
        put_msg(shm, header(PERF, 8, 1), a, 1);
        wr32(shm + SCMI_SHM_LENGTH, lengths[i]);
        scmi_process(r.scmi);
        CU_ASSERT_EQUAL(rd32(shm + SCMI_SHM_STATUS),
                        SCMI_CHAN_FREE | SCMI_CHAN_ERROR);
    }
    /* Random channels: always answered or flagged, never a crash (ASan). */
    srand(12);
    for (int k = 0; k < 20000; k++) {
        for (uint32_t i = 0; i < 64; i++)
            shm[SCMI_SHM_LENGTH + i] = (uint8_t)rand();
        wr32(shm + SCMI_SHM_LENGTH, (uint32_t)rand() % 80);
        if (k % 2)              /* half of them to the two real protocols */
            wr32(shm + SCMI_SHM_HEADER, header(k % 4 ? PERF : BASE,
                                               (uint32_t)rand() % 12, 0));
        scmi_process(r.scmi);
        CU_ASSERT_TRUE(rd32(shm + SCMI_SHM_STATUS) & SCMI_CHAN_FREE);
    }
    CU_ASSERT(dvfs_current(r.dvfs) >= 0);
    rig_free(&r);
}

/* Core 0 sets 350 MHz through the HVC, then runs a loop of 350,000
 * iterations (700,000 instructions: 2 ms at 350 MHz) and halts. The
 * switch happens at the HVC, and core 0 then waits 300 us in firmware. */
static void test_level_set_on_core(void)
{
    machine_config cfg;
    machine_config_default(&cfg);
    cfg.ram_bytes = 16u << 20;
    cfg.console = (byte_sink){ discard, NULL };
    machine *m = board_machine(&cfg);
    static const uint32_t code[] = {
        0xe3000010,     /* movw r0, #0x10 */
        0xe3480200,     /* movt r0, #0x8200: SCMI_SMC_ID */
        0xe1400070,     /* hvc #0 */
        0xe1a04000,     /* mov r4, r0 */
        0xe3050730,     /* movw r0, #0x5730 */
        0xe3400005,     /* movt r0, #5: 350,000 */
        0xe2500001,     /* loop: subs r0, r0, #1 */
        0x1afffffd,     /* bne loop */
        0xe320f003,     /* wfi */
        0xeafffffd,     /* b wfi */
    };
    phys_map *p = machine_phys(m);
    memcpy(phys_ram_ptr(p, MACH_RAM + 0x1000, sizeof(code)), code, sizeof(code));
    uint8_t *shm = phys_ram_ptr(p, MACH_SCMI_SHMEM, SCMI_SHMEM_BYTES);
    uint32_t args[2] = { 0, 350000 };
    put_msg(shm, header(PERF, 7, 3), args, 2);
    arm_cpu *c0 = arm_sys_cpu(machine_cpus(m), 0);
    arm_set_pc(c0, MACH_RAM + 0x1000);
    arm_set_powered(c0, 1);
    vt_engine *t = machine_engine(m);
    while (!arm_is_halted(c0))
        vt_run(t, vt_now_ns(t) + 100000);
    CU_ASSERT_EQUAL(arm_get_reg(c0, 4), 0);        /* SMCCC success */
    CU_ASSERT_EQUAL((int32_t)rd32(shm + SCMI_SHM_PAYLOAD), SCMI_SUCCESS);
    CU_ASSERT_EQUAL(vt_cpu_hz(t), 350000000);
    dvfs *d = machine_dvfs(m);
    CU_ASSERT_EQUAL(dvfs_switches(d), 1);
    /* 3 instructions at 1.2 GHz (2.5 ns), 300 us, then 700,004 at 350 MHz. */
    uint64_t want = 2 + 300000 + 700004ull * VT_NS_PER_S / 350000000;
    uint64_t busy = vt_busy_ns(t, 0);
    CU_ASSERT(busy >= want && busy <= want + 2);
    CU_ASSERT_EQUAL(dvfs_residency_ns(d, 3) + dvfs_residency_ns(d, 0),
                    vt_now_ns(t));
    CU_ASSERT(dvfs_busy_ns(d, 0, 0) >= want - 3 && dvfs_busy_ns(d, 0, 0) <= want);
    machine_free(m);
}

int main(int argc, char **argv)
{
    static const board_case cases[] = {
        { "DVFS domain refuses bad OPP counts", test_bad_opps },
        { "SCMI base protocol", test_base },
        { "SCMI performance protocol", test_perf },
        { "SCMI bad requests", test_bad_requests },
        { "level set on a core", test_level_set_on_core },
        { NULL, NULL },
    };
    return board_test_main(argc, argv, "board dvfs", cases);
}
