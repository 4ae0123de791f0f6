/* test_dist.c - distribution specs: parsing, sample moments against GSL's
 * exact moments, the O(1) sampler of the maximum of n iid draws. */
#include "core/internal.h"
#include "../testutil.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <gsl/gsl_sf_psi.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Sample mean and variance of n draws against the exact moments.  The
 * tolerance is z standard errors: se(mean) = sqrt(var/n); se(variance) =
 * sqrt((m4 - s^4)/n) with m4 the sample fourth central moment.  z = 5 gives
 * a false alarm probability below 1e-6 per check (and the seed is fixed). */
static void check_moments(const char *spec, aiwi_ptype units, size_t n)
{
	aiwi_dist *d;
	char e[256];
	ck_assert_msg(aiwi_dist_parse(spec, units, "", &d, e, sizeof e) == AIW_OK, "%s: %s", spec, e);
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, 12345);
	double *x = malloc(n * sizeof *x);
	double m = 0;
	for (size_t i = 0; i < n; i++) {
		x[i] = aiwi_dist_sample(d, r);
		ck_assert(x[i] >= aiwi_dist_min(d));
		m += x[i];
	}
	m /= (double)n;
	double m2 = 0, m4 = 0;
	for (size_t i = 0; i < n; i++) {
		double c = x[i] - m;
		m2 += c * c;
		m4 += c * c * c * c;
	}
	m2 /= (double)(n - 1);
	m4 /= (double)n;
	double mu = aiwi_dist_mean(d), var = aiwi_dist_variance(d);
	double z = 5.0;
	if (var == 0) {
		ck_assert(m == mu && m2 == 0);
	} else {
		double se_m = sqrt(var / (double)n);
		ck_assert_msg(fabs(m - mu) <= z * se_m, "%s: mean %.6g vs exact %.6g (se %.3g)", spec, m,
		              mu, se_m);
		double se_v = sqrt((m4 - m2 * m2) / (double)n);
		ck_assert_msg(fabs(m2 - var) <= z * se_v, "%s: variance %.6g vs exact %.6g (se %.3g)",
		              spec, m2, var, se_v);
	}
	free(x);
	gsl_rng_free(r);
	aiwi_dist_free(d);
}

START_TEST(moments)
{
	check_moments("const(3)", AIW_PT_REAL, 1000);
	check_moments("exp(2.5)", AIW_PT_REAL, 400000);
	check_moments("normal(10,3)", AIW_PT_REAL, 400000);
	check_moments("lognormal(0,0.5)", AIW_PT_REAL, 400000);
	check_moments("lognormal(median=1024,sigma=0.8)", AIW_PT_REAL, 400000);
	check_moments("lognormal(mean=256,sigma=0.7)", AIW_PT_REAL, 400000);
	check_moments("uniform(10s,30s)", AIW_PT_DURATION, 400000);
	check_moments("gamma(2,3)", AIW_PT_REAL, 400000);
	check_moments("pareto(1,5)", AIW_PT_REAL, 400000); /* finite 4th moment */
	check_moments("beta(7,3)", AIW_PT_REAL, 400000);
	check_moments("beta(0.5,0.5)", AIW_PT_REAL, 400000);
	check_moments("250ms", AIW_PT_DURATION, 10);
}
END_TEST

/* The library's generator (lib/core/rng.h) is GSL's mt19937, word for word:
 * every seed's stream through gsl_rng_get, gsl_rng_uniform and
 * gsl_rng_uniform_pos and the inline aiwi_rng_uniform(_pos), across many
 * state refills (624 words each), and through a GSL distribution. */
