/*
 * test_iteration.c - the serving iteration model (iteration.c) against its
 * closed forms, and the profile fit (profile.c): exact recovery of known
 * coefficients from a table they generate, the refusals naming what a
 * table does not determine, and the measured table (skipped without it).
 */
#include "inference/profile.h"

#include <check.h>
#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#define EQ_REL(a, b, r) ck_assert_double_eq_tol((a), (b), (r) * fabs(b) + 1e-300)

static aiwi_iter_hw hw_h100(const aiwi_iter_shape *s)
{
	aiwi_iter_hw h;
	aiwi_iter_hw_of(aiwi_hw_gpu(NULL, "H100-SXM"), s, true, &h);
	return h;
}

START_TEST(decode_closed_form)
{
	aiwi_iter_shape s = aiwi_iter_shape_default();
	s.tp = 8;
	aiwi_iter_hw h = hw_h100(&s);
	aiwi_iter_affine t[AIWI_IT_NTERMS];
	aiwi_iter_terms(AIWI_PH_DECODE, &s, &h, t);
	double n = 4, S = 4 * 1000, x[AIWI_IT_NTERMS];
	aiwi_iter_eval(t, n, n, S, x);
	double W = s.params * 2, act = s.hidden * 2;
	EQ_REL(x[AIWI_IT_OVERHEAD], 1.0, 0.0);
	EQ_REL(x[AIWI_IT_GEMM], 2 * s.params * n / (8 * 989e12), 1e-14);
	EQ_REL(x[AIWI_IT_ATTN], 4 * s.layers * s.hidden * S / (8 * 989e12), 1e-14);
	EQ_REL(x[AIWI_IT_MEM], (W + s.kv_bytes * S) / (8 * 3.35e12), 1e-14);
	/* 2 L ring all-reduces of n act bytes on NVLink4, latency included */
	double ring = 2 * 7 * 3.4e-6 + 2 * 7.0 / 8 * n * act / 450e9;
	EQ_REL(x[AIWI_IT_COMM], 2 * s.layers * ring, 1e-13);
	/* the host work: 1 s per iteration, 1 s per sequence */
	EQ_REL(x[AIWI_IT_SEQ], n, 0.0);
	/* BF16 weights: BF16 peak; W8A8: FP8 peak; W4A16: BF16 peak */
	ck_assert(!h.fp8);
	s.weight_bits = 8;
	s.act_bits = 8;
	ck_assert(hw_h100(&s).fp8);
	s.weight_bits = 4;
	s.act_bits = 16;
	aiwi_iter_hw h4 = hw_h100(&s);
	ck_assert(!h4.fp8);
	ck_assert_double_eq(h4.gemm_flops, 989e12);
}
END_TEST

START_TEST(prefill_closed_form_and_fold)
{
	aiwi_iter_shape s = aiwi_iter_shape_default();
	s.tp = 2;
	s.pp = 2;
	aiwi_iter_hw h = hw_h100(&s);
	aiwi_iter_affine t[AIWI_IT_NTERMS];
	aiwi_iter_terms(AIWI_PH_PREFILL, &s, &h, t);
	double T = 3000, Q = 1000.0 * 1000 + 2000.0 * 2000, x[AIWI_IT_NTERMS];
	aiwi_iter_eval(t, 2, T, Q, x);
	EQ_REL(x[AIWI_IT_ATTN], 2 * s.layers * s.hidden * Q / (2 * 989e12), 1e-14);
	double act = s.hidden * 2;
	double comm = 2 * s.layers * (2 * 3.4e-6 + T * act / 450e9) + (3.4e-6 + T * act / 450e9);
	EQ_REL(x[AIWI_IT_COMM], comm, 1e-13);
	/* the fold gives the same time as the sum of the terms */
	double beta[AIWI_IT_NTERMS] = {0.01, 1.3, 2.5, 1.1, 1.7, 4e-4}, c0, cm, cu, cv;
	aiwi_iter_fold(t, beta, &c0, &cm, &cu, &cv);
	EQ_REL(c0 + cm * 2 + cu * T + cv * Q, aiwi_iter_time(beta, x), 1e-13);
	EQ_REL(cm, 4e-4, 1e-15); /* the one term per sequence */
	/* tp = pp = 1, overhead and attention at zero: the roofline sum */
	s.tp = s.pp = 1;
	aiwi_iter_terms(AIWI_PH_PREFILL, &s, &h, t);
	aiwi_iter_eval(t, 1, T, T * T, x);
	double b1[AIWI_IT_NTERMS] = {0, 1, 0, 1, 1};
	EQ_REL(aiwi_iter_time(b1, x),
	       2 * s.params * T / 989e12 + (s.params * 2 + s.kv_bytes * T) / 3.35e12, 1e-14);
}
END_TEST

