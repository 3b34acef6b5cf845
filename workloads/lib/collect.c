/* Event collector. See include/panlab/collect.h. */
#include "panlab/collect.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "panlab/trace_format.h"
#include "panlab/ulog_reader.h"
#include "panlab/klog_uapi.h"
#include "panlab/error.h"

#define CHUNK_RECORDS 2048u
#define OUT_BUF_BYTES (64u * 1024u)
#define ULOG_FILE_PREFIX "panlab-log."
#define SPOOL_PREFIX "panlab-spool."
#define PATH_BYTES 256

struct kernel_side {
	int fd;			/* /dev/panlab_klog, -1: no kernel logger */
	uint32_t ncpus;
	uint64_t records[PL_KLOG_MAX_CPUS];	/* spooled, per cpu */
	uint64_t lost[PL_KLOG_MAX_CPUS];
};

struct user_file {
	struct user_file *next;
	char path[PATH_BYTES];
	struct pl_ulog_reader reader;
};

/* A lost count kept after its shm file was retired (its process exited). */
struct lost_entry {
	uint32_t id;		/* tid, or pid for events of threads that found no slot */
	bool unslotted;
	uint64_t lost;
};

struct collector {
	const struct pl_collect_opts *o;
	struct pl_error err;
	struct kernel_side k;
	struct user_file *files;
	struct lost_entry *retired;
	size_t nretired;
	char spool[PATH_BYTES];	/* private spool directory; "" until first needed */
	/* The periodic drain thread, if any: it owns everything above until it is joined. */
	pthread_t thread;
	bool threaded;
	int stop_fd;		/* eventfd: finish asks the thread to stop */
	int thread_rc;
	/* The output: bytes are buffered here and written to out_fd, the host link; from the
	 * first failed write on (or if the link cannot be opened), to the spill file instead. */
	int out_fd;
	const char *out_name;	/* the path out_fd writes to, for messages */
	bool spilling;
	uint64_t sent_bytes;	/* bytes the host link took */
	size_t buffered;
	unsigned char buf[OUT_BUF_BYTES];
	struct pl_event chunk[CHUNK_RECORDS];
	struct pl_collect_result res;
};

static int fail(struct collector *c, const char *what, const char *path, int err)
{
	pl_error_set(&c->err, "%s %s: %s", what, path, strerror(err));
	return -1;
}

/* ---- the spool: one append-only file of records per source ---- */

static int spool_path(struct collector *c, char kind, uint32_t id, char *path)
{
	if (!c->spool[0]) {
		const char *parent = c->o->spool_dir ? c->o->spool_dir : c->o->shm_dir;
		/* 200: room left for a file name under it (spool_path) */
		if (snprintf(c->spool, sizeof(c->spool), "%s/" SPOOL_PREFIX "XXXXXX", parent) > 200 ||
		    !mkdtemp(c->spool)) {
			int e = errno;
			snprintf(c->spool, sizeof(c->spool), "%s/" SPOOL_PREFIX "XXXXXX", parent);
			fail(c, "make spool directory", c->spool, e);
			c->spool[0] = '\0';
			return -1;
		}
	}
	if (snprintf(path, PATH_BYTES, "%.200s/%c%u", c->spool, kind, id) >= PATH_BYTES)
		return fail(c, "spool in", c->spool, ENAMETOOLONG);
	return 0;
}

static int spool_append(struct collector *c, char kind, uint32_t id, const struct pl_event *ev,
			size_t n)
{
	char path[PATH_BYTES];
	if (spool_path(c, kind, id, path))
		return -1;
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (fd < 0)
		return fail(c, "open", path, errno);
	ssize_t w = write(fd, ev, n * sizeof(*ev));
	int e = w < 0 ? errno : ENOSPC;
	close(fd);
	if (w != (ssize_t)(n * sizeof(*ev)))
		return fail(c, "spool to", path, e);
	c->res.spooled += n;
	return 0;
}

