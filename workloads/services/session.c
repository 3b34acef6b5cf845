/*
 * panlab-session: one run, as /init starts it. It plays the activity
 * manager: it starts the system services and the app, waits until the app
 * is ready for input, replays the script into the injector's uinput device,
 * stops tracing, stops everything and collects the trace.
 *
 * The script's control actions are the activity manager's (replay/README.md):
 *   launch APP    starts app-APP, which takes the foreground; done when it is
 *                 ready (focused, first frame posted), as the first app;
 *   switch APP    asks inputd to give the running app-APP the foreground
 *                 (input goes to it; it raises its surface); done when
 *                 inputd has switched;
 *   wait display  done when the compositor next flushes the display (it
 *                 reports the flush time);
 *   wait idle     done at the end of the first 100 ms window, back to back
 *                 from the wait's start, in which the online CPUs were idle
 *                 95% of the time or more by the kernel's accounting
 *                 (/proc/stat, 10 ms ticks at HZ=100).
 * A script whose first action is a launch starts with no app: ready is when
 * the services are up. Each action's end time is where the script's clock
 * runs on from.
 *
 *   panlab-session --workload NAME --script PATH [--trace PATH] [--bin-dir DIR]
 *                  [--injector uinput|host] [--spill PATH] [--native]
 *
 * --native: app-APP is an unmodified program (workloads/oss) that drives
 * the display (/dev/fb0) and reads input itself, so the platform's services
 * (servicemanager, compositor, inputd) are not started: the compositor would
 * take the display and inputd the input device. `wait display` and `switch`
 * need them and fail with a line naming the script line. The program's stderr
 * goes to a file (APP_STDERR, below), copied to the console at the end; if the
 * program dies during the script, the session's error quotes its last lines.
 *
 * With PANLAB_RECORD=1 in the environment (a kernel command-line word
 * without a dot reaches /init's environment), the session also records the
 * injected input: `panlab-replay record` reads the injector's device from
 * ready on, and the script it wrote is printed on stdout between the lines
 * "panlab-recorded-script begin" and "panlab-recorded-script end", for a
 * test to replay it (tests/integration/test_record_replay.sh). uinput only.
 *
 * With PANLAB_COUNT_APP=1, the session counts the instructions the app's
 * threads execute, from its exec to its exit, with two perf events it opens
 * before starting it (inherited by the programs it starts after them, each
 * enabled at their exec, so the session's own work is not counted): user mode
 * only, and every mode (the kernel logger's probes run in the threads' own
 * context). It prints "panlab-session: app instructions: U user, A all" at
 * the end, for make bench's traced against untraced replay (emu/README.md,
 * "PMU"). Not with PANLAB_RECORD=1, whose recorder would be counted too.
 *
 * If the machine has an SD card (ext2: /dev/mmcblk0 on the phone's PL181, /dev/vda on qemu's
 * virtio-blk), it is mounted at /data/media, sdcardd serves it to the apps at /sdcard through
 * FUSE (sdcard.h), and the collector spills to /data/media when the host link fails (--spill
 * overrides the path).
 *
 * The collector drains the loggers every --drain-ms (default 100 ms; 0:
 * only at the end), so a run longer than the 15 MB and 30 MB buffers hold
 * loses nothing; the trace goes to the host at the end (collect.h). With
 * PANLAB_TRACE=0 (tracing off) it does not drain during the run.
 *
 * NAME is APP[@VARIANT][+LOAD...]: app-APP runs with a background `panlab-stress LOAD`
 * process per LOAD (cpu, mem, io, net), or the configuration daemon `panlab-configd` for LOAD
 * configd, started before the app and stopped after it. A VARIANT only
 * names another script for the same app (the caller passes it as --script).
 *
 * With --injector host the machine plays the script (the phone backend
 * injects through virtio-input and takes ground truth at its devices): the
 * session announces "ready <t_ns>" on the panlab.input port, does the
 * control actions at their times, announcing "resume <t_ns>" after each (the
 * machine times the inputs after it from there), and waits out the script's
 * duration on the same clock.
 *
 * Synchronisation is by hand-shake, never by sleeping: each child gets the
 * write end of a pipe as PANLAB_READY_FD (include/panlab/ready.h).
 * Ground truth of the inputs (ready, input, end lines) goes to the
 * panlab.input port through the replay library; frames go to panlab.display
 * from the compositor. Any failure: one line on stderr, exit status 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "panlab/binder.h"
#include "panlab/clock.h"
#include "panlab/cpustat.h"
#include "panlab/collect.h"
#include "panlab/guest_abi.h"
#include "panlab/replay.h"
#include "panlab/sdcard.h"
#include "panlab/spawn.h"
#include "panlab/vport.h"
#include "panlab/wire.h"
#include "panlab/error.h"

#define RECORDED_SCRIPT "/tmp/panlab-recorded.rply"
#define KLOG_ENABLE "/sys/module/panlab_klog/parameters/enable"
/* The system's own side of the card, which outlives sdcardd at teardown. */
#define SDCARD_SPILL PL_SDCARD_LOWER "/panlab-trace.spill"

