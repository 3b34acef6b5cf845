/* The phone board: memory map, devices, interrupt wiring and boot. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <libfdt.h>
#include "machine.h"
#include "fdtgen.h"
#include "guest.h"
#include "dev/gic.h"
#include "dev/timer.h"
#include "dev/psci.h"
#include "dev/scmi.h"
#include "dev/virtio_console.h"
#include "dev/pl181.h"
#include "panlab/error.h"

/* Boot layout as QEMU's hw/arm/boot.c: kernel 64 KiB into RAM, initrd at
 * 128 MiB (or half of a smaller RAM), DTB after it on a 4 KiB boundary. */
#define KERNEL_OFF 0x00010000u
/* A raw Image runs only at PHYS_OFFSET + TEXT_OFFSET, with PHYS_OFFSET
 * 2 MiB aligned (arch/arm/Makefile textofs-y, arch/arm/kernel/head.S
 * __fixup_pv_table): 64 KiB would not do. */
#define IMAGE_TEXT_OFF 0x00008000u
#define INITRD_OFF_MAX 0x08000000u
#define DTB_MAX_BYTES 0x10000u

/* QEMU's default MAC prefix and address for its first NIC. */
static const uint8_t nic_mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
static const virtio_ops empty_slot;

/* PPIs of the generic timer (IDs 29, 30, 27): QEMU wires the physical
 * timer to the non-secure PPI; we also raise the secure one. */
enum { PPI_SEC_PHYS = 13, PPI_NS_PHYS = 14, PPI_VIRT = 11 };
/* Each core's PMU overflow request on PPI 7 (ID 23), where QEMU's virt
 * wires it (hw/arm/virt.c, VIRTUAL_PMU_IRQ): a per-core line, as the
 * Cortex-A15 MPCore's nPMUIRQ outputs are per core. */
enum { PPI_PMU = 7 };

struct machine {
    machine_config cfg;
    phys_map *phys;
    uint8_t *ram;
    arm_sys *sys;
    vt_engine *vt;
    gic *gic;
    arch_timer *timer;
    psci *psci;
    dvfs *dvfs;
    scmi *scmi;
    pl011 *uart;
    virtio_console *vcon;
    virtio_gpu *gpu;
    virtio_input *input;
    pl181 *mmci;                /* the SD card's host controller */
    virtio_net *nic;
    virtio_dev *empty[MACH_VIRTIO_SLOTS];
    enum machine_state state;
    irq_line phys_timer_lines[GIC_MAX_CPUS][2];
};

void machine_config_default(machine_config *cfg)
{
    memset(cfg, 0, sizeof(*cfg));
    cfg->ncores = 2;
    cfg->ram_bytes = 1u << 30;
    cfg->cpu_hz = 1200000000ull;
    cfg->counter_hz = 62500000ull;
    cfg->quantum_ns = 20000ull;
    cfg->disk_fd = -1;
    blk_timing_sd(&cfg->disk_timing);
}

/* ---- wiring between the CPU hooks, the engine and the devices ---- */

/* SMC and HVC: SCMI's channel, else PSCI (and SMCCC's own calls). */
static int hook_firmware(void *opaque, arm_cpu *cpu)
{
    machine *m = opaque;
    if (arm_get_reg(cpu, 0) == SCMI_SMC_ID)
        return scmi_call(m->scmi, cpu);
    return psci_call(m->psci, cpu);
}

static uint64_t hook_counter(void *opaque, arm_cpu *cpu)
{
    machine *m = opaque;
    (void)cpu;
    return vt_counter(m->vt);
}

static void hook_timer_changed(void *opaque, arm_cpu *cpu, int which)
{
    machine *m = opaque;
    arch_timer_changed(m->timer, arm_cpu_index(cpu), which);
}

static void core_irq(void *opaque, int n, int level)
{
    machine *m = opaque;
    arm_set_irq(arm_sys_cpu(m->sys, n), level);
}

static void hook_send_event(void *opaque, arm_cpu *cpu)
{
    machine *m = opaque;
    vt_send_event(m->vt, arm_cpu_index(cpu));
}

