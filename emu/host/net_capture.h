/* pcap capture of the frames crossing the guest's NIC, with nanosecond
 * timestamps of virtual time (libpcap). Each frame is in the file when
 * net_capture_frame() returns, so the file can be read during the run.
 *
 * Ownership: net_capture_open() allocates, net_capture_close() flushes,
 * closes and frees. path must outlive the capture. */
#ifndef PANLAB_HOST_NET_CAPTURE_H
#define PANLAB_HOST_NET_CAPTURE_H

#include <stddef.h>
#include <stdint.h>
#include "panlab/error.h"

typedef struct net_capture net_capture;

/* Returns NULL with err set. */
net_capture *net_capture_open(const char *path, struct pl_error *err);
/* c may be NULL (no capture). */
void net_capture_frame(net_capture *c, uint64_t ns, const uint8_t *frame,
                       size_t len_bytes);
/* c may be NULL. Returns -1 with err set if a frame could not be written
 * (a full disk) at any time since the capture opened, else 0. */
int net_capture_close(net_capture *c, struct pl_error *err);

#endif
