/* Kernel boot in lockstep: emu/ against qemu-system-arm, comparing r0-r15
 * and CPSR before every instruction. QEMU runs one instruction per block
 * and logs its state (-singlestep -d cpu,nochain) into a FIFO that this
 * tool reads as emu/ steps; a gdbstub single-step loop was ~40 times
 * slower, and comparing only at QEMU's block starts (no -singlestep) is
 * ambiguous where a block runs into a loop head inside it. The two agree until the guest first reads a device this minimal
 * board does not model, or QEMU takes an interrupt; the matched length is
 * the boot prefix.
 *
 *   bootstep --kernel Image --work DIR [--max-insns N] [--seconds S]
 *            [--json FILE]
 *
 * The kernel is started by QEMU's own boot stub; emu/ takes over QEMU's
 * registers at the kernel's entry point, with the same image and the DTB
 * QEMU dumps (-M virt,dumpdtb=). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <jansson.h>
#include "../cpu/arm.h"
#include "dt.h"

#define RAM_BASE 0x40000000u
#define RAM_BYTES (1u << 30)

static void die(const char *msg)
{
    fprintf(stderr, "bootstep: %s\n", msg);
    exit(2);
}

/* ---- QEMU's per-instruction state log (-singlestep -d cpu,nochain) ----
 * Each record is the state before an instruction:
 *   R00=... R01=... R02=... R03=...   (four lines of four registers)
 *   PSR=400001d3 -Z-- A svc32                                          */

static int read_record(FILE *f, uint32_t r[17])
{
    char line[256];
    int have = 0;
    while (fgets(line, sizeof(line), f)) {
        unsigned v[4];
        int base;
        if (sscanf(line, "R%2d=%x R%*2d=%x R%*2d=%x R%*2d=%x", &base, &v[0],
                   &v[1], &v[2], &v[3]) == 5 && base % 4 == 0 && base < 16) {
            for (int i = 0; i < 4; i++)
                r[base + i] = v[i];
            have |= 1 << (base / 4);
        } else if (sscanf(line, "PSR=%x", &v[0]) == 1 && have == 15) {
            r[16] = v[0];
            return 1;
        }
    }
    return 0;
}

/* ---- the emu side: RAM, a PL011 data register that ignores output ---- */

static uint32_t uart_read(void *o, uint32_t off, int lg)
{
    (void)o;
    (void)lg;
    return off == 0x18 ? 0x90 : 0;
}

