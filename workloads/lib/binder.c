/*
 * Binder IPC. See include/panlab/binder.h. The command and return protocol
 * is the kernel's (include/uapi/linux/android/binder.h): every command word
 * is followed by _IOC_SIZE(cmd) bytes of payload.
 */
#include "panlab/binder.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/android/binder.h>
#include <linux/android/binderfs.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "panlab/thread.h"
#include "panlab/error.h"

/* Android's libbinder maps 1 MiB less two pages for transaction buffers. */
#define MAP_BYTES ((1u << 20) - 2 * 4096u)
#define READ_WORDS 64
#define WRITE_WORDS 64

struct pl_binder {
	int fd;
	void *map;
	struct pl_binder_service *context_manager;	/* target of handle 0, if we are it */
};

#define PTR(x) ((binder_uintptr_t)(uintptr_t)(x))

/* --- parcels --- */

void pl_parcel_init(struct pl_parcel *p)
{
	memset(p, 0, sizeof(*p));
}

void pl_parcel_free(struct pl_parcel *p)
{
	if (p->cap) {
		free(p->data);
		free(p->offsets);
	}
	pl_parcel_init(p);
}

/* Reserve n bytes (rounded to 4, as parcels are word aligned) at the end. */
static void *grow(struct pl_parcel *p, size_t n)
{
	n = (n + 3) & ~(size_t)3;
	if (p->size + n > p->cap) {
		size_t cap = p->cap ? p->cap * 2 : 256;
		while (cap < p->size + n)
			cap *= 2;
		uint8_t *d = realloc(p->data, cap);
		if (!d)
			return NULL;
		p->data = d;
		p->cap = cap;
	}
	void *at = p->data + p->size;
	memset(at, 0, n);
	p->size += n;
	return at;
}

int pl_parcel_put_u32(struct pl_parcel *p, uint32_t v)
{
	void *at = grow(p, sizeof(v));
	if (!at)
		return -ENOMEM;
	memcpy(at, &v, sizeof(v));
	return 0;
}

int pl_parcel_put_u64(struct pl_parcel *p, uint64_t v)
{
	void *at = grow(p, sizeof(v));
	if (!at)
		return -ENOMEM;
	memcpy(at, &v, sizeof(v));
	return 0;
}

int pl_parcel_put_string(struct pl_parcel *p, const char *s)
{
	uint32_t len = (uint32_t)strlen(s);
	int err = pl_parcel_put_u32(p, len);
	void *at = err ? NULL : grow(p, len + 1);
	if (!at)
		return -ENOMEM;
	memcpy(at, s, len + 1);
	return 0;
}

static const void *take(struct pl_parcel *p, size_t n)
{
	size_t padded = (n + 3) & ~(size_t)3;
	if (p->pos + padded > p->size)
		return NULL;
	const void *at = p->data + p->pos;
	p->pos += padded;
	return at;
}

int pl_parcel_get_u32(struct pl_parcel *p, uint32_t *v)
{
	const void *at = take(p, sizeof(*v));
	if (!at)
		return -EPROTO;
	memcpy(v, at, sizeof(*v));
	return 0;
}

int pl_parcel_get_u64(struct pl_parcel *p, uint64_t *v)
{
	const void *at = take(p, sizeof(*v));
	if (!at)
		return -EPROTO;
	memcpy(v, at, sizeof(*v));
	return 0;
}

int pl_parcel_get_string(struct pl_parcel *p, char *buf, size_t len)
{
	uint32_t n;
	if (pl_parcel_get_u32(p, &n) || n >= len)
		return -EPROTO;
	const char *at = take(p, (size_t)n + 1);
	if (!at || at[n] != '\0')
		return -EPROTO;
	memcpy(buf, at, (size_t)n + 1);
	return 0;
}

static int put_object(struct pl_parcel *p, const struct flat_binder_object *obj)
{
	if (p->noffsets == p->offsets_cap) {
		size_t cap = p->offsets_cap ? p->offsets_cap * 2 : 4;
		uint64_t *o = realloc(p->offsets, cap * sizeof(*o));
		if (!o)
			return -ENOMEM;
		p->offsets = o;
		p->offsets_cap = cap;
	}
	size_t at = p->size;
	void *dst = grow(p, sizeof(*obj));
	if (!dst)
		return -ENOMEM;
	memcpy(dst, obj, sizeof(*obj));
	p->offsets[p->noffsets++] = at;
	return 0;
}

int pl_parcel_put_service(struct pl_parcel *p, struct pl_binder_service *s)
{
	struct flat_binder_object obj = { .hdr.type = BINDER_TYPE_BINDER, .binder = PTR(s),
					  .cookie = PTR(s) };
	return put_object(p, &obj);
}

