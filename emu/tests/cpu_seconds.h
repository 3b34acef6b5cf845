/* Host CPU seconds (user + system) from getrusage, for the test tools that
 * judge or report the host work a run cost: bench (RUSAGE_SELF for emu/,
 * RUSAGE_CHILDREN for QEMU) and test_board_boot's hang guard (the phone
 * processes it waited for). Nothing to own or free. */
#ifndef PANLAB_EMU_CPU_SECONDS_H
#define PANLAB_EMU_CPU_SECONDS_H

#include <sys/resource.h>

/* who: RUSAGE_SELF or RUSAGE_CHILDREN (the children waited for). */
static inline double cpu_seconds(int who)
{
    struct rusage u;
    getrusage(who, &u);
    return (double)u.ru_utime.tv_sec + (double)u.ru_utime.tv_usec * 1e-6 +
           (double)u.ru_stime.tv_sec + (double)u.ru_stime.tv_usec * 1e-6;
}

#endif