/* Records in the spool file of a source (0: none). */
static uint64_t spool_records(struct collector *c, char kind, uint32_t id)
{
	char path[PATH_BYTES];
	struct stat st;
	if (!c->spool[0] || spool_path(c, kind, id, path) || stat(path, &st) != 0)
		return 0;
	return (uint64_t)st.st_size / sizeof(struct pl_event);
}

static void spool_remove(struct collector *c)
{
	if (!c->spool[0])
		return;
	DIR *d = opendir(c->spool);
	struct dirent *de;
	while (d && (de = readdir(d)) != NULL) {
		char path[PATH_BYTES * 2];
		if (de->d_name[0] != '.') {
			snprintf(path, sizeof(path), "%s/%s", c->spool, de->d_name);
			unlink(path);
		}
	}
	if (d)
		closedir(d);
	rmdir(c->spool);
}

/* ---- draining ---- */

static int open_kernel(struct collector *c)
{
	const char *path = c->o->klog_path;
	c->k.ncpus = (uint32_t)sysconf(_SC_NPROCESSORS_CONF);
	c->k.fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	if (c->k.fd < 0)
		return path && errno != ENOENT ? fail(c, "open", path, errno) : 0;
	struct pl_klog_stats st;
	if (ioctl(c->k.fd, PL_KLOG_IOC_STATS, &st) < 0)
		return fail(c, "PL_KLOG_IOC_STATS on", path, errno);
	c->k.ncpus = st.ncpus > PL_KLOG_MAX_CPUS ? PL_KLOG_MAX_CPUS : st.ncpus;
	return 0;
}

/* read() drains the kernel buffers; a short count means they are empty (panlab/klog_uapi.h).
 * Each run of one cpu's records goes to that cpu's spool file. */
static int drain_kernel(struct collector *c)
{
	struct kernel_side *k = &c->k;
	const char *path = c->o->klog_path;
	for (ssize_t n = (ssize_t)sizeof(c->chunk); k->fd >= 0 && n == (ssize_t)sizeof(c->chunk);) {
		n = read(k->fd, c->chunk, sizeof(c->chunk));
		if (n < 0) {
			if (errno == EINTR) {
				n = (ssize_t)sizeof(c->chunk);
				continue;
			}
			return fail(c, "read", path, errno);
		}
		size_t count = (size_t)n / sizeof(struct pl_event);
		for (size_t i = 0, run; i < count; i += run) {
			uint16_t cpu = c->chunk[i].cpu;
			if (cpu >= k->ncpus) {
				pl_error_file(&c->err, path, "record with cpu %u of %u", cpu, k->ncpus);
				return -1;
			}
			for (run = 1; i + run < count && c->chunk[i + run].cpu == cpu; run++)
				;
			if (spool_append(c, 'k', cpu, c->chunk + i, run))
				return -1;
			k->records[cpu] += run;
		}
	}
	return 0;
}

static int kernel_lost(struct collector *c)
{
	struct pl_klog_stats st;
	if (c->k.fd < 0)
		return 0;
	if (ioctl(c->k.fd, PL_KLOG_IOC_STATS, &st) < 0)
		return fail(c, "PL_KLOG_IOC_STATS on", c->o->klog_path, errno);
	for (uint32_t i = 0; i < c->k.ncpus; i++)
		c->k.lost[i] = st.lost[i];
	return 0;
}

/* Maps the logger files not seen yet (new processes since the last drain). */
static int open_user_files(struct collector *c, bool final)
{
	DIR *d = opendir(c->o->shm_dir);
	if (!d)
		return errno == ENOENT ? 0 : fail(c, "open", c->o->shm_dir, errno);
	struct dirent *de;
	int r = 0;
	while (!r && (de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, ULOG_FILE_PREFIX, strlen(ULOG_FILE_PREFIX)) != 0)
			continue;
		char path[PATH_BYTES];
		if (snprintf(path, sizeof(path), "%s/%s", c->o->shm_dir, de->d_name) >= (int)sizeof(path)) {
			r = fail(c, "map", de->d_name, ENAMETOOLONG);
			break;
		}
		struct user_file *f = c->files;
		while (f && strcmp(f->path, path) != 0)
			f = f->next;
		if (f)
			continue;
		if (!(f = calloc(1, sizeof(*f)))) {
			r = fail(c, "list", c->o->shm_dir, ENOMEM);
			break;
		}
		memcpy(f->path, path, sizeof(path));
		int e = pl_ulog_reader_open(&f->reader, f->path);
		if (e == -EPROTO && !final) {
			free(f);	/* its process is still setting it up: next drain */
			continue;
		}
		if (e) {
			free(f);
			r = fail(c, "map", path, -e);
			break;
		}
		f->next = c->files;
		c->files = f;
	}
	closedir(d);
	return r;
}

