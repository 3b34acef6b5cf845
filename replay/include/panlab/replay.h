/* panlab replay: the input script language, its parser, and the in-guest injector.
 *
 * Times are uint64_t nanoseconds of virtual time (CLOCK_MONOTONIC in the guest). Script times are
 * relative to the moment the app under test is ready; the injector adds the caller's ready_ns.
 * Screen coordinates are pixels on the 480x800 touchscreen, origin top left.
 *
 * Ownership: pl_script_parse_* allocate the script; the caller frees it with pl_script_free.
 * Actions returned by pl_script_action are owned by the script and live until it is freed.
 * pl_record writes to a caller-owned FILE and leaves it open.
 * pl_injector_open allocates the injector; pl_injector_close destroys the device and frees it.
 * File descriptors passed in (gt_fd, ev_fd) stay owned by the caller and are never closed here.
 * Errors go to a caller-owned struct pl_error (panlab/error.h): one line without a trailing newline.
 * There is no global state; distinct scripts and injectors may be used from different threads.
 *
 * The language is documented in replay/README.md. Ground-truth lines follow include/FORMAT.md.
 */
#ifndef PANLAB_REPLAY_H
#define PANLAB_REPLAY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "panlab/error.h"

#ifdef __cplusplus
extern "C" {
#endif

#define PL_SCREEN_WIDTH_PX 480
#define PL_SCREEN_HEIGHT_PX 800

/* How long a tap or key press stays down. Fixed so that every replay of a script is identical;
 * 50 ms is a brisk finger tap and leaves a down and an up well inside separate input frames. */
#define PL_PRESS_HOLD_NS 50000000ull

/* Upper bounds that keep a small script from expanding (through repeat) into unbounded memory. */
#define PL_SCRIPT_MAX_ACTIONS 1000000u
#define PL_SCRIPT_MAX_NS 1000000000000000ull /* 1e6 s: far beyond any run, and sums never wrap */
#define PL_SCRIPT_MAX_DEPTH 16
#define PL_SWIPE_MAX_STEPS 1000u
/* A swipe's default: one move frame per 60 Hz display frame. */
#define PL_SWIPE_STEP_NS 16666667ull

enum pl_action_kind {
	PL_ACTION_TAP = 1, /* touch down at x_px,y_px carrying param, up after hold_ns (tap,
			    * longpress, monkey) */
	PL_ACTION_KEY = 2, /* key_code down, up after hold_ns (key, text, monkey) */
	PL_ACTION_SWIPE = 3, /* touch down at x_px,y_px carrying param, then steps moves at equal
			      * times to x2_px,y2_px (the last at hold_ns), up after the last */
	/* Control actions: no input reaches the device; hold_ns is 0. The script's clock stops at
	 * one until it is done (a pl_replay_hooks callback says when), then runs on from there. */
	PL_ACTION_WAIT_IDLE = 4,    /* until the system is idle, at most timeout_ns */
	PL_ACTION_WAIT_DISPLAY = 5, /* until the next display update, at most timeout_ns */
	PL_ACTION_LAUNCH = 6,       /* start app-<app> and give it the foreground, until it is ready */
	PL_ACTION_SWITCH = 7,       /* give the running app-<app> the foreground */
};

/* An app name in launch/switch: lower-case letters, digits, '_' and '-', starting with a letter. */
#define PL_APP_NAME_MAX 31
/* A conditional wait's default limit: long enough for any frame or burst of work in the suite. */
#define PL_WAIT_TIMEOUT_NS 10000000000ull

struct pl_action {
	enum pl_action_kind kind;
	uint64_t at_ns;   /* down time, relative to ready */
	uint64_t hold_ns; /* down to up */
	int32_t x_px;     /* tap only */
	int32_t y_px;     /* tap only */
	int32_t param;    /* tap only: the app-defined integer sent as MSC_RAW; 0 if not given */
	uint16_t key_code; /* key only: Linux input event code (KEY_*) */
	uint8_t mods;	   /* key only: PL_MOD_* held with it; 0 if none */
	int32_t x2_px;    /* swipe only: where the touch ends */
	int32_t y2_px;
	uint32_t steps;   /* swipe only: move frames, 1..PL_SWIPE_MAX_STEPS */
	uint32_t line;    /* script line the action came from */
	uint64_t timeout_ns; /* wait idle/display only: the longest the condition may take */
	char app[PL_APP_NAME_MAX + 1]; /* launch/switch only: NUL-terminated app name */
};

/* Whether the action is an input (tap, key, swipe) rather than a control action. Inputs are
 * numbered from 0 in script order, skipping control actions: that is the ground truth's seq. */
static inline int pl_action_is_input(const struct pl_action *a)
{
	return a->kind == PL_ACTION_TAP || a->kind == PL_ACTION_KEY || a->kind == PL_ACTION_SWIPE;
}

/* Input frames of an action, the one builder both injectors use (a pure function: no device, no
 * clock). An input action is frames 0 .. count-1: frame 0 the press (a touch's carries x, y and
 * param as MSC_RAW), frames 1 .. steps a swipe's moves (k/steps of the way, integer arithmetic),
 * the last the release. Each frame is a few events ending with SYN_REPORT, in the Linux input ABI
 * (type, code, value). Control actions have no frames. */
#define PL_FRAME_MAX_EVENTS 5
struct pl_input_event {
	uint16_t type;
	uint16_t code;
	int32_t value;
};
uint32_t pl_action_frame_count(const struct pl_action *a);
/* When frame is due on the script's clock: at_ns, at_ns + hold_ns * k / steps for move k, and
 * at_ns + hold_ns for the release. */
uint64_t pl_action_frame_at_ns(const struct pl_action *a, uint32_t frame);
/* Fills ev with the frame's events; returns how many. */
size_t pl_action_frame(const struct pl_action *a, uint32_t frame,
		       struct pl_input_event ev[PL_FRAME_MAX_EVENTS]);

struct pl_script;

/* Parse a script file. Returns 0 and sets *out, or -1 with err holding
 * "path:line:col: what is wrong, expected what". */
int pl_script_parse_file(const char *path, struct pl_script **out, struct pl_error *err);

/* Parse len bytes of script text; name stands in for the path in error messages. */
int pl_script_parse_buffer(const char *name, const char *text, size_t len, struct pl_script **out,
			   struct pl_error *err);

void pl_script_free(struct pl_script *script);

/* Actions are a flat list in time order with repeat blocks expanded; at_ns is on the script's
 * clock (time since ready, not counting the time control actions took), and each action starts
 * no earlier than the previous one's at_ns + hold_ns.
 * pl_script_action returns NULL for an index past the end. */
size_t pl_script_action_count(const struct pl_script *script);
const struct pl_action *pl_script_action(const struct pl_script *script, size_t index);

/* Script time at its end, including trailing waits: the injector writes "end" no earlier. */
uint64_t pl_script_duration_ns(const struct pl_script *script);

/* The key names the language accepts ("BACK", "HOME", "A", "KEY_1", ...), mapped to KEY_* codes.
 * Returns -1 (or NULL) for an unknown name (or code). Names match without regard to case, with or
 * without a "KEY_" prefix, except digit keys, which need it (a bare number is a code). The
 * returned name is static and parses back to the same code. */
int pl_key_code(const char *name, size_t name_len);
const char *pl_key_name(uint16_t code);

/* Modifiers a key action may hold (`key CTRL+C`, `text "A"`): pressed in the key's press frame
 * before it, released in its release frame after it, as a HID boot keyboard's report sets its
 * modifier byte with the key (HID 1.11, appendix B.1). */
#define PL_MOD_CTRL 1u
#define PL_MOD_SHIFT 2u
#define PL_MOD_ALT 4u
#define PL_MOD_COUNT 3u
/* The i-th modifier (i < PL_MOD_COUNT) in press order: its bit, its key's KEY_* code and name. */
uint8_t pl_mod_bit(size_t i);
uint16_t pl_mod_code(size_t i);
const char *pl_mod_name(size_t i);
/* "CTRL+SHIFT+A" for code with mods, as the script writes it, into buf. Returns what snprintf
 * returns. */
int pl_key_format(char *buf, size_t size, uint16_t code, uint8_t mods);

/* All key codes the language allows, so the injector can declare them on its device;
 * index < pl_key_count(). */
size_t pl_key_count(void);
uint16_t pl_key_code_at(size_t index);

/* Print a duration in the script's own syntax with the largest unit that keeps it exact
 * ("1500ms", "2s", "7ns"). Returns what snprintf returns. */
int pl_format_duration(char *buf, size_t len, uint64_t ns);

/* What the player cannot do itself: control actions (waits on the system, app launch and
 * switch) belong to whoever runs the platform (the session's activity manager). control() is
 * called at the action's time; it does the action and sets *resume_ns to the CLOCK_MONOTONIC
 * time the script's clock runs on from (when the condition held, or the app was ready). Returns
 * 0, or -1 with err set (one line naming the script line). */
struct pl_replay_hooks {
	int (*control)(void *ctx, const struct pl_action *a, uint64_t *resume_ns, struct pl_error *err);
	void *ctx;
};

/* Play a script into ev_fd, which takes Linux struct input_event frames (a uinput device, or a
 * pipe in tests), writing ground truth lines to gt_fd (skipped if gt_fd < 0):
 *   ready <ready_ns>
 *   input <seq> <t_ns> tap <x> <y>   or   input <seq> <t_ns> key <code>
 * (a swipe's line is a tap's at its starting point: the touch began there)
 *   end <t_ns>
 * Each action's down frame is written with one write() at ready_ns + at_ns (clock_nanosleep,
 * CLOCK_MONOTONIC, TIMER_ABSTIME); t_ns is CLOCK_MONOTONIC read right after that write()
 * returned. "end" comes after ready_ns + duration. The file header line of the ground-truth file
 * is the caller's, because other writers (the compositor's frames) share the file.
 * A control action calls hooks->control (an error if hooks is NULL); every later time is then
 * counted from its *resume_ns. Linux only. Returns 0, or -1 with err set. */
int pl_replay_play(int ev_fd, int gt_fd, const struct pl_script *script, uint64_t ready_ns,
		   const struct pl_replay_hooks *hooks, struct pl_error *err);

struct pl_injector;

/* Create the uinput device "panlab-touch" (INPUT_PROP_DIRECT; ABS_X 0..479, ABS_Y 0..799;
 * BTN_TOUCH and every key of pl_key_code_at; MSC_RAW). gt_fd receives ground truth (may be -1):
 * the file's header now, the records as pl_injector_run plays. Linux only. Returns 0, or -1 with err set. */
int pl_injector_open(struct pl_injector **out, int gt_fd, struct pl_error *err);

/* pl_replay_play on the injector's device, each input's write and time read under SCHED_FIFO
 * (so the tasks the write wakes cannot delay the ground truth's time): needs root. */
int pl_injector_run(struct pl_injector *injector, const struct pl_script *script,
		    uint64_t ready_ns, const struct pl_replay_hooks *hooks, struct pl_error *err);

/* The device node (/dev/input/eventN) of the injector's device, for a recorder; returns 0, or -1
 * with err set. */
int pl_injector_device_path(const struct pl_injector *injector, char *path, size_t path_len,
			    struct pl_error *err);

void pl_injector_close(struct pl_injector *injector);

/* Record: read evdev events from ev_fd and write a script to out that replays them: each touch
 * (BTN_TOUCH or BTN_LEFT) becomes a tap at its press's ABS_X/ABS_Y, scaled from the device's
 * range to pixels, with the press frame's MSC_RAW as param, a swipe if it moved more than
 * 8 pixels, or a longpress if held 500 ms or more; each press of a known key becomes a key. A touch is written when it ends.
 * Times count from start_ns (CLOCK_MONOTONIC; the device is switched to that clock) and are
 * rounded to the millisecond. Stops at end of file, when the device goes away, or when a signal
 * interrupts read() (install the handler without SA_RESTART); the script then lasts until the
 * last event, or until the interruption. Linux only. Returns 0, or -1 with err set. */
int pl_record(int ev_fd, FILE *out, uint64_t start_ns, struct pl_error *err);

/* A workload's name, APP[@VARIANT][+LOAD...] (replay/README.md, "Workload names"): the app
 * (app-APP), a variant of its script, and stress loads run beside it. Its script is
 * replay/scripts/NAME.rply; its declared structure is its app and variant's,
 * replay/scripts/APP[@VARIANT].expect, since a load changes no causal path. Each part is
 * letters, digits, '_', '-' and '.' (not first). The one parser of the name: the session,
 * panlab-replay workload and through it the scripts. */
#define PL_WORKLOAD_PART_BYTES 64
#define PL_WORKLOAD_MAX_LOADS 8
struct pl_workload_name {
	char app[PL_WORKLOAD_PART_BYTES];
	char variant[PL_WORKLOAD_PART_BYTES];	 /* "" without one */
	char expect[2 * PL_WORKLOAD_PART_BYTES]; /* APP or APP@VARIANT */
	char loads[PL_WORKLOAD_MAX_LOADS][PL_WORKLOAD_PART_BYTES];
	unsigned nloads;
};

/* Fills a caller-owned name. Returns 0, or -1 with err set. */
int pl_workload_name_parse(const char *name, struct pl_workload_name *out, struct pl_error *err);

#ifdef __cplusplus
}
#endif

#endif
