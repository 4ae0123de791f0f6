/*
 * test_traffic.c - arrival processes.
 *
 * Statistical checks use fixed seeds (so they are deterministic) and bounds
 * derived from the sampling distribution of the statistic: a family of k
 * z-scores is held to the Bonferroni bound Qinv(ALPHA / (2k)) with a
 * family-wise ALPHA of 1e-3, so a correct generator fails with probability
 * below 1e-3 for a random seed, and a wrong rate or shape fails for all.
 * Trace replay is compared with counts computed here, independently, from
 * the timestamps of the Azure CSV files.
 */
#include "../testutil.h"
#include "inference/traffic.h"

#include <check.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_integration.h>
#include <gsl/gsl_rng.h>

#define ALPHA 1e-3
#define HOUR 3600.0
#define DAY 86400.0
#define WEEK (7 * DAY)
#define TRACE_DIR AIW_SRCDIR "/examples/traces/"

/* two-sided Bonferroni z bound for k simultaneous tests */
static double zbound(int k)
{
	return gsl_cdf_ugaussian_Qinv(ALPHA / (2.0 * k));
}

static gsl_rng *rng(unsigned long seed)
{
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, seed);
	return r;
}

static aiwi_traffic *make(const aiwi_traffic_conf *c)
{
	aiwi_traffic *tr = NULL;
	char err[512] = "";
	aiw_status st = aiwi_traffic_new(&tr, c, err, sizeof err);
	ck_assert_msg(st == AIW_OK, "aiwi_traffic_new: %s (%s)", aiw_status_name(st), err);
	return tr;
}

/* A diurnal configuration (the rest at its defaults). */
static aiwi_traffic_conf diurnal(double rate, double peak_to_trough, double peak_hour)
{
	aiwi_traffic_conf c;
	aiwi_traffic_conf_default(&c);
	c.kind = AIW_TRAFFIC_DIURNAL;
	c.rate = rate;
	c.peak_to_trough = peak_to_trough;
	c.peak_hour = peak_hour;
	return c;
}

/* ======================================================================== */
/* Poisson                                                                   */
/* ======================================================================== */
START_TEST(poisson_counts)
{
	aiwi_traffic_conf c;
	aiwi_traffic_conf_default(&c);
	c.rate = 40.0;
	aiwi_traffic *tr = make(&c);
	gsl_rng *r = rng(11);
	const double T = 1e4, E = c.rate * T;
	double t = 0.0, p = 0, o = 0;
	size_t n = 0;
	while ((t = aiwi_traffic_next(tr, r, t, &p, &o)) <= T)
		n++;
	ck_assert(isnan(p) && isnan(o)); /* sizes come from the caller */
	/* N ~ Poisson(E): within 3 sigma, sigma = sqrt(E) */
	ck_assert_msg(fabs((double)n - E) <= 3.0 * sqrt(E), "n = %zu, expected %g +- %g", n, E,
	              3 * sqrt(E));
	ck_assert_double_eq(aiwi_traffic_rate(tr, 123.0), 40.0);
	ck_assert_double_eq_tol(aiwi_traffic_integral(tr, 10.0, 20.0), 400.0, 1e-9);
	ck_assert_double_eq(aiwi_traffic_integral(tr, 20.0, 10.0), 0.0);
	ck_assert_double_eq(aiwi_traffic_mean_rate(tr), 40.0);
	/* a later `now` restarts from there: the next arrival is after it */
	ck_assert(aiwi_traffic_next(tr, r, 1e6, NULL, NULL) >= 1e6);
	gsl_rng_free(r);
	aiwi_traffic_free(tr);

	/* rate 0: no arrivals */
	c.rate = 0.0;
	tr = make(&c);
	r = rng(1);
	ck_assert(isinf(aiwi_traffic_next(tr, r, 0.0, NULL, NULL)));
	gsl_rng_free(r);
	aiwi_traffic_free(tr);
}
END_TEST

/* ======================================================================== */
/* diurnal                                                                   */
/* ======================================================================== */
/* integral of the rate by quadrature, split at day boundaries */
static double rate_fn(double t, void *p)
{
	return aiwi_traffic_rate(p, t);
}

static double quad(aiwi_traffic *tr, double t0, double t1)
{
	gsl_integration_workspace *w = gsl_integration_workspace_alloc(1000);
	gsl_function F = {rate_fn, tr};
	double sum = 0.0;
	for (double a = t0; a < t1;) {
		double b = fmin(t1, (floor(a / DAY) + 1.0) * DAY);
		double v, e;
		ck_assert_int_eq(gsl_integration_qag(&F, a, b, 0.0, 1e-12, 1000, GSL_INTEG_GAUSS61,
		                                     w, &v, &e),
		                 0);
		sum += v;
		a = b;
	}
	gsl_integration_workspace_free(w);
	return sum;
}

START_TEST(diurnal_profile_closed_forms)
{
	aiwi_traffic_conf c = diurnal(20.0, 10.0, 14.0);
	c.weekend_factor = 0.4;
	aiwi_traffic *tr = make(&c);
	double a = 9.0 / 11.0;
	/* peak at 14:00 and trough at 02:00 of a weekday: ratio r */
	ck_assert_double_eq_tol(aiwi_traffic_rate(tr, 14 * HOUR), 20.0 * (1 + a), 1e-12);
	ck_assert_double_eq_tol(aiwi_traffic_rate(tr, 2 * HOUR), 20.0 * (1 - a), 1e-12);
	ck_assert_double_eq_tol(aiwi_traffic_rate(tr, 14 * HOUR) / aiwi_traffic_rate(tr, 2 * HOUR),
	                        10.0, 1e-12);
	ck_assert_double_eq_tol(aiwi_traffic_rate(tr, 8 * HOUR), 20.0, 1e-12);
	/* day 5 (Saturday) is scaled, day 7 is Monday again */
	ck_assert_double_eq_tol(aiwi_traffic_rate(tr, 5 * DAY + 14 * HOUR), 0.4 * 20 * (1 + a),
	                        1e-12);
	ck_assert_double_eq_tol(aiwi_traffic_rate(tr, 7 * DAY + 14 * HOUR), 20 * (1 + a), 1e-12);
	/* a weekday integrates to rate * 1 day, a week to rate * (5 + 2w) days */
	ck_assert_double_eq_tol(aiwi_traffic_integral(tr, 0, DAY), 20 * DAY, 1e-6);
	ck_assert_double_eq_tol(aiwi_traffic_integral(tr, 0, WEEK), 20 * DAY * 5.8, 1e-5);
	ck_assert_double_eq_tol(aiwi_traffic_mean_rate(tr), 20 * 5.8 / 7, 1e-12);
	/* closed-form integral against quadrature, across day and week edges */
	static const double iv[][2] = {{0, 1000},     {3000, 50000},        {0.3 * DAY, 3.7 * DAY},
	                               {4.5 * DAY, 8.25 * DAY}, {13.1 * DAY, 22.9 * DAY},
	                               {100 * DAY + 17, 100 * DAY + 9000}};
	for (size_t i = 0; i < sizeof iv / sizeof *iv; i++) {
		double cf = aiwi_traffic_integral(tr, iv[i][0], iv[i][1]);
		double q = quad(tr, iv[i][0], iv[i][1]);
		ck_assert_msg(fabs(cf - q) <= 1e-9 * q, "[%g, %g]: %.12g vs %.12g", iv[i][0],
		              iv[i][1], cf, q);
	}
	aiwi_traffic_free(tr);
}
END_TEST