static void hook_pmu_irq(void *opaque, arm_cpu *cpu, int level)
{
    machine *m = opaque;
    irq_line l = gic_ppi_line(m->gic, arm_cpu_index(cpu), PPI_PMU);
    irq_set(&l, level);
}

static void hook_sync_point(void *opaque, arm_cpu *cpu)
{
    machine *m = opaque;
    (void)cpu;
    vt_sync_point(m->vt);
}

static int current_core(void *opaque)
{
    machine *m = opaque;
    return vt_current_core(m->vt);
}

/* The physical timer drives both its secure and non-secure PPIs. */
static void phys_timer_irq(void *opaque, int n, int level)
{
    machine *m = opaque;
    irq_line s = gic_ppi_line(m->gic, n, PPI_SEC_PHYS);
    irq_line ns = gic_ppi_line(m->gic, n, PPI_NS_PHYS);
    irq_set(&s, level);
    irq_set(&ns, level);
}

static void cpu_started(void *opaque, int core)
{
    machine *m = opaque;
    vt_core_online(m->vt, core);
}

static void system_event(void *opaque, int reset)
{
    machine *m = opaque;
    m->state = reset ? MACHINE_RESET : MACHINE_OFF;
    vt_stop(m->vt);
}

/* ---- the virtio-mmio slots ---- */

/* The console's slot; the console is made before the slots are filled. */
#define MACH_CONSOLE_SLOT 31

/* Each makes its slot's device, or returns NULL to leave the slot empty. */
static virtio_dev *make_console(machine *m, irq_line irq)
{
    (void)irq; /* made in machine_new, which can fail */
    return virtio_console_dev(m->vcon);
}

static virtio_dev *make_gpu(machine *m, irq_line irq)
{
    m->gpu = virtio_gpu_new(m->phys, irq, m->vt, m->cfg.display);
    return virtio_gpu_dev(m->gpu);
}

static virtio_dev *make_input(machine *m, irq_line irq)
{
    m->input = virtio_input_new(m->phys, irq, m->vt, m->cfg.keys, m->cfg.nkeys,
                                m->cfg.input);
    return virtio_input_dev(m->input);
}

static virtio_dev *make_nic(machine *m, irq_line irq)
{
    if (!m->cfg.net.send)
        return NULL;
    m->nic = virtio_net_new(m->phys, irq, nic_mac, m->cfg.net);
    return virtio_net_dev(m->nic);
}

/* virtio-mmio slots, as QEMU fills them from the top. Unused slots
 * answer with device ID 0, which drivers skip (virtio 1.2 §4.2.3.1.1). */
static const struct {
    int slot;
    virtio_dev *(*make)(machine *m, irq_line irq);
} slots[] = {
    { MACH_CONSOLE_SLOT, make_console },
    { 30, make_gpu },
    { 29, make_input },
    { 27, make_nic },
};

