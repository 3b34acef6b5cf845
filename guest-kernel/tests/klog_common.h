/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Guest-side helpers shared by the kernel logger's test and benchmark
 * programs: reading /dev/panlab_klog, its counters and its on/off switch.
 * Errors end the program with a message (these are test programs).
 */
#ifndef KLOG_COMMON_H
#define KLOG_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "panlab/trace_format.h"
#include "panlab/klog_uapi.h"

/* Records drained so far, in read order (cpu by cpu per read call). */
struct klog_trace {
	struct pl_event *ev;	/* owned, realloc'd; free with free() */
	size_t n, cap;
};

void klog_die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
void klog_set_enabled(int on);
void klog_stats(struct pl_klog_stats *st);
/* Appends everything the rings hold to t; returns the number appended. */
size_t klog_drain(struct klog_trace *t);
void klog_pin_cpu(int cpu);
pid_t klog_gettid(void);
uint64_t klog_now_ns(void);
void klog_sleep_us(unsigned int us);
const char *klog_type_name(unsigned int type);

#endif
