/* SPDX-License-Identifier: MIT */
/*
 * Critical paths and breakdowns: exact steps, tiling of the latency, the
 * latest-predecessor rule at joins, and parts that sum to the latency.
 */
#include "test_analyzer.h"

#define US(x) ((uint64_t)(x) * 1000)
enum { MAIN = 100, WORKER1 = 101, WORKER2 = 102, RECEIVER = 103, VSYNC = 104 };
#define QUEUE (MAIN << 8 | 0)
#define EXECUTOR (MAIN << 8 | 1)

/* Checks that path k's steps are contiguous from the input to the last update. */
static void check_tiling(const struct model *m, uint64_t k)
{
	const struct pl_critical_paths *cp = &m->s.cp;
	const struct pl_transaction *t = &m->s.tx.items[k];
	uint64_t sum_ns = 0;

	CU_ASSERT_FATAL(cp->first_step[k + 1] > cp->first_step[k]);
	CU_ASSERT_EQUAL(cp->steps[cp->first_step[k]].from_event, t->input_event);
	CU_ASSERT_EQUAL(cp->steps[cp->first_step[k + 1] - 1].to_event, t->last_update_event);
	for (uint64_t i = cp->first_step[k]; i < cp->first_step[k + 1]; i++) {
		const struct pl_step *s = &cp->steps[i];

		if (i > cp->first_step[k])
			CU_ASSERT_EQUAL(s[-1].to_event, s->from_event);
		sum_ns += m->trace.events[s->to_event].ts_ns - m->trace.events[s->from_event].ts_ns;
	}
	CU_ASSERT_EQUAL(sum_ns, t->latency_ns);
	/* The breakdown's parts sum exactly to the latency. */
	sum_ns = 0;
	for (int c = 0; c < PL_CATEGORIES; c++)
		sum_ns += m->s.bd.ns[k][c];
	CU_ASSERT_EQUAL(sum_ns, t->latency_ns);
}

static void test_overlap_paths(void)
{
	static const enum pl_edge_kind want[] = {
		PL_EDGE_TEMPORAL, PL_EDGE_TASK, PL_EDGE_TEMPORAL, PL_EDGE_MESSAGE,
		PL_EDGE_TEMPORAL, PL_EDGE_INVALIDATE,
	};
	struct tb t;
	struct model m;
	char shape[64];

	scenario_overlap(&t);
	model_build(&t, &m);
	CU_ASSERT_EQUAL_FATAL(m.s.cp.count, 2);
	for (uint64_t k = 0; k < 2; k++) {
		check_tiling(&m, k);
		CU_ASSERT_EQUAL_FATAL(m.s.cp.first_step[k + 1] - m.s.cp.first_step[k], 6);
		for (int i = 0; i < 6; i++)
			CU_ASSERT_EQUAL(m.s.cp.steps[m.s.cp.first_step[k] + i].kind, want[i]);
		CU_ASSERT_STRING_EQUAL(pl_critical_path_shape(&m.s.cp, k, shape, sizeof(shape)),
				       "task>message>invalidate");
		CU_ASSERT_EQUAL(m.s.cp.joins[k], 0);
	}
	/* Input 0's task step is its own slow task: SUBMIT at 1120 us, CONSUME at 1150 us. */
	const struct pl_step *task = &m.s.cp.steps[m.s.cp.first_step[0] + 1];

	CU_ASSERT_EQUAL(m.trace.events[task->from_event].ts_ns, US(1120));
	CU_ASSERT_EQUAL(m.trace.events[task->to_event].ts_ns, US(1150));
	CU_ASSERT_EQUAL(m.s.cp.decided, 0);
	CU_ASSERT_STRING_EQUAL(pl_critical_path_shape(&m.s.cp, 0, shape, 5), "task");
	model_free(&m);
}

/*
 * One tap submits a fast and a slow task; both post results that invalidate
 * before the same frame. The frame joins two branches and the path follows
 * the later one: the slow task's.
 */
