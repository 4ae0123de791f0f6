/*
 * training.c - a synchronous data-parallel training job ([training NAME]):
 * steps that wait for the slowest GPU, all-reduce, failures, checkpoints.
 *
 * One step (aiworkload(7) "Training"): every GPU computes for t_c x M_i, where
 *   t_c = 6 params tokens_per_step / (gpus peak_flops mfu)   (or step_compute)
 * and M_i is the per-GPU, per-step jitter multiplier; the step waits for
 * the slowest, then the exposed part of the gradient all-reduce:
 *   step = t_c max_i M_i + max(0, t_comm - overlap t_c).
 * The maximum over the gpus - slow_gpus iid GPUs is one draw of the maximum
 * (aiwi_dist_sample_max: Q(1 - U^(1/n)), O(1) in n); the slow_gpus
 * persistent stragglers are a second class whose maximum (times
 * slow_factor) is drawn the same way, and the step takes the larger: exact
 * for the max over classes, one event and O(1) work per step for any N.
 * t_comm is the collective model of collective.c (Thakur, Rabenseifner &
 * Gropp 2005); a degraded link slows the ring it sits on (slowest link).
 *
 * Failures: the job's GPUs fail as a Poisson process of rate gpus / MTBF,
 * running through every phase; a failure loses everything since the last
 * completed checkpoint (a checkpoint being written is lost too), then the
 * job restarts after restart_time (+ replace_time when no hot spare is
 * free; a used spare returns after repair_time).  Checkpoints are blocking
 * writes of checkpoint_time, taken at the first step boundary once
 * checkpoint_interval of training has passed since the last checkpoint or
 * restart; `auto` is Daly's optimum (Daly, FGCS 22, 2006):
 *   tau = sqrt(2 d M) [1 + sqrt(d / 2M) / 3 + (d / 2M) / 9] - d,  d < 2M
 *   tau = M otherwise,  M = MTBF / gpus, d = checkpoint_time.
 *
 * Power by phase, per GPU from the catalog: compute_w while computing,
 * idle_w while waiting at the barrier for the slowest GPU, during
 * checkpoint writes and restarts (a documented level: the GPU sits in a
 * spinning collective or an idle process), comm_w during the exposed
 * all-reduce; plus node_overhead per node and idle_w for each hot spare.
 * Within a step the power steps down as GPUs finish their compute: the
 * slowest GPU of each class ends at its sampled time and the others of the
 * class at t_c x min(E[M], its max) (their expected compute time; the
 * conditional mean E[M | M <= max] differs from E[M] by a term that
 * vanishes as the class grows, and is exact for const jitter).  The
 * resulting piecewise-constant power is integrated exactly, so
 * c->energy_j is the exact integral of the power the model defines, at any
 * time, including mid-step.
 *
 * Memory is O(1) in gpus and in steps: no per-GPU or per-step storage (step
 * time quantiles come from a fixed-size log-bucketed histogram, stats.h).
 */
#include "site/cost.h"
#include "hw/hw.h"
#include "training/layout.h"
#include "core/internal.h"
#include "core/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

enum {
	P_GPU,
	P_GPUS,
	P_GPN,
	P_MODEL_PARAMS,
	P_TOKENS,
	P_TOKENS_PER_GPU,
	P_MFU,
	P_STEP_COMPUTE,
	P_GRAD_BYTES,
	P_ALLREDUCE,
	P_OVERLAP,
	P_JITTER,
	P_SLOW_GPUS,
	P_SLOW_FACTOR,
	P_DEG_LINKS,
	P_DEG_FACTOR,
	P_MTBF,
	P_RESTART,
	P_REPLACE,
	P_REPAIR,
	P_SPARES,
	P_CKPT_INTERVAL,
	P_CKPT_TIME,
	P_CKPT_BYTES,
	P_STORAGE_BW,
	P_START,
	P_MAX_STEPS,
	P_MAX_TOKENS,
	P_COST,
	/* the layout model (used when `layers` is set) */
	P_TP = P_COST + AIW_COST_NPARAMS,
	P_PP,
	P_VSTAGES,
	P_CP,
	P_EP,
	P_DP,
	P_MICRO_BATCH,
	P_GLOBAL_BATCH,
	P_SCHEDULE,
	P_ZERO,
	P_RECOMPUTE,
	P_SP,
	P_TP_OVERLAP,
	P_PRECISION,
	P_GEMM_EFF,
	P_OPTIM_BYTES,
	P_MEM_BUFFERS,
	P_LAYERS,
	P_HIDDEN,
	P_FFN,
	P_HEADS,
	P_KV_HEADS,
	P_VOCAB,
	P_SEQ,
	P_MLP,
	P_ATTENTION,
	P_TIED,
	P_EXPERTS,
	P_TOPK,
	P_EXPERT_FFN,
	P_NPARAMS
};

#define RT AIW_PF_RUNTIME
#define MAX_GPUS 1e7

