/*
 * The SD card as the platform sees it, laid out as on a Galaxy Nexus (Android 4.x): the card's
 * own file system (ext2 on /dev/mmcblk0 on the phone, /dev/vda on qemu) is mounted at
 * PL_SDCARD_LOWER, which only the system touches, and the daemon `sdcardd` serves it to apps
 * at PL_SDCARD_DIR through FUSE (services/sdcardd.c). The device's tuna init script ran
 * "service sdcard /system/bin/sdcard /data/media 1023 1023" the same way.
 */
#ifndef PANLAB_SDCARD_H
#define PANLAB_SDCARD_H

#include <stdbool.h>

#define PL_SDCARD_LOWER "/data/media"
#define PL_SDCARD_DIR "/sdcard"

/*
 * Mounts the machine's card, if it has one, at PL_SDCARD_LOWER (creating the directory).
 * On the phone the mmc core finds the card in a work item after boot, so this waits (inotify
 * on /dev) up to 5 s for /dev/mmcblk0. Returns true if mounted, false if the machine has no
 * card; any failure exits through pl_die.
 */
bool pl_sdcard_mount_lower(void);

#endif /* PANLAB_SDCARD_H */
