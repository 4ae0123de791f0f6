/* test_hostile_numerics.c - numerical edge cases: the order-statistic
 * sampler at n = 2 .. 1e15, thinning at rates near zero, 1e7 pending
 * events, times near 1e9 s. */
#include "hostile.h"
#include "inference/traffic.h"

#include <gsl/gsl_rng.h>



/* ======================================================================== */
/* numerical edge cases                                                      */
/* ======================================================================== */
/* The order-statistic sampler at n = 2, 1e7 and 1e15 (normal and lognormal
 * jitter): finite, at the exact median of the maximum, and monotone in n
 * in distribution.  The median of max of n is F^-1(2^(-1/n)), i.e. the
 * upper-tail quantile at q = 1 - 2^(-1/n) = -expm1(-log(2)/n).  Of K
 * draws, the count below the true median is Binomial(K, 1/2): within
 * 5 sd = 5 sqrt(K)/2 of K/2 except with probability 6e-7. */
START_TEST(sample_max_extreme_n)
{
	const char *specs[] = {"normal(0,1)", "lognormal(0,0.5)", "exp(1)"};
	const double ns[] = {2, 1e7, 1e15};
	enum { K = 20000 };
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, 12345);
	for (size_t s = 0; s < 3; s++) {
		aiwi_dist *d;
		char e[256];
		ck_assert(aiwi_dist_parse(specs[s], AIW_PT_REAL, "", &d, e, sizeof e) == AIW_OK);
		double med[3];
		static double x[3][K];
		for (size_t j = 0; j < 3; j++) {
			med[j] = aiwi_dist_quantile_upper(d, -expm1(-log(2.0) / ns[j]));
			ck_assert(isfinite(med[j]));
			size_t below = 0;
			for (size_t i = 0; i < K; i++) {
				x[j][i] = aiwi_dist_sample_max(d, r, ns[j]);
				ck_assert_msg(isfinite(x[j][i]), "%s n=%g: %g", specs[s], ns[j], x[j][i]);
				below += x[j][i] <= med[j];
			}
			ck_assert_msg(fabs((double)below - K / 2.0) <= 5 * sqrt((double)K) / 2,
			              "%s n=%g: %zu of %d below the median %g", specs[s], ns[j], below,
			              K, med[j]);
		}
		/* monotone: the medians increase, and P(max of n' <= median of n)
		 * = 2^(-n'/n): 2^(-5e6) and 2^(-1e8) are zero, so no draw of the
		 * larger n falls below the smaller n's median */
		ck_assert(med[0] < med[1] && med[1] < med[2]);
		for (size_t i = 0; i < K; i++) {
			ck_assert(x[1][i] > med[0]);
			ck_assert(x[2][i] > med[1]);
		}
		aiwi_dist_free(d);
	}
	gsl_rng_free(r);
}
END_TEST

/* Rates near zero in thinning: a fleet at 1e-9/s and 1e-300/s for a day,
 * for every arrival process: the run ends and (P(N >= 1) = 8.6e-5 at
 * 1e-9/s) nothing arrives with this seed. */
START_TEST(rates_near_zero)
{
	const char *kinds[] = {"poisson", "diurnal", "bursty"};
	const char *rates[] = {"1e-9/s", "1e-300/s"};
	for (size_t k = 0; k < 3; k++)
		for (size_t j = 0; j < 2; j++)
			for (int mod = 0; mod < 2; mod++) {
				aiw_sim *sim = new_sim();
				AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "inference.a.traffic", kinds[k]));
				AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "inference.a.rate", rates[j]));
				AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "inference.a.peak_to_trough", "1e6"));
				AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "inference.a.modulate",
				                                mod ? "true" : "false"));
				AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
				ck_assert(aiwi_test_metric(sim, "inference.a.requests_arrived") == 0);
				aiw_sim_free(sim);
			}
	/* the processes themselves: the next arrival lies far ahead, or never */
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	for (size_t k = 0; k < 3; k++) {
		aiwi_traffic_conf conf;
		aiwi_traffic_conf_default(&conf);
		conf.kind = (aiwi_traffic_kind)k;
		conf.rate = 1e-300;
		conf.peak_to_trough = 1e6;
		conf.modulate = true;
		aiwi_traffic *tr;
		char e[256];
		ck_assert_int_eq(aiwi_traffic_new(&tr, &conf, e, sizeof e), AIW_OK);
		double t = aiwi_traffic_next(tr, r, 0, NULL, NULL);
		ck_assert_msg(!isnan(t) && t > 1e200, "kind %zu: next arrival at %g", k, t);
		aiwi_traffic_free(tr);
	}
	gsl_rng_free(r);
}
END_TEST

