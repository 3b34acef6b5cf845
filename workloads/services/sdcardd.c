/*
 * sdcardd: the platform's SD card daemon. On the Galaxy Nexus, Android 4.x emulates /sdcard
 * with FUSE: a system daemon, `sdcard` (system/core/sdcard/sdcard.c), reads the kernel's
 * requests from /dev/fuse and does each one on the file below it, on the card's own file
 * system (/data/media). sdcardd does the same, speaking the kernel's FUSE protocol
 * (include/uapi/linux/fuse.h, 7.37 in Linux 6.1) directly, without libfuse, as Android did:
 *
 *   sdcardd [LOWER [MOUNTPOINT]]     (default /data/media and /sdcard)
 *   sdcardd --fd N LOWER             (tests: serve the requests read from descriptor N)
 *
 * The main thread opens /dev/fuse, mounts MOUNTPOINT, starts REQUEST_THREADS threads named
 * "sdcardd-fuse<i>" (the kernel logger's THREAD_NAME records name them in the trace), signals
 * ready and waits for SIGTERM; then it unmounts, which ends the connection, joins the threads
 * and exits 0. Each request thread reads one request at a time and answers it, so an app's
 * write(2) to /sdcard wakes a request thread, which writes into the lower file's page cache;
 * the kernel's writeback (kworker flush threads) takes that to the card later.
 *
 * Operations: LOOKUP, FORGET, BATCH_FORGET, GETATTR, SETATTR (size and times), MKDIR, UNLINK,
 * RMDIR, RENAME, OPEN, CREATE, READ, WRITE, RELEASE, FLUSH, FSYNC, OPENDIR, READDIR,
 * RELEASEDIR, STATFS, INIT, DESTROY; any other gets ENOSYS (the kernel then stops asking, for
 * xattrs, access, interrupts). As Android's daemon, it presents the card with FAT semantics:
 * every file is owned by root, group sdcard_rw (AID_SDCARD_RW 1015), directories 0775 and
 * files 0664, and chmod and chown are ignored.
 *
 * Node ids index a table of nodes (parent and name; the path below LOWER is rebuilt from
 * them), file handles a table of lower descriptors; both are checked on every request, so a
 * bad request gets an error reply and one line on stderr, never a crash. Any failure to start
 * is one line and exit 1.
 *
 * --fd N serves a descriptor the caller connected instead of mounting: a SOCK_SEQPACKET
 * socket carries one request per read and one reply per write, as /dev/fuse does, so a host
 * test can send any request, well-formed or not (tests/unit/test_platform_sdcardd.c). The
 * daemon exits 0 when the peer closes it.
 */
#define _FILE_OFFSET_BITS 64
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fuse.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/uio.h>
#include <unistd.h>

#include "panlab/error.h"
#include "panlab/ready.h"
#include "panlab/sdcard.h"

/* Two request threads: Android 4.4's sdcard.c, DEFAULT_NUM_THREADS. */
#define REQUEST_THREADS 2
/* Android 4.4's sdcard.c: MAX_WRITE 256 KiB, MAX_READ 128 KiB; Linux 6.1 caps a request at
 * FUSE_DEFAULT_MAX_PAGES_PER_REQ (32 pages, 128 KiB) without FUSE_MAX_PAGES, so both are
 * 128 KiB here. */
#define MAX_DATA_BYTES (128u * 1024u)
#define REQUEST_BYTES (MAX_DATA_BYTES + 4096u)
/* Entries and attributes stay valid for 10 s, as Android 4.4's sdcard.c gave them. */
#define VALID_S 10
#define AID_SDCARD_RW 1015u
#define AID_MEDIA_RW 1023u	/* the mount's owner: "sdcard /data/media 1023 1023" */
#define ROOT_ID FUSE_ROOT_ID

/* One name the kernel holds a lookup count on, or the parent of one. */
struct node {
	bool used;
	bool detached;		/* unlinked or renamed over: no lower path any more */
	uint32_t parent;	/* node id */
	uint32_t children;	/* live child nodes: they keep this one */
	uint64_t nlookup;	/* the kernel's references (LOOKUP, MKDIR, CREATE minus FORGET) */
	uint64_t generation;
	char *name;		/* owned; NULL for the root */
};

struct handle {
	bool used;
	bool direct;		/* O_DIRECT: the lower file takes only aligned buffers */
	int fd;
	DIR *dir;		/* OPENDIR: owns fd */
};

struct daemon {
	pthread_mutex_t lock;	/* guards the tables */
	int fuse_fd;
	int lower_fd;		/* O_PATH of LOWER: every lower call is relative to it */
	struct node *nodes;	/* [0] unused, [ROOT_ID] the root */
	uint32_t nnodes;
	uint64_t generations;
	struct handle *handles;
	uint32_t nhandles;
};

static struct daemon d = { .lock = PTHREAD_MUTEX_INITIALIZER };