static void uart_write(void *o, uint32_t off, uint32_t v, int lg)
{
    (void)o;
    (void)off;
    (void)v;
    (void)lg;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void print_regs(const char *who, const uint32_t r[17])
{
    printf("  %s:", who);
    for (int i = 0; i < 16; i++)
        printf("%s r%d=%08x", i % 4 ? "" : "\n   ", i, r[i]);
    printf("\n    cpsr=%08x\n", r[16]);
}

int main(int argc, char **argv)
{
    const char *kernel = NULL, *work = NULL, *json = NULL;
    uint64_t max_insns = 5000000;
    double seconds = 60;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--kernel")) kernel = argv[i + 1];
        else if (!strcmp(argv[i], "--work")) work = argv[i + 1];
        else if (!strcmp(argv[i], "--json")) json = argv[i + 1];
        else if (!strcmp(argv[i], "--max-insns")) max_insns = strtoull(argv[i + 1], NULL, 0);
        else if (!strcmp(argv[i], "--seconds")) seconds = atof(argv[i + 1]);
        else die("unknown option");
    }
    if (!kernel || !work)
        die("--kernel and --work are required");
    dt_buf img, dtb;
    if (dt_read_file(kernel, &img))
        die("cannot read the kernel image");
    char *priv = dt_private_dir(work);
    work = priv;

    /* The DTB QEMU passes, from a dry run with dumpdtb. */
    char dtb_path[512], fifo[512], cmd[2048];
    snprintf(dtb_path, sizeof(dtb_path), "%s/virt.dtb", work);
    snprintf(cmd, sizeof(cmd),
             "qemu-system-arm -M virt,dumpdtb=%s -cpu cortex-a15 -m 1024 "
             "-smp 1 -display none -nodefaults -kernel %s "
             "-append console=ttyAMA0 >/dev/null 2>&1", dtb_path, kernel);
    if (system(cmd) == -1 || dt_read_file(dtb_path, &dtb))
        die("cannot get the DTB from qemu");
    snprintf(fifo, sizeof(fifo), "%s/qemu-cpu.log", work);
    remove(fifo);
    if (mkfifo(fifo, 0600))
        die("mkfifo failed");
    pid_t qpid = fork();
    if (qpid == 0) {
        execlp("qemu-system-arm", "qemu-system-arm", "-M", "virt", "-cpu",
               "cortex-a15", "-m", "1024", "-smp", "1", "-display", "none",
               "-monitor", "none", "-nodefaults", "-serial", "null",
               "-kernel", kernel, "-append", "console=ttyAMA0",
               "-singlestep", "-d", "cpu,nochain", "-D", fifo, (char *)NULL);
        _exit(127);
    }
    FILE *f = fopen(fifo, "r");
    if (!f)
        die("cannot open the log fifo");
    uint32_t q[17], e[17];

    /* QEMU's boot stub runs first; the kernel starts at the first PC
     * outside the stub page, with r2 pointing at the DTB. */
    do {
        if (!read_record(f, q))
            die("qemu log ended before the kernel started");
    } while ((q[15] & ~0xfffu) == RAM_BASE);
    uint32_t entry = q[15];
    printf("bootstep: kernel entry %08x, dtb %08x, cpsr %08x\n", entry, q[2],
           q[16]);

    phys_map *m = phys_map_new();
    uint8_t *ram = phys_register_ram(m, RAM_BASE, RAM_BYTES);
    phys_register_device(m, DT_UART, 0x1000, NULL, uart_read, uart_write);
    if (entry - RAM_BASE + (uint64_t)img.len > RAM_BYTES ||
        q[2] - RAM_BASE + (uint64_t)dtb.len > RAM_BYTES)
        die("kernel or DTB outside RAM");
    memcpy(ram + (entry - RAM_BASE), img.p, img.len);
    memcpy(ram + (q[2] - RAM_BASE), dtb.p, dtb.len);

    struct pl_error err;
    arm_sys *s = arm_sys_new(m, 1, NULL, &err);
    if (!s)
        die(err.msg);
    arm_cpu *c = arm_sys_cpu(s, 0);
    for (int i = 0; i < 15; i++)
        arm_set_reg(c, i, q[i]);
    arm_set_cpsr(c, q[16]);
    arm_set_pc(c, entry);

    uint64_t n = 0;
    int diverged = 0;
    double t0 = now_s();
    uint32_t prev_pc = entry;
    while (n < max_insns && now_s() - t0 < seconds) {
        arm_regs r;
        arm_run(c, 1);
        if (!read_record(f, q))
            break;
        arm_get_regs(c, &r);
        memcpy(e, r.r, sizeof(r.r));
        e[16] = r.cpsr;
        n++;
        if (memcmp(e, q, sizeof(q))) {
            printf("bootstep: DIVERGED after %llu instructions; last one at "
                   "%08x\n", (unsigned long long)n, prev_pc);
            print_regs("emu ", e);
            print_regs("qemu", q);
            diverged = 1;
            break;
        }
        prev_pc = q[15];
    }
    uint64_t matched = diverged ? n - 1 : n;
    printf("bootstep: %llu kernel instructions matched in %.1f s (%s)\n",
           (unsigned long long)matched, now_s() - t0,
           diverged ? "stopped at the first divergence" : "limit reached");
    kill(qpid, SIGKILL);
    fclose(f);
    waitpid(qpid, NULL, 0);
    dt_remove_dir(priv);
    if (json) {
        json_t *j = json_load_file(json, 0, NULL);
        if (!j)
            j = json_object();
        json_object_set_new(j, "boot_prefix_instructions",
                            json_integer((json_int_t)matched));
        json_object_set_new(j, "boot_prefix_stopped_by",
                            json_string(diverged ? "divergence" : "limit"));
        if (json_dump_file(j, json, JSON_INDENT(2)))
            die("cannot write the json file");
        json_decref(j);
    }
    arm_sys_free(s);
    phys_map_free(m);
    free(img.p);
    free(dtb.p);
    return 0;
}
