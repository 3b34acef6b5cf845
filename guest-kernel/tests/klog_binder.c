// SPDX-License-Identifier: GPL-2.0
#include "klog_binder.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/android/binder.h>
#include <linux/android/binderfs.h>

#include "klog_common.h"

#define KB_MAP_BYTES (128 * 1024)

void kb_add_device(const char *name)
{
	struct binderfs_device dev;
	int fd = open("/dev/binderfs/binder-control", O_RDWR | O_CLOEXEC);

	if (fd < 0)
		klog_die("open /dev/binderfs/binder-control: %s", strerror(errno));
	memset(&dev, 0, sizeof(dev));
	snprintf(dev.name, sizeof(dev.name), "%s", name);
	if (ioctl(fd, BINDER_CTL_ADD, &dev) != 0 && errno != EEXIST)
		klog_die("BINDER_CTL_ADD %s: %s", name, strerror(errno));
	close(fd);
}

void kb_open(struct kb *b, const char *path)
{
	struct binder_version ver;

	b->fd = open(path, O_RDWR | O_CLOEXEC);
	if (b->fd < 0)
		klog_die("open %s: %s", path, strerror(errno));
	if (ioctl(b->fd, BINDER_VERSION, &ver) != 0 ||
	    ver.protocol_version != BINDER_CURRENT_PROTOCOL_VERSION)
		klog_die("%s: binder protocol version mismatch", path);
	b->map_bytes = KB_MAP_BYTES;
	b->map = mmap(NULL, b->map_bytes, PROT_READ, MAP_PRIVATE, b->fd, 0);
	if (b->map == MAP_FAILED)
		klog_die("mmap %s: %s", path, strerror(errno));
}

void kb_close(struct kb *b)
{
	munmap(b->map, b->map_bytes);
	close(b->fd);
}

/* Commands are a u32 followed by a payload; the payload is not aligned. */
struct kb_out {
	uint8_t buf[256];
	size_t len;
};

static void kb_put(struct kb_out *o, uint32_t cmd, const void *arg, size_t len)
{
	memcpy(o->buf + o->len, &cmd, sizeof(cmd));
	memcpy(o->buf + o->len + sizeof(cmd), arg, len);
	o->len += sizeof(cmd) + len;
}

static size_t kb_write_read(struct kb *b, struct kb_out *o, void *in, size_t in_len)
{
	struct binder_write_read bwr = {
		.write_size = o ? o->len : 0,
		.write_buffer = (binder_uintptr_t)(uintptr_t)(o ? o->buf : NULL),
		.read_size = in_len,
		.read_buffer = (binder_uintptr_t)(uintptr_t)in,
	};

	while (ioctl(b->fd, BINDER_WRITE_READ, &bwr) != 0) {
		if (errno != EINTR)
			klog_die("BINDER_WRITE_READ: %s", strerror(errno));
	}
	if (o)
		o->len = 0;
	return bwr.read_consumed;
}

void kb_become_manager(struct kb *b)
{
	struct kb_out o = { .len = 0 };

	if (ioctl(b->fd, BINDER_SET_CONTEXT_MGR, 0) != 0)
		klog_die("BINDER_SET_CONTEXT_MGR: %s", strerror(errno));
	kb_put(&o, BC_ENTER_LOOPER, NULL, 0);
	kb_write_read(b, &o, NULL, 0);
}

static void kb_free_and_reply(struct kb *b, const struct binder_transaction_data *tr,
			      int reply)
{
	static const uint32_t answer = 42;
	struct binder_transaction_data rp;
	struct kb_out o = { .len = 0 };
	binder_uintptr_t buf = tr->data.ptr.buffer;

	kb_put(&o, BC_FREE_BUFFER, &buf, sizeof(buf));
	if (reply) {
		memset(&rp, 0, sizeof(rp));
		rp.code = tr->code;
		rp.data_size = sizeof(answer);
		rp.data.ptr.buffer = (binder_uintptr_t)(uintptr_t)&answer;
		kb_put(&o, BC_REPLY, &rp, sizeof(rp));
	}
	kb_write_read(b, &o, NULL, 0);
}

/*
 * Parses one read buffer. Returns the number of BR_TRANSACTIONs handled
 * (server) and sets *done when a BR_REPLY or BR_TRANSACTION_COMPLETE that
 * ends a call arrived (client).
 */
static int kb_parse(struct kb *b, const uint8_t *in, size_t len, int oneway, int *done)
{
	int handled = 0;
	size_t pos = 0;

	while (pos + sizeof(uint32_t) <= len) {
		struct binder_transaction_data tr;
		uint32_t cmd;

		memcpy(&cmd, in + pos, sizeof(cmd));
		pos += sizeof(cmd);
		switch (cmd) {
		case BR_NOOP:
		case BR_SPAWN_LOOPER:
			break;
		case BR_TRANSACTION_COMPLETE:
			if (oneway)
				*done = 1;
			break;
		case BR_TRANSACTION:
		case BR_REPLY:
			memcpy(&tr, in + pos, sizeof(tr));
			if (cmd == BR_TRANSACTION) {
				kb_free_and_reply(b, &tr, !(tr.flags & TF_ONE_WAY));
				handled++;
			} else {
				kb_free_and_reply(b, &tr, 0);
				*done = 1;
			}
			break;
		case BR_DEAD_REPLY:
		case BR_FAILED_REPLY:
			klog_die("binder call failed (BR_%s_REPLY)",
				 cmd == BR_DEAD_REPLY ? "DEAD" : "FAILED");
		default:
			klog_die("unexpected binder return 0x%x", cmd);
		}
		pos += _IOC_SIZE(cmd);
	}
	return handled;
}

void kb_serve(struct kb *b, int count)
{
	uint8_t in[512];
	int done = 0;

	while (count > 0) {
		size_t got = kb_write_read(b, NULL, in, sizeof(in));

		count -= kb_parse(b, in, got, 0, &done);
	}
}

void kb_call(struct kb *b, unsigned int code, int oneway)
{
	static const uint32_t arg = 7;
	struct binder_transaction_data tr;
	struct kb_out o = { .len = 0 };
	uint8_t in[512];
	int done = 0;

	memset(&tr, 0, sizeof(tr));
	tr.target.handle = 0;
	tr.code = code;
	tr.flags = oneway ? TF_ONE_WAY : 0;
	tr.data_size = sizeof(arg);
	tr.data.ptr.buffer = (binder_uintptr_t)(uintptr_t)&arg;
	kb_put(&o, BC_TRANSACTION, &tr, sizeof(tr));
	kb_write_read(b, &o, NULL, 0);
	while (!done) {
		size_t got = kb_write_read(b, NULL, in, sizeof(in));

		kb_parse(b, in, got, oneway, &done);
	}
}
