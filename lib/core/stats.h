/*
 * stats.h - streaming statistics (internal): a log-bucketed latency
 * histogram with a guaranteed relative error on every quantile, and a
 * running mean/variance/min/max wrapper over gsl_rstat.
 *
 * Nothing here is installed; every symbol has hidden visibility.
 */
#ifndef AIW_STATS_H
#define AIW_STATS_H

#include "core/internal.h"

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* ======================================================================== */
/* aiwi_hist: log-linear histogram (HdrHistogram's layout, Tene; the        */
/* relative-error quantile guarantee of DDSketch, Masson, Rim and Lee,      */
/* VLDB 2019).                                                               */
/*                                                                           */
/* Each binade [2^e, 2^(e+1)) is cut into 2^k equal buckets, so a bucket is  */
/* a run of doubles sharing their sign, exponent and first k mantissa bits:  */
/* the bucket of x is (bits(x) >> (52 - k)) - base, a shift and a           */
/* subtraction (no logarithm, no table, no search).  A bucket [L, U) has     */
/* U / L <= 1 + 2^-k; a sample is reported as the relative-error-optimal     */
/* point 2 L U / (L + U), within w / (2 + w) of every value of the bucket    */
/* (w = 2^-k), and k is the smallest with w / (2 + w) <= alpha.  Hence every */
/* quantile is within alpha of the exact order statistic of the same rank.   */
/* alpha = 1%: k = 6, 64 buckets per binade, error at most 0.78%.            */
/* Bucket bounds are the doubles whose bits start a bucket (b_0 = min_value, */
/* the first bucket cut there); they are computed, not stored.  Memory is    */
/* fixed at init (8 bytes per bucket: 2,762 buckets, 22 KiB, for             */
/* [1e-6 s, 1e7 s] at alpha = 1%), whatever the number of samples.           */
/* min_value must be a normal double (subnormals are not log-spaced).        */
/*                                                                           */
/* Values: 0 is counted exactly (zero bucket); 0 < x < min_value goes to an  */
/* underflow bucket and x >= b_n (the last bound, the first b_i >= max_value)*/
/* to an overflow bucket; each of these two is reported by the optimal point */
/* between the smallest and largest value it holds (exact when they are      */
/* equal, no error bound otherwise).  Negative and infinite values are       */
/* rejected, NaN is ignored; both are counted.                               */
/*                                                                           */
/* Quantile convention (nearest rank, Hyndman and Fan 1996 type 1): q in     */
/* [0, 1] selects the sample of rank k = max(1, ceil(q n)) in sorted order  */
/* (q n is snapped to the nearest integer when within 1e-9 of it, so that    */
/* q = 0.99 of n = 1e6 is rank 990000 although 0.99 is inexact in binary);   */
/* q = 0 and q = 1 return the exact min and max.  An empty histogram gives   */
/* NAN.                                                                      */
/* ======================================================================== */
typedef struct aiwi_hist {
	double min_value, max_value; /* requested range; buckets cover [b_0, b_n) */
	double rel_err;              /* alpha: guaranteed relative error */
	double top;                  /* b_n, the end of the bucketed range */
	uint64_t base;               /* bits(min_value) >> shift: bucket 0 */
	uint32_t shift;              /* 52 - k */
	uint32_t nbuckets;
	uint64_t *counts;      /* nbuckets counts (the touched ones lie between the
	                          buckets of min and max: stats.c, hist_span) */
	uint64_t n;            /* accepted samples (zero + under + buckets + over) */
	uint64_t n_zero, n_under, n_over;
	uint64_t n_nan;        /* NaN values ignored */
	uint64_t n_rejected;   /* negative or infinite values rejected */
	double sum, sum_c;     /* Neumaier-compensated running sum of samples */
	double min, max;       /* exact extremes of accepted samples */
	double under_min, under_max; /* extremes of the underflow bucket */
	double over_min;       /* smallest value in the overflow bucket */
} aiwi_hist;

/* Default range for latencies (s) and the default relative error. */
#define AIW_HIST_MIN_S 1e-6
#define AIW_HIST_MAX_S 1e7
#define AIW_HIST_REL_ERR 0.01
/* Upper bound on the number of buckets (memory guard: 16 B per bucket). */
#define AIW_HIST_MAX_BUCKETS 1000000u

/* Allocate the buckets for [min_value, max_value) with relative error
 * rel_err in (0, 0.5].  min_value > 0 and max_value > min_value, both
 * finite.  errbuf (may be NULL) names the bad argument.  On failure h is
 * left empty (aiwi_hist_free is still safe). */
aiw_status aiwi_hist_init(aiwi_hist *h, double min_value, double max_value, double rel_err,
                         char *errbuf, size_t errlen);
