/*
 * panlab-selftest: guest-side checks of platform parts that need the real
 * kernel, for the integration tests (binder calls, input routing).
 *
 *   panlab-selftest binder
 *   panlab-selftest input
 *   panlab-selftest sdcard
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
 * sdcard: mounts the machine's card at /data/media (the machine must have one) and starts
 * sdcardd, which serves it at /sdcard through FUSE; checks that the boot set the kernel's
 * writeback as Android 4.x did (/proc/sys/vm) and that sdcardd's two request threads are
 * named; then, through /sdcard: mkdir, create, 1 MiB written in 64 KiB writes and fsync'ed,
 * the bytes found in the lower file and read back (buffered and O_DIRECT), rename, truncate,
 * 200 entries listed by readdir (several READDIR requests) and unlinked, statfs, rmdir, and
 * the errors ENOENT, EEXIST and ENOTEMPTY. The request threads must have slept (voluntary
 * switches in /proc) once for each request the caller waited for, less one for each sent in
 * the background, so they, not the caller, did the work;
 * sdcardd must exit 0 on SIGTERM and leave /sdcard unmounted. Prints "panlab-selftest:
 * sdcard ok" with the requests' switch count.
 *
 * input: starts an inputd of its own (on sockets with a private suffix, so a
 * running session is not disturbed), takes the focus like an app, plays a
 * short script through the replay library's injector (the uinput device of
 * real runs) and checks the taps and keys inputd routes: order, sequence
 * numbers, positions and params. Prints "panlab-selftest: input ok".
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/input.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "panlab/binder.h"
#include "panlab/clock.h"
#include "panlab/replay.h"
#include "panlab/sdcard.h"
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

/* The Android 4.x writeback settings /init applies (scripts/guest/init). */
static void check_writeback(void)
{
	static const struct {
		const char *name;
		long value;
	} want[] = { { "dirty_expire_centisecs", 200 }, { "dirty_background_ratio", 5 },
		     { "dirty_ratio", 20 }, { "dirty_writeback_centisecs", 500 } };
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		char path[64];
		long v = -1;
		snprintf(path, sizeof(path), "/proc/sys/vm/%s", want[i].name);
		FILE *f = fopen(path, "re");
		if (!f || fscanf(f, "%ld", &v) != 1)
			pl_die("sdcard: cannot read %s", path);
		fclose(f);
		if (v != want[i].value)
			pl_die("sdcard: vm.%s is %ld, expected %ld (Android 4.x)", want[i].name, v,
			       want[i].value);
	}
}

/* Voluntary switches of pid's threads named sdcardd-fuse*; dies unless there are two. */
static long fuse_thread_switches(pid_t pid)
{
	char dir[64], path[352], line[128];
	long total = 0;
	int threads = 0;
	snprintf(dir, sizeof(dir), "/proc/%d/task", (int)pid);
	DIR *tasks = opendir(dir);
	if (!tasks)
		pl_die("sdcard: %s: %s", dir, strerror(errno));
	for (struct dirent *e; (e = readdir(tasks));) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/status", dir, e->d_name);
		FILE *f = fopen(path, "re");
		bool fuse = false;
		long v;
		while (f && fgets(line, sizeof(line), f)) {
			if (!strncmp(line, "Name:\tsdcardd-fuse", 18))
				fuse = true;
			if (fuse && sscanf(line, "voluntary_ctxt_switches: %ld", &v) == 1) {
				total += v;
				threads++;
			}
		}
		if (f)
			fclose(f);
	}
	closedir(tasks);
	check("sdcard", threads == 2, "sdcardd has not two threads named sdcardd-fuse*");
	return total;
}

static bool mounted(const char *dir, const char *type)
{
	char line[256], want[128];
	snprintf(want, sizeof(want), " %s %s ", dir, type);
	FILE *f = fopen("/proc/mounts", "re");
	bool found = false;
	while (f && !found && fgets(line, sizeof(line), f))
		found = strstr(line, want) != NULL;
	if (f)
		fclose(f);
	return found;
}

static void fill(uint8_t *buf, size_t len, uint32_t seed)
{
	for (size_t i = 0; i < len; i++)
		buf[i] = (uint8_t)((i * 2654435761u + seed) >> 13);
}

