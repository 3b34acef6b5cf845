/* CUnit tests of the phone board's boot path: boot-image checks (zImage,
 * initramfs, DTB, inputs that are not files), the device tree and boot
 * layout the board gives Linux, and panlab-phone's command line (errors,
 * hang and panic, outputs that cannot be written). argv[1] is the
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
#include "cpu_seconds.h"
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

/* ---- boot images ---- */

static void test_zimage(void)
{
    struct pl_error err;
    uint8_t *d;
    size_t n;
    CU_ASSERT_EQUAL(loader_read_zimage(make_zimage("ok", 4096, 0x016f2818), &d,
                                       &n, &err),
                    0);
    CU_ASSERT_EQUAL(n, 4096);
    free(d);
    expect_err(loader_read_zimage(tmp_path("missing"), &d, &n, &err), err.msg,
               "missing: cannot open");
    expect_err(loader_read_zimage(write_file("empty", "", 0), &d, &n, &err),
               err.msg, "empty@0: empty file");
    expect_err(loader_read_zimage(make_zimage("magic", 4096, 0x12345678), &d,
                                  &n, &err),
               err.msg, "magic@36: bad magic 0x12345678");
    expect_err(loader_read_zimage(write_file("short", "abc", 3), &d, &n, &err),
               err.msg, "short@3: truncated");
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
    expect_err(
        loader_read_zimage("/dev/zero", &d, &n, &err), err.msg,
        "/dev/zero@67108864: more than the 67108864-byte cap for a zImage");
    expect_err(
        loader_read_dtb("/dev/zero", &d, &n, &err), err.msg,
        "/dev/zero@2097152: more than the 2097152-byte cap for a device tree blob");
    const char *big = write_file("big.cpio.gz", "", 0);
    CU_ASSERT_FATAL(truncate(big, (off_t)PL_CAP_INITRD_BYTES + 1) == 0);
    expect_err(
        loader_read_initrd(big, &d, &n, &err), err.msg,
        "big.cpio.gz: 536870913 bytes, more than the 536870912-byte cap for an initramfs");
    unlink(big);
    guest_clock g;
    phys_map *m = phys_map_new();
    expect_err(
        guest_clock_init(&g, m, "/dev/zero", 0xc0000000u, MACH_RAM, &err),
        err.msg,
        "/dev/zero@268435456: more than the 268435456-byte cap for a System.map");
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
        n += (size_t)snprintf(out + n, cap - n,
                              "070701%08x%08x%08x%08x%08x%08x%08zx"
                              "%08x%08x%08x%08x%08zx%08x%s",
                              0, 0100755, 0, 0, 1, 0, size, 0, 0, 0, 0,
                              namesize, 0, names[i]);
        n++; /* the name's NUL */
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
             tmp_path("ok.cpio.gz"), tmp_path("ok.cpio.gz"),
             tmp_path("ok.cpio.gz"), tmp_path("two.cpio.gz"));
    CU_ASSERT_EQUAL_FATAL(system(cmd), 0);
    CU_ASSERT_EQUAL(loader_read_initrd(tmp_path("ok.cpio.gz"), &d, &n, &err),
                    0);
    free(d);
    /* Two gzip'd archives one after the other, as panlab's test initramfs. */
    CU_ASSERT_EQUAL(loader_read_initrd(tmp_path("two.cpio.gz"), &d, &n, &err),
                    0);
    free(d);
    size_t gz_len;
    uint8_t *gz = slurp(tmp_path("ok.cpio.gz"), &gz_len);
    expect_err(loader_read_initrd(write_file("half.cpio.gz", gz, gz_len / 2),
                                  &d, &n, &err),
               err.msg, "half.cpio.gz@");
    CU_ASSERT_PTR_NOT_NULL(
        strstr(err.msg, ": the gzip data at byte 0 is corrupt: truncated"));
    free(gz);
    expect_err(loader_read_initrd(write_file("cut.cpio", cpio, cpio_len - 8),
                                  &d, &n, &err),
               err.msg, "cut.cpio@136: truncated cpio entry");
    expect_err(loader_read_initrd(write_file("notrailer.cpio", cpio, 136), &d,
                                  &n, &err),
               err.msg,
               "notrailer.cpio@136: truncated cpio archive: no \"TRAILER!!!\"");
    expect_err(
        loader_read_initrd(write_gz("notcpio.gz", "hello world"), &d, &n, &err),
        err.msg,
        "notcpio.gz@0: no cpio header, expected the newc magic \"070701\", at byte 0 "
        "of the cpio data inflated");
    expect_err(loader_read_initrd(write_file("junk", "junkjunk", 8), &d, &n,
                                  &err),
               err.msg, "junk@0: neither gzip");
    static const uint8_t bad_gz[] = { 0x1f, 0x8b, 8, 0,    0,    0,    0,
                                      0,    0,    3, 0xff, 0xff, 0xff, 0xff };
    expect_err(loader_read_initrd(write_file("bad.gz", bad_gz, sizeof(bad_gz)),
                                  &d, &n, &err),
               err.msg, "the gzip data at byte 0 is corrupt");
    expect_err(loader_read_dtb(write_file("bad.dtb",
                                          "notadtb!notadtb!notadtb!"
                                          "notadtb!notadtb!",
                                          40),
                               &d, &n, &err),
               err.msg, "bad.dtb@0: not a valid device tree blob");
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
    CU_ASSERT_EQUAL(loader_read_zimage(write_file("good.zimage", img, size), &d,
                                       &n, &err),
                    0);
    free(d);
    img[GZ_AT + gz_len - 6] ^= 0xff; /* a byte of the CRC-32 */
    expect_err(loader_read_zimage(write_file("crc.zimage", img, size), &d, &n,
                                  &err),
               err.msg, "crc.zimage@");
    CU_ASSERT_PTR_NOT_NULL(
        strstr(err.msg, ": the compressed kernel (gzip at byte 256) is "
                        "corrupt: incorrect data check"));
    memset(img + GZ_AT, 0, gz_len);
    expect_err(
        loader_read_zimage(write_file("nogz.zimage", img, size), &d, &n, &err),
        err.msg, "nogz.zimage@48: no gzip-compressed kernel in the zImage");
    free(img);
    free(gz);
}

