/* SPDX-License-Identifier: MIT */
/* Little-endian field access for the trace layout (include/FORMAT.md), independent of host order. */
#ifndef PANLAB_BYTES_H
#define PANLAB_BYTES_H

#include <stdint.h>

static inline uint16_t pl_get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static inline uint32_t pl_get32(const uint8_t *p)
{
	return (uint32_t)pl_get16(p) | (uint32_t)pl_get16(p + 2) << 16;
}

static inline uint64_t pl_get64(const uint8_t *p)
{
	return (uint64_t)pl_get32(p) | (uint64_t)pl_get32(p + 4) << 32;
}

static inline void pl_put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static inline void pl_put32(uint8_t *p, uint32_t v)
{
	pl_put16(p, (uint16_t)v);
	pl_put16(p + 2, (uint16_t)(v >> 16));
}

static inline void pl_put64(uint8_t *p, uint64_t v)
{
	pl_put32(p, (uint32_t)v);
	pl_put32(p + 4, (uint32_t)(v >> 32));
}

#endif /* PANLAB_BYTES_H */
