/*
 * layout.h - the parallel layout of a training job and the pure functions
 * that cost it (aiworkload(7) "Training", doc/training.md):
 *   layout.c  parsing-free validation, group placement, collectives per
 *             group, the pipeline bubble;
 *   flops.c   parameters and FLOPs per token from the architecture;
 *   memory.c  memory per GPU (ZeRO, Korthikanti et al. activations);
 *   step.c    time per step and its breakdown.
 * Everything here is a pure function of its arguments: no simulation, no
 * allocation.  Units are SI (s, B, FLOP, B/s).
 */
#ifndef AIW_TRAINING_LAYOUT_H
#define AIW_TRAINING_LAYOUT_H

#include "hw/hw.h"

#include <stdbool.h>
#include <stddef.h>

/* Enum indices, in the order of the parameters' choices. */
enum { AIWI_SCHED_1F1B, AIWI_SCHED_INTERLEAVED, AIWI_SCHED_ZB_H1 };
#define AIWI_SCHED_CHOICES "1f1b|interleaved|zb-h1"
enum { AIWI_RC_NONE, AIWI_RC_SELECTIVE, AIWI_RC_FULL };
#define AIWI_RC_CHOICES "none|selective|full"
enum { AIWI_PREC_BF16, AIWI_PREC_FP8 };
#define AIWI_PREC_CHOICES "bf16|fp8"
enum { AIWI_MLP_GELU, AIWI_MLP_SWIGLU };
#define AIWI_MLP_CHOICES "gelu|swiglu"
enum { AIWI_ATTN_FLASH, AIWI_ATTN_STANDARD };
#define AIWI_ATTN_CHOICES "flash|standard"

/* A decoder-only transformer. */
typedef struct aiwi_tarch {
	double layers, hidden, ffn, heads, kv_heads, vocab, seq;
	double experts;    /* <= 1: dense MLP */
	double topk;       /* experts per token */
	double expert_ffn; /* FFN hidden size of one expert */
	int mlp;           /* AIWI_MLP_*: gelu 2 matrices, swiglu 3 */
	int attention;     /* AIWI_ATTN_*: flash keeps no s^2 tensors and skips the
	                      causal mask's upper half */
	bool tied;         /* output layer shares the input embedding */
} aiwi_tarch;

/* The layout: rank = tp fastest, then cp, then pp, then dp (TP inside a
 * node, then CP, PP, DP across nodes); ep splits dp. */
typedef struct aiwi_tlayout {
	double gpus, gpn;
	double tp, pp, v, cp, ep, dp;
	double micro_batch;  /* sequences per micro-batch */
	double global_batch; /* sequences per step */
	double m;            /* micro-batches per step per pipeline: global / (dp mb) */
	/* layers of the first and last pipeline stages (Megatron-LM's
	 * decoder_first_pipeline_num_layers, decoder_last_pipeline_num_layers);
	 * 0: unset, that stage takes layers / pp like the others.  The other
	 * stages split the remaining layers evenly. */
	double first_layers, last_layers;
	int schedule;        /* AIWI_SCHED_* */
	int zero;            /* 0-3 */
	int recompute;       /* AIWI_RC_* */
	bool sp;             /* sequence parallelism */
	bool tp_overlap;     /* TP collectives overlapped with the GEMMs (step.c) */
	int precision;       /* AIWI_PREC_* */
} aiwi_tlayout;

/* ------------------------------------------------------------------------ */
/* layout.c                                                                  */
/* ------------------------------------------------------------------------ */
/* Check L against A and derive L->dp (when 0) and L->m.  The message names
 * the parameter, its value and what is allowed ("tp = 3 does not divide
 * heads = 64"). */
aiw_status aiwi_tlayout_check(aiwi_tlayout *L, const aiwi_tarch *A, char *err, size_t len);

/* Layers on the first, a middle and the last pipeline stage (n[0], n[1],
 * n[2]; all L / pp for an even split) of a layout aiwi_tlayout_check()
 * accepted; returns whether the split is uneven. */
