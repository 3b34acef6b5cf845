/* Scripted input and device ground truth; see replay.h. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <linux/input-event-codes.h>
#include "panlab/ground_truth_format.h"
#include "panlab/guest_abi.h"
#include "panlab/marker.h"
#include "panlab/replay.h"
#include "replay.h"
#include "panlab/error.h"

struct phone_replay {
    vt_engine *t;
    const struct pl_script *script;
    FILE *gt;
    FILE *cpu;                  /* NULL, or the --cpu-time file */
    const guest_clock *clk;
    virtio_input *in;
    int64_t offset_ns;          /* engine ns - guest ns, once known */
    int have_offset;
    char line[128];
    size_t len;
    int started, done;
    uint64_t base_guest_ns;     /* guest time of script time 0 */
    size_t next;                /* next action */
    uint32_t phase;             /* its next frame: 0 press, then moves, release */
    int waiting;                /* at a control action, for the guest's "resume" */
    uint64_t inputs;            /* press frames sent: the next input's seq */
    uint64_t frames;
    struct pl_marker_seen seen; /* app frames shown so far */
    vt_event ev;
};

static void step(void *opaque);

/* Virtual ns every core has spent running, so far. */
static uint64_t busy_ns(const phone_replay *r)
{
    uint64_t ns = 0;
    for (int c = 0; c < vt_ncores(r->t); c++)
        ns += vt_busy_ns(r->t, c);
    return ns;
}

void phone_replay_cpu_time(phone_replay *r, FILE *f)
{
    r->cpu = f;
    fprintf(f, "panlab-cpu-time 1\n");
}

/* Guest CLOCK_MONOTONIC at engine time ns. The two clocks differ by a
 * constant once the guest runs on the arch timer (its mult/shift turn
 * counter ticks into ns exactly), so the last offset read stands in
 * while the vDSO page is mid-update. */
static uint64_t guest_ns(phone_replay *r, uint64_t ns)
{
    uint64_t mono;
    if (r->clk) {
        uint64_t hz = vt_counter_hz(r->t);
        uint64_t ticks = (ns / VT_NS_PER_S) * hz +
                         (ns % VT_NS_PER_S) * hz / VT_NS_PER_S;
        if (guest_clock_mono_ns(r->clk, ticks, &mono) == 0) {
            if (!r->have_offset)
                fprintf(r->gt, "# engine_ns - t_ns = %" PRIu64 "\n", ns - mono);
            r->offset_ns = (int64_t)(ns - mono);
            r->have_offset = 1;
            return mono;
        }
    }
    return r->have_offset ? ns - (uint64_t)r->offset_ns : ns;
}

static uint64_t engine_ns(const phone_replay *r, uint64_t guest)
{
    return r->have_offset ? guest + (uint64_t)r->offset_ns : guest;
}

phone_replay *phone_replay_new(const struct pl_script *script, FILE *gt,
                               const guest_clock *clk)
{
    phone_replay *r = pl_xcalloc(1, sizeof(*r));
    r->script = script;
    r->gt = gt;
    r->clk = clk;
    vt_event_init(&r->ev, step, r);
    char line[PL_GT_LINE_BYTES];
    pl_gt_header(line, sizeof(line));
    fprintf(gt, "%s# t_ns: %s\n", line,
            clk ? "guest CLOCK_MONOTONIC, read from its vDSO data page"
                : "emulator virtual ns since power-on");
    return r;
}

void phone_replay_free(phone_replay *r)
{
    if (!r)
        return;
    if (r->t)
        vt_cancel(r->t, &r->ev);
    free(r);
}

void phone_replay_attach(phone_replay *r, vt_engine *t, virtio_input *in)
{
    r->t = t;
    r->in = in;
}

int phone_replay_done(const phone_replay *r)
{
    return r->done;
}

void phone_replay_frame(void *opaque, uint64_t ns, const uint8_t *pixels,
                        uint32_t width_px, uint32_t height_px)
{
    phone_replay *r = opaque;
    /* The marker is read off the scan-out as the flush completes, as a
     * camera would see the frame (panlab/marker.h). */
    struct pl_marker m;
    enum pl_marker_status st = pl_marker_read(pixels, width_px, height_px,
                                              width_px * 4, &m, NULL);
    st = pl_marker_seen_check(&r->seen, st, &m);
    char line[PL_GT_LINE_BYTES];
    uint64_t seq = r->frames++, t = guest_ns(r, ns);
    pl_marker_gt_frame(line, sizeof(line), seq, t, st, &m);
    fputs(line, r->gt);
}

/* A control action (wait idle/display, launch, switch) is the guest
 * activity manager's: it does it at the action's time and writes
 * "resume <t_ns>" on the port; the script's clock runs on from t_ns. */
