/*
 * test_stats.c - log-bucketed histogram and running moments.
 *
 * The histogram's relative-error bound is a property of its construction
 * (every value of a bucket is within rel_err of the bucket's reported
 * point), so it is asserted as it is, against exact order statistics of
 * 1e6 samples, with slack only for floating-point rounding (1e-12).
 */
#include "../testutil.h"
#include "core/stats.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#define NSAMPLES 1000000
#define ALPHA 0.01
#define ROUNDING 1e-12

/* Nearest-rank index (0-based) of quantile q among n sorted values, the
 * convention stats.h documents: k = ceil(q n), q n snapped to an integer
 * within 1e-9 relative.  Written out here independently of stats.c. */
static size_t rank0(double q, size_t n)
{
	double qn = q * (double)n;
	double r = round(qn);
	double k = fabs(qn - r) <= 1e-9 * (qn > 1.0 ? qn : 1.0) ? r : ceil(qn);
	if (k < 1.0)
		k = 1.0;
	if (k > (double)n)
		k = (double)n;
	return (size_t)k - 1;
}

enum { D_EXP, D_LOGNORMAL, D_UNIFORM, D_PARETO, ND };
static const char *const DNAME[ND] = {"exponential(0.1)", "lognormal(0,1.5)",
                                      "uniform(1e-3,1)", "pareto(1e-3,1.5)"};

static double *draw(int d, size_t n, unsigned long seed)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, seed);
	double *x = malloc(n * sizeof *x);
	ck_assert_ptr_nonnull(x);
	for (size_t i = 0; i < n; i++) {
		switch (d) {
		case D_EXP: x[i] = gsl_ran_exponential(r, 0.1); break;
		case D_LOGNORMAL: x[i] = gsl_ran_lognormal(r, 0.0, 1.5); break;
		case D_UNIFORM: x[i] = gsl_ran_flat(r, 1e-3, 1.0); break;
		default: x[i] = gsl_ran_pareto(r, 1.5, 1e-3); break;
		}
	}
	gsl_rng_free(r);
	return x;
}

static aiwi_hist new_hist(void)
{
	aiwi_hist h;
	char err[256] = "";
	ck_assert_int_eq(aiwi_hist_init(&h, AIW_HIST_MIN_S, AIW_HIST_MAX_S, ALPHA, err, sizeof err),
	                 AIW_OK);
	return h;
}

/* ---- quantiles against exact order statistics ---- */
START_TEST(quantiles_within_rel_err)
{
	int d = _i;
	double *x = draw(d, NSAMPLES, 1000 + (unsigned long)d);
	aiwi_hist h = new_hist();
	for (size_t i = 0; i < NSAMPLES; i++)
		ck_assert_int_eq(aiwi_hist_add(&h, x[i]), AIW_OK);
	double exact_mean = gsl_stats_mean(x, 1, NSAMPLES);
	gsl_sort(x, 1, NSAMPLES);
	ck_assert_uint_eq(aiwi_hist_count(&h), NSAMPLES);
	ck_assert(aiwi_hist_min(&h) == x[0]);
	ck_assert(aiwi_hist_max(&h) == x[NSAMPLES - 1]);
	ck_assert_double_eq_tol(aiwi_hist_mean(&h), exact_mean, 1e-12 * exact_mean);

	static const double named[] = {0.5, 0.95, 0.99, 0.999, 0.9999, 0.001, 0.25, 0.75};
	for (size_t j = 0; j < sizeof named / sizeof *named; j++) {
		double q = named[j];
		double exact = x[rank0(q, NSAMPLES)];
		double est = aiwi_hist_quantile(&h, q);
		double rel = fabs(est - exact) / exact;
		ck_assert_msg(rel <= ALPHA + ROUNDING, "%s q=%g: est %.9g exact %.9g rel %.3g",
		              DNAME[d], q, est, exact, rel);
	}
	/* and every 1/1000 quantile, so no rank escapes the bound */
	double worst = 0.0;
	for (int j = 0; j <= 1000; j++) {
		double q = j / 1000.0;
		double exact = x[rank0(q, NSAMPLES)];
		double rel = fabs(aiwi_hist_quantile(&h, q) - exact) / exact;
		if (rel > worst)
			worst = rel;
	}
	ck_assert_msg(worst <= ALPHA + ROUNDING, "%s worst rel err %.6g", DNAME[d], worst);
	/* the buckets are as coarse as claimed, not finer (the bound is tight):
	 * with a million samples some rank lands near a bucket edge */
	ck_assert_msg(worst > 0.5 * ALPHA, "%s worst rel err %.6g", DNAME[d], worst);
	ck_assert(aiwi_hist_quantile(&h, 0.0) == x[0]);
	ck_assert(aiwi_hist_quantile(&h, 1.0) == x[NSAMPLES - 1]);
	aiwi_hist_free(&h);
	free(x);
}
END_TEST

