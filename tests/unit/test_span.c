/* test_span.c - the roofline maths of a serving span (lib/inference/span.h)
 * against closed forms and direct sums: the time of a prefill, of the
 * first K decode iterations, the iteration where the memory term takes
 * over, and the iterations done by a time (the inverse), with the bound
 * its search starts from.  The figures are chosen exactly representable
 * (integers, halves, powers of two), so that the checks are exact. */
#include "inference/span.h"
#include "inference/iteration.h"
#include "hw/hw.h"
#include "../testutil.h"

#include <math.h>

/* A span's decode terms: iteration j takes max(c, a + b j). */
static span decode(double c, double a, double b)
{
	span s = {0};
	s.compute_s = c;
	s.memory_s = a;
	s.memory_step_s = b;
	s.memory_from = span_memory_from(&s);
	s.end_iteration = INFINITY;
	s.batch = 1;
	return s;
}

/* sum_{j<k} max(c, a + b j), term by term */
static double direct_time(const span *s, uint64_t k)
{
	double t = 0;
	for (uint64_t j = 0; j < k; j++)
		t += fmax(s->compute_s, s->memory_s + s->memory_step_s * (double)j);
	return t;
}

START_TEST(prefill_time_is_the_roofline)
{
	/* compute-bound: 1024 tokens at 2^-20 s each = 2^-10 s > one read of
	 * the weights (2^-12 s) */
	ck_assert(span_prefill_time(1024, 0x1p-20, 0x1p-12) == 0x1p-10);
	/* memory-bound: 16 tokens take 2^-16 s, less than the weights' read */
	ck_assert(span_prefill_time(16, 0x1p-20, 0x1p-12) == 0x1p-12);
	/* the closed form max(T 2P/F, W/B) of a 70e9-parameter model in BF16 on
	 * 4 GPUs of 989 TFLOP/s at mfu 0.5 and 3.35 TB/s at 0.7 */
	double F = 4 * 989e12 * 0.5, B = 4 * 3.35e12 * 0.7, P = 70e9, W = 2 * P;
	for (double T = 1; T <= 1 << 16; T *= 2)
		ck_assert(span_prefill_time(T, 2 * P / F, W / B) == fmax(T * (2 * P / F), W / B));
}
END_TEST

START_TEST(memory_term_takes_over)
{
	/* c = 8, a = 1, b = 1/2: a + b j >= c from j = ceil(7 / 0.5) = 14 */
	span s = decode(8, 1, 0.5);
	ck_assert(s.memory_from == 14);
	ck_assert(1 + 0.5 * 13 < 8 && 1 + 0.5 * 14 >= 8);
	/* not on a half: ceil(7 / 0.75) = 10 */
	ck_assert(span_memory_from(&(span){.compute_s = 8, .memory_s = 1, .memory_step_s = 0.75}) == 10);
	/* memory-bound from the start; never (the memory term does not grow) */
	ck_assert(span_memory_from(&(span){.compute_s = 1, .memory_s = 2, .memory_step_s = 0.5}) == 0);
	ck_assert(span_memory_from(&(span){.compute_s = 1, .memory_s = 1, .memory_step_s = 0}) == 0);
	ck_assert(isinf(span_memory_from(&(span){.compute_s = 2, .memory_s = 1, .memory_step_s = 0})));
}
END_TEST

