/* The host's clocks and memory use, for reporting only: the simulation never reads
 * them (a run's results must not depend on the host). */
#ifndef PANLAB_HOST_HOST_CLOCK_H
#define PANLAB_HOST_HOST_CLOCK_H

#include <time.h>
#include <sys/resource.h>

/* Monotonic host seconds. */
static inline double host_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* CPU seconds this process used (user + system). */
static inline double host_cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
           (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

/* The most resident memory this process had, in MB. */
static inline double host_peak_rss_mb(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_maxrss / 1024;
}

#endif
