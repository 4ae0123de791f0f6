/*
 * test_tlayout.c - the training layout's mathematics as exact identities:
 * the pipeline bubble, group placement, collectives per group, FLOPs per
 * token against Narayanan et al.'s closed form, ZeRO's model states
 * (Rajbhandari et al. 2020, Figure 1), Korthikanti et al.'s Table 2
 * activations, the public per-GPU sizing functions, and validation.
 */
#include "training/layout.h"
#include "hw/hw.h"
#include "../testutil.h"

#include <check.h>
#include <math.h>
#include <string.h>

#define EQ_REL(a, b) ck_assert_double_eq_tol((a), (b), 1e-12 * fabs(b) + 1e-300)

static const aiwi_link_spec NVL = {"nvl", 3.4e-6, 450e9};
static const aiwi_link_spec NIC = {"nic", 9.6e-6, 50e9};

static aiwi_tarch gpt(double layers, double hidden, double heads, double seq, double vocab)
{
	return (aiwi_tarch){.layers = layers, .hidden = hidden, .ffn = 4 * hidden, .heads = heads,
	                    .kv_heads = heads, .vocab = vocab, .seq = seq, .mlp = AIWI_MLP_GELU,
	                    .attention = AIWI_ATTN_STANDARD, .tied = true};
}

static aiwi_tlayout lay(double gpus, double tp, double pp, double cp, double mb, double gbs)
{
	return (aiwi_tlayout){.gpus = gpus, .gpn = 8, .tp = tp, .pp = pp, .v = 1, .cp = cp, .ep = 1,
	                      .micro_batch = mb, .global_batch = gbs};
}

START_TEST(bubble_exact)
{
	ck_assert_double_eq(aiwi_pp_bubble_slots(AIWI_SCHED_1F1B, 1, 1), 0);
	ck_assert_double_eq(aiwi_pp_bubble_slots(AIWI_SCHED_1F1B, 8, 1), 7);
	ck_assert_double_eq(aiwi_pp_bubble_slots(AIWI_SCHED_INTERLEAVED, 8, 4), 7.0 / 4);
	ck_assert_double_eq(aiwi_pp_bubble_slots(AIWI_SCHED_ZB_H1, 8, 1), 7.0 / 3);
	/* as a fraction of a pipeline of m uniform slots: (p-1)/(m+p-1) */
	for (double p = 2; p <= 64; p *= 2)
		for (double m = 1; m <= 512; m *= 4) {
			double b = aiwi_pp_bubble_slots(AIWI_SCHED_1F1B, p, 1);
			EQ_REL(b / (m + b), (p - 1) / (m + p - 1));
		}
}
END_TEST

START_TEST(bubble_in_step)
{
	/* a step's bubble is exactly (p-1)/v slots, and its share of the
	 * pipelined compute (p-1)/(m+p-1) with no other term */
	aiwi_tarch A = gpt(32, 4096, 32, 2048, 51200);
	aiwi_thw H = {.bf16_flops = 312e12, .fp8_flops = 0, .bf16_eff = 0.5, .fp8_eff = 0.5,
	              .mem_bw = 2e12, .intra = NVL, .inter = NIC, .dp_algo = AIW_AR_RING,
	              .dp_link_factor = 1, .grad_bytes = 2, .weight_bytes = 2};
	char err[256];
	for (int sched = 0; sched < 3; sched++) {
		aiwi_tlayout L = lay(8, 1, 8, 1, 1, 64);
		L.schedule = sched;
		L.v = sched == AIWI_SCHED_INTERLEAVED ? 2 : 1;
		ck_assert_int_eq(aiwi_tlayout_check(&L, &A, err, sizeof err), AIW_OK);
		ck_assert_double_eq(L.dp, 1);
		ck_assert_double_eq(L.m, 64);
		aiwi_tstep S;
		ck_assert_int_eq(aiwi_tstep_compute(&A, &L, &H, &S, err, sizeof err), AIW_OK);
		double slot = S.slot_compute + S.slot_comm;
		EQ_REL(S.bubble, aiwi_pp_bubble_slots(sched, 8, L.v) * slot);
		EQ_REL(S.compute, 64 * S.slot_compute);
		if (sched == AIWI_SCHED_1F1B)
			EQ_REL(S.bubble / (S.compute + S.tp + S.bubble), 7.0 / (64 + 7));
		/* dp = 1: no data-parallel reduction */
		ck_assert_double_eq(S.dp, 0);
	}
}
END_TEST