/* ---- count_le: exact at the bucket bounds, within rel_err elsewhere ---- */
START_TEST(count_le_consistent)
{
	double *x = draw(D_LOGNORMAL, NSAMPLES, 77);
	aiwi_hist h = new_hist();
	for (size_t i = 0; i < NSAMPLES; i++)
		aiwi_hist_add(&h, x[i]);
	gsl_sort(x, 1, NSAMPLES);
	/* number of sorted samples < v (lower bound) and <= v */
	for (uint32_t b = 0; b <= h.nbuckets; b += 37) {
		double v = aiwi_hist_bound(&h, b);
		if (v <= x[0] || v >= x[NSAMPLES - 1])
			continue;
		size_t lo = 0, hi = NSAMPLES;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (x[mid] < v)
				lo = mid + 1;
			else
				hi = mid;
		}
		ck_assert_msg(aiwi_hist_count_le(&h, v) == lo, "bound %u (%g): %llu vs %zu", b, v,
		              (unsigned long long)aiwi_hist_count_le(&h, v), lo);
	}
	static const double qs[] = {0.1, 0.5, 0.9, 0.99, 0.999};
	for (size_t j = 0; j < 5; j++) {
		size_t k = rank0(qs[j], NSAMPLES) + 1;
		double v = aiwi_hist_quantile(&h, qs[j]);
		ck_assert_uint_ge(aiwi_hist_count_le(&h, v), k);
		/* any x: the count lies between the exact counts at x/(1+a), x/(1-a) */
		double xv = x[k - 1] * 1.003;
		size_t c = aiwi_hist_count_le(&h, xv), clo = 0, chi = 0;
		for (size_t i = 0; i < NSAMPLES && x[i] <= xv / (1 - ALPHA); i++) {
			chi++;
			if (x[i] <= xv / (1 + ALPHA))
				clo++;
		}
		ck_assert_uint_ge(c, clo);
		ck_assert_uint_le(c, chi);
	}
	ck_assert_uint_eq(aiwi_hist_count_le(&h, INFINITY), NSAMPLES);
	ck_assert_uint_eq(aiwi_hist_count_le(&h, -1.0), 0);
	ck_assert_uint_eq(aiwi_hist_count_le(&h, NAN), 0);
	ck_assert_double_eq(aiwi_hist_fraction_le(&h, INFINITY), 1.0);
	aiwi_hist_free(&h);
	free(x);
}
END_TEST

