/* CUnit tests of snapshots: a machine saved mid-run and restored into a
 * fresh one continues exactly as the original; every kind of bad snapshot
 * file gets one line with the file and byte offset; CPU state that cannot
 * resume is refused; and panlab-phone's snapshot options. argv[1] is the
 * panlab-phone binary. */
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

/* ---- snapshots ---- */

/* Both cores add to one shared word and count iterations in their own;
 * the generic timer of core 0 is armed so an engine event is pending. */
static void start_program(machine *m)
{
    static const uint32_t code[] = {
        0xe3021000, /* movw r1, #0x2000 */
        0xe3441000, /* movt r1, #0x4000: the shared word */
        0xe3a00001, /* mov r0, #1 */
        0xee0e0f32, /* mcr p15, 0, r0, c14, c2, 1: CNTP_CTL enable */
        0xe3a00000, /* mov r0, #0 */
        0xe3a03a01, /* mov r3, #0x1000 */
        0xec430f2e, /* mcrr p15, 2, r0, r3, c14: CNTP_CVAL far ahead */
        0xe5912000, /* loop: ldr r2, [r1] */
        0xe0822000, /* add r2, r2, r0 */
        0xe5812000, /* str r2, [r1] */
        0xe2800001, /* add r0, r0, #1 */
        0xeafffffa, /* b loop */
    };
    memcpy(phys_ram_ptr(machine_phys(m), MACH_RAM + 0x1000, sizeof(code)), code,
           sizeof(code));
    for (int i = 0; i < arm_sys_ncores(machine_cpus(m)); i++) {
        arm_cpu *c = arm_sys_cpu(machine_cpus(m), i);
        arm_set_pc(c, MACH_RAM + 0x1000);
        arm_set_powered(c, 1);
    }
}

typedef struct outcome {
    arm_regs regs[2];
    uint64_t insns[2], now_ns;
    uint8_t *ram;
} outcome;

static void take(machine *m, outcome *o)
{
    for (int i = 0; i < 2; i++) {
        arm_get_regs(arm_sys_cpu(machine_cpus(m), i), &o->regs[i]);
        o->insns[i] = arm_insn_count(arm_sys_cpu(machine_cpus(m), i));
    }
    o->now_ns = vt_now_ns(machine_engine(m));
    o->ram = malloc(16u << 20);
    memcpy(o->ram, phys_ram_ptr(machine_phys(m), MACH_RAM, 16u << 20),
           16u << 20);
}

static const char *saved_snapshot(void)
{
    static char path[256];
    if (path[0])
        return path;
    snprintf(path, sizeof(path), "%s", tmp_path("good.snap"));
    machine *m = machine_of(2);
    start_program(m);
    vt_run(machine_engine(m), 300000);
    struct pl_error err;
    CU_ASSERT_EQUAL(snapshot_save(path, m, NULL, &err), 0);
    machine_free(m);
    return path;
}

/* A machine with a NIC on libslirp, whose poll event (every 2 ms) is
 * pending when it is saved. */
static slirp_net *test_net;

static void to_net(void *opaque, const uint8_t *frame, size_t len)
{
    (void)opaque;
    slirp_net_from_guest(test_net, frame, len);
}

