/* test_prefix.c - conversations (sessions = on) and the per-replica prefix
 * cache (prefix_caching = on, lib/inference/fleet_prefix.c) against closed
 * forms: conversations that each extend the last turn, nothing evicted,
 * hit exactly the previous contexts (their full 16-token blocks, the last
 * sampled token uncomputed) and the shared system prompt, and every turn's
 * TTFT is the iteration model's prefill of its uncached tokens alone; a
 * hand-worked LRU trace in a 1,000-token KV cache (what is evicted, from
 * which entry, what the later turns hit); the same with chunked prefill;
 * busy fleets under every router (request conservation, the checking
 * build's invariants with the cache's share and LRU list among them,
 * energy = the integral of power, tokens prefilled + saved = tokens
 * admitted); seeded runs reproduced bit for bit; prefix caching without
 * conversations leaves every result as it is; lost replicas; refusals. */
#include "core/internal.h"
#include "hw/hw.h"
#include "inference/serving.h"
#include "../testutil.h"
#include "fleet_test.h"

#include <stdlib.h>
#include <string.h>

/* Every metric of a and b the same bit for bit (but the wall time and the
 * metrics named in `skip`, a list of substrings ending with NULL). */
static void same_bits(aiw_sim *a, aiw_sim *b, const char *const *skip)
{
	size_t n = 0, nb = 0;
	AIW_OK_OR_FAIL(a, aiw_sim_metric_count(a, &n));
	AIW_OK_OR_FAIL(b, aiw_sim_metric_count(b, &nb));
	ck_assert(n == nb);
	for (size_t i = 0; i < n; i++) {
		const char *name;
		AIW_OK_OR_FAIL(a, aiw_sim_metric_name(a, i, &name));
		bool skipped = !strncmp(name, "sim.wall", 8);
		for (const char *const *s = skip; s && *s && !skipped; s++)
			skipped = strstr(name, *s) != NULL;
		if (skipped)
			continue;
		double x = aiwi_test_metric(a, name), y = aiwi_test_metric(b, name);
		ck_assert_msg((isnan(x) && isnan(y)) || memcmp(&x, &y, sizeof x) == 0,
		              "%s: %.17g against %.17g", name, x, y);
	}
}

/* ------------------------------------------------------------------------ */
/* one replica, coefficients set term by term (test_chunked.c's)            */
/* ------------------------------------------------------------------------ */
#define COEFS                                                                                      \
	"prefill.overhead = 0.01\nprefill.gemm = 2\nprefill.attn = 3\nprefill.mem = 0\n"          \
	"prefill.comm = 0\nprefill.seq = 0.001\n"                                                  \
	"decode.overhead = 0.005\ndecode.gemm = 0\ndecode.attn = 0\ndecode.mem = 1.5\n"           \
	"decode.comm = 0\ndecode.seq = 0.0002\n"

static const double P = 7e9, LAY = 32, D = 4096;

/* The prefill of one prompt of t new tokens after h cached ones, alone: the
 * folded prefill c0 + cm + cu t + cv t (2 h + t) (iteration.c's terms). */
static double prefill_alone(double t, double h)
{
	const aiwi_gpu_spec *g = aiwi_hw_gpu(NULL, "H100-SXM");
	ck_assert(g != NULL);
	double F = g->bf16_flops;
	double cu = 2 * (2 * P / (1.0 * F)), cv = 3 * (2 * LAY * D / (1.0 * F));
	return 0.01 + 0.001 + cu * t + cv * (t * (2 * h + t));
}

/* Conversations one at a time on one replica: session rate 1 / 100 s
 * (bursty with cv 1e-3: nearly periodic), `turns` turns, `think` apart,
 * messages of M tokens, outputs of O, `sys` a system prompt section. */
static char *replica_text(char *buf, size_t len, int turns, double m, double o, const char *think,
                          const char *sys, const char *dur, const char *extra)
{
	snprintf(buf, len,
	         "[sim]\nduration = %s\nsample_interval = 10s\n"
	         "[inference one]\ngpus_per_replica = 1\nreplicas = 1\nmodel_params = 7e9\n"
	         "layers = 32\nkv_heads = 8\nhead_dim = 128\nhidden_size = 4096\nmax_batch = 8\n"
	         "timing = iteration\n" COEFS
	         "traffic = bursty\ncv = 1e-3\nrate = %g/s\n"
	         "sessions = on\nsession_turns = const(%d)\nthink_time = const(%s)\n"
	         "prompt_tokens = const(%g)\noutput_tokens = const(%g)\n%s"
	         "prefix_caching = on\nrouter = affinity\n%s",
	         dur, turns / 100.0, turns, think, m, o, sys, extra);
	return buf;
}