static void test_join_takes_latest(void)
{
	struct tb t;
	struct model m;

	tb_init(&t, 1);
	tb_user(&t, RECEIVER, US(900), PL_EV_ENQUEUE_MSG, 1, QUEUE);
	tb_user(&t, MAIN, US(1000), PL_EV_DEQUEUE_MSG, 1, QUEUE);
	tb_user(&t, MAIN, US(1010), PL_EV_UI_INPUT, 0, 0);
	tb_user(&t, MAIN, US(1020), PL_EV_SUBMIT_ASYNC_TASK, 1, EXECUTOR);
	tb_user(&t, MAIN, US(1030), PL_EV_SUBMIT_ASYNC_TASK, 2, EXECUTOR);
	tb_user(&t, MAIN, US(1040), PL_EV_MSG_DONE, 1, QUEUE);
	tb_user(&t, WORKER1, US(1100), PL_EV_CONSUME_ASYNC_TASK, 1, EXECUTOR);
	tb_user(&t, WORKER1, US(1200), PL_EV_ENQUEUE_MSG, 2, QUEUE);
	tb_user(&t, WORKER1, US(1210), PL_EV_ASYNC_TASK_END, 1, EXECUTOR);
	tb_user(&t, WORKER2, US(1110), PL_EV_CONSUME_ASYNC_TASK, 2, EXECUTOR);
	tb_user(&t, WORKER2, US(1500), PL_EV_ENQUEUE_MSG, 3, QUEUE);
	tb_user(&t, WORKER2, US(1510), PL_EV_ASYNC_TASK_END, 2, EXECUTOR);
	tb_user(&t, MAIN, US(1300), PL_EV_DEQUEUE_MSG, 2, QUEUE);
	tb_user(&t, MAIN, US(1310), PL_EV_UI_INVALIDATE, 1, 0);
	tb_user(&t, MAIN, US(1320), PL_EV_MSG_DONE, 2, QUEUE);
	tb_user(&t, MAIN, US(1600), PL_EV_DEQUEUE_MSG, 3, QUEUE);
	tb_user(&t, MAIN, US(1610), PL_EV_UI_INVALIDATE, 2, 0);
	tb_user(&t, MAIN, US(1620), PL_EV_MSG_DONE, 3, QUEUE);
	tb_user(&t, VSYNC, US(1650), PL_EV_ENQUEUE_MSG, 4, QUEUE);
	tb_user(&t, MAIN, US(1700), PL_EV_DEQUEUE_MSG, 4, QUEUE);
	tb_user(&t, MAIN, US(1710), PL_EV_UI_UPDATE, 0, 0);
	tb_user(&t, MAIN, US(1720), PL_EV_MSG_DONE, 4, QUEUE);
	model_build(&t, &m);

	CU_ASSERT_EQUAL_FATAL(m.s.tx.count, 1);
	CU_ASSERT_EQUAL(m.s.tx.items[0].nupdates, 1);
	check_tiling(&m, 0);
	CU_ASSERT_EQUAL(m.s.cp.joins[0], 1);
	CU_ASSERT_EQUAL(m.s.cp.decided, 1);
	/* The invalidate step starts at the later invalidate, and the task step is task 2's. */
	const struct pl_step *last = &m.s.cp.steps[m.s.cp.first_step[1] - 1];
	const struct pl_step *task = &m.s.cp.steps[m.s.cp.first_step[0] + 1];

	CU_ASSERT_EQUAL(last->kind, PL_EDGE_INVALIDATE);
	CU_ASSERT_EQUAL(m.trace.events[last->from_event].ts_ns, US(1610));
	CU_ASSERT_EQUAL(task->kind, PL_EDGE_TASK);
	CU_ASSERT_EQUAL(m.trace.events[task->to_event].tid, WORKER2);
	model_free(&m);
}

/*
 * A tap's task is preempted for 100 us, during which the cpu drops from 1.2
 * GHz to 700 MHz; the result's handler waits 3 us for a futex, then 1 us for
 * a cpu, which its idle cpu spends (with_irqs) in the network's softirq,
 * interrupted for 250 ns by irq 38, and 250 ns leaving the idle loop.
 */
