/* Differential test: random A32 streams on emu/ and qemu-system-arm,
 * compared by end state (registers, CPSR and the data area). On a
 * divergence the stream is cut down by bisection to the first instruction
 * whose result differs, and both register files are printed.
 *
 *   difftest --guest DIR --work DIR [--seeds N] [--insns N]
 *            [--seed-base S] [--regress DIR] [--json FILE]
 *            [--one SEED LEN]
 *
 * emu/ runs each stream on both engines (cpu/arm.h): the fast engine's
 * output is compared with QEMU's, and its output, instruction count and
 * PMU counts (loads, stores, PC writes, instructions; dt.h) with the
 * reference engine's.
 *
 * Regression files (*.dt in the regress directory) hold "seed S insns N" lines; each is run
 * before the random seeds. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <jansson.h>
#include "../cpu/arm.h"
#include "dt.h"

typedef struct opts {
    const char *guest, *work, *regress, *json;
    uint64_t seeds, seed_base;
    uint32_t insns;
} opts;

static dt_buf frame;
static const char *work_dir;

static void die(const char *msg)
{
    fprintf(stderr, "difftest: %s\n", msg);
    exit(2);
}

/* Runs seed/len on both; returns 1 if they differ, 0 if equal, -1 on a
 * harness failure. Fills the outputs when asked. */
static int run_pair(uint64_t seed, uint32_t len, dt_buf *e_out,
                    dt_buf *q_out, uint64_t *executed)
{
    dt_buf img, eu = { 0 }, qu = { 0 };
    char path[512];
    uint64_t n;
    dt_gen(&frame, seed, len, &img);
    snprintf(path, sizeof(path), "%s/img.bin", work_dir);
    if (dt_write_file(path, img.p, img.len))
        die("cannot write the image");
    /* The fast engine against QEMU, and against the reference engine by
     * output and instruction count. */
    dt_buf ru = { 0 };
    uint64_t rn;
    uint32_t ep[DT_PMU_COUNTERS], rp[DT_PMU_COUNTERS];
    int erc = dt_run_emu(img.p, img.len, 20ull * len + 1000000,
                         ARM_ENGINE_FAST, &eu, &n, ep);
    int rrc = dt_run_emu(img.p, img.len, 20ull * len + 1000000,
                         ARM_ENGINE_REF, &ru, &rn, rp);
    int pmu_differ = memcmp(ep, rp, sizeof(ep)) != 0;
    int engines_differ = rrc != erc || rn != n || ru.len != eu.len ||
                         memcmp(ru.p, eu.p, eu.len) != 0 || pmu_differ;
    if (engines_differ)
        printf("  seed %llu len %u: fast engine %llu instructions, "
               "reference %llu, outputs %s, PMU counts %s\n",
               (unsigned long long)seed, len, (unsigned long long)n,
               (unsigned long long)rn,
               ru.len == eu.len && !memcmp(ru.p, eu.p, eu.len) ? "equal"
                                                              : "differ",
               pmu_differ ? "differ" : "equal");
    free(ru.p);
    free(img.p);
    if (dt_run_qemu(path, work_dir, &qu, NULL)) {
        free(eu.p);
        return -1;
    }
    if (executed)
        *executed = n;
    int differ = engines_differ || erc != 0 || eu.len != qu.len ||
                 memcmp(eu.p, qu.p, eu.len) != 0;
    if (e_out)
        *e_out = eu;
    else
        free(eu.p);
    if (q_out)
        *q_out = qu;
    else
        free(qu.p);
    return differ;
}

static void print_regs(const char *who, const dt_buf *b)
{
    uint32_t r[24] = { 0 };
    memcpy(r, b->p, b->len < 96 ? b->len : 96);
    printf("  %s:", who);
    for (int i = 0; i < 15; i++)
        printf("%s r%d=%08x", i % 5 ? "" : "\n   ", i, r[i]);
    printf("\n    cpsr=%08x (output %zu bytes)\n", r[15], b->len);
    printf("    exceptions: %u, hash %08x; last: type %u spsr %08x lr %08x "
           "fsr %08x far %08x\n", r[17], r[16], r[18], r[19], r[20], r[21],
           r[22]);
}

