/* panlab-phone: the phone emulator's command line and run loop.
 *
 * Host time is read only here, to report speed; the simulation itself
 * never sees it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/resource.h>
#include "machine.h"
#include "loader.h"
#include "replay.h"
#include "host/gdbstub.h"
#include "host/slirp_net.h"
#include "host/screenshot.h"
#include "host/snapshot.h"
#include "host/sdl_display.h"
#include "panlab/replay.h"

#define ERR_LEN 512
/* The run loop checks for the end of the run this often (virtual). */
#define CHECK_NS 10000000ull
/* After a panic message, how long the guest may keep printing. */
#define PANIC_GRACE_NS 200000000ull

static const char *prog = "panlab-phone";
/* The guest kernel's linear map starts here (CONFIG_VMSPLIT_3G) and maps
 * the start of RAM. */
#define GUEST_PAGE_OFFSET 0xc0000000u

static void usage(FILE *f)
{
    fprintf(f,
        "usage: %s --kernel zImage [--initrd FILE] [--append CMDLINE]\n"
        "       [--dtb FILE | --dtb-out FILE] [--console FILE] [--port NAME=FILE]\n"
        "       [--replay SCRIPT] [--ground-truth FILE] [--system-map FILE]\n"
        "       [--disk IMAGE] [--net user [--pcap FILE] [--content-dir DIR]]\n"
        "       [--display none|sdl] [--screenshot FILE.png] [--gdb PORT]\n"
        "       [--max-virtual-s N] [--hang-s N] [--cpu-mhz N] [--quantum-us N]\n"
        "       [--quantum-policy causal|fixed]\n"
        "       [--snapshot-save FILE] [--snapshot-load FILE] [--config 'ARGS']\n"
        "--snapshot-load replaces --kernel, --initrd, --append and --dtb.\n",
        prog);
}

static void die(const char *fmt, const char *a, const char *b)
{
    fprintf(stderr, "%s: ", prog);
    fprintf(stderr, fmt, a, b);
    fputc('\n', stderr);
    exit(1);
}

/* The console: bytes go to a file; lines are watched for a panic. */
typedef struct console {
    FILE *f;
    vt_engine *vt;
    uint64_t last_output_ns;
    char line[256];
    size_t len;
    char panic[256];
    uint64_t panic_ns;
    uint64_t init_ns;           /* when the kernel started /init */
    double init_host_s;
} console;

static double host_s(void);

static void console_put(void *opaque, const uint8_t *buf, size_t n)
{
    console *c = opaque;
    fwrite(buf, 1, n, c->f);
    c->last_output_ns = vt_now_ns(c->vt);
    for (size_t i = 0; i < n; i++) {
        if (buf[i] != '\n' && c->len < sizeof(c->line) - 1) {
            if (buf[i] != '\r')
                c->line[c->len++] = (char)buf[i];
            continue;
        }
        c->line[c->len] = 0;
        if (!c->init_ns && strstr(c->line, "Run /init as init process")) {
            c->init_ns = c->last_output_ns;
            c->init_host_s = host_s();
        }
        if (!c->panic[0] && strstr(c->line, "Kernel panic")) {
            snprintf(c->panic, sizeof(c->panic), "%s", c->line);
            c->panic_ns = c->last_output_ns;
        }
        c->len = 0;
    }
}

/* A virtio-console port's output file; output counts as progress. */
typedef struct port_file {
    FILE *f;
    console *con;
    phone_replay *watch;        /* panlab.input: the guest says "ready" */
    int *asked;                 /* panlab.config: set at the end of a line */
} port_file;

static void port_put(void *opaque, const uint8_t *buf, size_t n)
{
    port_file *p = opaque;
    if (p->f)
        fwrite(buf, 1, n, p->f);
    if (p->watch)
        phone_replay_port(p->watch, buf, n);
    if (p->asked && memchr(buf, '\n', n))
        *p->asked = 1;
    p->con->last_output_ns = vt_now_ns(p->con->vt);
}

/* With panlab.wait_config=1 the guest's /init writes a line on this port
 * once it has booted, then reads its experiment configuration (panlab.*
 * arguments, as on the kernel command line) from it. That is the snapshot
 * point: a matrix of experiments boots once and restores from there. */