static void build_breakdown_trace(struct tb *t, struct model *m, int with_irqs)
{
	/* "mmci-pl18x (cmd)": 12 bytes in part 0, the rest in part 1 */
	const uint32_t irq_name[6] = { 0x69636d6d, 0x316c702d, 0x28207838, 0x29646d63, 0, 0 };

	tb_init(t, 1);
	tb_kernel(t, 0, US(500), PL_EV_CPU_FREQUENCY, 0, 1200000, 0);
	tb_user(t, RECEIVER, US(900), PL_EV_ENQUEUE_MSG, 1, QUEUE);
	tb_user(t, MAIN, US(1000), PL_EV_DEQUEUE_MSG, 1, QUEUE);
	tb_user(t, MAIN, US(1010), PL_EV_UI_INPUT, 0, 0);
	tb_user(t, MAIN, US(1020), PL_EV_SUBMIT_ASYNC_TASK, 1, EXECUTOR);
	tb_user(t, MAIN, US(1030), PL_EV_MSG_DONE, 1, QUEUE);
	tb_user(t, WORKER1, US(1100), PL_EV_CONSUME_ASYNC_TASK, 1, EXECUTOR);
	tb_kernel(t, 0, US(1200), PL_EV_CONTEXT_SWITCH, WORKER1, WORKER2, PL_STATE_RUNNABLE);
	tb_kernel(t, 0, US(1250), PL_EV_CPU_FREQUENCY, WORKER2, 700000, 0);
	tb_kernel(t, 0, US(1300), PL_EV_CONTEXT_SWITCH, WORKER2, WORKER1, PL_STATE_SLEEPING);
	tb_user(t, WORKER1, US(1500), PL_EV_ENQUEUE_MSG, 2, QUEUE);
	tb_user(t, WORKER1, US(1510), PL_EV_ASYNC_TASK_END, 1, EXECUTOR);
	tb_user(t, MAIN, US(1600), PL_EV_DEQUEUE_MSG, 2, QUEUE);
	tb_kernel(t, 0, US(1601), PL_EV_FUTEX_WAIT, MAIN, 0xbeef, 0);
	tb_kernel(t, 0, US(1602), PL_EV_CONTEXT_SWITCH, MAIN, 0, PL_STATE_SLEEPING);
	if (with_irqs) {
		tb_kernel3(t, 0, US(1603), PL_EV_IRQ_NAME, 0, 38 | (uint64_t)irq_name[0] << 32,
			   irq_name[1], irq_name[2]);
		tb_kernel3(t, 0, US(1603), PL_EV_IRQ_NAME, 0,
			   38 | 1 << 16 | (uint64_t)irq_name[3] << 32, irq_name[4], irq_name[5]);
		tb_kernel(t, 0, US(1603), PL_EV_IRQ_ENTRY, 0, 38, PL_IRQ_HARD);
		tb_kernel(t, 0, US(1603) + 100, PL_EV_IRQ_EXIT, 0, 38, PL_IRQ_HARD);
		tb_kernel(t, 0, US(1603) + 100, PL_EV_IRQ_ENTRY, 0, 3, PL_IRQ_SOFT);
	}
	tb_kernel(t, 0, US(1605), PL_EV_WAKEUP, 0, MAIN, 0);
	if (with_irqs) {
		tb_kernel(t, 0, US(1605) + 250, PL_EV_IRQ_ENTRY, 0, 38, PL_IRQ_HARD);
		tb_kernel(t, 0, US(1605) + 500, PL_EV_IRQ_EXIT, 0, 38, PL_IRQ_HARD);
		tb_kernel(t, 0, US(1605) + 750, PL_EV_IRQ_EXIT, 0, 3, PL_IRQ_SOFT);
	}
	tb_kernel(t, 0, US(1606), PL_EV_CONTEXT_SWITCH, 0, MAIN, PL_STATE_RUNNABLE);
	tb_kernel(t, 0, US(1607), PL_EV_FUTEX_WAKE, MAIN, 0xbeef, 0);
	tb_user(t, MAIN, US(1610), PL_EV_UI_INVALIDATE, 1, 0);
	tb_user(t, MAIN, US(1620), PL_EV_MSG_DONE, 2, QUEUE);
	tb_user(t, VSYNC, US(1650), PL_EV_ENQUEUE_MSG, 3, QUEUE);
	tb_user(t, MAIN, US(1700), PL_EV_DEQUEUE_MSG, 3, QUEUE);
	tb_user(t, MAIN, US(1710), PL_EV_UI_UPDATE, 0, 0);
	tb_user(t, MAIN, US(1720), PL_EV_MSG_DONE, 3, QUEUE);
	model_build(t, m);
}

