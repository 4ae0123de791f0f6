/* test_disagg.c - prefill/decode disaggregation (disaggregation = prefill
 * | decode, lib/inference/fleet_disagg.c) against closed forms: a lone
 * request prefilled on the prefill pool (its TTFT there), its KV cache
 * moved over the link (latency + bytes / bandwidth, and the layer-by-layer
 * overlap's max(s / L, s - (L - 1) / L tp)), then decoded on the decode
 * pool, its TTFT, TPOT, end-to-end latency and both pools' energies by
 * hand; busy pairs under every router (request conservation per pool, the
 * checking build's invariants after every event, energy = the integral of
 * power); seeded runs reproduced bit for bit; the refusals; and a fleet
 * with disaggregation = off the same as one without it, bit for bit. */
#include "core/internal.h"
#include "hw/hw.h"
#include "inference/serving.h"
#include "../testutil.h"
#include "fleet_test.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* A 7e9-weight model (32 layers, 8 KV heads of 128, BF16: 131072 KV bytes
 * per token) on the roofline, one H100 per replica, mfu 0.5, memory 0.8. */
static const double P = 7e9, KV = 2.0 * 32 * 8 * 128 * 2, LAY = 32, MFU = 0.5, MBW = 0.8;
#define MODEL                                                                                      \
	"gpus_per_replica = 1\nmodel_params = 7e9\nlayers = 32\nkv_heads = 8\nhead_dim = 128\n"   \
	"hidden_size = 4096\ntiming = roofline\nmfu = 0.5\nmem_bw_efficiency = 0.8\n"

/* One request of L tokens, O out, at t = 0, through one prefill and one
 * decode replica; `extra` adds to the prefill pool's section. */
static aiw_sim *lone_run(double L, double O, const char *extra)
{
	char path[256];
	FILE *tf = aiwi_test_tmpfile(path, sizeof path);
	fprintf(tf, "0,%g,%g\n", L, O);
	fclose(tf);
	char text[2048];
	snprintf(text, sizeof text,
	         "[sim]\nduration = 600s\nsample_interval = 1s\nseries_keep = all\n"
	         "[inference pre]\n" MODEL "replicas = 1\ntraffic = trace\ntrace_file = %s\n"
	         "disaggregation = prefill\ndecode_fleet = dec\nkv_link = IB-NDR\n%s"
	         "[inference dec]\n" MODEL "replicas = 1\ndisaggregation = decode\n",
	         path, extra);
	aiw_sim *sim = load(1, text);
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	unlink(path);
	return sim;
}

typedef struct hand {
	double tp, dt, decode, ttft, e2e, tpot;
} hand;

/* The lone request by hand: the roofline prefill max(L 2P/F, W/B), the
 * transfer, O - 1 decode iterations max(2P/F, (W + k S_j)/B) over the
 * context S_j = L + 1 + j. */
static hand by_hand(double L, double O, bool overlap)
{
	const aiwi_gpu_spec *g = aiwi_hw_gpu(NULL, "H100-SXM");
	const aiwi_link_spec *l = aiwi_hw_link(NULL, "IB-NDR");
	ck_assert(g && l);
	double F = g->bf16_flops * MFU, B = g->mem_bw * MBW, W = P * 2;
	hand h;
	h.tp = fmax(L * 2 * P / F, W / B);
	double s = KV * L / l->bw;
	if (overlap)
		s = fmax(s / LAY, s - (LAY - 1) / LAY * h.tp);
	h.dt = l->alpha_s + s;
	h.decode = 0;
	for (double j = 0; j < O - 1; j++)
		h.decode += fmax(2 * P / F, (W + KV * (L + 1 + j)) / B);
	h.ttft = h.tp;
	h.e2e = h.tp + h.dt + h.decode;
	h.tpot = (h.dt + h.decode) / (O - 1);
	return h;
}