/* ---- merge equals adding everything ---- */
START_TEST(merge_equals_adding_all)
{
	double *x = draw(D_PARETO, NSAMPLES, 5);
	aiwi_hist all = new_hist(), a = new_hist(), b = new_hist();
	for (size_t i = 0; i < NSAMPLES; i++) {
		aiwi_hist_add(&all, x[i]);
		aiwi_hist_add(i % 3 ? &a : &b, x[i]);
	}
	aiwi_hist_add(&all, 0.0);
	aiwi_hist_add(&b, 0.0);
	aiwi_hist_add(&all, 1e-9);
	aiwi_hist_add(&a, 1e-9);
	aiwi_hist_add(&all, 1e9);
	aiwi_hist_add(&b, 1e9);
	aiwi_hist_add(&all, NAN);
	aiwi_hist_add(&a, NAN);
	ck_assert_int_eq(aiwi_hist_merge(&a, &b), AIW_OK);
	ck_assert_uint_eq(aiwi_hist_count(&a), aiwi_hist_count(&all));
	ck_assert_uint_eq(a.n_zero, all.n_zero);
	ck_assert_uint_eq(a.n_under, all.n_under);
	ck_assert_uint_eq(a.n_over, all.n_over);
	ck_assert_uint_eq(a.n_nan, 1);
	ck_assert(memcmp(a.counts, all.counts, all.nbuckets * sizeof *all.counts) == 0);
	ck_assert(aiwi_hist_min(&a) == aiwi_hist_min(&all));
	ck_assert(aiwi_hist_max(&a) == aiwi_hist_max(&all));
	ck_assert_double_eq_tol(aiwi_hist_mean(&a), aiwi_hist_mean(&all), 1e-13 * aiwi_hist_mean(&all));
	for (int j = 0; j <= 200; j++)
		ck_assert(aiwi_hist_quantile(&a, j / 200.0) == aiwi_hist_quantile(&all, j / 200.0));
	/* iteration sees the same buckets */
	aiwi_hist_iter ia = 0, ib = 0;
	double la, ua, lb, ub;
	uint64_t ca, cb, total = 0;
	for (;;) {
		bool ma = aiwi_hist_next_bucket(&a, &ia, &la, &ua, &ca);
		bool mb = aiwi_hist_next_bucket(&all, &ib, &lb, &ub, &cb);
		ck_assert(ma == mb);
		if (!ma)
			break;
		ck_assert(la == lb && ua == ub && ca == cb);
		ck_assert(la <= ua);
		total += ca;
	}
	ck_assert_uint_eq(total, aiwi_hist_count(&all));
	/* a histogram of another shape does not merge */
	aiwi_hist other;
	ck_assert_int_eq(aiwi_hist_init(&other, 1e-6, 1e7, 0.02, NULL, 0), AIW_OK);
	ck_assert_int_eq(aiwi_hist_merge(&a, &other), AIW_EINVAL);
	ck_assert_uint_eq(aiwi_hist_count(&a), aiwi_hist_count(&all));
	/* a copy is equal too */
	aiwi_hist copy;
	ck_assert_int_eq(aiwi_hist_init_like(&copy, &all, true), AIW_OK);
	ck_assert(aiwi_hist_quantile(&copy, 0.99) == aiwi_hist_quantile(&all, 0.99));
	ck_assert_uint_eq(aiwi_hist_count(&copy), aiwi_hist_count(&all));
	aiwi_hist_free(&copy);
	aiwi_hist_free(&other);
	aiwi_hist_free(&all);
	aiwi_hist_free(&a);
	aiwi_hist_free(&b);
	free(x);
}
END_TEST

/* ---- memory does not depend on the number of samples ---- */
START_TEST(memory_fixed)
{
	aiwi_hist h = new_hist();
	/* 64 buckets per binade (k = 6: 2^-6 / (2 + 2^-6) = 0.78% <= 1%), from
	 * the one of 1e-6 = 2^-20 * 1.048576 (bucket 3 of its binade) to the
	 * one of the largest double below 1e7 = 2^23 * 1.1920929 (bucket 12):
	 * 64 * 43 + 12 - 3 + 1 = 2762 counters of 8 bytes, nothing else */
	ck_assert_uint_eq(h.nbuckets, 2762);
	size_t bytes = aiwi_hist_bytes(&h);
	ck_assert_uint_eq(bytes, 2762 * 8);
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	for (int i = 0; i < 3 * NSAMPLES; i++)
		aiwi_hist_add(&h, gsl_ran_lognormal(r, 0.0, 4.0));
	ck_assert_uint_eq(aiwi_hist_bytes(&h), bytes);
	gsl_rng_free(r);
	aiwi_hist_free(&h);
	ck_assert_uint_eq(aiwi_hist_bytes(&h), 0);
}
END_TEST

