/* Virtual-time engine; see time.h for the model. */
#include <stdlib.h>
#include "time.h"
#include "snapio.h"
#include "panlab/error.h"

#define VT_MAX_CORES 8
/* How far back the sync densities look: 50 quanta, long enough to span a
 * lock's burst many times over, short enough to follow a load that moves
 * from one core to the other (an engine choice, not a model constant). */
#define SYNC_DECAY_NS 1000000ull
/* Every cluster arm_sys_new() makes gets a clock per core. */
_Static_assert(VT_MAX_CORES >= ARM_MAX_CORES, "a core without a clock");

typedef struct vt_core {
    uint64_t t_ns;
    uint64_t frac;              /* core time = t_ns + frac / cpu_hz ns */
    uint64_t busy_ns;
    /* Sync points and busy ns, halved every SYNC_DECAY_NS: how densely the
     * core synchronises lately, to pick the core that runs first. */
    uint64_t syncs, sync_busy_ns;
    vt_event wake;              /* a deferred SEV for this core */
} vt_core;

struct vt_engine {
    arm_sys *sys;
    int ncores;
    uint64_t cpu_hz, counter_hz, quantum_ns;
    enum vt_quantum_policy policy;
    uint64_t cross_core_cuts;
    int lead;                   /* the core that runs first in a window */
    int cut_by;                 /* the core that cut this window short, or -1 */
    int prev_cut_by;            /* the one that cut the last window, or -1 */
    uint64_t decay_at_ns;       /* when the sync densities are halved next */
    uint64_t now_ns;            /* every core has reached this time */
    uint64_t win_end_ns;        /* end of the window being run */
    int cur;                    /* core inside arm_run, or -1 */
    uint64_t slice_start_cycles; /* its cycle count when arm_run began */
    int stop;
    vt_step_hook *hook;
    void *hook_opaque;
    vt_core core[VT_MAX_CORES];
    vt_event **heap;
    int nheap, cap;
    uint64_t seq;
};

static void deliver_event(void *opaque)
{
    arm_signal_event(opaque);
}

vt_engine *vt_new(arm_sys *sys, uint64_t cpu_hz, uint64_t counter_hz,
                  uint64_t quantum_ns)
{
    vt_engine *t = pl_xcalloc(1, sizeof(*t));
    t->sys = sys;
    t->ncores = sys ? arm_sys_ncores(sys) : 0;
    t->cpu_hz = cpu_hz;
    t->counter_hz = counter_hz;
    t->quantum_ns = quantum_ns;
    t->cur = -1;
    t->cut_by = t->prev_cut_by = -1;
    for (int i = 0; i < t->ncores; i++)
        vt_event_init(&t->core[i].wake, deliver_event, arm_sys_cpu(sys, i));
    return t;
}

void vt_set_quantum_policy(vt_engine *t, enum vt_quantum_policy p)
{
    t->policy = p;
}

void vt_free(vt_engine *t)
{
    if (!t)
        return;
    free(t->heap);
    free(t);
}

/* ---- event queue: a binary heap ordered by (at_ns, seq) ---- */

static int ev_before(const vt_event *a, const vt_event *b)
{
    return a->at_ns != b->at_ns ? a->at_ns < b->at_ns : a->seq < b->seq;
}

static void heap_set(vt_engine *t, int i, vt_event *e)
{
    t->heap[i] = e;
    e->heap_index = i;
}

static void heap_up(vt_engine *t, int i)
{
    vt_event *e = t->heap[i];
    while (i > 0 && ev_before(e, t->heap[(i - 1) / 2])) {
        heap_set(t, i, t->heap[(i - 1) / 2]);
        i = (i - 1) / 2;
    }
    heap_set(t, i, e);
}

static void heap_down(vt_engine *t, int i)
{
    vt_event *e = t->heap[i];
    for (;;) {
        int c = 2 * i + 1;
        if (c >= t->nheap)
            break;
        if (c + 1 < t->nheap && ev_before(t->heap[c + 1], t->heap[c]))
            c++;
        if (!ev_before(t->heap[c], e))
            break;
        heap_set(t, i, t->heap[c]);
        i = c;
    }
    heap_set(t, i, e);
}

void vt_event_init(vt_event *e, vt_event_fn *fn, void *opaque)
{
    e->at_ns = 0;
    e->seq = 0;
    e->fn = fn;
    e->opaque = opaque;
    e->heap_index = -1;
}

