/* SCMI platform; see scmi.h. Message formats from DEN0056 (base protocol
 * §4.2, performance §4.5), as Linux's drivers/firmware/arm_scmi/base.c
 * and perf.c read them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "scmi.h"
#include "panlab/error.h"

enum { PROTO_BASE = 0x10, PROTO_PERF = 0x13 };
#define PROTOCOL_VERSION_2_0 0x20000u

/* Commands every protocol has (§4.1.2). */
enum { MSG_VERSION = 0x0, MSG_ATTRIBUTES = 0x1, MSG_MSG_ATTRIBUTES = 0x2 };
enum {
    BASE_DISCOVER_VENDOR = 0x3, BASE_DISCOVER_SUB_VENDOR = 0x4,
    BASE_DISCOVER_IMPLEMENTATION_VERSION = 0x5,
    BASE_DISCOVER_LIST_PROTOCOLS = 0x6, BASE_DISCOVER_AGENT = 0x7,
};
enum {
    PERF_DOMAIN_ATTRIBUTES = 0x3, PERF_DESCRIBE_LEVELS = 0x4,
    PERF_LIMITS_SET = 0x5, PERF_LIMITS_GET = 0x6, PERF_LEVEL_SET = 0x7,
    PERF_LEVEL_GET = 0x8,
};
/* PERF_DOMAIN_ATTRIBUTES flags: limits and level can be set; no
 * notifications, no fast channels. */
#define PERF_CAN_SET_LIMITS (1u << 31)
#define PERF_CAN_SET_LEVEL (1u << 30)
/* PERF_PROTOCOL_ATTRIBUTES flags: power values are in mW. */
#define PERF_POWER_IN_MW 1u
#define NAME_BYTES 16
/* The largest response: the channel less its header words. */
#define OUT_MAX (SCMI_SHMEM_BYTES - SCMI_SHM_PAYLOAD - 4)

/* A message being answered: its parameters and the response built. */
typedef struct msg {
    const uint8_t *in;
    uint32_t in_bytes;
    uint8_t out[OUT_MAX];
    uint32_t out_bytes;
} msg;

struct scmi {
    uint8_t *shm;
    dvfs *dvfs;
    uint32_t min_khz, max_khz;  /* performance limits */
    msg m;
};

static uint32_t rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static void wr32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

static void put32(msg *m, uint32_t v)
{
    wr32(m->out + m->out_bytes, v);
    m->out_bytes += 4;
}

static void put_name(msg *m, const char *name)
{
    memset(m->out + m->out_bytes, 0, NAME_BYTES);
    memcpy(m->out + m->out_bytes, name, strlen(name));
    m->out_bytes += NAME_BYTES;
}

/* Parameter word i; the caller has checked that the message holds it. */
static uint32_t arg(const msg *m, int i)
{
    return rd32(m->in + 4 * i);
}

static int has_args(const msg *m, int n)
{
    return m->in_bytes >= 4u * (uint32_t)n;
}

static const uint8_t base_cmds[] = {
    MSG_VERSION, MSG_ATTRIBUTES, MSG_MSG_ATTRIBUTES, BASE_DISCOVER_VENDOR,
    BASE_DISCOVER_SUB_VENDOR, BASE_DISCOVER_IMPLEMENTATION_VERSION,
    BASE_DISCOVER_LIST_PROTOCOLS, BASE_DISCOVER_AGENT,
};
static const uint8_t perf_cmds[] = {
    MSG_VERSION, MSG_ATTRIBUTES, MSG_MSG_ATTRIBUTES, PERF_DOMAIN_ATTRIBUTES,
    PERF_DESCRIBE_LEVELS, PERF_LIMITS_SET, PERF_LIMITS_GET, PERF_LEVEL_SET,
    PERF_LEVEL_GET,
};
/* The protocols besides base, for BASE_DISCOVER_LIST_PROTOCOLS. */
static const uint8_t protocols[] = { PROTO_PERF };

static int32_t msg_attributes(msg *m, const uint8_t *cmds, size_t n)
{
    if (!has_args(m, 1))
        return SCMI_PROTOCOL_ERROR;
    for (size_t i = 0; i < n; i++)
        if (cmds[i] == arg(m, 0)) {
            put32(m, 0);
            return SCMI_SUCCESS;
        }
    return SCMI_NOT_FOUND;
}