/* ---- edge cases ---- */
START_TEST(edges)
{
	aiwi_hist h = new_hist();
	ck_assert(isnan(aiwi_hist_quantile(&h, 0.5)));
	ck_assert(isnan(aiwi_hist_mean(&h)));
	ck_assert(isnan(aiwi_hist_min(&h)));
	ck_assert(isnan(aiwi_hist_max(&h)));
	ck_assert_uint_eq(aiwi_hist_count_le(&h, 1.0), 0);
	ck_assert(isnan(aiwi_hist_fraction_le(&h, 1.0)));
	aiwi_hist_iter it = 0;
	ck_assert(!aiwi_hist_next_bucket(&h, &it, NULL, NULL, NULL));

	ck_assert_int_eq(aiwi_hist_add(&h, -1.0), AIW_ERANGE);
	ck_assert_int_eq(aiwi_hist_add(&h, -0.0), AIW_OK); /* -0 is zero */
	ck_assert_int_eq(aiwi_hist_add(&h, INFINITY), AIW_ERANGE);
	ck_assert_int_eq(aiwi_hist_add(&h, NAN), AIW_EINVAL);
	ck_assert_uint_eq(h.n_rejected, 2);
	ck_assert_uint_eq(h.n_nan, 1);
	ck_assert_uint_eq(aiwi_hist_count(&h), 1);
	ck_assert(aiwi_hist_quantile(&h, 0.5) == 0.0);
	aiwi_hist_reset(&h);
	ck_assert_uint_eq(aiwi_hist_count(&h), 0);
	ck_assert_uint_eq(h.n_nan, 0);

	/* zero, below min, above max: counted apart, reported exactly when equal */
	aiwi_hist_add(&h, 0.0);
	aiwi_hist_add_n(&h, 3e-8, 2);
	aiwi_hist_add(&h, 0.5);
	aiwi_hist_add_n(&h, 2e8, 3);
	ck_assert_uint_eq(h.n_zero, 1);
	ck_assert_uint_eq(h.n_under, 2);
	ck_assert_uint_eq(h.n_over, 3);
	ck_assert_uint_eq(aiwi_hist_count(&h), 7);
	ck_assert(aiwi_hist_quantile(&h, 1.0 / 7) == 0.0);
	ck_assert(aiwi_hist_quantile(&h, 2.0 / 7) == 3e-8);
	ck_assert(aiwi_hist_quantile(&h, 3.0 / 7) == 3e-8);
	ck_assert(fabs(aiwi_hist_quantile(&h, 4.0 / 7) - 0.5) <= ALPHA * 0.5);
	ck_assert(aiwi_hist_quantile(&h, 5.0 / 7) == 2e8);
	ck_assert(aiwi_hist_quantile(&h, 0.999) == 2e8);
	ck_assert(aiwi_hist_min(&h) == 0.0);
	ck_assert(aiwi_hist_max(&h) == 2e8);
	ck_assert_double_eq_tol(aiwi_hist_mean(&h), (6e-8 + 0.5 + 6e8) / 7, 1e-6);
	ck_assert_uint_eq(aiwi_hist_count_le(&h, 0.0), 1);
	ck_assert_uint_eq(aiwi_hist_count_le(&h, 1e-7), 3);
	ck_assert_uint_eq(aiwi_hist_count_le(&h, 1.0), 4);
	ck_assert_uint_eq(aiwi_hist_count_le(&h, 1e9), 7);
	/* underflow values that differ: the optimal point of their range */
	aiwi_hist_add(&h, 1e-8);
	ck_assert_double_eq_tol(aiwi_hist_quantile(&h, 2.0 / 8), 2 * 1e-8 * 3e-8 / 4e-8, 1e-20);
	/* q outside [0, 1] */
	ck_assert(isnan(aiwi_hist_quantile(&h, -0.1)));
	ck_assert(isnan(aiwi_hist_quantile(&h, 1.5)));
	ck_assert(isnan(aiwi_hist_quantile(&h, NAN)));
	/* a single sample is its own quantile within rel_err; the reset
	 * clears every bucket (the touched ones are found from min and max,
	 * here beyond both ends of the bucketed range) */
	aiwi_hist_add(&h, 2e-6);
	aiwi_hist_add(&h, 9e6);
	aiwi_hist_reset(&h);
	for (uint32_t i = 0; i < h.nbuckets; i++)
		ck_assert_uint_eq(h.counts[i], 0);
	aiwi_hist_add(&h, 0.123);
	ck_assert(aiwi_hist_quantile(&h, 0.5) == 0.123); /* clamped to the exact extremes */
	aiwi_hist_free(&h);
	aiwi_hist_free(&h); /* twice is harmless */
}
END_TEST

