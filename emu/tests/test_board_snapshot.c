/* CUnit tests of snapshots: a machine saved mid-run and restored into a
 * fresh one continues exactly as the original does (cores, clocks, RAM),
 * and every kind of bad snapshot file gets one line naming the file and
 * byte offset. argv[1] is the panlab-phone binary for the command-line
 * cases. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <CUnit/Basic.h>
#include "../machine.h"
#include "../host/snapshot.h"

static const char *phone_bin = "../build/emu/panlab-phone";
static char tmpdir[] = "/tmp/test_snapshot.XXXXXX";

static const char *tmp_path(const char *name)
{
    static char buf[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof(buf[k]), "%s/%s", tmpdir, name);
    return buf[k];
}

static void discard(void *opaque, const uint8_t *buf, size_t n)
{
    (void)opaque;
    (void)buf;
    (void)n;
}

static machine *small_machine(int ncores)
{
    machine_config cfg;
    machine_config_default(&cfg);
    cfg.ncores = ncores;
    cfg.ram_bytes = 16u << 20;
    cfg.console = (byte_sink){ discard, NULL };
    return machine_new(&cfg);
}

/* Both cores add to one shared word and count iterations in their own;
 * the generic timer of core 0 is armed so an engine event is pending. */
static void start_program(machine *m)
{
    static const uint32_t code[] = {
        0xe3021000,     /* movw r1, #0x2000 */
        0xe3441000,     /* movt r1, #0x4000: the shared word */
        0xe3a00001,     /* mov r0, #1 */
        0xee0e0f32,     /* mcr p15, 0, r0, c14, c2, 1: CNTP_CTL enable */
        0xe3a00000,     /* mov r0, #0 */
        0xe3a03a01,     /* mov r3, #0x1000 */
        0xec430f2e,     /* mcrr p15, 2, r0, r3, c14: CNTP_CVAL far ahead */
        0xe5912000,     /* loop: ldr r2, [r1] */
        0xe0822000,     /* add r2, r2, r0 */
        0xe5812000,     /* str r2, [r1] */
        0xe2800001,     /* add r0, r0, #1 */
        0xeafffffa,     /* b loop */
    };
    memcpy(phys_ram_ptr(machine_phys(m), MACH_RAM + 0x1000, sizeof(code)),
           code, sizeof(code));
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
    memcpy(o->ram, phys_ram_ptr(machine_phys(m), MACH_RAM, 16u << 20), 16u << 20);
}

static const char *saved_snapshot(void)
{
    static char path[256];
    if (path[0])
        return path;
    snprintf(path, sizeof(path), "%s", tmp_path("good.snap"));
    machine *m = small_machine(2);
    start_program(m);
    vt_run(machine_engine(m), 300000);
    char err[SNAP_ERR_BYTES];
    CU_ASSERT_EQUAL(snapshot_save(path, m, NULL, err, sizeof(err)), 0);
    machine_free(m);
    return path;
}

static void test_round_trip(void)
{
    machine *m = small_machine(2);
    start_program(m);
    vt_engine *t = machine_engine(m);
    vt_run(t, 300001);     /* not a whole cycle: a fraction is carried */
    char err[SNAP_ERR_BYTES];
    const char *path = tmp_path("trip.snap");
    CU_ASSERT_EQUAL_FATAL(snapshot_save(path, m, NULL, err, sizeof(err)), 0);
    vt_run(t, 700000);
    outcome a, b;
    take(m, &a);
    machine_free(m);

    m = small_machine(2);
    CU_ASSERT_EQUAL_FATAL(snapshot_load(path, m, NULL, err, sizeof(err)), 0);
    CU_ASSERT_EQUAL(vt_now_ns(machine_engine(m)), 300001);
    vt_run(machine_engine(m), 700000);
    take(m, &b);
    machine_free(m);

    CU_ASSERT(a.insns[0] > 100000 && a.insns[1] > 100000);
    CU_ASSERT_EQUAL(a.now_ns, b.now_ns);
    for (int i = 0; i < 2; i++) {
        CU_ASSERT_EQUAL(a.insns[i], b.insns[i]);
        CU_ASSERT_EQUAL(memcmp(&a.regs[i], &b.regs[i], sizeof(arm_regs)), 0);
    }
    CU_ASSERT_EQUAL(memcmp(a.ram, b.ram, 16u << 20), 0);
    free(a.ram);
    free(b.ram);
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
    machine *m = small_machine(ncores);
    char err[SNAP_ERR_BYTES], at[300];
    CU_ASSERT_EQUAL(snapshot_load(path, m, NULL, err, sizeof(err)), -1);
    snprintf(at, sizeof(at), "%s@", path);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, at));
    CU_ASSERT_PTR_NOT_NULL(strstr(err, want));
    CU_ASSERT_PTR_NULL(strchr(err, '\n'));
    if (!strstr(err, want))
        fprintf(stderr, "\n  got: %s\n", err);
    machine_free(m);
}

