/* Event collector. See include/panlab/collect.h. */
#include "panlab/collect.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "panlab/trace_format.h"
#include "panlab/ulog_reader.h"
#include "panlab_klog_uapi.h"

#define CHUNK_RECORDS 2048u
#define OUT_BUF_BYTES (64u * 1024u)
#define ULOG_FILE_PREFIX "panlab-log."

struct kernel_side {
	int spool;		/* memfd of drained records, -1: no kernel logger */
	uint32_t ncpus;
	uint64_t records[PL_KLOG_MAX_CPUS];
	uint64_t lost[PL_KLOG_MAX_CPUS];
	uint64_t spooled;
};

struct user_file {
	struct user_file *next;
	char path[256];
	struct pl_ulog_reader reader;
};

struct collector {
	const struct pl_collect_opts *o;
	char *err;
	size_t err_len;
	struct kernel_side k;
	struct user_file *files;
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
	snprintf(c->err, c->err_len, "%s %s: %s", what, path, strerror(err));
	return -1;
}

/* read() drains the kernel buffers; a short count means they are empty (panlab_klog_uapi.h). */
static int drain_kernel(struct collector *c)
{
	struct kernel_side *k = &c->k;
	const char *path = c->o->klog_path;

	k->spool = -1;
	k->ncpus = (uint32_t)sysconf(_SC_NPROCESSORS_CONF);
	int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	if (fd < 0)
		return path && errno != ENOENT ? fail(c, "open", path, errno) : 0;
	struct pl_klog_stats st;
	if (ioctl(fd, PL_KLOG_IOC_STATS, &st) < 0) {
		int e = errno;
		close(fd);
		return fail(c, "PL_KLOG_IOC_STATS on", path, e);
	}
	k->ncpus = st.ncpus > PL_KLOG_MAX_CPUS ? PL_KLOG_MAX_CPUS : st.ncpus;
	for (uint32_t i = 0; i < k->ncpus; i++)
		k->lost[i] = st.lost[i];
	k->spool = memfd_create("panlab-klog-spool", MFD_CLOEXEC);
	if (k->spool < 0) {
		int e = errno;
		close(fd);
		return fail(c, "memfd for", path, e);
	}
	for (;;) {
		ssize_t n = read(fd, c->chunk, sizeof(c->chunk));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			int e = errno;
			close(fd);
			return fail(c, "read", path, e);
		}
		size_t count = (size_t)n / sizeof(struct pl_event);
		for (size_t i = 0; i < count; i++) {
			uint16_t cpu = c->chunk[i].cpu;
			if (cpu >= k->ncpus) {
				close(fd);
				snprintf(c->err, c->err_len, "%s: record with cpu %u of %u", path, cpu, k->ncpus);
				return -1;
			}
			k->records[cpu]++;
		}
		if (count && write(k->spool, c->chunk, count * sizeof(struct pl_event)) !=
				     (ssize_t)(count * sizeof(struct pl_event))) {
			int e = errno;
			close(fd);
			return fail(c, "spool", path, e);
		}
		k->spooled += count;
		if ((size_t)n < sizeof(c->chunk))
			break;
	}
	close(fd);
	return 0;
}

static int open_user_files(struct collector *c)
{
	DIR *d = opendir(c->o->shm_dir);
	if (!d)
		return errno == ENOENT ? 0 : fail(c, "open", c->o->shm_dir, errno);
	struct dirent *de;
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, ULOG_FILE_PREFIX, strlen(ULOG_FILE_PREFIX)) != 0)
			continue;
		struct user_file *f = calloc(1, sizeof(*f));
		if (!f) {
			closedir(d);
			return fail(c, "list", c->o->shm_dir, ENOMEM);
		}
		int e = snprintf(f->path, sizeof(f->path), "%s/%s", c->o->shm_dir, de->d_name) <
				(int)sizeof(f->path) ? pl_ulog_reader_open(&f->reader, f->path) : -ENAMETOOLONG;
		if (e) {
			free(f);
			closedir(d);
			return fail(c, "map", f->path, -e);
		}
		f->next = c->files;
		c->files = f;
	}
	closedir(d);
	return 0;
}

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

