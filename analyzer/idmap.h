/* SPDX-License-Identifier: MIT */
/*
 * Hash map from a two-part id to a u64, for the joins the stages do by id:
 * tid -> thread, (queue id, message id) -> ENQUEUE_MSG event, and so on.
 * Open addressing with linear probing and backward-shift deletion, so
 * take() leaves no tombstones behind in long traces.
 */
#ifndef PANLAB_IDMAP_H
#define PANLAB_IDMAP_H

#include <stdbool.h>
#include <stdint.h>

struct pl_idmap {
	uint64_t cap;		/* power of two, or 0 before the first put */
	uint64_t count;
	struct pl_idmap_slot {
		uint64_t k1, k2, value;
		bool used;
	} *slots;		/* owned; pl_idmap_free releases */
};

static inline uint64_t pl_idmap_hash(uint64_t k1, uint64_t k2)
{
	/* splitmix64 finalizer over both parts: ids are small and sequential. */
	uint64_t x = k1 * 0x9e3779b97f4a7c15ull ^ (k2 + 0x632be59bd9b4e019ull);

	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

/* The slot holding (k1, k2), or the free slot where it would go; cap must be non-zero. */
static inline uint64_t pl_idmap_slot(const struct pl_idmap *m, uint64_t k1, uint64_t k2)
{
	uint64_t mask = m->cap - 1, i = pl_idmap_hash(k1, k2) & mask;

	while (m->slots[i].used && (m->slots[i].k1 != k1 || m->slots[i].k2 != k2))
		i = (i + 1) & mask;
	return i;
}

/* A zeroed struct pl_idmap is an empty map. */
void pl_idmap_put(struct pl_idmap *m, uint64_t k1, uint64_t k2, uint64_t value);

/* Inline: the stages look ids up for nearly every event. */
static inline bool pl_idmap_get(const struct pl_idmap *m, uint64_t k1, uint64_t k2, uint64_t *value)
{
	if (m->count == 0)
		return false;
	uint64_t i = pl_idmap_slot(m, k1, k2);

	if (!m->slots[i].used)
		return false;
	*value = m->slots[i].value;
	return true;
}
/* Like get, and removes the entry. */
bool pl_idmap_take(struct pl_idmap *m, uint64_t k1, uint64_t k2, uint64_t *value);
void pl_idmap_free(struct pl_idmap *m);

#endif /* PANLAB_IDMAP_H */
