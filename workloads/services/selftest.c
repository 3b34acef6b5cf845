/*
 * panlab-selftest: guest-side checks of platform parts that need the real
 * kernel, for the integration tests (issue 4: binder calls, input routing).
 *
 *   panlab-selftest binder
 *   panlab-selftest input
 *
 * Creates its own binder device in binderfs (each device has its own context
 * manager, so a running session is not disturbed), starts a servicemanager
 * on it from the selftest's own directory, forks a service process (a
 * process cannot reach its own service through a handle), then checks:
 * lookup of a missing name, a duplicate registration, a two-way call with
 * data both ways, an error status from the service, and one-way calls
 * arriving in order. Prints "panlab-selftest: binder ok" and exits 0, or one
 * line naming the failed check and exits 1.
 *
 * input: starts an inputd of its own (on sockets with a private suffix, so a
 * running session is not disturbed), takes the focus like an app, plays a
 * short script through the replay library's injector (the uinput device of
 * real runs) and checks the taps and keys inputd routes: order, sequence
 * numbers, positions and params. Prints "panlab-selftest: input ok".
 */
#include <errno.h>
#include <limits.h>
#include <linux/input.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "panlab/binder.h"
#include "panlab/clock.h"
#include "panlab/die.h"
#include "panlab/replay.h"
#include "panlab/spawn.h"
#include "panlab/wire.h"
#include "panlab/error.h"

#define DEVICE_NAME "selftest-binder"
#define SERVICE_NAME "panlab.selftest"
#define ONE_WAY_CALLS 20

enum { CODE_ECHO = 1, CODE_FAIL = 2, CODE_NOTE = 3 };

struct selftest_service {
	struct pl_binder_service s;
	int notify_fd;		/* gets one byte when all one-way calls arrived in order */
	uint32_t next_note;
};

static int on_transact(struct pl_binder_service *s, uint32_t code, struct pl_parcel *in,
		       struct pl_parcel *reply)
{
	struct selftest_service *t = (struct selftest_service *)s;
	uint32_t v;
	char str[32];

	switch (code) {
	case CODE_ECHO:
		if (!reply || pl_parcel_get_u32(in, &v) || pl_parcel_get_string(in, str, sizeof(str)))
			return -EPROTO;
		return pl_parcel_put_u32(reply, v + 1) ? -ENOMEM : pl_parcel_put_string(reply, str);
	case CODE_FAIL:
		return -EINVAL;
	case CODE_NOTE:
		/* One-way calls to one service are delivered one at a time, in order. */
		if (reply || pl_parcel_get_u32(in, &v) || v != t->next_note)
			return -EPROTO;
		if (++t->next_note == ONE_WAY_CALLS)
			(void)!write(t->notify_fd, "n", 1);
		return 0;
	default:
		return -ENOSYS;
	}
}

static void serve(const char *device, int ready_fd, int notify_fd)
{
	static struct selftest_service t = { .s.on_transact = on_transact };
	struct pl_error err;
	t.notify_fd = notify_fd;
	struct pl_binder *b = pl_binder_open(device, &err);
	if (!b)
		pl_die("service: %s", err.msg);
	int r = pl_binder_add_service(b, SERVICE_NAME, &t.s);
	if (r)
		pl_die("service: register %s: %s", SERVICE_NAME, strerror(-r));
	(void)!write(ready_fd, "r", 1);
	pl_binder_loop(b);
	_exit(1);
}

/* Helpers to stop on any exit, so a failed check leaves no process behind. */
static pid_t helpers[2];

static void stop_helpers(void)
{
	for (int i = 0; i < 2; i++) {
		if (helpers[i] > 0) {
			kill(helpers[i], SIGKILL);
			waitpid(helpers[i], NULL, 0);
		}
	}
}

/* servicemanager on device, from the directory this program runs from. */
static pid_t start_servicemanager(const char *device)
{
	char path[PATH_MAX];
	struct pl_error err;
	int r = pl_sibling_path("servicemanager", path, sizeof(path));
	if (r)
		pl_die("path of servicemanager: %s", strerror(-r));
	pid_t pid = pl_spawn_ready(path, (char *[]){ path, (char *)device, NULL }, NULL, &err);
	if (pid < 0)
		pl_die("%s", err.msg);
	return pid;
}

static void check(const char *test, int ok, const char *what)
{
	if (!ok)
		pl_die("%s: %s", test, what);
}

