/* SPDX-License-Identifier: MIT */
/*
 * DiagDroid's diagnosis: edit distances between contexts, single-linkage groups, and on a
 * hand-built trace the queue lengths, dependency sets, ranking and root cause.
 */
#include "test_analyzer.h"

#define MS(x) ((uint64_t)(x)*1000000)
#define US(x) ((uint64_t)(x)*1000)
enum { MAIN = 100, WORKER = 101 };
#define EXECUTOR (MAIN << 8 | 1)

static struct pl_context ctx(uint32_t tgid, uint32_t n, uint32_t f0, uint32_t f1, uint32_t f2,
			     uint32_t f3)
{
	return (struct pl_context){ .tgid = tgid, .nframes = n, .frames = { f0, f1, f2, f3 } };
}

static void test_edit_distance(void)
{
	struct pl_context a = ctx(1, 4, 10, 20, 30, 40);
	struct pl_context same = ctx(1, 4, 10, 20, 30, 40);
	struct pl_context sub = ctx(1, 4, 10, 20, 31, 40);
	struct pl_context shorter = ctx(1, 3, 10, 20, 30, 0);
	struct pl_context shifted = ctx(1, 4, 20, 30, 40, 50);
	struct pl_context other = ctx(1, 4, 1, 2, 3, 4);
	struct pl_context none = ctx(1, 0, 0, 0, 0, 0);

	CU_ASSERT_EQUAL(pl_context_distance(&a, &same), 0);
	CU_ASSERT_EQUAL(pl_context_distance(&a, &sub), 1);
	CU_ASSERT_EQUAL(pl_context_distance(&a, &shorter), 1); /* one deletion */
	CU_ASSERT_EQUAL(pl_context_distance(&shorter, &a), 1);
	CU_ASSERT_EQUAL(pl_context_distance(&a, &shifted), 2); /* delete 10, insert 50 */
	CU_ASSERT_EQUAL(pl_context_distance(&a, &other), 4);
	CU_ASSERT_EQUAL(pl_context_distance(&a, &none), 4);
	CU_ASSERT_EQUAL(pl_context_distance(&none, &none), 0);
}

/* Single linkage: a chain of one-edit neighbours is one group, though its ends are 2 apart. */
static void test_single_linkage(void)
{
	struct pl_context contexts[] = {
		ctx(1, 4, 10, 20, 30, 40), /* 0 */
		ctx(1, 4, 10, 20, 30, 41), /* 1: 1 from 0 */
		ctx(1, 4, 10, 20, 32, 41), /* 2: 1 from 1, 2 from 0 */
		ctx(1, 4, 50, 60, 70, 80), /* 3: alone */
		ctx(2, 4, 10, 20, 30, 40), /* 4: context 0's frames in another process */
	};
	struct pl_task tasks[5];
	struct pl_tasks t = { .count = 5, .tasks = tasks, .ncontexts = 5, .contexts = contexts };
	struct pl_diagnosis d;

	/* Task k: context k, queued 100 ms each, run 10 ms; task 3 ran 700 ms. */
	for (uint64_t k = 0; k < 5; k++)
		tasks[k] = (struct pl_task){ .executor = 1,
					     .tgid = contexts[k].tgid,
					     .context = k,
					     .start_event = k,
					     .queuing_ns = MS(100),
					     .execution_ns = k == 3 ? MS(700) : MS(10),
					     .capacity = 1 };
	pl_diagnosis_build(&t, &d);
	CU_ASSERT_EQUAL_FATAL(d.ngroups, 3);
	CU_ASSERT_EQUAL(d.context_group[0], d.context_group[1]);
	CU_ASSERT_EQUAL(d.context_group[1], d.context_group[2]);
	CU_ASSERT_NOT_EQUAL(d.context_group[0], d.context_group[4]);
	CU_ASSERT_NOT_EQUAL(d.context_group[0], d.context_group[3]);
	/* The 700 ms run makes context 3's group the one suspicious group, ranked first. */
	CU_ASSERT_EQUAL(d.suspicious, 1);
	CU_ASSERT_EQUAL(d.context_group[3], 0);
	CU_ASSERT(d.groups[0].suspicious && d.groups[0].max_execution_ns == MS(700));
	const struct pl_diag_group *chain = &d.groups[d.context_group[0]];

	CU_ASSERT_EQUAL(chain->ncontexts, 3);
	CU_ASSERT_EQUAL(chain->tasks, 3);
	CU_ASSERT_FALSE(chain->suspicious);
	for (uint64_t i = 0; i < chain->ncontexts; i++)
		CU_ASSERT_EQUAL(d.context_order[chain->first_context + i], i);
	pl_diagnosis_free(&d);
}