/* The whole of path (at most len bytes) into buf; returns the bytes read. */
static size_t read_file(const char *path, uint8_t *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t got = 0;
	ssize_t n = 1;
	if (fd < 0)
		pl_die("sdcard: open %s: %s", path, strerror(errno));
	while (got < len && (n = read(fd, buf + got, len - got)) > 0)
		got += (size_t)n;
	if (n < 0)
		pl_die("sdcard: read %s: %s", path, strerror(errno));
	close(fd);
	return got;
}

#define SD_FILE_BYTES (1u << 20)
#define SD_WRITE_BYTES (64u << 10)
#define SD_ENTRIES 200

static int run_sdcard(void)
{
	static uint8_t data[SD_FILE_BYTES], back[SD_FILE_BYTES];
	static uint8_t direct[SD_WRITE_BYTES] __attribute__((aligned(4096)));
	const char *dir = PL_SDCARD_DIR "/selftest", *lower = PL_SDCARD_LOWER "/selftest";
	char path[PATH_MAX], lpath[PATH_MAX], sdcardd[PATH_MAX];
	struct pl_error err;
	struct stat st;

	check("sdcard", pl_sdcard_mount_lower(), "the machine has no SD card");
	check_writeback();
	int r = pl_sibling_path("sdcardd", sdcardd, sizeof(sdcardd));
	if (r)
		pl_die("path of sdcardd: %s", strerror(-r));
	atexit(stop_helpers);
	helpers[0] = pl_spawn_ready(sdcardd, (char *[]){ sdcardd, NULL }, NULL, &err);
	if (helpers[0] < 0)
		pl_die("%s", err.msg);
	check("sdcard", mounted(PL_SDCARD_DIR, "fuse"), "/sdcard is not a fuse mount");
	long switches = fuse_thread_switches(helpers[0]);
	/* Lower bounds on the requests the caller waits for (sync) and on those sent in the
	 * background (async: RELEASE at each close). A request thread sleeps in read(2) before
	 * each sync request unless it found a background one queued first. */
	unsigned sync = 0, async = 0;

	check("sdcard", mkdir(dir, 0775) == 0, "mkdir /sdcard/selftest failed");
	check("sdcard", mkdir(dir, 0775) != 0 && errno == EEXIST, "mkdir again: no EEXIST");
	snprintf(path, sizeof(path), "%s/a.bin", dir);
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	check("sdcard", fd >= 0, "create /sdcard/selftest/a.bin failed");
	fill(data, sizeof(data), 7);
	for (size_t off = 0; off < sizeof(data); off += SD_WRITE_BYTES)
		check("sdcard", write(fd, data + off, SD_WRITE_BYTES) == SD_WRITE_BYTES,
		      "a 64 KiB write to /sdcard failed");
	check("sdcard", fsync(fd) == 0 && close(fd) == 0, "fsync or close on /sdcard failed");
	sync += 2 + SD_FILE_BYTES / SD_WRITE_BYTES + 2;	/* MKDIR, CREATE, WRITEs, FSYNC, FLUSH */
	async += 1;

	snprintf(lpath, sizeof(lpath), "%s/a.bin", lower);
	check("sdcard", read_file(lpath, back, sizeof(back)) == sizeof(back) &&
		  !memcmp(back, data, sizeof(data)), "the lower file does not hold the bytes written");
	memset(back, 0, sizeof(back));
	check("sdcard", read_file(path, back, sizeof(back)) == sizeof(back) &&
		  !memcmp(back, data, sizeof(data)), "reading /sdcard back gave other bytes");
	fd = open(path, O_RDONLY | O_DIRECT | O_CLOEXEC);
	check("sdcard", fd >= 0 && pread(fd, direct, sizeof(direct), 2 * SD_WRITE_BYTES) ==
		  (ssize_t)sizeof(direct) && !memcmp(direct, data + 2 * SD_WRITE_BYTES, sizeof(direct)),
	      "an O_DIRECT read of /sdcard gave other bytes");
	close(fd);
	sync += 3;	/* OPEN twice, the O_DIRECT READ */
	async += 2;

	char renamed[PATH_MAX];
	snprintf(renamed, sizeof(renamed), "%s/b.bin", dir);
	check("sdcard", rename(path, renamed) == 0, "rename a.bin to b.bin failed");
	check("sdcard", stat(path, &st) != 0 && errno == ENOENT, "a.bin still there after rename");
	check("sdcard", truncate(renamed, 1000) == 0 && stat(renamed, &st) == 0 && st.st_size == 1000,
	      "truncate b.bin to 1000 bytes failed");
	snprintf(lpath, sizeof(lpath), "%s/b.bin", lower);
	check("sdcard", stat(lpath, &st) == 0 && st.st_size == 1000, "the lower b.bin is not 1000 bytes");
	sync += 2;	/* RENAME, SETATTR */

	for (int i = 0; i < SD_ENTRIES; i++) {
		snprintf(path, sizeof(path), "%s/entry-%03d-with-a-longer-name", dir, i);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		check("sdcard", fd >= 0 && close(fd) == 0, "creating a directory entry failed");
	}
	DIR *d = opendir(dir);
	int seen = 0, found_b = 0;
	check("sdcard", d != NULL, "opendir /sdcard/selftest failed");
	for (struct dirent *e; (e = readdir(d));) {
		seen += !strncmp(e->d_name, "entry-", 6);
		found_b += !strcmp(e->d_name, "b.bin");
	}
	closedir(d);
	check("sdcard", seen == SD_ENTRIES && found_b == 1, "readdir did not list every entry once");
	for (int i = 0; i < SD_ENTRIES; i++) {
		snprintf(path, sizeof(path), "%s/entry-%03d-with-a-longer-name", dir, i);
		check("sdcard", unlink(path) == 0, "unlinking a directory entry failed");
	}
	sync += 2 * SD_ENTRIES + 3;	/* CREATEs, UNLINKs, OPENDIR and two READDIRs at least */
	async += SD_ENTRIES + 1;

	struct statvfs sv, lsv;
	check("sdcard", statvfs(PL_SDCARD_DIR, &sv) == 0 && statvfs(PL_SDCARD_LOWER, &lsv) == 0 &&
		  sv.f_blocks == lsv.f_blocks && sv.f_bsize == lsv.f_bsize,
	      "statfs of /sdcard differs from the card's");
	check("sdcard", rmdir(dir) != 0 && errno == ENOTEMPTY, "rmdir of a full directory: no ENOTEMPTY");
	check("sdcard", open(path, O_RDONLY | O_CLOEXEC) < 0 && errno == ENOENT,
	      "opening an unlinked file: no ENOENT");
	check("sdcard", unlink(renamed) == 0 && rmdir(dir) == 0, "unlink b.bin or rmdir failed");
	check("sdcard", stat(lower, &st) != 0 && errno == ENOENT, "the lower directory is still there");
	sync += 5;	/* STATFS, RMDIR, LOOKUP, UNLINK, RMDIR */

	long served = fuse_thread_switches(helpers[0]) - switches;
	if (served < (long)(sync - async))
		pl_die("sdcard: sdcardd's request threads slept %ld times for at least %u requests "
		       "waited for and %u background ones, expected at least %u sleeps", served, sync,
		       async, sync - async);
	check("sdcard", kill(helpers[0], SIGTERM) == 0, "cannot stop sdcardd");
	int status;
	check("sdcard", waitpid(helpers[0], &status, 0) == helpers[0], "cannot reap sdcardd");
	helpers[0] = 0;
	check("sdcard", WIFEXITED(status) && WEXITSTATUS(status) == 0, "sdcardd failed on SIGTERM");
	check("sdcard", !mounted(PL_SDCARD_DIR, "fuse"), "/sdcard still mounted after sdcardd exited");
	printf("panlab-selftest: sdcard ok: %ld request-thread sleeps for at least %u requests\n",
	       served, sync + async);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && strcmp(argv[1], "binder") == 0)
		return run_binder();
	if (argc == 2 && strcmp(argv[1], "input") == 0)
		return run_input();
	if (argc == 2 && strcmp(argv[1], "sdcard") == 0)
		return run_sdcard();
	pl_die("usage: panlab-selftest binder|input|sdcard");
}
