/* The phone's network, all on the virtual clock: a wire with modelled
 * one-way latency and bandwidth in each direction between the guest's
 * virtio-net and libslirp's user-mode TCP/IP stack (guest 10.0.2.15,
 * gateway 10.0.2.2), with a content server inside the emulator at
 * 10.0.2.100:80 (HTTP/1.0 GET of files under a host directory, or of
 * generated content with a latency and pacing: include/panlab/content_request.h), and a
 * UDP responder for the same requests at 10.0.2.100:7070. Slirp
 * runs restricted: the guest reaches nothing outside, and slirp's clock
 * and timers are the engine's, so network runs are deterministic. Every
 * frame is written to a pcap file (nanosecond timestamps of virtual
 * time) at the moment it crosses the guest's NIC.
 *
 * The jobs live apart: net_wire.c (the link model), net_capture.c (pcap),
 * content_http.c and content_udp.c (the server over TCP and UDP, parsing
 * requests with include/panlab/content_request.h); this file is the libslirp glue
 * that joins them.
 *
 * Ownership: slirp_net_new() allocates, slirp_net_free() frees and closes
 * the capture. The engine must outlive it. */
#ifndef PANLAB_HOST_SLIRP_NET_H
#define PANLAB_HOST_SLIRP_NET_H

#include <stddef.h>
#include <stdint.h>
#include "../time.h"
#include "../dev/virtio_net.h"
#include "net_wire.h"
#include "panlab/error.h"

typedef struct slirp_net slirp_net;

/* pcap_path and content_dir may be NULL. Returns NULL with err set. */
slirp_net *slirp_net_new(vt_engine *t, const net_timing *timing,
                         const char *pcap_path, const char *content_dir,
                         struct pl_error *err);
/* s may be NULL. Returns -1 with err set if the capture could not be
 * written, else 0; s is freed in either case. */
int slirp_net_free(slirp_net *s, struct pl_error *err);
void slirp_net_attach(slirp_net *s, virtio_net *nic);
/* net_host.send for the NIC: a frame from the guest. */
void slirp_net_from_guest(void *opaque, const uint8_t *frame, size_t len_bytes);
/* Snapshots: frames on the wire, the server's request and responses (TCP
 * and UDP), libslirp's timers and its own state (slirp_state_save). Load
 * returns 0, or -1 with the error in r. */
void slirp_net_save(const slirp_net *s, snap_w *w);
int slirp_net_load(slirp_net *s, snap_r *r);

#endif
