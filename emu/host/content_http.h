/* The content server's TCP side: HTTP/1.0 requests (panlab/content_request.h)
 * arrive as bytes, and responses (a head, then the file or generated
 * content) are released after the request's latency and paced in
 * CONTENT_PIECE_BYTES pieces, as the guest's svc-content does. Where the
 * bytes go is the caller's (libslirp's socket to the guest).
 *
 * Files are served only from inside the content folder (content_http.c,
 * open_beneath()): no '..', absolute path, symlink, mount or hard link out.
 *
 * Ownership: the struct is the caller's; content_http_free() releases the
 * response and the folder's descriptor it holds. The engine must outlive it. */
#ifndef PANLAB_HOST_CONTENT_HTTP_H
#define PANLAB_HOST_CONTENT_HTTP_H

#include <stddef.h>
#include <stdint.h>
#include "../time.h"
#include "panlab/content_request.h"


/* The connection to the guest: how many bytes it takes now, and taking them. */
typedef struct content_conn {
    size_t (*room)(void *opaque);
    void (*put)(void *opaque, const uint8_t *buf, size_t len_bytes);
    void *opaque;
} content_conn;

typedef struct content_http {
    vt_engine *t;
    const char *content_dir;    /* files served from here (for messages); NULL: none */
    int dir_fd;                 /* content_dir, opened O_PATH; -1: none */
    content_conn out;
    char req[CONTENT_REQ_MAX];
    size_t req_len;
    uint8_t *resp;              /* response bytes not yet taken */
    size_t resp_len, resp_off;
    size_t resp_ready;          /* bytes of resp released so far */
    size_t resp_first;          /* the first release (head + a piece); 0 once done */
    uint64_t piece_ns;          /* between paced pieces; 0 = unpaced */
    vt_event pace;              /* releases the next piece */
} content_http;

/* Opens content_dir (NULL: no files served). Returns 0, or -1 with err set
 * when it is not a directory; content_http_free() is due either way. */
int content_http_init(content_http *h, vt_engine *t, const char *content_dir,
                      content_conn out, struct pl_error *err);
void content_http_free(content_http *h);
/* Bytes of a request from the guest; a complete head is served. */
void content_http_receive(content_http *h, const void *buf, size_t len_bytes);
/* Passes released bytes on as far as the connection takes them. */
void content_http_flush(content_http *h);
/* Snapshots: the request so far, the response left, its pacing. */
void content_http_save(const content_http *h, snap_w *w);
int content_http_load(content_http *h, snap_r *r);

#endif