machine *machine_new(const machine_config *cfg, struct pl_error *err)
{
    machine *m = pl_xcalloc(1, sizeof(*m));
    m->cfg = *cfg;
    m->phys = phys_map_new();
    m->ram = phys_register_ram(m->phys, MACH_RAM, cfg->ram_bytes);

    arm_hooks hooks = {
        .opaque = m,
        .smc = hook_firmware,
        .hvc = hook_firmware,
        .counter = hook_counter,
        .timer_changed = hook_timer_changed,
        .send_event = hook_send_event,
        .sync_point = hook_sync_point,
        .pmu_irq = hook_pmu_irq,
    };
    if (!(m->sys = arm_sys_new(m->phys, cfg->ncores, &hooks, err))) {
        machine_free(m);
        return NULL;
    }
    for (int i = 0; i < cfg->ncores; i++)
        arm_set_cntfrq(arm_sys_cpu(m->sys, i), (uint32_t)cfg->counter_hz);
    m->vt = vt_new(m->sys, cfg->cpu_hz, cfg->counter_hz, cfg->quantum_ns);
    vt_set_quantum_policy(m->vt, (enum vt_quantum_policy)cfg->quantum_policy);

    irq_line outs[GIC_MAX_CPUS];
    for (int i = 0; i < cfg->ncores; i++)
        outs[i] = (irq_line){ core_irq, m, i };
    if (!(m->gic = gic_new(cfg->ncores, outs, (cpu_id_fn){ current_core, m },
                           err))) {
        machine_free(m);
        return NULL;
    }
    gic_set_clock(m->gic, m->vt);
    gic_register(m->gic, m->phys, MACH_GIC_DIST, MACH_GIC_CPU);

    for (int i = 0; i < cfg->ncores; i++) {
        m->phys_timer_lines[i][ARM_TIMER_PHYS] = (irq_line){ phys_timer_irq, m, i };
        m->phys_timer_lines[i][ARM_TIMER_VIRT] = gic_ppi_line(m->gic, i, PPI_VIRT);
    }
    m->timer = arch_timer_new(m->vt, m->sys,
                              (const irq_line (*)[2])m->phys_timer_lines);

    m->psci = psci_new(m->sys, (psci_host){ m, cpu_started, system_event });
    m->dvfs = dvfs_new(m->vt, dvfs_omap4460_opps, dvfs_omap4460_nopps,
                       DVFS_OMAP4460_LATENCY_NS, err);
    if (!m->dvfs) {
        machine_free(m);
        return NULL;
    }
    m->scmi = scmi_new(m->phys, MACH_SCMI_SHMEM, m->dvfs);

    m->uart = pl011_new(gic_spi_line(m->gic, MACH_UART_SPI), cfg->console);
    pl011_register(m->uart, m->phys, MACH_UART);

    if (cfg->disk_fd >= 0) {
        sd_card *card = sd_card_new(m->vt, cfg->disk_fd, cfg->disk_bytes,
                                    &cfg->disk_timing);
        m->mmci = pl181_new(m->vt, gic_spi_line(m->gic, MACH_MMCI_SPI),
                            gic_spi_line(m->gic, MACH_MMCI_SPI + 1), card);
        pl181_register(m->mmci, m->phys, MACH_MMCI);
    }

    m->vcon = virtio_console_new(
        m->phys, gic_spi_line(m->gic, MACH_VIRTIO_SPI + MACH_CONSOLE_SLOT),
        cfg->nports, cfg->port_name, cfg->port_out, err);
    if (!m->vcon) {
        machine_free(m);
        return NULL;
    }
    for (int i = 0; i < MACH_VIRTIO_SLOTS; i++) {
        uint32_t addr = MACH_VIRTIO_BASE + VIRTIO_MMIO_SIZE * (uint32_t)i;
        irq_line irq = gic_spi_line(m->gic, MACH_VIRTIO_SPI + i);
        virtio_dev *d = NULL;
        for (size_t k = 0; !d && k < sizeof(slots) / sizeof(slots[0]); k++)
            if (slots[k].slot == i)
                d = slots[k].make(m, irq);
        if (!d)
            d = m->empty[i] = virtio_new(m->phys, irq, &empty_slot, NULL);
        virtio_register(d, addr);
    }
    return m;
}

void machine_free(machine *m)
{
    if (!m)
        return;
    for (int i = 0; i < MACH_VIRTIO_SLOTS; i++)
        virtio_free(m->empty[i]);
    virtio_console_free(m->vcon);
    virtio_gpu_free(m->gpu);
    virtio_input_free(m->input);
    pl181_free(m->mmci);
    virtio_net_free(m->nic);
    pl011_free(m->uart);
    scmi_free(m->scmi);
    dvfs_free(m->dvfs);
    psci_free(m->psci);
    arch_timer_free(m->timer);
    gic_free(m->gic);
    vt_free(m->vt);
    arm_sys_free(m->sys);
    phys_map_free(m->phys);
    free(m);
}

vt_engine *machine_engine(machine *m) { return m->vt; }
dvfs *machine_dvfs(machine *m) { return m->dvfs; }
phys_map *machine_phys(machine *m) { return m->phys; }
arm_sys *machine_cpus(machine *m) { return m->sys; }
enum machine_state machine_state(const machine *m) { return m->state; }
virtio_input *machine_input(machine *m) { return m->input; }
virtio_net *machine_nic(machine *m) { return m->nic; }
virtio_console *machine_console(machine *m) { return m->vcon; }

