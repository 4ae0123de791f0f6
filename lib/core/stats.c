/*
 * stats.c - streaming statistics: log-bucketed latency histograms with a
 * guaranteed relative error on quantiles, and running moments.
 *
 * Histogram: log-linear buckets (HdrHistogram's layout, Tene) on a fixed
 * range, with DDSketch's relative-error guarantee on quantiles (Masson, Rim
 * and Lee, "DDSketch: a fast and fully-mergeable quantile sketch with
 * relative-error guarantees", VLDB 2019): memory does not grow with the
 * sample count, histograms merge bucket for bucket, and the bucket of a
 * sample is read from its IEEE bits (stats.h), so that adding one costs a
 * shift and the counter's cache line.  (In 0.1.0 the buckets were
 * geometric, b_i = min gamma^i, found from a table of the top bits and
 * corrected against stored bounds: three dependent loads and a branch that
 * mispredicted, about a tenth of bench/inference_day's time.)
 * gsl_histogram is not used as the store because its increment does a
 * binary search and keeps counts as doubles.
 *
 * Running moments: gsl_rstat (Welford 1962 update; P^2 median of Jain and
 * Chlamtac 1985).
 */
#include "core/stats.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rstat.h>

/* ======================================================================== */
/* aiwi_hist                                                                  */
/* ======================================================================== */

/* Bucket edge i of h (0 <= i <= nbuckets): the double whose bits start
 * bucket base + i; b_0 is min_value itself (the first bucket cut there). */
static inline double hist_edge(const aiwi_hist *h, uint32_t i)
{
	if (i == 0)
		return h->min_value;
	uint64_t b = (h->base + i) << h->shift;
	double v;
	memcpy(&v, &b, sizeof v);
	return v;
}

static void hist_clear_counters(aiwi_hist *h)
{
	h->n = h->n_zero = h->n_under = h->n_over = 0;
	h->n_nan = h->n_rejected = 0;
	h->sum = h->sum_c = 0.0;
	h->min = INFINITY;
	h->max = -INFINITY;
	h->under_min = INFINITY;
	h->under_max = -INFINITY;
	h->over_min = INFINITY;
}

/* Index of the bucket [b_i, b_{i+1}) holding x, for b_0 <= x < b_n. */
static inline uint32_t hist_index(const aiwi_hist *h, double x)
{
	uint64_t bits;
	memcpy(&bits, &x, sizeof bits);
	return (uint32_t)((bits >> h->shift) - h->base);
}

/* The buckets [*lo, *hi) that may hold counts (*lo >= *hi: none): those
 * between the buckets of the smallest and the largest sample, which the
 * hot path's add keeps (min, max) without tracking the range itself. */
static void hist_span(const aiwi_hist *h, uint32_t *lo, uint32_t *hi)
{
	*lo = 0;
	*hi = 0;
	if (!h->counts || h->n <= h->n_zero + h->n_under + h->n_over)
		return;
	*lo = h->min >= h->min_value ? hist_index(h, h->min) : 0;
	*hi = h->max < h->top ? hist_index(h, h->max) + 1 : h->nbuckets;
}