/* 1e7 pending events through aiw_sim_schedule: random times with ties,
 * popped in (time, schedule order).  Memory ~ 1e7 x (48 B slot + 16 B of
 * bucket heads + 16 B bottom entry) = 800 MB at most (slots are touched
 * only up to the peak, not the capacity; 790 MB peak RSS measured). */
typedef struct order_log {
	double last_t;
	uintptr_t last_i;
	size_t n, bad;
} order_log;
static order_log OL;

static void ordered(aiw_sim *sim, double t, void *payload)
{
	(void)sim;
	uintptr_t i = (uintptr_t)payload;
	if (t < OL.last_t || (t == OL.last_t && i < OL.last_i))
		OL.bad++;
	OL.last_t = t;
	OL.last_i = i;
	OL.n++;
}

START_TEST(ten_million_pending)
{
	const char *san = getenv("AIW_SANITIZED");
	size_t N = under_valgrind() ? 100000 : san && *san == '1' ? 1000000 : 10000000;
	aiw_sim *sim = new_sim();
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.duration", "1e9"));
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.sample_interval", "1e8"));
	uint64_t x = 88172645463325252ull; /* xorshift64: times in [0, 1e9) with ties */
	for (size_t i = 0; i < N; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		double t = (double)(x % 1000000) * 1000.0;
		aiw_status st = aiw_sim_schedule(sim, t, ordered, (void *)(uintptr_t)i, NULL);
		ck_assert_msg(st == AIW_OK, "event %zu: %s", i, aiw_sim_errmsg(sim));
	}
	size_t p = 0;
	aiw_sim_pending(sim, &p);
	ck_assert_uint_eq(p, N);
	OL = (order_log){-1, 0, 0, 0};
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert_uint_eq(OL.n, N);
	ck_assert_uint_eq(OL.bad, 0);
	aiw_sim_free(sim);
}
END_TEST

/* Times near 1e9 s and near the 3.2e9 s maximum duration: 1000
 * neighbouring doubles (one ulp apart: 1.2e-7 s at 1e9, 4.8e-7 s at 3.2e9),
 * each scheduled twice, all in a shuffled order: they run in time order,
 * every time twice, the two in the order they were scheduled. */
typedef struct tev {
	double t;
	uint32_t id;
} tev;
static tev TL[4096];
static size_t TLN;

static void tlog(aiw_sim *sim, double t, void *payload)
{
	(void)sim;
	if (TLN < 4096)
		TL[TLN++] = (tev){t, (uint32_t)(uintptr_t)payload};
}

START_TEST(times_near_1e9)
{
	const double bases[] = {1e9, 3.2e9 - 2000 * 4.76837158203125e-07};
	enum { M = 1000 };
	for (size_t b = 0; b < 2; b++) {
		aiw_sim *sim = new_sim();
		AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.duration", "3.2e9"));
		AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.sample_interval", "1e8"));
		double t[M];
		t[0] = bases[b];
		for (int i = 1; i < M; i++)
			t[i] = nextafter(t[i - 1], INFINITY);
		ck_assert(t[M - 1] > t[0] && t[M - 1] <= 3.2e9);
		/* ids 0 .. 2M-1: id k is time k % M; id k < M is scheduled first */
		uint32_t order[2 * M];
		for (uint32_t k = 0; k < 2 * M; k++)
			order[k] = k;
		uint64_t x = 7 + b; /* xorshift64 shuffle, then the first copies first */
		for (int i = M - 1; i > 0; i--) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			int j = (int)(x % (uint64_t)(i + 1));
			uint32_t s = order[i];
			order[i] = order[j];
			order[j] = s;
		}
		for (int i = 0; i < M; i++)
			order[M + i] = order[i] + M;
		for (int k = 0; k < 2 * M; k++)
			AIW_OK_OR_FAIL(sim, aiw_sim_schedule(sim, t[order[k] % M], tlog,
			                                     (void *)(uintptr_t)order[k], NULL));
		TLN = 0;
		AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
		ck_assert_uint_eq(TLN, 2 * M);
		for (size_t k = 0; k < TLN; k++) {
			/* the k-th event is time k / 2; the first of a pair is the
			 * one scheduled first */
			ck_assert_msg(TL[k].t == t[k / 2], "event %zu at %.17g, want %.17g", k, TL[k].t,
			              t[k / 2]);
			ck_assert_uint_eq(TL[k].id, (uint32_t)(k / 2 + (k % 2) * M));
		}
		aiw_sim_free(sim);
	}
}
END_TEST


static Suite *make_suite(void)
{
	Suite *s = suite_create("hostile_numerics");
	TCase *tc = tcase_create("numerics");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, sample_max_extreme_n);
	tcase_add_test(tc, rates_near_zero);
	tcase_add_test(tc, ten_million_pending);
	tcase_add_test(tc, times_near_1e9);
	suite_add_tcase(s, tc);
	return s;
}

AIW_TEST_MAIN(make_suite)