/* Writes the initrd range into a given blob's /chosen. */
static int patch_chosen(uint8_t *blob, uint32_t start, uint32_t end,
                        struct pl_error *err)
{
    int node = fdt_path_offset(blob, "/chosen");
    if (node < 0)
        node = fdt_add_subnode(blob, 0, "chosen");
    int rc = node < 0 ? node : 0;
    if (!rc && end > start)
        rc = fdt_setprop_u32(blob, node, "linux,initrd-start", start);
    if (!rc && end > start)
        rc = fdt_setprop_u32(blob, node, "linux,initrd-end", end);
    if (rc < 0) {
        pl_error_set(err, "device tree: cannot set /chosen: %s",
                 fdt_strerror(rc));
        return -1;
    }
    return 0;
}

/* A reg cell run of n 32-bit big-endian cells, as one number. */
static uint64_t fdt_cells(const fdt32_t *p, int n)
{
    uint64_t v = 0;
    for (int i = 0; i < n; i++)
        v = v << 32 | fdt32_to_cpu(p[i]);
    return v;
}

int machine_check_dtb(const machine *m, const char *path, const uint8_t *dtb,
                      struct pl_error *err)
{
    uint64_t ram_lo = MACH_RAM, ram_hi = ram_lo + m->cfg.ram_bytes;
    uint64_t kernel = MACH_RAM + KERNEL_OFF;
    int ac = fdt_address_cells(dtb, 0), sc = fdt_size_cells(dtb, 0), holds_kernel = 0;
    int node = -1, len;
    if (ac < 1 || ac > 2 || sc < 1 || sc > 2) {
        pl_error_at_offset(err, path, fdt_off_dt_struct(dtb), "root #address-cells %d "
                           "and #size-cells %d, expected 1 or 2 each", ac, sc);
        return -1;
    }
    while ((node = fdt_node_offset_by_prop_value(dtb, node, "device_type", "memory",
                                                 sizeof("memory"))) >= 0) {
        const struct fdt_property *reg = fdt_get_property(dtb, node, "reg", &len);
        if (!reg)
            continue;
        uint64_t at = (uint64_t)((const uint8_t *)reg - dtb);
        const fdt32_t *cell = (const fdt32_t *)reg->data;
        if (len % (4 * (ac + sc))) {
            pl_error_at_offset(err, path, at, "memory reg of %d bytes, expected "
                               "(address, size) pairs of %d bytes", len, 4 * (ac + sc));
            return -1;
        }
        for (int i = 0; i < len / (4 * (ac + sc)); i++, cell += ac + sc) {
            uint64_t base = fdt_cells(cell, ac), size = fdt_cells(cell + ac, sc);
            /* The guest would use memory the board does not have and hang. */
            if (!size || base < ram_lo || base > ram_hi || size > ram_hi - base) {
                pl_error_at_offset(err, path, at, "memory %#llx..%#llx is not RAM on "
                                   "this board, expected ranges within %#llx..%#llx",
                                   (unsigned long long)base,
                                   (unsigned long long)(base + size - 1),
                                   (unsigned long long)ram_lo,
                                   (unsigned long long)(ram_hi - 1));
                return -1;
            }
            holds_kernel |= kernel >= base && kernel - base < size;
        }
    }
    if (!holds_kernel) {
        pl_error_at_offset(err, path, fdt_off_dt_struct(dtb), "no memory range holds "
                           "the kernel at %#llx, expected RAM from %#llx",
                           (unsigned long long)kernel, (unsigned long long)ram_lo);
        return -1;
    }
    return 0;
}

/* An ELF address as an offset into RAM: a vmlinux's (PAGE_OFFSET and up)
 * through the kernel's linear map, any other as physical. UINT64_MAX: not
 * in RAM. */
