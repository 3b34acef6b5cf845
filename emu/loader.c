/* Boot image checks; see loader.h. */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <libfdt.h>
#include "loader.h"
#include "panlab/error.h"
#include "panlab/read_file.h"
#include "dev/sdcard.h"

#define ZIMAGE_MAGIC 0x016f2818u
#define ZIMAGE_MAGIC_OFF 0x24
#define CPIO_NEWC "070701"
#define CPIO_HEADER_BYTES 110
#define CPIO_TRAILER "TRAILER!!!"
/* An initramfs, or a kernel, inflates into the phone's RAM (1 GiB) at most. */
#define INITRD_INFLATED_MAX (1u << 30)

/* Reads a whole boot image of at most cap bytes; an empty file is an error too. */
static int read_all(const char *path, size_t cap, const char *what, uint8_t **data,
                    size_t *bytes, struct pl_error *err)
{
    char *buf;
    size_t n;
    if (pl_read_file(path, cap, what, &buf, &n, err) < 0)
        return -1;
    if (n == 0) {
        pl_error_at_offset(err, path, 0, "empty file, expected %s", what);
        free(buf);
        return -1;
    }
    *data = (uint8_t *)buf;
    *bytes = n;
    return 0;
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

/* Inflates the gzip member at d (n bytes at most): 0 with *used the
 * member's length, or -1 with *used the offset of the damage and *why
 * zlib's reason. The output goes to *out (malloc'd, *out_bytes, at most
 * cap bytes) if out is set, else it is only checked (CRC and length). */
static int gunzip(const uint8_t *d, size_t n, uint8_t **out, size_t *out_bytes,
                  size_t cap, size_t *used, const char **why)
{
    z_stream z;
    uint8_t scratch[1 << 16];
    size_t have = 0, room = 0;
    uint8_t *buf = NULL;
    memset(&z, 0, sizeof(z));
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) {
        *used = 0;
        *why = "zlib failed to start";
        return -1;
    }
    z.next_in = (Bytef *)d;
    z.avail_in = (uInt)(n < UINT32_MAX ? n : UINT32_MAX);
    int rc;
    do {
        if (out && room - have < sizeof(scratch)) {
            room = room ? room * 2 : 1 << 22;
            buf = pl_xrealloc(buf, room, 1);
        }
        z.next_out = out ? buf + have : scratch;
        z.avail_out = out ? (uInt)(room - have) : (uInt)sizeof(scratch);
        uInt before = z.avail_out;
        rc = inflate(&z, Z_NO_FLUSH);
        if (out)
            have += before - z.avail_out;
        if (have > cap) {
            rc = Z_MEM_ERROR;
            break;
        }
    } while (rc == Z_OK);
    *used = z.total_in;
    *why = rc == Z_STREAM_END ? NULL : rc == Z_MEM_ERROR ? "expands past the RAM" :
           rc == Z_BUF_ERROR ? "truncated: the stream does not end" :
           z.msg ? z.msg : "corrupt data";
    inflateEnd(&z);
    if (rc != Z_STREAM_END) {
        free(buf);
        return -1;
    }
    if (out) {
        *out = buf;
        *out_bytes = have;
    }
    return 0;
}

/* The compressed kernel inside a zImage (CONFIG_KERNEL_GZIP, the piggy of
 * arch/arm/boot/compressed): the first gzip member that inflates whole,
 * into *image if image is set. A damaged one is named at the byte where
 * inflating stopped, from the candidate that got furthest. */
static int kernel_payload(const char *path, const uint8_t *d, size_t n, uint8_t **image,
                          size_t *image_bytes, struct pl_error *err)
{
    static const uint8_t gz[] = { 0x1f, 0x8b, 8 };
    size_t best_at = 0, best_off = 0;
    const char *best_why = NULL;
    for (size_t at = ZIMAGE_MAGIC_OFF + 12; at + sizeof(gz) <= n; at++) {
        const uint8_t *p = memchr(d + at, gz[0], n - at);
        if (!p)
            break;
        at = (size_t)(p - d);
        if (at + sizeof(gz) > n || memcmp(p, gz, sizeof(gz)) != 0)
            continue;
        size_t used;
        const char *why;
        if (gunzip(p, n - at, image, image_bytes, INITRD_INFLATED_MAX, &used, &why) == 0)
            return 0;
        if (!best_why || at + used > best_off) {
            best_at = at;
            best_off = at + used;
            best_why = why;
        }
    }
    if (!best_why)
        pl_error_at_offset(err, path, ZIMAGE_MAGIC_OFF + 12, "no gzip-compressed "
                           "kernel in the zImage, expected one (CONFIG_KERNEL_GZIP)");
    else
        pl_error_at_offset(err, path, best_off, "the compressed kernel (gzip at "
                           "byte %zu) is corrupt: %s", best_at, best_why);
    return -1;
}

