/*
 * serving.c - the inference fleet ([inference NAME]): arrivals (traffic.c),
 * a router, replicas that batch requests and hold their KV cache, latency
 * histograms (stats.c), power by replica phase, cost.
 *
 * Service time, timing = roofline: a roofline per iteration
 * (Williams, Waterman & Patterson 2009) on a replica of g tensor-parallel
 * GPUs (communication not modelled):
 *   prefill of T prompt tokens: max(2 P T / F, W / B)      (compute-bound)
 *   decode iteration of n requests holding S context tokens:
 *                               max(2 P n / F, (W + k S) / B) (memory-bound)
 * with P parameters, W = P weight_bits/8 weight bytes, k KV bytes per token
 * (2 layers kv_heads head_dim kv_bits/8), F = g peak_flops mfu (FP8 peak
 * when weight_bits <= 8 and the GPU has FP8, else BF16), B = g mem_bw
 * mem_bw_efficiency.  The attention FLOPs (quadratic in a prompt's length)
 * do not enter the roofline's times; they are counted in the FLOPs done
 * (prefill_flops, span_flops: compute_utilization).  timing = iteration,
 * the default: the per-iteration model
 * (iteration.h: GEMMs at the catalog's efficiency, attention FLOPs, bytes,
 * 2 TP all-reduces per layer with the collective model, a fixed cost per
 * iteration), with datasheet, profile-fitted or set coefficients, on the
 * same span maths (span.h, fleet_timing.c); with speculative decoding
 * (speculative = draft | heads, fleet_timing.c's spec_setup) a decode
 * iteration is a token of every sequence, 1 / E of a verification step of
 * k + 1 tokens and k draft tokens.  Or `service = DIST`: every request holds a
 * batch slot for a sampled time (queueing validation, M/G/c); there are no
 * iterations, no KV cache, token counts come from a trace only, and the
 * response arrives whole (TTFT = end-to-end latency).
 *
 * Batching:
 *  - none: one request at a time per replica.
 *  - dynamic (Triton's dynamic batcher): when the replica is free, a batch
 *    starts as soon as max_batch requests wait or the oldest has waited
 *    max_queue_delay; it is prefilled together, decodes in lock step,
 *    requests leave as they finish, and no request joins until the batch is
 *    empty.  KV is reserved for each request's full length (prompt +
 *    output), so it never overflows.
 *  - continuous (iteration-level, Orca / vLLM v0 scheduling): at every
 *    iteration boundary waiting requests are admitted while the batch is
 *    under max_batch and the KV cache can hold them (their context plus one
 *    more token for every request of the batch); admitted prompts are
 *    prefilled whole in one iteration of their own that also yields their
 *    first token (running requests do not decode during it), then every
 *    running request emits one token per decode iteration.  KV is allocated
 *    as tokens are generated; when the next iteration would not fit, the
 *    most recently admitted request is preempted (vLLM's recompute mode:
 *    its KV is freed, it goes back to the front of the replica's queue and
 *    later re-prefills its prompt plus the tokens already streamed).
 *    Preemptions are counted.  KV capacity = g mem (1 - kv_margin) - W.
 *
 * Events are per span, never per token or iteration: a span is the
 * prefill of what was just admitted followed by the decode iterations up to
 * the next change of the batch (departure, KV exhaustion), whose times form
 * an arithmetic series summed (and inverted) in closed form.  An arrival
 * for a busy replica cuts its span at the next iteration boundary, where it
 * is admitted; with continuous batching the cut does that boundary's work
 * at the arrival (eager cuts: fleet.h, fleet_eager.c), so that the boundary
 * is no event.
 * The pending span ends of all replicas sit in a winner tree, and the next
 * arrival beside it, behind one engine event, the master (cuts move an
 * entry instead of cancelling one).  A request costs two scheduled events
 * (its arrival and the span end where it leaves; three when its admission
 * stays an event), about two tree updates and four histogram adds.  The
 * master runs every one of them that comes before all other pending events
 * of the sim in place (aiwi_engine_run_inline: counted as scheduled, same
 * order, same bits), so that under load the engine sees little more than
 * the sample ticks.  Equal times: span ends run before the arrival.
 * Time follows mispredicted branches and cache misses more than
 * instructions: the tree recomputes its whole path with selects (more
 * instructions than stopping early, less time), the histograms find a
 * bucket from the bits of the value (stats.h), the master decides span end
 * or arrival with one branch, the running requests are a sorted array whose
 * insertion point a count of the keys below finds (loads independent of
 * one another, unlike a binary search's; a heap past RUN_SORTED entries),
 * the requests a span end completes are fetched ahead, and the generator is the library's MT19937 (rng.h), whose
 * refill does not branch on random bits as GSL's does (doc/inference.md,
 * "Speed"; the measured history in doc/perf-log.md).
 * The prefill part of a span is accounted at decode power plus the prefill
 * surcharge booked when the span starts; samples take back the part still
 * ahead of them, so energy, tokens and FLOPs are exact at every sample.
 * Memory is O(replicas + requests in flight): requests are pooled (32 B),
 * latencies go to fixed-size histograms (stats.c), and the request-size
 * tables take 8 bytes per count up to the 1 - 1e-2 quantile (at most
 * SIZE_TABLE_MAX entries, 0.5 MB; 63 KB for the default sizes).
 *
 * Routing: round_robin, least_loaded (fewest outstanding requests, O(1)
 * with count buckets; ties in turn), p2c (power of two choices, Mitzenmacher
 * 2001), central (one FIFO queue at the router that replicas pull from when
 * they can admit: the M/M/c discipline), affinity (a conversation's turn to
 * the replica of its previous one while ready, else least_loaded) and
 * kv_aware (fewest KV tokens held and queued; fleet_prefix.c).  Requests
 * wait at the router while no replica is ready.
 *
 * Every request ends completed or dropped (timeout: waited longer than
 * `timeout` before its first admission -- once admitted it is not timed out,
 * preempted or not; queue_full: its queue held queue_limit requests;
 * kv_too_large: prompt + output cannot fit in an empty replica's KV cache);
 * at any time arrived = completed + dropped + in flight exactly.  SLO
 * attainment counts the requests that completed within every objective set
 * over all that ended (completed + dropped); goodput is their rate.
 *
 * Power by replica phase (per GPU, from the catalog): loading, idle,
 * decode (service mode counts as decode; a span's prefill is decode power
 * plus the prefill surcharge booked ahead, fleet.h), plus node_overhead /
 * gpus_per_node per provisioned GPU (node overhead charged pro rata, as if
 * replicas were packed densely into nodes).  Integrals are kept from
 * integer counts of replicas per phase, so they are exact and do not drift.
 * Racks: replica slot s holds GPUs [s g, s g + g) of the component, packed
 * into racks of site.gpus_per_rack (a replica may straddle two racks, its
 * power split by GPUs).  Utilisation: the busy fraction (a replica with a
 * request in its batch is busy) and, as compute_utilization, the FLOPs done
 * over the peak FLOP/s of the GPUs paid for.
 *
 * Random streams: arrivals draw from the component's stream; request sizes
 * and service times, p2c choices, and cold starts each from a stream seeded
 * from it, so that one changing leaves the others' draws alone; with
 * sessions = on, the conversations (turns, think times, follow-up sizes,
 * system prompts) from a fourth, seeded after those three.
 *
 * Files: this one is the component (the kind's hooks: start, samples,
 * finish, metrics; the kind's definition) and the one translation unit of
 * the model: it includes, in order, fleet.h (state, state machine,
 * invariants), fleet_pool.c (requests, queues, running sets),
 * fleet_energy.c (accounting), fleet_sets.c (ready, least-loaded, idle and
 * free sets), fleet_agenda.c (the winner tree and the master event's
 * scheduling), fleet_admit.c (request ends, admission, span starts),
 * fleet_chunk.c (chunked prefill's mixed iterations), fleet_prefix.c
 * (conversations and the prefix cache),
 * fleet_eager.c (eager cuts), fleet_events.c (the event handlers),
 * fleet_route.c (routing, arrivals), fleet_lifecycle.c (add, remove, fail
 * replicas), fleet_timing.c (timing = iteration's span terms), serving_api.c (serving.h) and fleet_check.c (invariants, in a
 * checking build).  span.h holds the span maths (the roofline's and
 * the iteration model's), serving_params.c the
 * parameter table, metrics.c the kind's metric, curve and histogram
 * tables, estimate.c its work estimate; doc/inference.md describes the
 * whole.
 */
