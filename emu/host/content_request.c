/* Request parsing for the in-emulator content server; see
 * content_request.h. */
#include <stdio.h>
#include <string.h>
#include "content_request.h"
#include "panlab/error.h"

/* A decimal number of at most max, nothing else; 0 or -1. */
static int parse_u32(const char *s, size_t len, uint32_t max, uint32_t *out)
{
    uint64_t v = 0;
    if (len == 0 || len > 10)
        return -1;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (uint64_t)(s[i] - '0');
    }
    if (v > max)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

/* The query of /fetch: bytes (required), latency_ms, rate; each once. */
static int parse_query(const char *q, content_req *r, struct pl_error *err)
{
    static const struct { const char *key; uint32_t max; size_t off; } keys[] = {
        { "bytes", CONTENT_MAX_BYTES, offsetof(content_req, bytes) },
        { "latency_ms", CONTENT_MAX_LATENCY_MS, offsetof(content_req, latency_ms) },
        { "rate", UINT32_MAX, offsetof(content_req, bytes_per_s) },
    };
    unsigned seen = 0;
    while (*q) {
        size_t len = strcspn(q, "&"), klen = strcspn(q, "=&");
        size_t i = 0;
        while (i < 3 && !(strlen(keys[i].key) == klen &&
                          strncmp(q, keys[i].key, klen) == 0))
            i++;
        if (i == 3 || klen == len) {
            pl_error_set(err, "bad request: unknown or valueless "
                     "parameter '%.*s'", (int)len, q);
            return -1;
        }
        if (seen & (1u << i)) {
            pl_error_set(err, "bad request: %s given twice", keys[i].key);
            return -1;
        }
        seen |= 1u << i;
        uint32_t *field = (uint32_t *)((char *)r + keys[i].off);
        if (parse_u32(q + klen + 1, len - klen - 1, keys[i].max, field) < 0) {
            pl_error_set(err, "bad request: %s must be a number up to %u",
                     keys[i].key, keys[i].max);
            return -1;
        }
        q += len + (q[len] == '&');
    }
    if (!(seen & 1u)) {
        pl_error_set(err, "bad request: /fetch needs bytes=N");
        return -1;
    }
    return 0;
}

int content_req_parse(const char *head, content_req *r, struct pl_error *err)
{
    memset(r, 0, sizeof(*r));
    if (strncmp(head, "GET ", 4) != 0) {
        pl_error_set(err, "bad request: only GET is served");
        return -1;
    }
    const char *target = head + 4;
    size_t len = strcspn(target, " \r\n");
    if (len == 0 || target[0] != '/' || len >= sizeof(r->path)) {
        pl_error_set(err, "bad request: the target must be /PATH of "
                 "under %zu bytes", sizeof(r->path));
        return -1;
    }
    if (strncmp(target + len, " HTTP/1.", 8) != 0) {
        pl_error_set(err, "bad request: no HTTP/1.x version after the "
                 "target");
        return -1;
    }
    memcpy(r->path, target, len);
    r->path[len] = 0;
    if (strncmp(r->path, "/fetch?", 7) == 0) {
        r->generated = 1;
        return parse_query(r->path + 7, r, err);
    }
    if (strstr(r->path, "..") || strchr(r->path, '?')) {
        pl_error_set(err, "bad request: file paths may not hold '..' "
                 "or a query");
        return -1;
    }
    return 0;
}