int vt_event_pending(const vt_event *e)
{
    return e->heap_index >= 0;
}

void vt_cancel(vt_engine *t, vt_event *e)
{
    int i = e->heap_index;
    if (i < 0)
        return;
    e->heap_index = -1;
    vt_event *last = t->heap[--t->nheap];
    if (i == t->nheap)
        return;
    heap_set(t, i, last);
    heap_up(t, i);
    heap_down(t, last->heap_index);
}

static void heap_insert(vt_engine *t, vt_event *e)
{
    if (t->nheap == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 64;
        t->heap = pl_xrealloc(t->heap, (size_t)t->cap, sizeof(*t->heap));
    }
    heap_set(t, t->nheap++, e);
    heap_up(t, e->heap_index);
}

void vt_schedule(vt_engine *t, vt_event *e, uint64_t at_ns)
{
    vt_cancel(t, e);
    uint64_t now = vt_now_ns(t);
    e->at_ns = at_ns < now ? now : at_ns;
    e->seq = t->seq++;
    heap_insert(t, e);
    /* An event inside the running window ends the window there, so it is
     * not delivered late by up to a quantum. */
    if (t->cur >= 0 && e->at_ns < t->win_end_ns) {
        t->win_end_ns = e->at_ns;
        arm_request_exit(arm_sys_cpu(t->sys, t->cur));
    }
}

static void fire_due(vt_engine *t)
{
    while (t->nheap > 0 && t->heap[0]->at_ns <= t->now_ns && !t->stop) {
        vt_event *e = t->heap[0];
        vt_cancel(t, e);
        e->fn(e->opaque);
    }
}

/* ---- clocks ---- */

/* Inside a run, the core's position is exact to the instruction: the CPU
 * counts cycles as it goes. */
uint64_t vt_now_ns(const vt_engine *t)
{
    if (t->cur < 0)
        return t->now_ns;
    const vt_core *k = &t->core[t->cur];
    uint64_t used = arm_cycle_count(arm_sys_cpu(t->sys, t->cur)) -
                    t->slice_start_cycles;
    return k->t_ns + (k->frac + used * VT_NS_PER_S) / t->cpu_hz;
}

int vt_current_core(const vt_engine *t)
{
    return t->cur >= 0 ? t->cur : 0;
}

/* a * b / c without overflow for a up to 2^64 and b, c below 2^32. */
static uint64_t muldiv(uint64_t a, uint64_t b, uint64_t c)
{
    return (a / c) * b + (a % c) * b / c;
}

uint64_t vt_counter(vt_engine *t)
{
    return muldiv(vt_now_ns(t), t->counter_hz, VT_NS_PER_S);
}

uint64_t vt_counter_hz(const vt_engine *t)
{
    return t->counter_hz;
}

uint64_t vt_counter_to_ns(const vt_engine *t, uint64_t ticks)
{
    /* Smallest ns with ns * hz / 1e9 >= ticks; saturates far in the
     * future (a disabled timer's compare value is UINT64_MAX). */
    uint64_t s = ticks / t->counter_hz, rem = ticks % t->counter_hz;
    if (s >= UINT64_MAX / VT_NS_PER_S - 1)
        return UINT64_MAX;
    return s * VT_NS_PER_S + (rem * VT_NS_PER_S + t->counter_hz - 1) /
                                 t->counter_hz;
}

/* Moves the cycles core i ran since the slice began into its clock. */
static void fold(vt_engine *t, int i)
{
    vt_core *k = &t->core[i];
    uint64_t cycles = arm_cycle_count(arm_sys_cpu(t->sys, i));
    uint64_t total = k->frac + (cycles - t->slice_start_cycles) * VT_NS_PER_S;
    uint64_t d = total / t->cpu_hz;
    k->t_ns += d;
    k->frac = total % t->cpu_hz;
    k->busy_ns += d;
    k->sync_busy_ns += d;
    t->slice_start_cycles = cycles;
}