/* One run of one thread's records in a ring, as snapshotted for the table; copied later. */
struct user_source {
	struct pl_ulog_reader *reader;
	unsigned slot;		/* UINT32_MAX: the file's unslotted-lost entry */
	uint32_t tid;
	uint32_t pending;
	uint64_t lost;
};

/*
 * The sources of one ring: one per run of records of the same thread (a
 * recycled slot holds its owners' runs in turn). The ring's lost count goes
 * to its last run. Fills out (if not NULL) and returns the count.
 */
static uint32_t slot_sources(struct pl_ulog_reader *r, unsigned slot,
			     const struct pl_ulog_slot_info *si, struct user_source *out)
{
	struct user_source cur = { r, slot, si->tid, 0, 0 };
	uint32_t n = 0;
	for (uint32_t i = 0; i < si->pending; i++) {
		uint32_t tid = pl_ulog_reader_peek_tid(r, slot, i);
		if (cur.pending && tid != cur.tid) {
			if (out)
				out[n] = cur;
			n++;
			cur.pending = 0;
		}
		cur.tid = tid;
		cur.pending++;
	}
	cur.lost = si->lost;
	if (out)
		out[n] = cur;
	return n + 1;
}

/*
 * Snapshot every claimed ring once: the table states each source's record
 * count, and exactly that many records are copied later, so a producer still
 * running cannot make the file disagree with its table.
 */
static struct user_source *snapshot_user(struct collector *c, uint32_t *count)
{
	struct user_source *v = NULL;
	/* Pass 0 counts, pass 1 fills: the pending counts are fixed at pass 0. */
	size_t nslots = 0, nfiles = 0;
	for (struct user_file *f = c->files; f; f = f->next, nfiles++)
		nslots += pl_ulog_reader_slots(&f->reader);
	struct pl_ulog_slot_info *infos = calloc(nslots + 1, sizeof(*infos));
	uint64_t *unslotted = calloc(nfiles + 1, sizeof(*unslotted));
	uint32_t n = 0;
	for (int pass = 0; pass < 2 && infos && unslotted; pass++) {
		size_t k = 0, fi = 0;
		n = 0;
		for (struct user_file *f = c->files; f; f = f->next, fi++) {
			for (unsigned s = 0; s < pl_ulog_reader_slots(&f->reader); s++, k++) {
				if (pass == 0)
					pl_ulog_reader_slot(&f->reader, s, &infos[k]);
				if (infos[k].tid)
					n += slot_sources(&f->reader, s, &infos[k], v ? v + n : NULL);
			}
			/* Threads that found no slot: reported under the process id, with no records. */
			if (pass == 0)
				unslotted[fi] = pl_ulog_reader_unslotted_lost(&f->reader);
			if (unslotted[fi] && v)
				v[n] = (struct user_source){ &f->reader, UINT32_MAX, pl_ulog_reader_pid(&f->reader),
							     0, unslotted[fi] };
			n += unslotted[fi] != 0;
		}
		if (pass == 0 && !(v = calloc(n + 1, sizeof(*v))))
			break;
	}
	free(infos);
	free(unslotted);
	*count = n;
	return v;
}

static int write_table(struct collector *c, const struct user_source *u, uint32_t nuser)
{
	uint32_t nkernel = c->k.spool >= 0 ? c->k.ncpus : 0;
	struct pl_file_header h = { .version = PL_TRACE_VERSION, .record_bytes = sizeof(struct pl_event),
				    .clock_id = PL_CLOCK_MONOTONIC, .ncpus = c->k.ncpus,
				    .nsources = nkernel + nuser };
	memcpy(h.magic, PL_TRACE_MAGIC, sizeof(h.magic));
	if (put(c, &h, sizeof(h)))
		return -1;
	for (uint32_t cpu = 0; cpu < nkernel; cpu++)
		if (put_source(c, PL_SRC_KERNEL_CPU, cpu, c->k.records[cpu], c->k.lost[cpu]))
			return -1;
	for (uint32_t i = 0; i < nuser; i++)
		if (put_source(c, PL_SRC_USER_THREAD, u[i].tid, u[i].pending, u[i].lost))
			return -1;
	return 0;
}

