/* The run's view of the guest: its console goes to a file, and its lines
 * are watched for the start of /init and for a kernel panic; the last line
 * is kept for the hang message. Any output (console, ports, frames) counts
 * as progress, which the hang check reads.
 *
 * Ownership: the struct is the caller's; the FILE stays the caller's. */
#ifndef PANLAB_EMU_CONSOLE_WATCH_H
#define PANLAB_EMU_CONSOLE_WATCH_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "time.h"

typedef struct console_watch {
    FILE *f;
    vt_engine *vt;              /* set once the machine exists */
    uint64_t last_output_ns;    /* the guest's last sign of progress */
    char line[256];             /* the line being printed */
    size_t len;
    char last[256];             /* the last whole line that was not empty */
    uint64_t last_ns;
    char panic[256];            /* the first panic line, "" if none */
    uint64_t panic_ns;
    uint64_t init_ns;           /* when /init started (the kernel's line, or under
                                   `quiet` the first of /init's own), 0 if not yet */
    int spoke;                  /* the guest printed anything */
    int initrd_failed;          /* the kernel said it could not unpack the initramfs */
    double init_host_s;         /* host_now_s() then */
} console_watch;

/* The PL011's sink (opaque = the console_watch). */
void console_watch_put(void *opaque, const uint8_t *buf, size_t len_bytes);
/* Output elsewhere at engine time ns. */
void console_watch_progress(console_watch *c, uint64_t ns);

#endif