START_TEST(hits_are_the_previous_contexts)
{
	/* system prompt S = 161 tokens, messages 100, outputs 60: turn k's
	 * context C_k = S + 160 k, prompt P_k = C_{k-1} + 100 (P_1 = S + 100).
	 * A turn k >= 2 hits the full blocks of C_{k-1} - 1 computed tokens:
	 * C_{k-1} - 1 = 160 k is a whole number of blocks, so the hit is the
	 * previous context exactly (less its last sampled token, never fed
	 * back); a conversation's first turn hits the system prompt's 10 full
	 * blocks (160 tokens) once an earlier conversation left it cached. */
	char text[4096];
	replica_text(text, sizeof text, 4, 100, 60, "1s",
	             "system_prompts = 1\nsystem_prompt_tokens = const(161)\n", "950s", "");
	aiw_sim *sim = load(1, text);
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	double n = M(sim, "one", "sessions_started");
	ck_assert_msg(n == 9, "%g conversations", n);
	ck_assert(M(sim, "one", "sessions_completed") == n);
	ck_assert(M(sim, "one", "sessions_abandoned") == 0);
	ck_assert(M(sim, "one", "requests_completed") == 4 * n);
	ck_assert(M(sim, "one", "cache_evicted_blocks") == 0);
	double Pk[4], hit = 0, tokens = 0, ttft = 0;
	for (int k = 1; k <= 4; k++) {
		Pk[k - 1] = 161 + 160.0 * (k - 1) + 100;
		tokens += Pk[k - 1];
	}
	for (int j = 0; j < n; j++)
		for (int k = 1; k <= 4; k++) {
			double h = k == 1 ? (j ? 160 : 0) : (161 + 160.0 * (k - 1)) - 1;
			hit += h;
			ttft += prefill_alone(Pk[k - 1] - h, h);
		}
	ck_assert(hit == n * (320 + 480 + 640) + (n - 1) * 160);
	ck_assert_msg(M(sim, "one", "prefill_tokens_saved") == hit, "saved %.17g, by hand %.17g",
	              M(sim, "one", "prefill_tokens_saved"), hit);
	ck_assert(M(sim, "one", "prefill_tokens") == n * tokens - hit);
	ck_assert(M(sim, "one", "tokens_in") == n * tokens);
	ck_assert(M(sim, "one", "prefix_hit_ratio") == hit / (n * tokens));
	ck_assert_rel(M(sim, "one", "ttft_mean_s"), ttft / (4 * n), 1e-12);
	check_conservation(sim, "one");
	ck_assert_rel(aiwi_test_curve_integral(sim, "inference.one.power_w"),
	              M(sim, "one", "energy_kwh") * 3.6e6, 1e-9);
	aiw_sim_free(sim);

	/* without the system prompt, sizes off the block grid: each turn k >=
	 * 2 hits 16 floor((C_{k-1} - 1) / 16) of C_{k-1} = 150 (k - 1) */
	replica_text(text, sizeof text, 4, 90, 60, "1s", "", "950s", "");
	sim = load(1, text);
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	n = M(sim, "one", "sessions_completed");
	ck_assert(n == 9 && M(sim, "one", "sessions_started") == n);
	hit = 0;
	for (int k = 2; k <= 4; k++)
		hit += 16 * floor((150.0 * (k - 1) - 1) / 16);
	ck_assert(hit == 144 + 288 + 448);
	ck_assert(M(sim, "one", "prefill_tokens_saved") == n * hit);
	aiw_sim_free(sim);
}
END_TEST

/* The capacity of the replica above in tokens: kv_bytes_per_token chosen
 * so that the KV cache holds exactly `cap` tokens. */
static double kv_bytes_for(double cap)
{
	const aiwi_gpu_spec *g = aiwi_hw_gpu(NULL, "H100-SXM");
	double usable = g->mem_bytes * (1 - 0.1) - P * 2;
	return usable / (cap + 0.5);
}