START_TEST(time_of_k_iterations)
{
	const double terms[][3] = {
		{8, 1, 0.5},  /* compute-bound for 14 iterations, then memory */
		{1, 2, 0.5},  /* memory-bound from the start */
		{2, 1, 0},    /* compute-bound for ever */
		{3, 3, 0},    /* both equal, constant */
		{1, 1, 1},    /* the quadratic part at once */
	};
	for (size_t i = 0; i < sizeof terms / sizeof *terms; i++) {
		span s = decode(terms[i][0], terms[i][1], terms[i][2]);
		for (uint64_t k = 0; k <= 300; k++)
			ck_assert_msg(span_time(&s, (double)k) == direct_time(&s, k),
			              "terms %zu, k %llu: %.17g, directly %.17g", i,
			              (unsigned long long)k, span_time(&s, (double)k), direct_time(&s, k));
	}
	/* the closed form c js + m a2 + b m (m - 1) / 2 at K = 114 (m = 100,
	 * a2 = 1 + 0.5 14 = 8): 8 14 + 100 8 + 0.5 100 99 / 2 */
	span s = decode(8, 1, 0.5);
	ck_assert(span_time(&s, 114) == 112 + 800 + 2475);
	/* and c K before js */
	ck_assert(span_time(&s, 14) == 112);
}
END_TEST

/* The iterations done by x: the largest K with T(K) <= x, and T(K + 1). */
static void check_inverse(const span *s, double x)
{
	double tn = 0, k = span_iterations_by_next(s, x, &tn);
	if (!(x > 0)) {
		ck_assert(k == 0 && isnan(tn));
		return;
	}
	ck_assert_msg(k >= 0 && span_time(s, k) <= x && span_time(s, k + 1) > x,
	              "x %.17g: %.17g iterations (T %.17g, T(k + 1) %.17g)", x, k, span_time(s, k),
	              span_time(s, k + 1));
	ck_assert(tn == span_time(s, k + 1));
	ck_assert(span_iterations_by(s, x) == k);
	/* the bound the search starts from: past js, m <= x2 / a2 (T(m) >= m a2) */
	double js = s->memory_from;
	if (isfinite(js) && x >= s->compute_s * js) {
		double a2 = s->memory_s + s->memory_step_s * js;
		ck_assert(k - js <= floor((x - s->compute_s * js) / a2));
	}
}

START_TEST(iterations_done_by_a_time)
{
	const double terms[][3] = {{8, 1, 0.5}, {1, 2, 0.5}, {2, 1, 0}, {1, 1, 1}, {0.25, 0.5, 0.125}};
	for (size_t i = 0; i < sizeof terms / sizeof *terms; i++) {
		span s = decode(terms[i][0], terms[i][1], terms[i][2]);
		check_inverse(&s, 0);
		check_inverse(&s, -1);
		for (uint64_t k = 1; k <= 400; k++) {
			double t = span_time(&s, (double)k);
			/* at a boundary exactly: k; just before it: k - 1; between */
			ck_assert(span_iterations_by(&s, t) == (double)k);
			ck_assert(span_iterations_by(&s, nextafter(t, 0)) == (double)k - 1);
			check_inverse(&s, t);
			check_inverse(&s, 0.5 * (t + span_time(&s, (double)k + 1)));
		}
	}
	/* far into the quadratic part (the square root's start): T(K) = K +
	 * K (K - 1) / 2 with c = a = b = 1, exact up to 2^53 */
	span s = decode(1, 1, 1);
	for (double K = 1e3; K <= 1e7; K *= 10) {
		double t = K + K * (K - 1) / 2;
		ck_assert(span_iterations_by(&s, t) == K);
		ck_assert(span_iterations_by(&s, t - 1) == K - 1);
		check_inverse(&s, t + 0.5 * K);
	}
	/* compute-bound for ever: floor(x / c) */
	span c = decode(2, 1, 0);
	ck_assert(span_iterations_by(&c, 7) == 3 && span_iterations_by(&c, 8) == 4);
}
END_TEST

/* The iteration model on a span (span.h's mapping): the span's decode
 * terms from the fold give, for K iterations of n sequences from S tokens
 * of context, the brute-force sum of the model's time evaluated term by
 * term at each iteration's own sizes (n, n, S + n j), and the inverse gives
 * the exact count; the prefill is the model's time at (m, T, Q). */