/* Moves every record a file's rings hold to the spool, one run of one thread at a time. */
static int drain_user_file(struct collector *c, struct user_file *f)
{
	for (unsigned s = 0; s < pl_ulog_reader_slots(&f->reader); s++) {
		struct pl_ulog_slot_info si;
		pl_ulog_reader_slot(&f->reader, s, &si);
		if (!si.tid)
			continue;
		size_t n;
		while ((n = pl_ulog_reader_drain(&f->reader, s, c->chunk, CHUNK_RECORDS)) > 0) {
			for (size_t i = 0, run; i < n; i += run) {
				for (run = 1; i + run < n && c->chunk[i + run].tid == c->chunk[i].tid; run++)
					;
				if (spool_append(c, 'u', c->chunk[i].tid, c->chunk + i, run))
					return -1;
			}
		}
	}
	return 0;
}

static int add_retired(struct collector *c, uint32_t id, bool unslotted, uint64_t lost)
{
	if (!lost)
		return 0;
	struct lost_entry *v = realloc(c->retired, (c->nretired + 1) * sizeof(*v));
	if (!v)
		return fail(c, "keep lost counts of", c->o->shm_dir, ENOMEM);
	c->retired = v;
	v[c->nretired++] = (struct lost_entry){ id, unslotted, lost };
	return 0;
}

/* The process of a drained file has exited: keep its lost counts, unmap and remove it, so a
 * long session holds only the live processes' buffers. */
static int retire_file(struct collector *c, struct user_file **link)
{
	struct user_file *f = *link;
	for (unsigned s = 0; s < pl_ulog_reader_slots(&f->reader); s++) {
		struct pl_ulog_slot_info si;
		pl_ulog_reader_slot(&f->reader, s, &si);
		if (si.tid && add_retired(c, si.tid, false, si.lost))
			return -1;
	}
	if (add_retired(c, pl_ulog_reader_pid(&f->reader), true,
			pl_ulog_reader_unslotted_lost(&f->reader)))
		return -1;
	*link = f->next;
	pl_ulog_reader_close(&f->reader);
	unlink(f->path);
	free(f);
	return 0;
}

/* One periodic drain: kernel, then every userspace file. */
static int drain_all(struct collector *c)
{
	if (drain_kernel(c) || open_user_files(c, false))
		return -1;
	for (struct user_file **link = &c->files; *link;) {
		struct user_file *f = *link;
		/* Exited before the drain: nothing can be added after it, so the file can go. */
		bool exited = kill((pid_t)pl_ulog_reader_pid(&f->reader), 0) != 0 && errno == ESRCH;
		if (drain_user_file(c, f))
			return -1;
		if (exited) {
			if (retire_file(c, link))
				return -1;
		} else {
			link = &f->next;
		}
	}
	c->res.drains++;
	return 0;
}

