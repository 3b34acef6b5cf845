/* See include/panlab/sdcard.h. */
#include "panlab/sdcard.h"

#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "panlab/clock.h"
#include "panlab/error.h"

#define SDCARD_MMC_HOST "/sys/class/mmc_host/mmc0"
#define SDCARD_MMC "/dev/mmcblk0"
#define SDCARD_VIRTIO "/dev/vda"
/* The mmc core identifies the card in a work item after the host probes (tens of ms of
 * power-up delays), so /init can start before the block device exists. Past this, the card
 * is taken to be broken. */
#define SDCARD_WAIT_MS 5000

/* Waits for devtmpfs to create `path` (inotify on /dev); false after SDCARD_WAIT_MS. */
static bool wait_for_device(const char *path)
{
	const char *name = strrchr(path, '/') + 1;
	int fd = inotify_init1(IN_CLOEXEC);
	if (fd < 0)
		pl_die("inotify_init1: %s", strerror(errno));
	if (inotify_add_watch(fd, "/dev", IN_CREATE) < 0)
		pl_die("inotify_add_watch /dev: %s", strerror(errno));
	uint64_t deadline = pl_now_ns() + (uint64_t)SDCARD_WAIT_MS * 1000000;
	bool found = access(path, F_OK) == 0;
	while (!found) {
		uint64_t now = pl_now_ns();
		int left_ms = now < deadline ? (int)((deadline - now + 999999) / 1000000) : 0;
		struct pollfd p = { .fd = fd, .events = POLLIN };
		if (left_ms == 0 || poll(&p, 1, left_ms) <= 0)
			break;
		char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
		ssize_t n = read(fd, buf, sizeof(buf));
		for (ssize_t off = 0; off < n;) {
			const struct inotify_event *e = (const struct inotify_event *)(buf + off);
			if (e->len && strcmp(e->name, name) == 0)
				found = true;
			off += (ssize_t)sizeof(*e) + e->len;
		}
	}
	close(fd);
	return found;
}

bool pl_sdcard_mount_lower(void)
{
	struct stat st;
	const char *dev = SDCARD_VIRTIO;
	if (access(SDCARD_MMC_HOST, F_OK) == 0) {
		dev = SDCARD_MMC;
		if (!wait_for_device(dev))
			pl_die("%s: the SD card did not appear within %d ms of boot", dev,
			       SDCARD_WAIT_MS);
	}
	if (stat(dev, &st) != 0 || !S_ISBLK(st.st_mode))
		return false;
	if ((mkdir("/data", 0771) != 0 && errno != EEXIST) ||
	    (mkdir(PL_SDCARD_LOWER, 0770) != 0 && errno != EEXIST))
		pl_die("mkdir %s: %s", PL_SDCARD_LOWER, strerror(errno));
	if (mount(dev, PL_SDCARD_LOWER, "ext2", MS_NOATIME, NULL) != 0 && errno != EBUSY)
		pl_die("mount %s on %s (ext2): %s", dev, PL_SDCARD_LOWER, strerror(errno));
	return true;
}