START_TEST(iteration_model_on_a_span)
{
	const aiwi_gpu_spec *g = aiwi_hw_gpu(NULL, "H100-SXM");
	ck_assert(g != NULL);
	for (double tp = 1; tp <= 8; tp *= 2) {
		aiwi_iter_shape sh = aiwi_iter_shape_default();
		sh.tp = tp;
		aiwi_iter_hw h;
		aiwi_iter_hw_of(g, &sh, true, &h);
		double beta[AIWI_IT_NTERMS];
		aiwi_iter_datasheet(g, &h, AIWI_ITER_OVERHEAD_S, beta);
		aiwi_iter_affine d[AIWI_IT_NTERMS], p[AIWI_IT_NTERMS];
		aiwi_iter_terms(AIWI_PH_DECODE, &sh, &h, d);
		aiwi_iter_terms(AIWI_PH_PREFILL, &sh, &h, p);
		double c0, cm, cu, cv, k[4];
		aiwi_iter_fold(d, beta, &c0, &cm, &cu, &cv);
		aiwi_iter_fold(p, beta, &k[0], &k[1], &k[2], &k[3]);
		const double ns[] = {1, 7, 64}, Ss[] = {1000, 20000, 300000};
		for (int a = 0; a < 3; a++)
			for (int b = 0; b < 3; b++) {
				double n = ns[a], S = Ss[b] * n / 64 + n;
				span sp = {0};
				span_decode_terms(&sp, n, S, 0, c0, cv, cm + cu);
				sp.end_iteration = INFINITY;
				ck_assert(sp.compute_s == 0 && sp.memory_from == 0);
				double t = 0, x[AIWI_IT_NTERMS];
				for (int j = 0; j < 2000; j++) {
					aiwi_iter_eval(d, n, n, S + n * j, x);
					double tj = aiwi_iter_time(beta, x);
					/* the span's iteration j is the model's */
					ck_assert_rel(sp.memory_s + sp.memory_step_s * j, tj, 1e-12);
					t += tj;
					if (j % 97 == 0 || j == 1999) {
						ck_assert_rel(span_time(&sp, j + 1), t, 1e-12);
						/* the inverse: j + 1 iterations done a hair after
						 * their sum, j a hair before it */
						ck_assert(span_iterations_by(&sp, t * (1 + 1e-9)) == j + 1);
						ck_assert(span_iterations_by(&sp, t * (1 - 1e-9)) == j);
					}
				}
			}
		/* prefill: m prompts of lengths l_i, T = sum l_i, Q = sum l_i^2 */
		const double len[] = {2048, 17, 512, 1};
		double m = 0, T = 0, Q = 0;
		for (int i = 0; i < 4; i++) {
			m++, T += len[i], Q += len[i] * len[i];
			double x[AIWI_IT_NTERMS];
			aiwi_iter_eval(p, m, T, Q, x);
			ck_assert_rel(span_iteration_prefill(k, m, T, Q), aiwi_iter_time(beta, x), 1e-12);
		}
	}
	/* the roofline's per-sequence term is an exact zero: the same sums */
	span r = {0}, q = {0};
	span_decode_terms(&r, 3, 1001, 0x1p-10, 0x1p-8, 0x1p-20, 0);
	q.compute_s = 3 * 0x1p-10;
	q.memory_s = 0x1p-8 + 1001 * 0x1p-20;
	q.memory_step_s = 3 * 0x1p-20;
	q.memory_from = span_memory_from(&q);
	ck_assert(r.compute_s == q.compute_s && r.memory_s == q.memory_s &&
	          r.memory_step_s == q.memory_step_s && r.memory_from == q.memory_from);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("span");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, prefill_time_is_the_roofline);
	tcase_add_test(tc, memory_term_takes_over);
	tcase_add_test(tc, time_of_k_iterations);
	tcase_add_test(tc, iterations_done_by_a_time);
	tcase_add_test(tc, iteration_model_on_a_span);
	suite_add_tcase(s, tc);
	return s;
}

AIW_TEST_MAIN(make_suite)
