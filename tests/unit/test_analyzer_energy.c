/* SPDX-License-Identifier: MIT */
/* The energy stage: frequency residency and energy from synthetic CPU events. */
#include <CUnit/CUnit.h>

#include "panlab/energy.h"
#include "test_analyzer.h"

#define MS(x) ((uint64_t)(x) * 1000000ull)
#define MJ_PJ(x) ((uint64_t)((x) * 1e9 + 0.5))

static const struct pl_residency *at_khz(const struct pl_core_energy *c, uint32_t khz)
{
	for (uint32_t i = 0; i < c->nfreqs; i++)
		if (c->by_freq[i].khz == khz)
			return &c->by_freq[i];
	return NULL;
}

/*
 * cpu0 busy at 350 MHz, cpu1 idle; both to 1.2 GHz at 10 ms and cpu0 idles;
 * cpu1 goes offline at 20 ms; cpu0 busy again from 30 to 40 ms. Table 5
 * with WFI at 10% of a busy core:
 *   [0,10)  220 + 22 + (820 - 220)   = 842 mW
 *   [10,20) 160 + 160 + (2260 - 1600) = 980 mW
 *   [20,30) 160 + 660                 = 820 mW
 *   [30,40) 1600 + 660                = 2260 mW
 */
static void test_energy_residency(void)
{
	struct tb t;
	struct model m;
	struct pl_energy e;

	tb_init(&t, 2);
	tb_kernel(&t, 0, 0, PL_EV_CPU_FREQUENCY, 0, 350000, 0);
	tb_kernel(&t, 0, 0, PL_EV_CPU_FREQUENCY, 0, 350000, 1);
	tb_kernel(&t, 1, 0, PL_EV_CPU_IDLE_ENTER, 0, 0, 1);
	tb_kernel(&t, 0, MS(10), PL_EV_CPU_FREQUENCY, 0, 1200000, 0);
	tb_kernel(&t, 0, MS(10), PL_EV_CPU_FREQUENCY, 0, 1200000, 1);
	tb_kernel(&t, 0, MS(10), PL_EV_CPU_IDLE_ENTER, 0, 0, 0);
	tb_kernel(&t, 1, MS(20), PL_EV_CPU_OFFLINE, 0, 0, 1);
	tb_kernel(&t, 0, MS(30), PL_EV_CPU_IDLE_EXIT, 0, 0, 0);
	tb_kernel(&t, 0, MS(30), PL_EV_CPU_FREQUENCY, 0, 1200000, 0); /* no change */
	tb_kernel(&t, 0, MS(40), PL_EV_CPU_IDLE_ENTER, 0, 0, 0);
	model_build(&t, &m);
	pl_energy_build(&m.trace, &m.s.tx, &pl_power_galaxy_nexus, &e);

	CU_ASSERT_EQUAL(e.end_ns - e.start_ns, MS(40));
	CU_ASSERT_EQUAL(e.energy_pj, MJ_PJ(8.42 + 9.8 + 8.2 + 22.6));
	CU_ASSERT_EQUAL(e.cpu_energy_pj, MJ_PJ(2.42 + 3.2 + 1.6 + 16.0));
	CU_ASSERT_EQUAL(pl_energy_between(&e, MS(5), MS(35)), MJ_PJ(4.21 + 9.8 + 8.2 + 11.3));
	CU_ASSERT_EQUAL(pl_energy_between(&e, 0, MS(100)), e.energy_pj);

	CU_ASSERT_EQUAL(e.cores[0].nfreqs, 2);
	CU_ASSERT_EQUAL(at_khz(&e.cores[0], 350000)->busy_ns, MS(10));
	CU_ASSERT_EQUAL(at_khz(&e.cores[0], 350000)->idle_ns, 0);
	CU_ASSERT_EQUAL(at_khz(&e.cores[0], 1200000)->idle_ns, MS(20));
	CU_ASSERT_EQUAL(at_khz(&e.cores[0], 1200000)->busy_ns, MS(10));
	CU_ASSERT_EQUAL(e.cores[0].offline_ns, 0);
	CU_ASSERT_EQUAL(at_khz(&e.cores[1], 350000)->idle_ns, MS(10));
	CU_ASSERT_EQUAL(at_khz(&e.cores[1], 1200000)->idle_ns, MS(10));
	CU_ASSERT_EQUAL(e.cores[1].offline_ns, MS(20));
	CU_ASSERT_EQUAL(e.cores[0].assumed_freq_ns + e.cores[1].assumed_freq_ns, 0);
	CU_ASSERT_EQUAL(e.cores[0].freq_changes, 1);
	CU_ASSERT_EQUAL(e.cores[1].freq_changes, 1);
	pl_energy_free(&e);
	model_free(&m);
}

