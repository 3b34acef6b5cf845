/* panlab-parallel: the parallel-core ratio, measured inside the guest.
 * Runs a fixed CPU-bound loop on one thread pinned to cpu0, then the same
 * loop on two threads pinned to cpu0 and cpu1, and prints the ratio of
 * their CLOCK_MONOTONIC durations. Cores that advance in parallel in
 * virtual time give about 1.0; QEMU's icount, which serialises vCPUs,
 * gives 2.0. Needs both cpus online (the panlab /init onlines cpu1). */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define ITERS 20000000u

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void *spin(void *arg)
{
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET((int)(intptr_t)arg, &set);
    if (sched_setaffinity(0, sizeof(set), &set) != 0) {
        perror("panlab-parallel: sched_setaffinity");
        exit(1);
    }
    for (volatile uint32_t i = 0; i < ITERS; i++)
        ;
    return NULL;
}

static uint64_t run(int nthreads)
{
    pthread_t t[2];
    uint64_t t0 = now_ns();
    for (int i = 0; i < nthreads; i++)
        if (pthread_create(&t[i], NULL, spin, (void *)(intptr_t)i) != 0) {
            fprintf(stderr, "panlab-parallel: pthread_create failed\n");
            exit(1);
        }
    for (int i = 0; i < nthreads; i++)
        pthread_join(t[i], NULL);
    return now_ns() - t0;
}

int main(void)
{
    uint64_t one = run(1), two = run(2);
    printf("panlab-parallel: one thread %.6f s, two threads %.6f s\n",
           one / 1e9, two / 1e9);
    printf("PARALLEL-RATIO: %.3f\n", (double)two / (double)one);
    return 0;
}
