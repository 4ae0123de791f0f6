/* test_chunked.c - chunked prefill (chunked_prefill = on,
 * lib/inference/fleet_chunk.c) against closed forms: a prompt of L tokens
 * alone under a budget B takes ceil(L/B) iterations, its TTFT the sum of
 * their times from the folded coefficients (set term by term, so that the
 * fold is known exactly), its energy and FLOPs; a prompt within the budget
 * alone is the unchunked prefill bit for bit; a hand-solved schedule of a
 * long prompt arriving while a request decodes (the decoder keeps a token
 * per mixed iteration, the prompt's TTFT at its last chunk's end); busy
 * fleets (request conservation, the checking build's invariants, the
 * budget among them, energy = the integral of power, seeded runs
 * reproduced bit for bit, a replica lost during chunks); the refusals. */
#include "core/internal.h"
#include "hw/hw.h"
#include "inference/serving.h"
#include "../testutil.h"
#include "fleet_test.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------------------ */
/* one replica, coefficients set term by term                                */
/* ------------------------------------------------------------------------ */
/* A 7e9-weight model (32 layers, d = 4096, 8 KV heads of 128, BF16) on one
 * H100 (tp = pp = 1: no all-reduce), timing = iteration with the
 * coefficients below, so that the folds are (iteration.c's terms):
 *   prefill  c0 = 0.01 s, cm = 1 ms, cu = 2 (2P/F), cv = 3 (2 L d / F)
 *   decode   c0 = 5 ms + 1.5 W/B, per sequence 0.2 ms, cv = 1.5 k/B
 * (F the BF16 peak, B the memory bandwidth, W the weight bytes, k the KV
 * bytes per token). */
#define COEFS                                                                                      \
	"prefill.overhead = 0.01\nprefill.gemm = 2\nprefill.attn = 3\nprefill.mem = 0\n"          \
	"prefill.comm = 0\nprefill.seq = 0.001\n"                                                  \
	"decode.overhead = 0.005\ndecode.gemm = 0\ndecode.attn = 0\ndecode.mem = 1.5\n"           \
	"decode.comm = 0\ndecode.seq = 0.0002\n"

static const double P = 7e9, LAY = 32, D = 4096, KV = 2.0 * 32 * 8 * 128 * 2;

typedef struct fold {
	double c0p, cmp, cup, cvp; /* prefill */
	double c0d, csd, cvd;      /* decode: fixed, per sequence, per token of context */
	double F, W;
} fold;

static fold folds(void)
{
	const aiwi_gpu_spec *g = aiwi_hw_gpu(NULL, "H100-SXM");
	ck_assert(g != NULL);
	fold k;
	k.F = g->bf16_flops;
	k.W = P * 16 / 8;
	double B = g->mem_bw;
	k.c0p = 0.01;
	k.cmp = 0.001;
	k.cup = 2 * (2 * P / (1.0 * k.F));
	k.cvp = 3 * (2 * LAY * D / (1.0 * k.F));
	k.c0d = 0.005 + 1.5 * (k.W / (1.0 * B));
	k.csd = 0.0002;
	k.cvd = 1.5 * (KV / (1.0 * B));
	return k;
}

/* A mixed iteration of n decoders holding S tokens and m chunks of T
 * tokens, Q = sum t (2 o + t) (fleet_chunk.c). */
static double mixed(const fold *k, double n, double S, double m, double T, double Q)
{
	double d = n > 0 ? k->c0d + S * k->cvd + n * k->csd : k->c0p;
	return d + k->cmp * m + k->cup * T + k->cvp * Q;
}

/* A decode iteration of n sequences holding S tokens. */
static double decode(const fold *k, double n, double S)
{
	return k->c0d + k->cvd * S + k->csd * n;
}

/* The trace's lines (TIMESTAMP,PROMPT,OUTPUT) on the replica above, budget
 * B, max_batch 8, for `dur`; `extra` adds to its section. */