START_TEST(placement)
{
	aiwi_tlayout L = lay(1024, 8, 4, 2, 1, 1024);
	L.dp = 1024 / 64;
	aiwi_tgroup g = aiwi_tlayout_group(&L, AIWI_G_TP);
	ck_assert_double_eq(g.n, 8); ck_assert_double_eq(g.per_node, 8); /* a whole node */
	g = aiwi_tlayout_group(&L, AIWI_G_CP);
	ck_assert_double_eq(g.n, 2); ck_assert_double_eq(g.per_node, 1); /* across nodes */
	g = aiwi_tlayout_group(&L, AIWI_G_DP);
	ck_assert_double_eq(g.n, 16); ck_assert_double_eq(g.per_node, 1);
	/* tp 2, pp 2 on 8-GPU nodes: a PP group of stride 2 sits in one node,
	 * a DP group of stride 4 has 2 members per node */
	L = lay(64, 2, 2, 1, 1, 64);
	L.dp = 16;
	g = aiwi_tlayout_group(&L, AIWI_G_PP);
	ck_assert_double_eq(g.per_node, 2);
	g = aiwi_tlayout_group(&L, AIWI_G_DP);
	ck_assert_double_eq(g.n, 16); ck_assert_double_eq(g.per_node, 2);
}
END_TEST

START_TEST(collectives_per_group)
{
	double S = 1e9;
	/* inside a node: the ring on NVLink */
	aiwi_tgroup in = {8, 8}, out = {16, 1}, mixed = {16, 2};
	EQ_REL(aiwi_group_allreduce(AIW_AR_RING, S, in, &NVL, &NIC, 1),
	       2 * 7 * NVL.alpha_s + 2 * 7.0 / 8 * S / NVL.bw);
	/* one member per node, one rail: the ring on the NICs */
	EQ_REL(aiwi_group_allreduce(AIW_AR_RING, S, out, &NVL, &NIC, 1),
	       2 * 15 * NIC.alpha_s + 2 * 15.0 / 16 * S / NIC.bw);
	/* all-gather = half the ring all-reduce, also hierarchically */
	EQ_REL(aiwi_group_allgather(S, out, &NVL, &NIC, 1), 15 * NIC.alpha_s + 15.0 / 16 * S / NIC.bw);
	EQ_REL(aiwi_group_allgather(S, mixed, &NVL, &NIC, 1),
	       (aiwi_allreduce_ring(S, 2, NVL.alpha_s, NVL.bw) +
	        aiwi_allreduce_ring(S / 2, 8, NIC.alpha_s, NIC.bw)) / 2);
	/* a degraded link slows the ring's bandwidth term */
	EQ_REL(aiwi_group_allgather(S, out, &NVL, &NIC, 0.5),
	       15 * NIC.alpha_s + 15.0 / 16 * S / (0.5 * NIC.bw));
	/* all-to-all: 16 ranks, 2 per node: 1/16 of S over NVLink, 14/16 over
	 * the NIC at the same time */
	EQ_REL(aiwi_group_alltoall(S, mixed, &NVL, &NIC),
	       15 * NIC.alpha_s + fmax(S / 16 / NVL.bw, S * 14 / 16 / NIC.bw));
	EQ_REL(aiwi_group_alltoall(S, in, &NVL, &NIC), 7 * NVL.alpha_s + S * 7 / 8 / NVL.bw);
	EQ_REL(aiwi_group_p2p(S, (aiwi_tgroup){4, 1}, &NVL, &NIC), NIC.alpha_s + S / NIC.bw);
	EQ_REL(aiwi_group_p2p(S, (aiwi_tgroup){4, 4}, &NVL, &NIC), NVL.alpha_s + S / NVL.bw);
	ck_assert_double_eq(aiwi_group_alltoall(S, (aiwi_tgroup){1, 1}, &NVL, &NIC), 0);
	ck_assert_double_eq(aiwi_group_p2p(S, (aiwi_tgroup){1, 1}, &NVL, &NIC), 0);
}
END_TEST

