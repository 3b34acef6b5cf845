/* One run of the phone; see run.h.
 *
 * Host time is read only here and in the console watch, to report speed;
 * the simulation itself never sees it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "run.h"
#include "guest.h"
#include "panlab/guest_abi.h"
#include "handshake.h"
#include "loader.h"
#include "replay.h"
#include "host/gdbstub.h"
#include "host/host_clock.h"
#include "host/screenshot.h"
#include "host/sdl_display.h"
#include "host/slirp_net.h"
#include "panlab/replay.h"
#include "panlab/error.h"

/* The run loop checks for the end of the run this often (virtual). */
#define CHECK_NS 10000000ull
/* After a panic message, how long the guest may keep printing. */
#define PANIC_GRACE_NS 200000000ull

static const char prog[] = "panlab-phone";

/* A failed run: one line, exit status 1. */
static void die(const struct pl_error *err) __attribute__((noreturn));
static void die(const struct pl_error *err)
{
    pl_error_exit(prog, err, PL_EXIT_FAILED);
}

/* A file that could not be created or written. */
static void die_file(const char *path, const char *what) __attribute__((noreturn));
static void die_file(const char *path, const char *what)
{
    struct pl_error err;
    pl_error_file(&err, path, "%s: %s", what, strerror(errno));
    die(&err);
}

/* Where scanout frames go: ground truth, the window, the last frame kept
 * for a screenshot. */
typedef struct frames {
    console_watch *con;         /* a new frame counts as progress */
    phone_replay *truth;
    sdl_display *sdl;
    uint8_t *last;
    uint32_t w, h;
} frames;

