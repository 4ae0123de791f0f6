/*
 * iteration.c - the per-iteration time model of a serving replica
 * (iteration.h): pure functions, no state.
 *
 * Sources of the datasheet figures: peaks, bandwidths, links and the
 * achievable efficiencies are catalog fields (gpu.c, with their sources);
 * the all-reduce is the library's collective model (collective.c, Thakur,
 * Rabenseifner & Gropp 2005) with NCCL's per-step latencies, whose small-
 * message size the TP all-reduces of decode are: about 6 us for 2 H100 on
 * NVLink measured with nccl-tests (NVIDIA/nccl#1259), the model's
 * 2 (p - 1) alpha = 6.8 us.
 * The fixed cost per iteration, AIWI_ITER_OVERHEAD_S = 8 ms, is an estimate
 * from vLLM's profile of its v0.5 engine (blog.vllm.ai, 2024-09-05: for
 * Llama-3-8B on one H100, 62% of the time on the CPU, HTTP server 33% and
 * scheduling 29%, the GPU busy 38%): a decode step's GPU time there is the
 * read of 16 GB of weights at 3.35 TB/s, 4.8 ms, hence 4.8 x 62 / 38 =
 * 7.8 ms of CPU per iteration.  The engine's later releases overlap much of
 * it (multi-step scheduling), so a calibrated profile should replace it.
 * The host cost per sequence, AIWI_ITER_SEQ_S, is 0 by default: the same
 * profile describes the CPU-side loop over the sequences of an iteration
 * (its Python scheduler, sampler and detokeniser) without a figure per
 * sequence, and a roofline has none; fitted to the Splitwise table it is
 * 0.26 ms on both GPUs (doc/validation.md).
 */
#include "inference/iteration.h"

#include <math.h>

const char *const aiwi_iter_term_names[AIWI_IT_NTERMS] = {"overhead", "gemm", "attn",
                                                          "mem",      "comm", "seq"};
const char *const aiwi_iter_phase_names[AIWI_PH_N] = {"prefill", "decode"};

int aiwi_iter_term_index(const char *name)
{
	for (int i = 0; name && i < AIWI_IT_NTERMS; i++)
		if (aiwi_hw_ieq(name, aiwi_iter_term_names[i]))
			return i;
	return -1;
}

int aiwi_iter_phase_index(const char *name)
{
	for (int i = 0; name && i < AIWI_PH_N; i++)
		if (aiwi_hw_ieq(name, aiwi_iter_phase_names[i]))
			return i;
	return -1;
}

aiwi_iter_shape aiwi_iter_shape_default(void)
{
	/* Llama 2 (Touvron et al. 2023), 70B: 80 layers, d = 8192, grouped-query
	 * attention with 8 KV heads of 128: 2 x 80 x 8 x 128 x 2 B per token */
	return (aiwi_iter_shape){.params = 68.98e9,
	                         .layers = 80,
	                         .hidden = 8192,
	                         .kv_bytes = 2.0 * 80 * 8 * 128 * 2,
	                         .weight_bits = 16,
	                         .act_bits = 16,
	                         .tp = 1,
	                         .pp = 1};
}

void aiwi_iter_hw_of(const aiwi_gpu_spec *g, const aiwi_iter_shape *s, bool stages_in_node,
                     aiwi_iter_hw *out)
{
	/* FP8 GEMMs need both operands in 8 bits: W8A16 and W4A16 kernels
	 * dequantise to BF16 and run at its peak */
	out->fp8 = s->weight_bits == 8 && s->act_bits == 8 && g->fp8_flops > 0;
	out->gemm_flops = out->fp8 ? g->fp8_flops : g->bf16_flops;
	out->attn_flops = g->bf16_flops;
	out->mem_bw = g->mem_bw;
	aiwi_link_spec intra, inter;
	aiwi_hw_gpu_links(g, &intra, &inter);
	out->tp_link = intra;
	out->pp_link = stages_in_node ? intra : inter;
}

