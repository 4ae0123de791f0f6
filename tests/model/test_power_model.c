/* test_power_model.c - a decoding GPU's power by its running batch
 * (power_model = batch, lib/inference/power_model.h): the logistic by hand
 * at several batches; a lone request's energy and two requests sharing a
 * span, by hand from the folded iteration coefficients; busy fleets with
 * every feature that moves a batch (energy = the integral of power, per
 * fleet and per rack, replicas lost inside spans, seeded runs reproduced
 * bit for bit); the constant model the default, bit for bit; the
 * refusals. */
#include "core/internal.h"
#include "hw/hw.h"
#include "inference/serving.h"
#include "inference/power_model.h"
#include "../testutil.h"
#include "fleet_test.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The logistic written another way: 1 / (1 + e^-x) = (1 + tanh(x / 2)) / 2. */
static double by_hand(double low, double high, double mid_batch, double width, double n)
{
	double x = (log(n) / log(2) - log(mid_batch) / log(2)) / width;
	return low + (high - low) * (1 + tanh(x / 2)) / 2;
}

START_TEST(logistic_by_hand)
{
	/* the H100 defaults (300 W, 600 W, midpoint 16, one doubling) and
	 * another curve, at batches 1 .. 1024, 3, 48 and the midpoint */
	const double nn[] = {1, 2, 3, 4, 8, 16, 32, 48, 64, 128, 256, 1024};
	for (size_t i = 0; i < sizeof nn / sizeof *nn; i++) {
		double n = nn[i];
		ck_assert_rel(aiwi_batch_power_w(300, 600, 4, 1, n), by_hand(300, 600, 16, 1, n),
		              1e-12);
		ck_assert_rel(aiwi_batch_power_w(150, 390, log2(6), 2.5, n),
		              by_hand(150, 390, 6, 2.5, n), 1e-12);
	}
	/* the midpoint is halfway; batch 1 and 128 near the ML.ENERGY H100
	 * figures (about 300 W and 600 W) */
	ck_assert(aiwi_batch_power_w(300, 600, 4, 1, 16) == 450);
	ck_assert_rel(aiwi_batch_power_w(300, 600, 4, 1, 1), 300 + 300 / (1 + exp(4.0)), 1e-15);
	ck_assert_rel(aiwi_batch_power_w(300, 600, 4, 1, 128), 300 + 300 / (1 + exp(-3.0)), 1e-15);
	/* no decode: the low level; monotone in the batch */
	ck_assert(aiwi_batch_power_w(300, 600, 4, 1, 0) == 300);
	for (double n = 1; n < 4096; n++)
		ck_assert(aiwi_batch_power_w(300, 600, 4, 1, n + 1) >=
		          aiwi_batch_power_w(300, 600, 4, 1, n));
}
END_TEST

/* ------------------------------------------------------------------------ */
/* one replica, coefficients set term by term (as tests/model/test_chunked.c) */
/* ------------------------------------------------------------------------ */
#define COEFS                                                                                      \
	"prefill.overhead = 0.01\nprefill.gemm = 2\nprefill.attn = 3\nprefill.mem = 0\n"          \
	"prefill.comm = 0\nprefill.seq = 0.001\n"                                                  \
	"decode.overhead = 0.005\ndecode.gemm = 0\ndecode.attn = 0\ndecode.mem = 1.5\n"           \
	"decode.comm = 0\ndecode.seq = 0.0002\n"

static const double P = 7e9, LAY = 32, D = 4096, KV = 2.0 * 32 * 8 * 128 * 2;

typedef struct fold {
	double c0p, cmp, cup, cvp; /* prefill */
	double c0d, csd, cvd;      /* decode */
} fold;

static fold folds(void)
{
	const aiwi_gpu_spec *g = aiwi_hw_gpu(NULL, "H100-SXM");
	ck_assert(g != NULL);
	fold k;
	double F = g->bf16_flops, W = P * 16 / 8, B = g->mem_bw;
	k.c0p = 0.01;
	k.cmp = 0.001;
	k.cup = 2 * (2 * P / (1.0 * F));
	k.cvp = 3 * (2 * LAY * D / (1.0 * F));
	k.c0d = 0.005 + 1.5 * (W / (1.0 * B));
	k.csd = 0.0002;
	k.cvd = 1.5 * (KV / (1.0 * B));
	return k;
}