START_TEST(init_validation)
{
	aiwi_hist h;
	char err[256];
	err[0] = 0;
	ck_assert_int_eq(aiwi_hist_init(&h, 0.0, 1.0, 0.01, err, sizeof err), AIW_ERANGE);
	ck_assert_msg(strstr(err, "min_value = 0") != NULL, "%s", err);
	ck_assert_int_eq(aiwi_hist_init(&h, 1.0, 1.0, 0.01, err, sizeof err), AIW_ERANGE);
	ck_assert_msg(strstr(err, "max_value = 1") != NULL, "%s", err);
	ck_assert_int_eq(aiwi_hist_init(&h, 1.0, NAN, 0.01, err, sizeof err), AIW_ERANGE);
	ck_assert_int_eq(aiwi_hist_init(&h, 1.0, 10.0, 0.7, err, sizeof err), AIW_ERANGE);
	ck_assert_msg(strstr(err, "rel_err = 0.7") && strstr(err, "0.5"), "%s", err);
	ck_assert_int_eq(aiwi_hist_init(&h, 1.0, 10.0, 0.0, err, sizeof err), AIW_ERANGE);
	ck_assert_int_eq(aiwi_hist_init(&h, 1e-300, 1e300, 1e-9, err, sizeof err), AIW_ELIMIT);
	ck_assert_msg(strstr(err, "buckets") != NULL, "%s", err);
	/* subnormals are not log-spaced: refused, the smallest normal is not */
	ck_assert_int_eq(aiwi_hist_init(&h, 1e-310, 1e-290, 0.02, err, sizeof err), AIW_ERANGE);
	ck_assert_msg(strstr(err, "min_value = 1e-310") && strstr(err, "normal"), "%s", err);
	ck_assert_int_eq(aiwi_hist_init(&h, 1.0, 0x1.fffffffffffffp1023, 0.01, err, sizeof err),
	                 AIW_ERANGE);
	ck_assert_msg(strstr(err, "max_value") != NULL, "%s", err);
	aiwi_hist_free(&h); /* safe after a failed init */
	ck_assert_int_eq(aiwi_hist_init(&h, 1.0, 10.0, 0.5, err, sizeof err), AIW_OK);
	aiwi_hist_free(&h);
}
END_TEST

