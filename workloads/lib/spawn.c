/* See include/panlab/spawn.h. */
#include "panlab/spawn.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "panlab/clock.h"
#include "panlab/error.h"

#define READY_FD 3
#define READY_ENV "PANLAB_READY_FD="

extern char **environ;

void pl_describe_status(int status, char *buf, size_t len)
{
	if (WIFEXITED(status))
		snprintf(buf, len, "exit status %d", WEXITSTATUS(status));
	else if (WIFSIGNALED(status))
		snprintf(buf, len, "killed by signal %d", WTERMSIG(status));
	else
		snprintf(buf, len, "status 0x%x", status);
}

int pl_sibling_path(const char *program, char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len);
	if (n < 0)
		return -errno;
	char *slash = memrchr(buf, '/', (size_t)n);
	if (!slash || (size_t)n == len)
		return -ENAMETOOLONG;
	size_t room = len - (size_t)(slash + 1 - buf);
	return (size_t)snprintf(slash + 1, room, "%s", program) < room ? 0 : -ENAMETOOLONG;
}

/* The caller's environment with PANLAB_READY_FD=3, built before fork. */
static char **child_env(void)
{
	size_t n = 0;
	while (environ[n])
		n++;
	char **env = calloc(n + 2, sizeof(*env));
	if (!env)
		return NULL;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (strncmp(environ[i], READY_ENV, strlen(READY_ENV)) != 0)
			env[k++] = environ[i];
	env[k] = READY_ENV "3";
	return env;
}

pid_t pl_spawn_ready(const char *path, char *const argv[], uint64_t *ready_ns, struct pl_error *err)
{
	int p[2];
	char **env = child_env();
	if (!env || pipe2(p, O_CLOEXEC) < 0) {
		pl_error_set(err, "start %s: %s", path, strerror(env ? errno : ENOMEM));
		free(env);
		return -1;
	}
	pid_t pid = fork();
	if (pid == 0) {
		/* dup2 clears close-on-exec; if the pipe already is READY_FD, clear it by hand. */
		if (p[1] == READY_FD ? fcntl(READY_FD, F_SETFD, 0) < 0 : dup2(p[1], READY_FD) < 0)
			_exit(126);
		execve(path, argv, env);
		_exit(127);
	}
	int fork_errno = errno;
	free(env);
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		pl_error_set(err, "fork %s: %s", path, strerror(fork_errno));
		return -1;
	}
	char byte;
	ssize_t n;
	do
		n = read(p[0], &byte, 1);
	while (n < 0 && errno == EINTR);
	if (ready_ns)
		*ready_ns = pl_now_ns();
	close(p[0]);
	if (n == 1)
		return pid;
	int status = 0;
	waitpid(pid, &status, 0);
	char how[64];
	pl_describe_status(status, how, sizeof(how));
	pl_error_set(err, "%s exited before it was ready (%s)", path, how);
	return -1;
}