void vt_set_cpu_hz(vt_engine *t, uint64_t cpu_hz)
{
    /* The running core's cycles so far count at the old frequency; its
     * budget is recomputed at the new one. */
    if (t->cur >= 0) {
        fold(t, t->cur);
        arm_request_exit(arm_sys_cpu(t->sys, t->cur));
    }
    /* Sub-ns fractions are dropped: they were in units of the old cycle. */
    for (int i = 0; i < t->ncores; i++)
        t->core[i].frac = 0;
    t->cpu_hz = cpu_hz;
}

uint64_t vt_cpu_hz(const vt_engine *t)
{
    return t->cpu_hz;
}

void vt_stall(vt_engine *t, uint64_t ns)
{
    if (t->cur < 0)
        return;
    fold(t, t->cur);
    t->core[t->cur].t_ns += ns;
    t->core[t->cur].busy_ns += ns;
    t->core[t->cur].sync_busy_ns += ns;
    arm_request_exit(arm_sys_cpu(t->sys, t->cur));
}

int vt_ncores(const vt_engine *t)
{
    return t->ncores;
}

void vt_stop(vt_engine *t)
{
    t->stop = 1;
    if (t->cur >= 0)
        arm_request_exit(arm_sys_cpu(t->sys, t->cur));
}

void vt_resume(vt_engine *t)
{
    t->stop = 0;
}

void vt_set_step_hook(vt_engine *t, vt_step_hook *hook, void *opaque)
{
    t->hook = hook;
    t->hook_opaque = opaque;
}

uint64_t vt_busy_ns(const vt_engine *t, int core)
{
    return t->core[core].busy_ns;
}

void vt_core_online(vt_engine *t, int core)
{
    vt_core *k = &t->core[core];
    if (k->t_ns < vt_now_ns(t)) {
        k->t_ns = vt_now_ns(t);
        k->frac = 0;
    }
}

/* The clock of a core that is not running: where its last run stopped. */
static uint64_t core_ns(const vt_engine *t, int core)
{
    return t->core[core].t_ns > t->now_ns ? t->core[core].t_ns : t->now_ns;
}

int vt_defer_to_peer(vt_engine *t, int target, vt_event *e)
{
    if (t->policy != VT_CAUSAL || t->cur < 0 || t->cur == target)
        return 0;
    uint64_t now = vt_now_ns(t);
    if (core_ns(t, target) >= now)
        return 0;
    /* Queued inside the window, so vt_schedule ends the window here. */
    if (!vt_event_pending(e) || e->at_ns > now) {
        t->cross_core_cuts += now < t->win_end_ns;
        vt_schedule(t, e, now);
    }
    return 1;
}

void vt_send_event(vt_engine *t, int from_core)
{
    /* Only the wake of a core halted in WFE is an effect in time; a running
     * core just finds its event register set (its next WFE returns at
     * once), and so does one in WFI: it wakes only on an interrupt, and any
     * that would wake it before the sender's time ends the window there,
     * so it cannot reach a WFE before then. */
    for (int i = 0; i < t->ncores; i++) {
        arm_cpu *c = arm_sys_cpu(t->sys, i);
        if (i == from_core || !arm_in_wfe(c) ||
            !vt_defer_to_peer(t, i, &t->core[i].wake))
            arm_signal_event(c);
    }
}

/* Whether core a synchronised more densely (sync points per busy ns) than
 * core b lately. */
static int denser(const vt_engine *t, int a, int b)
{
    const vt_core *x = &t->core[a], *y = &t->core[b];
    return (unsigned __int128)x->syncs * y->sync_busy_ns >
           (unsigned __int128)y->syncs * x->sync_busy_ns;
}

void vt_sync_point(vt_engine *t)
{
    if (t->policy != VT_CAUSAL || t->cur < 0)
        return;
    t->core[t->cur].syncs++;
    uint64_t now = vt_now_ns(t);
    if (now >= t->win_end_ns)
        return;
    for (int i = 0; i < t->ncores; i++) {
        arm_cpu *c = arm_sys_cpu(t->sys, i);
        if (i != t->cur && arm_is_powered(c) && !arm_is_halted(c) && core_ns(t, i) < now) {
            t->win_end_ns = now;
            t->cross_core_cuts++;
            /* A core that ends two windows in a row is in a burst of
             * sync points (a lock, its critical section, the unlock); if
             * it also synchronises more densely than the next core, it
             * runs second from the next window on, where its sync points
             * cost nothing (no running core is behind it). A lone sync
             * point keeps the order, so its store reaches the other core
             * at once. */
            int next = (t->cur + 1) % t->ncores;
            if (t->prev_cut_by == t->cur && denser(t, t->cur, next))
                t->lead = next;
            t->cut_by = t->cur;
            arm_request_exit(arm_sys_cpu(t->sys, t->cur));
            return;
        }
    }
}