/* Hourly counts of a week of arrivals, compared with the integral. */
static void hourly_counts(aiwi_traffic *tr, gsl_rng *r, double *n)
{
	memset(n, 0, 168 * sizeof *n);
	double t = 0.0;
	while ((t = aiwi_traffic_next(tr, r, t, NULL, NULL)) < WEEK)
		n[(int)(t / HOUR)] += 1.0;
}

START_TEST(diurnal_hourly_counts)
{
	/* peak at 14:30: centred in the 14:00 bin, trough in the 02:00 bin */
	aiwi_traffic_conf c = diurnal(20.0, 10.0, 14.5);
	c.weekend_factor = 0.5;
	aiwi_traffic *tr = make(&c);
	gsl_rng *r = rng(2024);
	double n[168], mu[168];
	hourly_counts(tr, r, n);
	/* N_h ~ Poisson(mu_h), independent: z-scores and chi-square */
	double z = zbound(168), chi2 = 0.0, worst = 0.0;
	for (int h = 0; h < 168; h++) {
		mu[h] = aiwi_traffic_integral(tr, h * HOUR, (h + 1) * HOUR);
		double zh = (n[h] - mu[h]) / sqrt(mu[h]);
		chi2 += zh * zh;
		if (fabs(zh) > fabs(worst))
			worst = zh;
		ck_assert_msg(fabs(zh) <= z, "hour %d: %g arrivals, expected %g (z = %.2f > %.2f)", h,
		              n[h], mu[h], zh, z);
	}
	ck_assert_msg(chi2 <= gsl_cdf_chisq_Qinv(ALPHA, 168), "chi2 = %g (worst z %.2f)", chi2,
	              worst);
	/* and not too good to be true (a process that returns its expectation) */
	ck_assert_msg(chi2 >= gsl_cdf_chisq_Pinv(ALPHA, 168), "chi2 = %g", chi2);

	/* peak/trough of hourly counts over the weekdays */
	double cn[24] = {0}, cm[24] = {0};
	for (int h = 0; h < 120; h++) {
		cn[h % 24] += n[h];
		cm[h % 24] += mu[h];
	}
	int hmax = 0, hmin = 0;
	for (int h = 1; h < 24; h++) {
		if (cm[h] > cm[hmax])
			hmax = h;
		if (cm[h] < cm[hmin])
			hmin = h;
	}
	ck_assert_int_eq(hmax, 14);
	ck_assert_int_eq(hmin, 2);
	/* an hour bin averages the sinusoid: amplitude a * sinc(pi/24) */
	double a = 9.0 / 11.0, s = sin(M_PI / 24) / (M_PI / 24);
	double r_exp = cm[hmax] / cm[hmin];
	ck_assert_double_eq_tol(r_exp, (1 + a * s) / (1 - a * s), 1e-9);
	ck_assert_msg(fabs(r_exp / 10.0 - 1.0) < 0.02, "expected ratio %g", r_exp);
	/* observed ratio: var(log R) ~ 1/N_max + 1/N_min (delta method) */
	double r_obs = cn[hmax] / cn[hmin];
	double sd = sqrt(1 / cm[hmax] + 1 / cm[hmin]);
	ck_assert_msg(fabs(log(r_obs / r_exp)) <= zbound(1) * sd, "peak/trough %g vs %g", r_obs,
	              r_exp);
	/* the weekend halves the traffic: Saturday+Sunday vs two weekdays */
	double we = 0, wd = 0, we_mu = 0, wd_mu = 0;
	for (int h = 0; h < 48; h++) {
		wd += n[h];
		wd_mu += mu[h];
		we += n[120 + h];
		we_mu += mu[120 + h];
	}
	ck_assert_double_eq_tol(we_mu / wd_mu, 0.5, 1e-9);
	ck_assert(fabs(we / wd - 0.5) <= zbound(1) * 0.5 * sqrt(1 / we_mu + 1 / wd_mu));
	gsl_rng_free(r);
	aiwi_traffic_free(tr);
}
END_TEST

/* The thinning envelope is piecewise constant (the maximum of the rate over
 * each minute of the day): minute by minute, the counts of one day must
 * match the integral of the rate (1440 z-scores and their chi-square), so
 * an envelope below the rate anywhere would show as a deficit. */
START_TEST(diurnal_minute_counts)
{
	/* peak at 9:15: crest and trough inside a minute, not at its edge */
	aiwi_traffic_conf c = diurnal(20.0, 10.0, 9.25);
	aiwi_traffic *tr = make(&c);
	gsl_rng *r = rng(77);
	enum { M = 1440 };
	static double n[M];
	memset(n, 0, sizeof n);
	double t = 0.0;
	while ((t = aiwi_traffic_next(tr, r, t, NULL, NULL)) < DAY)
		n[(int)(t / 60.0)] += 1.0;
	/* N_m ~ Poisson(mu_m), mu_m >= 20 x 60 x 2/11 = 218: normal z-scores */
	double z = zbound(M + 1), chi2 = 0.0, all = 0.0;
	for (int m = 0; m < M; m++) {
		double mu = aiwi_traffic_integral(tr, m * 60.0, (m + 1) * 60.0);
		double zm = (n[m] - mu) / sqrt(mu);
		chi2 += zm * zm;
		all += n[m];
		ck_assert_msg(fabs(zm) <= z, "minute %d: %g arrivals, expected %g (z = %.2f)", m, n[m],
		              mu, zm);
	}
	ck_assert_msg(chi2 <= gsl_cdf_chisq_Qinv(ALPHA, M), "chi2 = %g", chi2);
	ck_assert_msg(chi2 >= gsl_cdf_chisq_Pinv(ALPHA, M), "chi2 = %g", chi2);
	/* and the day's total, 1.73e6 +- 1,300: a bias of 0.3% fails */
	double mu = aiwi_traffic_integral(tr, 0, DAY);
	ck_assert_msg(fabs(all - mu) <= z * sqrt(mu), "%g arrivals in the day, expected %g", all, mu);
	gsl_rng_free(r);
	aiwi_traffic_free(tr);
}
END_TEST