static int32_t base_cmd(msg *m, uint32_t id)
{
    switch (id) {
    case MSG_VERSION:
        put32(m, PROTOCOL_VERSION_2_0);
        return SCMI_SUCCESS;
    case MSG_ATTRIBUTES:        /* protocols in bits 7:0, agents in 15:8 */
        put32(m, (uint32_t)sizeof(protocols) | 1u << 8);
        return SCMI_SUCCESS;
    case MSG_MSG_ATTRIBUTES:
        return msg_attributes(m, base_cmds, sizeof(base_cmds));
    case BASE_DISCOVER_VENDOR:
        put_name(m, "panlab");
        return SCMI_SUCCESS;
    case BASE_DISCOVER_SUB_VENDOR:
        put_name(m, "phone");
        return SCMI_SUCCESS;
    case BASE_DISCOVER_IMPLEMENTATION_VERSION:
        put32(m, 1);
        return SCMI_SUCCESS;
    case BASE_DISCOVER_LIST_PROTOCOLS: {
        if (!has_args(m, 1))
            return SCMI_PROTOCOL_ERROR;
        uint32_t skip = arg(m, 0);
        if (skip > sizeof(protocols))
            return SCMI_INVALID_PARAMETERS;
        uint32_t n = (uint32_t)sizeof(protocols) - skip;
        put32(m, n);
        memset(m->out + m->out_bytes, 0, (n + 3) & ~3u);
        memcpy(m->out + m->out_bytes, protocols + skip, n);
        m->out_bytes += (n + 3) & ~3u;
        return SCMI_SUCCESS;
    }
    case BASE_DISCOVER_AGENT:   /* agent 0 is the platform, 1 the OS */
        if (!has_args(m, 1))
            return SCMI_PROTOCOL_ERROR;
        if (arg(m, 0) > 1)
            return SCMI_NOT_FOUND;
        put32(m, arg(m, 0));
        put_name(m, arg(m, 0) == 0 ? "platform" : "OSPM");
        return SCMI_SUCCESS;
    default:
        return SCMI_NOT_SUPPORTED;
    }
}

/* Switches to the OPP of khz, which lies within the limits. */
static void set_level(scmi *s, uint32_t khz)
{
    dvfs_set(s->dvfs, dvfs_find(s->dvfs, khz));
}

static int32_t perf_cmd(scmi *s, msg *m, uint32_t id)
{
    dvfs *d = s->dvfs;
    int nopps = dvfs_nopps(d);
    uint32_t top_khz = dvfs_opp_at(d, nopps - 1)->khz;
    switch (id) {
    case MSG_VERSION:
        put32(m, PROTOCOL_VERSION_2_0);
        return SCMI_SUCCESS;
    case MSG_ATTRIBUTES:        /* 1 domain | flags; no statistics area */
        put32(m, 1u | PERF_POWER_IN_MW << 16);
        put32(m, 0);
        put32(m, 0);
        put32(m, 0);
        return SCMI_SUCCESS;
    case MSG_MSG_ATTRIBUTES:
        return msg_attributes(m, perf_cmds, sizeof(perf_cmds));
    default:
        break;
    }
    if (id != PERF_DOMAIN_ATTRIBUTES && id != PERF_DESCRIBE_LEVELS &&
        id != PERF_LIMITS_SET && id != PERF_LIMITS_GET &&
        id != PERF_LEVEL_SET && id != PERF_LEVEL_GET)
        return SCMI_NOT_SUPPORTED;
    if (!has_args(m, 1))
        return SCMI_PROTOCOL_ERROR;
    if (arg(m, 0) != 0)
        return SCMI_NOT_FOUND;
    switch (id) {
    case PERF_DOMAIN_ATTRIBUTES:
        /* Sustained level = frequency in kHz, so Linux's level-to-Hz
         * factor is 1000. No rate limit between level changes. */
        put32(m, PERF_CAN_SET_LIMITS | PERF_CAN_SET_LEVEL);
        put32(m, 0);
        put32(m, top_khz);
        put32(m, top_khz);
        put_name(m, "cpu");
        return SCMI_SUCCESS;
    case PERF_DESCRIBE_LEVELS: {
        if (!has_args(m, 2))
            return SCMI_PROTOCOL_ERROR;
        uint32_t first = arg(m, 1);
        if (first >= (uint32_t)nopps)
            return SCMI_INVALID_PARAMETERS;
        uint32_t n = (uint32_t)nopps - first;
        put32(m, n);            /* returned; none remaining */
        uint32_t latency_us = (uint32_t)(dvfs_latency_ns(d) / 1000);
        for (uint32_t i = first; i < (uint32_t)nopps; i++) {
            put32(m, dvfs_opp_at(d, (int)i)->khz);
            put32(m, dvfs_opp_at(d, (int)i)->power_mw);
            put32(m, latency_us & 0xffffu);
        }
        return SCMI_SUCCESS;
    }
    case PERF_LIMITS_SET: {
        if (!has_args(m, 3))
            return SCMI_PROTOCOL_ERROR;
        uint32_t max = arg(m, 1), min = arg(m, 2);
        if (min > max)
            return SCMI_INVALID_PARAMETERS;
        if (max < dvfs_opp_at(d, 0)->khz || min > top_khz)
            return SCMI_OUT_OF_RANGE;
        s->max_khz = max;
        s->min_khz = min;
        /* The level follows the new limits: the nearest OPP inside them. */
        uint32_t cur = dvfs_current_khz(d);
        for (int i = nopps - 1; cur > max && i >= 0; i--)
            if (dvfs_opp_at(d, i)->khz <= max) {
                set_level(s, dvfs_opp_at(d, i)->khz);
                break;
            }
        for (int i = 0; dvfs_current_khz(d) < min && i < nopps; i++)
            if (dvfs_opp_at(d, i)->khz >= min) {
                set_level(s, dvfs_opp_at(d, i)->khz);
                break;
            }
        return SCMI_SUCCESS;
    }
    case PERF_LIMITS_GET:
        put32(m, s->max_khz);
        put32(m, s->min_khz);
        return SCMI_SUCCESS;
    case PERF_LEVEL_SET: {
        if (!has_args(m, 2))
            return SCMI_PROTOCOL_ERROR;
        uint32_t khz = arg(m, 1);
        if (dvfs_find(d, khz) < 0)
            return SCMI_INVALID_PARAMETERS;
        if (khz > s->max_khz || khz < s->min_khz)
            return SCMI_OUT_OF_RANGE;
        set_level(s, khz);
        return SCMI_SUCCESS;
    }
    default:                    /* PERF_LEVEL_GET */
        put32(m, dvfs_current_khz(d));
        return SCMI_SUCCESS;
    }
}