START_TEST(add_n_equals_repeated_add)
{
	aiwi_hist a = new_hist(), b = new_hist();
	for (int i = 0; i < 1000; i++)
		aiwi_hist_add(&a, 0.25);
	aiwi_hist_add_n(&b, 0.25, 1000);
	ck_assert_uint_eq(aiwi_hist_count(&a), aiwi_hist_count(&b));
	ck_assert(memcmp(a.counts, b.counts, a.nbuckets * sizeof *a.counts) == 0);
	ck_assert_double_eq_tol(aiwi_hist_mean(&a), 0.25, 1e-15);
	ck_assert_double_eq_tol(aiwi_hist_mean(&b), 0.25, 1e-15);
	aiwi_hist_free(&a);
	aiwi_hist_free(&b);
}
END_TEST

/* ---- the bucket of a value is the one its stored bounds say ---- */
/* The index is estimated from the IEEE bits of the value and corrected
 * against the stored bounds; here every bound b_i, its neighbours one ulp
 * either side and points between bounds must land in the bucket that a
 * binary search over the bounds finds, for several shapes: the latency
 * default, a coarse and a fine rel_err, a range that starts among the
 * subnormals (whose exponent field is 0) and one above 2^1000. */
static uint32_t bucket_by_search(const aiwi_hist *h, double x)
{
	uint32_t lo = 0, hi = h->nbuckets; /* b_lo <= x < b_hi */
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (x < aiwi_hist_bound(h, mid))
			hi = mid;
		else
			lo = mid;
	}
	return lo;
}

static void check_bucket(aiwi_hist *h, double x)
{
	if (!(x >= aiwi_hist_bound(h, 0) && x < aiwi_hist_bound(h, h->nbuckets)))
		return;
	uint32_t want = bucket_by_search(h, x);
	aiwi_hist_reset(h);
	ck_assert_int_eq(aiwi_hist_add(h, x), AIW_OK);
	aiwi_hist_iter it = 0;
	double lo, hi;
	uint64_t c;
	ck_assert(aiwi_hist_next_bucket(h, &it, &lo, &hi, &c));
	ck_assert_msg(lo == aiwi_hist_bound(h, want) && hi == aiwi_hist_bound(h, want + 1) && c == 1,
	              "x = %.17g: bucket [%.17g, %.17g), expected %u [%.17g, %.17g)", x, lo, hi,
	              want, aiwi_hist_bound(h, want), aiwi_hist_bound(h, want + 1));
	ck_assert(!aiwi_hist_next_bucket(h, &it, NULL, NULL, NULL));
}

START_TEST(bucket_index_exact)
{
	static const double shape[][3] = {
		{AIW_HIST_MIN_S, AIW_HIST_MAX_S, 0.01}, {1e-3, 1e3, 0.5},   {1.0, 2.0, 1e-4},
		{0x1p-1022, 1e-290, 0.02},               {0x1p1000, 0x1p1010, 0.01},
	};
	for (size_t k = 0; k < sizeof shape / sizeof *shape; k++) {
		aiwi_hist h;
		ck_assert_int_eq(aiwi_hist_init(&h, shape[k][0], shape[k][1], shape[k][2], NULL, 0),
		                 AIW_OK);
		for (uint32_t i = 0; i <= h.nbuckets; i++) {
			double b = aiwi_hist_bound(&h, i);
			check_bucket(&h, b);
			check_bucket(&h, nextafter(b, 0));
			check_bucket(&h, nextafter(b, INFINITY));
			if (i < h.nbuckets) /* the geometric middle of the bucket */
				check_bucket(&h, sqrt(b) * sqrt(aiwi_hist_bound(&h, i + 1)));
		}
		aiwi_hist_free(&h);
	}
}
END_TEST