static const aiwi_param_def TRAINING_PARAMS[P_NPARAMS] = {
	[P_GPU] = {"gpu", "training.NAME.gpu", AIW_PT_STRING, "H100-SXM", "", 0, 0, NULL, 0,
	           "accelerator: a catalog name or the NAME of a [gpu NAME] section", 0},
	[P_GPUS] = {"gpus", "training.NAME.gpus", AIW_PT_INT, "1024", "1", 1, MAX_GPUS, NULL, 0,
	            "GPUs in the data-parallel job (one rank each)", 0},
	[P_GPN] = {"gpus_per_node", "training.NAME.gpus_per_node", AIW_PT_INT, "8", "1", 1, 1024,
	           NULL, 0, "GPUs per node (scale-up domain) for the all-reduce and node power", 0},
	[P_MODEL_PARAMS] = {"model_params", "training.NAME.model_params", AIW_PT_REAL, "70e9", "1",
	                    0, 1e15, NULL, AIW_PF_EXCL_MIN,
	                    "model parameters (6 x params x tokens FLOP per step)", 0},
	[P_TOKENS] = {"tokens_per_step", "training.NAME.tokens_per_step", AIW_PT_REAL, NULL, "1", 0,
	              1e12, NULL, AIW_PF_EXCL_MIN | AIW_PF_NONE,
	              "global batch in tokens; none: tokens_per_gpu x gpus when tokens_per_gpu is "
	              "set, else 4e6", 0},
	/* weak scaling: the global batch grows with the job, as real jobs do up
	 * to their critical batch size (Kaplan et al. 2020, "Scaling laws for
	 * neural language models", arXiv:2001.08361; McCandlish et al. 2018,
	 * "An empirical model of large-batch training", arXiv:1812.06162) */
	[P_TOKENS_PER_GPU] = {"tokens_per_gpu", "training.NAME.tokens_per_gpu", AIW_PT_REAL, NULL,
	                      "1", 0, 1e12, NULL, AIW_PF_EXCL_MIN | AIW_PF_NONE,
	                      "tokens per GPU per step; when set, tokens_per_step = tokens_per_gpu x "
	                      "gpus (weak scaling: the global batch grows with the job, as real "
	                      "jobs do up to their critical batch size; Kaplan et al. 2020, "
	                      "McCandlish et al. 2018)", 0},
	[P_MFU] = {"mfu", "training.NAME.mfu", AIW_PT_REAL, "0.45", "1", 0, 1, NULL, AIW_PF_EXCL_MIN,
	           "model FLOP utilisation of the compute phase (ignored with step_compute)", 0},
	[P_STEP_COMPUTE] = {"step_compute", "training.NAME.step_compute", AIW_PT_DURATION, NULL, "s",
	                    0, 1e7, NULL, AIW_PF_NONE | AIW_PF_EXCL_MIN,
	                    "per-GPU compute time of one step without jitter (none: from mfu)", 0},
	[P_GRAD_BYTES] = {"grad_bytes_per_param", "training.NAME.grad_bytes_per_param",
	                  AIW_PT_REAL, "2", "B", 0, 64, NULL, 0,
	                  "bytes all-reduced per parameter per step (2: bf16 gradients)", 0},
	[P_ALLREDUCE] = {"allreduce", "training.NAME.allreduce", AIW_PT_ENUM, "hierarchical", "", 0,
	                 2, AIW_AR_CHOICES, 0,
	                 "all-reduce algorithm: flat ring, binomial tree, or NVLink+NIC rings", 0},
	[P_OVERLAP] = {"overlap", "training.NAME.overlap", AIW_PT_REAL, "0.5", "1", 0, 1, NULL, RT,
	               "fraction of the compute time the all-reduce runs behind: exposed = "
	               "max(0, t_comm - overlap x t_compute)",
	               0},
	[P_JITTER] = {"jitter", "training.NAME.jitter", AIW_PT_DIST, "const(1)", "1", -INFINITY, 1e6,
	              NULL, RT,
	              "per-GPU per-step compute time multiplier, e.g. lognormal(0,0.03) (median "
	              "1); const(1): none; values below 0 count as 0",
	              AIW_PT_REAL},
	[P_SLOW_GPUS] = {"slow_gpus", "training.NAME.slow_gpus", AIW_PT_INT, "0", "1", 0, MAX_GPUS,
	                 NULL, RT, "persistently slow GPUs (at most gpus)", 0},
	[P_SLOW_FACTOR] = {"slow_factor", "training.NAME.slow_factor", AIW_PT_REAL, "1.5", "1", 1,
	                   1000, NULL, RT, "compute time multiplier of each slow GPU", 0},
	[P_DEG_LINKS] = {"degraded_links", "training.NAME.degraded_links", AIW_PT_INT, "0", "1", 0,
	                 MAX_GPUS, NULL, RT,
	                 "links at degraded_link_factor of their bandwidth (a ring runs at its "
	                 "slowest link: one or more act as one)",
	                 0},
	[P_DEG_FACTOR] = {"degraded_link_factor", "training.NAME.degraded_link_factor", AIW_PT_REAL,
	                  "0.5", "1", 0, 1, NULL, RT | AIW_PF_EXCL_MIN,
	                  "bandwidth of a degraded link relative to nominal", 0},
	[P_MTBF] = {"gpu_mtbf", "training.NAME.gpu_mtbf", AIW_PT_DURATION, NULL, "s", 0, 1e15, NULL,
	            AIW_PF_NONE | AIW_PF_EXCL_MIN,
	            "mean time between failures of one GPU (with its share of node, network and "
	            "software); none: no failures",
	            0},
	[P_RESTART] = {"restart_time", "training.NAME.restart_time", AIW_PT_DIST, "const(10min)",
	               "s", 0, 3.2e9, NULL, 0,
	               "downtime from a failure to the first step after it (detect, reschedule, "
	               "reload the checkpoint)",
	               AIW_PT_DURATION},
	[P_REPLACE] = {"replace_time", "training.NAME.replace_time", AIW_PT_DIST, "const(0)", "s", 0,
	               3.2e9, NULL, 0,
	               "extra downtime when a failure finds no free hot spare (waiting for a "
	               "replacement GPU)",
	               AIW_PT_DURATION},
	[P_REPAIR] = {"repair_time", "training.NAME.repair_time", AIW_PT_DIST, "const(72h)", "s", 0,
	              3.2e9, NULL, 0, "time until a failed GPU returns to the hot-spare pool",
	              AIW_PT_DURATION},
	[P_SPARES] = {"hot_spares", "training.NAME.hot_spares", AIW_PT_INT, "0", "1", 0, MAX_GPUS,
	              NULL, 0, "spare GPUs kept powered (idle) and paid, swapped in on a failure",
	              0},
	[P_CKPT_INTERVAL] = {"checkpoint_interval", "training.NAME.checkpoint_interval",
	                     AIW_PT_DURATION, "auto", "s", 0, 3.2e9, NULL,
	                     AIW_PF_AUTO | AIW_PF_NONE | RT,
	                     "training time between checkpoints; auto: Daly's optimum (none "
	                     "without failures); none: never",
	                     0},
	[P_CKPT_TIME] = {"checkpoint_time", "training.NAME.checkpoint_time", AIW_PT_DURATION, "auto",
	                 "s", 0, 1e7, NULL, AIW_PF_AUTO,
	                 "blocking write time of one checkpoint; auto: model_params x "
	                 "checkpoint_bytes_per_param / storage_bw",
	                 0},
	[P_CKPT_BYTES] = {"checkpoint_bytes_per_param", "training.NAME.checkpoint_bytes_per_param",
	                  AIW_PT_REAL, "14", "B", 0, 1000, NULL, AIW_PF_EXCL_MIN,
	                  "checkpoint bytes per parameter (14: bf16 weights, fp32 master, Adam "
	                  "moments)",
	                  0},
	[P_STORAGE_BW] = {"storage_bw", "training.NAME.storage_bw", AIW_PT_BANDWIDTH, "100GB/s",
	                  "B/s", 0, 1e15, NULL, AIW_PF_EXCL_MIN,
	                  "aggregate checkpoint write bandwidth of the storage system", 0},
	[P_START] = {"start", "training.NAME.start", AIW_PT_DURATION, "0", "s", 0, 3.2e9, NULL, 0,
	             "time the job starts (its GPUs are provisioned from then on)", 0},
	[P_MAX_STEPS] = {"max_steps", "training.NAME.max_steps", AIW_PT_INT, NULL, "1", 0, 1e15,
	                 NULL, AIW_PF_NONE | AIW_PF_EXCL_MIN | RT,
	                 "stop (and release the GPUs) after this many steps (none: run to the end)",
	                 0},
	[P_MAX_TOKENS] = {"max_tokens", "training.NAME.max_tokens", AIW_PT_REAL, NULL, "1", 0, 1e18,
	                  NULL, AIW_PF_NONE | AIW_PF_EXCL_MIN | RT,
	                  "stop after the step that reaches this many tokens (none: no limit)", 0},
	AIW_COST_PARAM_DEFS("training"),
#define TK(k) "training.NAME." k
#define NONE AIW_PF_NONE
	[P_TP] = {"tp", TK("tp"), AIW_PT_INT, "1", "1", 1, 65536, NULL, 0,
	          "tensor-parallel size (with layers set; placed inside a node first)", 0},
	[P_PP] = {"pp", TK("pp"), AIW_PT_INT, "1", "1", 1, 65536, NULL, 0,
	          "pipeline-parallel stages (must divide layers)", 0},
	[P_VSTAGES] = {"virtual_stages", TK("virtual_stages"), AIW_PT_INT, "1", "1", 1, 1024, NULL,
	               0, "model chunks per pipeline stage (schedule = interleaved)", 0},
	[P_CP] = {"cp", TK("cp"), AIW_PT_INT, "1", "1", 1, 65536, NULL, 0,
	          "context-parallel size (splits seq_len)", 0},
	[P_EP] = {"ep", TK("ep"), AIW_PT_INT, "1", "1", 1, 65536, NULL, 0,
	          "expert-parallel size (mixture of experts; divides dp)", 0},
	[P_DP] = {"dp", TK("dp"), AIW_PT_INT, NULL, "1", 1, MAX_GPUS, NULL, NONE,
	          "data-parallel size; none: gpus / (tp x pp x cp), else checked against it", 0},
	[P_MICRO_BATCH] = {"micro_batch", TK("micro_batch"), AIW_PT_INT, "1", "1", 1, 1e6, NULL, 0,
	                   "sequences per micro-batch", 0},
	[P_GLOBAL_BATCH] = {"global_batch", TK("global_batch"), AIW_PT_INT, NULL, "1", 1, 1e12,
	                    NULL, NONE,
	                    "sequences per step; none: tokens_per_step / seq_len", 0},
	[P_SCHEDULE] = {"schedule", TK("schedule"), AIW_PT_ENUM, "1f1b", "", 0, 2,
	                AIWI_SCHED_CHOICES, 0,
	                "pipeline schedule: bubble (pp-1), (pp-1)/virtual_stages, (pp-1)/3 "
	                "micro-batch times",
	                0},
	[P_ZERO] = {"zero_stage", TK("zero_stage"), AIW_PT_INT, "0", "1", 0, 3, NULL, 0,
	            "ZeRO stage: 1 shards optimizer states over dp, 2 also gradients, 3 also "
	            "weights (FSDP)",
	            0},
	[P_RECOMPUTE] = {"recompute", TK("recompute"), AIW_PT_ENUM, "none", "", 0, 2,
	                 AIWI_RC_CHOICES, 0, "activation recomputation (Korthikanti et al. 2022)",
	                 0},
	[P_SP] = {"sequence_parallel", TK("sequence_parallel"), AIW_PT_BOOL, "false", "", 0, 1,
	          NULL, 0, "sequence parallelism with TP (norm and dropout activations split)", 0},
	[P_TP_OVERLAP] = {"tp_comm_overlap", TK("tp_comm_overlap"), AIW_PT_BOOL, "false", "", 0, 1,
	                  NULL, 0,
	                  "overlap the TP collectives with the layer's GEMMs in 4 chunks "
	                  "(Transformer Engine userbuffers); false: exposed",
	                  0},
	[P_PRECISION] = {"precision", TK("precision"), AIW_PT_ENUM, "bf16", "", 0, 1,
	                 AIWI_PREC_CHOICES, 0,
	                 "GEMM precision: the catalog's peak and efficiency of bf16 or fp8", 0},
	[P_GEMM_EFF] = {"gemm_efficiency", TK("gemm_efficiency"), AIW_PT_REAL, NULL, "1", 0, 1,
	                NULL, NONE | AIW_PF_EXCL_MIN,
	                "achievable fraction of peak on the GEMMs; none: the catalog's "
	                "bf16_gemm_eff or fp8_gemm_eff",
	                0},
	[P_OPTIM_BYTES] = {"optimizer_bytes_per_param", TK("optimizer_bytes_per_param"),
	                   AIW_PT_REAL, "12", "B", 0, 1000, NULL, 0,
	                   "optimizer state bytes per parameter (12: fp32 master weights and "
	                   "Adam moments)",
	                   0},
	[P_MEM_BUFFERS] = {"memory_buffers", TK("memory_buffers"), AIW_PT_SIZE, "2GB", "B", 0,
	                   1e13, NULL, 0,
	                   "per-GPU memory besides model states and activations (CUDA context, "
	                   "NCCL buffers, fragmentation; estimate)",
	                   0},
	[P_LAYERS] = {"layers", TK("layers"), AIW_PT_INT, NULL, "1", 1, 1e6, NULL, NONE,
	              "transformer layers; set: the layout model (none: 6 N D at mfu)", 0},
	[P_HIDDEN] = {"hidden", TK("hidden"), AIW_PT_INT, NULL, "1", 1, 1e7, NULL, NONE,
	              "hidden size", 0},
	[P_FFN] = {"ffn_hidden", TK("ffn_hidden"), AIW_PT_INT, NULL, "1", 1, 1e8, NULL, NONE,
	           "MLP hidden size; none: 4 x hidden", 0},
	[P_HEADS] = {"heads", TK("heads"), AIW_PT_INT, NULL, "1", 1, 1e5, NULL, NONE,
	             "attention heads", 0},
	[P_KV_HEADS] = {"kv_heads", TK("kv_heads"), AIW_PT_INT, NULL, "1", 1, 1e5, NULL, NONE,
	                "key/value heads (grouped-query attention); none: heads", 0},
	[P_VOCAB] = {"vocab", TK("vocab"), AIW_PT_INT, NULL, "1", 1, 1e8, NULL, NONE,
	             "vocabulary size", 0},
	[P_SEQ] = {"seq_len", TK("seq_len"), AIW_PT_INT, NULL, "1", 1, 1e8, NULL, NONE,
	           "sequence length in tokens", 0},
	[P_MLP] = {"mlp", TK("mlp"), AIW_PT_ENUM, "gelu", "", 0, 1, AIWI_MLP_CHOICES, 0,
	           "MLP: gelu (2 matrices) or swiglu (3)", 0},
	[P_ATTENTION] = {"attention", TK("attention"), AIW_PT_ENUM, "flash", "", 0, 1,
	                 AIWI_ATTN_CHOICES, 0,
	                 "attention kernel: flash (no s^2 activations, causal half computed) or "
	                 "standard",
	                 0},
	[P_TIED] = {"tied_embeddings", TK("tied_embeddings"), AIW_PT_BOOL, "false", "", 0, 1, NULL,
	            0, "output layer shares the input embedding's weights", 0},
	[P_EXPERTS] = {"experts", TK("experts"), AIW_PT_INT, "1", "1", 1, 1e5, NULL, 0,
	               "experts per MoE layer (1: dense)", 0},
	[P_TOPK] = {"experts_per_token", TK("experts_per_token"), AIW_PT_INT, "1", "1", 1, 1e5,
	            NULL, 0, "experts each token is routed to", 0},
	[P_EXPERT_FFN] = {"expert_ffn_hidden", TK("expert_ffn_hidden"), AIW_PT_INT, NULL, "1", 1,
	                  1e8, NULL, NONE, "MLP hidden size of one expert; none: ffn_hidden", 0},
#undef NONE
#undef TK
};

