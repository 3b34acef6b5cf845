/* CUnit tests of the phone board: boot-image checks and command-line
 * errors, the virtual-time engine (event order, parallel cores, idle
 * skip), the GIC, the PL011, the virtio queue core and console ports,
 * the device tree, the guest clock and snapshots (a machine saved mid-run
 * and restored into a fresh one continues exactly as the original; every
 * kind of bad snapshot file gets one line with the file and byte offset).
 * argv[1] is the panlab-phone
 * binary for the command-line tests. Code run on the cores is given as
 * encodings with the assembly in comments. */
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

static const char *phone_bin = "../build/emu/panlab-phone";
static char tmpdir[] = "/tmp/test_board.XXXXXX";

static const char *tmp_path(const char *name)
{
    static char buf[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof(buf[k]), "%s/%s", tmpdir, name);
    return buf[k];
}

static const char *write_file(const char *name, const void *data, size_t n)
{
    const char *p = tmp_path(name);
    FILE *f = fopen(p, "wb");
    if (n)
        fwrite(data, 1, n, f);
    fclose(f);
    return p;
}

static const char *write_gz(const char *name, const char *text)
{
    const char *p = tmp_path(name);
    gzFile g = gzopen(p, "wb");
    gzwrite(g, text, (unsigned)strlen(text));
    gzclose(g);
    return p;
}

/* The gzip member of an empty file (gzip -n), as the compressed kernel a
 * zImage must carry. */
static const uint8_t empty_gz[] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3, 3, 0,
                                    0, 0, 0, 0, 0, 0, 0, 0 };
#define GZ_AT 0x100

/* A minimal zImage: the magic at 0x24, start 0 and end = size, an empty
 * gzip member at GZ_AT. */
static const char *make_zimage(const char *name, uint32_t size, uint32_t magic)
{
    uint8_t *b = calloc(1, size);
    uint32_t end = size;
    memcpy(b + 0x24, &magic, 4);
    memcpy(b + 0x2c, &end, 4);
    if (size >= GZ_AT + sizeof(empty_gz))
        memcpy(b + GZ_AT, empty_gz, sizeof(empty_gz));
    const char *p = write_file(name, b, size);
    free(b);
    return p;
}

/* ---- boot images ---- */

static void expect_err(int rc, const char *msg, const char *want)
{
    CU_ASSERT_EQUAL(rc, -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, want));
    CU_ASSERT_PTR_NULL(strchr(msg, '\n'));
}

static void test_zimage(void)
{
    struct pl_error err;
    uint8_t *d;
    size_t n;
    CU_ASSERT_EQUAL(loader_read_zimage(make_zimage("ok", 4096, 0x016f2818),
                                       &d, &n, &err), 0);
    CU_ASSERT_EQUAL(n, 4096);
    free(d);
    expect_err(loader_read_zimage(tmp_path("missing"), &d, &n, &err),
               err.msg, "missing: cannot open");
    expect_err(loader_read_zimage(write_file("empty", "", 0), &d, &n, &err), err.msg, "empty@0: empty file");
    expect_err(loader_read_zimage(make_zimage("magic", 4096, 0x12345678), &d,
                                  &n, &err), err.msg,
               "magic@36: bad magic 0x12345678");
    expect_err(loader_read_zimage(write_file("short", "abc", 3), &d, &n, &err), err.msg, "short@3: truncated");
    /* Header says 8192 bytes, the file has 4096. */
    const char *p = make_zimage("trunc", 4096, 0x016f2818);
    FILE *f = fopen(p, "r+b");
    uint32_t end = 8192;
    fseek(f, 0x2c, SEEK_SET);
    fwrite(&end, 4, 1, f);
    fclose(f);
    expect_err(loader_read_zimage(p, &d, &n, &err), err.msg,
               "trunc@4096: truncated");
}

static machine *machine_of(int ncores);
static int run_phone(const char *args, int *lines, char *first, size_t len);

/* A directory, an endless device or a file over the cap, for each boot
 * image, the System.map and a snapshot: one line, nothing read past the
 * cap. */
static void test_not_files(void)
{
    struct pl_error err;
    uint8_t *d;
    size_t n;
    expect_err(loader_read_zimage(tmpdir, &d, &n, &err), err.msg,
               "is a directory, expected a file");
    expect_err(loader_read_initrd(tmpdir, &d, &n, &err), err.msg,
               "is a directory, expected a file");
    expect_err(loader_read_dtb(tmpdir, &d, &n, &err), err.msg,
               "is a directory, expected a file");
    expect_err(loader_read_zimage("/dev/zero", &d, &n, &err), err.msg,
               "/dev/zero@67108864: more than the 67108864-byte cap for a zImage");
    expect_err(loader_read_dtb("/dev/zero", &d, &n, &err), err.msg,
               "/dev/zero@2097152: more than the 2097152-byte cap for a device tree blob");
    const char *big = write_file("big.cpio.gz", "", 0);
    CU_ASSERT_FATAL(truncate(big, (off_t)PL_CAP_INITRD_BYTES + 1) == 0);
    expect_err(loader_read_initrd(big, &d, &n, &err), err.msg,
               "big.cpio.gz: 536870913 bytes, more than the 536870912-byte cap for an initramfs");
    unlink(big);
    guest_clock g;
    phys_map *m = phys_map_new();
    expect_err(guest_clock_init(&g, m, "/dev/zero", 0xc0000000u, MACH_RAM, &err),
               err.msg, "/dev/zero@268435456: more than the 268435456-byte cap for a System.map");
    phys_map_free(m);
    machine *mach = machine_of(1);
    expect_err(snapshot_load(tmpdir, mach, NULL, &err), err.msg,
               "is a directory, expected a file");
    machine_free(mach);
}

/* A cpio newc archive of one file, "init", and the trailer. */
static size_t make_cpio(char *out, size_t cap, const char *data)
{
    static const char *const names[] = { "init", "TRAILER!!!" };
    size_t n = 0;
    for (int i = 0; i < 2; i++) {
        size_t size = i ? 0 : strlen(data), namesize = strlen(names[i]) + 1;
        n += (size_t)snprintf(out + n, cap - n, "070701%08x%08x%08x%08x%08x%08x%08zx"
                              "%08x%08x%08x%08x%08zx%08x%s", 0, 0100755, 0, 0, 1, 0,
                              size, 0, 0, 0, 0, namesize, 0, names[i]);
        n++;                                    /* the name's NUL */
        while (n % 4)
            out[n++] = 0;
        memcpy(out + n, i ? "" : data, size);
        n += size;
        while (n % 4)
            out[n++] = 0;
    }
    return n;
}

/* path's bytes, whole (malloc'd). */
static uint8_t *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    rewind(f);
    uint8_t *b = malloc(*n);
    CU_ASSERT_EQUAL(fread(b, 1, *n, f), *n);
    fclose(f);
    return b;
}

static void test_initrd(void)
{
    struct pl_error err;
    uint8_t *d;
    size_t n;
    char cpio[1024];
    size_t cpio_len = make_cpio(cpio, sizeof(cpio), "#!/bin/sh\necho hi\n");
    cpio[cpio_len] = 0;
    /* write_gz takes text: the archive has NULs, so gzip it from a file. */
    const char *plain = write_file("ok.cpio", cpio, cpio_len);
    CU_ASSERT_EQUAL(loader_read_initrd(plain, &d, &n, &err), 0);
    free(d);
    char cmd[600];
    snprintf(cmd, sizeof(cmd), "gzip -n -c %s > %s && cat %s %s > %s", plain,
             tmp_path("ok.cpio.gz"), tmp_path("ok.cpio.gz"), tmp_path("ok.cpio.gz"),
             tmp_path("two.cpio.gz"));
    CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
    CU_ASSERT_EQUAL(loader_read_initrd(tmp_path("ok.cpio.gz"), &d, &n, &err), 0);
    free(d);
    /* Two gzip'd archives one after the other, as panlab's test initramfs. */
    CU_ASSERT_EQUAL(loader_read_initrd(tmp_path("two.cpio.gz"), &d, &n, &err), 0);
    free(d);
    size_t gz_len;
    uint8_t *gz = slurp(tmp_path("ok.cpio.gz"), &gz_len);
    expect_err(loader_read_initrd(write_file("half.cpio.gz", gz, gz_len / 2), &d, &n, &err),
               err.msg, "half.cpio.gz@");
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, ": the gzip data at byte 0 is corrupt: truncated"));
    free(gz);
    expect_err(loader_read_initrd(write_file("cut.cpio", cpio, cpio_len - 8), &d, &n, &err),
               err.msg, "cut.cpio@136: truncated cpio entry");
    expect_err(loader_read_initrd(write_file("notrailer.cpio", cpio, 136), &d, &n, &err),
               err.msg, "notrailer.cpio@136: truncated cpio archive: no \"TRAILER!!!\"");
    expect_err(loader_read_initrd(write_gz("notcpio.gz", "hello world"), &d,
                                  &n, &err), err.msg,
               "notcpio.gz@0: no cpio header, expected the newc magic \"070701\", at byte 0 "
               "of the cpio data inflated");
    expect_err(loader_read_initrd(write_file("junk", "junkjunk", 8), &d, &n,
                                  &err), err.msg,
               "junk@0: neither gzip");
    static const uint8_t bad_gz[] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3,
                                      0xff, 0xff, 0xff, 0xff };
    expect_err(loader_read_initrd(write_file("bad.gz", bad_gz, sizeof(bad_gz)),
                                  &d, &n, &err), err.msg,
               "the gzip data at byte 0 is corrupt");
    expect_err(loader_read_dtb(write_file("bad.dtb", "notadtb!notadtb!notadtb!"
                                          "notadtb!notadtb!", 40), &d, &n, &err), err.msg,
               "bad.dtb@0: not a valid device tree blob");
}

/* A corrupt compressed kernel, and a zImage carrying none. */
static void test_kernel_payload(void)
{
    struct pl_error err;
    uint8_t *d;
    size_t n;
    static char text[8192];
    for (size_t i = 0; i < sizeof(text) - 1; i++)
        text[i] = (char)('a' + (i * 7919 % 26));
    size_t gz_len;
    uint8_t *gz = slurp(write_gz("piggy.gz", text), &gz_len);
    uint32_t size = GZ_AT + (uint32_t)gz_len;
    uint8_t *img = calloc(1, size);
    uint32_t magic = 0x016f2818;
    memcpy(img + 0x24, &magic, 4);
    memcpy(img + 0x2c, &size, 4);
    memcpy(img + GZ_AT, gz, gz_len);
    CU_ASSERT_EQUAL(loader_read_zimage(write_file("good.zimage", img, size), &d, &n, &err), 0);
    free(d);
    img[GZ_AT + gz_len - 6] ^= 0xff;           /* a byte of the CRC-32 */
    expect_err(loader_read_zimage(write_file("crc.zimage", img, size), &d, &n, &err),
               err.msg, "crc.zimage@");
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, ": the compressed kernel (gzip at byte 256) is "
                                           "corrupt: incorrect data check"));
    memset(img + GZ_AT, 0, gz_len);
    expect_err(loader_read_zimage(write_file("nogz.zimage", img, size), &d, &n, &err),
               err.msg, "nogz.zimage@48: no gzip-compressed kernel in the zImage");
    free(img);
    free(gz);
}

/* The phone's device tree description, 1 GiB and two cores. */
static fdt_desc phone_fdt_desc(void)
{
    return (fdt_desc){
        .ram_addr = MACH_RAM, .ram_bytes = 1u << 30, .ncores = 2,
        .gic_dist = MACH_GIC_DIST, .gic_cpu = MACH_GIC_CPU,
        .uart = MACH_UART, .uart_spi = 1, .nvirtio = 4,
        .virtio_base = MACH_VIRTIO_BASE, .virtio_spi_base = 16,
        .psci_method = "hvc", .bootargs = "console=ttyAMA0",
    };
}