bool aiwi_tlayout_stages(const aiwi_tlayout *L, const aiwi_tarch *A, double n[3]);

/* Parameters on one GPU of the stage with the most (the first for an even
 * split, its L / pp layers and the input embedding, with the output layer
 * when pp = 1 and it is not tied): dense ones over tp in *psi_d, the
 * experts' over tp ep in *psi_e, the stage's layers in *layers. */
void aiwi_tlayout_stage_params(const aiwi_tlayout *L, const aiwi_tarch *A, double *psi_d,
                               double *psi_e, double *layers);

/* One group of ranks that synchronise: n members, of which per_node share
 * a node (n / per_node nodes; per_node = n: inside one node). */
typedef struct aiwi_tgroup {
	double n, per_node;
} aiwi_tgroup;
enum { AIWI_G_TP, AIWI_G_CP, AIWI_G_PP, AIWI_G_DP, AIWI_G_EP, AIWI_G_EDP };
/* Placement of group kind `which` (AIWI_G_*): the group of stride s ranks
 * (tp 1, cp tp, pp tp cp, dp and ep tp cp pp; edp, the data-parallel group
 * of the experts, stride tp cp pp ep) has min(n, max(1, gpn / s)) members
 * per node. */
aiwi_tgroup aiwi_tlayout_group(const aiwi_tlayout *L, int which);

/* Collectives of S bytes per rank on a group, at the slowest link of the
 * ring (intra when the group is inside a node), bandwidth factor f in
 * (0, 1] on the slowest link:
 *  all-reduce: aiwi_allreduce(algo, S, n, per_node) (collective.c);
 *  reduce-scatter = all-gather: half a ring all-reduce (each is one of its
 *   two phases, Patarasuk & Yuan 2009), (n-1) alpha + (n-1)/n S / B, or
 *   hierarchically half of each stage; NCCL runs them as rings;
 *  all-to-all: every rank sends S (n-1)/n, the off-node part (n - per_node)/n
 *   S through its NIC and the rest over the scale-up link at the same time:
 *   (n-1) alpha + max(S (per_node - 1)/n / B_intra, S (n - per_node)/n / B_inter);
 *  p2p: alpha + S / B of the link between neighbours. */
double aiwi_group_allreduce(int algo, double S, aiwi_tgroup g, const aiwi_link_spec *intra,
                            const aiwi_link_spec *inter, double f);
double aiwi_group_allgather(double S, aiwi_tgroup g, const aiwi_link_spec *intra,
                            const aiwi_link_spec *inter, double f);
double aiwi_group_alltoall(double S, aiwi_tgroup g, const aiwi_link_spec *intra,
                           const aiwi_link_spec *inter);
double aiwi_group_p2p(double S, aiwi_tgroup g, const aiwi_link_spec *intra,
                      const aiwi_link_spec *inter);

/* Pipeline bubble in units of one micro-batch's time on a stage (forward
 * plus backward): 1F1B (p-1); interleaved (p-1)/v (Narayanan et al. 2021,
 * section 2.2.2); zb-h1 (p-1)/3, the bubble (p-1)(T_F + T_B - T_W) of Qi
 * et al., "Zero Bubble Pipeline Parallelism", ICLR 2024, with the backward
 * split into input and weight gradients of one forward's time each
 * (T_F = T_B = T_W).  As a fraction of the step, 1F1B gives
 * (p-1)/(m+p-1). */
double aiwi_pp_bubble_slots(int schedule, double p, double v);

/* ------------------------------------------------------------------------ */
/* flops.c                                                                   */
/* ------------------------------------------------------------------------ */
typedef struct aiwi_tparams {
	double per_layer_dense; /* attention + dense MLP (or router) + norms */
	double per_layer_expert;/* all experts' MLP weights of one layer */
	double embedding;       /* input embedding (and output layer if untied) */
	double total;
	double active;          /* per token: dense + topk experts */
} aiwi_tparams;
void aiwi_tarch_params(const aiwi_tarch *A, aiwi_tparams *out);

