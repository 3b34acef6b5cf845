/* GDB remote stub; packet formats from the GDB manual, "Remote Protocol",
 * "Packets" and "General Query Packets". */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include "gdbstub.h"
#include "panlab/error.h"

#define MAX_BP 64
#define PKT_MAX 4096
#define XFER_TARGET "qXfer:features:read:target.xml:"

/* Target description: the ARM core registers, numbered 0..16 in order
 * (GDB manual, "ARM Features"). */
static const char target_xml[] =
    "<?xml version=\"1.0\"?><!DOCTYPE target SYSTEM \"gdb-target.dtd\">"
    "<target><architecture>arm</architecture>"
    "<feature name=\"org.gnu.gdb.arm.core\">"
    "<reg name=\"r0\" bitsize=\"32\"/><reg name=\"r1\" bitsize=\"32\"/>"
    "<reg name=\"r2\" bitsize=\"32\"/><reg name=\"r3\" bitsize=\"32\"/>"
    "<reg name=\"r4\" bitsize=\"32\"/><reg name=\"r5\" bitsize=\"32\"/>"
    "<reg name=\"r6\" bitsize=\"32\"/><reg name=\"r7\" bitsize=\"32\"/>"
    "<reg name=\"r8\" bitsize=\"32\"/><reg name=\"r9\" bitsize=\"32\"/>"
    "<reg name=\"r10\" bitsize=\"32\"/><reg name=\"r11\" bitsize=\"32\"/>"
    "<reg name=\"r12\" bitsize=\"32\"/>"
    "<reg name=\"sp\" bitsize=\"32\" type=\"data_ptr\"/>"
    "<reg name=\"lr\" bitsize=\"32\"/>"
    "<reg name=\"pc\" bitsize=\"32\" type=\"code_ptr\"/>"
    "<reg name=\"cpsr\" bitsize=\"32\"/>"
    "</feature></target>";

struct gdbstub {
    machine *m;
    int fd;
    uint32_t page_offset;
    int running;                /* gdb let the machine go */
    int stepping, step_core;
    int stop_core;              /* set by the hook: -1 = no stop */
    int cur;                    /* core for g/p/m (Hg) */
    uint32_t bp[MAX_BP];
    int nbp;
};

static int hexval(int c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10
         : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static void send_pkt(gdbstub *g, const char *data)
{
    char buf[2 * PKT_MAX + 8];
    unsigned sum = 0;
    size_t n = 0;
    buf[n++] = '$';
    for (const char *p = data; *p && n < sizeof(buf) - 4; p++) {
        buf[n++] = *p;
        sum += (unsigned char)*p;
    }
    n += (size_t)snprintf(buf + n, 4, "#%02x", sum & 0xff);
    /* A broken connection shows at the next read. */
    ssize_t w = write(g->fd, buf, n);
    (void)w;
}

/* Reads one packet into buf; returns its length, -1 on EOF, or -2 for a
 * bare interrupt (0x03). */
static int recv_pkt(gdbstub *g, char *buf, size_t len)
{
    char c;
    for (;;) {
        if (read(g->fd, &c, 1) != 1)
            return -1;
        if (c == 3)
            return -2;
        if (c == '$')
            break;
    }
    size_t n = 0;
    for (;;) {
        if (read(g->fd, &c, 1) != 1)
            return -1;
        if (c == '#')
            break;
        if (n < len - 1)
            buf[n++] = c;
    }
    char cs[2];
    if (read(g->fd, cs, 2) != 2)
        return -1;
    buf[n] = 0;
    if (write(g->fd, "+", 1) != 1)
        return -1;
    return (int)n;
}

static arm_cpu *core(gdbstub *g, int i)
{
    return arm_sys_cpu(machine_cpus(g->m), i);
}

/* Host pointer for a debugger address; see gdbstub.h. */
static uint8_t *mem(gdbstub *g, uint32_t addr, uint32_t len)
{
    if (addr >= g->page_offset)
        addr = addr - g->page_offset + MACH_RAM;
    return phys_ram_ptr(machine_phys(g->m), addr, len);
}

static void put_hex32(char *out, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        sprintf(out + 2 * i, "%02x", (v >> 8 * i) & 0xff);
}

static uint32_t get_hex32(const char *s)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++)
        v |= (uint32_t)(hexval(s[2 * i]) << 4 | hexval(s[2 * i + 1])) << 8 * i;
    return v;
}