struct child {
	char name[64];
	pid_t pid;		/* 0: not running */
};

/* Started children in start order, killed on any error exit so the guest can power off. */
#define MAX_LOADS 4
#define DEFAULT_DRAIN_MS 100
#define MAX_APPS 4
/* sdcardd, servicemanager, compositor, inputd, svc-content, panlab-replay; the loads; the
 * apps */
static struct child children[6 + MAX_LOADS + MAX_APPS];
static size_t nchildren;

static void kill_children(void)
{
	for (size_t i = 0; i < nchildren; i++)
		if (children[i].pid > 0)
			kill(children[i].pid, SIGKILL);
}

/* Start bin_dir/name with argv[1..] = args (NULL-terminated, may be NULL) and block until it
 * signals ready; returns the time it did. */
static uint64_t start_program(const char *bin_dir, const char *name, char *const *args)
{
	struct child *c = &children[nchildren];
	char *argv[8] = { c->name };
	struct pl_error err;
	uint64_t ready_ns;
	snprintf(c->name, sizeof(c->name), "%s/%s", bin_dir, name);
	for (size_t i = 0; args && args[i] && i + 2 < sizeof(argv) / sizeof(argv[0]); i++)
		argv[i + 1] = args[i];
	c->pid = pl_spawn_ready(c->name, argv, &ready_ns, &err);
	if (c->pid < 0) {
		c->pid = 0;
		pl_die("%s", err.msg);
	}
	nchildren++;
	return ready_ns;
}

static uint64_t start_child(const char *bin_dir, const char *name, char *arg)
{
	return start_program(bin_dir, name, (char *[]){ arg, NULL });
}

static uint64_t start_service(const char *bin_dir, const char *name)
{
	return start_child(bin_dir, name, NULL);
}

/*
 * Binder, where the kernel has binderfs mounted (/init does): create the
 * device and start the service manager before anything that may use it.
 */
static void start_binder(const char *bin_dir)
{
	if (access(PL_BINDER_CONTROL, F_OK) != 0)
		return;
	int err = pl_binderfs_add_device(PL_BINDER_CONTROL, "binder");
	if (err && err != -EEXIST)
		pl_die("create binder device with %s: %s", PL_BINDER_CONTROL, strerror(-err));
	start_service(bin_dir, "servicemanager");
}

/*
 * An unmodified program's stderr (--native): /oss/bin/panlab-launch sends it to APP_STDERR
 * (PANLAB_APP_STDERR), since the program has no other way to say why it failed. The session
 * copies it to the console (the run folder's console.log) once the program has stopped, and
 * quotes its last lines when the program died during the script.
 */
#define APP_STDERR "/tmp/panlab-app.stderr"
#define APP_STDERR_QUOTED 3 /* lines */
#define APP_STDERR_LINE_BYTES 200

/* Prints the app's stderr on stdout, each line after "NAME stderr: ", and puts its last
 * non-empty lines, joined by " | ", in tail (empty when it wrote none). */