int pl_parcel_put_handle(struct pl_parcel *p, uint32_t handle)
{
	struct flat_binder_object obj = { .hdr.type = BINDER_TYPE_HANDLE, .handle = handle };
	return put_object(p, &obj);
}

int pl_parcel_get_handle(struct pl_parcel *p, uint32_t *handle)
{
	struct flat_binder_object obj;
	const void *at = take(p, sizeof(obj));
	if (!at)
		return -EPROTO;
	memcpy(&obj, at, sizeof(obj));
	if (obj.hdr.type != BINDER_TYPE_HANDLE)
		return -EPROTO;
	*handle = obj.handle;
	return 0;
}

/* --- driver --- */

struct pl_binder *pl_binder_open(const char *device, struct pl_error *err)
{
	struct pl_binder *b = calloc(1, sizeof(*b));
	if (!b) {
		pl_error_set(err, "binder: out of memory");
		return NULL;
	}
	b->map = MAP_FAILED;
	b->fd = open(device, O_RDWR | O_CLOEXEC);
	struct binder_version v = { 0 };
	uint32_t max_threads = 0;	/* pool threads are started by us, never on BR_SPAWN_LOOPER */
	const char *step = "open";
	if (b->fd < 0)
		goto fail;
	step = "BINDER_VERSION";
	if (ioctl(b->fd, BINDER_VERSION, &v) < 0)
		goto fail;
	if (v.protocol_version != BINDER_CURRENT_PROTOCOL_VERSION) {
		pl_error_set(err, "%s: protocol %d, expected %d", device, v.protocol_version,
			 BINDER_CURRENT_PROTOCOL_VERSION);
		pl_binder_close(b);
		return NULL;
	}
	step = "BINDER_SET_MAX_THREADS";
	if (ioctl(b->fd, BINDER_SET_MAX_THREADS, &max_threads) < 0)
		goto fail;
	step = "mmap";
	b->map = mmap(NULL, MAP_BYTES, PROT_READ, MAP_PRIVATE | MAP_NORESERVE, b->fd, 0);
	if (b->map == MAP_FAILED)
		goto fail;
	return b;
fail:
	pl_error_set(err, "%s: %s: %s", device, step, strerror(errno));
	pl_binder_close(b);
	return NULL;
}

void pl_binder_close(struct pl_binder *b)
{
	if (!b)
		return;
	if (b->map != MAP_FAILED)
		munmap(b->map, MAP_BYTES);
	if (b->fd >= 0)
		close(b->fd);
	free(b);
}