/* The phone's device tree description, 1 GiB and two cores. */
static fdt_desc phone_fdt_desc(void)
{
    return (fdt_desc){
        .ram_addr = MACH_RAM,
        .ram_bytes = 1u << 30,
        .ncores = 2,
        .gic_dist = MACH_GIC_DIST,
        .gic_cpu = MACH_GIC_CPU,
        .uart = MACH_UART,
        .uart_spi = 1,
        .nvirtio = 4,
        .virtio_base = MACH_VIRTIO_BASE,
        .virtio_spi_base = 16,
        .psci_method = "hvc",
        .bootargs = "console=ttyAMA0",
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
    CU_ASSERT_EQUAL(loader_read_dtb(write_file("ok.dtb", buf, (size_t)len), &d,
                                    &n, &err),
                    0);
    free(d);
    int mem =
        fdt_node_offset_by_prop_value(buf, -1, "device_type", "memory", 7);
    CU_ASSERT_FATAL(mem >= 0);
    CU_ASSERT_EQUAL_FATAL(fdt_del_node(buf, mem), 0);
    char at[64];
    snprintf(at, sizeof(at), "nomem.dtb@%u: no memory node",
             fdt_off_dt_struct(buf));
    expect_err(loader_read_dtb(write_file("nomem.dtb", buf, fdt_totalsize(buf)),
                               &d, &n, &err),
               err.msg, at);
    len = fdt_generate(buf, sizeof(buf), &desc, &err);
    CU_ASSERT_EQUAL_FATAL(fdt_del_node(buf, fdt_path_offset(buf, "/cpus")), 0);
    expect_err(
        loader_read_dtb(write_file("nocpus.dtb", buf, fdt_totalsize(buf)), &d,
                        &n, &err),
        err.msg, "nocpus.dtb@");
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "no /cpus node with a cpu"));
}