START_TEST(lone_request_by_hand)
{
	static const char *mode[] = {"", "kv_transfer_overlap = on\n"};
	for (int o = 0; o < 2; o++) {
		double L = 3000, O = 6;
		aiw_sim *sim = lone_run(L, O, mode[o]);
		hand h = by_hand(L, O, o == 1);
		ck_assert(o == 0 || h.dt < KV * L / 50e9); /* the overlap hides some */
		/* TTFT ends on the prefill pool */
		ck_assert_rel(M(sim, "pre", "ttft_mean_s"), h.ttft, 1e-12);
		ck_assert(isnan(M(sim, "dec", "ttft_mean_s")) || M(sim, "dec", "ttft_mean_s") == 0);
		/* the transfer, exactly: its bytes and time */
		ck_assert(M(sim, "pre", "kv_transfers") == 1);
		ck_assert(M(sim, "pre", "kv_transfer_bytes") == KV * L);
		ck_assert_rel(M(sim, "pre", "kv_transfer_time_mean_s"), h.dt, 1e-12);
		ck_assert(M(sim, "pre", "requests_completed") == 0);
		ck_assert(M(sim, "dec", "kv_received") == 1);
		ck_assert(M(sim, "dec", "decode_kv_wait_mean_s") == 0);
		ck_assert_rel(M(sim, "dec", "e2e_mean_s"), h.e2e, 1e-12);
		ck_assert_rel(M(sim, "dec", "tpot_mean_s"), h.tpot, 1e-12);
		ck_assert(M(sim, "dec", "requests_completed") == 1);
		/* tokens: the first on the prefill pool, O - 1 on the decode pool */
		ck_assert(M(sim, "pre", "tokens_out") == 1);
		ck_assert(M(sim, "dec", "tokens_out") == O - 1);
		ck_assert(M(sim, "pre", "prefill_tokens") == L);
		ck_assert(M(sim, "dec", "prefill_tokens") == 0);
		ck_assert(M(sim, "dec", "decode_iterations") == O - 1);
		/* energy: each pool's GPU at prefill (decode) power for its part,
		 * idle otherwise, node overhead 2800 W / 8 per GPU; the power
		 * curves integrate back to it */
		const aiwi_gpu_spec *g = aiwi_hw_gpu(NULL, "H100-SXM");
		double ovh = 2800.0 / 8, T = 600;
		double ep = (g->prefill_w + ovh) * h.tp + (g->idle_w + ovh) * (T - h.tp);
		double ed = (g->decode_w + ovh) * h.decode + (g->idle_w + ovh) * (T - h.decode);
		ck_assert_rel(M(sim, "pre", "energy_kwh") * 3.6e6, ep, 1e-12);
		ck_assert_rel(M(sim, "dec", "energy_kwh") * 3.6e6, ed, 1e-12);
		ck_assert_rel(aiwi_test_curve_integral(sim, "inference.pre.power_w"), ep, 1e-12);
		ck_assert_rel(aiwi_test_curve_integral(sim, "inference.dec.power_w"), ed, 1e-12);
		aiw_sim_free(sim);
	}
}
END_TEST

START_TEST(one_token_completes_on_the_prefill_pool)
{
	aiw_sim *sim = lone_run(500, 1, "");
	hand h = by_hand(500, 2, false);
	ck_assert(M(sim, "pre", "requests_completed") == 1);
	ck_assert(M(sim, "pre", "kv_transfers") == 0);
	ck_assert_rel(M(sim, "pre", "e2e_mean_s"), h.tp, 1e-12);
	ck_assert(M(sim, "dec", "requests_arrived") == 0);
	aiw_sim_free(sim);
}
END_TEST

/* A busy pair: 2 prefill and 3 decode replicas at 12 requests/s. */
#define BUSY_PRE                                                                                   \
	"[sim]\nduration = 20min\nsample_interval = 10s\nseries_keep = all\n"                     \
	"[inference pre]\ngpus_per_replica = 2\nmodel_params = 70e9\nweight_bits = 8\n"           \
	"replicas = 2\nrate = 12/s\nprompt_tokens = lognormal(median=1024,sigma=0.8)\n"            \
	"output_tokens = lognormal(median=128,sigma=0.7)\ndisaggregation = prefill\n"              \
	"decode_fleet = dec\nkv_transfer_overlap = on\nslo_ttft = 1s\n"
#define BUSY_DEC                                                                                   \
	"[inference dec]\ngpus_per_replica = 2\nmodel_params = 70e9\nweight_bits = 8\n"           \
	"replicas = 3\ndisaggregation = decode\nmax_batch = 48\nslo_tpot = 100ms\n"

/* Each pool's requests: prefill, arrived = completed + transferred +
 * dropped + in flight; decode, arrived = completed + dropped + in flight,
 * arrived = the prefill pool's transfers. */
static void pool_conservation(aiw_sim *sim)
{
	double a = M(sim, "pre", "requests_arrived");
	ck_assert_msg(a == M(sim, "pre", "requests_completed") + M(sim, "pre", "kv_transfers") +
	                           M(sim, "pre", "requests_dropped") +
	                           M(sim, "pre", "requests_in_flight"),
	              "prefill pool: %g arrived", a);
	ck_assert(M(sim, "pre", "requests_in_flight") ==
	          M(sim, "pre", "requests_waiting") + M(sim, "pre", "requests_running") +
	                  M(sim, "pre", "kv_transfers_under_way"));
	check_conservation(sim, "dec");
	ck_assert(M(sim, "dec", "requests_arrived") == M(sim, "pre", "kv_transfers"));
	ck_assert(M(sim, "dec", "kv_received") == M(sim, "dec", "requests_arrived"));
}

