/*
 * test_sizing.c - sizing calculators: the seed figures (70B -> 840 GB to
 * train, 140 GB to serve at 16 bits; Llama 3.1 405B -> 3.8e25 FLOPs),
 * Korthikanti et al.'s activation formulas, KV cache, fit calculations and
 * every bad-argument path.
 */
#include "../testutil.h"
#include "hw/hw.h"
#include "core/internal.h"

#include <check.h>
#include <math.h>
#include <string.h>

#define EQ_REL(a, b) ck_assert_double_eq_tol((a), (b), 1e-12 * fabs(b))

START_TEST(presets)
{
	static const struct {
		const char *name;
		double bytes;
	} P[] = {{"mixed_adam", 12},
	         {"mixed_adam_fp32master", 16},
	         {"fp32_adam", 16},
	         {"bf16_sgd", 4},
	         {"fp32_sgd_momentum", 12}};
	for (size_t i = 0; i < sizeof P / sizeof *P; i++) {
		double b = 0;
		ck_assert_int_eq(aiw_size_training_preset(P[i].name, &b), AIW_OK);
		ck_assert_double_eq(b, P[i].bytes);
	}
	double b = 0;
	ck_assert_int_eq(aiw_size_training_preset("MIXED_ADAM", &b), AIW_OK);
	ck_assert_double_eq(b, 12);
	/* the list and the lookup agree */
	size_t n = 0;
	const char *name;
	while (aiw_size_training_preset_name(n, &name) == AIW_OK) {
		ck_assert_int_eq(aiw_size_training_preset(name, &b), AIW_OK);
		n++;
	}
	ck_assert_uint_eq(n, sizeof P / sizeof *P);
	ck_assert_int_eq(aiw_size_training_preset_name(n, &name), AIW_ERANGE);
	ck_assert_int_eq(aiw_size_training_preset_name(0, NULL), AIW_EINVAL);
	b = 9;
	ck_assert_int_eq(aiw_size_training_preset("adam", &b), AIW_EUNKNOWN);
	ck_assert_int_eq(aiw_size_training_preset("", &b), AIW_EUNKNOWN);
	ck_assert_int_eq(aiw_size_training_preset(NULL, &b), AIW_EINVAL);
	ck_assert_int_eq(aiw_size_training_preset("mixed_adam", NULL), AIW_EINVAL);
	ck_assert_double_eq(b, 9);
}
END_TEST

START_TEST(seed_training_memory)
{
	double bpp, m;
	ck_assert_int_eq(aiw_size_training_preset("mixed_adam", &bpp), AIW_OK);
	ck_assert_int_eq(aiw_size_training_memory(70e9, bpp, &m), AIW_OK);
	ck_assert_double_eq(m, 8.4e11); /* 840 GB */
	ck_assert_int_eq(aiw_size_training_preset("mixed_adam_fp32master", &bpp), AIW_OK);
	ck_assert_int_eq(aiw_size_training_memory(70e9, bpp, &m), AIW_OK);
	ck_assert_double_eq(m, 1.12e12);
	ck_assert_int_eq(aiw_size_training_memory(1, 0.5, &m), AIW_OK);
	ck_assert_double_eq(m, 0.5);
	m = 1;
	ck_assert_int_eq(aiw_size_training_memory(70e9, 12, NULL), AIW_EINVAL);
	ck_assert_int_eq(aiw_size_training_memory(0, 12, &m), AIW_ERANGE);
	ck_assert_int_eq(aiw_size_training_memory(-1, 12, &m), AIW_ERANGE);
	ck_assert_int_eq(aiw_size_training_memory(NAN, 12, &m), AIW_ERANGE);
	ck_assert_int_eq(aiw_size_training_memory(INFINITY, 12, &m), AIW_ERANGE);
	ck_assert_int_eq(aiw_size_training_memory(70e9, 0, &m), AIW_ERANGE);
	ck_assert_int_eq(aiw_size_training_memory(70e9, NAN, &m), AIW_ERANGE);
	ck_assert_int_eq(aiw_size_training_memory(1e308, 16, &m), AIW_ERANGE); /* overflow */
	ck_assert_double_eq(m, 1);
}
END_TEST

