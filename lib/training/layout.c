/*
 * layout.c - a training job's parallel layout: validation, placement of
 * its groups on nodes, collectives per group and the pipeline bubble
 * (layout.h).
 *
 * Placement follows Megatron-LM's launcher with the rank order tp, cp, pp,
 * dp (tp fastest): a TP group is tp consecutive ranks, inside one node
 * when tp <= gpus_per_node; a CP group strides tp ranks, a PP group tp cp,
 * a DP group tp cp pp.  A group of stride s >= gpus_per_node has one
 * member per node, and all its members share a local rank, hence a rail:
 * its ring runs on the NICs.  A group of stride s < gpus_per_node has
 * gpus_per_node / s members per node and runs hierarchically (intra-node
 * stage, then one inter-node ring per rail), or, as one flat ring, at its
 * slowest link (collective.c).
 */
#include "training/layout.h"

#include <math.h>
#include <stdio.h>

static bool whole(double x, double lo)
{
	return isfinite(x) && x >= lo && floor(x) == x;
}

static bool divides(double a, double b)
{
	return a >= 1 && fmod(b, a) == 0;
}

aiw_status aiwi_tlayout_check(aiwi_tlayout *L, const aiwi_tarch *A, char *err, size_t len)
{
#define BAD(...) return aiwi_buferr(err, len, AIW_ERANGE, __VA_ARGS__)
	static const struct {
		const char *name;
		size_t off;
	} ARCH[] = {
		{"layers", offsetof(aiwi_tarch, layers)},     {"hidden", offsetof(aiwi_tarch, hidden)},
		{"ffn_hidden", offsetof(aiwi_tarch, ffn)},    {"heads", offsetof(aiwi_tarch, heads)},
		{"kv_heads", offsetof(aiwi_tarch, kv_heads)}, {"vocab", offsetof(aiwi_tarch, vocab)},
		{"seq_len", offsetof(aiwi_tarch, seq)},
	};
	for (size_t i = 0; i < sizeof ARCH / sizeof *ARCH; i++) {
		double x = *(const double *)(const void *)((const char *)A + ARCH[i].off);
		if (!whole(x, 1))
			BAD("%s = %g must be a whole number >= 1", ARCH[i].name, x);
	}
	if (!divides(A->heads, A->hidden))
		BAD("heads = %g does not divide hidden = %g", A->heads, A->hidden);
	if (A->kv_heads > A->heads || !divides(A->kv_heads, A->heads))
		BAD("kv_heads = %g must divide heads = %g", A->kv_heads, A->heads);
	bool moe = A->experts > 1;
	if (moe) {
		if (!whole(A->experts, 1) || !whole(A->topk, 1) || A->topk > A->experts)
			BAD("experts_per_token = %g must be a whole number in 1 to experts = %g", A->topk,
			    A->experts);
		if (!whole(A->expert_ffn, 1))
			BAD("expert_ffn_hidden = %g must be a whole number >= 1", A->expert_ffn);
	}
	static const struct {
		const char *name;
		size_t off;
	} LAY[] = {
		{"tp", offsetof(aiwi_tlayout, tp)},
		{"pp", offsetof(aiwi_tlayout, pp)},
		{"virtual_stages", offsetof(aiwi_tlayout, v)},
		{"cp", offsetof(aiwi_tlayout, cp)},
		{"ep", offsetof(aiwi_tlayout, ep)},
		{"micro_batch", offsetof(aiwi_tlayout, micro_batch)},
		{"global_batch", offsetof(aiwi_tlayout, global_batch)},
		{"gpus", offsetof(aiwi_tlayout, gpus)},
		{"gpus_per_node", offsetof(aiwi_tlayout, gpn)},
	};
	for (size_t i = 0; i < sizeof LAY / sizeof *LAY; i++) {
		double x = *(const double *)(const void *)((const char *)L + LAY[i].off);
		if (!whole(x, 1))
			BAD("%s = %g must be a whole number >= 1", LAY[i].name, x);
	}
	double model = L->tp * L->pp * L->cp;
	if (!divides(model, L->gpus)) {
		double fit = floor(L->gpus / model) * model;
		if (fit >= model)
			BAD("tp x pp x cp = %g x %g x %g = %g does not divide gpus = %g (the largest "
			    "multiple of %g below it is %g: set gpus = %g and hot_spares = %g to keep "
			    "the rest as spares)",
			    L->tp, L->pp, L->cp, model, L->gpus, model, fit, fit, L->gpus - fit);
		BAD("tp x pp x cp = %g x %g x %g = %g does not divide gpus = %g", L->tp, L->pp, L->cp,
		    model, L->gpus);
	}
	double dp = L->gpus / model;
	if (L->dp > 0 && L->dp != dp)
		BAD("dp = %g but gpus / (tp x pp x cp) = %g / %g = %g (leave dp unset to derive it)",
		    L->dp, L->gpus, model, dp);
	L->dp = dp;
	if (!divides(L->tp, A->heads))
		BAD("tp = %g does not divide heads = %g", L->tp, A->heads);
	if (!divides(L->tp, A->kv_heads) && !divides(A->kv_heads, L->tp))
		BAD("tp = %g and kv_heads = %g: one must divide the other", L->tp, A->kv_heads);
	bool uneven = L->first_layers > 0 || L->last_layers > 0;
	if (uneven) {
		/* Megatron-LM: the stages not given a count split the rest evenly;
		 * the interleaved schedule is not combined with it here */
		const char *name = L->first_layers > 0 ? "first_stage_layers" : "last_stage_layers";
		double given = L->first_layers > 0 ? L->first_layers : L->last_layers;
		if (!whole(L->first_layers, 0) || !whole(L->last_layers, 0))
			BAD("%s = %g must be a whole number >= 1", name, given);
		if (L->pp < 2)
			BAD("%s = %g needs pp >= 2 (pp = %g)", name, given, L->pp);
		if (L->schedule == AIWI_SCHED_INTERLEAVED)
			BAD("%s = %g needs schedule = 1f1b or zb-h1 (uneven stages with the "
			    "interleaved schedule are not modelled)",
			    name, given);
		double rest = A->layers - L->first_layers - L->last_layers;
		double others = L->pp - (L->first_layers > 0) - (L->last_layers > 0);
		if (others == 0 ? rest != 0 : !(rest >= others && divides(others, rest)))
			BAD("first_stage_layers = %g and last_stage_layers = %g leave %g of layers = %g "
			    "for the other %g of pp = %g stages: they must split them evenly, at least "
			    "one layer each",
			    L->first_layers, L->last_layers, rest, A->layers, others, L->pp);
	} else if (!divides(L->pp, A->layers)) {
		BAD("pp = %g does not divide layers = %g (first_stage_layers and last_stage_layers "
		    "set uneven stages)",
		    L->pp, A->layers);
	}
	if (!divides(L->cp, A->seq))
		BAD("cp = %g does not divide seq_len = %g", L->cp, A->seq);
	if (L->ep > 1) {
		if (!moe)
			BAD("ep = %g needs a mixture of experts (experts > 1)", L->ep);
		if (!divides(L->ep, L->dp))
			BAD("ep = %g does not divide dp = %g", L->ep, L->dp);
		if (!divides(L->ep, A->experts))
			BAD("ep = %g does not divide experts = %g", L->ep, A->experts);
	}
	if (L->schedule == AIWI_SCHED_INTERLEAVED) {
		if (L->pp < 2 || L->v < 2)
			BAD("schedule = interleaved needs pp >= 2 and virtual_stages >= 2 (pp = %g, "
			    "virtual_stages = %g)",
			    L->pp, L->v);
		if (!divides(L->pp * L->v, A->layers))
			BAD("pp x virtual_stages = %g does not divide layers = %g", L->pp * L->v,
			    A->layers);
	} else if (L->v != 1) {
		BAD("virtual_stages = %g needs schedule = interleaved", L->v);
	}
	if (L->zero < 0 || L->zero > 3)
		BAD("zero_stage = %d must be 0 to 3", L->zero);
	double per_step = L->dp * L->micro_batch;
	if (!divides(per_step, L->global_batch))
		BAD("global_batch = %g sequences is not a multiple of dp x micro_batch = %g x %g = %g",
		    L->global_batch, L->dp, L->micro_batch, per_step);
	L->m = L->global_batch / per_step;
	if (L->schedule == AIWI_SCHED_INTERLEAVED && !divides(L->pp, L->m))
		BAD("schedule = interleaved needs micro-batches per step (global_batch / (dp x "
		    "micro_batch) = %g) to be a multiple of pp = %g",
		    L->m, L->pp);
	return AIW_OK;
#undef BAD
}