void aiwi_iter_datasheet(const aiwi_gpu_spec *g, const aiwi_iter_hw *h, double overhead_s,
                         double beta[AIWI_IT_NTERMS])
{
	beta[AIWI_IT_OVERHEAD] = overhead_s;
	beta[AIWI_IT_GEMM] = 1 / (h->fp8 ? g->fp8_matmul_eff : g->matmul_eff);
	beta[AIWI_IT_ATTN] = 1 / g->attn_eff;
	beta[AIWI_IT_MEM] = 1 / g->mem_bw_eff;
	beta[AIWI_IT_COMM] = 1;
	beta[AIWI_IT_SEQ] = AIWI_ITER_SEQ_S;
}

/* One ring all-reduce of m bytes per unit of size over p ranks on link l,
 * as an affine term: 2 (p-1) alpha + 2 (p-1)/p m u / bw (collective.c). */
static aiwi_iter_affine ring_term(double p, double m, const aiwi_link_spec *l)
{
	if (p <= 1)
		return (aiwi_iter_affine){0, 0, 0, 0};
	/* the same closed form as aiwi_allreduce_ring, split by its size */
	double a = aiwi_allreduce_ring(0, p, l->alpha_s, l->bw);
	double b = aiwi_allreduce_ring(m, p, 0, l->bw);
	return (aiwi_iter_affine){a, 0, b, 0};
}

/* ---- mixture of experts ----
 * Each token goes to k of the E routed experts of each of the moe_layers
 * MoE layers.  Uniform routing (every token picks k distinct experts, all
 * k-sets alike): an expert is missed by one token with probability
 * 1 - k/E, by B independent tokens with (1 - k/E)^B, hence the expected
 * distinct experts E (1 - (1 - k/E)^B) (linearity of expectation over the
 * E experts' indicators; derived in doc/inference.md).  Computed as
 * -E expm1(B log1p(-k/E)), exact to rounding for large B and small k/E. */
double aiwi_iter_moe_distinct(double E, double k, double B)
{
	if (!(B > 0))
		return 0;
	if (k >= E)
		return E;
	return -E * expm1(B * log1p(-k / E));
}

double aiwi_iter_moe_read(const aiwi_iter_shape *s, const aiwi_iter_hw *h, double distinct)
{
	return s->moe_layers * s->expert_params * (s->weight_bits / 8) * distinct /
	       (s->tp * s->ep * h->mem_bw);
}

/* An all-to-all of S bytes per rank over the ep ranks, ep_per_node of them
 * per node: (ep - 1) alpha + max(S (kn - 1) / ep / bw_intra, S (ep - kn) /
 * ep / bw_inter), alpha the inter-node link's when the ranks span nodes:
 * the form of the training step's expert-parallel all-to-all
 * (lib/training/layout.c, aiwi_group_alltoall), each rank sending the
 * (ep - 1) / ep of its data that other ranks' experts need, within and
 * between nodes at once.  A rank's S is its n / ep tokens' k activations
 * of d act_bits / 8 bytes, times the imbalance (the busiest rank's share
 * decides); twice per layer (dispatch, combine).  a2a_concurrent: one
 * alpha per all-to-all instead of ep - 1, every rank's sends posted at
 * once (DeepEP's low-latency kernels, pure RDMA: github.com/deepseek-ai/
 * DeepEP, README "Low-latency kernels"; doc/inference.md compares). */
void aiwi_iter_moe_alltoall(const aiwi_iter_shape *s, const aiwi_iter_hw *h, double *a,
                            double *b)
{
	double ep = s->ep, kn = h->ep_per_node;
	if (!(ep > 1)) {
		*a = *b = 0;
		return;
	}
	double alpha = kn < ep ? fmax(h->ep_intra.alpha_s, h->ep_inter.alpha_s) : h->ep_intra.alpha_s;
	double per_byte = fmax((kn - 1) / ep / h->ep_intra.bw, (ep - kn) / ep / h->ep_inter.bw);
	double bytes = s->imbalance * s->topk * s->hidden * (s->act_bits / 8) / ep;
	*a = 2 * (s->a2a_concurrent ? 1 : ep - 1) * alpha;
	*b = 2 * bytes * per_byte;
}