/* Forward FLOPs per token (2 per multiply-add). */
typedef struct aiwi_tflops {
	double gemm_layer;   /* one layer's weight GEMMs: QKV, projection, MLP/experts, router */
	double attn_layer;   /* one layer's attention core, QK^T and AV: 4 s h */
	double logits;       /* output layer 2 h V */
	double model;        /* model FLOPs per token: 3 (L (gemm + attn) + logits) */
	double hardware;     /* model + recomputed forward work */
} aiwi_tflops;
void aiwi_tflops_per_token(const aiwi_tarch *A, int recompute, aiwi_tflops *out);

/* ------------------------------------------------------------------------ */
/* memory.c                                                                  */
/* ------------------------------------------------------------------------ */
/* Activation bytes of one layer for one micro-batch (Korthikanti et al.
 * 2022, Table 2, 16-bit activations), s tokens per rank of the sequence. */
double aiwi_act_layer_bytes(double s, double b, double h, double a, double t, bool sp,
                            int recompute, int attention);

/* The same for architecture A under layout L (s = seq_len / cp, the MLP's
 * 4h intermediates scaled to its real width, flash attention without the
 * s^2 term). */
double aiwi_act_layer_arch(const aiwi_tarch *A, const aiwi_tlayout *L, int recompute);

/* Layers' worth of micro-batch activations on the first stage (1F1B and
 * zb-h1: L/pp x min(m, pp); interleaved: L (1 + (pp-1)/(pp v)); pp = 1: L). */
double aiwi_act_in_flight(double layers, double pp, double v, double m, int schedule);

/* ZeRO's model states on one GPU: psi parameters sharded over nd ranks,
 * psi_e (experts) over ne; out = weights, gradients, optimizer bytes. */
void aiwi_zero_states(double psi, double psi_e, double nd, double ne, int zero, double wb,
                      double gb, double ob, double out[3]);

enum { AIWI_M_WEIGHTS, AIWI_M_GRADS, AIWI_M_OPTIM, AIWI_M_ACT, AIWI_M_BUFFERS, AIWI_M_N };
typedef struct aiwi_tmem {
	double term[AIWI_M_N];
	double total;
	int largest;     /* AIWI_M_* */
	double in_flight;/* layers' worth of micro-batch activations on that stage */
	int stage;       /* the stage counted: 0 (first), 1 (second) or pp - 1 */
	double stage_layers; /* its layers */
} aiwi_tmem;
/* Per-GPU memory of the fullest pipeline stage: the first one for an
 * even split; for an uneven split (first_layers, last_layers) the largest
 * of the first, the second (the fullest middle stage: 1F1B keeps
 * min(m, pp - i) micro-batches in flight on stage i) and the last.
 * weight_b, grad_b, optim_b: bytes per parameter of weights, gradients and optimizer states (ZeRO:
 * 2, 2, 12), sharded over dp from stage 1 (optimizer), 2 (+gradients), 3
 * (+weights); buffers: fixed bytes. */
void aiwi_tmem_per_gpu(const aiwi_tarch *A, const aiwi_tlayout *L, double weight_b,
                       double grad_b, double optim_b, double buffers, aiwi_tmem *out);
const char *aiwi_tmem_term_name(int term);

/* Per-GPU memory a data-parallel job (no architecture) needs at least:
 * its psi parameters' model states sharded over all of its n GPUs (the
 * least any layout holds: ZeRO stage 3 over every GPU, Rajbhandari et al.
 * 2020, (w + g + k) psi / N_d; tp x pp x dp shards no further), plus
 * buffers; activations, unknown without the architecture, are 0. */
void aiwi_tmem_data_parallel(double psi, double n, double weight_b, double grad_b,
                             double optim_b, double buffers, aiwi_tmem *out);

