/*
 * inputd: the input dispatcher (Android's InputReader + InputDispatcher).
 * Reads every evdev device that has a touchscreen or keys, including ones
 * created later (inotify on /dev/input), turns each touch-down into a tap
 * and each key-down into a key input, numbers inputs from 0 in delivery
 * order, and sends them to the focused app: the last one that asked for
 * focus, or the one the activity manager (panlab-session) brought to the
 * foreground with PL_WIRE_FOCUS_SET. The numbering matches the injector's ground-truth input seq because
 * both count the same presses in the same order.
 *
 * A tap's param is the EV_MSC/MSC_RAW value in the touch-down's SYN frame.
 *
 *   inputd
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "panlab/error.h"
#include "panlab/evdev_input.h"
#include "panlab/looper.h"
#include "panlab/ready.h"
#include "panlab/ulog.h"
#include "panlab/wire.h"

#define INPUT_DIR "/dev/input"
#define MAX_DEVICES 16
#define MAX_CLIENTS 8
#define BITS_LONGS(n) (((n) + 8 * sizeof(long) - 1) / (8 * sizeof(long)))

struct device {
	int fd;			/* -1: free */
	dev_t rdev;		/* to open each device once, whether seen by scan or inotify */
	struct pl_evdev_state input;
};

struct inputd {
	struct pl_looper *looper;
	int listen_sock;
	int inotify_fd;
	int clients[MAX_CLIENTS];
	uint32_t client_pid[MAX_CLIENTS];	/* from its focus request; 0: not an app */
	int focused;		/* socket of the focused app, -1: none */
	/* A focus change waits for the app losing the foreground to acknowledge
	 * PL_WIRE_FOCUS_LOST before the new one hears PL_WIRE_FOCUS, so its
	 * EXIT_FOREGROUND precedes the new app's ENTER_FOREGROUND in the trace.
	 * Input goes to the new app at once. Sockets; -1: none. */
	int handover_from;	/* told it lost the foreground, not acknowledged yet */
	int handover_to;	/* to be told it has the foreground */
	int handover_reply;	/* the activity manager waiting for the switch */
	uint64_t next_seq;
	struct device devices[MAX_DEVICES];
};

static bool test_bit(const unsigned long *bits, unsigned bit)
{
	return bits[bit / (8 * sizeof(long))] >> (bit % (8 * sizeof(long))) & 1;
}

/* The focused app's pid, 0 if none or not known. */
static uint32_t focused_pid(const struct inputd *in)
{
	for (int i = 0; i < MAX_CLIENTS; i++)
		if (in->focused >= 0 && in->clients[i] == in->focused)
			return in->client_pid[i];
	return 0;
}

/*
 * INPUT_READ carries how long ago the kernel delivered the input (its evdev
 * time stamp), so the analyzer can start the transaction there: the kernel
 * logger sees the wake of inputd, not which input woke it.
 */
static void send_focused(void *ctx, struct pl_wire *m)
{
	struct inputd *in = ctx;
	m->seq = in->next_seq++;
	uint64_t now = pl_now_ns();
	uint64_t since_ns = now > m->t_ns ? now - m->t_ns : 0;
	pl_ulog(PL_EV_INPUT_READ, m->seq, since_ns > UINT32_MAX ? UINT32_MAX : (uint32_t)since_ns, 0);
	/* Without a focused app the input is dropped but still numbered, as the injector counts it. */
	if (in->focused >= 0)
		(void)pl_wire_send(in->focused, m, -1);
	pl_ulog(PL_EV_INPUT_DISPATCH, m->seq, focused_pid(in), 0);
}

static void close_device(struct inputd *in, struct device *d)
{
	pl_looper_remove_fd(in->looper, d->fd);
	close(d->fd);
	d->fd = -1;
}

static void on_device(int fd, uint32_t events, void *ctx)
{
	struct inputd *in = ctx;
	struct device *d = NULL;
	for (int i = 0; i < MAX_DEVICES; i++)
		if (in->devices[i].fd == fd)
			d = &in->devices[i];
	struct input_event ev[64];
	ssize_t n = (events & EPOLLIN) ? read(fd, ev, sizeof(ev)) : -1;
	if (n < 0 && errno == EAGAIN)
		return;
	if (n <= 0) {
		close_device(in, d);	/* unplugged */
		return;
	}
	for (size_t i = 0; i < (size_t)n / sizeof(ev[0]); i++)
		pl_evdev_feed(&d->input, &ev[i], send_focused, in);
}

