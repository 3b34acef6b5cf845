/*
 * Messages between apps and the system services, over Linux abstract unix
 * SOCK_SEQPACKET sockets (one struct pl_wire per packet, so no framing and no
 * filesystem path to create). README.md describes each conversation.
 *
 * Ownership: an fd received with a message belongs to the receiver.
 */
#ifndef PANLAB_WIRE_H
#define PANLAB_WIRE_H

#include <stdint.h>

#define PL_DISPLAY_WIDTH_PX 480
#define PL_DISPLAY_HEIGHT_PX 800
#define PL_PIXEL_BYTES 4		/* XRGB8888, the DRM dumb-buffer format */
#define PL_SURFACE_BUFFERS 2		/* an app draws into one while the other is shown */

/* Abstract socket names. PANLAB_SOCKET_SUFFIX, if set, is appended, so concurrent
 * host test runs do not meet each other's sockets. */
#define PL_COMPOSITOR_SOCKET "panlab.compositor"
#define PL_INPUTD_SOCKET "panlab.inputd"

enum pl_wire_type {
	/* app -> compositor */
	PL_WIRE_SURFACE = 1,		/* carries a memfd of PL_SURFACE_BUFFERS full-screen buffers */
	PL_WIRE_VSYNC_REQUEST = 2,	/* send me the next vsync (one tick per request) */
	PL_WIRE_POST = 3,		/* seq = frame seq; buffer = which buffer holds it */
	/* compositor -> app */
	PL_WIRE_VSYNC = 4,		/* seq = vsync count; t_ns = tick time */
	/* app -> inputd */
	PL_WIRE_FOCUS_REQUEST = 5,	/* pid = requesting app; it becomes the foreground window */
	/* inputd -> app */
	PL_WIRE_FOCUS = 6,		/* you are the foreground window */
	PL_WIRE_FOCUS_LOST = 9,		/* another app took the foreground; the app sends it back
					 * once it has logged EXIT_FOREGROUND */
	PL_WIRE_TAP = 7,		/* seq = input seq; x_px, y_px; param (MSC_RAW) */
	PL_WIRE_KEY = 8,		/* seq = input seq; code = KEY_* */
	/* activity manager (panlab-session) <-> inputd */
	PL_WIRE_FOCUS_SET = 10,		/* pid = app to bring to the foreground; the reply has the
					 * same type, code = 0 or a positive errno (ESRCH: no
					 * connected app has that pid) */
	/* app -> compositor */
	PL_WIRE_RAISE = 11,		/* put my surface on top; shown from the next vsync */
	/* activity manager -> compositor, and the reply */
	PL_WIRE_FRAME_WATCH = 12,	/* tell me when the display is next flushed */
	PL_WIRE_FRAME = 13,		/* seq = frame seq; t_ns = when its flush returned */
};

struct pl_wire {
	uint32_t type;
	uint32_t pid;
	uint64_t seq;
	uint64_t t_ns;
	int32_t x_px;
	int32_t y_px;
	int32_t param;
	uint32_t code;
	uint32_t buffer;
	uint32_t reserved;
};

/* Listening socket on the abstract name (nonblocking, close-on-exec). Returns fd or -errno. */
int pl_wire_listen(const char *name);
/* Connected socket (blocking, close-on-exec). Returns fd or -errno. */
int pl_wire_connect(const char *name);
/* Send one message, with pass_fd attached when >= 0. Returns 0 or -errno. */
int pl_wire_send(int sock, const struct pl_wire *m, int pass_fd);
/* Receive one message; *pass_fd gets an attached fd or -1 (may be NULL if none is expected).
 * Returns 1, 0 at end of stream, or -errno (-EPROTO for a malformed packet). */
int pl_wire_recv(int sock, struct pl_wire *m, int *pass_fd);

#endif /* PANLAB_WIRE_H */
