/* CUnit tests of the phone's network glue (host/slirp_net.c): TCP
 * connections from the guest to the in-emulator content server through
 * libslirp, on the engine's clock. The test plays the guest: it puts
 * frames on the wire as the NIC would and reads slirp's answers back from
 * the pcap capture. */
#include <CUnit/Basic.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "../machine.h"
#include "board_test.h"
#include "../host/content_http.h"
#include "../host/inet_frame.h"
#include "../host/net_wire.h"
#include "../host/slirp_net.h"

static const uint8_t guest_mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
static const uint8_t server_mac[6] = { 0x52, 0x55, 10, 0, 2, 100 };
static const uint8_t guest_ip[4] = { 10, 0, 2, 15 };
static const uint8_t server_ip[4] = { 10, 0, 2, 100 };
enum { FIN = 0x01, SYN = 0x02, RST = 0x04, ACK = 0x10 };

/* A one-core machine whose core is off: only the network and its clock run. */
static machine *network_machine(void)
{
    machine_config cfg;
    machine_config_default(&cfg);
    cfg.ncores = 1;
    cfg.ram_bytes = 16u << 20;
    cfg.console = (byte_sink){ discard, NULL };
    machine *m = board_machine(&cfg);
    arm_set_powered(arm_sys_cpu(machine_cpus(m), 0), 0);
    return m;
}

/* The guest announcing its address (a gratuitous ARP), so slirp knows
 * where to send. */
static void guest_arp(slirp_net *n)
{
    uint8_t f[42] = { 0 };
    memset(f, 0xff, 6);
    memcpy(f + 6, guest_mac, 6);
    inet_put_be(f + 12, 0x0806, 2);
    inet_put_be(f + 14, 1, 2);               /* Ethernet */
    inet_put_be(f + 16, 0x0800, 2);          /* IPv4 */
    f[18] = 6;
    f[19] = 4;
    inet_put_be(f + 20, 1, 2);               /* request */
    memcpy(f + 22, guest_mac, 6);
    memcpy(f + 28, guest_ip, 4);
    memcpy(f + 38, guest_ip, 4);        /* target = sender: gratuitous */
    slirp_net_from_guest(n, f, sizeof(f));
}

/* A TCP segment without options or data from the guest's port to the
 * server's port 80. */
static void guest_tcp(slirp_net *n, uint16_t port, uint32_t seq, uint32_t ack,
                      uint8_t flags)
{
    uint8_t f[14 + 20 + 20] = { 0 };
    uint8_t *ip = f + 14, *tcp = ip + 20;
    memcpy(f, server_mac, 6);
    memcpy(f + 6, guest_mac, 6);
    inet_put_be(f + 12, 0x0800, 2);
    ip[0] = 0x45;
    inet_put_be(ip + 2, 40, 2);
    ip[8] = 64;
    ip[9] = 6;
    memcpy(ip + 12, guest_ip, 4);
    memcpy(ip + 16, server_ip, 4);
    inet_put_be(ip + 10, inet_csum_fold(inet_csum_add(0, ip, 20)), 2);
    inet_put_be(tcp, port, 2);
    inet_put_be(tcp + 2, 80, 2);
    inet_put_be(tcp + 4, seq, 4);
    inet_put_be(tcp + 8, ack, 4);
    tcp[12] = 5 << 4;
    tcp[13] = flags;
    inet_put_be(tcp + 14, 64240, 2);
    uint8_t pseudo[12] = { 0 };
    memcpy(pseudo, ip + 12, 8);
    pseudo[9] = 6;
    inet_put_be(pseudo + 10, 20, 2);
    inet_put_be(tcp + 16, inet_csum_fold(inet_csum_add(inet_csum_add(0, pseudo, 12), tcp, 20)), 2);
    slirp_net_from_guest(n, f, sizeof(f));
}

/* The server's segments to the guest's port in the capture so far: how
 * many had all of `flags` and acked `ack`, and the sequence number of the
 * last of them. */
