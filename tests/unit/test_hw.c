/*
 * test_hw.c - hardware catalog: built-in values against their datasheets,
 * self-consistency of every entry, case-insensitive lookups, suggestions
 * for unknown names, user [gpu NAME] sections (inheritance, defaults,
 * validation messages) and every error path of the public catalog.
 */
#include "../testutil.h"
#include "hw/hw.h"
#include "core/internal.h"

#include <check.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define MSG_HAS(sim, text)                                                             \
	ck_assert_msg(strstr(aiw_sim_errmsg(sim), (text)) != NULL,                      \
	              "errmsg \"%s\" lacks \"%s\"", aiw_sim_errmsg(sim), (text))

static double gv(const char *gpu, const char *field)
{
	double v = NAN;
	ck_assert_int_eq(aiw_catalog_gpu_value(gpu, field, &v), AIW_OK);
	return v;
}

static aiw_sim *new_sim(void)
{
	aiw_sim *sim = NULL;
	ck_assert_int_eq(aiw_sim_create(&sim, 1), AIW_OK);
	ck_assert_ptr_nonnull(sim);
	return sim;
}

/* ------------------------------------------------------------------------ */
START_TEST(every_entry_self_consistent)
{
	size_t n = aiwi_hw_gpu_builtin_count();
	ck_assert_uint_ge(n, 9);
	for (size_t i = 0; i < n; i++) {
		const aiwi_gpu_spec *g = aiwi_hw_gpu_builtin(i);
		ck_assert_int_eq(aiwi_hw_gpu_check(NULL, g->name, g), AIW_OK);
		ck_assert_msg(g->bf16_flops > 1e12, "%s bf16", g->name);
		ck_assert_msg(g->fp8_flops == 0 || g->fp8_flops >= g->bf16_flops, "%s fp8", g->name);
		ck_assert_msg(g->mem_bytes >= 16e9 && g->mem_bw > 1e11, "%s memory", g->name);
		ck_assert_msg(g->idle_w > 0 && g->idle_w < g->compute_w && g->compute_w <= g->tdp_w,
		              "%s idle < compute <= tdp", g->name);
		ck_assert_msg(g->idle_w < g->prefill_w && g->prefill_w <= g->tdp_w, "%s prefill",
		              g->name);
		ck_assert_msg(g->idle_w <= g->decode_w && g->decode_w < g->prefill_w, "%s decode",
		              g->name);
		ck_assert_msg(g->idle_w <= g->comm_w && g->comm_w <= g->tdp_w, "%s comm", g->name);
		ck_assert_msg(g->idle_w <= g->loading_w && g->loading_w <= g->tdp_w, "%s loading",
		              g->name);
		ck_assert_msg(g->price_usd > 0 && g->ondemand_usd_per_h >= 0, "%s price", g->name);
		/* scale-up beats scale-out on every platform */
		ck_assert_msg(g->nvlink_bw > g->nic_bw && g->nic_bw > 0, "%s links", g->name);
		ck_assert_msg(g->nvlink_latency_s > 0 && g->nvlink_latency_s <= g->nic_latency_s,
		              "%s latencies", g->name);
		/* decode is memory-bound: the ridge point is well above 1 FLOP/B */
		ck_assert_msg(g->bf16_flops / g->mem_bw > 50, "%s roofline", g->name);
		for (size_t j = 0; j < i; j++)
			ck_assert_msg(!aiwi_hw_ieq(g->name, aiwi_hw_gpu_builtin(j)->name), "duplicate %s",
			              g->name);
	}
	ck_assert_ptr_null(aiwi_hw_gpu_builtin(n));
}
END_TEST

START_TEST(required_entries_present)
{
	static const char *const need[] = {"H100-SXM", "H200",   "B200",   "A100-80GB", "L40S",
	                                   "L4",       "MI300X", "Gaudi2", "Gaudi3"};
	for (size_t i = 0; i < sizeof need / sizeof *need; i++) {
		const aiwi_gpu_spec *g = aiwi_hw_gpu(NULL, need[i]);
		ck_assert_msg(g != NULL, "missing %s", need[i]);
		ck_assert_str_eq(g->name, need[i]);
	}
}
END_TEST

/* Per-vendor GEMM efficiencies: the serving model's matmul_eff and
 * fp8_matmul_eff are the measured MAMF fractions of S. Bekman's ML
 * Engineering Open Book table (B200 BF16 1,745.0 of 2,250 TFLOP/s, FP8
 * 3,432.5 of 4,500; Gaudi 2 418.7 of 432 and 826.5 of 865; H200 FP8
 * 1,453.4 of 1,979), to the catalog's three digits; the layout model's
 * bf16_gemm_eff is A100's calibration scaled by the ratio of the MAMF
 * fractions, fp8_gemm_eff H100's by the GPU's FP8 fraction over H100's
 * measured 1,402.6 of 1,979.  H100 keeps its values (A100's BF16
 * calibration, its own FP8 one); MI300X has no FP8 measurement and keeps
 * H100's FP8 calibration. */