#define CONFIG_PORT "panlab.config"

/* The ports the panlab guest looks for; --port adds others. */
static const char *const default_ports[] = {
    "panlab.trace", "panlab.input", "panlab.display",
};

/* Where scanout frames go: ground truth, the window, the last frame kept
 * for a screenshot. */
typedef struct frames {
    console *con;               /* a new frame counts as progress */
    phone_replay *truth;
    sdl_display *sdl;
    uint8_t *last;
    uint32_t w, h;
} frames;

static void frame_shown(void *opaque, uint64_t ns, const uint8_t *px,
                        uint32_t w, uint32_t h)
{
    frames *f = opaque;
    f->con->last_output_ns = ns;
    if (f->truth)
        phone_replay_frame(f->truth, ns, px, w, h);
    if (f->sdl)
        sdl_display_show(f->sdl, px, w, h);
    if (f->last && w == f->w && h == f->h)
        memcpy(f->last, px, (size_t)w * h * 4);
}

static void net_forward(void *opaque, const uint8_t *frame, size_t len)
{
    slirp_net **net = opaque;
    slirp_net_from_guest(*net, frame, len);
}

/* A kernel built in tree leaves System.map three levels above
 * arch/arm/boot/zImage; returns that path if the file exists, or NULL. */
static char *system_map_beside(const char *kernel)
{
    static const char tail[] = "arch/arm/boot/zImage";
    size_t n = strlen(kernel), t = sizeof(tail) - 1;
    if (n < t || strcmp(kernel + n - t, tail) != 0)
        return NULL;
    char *p = malloc(n - t + sizeof("System.map"));
    if (!p)
        return NULL;
    memcpy(p, kernel, n - t);
    strcpy(p + n - t, "System.map");
    if (access(p, R_OK) != 0) {
        free(p);
        return NULL;
    }
    return p;
}

static void send_config(machine *m, const char *config)
{
    char line[VCON_INPUT_BYTES];
    int n = snprintf(line, sizeof(line), "%s\n", config);
    if (virtio_console_send(machine_console(m), CONFIG_PORT, (const uint8_t *)line,
                            (size_t)n) < 0)
        die("%s%s", "--config: the guest's configuration did not fit the "
            CONFIG_PORT " port", "");
}

static uint64_t parse_u64(const char *opt, const char *v, uint64_t max)
{
    char *end;
    errno = 0;
    unsigned long long x = strtoull(v, &end, 10);
    if (!*v || *end || errno || x > max || v[0] == '-') {
        fprintf(stderr, "%s: %s takes a whole number up to %llu, got '%s'\n",
                prog, opt, (unsigned long long)max, v);
        exit(2);
    }
    return x;
}