static int server_segments(const char *pcap_path, uint16_t port, uint8_t flags,
                           uint32_t ack, uint32_t *seq)
{
    char errbuf[PCAP_ERRBUF_SIZE];
    pcap_t *p = pcap_open_offline(pcap_path, errbuf);
    CU_ASSERT_PTR_NOT_NULL_FATAL(p);
    struct pcap_pkthdr *h;
    const u_char *f;
    int count = 0;
    while (pcap_next_ex(p, &h, &f) == 1) {
        if (h->caplen < 14 + 40 || inet_get_be(f + 12, 2) != 0x0800 || f[14 + 9] != 6 ||
            memcmp(f + 14 + 12, server_ip, 4) != 0)
            continue;
        const u_char *tcp = f + 14 + (f[14] & 15) * 4;
        if (inet_get_be(tcp + 2, 2) != port || (tcp[13] & flags) != flags ||
            inet_get_be(tcp + 8, 4) != ack)
            continue;
        *seq = inet_get_be(tcp + 4, 4);
        count++;
    }
    pcap_close(p);
    return count;
}

/* Linux picks ephemeral ports by hash, so a phone that fetches a few
 * hundred times comes back to a port it used before. The content server
 * never closes, so that port's old connection ended with the guest's FIN
 * alone; the next connection from it must still be answered. */