/* Extremes of the envelope: a peak/trough ratio of 1e6 (the trough rate is
 * 2e-6 of the peak: the envelope's padding must stay negligible there) and
 * a weekend factor of 0 (no envelope, no arrival, on Saturday and Sunday;
 * the process carries on on Monday). */
START_TEST(diurnal_extreme_ratio_and_empty_weekend)
{
	aiwi_traffic_conf c = diurnal(5.0, 1e6, 14.5);
	c.weekend_factor = 0.0;
	aiwi_traffic *tr = make(&c);
	gsl_rng *r = rng(31);
	double n[168];
	hourly_counts(tr, r, n);
	/* weekday hours: mu >= 5 x 3600 x (1 - a sinc(pi/24)) = 52 (the trough
	 * hour), enough for normal z-scores at this bound */
	double z = zbound(120), chi2 = 0.0;
	for (int h = 0; h < 120; h++) {
		double mu = aiwi_traffic_integral(tr, h * HOUR, (h + 1) * HOUR);
		double zh = (n[h] - mu) / sqrt(mu);
		chi2 += zh * zh;
		ck_assert_msg(fabs(zh) <= z, "hour %d: %g arrivals, expected %g (z = %.2f)", h, n[h],
		              mu, zh);
	}
	ck_assert_msg(chi2 <= gsl_cdf_chisq_Qinv(ALPHA, 120), "chi2 = %g", chi2);
	for (int h = 120; h < 168; h++)
		ck_assert_msg(n[h] == 0, "weekend hour %d: %g arrivals", h, n[h]);
	/* the next arrival after the weekend is on Monday, at the rate of Monday */
	double t = aiwi_traffic_next(tr, r, 5 * DAY, NULL, NULL);
	ck_assert_msg(t >= WEEK && t < WEEK + DAY, "%.17g", t);
	gsl_rng_free(r);
	aiwi_traffic_free(tr);
}
END_TEST

/* Rates so low that one exponential of envelope spans days or weeks: the
 * inversion skips whole weeks and days (weekends of factor 0 included) and
 * the count over 2,000 weeks matches the integral; an absurdly low rate
 * returns a far time at once. */
START_TEST(diurnal_low_rate)
{
	/* rate 2e-6/s: 0.864 per weekday-week, about one arrival a week */
	aiwi_traffic_conf c = diurnal(2e-6, 10.0, 14.0);
	c.weekend_factor = 0.0;
	aiwi_traffic *tr = make(&c);
	gsl_rng *r = rng(8);
	const double end = 2000 * WEEK;
	double t = 0.0, n = 0.0, prev = 0.0;
	while ((t = aiwi_traffic_next(tr, r, t, NULL, NULL)) < end) {
		ck_assert(t >= prev);
		prev = t;
		double d = fmod(floor(t / DAY), 7.0);
		ck_assert_msg(d < 5.0, "arrival at %.17g s, day %g of the week", t, d);
		n += 1.0;
	}
	double mu = aiwi_traffic_integral(tr, 0, end);
	ck_assert_double_eq_tol(mu, 2e-6 * 5 * DAY * 2000, 1e-6 * mu);
	ck_assert_msg(fabs(n - mu) <= zbound(1) * sqrt(mu), "%g arrivals, expected %g", n, mu);
	aiwi_traffic_free(tr);
	c.rate = 1e-300;
	tr = make(&c);
	t = aiwi_traffic_next(tr, r, 0, NULL, NULL);
	ck_assert_msg(t > 1e290, "%g", t);
	gsl_rng_free(r);
	aiwi_traffic_free(tr);
}
END_TEST

/* Continuing from the previous arrival (where the process keeps its place
 * in the envelope) and restarting from a later time (one ulp later: the
 * place recomputed from the time) draw the same candidates, so the two
 * sequences of arrival times agree to rounding. */
START_TEST(diurnal_continue_equals_restart)
{
	/* rate 0.05/s: 24,192 arrivals a week, 200,000 span eight weeks */
	aiwi_traffic_conf c = diurnal(0.05, 10.0, 14.0);
	c.weekend_factor = 0.3;
	aiwi_traffic *a = make(&c), *b = make(&c);
	gsl_rng *ra = rng(12), *rb = rng(12);
	double ta = 0.0, tb = 0.0;
	for (int i = 0; i < 200000; i++) {
		ta = aiwi_traffic_next(a, ra, ta, NULL, NULL);
		tb = aiwi_traffic_next(b, rb, nextafter(tb, INFINITY), NULL, NULL);
		ck_assert_msg(fabs(ta - tb) <= 1e-9 * ta, "arrival %d: %.17g vs %.17g", i, ta, tb);
	}
	ck_assert(ta > 3 * WEEK); /* several weeks, weekends and their edges */
	gsl_rng_free(ra);
	gsl_rng_free(rb);
	aiwi_traffic_free(a);
	aiwi_traffic_free(b);
}
END_TEST

/* aiwi_traffic_next_n gives, bit for bit, the times of aiwi_traffic_next
 * called at each arrival, for every kind that draws (batches of 1, 7 and 64
 * in turn, over weeks, weekends and restarts at a later time), and leaves
 * the process where one-at-a-time draws would (the next single draw
 * agrees); a rate of 0 gives one +inf; a trace gives 0. */
