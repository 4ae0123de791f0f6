/*
 * iteration.h - the time of one serving iteration of a replica (tp GPUs per
 * pipeline stage, pp stages), as a sum of terms, each a datasheet time
 * scaled by a coefficient:
 *
 *   t = sum_j beta_j x_j
 *
 *   j = overhead  x = 1 s per iteration; beta = the serving stack's fixed
 *                 cost (scheduling, input preparation, kernel launches)
 *       gemm      x = GEMM FLOPs / (tp peak), the peak of the kernel's real
 *                 precision (FP8 when weights and activations are 8-bit
 *                 floating point and the GPU has FP8, else BF16: 4-bit
 *                 weights are dequantised and multiplied in BF16);
 *                 beta = 1 / achievable GEMM efficiency
 *       attn      x = attention FLOPs / (tp BF16 peak): 2 L d T^2 per prompt
 *                 of T tokens (causal QK^T and AV), 4 L d s per decoded token
 *                 with s tokens of context; beta = 1 / attention efficiency
 *       mem       x = bytes read / (tp mem_bw): the weights once per
 *                 iteration, the KV cache (decode) or the KV written
 *                 (prefill); beta = 1 / achievable bandwidth fraction
 *       comm      x = 2 L all-reduces of the activations per iteration on the
 *                 replica's scale-up link with the collective model
 *                 (collective.c: ring, latency term included) plus the
 *                 pipeline stages' transfers; beta = 1 (datasheet)
 *       seq       x = 1 s per sequence of the iteration; beta = the serving
 *                 stack's host work per sequence (scheduling, sampling,
 *                 detokenising and returning each sequence's token run on
 *                 the CPU, one after the other), which no GPU term carries:
 *                 fitted, about 0.26 ms per sequence at TP 2 and TP 8
 *                 alike on both GPUs of doc/validation.md, where the GEMM
 *                 FLOPs add 0.02-0.2 ms and divide by tp.  Datasheet value AIWI_ITER_SEQ_S
 *
 * Prefill (one iteration, a batch of prompts, T tokens in all, Q the sum of
 * the squared prompt lengths) passes the pp stages one after the other; a
 * decode batch of n sequences holding S tokens of context runs as pp
 * micro-batches in flight (the pipeline), so that its period is one pass of
 * every stage over its share: GEMM, attention and KV terms divide by pp, the
 * weights are read once per micro-batch (W / tp per period), and every
 * stage sends its micro-batches' activations on.  A batch of fewer
 * sequences than stages (n < pp) cannot be cut in pp: it runs as n
 * micro-batches of one sequence, and its period is the pass of one of them
 * through every stage, so that the terms in n and S (GEMM, attention, KV
 * reads, the all-reduces' and transfers' bytes) count pp / n times
 * (aiwi_iter_decode_share: evaluate them at (pp/n) n and (pp/n) S), the
 * fixed ones (overhead, weights, latencies) and the host cost per sequence
 * as they are.  With tp = pp = 1, no overhead and attention at zero, the
 * terms are the plain roofline's.
 *
 * Every term is affine in its two sizes (T and Q for prefill, n and S for
 * decode), so an iteration folds into three constants (aiwi_iter_fold):
 * what the serving span maths needs.
 */
#ifndef AIW_INFERENCE_ITERATION_H
#define AIW_INFERENCE_ITERATION_H

#include "hw/hw.h"

enum {
	AIWI_IT_OVERHEAD = 0,
	AIWI_IT_GEMM,
	AIWI_IT_ATTN,
	AIWI_IT_MEM,
	AIWI_IT_COMM,
	AIWI_IT_SEQ,
	AIWI_IT_NTERMS
};
enum { AIWI_PH_PREFILL = 0, AIWI_PH_DECODE = 1, AIWI_PH_N };

/* Term names ("overhead", "gemm", "attn", "mem", "comm", "seq"), phase names
 * ("prefill", "decode"); index by name or -1. */
extern const char *const aiwi_iter_term_names[AIWI_IT_NTERMS];
extern const char *const aiwi_iter_phase_names[AIWI_PH_N];
int aiwi_iter_term_index(const char *name);
int aiwi_iter_phase_index(const char *name);

/* The model and the replica. */
typedef struct aiwi_iter_shape {
	double params;        /* P */
	double layers;        /* L */
	double hidden;        /* d, the model dimension */
	double kv_bytes;      /* KV cache bytes per token, all layers */
	double weight_bits;   /* bits per weight */
	double act_bits;      /* bits per activation element (GEMM inputs, messages) */
	double tp, pp;        /* GPUs per stage, stages */
	/* mixture of experts (experts > 1; 0 or 1: dense, the fields below
	 * unread): routed experts E per MoE layer, experts_per_token k,
	 * parameters of one routed expert in one layer, MoE layers, the
	 * busiest expert-parallel rank's load over the mean (>= 1), and the
	 * expert-parallel degree ep: a stage is ep groups of tp GPUs, attention
	 * and the dense weights data-parallel over the groups (each holds them
	 * and serves n / ep of the sequences), every routed expert on one
	 * group, tensor-parallel over its tp GPUs (doc/inference.md) */
	double experts, topk, expert_params, moe_layers, imbalance, ep;
	/* the all-to-all pays one link latency (every send at once), not ep - 1 */
	int a2a_concurrent;
} aiwi_iter_shape;

