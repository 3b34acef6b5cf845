/* The snapshot point. With panlab.wait_config=1 the guest's /init writes
 * a line on the panlab.config port once it has booted, then reads its
 * experiment configuration (panlab.* arguments, as on the kernel command
 * line) from that port. Between two vt_run calls after that line the
 * guest is idle, waiting: the run saves a snapshot there if asked, and
 * sends the configuration. A matrix of experiments boots once and
 * restores from there, each restored guest getting its configuration at
 * once, at the instant the snapshot was taken.
 *
 * Ownership: the struct is the caller's; the strings stay the caller's. */
#ifndef PANLAB_EMU_HANDSHAKE_H
#define PANLAB_EMU_HANDSHAKE_H

#include <stddef.h>
#include <stdint.h>
#include "machine.h"
#include "host/slirp_net.h"
#include "panlab/error.h"

typedef struct handshake {
    const char *config;         /* one line for the guest, or NULL */
    const char *save_path;      /* snapshot to save when asked, or NULL */
    int restored;               /* the run began from a snapshot */
    int refused;                /* the snapshot was not this build's */
    int asked;                  /* 1: the guest asked, 2: answered */
} handshake;

/* The config port's tap (opaque = the handshake): a line ends a request. */
void handshake_port(void *opaque, const uint8_t *buf, size_t len_bytes);

/* Restores the snapshot at path and sends the configuration. Returns 0,
 * or -1 with err set (and refused set when the snapshot itself was). */
int handshake_restore(handshake *h, const char *path, machine *m,
                      slirp_net *net, struct pl_error *err);

enum handshake_step { HANDSHAKE_GO_ON, HANDSHAKE_SAVED_ONLY, HANDSHAKE_FAILED };
/* Between vt_run calls, at engine time now_ns: answers a request that came
 * in. HANDSHAKE_SAVED_ONLY means the snapshot was the run's only purpose
 * (no configuration to send): the run ends there. */
enum handshake_step handshake_poll(handshake *h, machine *m, slirp_net *net,
                                   uint64_t now_ns, struct pl_error *err);

#endif