#include "inference/fleet.h"

#include "inference/fleet_pool.c"
#include "inference/fleet_energy.c"
#include "inference/fleet_sets.c"
#include "inference/fleet_agenda.c"
#include "inference/fleet_prefix.c"
#include "inference/fleet_admit.c"
#include "inference/fleet_chunk.c"
#include "inference/fleet_eager.c"
#include "inference/fleet_events.c"
#include "inference/fleet_route.c"
#include "inference/fleet_lifecycle.c"
#include "inference/fleet_failure.c"
#include "inference/fleet_timing.c"
#include "inference/fleet_disagg.c"
#include "inference/fleet_budget.c"

/* ======================================================================== */
/* the component                                                             */
/* ======================================================================== */
extern const aiwi_kind aiwi_kind_inference; /* the kind, below */

bool aiwi_serving_active(const aiwi_comp *c)
{
	return c && c->kind == &aiwi_kind_inference && c->state;
}

static void emit_metrics(aiwi_comp *c, double t, const fleet_at *at);

/* The serving engine's own batch limit when max_batch is not given.
 * Continuous batching is vLLM's: its V1 engine's default max_num_seqs,
 * for the OpenAI API server as for the LLM class, is 1024 on a GPU with at
 * least 70 GiB of memory whose name does not contain "a100" (H100, H200,
 * MI300X...) and 256 on the others, each capped by max_num_batched_tokens
 * (8192 and 2048 there: no cap) (vllm/engine/arg_utils.py,
 * EngineArgs._set_default_args, vllm-project/vllm commit 99d7eb5d6a51;
 * the A100 is excluded because a larger token budget lowered its
 * throughput, vLLM PR 17885).  Dynamic batching (Triton) has no engine
 * default (max_batch_size is the model's configuration): 32, as for
 * batching = none, where it does not apply. */
#define VLLM_LARGE_GPU_BYTES (70.0 * 1073741824.0)
#define VLLM_MAX_NUM_SEQS_LARGE 1024u
#define VLLM_MAX_NUM_SEQS 256u
#define DYNAMIC_MAX_BATCH 32u
static uint32_t default_max_batch(const aiwi_comp *c, const aiwi_gpu_spec *g)
{
	if ((int)aiwi_p(c, P_BATCHING) != B_CONTINUOUS)
		return DYNAMIC_MAX_BATCH;
	bool a100 = false;
	for (const char *p = g->name ? g->name : ""; *p && !a100; p++)
		a100 = (p[0] == 'a' || p[0] == 'A') && p[1] == '1' && p[2] == '0' && p[3] == '0';
	return g->mem_bytes >= VLLM_LARGE_GPU_BYTES && !a100
	               ? VLLM_MAX_NUM_SEQS_LARGE
	               : VLLM_MAX_NUM_SEQS;
}

/* power_cap: the power-performance law of a capped GPU.  Its power is a
 * static floor s that the clock does not scale and a dynamic part that
 * scales as f^3 (f the clock over its uncapped one: P_dyn ~ C V^2 f with
 * the voltage following the clock), P(f) = s + (D - s) f^3 for a phase
 * drawing D uncapped; under a cap c < D the clock falls to
 * f = ((c - s) / (D - s))^(1/3) and the phase draws c.  Only the phase's
 * compute-bound terms (GEMM, attention) take 1/f longer: HBM runs on its
 * own clock, the links and the host are not slowed (fleet_timing.c); a
 * phase drawing less than the cap keeps its clock.  The floor defaults to
 * the GPU's idle_w.  doc/inference.md, "Power capping". */
static aiw_status cap_setup(aiwi_comp *c, fleet *f)
{
	aiw_sim *sim = c->sim;
	f->clock_prefill = f->clock_decode = 1;
	f->capped = aiwi_pset(c, P_POWER_CAP);
	if (!f->capped)
		return AIW_OK;
	f->cap_w = aiwi_p(c, P_POWER_CAP);
	f->cap_floor_w = aiwi_pset(c, P_POWER_CAP_FLOOR) ? aiwi_p(c, P_POWER_CAP_FLOOR) : f->gpu.idle_w;
	if (f->service_mode || (int)aiwi_p(c, P_TIMING) != TIMING_ITERATION)
		return aiwi_err(sim, AIW_EINVAL,
		                "%s.power_cap needs timing = iteration and no service: the cap slows "
		                "the iteration model's compute terms",
		                c->prefix);
	if (!(f->cap_floor_w < f->cap_w))
		return aiwi_err(sim, AIW_EINVAL,
		                "%s.power_cap = %g W is not above its static floor power_cap_floor = "
		                "%g W: the range is (power_cap_floor, 1e5] W",
		                c->prefix, f->cap_w, f->cap_floor_w);
	double s = f->cap_floor_w, cap = f->cap_w;
	if (f->gpu.prefill_w > cap)
		f->clock_prefill = cbrt((cap - s) / (f->gpu.prefill_w - s));
	if (f->gpu.decode_w > cap)
		f->clock_decode = cbrt((cap - s) / (f->gpu.decode_w - s));
	return AIW_OK;
}

