/* One run of the phone, as the options describe it: load the images (or a
 * snapshot), build the machine with its host side (console, ports, frames,
 * network, replay, ground truth), run it until the guest powers off or the
 * run must stop (panic, reset, no progress, the virtual-time limit, a
 * closed window, gdb), print where time went, and tear everything down.
 *
 * Ownership: the options and their strings stay the caller's. */
#ifndef PANLAB_EMU_RUN_H
#define PANLAB_EMU_RUN_H

#include <stdint.h>
#include "ports.h"

typedef struct phone_options {
    const char *kernel, *initrd, *append, *dtb_in, *dtb_out;
    const char *console_path;   /* NULL: stdout */
    const char *replay_path, *gt_path, *system_map, *shot_path;
    const char *cpu_path;       /* --cpu-time: busy time at each input (replay.h) */
    const char *disk_path, *pcap_path, *content_dir;
    const char *snap_save, *snap_load, *config;
    int want_net, want_sdl;
    int net_profile;            /* enum net_profile (host/net_wire.h), default wifi */
    int net_profile_set;        /* --net-profile was given */
    int engine;                 /* ARM_ENGINE_* (cpu/arm.h) */
    int quantum_policy;         /* enum vt_quantum_policy (time.h), default causal */
    uint64_t max_s, hang_s, cpu_mhz, gdb_port, quantum_us;
    uint64_t hang_host_s;       /* host CPU seconds without progress that end the run */
    port_list ports;
} phone_options;

/* Returns the process's exit status: 0 when the guest powered off with
 * every script action done (or the snapshot was saved), 1 otherwise, with
 * one line on stderr saying why. */
int phone_run(const phone_options *o);

#endif