START_TEST(seed_inference_weights)
{
	double w;
	ck_assert_int_eq(aiw_size_inference_weights(70e9, 16, &w), AIW_OK);
	ck_assert_double_eq(w, 1.4e11); /* 140 GB */
	ck_assert_int_eq(aiw_size_inference_weights(70e9, 8, &w), AIW_OK);
	ck_assert_double_eq(w, 7e10);
	ck_assert_int_eq(aiw_size_inference_weights(70e9, 4, &w), AIW_OK);
	ck_assert_double_eq(w, 3.5e10);
	ck_assert_int_eq(aiw_size_inference_weights(70e9, 16, NULL), AIW_EINVAL);
	ck_assert_int_eq(aiw_size_inference_weights(0, 16, &w), AIW_ERANGE);
	ck_assert_int_eq(aiw_size_inference_weights(70e9, 0, &w), AIW_ERANGE);
	ck_assert_int_eq(aiw_size_inference_weights(70e9, 65, &w), AIW_ERANGE);
	ck_assert_int_eq(aiw_size_inference_weights(70e9, -8, &w), AIW_ERANGE);
	ck_assert_int_eq(aiw_size_inference_weights(NAN, 8, &w), AIW_ERANGE);
}
END_TEST

START_TEST(seed_training_flops)
{
	/* Llama 3.1 405B on 15.6e12 tokens: 6 N D = 3.7908e25, reported ~3.8e25 */
	double c;
	ck_assert_int_eq(aiw_size_training_flops(405e9, 15.6e12, &c), AIW_OK);
	EQ_REL(c, 3.7908e25);
	ck_assert_double_eq(round(c / 1e24) / 10, 3.8);
	ck_assert_int_eq(aiw_size_training_flops(405e9, 15.6e12, NULL), AIW_EINVAL);
	ck_assert_int_eq(aiw_size_training_flops(0, 1, &c), AIW_ERANGE);
	ck_assert_int_eq(aiw_size_training_flops(1, 0, &c), AIW_ERANGE);
	ck_assert_int_eq(aiw_size_training_flops(1, -1, &c), AIW_ERANGE);
	ck_assert_int_eq(aiw_size_training_flops(NAN, 1, &c), AIW_ERANGE);
	ck_assert_int_eq(aiw_size_training_flops(1e300, 1e300, &c), AIW_ERANGE);
}
END_TEST

START_TEST(training_time)
{
	/* 3.79e25 FLOPs on 16,384 H100 at 40% MFU: flops / (N peak mfu) */
	double c, t;
	ck_assert_int_eq(aiw_size_training_flops(405e9, 15.6e12, &c), AIW_OK);
	ck_assert_int_eq(aiw_size_training_time(c, "H100-SXM", 16384, 0.4, &t), AIW_OK);
	EQ_REL(t, c / (16384 * 989e12 * 0.4));
	ck_assert(t / 86400 > 60 && t / 86400 < 75); /* about 68 days */
	ck_assert_int_eq(aiw_size_training_time(c, "h100-sxm", 1, 1, &t), AIW_OK);
	EQ_REL(t, c / 989e12);
	t = 2;
	ck_assert_int_eq(aiw_size_training_time(c, NULL, 1, 1, &t), AIW_EINVAL);
	ck_assert_int_eq(aiw_size_training_time(c, "H100-SXM", 1, 1, NULL), AIW_EINVAL);
	ck_assert_int_eq(aiw_size_training_time(c, "H100", 1, 1, &t), AIW_EUNKNOWN);
	ck_assert_int_eq(aiw_size_training_time(0, "H100-SXM", 1, 1, &t), AIW_ERANGE);
	ck_assert_int_eq(aiw_size_training_time(c, "H100-SXM", 0.5, 1, &t), AIW_ERANGE);
	ck_assert_int_eq(aiw_size_training_time(c, "H100-SXM", NAN, 1, &t), AIW_ERANGE);
	ck_assert_int_eq(aiw_size_training_time(c, "H100-SXM", 1, 0, &t), AIW_ERANGE);
	ck_assert_int_eq(aiw_size_training_time(c, "H100-SXM", 1, 1.01, &t), AIW_ERANGE);
	ck_assert_int_eq(aiw_size_training_time(c, "H100-SXM", 1, NAN, &t), AIW_ERANGE);
	ck_assert_double_eq(t, 2);
}
END_TEST

