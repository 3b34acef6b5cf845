/*
 * sdcardd's protocol handling, on the host: the daemon (built for the host beside this test)
 * serves one end of a SOCK_SEQPACKET pair (`sdcardd --fd N LOWER`), which carries one request
 * per packet as /dev/fuse does, so the test sends FUSE requests of its own making, well-formed
 * and not, and reads the replies. The lower directory is a fresh temporary one.
 */
#define _FILE_OFFSET_BITS 64
#include <CUnit/CUnit.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fuse.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "panlab/spawn.h"
#include "test_platform.h"
#include "panlab/error.h"

struct daemon_run {
	pid_t pid;
	int sock;		/* our end */
	char lower[64];
	char log[80];		/* the daemon's stderr */
	uint64_t unique;
};

static void start(struct daemon_run *r)
{
	char path[PATH_MAX], fd_arg[16];
	int pair[2], saved_err = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
	struct pl_error err = { "" };

	snprintf(r->lower, sizeof(r->lower), "/tmp/panlab-sdcardd-test.XXXXXX");
	CU_ASSERT_FATAL(mkdtemp(r->lower) != NULL);
	snprintf(r->log, sizeof(r->log), "%s.log", r->lower);
	CU_ASSERT_FATAL(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, pair) == 0);
	/* Only the daemon's end crosses exec: ours closing is its end of input. */
	CU_ASSERT_FATAL(fcntl(pair[0], F_SETFD, FD_CLOEXEC) == 0);
	CU_ASSERT_FATAL(pl_sibling_path("sdcardd", path, sizeof(path)) == 0);
	snprintf(fd_arg, sizeof(fd_arg), "%d", pair[1]);
	/* The daemon's error lines go to a file the test reads. */
	int log = open(r->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	CU_ASSERT_FATAL(log >= 0 && saved_err >= 0 && dup2(log, STDERR_FILENO) == STDERR_FILENO);
	r->pid = pl_spawn_ready(path, (char *[]){ path, "--fd", fd_arg, r->lower, NULL }, NULL,
				&err);
	dup2(saved_err, STDERR_FILENO);
	close(saved_err);
	close(log);
	close(pair[1]);
	r->sock = pair[0];
	r->unique = 1;
	CU_ASSERT_FATAL(r->pid > 0);
}

/* Sends opcode on nodeid with the argument parts (a, an) and (b, bn); header len is the real
 * length plus len_error. */
static uint64_t send_req(struct daemon_run *r, uint32_t opcode, uint64_t nodeid, const void *a,
			 size_t an, const void *b, size_t bn, int len_error)
{
	uint8_t buf[8192];
	struct fuse_in_header h = { .len = (uint32_t)(sizeof(h) + an + bn + (size_t)len_error),
				    .opcode = opcode, .unique = r->unique++, .nodeid = nodeid };
	CU_ASSERT_FATAL(sizeof(h) + an + bn <= sizeof(buf));
	memcpy(buf, &h, sizeof(h));
	if (an)
		memcpy(buf + sizeof(h), a, an);
	if (bn)
		memcpy(buf + sizeof(h) + an, b, bn);
	CU_ASSERT_FATAL(write(r->sock, buf, sizeof(h) + an + bn) == (ssize_t)(sizeof(h) + an + bn));
	return h.unique;
}

/* Reads the reply to `unique`; returns its error and copies up to outn bytes of data. */
static int recv_reply(struct daemon_run *r, uint64_t unique, void *out, size_t outn, size_t *got)
{
	uint8_t buf[8192];
	ssize_t n = read(r->sock, buf, sizeof(buf));
	struct fuse_out_header h;
	CU_ASSERT_FATAL(n >= (ssize_t)sizeof(h));
	memcpy(&h, buf, sizeof(h));
	CU_ASSERT_EQUAL(h.len, (uint32_t)n);
	CU_ASSERT_EQUAL(h.unique, unique);
	size_t data = (size_t)n - sizeof(h);
	if (out)
		memcpy(out, buf + sizeof(h), data < outn ? data : outn);
	if (got)
		*got = data;
	return h.error;
}

static int call(struct daemon_run *r, uint32_t opcode, uint64_t nodeid, const void *a, size_t an,
		const void *b, size_t bn, void *out, size_t outn)
{
	uint64_t u = send_req(r, opcode, nodeid, a, an, b, bn, 0);
	return recv_reply(r, u, out, outn, NULL);
}