static aiw_sim *replica_run(const char *lines, double budget, const char *dur, const char *extra)
{
	char path[256];
	FILE *tf = aiwi_test_tmpfile(path, sizeof path);
	fputs(lines, tf);
	fclose(tf);
	char text[2048];
	bool roofline = strstr(extra, "timing = roofline") != NULL;
	snprintf(text, sizeof text,
	         "[sim]\nduration = %s\nsample_interval = 1s\n"
	         "[inference one]\ngpus_per_replica = 1\nreplicas = 1\nmodel_params = 7e9\n"
	         "layers = 32\nkv_heads = 8\nhead_dim = 128\nhidden_size = 4096\nmax_batch = 8\n"
	         "traffic = trace\ntrace_file = %s\n%s"
	         "chunked_prefill = on\nmax_num_batched_tokens = %g\n%s",
	         dur, path, roofline ? "" : "timing = iteration\n" COEFS, budget, extra);
	aiw_sim *sim = load(1, text);
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	unlink(path);
	return sim;
}

START_TEST(alone_ceil_l_over_b)
{
	/* 5000 tokens under 2048: chunks of 2048, 2048, 904 at offsets 0,
	 * 2048, 4096, alone (no decode): each iteration the prefill fold on its
	 * chunk, its attention t (2 o + t); then 2 decode iterations over 5001
	 * and 5002 tokens */
	fold k = folds();
	aiw_sim *sim = replica_run("0,5000,3\n", 2048, "600s", "");
	double t[3], len[3] = {2048, 2048, 904}, off[3] = {0, 2048, 4096};
	for (int i = 0; i < 3; i++)
		t[i] = mixed(&k, 0, 0, 1, len[i], len[i] * (2 * off[i] + len[i]));
	double ttft = (t[0] + t[1]) + t[2];
	ck_assert_msg(M(sim, "one", "ttft_mean_s") == ttft, "TTFT %.17g, by hand %.17g",
	              M(sim, "one", "ttft_mean_s"), ttft);
	double td = decode(&k, 1, 5001) + decode(&k, 1, 5002);
	ck_assert_rel(M(sim, "one", "e2e_mean_s"), ttft + td, 1e-12);
	ck_assert_rel(M(sim, "one", "tpot_mean_s"), td / 2, 1e-12);
	ck_assert(M(sim, "one", "mixed_iterations") == 3); /* ceil(5000 / 2048) */
	ck_assert(M(sim, "one", "prefill_chunks") == 3);
	ck_assert(M(sim, "one", "chunks_per_prompt_mean") == 3);
	ck_assert(M(sim, "one", "decode_iterations") == 2);
	ck_assert(M(sim, "one", "prefill_tokens") == 5000);
	ck_assert(M(sim, "one", "tokens_out") == 3);
	/* energy: prefill power over the chunks, decode, idle (node overhead
	 * 2800 W / 8 per GPU), the power curve integrating back to it */
	const aiwi_gpu_spec *g = aiwi_hw_gpu(NULL, "H100-SXM");
	double ovh = 2800.0 / 8, T = 600;
	double e = (g->prefill_w + ovh) * ttft + (g->decode_w + ovh) * td +
	           (g->idle_w + ovh) * (T - ttft - td);
	ck_assert_rel(M(sim, "one", "energy_kwh") * 3.6e6, e, 1e-12);
	ck_assert_rel(aiwi_test_curve_integral(sim, "inference.one.power_w"), e, 1e-12);
	/* FLOPs: the chunks' attention adds up to the whole prompt's L^2 */
	double fl = 2 * P * (5000 + 2) + 2 * LAY * D * 5000.0 * 5000 + 4 * LAY * D * (5001 + 5002);
	ck_assert_rel(M(sim, "one", "compute_utilization"), fl / (T * k.F), 1e-12);
	check_conservation(sim, "one");
	aiw_sim_free(sim);
}
END_TEST

/* Every metric of a and b the same bit for bit but the run's wall time and
 * chunked prefill's own counters. */
static void same_but_chunk_counters(aiw_sim *a, aiw_sim *b)
{
	size_t n = 0;
	AIW_OK_OR_FAIL(a, aiw_sim_metric_count(a, &n));
	for (size_t i = 0; i < n; i++) {
		const char *name;
		AIW_OK_OR_FAIL(a, aiw_sim_metric_name(a, i, &name));
		if (!strncmp(name, "sim.wall", 8) || strstr(name, "mixed_iterations") ||
		    strstr(name, "prefill_chunks") || strstr(name, "chunks_per_prompt"))
			continue;
		double x = aiwi_test_metric(a, name), y = aiwi_test_metric(b, name);
		ck_assert_msg((isnan(x) && isnan(y)) || memcmp(&x, &y, sizeof x) == 0,
		              "%s: chunked %.17g, unchunked %.17g", name, x, y);
	}
}

