/* The phone's device tree, built with libfdt's sequential writer. Node
 * layout follows what QEMU 7.2 generates for `virt` so one kernel boots on
 * both (Documentation/devicetree/bindings in Linux for each node). */
#include <stdio.h>
#include <libfdt.h>
#include "fdtgen.h"
#include "panlab/error.h"

enum { PHANDLE_GIC = 1, PHANDLE_CLK = 2, PHANDLE_SCMI_PERF = 3,
       PHANDLE_SCMI_SHMEM = 4, PHANDLE_MCLK = 5, PHANDLE_3V3 = 6 };
/* GIC binding, arm,gic.yaml: first cell 0 = SPI, 1 = PPI; flags 4 =
 * level high, with PPIs' cpu mask in bits 8..15. */
enum { GIC_SPI = 0, GIC_PPI = 1, IRQ_LEVEL_HIGH = 4 };

static int reg64(void *f, const char *name, uint64_t a, uint64_t s)
{
    fdt64_t v[2] = { cpu_to_fdt64(a), cpu_to_fdt64(s) };
    return fdt_property(f, name, v, sizeof(v));
}

static int irq_spi(void *f, uint32_t spi)
{
    fdt32_t v[3] = { cpu_to_fdt32(GIC_SPI), cpu_to_fdt32(spi),
                     cpu_to_fdt32(IRQ_LEVEL_HIGH) };
    return fdt_property(f, "interrupts", v, sizeof(v));
}

static int begin_at(void *f, const char *name, uint32_t addr)
{
    char node[64];
    snprintf(node, sizeof(node), "%s@%x", name, addr);
    return fdt_begin_node(f, node);
}

/* A fixed-clock node (clock/fixed-clock.yaml) that others reach by phandle. */
static int fixed_clock(void *f, const char *node, uint32_t hz, const char *output,
                       uint32_t phandle)
{
    int rc;
    if ((rc = fdt_begin_node(f, node)) < 0 ||
        (rc = fdt_property_string(f, "compatible", "fixed-clock")) < 0 ||
        (rc = fdt_property_u32(f, "#clock-cells", 0)) < 0 ||
        (rc = fdt_property_u32(f, "clock-frequency", hz)) < 0 ||
        (rc = fdt_property_string(f, "clock-output-names", output)) < 0 ||
        (rc = fdt_property_u32(f, "phandle", phandle)) < 0)
        return rc;
    return fdt_end_node(f);
}

/* Each step returns a libfdt error code; E() stops at the first. */
#define E(x) do { if ((rc = (x)) < 0) goto fail; } while (0)

