/* Reading and checking boot images: the zImage, the initramfs and an
 * optional device tree blob. Errors are one line, "path@offset: what is
 * wrong, expected what", in a caller-owned buffer.
 *
 * Ownership: on success *data is malloc'd and the caller frees it; on
 * failure nothing is allocated. */
#ifndef PANLAB_LOADER_H
#define PANLAB_LOADER_H

#include <stddef.h>
#include <stdint.h>
#include "panlab/error.h"

/* ARM Linux zImage: magic 0x016f2818 at byte 0x24, start and end
 * addresses at 0x28 and 0x2c (arch/arm/boot/compressed/head.S). */
int loader_read_zimage(const char *path, uint8_t **data, size_t *bytes,
                       struct pl_error *err);
/* The kernel Image inflated from a zImage that loader_read_zimage
 * accepted (path names it in errors): *image is malloc'd, the caller
 * frees it. Returns 0, or -1 with err set. */
int loader_zimage_kernel(const char *path, const uint8_t *zimage, size_t bytes,
                         uint8_t **image, size_t *image_bytes, struct pl_error *err);
/* initramfs: a cpio newc archive ("070701"), gzip-compressed or not. */
int loader_read_initrd(const char *path, uint8_t **data, size_t *bytes,
                       struct pl_error *err);
/* A flattened device tree blob that libfdt accepts. */
int loader_read_dtb(const char *path, uint8_t **data, size_t *bytes,
                    struct pl_error *err);

/* An SD card image opened read-write: a regular file whose size is a
 * non-zero multiple of 512 KiB (SDHC capacity unit). On success *fd is
 * the caller's. */
int loader_open_disk(const char *path, int *fd, uint64_t *bytes, struct pl_error *err);

#endif