__attribute__((format(printf, 1, 2))) static void log_error(const char *fmt, ...)
{
	char line[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	fprintf(stderr, "sdcardd: %s\n", line);
}

/* ---- nodes (d.lock held) ---- */

static struct node *node_get(uint64_t id)
{
	if (id == 0 || id >= d.nnodes || !d.nodes[id].used)
		return NULL;
	return &d.nodes[id];
}

/* The path of node id relative to LOWER ("." for the root); -ENOENT for a detached node,
 * -ENAMETOOLONG past PATH_MAX. */
static int node_path(uint64_t id, char *buf, size_t len)
{
	size_t end = len - 1;
	buf[end] = '\0';
	while (id != ROOT_ID) {
		const struct node *n = &d.nodes[id];
		size_t nl = strlen(n->name);
		if (n->detached)
			return -ENOENT;
		if (nl + 1 > end)
			return -ENAMETOOLONG;
		end -= nl;
		memcpy(buf + end, n->name, nl);
		if (n->parent != ROOT_ID)
			buf[--end] = '/';
		id = n->parent;
	}
	if (end == len - 1)
		buf[--end] = '.';
	memmove(buf, buf + end, len - end);
	return 0;
}

static int child_path(uint64_t parent, const char *name, char *buf, size_t len)
{
	int err = node_path(parent, buf, len);
	if (err)
		return err;
	if (!strcmp(buf, "."))
		buf[0] = '\0';
	size_t bl = strlen(buf);
	if (snprintf(buf + bl, len - bl, "%s%s", bl ? "/" : "", name) >= (int)(len - bl))
		return -ENAMETOOLONG;
	return 0;
}

static uint32_t node_find(uint64_t parent, const char *name)
{
	for (uint32_t i = ROOT_ID + 1; i < d.nnodes; i++) {
		const struct node *n = &d.nodes[i];
		if (n->used && !n->detached && n->parent == parent && !strcmp(n->name, name))
			return i;
	}
	return 0;
}

static void node_release(uint32_t id);

static void node_detach(uint32_t id)
{
	struct node *n = &d.nodes[id];
	if (n->detached)
		return;
	n->detached = true;
	node_release(id);
}

/* Frees node id once the kernel forgot it and no child keeps it, then its parent in turn. */
static void node_release(uint32_t id)
{
	while (id != ROOT_ID) {
		struct node *n = &d.nodes[id];
		if (n->nlookup || n->children)
			return;
		uint32_t parent = n->parent;
		free(n->name);
		*n = (struct node){ 0 };
		d.nodes[parent].children--;
		id = parent;
	}
}

/* The node for parent/name with one more lookup, created if needed; 0 when out of memory. */
static uint32_t node_acquire(uint64_t parent, const char *name)
{
	uint32_t id = node_find(parent, name);
	if (!id) {
		for (id = ROOT_ID + 1; id < d.nnodes && d.nodes[id].used; id++)
			;
		if (id == d.nnodes) {
			uint32_t n = d.nnodes * 2;
			struct node *grown = realloc(d.nodes, n * sizeof(*grown));
			if (!grown)
				return 0;
			memset(grown + d.nnodes, 0, (n - d.nnodes) * sizeof(*grown));
			d.nodes = grown;
			d.nnodes = n;
		}
		char *copy = strdup(name);
		if (!copy)
			return 0;
		d.nodes[id] = (struct node){ .used = true, .parent = (uint32_t)parent, .name = copy,
					     .generation = ++d.generations };
		d.nodes[parent].children++;
	}
	d.nodes[id].nlookup++;
	return id;
}

/* ---- handles (d.lock held) ---- */

static uint64_t handle_add(int fd, DIR *dir, bool direct)
{
	uint32_t h;
	for (h = 0; h < d.nhandles && d.handles[h].used; h++)
		;
	if (h == d.nhandles) {
		uint32_t n = d.nhandles ? d.nhandles * 2 : 16;
		struct handle *grown = realloc(d.handles, n * sizeof(*grown));
		if (!grown)
			return UINT64_MAX;
		memset(grown + d.nhandles, 0, (n - d.nhandles) * sizeof(*grown));
		d.handles = grown;
		d.nhandles = n;
	}
	d.handles[h] = (struct handle){ .used = true, .direct = direct, .fd = fd, .dir = dir };
	return h;
}

/* The descriptor of file handle fh (dir: a directory handle's stream), or NULL. */
static struct handle *handle_get(uint64_t fh, bool dir)
{
	if (fh >= d.nhandles || !d.handles[fh].used || (d.handles[fh].dir != NULL) != dir)
		return NULL;
	return &d.handles[fh];
}

/* ---- replies ---- */

static void reply(uint64_t unique, int error, const void *data, size_t len)
{
	struct fuse_out_header out = { .len = (uint32_t)(sizeof(out) + len), .error = error,
				       .unique = unique };
	struct iovec iov[2] = { { &out, sizeof(out) }, { (void *)data, len } };
	/* ENOENT: the request was interrupted and the kernel no longer waits for it. */
	if (writev(d.fuse_fd, iov, len ? 2 : 1) < 0 && errno != ENOENT)
		log_error("reply to request %llu: %s", (unsigned long long)unique, strerror(errno));
}

/* No data: 0, or an errno. */
static void reply_status(uint64_t unique, int err)
{
	reply(unique, -err, NULL, 0);
}

static void attr_from_stat(struct fuse_attr *a, const struct stat *st)
{
	*a = (struct fuse_attr){
		.ino = st->st_ino, .size = (uint64_t)st->st_size, .blocks = (uint64_t)st->st_blocks,
		.atime = (uint64_t)st->st_atim.tv_sec, .mtime = (uint64_t)st->st_mtim.tv_sec,
		.ctime = (uint64_t)st->st_ctim.tv_sec, .atimensec = (uint32_t)st->st_atim.tv_nsec,
		.mtimensec = (uint32_t)st->st_mtim.tv_nsec,
		.ctimensec = (uint32_t)st->st_ctim.tv_nsec,
		/* FAT semantics, as Android 4.x's daemon (attr_from_stat there). */
		.mode = (st->st_mode & S_IFMT) | (S_ISDIR(st->st_mode) ? 0775u : 0664u),
		.nlink = (uint32_t)st->st_nlink, .uid = 0, .gid = AID_SDCARD_RW,
		.blksize = (uint32_t)st->st_blksize,
	};
}

static void reply_attr(uint64_t unique, const struct stat *st)
{
	struct fuse_attr_out out = { .attr_valid = VALID_S };
	attr_from_stat(&out.attr, st);
	reply(unique, 0, &out, sizeof(out));
}

/* Stats path (relative to LOWER) and answers with a new lookup of parent/name. */
static void reply_entry(uint64_t unique, uint64_t parent, const char *name, const char *path)
{
	struct fuse_entry_out out = { .entry_valid = VALID_S, .attr_valid = VALID_S };
	struct stat st;
	if (fstatat(d.lower_fd, path, &st, AT_SYMLINK_NOFOLLOW) != 0) {
		reply_status(unique, errno);
		return;
	}
	pthread_mutex_lock(&d.lock);
	uint32_t id = node_acquire(parent, name);
	if (id)
		out.generation = d.nodes[id].generation;
	pthread_mutex_unlock(&d.lock);
	if (!id) {
		reply_status(unique, ENOMEM);
		return;
	}
	out.nodeid = id;
	attr_from_stat(&out.attr, &st);
	reply(unique, 0, &out, sizeof(out));
}

/* ---- requests ---- */

struct request {
	const struct fuse_in_header *h;
	const uint8_t *body;
	size_t len;		/* bytes of body */
};

/* The fixed-size argument of a request, or NULL (and an EINVAL reply) if it is short. */
static const void *arg(const struct request *r, size_t size)
{
	if (r->len < size) {
		log_error("request %llu (opcode %u): %zu argument bytes, expected at least %zu",
			  (unsigned long long)r->h->unique, r->h->opcode, r->len, size);
		reply_status(r->h->unique, EINVAL);
		return NULL;
	}
	return r->body;
}

/* The NUL-terminated name at offset off of the body: a single path component. */
static const char *name_at(const struct request *r, size_t off, size_t *next)
{
	const char *s = (const char *)r->body + off;
	const char *nul = off < r->len ? memchr(s, '\0', r->len - off) : NULL;
	if (!nul || nul == s || strchr(s, '/') || !strcmp(s, ".") || !strcmp(s, "..")) {
		log_error("request %llu (opcode %u): no valid name at byte %zu of its argument",
			  (unsigned long long)r->h->unique, r->h->opcode, off);
		reply_status(r->h->unique, EINVAL);
		return NULL;
	}
	if (next)
		*next = (size_t)(nul - (const char *)r->body) + 1;
	return s;
}

/* The lower path of the request's node (and of name in it, if name is not NULL); false after
 * an error reply. */
static bool lower_path(const struct request *r, const char *name, char *buf, size_t len)
{
	pthread_mutex_lock(&d.lock);
	int err = -ENOENT;
	if (node_get(r->h->nodeid))
		err = name ? child_path(r->h->nodeid, name, buf, len)
			   : node_path(r->h->nodeid, buf, len);
	pthread_mutex_unlock(&d.lock);
	if (err == -ENOENT && !node_get(r->h->nodeid))
		log_error("request %llu (opcode %u): no node %llu", (unsigned long long)r->h->unique,
			  r->h->opcode, (unsigned long long)r->h->nodeid);
	if (err)
		reply_status(r->h->unique, -err);
	return err == 0;
}

static void do_init(const struct request *r)
{
	/* The 7.0-era part of fuse_init_in: major, minor, max_readahead, flags. */
	const struct fuse_init_in *in = arg(r, 4 * sizeof(uint32_t));
	if (!in)
		return;
	if (in->major != FUSE_KERNEL_VERSION) {
		log_error("INIT: kernel protocol %u.%u, expected major %u", in->major, in->minor,
			  FUSE_KERNEL_VERSION);
		reply_status(r->h->unique, EPROTO);
		return;
	}
	struct fuse_init_out out = {
		.major = FUSE_KERNEL_VERSION,
		.minor = in->minor < FUSE_KERNEL_MINOR_VERSION ? in->minor : FUSE_KERNEL_MINOR_VERSION,
		.max_readahead = in->max_readahead,
		/* As Android 4.x's daemon: O_TRUNC handled in OPEN, writes of many pages. */
		.flags = FUSE_ATOMIC_O_TRUNC | FUSE_BIG_WRITES,
		.max_background = 32,
		.congestion_threshold = 32,
		.max_write = MAX_DATA_BYTES,
	};
	reply(r->h->unique, 0, &out, sizeof(out));
}

static void forget(uint64_t id, uint64_t n)
{
	pthread_mutex_lock(&d.lock);
	struct node *node = node_get(id);
	if (!node || id == ROOT_ID || node->nlookup < n)
		log_error("FORGET %llu of node %llu: it has %llu lookups",
			  (unsigned long long)n, (unsigned long long)id,
			  (unsigned long long)(node ? node->nlookup : 0));
	else {
		node->nlookup -= n;
		node_release((uint32_t)id);
	}
	pthread_mutex_unlock(&d.lock);
}

static void do_batch_forget(const struct request *r)
{
	const struct fuse_batch_forget_in *in = (const void *)r->body;
	if (r->len < sizeof(*in) || (r->len - sizeof(*in)) / sizeof(struct fuse_forget_one) < in->count) {
		log_error("BATCH_FORGET: %zu argument bytes for its count", r->len);
		return;
	}
	const struct fuse_forget_one *one = (const void *)(in + 1);
	for (uint32_t i = 0; i < in->count; i++)
		forget(one[i].nodeid, one[i].nlookup);
}

static void do_lookup(const struct request *r)
{
	char path[PATH_MAX];
	const char *name = name_at(r, 0, NULL);
	if (name && lower_path(r, name, path, sizeof(path)))
		reply_entry(r->h->unique, r->h->nodeid, name, path);
}

static void do_getattr(const struct request *r)
{
	const struct fuse_getattr_in *in = arg(r, sizeof(*in));
	char path[PATH_MAX];
	struct stat st;
	int rc;
	if (!in)
		return;
	if (in->getattr_flags & FUSE_GETATTR_FH) {
		pthread_mutex_lock(&d.lock);
		struct handle *h = handle_get(in->fh, false);
		int fd = h ? h->fd : -1;
		pthread_mutex_unlock(&d.lock);
		rc = fd >= 0 ? fstat(fd, &st) : (errno = EBADF, -1);
	} else {
		if (!lower_path(r, NULL, path, sizeof(path)))
			return;
		rc = fstatat(d.lower_fd, path, &st, AT_SYMLINK_NOFOLLOW);
	}
	if (rc != 0)
		reply_status(r->h->unique, errno);
	else
		reply_attr(r->h->unique, &st);
}

static struct timespec setattr_time(uint32_t valid, uint32_t set, uint32_t now, uint64_t s,
				    uint32_t ns)
{
	if (valid & now)
		return (struct timespec){ .tv_nsec = UTIME_NOW };
	if (valid & set)
		return (struct timespec){ .tv_sec = (time_t)s, .tv_nsec = ns };
	return (struct timespec){ .tv_nsec = UTIME_OMIT };
}

/* Size and times; mode and owner stay as FAT semantics show them (Android 4.x ignored them). */
static void do_setattr(const struct request *r)
{
	const struct fuse_setattr_in *in = arg(r, sizeof(*in));
	char path[PATH_MAX];
	struct stat st;
	if (!in || !lower_path(r, NULL, path, sizeof(path)))
		return;
	int fd = -1;
	if (in->valid & FATTR_FH) {
		pthread_mutex_lock(&d.lock);
		struct handle *h = handle_get(in->fh, false);
		fd = h ? h->fd : -1;
		pthread_mutex_unlock(&d.lock);
	}
	if (in->valid & FATTR_SIZE) {
		/* truncate(2) of a path comes without a handle: open the lower file for it. */
		int own = fd < 0 ? openat(d.lower_fd, path, O_WRONLY | O_CLOEXEC) : -1;
		int rc = own >= 0 || fd >= 0 ? ftruncate(fd >= 0 ? fd : own, (off_t)in->size) : -1;
		int err = errno;
		if (own >= 0)
			close(own);
		if (rc != 0) {
			reply_status(r->h->unique, err);
			return;
		}
	}
	if (in->valid & (FATTR_ATIME | FATTR_MTIME)) {
		struct timespec ts[2] = {
			setattr_time(in->valid, FATTR_ATIME, FATTR_ATIME_NOW, in->atime, in->atimensec),
			setattr_time(in->valid, FATTR_MTIME, FATTR_MTIME_NOW, in->mtime, in->mtimensec),
		};
		if (utimensat(d.lower_fd, path, ts, AT_SYMLINK_NOFOLLOW) != 0) {
			reply_status(r->h->unique, errno);
			return;
		}
	}
	if (fstatat(d.lower_fd, path, &st, AT_SYMLINK_NOFOLLOW) != 0)
		reply_status(r->h->unique, errno);
	else
		reply_attr(r->h->unique, &st);
}

static void do_mkdir(const struct request *r)
{
	const struct fuse_mkdir_in *in = arg(r, sizeof(*in));
	char path[PATH_MAX];
	const char *name = in ? name_at(r, sizeof(*in), NULL) : NULL;
	if (!name || !lower_path(r, name, path, sizeof(path)))
		return;
	if (mkdirat(d.lower_fd, path, 0775) != 0)
		reply_status(r->h->unique, errno);
	else
		reply_entry(r->h->unique, r->h->nodeid, name, path);
}

static void do_remove(const struct request *r, int flags)
{
	char path[PATH_MAX];
	const char *name = name_at(r, 0, NULL);
	if (!name || !lower_path(r, name, path, sizeof(path)))
		return;
	if (unlinkat(d.lower_fd, path, flags) != 0) {
		reply_status(r->h->unique, errno);
		return;
	}
	pthread_mutex_lock(&d.lock);
	uint32_t id = node_find(r->h->nodeid, name);
	if (id)
		node_detach(id);
	pthread_mutex_unlock(&d.lock);
	reply_status(r->h->unique, 0);
}

static void do_rename(const struct request *r)
{
	const struct fuse_rename_in *in = arg(r, sizeof(*in));
	char from[PATH_MAX], to[PATH_MAX];
	size_t next;
	const char *old_name = in ? name_at(r, sizeof(*in), &next) : NULL;
	const char *new_name = old_name ? name_at(r, next, NULL) : NULL;
	if (!new_name || !lower_path(r, old_name, from, sizeof(from)))
		return;
	pthread_mutex_lock(&d.lock);
	int err = node_get(in->newdir) ? child_path(in->newdir, new_name, to, sizeof(to)) : -ENOENT;
	pthread_mutex_unlock(&d.lock);
	if (err) {
		reply_status(r->h->unique, -err);
		return;
	}
	if (renameat(d.lower_fd, from, d.lower_fd, to) != 0) {
		reply_status(r->h->unique, errno);
		return;
	}
	pthread_mutex_lock(&d.lock);
	uint32_t target = node_find(in->newdir, new_name), id = node_find(r->h->nodeid, old_name);
	if (!node_get(in->newdir))
		id = 0;	/* forgotten meanwhile: nothing to move */
	if (target && target != id)
		node_detach(target);
	if (id) {
		char *copy = strdup(new_name);
		struct node *n = &d.nodes[id];
		if (!copy) {
			node_detach(id);	/* the kernel will look the new name up again */
		} else {
			free(n->name);
			n->name = copy;
			d.nodes[n->parent].children--;
			d.nodes[in->newdir].children++;
			uint32_t old_parent = n->parent;
			n->parent = (uint32_t)in->newdir;
			node_release(old_parent);
		}
	}
	pthread_mutex_unlock(&d.lock);
	reply_status(r->h->unique, 0);
}

/* Opens path (relative to LOWER) as a new file handle *fh, and stats it into st if not NULL.
 * Returns 0 or an errno. */
static int open_handle(const char *path, uint32_t flags, mode_t mode, uint64_t *fh,
		       struct stat *st)
{
	int fd = openat(d.lower_fd, path, (int)(flags & ~(uint32_t)O_NOFOLLOW) | O_CLOEXEC, mode);
	if (fd < 0)
		return errno;
	if (st && fstat(fd, st) != 0) {
		int err = errno;
		close(fd);
		return err;
	}
	pthread_mutex_lock(&d.lock);
	*fh = handle_add(fd, NULL, (flags & O_DIRECT) != 0);
	pthread_mutex_unlock(&d.lock);
	if (*fh == UINT64_MAX) {
		close(fd);
		return ENOMEM;
	}
	return 0;
}

static void do_open(const struct request *r)
{
	const struct fuse_open_in *in = arg(r, sizeof(*in));
	struct fuse_open_out out = { 0 };
	char path[PATH_MAX];
	if (!in || !lower_path(r, NULL, path, sizeof(path)))
		return;
	int err = open_handle(path, in->flags, 0, &out.fh, NULL);
	if (err)
		reply_status(r->h->unique, err);
	else
		reply(r->h->unique, 0, &out, sizeof(out));
}

static void do_create(const struct request *r)
{
	const struct fuse_create_in *in = arg(r, sizeof(*in));
	struct {
		struct fuse_entry_out entry;
		struct fuse_open_out open;
	} out = { .entry = { .entry_valid = VALID_S, .attr_valid = VALID_S } };
	char path[PATH_MAX];
	struct stat st;
	const char *name = in ? name_at(r, sizeof(*in), NULL) : NULL;
	if (!name || !lower_path(r, name, path, sizeof(path)))
		return;
	int err = open_handle(path, in->flags | O_CREAT, 0664, &out.open.fh, &st);
	if (err) {
		reply_status(r->h->unique, err);
		return;
	}
	pthread_mutex_lock(&d.lock);
	uint32_t id = node_acquire(r->h->nodeid, name);
	if (id)
		out.entry.generation = d.nodes[id].generation;
	pthread_mutex_unlock(&d.lock);
	if (!id) {
		reply_status(r->h->unique, ENOMEM);
		return;
	}
	out.entry.nodeid = id;
	attr_from_stat(&out.entry.attr, &st);
	reply(r->h->unique, 0, &out, sizeof(out));
}

/* The lower descriptor of a request's file handle (and whether it is O_DIRECT, if direct is
 * not NULL), or -1 after an EBADF reply. */
static int file_fd(const struct request *r, uint64_t fh, bool *direct)
{
	pthread_mutex_lock(&d.lock);
	struct handle *h = handle_get(fh, false);
	int fd = h ? h->fd : -1;
	if (h && direct)
		*direct = h->direct;
	pthread_mutex_unlock(&d.lock);
	if (fd < 0) {
		log_error("request %llu (opcode %u): no file handle %llu",
			  (unsigned long long)r->h->unique, r->h->opcode, (unsigned long long)fh);
		reply_status(r->h->unique, EBADF);
	}
	return fd;
}

/* The argument of a request on an open file (fuse_read_in, fuse_write_in, fuse_fsync_in: each
 * starts with the handle) and its lower descriptor in *fd, with at most max_bytes of data (its
 * size field at size_at) when max_bytes is not 0; NULL after an error reply. */
static const void *file_arg(const struct request *r, size_t arg_size, size_t size_at,
			    uint32_t max_bytes, int *fd, bool *direct)
{
	const uint64_t *fh = arg(r, arg_size);
	uint32_t bytes;
	if (!fh || (*fd = file_fd(r, *fh, direct)) < 0)
		return NULL;
	memcpy(&bytes, (const uint8_t *)fh + size_at, sizeof(bytes));
	if (max_bytes && bytes > max_bytes) {
		log_error("request %llu (opcode %u) of %u bytes, expected at most %u",
			  (unsigned long long)r->h->unique, r->h->opcode, bytes, max_bytes);
		reply_status(r->h->unique, EINVAL);
		return NULL;
	}
	return fh;
}

/* data: a MAX_DATA_BYTES buffer, 4 KiB aligned, so that an O_DIRECT lower file reads into it. */
static void do_read(const struct request *r, uint8_t *data)
{
	int fd;
	const struct fuse_read_in *in = file_arg(r, sizeof(*in), offsetof(struct fuse_read_in, size),
						 MAX_DATA_BYTES, &fd, NULL);
	if (!in)
		return;
	ssize_t n = pread(fd, data, in->size, (off_t)in->offset);
	if (n < 0)
		reply_status(r->h->unique, errno);
	else
		reply(r->h->unique, 0, data, (size_t)n);
}

/* data: as do_read's. */
static void do_write(const struct request *r, uint8_t *data)
{
	bool direct = false;
	int fd;
	const struct fuse_write_in *in = file_arg(r, sizeof(*in), offsetof(struct fuse_write_in, size),
						  MAX_DATA_BYTES, &fd, &direct);
	if (!in)
		return;
	if (r->len - sizeof(*in) < in->size) {
		log_error("WRITE of %u bytes with %zu", in->size, r->len - sizeof(*in));
		reply_status(r->h->unique, EINVAL);
		return;
	}
	/* The data starts 80 bytes into the request: an O_DIRECT lower file takes it only from
	 * an aligned copy. */
	const void *src = in + 1;
	if (direct)
		src = memcpy(data, in + 1, in->size);
	ssize_t n = pwrite(fd, src, in->size, (off_t)in->offset);
	if (n < 0) {
		reply_status(r->h->unique, errno);
		return;
	}
	struct fuse_write_out out = { .size = (uint32_t)n };
	reply(r->h->unique, 0, &out, sizeof(out));
}

static void do_release(const struct request *r, bool dir)
{
	const struct fuse_release_in *in = arg(r, sizeof(*in));
	if (!in)
		return;
	pthread_mutex_lock(&d.lock);
	struct handle *h = handle_get(in->fh, dir);
	struct handle copy = h ? *h : (struct handle){ 0 };
	if (h)
		*h = (struct handle){ 0 };
	pthread_mutex_unlock(&d.lock);
	if (!copy.used) {
		log_error("RELEASE%s of no handle %llu", dir ? "DIR" : "",
			  (unsigned long long)in->fh);
		reply_status(r->h->unique, EBADF);
		return;
	}
	if (copy.dir)
		closedir(copy.dir);
	else
		close(copy.fd);
	reply_status(r->h->unique, 0);
}

static void do_fsync(const struct request *r)
{
	int fd;
	const struct fuse_fsync_in *in = file_arg(r, sizeof(*in), 0, 0, &fd, NULL);
	if (!in)
		return;
	int rc = (in->fsync_flags & 1) ? fdatasync(fd) : fsync(fd);
	reply_status(r->h->unique, rc ? errno : 0);
}

static void do_opendir(const struct request *r)
{
	struct fuse_open_out out = { 0 };
	char path[PATH_MAX];
	if (!arg(r, sizeof(struct fuse_open_in)) || !lower_path(r, NULL, path, sizeof(path)))
		return;
	int fd = openat(d.lower_fd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *dir = fd >= 0 ? fdopendir(fd) : NULL;
	if (!dir) {
		int err = errno;
		if (fd >= 0)
			close(fd);
		reply_status(r->h->unique, err);
		return;
	}
	pthread_mutex_lock(&d.lock);
	out.fh = handle_add(fd, dir, false);
	pthread_mutex_unlock(&d.lock);
	if (out.fh == UINT64_MAX) {
		closedir(dir);
		reply_status(r->h->unique, ENOMEM);
		return;
	}
	reply(r->h->unique, 0, &out, sizeof(out));
}

/* Entries from the stream position in->offset (a telldir cookie, 0 at the start) up to
 * in->size bytes; each entry's off is the cookie after it. */
static void do_readdir(const struct request *r, uint8_t *data)
{
	const struct fuse_read_in *in = arg(r, sizeof(*in));
	if (!in)
		return;
	pthread_mutex_lock(&d.lock);
	struct handle *h = handle_get(in->fh, true);
	DIR *dir = h ? h->dir : NULL;
	pthread_mutex_unlock(&d.lock);
	if (!dir) {
		log_error("READDIR of no directory handle %llu", (unsigned long long)in->fh);
		reply_status(r->h->unique, EBADF);
		return;
	}
	size_t size = in->size < MAX_DATA_BYTES ? in->size : MAX_DATA_BYTES, used = 0;
	if (in->offset == 0)
		rewinddir(dir);
	else
		seekdir(dir, (long)in->offset);
	for (;;) {
		long before = telldir(dir);
		errno = 0;
		struct dirent *e = readdir(dir);
		if (!e) {
			if (errno) {
				reply_status(r->h->unique, errno);
				return;
			}
			break;
		}
		size_t nl = strlen(e->d_name), rec = FUSE_DIRENT_ALIGN(FUSE_NAME_OFFSET + nl);
		if (used + rec > size) {
			seekdir(dir, before);
			break;
		}
		struct fuse_dirent *fe = (struct fuse_dirent *)(data + used);
		*fe = (struct fuse_dirent){ .ino = e->d_ino, .off = (uint64_t)telldir(dir),
					    .namelen = (uint32_t)nl, .type = e->d_type };
		memcpy(fe->name, e->d_name, nl);
		memset(fe->name + nl, 0, rec - FUSE_NAME_OFFSET - nl);
		used += rec;
	}
	reply(r->h->unique, 0, data, used);
}

static void do_statfs(const struct request *r)
{
	struct statvfs sv;
	if (fstatvfs(d.lower_fd, &sv) != 0) {
		reply_status(r->h->unique, errno);
		return;
	}
	struct fuse_statfs_out out = { .st = {
		.blocks = sv.f_blocks, .bfree = sv.f_bfree, .bavail = sv.f_bavail,
		.files = sv.f_files, .ffree = sv.f_ffree, .bsize = (uint32_t)sv.f_bsize,
		.namelen = (uint32_t)sv.f_namemax, .frsize = (uint32_t)sv.f_frsize } };
	reply(r->h->unique, 0, &out, sizeof(out));
}

static void handle_request(const struct request *r, uint8_t *data)
{
	switch (r->h->opcode) {
	case FUSE_INIT: do_init(r); break;
	case FUSE_DESTROY: reply_status(r->h->unique, 0); break;
	case FUSE_LOOKUP: do_lookup(r); break;
	case FUSE_FORGET: {
		const struct fuse_forget_in *in = (const void *)r->body;
		if (r->len < sizeof(*in))
			log_error("FORGET with %zu argument bytes", r->len);
		else
			forget(r->h->nodeid, in->nlookup);
		break;	/* no reply */
	}
	case FUSE_BATCH_FORGET: do_batch_forget(r); break;	/* no reply */
	case FUSE_GETATTR: do_getattr(r); break;
	case FUSE_SETATTR: do_setattr(r); break;
	case FUSE_MKDIR: do_mkdir(r); break;
	case FUSE_UNLINK: do_remove(r, 0); break;
	case FUSE_RMDIR: do_remove(r, AT_REMOVEDIR); break;
	case FUSE_RENAME: do_rename(r); break;
	case FUSE_OPEN: do_open(r); break;
	case FUSE_CREATE: do_create(r); break;
	case FUSE_READ: do_read(r, data); break;
	case FUSE_WRITE: do_write(r, data); break;
	case FUSE_RELEASE: do_release(r, false); break;
	case FUSE_RELEASEDIR: do_release(r, true); break;
	/* The lower file is closed at RELEASE; a flush has nothing to push (Android 4.x: 0). */
	case FUSE_FLUSH:
		if (arg(r, sizeof(struct fuse_flush_in)))
			reply_status(r->h->unique, 0);
		break;
	case FUSE_FSYNC: do_fsync(r); break;
	case FUSE_OPENDIR: do_opendir(r); break;
	case FUSE_READDIR: do_readdir(r, data); break;
	case FUSE_STATFS: do_statfs(r); break;
	default: reply_status(r->h->unique, ENOSYS); break;
	}
}

static void *request_loop(void *unused)
{
	(void)unused;
	uint8_t *buf = NULL, *data = NULL;
	if (posix_memalign((void **)&buf, 4096, REQUEST_BYTES) ||
	    posix_memalign((void **)&data, 4096, MAX_DATA_BYTES))
		pl_die("no memory for the request buffers");
	for (;;) {
		ssize_t n = read(d.fuse_fd, buf, REQUEST_BYTES);
		if (n == 0)
			break;	/* --fd: the peer closed */
		if (n < 0) {
			/* ENOENT: a request interrupted before it was read; ENODEV: unmounted. */
			if (errno == EINTR || errno == ENOENT || errno == EAGAIN)
				continue;
			if (errno != ENODEV && errno != ECONNABORTED)
				log_error("read /dev/fuse: %s", strerror(errno));
			break;
		}
		const struct fuse_in_header *h = (const void *)buf;
		if ((size_t)n < sizeof(*h) || h->len != (uint32_t)n) {
			log_error("read a request of %zd bytes whose header says %u", n,
				  (size_t)n < sizeof(*h) ? 0 : h->len);
			continue;
		}
		struct request r = { h, buf + sizeof(*h), (size_t)n - sizeof(*h) };
		handle_request(&r, data);
	}
	free(data);
	free(buf);
	return NULL;
}

static void start_threads(pthread_t *threads)
{
	for (int i = 0; i < REQUEST_THREADS; i++) {
		char name[16];
		int err = pthread_create(&threads[i], NULL, request_loop, NULL);
		if (err)
			pl_die("start request thread %d: %s", i, strerror(err));
		/* Named before ready, so whoever waits for ready finds the names. */
		snprintf(name, sizeof(name), "sdcardd-fuse%d", i);
		err = pthread_setname_np(threads[i], name);
		if (err)
			pl_die("name request thread %d: %s", i, strerror(err));
	}
	int err = pl_ready_signal();
	if (err)
		pl_die("signal ready: %s", strerror(-err));
}

int main(int argc, char **argv)
{
	pthread_t threads[REQUEST_THREADS];
	int served_fd = -1;
	if (argc == 4 && !strcmp(argv[1], "--fd")) {
		char *end;
		long fd = strtol(argv[2], &end, 10);
		if (*end || fd < 0 || fd > INT_MAX)
			pl_die("--fd: expected a descriptor number, got '%s'", argv[2]);
		served_fd = (int)fd;
		argv += 2;
		argc = 2;
	}
	const char *lower = argc > 1 ? argv[1] : PL_SDCARD_LOWER;
	const char *mountpoint = argc > 2 ? argv[2] : PL_SDCARD_DIR;
	if (argc > 3 || (argc > 1 && argv[1][0] == '-'))
		pl_die("usage: sdcardd [LOWER [MOUNTPOINT]] | sdcardd --fd N LOWER");
	d.nnodes = 64;
	d.nodes = calloc(d.nnodes, sizeof(*d.nodes));
	if (!d.nodes)
		pl_die("no memory for the node table");
	d.nodes[ROOT_ID] = (struct node){ .used = true, .parent = ROOT_ID, .nlookup = 1 };
	d.lower_fd = open(lower, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (d.lower_fd < 0)
		pl_die("open %s: %s", lower, strerror(errno));
	if (served_fd >= 0) {
		d.fuse_fd = served_fd;
		start_threads(threads);
		for (int i = 0; i < REQUEST_THREADS; i++)
			pthread_join(threads[i], NULL);
		return 0;
	}
	d.fuse_fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (d.fuse_fd < 0)
		pl_die("open /dev/fuse: %s", strerror(errno));
	if (mkdir(mountpoint, 0775) != 0 && errno != EEXIST)
		pl_die("mkdir %s: %s", mountpoint, strerror(errno));
	/* Android 4.x's options; max_read keeps a READ within the reply buffer. */
	char opts[160];
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,default_permissions,allow_other,"
		 "user_id=%u,group_id=%u,max_read=%u", d.fuse_fd, AID_MEDIA_RW, AID_MEDIA_RW,
		 MAX_DATA_BYTES);
	if (mount("sdcardd", mountpoint, "fuse", MS_NOSUID | MS_NODEV, opts) != 0)
		pl_die("mount fuse on %s (%s): %s", mountpoint, opts, strerror(errno));

	/* SIGTERM is taken by sigwait here; the request threads inherit the mask. */
	sigset_t stop;
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	pthread_sigmask(SIG_BLOCK, &stop, NULL);
	start_threads(threads);
	int sig;
	sigwait(&stop, &sig);
	/* Unmounting ends the connection: the threads' reads fail with ENODEV. */
	if (umount2(mountpoint, 0) != 0)
		pl_die("unmount %s: %s", mountpoint, strerror(errno));
	for (int i = 0; i < REQUEST_THREADS; i++)
		pthread_join(threads[i], NULL);
	return 0;
}