/* ------------------------------------------------------------------------ */
/* configuration derived from the parameters                                 */
/* ------------------------------------------------------------------------ */
typedef struct tcfg {
	aiwi_gpu_spec g;
	aiwi_link_spec intra, inter;
	aiwi_pricing price;
	int algo;
	double N, gpn, nodes, spares, nodes_spare;
	double n_fast, n_slow, slow_factor;
	double mu;          /* E[M], clamped at 0 */
	double t_c;         /* nominal per-GPU compute time of a step (s) */
	double grad_bytes;  /* S, bytes all-reduced per step */
	double t_comm;      /* all-reduce time, degraded links included (s) */
	double e;           /* exposed communication (s) */
	double e0;          /* exposed communication without degraded links (s) */
	double ew_node;     /* inter-node bytes per node per all-reduce */
	double tau;         /* checkpoint interval (s); INFINITY: never */
	double w;           /* checkpoint write time (s) */
	double fail_rate;   /* cluster failures per second (0: none) */
	double steps_budget;/* INFINITY: none */
	double tokens_per_step;
	double overlap;
	double fixed_w;     /* node overhead + idle spares (W) */
	/* the layout model */
	bool layout;
	aiwi_tarch A;
	aiwi_tlayout L;
	aiwi_tstep S;       /* nominal step */
	aiwi_tmem mem;
	aiwi_thw H;         /* hardware of the step model, degraded links included */
	double bubble;      /* pipeline bubble at nominal speed (s), scaled by the jitter */
	double ar_ranks;    /* ranks of the gradient reduction (busbw) */
	double flops_per_token, peak;
	/* telemetry (aiworkload(7) "Utilisation"): hardware FLOPs of one step
	 * (recomputation included) and the peak FLOP/s they are held to */
	double hw_flops_step, tel_peak;
} tcfg;

static double daly_tau(double d, double M)
{
	if (!(d < 2 * M))
		return M;
	double r = d / (2 * M);
	return sqrt(2 * d * M) * (1 + sqrt(r) / 3 + r / 9) - d;
}

/* Inter-node bytes leaving one node in one all-reduce of S bytes over p
 * ranks, n = ceil(p / g) nodes: a flat ring crosses each node boundary on
 * one hop, which carries 2 (p-1)/p S; the hierarchical rings (one per rail)
 * and the tree's inter-node levels move 2 (n-1)/n S per node (exact for the
 * rings when g divides p; the binomial tree's node-crossing edges form a
 * tree over the nodes). */
static double ew_bytes_per_node(int algo, double S, double p, double g)
{
	double n = ceil(p / g);
	if (n <= 1)
		return 0;
	if (algo == AIW_AR_RING)
		return 2 * (p - 1) / p * S;
	return 2 * (n - 1) / n * S;
}

static double comm_time(const tcfg *k, double p, bool degraded, double deg_factor)
{
	return aiwi_allreduce(k->algo, k->grad_bytes, p, k->gpn, &k->intra, &k->inter,
	                     degraded ? deg_factor : 1.0);
}

/* Failures of the job's GPUs per second (0: none): gpus / gpu_mtbf. */
static double failure_rate(const aiwi_comp *c)
{
	return aiwi_pset(c, P_MTBF) ? aiwi_p(c, P_GPUS) / aiwi_p(c, P_MTBF) : 0;
}

/* The layout model's part of derive(): architecture and layout, memory
 * (refused up front when it does not fit), the nominal step. */
/* The global batch in tokens when no parallel layout gives it: tokens_per_step,
 * or tokens_per_gpu x gpus (weak scaling), or 4e6; both set is refused. */
#define DEFAULT_TOKENS_PER_STEP 4e6
static aiw_status step_tokens(aiwi_comp *c, double *out)
{
	bool ts = aiwi_pset(c, P_TOKENS), tg = aiwi_pset(c, P_TOKENS_PER_GPU);
	if (ts && tg)
		return aiwi_err(c->sim, AIW_EINVAL,
		                "%s.tokens_per_step = %g and %s.tokens_per_gpu = %g are both set: set "
		                "one (tokens_per_step = tokens_per_gpu x gpus)",
		                c->prefix, aiwi_p(c, P_TOKENS), c->prefix, aiwi_p(c, P_TOKENS_PER_GPU));
	*out = ts ? aiwi_p(c, P_TOKENS)
	          : tg ? aiwi_p(c, P_TOKENS_PER_GPU) * aiwi_p(c, P_GPUS) : DEFAULT_TOKENS_PER_STEP;
	if (!(*out <= 1e12))
		return aiwi_err(c->sim, AIW_ERANGE,
		                "%s.tokens_per_gpu = %g x gpus = %g gives %g tokens per step; the "
		                "range of tokens_per_step is (0, 1e+12]",
		                c->prefix, aiwi_p(c, P_TOKENS_PER_GPU), aiwi_p(c, P_GPUS), *out);
	return AIW_OK;
}

static aiw_status derive_layout(aiwi_comp *c, tcfg *k)
{
	aiw_sim *sim = c->sim;
	const char *p = c->prefix;
	static const size_t REQ[] = {P_HIDDEN, P_HEADS, P_VOCAB, P_SEQ};
	for (size_t i = 0; i < sizeof REQ / sizeof *REQ; i++)
		if (!aiwi_pset(c, REQ[i]))
			return aiwi_err(sim, AIW_ESCENARIO,
			                "%s.%s is not set: the layout model (layers = %g) needs layers, "
			                "hidden, heads, vocab and seq_len",
			                p, TRAINING_PARAMS[REQ[i]].key, aiwi_p(c, P_LAYERS));
	aiwi_tarch *A = &k->A;
	A->layers = aiwi_p(c, P_LAYERS);
	A->hidden = aiwi_p(c, P_HIDDEN);
	A->ffn = aiwi_pset(c, P_FFN) ? aiwi_p(c, P_FFN) : 4 * A->hidden;
	A->heads = aiwi_p(c, P_HEADS);
	A->kv_heads = aiwi_pset(c, P_KV_HEADS) ? aiwi_p(c, P_KV_HEADS) : A->heads;
	A->vocab = aiwi_p(c, P_VOCAB);
	A->seq = aiwi_p(c, P_SEQ);
	A->experts = aiwi_p(c, P_EXPERTS);
	A->topk = aiwi_p(c, P_TOPK);
	A->expert_ffn = aiwi_pset(c, P_EXPERT_FFN) ? aiwi_p(c, P_EXPERT_FFN) : A->ffn;
	A->mlp = (int)aiwi_p(c, P_MLP);
	A->attention = (int)aiwi_p(c, P_ATTENTION);
	A->tied = aiwi_p(c, P_TIED) != 0;
	aiwi_tlayout *L = &k->L;
	L->gpus = k->N;
	L->gpn = k->gpn;
	L->tp = aiwi_p(c, P_TP);
	L->pp = aiwi_p(c, P_PP);
	L->v = aiwi_p(c, P_VSTAGES);
	L->cp = aiwi_p(c, P_CP);
	L->ep = aiwi_p(c, P_EP);
	L->dp = aiwi_pset(c, P_DP) ? aiwi_p(c, P_DP) : 0;
	L->micro_batch = aiwi_p(c, P_MICRO_BATCH);
	if (aiwi_pset(c, P_GLOBAL_BATCH)) {
		L->global_batch = aiwi_p(c, P_GLOBAL_BATCH);
	} else {
		double tokens;
		aiw_status tst = step_tokens(c, &tokens);
		if (tst != AIW_OK)
			return tst;
		L->global_batch = tokens / A->seq;
		if (floor(L->global_batch) != L->global_batch)
			return aiwi_err(sim, AIW_ERANGE,
			                "%s.tokens_per_step = %g is not a multiple of seq_len = %g: set "
			                "global_batch (sequences per step)",
			                p, tokens, A->seq);
	}
	L->schedule = (int)aiwi_p(c, P_SCHEDULE);
	L->zero = (int)aiwi_p(c, P_ZERO);
	L->recompute = (int)aiwi_p(c, P_RECOMPUTE);
	L->sp = aiwi_p(c, P_SP) != 0;
	L->tp_overlap = aiwi_p(c, P_TP_OVERLAP) != 0;
	L->precision = (int)aiwi_p(c, P_PRECISION);
	char e[400];
	if (aiwi_tlayout_check(L, A, e, sizeof e) != AIW_OK)
		return aiwi_err(sim, AIW_ERANGE, "%s: %s", p, e);
	k->tokens_per_step = L->global_batch * A->seq;
	/* memory, refused up front */
	double gb = aiwi_p(c, P_GRAD_BYTES), ob = aiwi_p(c, P_OPTIM_BYTES);
	aiwi_tmem_per_gpu(A, L, 2, gb, ob, aiwi_p(c, P_MEM_BUFFERS), &k->mem);
	const aiwi_tmem *M = &k->mem;
	if (M->total > k->g.mem_bytes) {
		static const char *const HINT[AIWI_M_N] = {
			"raise tp or pp, or zero_stage = 3",
			"zero_stage = 2, or raise tp or pp",
			"zero_stage = 1 (or more), or raise tp or pp",
			"recompute = selective or full, sequence_parallel = true, a smaller "
			"micro_batch, or raise tp, pp or cp",
			"lower memory_buffers",
		};
		const char *hint = HINT[M->largest];
		if (M->largest == AIWI_M_OPTIM && L->zero >= 1)
			hint = "raise dp, tp or pp";
		if (M->largest == AIWI_M_GRADS && L->zero >= 2)
			hint = "raise dp, tp or pp";
		return aiwi_err(sim, AIW_ERANGE,
		                "%s: the layout needs %.1f GB per GPU but %s has %.1f GB (weights %.1f, "
		                "gradients %.1f, optimizer states %.1f, activations %.1f, buffers "
		                "%.1f GB); the largest term is %s (%.1f GB): try %s",
		                p, M->total / 1e9, k->g.name, k->g.mem_bytes / 1e9,
		                M->term[AIWI_M_WEIGHTS] / 1e9, M->term[AIWI_M_GRADS] / 1e9,
		                M->term[AIWI_M_OPTIM] / 1e9, M->term[AIWI_M_ACT] / 1e9,
		                M->term[AIWI_M_BUFFERS] / 1e9, aiwi_tmem_term_name(M->largest),
		                M->term[M->largest] / 1e9, hint);
	}
	/* hardware */
	aiwi_thw H = {.bf16_flops = k->g.bf16_flops, .fp8_flops = k->g.fp8_flops,
	              .bf16_eff = k->g.bf16_gemm_eff, .fp8_eff = k->g.fp8_gemm_eff,
	              .mem_bw = k->g.mem_bw, .intra = k->intra, .inter = k->inter,
	              .dp_algo = k->algo, .dp_link_factor = 1, .grad_bytes = gb,
	              .weight_bytes = 2};
	if (aiwi_pset(c, P_GEMM_EFF)) {
		if (L->precision == AIWI_PREC_FP8)
			H.fp8_eff = aiwi_p(c, P_GEMM_EFF);
		else
			H.bf16_eff = aiwi_p(c, P_GEMM_EFF);
	}
	if (L->precision == AIWI_PREC_FP8 && !(k->g.fp8_flops > 0))
		return aiwi_err(sim, AIW_ERANGE,
		                "%s.precision = fp8: %s.gpu = %s has no fp8_flops (use bf16)", p, p,
		                k->g.name);
	aiwi_tstep S0;
	if (aiwi_tstep_compute(A, L, &H, &S0, e, sizeof e) != AIW_OK)
		return aiwi_err(sim, AIW_ERANGE, "%s: %s", p, e);
	if (aiwi_p(c, P_DEG_LINKS) > 0)
		H.dp_link_factor = aiwi_p(c, P_DEG_FACTOR);
	if (aiwi_tstep_compute(A, L, &H, &k->S, e, sizeof e) != AIW_OK)
		return aiwi_err(sim, AIW_ERANGE, "%s: %s", p, e);
	k->H = H;
	const aiwi_tstep *S = &k->S;
	k->layout = true;
	k->t_c = S->compute;
	k->bubble = S->bubble;
	k->e = S->tp + S->cp + S->ep + S->pp_transfer + S->dp;
	k->e0 = S0.tp + S0.cp + S0.ep + S0.pp_transfer + S0.dp;
	k->t_comm = S->dp_total;
	aiwi_tparams P;
	aiwi_tarch_params(A, &P);
	double lps = A->layers / L->pp;
	double emb = A->vocab * A->hidden * (!A->tied && L->pp == 1 ? 2 : 1);
	k->grad_bytes = gb * ((lps * P.per_layer_dense + emb) / L->tp +
	                      lps * P.per_layer_expert / (L->tp * L->ep));
	k->ar_ranks = L->dp;
	/* east-west: the DP reduction's inter-node bytes, every GPU of a node */
	aiwi_tgroup gdp = aiwi_tlayout_group(L, AIWI_G_DP);
	double nodes_dp = gdp.n / gdp.per_node;
	k->ew_node = nodes_dp > 1 ? k->gpn * 2 * (nodes_dp - 1) / nodes_dp * k->grad_bytes /
	                                    gdp.per_node
	                          : 0;
	aiwi_tflops F;
	aiwi_tflops_per_token(A, L->recompute, &F);
	k->flops_per_token = F.model;
	k->peak = L->precision == AIWI_PREC_FP8 ? k->g.fp8_flops : k->g.bf16_flops;
	k->hw_flops_step = F.hardware * k->tokens_per_step;
	k->tel_peak = k->peak;
	return AIW_OK;
}

