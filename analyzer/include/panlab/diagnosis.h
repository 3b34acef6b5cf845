/* SPDX-License-Identifier: MIT */
/*
 * Stage 6d (diagnosis.c): tasks -> DiagDroid's diagnosis (FSE 2016, sections 4.2-4.3): tasks
 * grouped by similar execution context, each group's worst queuing and execution time, the
 * groups at or past the 500 ms threshold ranked, and for each the tasks its long waits waited
 * for (the runtime dependency) and the groups those came from: the root cause.
 *
 * Ownership: pl_diagnosis_build fills a caller-provided struct, allocating its arrays;
 * pl_diagnosis_free releases them. Indices refer to the struct pl_tasks it was built from,
 * which must outlive it. Out of memory aborts. Times in ns.
 */
#ifndef PANLAB_DIAGNOSIS_H
#define PANLAB_DIAGNOSIS_H

#include <stdint.h>

#include "panlab/tasks.h"

/* DiagDroid's tau (section 4.3): a group whose M_q or M_e reaches it is suspicious. */
#define PL_DIAG_THRESHOLD_NS 500000000ull
/*
 * Single-linkage clustering joins two contexts of one process whose edit distance over their
 * frames is at most this. DiagDroid clusters call stacks that are "the same until the 9th
 * line" and differ only in the outer frames (section 6.2, Fig. 10) without giving a number;
 * with PL_CONTEXT_FRAMES = 4 frames, one edit lets a context differ in one frame (a different
 * caller further out) and keeps two code paths that differ in two frames apart.
 */
#define PL_DIAG_MAX_DISTANCE 1u

/* A group the long waits of another group waited for. */
struct pl_diag_cause {
	uint64_t group;	       /* index into groups */
	uint64_t tasks;	       /* in-queue tasks of that group over the long waits */
	uint64_t execution_ns; /* their execution time, summed */
};

struct pl_diag_group {
	uint64_t first_context, ncontexts; /* context_order[first .. +n) */
	uint64_t context; /* the group's most frequent context (lowest index on ties) */
	uint32_t tgid;
	uint64_t tasks;
	uint64_t max_queuing_ns;   /* M_q */
	uint64_t max_execution_ns; /* M_e */
	uint64_t worst_task;	   /* the task with M_q (the first such) */
	uint32_t capacity;	   /* the worst task's unit's capacity (0: not logged) */
	int suspicious;		   /* M_q or M_e >= PL_DIAG_THRESHOLD_NS */
	/* Over the group's tasks with queuing time >= the threshold (DiagDroid's Fig. 5): */
	uint64_t long_waits;
	uint64_t queue_length_sum;	/* their queue lengths, summed */
	uint64_t in_queue_tasks;	/* their dependency sets' sizes, summed */
	uint64_t in_queue_execution_ns; /* the execution time of those tasks, summed */
	uint64_t first_cause, ncauses;	/* causes[first .. +n), most execution time first */
};

struct pl_diagnosis {
	uint64_t ngroups;
	struct pl_diag_group *groups; /* suspicious first, each part by max(M_q, M_e) descending */
	uint64_t *context_group;      /* per context of the tasks: its group */
	uint64_t *context_order;      /* contexts grouped by group */
	uint64_t ncauses;
	struct pl_diag_cause *causes;
	uint64_t suspicious;
};

/* Edit distance (Levenshtein, unit costs) between two contexts' frames. */
uint32_t pl_context_distance(const struct pl_context *a, const struct pl_context *b);

void pl_diagnosis_build(const struct pl_tasks *tasks, struct pl_diagnosis *out);
void pl_diagnosis_free(struct pl_diagnosis *d);

#endif /* PANLAB_DIAGNOSIS_H */