START_TEST(activations)
{
	/* GPT-3 175B shape (Korthikanti et al.): L 96, s 2048, h 12288, a 96.
	 * sbh = 25,165,824 and 5as/h = 80. */
	double sbh = 2048.0 * 12288, none, sel, full, tp;
	ck_assert_int_eq(aiw_size_activations(96, 2048, 1, 12288, 96, 1, "none", &none), AIW_OK);
	ck_assert_double_eq(none, 96 * sbh * (34 + 80)); /* 275,414,777,856 B */
	ck_assert_int_eq(aiw_size_activations(96, 2048, 1, 12288, 96, 1, "selective", &sel), AIW_OK);
	ck_assert_double_eq(sel, 96 * sbh * 34);
	ck_assert_int_eq(aiw_size_activations(96, 2048, 1, 12288, 96, 1, "FULL", &full), AIW_OK);
	ck_assert_double_eq(full, 96 * sbh * 2);
	ck_assert(full < sel && sel < none);
	/* tensor + sequence parallel t = 8: sbh (34/t + 5as/(ht)) = sbh x 14.25 */
	ck_assert_int_eq(aiw_size_activations(96, 2048, 1, 12288, 96, 8, "none", &tp), AIW_OK);
	EQ_REL(tp, 96 * sbh * 14.25);
	ck_assert_int_eq(aiw_size_activations(96, 2048, 1, 12288, 96, 8, "selective", &tp), AIW_OK);
	EQ_REL(tp, 96 * sbh * 34 / 8);
	/* linear in the micro-batch */
	ck_assert_int_eq(aiw_size_activations(96, 2048, 4, 12288, 96, 1, "none", &tp), AIW_OK);
	ck_assert_double_eq(tp, 4 * none);
	/* errors */
	double v = 1;
	ck_assert_int_eq(aiw_size_activations(96, 2048, 1, 12288, 96, 1, NULL, &v), AIW_EINVAL);
	ck_assert_int_eq(aiw_size_activations(96, 2048, 1, 12288, 96, 1, "none", NULL), AIW_EINVAL);
	ck_assert_int_eq(aiw_size_activations(96, 2048, 1, 12288, 96, 1, "partial", &v),
	                 AIW_EUNKNOWN);
	ck_assert_int_eq(aiw_size_activations(0, 2048, 1, 12288, 96, 1, "none", &v), AIW_ERANGE);
	ck_assert_int_eq(aiw_size_activations(96, NAN, 1, 12288, 96, 1, "none", &v), AIW_ERANGE);
	ck_assert_int_eq(aiw_size_activations(96, 2048, -1, 12288, 96, 1, "none", &v), AIW_ERANGE);
	ck_assert_int_eq(aiw_size_activations(96, 2048, 1, 0, 96, 1, "none", &v), AIW_ERANGE);
	ck_assert_int_eq(aiw_size_activations(96, 2048, 1, 12288, 0, 1, "none", &v), AIW_ERANGE);
	ck_assert_int_eq(aiw_size_activations(96, 2048, 1, 12288, 96, 0.5, "none", &v),
	                 AIW_ERANGE);
	ck_assert_int_eq(aiw_size_activations(96, INFINITY, 1, 12288, 96, 1, "none", &v),
	                 AIW_ERANGE);
	ck_assert_double_eq(v, 1);
}
END_TEST

START_TEST(kv_cache)
{
	/* Llama 3 70B: 80 layers, 8 KV heads of 128, bf16 -> 320 KiB per token */
	double kv;
	ck_assert_int_eq(aiw_size_kv_cache(80, 8, 128, 16, 1, 1, &kv), AIW_OK);
	ck_assert_double_eq(kv, 327680);
	ck_assert_int_eq(aiw_size_kv_cache(80, 8, 128, 16, 8192, 32, &kv), AIW_OK);
	ck_assert_double_eq(kv, 327680.0 * 8192 * 32);
	ck_assert_int_eq(aiw_size_kv_cache(80, 8, 128, 8, 1, 1, &kv), AIW_OK); /* fp8 KV */
	ck_assert_double_eq(kv, 163840);
	ck_assert_int_eq(aiw_size_kv_cache(80, 8, 128, 16, 0, 5, &kv), AIW_OK);
	ck_assert_double_eq(kv, 0);
	kv = 4;
	ck_assert_int_eq(aiw_size_kv_cache(80, 8, 128, 16, 1, 1, NULL), AIW_EINVAL);
	ck_assert_int_eq(aiw_size_kv_cache(0, 8, 128, 16, 1, 1, &kv), AIW_ERANGE);
	ck_assert_int_eq(aiw_size_kv_cache(80, 0, 128, 16, 1, 1, &kv), AIW_ERANGE);
	ck_assert_int_eq(aiw_size_kv_cache(80, 8, NAN, 16, 1, 1, &kv), AIW_ERANGE);
	ck_assert_int_eq(aiw_size_kv_cache(80, 8, 128, 0, 1, 1, &kv), AIW_ERANGE);
	ck_assert_int_eq(aiw_size_kv_cache(80, 8, 128, 128, 1, 1, &kv), AIW_ERANGE);
	ck_assert_int_eq(aiw_size_kv_cache(80, 8, 128, 16, -1, 1, &kv), AIW_ERANGE);
	ck_assert_int_eq(aiw_size_kv_cache(80, 8, 128, 16, 1, INFINITY, &kv), AIW_ERANGE);
	ck_assert_double_eq(kv, 4);
}
END_TEST