int pl_binderfs_add_device(const char *control, const char *name)
{
	struct binderfs_device dev = { 0 };
	int fd = open(control, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	snprintf(dev.name, sizeof(dev.name), "%s", name);
	int err = ioctl(fd, BINDER_CTL_ADD, &dev) < 0 ? -errno : 0;
	close(fd);
	return err;
}

/* Commands queued for the next BINDER_WRITE_READ. */
struct out {
	struct pl_binder *b;
	uint32_t words[WRITE_WORDS];
	size_t n;
};

static ssize_t write_read(struct out *o, uint32_t *in, size_t in_bytes);

static void out_cmd(struct out *o, uint32_t cmd, const void *payload, size_t bytes)
{
	size_t words = 1 + (bytes + 3) / 4;
	/* Full (a buffer with many handles): send what is queued first. A failure here shows up
	 * again on the caller's next BINDER_WRITE_READ. */
	if (o->n + words > WRITE_WORDS)
		write_read(o, NULL, 0);
	o->words[o->n++] = cmd;
	memcpy(&o->words[o->n], payload, bytes);
	o->n += (bytes + 3) / 4;
}

/* One BINDER_WRITE_READ: flush o, then read into in (if given). Returns bytes read or -errno. */
static ssize_t write_read(struct out *o, uint32_t *in, size_t in_bytes)
{
	struct binder_write_read bwr = {
		.write_size = o->n * 4, .write_buffer = PTR(o->words),
		.read_size = in ? in_bytes : 0, .read_buffer = PTR(in),
	};
	while (ioctl(o->b->fd, BINDER_WRITE_READ, &bwr) < 0) {
		if (errno != EINTR)
			return -errno;
		/* Retry only what the driver has not consumed yet. */
		bwr.write_buffer += bwr.write_consumed;
		bwr.write_size -= bwr.write_consumed;
		bwr.write_consumed = 0;
	}
	o->n = 0;
	return (ssize_t)bwr.read_consumed;
}

/*
 * Queue BC_ACQUIRE for every handle in a received buffer and BC_FREE_BUFFER
 * for the buffer: freeing drops the references the transaction carried.
 */
static void release_buffer(struct out *o, const struct binder_transaction_data *tr)
{
	const uint8_t *data = (const uint8_t *)(uintptr_t)tr->data.ptr.buffer;
	const binder_size_t *offs = (const binder_size_t *)(uintptr_t)tr->data.ptr.offsets;
	for (size_t i = 0; i < tr->offsets_size / sizeof(binder_size_t); i++) {
		struct flat_binder_object obj;
		if (offs[i] + sizeof(obj) > tr->data_size)
			continue;
		memcpy(&obj, data + offs[i], sizeof(obj));
		if (obj.hdr.type == BINDER_TYPE_HANDLE)
			out_cmd(o, BC_ACQUIRE, &obj.handle, sizeof(obj.handle));
	}
	binder_uintptr_t buf = tr->data.ptr.buffer;
	out_cmd(o, BC_FREE_BUFFER, &buf, sizeof(buf));
}

static void borrow(struct pl_parcel *p, const struct binder_transaction_data *tr)
{
	pl_parcel_init(p);
	p->data = (uint8_t *)(uintptr_t)tr->data.ptr.buffer;
	p->size = tr->data_size;
	p->offsets = (uint64_t *)(uintptr_t)tr->data.ptr.offsets;
	p->noffsets = tr->offsets_size / sizeof(binder_size_t);
}

static void fill_transaction(struct binder_transaction_data *tr, const struct pl_parcel *p)
{
	tr->data_size = p->size;
	tr->offsets_size = p->noffsets * sizeof(binder_size_t);
	tr->data.ptr.buffer = PTR(p->data);
	tr->data.ptr.offsets = PTR(p->offsets);
}

/* An incoming call: run the service, reply unless one-way, release the buffer. */
static void serve(struct pl_binder *b, struct out *o, const struct binder_transaction_data *tr)
{
	struct pl_binder_service *s = tr->cookie ? (struct pl_binder_service *)(uintptr_t)tr->cookie
						 : b->context_manager;
	bool one_way = tr->flags & TF_ONE_WAY;
	struct pl_parcel in, reply;
	borrow(&in, tr);
	pl_parcel_init(&reply);
	int status = s ? s->on_transact(s, tr->code, &in, one_way ? NULL : &reply) : -ENOENT;
	release_buffer(o, tr);
	if (!one_way) {
		struct binder_transaction_data r = { .flags = status ? TF_STATUS_CODE : 0 };
		int32_t code = status;
		if (status) {
			r.data_size = sizeof(code);
			r.data.ptr.buffer = PTR(&code);
		} else {
			fill_transaction(&r, &reply);
		}
		out_cmd(o, BC_REPLY, &r, sizeof(r));
		/* The reply is copied by the driver during this write. */
		write_read(o, NULL, 0);
	}
	pl_parcel_free(&reply);
}

/*
 * Handle one return command at *cmd (advancing past its payload). Returns 1
 * when it ends a call being waited for, 0 otherwise, or -errno.
 */
static int handle_return(struct pl_binder *b, struct out *o, const uint8_t **cur, const uint8_t *end,
			 struct pl_parcel *reply)
{
	uint32_t cmd;
	memcpy(&cmd, *cur, sizeof(cmd));
	size_t size = _IOC_SIZE(cmd);
	const uint8_t *payload = *cur + sizeof(cmd);
	if (payload + size > end)
		return -EPROTO;
	*cur = payload + size;

	switch (cmd) {
	case BR_NOOP:
	case BR_OK:
	case BR_SPAWN_LOOPER:
	case BR_RELEASE:
	case BR_DECREFS:
	case BR_DEAD_BINDER:
	case BR_CLEAR_DEATH_NOTIFICATION_DONE:
	case BR_FINISHED:
		return 0;
	case BR_TRANSACTION_COMPLETE:
		return reply ? 0 : 1;	/* one-way calls end here */
	case BR_INCREFS:
	case BR_ACQUIRE: {
		/* The driver takes a reference on a service of ours: acknowledge it. */
		struct binder_ptr_cookie pc;
		memcpy(&pc, payload, sizeof(pc));
		out_cmd(o, cmd == BR_INCREFS ? BC_INCREFS_DONE : BC_ACQUIRE_DONE, &pc, sizeof(pc));
		return 0;
	}
	case BR_TRANSACTION: {
		struct binder_transaction_data tr;
		memcpy(&tr, payload, sizeof(tr));
		serve(b, o, &tr);
		return 0;
	}
	case BR_REPLY: {
		struct binder_transaction_data tr;
		memcpy(&tr, payload, sizeof(tr));
		int status = 0;
		if (tr.flags & TF_STATUS_CODE) {
			int32_t code = -EPROTO;
			if (tr.data_size >= sizeof(code))
				memcpy(&code, (const void *)(uintptr_t)tr.data.ptr.buffer, sizeof(code));
			status = code < 0 ? code : -EPROTO;
		} else if (reply) {
			/* Copied out so the caller owns it after the driver's buffer is freed. */
			struct pl_parcel borrowed;
			borrow(&borrowed, &tr);
			void *d = grow(reply, borrowed.size);
			uint64_t *offs = borrowed.noffsets ? malloc(borrowed.noffsets * sizeof(*offs)) : NULL;
			if ((borrowed.size && !d) || (borrowed.noffsets && !offs)) {
				free(offs);
				status = -ENOMEM;
			} else {
				reply->size = borrowed.size;
				if (borrowed.size)
					memcpy(reply->data, borrowed.data, borrowed.size);
				if (offs)
					memcpy(offs, borrowed.offsets, borrowed.noffsets * sizeof(*offs));
				reply->offsets = offs;
				reply->noffsets = reply->offsets_cap = borrowed.noffsets;
			}
		}
		release_buffer(o, &tr);
		return status ? status : 1;
	}
	case BR_DEAD_REPLY:
		return -EPIPE;
	case BR_FAILED_REPLY:
	case BR_FROZEN_REPLY:
		return -ECOMM;
	case BR_ERROR: {
		int32_t e;
		memcpy(&e, payload, sizeof(e));
		return e < 0 ? e : -EPROTO;
	}
	default:
		return -EPROTO;
	}
}

/* Read and handle return commands until one ends the call being waited for (else forever). */
static int run(struct pl_binder *b, struct out *o, bool waiting, struct pl_parcel *reply)
{
	uint32_t in[READ_WORDS];
	for (;;) {
		ssize_t n = write_read(o, in, sizeof(in));
		if (n < 0)
			return (int)n;
		const uint8_t *cur = (const uint8_t *)in, *end = cur + n;
		while (cur + sizeof(uint32_t) <= end) {
			int r = handle_return(b, o, &cur, end, reply);
			if (r < 0 || (r == 1 && waiting)) {
				/* Acknowledgements queued on the way out still go to the driver. */
				if (o->n)
					write_read(o, NULL, 0);
				return r < 0 ? r : 0;
			}
		}
	}
}

int pl_binder_call(struct pl_binder *b, uint32_t handle, uint32_t code, const struct pl_parcel *in,
		   struct pl_parcel *reply)
{
	struct out o = { .b = b, .n = 0 };
	struct binder_transaction_data tr = { .target.handle = handle, .code = code,
					      .flags = reply ? 0 : TF_ONE_WAY };
	fill_transaction(&tr, in);
	if (reply)
		pl_parcel_init(reply);
	out_cmd(&o, BC_TRANSACTION, &tr, sizeof(tr));
	int err = run(b, &o, true, reply);
	if (err && reply)
		pl_parcel_free(reply);
	return err;
}

int pl_binder_loop(struct pl_binder *b)
{
	struct out o = { .b = b, .n = 0 };
	out_cmd(&o, BC_ENTER_LOOPER, NULL, 0);
	return run(b, &o, false, NULL);
}

static void *pool_thread(void *arg)
{
	pl_binder_loop(arg);
	return NULL;
}

int pl_binder_start_pool(struct pl_binder *b, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		char name[16];
		pthread_t t;
		snprintf(name, sizeof(name), "Binder:%u", (i + 1) % 1000u);
		int err = pl_thread_start(&t, name, pool_thread, b);
		if (err)
			return err;
		pthread_detach(t);
	}
	return 0;
}