/* A device tree without the nodes Linux needs. */
static void test_dtb_nodes(void)
{
    static uint8_t buf[0x10000];
    struct pl_error err;
    uint8_t *d;
    size_t n;
    fdt_desc desc = phone_fdt_desc();
    int len = fdt_generate(buf, sizeof(buf), &desc, &err);
    CU_ASSERT_FATAL(len > 0);
    CU_ASSERT_EQUAL(loader_read_dtb(write_file("ok.dtb", buf, (size_t)len), &d, &n, &err), 0);
    free(d);
    int mem = fdt_node_offset_by_prop_value(buf, -1, "device_type", "memory", 7);
    CU_ASSERT_FATAL(mem >= 0);
    CU_ASSERT_EQUAL_FATAL(fdt_del_node(buf, mem), 0);
    char at[64];
    snprintf(at, sizeof(at), "nomem.dtb@%u: no memory node", fdt_off_dt_struct(buf));
    expect_err(loader_read_dtb(write_file("nomem.dtb", buf, fdt_totalsize(buf)), &d, &n,
                               &err), err.msg, at);
    len = fdt_generate(buf, sizeof(buf), &desc, &err);
    CU_ASSERT_EQUAL_FATAL(fdt_del_node(buf, fdt_path_offset(buf, "/cpus")), 0);
    expect_err(loader_read_dtb(write_file("nocpus.dtb", buf, fdt_totalsize(buf)), &d, &n,
                               &err), err.msg, "nocpus.dtb@");
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no /cpus node with a cpu"));
}

/* A device tree whose memory the board does not have is refused before
 * boot, at the memory node's reg: the guest would hang using it. */
static void test_dtb_memory(void)
{
    static uint8_t buf[0x10000];
    struct pl_error err;
    machine *m = machine_of(2);             /* 16 MiB at MACH_RAM */
    fdt_desc desc = phone_fdt_desc();
    desc.ram_bytes = 16u << 20;
    CU_ASSERT_FATAL(fdt_generate(buf, sizeof(buf), &desc, &err) > 0);
    CU_ASSERT_EQUAL(machine_check_dtb(m, "ok.dtb", buf, &err), 0);
    desc.ram_bytes = 1u << 30;
    CU_ASSERT_FATAL(fdt_generate(buf, sizeof(buf), &desc, &err) > 0);
    expect_err(machine_check_dtb(m, "big.dtb", buf, &err), err.msg,
               "memory 0x40000000..0x7fffffff is not RAM on this board, expected ranges "
               "within 0x40000000..0x40ffffff");
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "big.dtb@"));
    machine_free(m);
    /* The phone from the command line: 1 GiB at MACH_RAM, none at 2 GiB. */
    int lines;
    char first[1024], args[1024];
    desc.ram_addr = 0x80000000u;
    int len = fdt_generate(buf, sizeof(buf), &desc, &err);
    CU_ASSERT_FATAL(len > 0);
    snprintf(args, sizeof(args), "--kernel %s --dtb %s", make_zimage("k", 4096, 0x016f2818),
             write_file("high.dtb", buf, (size_t)len));
    CU_ASSERT_EQUAL(run_phone(args, &lines, first, sizeof(first)), 1);
    CU_ASSERT_EQUAL(lines, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(first, "high.dtb@"));
    CU_ASSERT_PTR_NOT_NULL(strstr(first, ": memory 0x80000000..0xbfffffff is not RAM on this "
                                         "board, expected ranges within "
                                         "0x40000000..0x7fffffff"));
}

/* Runs panlab-phone with args and its stdout into out; returns its exit
 * status and the number of lines it printed on stderr, whose first line
 * goes to first. */
static int run_phone_to(const char *args, const char *out, int *lines, char *first,
                        size_t len)
{
    char cmd[2048];
    const char *errf = tmp_path("stderr");
    snprintf(cmd, sizeof(cmd), "%s %s 2>%s >%s", phone_bin, args, errf, out);
    int st = system(cmd);
    FILE *f = fopen(errf, "r");
    char line[1024];
    *lines = 0;
    first[0] = 0;
    while (f && fgets(line, sizeof(line), f)) {
        if (!(*lines)++)
            snprintf(first, len, "%s", line);
    }
    if (f)
        fclose(f);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int run_phone(const char *args, int *lines, char *first, size_t len)
{
    return run_phone_to(args, "/dev/null", lines, first, len);
}

static void test_cli_errors(void)
{
    int lines;
    char first[1024], args[1024], k[256];
    snprintf(k, sizeof(k), "%s", make_zimage("k", 4096, 0x016f2818));
    CU_ASSERT_NOT_EQUAL(run_phone("--kernel x --bogus 1", &lines, first,
                                  sizeof(first)), 0);
    CU_ASSERT_EQUAL(lines, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(first, "unknown option '--bogus'"));
    CU_ASSERT_NOT_EQUAL(run_phone("", &lines, first, sizeof(first)), 0);
    CU_ASSERT_EQUAL(lines, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(first, "--kernel is required"));
    CU_ASSERT_NOT_EQUAL(run_phone("--kernel", &lines, first, sizeof(first)), 0);
    CU_ASSERT_EQUAL(lines, 1);
    snprintf(args, sizeof(args), "--kernel %s", make_zimage("bad", 64, 7));
    CU_ASSERT_NOT_EQUAL(run_phone(args, &lines, first, sizeof(first)), 0);
    CU_ASSERT_EQUAL(lines, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(first, "bad@36: bad magic"));
    snprintf(args, sizeof(args), "--kernel %s --initrd %s", k,
             write_file("rd", "garbage!", 8));
    CU_ASSERT_NOT_EQUAL(run_phone(args, &lines, first, sizeof(first)), 0);
    CU_ASSERT_EQUAL(lines, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(first, "rd@0: neither gzip"));
    snprintf(args, sizeof(args), "--kernel %s --max-virtual-s soon", k);
    CU_ASSERT_NOT_EQUAL(run_phone(args, &lines, first, sizeof(first)), 0);
    CU_ASSERT_EQUAL(lines, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(first, "--max-virtual-s takes a whole number"));
    /* An unwritable snapshot path and a missing --content-dir end the run
     * before the guest boots. */
    snprintf(args, sizeof(args), "--kernel %s --snapshot-save /nonexistent/dir/snap.bin", k);
    CU_ASSERT_EQUAL(run_phone(args, &lines, first, sizeof(first)), 1);
    CU_ASSERT_EQUAL(lines, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(first, "/nonexistent/dir/snap.bin: cannot create"));
    snprintf(args, sizeof(args), "--kernel %s --net user --content-dir /nonexistent/dir", k);
    CU_ASSERT_EQUAL(run_phone(args, &lines, first, sizeof(first)), 1);
    CU_ASSERT_EQUAL(lines, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(first, "/nonexistent/dir: --content-dir: No such file or directory, expected a directory"));
    /* Numbers are digits only: no sign, no leading space. */
    static const char *const not_numbers[] = { "+5", "' 5'", "-0", "5x", "''" };
    for (size_t i = 0; i < sizeof(not_numbers) / sizeof(not_numbers[0]); i++) {
        snprintf(args, sizeof(args), "--kernel %s --cpu-mhz %s", k, not_numbers[i]);
        CU_ASSERT_EQUAL(run_phone(args, &lines, first, sizeof(first)), 2);
        CU_ASSERT_EQUAL(lines, 1);
        CU_ASSERT_PTR_NOT_NULL(strstr(first, "--cpu-mhz takes a whole number"));
    }
    snprintf(args, sizeof(args), "--kernel %s --replay %s", k,
             write_file("s.rply", "tap 1 2\n", 8));
    CU_ASSERT_NOT_EQUAL(run_phone(args, &lines, first, sizeof(first)), 0);
    CU_ASSERT_EQUAL(lines, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(first, "--replay needs --ground-truth"));
    /* A System.map of another build (here: a kernel image without the
     * banner at its linux_banner) is refused before the guest boots. */
    static const char other_map[] = "c0008000 T _text\nc0800010 D linux_banner\n"
                                    "c0902000 d vdso_data_store\n";
    snprintf(args, sizeof(args), "--kernel %s --ground-truth %s --system-map %s", k,
             tmp_path("map.gt"), write_file("other.map", other_map, sizeof(other_map) - 1));
    CU_ASSERT_EQUAL(run_phone(args, &lines, first, sizeof(first)), 1);
    CU_ASSERT_EQUAL(lines, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(first, "other.map: linux_banner at 0xc0800010 (byte 8355856 "
                                         "of the kernel image) does not hold"));
    /* A script longer than the run is refused before the guest boots. */
    const char *script = write_file("long.rply", "wait 2s\ntap 1 2\n", 15);
    snprintf(args, sizeof(args), "--kernel %s --replay %s --ground-truth %s "
             "--max-virtual-s 1", k, script, tmp_path("long.gt"));
    CU_ASSERT_EQUAL(run_phone(args, &lines, first, sizeof(first)), 1);
    CU_ASSERT_EQUAL(lines, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(first, "long.rply: the script lasts 2050ms, longer than "
                                         "--max-virtual-s 1"));
    /* --help on a full disk. */
    CU_ASSERT_EQUAL(run_phone_to("--help", "/dev/full", &lines, first, sizeof(first)), 1);
    CU_ASSERT_EQUAL(lines, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(first, "panlab-phone: stdout: cannot write: "));
}

/* A zImage-shaped bare-metal program: code at 0, the zImage header at
 * 0x24..0x2f, a string at 0x40, an empty gzip member at 0x80. */
static const char *make_program(const char *name, const uint32_t *code,
                                size_t nwords, const char *text)
{
    uint8_t b[0x80 + sizeof(empty_gz)] = { 0 };
    memcpy(b + 0x80, empty_gz, sizeof(empty_gz));
    uint32_t magic = 0x016f2818, end = sizeof(b);
    memcpy(b, code, nwords * 4);
    memcpy(b + 0x24, &magic, 4);
    memcpy(b + 0x2c, &end, 4);
    if (text)
        memcpy(b + 0x40, text, strlen(text) + 1);
    return write_file(name, b, sizeof(b));
}

/* Prints the string at 0x40 on the PL011. */
static const uint32_t print_loop[] = {
    0xe3001000,     /* movw r1, #0 */
    0xe3401900,     /* movt r1, #0x0900: the PL011 */
    0xe28f2030,     /* add r2, pc, #0x30: the string at 0x40 */
    0xe4d23001,     /* 1: ldrb r3, [r2], #1 */
    0xe3530000,     /* cmp r3, #0 */
    0x15813000,     /* strne r3, [r1] */
    0x1afffffb,     /* bne 1b */
};

/* A program that prints text, then spins or powers off (PSCI SYSTEM_OFF
 * over HVC, at 0x30 past the zImage header at 0x24..0x2f). */
static const char *make_printer(const char *name, const char *text, int power_off)
{
    uint32_t code[16] = { 0 };
    memcpy(code, print_loop, sizeof(print_loop));
    code[7] = power_off ? 0xea000003 : 0xeafffffe;      /* b 0x30 : b . */
    code[12] = 0xe3000008;      /* movw r0, #8 */
    code[13] = 0xe3480400;      /* movt r0, #0x8400: SYSTEM_OFF */
    code[14] = 0xe1400070;      /* hvc #0 */
    code[15] = 0xeafffffe;      /* b . */
    return make_program(name, code, power_off ? 16 : 8, text);
}

/* Outputs that cannot be written: a console on a full disk (to a file or
 * to stdout) fails the run with the reason, and a --screenshot path that
 * cannot be created is found before the guest runs. */
static void test_output_failures(void)
{
    int lines;
    char first[1024], args[1024], k[256];
    snprintf(k, sizeof(k), "%s", make_printer("hello", "hello\n", 1));
    snprintf(args, sizeof(args), "--kernel %s --cpu-mhz 10", k);
    CU_ASSERT_EQUAL(run_phone(args, &lines, first, sizeof(first)), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(first, "guest powered off"));
    snprintf(args, sizeof(args), "--kernel %s --cpu-mhz 10 --console /dev/full", k);
    CU_ASSERT_EQUAL(run_phone(args, &lines, first, sizeof(first)), 1);
    CU_ASSERT_EQUAL(lines, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(first, "panlab-phone: /dev/full: cannot write the console: "
                                         "No space left on device"));
    snprintf(args, sizeof(args), "--kernel %s --cpu-mhz 10", k);
    CU_ASSERT_EQUAL(run_phone_to(args, "/dev/full", &lines, first, sizeof(first)), 1);
    CU_ASSERT_EQUAL(lines, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(first, "panlab-phone: stdout: cannot write the console: "
                                         "No space left on device"));
    snprintf(args, sizeof(args), "--kernel %s --cpu-mhz 10 --screenshot /nonexistent/shot.png",
             k);
    CU_ASSERT_EQUAL(run_phone(args, &lines, first, sizeof(first)), 1);
    CU_ASSERT_EQUAL(lines, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(first, "/nonexistent/shot.png: --screenshot: cannot create"));
}

/* A guest that spins without output is stopped as hung; one that prints
 * a kernel panic is stopped as panicked. */
static void test_hang_and_panic(void)
{
    int lines;
    char first[1024], args[1024];
    static const uint32_t spin[] = { 0xeafffffe };      /* b . */
    snprintf(args, sizeof(args), "--kernel %s --cpu-mhz 10 --hang-s 1",
             make_program("spin", spin, 1, NULL));
    CU_ASSERT_EQUAL(run_phone(args, &lines, first, sizeof(first)), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(first, "no progress for 1 virtual seconds"));
    /* A jump to unmapped 0 with the vectors at 0: one Prefetch Abort after
     * another. --hang-s would need 1000 virtual seconds; the host-time
     * guard stops it after one CPU second. */
    static const uint32_t to_zero[] = { 0xe3a0f000 };   /* mov pc, #0 */
    snprintf(args, sizeof(args), "--kernel %s --hang-s 1000 --hang-host-s 1",
             make_program("vectors", to_zero, 1, NULL));
    CU_ASSERT_EQUAL(run_phone(args, &lines, first, sizeof(first)), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(first, "no progress for 1 s of host CPU time"));
    CU_ASSERT_PTR_NOT_NULL(strstr(first, "exception vectors"));
    snprintf(args, sizeof(args), "--kernel %s --cpu-mhz 10",
             make_printer("panic", "Kernel panic - not syncing: test\n", 0));
    CU_ASSERT_EQUAL(run_phone(args, &lines, first, sizeof(first)), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(first, "guest kernel panic at"));
    CU_ASSERT_PTR_NOT_NULL(strstr(first, "not syncing: test"));
    /* A guest that hangs once /init runs (booted `quiet`: only /init's own
     * line shows it) is not blamed on the kernel; the line quotes the
     * console's last line. */
    snprintf(args, sizeof(args), "--kernel %s --cpu-mhz 10 --hang-s 1",
             make_printer("late", "panlab-init: running workload x\n", 0));
    CU_ASSERT_EQUAL(run_phone(args, &lines, first, sizeof(first)), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(first, "no progress for 1 virtual seconds"));
    CU_ASSERT_PTR_NULL(strstr(first, "before /init"));
    CU_ASSERT_PTR_NOT_NULL(strstr(first, "; /init had started (at 0.000 s); the console's "
                                         "last line, at 0.000 s: \"panlab-init: running "
                                         "workload x\""));
}

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
    vt_schedule(t, &e[2], 300);     /* same time as e[0]: fires after it */
    vt_schedule(t, &e[3], 200);
    vt_schedule(t, &e[1], 400);     /* moved */
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

static void discard(void *opaque, const uint8_t *buf, size_t n)
{
    (void)opaque;
    (void)buf;
    (void)n;
}

static machine *machine_of(int ncores)
{
    machine_config cfg;
    machine_config_default(&cfg);
    cfg.ncores = ncores;
    cfg.ram_bytes = 16u << 20;
    cfg.console = (byte_sink){ discard, NULL };
    return board_machine(&cfg);
}

static machine *small_machine(void)
{
    return machine_of(2);
}

/* Loads a loop of `iters` iterations ending in WFI at RAM + 0x1000. */
static void load_loop(machine *m, uint32_t iters)
{
    uint32_t code[] = {
        0xe3000000 | (iters & 0xf000) << 4 | (iters & 0xfff), /* movw r0 */
        0xe3400000 | (iters >> 28) << 16 | (iters >> 16 & 0xfff), /* movt r0 */
        0xe2500001,     /* loop: subs r0, r0, #1 */
        0x1afffffd,     /* bne loop */
        0xe320f003,     /* wfi */
        0xeafffffd,     /* b wfi */
    };
    memcpy(phys_ram_ptr(machine_phys(m), MACH_RAM + 0x1000, sizeof(code)),
           code, sizeof(code));
}

/* Virtual time at which every powered core has halted. */
static uint64_t run_until_halted(machine *m)
{
    vt_engine *t = machine_engine(m);
    arm_sys *s = machine_cpus(m);
    for (;;) {
        int busy = 0;
        for (int i = 0; i < arm_sys_ncores(s); i++)
            busy |= arm_is_powered(arm_sys_cpu(s, i)) &&
                    !arm_is_halted(arm_sys_cpu(s, i));
        if (!busy)
            return vt_now_ns(t);
        vt_run(t, vt_now_ns(t) + 10000);
    }
}

static uint64_t loop_time(int ncores, uint64_t cpu_hz)
{
    machine *m = small_machine();
    vt_set_cpu_hz(machine_engine(m), cpu_hz);
    load_loop(m, 300000);           /* 600k instructions: 0.5 ms */
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
        0xe3000003,     /* movw r0, #3 */
        0xe3480400,     /* movt r0, #0x8400: CPU_ON */
        0xe3a01001,     /* mov r1, #1: target MPIDR */
        0xe3022000,     /* movw r2, #0x2000 */
        0xe3442000,     /* movt r2, #0x4000: entry */
        0xe3a03055,     /* mov r3, #0x55: context id */
        0xe1400070,     /* hvc #0 */
        0xe1a04000,     /* mov r4, r0 */
        0xe320f003,     /* wfi */
        0xeafffffd,     /* b wfi */
    };
    static const uint32_t second[] = {
        0xe1a05000,     /* mov r5, r0 */
        0xe3000002,     /* movw r0, #2 */
        0xe3480400,     /* movt r0, #0x8400: CPU_OFF */
        0xe1400070,     /* hvc #0 */
        0xeafffffe,     /* b . */
    };
    phys_map *p = machine_phys(m);
    memcpy(phys_ram_ptr(p, MACH_RAM + 0x1000, sizeof(boot)), boot, sizeof(boot));
    memcpy(phys_ram_ptr(p, MACH_RAM + 0x2000, sizeof(second)), second, sizeof(second));
    arm_cpu *c0 = arm_sys_cpu(machine_cpus(m), 0), *c1 = arm_sys_cpu(machine_cpus(m), 1);
    arm_set_pc(c0, MACH_RAM + 0x1000);
    arm_set_powered(c0, 1);
    vt_run(machine_engine(m), 1000000);
    CU_ASSERT_EQUAL(arm_get_reg(c0, 4), 0);        /* PSCI SUCCESS */
    CU_ASSERT_EQUAL(arm_get_reg(c1, 5), 0x55);     /* context id in r0 */
    CU_ASSERT_FALSE(arm_is_powered(c1));
    CU_ASSERT(arm_insn_count(c1) >= 4);
    machine_free(m);
}