static aiw_status inference_start(aiwi_comp *c)
{
	aiwi_rng_exp_init();
	aiw_sim *sim = c->sim;
	fleet *f = calloc(1, sizeof *f);
	if (!f)
		return aiwi_err(sim, AIW_ENOMEM, "out of memory");
	c->state = f;
	f->comp = c;
	f->sim = sim;
	f->engine = aiwi_sim_engine(sim);
	f->free_head = NIL;
	q_init(&f->central);
	f->spot_factor = 1;
	f->master_time = INFINITY;
	f->arrival_time = INFINITY;
	f->top_key = NONE;
	const aiwi_gpu_spec *gs = NULL;
	aiw_status gst = aiwi_hw_gpu_get(sim, aiwi_ps(c, P_GPU), &gs);
	if (gst != AIW_OK) { /* named as training.c names it */
		char msg[700];
		snprintf(msg, sizeof msg, "%s", aiw_sim_errmsg(sim));
		return aiwi_err(sim, gst, "%s.gpu = %s: %s", c->prefix, aiwi_ps(c, P_GPU), msg);
	}
	f->gpu = *gs;
	aiw_status st = aiwi_cost_pricing(c, P_COST, &f->gpu, &f->price);
	if (st != AIW_OK)
		return st;
	f->batching = (int)aiwi_p(c, P_BATCHING);
	f->router = (int)aiwi_p(c, P_ROUTER);
	/* an offline job's requests all come at once: routed to the replicas
	 * of that instant, those added later would get none; the central
	 * queue dispatches them as replicas free up (fleet_budget.c) */
	if ((int)aiwi_p(c, P_TRAFFIC) == AIW_TRAFFIC_BATCH && !aiwi_pgiven(c, P_ROUTER))
		f->router = RT_CENTRAL;
	f->service_mode = aiwi_pset(c, P_SERVICE);
	f->replica_gpus = aiwi_p(c, P_GPUS_PER_REPLICA);
	double pp = aiwi_p(c, P_PP);
	if (fmod(f->replica_gpus, pp) != 0)
		return aiwi_err(sim, AIW_EINVAL,
		                "%s.pp = %g does not divide %s.gpus_per_replica = %g: every one of "
		                "the pp pipeline stages holds gpus_per_replica / pp GPUs (allowed: a "
		                "divisor of %g)",
		                c->prefix, pp, c->prefix, f->replica_gpus, f->replica_gpus);
	f->model_params = aiwi_p(c, P_MODEL_PARAMS);
	f->weight_bytes = f->model_params * aiwi_p(c, P_WEIGHT_BITS) / 8;
	f->kv_bytes_per_token = aiwi_pset(c, P_KV_BYTES_PER_TOKEN)
	                  ? aiwi_p(c, P_KV_BYTES_PER_TOKEN)
	                  : 2 * aiwi_p(c, P_LAYERS) * aiwi_p(c, P_KV_HEADS) * aiwi_p(c, P_HEAD_DIM) *
	                            aiwi_p(c, P_KV_BITS) / 8;
	double peak = aiwi_p(c, P_WEIGHT_BITS) <= 8 && f->gpu.fp8_flops > 0 ? f->gpu.fp8_flops
	                                                                   : f->gpu.bf16_flops;
	f->flops_per_s = f->replica_gpus * peak * aiwi_p(c, P_MFU);
	f->bytes_per_s = f->replica_gpus * f->gpu.mem_bw * aiwi_p(c, P_MEM_BW_EFF);
	f->weights_read_s = f->weight_bytes / f->bytes_per_s;
	f->prefill_s_per_token = 2 * f->model_params / f->flops_per_s;
	f->kv_s_per_token = f->kv_bytes_per_token / f->bytes_per_s;
	double usable = f->replica_gpus * f->gpu.mem_bytes * (1 - aiwi_p(c, P_KV_MARGIN));
	f->kv_capacity_tokens = floor((usable - f->weight_bytes) / f->kv_bytes_per_token);
	if ((st = spec_setup(c, f)) != AIW_OK)
		return st;
	if ((st = moe_setup(c, f)) != AIW_OK)
		return st;
	if (!f->service_mode && !(f->kv_capacity_tokens >= 2))
		return aiwi_err(sim, AIW_ERANGE,
		                "%s: weights of %.4g GB (model_params %g at weight_bits %g) do not fit "
		                "with room for a KV cache in gpus_per_replica = %g x %.4g GB (%s) less "
		                "kv_margin %g; raise gpus_per_replica or lower weight_bits",
		                c->prefix, f->weight_bytes / 1e9, f->model_params, aiwi_p(c, P_WEIGHT_BITS), f->replica_gpus,
		                f->gpu.mem_bytes / 1e9, f->gpu.name, aiwi_p(c, P_KV_MARGIN));
	f->gpus_per_rack = aiwi_site_gpus_per_rack(sim);
	f->max_batch = aiwi_pset(c, P_MAX_BATCH) ? (uint32_t)aiwi_p(c, P_MAX_BATCH)
	                                         : default_max_batch(c, &f->gpu);
	f->max_delay = aiwi_p(c, P_MAX_QUEUE_DELAY);
	f->timeout = aiwi_pset(c, P_TIMEOUT) ? aiwi_p(c, P_TIMEOUT) : INFINITY;
	f->queue_limit = aiwi_pset(c, P_QUEUE_LIMIT) ? (uint64_t)aiwi_p(c, P_QUEUE_LIMIT) : UINT64_MAX;
	f->chunked = (int)aiwi_p(c, P_CHUNKED) == 1;
	f->chunk_budget = aiwi_pset(c, P_MAX_BATCHED_TOKENS) ? aiwi_p(c, P_MAX_BATCHED_TOKENS)
	                                                    : default_chunk_budget(&f->gpu);
	f->chunk_threshold = f->chunked ? aiwi_p(c, P_LONG_PREFILL) : 0;
	if (f->chunked && (f->batching != B_CONTINUOUS || f->service_mode))
		return aiwi_err(sim, AIW_EINVAL,
		                "%s.chunked_prefill = on needs continuous batching and span times "
		                "(batching = continuous, service unset): it mixes prefill chunks into "
		                "the running decodes' iterations (here batching = %s%s)",
		                c->prefix, f->batching == B_NONE ? "none" : f->batching == B_DYNAMIC ? "dynamic" : "continuous",
		                f->service_mode ? ", service set" : "");
	if (f->chunked && f->chunk_budget < f->max_batch)
		return aiwi_err(sim, AIW_ERANGE,
		                "%s.max_num_batched_tokens = %g is below %s.max_batch = %u: every running "
		                "request takes a token of an iteration (allowed: %u to 1e9, or raise "
		                "max_num_batched_tokens / lower max_batch; vLLM requires "
		                "max_num_batched_tokens >= max_num_seqs)",
		                c->prefix, f->chunk_budget, c->prefix, f->max_batch, f->max_batch);
	/* conversations and prefix caching (fleet_prefix.c) */
	f->sessions = (int)aiwi_p(c, P_SESSIONS) == 1;
	bool pc_on = (int)aiwi_p(c, P_PREFIX_CACHING) == 1;
	f->prefix = f->sessions && pc_on;
	if (pc_on && (f->batching != B_CONTINUOUS || f->service_mode))
		return aiwi_err(sim, AIW_EINVAL,
		                "%s.prefix_caching = on needs continuous batching and span times "
		                "(batching = continuous, service unset): its cache lives in the KV "
		                "memory of a replica's running requests (here batching = %s%s)",
		                c->prefix, f->batching == B_NONE ? "none" : f->batching == B_DYNAMIC ? "dynamic" : "continuous",
		                f->service_mode ? ", service set" : "");
	if (f->sessions && (f->service_mode || (int)aiwi_p(c, P_TRAFFIC) == AIW_TRAFFIC_TRACE))
		return aiwi_err(sim, AIW_EINVAL,
		                "%s.sessions = on needs drawn request sizes (service unset, traffic not "
		                "trace): a turn's prompt is its conversation so far and a new message "
		                "(here %s)",
		                c->prefix, f->service_mode ? "service is set" : "traffic = trace");
	f->batch_power = (int)aiwi_p(c, P_POWER_MODEL) == 1; /* (below) */
	f->eager = eager_possible(f);
	if ((st = cap_setup(c, f)) != AIW_OK || (st = timing_setup(c, f)) != AIW_OK)
		return st;
	if ((st = disagg_setup(c, f)) != AIW_OK)
		return st;
	f->attn_flops_sq = 2 * aiwi_p(c, P_LAYERS) * timing_hidden(c, f->flops_params);
	/* the FLOP figures are FLOPs over the fleet's peak; attention runs at
	 * BF16 (iteration.h), so that under an FP8 peak each of its FLOPs
	 * weighs the tensor-core time of peak / bf16 peak ones (DCGM's tensor
	 * activity counts cycles) */
	if (peak != f->gpu.bf16_flops)
		f->attn_flops_sq *= peak / f->gpu.bf16_flops;
	f->dec_attn_ctx = 2 * f->attn_flops_sq;
	if (f->spec)
		f->dec_attn_ctx *= f->spec_attn_factor;
	f->slo_ttft = aiwi_pset(c, P_SLO_TTFT) ? aiwi_p(c, P_SLO_TTFT) : INFINITY;
	f->slo_tpot = aiwi_pset(c, P_SLO_TPOT) ? aiwi_p(c, P_SLO_TPOT) : INFINITY;
	f->slo_e2e = aiwi_pset(c, P_SLO_E2E) ? aiwi_p(c, P_SLO_E2E) : INFINITY;
	f->response_bytes = aiwi_p(c, P_RESPONSE_BYTES);
	double ovh = f->price.node_overhead_w / aiwi_p(c, P_GPUS_PER_NODE);
	f->watts[PH_OFF] = 0;
	f->watts[PH_LOADING] = f->gpu.loading_w + ovh;
	f->watts[PH_IDLE] = f->gpu.idle_w + ovh;
	f->watts[PH_DECODE] = f->gpu.decode_w + ovh;
	f->prefill_extra_w = f->gpu.prefill_w - f->gpu.decode_w;
	if (f->capped) { /* every phase draws the cap at most (cap_setup) */
		f->watts[PH_LOADING] = fmin(f->gpu.loading_w, f->cap_w) + ovh;
		f->watts[PH_IDLE] = fmin(f->gpu.idle_w, f->cap_w) + ovh;
		f->watts[PH_DECODE] = fmin(f->gpu.decode_w, f->cap_w) + ovh;
		f->prefill_extra_w = fmin(f->gpu.prefill_w, f->cap_w) - fmin(f->gpu.decode_w, f->cap_w);
	}
	/* power_model = batch: the default levels are the ML.ENERGY Benchmark's
	 * H100 decode power, about 300 W at a running batch of 1 and 600 W at
	 * 128 (Chung et al., "The ML.ENERGY Benchmark: Toward Automated
	 * Inference Energy Measurement and Optimization", NeurIPS 2025 Datasets
	 * and Benchmarks, arXiv:2505.06371), as fractions 3/7 and 6/7 of its
	 * 700 W prefill_w (TDP), carried to the other GPUs by their prefill_w
	 * (an estimate: the benchmark measures H100 and B200) */
	if (f->batch_power) {
		if (f->service_mode)
			return aiwi_err(sim, AIW_EINVAL,
			                "%s.power_model = batch needs spans of a running batch: service "
			                "must be unset",
			                c->prefix);
		f->bp_low = aiwi_pset(c, P_DECODE_POWER_LOW) ? aiwi_p(c, P_DECODE_POWER_LOW)
		                                            : f->gpu.prefill_w * 3 / 7;
		f->bp_high = aiwi_pset(c, P_DECODE_POWER_HIGH) ? aiwi_p(c, P_DECODE_POWER_HIGH)
		                                              : f->gpu.prefill_w * 6 / 7;
		f->bp_mid = log2(aiwi_p(c, P_DECODE_POWER_MID));
		f->bp_base = f->capped ? fmin(f->gpu.decode_w, f->cap_w) : f->gpu.decode_w;
		f->bp_width = aiwi_p(c, P_DECODE_POWER_WIDTH);
		if (!(f->bp_high >= f->bp_low))
			return aiwi_err(sim, AIW_EINVAL,
			                "%s.decode_power_high = %g W is below decode_power_low = %g W: "
			                "the range is [decode_power_low, 1e5] W",
			                c->prefix, f->bp_high, f->bp_low);
		if (f->capped && f->bp_high > f->cap_w)
			return aiwi_err(sim, AIW_EINVAL,
			                "%s.power_cap = %g W is below decode_power_high = %g W: a "
			                "decode's slowdown by its batch under the cap is not modelled "
			                "(power_model = batch takes a cap of at least decode_power_high)",
			                c->prefix, f->cap_w, f->bp_high);
	}

	/* traffic */
	aiwi_traffic_conf tc;
	if (!aiwi_serving_traffic_conf(c, &tc))
		return aiwi_err(sim, AIW_EINVAL,
		                "%s.trace_file is not set: traffic = trace needs a CSV file", c->prefix);
	/* sessions: the traffic's arrivals start conversations, rate /
	 * mean(session_turns) of them per second */
	if (f->sessions)
		tc.rate /= aiwi_dist_mean(aiwi_pd(c, P_SESSION_TURNS));
	char e[512];
	st = aiwi_traffic_new(&f->traffic, &tc, e, sizeof e);
	if (st != AIW_OK)
		return aiwi_err(sim, st, "%s", e);

	/* streams: arrivals use c->rng; sizes, routing and the replica lifecycle
	 * have their own, so that changing one leaves the others' draws alone */
	f->rng_size = aiwi_rng_alloc();
	f->rng_route = aiwi_rng_alloc();
	f->rng_life = aiwi_rng_alloc();
	if (!f->rng_size || !f->rng_route || !f->rng_life)
		return aiwi_err(sim, AIW_ENOMEM, "out of memory");
	gsl_rng_set(f->rng_size, gsl_rng_get(c->rng));
	gsl_rng_set(f->rng_route, gsl_rng_get(c->rng));
	gsl_rng_set(f->rng_life, gsl_rng_get(c->rng));
	if (f->sessions) {
		/* the conversations' stream: turns, think times, follow-up
		 * sizes, system prompts (drawn from c->rng after the others: a
		 * run without sessions draws as before) */
		if (!(f->rng_session = aiwi_rng_alloc()))
			return aiwi_err(sim, AIW_ENOMEM, "out of memory");
		gsl_rng_set(f->rng_session, gsl_rng_get(c->rng));
		f->sess_free = NIL;
		f->nsys = (uint32_t)aiwi_p(c, P_SYSTEM_PROMPTS);
		if (f->nsys) {
			double *w = malloc(f->nsys * sizeof *w);
			f->sys_tokens = malloc(f->nsys * sizeof *f->sys_tokens);
			if (!w || !f->sys_tokens) {
				free(w);
				return aiwi_err(sim, AIW_ENOMEM, "out of memory");
			}
			double zs = aiwi_p(c, P_SYSTEM_PROMPT_ZIPF);
			for (uint32_t k = 0; k < f->nsys; k++) {
				w[k] = pow(k + 1.0, -zs);
				f->sys_tokens[k] = aiwi_round_count(
				        aiwi_dist_sample(aiwi_pd(c, P_SYSTEM_PROMPT_TOKENS), f->rng_session));
			}
			f->sys_pick = gsl_ran_discrete_preproc(f->nsys, w);
			free(w);
			if (!f->sys_pick)
				return aiwi_err(sim, AIW_ENOMEM, "out of memory");
		}
	}
	if (f->router == RT_KV && !f->service_mode)
		f->mean_request_tokens = aiwi_dist_mean(aiwi_pd(c, P_PROMPT_TOKENS)) +
		                         aiwi_dist_mean(aiwi_pd(c, P_OUTPUT_TOKENS));
	/* request sizes by table (a trace brings its own) */
	if (!f->service_mode && tc.kind != AIW_TRAFFIC_TRACE &&
	    (aiwi_count_table_new(aiwi_pd(c, P_PROMPT_TOKENS), SIZE_TABLE_MAX, SIZE_TABLE_TAIL, &f->prompt_sizes) != AIW_OK ||
	     aiwi_count_table_new(aiwi_pd(c, P_OUTPUT_TOKENS), SIZE_TABLE_MAX, SIZE_TABLE_TAIL, &f->output_sizes) != AIW_OK))
		return aiwi_err(sim, AIW_ENOMEM, "out of memory");

	/* statistics */
	aiwi_hist *hs[5] = {&f->ttft, &f->ttft_win, &f->tpot, &f->e2e, &f->wait};
	for (int i = 0; i < 5; i++)
		if ((st = aiwi_hist_init(hs[i], AIW_HIST_MIN_S, AIW_HIST_MAX_S, AIW_HIST_REL_ERR, e,
		                        sizeof e)) != AIW_OK)
			return aiwi_err(sim, st, "%s: %s", c->prefix, e);
	f->batch_iterations = calloc((size_t)f->max_batch + 1, sizeof *f->batch_iterations);
	f->admitted = calloc((size_t)f->max_batch, sizeof *f->admitted);
	if (!f->batch_iterations || !f->admitted)
		return aiwi_err(sim, AIW_ENOMEM, "out of memory");

	/* curves */
	struct {
		int *id;
		const char *key, *unit;
	} curves[] = {
		{&f->curve_arrival_rate, "arrival_rate", "1/s"},     {&f->curve_throughput, "throughput", "1/s"},
		{&f->curve_goodput, "goodput_rps", "1/s"},     {&f->curve_ttft_p99, "ttft_p99_s", "s"},
		{&f->curve_queue_length, "queue_length", "1"},      {&f->curve_busy, "busy_replicas", "1"},
		{&f->curve_replicas, "replicas", "1"},          {&f->curve_tokens, "tokens_per_s", "1/s"},
		{&f->curve_response_bytes, "response_bytes_per_s", "B/s"},
		{&f->curve_compute, "compute_utilization", "1"},
		{&f->curve_dram, "dram_activity", "1"},
	};
	for (size_t i = 0; i < sizeof curves / sizeof *curves; i++) {
		char n[256];
		snprintf(n, sizeof n, "%s.%s", c->prefix, curves[i].key);
		if ((*curves[i].id = aiwi_rec_add(sim, n, curves[i].unit)) < 0)
			return (aiw_status)*curves[i].id;
	}

	if (f->prefix) {
		char n[256];
		snprintf(n, sizeof n, "%s.cached_tokens", c->prefix);
		if ((f->curve_cache = aiwi_rec_add(sim, n, "1")) < 0)
			return (aiw_status)f->curve_cache;
	}

	if (!ag_grow(f, 2))
		return aiwi_err(sim, AIW_ENOMEM, "out of memory");
	aiwi_int_init(&f->energy, 0, 0);
	aiwi_int_init(&f->busy, 0, 0);
	aiwi_int_init(&f->paid, 0, 0);
	aiwi_int_init(&f->cost, 0, 0);
	aiwi_int_init(&f->waiting, 0, 0);
	aiwi_int_init(&f->excess, 0, 0);
	aiwi_int_init(&f->stranded, 0, 0);
	if (f->price.commit_gpus >= 0) {
		/* no GPU yet: the whole commitment stranded until replicas come */
		f->stranded.value = f->price.commit_gpus;
		f->cost.value = aiwi_cost_commit_rate(&f->price, 0);
	}

	if ((st = failure_setup(c, f)) != AIW_OK)
		return st;

	/* the initial replicas, ready at t = 0 */
	uint32_t nrep = (uint32_t)aiwi_p(c, P_REPLICAS);
	for (uint32_t i = 0; i < nrep; i++) {
		int s = aiwi_serving_add_replica(c, 0, false);
		if (s < 0)
			return (aiw_status)s;
	}
	c->gpus = f->paid.value;
	/* the autoscaler, if any, takes over the replica count from here */
	if ((st = aiwi_autoscale_start(c, P_AUTOSCALE, &aiwi_serving_port, &f->autoscale)) != AIW_OK)
		return st;
	if ((st = budget_join(c, f)) != AIW_OK)
		return st;
	if ((st = batch_setup(c, f)) != AIW_OK)
		return st;

	/* the first arrival */
	f->next_prompt = f->next_output = NAN;
	f->ahead_times = malloc(ABUF * sizeof *f->ahead_times);
	if (!f->ahead_times)
		return aiwi_err(sim, AIW_ENOMEM, "%s: out of memory", c->prefix);
	if (AIW_UNLIKELY(f->disagg == DIS_DECODE)) {
		/* a decode pool's requests come from its prefill pool only */
		ag_sync(f);
		return f->fail ? AIW_ENOMEM : AIW_OK;
	}
	arrivals_ahead(f, 0);
	double t = next_arrival(f, 0);
	sizes_ahead(f);
	if (isnan(t))
		return aiwi_err(sim, AIW_EIO, "%s: %s", c->prefix, aiwi_traffic_errmsg(f->traffic));
	f->arrival_time = isfinite(t) ? t : INFINITY;
	ag_sync(f);
	return f->fail ? AIW_ENOMEM : AIW_OK;
}

