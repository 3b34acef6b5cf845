// SPDX-License-Identifier: GPL-2.0
/*
 * What a sleeping task waits on, by kind of file (enum pl_file_kind): the
 * files of its select() or poll() (patch 0004's poll_wqueues), the one
 * file its read, receive, write, send or ioctl names, or an epoll set.
 * Read at the task's own switch out, so its poll table and file table
 * cannot change meanwhile.
 */
#include <linux/fdtable.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <linux/major.h>
#include <linux/net.h>
#include <linux/poll.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/task_stack.h>
#include <linux/string.h>
#include <net/sock.h>
#include <asm/syscall.h>
#include <asm/unistd.h>

#include "klog.h"

/* include/drm/drm_ioctl.h, which needs the DRM core's headers. */
#define KLOG_DRM_MAJOR 226

static u32 klog_chr_kind(unsigned int major, unsigned int minor)
{
	switch (major) {
	case INPUT_MAJOR:
	case TTY_MAJOR:		/* a virtual console's keyboard */
		return PL_FILE_INPUT;
	case TTYAUX_MAJOR:	/* /dev/ptmx is a pty; /dev/tty, /dev/console */
		return minor == 2 ? PL_FILE_IPC : PL_FILE_INPUT;
	case KLOG_DRM_MAJOR:
	case FB_MAJOR:
		return PL_FILE_DISPLAY;
	}
	if (major >= UNIX98_PTY_MASTER_MAJOR &&
	    major < UNIX98_PTY_SLAVE_MAJOR + UNIX98_PTY_MAJOR_COUNT)
		return PL_FILE_IPC;
	return PL_FILE_OTHER;
}

u32 klog_file_kind(const struct file *f)
{
	struct inode *inode = file_inode(f);
	umode_t mode = inode->i_mode;
	const struct sock *sk;

	if (S_ISSOCK(mode)) {
		sk = SOCKET_I(inode)->sk;
		if (sk && (sk->sk_family == AF_INET || sk->sk_family == AF_INET6))
			return PL_FILE_NETWORK;
		return PL_FILE_IPC;
	}
	if (S_ISFIFO(mode))
		return PL_FILE_IPC;
	if (S_ISREG(mode) || S_ISBLK(mode))
		return PL_FILE_DISK;
	if (S_ISCHR(mode))
		return klog_chr_kind(imajor(inode), iminor(inode));
	/* Anonymous inodes share one inode; their files are named. */
	if (inode->i_sb->s_magic == ANON_INODE_FS_MAGIC) {
		const char *name = f->f_path.dentry->d_name.name;

		if (!strcmp(name, "[timerfd]"))
			return PL_FILE_TIMER;
		/* Another task's write or signal. */
		if (!strcmp(name, "[eventfd]") || !strcmp(name, "[signalfd]"))
			return PL_FILE_IPC;
	}
	return PL_FILE_OTHER;
}

/* The file a blocking syscall on one descriptor names, if it is one. */
static struct file *klog_syscall_file(struct task_struct *t)
{
	struct pt_regs *regs = task_pt_regs(t);

	switch (syscall_get_nr(t, regs)) {
	case __NR_read:
	case __NR_readv:
	case __NR_pread64:
	case __NR_preadv:
	case __NR_preadv2:
	case __NR_write:
	case __NR_writev:
	case __NR_recv:
	case __NR_recvfrom:
	case __NR_recvmsg:
	case __NR_recvmmsg:
	case __NR_send:
	case __NR_sendto:
	case __NR_sendmsg:
	case __NR_ioctl:
		/* ARM_ORIG_r0: the first argument, as the syscall got it. */
		return files_lookup_fd_rcu(t->files, regs->ARM_ORIG_r0);
	}
	return NULL;
}

/*
 * Whether a task sleeps in epoll_wait(). Its set's files are the
 * eventpoll's, whose items are private to fs/eventpoll.c, so their kinds
 * are not listed: the wake names the one that became ready (patch 0004's
 * waking_file in ep_poll_callback()), and that one is what the wait was for.
 */
static bool klog_in_epoll_wait(struct task_struct *t)
{
	switch (syscall_get_nr(t, task_pt_regs(t))) {
	case __NR_epoll_wait:
	case __NR_epoll_pwait:
	case __NR_epoll_pwait2:
		return true;
	}
	return false;
}

u32 klog_files_waited(struct task_struct *t)
{
	struct poll_wqueues *pwq = READ_ONCE(t->poll_wqueues);
	struct file *f;
	u32 kinds = 0;
	int i;

	if (t->flags & PF_KTHREAD || !t->files)
		return 0;
	if (klog_in_epoll_wait(t))
		return 1U << PL_FILE_UNKNOWN;
	if (pwq) {
		/* The inline entries: the first N_INLINE_POLL_ENTRIES files. */
		for (i = 0; i < min_t(int, pwq->inline_index, N_INLINE_POLL_ENTRIES);
		     i++)
			kinds |= 1U << klog_file_kind(pwq->inline_entries[i].filp);
		/*
		 * The rest are in pages whose struct is private to fs/select.c:
		 * their kinds are not listed, so not every kind is known.
		 */
		if (pwq->table)
			kinds |= 1U << PL_FILE_UNKNOWN;
		return kinds;
	}
	rcu_read_lock();
	f = klog_syscall_file(t);
	if (f)
		kinds = 1U << klog_file_kind(f);
	rcu_read_unlock();
	return kinds;
}
