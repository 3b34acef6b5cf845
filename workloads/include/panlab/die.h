/* The one error exit of panlab's guest programs: "prog: message" on stderr, exit status 1. */
#ifndef PANLAB_DIE_H
#define PANLAB_DIE_H

__attribute__((noreturn, format(printf, 1, 2))) void pl_die(const char *fmt, ...);

#endif /* PANLAB_DIE_H */