bool aiwi_tlayout_stages(const aiwi_tlayout *L, const aiwi_tarch *A, double n[3])
{
	bool uneven = L->pp > 1 && (L->first_layers > 0 || L->last_layers > 0);
	if (!uneven) {
		n[0] = n[1] = n[2] = A->layers / L->pp;
		return false;
	}
	double rest = A->layers - L->first_layers - L->last_layers;
	double others = L->pp - (L->first_layers > 0) - (L->last_layers > 0);
	double mid = others > 0 ? rest / others : 0;
	n[0] = L->first_layers > 0 ? L->first_layers : mid;
	n[2] = L->last_layers > 0 ? L->last_layers : mid;
	n[1] = others > 0 ? mid : n[2]; /* pp = 2: the second stage is the last */
	return true;
}

void aiwi_tlayout_stage_params(const aiwi_tlayout *L, const aiwi_tarch *A, double *psi_d,
                               double *psi_e, double *layers)
{
	aiwi_tparams P;
	aiwi_tarch_params(A, &P);
	double n[3];
	bool uneven = aiwi_tlayout_stages(L, A, n);
	double vh = A->vocab * A->hidden;
	double emb = vh * (!A->tied && L->pp == 1 ? 2 : 1);
	*layers = n[0];
	*psi_d = (n[0] * P.per_layer_dense + emb) / L->tp;
	*psi_e = n[0] * P.per_layer_expert / (L->tp * L->ep);
	if (!uneven)
		return;
	/* a middle stage (no embedding unless pp = 2, where it is the last),
	 * then the last (the output layer) */
	double cand[2][2] = {{n[1], L->pp == 2 ? vh : 0}, {n[2], vh}};
	for (int i = 0; i < 2; i++) {
		double d = (cand[i][0] * P.per_layer_dense + cand[i][1]) / L->tp;
		double e = cand[i][0] * P.per_layer_expert / (L->tp * L->ep);
		if (d + e > *psi_d + *psi_e) {
			*psi_d = d;
			*psi_e = e;
			*layers = cand[i][0];
		}
	}
}