START_TEST(vendor_gemm_efficiencies)
{
	static const struct {
		const char *gpu;
		double bf16, fp8; /* MAMF fraction measured; 0: none */
	} M[] = {{"B200", 1745.0 / 2250, 3432.5 / 4500},
	         {"Gaudi2", 418.7 / 432, 826.5 / 865},
	         {"H200", 0, 1453.4 / 1979},
	         {"MI300X", 781.9 / 1300, 0}};
	double a_bf = gv("A100-80GB", "bf16_gemm_eff"), a_mm = gv("A100-80GB", "matmul_eff");
	double h_fp8 = gv("H100-SXM", "fp8_gemm_eff"), h_ref = 1402.6 / 1979;
	for (size_t i = 0; i < sizeof M / sizeof *M; i++) {
		const char *g = M[i].gpu;
		if (M[i].bf16 > 0) {
			ck_assert_double_eq_tol(gv(g, "matmul_eff"), M[i].bf16, 5e-4);
			ck_assert_double_eq_tol(gv(g, "bf16_gemm_eff"),
			                        a_bf * gv(g, "matmul_eff") / a_mm, 1e-12);
		}
		if (M[i].fp8 > 0) {
			ck_assert_double_eq_tol(gv(g, "fp8_matmul_eff"), M[i].fp8, 5e-4);
			double want = h_fp8 * gv(g, "fp8_matmul_eff") / h_ref;
			ck_assert_double_eq_tol(gv(g, "fp8_gemm_eff"), want, 1e-3 * want);
		} else {
			ck_assert_double_eq(gv(g, "fp8_gemm_eff"), h_fp8);
		}
	}
	ck_assert_double_eq(gv("H100-SXM", "bf16_gemm_eff"), a_bf);
	ck_assert_double_lt(gv("MI300X", "bf16_gemm_eff"), gv("H100-SXM", "bf16_gemm_eff"));
}
END_TEST

START_TEST(design_figures)
{
	/* aiworkload(7) HARDWARE CATALOG: the catalog and its power levels */
	ck_assert_double_eq(gv("H100-SXM", "bf16_flops"), 989e12);
	ck_assert_double_eq(gv("H100-SXM", "mem_bytes"), 80e9);
	ck_assert_double_eq(gv("H100-SXM", "mem_bw"), 3.35e12);
	ck_assert_double_eq(gv("H100-SXM", "tdp_w"), 700);
	ck_assert_double_eq(gv("H100-SXM", "idle_w"), 75);
	ck_assert_double_eq(gv("H100-SXM", "prefill_w"), 700);
	ck_assert_double_eq(gv("H100-SXM", "decode_w"), 380);
	ck_assert_double_eq(gv("H100-SXM", "price_usd"), 30000);
	ck_assert_double_eq(2 * gv("H100-SXM", "nvlink_bw"), 900e9); /* bidirectional */
	ck_assert_double_eq(gv("H200", "mem_bytes"), 141e9);
	ck_assert_double_eq(gv("H200", "mem_bw"), 4.8e12);
	ck_assert_double_eq(gv("H200", "tdp_w"), 700);
	ck_assert_double_eq_tol(gv("A100-80GB", "mem_bw"), 2.0e12, 0.05e12);
	ck_assert_double_eq(gv("A100-80GB", "bf16_flops"), 312e12);
	ck_assert_double_eq(gv("A100-80GB", "tdp_w"), 400);
	ck_assert_double_eq(gv("A100-80GB", "fp8_flops"), 0); /* Ampere has no FP8 */
	ck_assert_double_eq(gv("L40S", "mem_bytes"), 48e9);
	ck_assert_double_eq(gv("L40S", "tdp_w"), 350);
	ck_assert_double_eq(gv("L40S", "price_usd"), 8000);
	ck_assert_double_eq(gv("L4", "mem_bytes"), 24e9);
	ck_assert_double_eq(gv("L4", "tdp_w"), 72);
	ck_assert_double_eq(gv("L4", "price_usd"), 2500);
	ck_assert_double_eq(gv("MI300X", "mem_bytes"), 192e9);
	ck_assert_double_eq(gv("MI300X", "mem_bw"), 5.3e12);
	ck_assert_double_eq(gv("MI300X", "tdp_w"), 750);
	ck_assert_double_eq(gv("Gaudi2", "mem_bytes"), 96e9);
	ck_assert_double_eq(gv("Gaudi3", "mem_bytes"), 128e9);
	ck_assert_double_eq(gv("B200", "tdp_w"), 1000);
	double v;
	ck_assert_int_eq(aiw_catalog_link_value("IB-NDR", "bw", &v), AIW_OK);
	ck_assert_double_eq(v * 8, 400e9); /* 400 Gb/s per NIC */
	ck_assert_int_eq(aiw_catalog_link_value("NVLink4", "bw", &v), AIW_OK);
	ck_assert_double_eq(v, gv("H100-SXM", "nvlink_bw"));
}
END_TEST