uint64_t vt_cross_core_cuts(const vt_engine *t)
{
    return t->cross_core_cuts;
}

static int core_active(arm_cpu *c)
{
    return arm_is_powered(c) && !arm_is_halted(c);
}

/* Runs core i from its position up to the window's end; it returns early
 * when it halts, is stopped, or the window is cut short. */
static void run_core(vt_engine *t, int i)
{
    arm_cpu *c = arm_sys_cpu(t->sys, i);
    vt_core *k = &t->core[i];
    if (k->t_ns < t->now_ns) {
        k->t_ns = t->now_ns;
        k->frac = 0;
    }
    while (!t->stop && k->t_ns < t->win_end_ns && core_active(c)) {
        uint64_t left = t->win_end_ns - k->t_ns;
        /* Fewest cycles that reach t_ns + left, counting the fraction. */
        uint64_t need = left * t->cpu_hz - k->frac;
        uint64_t budget = (need + VT_NS_PER_S - 1) / VT_NS_PER_S;
        t->cur = i;
        t->slice_start_cycles = arm_cycle_count(c);
        uint64_t used = arm_run(c, budget && !t->hook ? budget : 1);
        fold(t, i);
        t->cur = -1;
        if (t->hook && used && t->hook(t->hook_opaque, i))
            t->stop = 1;
        if (used == 0)
            break;
    }
    /* Idle (halted or off) cores keep pace with the window. */
    if (!core_active(c) && k->t_ns < t->win_end_ns) {
        k->t_ns = t->win_end_ns;
        k->frac = 0;
    }
}

uint64_t vt_run(vt_engine *t, uint64_t until_ns)
{
    while (!t->stop && t->now_ns < until_ns) {
        fire_due(t);
        if (t->stop)
            break;
        int busy = 0;
        for (int i = 0; i < t->ncores; i++)
            busy |= core_active(arm_sys_cpu(t->sys, i));
        uint64_t end = until_ns;
        if (busy && t->now_ns + t->quantum_ns < end)
            end = t->now_ns + t->quantum_ns;
        if (t->nheap > 0 && t->heap[0]->at_ns < end)
            end = t->heap[0]->at_ns;
        t->win_end_ns = end;
        /* The order is free: only the first core's stores after a sync
         * point can reach a core still behind, and it cuts there. */
        if (t->now_ns >= t->decay_at_ns) {
            for (int i = 0; i < t->ncores; i++) {
                t->core[i].syncs /= 2;
                t->core[i].sync_busy_ns /= 2;
            }
            t->decay_at_ns = t->now_ns + SYNC_DECAY_NS;
        }
        int lead = t->lead;
        t->cut_by = -1;
        for (int i = 0; i < t->ncores && busy; i++)
            run_core(t, (lead + i) % t->ncores);
        t->prev_cut_by = t->cut_by;
        /* The window may have been cut short by an event queued in it. */
        if (t->win_end_ns > t->now_ns)
            t->now_ns = t->win_end_ns;
    }
    fire_due(t);
    return t->now_ns;
}

/* ---- snapshots ---- */

void vt_event_save(const vt_event *e, snap_w *w)
{
    snap_put_u8(w, vt_event_pending(e));
    snap_put_u64(w, e->at_ns);
    snap_put_u64(w, e->seq);
}

/* The saved (time, seq) pair is put back as it was, so ties fire in the
 * saved order. */
int vt_event_load(vt_engine *t, vt_event *e, snap_r *r)
{
    vt_cancel(t, e);
    uint8_t pending = snap_get_u8(r);
    uint64_t at_ns = snap_get_u64(r), seq = snap_get_u64(r);
    if (snap_r_failed(r))
        return -1;
    if (pending > 1)
        return snap_r_fail(r, "event state %u, expected 0 or 1", pending);
    if (pending) {
        e->at_ns = at_ns;
        e->seq = seq;
        heap_insert(t, e);
    }
    return 0;
}

