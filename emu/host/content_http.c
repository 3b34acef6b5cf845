/* The content server over TCP; see content_http.h. */
#include <errno.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "content_http.h"
#include "panlab/read_file.h"

void content_http_flush(content_http *h)
{
    while (h->resp && h->resp_off < h->resp_ready) {
        size_t room = h->out.room(h->out.opaque);
        if (!room)
            return;
        size_t k = h->resp_ready - h->resp_off < room ? h->resp_ready - h->resp_off : room;
        h->out.put(h->out.opaque, h->resp + h->resp_off, k);
        h->resp_off += k;
    }
    if (h->resp && h->resp_off < h->resp_len)
        return;                 /* the rest is not released yet */
    free(h->resp);
    h->resp = NULL;
}

/* Releases the head with the first piece, then a piece each piece_ns, as
 * svc-content sends them; unpaced, the rest at once. */
static void pace_fire(void *opaque)
{
    content_http *h = opaque;
    if (!h->resp)
        return;
    if (h->resp_first) {
        h->resp_ready = h->resp_first;
        h->resp_first = 0;
    } else {
        h->resp_ready += CONTENT_PIECE_BYTES;
    }
    if (!h->piece_ns || h->resp_ready > h->resp_len)
        h->resp_ready = h->resp_len;
    content_http_flush(h);
    if (h->resp_ready < h->resp_len)
        vt_schedule(h->t, &h->pace, vt_now_ns(h->t) + h->piece_ns);
}

/* A file's media type by its name's extension: a browser shows a page
 * only when it is told it is one. */
static const char *media_type(const char *path)
{
    static const struct { const char *ext, *type; } types[] = {
        { ".html", "text/html" }, { ".txt", "text/plain" },
        { ".png", "image/png" }, { ".jpg", "image/jpeg" },
        { ".json", "application/json" },
    };
    size_t len = strlen(path);
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        size_t n = strlen(types[i].ext);
        if (len >= n && strcmp(path + len - n, types[i].ext) == 0)
            return types[i].type;
    }
    return "application/octet-stream";
}

/* Queues a response: a head, then body_len bytes of body (the file's, or
 * generated when body is NULL), released after latency_ns and paced to
 * bytes_per_s (0: all at once). */
static void respond(content_http *h, const char *status, const char *type,
                    const uint8_t *body, size_t body_len, uint64_t latency_ns,
                    uint32_t bytes_per_s)
{
    char head[256];
    int n = content_response_head(head, sizeof(head), status, type, body_len);
    vt_cancel(h->t, &h->pace);
    free(h->resp);
    h->resp = pl_xcalloc(1, (size_t)n + body_len);
    memcpy(h->resp, head, (size_t)n);
    if (body)
        memcpy(h->resp + n, body, body_len);
    else                        /* svc-content's content: 0x5a opens each piece */
        for (size_t i = 0; i < body_len; i += CONTENT_PIECE_BYTES)
            h->resp[(size_t)n + i] = 0x5a;
    h->resp_len = (size_t)n + body_len;
    h->resp_off = h->resp_ready = 0;
    h->resp_first = (size_t)n + (body_len < CONTENT_PIECE_BYTES ? body_len : CONTENT_PIECE_BYTES);
    h->piece_ns = bytes_per_s ? (uint64_t)CONTENT_PIECE_BYTES * VT_NS_PER_S / bytes_per_s : 0;
    vt_schedule(h->t, &h->pace, vt_now_ns(h->t) + latency_ns);
}

static void respond_text(content_http *h, const char *status, const char *text)
{
    respond(h, status, "text/plain", (const uint8_t *)text, strlen(text), 0, 0);
}

/*
 * Opens rel under the content folder for reading, and only a regular file
 * whose one name lies inside it: openat2's RESOLVE_BENEATH refuses '..',
 * absolute paths and symlinks that lead out, RESOLVE_NO_XDEV a mount point
 * inside that leads elsewhere, and a file with more than one link may have
 * its other name outside. O_NONBLOCK so that a FIFO cannot stall the phone.
 * shown names the file in errors. Returns the FILE, or NULL with err set.
 */
static FILE *open_beneath(int dir_fd, const char *rel, const char *shown, struct pl_error *err)
{
    struct open_how how = {
        .flags = O_RDONLY | O_NOCTTY | O_NONBLOCK | O_CLOEXEC,
        .resolve = RESOLVE_BENEATH | RESOLVE_NO_XDEV | RESOLVE_NO_MAGICLINKS,
    };
    struct stat st;
    int fd = (int)syscall(SYS_openat2, dir_fd, rel, &how, sizeof(how));
    if (fd < 0) {
        pl_error_file(err, shown, "%s", errno == EXDEV ? "leads out of --content-dir, not served"
                                                       : strerror(errno));
        return NULL;
    }
    const char *why = fstat(fd, &st) != 0 ? strerror(errno)
                      : !S_ISREG(st.st_mode) ? "not a regular file, not served"
                      : st.st_nlink != 1 ? "has other hard links, which may lie outside "
                                           "--content-dir: not served"
                      : NULL;
    FILE *f = why ? NULL : fdopen(fd, "rb");
    if (!f) {
        pl_error_file(err, shown, "%s", why ? why : strerror(errno));
        close(fd);
    }
    return f;
}