void scmi_process(scmi *s)
{
    uint8_t *shm = s->shm;
    uint32_t len = rd32(shm + SCMI_SHM_LENGTH);
    /* The length counts the header and the parameters; a message that
     * has no header or runs past the channel cannot be answered. */
    if (len < 4 || len > SCMI_SHMEM_BYTES - SCMI_SHM_HEADER) {
        wr32(shm + SCMI_SHM_STATUS, SCMI_CHAN_FREE | SCMI_CHAN_ERROR);
        return;
    }
    uint32_t hdr = rd32(shm + SCMI_SHM_HEADER);
    uint32_t id = hdr & 0xffu, type = hdr >> 8 & 3u, proto = hdr >> 10 & 0xffu;
    msg *m = &s->m;
    m->in = shm + SCMI_SHM_PAYLOAD;
    m->in_bytes = len - 4;
    m->out_bytes = 0;
    int32_t status;
    if (type != 0)              /* only commands go from agent to platform */
        status = SCMI_PROTOCOL_ERROR;
    else if (proto == PROTO_BASE)
        status = base_cmd(m, id);
    else if (proto == PROTO_PERF)
        status = perf_cmd(s, m, id);
    else
        status = SCMI_NOT_SUPPORTED;
    if (status != SCMI_SUCCESS)
        m->out_bytes = 0;
    /* Response: the same header, the status, the return values. */
    wr32(shm + SCMI_SHM_PAYLOAD, (uint32_t)status);
    memcpy(shm + SCMI_SHM_PAYLOAD + 4, m->out, m->out_bytes);
    wr32(shm + SCMI_SHM_LENGTH, 8 + m->out_bytes);
    wr32(shm + SCMI_SHM_STATUS, SCMI_CHAN_FREE);
}

int scmi_call(scmi *s, arm_cpu *cpu)
{
    scmi_process(s);
    arm_set_reg(cpu, 0, 0);
    return 1;
}

scmi *scmi_new(phys_map *map, uint32_t shmem_addr, dvfs *d)
{
    scmi *s = pl_xcalloc(1, sizeof(*s));
    s->shm = phys_register_ram(map, shmem_addr, SCMI_SHMEM_BYTES);
    s->dvfs = d;
    s->min_khz = dvfs_opp_at(d, 0)->khz;
    s->max_khz = dvfs_opp_at(d, dvfs_nopps(d) - 1)->khz;
    wr32(s->shm + SCMI_SHM_STATUS, SCMI_CHAN_FREE);
    return s;
}

void scmi_free(scmi *s)
{
    free(s);
}

uint8_t *scmi_shmem(scmi *s)
{
    return s->shm;
}

void scmi_save(const scmi *s, snap_w *w)
{
    snap_put_u32(w, s->min_khz);
    snap_put_u32(w, s->max_khz);
    snap_put_bytes(w, s->shm, SCMI_SHMEM_BYTES);
}

int scmi_load(scmi *s, snap_r *r)
{
    s->min_khz = snap_get_u32(r);
    s->max_khz = snap_get_u32(r);
    snap_get_bytes(r, s->shm, SCMI_SHMEM_BYTES);
    return snap_r_failed(r) ? -1 : 0;
}
