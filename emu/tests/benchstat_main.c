/*
 * The bench scripts' statistics (benchstat.h) as a command, so that shell
 * orchestration never computes a median itself. Prints one JSON object.
 *
 *   benchstat host                      this host's CPU model and load average
 *   benchstat figure V...               median, min, max, spread, stable
 *   benchstat pairs A B A1 B1 A2 B2...  both figures and the per-pair ratio A/B
 *   benchstat sum V...                  the sum (CPU seconds from user + system)
 *   benchstat per-hour N S...           the figure of N * 3600 / S for each
 *                                       wall S (runs per hour of N runs)
 *
 * Exit status: 0 ok, 2 a usage error or a value that is not a number.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "benchstat.h"

static void usage(void)
{
    fprintf(
        stderr,
        "usage: benchstat host | figure V... | pairs NAME_A NAME_B A1 B1 ... "
        "| sum V... | per-hour N S...\n");
    exit(2);
}

static double *numbers(char **argv, int n)
{
    double *v = calloc((size_t)n, sizeof(*v));
    for (int i = 0; v && i < n; i++) {
        char *end;
        v[i] = strtod(argv[i], &end);
        if (end == argv[i] || *end) {
            fprintf(stderr,
                    "benchstat: argument %d: '%s' is not a number, expected "
                    "a measurement\n",
                    i + 1, argv[i]);
            exit(2);
        }
    }
    return v;
}

int main(int argc, char **argv)
{
    json_t *j;
    if (argc == 2 && !strcmp(argv[1], "host")) {
        j = bench_host();
    } else if (argc >= 3 && !strcmp(argv[1], "figure")) {
        double *v = numbers(argv + 2, argc - 2);
        j = bench_figure(v, (size_t)(argc - 2));
        free(v);
    } else if (argc >= 6 && argc % 2 == 0 && !strcmp(argv[1], "pairs")) {
        int n = (argc - 4) / 2;
        double *v = numbers(argv + 4, argc - 4);
        double *a = calloc((size_t)n, sizeof(*a)),
               *b = calloc((size_t)n, sizeof(*b));
        for (int i = 0; i < n; i++) {
            a[i] = v[2 * i];
            b[i] = v[2 * i + 1];
            if (b[i] == 0) {
                fprintf(stderr,
                        "benchstat: pair %d: %s is 0, expected a non-zero "
                        "divisor\n",
                        i + 1, argv[3]);
                return 2;
            }
        }
        j = bench_pairs(a, b, (size_t)n, argv[2], argv[3]);
        free(v), free(a), free(b);
    } else if (argc >= 3 && !strcmp(argv[1], "sum")) {
        double *v = numbers(argv + 2, argc - 2), sum = 0;
        for (int i = 0; i < argc - 2; i++)
            sum += v[i];
        j = json_real(sum);
        free(v);
    } else if (argc >= 4 && !strcmp(argv[1], "per-hour")) {
        int n = argc - 2;
        double *v = numbers(argv + 2, n);
        for (int i = 1; i < n; i++) {
            if (!(v[i] > 0)) {
                fprintf(stderr,
                        "benchstat: per-hour: wall %d is %s, expected above "
                        "0 s\n",
                        i, argv[2 + i]);
                return 2;
            }
            v[i] = v[0] * 3600 / v[i];
        }
        j = bench_figure(v + 1, (size_t)(n - 1));
        free(v);
    } else {
        usage();
    }
    char *s =
        json_dumps(j, JSON_COMPACT | JSON_ENCODE_ANY | JSON_REAL_PRECISION(6));
    puts(s);
    free(s);
    json_decref(j);
    return 0;
}