static machine *machine_on_net(int with_net)
{
    if (!with_net)
        return machine_of(2);
    machine_config cfg;
    machine_config_default(&cfg);
    cfg.ram_bytes = 16u << 20;
    cfg.console = (byte_sink){ discard, NULL };
    cfg.net = (net_host){ NULL, to_net };
    machine *m = board_machine(&cfg);
    net_timing nt;
    net_timing_profile(&nt, NET_PROFILE_WIFI);
    struct pl_error err;
    test_net = slirp_net_new(machine_engine(m), &nt, NULL, NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(test_net);
    slirp_net_attach(test_net, machine_nic(m));
    return m;
}

static void drop_machine(machine *m)
{
    struct pl_error err;
    CU_ASSERT_EQUAL(slirp_net_free(test_net, &err), 0);
    test_net = NULL;
    machine_free(m);
}

static void round_trip(int with_net)
{
    machine *m = machine_on_net(with_net);
    start_program(m);
    vt_engine *t = machine_engine(m);
    vt_run(t, 300001); /* not a whole cycle: a fraction is carried */
    struct pl_error err;
    const char *path = tmp_path("trip.snap");
    CU_ASSERT_EQUAL_FATAL(snapshot_save(path, m, test_net, &err), 0);
    vt_run(t, 5000000);
    outcome a, b;
    take(m, &a);
    drop_machine(m);

    m = machine_on_net(with_net);
    CU_ASSERT_EQUAL_FATAL(snapshot_load(path, m, test_net, &err), 0);
    CU_ASSERT_EQUAL(vt_now_ns(machine_engine(m)), 300001);
    vt_run(machine_engine(m), 5000000);
    take(m, &b);
    drop_machine(m);

    CU_ASSERT(a.insns[0] > 100000 && a.insns[1] > 100000);
    CU_ASSERT_EQUAL(a.now_ns, b.now_ns);
    for (int i = 0; i < 2; i++) {
        CU_ASSERT_EQUAL(a.insns[i], b.insns[i]);
        CU_ASSERT_EQUAL(memcmp(&a.regs[i], &b.regs[i], sizeof(arm_regs)), 0);
    }
    CU_ASSERT_EQUAL(memcmp(a.ram, b.ram, 16u << 20), 0);
    free(a.ram);
    free(b.ram);
    if (!with_net)
        return;
    /* A networked snapshot needs a network to restore into. */
    m = machine_of(2);
    CU_ASSERT_EQUAL(snapshot_load(path, m, NULL, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "trip.snap@"));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "NIC"));
    machine_free(m);
}

static void test_round_trip(void)
{
    round_trip(0);
    round_trip(1);
}

/* Copies the good snapshot with its first `keep` bytes, then with the
 * byte at `flip` inverted (if flip < keep). */
static const char *damaged(const char *name, long keep, long flip)
{
    FILE *in = fopen(saved_snapshot(), "rb");
    const char *p = tmp_path(name);
    FILE *out = fopen(p, "wb");
    for (long i = 0; i < keep; i++) {
        int ch = fgetc(in);
        if (ch == EOF)
            break;
        fputc(i == flip ? ch ^ 0xff : ch, out);
    }
    fclose(in);
    fclose(out);
    return p;
}

static long file_bytes(const char *path)
{
    FILE *f = fopen(path, "rb");
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fclose(f);
    return n;
}

/* Loads path into a fresh machine of ncores and checks the error holds
 * "path@" and want, on one line. */
static void expect_load_error(const char *path, int ncores, const char *want)
{
    machine *m = machine_of(ncores);
    struct pl_error err;
    char at[300];
    CU_ASSERT_EQUAL(snapshot_load(path, m, NULL, &err), -1);
    snprintf(at, sizeof(at), "%s@", path);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, at));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, want));
    CU_ASSERT_PTR_NULL(strchr(err.msg, '\n'));
    if (!strstr(err.msg, want))
        fprintf(stderr, "\n  got: %s\n", err.msg);
    machine_free(m);
}

/* A snapshot whose checksums pass but whose CPU state cannot run: each is
 * refused at load with the field's offset, before any guest time passes. */
static void expect_unresumable(const char *name, void (*spoil)(arm_cpu *),
                               const char *want)
{
    machine *m = machine_of(2);
    start_program(m);
    vt_run(machine_engine(m), 300000);
    spoil(arm_sys_cpu(machine_cpus(m), 0));
    struct pl_error err;
    const char *path = tmp_path(name);
    CU_ASSERT_EQUAL_FATAL(snapshot_save(path, m, NULL, &err), 0);
    machine_free(m);
    expect_load_error(path, 2, want);
}

static void mmu_on_bad_ttbr(arm_cpu *c)
{
    c->cp15.sctlr |= SCTLR_M;
    c->cp15.ttbr0 = 0x12340000;
}

static void pc_outside_ram(arm_cpu *c)
{
    c->pc = 0x20000000;
}

/* The MMU on, TTBR0 in RAM and TTBR1 not, though TTBCR.N = 0. */
static void mmu_on_bad_ttbr1(arm_cpu *c)
{
    c->cp15.sctlr |= SCTLR_M;
    c->cp15.ttbr0 = MACH_RAM + 0x100000;
    c->cp15.ttbr1 = 0x12340000;
}

