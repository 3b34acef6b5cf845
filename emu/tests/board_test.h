/* Helpers and the main() the board's CUnit tests share: each
 * test_board_LAYER.c is a program of its own (emu/board.mk) that includes
 * this once. Temporary files live in one folder per program, made by
 * board_test_main and removed at its end; argv[1] is the panlab-phone
 * binary for the tests that run it. Code run on the cores is given as
 * encodings with the assembly in comments. */
#ifndef PANLAB_EMU_BOARD_TEST_H
#define PANLAB_EMU_BOARD_TEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <zlib.h>
#include <CUnit/Basic.h>
#include "../machine.h"
#include "../cpu/arm_int.h"
#include "panlab/error.h"

/* A machine the test's configuration must build: a failure ends the
 * test program with machine_new's error. */
static inline machine *board_machine(const machine_config *cfg)
{
    struct pl_error err;
    machine *m = machine_new(cfg, &err);
    if (!m) {
        fprintf(stderr, "machine_new: %s\n", err.msg);
        abort();
    }
    return m;
}

static const char *phone_bin = "../build/emu/panlab-phone";
static char tmpdir[] = "/tmp/test_board.XXXXXX";

static inline const char *tmp_path(const char *name)
{
    static char buf[4][256];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof(buf[k]), "%s/%s", tmpdir, name);
    return buf[k];
}

static inline const char *write_file(const char *name, const void *data,
                                     size_t n)
{
    const char *p = tmp_path(name);
    FILE *f = fopen(p, "wb");
    if (n)
        fwrite(data, 1, n, f);
    fclose(f);
    return p;
}

static inline const char *write_gz(const char *name, const char *text)
{
    const char *p = tmp_path(name);
    gzFile g = gzopen(p, "wb");
    gzwrite(g, text, (unsigned)strlen(text));
    gzclose(g);
    return p;
}

/* The gzip member of an empty file (gzip -n), as the compressed kernel a
 * zImage must carry. */
static const uint8_t empty_gz[] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3,
                                    3,    0,    0, 0, 0, 0, 0, 0, 0, 0 };
#define GZ_AT 0x100

/* A minimal zImage: the magic at 0x24, start 0 and end = size, an empty
 * gzip member at GZ_AT. */
static inline const char *make_zimage(const char *name, uint32_t size,
                                      uint32_t magic)
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

static inline void expect_err(int rc, const char *msg, const char *want)
{
    CU_ASSERT_EQUAL(rc, -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(msg, want));
    CU_ASSERT_PTR_NULL(strchr(msg, '\n'));
}

/* Runs panlab-phone with args and its stdout into out; returns its exit
 * status and the number of lines it printed on stderr, whose first line
 * goes to first. */
static inline int run_phone_to(const char *args, const char *out, int *lines,
                               char *first, size_t len)
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

static inline int run_phone(const char *args, int *lines, char *first,
                            size_t len)
{
    return run_phone_to(args, "/dev/null", lines, first, len);
}

/* A zImage-shaped bare-metal program: code at 0, the zImage header at
 * 0x24..0x2f, a string at 0x40, an empty gzip member at 0x80. */
static inline const char *make_program(const char *name, const uint32_t *code,
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
    0xe3001000, /* movw r1, #0 */
    0xe3401900, /* movt r1, #0x0900: the PL011 */
    0xe28f2030, /* add r2, pc, #0x30: the string at 0x40 */
    0xe4d23001, /* 1: ldrb r3, [r2], #1 */
    0xe3530000, /* cmp r3, #0 */
    0x15813000, /* strne r3, [r1] */
    0x1afffffb, /* bne 1b */
};

/* A program that prints text, then spins or powers off (PSCI SYSTEM_OFF
 * over HVC, at 0x30 past the zImage header at 0x24..0x2f). */
static inline const char *make_printer(const char *name, const char *text,
                                       int power_off)
{
    uint32_t code[16] = { 0 };
    memcpy(code, print_loop, sizeof(print_loop));
    code[7] = power_off ? 0xea000003 : 0xeafffffe; /* b 0x30 : b . */
    code[12] = 0xe3000008;                         /* movw r0, #8 */
    code[13] = 0xe3480400; /* movt r0, #0x8400: SYSTEM_OFF */
    code[14] = 0xe1400070; /* hvc #0 */
    code[15] = 0xeafffffe; /* b . */
    return make_program(name, code, power_off ? 16 : 8, text);
}

static inline void discard(void *opaque, const uint8_t *buf, size_t n)
{
    (void)opaque;
    (void)buf;
    (void)n;
}

static inline machine *machine_of(int ncores)
{
    machine_config cfg;
    machine_config_default(&cfg);
    cfg.ncores = ncores;
    cfg.ram_bytes = 16u << 20;
    cfg.console = (byte_sink){ discard, NULL };
    return board_machine(&cfg);
}

static inline machine *small_machine(void)
{
    return machine_of(2);
}

/* Loads a loop of `iters` iterations ending in WFI at RAM + 0x1000. */
static inline void load_loop(machine *m, uint32_t iters)
{
    uint32_t code[] = {
        0xe3000000 | (iters & 0xf000) << 4 | (iters & 0xfff),     /* movw r0 */
        0xe3400000 | (iters >> 28) << 16 | (iters >> 16 & 0xfff), /* movt r0 */
        0xe2500001, /* loop: subs r0, r0, #1 */
        0x1afffffd, /* bne loop */
        0xe320f003, /* wfi */
        0xeafffffd, /* b wfi */
    };
    memcpy(phys_ram_ptr(machine_phys(m), MACH_RAM + 0x1000, sizeof(code)), code,
           sizeof(code));
}

/* Virtual time at which every powered core has halted. */
static inline uint64_t run_until_halted(machine *m)
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

typedef struct board_case {
    const char *name;
    void (*run)(void);
} board_case;

/* Runs the cases (ended by a NULL name) as one CUnit suite; exit status
 * 0 when all pass. */
static inline int board_test_main(int argc, char **argv, const char *suite,
                                  const board_case *cases)
{
    if (argc > 1)
        phone_bin = argv[1];
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite(suite, NULL, NULL);
    for (const board_case *c = cases; c->name; c++)
        CU_add_test(s, c->name, c->run);
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

#endif