/* The terms of a mixture of experts: the dense weights P - moe_layers E
 * expert_params (attention, embeddings, shared experts) on every group,
 * the GEMMs over the active weights (k experts of the busiest rank's
 * load), every per-sequence term over tp ep GPUs (the groups share the
 * sequences), the weights' term the dense ones only (the routed experts'
 * reads depend on the tokens: aiwi_iter_moe_read, added by the caller),
 * the all-to-alls in comm.  ep = 1, imbalance = 1 and every expert's
 * weights read give the dense terms of a model of the active weights'
 * FLOPs. */
static void moe_terms(int phase, const aiwi_iter_shape *s, const aiwi_iter_hw *h,
                      aiwi_iter_affine x[AIWI_IT_NTERMS])
{
	double tp = s->tp, pp = s->pp, ep = s->ep, L = s->layers, d = s->hidden;
	double routed = s->moe_layers * s->experts * s->expert_params;
	double dense = s->params - routed;
	/* one rank (ep = 1) holds every expert, tensor-parallel: no rank waits */
	double imb = ep > 1 ? s->imbalance : 1;
	double gemm_params = dense + imb * s->topk * s->moe_layers * s->expert_params;
	double Wd = dense * s->weight_bits / 8;
	double act = d * s->act_bits / 8 / ep; /* a group's activation bytes per token */
	double nar = 2 * L, g = tp * ep, a2a_a, a2a_b;
	aiwi_iter_moe_alltoall(s, h, &a2a_a, &a2a_b);
	double Lm = s->moe_layers;
	x[AIWI_IT_OVERHEAD] = (aiwi_iter_affine){1, 0, 0, 0};
	x[AIWI_IT_SEQ] = (aiwi_iter_affine){0, 1, 0, 0};
	if (phase == AIWI_PH_PREFILL) {
		x[AIWI_IT_GEMM] = (aiwi_iter_affine){0, 0, 2 * gemm_params / (g * h->gemm_flops), 0};
		x[AIWI_IT_ATTN] = (aiwi_iter_affine){0, 0, 0, 2 * L * d / (g * h->attn_flops)};
		x[AIWI_IT_MEM] = (aiwi_iter_affine){Wd / (tp * h->mem_bw), 0, s->kv_bytes / (g * h->mem_bw), 0};
		aiwi_iter_affine ar = ring_term(tp, act, &h->tp_link);
		double hops = pp - 1;
		x[AIWI_IT_COMM] = (aiwi_iter_affine){nar * ar.a + hops * h->pp_link.alpha_s + Lm * a2a_a, 0,
		                                     nar * ar.b + hops * act / h->pp_link.bw + Lm * a2a_b, 0};
	} else {
		x[AIWI_IT_GEMM] = (aiwi_iter_affine){0, 0, 2 * gemm_params / (g * pp * h->gemm_flops), 0};
		x[AIWI_IT_ATTN] = (aiwi_iter_affine){0, 0, 0, 4 * L * d / (g * pp * h->attn_flops)};
		x[AIWI_IT_MEM] = (aiwi_iter_affine){Wd / (tp * h->mem_bw), 0, 0, s->kv_bytes / (g * pp * h->mem_bw)};
		/* each stage runs its layers for each of pp micro-batches of n / pp:
		 * the all-reduces and all-to-alls of every layer on n / pp tokens */
		aiwi_iter_affine ar = ring_term(tp, act / pp, &h->tp_link);
		double sends = pp > 1 ? pp : 0;
		x[AIWI_IT_COMM] = (aiwi_iter_affine){nar * ar.a + sends * h->pp_link.alpha_s + Lm * a2a_a, 0,
		                                     nar * ar.b + (pp > 1 ? act / h->pp_link.bw : 0) +
		                                             Lm * a2a_b / pp,
		                                     0};
	}
}