START_TEST(busy_pools_every_router)
{
	static const char *routers[] = {"least_loaded", "round_robin", "p2c", "central"};
	for (int r = 0; r < 4; r++) {
		char text[4096];
		snprintf(text, sizeof text, BUSY_PRE "router = %s\n" BUSY_DEC "router = %s\n",
		         routers[r], routers[3 - r]);
		aiw_sim *sim = load(3 + r, text);
		AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
		pool_conservation(sim);
		double arr = M(sim, "pre", "requests_arrived");
		ck_assert_msg(M(sim, "dec", "requests_completed") > 0.9 * arr, "%s: %g of %g",
		              routers[r], M(sim, "dec", "requests_completed"), arr);
		ck_assert(M(sim, "dec", "batch_size_mean") > 1);
		ck_assert(M(sim, "pre", "prefill_batch_mean") >= 1);
		ck_assert(M(sim, "dec", "decode_kv_wait_mean_s") >= 0);
		static const char *pools[] = {"pre", "dec"};
		for (int p = 0; p < 2; p++) {
			char curve[64];
			snprintf(curve, sizeof curve, "inference.%s.power_w", pools[p]);
			ck_assert_rel(aiwi_test_curve_integral(sim, curve),
			              M(sim, pools[p], "energy_kwh") * 3.6e6, 1e-9);
			snprintf(curve, sizeof curve, "inference.%s.tokens_per_s", pools[p]);
			ck_assert_rel(aiwi_test_curve_integral(sim, curve),
			              M(sim, pools[p], "tokens_out"), 1e-9);
		}
		/* the site sums the two pools' energy */
		ck_assert_rel(aiwi_test_metric(sim, "site.energy_kwh"),
		              M(sim, "pre", "energy_kwh") + M(sim, "dec", "energy_kwh"), 1e-12);
		aiw_sim_free(sim);
	}
}
END_TEST

