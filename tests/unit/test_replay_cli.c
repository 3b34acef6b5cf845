/* Tests of the panlab-replay command line: messages, exit codes, and that "list" round-trips. */
#include "test_replay.h"

#include <CUnit/Basic.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

struct run {
	int status; /* exit code, or -1 if it did not exit normally */
	char out[65536];
	char err[4096];
};

static size_t drain(int fd, char *buf, size_t cap)
{
	size_t len = 0;
	ssize_t n;
	while (len + 1 < cap && (n = read(fd, buf + len, cap - 1 - len)) > 0)
		len += (size_t)n;
	buf[len] = '\0';
	return len;
}

/* Runs the CLI with up to two arguments, its stdout into stdout_path (NULL: into r->out). Its
 * stderr is small, so reading stdout to the end first cannot deadlock. */
static void run_cli_to(struct run *r, const char *stdout_path, const char *a1, const char *a2)
{
	int out_pipe[2], err_pipe[2];
	CU_ASSERT_FATAL(pipe(out_pipe) == 0 && pipe(err_pipe) == 0);
	pid_t pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		int out = stdout_path ? open(stdout_path, O_WRONLY) : out_pipe[1];
		dup2(out, STDOUT_FILENO);
		dup2(err_pipe[1], STDERR_FILENO);
		close(out_pipe[0]);
		close(err_pipe[0]);
		execl(PL_REPLAY_CLI, "panlab-replay", a1, a2, (char *)NULL);
		_exit(127);
	}
	close(out_pipe[1]);
	close(err_pipe[1]);
	drain(out_pipe[0], r->out, sizeof r->out);
	drain(err_pipe[0], r->err, sizeof r->err);
	close(out_pipe[0]);
	close(err_pipe[0]);
	int status;
	CU_ASSERT_FATAL(waitpid(pid, &status, 0) == pid);
	r->status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static void run_cli(struct run *r, const char *a1, const char *a2)
{
	run_cli_to(r, NULL, a1, a2);
}

/* Every command's output on a full disk: exit 1 and one line naming stdout. */
static void test_full_stdout(void)
{
	static struct run r;
	char *path = test_replay_temp_file("wait 500ms\ntap 240 400\nwait 310ms\n");
	static const char *const commands[] = { "check", "list", "--help" };
	for (size_t i = 0; i < sizeof commands / sizeof commands[0]; i++) {
		run_cli_to(&r, "/dev/full", commands[i], commands[i][0] == '-' ? NULL : path);
		CU_ASSERT_EQUAL(r.status, 1);
		CU_ASSERT_EQUAL(strncmp(r.err, "panlab-replay: stdout: cannot write: ", 37), 0);
		CU_ASSERT_PTR_EQUAL(strchr(r.err, '\n'), r.err + strlen(r.err) - 1);
	}
	unlink(path);
	free(path);
}

/* A script with a syntax error gets one line naming file, line and column, and exit status 1. */
static void test_check_bad_script(void)
{
	static struct run r;
	char *path = test_replay_temp_file("wait 500ms\ntap 240 400 param=10\n"
					   "wait 310 ms\n");
	run_cli(&r, "check", path);
	char want[512];
	snprintf(
		want, sizeof want,
		"panlab-replay: %s:3:6: bad duration '310', expected a number with a unit ns, us, ms or s (e.g. "
		"500ms or 1.5s)\n",
		path);
	CU_ASSERT_EQUAL(r.status, 1);
	CU_ASSERT_STRING_EQUAL(r.err, want);
	CU_ASSERT_STRING_EQUAL(r.out, "");
	unlink(path);
	free(path);
}

static void test_check_missing_file(void)
{
	static struct run r;
	run_cli(&r, "check", "/nonexistent/x.rply");
	CU_ASSERT_EQUAL(r.status, 1);
	CU_ASSERT_STRING_EQUAL(
		r.err,
		"panlab-replay: /nonexistent/x.rply: cannot open: No such file or directory\n");
}

/* A directory where the script belongs is one line, status 1. */
static void test_check_directory(void)
{
	static struct run r;
	run_cli(&r, "check", "/tmp");
	CU_ASSERT_EQUAL(r.status, 1);
	CU_ASSERT_STRING_EQUAL(r.err, "panlab-replay: /tmp: is a directory, expected a file\n");
}

