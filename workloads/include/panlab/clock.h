/* The one clock of panlab: CLOCK_MONOTONIC in ns, which the kernel logger reads as ktime_get_ns. */
#ifndef PANLAB_CLOCK_H
#define PANLAB_CLOCK_H

#include <stdint.h>

uint64_t pl_now_ns(void);

#endif /* PANLAB_CLOCK_H */