static void submit(struct tb *t, uint64_t ns, uint64_t task, uint32_t f0, uint32_t f1)
{
	tb_user(t, MAIN, ns, PL_EV_SUBMIT_ASYNC_TASK, task, EXECUTOR);
	tb_user3(t, MAIN, ns, PL_EV_TASK_CONTEXT, f0 | (uint64_t)f1 << 32, 0x1000, 0);
}

static void run(struct tb *t, uint64_t start_ns, uint64_t end_ns, uint64_t task)
{
	tb_user(t, WORKER, start_ns, PL_EV_CONSUME_ASYNC_TASK, task, EXECUTOR);
	tb_user(t, WORKER, end_ns, PL_EV_ASYNC_TASK_END, task, EXECUTOR);
}

/*
 * A serial executor (capacity 1) given a list load (context A, 600 ms), an icon load
 * (context B, 100 ms) and another list load, 1 ms apart: the icon load waits for the first
 * list load, the second list load for both.
 */
static void test_serial_dependency(void)
{
	struct tb t;
	struct model m;

	tb_init(&t, 1);
	tb_user3(&t, MAIN, MS(0), PL_EV_UNIT_CAPACITY, EXECUTOR, 1, PL_UNIT_EXECUTOR);
	submit(&t, MS(1), 1, 0xa0, 0xa4);
	submit(&t, MS(2), 2, 0xb0, 0xb4);
	submit(&t, MS(3), 3, 0xa0, 0xa4);
	tb_user(&t, MAIN, MS(4), PL_EV_UI_INPUT, 1, 0); /* not a task */
	run(&t, MS(1) + US(100), MS(601), 1);
	run(&t, MS(601) + US(100), MS(701), 2);
	run(&t, MS(701) + US(100), MS(702), 3);
	model_build(&t, &m);

	const struct pl_tasks *k = &m.s.tasks;

	CU_ASSERT_EQUAL_FATAL(k->count, 3);
	CU_ASSERT_EQUAL(k->without_context, 0);
	CU_ASSERT_EQUAL_FATAL(k->ncontexts, 2);
	CU_ASSERT_EQUAL(k->contexts[0].nframes, 3);
	CU_ASSERT_EQUAL(k->contexts[0].frames[0], 0xa0);
	CU_ASSERT_EQUAL(k->contexts[0].frames[2], 0x1000);
	CU_ASSERT_EQUAL(k->tasks[0].context, k->tasks[2].context);
	CU_ASSERT_NOT_EQUAL(k->tasks[0].context, k->tasks[1].context);
	uint32_t lengths[] = { 0, 1, 2 };
	uint64_t queuing[] = { US(100), MS(599) + US(100), MS(698) + US(100) };
	uint64_t execution[] = { MS(600) - US(100), MS(100) - US(100), MS(1) - US(100) };

	for (int i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(k->tasks[i].capacity, 1);
		CU_ASSERT_EQUAL(k->tasks[i].queue_length, lengths[i]);
		CU_ASSERT_EQUAL(k->tasks[i].queuing_ns, queuing[i]);
		CU_ASSERT_EQUAL(k->tasks[i].execution_ns, execution[i]);
	}
	/* Dependency sets: {}, {1}, {1, 2} */
	CU_ASSERT_EQUAL(k->tasks[0].ndeps, 0);
	CU_ASSERT_EQUAL_FATAL(k->tasks[1].ndeps, 1);
	CU_ASSERT_EQUAL(k->deps[k->tasks[1].first_dep], 0);
	CU_ASSERT_EQUAL_FATAL(k->tasks[2].ndeps, 2);
	CU_ASSERT_EQUAL(k->deps[k->tasks[2].first_dep], 0);
	CU_ASSERT_EQUAL(k->deps[k->tasks[2].first_dep + 1], 1);

	/* Both groups wait 500 ms or more; the list loads' (698 ms) rank first. */
	const struct pl_diagnosis *d = &m.s.diag;

	CU_ASSERT_EQUAL_FATAL(d->ngroups, 2);
	CU_ASSERT_EQUAL(d->suspicious, 2);
	const struct pl_diag_group *list = &d->groups[0], *icons = &d->groups[1];

	CU_ASSERT_EQUAL(d->context_group[k->tasks[0].context], 0);
	CU_ASSERT_EQUAL(list->max_queuing_ns, queuing[2]);
	CU_ASSERT_EQUAL(list->max_execution_ns, execution[0]);
	CU_ASSERT_EQUAL(list->capacity, 1);
	CU_ASSERT_EQUAL(list->long_waits, 1);
	CU_ASSERT_EQUAL(list->queue_length_sum, 2);
	CU_ASSERT_EQUAL(list->in_queue_tasks, 2);
	CU_ASSERT_EQUAL(list->in_queue_execution_ns, execution[0] + execution[1]);
	/* The icon load waited for one list load: the list loads are its root cause. */
	CU_ASSERT_EQUAL(icons->long_waits, 1);
	CU_ASSERT_EQUAL(icons->queue_length_sum, 1);
	CU_ASSERT_EQUAL_FATAL(icons->ncauses, 1);
	CU_ASSERT_EQUAL(d->causes[icons->first_cause].group, 0);
	CU_ASSERT_EQUAL(d->causes[icons->first_cause].execution_ns, execution[0]);
	/* The list loads waited for themselves first (600 ms), then for the icons. */
	CU_ASSERT_EQUAL_FATAL(list->ncauses, 2);
	CU_ASSERT_EQUAL(d->causes[list->first_cause].group, 0);
	CU_ASSERT_EQUAL(d->causes[list->first_cause + 1].group, 1);
	model_free(&m);
}

