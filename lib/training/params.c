/*
 * params.c - the parameter table of [training NAME] (training.h indexes it).
 */
#include "training/training.h"

#define RT AIW_PF_RUNTIME

const aiwi_param_def aiwi_training_params[P_NPARAMS] = {
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
	/* a write that fails (storage error, a node lost during the write, a
	 * corrupt shard found on verification) costs its time and energy and
	 * saves nothing: the work since the last saved checkpoint stays at risk
	 * and the next attempt comes one interval later.  Daly's interval does
	 * not take it into account.  Default 0: every write succeeds. */
	[P_CKPT_FAIL] = {"checkpoint_failure_prob", "training.NAME.checkpoint_failure_prob",
	                 AIW_PT_REAL, "0", "1", 0, 1, NULL, RT,
	                 "probability that a checkpoint write fails: its time and energy are "
	                 "spent, nothing is saved, the work since the last saved checkpoint stays "
	                 "at risk and the next attempt comes one interval later",
	                 0},
	[P_START] = {"start", "training.NAME.start", AIW_PT_DURATION, "0", "s", 0, 3.2e9, NULL, 0,
	             "time the job starts (its GPUs are provisioned from then on)", 0},
	[P_MAX_STEPS] = {"max_steps", "training.NAME.max_steps", AIW_PT_INT, NULL, "1", 0, 1e15,
	                 NULL, AIW_PF_NONE | AIW_PF_EXCL_MIN | RT,
	                 "stop (and release the GPUs) after this many steps (none: run to the end)",
	                 0},
	[P_MAX_TOKENS] = {"max_tokens", "training.NAME.max_tokens", AIW_PT_REAL, NULL, "1", 0, 1e18,
	                  NULL, AIW_PF_NONE | AIW_PF_EXCL_MIN | RT,
	                  "stop after the step that reaches this many tokens (none: no limit)", 0},
	[P_MEM_CHECK] = {"memory_check", "training.NAME.memory_check", AIW_PT_ENUM, "refuse", "", 0,
	                 1, "refuse|warn", 0,
	                 "a job whose memory per GPU exceeds the GPU's (the layout's; without "
	                 "layers, the model states sharded over every GPU): refuse it, or run it "
	                 "with a warning",
	                 0},
	/* deferrable work (aiworkload(7) "Price and carbon"): the start placed
	 * where the site's price or carbon series is lowest over the job */
	[P_START_WINDOW] = {"start_window", "training.NAME.start_window", AIW_PT_DURATION, NULL, "s",
	                    0, 3.2e9, NULL, AIW_PF_NONE,
	                    "the job may start anywhere in [start, start + start_window]: it starts "
	                    "where the site's price (or carbon) series integrated over the job's "
	                    "expected length (max_steps or max_tokens x the expected step time) is "
	                    "least, the earliest of equals (none: at start)",
	                    0},
	[P_START_POLICY] = {"start_policy", "training.NAME.start_policy", AIW_PT_ENUM, "cheapest", "",
	                    0, 1, "cheapest|cleanest", 0,
	                    "with start_window: minimise the energy price (site.electricity_price_daily "
	                    "or _file) or the carbon intensity (site.carbon_intensity_daily or "
	                    "_file) over the job",
	                    0},
	[P_POWER_CAP] = {"power_cap", "training.NAME.power_cap", AIW_PT_POWER, NULL, "W", 1, 1e5,
	                 NULL, AIW_PF_NONE,
	                 "a power cap per GPU (none: uncapped): above it the compute runs at clock "
	                 "f = ((cap - floor) / (compute_w - floor))^(1/3), its time 1/f longer, "
	                 "drawing the cap; communication keeps its time (the mfu or step_compute "
	                 "model, layers unset: its compute is all FLOP-bound)",
	                 0},
	[P_POWER_CAP_FLOOR] = {"power_cap_floor", "training.NAME.power_cap_floor", AIW_PT_POWER,
	                       NULL, "W", 0, 1e5, NULL, AIW_PF_NONE,
	                       "power_cap: the static power that the clock does not scale, below "
	                       "the cap (none: the GPU's idle_w)",
	                       0},
	/* the site's capping controller caps the lowest priority first: POLCA
	 * (Patel et al., arXiv:2308.12908, ASPLOS 2024) and Meta's
	 * Thunderbolt throttle the work that tolerates it before the
	 * user-facing inference; a training job's default 0 puts it first */
	[P_CAPPING_PRIORITY] = {"capping_priority", "training.NAME.capping_priority", AIW_PT_INT,
	                        "0", "1", 0, 9, NULL, 0,
	                        "site.capping: the controller caps the components of the lowest "
	                        "priority first and releases them last (training 0, batch "
	                        "inference 1, interactive inference 2 in the policy of POLCA and "
	                        "Thunderbolt)",
	                        0},
	/* GPU power smoothing: the floor and the ramp-down rate of NVIDIA's
	 * power-smoothing profiles (NVML nvmlPowerSmoothingProfile_t:
	 * PERCENT_TMP_FLOOR in percent, RAMP_DOWN_RATE in W/s; Choukse et al.,
	 * "Power stabilization for AI training datacenters", arXiv:2508.14318,
	 * 2025, section on GB200 power smoothing) */
	[P_POWER_FLOOR] = {"power_floor", "training.NAME.power_floor", AIW_PT_REAL, NULL, "1", 0, 1,
	                   NULL, AIW_PF_NONE,
	                   "GPU power smoothing: each of the job's GPUs draws at least this "
	                   "fraction of its tdp_w in every phase (communication, the bubble, the "
	                   "barrier, checkpoint writes, restarts), burning the difference (none: "
	                   "no floor)",
	                   0},
	[P_RAMP_DOWN] = {"power_ramp_down", "training.NAME.power_ramp_down", AIW_PT_REAL, NULL,
	                 "W/s", 0, 1e9, NULL, AIW_PF_NONE | AIW_PF_EXCL_MIN,
	                 "GPU power smoothing: a GPU's power falls by at most this rate, burning "
	                 "what the work no longer draws (power piecewise linear, integrated "
	                 "exactly; none: falls at once)",
	                 0},
	AIW_COST_PARAM_DEFS("training"),
#define TK(k) "training.NAME." k
#define NONE AIW_PF_NONE
	[P_TP] = {"tp", TK("tp"), AIW_PT_INT, "1", "1", 1, 65536, NULL, 0,
	          "tensor-parallel size (with layers set; placed inside a node first)", 0},
	[P_PP] = {"pp", TK("pp"), AIW_PT_INT, "1", "1", 1, 65536, NULL, 0,
	          "pipeline-parallel stages (must divide layers, or the layers left by "
	          "first_stage_layers and last_stage_layers)", 0},
	[P_VSTAGES] = {"virtual_stages", TK("virtual_stages"), AIW_PT_INT, "1", "1", 1, 1024, NULL,
	               0, "model chunks per pipeline stage (schedule = interleaved)", 0},
	[P_FIRST_LAYERS] = {"first_stage_layers", TK("first_stage_layers"), AIW_PT_INT, NULL, "1",
	                    1, 1e6, NULL, NONE,
	                    "layers of the first pipeline stage (Megatron-LM's "
	                    "decoder_first_pipeline_num_layers); none: as the other stages",
	                    0},
	[P_LAST_LAYERS] = {"last_stage_layers", TK("last_stage_layers"), AIW_PT_INT, NULL, "1", 1,
	                   1e6, NULL, NONE,
	                   "layers of the last pipeline stage (Megatron-LM's "
	                   "decoder_last_pipeline_num_layers); none: as the other stages",
	                   0},
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
	[P_BUBBLE_SHAPE] = {"bubble_shape", TK("bubble_shape"), AIW_PT_ENUM, "aligned", "", 0, 1,
	                    "aligned|staggered", 0,
	                    "where each pipeline stage idles in the step: aligned, every stage "
	                    "after the compute at once; staggered, stage s for s/(pp-1) of the "
	                    "bubble before its compute (warm-up) and the rest after it "
	                    "(cool-down): a staircase, the same step time and idle GPU-seconds",
	                    0},
#undef NONE
#undef TK
};