static uint64_t elf_ram_off(uint32_t addr, uint32_t ram)
{
    uint64_t off = addr >= GUEST_PAGE_OFFSET ? addr - GUEST_PAGE_OFFSET
                   : addr >= MACH_RAM        ? addr - MACH_RAM
                                             : UINT64_MAX;
    return off < ram ? off : UINT64_MAX;
}

int machine_boot(machine *m, const loader_kernel *kernel, const uint8_t *initrd,
                 size_t initrd_bytes, const uint8_t *dtb, size_t dtb_bytes,
                 const char *bootargs, uint8_t **dtb_used,
                 size_t *dtb_used_bytes, struct pl_error *err)
{
    uint32_t ram = m->cfg.ram_bytes;
    uint32_t initrd_off = ram / 2 < INITRD_OFF_MAX ? ram / 2 : INITRD_OFF_MAX;
    uint64_t load = kernel->kind == LOADER_IMAGE ? IMAGE_TEXT_OFF : KERNEL_OFF;
    uint64_t entry = load;
    if (kernel->kind == LOADER_ELF) {
        load = elf_ram_off(kernel->addr, ram);
        entry = elf_ram_off(kernel->entry, ram);
        if (load == UINT64_MAX || entry == UINT64_MAX) {
            pl_error_set(err,
                         "the ELF kernel's segments at %#x or entry at %#x "
                         "are not in RAM, expected addresses from %#x or %#x",
                         kernel->addr, kernel->entry, MACH_RAM,
                         GUEST_PAGE_OFFSET);
            return -1;
        }
    }
    if (load >= initrd_off || kernel->bytes > initrd_off - load ||
        initrd_bytes + 0x1000 + DTB_MAX_BYTES > ram - initrd_off) {
        pl_error_set(err,
                     "boot images do not fit in RAM: kernel %zu "
                     "bytes (at most %llu), initramfs %zu bytes (at most %u)",
                     kernel->bytes,
                     load < initrd_off ? (unsigned long long)(initrd_off - load)
                                       : 0ull,
                     initrd_bytes, ram - initrd_off - 0x1000 - DTB_MAX_BYTES);
        return -1;
    }
    memcpy(m->ram + load, kernel->data, kernel->bytes);
    uint32_t initrd_start = MACH_RAM + initrd_off;
    uint32_t initrd_end = initrd_start + (uint32_t)initrd_bytes;
    if (initrd_bytes)
        memcpy(m->ram + initrd_off, initrd, initrd_bytes);
    uint32_t dtb_off = (initrd_off + (uint32_t)initrd_bytes + 0xfffu) & ~0xfffu;
    uint8_t *blob = m->ram + dtb_off;

    int n;
    if (dtb) {
        if (dtb_bytes < fdt_totalsize(dtb)) {
            pl_error_set(err, "device tree: truncated");
            return -1;
        }
        n = fdt_open_into(dtb, blob, DTB_MAX_BYTES);
        if (n < 0) {
            pl_error_set(err, "device tree: %s", fdt_strerror(n));
            return -1;
        }
        if (patch_chosen(blob, initrd_start, initrd_end, err) < 0)
            return -1;
        fdt_pack(blob);
        n = (int)fdt_totalsize(blob);
    } else {
        fdt_desc d = {
            .ram_addr = MACH_RAM, .ram_bytes = ram, .ncores = m->cfg.ncores,
            .gic_dist = MACH_GIC_DIST, .gic_cpu = MACH_GIC_CPU,
            .uart = MACH_UART, .uart_spi = MACH_UART_SPI,
            .mmci = m->mmci ? MACH_MMCI : 0, .mmci_spi = { MACH_MMCI_SPI, MACH_MMCI_SPI + 1 },
            .nvirtio = MACH_VIRTIO_SLOTS, .virtio_base = MACH_VIRTIO_BASE,
            .virtio_spi_base = MACH_VIRTIO_SPI, .psci_method = "hvc",
            .bootargs = bootargs,
            .scmi_shmem = MACH_SCMI_SHMEM, .scmi_shmem_bytes = SCMI_SHMEM_BYTES,
            .scmi_smc_id = SCMI_SMC_ID,
            .initrd_start = initrd_bytes ? initrd_start : 0,
            .initrd_end = initrd_bytes ? initrd_end : 0,
        };
        n = fdt_generate(blob, DTB_MAX_BYTES, &d, err);
        if (n < 0)
            return -1;
    }
    if (dtb_used) {
        *dtb_used = malloc((size_t)n);
        if (!*dtb_used) {
            pl_error_set(err, "out of memory");
            return -1;
        }
        memcpy(*dtb_used, blob, (size_t)n);
        *dtb_used_bytes = (size_t)n;
    }

    arm_cpu *c0 = arm_sys_cpu(m->sys, 0);
    arm_reset(c0, 0);
    arm_set_reg(c0, 0, 0);
    arm_set_reg(c0, 1, 0xffffffffu);
    arm_set_reg(c0, 2, MACH_RAM + dtb_off);
    arm_set_pc(c0, MACH_RAM + (uint32_t)entry);
    arm_set_powered(c0, 1);
    for (int i = 1; i < m->cfg.ncores; i++)
        arm_set_powered(arm_sys_cpu(m->sys, i), 0);
    return 0;
}