/* A table made by known coefficients: the fit returns them. */
START_TEST(fit_recovers)
{
	gsl_set_error_handler_off();
	aiwi_profile p;
	aiwi_prof_init(&p);
	double truth[2][AIWI_IT_NTERMS] = {{0.03, 1.6, 3.0, 1 / 0.9, 2.0, 2e-3},
	                                   {0.015, 2.0, 1 / 0.35, 1 / 0.9, 1.5, 3e-4}};
	char text[1 << 15];
	size_t n = (size_t)snprintf(text, sizeof text, "phase,gpu,tp,batch,prompt,context,time_s\n");
	static const double TP[] = {2, 8}, B[] = {1, 4, 16}, L[] = {256, 1024, 4096};
	/* first the rows with a placeholder time, then the exact times */
	for (int pass = 0; pass < 2; pass++) {
		if (pass) {
			aiwi_prof_init(&p);
			n = (size_t)snprintf(text, sizeof text, "phase,gpu,tp,batch,prompt,context,time_s\n");
		}
		aiwi_profile q;
		aiwi_prof_init(&q);
		for (size_t a = 0; a < 2; a++)
			for (size_t b = 0; b < 3; b++)
				for (size_t c = 0; c < 3; c++)
					for (int ph = 0; ph < 2; ph++) {
						aiwi_prof_row r = {.phase = ph, .group = 0, .tp = TP[a], .pp = 1,
						                   .batch = B[b], .prompt = L[c], .context = L[c]};
						r.u = ph ? r.batch : r.batch * r.prompt;
						r.v = ph ? r.batch * r.context : r.batch * r.prompt * r.prompt;
						double y = 1;
						if (pass) {
							q.ngroups = 0;
							aiwi_prof_read_text(&q, "phase,gpu,tp,batch,prompt,context,time_s\n"
							                        "decode,H100-SXM,1,1,1,1,1\n", "t");
							y = aiwi_prof_predict(&q, &r, truth[ph]);
							aiwi_prof_clear(&q);
							aiwi_prof_init(&q);
						}
						n += (size_t)snprintf(text + n, sizeof text - n,
						                      "%s,H100-SXM,%g,%g,%g,%g,%.17g\n",
						                      ph ? "decode" : "prefill", r.tp, r.batch,
						                      r.prompt, r.context, y);
					}
		aiwi_prof_clear(&q);
	}
	ck_assert_int_eq(aiwi_prof_read_text(&p, text, "synthetic"), AIW_OK);
	for (int ph = 0; ph < 2; ph++) {
		double beta[AIWI_IT_NTERMS], se[AIWI_IT_NTERMS];
		ck_assert_msg(aiwi_prof_fit(&p, 0, ph, NULL, beta, se, NULL) == AIW_OK, "%s", p.err);
		for (int j = 0; j < AIWI_IT_NTERMS; j++)
			if (!p.hold[ph][j])
				EQ_REL(beta[j], truth[ph][j], 1e-6); /* exact times: exact coefficients */
	}
	aiwi_prof_clear(&p);
}
END_TEST

/* One configuration measured ten times too fast (as the shipped table's TP
 * 2, batch 64 rows): the fit gives it weight 0 and still returns the
 * coefficients that made the others. */