aiw_status aiwi_hist_init(aiwi_hist *h, double min_value, double max_value, double rel_err,
                         char *errbuf, size_t errlen)
{
	if (!h)
		return aiwi_buferr(errbuf, errlen, AIW_EINVAL, "histogram: NULL handle");
	memset(h, 0, sizeof *h);
	if (!(isfinite(min_value) && min_value > 0.0))
		return aiwi_buferr(errbuf, errlen, AIW_ERANGE,
		                   "histogram min_value = %g is out of range: expected a finite "
		                   "value > 0",
		                   min_value);
	if (!(isfinite(max_value) && max_value > min_value))
		return aiwi_buferr(errbuf, errlen, AIW_ERANGE,
		                   "histogram max_value = %g is out of range: expected a finite "
		                   "value > min_value = %g",
		                   max_value, min_value);
	if (!(rel_err > 0.0 && rel_err <= 0.5))
		return aiwi_buferr(errbuf, errlen, AIW_ERANGE,
		                   "histogram rel_err = %g is out of range: expected 0 < rel_err "
		                   "<= 0.5",
		                   rel_err);
	if (min_value < DBL_MIN)
		return aiwi_buferr(errbuf, errlen, AIW_ERANGE,
		                   "histogram min_value = %g is out of range: expected a normal "
		                   "double >= %.17g (2^-1022)",
		                   min_value, DBL_MIN);
	/* 2^k buckets per binade: the widest, [2^e, 2^e (1 + w)) with
	 * w = 2^-k, has its optimal point within w / (2 + w) of its values */
	uint32_t k = 0;
	while (k < 52 && ldexp(1.0, -(int)k) / (2.0 + ldexp(1.0, -(int)k)) > rel_err)
		k++;
	uint32_t shift = 52 - k;
	double last = nextafter(max_value, 0.0); /* the largest value bucketed */
	uint64_t b0, b1;
	memcpy(&b0, &min_value, sizeof b0);
	memcpy(&b1, &last, sizeof b1);
	b0 >>= shift;
	b1 >>= shift;
	uint64_t nb64 = b1 - b0 + 1;
	if (nb64 > AIW_HIST_MAX_BUCKETS)
		return aiwi_buferr(errbuf, errlen, AIW_ELIMIT,
		                   "histogram of [%g, %g) at rel_err = %g needs %llu buckets: at "
		                   "most %u allowed (widen rel_err or narrow the range)",
		                   min_value, max_value, rel_err, (unsigned long long)nb64,
		                   AIW_HIST_MAX_BUCKETS);
	if (((b1 + 1) << shift) >= UINT64_C(0x7ff0000000000000))
		return aiwi_buferr(errbuf, errlen, AIW_ERANGE,
		                   "histogram max_value = %g is out of range: its last bucket "
		                   "would end beyond the largest double",
		                   max_value);
	uint32_t nb = (uint32_t)nb64;
	uint64_t *counts = calloc(nb, sizeof *counts);
	if (!counts)
		return aiwi_buferr(errbuf, errlen, AIW_ENOMEM,
		                   "histogram: cannot allocate %u buckets", nb);
	h->min_value = min_value;
	h->max_value = max_value;
	h->rel_err = rel_err;
	h->base = b0;
	h->shift = shift;
	h->nbuckets = nb;
	h->counts = counts;
	h->top = hist_edge(h, nb);
	hist_clear_counters(h);
	return AIW_OK;
}

aiw_status aiwi_hist_init_like(aiwi_hist *h, const aiwi_hist *src, bool copy_counts)
{
	if (!h || !src || !src->counts)
		return AIW_EINVAL;
	aiwi_hist tmp;
	aiw_status st = aiwi_hist_init(&tmp, src->min_value, src->max_value, src->rel_err, NULL, 0);
	if (st != AIW_OK)
		return st;
	if (copy_counts) {
		uint64_t *counts = tmp.counts;
		tmp = *src;
		tmp.counts = counts;
		memcpy(counts, src->counts, (size_t)src->nbuckets * sizeof *counts);
	}
	*h = tmp;
	return AIW_OK;
}

void aiwi_hist_free(aiwi_hist *h)
{
	if (!h)
		return;
	free(h->counts);
	memset(h, 0, sizeof *h);
}

void aiwi_hist_reset(aiwi_hist *h)
{
	if (!h || !h->counts)
		return;
	uint32_t lo, hi;
	hist_span(h, &lo, &hi);
	if (lo < hi)
		memset(h->counts + lo, 0, (size_t)(hi - lo) * sizeof *h->counts);
	hist_clear_counters(h);
}

/* Neumaier's compensated summation (Neumaier 1974). */
static inline void kahan_add(double *sum, double *c, double x)
{
	double t = *sum + x;
	if (fabs(*sum) >= fabs(x))
		*c += (*sum - t) + x;
	else
		*c += (x - t) + *sum;
	*sum = t;
}

aiw_status aiwi_hist_add_n(aiwi_hist *h, double x, uint64_t count)
{
	if (isnan(x)) {
		h->n_nan += count;
		return AIW_EINVAL;
	}
	if (x < 0.0 || isinf(x)) {
		h->n_rejected += count;
		return AIW_ERANGE;
	}
	if (count == 0)
		return AIW_OK;
	h->n += count;
	if (count == 1)
		kahan_add(&h->sum, &h->sum_c, x);
	else
		kahan_add(&h->sum, &h->sum_c, x * (double)count);
	if (x < h->min)
		h->min = x;
	if (x > h->max)
		h->max = x;
	if (x == 0.0) {
		h->n_zero += count;
	} else if (x < h->min_value) {
		h->n_under += count;
		if (x < h->under_min)
			h->under_min = x;
		if (x > h->under_max)
			h->under_max = x;
	} else if (x >= h->top) {
		h->n_over += count;
		if (x < h->over_min)
			h->over_min = x;
	} else {
		uint32_t i = hist_index(h, x);
		h->counts[i] += count;
	}
	return AIW_OK;
}

