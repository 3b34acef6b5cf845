/* CUnit tests of the content protocol's request parsing, which the
 * emulator's content server and the guest's svc-content share
 * (include/panlab/content_request.h): good requests, the apps' request
 * parsed back, and each bad one refused with its reason. */
#include <CUnit/Basic.h>
#include <string.h>
#include "panlab/content_request.h"
#include "panlab/error.h"

static void test_file(void)
{
    struct content_req r;
    struct pl_error err = { "" };
    CU_ASSERT_EQUAL(content_req_parse("GET /hello.txt HTTP/1.0\r\n\r\n", &r, &err), 0);
    CU_ASSERT_EQUAL(r.generated, 0);
    CU_ASSERT_STRING_EQUAL(r.path, "/hello.txt");
}

static void test_fetch(void)
{
    struct content_req r;
    struct pl_error err = { "" };
    CU_ASSERT_EQUAL(content_req_parse("GET /fetch?bytes=32768&latency_ms=200&rate=524288"
                                      " HTTP/1.1\r\nHost: x\r\n\r\n", &r, &err), 0);
    CU_ASSERT_EQUAL(r.generated, 1);
    CU_ASSERT_EQUAL(r.bytes, 32768);
    CU_ASSERT_EQUAL(r.latency_ms, 200);
    CU_ASSERT_EQUAL(r.bytes_per_s, 524288);
    /* Only bytes is required; the others default to 0 (no wait, unpaced). */
    CU_ASSERT_EQUAL(content_req_parse("GET /fetch?bytes=0 HTTP/1.0\r\n\r\n", &r, &err), 0);
    CU_ASSERT_EQUAL(r.bytes, 0);
    CU_ASSERT_EQUAL(r.latency_ms, 0);
    CU_ASSERT_EQUAL(r.bytes_per_s, 0);
}

/* What content_fetch sends is what both peers parse, to the same numbers. */
static void test_round_trip(void)
{
    struct content_req r;
    struct pl_error err = { "" };
    char req[128];
    int n = content_req_format(req, sizeof(req), CONTENT_MAX_BYTES, CONTENT_MAX_LATENCY_MS,
                               UINT32_MAX);
    CU_ASSERT(n > 0 && (size_t)n < sizeof(req));
    CU_ASSERT_EQUAL(content_req_parse(req, &r, &err), 0);
    CU_ASSERT_EQUAL(r.generated, 1);
    CU_ASSERT_EQUAL(r.bytes, CONTENT_MAX_BYTES);
    CU_ASSERT_EQUAL(r.latency_ms, CONTENT_MAX_LATENCY_MS);
    CU_ASSERT_EQUAL(r.bytes_per_s, UINT32_MAX);
    n = content_response_head(req, sizeof(req), "200 OK", "application/octet-stream", 32768);
    CU_ASSERT(n > 0 && (size_t)n < sizeof(req));
    static const char start[] = "HTTP/1.0 200 OK\r\nContent-Length: 32768\r\n";
    CU_ASSERT_EQUAL(strncmp(req, start, sizeof(start) - 1), 0);
    CU_ASSERT_STRING_EQUAL(req + n - 4, "\r\n\r\n");
}

static void expect_bad(const char *req, const char *reason)
{
    struct content_req r;
    struct pl_error err = { "" };
    CU_ASSERT_EQUAL(content_req_parse(req, &r, &err), -1);
    if (!strstr(err.msg, reason))
        fprintf(stderr, "\n%s: got '%s', want '%s'\n", req, err.msg, reason);
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "bad request: "));
    CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, reason));
}

static void test_bad(void)
{
    expect_bad("POST / HTTP/1.0\r\n\r\n", "only GET");
    expect_bad("GET  HTTP/1.0\r\n\r\n", "target must be /PATH");
    expect_bad("GET hello HTTP/1.0\r\n\r\n", "target must be /PATH");
    expect_bad("GET /hello\r\n\r\n", "no HTTP/1.x");
    expect_bad("GET /a/../etc HTTP/1.0\r\n\r\n", "'..'");
    expect_bad("GET /fetch?latency_ms=5 HTTP/1.0\r\n\r\n", "needs bytes=N");
    expect_bad("GET /fetch?bytes=1&size=2 HTTP/1.0\r\n\r\n", "'size=2'");
    expect_bad("GET /fetch?bytes HTTP/1.0\r\n\r\n", "'bytes'");
    expect_bad("GET /fetch?bytes=1&bytes=2 HTTP/1.0\r\n\r\n", "bytes given twice");
    expect_bad("GET /fetch?bytes=12x HTTP/1.0\r\n\r\n", "bytes must be a number");
    expect_bad("GET /fetch?bytes=-1 HTTP/1.0\r\n\r\n", "bytes must be a number");
    expect_bad("GET /fetch?bytes=99999999999 HTTP/1.0\r\n\r\n", "bytes must be a number");
    expect_bad("GET /fetch?bytes=67108865 HTTP/1.0\r\n\r\n", "bytes must be a number");
    expect_bad("GET /fetch?bytes=1&latency_ms=60001 HTTP/1.0\r\n\r\n",
               "latency_ms must be a number");
    expect_bad("GET /fetch?bytes=1&rate= HTTP/1.0\r\n\r\n", "rate must be a number");
}

int main(void)
{
    if (CU_initialize_registry() != CUE_SUCCESS)
        return 1;
    CU_pSuite s = CU_add_suite("content protocol requests", NULL, NULL);
    CU_add_test(s, "file", test_file);
    CU_add_test(s, "fetch", test_fetch);
    CU_add_test(s, "the apps' request and the response head", test_round_trip);
    CU_add_test(s, "bad requests", test_bad);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures();
    CU_cleanup_registry();
    return failed ? 1 : 0;
}
