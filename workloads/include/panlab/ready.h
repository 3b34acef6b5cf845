/*
 * Readiness hand-shake between panlab-session and the processes it starts:
 * the session passes the write end of a pipe as PANLAB_READY_FD; the child
 * writes one byte when it can serve (services) or is ready for input (apps).
 * EOF on the pipe instead tells the session the child died first.
 */
#ifndef PANLAB_READY_H
#define PANLAB_READY_H

/* Write the byte and close the fd, if PANLAB_READY_FD is set. Returns 0 or -errno. */
int pl_ready_signal(void);

#endif /* PANLAB_READY_H */
