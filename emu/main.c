/* panlab-phone: the phone emulator's command line. It checks the options
 * and hands them to the run (run.h). Exit status: 0 for a good run, 1 for
 * a failed one, 2 for a wrong command line, 3 (PL_EXIT_SNAPSHOT_REFUSED)
 * for a --snapshot-load snapshot it cannot use (unreadable, or not this
 * build's). */
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "run.h"
#include "time.h"
#include "guest.h"
#include "panlab/guest_abi.h"
#include "host/net_wire.h"
#include "model_constants.h"
#include "panlab/error.h"

static const char prog[] = "panlab-phone";

static void usage(FILE *f)
{
    fprintf(
        f,
        "usage: %s --kernel zImage|Image|vmlinux [--initrd FILE] [--append CMDLINE]\n"
        "       [--dtb FILE | --dtb-out FILE] [--console FILE] [--port NAME=FILE]\n"
        "       [--replay SCRIPT] [--ground-truth FILE] [--cpu-time FILE]\n"
        "       [--system-map FILE]\n"
        "       [--disk IMAGE] [--net user [--pcap FILE] [--content-dir DIR]\n"
        "       [--net-profile wifi|3g|legacy]]\n"
        "       [--display none|sdl] [--screenshot FILE.png] [--gdb PORT]\n"
        "       [--max-virtual-s N] [--hang-s N] [--hang-host-s N] [--cpu-mhz N]\n"
        "       [--quantum-us N]\n"
        "       [--engine fast|ref]\n"
        "       [--quantum-policy causal|fixed]\n"
        "       [--snapshot-save FILE] [--snapshot-load FILE] [--config 'ARGS']\n"
        "--snapshot-load replaces --kernel, --initrd, --append and --dtb.\n"
        "usage: %s --model-constants   (the link and SD card constants, as TSV)\n",
        prog, prog);
}