START_TEST(rng_is_gsl_mt19937)
{
	const unsigned long seeds[] = {0, 1, 4357, 12345, 0xffffffffUL, 0x123456789abcdefUL};
	for (size_t si = 0; si < sizeof seeds / sizeof *seeds; si++) {
		gsl_rng *a = aiwi_rng_alloc(), *g = gsl_rng_alloc(gsl_rng_mt19937);
		ck_assert(a && g);
		ck_assert_str_eq(gsl_rng_name(a), gsl_rng_name(g));
		ck_assert_uint_eq(gsl_rng_max(a), gsl_rng_max(g));
		ck_assert_uint_eq(gsl_rng_min(a), gsl_rng_min(g));
		gsl_rng_set(a, seeds[si]);
		gsl_rng_set(g, seeds[si]);
		for (int i = 0; i < 200000; i++) {
			switch (i % 5) {
			case 0:
				ck_assert_uint_eq(gsl_rng_get(a), gsl_rng_get(g));
				break;
			case 1:
				ck_assert(gsl_rng_uniform(a) == gsl_rng_uniform(g));
				break;
			case 2:
				ck_assert(aiwi_rng_uniform(a) == gsl_rng_uniform(g));
				break;
			case 3:
				ck_assert(aiwi_rng_uniform_pos(a) == gsl_rng_uniform_pos(g));
				break;
			default:
				ck_assert(gsl_ran_gaussian_ziggurat(a, 1.0) ==
				          gsl_ran_gaussian_ziggurat(g, 1.0));
			}
		}
		/* a copy continues the same stream */
		gsl_rng *c = gsl_rng_clone(a);
		ck_assert(c);
		for (int i = 0; i < 2000; i++)
			ck_assert_uint_eq(gsl_rng_get(c), gsl_rng_get(g));
		gsl_rng_free(c);
		gsl_rng_free(a);
		gsl_rng_free(g);
	}
	/* another GSL type goes through GSL's own functions */
	gsl_rng *t = gsl_rng_alloc(gsl_rng_taus2), *u = gsl_rng_alloc(gsl_rng_taus2);
	for (int i = 0; i < 1000; i++) {
		ck_assert(aiwi_rng_uniform(t) == gsl_rng_uniform(u));
		ck_assert(aiwi_rng_uniform_pos(t) == gsl_rng_uniform_pos(u));
	}
	gsl_rng_free(t);
	gsl_rng_free(u);
}
END_TEST