START_TEST(decode_pool_waits_for_kv)
{
	/* a decode pool of one replica whose KV memory holds few requests:
	 * the received ones wait for memory, none is lost */
	aiw_sim *sim = load(5, BUSY_PRE "[inference dec]\ngpus_per_replica = 2\n"
	                               "model_params = 70e9\nweight_bits = 8\nreplicas = 1\n"
	                               "disaggregation = decode\nkv_margin = 0.55\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	pool_conservation(sim);
	ck_assert(M(sim, "dec", "decode_kv_wait_mean_s") > 0.1);
	ck_assert(M(sim, "dec", "requests_waiting") > 0);
	aiw_sim_free(sim);
}
END_TEST

START_TEST(replicas_lost_in_both_pools)
{
	/* a replica of each pool fails at many instants (inside prefills, with
	 * transfers under way, inside decodes), one added after each: the
	 * requests are conserved per pool, energy is the integral of power */
	aiw_sim *sim = load(7, BUSY_PRE BUSY_DEC);
	static const char *pools[] = {"pre", "dec"};
	for (int i = 1; i <= 12; i++) {
		AIW_OK_OR_FAIL(sim, aiw_sim_run_until(sim, 60.0 * i + 0.0137 * i));
		aiwi_comp *c = comp(sim, pools[i % 2]);
		for (size_t s = 0; s < aiwi_serving_slots(c); s++)
			if (aiwi_serving_replica_state(c, s) == AIW_REPLICA_READY) {
				ck_assert_int_eq(aiwi_serving_fail_replica(c, (int)s), AIW_OK);
				break;
			}
		ck_assert(aiwi_serving_add_replica(c, 5, false) >= 0);
	}
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	pool_conservation(sim);
	ck_assert(M(sim, "pre", "preemptions") + M(sim, "dec", "preemptions") > 0);
	for (int p = 0; p < 2; p++) {
		char curve[64];
		snprintf(curve, sizeof curve, "inference.%s.power_w", pools[p]);
		ck_assert_rel(aiwi_test_curve_integral(sim, curve),
		              M(sim, pools[p], "energy_kwh") * 3.6e6, 1e-9);
	}
	aiw_sim_free(sim);
}
END_TEST

START_TEST(seeded_runs_reproduced)
{
	aiw_sim *a = load(11, BUSY_PRE BUSY_DEC), *b = load(11, BUSY_PRE BUSY_DEC);
	AIW_OK_OR_FAIL(a, aiw_sim_run(a));
	AIW_OK_OR_FAIL(b, aiw_sim_run(b));
	aiwi_test_same_results(a, b, "disaggregation, same seed");
	aiw_sim_free(a);
	aiw_sim_free(b);
}
END_TEST

START_TEST(off_is_unchanged)
{
	/* disaggregation = off given is the fleet without it, bit for bit */
	const char *base = "[sim]\nduration = 10min\n[inference x]\nrate = 8/s\nreplicas = 2\n";
	char text[512];
	snprintf(text, sizeof text, "%sdisaggregation = off\n", base);
	aiw_sim *a = load(4, base), *b = load(4, text);
	AIW_OK_OR_FAIL(a, aiw_sim_run(a));
	AIW_OK_OR_FAIL(b, aiw_sim_run(b));
	aiwi_test_same_results(a, b, "disaggregation off");
	ck_assert(isnan(M(a, "x", "kv_transfers")) && isnan(M(a, "x", "kv_received")));
	aiw_sim_free(a);
	aiw_sim_free(b);
}
END_TEST

START_TEST(refusals)
{
	const char *dec = "[inference d]\ndisaggregation = decode\n";
	char text[1024];
	expect_fail("[sim]\nduration = 1min\n[inference a]\ndisaggregation = both\n", 0,
	            "disaggregation");
	expect_fail("[sim]\nduration = 1min\n[inference a]\ndisaggregation = prefill\n", AIW_EINVAL,
	            "inference.a.decode_fleet is not set");
	expect_fail("[sim]\nduration = 1min\n[inference a]\ndisaggregation = prefill\n"
	            "decode_fleet = nowhere\n",
	            AIW_EINVAL, "inference.a.decode_fleet = nowhere: no [inference nowhere] section");
	expect_fail("[sim]\nduration = 1min\n[inference a]\ndisaggregation = prefill\n"
	            "decode_fleet = b\n[inference b]\nrate = 1/s\n",
	            AIW_EINVAL, "inference.b.disaggregation is not decode");
	snprintf(text, sizeof text,
	         "[sim]\nduration = 1min\n[inference a]\ndisaggregation = prefill\n"
	         "decode_fleet = d\nkv_link = IB-QDR\n%s",
	         dec);
	expect_fail(text, AIW_EUNKNOWN, "inference.a.kv_link = IB-QDR: unknown link");
	snprintf(text, sizeof text,
	         "[sim]\nduration = 1min\n[inference a]\ndisaggregation = prefill\n"
	         "decode_fleet = d\nbatching = dynamic\n%s",
	         dec);
	expect_fail(text, AIW_EINVAL,
	            "inference.a.disaggregation = prefill does not combine with inference.a.batching "
	            "(allowed: continuous)");
	expect_fail("[sim]\nduration = 1min\n[inference d]\ndisaggregation = decode\n"
	            "chunked_prefill = on\n",
	            AIW_EINVAL, "inference.d.chunked_prefill (allowed: off)");
	expect_fail("[sim]\nduration = 1min\n[inference d]\ndisaggregation = decode\n"
	            "service = exp(1s)\n",
	            AIW_EINVAL, "inference.d.service (allowed: unset)");
}
END_TEST

START_TEST(settings_out_of_mode_warned)
{
	/* the link's settings do nothing without a prefill pool, nor a rate
	 * on a decode pool: warned of */
	aiw_sim *sim = load(1, "[sim]\nduration = 1min\n[inference a]\nkv_link = PCIe5\n"
	                       "[inference d]\ndisaggregation = decode\nrate = 3/s\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	size_t n = 0;
	ck_assert_int_eq(aiw_sim_warning_count(sim, &n), AIW_OK);
	bool link = false, rate = false;
	for (size_t i = 0; i < n; i++) {
		const char *w = NULL;
		ck_assert_int_eq(aiw_sim_warning(sim, i, &w), AIW_OK);
		link |= strstr(w, "kv_link") != NULL;
		rate |= strstr(w, "inference.d.rate") != NULL;
	}
	ck_assert(link && rate);
	aiw_sim_free(sim);
}
END_TEST

static Suite *make_suite(void)
{
	(void)churn_replicas; /* (fleet_test.h's: its conservation is one fleet's) */
	Suite *s = suite_create("disagg");
	TCase *tc = tcase_create("disagg");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, lone_request_by_hand);
	tcase_add_test(tc, one_token_completes_on_the_prefill_pool);
	tcase_add_test(tc, busy_pools_every_router);
	tcase_add_test(tc, decode_pool_waits_for_kv);
	tcase_add_test(tc, replicas_lost_in_both_pools);
	tcase_add_test(tc, seeded_runs_reproduced);
	tcase_add_test(tc, off_is_unchanged);
	tcase_add_test(tc, refusals);
	tcase_add_test(tc, settings_out_of_mode_warned);
	suite_add_tcase(s, tc);
	return s;
}

AIW_TEST_MAIN(make_suite)