static double decode(const fold *k, double n, double S)
{
	return k->c0d + k->cvd * S + k->csd * n;
}

static aiw_sim *replica_run(const char *lines, const char *extra)
{
	char path[256];
	FILE *tf = aiwi_test_tmpfile(path, sizeof path);
	fputs(lines, tf);
	fclose(tf);
	char text[2048];
	snprintf(text, sizeof text,
	         "[sim]\nduration = 600s\nsample_interval = 1s\n"
	         "[inference one]\ngpus_per_replica = 1\nreplicas = 1\nmodel_params = 7e9\n"
	         "layers = 32\nkv_heads = 8\nhead_dim = 128\nhidden_size = 4096\n"
	         "traffic = trace\ntrace_file = %s\ntiming = iteration\n" COEFS "%s",
	         path, extra);
	aiw_sim *sim = load(1, text);
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	unlink(path);
	return sim;
}

START_TEST(lone_request_by_hand)
{
	/* a prompt of 500 tokens, 4 output tokens: the prefill at prefill_w,
	 * 3 decode iterations of a batch of 1 over 501, 502, 503 tokens at
	 * P(1), idle the rest of the 600 s (node overhead 2800 W / 8 per GPU) */
	fold k = folds();
	const aiwi_gpu_spec *g = aiwi_hw_gpu(NULL, "H100-SXM");
	aiw_sim *sim = replica_run("0,500,4\n", "max_batch = 8\npower_model = batch\n");
	double tp = k.c0p + k.cmp + k.cup * 500 + k.cvp * 500.0 * 500;
	ck_assert_rel(M(sim, "one", "ttft_mean_s"), tp, 1e-12);
	double td = decode(&k, 1, 501) + decode(&k, 1, 502) + decode(&k, 1, 503);
	ck_assert_rel(M(sim, "one", "e2e_mean_s"), tp + td, 1e-12);
	double ovh = 2800.0 / 8, T = 600;
	double p1 = by_hand(300, 600, 16, 1, 1); /* 3/7 and 6/7 of the H100's 700 W */
	double e = (g->prefill_w + ovh) * tp + (p1 + ovh) * td + (g->idle_w + ovh) * (T - tp - td);
	ck_assert_rel(M(sim, "one", "energy_kwh") * 3.6e6, e, 1e-12);
	ck_assert_rel(aiwi_test_curve_integral(sim, "inference.one.power_w"), e, 1e-12);
	/* the same with power_model = constant: decode_w over the decode */
	aiw_sim *c = replica_run("0,500,4\n", "max_batch = 8\n");
	double ec = (g->prefill_w + ovh) * tp + (g->decode_w + ovh) * td +
	            (g->idle_w + ovh) * (T - tp - td);
	ck_assert_rel(M(c, "one", "energy_kwh") * 3.6e6, ec, 1e-12);
	/* the timing does not move */
	ck_assert(M(c, "one", "e2e_mean_s") == M(sim, "one", "e2e_mean_s"));
	aiw_sim_free(c);
	aiw_sim_free(sim);
}
END_TEST

