/*
 * Binder IPC over the kernel's binder driver (binderfs), the way Android's
 * libbinder and servicemanager use it, in C: parcels, calls (two-way and
 * one-way), replies, a binder thread pool, and the service manager protocol.
 * The kernel logger traces binder transactions; nothing is logged here.
 *
 * Handles received in a parcel are acquired (BC_ACQUIRE) before its buffer is
 * freed and kept for the life of the process: services here live as long as
 * the run, so there is no reference release.
 *
 * Ownership: pl_binder_open allocates the connection; pl_binder_close frees
 * it and must only be called when no thread uses it (pool threads block in
 * the driver for the life of the process, so services close at exit). A
 * parcel is the caller's; pl_parcel_free releases its memory. A parcel handed
 * to on_transact is borrowed and valid only during the call. Services are
 * caller-owned and must outlive the connection.
 */
#ifndef PANLAB_BINDER_H
#define PANLAB_BINDER_H

#include <stddef.h>
#include <stdint.h>
#include "panlab/error.h"

#define PL_BINDER_DEVICE "/dev/binderfs/binder"
#define PL_BINDER_CONTROL "/dev/binderfs/binder-control"

struct pl_binder;

/* A flat buffer with the offsets of the binder objects in it. */
struct pl_parcel {
	uint8_t *data;
	size_t size;		/* bytes written */
	size_t cap;		/* 0: borrowed from the driver's buffer */
	size_t pos;		/* read position */
	uint64_t *offsets;	/* binder_size_t offsets of flat_binder_object entries */
	size_t noffsets;
	size_t offsets_cap;
};

void pl_parcel_init(struct pl_parcel *p);
void pl_parcel_free(struct pl_parcel *p);
/* Each put returns 0 or -ENOMEM; each get returns 0 or -EPROTO at the end or on a wrong type. */
int pl_parcel_put_u32(struct pl_parcel *p, uint32_t v);
int pl_parcel_put_u64(struct pl_parcel *p, uint64_t v);
int pl_parcel_put_string(struct pl_parcel *p, const char *s);
int pl_parcel_get_u32(struct pl_parcel *p, uint32_t *v);
int pl_parcel_get_u64(struct pl_parcel *p, uint64_t *v);
/* Copies at most len - 1 bytes and a NUL; -EPROTO if the string does not fit. */
int pl_parcel_get_string(struct pl_parcel *p, char *buf, size_t len);

struct pl_binder_service;
/* On a binder thread; reply is NULL for one-way calls. Returns 0 or -errno, the caller's result. */
typedef int (*pl_transact_fn)(struct pl_binder_service *s, uint32_t code, struct pl_parcel *in,
			      struct pl_parcel *reply);

struct pl_binder_service {
	pl_transact_fn on_transact;
	void *ctx;
};

/* A service object (a local binder) in a parcel. */
int pl_parcel_put_service(struct pl_parcel *p, struct pl_binder_service *s);
/* A handle to a remote service, as the service manager returns it. */
int pl_parcel_put_handle(struct pl_parcel *p, uint32_t handle);
int pl_parcel_get_handle(struct pl_parcel *p, uint32_t *handle);

/* Open and map the driver. Returns NULL with err set. */
struct pl_binder *pl_binder_open(const char *device, struct pl_error *err);
void pl_binder_close(struct pl_binder *b);

/*
 * Call code on handle. Two-way when reply is non-NULL: blocks until the
 * reply, which is copied into *reply (initialised here; the caller frees it
 * after success). One-way when reply is NULL: returns once the driver has
 * queued the call. Returns 0, the service's -errno, -EPIPE if the service
 * died, or -errno.
 */
int pl_binder_call(struct pl_binder *b, uint32_t handle, uint32_t code, const struct pl_parcel *in,
		   struct pl_parcel *reply);

/* Start n binder threads that serve incoming calls. Returns 0 or -errno. */
int pl_binder_start_pool(struct pl_binder *b, unsigned n);
/* Serve incoming calls on the calling thread, forever. Returns only on error (-errno). */
int pl_binder_loop(struct pl_binder *b);

/* Become the context manager (handle 0 in every process), served by s. Returns 0 or -errno. */
int pl_binder_become_context_manager(struct pl_binder *b, struct pl_binder_service *s);

/* Create a device in binderfs through its control file (-EEXIST if present). Returns 0 or -errno. */
int pl_binderfs_add_device(const char *control, const char *name);

/* The service manager's protocol on handle 0. */
enum { PL_SM_ADD_SERVICE = 1, PL_SM_GET_SERVICE = 2 };
#define PL_SM_MAX_NAME 64
/* Register s under name. Returns 0 or -errno (-EEXIST: name taken). */
int pl_binder_add_service(struct pl_binder *b, const char *name, struct pl_binder_service *s);
/* Look name up. Returns 0 with *handle set, or -ENOENT, or -errno. */
int pl_binder_get_service(struct pl_binder *b, const char *name, uint32_t *handle);

#endif /* PANLAB_BINDER_H */