START_TEST(lru_trace_by_hand)
{
	/* A KV cache of 1,000 tokens; conversations A, B, C... at t0, t0 +
	 * 100, t0 + 200... of 2 turns, think time 250 s, messages 100,
	 * outputs 60.  A first turn holds 101 + 59 = 160 tokens by its end and
	 * leaves floor(159 / 16) = 9 blocks; a second (260 tokens, 144 of them
	 * hit when its 9 blocks are all there) holds 320 and leaves 19.
	 * Running, a turn leaves the cache 1000 - 160 = 840 (52 blocks) or
	 * 1000 - 320 = 680 (42 blocks); the LRU list, most recent first:
	 *   A1          [A9]                                    9
	 *   B1          [B9 A9]                                18
	 *   C1          [C9 B9 A9]                             27
	 *   A2 hits 144 [A19 C9 B9]                            37
	 *   D1          [D9 A19 C9 B9]                         46
	 *   B2 hits 144 [B19 D9 A19 C9]                        56
	 *   E1 evicts 4 of C's (56 -> 52)  [E9 B19 D9 A19 C5]  61
	 *   C2 hits 80, evicts 14 of A's (56 -> 42)
	 *               [C19 E9 B19 D9 A5]                     61
	 *   F1 evicts A's 5 and 4 of D's (61 -> 52)
	 *               [F9 C19 E9 B19 D5]                     61
	 *   D2 hits 80, evicts 14 of B's (56 -> 42)
	 *               [D19 F9 C19 E9 B5]                     61
	 * before G1 and E2: hits 448 tokens, 41 blocks evicted, 61 cached
	 * (976 tokens), conversations A to D done. */
	char extra[256], text[4096];
	snprintf(extra, sizeof extra, "kv_bytes_per_token = %.17g\n", kv_bytes_for(1000));
	replica_text(text, sizeof text, 2, 100, 60, "250s", "", "680s", extra);
	aiw_sim *sim = load(1, text);
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert_msg(M(sim, "one", "sessions_started") == 6, "%g started",
	              M(sim, "one", "sessions_started"));
	ck_assert(M(sim, "one", "sessions_completed") == 4);
	ck_assert(M(sim, "one", "kv_capacity_bytes") / M(sim, "one", "kv_bytes_per_token") < 1001);
	ck_assert_msg(M(sim, "one", "prefill_tokens_saved") == 448, "saved %g",
	              M(sim, "one", "prefill_tokens_saved"));
	ck_assert_msg(M(sim, "one", "cache_evicted_blocks") == 41, "evicted %g",
	              M(sim, "one", "cache_evicted_blocks"));
	double v[100];
	size_t k = 0;
	AIW_OK_OR_FAIL(sim, aiw_sim_series_copy(sim, "inference.one.cached_tokens", NULL, v, 100, &k));
	ck_assert(k > 10);
	ck_assert_msg(v[k - 1] == 976, "cached at the end %g", v[k - 1]);
	for (size_t i = 0; i < k; i++)
		ck_assert(v[i] >= 0 && v[i] <= 1000);
	ck_assert(M(sim, "one", "preemptions") == 0);
	check_conservation(sim, "one");
	aiw_sim_free(sim);
}
END_TEST