static int write_kernel_records(struct collector *c)
{
	for (uint32_t cpu = 0; c->k.spool >= 0 && cpu < c->k.ncpus; cpu++) {
		/* One pass over the spool per cpu: cpus are few, memory stays one chunk. */
		for (uint64_t off = 0; off < c->k.spooled; off += CHUNK_RECORDS) {
			uint64_t want = c->k.spooled - off < CHUNK_RECORDS ? c->k.spooled - off : CHUNK_RECORDS;
			ssize_t n = pread(c->k.spool, c->chunk, (size_t)want * sizeof(struct pl_event),
					  (off_t)(off * sizeof(struct pl_event)));
			if (n != (ssize_t)(want * sizeof(struct pl_event)))
				return fail(c, "read back", "kernel spool", n < 0 ? errno : EIO);
			for (uint64_t i = 0; i < want; i++)
				if (c->chunk[i].cpu == cpu && put(c, &c->chunk[i], sizeof(c->chunk[i])))
					return -1;
		}
	}
	return 0;
}

static int write_user_records(struct collector *c, const struct user_source *u, uint32_t nuser)
{
	for (uint32_t i = 0; i < nuser; i++) {
		for (uint32_t left = u[i].pending; left > 0;) {
			size_t got = pl_ulog_reader_drain(u[i].reader, u[i].slot, c->chunk,
							  left < CHUNK_RECORDS ? left : CHUNK_RECORDS);
			if (put(c, c->chunk, got * sizeof(struct pl_event)))
				return -1;
			left -= (uint32_t)got;
		}
	}
	return 0;
}

static int collect(struct collector *c)
{
	if (drain_kernel(c) || open_user_files(c))
		return -1;
	uint32_t nuser = 0;
	struct user_source *u = snapshot_user(c, &nuser);
	if (!u)
		return fail(c, "collect", "sources", ENOMEM);
	int r = open_out(c);
	if (!r)
		r = write_table(c, u, nuser);
	if (!r)
		r = write_kernel_records(c);
	if (!r)
		r = write_user_records(c, u, nuser);
	if (!r)
		r = flush_out(c);
	/* The spill file is on a disk: it must be there after a power cut. */
	if (!r && c->spilling && fsync(c->out_fd) != 0)
		r = fail(c, "sync", c->out_name, errno);
	if (c->out_fd >= 0 && close(c->out_fd) != 0 && !r)
		r = fail(c, "close", c->out_name, errno);
	free(u);
	return r;
}
int pl_collect(const struct pl_collect_opts *o, struct pl_collect_result *res, char *err,
	       size_t err_len)
{
	struct collector *c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(err, err_len, "collector: out of memory");
		return -1;
	}
	c->o = o;
	c->out_fd = -1;
	c->err = err;
	c->err_len = err_len;
	int r = collect(c);
	while (c->files) {
		struct user_file *f = c->files;
		c->files = f->next;
		pl_ulog_reader_close(&f->reader);
		if (!r)
			unlink(f->path);
		free(f);
	}
	if (c->k.spool >= 0)
		close(c->k.spool);
	if (res)
		*res = c->res;
	free(c);
	return r;
}

int pl_collect_send_spill(const char *spill_path, const char *out_path, uint64_t *sent_bytes,
			  char *err, size_t err_len)
{
	struct collector *c = calloc(1, sizeof(*c));
	if (!c) {
		snprintf(err, err_len, "collector: out of memory");
		return -1;
	}
	c->err = err;
	c->err_len = err_len;
	c->out_name = out_path;
	int in = open(spill_path, O_RDONLY | O_CLOEXEC);
	struct pl_spill_header h;
	int r = in < 0 ? fail(c, "open", spill_path, errno) : 0;
	if (!r && (read(in, &h, sizeof(h)) != (ssize_t)sizeof(h) ||
		   memcmp(h.magic, PL_SPILL_MAGIC, sizeof(h.magic)) != 0)) {
		snprintf(err, err_len, "%s@0: not a spill file, expected the magic %s", spill_path,
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
	free(c);
	return r;
}
