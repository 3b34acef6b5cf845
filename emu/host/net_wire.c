/* One direction of the link; see net_wire.h. */
#include <string.h>
#include "net_wire.h"

/*
 * wifi: a phone on home Wi-Fi behind a 2012 cable line, the bottleneck:
 * WebPageTest's "Cable (5/1 Mbps 28ms RTT)" connectivity profile
 * (WPO-Foundation/webpagetest, www/settings/connectivity.ini.sample).
 * 3g: HSPA+ as PCWorld/Novarum measured it on smartphones across 13 US
 * cities in 2012, AT&T's 3G: 2.62 Mbit/s down, 0.85 Mbit/s up ("3G and 4G
 * Wireless Speed Showdown", PCWorld, April 2012), with the 169 ms average
 * latency of AT&T's HSPA+ in their 2011 13-city tests ("4G Wireless Speed
 * Tests", PCWorld, 2011).
 * legacy: the link panlab modelled before these, 50 ms RTT and 8 Mbit/s each
 * way, with no source; links2 asks for it (workloads/oss/links2/net-profile)
 * because on the other two its kernel-only inference misses inputs.
 */
void net_timing_profile(net_timing *t, enum net_profile p)
{
    if (p == NET_PROFILE_3G)
        *t = (net_timing){ .one_way_ns = 169000000 / 2, .down_bytes_per_s = 2620000 / 8,
                           .up_bytes_per_s = 850000 / 8 };
    else if (p == NET_PROFILE_LEGACY)
        *t = (net_timing){ .one_way_ns = 25000000, .down_bytes_per_s = 1000000,
                           .up_bytes_per_s = 1000000 };
    else
        *t = (net_timing){ .one_way_ns = 28000000 / 2, .down_bytes_per_s = 5000000 / 8,
                           .up_bytes_per_s = 1000000 / 8 };
}

int net_profile_parse(const char *name)
{
    return !strcmp(name, "wifi")     ? NET_PROFILE_WIFI
           : !strcmp(name, "3g")     ? NET_PROFILE_3G
           : !strcmp(name, "legacy") ? NET_PROFILE_LEGACY
                                     : -1;
}

static void wire_fire(void *opaque)
{
    net_wire *w = opaque;
    while (w->count > 0 && w->due[w->head] <= vt_now_ns(w->t)) {
        w->deliver(w->opaque, w->data[w->head], w->len[w->head]);
        w->head = (w->head + 1) % NET_WIRE_FRAMES;
        w->count--;
    }
    if (w->count > 0)
        vt_schedule(w->t, &w->ev, w->due[w->head]);
}

void net_wire_init(net_wire *w, vt_engine *t, const net_timing *tm, int down,
                   void (*deliver)(void *opaque, const uint8_t *frame,
                                   size_t len_bytes),
                   void *opaque)
{
    w->t = t;
    w->tm = tm;
    w->down = down;
    w->deliver = deliver;
    w->opaque = opaque;
    vt_event_init(&w->ev, wire_fire, w);
}

void net_wire_send(net_wire *w, const uint8_t *f, size_t len)
{
    if (w->count == NET_WIRE_FRAMES || len > NET_FRAME_MAX)
        return;                 /* the queue overflowed: the frame is lost */
    uint64_t now = vt_now_ns(w->t);
    if (w->free_ns < now)
        w->free_ns = now;
    w->free_ns += len * VT_NS_PER_S /
                  (w->down ? w->tm->down_bytes_per_s : w->tm->up_bytes_per_s);
    int i = (w->head + w->count++) % NET_WIRE_FRAMES;
    memcpy(w->data[i], f, len);
    w->len[i] = (uint16_t)len;
    w->due[i] = w->free_ns + w->tm->one_way_ns;
    if (!vt_event_pending(&w->ev))
        vt_schedule(w->t, &w->ev, w->due[w->head]);
}

void net_wire_cancel(net_wire *w)
{
    vt_cancel(w->t, &w->ev);
}

void net_wire_save(const net_wire *w, snap_w *sw)
{
    snap_put_u32(sw, (uint32_t)w->count);
    for (int i = 0; i < w->count; i++) {
        int k = (w->head + i) % NET_WIRE_FRAMES;
        snap_put_u32(sw, w->len[k]);
        snap_put_bytes(sw, w->data[k], w->len[k]);
        snap_put_u64(sw, w->due[k]);
    }
    snap_put_u64(sw, w->free_ns);
    vt_event_save(&w->ev, sw);
}

int net_wire_load(net_wire *w, snap_r *r)
{
    w->head = 0;
    w->count = (int)snap_get_u32_max(r, NET_WIRE_FRAMES, "frames on the wire");
    for (int i = 0; i < w->count; i++) {
        w->len[i] = (uint16_t)snap_get_u32_max(r, NET_FRAME_MAX, "frame length");
        snap_get_bytes(r, w->data[i], w->len[i]);
        w->due[i] = snap_get_u64(r);
    }
    w->free_ns = snap_get_u64(r);
    return vt_event_load(w->t, &w->ev, r);
}