/* A device tree whose memory the board does not have is refused before
 * boot, at the memory node's reg: the guest would hang using it. */
static void test_dtb_memory(void)
{
    static uint8_t buf[0x10000];
    struct pl_error err;
    machine *m = machine_of(2); /* 16 MiB at MACH_RAM */
    fdt_desc desc = phone_fdt_desc();
    desc.ram_bytes = 16u << 20;
    CU_ASSERT_FATAL(fdt_generate(buf, sizeof(buf), &desc, &err) > 0);
    CU_ASSERT_EQUAL(machine_check_dtb(m, "ok.dtb", buf, &err), 0);
    desc.ram_bytes = 1u << 30;
    CU_ASSERT_FATAL(fdt_generate(buf, sizeof(buf), &desc, &err) > 0);
    expect_err(
        machine_check_dtb(m, "big.dtb", buf, &err), err.msg,
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
    snprintf(args, sizeof(args), "--kernel %s --dtb %s",
             make_zimage("k", 4096, 0x016f2818),
             write_file("high.dtb", buf, (size_t)len));
    CU_ASSERT_EQUAL(run_phone(args, &lines, first, sizeof(first)), 1);
    CU_ASSERT_EQUAL(lines, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(first, "high.dtb@"));
    CU_ASSERT_PTR_NOT_NULL(
        strstr(first, ": memory 0x80000000..0xbfffffff is not RAM on this "
                      "board, expected ranges within "
                      "0x40000000..0x7fffffff"));
}

static void test_cli_errors(void)
{
    int lines;
    char first[1024], args[1024], k[256];
    snprintf(k, sizeof(k), "%s", make_zimage("k", 4096, 0x016f2818));
    CU_ASSERT_NOT_EQUAL(
        run_phone("--kernel x --bogus 1", &lines, first, sizeof(first)), 0);
    CU_ASSERT_EQUAL(lines, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(first, "unknown option '--bogus'"));
    CU_ASSERT_NOT_EQUAL(run_phone("", &lines, first, sizeof(first)), 0);
    CU_ASSERT_EQUAL(lines, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(first, "--kernel is required"));
    CU_ASSERT_NOT_EQUAL(run_phone("--kernel", &lines, first, sizeof(first)), 0);
    CU_ASSERT_EQUAL(lines, 1);
    /* Without a zImage's magic a kernel is a raw Image, as for QEMU; a
     * file that says it is an ELF must be one. */
    static const uint8_t elf64[64] = { 0x7f, 'E', 'L', 'F', 2, 1, 1 };
    snprintf(args, sizeof(args), "--kernel %s",
             write_file("bad", elf64, sizeof(elf64)));
    CU_ASSERT_NOT_EQUAL(run_phone(args, &lines, first, sizeof(first)), 0);
    CU_ASSERT_EQUAL(lines, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(first, "bad@4: an ELF that is not"));
    snprintf(args, sizeof(args), "--kernel %s --initrd %s", k,
             write_file("rd", "garbage!", 8));
    CU_ASSERT_NOT_EQUAL(run_phone(args, &lines, first, sizeof(first)), 0);
    CU_ASSERT_EQUAL(lines, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(first, "rd@0: neither gzip"));
    snprintf(args, sizeof(args), "--kernel %s --max-virtual-s soon", k);
    CU_ASSERT_NOT_EQUAL(run_phone(args, &lines, first, sizeof(first)), 0);
    CU_ASSERT_EQUAL(lines, 1);
    CU_ASSERT_PTR_NOT_NULL(
        strstr(first, "--max-virtual-s takes a whole number"));
    /* An unwritable snapshot path and a missing --content-dir end the run
     * before the guest boots. */
    snprintf(args, sizeof(args),
             "--kernel %s --snapshot-save /nonexistent/dir/snap.bin", k);
    CU_ASSERT_EQUAL(run_phone(args, &lines, first, sizeof(first)), 1);
    CU_ASSERT_EQUAL(lines, 1);
    CU_ASSERT_PTR_NOT_NULL(
        strstr(first, "/nonexistent/dir/snap.bin: cannot create"));
    snprintf(args, sizeof(args),
             "--kernel %s --net user --content-dir /nonexistent/dir", k);
    CU_ASSERT_EQUAL(run_phone(args, &lines, first, sizeof(first)), 1);
    CU_ASSERT_EQUAL(lines, 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(
        first,
        "/nonexistent/dir: --content-dir: No such file or directory, expected a directory"));
    /* Numbers are digits only: no sign, no leading space. */
    static const char *const not_numbers[] = { "+5", "' 5'", "-0", "5x", "''" };
    for (size_t i = 0; i < sizeof(not_numbers) / sizeof(not_numbers[0]); i++) {
        snprintf(args, sizeof(args), "--kernel %s --cpu-mhz %s", k,
                 not_numbers[i]);
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
    static const char other_map[] =
        "c0008000 T _text\nc0800010 D linux_banner\n"
        "c0902000 d vdso_data_store\n";
    snprintf(args, sizeof(args),
             "--kernel %s --ground-truth %s --system-map %s", k,
             tmp_path("map.gt"),
             write_file("other.map", other_map, sizeof(other_map) - 1));
    CU_ASSERT_EQUAL(run_phone(args, &lines, first, sizeof(first)), 1);
    CU_ASSERT_EQUAL(lines, 1);
    CU_ASSERT_PTR_NOT_NULL(
        strstr(first, "other.map: linux_banner at 0xc0800010 (byte 8355856 "
                      "of the kernel image) does not hold"));
    /* A script longer than the run is refused before the guest boots. */
    const char *script = write_file("long.rply", "wait 2s\ntap 1 2\n", 15);
    snprintf(args, sizeof(args),
             "--kernel %s --replay %s --ground-truth %s "
             "--max-virtual-s 1",
             k, script, tmp_path("long.gt"));
    CU_ASSERT_EQUAL(run_phone(args, &lines, first, sizeof(first)), 1);
    CU_ASSERT_EQUAL(lines, 1);
    CU_ASSERT_PTR_NOT_NULL(
        strstr(first, "long.rply: the script lasts 2050ms, longer than "
                      "--max-virtual-s 1"));
    /* --help on a full disk. */
    CU_ASSERT_EQUAL(
        run_phone_to("--help", "/dev/full", &lines, first, sizeof(first)), 1);
    CU_ASSERT_EQUAL(lines, 1);
    CU_ASSERT_PTR_NOT_NULL(
        strstr(first, "panlab-phone: stdout: cannot write: "));
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
    snprintf(args, sizeof(args), "--kernel %s --cpu-mhz 10 --console /dev/full",
             k);
    CU_ASSERT_EQUAL(run_phone(args, &lines, first, sizeof(first)), 1);
    CU_ASSERT_EQUAL(lines, 1);
    CU_ASSERT_PTR_NOT_NULL(
        strstr(first, "panlab-phone: /dev/full: cannot write the console: "
                      "No space left on device"));
    snprintf(args, sizeof(args), "--kernel %s --cpu-mhz 10", k);
    CU_ASSERT_EQUAL(
        run_phone_to(args, "/dev/full", &lines, first, sizeof(first)), 1);
    CU_ASSERT_EQUAL(lines, 1);
    CU_ASSERT_PTR_NOT_NULL(
        strstr(first, "panlab-phone: stdout: cannot write the console: "
                      "No space left on device"));
    snprintf(args, sizeof(args),
             "--kernel %s --cpu-mhz 10 --screenshot /nonexistent/shot.png", k);
    CU_ASSERT_EQUAL(run_phone(args, &lines, first, sizeof(first)), 1);
    CU_ASSERT_EQUAL(lines, 1);
    CU_ASSERT_PTR_NOT_NULL(
        strstr(first, "/nonexistent/shot.png: --screenshot: cannot create"));
}

/* CPU seconds of the programs run and waited for so far. */
/* A guest that spins without output is stopped as hung; one that prints
 * a kernel panic is stopped as panicked. */
static void test_hang_and_panic(void)
{
    int lines;
    char first[1024], args[1024];
    static const uint32_t spin[] = { 0xeafffffe }; /* b . */
    snprintf(args, sizeof(args), "--kernel %s --cpu-mhz 10 --hang-s 1",
             make_program("spin", spin, 1, NULL));
    CU_ASSERT_EQUAL(run_phone(args, &lines, first, sizeof(first)), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(first, "no progress for 1 virtual seconds"));
    /* A jump to unmapped 0 with the vectors at 0: one Prefetch Abort after
     * another. --hang-s would need 1000 virtual seconds; the host-time
     * guard stops it after one CPU second. */
    static const uint32_t to_zero[] = { 0xe3a0f000 }; /* mov pc, #0 */
    snprintf(args, sizeof(args), "--kernel %s --hang-s 1000 --hang-host-s 1",
             make_program("vectors", to_zero, 1, NULL));
    CU_ASSERT_EQUAL(run_phone(args, &lines, first, sizeof(first)), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(first, "no progress and returned from no "
                                         "exception for 1 s of host CPU time"));
    CU_ASSERT_PTR_NOT_NULL(strstr(first, "exception vectors"));
    /* A quiet guest that returns from its exceptions (an SVC loop whose
     * handler returns) is alive however slowly it runs: only --hang-s
     * stops it, after more than the host guard's second of CPU. */
    static const uint32_t svc_loop[32] = {
        0xe28f0058, /* add r0, pc, #0x58: the vectors at 0x60 */
        0xee0c0f10, /* mcr p15, 0, r0, c12, c0, 0: VBAR */
        0xef000000, /* 1: svc #0 */
        0xeafffffd, /* b 1b */
        [24] = 0xeafffffe, 0xeafffffe,
        0xe1b0f00e, /* SVC vector: movs pc, lr */
        0xeafffffe, 0xeafffffe, 0xeafffffe, 0xeafffffe, 0xeafffffe,
    };
    double t0 = cpu_seconds(RUSAGE_CHILDREN);
    snprintf(args, sizeof(args), "--kernel %s --cpu-mhz 100 --hang-s 1 --hang-host-s 1",
             make_program("svc", svc_loop, 32, NULL));
    CU_ASSERT_EQUAL(run_phone(args, &lines, first, sizeof(first)), 1);
    CU_ASSERT_PTR_NOT_NULL(strstr(first, "no progress for 1 virtual seconds"));
    CU_ASSERT(cpu_seconds(RUSAGE_CHILDREN) - t0 > 1.0);
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
    CU_ASSERT_PTR_NOT_NULL(
        strstr(first, "; /init had started (at 0.000 s); the console's "
                      "last line, at 0.000 s: \"panlab-init: running "
                      "workload x\""));
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
    loader_kernel k = { .kind = LOADER_ZIMAGE,
                        .data = kernel,
                        .bytes = sizeof(kernel) };
    int rc = machine_boot(m, &k, initrd, sizeof(initrd), NULL, 0,
                          "console=ttyAMA0", &dtb, &dtb_bytes, &err);
    CU_ASSERT_EQUAL_FATAL(rc, 0);
    arm_cpu *c0 = arm_sys_cpu(machine_cpus(m), 0);
    CU_ASSERT_EQUAL(arm_get_reg(c0, 0), 0);
    CU_ASSERT_EQUAL(arm_get_reg(c0, 1), 0xffffffffu);
    CU_ASSERT_EQUAL(arm_get_reg(c0, 15), MACH_RAM + 0x10000);
    uint32_t r2 = arm_get_reg(c0, 2);
    const uint8_t *placed =
        phys_ram_ptr(machine_phys(m), r2, (uint32_t)dtb_bytes);
    CU_ASSERT_EQUAL(memcmp(placed, dtb, dtb_bytes), 0);
    int chosen = fdt_path_offset(dtb, "/chosen");
    const fdt32_t *start = fdt_getprop(dtb, chosen, "linux,initrd-start", NULL);
    const fdt32_t *end = fdt_getprop(dtb, chosen, "linux,initrd-end", NULL);
    CU_ASSERT_EQUAL_FATAL(start != NULL && end != NULL, 1);
    CU_ASSERT_EQUAL(fdt32_to_cpu(*end) - fdt32_to_cpu(*start), sizeof(initrd));
    CU_ASSERT_EQUAL(*phys_ram_ptr(machine_phys(m), fdt32_to_cpu(*start), 1),
                    0x22);
    CU_ASSERT_EQUAL(*phys_ram_ptr(machine_phys(m), MACH_RAM + 0x10000, 1),
                    0x11);
    CU_ASSERT(r2 >= fdt32_to_cpu(*end));
    /* The same blob given back with --dtb gets the same /chosen. */
    uint8_t *dtb2;
    size_t dtb2_bytes;
    CU_ASSERT_EQUAL(machine_boot(m, &k, initrd, sizeof(initrd), dtb, dtb_bytes,
                                 NULL, &dtb2, &dtb2_bytes, &err),
                    0);
    chosen = fdt_path_offset(dtb2, "/chosen");
    CU_ASSERT_PTR_NOT_NULL(
        fdt_getprop(dtb2, chosen, "linux,initrd-start", NULL));
    CU_ASSERT_STRING_EQUAL(fdt_getprop(dtb2, chosen, "bootargs", NULL),
                           "console=ttyAMA0");
    /* Images that do not fit are refused with one line. */
    k.bytes = 64u << 20;
    CU_ASSERT_EQUAL(machine_boot(m, &k, NULL, 0, NULL, 0, "", NULL, NULL, &err),
                    -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "do not fit"));
    free(dtb);
    free(dtb2);
    machine_free(m);
}

/* A minimal ELF32 ARM executable: one PT_LOAD of len bytes at paddr. */
static const char *make_elf(const char *name, uint32_t paddr, uint32_t entry,
                            const uint8_t *seg, uint32_t len)
{
    uint8_t b[52 + 32 + 64] = { 0x7f, 'E', 'L', 'F', 1, 1, 1 };
    uint32_t w[][2] = { { 16, 2 | 40u << 16 },
                        { 20, 1 },
                        { 24, entry },
                        { 28, 52 },
                        { 40, 52 | 32u << 16 },
                        { 44, 1 },
                        { 52, 1 },
                        { 56, 84 },
                        { 60, paddr },
                        { 64, paddr },
                        { 68, len },
                        { 72, len },
                        { 76, 5 } };
    for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++)
        memcpy(b + w[i][0], &w[i][1], 4);
    memcpy(b + 84, seg, len);
    return write_file(name, b, 84 + len);
}