START_TEST(lookups_case_insensitive)
{
	ck_assert_double_eq(gv("h100-sxm", "TDP_W"), 700);
	ck_assert_double_eq(gv("mi300x", "Mem_Bytes"), 192e9);
	/* DGX A100 6.5 kW and DGX B200 14.3 kW less their GPUs; none for MI300X */
	ck_assert_double_eq(gv("a100-80gb", "node_nameplate_w"), 3300);
	ck_assert_double_eq(gv("b200", "node_nameplate_w"), 6300);
	ck_assert_double_eq(gv("mi300x", "node_nameplate_w"), 0);
	ck_assert_ptr_eq(aiwi_hw_gpu(NULL, "gaudi3"), aiwi_hw_gpu(NULL, "GAUDI3"));
	ck_assert_ptr_nonnull(aiwi_hw_link(NULL, "ib-ndr"));
	ck_assert_ptr_eq(aiwi_hw_link(NULL, "nvlink4"), aiwi_hw_link(NULL, "NVLINK4"));
	double v;
	ck_assert_int_eq(aiw_catalog_link_value("roce-400g", "ALPHA_S", &v), AIW_OK);
	ck_assert_double_gt(v, 0);
	ck_assert(aiwi_hw_ieq("", ""));
	ck_assert(!aiwi_hw_ieq("a", "ab"));
	ck_assert(!aiwi_hw_ieq("ab", "a"));
}
END_TEST

START_TEST(public_gpu_catalog)
{
	size_t n = 0;
	ck_assert_int_eq(aiw_catalog_gpu_count(&n), AIW_OK);
	ck_assert_uint_eq(n, aiwi_hw_gpu_builtin_count());
	for (size_t i = 0; i < n; i++) {
		const char *name = NULL;
		ck_assert_int_eq(aiw_catalog_gpu_name(i, &name), AIW_OK);
		ck_assert_str_eq(name, aiwi_hw_gpu_builtin(i)->name);
		/* every field of every GPU is readable and finite */
		for (size_t f = 0;; f++) {
			const char *key = NULL, *unit = NULL, *doc = NULL;
			aiw_status st = aiw_catalog_gpu_field(f, &key, &unit, &doc);
			if (st == AIW_ERANGE) {
				/* 17, bf16/fp8_gemm_eff, matmul/fp8_matmul/attn/mem_bw_eff,
				 * node_nameplate_w */
				ck_assert_uint_eq(f, 24);
				break;
			}
			ck_assert_int_eq(st, AIW_OK);
			ck_assert(key && *key && unit && *unit && doc && *doc);
			double v = NAN;
			ck_assert_int_eq(aiw_catalog_gpu_value(name, key, &v), AIW_OK);
			ck_assert(isfinite(v) && v >= 0);
		}
	}
	const char *s = NULL;
	ck_assert_int_eq(aiw_catalog_gpu_field(0, NULL, NULL, NULL), AIW_OK);
	ck_assert_int_eq(aiw_catalog_gpu_field(0, &s, NULL, NULL), AIW_OK);
	ck_assert_str_eq(s, "bf16_flops");
	/* error paths */
	double v = 42;
	ck_assert_int_eq(aiw_catalog_gpu_count(NULL), AIW_EINVAL);
	ck_assert_int_eq(aiw_catalog_gpu_name(0, NULL), AIW_EINVAL);
	ck_assert_int_eq(aiw_catalog_gpu_name(n, &s), AIW_ERANGE);
	ck_assert_int_eq(aiw_catalog_gpu_name((size_t)-1, &s), AIW_ERANGE);
	ck_assert_int_eq(aiw_catalog_gpu_value(NULL, "tdp_w", &v), AIW_EINVAL);
	ck_assert_int_eq(aiw_catalog_gpu_value("H100-SXM", NULL, &v), AIW_EINVAL);
	ck_assert_int_eq(aiw_catalog_gpu_value("H100-SXM", "tdp_w", NULL), AIW_EINVAL);
	ck_assert_int_eq(aiw_catalog_gpu_value("H100", "tdp_w", &v), AIW_EUNKNOWN);
	ck_assert_int_eq(aiw_catalog_gpu_value("H100-SXM", "tdp", &v), AIW_EUNKNOWN);
	ck_assert_int_eq(aiw_catalog_gpu_value("H100-SXM", "name", &v), AIW_EUNKNOWN);
	ck_assert_int_eq(aiw_catalog_gpu_value("", "", &v), AIW_EUNKNOWN);
	ck_assert_double_eq(v, 42); /* untouched on error */
	ck_assert_int_eq(aiw_catalog_gpu_field(24, &s, NULL, NULL), AIW_ERANGE);
}
END_TEST

/* Every built-in value has a source line of a known kind; the calibrated
 * GEMM efficiencies that other GPUs borrow are marked estimates there; a
 * "measured: MAMF A of B" line agrees with the value it explains. */