/* ---- snapshots ---- */

#define PAGE_BYTES 4096u

static int page_is_zero(const uint8_t *p)
{
    const uint64_t *q = (const uint64_t *)(const void *)p;
    for (unsigned i = 0; i < PAGE_BYTES / 8; i++)
        if (q[i])
            return 0;
    return 1;
}

/* Runs of pages that are not all zero: (u32 first page, u32 pages, the
 * bytes), ended by a run of 0 pages. A fresh machine's RAM is zero, so
 * the rest needs no bytes. */
static void ram_save(const machine *m, snap_w *w)
{
    uint32_t npages = m->cfg.ram_bytes / PAGE_BYTES;
    snap_put_u32(w, PAGE_BYTES);
    for (uint32_t p = 0; p < npages;) {
        if (page_is_zero(m->ram + (size_t)p * PAGE_BYTES)) {
            p++;
            continue;
        }
        uint32_t end = p + 1;
        while (end < npages && !page_is_zero(m->ram + (size_t)end * PAGE_BYTES))
            end++;
        snap_put_u32(w, p);
        snap_put_u32(w, end - p);
        snap_put_bytes(w, m->ram + (size_t)p * PAGE_BYTES,
                       (size_t)(end - p) * PAGE_BYTES);
        p = end;
    }
    snap_put_u32(w, 0);
    snap_put_u32(w, 0);
}

static int ram_load(machine *m, snap_r *r)
{
    uint32_t npages = m->cfg.ram_bytes / PAGE_BYTES;
    uint32_t page = snap_get_u32(r);
    if (!snap_r_failed(r) && page != PAGE_BYTES)
        return snap_r_fail(r, "RAM pages of %u bytes, expected %u", page,
                           PAGE_BYTES);
    for (uint32_t next = 0; !snap_r_failed(r);) {
        uint32_t first = snap_get_u32(r), n = snap_get_u32(r);
        if (n == 0)
            break;
        if (first < next || first > npages || n > npages - first)
            return snap_r_fail(r, "RAM pages %u..%u, expected ascending runs "
                               "within %u pages", first, first + n, npages);
        snap_get_bytes(r, m->ram + (size_t)first * PAGE_BYTES,
                       (size_t)n * PAGE_BYTES);
        next = first + n;
    }
    return snap_r_failed(r) ? -1 : 0;
}

