/* Helpers for the few Ethernet/IPv4/UDP/TCP frames the phone builds or
 * reads itself (content_udp.c, slirp_net.c): big-endian fields, and the
 * Internet checksum (RFC 1071) over big-endian 16-bit words. Add every
 * piece with inet_csum_add(), then take inet_csum_fold() as the field.
 *
 * Ownership: pure functions on the caller's bytes. */
#ifndef PANLAB_HOST_INET_FRAME_H
#define PANLAB_HOST_INET_FRAME_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline void inet_put_be(uint8_t *p, uint32_t v, int bytes)
{
    for (int i = 0; i < bytes; i++)
        p[i] = (uint8_t)(v >> (8 * (bytes - 1 - i)));
}

static inline uint32_t inet_get_be(const uint8_t *p, int bytes)
{
    uint32_t v = 0;
    for (int i = 0; i < bytes; i++)
        v = v << 8 | p[i];
    return v;
}

/* sum plus len_bytes of p; an odd last byte is padded with zero. */
static inline uint32_t inet_csum_add(uint32_t sum, const uint8_t *p, size_t len_bytes)
{
    for (size_t i = 0; i + 1 < len_bytes; i += 2)
        sum += (uint32_t)(p[i] << 8 | p[i + 1]);
    if (len_bytes & 1)
        sum += (uint32_t)p[len_bytes - 1] << 8;
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return sum;
}

static inline uint16_t inet_csum_fold(uint32_t sum)
{
    while (sum >> 16)
        sum = (sum & 0xffff) + (sum >> 16);
    return (uint16_t)~sum;
}

/* A 20-byte IPv4 header at ip (no options, don't fragment, TTL 64) for a
 * packet of total_len bytes, with its checksum. */
static inline void inet_put_ipv4(uint8_t *ip, size_t total_len, uint16_t id, uint8_t proto,
                                 const uint8_t src[4], const uint8_t dst[4])
{
    memset(ip, 0, 20);
    ip[0] = 0x45;
    inet_put_be(ip + 2, (uint32_t)total_len, 2);
    inet_put_be(ip + 4, id, 2);
    inet_put_be(ip + 6, 0x4000, 2);
    ip[8] = 64;
    ip[9] = proto;
    memcpy(ip + 12, src, 4);
    memcpy(ip + 16, dst, 4);
    inet_put_be(ip + 10, inet_csum_fold(inet_csum_add(0, ip, 20)), 2);
}

#endif