/* Bring the integrals and the component's figures to t; *at gets the
 * fleet's totals there. */
static void bring_to(aiwi_comp *c, double t, fleet_at *at)
{
	fleet *f = F_(c);
	purge_all(f, t);
	advance(f, t);
	aiwi_int_advance(&f->waiting, t);
	totals_at(f, t, at);
	c->energy_j = at->energy;
	c->busy_gpu_s = f->busy.sum;
	c->paid_gpu_s = f->paid.sum;
	c->cost_usd = f->cost.sum;
	c->gpus = f->paid.value;
	if (f->price.commit_gpus >= 0) {
		c->excess_gpu_s = f->excess.sum;
		c->excess_usd = f->excess.sum * f->price.ondemand_usd_per_gpu_s;
		c->stranded_gpu_s = f->stranded.sum;
		c->stranded_usd = f->stranded.sum * f->price.usd_per_gpu_s;
	}
	/* telemetry: a replica with work in its batch runs kernels all the
	 * time (continuous batching keeps it launching them); FLOPs as
	 * compute_utilization counts them */
	c->kbusy_gpu_s = f->busy.sum;
	c->flops = at->flops;
	if (!f->service_mode)
		c->peak_flop_s = f->flops_per_s / f->replica_gpus / aiwi_p(c, P_MFU);
}