static int step_hook(void *opaque, int c)
{
    gdbstub *g = opaque;
    if (g->stepping && c == g->step_core) {
        g->stop_core = c;
        return 1;
    }
    uint32_t pc = arm_get_reg(core(g, c), 15);
    for (int i = 0; i < g->nbp; i++)
        if (g->bp[i] == pc) {
            g->stop_core = c;
            return 1;
        }
    return 0;
}

static void report_stop(gdbstub *g, int sig)
{
    char buf[64];
    g->cur = g->stop_core >= 0 ? g->stop_core : g->cur;
    snprintf(buf, sizeof(buf), "T%02xthread:%x;", sig, g->cur + 1);
    send_pkt(g, buf);
}

static void resume(gdbstub *g, int step, int c)
{
    vt_engine *t = machine_engine(g->m);
    g->stepping = step;
    g->step_core = c;
    g->stop_core = -1;
    g->running = 1;
    vt_set_step_hook(t, step || g->nbp ? step_hook : NULL, g);
    vt_resume(t);
}

static void read_memory(gdbstub *g, const char *args)
{
    uint32_t addr, len;
    char out[2 * PKT_MAX + 1];
    if (sscanf(args, "%x,%x", &addr, &len) != 2 || len > PKT_MAX) {
        send_pkt(g, "E01");
        return;
    }
    uint8_t *p = mem(g, addr, len);
    if (!p) {
        send_pkt(g, "E14");     /* EFAULT */
        return;
    }
    for (uint32_t i = 0; i < len; i++)
        sprintf(out + 2 * i, "%02x", p[i]);
    out[2 * len] = 0;
    send_pkt(g, out);
}

static void write_memory(gdbstub *g, const char *args)
{
    uint32_t addr, len;
    const char *colon = strchr(args, ':');
    if (sscanf(args, "%x,%x", &addr, &len) != 2 || !colon ||
        strlen(colon + 1) < 2 * (size_t)len) {
        send_pkt(g, "E01");
        return;
    }
    uint8_t *p = mem(g, addr, len);
    if (!p) {
        send_pkt(g, "E14");
        return;
    }
    for (uint32_t i = 0; i < len; i++)
        p[i] = (uint8_t)(hexval(colon[1 + 2 * i]) << 4 | hexval(colon[2 + 2 * i]));
    send_pkt(g, "OK");
}

static void breakpoint(gdbstub *g, const char *pkt)
{
    uint32_t addr;
    int type;
    if (sscanf(pkt + 1, "%d,%x", &type, &addr) != 2 || type > 1) {
        send_pkt(g, "");        /* watchpoints: not supported */
        return;
    }
    int found = -1;
    for (int i = 0; i < g->nbp; i++)
        if (g->bp[i] == addr)
            found = i;
    if (pkt[0] == 'Z' && found < 0) {
        if (g->nbp == MAX_BP) {
            send_pkt(g, "E28");
            return;
        }
        g->bp[g->nbp++] = addr;
    } else if (pkt[0] == 'z' && found >= 0) {
        g->bp[found] = g->bp[--g->nbp];
    }
    send_pkt(g, "OK");
}