static void test_breakdown(void)
{
	struct tb t;
	struct model m;

	build_breakdown_trace(&t, &m, 0);

	CU_ASSERT_EQUAL_FATAL(m.s.tx.count, 1);
	CU_ASSERT_EQUAL(m.s.tx.items[0].latency_ns, US(700));
	check_tiling(&m, 0);
	const uint64_t *ns = m.s.bd.ns[0];

	/* main 10 + worker 100 + 200 + main 2 + 4, and the frame's 10 */
	CU_ASSERT_EQUAL(ns[PL_CAT_RUNNING], US(326));
	CU_ASSERT_EQUAL(ns[PL_CAT_RUNNABLE], US(101));	/* preempted 100, woken 1 */
	CU_ASSERT_EQUAL(ns[PL_CAT_LOCK], US(3));
	CU_ASSERT_EQUAL(ns[PL_CAT_QUEUE_TASK], US(80));
	CU_ASSERT_EQUAL(ns[PL_CAT_QUEUE_MESSAGE], US(100));
	CU_ASSERT_EQUAL(ns[PL_CAT_FRAME_WAIT], US(90)); /* invalidate to the frame's dequeue */
	CU_ASSERT_EQUAL(ns[PL_CAT_SLEEPING] + ns[PL_CAT_UNKNOWN] + ns[PL_CAT_IO], 0);
	CU_ASSERT_EQUAL(m.s.bd.total_ns[PL_CAT_RUNNING], US(326));
	/* Running at 1.2 GHz until 1250 us (main 10, worker 100), then at 700 MHz (200 + 2 + 4 + 10). */
	CU_ASSERT_EQUAL_FATAL(m.s.bd.nfreqs, 2);
	CU_ASSERT_EQUAL(m.s.bd.freq_khz[0], 700000);
	CU_ASSERT_EQUAL(m.s.bd.running_ns_by_freq[0], US(216));
	CU_ASSERT_EQUAL(m.s.bd.freq_khz[1], 1200000);
	CU_ASSERT_EQUAL(m.s.bd.running_ns_by_freq[1], US(110));
	/* The same split for the one transaction, ascending. */
	CU_ASSERT_EQUAL_FATAL(m.s.bd.tx_freq_first[1] - m.s.bd.tx_freq_first[0], 2);
	CU_ASSERT_EQUAL(m.s.bd.tx_freq_khz[0], 700000);
	CU_ASSERT_EQUAL(m.s.bd.tx_running_ns[0], US(216));
	CU_ASSERT_EQUAL(m.s.bd.tx_freq_khz[1], 1200000);
	CU_ASSERT_EQUAL(m.s.bd.tx_running_ns[1], US(110));
	/* Who held the cpu: worker 2 preempted worker 1 for 100 us; main, woken, waited 1 us
	 * while its cpu ran the idle task (tid 0 since its switch out at 1602 us). */
	CU_ASSERT_EQUAL_FATAL(m.s.bd.tx_preempt_first[1] - m.s.bd.tx_preempt_first[0], 2);
	CU_ASSERT_EQUAL(m.s.bd.tx_preempter_tid[0], WORKER2);
	CU_ASSERT_EQUAL(m.s.bd.tx_preempted_ns[0], US(100));
	CU_ASSERT_EQUAL(m.s.bd.tx_preempter_tid[1], PL_TID_IDLE_CPU);
	CU_ASSERT_EQUAL(m.s.bd.tx_preempted_ns[1], US(1));
	CU_ASSERT_EQUAL(m.s.bd.top_preempter_tid[0], WORKER2);
	CU_ASSERT_STRING_EQUAL(pl_category_name(PL_CAT_QUEUE_TASK), "queue_task");
	CU_ASSERT_EQUAL(m.s.bd.counted, 0); /* no SWITCH_COUNTS */
	model_free(&m);
}

