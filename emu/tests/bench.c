/* CPU benchmark: the same bare-metal loop (bench_loop.S) on emu/'s fast
 * engine, its reference engine and qemu-system-arm -M virt -cpu cortex-a15
 * -icount shift=2,sleep=off, one after the other in one process.
 * MIPS = guest instructions / host CPU time of the process running them
 * (getrusage, children for QEMU), so other jobs on this shared machine do
 * not skew the comparison; wall-clock MIPS are printed too. QEMU's
 * start-up cost is removed by timing two loop lengths and using the
 * difference.
 *
 * With --pmu-json, the fast engine then runs the loop REPS times with
 * PMU counters of instructions and cycles on and off, alternating, and
 * writes the median MIPS of each, their spread and the cost.
 *
 *   bench --guest DIR [--iters N] [--json FILE] [--pmu-json FILE]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/resource.h>
#include <jansson.h>
#include "../cpu/arm.h"
#include "dt.h"

#define COUNT_OFF 0x40
#define PMU_OFF 0x44
#define PMU_REPS 7

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static double cpu_s(int who)
{
    struct rusage u;
    getrusage(who, &u);
    return (double)u.ru_utime.tv_sec + (double)u.ru_utime.tv_usec * 1e-6 +
           (double)u.ru_stime.tv_sec + (double)u.ru_stime.tv_usec * 1e-6;
}

typedef struct timing {
    double wall_s, cpu_s;
} timing;

static void die(const char *msg)
{
    fprintf(stderr, "bench: %s\n", msg);
    exit(2);
}

static void patch(dt_buf *img, uint32_t iters)
{
    memcpy(img->p + COUNT_OFF, &iters, 4);
}

/* Times one QEMU run of the loop. */
static timing qemu_run(dt_buf *img, uint32_t iters, const char *work)
{
    char path[512];
    dt_buf out = { 0 };
    patch(img, iters);
    snprintf(path, sizeof(path), "%s/bench.bin", work);
    if (dt_write_file(path, img->p, img->len))
        die("cannot write the image");
    double t0 = now_s(), c0 = cpu_s(RUSAGE_CHILDREN);
    if (dt_run_qemu(path, work, &out, "-icount shift=2,sleep=off"))
        die("qemu failed");
    timing t = { now_s() - t0, cpu_s(RUSAGE_CHILDREN) - c0 };
    free(out.p);
    return t;
}

