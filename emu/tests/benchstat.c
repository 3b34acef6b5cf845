/* Benchmark figures: medians, spreads and per-pair ratios (benchstat.h). */
#include "benchstat.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "panlab/error.h"
#include "panlab/stats.h"

json_t *bench_figure(const double *samples, size_t n)
{
    double *s = pl_xcalloc(n, sizeof(*s));
    json_t *list = json_array();
    for (size_t i = 0; i < n; i++) {
        s[i] = samples[i];
        json_array_append_new(list, json_real(samples[i]));
    }
    pl_stats_sort(s, n);
    double median = pl_quantile(s, n, 0.5), lo = s[0], hi = s[n - 1];
    double spread = median != 0 ? (hi - lo) / median : 0;
    free(s);
    return json_pack("{s:f, s:f, s:f, s:f, s:b, s:o}", "median", median, "min",
                     lo, "max", hi, "spread", spread, "stable",
                     spread <= BENCH_STABLE_SPREAD, "samples", list);
}

json_t *bench_pairs(const double *a, const double *b, size_t n,
                    const char *a_name, const char *b_name)
{
    double *r = pl_xcalloc(n, sizeof(*r));
    for (size_t i = 0; i < n; i++)
        r[i] = a[i] / b[i];
    json_t *j = json_pack("{s:o, s:o, s:o}", a_name, bench_figure(a, n), b_name,
                          bench_figure(b, n), "ratio", bench_figure(r, n));
    free(r);
    return j;
}

json_t *bench_host(void)
{
    char line[512], model[256] = "unknown";
    FILE *f = fopen("/proc/cpuinfo", "r");
    while (f && fgets(line, sizeof(line), f)) {
        char *colon = strchr(line, ':');
        if (colon && !strncmp(line, "model name", 10)) {
            snprintf(model, sizeof(model), "%s", colon + 2);
            model[strcspn(model, "\n")] = 0;
            break;
        }
    }
    if (f)
        fclose(f);
    double load[3] = { -1, -1, -1 };
    if (getloadavg(load, 3) != 3)
        load[0] = load[1] = load[2] = -1;
    return json_pack("{s:s, s:I, s:[f,f,f]}", "cpu_model", model, "cpus",
                     (json_int_t)sysconf(_SC_NPROCESSORS_ONLN), "loadavg",
                     load[0], load[1], load[2]);
}

void bench_print(const char *prefix, const char *name, const json_t *fig)
{
    double spread = json_real_value(json_object_get(fig, "spread"));
    printf("%s%-34s %10.3f  (min-max %.3f-%.3f, spread %4.1f%%)%s\n", prefix,
           name, json_real_value(json_object_get(fig, "median")),
           json_real_value(json_object_get(fig, "min")),
           json_real_value(json_object_get(fig, "max")), spread * 100,
           json_is_true(json_object_get(fig, "stable")) ? "" : "  UNSTABLE");
}