static void schedule_next(phone_replay *r)
{
    size_t count = pl_script_action_count(r->script);
    uint64_t rel;
    if (r->next < count) {
        const struct pl_action *a = pl_script_action(r->script, r->next);
        if (!pl_action_is_input(a)) {
            r->waiting = 1;
            return;
        }
        rel = pl_action_frame_at_ns(a, r->phase);
    } else if (r->next == count) {
        rel = pl_script_duration_ns(r->script);
    } else {
        return;
    }
    vt_schedule(r->t, &r->ev, engine_ns(r, r->base_guest_ns + rel));
}

static void step(void *opaque)
{
    phone_replay *r = opaque;
    size_t count = pl_script_action_count(r->script);
    if (r->next == count) {
        uint64_t t = guest_ns(r, vt_now_ns(r->t));
        char line[PL_GT_LINE_BYTES];
        pl_gt_end(line, sizeof(line), t);
        fputs(line, r->gt);
        if (r->cpu)
            fprintf(r->cpu, "end %" PRIu64 " %" PRIu64 "\n", t, busy_ns(r));
        r->done = 1;
        r->next++;
        return;
    }
    const struct pl_action *a = pl_script_action(r->script, r->next);
    /* The frames are replay/'s (pl_action_frame), as the guest's injector sends them. */
    struct pl_input_event pe[PL_FRAME_MAX_EVENTS];
    input_ev ev[PL_FRAME_MAX_EVENTS];
    size_t n = pl_action_frame(a, r->phase, pe);
    for (size_t i = 0; i < n; i++)
        ev[i] = (input_ev){ pe[i].type, pe[i].code, pe[i].value };
    /* The tag names the press (input seq << 32 | action << 1) or, with its
     * low bit set, a frame that is no input. */
    uint64_t tag = r->inputs << 32 | (uint64_t)r->next << 1 | (r->phase != 0);
    if (r->phase == 0)
        r->inputs++;
    if (!r->in || virtio_input_send(r->in, ev, n, tag) < 0)
        fprintf(stderr, "panlab-phone: input frame %u of action %zu dropped: "
                "the guest is not reading the touchscreen\n", r->phase, r->next);
    if (++r->phase == pl_action_frame_count(a)) {
        r->phase = 0;
        r->next++;
    }
    schedule_next(r);
}

void phone_replay_delivered(void *opaque, uint64_t tag, uint64_t ns)
{
    phone_replay *r = opaque;
    if (tag & 1)
        return;                 /* moves and releases are not inputs */
    const struct pl_action *a = pl_script_action(r->script,
                                                 (tag & 0xffffffffu) >> 1);
    uint64_t t = guest_ns(r, ns), seq = tag >> 32;
    /* A swipe's ground truth is a tap's where the touch began. */
    char line[PL_GT_LINE_BYTES];
    if (a->kind != PL_ACTION_KEY)
        pl_gt_input_tap(line, sizeof(line), seq, t, a->x_px, a->y_px);
    else
        pl_gt_input_key(line, sizeof(line), seq, t, a->key_code);
    fputs(line, r->gt);
    if (r->cpu)
        fprintf(r->cpu, "input %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", seq, t,
                busy_ns(r));
}

/* The guest finished the control action the replay waits at. */
static void resume(phone_replay *r, uint64_t t_guest)
{
    if (!r->waiting) {
        fprintf(stderr, "panlab-phone: the guest resumed a script that was not "
                "waiting; line ignored\n");
        return;
    }
    const struct pl_action *a = pl_script_action(r->script, r->next);
    r->waiting = 0;
    r->base_guest_ns = pl_script_base_ns(t_guest, a->at_ns);
    r->next++;
    schedule_next(r);
}

static void start(phone_replay *r, uint64_t ready_guest)
{
    if (r->started || !r->script)
        return;
    r->started = 1;
    guest_ns(r, vt_now_ns(r->t));   /* learn the offset */
    r->base_guest_ns = ready_guest;
    char line[PL_GT_LINE_BYTES];
    pl_gt_ready(line, sizeof(line), ready_guest);
    fputs(line, r->gt);
    schedule_next(r);
}

void phone_replay_port(phone_replay *r, const uint8_t *buf, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (buf[i] != '\n') {
            if (r->len < sizeof(r->line) - 1)
                r->line[r->len++] = (char)buf[i];
            continue;
        }
        r->line[r->len] = 0;
        r->len = 0;
        uint64_t t;
        switch (pl_handshake_parse(r->line, &t)) {
        case PL_HANDSHAKE_READY:
            start(r, t);
            break;
        case PL_HANDSHAKE_RESUME:
            resume(r, t);
            break;
        case PL_HANDSHAKE_NONE:
            break;
        }
    }
}
