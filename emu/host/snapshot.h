/* Snapshot files of the whole phone: the machine (cores, engine, devices,
 * RAM) and the host's network. Format: snapio.h's header with
 * SNAPSHOT_VERSION, then the sections MACH, CPUS, TIME, DEVS, RAM (see
 * machine.c), SLRP when there is a network, and an empty END. A snapshot
 * is taken between vt_run calls and restored into a machine built with the
 * same configuration (cores, RAM, console ports, SD card, NIC) that has
 * not run. Bad files get one line "FILE@OFFSET: what, expected what".
 *
 * Nothing is allocated for the caller; net may be NULL. */
#ifndef PANLAB_HOST_SNAPSHOT_H
#define PANLAB_HOST_SNAPSHOT_H

#include <stddef.h>
#include "../machine.h"
#include "slirp_net.h"
#include "panlab/error.h"

/* Bump whenever any section's layout changes. */
#define SNAPSHOT_VERSION 8u

/* Return 0, or -1 with err set. */
int snapshot_save(const char *path, const machine *m, const slirp_net *net,
                  struct pl_error *err);
int snapshot_load(const char *path, machine *m, slirp_net *net, struct pl_error *err);

#endif