static int run_binder(void)
{
	const char *device = "/dev/binderfs/" DEVICE_NAME;
	int ready[2], notify[2];
	int r = pl_binderfs_add_device(PL_BINDER_CONTROL, DEVICE_NAME);
	if (r && r != -EEXIST)
		pl_die("create %s with %s: %s", device, PL_BINDER_CONTROL, strerror(-r));
	atexit(stop_helpers);
	helpers[0] = start_servicemanager(device);
	if (pipe(ready) < 0 || pipe(notify) < 0)
		pl_die("pipe: %s", strerror(errno));
	pid_t pid = fork();
	if (pid < 0)
		pl_die("fork: %s", strerror(errno));
	if (pid == 0)
		serve(device, ready[1], notify[1]);
	helpers[1] = pid;
	char byte;
	check("binder", read(ready[0], &byte, 1) == 1, "the service process did not register");

	struct pl_error err;
	struct pl_binder *b = pl_binder_open(device, &err);
	if (!b)
		pl_die("%s", err.msg);
	uint32_t h, missing;
	check("binder", pl_binder_get_service(b, "panlab.no-such-service", &missing) == -ENOENT,
	      "a missing name is not -ENOENT");
	check("binder", pl_binder_get_service(b, SERVICE_NAME, &h) == 0, "lookup failed");
	static struct pl_binder_service dup = { .on_transact = on_transact };
	check("binder", pl_binder_add_service(b, SERVICE_NAME, &dup) == -EEXIST,
	      "a duplicate name is not -EEXIST");

	struct pl_parcel in, reply;
	uint32_t v = 0;
	char str[32] = "";
	pl_parcel_init(&in);
	pl_parcel_put_u32(&in, 41);
	pl_parcel_put_string(&in, "hello");
	check("binder", pl_binder_call(b, h, CODE_ECHO, &in, &reply) == 0, "two-way call failed");
	check("binder", pl_parcel_get_u32(&reply, &v) == 0 && v == 42, "two-way reply value wrong");
	check("binder", pl_parcel_get_string(&reply, str, sizeof(str)) == 0 && strcmp(str, "hello") == 0,
	      "two-way reply string wrong");
	pl_parcel_free(&reply);
	check("binder", pl_binder_call(b, h, CODE_FAIL, &in, &reply) == -EINVAL,
	      "an error status did not come back");
	pl_parcel_free(&in);

	for (uint32_t i = 0; i < ONE_WAY_CALLS; i++) {
		pl_parcel_init(&in);
		pl_parcel_put_u32(&in, i);
		check("binder", pl_binder_call(b, h, CODE_NOTE, &in, NULL) == 0, "one-way call failed");
		pl_parcel_free(&in);
	}
	check("binder", read(notify[0], &byte, 1) == 1, "one-way calls did not all arrive in order");

	pl_binder_close(b);
	printf("panlab-selftest: binder ok\n");
	return 0;
}

static void expect_input(int sock, uint32_t type, uint64_t seq, int32_t x, int32_t y, int32_t param,
			 uint32_t code)
{
	struct pl_wire m;
	check("input", pl_wire_recv(sock, &m, NULL) == 1, "inputd sent nothing");
	check("input", m.type == type && m.seq == seq, "wrong input type or sequence number");
	check("input", type != PL_WIRE_TAP || (m.x_px == x && m.y_px == y && m.param == param),
		    "wrong tap position or param");
	check("input", type != PL_WIRE_KEY || m.code == code, "wrong key code");
}

static int run_input(void)
{
	static const char script_text[] = "tap 100 200 param=77\nkey BACK\ntap 479 799\n";
	char path[PATH_MAX];
	struct pl_error err;
	struct pl_script *script;
	struct pl_injector *inj;

	if (pl_script_parse_buffer("selftest", script_text, sizeof(script_text) - 1, &script, &err) != 0)
		pl_die("%s", err.msg);
	/* The device exists before inputd scans, as in a session. */
	if (pl_injector_open(&inj, -1, &err) != 0)
		pl_die("%s", err.msg);
	setenv("PANLAB_SOCKET_SUFFIX", ".selftest", 1);
	int r = pl_sibling_path("inputd", path, sizeof(path));
	if (r)
		pl_die("path of inputd: %s", strerror(-r));
	atexit(stop_helpers);
	helpers[0] = pl_spawn_ready(path, (char *[]){ path, NULL }, NULL, &err);
	if (helpers[0] < 0)
		pl_die("%s", err.msg);

	int sock = pl_wire_connect(PL_INPUTD_SOCKET);
	check("input", sock >= 0, "cannot connect to inputd");
	struct pl_wire focus = { .type = PL_WIRE_FOCUS_REQUEST, .pid = (uint32_t)getpid() };
	check("input", pl_wire_send(sock, &focus, -1) == 0, "focus request failed");
	struct pl_wire m;
	check("input", pl_wire_recv(sock, &m, NULL) == 1 && m.type == PL_WIRE_FOCUS, "no focus");

	if (pl_injector_run(inj, script, pl_now_ns(), NULL, &err) != 0)
		pl_die("%s", err.msg);
	expect_input(sock, PL_WIRE_TAP, 0, 100, 200, 77, 0);
	expect_input(sock, PL_WIRE_KEY, 1, 0, 0, 0, KEY_BACK);
	expect_input(sock, PL_WIRE_TAP, 2, 479, 799, 0, 0);
	close(sock);
	pl_injector_close(inj);
	pl_script_free(script);
	printf("panlab-selftest: input ok\n");
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "binder") == 0)
		return run_binder();
	if (argc == 2 && strcmp(argv[1], "input") == 0)
		return run_input();
	pl_die("usage: panlab-selftest binder|input");
}