/* Checkpoint write time of the layout model: the whole state (params x
 * checkpoint_bytes_per_param) at storage_bw, or each writer's shard at its
 * NIC when that is slower; writers: every GPU under ZeRO >= 1, one
 * data-parallel replica (tp x pp x cp GPUs) otherwise. */
static double layout_ckpt_time(aiwi_comp *c, const tcfg *k)
{
	aiwi_tparams P;
	aiwi_tarch_params(&k->A, &P);
	double total = P.total * aiwi_p(c, P_CKPT_BYTES);
	double writers = k->L.zero >= 1 ? k->N : k->L.tp * k->L.pp * k->L.cp;
	return fmax(total / aiwi_p(c, P_STORAGE_BW), total / writers / k->g.nic_bw);
}

/* Read and cross-check every parameter of c into *k.  Messages name the
 * parameter, its value and the allowed range. */
static aiw_status derive(aiwi_comp *c, tcfg *k)
{
	aiw_sim *sim = c->sim;
	memset(k, 0, sizeof *k);
	const aiwi_gpu_spec *gs = NULL;
	aiw_status st = aiwi_hw_gpu_get(sim, aiwi_ps(c, P_GPU), &gs);
	if (st != AIW_OK) {
		char msg[700];
		snprintf(msg, sizeof msg, "%s", aiw_sim_errmsg(sim));
		return aiwi_err(sim, st, "%s.gpu = %s: %s", c->prefix, aiwi_ps(c, P_GPU), msg);
	}
	k->g = *gs;
	aiwi_hw_gpu_links(&k->g, &k->intra, &k->inter);
	if ((st = aiwi_cost_pricing(c, P_COST, &k->g, &k->price)) != AIW_OK)
		return st;
	k->algo = (int)aiwi_p(c, P_ALLREDUCE);
	k->N = aiwi_p(c, P_GPUS);
	k->gpn = aiwi_p(c, P_GPN);
	k->nodes = ceil(k->N / k->gpn);
	k->spares = aiwi_p(c, P_SPARES);
	k->nodes_spare = ceil(k->spares / k->gpn);
	k->n_slow = aiwi_p(c, P_SLOW_GPUS);
	if (k->n_slow > k->N)
		return aiwi_err(sim, AIW_ERANGE,
		                "%s.slow_gpus = %g exceeds %s.gpus = %g (allowed 0 to gpus)", c->prefix,
		                k->n_slow, c->prefix, k->N);
	k->n_fast = k->N - k->n_slow;
	k->slow_factor = aiwi_p(c, P_SLOW_FACTOR);
	const aiwi_dist *jit = aiwi_pd(c, P_JITTER);
	double mu = aiwi_dist_mean(jit);
	if (!(mu > 0))
		return aiwi_err(sim, AIW_ERANGE,
		                "%s.jitter = %s has mean %g: a compute time multiplier needs a mean > 0 "
		                "(e.g. lognormal(0,0.03))",
		                c->prefix, aiwi_ps(c, P_JITTER), mu);
	k->mu = mu;
	if ((st = step_tokens(c, &k->tokens_per_step)) != AIW_OK)
		return st;
	double params = aiwi_p(c, P_MODEL_PARAMS);
	k->ar_ranks = k->N;
	if (!aiwi_pset(c, P_LAYERS)) {
		static const size_t LAY[] = {P_TP, P_PP, P_VSTAGES, P_CP, P_EP};
		for (size_t i = 0; i < sizeof LAY / sizeof *LAY; i++)
			if (aiwi_p(c, LAY[i]) != 1)
				return aiwi_err(sim, AIW_ESCENARIO,
				                "%s.%s = %g needs the architecture: set layers, hidden, "
				                "heads, vocab and seq_len",
				                c->prefix, TRAINING_PARAMS[LAY[i]].key, aiwi_p(c, LAY[i]));
	}
	if (aiwi_pset(c, P_LAYERS)) {
		if ((st = derive_layout(c, k)) != AIW_OK)
			return st;
		k->overlap = aiwi_p(c, P_OVERLAP);
	} else if (aiwi_pset(c, P_STEP_COMPUTE)) {
		k->t_c = aiwi_p(c, P_STEP_COMPUTE);
	} else {
		if (!(k->g.bf16_flops > 0))
			return aiwi_err(sim, AIW_ERANGE,
			                "%s.gpu = %s has no bf16_flops: set %s.step_compute instead of mfu",
			                c->prefix, k->g.name, c->prefix);
		k->t_c = 6 * params * k->tokens_per_step / (k->N * k->g.bf16_flops * aiwi_p(c, P_MFU));
	}
	if (!(k->t_c > 0 && isfinite(k->t_c)))
		return aiwi_err(sim, AIW_ERANGE, "%s: step compute time %g s is not a positive finite time",
		                c->prefix, k->t_c);
	if (!k->layout) {
		k->grad_bytes = params * aiwi_p(c, P_GRAD_BYTES);
		k->overlap = aiwi_p(c, P_OVERLAP);
		bool degraded = aiwi_p(c, P_DEG_LINKS) > 0;
		k->t_comm = comm_time(k, k->N, degraded, aiwi_p(c, P_DEG_FACTOR));
		double t_comm0 = comm_time(k, k->N, false, 1);
		k->e = fmax(0, k->t_comm - k->overlap * k->t_c);
		k->e0 = fmax(0, t_comm0 - k->overlap * k->t_c);
		k->ew_node = ew_bytes_per_node(k->algo, k->grad_bytes, k->N, k->gpn);
	}
	/* checkpoints */
	if (aiwi_pset(c, P_CKPT_TIME) && !c->v[P_CKPT_TIME].is_auto)
		k->w = aiwi_p(c, P_CKPT_TIME);
	else if (k->layout)
		k->w = layout_ckpt_time(c, k);
	else
		k->w = params * aiwi_p(c, P_CKPT_BYTES) / aiwi_p(c, P_STORAGE_BW);
	if (!isfinite(k->w) || k->w > 1e7)
		return aiwi_err(sim, AIW_ERANGE,
		                "%s: checkpoint_time = %g s (model_params x checkpoint_bytes_per_param "
		                "/ storage_bw) is above 1e7 s: raise storage_bw",
		                c->prefix, k->w);
	k->fail_rate = failure_rate(c);
	if (!aiwi_pset(c, P_CKPT_INTERVAL))
		k->tau = INFINITY;
	else if (c->v[P_CKPT_INTERVAL].is_auto)
		k->tau = k->fail_rate > 0 ? daly_tau(k->w, 1 / k->fail_rate) : INFINITY;
	else
		k->tau = aiwi_p(c, P_CKPT_INTERVAL);
	k->steps_budget = INFINITY;
	if (aiwi_pset(c, P_MAX_STEPS))
		k->steps_budget = aiwi_p(c, P_MAX_STEPS);
	if (aiwi_pset(c, P_MAX_TOKENS))
		k->steps_budget = fmin(k->steps_budget, ceil(aiwi_p(c, P_MAX_TOKENS) / k->tokens_per_step));
	k->fixed_w = (k->nodes + k->nodes_spare) * k->price.node_overhead_w + k->spares * k->g.idle_w;
	if (!k->layout) { /* 6 N D: forward and backward, no recomputation */
		k->hw_flops_step = 6 * params * k->tokens_per_step;
		k->tel_peak = k->g.bf16_flops > 0 ? k->g.bf16_flops : 0;
	}
	return AIW_OK;
}

/* ------------------------------------------------------------------------ */
/* phases: piecewise-constant power and busy GPUs, integrated exactly        */
/* ------------------------------------------------------------------------ */
enum { S_WAIT, S_STEP, S_CKPT, S_RESTART, S_DONE };

#define MAX_PIECES 8
typedef struct phase {
	double t0, dur;
	int n;
	double end[MAX_PIECES];   /* end of piece i, relative to t0 */
	double power[MAX_PIECES]; /* GPU power (W) */
	double busy[MAX_PIECES];  /* GPUs computing */
	double energy, busy_s;    /* integrals over the whole phase */
	double bytes, comm_len;   /* east-west bytes per node, over the last comm_len */
	double kb_gpus;           /* GPUs running a kernel all the phase (N in a step) */
	double flops;             /* hardware FLOPs of the phase, done as busy_s is */
	/* step only */
	double t_max;             /* compute of the slowest GPU */
	double e;                 /* exposed communication */
	double bubble;            /* pipeline bubble (layout model), after t_max */
	double base;              /* step without jitter, slow GPUs or degraded links */
} phase;