static void app_stderr(const char *name, char *tail, size_t len)
{
	char last[APP_STDERR_QUOTED][APP_STDERR_LINE_BYTES];
	char *line = NULL;
	size_t cap = 0, n = 0, used = 0;
	FILE *f = fopen(APP_STDERR, "re");
	tail[0] = 0;
	if (!f)
		return;
	while (getline(&line, &cap, f) >= 0) {
		line[strcspn(line, "\r\n")] = 0;
		printf("%s stderr: %s\n", name, line);
		if (line[0])
			snprintf(last[n++ % APP_STDERR_QUOTED], APP_STDERR_LINE_BYTES, "%s", line);
	}
	free(line);
	fclose(f);
	fflush(stdout);
	for (size_t i = n > APP_STDERR_QUOTED ? n - APP_STDERR_QUOTED : 0; i < n && used < len; i++)
		used += (size_t)snprintf(tail + used, len - used, "%s%s", used ? " | " : "",
					 last[i % APP_STDERR_QUOTED]);
}

static void check_alive(struct child *c, bool native_app)
{
	int status;
	if (c->pid > 0 && waitpid(c->pid, &status, WNOHANG) == c->pid) {
		char how[64], tail[APP_STDERR_QUOTED * (APP_STDERR_LINE_BYTES + 3)];
		c->pid = 0;
		pl_describe_status(status, how, sizeof(how));
		if (!native_app)
			pl_die("%s exited during the script (%s)", c->name, how);
		app_stderr(c->name, tail, sizeof(tail));
		if (tail[0])
			pl_die("%s exited during the script (%s); its stderr ends: \"%s\"", c->name,
			       how, tail);
		pl_die("%s exited during the script (%s), with nothing on stderr", c->name, how);
	}
}

/* An unmodified program (--native) is killed: its own exit path is not the platform's to check
 * (fbi 2.10 crashes on SIGTERM once it has given its console back). */
static void stop(struct child *c, bool native)
{
	int status, sig = native ? SIGKILL : SIGTERM;
	if (kill(c->pid, sig) < 0 || waitpid(c->pid, &status, 0) != c->pid)
		pl_die("stop %s: %s", c->name, strerror(errno));
	c->pid = 0;
	if (native && WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL)
		return;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		char how[64];
		pl_describe_status(status, how, sizeof(how));
		pl_die("%s failed on stop (%s)", c->name, how);
	}
}

/*
 * An instructions counter of the programs this thread starts from now on (inherit), from their
 * exec (enable_on_exec: this thread never execs, so its own work is not counted).
 */
static int open_app_counter(bool user_only)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_HARDWARE,
		.size = sizeof(a),
		.config = PERF_COUNT_HW_INSTRUCTIONS,
		.disabled = 1,
		.inherit = 1,
		.enable_on_exec = 1,
		.exclude_kernel = user_only,
	};
	int fd = (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		pl_die("PANLAB_COUNT_APP=1: perf_event_open instructions%s: %s",
		       user_only ? ":u" : "", strerror(errno));
	return fd;
}

/* What a counter of open_app_counter() counted, its exited children's counts included. */
static uint64_t read_app_counter(int fd)
{
	uint64_t n;
	if (read(fd, &n, sizeof(n)) != (ssize_t)sizeof(n))
		pl_die("PANLAB_COUNT_APP=1: cannot read the app's instructions: %s",
		       strerror(errno));
	close(fd);
	return n;
}

/* Stop the kernel logger before teardown so the trace ends with the script. */
static void disable_kernel_tracing(void)
{
	int fd = open(KLOG_ENABLE, O_WRONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return;
		pl_die("open %s: %s", KLOG_ENABLE, strerror(errno));
	}
	if (write(fd, "0\n", 2) != 2)
		pl_die("write %s: %s", KLOG_ENABLE, strerror(errno));
	close(fd);
}

/* The recorder wrote its script when it stopped (SIGTERM, with the other children). */
static void print_recorded_script(void)
{
	FILE *f = fopen(RECORDED_SCRIPT, "re");
	if (!f)
		pl_die("open %s: %s", RECORDED_SCRIPT, strerror(errno));
	char line[256];
	printf("panlab-recorded-script begin\n");
	while (fgets(line, sizeof(line), f))
		fputs(line, stdout);
	printf("panlab-recorded-script end\n");
	fclose(f);
}