START_TEST(gpu_sources)
{
	static const char *const kinds[] = {"datasheet:", "measured", "calibrated:", "list price:",
	                                    "street price:", "estimate", "unknown:", "unused:",
	                                    "NCCL's"};
	size_t n = 0;
	ck_assert_int_eq(aiw_catalog_gpu_count(&n), AIW_OK);
	double calib_bf16 = NAN, calib_fp8 = NAN;
	ck_assert_int_eq(aiw_catalog_gpu_value("A100-80GB", "bf16_gemm_eff", &calib_bf16), AIW_OK);
	ck_assert_int_eq(aiw_catalog_gpu_value("H100-SXM", "fp8_gemm_eff", &calib_fp8), AIW_OK);
	for (size_t i = 0; i < n; i++) {
		const char *name;
		ck_assert_int_eq(aiw_catalog_gpu_name(i, &name), AIW_OK);
		for (size_t f = 0;; f++) {
			const char *key, *src = NULL;
			if (aiw_catalog_gpu_field(f, &key, NULL, NULL) != AIW_OK)
				break;
			ck_assert_int_eq(aiw_catalog_gpu_source(name, key, &src), AIW_OK);
			ck_assert_msg(src && strlen(src) > 8, "%s.%s: no source", name, key);
			bool known = false;
			for (size_t k = 0; k < sizeof kinds / sizeof *kinds; k++)
				known |= strncmp(src, kinds[k], strlen(kinds[k])) == 0;
			ck_assert_msg(known, "%s.%s: source of no known kind: %s", name, key, src);
			double v = NAN;
			ck_assert_int_eq(aiw_catalog_gpu_value(name, key, &v), AIW_OK);
			if (strcmp(key, "bf16_gemm_eff") == 0 && v == calib_bf16 &&
			    strcmp(name, "A100-80GB") != 0)
				ck_assert_msg(strncmp(src, "estimate", 8) == 0, "%s: %s", name, src);
			if (strcmp(key, "fp8_gemm_eff") == 0 && v == calib_fp8 && strcmp(name, "H100-SXM") != 0)
				ck_assert_msg(strncmp(src, "estimate", 8) == 0 || strncmp(src, "unused", 6) == 0,
				              "%s: %s", name, src);
			if ((strcmp(key, "matmul_eff") == 0 || strcmp(key, "fp8_matmul_eff") == 0) &&
			    strncmp(src, "measured: MAMF", 14) == 0) {
				/* "MAMF [FP8] A of B TFLOP/s": the value is A / B to the
				 * three decimals the catalog keeps */
				const char *p = src + 14;
				if (strncmp(p, " FP8 ", 5) == 0)
					p += 5;
				char num[2][32];
				int got = 0;
				for (; *p && got < 2; p++) {
					if (*p < '0' || *p > '9')
						continue;
					size_t l = 0;
					while ((*p >= '0' && *p <= '9') || *p == ',' || *p == '.') {
						if (*p != ',' && l + 1 < sizeof num[0])
							num[got][l++] = *p;
						p++;
					}
					num[got++][l] = 0;
				}
				ck_assert_int_eq(got, 2);
				double ratio = strtod(num[0], NULL) / strtod(num[1], NULL);
				ck_assert_msg(fabs(v - ratio) < 1.5e-3, "%s.%s = %g but its source gives %g: %s",
				              name, key, v, ratio, src);
			}
		}
	}
	const char *s = "untouched";
	ck_assert_int_eq(aiw_catalog_gpu_source("MI300X", "attn_eff", &s), AIW_OK);
	ck_assert(strncmp(s, "estimate", 8) == 0);
	ck_assert_int_eq(aiw_catalog_gpu_source("a100-80gb", "MATMUL_EFF", &s), AIW_OK);
	ck_assert(strncmp(s, "measured: MAMF 267.9 of 312", 27) == 0);
	s = "untouched";
	ck_assert_int_eq(aiw_catalog_gpu_source(NULL, "tdp_w", &s), AIW_EINVAL);
	ck_assert_int_eq(aiw_catalog_gpu_source("H100-SXM", NULL, &s), AIW_EINVAL);
	ck_assert_int_eq(aiw_catalog_gpu_source("H100-SXM", "tdp_w", NULL), AIW_EINVAL);
	ck_assert_int_eq(aiw_catalog_gpu_source("H100", "tdp_w", &s), AIW_EUNKNOWN);
	ck_assert_int_eq(aiw_catalog_gpu_source("H100-SXM", "tdp", &s), AIW_EUNKNOWN);
	ck_assert_str_eq(s, "untouched");
}
END_TEST