/* Same range, relative error and (optionally) contents as src. */
aiw_status aiwi_hist_init_like(aiwi_hist *h, const aiwi_hist *src, bool copy_counts);
void aiwi_hist_free(aiwi_hist *h);
/* Forget every sample; keeps the buckets (O(touched buckets)). */
void aiwi_hist_reset(aiwi_hist *h);

/* Add one sample in O(1).  AIW_OK when accepted; AIW_EINVAL for NaN
 * (ignored, counted in n_nan); AIW_ERANGE for negative or infinite values
 * (rejected, counted in n_rejected). */
aiw_status aiwi_hist_add(aiwi_hist *h, double x);
/* Add the same value count times (count 0 is a no-op). */
aiw_status aiwi_hist_add_n(aiwi_hist *h, double x, uint64_t count);

/* aiwi_hist_add for the library's hot paths (serving.c adds four latencies
 * per request): the common case, a value inside the bucketed range (NaN is
 * not), inline and updated as aiwi_hist_add_n does it for count 1 (the same
 * operations in the same order, so the same bits); anything else goes to
 * aiwi_hist_add_n.  No status: the callers add latencies >= 0. */
static inline void aiwi_hist_add_fast(aiwi_hist *h, double x)
{
	if (AIW_LIKELY(x >= h->min_value && x < h->top)) { /* b_0 = min_value */
		/* x >= min_value >= 2^-1022: a normal double, log-linear bits */
		uint64_t bits;
		memcpy(&bits, &x, sizeof bits);
		uint32_t i = (uint32_t)((bits >> h->shift) - h->base);
		h->n++;
		/* Neumaier's compensated summation (Neumaier 1974), as stats.c */
		/* (the larger magnitude first, by selects: the same operations) */
		double s = h->sum, t = s + x;
		bool sb = fabs(s) >= fabs(x);
		double big = sb ? s : x, small = sb ? x : s;
		h->sum_c += (big - t) + small;
		h->sum = t;
		h->min = x < h->min ? x : h->min;
		h->max = x > h->max ? x : h->max;
		h->counts[i]++;
		return;
	}
	(void)aiwi_hist_add_n(h, x, 1);
}
/* Add every sample of src to h.  Both must have the same range and
 * relative error (AIW_EINVAL otherwise, h unchanged).  The result equals
 * adding all of src's samples to h, bucket for bucket. */
aiw_status aiwi_hist_merge(aiwi_hist *h, const aiwi_hist *src);

static inline uint64_t aiwi_hist_count(const aiwi_hist *h) { return h->n; }
/* Exact mean of the accepted samples (compensated sum / n); NAN if empty. */
double aiwi_hist_mean(const aiwi_hist *h);
/* Exact extremes; NAN if empty. */
double aiwi_hist_min(const aiwi_hist *h);
double aiwi_hist_max(const aiwi_hist *h);
/* Exact sum of the accepted samples (0 if empty). */
double aiwi_hist_sum(const aiwi_hist *h);
/* aiwi_hist_count_le at each of nb ascending bounds, into out, in one pass. */
void aiwi_hist_counts_le(const aiwi_hist *h, const double *bounds, size_t nb, uint64_t *out);
/* Nearest-rank quantile, q in [0, 1] (NAN for q outside or when empty). */
double aiwi_hist_quantile(const aiwi_hist *h, double q);
/* Number of samples whose reported value is <= x (each sample counts as
 * its bucket's reported value, as aiwi_hist_quantile does): exact for every
 * sample farther than rel_err (relative) from x.  Monotone in x; x = +inf
 * gives the count, x < 0 or NaN gives 0.  For Prometheus `le` buckets. */
uint64_t aiwi_hist_count_le(const aiwi_hist *h, double x);
/* Fraction of samples <= x, as aiwi_hist_count_le / count (NAN if empty). */
double aiwi_hist_fraction_le(const aiwi_hist *h, double x);

/* Iteration over the non-empty buckets in increasing order, including the
 * zero, underflow and overflow buckets.  Start with *it = 0; each call
 * fills [lo, hi) (zero bucket: lo = hi = 0; underflow: [under_min, under_max];
 * overflow: [over_min, max]) and the count, and returns false at the end. */
typedef size_t aiwi_hist_iter;
bool aiwi_hist_next_bucket(const aiwi_hist *h, aiwi_hist_iter *it, double *lo, double *hi,
                          uint64_t *count);
/* Heap bytes owned by h (fixed at init). */
size_t aiwi_hist_bytes(const aiwi_hist *h);
/* Boundary b_i of the bucketed range (i <= nbuckets), for exporters that
 * want `le` bounds on which aiwi_hist_count_le is exact. */
double aiwi_hist_bound(const aiwi_hist *h, uint32_t i);

/* ------------------------------------------------------------------------ */
/* Windowed quantiles: a cumulative histogram plus one for the current       */
/* window (e.g. the sample interval), reset at each window end.  Adding     */
/* costs two O(1) updates; rolling costs O(buckets touched in the window). */
/* ------------------------------------------------------------------------ */
typedef struct aiwi_winhist {
	aiwi_hist all; /* every sample since init/reset */
	aiwi_hist win; /* samples since the last roll */
} aiwi_winhist;