START_TEST(next_n_equals_one_at_a_time)
{
	aiwi_traffic_conf cs[5];
	cs[0] = diurnal(0.05, 10.0, 14.0);
	cs[0].weekend_factor = 0.3;
	cs[1] = diurnal(1000.0, 10.0, 0.6);
	aiwi_traffic_conf_default(&cs[2]);
	cs[2].kind = AIW_TRAFFIC_POISSON;
	cs[2].rate = 3.0;
	cs[3] = diurnal(2.0, 4.0, 9.0);
	cs[3].kind = AIW_TRAFFIC_BURSTY;
	cs[3].cv = 3.0;
	cs[3].modulate = true;
	aiwi_traffic_conf_default(&cs[4]);
	cs[4].kind = AIW_TRAFFIC_BURSTY;
	cs[4].rate = 5.0;
	cs[4].cv = 0.5;
	const size_t sizes[3] = {1, 7, 64};
	for (int k = 0; k < 5; k++) {
		aiwi_traffic *a = make(&cs[k]), *b = make(&cs[k]);
		gsl_rng *ra = rng(31 + k), *rb = rng(31 + k);
		double ta = 0.0, tb = 0.0, buf[64];
		int total = 0;
		for (int round = 0; round < 3000; round++) {
			if (round % 500 == 499) { /* restart later */
				ta = tb = ta + 3600.0;
			}
			size_t n = sizes[round % 3];
			size_t m = aiwi_traffic_next_n(b, rb, tb, buf, n);
			ck_assert_uint_eq(m, n);
			for (size_t i = 0; i < m; i++, total++) {
				ta = aiwi_traffic_next(a, ra, ta, NULL, NULL);
				ck_assert_msg(memcmp(&ta, &buf[i], sizeof ta) == 0,
				              "kind %d, arrival %d: %.17g vs %.17g", k, total, ta, buf[i]);
			}
			tb = buf[m - 1];
		}
		double na = aiwi_traffic_next(a, ra, ta, NULL, NULL);
		double nb = aiwi_traffic_next(b, rb, tb, NULL, NULL);
		ck_assert_msg(memcmp(&na, &nb, sizeof na) == 0, "kind %d: next %.17g vs %.17g", k, na,
		              nb);
		gsl_rng_free(ra);
		gsl_rng_free(rb);
		aiwi_traffic_free(a);
		aiwi_traffic_free(b);
	}
	/* a rate of 0: no arrivals */
	aiwi_traffic_conf z = diurnal(0.0, 10.0, 14.0);
	aiwi_traffic *tz = make(&z);
	gsl_rng *rz = rng(1);
	double buf[8];
	ck_assert_uint_eq(aiwi_traffic_next_n(tz, rz, 0.0, buf, 8), 1);
	ck_assert(isinf(buf[0]) && buf[0] > 0);
	ck_assert_uint_eq(aiwi_traffic_next_n(tz, rz, 0.0, buf, 0), 0);
	aiwi_traffic_free(tz);
	/* a trace: one row at a time (its sizes and read errors) */
	aiwi_traffic_conf t;
	aiwi_traffic_conf_default(&t);
	t.kind = AIW_TRAFFIC_TRACE;
	t.trace_path = TRACE_DIR "AzureLLMInferenceTrace_code.csv";
	aiwi_traffic *tt = make(&t);
	ck_assert_uint_eq(aiwi_traffic_next_n(tt, NULL, 0.0, buf, 8), 0);
	aiwi_traffic_free(tt);
	gsl_rng_free(rz);
}
END_TEST

/* ======================================================================== */
/* bursty                                                                    */
/* ======================================================================== */
START_TEST(gamma_renewal_moments)
{
	static const double cvs[] = {0.5, 3.0};
	double cv = cvs[_i];
	aiwi_traffic_conf c;
	aiwi_traffic_conf_default(&c);
	c.kind = AIW_TRAFFIC_BURSTY;
	c.rate = 5.0;
	c.cv = cv;
	aiwi_traffic *tr = make(&c);
	gsl_rng *r = rng(77 + (unsigned long)_i);
	const int n = 1000000;
	double t = 0.0, s1 = 0.0, s2 = 0.0;
	/* sum of squares about the true mean keeps the variance exact in double */
	const double mu = 1.0 / c.rate;
	for (int i = 0; i < n; i++) {
		double u = aiwi_traffic_next(tr, r, t, NULL, NULL);
		double x = u - t;
		ck_assert(x >= 0.0);
		s1 += x - mu;
		s2 += (x - mu) * (x - mu);
		t = u;
	}
	double mean = mu + s1 / n;
	double var = (s2 - s1 * s1 / n) / (n - 1);
	double cv_hat = sqrt(var) / mean;
	double z = zbound(2);
	/* mean: sd = cv / (rate sqrt(n)) */
	double sd_mean = cv * mu / sqrt((double)n);
	ck_assert_msg(fabs(mean - mu) <= z * sd_mean, "cv %g: mean %g vs %g (sd %g)", cv, mean, mu,
	              sd_mean);
	/* log CV: var = (1/2 + cv^2/2)/n for gamma interarrivals (delta method
	 * with the gamma's third and fourth moments: skewness 2 cv, excess
	 * kurtosis 6 cv^2) */
	double sd_logcv = sqrt((0.5 + 0.5 * cv * cv) / n);
	ck_assert_msg(fabs(log(cv_hat / cv)) <= z * sd_logcv, "cv %g: estimated %g (sd of log %g)",
	              cv, cv_hat, sd_logcv);
	ck_assert_double_eq(aiwi_traffic_rate(tr, 1e5), 5.0);
	gsl_rng_free(r);
	aiwi_traffic_free(tr);
}
END_TEST

START_TEST(bursty_diurnal_hourly_counts)
{
	aiwi_traffic_conf c;
	aiwi_traffic_conf_default(&c);
	c.kind = AIW_TRAFFIC_BURSTY;
	c.modulate = true;
	c.rate = 6.0;
	c.cv = 2.0;
	c.peak_to_trough = 10.0;
	c.peak_hour = 20.0;
	c.weekend_factor = 0.25;
	aiwi_traffic *tr = make(&c);
	ck_assert_double_eq_tol(aiwi_traffic_rate(tr, 20 * HOUR), 6.0 * (1 + 9.0 / 11), 1e-12);
	ck_assert_double_eq_tol(aiwi_traffic_integral(tr, 0.7 * DAY, 9.2 * DAY),
	                        quad(tr, 0.7 * DAY, 9.2 * DAY), 1e-6);
	gsl_rng *r = rng(99);
	double n[168];
	hourly_counts(tr, r, n);
	/* a time-rescaled renewal: N over an interval of expected count mu has
	 * variance ~ cv^2 mu (renewal central limit theorem, Cox 1962) */
	double z = zbound(168), sumsq = 0.0;
	for (int h = 0; h < 168; h++) {
		double mu = aiwi_traffic_integral(tr, h * HOUR, (h + 1) * HOUR);
		double zh = (n[h] - mu) / (c.cv * sqrt(mu));
		sumsq += zh * zh;
		ck_assert_msg(fabs(zh) <= z, "hour %d: %g arrivals, expected %g (z = %.2f)", h, n[h],
		              mu, zh);
	}
	/* the variance really is cv^2 mu, not mu: the mean square z is near 1
	 * (a Poisson process here would give 1/cv^2 = 0.25) */
	ck_assert_msg(sumsq / 168 > 0.5 && sumsq / 168 < 2.0, "mean z^2 = %g", sumsq / 168);
	gsl_rng_free(r);
	aiwi_traffic_free(tr);
}
END_TEST