static void inference_sample(aiwi_comp *c, double t)
{
	fleet *f = F_(c);
	if (!f)
		return;
	aiw_sim *sim = c->sim;
	eager_settle_all(f, t);
	fleet_at at;
	bring_to(c, t, &at);
	double w_ahead = 0;
	eager_waiting(f, t, &w_ahead);
	double wsum = f->waiting.sum - w_ahead; /* as the boundary events would have it */
	double dt = aiwi_rec_dt(sim);
	double tok = at.tokens, fl = at.flops, dr = at.dram;
	double peak_gpu = f->flops_per_s / f->replica_gpus / aiwi_p(c, P_MFU); /* FLOP/s of one GPU */
	double ttft99 = aiwi_hist_quantile(&f->ttft_win, 0.99);
	aiwi_hist_merge(&f->ttft, &f->ttft_win);
	aiwi_hist_reset(&f->ttft_win);
	if (dt > 0) {
		aiwi_rec_put(sim, f->curve_arrival_rate, (double)(f->arrived - f->prev_arrived) / dt);
		aiwi_rec_put(sim, f->curve_throughput, (double)(f->completed - f->prev_completed) / dt);
		aiwi_rec_put(sim, f->curve_goodput, (double)(f->met_all - f->prev_met) / dt);
		aiwi_rec_put(sim, f->curve_queue_length, (wsum - f->prev_waiting) / dt);
		aiwi_rec_put(sim, f->curve_busy, (f->busy.sum - f->prev_busy) / f->replica_gpus / dt);
		aiwi_rec_put(sim, f->curve_replicas, (f->paid.sum - f->prev_paid) / f->replica_gpus / dt);
		aiwi_rec_put(sim, f->curve_tokens, (tok - f->prev_tokens) / dt);
		aiwi_rec_put(sim, f->curve_response_bytes, (tok - f->prev_tokens) * f->response_bytes / dt);
		double dp = f->paid.sum - f->prev_paid;
		aiwi_rec_put(sim, f->curve_compute, dp > 0 ? (fl - f->prev_flops) / (dp * peak_gpu) : 0);
		aiwi_rec_put(sim, f->curve_dram,
		             dp > 0 ? (dr - f->prev_dram) / (dp * f->gpu.mem_bw) : 0);
	}
	aiwi_rec_put(sim, f->curve_ttft_p99, ttft99);
	if (f->prefix) {
		double cached = 0;
		for (uint32_t i = 0; i < f->slot_count; i++)
			cached += f->replicas[i].cached_blocks;
		aiwi_rec_put(sim, f->curve_cache, PC_BLOCK * cached);
	}
	f->prev_arrived = f->arrived;
	f->prev_completed = f->completed;
	f->prev_met = f->met_all;
	f->prev_waiting = wsum;
	f->prev_busy = f->busy.sum;
	f->prev_paid = f->paid.sum;
	f->prev_tokens = tok;
	f->prev_flops = fl;
	f->prev_dram = dr;
	/* racks: the booked prefill energy still ahead of t is taken back per rack */
	size_t nr = f->racks_used;
	for (size_t k = 0; k < nr; k++)
		aiwi_int_advance(&f->racks[k].power, t);
	double *ahead = nr ? calloc(nr, sizeof *ahead) : NULL;
	if (nr && !ahead) {
		oom(f);
		return;
	}
	for (uint32_t i = 0; i < f->slot_count && !f->service_mode; i++) {
		double pend = prefill_pending(f, &f->replicas[i], t);
		if (pend > 0) {
			size_t r0, r1;
			slot_racks(f, i, &r0, &r1);
			for (size_t k = r0; k <= r1; k++)
				ahead[k] += pend * slot_gpus_in(f, i, k);
		}
	}
	for (size_t k = 0; k < nr; k++) {
		rack *rk = &f->racks[k];
		double e = rk->power.sum + aiwi_xsum_value(&rk->booked) - ahead[k];
		if (dt > 0)
			aiwi_site_rack_power(sim, c, k, (e - rk->prev_energy) / dt);
		rk->prev_energy = e;
	}
	free(ahead);
	if (AIW_UNLIKELY(f->failures))
		failure_sample(f, t, dt);
	aiwi_autoscale_sample(f->autoscale, t);
	FLEET_CHECK_DEEP(f);
}