static void test_port_reuse(void)
{
    machine *m = network_machine();
    vt_engine *t = machine_engine(m);
    char pcap_path[64];
    snprintf(pcap_path, sizeof(pcap_path), "%s/net.pcap", tmpdir);
    net_timing nt;
    net_timing_profile(&nt, NET_PROFILE_WIFI);
    struct pl_error err;
    slirp_net *n = slirp_net_new(t, &nt, pcap_path, NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(n);
    const uint16_t port = 56552;
    const uint64_t rtt_ns = 2 * nt.one_way_ns + 10000000;
    uint32_t srv = 0;

    guest_arp(n);
    guest_tcp(n, port, 1000, 0, SYN);
    vt_run(t, vt_now_ns(t) + rtt_ns);
    CU_ASSERT_EQUAL_FATAL(server_segments(pcap_path, port, SYN | ACK, 1001, &srv), 1);
    guest_tcp(n, port, 1001, srv + 1, ACK);
    guest_tcp(n, port, 1001, srv + 1, FIN | ACK);
    vt_run(t, vt_now_ns(t) + rtt_ns);
    uint32_t seq;
    CU_ASSERT_EQUAL(server_segments(pcap_path, port, ACK, 1002, &seq), 1);

    /* The guest forgot the connection (its FIN timeout); a new one from
     * the same port starts at a new initial sequence number. */
    vt_run(t, vt_now_ns(t) + 60 * VT_NS_PER_S);
    guest_tcp(n, port, 500, 0, SYN);
    vt_run(t, vt_now_ns(t) + rtt_ns);
    CU_ASSERT_EQUAL(server_segments(pcap_path, port, SYN | ACK, 501, &seq), 1);

    CU_ASSERT_EQUAL(slirp_net_free(n, &err), 0);
    machine_free(m);
    unlink(pcap_path);
}

/* A capture that cannot be written fails the run with one line naming the
 * file once: a folder that does not exist at the start, a full disk later. */
static void test_capture_write_failure(void)
{
    machine *m = network_machine();
    vt_engine *t = machine_engine(m);
    net_timing nt;
    net_timing_profile(&nt, NET_PROFILE_WIFI);
    struct pl_error err;

    CU_ASSERT_PTR_NULL(slirp_net_new(t, &nt, "/nonexistent/net.pcap", NULL, &err));
    CU_ASSERT_STRING_EQUAL(err.msg, "/nonexistent/net.pcap: cannot create: "
                                    "No such file or directory");
    slirp_net *n = slirp_net_new(t, &nt, "/dev/full", NULL, &err);
    CU_ASSERT_PTR_NOT_NULL_FATAL(n);
    guest_arp(n);
    guest_tcp(n, 56553, 1000, 0, SYN);
    vt_run(t, vt_now_ns(t) + 2 * nt.one_way_ns + 10000000);
    CU_ASSERT_EQUAL(slirp_net_free(n, &err), -1);
    CU_ASSERT_STRING_EQUAL(err.msg, "/dev/full: cannot write the capture: "
                                    "No space left on device");
    machine_free(m);
}

/* When each frame came off the wire, in virtual ns. */
static uint64_t arrived_ns[8];
static int arrived;
static vt_engine *arrival_clock;

static void note_arrival(void *opaque, const uint8_t *buf, size_t len)
{
    (void)opaque;
    (void)buf;
    (void)len;
    if (arrived < 8)
        arrived_ns[arrived] = vt_now_ns(arrival_clock);
    arrived++;
}

/* Frames sent together leave the wire one after another at the profile's
 * rate for that direction, each a one-way latency after it was
 * serialised: a file served to the phone arrives at the link's rate. */
static void check_pacing(vt_engine *t, enum net_profile p, int down,
                         uint64_t rtt_ms, uint64_t bits_per_s)
{
    enum { FRAME = 1514, N = 8 };
    static net_wire w;
    static const uint8_t frame[FRAME];
    net_timing nt;
    net_timing_profile(&nt, p);
    CU_ASSERT_EQUAL(2 * nt.one_way_ns, rtt_ms * 1000000);
    memset(&w, 0, sizeof(w));
    net_wire_init(&w, t, &nt, down, note_arrival, NULL);
    arrival_clock = t;
    arrived = 0;
    uint64_t t0 = vt_now_ns(t);
    for (int i = 0; i < N; i++)
        net_wire_send(&w, frame, FRAME);
    vt_run(t, t0 + nt.one_way_ns + 2 * N * FRAME * 8 * VT_NS_PER_S / bits_per_s);
    CU_ASSERT_EQUAL_FATAL(arrived, N);
    for (int i = 0; i < N; i++)
        CU_ASSERT_EQUAL(arrived_ns[i], t0 + nt.one_way_ns +
                        (uint64_t)(i + 1) * (FRAME * VT_NS_PER_S / (bits_per_s / 8)));
    net_wire_cancel(&w);
}

static void test_link_profiles(void)
{
    machine *m = network_machine();
    vt_engine *t = machine_engine(m);
    check_pacing(t, NET_PROFILE_WIFI, 1, 28, 5000000);
    check_pacing(t, NET_PROFILE_WIFI, 0, 28, 1000000);
    check_pacing(t, NET_PROFILE_3G, 1, 169, 2620000);
    check_pacing(t, NET_PROFILE_3G, 0, 169, 850000);
    CU_ASSERT_EQUAL(net_profile_parse("wifi"), NET_PROFILE_WIFI);
    CU_ASSERT_EQUAL(net_profile_parse("3g"), NET_PROFILE_3G);
    CU_ASSERT_EQUAL(net_profile_parse("lte"), -1);
    machine_free(m);
}

/* The content server's replies, as the guest's connection takes them. */
static char reply[4096];
static size_t reply_len;

static size_t reply_room(void *opaque)
{
    (void)opaque;
    return sizeof(reply) - 1 - reply_len;
}

static void reply_put(void *opaque, const uint8_t *buf, size_t len)
{
    (void)opaque;
    memcpy(reply + reply_len, buf, len);
    reply_len += len;
    reply[reply_len] = 0;
}

/* GET path from the content server; returns its reply. */
static const char *get(content_http *h, vt_engine *t, const char *path)
{
    char req[600];
    reply_len = 0;
    reply[0] = 0;
    snprintf(req, sizeof(req), "GET %s HTTP/1.0\r\n\r\n", path);
    content_http_receive(h, req, strlen(req));
    vt_run(t, vt_now_ns(t) + 1000000);
    return reply;
}

static void put_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    CU_ASSERT_PTR_NOT_NULL_FATAL(f);
    fputs(text, f);
    CU_ASSERT_EQUAL(fclose(f), 0);
}

/* Only regular files whose one name lies inside --content-dir are served:
 * a '..', an absolute path, a symlink to a file or a folder outside, a
 * hard link to a file outside, and a FIFO (which would block the phone)
 * are refused; files and symlinks that stay inside are served. */