static void test_record_missing_device(void)
{
	static struct run r;
	run_cli(&r, "record", "/nonexistent/event0");
	CU_ASSERT_EQUAL(r.status, 1);
	CU_ASSERT_STRING_EQUAL(
		r.err, "panlab-replay: /nonexistent/event0: No such file or directory, expected a "
		       "readable evdev device\n");
}

static void test_check_good_script(void)
{
	static struct run r;
	char *path = test_replay_temp_file("wait 1s\nrepeat 3 {\ntap 1 2\nkey BACK\n}\n");
	run_cli(&r, "check", path);
	char want[512];
	snprintf(want, sizeof want,
		 "%s: 6 actions (3 taps, 3 keys), duration 1300ms (1300000000 ns)\n", path);
	CU_ASSERT_EQUAL(r.status, 0);
	CU_ASSERT_STRING_EQUAL(r.out, want);
	CU_ASSERT_STRING_EQUAL(r.err, "");
	unlink(path);
	free(path);
}

/* Control actions are counted apart, and the duration is then a lower bound. */
static void test_check_control_script(void)
{
	static struct run r;
	char *path = test_replay_temp_file("launch a\ntap 1 2\nwait display\nkey BACK\n");
	run_cli(&r, "check", path);
	char want[512];
	snprintf(want, sizeof want,
		 "%s: 4 actions (1 taps, 1 keys, 2 waits and app commands), duration at least "
		 "100ms (100000000 ns)\n", path);
	CU_ASSERT_EQUAL(r.status, 0);
	CU_ASSERT_STRING_EQUAL(r.out, want);
	unlink(path);
	free(path);
}

static void test_usage(void)
{
	static struct run r;
	static const char *const args[][2] = {
		{NULL, NULL}, {"check", NULL}, {"frobnicate", "x"}, {"play", NULL}, {"play", "-g"},
		{"record", NULL}, {"record", "-o"}, {"record", "--start-ns"}, {"record", "--foo"},
	};
	for (size_t i = 0; i < sizeof args / sizeof args[0]; i++) {
		run_cli(&r, args[i][0], args[i][1]);
		CU_ASSERT_EQUAL(r.status, 2);
		CU_ASSERT_PTR_NOT_NULL(strstr(r.err, "usage: panlab-replay check SCRIPT"));
		CU_ASSERT_STRING_EQUAL(r.out, "");
	}
	run_cli(&r, "--help", NULL);
	CU_ASSERT_EQUAL(r.status, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "usage: panlab-replay"));
}

/* "list" prints the flattened script; parsing it gives the same actions and duration. */
static void test_list_round_trip(void)
{
	static struct run r;
	static const char text[] = "launch a1\nwait 3us\nrepeat 2 {\n  tap 5 6 param=9\n"
				   "  key KEY_7\n  wait display\n  wait 1.000000001s\n}\nat 5s\n"
				   "switch b-2\nkey BACK\nwait idle timeout=7ms\nwait 2ms\n";
	char *path = test_replay_temp_file(text);
	run_cli(&r, "list", path);
	CU_ASSERT_EQUAL_FATAL(r.status, 0);
	struct pl_script *a = test_replay_parse(text), *b = test_replay_parse(r.out);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL_FATAL(pl_script_action_count(a), pl_script_action_count(b));
	CU_ASSERT_EQUAL(pl_script_duration_ns(a), pl_script_duration_ns(b));
	for (size_t i = 0; i < pl_script_action_count(a); i++) {
		const struct pl_action *x = pl_script_action(a, i), *y = pl_script_action(b, i);
		CU_ASSERT(x->kind == y->kind && x->at_ns == y->at_ns && x->hold_ns == y->hold_ns &&
			  x->x_px == y->x_px && x->y_px == y->y_px && x->param == y->param &&
			  x->key_code == y->key_code && x->timeout_ns == y->timeout_ns &&
			  strcmp(x->app, y->app) == 0);
	}
	pl_script_free(a);
	pl_script_free(b);
	unlink(path);
	free(path);
}

