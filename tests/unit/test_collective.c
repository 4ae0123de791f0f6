/*
 * test_collective.c - all-reduce cost model against its closed forms
 * (Thakur, Rabenseifner & Gropp 2005), the nccl-tests bus-bandwidth
 * relation, the degraded-link factor and every bad-argument path.
 */
#include "../testutil.h"
#include "hw/hw.h"
#include "core/internal.h"

#include <check.h>
#include <math.h>
#include <string.h>

/* relative comparison for values computed in a different order */
#define EQ_REL(a, b) ck_assert_double_eq_tol((a), (b), 1e-12 * fabs(b) + 1e-300)

static const aiwi_link_spec NVL = {"nvl", 3.4e-6, 450e9};
static const aiwi_link_spec NIC = {"nic", 9.6e-6, 50e9};

static double ar(const char *algo, double S, double p, double g, double f)
{
	double t = NAN;
	ck_assert_int_eq(aiw_allreduce_time(algo, S, p, g, NVL.alpha_s, NVL.bw, NIC.alpha_s, NIC.bw,
	                                    f, &t),
	                 AIW_OK);
	return t;
}

START_TEST(ring_closed_form)
{
	/* hand values: p = 4, S = 4 GB, alpha = 1 us, B = 1 GB/s:
	 * 2*3*1e-6 + 2*3/4 * 4 = 6.000006 s */
	EQ_REL(aiwi_allreduce_ring(4e9, 4, 1e-6, 1e9), 6.000006);
	/* p = 2: 2 alpha + S/B */
	EQ_REL(aiwi_allreduce_ring(1e9, 2, 1e-5, 1e10), 2e-5 + 0.1);
	static const double P[] = {2, 3, 8, 64, 1000, 16384};
	static const double S[] = {0, 1, 1e6, 2.8e11};
	for (size_t i = 0; i < sizeof P / sizeof *P; i++)
		for (size_t j = 0; j < sizeof S / sizeof *S; j++) {
			double p = P[i], s = S[j], a = 5e-6, b = 25e9;
			EQ_REL(aiwi_allreduce_ring(s, p, a, b), 2 * (p - 1) * a + 2 * (p - 1) / p * s / b);
		}
}
END_TEST

START_TEST(tree_closed_form)
{
	ck_assert_double_eq(aiwi_ceil_log2(1), 0);
	ck_assert_double_eq(aiwi_ceil_log2(2), 1);
	ck_assert_double_eq(aiwi_ceil_log2(3), 2);
	ck_assert_double_eq(aiwi_ceil_log2(4), 2);
	ck_assert_double_eq(aiwi_ceil_log2(5), 3);
	ck_assert_double_eq(aiwi_ceil_log2(1024), 10);
	ck_assert_double_eq(aiwi_ceil_log2(1025), 11);
	ck_assert_double_eq(aiwi_ceil_log2(1099511627776.0), 40);     /* 2^40 */
	ck_assert_double_eq(aiwi_ceil_log2(1099511627776.0 + 1), 41); /* just above */
	/* 2 ceil(log2 p) (alpha + S/B): p = 8 -> 6 levels' worth */
	EQ_REL(aiwi_allreduce_tree(1e9, 8, 1e-6, 1e9), 6 * (1e-6 + 1.0));
	/* p = 5 is not a power of two: ceil(log2 5) = 3 levels, same as p = 8 */
	ck_assert_double_eq(aiwi_allreduce_tree(1e9, 5, 1e-6, 1e9),
	                    aiwi_allreduce_tree(1e9, 8, 1e-6, 1e9));
	ck_assert_double_gt(aiwi_allreduce_tree(1e9, 9, 1e-6, 1e9),
	                    aiwi_allreduce_tree(1e9, 8, 1e-6, 1e9));
	EQ_REL(aiwi_allreduce_tree(123, 1000, 2e-6, 5e10), 2 * 10 * (2e-6 + 123 / 5e10));
}
END_TEST

START_TEST(one_rank_costs_nothing)
{
	ck_assert_double_eq(aiwi_allreduce_ring(1e12, 1, 1, 1), 0);
	ck_assert_double_eq(aiwi_allreduce_tree(1e12, 1, 1, 1), 0);
	for (int a = 0; a < 3; a++)
		ck_assert_double_eq(aiwi_allreduce(a, 1e12, 1, 8, &NVL, &NIC, 0.5), 0);
	ck_assert_double_eq(ar("ring", 1e9, 1, 1, 1), 0);
	ck_assert_double_eq(ar("tree", 1e9, 1, 8, 1), 0);
	ck_assert_double_eq(ar("hierarchical", 1e9, 1, 8, 1), 0);
}
END_TEST