/* The kernel forms QEMU's -kernel takes: a zImage, an ELF and a raw Image,
 * each placed where it runs and entered there. */
static void test_kernel_forms(void)
{
    struct pl_error err;
    loader_kernel k;
    uint8_t seg[64];
    memset(seg, 0x5a, sizeof(seg));

    CU_ASSERT_EQUAL_FATAL(
        loader_read_kernel(make_zimage("z", 4096, 0x016f2818), &k, &err), 0);
    CU_ASSERT_EQUAL(k.kind, LOADER_ZIMAGE);
    free(k.data);
    CU_ASSERT_EQUAL_FATAL(
        loader_read_kernel(write_file("raw", seg, sizeof(seg)), &k, &err), 0);
    CU_ASSERT_EQUAL(k.kind, LOADER_IMAGE);
    CU_ASSERT_EQUAL(k.bytes, sizeof(seg));
    machine *m = small_machine();
    CU_ASSERT_EQUAL(machine_boot(m, &k, NULL, 0, NULL, 0, "", NULL, NULL, &err),
                    0);
    arm_cpu *c0 = arm_sys_cpu(machine_cpus(m), 0);
    CU_ASSERT_EQUAL(arm_get_reg(c0, 15), MACH_RAM + 0x8000);
    CU_ASSERT_EQUAL(*phys_ram_ptr(machine_phys(m), MACH_RAM + 0x8000, 1), 0x5a);
    free(k.data);

    /* A vmlinux is linked at PAGE_OFFSET: it lands where the linear map says. */
    CU_ASSERT_EQUAL_FATAL(loader_read_kernel(make_elf("vmlinux", 0xc0008000u,
                                                      0xc0008010u, seg, 64),
                                             &k, &err),
                          0);
    CU_ASSERT_EQUAL(k.kind, LOADER_ELF);
    CU_ASSERT_EQUAL(k.addr, 0xc0008000u);
    CU_ASSERT_EQUAL(machine_boot(m, &k, NULL, 0, NULL, 0, "", NULL, NULL, &err),
                    0);
    CU_ASSERT_EQUAL(arm_get_reg(c0, 15), MACH_RAM + 0x8010);
    free(k.data);
    /* A bare-metal program linked in RAM runs at its own addresses. */
    CU_ASSERT_EQUAL_FATAL(
        loader_read_kernel(make_elf("bare", MACH_RAM + 0x100000,
                                    MACH_RAM + 0x100000, seg, 64),
                           &k, &err),
        0);
    CU_ASSERT_EQUAL(machine_boot(m, &k, NULL, 0, NULL, 0, "", NULL, NULL, &err),
                    0);
    CU_ASSERT_EQUAL(arm_get_reg(c0, 15), MACH_RAM + 0x100000);
    CU_ASSERT_EQUAL(*phys_ram_ptr(machine_phys(m), MACH_RAM + 0x100000, 1),
                    0x5a);
    free(k.data);
    CU_ASSERT_EQUAL_FATAL(
        loader_read_kernel(make_elf("low", 0x1000, 0x1000, seg, 64), &k, &err),
        0);
    CU_ASSERT_EQUAL(machine_boot(m, &k, NULL, 0, NULL, 0, "", NULL, NULL, &err),
                    -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "not in RAM"));
    free(k.data);
    machine_free(m);

    uint8_t bad[60] = { 0x7f, 'E', 'L', 'F', 2 };
    CU_ASSERT_EQUAL(loader_read_kernel(write_file("elf64", bad, sizeof(bad)),
                                       &k, &err),
                    -1);
    CU_ASSERT_PTR_NOT_NULL(
        strstr(err.msg, "elf64@4: an ELF that is not a 32-bit"));
    CU_ASSERT_EQUAL(loader_read_kernel(write_file("none", "", 0), &k, &err),
                    -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "empty file"));
}

int main(int argc, char **argv)
{
    static const board_case cases[] = {
        { "zImage checks", test_zimage },
        { "directories, endless and huge inputs", test_not_files },
        { "the compressed kernel in a zImage", test_kernel_payload },
        { "device tree nodes Linux needs", test_dtb_nodes },
        { "device tree memory against the board", test_dtb_memory },
        { "initramfs and DTB checks", test_initrd },
        { "command-line errors", test_cli_errors },
        { "hang and panic", test_hang_and_panic },
        { "outputs that cannot be written", test_output_failures },
        { "device tree", test_fdt },
        { "boot layout", test_boot_layout },
        { "kernel forms: zImage, ELF, raw Image", test_kernel_forms },
        { NULL, NULL },
    };
    return board_test_main(argc, argv, "board boot", cases);
}
