/*
 * step.c - time per step of a training layout (layout.h).
 *
 * A slot is one micro-batch (forward and backward) on the slowest pipeline
 * stage, the last one (its L / pp layers and the output layer) for an even
 * split; with uneven stages (first_layers, last_layers: Megatron-LM's
 * decoder_first_pipeline_num_layers and decoder_last_pipeline_num_layers)
 * the slowest of the first, a middle and the last stage with the output
 * layer, its layers in every per-layer term below:
 *   GEMMs      tokens x gemm FLOPs x (3, or 4 with full recomputation) / tp
 *              at peak(precision) x efficiency(precision);
 *   attention  tokens x 4 s h x (3, +1 recomputed under selective or full)
 *              / tp at the BF16 peak and efficiency (FP8 recipes keep
 *              attention in BF16), halved by flash attention, which skips
 *              the blocks the causal mask hides (Dao, FlashAttention-2, 2023);
 *   element-wise kernels (norms, activations, dropout, residuals, softmax):
 *              memory-bound, 4 passes over the layer's stored activations
 *              (written in the forward, read in the backward, their
 *              gradients written and read) at mem_bw x AIWI_ELEM_BW_EFF
 *              (layout.h: fitted), 5 under full
 *              recomputation; the activations are those of memory.c without
 *              recomputation, tokens = micro_batch x seq_len / cp;
 *   TP         per layer 4 all-reduces of the layer's activations, 2 bytes x
 *              tokens x h, on the TP group (2 in the forward, 2 in the
 *              backward; with sequence parallelism reduce-scatter + all-gather
 *              pairs, the same ring time), 6 under full recomputation; not
 *              hidden (Narayanan et al. 2021, section 3.3), unless
 *              tp_comm_overlap: Transformer Engine's userbuffers split each
 *              collective and the GEMM it feeds or drains into chunks and
 *              run chunk k's transfer under chunk k+1's GEMM (NeMo's H100
 *              GPT-3 configuration, NeMo-Framework-Launcher ub-confs/
 *              ub_cfg_h100_175b_tp4_mbs1_seqlen2k_bf16grad.yaml: pipelined
 *              reduce-scatters in num_splits = 4, ring-exchange all-gathers,
 *              bulk overlaps in the backward), so with UB_SPLITS = 4 chunks
 *              the exposed part of a layer's TP time T under its GEMM time
 *              W is the queue's max(T / 4, T - 3 W / 4) (the SMs the
 *              pipelined reduce-scatters take from the GEMMs, 20-24 of 132
 *              there, are not charged);
 *   CP         per layer 3 all-gathers (4 under full recomputation) of the
 *              sequence's K and V over the CP group, hidden behind the
 *              attention core as far as it lasts (ring attention);
 *   EP         per MoE layer 4 all-to-alls (dispatch and combine, forward
 *              and backward; 6 under full recomputation) of tokens x topk x h
 *              x 2 bytes over the EP group.
 * Every collective inside a node runs at the link's line rate times
 * AIWI_NCCL_NVLINK_EFF (layout.h: NCCL's protocol overhead).
 * A step is m slots, the bubble (aiwi_pp_bubble_slots), the point-to-point
 * transfers on the fill and drain path, 2 (pp-1) v of them, of 2 bytes x
 * tokens x h / tp (Megatron's scatter-gather across the TP ranks), and the
 * exposed data-parallel reduction.  Data parallelism reduces each GPU's
 * gradients over its DP group: ZeRO 0 an all-reduce (the `allreduce`
 * algorithm), ZeRO 1 and 2 a reduce-scatter of the gradients and an
 * all-gather of the updated weights, ZeRO 3 that plus two all-gathers of
 * the weights per micro-batch (forward and backward).  Reductions start as
 * each layer's backward of the last micro-batch ends, one layer's bucket
 * at a time, so with L_s layers on the stage, a backward window W and a
 * reduction time T the exposed part is the exact finish time of that
 * queue after the window: max(T / L_s, T - W (L_s - 1) / L_s).  The weight
 * all-gathers overlap the forward the same way.
 */
#include "training/layout.h"

#include <math.h>
#include <stdio.h>

/* chunks of an overlapped TP collective (step.c's header) */
#define UB_SPLITS 4

/* exposed part of T seconds of reduction queued behind n buckets arriving
 * uniformly over a window W */
static double queue_exposed(double T, double W, double n)
{
	if (!(T > 0))
		return 0;
	n = fmax(1, n);
	return fmax(T / n, T - W * (n - 1) / n);
}