static void inference_finish(aiwi_comp *c, double t)
{
	if (!F_(c))
		return;
	eager_settle_all(F_(c), t);
	fleet_at at;
	bring_to(c, t, &at);
	emit_metrics(c, t, &at);
	aiwi_autoscale_finish(F_(c)->autoscale, t);
	FLEET_CHECK_DEEP(F_(c));
}

/* The fleet is overloaded when the arrivals exceed what it completes: the
 * requests still waiting at the end plus those dropped for waiting (queue
 * full, timeout) are more than AIWI_OVERLOAD_UNSERVED of the arrivals and
 * more than one full batch per provisioned replica (a queue no burst
 * explains: it grew through the run).  Warns once per component. */
static bool overloaded(aiwi_comp *c, fleet *f, uint64_t waiting, double t)
{
	double arrived = (double)f->arrived;
	double unserved = (double)waiting + (double)f->dropped[DROP_QUEUE_FULL] +
	                  (double)f->dropped[DROP_TIMEOUT];
	double slots = (double)(f->state_count[AIW_REPLICA_READY] +
	                        f->state_count[AIW_REPLICA_LOADING]) * f->max_batch;
	if (f->batch_job) /* an offline job queues by design: its deadline tells */
		return false;
	if (!(arrived > 0) || !(unserved > AIWI_OVERLOAD_UNSERVED * arrived) ||
	    !(unserved > (slots > 1 ? slots : 1)))
		return false;
	if (!f->overload_warned) {
		f->overload_warned = true;
		aiwi_warn(c->sim,
		          "%s is overloaded: %.0f of its %.0f requests (%.1f %%) were not served "
		          "(%.0f still waiting at %.4g s, %.0f dropped for waiting); it completed "
		          "%.4g/s against %.4g/s arriving, so its queue grows without bound: its "
		          "latencies depend on the run's length and its cost per token "
		          "(%s.cost_per_mtok_*, flagged by %s.overloaded) is that of a saturated "
		          "fleet, not a price; add replicas or lower the rate",
		          c->prefix, unserved, arrived, 100 * unserved / arrived, (double)waiting,
		          t, unserved - (double)waiting,
		          t > 0 ? (double)(f->completed + f->kv_transfers) / t : NAN,
		          t > 0 ? arrived / t : NAN, c->prefix, c->prefix);
	}
	return true;
}