START_TEST(two_batches_by_hand)
{
	/* prompts of 100 tokens, outputs 3 and 5, both at 0: one prefill of
	 * both; 2 decode iterations of a batch of 2 over 202, 204 tokens, then
	 * 2 of a batch of 1 over 103, 104 (a dynamic batch of 2: full at once);
	 * levels and midpoint set by hand */
	fold k = folds();
	const aiwi_gpu_spec *g = aiwi_hw_gpu(NULL, "H100-SXM");
	aiw_sim *sim = replica_run("0,100,3\n0,100,5\n",
	                           "batching = dynamic\nmax_batch = 2\n"
	                           "power_model = batch\ndecode_power_low = 200W\n"
	                           "decode_power_high = 650W\ndecode_power_mid_batch = 3\n"
	                           "decode_power_width = 0.7\n");
	double tp = k.c0p + 2 * k.cmp + k.cup * 200 + k.cvp * 2 * 100.0 * 100;
	double t2 = decode(&k, 2, 202) + decode(&k, 2, 204);
	double t1 = decode(&k, 1, 103) + decode(&k, 1, 104);
	ck_assert_rel(M(sim, "one", "ttft_mean_s"), tp, 1e-12);
	ck_assert_rel(M(sim, "one", "e2e_mean_s"), tp + t2 + t1 / 2, 1e-12);
	double ovh = 2800.0 / 8, T = 600;
	double p2 = by_hand(200, 650, 3, 0.7, 2), p1 = by_hand(200, 650, 3, 0.7, 1);
	double e = (g->prefill_w + ovh) * tp + (p2 + ovh) * t2 + (p1 + ovh) * t1 +
	           (g->idle_w + ovh) * (T - tp - t2 - t1);
	ck_assert_rel(M(sim, "one", "energy_kwh") * 3.6e6, e, 1e-12);
	ck_assert_rel(aiwi_test_curve_integral(sim, "inference.one.power_w"), e, 1e-12);
	aiw_sim_free(sim);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* busy fleets                                                               */
/* ------------------------------------------------------------------------ */
static const char *BUSY =
	"[sim]\nduration = 20min\nsample_interval = 7s\n"
	"[site]\ngpus_per_rack = 6\n"
	"[inference x]\nreplicas = 3\nrate = 4/s\ngpus_per_replica = 4\n"
	"prompt_tokens = lognormal(median=3000,sigma=1.0)\n"
	"output_tokens = lognormal(median=200,sigma=0.8)\nmax_batch = 64\n"
	"power_model = batch\n";

/* energy = the integral of the fleet's power curve, and the site's rack
 * curves add up to it */
static void check_integrals(aiw_sim *sim, const char *what)
{
	double e = M(sim, "x", "energy_kwh") * 3.6e6;
	ck_assert_msg(e > 0, "%s", what);
	ck_assert_rel(aiwi_test_curve_integral(sim, "inference.x.power_w"), e, 1e-9);
	ck_assert_rel(aiwi_test_curve_integral(sim, "site.power_w"), e, 1e-9);
}

START_TEST(busy_fleets)
{
	/* both timings, chunked prefill, dynamic batching; the checking build
	 * verifies the invariants after every event */
	static const char *extra[] = {"timing = iteration\n", "timing = roofline\n",
	                              "chunked_prefill = on\nmax_num_batched_tokens = 1024\n",
	                              "batching = dynamic\nmax_batch = 16\n",
	                              "router = central\n"};
	for (size_t i = 0; i < sizeof extra / sizeof *extra; i++) {
		char text[2048];
		snprintf(text, sizeof text, "%s%s", BUSY, extra[i]);
		aiw_sim *sim = load(3 + i, text);
		AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
		check_conservation(sim, "x");
		check_integrals(sim, extra[i]);
		/* power per decoding GPU between the curve's levels: the fleet's
		 * power never above every GPU at prefill_w or the high level */
		double v[400];
		size_t n = 0;
		AIW_OK_OR_FAIL(sim, aiw_sim_series_copy(sim, "inference.x.power_w", NULL, v, 400, &n));
		ck_assert(n > 100);
		for (size_t j = 0; j < n; j++)
			ck_assert_msg(v[j] > 0 && v[j] <= 12 * (700 + 2800.0 / 8) * (1 + 1e-12),
			              "%s: sample %zu: %g", extra[i], j, v[j]);
		aiw_sim_free(sim);
	}
}
END_TEST

START_TEST(more_energy_than_low_less_than_high)
{
	/* the same traffic under three curves: flat at 300 W, the default, flat
	 * at 600 W: the energy is ordered, and the timing the same bit for bit */
	double e[3], e2e[3];
	const char *curves[] = {"decode_power_low = 300W\ndecode_power_high = 300W\n", "",
	                        "decode_power_low = 600W\ndecode_power_high = 600W\n"};
	for (int i = 0; i < 3; i++) {
		char text[2048];
		snprintf(text, sizeof text, "%s%s", BUSY, curves[i]);
		aiw_sim *sim = load(5, text);
		AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
		e[i] = M(sim, "x", "energy_kwh");
		e2e[i] = M(sim, "x", "e2e_mean_s");
		check_integrals(sim, curves[i]);
		aiw_sim_free(sim);
	}
	ck_assert_msg(e[0] < e[1] && e[1] < e[2], "%g %g %g", e[0], e[1], e[2]);
	ck_assert(e2e[0] == e2e[1] && e2e[1] == e2e[2]);
}
END_TEST

START_TEST(replicas_lost_inside_spans)
{
	aiw_sim *sim = load(9, BUSY);
	churn_replicas(sim, "x", true);
	check_integrals(sim, "churn");
	aiw_sim_free(sim);
}
END_TEST

START_TEST(seeded_runs_reproduced)
{
	aiw_sim *a = load(11, BUSY), *b = load(11, BUSY);
	AIW_OK_OR_FAIL(a, aiw_sim_run(a));
	AIW_OK_OR_FAIL(b, aiw_sim_run(b));
	aiwi_test_same_results(a, b, "power_model = batch, same seed");
	aiw_sim_free(a);
	aiw_sim_free(b);
}
END_TEST

START_TEST(constant_is_the_default)
{
	/* power_model = constant said or not: the same run bit for bit */
	static const char *BASE = "[sim]\nduration = 10min\nsample_interval = 7s\n"
	                          "[inference x]\nreplicas = 2\nrate = 3/s\n%s";
	char t1[512], t2[512];
	snprintf(t1, sizeof t1, BASE, "");
	snprintf(t2, sizeof t2, BASE, "power_model = constant\n");
	aiw_sim *a = load(13, t1), *b = load(13, t2);
	AIW_OK_OR_FAIL(a, aiw_sim_run(a));
	AIW_OK_OR_FAIL(b, aiw_sim_run(b));
	aiwi_test_same_results(a, b, "power_model = constant, the default");
	aiw_sim_free(a);
	aiw_sim_free(b);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* power capping                                                             */
/* ------------------------------------------------------------------------ */
START_TEST(capped_prefill_by_hand)
{
	/* a cap of 600 W on an H100 (prefill_w 700 W, decode_w 380 W, idle_w
	 * 75 W the floor): the prefill's clock f = ((600 - 75) / (700 - 75))^(1/3),
	 * its GEMM and attention terms 1/f longer, its fixed and per-prompt
	 * terms as they are, drawn at the cap; the decode below the cap keeps
	 * its time (bit for bit) and its power */
	fold k = folds();
	const aiwi_gpu_spec *g = aiwi_hw_gpu(NULL, "H100-SXM");
	aiw_sim *sim = replica_run("0,500,4\n", "max_batch = 8\npower_cap = 600W\n");
	aiw_sim *u = replica_run("0,500,4\n", "max_batch = 8\n");
	double f = pow((600.0 - 75) / (700 - 75), 1.0 / 3);
	double tp = k.c0p + k.cmp + (k.cup * 500 + k.cvp * 500.0 * 500) / f;
	ck_assert_rel(M(sim, "one", "ttft_mean_s"), tp, 1e-12);
	ck_assert_rel(M(sim, "one", "clock_factor_prefill"), f, 1e-15);
	ck_assert(M(sim, "one", "clock_factor_decode") == 1);
	double td = decode(&k, 1, 501) + decode(&k, 1, 502) + decode(&k, 1, 503);
	double tdu = M(u, "one", "e2e_mean_s") - M(u, "one", "ttft_mean_s");
	ck_assert_rel(M(sim, "one", "e2e_mean_s") - M(sim, "one", "ttft_mean_s"), tdu, 1e-12);
	ck_assert_rel(tdu, td, 1e-12);
	ck_assert(M(sim, "one", "tpot_mean_s") == M(u, "one", "tpot_mean_s"));
	double ovh = 2800.0 / 8, T = 600;
	double e = (600 + ovh) * tp + (g->decode_w + ovh) * td + (g->idle_w + ovh) * (T - tp - td);
	ck_assert_rel(M(sim, "one", "energy_kwh") * 3.6e6, e, 1e-12);
	ck_assert_rel(aiwi_test_curve_integral(sim, "inference.one.power_w"), e, 1e-12);
	/* throttled: the prefill's GPU-time; the mean clock over the busy time */
	ck_assert_rel(M(sim, "one", "power_capped_gpu_hours"), tp / 3600, 1e-12);
	ck_assert_rel(M(sim, "one", "power_capped_share"), tp / (tp + td), 1e-12);
	ck_assert_rel(M(sim, "one", "clock_factor_mean"), (f * tp + td) / (tp + td), 1e-12);
	/* uncapped: not a number */
	ck_assert(isnan(M(u, "one", "power_capped_gpu_hours")));
	aiw_sim_free(u);
	aiw_sim_free(sim);
}
END_TEST

START_TEST(capped_decode_by_hand)
{
	/* a cap of 300 W, below the decode's 380 W, floor 100 W set: the decode's
	 * clock ((300 - 100) / (380 - 100))^(1/3) slows its GEMM term (here 1 x
	 * the datasheet's 2P/F per sequence), not its fixed, memory and host
	 * terms; the prefill's clock from 700 W */
	fold k = folds();
	const aiwi_gpu_spec *g = aiwi_hw_gpu(NULL, "H100-SXM");
	aiw_sim *sim = replica_run("0,500,4\n", "max_batch = 8\npower_cap = 300W\n"
	                                        "power_cap_floor = 100W\ndecode.gemm = 1\n");
	double fp = cbrt((300.0 - 100) / (700 - 100)), fd = cbrt((300.0 - 100) / (380 - 100));
	ck_assert_rel(M(sim, "one", "clock_factor_prefill"), fp, 1e-15);
	ck_assert_rel(M(sim, "one", "clock_factor_decode"), fd, 1e-15);
	double tp = k.c0p + k.cmp + (k.cup * 500 + k.cvp * 500.0 * 500) / fp;
	ck_assert_rel(M(sim, "one", "ttft_mean_s"), tp, 1e-12);
	double gemm = 2 * P / g->bf16_flops / fd; /* per sequence of a decode iteration */
	double td = decode(&k, 1, 501) + decode(&k, 1, 502) + decode(&k, 1, 503) + 3 * gemm;
	ck_assert_rel(M(sim, "one", "e2e_mean_s"), tp + td, 1e-12);
	double ovh = 2800.0 / 8, T = 600;
	double e = (300 + ovh) * (tp + td) + (g->idle_w + ovh) * (T - tp - td);
	ck_assert_rel(M(sim, "one", "energy_kwh") * 3.6e6, e, 1e-12);
	ck_assert_rel(M(sim, "one", "power_capped_share"), 1, 1e-12);
	aiw_sim_free(sim);
}
END_TEST

START_TEST(capped_power_never_above_the_cap)
{
	/* a cap of 450 W with the batch model under it (low 200 W, high 450 W),
	 * chunked prefill and not: every sample of the fleet's power at most
	 * its GPUs at the cap plus the node overhead; energy = the integral */
	static const char *extra[] = {"", "chunked_prefill = on\nmax_num_batched_tokens = 1024\n"};
	for (int i = 0; i < 2; i++) {
		char text[2048];
		snprintf(text, sizeof text,
		         "%spower_cap = 450W\ndecode_power_low = 200W\ndecode_power_high = 450W\n%s",
		         BUSY, extra[i]);
		aiw_sim *sim = load(21 + i, text);
		AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
		check_conservation(sim, "x");
		check_integrals(sim, extra[i]);
		double v[400];
		size_t n = 0;
		AIW_OK_OR_FAIL(sim, aiw_sim_series_copy(sim, "inference.x.power_w", NULL, v, 400, &n));
		ck_assert(n > 100);
		double top = 12 * (450 + 2800.0 / 8);
		double peak = 0;
		for (size_t j = 0; j < n; j++) {
			ck_assert_msg(v[j] <= top * (1 + 1e-12), "sample %zu: %g > %g", j, v[j], top);
			peak = fmax(peak, v[j]);
		}
		ck_assert(peak > 0.8 * top);
		ck_assert(M(sim, "x", "power_capped_share") > 0 && M(sim, "x", "power_capped_share") < 1);
		double cm = M(sim, "x", "clock_factor_mean");
		ck_assert(cm > M(sim, "x", "clock_factor_prefill") && cm < 1);
		aiw_sim_free(sim);
	}
}
END_TEST

START_TEST(capped_runs_reproduced_and_churned)
{
	char text[2048];
	snprintf(text, sizeof text, "%spower_cap = 600W\n", BUSY);
	aiw_sim *a = load(17, text), *b = load(17, text);
	AIW_OK_OR_FAIL(a, aiw_sim_run(a));
	AIW_OK_OR_FAIL(b, aiw_sim_run(b));
	aiwi_test_same_results(a, b, "power_cap, same seed");
	aiw_sim_free(a);
	aiw_sim_free(b);
	aiw_sim *c = load(19, text);
	churn_replicas(c, "x", true);
	check_integrals(c, "churn, capped");
	ck_assert(M(c, "x", "power_capped_gpu_hours") > 0);
	aiw_sim_free(c);
}
END_TEST

START_TEST(cap_above_every_draw_changes_nothing)
{
	/* a cap of 700 W (the H100's prefill_w): no phase draws more, every
	 * result but the cap's own metrics the same bit for bit */
	static const char *BASE = "[sim]\nduration = 10min\nsample_interval = 7s\n"
	                          "[inference x]\nreplicas = 2\nrate = 3/s\n%s";
	char t1[512], t2[512];
	snprintf(t1, sizeof t1, BASE, "");
	snprintf(t2, sizeof t2, BASE, "power_cap = 700W\n");
	aiw_sim *a = load(13, t1), *b = load(13, t2);
	AIW_OK_OR_FAIL(a, aiw_sim_run(a));
	AIW_OK_OR_FAIL(b, aiw_sim_run(b));
	const char *keys[] = {"energy_kwh", "ttft_mean_s", "tpot_mean_s", "e2e_p99_s", "tokens_out",
	                      "cost_per_mtok_usd"};
	for (int i = 0; i < 6; i++)
		ck_assert_msg(M(a, "x", keys[i]) == M(b, "x", keys[i]), "%s", keys[i]);
	ck_assert(M(b, "x", "power_capped_gpu_hours") == 0);
	ck_assert(M(b, "x", "clock_factor_mean") == 1);
	aiw_sim_free(a);
	aiw_sim_free(b);
}
END_TEST

START_TEST(training_cap)
{
	/* a training job of 16 H100s, 1 s of compute a step, no gradient
	 * traffic, no jitter: under a cap of 500 W (compute_w 700 W, floor
	 * idle_w 75 W) each step's compute takes 1/f s, f = (425 / 625)^(1/3),
	 * drawing 500 W; energy = the integral of power */
	static const char *T =
		"[sim]\nduration = 2000s\nsample_interval = 10s\n"
		"[training t]\ngpus = 16\nstep_compute = 1s\ngrad_bytes_per_param = 0\n"
		"jitter = uniform(1,1)\nmax_steps = 1000\n%s";
	char t1[512], t2[512];
	snprintf(t1, sizeof t1, T, "");
	snprintf(t2, sizeof t2, T, "power_cap = 500W\n");
	aiw_sim *a = load(3, t1), *b = load(3, t2);
	AIW_OK_OR_FAIL(a, aiw_sim_run(a));
	AIW_OK_OR_FAIL(b, aiw_sim_run(b));
	double f = cbrt(425.0 / 625);
	ck_assert_rel(aiwi_test_metric(b, "training.t.clock_factor"), f, 1e-15);
	ck_assert(isnan(aiwi_test_metric(a, "training.t.clock_factor")));
	ck_assert_rel(aiwi_test_metric(b, "training.t.step_compute_s"), 1 / f, 1e-15);
	ck_assert_rel(aiwi_test_metric(b, "training.t.compute_s"),
	              aiwi_test_metric(a, "training.t.compute_s") / f, 1e-12);
	ck_assert(aiwi_test_metric(b, "training.t.steps") == 1000);
	ck_assert_rel(aiwi_test_curve_integral(b, "training.t.power_w"),
	              aiwi_test_metric(b, "training.t.energy_kwh") * 3.6e6, 1e-9);
	/* the GPUs' power: every sample at most 16 x 500 W and the nodes' overhead */
	double v[400], w[400];
	size_t n = 0, m = 0;
	AIW_OK_OR_FAIL(b, aiw_sim_series_copy(b, "training.t.power_w", NULL, v, 400, &n));
	AIW_OK_OR_FAIL(a, aiw_sim_series_copy(a, "training.t.power_w", NULL, w, 400, &m));
	ck_assert(n > 100 && m > 100);
	/* the capped draw per sample is the uncapped one less 16 x 200 W while computing */
	ck_assert_rel(v[5], w[5] - 16 * 200, 1e-12);
	aiw_sim_free(a);
	aiw_sim_free(b);
	expect_fail("[sim]\nduration = 1min\n[training t]\npower_cap = 500W\nlayers = 32\n"
	            "model_params = 7e9\nhidden = 4096\nheads = 32\nvocab = 32000\nseq_len = 4096\nglobal_batch = 1024\n",
	            AIW_EINVAL, "power_cap needs the mfu or step_compute model");
}
END_TEST

START_TEST(refusals)
{
	expect_fail("[inference x]\npower_model = linear\n", 0, "power_model");
	expect_fail("[inference x]\npower_model = batch\ndecode_power_low = -1W\n", 0,
	            "decode_power_low");
	expect_fail("[inference x]\npower_model = batch\ndecode_power_width = 0\n", 0,
	            "decode_power_width");
	expect_fail("[inference x]\npower_model = batch\ndecode_power_mid_batch = 0.5\n",
	            0, "decode_power_mid_batch");
	expect_fail("[sim]\nduration = 1min\n[inference x]\npower_model = batch\n"
	            "decode_power_low = 500W\ndecode_power_high = 400W\n",
	            AIW_EINVAL, "decode_power_high = 400 W is below decode_power_low = 500 W");
	expect_fail("[sim]\nduration = 1min\n[inference x]\npower_model = batch\n"
	            "service = exp(1s)\n",
	            AIW_EINVAL, "power_model = batch needs spans");
	expect_fail("[sim]\nduration = 1min\n[inference x]\npower_cap = 70W\n", AIW_EINVAL,
	            "power_cap = 70 W is not above its static floor power_cap_floor = 75 W");
	expect_fail("[sim]\nduration = 1min\n[inference x]\npower_cap = 500W\ntiming = roofline\n",
	            AIW_EINVAL, "power_cap needs timing = iteration");
	expect_fail("[sim]\nduration = 1min\n[inference x]\npower_cap = 500W\nservice = exp(1s)\n",
	            AIW_EINVAL, "power_cap needs timing = iteration");
	expect_fail("[sim]\nduration = 1min\n[inference x]\npower_cap = 500W\npower_model = batch\n",
	            AIW_EINVAL, "power_cap = 500 W is below decode_power_high = 600 W");
	expect_fail("[inference x]\npower_cap = 0W\n", 0, "power_cap");
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("power_model");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, logistic_by_hand);
	tcase_add_test(tc, lone_request_by_hand);
	tcase_add_test(tc, two_batches_by_hand);
	tcase_add_test(tc, busy_fleets);
	tcase_add_test(tc, more_energy_than_low_less_than_high);
	tcase_add_test(tc, replicas_lost_inside_spans);
	tcase_add_test(tc, seeded_runs_reproduced);
	tcase_add_test(tc, constant_is_the_default);
	tcase_add_test(tc, capped_prefill_by_hand);
	tcase_add_test(tc, capped_decode_by_hand);
	tcase_add_test(tc, capped_power_never_above_the_cap);
	tcase_add_test(tc, capped_runs_reproduced_and_churned);
	tcase_add_test(tc, cap_above_every_draw_changes_nothing);
	tcase_add_test(tc, training_cap);
	tcase_add_test(tc, refusals);
	suite_add_tcase(s, tc);
	return s;
}

AIW_TEST_MAIN(make_suite)