static void query(gdbstub *g, const char *pkt)
{
    char buf[PKT_MAX];
    int n = arm_sys_ncores(machine_cpus(g->m));
    if (!strncmp(pkt, "qSupported", 10)) {
        snprintf(buf, sizeof(buf), "PacketSize=%x;qXfer:features:read+;vContSupported+",
                 PKT_MAX);
        send_pkt(g, buf);
    } else if (!strncmp(pkt, XFER_TARGET, sizeof(XFER_TARGET) - 1)) {
        unsigned off, len;
        if (sscanf(pkt + sizeof(XFER_TARGET) - 1, "%x,%x", &off, &len) != 2) {
            send_pkt(g, "E01");
            return;
        }
        size_t total = sizeof(target_xml) - 1;
        if (off >= total) {
            send_pkt(g, "l");
            return;
        }
        size_t k = total - off < len ? total - off : len;
        if (k > sizeof(buf) - 2)
            k = sizeof(buf) - 2;
        buf[0] = off + k < total ? 'm' : 'l';
        memcpy(buf + 1, target_xml + off, k);
        buf[1 + k] = 0;
        send_pkt(g, buf);
    } else if (!strcmp(pkt, "qfThreadInfo")) {
        size_t k = (size_t)snprintf(buf, sizeof(buf), "m");
        for (int i = 0; i < n; i++)
            k += (size_t)snprintf(buf + k, sizeof(buf) - k, "%s%x", i ? "," : "", i + 1);
        send_pkt(g, buf);
    } else if (!strcmp(pkt, "qsThreadInfo")) {
        send_pkt(g, "l");
    } else if (!strcmp(pkt, "qC")) {
        snprintf(buf, sizeof(buf), "QC%x", g->cur + 1);
        send_pkt(g, buf);
    } else if (!strcmp(pkt, "qAttached")) {
        send_pkt(g, "1");
    } else {
        send_pkt(g, "");
    }
}

/* Thread id from a packet: 0 or -1 mean any; otherwise core + 1. */
static int thread_core(gdbstub *g, const char *s)
{
    long t = strtol(s, NULL, 16);
    int n = arm_sys_ncores(machine_cpus(g->m));
    return t <= 0 || t > n ? -1 : (int)t - 1;
}

/* vCont;c, vCont;s:TID, possibly with several actions: a step action
 * steps its thread, anything else continues. */
static int vcont(gdbstub *g, const char *pkt)
{
    if (!strcmp(pkt, "vCont?")) {
        send_pkt(g, "vCont;c;C;s;S");
        return 0;
    }
    const char *s = strstr(pkt, ";s");
    if (!s)
        s = strstr(pkt, ";S");
    if (s) {
        const char *colon = strchr(s, ':');
        int c = colon ? thread_core(g, colon + 1) : -1;
        resume(g, 1, c < 0 ? g->cur : c);
    } else {
        resume(g, 0, 0);
    }
    return 1;
}