START_TEST(public_link_catalog)
{
	size_t n = 0;
	ck_assert_int_eq(aiw_catalog_link_count(&n), AIW_OK);
	ck_assert_uint_eq(n, aiwi_hw_link_builtin_count());
	static const char *const need[] = {"NVLink3", "NVLink4",   "NVLink5",   "IB-HDR",
	                                   "IB-NDR",  "IB-XDR",    "RoCE-100G", "RoCE-200G",
	                                   "RoCE-400G", "PCIe4",   "PCIe5"};
	for (size_t i = 0; i < sizeof need / sizeof *need; i++)
		ck_assert_msg(aiwi_hw_link(NULL, need[i]) != NULL, "missing %s", need[i]);
	for (size_t i = 0; i < n; i++) {
		const char *name = NULL;
		double a, b;
		ck_assert_int_eq(aiw_catalog_link_name(i, &name), AIW_OK);
		ck_assert_int_eq(aiw_catalog_link_value(name, "alpha_s", &a), AIW_OK);
		ck_assert_int_eq(aiw_catalog_link_value(name, "bw", &b), AIW_OK);
		ck_assert(a > 0 && a < 1e-4 && b >= 1e9 && b <= 1e12);
	}
	/* each generation doubles: NVLink 3->4->5 (per GPU), IB HDR->NDR->XDR */
	double x, y, z;
	aiw_catalog_link_value("IB-HDR", "bw", &x);
	aiw_catalog_link_value("IB-NDR", "bw", &y);
	aiw_catalog_link_value("IB-XDR", "bw", &z);
	ck_assert(y == 2 * x && z == 2 * y);
	aiw_catalog_link_value("NVLink4", "bw", &y);
	aiw_catalog_link_value("NVLink5", "bw", &z);
	ck_assert(z == 2 * y);
	const char *key = NULL, *unit = NULL;
	ck_assert_int_eq(aiw_catalog_link_field(0, &key, &unit, NULL), AIW_OK);
	ck_assert_str_eq(key, "alpha_s");
	ck_assert_str_eq(unit, "s");
	ck_assert_int_eq(aiw_catalog_link_field(1, &key, &unit, NULL), AIW_OK);
	ck_assert_str_eq(key, "bw");
	ck_assert_str_eq(unit, "B/s");
	ck_assert_int_eq(aiw_catalog_link_field(2, &key, NULL, NULL), AIW_ERANGE);
	/* error paths */
	double v = 7;
	const char *s;
	ck_assert_int_eq(aiw_catalog_link_count(NULL), AIW_EINVAL);
	ck_assert_int_eq(aiw_catalog_link_name(0, NULL), AIW_EINVAL);
	ck_assert_int_eq(aiw_catalog_link_name(n, &s), AIW_ERANGE);
	ck_assert_int_eq(aiw_catalog_link_value(NULL, "bw", &v), AIW_EINVAL);
	ck_assert_int_eq(aiw_catalog_link_value("IB-NDR", NULL, &v), AIW_EINVAL);
	ck_assert_int_eq(aiw_catalog_link_value("IB-NDR", "bw", NULL), AIW_EINVAL);
	ck_assert_int_eq(aiw_catalog_link_value("IB", "bw", &v), AIW_EUNKNOWN);
	ck_assert_int_eq(aiw_catalog_link_value("IB-NDR", "latency", &v), AIW_EUNKNOWN);
	ck_assert_double_eq(v, 7);
}
END_TEST

START_TEST(gpu_links_helper)
{
	aiwi_link_spec in, out;
	aiwi_hw_gpu_links(aiwi_hw_gpu(NULL, "H100-SXM"), &in, &out);
	ck_assert_double_eq(in.bw, 450e9);
	ck_assert_double_eq(out.bw, 50e9);
	ck_assert_double_eq(in.alpha_s, 3.4e-6);
	ck_assert_double_eq(out.alpha_s, 9.6e-6);
	aiwi_hw_gpu_links(aiwi_hw_gpu(NULL, "L4"), &in, NULL); /* NULL out tolerated */
	ck_assert_double_eq(in.bw, aiwi_hw_link(NULL, "PCIe4")->bw);
}
END_TEST

