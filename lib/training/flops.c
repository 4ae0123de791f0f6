/*
 * flops.c - parameters and FLOPs per token of a decoder-only transformer
 * from its architecture (layout.h).
 *
 * Per layer, h = hidden, d = h / heads, kv = kv_heads, f = ffn_hidden,
 * 2 FLOPs per multiply-add (Narayanan et al., SC'21, section 5.1, with
 * grouped-query attention and gated MLPs):
 *   QKV and output projections  2 h (h + 2 kv d) + 2 h^2
 *   attention core (QK^T, AV)   4 s h            (s = sequence length)
 *   MLP                         4 h f (gelu), 6 h f (swiglu: gate, up, down)
 *   mixture of experts          topk x the MLP at expert_ffn_hidden, plus
 *                               the router 2 h experts
 * and once per token the output layer 2 h V.  Model FLOPs are 3x the
 * forward (the backward computes input and weight gradients, 2x); the
 * count is the one of Narayanan et al. and of NeMo's "model TFLOP/s"
 * (the causal mask is not discounted).  Recomputation adds forward work:
 * full, one more forward of every layer (not of the output layer);
 * selective, one more attention core (Korthikanti et al. 2022, section 5).
 *
 * Parameters: per layer the four projections h (h + 2 kv d) + h^2, the
 * MLP 2 h f or 3 h f (each expert's, times experts, plus the router
 * h experts), two norms 2 h; the embedding V h, twice when the output
 * layer is not tied to it.
 */
#include "training/layout.h"

#include <math.h>

static double mlp_mats(const aiwi_tarch *A)
{
	return A->mlp == AIWI_MLP_SWIGLU ? 3 : 2;
}

void aiwi_tarch_params(const aiwi_tarch *A, aiwi_tparams *out)
{
	double h = A->hidden, d = h / A->heads, kv = A->kv_heads;
	double attn = h * (h + 2 * kv * d) + h * h;
	bool moe = A->experts > 1;
	double dense = attn + 2 * h + (moe ? h * A->experts : mlp_mats(A) * h * A->ffn);
	double expert = moe ? A->experts * mlp_mats(A) * h * A->expert_ffn : 0;
	out->per_layer_dense = dense;
	out->per_layer_expert = expert;
	out->embedding = A->vocab * h * (A->tied ? 1 : 2);
	out->total = A->layers * (dense + expert) + out->embedding;
	out->active = A->layers * (dense + (moe ? A->topk * mlp_mats(A) * h * A->expert_ffn : 0)) +
	              out->embedding;
}

void aiwi_tflops_per_token(const aiwi_tarch *A, int recompute, aiwi_tflops *out)
{
	double h = A->hidden, d = h / A->heads, kv = A->kv_heads, s = A->seq;
	double proj = 2 * h * (h + 2 * kv * d) + 2 * h * h;
	bool moe = A->experts > 1;
	double mlp = moe ? A->topk * 2 * mlp_mats(A) * h * A->expert_ffn + 2 * h * A->experts
	                 : 2 * mlp_mats(A) * h * A->ffn;
	out->gemm_layer = proj + mlp;
	out->attn_layer = 4 * s * h;
	out->logits = 2 * h * A->vocab;
	double fwd = A->layers * (out->gemm_layer + out->attn_layer) + out->logits;
	out->model = 3 * fwd;
	double extra = 0;
	if (recompute == AIWI_RC_FULL)
		extra = A->layers * (out->gemm_layer + out->attn_layer);
	else if (recompute == AIWI_RC_SELECTIVE)
		extra = A->layers * out->attn_layer;
	out->hardware = out->model + extra;
}