/* The same wait for a cpu, named by the handlers its idle cpu ran (IRQ events). */
static void test_breakdown_idle_cpu_handlers(void)
{
	struct tb t;
	struct model m;
	char name[64];

	build_breakdown_trace(&t, &m, 1);
	CU_ASSERT_EQUAL_FATAL(m.s.tx.count, 1);
	check_tiling(&m, 0);
	CU_ASSERT_EQUAL(m.s.bd.ns[0][PL_CAT_RUNNABLE], US(101));
	/* 1 us: the softirq 250 + 250 ns around irq 38's 250, then 250 leaving idle. */
	CU_ASSERT_EQUAL_FATAL(m.s.bd.tx_preempt_first[1] - m.s.bd.tx_preempt_first[0], 4);
	CU_ASSERT_EQUAL(m.s.bd.tx_preempter_tid[1], PL_TID_SOFTIRQ_BASE + 3);
	CU_ASSERT_EQUAL(m.s.bd.tx_preempted_ns[1], 500);
	CU_ASSERT_EQUAL(m.s.bd.tx_preempter_tid[2], PL_TID_IRQ_BASE + 38);
	CU_ASSERT_EQUAL(m.s.bd.tx_preempted_ns[2], 250);
	CU_ASSERT_EQUAL(m.s.bd.tx_preempter_tid[3], PL_TID_IDLE_CPU);
	CU_ASSERT_EQUAL(m.s.bd.tx_preempted_ns[3], 250);
	CU_ASSERT_STRING_EQUAL(pl_holder_name(&m.s.bd, &m.s.iv, PL_TID_SOFTIRQ_BASE + 3, name,
					      sizeof(name)),
			       "idle cpu: softirq NET_RX");
	CU_ASSERT_STRING_EQUAL(pl_holder_name(&m.s.bd, &m.s.iv, PL_TID_IRQ_BASE + 38, name,
					      sizeof(name)),
			       "idle cpu: irq 38 mmci-pl18x (cmd)");
	CU_ASSERT_STRING_EQUAL(pl_holder_name(&m.s.bd, &m.s.iv, PL_TID_IRQ_BASE + 39, name,
					      sizeof(name)),
			       "idle cpu: irq 39");
	CU_ASSERT_STRING_EQUAL(pl_holder_name(&m.s.bd, &m.s.iv, PL_TID_IDLE_CPU, name, sizeof(name)),
			       "idle cpu");
	model_free(&m);
}

/*
 * Instructions and cycles on the path. Instructions: main's slice 950-1040 us (9000) gives its
 * 10 us 1000; the worker's 1040-1240 us (2^33 + 40000) its step's share of the slice's cycles
 * (a fixed CPI makes it the share of instructions, where a share of time would be 100/200):
 * the step's 95000 (50 us at 1.2 GHz, 50 us at 700 MHz from 1150 us) of the slice's 195000
 * (110 us at 1.2 GHz, 90 us at 700 MHz); main's 1240-1430 us (19000) the message's 10 us and
 * the frame's 10 us 2000. A slice that began before the trace (the receiver's) counts nothing.
 * Cycles: main's 10 us at 1.2 GHz, the worker's 95000, main's 20 us at 700 MHz.
 */