/* The MMU on with a flat map of the 16 MiB of RAM in 1 MiB sections (ARM
 * ARM B3.5.1; domain 0 as manager), the vectors at an unmapped address. */
static void vectors_outside_ram(arm_cpu *c)
{
    uint32_t table = MACH_RAM + 0x100000;
    uint8_t *l1 = phys_ram_ptr(c->sys->map, table, 0x4000);
    for (uint32_t mb = 0; mb < 16; mb++) {
        uint32_t pa = MACH_RAM + (mb << 20), desc = pa | 3u << 10 | 2;
        memcpy(l1 + (pa >> 20) * 4, &desc, 4);
    }
    c->cp15.ttbr0 = c->cp15.ttbr1 = table;
    c->cp15.dacr = 3;
    c->cp15.sctlr |= SCTLR_M;
    c->cp15.vbar = 0x20000000;
}
static void jazelle(arm_cpu *c)
{
    c->cpsr |= CPSR_J;
}
static void bad_mode(arm_cpu *c)
{
    c->cpsr = (c->cpsr & ~0x1fu) | 0x1e;
}
static void lpae(arm_cpu *c)
{
    c->cp15.ttbcr |= 1u << 31;
}

static void test_unresumable(void)
{
    /* The records begin at byte 60 (header 12, MACH 12 + 12 + 4 bytes of
     * CRC, CPUS header 12); ttbr0 is at 268 in a record. */
    expect_unresumable(
        "ttbr.snap", mmu_on_bad_ttbr,
        "ttbr.snap@328: core 0: ttbr0 0x12340000 puts the translation "
        "table at 0x12340000, outside RAM");
    expect_unresumable(
        "ttbr1.snap", mmu_on_bad_ttbr1,
        "ttbr1.snap@332: core 0: ttbr1 0x12340000 puts the translation "
        "table at 0x12340000, outside RAM");
    expect_unresumable(
        "pc.snap", pc_outside_ram,
        "core 0: pc 0x20000000 is at physical 0x20000000, expected the next "
        "instruction in RAM");
    expect_unresumable(
        "vbar.snap", vectors_outside_ram,
        "core 0: vbar 0x20000000: the exception vectors at 0x20000000 fault "
        "in translation, status 0x00000005");
    expect_unresumable("jazelle.snap", jazelle, "core 0: cpsr");
    /* cpsr is the fifth u32 of a record: 60 + 16. */
    expect_unresumable("mode.snap", bad_mode, "mode.snap@76: core 0: cpsr 0x");
    expect_unresumable("mode.snap", bad_mode,
                       "has mode 0x1e, expected a valid ARM mode");
    expect_unresumable("lpae.snap", lpae, "core 0: ttbcr");
}

/* Copies the good snapshot to name with the u64 at payload offset `at` of
 * section `tag` set to v, and the section's CRC-32 made right again: a
 * file whose checksums pass but whose value is wrong. */
static const char *patched(const char *name, const char *tag, long at,
                           uint64_t v)
{
    long n = file_bytes(saved_snapshot());
    uint8_t *b = malloc((size_t)n);
    FILE *f = fopen(saved_snapshot(), "rb");
    CU_ASSERT_FATAL(fread(b, 1, (size_t)n, f) == (size_t)n);
    fclose(f);
    long off = 12; /* magic and version */
    uint64_t len = 0;
    for (; off + 12 <= n; off += 12 + (long)len + 4) {
        memcpy(&len, b + off + 4, 8);
        if (!memcmp(b + off, tag, 4))
            break;
    }
    CU_ASSERT_FATAL(off + 12 <= n && at + 8 <= (long)len);
    memcpy(b + off + 12 + at, &v, 8);
    uint32_t crc = (uint32_t)crc32(0, b + off + 12, (uInt)len);
    memcpy(b + off + 12 + len, &crc, 4);
    const char *p = write_file(name, b, (size_t)n);
    free(b);
    return p;
}