static void emit_metrics(aiwi_comp *c, double t, const fleet_at *at)
{
	fleet *f = F_(c);
	aiw_sim *sim = c->sim;
	const char *px = c->prefix;
#define M(key, v) aiwi_metric(sim, px, key, (v))
	uint64_t dropped = 0;
	for (int i = 0; i < NDROP; i++) {
		char k[64];
		snprintf(k, sizeof k, "requests_dropped_%s", DROP_NAMES[i]);
		M(k, (double)f->dropped[i]);
		dropped += f->dropped[i];
	}
	M("requests_arrived", (double)f->arrived);
	M("requests_completed", (double)f->completed);
	M("requests_dropped", (double)dropped);
	M("requests_in_flight", (double)f->in_flight);
	uint64_t ahead = eager_waiting(f, t, NULL);
	uint64_t waiting = f->waiting_count + ahead;
	M("requests_waiting", (double)waiting);
	M("requests_running", (double)(f->running_count - ahead));
	M("requests_started", (double)f->started);
	M("preemptions", (double)f->preemptions);

	/* TTFT: the windows so far plus the open one */
	aiwi_hist all;
	bool have_all = aiwi_hist_init_like(&all, &f->ttft, true) == AIW_OK &&
	                aiwi_hist_merge(&all, &f->ttft_win) == AIW_OK;
	static const double qs[3] = {0.50, 0.95, 0.99};
	static const char *const qn[3] = {"p50", "p95", "p99"};
	const aiwi_hist *ttft = have_all ? &all : &f->ttft;
	const aiwi_hist *hs[4] = {ttft, &f->tpot, f->service_mode ? ttft : &f->e2e, &f->wait};
	static const char *const hn[4] = {"ttft", "tpot", "e2e", "queue_wait"};
	for (int h = 0; h < 4; h++) {
		char k[64];
		for (int i = 0; i < 3; i++) {
			snprintf(k, sizeof k, "%s_%s_s", hn[h], qn[i]);
			M(k, aiwi_hist_quantile(hs[h], qs[i]));
		}
		snprintf(k, sizeof k, "%s_mean_s", hn[h]);
		M(k, aiwi_hist_mean(hs[h]));
		snprintf(k, sizeof k, "%s_max_s", hn[h]);
		M(k, aiwi_hist_max(hs[h]));
	}
	if (have_all)
		aiwi_hist_free(&all);
	/* the windowed figure of the curve: its last point (the interval that
	 * ended last), which a controller stepping the run can act on */
	{
		char cn[256];
		snprintf(cn, sizeof cn, "%s.ttft_p99_s", px);
		aiwi_recorder *r = aiwi_sim_recorder(sim);
		int id = aiwi_rec_find(r, cn);
		size_t len = aiwi_rec_length(r);
		M("ttft_p99_last_interval_s", id >= 0 && len ? aiwi_rec_values(r, (size_t)id)[len - 1] : NAN);
	}
	M("queue_wait_count", (double)aiwi_hist_count(&f->wait));
	M("queue_wait_sum_s", aiwi_hist_sum(&f->wait));
	double finished = (double)(f->completed + dropped);
	M("slo_attainment", finished > 0 ? (double)f->met_all / finished : NAN);
	M("slo_ttft_attainment", finished > 0 ? (double)f->met_ttft / finished : NAN);
	M("slo_tpot_attainment", finished > 0 ? (double)f->met_tpot / finished : NAN);
	M("slo_e2e_attainment", finished > 0 ? (double)f->met_e2e / finished : NAN);
	M("goodput_rps", t > 0 ? (double)f->met_all / t : NAN);
	M("throughput_rps", t > 0 ? (double)f->completed / t : NAN);
	double tok = at->tokens;
	M("tokens_out", tok);
	M("tokens_per_s", t > 0 ? tok / t : NAN);
	M("prefill_tokens", f->tokens_prefill);
	M("response_bytes", tok * f->response_bytes);

	/* batch sizes, per decode iteration */
	double iters = 0, sum = 0;
	uint32_t bmax = 0;
	for (uint32_t b = 1; b <= f->max_batch; b++) {
		iters += (double)f->batch_iterations[b];
		sum += (double)f->batch_iterations[b] * b;
		if (f->batch_iterations[b])
			bmax = b;
	}
	double p99 = NAN;
	if (iters > 0) {
		double rank = ceil(0.99 * iters), cum = 0;
		for (uint32_t b = 1; b <= f->max_batch; b++) {
			cum += (double)f->batch_iterations[b];
			if (cum >= rank) {
				p99 = b;
				break;
			}
		}
	}
	M("decode_iterations", iters);
	M("mixed_iterations", (double)f->mixed_iterations);
	M("prefill_chunks", (double)f->prefill_chunks);
	M("chunks_per_prompt_mean", f->chunked_prompts ? (double)f->prefill_chunks / (double)f->chunked_prompts : NAN);
	/* disaggregation (fleet_disagg.c): not numbers in the other role */
	bool pre = f->disagg == DIS_PREFILL, dec = f->disagg == DIS_DECODE;
	M("kv_transfers", pre ? (double)f->kv_transfers : NAN);
	M("kv_transfers_under_way", pre ? (double)f->kv_in_transit : NAN);
	M("kv_transfer_bytes", pre ? f->kv_transfer_bytes : NAN);
	M("kv_transfer_time_mean_s",
	  pre && f->kv_transfers + f->kv_in_transit
	          ? f->kv_transfer_s / (double)(f->kv_transfers + f->kv_in_transit)
	          : NAN);
	M("prefill_batch_mean", pre && f->prefill_spans ? f->tokens_prefill_reqs / (double)f->prefill_spans : NAN);
	M("kv_received", dec ? (double)f->kv_received : NAN);
	M("decode_kv_wait_mean_s", dec && f->kv_received ? f->waiting.sum / (double)f->kv_received : NAN);
	/* acceptance_dist: the tokens the completed requests gained per step
	 * of theirs, from their tokens over their iterations */
	M("spec_tokens_per_step", !f->spec ? NAN
	                          : f->accept_dist ? (sum > 0 ? f->spec_E * (1 + f->spec_corr / sum) : NAN)
	                                           : f->spec_E);
	M("spec_verifications", f->spec ? iters / f->spec_E : NAN);
	M("spec_draft_share", f->spec && f->spec_decode_s > 0 ? f->spec_draft_s / f->spec_decode_s : NAN);
	/* power_cap: GPU-time at the cap (prefill's, decode's), the mean clock
	 * factor over the busy GPU-time */
	double pgs = NAN, busy = c->busy_gpu_s;
	if (f->capped) {
		pgs = aiwi_xsum_value(&f->prefill_gpu_s);
		for (uint32_t i = 0; i < f->slot_count; i++)
			pgs -= prefill_gpu_s_pending(f, &f->replicas[i], t);
	}
	double thr = (f->clock_prefill < 1 ? pgs : 0) + (f->clock_decode < 1 ? busy - pgs : 0);
	M("power_capped_gpu_hours", f->capped ? thr / 3600 : NAN);
	M("power_capped_share", f->capped && busy > 0 ? thr / busy : NAN);
	M("clock_factor_mean", f->capped && busy > 0
	                               ? (f->clock_prefill * pgs + f->clock_decode * (busy - pgs)) / busy
	                               : NAN);
	M("clock_factor_prefill", f->capped ? f->clock_prefill : NAN);
	M("clock_factor_decode", f->capped ? f->clock_decode : NAN);
	if (f->moe) {
		double dsum = 0, dtok = 0;
		for (uint32_t b = 1; b <= f->max_batch; b++) {
			dsum += (double)f->batch_iterations[b] * f->moe_distinct[b];
			dtok += (double)f->batch_iterations[b] * b;
		}
		M("moe_distinct_experts", iters > 0 ? dsum / iters : NAN);
		M("moe_expert_bytes", dsum * f->moe_expert_bytes);
		M("moe_a2a_bytes", (dtok + f->tokens_prefill) * f->moe_a2a_bytes_tok);
		M("moe_a2a_share", f->spec_decode_s > 0 ? f->moe_a2a_s / f->spec_decode_s : NAN);
	} else {
		M("moe_distinct_experts", NAN);
		M("moe_expert_bytes", NAN);
		M("moe_a2a_bytes", NAN);
		M("moe_a2a_share", NAN);
	}
	M("sessions_started", (double)f->sessions_started);
	M("sessions_completed", (double)f->sessions_completed);
	M("sessions_abandoned", (double)f->sessions_abandoned);
	M("prefix_hit_ratio", f->cache_lookup_tokens > 0 ? f->cache_hit_tokens / f->cache_lookup_tokens : NAN);
	M("prefill_tokens_saved", f->cache_hit_tokens);
	M("cache_evicted_blocks", f->evicted_blocks);
	M("batch_size_mean", iters > 0 ? sum / iters : NAN);
	M("batch_size_p99", p99);
	M("batch_size_max", (double)(bmax > f->batch_peak ? bmax : f->batch_peak));
	M("batch_wait_max_s", f->batch_wait_max);
	M("kv_capacity_bytes", f->service_mode ? NAN : f->kv_capacity_tokens * f->kv_bytes_per_token);
	M("kv_peak_bytes", f->service_mode ? NAN : f->kv_peak_tokens * f->kv_bytes_per_token);
	M("kv_bytes_per_token", f->kv_bytes_per_token);
	M("weight_bytes", f->weight_bytes);

	M("utilization", c->paid_gpu_s > 0 ? c->busy_gpu_s / c->paid_gpu_s : NAN);
	M("compute_utilization",
	  c->paid_gpu_s > 0 ? at->flops / (c->paid_gpu_s * f->flops_per_s / f->replica_gpus / aiwi_p(c, P_MFU)) : NAN);
	M("dram_activity", c->paid_gpu_s > 0 && !f->service_mode
	                           ? at->dram / (c->paid_gpu_s * f->gpu.mem_bw)
	                           : NAN);
	M("gpu_hours", c->paid_gpu_s / 3600);
	M("replicas_ready", (double)f->state_count[AIW_REPLICA_READY]);
	M("replicas_loading", (double)f->state_count[AIW_REPLICA_LOADING]);
	M("replicas_draining", (double)f->state_count[AIW_REPLICA_DRAINING]);
	if (f->failures) {
		aiwi_int_advance(&f->failed_int, t);
		aiwi_int_advance(&f->spare_int, t);
	}
	/* the replicas exposed: the paid replica-seconds less the spares' */
	M("replica_failures", (double)f->replica_failures);
	M("replica_failures_expected",
	  f->failures ? f->fail_rate * (c->paid_gpu_s / f->replica_gpus - f->spare_int.sum) : NAN);
	M("requests_requeued_failure", (double)f->requeued_failure);
	M("tokens_lost_failure", f->tokens_lost_failure);
	M("replica_repair_hours", f->failed_int.sum / 3600);
	M("replicas_failed", f->failed_int.value);
	M("hot_spares_used", (double)f->spares_used);
	M("hot_spares_ready", (double)f->spares_ready);
	M("hot_spare_hours", f->spare_int.sum / 3600);
	M("energy_kwh", c->energy_j / 3.6e6);
	if (AIW_UNLIKELY(f->batch_job))
		batch_metrics(c, f, t, at);
	/* hardware + energy at the site's PUE and price, as the site's
	 * <prefix>.cost_usd (published by site/site.c) */
	double total = c->cost_usd + aiwi_cost_energy_usd(c) +
	               aiwi_cost_extra_usd(c);
	/* overloaded: the per-token costs below are those of a saturated
	 * fleet whose queue grows, not a price (published only then) */
	if (overloaded(c, f, waiting, t))
		M("overloaded", 1);
	M("cost_per_mtok_usd", tok > 0 ? total / tok * 1e6 : NAN);
	/* as serving is priced (cost.h, AIW_TOKEN_PRICE_PARAM_DEFS) */
	double k = aiwi_p(c, P_TOKEN_PRICE), tin = f->tokens_in;
	M("tokens_in", tin);
	M("cost_per_mtok_input_usd", tin + k * tok > 0 ? total / (tin + k * tok) * 1e6 : NAN);
	M("cost_per_mtok_output_usd", tin + k * tok > 0 ? k * total / (tin + k * tok) * 1e6 : NAN);
	M("cost_per_mtok_blended_usd", tin + tok > 0 ? total / (tin + tok) * 1e6 : NAN);
	M("cost_per_request_usd", f->completed ? total / (double)f->completed : NAN);
#undef M
}

