/* ARM PrimeCell MultiMedia Card Interface PL181 (ARM DDI 0205B), with an
 * SD card (sdcard.h) in its slot: the phone's SD card. Linux's stock mmci
 * driver moves every data word through the FIFO register by PIO.
 *
 * The CPU pays for that, as it did on the OMAP4460: each register or FIFO
 * access stalls the accessing core for PL181_ACCESS_NS of bus time (the
 * interconnect does not follow the CPU clock), so copying a 4 KiB block
 * costs 1024 accesses. The card's own timing (latency, bandwidth, write
 * cache) is sdcard.c's; commands complete at once.
 *
 * Modelling choices: the FIFO never overruns or underruns. A read's blocks
 * wait in the device until the CPU takes them. A write's words go through
 * the 16-word transmit FIFO: each crosses the card bus in the card's bus
 * time for write data (sd_card_write_bus_ns: 1.28 us a word on the 1-bit
 * 25 MHz bus), and the bus waits while the FIFO is empty. STATUS
 * (TXFIFOFULL, TXFIFOHALFEMPTY, TXFIFOEMPTY, TXDATAAVLBL) and the PIO
 * interrupt follow the fill level, so mmci's handler writes a half FIFO
 * and returns rather than copying a whole request with interrupts off.
 * After the last word the card is busy (DATAEND comes later) for as long
 * as its write model says. Two interrupt lines,
 * as on the ARM boards: MCIINTR[0] from MASK0, MCIINTR[1] (PIO) from MASK1.
 *
 * Ownership: pl181_new() allocates, pl181_free() frees (also the card). */
#ifndef PANLAB_DEV_PL181_H
#define PANLAB_DEV_PL181_H

#include "../physmem.h"
#include "../snapio.h"
#include "../time.h"
#include "irq.h"
#include "sdcard.h"

#define PL181_SIZE 0x1000u
/* Bus time of one access, in ns: an assumption, not a measurement. The
 * OMAP4460 reaches its peripherals through the L3 and the 100 MHz L4_PER
 * interconnects (OMAP4460 TRM §2, §14); we take 20 L4 cycles per uncached
 * access, reads and writes alike. */
#define PL181_ACCESS_NS 200u

typedef struct pl181 pl181;

/* The device takes ownership of the card; NULL is an empty slot. */
pl181 *pl181_new(vt_engine *t, irq_line irq_cmd, irq_line irq_pio,
                 sd_card *card);
void pl181_free(pl181 *p);
void pl181_register(pl181 *p, phys_map *m, uint32_t addr);
uint32_t pl181_read(void *opaque, uint32_t off, int size_log2);
void pl181_write(void *opaque, uint32_t off, uint32_t val, int size_log2);
/* Snapshots: registers, the data phase with its buffer, events and the
 * card. Load returns 0, or -1 with the error in r. */
void pl181_save(const pl181 *p, snap_w *w);
int pl181_load(pl181 *p, snap_r *r);

#endif