typedef struct training {
	tcfg k;
	gsl_rng *frng; /* failures, restarts, repairs: a stream of their own */
	int state;
	phase ph;
	uint64_t ev_phase, ev_fail;
	double t_start, t_done;
	/* integrals of finished phases */
	double e_done, busy_done, bytes_done, kbusy_done, flops_done;
	/* persisted progress: committed at checkpoints, pending since */
	double c_steps, c_compute, c_wait, c_comm, c_bubble;
	double p_steps, p_compute, p_wait, p_comm, p_bubble;
	double last_commit, next_ckpt;
	/* totals */
	double steps_exec, steps_lost, step_sum, base_sum;
	double ckpt_s, lost_s, restart_s;
	double failures, checkpoints;
	double spares_free;
	aiwi_hist hist;
	/* curves */
	int id_step, id_tokens, id_ew;
	double tick_steps, tick_step_sum, prev_e, prev_bytes;
	double racks, rack_peak;
} training;

static void piece_add(phase *ph, double end, double power, double busy)
{
	ph->end[ph->n] = end;
	ph->power[ph->n] = power;
	ph->busy[ph->n] = busy;
	ph->n++;
}

/* integrals of ph over [t0, t0 + x] */
static void phase_partial(const phase *ph, double x, double *e, double *b, double *by)
{
	*e = *b = *by = 0;
	if (!(x > 0))
		return;
	if (x >= ph->dur) {
		*e = ph->energy;
		*b = ph->busy_s;
		*by = ph->bytes;
		return;
	}
	double t0 = 0;
	for (int i = 0; i < ph->n && t0 < x; i++) {
		double t1 = fmin(ph->end[i], x);
		if (t1 > t0) {
			*e += ph->power[i] * (t1 - t0);
			*b += ph->busy[i] * (t1 - t0);
		}
		t0 = ph->end[i];
	}
	if (ph->bytes > 0 && ph->comm_len > 0) {
		double f = (x - (ph->dur - ph->comm_len)) / ph->comm_len;
		*by = ph->bytes * fmin(1, fmax(0, f));
	}
}

/* telemetry integrals of ph over [t0, t0 + x]: kernel-busy GPU-seconds and
 * hardware FLOPs (spread over the phase as its computing GPU-seconds) */
static void phase_telemetry(const phase *ph, double x, double *kb, double *fl)
{
	double e, b, by;
	phase_partial(ph, x, &e, &b, &by);
	*kb = ph->kb_gpus * fmin(fmax(x, 0), ph->dur);
	*fl = ph->busy_s > 0 ? ph->flops * fmin(1, b / ph->busy_s) : 0;
}

static void phase_close(phase *ph)
{
	ph->dur = ph->n ? ph->end[ph->n - 1] : 0;
	ph->energy = ph->busy_s = 0;
	double t0 = 0;
	for (int i = 0; i < ph->n; i++) {
		ph->energy += ph->power[i] * (ph->end[i] - t0);
		ph->busy_s += ph->busy[i] * (ph->end[i] - t0);
		t0 = ph->end[i];
	}
}

static void ev_step_end(aiw_sim *sim, void *ctx, uint64_t arg);
static void ev_ckpt_end(aiw_sim *sim, void *ctx, uint64_t arg);
static void ev_restart_end(aiw_sim *sim, void *ctx, uint64_t arg);
static void ev_failure(aiw_sim *sim, void *ctx, uint64_t arg);

static inline double clamp0(double x)
{
	return x > 0 ? x : 0;
}

/* Draw one step and schedule its end. */
static void begin_step(aiwi_comp *c, training *T, double t)
{
	const tcfg *k = &T->k;
	const aiwi_dist *jit = aiwi_pd(c, P_JITTER);
	double N = k->N, tc = k->t_c, mu = k->mu;
	/* class maxima of the multiplier (slow class includes slow_factor) */
	double mf = -INFINITY, ms = -INFINITY;
	if (k->n_fast > 0)
		mf = clamp0(aiwi_dist_sample_max(jit, c->rng, k->n_fast));
	if (k->n_slow > 0)
		ms = k->slow_factor * clamp0(aiwi_dist_sample_max(jit, c->rng, k->n_slow));
	double m = fmax(fmax(mf, ms), 1e-6); /* a step takes at least 1e-6 t_c */
	/* compute end of each group: the class maxima and the rest of each class
	 * at its expected compute time (capped by its class maximum) */
	double gt[4], gn[4];
	int ng = 0;
	if (k->n_fast >= 2)
		gt[ng] = tc * fmin(mu, mf), gn[ng++] = k->n_fast - 1;
	if (k->n_fast >= 1)
		gt[ng] = tc * mf, gn[ng++] = 1;
	if (k->n_slow >= 2)
		gt[ng] = tc * fmin(k->slow_factor * mu, ms), gn[ng++] = k->n_slow - 1;
	if (k->n_slow >= 1)
		gt[ng] = tc * ms, gn[ng++] = 1;
	for (int i = 1; i < ng; i++) /* insertion sort by end time */
		for (int j = i; j > 0 && gt[j] < gt[j - 1]; j--) {
			double a = gt[j], b = gn[j];
			gt[j] = gt[j - 1], gn[j] = gn[j - 1];
			gt[j - 1] = a, gn[j - 1] = b;
		}
	phase *ph = &T->ph;
	ph->t0 = t;
	ph->n = 0;
	double idle = N * k->g.idle_w, dw = k->g.compute_w - k->g.idle_w;
	double running = N, tmax = tc * m;
	for (int i = 0; i < ng; i++) {
		if (gt[i] > 0)
			piece_add(ph, fmin(gt[i], tmax), idle + dw * running, running);
		running -= gn[i];
	}
	if (ph->n == 0 || ph->end[ph->n - 1] < tmax) /* the 1e-6 floor */
		piece_add(ph, tmax, idle, 0);
	/* the pipeline bubble runs at the slowest stage's pace (the jitter's
	 * maximum), every GPU waiting in it at idle power */
	double bub = k->bubble > 0 ? k->bubble * m : 0, tb = tmax + bub;
	if (bub > 0)
		piece_add(ph, tb, idle, 0);
	if (k->e > 0)
		piece_add(ph, tb + k->e, N * k->g.comm_w, 0);
	phase_close(ph);
	ph->t_max = tmax;
	ph->e = k->e;
	ph->bubble = bub;
	ph->base = k->bubble > 0 ? tc + k->bubble + k->e0 : tc + k->e0;
	ph->bytes = k->ew_node;
	ph->comm_len = fmin(k->t_comm, ph->dur);
	/* kernel-busy: a GPU that finished its compute waits for the slowest
	 * inside the gradient reduction's NCCL kernel, and a pipeline stage
	 * in the bubble inside its NCCL receive, both spinning on the GPU,
	 * which nvidia-smi counts as busy: the whole step, on every GPU */
	ph->kb_gpus = N;
	ph->flops = k->hw_flops_step;
	T->state = S_STEP;
	T->ev_phase = aiwi_at(c->sim, t + ph->dur, ev_step_end, c, 0);
}

static void begin_flat(aiwi_comp *c, training *T, double t, double dur, int state, aiwi_evfn fn)
{
	phase *ph = &T->ph;
	ph->t0 = t;
	ph->n = 0;
	piece_add(ph, dur, T->k.N * T->k.g.idle_w, 0);
	phase_close(ph);
	ph->bytes = ph->comm_len = 0;
	ph->kb_gpus = ph->flops = 0; /* checkpoint writes, restarts: no kernel */
	T->state = state;
	T->ev_phase = aiwi_at(c->sim, t + dur, fn, c, 0);
}

/* Add the current phase's integrals up to t to the finished totals. */
static void close_phase_at(training *T, double t)
{
	double e, b, by;
	phase_partial(&T->ph, t - T->ph.t0, &e, &b, &by);
	T->e_done += e;
	T->busy_done += b;
	T->bytes_done += by;
	double kb, fl;
	phase_telemetry(&T->ph, t - T->ph.t0, &kb, &fl);
	T->kbusy_done += kb;
	T->flops_done += fl;
}

static void finish_job(aiwi_comp *c, training *T, double t)
{
	T->state = S_DONE;
	T->t_done = t;
	if (T->ev_fail)
		aiwi_cancel(c->sim, T->ev_fail);
	T->ev_fail = T->ev_phase = 0;
	c->gpus = 0;
}

static void ev_step_end(aiw_sim *sim, void *ctx, uint64_t arg)
{
	aiwi_comp *c = ctx;
	training *T = c->state;
	phase *ph = &T->ph;
	double t = aiwi_now(sim);
	T->ev_phase = 0;
	T->e_done += ph->energy;
	T->busy_done += ph->busy_s;
	T->bytes_done += ph->bytes;
	T->kbusy_done += ph->kb_gpus * ph->dur;
	T->flops_done += ph->flops;
	T->steps_exec++;
	T->step_sum += ph->dur;
	T->base_sum += ph->base;
	T->tick_steps++;
	T->tick_step_sum += ph->dur;
	aiwi_hist_add(&T->hist, ph->dur);
	double tc = T->k.t_c;
	T->p_steps++;
	T->p_compute += fmin(ph->t_max, tc);
	T->p_wait += fmax(0, ph->t_max - tc);
	T->p_comm += ph->e;
	T->p_bubble += ph->bubble;
	if (T->c_steps + T->p_steps >= T->k.steps_budget)
		finish_job(c, T, t);
	else if (t >= T->next_ckpt)
		begin_flat(c, T, t, T->k.w, S_CKPT, ev_ckpt_end);
	else
		begin_step(c, T, t);
}

static void ev_ckpt_end(aiw_sim *sim, void *ctx, uint64_t arg)
{
	aiwi_comp *c = ctx;
	training *T = c->state;
	double t = aiwi_now(sim);
	T->ev_phase = 0;
	T->e_done += T->ph.energy;
	T->checkpoints++;
	T->ckpt_s += T->ph.dur;
	T->c_steps += T->p_steps;
	T->c_compute += T->p_compute;
	T->c_wait += T->p_wait;
	T->c_comm += T->p_comm;
	T->c_bubble += T->p_bubble;
	T->p_steps = T->p_compute = T->p_wait = T->p_comm = T->p_bubble = 0;
	T->last_commit = t;
	T->next_ckpt = t + T->k.tau;
	begin_step(c, T, t);
}

static void ev_restart_end(aiw_sim *sim, void *ctx, uint64_t arg)
{
	aiwi_comp *c = ctx;
	training *T = c->state;
	double t = aiwi_now(sim);
	T->ev_phase = 0;
	T->e_done += T->ph.energy;
	T->restart_s += T->ph.dur;
	T->last_commit = t;
	T->next_ckpt = t + T->k.tau;
	begin_step(c, T, t);
}

static void ev_repair(aiw_sim *sim, void *ctx, uint64_t arg)
{
	aiwi_comp *c = ctx;
	training *T = c->state;
	T->spares_free++;
}

static void schedule_failure(aiwi_comp *c, training *T, double t)
{
	T->ev_fail = 0;
	if (T->k.fail_rate > 0)
		T->ev_fail = aiwi_at(c->sim, t + gsl_ran_exponential(T->frng, 1 / T->k.fail_rate),
		                     ev_failure, c, 0);
}