/* Touchscreens (ABS_X + BTN_TOUCH) and anything with keys qualify. */
static bool wanted(int fd)
{
	unsigned long ev_bits[BITS_LONGS(EV_CNT)] = { 0 };
	unsigned long key_bits[BITS_LONGS(KEY_CNT)] = { 0 };
	if (ioctl(fd, EVIOCGBIT(0, sizeof(ev_bits)), ev_bits) < 0 || !test_bit(ev_bits, EV_KEY))
		return false;
	return ioctl(fd, EVIOCGBIT(EV_KEY, sizeof(key_bits)), key_bits) >= 0;
}

static void open_device(struct inputd *in, const char *name)
{
	if (strncmp(name, "event", 5) != 0)
		return;
	char path[64];
	snprintf(path, sizeof(path), INPUT_DIR "/%s", name);
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0)
		return;
	struct stat st;
	struct device *d = NULL;
	bool known = fstat(fd, &st) < 0;
	for (int i = 0; i < MAX_DEVICES; i++) {
		if (in->devices[i].fd < 0)
			d = d ? d : &in->devices[i];
		else if (in->devices[i].rdev == st.st_rdev)
			known = true;
	}
	if (known || !d || !wanted(fd)) {
		close(fd);
		return;
	}
	*d = (struct device){ .fd = fd, .rdev = st.st_rdev };
	/* Time stamps on the trace's clock (evdev's default is CLOCK_REALTIME). */
	int clock = CLOCK_MONOTONIC;
	(void)ioctl(fd, EVIOCSCLOCKID, &clock);
	/* Without ABS axes the ranges stay zero and positions pass through unscaled. */
	(void)ioctl(fd, EVIOCGABS(ABS_X), &d->input.ax);
	(void)ioctl(fd, EVIOCGABS(ABS_Y), &d->input.ay);
	if (pl_looper_add_fd(in->looper, fd, EPOLLIN, on_device, in) < 0) {
		close(fd);
		d->fd = -1;
	}
}

static void on_inotify(int fd, uint32_t events, void *ctx)
{
	struct inputd *in = ctx;
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	(void)events;
	ssize_t n = read(fd, buf, sizeof(buf));
	for (char *p = buf; n > 0 && p < buf + n;) {
		const struct inotify_event *ie = (const struct inotify_event *)p;
		if (ie->len)
			open_device(in, ie->name);
		p += sizeof(*ie) + ie->len;
	}
}

/* Tell the new foreground app, and the activity manager that asked for it (-1: none). */
static void give_focus(int fd, int reply_fd)
{
	struct pl_wire focus = { .type = PL_WIRE_FOCUS };
	int err = pl_wire_send(fd, &focus, -1);
	struct pl_wire reply = { .type = PL_WIRE_FOCUS_SET, .code = err ? ESRCH : 0 };
	/* A failed send means the peer is gone; its hang-up drops it from the looper. */
	if (reply_fd >= 0)
		(void)pl_wire_send(reply_fd, &reply, -1);
}

static void finish_handover(struct inputd *in)
{
	int to = in->handover_to, reply = in->handover_reply;
	in->handover_from = in->handover_to = in->handover_reply = -1;
	if (to >= 0)
		give_focus(to, reply);
}

/* Give the app on socket fd the foreground (see handover_from). */
static void set_focus(struct inputd *in, int fd, int reply_fd)
{
	finish_handover(in);	/* a change still waiting completes first */
	int old = in->focused;
	struct pl_wire lost = { .type = PL_WIRE_FOCUS_LOST };
	in->focused = fd;
	if (old >= 0 && old != fd && pl_wire_send(old, &lost, -1) == 0) {
		in->handover_from = old;
		in->handover_to = fd;
		in->handover_reply = reply_fd;
		return;
	}
	give_focus(fd, reply_fd);
}

static void drop_client(struct inputd *in, int i)
{
	int fd = in->clients[i];
	if (in->focused == fd)
		in->focused = -1;
	pl_looper_remove_fd(in->looper, fd);
	close(fd);
	in->clients[i] = -1;
	in->client_pid[i] = 0;
	if (in->handover_reply == fd)
		in->handover_reply = -1;
	if (in->handover_to == fd) {
		struct pl_wire reply = { .type = PL_WIRE_FOCUS_SET, .code = ESRCH };
		if (in->handover_reply >= 0)
			(void)pl_wire_send(in->handover_reply, &reply, -1);
		in->handover_from = in->handover_to = in->handover_reply = -1;
	} else if (in->handover_from == fd) {
		finish_handover(in);
	}
}