/* ---- windowed quantiles ---- */
START_TEST(windowed)
{
	aiwi_winhist w;
	ck_assert_int_eq(aiwi_winhist_init(&w, 1e-6, 1e7, ALPHA, NULL, 0), AIW_OK);
	for (int i = 1; i <= 100; i++)
		aiwi_winhist_add(&w, 0.001 * i);
	double p99 = aiwi_winhist_roll(&w, 0.99);
	ck_assert_msg(fabs(p99 - 0.099) <= ALPHA * 0.099 + 1e-15, "%g", p99);
	ck_assert(isnan(aiwi_winhist_roll(&w, 0.99))); /* empty window */
	for (int i = 1; i <= 10; i++)
		aiwi_winhist_add(&w, 5.0);
	ck_assert(aiwi_winhist_roll(&w, 0.99) == 5.0);
	ck_assert_uint_eq(aiwi_hist_count(&w.all), 110);
	ck_assert(aiwi_hist_quantile(&w.all, 1.0) == 5.0);
	ck_assert_uint_eq(aiwi_hist_count(&w.win), 0);
	aiwi_winhist_reset(&w);
	ck_assert_uint_eq(aiwi_hist_count(&w.all), 0);
	aiwi_winhist_free(&w);
	char err[128];
	ck_assert_int_eq(aiwi_winhist_init(&w, -1, 1, 0.01, err, sizeof err), AIW_ERANGE);
	aiwi_winhist_free(&w);
}
END_TEST

/* ---- running moments ---- */
START_TEST(rstat_moments)
{
	aiwi_rstat s;
	ck_assert_int_eq(aiwi_rstat_init(&s), AIW_OK);
	ck_assert(isnan(aiwi_rstat_mean(&s)));
	ck_assert(isnan(aiwi_rstat_variance(&s)));
	ck_assert(isnan(aiwi_rstat_ci_halfwidth(&s, 0.95)));
	static const double x[10] = {2.1, 3.5, 1.0, 4.4, 2.2, 3.3, 5.0, 0.7, 2.9, 3.1};
	for (int i = 0; i < 10; i++)
		ck_assert_int_eq(aiwi_rstat_add(&s, x[i]), AIW_OK);
	ck_assert_int_eq(aiwi_rstat_add(&s, NAN), AIW_EINVAL);
	ck_assert_int_eq(aiwi_rstat_add(&s, INFINITY), AIW_EINVAL);
	ck_assert_uint_eq(s.n_nonfinite, 2);
	ck_assert_uint_eq(aiwi_rstat_n(&s), 10);
	ck_assert_double_eq_tol(aiwi_rstat_mean(&s), gsl_stats_mean(x, 1, 10), 1e-14);
	ck_assert_double_eq_tol(aiwi_rstat_variance(&s), gsl_stats_variance(x, 1, 10), 1e-13);
	ck_assert_double_eq_tol(aiwi_rstat_sd(&s), gsl_stats_sd(x, 1, 10), 1e-13);
	ck_assert(aiwi_rstat_min(&s) == 0.7);
	ck_assert(aiwi_rstat_max(&s) == 5.0);
	/* t_{9, 0.975} = 2.262157 (Student's t table) */
	double hw = aiwi_rstat_ci_halfwidth(&s, 0.95);
	ck_assert_double_eq_tol(hw, 2.262157 * gsl_stats_sd(x, 1, 10) / sqrt(10.0), 1e-5);
	ck_assert(isnan(aiwi_rstat_ci_halfwidth(&s, 1.0)));
	ck_assert(isfinite(aiwi_rstat_median(&s)));
	aiwi_rstat_reset(&s);
	ck_assert_uint_eq(aiwi_rstat_n(&s), 0);
	ck_assert_uint_eq(s.n_nonfinite, 0);
	aiwi_rstat_free(&s);
	aiwi_rstat_free(&s);
}
END_TEST

/* ---- exact sums ---- */
/* aiwi_xsum: any order of the same terms gives the same sum, bit for bit;
 * the sum is within n 2^-50 (the terms' truncation) plus one rounding of
 * the exact sum of the terms, against a compensated reference sum (below);
 * a term taken back cancels exactly; a non-finite or huge term poisons. */
