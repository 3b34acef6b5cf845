/* Snapshot files; see snapshot.h. */
#include <stdio.h>
#include "snapshot.h"
#include "panlab/error.h"

int snapshot_save(const char *path, const machine *m, const slirp_net *net,
                  struct pl_error *err)
{
    snap_w *w = snap_w_open(path, SNAPSHOT_VERSION, err);
    if (!w)
        return -1;
    machine_save(m, w);
    snap_w_begin(w, "SLRP");
    snap_put_u32(w, net != NULL);
    if (net)
        slirp_net_save(net, w);
    snap_w_end(w);
    snap_w_begin(w, "END ");
    snap_w_end(w);
    return snap_w_close(w, err);
}

static int load_net(snap_r *r, slirp_net *net)
{
    uint32_t had = snap_get_u32_max(r, 1, "network flag");
    if (!snap_r_failed(r) && had != (net != NULL))
        return snap_r_fail(r, "saved %s a network, this run has %s (give "
                           "the same --net)", had ? "with" : "without",
                           net ? "one" : "none");
    return net ? slirp_net_load(net, r) : 0;
}

int snapshot_load(const char *path, machine *m, slirp_net *net, struct pl_error *err)
{
    snap_r *r = snap_r_open(path, SNAPSHOT_VERSION, err);
    if (!r)
        return -1;
    int rc = -1;
    if (machine_load(m, r) == 0 && snap_r_begin(r, "SLRP", 0) == 0 &&
        load_net(r, net) == 0 && snap_r_end(r) == 0 &&
        snap_r_begin(r, "END ", 0) == 0 && snap_r_end(r) == 0 && snap_r_eof(r) == 0)
        rc = 0;
    if (rc < 0)
        pl_error_set(err, "%s", snap_r_error(r));
    snap_r_close(r);
    return rc;
}