static int hex8(const uint8_t *p, uint32_t *v)
{
    *v = 0;
    for (int i = 0; i < 8; i++) {
        int c = p[i], x = c >= '0' && c <= '9' ? c - '0' :
                          c >= 'a' && c <= 'f' ? c - 'a' + 10 :
                          c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
        if (x < 0)
            return -1;
        *v = *v << 4 | (uint32_t)x;
    }
    return 0;
}

/* One line about the cpio data: at its file offset for a plain archive, at
 * the gzip member's offset (with the inflated one in the text) otherwise. */
static void cpio_error(struct pl_error *err, const char *path, size_t gz_at,
                       size_t off, const char *what)
{
    if (gz_at == SIZE_MAX)
        pl_error_at_offset(err, path, off, "%s", what);
    else
        pl_error_at_offset(err, path, gz_at, "%s, at byte %zu of the cpio data "
                           "inflated from the gzip data here", what, off);
}

/* Walks cpio newc archives (each ending in TRAILER!!!, zero padding after)
 * from a[*off] as Linux's init/initramfs.c reads them, up to n or to a
 * byte between archives that starts no archive (a following gzip member).
 * Returns 0 with *off past the last archive, or -1 with err set. */
static int walk_cpio(const char *path, size_t gz_at, const uint8_t *a, size_t n,
                     size_t *off_io, struct pl_error *err)
{
    size_t off = *off_io;
    int in_archive = 0;
    while (off < n) {
        if (!in_archive && a[off] == 0) {
            off++;
            continue;
        }
        int magic = n - off >= 6 && (!memcmp(a + off, CPIO_NEWC, 6) ||
                                     !memcmp(a + off, "070702", 6));
        if (!in_archive && !magic && gz_at == SIZE_MAX)
            break;
        uint32_t filesize, namesize;
        if (!magic || n - off < CPIO_HEADER_BYTES) {
            cpio_error(err, path, gz_at, off, magic ? "truncated cpio header" :
                       "no cpio header, expected the newc magic \"" CPIO_NEWC "\"");
            return -1;
        }
        if (hex8(a + off + 54, &filesize) || hex8(a + off + 94, &namesize) ||
            namesize == 0) {
            cpio_error(err, path, gz_at, off, "a cpio header's size fields are not "
                       "8 hex digits");
            return -1;
        }
        size_t name = off + CPIO_HEADER_BYTES;
        size_t data = (name + namesize + 3) & ~(size_t)3;
        if (name + namesize > n || data + filesize > n || a[name + namesize - 1]) {
            cpio_error(err, path, gz_at, off, "truncated cpio entry: its name or data "
                       "runs past the end");
            return -1;
        }
        in_archive = namesize != sizeof(CPIO_TRAILER) ||
                     memcmp(a + name, CPIO_TRAILER, sizeof(CPIO_TRAILER));
        off = (data + filesize + 3) & ~(size_t)3;
    }
    if (in_archive) {
        cpio_error(err, path, gz_at, n, "truncated cpio archive: no \"" CPIO_TRAILER
                   "\" entry at its end");
        return -1;
    }
    *off_io = off < n ? off : n;
    return 0;
}

/* The whole initramfs: gzip members and plain cpio archives in any
 * sequence, as Linux unpacks them (Documentation/driver-api/early-userspace). */
static int check_initrd(const char *path, const uint8_t *d, size_t n,
                        struct pl_error *err)
{
    size_t off = 0;
    while (off < n) {
        if (walk_cpio(path, SIZE_MAX, d, n, &off, err) < 0)
            return -1;
        if (off == n)
            break;
        if (n - off < 2 || d[off] != 0x1f || d[off + 1] != 0x8b) {
            pl_error_at_offset(err, path, off, "neither gzip (1f 8b) nor a cpio newc "
                               "archive (\"" CPIO_NEWC "\")%s", off ? " after the previous one" : "");
            return -1;
        }
        uint8_t *a;
        size_t a_bytes, used, a_off = 0;
        const char *why;
        if (gunzip(d + off, n - off, &a, &a_bytes, INITRD_INFLATED_MAX, &used, &why) < 0) {
            pl_error_at_offset(err, path, off + used, "the gzip data at byte %zu is "
                               "corrupt: %s", off, why);
            return -1;
        }
        int rc = walk_cpio(path, off, a, a_bytes, &a_off, err);
        free(a);
        if (rc < 0)
            return -1;
        off += used;
    }
    return 0;
}