/* ======================================================================== */
/* determinism                                                               */
/* ======================================================================== */
START_TEST(seeded_determinism)
{
	aiwi_traffic_conf c;
	aiwi_traffic_conf_default(&c);
	static const aiwi_traffic_kind kinds[] = {AIW_TRAFFIC_POISSON, AIW_TRAFFIC_DIURNAL,
	                                         AIW_TRAFFIC_BURSTY, AIW_TRAFFIC_BURSTY};
	c.kind = kinds[_i];
	c.modulate = _i == 3;
	c.rate = 3.0;
	c.peak_to_trough = 5.0;
	c.cv = 1.7;
	aiwi_traffic *a = make(&c), *b = make(&c), *d = make(&c);
	gsl_rng *ra = rng(5), *rb = rng(5), *rd = rng(6);
	double ta = 0, tb = 0, td = 0;
	int differ = 0;
	for (int i = 0; i < 20000; i++) {
		ta = aiwi_traffic_next(a, ra, ta, NULL, NULL);
		tb = aiwi_traffic_next(b, rb, tb, NULL, NULL);
		td = aiwi_traffic_next(d, rd, td, NULL, NULL);
		ck_assert(memcmp(&ta, &tb, sizeof ta) == 0); /* bit for bit */
		differ += ta != td;
	}
	ck_assert_int_gt(differ, 19000); /* another seed, another sequence */
	/* reset and the same seed replay the sequence from the start */
	double first[100];
	ck_assert_int_eq(aiwi_traffic_reset(a), AIW_OK);
	gsl_rng_set(ra, 5);
	ta = 0;
	for (int i = 0; i < 100; i++)
		first[i] = ta = aiwi_traffic_next(a, ra, ta, NULL, NULL);
	ck_assert_int_eq(aiwi_traffic_reset(b), AIW_OK);
	gsl_rng_set(rb, 5);
	tb = 0;
	for (int i = 0; i < 100; i++) {
		tb = aiwi_traffic_next(b, rb, tb, NULL, NULL);
		ck_assert(memcmp(&tb, &first[i], sizeof tb) == 0);
	}
	gsl_rng_free(ra);
	gsl_rng_free(rb);
	gsl_rng_free(rd);
	aiwi_traffic_free(a);
	aiwi_traffic_free(b);
	aiwi_traffic_free(d);
}
END_TEST

/* ======================================================================== */
/* trace replay                                                              */
/* ======================================================================== */
typedef struct ref_trace {
	size_t n;
	int64_t *ticks; /* 1e-7 s since the first row */
	long *prompt, *output;
} ref_trace;

/* Read the Azure CSV here, independently of traffic.c. */
static ref_trace read_ref(const char *path)
{
	FILE *f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	ref_trace rt = {0, NULL, NULL, NULL};
	size_t cap = 0;
	char line[256];
	int64_t first = 0;
	ck_assert(fgets(line, sizeof line, f) != NULL);
	ck_assert(strncmp(line, "TIMESTAMP,ContextTokens,GeneratedTokens", 39) == 0);
	while (fgets(line, sizeof line, f)) {
		if (line[0] == '\r' || line[0] == '\n')
			continue;
		int Y, M, D, h, mi, s;
		char frac[16];
		long p, o;
		ck_assert_int_eq(sscanf(line, "%d-%d-%d %d:%d:%d.%7[0-9],%ld,%ld", &Y, &M, &D, &h, &mi,
		                        &s, frac, &p, &o),
		                 9);
		ck_assert(Y == 2023 && M == 11 && D == 16);
		ck_assert_uint_eq(strlen(frac), 7);
		int64_t tk = (((int64_t)h * 60 + mi) * 60 + s) * 10000000 + atol(frac);
		if (rt.n == cap) {
			cap = cap ? 2 * cap : 1024;
			rt.ticks = realloc(rt.ticks, cap * sizeof *rt.ticks);
			rt.prompt = realloc(rt.prompt, cap * sizeof *rt.prompt);
			rt.output = realloc(rt.output, cap * sizeof *rt.output);
		}
		if (rt.n == 0)
			first = tk;
		rt.ticks[rt.n] = tk - first;
		rt.prompt[rt.n] = p;
		rt.output[rt.n] = o;
		rt.n++;
	}
	fclose(f);
	return rt;
}

static void free_ref(ref_trace *rt)
{
	free(rt->ticks);
	free(rt->prompt);
	free(rt->output);
}