aiw_status aiwi_hist_add(aiwi_hist *h, double x)
{
	/* the common case inline (stats.h), the rest with its status */
	if (AIW_LIKELY(x >= h->min_value && x < h->top)) {
		aiwi_hist_add_fast(h, x);
		return AIW_OK;
	}
	return aiwi_hist_add_n(h, x, 1);
}

aiw_status aiwi_hist_merge(aiwi_hist *h, const aiwi_hist *src)
{
	if (!h || !src || !h->counts || !src->counts)
		return AIW_EINVAL;
	if (h->min_value != src->min_value || h->max_value != src->max_value ||
	    h->rel_err != src->rel_err || h->nbuckets != src->nbuckets)
		return AIW_EINVAL;
	uint32_t lo, hi;
	hist_span(src, &lo, &hi);
	for (uint32_t i = lo; i < hi; i++)
		h->counts[i] += src->counts[i];
	h->n += src->n;
	h->n_zero += src->n_zero;
	h->n_under += src->n_under;
	h->n_over += src->n_over;
	h->n_nan += src->n_nan;
	h->n_rejected += src->n_rejected;
	kahan_add(&h->sum, &h->sum_c, src->sum);
	h->sum_c += src->sum_c;
	if (src->min < h->min)
		h->min = src->min;
	if (src->max > h->max)
		h->max = src->max;
	if (src->under_min < h->under_min)
		h->under_min = src->under_min;
	if (src->under_max > h->under_max)
		h->under_max = src->under_max;
	if (src->over_min < h->over_min)
		h->over_min = src->over_min;
	return AIW_OK;
}

double aiwi_hist_mean(const aiwi_hist *h)
{
	return h->n ? (h->sum + h->sum_c) / (double)h->n : NAN;
}

double aiwi_hist_sum(const aiwi_hist *h)
{
	return h->sum + h->sum_c;
}

double aiwi_hist_min(const aiwi_hist *h)
{
	return h->n ? h->min : NAN;
}

double aiwi_hist_max(const aiwi_hist *h)
{
	return h->n ? h->max : NAN;
}

/* The point of [lo, hi] with the least worst-case relative error. */
static inline double optimal_point(double lo, double hi)
{
	return lo == hi ? lo : 2.0 * lo * hi / (lo + hi);
}

static inline double clamp_extremes(const aiwi_hist *h, double v)
{
	return v < h->min ? h->min : v > h->max ? h->max : v;
}

/* Reported value of the samples of bucket i (clamped to the exact extremes,
 * which only brings it closer to the samples it stands for). */
static inline double bucket_value(const aiwi_hist *h, uint32_t i)
{
	return clamp_extremes(h, optimal_point(hist_edge(h, i), hist_edge(h, i + 1)));
}

static inline double under_value(const aiwi_hist *h)
{
	return clamp_extremes(h, optimal_point(h->under_min, h->under_max));
}

static inline double over_value(const aiwi_hist *h)
{
	return clamp_extremes(h, optimal_point(h->over_min, h->max));
}

/* Rank k in [1, n] of quantile q: ceil(q n), with q n taken as the nearest
 * integer when within 1e-9 (relative) of it, so that 0.99 * 1e6 is rank
 * 990000 and not 990001 because 0.99 is not exact in binary. */
static uint64_t quantile_rank(double q, uint64_t n)
{
	double qn = q * (double)n;
	double r = nearbyint(qn);
	double k = fabs(qn - r) <= 1e-9 * fmax(1.0, qn) ? r : ceil(qn);
	if (k < 1.0)
		return 1;
	if (k >= (double)n)
		return n;
	return (uint64_t)k;
}