aiw_status aiwi_winhist_init(aiwi_winhist *w, double min_value, double max_value, double rel_err,
                            char *errbuf, size_t errlen);
void aiwi_winhist_free(aiwi_winhist *w);
aiw_status aiwi_winhist_add(aiwi_winhist *w, double x);
/* Quantile q of the current window (NAN if the window is empty), then
 * start a new window.  Read other window figures from w->win first. */
double aiwi_winhist_roll(aiwi_winhist *w, double q);
void aiwi_winhist_reset(aiwi_winhist *w);

/* ======================================================================== */
/* aiwi_rstat: running mean, variance, min, max (and P^2 median) over        */
/* gsl_rstat (Welford's update), with a Student-t confidence half-width.    */
/* Non-finite values are ignored and counted.                               */
/* ======================================================================== */
typedef struct aiwi_rstat {
	void *ws;         /* gsl_rstat_workspace */
	uint64_t n_nonfinite;
} aiwi_rstat;

/* AIW_ENOMEM on allocation failure (GSL also reports it to its error
 * handler, which aiw_sim_create turns off unless the application set one). */
aiw_status aiwi_rstat_init(aiwi_rstat *s);
void aiwi_rstat_free(aiwi_rstat *s);
void aiwi_rstat_reset(aiwi_rstat *s);
/* AIW_OK, or AIW_EINVAL for a non-finite x (ignored, counted). */
aiw_status aiwi_rstat_add(aiwi_rstat *s, double x);
size_t aiwi_rstat_n(const aiwi_rstat *s);
double aiwi_rstat_mean(const aiwi_rstat *s);     /* NAN if n = 0 */
double aiwi_rstat_variance(const aiwi_rstat *s); /* unbiased (n - 1); NAN if n < 2 */
double aiwi_rstat_sd(const aiwi_rstat *s);       /* NAN if n < 2 */
double aiwi_rstat_min(const aiwi_rstat *s);      /* NAN if n = 0 */
double aiwi_rstat_max(const aiwi_rstat *s);      /* NAN if n = 0 */
double aiwi_rstat_median(const aiwi_rstat *s);   /* P^2 estimate; NAN if n = 0 */
/* Half-width of the two-sided confidence interval of the mean at level
 * in (0, 1): t_{n-1, (1+level)/2} * sd / sqrt(n).  NAN if n < 2. */
double aiwi_rstat_ci_halfwidth(const aiwi_rstat *s, double level);

/* ======================================================================== */
/* aiwi_xsum: an exact, order-independent sum of doubles.                    */
/*                                                                           */
/* A floating-point sum depends on the order of its terms; where the order  */
/* depends on when a run is observed (a stepped run settles booked-ahead     */
/* work at its stops, a single run at the next events), results would move  */
/* in their last bits.  The sum is kept in fixed point, units of 2^-50 (a    */
/* term's truncation error <= 2^-50 ~ 8.9e-16 in the term's unit, the same  */
/* for +x and -x, so that a booking taken back cancels exactly), in a       */
/* 128-bit integer: integer addition is associative, so every order gives   */
/* the same sum, rounded to double once, when read.  Terms of magnitude     */
/* >= 2^12 convert through the 128-bit path; a non-finite term, or one of   */
/* magnitude >= 2^60 (never reached by the models), makes the sum read NaN. */
/* Without a 128-bit integer type the sum is a double (order-dependent).    */
/* ======================================================================== */
#if defined(__SIZEOF_INT128__)
typedef struct aiwi_xsum {
	__int128 fixed; /* x 2^-50; |fixed| >= 2^125: poisoned */
} aiwi_xsum;

static inline void aiwi_xsum_add(aiwi_xsum *s, double x)
{
	double y = x * 0x1p50;
	if (y > -0x1p62 && y < 0x1p62)
		s->fixed += (int64_t)y;
	else if (y > -0x1p110 && y < 0x1p110)
		s->fixed += (__int128)y;
	else /* sticky: fast-path terms (< 2^62) cannot bring it under 2^125 */
		s->fixed = (__int128)1 << 126;
}

static inline double aiwi_xsum_value(const aiwi_xsum *s)
{
	const __int128 poison = (__int128)1 << 125;
	return s->fixed >= poison || s->fixed <= -poison ? NAN : (double)s->fixed * 0x1p-50;
}
#else
typedef struct aiwi_xsum {
	double sum;
} aiwi_xsum;

static inline void aiwi_xsum_add(aiwi_xsum *s, double x)
{
	s->sum += x;
}

static inline double aiwi_xsum_value(const aiwi_xsum *s)
{
	return s->sum;
}
#endif

#endif /* AIW_STATS_H */
