/* The phone's model constants for the findings; see model_constants.h. */
#include "model_constants.h"
#include "dev/sdcard.h"
#include "host/net_wire.h"

static const struct {
    enum net_profile p;
    const char *name, *source;
} links[] = {
    { NET_PROFILE_WIFI, "wifi (the default)",
      "WebPageTest's Cable (5/1 Mbps 28ms RTT) profile (emu/host/net_wire.c)" },
    { NET_PROFILE_3G, "3g", "PCWorld/Novarum 2012 AT&T 3G, PCWorld 2011 HSPA+ latency "
                            "(emu/host/net_wire.c)" },
    { NET_PROFILE_LEGACY, "legacy (links2 only)", "none (emu/host/net_wire.c)" },
};

void model_constants_print(FILE *f)
{
    fprintf(f, "# group\tname\tvalue\tsource\n");
    for (size_t i = 0; i < sizeof(links) / sizeof(links[0]); i++) {
        net_timing t;
        net_timing_profile(&t, links[i].p);
        fprintf(f, "network\t%s link\tRTT %llu ms, down %.3g Mbit/s, up %.3g Mbit/s\t%s\n",
                links[i].name, (unsigned long long)(2 * t.one_way_ns / 1000000),
                t.down_bytes_per_s * 8 / 1e6, t.up_bytes_per_s * 8 / 1e6, links[i].source);
    }
    blk_timing c;
    blk_timing_sd(&c);
    fprintf(f, "SD card timing\tbus\t%.4g MB/s\tSD Physical Layer 3.01 6.6, Default Speed "
               "on a 1-bit bus (emu/dev/sdcard.c)\n", c.bus_bytes_per_s / 1e6);
    fprintf(f, "SD card timing\tflash programming\t%.4g MB/s\tSD Physical Layer 3.01 4.13, "
               "Speed Class 4 (emu/dev/sdcard.c)\n", c.write_bytes_per_s / 1e6);
    fprintf(f, "SD card timing\tread\t%llu us, then %.4g MB/s\tnone (emu/dev/sdcard.c)\n",
            (unsigned long long)(c.read_latency_ns / 1000), c.read_bytes_per_s / 1e6);
    fprintf(f, "SD card timing\twrite cache\t%llu us to enter, %llu MiB\tnone "
               "(emu/dev/sdcard.c)\n", (unsigned long long)(c.write_latency_ns / 1000),
            (unsigned long long)(c.cache_bytes >> 20));
}
