/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A minimal binder client and context manager for the kernel logger's tests
 * and benchmarks: raw BINDER_WRITE_READ, no objects, 4-byte payloads. It
 * speaks the protocol of <linux/android/binder.h> (64-bit binder_uintptr_t,
 * as the 6.1 driver always uses).
 */
#ifndef KLOG_BINDER_H
#define KLOG_BINDER_H

#include <stddef.h>

struct kb {
	int fd;
	void *map;
	size_t map_bytes;
};

/* Creates /dev/binderfs/<name> through binder-control (an existing one is fine). */
void kb_add_device(const char *name);
void kb_open(struct kb *b, const char *path);
void kb_close(struct kb *b);
/* Becomes the context manager (handle 0) and enters the looper. */
void kb_become_manager(struct kb *b);
/* Handles transactions until `count` were received; replies to two-way ones. */
void kb_serve(struct kb *b, int count);
/* Sends one transaction to handle 0; a two-way one waits for the reply. */
void kb_call(struct kb *b, unsigned int code, int oneway);

#endif