START_TEST(azure_replay)
{
	static const char *const files[] = {"AzureLLMInferenceTrace_code.csv",
	                                    "AzureLLMInferenceTrace_conv.csv"};
	static const size_t rows[] = {8819, 19366};
	char path[1024];
	snprintf(path, sizeof path, "%s%s", TRACE_DIR, files[_i]);
	ref_trace rt = read_ref(path);
	ck_assert_uint_eq(rt.n, rows[_i]);

	aiwi_traffic_conf c;
	aiwi_traffic_conf_default(&c);
	c.kind = AIW_TRAFFIC_TRACE;
	c.trace_path = path;
	aiwi_traffic *tr = make(&c);
	aiwi_trace_info info;
	ck_assert_int_eq(aiwi_traffic_trace_info(tr, &info), AIW_OK);
	ck_assert_uint_eq(info.rows, rt.n);
	ck_assert_int_eq(info.fields, 3);
	ck_assert_double_eq_tol(info.span_s, rt.ticks[rt.n - 1] * 1e-7, 1e-9);

	/* per-minute counts from the timestamps, computed in integers */
	size_t nmin = (size_t)(rt.ticks[rt.n - 1] / 600000000) + 1;
	long *want = calloc(nmin, sizeof *want), *got = calloc(nmin + 1, sizeof *got);
	double sum_p = 0;
	for (size_t i = 0; i < rt.n; i++) {
		want[rt.ticks[i] / 600000000]++;
		sum_p += (double)rt.prompt[i];
	}
	ck_assert_double_eq_tol(info.mean_prompt, sum_p / rt.n, 1e-9);
	gsl_rng *r = rng(1);
	double t = 0, p, o;
	size_t n = 0;
	for (;;) {
		double u = aiwi_traffic_next(tr, r, t, &p, &o);
		if (isinf(u))
			break;
		ck_assert_msg(!isnan(u), "%s", aiwi_traffic_errmsg(tr));
		ck_assert_uint_lt(n, rt.n);
		ck_assert_msg(fabs(u - rt.ticks[n] * 1e-7) <= 1e-9, "row %zu: %.9f vs %.9f", n, u,
		              rt.ticks[n] * 1e-7);
		ck_assert(p == (double)rt.prompt[n] && o == (double)rt.output[n]);
		ck_assert(u >= t);
		size_t m = (size_t)floor(u / 60.0);
		ck_assert_uint_lt(m, nmin);
		got[m]++;
		t = u;
		n++;
	}
	ck_assert_uint_eq(n, rt.n);
	for (size_t m = 0; m < nmin; m++)
		ck_assert_msg(got[m] == want[m], "minute %zu: %ld vs %ld", m, got[m], want[m]);
	ck_assert(isinf(aiwi_traffic_next(tr, r, t, NULL, NULL))); /* stays ended */

	/* the rate profile integrates to the row count and follows the minutes */
	ck_assert_double_eq_tol(aiwi_traffic_integral(tr, 0, 1e9), (double)rt.n, 1e-6);
	ck_assert_double_eq_tol(aiwi_traffic_integral(tr, 0, 60.0), (double)want[0], 1e-9);
	ck_assert_double_eq_tol(aiwi_traffic_rate(tr, 30.0), want[0] / 60.0, 1e-12);
	ck_assert_double_eq_tol(aiwi_traffic_integral(tr, 120, 180), (double)want[2], 1e-9);

	/* reset rewinds; a later `now` skips the rows before it */
	ck_assert_int_eq(aiwi_traffic_reset(tr), AIW_OK);
	ck_assert(aiwi_traffic_next(tr, r, 0, NULL, NULL) == 0.0);
	double u = aiwi_traffic_next(tr, r, 1800.0, NULL, NULL);
	size_t k = 0;
	while (rt.ticks[k] < 18000000000LL)
		k++;
	ck_assert_double_eq_tol(u, rt.ticks[k] * 1e-7, 1e-9);
	aiwi_traffic_free(tr);

	/* time_scale 2 and loop: two passes, the second one period later */
	c.time_scale = 2.0;
	c.loop = true;
	tr = make(&c);
	double period = rt.ticks[rt.n - 1] * 1e-7 * rt.n / (rt.n - 1) / 2.0;
	ck_assert_int_eq(aiwi_traffic_trace_info(tr, &info), AIW_OK);
	ck_assert_double_eq_tol(info.period_s, period, 1e-9);
	ck_assert_double_eq_tol(aiwi_traffic_mean_rate(tr), rt.n / period, 1e-9);
	t = 0;
	for (size_t i = 0; i < 2 * rt.n + 1; i++) {
		u = aiwi_traffic_next(tr, r, t, NULL, NULL);
		size_t j = i % rt.n;
		double want_t = (double)(i / rt.n) * period + rt.ticks[j] * 1e-7 / 2.0;
		ck_assert_msg(fabs(u - want_t) <= 1e-8, "arrival %zu: %.9f vs %.9f", i, u, want_t);
		t = u;
	}
	/* looping: the expected count over k periods is k * rows */
	ck_assert_double_eq_tol(aiwi_traffic_integral(tr, 0, 3 * period), 3.0 * rt.n, 1e-6);
	/* `now` far ahead skips whole periods without reading them */
	u = aiwi_traffic_next(tr, r, 1000 * period + 1.0, NULL, NULL);
	ck_assert(u >= 1000 * period + 1.0 && u < 1001 * period);
	gsl_rng_free(r);
	aiwi_traffic_free(tr);
	free(want);
	free(got);
	free_ref(&rt);
}
END_TEST

/* ---- small files written here ---- */
static char tmp_path[256];

static const char *write_tmp(const char *data, size_t len)
{
	snprintf(tmp_path, sizeof tmp_path, "test_traffic_XXXXXX");
	int fd = mkstemp(tmp_path);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq((int)write(fd, data, len), (int)len);
	close(fd);
	return tmp_path;
}

/* Create a trace from text; returns the status, message in err. */
static aiw_status try_trace(const char *data, size_t len, bool loop, char *err, size_t errlen,
                            aiwi_traffic **out)
{
	const char *p = write_tmp(data, len);
	aiwi_traffic_conf c;
	aiwi_traffic_conf_default(&c);
	c.kind = AIW_TRAFFIC_TRACE;
	c.trace_path = p;
	c.loop = loop;
	aiwi_traffic *tr = NULL;
	err[0] = 0;
	aiw_status st = aiwi_traffic_new(&tr, &c, err, errlen);
	if (out)
		*out = tr;
	else
		aiwi_traffic_free(tr);
	return st;
}

#define EXPECT_ERR(text, code, ...)                                                        \
	do {                                                                               \
		char err_[512];                                                            \
		static const char data_[] = text;                                          \
		aiw_status st_ = try_trace(data_, sizeof data_ - 1, false, err_, sizeof err_, \
		                           NULL);                                          \
		ck_assert_msg(st_ == (code), "%s: got %s (%s)", #text, aiw_status_name(st_),  \
		              err_);                                                       \
		const char *want_[] = {__VA_ARGS__};                                       \
		for (size_t i_ = 0; i_ < sizeof want_ / sizeof *want_; i_++)              \
			ck_assert_msg(strstr(err_, want_[i_]) != NULL, "'%s' lacks '%s'", err_, \
			              want_[i_]);                                          \
		unlink(tmp_path);                                                          \
	} while (0)

static char line_prefix[300];
static const char *at_line(int line)
{
	snprintf(line_prefix, sizeof line_prefix, "%s:%d: ", tmp_path, line);
	return line_prefix;
}

/* A trace longer than the rate profile's 4096 bins of 60 s (2.8 days): the
 * profile doubles its bin width, merging pairs, until the trace fits (10
 * days: 240 s bins).  Hours are whole bins, so the integral over each hour
 * is that hour's row count exactly (1 to 5 rows, 100 s to 248 s into it,
 * across two bins), and over the whole trace the row count. */
START_TEST(trace_profile_long_span)
{
	enum { HOURS = 240 };
	char *data = malloc(HOURS * 5 * 16);
	ck_assert_ptr_nonnull(data);
	size_t len = 0, rows = 0;
	for (int h = 0; h < HOURS; h++)
		for (int k = 0; k <= h % 5; k++, rows++)
			len += (size_t)sprintf(data + len, "%d\n", h * 3600 + 100 + 37 * k);
	char err[512];
	aiwi_traffic *tr;
	ck_assert_msg(try_trace(data, len, false, err, sizeof err, &tr) == AIW_OK, "%s", err);
	free(data);
	for (int h = 0; h < HOURS; h++) {
		double mu = aiwi_traffic_integral(tr, h * 3600.0, (h + 1) * 3600.0);
		ck_assert_msg(fabs(mu - (h % 5 + 1)) <= 1e-9, "hour %d: %.12g rows, want %d", h, mu,
		              h % 5 + 1);
	}
	ck_assert_double_eq_tol(aiwi_traffic_integral(tr, 0, 1e9), (double)rows, 1e-9);
	aiwi_traffic_free(tr);
	unlink(tmp_path);
}
END_TEST

