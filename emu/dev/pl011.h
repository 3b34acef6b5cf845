/* ARM PrimeCell UART PL011 (ARM DDI 0183G), transmit side plus the
 * registers the Linux amba-pl011 driver and earlycon touch. Transmission
 * is instantaneous: each byte goes to the sink when written, so the
 * console never delays the guest and is identical from run to run.
 * Nothing is ever received.
 *
 * Ownership: pl011_new() allocates, pl011_free() frees. The sink's
 * opaque pointer stays the caller's. */
#ifndef PANLAB_DEV_PL011_H
#define PANLAB_DEV_PL011_H

#include <stdint.h>
#include "../physmem.h"
#include "irq.h"
#include "../snapio.h"

#define PL011_SIZE 0x1000u

typedef struct byte_sink {
    void (*put)(void *opaque, const uint8_t *buf, size_t len_bytes);
    void *opaque;
} byte_sink;

typedef struct pl011 pl011;

pl011 *pl011_new(irq_line irq, byte_sink out);
void pl011_free(pl011 *u);
void pl011_register(pl011 *u, phys_map *m, uint32_t addr);
uint32_t pl011_read(void *opaque, uint32_t off, int size_log2);
void pl011_write(void *opaque, uint32_t off, uint32_t val, int size_log2);
/* Snapshots: the registers. Load returns 0, or -1 with the error in r. */
void pl011_save(const pl011 *u, snap_w *w);
int pl011_load(pl011 *u, snap_r *r);

#endif
