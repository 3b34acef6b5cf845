/* panlab-replay: check, list and play replay scripts (replay/README.md). Exit status: 0 success,
 * 1 a bad script or a failed replay (one-line message on stderr), 2 a usage error. */
#include "panlab/replay.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "panlab/error.h"

#define ERR_LEN 512

static const char usage[] =
	"usage: panlab-replay check SCRIPT     parse; print the action count and duration\n"
	"       panlab-replay list SCRIPT      print the script flattened (repeats expanded)\n"
	"       panlab-replay duration SCRIPT  print its duration in whole seconds, rounded up\n"
	"       panlab-replay workload NAME [app|variant|expect|loads]\n"
	"                                      parse a workload's name APP[@VARIANT][+LOAD...]:\n"
	"                                      every part as 'part value' lines, or one part's value\n"
	"       panlab-replay workloads DIR    the workloads with a script DIR/NAME.rply, sorted\n"
	"       panlab-replay play [-g GT] SCRIPT\n"
	"                                      create the panlab-touch uinput device and play\n"
	"                                      the script now; ground truth to GT or stdout\n"
	"       panlab-replay record [-o FILE] [--start-ns NS] DEVICE\n"
	"                                      write a script of the presses on an evdev DEVICE\n"
	"                                      (/dev/input/eventN) until interrupted, to FILE or\n"
	"                                      stdout, timed from CLOCK_MONOTONIC NS (default now)\n";

static const char prog[] = "panlab-replay";

static int usage_error(const char *what)
{
	fprintf(stderr, "%s: %s\n%s", prog, what, usage);
	return PL_EXIT_USAGE;
}

static struct pl_script *load(const char *path)
{
	struct pl_error err;
	struct pl_script *s;
	if (pl_script_parse_file(path, &s, &err) < 0) {
		pl_error_print(prog, &err);
		return NULL;
	}
	return s;
}

static int cmd_check(const char *path)
{
	struct pl_script *s = load(path);
	if (!s)
		return PL_EXIT_FAILED;
	size_t n = pl_script_action_count(s), taps = 0, swipes = 0, keys = 0;
	for (size_t i = 0; i < n; i++) {
		taps += pl_script_action(s, i)->kind == PL_ACTION_TAP;
		swipes += pl_script_action(s, i)->kind == PL_ACTION_SWIPE;
		keys += pl_script_action(s, i)->kind == PL_ACTION_KEY;
	}
	char d[32], swiped[32] = "", controls[48] = "";
	pl_format_duration(d, sizeof d, pl_script_duration_ns(s));
	if (swipes)
		snprintf(swiped, sizeof swiped, ", %zu swipes", swipes);
	if (n > taps + swipes + keys)
		snprintf(controls, sizeof controls, ", %zu waits and app commands",
			 n - taps - swipes - keys);
	/* Control actions stop the script's clock, so the duration is a lower bound then. */
	printf("%s: %zu actions (%zu taps%s, %zu keys%s), duration %s%s (%" PRIu64 " ns)\n", path,
	       n, taps, swiped, keys, controls, controls[0] ? "at least " : "", d,
	       pl_script_duration_ns(s));
	pl_script_free(s);
	return 0;
}

/* One number for scripts that size a limit by the script (the guest's watchdog): seconds,
 * rounded up; a lower bound when control actions stop the clock, as for check. */
static int cmd_duration(const char *path)
{
	struct pl_script *s = load(path);
	if (!s)
		return PL_EXIT_FAILED;
	printf("%" PRIu64 "\n", (pl_script_duration_ns(s) + 999999999) / 1000000000);
	pl_script_free(s);
	return 0;
}