double aiwi_hist_quantile(const aiwi_hist *h, double q)
{
	if (!h || !h->counts || h->n == 0 || !(q >= 0.0 && q <= 1.0))
		return NAN;
	if (q == 0.0)
		return h->min;
	if (q == 1.0)
		return h->max;
	uint64_t k = quantile_rank(q, h->n);
	uint64_t cum = h->n_zero;
	if (k <= cum)
		return 0.0;
	cum += h->n_under;
	if (k <= cum)
		return under_value(h);
	uint32_t lo, hi;
	hist_span(h, &lo, &hi);
	for (uint32_t i = lo; i < hi; i++) {
		cum += h->counts[i];
		if (k <= cum)
			return bucket_value(h, i);
	}
	return over_value(h);
}

uint64_t aiwi_hist_count_le(const aiwi_hist *h, double x)
{
	if (!h || !h->counts || !(x >= 0.0) || h->n == 0)
		return 0;
	if (x >= h->max)
		return h->n;
	uint64_t cum = h->n_zero;
	if (h->n_under && under_value(h) <= x)
		cum += h->n_under;
	uint32_t lo, hi;
	hist_span(h, &lo, &hi);
	for (uint32_t i = lo; i < hi; i++) {
		if (h->counts[i] == 0)
			continue;
		if (bucket_value(h, i) > x)
			return cum; /* values only grow from here */
		cum += h->counts[i];
	}
	if (h->n_over && over_value(h) <= x)
		cum += h->n_over;
	return cum;
}

void aiwi_hist_counts_le(const aiwi_hist *h, const double *bounds, size_t nb, uint64_t *out)
{
	/* aiwi_hist_count_le at each of the ascending bounds, in one pass */
	size_t j = 0;
	if (!h || !h->counts || h->n == 0) {
		for (; j < nb; j++)
			out[j] = 0;
		return;
	}
	for (; j < nb && !(bounds[j] >= 0.0); j++)
		out[j] = 0;
	uint64_t cum = h->n_zero;
	bool under = h->n_under != 0;
	uint32_t lo, hi;
	hist_span(h, &lo, &hi);
	uint32_t i = lo;
	for (; j < nb; j++) {
		double x = bounds[j];
		if (x >= h->max) {
			out[j] = h->n;
			continue;
		}
		if (under && under_value(h) <= x) {
			cum += h->n_under;
			under = false;
		}
		for (; i < hi; i++) {
			if (h->counts[i] == 0)
				continue;
			if (bucket_value(h, i) > x)
				break;
			cum += h->counts[i];
		}
		uint64_t c = cum;
		if (i >= hi && h->n_over && over_value(h) <= x)
			c += h->n_over;
		out[j] = c;
	}
}

double aiwi_hist_fraction_le(const aiwi_hist *h, double x)
{
	if (!h || h->n == 0)
		return NAN;
	return (double)aiwi_hist_count_le(h, x) / (double)h->n;
}

bool aiwi_hist_next_bucket(const aiwi_hist *h, aiwi_hist_iter *it, double *lo, double *hi,
                          uint64_t *count)
{
	if (!h || !h->counts || !it)
		return false;
	/* 0: zero bucket, 1: underflow, 2 .. nb+1: buckets, nb+2: overflow */
	const size_t nb = h->nbuckets;
	for (; *it <= nb + 2; (*it)++) {
		size_t k = *it;
		double l, u;
		uint64_t c;
		if (k == 0) {
			c = h->n_zero;
			l = u = 0.0;
		} else if (k == 1) {
			c = h->n_under;
			l = h->under_min;
			u = h->under_max;
		} else if (k == nb + 2) {
			c = h->n_over;
			l = h->over_min;
			u = h->max;
		} else {
			uint32_t blo, bhi;
			hist_span(h, &blo, &bhi);
			if (k - 2 < blo) {
				*it = (size_t)blo + 1; /* skip untouched buckets */
				continue;
			}
			if (k - 2 >= bhi) {
				*it = nb + 1;
				continue;
			}
			c = h->counts[k - 2];
			l = hist_edge(h, (uint32_t)(k - 2));
			u = hist_edge(h, (uint32_t)(k - 1));
		}
		if (c == 0)
			continue;
		(*it)++;
		if (lo)
			*lo = l;
		if (hi)
			*hi = u;
		if (count)
			*count = c;
		return true;
	}
	return false;
}

size_t aiwi_hist_bytes(const aiwi_hist *h)
{
	if (!h || !h->counts)
		return 0;
	return (size_t)h->nbuckets * sizeof *h->counts;
}

double aiwi_hist_bound(const aiwi_hist *h, uint32_t i)
{
	if (!h || !h->counts || i > h->nbuckets)
		return NAN;
	return hist_edge(h, i);
}