aiw_status aiwi_tstep_compute(const aiwi_tarch *A, const aiwi_tlayout *L, const aiwi_thw *H,
                              aiwi_tstep *o, char *err, size_t len)
{
	aiwi_tflops F;
	aiwi_tflops_per_token(A, L->recompute, &F);
	bool full = L->recompute == AIWI_RC_FULL, fp8 = L->precision == AIWI_PREC_FP8;
	double peak = fp8 ? H->fp8_flops : H->bf16_flops, eff = fp8 ? H->fp8_eff : H->bf16_eff;
	double g_rate = peak * eff, a_rate = H->bf16_flops * H->bf16_eff;
	if (!(g_rate > 0) || !(a_rate > 0))
		return aiwi_buferr(err, len, AIW_ERANGE,
		                   "precision = %s needs a %s peak and efficiency > 0 (peak %g FLOP/s, "
		                   "efficiency %g)",
		                   fp8 ? "fp8" : "bf16", fp8 ? "FP8" : "BF16", peak, eff);
	double lps = A->layers / L->pp;
	double tok = L->micro_batch * A->seq / L->cp; /* tokens of one micro-batch on a rank */
	double h = A->hidden, tp = L->tp;
	/* one layer, one micro-batch */
	double passes = full ? 4 : 3;
	double t_gemm = tok * F.gemm_layer * passes / tp / g_rate;
	double attn_passes = L->recompute == AIWI_RC_NONE ? 3 : 4;
	double t_attn = tok * F.attn_layer * attn_passes / tp / a_rate *
	                (A->attention == AIWI_ATTN_FLASH ? 0.5 : 1);
	double t_elem = (full ? 5 : 4) * aiwi_act_layer_arch(A, L, AIWI_RC_NONE) /
	                (H->mem_bw * AIWI_ELEM_BW_EFF);
	double t_logits = tok * F.logits * 3 / tp / g_rate;
	aiwi_tgroup gtp = aiwi_tlayout_group(L, AIWI_G_TP), gcp = aiwi_tlayout_group(L, AIWI_G_CP);
	aiwi_tgroup gpp = aiwi_tlayout_group(L, AIWI_G_PP), gdp = aiwi_tlayout_group(L, AIWI_G_DP);
	aiwi_tgroup gep = aiwi_tlayout_group(L, AIWI_G_EP), gedp = aiwi_tlayout_group(L, AIWI_G_EDP);
	aiwi_link_spec nccl_intra = H->intra;
	nccl_intra.bw *= AIWI_NCCL_NVLINK_EFF;
	const aiwi_link_spec *in = &nccl_intra, *out = &H->inter;
	double t_tp = (full ? 6 : 4) *
	              aiwi_group_allreduce(AIW_AR_RING, 2 * tok * h, gtp, in, out, 1);
	if (L->tp_overlap)
		t_tp = queue_exposed(t_tp, t_gemm, UB_SPLITS);
	double kv_split = fmin(tp, A->kv_heads);
	double kv_bytes = 2 * L->micro_batch * A->seq * (A->kv_heads / kv_split) *
	                  (h / A->heads) * 2;
	double t_cp_all = (full ? 4 : 3) * aiwi_group_allgather(kv_bytes, gcp, in, out, 1);
	double t_cp = fmax(0, t_cp_all - t_attn);
	double t_ep = 0;
	if (A->experts > 1 && L->ep > 1) {
		double S = tok / (L->sp ? tp : 1) * A->topk * h * 2;
		t_ep = (full ? 6 : 4) * aiwi_group_alltoall(S, gep, in, out);
	}
	double n[3];
	if (aiwi_tlayout_stages(L, A, n)) {
		/* uneven stages: the slowest of the first, a middle and the last
		 * (with the output layer) stage sets the slot */
		double lay = t_gemm + t_attn + t_elem, com = t_tp + t_cp + t_ep;
		lps = n[2];
		o->slot_compute = lps * lay + t_logits;
		o->slot_comm = lps * com;
		for (int i = 1; i >= 0; i--)
			if (n[i] * (lay + com) > o->slot_compute + o->slot_comm) {
				lps = n[i];
				o->slot_compute = lps * lay;
				o->slot_comm = lps * com;
			}
	} else {
		o->slot_compute = lps * (t_gemm + t_attn + t_elem) + t_logits;
		o->slot_comm = lps * (t_tp + t_cp + t_ep);
	}
	double slot = o->slot_compute + o->slot_comm;
	o->compute = L->m * o->slot_compute;
	o->tp = L->m * lps * t_tp;
	o->cp = L->m * lps * t_cp;
	o->ep = L->m * lps * t_ep;
	o->bubble = aiwi_pp_bubble_slots(L->schedule, L->pp, L->v) * slot;
	o->pp_transfer =
	        L->pp > 1 ? 2 * (L->pp - 1) * L->v * aiwi_group_p2p(2 * tok * h / tp, gpp, in, out)
	                  : 0;
	/* data parallelism: the most loaded stage's parameters on one GPU */
	double psi_d, psi_e, lds; /* lds: that stage's layers, one gradient bucket each */
	aiwi_tlayout_stage_params(L, A, &psi_d, &psi_e, &lds);
	double f = H->dp_link_factor;
	double red, gather = 0;
	if (L->zero == 0) {
		red = aiwi_group_allreduce(H->dp_algo, H->grad_bytes * psi_d, gdp, in, out, f) +
		      aiwi_group_allreduce(H->dp_algo, H->grad_bytes * psi_e, gedp, in, out, f);
	} else {
		red = aiwi_group_allgather(H->grad_bytes * psi_d, gdp, in, out, f) +
		      aiwi_group_allgather(H->grad_bytes * psi_e, gedp, in, out, f);
		gather = aiwi_group_allgather(H->weight_bytes * psi_d, gdp, in, out, f) +
		         aiwi_group_allgather(H->weight_bytes * psi_e, gedp, in, out, f);
	}
	double bwd = o->slot_compute * (passes - 1) / passes, fwd = o->slot_compute / passes;
	o->dp_total = red + gather * (L->zero == 3 ? 1 + 2 * L->m : 1);
	o->dp = queue_exposed(red, bwd, lds);
	if (L->zero == 3) /* every micro-batch gathers the weights, forward and backward */
		o->dp += L->m * (queue_exposed(gather, fwd, lds) + queue_exposed(gather, bwd, lds));
	else if (L->zero > 0) /* the updated weights, behind the next step's first forward */
		o->dp += queue_exposed(gather, fwd, lds);
	o->step = o->compute + o->tp + o->cp + o->ep + o->bubble + o->pp_transfer + o->dp;
	o->model_flops = L->global_batch * A->seq * F.model;
	o->mfu = o->model_flops / (L->gpus * peak * o->step);
	if (!(isfinite(o->step) && o->step > 0))
		return aiwi_buferr(err, len, AIW_ERANGE, "step time %g s is not a positive finite time",
		                   o->step);
	return AIW_OK;
}
