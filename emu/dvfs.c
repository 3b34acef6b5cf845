/* The CPU frequency domain; see dvfs.h. */
#include <stdio.h>
#include <stdlib.h>
#include "dvfs.h"

const dvfs_opp dvfs_omap4460_opps[] = {
    { 350000, 220 }, { 700000, 610 }, { 920000, 1000 }, { 1200000, 1600 },
};
const int dvfs_omap4460_nopps =
    (int)(sizeof(dvfs_omap4460_opps) / sizeof(dvfs_omap4460_opps[0]));

struct dvfs {
    vt_engine *vt;
    dvfs_opp opp[DVFS_MAX_OPPS];
    int nopps, cur;
    uint64_t latency_ns, switches;
    /* Residency is settled at every switch and on reading: since_ns and
     * busy_since are the time and per-core busy time then. */
    uint64_t since_ns, busy_since[DVFS_MAX_CORES];
    uint64_t res_ns[DVFS_MAX_OPPS], busy_ns[DVFS_MAX_OPPS][DVFS_MAX_CORES];
};

static int ncores(const dvfs *d)
{
    int n = vt_ncores(d->vt);
    return n < DVFS_MAX_CORES ? n : DVFS_MAX_CORES;
}

dvfs *dvfs_new(vt_engine *vt, const dvfs_opp *opps, int nopps,
               uint64_t latency_ns, struct pl_error *err)
{
    if (nopps < 1 || nopps > DVFS_MAX_OPPS) {
        pl_error_set(err, "dvfs: %d OPPs, expected 1..%d", nopps,
                     DVFS_MAX_OPPS);
        return NULL;
    }
    dvfs *d = pl_xcalloc(1, sizeof(*d));
    d->vt = vt;
    d->nopps = nopps;
    for (int i = 0; i < nopps; i++)
        d->opp[i] = opps[i];
    d->latency_ns = latency_ns;
    d->cur = dvfs_find(d, (uint32_t)(vt_cpu_hz(vt) / 1000));
    return d;
}

void dvfs_free(dvfs *d)
{
    free(d);
}

int dvfs_nopps(const dvfs *d) { return d->nopps; }
const dvfs_opp *dvfs_opp_at(const dvfs *d, int i) { return &d->opp[i]; }
int dvfs_current(const dvfs *d) { return d->cur; }
uint64_t dvfs_latency_ns(const dvfs *d) { return d->latency_ns; }
uint64_t dvfs_switches(const dvfs *d) { return d->switches; }

uint32_t dvfs_current_khz(const dvfs *d)
{
    return (uint32_t)(vt_cpu_hz(d->vt) / 1000);
}

int dvfs_find(const dvfs *d, uint32_t khz)
{
    for (int i = 0; i < d->nopps; i++)
        if (d->opp[i].khz == khz)
            return i;
    return -1;
}

/* Books the time since the last settlement to the current OPP. */
static void settle(dvfs *d)
{
    uint64_t now = vt_now_ns(d->vt);
    for (int c = 0; c < ncores(d); c++) {
        uint64_t busy = vt_busy_ns(d->vt, c);
        if (d->cur >= 0)
            d->busy_ns[d->cur][c] += busy - d->busy_since[c];
        d->busy_since[c] = busy;
    }
    if (d->cur >= 0)
        d->res_ns[d->cur] += now - d->since_ns;
    d->since_ns = now;
}

void dvfs_set(dvfs *d, int i)
{
    if (i == d->cur)
        return;
    settle(d);
    d->cur = i;
    d->switches++;
    vt_set_cpu_hz(d->vt, (uint64_t)d->opp[i].khz * 1000);
    vt_stall(d->vt, d->latency_ns);
}

uint64_t dvfs_residency_ns(dvfs *d, int i)
{
    settle(d);
    return d->res_ns[i];
}

uint64_t dvfs_busy_ns(dvfs *d, int i, int core)
{
    settle(d);
    return d->busy_ns[i][core];
}

void dvfs_save(const dvfs *d, snap_w *w)
{
    snap_put_u32(w, (uint32_t)d->nopps);
    snap_put_i32(w, d->cur);
    snap_put_u64(w, d->switches);
    snap_put_u64(w, d->since_ns);
    for (int c = 0; c < DVFS_MAX_CORES; c++)
        snap_put_u64(w, d->busy_since[c]);
    for (int i = 0; i < d->nopps; i++) {
        snap_put_u64(w, d->res_ns[i]);
        for (int c = 0; c < DVFS_MAX_CORES; c++)
            snap_put_u64(w, d->busy_ns[i][c]);
    }
}

int dvfs_load(dvfs *d, snap_r *r)
{
    uint32_t nopps = snap_get_u32(r);
    int32_t cur = snap_get_i32(r);
    if (!snap_r_failed(r) && (nopps != (uint32_t)d->nopps || cur < -1 ||
                              cur >= d->nopps))
        return snap_r_fail(r, "a DVFS domain of %u OPPs at OPP %d, expected "
                           "%d OPPs", nopps, cur, d->nopps);
    d->cur = cur;
    d->switches = snap_get_u64(r);
    d->since_ns = snap_get_u64(r);
    for (int c = 0; c < DVFS_MAX_CORES; c++)
        d->busy_since[c] = snap_get_u64(r);
    for (int i = 0; i < d->nopps; i++) {
        d->res_ns[i] = snap_get_u64(r);
        for (int c = 0; c < DVFS_MAX_CORES; c++)
            d->busy_ns[i][c] = snap_get_u64(r);
    }
    return snap_r_failed(r) ? -1 : 0;
}