START_TEST(flat_algorithms_pick_links)
{
	double S = 1e9;
	/* within one node: the scale-up link only */
	EQ_REL(ar("ring", S, 8, 8, 1), aiwi_allreduce_ring(S, 8, NVL.alpha_s, NVL.bw));
	EQ_REL(ar("tree", S, 4, 8, 1), aiwi_allreduce_tree(S, 4, NVL.alpha_s, NVL.bw));
	/* across nodes: every step waits for the slower link */
	EQ_REL(ar("ring", S, 16, 8, 1), aiwi_allreduce_ring(S, 16, NIC.alpha_s, NIC.bw));
	EQ_REL(ar("tree", S, 16, 8, 1), aiwi_allreduce_tree(S, 16, NIC.alpha_s, NIC.bw));
	/* a faster NIC than NVLink (odd, but legal): min bw, max alpha */
	double t;
	ck_assert_int_eq(aiw_allreduce_time("ring", S, 16, 8, 1e-6, 10e9, 5e-7, 20e9, 1, &t), AIW_OK);
	EQ_REL(t, aiwi_allreduce_ring(S, 16, 1e-6, 10e9));
}
END_TEST

START_TEST(hierarchical_formula)
{
	double S = 1e9;
	/* 2 nodes of 8: ring(8, S; NVLink) + ring(2, S/8; NIC), by hand */
	double intra = 2 * 7 * 3.4e-6 + 2.0 * 7 / 8 * 1e9 / 450e9;
	double inter = 2 * 1 * 9.6e-6 + 2.0 * 1 / 2 * 1.25e8 / 50e9;
	EQ_REL(ar("hierarchical", S, 16, 8, 1), intra + inter);
	/* 512 nodes of 8 */
	EQ_REL(ar("hierarchical", S, 4096, 8, 1),
	       aiwi_allreduce_ring(S, 8, NVL.alpha_s, NVL.bw) +
	           aiwi_allreduce_ring(S / 8, 512, NIC.alpha_s, NIC.bw));
	/* one node: the same as a ring on the scale-up link */
	ck_assert_double_eq(ar("hierarchical", S, 8, 8, 1), ar("ring", S, 8, 8, 1));
	ck_assert_double_eq(ar("hierarchical", S, 3, 8, 1), ar("ring", S, 3, 8, 1));
	/* a partial last node (12 = 8 + 4): its 4 NICs carry S/4 shards */
	EQ_REL(ar("hierarchical", S, 12, 8, 1),
	       aiwi_allreduce_ring(S, 8, NVL.alpha_s, NVL.bw) +
	           aiwi_allreduce_ring(S / 4, 2, NIC.alpha_s, NIC.bw));
	/* one GPU per node: a flat ring on the NIC */
	EQ_REL(ar("hierarchical", S, 64, 1, 1), aiwi_allreduce_ring(S, 64, NIC.alpha_s, NIC.bw));
	/* large messages: hierarchical beats the flat ring, which runs at NIC speed */
	ck_assert_double_lt(ar("hierarchical", S, 4096, 8, 1), ar("ring", S, 4096, 8, 1));
	/* tiny messages on many ranks: the tree's log p latency wins */
	ck_assert_double_lt(ar("tree", 8, 4096, 8, 1), ar("ring", 8, 4096, 8, 1));
}
END_TEST

START_TEST(slow_link_factor)
{
	double S = 2e9, f = 0.25;
	/* ring: the bandwidth term grows by 1/f, latency unchanged */
	double beta = 2.0 * 15 / 16 * S / NIC.bw;
	EQ_REL(ar("ring", S, 16, 8, f) - ar("ring", S, 16, 8, 1), beta * (1 / f - 1));
	/* tree: one level of each phase slowed */
	double L = 4, t1 = ar("tree", S, 16, 8, 1);
	EQ_REL(ar("tree", S, 16, 8, f), 2 * L * NIC.alpha_s + 2 * (L - 1 + 1 / f) * S / NIC.bw);
	EQ_REL(ar("tree", S, 16, 8, f) - t1, 2 * (1 / f - 1) * S / NIC.bw);
	/* hierarchical: the inter-node stage only... */
	EQ_REL(ar("hierarchical", S, 16, 8, f),
	       aiwi_allreduce_ring(S, 8, NVL.alpha_s, NVL.bw) +
	           aiwi_allreduce_ring(S / 8, 2, NIC.alpha_s, NIC.bw * f));
	/* ...or the intra-node one on a single node */
	EQ_REL(ar("hierarchical", S, 8, 8, f), aiwi_allreduce_ring(S, 8, NVL.alpha_s, NVL.bw * f));
	/* f = 1 is the nominal model */
	ck_assert_double_eq(aiwi_allreduce(AIW_AR_RING, S, 16, 8, &NVL, &NIC, 1),
	                    aiwi_allreduce_ring(S, 16, NIC.alpha_s, NIC.bw));
}
END_TEST