/* One line on stderr for a wrong command line; returns its exit status. */
static int bad_usage(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int bad_usage(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: ", prog);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    return 2;
}

/* A whole decimal number up to max: returns 0, or the exit status. */
static int parse_u64(const char *opt, const char *v, uint64_t max, uint64_t *out)
{
    if (pl_parse_u64(v, max, out) < 0)
        return bad_usage("%s takes a whole number up to %llu, got '%s'", opt,
                         (unsigned long long)max, v);
    return 0;
}

/* Options taking a string, by name, and where each goes. */
static const char **string_option(phone_options *o, const char *name)
{
    static const struct { const char *name; size_t off; } opts[] = {
#define S(n, f) { n, offsetof(phone_options, f) }
        S("--kernel", kernel), S("--initrd", initrd), S("--append", append),
        S("--dtb", dtb_in), S("--dtb-out", dtb_out),
        S("--console", console_path), S("--replay", replay_path),
        S("--ground-truth", gt_path), S("--cpu-time", cpu_path),
        S("--system-map", system_map),
        S("--screenshot", shot_path), S("--disk", disk_path),
        S("--pcap", pcap_path), S("--content-dir", content_dir),
        S("--snapshot-save", snap_save), S("--snapshot-load", snap_load),
#undef S
    };
    for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
        if (!strcmp(name, opts[i].name))
            return (const char **)(void *)((char *)o + opts[i].off);
    return NULL;
}

/* Options taking a number, by name: where it goes and its largest value. */
static uint64_t *number_option(phone_options *o, const char *name, uint64_t *max)
{
    static const struct { const char *name; size_t off; uint64_t max; } opts[] = {
        { "--gdb", offsetof(phone_options, gdb_port), 65535 },
        { "--max-virtual-s", offsetof(phone_options, max_s), VT_MAX_S },
        { "--hang-s", offsetof(phone_options, hang_s), 1000000 },
        { "--hang-host-s", offsetof(phone_options, hang_host_s), 1000000 },
        { "--cpu-mhz", offsetof(phone_options, cpu_mhz), 4000 },
        { "--quantum-us", offsetof(phone_options, quantum_us), 100000 },
    };
    for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
        if (!strcmp(name, opts[i].name)) {
            *max = opts[i].max;
            return (uint64_t *)(void *)((char *)o + opts[i].off);
        }
    return NULL;
}

/* One option with its value: returns 0, or the exit status. */
static int parse_option(phone_options *o, const char *name, const char *v)
{
    const char **s;
    uint64_t *n, max;
    struct pl_error err;
    if ((s = string_option(o, name))) {
        *s = v;
    } else if ((n = number_option(o, name, &max))) {
        return parse_u64(name, v, max, n);
    } else if (!strcmp(name, "--config")) {
        if (strchr(v, '\n') || strlen(v) > VCON_INPUT_BYTES - 2)
            return bad_usage("--config takes one line of at most %d bytes",
                             VCON_INPUT_BYTES - 2);
        o->config = v;
    } else if (!strcmp(name, "--net")) {
        if (strcmp(v, "user"))
            return bad_usage("--net takes user, got '%s'", v);
        o->want_net = 1;
    } else if (!strcmp(name, "--net-profile")) {
        if ((o->net_profile = net_profile_parse(v)) < 0)
            return bad_usage("--net-profile takes wifi, 3g or legacy, got '%s'", v);
        o->net_profile_set = 1;
    } else if (!strcmp(name, "--engine")) {
        if ((o->engine = arm_engine_parse(v)) < 0)
            return bad_usage("--engine takes fast or ref, got '%s'", v);
    } else if (!strcmp(name, "--quantum-policy")) {
        if (strcmp(v, "causal") && strcmp(v, "fixed"))
            return bad_usage("--quantum-policy takes causal or fixed, got '%s'", v);
        o->quantum_policy = strcmp(v, "causal") ? VT_FIXED_QUANTUM : VT_CAUSAL;
    } else if (!strcmp(name, "--display")) {
        if (strcmp(v, "sdl") && strcmp(v, "none"))
            return bad_usage("--display takes none or sdl, got '%s'", v);
        o->want_sdl = !strcmp(v, "sdl");
    } else if (!strcmp(name, "--port")) {
        const char *eq = strchr(v, '=');
        if (!eq || eq == v || !eq[1])
            return bad_usage("--port takes NAME=FILE, got '%s'", v);
        if (port_list_set(&o->ports, v, (size_t)(eq - v), eq + 1, &err) < 0)
            return bad_usage("--port '%s': %s", v, err.msg);
    } else {
        return bad_usage("unknown option '%s' (see --help)", name);
    }
    return 0;
}

/* Options that only make sense together. Returns 0, or the exit status. */
static int check_options(phone_options *o)
{
    struct pl_error err;
    if (!o->kernel && !o->snap_load)
        return bad_usage("--kernel is required (see --help)");
    if (o->snap_load && (o->kernel || o->initrd || o->dtb_in || o->dtb_out ||
                         *o->append || o->snap_save))
        return bad_usage("--snapshot-load restores a booted machine; it takes "
                         "no --kernel, --initrd, --dtb, --dtb-out, --append or "
                         "--snapshot-save");
    if (o->snap_load && !o->config)
        return bad_usage("--snapshot-load needs --config 'ARGS' for the "
                         "restored guest");
    if (o->cpu_mhz == 0 || o->max_s == 0 || o->hang_s == 0 || o->hang_host_s == 0)
        return bad_usage("--cpu-mhz, --max-virtual-s, --hang-s and --hang-host-s "
                         "must be above 0");
    if ((o->snap_save || o->snap_load || o->config) &&
        port_list_set(&o->ports, PL_PORT_CONFIG, strlen(PL_PORT_CONFIG), NULL,
                      &err) < 0)
        return bad_usage("%s", err.msg);
    if ((o->pcap_path || o->content_dir || o->net_profile_set) && !o->want_net)
        return bad_usage("--pcap, --content-dir and --net-profile need --net user");
    if (o->replay_path && !o->gt_path)
        return bad_usage("--replay needs --ground-truth FILE");
    if (o->cpu_path && !o->replay_path)
        return bad_usage("--cpu-time needs --replay SCRIPT");
    return 0;
}

int main(int argc, char **argv)
{
    /* hang_host_s: a healthy run's longest stretch without guest progress
     * is the quiet boot before /init, 3.3 s of host CPU with the fast
     * engine and 6.0 s with the reference one (emu/README.md). */
    phone_options o = { .append = "", .max_s = 3600, .hang_s = 60, .hang_host_s = 30,
                        .cpu_mhz = 1200, .engine = ARM_ENGINE_FAST };
    port_list_default(&o.ports);
    for (int i = 1; i < argc; i++) {
        const char *name = argv[i];
        if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
            usage(stdout);
            return pl_finish_stdout(prog, 0);
        }
        if (!strcmp(name, "--model-constants") && argc == 2) {
            model_constants_print(stdout);
            return pl_finish_stdout(prog, 0);
        }
        if (strncmp(name, "--", 2) != 0)
            return bad_usage("unexpected argument '%s'", name);
        if (i + 1 >= argc)
            return bad_usage("option '%s' needs a value", name);
        int status = parse_option(&o, name, argv[++i]);
        if (status)
            return status;
    }
    int status = check_options(&o);
    return status ? status : phone_run(&o);
}