static void test_breakdown_counts(void)
{
	const uint64_t big = 1ull << 33;
	struct tb t;
	struct model m;

	tb_init(&t, 1);
	tb_kernel(&t, 0, US(800), PL_EV_CPU_FREQUENCY, 0, 1200000, 0);
	tb_user(&t, RECEIVER, US(900), PL_EV_ENQUEUE_MSG, 1, QUEUE);
	tb_kernel(&t, 0, US(950), PL_EV_CONTEXT_SWITCH, RECEIVER, MAIN, PL_STATE_SLEEPING);
	tb_kernel(&t, 0, US(950), PL_EV_SWITCH_COUNTS, RECEIVER, 5, 0);
	tb_user(&t, MAIN, US(1000), PL_EV_DEQUEUE_MSG, 1, QUEUE);
	tb_user(&t, MAIN, US(1010), PL_EV_UI_INPUT, 0, 0);
	tb_user(&t, MAIN, US(1020), PL_EV_SUBMIT_ASYNC_TASK, 1, EXECUTOR);
	tb_user(&t, MAIN, US(1030), PL_EV_MSG_DONE, 1, QUEUE);
	tb_kernel(&t, 0, US(1040), PL_EV_CONTEXT_SWITCH, MAIN, WORKER1, PL_STATE_SLEEPING);
	tb_kernel(&t, 0, US(1040), PL_EV_SWITCH_COUNTS, MAIN, 9000, 0);
	tb_user(&t, WORKER1, US(1100), PL_EV_CONSUME_ASYNC_TASK, 1, EXECUTOR);
	tb_kernel(&t, 0, US(1150), PL_EV_CPU_FREQUENCY, WORKER1, 700000, 0);
	tb_user(&t, WORKER1, US(1200), PL_EV_ENQUEUE_MSG, 2, QUEUE);
	tb_user(&t, WORKER1, US(1210), PL_EV_ASYNC_TASK_END, 1, EXECUTOR);
	tb_kernel(&t, 0, US(1240), PL_EV_CONTEXT_SWITCH, WORKER1, MAIN, PL_STATE_SLEEPING);
	tb_kernel(&t, 0, US(1240), PL_EV_SWITCH_COUNTS, WORKER1, big + 40000, 0);
	tb_user(&t, MAIN, US(1300), PL_EV_DEQUEUE_MSG, 2, QUEUE);
	tb_user(&t, MAIN, US(1310), PL_EV_UI_INVALIDATE, 1, 0);
	tb_user(&t, MAIN, US(1320), PL_EV_MSG_DONE, 2, QUEUE);
	tb_user(&t, VSYNC, US(1350), PL_EV_ENQUEUE_MSG, 3, QUEUE);
	tb_user(&t, MAIN, US(1400), PL_EV_DEQUEUE_MSG, 3, QUEUE);
	tb_user(&t, MAIN, US(1410), PL_EV_UI_UPDATE, 0, 0);
	tb_user(&t, MAIN, US(1420), PL_EV_MSG_DONE, 3, QUEUE);
	tb_kernel(&t, 0, US(1430), PL_EV_CONTEXT_SWITCH, MAIN, 0, PL_STATE_SLEEPING);
	tb_kernel(&t, 0, US(1430), PL_EV_SWITCH_COUNTS, MAIN, 19000, 0);
	model_build(&t, &m);

	CU_ASSERT_EQUAL_FATAL(m.s.tx.count, 1);
	check_tiling(&m, 0);
	CU_ASSERT_EQUAL(m.s.bd.counted, 1);
	const struct pl_counts *c = &m.s.bd.tx_counts[0];

	const uint64_t worker_share = (big + 40000) * 95000 / 195000;

	CU_ASSERT_EQUAL(c->instructions, 1000 + worker_share + 2000);
	CU_ASSERT_EQUAL(c->counted_ns, US(130));
	CU_ASSERT_EQUAL(c->counted_ns, m.s.bd.ns[0][PL_CAT_RUNNING]);
	CU_ASSERT_EQUAL(c->khz_ns / 1000000, 12000 + 60000 + 35000 + 14000);
	CU_ASSERT_EQUAL(c->clocked_ns, US(130));
	/* The steps' counts sum to the transaction's; the worker's step has its share. */
	uint64_t insns = 0, worker = 0, worker_cycles = 0;

	for (uint64_t i = m.s.cp.first_step[0]; i < m.s.cp.first_step[1]; i++) {
		const struct pl_step *s = &m.s.cp.steps[i];

		insns += m.s.bd.step_counts[i].instructions;
		if (s->kind == PL_EDGE_TEMPORAL && m.trace.events[s->from_event].tid == WORKER1) {
			worker += m.s.bd.step_counts[i].instructions;
			worker_cycles += m.s.bd.step_counts[i].khz_ns / 1000000;
		}
	}
	CU_ASSERT_EQUAL(insns, c->instructions);
	CU_ASSERT_EQUAL(worker, worker_share);
	CU_ASSERT_EQUAL(worker_cycles, 95000);
	/*
	 * Intervals too: the worker's task, 1100-1210 us of its 200 us slice, 50 us at 1.2 GHz and
	 * 60 us at 700 MHz (102000 cycles, 927.3 MHz), has 102000/195000 of its instructions.
	 */
	int tasks = 0;

	for (uint64_t i = 0; i < m.s.iv.nintervals; i++) {
		const struct pl_interval *v = &m.s.iv.intervals[i];
		const struct pl_counts *n = &m.s.bd.interval_counts[i];

		if (m.s.iv.threads[v->thread].tid != WORKER1 || v->kind != PL_IV_TASK)
			continue;
		tasks++;
		CU_ASSERT_EQUAL(v->start_ns, US(1100));
		CU_ASSERT_EQUAL(v->end_ns, US(1210));
		CU_ASSERT_EQUAL(n->instructions, (big + 40000) * 102000 / 195000);
		CU_ASSERT_EQUAL(n->counted_ns, US(110));
		CU_ASSERT_EQUAL(n->khz_ns / 1000000, 60000 + 42000);
		CU_ASSERT_EQUAL((uint64_t)(pl_counts_mhz(n) * 10 + 0.5), 9273);
	}
	CU_ASSERT_EQUAL(tasks, 1);
	/* Threads: their slices' counts summed whole, the one that began before the trace too. */
	for (uint32_t i = 0; i < m.s.iv.nthreads; i++) {
		const struct pl_thread *th = &m.s.iv.threads[i];

		CU_ASSERT_EQUAL(th->instructions, th->tid == MAIN     ? 9000 + 19000 :
						  th->tid == WORKER1  ? big + 40000 :
						  th->tid == RECEIVER ? 5 :
									0);
	}
	model_free(&m);
}

