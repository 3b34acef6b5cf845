/* Test board and QEMU runner for the differential tests; see dt.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include "dt.h"
#include "../cpu/arm.h"

int dt_read_file(const char *path, dt_buf *out)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    out->p = malloc(n > 0 ? (size_t)n : 1);
    out->len = n > 0 ? (size_t)fread(out->p, 1, (size_t)n, f) : 0;
    fclose(f);
    return 0;
}

char *dt_private_dir(const char *parent)
{
    size_t n = strlen(parent) + 16;
    char *d = malloc(n);
    mkdir(parent, 0777);
    snprintf(d, n, "%s/run.XXXXXX", parent);
    if (!mkdtemp(d)) {
        perror(parent);
        exit(2);
    }
    return d;
}

static int remove_one(const char *path, const struct stat *st, int flag,
                      struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

void dt_remove_dir(char *dir)
{
    nftw(dir, remove_one, 8, FTW_DEPTH | FTW_PHYS);
    free(dir);
}

int dt_write_file(const char *path, const uint8_t *p, size_t len)
{
    FILE *f = fopen(path, "wb");
    if (!f)
        return -1;
    size_t w = fwrite(p, 1, len, f);
    return (fclose(f) == 0 && w == len) ? 0 : -1;
}

typedef struct board {
    dt_buf uart;
    size_t cap;
    int off;
    arm_cpu *cpu;
} board;

static uint32_t uart_read(void *opaque, uint32_t offset, int size_log2)
{
    (void)opaque;
    (void)size_log2;
    return offset == 0x18 ? 0x90 : 0;   /* UARTFR: TX empty */
}

static void uart_write(void *opaque, uint32_t offset, uint32_t val,
                       int size_log2)
{
    board *b = opaque;
    (void)size_log2;
    if (offset != 0)
        return;
    if (b->uart.len == b->cap) {
        b->cap = b->cap ? 2 * b->cap : 4096;
        b->uart.p = realloc(b->uart.p, b->cap);
    }
    b->uart.p[b->uart.len++] = (uint8_t)val;
}

static int hvc(void *opaque, arm_cpu *cpu)
{
    board *b = opaque;
    if (arm_get_reg(cpu, 0) == 0x84000008u) {   /* PSCI SYSTEM_OFF */
        b->off = 1;
        arm_request_exit(cpu);
        return 1;
    }
    arm_set_reg(cpu, 0, (uint32_t)-1);          /* NOT_SUPPORTED */
    return 1;
}

int dt_run_emu(const uint8_t *img, size_t len, uint64_t max_insns, int engine,
               dt_buf *uart, uint64_t *insns, uint32_t *pmu)
{
    board b = { 0 };
    phys_map *m = phys_map_new();
    uint8_t *ram = phys_register_ram(m, DT_RAM_BASE, DT_RAM_BYTES);
    phys_register_device(m, DT_UART, 0x1000, &b, uart_read, uart_write);
    memcpy(ram + (DT_LOAD - DT_RAM_BASE), img, len);
    arm_hooks h = { .opaque = &b, .hvc = hvc };
    struct pl_error err;
    arm_sys *s = arm_sys_new(m, 1, &h, &err);
    if (!s) {
        fprintf(stderr, "dt: %s\n", err.msg);
        exit(1);
    }
    if (arm_set_engine(s, engine)) {
        fprintf(stderr, "dt: engine %d is not built for this host\n", engine);
        exit(2);
    }
    b.cpu = arm_sys_cpu(s, 0);
    arm_set_pc(b.cpu, DT_LOAD);
    while (!b.off && arm_insn_count(b.cpu) < max_insns) {
        uint64_t left = max_insns - arm_insn_count(b.cpu);
        arm_run(b.cpu, left < 1000000 ? left : 1000000);
        if (arm_is_halted(b.cpu))
            break;
    }
    *insns = arm_insn_count(b.cpu);
    for (int i = 0; pmu && i < DT_PMU_COUNTERS; i++)
        pmu[i] = arm_pmu_counter(b.cpu, i);
    *uart = b.uart;
    if (!b.off) {
        fprintf(stderr, "dt: emu did not power off; its state:\n");
        arm_dump(b.cpu, stderr);
    }
    arm_sys_free(s);
    phys_map_free(m);
    return b.off ? 0 : -1;
}

int dt_run_qemu(const char *img_path, const char *work_dir, dt_buf *uart,
                const char *extra_args)
{
    char out[512], cmd[2048];
    snprintf(out, sizeof(out), "%s/qemu-uart.bin", work_dir);
    remove(out);
    snprintf(cmd, sizeof(cmd),
             "timeout 120 qemu-system-arm -M virt -cpu cortex-a15 -m 256 "
             "-display none -monitor none -nodefaults -serial file:%s "
             "-device loader,file=%s,addr=0x%x,force-raw=on "
             "-device loader,addr=0x%x,cpu-num=0 %s",
             out, img_path, DT_LOAD, DT_LOAD, extra_args ? extra_args : "");
    int st = system(cmd);
    if (st == -1 || !WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "dt: qemu failed (%d): %s\n", st, cmd);
        return -1;
    }
    return dt_read_file(out, uart);
}