START_TEST(bus_bandwidth)
{
	/* with alpha = 0 a ring's bus bandwidth is exactly its link bandwidth */
	static const double P[] = {2, 3, 8, 1000};
	for (size_t i = 0; i < sizeof P / sizeof *P; i++) {
		double t = aiwi_allreduce_ring(1e9, P[i], 0, 50e9), bb = 0;
		ck_assert_int_eq(aiw_busbw(1e9, P[i], t, &bb), AIW_OK);
		EQ_REL(bb, 50e9);
	}
	double bb;
	ck_assert_int_eq(aiw_busbw(8e9, 8, 2, &bb), AIW_OK);
	EQ_REL(bb, 4e9 * 2 * 7 / 8); /* algbw 4 GB/s x 1.75 */
	ck_assert_int_eq(aiw_busbw(8e9, 1, 2, &bb), AIW_OK);
	ck_assert_double_eq(bb, 0);
	ck_assert_int_eq(aiw_busbw(0, 8, 2, &bb), AIW_OK);
	ck_assert_double_eq(bb, 0);
	ck_assert_double_eq(aiwi_busbw_factor(1), 0);
	ck_assert_double_eq(aiwi_busbw_factor(2), 1);
	ck_assert_double_eq(aiwi_busbw_factor(8), 1.75);
	/* bad arguments */
	bb = 3;
	ck_assert_int_eq(aiw_busbw(1, 2, 1, NULL), AIW_EINVAL);
	ck_assert_int_eq(aiw_busbw(-1, 2, 1, &bb), AIW_ERANGE);
	ck_assert_int_eq(aiw_busbw(NAN, 2, 1, &bb), AIW_ERANGE);
	ck_assert_int_eq(aiw_busbw(INFINITY, 2, 1, &bb), AIW_ERANGE);
	ck_assert_int_eq(aiw_busbw(1, 0, 1, &bb), AIW_ERANGE);
	ck_assert_int_eq(aiw_busbw(1, 2.5, 1, &bb), AIW_ERANGE);
	ck_assert_int_eq(aiw_busbw(1, NAN, 1, &bb), AIW_ERANGE);
	ck_assert_int_eq(aiw_busbw(1, 2, 0, &bb), AIW_ERANGE);
	ck_assert_int_eq(aiw_busbw(1, 2, -1, &bb), AIW_ERANGE);
	ck_assert_int_eq(aiw_busbw(1, 2, INFINITY, &bb), AIW_ERANGE);
	ck_assert_double_eq(bb, 3);
}
END_TEST

START_TEST(algorithm_names)
{
	ck_assert_int_eq(aiwi_allreduce_algo("ring"), AIW_AR_RING);
	ck_assert_int_eq(aiwi_allreduce_algo("TREE"), AIW_AR_TREE);
	ck_assert_int_eq(aiwi_allreduce_algo("Hierarchical"), AIW_AR_HIERARCHICAL);
	ck_assert_int_eq(aiwi_allreduce_algo("hier"), -1);
	ck_assert_int_eq(aiwi_allreduce_algo(""), -1);
	ck_assert_int_eq(aiwi_allreduce_algo(NULL), -1);
	/* indexes follow the enum choices string a parameter would use */
	ck_assert_str_eq(AIW_AR_CHOICES, "ring|tree|hierarchical");
	ck_assert(isnan(aiwi_allreduce(7, 1e9, 16, 8, &NVL, &NIC, 1)));
	double t;
	ck_assert_int_eq(aiw_allreduce_time("RING", 1e9, 16, 8, 0, 1e9, 0, 1e9, 1, &t), AIW_OK);
}
END_TEST

START_TEST(public_matches_internal)
{
	static const char *const A[] = {"ring", "tree", "hierarchical"};
	static const double P[] = {2, 7, 8, 9, 16, 1000, 16384};
	for (int a = 0; a < 3; a++)
		for (size_t i = 0; i < sizeof P / sizeof *P; i++)
			ck_assert_double_eq(ar(A[a], 3e8, P[i], 8, 0.7),
			                    aiwi_allreduce(a, 3e8, P[i], 8, &NVL, &NIC, 0.7));
	/* zero bytes: latency only */
	EQ_REL(ar("ring", 0, 16, 8, 1), 2 * 15 * NIC.alpha_s);
}
END_TEST

