/* Snapshot streams; see snapio.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>
#include "snapio.h"
#include "panlab/error.h"
#include "panlab/read_file.h"

#define MAGIC "PANLABSN"
#define MAGIC_BYTES 8
#define SEC_HDR_BYTES 12        /* tag, u64 length */
#define IO_BUF_BYTES (1u << 20)

struct snap_w {
    FILE *f;
    const char *path;
    int failed;
    off_t sec_start;            /* offset of the open section's payload */
    uint32_t crc;
};

struct snap_r {
    FILE *f;
    const char *path;
    uint64_t file_bytes;
    uint64_t off;               /* file offset of the next byte */
    uint64_t last_off;          /* offset of the value just read */
    char tag[5];
    int stream;
    uint64_t sec_end;
    uint8_t *buf;               /* a whole section's payload, unless stream */
    uint64_t buf_off;           /* its file offset */
    uint32_t crc;
    int failed;
    char err[SNAP_ERR_BYTES];
};

/* ---- writing ---- */

snap_w *snap_w_open(const char *path, uint32_t version, struct pl_error *err)
{
    snap_w *w = calloc(1, sizeof(*w));
    if (!w || !(w->f = fopen(path, "wb"))) {
        pl_error_set(err, "%s: cannot create: %s", path, strerror(errno));
        free(w);
        return NULL;
    }
    setvbuf(w->f, NULL, _IOFBF, IO_BUF_BYTES);
    w->path = path;
    w->sec_start = -1;
    if (fwrite(MAGIC, 1, MAGIC_BYTES, w->f) != MAGIC_BYTES)
        w->failed = 1;
    uint8_t v[4] = { (uint8_t)version, (uint8_t)(version >> 8),
                     (uint8_t)(version >> 16), (uint8_t)(version >> 24) };
    if (fwrite(v, 1, 4, w->f) != 4)
        w->failed = 1;
    return w;
}

static void put_raw(snap_w *w, const void *p, size_t n)
{
    if (!w->failed && fwrite(p, 1, n, w->f) != n)
        w->failed = 1;
}

void snap_put_bytes(snap_w *w, const void *p, size_t n)
{
    if (n == 0)
        return;                 /* p may be NULL */
    put_raw(w, p, n);
    /* zlib's crc32 takes a uInt length. */
    for (size_t done = 0; done < n;) {
        size_t k = n - done > (1u << 30) ? (1u << 30) : n - done;
        w->crc = (uint32_t)crc32(w->crc, (const Bytef *)p + done, (uInt)k);
        done += k;
    }
}

static void put_le(snap_w *w, uint64_t v, int n)
{
    uint8_t b[8];
    for (int i = 0; i < n; i++)
        b[i] = (uint8_t)(v >> (8 * i));
    snap_put_bytes(w, b, (size_t)n);
}

void snap_put_u8(snap_w *w, uint8_t v) { put_le(w, v, 1); }
void snap_put_u16(snap_w *w, uint16_t v) { put_le(w, v, 2); }
void snap_put_u32(snap_w *w, uint32_t v) { put_le(w, v, 4); }
void snap_put_u64(snap_w *w, uint64_t v) { put_le(w, v, 8); }
void snap_put_i32(snap_w *w, int32_t v) { put_le(w, (uint32_t)v, 4); }

void snap_put_str(snap_w *w, const char *s)
{
    size_t n = strlen(s);
    snap_put_u32(w, (uint32_t)n);
    snap_put_bytes(w, s, n);
}

void snap_w_begin(snap_w *w, const char *tag)
{
    uint8_t zero[8] = { 0 };
    put_raw(w, tag, 4);
    put_raw(w, zero, 8);
    w->sec_start = ftello(w->f);
    w->crc = (uint32_t)crc32(0, NULL, 0);
}

/* Writes the checksum, then goes back to fill in the length. */
void snap_w_end(snap_w *w)
{
    off_t end = ftello(w->f);
    uint64_t len = (uint64_t)(end - w->sec_start);
    uint8_t b[8];
    for (int i = 0; i < 4; i++)
        b[i] = (uint8_t)(w->crc >> (8 * i));
    put_raw(w, b, 4);
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(len >> (8 * i));
    if (w->failed || fseeko(w->f, w->sec_start - 8, SEEK_SET) != 0 ||
        fwrite(b, 1, 8, w->f) != 8 || fseeko(w->f, 0, SEEK_END) != 0)
        w->failed = 1;
    w->sec_start = -1;
}