static void frame_shown(void *opaque, uint64_t ns, const uint8_t *px,
                        uint32_t w, uint32_t h)
{
    frames *f = opaque;
    console_watch_progress(f->con, ns);
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

static void input_port(void *opaque, const uint8_t *buf, size_t n)
{
    phone_replay_port(opaque, buf, n);
}

/* Returns System.map beside an in-tree kernel build's zImage if it exists
 * (malloc'd), or NULL. */
static char *system_map_beside(const char *kernel)
{
    static const char tail[] = GUEST_ZIMAGE_TAIL;
    size_t n = strlen(kernel), t = sizeof(tail) - 1;
    if (n < t || strcmp(kernel + n - t, tail) != 0)
        return NULL;
    char *p = malloc(n - t + sizeof(GUEST_SYSTEM_MAP));
    if (!p)
        return NULL;
    memcpy(p, kernel, n - t);
    strcpy(p + n - t, GUEST_SYSTEM_MAP);
    if (access(p, R_OK) != 0) {
        free(p);
        return NULL;
    }
    return p;
}

/* Whether path can be created or overwritten, without creating it. */
static int writable(const char *path)
{
    if (access(path, F_OK) == 0)
        return access(path, W_OK) == 0;
    char *dir = pl_xcalloc(strlen(path) + 2, 1);
    strcpy(dir, path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        strcpy(dir, ".");
    else
        slash[slash == dir] = 0;
    int ok = access(dir, W_OK) == 0;
    free(dir);
    if (!ok && errno == 0)
        errno = EACCES;
    return ok;
}

/* Everything a run holds. */
typedef struct phone {
    const phone_options *o;
    struct pl_script *script;
    loader_kernel kernel;
    uint8_t *rd, *dtb;
    size_t rdbytes, dtbbytes;
    console_watch con;
    uint16_t keys[256];
    char *found_map;
    const char *system_map;
    FILE *gt, *cpu;
    phone_replay *rp;
    guest_clock clk;
    frames fr;
    machine_config cfg;
    port_files ports;
    handshake hs;
    slirp_net *net;
    machine *m;
    vt_engine *vt;
    gdbstub *gdb;
    double start_s;
    int saved_only;             /* the run ended at the snapshot point */
    uint64_t seen_output_ns;    /* the guest's last progress, when the host guard saw it */
    uint64_t seen_returns;      /* exception returns on all cores then */
    double seen_cpu_s;          /* host_cpu_s() then */
} phone;

/* The console's name in errors: its file, or stdout. */
static const char *console_name(const phone *p)
{
    return p->o->console_path ? p->o->console_path : "stdout";
}

/* Reads the inputs and opens the outputs, in the order the options name
 * them, before the machine exists. */
static void open_host_side(phone *p, struct pl_error *err)
{
    const phone_options *o = p->o;
    if (o->replay_path &&
        pl_script_parse_file(o->replay_path, &p->script, err) < 0)
        die(err);
    /* Script times count from the app's ready, after boot: a script longer
     * than the whole run can never end, so it is refused before booting. */
    if (p->script && pl_script_duration_ns(p->script) > o->max_s * VT_NS_PER_S) {
        char d[32];
        pl_format_duration(d, sizeof(d), pl_script_duration_ns(p->script));
        pl_error_file(err, o->replay_path, "the script lasts %s, longer than "
                      "--max-virtual-s %llu, expected a script that ends within "
                      "the run", d, (unsigned long long)o->max_s);
        die(err);
    }
    if ((o->kernel && loader_read_kernel(o->kernel, &p->kernel, err) < 0) ||
        (o->initrd &&
         loader_read_initrd(o->initrd, &p->rd, &p->rdbytes, err) < 0) ||
        (o->dtb_in &&
         loader_read_dtb(o->dtb_in, &p->dtb, &p->dtbbytes, err) < 0))
        die(err);

    /* Output paths written only at the end are checked now, not after the run. */
    if (o->snap_save && !writable(o->snap_save))
        die_file(o->snap_save, "cannot create");
    if (o->shot_path && !writable(o->shot_path))
        die_file(o->shot_path, "--screenshot: cannot create");
    p->con.f = stdout;
    if (o->console_path && !(p->con.f = fopen(o->console_path, "wb")))
        die_file(o->console_path, "cannot create");

    for (size_t i = 0; i < pl_key_count() && i < 256; i++)
        p->keys[i] = pl_key_code_at(i);
    /* Ground truth is in the guest's clock whenever its System.map can be
     * found: given, or beside the zImage in its kernel build tree. */
    p->system_map = o->system_map;
    if (o->gt_path && !p->system_map && o->kernel)
        p->system_map = p->found_map = system_map_beside(o->kernel);
    if (o->gt_path) {
        if (!(p->gt = fopen(o->gt_path, "w")))
            die_file(o->gt_path, "cannot create");
        /* Line by line: a few lines per virtual second, and a reader
         * (experiment.sh's progress) sees each input as it happens. */
        setvbuf(p->gt, NULL, _IOLBF, 0);
        p->rp = phone_replay_new(p->script, p->gt, p->system_map ? &p->clk : NULL);
    }
    if (o->cpu_path) {
        if (!(p->cpu = fopen(o->cpu_path, "w")))
            die_file(o->cpu_path, "cannot create");
        phone_replay_cpu_time(p->rp, p->cpu);
    }

    p->fr = (frames){ .con = &p->con, .truth = p->rp, .w = GPU_WIDTH_PX,
                      .h = GPU_HEIGHT_PX };
    if (o->want_sdl && !(p->fr.sdl = sdl_display_new(p->fr.w, p->fr.h, err)))
        die(err);
    if (o->shot_path)
        p->fr.last = pl_xcalloc((size_t)p->fr.w * p->fr.h, 4);
}

/* The machine and what hangs on it: disk, ports, network, replay, clock. */
static void build_machine(phone *p, struct pl_error *err)
{
    const phone_options *o = p->o;
    machine_config *cfg = &p->cfg;
    machine_config_default(cfg);
    cfg->display = (gpu_host){ &p->fr, frame_shown };
    if (p->rp)
        cfg->input = (input_host){ p->rp, phone_replay_delivered };
    if (o->disk_path && loader_open_disk(o->disk_path, &cfg->disk_fd,
                                         &cfg->disk_bytes, err) < 0)
        die(err);
    cfg->keys = p->keys;
    cfg->nkeys = pl_key_count();
    cfg->cpu_hz = o->cpu_mhz * 1000000ull;
    if (o->quantum_us)
        cfg->quantum_ns = o->quantum_us * 1000ull;
    cfg->quantum_policy = o->quantum_policy;
    cfg->console = (byte_sink){ console_watch_put, &p->con };
    if (port_files_open(&p->ports, &o->ports, &p->con, cfg, err) < 0)
        die(err);
    if (p->rp)
        port_files_tap(&p->ports, &o->ports, PL_PORT_INPUT,
                       (byte_sink){ input_port, p->rp });
    port_files_tap(&p->ports, &o->ports, PL_PORT_CONFIG,
                   (byte_sink){ handshake_port, &p->hs });
    /* The network needs the engine, the NIC needs the network's callback:
     * the NIC is created with a forwarder bound once both exist. */
    if (o->want_net)
        cfg->net = (net_host){ &p->net, net_forward };
    if (!(p->m = machine_new(cfg, err)))
        die(err);
    if (arm_set_engine(machine_cpus(p->m), o->engine) < 0) {
        struct pl_error e;
        pl_error_set(&e, "--engine: this engine is not built for this host");
        die(&e);
    }
    p->vt = machine_engine(p->m);
    if (o->want_net) {
        net_timing nt;
        net_timing_profile(&nt, o->net_profile);
        if (!(p->net = slirp_net_new(p->vt, &nt, o->pcap_path, o->content_dir,
                                     err)))
            die(err);
        slirp_net_attach(p->net, machine_nic(p->m));
    }
    p->con.vt = p->vt;
    if (p->rp)
        phone_replay_attach(p->rp, p->vt, machine_input(p->m));
    if (p->system_map &&
        guest_clock_init(&p->clk, machine_phys(p->m), p->system_map,
                         GUEST_PAGE_OFFSET, MACH_RAM, err) < 0)
        die(err);
}

/* Restores the snapshot, or boots the images. */
static void start_guest(phone *p, struct pl_error *err)
{
    const phone_options *o = p->o;
    if (o->snap_load) {
        /* A snapshot of another build, or of a kernel other than the map's, is
         * refused with its own status: the caller may boot cold instead. */
        if (handshake_restore(&p->hs, o->snap_load, p->m, p->net, err) < 0)
            pl_error_exit(prog, err,
                          p->hs.refused ? PL_EXIT_SNAPSHOT_REFUSED
                                        : PL_EXIT_FAILED);
        if (p->system_map && guest_clock_check(&p->clk, NULL, 0, err) < 0)
            pl_error_exit(prog, err, PL_EXIT_SNAPSHOT_REFUSED);
        console_watch_progress(&p->con, vt_now_ns(p->vt));
        fprintf(stderr, "%s: restored %s at %.6f s of virtual time in %.3f s "
                "of host time (%.3f s CPU)\n", prog, o->snap_load,
                (double)vt_now_ns(p->vt) / 1e9, host_now_s() - p->start_s,
                host_cpu_s());
    } else {
        uint8_t *dtb_used;
        size_t dtb_used_bytes;
        if (p->dtb && machine_check_dtb(p->m, o->dtb_in, p->dtb, err) < 0)
            die(err);
        /* Ground truth in the guest's clock needs the map of this kernel. */
        if (p->system_map) {
            /* A raw Image is the kernel as it runs; so is an ELF's laid out. */
            uint8_t *image = p->kernel.data;
            size_t image_bytes = p->kernel.bytes;
            if ((p->kernel.kind == LOADER_ZIMAGE &&
                 loader_zimage_kernel(o->kernel, p->kernel.data,
                                      p->kernel.bytes, &image, &image_bytes,
                                      err) < 0) ||
                guest_clock_check(&p->clk, image, image_bytes, err) < 0)
                die(err);
            if (image != p->kernel.data)
                free(image);
        }
        if (machine_boot(p->m, &p->kernel, p->rd, p->rdbytes, p->dtb,
                         p->dtbbytes, o->append, &dtb_used, &dtb_used_bytes,
                         err) < 0)
            die(err);
        free(p->kernel.data);
        free(p->rd);
        free(p->dtb);
        if (o->dtb_out) {
            FILE *f = fopen(o->dtb_out, "wb");
            if (!f || fwrite(dtb_used, 1, dtb_used_bytes, f) != dtb_used_bytes ||
                fclose(f) != 0)
                die_file(o->dtb_out, "cannot write");
        }
        free(dtb_used);
    }
    if (o->gdb_port && !(p->gdb = gdbstub_new(p->m, (int)o->gdb_port,
                                               GUEST_PAGE_OFFSET, err)))
        die(err);
}

/* When a booted guest dies before /init, the image most likely at fault,
 * as the tail of the one error line ("" otherwise). */
static const char *early_suspect(const phone *p, char *buf, size_t len)
{
    const phone_options *o = p->o;
    const console_watch *c = &p->con;
    if (o->snap_load || c->init_ns)
        return "";
    if (o->initrd && (c->initrd_failed || strstr(c->panic, GUEST_CONSOLE_NO_INIT) ||
                      strstr(c->panic, GUEST_CONSOLE_NO_ROOT)))
        snprintf(buf, len, "; before /init: most likely the initramfs %s (%s)", o->initrd,
                 c->initrd_failed ? "the kernel could not unpack it" :
                 "it gave the kernel no /init");
    else if (!c->spoke)
        snprintf(buf, len, "; the guest printed nothing: most likely the kernel %s%s%s "
                 "(or a console= missing from --append)", o->kernel,
                 o->dtb_in ? " or the device tree " : "", o->dtb_in ? o->dtb_in : "");
    else
        snprintf(buf, len, "; before /init: most likely the kernel %s%s%s", o->kernel,
                 o->dtb_in ? " or the device tree " : "", o->dtb_in ? o->dtb_in : "");
    return buf;
}

/* A per-core count (arm_insn_count, arm_exc_return_count) summed over
 * the cores. */
static uint64_t all_cores(phone *p, uint64_t (*count)(const arm_cpu *))
{
    arm_sys *cpus = machine_cpus(p->m);
    uint64_t n = 0;
    for (int i = 0; i < arm_sys_ncores(cpus); i++)
        n += count(arm_sys_cpu(cpus, i));
    return n;
}

/* Where a guest that stopped making progress was, as the tail of the one
 * error line: the image at fault before /init, else the console's last
 * line (a restored run may have printed none). */
static const char *stall_context(const phone *p, char *buf, size_t len)
{
    const console_watch *c = &p->con;
    const char *early = early_suspect(p, buf, len);
    if (*early || !c->last[0])
        return early;
    if (c->init_ns)
        snprintf(buf, len, "; /init had started (at %.3f s); the console's last line, "
                 "at %.3f s: \"%s\"", (double)c->init_ns / 1e9, (double)c->last_ns / 1e9,
                 c->last);
    else
        snprintf(buf, len, "; the console's last line, at %.3f s: \"%s\"",
                 (double)c->last_ns / 1e9, c->last);
    return buf;
}

/* Why the run must stop now, printed; 0 if it goes on. *stop is set when
 * it ends without a failure (the guest powered off). */
static int check_end(phone *p, uint64_t now, uint64_t until, int *stop)
{
    const phone_options *o = p->o;
    const console_watch *c = &p->con;
    enum machine_state st = machine_state(p->m);
    if (st == MACHINE_OFF && !c->panic[0]) {
        *stop = 1;
        return 0;
    }
    if (st == MACHINE_RESET && !c->panic[0]) {
        fprintf(stderr, "%s: the guest reset the machine (a reboot ends "
                "the run)\n", prog);
        return 1;
    }
    char why[1024];
    if (c->panic[0] && (st != MACHINE_RUNNING || now >= c->panic_ns + PANIC_GRACE_NS)) {
        fprintf(stderr, "%s: guest kernel panic at %.6f s: %s%s\n", prog,
                (double)c->panic_ns / 1e9, c->panic, early_suspect(p, why, sizeof(why)));
        return 1;
    }
    if (now - c->last_output_ns >= o->hang_s * VT_NS_PER_S) {
        fprintf(stderr, "%s: the guest made no progress for %llu virtual "
                "seconds (at %.3f s); stopping%s\n", prog,
                (unsigned long long)o->hang_s, (double)now / 1e9,
                stall_context(p, why, sizeof(why)));
        return 1;
    }
    /* The host-time guard: a core taking one fault after another (a
     * vector table that is not mapped) crawls through virtual time, so
     * --hang-s alone could take hours of host time to fire. Such a core
     * never returns from an exception; a quiet guest that crawls because
     * its cores contend (a stress load's spinlocks end window after
     * window) returns from its interrupts, and only --hang-s judges it. */
    /* A guest that takes interrupts and system calls and returns from
     * them is alive, however slowly it runs. */
    uint64_t returns = all_cores(p, arm_exc_return_count);
    if (c->last_output_ns != p->seen_output_ns || returns != p->seen_returns ||
        !p->seen_cpu_s) {
        p->seen_output_ns = c->last_output_ns;
        p->seen_returns = returns;
        p->seen_cpu_s = host_cpu_s();
    } else if (host_cpu_s() - p->seen_cpu_s >= (double)o->hang_host_s) {
        fprintf(stderr, "%s: the guest made no progress and returned from no "
                "exception for %llu s of host CPU "
                "time, in which virtual time advanced %.3f s (at %.3f s); stopping "
                "(--hang-host-s; a core looping through its exception vectors?)%s\n",
                prog, (unsigned long long)o->hang_host_s,
                (double)(now - c->last_output_ns) / 1e9, (double)now / 1e9,
                stall_context(p, why, sizeof(why)));
        return 1;
    }
    if (now >= until) {
        fprintf(stderr, "%s: the guest was still running after "
                "--max-virtual-s %llu\n", prog, (unsigned long long)o->max_s);
        return 1;
    }
    return 0;
}

/* Runs the guest in CHECK_NS stretches; returns the exit status. */
static int run_loop(phone *p, struct pl_error *err)
{
    uint64_t until = p->o->max_s * VT_NS_PER_S;
    for (;;) {
        if (p->gdb && gdbstub_poll(p->gdb) < 0) {
            fprintf(stderr, "%s: gdb killed the run or went away\n", prog);
            return 1;
        }
        uint64_t now = vt_now_ns(p->vt);
        uint64_t next = now + CHECK_NS < until ? now + CHECK_NS : until;
        now = vt_run(p->vt, next);
        /* A console that cannot be written (a full disk) ends the run now. */
        if (fflush(p->con.f) != 0)
            die_file(console_name(p), "cannot write the console");
        switch (handshake_poll(&p->hs, p->m, p->net, now, err)) {
        case HANDSHAKE_FAILED:
            die(err);
        case HANDSHAKE_SAVED_ONLY:
            p->saved_only = 1;
            return 0;
        case HANDSHAKE_GO_ON:
            break;
        }
        if (p->fr.sdl && sdl_display_poll(p->fr.sdl)) {
            fprintf(stderr, "%s: display window closed\n", prog);
            return 1;
        }
        port_files_flush(&p->ports);
        int stop = 0, status = check_end(p, now, until, &stop);
        if (status || stop)
            return status;
    }
}

/* Where the time went, and where each core was if the run failed. */
static void report(phone *p, int status, double h0, double c0)
{
    double host = host_now_s() - h0;
    if (p->con.init_ns)
        fprintf(stderr, "%s: /init started at %.6f s of virtual time, %.2f s "
                "of host time\n", prog, (double)p->con.init_ns / 1e9,
                p->con.init_host_s - h0);
    uint64_t insns = all_cores(p, arm_insn_count);
    /* MIPS per host CPU second, as emu/cpu's bench counts them: on a
     * shared host the wall clock mostly measures the other tenants. */
    double cpu = host_cpu_s() - c0;
    enum machine_state st = machine_state(p->m);
    fprintf(stderr, "%s: %s at %.6f s of virtual time; %.2f s of host time "
            "(%.2f s CPU); %llu instructions; peak RSS %.1f MB; %.1f MIPS\n",
            prog, st == MACHINE_RESET ? "guest reset" :
            st == MACHINE_OFF ? "guest powered off" : "stopped",
            (double)vt_now_ns(p->vt) / 1e9, host, cpu,
            (unsigned long long)insns, host_peak_rss_mb(),
            cpu > 0 ? (double)insns / cpu / 1e6 : 0.0);
    fprintf(stderr, "%s: %llu windows ended early for cross-core causality\n",
            prog, (unsigned long long)vt_cross_core_cuts(p->vt));
    arm_sys *cpus = machine_cpus(p->m);
    for (int i = 0; status && i < arm_sys_ncores(cpus); i++) {
        fprintf(stderr, "core %d:\n", i);
        arm_dump(arm_sys_cpu(cpus, i), stderr);
    }
}

/* Closes the outputs, checking each was written, and frees the run. */
static void close_all(phone *p, struct pl_error *err)
{
    const phone_options *o = p->o;
    if (pl_close_output(p->con.f, console_name(p), err) < 0 ||
        (p->gt && pl_close_output(p->gt, o->gt_path, err) < 0) ||
        (p->cpu && pl_close_output(p->cpu, o->cpu_path, err) < 0))
        die(err);
    phone_replay_free(p->rp);
    pl_script_free(p->script);
    free(p->found_map);
    if (o->shot_path && screenshot_png(o->shot_path, p->fr.last, p->fr.w,
                                       p->fr.h, err) < 0)
        die(err);
    free(p->fr.last);
    sdl_display_free(p->fr.sdl);
    if (port_files_close(&p->ports, err) < 0)
        die(err);
    if (slirp_net_free(p->net, err) < 0)
        die(err);
    machine_free(p->m);
    if (p->cfg.disk_fd >= 0)
        close(p->cfg.disk_fd);
}

int phone_run(const phone_options *o)
{
    struct pl_error err;
    phone p = { .o = o, .start_s = host_now_s(),
                .hs = { .config = o->config, .save_path = o->snap_save } };
    open_host_side(&p, &err);
    build_machine(&p, &err);
    start_guest(&p, &err);

    double h0 = host_now_s(), c0 = host_cpu_s();
    int status = run_loop(&p, &err);
    if (!status && o->snap_save && !p.hs.asked) {
        fprintf(stderr, "%s: --snapshot-save: the guest never asked for its "
                "configuration (boot it with panlab.wait_config=1)\n", prog);
        status = 1;
    }
    if (!status && !p.saved_only && p.script && !phone_replay_done(p.rp)) {
        fprintf(stderr, "%s: the guest stopped before the replay script "
                "ended (%s)\n", prog, o->replay_path);
        status = 1;
    }
    gdbstub_free(p.gdb);
    report(&p, status, h0, c0);
    close_all(&p, &err);
    return status;
}