/* The output is itself a script that parses to the same actions and duration. */
static int cmd_list(const char *path)
{
	struct pl_script *s = load(path);
	if (!s)
		return PL_EXIT_FAILED;
	char t[32];
	for (size_t i = 0; i < pl_script_action_count(s); i++) {
		const struct pl_action *a = pl_script_action(s, i);
		pl_format_duration(t, sizeof t, a->at_ns);
		char hold[32];
		pl_format_duration(hold, sizeof hold, pl_action_is_input(a) ? a->hold_ns : a->timeout_ns);
		if (a->kind == PL_ACTION_TAP && a->hold_ns == PL_PRESS_HOLD_NS)
			printf("at %s\ntap %d %d param=%d\n", t, (int)a->x_px, (int)a->y_px,
			       (int)a->param);
		else if (a->kind == PL_ACTION_TAP)
			printf("at %s\nlongpress %d %d %s param=%d\n", t, (int)a->x_px, (int)a->y_px,
			       hold, (int)a->param);
		else if (a->kind == PL_ACTION_SWIPE)
			printf("at %s\nswipe %d %d %d %d %s steps=%u param=%d\n", t, (int)a->x_px,
			       (int)a->y_px, (int)a->x2_px, (int)a->y2_px, hold, (unsigned)a->steps,
			       (int)a->param);
		else if (a->kind == PL_ACTION_KEY) {
			char k[64];
			pl_key_format(k, sizeof k, a->key_code, a->mods);
			printf("at %s\nkey %s\n", t, k);
		} else if (a->kind == PL_ACTION_LAUNCH || a->kind == PL_ACTION_SWITCH)
			printf("at %s\n%s %s\n", t, a->kind == PL_ACTION_LAUNCH ? "launch" : "switch",
			       a->app);
		else
			printf("at %s\nwait %s timeout=%s\n", t,
			       a->kind == PL_ACTION_WAIT_IDLE ? "idle" : "display", hold);
	}
	pl_format_duration(t, sizeof t, pl_script_duration_ns(s));
	printf("at %s\n", t);
	pl_script_free(s);
	return 0;
}

static int cmd_play(const char *path, const char *gt_path)
{
	struct pl_error err;
	struct pl_script *s = load(path);
	if (!s)
		return PL_EXIT_FAILED;
	int gt_fd = gt_path ? open(gt_path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644)
			    : STDOUT_FILENO;
	if (gt_fd < 0) {
		pl_error_file(&err, gt_path, "%s, expected a writable file", strerror(errno));
		pl_error_print(prog, &err);
		pl_script_free(s);
		return PL_EXIT_FAILED;
	}
	struct pl_injector *inj = NULL;
	int rc = pl_injector_open(&inj, gt_fd, &err);
	if (rc == 0) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		rc = pl_injector_run(inj, s, (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec, NULL,
				     &err);
	}
	if (rc < 0)
		pl_error_print(prog, &err);
	pl_injector_close(inj);
	if (gt_path)
		close(gt_fd);
	pl_script_free(s);
	return rc < 0 ? PL_EXIT_FAILED : PL_EXIT_OK;
}

static void on_stop(int sig)
{
	(void)sig; /* only there to interrupt read() */
}

/* Under panlab-session (PANLAB_READY_FD set, workloads/include/panlab/ready.h): one byte once
 * the device is open, so no input is missed. */
static void signal_ready(void)
{
	const char *env = getenv("PANLAB_READY_FD");
	if (!env)
		return;
	int fd = atoi(env);
	if (write(fd, "r", 1) != 1) {
		struct pl_error err;

		pl_error_set(&err, "PANLAB_READY_FD %s: %s", env, strerror(errno));
		pl_error_print(prog, &err);
	}
	close(fd);
}

static int cmd_record(const char *device, const char *out_path, uint64_t start_ns)
{
	struct pl_error err;
	int fd = open(device, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		pl_error_file(&err, device, "%s, expected a readable evdev device",
			      strerror(errno));
		pl_error_print(prog, &err);
		return PL_EXIT_FAILED;
	}
	FILE *out = out_path ? fopen(out_path, "w") : stdout;
	if (!out) {
		pl_error_file(&err, out_path, "%s, expected a writable file", strerror(errno));
		pl_error_print(prog, &err);
		close(fd);
		return PL_EXIT_FAILED;
	}
	struct sigaction sa = {.sa_handler = on_stop}; /* no SA_RESTART: read() must return */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (!start_ns) {
		struct timespec ts;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		start_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	}
	signal_ready();
	int rc = pl_record(fd, out, start_ns, &err);
	if (rc < 0) {
		struct pl_error at;

		pl_error_file(&at, device, "%s", err.msg);
		pl_error_print(prog, &at);
	}
	if (out_path && fclose(out) != 0 && rc == 0) {
		pl_error_file(&err, out_path, "%s, expected a writable file", strerror(errno));
		pl_error_print(prog, &err);
		rc = -1;
	}
	close(fd);
	return rc < 0 ? PL_EXIT_FAILED : PL_EXIT_OK;
}