static void sleep_until(uint64_t t_ns)
{
	struct timespec ts = { .tv_sec = (time_t)(t_ns / 1000000000u),
			       .tv_nsec = (long)(t_ns % 1000000000u) };
	int err;
	while ((err = clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL)) == EINTR)
		;
	if (err)
		pl_die("clock_nanosleep: %s", strerror(err));
}

/* The activity manager's side of the script: what its control actions need. */
struct activity_manager {
	const char *bin_dir;
	const char *script_path;	/* names the script in errors */
	int inputd_sock;	/* -1 until the first switch */
	int compositor_sock;	/* -1 until the first wait display */
	bool native;		/* --native: no compositor or inputd to ask */
};

/* "script:line: what failed, expected what", as the parser's errors. */
__attribute__((format(printf, 4, 5)))
static int control_fail(const struct activity_manager *am, struct pl_error *err,
			const struct pl_action *a, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	pl_error_vformat(err, snprintf(err->msg, sizeof(err->msg), "%s:%u: ", am->script_path,
				       (unsigned)a->line), fmt, ap);
	va_end(ap);
	return -1;
}

static struct child *find_app(const struct activity_manager *am, const char *app)
{
	char name[sizeof(children[0].name)];
	snprintf(name, sizeof(name), "%s/app-%s", am->bin_dir, app);
	for (size_t i = 0; i < nchildren; i++)
		if (children[i].pid > 0 && !strcmp(children[i].name, name))
			return &children[i];
	return NULL;
}

/* One request and its reply on a service socket, connected on first use. */
static int ask(int *sock, const char *service, struct pl_wire *m, uint64_t timeout_ns)
{
	if (*sock < 0 && (*sock = pl_wire_connect(service)) < 0)
		pl_die("connect to @%s: %s", service, strerror(-*sock));
	int err = pl_wire_send(*sock, m, -1);
	if (err)
		pl_die("send to @%s: %s", service, strerror(-err));
	struct pollfd p = { .fd = *sock, .events = POLLIN };
	int ms = timeout_ns / 1000000u > 3600000u ? 3600000 : (int)(timeout_ns / 1000000u);
	int r;
	while ((r = poll(&p, 1, ms)) < 0 && errno == EINTR)
		;
	if (r < 0)
		pl_die("poll @%s: %s", service, strerror(errno));
	if (r == 0)
		return -ETIMEDOUT;
	if ((r = pl_wire_recv(*sock, m, NULL)) <= 0)
		pl_die("reply from @%s: %s", service, r ? strerror(-r) : "connection closed");
	return 0;
}

static void read_cpu_ticks(struct pl_cpu_ticks *t)
{
	int err = pl_cpu_ticks_read(t);
	if (err)
		pl_die("read /proc/stat: %s", strerror(-err));
}

#define IDLE_WINDOW_NS 100000000ull	/* 10 ticks at HZ=100: the accounting's resolution */
#define IDLE_PERCENT 95

static int wait_idle(const struct activity_manager *am, const struct pl_action *a,
		     uint64_t *resume_ns, struct pl_error *err)
{
	uint64_t start_ns = pl_now_ns(), t_ns = start_ns;
	struct pl_cpu_ticks before, now;
	read_cpu_ticks(&before);
	while (t_ns - start_ns < a->timeout_ns) {
		t_ns += IDLE_WINDOW_NS;
		sleep_until(t_ns);
		read_cpu_ticks(&now);
		if (pl_cpu_idle_between(&before, &now, IDLE_PERCENT)) {
			*resume_ns = t_ns;
			return 0;
		}
		before = now;
	}
	char d[32];
	pl_format_duration(d, sizeof(d), a->timeout_ns);
	return control_fail(am, err, a, "wait idle: the system was not idle within %s, "
			    "expected a longer timeout= or a script that lets it rest", d);
}