/* ------------------------------------------------------------------------ */
/* step.c                                                                    */
/* ------------------------------------------------------------------------ */
typedef struct aiwi_thw {
	double bf16_flops, fp8_flops;
	double bf16_eff, fp8_eff; /* achievable fraction of peak on the GEMMs */
	double mem_bw;
	aiwi_link_spec intra, inter;
	int dp_algo;              /* AIW_AR_* for the data-parallel all-reduce */
	double dp_link_factor;    /* (0, 1]: a degraded link on the DP rings */
	double grad_bytes;        /* bytes per gradient element reduced */
	double weight_bytes;      /* bytes per weight gathered (ZeRO-3, ZeRO-1/2 update) */
} aiwi_thw;

typedef struct aiwi_tstep {
	/* per micro-batch on the slowest stage */
	double slot_compute;  /* GEMMs, attention and element-wise kernels */
	double slot_comm;     /* TP + exposed CP + EP collectives */
	/* per step, on the critical path */
	double compute, tp, cp, ep; /* m slots' worth */
	double bubble;        /* (p-1)/v slots (or zb-h1's) */
	double pp_transfer;   /* p2p on the fill and drain path */
	double dp;            /* exposed data-parallel reduction */
	double step;          /* sum of the above */
	double model_flops;   /* per step, the whole job */
	double mfu;           /* model_flops / (gpus x peak x step), peak of `precision` */
	double dp_total;      /* the DP collective time before overlap */
} aiwi_tstep;
/* Achieved fraction of the HBM bandwidth of the element-wise kernels
 * (norms, activations, dropout, residuals, softmax) as step.c counts their
 * bytes, 4 or 5 passes over Korthikanti et al.'s stored activations: a
 * lower bound on what the kernels move, at a bandwidth that kernel gaps
 * and short kernels keep below the peak.  Fitted, with A100-80GB's
 * bf16_gemm_eff, on the two ends of Narayanan et al. SC'21 Table 1 (rows
 * 1.7B and 1T: two constants, two rows; the eight rows between are
 * predictions, tests/model/test_training_layout.c); other GPUs take it as
 * an estimate.  It carries the size dependence the paper names for that
 * table ("GPU utilization improves as the models get larger (larger
 * matrix multiplications)", section 5.1): this work grows as s b h per
 * layer, the GEMMs as s b h^2 / tp. */
#define AIWI_ELEM_BW_EFF 0.4655

/* Effective fraction of the scale-up link's line rate that NCCL's
 * collectives reach: "450GB/s is the line rate. With the protocol overhead
 * (~20%) NCCL can get an effective NVLink bandwidth of 370GB/s" (NCCL's
 * maintainers on H100, NVIDIA/nccl-tests tracker, 2024; users report
 * 365-370 GB/s of ring all-reduce bus bandwidth on 2 to 8 H100 in NCCL's
 * own tracker), 370 / 450.
 * step.c runs every collective inside a node at intra.bw times this; the
 * same protocol overhead is taken for every other scale-up link (an
 * estimate: NVLink3 and 5, PCIe). */
#define AIWI_NCCL_NVLINK_EFF (370.0 / 450.0)

/* Step time of layout L for A on hardware H.  Returns AIW_OK or
 * AIW_ERANGE with a message when a time is not finite. */
aiw_status aiwi_tstep_compute(const aiwi_tarch *A, const aiwi_tlayout *L, const aiwi_thw *H,
                              aiwi_tstep *out, char *err, size_t len);

/* ------------------------------------------------------------------------ */
/* training.c                                                                */
/* ------------------------------------------------------------------------ */
/* Expected step time (a lower bound: the multipliers' mean, not their
 * maximum) of a [training] component in the layout model, and its
 * compute part in *t_c; NAN when c has no `layers` or its parameters do
 * not give a step (its start reports why; no message is left on the sim). */
double aiwi_training_layout_step(aiwi_comp *c, double *t_c);

#endif /* AIW_TRAINING_LAYOUT_H */
