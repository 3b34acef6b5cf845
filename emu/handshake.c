/* The configuration handshake and the snapshot point; see handshake.h. */
#include <string.h>
#include "handshake.h"
#include "guest.h"
#include "panlab/guest_abi.h"
#include "host/host_clock.h"
#include "host/snapshot.h"
#include "panlab/error.h"

static const char prog[] = "panlab-phone";

void handshake_port(void *opaque, const uint8_t *buf, size_t n)
{
    handshake *h = opaque;
    if (memchr(buf, '\n', n))
        h->asked = 1;
}

static int send_config(machine *m, const char *config, struct pl_error *err)
{
    char line[VCON_INPUT_BYTES];
    int n = snprintf(line, sizeof(line), "%s\n", config);
    if (virtio_console_send(machine_console(m), PL_PORT_CONFIG,
                            (const uint8_t *)line, (size_t)n) < 0) {
        pl_error_set(err, "--config: the guest's configuration did not "
                          "fit the " PL_PORT_CONFIG " port");
        return -1;
    }
    return 0;
}

int handshake_restore(handshake *h, const char *path, machine *m,
                      slirp_net *net, struct pl_error *err)
{
    h->restored = 1;
    if (snapshot_load(path, m, net, err) < 0) {
        h->refused = 1;
        return -1;
    }
    return send_config(m, h->config, err);
}

enum handshake_step handshake_poll(handshake *h, machine *m, slirp_net *net,
                                   uint64_t now_ns, struct pl_error *err)
{
    if (h->asked != 1 || h->restored)
        return HANDSHAKE_GO_ON;
    h->asked = 2;
    if (h->save_path) {
        double t0 = host_now_s();
        if (snapshot_save(h->save_path, m, net, err) < 0)
            return HANDSHAKE_FAILED;
        fprintf(stderr, "%s: saved %s at %.6f s of virtual time in %.3f s of "
                "host time\n", prog, h->save_path, (double)now_ns / 1e9,
                host_now_s() - t0);
    }
    if (!h->config)
        return HANDSHAKE_SAVED_ONLY;
    return send_config(m, h->config, err) < 0 ? HANDSHAKE_FAILED
                                                       : HANDSHAKE_GO_ON;
}
