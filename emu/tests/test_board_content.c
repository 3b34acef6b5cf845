/* CUnit tests of the in-emulator content server's request parsing
 * (host/content_request.c): good requests, and each bad one refused with
 * its reason. */
#include <CUnit/Basic.h>
#include <string.h>
#include "../host/content_request.h"
#include "panlab/error.h"

static void test_file(void)
{
    content_req r;
    struct pl_error err = { "" };
    CU_ASSERT_EQUAL(content_req_parse("GET /hello.txt HTTP/1.0\r\n\r\n", &r, &err), 0);
    CU_ASSERT_EQUAL(r.generated, 0);
    CU_ASSERT_STRING_EQUAL(r.path, "/hello.txt");
}

static void test_fetch(void)
{
    content_req r;
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

static void expect_bad(const char *req, const char *reason)
{
    content_req r;
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
    CU_pSuite s = CU_add_suite("content server requests", NULL, NULL);
    CU_add_test(s, "file", test_file);
    CU_add_test(s, "fetch", test_fetch);
    CU_add_test(s, "bad requests", test_bad);
    CU_basic_set_mode(CU_BRM_VERBOSE);
    CU_basic_run_tests();
    unsigned failed = CU_get_number_of_failures();
    CU_cleanup_registry();
    return failed ? 1 : 0;
}