/* Runs sender on core 0 and receiver on core 1 until both halt. Each reads
 * the counter (core 0 into r5, core 1 into r0) at the two ends of a
 * cross-core effect; returns core 1's count minus core 0's, in ticks, and
 * core 1's r3. */
static int64_t cross_core_lag(int policy, const uint32_t *sender, size_t sender_bytes,
                              const uint32_t *receiver, size_t receiver_bytes,
                              uint32_t *core1_r3)
{
    machine_config cfg;
    machine_config_default(&cfg);
    cfg.ncores = 2;
    cfg.ram_bytes = 16u << 20;
    cfg.console = (byte_sink){ discard, NULL };
    cfg.quantum_policy = policy;
    machine *m = board_machine(&cfg);
    phys_map *p = machine_phys(m);
    memcpy(phys_ram_ptr(p, MACH_RAM + 0x1000, sender_bytes), sender, sender_bytes);
    memcpy(phys_ram_ptr(p, MACH_RAM + 0x2000, receiver_bytes), receiver, receiver_bytes);
    arm_cpu *c0 = arm_sys_cpu(machine_cpus(m), 0), *c1 = arm_sys_cpu(machine_cpus(m), 1);
    arm_set_pc(c0, MACH_RAM + 0x1000);
    arm_set_pc(c1, MACH_RAM + 0x2000);
    arm_set_powered(c0, 1);
    arm_set_powered(c1, 1);
    run_until_halted(m);
    *core1_r3 = arm_get_reg(c1, 3);
    int64_t lag = (int64_t)arm_get_reg(c1, 0) - (int64_t)arm_get_reg(c0, 5);
    machine_free(m);
    return lag;
}

/* Core 0 computes for 517 us, reads the counter into r5 and sends SGI 1 to
 * core 1, which enabled its GIC interface and waits in WFI (IRQs masked:
 * the pending interrupt only wakes it); woken, core 1 reads the counter into
 * r0 and acknowledges. Returns core 1's counter minus core 0's, in ticks. */
static int64_t sgi_wake_lag(int policy)
{
    static const uint32_t sender[] = {
        0xe30b0af0,     /* movw r0, #0xbaf0 */
        0xe3400004,     /* movt r0, #4: 310000 iterations */
        0xe2500001,     /* 1: subs r0, r0, #1 */
        0x1afffffd,     /* bne 1b */
        0xec565f0e,     /* mrrc p15, 0, r5, r6, c14: CNTPCT */
        0xe3002000,     /* movw r2, #0 */
        0xe3402800,     /* movt r2, #0x800: GICD */
        0xe3003001,     /* movw r3, #1: SGI 1 */
        0xe3403002,     /* movt r3, #2: to cpu 1 */
        0xe5823f00,     /* str r3, [r2, #0xf00]: GICD_SGIR */
        0xe320f003,     /* 2: wfi */
        0xeafffffd,     /* b 2b */
    };
    static const uint32_t receiver[] = {
        0xe3002000,     /* movw r2, #0 */
        0xe3402800,     /* movt r2, #0x800: GICD */
        0xe3a03001,     /* mov r3, #1 */
        0xe5823000,     /* str r3, [r2]: GICD_CTLR */
        0xe3e03000,     /* mvn r3, #0 */
        0xe5823100,     /* str r3, [r2, #0x100]: its SGIs and PPIs on */
        0xe3004000,     /* movw r4, #0 */
        0xe3404801,     /* movt r4, #0x801: GICC */
        0xe3a03001,     /* mov r3, #1 */
        0xe5843000,     /* str r3, [r4]: GICC_CTLR */
        0xe3a030f0,     /* mov r3, #0xf0 */
        0xe5843004,     /* str r3, [r4, #4]: GICC_PMR */
        0xe320f003,     /* wfi */
        0xec510f0e,     /* mrrc p15, 0, r0, r1, c14: CNTPCT */
        0xe594300c,     /* ldr r3, [r4, #0xc]: GICC_IAR */
        0xe5843010,     /* str r3, [r4, #0x10]: GICC_EOIR */
        0xe320f003,     /* 3: wfi */
        0xeafffffd,     /* b 3b */
    };
    uint32_t irq;
    int64_t lag = cross_core_lag(policy, sender, sizeof(sender), receiver, sizeof(receiver), &irq);
    CU_ASSERT_EQUAL(irq, 1);    /* it took SGI 1 */
    return lag;
}

/* Cross-core causality (time.h): the SGI sent at 517 us wakes core 1 at the
 * sender's time (within a tick: the receiver reads the counter two
 * instructions later), not at the start of the window core 0 sent it in, as
 * the fixed quantum does (6.7 us early here). */
static void test_sgi_at_sender_time(void)
{
    int64_t causal = sgi_wake_lag(VT_CAUSAL), fixed = sgi_wake_lag(VT_FIXED_QUANTUM);
    CU_ASSERT(causal >= 0 && causal <= 2);
    CU_ASSERT(fixed < 0);
}

