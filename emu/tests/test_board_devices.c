/* CUnit tests of the board's devices, each against its interface: the
 * GIC, the PL011, the virtio queue core and console ports, the SD card on
 * the PL181 and the MMIO bus's cost, the GPU and the touchscreen; and
 * device constructors given counts beyond the device. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include <zlib.h>
#include <libfdt.h>
#include <CUnit/Basic.h>
#include "../machine.h"
#include "board_test.h"
#include "../ports.h"
#include "../cpu/arm_int.h"
#include "../loader.h"
#include "../fdtgen.h"
#include "../dev/gic.h"
#include "../dev/pl011.h"
#include "../dev/virtio.h"
#include "../dev/virtio_console.h"
#include "../dev/pl181.h"
#include "../dev/virtio_gpu.h"
#include "../dev/virtio_input.h"
#include "../host/guest_clock.h"
#include "../host/snapshot.h"
#include "../host/slirp_net.h"
#include "panlab/error.h"
#include "panlab/read_file.h"

/* ---- GIC ---- */

static int cpu_level[2], who_cpu;

static void cpu_line(void *opaque, int n, int level)
{
    (void)opaque;
    cpu_level[n] = level;
}

static int who(void *opaque)
{
    (void)opaque;
    return who_cpu;
}

static gic *gic_up(void)
{
    irq_line outs[2] = { { cpu_line, NULL, 0 }, { cpu_line, NULL, 1 } };
    struct pl_error err;
    gic *g = gic_new(2, outs, (cpu_id_fn){ who, NULL }, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(g);
    cpu_level[0] = cpu_level[1] = 0;
    gic_dist_write(g, 0, 0x000, 1);
    for (int c = 0; c < 2; c++) {
        gic_cpu_write(g, c, 0x000, 1);
        gic_cpu_write(g, c, 0x004, 0xf0);
        gic_dist_write(g, c, 0x100, 0xffffffff); /* SGIs, PPIs on */
    }
    return g;
}

/* Constructors given counts beyond the device return an error, and
 * machine_new passes it on; nothing exits. */
static void test_bad_counts(void)
{
    struct pl_error err;
    irq_line outs[GIC_MAX_CPUS + 1] = { { cpu_line, NULL, 0 } };
    CU_ASSERT_PTR_NULL(gic_new(0, outs, (cpu_id_fn){ who, NULL }, &err));
    CU_ASSERT_STRING_EQUAL(err.msg, "gic: 0 cpus, expected 1..8");
    CU_ASSERT_PTR_NULL(
        gic_new(GIC_MAX_CPUS + 1, outs, (cpu_id_fn){ who, NULL }, &err));
    CU_ASSERT_STRING_EQUAL(err.msg, "gic: 9 cpus, expected 1..8");

    phys_map *map = phys_map_new();
    CU_ASSERT_PTR_NULL(virtio_console_new(map, (irq_line){ cpu_line, NULL, 0 },
                                          VCON_MAX_PORTS + 1, NULL, NULL,
                                          &err));
    CU_ASSERT_STRING_EQUAL(err.msg, "virtio-console: 7 ports, at most 6");
    phys_map_free(map);

    machine_config cfg;
    machine_config_default(&cfg);
    cfg.ram_bytes = 16u << 20;
    cfg.console = (byte_sink){ discard, NULL };
    cfg.nports = VCON_MAX_PORTS + 1;
    CU_ASSERT_PTR_NULL(machine_new(&cfg, &err));
    CU_ASSERT_STRING_EQUAL(err.msg, "virtio-console: 7 ports, at most 6");
    cfg.nports = 0;
    cfg.ncores = ARM_MAX_CORES + 1;
    CU_ASSERT_PTR_NULL(machine_new(&cfg, &err));
    CU_ASSERT_STRING_EQUAL(err.msg, "arm: 9 cores, expected 1..8");
}

/* The map takes as many ranges as a machine registers, and finds each. */
static void test_phys_map_grows(void)
{
    static uint32_t dev[100];
    phys_map *map = phys_map_new();
    for (uint32_t i = 0; i < 100; i++)
        phys_register_device(map, 0x10000000u + i * 0x1000u, 0x1000u, &dev[i],
                             NULL, NULL);
    for (uint32_t i = 0; i < 100; i++) {
        const phys_range *r = phys_find(map, 0x10000000u + i * 0x1000u + 4);
        CU_ASSERT_PTR_NOT_NULL_FATAL(r);
        CU_ASSERT_PTR_EQUAL(r->opaque, &dev[i]);
    }
    CU_ASSERT_PTR_NULL(phys_find(map, 0x10000000u + 100 * 0x1000u));
    phys_map_free(map);
}

static void test_gic_spi(void)
{
    gic *g = gic_up();
    CU_ASSERT_EQUAL(gic_dist_read(g, 0, 0x004) & 0x1f, GIC_NR_IRQS / 32 - 1);
    CU_ASSERT_EQUAL(gic_dist_read(g, 0, 0x004) >> 5 & 7, 1);
    irq_line spi = gic_spi_line(g, 5);           /* ID 37 */
    gic_dist_write(g, 0, 0x820 + 4, 0x02 << 8);  /* ITARGETSR: cpu1 */
    gic_dist_write(g, 0, 0x404 + 32, 0xa0 << 8); /* priority 0xa0 */
    irq_set(&spi, 1);
    CU_ASSERT_EQUAL(cpu_level[1], 0); /* not enabled yet */
    gic_dist_write(g, 0, 0x104, 1u << 5);
    CU_ASSERT_EQUAL(cpu_level[1], 1);
    CU_ASSERT_EQUAL(cpu_level[0], 0);
    CU_ASSERT_EQUAL(gic_dist_read(g, 0, 0x204) >> 5 & 1, 1); /* pending */
    CU_ASSERT_EQUAL(gic_cpu_read(g, 1, 0x00c), 37);          /* IAR */
    CU_ASSERT_EQUAL(cpu_level[1], 0); /* active: not signalled */
    CU_ASSERT_EQUAL(gic_cpu_read(g, 1, 0x014), 0xa0); /* RPR */
    CU_ASSERT_EQUAL(gic_cpu_read(g, 1, 0x00c), 1023); /* spurious */
    gic_cpu_write(g, 1, 0x010, 37);                   /* EOI, line still high */
    CU_ASSERT_EQUAL(cpu_level[1], 1);
    irq_set(&spi, 0); /* level: no longer pending */
    CU_ASSERT_EQUAL(cpu_level[1], 0);
    /* Masked by priority. */
    gic_cpu_write(g, 1, 0x004, 0x80);
    irq_set(&spi, 1);
    CU_ASSERT_EQUAL(cpu_level[1], 0);
    gic_cpu_write(g, 1, 0x004, 0xf0);
    CU_ASSERT_EQUAL(cpu_level[1], 1);
    gic_free(g);
}

static void test_gic_sgi_ppi(void)
{
    gic *g = gic_up();
    gic_dist_write(g, 0, 0xf00, 0x2u << 16 | 3); /* SGI 3 to cpu1 */
    CU_ASSERT_EQUAL(cpu_level[1], 1);
    CU_ASSERT_EQUAL(cpu_level[0], 0);
    CU_ASSERT_EQUAL(gic_cpu_read(g, 1, 0x00c), 3); /* source cpu0 */
    gic_cpu_write(g, 1, 0x010, 3);
    who_cpu = 1; /* cpu1 sends to all others */
    gic_dist_write(g, 1, 0xf00, 1u << 24 | 7);
    CU_ASSERT_EQUAL(cpu_level[0], 1);
    CU_ASSERT_EQUAL(gic_cpu_read(g, 0, 0x00c), 1u << 10 | 7);
    gic_cpu_write(g, 0, 0x010, 1u << 10 | 7);
    CU_ASSERT_EQUAL(cpu_level[0], 0);
    who_cpu = 0;
    /* PPIs are per core: timer PPI 11 (ID 27) on cpu0 only. */
    irq_line ppi = gic_ppi_line(g, 0, 11);
    irq_set(&ppi, 1);
    CU_ASSERT_EQUAL(cpu_level[0], 1);
    CU_ASSERT_EQUAL(cpu_level[1], 0);
    CU_ASSERT_EQUAL(gic_cpu_read(g, 0, 0x018), 27); /* HPPIR */
    /* Higher priority (lower value) wins over the pending PPI. */
    gic_dist_write(g, 0, 0x41c, 0x40u << 24); /* ID 31 */
    gic_dist_write(g, 0, 0x418, 0x80u << 24); /* ID 27 */
    irq_line ppi15 = gic_ppi_line(g, 0, 15);
    irq_set(&ppi15, 1);
    CU_ASSERT_EQUAL(gic_cpu_read(g, 0, 0x00c), 31);
    gic_free(g);
}

/* ---- PL011 ---- */

static char uart_out[64];
static size_t uart_len;
static int uart_irq;

static void uart_put(void *opaque, const uint8_t *buf, size_t n)
{
    (void)opaque;
    memcpy(uart_out + uart_len, buf, n);
    uart_len += n;
}

static void uart_line(void *opaque, int n, int level)
{
    (void)opaque;
    (void)n;
    uart_irq = level;
}

static void test_pl011(void)
{
    pl011 *u = pl011_new((irq_line){ uart_line, NULL, 0 },
                         (byte_sink){ uart_put, NULL });
    uart_len = 0;
    CU_ASSERT_EQUAL(pl011_read(u, 0xfe0, 2), 0x11);
    CU_ASSERT_EQUAL(pl011_read(u, 0xff0, 2), 0x0d);
    CU_ASSERT_EQUAL(pl011_read(u, 0xffc, 2), 0xb1);
    CU_ASSERT(pl011_read(u, 0x18, 2) & 0x80); /* FR.TXFE */
    pl011_write(u, 0x00, 'h', 2);
    pl011_write(u, 0x00, 'i', 2);
    CU_ASSERT_EQUAL(uart_len, 2);
    CU_ASSERT_EQUAL(memcmp(uart_out, "hi", 2), 0);
    CU_ASSERT_EQUAL(pl011_read(u, 0x3c, 2), 0x20); /* RIS.TX */
    CU_ASSERT_EQUAL(uart_irq, 0);
    pl011_write(u, 0x38, 0x20, 2); /* IMSC.TX */
    CU_ASSERT_EQUAL(uart_irq, 1);
    CU_ASSERT_EQUAL(pl011_read(u, 0x40, 2), 0x20); /* MIS */
    pl011_write(u, 0x44, 0x20, 2);                 /* ICR */
    CU_ASSERT_EQUAL(uart_irq, 0);
    pl011_write(u, 0x30, 0x381, 2); /* CR with loopback */
    pl011_write(u, 0x00, 'x', 2);
    CU_ASSERT_EQUAL(uart_len, 2);
    pl011_write(u, 0x24, 13, 2);
    CU_ASSERT_EQUAL(pl011_read(u, 0x24, 2), 13);
    pl011_free(u);
}

/* ---- virtio core ---- */

#define VQ_DESC 0x40001000u
#define VQ_AVAIL 0x40002000u
#define VQ_USED 0x40003000u
#define VQ_NUM 8

static phys_map *vmap;
static uint8_t *vram;
static int virtio_level;
static virtio_dev *vdev;
static int popped;

static void vline(void *opaque, int n, int level)
{
    (void)opaque;
    (void)n;
    virtio_level = level;
}

static void put16(uint32_t pa, uint16_t v)
{
    memcpy(vram + pa - MACH_RAM, &v, 2);
}
static void put32(uint32_t pa, uint32_t v)
{
    memcpy(vram + pa - MACH_RAM, &v, 4);
}
static void put64(uint32_t pa, uint64_t v)
{
    memcpy(vram + pa - MACH_RAM, &v, 8);
}
static uint32_t get32(uint32_t pa)
{
    uint32_t v;
    memcpy(&v, vram + pa - MACH_RAM, 4);
    return v;
}

static void desc(int i, uint32_t addr, uint32_t len, uint16_t flags,
                 uint16_t next)
{
    put64(VQ_DESC + 16 * i, addr);
    put32(VQ_DESC + 16 * i + 8, len);
    put16(VQ_DESC + 16 * i + 12, flags);
    put16(VQ_DESC + 16 * i + 14, next);
}

/* A test device: answers "ping" with "pong!". */
static void echo_notify(void *opaque, int q)
{
    (void)opaque;
    virtio_req r;
    int rc;
    while ((rc = virtio_pop(vdev, q, &r)) == 1) {
        char in[8] = { 0 };
        CU_ASSERT_EQUAL(r.out_bytes, 4);
        CU_ASSERT_EQUAL(r.in_bytes, 8);
        CU_ASSERT_EQUAL(virtio_req_read(vdev, &r, 0, in, sizeof(in)), 4);
        CU_ASSERT_STRING_EQUAL(in, "ping");
        CU_ASSERT_EQUAL(virtio_req_write(vdev, &r, 0, "pong!", 5), 5);
        virtio_push(vdev, &r, 5);
        popped++;
    }
    if (rc < 0)
        popped = -1;
}

static const virtio_ops echo_ops = { .device_id = 42,
                                     .nqueues = 1,
                                     .notify = echo_notify };

/* The driver's side of queue setup (virtio 1.2 §4.2.3.2), queue q's
 * rings 64 KiB apart from the others'. */
static void queue_init(virtio_dev *d, int q)
{
    uint32_t off = 0x10000u * (uint32_t)q;
    virtio_mmio_write(d, 0x030, (uint32_t)q, 2);
    virtio_mmio_write(d, 0x038, VQ_NUM, 2);
    virtio_mmio_write(d, 0x080, VQ_DESC + off, 2);
    virtio_mmio_write(d, 0x090, VQ_AVAIL + off, 2);
    virtio_mmio_write(d, 0x0a0, VQ_USED + off, 2);
    virtio_mmio_write(d, 0x044, 1, 2);
}

static void vq_setup(const virtio_ops *ops, void *opaque)
{
    vmap = phys_map_new();
    vram = phys_register_ram(vmap, MACH_RAM, 1u << 20);
    vdev = virtio_new(vmap, (irq_line){ vline, NULL, 0 }, ops, opaque);
    virtio_level = 0;
    popped = 0;
    CU_ASSERT_EQUAL(virtio_mmio_read(vdev, 0x000, 2), 0x74726976);
    CU_ASSERT_EQUAL(virtio_mmio_read(vdev, 0x004, 2), 2);
    CU_ASSERT_EQUAL(virtio_mmio_read(vdev, 0x008, 2), ops->device_id);
    virtio_mmio_write(vdev, 0x014, 1, 2);
    CU_ASSERT_EQUAL(virtio_mmio_read(vdev, 0x010, 2), 1); /* VERSION_1 */
    queue_init(vdev, 0);
    virtio_mmio_write(vdev, 0x070, 0xf, 2);
}

static void vq_teardown(void)
{
    virtio_free(vdev);
    phys_map_free(vmap);
}

static void test_virtqueue(void)
{
    vq_setup(&echo_ops, NULL);
    memcpy(vram + 0x8000, "ping", 4);
    desc(0, MACH_RAM + 0x8000, 4, 1, 1); /* readable, NEXT */
    desc(1, MACH_RAM + 0x9000, 8, 2, 0); /* writable */
    put16(VQ_AVAIL + 4, 0);              /* ring[0] = head 0 */
    put16(VQ_AVAIL + 2, 1);              /* idx */
    virtio_mmio_write(vdev, 0x050, 0, 2);
    CU_ASSERT_EQUAL(popped, 1);
    CU_ASSERT_EQUAL(memcmp(vram + 0x9000, "pong!", 5), 0);
    CU_ASSERT_EQUAL(get32(VQ_USED) >> 16, 1); /* used idx */
    CU_ASSERT_EQUAL(get32(VQ_USED + 4), 0);   /* id */
    CU_ASSERT_EQUAL(get32(VQ_USED + 8), 5);   /* len */
    CU_ASSERT_EQUAL(virtio_mmio_read(vdev, 0x060, 2), 1);
    CU_ASSERT_EQUAL(virtio_level, 1);
    virtio_mmio_write(vdev, 0x064, 1, 2);
    CU_ASSERT_EQUAL(virtio_level, 0);
    /* A chain that loops is refused and stops the queue. */
    desc(2, MACH_RAM + 0x8000, 4, 1, 2);
    put16(VQ_AVAIL + 6, 2);
    put16(VQ_AVAIL + 2, 2);
    virtio_mmio_write(vdev, 0x050, 0, 2);
    CU_ASSERT_EQUAL(popped, -1);
    CU_ASSERT_FALSE(virtio_queue_ready(vdev, 0));
    /* Reset clears the queues. */
    virtio_mmio_write(vdev, 0x070, 0, 2);
    CU_ASSERT_EQUAL(virtio_mmio_read(vdev, 0x044, 2), 0);
    vq_teardown();
}

static char port_out[32];
static size_t port_len;

static void port_put(void *opaque, const uint8_t *buf, size_t n)
{
    (void)opaque;
    memcpy(port_out + port_len, buf, n);
    port_len += n;
}

/* Driver-side view of one console queue (q), for the multiport test. */
static void post(int q, int slot, uint32_t buf, uint32_t len, int writable)
{
    uint32_t off = 0x10000u * (uint32_t)q;
    put64(VQ_DESC + off + 16 * slot, buf);
    put32(VQ_DESC + off + 16 * slot + 8, len);
    put16(VQ_DESC + off + 16 * slot + 12, writable ? 2 : 0);
    uint16_t idx;
    memcpy(&idx, vram + VQ_AVAIL + off + 2 - MACH_RAM, 2);
    put16(VQ_AVAIL + off + 4 + 2 * (idx % VQ_NUM), (uint16_t)slot);
    put16(VQ_AVAIL + off + 2, (uint16_t)(idx + 1));
}

/* A port whose file fails mid-run (a full disk): the run learns it, counts
 * the bytes lost, and the close fails naming the file. */
static void test_port_write_failure(void)
{
    machine *m = machine_of(1);
    console_watch con = { .vt = machine_engine(m) };
    port_list l;
    port_files pf;
    machine_config cfg;
    struct pl_error err;
    port_list_default(&l);
    CU_ASSERT_EQUAL_FATAL(
        port_list_set(&l, "panlab.trace", 12, "/dev/full", &err), 0);
    CU_ASSERT_EQUAL_FATAL(port_files_open(&pf, &l, &con, &cfg, &err), 0);
    static uint8_t chunk[10000];
    int k = 0;
    while (strcmp(cfg.port_name[k], "panlab.trace"))
        k++;
    for (int i = 0; i < 3; i++) {
        cfg.port_out[k].put(cfg.port_out[k].opaque, chunk, sizeof(chunk));
        port_files_flush(&pf);
    }
    CU_ASSERT_EQUAL(pf.file[k].lost_bytes, 30000);
    CU_ASSERT_EQUAL(port_files_close(&pf, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg,
                           "/dev/full: cannot write: No space left on device; "
                           "30000 bytes of the port's output were lost");
    machine_free(m);
}

static void test_console_ports(void)
{
    const char *names[] = { "panlab.trace" };
    byte_sink outs[] = { { port_put, NULL } };
    port_len = 0;
    vmap = phys_map_new();
    vram = phys_register_ram(vmap, MACH_RAM, 1u << 20);
    struct pl_error err;
    virtio_console *c = virtio_console_new(vmap, (irq_line){ vline, NULL, 0 },
                                           1, names, outs, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(c);
    virtio_dev *saved = vdev = virtio_console_dev(c);
    /* max_nr_ports = 2 (port 0 unused), so 6 queues. */
    CU_ASSERT_EQUAL(virtio_mmio_read(vdev, 0x104, 2), 2);
    for (int q = 0; q < 6; q++)
        queue_init(vdev, q);
    /* Control receive buffers, then DEVICE_READY on control transmit. */
    for (int i = 0; i < 4; i++)
        post(2, i, MACH_RAM + 0x80000 + 0x100 * (uint32_t)i, 0x100, 1);
    virtio_mmio_write(vdev, 0x050, 2, 2);
    uint8_t msg[8] = { 0, 0, 0, 0, 0, 0, 1, 0 }; /* id 0, READY, 1 */
    memcpy(vram + 0x90000, msg, 8);
    post(3, 0, MACH_RAM + 0x90000, 8, 0);
    virtio_mmio_write(vdev, 0x050, 3, 2);
    /* DEVICE_ADD for port 1. */
    CU_ASSERT_EQUAL(get32(MACH_RAM + 0x80000), 1);
    CU_ASSERT_EQUAL(get32(MACH_RAM + 0x80004), 1);
    /* PORT_READY(1) gets PORT_NAME then PORT_OPEN. */
    uint8_t ready[8] = { 1, 0, 0, 0, 3, 0, 1, 0 };
    memcpy(vram + 0x90100, ready, 8);
    post(3, 1, MACH_RAM + 0x90100, 8, 0);
    virtio_mmio_write(vdev, 0x050, 3, 2);
    CU_ASSERT_EQUAL(get32(MACH_RAM + 0x80104), 7);
    CU_ASSERT_EQUAL(memcmp(vram + 0x80108, "panlab.trace", 12), 0);
    CU_ASSERT_EQUAL(get32(MACH_RAM + 0x80204), 0x10006);
    /* Port 1 transmit is queue 5. */
    memcpy(vram + 0x91000, "trace!", 6);
    post(5, 0, MACH_RAM + 0x91000, 6, 0);
    virtio_mmio_write(vdev, 0x050, 5, 2);
    CU_ASSERT_EQUAL(port_len, 6);
    CU_ASSERT_EQUAL(memcmp(port_out, "trace!", 6), 0);
    /* Host input waits for a receive buffer on port 1 (queue 4). */
    CU_ASSERT_EQUAL(
        virtio_console_send(c, "panlab.trace", (const uint8_t *)"cfg\n", 4), 0);
    CU_ASSERT_EQUAL(virtio_console_send(c, "nosuch", (const uint8_t *)"x", 1),
                    -1);
    static uint8_t big[VCON_INPUT_BYTES];
    CU_ASSERT_EQUAL(virtio_console_send(c, "panlab.trace", big, sizeof(big)),
                    -1);
    post(4, 0, MACH_RAM + 0x92000, 0x100, 1);
    CU_ASSERT_NOT_EQUAL(memcmp(vram + 0x92000, "cfg\n", 4), 0);
    virtio_mmio_write(vdev, 0x050, 4, 2);
    CU_ASSERT_EQUAL(memcmp(vram + 0x92000, "cfg\n", 4), 0);
    CU_ASSERT_PTR_EQUAL(vdev, saved);
    virtio_console_free(c);
    phys_map_free(vmap);
}

/* Queues a chain of (buffer, length, writable) on queue 0 from slot. */
static void post_chain(int slot, const uint32_t (*seg)[3], int n)
{
    for (int i = 0; i < n; i++) {
        uint16_t flags = (uint16_t)((seg[i][2] ? 2 : 0) | (i + 1 < n ? 1 : 0));
        desc(slot + i, seg[i][0], seg[i][1], flags, (uint16_t)(slot + i + 1));
    }
    uint16_t idx;
    memcpy(&idx, vram + VQ_AVAIL + 2 - MACH_RAM, 2);
    put16(VQ_AVAIL + 4 + 2 * (idx % VQ_NUM), (uint16_t)slot);
    put16(VQ_AVAIL + 2, (uint16_t)(idx + 1));
    virtio_mmio_write(vdev, 0x050, 0, 2);
}

/* ---- SD card on the PL181 ---- */

enum {
    MCI_ARG = 0x08,
    MCI_CMD = 0x0c,
    MCI_RESP0 = 0x14,
    MCI_DLEN = 0x28,
    MCI_DCTRL = 0x2c,
    MCI_STATUS = 0x34,
    MCI_CLEAR = 0x38,
    MCI_MASK0 = 0x3c,
    MCI_MASK1 = 0x40,
    MCI_FIFOCNT = 0x48,
    MCI_FIFO = 0x80
};
enum { RESP = 1u << 6, LONG = 1u << 7, CPSM = 1u << 10 };
enum {
    DATAEND = 1u << 8,
    TXACTIVE = 1u << 12,
    TXHALFEMPTY = 1u << 14,
    TXFULL = 1u << 16,
    TXEMPTY = 1u << 18,
    TXAVAIL = 1u << 20
};
static int mci_line[2];

static void mci_irq(void *opaque, int n, int level)
{
    (void)opaque;
    mci_line[n] = level;
}

/* Issues a command as mmci_start_command() does; returns STATUS. */
static uint32_t mci_cmd(pl181 *p, uint32_t index, uint32_t arg, uint32_t flags)
{
    pl181_write(p, MCI_CLEAR, 0x7ff, 2);
    pl181_write(p, MCI_ARG, arg, 2);
    pl181_write(p, MCI_CMD, index | flags | CPSM, 2);
    return pl181_read(p, MCI_STATUS, 2);
}

/* Saves the engine and the PL181 in the middle of a transfer, frees them
 * and returns a copy loaded on a new engine (*t), with a new card on the
 * same image. */
static pl181 *mci_reload(vt_engine **t, pl181 *p, int fd, uint64_t bytes,
                         const blk_timing *tm)
{
    const char *path = tmp_path("pl181.snap");
    struct pl_error err;
    snap_w *w = snap_w_open(path, 1, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(w);
    snap_w_begin(w, "MMCI");
    vt_save(*t, w);
    pl181_save(p, w);
    snap_w_end(w);
    CU_ASSERT_EQUAL(snap_w_close(w, &err), 0);
    pl181_free(p);
    vt_free(*t);
    *t = vt_new(NULL, 1200000000, 62500000, 100000);
    p = pl181_new(*t, (irq_line){ mci_irq, NULL, 0 },
                  (irq_line){ mci_irq, NULL, 1 },
                  sd_card_new(*t, fd, bytes, tm));
    snap_r *r = snap_r_open(path, 1, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(r);
    CU_ASSERT_EQUAL(snap_r_begin(r, "MMCI", 0), 0);
    CU_ASSERT_EQUAL(vt_load(*t, r), 0);
    CU_ASSERT_EQUAL(pl181_load(p, r), 0);
    CU_ASSERT_EQUAL(snap_r_end(r), 0);
    snap_r_close(r);
    return p;
}

/* The mmc core's identification of an SDHC card, a 1 KiB multiple-block
 * write through the 16-word FIFO draining at the card's bus rate (saved
 * and restored halfway), whose end waits for the card's write latency, a read back whose
 * blocks arrive at the read bandwidth, and the card's answers to bad
 * commands and addresses. */
static void test_sdcard(void)
{
    const char *img = tmp_path("sd.img");
    FILE *f = fopen(img, "wb");
    CU_ASSERT_EQUAL(ftruncate(fileno(f), 2 * SD_CAPACITY_UNIT_BYTES), 0);
    fclose(f);
    int fd;
    uint64_t bytes;
    struct pl_error err;
    CU_ASSERT_EQUAL(loader_open_disk(write_file("odd.img", "abc", 3), &fd,
                                     &bytes, &err) == 0,
                    0);
    CU_ASSERT_PTR_NOT_NULL(
        strstr(err.msg, "odd.img@3: an SD card image must be"));
    CU_ASSERT_EQUAL(loader_open_disk(img, &fd, &bytes, &err), 0);
    CU_ASSERT_EQUAL(bytes, 2 * SD_CAPACITY_UNIT_BYTES);

    vt_engine *t = vt_new(NULL, 1200000000, 62500000, 100000);
    blk_timing tm;
    blk_timing_sd(&tm);
    pl181 *p = pl181_new(t, (irq_line){ mci_irq, NULL, 0 },
                         (irq_line){ mci_irq, NULL, 1 },
                         sd_card_new(t, fd, bytes, &tm));
    CU_ASSERT_EQUAL(pl181_read(p, 0xfe0, 2), 0x81); /* PL181 part number */
    CU_ASSERT_EQUAL(pl181_read(p, 0xfe8, 2), 0x04);
    pl181_write(p, MCI_MASK0, 0x3ff, 2);

    CU_ASSERT_EQUAL(mci_cmd(p, 0, 0, 0) & 0xff, 1u << 7); /* CMDSENT */
    CU_ASSERT_EQUAL(mci_cmd(p, 52, 0, RESP) & 0xff,
                    1u << 2); /* SDIO: timeout */
    CU_ASSERT_EQUAL(mci_cmd(p, 8, 0x1aa, RESP) & 0xff,
                    1u << 6); /* CMDRESPEND */
    CU_ASSERT_EQUAL(pl181_read(p, MCI_RESP0, 2), 0x1aa);
    CU_ASSERT_EQUAL(mci_line[0], 1);
    mci_cmd(p, 55, 0, RESP);
    mci_cmd(p, 41, 0x40ff8000, RESP);
    CU_ASSERT_EQUAL(pl181_read(p, MCI_RESP0, 2), 0xc0ff8000); /* ready, SDHC */
    mci_cmd(p, 2, 0, RESP | LONG);
    CU_ASSERT_EQUAL(pl181_read(p, 0x10, 2), 0x3f); /* RESPCMD */
    mci_cmd(p, 3, 0, RESP);
    uint32_t rca = pl181_read(p, MCI_RESP0, 2) >> 16;
    CU_ASSERT_EQUAL(mci_cmd(p, 9, 0x12340000, RESP | LONG) & 0xff, 1u << 2);
    mci_cmd(p, 9, rca << 16, RESP | LONG);
    /* CSD 2.0: C_SIZE (bits 69:48) = 1 for 1 MiB. */
    CU_ASSERT_EQUAL(pl181_read(p, MCI_RESP0, 2) >> 30, 1);
    CU_ASSERT_EQUAL((pl181_read(p, MCI_RESP0 + 8, 2) >> 16) & 0x3fffff, 1);
    mci_cmd(p, 7, rca << 16, RESP);
    mci_cmd(p, 13, rca << 16, RESP);
    CU_ASSERT_EQUAL((pl181_read(p, MCI_RESP0, 2) >> 9) & 0xf, 4); /* tran */

    /* Write blocks 2-3: command, then the DPSM, then the FIFO by PIO as
     * mmci_pio_write() does: 16 words into the empty FIFO, then 8 each
     * time it is half empty. Each word crosses the bus in word_ns. */
    const uint32_t tx_bits = TXACTIVE | TXHALFEMPTY | TXFULL | TXEMPTY |
                             TXAVAIL;
    uint64_t word_ns = 4 * VT_NS_PER_S / tm.bus_bytes_per_s;
    mci_cmd(p, 25, 2, RESP);
    pl181_write(p, MCI_DLEN, 1024, 2);
    pl181_write(p, MCI_MASK1, TXHALFEMPTY, 2);
    pl181_write(p, MCI_DCTRL, 9 << 4 | 1, 2);
    CU_ASSERT_EQUAL(mci_line[1], 1);
    CU_ASSERT_EQUAL(pl181_read(p, MCI_STATUS, 2) & tx_bits,
                    TXACTIVE | TXHALFEMPTY | TXEMPTY);
    uint32_t i = 0;
    for (; i < 8; i++)
        pl181_write(p, MCI_FIFO + (i % 16) * 4, 0xab000000u | i, 2);
    CU_ASSERT_EQUAL(pl181_read(p, MCI_STATUS, 2) & tx_bits,
                    TXACTIVE | TXHALFEMPTY | TXAVAIL);
    for (; i < 16; i++)
        pl181_write(p, MCI_FIFO + (i % 16) * 4, 0xab000000u | i, 2);
    CU_ASSERT_EQUAL(pl181_read(p, MCI_STATUS, 2) & tx_bits,
                    TXACTIVE | TXFULL | TXAVAIL);
    CU_ASSERT_EQUAL(mci_line[1], 0);
    CU_ASSERT_EQUAL(pl181_read(p, MCI_FIFOCNT, 2), 256 - 16);
    pl181_write(p, MCI_FIFO, 0xdeadbeefu, 2); /* lost */
    while (i < 256) {
        if (i == 128) /* halfway, the FIFO full: go on with a copy */
            p = mci_reload(&t, p, fd, bytes, &tm);
        uint64_t half_ns = vt_now_ns(t) + 8 * word_ns;
        vt_run(t, half_ns - 1);
        CU_ASSERT_EQUAL(mci_line[1], 0);
        CU_ASSERT_EQUAL(pl181_read(p, MCI_STATUS, 2) & TXHALFEMPTY, 0);
        vt_run(t, half_ns);
        CU_ASSERT_EQUAL(mci_line[1], 1);
        for (uint32_t k = 0; k < 8; k++, i++)
            pl181_write(p, MCI_FIFO + (i % 16) * 4, 0xab000000u | i, 2);
        CU_ASSERT_EQUAL(mci_line[1], 0);
    }
    pl181_write(p, MCI_MASK1, 0, 2); /* size 0 */
    uint64_t sent_ns = vt_now_ns(t) + 16 * word_ns;
    vt_run(t, sent_ns - 1);
    CU_ASSERT_EQUAL(pl181_read(p, MCI_STATUS, 2) & tx_bits,
                    TXACTIVE | TXHALFEMPTY | TXAVAIL);
    vt_run(t, sent_ns);
    CU_ASSERT_EQUAL(pl181_read(p, MCI_STATUS, 2) & (tx_bits | DATAEND), 0);
    vt_run(t, sent_ns + tm.write_latency_ns - 1);
    CU_ASSERT_EQUAL(pl181_read(p, MCI_STATUS, 2) & DATAEND, 0); /* card busy */
    vt_run(t, sent_ns + tm.write_latency_ns);
    CU_ASSERT_EQUAL(pl181_read(p, MCI_STATUS, 2) & DATAEND, DATAEND);
    pl181_write(p, MCI_DCTRL, 0, 2);
    mci_cmd(p, 12, 0, RESP);
    uint8_t back[4];
    CU_ASSERT_EQUAL(pread(fd, back, 4, 2 * 512 + 4 * 255), 4);
    CU_ASSERT_EQUAL(back[0], 255);
    CU_ASSERT_EQUAL(back[3], 0xab);

    /* Read them back: DPSM first, then the command, as mmci does. */
    uint64_t t0 = vt_now_ns(t);
    pl181_write(p, MCI_DLEN, 1024, 2);
    pl181_write(p, MCI_MASK1, 1u << 15, 2); /* RXHALFFULL */
    pl181_write(p, MCI_DCTRL, 9 << 4 | 3, 2);
    mci_cmd(p, 18, 2, RESP);
    CU_ASSERT_EQUAL(pl181_read(p, MCI_FIFOCNT, 2), 256);
    /* The bus is slower than the flash: it paces the blocks. */
    CU_ASSERT(tm.bus_bytes_per_s < tm.read_bytes_per_s);
    uint64_t block_ns = 512 * VT_NS_PER_S / tm.bus_bytes_per_s;
    vt_run(t, t0 + tm.read_latency_ns + block_ns - 1);
    CU_ASSERT_EQUAL(mci_line[1], 0);
    vt_run(t, t0 + tm.read_latency_ns + block_ns);
    CU_ASSERT_EQUAL(mci_line[1], 1);
    CU_ASSERT_EQUAL(pl181_read(p, MCI_FIFOCNT, 2), 128); /* one block in */
    for (uint32_t i = 0; i < 128; i++)
        CU_ASSERT_EQUAL(pl181_read(p, MCI_FIFO, 2), 0xab000000u | i);
    CU_ASSERT_EQUAL(mci_line[1], 0);
    vt_run(t, t0 + tm.read_latency_ns + 2 * block_ns);
    CU_ASSERT_EQUAL(pl181_read(p, MCI_STATUS, 2) & (1u << 8), 1u << 8);
    for (uint32_t i = 128; i < 256; i++)
        CU_ASSERT_EQUAL(pl181_read(p, MCI_FIFO, 2), 0xab000000u | i);
    CU_ASSERT_EQUAL(pl181_read(p, MCI_STATUS, 2) & (1u << 13),
                    0); /* RXACTIVE off */
    pl181_write(p, MCI_DCTRL, 0, 2);

    /* A read past the end of the card: R1 ADDRESS_ERROR, data timeout. */
    pl181_write(p, MCI_DLEN, 512, 2);
    pl181_write(p, MCI_DCTRL, 9 << 4 | 3, 2);
    mci_cmd(p, 17, 2048, RESP);
    CU_ASSERT_EQUAL(pl181_read(p, MCI_RESP0, 2) >> 30, 1);
    CU_ASSERT_EQUAL(pl181_read(p, MCI_STATUS, 2) & (1u << 3), 1u << 3);
    pl181_free(p);
    vt_free(t);
    close(fd);
}

/* Each PL181 access stalls the core for PL181_ACCESS_NS of bus time, at
 * any CPU frequency: 100 STATUS reads in a loop of 300 instructions (the
 * PL181 is there only with an SD card image). */
static void test_mmio_bus_cost(void)
{
    static const uint32_t code[] = {
        0xe3001034, /* movw r1, #0x34: MCI_STATUS */
        0xe340190c, /* movt r1, #0x090c */
        0xe3a02064, /* mov r2, #100 */
        0xe5910000, /* loop: ldr r0, [r1] */
        0xe2522001, /* subs r2, r2, #1 */
        0x1afffffc, /* bne loop */
        0xe320f003, /* wfi */
        0xeafffffe, /* b . */
    };
    const uint64_t hz[2] = { 1200000000, 350000000 };
    const char *img = tmp_path("bus.img");
    FILE *f = fopen(img, "wb");
    CU_ASSERT_EQUAL(ftruncate(fileno(f), SD_CAPACITY_UNIT_BYTES), 0);
    fclose(f);
    for (int k = 0; k < 2; k++) {
        machine_config cfg;
        struct pl_error err;
        machine_config_default(&cfg);
        cfg.ram_bytes = 16u << 20;
        cfg.console = (byte_sink){ discard, NULL };
        CU_ASSERT_EQUAL(
            loader_open_disk(img, &cfg.disk_fd, &cfg.disk_bytes, &err), 0);
        machine *m = board_machine(&cfg);
        memcpy(phys_ram_ptr(machine_phys(m), MACH_RAM + 0x1000, sizeof(code)),
               code, sizeof(code));
        vt_set_cpu_hz(machine_engine(m), hz[k]);
        arm_set_pc(arm_sys_cpu(machine_cpus(m), 0), MACH_RAM + 0x1000);
        run_until_halted(m);
        uint64_t insn_ns = 304 * VT_NS_PER_S / hz[k];
        uint64_t busy = vt_busy_ns(machine_engine(m), 0);
        CU_ASSERT(busy >= 100 * PL181_ACCESS_NS + insn_ns - 10);
        CU_ASSERT(busy <= 100 * PL181_ACCESS_NS + insn_ns + 10);
        machine_free(m);
        close(cfg.disk_fd);
    }
}

static uint64_t frame_ns;
static int frames_seen;
static uint8_t frame_px0;

static void on_frame(void *opaque, uint64_t ns, const uint8_t *px, uint32_t w,
                     uint32_t h)
{
    (void)opaque;
    CU_ASSERT_EQUAL(w, GPU_WIDTH_PX);
    CU_ASSERT_EQUAL(h, GPU_HEIGHT_PX);
    frame_ns = ns;
    frame_px0 = px[0];
    frames_seen++;
}

/* Sends one control command (cmd_bytes at 0x8000) with a response buffer
 * at 0xa000 and runs the engine until it completes. */
static uint32_t gpu_cmd(vt_engine *t, const void *cmd, uint32_t cmd_bytes,
                        uint32_t resp_bytes)
{
    static int slot;
    memcpy(vram + 0x8000, cmd, cmd_bytes);
    memset(vram + 0xa000, 0xee, resp_bytes);
    const uint32_t chain[2][3] = { { MACH_RAM + 0x8000, cmd_bytes, 0 },
                                   { MACH_RAM + 0xa000, resp_bytes, 1 } };
    post_chain(slot, chain, 2);
    slot = (slot + 2) % VQ_NUM;
    vt_run(t, vt_now_ns(t) + 1000000);
    return get32(MACH_RAM + 0xa000);
}

/* The 2D path the Linux driver takes, ending in a flush that is a frame. */
static void test_gpu(void)
{
    vt_engine *t = vt_new(NULL, 1200000000, 62500000, 100000);
    vmap = phys_map_new();
    vram = phys_register_ram(vmap, MACH_RAM, 16u << 20);
    frames_seen = 0;
    virtio_gpu *g = virtio_gpu_new(vmap, (irq_line){ vline, NULL, 0 }, t,
                                   (gpu_host){ NULL, on_frame });
    vdev = virtio_gpu_dev(g);
    queue_init(vdev, 0);
    uint32_t c[16] = { 0x0100 }; /* GET_DISPLAY_INFO */
    CU_ASSERT_EQUAL(gpu_cmd(t, c, 24, 24 + 16 * 24), 0x1101);
    CU_ASSERT_EQUAL(get32(MACH_RAM + 0xa000 + 24 + 8), 480);
    CU_ASSERT_EQUAL(get32(MACH_RAM + 0xa000 + 24 + 12), 800);
    uint32_t create[10] = { 0x0101, 0, 0, 0, 0, 0, 7, 2, 480, 800 };
    CU_ASSERT_EQUAL(gpu_cmd(t, create, 40, 24), 0x1100);
    CU_ASSERT_EQUAL(gpu_cmd(t, create, 40, 24), 0x1203); /* id in use */
    /* ATTACH_BACKING: one entry, 480 * 800 * 4 bytes at 0x100000. */
    uint32_t attach[12] = { 0x0106,        0, 0, 0, 0, 0, 7, 1, 0x40100000, 0,
                            480 * 800 * 4, 0 };
    CU_ASSERT_EQUAL(gpu_cmd(t, attach, 48, 24), 0x1100);
    memset(vram + 0x100000, 0x5a, 480 * 800 * 4);
    uint32_t xfer[14] = { 0x0105, 0, 0, 0, 0, 0, 0, 0, 480, 800, 0, 0, 7, 0 };
    CU_ASSERT_EQUAL(gpu_cmd(t, xfer, 56, 24), 0x1100);
    uint32_t scan[12] = { 0x0103, 0, 0, 0, 0, 0, 0, 0, 480, 800, 0, 7 };
    CU_ASSERT_EQUAL(gpu_cmd(t, scan, 48, 24), 0x1100);
    CU_ASSERT_EQUAL(frames_seen, 0);
    /* RESOURCE_FLUSH with a fence: the response echoes it. */
    uint32_t flush[12] = { 0x0104, 1, 42, 0, 0, 0, 0, 0, 480, 800, 7, 0 };
    uint64_t before = vt_now_ns(t);
    CU_ASSERT_EQUAL(gpu_cmd(t, flush, 48, 24), 0x1100);
    CU_ASSERT_EQUAL(get32(MACH_RAM + 0xa004), 1);
    CU_ASSERT_EQUAL(get32(MACH_RAM + 0xa008), 42);
    CU_ASSERT_EQUAL(frames_seen, 1);
    CU_ASSERT_EQUAL(frame_px0, 0x5a);
    CU_ASSERT_EQUAL(frame_ns, before + 5000); /* the command's latency */
    uint32_t flush_other[12] = { 0x0104, 0, 0, 0, 0, 0, 0, 0, 1, 1, 9, 0 };
    CU_ASSERT_EQUAL(gpu_cmd(t, flush_other, 48, 24), 0x1203);
    CU_ASSERT_EQUAL(frames_seen, 1);
    virtio_gpu_free(g);
    phys_map_free(vmap);
    vt_free(t);
}

static uint64_t delivered_tag, delivered_ns;

static void on_delivered(void *opaque, uint64_t tag, uint64_t ns)
{
    (void)opaque;
    delivered_tag = tag;
    delivered_ns = ns;
}

/* Config space answers and a frame held until the guest posts buffers. */
static void test_input(void)
{
    vt_engine *t = vt_new(NULL, 1200000000, 62500000, 100000);
    vmap = phys_map_new();
    vram = phys_register_ram(vmap, MACH_RAM, 1u << 20);
    static const uint16_t keys[] = { 158 }; /* KEY_BACK */
    virtio_input *v = virtio_input_new(vmap, (irq_line){ vline, NULL, 0 }, t,
                                       keys, 1,
                                       (input_host){ NULL, on_delivered });
    vdev = virtio_input_dev(v);
    virtio_mmio_write(vdev, 0x100, 0x01, 0); /* select ID_NAME */
    CU_ASSERT_EQUAL(virtio_mmio_read(vdev, 0x102, 0), 12);
    CU_ASSERT_EQUAL(memcmp(virtio_config(vdev) + 8, "panlab-touch", 12), 0);
    virtio_mmio_write(vdev, 0x100, 0x12, 0); /* ABS_INFO */
    virtio_mmio_write(vdev, 0x101, 1, 0);    /* ABS_Y */
    CU_ASSERT_EQUAL(virtio_mmio_read(vdev, 0x10c, 2), 799);
    virtio_mmio_write(vdev, 0x100, 0x11, 0); /* EV_BITS */
    virtio_mmio_write(vdev, 0x101, 1, 0);    /* EV_KEY */
    CU_ASSERT(virtio_config(vdev)[8 + 158 / 8] & (1u << (158 % 8)));
    CU_ASSERT(virtio_config(vdev)[8 + 0x14a / 8] & (1u << (0x14a % 8)));
    queue_init(vdev, 0);
    delivered_tag = 99;
    input_ev ev[2] = { { 1, 158, 1 }, { 0, 0, 0 } };
    CU_ASSERT_EQUAL(virtio_input_send(v, ev, 2, 4), 0);
    CU_ASSERT_EQUAL(delivered_tag, 99); /* no buffers yet */
    vt_run(t, 3000);
    const uint32_t b0[1][3] = { { MACH_RAM + 0x8000, 8, 1 } };
    const uint32_t b1[1][3] = { { MACH_RAM + 0x8008, 8, 1 } };
    post_chain(0, b0, 1);
    CU_ASSERT_EQUAL(delivered_tag, 99); /* half a frame */
    post_chain(1, b1, 1);
    CU_ASSERT_EQUAL(delivered_tag, 4);
    CU_ASSERT_EQUAL(delivered_ns, 3000);
    CU_ASSERT_EQUAL(get32(MACH_RAM + 0x8000), 1u | 158u << 16);
    CU_ASSERT_EQUAL(get32(MACH_RAM + 0x8004), 1);
    virtio_input_free(v);
    phys_map_free(vmap);
    vt_free(t);
}

int main(int argc, char **argv)
{
    static const board_case cases[] = {
        { "device constructors refuse bad counts", test_bad_counts },
        { "the memory map takes 100 ranges", test_phys_map_grows },
        { "GIC SPI", test_gic_spi },
        { "GIC SGI and PPI", test_gic_sgi_ppi },
        { "PL011", test_pl011 },
        { "virtqueue", test_virtqueue },
        { "console ports", test_console_ports },
        { "SD card on the PL181", test_sdcard },
        { "MMIO bus cost", test_mmio_bus_cost },
        { "GPU", test_gpu },
        { "touchscreen", test_input },
        { "a port's file fails mid-run", test_port_write_failure },
        { NULL, NULL },
    };
    return board_test_main(argc, argv, "board devices", cases);
}
