/* test_replica_failures.c - serving replica failures (replica_failures =
 * on, lib/inference/fleet_failure.c) against hand-worked cases and
 * statistics: one replica, one request, its failure inside the prefill at
 * a time read back from the failure stream (the TTFT and end-to-end
 * latency after the requeue, the KV tokens lost, the energy with the
 * replica's power at 0 W while it is in repair, the power curve's
 * interval inside the repair at 0 W, the repair hours); the same with a
 * hot spare (served at once, the spare's idle power before and after) and
 * with failure_requests = drop; the failure count of a long run within a
 * Poisson bound from the rate; busy fleets (request conservation by
 * reason, the checking build's invariants after every event; an autoscaler
 * replacing the failed replica at once); seeded runs reproduced bit for
 * bit; on without a failure in the run the same as off; the refusals. */
#include "core/internal.h"
#include "hw/hw.h"
#include "inference/serving.h"
#include "../testutil.h"
#include "fleet_test.h"

#include <gsl/gsl_randist.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The first n failure-stream draws of component `prefix` under seed:
 * the times to failure at rate lam of the replicas in the order they are
 * provisioned (fleet_failure.c: gsl_ran_exponential on "PREFIX/failure"). */
static void failure_draws(uint64_t seed, const char *prefix, double lam, double *t, int n)
{
	char label[256];
	snprintf(label, sizeof label, "%s/failure", prefix);
	gsl_rng *r = aiwi_rng_alloc();
	ck_assert(r != NULL);
	gsl_rng_set(r, (unsigned long)aiwi_stream_seed(seed, label));
	for (int i = 0; i < n; i++)
		t[i] = gsl_ran_exponential(r, 1 / lam);
	gsl_rng_free(r);
}

/* ------------------------------------------------------------------------ */
/* one replica, one request, by hand                                         */
/* ------------------------------------------------------------------------ */
/* 70B at 16 bits on 2 H100 (test_serving.c's roofline case): a prompt of
 * 1000 tokens prefilled in tp = 2 P 1000 / F (compute-bound), 99 decode
 * iterations of max(2P/F, (W + kv s) / B) over s = 1001 .. 1099. */
static const double P = 70e9, G = 2, KV = 2.0 * 80 * 8 * 128 * 2;
#define D_RUN 6.0 /* the run (s) */
#define R_REP 2.0 /* repair_time (s) */
#define T_FAIL 0.07 /* the failure, inside the prefill (s) */

typedef struct hand {
	uint64_t seed;
	double lam, tf; /* the rate and the failure time it gives */
	double tp, td;
	double wp, wd, wi; /* W per GPU: prefill, decode, idle (node overhead in) */
} hand;

static hand hand_case(void)
{
	hand h;
	const aiwi_gpu_spec *g = aiwi_hw_gpu(NULL, "H100-SXM");
	ck_assert(g != NULL);
	double W = P * 2, F = G * g->bf16_flops * 0.5, B = G * g->mem_bw * 0.7;
	h.tp = 2 * P * 1000 / F;
	ck_assert(h.tp > W / B && T_FAIL < h.tp);
	h.td = 0;
	for (int j = 0; j < 99; j++)
		h.td += fmax(2 * P / F, (W + KV * (1001 + j)) / B);
	double ovh = 2800.0 / 8;
	h.wp = g->prefill_w + ovh;
	h.wd = g->decode_w + ovh;
	h.wi = g->idle_w + ovh;
	/* a seed whose first draw, at the rate that puts it at T_FAIL, is
	 * followed by one past the run: the replica that takes over (back from
	 * repair, or a spare) does not fail before the end */
	for (h.seed = 1;; h.seed++) {
		double u[2];
		failure_draws(h.seed, "inference.one", 1.0, u, 2); /* standard exponentials */
		h.lam = u[0] / T_FAIL;
		if (u[1] / h.lam > 2 * D_RUN)
			break;
		ck_assert(h.seed < 100000);
	}
	double t[1];
	failure_draws(h.seed, "inference.one", h.lam, t, 1);
	h.tf = t[0];
	ck_assert_rel(h.tf, T_FAIL, 1e-12);
	return h;
}

