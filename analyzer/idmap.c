/* SPDX-License-Identifier: MIT */
#include "idmap.h"

#include <stdlib.h>

#include "panlab/error.h"

static uint64_t hash(uint64_t k1, uint64_t k2)
{
	/* splitmix64 finalizer over both parts: ids are small and sequential. */
	uint64_t x = k1 * 0x9e3779b97f4a7c15ull ^ (k2 + 0x632be59bd9b4e019ull);

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static uint64_t find(const struct pl_idmap *m, uint64_t k1, uint64_t k2)
{
	uint64_t mask = m->cap - 1, i = hash(k1, k2) & mask;

	while (m->slots[i].used && (m->slots[i].k1 != k1 || m->slots[i].k2 != k2))
		i = (i + 1) & mask;
	return i;
}

static void grow(struct pl_idmap *m)
{
	struct pl_idmap old = *m;

	m->cap = old.cap ? old.cap * 2 : 64;
	m->slots = pl_xcalloc(m->cap, sizeof(*m->slots));
	for (uint64_t i = 0; i < old.cap; i++)
		if (old.slots[i].used)
			m->slots[find(m, old.slots[i].k1, old.slots[i].k2)] = old.slots[i];
	free(old.slots);
}

void pl_idmap_put(struct pl_idmap *m, uint64_t k1, uint64_t k2, uint64_t value)
{
	/* Keep the load factor at most 1/2 so probes stay short. */
	if (2 * (m->count + 1) > m->cap)
		grow(m);
	uint64_t i = find(m, k1, k2);

	if (!m->slots[i].used)
		m->count++;
	m->slots[i] = (struct pl_idmap_slot){ k1, k2, value, true };
}

bool pl_idmap_get(const struct pl_idmap *m, uint64_t k1, uint64_t k2, uint64_t *value)
{
	if (m->count == 0)
		return false;
	uint64_t i = find(m, k1, k2);

	if (!m->slots[i].used)
		return false;
	*value = m->slots[i].value;
	return true;
}

bool pl_idmap_take(struct pl_idmap *m, uint64_t k1, uint64_t k2, uint64_t *value)
{
	if (m->count == 0)
		return false;
	uint64_t mask = m->cap - 1, i = find(m, k1, k2);

	if (!m->slots[i].used)
		return false;
	*value = m->slots[i].value;
	/* Backward-shift deletion (Knuth 6.4 Algorithm R). */
	for (uint64_t j = i;;) {
		j = (j + 1) & mask;
		if (!m->slots[j].used)
			break;
		uint64_t home = hash(m->slots[j].k1, m->slots[j].k2) & mask;

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