START_TEST(trace_crlf_header_blank_lines)
{
	static const char data[] = "TIMESTAMP,ContextTokens,GeneratedTokens\r\n"
	                           "\r\n"
	                           "2023-11-16 23:59:59.5000000,100,10\r\n"
	                           "   \r\n"
	                           "# a comment\r\n"
	                           "2023-11-17 00:00:00.2500000,200,20\r\n"
	                           "2023-11-17 00:00:00.2500000,300,0\r\n"
	                           "2023-11-17 00:00:01,400,40"; /* no line end */
	char err[512];
	aiwi_traffic *tr;
	ck_assert_msg(try_trace(data, sizeof data - 1, false, err, sizeof err, &tr) == AIW_OK, "%s",
	              err);
	gsl_rng *r = rng(3);
	static const double want_t[] = {0.0, 0.75, 0.75, 1.5};
	static const double want_p[] = {100, 200, 300, 400};
	double t = 0, p, o;
	for (int i = 0; i < 4; i++) {
		t = aiwi_traffic_next(tr, r, t, &p, &o);
		ck_assert_double_eq_tol(t, want_t[i], 1e-12);
		ck_assert_double_eq(p, want_p[i]);
	}
	ck_assert(o == 40.0);
	ck_assert(isinf(aiwi_traffic_next(tr, r, t, &p, &o)));
	ck_assert(isnan(p));
	gsl_rng_free(r);
	aiwi_traffic_free(tr);
	unlink(tmp_path);

	/* plain seconds, relative to the first row; the timestamp alone */
	static const char secs[] = "10.5\n11\n\n13.25\n";
	ck_assert(try_trace(secs, sizeof secs - 1, true, err, sizeof err, &tr) == AIW_OK);
	r = rng(3);
	aiwi_trace_info info;
	aiwi_traffic_trace_info(tr, &info);
	ck_assert_uint_eq(info.rows, 3);
	ck_assert_int_eq(info.fields, 1);
	ck_assert(isnan(info.mean_prompt));
	/* period = span + mean gap = 2.75 + 1.375 */
	ck_assert_double_eq_tol(info.period_s, 4.125, 1e-12);
	static const double want_s[] = {0.0, 0.5, 2.75, 4.125, 4.625};
	t = 0;
	for (int i = 0; i < 5; i++) {
		t = aiwi_traffic_next(tr, r, t, &p, &o);
		ck_assert_double_eq_tol(t, want_s[i], 1e-12);
		ck_assert(isnan(p) && isnan(o));
	}
	gsl_rng_free(r);
	aiwi_traffic_free(tr);
	unlink(tmp_path);
}
END_TEST

START_TEST(trace_malformed)
{
	EXPECT_ERR("TIMESTAMP,ContextTokens,GeneratedTokens\r\n"
	           "2023-11-16 18:17:03.9799600,4808,10\r\n"
	           "2023-11-16 18:17:04.0000000,abc,10\r\n",
	           AIW_EPARSE, at_line(3), "ContextTokens", "'abc'", "not a number >= 0");
	EXPECT_ERR("2023-11-16 18:17:03.9799600,4808,10\n"
	           "2023-11-16 18:17:04.0000000,1,-5\n",
	           AIW_EPARSE, at_line(2), "GeneratedTokens", "'-5'");
	EXPECT_ERR("TIMESTAMP,ContextTokens,GeneratedTokens\n"
	           "2023-11-16 18:17:03.9\0" "799600,4808,10\n",
	           AIW_EPARSE, at_line(2), "NUL byte");
	EXPECT_ERR("2023-11-16 18:17:03.9799600,4808,10\n"
	           "2023-11-16 18:17:05.0000000,1,1\n"
	           "2023-11-16 18:17:05.0000000,1,1\n" /* equal: accepted */
	           "2023-11-16 18:17:04.0000000,1,1\n",
	           AIW_EPARSE, at_line(4), "earlier than the previous row's (line 3)",
	           "'2023-11-16 18:17:04.0000000'");
	EXPECT_ERR("2023-02-29 18:17:03.9799600,4808,10\n", AIW_EPARSE, at_line(1),
	           "'2023-02-29 18:17:03.9799600'", "YYYY-MM-DD HH:MM:SS");
	EXPECT_ERR("2023-11-16 18:17:03,1,2\n2023-11-16 18:17:04,1\n", AIW_EPARSE, at_line(2),
	           "found 2 fields where the first row has 3");
	EXPECT_ERR("2023-11-16 18:17:03,1\n", AIW_EPARSE, at_line(1), "expected 3 fields");
	EXPECT_ERR("2023-11-16 18:17:03,1,2\n12.5,1,2\n", AIW_EPARSE, at_line(2),
	           "number of seconds but the first row's is a date");
	EXPECT_ERR("0x10,1,2\n", AIW_EPARSE, at_line(1), "'0x10'");
	EXPECT_ERR("1.0,1,2\nnan,1,2\n", AIW_EPARSE, at_line(2), "'nan'");
	EXPECT_ERR("1.0,1,2\n2.0,inf,2\n", AIW_EPARSE, at_line(2), "'inf'");
	EXPECT_ERR("nan,1,2\n", AIW_EPARSE, "no data rows"); /* a first line of text is a header */
	EXPECT_ERR("TIMESTAMP,ContextTokens,GeneratedTokens\r\n\r\n", AIW_EPARSE, "no data rows");
	EXPECT_ERR("", AIW_EPARSE, "no data rows");
	/* a line too long for the buffer */
	{
		size_t len = AIW_TRACE_MAX_LINE + 100;
		char *big = malloc(len + 1);
		memset(big, '1', len);
		big[len] = '\n';
		char err[512];
		ck_assert_int_eq(try_trace(big, len + 1, false, err, sizeof err, NULL), AIW_EPARSE);
		ck_assert_msg(strstr(err, at_line(1)) && strstr(err, "line longer than"), "%s", err);
		unlink(tmp_path);
		free(big);
	}
	/* looping needs two rows over a positive span */
	{
		char err[512];
		ck_assert_int_eq(try_trace("1.0,1,1\n", 8, true, err, sizeof err, NULL), AIW_EINVAL);
		ck_assert_msg(strstr(err, "at least 2 rows"), "%s", err);
		unlink(tmp_path);
	}
	/* missing file */
	{
		aiwi_traffic_conf c;
		aiwi_traffic_conf_default(&c);
		c.kind = AIW_TRAFFIC_TRACE;
		c.prefix = "inference.chat";
		c.trace_path = "no/such/trace.csv";
		c.base_dir = "/nonexistent";
		aiwi_traffic *tr = NULL;
		char err[512];
		ck_assert_int_eq(aiwi_traffic_new(&tr, &c, err, sizeof err), AIW_EIO);
		ck_assert_ptr_null(tr);
		ck_assert_msg(strstr(err, "inference.chat.trace_path") &&
		                  strstr(err, "'/nonexistent/no/such/trace.csv'"),
		              "%s", err);
	}
}
END_TEST