/*
 * No CPU_IDLE events: idleness comes from switches to tid 0. No
 * CPU_FREQUENCY: the default 1.2 GHz, counted as assumed. cpu1 logs
 * nothing: offline. cpu0 starts offline (its first hotplug event is
 * CPU_ONLINE at 2 ms).
 */
static void test_energy_fallbacks(void)
{
	struct tb t;
	struct model m;
	struct pl_energy e;

	tb_init(&t, 2);
	tb_kernel(&t, 0, 0, PL_EV_CONTEXT_SWITCH, 0, 100, PL_STATE_RUNNABLE);
	tb_kernel(&t, 0, MS(2), PL_EV_CPU_ONLINE, 0, 0, 0);
	tb_kernel(&t, 0, MS(5), PL_EV_CONTEXT_SWITCH, 100, 0, PL_STATE_SLEEPING);
	tb_kernel(&t, 0, MS(10), PL_EV_CONTEXT_SWITCH, 0, 100, PL_STATE_RUNNABLE);
	model_build(&t, &m);
	pl_energy_build(&m.trace, &m.s.tx, &pl_power_galaxy_nexus, &e);

	CU_ASSERT_EQUAL(e.cores[0].offline_ns, MS(2));
	CU_ASSERT_EQUAL(at_khz(&e.cores[0], 1200000)->busy_ns, MS(3));
	CU_ASSERT_EQUAL(at_khz(&e.cores[0], 1200000)->idle_ns, MS(5));	/* tid 0 from 5 ms */
	CU_ASSERT_EQUAL(e.cores[0].assumed_freq_ns, MS(8));
	CU_ASSERT_EQUAL(e.cores[1].offline_ns, MS(10));
	CU_ASSERT_EQUAL(e.cores[1].nfreqs, 0);
	CU_ASSERT_EQUAL(e.cores[0].freq_changes, 0);
	/* 660 rest throughout, +1600 busy for 3 ms, +160 idle for 5 ms. */
	CU_ASSERT_EQUAL(e.energy_pj, MJ_PJ(6.6 + 4.8 + 0.8));
	pl_energy_free(&e);
	model_free(&m);
}

static void test_power_model(void)
{
	const struct pl_power_model *p = &pl_power_galaxy_nexus;

	CU_ASSERT_EQUAL(pl_power_core_mw(p, 1200000, 1), 1600);
	CU_ASSERT_EQUAL(pl_power_core_mw(p, 1200000, 0), 160);
	CU_ASSERT_EQUAL(pl_power_rest_mw(p, 350000), 600);
	CU_ASSERT_EQUAL(pl_power_core_mw(p, 810000, 1), 805);	/* halfway 700 .. 920 */
	CU_ASSERT_EQUAL(pl_power_core_mw(p, 100000, 1), 220);	/* clamped */
	CU_ASSERT_EQUAL(pl_power_core_mw(p, 2000000, 1), 1600);
}

void add_energy_tests(void)
{
	CU_pSuite s = CU_add_suite("energy", NULL, NULL);

	CU_add_test(s, "residency and energy from CPU events", test_energy_residency);
	CU_add_test(s, "fallbacks: switches, default frequency, silent cpu", test_energy_fallbacks);
	CU_add_test(s, "Table 5 power model", test_power_model);
}
