/*
 * Starting a process and waiting for its readiness hand-shake (ready.h):
 * what the session does for the services and the app, and an app does for a
 * service process it binds (the activity manager's job in Android).
 */
#ifndef PANLAB_SPAWN_H
#define PANLAB_SPAWN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include "panlab/error.h"

/*
 * Run path with argv, the caller's environment and PANLAB_READY_FD, and block
 * until the child writes its ready byte. Returns the pid and sets *ready_ns
 * (pl_now_ns() when the byte arrived; may be NULL), or -1 with err set after
 * reaping a child that exited first (exit status 127: exec failed).
 * Safe in a multithreaded process: the child only calls dup2 and execve.
 */
pid_t pl_spawn_ready(const char *path, char *const argv[], uint64_t *ready_ns, struct pl_error *err);

/* Path of program in the directory of the running executable. Returns 0 or -errno. */
int pl_sibling_path(const char *program, char *buf, size_t len);

/* "exit status N", "killed by signal N". */
void pl_describe_status(int status, char *buf, size_t len);

#endif /* PANLAB_SPAWN_H */