START_TEST(datetime_parser)
{
	int64_t s, ns;
	ck_assert(aiwi_trace_parse_datetime("1970-01-01 00:00:00", 19, &s, &ns));
	ck_assert(s == 0 && ns == 0);
	ck_assert(aiwi_trace_parse_datetime("2023-11-16 18:17:03.9799600", 27, &s, &ns));
	ck_assert_int_eq(s, 1700158623); /* date -u -d '2023-11-16 18:17:03' +%s */
	ck_assert_int_eq(ns, 979960000);
	ck_assert(aiwi_trace_parse_datetime("2024-02-29T00:00:00.5", 21, &s, &ns));
	ck_assert_int_eq(s, 1709164800);
	ck_assert_int_eq(ns, 500000000);
	ck_assert(aiwi_trace_parse_datetime("2000-03-01 00:00:00.1234567891", 30, &s, &ns));
	ck_assert_int_eq(ns, 123456789);
	ck_assert(!aiwi_trace_parse_datetime("2023-02-29 00:00:00", 19, &s, &ns));
	ck_assert(!aiwi_trace_parse_datetime("2023-11-16 24:00:00", 19, &s, &ns));
	ck_assert(!aiwi_trace_parse_datetime("2023-11-16 18:17:03.", 20, &s, &ns));
	ck_assert(!aiwi_trace_parse_datetime("2023-11-16 18:17:03x", 20, &s, &ns));
	ck_assert(!aiwi_trace_parse_datetime("2023-1-16 18:17:03", 18, &s, &ns));
}
END_TEST

/* ======================================================================== */
/* validation                                                                */
/* ======================================================================== */
static void expect_invalid(const aiwi_traffic_conf *c, aiw_status code, const char *msg)
{
	aiwi_traffic *tr = (aiwi_traffic *)&tr; /* must be reset to NULL */
	char err[512] = "";
	ck_assert_int_eq(aiwi_traffic_new(&tr, c, err, sizeof err), code);
	ck_assert_ptr_null(tr);
	ck_assert_msg(strstr(err, msg) != NULL, "'%s' lacks '%s'", err, msg);
}

START_TEST(conf_validation)
{
	aiwi_traffic_conf c;
	aiwi_traffic_conf_default(&c);
	c.prefix = "inference.chat";
	c.rate = -1;
	expect_invalid(&c, AIW_ERANGE, "inference.chat.rate = -1 /s is out of range: expected 0 <= rate <= 1e9 /s");
	c.rate = NAN;
	expect_invalid(&c, AIW_ERANGE, "inference.chat.rate = nan");
	aiwi_traffic_conf_default(&c);
	c.kind = AIW_TRAFFIC_DIURNAL;
	c.peak_to_trough = 0.5;
	expect_invalid(&c, AIW_ERANGE, "peak_to_trough = 0.5 is out of range: expected 1 <=");
	c.peak_to_trough = 3;
	c.peak_hour = 24;
	expect_invalid(&c, AIW_ERANGE, "peak_hour = 24 h is out of range: expected 0 <= peak_hour < 24");
	c.peak_hour = 3;
	c.weekend_factor = -1;
	expect_invalid(&c, AIW_ERANGE, "weekend_factor = -1 is out of range");
	aiwi_traffic_conf_default(&c);
	c.kind = AIW_TRAFFIC_BURSTY;
	c.cv = 0;
	expect_invalid(&c, AIW_ERANGE, "cv = 0 is out of range: expected 0 < cv <= 100");
	aiwi_traffic_conf_default(&c);
	c.kind = AIW_TRAFFIC_TRACE;
	expect_invalid(&c, AIW_EINVAL, "trace_path is not set");
	c.trace_path = TRACE_DIR "AzureLLMInferenceTrace_code.csv";
	c.time_scale = 0;
	expect_invalid(&c, AIW_ERANGE, "time_scale = 0 is out of range: expected 0 < time_scale");
	c.kind = (aiwi_traffic_kind)42;
	expect_invalid(&c, AIW_EINVAL, "kind = 42 is unknown");
	/* a diurnal field is not checked for a plain Poisson process */
	aiwi_traffic_conf_default(&c);
	c.peak_hour = 99;
	aiwi_traffic *tr = make(&c);
	aiwi_traffic_trace_info(tr, NULL);
	aiwi_trace_info info;
	ck_assert_int_eq(aiwi_traffic_trace_info(tr, &info), AIW_EINVAL);
	aiwi_traffic_free(tr);
	aiwi_traffic_free(NULL);
}
END_TEST

static Suite *traffic_suite(void)
{
	Suite *s = suite_create("traffic");
	TCase *tc = tcase_create("processes");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, poisson_counts);
	tcase_add_test(tc, diurnal_profile_closed_forms);
	tcase_add_test(tc, diurnal_hourly_counts);
	tcase_add_test(tc, diurnal_minute_counts);
	tcase_add_test(tc, diurnal_extreme_ratio_and_empty_weekend);
	tcase_add_test(tc, diurnal_low_rate);
	tcase_add_test(tc, next_n_equals_one_at_a_time);
	tcase_add_test(tc, diurnal_continue_equals_restart);
	tcase_add_loop_test(tc, gamma_renewal_moments, 0, 2);
	tcase_add_test(tc, bursty_diurnal_hourly_counts);
	tcase_add_loop_test(tc, seeded_determinism, 0, 4);
	suite_add_tcase(s, tc);
	TCase *tt = tcase_create("trace");
	tcase_set_timeout(tt, 300);
	tcase_add_loop_test(tt, azure_replay, 0, 2);
	tcase_add_test(tt, trace_crlf_header_blank_lines);
	tcase_add_test(tt, trace_profile_long_span);
	tcase_add_test(tt, trace_malformed);
	tcase_add_test(tt, datetime_parser);
	suite_add_tcase(s, tt);
	TCase *tv = tcase_create("validation");
	tcase_add_test(tv, conf_validation);
	suite_add_tcase(s, tv);
	return s;
}

AIW_TEST_MAIN(traffic_suite)