static aiw_sim *hand_run(const hand *h, const char *extra, char *path, size_t len)
{
	FILE *fp = aiwi_test_tmpfile(path, len);
	fprintf(fp, "0,1000,100\n");
	fclose(fp);
	char text[1024];
	snprintf(text, sizeof text,
	         "[sim]\nduration = %gs\nsample_interval = 1s\nseries_keep = all\n"
	         "[inference one]\ngpus_per_replica = 2\nreplicas = 1\nbatching = none\n"
	         "traffic = trace\ntrace_file = %s\ntiming = roofline\n"
	         "replica_failures = on\nreplica_failure_rate = %.17g\nrepair_time = const(%gs)\n%s",
	         D_RUN, path, h->lam, R_REP, extra);
	aiw_sim *sim = load(h->seed, text);
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	unlink(path);
	check_conservation(sim, "one");
	ck_assert(M(sim, "one", "replica_failures") == 1);
	return sim;
}

START_TEST(hand_requeue)
{
	hand h = hand_case();
	char path[256];
	aiw_sim *sim = hand_run(&h, "", path, sizeof path);
	/* failed at tf inside its prefill; back, ready, at tf + R; the request
	 * (requeued to the router's queue) prefilled again from there */
	double ttft = h.tf + R_REP + h.tp, e2e = ttft + h.td;
	ck_assert_rel(M(sim, "one", "e2e_mean_s"), e2e, 1e-12);
	ck_assert_rel(M(sim, "one", "ttft_max_s"), ttft, 1e-12);
	ck_assert(M(sim, "one", "requests_completed") == 1);
	ck_assert(M(sim, "one", "requests_requeued_failure") == 1);
	ck_assert(M(sim, "one", "requests_dropped") == 0);
	/* the prefill's part done, tf / tp of its 1000 tokens, is lost; its
	 * first token never came (100 tokens out in all) */
	ck_assert_rel(M(sim, "one", "tokens_lost_failure"), 1000 * h.tf / h.tp, 1e-9);
	ck_assert_rel(M(sim, "one", "prefill_tokens"), 1000 + 1000 * h.tf / h.tp, 1e-12);
	ck_assert(M(sim, "one", "tokens_out") == 100);
	ck_assert_rel(M(sim, "one", "replica_repair_hours"), R_REP / 3600, 1e-12);
	ck_assert(M(sim, "one", "replicas_failed") == 0);
	/* power: prefill for tf, nothing in repair, then the prefill, the
	 * decode and idle to the end; not paid in repair */
	double e = G * (h.wp * (h.tf + h.tp) + h.wd * h.td + h.wi * (D_RUN - h.tf - R_REP - h.tp - h.td));
	ck_assert_rel(M(sim, "one", "energy_kwh") * 3.6e6, e, 1e-12);
	ck_assert_rel(M(sim, "one", "gpu_hours"), G * (D_RUN - R_REP) / 3600, 1e-12);
	double v[8];
	size_t n = 0;
	AIW_OK_OR_FAIL(sim, aiw_sim_series_copy(sim, "inference.one.power_w", NULL, v, 8, &n));
	ck_assert_uint_eq(n, 6);
	ck_assert(v[1] == 0); /* [1 s, 2 s): in repair, 0 W */
	ck_assert_rel(v[0], G * h.wp * h.tf, 1e-12);
	AIW_OK_OR_FAIL(sim, aiw_sim_series_copy(sim, "inference.one.replicas_failed", NULL, v, 8, &n));
	ck_assert(v[1] == 1 && v[4] == 0);
	ck_assert_rel(v[0], 1 - h.tf, 1e-12);
	ck_assert_rel(aiwi_test_curve_integral(sim, "inference.one.power_w"), e, 1e-12);
	aiw_sim_free(sim);
}
END_TEST

START_TEST(hand_hot_spare)
{
	hand h = hand_case();
	char path[256];
	aiw_sim *sim = hand_run(&h, "hot_spares = 1\n", path, sizeof path);
	/* the spare, ready, takes the request at tf */
	double ttft = h.tf + h.tp, e2e = ttft + h.td;
	ck_assert_rel(M(sim, "one", "e2e_mean_s"), e2e, 1e-12);
	ck_assert_rel(M(sim, "one", "ttft_max_s"), ttft, 1e-12);
	ck_assert(M(sim, "one", "hot_spares_used") == 1);
	ck_assert(M(sim, "one", "hot_spares_ready") == 1); /* back from repair at tf + R */
	ck_assert_rel(M(sim, "one", "hot_spare_hours"), (D_RUN - R_REP) / 3600, 1e-12);
	/* the serving replicas as above without the repair's gap, and the
	 * spare idle before tf and after tf + R */
	double e = G * (h.wp * (h.tf + h.tp) + h.wd * h.td + h.wi * (D_RUN - h.tf - h.tp - h.td) +
	                h.wi * (D_RUN - R_REP));
	ck_assert_rel(M(sim, "one", "energy_kwh") * 3.6e6, e, 1e-12);
	ck_assert_rel(M(sim, "one", "gpu_hours"), G * (2 * D_RUN - R_REP) / 3600, 1e-12);
	/* exposure: the serving replicas only (no spare fails) */
	ck_assert_rel(M(sim, "one", "replica_failures_expected"), h.lam * D_RUN, 1e-12);
	aiw_sim_free(sim);
}
END_TEST

