/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * User ABI of the panlab kernel logger (/dev/panlab_klog).
 *
 * read(): drains whole struct pl_event records (32 bytes each, see
 *   include/panlab/trace_format.h), cpu by cpu; a short count means
 *   the buffers are empty. The buffer passed must hold at least one record.
 * ioctl(PL_KLOG_IOC_STATS): fills struct pl_klog_stats.
 * Tracing is switched by /sys/module/panlab_klog/parameters/enable (0/1).
 * The total buffer size is the module parameter buffer_bytes (default 30 MB,
 * split evenly over possible cpus).
 */
#ifndef PANLAB_KLOG_UAPI_H
#define PANLAB_KLOG_UAPI_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define PL_KLOG_MAX_CPUS 8

struct pl_klog_stats {
	__u32 ncpus;			/* possible cpus */
	__u32 pad;
	__u64 written[PL_KLOG_MAX_CPUS];	/* records stored since load */
	__u64 lost[PL_KLOG_MAX_CPUS];	/* records dropped: buffer full */
};

#define PL_KLOG_IOC_STATS _IOR('P', 1, struct pl_klog_stats)

#endif /* PANLAB_KLOG_UAPI_H */