static int am_control(void *ctx, const struct pl_action *a, uint64_t *resume_ns, struct pl_error *err)
{
	struct activity_manager *am = ctx;
	struct pl_wire m = { 0 };
	char program[64];
	struct child *c = (a->kind == PL_ACTION_LAUNCH || a->kind == PL_ACTION_SWITCH)
				  ? find_app(am, a->app) : NULL;
	if (am->native && (a->kind == PL_ACTION_SWITCH || a->kind == PL_ACTION_WAIT_DISPLAY))
		return control_fail(am, err, a, "%s needs the platform's %s, which an "
				    "unmodified app (--native) runs without; expected wait idle",
				    a->kind == PL_ACTION_SWITCH ? "switch" : "wait display",
				    a->kind == PL_ACTION_SWITCH ? "inputd" : "compositor");
	switch (a->kind) {
	case PL_ACTION_LAUNCH:
		if (c)
			return control_fail(am, err, a, "app-%s is running already, expected "
					    "switch", a->app);
		if (nchildren == sizeof(children) / sizeof(children[0]))
			return control_fail(am, err, a, "too many processes to launch app-%s, "
					    "expected fewer launches", a->app);
		snprintf(program, sizeof(program), "app-%s", a->app);
		*resume_ns = start_child(am->bin_dir, program, NULL);
		return 0;
	case PL_ACTION_SWITCH:
		if (!c)
			return control_fail(am, err, a, "app-%s is not running, expected launch "
					    "before switch", a->app);
		m = (struct pl_wire){ .type = PL_WIRE_FOCUS_SET, .pid = (uint32_t)c->pid };
		if (ask(&am->inputd_sock, PL_INPUTD_SOCKET, &m, a->timeout_ns + 10000000000ull) ||
		    m.type != PL_WIRE_FOCUS_SET || m.code)
			return control_fail(am, err, a, "inputd could not give app-%s the "
					    "foreground, expected an app connected to inputd", a->app);
		*resume_ns = pl_now_ns();
		return 0;
	case PL_ACTION_WAIT_DISPLAY:
		m.type = PL_WIRE_FRAME_WATCH;
		if (ask(&am->compositor_sock, PL_COMPOSITOR_SOCKET, &m, a->timeout_ns) ||
		    m.type != PL_WIRE_FRAME) {
			char d[32];
			pl_format_duration(d, sizeof(d), a->timeout_ns);
			return control_fail(am, err, a, "wait display: no display update "
					    "within %s, expected a longer timeout=", d);
		}
		*resume_ns = m.t_ns;
		return 0;
	default:
		return wait_idle(am, a, resume_ns, err);
	}
}

/* The host plays the inputs from ready_ns on (--injector host); the session does the control
 * actions at their times and tells the host when each is done, as the player would. */