/* Serves packets until gdb resumes the machine (1), kills it (-1). */
static int serve(gdbstub *g)
{
    char pkt[2 * PKT_MAX + 64], buf[PKT_MAX];
    for (;;) {
        int n = recv_pkt(g, pkt, sizeof(pkt));
        if (n == -1)
            return -1;
        if (n == -2)
            continue;           /* already stopped */
        arm_cpu *c = core(g, g->cur);
        switch (pkt[0]) {
        case '?':
            report_stop(g, 5);
            break;
        case 'g': {
            arm_regs r;
            arm_get_regs(c, &r);
            for (int i = 0; i < 16; i++)
                put_hex32(buf + 8 * i, r.r[i]);
            put_hex32(buf + 128, r.cpsr);
            buf[136] = 0;
            send_pkt(g, buf);
            break;
        }
        case 'G':               /* r0..r15, cpsr */
            if (strlen(pkt + 1) < 136) {
                send_pkt(g, "E01");
                break;
            }
            for (int i = 0; i < 16; i++)
                arm_set_reg(c, i, get_hex32(pkt + 1 + 8 * i));
            arm_set_cpsr(c, get_hex32(pkt + 1 + 128));
            send_pkt(g, "OK");
            break;
        case 'p': {
            unsigned k = (unsigned)strtoul(pkt + 1, NULL, 16);
            arm_regs r;
            arm_get_regs(c, &r);
            if (k > 16) {
                send_pkt(g, "E01");
                break;
            }
            put_hex32(buf, k == 16 ? r.cpsr : r.r[k]);
            buf[8] = 0;
            send_pkt(g, buf);
            break;
        }
        case 'P': {
            unsigned k = (unsigned)strtoul(pkt + 1, NULL, 16);
            const char *eq = strchr(pkt, '=');
            if (k > 16 || !eq || strlen(eq + 1) < 8) {
                send_pkt(g, "E01");
                break;
            }
            if (k == 16)
                arm_set_cpsr(c, get_hex32(eq + 1));
            else
                arm_set_reg(c, (int)k, get_hex32(eq + 1));
            send_pkt(g, "OK");
            break;
        }
        case 'm': read_memory(g, pkt + 1); break;
        case 'M': write_memory(g, pkt + 1); break;
        case 'Z': case 'z': breakpoint(g, pkt); break;
        case 'q': query(g, pkt); break;
        case 'H': {
            int k = thread_core(g, pkt + 2);
            if (pkt[1] == 'g' && k >= 0)
                g->cur = k;
            send_pkt(g, "OK");
            break;
        }
        case 'T':
            send_pkt(g, thread_core(g, pkt + 1) >= 0 ? "OK" : "E01");
            break;
        case 'c': resume(g, 0, 0); return 1;
        case 's': resume(g, 1, g->cur); return 1;
        case 'v':
            if (!strncmp(pkt, "vCont", 5)) {
                if (vcont(g, pkt))
                    return 1;
            } else {
                send_pkt(g, "");
            }
            break;
        case 'D':
            send_pkt(g, "OK");
            g->nbp = 0;
            resume(g, 0, 0);
            return 1;
        case 'k':
            return -1;
        default:
            send_pkt(g, "");
            break;
        }
    }
}

gdbstub *gdbstub_new(machine *m, int port, uint32_t page_offset, struct pl_error *err)
{
    int ls = socket(AF_INET, SOCK_STREAM, 0), one = 1;
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    if (ls < 0 || setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) < 0 ||
        bind(ls, (struct sockaddr *)&a, sizeof(a)) < 0 || listen(ls, 1) < 0) {
        pl_error_set(err, "--gdb %d: %s", port, strerror(errno));
        if (ls >= 0)
            close(ls);
        return NULL;
    }
    fprintf(stderr, "panlab-phone: waiting for gdb on localhost:%d\n", port);
    int fd = accept(ls, NULL, NULL);
    close(ls);
    if (fd < 0) {
        pl_error_set(err, "--gdb %d: accept: %s", port, strerror(errno));
        return NULL;
    }
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    gdbstub *g = calloc(1, sizeof(*g));
    if (!g) {
        close(fd);
        pl_error_set(err, "--gdb: out of memory");
        return NULL;
    }
    g->m = m;
    g->fd = fd;
    g->page_offset = page_offset;
    g->stop_core = -1;
    return g;
}

void gdbstub_free(gdbstub *g)
{
    if (!g)
        return;
    vt_set_step_hook(machine_engine(g->m), NULL, NULL);
    close(g->fd);
    free(g);
}

int gdbstub_poll(gdbstub *g)
{
    int sig = 0;
    if (g->running) {
        if (g->stop_core >= 0) {
            sig = 5;            /* SIGTRAP: breakpoint or step */
        } else {
            struct pollfd p = { .fd = g->fd, .events = POLLIN };
            char c;
            if (poll(&p, 1, 0) == 1) {
                if (read(g->fd, &c, 1) != 1)
                    return -1;
                if (c == 3)
                    sig = 2;    /* SIGINT */
            }
        }
        if (!sig)
            return 0;
        g->running = 0;
        vt_set_step_hook(machine_engine(g->m), NULL, NULL);
        report_stop(g, sig);
    }
    return serve(g) < 0 ? -1 : 0;
}