static void ev_failure(aiw_sim *sim, void *ctx, uint64_t arg)
{
	aiwi_comp *c = ctx;
	training *T = c->state;
	double t = aiwi_now(sim);
	T->ev_fail = 0;
	if (T->state == S_DONE || T->state == S_WAIT)
		return;
	T->failures++;
	if (T->ev_phase)
		aiwi_cancel(sim, T->ev_phase);
	T->ev_phase = 0;
	close_phase_at(T, t);
	if (T->state == S_RESTART) {
		T->restart_s += t - T->ph.t0;
	} else {
		/* everything since the last completed checkpoint is lost */
		T->lost_s += t - T->last_commit;
		T->steps_lost += T->p_steps;
		T->p_steps = T->p_compute = T->p_wait = T->p_comm = T->p_bubble = 0;
	}
	double down = clamp0(aiwi_dist_sample(aiwi_pd(c, P_RESTART), T->frng));
	if (T->spares_free >= 1) {
		T->spares_free--;
		double rep = clamp0(aiwi_dist_sample(aiwi_pd(c, P_REPAIR), T->frng));
		aiwi_at(sim, t + rep, ev_repair, c, 0);
	} else {
		down += clamp0(aiwi_dist_sample(aiwi_pd(c, P_REPLACE), T->frng));
	}
	begin_flat(c, T, t, down, S_RESTART, ev_restart_end);
	schedule_failure(c, T, t);
}

static void ev_start(aiw_sim *sim, void *ctx, uint64_t arg)
{
	aiwi_comp *c = ctx;
	training *T = c->state;
	double t = aiwi_now(sim);
	c->gpus = T->k.N + T->k.spares;
	T->last_commit = t;
	T->next_ckpt = t + T->k.tau;
	if (T->k.steps_budget < 1) {
		finish_job(c, T, t);
		return;
	}
	begin_step(c, T, t);
	schedule_failure(c, T, t);
}

/* ------------------------------------------------------------------------ */
/* the kind's hooks                                                          */
/* ------------------------------------------------------------------------ */
static aiw_status training_start(aiwi_comp *c)
{
	aiw_sim *sim = c->sim;
	training *T = calloc(1, sizeof *T);
	if (!T)
		return aiwi_err(sim, AIW_ENOMEM, "out of memory");
	c->state = T;
	aiw_status st = derive(c, &T->k);
	if (st != AIW_OK)
		return st;
	char e[256];
	if ((st = aiwi_hist_init(&T->hist, AIW_HIST_MIN_S, AIW_HIST_MAX_S, 1e-3, e, sizeof e)) !=
	    AIW_OK)
		return aiwi_err(sim, st, "%s: %s", c->prefix, e);
	/* failures get their own stream, seeded from this component's, so the
	 * failure times do not change with the jitter model */
	T->frng = aiwi_rng_alloc();
	if (!T->frng)
		return aiwi_err(sim, AIW_ENOMEM, "out of memory");
	uint64_t s = gsl_rng_get(c->rng);
	gsl_rng_set(T->frng, (unsigned long)aiwi_stream_seed(s, "failures"));
	char n[300];
	snprintf(n, sizeof n, "%s.step_time_s", c->prefix);
	T->id_step = aiwi_rec_add(sim, n, "s");
	snprintf(n, sizeof n, "%s.tokens", c->prefix);
	T->id_tokens = aiwi_rec_add(sim, n, "1");
	snprintf(n, sizeof n, "%s.east_west_bytes_per_s_per_node", c->prefix);
	T->id_ew = aiwi_rec_add(sim, n, "B/s");
	if (T->id_step < 0 || T->id_tokens < 0 || T->id_ew < 0)
		return T->id_step < 0 ? T->id_step : T->id_tokens < 0 ? T->id_tokens : T->id_ew;
	T->racks = ceil((T->k.N + T->k.spares) / aiwi_site_gpus_per_rack(sim));
	T->spares_free = T->k.spares;
	T->state = S_WAIT;
	T->t_start = aiwi_p(c, P_START);
	T->t_done = INFINITY;
	if (!aiwi_at(sim, T->t_start, ev_start, c, 0))
		return AIW_ENOMEM;
	return AIW_OK;
}

/* Seconds the job has been provisioned up to t. */
static double active_s(const training *T, double t)
{
	return clamp0(fmin(t, T->t_done) - T->t_start);
}

static void account(aiwi_comp *c, double t)
{
	training *T = c->state;
	double e = 0, b = 0, by = 0;
	if (T->state == S_STEP || T->state == S_CKPT || T->state == S_RESTART)
		phase_partial(&T->ph, t - T->ph.t0, &e, &b, &by);
	double act = active_s(T, t);
	c->energy_j = T->e_done + e + T->k.fixed_w * act;
	c->busy_gpu_s = T->busy_done + b;
	aiwi_cost_account_fixed(c, &T->k.price, T->k.N + T->k.spares, act);
	double kb = 0, fl = 0;
	if (T->state == S_STEP)
		phase_telemetry(&T->ph, t - T->ph.t0, &kb, &fl);
	c->kbusy_gpu_s = T->kbusy_done + kb;
	c->flops = T->flops_done + fl;
	c->peak_flop_s = T->k.tel_peak;
}

static double bytes_at(const training *T, double t)
{
	double e, b, by = 0;
	if (T->state == S_STEP)
		phase_partial(&T->ph, t - T->ph.t0, &e, &b, &by);
	return T->bytes_done + by;
}

static void training_sample(aiwi_comp *c, double t)
{
	training *T = c->state;
	aiw_sim *sim = c->sim;
	account(c, t);
	double dt = aiwi_rec_dt(sim);
	aiwi_rec_put(sim, T->id_step, T->tick_steps > 0 ? T->tick_step_sum / T->tick_steps : NAN);
	T->tick_steps = T->tick_step_sum = 0;
	aiwi_rec_put(sim, T->id_tokens, (T->c_steps + T->p_steps) * T->k.tokens_per_step);
	double by = bytes_at(T, t);
	aiwi_rec_put(sim, T->id_ew, dt > 0 ? (by - T->prev_bytes) / dt : 0);
	T->prev_bytes = by;
	if (dt > 0) {
		/* every rack gets the same average, so the site's running maxima
		 * change only when it beats the largest reported so far: calling
		 * only then is exact and keeps a tick O(1) in the number of racks */
		double p = (c->energy_j - T->prev_e) / dt / T->racks;
		if (T->racks > 0 && p > T->rack_peak) {
			aiwi_site_racks_uniform(sim, c, (size_t)T->racks, p);
			T->rack_peak = p;
		}
	}
	T->prev_e = c->energy_j;
}

static void training_finish(aiwi_comp *c, double t)
{
	training *T = c->state;
	if (!T)
		return;
	aiw_sim *sim = c->sim;
	const tcfg *k = &T->k;
	account(c, t);
	/* the phase in progress, without changing the state (finish may be
	 * called again later) */
	double steps = T->c_steps + T->p_steps;
	double compute = T->c_compute + T->p_compute, wait = T->c_wait + T->p_wait;
	double comm = T->c_comm + T->p_comm, bubble = T->c_bubble + T->p_bubble;
	double ckpt = T->ckpt_s, restart = T->restart_s;
	if (T->state == S_STEP || T->state == S_CKPT || T->state == S_RESTART) {
		const phase *ph = &T->ph;
		double x = fmin(clamp0(t - ph->t0), ph->dur);
		if (T->state == S_STEP) {
			double cpt = fmin(ph->t_max, k->t_c);
			compute += fmin(x, cpt);
			wait += fmin(clamp0(x - cpt), clamp0(ph->t_max - cpt));
			if (ph->bubble > 0) {
				bubble += fmin(clamp0(x - ph->t_max), ph->bubble);
				comm += clamp0(x - ph->t_max - ph->bubble);
			} else {
				comm += clamp0(x - ph->t_max);
			}
		} else if (T->state == S_CKPT) {
			ckpt += x;
		} else {
			restart += x;
		}
	}
	double wall = active_s(T, t);
	double tokens = steps * k->tokens_per_step;
	double useful = steps * k->t_c;
	/* what the site charges (site/cost.h: the one formula of the energy
	 * price), so that cost_per_mtok_usd agrees with the published cost */
	double energy_cost = aiwi_cost_energy_usd(sim, c->energy_j);
	double cost = c->cost_usd + energy_cost + aiwi_cost_extra_usd(c);
	double mean = T->steps_exec > 0 ? T->step_sum / T->steps_exec : NAN;
	const char *p = c->prefix;
#define M(key, v) aiwi_metric(sim, p, key, v)
	M("steps", steps);
	M("tokens", tokens);
	M("steps_lost", T->steps_lost);
	M("step_time_mean_s", mean);
	M("step_time_p50_s", aiwi_hist_quantile(&T->hist, 0.5));
	M("step_time_p99_s", aiwi_hist_quantile(&T->hist, 0.99));
	M("step_compute_s", k->t_c);
	M("goodput", wall > 0 ? useful / wall : NAN);
	M("ettr", wall > 0 ? (compute + wait + comm + bubble) / wall : NAN);
	M("straggler_slowdown", T->steps_exec > 0 ? T->step_sum / T->base_sum : NAN);
	M("wall_s", wall);
	M("compute_s", compute);
	M("exposed_comm_s", comm);
	M("straggler_wait_s", wait);
	M("checkpoint_s", ckpt);
	M("lost_s", T->lost_s);
	M("restart_s", restart);
	M("failures", T->failures);
	M("checkpoints", T->checkpoints);
	M("checkpoint_interval_s", k->tau);
	M("checkpoint_time_s", k->w);
	if (k->layout)
		M("mfu_achieved", wall > 0 ? k->flops_per_token * tokens / (k->N * k->peak * wall) : NAN);
	else
		M("mfu_achieved",
		  wall > 0 && k->g.bf16_flops > 0
		          ? 6 * aiwi_p(c, P_MODEL_PARAMS) * tokens / (k->N * k->g.bf16_flops * wall)
		          : NAN);
	M("allreduce_s", k->t_comm);
	M("allreduce_busbw_bytes_per_s",
	  k->t_comm > 0 ? k->grad_bytes / k->t_comm * aiwi_busbw_factor(k->ar_ranks) : NAN);
	M("east_west_bytes", bytes_at(T, t) * k->nodes);
	M("energy_kwh", c->energy_j / 3.6e6);
	M("hardware_cost_usd", c->cost_usd);
	M("energy_cost_usd", energy_cost);
	M("cost_usd", cost);
	M("cost_per_mtok_usd", tokens > 0 ? cost / (tokens / 1e6) : NAN);
	if (k->layout) {
		/* the layout model: the nominal step, its breakdown, memory; the
		 * time totals count the steps kept, like compute_s */
		const aiwi_tstep *S = &k->S;
		M("mfu_model", S->mfu);
		M("step_time_model_s", k->t_c + k->bubble + k->e);
		M("dp", k->L.dp);
		M("micro_batches", k->L.m);
		M("pp_bubble_s", bubble);
		M("tp_s", steps * S->tp);
		M("cp_s", steps * S->cp);
		M("ep_s", steps * S->ep);
		M("pp_transfer_s", steps * S->pp_transfer);
		M("dp_exposed_s", steps * S->dp);
		M("step_tp_s", S->tp);
		M("step_pp_bubble_s", S->bubble);
		M("step_pp_transfer_s", S->pp_transfer);
		M("step_dp_exposed_s", S->dp);
		M("step_cp_s", S->cp);
		M("step_ep_s", S->ep);
		M("memory_per_gpu_bytes", k->mem.total);
		M("memory_weights_bytes", k->mem.term[AIWI_M_WEIGHTS]);
		M("memory_gradients_bytes", k->mem.term[AIWI_M_GRADS]);
		M("memory_optimizer_bytes", k->mem.term[AIWI_M_OPTIM]);
		M("memory_activations_bytes", k->mem.term[AIWI_M_ACT]);
		M("memory_buffers_bytes", k->mem.term[AIWI_M_BUFFERS]);
		M("memory_largest_term", k->mem.largest);
	}
#undef M
}

