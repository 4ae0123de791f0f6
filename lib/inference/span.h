/*
 * span.h - the roofline maths of a serving span, pure (no fleet state):
 * what lib/inference/fleet_*.c compute a span's times with, and what
 * tests/unit/test_span.c checks against closed forms.
 *
 * A span is the prefill of what a replica just admitted followed by decode
 * iterations of its batch until the next change of the batch.  With P
 * parameters, W weight bytes, k KV bytes per token, F the replica's FLOP/s
 * and B its memory bandwidth (both derated: mfu, mem_bw_efficiency):
 *   prefill of T prompt tokens:   max(T 2P/F, W/B)           (prefill_time)
 *   decode iteration j of n requests holding S context tokens when the
 *   span starts (each iteration adds one token per request):
 *     max(c, a + b j)  with c = n 2P/F, a = W/B + S k/B, b = n k/B
 * The iterations only lengthen, so from iteration js on (span_memory_from) the
 * memory term is the larger and the times form an arithmetic series:
 *   T(K) = sum_{j<K} max(c, a + b j)
 *        = c K                                         for K <= js
 *        = c js + m a2 + b m (m - 1) / 2, m = K - js,
 *          a2 = a + b js                               for K >  js  (span_time)
 * and its inverse, the iterations done x seconds into the decode part,
 * the largest K with T(K) <= x (span_iterations_by), starts from the bound
 * m <= x2 / a2 (x2 = x - c js: T(m) >= m a2) or the root of the quadratic
 * and steps to the exact K.
 */
#ifndef AIW_INFERENCE_SPAN_H
#define AIW_INFERENCE_SPAN_H

#include "core/internal.h"

#include <math.h>
#include <stdint.h>

/* A roofline span: a prefill of prefill_s seconds from `start` (the first
 * tokens of first_tokens requests at its end, prefill_tokens prompt tokens
 * prefilled), then decode iteration j of its `batch` requests takes
 * max(compute_s, memory_s + memory_step_s j) (c, a and b above); it ends
 * after end_iteration iterations; from iteration memory_from on (js above,
 * kept: it is read by every span_time, and cuts call span_time several
 * times), the memory term is the larger. */
typedef struct span {
	double start, prefill_s, prefill_tokens, compute_s, memory_s, memory_step_s, memory_from,
	        end_iteration;
	uint32_t batch, first_tokens;
} span;

/* floor(q) for q >= 0 by a conversion instead of the libm call (floor is
 * one without SSE4.1, which the baseline x86-64 lacks); some value <= -1
 * for q < 0, which every caller clamps to 0; NaN stays NaN. */
static inline double floor_nonneg(double q)
{
	if (q >= 0.0 && q < 4503599627370496.0) /* 2^52 */
		return (double)(int64_t)q;
	return q < 0.0 ? -1.0 : floor(q);
}

/* First decode iteration j whose memory time a + b j reaches the compute floor c. */
static inline double span_memory_from(const span *sp)
{
	if (sp->memory_s >= sp->compute_s)
		return 0;
	if (sp->memory_step_s <= 0)
		return INFINITY;
	return ceil((sp->compute_s - sp->memory_s) / sp->memory_step_s);
}

/* Memory time of the first k decode iterations, sum_{j<k} (a + b j): times
 * the replica's (derated) bandwidth, the bytes they read, weights and KV
 * cache, compute-bound or not. */
static inline double span_memory_time(const span *sp, double k)
{
	return k * sp->memory_s + sp->memory_step_s * k * (k - 1) * 0.5;
}

/* Time of the first k decode iterations: sum_{j<k} max(c, a + b j). */
static double span_time(const span *sp, double k)
{
	double js = sp->memory_from;
	if (k <= js)
		return sp->compute_s * k;
	double m = k - js, a2 = sp->memory_s + sp->memory_step_s * js;
	return sp->compute_s * js + m * a2 + sp->memory_step_s * m * (m - 1) * 0.5;
}