static void test_bad_files(void)
{
    long n = file_bytes(saved_snapshot());
    CU_ASSERT(n > 4096);
    expect_load_error(damaged("short.snap", 6, n), 2, "truncated");
    expect_load_error(damaged("half.snap", n / 2, n), 2, "truncated");
    expect_load_error(damaged("noend.snap", n - 1, n), 2, "truncated");
    /* Cut before the last section's CRC: the line says so. */
    expect_load_error(
        damaged("nocrc.snap", n - 4, n), 2,
        "truncated: section 'END ' ends 0 "
        "bytes into its 4-byte CRC-32, expected the CRC after its 0 bytes");
    expect_load_error(damaged("partcrc.snap", n - 1, n), 2,
                      "ends 3 bytes into its 4-byte CRC-32");
    /* Bytes after the END section. */
    FILE *f = fopen(damaged("tail.snap", n, n), "ab");
    fputs("tail", f);
    fclose(f);
    char at[64];
    snprintf(at, sizeof(at), "tail.snap@%ld: 4 bytes after the last section",
             n);
    expect_load_error(tmp_path("tail.snap"), 2, at);
    /* A virtual time of 26 days (TIME: ncores, cpu_hz, counter_hz, quantum,
     * policy, then now_ns at 32), past the longest run. */
    expect_load_error(
        patched("days.snap", "TIME", 32, 26ull * 86400 * VT_NS_PER_S), 2,
        "virtual time 2246400000000000 ns (26.0 days), expected at most "
        "1000000 s");
    expect_load_error(damaged("magic.snap", n, 0), 2,
                      "not a panlab-phone snapshot");
    expect_load_error(damaged("version.snap", n, 8), 2, "format version");
    expect_load_error(damaged("tag.snap", n, 12), 2, "expected 'MACH'");
    /* A flipped byte in the CPU section and one in RAM data. */
    expect_load_error(damaged("cpus.snap", n, 80), 2, "checksum");
    expect_load_error(damaged("ram.snap", n, n - 300), 2, "checksum");
    /* A snapshot of a 2-core machine into a 1-core one. */
    expect_load_error(saved_snapshot(), 1, "cores");
    machine *m = machine_of(2);
    struct pl_error err;
    CU_ASSERT_EQUAL(snapshot_load(tmp_path("missing.snap"), m, NULL, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "missing.snap: cannot open"));
    machine_free(m);
}

/* The command line: restoring needs a configuration and takes no boot
 * images; a snapshot of another machine is refused with its offset. */
static void test_snapshot_cli(void)
{
    int lines;
    char first[1024], args[1024];
    snprintf(args, sizeof(args), "--snapshot-load %s", saved_snapshot());
    CU_ASSERT_EQUAL(run_phone(args, &lines, first, sizeof(first)), 2);
    CU_ASSERT_EQUAL(lines, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(first, "needs --config"));
    snprintf(args, sizeof(args), "--snapshot-load %s --kernel k --config x",
             saved_snapshot());
    CU_ASSERT_EQUAL(run_phone(args, &lines, first, sizeof(first)), 2);
    CU_ASSERT_EQUAL(lines, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(first, "takes no --kernel"));
    /* A snapshot it cannot use has its own status: the caller may boot cold. */
    snprintf(args, sizeof(args), "--snapshot-load %s --config x",
             tmp_path("none.snap"));
    CU_ASSERT_EQUAL(run_phone(args, &lines, first, sizeof(first)),
                    PL_EXIT_SNAPSHOT_REFUSED);
    CU_ASSERT_EQUAL(lines, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(first, "none.snap: cannot open"));
    /* The good snapshot is of a 16 MiB machine; the phone has 1 GiB. */
    snprintf(args, sizeof(args), "--snapshot-load %s --config x",
             saved_snapshot());
    CU_ASSERT_EQUAL(run_phone(args, &lines, first, sizeof(first)),
                    PL_EXIT_SNAPSHOT_REFUSED);
    CU_ASSERT_EQUAL(lines, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(first, "good.snap@"));
    CU_ASSERT_PTR_NOT_NULL(strstr(first, "bytes of RAM"));
}

int main(int argc, char **argv)
{
    static const board_case cases[] = {
        { "snapshot: save, restore, continue identically", test_round_trip },
        { "snapshot: bad files", test_bad_files },
        { "snapshot: CPU state that cannot resume", test_unresumable },
        { "snapshot: command line", test_snapshot_cli },
        { NULL, NULL },
    };
    return board_test_main(argc, argv, "board snapshot", cases);
}