aiwi_tgroup aiwi_tlayout_group(const aiwi_tlayout *L, int which)
{
	double n = 1, stride = 1;
	switch (which) {
	case AIWI_G_TP: n = L->tp, stride = 1; break;
	case AIWI_G_CP: n = L->cp, stride = L->tp; break;
	case AIWI_G_PP: n = L->pp, stride = L->tp * L->cp; break;
	case AIWI_G_DP: n = L->dp, stride = L->tp * L->cp * L->pp; break;
	case AIWI_G_EP: n = L->ep, stride = L->tp * L->cp * L->pp; break;
	case AIWI_G_EDP: n = L->dp / L->ep, stride = L->tp * L->cp * L->pp * L->ep; break;
	default: break;
	}
	double k = stride < L->gpn ? floor(L->gpn / stride) : 1;
	return (aiwi_tgroup){n, fmax(1, fmin(n, k))};
}

double aiwi_group_allreduce(int algo, double S, aiwi_tgroup g, const aiwi_link_spec *intra,
                            const aiwi_link_spec *inter, double f)
{
	return aiwi_allreduce(algo, S, g.n, g.per_node, intra, inter, f);
}

double aiwi_group_allgather(double S, aiwi_tgroup g, const aiwi_link_spec *intra,
                            const aiwi_link_spec *inter, double f)
{
	/* one phase of the ring (or of each hierarchical stage) */
	int algo = g.per_node < g.n && g.per_node > 1 ? AIW_AR_HIERARCHICAL : AIW_AR_RING;
	return aiwi_allreduce(algo, S, g.n, g.per_node, intra, inter, f) / 2;
}

double aiwi_group_alltoall(double S, aiwi_tgroup g, const aiwi_link_spec *intra,
                           const aiwi_link_spec *inter)
{
	double n = g.n, k = g.per_node;
	if (n <= 1)
		return 0;
	double alpha = k < n ? fmax(intra->alpha_s, inter->alpha_s) : intra->alpha_s;
	double t_in = S * (k - 1) / n / intra->bw, t_out = S * (n - k) / n / inter->bw;
	return (n - 1) * alpha + fmax(t_in, t_out);
}

double aiwi_group_p2p(double S, aiwi_tgroup g, const aiwi_link_spec *intra,
                      const aiwi_link_spec *inter)
{
	if (g.n <= 1)
		return 0;
	const aiwi_link_spec *l = g.per_node >= g.n ? intra : inter;
	return l->alpha_s + S / l->bw;
}

double aiwi_pp_bubble_slots(int schedule, double p, double v)
{
	if (p <= 1)
		return 0;
	switch (schedule) {
	case AIWI_SCHED_INTERLEAVED: return (p - 1) / v;
	case AIWI_SCHED_ZB_H1: return (p - 1) / 3;
	default: return p - 1;
	}
}