static void *drain_thread(void *p)
{
	struct collector *c = p;
	uint64_t period_ns = (uint64_t)c->o->drain_period_ms * 1000000u;
	int tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	struct itimerspec its = { .it_interval = { (time_t)(period_ns / 1000000000u),
						   (long)(period_ns % 1000000000u) } };
	its.it_value = its.it_interval;
	if (tfd < 0 || timerfd_settime(tfd, 0, &its, NULL) != 0) {
		c->thread_rc = fail(c, "timerfd for", "the periodic drain", errno);
		if (tfd >= 0)
			close(tfd);
		return NULL;
	}
	struct pollfd pf[2] = { { .fd = c->stop_fd, .events = POLLIN }, { .fd = tfd, .events = POLLIN } };
	while (!c->thread_rc) {
		if (poll(pf, 2, -1) < 0) {
			if (errno != EINTR)
				c->thread_rc = fail(c, "poll in", "the periodic drain", errno);
			continue;
		}
		if (pf[0].revents)
			break;
		uint64_t ticks;
		if (read(tfd, &ticks, sizeof(ticks)) == (ssize_t)sizeof(ticks))
			c->thread_rc = drain_all(c);
	}
	close(tfd);
	return NULL;
}

/* ---- the trace file ---- */

/* From now on the output goes to the spill file, after a header saying where in the trace it
 * starts (collect.h). */