/* One part of a workload's name, or every part as "part value" lines. */
static int cmd_workload(const char *name, const char *field)
{
	struct pl_workload_name w;
	struct pl_error err;
	char loads[PL_WORKLOAD_MAX_LOADS * PL_WORKLOAD_PART_BYTES] = "";
	if (pl_workload_name_parse(name, &w, &err) < 0) {
		pl_error_print(prog, &err);
		return PL_EXIT_FAILED;
	}
	for (unsigned i = 0; i < w.nloads; i++) {
		if (i)
			strcat(loads, " ");
		strcat(loads, w.loads[i]);
	}
	const char *names[] = { "app", "variant", "expect", "loads" };
	const char *values[] = { w.app, w.variant, w.expect, loads };
	for (size_t i = 0; i < 4; i++) {
		if (!field)
			printf("%s %s\n", names[i], values[i]);
		else if (!strcmp(field, names[i]))
			return printf("%s\n", values[i]) < 0;
	}
	return field ? usage_error("workload's part is app, variant, expect or loads") : 0;
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names of DIR/NAME.rply that parse as workload names, sorted. */
static int cmd_workloads(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **names = NULL;
	size_t n = 0;
	struct pl_error err;
	if (!d) {
		pl_error_file(&err, dir, "cannot open: %s", strerror(errno));
		pl_error_print(prog, &err);
		return PL_EXIT_FAILED;
	}
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		struct pl_workload_name w;
		if (len <= 5 || strcmp(e->d_name + len - 5, ".rply"))
			continue;
		char *name = pl_xcalloc(len - 4, 1);
		memcpy(name, e->d_name, len - 5);
		if (pl_workload_name_parse(name, &w, &err) < 0) {
			struct pl_error at;

			pl_error_file(&at, dir, "%s: %s", e->d_name, err.msg);
			pl_error_print(prog, &at);
			free(name);
			continue;
		}
		names = pl_xrealloc(names, n + 1, sizeof(*names));
		names[n++] = name;
	}
	closedir(d);
	qsort(names, n, sizeof(*names), cmp_names);
	for (size_t i = 0; i < n; i++) {
		printf("%s\n", names[i]);
		free(names[i]);
	}
	free(names);
	return 0;
}

/* The command named by argv, with its exit status. */
static int run_command(int argc, char **argv)
{
	if (argc < 2)
		return usage_error("missing command");
	const char *cmd = argv[1];
	if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0) {
		fputs(usage, stdout);
		return 0;
	}
	if (strcmp(cmd, "check") == 0 || strcmp(cmd, "list") == 0 || strcmp(cmd, "duration") == 0) {
		if (argc != 3)
			return usage_error("expected one SCRIPT");
		return cmd[0] == 'c' ? cmd_check(argv[2]) :
		       cmd[0] == 'l' ? cmd_list(argv[2]) : cmd_duration(argv[2]);
	}
	if (strcmp(cmd, "workload") == 0) {
		if (argc != 3 && argc != 4)
			return usage_error("expected a workload NAME and at most one part");
		return cmd_workload(argv[2], argc == 4 ? argv[3] : NULL);
	}
	if (strcmp(cmd, "workloads") == 0) {
		if (argc != 3)
			return usage_error("expected one DIR");
		return cmd_workloads(argv[2]);
	}
	if (strcmp(cmd, "record") == 0) {
		const char *out_path = NULL;
		uint64_t start_ns = 0;
		int i = 2;
		for (; i < argc && argv[i][0] == '-'; i += 2) {
			if (i + 1 == argc)
				return usage_error("record option without a value");
			if (strcmp(argv[i], "-o") == 0) {
				out_path = argv[i + 1];
			} else if (strcmp(argv[i], "--start-ns") == 0) {
				if (pl_parse_u64(argv[i + 1], UINT64_MAX, &start_ns) < 0)
					return usage_error("--start-ns takes a CLOCK_MONOTONIC time "
							   "in ns");
			} else {
				return usage_error("unknown record option");
			}
		}
		if (i != argc - 1)
			return usage_error("expected one DEVICE");
		return cmd_record(argv[i], out_path, start_ns);
	}
	if (strcmp(cmd, "play") == 0) {
		const char *gt_path = NULL;
		int i = 2;
		if (i < argc && strcmp(argv[i], "-g") == 0) {
			if (i + 1 >= argc)
				return usage_error("-g needs a file");
			gt_path = argv[i + 1];
			i += 2;
		}
		if (argc - i != 1)
			return usage_error("expected one SCRIPT");
		return cmd_play(argv[i], gt_path);
	}
	return usage_error("unknown command");
}

/* Whatever a command printed on stdout must have been written, or it fails. */
int main(int argc, char **argv)
{
	return pl_finish_stdout("panlab-replay", run_command(argc, argv));
}
