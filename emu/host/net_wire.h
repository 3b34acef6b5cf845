/* One direction of the phone's network link, on the virtual clock: frames
 * are serialised at the link's bandwidth, then take its one-way latency,
 * and are delivered in order. A full queue drops the frame, as a real
 * link's buffer would.
 *
 * Ownership: the struct is the caller's (it is large: it holds the frames
 * in flight); the engine must outlive it. */
#ifndef PANLAB_HOST_NET_WIRE_H
#define PANLAB_HOST_NET_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include "../time.h"
#include "../dev/virtio_net.h"

typedef struct net_timing {
    uint64_t one_way_ns;        /* half the round-trip time */
    uint64_t down_bytes_per_s;  /* to the phone */
    uint64_t up_bytes_per_s;    /* from the phone */
} net_timing;

/* The phone's link profiles (2012-2013; the sources are in net_wire.c). */
enum net_profile { NET_PROFILE_WIFI, NET_PROFILE_3G, NET_PROFILE_LEGACY };

/* Fills t with a profile's timing. */
void net_timing_profile(net_timing *t, enum net_profile p);
/* "wifi", "3g" or "legacy": returns the profile, or -1 for another name. */
int net_profile_parse(const char *name);

#define NET_WIRE_FRAMES 256

typedef struct net_wire {
    vt_engine *t;
    const net_timing *tm;
    int down;                   /* 1: towards the phone (down_bytes_per_s) */
    void (*deliver)(void *opaque, const uint8_t *frame, size_t len_bytes);
    void *opaque;
    uint8_t data[NET_WIRE_FRAMES][NET_FRAME_MAX];
    uint16_t len[NET_WIRE_FRAMES];
    uint64_t due[NET_WIRE_FRAMES];
    int head, count;
    uint64_t free_ns;           /* the wire is idle from here */
    vt_event ev;
} net_wire;

/* down: 1 for the direction towards the phone, 0 for the one from it. */
void net_wire_init(net_wire *w, vt_engine *t, const net_timing *tm, int down,
                   void (*deliver)(void *opaque, const uint8_t *frame,
                                   size_t len_bytes),
                   void *opaque);
void net_wire_send(net_wire *w, const uint8_t *frame, size_t len_bytes);
void net_wire_cancel(net_wire *w);
/* Snapshots: the frames in flight and the wire's clock. */
void net_wire_save(const net_wire *w, snap_w *sw);
int net_wire_load(net_wire *w, snap_r *r);

#endif
