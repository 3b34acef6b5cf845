/* Suites of the platform unit tests (workloads/); each file adds its own. */
#ifndef PANLAB_TEST_PLATFORM_H
#define PANLAB_TEST_PLATFORM_H

#include <stdio.h>
#include <unistd.h>

void add_ulog_suite(void);
void add_looper_suite(void);
void add_executor_suite(void);
void add_collect_suite(void);
void add_app_suite(void);
void add_binder_suite(void);
void add_evdev_suite(void);
void add_spawn_suite(void);
void add_cpustat_suite(void);
void add_sdcardd_suite(void);
void add_redraw_suite(void);

/* A per-process path under /dev/shm, unique per name. */
static inline void test_shm_path(char *buf, size_t len, const char *name)
{
	snprintf(buf, len, "/dev/shm/panlab-test-%s.%d", name, (int)getpid());
}

#endif
