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

/* A zeroed struct pl_idmap is an empty map. */
void pl_idmap_put(struct pl_idmap *m, uint64_t k1, uint64_t k2, uint64_t value);
bool pl_idmap_get(const struct pl_idmap *m, uint64_t k1, uint64_t k2, uint64_t *value);
/* Like get, and removes the entry. */
bool pl_idmap_take(struct pl_idmap *m, uint64_t k1, uint64_t k2, uint64_t *value);
void pl_idmap_free(struct pl_idmap *m);

#endif /* PANLAB_IDMAP_H */
