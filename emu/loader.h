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
/* A kernel in one of the forms QEMU's -kernel takes for 32-bit ARM. */
enum loader_kernel_kind {
    LOADER_ZIMAGE, /* self-decompressing, runs from wherever it is placed */
    LOADER_ELF,    /* an ELF32 ARM executable (vmlinux, a bare-metal program) */
    LOADER_IMAGE,  /* raw: neither of the above (arch/arm/boot/Image) */
};
typedef struct loader_kernel {
    enum loader_kernel_kind kind;
    uint8_t *data; /* the bytes to place in RAM (malloc'd): the file, or
                     * an ELF's PT_LOAD segments laid out by address */
    size_t bytes;
    uint32_t addr;  /* ELF: the address data starts at, as linked */
    uint32_t entry; /* ELF: e_entry */
} loader_kernel;
/* Reads a kernel: a zImage as loader_read_zimage checks it, an ELF's
 * loadable segments (file contents; memory beyond them stays as RAM
 * starts, zero), or anything else non-empty as a raw image. */
int loader_read_kernel(const char *path, loader_kernel *k,
                       struct pl_error *err);
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
