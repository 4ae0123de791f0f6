/*
 * fleet_test.h - helpers shared by the tests of the serving mechanisms
 * (chunked prefill, speculative decoding, prefix caching): a scenario
 * loaded, a fleet's metric, its request conservation, its component, a
 * refusal expected with its message, and replicas failed and added while a
 * busy fleet runs.  Static functions: one test file includes it, after
 * core/internal.h, inference/serving.h and testutil.h.
 */
#ifndef AIW_TESTS_FLEET_TEST_H
#define AIW_TESTS_FLEET_TEST_H

#include <string.h>

static aiw_sim *load(uint64_t seed, const char *text)
{
	aiw_sim *sim;
	ck_assert_int_eq(aiw_sim_create(&sim, seed), AIW_OK);
	AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim, text, "test"));
	return sim;
}

/* The metric inference.COMP.KEY. */
static double M(aiw_sim *sim, const char *comp, const char *key)
{
	char n[256];
	snprintf(n, sizeof n, "inference.%s.%s", comp, key);
	return aiwi_test_metric(sim, n);
}

/* arrived = completed + dropped + in flight, and in flight = waiting +
 * running, exactly. */
static void check_conservation(aiw_sim *sim, const char *comp)
{
	char prefix[128];
	snprintf(prefix, sizeof prefix, "inference.%s", comp);
	aiwi_test_conservation(sim, prefix);
	ck_assert(M(sim, comp, "requests_in_flight") ==
	          M(sim, comp, "requests_waiting") + M(sim, comp, "requests_running"));
}

static aiwi_comp *comp(aiw_sim *sim, const char *name)
{
	aiwi_comp *c = NULL;
	ck_assert_int_eq(aiwi_comp_get(sim, "inference", name, false, &c), AIW_OK);
	return c;
}

/* text refused, at load or at the run, with status code (0: any failure)
 * and a message holding msg. */
static void expect_fail(const char *text, aiw_status code, const char *msg)
{
	aiw_sim *sim;
	ck_assert_int_eq(aiw_sim_create(&sim, 1), AIW_OK);
	aiw_status st = aiw_sim_load_string(sim, text, "bad");
	if (st == AIW_OK)
		st = aiw_sim_run(sim);
	ck_assert_msg(code ? st == code : st != AIW_OK, "%s: got %s (%s)", msg, aiw_status_name(st),
	              aiw_sim_errmsg(sim));
	ck_assert_msg(strstr(aiw_sim_errmsg(sim), msg), "message '%s' lacks '%s'",
	              aiw_sim_errmsg(sim), msg);
	aiw_sim_free(sim);
}

/* Replicas lost at many instants of a busy fleet `name` of sim (inside
 * spans: their requests restart elsewhere, what a span booked ahead is
 * taken back), one added after each: at 60 s x i + 0.0137 s x i, i = 1 ..
 * 12, the first ready replica fails (while another is ready, when
 * keep_one), then the run ends; requests are conserved, some were
 * preempted, and energy is the integral of the power curve.  The
 * invariants are checked after every event in a checking build. */
static void churn_replicas(aiw_sim *sim, const char *name, bool keep_one)
{
	aiwi_comp *c = comp(sim, name);
	for (int i = 1; i <= 12; i++) {
		AIW_OK_OR_FAIL(sim, aiw_sim_run_until(sim, 60.0 * i + 0.0137 * i));
		uint32_t ready = 0;
		for (size_t s = 0; s < aiwi_serving_slots(c); s++)
			ready += aiwi_serving_replica_state(c, s) == AIW_REPLICA_READY;
		if (!keep_one || ready > 1)
			for (size_t s = 0; s < aiwi_serving_slots(c); s++)
				if (aiwi_serving_replica_state(c, s) == AIW_REPLICA_READY) {
					ck_assert_int_eq(aiwi_serving_fail_replica(c, (int)s), AIW_OK);
					break;
				}
		ck_assert(aiwi_serving_add_replica(c, 5, false) >= 0);
	}
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	check_conservation(sim, name);
	ck_assert(M(sim, name, "preemptions") > 0);
	char curve[160];
	snprintf(curve, sizeof curve, "inference.%s.power_w", name);
	ck_assert_rel(aiwi_test_curve_integral(sim, curve), M(sim, name, "energy_kwh") * 3.6e6, 1e-9);
}

#endif