/* Checks the zImage d (n bytes): 0 with *bytes its length from its header. */
static int check_zimage(const char *path, const uint8_t *d, size_t n,
                        size_t *bytes, struct pl_error *err)
{
    if (n < ZIMAGE_MAGIC_OFF + 12) {
        pl_error_set(err, "%s@%zu: truncated, expected a zImage header "
                 "of %d bytes", path, n, ZIMAGE_MAGIC_OFF + 12);
    } else if (le32(d + ZIMAGE_MAGIC_OFF) != ZIMAGE_MAGIC) {
        pl_error_set(err, "%s@%d: bad magic 0x%08x, expected the ARM "
                 "zImage magic 0x%08x", path, ZIMAGE_MAGIC_OFF,
                 le32(d + ZIMAGE_MAGIC_OFF), ZIMAGE_MAGIC);
    } else {
        uint32_t start = le32(d + 0x28), end = le32(d + 0x2c);
        if (end <= start || end - start > n) {
            pl_error_set(err, "%s@%zu: truncated, the zImage header at "
                     "0x28 says %u bytes", path, n, end - start);
        } else if (kernel_payload(path, d, end - start, NULL, NULL, err) == 0) {
            *bytes = end - start;
            return 0;
        }
    }
    return -1;
}

int loader_read_zimage(const char *path, uint8_t **data, size_t *bytes,
                       struct pl_error *err)
{
    uint8_t *d;
    size_t n;
    if (read_all(path, PL_CAP_KERNEL_BYTES, "a zImage", &d, &n, err) < 0)
        return -1;
    if (check_zimage(path, d, n, bytes, err) < 0) {
        free(d);
        return -1;
    }
    *data = d;
    return 0;
}

/* ELF32 little-endian ARM executables (the ELF spec, "ARM ELF" IHI 0044). */
#define ELF_EHDR_BYTES 52
#define ELF_PHDR_BYTES 32
#define ELF_PT_LOAD 1
#define ELF_EM_ARM 40

static uint16_t le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

static int read_elf(const char *path, const uint8_t *d, size_t n,
                    loader_kernel *k, struct pl_error *err)
{
    if (n < ELF_EHDR_BYTES || d[4] != 1 || d[5] != 1 || le16(d + 16) != 2 ||
        le16(d + 18) != ELF_EM_ARM) {
        pl_error_at_offset(err, path, 4,
                           "an ELF that is not a 32-bit little-endian "
                           "ARM executable, expected one");
        return -1;
    }
    uint32_t phoff = le32(d + 28), phnum = le16(d + 44);
    if (le16(d + 42) != ELF_PHDR_BYTES || phoff > n ||
        (uint64_t)phnum * ELF_PHDR_BYTES > n - phoff) {
        pl_error_at_offset(err, path, 28,
                           "program headers outside the file, expected "
                           "%u of %d bytes within its %zu bytes",
                           phnum, ELF_PHDR_BYTES, n);
        return -1;
    }
    uint64_t lo = UINT64_MAX, hi = 0;
    for (uint32_t i = 0; i < phnum; i++) {
        const uint8_t *ph = d + phoff + i * ELF_PHDR_BYTES;
        uint32_t off = le32(ph + 4), paddr = le32(ph + 12),
                 filesz = le32(ph + 16);
        if (le32(ph) != ELF_PT_LOAD || !filesz)
            continue;
        if (off > n || filesz > n - off) {
            pl_error_at_offset(
                err, path, phoff + i * ELF_PHDR_BYTES,
                "segment %u's %u "
                "bytes at file offset %u are past the end (%zu bytes)",
                i, filesz, off, n);
            return -1;
        }
        lo = paddr < lo ? paddr : lo;
        hi = paddr + (uint64_t)filesz > hi ? paddr + (uint64_t)filesz : hi;
    }
    if (hi == 0 || hi - lo > PL_CAP_KERNEL_BYTES) {
        pl_error_at_offset(err, path, phoff,
                           "%s, expected loadable segments within "
                           "%u bytes",
                           hi ? "segments spread too far"
                              : "no loadable "
                                "segment",
                           (unsigned)PL_CAP_KERNEL_BYTES);
        return -1;
    }
    uint8_t *img = pl_xcalloc(1, (size_t)(hi - lo));
    for (uint32_t i = 0; i < phnum; i++) {
        const uint8_t *ph = d + phoff + i * ELF_PHDR_BYTES;
        if (le32(ph) == ELF_PT_LOAD && le32(ph + 16))
            memcpy(img + (le32(ph + 12) - lo), d + le32(ph + 4), le32(ph + 16));
    }
    *k = (loader_kernel){ .kind = LOADER_ELF,
                          .data = img,
                          .bytes = (size_t)(hi - lo),
                          .addr = (uint32_t)lo,
                          .entry = le32(d + 24) };
    return 0;
}

