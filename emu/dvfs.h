/* The phone's CPU frequency domain: one clock shared by both cores, as on
 * the OMAP4460 (its MPU DPLL clocks both Cortex-A9s), switched among
 * operating points (OPPs). The guest reaches it through SCMI's performance
 * protocol (dev/scmi.c); each core's cycle time follows it (vt_set_cpu_hz),
 * the generic timer's counter does not.
 *
 * A switch takes effect at the requesting instruction, for both cores;
 * the requesting core then waits the transition latency in firmware, as
 * Linux's OMAP cpufreq driver waited in clk_set_rate for the DPLL to
 * relock (the other core runs on; its brief bypass clock is not modelled).
 *
 * Residency: virtual time spent at each OPP, and each core's busy
 * (running, not WFI or off) time at each OPP, for the energy model.
 *
 * Ownership: dvfs_new() allocates, dvfs_free() frees; the engine must
 * outlive the domain. Frequencies are kHz (SCMI's unit), times ns. */
#ifndef PANLAB_DVFS_H
#define PANLAB_DVFS_H

#include <stdint.h>
#include "time.h"
#include "snapio.h"
#include "panlab/error.h"

#define DVFS_MAX_OPPS 8
#define DVFS_MAX_CORES 8

typedef struct dvfs_opp {
    uint32_t khz;
    uint32_t power_mw;          /* CPU power at 100% load */
} dvfs_opp;

/* The OMAP4460's OPPs (Linux arch/arm/boot/dts/omap4460.dtsi: 350, 700,
 * 920 MHz; 1.2 GHz is the Galaxy Nexus's top OPP) with Panappticon
 * Table 5's CPU power, and the transition latency of omap4460.dtsi's
 * clock-latency (300 us, "from legacy driver"). */
extern const dvfs_opp dvfs_omap4460_opps[];
extern const int dvfs_omap4460_nopps;
#define DVFS_OMAP4460_LATENCY_NS 300000ull

typedef struct dvfs dvfs;

/* Starts at the OPP of the engine's current clock, or at no OPP (index
 * -1) if the clock is none of them (a test clock); a switch brings it
 * onto the table. Returns NULL with err set when nopps is not
 * 1..DVFS_MAX_OPPS. */
dvfs *dvfs_new(vt_engine *vt, const dvfs_opp *opps, int nopps,
               uint64_t latency_ns, struct pl_error *err);
void dvfs_free(dvfs *d);

int dvfs_nopps(const dvfs *d);
const dvfs_opp *dvfs_opp_at(const dvfs *d, int i);
/* The OPP at khz, or -1. */
int dvfs_find(const dvfs *d, uint32_t khz);
/* The current OPP, or -1 before the first switch from an off-table clock. */
int dvfs_current(const dvfs *d);
uint32_t dvfs_current_khz(const dvfs *d);
uint64_t dvfs_latency_ns(const dvfs *d);

/* Switches to OPP i (0 <= i < nopps) from the current instruction; the
 * calling core (inside a run) waits the transition latency. Switching to
 * the current OPP does nothing. */
void dvfs_set(dvfs *d, int i);
/* Switches made (not counting requests for the current OPP). */
uint64_t dvfs_switches(const dvfs *d);

/* Residency up to now at OPP i: virtual time, and core's busy time. */
uint64_t dvfs_residency_ns(dvfs *d, int i);
uint64_t dvfs_busy_ns(dvfs *d, int i, int core);

/* Snapshots: the current OPP, switch count and residency. */
void dvfs_save(const dvfs *d, snap_w *w);
int dvfs_load(dvfs *d, snap_r *r);

#endif
