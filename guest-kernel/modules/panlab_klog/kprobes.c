// SPDX-License-Identifier: GPL-2.0
/* The panlab kernel logger's kprobes on the input and display paths. */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/input.h>
#include <linux/kprobes.h>
#include <linux/moduleparam.h>
#include <linux/ptrace.h>
#include <linux/sched.h>
#include <linux/tty.h>
#include <linux/tty_driver.h>

#include "klog.h"

/* Arming kprobes patches kernel text under stop_machine: only runs that need them pay for it. */
static bool native_probes;
module_param(native_probes, bool, 0444);
MODULE_PARM_DESC(native_probes, "Log input and display kprobe events for programs that log nothing");

/*
 * Input and display, for programs that log nothing themselves (Debian's
 * unmodified armel programs): the kernel has no tracepoints on these paths,
 * so kprobes on the functions every such program goes through. Arguments
 * are read from the AAPCS registers (r0-r3).
 */

/* input_event(dev, type, code, value): a device driver reports an event. */
static int kprobe_input_event(struct kprobe *p, struct pt_regs *regs)
{
	if (regs->ARM_r1 == EV_KEY && regs->ARM_r3 == 1)
		klog_record(PL_EV_KEY_REPORT, current->pid, regs->ARM_r2, 0, 0);
	return 0;
}

/* input_event_to_user(buffer, event): evdev_read() hands one event over. */
static int kprobe_input_event_to_user(struct kprobe *p, struct pt_regs *regs)
{
	const struct input_event *ev = (const void *)regs->ARM_r1;

	if (ev->type == EV_KEY && ev->value == 1)
		klog_record(PL_EV_KEY_READ, current->pid, ev->code,
			    PL_KEY_READ_EVDEV, 0);
	return 0;
}

/* fb_deferred_io_mkwrite(vmf): the first write to a clean framebuffer page. */
static int kprobe_fb_mkwrite(struct kprobe *p, struct pt_regs *regs)
{
	klog_record(PL_EV_FB_DAMAGE, current->pid, 0, PL_FB_DAMAGE_FBDEV, 0);
	return 0;
}

/*
 * drm_atomic_commit(state), drm_atomic_nonblocking_commit(state): a
 * program (a compositor) hands the buffers it drew to the display; a
 * worker's resource flush follows. The fbdev emulation's own commits come
 * from kernel threads, which draw nothing of a program's.
 */
static int kprobe_drm_commit(struct kprobe *p, struct pt_regs *regs)
{
	if (!(current->flags & PF_KTHREAD))
		klog_record(PL_EV_FB_DAMAGE, current->pid, 0, PL_FB_DAMAGE_DRM,
			    0);
	return 0;
}

/*
 * virtio_gpu_cmd_resource_flush(vgdev, resource_id, x, y, width, height,
 * ...): width and height are the fifth and sixth arguments, on the stack.
 * a2 stays 0: the analyzer marks its kernel-only inference there.
 */
static int kprobe_resource_flush(struct kprobe *p, struct pt_regs *regs)
{
	const u32 *stack = (const u32 *)regs->ARM_sp;

	klog_record(PL_EV_GPU_FLUSH, current->pid, regs->ARM_r1,
		    stack[0] << 16 | (stack[1] & 0xffff), 0);
	return 0;
}

static struct kprobe klog_kprobes[] = {
	{ .symbol_name = "input_event", .pre_handler = kprobe_input_event },
	{ .symbol_name = "input_event_to_user",
	  .pre_handler = kprobe_input_event_to_user },
	{ .symbol_name = "fb_deferred_io_mkwrite",
	  .pre_handler = kprobe_fb_mkwrite },
	{ .symbol_name = "virtio_gpu_cmd_resource_flush",
	  .pre_handler = kprobe_resource_flush },
	{ .symbol_name = "drm_atomic_commit", .pre_handler = kprobe_drm_commit },
	{ .symbol_name = "drm_atomic_nonblocking_commit",
	  .pre_handler = kprobe_drm_commit },
};

/*
 * n_tty_read(tty, file, kbuf, nr, cookie, offset) returning bytes from a
 * virtual console: the console keyboard's characters reach a reader.
 */
static int kretprobe_n_tty_read_entry(struct kretprobe_instance *ri,
				      struct pt_regs *regs)
{
	*(struct tty_struct **)ri->data = (struct tty_struct *)regs->ARM_r0;
	return 0;
}

static int kretprobe_n_tty_read(struct kretprobe_instance *ri,
				struct pt_regs *regs)
{
	struct tty_struct *tty = *(struct tty_struct **)ri->data;

	if ((long)regs_return_value(regs) > 0 &&
	    tty->driver->type == TTY_DRIVER_TYPE_CONSOLE)
		klog_record(PL_EV_KEY_READ, current->pid, 0,
			    PL_KEY_READ_TTY, 0);
	return 0;
}

static struct kretprobe klog_tty_read_probe = {
	.kp.symbol_name = "n_tty_read",
	.entry_handler = kretprobe_n_tty_read_entry,
	.handler = kretprobe_n_tty_read,
	.data_size = sizeof(struct tty_struct *),
	.maxactive = 8,
};

static struct kprobe *klog_kprobe_ptrs[ARRAY_SIZE(klog_kprobes)];

int klog_kprobes_register(void)
{
	int i, ret;

	if (!native_probes)
		return 0;
	for (i = 0; i < ARRAY_SIZE(klog_kprobes); i++) {
		/* A kprobe is registered afresh each time: clear what the last run left. */
		klog_kprobes[i].addr = NULL;
		klog_kprobes[i].flags = 0;
		klog_kprobe_ptrs[i] = &klog_kprobes[i];
	}
	ret = register_kprobes(klog_kprobe_ptrs, ARRAY_SIZE(klog_kprobes));
	if (ret) {
		pr_err("cannot attach the input and display kprobes: %d\n", ret);
		return ret;
	}
	klog_tty_read_probe.kp.addr = NULL;
	klog_tty_read_probe.kp.flags = 0;
	ret = register_kretprobe(&klog_tty_read_probe);
	if (ret) {
		pr_err("cannot attach to n_tty_read: %d\n", ret);
		unregister_kprobes(klog_kprobe_ptrs, ARRAY_SIZE(klog_kprobes));
	}
	return ret;
}

void klog_kprobes_unregister(void)
{
	if (!native_probes)
		return;
	unregister_kretprobe(&klog_tty_read_probe);
	unregister_kprobes(klog_kprobe_ptrs, ARRAY_SIZE(klog_kprobes));
}