static void test_content_dir_confined(void)
{
    machine *m = network_machine();
    vt_engine *t = machine_engine(m);
    char dir[128], out[128], p[512], q[512];
    snprintf(dir, sizeof(dir), "%s/content", tmpdir);
    snprintf(out, sizeof(out), "%s/outside", tmpdir);
    CU_ASSERT_EQUAL_FATAL(mkdir(dir, 0755), 0);
    CU_ASSERT_EQUAL_FATAL(mkdir(out, 0755), 0);
    snprintf(p, sizeof(p), "%s/secret.txt", out);
    put_file(p, "SECRET\n");
    snprintf(p, sizeof(p), "%s/hello.txt", dir);
    put_file(p, "hello\n");
    snprintf(p, sizeof(p), "%s/up.txt", dir);
    CU_ASSERT_EQUAL(symlink("../outside/secret.txt", p), 0);
    snprintf(p, sizeof(p), "%s/abs.txt", dir);
    snprintf(q, sizeof(q), "%s/secret.txt", out);
    CU_ASSERT_EQUAL(symlink(q, p), 0);
    snprintf(p, sizeof(p), "%s/updir", dir);
    CU_ASSERT_EQUAL(symlink("../outside", p), 0);
    snprintf(p, sizeof(p), "%s/absdir", dir);
    CU_ASSERT_EQUAL(symlink(out, p), 0);
    snprintf(p, sizeof(p), "%s/hard.txt", dir);
    CU_ASSERT_EQUAL(link(q, p), 0);
    snprintf(p, sizeof(p), "%s/fifo", dir);
    CU_ASSERT_EQUAL(mkfifo(p, 0644), 0);
    snprintf(p, sizeof(p), "%s/sub", dir);
    CU_ASSERT_EQUAL(mkdir(p, 0755), 0);
    snprintf(p, sizeof(p), "%s/sub/inside.txt", dir);
    CU_ASSERT_EQUAL(symlink("../hello.txt", p), 0);

    content_http h;
    struct pl_error err;
    CU_ASSERT_EQUAL_FATAL(content_http_init(&h, t, dir, (content_conn){ reply_room, reply_put,
                                                                        NULL }, &err), 0);
    CU_ASSERT_PTR_NOT_NULL(strstr(get(&h, t, "/hello.txt"), "200 OK"));
    CU_ASSERT_PTR_NOT_NULL(strstr(reply, "\r\n\r\nhello\n"));
    CU_ASSERT_PTR_NOT_NULL(strstr(get(&h, t, "/sub/inside.txt"), "\r\n\r\nhello\n"));
    static const char *const refused[] = {
        "/../outside/secret.txt", "/sub/../../outside/secret.txt", "/up.txt", "/abs.txt",
        "/updir/secret.txt", "/absdir/secret.txt", "/hard.txt", "/fifo", "/sub", "/",
        "/nonexistent.txt",
    };
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        get(&h, t, refused[i]);
        if (!strstr(reply, " 404 ") && !strstr(reply, " 400 "))
            fprintf(stderr, "\n%s: served: %s\n", refused[i], reply);
        CU_ASSERT(strstr(reply, " 404 ") || strstr(reply, " 400 "));
        CU_ASSERT_PTR_NULL(strstr(reply, "SECRET"));
    }
    /* An absolute path: the folder's own path with the request's '/' in front. */
    snprintf(p, sizeof(p), "/%s/secret.txt", out);
    CU_ASSERT_PTR_NOT_NULL(strstr(get(&h, t, p), " 404 "));
    CU_ASSERT_PTR_NULL(strstr(reply, "SECRET"));
    content_http_free(&h);

    /* A folder that is not one is refused when the server starts. */
    snprintf(p, sizeof(p), "%s/hello.txt", dir);
    CU_ASSERT_EQUAL(content_http_init(&h, t, p, (content_conn){ reply_room, reply_put, NULL },
                                      &err), -1);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "--content-dir: Not a directory"));
    content_http_free(&h);
    machine_free(m);

    static const char *const names[] = {
        "hello.txt", "up.txt", "abs.txt", "updir", "absdir", "hard.txt", "fifo",
        "sub/inside.txt",
    };
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        snprintf(p, sizeof(p), "%s/%s", dir, names[i]);
        unlink(p);
    }
    snprintf(p, sizeof(p), "%s/sub", dir);
    rmdir(p);
    rmdir(dir);
    unlink(q);
    rmdir(out);
}

int main(int argc, char **argv)
{
    static const board_case cases[] = {
        { "a reused guest port after a connection the guest ended",
          test_port_reuse },
        { "the content server stays inside --content-dir",
          test_content_dir_confined },
        { "a capture that cannot be written", test_capture_write_failure },
        { "link profiles pace frames at their rate", test_link_profiles },
        { NULL, NULL },
    };
    return board_test_main(argc, argv, "board net", cases);
}