void vt_save(const vt_engine *t, snap_w *w)
{
    snap_put_u32(w, (uint32_t)t->ncores);
    snap_put_u64(w, t->cpu_hz);
    snap_put_u64(w, t->counter_hz);
    snap_put_u64(w, t->quantum_ns);
    snap_put_u32(w, (uint32_t)t->policy);
    snap_put_u64(w, t->now_ns);
    snap_put_u64(w, t->seq);
    snap_put_u32(w, (uint32_t)t->lead);
    snap_put_u32(w, (uint32_t)(t->prev_cut_by + 1));
    snap_put_u64(w, t->decay_at_ns);
    for (int i = 0; i < t->ncores; i++) {
        snap_put_u64(w, t->core[i].t_ns);
        snap_put_u64(w, t->core[i].frac);
        snap_put_u64(w, t->core[i].busy_ns);
        snap_put_u64(w, t->core[i].syncs);
        snap_put_u64(w, t->core[i].sync_busy_ns);
        vt_event_save(&t->core[i].wake, w);
    }
}

int vt_load(vt_engine *t, snap_r *r)
{
    uint32_t ncores = snap_get_u32(r);
    uint64_t cpu_hz = snap_get_u64(r), counter_hz = snap_get_u64(r);
    uint64_t quantum_ns = snap_get_u64(r);
    uint32_t policy = snap_get_u32_max(r, VT_FIXED_QUANTUM, "quantum policy");
    if (!snap_r_failed(r) && ncores != (uint32_t)t->ncores)
        return snap_r_fail(r, "%u cores, this machine has %d", ncores,
                           t->ncores);
    if (!snap_r_failed(r) && (counter_hz != t->counter_hz || !cpu_hz ||
                              !quantum_ns))
        return snap_r_fail(r, "counter at %llu Hz, expected %llu Hz and a "
                           "non-zero CPU clock and quantum",
                           (unsigned long long)counter_hz,
                           (unsigned long long)t->counter_hz);
    t->cpu_hz = cpu_hz;
    t->quantum_ns = quantum_ns;
    t->policy = (enum vt_quantum_policy)policy;
    t->now_ns = t->win_end_ns = snap_get_u64(r);
    if (!snap_r_failed(r) && t->now_ns > VT_MAX_S * VT_NS_PER_S)
        return snap_r_fail(r, "virtual time %llu ns (%.1f days), expected at most "
                           "%llu s (the longest run, --max-virtual-s)",
                           (unsigned long long)t->now_ns,
                           (double)t->now_ns / VT_NS_PER_S / 86400,
                           (unsigned long long)VT_MAX_S);
    t->seq = snap_get_u64(r);
    uint32_t lead = snap_get_u32(r), cut_by = snap_get_u32(r);
    if (!snap_r_failed(r) && ((lead > 0 && lead >= ncores) || cut_by > ncores))
        return snap_r_fail(
            r,
            "core %u runs first, core %d ended the last window, expected "
            "cores of this machine's %u",
            lead, (int)cut_by - 1, ncores);
    t->lead = (int)lead;
    t->prev_cut_by = (int)cut_by - 1;
    t->decay_at_ns = snap_get_u64(r);
    for (int i = 0; i < t->ncores; i++) {
        t->core[i].t_ns = snap_get_u64(r);
        if (!snap_r_failed(r) && t->core[i].t_ns > VT_MAX_S * VT_NS_PER_S)
            return snap_r_fail(r, "core %d's virtual time %llu ns, expected at "
                               "most %llu s (the longest run, --max-virtual-s)", i,
                               (unsigned long long)t->core[i].t_ns,
                               (unsigned long long)VT_MAX_S);
        t->core[i].frac = snap_get_u64(r);
        t->core[i].busy_ns = snap_get_u64(r);
        t->core[i].syncs = snap_get_u64(r);
        t->core[i].sync_busy_ns = snap_get_u64(r);
        if (vt_event_load(t, &t->core[i].wake, r) < 0)
            return -1;
        if (!snap_r_failed(r) && t->core[i].frac >= t->cpu_hz)
            return snap_r_fail(r, "core %d's cycle fraction %llu, expected "
                               "less than %llu", i,
                               (unsigned long long)t->core[i].frac,
                               (unsigned long long)t->cpu_hz);
    }
    t->stop = 0;
    return snap_r_failed(r) ? -1 : 0;
}
