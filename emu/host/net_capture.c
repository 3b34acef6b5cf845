/* pcap capture; see net_capture.h. */
#include <stdlib.h>
#include <pcap/pcap.h>
#include "net_capture.h"
#include "../time.h"

struct net_capture {
    pcap_t *pcap;
    pcap_dumper_t *dump;
};

net_capture *net_capture_open(const char *path, struct pl_error *err)
{
    net_capture *c = pl_xcalloc(1, sizeof(*c));
    c->pcap = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, 65535,
                                                  PCAP_TSTAMP_PRECISION_NANO);
    c->dump = c->pcap ? pcap_dump_open(c->pcap, path) : NULL;
    if (!c->dump) {
        pl_error_file(err, path, "cannot create: %s",
                      c->pcap ? pcap_geterr(c->pcap) : "libpcap failed");
        net_capture_close(c);
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
    pcap_dump_flush(c->dump);   /* a killed run keeps every frame so far */
}

void net_capture_close(net_capture *c)
{
    if (!c)
        return;
    if (c->dump)
        pcap_dump_close(c->dump);
    if (c->pcap)
        pcap_close(c->pcap);
    free(c);
}