static int start_spill(struct collector *c)
{
	if (c->out_fd >= 0)
		close(c->out_fd);
	c->spilling = true;
	c->out_name = c->o->spill_path;
	c->out_fd = open(c->o->spill_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (c->out_fd < 0)
		return fail(c, "open", c->o->spill_path, errno);
	struct pl_spill_header h = { .offset_bytes = c->sent_bytes };
	memcpy(h.magic, PL_SPILL_MAGIC, sizeof(h.magic));
	if (write(c->out_fd, &h, sizeof(h)) != (ssize_t)sizeof(h))
		return fail(c, "write", c->o->spill_path, errno ? errno : EIO);
	return 0;
}

/* Writes the buffer out. A failure of the host link moves what it did not take to the spill
 * file, if there is one; bytes are never dropped. */
static int flush_out(struct collector *c)
{
	size_t done = 0;
	while (done < c->buffered) {
		ssize_t n = write(c->out_fd, c->buf + done, c->buffered - done);
		if (n > 0) {
			done += (size_t)n;
			if (c->spilling)
				c->res.spilled_bytes += (uint64_t)n;
			else
				c->sent_bytes += (uint64_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		int e = n < 0 ? errno : EIO;
		if (c->spilling || !c->o->spill_path)
			return fail(c, "write", c->out_name, e);
		if (start_spill(c))
			return -1;
	}
	c->buffered = 0;
	return 0;
}

static int put(struct collector *c, const void *p, size_t bytes)
{
	const unsigned char *b = p;
	while (bytes > 0) {
		size_t n = bytes < OUT_BUF_BYTES - c->buffered ? bytes : OUT_BUF_BYTES - c->buffered;
		memcpy(c->buf + c->buffered, b, n);
		c->buffered += n;
		b += n;
		bytes -= n;
		if (c->buffered == OUT_BUF_BYTES && flush_out(c))
			return -1;
	}
	return 0;
}

static int open_out(struct collector *c)
{
	c->out_name = c->o->out_path;
	c->out_fd = open(c->o->out_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (c->out_fd >= 0)
		return 0;
	if (!c->o->spill_path)
		return fail(c, "open", c->o->out_path, errno);
	return start_spill(c);
}

static int put_source(struct collector *c, uint32_t kind, uint32_t id, uint64_t records,
		      uint64_t lost)
{
	struct pl_source s = { .kind = kind, .id = id, .records = records, .lost = lost };
	c->res.nsources++;
	c->res.records += records;
	c->res.lost += lost;
	return put(c, &s, sizeof(s));
}

/* One user source of the table: its spooled records, then a run of records still in a ring. */
struct user_source {
	uint32_t id;		/* tid; pid for the events of a process's threads that found no slot */
	bool unslotted;
	uint32_t order;		/* tie-break: the order sources were found in */
	uint64_t spooled;
	struct pl_ulog_reader *reader;	/* NULL: nothing in a ring */
	unsigned slot;
	uint32_t pending;
	uint64_t lost;
};

struct source_list {
	struct user_source *v;
	size_t n, cap;
};

static struct user_source *add_source(struct source_list *l, struct user_source s)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		struct user_source *v = realloc(l->v, cap * sizeof(*v));
		if (!v)
			return NULL;
		l->v = v;
		l->cap = cap;
	}
	s.order = (uint32_t)l->n;
	l->v[l->n] = s;
	return &l->v[l->n++];
}

/*
 * The runs of one ring: one per run of records of the same thread (a recycled slot holds its
 * owners' runs in turn); the ring's lost count goes to its last run. The pending counts are
 * fixed here: exactly that many records are copied later, so a producer still running cannot
 * make the file disagree with its table.
 */
static int ring_sources(struct pl_ulog_reader *r, unsigned slot, struct source_list *l)
{
	struct pl_ulog_slot_info si;
	pl_ulog_reader_slot(r, slot, &si);
	if (!si.tid)
		return 0;
	struct user_source cur = { .id = si.tid, .reader = r, .slot = slot };
	for (uint32_t i = 0; i < si.pending; i++) {
		uint32_t tid = pl_ulog_reader_peek_tid(r, slot, i);
		if (cur.pending && tid != cur.id) {
			if (!add_source(l, cur))
				return -1;
			cur.pending = 0;
		}
		cur.id = tid;
		cur.pending++;
	}
	cur.lost = si.lost;
	return add_source(l, cur) ? 0 : -1;
}

static int by_id(const void *a, const void *b)
{
	const struct user_source *x = a, *y = b;
	if (x->unslotted != y->unslotted)
		return x->unslotted - y->unslotted;
	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return x->order < y->order ? -1 : 1;
}

/* Every user source: the rings' runs, the retired files' lost counts, and the spooled threads;
 * in tid order, then the slot-less events by pid, so the table does not depend on directory
 * order. */
static int user_sources(struct collector *c, struct source_list *l)
{
	for (struct user_file *f = c->files; f; f = f->next) {
		for (unsigned s = 0; s < pl_ulog_reader_slots(&f->reader); s++)
			if (ring_sources(&f->reader, s, l))
				return fail(c, "list", "sources", ENOMEM);
		uint64_t unslotted = pl_ulog_reader_unslotted_lost(&f->reader);
		if (unslotted && !add_source(l, (struct user_source){ .id = pl_ulog_reader_pid(&f->reader),
								       .unslotted = true, .lost = unslotted }))
			return fail(c, "list", "sources", ENOMEM);
	}
	for (size_t i = 0; i < c->nretired; i++)
		if (!add_source(l, (struct user_source){ .id = c->retired[i].id,
							  .unslotted = c->retired[i].unslotted,
							  .lost = c->retired[i].lost }))
			return fail(c, "list", "sources", ENOMEM);
	DIR *d = c->spool[0] ? opendir(c->spool) : NULL;
	if (c->spool[0] && !d)
		return fail(c, "open", c->spool, errno);
	struct dirent *de;
	while (d && (de = readdir(d)) != NULL) {
		char *end;
		unsigned long tid = de->d_name[0] == 'u' ? strtoul(de->d_name + 1, &end, 10) : 0;
		if (!tid || *end)
			continue;
		/* Its spooled records go before its run in a ring, if it has one. */
		struct user_source *s = NULL;
		for (size_t i = 0; i < l->n && !s; i++)
			if (!l->v[i].unslotted && l->v[i].id == tid && !l->v[i].spooled)
				s = &l->v[i];
		if (!s && !(s = add_source(l, (struct user_source){ .id = (uint32_t)tid }))) {
			closedir(d);
			return fail(c, "list", "sources", ENOMEM);
		}
		s->spooled = spool_records(c, 'u', (uint32_t)tid);
	}
	if (d)
		closedir(d);
	size_t kept = 0;
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].spooled || l->v[i].pending || l->v[i].lost)
			l->v[kept++] = l->v[i];
	l->n = kept;
	if (l->n)
		qsort(l->v, l->n, sizeof(*l->v), by_id);
	return 0;
}