static void test_bad_files(void)
{
    long n = file_bytes(saved_snapshot());
    CU_ASSERT(n > 4096);
    expect_load_error(damaged("short.snap", 6, n), 2, "truncated");
    expect_load_error(damaged("half.snap", n / 2, n), 2, "truncated");
    expect_load_error(damaged("noend.snap", n - 1, n), 2, "truncated");
    expect_load_error(damaged("magic.snap", n, 0), 2, "not a panlab-phone snapshot");
    expect_load_error(damaged("version.snap", n, 8), 2, "format version");
    expect_load_error(damaged("tag.snap", n, 12), 2, "expected 'MACH'");
    /* A flipped byte in the CPU section and one in RAM data. */
    expect_load_error(damaged("cpus.snap", n, 80), 2, "checksum");
    expect_load_error(damaged("ram.snap", n, n - 300), 2, "checksum");
    /* A snapshot of a 2-core machine into a 1-core one. */
    expect_load_error(saved_snapshot(), 1, "cores");
    machine *m = small_machine(2);
    char err[SNAP_ERR_BYTES];
    CU_ASSERT_EQUAL(snapshot_load(tmp_path("missing.snap"), m, NULL, err,
                                  sizeof(err)), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err, "missing.snap: cannot open"));
    machine_free(m);
}

static int run_phone(const char *args, char *first, size_t len)
{
    char cmd[2048];
    const char *errf = tmp_path("stderr");
    snprintf(cmd, sizeof(cmd), "%s %s 2>%s >/dev/null", phone_bin, args, errf);
    int st = system(cmd);
    FILE *f = fopen(errf, "r");
    int lines = 0;
    char line[1024];
    first[0] = 0;
    while (f && fgets(line, sizeof(line), f))
        if (!lines++)
            snprintf(first, len, "%s", line);
    if (f)
        fclose(f);
    CU_ASSERT_EQUAL(lines, 1);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The command line: restoring needs a configuration and takes no boot
 * images; a snapshot of another machine is refused with its offset. */
static void test_cli(void)
{
    char first[1024], args[1024];
    snprintf(args, sizeof(args), "--snapshot-load %s", saved_snapshot());
    CU_ASSERT_EQUAL(run_phone(args, first, sizeof(first)), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(first, "needs --config"));
    snprintf(args, sizeof(args), "--snapshot-load %s --kernel k --config x",
             saved_snapshot());
    CU_ASSERT_EQUAL(run_phone(args, first, sizeof(first)), 2);
    CU_ASSERT_PTR_NOT_NULL(strstr(first, "takes no --kernel"));
    snprintf(args, sizeof(args), "--snapshot-load %s --config x",
             tmp_path("none.snap"));
    CU_ASSERT_EQUAL(run_phone(args, first, sizeof(first)), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(first, "none.snap: cannot open"));
    /* The good snapshot is of a 16 MiB machine; the phone has 1 GiB. */
    snprintf(args, sizeof(args), "--snapshot-load %s --config x",
             saved_snapshot());
    CU_ASSERT_EQUAL(run_phone(args, first, sizeof(first)), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(first, "good.snap@"));
    CU_ASSERT_PTR_NOT_NULL(strstr(first, "bytes of RAM"));
}

int main(int argc, char **argv)
{
    if (argc > 1)
        phone_bin = argv[1];
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("snapshot", NULL, NULL);
    CU_add_test(s, "save, restore, continue identically", test_round_trip);
    CU_add_test(s, "bad snapshot files", test_bad_files);
    CU_add_test(s, "command line", test_cli);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures();
    CU_cleanup_registry();
    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", tmpdir);
    return failed ? 1 : 0;
}