START_TEST(flops_megatron_closed_form)
{
	/* Narayanan et al. 2021, section 5.1: with full recomputation a step of
	 * B sequences costs 96 B s l h^2 (1 + s/6h + V/16lh) */
	static const double R[][4] = {{24, 2304, 24, 512}, {128, 25600, 160, 3072}};
	for (size_t i = 0; i < 2; i++) {
		double l = R[i][0], h = R[i][1], B = R[i][3], s = 2048, V = 51200;
		aiwi_tarch A = gpt(l, h, R[i][2], s, V);
		aiwi_tflops F;
		aiwi_tflops_per_token(&A, AIWI_RC_FULL, &F);
		EQ_REL(F.hardware * B * s, 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h)));
		aiwi_tflops_per_token(&A, AIWI_RC_NONE, &F);
		EQ_REL(F.model * B * s, 72 * B * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h)));
		ck_assert_double_eq(F.hardware, F.model);
		/* 12 l h^2 parameters per layer, plus norms (4h... 2h) and embedding */
		aiwi_tparams P;
		aiwi_tarch_params(&A, &P);
		EQ_REL(P.per_layer_dense, 12 * h * h + 2 * h);
		EQ_REL(P.total, l * (12 * h * h + 2 * h) + V * h);
	}
}
END_TEST

START_TEST(zero_paper_figure1)
{
	/* Rajbhandari et al. 2020, Figure 1: Psi = 7.5B, N_d = 64, K = 12 */
	double out[3], psi = 7.5e9;
	const double GB[] = {120, 31.4, 16.6, 1.9};
	for (int z = 0; z <= 3; z++) {
		aiwi_zero_states(psi, 0, 64, 1, z, 2, 2, 12, out);
		double t = out[0] + out[1] + out[2], v;
		/* the figure's one-decimal rounding */
		ck_assert_double_eq_tol(t / 1e9, GB[z], 0.05);
		ck_assert_int_eq(aiw_size_zero_state(psi, 64, z, 2, 2, 12, &v), AIW_OK);
		ck_assert_double_eq(v, t);
	}
	/* exact forms */
	aiwi_zero_states(psi, 0, 64, 1, 1, 2, 2, 12, out);
	EQ_REL(out[0] + out[1] + out[2], 4 * psi + 12 * psi / 64);
	aiwi_zero_states(psi, 0, 64, 1, 2, 2, 2, 12, out);
	EQ_REL(out[0] + out[1] + out[2], 2 * psi + 14 * psi / 64);
	/* the 70B seed: 12 bytes per parameter (bf16 weights and gradients,
	 * fp32 Adam moments) = 840 GB unsharded */
	double v;
	ck_assert_int_eq(aiw_size_zero_state(70e9, 1, 0, 2, 2, 8, &v), AIW_OK);
	ck_assert_double_eq(v, 840e9);
	ck_assert_int_eq(aiw_size_zero_state(70e9, 0, 0, 2, 2, 8, &v), AIW_ERANGE);
	ck_assert_int_eq(aiw_size_zero_state(70e9, 8, 4, 2, 2, 8, &v), AIW_ERANGE);
	ck_assert_int_eq(aiw_size_zero_state(70e9, 8, 1, 2, 2, 8, NULL), AIW_EINVAL);
}
END_TEST