/* ------------------------------------------------------------------------ */
/* windowed                                                                  */
/* ------------------------------------------------------------------------ */
aiw_status aiwi_winhist_init(aiwi_winhist *w, double min_value, double max_value, double rel_err,
                            char *errbuf, size_t errlen)
{
	if (!w)
		return aiwi_buferr(errbuf, errlen, AIW_EINVAL, "histogram: NULL handle");
	memset(w, 0, sizeof *w);
	aiw_status st = aiwi_hist_init(&w->all, min_value, max_value, rel_err, errbuf, errlen);
	if (st == AIW_OK)
		st = aiwi_hist_init_like(&w->win, &w->all, false);
	if (st != AIW_OK)
		aiwi_winhist_free(w);
	return st;
}

void aiwi_winhist_free(aiwi_winhist *w)
{
	if (!w)
		return;
	aiwi_hist_free(&w->all);
	aiwi_hist_free(&w->win);
}

aiw_status aiwi_winhist_add(aiwi_winhist *w, double x)
{
	aiwi_hist_add(&w->win, x);
	return aiwi_hist_add(&w->all, x);
}

double aiwi_winhist_roll(aiwi_winhist *w, double q)
{
	double v = aiwi_hist_quantile(&w->win, q);
	aiwi_hist_reset(&w->win);
	return v;
}

void aiwi_winhist_reset(aiwi_winhist *w)
{
	aiwi_hist_reset(&w->all);
	aiwi_hist_reset(&w->win);
}

/* ======================================================================== */
/* aiwi_rstat                                                                 */
/* ======================================================================== */
aiw_status aiwi_rstat_init(aiwi_rstat *s)
{
	if (!s)
		return AIW_EINVAL;
	s->n_nonfinite = 0;
	s->ws = gsl_rstat_alloc();
	return s->ws ? AIW_OK : AIW_ENOMEM;
}

void aiwi_rstat_free(aiwi_rstat *s)
{
	if (!s)
		return;
	if (s->ws)
		gsl_rstat_free(s->ws);
	s->ws = NULL;
}

void aiwi_rstat_reset(aiwi_rstat *s)
{
	if (s && s->ws)
		gsl_rstat_reset(s->ws);
	if (s)
		s->n_nonfinite = 0;
}

aiw_status aiwi_rstat_add(aiwi_rstat *s, double x)
{
	if (!isfinite(x)) {
		s->n_nonfinite++;
		return AIW_EINVAL;
	}
	gsl_rstat_add(x, s->ws); /* cannot fail for finite x */
	return AIW_OK;
}

size_t aiwi_rstat_n(const aiwi_rstat *s)
{
	return s && s->ws ? gsl_rstat_n(s->ws) : 0;
}

double aiwi_rstat_mean(const aiwi_rstat *s)
{
	return aiwi_rstat_n(s) ? gsl_rstat_mean(s->ws) : NAN;
}

double aiwi_rstat_variance(const aiwi_rstat *s)
{
	return aiwi_rstat_n(s) >= 2 ? gsl_rstat_variance(s->ws) : NAN;
}

double aiwi_rstat_sd(const aiwi_rstat *s)
{
	return aiwi_rstat_n(s) >= 2 ? gsl_rstat_sd(s->ws) : NAN;
}

double aiwi_rstat_min(const aiwi_rstat *s)
{
	return aiwi_rstat_n(s) ? gsl_rstat_min(s->ws) : NAN;
}

double aiwi_rstat_max(const aiwi_rstat *s)
{
	return aiwi_rstat_n(s) ? gsl_rstat_max(s->ws) : NAN;
}

double aiwi_rstat_median(const aiwi_rstat *s)
{
	return aiwi_rstat_n(s) ? gsl_rstat_median(s->ws) : NAN;
}

double aiwi_rstat_ci_halfwidth(const aiwi_rstat *s, double level)
{
	size_t n = aiwi_rstat_n(s);
	if (n < 2 || !(level > 0.0 && level < 1.0))
		return NAN;
	/* Student t quantile with n - 1 degrees of freedom (gsl_cdf_tdist_Pinv) */
	double t = gsl_cdf_tdist_Pinv(0.5 * (1.0 + level), (double)(n - 1));
	return t * gsl_rstat_sd(s->ws) / sqrt((double)n);
}
