/* Device-level ground truth and scripted input for the phone.
 *
 * The replay engine plays a replay/ script (parsed by libpanlab_replay)
 * into the virtio-input touchscreen at exact virtual times, and writes
 * the run's ground truth (include/FORMAT.md) from the devices:
 *   input <seq> <t_ns> tap <x> <y> | key <code>   when a press frame
 *                                                 reached the guest (T_in)
 *   frame <seq> <t_ns>                            when a scanout flush
 *                                                 completed (T_out)
 *   ready <t_ns>, end <t_ns>
 * t_ns is the guest's CLOCK_MONOTONIC, read from its vDSO data page
 * (host/guest_clock.h); without a guest clock it is engine ns.
 *
 * Script times are relative to the app being ready, which the guest
 * announces by writing "ready <t_ns>" (its CLOCK_MONOTONIC) on the
 * panlab.input port, as the panlab session does; that port's bytes are
 * fed to phone_replay_port(). Control actions (wait idle, wait display,
 * launch, switch) are done in the guest by the session's activity manager,
 * which writes "resume <t_ns>" when each is done: the replay stops at one
 * until then, and times what follows from t_ns (replay/README.md).
 *
 * Ownership: phone_replay_new() allocates, phone_replay_free() frees.
 * The script, the engine, the clock and the FILE stay the caller's. */
#ifndef PANLAB_EMU_REPLAY_H
#define PANLAB_EMU_REPLAY_H

#include <stdio.h>
#include "time.h"
#include "dev/virtio_input.h"
#include "host/guest_clock.h"

struct pl_script;
typedef struct phone_replay phone_replay;

/* script may be NULL (ground truth of frames only); clk may be NULL.
 * Writes the file's header line at once. */
phone_replay *phone_replay_new(const struct pl_script *script, FILE *gt,
                               const guest_clock *clk);
void phone_replay_free(phone_replay *r);
/* The machine the replay drives, once it exists. */
void phone_replay_attach(phone_replay *r, vt_engine *t, virtio_input *in);
/* Callbacks for the machine config (opaque = the phone_replay). */
void phone_replay_frame(void *opaque, uint64_t engine_ns,
                        const uint8_t *pixels, uint32_t width_px,
                        uint32_t height_px);
void phone_replay_delivered(void *opaque, uint64_t tag, uint64_t engine_ns);
/* Bytes the guest wrote on its panlab.input port. */
void phone_replay_port(phone_replay *r, const uint8_t *buf, size_t len_bytes);
/* 1 once "end" is written. */
int phone_replay_done(const phone_replay *r);

#endif