/* Finds the shortest prefix that still diverges and reports it. */
static void report(uint64_t seed, uint32_t len)
{
    uint32_t lo = 0, hi = len;      /* lo agrees (or unknown), hi differs */
    if (run_pair(seed, 0, NULL, NULL, NULL) == 1) {
        printf("difftest: seed %llu diverges with an empty body\n",
               (unsigned long long)seed);
        hi = 0;
    }
    while (hi && hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        int r = run_pair(seed, mid, NULL, NULL, NULL);
        if (r < 0)
            break;
        if (r)
            hi = mid;
        else
            lo = mid;
    }
    dt_buf img, e = { 0 }, q = { 0 };
    run_pair(seed, hi, &e, &q, NULL);
    dt_gen(&frame, seed, hi, &img);
    uint32_t w = 0;
    if (hi)
        memcpy(&w, img.p + DT_BODY_OFF + 4 * (hi - 1), 4);
    printf("FIRST DIVERGENCE: seed %llu after %u body words; last %s %08x at "
           "%08x\n", (unsigned long long)seed, hi,
           dt_thumb_seed(seed) ? "two Thumb halfwords" : "instruction", w,
           DT_LOAD + DT_BODY_OFF + 4 * (hi - 1));
    if (hi > 1) {
        printf("  preceding:");
        for (uint32_t i = hi > 6 ? hi - 6 : 0; i + 1 < hi; i++) {
            memcpy(&w, img.p + DT_BODY_OFF + 4 * i, 4);
            printf(" %08x", w);
        }
        printf("\n");
    }
    print_regs("emu ", &e);
    print_regs("qemu", &q);
    for (size_t i = 96; i < e.len && i < q.len; i += 4)
        if (memcmp(e.p + i, q.p + i, 4)) {
            uint32_t a, b;
            memcpy(&a, e.p + i, 4);
            memcpy(&b, q.p + i, 4);
            printf("  data +0x%zx: emu %08x qemu %08x\n", i - 96, a, b);
        }
    printf("  reproduce: difftest --one %llu %u; add \"seed %llu insns %u\" "
           "to tests/regress/<name>.dt\n", (unsigned long long)seed, hi,
           (unsigned long long)seed, hi);
    free(img.p);
    free(e.p);
    free(q.p);
}

/* One case: returns 1 on divergence. */
static int run_case(uint64_t seed, uint32_t len, uint64_t *insns,
                    uint64_t *executed)
{
    uint64_t n = 0;
    int r = run_pair(seed, len, NULL, NULL, &n);
    if (r < 0)
        die("qemu run failed");
    *insns += len;
    *executed += n;
    if (r)
        report(seed, len);
    return r;
}

/* Fixed images (identification registers and reset state): run on both
 * and compare word by word. Returns 1 on a difference. */
static int run_fixed(const char *guest, const char *name)
{
    char path[1024];
    dt_buf img, e = { 0 }, q = { 0 };
    uint64_t n;
    snprintf(path, sizeof(path), "%s/%s", guest, name);
    if (dt_read_file(path, &img))
        die("cannot read a fixed image");
    int erc = dt_run_emu(img.p, img.len, 1000000, ARM_ENGINE_FAST, &e, &n,
                         NULL);
    if (dt_run_qemu(path, work_dir, &q, NULL))
        die("qemu run failed");
    int bad = erc != 0 || e.len != q.len || memcmp(e.p, q.p, e.len);
    for (size_t i = 0; bad && i + 4 <= e.len && i + 4 <= q.len; i += 4)
        if (memcmp(e.p + i, q.p + i, 4)) {
            uint32_t a, b;
            memcpy(&a, e.p + i, 4);
            memcpy(&b, q.p + i, 4);
            printf("  %s word %zu: emu %08x qemu %08x\n", name, i / 4, a, b);
        }
    printf("fixed image %s: %s\n", name, bad ? "DIVERGED" : "ok");
    free(img.p);
    free(e.p);
    free(q.p);
    return bad;
}