/* What the GPU gives the terms: peaks per GPU and the links. */
typedef struct aiwi_iter_hw {
	double gemm_flops; /* at the kernel's precision */
	double attn_flops; /* BF16 */
	double mem_bw;
	aiwi_link_spec tp_link; /* scale-up: the TP all-reduces */
	aiwi_link_spec pp_link; /* between stages: scale-up within a node */
	int fp8;                /* the GEMMs run at the FP8 peak */
	/* mixture of experts: the all-to-all's links within and between nodes
	 * and the expert-parallel ranks per node, min(ep, gpus_per_node / tp) */
	aiwi_link_spec ep_intra, ep_inter;
	double ep_per_node;
} aiwi_iter_hw;

/* One term, affine in the phase's sizes: x = a + s m + b u + c v with
 * m the sequences of the iteration and (u, v) = (T, Q) for prefill,
 * (n, S) for decode (where m = n). */
typedef struct aiwi_iter_affine {
	double a, s, b, c;
} aiwi_iter_affine;

/* Llama-2-70B's shape (Touvron et al. 2023: 80 layers, d = 8192, 8 KV
 * heads of 128, 68.98e9 parameters), BF16, tp = pp = 1. */
aiwi_iter_shape aiwi_iter_shape_default(void);
/* The GPU's figures for the terms; the pipeline stages talk over pp_link
 * (the scale-up link when a replica fits in one node, else scale-out). */
void aiwi_iter_hw_of(const aiwi_gpu_spec *g, const aiwi_iter_shape *s, bool stages_in_node,
                     aiwi_iter_hw *out);
/* The datasheet coefficients of a GPU: 1 / efficiency from the catalog,
 * comm 1, overhead overhead_s, seq AIWI_ITER_SEQ_S. */
void aiwi_iter_datasheet(const aiwi_gpu_spec *g, const aiwi_iter_hw *h, double overhead_s,
                         double beta[AIWI_IT_NTERMS]);
/* The affine terms of a phase. */
void aiwi_iter_terms(int phase, const aiwi_iter_shape *s, const aiwi_iter_hw *h,
                     aiwi_iter_affine x[AIWI_IT_NTERMS]);
/* The terms at sizes (m, u, v) into x. */
void aiwi_iter_eval(const aiwi_iter_affine t[AIWI_IT_NTERMS], double m, double u, double v,
                    double x[AIWI_IT_NTERMS]);
/* sum_j beta_j x_j */
double aiwi_iter_time(const double beta[AIWI_IT_NTERMS], const double x[AIWI_IT_NTERMS]);
/* The fold: t(m, u, v) = c0 + cm m + cu u + cv v for the coefficients beta. */
void aiwi_iter_fold(const aiwi_iter_affine t[AIWI_IT_NTERMS], const double beta[AIWI_IT_NTERMS],
                    double *c0, double *cm, double *cu, double *cv);

/* The factor of a decode iteration's terms in n and S for a batch of n
 * sequences over pp stages: pp / n when n < pp (n micro-batches of one
 * sequence, above), else 1. */
static inline double aiwi_iter_decode_share(double n, double pp)
{
	return n < pp ? pp / n : 1;
}

/* ---- mixture of experts (iteration.c) ----
 * The expected distinct experts of E that B tokens routed uniformly to k
 * distinct experts each touch: E (1 - (1 - k/E)^B) (B real >= 0; E at k =
 * E, 0 at B = 0). */
double aiwi_iter_moe_distinct(double E, double k, double B);
/* The memory term (x, before beta) of reading `distinct` routed experts in
 * every MoE layer: moe_layers expert_params weight_bits / 8 distinct bytes
 * over the tp ep GPUs of a stage. */
double aiwi_iter_moe_read(const aiwi_iter_shape *s, const aiwi_iter_hw *h, double distinct);
/* The tokens whose routing one weight read of a decode iteration of n
 * sequences serves: a micro-batch's n / pp (one when n < pp). */
static inline double aiwi_iter_moe_tokens(double n, double pp)
{
	return n < pp ? 1 : n / pp;
}
/* The all-to-all (dispatch and combine) of one MoE layer as an affine
 * term of the tokens u it routes: *a seconds of latency, *b per token. */
void aiwi_iter_moe_alltoall(const aiwi_iter_shape *s, const aiwi_iter_hw *h, double *a,
                            double *b);

/* Default fixed cost per iteration (s): see iteration.c. */
#define AIWI_ITER_OVERHEAD_S 8e-3
/* Default host cost per sequence of an iteration (s): none (no datasheet
 * gives one; a calibrated profile measures it: see iteration.c). */
#define AIWI_ITER_SEQ_S 0.0

#endif /* AIW_INFERENCE_ITERATION_H */