START_TEST(unknown_names_suggest)
{
	aiw_sim *sim = new_sim();
	const aiwi_gpu_spec *g = (const aiwi_gpu_spec *)1;
	ck_assert_int_eq(aiwi_hw_gpu_get(sim, "H100", &g), AIW_EUNKNOWN);
	ck_assert_ptr_null(g);
	MSG_HAS(sim, "did you mean H100-SXM");
	ck_assert_ptr_null(aiwi_hw_gpu(sim, "h100sxm"));
	MSG_HAS(sim, "H100-SXM");
	ck_assert_ptr_null(aiwi_hw_gpu(sim, "mi300"));
	MSG_HAS(sim, "MI300X");
	ck_assert_ptr_null(aiwi_hw_gpu(sim, "gaudi"));
	MSG_HAS(sim, "Gaudi2");
	MSG_HAS(sim, "Gaudi3");
	ck_assert_ptr_null(aiwi_hw_gpu(sim, "A100"));
	MSG_HAS(sim, "A100-80GB");
	/* nothing close: the full list */
	ck_assert_ptr_null(aiwi_hw_gpu(sim, "TPUv5p-pod"));
	MSG_HAS(sim, "known: H100-SXM");
	MSG_HAS(sim, "[gpu NAME]");
	ck_assert_ptr_null(aiwi_hw_link(sim, "IB-NRD"));
	MSG_HAS(sim, "IB-NDR");
	ck_assert_ptr_null(aiwi_hw_link(sim, "nvlink"));
	MSG_HAS(sim, "NVLink4");
	/* bad arguments */
	ck_assert_int_eq(aiwi_hw_gpu_get(sim, NULL, &g), AIW_EINVAL);
	ck_assert_int_eq(aiwi_hw_gpu_get(sim, "", &g), AIW_EINVAL);
	ck_assert_int_eq(aiwi_hw_gpu_get(sim, "H100-SXM", NULL), AIW_EINVAL);
	ck_assert_ptr_null(aiwi_hw_link(sim, NULL));
	ck_assert_ptr_null(aiwi_hw_link(NULL, "nope")); /* no sim: no message, no crash */
	ck_assert_int_eq(aiwi_hw_gpu_check(sim, "x", NULL), AIW_EINVAL);
	/* built-ins need no sim */
	ck_assert_int_eq(aiwi_hw_gpu_get(NULL, "L4", &g), AIW_OK);
	ck_assert_double_eq(g->tdp_w, 72);
	aiw_sim_free(sim);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* user GPUs                                                                 */
/* ------------------------------------------------------------------------ */
START_TEST(user_gpu_inherits_base)
{
	aiw_sim *sim = new_sim();
	ck_assert_int_eq(aiw_sim_set(sim, "gpu.MYCHIP.base", "H100-SXM"), AIW_OK);
	ck_assert_int_eq(aiw_sim_set_double(sim, "gpu.MYCHIP.mem_bytes", 96e9), AIW_OK);
	ck_assert_int_eq(aiw_sim_set_double(sim, "gpu.MYCHIP.decode_w", 400), AIW_OK);
	const aiwi_gpu_spec *g = aiwi_hw_gpu(sim, "mychip");
	ck_assert_msg(g != NULL, "%s", aiw_sim_errmsg(sim));
	ck_assert_str_eq(g->name, "MYCHIP");
	ck_assert_double_eq(g->mem_bytes, 96e9);
	ck_assert_double_eq(g->decode_w, 400);
	ck_assert_double_eq(g->bf16_flops, 989e12);
	ck_assert_double_eq(g->tdp_w, 700);
	ck_assert_double_eq(g->idle_w, 75);
	ck_assert_double_eq(g->nvlink_bw, 450e9);
	/* parameters changed between lookups are seen */
	ck_assert_int_eq(aiw_sim_set_double(sim, "gpu.MYCHIP.mem_bytes", 64e9), AIW_OK);
	g = aiwi_hw_gpu(sim, "MYCHIP");
	ck_assert_double_eq(g->mem_bytes, 64e9);
	/* unknown names now also suggest user GPUs */
	ck_assert_ptr_null(aiwi_hw_gpu(sim, "MYCHP"));
	MSG_HAS(sim, "MYCHIP");
	aiw_sim_free(sim);
}
END_TEST

START_TEST(user_gpu_overrides_builtin)
{
	aiw_sim *sim = new_sim();
	/* a section named like a built-in inherits from it without base */
	ck_assert_int_eq(aiw_sim_set_double(sim, "gpu.H100-SXM.price_usd", 25000), AIW_OK);
	const aiwi_gpu_spec *g = aiwi_hw_gpu(sim, "h100-sxm");
	ck_assert_msg(g != NULL, "%s", aiw_sim_errmsg(sim));
	ck_assert_double_eq(g->price_usd, 25000);
	ck_assert_double_eq(g->bf16_flops, 989e12);
	ck_assert_ptr_ne(g, aiwi_hw_gpu(NULL, "H100-SXM"));
	/* the built-in itself is unchanged */
	ck_assert_double_eq(gv("H100-SXM", "price_usd"), 30000);
	aiw_sim_free(sim);
}
END_TEST

START_TEST(user_gpu_defaults_without_base)
{
	aiw_sim *sim = new_sim();
	ck_assert_int_eq(aiw_sim_set_double(sim, "gpu.NEW.bf16_flops", 500e12), AIW_OK);
	ck_assert_int_eq(aiw_sim_set_double(sim, "gpu.NEW.mem_bytes", 64e9), AIW_OK);
	ck_assert_int_eq(aiw_sim_set_double(sim, "gpu.NEW.mem_bw", 2e12), AIW_OK);
	ck_assert_int_eq(aiw_sim_set_double(sim, "gpu.NEW.tdp_w", 350), AIW_OK);
	const aiwi_gpu_spec *g = aiwi_hw_gpu(sim, "NEW");
	ck_assert_msg(g != NULL, "%s", aiw_sim_errmsg(sim));
	/* power phases scale from H100-SXM's by TDP: 75, 700, 350, 700, 380, 110 of 700 */
	ck_assert_double_eq_tol(g->idle_w, 37.5, 1e-12);
	ck_assert_double_eq_tol(g->compute_w, 350, 1e-12);
	ck_assert_double_eq_tol(g->comm_w, 175, 1e-12);
	ck_assert_double_eq_tol(g->prefill_w, 350, 1e-12);
	ck_assert_double_eq_tol(g->decode_w, 190, 1e-12);
	ck_assert_double_eq_tol(g->loading_w, 55, 1e-12);
	ck_assert_double_eq(g->fp8_flops, 0);
	ck_assert_double_eq(g->price_usd, 0);
	ck_assert_double_eq(g->nvlink_bw, aiwi_hw_link(NULL, "PCIe5")->bw);
	ck_assert_double_eq(g->nic_bw, aiwi_hw_link(NULL, "IB-NDR")->bw);
	ck_assert_double_eq(g->nic_latency_s, aiwi_hw_link(NULL, "IB-NDR")->alpha_s);
	aiw_sim_free(sim);
}
END_TEST

START_TEST(user_gpu_from_scenario_text)
{
	aiw_sim *sim = new_sim();
	const char *ini = "[gpu TPUISH]\n"
	                  "base = a100-80gb\n"
	                  "mem_bytes = 96GB\n"
	                  "mem_bw = 3.35TB/s\n"
	                  "tdp_w = 450W\n";
	ck_assert_msg(aiw_sim_load_string(sim, ini, "t.ini") == AIW_OK, "%s", aiw_sim_errmsg(sim));
	const aiwi_gpu_spec *g = aiwi_hw_gpu(sim, "tpuish");
	ck_assert_msg(g != NULL, "%s", aiw_sim_errmsg(sim));
	ck_assert_double_eq(g->mem_bytes, 96e9);
	ck_assert_double_eq(g->mem_bw, 3.35e12);
	ck_assert_double_eq(g->tdp_w, 450);
	ck_assert_double_eq(g->bf16_flops, 312e12);
	aiw_sim_free(sim);
}
END_TEST

START_TEST(user_gpu_validation_messages)
{
	aiw_sim *sim = new_sim();
	const aiwi_gpu_spec *g;
	/* missing required field, no base */
	ck_assert_int_eq(aiw_sim_set_double(sim, "gpu.HALF.tdp_w", 300), AIW_OK);
	ck_assert_int_eq(aiwi_hw_gpu_get(sim, "HALF", &g), AIW_ESCENARIO);
	MSG_HAS(sim, "gpu.HALF.bf16_flops is not set");
	MSG_HAS(sim, "base");
	/* idle above an inherited phase */
	ck_assert_int_eq(aiw_sim_set(sim, "gpu.HOT.base", "H100-SXM"), AIW_OK);
	ck_assert_int_eq(aiw_sim_set_double(sim, "gpu.HOT.idle_w", 500), AIW_OK);
	ck_assert_int_eq(aiwi_hw_gpu_get(sim, "HOT", &g), AIW_ERANGE);
	MSG_HAS(sim, "gpu.HOT.");
	MSG_HAS(sim, "idle_w = 500 W");
	MSG_HAS(sim, "(inherited)");
	/* a phase above the TDP */
	ck_assert_int_eq(aiw_sim_set(sim, "gpu.OVER.base", "H100-SXM"), AIW_OK);
	ck_assert_int_eq(aiw_sim_set_double(sim, "gpu.OVER.compute_w", 800), AIW_OK);
	ck_assert_int_eq(aiwi_hw_gpu_get(sim, "OVER", &g), AIW_ERANGE);
	MSG_HAS(sim, "gpu.OVER.compute_w = 800 W must not exceed tdp_w = 700 W");
	/* idle equal to compute: utilisation would not show in power */
	ck_assert_int_eq(aiw_sim_set(sim, "gpu.FLAT.base", "L4"), AIW_OK);
	ck_assert_int_eq(aiw_sim_set_double(sim, "gpu.FLAT.idle_w", 36), AIW_OK);
	ck_assert_int_eq(aiw_sim_set_double(sim, "gpu.FLAT.comm_w", 36), AIW_OK);
	ck_assert_int_eq(aiw_sim_set_double(sim, "gpu.FLAT.decode_w", 36), AIW_OK);
	ck_assert_int_eq(aiw_sim_set_double(sim, "gpu.FLAT.loading_w", 36), AIW_OK);
	ck_assert_int_eq(aiw_sim_set_double(sim, "gpu.FLAT.compute_w", 36), AIW_OK);
	ck_assert_int_eq(aiwi_hw_gpu_get(sim, "FLAT", &g), AIW_ERANGE);
	MSG_HAS(sim, "gpu.FLAT.idle_w = 36 W must be below compute_w = 36 W");
	/* unknown base */
	ck_assert_int_eq(aiw_sim_set(sim, "gpu.TYPO.base", "H100"), AIW_OK);
	ck_assert_int_eq(aiwi_hw_gpu_get(sim, "TYPO", &g), AIW_EUNKNOWN);
	MSG_HAS(sim, "gpu.TYPO.base = \"H100\" is not a built-in GPU");
	MSG_HAS(sim, "H100-SXM");
	/* the kind's start hook validates a section whether or not it is used */
	aiwi_comp *c = NULL;
	ck_assert_int_eq(aiwi_comp_get(sim, "gpu", "OVER", false, &c), AIW_OK);
	ck_assert_ptr_nonnull(c);
	ck_assert_ptr_eq(c->kind, aiwi_kind_find("gpu"));
	ck_assert_int_eq(c->kind->start(c), AIW_ERANGE);
	ck_assert_int_eq(aiw_sim_set_double(sim, "gpu.OVER.compute_w", 690), AIW_OK);
	ck_assert_int_eq(c->kind->start(c), AIW_OK);
	ck_assert_ptr_nonnull(c->state);
	ck_assert_double_eq(((const aiwi_gpu_spec *)c->state)->compute_w, 690);
	c->kind->destroy(c);
	ck_assert_ptr_null(c->state);
	aiw_sim_free(sim);
}
END_TEST

START_TEST(check_rejects_bad_numbers)
{
	aiw_sim *sim = new_sim();
	aiwi_gpu_spec g = *aiwi_hw_gpu(NULL, "H100-SXM");
	g.mem_bw = NAN;
	ck_assert_int_eq(aiwi_hw_gpu_check(sim, "gpu.T", &g), AIW_ERANGE);
	MSG_HAS(sim, "gpu.T.mem_bw");
	g = *aiwi_hw_gpu(NULL, "H100-SXM");
	g.bf16_flops = 0;
	ck_assert_int_eq(aiwi_hw_gpu_check(sim, "gpu.T", &g), AIW_ERANGE);
	MSG_HAS(sim, "gpu.T.bf16_flops = 0 FLOP/s must be finite and > 0");
	g = *aiwi_hw_gpu(NULL, "H100-SXM");
	g.price_usd = -1;
	ck_assert_int_eq(aiwi_hw_gpu_check(sim, "gpu.T", &g), AIW_ERANGE);
	MSG_HAS(sim, "price_usd");
	g = *aiwi_hw_gpu(NULL, "H100-SXM");
	g.nic_latency_s = INFINITY;
	ck_assert_int_eq(aiwi_hw_gpu_check(sim, "gpu.T", &g), AIW_ERANGE);
	g = *aiwi_hw_gpu(NULL, "H100-SXM");
	g.decode_w = 50; /* below idle */
	ck_assert_int_eq(aiwi_hw_gpu_check(sim, "gpu.T", &g), AIW_ERANGE);
	MSG_HAS(sim, "gpu.T.decode_w = 50 W must be at least idle_w = 75 W");
	g = *aiwi_hw_gpu(NULL, "H100-SXM");
	ck_assert_int_eq(aiwi_hw_gpu_check(sim, NULL, &g), AIW_OK);
	aiw_sim_free(sim);
}
END_TEST

START_TEST(param_table_matches_fields)
{
	const aiwi_kind *k = aiwi_kind_find("gpu");
	ck_assert_str_eq(k->name, "gpu");
	ck_assert(!aiwi_kind_is(k, AIWI_KIND_SINGLETON));
	ck_assert_ptr_null(k->sample); /* no curves of its own */
	ck_assert_uint_eq(k->nparams, 25);
	ck_assert_str_eq(k->params[0].key, "base");
	for (size_t i = 0; i < k->nparams; i++) {
		const aiwi_param_def *d = &k->params[i];
		ck_assert(d->key && d->full && d->unit && d->doc && *d->doc);
		ck_assert_msg(strncmp(d->full, "gpu.NAME.", 9) == 0 && !strcmp(d->full + 9, d->key),
		              "%s", d->full);
		ck_assert(d->min <= d->max);
		ck_assert(d->flags & AIW_PF_NONE);
		if (i > 0) {
			const char *key = NULL, *unit = NULL;
			ck_assert_int_eq(aiw_catalog_gpu_field(i - 1, &key, &unit, NULL), AIW_OK);
			ck_assert_str_eq(d->key, key);
			ck_assert_str_eq(d->unit, unit);
			/* every built-in value passes its own parameter's range */
			for (size_t j = 0; j < aiwi_hw_gpu_builtin_count(); j++) {
				double v = gv(aiwi_hw_gpu_builtin(j)->name, key);
				ck_assert_msg(v >= d->min && v <= d->max, "%s %s", key,
				              aiwi_hw_gpu_builtin(j)->name);
			}
		}
	}
	size_t idx = SIZE_MAX;
	ck_assert_int_eq(aiw_param_find("gpu.NAME.tdp_w", &idx), AIW_OK);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("hw");
	TCase *t = tcase_create("catalog");
	tcase_add_test(t, every_entry_self_consistent);
	tcase_add_test(t, required_entries_present);
	tcase_add_test(t, design_figures);
	tcase_add_test(t, vendor_gemm_efficiencies);
	tcase_add_test(t, lookups_case_insensitive);
	tcase_add_test(t, public_gpu_catalog);
	tcase_add_test(t, gpu_sources);
	tcase_add_test(t, public_link_catalog);
	tcase_add_test(t, gpu_links_helper);
	tcase_add_test(t, unknown_names_suggest);
	suite_add_tcase(s, t);
	t = tcase_create("user");
	tcase_add_test(t, user_gpu_inherits_base);
	tcase_add_test(t, user_gpu_overrides_builtin);
	tcase_add_test(t, user_gpu_defaults_without_base);
	tcase_add_test(t, user_gpu_from_scenario_text);
	tcase_add_test(t, user_gpu_validation_messages);
	tcase_add_test(t, check_rejects_bad_numbers);
	tcase_add_test(t, param_table_matches_fields);
	suite_add_tcase(s, t);
	return s;
}

AIW_TEST_MAIN(suite)