/* Decode iterations completed x seconds after the prefill part: the largest
 * k with T(k) <= x; *t_next gets T(k + 1), which the last test computed
 * (NAN for x <= 0, where nothing is computed), so that a cut at boundary
 * k + 1 needs no second evaluation.  Inlined, as span_decode: each is on
 * most requests' path twice, and their calls cost 2.4% of the time
 * (bench/interleave_day, both slices); ag_set and complete inlined too
 * were 1.3% slower. */
static AIW_INLINE double span_iterations_by_next(const span *sp, double x, double *t_next)
{
	*t_next = NAN;
	if (!(x > 0))
		return 0;
	double js = sp->memory_from, k;
	if (x < sp->compute_s * js) {
		k = floor_nonneg(x / sp->compute_s);
	} else {
		double x2 = x - (isinf(js) ? 0 : sp->compute_s * js), a2 = sp->memory_s + sp->memory_step_s * js;
		double m;
		/* x2 / a2 bounds m from above (the iterations only lengthen:
		 * T(m) >= m a2) and is off by about sb m^2 / (2 a2) iterations:
		 * taken when that is under half a one (the loops below then
		 * take a step at most), else the root of the quadratic (a
		 * square root more on the chain); the loops make k exact */
		m = floor_nonneg(x2 / a2);
		if (sp->memory_step_s > 0 && sp->memory_step_s * m * m > a2) {
			double p = a2 - 0.5 * sp->memory_step_s;
			m = floor_nonneg((-p + sqrt(p * p + 2 * sp->memory_step_s * x2)) / sp->memory_step_s);
		}
		k = js + (m > 0 ? m : 0);
	}
	while (k > 0 && span_time(sp, k) > x)
		k--;
	double tn;
	while ((tn = span_time(sp, k + 1)) <= x)
		k++;
	*t_next = tn;
	return k;
}

static double span_iterations_by(const span *sp, double x)
{
	double tn;
	return span_iterations_by_next(sp, x, &tn);
}

/* The prefill of tokens > 0 prompt tokens at s_per_token seconds each of
 * compute (2P/F), or one read of the weights (weights_s = W/B), whichever
 * is longer. */
static inline double span_prefill_time(double tokens, double s_per_token, double weights_s)
{
	double tc = tokens * s_per_token; /* both finite and > 0: no fmax call */
	return tc > weights_s ? tc : weights_s;
}

/* ---- the iteration model on a span ----
 * An iteration of the per-iteration model (iteration.h) takes
 * t = c0 + cm m + cu u + cv v (aiwi_iter_fold).  A decode iteration has
 * m = u = n sequences and v = S_j = S + n j tokens of context at iteration
 * j of the span (each adds a token per sequence), so that
 *   t_j = (c0 + cv S + (cm + cu) n) + cv n j,
 * the span's arithmetic series with no compute floor: compute_s = 0 (its
 * terms add, they do not take a max), memory_s = c0 + cv S + (cm + cu) n,
 * memory_step_s = cv n, hence memory_from = 0 (given t_0 >= 0); cv >= 0
 * keeps the iterations lengthening, which the inverse needs.  The
 * roofline's decode is the same form with compute_per_seq = 2P/F,
 * fixed_s = W/B, per_token_s = k/B and per_seq_s = 0 (an exact zero: the
 * same sums as max(c, a + b j)).  A prefill of m prompts, T tokens in
 * all, Q the sum of their squared lengths, takes c0 + cm m + cu T + cv Q
 * (span_iteration_prefill, c the prefill's fold). */
static inline void span_decode_terms(span *sp, double n, double S, double compute_per_seq,
                                     double fixed_s, double per_token_s, double per_seq_s)
{
	sp->compute_s = n * compute_per_seq;
	sp->memory_s = fixed_s + S * per_token_s + n * per_seq_s;
	sp->memory_step_s = n * per_token_s;
	sp->memory_from = span_memory_from(sp);
}

static inline double span_iteration_prefill(const double c[4], double m, double T, double Q)
{
	return c[0] + c[1] * m + c[2] * T + c[3] * Q;
}

#endif /* AIW_INFERENCE_SPAN_H */
