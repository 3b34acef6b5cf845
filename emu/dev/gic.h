/* GICv2 interrupt controller: distributor and per-core CPU interfaces
 * (ARM IHI 0048B, "GICv2 arch spec" below), without security extensions:
 * every interrupt is signalled on the core's IRQ line.
 *
 * Ownership: gic_new() allocates, gic_free() frees. The output lines and
 * the cpu_id_fn are copied; their opaque pointers must outlive the GIC. */
#ifndef PANLAB_DEV_GIC_H
#define PANLAB_DEV_GIC_H

#include <stdint.h>
#include "../physmem.h"
#include "irq.h"
#include "../snapio.h"
#include "panlab/error.h"

#define GIC_MAX_CPUS 8
#define GIC_NR_IRQS 128         /* 16 SGIs, 16 PPIs, 96 SPIs */
#define GIC_DIST_SIZE 0x1000u
#define GIC_CPU_SIZE 0x2000u

typedef struct gic gic;
struct vt_engine;

/* Returns NULL with err set when ncpus is not 1..GIC_MAX_CPUS. */
gic *gic_new(int ncpus, const irq_line *cpu_irq, cpu_id_fn who,
             struct pl_error *err);
/* With the machine's clock, an SGI reaches a core no earlier than the
 * sender's virtual time (time.h, vt_defer_to_peer). */
void gic_set_clock(gic *g, struct vt_engine *vt);
void gic_free(gic *g);
void gic_register(gic *g, phys_map *m, uint32_t dist_addr, uint32_t cpu_addr);

/* Input lines for devices: SPI n is interrupt ID 32 + n; PPI n of a core
 * is ID 16 + n (GICv2 arch spec §2.2.1). */
irq_line gic_spi_line(gic *g, int spi);
irq_line gic_ppi_line(gic *g, int cpu, int ppi);

/* Register access for tests, as core `cpu` would do it. */
uint32_t gic_dist_read(gic *g, int cpu, uint32_t off);
void gic_dist_write(gic *g, int cpu, uint32_t off, uint32_t val);
uint32_t gic_cpu_read(gic *g, int cpu, uint32_t off);
void gic_cpu_write(gic *g, int cpu, uint32_t off, uint32_t val);

/* Snapshots (../snapio.h): every register and interrupt state. Load
 * returns 0, or -1 with the error recorded in r. */
void gic_save(const gic *g, snap_w *w);
int gic_load(gic *g, snap_r *r);

#endif