static aiw_status inference_param_changed(aiwi_comp *c, size_t idx)
{
	/* with an autoscaler, `replicas` is its desired count, and its own
	 * parameters are its business */
	fleet *f = F_(c);
	if (f->autoscale)
		return aiwi_autoscale_param_changed(f->autoscale, idx);
	if (idx != P_REPLICAS)
		return AIW_OK;
	uint32_t want = (uint32_t)aiwi_p(c, P_REPLICAS);
	uint32_t have = f->state_count[AIW_REPLICA_READY] + f->state_count[AIW_REPLICA_LOADING];
	while (have < want) {
		double cs = draw(aiwi_pd(c, P_COLD_START), f->rng_life);
		int s = aiwi_serving_add_replica(c, cs > 0 ? cs : 0, false);
		if (s < 0)
			return (aiw_status)s;
		have++;
	}
	while (have > want) {
		int s = aiwi_serving_remove_replica(c, -1);
		if (s < 0)
			return (aiw_status)s;
		have--;
	}
	return AIW_OK;
}

static void inference_destroy(aiwi_comp *c)
{
	fleet *f = F_(c);
	if (!f)
		return;
	aiwi_autoscale_destroy(f->autoscale);
	f->autoscale = NULL;
	for (uint32_t i = 0; i < f->slot_count; i++)
		free(f->replicas[i].run);
	free(f->replicas);
	free(f->ready);
	free(f->idle);
	free(f->free_heap);
	free(f->bucket_head);
	free(f->bucket_tail);
	free(f->bucket_links);
	free(f->racks);
	free(f->rack_extra_w);
	free(f->slot_extra_w);
	free(f->tree);
	free(f->end_keys);
	free(f->end_out);
	free(f->requests);
	free(f->batch_iterations);
	free(f->moe_distinct);
	free(f->admitted);
	free(f->ahead_times);
	aiwi_traffic_free(f->traffic);
	aiwi_count_table_free(f->prompt_sizes);
	aiwi_count_table_free(f->output_sizes);
	if (f->rng_size)
		gsl_rng_free(f->rng_size);
	if (f->rng_route)
		gsl_rng_free(f->rng_route);
	if (f->rng_life)
		gsl_rng_free(f->rng_life);
	if (f->rng_session)
		gsl_rng_free(f->rng_session);
	if (f->rng_fail)
		gsl_rng_free(f->rng_fail);
	if (f->rng_accept)
		gsl_rng_free(f->rng_accept);
	free(f->spec_out);
	free(f->fail_ev);
	if (f->sys_pick)
		gsl_ran_discrete_free(f->sys_pick);
	free(f->sys_tokens);
	free(f->sys_nodes);
	free(f->sess);
	free(f->side);
	free(f->chunk_prog);
	aiwi_hist_free(&f->ttft);
	aiwi_hist_free(&f->ttft_win);
	aiwi_hist_free(&f->tpot);
	aiwi_hist_free(&f->e2e);
	aiwi_hist_free(&f->wait);
	free(f);
	c->state = NULL;
}

bool aiwi_serving_traffic_conf(const aiwi_comp *c, aiwi_traffic_conf *tc)
{
	aiwi_traffic_conf_default(tc);
	tc->kind = (aiwi_traffic_kind)(int)aiwi_p(c, P_TRAFFIC);
	tc->prefix = c->prefix;
	tc->rate = aiwi_p(c, P_RATE);
	tc->peak_to_trough = aiwi_p(c, P_PEAK_TO_TROUGH);
	tc->peak_hour = aiwi_p(c, P_PEAK_HOUR);
	tc->weekend_factor = aiwi_p(c, P_WEEKEND_FACTOR);
	tc->cv = aiwi_p(c, P_CV);
	tc->modulate = aiwi_p(c, P_MODULATE) != 0;
	tc->trace_path = aiwi_ps(c, P_TRACE_FILE);
	tc->base_dir = aiwi_base_dir(c->sim);
	tc->time_scale = aiwi_p(c, P_TRACE_TIME_SCALE);
	tc->loop = aiwi_p(c, P_TRACE_LOOP) != 0;
	tc->batch_requests = aiwi_p(c, P_BATCH_REQUESTS);
	tc->batch_start = aiwi_p(c, P_BATCH_START);
	return !(tc->kind == AIW_TRAFFIC_TRACE && !aiwi_pset(c, P_TRACE_FILE));
}

void aiwi_serving_fleet_conf(const aiwi_comp *c, aiwi_serving_fleet *out)
{
	out->replicas = aiwi_p(c, P_REPLICAS);
	out->gpus_per_replica = aiwi_p(c, P_GPUS_PER_REPLICA);
	out->autoscale_first = P_AUTOSCALE;
}

/* the replica-count curve is <prefix>.replicas (metrics.c's table) */
static bool inference_query(const aiwi_comp *c, aiwi_query q, aiwi_answer *out)
{
	if (q == AIWI_Q_REPLICA_CURVE) {
		out->text = "replicas";
		return true;
	}
	return aiwi_cost_query(c, P_COST, P_GPU, P_GPUS_PER_NODE, q, out);
}

const aiwi_kind aiwi_kind_inference = {
	.name = "inference",
	.flags = AIWI_KIND_ACCOUNTED | AIWI_KIND_TELEMETRY | AIWI_KIND_WORKLOAD,
	.params = aiwi_inference_params,
	.nparams = P_NPARAMS,
	.metrics = aiwi_inference_metrics,
	.curves = aiwi_inference_curves,
	.histograms = aiwi_inference_histograms,
	.histogram = aiwi_serving_hist,
	.estimate = aiwi_inference_estimate,
	.start = inference_start,
	.sample = inference_sample,
	.finish = inference_finish,
	.param_changed = inference_param_changed,
	.destroy = inference_destroy,
	.query = inference_query,
	.modes = aiwi_inference_modes,
};

#include "inference/serving_api.c"
#include "inference/fleet_check.c"
