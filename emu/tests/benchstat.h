/*
 * Benchmark figures from repeated measurements on a shared host (make bench).
 *
 * A figure is the median of its samples with the min-max spread; it is
 * "stable" when (max - min) / median is at most BENCH_STABLE_SPREAD. A
 * comparison of two things measured in turns (emu/, QEMU, emu/, QEMU ...)
 * takes the ratio pair by pair, so load that comes and goes hits both sides of
 * a pair. Medians and quantiles are stats/'s library's (type 7).
 *
 * Ownership: callers own the sample arrays (read, never kept); every json_t
 * returned is a new reference the caller must json_decref.
 */
#ifndef EMU_BENCHSTAT_H
#define EMU_BENCHSTAT_H

#include <stddef.h>
#include <jansson.h>

/* The largest (max - min) / median of a figure called stable. */
#define BENCH_STABLE_SPREAD 0.10

/* {median, min, max, spread, stable, samples} of n >= 1 samples. */
json_t *bench_figure(const double *samples, size_t n);
/* {a_name: figure(a), b_name: figure(b), ratio: figure(a[i] / b[i])} of n
 * pairs; b[i] must be non-zero. */
json_t *bench_pairs(const double *a, const double *b, size_t n,
                    const char *a_name, const char *b_name);
/* {cpu_model, cpus, loadavg: [1, 5, 15 min]} of this host, now. */
json_t *bench_host(void);
/* One line for the bench's output: "NAME: median M (min-max LO-HI, spread S%)"
 * and ", UNSTABLE" when the figure is not stable. */
void bench_print(const char *prefix, const char *name, const json_t *figure);

#endif /* EMU_BENCHSTAT_H */
