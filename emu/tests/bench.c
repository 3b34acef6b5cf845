/* CPU benchmark: the same bare-metal loop (bench_loop.S) on emu/'s fast
 * engine, its reference engine and qemu-system-arm -M virt -cpu cortex-a15
 * -icount shift=2,sleep=off. Each engine's loop length is calibrated so that
 * one measurement takes at least --min-s seconds of host CPU time; then
 * --reps rounds run fast, QEMU, ref in turn, and every figure is the median
 * of its rounds with the min-max spread, the ratios taken round by round
 * (benchstat.h). MIPS = guest instructions / host CPU time of the process
 * running them (getrusage, children for QEMU), which the other tenants of a
 * shared host disturb less than wall time; wall-clock MIPS are kept too.
 * QEMU's start-up cost is removed by timing a tenth of the loop as well and
 * using the difference.
 *
 * With --pmu-json, the fast engine then runs the loop --reps rounds with
 * PMU counters (instructions, loads, stores, PC writes and cycles) off,
 * then on, and writes the median MIPS of each, their spread and the cost,
 * per round.
 *
 *   bench --guest DIR [--reps N] [--min-s S] [--json FILE] [--pmu-json FILE]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <jansson.h>
#include "../cpu/arm.h"
#include "benchstat.h"
#include "cpu_seconds.h"
#include "dt.h"

#define COUNT_OFF 0x40
#define PMU_OFF 0x44
#define MAX_REPS 64

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* One measurement: guest instructions and the host time they took. */
typedef struct timing {
    double insns, wall_s, cpu_s;
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

/* Times one emu/ run of the loop. */
static timing emu_run(dt_buf *img, uint32_t iters, int engine)
{
    dt_buf out;
    uint64_t n;
    patch(img, iters);
    double t0 = now_s(), c0 = cpu_seconds(RUSAGE_SELF);
    if (dt_run_emu(img->p, img->len, UINT64_MAX, engine, &out, &n, NULL))
        die("emu did not finish the loop");
    timing t = { (double)n, now_s() - t0, cpu_seconds(RUSAGE_SELF) - c0 };
    free(out.p);
    return t;
}

/* Times one QEMU process running the loop. */
static timing qemu_once(dt_buf *img, uint32_t iters, const char *work)
{
    char path[512];
    dt_buf out = { 0 };
    patch(img, iters);
    snprintf(path, sizeof(path), "%s/bench.bin", work);
    if (dt_write_file(path, img->p, img->len))
        die("cannot write the image");
    double t0 = now_s(), c0 = cpu_seconds(RUSAGE_CHILDREN);
    if (dt_run_qemu(path, work, &out, "-icount shift=2,sleep=off"))
        die("qemu failed");
    timing t = { 0, now_s() - t0, cpu_seconds(RUSAGE_CHILDREN) - c0 };
    free(out.p);
    return t;
}

/* QEMU's loop without its start-up: a run of `iters` minus one of a tenth of
 * them; insns_per_iter comes from emu/, which runs the same image. */
static timing qemu_run(dt_buf *img, uint32_t iters, double insns_per_iter,
                       const char *work)
{
    timing s = qemu_once(img, iters / 10, work);
    timing b = qemu_once(img, iters, work);
    return (timing){ insns_per_iter * (double)(iters - iters / 10),
                     b.wall_s - s.wall_s, b.cpu_s - s.cpu_s };
}

/* The median of figure `key` in a bench_pairs() object (borrowed). */
static json_t *median(const json_t *pairs, const char *key)
{
    return json_object_get(json_object_get(pairs, key), "median");
}

/* The loop length that makes a run of `probe` take min_s CPU seconds. */
static uint32_t scale_iters(uint32_t probe_iters, timing probe, double min_s)
{
    double iters = (double)probe_iters * min_s / fmax(probe.cpu_s, 1e-3);
    return iters > 4e9 ? 4000000000u : (uint32_t)ceil(iters);
}

/* Fast-engine MIPS with the PMU's counters off and on, `reps` rounds of
 * off then on; the cost is the per-round ratio off/on (benchstat.h). */
static void pmu_cost(dt_buf *img, uint32_t iters, int reps, const char *json)
{
    double mips[2][MAX_REPS];
    uint64_t n[2];
    for (int r = 0; r < reps; r++)
        for (int on = 0; on < 2; on++) {
            uint32_t flag = (uint32_t)on;
            memcpy(img->p + PMU_OFF, &flag, 4);
            timing t = emu_run(img, iters, ARM_ENGINE_FAST);
            n[on] = (uint64_t)t.insns;
            mips[on][r] = t.insns / t.cpu_s / 1e6;
        }
    memset(img->p + PMU_OFF, 0, 4);
    if (n[1] != n[0] + 20) /* bench_loop.S's set-up ran */
        die("the loop with counters on did not run the PMU set-up");
    json_t *p = bench_pairs(mips[0], mips[1], (size_t)reps,
                            "guest_loop_mips_counters_off",
                            "guest_loop_mips_counters_on");
    const json_t *ratio = json_object_get(p, "ratio");
    double cost =
        100.0 * (json_real_value(json_object_get(ratio, "median")) - 1.0);
    printf("bench: the PMU's counters, %d rounds of off, on (fast engine)\n",
           reps);
    bench_print("  ", "counters off (MIPS)",
                json_object_get(p, "guest_loop_mips_counters_off"));
    bench_print("  ", "counters on (MIPS)",
                json_object_get(p, "guest_loop_mips_counters_on"));
    bench_print("  ", "off/on, per round", ratio);
    printf("  counting costs %.1f%% (the median of the per-round ratios)\n",
           cost);
    json_t *j = json_object();
    /* The medians under the names the single-run figures used. */
    json_object_set(j, "guest_loop_mips_counters_off",
                    median(p, "guest_loop_mips_counters_off"));
    json_object_set(j, "guest_loop_mips_counters_on",
                    median(p, "guest_loop_mips_counters_on"));
    json_object_set_new(j, "counters_on_cost_percent", json_real(cost));
    json_object_set_new(j, "rounds", p);
    json_object_set_new(j, "repetitions", json_integer(reps));
    json_object_set_new(j, "guest_instructions_on",
                        json_integer((json_int_t)n[1]));
    json_object_set_new(j, "guest_instructions_off",
                        json_integer((json_int_t)n[0]));
    json_object_set_new(
        j, "mips_basis",
        json_string(
            "fast engine, guest instructions per host CPU second (getrusage)"));
    if (json_dump_file(j, json, JSON_INDENT(2) | JSON_REAL_PRECISION(6)))
        die("cannot write the PMU json file");
    json_decref(j);
}

int main(int argc, char **argv)
{
    const char *guest = NULL, *json = NULL, *pmu_json = NULL;
    int reps = 5;
    double min_s = 2.0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--guest"))
            guest = argv[i + 1];
        else if (!strcmp(argv[i], "--json"))
            json = argv[i + 1];
        else if (!strcmp(argv[i], "--pmu-json"))
            pmu_json = argv[i + 1];
        else if (!strcmp(argv[i], "--reps"))
            reps = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--min-s"))
            min_s = atof(argv[i + 1]);
        else
            die("unknown option");
    }
    if (!guest)
        die("--guest is required");
    if (reps < 1 || reps > MAX_REPS || !(min_s > 0))
        die("--reps must be 1-64 and --min-s above 0");
    json_t *host_start = bench_host();
    char path[1024];
    dt_buf img;
    snprintf(path, sizeof(path), "%s/bench_loop.bin", guest);
    if (dt_read_file(path, &img) || img.len < COUNT_OFF + 4)
        die("cannot read bench_loop.bin");
    char *work = dt_private_dir(guest);

    /* Calibration: instructions per iteration from two emu/ lengths, then
     * each engine's length for min_s with a 25% margin against noise. */
    const uint32_t probe = 5000000;
    timing p1 = emu_run(&img, probe, ARM_ENGINE_FAST);
    timing p2 = emu_run(&img, 2 * probe, ARM_ENGINE_FAST);
    double per_iter = (p2.insns - p1.insns) / probe;
    double target_s = min_s * 1.25;
    uint32_t it_fast = scale_iters(2 * probe, p2, target_s);
    uint32_t it_ref =
        scale_iters(probe, emu_run(&img, probe, ARM_ENGINE_REF), target_s);
    timing qp = qemu_run(&img, 4 * probe, per_iter, work);
    uint32_t it_qemu = scale_iters(4 * probe - 4 * probe / 10, qp, target_s);
    it_qemu = (uint32_t)fmin(4e9, it_qemu / 0.9);

    double fast[MAX_REPS], ref[MAX_REPS], qemu[MAX_REPS];
    double fast_w[MAX_REPS], qemu_w[MAX_REPS], shortest_s = 1e9;
    for (int r = 0; r < reps; r++) {
        timing f = emu_run(&img, it_fast, ARM_ENGINE_FAST);
        timing q = qemu_run(&img, it_qemu, per_iter, work);
        timing e = emu_run(&img, it_ref, ARM_ENGINE_REF);
        fast[r] = f.insns / f.cpu_s / 1e6;
        fast_w[r] = f.insns / f.wall_s / 1e6;
        qemu[r] = q.insns / q.cpu_s / 1e6;
        qemu_w[r] = q.insns / q.wall_s / 1e6;
        ref[r] = e.insns / e.cpu_s / 1e6;
        shortest_s = fmin(shortest_s, fmin(f.cpu_s, fmin(q.cpu_s, e.cpu_s)));
        printf("bench: round %d/%d: fast %.1f, qemu %.1f, ref %.1f MIPS\n",
               r + 1, reps, fast[r], qemu[r], ref[r]);
        fflush(stdout);
    }
    dt_remove_dir(work);
    if (pmu_json)
        pmu_cost(&img, it_fast, reps, pmu_json);
    free(img.p);

    json_t *fq = bench_pairs(fast, qemu, (size_t)reps, "mips_emu", "mips_qemu");
    json_t *fr = bench_pairs(fast, ref, (size_t)reps, "mips_emu", "mips_ref");
    json_t *fqw = bench_pairs(fast_w, qemu_w, (size_t)reps, "mips_emu_wall",
                              "mips_qemu_wall");
    json_t *host_end = bench_host();
    printf("bench: guest loop, %d rounds of fast, QEMU, ref; each run >= "
           "%.1f s CPU (shortest %.2f s); MIPS per host CPU second\n",
           reps, min_s, shortest_s);
    bench_print("  ", "emu/ fast (MIPS)", json_object_get(fq, "mips_emu"));
    bench_print("  ", "emu/ ref (MIPS)", json_object_get(fr, "mips_ref"));
    bench_print("  ", "qemu -icount 2 (MIPS)",
                json_object_get(fq, "mips_qemu"));
    bench_print("  ", "fast/qemu, per round", json_object_get(fq, "ratio"));
    bench_print("  ", "fast/ref, per round", json_object_get(fr, "ratio"));
    bench_print("  ", "fast/qemu wall, per round",
                json_object_get(fqw, "ratio"));
    json_t *ls = json_object_get(host_start, "loadavg");
    json_t *le = json_object_get(host_end, "loadavg");
    printf("  host: %s; load average %.2f at the start, %.2f at the end\n",
           json_string_value(json_object_get(host_start, "cpu_model")),
           json_real_value(json_array_get(ls, 0)),
           json_real_value(json_array_get(le, 0)));
    if (json) {
        json_t *j = json_object();
        json_object_set_new(j, "engine", json_string("fast"));
        /* The medians under the names the earlier single-run bench used. */
        json_object_set(j, "mips_emu", median(fq, "mips_emu"));
        json_object_set(j, "mips_qemu", median(fq, "mips_qemu"));
        json_object_set(j, "mips_ref", median(fr, "mips_ref"));
        json_object_set(j, "ratio", median(fq, "ratio"));
        json_t *loop = json_pack(
            "{s:O, s:O, s:O, s:O, s:O, s:O, s:O, s:b}", "mips_emu",
            json_object_get(fq, "mips_emu"), "mips_qemu",
            json_object_get(fq, "mips_qemu"), "mips_ref",
            json_object_get(fr, "mips_ref"), "ratio_emu_qemu",
            json_object_get(fq, "ratio"), "ratio_emu_ref",
            json_object_get(fr, "ratio"), "mips_emu_wall",
            json_object_get(fqw, "mips_emu_wall"), "ratio_emu_qemu_wall",
            json_object_get(fqw, "ratio"), "stable",
            json_is_true(
                json_object_get(json_object_get(fq, "ratio"), "stable")) &&
                json_is_true(
                    json_object_get(json_object_get(fr, "ratio"), "stable")));
        json_object_set_new(loop, "repetitions", json_integer(reps));
        json_object_set_new(loop, "shortest_measurement_s",
                            json_real(shortest_s));
        json_object_set_new(loop, "guest_instructions_per_run",
                            json_pack("{s:f, s:f, s:f}", "fast",
                                      per_iter * it_fast, "ref",
                                      per_iter * it_ref, "qemu",
                                      per_iter * (it_qemu - it_qemu / 10)));
        json_object_set_new(j, "guest_loop", loop);
        json_object_set_new(
            j, "mips_basis",
            json_string(
                "guest instructions per host CPU second (getrusage); rounds "
                "interleave fast, QEMU, ref; ratios are per round"));
        json_object_set_new(
            j, "qemu_args",
            json_string("-M virt -cpu cortex-a15 -icount shift=2,sleep=off"));
        json_object_set_new(j, "host",
                            json_pack("{s:O, s:O, s:O}", "cpu_model",
                                      json_object_get(host_start, "cpu_model"),
                                      "loadavg_start", ls, "loadavg_end", le));
        if (json_dump_file(j, json, JSON_INDENT(2) | JSON_REAL_PRECISION(6)))
            die("cannot write the json file");
        json_decref(j);
    }
    json_decref(fq), json_decref(fr), json_decref(fqw);
    json_decref(host_start), json_decref(host_end);
    return 0;
}
