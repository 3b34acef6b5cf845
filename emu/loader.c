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
#include "dev/sdcard.h"

#define ZIMAGE_MAGIC 0x016f2818u
#define ZIMAGE_MAGIC_OFF 0x24
#define CPIO_NEWC "070701"

static int read_all(const char *path, uint8_t **data, size_t *bytes,
                    struct pl_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        pl_error_set(err, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    size_t cap = 1 << 20, n = 0;
    uint8_t *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n, f);
        if (n < cap)
            break;
        uint8_t *nb = realloc(buf, cap * 2);
        if (!nb) {
            free(buf);
            buf = NULL;
            break;
        }
        buf = nb;
        cap *= 2;
    }
    int bad = ferror(f);
    fclose(f);
    if (!buf || bad) {
        pl_error_set(err, "%s: cannot read: %s", path,
                 buf ? strerror(errno) : "out of memory");
        free(buf);
        return -1;
    }
    if (n == 0) {
        pl_error_set(err, "%s@0: empty file", path);
        free(buf);
        return -1;
    }
    *data = buf;
    *bytes = n;
    return 0;
}

static uint32_t le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

int loader_read_zimage(const char *path, uint8_t **data, size_t *bytes,
                       struct pl_error *err)
{
    uint8_t *d;
    size_t n;
    if (read_all(path, &d, &n, err) < 0)
        return -1;
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
        } else {
            *data = d;
            *bytes = end - start;
            return 0;
        }
    }
    free(d);
    return -1;
}

/* Inflates the first bytes of a gzip stream to find the cpio magic. */
static int gunzip_head(const uint8_t *d, size_t n, uint8_t *out, size_t out_len,
                       size_t *err_off)
{
    z_stream z;
    memset(&z, 0, sizeof(z));
    if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK)
        return -1;
    z.next_in = (Bytef *)d;
    z.avail_in = (uInt)n;
    z.next_out = out;
    z.avail_out = (uInt)out_len;
    int rc = inflate(&z, Z_SYNC_FLUSH);
    size_t got = out_len - z.avail_out;
    *err_off = z.total_in;
    inflateEnd(&z);
    return (rc == Z_OK || rc == Z_STREAM_END) && got == out_len ? 0 : -1;
}

int loader_read_initrd(const char *path, uint8_t **data, size_t *bytes,
                       struct pl_error *err)
{
    uint8_t *d;
    size_t n;
    if (read_all(path, &d, &n, err) < 0)
        return -1;
    uint8_t head[6];
    size_t off = 0;
    if (n >= 2 && d[0] == 0x1f && d[1] == 0x8b) {
        if (gunzip_head(d, n, head, sizeof(head), &off) < 0) {
            pl_error_set(err, "%s@%zu: corrupt or truncated gzip data, "
                     "expected a gzip-compressed cpio archive", path, off);
            goto fail;
        }
        if (memcmp(head, CPIO_NEWC, 6) != 0) {
            pl_error_set(err, "%s@0: the gzip data does not start with "
                     "the cpio newc magic \"" CPIO_NEWC "\"", path);
            goto fail;
        }
    } else if (n < 6 || memcmp(d, CPIO_NEWC, 6) != 0) {
        pl_error_set(err, "%s@0: neither gzip (1f 8b) nor a cpio newc "
                 "archive (\"" CPIO_NEWC "\")", path);
        goto fail;
    }
    *data = d;
    *bytes = n;
    return 0;
fail:
    free(d);
    return -1;
}

int loader_read_dtb(const char *path, uint8_t **data, size_t *bytes,
                    struct pl_error *err)
{
    uint8_t *d;
    size_t n;
    if (read_all(path, &d, &n, err) < 0)
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
