/* Service sockets. See include/panlab/wire.h. */
#include "panlab/wire.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

/* Abstract names start with a NUL byte and are not NUL terminated. */
static socklen_t abstract_addr(struct sockaddr_un *a, const char *name)
{
	const char *suffix = getenv("PANLAB_SOCKET_SUFFIX");
	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	int n = snprintf(a->sun_path + 1, sizeof(a->sun_path) - 1, "%s%s", name, suffix ? suffix : "");
	if (n > (int)sizeof(a->sun_path) - 2)
		n = (int)sizeof(a->sun_path) - 2;
	return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

int pl_wire_listen(const char *name)
{
	struct sockaddr_un a;
	socklen_t len = abstract_addr(&a, name);
	int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	if (bind(s, (struct sockaddr *)&a, len) < 0 || listen(s, 8) < 0) {
		int err = -errno;
		close(s);
		return err;
	}
	return s;
}

int pl_wire_connect(const char *name)
{
	struct sockaddr_un a;
	socklen_t len = abstract_addr(&a, name);
	int s = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -errno;
	if (connect(s, (struct sockaddr *)&a, len) < 0) {
		int err = -errno;
		close(s);
		return err;
	}
	return s;
}

int pl_wire_send(int sock, const struct pl_wire *m, int pass_fd)
{
	struct iovec iov = { .iov_base = (void *)m, .iov_len = sizeof(*m) };
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (pass_fd >= 0) {
		memset(&ctl, 0, sizeof(ctl));
		mh.msg_control = ctl.buf;
		mh.msg_controllen = sizeof(ctl.buf);
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &pass_fd, sizeof(int));
	}
	ssize_t n;
	do
		n = sendmsg(sock, &mh, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	return n == (ssize_t)sizeof(*m) ? 0 : -EPROTO;
}

int pl_wire_recv(int sock, struct pl_wire *m, int *pass_fd)
{
	struct iovec iov = { .iov_base = m, .iov_len = sizeof(*m) };
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} ctl;
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl.buf,
			     .msg_controllen = sizeof(ctl.buf) };
	ssize_t n;

	if (pass_fd)
		*pass_fd = -1;
	do
		n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -errno;
	if (n == 0)
		return 0;
	int fd = -1;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
			memcpy(&fd, CMSG_DATA(c), sizeof(int));
	if (pass_fd)
		*pass_fd = fd;
	else if (fd >= 0)
		close(fd);
	if (n != (ssize_t)sizeof(*m) || (mh.msg_flags & MSG_TRUNC)) {
		if (pass_fd && fd >= 0) {
			close(fd);
			*pass_fd = -1;
		}
		return -EPROTO;
	}
	return 1;
}