static void test_breakdown_without_kernel_events(void)
{
	struct tb t;
	struct model m;

	scenario_overlap(&t);
	/* The same user events in a trace of one cpu without a kernel buffer. */
	struct tb u;

	tb_init(&u, 0);
	u.b.ncpus = 1;
	for (uint32_t i = 0; i < t.ntids; i++) {
		const struct pl_trace_builder_source *src = &t.b.sources[t.tid_source[i]];

		for (uint64_t j = 0; j < src->src.records; j++)
			tb_user(&u, t.tids[i], src->events[j].ts_ns, src->events[j].type,
				src->events[j].a0, src->events[j].a1);
	}
	tb_free(&t);
	model_build(&u, &m);
	CU_ASSERT_EQUAL_FATAL(m.s.tx.count, 2);
	check_tiling(&m, 0);
	CU_ASSERT_EQUAL(m.s.bd.ns[0][PL_CAT_RUNNING], 0);
	CU_ASSERT(m.s.bd.ns[0][PL_CAT_UNKNOWN] > 0);
	model_free(&m);
}

void add_critical_path_tests(void)
{
	CU_pSuite s = CU_add_suite("critical_path", NULL, NULL);

	CU_add_test(s, "paths of two overlapping transactions", test_overlap_paths);
	CU_add_test(s, "a join takes the latest predecessor", test_join_takes_latest);
	CU_add_test(s, "breakdown along the path", test_breakdown);
	CU_add_test(s, "an idle cpu's wait named by its handlers",
		    test_breakdown_idle_cpu_handlers);
	CU_add_test(s, "instructions and cycles along the path", test_breakdown_counts);
	CU_add_test(s, "breakdown without kernel events", test_breakdown_without_kernel_events);
}