static double cpu_s(void)
{
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
           (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

static double host_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
    const char *kernel = NULL, *initrd = NULL, *append = "", *dtb_in = NULL,
               *dtb_out = NULL, *console_path = NULL, *replay_path = NULL,
               *gt_path = NULL, *system_map = NULL, *shot_path = NULL,
               *disk_path = NULL, *pcap_path = NULL, *content_dir = NULL,
               *snap_save = NULL, *snap_load = NULL, *config = NULL;
    double start_s = host_s();
    int want_net = 0;
    int want_sdl = 0;
    int quantum_policy = VT_CAUSAL;
    uint64_t max_s = 3600, hang_s = 60, cpu_mhz = 1200, gdb_port = 0,
             quantum_us = 0;
    const char *port_name[MACH_MAX_PORTS], *port_path[MACH_MAX_PORTS] = { 0 };
    int nports = 3;
    for (int i = 0; i < nports; i++)
        port_name[i] = default_ports[i];
    for (int i = 1; i < argc; i++) {
        const char *o = argv[i];
        if (!strcmp(o, "--help") || !strcmp(o, "-h")) {
            usage(stdout);
            return 0;
        }
        if (strncmp(o, "--", 2) != 0) {
            fprintf(stderr, "%s: unexpected argument '%s'\n", prog, o);
            return 2;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "%s: option '%s' needs a value\n", prog, o);
            return 2;
        }
        const char *v = argv[++i];
        if (!strcmp(o, "--kernel")) kernel = v;
        else if (!strcmp(o, "--initrd")) initrd = v;
        else if (!strcmp(o, "--append")) append = v;
        else if (!strcmp(o, "--dtb")) dtb_in = v;
        else if (!strcmp(o, "--dtb-out")) dtb_out = v;
        else if (!strcmp(o, "--console")) console_path = v;
        else if (!strcmp(o, "--replay")) replay_path = v;
        else if (!strcmp(o, "--ground-truth")) gt_path = v;
        else if (!strcmp(o, "--system-map")) system_map = v;
        else if (!strcmp(o, "--screenshot")) shot_path = v;
        else if (!strcmp(o, "--disk")) disk_path = v;
        else if (!strcmp(o, "--pcap")) pcap_path = v;
        else if (!strcmp(o, "--content-dir")) content_dir = v;
        else if (!strcmp(o, "--snapshot-save")) snap_save = v;
        else if (!strcmp(o, "--snapshot-load")) snap_load = v;
        else if (!strcmp(o, "--config")) {
            if (strchr(v, '\n') || strlen(v) > VCON_INPUT_BYTES - 2) {
                fprintf(stderr, "%s: --config takes one line of at most %d "
                        "bytes\n", prog, VCON_INPUT_BYTES - 2);
                return 2;
            }
            config = v;
        }
        else if (!strcmp(o, "--net")) {
            if (strcmp(v, "user")) {
                fprintf(stderr, "%s: --net takes user, got '%s'\n", prog, v);
                return 2;
            }
            want_net = 1;
        }
        else if (!strcmp(o, "--gdb")) gdb_port = parse_u64(o, v, 65535);
        else if (!strcmp(o, "--display")) {
            if (strcmp(v, "sdl") && strcmp(v, "none")) {
                fprintf(stderr, "%s: --display takes none or sdl, got '%s'\n", prog, v);
                return 2;
            }
            want_sdl = !strcmp(v, "sdl");
        }
        else if (!strcmp(o, "--port")) {
            const char *eq = strchr(v, '=');
            if (!eq || eq == v || !eq[1]) {
                fprintf(stderr, "%s: --port takes NAME=FILE, got '%s'\n", prog, v);
                return 2;
            }
            int k = 0;
            while (k < nports && (strlen(port_name[k]) != (size_t)(eq - v) ||
                                  strncmp(port_name[k], v, (size_t)(eq - v))))
                k++;
            if (k == MACH_MAX_PORTS) {
                fprintf(stderr, "%s: --port '%s': at most %d ports\n", prog,
                        v, MACH_MAX_PORTS);
                return 2;
            }
            if (k == nports)
                port_name[nports++] = strndup(v, (size_t)(eq - v));
            port_path[k] = eq + 1;
        }
        else if (!strcmp(o, "--max-virtual-s")) max_s = parse_u64(o, v, 1000000);
        else if (!strcmp(o, "--hang-s")) hang_s = parse_u64(o, v, 1000000);
        else if (!strcmp(o, "--cpu-mhz")) cpu_mhz = parse_u64(o, v, 4000);
        else if (!strcmp(o, "--quantum-us")) quantum_us = parse_u64(o, v, 100000);
        else if (!strcmp(o, "--quantum-policy")) {
            if (strcmp(v, "causal") && strcmp(v, "fixed")) {
                fprintf(stderr, "%s: --quantum-policy '%s', expected causal or "
                        "fixed\n", prog, v);
                return 2;
            }
            quantum_policy = strcmp(v, "causal") ? VT_FIXED_QUANTUM : VT_CAUSAL;
        }
        else {
            fprintf(stderr, "%s: unknown option '%s' (see --help)\n", prog, o);
            return 2;
        }
    }
    if (!kernel && !snap_load) {
        fprintf(stderr, "%s: --kernel is required (see --help)\n", prog);
        return 2;
    }
    if (snap_load && (kernel || initrd || dtb_in || dtb_out || *append ||
                      snap_save)) {
        fprintf(stderr, "%s: --snapshot-load restores a booted machine; it "
                "takes no --kernel, --initrd, --dtb, --dtb-out, --append or "
                "--snapshot-save\n", prog);
        return 2;
    }
    if (snap_load && !config) {
        fprintf(stderr, "%s: --snapshot-load needs --config 'ARGS' for the "
                "restored guest\n", prog);
        return 2;
    }
    if (cpu_mhz == 0 || max_s == 0 || hang_s == 0) {
        fprintf(stderr, "%s: --cpu-mhz, --max-virtual-s and --hang-s must be "
                "above 0\n", prog);
        return 2;
    }

    int config_asked = 0;
    if (snap_save || snap_load || config) {
        int k = 0;
        while (k < nports && strcmp(port_name[k], CONFIG_PORT))
            k++;
        if (k == MACH_MAX_PORTS) {
            fprintf(stderr, "%s: no room for the %s port (at most %d ports)\n",
                    prog, CONFIG_PORT, MACH_MAX_PORTS);
            return 2;
        }
        if (k == nports)
            port_name[nports++] = CONFIG_PORT;
    }

    if ((pcap_path || content_dir) && !want_net) {
        fprintf(stderr, "%s: --pcap and --content-dir need --net user\n", prog);
        return 2;
    }
    if (replay_path && !gt_path) {
        fprintf(stderr, "%s: --replay needs --ground-truth FILE\n", prog);
        return 2;
    }

    char err[ERR_LEN];
    struct pl_script *script = NULL;
    if (replay_path && pl_script_parse_file(replay_path, &script, err, sizeof(err)) < 0)
        die("%s%s", err, "");
    uint8_t *kimg = NULL, *rd = NULL, *dtb = NULL;
    size_t kbytes = 0, rdbytes = 0, dtbbytes = 0;
    if ((kernel && loader_read_zimage(kernel, &kimg, &kbytes, err, sizeof(err)) < 0) ||
        (initrd && loader_read_initrd(initrd, &rd, &rdbytes, err, sizeof(err)) < 0) ||
        (dtb_in && loader_read_dtb(dtb_in, &dtb, &dtbbytes, err, sizeof(err)) < 0))
        die("%s%s", err, "");

    console con = { .f = stdout };
    if (console_path && !(con.f = fopen(console_path, "wb")))
        die("%s: cannot create: %s", console_path, strerror(errno));

    uint16_t keys[256];
    for (size_t i = 0; i < pl_key_count() && i < 256; i++)
        keys[i] = pl_key_code_at(i);
    /* Ground truth is in the guest's clock whenever its System.map can be
     * found: given, or beside the zImage in its kernel build tree. */
    char *found_map = NULL;
    if (gt_path && !system_map && kernel)
        system_map = found_map = system_map_beside(kernel);
    FILE *gt = NULL;
    phone_replay *rp = NULL;
    guest_clock clk;
    if (gt_path) {
        if (!(gt = fopen(gt_path, "w")))
            die("%s: cannot create: %s", gt_path, strerror(errno));
        rp = phone_replay_new(script, gt, system_map ? &clk : NULL);
    }

    frames fr = { .con = &con, .truth = rp, .w = GPU_WIDTH_PX, .h = GPU_HEIGHT_PX };
    if (want_sdl && !(fr.sdl = sdl_display_new(fr.w, fr.h, err, sizeof(err))))
        die("%s%s", err, "");
    if (shot_path && !(fr.last = calloc((size_t)fr.w * fr.h, 4)))
        die("%s%s", "out of memory", "");

    machine_config cfg;
    machine_config_default(&cfg);
    cfg.display = (gpu_host){ &fr, frame_shown };
    if (rp)
        cfg.input = (input_host){ rp, phone_replay_delivered };
    if (disk_path && loader_open_disk(disk_path, &cfg.disk_fd,
                                      &cfg.disk_bytes, err, sizeof(err)) < 0)
        die("%s%s", err, "");
    cfg.keys = keys;
    slirp_net *net = NULL;
    cfg.nkeys = pl_key_count();
    cfg.cpu_hz = cpu_mhz * 1000000ull;
    if (quantum_us)
        cfg.quantum_ns = quantum_us * 1000ull;
    cfg.quantum_policy = quantum_policy;
    cfg.console = (byte_sink){ console_put, &con };
    port_file ports[MACH_MAX_PORTS];
    cfg.nports = nports;
    for (int i = 0; i < nports; i++) {
        ports[i] = (port_file){ NULL, &con, NULL, NULL };
        if (!strcmp(port_name[i], "panlab.input"))
            ports[i].watch = rp;
        if (!strcmp(port_name[i], CONFIG_PORT))
            ports[i].asked = &config_asked;
        if (port_path[i] && !(ports[i].f = fopen(port_path[i], "wb")))
            die("%s: cannot create: %s", port_path[i], strerror(errno));
        cfg.port_name[i] = port_name[i];
        cfg.port_out[i] = (byte_sink){ port_put, &ports[i] };
    }
    /* The network needs the engine, the NIC needs the network's callback:
     * the NIC is created with a forwarder bound once both exist. */
    if (want_net)
        cfg.net = (net_host){ &net, net_forward };
    machine *m = machine_new(&cfg);
    vt_engine *vt = machine_engine(m);
    if (want_net) {
        net_timing nt;
        net_timing_phone(&nt);
        if (!(net = slirp_net_new(vt, &nt, pcap_path, content_dir, err, sizeof(err))))
            die("%s%s", err, "");
        slirp_net_attach(net, machine_nic(m));
    }
    con.vt = vt;
    if (rp)
        phone_replay_attach(rp, vt, machine_input(m));
    if (system_map && guest_clock_init(&clk, machine_phys(m), system_map,
                                       GUEST_PAGE_OFFSET, MACH_RAM, err, sizeof(err)) < 0)
        die("%s%s", err, "");

    if (snap_load) {
        /* The restored guest is waiting for its configuration: it gets it
         * at once, at the instant the snapshot was taken. */
        if (snapshot_load(snap_load, m, net, err, sizeof(err)) < 0)
            die("%s%s", err, "");
        con.last_output_ns = vt_now_ns(vt);
        send_config(m, config);
        fprintf(stderr, "%s: restored %s at %.6f s of virtual time in %.3f s "
                "of host time (%.3f s CPU)\n", prog, snap_load,
                (double)vt_now_ns(vt) / 1e9, host_s() - start_s, cpu_s());
    } else {
        uint8_t *dtb_used;
        size_t dtb_used_bytes;
        if (machine_boot(m, kimg, kbytes, rd, rdbytes, dtb, dtbbytes, append,
                         &dtb_used, &dtb_used_bytes, err, sizeof(err)) < 0)
            die("%s%s", err, "");
        free(kimg);
        free(rd);
        free(dtb);
        if (dtb_out) {
            FILE *f = fopen(dtb_out, "wb");
            if (!f || fwrite(dtb_used, 1, dtb_used_bytes, f) != dtb_used_bytes ||
                fclose(f) != 0)
                die("%s: cannot write: %s", dtb_out, strerror(errno));
        }
        free(dtb_used);
    }

    gdbstub *gdb = NULL;
    if (gdb_port && !(gdb = gdbstub_new(m, (int)gdb_port, GUEST_PAGE_OFFSET, err,
                                        sizeof(err))))
        die("%s%s", err, "");

    double h0 = host_s(), c0 = cpu_s();
    uint64_t until = max_s * VT_NS_PER_S, hang_ns = hang_s * VT_NS_PER_S;
    int status = 0, saved_only = 0;
    for (;;) {
        if (gdb && gdbstub_poll(gdb) < 0) {
            fprintf(stderr, "%s: gdb killed the run or went away\n", prog);
            status = 1;
            break;
        }
        uint64_t now = vt_now_ns(vt);
        uint64_t next = now + CHECK_NS < until ? now + CHECK_NS : until;
        now = vt_run(vt, next);
        fflush(con.f);
        /* The guest asked for its configuration during that stretch; it
         * is idle, waiting. Snapshots are taken here, between runs. */
        if (config_asked == 1 && !snap_load) {
            config_asked = 2;
            if (snap_save) {
                double t0 = host_s();
                if (snapshot_save(snap_save, m, net, err, sizeof(err)) < 0)
                    die("%s%s", err, "");
                fprintf(stderr, "%s: saved %s at %.6f s of virtual time in "
                        "%.3f s of host time\n", prog, snap_save,
                        (double)now / 1e9, host_s() - t0);
            }
            if (!config) {
                saved_only = 1;
                break;
            }
            send_config(m, config);
        }
        if (fr.sdl && sdl_display_poll(fr.sdl)) {
            fprintf(stderr, "%s: display window closed\n", prog);
            status = 1;
            break;
        }
        for (int i = 0; i < nports; i++)
            if (ports[i].f)
                fflush(ports[i].f);
        if (machine_state(m) == MACHINE_OFF && !con.panic[0])
            break;
        if (machine_state(m) == MACHINE_RESET && !con.panic[0]) {
            fprintf(stderr, "%s: the guest reset the machine (a reboot ends "
                    "the run)\n", prog);
            status = 1;
            break;
        }
        if (con.panic[0] && (machine_state(m) != MACHINE_RUNNING ||
                             now >= con.panic_ns + PANIC_GRACE_NS)) {
            fprintf(stderr, "%s: guest kernel panic at %.6f s: %s\n", prog,
                    (double)con.panic_ns / 1e9, con.panic);
            status = 1;
            break;
        }
        if (now - con.last_output_ns >= hang_ns) {
            fprintf(stderr, "%s: the guest made no progress for %llu virtual "
                    "seconds (at %.3f s); stopping\n", prog,
                    (unsigned long long)hang_s, (double)now / 1e9);
            status = 1;
            break;
        }
        if (now >= until) {
            fprintf(stderr, "%s: the guest was still running after "
                    "--max-virtual-s %llu\n", prog, (unsigned long long)max_s);
            status = 1;
            break;
        }
    }
    if (!status && snap_save && !config_asked) {
        fprintf(stderr, "%s: --snapshot-save: the guest never asked for its "
                "configuration (boot it with panlab.wait_config=1)\n", prog);
        status = 1;
    }
    if (!status && !saved_only && script && !phone_replay_done(rp)) {
        fprintf(stderr, "%s: the guest stopped before the replay script "
                "ended (%s)\n", prog, replay_path);
        status = 1;
    }
    gdbstub_free(gdb);
    double host = host_s() - h0;
    if (con.init_ns)
        fprintf(stderr, "%s: /init started at %.6f s of virtual time, %.2f s "
                "of host time\n", prog, (double)con.init_ns / 1e9,
                con.init_host_s - h0);
    uint64_t insns = 0;
    for (int i = 0; i < arm_sys_ncores(machine_cpus(m)); i++)
        insns += arm_insn_count(arm_sys_cpu(machine_cpus(m), i));
    /* MIPS per host CPU second, as emu/cpu's bench counts them: on a
     * shared host the wall clock mostly measures the other tenants. */
    double cpu = cpu_s() - c0;
    fprintf(stderr, "%s: %s at %.6f s of virtual time; %.2f s of host time "
            "(%.2f s CPU); %.1f MIPS\n", prog,
            machine_state(m) == MACHINE_RESET ? "guest reset" :
            machine_state(m) == MACHINE_OFF ? "guest powered off" : "stopped",
            (double)vt_now_ns(vt) / 1e9, host, cpu,
            cpu > 0 ? (double)insns / cpu / 1e6 : 0.0);
    fprintf(stderr, "%s: %llu windows ended early for cross-core causality\n",
            prog, (unsigned long long)vt_cross_core_cuts(vt));
    /* A failed run shows where each core was. */
    for (int i = 0; status && i < arm_sys_ncores(machine_cpus(m)); i++) {
        fprintf(stderr, "core %d:\n", i);
        arm_dump(arm_sys_cpu(machine_cpus(m), i), stderr);
    }
    if (con.f != stdout)
        fclose(con.f);
    if (gt && fclose(gt) != 0)
        die("%s: cannot write: %s", gt_path, strerror(errno));
    phone_replay_free(rp);
    pl_script_free(script);
    free(found_map);
    if (shot_path && screenshot_png(shot_path, fr.last, fr.w, fr.h, err,
                                    sizeof(err)) < 0)
        die("%s%s", err, "");
    free(fr.last);
    sdl_display_free(fr.sdl);
    for (int i = 0; i < nports; i++)
        if (ports[i].f && fclose(ports[i].f) != 0)
            die("%s: cannot write: %s", port_path[i], strerror(errno));
    slirp_net_free(net);
    machine_free(m);
    if (cfg.disk_fd >= 0)
        close(cfg.disk_fd);
    return status;
}