START_TEST(public_rejects_bad_arguments)
{
	double t = 5;
#define AR(algo, S, p, g, ai, bi, ae, be, f) aiw_allreduce_time(algo, S, p, g, ai, bi, ae, be, f, &t)
	ck_assert_int_eq(AR(NULL, 1, 2, 1, 0, 1, 0, 1, 1), AIW_EINVAL);
	ck_assert_int_eq(aiw_allreduce_time("ring", 1, 2, 1, 0, 1, 0, 1, 1, NULL), AIW_EINVAL);
	ck_assert_int_eq(AR("butterfly", 1, 2, 1, 0, 1, 0, 1, 1), AIW_EUNKNOWN);
	ck_assert_int_eq(AR("ring", -1, 2, 1, 0, 1, 0, 1, 1), AIW_ERANGE);
	ck_assert_int_eq(AR("ring", NAN, 2, 1, 0, 1, 0, 1, 1), AIW_ERANGE);
	ck_assert_int_eq(AR("ring", INFINITY, 2, 1, 0, 1, 0, 1, 1), AIW_ERANGE);
	ck_assert_int_eq(AR("ring", 1, 0, 1, 0, 1, 0, 1, 1), AIW_ERANGE);
	ck_assert_int_eq(AR("ring", 1, -4, 1, 0, 1, 0, 1, 1), AIW_ERANGE);
	ck_assert_int_eq(AR("ring", 1, 2.5, 1, 0, 1, 0, 1, 1), AIW_ERANGE);
	ck_assert_int_eq(AR("ring", 1, NAN, 1, 0, 1, 0, 1, 1), AIW_ERANGE);
	ck_assert_int_eq(AR("ring", 1, 2e9, 1, 0, 1, 0, 1, 1), AIW_ERANGE);
	ck_assert_int_eq(AR("ring", 1, 2, 0, 0, 1, 0, 1, 1), AIW_ERANGE);
	ck_assert_int_eq(AR("ring", 1, 2, 1.5, 0, 1, 0, 1, 1), AIW_ERANGE);
	ck_assert_int_eq(AR("ring", 1, 2, INFINITY, 0, 1, 0, 1, 1), AIW_ERANGE);
	ck_assert_int_eq(AR("ring", 1, 2, 1, -1e-6, 1, 0, 1, 1), AIW_ERANGE);
	ck_assert_int_eq(AR("ring", 1, 2, 1, NAN, 1, 0, 1, 1), AIW_ERANGE);
	ck_assert_int_eq(AR("ring", 1, 2, 1, 0, 0, 0, 1, 1), AIW_ERANGE);
	ck_assert_int_eq(AR("ring", 1, 2, 1, 0, -1, 0, 1, 1), AIW_ERANGE);
	ck_assert_int_eq(AR("ring", 1, 2, 1, 0, INFINITY, 0, 1, 1), AIW_ERANGE);
	ck_assert_int_eq(AR("ring", 1, 2, 1, 0, 1, -1, 1, 1), AIW_ERANGE);
	ck_assert_int_eq(AR("ring", 1, 2, 1, 0, 1, INFINITY, 1, 1), AIW_ERANGE);
	ck_assert_int_eq(AR("ring", 1, 2, 1, 0, 1, 0, 0, 1), AIW_ERANGE);
	ck_assert_int_eq(AR("ring", 1, 2, 1, 0, 1, 0, NAN, 1), AIW_ERANGE);
	ck_assert_int_eq(AR("ring", 1, 2, 1, 0, 1, 0, 1, 0), AIW_ERANGE);
	ck_assert_int_eq(AR("ring", 1, 2, 1, 0, 1, 0, 1, -0.5), AIW_ERANGE);
	ck_assert_int_eq(AR("ring", 1, 2, 1, 0, 1, 0, 1, 1.01), AIW_ERANGE);
	ck_assert_int_eq(AR("ring", 1, 2, 1, 0, 1, 0, 1, NAN), AIW_ERANGE);
	ck_assert_double_eq(t, 5); /* untouched on error */
	/* the edges of the valid ranges */
	ck_assert_int_eq(AR("ring", 0, 1e9, 1e9, 0, 1, 0, 1, 1), AIW_OK);
	ck_assert_int_eq(AR("tree", 0, 1e9, 1, 0, 1e-3, 0, 1e-3, 1e-9), AIW_OK);
	ck_assert(isfinite(t));
#undef AR
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("collective");
	TCase *t = tcase_create("allreduce");
	tcase_add_test(t, ring_closed_form);
	tcase_add_test(t, tree_closed_form);
	tcase_add_test(t, one_rank_costs_nothing);
	tcase_add_test(t, flat_algorithms_pick_links);
	tcase_add_test(t, hierarchical_formula);
	tcase_add_test(t, slow_link_factor);
	tcase_add_test(t, bus_bandwidth);
	tcase_add_test(t, algorithm_names);
	tcase_add_test(t, public_matches_internal);
	tcase_add_test(t, public_rejects_bad_arguments);
	suite_add_tcase(s, t);
	return s;
}

AIW_TEST_MAIN(suite)