START_TEST(fit_rejects_outlier)
{
	gsl_set_error_handler_off();
	const double truth[2][AIWI_IT_NTERMS] = {{0.03, 1.6, 3.0, 1 / 0.9, 2.0, 2e-3},
	                                         {0.015, 2.0, 1 / 0.35, 1 / 0.9, 1.5, 3e-4}};
	static const double TP[] = {2, 8}, B[] = {1, 4, 16, 64}, L[] = {256, 1024, 4096};
	aiwi_profile q;
	aiwi_prof_init(&q);
	ck_assert_int_eq(aiwi_prof_read_text(&q, "phase,gpu,tp,batch,prompt,context,time_s\n"
	                                         "decode,H100-SXM,1,1,1,1,1\n",
	                                     "t"),
	                 AIW_OK);
	static char text[1 << 16];
	size_t n = (size_t)snprintf(text, sizeof text, "phase,gpu,tp,batch,prompt,context,time_s\n");
	for (size_t a = 0; a < 2; a++)
		for (size_t b = 0; b < 4; b++)
			for (size_t c = 0; c < 3; c++)
				for (int ph = 0; ph < 2; ph++) {
					aiwi_prof_row r = {.phase = ph, .tp = TP[a], .pp = 1, .batch = B[b],
					                   .prompt = L[c], .context = L[c]};
					r.u = ph ? r.batch : r.batch * r.prompt;
					r.v = ph ? r.batch * r.context : r.batch * r.prompt * r.prompt;
					double y = aiwi_prof_predict(&q, &r, truth[ph]);
					bool bad = TP[a] == 2 && B[b] == 64 && L[c] == 1024;
					/* two repeats of every configuration */
					for (int k = 0; k < 2; k++)
						n += (size_t)snprintf(text + n, sizeof text - n,
						                      "%s,H100-SXM,%g,%g,%g,%g,%.17g\n",
						                      ph ? "decode" : "prefill", r.tp, r.batch,
						                      r.prompt, r.context, bad ? y / 10 : y);
				}
	aiwi_prof_clear(&q);
	aiwi_profile p;
	aiwi_prof_init(&p);
	ck_assert_int_eq(aiwi_prof_read_text(&p, text, "outlier"), AIW_OK);
	for (int ph = 0; ph < 2; ph++) {
		double beta[AIWI_IT_NTERMS], se[AIWI_IT_NTERMS];
		ck_assert_msg(aiwi_prof_fit(&p, 0, ph, NULL, beta, se, NULL) == AIW_OK, "%s", p.err);
		for (int j = 0; j < AIWI_IT_NTERMS; j++)
			EQ_REL(beta[j], truth[ph][j], 1e-6);
		for (size_t i = 0; i < p.nrows; i++) {
			const aiwi_prof_row *r = &p.rows[i];
			if (r->phase != ph)
				continue;
			bool bad = r->tp == 2 && r->batch == 64 && (ph ? r->context : r->prompt) == 1024;
			if (bad)
				ck_assert_double_eq(p.weight[i], 0);
			else
				ck_assert_double_gt(p.weight[i], 0.99);
		}
	}
	aiwi_prof_clear(&p);
}
END_TEST

