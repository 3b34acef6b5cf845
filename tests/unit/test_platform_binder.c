/* Binder parcels: the encoding both ends of a call rely on (the driver itself is exercised in the guest). */
#include <CUnit/CUnit.h>
#include <errno.h>
#include <string.h>

#include "panlab/binder.h"
#include "test_platform.h"

static void test_parcel_round_trip(void)
{
	struct pl_parcel p;
	pl_parcel_init(&p);
	CU_ASSERT_EQUAL(pl_parcel_put_u32(&p, 7), 0);
	CU_ASSERT_EQUAL(pl_parcel_put_string(&p, "panlab.compute"), 0);
	CU_ASSERT_EQUAL(pl_parcel_put_u64(&p, 1ull << 40), 0);
	CU_ASSERT_EQUAL(pl_parcel_put_handle(&p, 3), 0);
	CU_ASSERT_EQUAL(pl_parcel_put_string(&p, ""), 0);
	/* Word aligned, and the object's offset recorded for the driver. */
	CU_ASSERT_EQUAL(p.size % 4, 0);
	CU_ASSERT_EQUAL(p.noffsets, 1);
	CU_ASSERT_EQUAL(p.offsets[0], 4 + 4 + 16 + 8);

	uint32_t v, h;
	uint64_t w;
	char s[32];
	CU_ASSERT_EQUAL(pl_parcel_get_u32(&p, &v), 0);
	CU_ASSERT_EQUAL(v, 7);
	CU_ASSERT_EQUAL(pl_parcel_get_string(&p, s, sizeof(s)), 0);
	CU_ASSERT_STRING_EQUAL(s, "panlab.compute");
	CU_ASSERT_EQUAL(pl_parcel_get_u64(&p, &w), 0);
	CU_ASSERT_EQUAL(w, 1ull << 40);
	CU_ASSERT_EQUAL(pl_parcel_get_handle(&p, &h), 0);
	CU_ASSERT_EQUAL(h, 3);
	CU_ASSERT_EQUAL(pl_parcel_get_string(&p, s, sizeof(s)), 0);
	CU_ASSERT_STRING_EQUAL(s, "");
	CU_ASSERT_EQUAL(pl_parcel_get_u32(&p, &v), -EPROTO);	/* past the end */
	pl_parcel_free(&p);
}

static void test_parcel_bad_reads(void)
{
	struct pl_parcel p;
	char small[4];
	uint32_t h;
	pl_parcel_init(&p);
	CU_ASSERT_EQUAL(pl_parcel_put_string(&p, "too long"), 0);
	CU_ASSERT_EQUAL(pl_parcel_get_string(&p, small, sizeof(small)), -EPROTO);
	p.pos = 0;
	CU_ASSERT_EQUAL(pl_parcel_get_handle(&p, &h), -EPROTO);	/* not an object */
	pl_parcel_free(&p);

	/* A length that runs past the data is rejected, not read. */
	pl_parcel_init(&p);
	CU_ASSERT_EQUAL(pl_parcel_put_u32(&p, 1000), 0);
	char big[2000];
	CU_ASSERT_EQUAL(pl_parcel_get_string(&p, big, sizeof(big)), -EPROTO);
	pl_parcel_free(&p);
}

void add_binder_suite(void)
{
	CU_pSuite s = CU_add_suite("binder", NULL, NULL);
	CU_add_test(s, "parcel round trip", test_parcel_round_trip);
	CU_add_test(s, "parcel bad reads", test_parcel_bad_reads);
}