static int write_table(struct collector *c, const struct source_list *l)
{
	uint32_t nkernel = c->k.fd >= 0 ? c->k.ncpus : 0;
	struct pl_file_header h = { .version = PL_TRACE_VERSION, .record_bytes = sizeof(struct pl_event),
				    .clock_id = PL_CLOCK_MONOTONIC, .ncpus = c->k.ncpus,
				    .nsources = nkernel + (uint32_t)l->n };
	memcpy(h.magic, PL_TRACE_MAGIC, sizeof(h.magic));
	if (put(c, &h, sizeof(h)))
		return -1;
	for (uint32_t cpu = 0; cpu < nkernel; cpu++)
		if (put_source(c, PL_SRC_KERNEL_CPU, cpu, c->k.records[cpu], c->k.lost[cpu]))
			return -1;
	for (size_t i = 0; i < l->n; i++)
		if (put_source(c, PL_SRC_USER_THREAD, l->v[i].id, l->v[i].spooled + l->v[i].pending,
			       l->v[i].lost))
			return -1;
	return 0;
}

/* Copies the first count records of a source's spool file to the output. */
static int put_spooled(struct collector *c, char kind, uint32_t id, uint64_t count)
{
	char path[PATH_BYTES];
	if (!count)
		return 0;
	if (spool_path(c, kind, id, path))
		return -1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail(c, "open", path, errno);
	int r = 0;
	while (!r && count > 0) {
		size_t want = count < CHUNK_RECORDS ? (size_t)count : CHUNK_RECORDS;
		ssize_t n = read(fd, c->chunk, want * sizeof(struct pl_event));
		if (n != (ssize_t)(want * sizeof(struct pl_event)))
			r = fail(c, "read back", path, n < 0 ? errno : EIO);
		else
			r = put(c, c->chunk, (size_t)n);
		count -= want;
	}
	close(fd);
	return r;
}

static int write_records(struct collector *c, const struct source_list *l)
{
	for (uint32_t cpu = 0; c->k.fd >= 0 && cpu < c->k.ncpus; cpu++)
		if (put_spooled(c, 'k', cpu, c->k.records[cpu]))
			return -1;
	for (size_t i = 0; i < l->n; i++) {
		const struct user_source *u = &l->v[i];
		if (put_spooled(c, 'u', u->id, u->spooled))
			return -1;
		for (uint32_t left = u->pending; left > 0;) {
			size_t got = pl_ulog_reader_drain(u->reader, u->slot, c->chunk,
							  left < CHUNK_RECORDS ? left : CHUNK_RECORDS);
			if (put(c, c->chunk, got * sizeof(struct pl_event)))
				return -1;
			left -= (uint32_t)got;
		}
	}
	return 0;
}

/* The last drain, then the trace: table, kernel records cpu by cpu, then each user source. */
static int write_trace(struct collector *c)
{
	struct source_list l = { 0 };
	int r = drain_kernel(c) || kernel_lost(c) || open_user_files(c, true) || user_sources(c, &l) ||
		open_out(c) || write_table(c, &l) || write_records(c, &l) || flush_out(c) ? -1 : 0;
	/* The spill file is on a disk: it must be there after a power cut. */
	if (!r && c->spilling && fsync(c->out_fd) != 0)
		r = fail(c, "sync", c->out_name, errno);
	if (c->out_fd >= 0 && close(c->out_fd) != 0 && !r)
		r = fail(c, "close", c->out_name, errno);
	free(l.v);
	return r;
}

static void collector_free(struct collector *c, bool remove_files)
{
	while (c->files) {
		struct user_file *f = c->files;
		c->files = f->next;
		pl_ulog_reader_close(&f->reader);
		if (remove_files)
			unlink(f->path);
		free(f);
	}
	if (c->k.fd >= 0)
		close(c->k.fd);
	if (c->stop_fd >= 0)
		close(c->stop_fd);
	free(c->retired);
	free(c);
}