START_TEST(korthikanti_table2)
{
	/* Table 2 formulas, GPT-3 175B's configuration (section 6: s = 2048,
	 * h = 12288, a = 96, t = 8, b = 1) */
	double s = 2048, b = 1, h = 12288, a = 96, t = 8, sbh = s * b * h;
	EQ_REL(aiwi_act_layer_bytes(s, b, h, a, t, false, AIWI_RC_NONE, AIWI_ATTN_STANDARD),
	       sbh * (10 + 24 / t + 5 * a * s / (h * t)));
	EQ_REL(aiwi_act_layer_bytes(s, b, h, a, t, true, AIWI_RC_NONE, AIWI_ATTN_STANDARD),
	       sbh * (34 / t + 5 * a * s / (h * t)));
	EQ_REL(aiwi_act_layer_bytes(s, b, h, a, t, false, AIWI_RC_SELECTIVE, AIWI_ATTN_STANDARD),
	       sbh * (10 + 24 / t));
	EQ_REL(aiwi_act_layer_bytes(s, b, h, a, t, true, AIWI_RC_SELECTIVE, AIWI_ATTN_STANDARD),
	       sbh * 34 / t);
	EQ_REL(aiwi_act_layer_bytes(s, b, h, a, t, true, AIWI_RC_FULL, AIWI_ATTN_STANDARD), 2 * sbh);
	/* no parallelism: sbh (34 + 5as/h) */
	EQ_REL(aiwi_act_layer_bytes(s, b, h, a, 1, false, AIWI_RC_NONE, AIWI_ATTN_STANDARD),
	       sbh * (34 + 5 * a * s / h));
	/* flash attention keeps no s^2 term */
	EQ_REL(aiwi_act_layer_bytes(s, b, h, a, t, true, AIWI_RC_NONE, AIWI_ATTN_FLASH),
	       sbh * 34 / t);
	/* the public view: 96 layers, pp 8, 1F1B with m >= pp keeps 96 layers'
	 * worth; interleaved v = 3 keeps 96 (1 + 7/24) */
	double v;
	ck_assert_int_eq(aiw_size_activations_per_gpu(96, s, b, h, a, t, 1, 8, 1, 64, "selective",
	                                              &v),
	                 AIW_OK);
	EQ_REL(v, 96 * sbh * 34 / t);
	ck_assert_int_eq(aiw_size_activations_per_gpu(96, s, b, h, a, t, 1, 8, 3, 64, "selective",
	                                              &v),
	                 AIW_OK);
	EQ_REL(v, 96 * (1 + 7.0 / 24) * sbh * 34 / t);
	/* fewer micro-batches than stages: m of them */
	ck_assert_int_eq(aiw_size_activations_per_gpu(96, s, b, h, a, t, 1, 8, 1, 2, "full", &v),
	                 AIW_OK);
	EQ_REL(v, 96.0 / 8 * 2 * 2 * sbh);
	/* the existing single-micro-batch view agrees with pp = 1 */
	double w;
	ck_assert_int_eq(aiw_size_activations(96, s, b, h, a, t, "none", &w), AIW_OK);
	ck_assert_int_eq(aiw_size_activations_per_gpu(96, s, b, h, a, t, 1, 1, 1, 1, "none", &v),
	                 AIW_OK);
	EQ_REL(v, w);
	ck_assert_int_eq(aiw_size_activations_per_gpu(96, s, b, h, a, t, 1, 1, 1, 1, "some", &v),
	                 AIW_EUNKNOWN);
	ck_assert_int_eq(aiw_size_activations_per_gpu(96, s, b, h, a, t, 1, 200, 1, 1, "none", &v),
	                 AIW_ERANGE);
}
END_TEST

static void bad_layout(aiwi_tlayout L, aiwi_tarch A, const char *needle)
{
	char err[300] = "";
	ck_assert_int_eq(aiwi_tlayout_check(&L, &A, err, sizeof err), AIW_ERANGE);
	ck_assert_msg(strstr(err, needle), "message \"%s\" lacks \"%s\"", err, needle);
}

START_TEST(validation)
{
	aiwi_tarch A = gpt(32, 4096, 32, 2048, 51200);
	bad_layout(lay(1000, 3, 1, 1, 1, 1000), A, "tp x pp x cp = 3 x 1 x 1 = 3 does not divide gpus = 1000");
	bad_layout(lay(96, 3, 1, 1, 1, 32), A, "tp = 3 does not divide heads = 32");
	bad_layout(lay(56, 1, 7, 1, 1, 8), A, "pp = 7 does not divide layers = 32");
	bad_layout(lay(64, 8, 1, 1, 1, 12), A, "global_batch = 12 sequences is not a multiple of dp x micro_batch = 8 x 1 = 8");
	aiwi_tlayout L = lay(64, 8, 1, 1, 1, 64);
	L.dp = 4;
	bad_layout(L, A, "dp = 4 but gpus / (tp x pp x cp) = 64 / 8 = 8");
	L = lay(64, 8, 2, 1, 1, 64);
	L.schedule = AIWI_SCHED_INTERLEAVED;
	bad_layout(L, A, "needs pp >= 2 and virtual_stages >= 2");
	L.v = 2;
	L.global_batch = 12; /* m = 12 / 4 = 3 */
	bad_layout(L, A, "to be a multiple of pp = 2");
}
END_TEST

Suite *make_suite(void)
{
	Suite *s = suite_create("tlayout");
	TCase *t = tcase_create("exact");
	tcase_add_test(t, bubble_exact);
	tcase_add_test(t, bubble_in_step);
	tcase_add_test(t, placement);
	tcase_add_test(t, collectives_per_group);
	tcase_add_test(t, flops_megatron_closed_form);
	tcase_add_test(t, zero_paper_figure1);
	tcase_add_test(t, korthikanti_table2);
	tcase_add_test(t, validation);
	suite_add_tcase(s, t);
	return s;
}

AIW_TEST_MAIN(make_suite)
