/*
 * serving_params.c - the parameter table of [inference NAME]: name, key,
 * type, default, unit, range, flags and one line of documentation each
 * (aiwi_param_def, lib/core/internal.h).  The cost parameters
 * (site/cost.h) and the autoscaler's (inference/autoscale/autoscale.h)
 * follow the model's own.
 */
#include "inference/serving_params.h"

#define IP(key) "inference.NAME." key
const aiwi_param_def aiwi_inference_params[] = {
	[P_GPU] = {"gpu", IP("gpu"), AIW_PT_STRING, "H100-SXM", "", 0, 0, NULL, 0,
	           "accelerator of every replica (catalog name or a [gpu NAME] section)", 0},
	[P_GPUS_PER_REPLICA] = {"gpus_per_replica", IP("gpus_per_replica"), AIW_PT_INT, "4", "1", 1,
	                        4096, NULL, 0,
	                        "GPUs of one replica (pp stages of gpus_per_replica / pp tensor-parallel "
	                        "GPUs: FLOP/s, memory and its bandwidth add up)",
	                        0},
	[P_GPUS_PER_NODE] = {"gpus_per_node", IP("gpus_per_node"), AIW_PT_INT, "8", "1", 1, 1024,
	                     NULL, 0,
	                     "GPUs per server node; node_overhead is charged per provisioned GPU "
	                     "as node_overhead / gpus_per_node",
	                     0},
	[P_PP] = {"pp", IP("pp"), AIW_PT_INT, "1", "1", 1, 4096, NULL, 0,
	          "pipeline stages of a replica, dividing gpus_per_replica (tensor parallel "
	          "gpus_per_replica / pp per stage); timing = iteration: the stages' transfers "
	          "and a decode batch as pp micro-batches in flight; the roofline is the same "
	          "for every pp",
	          0},
	[P_MODEL_PARAMS] = {"model_params", IP("model_params"), AIW_PT_REAL, "70e9", "1", 0, 1e15,
	                    NULL, AIW_PF_EXCL_MIN, "model parameters (weights)", 0},
	[P_LAYERS] = {"layers", IP("layers"), AIW_PT_INT, "80", "1", 1, 100000, NULL, 0,
	              "transformer layers (the KV cache size, the attention FLOPs, timing = "
	              "iteration's all-reduces)", 0},
	[P_KV_HEADS] = {"kv_heads", IP("kv_heads"), AIW_PT_INT, "8", "1", 1, 100000, NULL, 0,
	                "key/value heads per layer (grouped-query attention)", 0},
	[P_HEAD_DIM] = {"head_dim", IP("head_dim"), AIW_PT_INT, "128", "1", 1, 100000, NULL, 0,
	                "dimension of one attention head", 0},
	[P_KV_BITS] = {"kv_bits", IP("kv_bits"), AIW_PT_REAL, "16", "bit", 1, 64, NULL, 0,
	               "bits per KV cache element", 0},
	[P_KV_BYTES_PER_TOKEN] = {"kv_bytes_per_token", IP("kv_bytes_per_token"), AIW_PT_SIZE, NULL,
	                          "B", 0, 1e12, NULL, AIW_PF_NONE | AIW_PF_EXCL_MIN,
	                          "KV cache bytes per token (none: 2 x layers x kv_heads x "
	                          "head_dim x kv_bits / 8)",
	                          0},
	[P_WEIGHT_BITS] = {"weight_bits", IP("weight_bits"), AIW_PT_REAL, "16", "bit", 1, 64, NULL,
	                   0, "bits per weight (<= 8 uses the GPU's FP8 peak when it has one)", 0},
	[P_REPLICAS] = {"replicas", IP("replicas"), AIW_PT_INT, "1", "1", 0, 100000, NULL,
	                AIW_PF_RUNTIME,
	                "replicas (changeable during a run: added ones load for cold_start, "
	                "removed ones drain)",
	                0},
	[P_COLD_START] = {"cold_start", IP("cold_start"), AIW_PT_DIST, "uniform(10s,30s)", "s", 0,
	                  1e6, NULL, 0,
	                  "weight loading time of a replica added during a run (the initial "
	                  "replicas start ready)",
	                  AIW_PT_DURATION},
	[P_TRAFFIC] = {"traffic", IP("traffic"), AIW_PT_ENUM, "poisson", "", 0, 4,
	               "poisson|diurnal|bursty|trace|batch", 0,
	               "arrival process (see traffic parameters below); batch, an offline job: "
	               "batch_requests requests all available at batch_start, to finish by "
	               "batch_deadline",
	               0},
	[P_RATE] = {"rate", IP("rate"), AIW_PT_RATE, "1", "1/s", 0, 1e9, NULL, 0,
	            "mean arrival rate (diurnal: weekday mean)", 0},
	[P_PEAK_TO_TROUGH] = {"peak_to_trough", IP("peak_to_trough"), AIW_PT_REAL, "10", "1", 1, 1e6,
	                      NULL, 0, "diurnal: ratio of the peak rate to the trough rate", 0},
	[P_PEAK_HOUR] = {"peak_hour", IP("peak_hour"), AIW_PT_REAL, "14", "h", 0, 23.999999, NULL, 0,
	                 "diurnal: hour of day of the peak (t = 0 is Monday 00:00)", 0},
	[P_WEEKEND_FACTOR] = {"weekend_factor", IP("weekend_factor"), AIW_PT_REAL, "1", "1", 0, 1000,
	                      NULL, 0, "diurnal: rate multiplier on Saturdays and Sundays", 0},
	[P_CV] = {"cv", IP("cv"), AIW_PT_REAL, "1", "1", 0, 100, NULL, AIW_PF_EXCL_MIN,
	          "bursty: coefficient of variation of interarrival times (gamma renewal)", 0},
	[P_MODULATE] = {"modulate", IP("modulate"), AIW_PT_BOOL, "false", "", 0, 1, NULL, 0,
	                "bursty: follow the diurnal profile (time rescaling)", 0},
	[P_TRACE_FILE] = {"trace_file", IP("trace_file"), AIW_PT_STRING, NULL, "", 0, 0, NULL,
	                  AIW_PF_NONE | AIW_PF_PATH,
	                  "trace: CSV of TIMESTAMP,ContextTokens,GeneratedTokens (Azure LLM "
	                  "trace 2023 format)",
	                  0},
	[P_TRACE_TIME_SCALE] = {"trace_time_scale", IP("trace_time_scale"), AIW_PT_REAL, "1", "1", 0,
	                        1e9, NULL, AIW_PF_EXCL_MIN, "trace: speed-up of the replay", 0},
	[P_TRACE_LOOP] = {"trace_loop", IP("trace_loop"), AIW_PT_BOOL, "false", "", 0, 1, NULL, 0,
	                  "trace: repeat the trace when it ends", 0},
	[P_PROMPT_TOKENS] = {"prompt_tokens", IP("prompt_tokens"), AIW_PT_DIST,
	                     "lognormal(median=1024,sigma=0.8)", "1", 0, 1e9, NULL, 0,
	                     "prompt length in tokens (rounded, at least 1; a trace's own "
	                     "counts take precedence)",
	                     AIW_PT_REAL},
	[P_OUTPUT_TOKENS] = {"output_tokens", IP("output_tokens"), AIW_PT_DIST,
	                     "lognormal(median=256,sigma=0.7)", "1", 0, 1e9, NULL, 0,
	                     "output length in tokens (rounded, at least 1)", AIW_PT_REAL},
	[P_SERVICE] = {"service", IP("service"), AIW_PT_DIST, NULL, "s", 0, 1e9, NULL, AIW_PF_NONE,
	               "time a request holds a batch slot, replacing the roofline (none: "
	               "roofline); for queueing studies",
	               AIW_PT_DURATION},
	[P_MFU] = {"mfu", IP("mfu"), AIW_PT_REAL, "0.5", "1", 0, 1, NULL, AIW_PF_EXCL_MIN,
	           "fraction of peak FLOP/s reached by prefill (and the decode compute floor)", 0},
	[P_MEM_BW_EFF] = {"mem_bw_efficiency", IP("mem_bw_efficiency"), AIW_PT_REAL, "0.7", "1", 0,
	                  1, NULL, AIW_PF_EXCL_MIN,
	                  "fraction of peak memory bandwidth reached by decode", 0},
	[P_BATCHING] = {"batching", IP("batching"), AIW_PT_ENUM, "continuous", "", 0, 2,
	                "none|dynamic|continuous", 0,
	                "none: one request at a time; dynamic: Triton-style batches; continuous: "
	                "iteration-level (vLLM)",
	                0},
	[P_MAX_BATCH] = {"max_batch", IP("max_batch"), AIW_PT_INT, NULL, "1", 1, 65536, NULL,
	                 AIW_PF_NONE,
	                 "most requests in one replica's batch (none: continuous batching, vLLM's "
	                 "default max_num_seqs for the GPU, 1024 on a GPU of at least 70 GiB other "
	                 "than an A100, else 256; dynamic and none, 32); a replica of many "
	                 "data-parallel attention groups (moe, ep) holds their sum: DeepSeek's "
	                 "decode unit of 144 GPUs about 11,000",
	                 0},
	[P_MAX_QUEUE_DELAY] = {"max_queue_delay", IP("max_queue_delay"), AIW_PT_DURATION, "10ms",
	                       "s", 0, 3600, NULL, 0,
	                       "dynamic: longest a free replica waits to fill a batch", 0},
	[P_CHUNKED] = {"chunked_prefill", IP("chunked_prefill"), AIW_PT_ENUM, "off", "", 0, 1,
	               "off|on", 0,
	               "continuous batching: on, an iteration holds every running decode and "
	               "prefill chunks of the admitted prompts, in admission order, up to "
	               "max_num_batched_tokens tokens (Sarathi-Serve; vLLM's V1 engine turns it "
	               "on by default); off, a replica prefills all it admitted in one iteration "
	               "before its decodes resume (vLLM V0, which the shipped calibrations measured)",
	               0},
	[P_MAX_BATCHED_TOKENS] = {"max_num_batched_tokens", IP("max_num_batched_tokens"),
	                          AIW_PT_INT, NULL, "1", 1, 1e9, NULL, AIW_PF_NONE,
	                          "chunked_prefill: tokens of one iteration at most, one per running "
	                          "decode and the prompts' chunks (vLLM's name; SGLang's "
	                          "chunked_prefill_size), at least max_batch (none: vLLM V1's "
	                          "default for its OpenAI API server, 8192 on a GPU of at least 70 "
	                          "GiB other than an A100, else 2048)",
	                          0},
	/* vLLM V1's SchedulerConfig.long_prefill_token_threshold (default 0: no
	 * cap); its scheduler caps each request's new tokens of a step at it
	 * before the budget (vllm/v1/core/sched/scheduler.py, Scheduler.schedule,
	 * vllm-project/vllm commit 00024d314514) */
	[P_LONG_PREFILL] = {"long_prefill_token_threshold", IP("long_prefill_token_threshold"),
	                    AIW_PT_INT, "0", "1", 0, 1e9, NULL, AIW_PF_NONE,
	                    "chunked_prefill: tokens of one prompt in one iteration at most (0: "
	                    "no cap, vLLM V1's default); a prompt cut by it leaves the rest of the "
	                    "budget to the prompts behind it, so several prompts prefill partly "
	                    "at once (vLLM's name)",
	                    0},
	[P_SPECULATIVE] = {"speculative", IP("speculative"), AIW_PT_ENUM, "off", "", 0, 2,
	                   "off|draft|heads", 0,
	                   "speculative decoding (timing = iteration, continuous batching): draft, a "
	                   "draft model of draft_params weights on the replica's GPUs proposes "
	                   "speculative_tokens tokens that the target verifies in one iteration; "
	                   "heads, self-speculation (MTP, EAGLE or Medusa heads) whose draft token "
	                   "costs draft_cost of a decode iteration; each verification yields "
	                   "(1 - a^(k+1)) / (1 - a) tokens in expectation (doc/inference.md)",
	                   0},
	[P_SPEC_TOKENS] = {"speculative_tokens", IP("speculative_tokens"), AIW_PT_INT, "4", "1", 1,
	                   64, NULL, 0,
	                   "speculative: tokens k the draft proposes per verification (vLLM's "
	                   "num_speculative_tokens); the verification runs k + 1 tokens per sequence",
	                   0},
	[P_ACCEPTANCE] = {"acceptance_rate", IP("acceptance_rate"), AIW_PT_REAL, "0.7", "1", 0, 1,
	                  NULL, 0,
	                  "speculative: probability a that the target accepts a draft token, the "
	                  "same for every token (alpha of Leviathan et al. 2023)",
	                  0},
	[P_ACCEPTANCE_DIST] = {"acceptance_dist", IP("acceptance_dist"), AIW_PT_DIST, NULL, "1", 0,
	                       1, NULL, AIW_PF_NONE,
	                       "speculative: each request's acceptance rate drawn from this law on "
	                       "[0, 1] when it arrives (beta(a,b), uniform(a,b), empirical(FILE), "
	                       "...; none: acceptance_rate for every request); a request of "
	                       "acceptance a gains (1 - a^(k+1)) / (1 - a) tokens per verification",
	                       AIW_PT_REAL},
	[P_DRAFT_PARAMS] = {"draft_params", IP("draft_params"), AIW_PT_REAL, "1e9", "1", 0, 1e15,
	                    NULL, AIW_PF_EXCL_MIN,
	                    "speculative = draft: the draft model's parameters (weights, at "
	                    "weight_bits, held beside the target's: less KV cache), below "
	                    "model_params",
	                    0},
	[P_DRAFT_LAYERS] = {"draft_layers", IP("draft_layers"), AIW_PT_INT, NULL, "1", 1, 100000,
	                    NULL, AIW_PF_NONE,
	                    "speculative = draft: the draft model's layers (none: layers x "
	                    "(draft_params / model_params)^(1/3), the target's shape scaled at a "
	                    "constant d / L under P = 12 L d^2)",
	                    0},
	[P_DRAFT_COST] = {"draft_cost", IP("draft_cost"), AIW_PT_REAL, "0.1", "1", 0, 10, NULL, 0,
	                  "speculative = heads: the time of one draft token as a fraction of the "
	                  "target's decode iteration at the same batch and context (its prefill "
	                  "likewise), FLOPs and bytes in proportion",
	                  0},
	[P_MOE] = {"moe", IP("moe"), AIW_PT_ENUM, "off", "", 0, 1, "off|on", 0,
	           "mixture of experts (timing = iteration): model_params holds every expert, a "
	           "token runs experts_per_token of the experts routed ones in each of "
	           "moe_layers layers; a decode iteration reads the distinct experts its tokens "
	           "touch, E (1 - (1 - k/E)^B) per layer for B tokens; ep > 1 adds two "
	           "all-to-alls per MoE layer (doc/inference.md)",
	           0},
	[P_EXPERTS] = {"experts", IP("experts"), AIW_PT_INT, "8", "1", 2, 1e5, NULL, 0,
	               "moe: routed experts E per MoE layer (Mixtral 8x7B 8, DeepSeek-V3 256; the "
	               "training kind's experts)",
	               0},
	[P_TOPK] = {"experts_per_token", IP("experts_per_token"), AIW_PT_INT, "2", "1", 1, 1e5, NULL,
	            0,
	            "moe: routed experts k each token runs per MoE layer, at most experts (Mixtral 2, "
	            "DeepSeek-V3 8)",
	            0},
	[P_SHARED_EXPERTS] = {"shared_experts", IP("shared_experts"), AIW_PT_INT, "0", "1", 0, 1e5,
	                      NULL, 0,
	                      "moe: shared experts of expert_params each per MoE layer that every "
	                      "token runs, part of the dense weights (DeepSeek-V3 1)",
	                      0},
	[P_EXPERT_PARAMS] = {"expert_params", IP("expert_params"), AIW_PT_REAL, NULL, "1", 0, 1e15,
	                     NULL, AIW_PF_NONE | AIW_PF_EXCL_MIN,
	                     "moe: parameters of one routed expert in one MoE layer (none: from "
	                     "active_params, (model_params - active_params) / (moe_layers (experts - "
	                     "experts_per_token)))",
	                     0},
	[P_ACTIVE_PARAMS] = {"active_params", IP("active_params"), AIW_PT_REAL, NULL, "1", 0, 1e15,
	                     NULL, AIW_PF_NONE | AIW_PF_EXCL_MIN,
	                     "moe: parameters a token runs, below model_params (Mixtral 8x7B 12.9e9 "
	                     "of 46.7e9, DeepSeek-V3 37e9 of 671e9); used when expert_params is none",
	                     0},
	[P_MOE_LAYERS] = {"moe_layers", IP("moe_layers"), AIW_PT_INT, NULL, "1", 1, 100000, NULL,
	                  AIW_PF_NONE,
	                  "moe: layers whose MLP is a mixture of experts, at most layers (none: "
	                  "every layer; DeepSeek-V3 58 of 61)",
	                  0},
	[P_EP] = {"ep", IP("ep"), AIW_PT_INT, "1", "1", 1, 4096, NULL, 0,
	          "moe: expert-parallel groups of a pipeline stage, dividing gpus_per_replica / pp "
	          "and experts: each stage is ep groups of gpus_per_replica / (pp ep) "
	          "tensor-parallel GPUs, attention and the dense weights data-parallel over the "
	          "groups, experts / ep routed experts on each",
	          0},
	[P_MOE_IMBALANCE] = {"moe_imbalance", IP("moe_imbalance"), AIW_PT_REAL, "1", "1", 1, 1e5,
	                     NULL, 0,
	                     "moe: tokens of the busiest expert-parallel rank over the mean (1: "
	                     "uniform routing); the experts' GEMMs and the all-to-all bytes scale "
	                     "by it (a max-load factor, GShard's capacity factor); none at ep = 1",
	                     0},
	[P_MOE_ALLTOALL] = {"moe_alltoall", IP("moe_alltoall"), AIW_PT_ENUM, "pairwise", "", 0, 1,
	                    "pairwise|concurrent", 0,
	                    "moe: the all-to-all's latency: pairwise, ep - 1 link latencies one after "
	                    "the other (the training step's form); concurrent, one latency, every "
	                    "rank's sends issued at once (DeepEP's low-latency kernels, "
	                    "github.com/deepseek-ai/DeepEP: 192 us dispatch at EP128 on H800); the "
	                    "bytes at the links' bandwidth either way",
	                    0},
	[P_PREFIX_CACHING] = {"prefix_caching", IP("prefix_caching"), AIW_PT_ENUM, "off", "", 0, 1,
	                      "off|on", 0,
	                      "continuous batching: on, each replica keeps the KV blocks (16 "
	                      "tokens, vLLM's block size) of finished prompts and outputs in the "
	                      "KV memory its running requests leave free, evicted least recently "
	                      "used first, and a prompt whose leading blocks are cached prefills "
	                      "only the rest (vLLM's automatic prefix caching, SGLang's radix "
	                      "cache); the hits come from sessions and system prompts",
	                      0},
	[P_SESSIONS] = {"sessions", IP("sessions"), AIW_PT_ENUM, "off", "", 0, 1, "off|on", 0,
	                "on: every arrival of the traffic starts a conversation of session_turns "
	                "requests at rate / mean(session_turns) per second; a turn's prompt is the "
	                "previous turn's prompt and output followed by a new message of "
	                "prompt_tokens tokens, sent think_time after the previous turn ended (the "
	                "first: its system prompt and a message)",
	                0},
	[P_SESSION_TURNS] = {"session_turns", IP("session_turns"), AIW_PT_DIST, "const(4)", "1", 0,
	                     1e6, NULL, 0,
	                     "sessions: requests of one conversation (rounded, at least 1), drawn "
	                     "when it starts",
	                     AIW_PT_REAL},
	[P_THINK_TIME] = {"think_time", IP("think_time"), AIW_PT_DIST, "exp(30s)", "s", 0, 1e7,
	                  NULL, 0,
	                  "sessions: time from a turn's last token to the next turn's arrival",
	                  AIW_PT_DURATION},
	[P_SYSTEM_PROMPTS] = {"system_prompts", IP("system_prompts"), AIW_PT_INT, "0", "1", 0, 1e4,
	                      NULL, 0,
	                      "sessions: distinct system prompts that conversations start with "
	                      "(0: none), one picked per conversation by system_prompt_zipf (the "
	                      "cache keeps 16 bytes per system prompt and replica)",
	                      0},
	[P_SYSTEM_PROMPT_TOKENS] = {"system_prompt_tokens", IP("system_prompt_tokens"), AIW_PT_DIST,
	                            "const(1024)", "1", 0, 1e8, NULL, 0,
	                            "sessions: length of each system prompt in tokens (rounded, at "
	                            "least 1), drawn once per system prompt at the start",
	                            AIW_PT_REAL},
	[P_SYSTEM_PROMPT_ZIPF] = {"system_prompt_zipf", IP("system_prompt_zipf"), AIW_PT_REAL, "1",
	                          "1", 0, 10, NULL, 0,
	                          "sessions: popularity of the system prompts, the k-th most "
	                          "popular picked with weight 1 / k^s (0: uniform)",
	                          0},
	[P_KV_MARGIN] = {"kv_margin", IP("kv_margin"), AIW_PT_REAL, "0.1", "1", 0, 0.99, NULL, 0,
	                 "fraction of GPU memory kept out of weights and KV cache (activations, "
	                 "workspace)",
	                 0},
	[P_ROUTER] = {"router", IP("router"), AIW_PT_ENUM, "least_loaded", "", 0, 5,
	              "round_robin|least_loaded|p2c|central|affinity|kv_aware", 0,
	              "request routing: least_loaded = fewest outstanding; central = one shared "
	              "FIFO queue; affinity = a conversation's turns to the replica of its "
	              "previous turn while it is ready, else least_loaded (sessions); kv_aware = "
	              "fewest KV tokens held by the running requests, each queued one "
	              "counted as mean(prompt_tokens) + mean(output_tokens); traffic = batch: central "
	              "unless set (replicas added later take the queued job)",
	              0},
	[P_TIMEOUT] = {"timeout", IP("timeout"), AIW_PT_DURATION, NULL, "s", 0, 3.2e9, NULL,
	               AIW_PF_NONE | AIW_PF_EXCL_MIN,
	               "drop a request still queued this long after arriving (none: never)", 0},
	[P_QUEUE_LIMIT] = {"queue_limit", IP("queue_limit"), AIW_PT_INT, NULL, "1", 0, 1e9, NULL,
	                   AIW_PF_NONE,
	                   "drop arrivals finding this many requests queued at their replica (or "
	                   "the central queue); none: unlimited",
	                   0},
	/* replica failures (fleet_failure.c): the names and conventions of the
	 * training kind's GPU failures (lib/training/params.c) */
	[P_FAILURES] = {"replica_failures", IP("replica_failures"), AIW_PT_ENUM, "off", "", 0, 1,
	                "off|on", 0,
	                "on: replicas fail (a Poisson process per replica, its tp x pp GPUs "
	                "failing together) and are out for repair_time; off: they never do",
	                0},
	[P_GPU_MTBF] = {"gpu_mtbf", IP("gpu_mtbf"), AIW_PT_DURATION, "50000h", "s", 0, 1e15, NULL,
	                AIW_PF_EXCL_MIN,
	                "replica_failures: mean time between failures of one GPU (with its share "
	                "of node, network and software); a replica fails at gpus_per_replica / "
	                "gpu_mtbf (default: Llama 3's pre-training, 419 unexpected interruptions "
	                "in 54 days on 16,384 H100 GPUs (Grattafiori et al. 2024, The Llama 3 Herd "
	                "of Models, section 3.3.4), one per 50,677 GPU-hours)",
	                0},
	[P_FAIL_RATE] = {"replica_failure_rate", IP("replica_failure_rate"), AIW_PT_RATE, NULL,
	                 "1/s", 0, 1, NULL, AIW_PF_NONE,
	                 "replica_failures: failures per replica per unit time, instead of "
	                 "gpus_per_replica / gpu_mtbf (none: from gpu_mtbf)",
	                 0},
	[P_REPAIR_TIME] = {"repair_time", IP("repair_time"), AIW_PT_DIST, "const(72h)", "s", 0,
	                   3.2e9, NULL, 0,
	                   "replica_failures: time from a failure until the replica serves again "
	                   "(or, when a hot spare took its place, returns to the spare pool); its "
	                   "GPUs draw nothing and are not paid meanwhile (the training kind's "
	                   "default; set it from the operator's repair figures)",
	                   AIW_PT_DURATION},
	[P_FAIL_REQUESTS] = {"failure_requests", IP("failure_requests"), AIW_PT_ENUM, "requeue", "",
	                     0, 1, "requeue|drop", 0,
	                     "replica_failures: the requests a failed replica held: requeue (sent "
	                     "back to the router, their KV lost: prompt and tokens so far "
	                     "prefilled again) or drop (dropped, reason failure)",
	                     0},
	[P_HOT_SPARES] = {"hot_spares", IP("hot_spares"), AIW_PT_INT, "0", "1", 0, 1e6, NULL, 0,
	                  "replica_failures: spare replicas kept loaded, idle (idle power) and paid, "
	                  "one taking a failed replica's place at once; a spare used returns to "
	                  "the pool after repair_time",
	                  0},
	[P_SLO_TTFT] = {"slo_ttft", IP("slo_ttft"), AIW_PT_DURATION, NULL, "s", 0, 3.2e9, NULL,
	                AIW_PF_NONE | AIW_PF_EXCL_MIN, "time-to-first-token objective", 0},
	[P_SLO_TPOT] = {"slo_tpot", IP("slo_tpot"), AIW_PT_DURATION, NULL, "s", 0, 3.2e9, NULL,
	                AIW_PF_NONE | AIW_PF_EXCL_MIN,
	                "time-per-output-token objective (after the first token)", 0},
	[P_SLO_E2E] = {"slo_e2e", IP("slo_e2e"), AIW_PT_DURATION, NULL, "s", 0, 3.2e9, NULL,
	               AIW_PF_NONE | AIW_PF_EXCL_MIN, "end-to-end latency objective", 0},
	[P_RESPONSE_BYTES] = {"response_bytes_per_token", IP("response_bytes_per_token"),
	                      AIW_PT_SIZE, "4", "B", 0, 1e9, NULL, 0,
	                      "bytes sent to the client per output token (north-south traffic)", 0},
	[P_TIMING] = {"timing", IP("timing"), AIW_PT_ENUM, "iteration", "", 0, 1,
	              "roofline|iteration", 0,
	              "span times: iteration (the per-iteration model: GEMM, attention, memory, TP "
	              "all-reduces, fixed overhead; doc/inference.md) or roofline (max of compute and "
	              "memory, nothing else); the default does not apply with service",
	              0},
	[P_HIDDEN] = {"hidden_size", IP("hidden_size"), AIW_PT_INT, NULL, "1", 1, 1000000, NULL,
	              AIW_PF_NONE,
	              "model dimension d (the attention FLOPs of the FLOP metrics and of timing = "
	              "iteration's times, its all-reduce sizes) "
	              "(none: sqrt(model_params / (12 x layers)), from P = 12 L d^2)",
	              0},
	[P_ACT_BITS] = {"activation_bits", IP("activation_bits"), AIW_PT_REAL, "16", "bit", 1, 64,
	                NULL, 0,
	                "timing = iteration: bits per activation (8 with weight_bits 8: FP8 GEMMs)",
	                0},
	[P_PROFILE] = {"profile", IP("profile"), AIW_PT_STRING, NULL, "", 0, 0, NULL,
	               AIW_PF_NONE | AIW_PF_PATH,
	               "timing = iteration: measured table (Splitwise perf_model.csv or the "
	               "library's layout) whose fit gives the coefficients",
	               0},
	[P_PROFILE_GPU] = {"profile_gpu", IP("profile_gpu"), AIW_PT_STRING, NULL, "", 0, 0, NULL,
	                   AIW_PF_NONE,
	                   "the profile's rows to fit: its hardware name (none: those of `gpu`)", 0},
	[P_POWER_MODEL] = {"power_model", IP("power_model"), AIW_PT_ENUM, "constant", "", 0, 1,
	                   "constant|batch", 0,
	                   "a decoding GPU's power: constant, the catalog's decode_w whatever the "
	                   "batch; batch, a logistic in log2 of the running batch from "
	                   "decode_power_low to decode_power_high (the ML.ENERGY Benchmark's H100 "
	                   "measurements; doc/inference.md); prefill draws the catalog's prefill_w "
	                   "either way",
	                   0},
	[P_DECODE_POWER_LOW] = {"decode_power_low", IP("decode_power_low"), AIW_PT_POWER, NULL, "W",
	                        0, 1e5, NULL, AIW_PF_NONE,
	                        "power_model = batch: the decode power's low level, per GPU (none: "
	                        "3/7 of the GPU's prefill_w, 300 W on an H100)",
	                        0},
	[P_DECODE_POWER_HIGH] = {"decode_power_high", IP("decode_power_high"), AIW_PT_POWER, NULL,
	                         "W", 0, 1e5, NULL, AIW_PF_NONE,
	                         "power_model = batch: the decode power's high level, per GPU, at "
	                         "least decode_power_low (none: 6/7 of the GPU's prefill_w, 600 W on "
	                         "an H100)",
	                         0},
	[P_DECODE_POWER_MID] = {"decode_power_mid_batch", IP("decode_power_mid_batch"), AIW_PT_REAL,
	                        "16", "1", 1, 1e6, NULL, 0,
	                        "power_model = batch: the running batch at the curve's midpoint, "
	                        "halfway between its levels",
	                        0},
	[P_DECODE_POWER_WIDTH] = {"decode_power_width", IP("decode_power_width"), AIW_PT_REAL, "1",
	                          "1", 0.01, 100, NULL, 0,
	                          "power_model = batch: the curve's scale in doublings of the batch "
	                          "(from the midpoint, e^-1 of the way to a level per width)",
	                          0},
	[P_POWER_CAP] = {"power_cap", IP("power_cap"), AIW_PT_POWER, NULL, "W", 1, 1e5, NULL,
	                 AIW_PF_NONE,
	                 "a power cap per GPU (nvidia-smi -pl; none: uncapped): a phase drawing "
	                 "more runs its clock at f = ((cap - floor) / (draw - floor))^(1/3) and "
	                 "draws the cap, its compute terms (GEMM, attention) 1/f longer, its memory, "
	                 "communication and host terms as they were (timing = iteration; "
	                 "doc/inference.md, \"Power capping\")",
	                 0},
	[P_POWER_CAP_FLOOR] = {"power_cap_floor", IP("power_cap_floor"), AIW_PT_POWER, NULL, "W",
	                       0, 1e5, NULL, AIW_PF_NONE,
	                       "power_cap: the static power that the clock does not scale, below "
	                       "the cap (none: the GPU's idle_w)",
	                       0},
	[P_DISAGG] = {"disaggregation", IP("disaggregation"), AIW_PT_ENUM, "off", "", 0, 2,
	              "off|prefill|decode", 0,
	              "prefill/decode disaggregation (Splitwise, DistServe): prefill, this fleet "
	              "is a prefill pool whose replicas prefill each request and give its first "
	              "token, then send its KV cache to the decode pool decode_fleet; decode, this "
	              "fleet is a decode pool, fed by a prefill pool only (its traffic is not "
	              "drawn); off, a replica does both (needs continuous batching, service unset, "
	              "chunked_prefill, speculative and sessions off)",
	              0},
	[P_DECODE_FLEET] = {"decode_fleet", IP("decode_fleet"), AIW_PT_STRING, NULL, "", 0, 0, NULL,
	                    AIW_PF_NONE,
	                    "disaggregation = prefill: the NAME of the [inference NAME] section, "
	                    "with disaggregation = decode, that decodes this pool's requests",
	                    0},
	[P_KV_LINK] = {"kv_link", IP("kv_link"), AIW_PT_STRING, "IB-NDR", "", 0, 0, NULL, 0,
	               "disaggregation = prefill: the catalog link a KV cache moves over, one per "
	               "GPU of the prefill replica, each sending its tensor-parallel share (a "
	               "transfer of B bytes takes alpha + B / (gpus_per_replica x bw); no contention "
	               "between transfers)",
	               0},
	[P_KV_OVERLAP] = {"kv_transfer_overlap", IP("kv_transfer_overlap"), AIW_PT_ENUM, "off", "",
	                  0, 1, "off|on", 0,
	                  "disaggregation = prefill: on, the KV cache is sent layer by layer as the "
	                  "prefill computes it (DistServe, Splitwise), so that only max(B / (L bw), "
	                  "B / bw - (L - 1) / L x prefill time) is left after the prefill ends (L "
	                  "layers); off, the whole transfer follows the prefill",
	                  0},
	[P_BUDGET_PRIORITY] = {"budget_priority", IP("budget_priority"), AIW_PT_INT, "0", "1", -1e6,
	                       1e6, NULL, 0,
	                       "site.gpu_budget with budget_rule = priority: this fleet's rank "
	                       "for the room left (higher first; equals in scenario order)",
	                       0},
	[P_BUDGET_WEIGHT] = {"budget_weight", IP("budget_weight"), AIW_PT_REAL, "1", "1", 0, 1e6,
	                     NULL, AIW_PF_EXCL_MIN,
	                     "site.gpu_budget with budget_rule = weighted: this fleet's weight in "
	                     "the max-min fair share of the room left",
	                     0},
	[P_BATCH_REQUESTS] = {"batch_requests", IP("batch_requests"), AIW_PT_INT, "1000", "1", 1,
	                      1e9, NULL, 0,
	                      "traffic = batch: requests of the offline job (their sizes drawn "
	                      "from prompt_tokens and output_tokens)",
	                      0},
	[P_BATCH_START] = {"batch_start", IP("batch_start"), AIW_PT_DURATION, "0", "s", 0, 3.2e9,
	                   NULL, 0, "traffic = batch: the time the job's requests are all available",
	                   0},
	[P_BATCH_DEADLINE] = {"batch_deadline", IP("batch_deadline"), AIW_PT_DURATION, NULL, "s", 0,
	                      3.2e9, NULL, AIW_PF_NONE,
	                      "traffic = batch: the time (since the run's start) the job must be "
	                      "done by: batch_deadline_met, batch_lateness_s and the work done by "
	                      "then (none: no deadline)",
	                      0},
	[P_ITER_COEF + 0] = {"prefill.overhead", IP("prefill.overhead"), AIW_PT_REAL, NULL, "s", -1e9, 1e9,
	                       NULL, AIW_PF_NONE,
	                       "timing = iteration, prefill: fixed cost of an iteration (scheduling, launches) (none: the profile's fit, else the datasheet)",
	                       0},
	[P_ITER_COEF + 1] = {"prefill.gemm", IP("prefill.gemm"), AIW_PT_REAL, NULL, "1", -1e9, 1e9,
	                       NULL, AIW_PF_NONE,
	                       "timing = iteration, prefill: multiplier of the GEMM FLOPs' time at the peak (1 / efficiency) (none: the profile's fit, else the datasheet)",
	                       0},
	[P_ITER_COEF + 2] = {"prefill.attn", IP("prefill.attn"), AIW_PT_REAL, NULL, "1", -1e9, 1e9,
	                       NULL, AIW_PF_NONE,
	                       "timing = iteration, prefill: multiplier of the attention FLOPs' time at the BF16 peak (none: the profile's fit, else the datasheet)",
	                       0},
	[P_ITER_COEF + 3] = {"prefill.mem", IP("prefill.mem"), AIW_PT_REAL, NULL, "1", -1e9, 1e9,
	                       NULL, AIW_PF_NONE,
	                       "timing = iteration, prefill: multiplier of the weight and KV bytes' time at mem_bw (none: the profile's fit, else the datasheet)",
	                       0},
	[P_ITER_COEF + 4] = {"prefill.comm", IP("prefill.comm"), AIW_PT_REAL, NULL, "1", -1e9, 1e9,
	                       NULL, AIW_PF_NONE,
	                       "timing = iteration, prefill: multiplier of the tensor-parallel all-reduces' time (none: the profile's fit, else the datasheet)",
	                       0},
	[P_ITER_COEF + 5] = {"prefill.seq", IP("prefill.seq"), AIW_PT_REAL, NULL, "s", -1e9, 1e9,
	                       NULL, AIW_PF_NONE,
	                       "timing = iteration, prefill: host work per sequence of an iteration (scheduling, sampling, detokenising) (none: the profile's fit, else the datasheet)",
	                       0},
	[P_ITER_COEF + 6] = {"decode.overhead", IP("decode.overhead"), AIW_PT_REAL, NULL, "s", -1e9, 1e9,
	                       NULL, AIW_PF_NONE,
	                       "timing = iteration, decode: fixed cost of an iteration (scheduling, launches) (none: the profile's fit, else the datasheet)",
	                       0},
	[P_ITER_COEF + 7] = {"decode.gemm", IP("decode.gemm"), AIW_PT_REAL, NULL, "1", -1e9, 1e9,
	                       NULL, AIW_PF_NONE,
	                       "timing = iteration, decode: multiplier of the GEMM FLOPs' time at the peak (1 / efficiency) (none: the profile's fit, else the datasheet)",
	                       0},
	[P_ITER_COEF + 8] = {"decode.attn", IP("decode.attn"), AIW_PT_REAL, NULL, "1", -1e9, 1e9,
	                       NULL, AIW_PF_NONE,
	                       "timing = iteration, decode: multiplier of the attention FLOPs' time at the BF16 peak (none: the profile's fit, else the datasheet)",
	                       0},
	[P_ITER_COEF + 9] = {"decode.mem", IP("decode.mem"), AIW_PT_REAL, NULL, "1", -1e9, 1e9,
	                       NULL, AIW_PF_NONE,
	                       "timing = iteration, decode: multiplier of the weight and KV bytes' time at mem_bw (none: the profile's fit, else the datasheet)",
	                       0},
	[P_ITER_COEF + 10] = {"decode.comm", IP("decode.comm"), AIW_PT_REAL, NULL, "1", -1e9, 1e9,
	                       NULL, AIW_PF_NONE,
	                       "timing = iteration, decode: multiplier of the tensor-parallel all-reduces' time (none: the profile's fit, else the datasheet)",
	                       0},
	[P_ITER_COEF + 11] = {"decode.seq", IP("decode.seq"), AIW_PT_REAL, NULL, "s", -1e9, 1e9,
	                       NULL, AIW_PF_NONE,
	                       "timing = iteration, decode: host work per sequence of an iteration (scheduling, sampling, detokenising) (none: the profile's fit, else the datasheet)",
	                       0},
	AIW_COST_PARAM_DEFS("inference"),
	AIW_TOKEN_PRICE_PARAM_DEFS("inference"),
	AIW_AUTOSCALE_PARAM_DEFS("inference"),
};
#undef IP
_Static_assert(sizeof aiwi_inference_params / sizeof *aiwi_inference_params == P_NPARAMS,
               "parameter table and enum disagree");