int fdt_generate(void *f, size_t buf_bytes, const fdt_desc *d, struct pl_error *err)
{
    int rc;
    E(fdt_create(f, (int)buf_bytes));
    E(fdt_finish_reservemap(f));
    E(fdt_begin_node(f, ""));
    E(fdt_property_string(f, "compatible", "linux,dummy-virt"));
    E(fdt_property_string(f, "model", "panlab phone"));
    E(fdt_property_u32(f, "#address-cells", 2));
    E(fdt_property_u32(f, "#size-cells", 2));
    E(fdt_property_u32(f, "interrupt-parent", PHANDLE_GIC));

    E(fdt_begin_node(f, "chosen"));
    E(fdt_property_string(f, "bootargs", d->bootargs ? d->bootargs : ""));
    {
        char path[32];
        snprintf(path, sizeof(path), "/pl011@%x", d->uart);
        E(fdt_property_string(f, "stdout-path", path));
    }
    if (d->initrd_end > d->initrd_start) {
        E(fdt_property_u32(f, "linux,initrd-start", d->initrd_start));
        E(fdt_property_u32(f, "linux,initrd-end", d->initrd_end));
    }
    E(fdt_end_node(f));

    E(begin_at(f, "memory", d->ram_addr));
    E(fdt_property_string(f, "device_type", "memory"));
    E(reg64(f, "reg", d->ram_addr, d->ram_bytes));
    E(fdt_end_node(f));

    E(fdt_begin_node(f, "cpus"));
    E(fdt_property_u32(f, "#address-cells", 1));
    E(fdt_property_u32(f, "#size-cells", 0));
    for (int i = 0; i < d->ncores; i++) {
        E(begin_at(f, "cpu", (uint32_t)i));
        E(fdt_property_string(f, "device_type", "cpu"));
        E(fdt_property_string(f, "compatible", "arm,cortex-a15"));
        E(fdt_property_u32(f, "reg", (uint32_t)i));
        E(fdt_property_string(f, "enable-method", "psci"));
        if (d->scmi_shmem) {
            fdt32_t clk[2] = { cpu_to_fdt32(PHANDLE_SCMI_PERF), 0 };
            E(fdt_property(f, "clocks", clk, sizeof(clk)));
        }
        E(fdt_end_node(f));
    }
    E(fdt_end_node(f));

    /* Linux populates /firmware's children: the SCMI agent, whose
     * performance protocol node (reg 0x13) provides the cores' clocks. */
    if (d->scmi_shmem) {
        E(fdt_begin_node(f, "firmware"));
        E(fdt_begin_node(f, "scmi"));
        E(fdt_property_string(f, "compatible", "arm,scmi-smc"));
        E(fdt_property_u32(f, "arm,smc-id", d->scmi_smc_id));
        E(fdt_property_u32(f, "shmem", PHANDLE_SCMI_SHMEM));
        E(fdt_property_u32(f, "#address-cells", 1));
        E(fdt_property_u32(f, "#size-cells", 0));
        E(begin_at(f, "protocol", 0x13));
        E(fdt_property_u32(f, "reg", 0x13));
        E(fdt_property_u32(f, "#clock-cells", 1));
        E(fdt_property_u32(f, "phandle", PHANDLE_SCMI_PERF));
        E(fdt_end_node(f));
        E(fdt_end_node(f));
        E(fdt_end_node(f));

        E(begin_at(f, "scmi-shmem", d->scmi_shmem));
        E(fdt_property_string(f, "compatible", "arm,scmi-shmem"));
        E(reg64(f, "reg", d->scmi_shmem, d->scmi_shmem_bytes));
        E(fdt_property_u32(f, "phandle", PHANDLE_SCMI_SHMEM));
        E(fdt_end_node(f));
    }

    /* arm,psci-1.0 implies the 0.2 function IDs; the legacy ones are for
     * older kernels (arm/psci.yaml). */
    E(fdt_begin_node(f, "psci"));
    {
        static const char compat[] = "arm,psci-1.0\0arm,psci-0.2\0arm,psci";
        E(fdt_property(f, "compatible", compat, sizeof(compat)));
    }
    E(fdt_property_string(f, "method", d->psci_method));
    E(fdt_property_u32(f, "cpu_suspend", 0x84000001));
    E(fdt_property_u32(f, "cpu_off", 0x84000002));
    E(fdt_property_u32(f, "cpu_on", 0x84000003));
    E(fdt_property_u32(f, "migrate", 0x84000005));
    E(fdt_end_node(f));

    E(begin_at(f, "intc", d->gic_dist));
    E(fdt_property_string(f, "compatible", "arm,cortex-a15-gic"));
    E(fdt_property(f, "interrupt-controller", NULL, 0));
    E(fdt_property_u32(f, "#interrupt-cells", 3));
    {
        fdt64_t reg[4] = { cpu_to_fdt64(d->gic_dist), cpu_to_fdt64(0x10000),
                           cpu_to_fdt64(d->gic_cpu), cpu_to_fdt64(0x10000) };
        E(fdt_property(f, "reg", reg, sizeof(reg)));
    }
    E(fdt_property_u32(f, "phandle", PHANDLE_GIC));
    E(fdt_end_node(f));

    /* Secure, non-secure, virtual and hypervisor timer PPIs 13, 14, 11,
     * 10 (arm,arch_timer.yaml). */
    E(fdt_begin_node(f, "timer"));
    E(fdt_property_string(f, "compatible", "arm,armv7-timer"));
    {
        static const uint32_t ppi[4] = { 13, 14, 11, 10 };
        uint32_t flags = ((1u << d->ncores) - 1) << 8 | IRQ_LEVEL_HIGH;
        fdt32_t v[12];
        for (int i = 0; i < 4; i++) {
            v[3 * i] = cpu_to_fdt32(GIC_PPI);
            v[3 * i + 1] = cpu_to_fdt32(ppi[i]);
            v[3 * i + 2] = cpu_to_fdt32(flags);
        }
        E(fdt_property(f, "interrupts", v, sizeof(v)));
    }
    E(fdt_property(f, "always-on", NULL, 0));
    E(fdt_end_node(f));

    /* The cores' PMU (emu/cpu/pmu.c): a Cortex-A15's, which the stock
     * armv7 driver drives with mode filtering (perf's :u and :k); each
     * core's overflow request on PPI 7 (arm,pmu.yaml). */
    E(fdt_begin_node(f, "pmu"));
    E(fdt_property_string(f, "compatible", "arm,cortex-a15-pmu"));
    {
        fdt32_t v[3] = { cpu_to_fdt32(GIC_PPI), cpu_to_fdt32(7),
                         cpu_to_fdt32(((1u << d->ncores) - 1) << 8 |
                                      IRQ_LEVEL_HIGH) };
        E(fdt_property(f, "interrupts", v, sizeof(v)));
    }
    E(fdt_end_node(f));

    E(fixed_clock(f, "apb-pclk", 24000000, "clk24mhz", PHANDLE_CLK));

    E(begin_at(f, "pl011", d->uart));
    {
        static const char compat[] = "arm,pl011\0arm,primecell";
        static const char names[] = "uartclk\0apb_pclk";
        fdt32_t clk[2] = { cpu_to_fdt32(PHANDLE_CLK), cpu_to_fdt32(PHANDLE_CLK) };
        E(fdt_property(f, "compatible", compat, sizeof(compat)));
        E(reg64(f, "reg", d->uart, 0x1000));
        E(irq_spi(f, d->uart_spi));
        E(fdt_property(f, "clocks", clk, sizeof(clk)));
        E(fdt_property(f, "clock-names", names, sizeof(names)));
    }
    E(fdt_end_node(f));

    if (d->mmci) {
        /* MCLK of the PL181: 50 MHz, so the 25 MHz card clock is MCLK/2
         * and mmci's register-write delay is 120 ns rather than 30 us. */
        E(fixed_clock(f, "mclk", 50000000, "mclk50mhz", PHANDLE_MCLK));
        /* The card's supply: mmci takes its voltage range (OCR) from it. */
        E(fdt_begin_node(f, "regulator-3v3"));
        E(fdt_property_string(f, "compatible", "regulator-fixed"));
        E(fdt_property_string(f, "regulator-name", "3V3"));
        E(fdt_property_u32(f, "regulator-min-microvolt", 3300000));
        E(fdt_property_u32(f, "regulator-max-microvolt", 3300000));
        E(fdt_property(f, "regulator-always-on", NULL, 0));
        E(fdt_property_u32(f, "phandle", PHANDLE_3V3));
        E(fdt_end_node(f));
        /* arm,pl18x.yaml */
        E(begin_at(f, "mmci", d->mmci));
        static const char compat[] = "arm,pl181\0arm,primecell";
        static const char names[] = "mclk\0apb_pclk";
        fdt32_t clk[2] = { cpu_to_fdt32(PHANDLE_MCLK), cpu_to_fdt32(PHANDLE_CLK) };
        fdt32_t irq[6];
        for (int i = 0; i < 2; i++) {
            irq[3 * i] = cpu_to_fdt32(GIC_SPI);
            irq[3 * i + 1] = cpu_to_fdt32(d->mmci_spi[i]);
            irq[3 * i + 2] = cpu_to_fdt32(IRQ_LEVEL_HIGH);
        }
        E(fdt_property(f, "compatible", compat, sizeof(compat)));
        E(reg64(f, "reg", d->mmci, 0x1000));
        E(fdt_property(f, "interrupts", irq, sizeof(irq)));
        E(fdt_property(f, "clocks", clk, sizeof(clk)));
        E(fdt_property(f, "clock-names", names, sizeof(names)));
        E(fdt_property_u32(f, "max-frequency", 25000000));
        E(fdt_property_u32(f, "vmmc-supply", PHANDLE_3V3));
        E(fdt_property(f, "non-removable", NULL, 0));
        E(fdt_end_node(f));
    }

    /* Slots from the top down, in the order QEMU lists them. */
    for (int i = d->nvirtio - 1; i >= 0; i--) {
        uint32_t addr = d->virtio_base + 0x200u * (uint32_t)i;
        E(begin_at(f, "virtio_mmio", addr));
        E(fdt_property_string(f, "compatible", "virtio,mmio"));
        E(reg64(f, "reg", addr, 0x200));
        E(irq_spi(f, d->virtio_spi_base + (uint32_t)i));
        E(fdt_property(f, "dma-coherent", NULL, 0));
        E(fdt_end_node(f));
    }

    E(fdt_end_node(f));
    E(fdt_finish(f));
    return (int)fdt_totalsize(f);
fail:
    pl_error_set(err, "device tree: %s", fdt_strerror(rc));
    return -1;
}