START_TEST(max_sequences)
{
	double kvseq = 327680.0 * 4096, n; /* Llama 3 70B, 4k context, bf16 KV */
	/* one H100, 10% kept free, 8-bit weights: (72e9 - 70e9) / 1.34e9 = 1.49 -> 1 */
	ck_assert_int_eq(aiw_size_max_sequences(80e9, 7e10, kvseq, 0.1, &n), AIW_OK);
	ck_assert_double_eq(n, 1);
	/* two H100: (144e9 - 70e9) / 1.34e9 = 55.1 -> 55 */
	ck_assert_int_eq(aiw_size_max_sequences(160e9, 7e10, kvseq, 0.1, &n), AIW_OK);
	ck_assert_double_eq(n, 55);
	/* weights alone do not fit: 16-bit 70B on one H100 */
	ck_assert_int_eq(aiw_size_max_sequences(80e9, 1.4e11, kvseq, 0, &n), AIW_OK);
	ck_assert_double_eq(n, 0);
	ck_assert_int_eq(aiw_size_max_sequences(100, 0, 10, 0, &n), AIW_OK);
	ck_assert_double_eq(n, 10);
	n = 3;
	ck_assert_int_eq(aiw_size_max_sequences(80e9, 7e10, kvseq, 0.1, NULL), AIW_EINVAL);
	ck_assert_int_eq(aiw_size_max_sequences(0, 7e10, kvseq, 0.1, &n), AIW_ERANGE);
	ck_assert_int_eq(aiw_size_max_sequences(80e9, -1, kvseq, 0.1, &n), AIW_ERANGE);
	ck_assert_int_eq(aiw_size_max_sequences(80e9, 7e10, 0, 0.1, &n), AIW_ERANGE);
	ck_assert_int_eq(aiw_size_max_sequences(80e9, 7e10, kvseq, 1, &n), AIW_ERANGE);
	ck_assert_int_eq(aiw_size_max_sequences(80e9, 7e10, kvseq, -0.1, &n), AIW_ERANGE);
	ck_assert_int_eq(aiw_size_max_sequences(80e9, 7e10, kvseq, NAN, &n), AIW_ERANGE);
	ck_assert_int_eq(aiw_size_max_sequences(INFINITY, 7e10, kvseq, 0, &n), AIW_ERANGE);
	ck_assert_double_eq(n, 3);
}
END_TEST

