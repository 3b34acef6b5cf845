/* A GDB remote-protocol stub (GDB manual, "Remote Protocol") on a TCP
 * port, for gdb-multiarch: registers, memory, software breakpoints,
 * single-step and continue, one thread per core (thread id = core + 1).
 *
 * Memory is addressed as the kernel sees it: physical RAM addresses as
 * they are, and the kernel's linear map (page_offset and up) translated
 * to RAM; other virtual addresses are not reachable (the CPU API has no
 * debug translation yet).
 *
 * Ownership: gdbstub_new() allocates and waits for gdb to connect;
 * gdbstub_free() closes the connection and frees. The machine must
 * outlive the stub. */
#ifndef PANLAB_HOST_GDBSTUB_H
#define PANLAB_HOST_GDBSTUB_H

#include <stddef.h>
#include <stdint.h>
#include "../machine.h"
#include "panlab/error.h"

typedef struct gdbstub gdbstub;

/* Returns NULL with err set on failure. */
gdbstub *gdbstub_new(machine *m, int port, uint32_t page_offset, struct pl_error *err);
void gdbstub_free(gdbstub *g);
/* Call before each run of the engine: reports a stop and serves gdb
 * while the machine is stopped. Returns 0 to run on, -1 if gdb asked to
 * kill the machine or went away. */
int gdbstub_poll(gdbstub *g);

#endif
