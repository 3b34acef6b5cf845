/* pcap capture; see net_capture.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pcap/pcap.h>
#include "net_capture.h"
#include "../time.h"

struct net_capture {
    const char *path;
    pcap_t *pcap;
    pcap_dumper_t *dump;
    int write_errno;            /* the first failed write's, 0 if none */
};

net_capture *net_capture_open(const char *path, struct pl_error *err)
{
    net_capture *c = pl_xcalloc(1, sizeof(*c));
    c->path = path;
    c->pcap = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, 65535,
                                                  PCAP_TSTAMP_PRECISION_NANO);
    if (!c->pcap) {
        pl_error_file(err, path, "cannot create: libpcap failed");
        net_capture_close(c, err);
        return NULL;
    }
    /* Opened here, not by pcap_dump_open, whose message repeats the path. */
    FILE *f = fopen(path, "wb");
    if (!f) {
        pl_error_file(err, path, "cannot create: %s", strerror(errno));
        net_capture_close(c, err);
        return NULL;
    }
    if (!(c->dump = pcap_dump_fopen(c->pcap, f))) {
        pl_error_file(err, path, "cannot create: %s", pcap_geterr(c->pcap));
        fclose(f);
        net_capture_close(c, err);
        return NULL;
    }
    return c;
}

void net_capture_frame(net_capture *c, uint64_t ns, const uint8_t *f, size_t len)
{
    if (!c)
        return;
    struct pcap_pkthdr h;
    h.ts.tv_sec = (time_t)(ns / VT_NS_PER_S);
    h.ts.tv_usec = (suseconds_t)(ns % VT_NS_PER_S);     /* ns precision */
    h.caplen = h.len = (bpf_u_int32)len;
    pcap_dump((u_char *)c->dump, &h, f);
    /* A killed run keeps every frame so far; a failed write is kept for
     * net_capture_close() to report. */
    if (pcap_dump_flush(c->dump) != 0 && !c->write_errno)
        c->write_errno = errno ? errno : EIO;
}

int net_capture_close(net_capture *c, struct pl_error *err)
{
    if (!c)
        return 0;
    int rc = 0;
    if (c->dump) {
        FILE *f = pcap_dump_file(c->dump);
        if (!c->write_errno && (fflush(f) != 0 || ferror(f)))
            c->write_errno = errno ? errno : EIO;
        pcap_dump_close(c->dump);
        if (c->write_errno) {
            pl_error_file(err, c->path, "cannot write the capture: %s",
                          strerror(c->write_errno));
            rc = -1;
        }
    }
    if (c->pcap)
        pcap_close(c->pcap);
    free(c);
    return rc;
}