void aiwi_iter_terms(int phase, const aiwi_iter_shape *s, const aiwi_iter_hw *h,
                     aiwi_iter_affine x[AIWI_IT_NTERMS])
{
	if (s->experts > 1) {
		moe_terms(phase, s, h, x);
		return;
	}
	double tp = s->tp, pp = s->pp, L = s->layers, d = s->hidden;
	double W = s->params * s->weight_bits / 8; /* weight bytes */
	double act = d * s->act_bits / 8;          /* activation bytes per token */
	double nar = 2 * L;                        /* TP all-reduces per pass */
	if (phase == AIWI_PH_PREFILL) {
		/* u = T tokens, v = Q = sum of squared prompt lengths; the stages
		 * run one after the other */
		x[AIWI_IT_OVERHEAD] = (aiwi_iter_affine){1, 0, 0, 0};
		x[AIWI_IT_GEMM] = (aiwi_iter_affine){0, 0, 2 * s->params / (tp * h->gemm_flops), 0};
		x[AIWI_IT_ATTN] = (aiwi_iter_affine){0, 0, 0, 2 * L * d / (tp * h->attn_flops)};
		x[AIWI_IT_MEM] =
			(aiwi_iter_affine){W / (tp * h->mem_bw), 0, s->kv_bytes / (tp * h->mem_bw), 0};
		aiwi_iter_affine ar = ring_term(tp, act, &h->tp_link);
		double hops = pp - 1;
		x[AIWI_IT_COMM] = (aiwi_iter_affine){nar * ar.a + hops * h->pp_link.alpha_s, 0,
		                                     nar * ar.b + hops * act / h->pp_link.bw, 0};
		x[AIWI_IT_SEQ] = (aiwi_iter_affine){0, 1, 0, 0};
	} else {
		/* u = n sequences, v = S context tokens; pp micro-batches of n/pp in
		 * flight: the period of one token for every sequence */
		x[AIWI_IT_OVERHEAD] = (aiwi_iter_affine){1, 0, 0, 0};
		x[AIWI_IT_GEMM] = (aiwi_iter_affine){0, 0, 2 * s->params / (tp * pp * h->gemm_flops), 0};
		x[AIWI_IT_ATTN] = (aiwi_iter_affine){0, 0, 0, 4 * L * d / (tp * pp * h->attn_flops)};
		x[AIWI_IT_MEM] =
			(aiwi_iter_affine){W / (tp * h->mem_bw), 0, 0, s->kv_bytes / (tp * pp * h->mem_bw)};
		/* each stage all-reduces its 2L/pp layers for each of its pp
		 * micro-batches of n/pp: 2L all-reduces of (n/pp) act */
		aiwi_iter_affine ar = ring_term(tp, act / pp, &h->tp_link);
		double sends = pp > 1 ? pp : 0; /* one per micro-batch and stage */
		x[AIWI_IT_COMM] = (aiwi_iter_affine){nar * ar.a + sends * h->pp_link.alpha_s, 0,
		                                     nar * ar.b + (pp > 1 ? act / h->pp_link.bw : 0),
		                                     0};
		x[AIWI_IT_SEQ] = (aiwi_iter_affine){0, 1, 0, 0};
	}
}

void aiwi_iter_eval(const aiwi_iter_affine t[AIWI_IT_NTERMS], double m, double u, double v,
                    double x[AIWI_IT_NTERMS])
{
	for (int j = 0; j < AIWI_IT_NTERMS; j++)
		x[j] = t[j].a + t[j].s * m + t[j].b * u + t[j].c * v;
}

double aiwi_iter_time(const double beta[AIWI_IT_NTERMS], const double x[AIWI_IT_NTERMS])
{
	double t = 0;
	for (int j = 0; j < AIWI_IT_NTERMS; j++)
		t += beta[j] * x[j];
	return t;
}

void aiwi_iter_fold(const aiwi_iter_affine t[AIWI_IT_NTERMS], const double beta[AIWI_IT_NTERMS],
                    double *c0, double *cm, double *cu, double *cv)
{
	double a = 0, m = 0, b = 0, c = 0;
	for (int j = 0; j < AIWI_IT_NTERMS; j++) {
		a += beta[j] * t[j].a;
		m += beta[j] * t[j].s;
		b += beta[j] * t[j].b;
		c += beta[j] * t[j].c;
	}
	*c0 = a;
	*cm = m;
	*cu = b;
	*cv = c;
}
