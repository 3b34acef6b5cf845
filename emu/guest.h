/* What the phone knows about the panlab guest, in one place: the board
 * (machine.c, dev/) is a generic QEMU-virt-like board, and everything that
 * depends on the guest's kernel build or userspace is here, so a change of
 * the guest is a change of this file.
 *
 * Everything here is a constant or a layout; no state. */
#ifndef PANLAB_EMU_GUEST_H
#define PANLAB_EMU_GUEST_H

/* The guest kernel's linear map starts here (CONFIG_VMSPLIT_3G) and maps
 * the start of RAM. */
#define GUEST_PAGE_OFFSET 0xc0000000u

/* A kernel built in tree leaves System.map three levels above its image. */
#define GUEST_ZIMAGE_TAIL "arch/arm/boot/zImage"
#define GUEST_SYSTEM_MAP "System.map"

/* Console lines the run watches for (the kernel's own wording). */
#define GUEST_CONSOLE_INIT "Run /init as init process"
/* How scripts/guest/init's own lines start: /init runs even when `quiet`
 * kept the kernel's line above off the console. */
#define GUEST_CONSOLE_INIT_SAYS "panlab-init: "
#define GUEST_CONSOLE_PANIC "Kernel panic"
/* Linux's lines when the initramfs cannot be unpacked, or gave no init
 * (init/initramfs.c, init/main.c, init/do_mounts.c). */
#define GUEST_CONSOLE_INITRD_FAILED "Initramfs unpacking failed"
#define GUEST_CONSOLE_NO_INIT "No working init found"
#define GUEST_CONSOLE_NO_ROOT "Unable to mount root fs"

/* The virtio-console ports the guest opens by name, and its handshake lines,
 * are the guest ABI (panlab/guest_abi.h). */

/* struct vdso_data (Linux 6.1, 32-bit ARM, include/vdso/datapage.h),
 * found through System.map's vdso_data_store: seq @0, clock_mode @4,
 * cycle_last @8, mask @16, mult @24, shift @28, then basetime[] of
 * 16-byte {sec, nsec}, indexed by clock id; CLOCK_MONOTONIC is 1. */
#define GUEST_VDSO_SYMBOL "vdso_data_store"
/* A System.map is this kernel's when its linux_banner (init/version.c,
 * in .rodata) holds the banner in the kernel image, which starts at
 * _text: a map of another build puts vdso_data_store elsewhere too. */
#define GUEST_TEXT_SYMBOL "_text"
#define GUEST_BANNER_SYMBOL "linux_banner"
#define GUEST_BANNER_PREFIX "Linux version "
enum {
    GUEST_VDSO_SEQ = 0, GUEST_VDSO_MODE = 4, GUEST_VDSO_CYCLE_LAST = 8,
    GUEST_VDSO_MASK = 16, GUEST_VDSO_MULT = 24, GUEST_VDSO_SHIFT = 28,
    GUEST_VDSO_MONO = 32 + 16 * 1, GUEST_VDSO_BYTES = 64,
};

#endif
