/* Device tree generation with libfdt for the phone (see machine.c for the
 * memory map it describes).
 *
 * Ownership: fdt_generate() writes into a caller-owned buffer. */
#ifndef PANLAB_FDTGEN_H
#define PANLAB_FDTGEN_H

#include <stddef.h>
#include <stdint.h>
#include "panlab/error.h"

#define FDT_MAX_VIRTIO 32

typedef struct fdt_desc {
    uint32_t ram_addr, ram_bytes;
    int ncores;
    uint32_t gic_dist, gic_cpu;
    uint32_t uart, uart_spi;
    uint32_t mmci, mmci_spi[2];  /* PL181 SD host (0 = none), cmd and PIO */
    int nvirtio;                 /* slots described, each 0x200 bytes */
    uint32_t virtio_base, virtio_spi_base;
    const char *psci_method;     /* "hvc" or "smc" */
    const char *bootargs;
    uint32_t initrd_start, initrd_end;  /* physical; end exclusive; 0 = none */
    /* SCMI over SMC (arm,scmi.yaml): the channel's shared memory and the
     * function ID; the cores' clocks are its performance domain 0. */
    uint32_t scmi_shmem, scmi_shmem_bytes;  /* 0 = no SCMI */
    uint32_t scmi_smc_id;
} fdt_desc;

/* Returns the size in bytes of the blob in buf, or -1 with err set. */
int fdt_generate(void *buf, size_t buf_bytes, const fdt_desc *d, struct pl_error *err);

#endif