/* Core 0 computes for 517 us, reads the counter into r5 and sets a flag in
 * memory, with a release store (exclusive = 0: DMB, STR, as spin_unlock) or
 * an atomic one (1: LDREX/STREX, as llist_add); core 1 spins on the flag
 * with plain loads (never halted, so no interrupt or event is involved) and
 * reads the counter into r0 when it sees it. */
static int64_t handoff_lag(int policy, int exclusive)
{
    static const uint32_t release[] = { 0xf57ff05b /* dmb ish */, 0xe5873000 /* str r3, [r7] */ };
    static const uint32_t atomic[] = {
        0xe1971f9f,     /* 1: ldrex r1, [r7] */
        0xe1872f93,     /* strex r2, r3, [r7] */
        0xe3520000,     /* cmp r2, #0 */
        0x1afffffb,     /* bne 1b */
    };
    uint32_t sender[16] = {
        0xe30b0af0,     /* movw r0, #0xbaf0 */
        0xe3400004,     /* movt r0, #4: 310000 iterations */
        0xe2500001,     /* 1: subs r0, r0, #1 */
        0x1afffffd,     /* bne 1b */
        0xec565f0e,     /* mrrc p15, 0, r5, r6, c14: CNTPCT */
        0xe3037000,     /* movw r7, #0x3000 */
        0xe3447000,     /* movt r7, #0x4000: the flag */
        0xe3a03001,     /* mov r3, #1 */
    };
    static const uint32_t receiver[] = {
        0xe3037000,     /* movw r7, #0x3000 */
        0xe3447000,     /* movt r7, #0x4000 */
        0xe5973000,     /* 1: ldr r3, [r7] */
        0xe3530000,     /* cmp r3, #0 */
        0x0afffffc,     /* beq 1b */
        0xec510f0e,     /* mrrc p15, 0, r0, r1, c14: CNTPCT */
        0xe320f003,     /* 2: wfi */
        0xeafffffd,     /* b 2b */
    };
    size_t n = 8;
    const uint32_t *store = exclusive ? atomic : release;
    size_t nstore = exclusive ? 4 : 2;
    memcpy(&sender[n], store, nstore * sizeof(*store));
    n += nstore;
    sender[n++] = 0xe320f003;   /* 2: wfi */
    sender[n++] = 0xeafffffd;   /* b 2b */
    uint32_t seen;
    int64_t lag = cross_core_lag(policy, sender, n * sizeof(*sender), receiver,
                                 sizeof(receiver), &seen);
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

/* With every core in WFI and nothing queued, time jumps to the end. */
static void test_idle_skip(void)
{
    machine *m = small_machine();
    load_loop(m, 1);
    arm_set_pc(arm_sys_cpu(machine_cpus(m), 0), MACH_RAM + 0x1000);
    arm_set_powered(arm_sys_cpu(machine_cpus(m), 0), 1);
    CU_ASSERT_EQUAL(vt_run(machine_engine(m), 5 * VT_NS_PER_S), 5 * VT_NS_PER_S);
    CU_ASSERT(arm_is_halted(arm_sys_cpu(machine_cpus(m), 0)));
    CU_ASSERT(arm_insn_count(arm_sys_cpu(machine_cpus(m), 0)) < 10);
    machine_free(m);
}

/* ---- GIC ---- */

static int cpu_level[2], who_cpu;

static void cpu_line(void *opaque, int n, int level)
{
    (void)opaque;
    cpu_level[n] = level;
}

static int who(void *opaque)
{
    (void)opaque;
    return who_cpu;
}

static gic *gic_up(void)
{
    irq_line outs[2] = { { cpu_line, NULL, 0 }, { cpu_line, NULL, 1 } };
    struct pl_error err;
    gic *g = gic_new(2, outs, (cpu_id_fn){ who, NULL }, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    cpu_level[0] = cpu_level[1] = 0;
    gic_dist_write(g, 0, 0x000, 1);
    for (int c = 0; c < 2; c++) {
        gic_cpu_write(g, c, 0x000, 1);
        gic_cpu_write(g, c, 0x004, 0xf0);
        gic_dist_write(g, c, 0x100, 0xffffffff);   /* SGIs, PPIs on */
    }
    return g;
}

/* Constructors given counts beyond the device return an error, and
 * machine_new passes it on; nothing exits. */
static void test_bad_counts(void)
{
    struct pl_error err;
    irq_line outs[GIC_MAX_CPUS + 1] = { { cpu_line, NULL, 0 } };
    CU_ASSERT_PTR_NULL(gic_new(0, outs, (cpu_id_fn){ who, NULL }, &err));
    CU_ASSERT_STRING_EQUAL(err.msg, "gic: 0 cpus, expected 1..8");
    CU_ASSERT_PTR_NULL(
        gic_new(GIC_MAX_CPUS + 1, outs, (cpu_id_fn){ who, NULL }, &err));
    CU_ASSERT_STRING_EQUAL(err.msg, "gic: 9 cpus, expected 1..8");

    phys_map *map = phys_map_new();
    CU_ASSERT_PTR_NULL(virtio_console_new(map, (irq_line){ cpu_line, NULL, 0 },
                                          VCON_MAX_PORTS + 1, NULL, NULL,
                                          &err));
    CU_ASSERT_STRING_EQUAL(err.msg, "virtio-console: 7 ports, at most 6");
    phys_map_free(map);

    machine_config cfg;
    machine_config_default(&cfg);
    cfg.ram_bytes = 16u << 20;
    cfg.console = (byte_sink){ discard, NULL };
    cfg.nports = VCON_MAX_PORTS + 1;
    CU_ASSERT_PTR_NULL(machine_new(&cfg, &err));
    CU_ASSERT_STRING_EQUAL(err.msg, "virtio-console: 7 ports, at most 6");
}

static void test_gic_spi(void)
{
    gic *g = gic_up();
    CU_ASSERT_EQUAL(gic_dist_read(g, 0, 0x004) & 0x1f, GIC_NR_IRQS / 32 - 1);
    CU_ASSERT_EQUAL(gic_dist_read(g, 0, 0x004) >> 5 & 7, 1);
    irq_line spi = gic_spi_line(g, 5);      /* ID 37 */
    gic_dist_write(g, 0, 0x820 + 4, 0x02 << 8);     /* ITARGETSR: cpu1 */
    gic_dist_write(g, 0, 0x404 + 32, 0xa0 << 8);    /* priority 0xa0 */
    irq_set(&spi, 1);
    CU_ASSERT_EQUAL(cpu_level[1], 0);       /* not enabled yet */
    gic_dist_write(g, 0, 0x104, 1u << 5);
    CU_ASSERT_EQUAL(cpu_level[1], 1);
    CU_ASSERT_EQUAL(cpu_level[0], 0);
    CU_ASSERT_EQUAL(gic_dist_read(g, 0, 0x204) >> 5 & 1, 1);   /* pending */
    CU_ASSERT_EQUAL(gic_cpu_read(g, 1, 0x00c), 37);            /* IAR */
    CU_ASSERT_EQUAL(cpu_level[1], 0);       /* active: not signalled */
    CU_ASSERT_EQUAL(gic_cpu_read(g, 1, 0x014), 0xa0);          /* RPR */
    CU_ASSERT_EQUAL(gic_cpu_read(g, 1, 0x00c), 1023);          /* spurious */
    gic_cpu_write(g, 1, 0x010, 37);         /* EOI, line still high */
    CU_ASSERT_EQUAL(cpu_level[1], 1);
    irq_set(&spi, 0);                       /* level: no longer pending */
    CU_ASSERT_EQUAL(cpu_level[1], 0);
    /* Masked by priority. */
    gic_cpu_write(g, 1, 0x004, 0x80);
    irq_set(&spi, 1);
    CU_ASSERT_EQUAL(cpu_level[1], 0);
    gic_cpu_write(g, 1, 0x004, 0xf0);
    CU_ASSERT_EQUAL(cpu_level[1], 1);
    gic_free(g);
}

static void test_gic_sgi_ppi(void)
{
    gic *g = gic_up();
    gic_dist_write(g, 0, 0xf00, 0x2u << 16 | 3);    /* SGI 3 to cpu1 */
    CU_ASSERT_EQUAL(cpu_level[1], 1);
    CU_ASSERT_EQUAL(cpu_level[0], 0);
    CU_ASSERT_EQUAL(gic_cpu_read(g, 1, 0x00c), 3);  /* source cpu0 */
    gic_cpu_write(g, 1, 0x010, 3);
    who_cpu = 1;                            /* cpu1 sends to all others */
    gic_dist_write(g, 1, 0xf00, 1u << 24 | 7);
    CU_ASSERT_EQUAL(cpu_level[0], 1);
    CU_ASSERT_EQUAL(gic_cpu_read(g, 0, 0x00c), 1u << 10 | 7);
    gic_cpu_write(g, 0, 0x010, 1u << 10 | 7);
    CU_ASSERT_EQUAL(cpu_level[0], 0);
    who_cpu = 0;
    /* PPIs are per core: timer PPI 11 (ID 27) on cpu0 only. */
    irq_line ppi = gic_ppi_line(g, 0, 11);
    irq_set(&ppi, 1);
    CU_ASSERT_EQUAL(cpu_level[0], 1);
    CU_ASSERT_EQUAL(cpu_level[1], 0);
    CU_ASSERT_EQUAL(gic_cpu_read(g, 0, 0x018), 27);  /* HPPIR */
    /* Higher priority (lower value) wins over the pending PPI. */
    gic_dist_write(g, 0, 0x41c, 0x40u << 24);        /* ID 31 */
    gic_dist_write(g, 0, 0x418, 0x80u << 24);        /* ID 27 */
    irq_line ppi15 = gic_ppi_line(g, 0, 15);
    irq_set(&ppi15, 1);
    CU_ASSERT_EQUAL(gic_cpu_read(g, 0, 0x00c), 31);
    gic_free(g);
}

/* ---- PL011 ---- */

static char uart_out[64];
static size_t uart_len;
static int uart_irq;

static void uart_put(void *opaque, const uint8_t *buf, size_t n)
{
    (void)opaque;
    memcpy(uart_out + uart_len, buf, n);
    uart_len += n;
}

static void uart_line(void *opaque, int n, int level)
{
    (void)opaque;
    (void)n;
    uart_irq = level;
}

static void test_pl011(void)
{
    pl011 *u = pl011_new((irq_line){ uart_line, NULL, 0 },
                         (byte_sink){ uart_put, NULL });
    uart_len = 0;
    CU_ASSERT_EQUAL(pl011_read(u, 0xfe0, 2), 0x11);
    CU_ASSERT_EQUAL(pl011_read(u, 0xff0, 2), 0x0d);
    CU_ASSERT_EQUAL(pl011_read(u, 0xffc, 2), 0xb1);
    CU_ASSERT(pl011_read(u, 0x18, 2) & 0x80);     /* FR.TXFE */
    pl011_write(u, 0x00, 'h', 2);
    pl011_write(u, 0x00, 'i', 2);
    CU_ASSERT_EQUAL(uart_len, 2);
    CU_ASSERT_EQUAL(memcmp(uart_out, "hi", 2), 0);
    CU_ASSERT_EQUAL(pl011_read(u, 0x3c, 2), 0x20); /* RIS.TX */
    CU_ASSERT_EQUAL(uart_irq, 0);
    pl011_write(u, 0x38, 0x20, 2);                 /* IMSC.TX */
    CU_ASSERT_EQUAL(uart_irq, 1);
    CU_ASSERT_EQUAL(pl011_read(u, 0x40, 2), 0x20); /* MIS */
    pl011_write(u, 0x44, 0x20, 2);                 /* ICR */
    CU_ASSERT_EQUAL(uart_irq, 0);
    pl011_write(u, 0x30, 0x381, 2);                /* CR with loopback */
    pl011_write(u, 0x00, 'x', 2);
    CU_ASSERT_EQUAL(uart_len, 2);
    pl011_write(u, 0x24, 13, 2);
    CU_ASSERT_EQUAL(pl011_read(u, 0x24, 2), 13);
    pl011_free(u);
}

/* ---- virtio core ---- */

#define VQ_DESC 0x40001000u
#define VQ_AVAIL 0x40002000u
#define VQ_USED 0x40003000u
#define VQ_NUM 8

static phys_map *vmap;
static uint8_t *vram;
static int virtio_level;
static virtio_dev *vdev;
static int popped;

static void vline(void *opaque, int n, int level)
{
    (void)opaque;
    (void)n;
    virtio_level = level;
}

static void put16(uint32_t pa, uint16_t v) { memcpy(vram + pa - MACH_RAM, &v, 2); }
static void put32(uint32_t pa, uint32_t v) { memcpy(vram + pa - MACH_RAM, &v, 4); }
static void put64(uint32_t pa, uint64_t v) { memcpy(vram + pa - MACH_RAM, &v, 8); }
static uint32_t get32(uint32_t pa)
{
    uint32_t v;
    memcpy(&v, vram + pa - MACH_RAM, 4);
    return v;
}

static void desc(int i, uint32_t addr, uint32_t len, uint16_t flags,
                 uint16_t next)
{
    put64(VQ_DESC + 16 * i, addr);
    put32(VQ_DESC + 16 * i + 8, len);
    put16(VQ_DESC + 16 * i + 12, flags);
    put16(VQ_DESC + 16 * i + 14, next);
}

/* A test device: answers "ping" with "pong!". */
static void echo_notify(void *opaque, int q)
{
    (void)opaque;
    virtio_req r;
    int rc;
    while ((rc = virtio_pop(vdev, q, &r)) == 1) {
        char in[8] = { 0 };
        CU_ASSERT_EQUAL(r.out_bytes, 4);
        CU_ASSERT_EQUAL(r.in_bytes, 8);
        CU_ASSERT_EQUAL(virtio_req_read(vdev, &r, 0, in, sizeof(in)), 4);
        CU_ASSERT_STRING_EQUAL(in, "ping");
        CU_ASSERT_EQUAL(virtio_req_write(vdev, &r, 0, "pong!", 5), 5);
        virtio_push(vdev, &r, 5);
        popped++;
    }
    if (rc < 0)
        popped = -1;
}

static const virtio_ops echo_ops = { .device_id = 42, .nqueues = 1,
                                     .notify = echo_notify };

/* The driver's side of queue setup (virtio 1.2 §4.2.3.2), queue q's
 * rings 64 KiB apart from the others'. */
static void queue_init(virtio_dev *d, int q)
{
    uint32_t off = 0x10000u * (uint32_t)q;
    virtio_mmio_write(d, 0x030, (uint32_t)q, 2);
    virtio_mmio_write(d, 0x038, VQ_NUM, 2);
    virtio_mmio_write(d, 0x080, VQ_DESC + off, 2);
    virtio_mmio_write(d, 0x090, VQ_AVAIL + off, 2);
    virtio_mmio_write(d, 0x0a0, VQ_USED + off, 2);
    virtio_mmio_write(d, 0x044, 1, 2);
}

static void vq_setup(const virtio_ops *ops, void *opaque)
{
    vmap = phys_map_new();
    vram = phys_register_ram(vmap, MACH_RAM, 1u << 20);
    vdev = virtio_new(vmap, (irq_line){ vline, NULL, 0 }, ops, opaque);
    virtio_level = 0;
    popped = 0;
    CU_ASSERT_EQUAL(virtio_mmio_read(vdev, 0x000, 2), 0x74726976);
    CU_ASSERT_EQUAL(virtio_mmio_read(vdev, 0x004, 2), 2);
    CU_ASSERT_EQUAL(virtio_mmio_read(vdev, 0x008, 2), ops->device_id);
    virtio_mmio_write(vdev, 0x014, 1, 2);
    CU_ASSERT_EQUAL(virtio_mmio_read(vdev, 0x010, 2), 1);   /* VERSION_1 */
    queue_init(vdev, 0);
    virtio_mmio_write(vdev, 0x070, 0xf, 2);
}

static void vq_teardown(void)
{
    virtio_free(vdev);
    phys_map_free(vmap);
}

static void test_virtqueue(void)
{
    vq_setup(&echo_ops, NULL);
    memcpy(vram + 0x8000, "ping", 4);
    desc(0, MACH_RAM + 0x8000, 4, 1, 1);            /* readable, NEXT */
    desc(1, MACH_RAM + 0x9000, 8, 2, 0);            /* writable */
    put16(VQ_AVAIL + 4, 0);                         /* ring[0] = head 0 */
    put16(VQ_AVAIL + 2, 1);                         /* idx */
    virtio_mmio_write(vdev, 0x050, 0, 2);
    CU_ASSERT_EQUAL(popped, 1);
    CU_ASSERT_EQUAL(memcmp(vram + 0x9000, "pong!", 5), 0);
    CU_ASSERT_EQUAL(get32(VQ_USED) >> 16, 1);       /* used idx */
    CU_ASSERT_EQUAL(get32(VQ_USED + 4), 0);         /* id */
    CU_ASSERT_EQUAL(get32(VQ_USED + 8), 5);         /* len */
    CU_ASSERT_EQUAL(virtio_mmio_read(vdev, 0x060, 2), 1);
    CU_ASSERT_EQUAL(virtio_level, 1);
    virtio_mmio_write(vdev, 0x064, 1, 2);
    CU_ASSERT_EQUAL(virtio_level, 0);
    /* A chain that loops is refused and stops the queue. */
    desc(2, MACH_RAM + 0x8000, 4, 1, 2);
    put16(VQ_AVAIL + 6, 2);
    put16(VQ_AVAIL + 2, 2);
    virtio_mmio_write(vdev, 0x050, 0, 2);
    CU_ASSERT_EQUAL(popped, -1);
    CU_ASSERT_FALSE(virtio_queue_ready(vdev, 0));
    /* Reset clears the queues. */
    virtio_mmio_write(vdev, 0x070, 0, 2);
    CU_ASSERT_EQUAL(virtio_mmio_read(vdev, 0x044, 2), 0);
    vq_teardown();
}

static char port_out[32];
static size_t port_len;

static void port_put(void *opaque, const uint8_t *buf, size_t n)
{
    (void)opaque;
    memcpy(port_out + port_len, buf, n);
    port_len += n;
}

/* Driver-side view of one console queue (q), for the multiport test. */
static void post(int q, int slot, uint32_t buf, uint32_t len, int writable)
{
    uint32_t off = 0x10000u * (uint32_t)q;
    put64(VQ_DESC + off + 16 * slot, buf);
    put32(VQ_DESC + off + 16 * slot + 8, len);
    put16(VQ_DESC + off + 16 * slot + 12, writable ? 2 : 0);
    uint16_t idx;
    memcpy(&idx, vram + VQ_AVAIL + off + 2 - MACH_RAM, 2);
    put16(VQ_AVAIL + off + 4 + 2 * (idx % VQ_NUM), (uint16_t)slot);
    put16(VQ_AVAIL + off + 2, (uint16_t)(idx + 1));
}

/* A port whose file fails mid-run (a full disk): the run learns it, counts
 * the bytes lost, and the close fails naming the file. */
static void test_port_write_failure(void)
{
    machine *m = machine_of(1);
    console_watch con = { .vt = machine_engine(m) };
    port_list l;
    port_files pf;
    machine_config cfg;
    struct pl_error err;
    port_list_default(&l);
    CU_ASSERT_EQUAL_FATAL(port_list_set(&l, "panlab.trace", 12, "/dev/full", &err), 0);
    CU_ASSERT_EQUAL_FATAL(port_files_open(&pf, &l, &con, &cfg, &err), 0);
    static uint8_t chunk[10000];
    int k = 0;
    while (strcmp(cfg.port_name[k], "panlab.trace"))
        k++;
    for (int i = 0; i < 3; i++) {
        cfg.port_out[k].put(cfg.port_out[k].opaque, chunk, sizeof(chunk));
        port_files_flush(&pf);
    }
    CU_ASSERT_EQUAL(pf.file[k].lost_bytes, 30000);
    CU_ASSERT_EQUAL(port_files_close(&pf, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "/dev/full: cannot write: No space left on device; "
                           "30000 bytes of the port's output were lost");
    machine_free(m);
}

static void test_console_ports(void)
{
    const char *names[] = { "panlab.trace" };
    byte_sink outs[] = { { port_put, NULL } };
    port_len = 0;
    vmap = phys_map_new();
    vram = phys_register_ram(vmap, MACH_RAM, 1u << 20);
    struct pl_error err;
    virtio_console *c = virtio_console_new(vmap, (irq_line){ vline, NULL, 0 },
                                           1, names, outs, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    virtio_dev *saved = vdev = virtio_console_dev(c);
    /* max_nr_ports = 2 (port 0 unused), so 6 queues. */
    CU_ASSERT_EQUAL(virtio_mmio_read(vdev, 0x104, 2), 2);
    for (int q = 0; q < 6; q++)
        queue_init(vdev, q);
    /* Control receive buffers, then DEVICE_READY on control transmit. */
    for (int i = 0; i < 4; i++)
        post(2, i, MACH_RAM + 0x80000 + 0x100 * (uint32_t)i, 0x100, 1);
    virtio_mmio_write(vdev, 0x050, 2, 2);
    uint8_t msg[8] = { 0, 0, 0, 0, 0, 0, 1, 0 };    /* id 0, READY, 1 */
    memcpy(vram + 0x90000, msg, 8);
    post(3, 0, MACH_RAM + 0x90000, 8, 0);
    virtio_mmio_write(vdev, 0x050, 3, 2);
    /* DEVICE_ADD for port 1. */
    CU_ASSERT_EQUAL(get32(MACH_RAM + 0x80000), 1);
    CU_ASSERT_EQUAL(get32(MACH_RAM + 0x80004), 1);
    /* PORT_READY(1) gets PORT_NAME then PORT_OPEN. */
    uint8_t ready[8] = { 1, 0, 0, 0, 3, 0, 1, 0 };
    memcpy(vram + 0x90100, ready, 8);
    post(3, 1, MACH_RAM + 0x90100, 8, 0);
    virtio_mmio_write(vdev, 0x050, 3, 2);
    CU_ASSERT_EQUAL(get32(MACH_RAM + 0x80104), 7);
    CU_ASSERT_EQUAL(memcmp(vram + 0x80108, "panlab.trace", 12), 0);
    CU_ASSERT_EQUAL(get32(MACH_RAM + 0x80204), 0x10006);
    /* Port 1 transmit is queue 5. */
    memcpy(vram + 0x91000, "trace!", 6);
    post(5, 0, MACH_RAM + 0x91000, 6, 0);
    virtio_mmio_write(vdev, 0x050, 5, 2);
    CU_ASSERT_EQUAL(port_len, 6);
    CU_ASSERT_EQUAL(memcmp(port_out, "trace!", 6), 0);
    /* Host input waits for a receive buffer on port 1 (queue 4). */
    CU_ASSERT_EQUAL(virtio_console_send(c, "panlab.trace", (const uint8_t *)"cfg\n", 4), 0);
    CU_ASSERT_EQUAL(virtio_console_send(c, "nosuch", (const uint8_t *)"x", 1), -1);
    static uint8_t big[VCON_INPUT_BYTES];
    CU_ASSERT_EQUAL(virtio_console_send(c, "panlab.trace", big, sizeof(big)), -1);
    post(4, 0, MACH_RAM + 0x92000, 0x100, 1);
    CU_ASSERT_NOT_EQUAL(memcmp(vram + 0x92000, "cfg\n", 4), 0);
    virtio_mmio_write(vdev, 0x050, 4, 2);
    CU_ASSERT_EQUAL(memcmp(vram + 0x92000, "cfg\n", 4), 0);
    CU_ASSERT_PTR_EQUAL(vdev, saved);
    virtio_console_free(c);
    phys_map_free(vmap);
}

/* Queues a chain of (buffer, length, writable) on queue 0 from slot. */
static void post_chain(int slot, const uint32_t (*seg)[3], int n)
{
    for (int i = 0; i < n; i++) {
        uint16_t flags = (uint16_t)((seg[i][2] ? 2 : 0) | (i + 1 < n ? 1 : 0));
        desc(slot + i, seg[i][0], seg[i][1], flags, (uint16_t)(slot + i + 1));
    }
    uint16_t idx;
    memcpy(&idx, vram + VQ_AVAIL + 2 - MACH_RAM, 2);
    put16(VQ_AVAIL + 4 + 2 * (idx % VQ_NUM), (uint16_t)slot);
    put16(VQ_AVAIL + 2, (uint16_t)(idx + 1));
    virtio_mmio_write(vdev, 0x050, 0, 2);
}

/* ---- SD card on the PL181 ---- */

enum { MCI_ARG = 0x08, MCI_CMD = 0x0c, MCI_RESP0 = 0x14, MCI_DLEN = 0x28,
       MCI_DCTRL = 0x2c, MCI_STATUS = 0x34, MCI_CLEAR = 0x38,
       MCI_MASK0 = 0x3c, MCI_MASK1 = 0x40, MCI_FIFOCNT = 0x48,
       MCI_FIFO = 0x80 };
enum { RESP = 1u << 6, LONG = 1u << 7, CPSM = 1u << 10 };
enum { DATAEND = 1u << 8, TXACTIVE = 1u << 12, TXHALFEMPTY = 1u << 14,
       TXFULL = 1u << 16, TXEMPTY = 1u << 18, TXAVAIL = 1u << 20 };
static int mci_line[2];

static void mci_irq(void *opaque, int n, int level)
{
    (void)opaque;
    mci_line[n] = level;
}

/* Issues a command as mmci_start_command() does; returns STATUS. */
static uint32_t mci_cmd(pl181 *p, uint32_t index, uint32_t arg, uint32_t flags)
{
    pl181_write(p, MCI_CLEAR, 0x7ff, 2);
    pl181_write(p, MCI_ARG, arg, 2);
    pl181_write(p, MCI_CMD, index | flags | CPSM, 2);
    return pl181_read(p, MCI_STATUS, 2);
}

/* Saves the engine and the PL181 in the middle of a transfer, frees them
 * and returns a copy loaded on a new engine (*t), with a new card on the
 * same image. */
static pl181 *mci_reload(vt_engine **t, pl181 *p, int fd, uint64_t bytes,
                         const blk_timing *tm)
{
    const char *path = tmp_path("pl181.snap");
    struct pl_error err;
    snap_w *w = snap_w_open(path, 1, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    snap_w_begin(w, "MMCI");
    vt_save(*t, w);
    pl181_save(p, w);
    snap_w_end(w);
    CU_ASSERT_EQUAL(snap_w_close(w, &err), 0);
    pl181_free(p);
    vt_free(*t);
    *t = vt_new(NULL, 1200000000, 62500000, 100000);
    p = pl181_new(*t, (irq_line){ mci_irq, NULL, 0 },
                  (irq_line){ mci_irq, NULL, 1 }, sd_card_new(*t, fd, bytes, tm));
    snap_r *r = snap_r_open(path, 1, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(snap_r_begin(r, "MMCI", 0), 0);
    CU_ASSERT_EQUAL(vt_load(*t, r), 0);
    CU_ASSERT_EQUAL(pl181_load(p, r), 0);
    CU_ASSERT_EQUAL(snap_r_end(r), 0);
    snap_r_close(r);
    return p;
}

/* The mmc core's identification of an SDHC card, a 1 KiB multiple-block
 * write through the 16-word FIFO draining at the card's bus rate (saved
 * and restored halfway), whose end waits for the card's write latency, a read back whose
 * blocks arrive at the read bandwidth, and the card's answers to bad
 * commands and addresses. */
static void test_sdcard(void)
{
    const char *img = tmp_path("sd.img");
    FILE *f = fopen(img, "wb");
    CU_ASSERT_EQUAL(ftruncate(fileno(f), 2 * SD_CAPACITY_UNIT_BYTES), 0);
    fclose(f);
    int fd;
    uint64_t bytes;
    struct pl_error err;
    CU_ASSERT_EQUAL(loader_open_disk(write_file("odd.img", "abc", 3), &fd,
                                     &bytes, &err) == 0, 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "odd.img@3: an SD card image must be"));
    CU_ASSERT_EQUAL(loader_open_disk(img, &fd, &bytes, &err), 0);
    CU_ASSERT_EQUAL(bytes, 2 * SD_CAPACITY_UNIT_BYTES);

    vt_engine *t = vt_new(NULL, 1200000000, 62500000, 100000);
    blk_timing tm;
    blk_timing_sd(&tm);
    pl181 *p = pl181_new(t, (irq_line){ mci_irq, NULL, 0 },
                         (irq_line){ mci_irq, NULL, 1 },
                         sd_card_new(t, fd, bytes, &tm));
    CU_ASSERT_EQUAL(pl181_read(p, 0xfe0, 2), 0x81);     /* PL181 part number */
    CU_ASSERT_EQUAL(pl181_read(p, 0xfe8, 2), 0x04);
    pl181_write(p, MCI_MASK0, 0x3ff, 2);

    CU_ASSERT_EQUAL(mci_cmd(p, 0, 0, 0) & 0xff, 1u << 7);          /* CMDSENT */
    CU_ASSERT_EQUAL(mci_cmd(p, 52, 0, RESP) & 0xff, 1u << 2);     /* SDIO: timeout */
    CU_ASSERT_EQUAL(mci_cmd(p, 8, 0x1aa, RESP) & 0xff, 1u << 6);  /* CMDRESPEND */
    CU_ASSERT_EQUAL(pl181_read(p, MCI_RESP0, 2), 0x1aa);
    CU_ASSERT_EQUAL(mci_line[0], 1);
    mci_cmd(p, 55, 0, RESP);
    mci_cmd(p, 41, 0x40ff8000, RESP);
    CU_ASSERT_EQUAL(pl181_read(p, MCI_RESP0, 2), 0xc0ff8000);     /* ready, SDHC */
    mci_cmd(p, 2, 0, RESP | LONG);
    CU_ASSERT_EQUAL(pl181_read(p, 0x10, 2), 0x3f);                /* RESPCMD */
    mci_cmd(p, 3, 0, RESP);
    uint32_t rca = pl181_read(p, MCI_RESP0, 2) >> 16;
    CU_ASSERT_EQUAL(mci_cmd(p, 9, 0x12340000, RESP | LONG) & 0xff, 1u << 2);
    mci_cmd(p, 9, rca << 16, RESP | LONG);
    /* CSD 2.0: C_SIZE (bits 69:48) = 1 for 1 MiB. */
    CU_ASSERT_EQUAL(pl181_read(p, MCI_RESP0, 2) >> 30, 1);
    CU_ASSERT_EQUAL((pl181_read(p, MCI_RESP0 + 8, 2) >> 16) & 0x3fffff, 1);
    mci_cmd(p, 7, rca << 16, RESP);
    mci_cmd(p, 13, rca << 16, RESP);
    CU_ASSERT_EQUAL((pl181_read(p, MCI_RESP0, 2) >> 9) & 0xf, 4);  /* tran */

    /* Write blocks 2-3: command, then the DPSM, then the FIFO by PIO as
     * mmci_pio_write() does: 16 words into the empty FIFO, then 8 each
     * time it is half empty. Each word crosses the bus in word_ns. */
    const uint32_t tx_bits = TXACTIVE | TXHALFEMPTY | TXFULL | TXEMPTY | TXAVAIL;
    uint64_t word_ns = 4 * VT_NS_PER_S / tm.bus_bytes_per_s;
    mci_cmd(p, 25, 2, RESP);
    pl181_write(p, MCI_DLEN, 1024, 2);
    pl181_write(p, MCI_MASK1, TXHALFEMPTY, 2);
    pl181_write(p, MCI_DCTRL, 9 << 4 | 1, 2);
    CU_ASSERT_EQUAL(mci_line[1], 1);
    CU_ASSERT_EQUAL(pl181_read(p, MCI_STATUS, 2) & tx_bits,
                    TXACTIVE | TXHALFEMPTY | TXEMPTY);
    uint32_t i = 0;
    for (; i < 8; i++)
        pl181_write(p, MCI_FIFO + (i % 16) * 4, 0xab000000u | i, 2);
    CU_ASSERT_EQUAL(pl181_read(p, MCI_STATUS, 2) & tx_bits,
                    TXACTIVE | TXHALFEMPTY | TXAVAIL);
    for (; i < 16; i++)
        pl181_write(p, MCI_FIFO + (i % 16) * 4, 0xab000000u | i, 2);
    CU_ASSERT_EQUAL(pl181_read(p, MCI_STATUS, 2) & tx_bits,
                    TXACTIVE | TXFULL | TXAVAIL);
    CU_ASSERT_EQUAL(mci_line[1], 0);
    CU_ASSERT_EQUAL(pl181_read(p, MCI_FIFOCNT, 2), 256 - 16);
    pl181_write(p, MCI_FIFO, 0xdeadbeefu, 2);                    /* lost */
    while (i < 256) {
        if (i == 128)           /* halfway, the FIFO full: go on with a copy */
            p = mci_reload(&t, p, fd, bytes, &tm);
        uint64_t half_ns = vt_now_ns(t) + 8 * word_ns;
        vt_run(t, half_ns - 1);
        CU_ASSERT_EQUAL(mci_line[1], 0);
        CU_ASSERT_EQUAL(pl181_read(p, MCI_STATUS, 2) & TXHALFEMPTY, 0);
        vt_run(t, half_ns);
        CU_ASSERT_EQUAL(mci_line[1], 1);
        for (uint32_t k = 0; k < 8; k++, i++)
            pl181_write(p, MCI_FIFO + (i % 16) * 4, 0xab000000u | i, 2);
        CU_ASSERT_EQUAL(mci_line[1], 0);
    }
    pl181_write(p, MCI_MASK1, 0, 2);                              /* size 0 */
    uint64_t sent_ns = vt_now_ns(t) + 16 * word_ns;
    vt_run(t, sent_ns - 1);
    CU_ASSERT_EQUAL(pl181_read(p, MCI_STATUS, 2) & tx_bits,
                    TXACTIVE | TXHALFEMPTY | TXAVAIL);
    vt_run(t, sent_ns);
    CU_ASSERT_EQUAL(pl181_read(p, MCI_STATUS, 2) & (tx_bits | DATAEND), 0);
    vt_run(t, sent_ns + tm.write_latency_ns - 1);
    CU_ASSERT_EQUAL(pl181_read(p, MCI_STATUS, 2) & DATAEND, 0);   /* card busy */
    vt_run(t, sent_ns + tm.write_latency_ns);
    CU_ASSERT_EQUAL(pl181_read(p, MCI_STATUS, 2) & DATAEND, DATAEND);
    pl181_write(p, MCI_DCTRL, 0, 2);
    mci_cmd(p, 12, 0, RESP);
    uint8_t back[4];
    CU_ASSERT_EQUAL(pread(fd, back, 4, 2 * 512 + 4 * 255), 4);
    CU_ASSERT_EQUAL(back[0], 255);
    CU_ASSERT_EQUAL(back[3], 0xab);

    /* Read them back: DPSM first, then the command, as mmci does. */
    uint64_t t0 = vt_now_ns(t);
    pl181_write(p, MCI_DLEN, 1024, 2);
    pl181_write(p, MCI_MASK1, 1u << 15, 2);                       /* RXHALFFULL */
    pl181_write(p, MCI_DCTRL, 9 << 4 | 3, 2);
    mci_cmd(p, 18, 2, RESP);
    CU_ASSERT_EQUAL(pl181_read(p, MCI_FIFOCNT, 2), 256);
    /* The bus is slower than the flash: it paces the blocks. */
    CU_ASSERT(tm.bus_bytes_per_s < tm.read_bytes_per_s);
    uint64_t block_ns = 512 * VT_NS_PER_S / tm.bus_bytes_per_s;
    vt_run(t, t0 + tm.read_latency_ns + block_ns - 1);
    CU_ASSERT_EQUAL(mci_line[1], 0);
    vt_run(t, t0 + tm.read_latency_ns + block_ns);
    CU_ASSERT_EQUAL(mci_line[1], 1);
    CU_ASSERT_EQUAL(pl181_read(p, MCI_FIFOCNT, 2), 128);          /* one block in */
    for (uint32_t i = 0; i < 128; i++)
        CU_ASSERT_EQUAL(pl181_read(p, MCI_FIFO, 2), 0xab000000u | i);
    CU_ASSERT_EQUAL(mci_line[1], 0);
    vt_run(t, t0 + tm.read_latency_ns + 2 * block_ns);
    CU_ASSERT_EQUAL(pl181_read(p, MCI_STATUS, 2) & (1u << 8), 1u << 8);
    for (uint32_t i = 128; i < 256; i++)
        CU_ASSERT_EQUAL(pl181_read(p, MCI_FIFO, 2), 0xab000000u | i);
    CU_ASSERT_EQUAL(pl181_read(p, MCI_STATUS, 2) & (1u << 13), 0); /* RXACTIVE off */
    pl181_write(p, MCI_DCTRL, 0, 2);

    /* A read past the end of the card: R1 ADDRESS_ERROR, data timeout. */
    pl181_write(p, MCI_DLEN, 512, 2);
    pl181_write(p, MCI_DCTRL, 9 << 4 | 3, 2);
    mci_cmd(p, 17, 2048, RESP);
    CU_ASSERT_EQUAL(pl181_read(p, MCI_RESP0, 2) >> 30, 1);
    CU_ASSERT_EQUAL(pl181_read(p, MCI_STATUS, 2) & (1u << 3), 1u << 3);
    pl181_free(p);
    vt_free(t);
    close(fd);
}

/* Each PL181 access stalls the core for PL181_ACCESS_NS of bus time, at
 * any CPU frequency: 100 STATUS reads in a loop of 300 instructions (the
 * PL181 is there only with an SD card image). */
static void test_mmio_bus_cost(void)
{
    static const uint32_t code[] = {
        0xe3001034,     /* movw r1, #0x34: MCI_STATUS */
        0xe340190c,     /* movt r1, #0x090c */
        0xe3a02064,     /* mov r2, #100 */
        0xe5910000,     /* loop: ldr r0, [r1] */
        0xe2522001,     /* subs r2, r2, #1 */
        0x1afffffc,     /* bne loop */
        0xe320f003,     /* wfi */
        0xeafffffe,     /* b . */
    };
    const uint64_t hz[2] = { 1200000000, 350000000 };
    const char *img = tmp_path("bus.img");
    FILE *f = fopen(img, "wb");
    CU_ASSERT_EQUAL(ftruncate(fileno(f), SD_CAPACITY_UNIT_BYTES), 0);
    fclose(f);
    for (int k = 0; k < 2; k++) {
        machine_config cfg;
        struct pl_error err;
        machine_config_default(&cfg);
        cfg.ram_bytes = 16u << 20;
        cfg.console = (byte_sink){ discard, NULL };
        CU_ASSERT_EQUAL(loader_open_disk(img, &cfg.disk_fd, &cfg.disk_bytes, &err), 0);
        machine *m = board_machine(&cfg);
        memcpy(phys_ram_ptr(machine_phys(m), MACH_RAM + 0x1000, sizeof(code)),
               code, sizeof(code));
        vt_set_cpu_hz(machine_engine(m), hz[k]);
        arm_set_pc(arm_sys_cpu(machine_cpus(m), 0), MACH_RAM + 0x1000);
        run_until_halted(m);
        uint64_t insn_ns = 304 * VT_NS_PER_S / hz[k];
        uint64_t busy = vt_busy_ns(machine_engine(m), 0);
        CU_ASSERT(busy >= 100 * PL181_ACCESS_NS + insn_ns - 10);
        CU_ASSERT(busy <= 100 * PL181_ACCESS_NS + insn_ns + 10);
        machine_free(m);
        close(cfg.disk_fd);
    }
}

static uint64_t frame_ns;
static int frames_seen;
static uint8_t frame_px0;

static void on_frame(void *opaque, uint64_t ns, const uint8_t *px, uint32_t w,
                     uint32_t h)
{
    (void)opaque;
    CU_ASSERT_EQUAL(w, GPU_WIDTH_PX);
    CU_ASSERT_EQUAL(h, GPU_HEIGHT_PX);
    frame_ns = ns;
    frame_px0 = px[0];
    frames_seen++;
}

/* Sends one control command (cmd_bytes at 0x8000) with a response buffer
 * at 0xa000 and runs the engine until it completes. */
static uint32_t gpu_cmd(vt_engine *t, const void *cmd, uint32_t cmd_bytes,
                        uint32_t resp_bytes)
{
    static int slot;
    memcpy(vram + 0x8000, cmd, cmd_bytes);
    memset(vram + 0xa000, 0xee, resp_bytes);
    const uint32_t chain[2][3] = { { MACH_RAM + 0x8000, cmd_bytes, 0 },
                                   { MACH_RAM + 0xa000, resp_bytes, 1 } };
    post_chain(slot, chain, 2);
    slot = (slot + 2) % VQ_NUM;
    vt_run(t, vt_now_ns(t) + 1000000);
    return get32(MACH_RAM + 0xa000);
}

/* The 2D path the Linux driver takes, ending in a flush that is a frame. */
static void test_gpu(void)
{
    vt_engine *t = vt_new(NULL, 1200000000, 62500000, 100000);
    vmap = phys_map_new();
    vram = phys_register_ram(vmap, MACH_RAM, 16u << 20);
    frames_seen = 0;
    virtio_gpu *g = virtio_gpu_new(vmap, (irq_line){ vline, NULL, 0 }, t,
                                   (gpu_host){ NULL, on_frame });
    vdev = virtio_gpu_dev(g);
    queue_init(vdev, 0);
    uint32_t c[16] = { 0x0100 };                         /* GET_DISPLAY_INFO */
    CU_ASSERT_EQUAL(gpu_cmd(t, c, 24, 24 + 16 * 24), 0x1101);
    CU_ASSERT_EQUAL(get32(MACH_RAM + 0xa000 + 24 + 8), 480);
    CU_ASSERT_EQUAL(get32(MACH_RAM + 0xa000 + 24 + 12), 800);
    uint32_t create[10] = { 0x0101, 0, 0, 0, 0, 0, 7, 2, 480, 800 };
    CU_ASSERT_EQUAL(gpu_cmd(t, create, 40, 24), 0x1100);
    CU_ASSERT_EQUAL(gpu_cmd(t, create, 40, 24), 0x1203);   /* id in use */
    /* ATTACH_BACKING: one entry, 480 * 800 * 4 bytes at 0x100000. */
    uint32_t attach[12] = { 0x0106, 0, 0, 0, 0, 0, 7, 1, 0x40100000, 0,
                            480 * 800 * 4, 0 };
    CU_ASSERT_EQUAL(gpu_cmd(t, attach, 48, 24), 0x1100);
    memset(vram + 0x100000, 0x5a, 480 * 800 * 4);
    uint32_t xfer[14] = { 0x0105, 0, 0, 0, 0, 0, 0, 0, 480, 800, 0, 0, 7, 0 };
    CU_ASSERT_EQUAL(gpu_cmd(t, xfer, 56, 24), 0x1100);
    uint32_t scan[12] = { 0x0103, 0, 0, 0, 0, 0, 0, 0, 480, 800, 0, 7 };
    CU_ASSERT_EQUAL(gpu_cmd(t, scan, 48, 24), 0x1100);
    CU_ASSERT_EQUAL(frames_seen, 0);
    /* RESOURCE_FLUSH with a fence: the response echoes it. */
    uint32_t flush[12] = { 0x0104, 1, 42, 0, 0, 0, 0, 0, 480, 800, 7, 0 };
    uint64_t before = vt_now_ns(t);
    CU_ASSERT_EQUAL(gpu_cmd(t, flush, 48, 24), 0x1100);
    CU_ASSERT_EQUAL(get32(MACH_RAM + 0xa004), 1);
    CU_ASSERT_EQUAL(get32(MACH_RAM + 0xa008), 42);
    CU_ASSERT_EQUAL(frames_seen, 1);
    CU_ASSERT_EQUAL(frame_px0, 0x5a);
    CU_ASSERT_EQUAL(frame_ns, before + 5000);    /* the command's latency */
    uint32_t flush_other[12] = { 0x0104, 0, 0, 0, 0, 0, 0, 0, 1, 1, 9, 0 };
    CU_ASSERT_EQUAL(gpu_cmd(t, flush_other, 48, 24), 0x1203);
    CU_ASSERT_EQUAL(frames_seen, 1);
    virtio_gpu_free(g);
    phys_map_free(vmap);
    vt_free(t);
}

static uint64_t delivered_tag, delivered_ns;

static void on_delivered(void *opaque, uint64_t tag, uint64_t ns)
{
    (void)opaque;
    delivered_tag = tag;
    delivered_ns = ns;
}

/* Config space answers and a frame held until the guest posts buffers. */
static void test_input(void)
{
    vt_engine *t = vt_new(NULL, 1200000000, 62500000, 100000);
    vmap = phys_map_new();
    vram = phys_register_ram(vmap, MACH_RAM, 1u << 20);
    static const uint16_t keys[] = { 158 };         /* KEY_BACK */
    virtio_input *v = virtio_input_new(vmap, (irq_line){ vline, NULL, 0 }, t,
                                       keys, 1, (input_host){ NULL, on_delivered });
    vdev = virtio_input_dev(v);
    virtio_mmio_write(vdev, 0x100, 0x01, 0);        /* select ID_NAME */
    CU_ASSERT_EQUAL(virtio_mmio_read(vdev, 0x102, 0), 12);
    CU_ASSERT_EQUAL(memcmp(virtio_config(vdev) + 8, "panlab-touch", 12), 0);
    virtio_mmio_write(vdev, 0x100, 0x12, 0);        /* ABS_INFO */
    virtio_mmio_write(vdev, 0x101, 1, 0);           /* ABS_Y */
    CU_ASSERT_EQUAL(virtio_mmio_read(vdev, 0x10c, 2), 799);
    virtio_mmio_write(vdev, 0x100, 0x11, 0);        /* EV_BITS */
    virtio_mmio_write(vdev, 0x101, 1, 0);           /* EV_KEY */
    CU_ASSERT(virtio_config(vdev)[8 + 158 / 8] & (1u << (158 % 8)));
    CU_ASSERT(virtio_config(vdev)[8 + 0x14a / 8] & (1u << (0x14a % 8)));
    queue_init(vdev, 0);
    delivered_tag = 99;
    input_ev ev[2] = { { 1, 158, 1 }, { 0, 0, 0 } };
    CU_ASSERT_EQUAL(virtio_input_send(v, ev, 2, 4), 0);
    CU_ASSERT_EQUAL(delivered_tag, 99);             /* no buffers yet */
    vt_run(t, 3000);
    const uint32_t b0[1][3] = { { MACH_RAM + 0x8000, 8, 1 } };
    const uint32_t b1[1][3] = { { MACH_RAM + 0x8008, 8, 1 } };
    post_chain(0, b0, 1);
    CU_ASSERT_EQUAL(delivered_tag, 99);             /* half a frame */
    post_chain(1, b1, 1);
    CU_ASSERT_EQUAL(delivered_tag, 4);
    CU_ASSERT_EQUAL(delivered_ns, 3000);
    CU_ASSERT_EQUAL(get32(MACH_RAM + 0x8000), 1u | 158u << 16);
    CU_ASSERT_EQUAL(get32(MACH_RAM + 0x8004), 1);
    virtio_input_free(v);
    phys_map_free(vmap);
    vt_free(t);
}

/* ---- device tree and guest clock ---- */

static void test_fdt(void)
{
    static uint8_t buf[0x10000];
    struct pl_error err;
    fdt_desc d = phone_fdt_desc();
    d.initrd_start = 0x48000000;
    d.initrd_end = 0x48100000;
    int n = fdt_generate(buf, sizeof(buf), &d, &err);
    CU_ASSERT(n > 0);
    CU_ASSERT_EQUAL(fdt_check_full(buf, (size_t)n), 0);
    CU_ASSERT(fdt_path_offset(buf, "/cpus/cpu@1") >= 0);
    CU_ASSERT(fdt_path_offset(buf, "/virtio_mmio@a000600") >= 0);
    int chosen = fdt_path_offset(buf, "/chosen");
    CU_ASSERT_STRING_EQUAL(fdt_getprop(buf, chosen, "bootargs", NULL),
                           "console=ttyAMA0");
    const fdt32_t *p = fdt_getprop(buf, chosen, "linux,initrd-end", NULL);
    CU_ASSERT_EQUAL(fdt32_to_cpu(*p), 0x48100000);
    int psci = fdt_path_offset(buf, "/psci");
    CU_ASSERT_STRING_EQUAL(fdt_getprop(buf, psci, "method", NULL), "hvc");
    CU_ASSERT_EQUAL(fdt_generate(buf, 64, &d, &err), -1);
}

/* The ARM boot protocol: images in RAM, r0 = 0, r1 = ~0, r2 = the DTB,
 * whose /chosen holds the initrd range; a given DTB is patched alike. */
static void test_boot_layout(void)
{
    machine *m = small_machine();
    uint8_t kernel[64], initrd[100];
    memset(kernel, 0x11, sizeof(kernel));
    memset(initrd, 0x22, sizeof(initrd));
    uint8_t *dtb;
    size_t dtb_bytes;
    struct pl_error err;
    /* 16 MiB of RAM puts the initrd at 8 MiB (half of RAM, as QEMU). */
    int rc = machine_boot(m, kernel, sizeof(kernel), initrd, sizeof(initrd),
                          NULL, 0, "console=ttyAMA0", &dtb, &dtb_bytes, &err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    arm_cpu *c0 = arm_sys_cpu(machine_cpus(m), 0);
    CU_ASSERT_EQUAL(arm_get_reg(c0, 0), 0);
    CU_ASSERT_EQUAL(arm_get_reg(c0, 1), 0xffffffffu);
    CU_ASSERT_EQUAL(arm_get_reg(c0, 15), MACH_RAM + 0x10000);
    uint32_t r2 = arm_get_reg(c0, 2);
    const uint8_t *placed = phys_ram_ptr(machine_phys(m), r2, (uint32_t)dtb_bytes);
    CU_ASSERT_EQUAL(memcmp(placed, dtb, dtb_bytes), 0);
    int chosen = fdt_path_offset(dtb, "/chosen");
    const fdt32_t *start = fdt_getprop(dtb, chosen, "linux,initrd-start", NULL);
    const fdt32_t *end = fdt_getprop(dtb, chosen, "linux,initrd-end", NULL);
    CU_ASSERT_EQUAL_FATAL(start != NULL && end != NULL, 1);
    CU_ASSERT_EQUAL(fdt32_to_cpu(*end) - fdt32_to_cpu(*start), sizeof(initrd));
    CU_ASSERT_EQUAL(*phys_ram_ptr(machine_phys(m), fdt32_to_cpu(*start), 1), 0x22);
    CU_ASSERT_EQUAL(*phys_ram_ptr(machine_phys(m), MACH_RAM + 0x10000, 1), 0x11);
    CU_ASSERT(r2 >= fdt32_to_cpu(*end));
    /* The same blob given back with --dtb gets the same /chosen. */
    uint8_t *dtb2;
    size_t dtb2_bytes;
    CU_ASSERT_EQUAL(machine_boot(m, kernel, sizeof(kernel), initrd, sizeof(initrd),
                                 dtb, dtb_bytes, NULL, &dtb2, &dtb2_bytes, &err), 0);
    chosen = fdt_path_offset(dtb2, "/chosen");
    CU_ASSERT_PTR_NOT_NULL(fdt_getprop(dtb2, chosen, "linux,initrd-start", NULL));
    CU_ASSERT_STRING_EQUAL(fdt_getprop(dtb2, chosen, "bootargs", NULL),
                           "console=ttyAMA0");
    /* Images that do not fit are refused with one line. */
    CU_ASSERT_EQUAL(machine_boot(m, kernel, 64u << 20, NULL, 0, NULL, 0, "",
                                 NULL, NULL, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "do not fit"));
    free(dtb);
    free(dtb2);
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
    CU_ASSERT_EQUAL(guest_clock_init(&g, m, sm, 0xc0000000u, MACH_RAM, &err), 0);
    CU_ASSERT_EQUAL(g.data_pa, 0x40902000u);
    /* The map is this kernel's when linux_banner holds the banner: in the
     * kernel image (from _text), or in RAM for a restored guest. */
    static uint8_t image[0x800000];
    static const char banner[] = "Linux version 6.1.0-panlab";
    CU_ASSERT_EQUAL(guest_clock_check(&g, image, sizeof(image), &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "(byte 7340048 of the kernel image) does not hold"));
    memcpy(image + 0x700010, banner, sizeof(banner));
    CU_ASSERT_EQUAL(guest_clock_check(&g, image, sizeof(image), &err), 0);
    CU_ASSERT_EQUAL(guest_clock_check(&g, image, 0x700018, &err), -1);
    CU_ASSERT_EQUAL(guest_clock_check(&g, NULL, 0, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "System.map: linux_banner at 0xc0800010 "
                                           "(physical 0x40800010 of the restored guest) does "
                                           "not hold \"Linux version ...\", expected the "
                                           "System.map of this kernel build"));
    memcpy(ram + 0x800010, banner, sizeof(banner));
    CU_ASSERT_EQUAL(guest_clock_check(&g, NULL, 0, &err), 0);
    uint64_t ns;
    CU_ASSERT_EQUAL(guest_clock_mono_ns(&g, 1100, &ns), -1);  /* mode 0 */
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
                                     0xc0000000u, MACH_RAM, &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no symbol vdso_data_store"));
    phys_map_free(m);
}

/* ---- snapshots ---- */

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
    vt_run(t, 300001);     /* not a whole cycle: a fraction is carried */
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

static void pc_outside_ram(arm_cpu *c) { c->pc = 0x20000000; }

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
static void jazelle(arm_cpu *c) { c->cpsr |= CPSR_J; }
static void bad_mode(arm_cpu *c) { c->cpsr = (c->cpsr & ~0x1fu) | 0x1e; }
static void lpae(arm_cpu *c) { c->cp15.ttbcr |= 1u << 31; }

static void test_unresumable(void)
{
    /* The records begin at byte 60 (header 12, MACH 12 + 12 + 4 bytes of
     * CRC, CPUS header 12); ttbr0 is at 268 in a record. */
    expect_unresumable("ttbr.snap", mmu_on_bad_ttbr,
                       "ttbr.snap@328: core 0: ttbr0 0x12340000 puts the translation "
                       "table at 0x12340000, outside RAM");
    expect_unresumable("ttbr1.snap", mmu_on_bad_ttbr1,
                       "ttbr1.snap@332: core 0: ttbr1 0x12340000 puts the translation "
                       "table at 0x12340000, outside RAM");
    expect_unresumable("pc.snap", pc_outside_ram,
                       "core 0: pc 0x20000000 is at physical 0x20000000, expected the next "
                       "instruction in RAM");
    expect_unresumable("vbar.snap", vectors_outside_ram,
                       "core 0: vbar 0x20000000: the exception vectors at 0x20000000 fault "
                       "in translation, status 0x00000005");
    expect_unresumable("jazelle.snap", jazelle, "core 0: cpsr");
    /* cpsr is the fifth u32 of a record: 60 + 16. */
    expect_unresumable("mode.snap", bad_mode, "mode.snap@76: core 0: cpsr 0x");
    expect_unresumable("mode.snap", bad_mode, "has mode 0x1e, expected a valid ARM mode");
    expect_unresumable("lpae.snap", lpae, "core 0: ttbcr");
}

/* Copies the good snapshot to name with the u64 at payload offset `at` of
 * section `tag` set to v, and the section's CRC-32 made right again: a
 * file whose checksums pass but whose value is wrong. */
static const char *patched(const char *name, const char *tag, long at, uint64_t v)
{
    long n = file_bytes(saved_snapshot());
    uint8_t *b = malloc((size_t)n);
    FILE *f = fopen(saved_snapshot(), "rb");
    CU_ASSERT_FATAL(fread(b, 1, (size_t)n, f) == (size_t)n);
    fclose(f);
    long off = 12;              /* magic and version */
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
    expect_load_error(damaged("nocrc.snap", n - 4, n), 2, "truncated: section 'END ' ends 0 "
                      "bytes into its 4-byte CRC-32, expected the CRC after its 0 bytes");
    expect_load_error(damaged("partcrc.snap", n - 1, n), 2, "ends 3 bytes into its 4-byte CRC-32");
    /* Bytes after the END section. */
    FILE *f = fopen(damaged("tail.snap", n, n), "ab");
    fputs("tail", f);
    fclose(f);
    char at[64];
    snprintf(at, sizeof(at), "tail.snap@%ld: 4 bytes after the last section", n);
    expect_load_error(tmp_path("tail.snap"), 2, at);
    /* A virtual time of 26 days (TIME: ncores, cpu_hz, counter_hz, quantum,
     * policy, then now_ns at 32), past the longest run. */
    expect_load_error(patched("days.snap", "TIME", 32, 26ull * 86400 * VT_NS_PER_S), 2,
                      "virtual time 2246400000000000 ns (26.0 days), expected at most "
                      "1000000 s");
    expect_load_error(damaged("magic.snap", n, 0), 2, "not a panlab-phone snapshot");
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
    if (argc > 1)
        phone_bin = argv[1];
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("board", NULL, NULL);
    CU_add_test(s, "zImage checks", test_zimage);
    CU_add_test(s, "directories, endless and huge inputs", test_not_files);
    CU_add_test(s, "the compressed kernel in a zImage", test_kernel_payload);
    CU_add_test(s, "device tree nodes Linux needs", test_dtb_nodes);
    CU_add_test(s, "device tree memory against the board", test_dtb_memory);
    CU_add_test(s, "initramfs and DTB checks", test_initrd);
    CU_add_test(s, "command-line errors", test_cli_errors);
    CU_add_test(s, "hang and panic", test_hang_and_panic);
    CU_add_test(s, "outputs that cannot be written", test_output_failures);
    CU_add_test(s, "event order", test_event_order);
    CU_add_test(s, "parallel cores", test_parallel_cores);
    CU_add_test(s, "CPU frequency", test_cpu_frequency);
    CU_add_test(s, "idle skip", test_idle_skip);
    CU_add_test(s, "an SGI reaches its core at the sender's time", test_sgi_at_sender_time);
    CU_add_test(s, "memory hand-off: a release or atomic store is seen at the writer's time", test_memory_handoff);
    CU_add_test(s, "PSCI hotplug", test_psci_hotplug);
    CU_add_test(s, "device constructors refuse bad counts", test_bad_counts);
    CU_add_test(s, "GIC SPI", test_gic_spi);
    CU_add_test(s, "GIC SGI and PPI", test_gic_sgi_ppi);
    CU_add_test(s, "PL011", test_pl011);
    CU_add_test(s, "virtqueue", test_virtqueue);
    CU_add_test(s, "console ports", test_console_ports);
    CU_add_test(s, "SD card on the PL181", test_sdcard);
    CU_add_test(s, "MMIO bus cost", test_mmio_bus_cost);
    CU_add_test(s, "GPU", test_gpu);
    CU_add_test(s, "touchscreen", test_input);
    CU_add_test(s, "device tree", test_fdt);
    CU_add_test(s, "boot layout", test_boot_layout);
    CU_add_test(s, "guest clock", test_guest_clock);
    CU_add_test(s, "snapshot: save, restore, continue identically", test_round_trip);
    CU_add_test(s, "snapshot: bad files", test_bad_files);
    CU_add_test(s, "a port's file fails mid-run", test_port_write_failure);
    CU_add_test(s, "snapshot: CPU state that cannot resume", test_unresumable);
    CU_add_test(s, "snapshot: command line", test_snapshot_cli);
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