START_TEST(parse_forms)
{
	aiwi_dist *d;
	char e[512];
	ck_assert_int_eq(aiwi_dist_parse("uniform(10s,30s)", AIW_PT_DURATION, "", &d, e, sizeof e), AIW_OK);
	ck_assert(d->a == 10 && d->b == 30);
	ck_assert_str_eq(d->spec, "uniform(10s,30s)");
	aiwi_dist_free(d);
	ck_assert_int_eq(aiwi_dist_parse(" lognormal( median = 1024 , sigma = 0.8 ) ", AIW_PT_REAL, "", &d,
	                                e, sizeof e),
	                 AIW_OK);
	ck_assert(fabs(d->a - log(1024)) < 1e-15 && d->b == 0.8);
	aiwi_dist_free(d);
	ck_assert_int_eq(aiwi_dist_parse("lognormal(mean=100,sigma=1)", AIW_PT_REAL, "", &d, e, sizeof e),
	                 AIW_OK);
	ck_assert(fabs(aiwi_dist_mean(d) - 100) < 1e-12);
	aiwi_dist_free(d);
	const struct {
		const char *spec;
		const char *msg;
	} bad[] = {
		{"lognormal(1024,0.8)", "lognormal(median=1024,sigma=0.8)"},
		{"exp(-1)", "mean must be > 0"},
		{"exp(1,2)", "takes 1 argument"},
		{"normal(0)", "takes 2 arguments"},
		{"uniform(3,1)", "a <= b"},
		{"gamma(0,1)", "k > 0"},
		{"pareto(1,0)", "alpha > 0"},
		{"beta(1,0)", "beta needs a and b in (0, 1e6]"},
		{"beta(1)", "takes 2 arguments"},
		{"weibull(1,2)", "unknown distribution 'weibull'"},
		{"normal(0,nan)", "argument 2"},
		{"lognormal(median=-1,sigma=1)", "median must be > 0"},
		{"lognormal(foo=1,sigma=1)", "mu=, median= or mean="},
		{"empirical(/nonexistent/file)", "cannot open"},
		{"empirical()", "usage"},
		{"hello", "not a distribution"},
		{"uniform(1h,2 parsecs)", "unknown unit"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		e[0] = 0;
		ck_assert_msg(aiwi_dist_parse(bad[i].spec, AIW_PT_DURATION, "", &d, e, sizeof e) != AIW_OK,
		              "%s accepted", bad[i].spec);
		ck_assert_msg(strstr(e, bad[i].msg), "%s: '%s' lacks '%s'", bad[i].spec, e, bad[i].msg);
	}
}
END_TEST

START_TEST(empirical_file)
{
	char path[] = "/tmp/aiwi_empXXXXXX";
	int fd = mkstemp(path);
	ck_assert(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fprintf(f, "value\n# a comment\n3\n1\n2\n\n4\n");
	fclose(f);
	aiwi_dist *d;
	char e[256], spec[300];
	snprintf(spec, sizeof spec, "empirical(%s)", path);
	ck_assert_msg(aiwi_dist_parse(spec, AIW_PT_REAL, "", &d, e, sizeof e) == AIW_OK, "%s", e);
	ck_assert_uint_eq(d->n, 4);
	ck_assert(aiwi_dist_mean(d) == 2.5);
	ck_assert(aiwi_dist_variance(d) == 1.25); /* population variance of 1..4 */
	ck_assert(aiwi_dist_min(d) == 1);
	ck_assert(aiwi_dist_quantile_upper(d, 0.25) == 3);
	ck_assert(aiwi_dist_quantile_upper(d, 1e-9) == 4);
	aiwi_dist *c = aiwi_dist_clone(d);
	ck_assert(c && c->n == 4 && c->data != d->data && strcmp(c->spec, d->spec) == 0);
	aiwi_dist_free(c);
	aiwi_dist_free(d);
	/* relative to a base directory */
	const char *slash = strrchr(path, '/');
	snprintf(spec, sizeof spec, "empirical(%s)", slash + 1);
	ck_assert_msg(aiwi_dist_parse(spec, AIW_PT_REAL, "/tmp", &d, e, sizeof e) == AIW_OK, "%s", e);
	aiwi_dist_free(d);
	f = fopen(path, "w");
	fprintf(f, "1\n2\nthree\n");
	fclose(f);
	snprintf(spec, sizeof spec, "empirical(%s)", path);
	ck_assert(aiwi_dist_parse(spec, AIW_PT_REAL, "", &d, e, sizeof e) == AIW_EPARSE);
	ck_assert_msg(strstr(e, ":3: not a number"), "%s", e);
	/* more samples than the first allocation (1024): 5000 down to 1 */
	f = fopen(path, "w");
	for (int i = 5000; i >= 1; i--)
		fprintf(f, "%d\n", i);
	fclose(f);
	ck_assert_msg(aiwi_dist_parse(spec, AIW_PT_REAL, "", &d, e, sizeof e) == AIW_OK, "%s", e);
	ck_assert_uint_eq(d->n, 5000);
	ck_assert(aiwi_dist_mean(d) == 2500.5);
	ck_assert(aiwi_dist_variance(d) == (5000.0 * 5000.0 - 1) / 12); /* of 1..n: (n^2 - 1) / 12 */
	ck_assert(aiwi_dist_min(d) == 1);
	ck_assert(aiwi_dist_quantile_upper(d, 1e-9) == 5000);
	aiwi_dist_free(d);
	unlink(path);
}
END_TEST

/* E[max of n draws] from m samples of the O(1) sampler, within z se */
static void check_max(const char *spec, double n, double exact, double exact_err, size_t m)
{
	aiwi_dist *d;
	char e[256];
	ck_assert(aiwi_dist_parse(spec, AIW_PT_REAL, "", &d, e, sizeof e) == AIW_OK);
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, 777);
	double s = 0, s2 = 0;
	for (size_t i = 0; i < m; i++) {
		double x = aiwi_dist_sample_max(d, r, n);
		ck_assert(isfinite(x));
		s += x;
		s2 += x * x;
	}
	double mean = s / (double)m, var = (s2 - s * s / (double)m) / (double)(m - 1);
	double se = sqrt(var / (double)m);
	ck_assert_msg(fabs(mean - exact) <= 5 * se + exact_err,
	              "%s max of %g: mean %.5f vs %.5f (se %.2g)", spec, n, mean, exact, se);
	gsl_rng_free(r);
	aiwi_dist_free(d);
}

/* Count tables (aiwi_count_table): n draws of round(X), at least 1, against
 * the law computed here from GSL's distribution functions, P(1) = F(1.5),
 * P(n) = F(n + 1/2) - F(n - 1/2): a chi-square test over cells of at least
 * 50 expected draws (consecutive counts, the last cell all the rest), at the
 * 1 - 1e-6 quantile of its law (a false alarm once in a million seeds; the
 * seed is fixed).  tail: the mass left to inversion (0.3 runs it often). */
static void check_counts(const char *spec, double tail, size_t n, double (*cdf)(double, const aiwi_dist *))
{
	aiwi_dist *d;
	char e[256];
	ck_assert_msg(aiwi_dist_parse(spec, AIW_PT_REAL, "", &d, e, sizeof e) == AIW_OK, "%s: %s", spec, e);
	aiwi_count_table *t;
	ck_assert_int_eq(aiwi_count_table_new(d, 65536, tail, &t), AIW_OK);
	ck_assert_msg(t != NULL, "%s: no table", spec);
	size_t k = aiwi_count_table_k(t);
	/* the table is the law, and the tail beyond K at most `tail` */
	double sum = aiwi_count_table_prob(t, (uint32_t)k);
	ck_assert_msg(sum <= tail, "%s: tail %g > %g", spec, sum, tail);
	for (uint32_t c = 1; c < k; c++) {
		double p = c == 1 ? cdf(1.5, d) : cdf(c + 0.5, d) - cdf(c - 0.5, d);
		ck_assert_msg(fabs(aiwi_count_table_prob(t, c) - p) <= 1e-14, "%s: P(%u) = %.17g, want %.17g",
		              spec, c, aiwi_count_table_prob(t, c), p);
		sum += aiwi_count_table_prob(t, c);
	}
	ck_assert_msg(fabs(sum - 1) <= 1e-12, "%s: the table sums to %.17g", spec, sum);

	enum { CMAX = 200000 };
	static double obs[CMAX + 1];
	memset(obs, 0, sizeof obs);
	/* the draw is GSL's gsl_ran_discrete on the same generator states (the
	 * library's generator: aiwi_count_draw's inline path) */
	double *law = malloc(k * sizeof *law);
	for (uint32_t c = 0; c < k; c++)
		law[c] = aiwi_count_table_prob(t, c);
	gsl_ran_discrete_t *alias = gsl_ran_discrete_preproc(k, law);
	free(law);
	gsl_rng *r = aiwi_rng_alloc(), *r2 = aiwi_rng_alloc();
	gsl_rng_set(r, 4242);
	gsl_rng_set(r2, 4242);
	for (int i = 0; i < 100000; i++) {
		uint32_t c = aiwi_count_draw(t, r);
		size_t g = gsl_ran_discrete(r2, alias);
		ck_assert_msg(g == 0 ? c >= k : c == g, "%s: draw %d: %u, GSL %zu", spec, i, c, g);
		if (g == 0) /* the tail's inversion: one more uniform */
			gsl_rng_uniform_pos(r2);
	}
	size_t beyond = 0;
	for (size_t i = 0; i < n; i++) {
		uint32_t c = aiwi_count_draw(t, r);
		ck_assert(c >= 1 && c <= 1000000000u);
		beyond += c >= k;
		obs[c < CMAX ? c : CMAX]++;
	}
	double chi2 = 0, ec = 0, oc = 0, erest = 1, orest = (double)n;
	int cells = 0;
	for (uint32_t c = 1; c < CMAX; c++) {
		double p = c == 1 ? cdf(1.5, d) : cdf(c + 0.5, d) - cdf(c - 0.5, d);
		ec += p * (double)n;
		oc += obs[c];
		erest -= p;
		orest -= obs[c];
		if (ec >= 50 && erest * (double)n >= 50) {
			chi2 += (oc - ec) * (oc - ec) / ec;
			cells++;
			ec = oc = 0;
		} else if (erest * (double)n < 50) {
			break;
		}
	}
	/* the last cell: the open one and all the rest */
	double el = ec + erest * (double)n, ol = oc + orest;
	chi2 += (ol - el) * (ol - el) / el;
	cells++;
	double crit = gsl_cdf_chisq_Qinv(1e-6, cells - 1);
	ck_assert_msg(chi2 <= crit, "%s (tail %g): chi-square %.1f over %d cells, critical %.1f", spec,
	              tail, chi2, cells, crit);
	/* the tail was drawn as often as its mass says (binomial, 5 sigma) */
	double pt = aiwi_count_table_prob(t, (uint32_t)k);
	ck_assert_msg(fabs((double)beyond - pt * (double)n) <= 5 * sqrt(pt * (1 - pt) * (double)n) + 1,
	              "%s: %zu draws >= K = %zu, expected %.1f", spec, beyond, k, pt * (double)n);
	gsl_rng_free(r);
	gsl_rng_free(r2);
	gsl_ran_discrete_free(alias);
	aiwi_count_table_free(t);
	aiwi_dist_free(d);
}

static double cdf_of(double x, const aiwi_dist *d)
{
	return aiwi_dist_lower(d, x);
}

static double cdf_lognormal(double x, const aiwi_dist *d)
{
	return x > 0 ? gsl_cdf_lognormal_P(x, d->a, d->b) : 0;
}

START_TEST(count_tables)
{
	/* the lognormal request sizes, against GSL's lognormal CDF itself, with
	 * the tail the serving model leaves to inversion (1e-2) and a thinner one */
	check_counts("lognormal(median=1024,sigma=0.8)", 1e-2, 400000, cdf_lognormal);
	check_counts("lognormal(median=256,sigma=0.7)", 1e-2, 400000, cdf_lognormal);
	check_counts("lognormal(median=1024,sigma=0.8)", 1e-4, 400000, cdf_lognormal);
	/* the tail by inversion, a third of the draws */
	check_counts("lognormal(median=40,sigma=1)", 0.3, 400000, cdf_lognormal);
	/* the other closed forms (aiwi_dist_lower against GSL checked below) */
	check_counts("exp(40)", 1e-4, 300000, cdf_of);
	check_counts("exp(40)", 0.3, 300000, cdf_of);
	check_counts("normal(5,3)", 1e-4, 300000, cdf_of); /* a third below 1.5: count 1 */
	check_counts("uniform(0.2,30.7)", 1e-4, 300000, cdf_of);
	check_counts("pareto(3,2.5)", 1e-4, 300000, cdf_of);

	/* aiwi_dist_lower / upper: GSL's P and Q, and the degenerate cases */
	static const char *const specs[] = {"exp(40)", "normal(5,3)", "lognormal(2,0.5)",
	                                    "uniform(0.2,30.7)", "pareto(3,2.5)", "gamma(2,3)",
	                                    "beta(2,5)"};
	const double xs[] = {-1, 0, 0.5, 2.9, 3, 7.3, 30, 1e3};
	for (size_t i = 0; i < sizeof specs / sizeof *specs; i++) {
		aiwi_dist *d;
		char e[128];
		ck_assert_int_eq(aiwi_dist_parse(specs[i], AIW_PT_REAL, "", &d, e, sizeof e), AIW_OK);
		for (size_t j = 0; j < sizeof xs / sizeof *xs; j++) {
			double lo = aiwi_dist_lower(d, xs[j]), up = aiwi_dist_upper(d, xs[j]);
			ck_assert_msg(lo >= 0 && up >= 0 && fabs(lo + up - 1) <= 1e-12, "%s at %g: %g + %g",
			              specs[i], xs[j], lo, up);
		}
		aiwi_dist_free(d);
	}
	aiwi_dist *d;
	char e[128];
	ck_assert_int_eq(aiwi_dist_parse("exp(40)", AIW_PT_REAL, "", &d, e, sizeof e), AIW_OK);
	ck_assert(aiwi_dist_lower(d, 10) == gsl_cdf_exponential_P(10, 40));
	ck_assert(aiwi_dist_upper(d, 100) == gsl_cdf_exponential_Q(100, 40));
	aiwi_dist_free(d);
	/* beta on [0, 1]: GSL's P, Q and Q^-1 inside, 0 and 1 outside */
	ck_assert_int_eq(aiwi_dist_parse("beta(2,5)", AIW_PT_REAL, "", &d, e, sizeof e), AIW_OK);
	ck_assert(aiwi_dist_lower(d, 0.3) == gsl_cdf_beta_P(0.3, 2, 5));
	ck_assert(aiwi_dist_upper(d, 0.3) == gsl_cdf_beta_Q(0.3, 2, 5));
	ck_assert(aiwi_dist_lower(d, -1) == 0 && aiwi_dist_upper(d, 2) == 0);
	ck_assert(aiwi_dist_quantile_upper(d, 0.1) == gsl_cdf_beta_Qinv(0.1, 2, 5));
	ck_assert(aiwi_dist_min(d) == 0 && aiwi_dist_quantile_upper(d, 0) <= 1);
	ck_assert_rel(aiwi_dist_mean(d), 2.0 / 7, 1e-15);
	aiwi_dist_free(d);

	/* no table: const, empirical, gamma, a table too large, a bad tail */
	static const char *const none[] = {"const(7)", "gamma(2,3)", "lognormal(median=1e6,sigma=1)"};
	for (size_t i = 0; i < sizeof none / sizeof *none; i++) {
		ck_assert_int_eq(aiwi_dist_parse(none[i], AIW_PT_REAL, "", &d, e, sizeof e), AIW_OK);
		aiwi_count_table *t = (aiwi_count_table *)1;
		ck_assert_int_eq(aiwi_count_table_new(d, 65536, 1e-4, &t), AIW_OK);
		ck_assert_msg(t == NULL, "%s: a table", none[i]);
		ck_assert_int_eq(aiwi_count_table_new(d, 65536, 0, &t), AIW_EINVAL);
		aiwi_dist_free(d);
	}
	/* the rounding rule */
	ck_assert_uint_eq(aiwi_round_count(NAN), 1);
	ck_assert_uint_eq(aiwi_round_count(-3), 1);
	ck_assert_uint_eq(aiwi_round_count(1.49), 1);
	ck_assert_uint_eq(aiwi_round_count(1.5), 2);
	ck_assert_uint_eq(aiwi_round_count(2.5), 3);
	ck_assert_uint_eq(aiwi_round_count(4e9), 1000000000u);
}
END_TEST

START_TEST(sample_max)
{
	/* E[max of N standard normals]: 2.508 (1e2), 3.241 (1e3), 3.852 (1e4),
	 * 4.384 (1e5), published to 3 decimals (so +-0.0005) */
	check_max("normal(0,1)", 100, 2.508, 5e-4, 200000);
	check_max("normal(0,1)", 1e3, 3.241, 5e-4, 200000);
	check_max("normal(0,1)", 1e4, 3.852, 5e-4, 200000);
	check_max("normal(0,1)", 1e5, 4.384, 5e-4, 200000);
	/* exponential: E[max of n] = H_n * mean, H_n = psi(n+1) + Euler gamma */
	double n = 4096;
	check_max("exp(2)", n, 2 * (gsl_sf_psi(n + 1) + 0.57721566490153286061), 1e-12, 200000);
	check_max("exp(1)", 1e7, gsl_sf_psi(1e7 + 1) + 0.57721566490153286061, 1e-12, 200000);
	/* uniform(0,1): E[max] = n/(n+1) */
	check_max("uniform(0,1)", 50, 50.0 / 51, 1e-12, 200000);
	/* n = 1 is one draw; constants are themselves */
	check_max("uniform(0,1)", 1, 0.5, 1e-12, 200000);
	check_max("const(7)", 1e6, 7, 0, 10);
}
END_TEST

/* aiwi_rng_exponential (the ziggurat, lib/core/rng.h) against Exp(1), with
 * critical values at a significance of 1e-3 each: the chi-square over
 * 1,024 bins of equal probability (fine enough to see one of the 256
 * layers drawn too often or too rarely: each layer has 1/256 of the mass
 * once its wedge is added), Kolmogorov-Smirnov over the sorted draws, the
 * mean and the variance within 3.3 standard errors (their laws are
 * normal at this n), the tail beyond r = 7.697 (the base layer's tail
 * branch: expected n e^-r) and beyond 12 within 3.3 Poisson standard
 * deviations; the same stream for the same seed; any GSL type works. */
static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

static void check_exp_law(gsl_rng *g, size_t n)
{
	enum { NB = 1024 };
	static uint64_t bins[NB];
	memset(bins, 0, sizeof bins);
	double *x = malloc(n * sizeof *x);
	ck_assert(x);
	double sum = 0, sum2 = 0;
	uint64_t tail_r = 0, tail_12 = 0;
	for (size_t i = 0; i < n; i++) {
		double e = aiwi_rng_exponential(g);
		ck_assert(e > 0 && isfinite(e));
		x[i] = e;
		sum += e;
		sum2 += e * e;
		tail_r += e > 7.697117470131487;
		tail_12 += e > 12;
		/* bin of equal probability: floor(NB (1 - e^-x)) */
		size_t b = (size_t)(NB * -expm1(-e));
		bins[b < NB ? b : NB - 1]++;
	}
	double chi = 0, ex = (double)n / NB;
	for (int b = 0; b < NB; b++)
		chi += (bins[b] - ex) * (bins[b] - ex) / ex;
	ck_assert_msg(chi < gsl_cdf_chisq_Qinv(1e-3, NB - 1), "chi-square %g over %d bins", chi, NB);
	qsort(x, n, sizeof *x, cmp_double);
	double d = 0;
	for (size_t i = 0; i < n; i++) {
		double F = -expm1(-x[i]);
		double a = (double)(i + 1) / n - F, b = F - (double)i / n;
		d = fmax(d, fmax(a, b));
	}
	/* P(sqrt(n) D > 1.949) = 1e-3 (Kolmogorov's limit law) */
	ck_assert_msg(sqrt((double)n) * d < 1.949, "KS sqrt(n) D = %g", sqrt((double)n) * d);
	double m = sum / n, v = sum2 / n - m * m;
	/* Exp(1): mean 1 (sd 1), variance 1 (sd of the sample variance
	 * sqrt((mu4 - 1) / n) = sqrt(8 / n)) */
	ck_assert_msg(fabs(m - 1) < 3.3 / sqrt((double)n), "mean %g", m);
	ck_assert_msg(fabs(v - 1) < 3.3 * sqrt(8.0 / n), "variance %g", v);
	/* beyond r, x - r is Exp(1) again (the tail branch): its mean */
	double tsum = 0;
	for (size_t i = n - tail_r; i < n; i++)
		tsum += x[i] - 7.697117470131487;
	ck_assert_msg(tail_r > 100 && fabs(tsum / tail_r - 1) < 3.3 / sqrt((double)tail_r),
	              "mean excess beyond r %g over %lu", tsum / tail_r, (unsigned long)tail_r);
	double er = n * exp(-7.697117470131487), e12 = n * exp(-12.0);
	ck_assert_msg(fabs(tail_r - er) < 3.3 * sqrt(er), "tail beyond r: %lu for %g",
	              (unsigned long)tail_r, er);
	ck_assert_msg(fabs(tail_12 - e12) < 3.3 * sqrt(e12) + 1, "tail beyond 12: %lu for %g",
	              (unsigned long)tail_12, e12);
	free(x);
}

START_TEST(exponential_ziggurat)
{
	aiwi_rng_exp_init();
	aiwi_rng_exp_init(); /* idempotent */
	/* the tables: every layer of area v = (r + 1) e^-r (the base: q f(r);
	 * layer i: x_i (f(x_(i-1)) - f(x_i)), the top one up to f = 1), the
	 * x_i decreasing, and each fast count the points below x_(i-1) */
	const double r = 7.697117470131487, v = 3.949659822581572e-3, M = 16777216.0;
	ck_assert(fabs((r + 1) * exp(-r) - v) < 1e-12 * v);
	ck_assert(fabs(aiwi_zwe[0] * M * exp(-r) - v) < 1e-12 * v);
	ck_assert(aiwi_zfe[0] == 1.0 && aiwi_zke[1] == 0);
	for (int i = 1; i < 256; i++) {
		double xi = aiwi_zwe[i] * M, top = i == 1 ? 1.0 : exp(-aiwi_zwe[i - 1] * M);
		ck_assert_msg(fabs(xi * (top - exp(-xi)) - v) < 1e-9 * v, "layer %d area %.15g", i,
		              xi * (top - exp(-xi)));
		ck_assert(aiwi_zfe[i] == exp(-xi));
		if (i > 1) {
			ck_assert(aiwi_zwe[i] > aiwi_zwe[i - 1]);
			double inner = aiwi_zwe[i - 1] * M;
			uint32_t k = aiwi_zke[i];
			ck_assert((k == 0 || (k - 0.5) * aiwi_zwe[i] < inner) &&
			          (k + 0.5) * aiwi_zwe[i] >= inner);
		}
	}
	ck_assert(fabs(aiwi_zwe[255] * M - r) < 1e-15 * r);
	gsl_rng *g = aiwi_rng_alloc();
	ck_assert(g);
	gsl_rng_set(g, 20261130);
	check_exp_law(g, 4000000);
	/* the same seed, the same stream */
	gsl_rng *a = aiwi_rng_alloc(), *b = aiwi_rng_alloc();
	ck_assert(a && b);
	gsl_rng_set(a, 7);
	gsl_rng_set(b, 7);
	for (int i = 0; i < 100000; i++)
		ck_assert(aiwi_rng_exponential(a) == aiwi_rng_exponential(b));
	gsl_rng_free(a);
	gsl_rng_free(b);
	/* another GSL type: the words through gsl_rng_uniform */
	gsl_rng *t = gsl_rng_alloc(gsl_rng_taus2);
	ck_assert(t);
	gsl_rng_set(t, 3);
	check_exp_law(t, 1000000);
	gsl_rng_free(t);
	gsl_rng_free(g);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("dist");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, moments);
	tcase_add_test(tc, parse_forms);
	tcase_add_test(tc, empirical_file);
	tcase_add_test(tc, sample_max);
	tcase_add_test(tc, count_tables);
	tcase_add_test(tc, rng_is_gsl_mt19937);
	tcase_add_test(tc, exponential_ziggurat);
	suite_add_tcase(s, tc);
	return s;
}

AIW_TEST_MAIN(make_suite)
