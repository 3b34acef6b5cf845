/* The phone: two ARMv7-A cores, 1 GiB of RAM and the devices of QEMU's
 * `virt` board at the same addresses, so one kernel and device tree
 * layout serve both backends. machine.c is the one place that says which
 * device sits where.
 *
 * Ownership: machine_new() allocates the machine and everything on it;
 * machine_free() frees it. Sinks and other callbacks in the config stay
 * owned by the caller and must outlive the machine. */
#ifndef PANLAB_MACHINE_H
#define PANLAB_MACHINE_H

#include <stddef.h>
#include <stdint.h>
#include "time.h"
#include "dvfs.h"
#include "dev/pl011.h"
#include "dev/virtio_gpu.h"
#include "dev/virtio_input.h"
#include "dev/sdcard.h"
#include "dev/virtio_net.h"
#include "dev/virtio_console.h"
#include "loader.h"
#include "panlab/error.h"

/* The memory map (QEMU hw/arm/virt.c, base_memmap). */
#define MACH_GIC_DIST     0x08000000u
#define MACH_GIC_CPU      0x08010000u
#define MACH_UART         0x09000000u
#define MACH_UART_SPI     1u
#define MACH_MMCI         0x090c0000u   /* a hole in QEMU virt's map */
#define MACH_MMCI_SPI     10u           /* and 11: cmd and PIO lines */
#define MACH_VIRTIO_BASE  0x0a000000u
#define MACH_VIRTIO_SPI   16u
#define MACH_VIRTIO_SLOTS 32
/* Free in QEMU's map (its secure GPIO ends at 0x090b1000; the MMCI is at
 * 0x090c0000). */
#define MACH_SCMI_SHMEM   0x090d0000u
#define MACH_RAM          0x40000000u
#define MACH_MAX_PORTS    6

typedef struct machine_config {
    int ncores;
    uint32_t ram_bytes;
    uint64_t cpu_hz;
    uint64_t counter_hz;
    uint64_t quantum_ns;
    int quantum_policy;         /* enum vt_quantum_policy (time.h) */
    byte_sink console;          /* PL011 output */
    /* Named virtio-console ports and where their output goes. */
    int nports;
    const char *port_name[MACH_MAX_PORTS];
    byte_sink port_out[MACH_MAX_PORTS];
    gpu_host display;           /* frames shown on the scanout */
    input_host input;           /* input frames delivered to the guest */
    const uint16_t *keys;       /* key codes the touch device declares */
    size_t nkeys;
    int disk_fd;                /* SD card image, or -1 for none */
    uint64_t disk_bytes;
    blk_timing disk_timing;
    net_host net;               /* the network; no NIC if send is NULL */
} machine_config;

/* Defaults: 2 cores, 1 GiB, 1.2 GHz (the top of the OMAP4460's OPPs,
 * dvfs.h), 62.5 MHz counter, 20 us quantum,
 * no SD card (an SD card's timing if one is given). */
void machine_config_default(machine_config *cfg);

typedef struct machine machine;

/* Returns NULL with err set when the configuration cannot be built (a
 * core or port count beyond a device's). */
machine *machine_new(const machine_config *cfg, struct pl_error *err);
void machine_free(machine *m);

vt_engine *machine_engine(machine *m);
/* The CPU frequency domain (dvfs.h), which the guest drives through SCMI. */
dvfs *machine_dvfs(machine *m);
phys_map *machine_phys(machine *m);
arm_sys *machine_cpus(machine *m);

/* A device tree given to boot (checked by loader_read_dtb) against this
 * board: its memory nodes must describe RAM the board has and hold the
 * kernel's load address. Returns 0, or -1 with err set at path@offset. */
int machine_check_dtb(const machine *m, const char *path, const uint8_t *dtb,
                      struct pl_error *err);
/* Places the kernel, initramfs and device tree in RAM and sets core 0 up
 * for the ARM Linux boot protocol (Documentation/arm/booting.rst): SVC
 * mode, MMU off, r0 = 0, r1 = ~0, r2 = DTB address. The kernel goes where
 * its form runs: a zImage at RAM + 64 KiB as QEMU puts it, a raw Image at
 * RAM + TEXT_OFFSET, an ELF at its addresses (a vmlinux's, linked at
 * PAGE_OFFSET, in RAM as the kernel's linear map puts them), entering at
 * its e_entry. dtb may be NULL: the
 * machine then generates one with bootargs. The blob used is copied to
 * *dtb_used (malloc'd, caller frees) if dtb_used is not NULL. Returns 0,
 * or -1 with err set. */
int machine_boot(machine *m, const loader_kernel *kernel, const uint8_t *initrd,
                 size_t initrd_bytes, const uint8_t *dtb, size_t dtb_bytes,
                 const char *bootargs, uint8_t **dtb_used,
                 size_t *dtb_used_bytes, struct pl_error *err);

/* The touchscreen and keys, for the host to inject into. */
virtio_input *machine_input(machine *m);
/* The NIC, or NULL, for the host's network to deliver to. */
virtio_net *machine_nic(machine *m);

enum machine_state { MACHINE_RUNNING, MACHINE_OFF, MACHINE_RESET };
enum machine_state machine_state(const machine *m);

/* The virtio-console, for the host to send to a port. */
virtio_console *machine_console(machine *m);

/* Snapshots (snapio.h), between vt_run calls: the configuration (checked
 * on load), each core, the engine's clocks, every device and its events,
 * then RAM (pages that are not all zero). A machine is restored into one
 * made by machine_new() with the same configuration and never booted.
 * Load returns 0, or -1 with the error recorded in r. */
void machine_save(const machine *m, snap_w *w);
int machine_load(machine *m, snap_r *r);

#endif
