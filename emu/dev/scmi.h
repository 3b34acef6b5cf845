/* SCMI platform firmware (Arm DEN0056, System Control and Management
 * Interface) for the phone's DVFS, on the SMC transport that Linux's
 * scmi-cpufreq reaches with compatible "arm,scmi-smc": the agent writes a
 * message into a shared-memory channel ("arm,scmi-shmem", the layout of
 * Linux drivers/firmware/arm_scmi/shmem.c) and makes an SMC/HVC with the
 * channel's function ID; the response is in the channel when the call
 * returns.
 *
 * Protocols: base (0x10) and performance (0x13), version 2.0, with one
 * performance domain, the dvfs.h frequency domain; a level is a frequency
 * in kHz. Bad messages get SCMI status codes (NOT_SUPPORTED, NOT_FOUND,
 * INVALID_PARAMETERS, OUT_OF_RANGE, PROTOCOL_ERROR), and a channel with
 * no readable message gets its error bit; nothing a guest writes stops
 * the emulator.
 *
 * Ownership: scmi_new() allocates the platform and registers the channel
 * as a RAM block of the map (freed with the map); scmi_free() frees the
 * rest. The DVFS domain must outlive it. */
#ifndef PANLAB_DEV_SCMI_H
#define PANLAB_DEV_SCMI_H

#include <stdint.h>
#include "../cpu/arm.h"
#include "../dvfs.h"
#include "../physmem.h"
#include "../snapio.h"

/* A fast SMC32 call in the SiP service range (SMCCC §6.2). */
#define SCMI_SMC_ID 0x82000010u
#define SCMI_SHMEM_BYTES 0x1000u

/* SCMI status codes (DEN0056 §4.1.4). */
enum {
    SCMI_SUCCESS = 0, SCMI_NOT_SUPPORTED = -1, SCMI_INVALID_PARAMETERS = -2,
    SCMI_DENIED = -3, SCMI_NOT_FOUND = -4, SCMI_OUT_OF_RANGE = -5,
    SCMI_BUSY = -6, SCMI_COMMS_ERROR = -7, SCMI_GENERIC_ERROR = -8,
    SCMI_HARDWARE_ERROR = -9, SCMI_PROTOCOL_ERROR = -10,
};

/* Channel layout (shmem.c): status word bits and byte offsets. */
enum {
    SCMI_CHAN_FREE = 1u << 0, SCMI_CHAN_ERROR = 1u << 1,
    SCMI_SHM_STATUS = 4, SCMI_SHM_FLAGS = 16, SCMI_SHM_LENGTH = 20,
    SCMI_SHM_HEADER = 24, SCMI_SHM_PAYLOAD = 28,
};

typedef struct scmi scmi;

scmi *scmi_new(phys_map *map, uint32_t shmem_addr, dvfs *d);
void scmi_free(scmi *s);
/* The SMC/HVC with SCMI_SMC_ID: serves the channel's message and sets r0
 * to 0 (SMCCC success: the call itself never fails). Returns 1. */
int scmi_call(scmi *s, arm_cpu *cpu);
/* Serves the message in the channel (what scmi_call does; for tests). */
void scmi_process(scmi *s);
/* The channel's bytes, for tests. */
uint8_t *scmi_shmem(scmi *s);

/* Snapshots: the channel and the performance limits. */
void scmi_save(const scmi *s, snap_w *w);
int scmi_load(scmi *s, snap_r *r);

#endif