START_TEST(with_chunked_prefill)
{
	/* prompts within the budget: each turn's uncached tokens are one chunk
	 * at the offset of its hit, the same iteration as unchunked, bit for
	 * bit (test_chunked.c's within_budget); a budget of 64 cuts them (the
	 * first chunk starts at the hit), and the hits are the same */
	static const char *const counters[] = {"mixed_iterations", "prefill_chunks",
	                                       "chunks_per_prompt", NULL};
	char text[4096];
	replica_text(text, sizeof text, 4, 100, 60, "1s",
	             "system_prompts = 1\nsystem_prompt_tokens = const(161)\n", "950s",
	             "chunked_prefill = on\nmax_num_batched_tokens = 2048\n");
	aiw_sim *on = load(1, text);
	replica_text(text, sizeof text, 4, 100, 60, "1s",
	             "system_prompts = 1\nsystem_prompt_tokens = const(161)\n", "950s", "");
	aiw_sim *off = load(1, text);
	AIW_OK_OR_FAIL(on, aiw_sim_run(on));
	AIW_OK_OR_FAIL(off, aiw_sim_run(off));
	same_bits(on, off, counters);
	ck_assert(M(on, "one", "mixed_iterations") == M(on, "one", "requests_completed"));
	aiw_sim_free(on);
	replica_text(text, sizeof text, 4, 100, 60, "1s",
	             "system_prompts = 1\nsystem_prompt_tokens = const(161)\n", "950s",
	             "chunked_prefill = on\nmax_num_batched_tokens = 64\n");
	on = load(1, text);
	AIW_OK_OR_FAIL(on, aiw_sim_run(on));
	ck_assert(M(on, "one", "prefill_tokens_saved") == M(off, "one", "prefill_tokens_saved"));
	ck_assert(M(on, "one", "prefill_tokens") == M(off, "one", "prefill_tokens"));
	/* the uncached tokens of every turn by chunks of 64: 101 (two chunks)
	 * but the first conversation's first turn, 261 (five) */
	ck_assert(M(on, "one", "sessions_completed") == 9);
	ck_assert(M(on, "one", "prefill_chunks") == 5 + 2 * (4 * 9 - 1));
	check_conservation(on, "one");
	aiw_sim_free(on);
	aiw_sim_free(off);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* busy fleets                                                               */
/* ------------------------------------------------------------------------ */
static const char *BUSY =
	"[sim]\nduration = 20min\nsample_interval = 7s\n"
	"[inference x]\nreplicas = 3\nrate = 6/s\ngpus_per_replica = 1\nmodel_params = 8e9\n"
	"layers = 32\nkv_heads = 8\nhead_dim = 128\nkv_margin = 0.6\n"
	"sessions = on\nsession_turns = lognormal(median=4,sigma=0.6)\nthink_time = exp(15s)\n"
	"system_prompts = 12\nsystem_prompt_tokens = lognormal(median=1500,sigma=0.5)\n"
	"system_prompt_zipf = 1.1\n"
	"prompt_tokens = lognormal(median=300,sigma=0.8)\noutput_tokens = "
	"lognormal(median=200,sigma=0.8)\nprefix_caching = on\nmax_batch = 64\n";

START_TEST(busy_fleets)
{
	/* every router, chunked prefill off and on, both timings; the checking
	 * build verifies the invariants after every event (the cache within
	 * the KV the running requests leave, its LRU list at every sample) */
	static const char *routers[] = {"affinity", "kv_aware", "least_loaded", "round_robin", "p2c",
	                                "central"};
	for (int r = 0; r < 6; r++)
		for (int ch = 0; ch < 2; ch++) {
			char text[2048];
			snprintf(text, sizeof text, "%srouter = %s\nchunked_prefill = %s\ntiming = %s\n",
			         BUSY, routers[r], ch ? "on" : "off", r % 2 ? "roofline" : "iteration");
			aiw_sim *sim = load(3 + r, text);
			AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
			check_conservation(sim, "x");
			double arr = M(sim, "x", "requests_arrived");
			ck_assert_msg(M(sim, "x", "requests_completed") > 0.8 * arr, "%s: %g of %g",
			              routers[r], M(sim, "x", "requests_completed"), arr);
			ck_assert(M(sim, "x", "sessions_completed") > 0);
			ck_assert(M(sim, "x", "prefix_hit_ratio") > 0.2);
			ck_assert(M(sim, "x", "cache_evicted_blocks") > 0);
			/* prompts prefilled + saved = admitted, a preempted one's
			 * prompt prefilled again; chunked, the prompts still
			 * prefilling at the end admitted but not all prefilled */
			double in = M(sim, "x", "tokens_in"),
			       pre = M(sim, "x", "prefill_tokens") + M(sim, "x", "prefill_tokens_saved");
			if (M(sim, "x", "preemptions") == 0)
				ck_assert_msg(ch ? pre <= in : pre == in,
				              "%s/%d: prefilled + saved %.17g, admitted %.17g", routers[r], ch,
				              pre, in);
			ck_assert_rel(aiwi_test_curve_integral(sim, "inference.x.power_w"),
			              M(sim, "x", "energy_kwh") * 3.6e6, 1e-9);
			ck_assert_rel(aiwi_test_curve_integral(sim, "inference.x.tokens_per_s"),
			              M(sim, "x", "tokens_out"), 1e-9);
			aiw_sim_free(sim);
		}
}
END_TEST

START_TEST(affinity_hits_more)
{
	/* the same conversations: sent back to their replica, they find their
	 * context there; spread, only the system prompts' */
	char text[2048];
	snprintf(text, sizeof text, "%srouter = affinity\n", BUSY);
	aiw_sim *a = load(5, text);
	snprintf(text, sizeof text, "%srouter = round_robin\n", BUSY);
	aiw_sim *b = load(5, text);
	AIW_OK_OR_FAIL(a, aiw_sim_run(a));
	AIW_OK_OR_FAIL(b, aiw_sim_run(b));
	ck_assert_msg(M(a, "x", "prefix_hit_ratio") > M(b, "x", "prefix_hit_ratio") + 0.1,
	              "affinity %g, round robin %g", M(a, "x", "prefix_hit_ratio"),
	              M(b, "x", "prefix_hit_ratio"));
	aiw_sim_free(a);
	aiw_sim_free(b);
}
END_TEST

START_TEST(seeded_runs_reproduced)
{
	char text[2048];
	snprintf(text, sizeof text, "%srouter = affinity\nchunked_prefill = on\n", BUSY);
	aiw_sim *a = load(11, text), *b = load(11, text);
	AIW_OK_OR_FAIL(a, aiw_sim_run(a));
	AIW_OK_OR_FAIL(b, aiw_sim_run(b));
	same_bits(a, b, NULL);
	double va[400], vb[400];
	size_t na = 0, nb = 0;
	AIW_OK_OR_FAIL(a, aiw_sim_series_copy(a, "inference.x.cached_tokens", NULL, va, 400, &na));
	AIW_OK_OR_FAIL(b, aiw_sim_series_copy(b, "inference.x.cached_tokens", NULL, vb, 400, &nb));
	ck_assert(na == nb && na > 100 && memcmp(va, vb, na * sizeof *va) == 0);
	aiw_sim_free(a);
	aiw_sim_free(b);
}
END_TEST

START_TEST(off_without_sessions)
{
	/* prefix caching without conversations has nothing to hit: every
	 * result as without it (the setting warned of), and sessions = off is
	 * the request workload */
	static const char *base = "[sim]\nduration = 10min\n[inference x]\nreplicas = 2\nrate = 3/s\n";
	char text[1024];
	aiw_sim *a = load(7, base);
	snprintf(text, sizeof text, "%sprefix_caching = on\nsessions = off\n", base);
	aiw_sim *b = load(7, text);
	AIW_OK_OR_FAIL(a, aiw_sim_run(a));
	AIW_OK_OR_FAIL(b, aiw_sim_run(b));
	same_bits(a, b, NULL);
	ck_assert(isnan(M(a, "x", "prefix_hit_ratio")) && M(a, "x", "sessions_started") == 0);
	aiw_sim_free(a);
	aiw_sim_free(b);
}
END_TEST

START_TEST(replica_lost)
{
	/* replicas fail and are added: their caches go with them, the system
	 * prompts their running requests used released first (the LRU lists
	 * checked at every sample) */
	for (int ch = 0; ch < 2; ch++) {
		char text[2048];
		snprintf(text, sizeof text, "%srouter = affinity\nchunked_prefill = %s\n", BUSY,
		         ch ? "on" : "off");
		aiw_sim *sim = load(9, text);
		churn_replicas(sim, "x", false);
		aiw_sim_free(sim);
	}
}
END_TEST

/* ------------------------------------------------------------------------ */
/* refusals                                                                  */
/* ------------------------------------------------------------------------ */
START_TEST(refusals)
{
	expect_fail("[sim]\nduration = 1min\n[inference a]\nbatching = dynamic\nprefix_caching = on\n",
	            AIW_EINVAL, "prefix_caching = on needs continuous batching");
	expect_fail("[sim]\nduration = 1min\n[inference a]\nservice = exp(1s)\nprefix_caching = on\n",
	            AIW_EINVAL, "service set");
	expect_fail("[sim]\nduration = 1min\n[inference a]\nservice = exp(1s)\nsessions = on\n",
	            AIW_EINVAL, "sessions = on needs drawn request sizes");
	expect_fail("[sim]\nduration = 1min\n[inference a]\nsessions = on\ntraffic = trace\n"
	            "trace_file = /nonexistent.csv\n",
	            0, "");
	expect_fail("[sim]\nduration = 1min\n[inference a]\nsessions = on\nprefix_caching = maybe\n",
	            0, "prefix_caching");
	expect_fail("[sim]\nduration = 1min\n[inference a]\nsessions = on\nsystem_prompt_zipf = -1\n",
	            0, "system_prompt_zipf");
	expect_fail("[sim]\nduration = 1min\n[inference a]\nsessions = on\nsystem_prompts = -2\n",
	            0, "system_prompts");
	expect_fail("[sim]\nduration = 1min\n[inference a]\nsessions = on\nthink_time = const(-1s)\n",
	            0, "think_time");
	expect_fail("[sim]\nduration = 1min\n[inference a]\nsessions = on\nsession_turns = const(-1)\n",
	            0, "session_turns");
	expect_fail("[sim]\nduration = 1min\n[inference a]\nrouter = sticky\n", 0, "router");
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("prefix");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, hits_are_the_previous_contexts);
	tcase_add_test(tc, lru_trace_by_hand);
	tcase_add_test(tc, with_chunked_prefill);
	tcase_add_test(tc, busy_fleets);
	tcase_add_test(tc, affinity_hits_more);
	tcase_add_test(tc, seeded_runs_reproduced);
	tcase_add_test(tc, off_without_sessions);
	tcase_add_test(tc, replica_lost);
	tcase_add_test(tc, refusals);
	suite_add_tcase(s, tc);
	return s;
}
AIW_TEST_MAIN(make_suite)
