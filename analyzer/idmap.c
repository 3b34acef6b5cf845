/* SPDX-License-Identifier: MIT */
#include "idmap.h"

#include <stdlib.h>

#include "panlab/error.h"

static void grow(struct pl_idmap *m)
{
	struct pl_idmap old = *m;

	m->cap = old.cap ? old.cap * 2 : 64;
	m->slots = pl_xcalloc(m->cap, sizeof(*m->slots));
	for (uint64_t i = 0; i < old.cap; i++)
		if (old.slots[i].used)
			m->slots[pl_idmap_slot(m, old.slots[i].k1, old.slots[i].k2)] = old.slots[i];
	free(old.slots);
}

void pl_idmap_put(struct pl_idmap *m, uint64_t k1, uint64_t k2, uint64_t value)
{
	/* Keep the load factor at most 1/2 so probes stay short. */
	if (2 * (m->count + 1) > m->cap)
		grow(m);
	uint64_t i = pl_idmap_slot(m, k1, k2);

	if (!m->slots[i].used)
		m->count++;
	m->slots[i] = (struct pl_idmap_slot){ k1, k2, value, true };
}

bool pl_idmap_take(struct pl_idmap *m, uint64_t k1, uint64_t k2, uint64_t *value)
{
	if (m->count == 0)
		return false;
	uint64_t mask = m->cap - 1, i = pl_idmap_slot(m, k1, k2);

	if (!m->slots[i].used)
		return false;
	*value = m->slots[i].value;
	/* Backward-shift deletion (Knuth 6.4 Algorithm R). */
	for (uint64_t j = i;;) {
		j = (j + 1) & mask;
		if (!m->slots[j].used)
			break;
		uint64_t home = pl_idmap_hash(m->slots[j].k1, m->slots[j].k2) & mask;

		/* Move j back into the hole at i unless its home lies cyclically in (i, j]. */
		if ((i < j) ? (home <= i || home > j) : (home <= i && home > j)) {
			m->slots[i] = m->slots[j];
			i = j;
		}
	}
	m->slots[i].used = false;
	m->count--;
	return true;
}

void pl_idmap_free(struct pl_idmap *m)
{
	free(m->slots);
	*m = (struct pl_idmap){ 0 };
}