static void on_client(int fd, uint32_t events, void *ctx)
{
	struct inputd *in = ctx;
	int i = 0;
	while (in->clients[i] != fd)
		i++;
	struct pl_wire m;
	int r = (events & EPOLLIN) ? pl_wire_recv(fd, &m, NULL) : 0;
	if (r <= 0) {
		drop_client(in, i);
		return;
	}
	if (m.type == PL_WIRE_FOCUS_REQUEST) {
		in->client_pid[i] = m.pid;
		set_focus(in, fd, -1);
	} else if (m.type == PL_WIRE_FOCUS_LOST && fd == in->handover_from) {
		finish_handover(in);
	} else if (m.type == PL_WIRE_FOCUS_SET) {
		int app = 0;
		while (app < MAX_CLIENTS && (in->clients[app] < 0 || in->client_pid[app] != m.pid || !m.pid))
			app++;
		struct pl_wire reply = { .type = PL_WIRE_FOCUS_SET, .code = ESRCH };
		if (app < MAX_CLIENTS)
			set_focus(in, in->clients[app], fd);
		else if (pl_wire_send(fd, &reply, -1) < 0)
			drop_client(in, i);
	}
}

static void on_accept(int fd, uint32_t events, void *ctx)
{
	struct inputd *in = ctx;
	(void)events;
	int s = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
	if (s < 0)
		return;
	for (int i = 0; i < MAX_CLIENTS; i++) {
		if (in->clients[i] >= 0)
			continue;
		if (pl_looper_add_fd(in->looper, s, EPOLLIN, on_client, in) < 0)
			break;
		in->clients[i] = s;
		return;
	}
	close(s);
}

int main(void)
{
	static struct inputd in = { .focused = -1, .handover_from = -1, .handover_to = -1,
				    .handover_reply = -1 };
	int r;

	if ((r = pl_ulog_open_from_env()) != 0)
		pl_die("userspace logger: %s", strerror(-r));
	for (int i = 0; i < MAX_DEVICES; i++)
		in.devices[i].fd = -1;
	for (int i = 0; i < MAX_CLIENTS; i++)
		in.clients[i] = -1;
	in.looper = pl_looper_create();
	if (!in.looper)
		pl_die("looper: %s", strerror(errno));

	if ((r = pl_looper_watch_signals(in.looper, NULL, NULL)) != 0)
		pl_die("signalfd: %s", strerror(-r));

	/* devtmpfs makes the directory with the first input device; make it now to watch it. */
	if (mkdir(INPUT_DIR, 0755) < 0 && errno != EEXIST)
		pl_die("mkdir %s: %s", INPUT_DIR, strerror(errno));
	/* Watch before scanning, so a device created in between is not missed. */
	in.inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	if (in.inotify_fd < 0 || inotify_add_watch(in.inotify_fd, INPUT_DIR, IN_CREATE) < 0)
		pl_die("inotify on %s: %s", INPUT_DIR, strerror(errno));
	DIR *dir = opendir(INPUT_DIR);
	if (!dir)
		pl_die("open %s: %s", INPUT_DIR, strerror(errno));
	for (struct dirent *de; (de = readdir(dir)) != NULL;)
		open_device(&in, de->d_name);
	closedir(dir);

	in.listen_sock = pl_wire_listen(PL_INPUTD_SOCKET);
	if (in.listen_sock < 0)
		pl_die("listen on @%s: %s", PL_INPUTD_SOCKET, strerror(-in.listen_sock));
	if ((r = pl_looper_add_fd(in.looper, in.inotify_fd, EPOLLIN, on_inotify, &in)) != 0 ||
	    (r = pl_looper_add_fd(in.looper, in.listen_sock, EPOLLIN, on_accept, &in)) != 0)
		pl_die("event loop: %s", strerror(-r));
	if ((r = pl_ready_signal()) != 0)
		pl_die("signal ready: %s", strerror(-r));
	r = pl_looper_loop(in.looper);
	if (r)
		pl_die("event loop: %s", strerror(-r));
	return 0;
}