/* Closes our end; the daemon must exit 0. Returns its stderr lines. */
static int stop(struct daemon_run *r)
{
	int status, lines = 0;
	char line[512];
	close(r->sock);
	CU_ASSERT_EQUAL(waitpid(r->pid, &status, 0), r->pid);
	CU_ASSERT(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	FILE *f = fopen(r->log, "re");
	while (f && fgets(line, sizeof(line), f)) {
		CU_ASSERT_EQUAL(strncmp(line, "sdcardd: ", 9), 0);
		lines++;
	}
	if (f)
		fclose(f);
	unlink(r->log);
	return lines;
}

static void test_file_operations(void)
{
	struct daemon_run r;
	struct fuse_init_in init = { .major = FUSE_KERNEL_VERSION, .minor = FUSE_KERNEL_MINOR_VERSION,
				     .max_readahead = 65536 };
	struct fuse_init_out io;
	struct fuse_entry_out dir, file;
	struct fuse_mkdir_in mk = { .mode = 0755 };
	struct {
		struct fuse_entry_out e;
		struct fuse_open_out o;
	} created;
	struct fuse_create_in cr = { .flags = O_RDWR, .mode = 0644 };
	char path[PATH_MAX + 32], data[600];

	start(&r);
	CU_ASSERT_EQUAL(call(&r, FUSE_INIT, 0, &init, sizeof(init), NULL, 0, &io, sizeof(io)), 0);
	CU_ASSERT_EQUAL(io.major, FUSE_KERNEL_VERSION);
	CU_ASSERT_EQUAL(io.max_write, 128u * 1024u);
	CU_ASSERT_EQUAL(io.flags, FUSE_ATOMIC_O_TRUNC | FUSE_BIG_WRITES);

	CU_ASSERT_EQUAL(call(&r, FUSE_MKDIR, FUSE_ROOT_ID, &mk, sizeof(mk), "d", 2, &dir, sizeof(dir)), 0);
	CU_ASSERT(dir.nodeid > FUSE_ROOT_ID);
	CU_ASSERT(S_ISDIR(dir.attr.mode) && (dir.attr.mode & 07777) == 0775 && dir.attr.gid == 1015);
	CU_ASSERT_EQUAL(call(&r, FUSE_CREATE, dir.nodeid, &cr, sizeof(cr), "f", 2, &created,
			     sizeof(created)), 0);
	CU_ASSERT((created.e.attr.mode & 07777) == 0664);

	/* WRITE then READ through the handle; the bytes are in the lower file. */
	for (size_t i = 0; i < sizeof(data); i++)
		data[i] = (char)(i * 7);
	struct fuse_write_in w = { .fh = created.o.fh, .offset = 0, .size = sizeof(data) };
	struct fuse_write_out wo;
	CU_ASSERT_EQUAL(call(&r, FUSE_WRITE, created.e.nodeid, &w, sizeof(w), data, sizeof(data),
			     &wo, sizeof(wo)), 0);
	CU_ASSERT_EQUAL(wo.size, sizeof(data));
	w.size = sizeof(data) + 1;	/* more than it carries */
	CU_ASSERT_EQUAL(call(&r, FUSE_WRITE, created.e.nodeid, &w, sizeof(w), data, sizeof(data),
			     NULL, 0), -EINVAL);
	struct fuse_read_in big = { .fh = created.o.fh, .size = 128u * 1024u + 1 };
	CU_ASSERT_EQUAL(call(&r, FUSE_READ, created.e.nodeid, &big, sizeof(big), NULL, 0, NULL, 0),
			-EINVAL);
	struct fuse_read_in rd = { .fh = created.o.fh, .offset = 100, .size = 50 };
	char back[50];
	size_t got;
	uint64_t u = send_req(&r, FUSE_READ, created.e.nodeid, &rd, sizeof(rd), NULL, 0, 0);
	CU_ASSERT_EQUAL(recv_reply(&r, u, back, sizeof(back), &got), 0);
	CU_ASSERT(got == 50 && !memcmp(back, data + 100, 50));
	snprintf(path, sizeof(path), "%s/d/f", r.lower);
	struct stat st;
	CU_ASSERT(stat(path, &st) == 0 && st.st_size == (off_t)sizeof(data));
	struct fuse_fsync_in fs = { .fh = created.o.fh };
	CU_ASSERT_EQUAL(call(&r, FUSE_FSYNC, created.e.nodeid, &fs, sizeof(fs), NULL, 0, NULL, 0), 0);
	struct fuse_release_in rel = { .fh = created.o.fh };
	CU_ASSERT_EQUAL(call(&r, FUSE_RELEASE, created.e.nodeid, &rel, sizeof(rel), NULL, 0, NULL, 0), 0);

	/* LOOKUP finds the same node; SETATTR truncates; RENAME moves it. */
	CU_ASSERT_EQUAL(call(&r, FUSE_LOOKUP, dir.nodeid, "f", 2, NULL, 0, &file, sizeof(file)), 0);
	CU_ASSERT_EQUAL(file.nodeid, created.e.nodeid);
	CU_ASSERT_EQUAL(file.attr.size, sizeof(data));
	struct fuse_setattr_in sa = { .valid = FATTR_SIZE, .size = 10 };
	struct fuse_attr_out ao;
	CU_ASSERT_EQUAL(call(&r, FUSE_SETATTR, file.nodeid, &sa, sizeof(sa), NULL, 0, &ao, sizeof(ao)), 0);
	CU_ASSERT_EQUAL(ao.attr.size, 10);
	struct fuse_rename_in rn = { .newdir = FUSE_ROOT_ID };
	CU_ASSERT_EQUAL(call(&r, FUSE_RENAME, dir.nodeid, &rn, sizeof(rn), "f\0g", 4, NULL, 0), 0);
	snprintf(path, sizeof(path), "%s/g", r.lower);
	CU_ASSERT(stat(path, &st) == 0 && st.st_size == 10);
	struct fuse_getattr_in ga = { 0 };
	CU_ASSERT_EQUAL(call(&r, FUSE_GETATTR, file.nodeid, &ga, sizeof(ga), NULL, 0, &ao, sizeof(ao)), 0);
	CU_ASSERT_EQUAL(ao.attr.size, 10);	/* the node follows its file */

	/* READDIR of the root lists d and g (and . and ..) in pages of the kernel's size. */
	struct fuse_open_in op = { .flags = O_RDONLY };
	struct fuse_open_out oo;
	CU_ASSERT_EQUAL(call(&r, FUSE_OPENDIR, FUSE_ROOT_ID, &op, sizeof(op), NULL, 0, &oo, sizeof(oo)), 0);
	uint8_t page[4096];
	struct fuse_read_in rdd = { .fh = oo.fh, .size = sizeof(page) };
	u = send_req(&r, FUSE_READDIR, FUSE_ROOT_ID, &rdd, sizeof(rdd), NULL, 0, 0);
	CU_ASSERT_EQUAL(recv_reply(&r, u, page, sizeof(page), &got), 0);
	int names = 0;
	for (size_t off = 0; off < got;) {
		const struct fuse_dirent *e = (const void *)(page + off);
		names += (e->namelen == 1 && (e->name[0] == 'd' || e->name[0] == 'g'));
		off += FUSE_DIRENT_SIZE(e);
	}
	CU_ASSERT_EQUAL(names, 2);
	CU_ASSERT_EQUAL(call(&r, FUSE_RELEASEDIR, FUSE_ROOT_ID, &rel, 0, &oo.fh, 0, NULL, 0), -EINVAL);
	rel.fh = oo.fh;
	CU_ASSERT_EQUAL(call(&r, FUSE_RELEASEDIR, FUSE_ROOT_ID, &rel, sizeof(rel), NULL, 0, NULL, 0), 0);

	struct fuse_statfs_out so;
	CU_ASSERT_EQUAL(call(&r, FUSE_STATFS, FUSE_ROOT_ID, NULL, 0, NULL, 0, &so, sizeof(so)), 0);
	CU_ASSERT(so.st.blocks > 0 && so.st.bsize > 0);
	CU_ASSERT_EQUAL(call(&r, FUSE_RMDIR, FUSE_ROOT_ID, "d", 2, NULL, 0, NULL, 0), 0);
	CU_ASSERT_EQUAL(call(&r, FUSE_UNLINK, FUSE_ROOT_ID, "g", 2, NULL, 0, NULL, 0), 0);
	CU_ASSERT_EQUAL(call(&r, FUSE_LOOKUP, FUSE_ROOT_ID, "g", 2, NULL, 0, NULL, 0), -ENOENT);
	CU_ASSERT(rmdir(r.lower) == 0);	/* empty: everything was removed below */
	CU_ASSERT_EQUAL(stop(&r), 3);	/* the short WRITE, the big READ, the short RELEASEDIR */
}

/* Bad requests get an error reply (or none, for those without one) and a line on stderr;
 * the daemon still answers afterwards. */
static void test_bad_requests(void)
{
	struct daemon_run r;
	struct fuse_getattr_in ga = { 0 };
	struct fuse_attr_out ao;
	struct fuse_read_in rd = { .fh = 12345, .size = 10 };
	struct fuse_write_in w = { .fh = 0, .size = 1000 };
	struct fuse_forget_in fg = { .nlookup = 1 };
	struct fuse_init_in init = { .major = 6 };
	struct fuse_rename_in rn = { .newdir = 777 };

	start(&r);
	CU_ASSERT_EQUAL(call(&r, FUSE_INIT, 0, &init, sizeof(init), NULL, 0, NULL, 0), -EPROTO);
	CU_ASSERT_EQUAL(call(&r, FUSE_LOOKUP, FUSE_ROOT_ID, "..", 3, NULL, 0, NULL, 0), -EINVAL);
	CU_ASSERT_EQUAL(call(&r, FUSE_LOOKUP, FUSE_ROOT_ID, "a/b", 4, NULL, 0, NULL, 0), -EINVAL);
	CU_ASSERT_EQUAL(call(&r, FUSE_LOOKUP, FUSE_ROOT_ID, "abc", 3, NULL, 0, NULL, 0), -EINVAL);
	CU_ASSERT_EQUAL(call(&r, FUSE_GETATTR, 9999, &ga, sizeof(ga), NULL, 0, NULL, 0), -ENOENT);
	CU_ASSERT_EQUAL(call(&r, FUSE_GETATTR, 0, &ga, sizeof(ga), NULL, 0, NULL, 0), -ENOENT);
	CU_ASSERT_EQUAL(call(&r, FUSE_GETATTR, FUSE_ROOT_ID, &ga, 4, NULL, 0, NULL, 0), -EINVAL);
	CU_ASSERT_EQUAL(call(&r, FUSE_READ, FUSE_ROOT_ID, &rd, sizeof(rd), NULL, 0, NULL, 0), -EBADF);
	CU_ASSERT_EQUAL(call(&r, FUSE_WRITE, FUSE_ROOT_ID, &w, sizeof(w), "x", 1, NULL, 0), -EBADF);
	CU_ASSERT_EQUAL(call(&r, FUSE_READDIR, FUSE_ROOT_ID, &rd, sizeof(rd), NULL, 0, NULL, 0), -EBADF);
	CU_ASSERT_EQUAL(call(&r, FUSE_RENAME, FUSE_ROOT_ID, &rn, sizeof(rn), "a", 2, NULL, 0), -EINVAL);
	CU_ASSERT_EQUAL(call(&r, FUSE_RENAME, FUSE_ROOT_ID, &rn, sizeof(rn), "a\0b", 4, NULL, 0), -ENOENT);
	CU_ASSERT_EQUAL(call(&r, 9999, FUSE_ROOT_ID, NULL, 0, NULL, 0, NULL, 0), -ENOSYS);
	CU_ASSERT_EQUAL(call(&r, FUSE_GETXATTR, FUSE_ROOT_ID, NULL, 0, NULL, 0, NULL, 0), -ENOSYS);
	/* No reply: a FORGET of no node, and a packet whose header lies about its length. */
	send_req(&r, FUSE_FORGET, 4242, &fg, sizeof(fg), NULL, 0, 0);
	send_req(&r, FUSE_GETATTR, FUSE_ROOT_ID, &ga, sizeof(ga), NULL, 0, 100);
	uint64_t u = send_req(&r, FUSE_GETATTR, FUSE_ROOT_ID, &ga, sizeof(ga), NULL, 0, 0);
	CU_ASSERT_EQUAL(recv_reply(&r, u, &ao, sizeof(ao), NULL), 0);
	CU_ASSERT(S_ISDIR(ao.attr.mode));
	CU_ASSERT(rmdir(r.lower) == 0);
	/* INIT, 3 names, 2 nodes, the short GETATTR, 3 handles, the short RENAME,
	 * the FORGET, the bad length; not the rename onto a missing directory (an answer). */
	CU_ASSERT_EQUAL(stop(&r), 13);
}

void add_sdcardd_suite(void)
{
	CU_pSuite s = CU_add_suite("sdcardd", NULL, NULL);
	CU_add_test(s, "file operations over the FUSE protocol", test_file_operations);
	CU_add_test(s, "bad requests: error replies, no crash", test_bad_requests);
}
