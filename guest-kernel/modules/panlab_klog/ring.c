// SPDX-License-Identifier: GPL-2.0
/*
 * The per-cpu rings of the panlab kernel logger: the slow path of storing
 * a record (the fast path is klog_put() in klog.h), and their allocation.
 */
#include <linux/cpumask.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/overflow.h>
#include <linux/vmalloc.h>

#include "klog.h"

DEFINE_PER_CPU(struct klog_ring, klog_rings);

static unsigned long buffer_bytes = 30 * 1024 * 1024;
module_param(buffer_bytes, ulong, 0444);
MODULE_PARM_DESC(buffer_bytes, "Total ring size over all possible cpus, bytes");

/*
 * No room is known: read tail again, wrap next at the end of the array and
 * set ring->limit and ring->next. Then store a LOST record with the count
 * of records dropped since the last stored one, if any, and this record,
 * or drop this one too. Out of line: the common path stays short. Returns
 * the number of records stored.
 */
noinline u32 klog_put_slow(struct klog_ring *ring, struct pl_event *next,
			   u32 stored, u64 ts, u16 cpu, u16 type, u32 tid,
			   u64 a0, u32 a1, u32 a2)
{
	u32 need = ring->lost_pending ? 2 : 1;
	u32 head = ring->head + stored;
	/* Pairs with the reader's release of tail: its slot copy is done. */
	u32 tail = smp_load_acquire(&ring->tail);
	u32 room = ring->capacity - (head - tail);

	if (head < ring->head_seen)
		ring->head_laps++;
	ring->head_seen = head;
	if (next == ring->end)
		next = ring->rec;
	ring->next = next;
	if (room < need) {
		ring->lost++;
		ring->lost_pending++;
		ring->limit = next;
		return 0;
	}
	if (ring->lost_pending) {
		next = klog_store(next, ts, cpu, PL_EV_LOST, tid,
				  ring->lost_pending, 0, 0);
		if (next == ring->end)
			next = ring->rec;
		ring->lost_pending = 0;
	}
	next = klog_store(next, ts, cpu, type, tid, a0, a1, a2);
	ring->next = next;
	ring->limit = next + min_t(u32, room - need, ring->end - next);
	return need;
}

void klog_rings_free(void)
{
	int cpu;

	for_each_possible_cpu(cpu)
		vfree(per_cpu_ptr(&klog_rings, cpu)->rec);
}

int klog_rings_alloc(u32 *capacity)
{
	u32 n = buffer_bytes / num_possible_cpus() / sizeof(struct pl_event);
	int cpu;

	/* A LOST marker and the record after it must fit. */
	if (n < 2)
		return -EINVAL;
	for_each_possible_cpu(cpu) {
		struct klog_ring *ring = per_cpu_ptr(&klog_rings, cpu);

		ring->rec = vmalloc(array_size(n, sizeof(*ring->rec)));
		if (!ring->rec) {
			klog_rings_free();
			return -ENOMEM;
		}
		ring->end = ring->rec + n;
		ring->capacity = n;
		ring->cpu = cpu;
		ring->next = ring->rec;
		ring->read_next = ring->rec;
		ring->limit = ring->end;
	}
	*capacity = n;
	return 0;
}