START_TEST(fit_refuses)
{
	gsl_set_error_handler_off();
	aiwi_profile p;
	aiwi_prof_init(&p);
	ck_assert_int_eq(aiwi_prof_read_text(&p,
	                                     "phase,gpu,tp,batch,prompt,context,time_s\n"
	                                     "decode,H100-SXM,2,1,0,512,0.037\n"
	                                     "decode,H100-SXM,2,4,0,1024,0.040\n"
	                                     "decode,H100-SXM,2,8,0,2048,0.041\n"
	                                     "decode,H100-SXM,2,16,0,512,0.042\n"
	                                     "decode,H100-SXM,2,32,0,4096,0.052\n"
	                                     "decode,H100-SXM,2,2,0,256,0.038\n",
	                                     "one-tp"),
	                 AIW_OK);
	double beta[AIWI_IT_NTERMS], se[AIWI_IT_NTERMS];
	ck_assert_int_eq(aiwi_prof_fit(&p, 0, AIWI_PH_DECODE, NULL, beta, se, NULL), AIW_ESCENARIO);
	ck_assert_msg(strstr(p.err, "only one tensor-parallel degree") &&
	                  strstr(p.err, "communication term is not determined"),
	              "%s", p.err);
	/* held at the collective model: at one tp the GEMM FLOPs (n / tp) and
	 * the host work per sequence (n) grow alike, and the fit says so */
	p.hold[AIWI_PH_DECODE][AIWI_IT_COMM] = true;
	ck_assert_int_eq(aiwi_prof_fit(&p, 0, AIWI_PH_DECODE, NULL, beta, se, NULL), AIW_ESCENARIO);
	ck_assert_msg(strstr(p.err, "do not tell the") && strstr(p.err, "term from the others"), "%s",
	              p.err);
	/* with the GEMM held too, the rest is determined */
	p.hold[AIWI_PH_DECODE][AIWI_IT_GEMM] = true;
	ck_assert_msg(aiwi_prof_fit(&p, 0, AIWI_PH_DECODE, NULL, beta, se, NULL) == AIW_OK, "%s",
	              p.err);
	ck_assert_int_eq(aiwi_prof_fit(&p, 0, AIWI_PH_PREFILL, NULL, beta, se, NULL), AIW_ESCENARIO);
	ck_assert(strstr(p.err, "no prefill rows"));
	aiwi_prof_clear(&p);
	/* malformed tables name file:line and the column */
	aiwi_prof_init(&p);
	ck_assert_int_eq(aiwi_prof_read_text(&p, "a,b\n1,2\n", "x.csv"), AIW_EPARSE);
	ck_assert(strstr(p.err, "x.csv:1"));
	ck_assert_int_eq(aiwi_prof_read_text(&p,
	                                     "phase,gpu,tp,batch,prompt,context,time_s\n"
	                                     "decode,H100-SXM,two,1,0,512,0.037\n",
	                                     "x.csv"),
	                 AIW_EPARSE);
	ck_assert_msg(strstr(p.err, "x.csv:2: column tp"), "%s", p.err);
	aiwi_prof_clear(&p);
}
END_TEST

/* The shipped measured table reads as it is: 630 rows, each a prefill and
 * a decode measurement. */
START_TEST(splitwise_reads)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/data/splitwise-perf/perf_model.csv", AIW_SRCDIR);
	FILE *f = fopen(path, "rb");
	if (!f)
		return; /* no table: nothing to check (gen-validation reports the skip) */
	fclose(f);
	gsl_set_error_handler_off();
	aiwi_profile p;
	aiwi_prof_init(&p);
	ck_assert_msg(aiwi_prof_read(&p, path) == AIW_OK, "%s", p.err);
	ck_assert_uint_eq(p.nrows, 2 * 630);
	ck_assert_uint_eq(p.ngroups, 3);
	ck_assert_int_ge(aiwi_prof_group_find(&p, "A100-80GB"), 0);
	/* every fit within the physical bounds; the rows it rejects are the TP
	 * 2, batch 64 ones (measured below batch 4) and only those */
	for (size_t g = 0; g < 2; g++)
		for (int ph = 0; ph < 2; ph++) {
			double beta[AIWI_IT_NTERMS], se[AIWI_IT_NTERMS];
			ck_assert_msg(aiwi_prof_fit(&p, (int)g, ph, NULL, beta, se, NULL) == AIW_OK, "%s",
			              p.err);
			for (int j = 0; j < AIWI_IT_NTERMS; j++)
				ck_assert_double_ge(beta[j], aiwi_prof_lower_bound(j));
			for (size_t i = 0; i < p.nrows; i++) {
				const aiwi_prof_row *r = &p.rows[i];
				if (r->group != (int)g || r->phase != ph)
					continue;
				ck_assert_msg((p.weight[i] == 0) == (r->tp == 2 && r->batch == 64),
				              "%s %s tp %g batch %g: weight %g", p.groups[g].name,
				              aiwi_iter_phase_names[ph], r->tp, r->batch, p.weight[i]);
			}
		}
	aiwi_prof_clear(&p);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("iteration");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, decode_closed_form);
	tcase_add_test(tc, prefill_closed_form_and_fold);
	tcase_add_test(tc, fit_recovers);
	tcase_add_test(tc, fit_rejects_outlier);
	tcase_add_test(tc, fit_refuses);
	tcase_add_test(tc, splitwise_reads);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? 1 : 0;
}