int pl_collector_start(const struct pl_collect_opts *o, struct pl_collector **out, struct pl_error *err)
{
	struct collector *c = calloc(1, sizeof(*c));
	*out = NULL;
	if (!c) {
		pl_error_set(err, "collector: out of memory");
		return -1;
	}
	c->o = o;
	c->out_fd = -1;
	c->k.fd = -1;
	c->stop_fd = -1;
	int r = open_kernel(c);
	if (!r && o->drain_period_ms) {
		c->stop_fd = eventfd(0, EFD_CLOEXEC);
		int e = c->stop_fd < 0 ? errno : pthread_create(&c->thread, NULL, drain_thread, c);
		r = e ? fail(c, "start", "the periodic drain thread", e) : 0;
		c->threaded = !r;
	}
	if (r) {
		*err = c->err;
		collector_free(c, false);
		return -1;
	}
	*out = (struct pl_collector *)c;
	return 0;
}

int pl_collector_finish(struct pl_collector *pc, struct pl_collect_result *res, struct pl_error *err)
{
	struct collector *c = (struct collector *)pc;
	int r = 0;
	if (c->threaded) {
		uint64_t one = 1;
		if (write(c->stop_fd, &one, sizeof(one)) != (ssize_t)sizeof(one))
			abort();	/* an eventfd write of 1 cannot fail: the thread would never stop */
		pthread_join(c->thread, NULL);
		r = c->thread_rc;
	}
	if (!r)
		r = write_trace(c);
	if (r)
		*err = c->err;
	else
		spool_remove(c);	/* on failure it is kept: it may hold records the link never took */
	if (res)
		*res = c->res;
	collector_free(c, !r);
	return r;
}

int pl_collect(const struct pl_collect_opts *o, struct pl_collect_result *res, struct pl_error *err)
{
	struct pl_collector *c;
	if (pl_collector_start(o, &c, err))
		return -1;
	return pl_collector_finish(c, res, err);
}

int pl_collect_send_spill(const char *spill_path, const char *out_path, uint64_t *sent_bytes,
			  struct pl_error *err)
{
	struct collector *c = calloc(1, sizeof(*c));
	if (!c) {
		pl_error_set(err, "collector: out of memory");
		return -1;
	}
	c->out_name = out_path;
	int in = open(spill_path, O_RDONLY | O_CLOEXEC);
	struct pl_spill_header h;
	int r = in < 0 ? fail(c, "open", spill_path, errno) : 0;
	if (!r && (read(in, &h, sizeof(h)) != (ssize_t)sizeof(h) ||
		   memcmp(h.magic, PL_SPILL_MAGIC, sizeof(h.magic)) != 0)) {
		pl_error_at_offset(&c->err, spill_path, 0, "not a spill file, expected the magic %s",
				   PL_SPILL_MAGIC);
		r = -1;
	}
	if (!r && (c->out_fd = open(out_path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) < 0)
		r = fail(c, "open", out_path, errno);
	/* A file (a test, or a trace kept on the guest) continues where the link stopped; a port
	 * cannot seek, and its host side already holds the bytes before offset_bytes. */
	if (!r && lseek(c->out_fd, (off_t)h.offset_bytes, SEEK_SET) < 0 && errno != ESPIPE)
		r = fail(c, "seek", out_path, errno);
	while (!r) {
		ssize_t n = read(in, c->buf, sizeof(c->buf));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			r = n < 0 ? fail(c, "read", spill_path, errno) : 0;
			break;
		}
		c->buffered = (size_t)n;
		r = flush_out(c);
	}
	if (c->out_fd >= 0 && close(c->out_fd) != 0 && !r)
		r = fail(c, "close", out_path, errno);
	if (in >= 0)
		close(in);
	/* Only once the link took everything is the spill removed. */
	if (!r && unlink(spill_path) != 0)
		r = fail(c, "remove", spill_path, errno);
	if (!r && sent_bytes)
		*sent_bytes = c->sent_bytes;
	if (r)
		*err = c->err;
	free(c);
	return r;
}

int pl_collect_parse_period_ms(const char *arg, uint32_t min_ms, uint32_t *ms)
{
	uint64_t v;

	if (pl_parse_u64(arg, 3600000, &v) < 0 || v < min_ms)
		return -1;
	*ms = (uint32_t)v;
	return 0;
}