START_TEST(within_budget_is_unchunked)
{
	/* one prompt within the budget, alone: one iteration, the unchunked
	 * prefill's, bit for bit, on either timing */
	static const char *timing[] = {"", "timing = roofline\n"};
	for (int i = 0; i < 2; i++) {
		char extra[256];
		snprintf(extra, sizeof extra, "%s", timing[i]);
		aiw_sim *on = replica_run("0,1000,100\n", 2048, "600s", extra);
		snprintf(extra, sizeof extra, "%schunked_prefill = off\n", timing[i]);
		aiw_sim *off = replica_run("0,1000,100\n", 2048, "600s", extra);
		same_but_chunk_counters(on, off);
		ck_assert(M(on, "one", "mixed_iterations") == 1);
		ck_assert(M(off, "one", "mixed_iterations") == 0);
		ck_assert(isnan(M(off, "one", "chunks_per_prompt_mean")));
		aiw_sim_free(on);
		aiw_sim_free(off);
	}
}
END_TEST

START_TEST(long_prompt_joins_a_decoder)
{
	/* A: 100 tokens, 20 out at t = 0; B: 5000 tokens, 2 out at X = 0.1 s,
	 * budget 2048.  A prefills alone (one iteration), decodes; B joins at
	 * the first iteration boundary after X (kb decode iterations of A);
	 * then three mixed iterations, A's decode first (one token each) and
	 * B's chunks of 2047, 2047, 906 at offsets 0, 2047, 4094; B's first
	 * token at the third's end; one decode iteration of both (B's last
	 * token); A alone to its 20th token. */
	fold k = folds();
	double X = 0.1;
	aiw_sim *sim = replica_run("0,100,20\n0.1,5000,2\n", 2048, "600s", "");
	double tA0 = mixed(&k, 0, 0, 1, 100, 100.0 * 100);
	double t = tA0, S = 101;
	int kb = 0;
	while (t <= X) { /* A's decode iterations until the boundary after X */
		t += decode(&k, 1, S);
		S++;
		kb++;
	}
	ck_assert(kb >= 1 && kb < 10);
	double len[3] = {2047, 2047, 906}, off[3] = {0, 2047, 4094};
	for (int i = 0; i < 3; i++) {
		t += mixed(&k, 1, S, 1, len[i], len[i] * (2 * off[i] + len[i]));
		S++; /* A's token of the mixed iteration */
	}
	double ttftB = t - X;
	t += decode(&k, 2, S + 5001); /* both: B's second token */
	double e2eB = t - X;
	S++;
	int rest = 20 - (1 + kb + 3 + 1); /* A's tokens still due */
	ck_assert(rest > 0);
	for (int j = 0; j < rest; j++) {
		t += decode(&k, 1, S);
		S++;
	}
	double e2eA = t;
	ck_assert_rel(M(sim, "one", "ttft_mean_s"), (tA0 + ttftB) / 2, 1e-12);
	ck_assert_rel(M(sim, "one", "e2e_mean_s"), (e2eA + e2eB) / 2, 1e-12);
	/* TPOT: A's over its 19 tokens after the first (the mixed iterations
	 * among them), B's one */
	ck_assert_rel(M(sim, "one", "tpot_mean_s"), ((e2eA - tA0) / 19 + (e2eB - ttftB)) / 2, 1e-12);
	ck_assert(M(sim, "one", "mixed_iterations") == 4);
	ck_assert(M(sim, "one", "prefill_chunks") == 4);
	ck_assert(M(sim, "one", "chunks_per_prompt_mean") == 2);
	/* A's kb + 3 mixed + 1 of both + rest */
	ck_assert(M(sim, "one", "decode_iterations") == kb + 3 + 1 + rest);
	ck_assert(M(sim, "one", "tokens_out") == 22);
	check_conservation(sim, "one");
	aiw_sim_free(sim);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* busy fleets                                                               */
/* ------------------------------------------------------------------------ */
static const char *BUSY =
	"[sim]\nduration = 20min\nsample_interval = 7s\n"
	"[inference x]\nreplicas = 3\nrate = 4/s\ngpus_per_replica = 4\n"
	"prompt_tokens = lognormal(median=3000,sigma=1.0)\noutput_tokens = lognormal(median=200,sigma=0.8)\n"
	"chunked_prefill = on\nmax_num_batched_tokens = 1024\nmax_batch = 64\n";

START_TEST(busy_fleets)
{
	/* both timings, every router; the checking build verifies the
	 * invariants after every event (the budget of every mixed iteration
	 * among them) */
	static const char *routers[] = {"least_loaded", "round_robin", "p2c", "central"};
	static const char *timing[] = {"iteration", "roofline"};
	for (int r = 0; r < 4; r++)
		for (int ti = 0; ti < 2; ti++) {
			char text[2048];
			snprintf(text, sizeof text, "%srouter = %s\ntiming = %s\n", BUSY, routers[r],
			         timing[ti]);
			aiw_sim *sim = load(3 + r, text);
			AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
			check_conservation(sim, "x");
			double arr = M(sim, "x", "requests_arrived");
			ck_assert_msg(M(sim, "x", "requests_completed") > 0.8 * arr, "%s/%s: %g of %g",
			              routers[r], timing[ti], M(sim, "x", "requests_completed"), arr);
			ck_assert(M(sim, "x", "chunks_per_prompt_mean") > 1);
			/* energy = the integral of power; tokens and FLOPs at every
			 * sample (never negative: what a chunk booked ahead is taken
			 * back exactly) */
			ck_assert_rel(aiwi_test_curve_integral(sim, "inference.x.power_w"),
			              M(sim, "x", "energy_kwh") * 3.6e6, 1e-9);
			ck_assert_rel(aiwi_test_curve_integral(sim, "inference.x.tokens_per_s"),
			              M(sim, "x", "tokens_out"), 1e-9);
			double v[200];
			size_t n = 0;
			AIW_OK_OR_FAIL(sim, aiw_sim_series_copy(sim, "inference.x.compute_utilization",
			                                        NULL, v, 200, &n));
			ck_assert(n > 100);
			for (size_t i = 0; i < n; i++)
				/* (the roofline's times leave attention out: its FLOPs
				 * can pass the peak on long contexts, chunked or not) */
				ck_assert_msg(v[i] >= 0 && (ti == 1 || v[i] <= 1), "%s/%s: sample %zu: %g",
				              routers[r], timing[ti], i, v[i]);
			AIW_OK_OR_FAIL(sim, aiw_sim_series_copy(sim, "inference.x.tokens_per_s", NULL, v,
			                                        200, &n));
			for (size_t i = 0; i < n; i++)
				ck_assert(v[i] >= 0);
			aiw_sim_free(sim);
		}
}
END_TEST

START_TEST(seeded_runs_reproduced)
{
	aiw_sim *a = load(11, BUSY), *b = load(11, BUSY);
	AIW_OK_OR_FAIL(a, aiw_sim_run(a));
	AIW_OK_OR_FAIL(b, aiw_sim_run(b));
	aiwi_test_same_results(a, b, "chunked prefill, same seed");
	aiw_sim_free(a);
	aiw_sim_free(b);
}
END_TEST

/* Chunked prefill moves tail latency as Sarathi-Serve describes: the
 * decodes stall no more behind long prompts (TPOT P99 falls), prompts wait
 * for budget (TTFT rises a little). */
START_TEST(decode_stalls_removed)
{
	aiw_sim *on = load(5, BUSY);
	char text[2048];
	snprintf(text, sizeof text, "%schunked_prefill = off\n", BUSY);
	aiw_sim *off = load(5, text);
	AIW_OK_OR_FAIL(on, aiw_sim_run(on));
	AIW_OK_OR_FAIL(off, aiw_sim_run(off));
	ck_assert_msg(M(on, "x", "tpot_p99_s") < M(off, "x", "tpot_p99_s"), "TPOT P99 on %g, off %g",
	              M(on, "x", "tpot_p99_s"), M(off, "x", "tpot_p99_s"));
	ck_assert(M(off, "x", "mixed_iterations") == 0 && M(off, "x", "prefill_chunks") == 0);
	aiw_sim_free(on);
	aiw_sim_free(off);
}
END_TEST

START_TEST(replica_lost_during_chunks)
{
	/* replicas fail at many instants, some inside mixed iterations: their
	 * prompts still prefilling restart elsewhere, what the iteration
	 * booked ahead is taken back (the invariants after every event, the
	 * conservation and energy at the end) */
	aiw_sim *sim = load(9, BUSY);
	churn_replicas(sim, "x", true);
	aiw_sim_free(sim);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* long_prefill_token_threshold                                              */
/* ------------------------------------------------------------------------ */
START_TEST(threshold_alone_ceil_l_over_min_b_th)
{
	/* 5000 tokens, budget 2048, threshold 1000: ceil(5000 / min(2048,
	 * 1000)) = 5 chunks of 1000 at offsets 0, 1000, ..., 4000, alone; a
	 * threshold of 3000 (above the budget) caps nothing: ceil(5000 / 2048)
	 * = 3, the unthresholded run bit for bit */
	fold k = folds();
	aiw_sim *sim = replica_run("0,5000,3\n", 2048, "600s", "long_prefill_token_threshold = 1000\n");
	double ttft = 0;
	for (int i = 0; i < 5; i++)
		ttft += mixed(&k, 0, 0, 1, 1000, 1000.0 * (2 * 1000.0 * i + 1000));
	ck_assert_msg(M(sim, "one", "ttft_mean_s") == ttft, "TTFT %.17g, by hand %.17g",
	              M(sim, "one", "ttft_mean_s"), ttft);
	ck_assert(M(sim, "one", "mixed_iterations") == 5);
	ck_assert(M(sim, "one", "prefill_chunks") == 5);
	ck_assert(M(sim, "one", "prefill_tokens") == 5000);
	check_conservation(sim, "one");
	aiw_sim_free(sim);
	aiw_sim *a = replica_run("0,5000,3\n", 2048, "600s", "long_prefill_token_threshold = 3000\n");
	aiw_sim *b = replica_run("0,5000,3\n", 2048, "600s", "");
	ck_assert(M(a, "one", "mixed_iterations") == 3);
	aiwi_test_same_results(a, b, "threshold above the budget");
	aiw_sim_free(a);
	aiw_sim_free(b);
}
END_TEST

START_TEST(threshold_two_prompts_share_iterations)
{
	/* two prompts of 3000 tokens at t = 0, budget 2048, threshold 1024: the
	 * first arrival starts a span with A alone; B is admitted at the next
	 * span's start.  Each prompt takes min(rest, 1024, left) in admission
	 * order, so both advance in the same iterations:
	 *   1: A 1024 at 0                       Q = 1024^2
	 *   2: A 1024 at 1024, B 1024 at 0       Q = 1024 (2048 + 1024) + 1024^2
	 *   3: A 952 at 2048 (its last), B 1024 at 1024 (left 1096)
	 *                                        Q = 952 (4096 + 952) + 1024 (2048 + 1024)
	 *   4: A decodes (context 3001), B 952 at 2048 (its last)
	 * A's TTFT at 3's end, its e2e at 4's; B's TTFT at 4's end, then one
	 * decode iteration alone over 3001 tokens.  Without the threshold: A
	 * 2048 alone; A 952 + B 1096; A's decode + B 1904 (3 iterations). */
	fold k = folds();
	const char *two = "0,3000,2\n0,3000,2\n";
	aiw_sim *sim = replica_run(two, 2048, "600s", "long_prefill_token_threshold = 1024\n");
	double t1 = mixed(&k, 0, 0, 1, 1024, 1024.0 * 1024);
	double t2 = mixed(&k, 0, 0, 2, 2048, 1024.0 * 3072 + 1024.0 * 1024);
	double t3 = mixed(&k, 0, 0, 2, 1976, 952.0 * 5048 + 1024.0 * 3072);
	double t4 = mixed(&k, 1, 3001, 1, 952, 952.0 * 5048);
	double ta = (t1 + t2) + t3, tb = ta + t4;
	ck_assert_rel(M(sim, "one", "ttft_mean_s"), (ta + tb) / 2, 1e-12);
	ck_assert_rel(M(sim, "one", "ttft_max_s"), tb, 1e-12);
	ck_assert(M(sim, "one", "mixed_iterations") == 4);
	ck_assert(M(sim, "one", "prefill_chunks") == 6);
	ck_assert(M(sim, "one", "chunks_per_prompt_mean") == 3);
	ck_assert_rel(M(sim, "one", "e2e_mean_s"), (tb + tb + decode(&k, 1, 3001)) / 2, 1e-12);
	check_conservation(sim, "one");
	aiw_sim_free(sim);
	sim = replica_run(two, 2048, "600s", "");
	double u1 = mixed(&k, 0, 0, 1, 2048, 2048.0 * 2048);
	double u2 = mixed(&k, 0, 0, 2, 2048, 952.0 * (2 * 2048 + 952) + 1096.0 * 1096);
	double u3 = mixed(&k, 1, 3001, 1, 1904, 1904.0 * (2 * 1096 + 1904));
	ck_assert_rel(M(sim, "one", "ttft_mean_s"), ((u1 + u2) + ((u1 + u2) + u3)) / 2, 1e-12);
	ck_assert(M(sim, "one", "mixed_iterations") == 3);
	aiw_sim_free(sim);
}
END_TEST

START_TEST(threshold_busy_fleets)
{
	/* several partial prefills per iteration in busy fleets: the checking
	 * build verifies every mixed iteration within the budget and the
	 * invariants after every event; conservation, energy = the integral of
	 * power, seeded runs bit for bit, replicas lost during chunks */
	static const char *timing[] = {"iteration", "roofline"};
	for (int ti = 0; ti < 2; ti++) {
		char text[2048];
		snprintf(text, sizeof text, "%stiming = %s\nlong_prefill_token_threshold = 300\n", BUSY,
		         timing[ti]);
		aiw_sim *a = load(5, text), *b = load(5, text);
		AIW_OK_OR_FAIL(a, aiw_sim_run(a));
		AIW_OK_OR_FAIL(b, aiw_sim_run(b));
		check_conservation(a, "x");
		ck_assert(M(a, "x", "requests_completed") > 0.8 * M(a, "x", "requests_arrived"));
		ck_assert(M(a, "x", "chunks_per_prompt_mean") > 1);
		ck_assert_rel(aiwi_test_curve_integral(a, "inference.x.power_w"),
		              M(a, "x", "energy_kwh") * 3.6e6, 1e-9);
		aiwi_test_same_results(a, b, "threshold, same seed");
		aiw_sim_free(a);
		aiw_sim_free(b);
		aiw_sim *c = load(9, text);
		churn_replicas(c, "x", true);
		aiw_sim_free(c);
	}
}
END_TEST

/* ------------------------------------------------------------------------ */
/* refusals                                                                  */
/* ------------------------------------------------------------------------ */
START_TEST(refusals)
{
	expect_fail("[sim]\nduration = 1min\n[inference a]\nbatching = dynamic\nchunked_prefill = on\n",
	            AIW_EINVAL, "chunked_prefill = on needs continuous batching");
	expect_fail("[sim]\nduration = 1min\n[inference a]\nservice = exp(1s)\n"
	            "chunked_prefill = on\n",
	            AIW_EINVAL, "service set");
	expect_fail("[sim]\nduration = 1min\n[inference a]\nmax_batch = 64\nchunked_prefill = on\n"
	            "max_num_batched_tokens = 32\n",
	            AIW_ERANGE, "max_num_batched_tokens = 32 is below inference.a.max_batch = 64");
	/* vLLM's default budget: 8192 on an H100, 2048 on an A100; a default
	 * max_batch (1024 on an H100) within it */
	aiw_sim *sim = load(1, "[sim]\nduration = 1min\n[inference a]\nchunked_prefill = on\n"
	                       "rate = 2/s\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	check_conservation(sim, "a");
	aiw_sim_free(sim);
	expect_fail("[sim]\nduration = 1min\n[inference a]\ngpu = A100-80GB\n"
	            "gpus_per_replica = 4\nmax_batch = 4096\nchunked_prefill = on\n",
	            AIW_ERANGE, "max_num_batched_tokens = 2048 is below");
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("chunked");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, alone_ceil_l_over_b);
	tcase_add_test(tc, within_budget_is_unchunked);
	tcase_add_test(tc, long_prompt_joins_a_decoder);
	tcase_add_test(tc, busy_fleets);
	tcase_add_test(tc, seeded_runs_reproduced);
	tcase_add_test(tc, decode_stalls_removed);
	tcase_add_test(tc, replica_lost_during_chunks);
	tcase_add_test(tc, threshold_alone_ceil_l_over_min_b_th);
	tcase_add_test(tc, threshold_two_prompts_share_iterations);
	tcase_add_test(tc, threshold_busy_fleets);
	tcase_add_test(tc, refusals);
	suite_add_tcase(s, tc);
	return s;
}

AIW_TEST_MAIN(make_suite)