int snap_w_close(snap_w *w, struct pl_error *err)
{
    int bad = w->failed || ferror(w->f);
    int e = errno;
    if (fclose(w->f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    if (bad)
        pl_error_set(err, "%s: cannot write: %s", w->path, strerror(e));
    free(w);
    return bad ? -1 : 0;
}

/* ---- reading ---- */

static int fail_at(snap_r *r, uint64_t off, const char *fmt, va_list ap)
{
    if (r->failed)
        return -1;
    r->failed = 1;
    int n = snprintf(r->err, sizeof(r->err), "%s@%llu: ", r->path,
                     (unsigned long long)off);
    if (n > 0 && (size_t)n < sizeof(r->err))
        vsnprintf(r->err + n, sizeof(r->err) - (size_t)n, fmt, ap);
    return -1;
}

int snap_r_fail_at(snap_r *r, uint64_t off, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fail_at(r, off, fmt, ap);
    va_end(ap);
    return -1;
}

int snap_r_fail(snap_r *r, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fail_at(r, r->last_off, fmt, ap);
    va_end(ap);
    return -1;
}

int snap_r_failed(const snap_r *r) { return r->failed; }
uint64_t snap_r_offset(const snap_r *r) { return r->off; }
const char *snap_r_error(const snap_r *r) { return r->err; }

/* Reads n bytes at the file position; a short read is a truncated file. */
static int file_read(snap_r *r, void *p, size_t n, const char *what)
{
    size_t got = fread(p, 1, n, r->f);
    if (got != n) {
        snap_r_fail_at(r, r->off + got, "truncated: expected %zu more bytes of %s",
                 n - got, what);
        return -1;
    }
    r->off += n;
    return 0;
}

static uint64_t le(const uint8_t *b, int n)
{
    uint64_t v = 0;
    for (int i = n - 1; i >= 0; i--)
        v = v << 8 | b[i];
    return v;
}

snap_r *snap_r_open(const char *path, uint32_t version, struct pl_error *err)
{
    snap_r *r = pl_xcalloc(1, sizeof(*r));
    struct stat st;
    if (!(r->f = pl_open_input(path, err))) {
        free(r);
        return NULL;
    }
    if (fstat(fileno(r->f), &st) != 0) {
        pl_error_file(err, path, "cannot open: %s", strerror(errno));
        fclose(r->f);
        free(r);
        return NULL;
    }
    setvbuf(r->f, NULL, _IOFBF, IO_BUF_BYTES);
    r->path = path;
    r->file_bytes = (uint64_t)st.st_size;
    uint8_t h[MAGIC_BYTES + 4];
    if (file_read(r, h, sizeof(h), "the snapshot header") == 0) {
        if (memcmp(h, MAGIC, MAGIC_BYTES) != 0)
            snap_r_fail_at(r, 0, "not a panlab-phone snapshot, expected magic "
                     "\"%s\"", MAGIC);
        else if (le(h + MAGIC_BYTES, 4) != version)
            snap_r_fail_at(r, MAGIC_BYTES, "snapshot format version %llu, expected "
                     "%u (save it again with this panlab-phone)",
                     (unsigned long long)le(h + MAGIC_BYTES, 4), version);
    }
    if (r->failed) {
        pl_error_set(err, "%s", r->err);
        snap_r_close(r);
        return NULL;
    }
    return r;
}

int snap_r_begin(snap_r *r, const char *tag, int stream)
{
    if (r->failed)
        return -1;
    uint8_t h[SEC_HDR_BYTES];
    uint64_t at = r->off;
    char what[40];
    snprintf(what, sizeof(what), "the header of section '%s'", tag);
    if (file_read(r, h, sizeof(h), what) < 0)
        return -1;
    if (memcmp(h, tag, 4) != 0) {
        char got[5] = { 0 };
        for (int i = 0; i < 4; i++)
            got[i] = h[i] >= 0x20 && h[i] < 0x7f ? (char)h[i] : '?';
        return snap_r_fail_at(r, at, "section '%s', expected '%s' (a snapshot of "
                        "another machine configuration?)", got, tag);
    }
    memcpy(r->tag, tag, 4);
    uint64_t len = le(h + 4, 8), left = r->file_bytes - r->off;
    if (len > left)
        return snap_r_fail_at(r, at + 4, "truncated: section '%s' says %llu bytes, "
                        "the file holds %llu after it", tag,
                        (unsigned long long)len, (unsigned long long)left);
    if (left - len < 4)
        return snap_r_fail_at(r, r->off + len, "truncated: section '%s' ends "
                        "%llu bytes into its 4-byte CRC-32, expected the CRC after "
                        "its %llu bytes", tag, (unsigned long long)(left - len),
                        (unsigned long long)len);
    r->sec_end = r->off + len;
    r->stream = stream;
    r->crc = (uint32_t)crc32(0, NULL, 0);
    free(r->buf);
    r->buf = NULL;
    if (stream)
        return 0;
    r->buf = malloc(len ? len : 1);
    if (!r->buf)
        return snap_r_fail_at(r, at, "out of memory for section '%s'", tag);
    r->buf_off = r->off;
    uint8_t c[4];
    if (file_read(r, r->buf, len, what) < 0 || file_read(r, c, 4, what) < 0)
        return -1;
    uint32_t crc = (uint32_t)crc32(0, r->buf, (uInt)len);
    if (crc != le(c, 4))
        return snap_r_fail_at(r, r->sec_end, "section '%s': checksum %08x, expected "
                        "%08x (corrupt snapshot)", tag, (unsigned)le(c, 4), crc);
    r->off = r->buf_off;        /* values are now read from buf */
    return 0;
}

void snap_get_bytes(snap_r *r, void *p, size_t n)
{
    r->last_off = r->off;
    if (n == 0)
        return;                 /* p may be NULL */
    if (!r->failed && r->off + n > r->sec_end)
        snap_r_fail_at(r, r->off, "section '%s' ends %llu bytes early (expected "
                 "more state)", r->tag,
                 (unsigned long long)(r->off + n - r->sec_end));
    if (r->failed) {
        memset(p, 0, n);
        return;
    }
    if (r->stream) {
        if (file_read(r, p, n, r->tag) < 0) {
            memset(p, 0, n);
            return;
        }
        for (size_t done = 0; done < n;) {
            size_t k = n - done > (1u << 30) ? (1u << 30) : n - done;
            r->crc = (uint32_t)crc32(r->crc, (const Bytef *)p + done, (uInt)k);
            done += k;
        }
        return;
    }
    memcpy(p, r->buf + (r->off - r->buf_off), n);
    r->off += n;
}

static uint64_t get_le(snap_r *r, int n)
{
    uint8_t b[8];
    snap_get_bytes(r, b, (size_t)n);
    return le(b, n);
}

uint8_t snap_get_u8(snap_r *r) { return (uint8_t)get_le(r, 1); }
uint16_t snap_get_u16(snap_r *r) { return (uint16_t)get_le(r, 2); }
uint32_t snap_get_u32(snap_r *r) { return (uint32_t)get_le(r, 4); }
uint64_t snap_get_u64(snap_r *r) { return get_le(r, 8); }
int32_t snap_get_i32(snap_r *r) { return (int32_t)(uint32_t)get_le(r, 4); }

uint32_t snap_get_u32_max(snap_r *r, uint32_t max, const char *what)
{
    uint32_t v = snap_get_u32(r);
    if (v > max) {
        snap_r_fail(r, "%s is %u, expected at most %u", what, v, max);
        return 0;
    }
    return v;
}

void snap_get_str(snap_r *r, char *buf, size_t cap)
{
    uint32_t n = snap_get_u32(r);
    if (n >= cap) {
        snap_r_fail(r, "a name of %u bytes, expected at most %zu", n, cap - 1);
        n = 0;
    }
    snap_get_bytes(r, buf, n);
    buf[n] = 0;
}

int snap_r_end(snap_r *r)
{
    if (r->failed)
        return -1;
    if (r->off != r->sec_end)
        return snap_r_fail_at(r, r->off, "section '%s' has %llu bytes this "
                        "panlab-phone does not read", r->tag,
                        (unsigned long long)(r->sec_end - r->off));
    if (r->stream) {
        uint8_t c[4];
        if (file_read(r, c, 4, r->tag) < 0)
            return -1;
        if (r->crc != le(c, 4))
            return snap_r_fail_at(r, r->sec_end, "section '%s': checksum %08x, "
                            "expected %08x (corrupt snapshot)", r->tag,
                            (unsigned)le(c, 4), r->crc);
    } else {
        r->off = r->sec_end + 4;
    }
    free(r->buf);
    r->buf = NULL;
    return 0;
}

int snap_r_eof(snap_r *r)
{
    if (r->failed)
        return -1;
    if (r->off != r->file_bytes)
        return snap_r_fail_at(r, r->off, "%llu bytes after the last section, "
                        "expected the end of the file",
                        (unsigned long long)(r->file_bytes - r->off));
    return 0;
}

void snap_r_close(snap_r *r)
{
    if (!r)
        return;
    fclose(r->f);
    free(r->buf);
    free(r);
}