static int run_regressions(const char *dir, uint64_t *insns,
                           uint64_t *executed, int *cases)
{
    DIR *d = dir ? opendir(dir) : NULL;
    int bad = 0;
    if (!d)
        return 0;
    struct dirent *de;
    while ((de = readdir(d))) {
        size_t l = strlen(de->d_name);
        if (l < 4 || strcmp(de->d_name + l - 3, ".dt"))
            continue;
        char path[1024], line[256];
        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        int lineno = 0;
        while (fgets(line, sizeof(line), f)) {
            unsigned long long s;
            unsigned n;
            lineno++;
            if (line[0] == '#' || line[0] == '\n')
                continue;
            if (sscanf(line, "seed %llu insns %u", &s, &n) != 2) {
                fprintf(stderr, "%s:%d: expected \"seed S insns N\"\n", path,
                        lineno);
                exit(2);
            }
            int r = run_case(s, n, insns, executed);
            printf("regression %s seed %llu: %s\n", de->d_name, s,
                   r ? "DIVERGED" : "ok");
            bad += r;
            (*cases)++;
        }
        fclose(f);
    }
    closedir(d);
    return bad;
}

int main(int argc, char **argv)
{
    opts o = { .seeds = 10, .seed_base = 1, .insns = 100000 };
    long long one_seed = -1;
    uint32_t one_len = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--one") && i + 2 < argc) {
            one_seed = atoll(argv[i + 1]);
            one_len = (uint32_t)atol(argv[i + 2]);
            i += 2;
            continue;
        }
        if (!v)
            die("missing option value");
        i++;
        if (!strcmp(a, "--guest")) o.guest = v;
        else if (!strcmp(a, "--work")) o.work = v;
        else if (!strcmp(a, "--regress")) o.regress = v;
        else if (!strcmp(a, "--json")) o.json = v;
        else if (!strcmp(a, "--seeds")) o.seeds = strtoull(v, NULL, 0);
        else if (!strcmp(a, "--seed-base")) o.seed_base = strtoull(v, NULL, 0);
        else if (!strcmp(a, "--insns")) o.insns = (uint32_t)strtoul(v, NULL, 0);
        else die("unknown option");
    }
    if (!o.guest || !o.work)
        die("--guest and --work are required");
    char path[1024];
    snprintf(path, sizeof(path), "%s/dt_frame.bin", o.guest);
    if (dt_read_file(path, &frame))
        die("cannot read dt_frame.bin");
    char *priv = dt_private_dir(o.work);
    work_dir = priv;

    uint64_t insns = 0, executed = 0;
    int bad = 0, cases = 0;
    if (one_seed >= 0) {
        bad = run_case((uint64_t)one_seed, one_len, &insns, &executed);
        printf("difftest: seed %lld len %u: %s\n", one_seed, one_len,
               bad ? "DIVERGED" : "ok");
        dt_remove_dir(priv);
        return bad != 0;
    }
    bad += run_fixed(o.guest, "dt_idregs.bin");
    cases++;
    bad += run_regressions(o.regress, &insns, &executed, &cases);
    for (uint64_t s = 0; s < o.seeds; s++) {
        bad += run_case(o.seed_base + s, o.insns, &insns, &executed);
        cases++;
    }
    printf("difftest: %d cases, %llu random instructions (%llu executed on "
           "emu incl. frame), %d divergences\n", cases,
           (unsigned long long)insns, (unsigned long long)executed, bad);
    if (o.json) {
        json_t *j = json_object();
        json_object_set_new(j, "random_instructions", json_integer((json_int_t)insns));
        json_object_set_new(j, "executed_instructions", json_integer((json_int_t)executed));
        json_object_set_new(j, "cases", json_integer(cases));
        json_object_set_new(j, "divergences", json_integer(bad));
        json_object_set_new(j, "boot_prefix_instructions", json_integer(0));
        if (json_dump_file(j, o.json, JSON_INDENT(2)))
            die("cannot write the json file");
        json_decref(j);
    }
    dt_remove_dir(priv);
    return bad != 0;
}