static void run_for_host_injector(int port_fd, const struct pl_script *script, uint64_t ready_ns,
				  struct activity_manager *am)
{
	char line[PL_HANDSHAKE_LINE_BYTES];
	struct pl_error err;
	int n = pl_handshake_format(line, sizeof(line), PL_HANDSHAKE_READY, ready_ns);
	if (write(port_fd, line, (size_t)n) != n)
		pl_die("write ready line: %s", strerror(errno));
	uint64_t base_ns = ready_ns;
	for (size_t i = 0; i < pl_script_action_count(script); i++) {
		const struct pl_action *a = pl_script_action(script, i);
		uint64_t resume_ns;
		if (pl_action_is_input(a))
			continue;
		sleep_until(base_ns + a->at_ns);
		if (am_control(am, a, &resume_ns, &err) < 0)
			pl_die("%s", err.msg);
		n = pl_handshake_format(line, sizeof(line), PL_HANDSHAKE_RESUME, resume_ns);
		if (write(port_fd, line, (size_t)n) != n)
			pl_die("write resume line: %s", strerror(errno));
		base_ns = pl_script_base_ns(resume_ns, a->at_ns);
	}
	sleep_until(base_ns + pl_script_duration_ns(script));
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "workload", required_argument, NULL, 'w' },
		{ "script", required_argument, NULL, 's' },
		{ "trace", required_argument, NULL, 't' },
		{ "bin-dir", required_argument, NULL, 'b' },
		{ "injector", required_argument, NULL, 'i' },
		{ "spill", required_argument, NULL, 'p' },
		{ "drain-ms", required_argument, NULL, 'd' },
		{ "native", no_argument, NULL, 'n' },
		{ 0 },
	};
	const char *workload = NULL, *script_path = NULL, *bin_dir = "/bin", *injector = "uinput";
	bool native = false;
	struct pl_collect_opts collect = { .out_path = NULL,
					   .shm_dir = PL_COLLECT_DEFAULT_SHM_DIR,
					   .klog_path = PL_COLLECT_DEFAULT_KLOG,
					   .drain_period_ms = DEFAULT_DRAIN_MS };
	int o;
	while ((o = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (o) {
		case 'w': workload = optarg; break;
		case 's': script_path = optarg; break;
		case 't': collect.out_path = optarg; break;
		case 'b': bin_dir = optarg; break;
		case 'i': injector = optarg; break;
		case 'p': collect.spill_path = optarg; break;
		case 'n': native = true; break;
		case 'd':
			if (pl_collect_parse_period_ms(optarg, 0, &collect.drain_period_ms) != 0)
				pl_die("--drain-ms: expected milliseconds from 0 to 3600000, got '%s'",
				       optarg);
			break;
		default: workload = NULL; optind = argc + 1; break;
		}
	}
	bool host_injects = !strcmp(injector, "host");
	if (!workload || !script_path || optind != argc || (!host_injects && strcmp(injector, "uinput")))
		pl_die("usage: panlab-session --workload NAME --script PATH [--trace PATH] [--bin-dir DIR] "
		       "[--injector uinput|host] [--spill PATH] [--drain-ms MS] [--native]");
	atexit(kill_children);

	struct pl_error err;
	struct pl_script *script;
	if (pl_script_parse_file(script_path, &script, &err) != 0)
		pl_die("%s", err.msg);

	char trace_port[64], gt_path[64];
	if (!collect.out_path) {
		if (pl_vport_path(PL_PORT_TRACE, trace_port, sizeof(trace_port)) != 0)
			pl_die("no virtio port %s; give --trace PATH", PL_PORT_TRACE);
		collect.out_path = trace_port;
	}
	/* The port exists only under a backend that records ground truth. */
	if (pl_vport_path(PL_PORT_INPUT, gt_path, sizeof(gt_path)) != 0)
		snprintf(gt_path, sizeof(gt_path), "/dev/null");
	int gt_fd = open(gt_path, O_WRONLY | O_CLOEXEC);
	if (gt_fd < 0)
		pl_die("open %s: %s", gt_path, strerror(errno));
	/* The injector's device exists before inputd scans /dev/input. */
	struct pl_injector *inj = NULL;
	if (!host_injects) {
		if (pl_injector_open(&inj, gt_fd, &err) != 0)
			pl_die("%s", err.msg);
	}

	/* With a card, sdcardd serves it to the apps at /sdcard, and the trace spills to it if
	 * the host link fails (collect.h). */
	bool sdcard = pl_sdcard_mount_lower();
	if (sdcard && !collect.spill_path)
		collect.spill_path = SDCARD_SPILL;
	/* Untraced runs measure the tracer's overhead: the collector's periodic work is part of it. */
	const char *tracing = getenv("PANLAB_TRACE");
	if (tracing && !strcmp(tracing, "0"))
		collect.drain_period_ms = 0;
	struct pl_collector *collector;
	if (pl_collector_start(&collect, &collector, &err) != 0)
		pl_die("%s", err.msg);
	/* The system's daemon: the platform's, in /bin, also beside --native programs. */
	if (sdcard)
		start_service("/bin", "sdcardd");
	if (!native) {
		start_binder(bin_dir);
		start_service(bin_dir, "compositor");
		start_service(bin_dir, "inputd");
	}
	/* The network workloads' content peer: the backend's (the phone's init exports its
	 * address), or svc-content on loopback; the apps only read the address. */
	if (!getenv("PANLAB_CONTENT_HOST")) {
		start_service(bin_dir, "svc-content");
		if (setenv("PANLAB_CONTENT_HOST", "127.0.0.1", 1) != 0)
			pl_die("setenv PANLAB_CONTENT_HOST: %s", strerror(errno));
	}
	/* APP@VARIANT+LOAD+LOAD runs app-APP beside the loads (the replay library's parser). */
	struct pl_workload_name name;
	char app[sizeof(name.app) + 4];
	if (pl_workload_name_parse(workload, &name, &err) < 0)
		pl_die("%s", err.msg);
	snprintf(app, sizeof(app), "app-%s", name.app);
	if (name.nloads > MAX_LOADS)
		pl_die("workload %s: more than %d stress loads", workload, MAX_LOADS);
	for (unsigned i = 0; i < name.nloads; i++) {
		char *l = name.loads[i];
		if (native)
			pl_die("workload %s: stress loads run on the platform, not with --native",
			       workload);
		if (!strcmp(l, "configd"))
			start_service(bin_dir, "panlab-configd");
		else
			start_child(bin_dir, "panlab-stress", l);
	}
	const char *count = getenv("PANLAB_COUNT_APP");
	bool counting = count && !strcmp(count, "1");
	int app_user = counting ? open_app_counter(true) : -1;
	int app_all = counting ? open_app_counter(false) : -1;
	/* A script that launches its first app starts with none: ready is when the services are. */
	const struct pl_action *first = pl_script_action(script, 0);
	if (native && setenv("PANLAB_APP_STDERR", APP_STDERR, 1) != 0)
		pl_die("setenv PANLAB_APP_STDERR: %s", strerror(errno));
	size_t app_child = nchildren; /* the unmodified program's, with --native */
	uint64_t ready_ns = first && first->kind == PL_ACTION_LAUNCH ? pl_now_ns()
								     : start_service(bin_dir, app);
	bool native_app = native && app_child < nchildren;

	const char *record = getenv("PANLAB_RECORD");
	bool recording = record && !strcmp(record, "1");
	if (recording && counting)
		pl_die("PANLAB_COUNT_APP=1 and PANLAB_RECORD=1: the recorder would be counted as the app");
	if (recording) {
		char device[64], start[24];
		if (!inj)
			pl_die("PANLAB_RECORD=1 needs the in-guest injector (--injector uinput)");
		if (pl_injector_device_path(inj, device, sizeof(device), &err) != 0)
			pl_die("%s", err.msg);
		snprintf(start, sizeof(start), "%" PRIu64, ready_ns);
		start_program(bin_dir, "panlab-replay",
			      (char *[]){ "record", "-o", RECORDED_SCRIPT, "--start-ns", start, device,
					  NULL });
	}

	struct activity_manager am = { .bin_dir = bin_dir, .script_path = script_path,
				       .inputd_sock = -1, .compositor_sock = -1, .native = native };
	struct pl_replay_hooks hooks = { am_control, &am };
	if (host_injects)
		run_for_host_injector(gt_fd, script, ready_ns, &am);
	else if (pl_injector_run(inj, script, ready_ns, &hooks, &err) != 0)
		pl_die("%s", err.msg);
	for (int i = (int)nchildren - 1; i >= 0; i--)
		check_alive(&children[i], native_app && (size_t)i == app_child);

	disable_kernel_tracing();
	/* The app first: its loggers stop with it, and it still has its services while it exits. */
	for (int i = (int)nchildren - 1; i >= 0; i--)
		stop(&children[i], native);
	if (native_app) {
		char tail[APP_STDERR_QUOTED * (APP_STDERR_LINE_BYTES + 3)];
		app_stderr(children[app_child].name, tail, sizeof(tail));
	}

	if (counting) {
		uint64_t user = read_app_counter(app_user), all = read_app_counter(app_all);
		printf("panlab-session: app instructions: %" PRIu64 " user, %" PRIu64 " all\n",
		       user, all);
	}
	struct pl_collect_result res;
	if (pl_collector_finish(collector, &res, &err) != 0)
		pl_die("%s", err.msg);
	printf("panlab-session: %s: %zu inputs; trace: %" PRIu32 " sources, %" PRIu64 " records, %" PRIu64
	       " lost, %" PRIu64 " bytes spilled, %" PRIu64 " periodic drains\n", workload,
	       pl_script_action_count(script), res.nsources, res.records, res.lost, res.spilled_bytes,
	       res.drains);
	if (recording)
		print_recorded_script();
	if (inj)
		pl_injector_close(inj);
	if (am.inputd_sock >= 0)
		close(am.inputd_sock);
	if (am.compositor_sock >= 0)
		close(am.compositor_sock);
	pl_script_free(script);
	close(gt_fd);
	return 0;
}