/*
 * A pool of 2 (capacity logged) running the same three tasks in parallel: nobody waits, so
 * no dependency and nothing suspicious; a version 1 trace (no contexts) has no groups.
 */
static void test_pool_and_version_1(void)
{
	struct tb t;
	struct model m;

	tb_init(&t, 1);
	tb_user3(&t, MAIN, MS(0), PL_EV_UNIT_CAPACITY, EXECUTOR, 2, PL_UNIT_EXECUTOR);
	submit(&t, MS(1), 1, 0xa0, 0xa4);
	submit(&t, MS(2), 2, 0xb0, 0xb4);
	tb_user(&t, 102, MS(1) + US(50), PL_EV_CONSUME_ASYNC_TASK, 1, EXECUTOR);
	tb_user(&t, 102, MS(400), PL_EV_ASYNC_TASK_END, 1, EXECUTOR);
	tb_user(&t, 103, MS(2) + US(50), PL_EV_CONSUME_ASYNC_TASK, 2, EXECUTOR);
	tb_user(&t, 103, MS(100), PL_EV_ASYNC_TASK_END, 2, EXECUTOR);
	model_build(&t, &m);
	CU_ASSERT_EQUAL_FATAL(m.s.tasks.count, 2);
	CU_ASSERT_EQUAL(m.s.tasks.tasks[1].capacity, 2);
	CU_ASSERT_EQUAL(m.s.tasks.tasks[1].queue_length, 1); /* task 1 still ran */
	CU_ASSERT_EQUAL(m.s.tasks.tasks[1].ndeps, 0);	     /* but it started at once */
	CU_ASSERT_EQUAL(m.s.diag.ngroups, 2);
	CU_ASSERT_EQUAL(m.s.diag.suspicious, 0);
	model_free(&m);

	tb_init(&t, 1);
	tb_user(&t, MAIN, MS(1), PL_EV_SUBMIT_ASYNC_TASK, 1, EXECUTOR);
	run(&t, MS(2), MS(900), 1);
	model_build(&t, &m);
	CU_ASSERT_EQUAL(m.s.tasks.count, 1);
	CU_ASSERT_EQUAL(m.s.tasks.without_context, 1);
	CU_ASSERT_EQUAL(m.s.tasks.tasks[0].capacity, 0);
	CU_ASSERT_EQUAL(m.s.diag.ngroups, 0);
	model_free(&m);
}

void add_diagnosis_tests(void)
{
	CU_pSuite s = CU_add_suite("diagnosis", NULL, NULL);

	CU_add_test(s, "edit distance between contexts", test_edit_distance);
	CU_add_test(s, "single-linkage groups", test_single_linkage);
	CU_add_test(s, "serial unit: queue lengths, dependencies, rank, root cause",
		    test_serial_dependency);
	CU_add_test(s, "pool without waits; a trace without contexts", test_pool_and_version_1);
}