int loader_read_kernel(const char *path, loader_kernel *k, struct pl_error *err)
{
    uint8_t *d;
    size_t n;
    if (read_all(path, PL_CAP_KERNEL_BYTES, "a kernel", &d, &n, err) < 0)
        return -1;
    if (n >= 4 && !memcmp(d, "\177ELF", 4)) {
        int rc = read_elf(path, d, n, k, err);
        free(d);
        return rc;
    }
    if (n >= ZIMAGE_MAGIC_OFF + 4 &&
        le32(d + ZIMAGE_MAGIC_OFF) == ZIMAGE_MAGIC) {
        *k = (loader_kernel){ .kind = LOADER_ZIMAGE, .data = d };
        if (check_zimage(path, d, n, &k->bytes, err) < 0) {
            free(d);
            return -1;
        }
        return 0;
    }
    *k = (loader_kernel){ .kind = LOADER_IMAGE, .data = d, .bytes = n };
    return 0;
}

int loader_zimage_kernel(const char *path, const uint8_t *zimage, size_t bytes,
                         uint8_t **image, size_t *image_bytes, struct pl_error *err)
{
    return kernel_payload(path, zimage, bytes, image, image_bytes, err);
}

int loader_read_initrd(const char *path, uint8_t **data, size_t *bytes,
                       struct pl_error *err)
{
    uint8_t *d;
    size_t n;
    if (read_all(path, PL_CAP_INITRD_BYTES, "an initramfs", &d, &n, err) < 0)
        return -1;
    if (check_initrd(path, d, n, err) < 0) {
        free(d);
        return -1;
    }
    *data = d;
    *bytes = n;
    return 0;
}

/* The nodes Linux cannot boot without (Documentation/devicetree/usage-model):
 * a memory node with a reg, and /cpus with a cpu. Missing ones are named
 * at the structure block's offset. */
static int check_dtb_nodes(const char *path, const uint8_t *d, struct pl_error *err)
{
    int mem = fdt_node_offset_by_prop_value(d, -1, "device_type", "memory",
                                            sizeof("memory"));
    int len = 0;
    if (mem < 0 || !fdt_getprop(d, mem, "reg", &len) || len <= 0) {
        pl_error_at_offset(err, path, fdt_off_dt_struct(d), "no memory node with a "
                           "reg, expected one (device_type = \"memory\")");
        return -1;
    }
    int cpus = fdt_path_offset(d, "/cpus");
    if (cpus < 0 || fdt_node_offset_by_prop_value(d, cpus, "device_type", "cpu",
                                                  sizeof("cpu")) < 0) {
        pl_error_at_offset(err, path, fdt_off_dt_struct(d), "no /cpus node with a "
                           "cpu, expected one (device_type = \"cpu\")");
        return -1;
    }
    return 0;
}

int loader_read_dtb(const char *path, uint8_t **data, size_t *bytes,
                    struct pl_error *err)
{
    uint8_t *d;
    size_t n;
    if (read_all(path, PL_CAP_DTB_BYTES, "a device tree blob", &d, &n, err) < 0)
        return -1;
    int rc = n < sizeof(struct fdt_header) ? -FDT_ERR_TRUNCATED
                                           : fdt_check_header(d);
    if (rc == 0 && fdt_totalsize(d) > n)
        rc = -FDT_ERR_TRUNCATED;
    if (rc == 0)
        rc = fdt_check_full(d, n);
    if (rc != 0) {
        pl_error_set(err, "%s@0: not a valid device tree blob (%s)",
                 path, fdt_strerror(rc));
        free(d);
        return -1;
    }
    if (check_dtb_nodes(path, d, err) < 0) {
        free(d);
        return -1;
    }
    *data = d;
    *bytes = n;
    return 0;
}

int loader_open_disk(const char *path, int *fd, uint64_t *bytes, struct pl_error *err)
{
    int f = open(path, O_RDWR | O_CLOEXEC);
    struct stat st;
    if (f < 0 || fstat(f, &st) < 0) {
        pl_error_set(err, "%s: cannot open: %s", path, strerror(errno));
        if (f >= 0)
            close(f);
        return -1;
    }
    if (!S_ISREG(st.st_mode) || st.st_size == 0 ||
        st.st_size % SD_CAPACITY_UNIT_BYTES) {
        pl_error_set(err, "%s@%lld: an SD card image must be a regular "
                     "file of a non-zero multiple of %u bytes (512 KiB, the SDHC "
                     "capacity unit)", path, (long long)st.st_size,
                     SD_CAPACITY_UNIT_BYTES);
        close(f);
        return -1;
    }
    *fd = f;
    *bytes = (uint64_t)st.st_size;
    return 0;
}