/* Parameters that have an effect only in some modes (aiwi_param_mode): a
 * given one outside them is warned of.  Under timing = iteration the span
 * times come from the iteration model's coefficients, not from the
 * derated peaks; the autoscalers read target_utilization on metric =
 * utilization alone, target_value on the others (the KPA on every metric:
 * utilization is concurrency to it); each policy reads its own settings
 * only (below). */
const aiwi_param_mode aiwi_inference_modes[] = {
	{"batch_requests", "traffic=batch"},
	{"batch_start", "traffic=batch"},
	{"batch_deadline", "traffic=batch"},
	{"mfu", "timing=roofline"},
	{"mem_bw_efficiency", "timing=roofline"},
	{"max_num_batched_tokens", "chunked_prefill=on"},
	{"long_prefill_token_threshold", "chunked_prefill=on"},
	{"decode_power_low", "power_model=batch"},
	{"decode_power_high", "power_model=batch"},
	{"decode_power_mid_batch", "power_model=batch"},
	{"decode_power_width", "power_model=batch"},
	{"gpu_mtbf", "replica_failures=on"},
	{"replica_failure_rate", "replica_failures=on"},
	{"repair_time", "replica_failures=on"},
	{"failure_requests", "replica_failures=on"},
	{"hot_spares", "replica_failures=on"},
	{"speculative_tokens", "speculative=draft|heads"},
	{"acceptance_rate", "speculative=draft|heads"},
	{"acceptance_dist", "speculative=draft|heads"},
	{"draft_params", "speculative=draft"},
	{"draft_layers", "speculative=draft"},
	{"draft_cost", "speculative=heads"},
	{"experts", "moe=on"},
	{"experts_per_token", "moe=on"},
	{"shared_experts", "moe=on"},
	{"expert_params", "moe=on"},
	{"active_params", "moe=on"},
	{"moe_layers", "moe=on"},
	{"ep", "moe=on"},
	{"moe_imbalance", "moe=on"},
	{"moe_alltoall", "moe=on"},
	{"prefix_caching", "sessions=on"},
	{"decode_fleet", "disaggregation=prefill"},
	{"kv_link", "disaggregation=prefill"},
	{"kv_transfer_overlap", "disaggregation=prefill"},
	{"traffic", "disaggregation=off|prefill"},
	{"rate", "disaggregation=off|prefill"},
	{"session_turns", "sessions=on"},
	{"think_time", "sessions=on"},
	{"system_prompts", "sessions=on"},
	{"system_prompt_tokens", "sessions=on"},
	{"system_prompt_zipf", "sessions=on"},
	{"target_utilization", "autoscaler=hpa|predictive metric=utilization"},
	{"target_value", "autoscaler=hpa|predictive "
	                 "metric=concurrency|queue|rps|queued_prompt_tokens|kv_occupancy; autoscaler=kpa"},
	/* each policy's own settings (its .params: hpa.c, kpa.c, predictive.c,
	 * schedule.c); the replica bounds and the metric are not read by a
	 * schedule, whose table gives the replicas; metric_interval is the
	 * scrape of the concurrency ring (aiwi_as_start_scrape) */
	{"min_replicas", "autoscaler=hpa|kpa|predictive"},
	{"max_replicas", "autoscaler=hpa|kpa|predictive"},
	{"metric", "autoscaler=hpa|kpa|predictive"},
	{"metric_interval", "autoscaler=kpa; autoscaler=hpa|predictive "
	                    "metric=concurrency|queued_prompt_tokens|kv_occupancy"},
	{"hpa_sync_period", "autoscaler=hpa|predictive"},
	{"hpa_tolerance", "autoscaler=hpa|predictive"},
	{"hpa_upscale_stabilization", "autoscaler=hpa|predictive"},
	{"hpa_downscale_stabilization", "autoscaler=hpa|predictive"},
	{"hpa_scale_up_pods", "autoscaler=hpa|predictive"},
	{"hpa_scale_up_percent", "autoscaler=hpa|predictive"},
	{"hpa_scale_up_select", "autoscaler=hpa|predictive"},
	{"hpa_scale_down_pods", "autoscaler=hpa|predictive"},
	{"hpa_scale_down_percent", "autoscaler=hpa|predictive"},
	{"hpa_scale_down_select", "autoscaler=hpa|predictive"},
	{"hpa_policy_period", "autoscaler=hpa|predictive"},
	{"kpa_target_utilization", "autoscaler=kpa"},
	{"kpa_stable_window", "autoscaler=kpa"},
	{"kpa_panic_window", "autoscaler=kpa"},
	{"kpa_panic_threshold", "autoscaler=kpa"},
	{"kpa_max_scale_up_rate", "autoscaler=kpa"},
	{"kpa_max_scale_down_rate", "autoscaler=kpa"},
	{"kpa_scale_to_zero_grace", "autoscaler=kpa"},
	{"kpa_tick", "autoscaler=kpa"},
	{"kpa_scale_down_delay", "autoscaler=kpa"},
	{"predictive_source", "autoscaler=predictive"},
	{"predictive_smoothing", "autoscaler=predictive"},
	{"predictive_bin", "autoscaler=predictive predictive_source=history"},
	{"predictive_lead", "autoscaler=predictive"},
	{"predictive_capacity", "autoscaler=predictive"},
	{"predictive_headroom", "autoscaler=predictive"},
	{"schedule", "autoscaler=schedule"},
	{"hpa_scale_up_policies", "autoscaler=hpa|predictive"},
	{"hpa_scale_down_policies", "autoscaler=hpa|predictive"},
	{"hpa_tolerance_up", "autoscaler=hpa|predictive"},
	{"hpa_tolerance_down", "autoscaler=hpa|predictive"},
	{"hpa_behavior", "autoscaler=hpa|predictive"},
	{"kpa_activation_scale", "autoscaler=kpa"},
	{"kpa_unreachable", "autoscaler=kpa"},
	{"hpa_legacy_up_factor", "autoscaler=hpa|predictive"},
	{"hpa_legacy_up_minimum", "autoscaler=hpa|predictive"},
	{"hpa_cpu_initialization_period", "autoscaler=hpa|predictive"},
	{"hpa_initial_readiness_delay", "autoscaler=hpa|predictive"},
	{"kpa_scale_to_zero_pod_retention", "autoscaler=kpa"},
	{"kpa_target_burst_capacity", "autoscaler=kpa"},
	{"kpa_progress_deadline", "autoscaler=kpa"},
	{"kpa_reconciler", "autoscaler=kpa"},
	{NULL, NULL},
};