/* Times one emu/ run of the loop. */
static timing emu_run(dt_buf *img, int engine, uint64_t *insns)
{
    dt_buf out;
    double t0 = now_s(), c0 = cpu_s(RUSAGE_SELF);
    if (dt_run_emu(img->p, img->len, UINT64_MAX, engine, &out, insns))
        die("emu did not finish the loop");
    timing t = { now_s() - t0, cpu_s(RUSAGE_SELF) - c0 };
    free(out.p);
    return t;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Fast-engine MIPS with the PMU's counters off and on, PMU_REPS runs
 * each, alternating so that the machine's load hits both alike. */
static void pmu_cost(dt_buf *img, const char *json)
{
    double mips[2][PMU_REPS];
    uint64_t n[2];
    for (int r = 0; r < PMU_REPS; r++)
        for (int on = 0; on < 2; on++) {
            uint32_t flag = (uint32_t)on;
            memcpy(img->p + PMU_OFF, &flag, 4);
            timing t = emu_run(img, ARM_ENGINE_FAST, &n[on]);
            mips[on][r] = (double)n[on] / t.cpu_s / 1e6;
        }
    memset(img->p + PMU_OFF, 0, 4);
    if (n[1] != n[0] + 8) /* bench_loop.S's set-up ran */
        die("the loop with counters on did not run the PMU set-up");
    json_t *j = json_object();
    static const char *name[2] = { "off", "on" };
    double med[2];
    for (int on = 0; on < 2; on++) {
        qsort(mips[on], PMU_REPS, sizeof(double), cmp_double);
        med[on] = mips[on][PMU_REPS / 2];
        char key[64];
        snprintf(key, sizeof(key), "guest_loop_mips_counters_%s", name[on]);
        json_object_set_new(j, key, json_real(med[on]));
        snprintf(key, sizeof(key), "guest_loop_mips_counters_%s_min", name[on]);
        json_object_set_new(j, key, json_real(mips[on][0]));
        snprintf(key, sizeof(key), "guest_loop_mips_counters_%s_max", name[on]);
        json_object_set_new(j, key, json_real(mips[on][PMU_REPS - 1]));
        printf("  counters %-3s  %8.1f MIPS median of %d [%.1f .. %.1f]\n",
               name[on], med[on], PMU_REPS, mips[on][0],
               mips[on][PMU_REPS - 1]);
    }
    double cost = 100.0 * (med[0] / med[1] - 1.0);
    printf("  counting costs %.1f%% (median against median)\n", cost);
    json_object_set_new(j, "counters_on_cost_percent", json_real(cost));
    json_object_set_new(j, "runs_each", json_integer(PMU_REPS));
    json_object_set_new(j, "guest_instructions_on",
                        json_integer((json_int_t)n[1]));
    json_object_set_new(j, "guest_instructions_off",
                        json_integer((json_int_t)n[0]));
    json_object_set_new(
        j, "mips_basis",
        json_string(
            "fast engine, guest instructions per host CPU second (getrusage)"));
    if (json_dump_file(j, json, JSON_INDENT(2)))
        die("cannot write the PMU json file");
    json_decref(j);
}

int main(int argc, char **argv)
{
    const char *guest = NULL, *json = NULL, *pmu_json = NULL;
    uint32_t iters = 25000000;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--guest")) guest = argv[i + 1];
        else if (!strcmp(argv[i], "--json")) json = argv[i + 1];
        else if (!strcmp(argv[i], "--pmu-json"))
            pmu_json = argv[i + 1];
        else if (!strcmp(argv[i], "--iters")) iters = (uint32_t)atol(argv[i + 1]);
        else die("unknown option");
    }
    if (!guest)
        die("--guest is required");
    char path[1024];
    dt_buf img, out;
    snprintf(path, sizeof(path), "%s/bench_loop.bin", guest);
    if (dt_read_file(path, &img) || img.len < COUNT_OFF + 4)
        die("cannot read bench_loop.bin");

    uint64_t n_small, n_big, n_ref;
    patch(&img, iters / 10);
    if (dt_run_emu(img.p, img.len, UINT64_MAX, ARM_ENGINE_FAST, &out, &n_small))
        die("emu did not finish the small loop");
    free(out.p);
    patch(&img, iters);
    timing e = emu_run(&img, ARM_ENGINE_FAST, &n_big);
    timing r = emu_run(&img, ARM_ENGINE_REF, &n_ref);
    if (n_ref != n_big)
        die("the engines ran different instruction counts");
    if (pmu_json)
        pmu_cost(&img, pmu_json);
    double emu_mips = (double)n_big / e.cpu_s / 1e6;
    double emu_wall_mips = (double)n_big / e.wall_s / 1e6;
    double ref_mips = (double)n_big / r.cpu_s / 1e6;

    char *work = dt_private_dir(guest);
    timing qs = qemu_run(&img, iters / 10, work);
    timing qb = qemu_run(&img, iters, work);
    dt_remove_dir(work);
    double dn = (double)(n_big - n_small);
    double qemu_mips = qb.cpu_s > qs.cpu_s ? dn / (qb.cpu_s - qs.cpu_s) / 1e6 : 0;
    double qemu_wall_mips =
        qb.wall_s > qs.wall_s ? dn / (qb.wall_s - qs.wall_s) / 1e6 : 0;

    printf("bench: guest loop of %llu instructions (MIPS per host CPU "
           "second; wall-clock in brackets)\n", (unsigned long long)n_big);
    printf("  emu/ fast      %8.1f MIPS  [%6.1f]\n", emu_mips, emu_wall_mips);
    printf("  emu/ ref       %8.1f MIPS  [%6.1f]\n", ref_mips,
           (double)n_big / r.wall_s / 1e6);
    printf("  qemu -icount 2 %8.1f MIPS  [%6.1f]\n", qemu_mips,
           qemu_wall_mips);
    double ratio = qemu_mips > 0 ? emu_mips / qemu_mips : 0;
    printf("  fast/qemu %.2fx, fast/ref %.2fx\n", ratio, emu_mips / ref_mips);
    if (json) {
        json_t *j = json_object();
        json_object_set_new(j, "engine", json_string("fast"));
        json_object_set_new(j, "mips_emu", json_real(emu_mips));
        json_object_set_new(j, "mips_qemu", json_real(qemu_mips));
        json_object_set_new(j, "ratio", json_real(ratio));
        json_object_set_new(j, "mips_ref", json_real(ref_mips));
        json_object_set_new(j, "mips_emu_wall", json_real(emu_wall_mips));
        json_object_set_new(j, "mips_qemu_wall", json_real(qemu_wall_mips));
        json_object_set_new(j, "mips_basis", json_string(
            "guest instructions per host CPU second (getrusage)"));
        json_object_set_new(j, "guest_instructions", json_integer((json_int_t)n_big));
        json_object_set_new(j, "qemu_args", json_string(
            "-M virt -cpu cortex-a15 -icount shift=2,sleep=off"));
        if (json_dump_file(j, json, JSON_INDENT(2)))
            die("cannot write the json file");
        json_decref(j);
    }
    free(img.p);
    return 0;
}