/* The one parser of a workload's name, in the library and through the CLI. */
static void test_workload_name(void)
{
	struct pl_workload_name w;
	struct pl_error err;
	CU_ASSERT_EQUAL_FATAL(pl_workload_name_parse("asynctask@gestures+cpu+io", &w, &err), 0);
	CU_ASSERT_STRING_EQUAL(w.app, "asynctask");
	CU_ASSERT_STRING_EQUAL(w.variant, "gestures");
	CU_ASSERT_STRING_EQUAL(w.expect, "asynctask@gestures");
	CU_ASSERT_EQUAL(w.nloads, 2);
	CU_ASSERT_STRING_EQUAL(w.loads[1], "io");
	CU_ASSERT_EQUAL_FATAL(pl_workload_name_parse("redditnews@section6-short", &w, &err), 0);
	CU_ASSERT_STRING_EQUAL(w.expect, "redditnews@section6-short");
	CU_ASSERT_EQUAL(w.nloads, 0);
	CU_ASSERT_EQUAL_FATAL(pl_workload_name_parse("asynctask+configd", &w, &err), 0);
	CU_ASSERT_STRING_EQUAL(w.expect, "asynctask");
	CU_ASSERT_STRING_EQUAL(w.variant, "");
	static const struct {
		const char *name, *msg;
	} bad[] = {
		{ "", "workload '': empty app, expected APP[@VARIANT][+LOAD...]" },
		{ "a@", "workload 'a@': empty variant, expected APP[@VARIANT][+LOAD...]" },
		{ "a@b@c", "workload 'a@b@c': a second '@', expected one variant" },
		{ "a+x@b",
		  "workload 'a+x@b': '@' after a load, expected the variant before the loads" },
		{ "a+", "workload 'a+': empty load, expected APP[@VARIANT][+LOAD...]" },
		{ "../a",
		  "workload '../a': app has '.', expected letters, digits, '_', '-' or '.'" },
		{ "a b", "workload 'a b': app has ' ', expected letters, digits, '_', '-' or '.'" },
		{ "a+1+2+3+4+5+6+7+8+9", "workload 'a+1+2+3+4+5+6+7+8+9': more than 8 loads" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		CU_ASSERT_EQUAL(pl_workload_name_parse(bad[i].name, &w, &err), -1);
		CU_ASSERT_STRING_EQUAL(err.msg, bad[i].msg);
	}
	struct run r;
	run_cli(&r, "workload", "asynctask@keys+mem");
	CU_ASSERT_EQUAL(r.status, 0);
	CU_ASSERT_STRING_EQUAL(r.out,
			       "app asynctask\nvariant keys\nexpect asynctask@keys\nloads mem\n");
	run_cli(&r, "workload", "a@b@c");
	CU_ASSERT_EQUAL(r.status, 1);
	CU_ASSERT_STRING_EQUAL(
		r.err, "panlab-replay: workload 'a@b@c': a second '@', expected one variant\n");
	run_cli(&r, "workloads", PL_REPLAY_SCRIPTS);
	CU_ASSERT_EQUAL(r.status, 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\nasynctask\nasynctask+configd\n"));
	CU_ASSERT_PTR_NOT_NULL(strstr(r.out, "\nasynctask@gestures\n"));
}

int test_replay_add_cli_suite(void)
{
	CU_pSuite suite = CU_add_suite("replay_cli", NULL, NULL);
	if (!suite || !CU_add_test(suite, "check bad script", test_check_bad_script) ||
	    !CU_add_test(suite, "check missing file", test_check_missing_file) ||
	    !CU_add_test(suite, "check a directory", test_check_directory) ||
	    !CU_add_test(suite, "check good script", test_check_good_script) ||
	    !CU_add_test(suite, "check control script", test_check_control_script) ||
	    !CU_add_test(suite, "record missing device", test_record_missing_device) ||
	    !CU_add_test(suite, "usage", test_usage) ||
	    !CU_add_test(suite, "list round trip", test_list_round_trip) ||
	    !CU_add_test(suite, "stdout on a full disk", test_full_stdout) ||
	    !CU_add_test(suite, "workload names", test_workload_name))
		return CU_get_error();
	return CUE_SUCCESS;
}