/* A request (content_request.h): generated content, or a file under
 * content_dir; a bad one gets 400 with the reason as its body. */
static void serve(content_http *h)
{
    struct content_req r;
    struct pl_error err;
    char file[1024];
    if (content_req_parse(h->req, &r, &err) < 0) {
        fprintf(stderr, "panlab-phone: content server: %s\n", err.msg);
        char body[sizeof(err.msg) + 1];
        snprintf(body, sizeof(body), "%s\n", err.msg);
        respond_text(h, "400 Bad Request", body);
        return;
    }
    if (r.generated) {
        respond(h, "200 OK", "application/octet-stream", NULL, r.bytes,
                r.latency_ms * 1000000ull, r.bytes_per_s);
        return;
    }
    if (h->dir_fd < 0) {
        respond_text(h, "404 Not Found", "no --content-dir\n");
        return;
    }
    snprintf(file, sizeof(file), "%s%s", h->content_dir, r.path);
    char *body;
    size_t len;
    FILE *f = open_beneath(h->dir_fd, r.path + 1, file, &err);
    if (!f || pl_read_stream(f, file, PL_CAP_TEXT_BYTES, "served content", &body, &len,
                             &err) < 0) {
        fprintf(stderr, "panlab-phone: content server: %s\n", err.msg);
        respond_text(h, "404 Not Found", "no such file\n");
        return;
    }
    respond(h, "200 OK", media_type(r.path), (const uint8_t *)body, len, 0, 0);
    free(body);
}

void content_http_receive(content_http *h, const void *buf, size_t len)
{
    size_t k = len < CONTENT_REQ_MAX - 1 - h->req_len ? len : CONTENT_REQ_MAX - 1 - h->req_len;
    memcpy(h->req + h->req_len, buf, k);
    h->req_len += k;
    h->req[h->req_len] = 0;
    if (strstr(h->req, "\r\n\r\n") || h->req_len == CONTENT_REQ_MAX - 1) {
        serve(h);
        h->req_len = 0;
    }
}

int content_http_init(content_http *h, vt_engine *t, const char *content_dir,
                      content_conn out, struct pl_error *err)
{
    *h = (content_http){ .t = t, .content_dir = content_dir, .dir_fd = -1, .out = out };
    vt_event_init(&h->pace, pace_fire, h);
    if (content_dir &&
        (h->dir_fd = open(content_dir, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0) {
        pl_error_file(err, content_dir, "--content-dir: %s, expected a directory",
                      strerror(errno));
        return -1;
    }
    return 0;
}

void content_http_free(content_http *h)
{
    if (h->dir_fd >= 0)
        close(h->dir_fd);
    vt_cancel(h->t, &h->pace);
    free(h->resp);
    h->resp = NULL;
}

void content_http_save(const content_http *h, snap_w *w)
{
    snap_put_u32(w, (uint32_t)h->req_len);
    snap_put_bytes(w, h->req, h->req_len);
    size_t left = h->resp ? h->resp_len - h->resp_off : 0;
    snap_put_u32(w, (uint32_t)left);
    snap_put_bytes(w, h->resp ? h->resp + h->resp_off : NULL, left);
    snap_put_u32(w, (uint32_t)(h->resp ? h->resp_ready - h->resp_off : 0));
    snap_put_u32(w, (uint32_t)h->resp_first);
    snap_put_u64(w, h->piece_ns);
    vt_event_save(&h->pace, w);
}

int content_http_load(content_http *h, snap_r *r)
{
    h->req_len = snap_get_u32_max(r, CONTENT_REQ_MAX - 1, "server request bytes");
    snap_get_bytes(r, h->req, h->req_len);
    h->req[h->req_len] = 0;
    uint32_t left = snap_get_u32_max(r, 1u << 30, "server response bytes");
    free(h->resp);
    h->resp = NULL;
    if (left) {
        if (!(h->resp = malloc(left)))
            return snap_r_fail(r, "out of memory for a response");
        snap_get_bytes(r, h->resp, left);
    }
    h->resp_len = left;
    h->resp_off = 0;
    h->resp_ready = snap_get_u32_max(r, left, "released response bytes");
    h->resp_first = snap_get_u32_max(r, left, "first response release");
    h->piece_ns = snap_get_u64(r);
    return vt_event_load(h->t, &h->pace, r);
}