START_TEST(min_gpus)
{
	double n;
	/* the seed's 840 GB training state on 80 GB H100s: 10.5 -> 11 */
	ck_assert_int_eq(aiw_size_min_gpus("H100-SXM", 8.4e11, 0, &n), AIW_OK);
	ck_assert_double_eq(n, 11);
	/* 140 GB of 16-bit weights: 2 H100, 1 MI300X or H200 */
	ck_assert_int_eq(aiw_size_min_gpus("H100-SXM", 1.4e11, 0, &n), AIW_OK);
	ck_assert_double_eq(n, 2);
	ck_assert_int_eq(aiw_size_min_gpus("mi300x", 1.4e11, 0, &n), AIW_OK);
	ck_assert_double_eq(n, 1);
	ck_assert_int_eq(aiw_size_min_gpus("H200", 1.4e11, 0, &n), AIW_OK);
	ck_assert_double_eq(n, 1);
	/* headroom: 160 GB exactly fills 2 H100, with 10% kept free it needs 3 */
	ck_assert_int_eq(aiw_size_min_gpus("H100-SXM", 1.6e11, 0, &n), AIW_OK);
	ck_assert_double_eq(n, 2);
	ck_assert_int_eq(aiw_size_min_gpus("H100-SXM", 1.6e11, 0.1, &n), AIW_OK);
	ck_assert_double_eq(n, 3);
	ck_assert_int_eq(aiw_size_min_gpus("L4", 1, 0, &n), AIW_OK);
	ck_assert_double_eq(n, 1);
	/* 1 ulp above 65 x usable: the rounded quotient says 65, the answer is 66 */
	ck_assert_int_eq(aiw_size_min_gpus("MI300X", nextafter(65 * (192e9 * (1 - 0.3)), INFINITY),
	                                   0.3, &n),
	                 AIW_OK);
	ck_assert_double_eq(n, 66);
	/* around every multiple of the usable memory, n is the smallest count
	 * with n x usable >= bytes, compared exactly (fma rounds once) */
	static const char *const G[] = {"H100-SXM", "L4", "MI300X", "A100-80GB", "H200"};
	static const double H[] = {0, 0.1, 0.15, 0.3, 0.05};
	for (size_t g = 0; g < 5; g++)
		for (size_t h = 0; h < 5; h++)
			for (double k = 1; k <= 2000; k++) {
				double mem, usable;
				ck_assert_int_eq(aiw_catalog_gpu_value(G[g], "mem_bytes", &mem), AIW_OK);
				usable = mem * (1 - H[h]);
				const double B[] = {k * usable, nextafter(k * usable, INFINITY),
				                    nextafter(k * usable, 0), k * usable * (1 + 1e-9)};
				for (size_t b = 0; b < 4; b++) {
					ck_assert_int_eq(aiw_size_min_gpus(G[g], B[b], H[h], &n), AIW_OK);
					ck_assert_msg(fma(n, usable, -B[b]) >= 0 &&
					                  (n == 1 || fma(n - 1, usable, -B[b]) < 0),
					              "%s h=%g bytes=%.17g -> %g", G[g], H[h], B[b], n);
				}
				ck_assert_int_eq(aiw_size_min_gpus(G[g], k * usable * (1 + 1e-9), H[h], &n),
				                 AIW_OK);
				ck_assert_double_eq(n, k + 1);
			}
	n = 5;
	ck_assert_int_eq(aiw_size_min_gpus(NULL, 1, 0, &n), AIW_EINVAL);
	ck_assert_int_eq(aiw_size_min_gpus("H100-SXM", 1, 0, NULL), AIW_EINVAL);
	ck_assert_int_eq(aiw_size_min_gpus("H100", 1, 0, &n), AIW_EUNKNOWN);
	ck_assert_int_eq(aiw_size_min_gpus("H100-SXM", 0, 0, &n), AIW_ERANGE);
	ck_assert_int_eq(aiw_size_min_gpus("H100-SXM", -1, 0, &n), AIW_ERANGE);
	ck_assert_int_eq(aiw_size_min_gpus("H100-SXM", NAN, 0, &n), AIW_ERANGE);
	ck_assert_int_eq(aiw_size_min_gpus("H100-SXM", INFINITY, 0, &n), AIW_ERANGE);
	ck_assert_int_eq(aiw_size_min_gpus("H100-SXM", 1, 1, &n), AIW_ERANGE);
	ck_assert_int_eq(aiw_size_min_gpus("H100-SXM", 1, -0.5, &n), AIW_ERANGE);
	ck_assert_int_eq(aiw_size_min_gpus("H100-SXM", 1, NAN, &n), AIW_ERANGE);
	ck_assert_double_eq(n, 5);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("sizing");
	TCase *t = tcase_create("sizing");
	tcase_add_test(t, presets);
	tcase_add_test(t, seed_training_memory);
	tcase_add_test(t, seed_inference_weights);
	tcase_add_test(t, seed_training_flops);
	tcase_add_test(t, training_time);
	tcase_add_test(t, activations);
	tcase_add_test(t, kv_cache);
	tcase_add_test(t, max_sequences);
	tcase_add_test(t, min_gpus);
	suite_add_tcase(s, t);
	return s;
}

AIW_TEST_MAIN(suite)
