/*
 * collective.c - all-reduce cost in the alpha-beta (Hockney) model.
 *
 * A message of m bytes over a link costs alpha + m / B.  Closed forms from
 * Thakur, Rabenseifner & Gropp, "Optimization of Collective Communication
 * Operations in MPICH", IJHPCA 19(1), 2005:
 *   ring (reduce-scatter + all-gather, bandwidth-optimal; Patarasuk & Yuan
 *   2009):  T = 2(p-1) alpha + 2(p-1)/p * S/B
 *   binomial tree (reduce + broadcast of the whole message):
 *           T = 2 ceil(log2 p) (alpha + S/B)
 * ceil(log2 p) because a binomial tree on p ranks, p not a power of two,
 * still needs that many levels.  The tree is the textbook one, not NCCL's
 * pipelined double binary tree, so it is pessimistic for large S: it shows
 * where latency wins (small S, many ranks), not NCCL's large-S tree speed.
 *
 * Hierarchical (g GPUs per node, n nodes): reduce-scatter inside the node,
 * then g concurrent inter-node rings, one per NIC rail, each all-reducing
 * one S/g shard, then all-gather inside the node.  The intra reduce-scatter
 * and all-gather together cost exactly one intra ring over S, hence
 *   T = ring(g, S; intra) + ring(n, S/g; inter)
 * which is also what NCCL's multi-channel rings approach on rail-optimised
 * clusters.  A ring step ends when its slowest link delivers, so one
 * degraded link at a fraction f of its bandwidth slows the whole ring's
 * bandwidth term by 1/f.  Bus bandwidth follows nccl-tests
 * (doc/PERFORMANCE.md): busbw = algbw * 2(p-1)/p, algbw = S / t.
 */
#include "hw/hw.h"

#include <math.h>

double aiwi_ceil_log2(double p)
{
	/* doubling is exact for every p < 2^53, unlike log2() near powers of two */
	double levels = 0, span = 1;
	while (span < p) {
		span *= 2;
		levels++;
	}
	return levels;
}

double aiwi_busbw_factor(double p)
{
	return p > 1 ? 2 * (p - 1) / p : 0;
}

/* Ring with bandwidth factor f on its slowest link. */
static double ring(double S, double p, double alpha, double bw, double f)
{
	if (p <= 1)
		return 0;
	return 2 * (p - 1) * alpha + 2 * (p - 1) / p * S / (bw * f);
}

/* Binomial tree: the degraded link carries traffic at one level of the
 * reduce and one of the broadcast, so only those two levels are slower. */
static double tree(double S, double p, double alpha, double bw, double f)
{
	double L = aiwi_ceil_log2(p);
	if (L == 0)
		return 0;
	return 2 * L * alpha + 2 * (L - 1 + 1 / f) * S / bw;
}

double aiwi_allreduce_ring(double S, double p, double alpha, double bw)
{
	return ring(S, p, alpha, bw, 1);
}

double aiwi_allreduce_tree(double S, double p, double alpha, double bw)
{
	return tree(S, p, alpha, bw, 1);
}

static const char *const ALGOS[] = {"ring", "tree", "hierarchical"};

int aiwi_allreduce_algo(const char *name)
{
	if (!name)
		return -1;
	for (int i = 0; i < (int)(sizeof ALGOS / sizeof *ALGOS); i++)
		if (aiwi_hw_ieq(name, ALGOS[i]))
			return i;
	return -1;
}

double aiwi_allreduce(int algo, double S, double p, double g, const aiwi_link_spec *intra,
                     const aiwi_link_spec *inter, double f)
{
	if (p <= 1)
		return 0;
	if (g < 1)
		g = 1;
	/* a flat ring or tree leaving the node waits on its slowest hop */
	double a = intra->alpha_s, bw = intra->bw;
	if (p > g) {
		a = fmax(intra->alpha_s, inter->alpha_s);
		bw = fmin(intra->bw, inter->bw);
	}
	switch (algo) {
	case AIW_AR_RING: return ring(S, p, a, bw, f);
	case AIW_AR_TREE: return tree(S, p, a, bw, f);
	case AIW_AR_HIERARCHICAL: {
		double gp = fmin(g, p);  /* GPUs in a full node */
		double n = ceil(p / gp); /* nodes */
		if (n <= 1)
			return ring(S, gp, intra->alpha_s, intra->bw, f);
		/* a partial last node has fewer NICs, each carrying a larger shard:
		 * the inter stage waits for it */
		double last = p - (n - 1) * gp;
		return ring(S, gp, intra->alpha_s, intra->bw, 1) +
		       ring(S / last, n, inter->alpha_s, inter->bw, f);
	}
	default: return NAN;
	}
}

/* ------------------------------------------------------------------------ */
/* public                                                                    */
/* ------------------------------------------------------------------------ */
#define MAX_RANKS 1e9

static bool count_ok(double x)
{
	return isfinite(x) && x >= 1 && x <= MAX_RANKS && floor(x) == x;
}

AIW_EXPORT aiw_status aiw_allreduce_time(const char *algo, double bytes, double ranks,
                                         double gpus_per_node, double alpha_intra,
                                         double bw_intra, double alpha_inter, double bw_inter,
                                         double slow_link_factor, double *out)
{
	if (!algo || !out)
		return AIW_EINVAL;
	int a = aiwi_allreduce_algo(algo);
	if (a < 0)
		return AIW_EUNKNOWN;
	if (!isfinite(bytes) || bytes < 0 || !count_ok(ranks) || !count_ok(gpus_per_node))
		return AIW_ERANGE;
	if (!isfinite(alpha_intra) || alpha_intra < 0 || !isfinite(alpha_inter) || alpha_inter < 0)
		return AIW_ERANGE;
	if (!isfinite(bw_intra) || bw_intra <= 0 || !isfinite(bw_inter) || bw_inter <= 0)
		return AIW_ERANGE;
	if (!isfinite(slow_link_factor) || slow_link_factor <= 0 || slow_link_factor > 1)
		return AIW_ERANGE;
	aiwi_link_spec intra = {"intra", alpha_intra, bw_intra};
	aiwi_link_spec inter = {"inter", alpha_inter, bw_inter};
	*out = aiwi_allreduce(a, bytes, ranks, gpus_per_node, &intra, &inter, slow_link_factor);
	return AIW_OK;
}

AIW_EXPORT aiw_status aiw_busbw(double bytes, double ranks, double seconds, double *out)
{
	if (!out)
		return AIW_EINVAL;
	if (!isfinite(bytes) || bytes < 0 || !count_ok(ranks) || !isfinite(seconds) ||
	    seconds <= 0)
		return AIW_ERANGE;
	*out = bytes / seconds * aiwi_busbw_factor(ranks);
	return AIW_OK;
}