void machine_save(const machine *m, snap_w *w)
{
    snap_w_begin(w, "MACH");
    snap_put_u32(w, (uint32_t)m->cfg.ncores);
    snap_put_u32(w, m->cfg.ram_bytes);
    snap_put_u32(w, m->mmci != NULL);
    snap_put_u32(w, m->nic != NULL);
    snap_put_u32(w, (uint32_t)m->state);
    snap_w_end(w);
    snap_w_begin(w, "CPUS");
    for (int i = 0; i < m->cfg.ncores; i++)
        arm_save(arm_sys_cpu(m->sys, i), w);
    snap_w_end(w);
    snap_w_begin(w, "TIME");
    vt_save(m->vt, w);
    snap_w_end(w);
    snap_w_begin(w, "DEVS");
    gic_save(m->gic, w);
    arch_timer_save(m->timer, w);
    pl011_save(m->uart, w);
    dvfs_save(m->dvfs, w);
    scmi_save(m->scmi, w);
    virtio_console_save(m->vcon, w);
    virtio_gpu_save(m->gpu, w);
    virtio_input_save(m->input, w);
    if (m->mmci)
        pl181_save(m->mmci, w);
    if (m->nic)
        virtio_net_save(m->nic, w);
    for (int i = 0; i < MACH_VIRTIO_SLOTS; i++)
        if (m->empty[i])
            virtio_save(m->empty[i], w);
    snap_w_end(w);
    snap_w_begin(w, "RAM ");
    ram_save(m, w);
    snap_w_end(w);
}

static int load_config(machine *m, snap_r *r)
{
    uint32_t ncores = snap_get_u32(r), ram = snap_get_u32(r);
    uint32_t disk = snap_get_u32(r), nic = snap_get_u32(r);
    if (snap_r_failed(r))
        return -1;
    if (ncores != (uint32_t)m->cfg.ncores || ram != m->cfg.ram_bytes)
        return snap_r_fail(r, "a machine with %u cores and %u bytes of RAM, "
                           "expected %d and %u", ncores, ram, m->cfg.ncores,
                           m->cfg.ram_bytes);
    int has_disk = m->mmci != NULL;
    if (disk != (uint32_t)has_disk || nic != (m->nic != NULL))
        return snap_r_fail(r, "saved %s an SD card and %s a NIC; this run "
                           "has %s and %s (give the same --disk and --net)",
                           disk ? "with" : "without", nic ? "with" : "without",
                           has_disk ? "one" : "none", m->nic ? "one" : "none");
    m->state = (enum machine_state)snap_get_u32_max(r, MACHINE_RESET,
                                                    "machine state");
    return snap_r_failed(r) ? -1 : 0;
}

static int load_devices(machine *m, snap_r *r)
{
    if (gic_load(m->gic, r) < 0 || arch_timer_load(m->timer, r) < 0 ||
        pl011_load(m->uart, r) < 0 || dvfs_load(m->dvfs, r) < 0 ||
        scmi_load(m->scmi, r) < 0 || virtio_console_load(m->vcon, r) < 0 ||
        virtio_gpu_load(m->gpu, r) < 0 || virtio_input_load(m->input, r) < 0 ||
        (m->mmci && pl181_load(m->mmci, r) < 0) ||
        (m->nic && virtio_net_load(m->nic, r) < 0))
        return -1;
    for (int i = 0; i < MACH_VIRTIO_SLOTS; i++)
        if (m->empty[i] && virtio_load(m->empty[i], r) < 0)
            return -1;
    return 0;
}

int machine_load(machine *m, snap_r *r)
{
    if (snap_r_begin(r, "MACH", 0) < 0 || load_config(m, r) < 0 ||
        snap_r_end(r) < 0 || snap_r_begin(r, "CPUS", 0) < 0)
        return -1;
    uint64_t core_off[ARM_MAX_CORES];
    for (int i = 0; i < m->cfg.ncores; i++) {
        core_off[i] = snap_r_offset(r);
        if (arm_load(arm_sys_cpu(m->sys, i), r) < 0)
            return -1;
    }
    if (snap_r_end(r) < 0 || snap_r_begin(r, "TIME", 0) < 0 ||
        vt_load(m->vt, r) < 0 || snap_r_end(r) < 0 ||
        snap_r_begin(r, "DEVS", 0) < 0 || load_devices(m, r) < 0 ||
        snap_r_end(r) < 0 || snap_r_begin(r, "RAM ", 1) < 0 ||
        ram_load(m, r) < 0 || snap_r_end(r) < 0)
        return -1;
    /* The checksums passed; now whether the cores can run from here. */
    for (int i = 0; i < m->cfg.ncores; i++)
        if (arm_check_resumable(arm_sys_cpu(m->sys, i), r, core_off[i]) < 0)
            return -1;
    return 0;
}