static aiw_status training_param_changed(aiwi_comp *c, size_t idx)
{
	training *T = c->state;
	tcfg k;
	aiw_status st = derive(c, &k);
	if (st != AIW_OK)
		return st;
	/* takes effect from the next step; the step in progress keeps its draws */
	T->k = k;
	if (idx == P_CKPT_INTERVAL)
		T->next_ckpt = T->last_commit + k.tau;
	return AIW_OK;
}

static void training_destroy(aiwi_comp *c)
{
	training *T = c->state;
	aiwi_hist_free(&T->hist);
	if (T->frng)
		gsl_rng_free(T->frng);
	free(T);
	c->state = NULL;
}

/* The summary metrics, in the order of the summary table. */
static const aiwi_metric_def TRAINING_METRICS[] = {
	AIWI_ACCOUNT_METRICS_FIRST,
	AIWI_TELEMETRY_METRICS,
	{"goodput", "Goodput (useful compute / wall)", "1", AIW_METRIC_HEADLINE | AIW_METRIC_FRACTION,
	 "useful compute time / wall time (work later lost to a failure is not useful)",
	 "training_goodput_ratio", "gauge", NULL,
	 "useful compute time / wall time of a training job"},
	{"ettr", "Effective training time ratio", "1", AIW_METRIC_FRACTION,
	 "time in steps (compute, exposed communication, straggler wait) / wall time", NULL, NULL, NULL, NULL},
	{"mfu_achieved", "MFU achieved", "1", AIW_METRIC_FRACTION,
	 "model FLOPs of the useful steps / (GPUs x peak FLOP/s x wall time)", NULL, NULL, NULL, NULL},
	{"steps", "Steps", "1", AIW_METRIC_HEADLINE | AIW_METRIC_COUNT,
	 "optimizer steps completed",
	 "training_progress_steps", "gauge", NULL,
	 "steps in the model's current state (rolled back when a failure loses work)"},
	{"tokens", "Tokens trained", "1", AIW_METRIC_HEADLINE | AIW_METRIC_COUNT,
	 "tokens of the completed steps",
	 "training_progress_tokens", "gauge", NULL,
	 "tokens in the model's current state (rolled back when a failure loses work)"},
	{"step_time_mean_s", "Step time (mean)", "s", AIW_METRIC_HEADLINE,
	 "mean step time", NULL, NULL, NULL, NULL},
	{"step_time_p50_s", "Step time (P50)", "s", 0,
	 "median step time", NULL, NULL, NULL, NULL},
	{"step_time_p99_s", "Step time (P99)", "s", 0,
	 "99th percentile of the step time", NULL, NULL, NULL, NULL},
	{"step_compute_s", "Step compute (nominal)", "s", 0,
	 "per-GPU compute time of one step without jitter", NULL, NULL, NULL, NULL},
	{"straggler_slowdown", "Straggler slowdown", "1", AIW_METRIC_HEADLINE | AIW_METRIC_RATIO,
	 "mean step time / step time without jitter and slow parts", NULL, NULL, NULL, NULL},
	{"wall_s", "Wall time", "s", 0,
	 "time the job ran", NULL, NULL, NULL, NULL},
	{"compute_s", "  compute", "s", 0,
	 "time breakdown: computing (nominal per-GPU compute)", NULL, NULL, NULL, NULL},
	{"exposed_comm_s", "  exposed communication", "s", 0,
	 "time breakdown: all-reduce not hidden behind compute", NULL, NULL, NULL, NULL},
	{"straggler_wait_s", "  straggler wait", "s", 0,
	 "time breakdown: waiting for the slowest GPU", NULL, NULL, NULL, NULL},
	{"pp_bubble_s", "  pipeline bubble", "s", 0,
	 "time breakdown: pipeline bubble of the steps kept (idle stages)", NULL, NULL, NULL, NULL},
	{"checkpoint_s", "  checkpoint writes", "s", 0,
	 "time breakdown: blocking checkpoint writes", NULL, NULL, NULL, NULL},
	{"lost_s", "  lost work", "s", 0,
	 "time breakdown: work lost to failures (since the last checkpoint)", NULL, NULL, NULL, NULL},
	{"restart_s", "  restarts", "s", 0,
	 "time breakdown: restarting", NULL, NULL, NULL, NULL},
	{"failures", "Failures", "1", AIW_METRIC_HEADLINE | AIW_METRIC_COUNT,
	 "failures that interrupted the job",
	 "training_failures_total", "counter", NULL,
	 "failures that interrupted a training job"},
	{"steps_lost", "Steps lost", "1", AIW_METRIC_COUNT,
	 "steps redone after failures", NULL, NULL, NULL, NULL},
	{"checkpoints", "Checkpoints", "1", AIW_METRIC_HEADLINE | AIW_METRIC_COUNT,
	 "checkpoints completed",
	 "training_checkpoints_total", "counter", NULL,
	 "checkpoints a training job completed"},
	{"checkpoint_interval_s", "Checkpoint interval", "s", 0,
	 "training time between checkpoints (Daly's optimum when auto)", NULL, NULL, NULL, NULL},
	{"checkpoint_time_s", "Checkpoint write time", "s", 0,
	 "blocking write time of one checkpoint", NULL, NULL, NULL, NULL},
	{"allreduce_s", "All-reduce time", "s", 0,
	 "gradient all-reduce time of one step", NULL, NULL, NULL, NULL},
	{"allreduce_busbw_bytes_per_s", "All-reduce bus bandwidth", "B/s", 0,
	 "all-reduce bus bandwidth as nccl-tests defines it", NULL, NULL, NULL, NULL},
	{"east_west_bytes", "East-west traffic", "B", 0,
	 "bytes all-reduced over the network by all nodes", NULL, NULL, NULL, NULL},
	{"mfu_model", "MFU of the layout (nominal step)", "1", AIW_METRIC_FRACTION,
	 "model FLOPs of one step / (GPUs x peak FLOP/s x the nominal step time) of the parallel layout", NULL, NULL, NULL, NULL},
	{"step_time_model_s", "Step time of the layout (nominal)", "s", 0,
	 "nominal step time of the parallel layout: compute + pipeline bubble + exposed communication, without jitter", NULL, NULL, NULL, NULL},
	{"dp", "Data-parallel degree", "1", AIW_METRIC_COUNT,
	 "data-parallel replicas of the layout (gpus / (tp x pp x cp))", NULL, NULL, NULL, NULL},
	{"micro_batches", "Micro-batches per step", "1", AIW_METRIC_COUNT,
	 "micro-batches per data-parallel replica and step (global_batch / (dp x micro_batch))", NULL, NULL, NULL, NULL},
	{"tp_s", "Steps kept: tensor-parallel communication", "s", 0,
	 "time breakdown: exposed tensor-parallel collectives of the steps kept", NULL, NULL, NULL, NULL},
	{"cp_s", "Steps kept: context-parallel communication", "s", 0,
	 "time breakdown: exposed context-parallel collectives of the steps kept", NULL, NULL, NULL, NULL},
	{"ep_s", "Steps kept: expert-parallel all-to-all", "s", 0,
	 "time breakdown: exposed expert-parallel all-to-all of the steps kept", NULL, NULL, NULL, NULL},
	{"pp_transfer_s", "Steps kept: pipeline transfers", "s", 0,
	 "time breakdown: exposed point-to-point activation transfers of the steps kept", NULL, NULL, NULL, NULL},
	{"dp_exposed_s", "Steps kept: data-parallel reduction (exposed)", "s", 0,
	 "time breakdown: data-parallel gradient reduction not hidden behind the backward pass, steps kept", NULL, NULL, NULL, NULL},
	{"step_tp_s", "Step: tensor-parallel communication", "s", 0,
	 "tensor-parallel collectives of one nominal step", NULL, NULL, NULL, NULL},
	{"step_pp_bubble_s", "Step: pipeline bubble", "s", 0,
	 "pipeline bubble of one nominal step", NULL, NULL, NULL, NULL},
	{"step_pp_transfer_s", "Step: pipeline transfers", "s", 0,
	 "point-to-point transfers of one nominal step", NULL, NULL, NULL, NULL},
	{"step_dp_exposed_s", "Step: exposed data-parallel reduction", "s", 0,
	 "exposed data-parallel reduction of one nominal step", NULL, NULL, NULL, NULL},
	{"step_cp_s", "Step: context-parallel communication", "s", 0,
	 "context-parallel collectives of one nominal step", NULL, NULL, NULL, NULL},
	{"step_ep_s", "Step: expert-parallel all-to-all", "s", 0,
	 "expert-parallel all-to-all of one nominal step", NULL, NULL, NULL, NULL},
	{"memory_per_gpu_bytes", "Memory per GPU", "B", AIW_METRIC_HEADLINE,
	 "memory one GPU needs under the layout (weights, gradients, optimizer states, activations in flight, buffers)", NULL, NULL, NULL, NULL},
	{"memory_weights_bytes", "  weights", "B", 0,
	 "memory per GPU: weights (sharded by tp, pp, ep; by dp under ZeRO-3)", NULL, NULL, NULL, NULL},
	{"memory_gradients_bytes", "  gradients", "B", 0,
	 "memory per GPU: gradients (sharded over dp from ZeRO-2)", NULL, NULL, NULL, NULL},
	{"memory_optimizer_bytes", "  optimizer states", "B", 0,
	 "memory per GPU: optimizer states (sharded over dp from ZeRO-1)", NULL, NULL, NULL, NULL},
	{"memory_activations_bytes", "  activations", "B", 0,
	 "memory per GPU: activations of the micro-batches in flight on the first stage (Korthikanti et al. 2022)", NULL, NULL, NULL, NULL},
	{"memory_buffers_bytes", "  buffers", "B", 0,
	 "memory per GPU: communication and framework buffers (memory_buffers)", NULL, NULL, NULL, NULL},
	{"memory_largest_term", "Largest memory term", "1", 0,
	 "index of the largest memory term: 0 weights, 1 gradients, 2 optimizer states, 3 activations, 4 buffers", NULL, NULL, NULL, NULL},
	AIWI_ACCOUNT_METRICS_LAST,
	AIWI_METRIC_COST_PER_MTOK("Cost per million tokens trained"),
	{NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL},
};