START_TEST(hand_drop)
{
	hand h = hand_case();
	char path[256];
	aiw_sim *sim = hand_run(&h, "failure_requests = drop\n", path, sizeof path);
	ck_assert(M(sim, "one", "requests_dropped_failure") == 1);
	ck_assert(M(sim, "one", "requests_dropped") == 1);
	ck_assert(M(sim, "one", "requests_completed") == 0);
	ck_assert(M(sim, "one", "requests_requeued_failure") == 0);
	double e = G * (h.wp * h.tf + h.wi * (D_RUN - h.tf - R_REP));
	ck_assert_rel(M(sim, "one", "energy_kwh") * 3.6e6, e, 1e-12);
	aiw_sim_free(sim);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* the failure count                                                         */
/* ------------------------------------------------------------------------ */
/* 10 replicas at 1 failure per replica-hour for 100 h, repaired at once
 * (repair_time = const(0): a fixed fleet's replica returns at the
 * failure's instant), so that the exposure is 10 x 100 replica-hours
 * exactly and the count is Poisson of mean mu = 1000: within 4 sqrt(mu)
 * (a two-sided chance of 6e-5 outside) for each of three seeds.  Then the
 * rate as gpu_mtbf: a replica of 4 GPUs fails at 4 / gpu_mtbf. */
START_TEST(poisson_count)
{
	for (uint64_t seed = 1; seed <= 3; seed++) {
		aiw_sim *sim = load(seed, "[sim]\nduration = 100h\nsample_interval = 1h\n"
		                          "[inference p]\nreplicas = 10\nservice = const(10ms)\n"
		                          "batching = none\nrate = 0.2/s\nreplica_failures = on\n"
		                          "replica_failure_rate = 1/h\nrepair_time = const(0)\n");
		AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
		double mu = 1000, n = M(sim, "p", "replica_failures");
		ck_assert_rel(M(sim, "p", "replica_failures_expected"), mu, 1e-12);
		ck_assert_msg(fabs(n - mu) <= 4 * sqrt(mu), "seed %llu: %g failures, mean %g",
		              (unsigned long long)seed, n, mu);
		check_conservation(sim, "p");
		aiw_sim_free(sim);
	}
	aiw_sim *sim = load(1, "[sim]\nduration = 100h\nsample_interval = 1h\n"
	                       "[inference p]\nreplicas = 10\ngpus_per_replica = 4\n"
	                       "service = const(10ms)\nbatching = none\nrate = 0.2/s\n"
	                       "replica_failures = on\ngpu_mtbf = 4h\nrepair_time = const(0)\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	double mu = 1000, n = M(sim, "p", "replica_failures");
	ck_assert_rel(M(sim, "p", "replica_failures_expected"), mu, 1e-12);
	ck_assert_msg(fabs(n - mu) <= 4 * sqrt(mu), "gpu_mtbf: %g failures, mean %g", n, mu);
	aiw_sim_free(sim);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* busy fleets                                                               */
/* ------------------------------------------------------------------------ */
#define BUSY                                                                                       \
	"[sim]\nduration = 20min\nsample_interval = 1min\n"                                        \
	"[inference x]\nreplicas = 6\nrate = 40/s\nprompt_tokens = lognormal(median=600,sigma=1.0)\n"          \
	"output_tokens = lognormal(median=150,sigma=1.0)\nmax_batch = 32\nreplica_failures = on\n"             \
	"replica_failure_rate = 6/h\nrepair_time = lognormal(median=2min,sigma=0.5)\n"

static void busy_check(aiw_sim *sim, bool drop)
{
	check_conservation(sim, "x");
	double dropped = 0;
	static const char *const why[] = {"timeout", "queue_full", "kv_too_large", "failure"};
	for (int i = 0; i < 4; i++) {
		char k[64];
		snprintf(k, sizeof k, "requests_dropped_%s", why[i]);
		dropped += M(sim, "x", k);
	}
	ck_assert(dropped == M(sim, "x", "requests_dropped"));
	ck_assert(M(sim, "x", "replica_failures") >= 3);
	if (drop) {
		ck_assert(M(sim, "x", "requests_dropped_failure") > 0);
		ck_assert(M(sim, "x", "requests_requeued_failure") == 0);
	} else {
		ck_assert(M(sim, "x", "requests_requeued_failure") > 0);
		ck_assert(M(sim, "x", "requests_dropped_failure") == 0);
	}
	ck_assert(M(sim, "x", "tokens_lost_failure") > 0);
	ck_assert(M(sim, "x", "replica_repair_hours") > 0);
	ck_assert_rel(aiwi_test_curve_integral(sim, "inference.x.power_w"),
	              M(sim, "x", "energy_kwh") * 3.6e6, 1e-9);
	ck_assert_rel(aiwi_test_curve_integral(sim, "inference.x.replicas_failed"),
	              M(sim, "x", "replica_repair_hours") * 3600, 1e-9);
}

START_TEST(busy_fleets)
{
	static const char *const extra[] = {
		"",
		"failure_requests = drop\n",
		"hot_spares = 2\n",
		"router = central\n",
		"chunked_prefill = on\n",
		"autoscaler = hpa\nmin_replicas = 2\nmax_replicas = 12\nmetric = concurrency\n"
		"target_value = 8\n",
		"autoscaler = kpa\nmin_replicas = 2\nmax_replicas = 12\ntarget_value = 8\n"
		"hot_spares = 1\n",
	};
	for (size_t i = 0; i < sizeof extra / sizeof *extra; i++) {
		char text[2048];
		snprintf(text, sizeof text,
		         "[sim]\nseries_keep = all\n%s%s", BUSY + strlen("[sim]\n"), extra[i]);
		aiw_sim *sim = load(3 + i, text);
		AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
		busy_check(sim, strstr(extra[i], "drop") != NULL);
		if (strstr(extra[i], "hot_spares"))
			ck_assert(M(sim, "x", "hot_spares_used") > 0);
		aiw_sim_free(sim);
	}
}
END_TEST

/* Replicas also lost and added by hand while failures come (fleet_test.h's
 * churn): the slots' failure events follow their replicas. */
START_TEST(churn_with_failures)
{
	aiw_sim *sim = load(9, BUSY);
	churn_replicas(sim, "x", true);
	ck_assert(M(sim, "x", "replica_failures") > 0);
	aiw_sim_free(sim);
}
END_TEST

/* An autoscaler replaces a failed replica at once (the ReplicaSet's
 * replacement), with a cold start: right after the first failure, one
 * replica loads and the others are ready. */
START_TEST(autoscaler_replaces)
{
	const char *text = "[sim]\nduration = 1h\n"
	                   "[inference a]\nreplicas = 3\nrate = 5/s\ncold_start = const(30s)\n"
	                   "autoscaler = hpa\nmin_replicas = 3\nmax_replicas = 3\n"
	                   "replica_failures = on\nreplica_failure_rate = 1/h\n";
	double t[3];
	failure_draws(5, "inference.a", 1.0 / 3600, t, 3);
	double first = fmin(t[0], fmin(t[1], t[2]));
	ck_assert(first < 3000);
	aiw_sim *sim = load(5, text);
	AIW_OK_OR_FAIL(sim, aiw_sim_run_until(sim, first + 1e-6));
	aiwi_comp *c = comp(sim, "a");
	uint32_t ready = 0, loading = 0;
	for (size_t s = 0; s < aiwi_serving_slots(c); s++) {
		ready += aiwi_serving_replica_state(c, s) == AIW_REPLICA_READY;
		loading += aiwi_serving_replica_state(c, s) == AIW_REPLICA_LOADING;
	}
	ck_assert_uint_eq(ready, 2);
	ck_assert_uint_eq(loading, 1);
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert(M(sim, "a", "replica_failures") >= 1);
	check_conservation(sim, "a");
	aiw_sim_free(sim);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* reproducibility, off                                                      */
/* ------------------------------------------------------------------------ */
START_TEST(seeded_runs_reproduced)
{
	aiw_sim *a = load(11, BUSY), *b = load(11, BUSY);
	AIW_OK_OR_FAIL(a, aiw_sim_run(a));
	AIW_OK_OR_FAIL(b, aiw_sim_run(b));
	size_t n = 0;
	ck_assert_int_eq(aiw_sim_metric_count(a, &n), AIW_OK);
	for (size_t i = 0; i < n; i++) {
		const char *name;
		ck_assert_int_eq(aiw_sim_metric_name(a, i, &name), AIW_OK);
		if (!strcmp(name, "sim.events") || !strncmp(name, "sim.wall", 8))
			continue;
		double x = aiwi_test_metric(a, name), y = aiwi_test_metric(b, name);
		ck_assert_msg((isnan(x) && isnan(y)) || x == y, "%s: %.17g then %.17g", name, x, y);
	}
	ck_assert(M(a, "x", "replica_failures") > 0);
	aiw_sim_free(a);
	aiw_sim_free(b);
}
END_TEST

/* On, with no failure in the run (a GPU MTBF of 1e11 h), every figure of
 * the fleet is off's, bit for bit: the failures' stream is their own. */
START_TEST(on_without_failure_is_off)
{
	const char *base = "[sim]\nduration = 10min\n"
	                   "[inference x]\nreplicas = 4\nrate = 30/s\n";
	char text[512];
	snprintf(text, sizeof text, "%sreplica_failures = on\ngpu_mtbf = 1e11h\n", base);
	aiw_sim *off = load(2, base), *on = load(2, text);
	AIW_OK_OR_FAIL(off, aiw_sim_run(off));
	AIW_OK_OR_FAIL(on, aiw_sim_run(on));
	ck_assert(M(on, "x", "replica_failures") == 0);
	size_t n = 0;
	ck_assert_int_eq(aiw_sim_metric_count(off, &n), AIW_OK);
	for (size_t i = 0; i < n; i++) {
		const char *name;
		ck_assert_int_eq(aiw_sim_metric_name(off, i, &name), AIW_OK);
		if (!strcmp(name, "sim.events") || !strncmp(name, "sim.wall", 8) ||
		    strstr(name, "replica_failures_expected"))
			continue;
		double x = aiwi_test_metric(off, name), y = aiwi_test_metric(on, name);
		ck_assert_msg((isnan(x) && isnan(y)) || x == y, "%s: off %.17g, on %.17g", name, x, y);
	}
	ck_assert(isnan(M(off, "x", "replica_failures_expected")));
	aiw_sim_free(off);
	aiw_sim_free(on);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* refusals                                                                  */
/* ------------------------------------------------------------------------ */
START_TEST(refusals)
{
	expect_fail("[sim]\nduration = 1min\n[inference a]\nreplica_failures = on\ngpu_mtbf = 0\n",
	            AIW_ESCENARIO, "gpu_mtbf = 0: 0 is outside the range (0, 1e+15] s");
	expect_fail("[sim]\nduration = 1min\n[inference a]\nreplica_failures = maybe\n", 0,
	            "replica_failures");
	expect_fail("[sim]\nduration = 1min\n[inference a]\nreplica_failures = on\n"
	            "failure_requests = retry\n",
	            0, "failure_requests");
	expect_fail("[sim]\nduration = 1min\n[inference a]\nreplica_failures = on\nhot_spares = -1\n",
	            AIW_ESCENARIO, "hot_spares");
	expect_fail("[sim]\nduration = 1min\n[inference a]\nreplica_failures = on\n"
	            "replica_failure_rate = -1/h\n",
	            0, "replica_failure_rate");
	/* a failure setting with failures off has no effect: the mode table
	 * says so */
	aiw_sim *sim = load(1, "[sim]\nduration = 1min\n[inference a]\nhot_spares = 2\n");
	char msg[512];
	ck_assert(aiwi_param_modes_first(comp(sim, "a"), msg, sizeof msg));
	ck_assert_msg(strstr(msg, "hot_spares") && strstr(msg, "replica_failures"), "%s", msg);
	aiw_sim_free(sim);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("replica_failures");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, hand_requeue);
	tcase_add_test(tc, hand_hot_spare);
	tcase_add_test(tc, hand_drop);
	tcase_add_test(tc, poisson_count);
	tcase_add_test(tc, busy_fleets);
	tcase_add_test(tc, churn_with_failures);
	tcase_add_test(tc, autoscaler_replaces);
	tcase_add_test(tc, seeded_runs_reproduced);
	tcase_add_test(tc, on_without_failure_is_off);
	tcase_add_test(tc, refusals);
	suite_add_tcase(s, tc);
	return s;
}

AIW_TEST_MAIN(make_suite)