int pl_binder_become_context_manager(struct pl_binder *b, struct pl_binder_service *s)
{
	int32_t unused = 0;
	if (ioctl(b->fd, BINDER_SET_CONTEXT_MGR, &unused) < 0)
		return -errno;
	b->context_manager = s;
	return 0;
}

int pl_binder_add_service(struct pl_binder *b, const char *name, struct pl_binder_service *s)
{
	struct pl_parcel in, reply;
	pl_parcel_init(&in);
	int err = pl_parcel_put_string(&in, name);
	if (!err)
		err = pl_parcel_put_service(&in, s);
	if (!err)
		err = pl_binder_call(b, 0, PL_SM_ADD_SERVICE, &in, &reply);
	if (!err)
		pl_parcel_free(&reply);
	pl_parcel_free(&in);
	return err;
}

int pl_binder_get_service(struct pl_binder *b, const char *name, uint32_t *handle)
{
	struct pl_parcel in, reply;
	pl_parcel_init(&in);
	int err = pl_parcel_put_string(&in, name);
	if (!err)
		err = pl_binder_call(b, 0, PL_SM_GET_SERVICE, &in, &reply);
	pl_parcel_free(&in);
	if (err)
		return err;
	err = pl_parcel_get_handle(&reply, handle);
	pl_parcel_free(&reply);
	return err;
}