static const aiwi_curve_def TRAINING_CURVES[] = {
	AIWI_TELEMETRY_CURVES,
	{"step_time_s", "s", "training_step_time_seconds", NULL, AIWI_CURVE_GAUGE, false, false,
	 "mean duration of the training steps that ended in the sample interval (s)"},
	{"tokens", "1", "training_progress_tokens", NULL, AIWI_CURVE_GAUGE, true, false,
	 "tokens in the model's current state at the end of the interval"},
	{"east_west_bytes_per_s_per_node", "B/s", NULL, NULL, 0, false, false,
	 "network bytes per second one node sends for the gradient reduction, interval average"},
	{NULL, NULL, NULL, NULL, 0, false, false, NULL},
};

/* The run's work from the configuration start derives (derive(), the
 * layout model's step when `layers` is set): steps of a lower bound of the
 * expected step time, (t_c + bubble) max(E[M], 1e-6) plus the exposed
 * communication without degraded links (the slowest GPU's multiplier has a
 * mean >= E[M]), up to the step budget; failures of the GPUs over the
 * job's span. */
static void training_estimate(aiwi_comp *c, aiwi_estimate *E)
{
	aiw_sim *sim = c->sim;
	double span = fmax(0, aiwi_est_duration(E) - aiwi_p(c, P_START));
	char a[64], d[64], p[64];
	tcfg k;
	if (derive(c, &k) == AIW_OK) {
		/* a layout's pipeline bubble stretches with the slowest stage */
		double step = (k.t_c + (k.layout ? k.bubble : 0)) * fmax(k.mu, 1e-6) +
		              (isfinite(k.e0) ? k.e0 : 0);
		if (step > 0)
			aiwi_est_work(E, fmin(span / step, k.steps_budget),
			              "lower sim.duration, or raise the step time (step_compute, "
			              "model_params or tokens_per_step), or set max_steps",
			              "%s: about @ steps (%s / step time %s)", c->prefix,
			              aiwi_est_dur(d, sizeof d, span), aiwi_est_dur(p, sizeof p, step));
	}
	double rate = failure_rate(c), N = aiwi_p(c, P_GPUS);
	if (rate > 0) {
		aiwi_est_work(E, rate * span, "raise gpu_mtbf or lower sim.duration",
		              "%s: about @ failures (gpus %s / gpu_mtbf %s x %s)", c->prefix,
		              aiwi_est_num(a, sizeof a, N), aiwi_est_dur(p, sizeof p, aiwi_p(c, P_MTBF)),
		              aiwi_est_dur(d, sizeof d, span));
		/* a failure that takes a hot spare schedules its repair */
		aiwi_est_pending(E, fmin(aiwi_p(c, P_SPARES), rate * span + 1));
	}
	aiwi_est_racks(E, ceil((N + aiwi_p(c, P_SPARES)) / aiwi_site_gpus_per_rack(sim)), 0);
	aiwi_est_pending(E, 4);
	aiwi_est_memory(E, 256.0 * 1024, NULL, "%s", ""); /* the step time histogram */
}

const aiwi_kind aiwi_kind_training = {
	.name = "training",
	.telemetry = true,
	.params = TRAINING_PARAMS,
	.nparams = P_NPARAMS,
	.metrics = TRAINING_METRICS,
	.curves = TRAINING_CURVES,
	.estimate = training_estimate,
	.start = training_start,
	.sample = training_sample,
	.finish = training_finish,
	.param_changed = training_param_changed,
	.destroy = training_destroy,
};

double aiwi_training_layout_step(aiwi_comp *c, double *t_c)
{
	if (!c || c->kind != &aiwi_kind_training || !aiwi_pset(c, P_LAYERS))
		return NAN;
	char saved[1024];
	snprintf(saved, sizeof saved, "%s", aiw_sim_errmsg(c->sim));
	tcfg k;
	aiw_status st = derive(c, &k);
	aiwi_err(c->sim, AIW_OK, "%s", saved); /* the model's start reports errors */
	if (st != AIW_OK)
		return NAN;
	if (t_c)
		*t_c = k.t_c;
	return k.t_c * fmax(k.mu, 1e-6) + k.bubble * fmax(k.mu, 1e-6) + k.e;
}

/* ------------------------------------------------------------------------ */
/* scaling study                                                             */
/* ------------------------------------------------------------------------ */
#define QUAD_K 16384

/* E[max(X, Y)], X the max of nf multipliers, Y slow_factor x the max of ns,
 * by the midpoint rule on K points of each quantile function:
 * E[max of n] = int_0^1 Q(1 - v^(1/n)) dv, and for two independent classes
 * the K x K grid of pairs is summed in O(K) over the sorted quantiles. */
static aiw_status expected_max(const aiwi_dist *d, double nf, double ns, double sf, double *out)
{
	if (d->kind == AIW_D_CONST) {
		double a = clamp0(d->a), m = -INFINITY;
		if (nf > 0)
			m = a;
		if (ns > 0)
			m = fmax(m, sf * a);
		*out = fmax(m, 1e-6);
		return AIW_OK;
	}
	double *x = malloc(2 * QUAD_K * sizeof *x);
	if (!x)
		return AIW_ENOMEM;
	double *y = x + QUAD_K;
	for (size_t i = 0; i < QUAD_K; i++) {
		double v = ((double)i + 0.5) / QUAD_K;
		x[i] = nf > 0 ? clamp0(aiwi_dist_quantile_upper(d, -expm1(log(v) / nf))) : -INFINITY;
		y[i] = ns > 0 ? sf * clamp0(aiwi_dist_quantile_upper(d, -expm1(log(v) / ns)))
		              : -INFINITY;
	}
	double s = 0;
	if (ns <= 0 || nf <= 0) {
		const double *z = ns > 0 ? y : x;
		for (size_t i = 0; i < QUAD_K; i++)
			s += z[i];
		s /= QUAD_K;
	} else {
		/* both sorted ascending; suffix sums of y */
		double suffix = 0;
		for (size_t j = 0; j < QUAD_K; j++)
			suffix += y[j];
		size_t j = 0;
		for (size_t i = 0; i < QUAD_K; i++) {
			while (j < QUAD_K && y[j] <= x[i])
				suffix -= y[j++];
			s += x[i] * (double)j + suffix;
		}
		s /= (double)QUAD_K * QUAD_K;
	}
	free(x);
	*out = fmax(s, 1e-6);
	return AIW_OK;
}

AIW_EXPORT aiw_status aiw_training_scaling(aiw_sim *sim, const char *component,
                                           const double *gpu_counts, size_t n, int weak,
                                           double *step_time_s, double *efficiency)
{
	if (!sim)
		return AIW_EINVAL;
	if (!component || !gpu_counts || !step_time_s)
		return aiwi_err(sim, AIW_EINVAL,
		                "aiw_training_scaling: component, gpu_counts and step_time_s must not "
		                "be NULL");
	if (n == 0)
		return aiwi_err(sim, AIW_EINVAL, "aiw_training_scaling: n is 0");
	const char *name = component;
	if (strncmp(name, "training.", 9) == 0)
		name += 9;
	for (size_t i = 0; i < n; i++) {
		double p = gpu_counts[i];
		if (!(isfinite(p) && p >= 1 && p <= MAX_GPUS && floor(p) == p))
			return aiwi_err(sim, AIW_ERANGE,
			                "aiw_training_scaling: gpu_counts[%zu] = %g is not an integer in "
			                "1 to %g",
			                i, p, MAX_GPUS);
	}
	aiwi_comp *c;
	aiw_status st = aiwi_comp_get(sim, "training", name, false, &c);
	if (st != AIW_OK)
		return st;
	tcfg k;
	if ((st = derive(c, &k)) != AIW_OK)
		return st;
	const aiwi_dist *jit = aiwi_pd(c, P_JITTER);
	bool degraded = aiwi_p(c, P_DEG_LINKS) > 0;
	double deg = aiwi_p(c, P_DEG_FACTOR);
	for (size_t i = 0; i < n && k.layout; i++) {
		/* the layout model: p GPUs in the same tp x pp x cp model-parallel
		 * groups, dp = p / (tp pp cp); weak scaling keeps the micro-batches
		 * per step, strong the global batch */
		double p = gpu_counts[i];
		aiwi_tlayout L = k.L;
		L.gpus = p;
		L.dp = 0;
		if (weak)
			L.global_batch = k.L.global_batch / k.L.dp * (p / (L.tp * L.pp * L.cp));
		char e[400];
		aiwi_tstep S;
		if (aiwi_tlayout_check(&L, &k.A, e, sizeof e) != AIW_OK ||
		    aiwi_tstep_compute(&k.A, &L, &k.H, &S, e, sizeof e) != AIW_OK)
			return aiwi_err(sim, AIW_ERANGE, "aiw_training_scaling: gpu_counts[%zu] = %g: %s",
			                i, p, e);
		double ns = fmin(k.n_slow, p), nf = p - ns, em;
		if ((st = expected_max(jit, nf, ns, k.slow_factor, &em)) != AIW_OK)
			return aiwi_err(sim, st, "out of memory");
		double scaled = S.compute + S.bubble;
		step_time_s[i] = scaled * em + (S.step - scaled);
		if (efficiency)
			efficiency[i] = isfinite(k.mu) ? S.compute * k.mu / step_time_s[i] : NAN;
	}
	for (size_t i = 0; i < n && !k.layout; i++) {
		double p = gpu_counts[i];
		/* weak: fixed per-GPU batch, so fixed per-GPU compute; strong:
		 * fixed global batch split over p */
		double tc = weak ? k.t_c : k.t_c * k.N / p;
		double ns = fmin(k.n_slow, p), nf = p - ns;
		double em;
		if ((st = expected_max(jit, nf, ns, k.slow_factor, &em)) != AIW_OK)
			return aiwi_err(sim, st, "out of memory");
		double e = fmax(0, comm_time(&k, p, degraded && p > 1, deg) - k.overlap * tc);
		step_time_s[i] = tc * em + e;
		if (efficiency)
			efficiency[i] = isfinite(k.mu) ? tc * k.mu / step_time_s[i] : NAN;
	}
	return AIW_OK;
}