START_TEST(xsum_exact_and_order_free)
{
	enum { N = 200000 };
	double *x = malloc(N * sizeof *x);
	ck_assert(x != NULL);
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, 7);
	/* the reference: Neumaier's compensated sum (valgrind runs long double
	 * at double precision, so no wider type is relied on); its error is at
	 * most 2 eps |S| + N eps^2 sum |x| (Higham, "Accuracy and Stability of
	 * Numerical Algorithms", 2nd ed., section 4.3) */
	double ref = 0, comp = 0, abs_sum = 0;
	for (int i = 0; i < N; i++) {
		/* energies of prefills, J: log-uniform over 1e-3 .. 1e4, some
		 * take-backs (negative) */
		x[i] = pow(10, -3 + 7 * gsl_rng_uniform(r)) * (gsl_rng_uniform(r) < 0.1 ? -1 : 1);
		double t = ref + x[i];
		comp += fabs(ref) >= fabs(x[i]) ? (ref - t) + x[i] : (x[i] - t) + ref;
		ref = t;
		abs_sum += fabs(x[i]);
	}
	aiwi_xsum a = {0}, b = {0};
	for (int i = 0; i < N; i++)
		aiwi_xsum_add(&a, x[i]);
	gsl_ran_shuffle(r, x, N, sizeof *x);
	for (int i = 0; i < N; i++)
		aiwi_xsum_add(&b, x[i]);
	double va = aiwi_xsum_value(&a), vb = aiwi_xsum_value(&b);
	ck_assert_msg(memcmp(&va, &vb, sizeof va) == 0, "%.17g != %.17g", va, vb);
	ref += comp;
	ck_assert_double_eq_tol(va, ref,
	                        N * 0x1p-50 + fabs(ref) * 0x1p-51 + N * 0x1p-106 * abs_sum);
	/* book and take back */
	aiwi_xsum c = {0};
	aiwi_xsum_add(&c, 1234.5678901234567);
	aiwi_xsum_add(&c, 0.1);
	aiwi_xsum_add(&c, -1234.5678901234567);
	aiwi_xsum_add(&c, -0.1);
	ck_assert(aiwi_xsum_value(&c) == 0);
	/* large terms through the 128-bit path, exact for integers */
	aiwi_xsum d = {0};
	aiwi_xsum_add(&d, 0x1p40);
	aiwi_xsum_add(&d, 1);
	aiwi_xsum_add(&d, -0x1p40);
	ck_assert(aiwi_xsum_value(&d) == 1);
	/* poisoned: NaN, infinity, a term >= 2^60, sticky */
	static const double bad[] = {NAN, INFINITY, -INFINITY, 0x1p61};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		aiwi_xsum e = {0};
		aiwi_xsum_add(&e, 5);
		aiwi_xsum_add(&e, bad[i]);
		for (int k = 0; k < 1000; k++)
			aiwi_xsum_add(&e, -1e3);
		ck_assert_msg(isnan(aiwi_xsum_value(&e)), "term %g: %g", bad[i], aiwi_xsum_value(&e));
	}
	gsl_rng_free(r);
	free(x);
}
END_TEST

static Suite *stats_suite(void)
{
	Suite *s = suite_create("stats");
	TCase *tc = tcase_create("hist");
	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, quantiles_within_rel_err, 0, ND);
	tcase_add_test(tc, count_le_consistent);
	tcase_add_test(tc, merge_equals_adding_all);
	tcase_add_test(tc, memory_fixed);
	tcase_add_test(tc, edges);
	tcase_add_test(tc, init_validation);
	tcase_add_test(tc, add_n_equals_repeated_add);
	tcase_add_test(tc, bucket_index_exact);
	tcase_add_test(tc, windowed);
	suite_add_tcase(s, tc);
	TCase *tr = tcase_create("rstat");
	tcase_add_test(tr, rstat_moments);
	tcase_add_test(tr, xsum_exact_and_order_free);
	suite_add_tcase(s, tr);
	return s;
}

AIW_TEST_MAIN(stats_suite)
