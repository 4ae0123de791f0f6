/*
 * serving.c - the inference fleet ([inference NAME]): arrivals (traffic.c),
 * a router, replicas that batch requests and hold their KV cache, latency
 * histograms (stats.c), power by replica phase, cost.
 *
 * Service time: a roofline per iteration (Williams, Waterman & Patterson
 * 2009) on a replica of g tensor-parallel GPUs (communication not modelled):
 *   prefill of T prompt tokens: max(2 P T / F, W / B)      (compute-bound)
 *   decode iteration of n requests holding S context tokens:
 *                               max(2 P n / F, (W + k S) / B) (memory-bound)
 * with P parameters, W = P weight_bits/8 weight bytes, k KV bytes per token
 * (2 layers kv_heads head_dim kv_bits/8), F = g peak_flops mfu (FP8 peak
 * when weight_bits <= 8 and the GPU has FP8, else BF16), B = g mem_bw
 * mem_bw_efficiency.  The attention FLOPs of the prompt (quadratic in its
 * length) are not counted.  Or `service = DIST`: every request holds a
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
 * at the arrival (eager cuts, below), so that the boundary is no event.
 * The pending span ends of all replicas sit in a winner tree, and the next
 * arrival beside it, behind one engine event, the master (cuts move an
 * entry instead of cancelling one).  A request costs two scheduled events
 * (its arrival and the span end where it leaves; three when its admission
 * stays an event), about two tree updates and four histogram adds.  The
 * master runs every one of them that comes before all other pending events
 * of the sim in place (aiwi_engine_run_inline: counted as scheduled, same
 * order, same bits), so that under load the engine sees little more than
 * the sample ticks.  Equal times: span ends run before the arrival.
 * bench/inference_day's load (callgrind, --days 0.002 --peak-hour 0.5)
 * takes 2,308 instructions per request: 4,130 before the tree kept slot
 * ids, 3,657 before span ends ran in place and the small-bottom push was
 * inlined (engine.c), 3,107 before arrivals joined the master, 2,811 before
 * the changes below, 2,679 before eager cuts, 2,492 before request sizes
 * were drawn by table (dist.c, aiwi_count_table).  Time follows mispredicted
 * branches and cache misses more than instructions: the tree recomputes
 * its whole path with selects (more instructions than stopping early, less
 * time), the histograms find a bucket from the bits of the value
 * (stats.h), the master decides span end or arrival with one branch, the
 * running requests are a sorted array whose insertion point a branchless
 * binary search finds (a heap past RUN_SORTED entries), and the generator
 * is the library's MT19937 (rng.h), whose refill does not branch on random
 * bits as GSL's does.  Callgrind's branch model counts 6.7 mispredictions
 * and 18.2 first-level cache misses per request (16.7 mispredictions before
 * the last three changes, 11.3 before eager cuts; 21.2 misses before the
 * size tables shrank, requests took 32 bytes and the replicas' hot state
 * four lines).
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
 * they can admit: the M/M/c discipline).  Requests wait at the router while
 * no replica is ready.
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
 * prefill, decode (service mode counts as decode), plus node_overhead /
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
 * from it, so that one changing leaves the others' draws alone.
 */
/* GSL's inline gsl_rng_uniform & co. (its documented HAVE_INLINE): one call
 * less per draw on the hot path */
#define HAVE_INLINE 1
#include "inference/serving.h"

#include "inference/autoscale/autoscale.h"
#include "site/cost.h"
#include "hw/hw.h"
#include "site/power.h"
#include "core/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

/* ======================================================================== */
/* parameters                                                                */
/* ======================================================================== */
enum {
	P_GPU,
	P_GPUS_PER_REPLICA,
	P_GPUS_PER_NODE,
	P_MODEL_PARAMS,
	P_LAYERS,
	P_KV_HEADS,
	P_HEAD_DIM,
	P_KV_BITS,
	P_KV_BYTES_PER_TOKEN,
	P_WEIGHT_BITS,
	P_REPLICAS,
	P_COLD_START,
	P_TRAFFIC,
	P_RATE,
	P_PEAK_TO_TROUGH,
	P_PEAK_HOUR,
	P_WEEKEND_FACTOR,
	P_CV,
	P_MODULATE,
	P_TRACE_FILE,
	P_TRACE_TIME_SCALE,
	P_TRACE_LOOP,
	P_PROMPT_TOKENS,
	P_OUTPUT_TOKENS,
	P_SERVICE,
	P_MFU,
	P_MEM_BW_EFF,
	P_BATCHING,
	P_MAX_BATCH,
	P_MAX_QUEUE_DELAY,
	P_KV_MARGIN,
	P_ROUTER,
	P_TIMEOUT,
	P_QUEUE_LIMIT,
	P_SLO_TTFT,
	P_SLO_TPOT,
	P_SLO_E2E,
	P_RESPONSE_BYTES,
	P_COST,                                    /* AIW_COST_NPARAMS entries */
	P_AUTOSCALE = P_COST + AIW_COST_NPARAMS,   /* AIW_AUTOSCALE_NPARAMS entries */
	P_NPARAMS = P_AUTOSCALE + AIW_AUTOSCALE_NPARAMS
};

enum { B_NONE, B_DYNAMIC, B_CONTINUOUS };
enum { RT_ROUND_ROBIN, RT_LEAST_LOADED, RT_P2C, RT_CENTRAL };

#define IP(key) "inference.NAME." key
static const aiwi_param_def INFERENCE_PARAMS[] = {
	[P_GPU] = {"gpu", IP("gpu"), AIW_PT_STRING, "H100-SXM", "", 0, 0, NULL, 0,
	           "accelerator of every replica (catalog name or a [gpu NAME] section)", 0},
	[P_GPUS_PER_REPLICA] = {"gpus_per_replica", IP("gpus_per_replica"), AIW_PT_INT, "4", "1", 1,
	                        4096, NULL, 0,
	                        "GPUs of one replica (tensor parallel: FLOP/s and memory "
	                        "bandwidth add up)",
	                        0},
	[P_GPUS_PER_NODE] = {"gpus_per_node", IP("gpus_per_node"), AIW_PT_INT, "8", "1", 1, 1024,
	                     NULL, 0,
	                     "GPUs per server node; node_overhead is charged per provisioned GPU "
	                     "as node_overhead / gpus_per_node",
	                     0},
	[P_MODEL_PARAMS] = {"model_params", IP("model_params"), AIW_PT_REAL, "70e9", "1", 0, 1e15,
	                    NULL, AIW_PF_EXCL_MIN, "model parameters (weights)", 0},
	[P_LAYERS] = {"layers", IP("layers"), AIW_PT_INT, "80", "1", 1, 100000, NULL, 0,
	              "transformer layers (for the KV cache size)", 0},
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
	[P_TRAFFIC] = {"traffic", IP("traffic"), AIW_PT_ENUM, "poisson", "", 0, 3,
	               "poisson|diurnal|bursty|trace", 0,
	               "arrival process (see traffic parameters below)", 0},
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
	[P_MAX_BATCH] = {"max_batch", IP("max_batch"), AIW_PT_INT, "32", "1", 1, 4096, NULL, 0,
	                 "most requests in one replica's batch", 0},
	[P_MAX_QUEUE_DELAY] = {"max_queue_delay", IP("max_queue_delay"), AIW_PT_DURATION, "10ms",
	                       "s", 0, 3600, NULL, 0,
	                       "dynamic: longest a free replica waits to fill a batch", 0},
	[P_KV_MARGIN] = {"kv_margin", IP("kv_margin"), AIW_PT_REAL, "0.1", "1", 0, 0.99, NULL, 0,
	                 "fraction of GPU memory kept out of weights and KV cache (activations, "
	                 "workspace)",
	                 0},
	[P_ROUTER] = {"router", IP("router"), AIW_PT_ENUM, "least_loaded", "", 0, 3,
	              "round_robin|least_loaded|p2c|central", 0,
	              "request routing: least_loaded = fewest outstanding; central = one shared "
	              "FIFO queue",
	              0},
	[P_TIMEOUT] = {"timeout", IP("timeout"), AIW_PT_DURATION, NULL, "s", 0, 3.2e9, NULL,
	               AIW_PF_NONE | AIW_PF_EXCL_MIN,
	               "drop a request still queued this long after arriving (none: never)", 0},
	[P_QUEUE_LIMIT] = {"queue_limit", IP("queue_limit"), AIW_PT_INT, NULL, "1", 0, 1e9, NULL,
	                   AIW_PF_NONE,
	                   "drop arrivals finding this many requests queued at their replica (or "
	                   "the central queue); none: unlimited",
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
	AIW_COST_PARAM_DEFS("inference"),
	AIW_AUTOSCALE_PARAM_DEFS("inference"),
};
#undef IP
_Static_assert(sizeof INFERENCE_PARAMS / sizeof *INFERENCE_PARAMS == P_NPARAMS,
               "parameter table and enum disagree");

/* ======================================================================== */
/* state                                                                     */
/* ======================================================================== */
#define NIL UINT32_MAX
#define MAX_IN_FLIGHT (1u << 24)
#define MAX_SLOTS 1000000u
/* Request sizes are drawn by table (aiwi_count_table, the counts beyond the
 * 1 - SIZE_TABLE_TAIL quantile by inversion) when the table fits in this
 * many entries (8 bytes each).  The draws pick a uniformly random column,
 * so the table's size, not the law's shape, sets its cache footprint: at
 * 1 - 1e-2 the default sizes take 53 + 10 KB (6,580 and 1,300 counts;
 * 20,070 and 3,450 at 1 - 1e-4), and one draw in a hundred inverts the
 * tail (about 300 instructions: 3 a draw). */
#define SIZE_TABLE_MAX 65536u
#define SIZE_TABLE_TAIL 1e-2

/* Power phases of a replica.  A roofline span (prefill of the admitted
 * prompts, then decode iterations) is accounted as DECODE throughout, its
 * prefill part adding (prefill_w - decode_w) through a correction that is
 * exact at every sample time (see prefill_pending). */
enum { PH_OFF, PH_LOADING, PH_IDLE, PH_PREFILL, PH_DECODE, NPH };
enum { SPAN_NONE, SPAN_LOAD, SPAN_RUN, SPAN_SERVICE };
enum { DROP_TIMEOUT, DROP_QUEUE_FULL, DROP_KV_TOO_LARGE, NDROP };
static const char *const DROP_NAMES[NDROP] = {"timeout", "queue_full", "kv_too_large"};

/* One request: 48 bytes, pooled, freed when it ends. */
/* 32 bytes, two to a cache line (the pool is aligned to one, see
 * req_alloc): the requests in flight are most of the model's memory, and a
 * request is read at random times (admission, first token, completion). */
typedef struct req {
	double t_arr;
	union {
		double t_first; /* roofline: time of the first token; NAN before */
		double key;     /* service mode, before admission: its sampled service time */
	};
	/* prompt <= 1e9 (aiwi_round_count) < 2^30 */
	uint32_t prompt : 30;
	uint32_t started : 1;  /* admitted at least once (queue wait recorded) */
	uint32_t from_pre : 1; /* pending admission taken from the preempted list */
	uint32_t output, gen;  /* gen: tokens streamed (or due by the span's prefill end) */
	uint32_t next;         /* queue link or free list */
} req;
_Static_assert(sizeof(req) == 32, "two requests to a cache line");

typedef struct queue {
	uint32_t head, tail;
	uint32_t len;
} queue;

/* A running request: the decode iteration (roofline) or the time (service)
 * at which it ends; the key sits next to the id for cache-friendly sifts. */
typedef struct rent {
	double key;
	uint32_t id;
	uint32_t seq; /* admission order, modulo 2^32 (preemption victim) */
} rent;

/* A roofline span: prefill of tp seconds from t0 (first tokens of nfirst
 * requests at its end, ptok prompt tokens), then decode iteration j of its n
 * requests takes max(sc, sa + sb j); it ends after k_end iterations; from
 * iteration js on, the memory term is the larger (span_js, kept: it is read
 * by every span_T, and cuts call span_T several times). */
typedef struct span {
	double t0, tp, ptok, sc, sa, sb, js, k_end;
	uint32_t n, nfirst;
} span;

/* Laid out by use: the first four cache lines hold all that an arrival
 * (routing, an eager cut, its admissions, the next span) and a span end
 * (departures, admissions, the next span) read or write; the fifth what
 * the lifecycle, dynamic batching and the central router use.  A replica's
 * lines are mostly out of the first-level cache when its next event comes
 * (300 replicas take 94 KB), so each line an event touches is a miss. */
typedef struct replica {
	/* line 1: what every event reads first */
	_Alignas(64) uint8_t state;
	uint8_t span;
	uint8_t pnq;         /* of pq, taken from q (the queue limit counts them;
	                        eager cuts only: at most max_batch <= 64) */
	uint8_t cut : 1;     /* span already cut at a boundary for an admission */
	uint8_t pend : 1;    /* an eager cut's admissions are pending (see below) */
	uint8_t resched : 1; /* scheduled while handling its own span end */
	uint8_t rheap : 1;
	uint8_t inb : 1;     /* in a least-loaded bucket */
	uint8_t phase : 3;   /* PH_* */
	uint32_t nrun, rh;
	uint32_t outstanding;
	rent *run;        /* running requests by key: sorted from rh, or a heap (run_push) */
	double it;        /* decode iterations done: the clock of the roofline keys */
	double S;         /* KV context tokens of the running requests */
	span sp;          /* the current span (roofline), into line 2 */
	queue q;          /* routed here, waiting */
	queue pre;        /* preempted / requeued: admitted before q */
	uint32_t caprun;
	/* an eager cut (see eager_cut): sp starts at sp.t0, later than the
	 * arrival that cut pv, the span before it, after pv.k_end iterations;
	 * its admissions are pending until the clock reaches sp.t0 (pq: linked
	 * by next, in admission order) */
	queue pq;
	uint32_t seq0;    /* the first request admitted by the current span */
	uint32_t seq0_pv;
	span pv;
	double it_pv, S_pv; /* it and S before the cut */
	uint32_t rack0, rack1; /* racks of its GPUs (see slot_racks) */
	/* line 5: the rest */
	double resv;      /* dynamic / none: tokens reserved (prompt + output) */
	uint64_t tmr;     /* pending dynamic-batch timer (engine handle) */
	double free_since;
	uint32_t ready_pos, idle_pos;
	uint8_t spot;
	uint8_t in_idle;  /* in the central idle set */
} replica;
_Static_assert(offsetof(replica, sp) + offsetof(span, sa) < 64 + 64 &&
               offsetof(replica, rack1) + sizeof(uint32_t) <= 4 * 64 &&
               offsetof(replica, resv) >= 4 * 64 && sizeof(replica) % 64 == 0,
               "replica's layout by cache line");

typedef struct rack {
	aiwi_integral p;
	double prev;       /* reported energy at the previous sample */
	double adj;        /* prefill energy booked ahead (J) */
	uint32_t cnt[NPH]; /* GPUs of this rack per phase */
} rack;

typedef struct fleet {
	aiwi_comp *c;
	aiw_sim *sim;
	aiwi_engine *eng; /* the sim's, for at() */
	aiwi_gpu_spec gpu;
	aiwi_pricing price;
	int batching, router;
	bool service_mode;
	bool eager;        /* cuts admit at the arrival (eager_cut) */
	/* model */
	double g, P, Wb, kvpt, cap_tokens, F, BW, t_weights, gpr;
	/* per span: a prefill of T tokens takes T pf_s (compute), a decode
	 * iteration of n requests holding S tokens max(n pf_s, t_weights + S
	 * kv_s) (products instead of divisions on every span start) */
	double pf_s, kv_s;
	uint32_t max_batch;
	double max_delay, timeout, slo_ttft, slo_tpot, slo_e2e, resp_bytes;
	uint64_t qlimit;
	double w_tot[NPH]; /* W per GPU by phase, node overhead included */
	double w_pre_extra; /* W per GPU of prefill over decode */
	double spot_factor;
	/* requests */
	req *rq;
	uint32_t nrq, free_head;
	uint64_t in_flight, nwaiting, nrunning;
	uint32_t seq;
	/* replicas */
	replica *rep;
	uint32_t nslots, capslots;
	uint32_t *freeh, nfree; /* min-heap of FREE slot indexes (capslots long) */
	uint32_t *ready, nready;
	uint32_t *idle, nidle;
	uint32_t *bhead, *btail, nb, bmin;
	/* least-loaded bucket links by slot (capslots long): apart from the
	 * replicas, so that moving one touches its neighbours' links, not
	 * their whole state */
	struct blink {
		uint32_t prev, next;
	} *bl;
	uint32_t rr;
	uint32_t nstate[4];
	uint32_t nph[NPH], nspot;
	queue cq;
	uint64_t cq_tmr;
	/* the agenda of span ends, behind one engine event */
	uint32_t *at;     /* winner tree of slot ids: node n in 1 .. np - 1, leaf of slot i at np + i */
	uint64_t *ak;     /* pending span end of each slot (its time's IEEE bits, or NONE) */
	uint32_t np;      /* leaves: a power of two >= slots */
	uint32_t depth;   /* log2 np (np <= 2^20: MAX_SLOTS) */
	uint32_t at_id;   /* the root's winner and its key (at[1], ak[at[1]]), kept */
	uint64_t at_key;  /* beside the fleet's other hot fields by ag_set */
	uint64_t master;
	double master_t;
	bool in_master;
	double arr_t;     /* the next arrival (+inf: none), run by the master */
	/* arrivals drawn ahead (aiwi_traffic_next_n: all but a trace's), the
	 * next at abuf[ai]; an = 0: drawn one at a time */
	uint32_t ai, an;
	double *abuf;
	/* integrals */
	aiwi_integral energy, busy, paid, cost, waiting;
	double energy_adj; /* prefill energy booked ahead (J) */
	rack *racks;
	size_t nracks, racks_used; /* allocated; touched by a replica so far */
	/* traffic */
	aiwi_traffic *tr;
	double next_p, next_o;
	aiwi_count_table *tok_p, *tok_o; /* prompt and output sizes (NULL: draw and round) */
	uint32_t xp, xo; /* the next arrival's words for tok_p, tok_o (sizes_ahead) */
	gsl_rng *rng_size, *rng_route, *rng_life;
	/* statistics */
	aiwi_hist ttft, ttft_win, tpot, e2e, wait;
	uint64_t *bs; /* decode iterations by batch size */
	uint32_t *adm, nadm; /* requests admitted at this instant (max_batch) */
	uint64_t arrived, completed, dropped[NDROP], started, preemptions;
	uint64_t met_all, met_ttft, met_tpot, met_e2e;
	double tokens_out, tokens_prefill, flops;
	double kv_peak_tokens, batch_wait_max;
	uint32_t batch_peak;
	/* curves */
	int id_arr, id_thr, id_good, id_ttft99, id_qlen, id_busy, id_reps, id_resp, id_tok, id_cu;
	uint64_t prev_arrived, prev_completed, prev_met;
	double prev_tokens, prev_waiting, prev_busy, prev_paid, prev_flops;
	void *autoscale; /* the autoscaler's state (autoscale.c owns it) */
	bool fail;
} fleet;

static inline fleet *F_(const aiwi_comp *c) { return (fleet *)c->state; }

static void oom(fleet *f)
{
	if (!f->fail) {
		aiwi_err(f->sim, AIW_ENOMEM, "%s: out of memory", f->c->prefix);
		aiwi_fail(f->sim, AIW_ENOMEM);
		f->fail = true;
	}
}

/* ======================================================================== */
/* requests and queues                                                       */
/* ======================================================================== */
static uint32_t req_alloc(fleet *f)
{
	if (f->free_head == NIL) {
		if (f->nrq >= MAX_IN_FLIGHT)
			return NIL;
		uint32_t n = f->nrq ? 2 * f->nrq : 1024;
		if (n > MAX_IN_FLIGHT)
			n = MAX_IN_FLIGHT;
		/* aligned to a cache line: no request straddles two */
		req *p = aligned_alloc(64, (size_t)n * sizeof *p);
		if (!p)
			return NIL;
		if (f->nrq)
			memcpy(p, f->rq, (size_t)f->nrq * sizeof *p);
		free(f->rq);
		f->rq = p;
		for (uint32_t i = n; i-- > f->nrq;) {
			p[i].next = f->free_head;
			f->free_head = i;
		}
		f->nrq = n;
	}
	uint32_t id = f->free_head;
	f->free_head = f->rq[id].next;
	f->in_flight++;
	return id;
}

static void req_free(fleet *f, uint32_t id)
{
	f->rq[id].next = f->free_head;
	f->free_head = id;
	f->in_flight--;
}

static inline void q_init(queue *q)
{
	q->head = q->tail = NIL;
	q->len = 0;
}

static inline void q_push(fleet *f, queue *q, uint32_t id)
{
	f->rq[id].next = NIL;
	if (q->tail == NIL)
		q->head = id;
	else
		f->rq[q->tail].next = id;
	q->tail = id;
	q->len++;
}

static inline void q_push_front(fleet *f, queue *q, uint32_t id)
{
	f->rq[id].next = q->head;
	q->head = id;
	if (q->tail == NIL)
		q->tail = id;
	q->len++;
}

static inline uint32_t q_pop(fleet *f, queue *q)
{
	uint32_t id = q->head;
	q->head = f->rq[id].next;
	if (q->head == NIL)
		q->tail = NIL;
	q->len--;
	return id;
}

/* ---- the running requests of a replica, by key ----
 * Up to RUN_SORTED entries: a sorted array run[rh .. rh + nrun), stable
 * (equal keys in admission order).  A new request finds its place by a
 * branchless binary search and those after it move up by one entry (a
 * third of them on bench/inference_day's load: its whole output is still
 * ahead of it); the earliest leaves from the front in O(1) (rh moves up).  Past RUN_SORTED entries the array becomes a binary
 * min-heap (a sorted array is one: nothing to convert) and stays one until
 * the replica holds RUN_SORTED / 2, when it is sorted back: large batches
 * (service = DIST with thousands in service) keep O(log n) per operation,
 * without flapping at the bound. */
#define RUN_SORTED 64u

static void run_up(rent *h, uint32_t i)
{
	rent x = h[i];
	while (i > 0) {
		uint32_t p = (i - 1) / 2;
		if (!(x.key < h[p].key))
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = x;
}

static void run_down(rent *h, uint32_t n, uint32_t i)
{
	rent x = h[i];
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && h[c + 1].key < h[c].key)
			c++;
		if (!(h[c].key < x.key))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = x;
}

/* The earliest key (nrun > 0). */
static inline double run_min(const replica *r) { return r->run[r->rh].key; }

/* Entry i, 0 <= i < nrun, in no particular order. */
static inline rent *run_at(const replica *r, uint32_t i) { return &r->run[r->rh + i]; }

static inline void run_push(fleet *f, replica *r, uint32_t id, double key, uint32_t seq)
{
	rent *h = r->run;
	if (r->rheap || r->nrun >= RUN_SORTED) {
		if (!r->rheap && r->rh) { /* now a heap: from index 0 */
			memmove(h, h + r->rh, (size_t)r->nrun * sizeof *h);
			r->rh = 0;
		}
		r->rheap = 1;
	} else if (r->rh + r->nrun == r->caprun && r->rh) {
		memmove(h, h + r->rh, (size_t)r->nrun * sizeof *h);
		r->rh = 0;
	}
	if (r->rh + r->nrun == r->caprun) {
		uint32_t n = r->caprun ? 2 * r->caprun : 8;
		h = realloc(r->run, (size_t)n * sizeof *h);
		if (!h) {
			oom(f);
			return;
		}
		r->run = h;
		r->caprun = n;
	}
	if (r->rheap) {
		h[r->nrun] = (rent){key, id, seq};
		run_up(h, r->nrun++);
		return;
	}
	/* after the last entry <= key: a branchless binary search (the number
	 * of entries it passes varies from one request to the next, so a scan
	 * from the back would end on a mispredicted branch), then one move */
	rent *b = h + r->rh;
	uint32_t len = r->nrun;
	if (len) {
		while (len > 1) {
			uint32_t half = len / 2;
			b = b[half].key <= key ? b + half : b;
			len -= half;
		}
		b += b->key <= key;
	}
	rent *end = h + r->rh + r->nrun++;
	memmove(b + 1, b, (size_t)(end - b) * sizeof *b);
	*b = (rent){key, id, seq};
}

/* Insertion sort of a heap back into a sorted array (at most RUN_SORTED / 2
 * entries, once per return under the bound). */
static void run_sort(replica *r)
{
	rent *h = r->run;
	for (uint32_t i = 1; i < r->nrun; i++) {
		rent x = h[i];
		uint32_t j = i;
		while (j > 0 && h[j - 1].key > x.key) {
			h[j] = h[j - 1];
			j--;
		}
		h[j] = x;
	}
	r->rheap = 0;
}

/* The earliest running request out.  Heap: Floyd's variant of the
 * sift-down (Knuth TAOCP 5.2.3, exercise 18): the hole goes down to a leaf
 * through the smaller children, picked with a select, and the last entry
 * climbs back from there (seldom far: it came from the bottom). */
static inline rent run_pop(replica *r)
{
	rent *h = r->run, top = h[r->rh];
	uint32_t n = --r->nrun;
	if (!r->rheap) {
		r->rh = n ? r->rh + 1 : 0;
		return top;
	}
	if (n == 0) {
		r->rheap = 0;
		return top;
	}
	rent x = h[n];
	uint32_t i = 0, c;
	while ((c = 2 * i + 1) + 1 < n) {
		c += h[c + 1].key < h[c].key;
		h[i] = h[c];
		i = c;
	}
	if (c < n) { /* a last child without a sibling */
		h[i] = h[c];
		i = c;
	}
	h[i] = x;
	run_up(h, i);
	if (n <= RUN_SORTED / 2)
		run_sort(r);
	return top;
}

/* Entry i (as run_at numbers them) out. */
static inline rent run_remove_at(replica *r, uint32_t i)
{
	rent *h = r->run + r->rh, x = h[i];
	r->nrun--;
	if (!r->rheap) {
		memmove(h + i, h + i + 1, (size_t)(r->nrun - i) * sizeof *h);
		if (!r->nrun)
			r->rh = 0;
	} else if (i < r->nrun) {
		h[i] = h[r->nrun];
		run_down(h, r->nrun, i);
		run_up(h, i);
	}
	if (r->rheap && r->nrun <= RUN_SORTED / 2)
		run_sort(r);
	return x;
}

/* No running request left (the replica failed). */
static inline void run_clear(replica *r)
{
	r->nrun = 0;
	r->rh = 0;
	r->rheap = 0;
}

/* ======================================================================== */
/* accounting: integrals from counts                                         */
/* ======================================================================== */
static void levels(fleet *f)
{
	double w = 0;
	uint32_t prov = 0;
	for (int p = PH_LOADING; p < NPH; p++) {
		w += f->nph[p] * f->w_tot[p];
		prov += f->nph[p];
	}
	f->energy.value = f->g * w;
	f->busy.value = f->g * (double)(f->nph[PH_PREFILL] + f->nph[PH_DECODE]);
	f->paid.value = f->g * (double)prov;
	f->cost.value = f->g * ((double)(prov - f->nspot) + (double)f->nspot * f->spot_factor) *
	                f->price.usd_per_gpu_s;
}

static void advance(fleet *f, double now)
{
	aiwi_int_advance(&f->energy, now);
	aiwi_int_advance(&f->busy, now);
	aiwi_int_advance(&f->paid, now);
	aiwi_int_advance(&f->cost, now);
}

static bool ensure_racks(fleet *f, size_t need)
{
	if (need > f->racks_used)
		f->racks_used = need;
	if (need <= f->nracks)
		return true;
	size_t n = f->nracks ? 2 * f->nracks : 8;
	while (n < need)
		n *= 2;
	rack *p = realloc(f->racks, n * sizeof *p);
	if (!p)
		return false;
	double now = aiwi_now(f->sim);
	for (size_t i = f->nracks; i < n; i++) {
		memset(&p[i], 0, sizeof p[i]);
		aiwi_int_init(&p[i].p, now, 0); /* a new rack held nothing before */
	}
	f->racks = p;
	f->nracks = n;
	return true;
}

/* Replica slot s holds GPUs [s g, s g + g): racks r0..r1 of gpus_per_rack
 * (kept in the replica from its slot's creation: g and gpr are integers
 * fixed for the run). */
static inline void slot_racks(const fleet *f, uint32_t s, size_t *r0, size_t *r1)
{
	*r0 = f->rep[s].rack0;
	*r1 = f->rep[s].rack1;
}

/* GPUs of slot s in rack k of its racks r0..r1: all g of them when it sits
 * in one rack (exactly what the general expression gives then). */
static inline double slot_gpus_in(const fleet *f, uint32_t s, size_t k)
{
	const replica *r = &f->rep[s];
	if (r->rack0 == r->rack1)
		return f->g;
	double first = (double)s * f->g, last = first + f->g;
	return fmin(last, ((double)k + 1) * f->gpr) - fmax(first, (double)k * f->gpr);
}

/* Move replica slot s's GPUs from phase a to phase b in the racks. */
static void rack_move(fleet *f, uint32_t s, int a, int b, double now)
{
	size_t r0, r1;
	slot_racks(f, s, &r0, &r1);
	if (!ensure_racks(f, r1 + 1)) {
		oom(f);
		return;
	}
	for (size_t k = r0; k <= r1; k++) {
		uint32_t n = (uint32_t)slot_gpus_in(f, s, k);
		rack *rk = &f->racks[k];
		aiwi_int_advance(&rk->p, now);
		rk->cnt[a] -= (uint32_t)n;
		rk->cnt[b] += (uint32_t)n;
		double w = 0;
		for (int p = PH_LOADING; p < NPH; p++)
			w += rk->cnt[p] * f->w_tot[p];
		rk->p.value = w;
	}
}

static void phase_change(fleet *f, replica *r, int ph, double now)
{
	int old = r->phase;
	advance(f, now);
	f->nph[old]--;
	f->nph[ph]++;
	if (r->spot) {
		if (old == PH_OFF)
			f->nspot++;
		else if (ph == PH_OFF)
			f->nspot--;
	}
	r->phase = (uint8_t)ph;
	levels(f);
	rack_move(f, (uint32_t)(r - f->rep), old, ph, now);
}

/* The check inline: a busy replica starting its next span stays in its phase. */
static inline void set_phase(fleet *f, replica *r, int ph, double now)
{
	if (r->phase != ph)
		phase_change(f, r, ph, now);
}

/* Book the extra energy of a span's prefill (prefill over decode power). */
static inline void book_prefill(fleet *f, replica *r, double tp, double sign)
{
	double per_gpu = sign * f->w_pre_extra * tp;
	uint32_t s = (uint32_t)(r - f->rep);
	size_t r0, r1;
	slot_racks(f, s, &r0, &r1);
	f->energy_adj += per_gpu * f->g;
	for (size_t k = r0; k <= r1; k++)
		f->racks[k].adj += per_gpu * slot_gpus_in(f, s, k);
}

/* The span r runs at time t: the cut one while a pending start is ahead. */
static inline const span *span_at(const replica *r, double t)
{
	return r->pend && t < r->sp.t0 ? &r->pv : &r->sp;
}

/* Part of the booked prefill energy of replica r still ahead of time t. */
static double prefill_pending(const fleet *f, const replica *r, double t)
{
	const span *sp = span_at(r, t);
	if (r->span != SPAN_RUN || !(t < sp->t0 + sp->tp))
		return 0;
	return f->w_pre_extra * (sp->t0 + sp->tp - t); /* per GPU */
}

static void waiting_add(fleet *f, double now, int d)
{
	aiwi_int_advance(&f->waiting, now);
	f->nwaiting += d;
	f->waiting.value = (double)f->nwaiting;
}

/* ======================================================================== */
/* the ready set, least-loaded buckets, idle set                             */
/* ======================================================================== */
static bool bucket_grow_slow(fleet *f, uint32_t k)
{
	uint32_t n = f->nb ? f->nb : 64;
	while (n <= k)
		n *= 2;
	uint32_t *h = realloc(f->bhead, (size_t)n * sizeof *h);
	if (!h)
		return false;
	f->bhead = h;
	uint32_t *t = realloc(f->btail, (size_t)n * sizeof *t);
	if (!t)
		return false;
	f->btail = t;
	for (uint32_t i = f->nb; i < n; i++)
		h[i] = t[i] = NIL;
	if (f->bmin >= f->nb)
		f->bmin = n;
	f->nb = n;
	return true;
}

static inline bool bucket_grow(fleet *f, uint32_t k)
{
	return AIW_LIKELY(k < f->nb) || bucket_grow_slow(f, k);
}

/* (inline, as bucket_remove: a request moves its replica between two
 * buckets when it is routed and when it completes) */
static inline void bucket_insert(fleet *f, uint32_t id)
{
	replica *r = &f->rep[id];
	uint32_t k = r->outstanding;
	if (!bucket_grow(f, k)) {
		oom(f);
		return;
	}
	f->bl[id].next = NIL;
	f->bl[id].prev = f->btail[k];
	if (f->btail[k] == NIL)
		f->bhead[k] = id;
	else
		f->bl[f->btail[k]].next = id;
	f->btail[k] = id;
	r->inb = 1;
	if (k < f->bmin)
		f->bmin = k;
}

static inline void bucket_remove(fleet *f, uint32_t id)
{
	replica *r = &f->rep[id];
	uint32_t k = r->outstanding;
	struct blink *b = &f->bl[id];
	if (b->prev == NIL)
		f->bhead[k] = b->next;
	else
		f->bl[b->prev].next = b->next;
	if (b->next == NIL)
		f->btail[k] = b->prev;
	else
		f->bl[b->next].prev = b->prev;
	r->inb = 0;
	/* bmin may now point at an empty bucket: least_loaded() moves it up */
}

/* The least loaded ready replica (NIL if none).  Counts change by one at a
 * time, so the lazy scan from the last minimum is O(1) amortised. */
static inline uint32_t least_loaded(fleet *f)
{
	while (f->bmin < f->nb && f->bhead[f->bmin] == NIL)
		f->bmin++;
	return f->bmin < f->nb ? f->bhead[f->bmin] : NIL;
}

static inline void out_add(fleet *f, replica *r, int d)
{
	uint32_t id = (uint32_t)(r - f->rep);
	if (r->inb) {
		bucket_remove(f, id);
		r->outstanding += d;
		bucket_insert(f, id);
	} else {
		r->outstanding += d;
	}
}

static void ready_add(fleet *f, uint32_t id)
{
	f->rep[id].ready_pos = f->nready;
	f->ready[f->nready++] = id;
	bucket_insert(f, id);
}

static void ready_remove(fleet *f, uint32_t id)
{
	replica *r = &f->rep[id];
	uint32_t last = f->ready[--f->nready];
	f->ready[r->ready_pos] = last;
	f->rep[last].ready_pos = r->ready_pos;
	if (r->inb)
		bucket_remove(f, id);
}

static void idle_add(fleet *f, uint32_t id)
{
	if (f->rep[id].in_idle)
		return;
	f->rep[id].in_idle = 1;
	f->rep[id].idle_pos = f->nidle;
	f->idle[f->nidle++] = id;
}

static void idle_remove(fleet *f, uint32_t id)
{
	replica *r = &f->rep[id];
	if (!r->in_idle)
		return;
	uint32_t last = f->idle[--f->nidle];
	f->idle[r->idle_pos] = last;
	f->rep[last].idle_pos = r->idle_pos;
	r->in_idle = 0;
}

/* ======================================================================== */
/* the agenda: the pending span end of each replica, in a winner tree over  */
/* the slots (Knuth TAOCP 5.4.1), fed to the engine as one event at its     */
/* earliest time.  The keys live in one array by slot (f->ak); the tree     */
/* holds slot ids only (f->at, node n in 1 .. np - 1 the winner of its      */
/* subtree, leaf np + i standing for slot i), so a winner's key is read     */
/* through its id.  Setting slot i's key recomputes its path (ag_set).     */
/* Ties go to the lower slot (keys compare as (key, slot)): deterministic,  */
/* and the order the slots' leaves give.                                    */
/* ======================================================================== */
/* No pending end: above the bits of every time (and one below UINT64_MAX,
 * so that key + 1 cannot wrap in ag_set's tie rule). */
#define NONE (UINT64_MAX - 1)

/* Times >= 0 as their IEEE bits, which order like the values. */
static inline uint64_t tbits(double t)
{
	uint64_t b;
	t += 0.0; /* -0 -> +0 */
	memcpy(&b, &t, sizeof b);
	return b;
}

static inline double btime(uint64_t b)
{
	double t;
	memcpy(&t, &b, sizeof t);
	return t;
}

/* Whether slot a with key ka comes before slot b with key kb. */
static inline bool ag_before(uint64_t ka, uint32_t a, uint64_t kb, uint32_t b)
{
	return ka < kb || (ka == kb && a < b);
}

/* Slot i's key is now k: recompute the winners on its path, leaf to root,
 * always the whole path (log2 np levels, np a power of two: a loop the
 * branch predictor learns) with selects instead of branches.  Stopping
 * early where the winner no longer changes saves a few levels but costs a
 * mispredicted branch at a random level; callgrind's branch simulation
 * counted 4.3 mispredictions per request here with the early stops.  At
 * each node the winner so far (carried in registers: the winner of the
 * child on the path) meets the winner of the sibling; the sibling wins ties
 * when it lies to the left (n odd), its slots being the lower ones. */
static void ag_set(fleet *f, uint32_t i, uint64_t k)
{
	uint32_t *t = f->at;
	const uint64_t *ak = f->ak;
	f->ak[i] = k;
	uint64_t key = k;
	uint32_t id = i, n = f->np + i;
	/* the levels unrolled, entered at the tree's depth (a jump the
	 * predictor always takes the same way): no loop test per level */
#define AG_LEVEL                                                                 \
	do {                                                                     \
		uint32_t sid = t[n ^ 1];                                         \
		uint64_t sk = ak[sid];                                           \
		bool sw = sk < key + (n & 1);                                    \
		key = sw ? sk : key;                                             \
		id = sw ? sid : id;                                              \
		n >>= 1;                                                         \
		t[n] = id;                                                       \
	} while (0)
	switch (f->depth) {
	case 20: AG_LEVEL; /* fall through */
	case 19: AG_LEVEL; /* fall through */
	case 18: AG_LEVEL; /* fall through */
	case 17: AG_LEVEL; /* fall through */
	case 16: AG_LEVEL; /* fall through */
	case 15: AG_LEVEL; /* fall through */
	case 14: AG_LEVEL; /* fall through */
	case 13: AG_LEVEL; /* fall through */
	case 12: AG_LEVEL; /* fall through */
	case 11: AG_LEVEL; /* fall through */
	case 10: AG_LEVEL; /* fall through */
	case 9: AG_LEVEL; /* fall through */
	case 8: AG_LEVEL; /* fall through */
	case 7: AG_LEVEL; /* fall through */
	case 6: AG_LEVEL; /* fall through */
	case 5: AG_LEVEL; /* fall through */
	case 4: AG_LEVEL; /* fall through */
	case 3: AG_LEVEL; /* fall through */
	case 2: AG_LEVEL; /* fall through */
	case 1: AG_LEVEL; /* fall through */
	default: break;
	}
#undef AG_LEVEL
	f->at_id = id;
	f->at_key = key;
}

/* Room for slots [0, n): rebuild with more leaves. */
static bool ag_grow(fleet *f, uint32_t n)
{
	if (n <= f->np)
		return true;
	uint32_t np = f->np ? f->np : 2;
	while (np < n)
		np *= 2;
	uint32_t *t = malloc(2 * (size_t)np * sizeof *t);
	uint64_t *ak = malloc((size_t)np * sizeof *ak);
	if (!t || !ak) {
		free(t);
		free(ak);
		return false;
	}
	for (uint32_t i = 0; i < np; i++) {
		ak[i] = i < f->np ? f->ak[i] : NONE;
		t[np + i] = i;
	}
	for (uint32_t m = np - 1; m >= 1; m--) {
		uint32_t a = t[2 * m], b = t[2 * m + 1];
		t[m] = ag_before(ak[b], b, ak[a], a) ? b : a;
	}
	t[0] = 0;
	free(f->at);
	free(f->ak);
	f->at = t;
	f->ak = ak;
	f->np = np;
	f->depth = (uint32_t)__builtin_ctz(np);
	f->at_id = t[1];
	f->at_key = ak[t[1]];
	return true;
}

/* The earliest pending key and its slot. */
static inline uint64_t ag_top(const fleet *f, uint32_t *slot)
{
	*slot = f->at_id;
	return f->at_key;
}

static inline bool ag_pending(const fleet *f, const replica *r)
{
	return f->ak[(uint32_t)(r - f->rep)] != NONE;
}

static void ag_remove(fleet *f, replica *r)
{
	if (ag_pending(f, r))
		ag_set(f, (uint32_t)(r - f->rep), NONE);
}

static void master_event(aiw_sim *sim, void *ctx, uint64_t arg);

/* aiwi_at for the master event: the engine's push without the call into
 * sim.c; a refused push (no memory, the limits: nothing changed) goes
 * through aiwi_at again, which reports it (or succeeds, memory having come
 * back). */
static inline uint64_t at(fleet *f, double t, aiwi_evfn fn)
{
	if (t < f->eng->now)
		t = f->eng->now;
	uint64_t h = aiwi_engine_push(f->eng, t, fn, f, 0);
	return AIW_LIKELY(h) ? h : aiwi_at(f->sim, t, fn, f, 0);
}

/* The component's next own event: the agenda's earliest span end or the
 * next arrival, whichever comes first (span ends first at equal times). */
static inline double next_own(const fleet *f)
{
	uint32_t s;
	uint64_t k = ag_top(f, &s);
	double t = k == NONE ? INFINITY : btime(k);
	return f->arr_t < t ? f->arr_t : t;
}

/* Keep the one engine event at the component's next own event.  A later
 * event left pending just finds nothing due and re-arms. */
static void ag_sync(fleet *f)
{
	if (f->in_master)
		return;
	double t = next_own(f);
	if (!(t < INFINITY))
		return;
	if (f->master && !(t < f->master_t))
		return;
	if (f->master)
		aiwi_cancel(f->sim, f->master);
	f->master_t = t;
	f->master = at(f, t, master_event);
	if (!f->master)
		f->fail = true;
}

static void schedule(fleet *f, replica *r, double t)
{
	r->resched = 1;
	ag_set(f, (uint32_t)(r - f->rep), tbits(t));
	ag_sync(f);
}

/* ======================================================================== */
/* roofline spans                                                            */
/* ======================================================================== */
/* floor(q) for q >= 0 by a conversion instead of the libm call (floor is
 * one without SSE4.1, which the baseline x86-64 lacks); some value <= -1
 * for q < 0, which every caller clamps to 0; NaN stays NaN. */
static inline double floor_nonneg(double q)
{
	if (q >= 0.0 && q < 4503599627370496.0) /* 2^52 */
		return (double)(int64_t)q;
	return q < 0.0 ? -1.0 : floor(q);
}

/* First decode iteration j whose memory time a + b j reaches the compute floor c. */
static inline double span_js(const span *r)
{
	if (r->sa >= r->sc)
		return 0;
	if (r->sb <= 0)
		return INFINITY;
	return ceil((r->sc - r->sa) / r->sb);
}

/* Time of the first k decode iterations: sum_{j<k} max(c, a + b j). */
static double span_T(const span *r, double k)
{
	double js = r->js;
	if (k <= js)
		return r->sc * k;
	double m = k - js, a2 = r->sa + r->sb * js;
	return r->sc * js + m * a2 + r->sb * m * (m - 1) * 0.5;
}

/* Decode iterations completed x seconds after the prefill part: the largest
 * k with T(k) <= x; *t_next gets T(k + 1), which the last test computed
 * (NAN for x <= 0, where nothing is computed), so that a cut at boundary
 * k + 1 needs no second evaluation.  Inlined, as span_decode: each is on
 * most requests' path twice, and their calls cost 2.4% of the time
 * (bench/interleave_day, both slices); ag_set and complete inlined too
 * were 1.3% slower. */
static AIW_INLINE double span_done_by_next(const span *r, double x, double *t_next)
{
	*t_next = NAN;
	if (!(x > 0))
		return 0;
	double js = r->js, k;
	if (x < r->sc * js) {
		k = floor_nonneg(x / r->sc);
	} else {
		double x2 = x - (isinf(js) ? 0 : r->sc * js), a2 = r->sa + r->sb * js;
		double m;
		/* x2 / a2 bounds m from above (the iterations only lengthen:
		 * T(m) >= m a2) and is off by about sb m^2 / (2 a2) iterations:
		 * taken when that is under half a one (the loops below then
		 * take a step at most), else the root of the quadratic (a
		 * square root more on the chain); the loops make k exact */
		m = floor_nonneg(x2 / a2);
		if (r->sb > 0 && r->sb * m * m > a2) {
			double p = a2 - 0.5 * r->sb;
			m = floor_nonneg((-p + sqrt(p * p + 2 * r->sb * x2)) / r->sb);
		}
		k = js + (m > 0 ? m : 0);
	}
	while (k > 0 && span_T(r, k) > x)
		k--;
	double tn;
	while ((tn = span_T(r, k + 1)) <= x)
		k++;
	*t_next = tn;
	return k;
}

static double span_done_by(const span *r, double x)
{
	double tn;
	return span_done_by_next(r, x, &tn);
}

/* ======================================================================== */
/* request ends                                                              */
/* ======================================================================== */
static void drop(fleet *f, uint32_t id, int why)
{
	f->dropped[why]++;
	req_free(f, id);
}

static void complete(fleet *f, replica *r, uint32_t id, double now)
{
	req *q = &f->rq[id];
	double e2e = now - q->t_arr;
	bool ok_ttft, ok_tpot = true, ok_e2e = e2e <= f->slo_e2e;
	if (f->service_mode) {
		/* the response arrives whole: first token = completion, one
		 * histogram serves both (see emit_metrics) */
		aiwi_hist_add_fast(&f->ttft_win, e2e);
		ok_ttft = e2e <= f->slo_ttft;
		f->tokens_out += q->output;
	} else {
		aiwi_hist_add_fast(&f->e2e, e2e);
		ok_ttft = q->t_first - q->t_arr <= f->slo_ttft;
		if (q->output > 1) {
			double tpot = (now - q->t_first) / (double)(q->output - 1);
			aiwi_hist_add_fast(&f->tpot, tpot);
			ok_tpot = tpot <= f->slo_tpot;
		}
		r->S -= (double)q->prompt + q->output;
		if (f->batching != B_CONTINUOUS)
			r->resv -= (double)q->prompt + q->output;
	}
	f->met_ttft += ok_ttft;
	f->met_tpot += ok_tpot;
	f->met_e2e += ok_e2e;
	f->met_all += ok_ttft && ok_tpot && ok_e2e;
	f->completed++;
	f->nrunning--;
	out_add(f, r, -1);
	req_free(f, id);
}

/* Drop the expired requests at the head of a FIFO queue (timeout).  The
 * waiting integral is corrected for the time since each one expired. */
static void purge(fleet *f, queue *q, replica *owner, double now)
{
	if (!(f->timeout < INFINITY))
		return;
	while (q->head != NIL) {
		req *x = &f->rq[q->head];
		double deadline = x->t_arr + f->timeout;
		if (x->started || !(now > deadline))
			break;
		uint32_t id = q_pop(f, q);
		waiting_add(f, now, -1);
		f->waiting.sum -= now - deadline;
		if (owner)
			out_add(f, owner, -1);
		drop(f, id, DROP_TIMEOUT);
	}
}

static void purge_all(fleet *f, double now)
{
	if (!(f->timeout < INFINITY))
		return;
	purge(f, &f->cq, NULL, now);
	for (uint32_t i = 0; i < f->nslots; i++)
		if (f->rep[i].q.len)
			purge(f, &f->rep[i].q, &f->rep[i], now);
}

/* ======================================================================== */
/* admission                                                                 */
/* ======================================================================== */
static void ensure_timer(fleet *f, replica *r, double now);
static void step(fleet *f, replica *r, double now);

/* Where r admits from: the central queue, or its own (a draining replica
 * takes nothing new). */
static inline queue *source(fleet *f, replica *r)
{
	return f->router == RT_CENTRAL && r->state == AIW_REPLICA_READY ? &f->cq : &r->q;
}

/* Next candidate: preempted first, then the source queue (after expiry). */
static uint32_t peek(fleet *f, replica *r, queue **from, double now)
{
	if (r->pre.len) {
		*from = &r->pre;
		return r->pre.head;
	}
	queue *s = source(f, r);
	purge(f, s, s == &r->q ? r : NULL, now);
	*from = s;
	return s->head;
}

/* Take the head of `from` into r's batch.  Roofline: its prompt (plus the
 * tokens it already streamed, when it was preempted) is prefilled by the
 * span that starts now, which also yields its next token. */
static void take(fleet *f, replica *r, queue *from, double now, double *prefill_tokens)
{
	uint32_t id = q_pop(f, from);
	waiting_add(f, now, -1);
	f->nrunning++;
	if (from == &f->cq)
		out_add(f, r, +1); /* central: outstanding counts batch members */
	req *q = &f->rq[id];
	if (!q->started) {
		q->started = 1;
		f->started++;
		aiwi_hist_add_fast(&f->wait, now - q->t_arr);
	}
	uint32_t seq = f->seq++;
	if (f->service_mode) {
		run_push(f, r, id, now + q->key, seq);
		return;
	}
	*prefill_tokens += (double)q->prompt + q->gen;
	r->S += (double)q->prompt + q->gen + 1;
	if (f->batching != B_CONTINUOUS)
		r->resv += (double)q->prompt + q->output;
	q->gen++; /* due at the end of the prefill */
	f->adm[f->nadm++] = id;
	/* it leaves after output - gen more decode iterations (0: right after
	 * the prefill); it is preempted at the earliest after that prefill */
	run_push(f, r, id, r->it + (q->output - q->gen), seq);
}

/* Whether a free replica starts a batch now (dynamic) or at all (none). */
static bool batch_ready(fleet *f, replica *r, double now)
{
	if (r->pre.len)
		return true;
	queue *s = source(f, r);
	purge(f, s, s == &r->q ? r : NULL, now);
	if (!s->len)
		return false;
	if (f->batching == B_NONE || s->len >= f->max_batch || r->state == AIW_REPLICA_DRAINING)
		return true;
	return now >= f->rq[s->head].t_arr + f->max_delay;
}

/* Admit what r's batching allows; returns the count, adds the prompt
 * tokens to prefill to *ptok. */
static uint32_t admit(fleet *f, replica *r, double now, double *ptok)
{
	uint32_t n0 = r->nrun, k = 0;
	queue *from;
	if (f->batching == B_CONTINUOUS) {
		while (r->nrun < f->max_batch) {
			uint32_t id = peek(f, r, &from, now);
			if (id == NIL)
				break;
			const req *q = &f->rq[id];
			if (!f->service_mode) {
				double need = (double)q->prompt + q->gen + 1;
				/* the batch after admission must still fit one more token
				 * per request; an empty replica takes anything that fits */
				if (r->nrun > 0 && r->S + need + (r->nrun + 1) > f->cap_tokens)
					break;
			}
			take(f, r, from, now, ptok);
			k++;
		}
	} else if (n0 == 0 && batch_ready(f, r, now)) {
		uint32_t maxb = f->batching == B_NONE ? 1 : f->max_batch;
		double head_arr = NAN;
		while (k < maxb) {
			uint32_t id = peek(f, r, &from, now);
			if (id == NIL)
				break;
			const req *q = &f->rq[id];
			if (k > 0 && !f->service_mode &&
			    r->resv + (double)q->prompt + q->output > f->cap_tokens)
				break;
			if (k == 0)
				head_arr = q->t_arr;
			take(f, r, from, now, ptok);
			k++;
		}
		if (k) {
			/* a replica still in a phase other than idle finished its
			 * previous batch just now */
			double free_t = r->phase == PH_IDLE ? r->free_since : now;
			double w = now - fmax(head_arr, free_t);
			if (w > f->batch_wait_max)
				f->batch_wait_max = w;
			if (r->tmr) {
				aiwi_cancel(f->sim, r->tmr);
				r->tmr = 0;
			}
		}
	}
	if (k) {
		f->batch_peak = r->nrun > f->batch_peak ? r->nrun : f->batch_peak;
		double kv = f->batching == B_CONTINUOUS ? r->S : r->resv;
		f->kv_peak_tokens = kv > f->kv_peak_tokens ? kv : f->kv_peak_tokens;
		if (r->in_idle)
			idle_remove(f, (uint32_t)(r - f->rep));
	}
	return k;
}

/* ======================================================================== */
/* replica spans                                                             */
/* ======================================================================== */
/* Preempt the most recently admitted running request (continuous). */
static void preempt_one(fleet *f, replica *r, double now)
{
	uint32_t best = 0, age = UINT32_MAX; /* the youngest: seq counts modulo 2^32 */
	for (uint32_t i = 0; i < r->nrun; i++) {
		uint32_t a = f->seq - run_at(r, i)->seq;
		if (a < age)
			age = a, best = i;
	}
	rent x = run_remove_at(r, best);
	req *q = &f->rq[x.id];
	q->gen = q->output - (uint32_t)(x.key - r->it);
	r->S -= (double)q->prompt + q->gen;
	q_push_front(f, &r->pre, x.id);
	f->nrunning--;
	waiting_add(f, now, +1);
	f->preemptions++;
}

/* Start a span at now: the prefill of what was just admitted (tp seconds,
 * none if nothing was), then decode iterations until the first departure or
 * until the KV cache is full. */
/* The prefill of ptok > 0 prompt tokens: compute-bound, or one read of the
 * weights. */
static inline double prefill_time(const fleet *f, double ptok)
{
	double tc = ptok * f->pf_s; /* both finite and > 0: no fmax call */
	return tc > f->t_weights ? tc : f->t_weights;
}

/* The decode part of r's span (sp) from its running set: the iterations to
 * the first departure (continuous batching: or to a full KV cache; 0 is a
 * boundary right after the prefill, where the preemption happens), and the
 * terms of their times. */
static AIW_INLINE void span_decode(fleet *f, replica *r)
{
	double n = r->nrun;
	double k = run_min(r) - r->it;
	if (f->batching == B_CONTINUOUS) {
		double kkv = floor_nonneg((f->cap_tokens - r->S) / n);
		double kk = kkv > 0 ? kkv : 0;
		k = kkv < k ? kk : k; /* selects: which bound comes first varies */
	}
	r->sp.sc = n * f->pf_s;
	r->sp.sa = f->t_weights + r->S * f->kv_s;
	r->sp.sb = n * f->kv_s;
	r->sp.js = span_js(&r->sp);
	r->sp.k_end = k;
	r->sp.n = r->nrun;
	r->cut = 0;
}

static void start_span(fleet *f, replica *r, double now, uint32_t nadm, double ptok)
{
	double tp = 0;
	if (nadm) {
		f->tokens_prefill += ptok;
		f->flops += 2 * f->P * ptok;
		tp = prefill_time(f, ptok);
		double t1 = now + tp;
		for (uint32_t i = 0; i < f->nadm; i++) {
			req *q = &f->rq[f->adm[i]];
			if (isnan(q->t_first)) {
				q->t_first = t1;
				aiwi_hist_add_fast(&f->ttft_win, t1 - q->t_arr);
			}
		}
		f->tokens_out += nadm;
		r->seq0 = f->seq - nadm; /* the admitted ones have seq >= seq0 */
	} else if (f->batching == B_CONTINUOUS) {
		while (r->nrun > 1 && r->S + r->nrun > f->cap_tokens)
			preempt_one(f, r, now);
	}
	r->sp.t0 = now;
	r->sp.tp = tp;
	r->sp.ptok = nadm ? ptok : 0;
	r->sp.nfirst = nadm;
	span_decode(f, r);
	r->span = SPAN_RUN;
	set_phase(f, r, PH_DECODE, now);
	if (tp > 0)
		book_prefill(f, r, tp, +1);
	schedule(f, r, now + tp + span_T(&r->sp, r->sp.k_end));
}

/* ---- eager cuts ----
 * An arrival that cuts a busy replica's span at its next iteration boundary
 * tb (continuous batching) would make tb an event of its own: the
 * iterations so far booked, what fits admitted, the next span started.
 * Until tb nothing can change that replica but more arrivals routed to it,
 * which the same boundary admits.  So the cut does the boundary's work at
 * the arrival (eager_cut): the replica's iteration clock and KV context move
 * to tb, what fits is admitted and the next span, from tb, is computed and
 * scheduled; one event per cut fewer, a third of all (bench/inference_day).
 * What the rest of the model could see before tb stays as the boundary
 * event would leave it:
 *  - the global sums, the histograms and the admission counts of the
 *    boundary are booked when the clock reaches tb (eager_settle: at the
 *    replica's next event or arrival, a sample, the end of the run, a
 *    failure, an autoscaler's read);
 *  - the waiting integral counts the admitted requests up to tb, and the
 *    samples, counts and metrics taken before tb count them as waiting and
 *    see the cut span (pv) as the running one;
 *  - an arrival before tb joins the boundary's admissions (eager_merge);
 *  - a failure before tb undoes the cut (eager_undo).
 * Used with continuous batching on the roofline, routers other than central,
 * no timeout (a queue can then only grow before tb) and max_batch <=
 * RUN_SORTED (the running set stays a sorted array, which an undo restores
 * exactly).  Results equal those of the boundary event but for the rounding
 * of floating-point sums taken in another order (tests/model/test_serving.c runs
 * every feature both ways). */
int aiwi_serving_eager = 1;

/* Admit at r's pending start sp.t0 what the boundary would (continuous
 * batching's admission, in the same order); the waiting integral counts
 * each request up to sp.t0. */
static void eager_admit(fleet *f, replica *r, double now)
{
	double t0 = r->sp.t0;
	while (r->nrun < f->max_batch) {
		queue *from = r->pre.len ? &r->pre : &r->q;
		uint32_t id = from->head;
		if (id == NIL)
			break;
		req *q = &f->rq[id];
		double need = (double)q->prompt + q->gen + 1;
		if (r->nrun > 0 && r->S + need + (r->nrun + 1) > f->cap_tokens)
			break;
		q_pop(f, from);
		waiting_add(f, now, -1);
		f->waiting.sum += t0 - now;
		f->nrunning++;
		uint32_t seq = f->seq++;
		q->from_pre = from == &r->pre;
		r->pnq += !q->from_pre;
		r->sp.ptok += (double)q->prompt + q->gen;
		r->S += (double)q->prompt + q->gen + 1;
		q->gen++;
		q_push(f, &r->pq, id);
		run_push(f, r, id, r->it + (q->output - q->gen), seq);
	}
}

/* r's pending span from its admissions, as start_span computes it, and its
 * end scheduled. */
static void eager_span(fleet *f, replica *r)
{
	r->sp.tp = prefill_time(f, r->sp.ptok);
	r->sp.nfirst = r->pq.len;
	span_decode(f, r);
	schedule(f, r, r->sp.t0 + r->sp.tp + span_T(&r->sp, r->sp.k_end));
}

/* The cut of r's running span after kb iterations, at tb, done now (false:
 * the boundary would admit nothing, so it stays an event). */
static bool eager_cut(fleet *f, replica *r, double now, double kb, double tb)
{
	const queue *from = r->pre.len ? &r->pre : &r->q;
	if (from->head == NIL || r->nrun >= f->max_batch)
		return false;
	const req *q = &f->rq[from->head];
	double n = r->sp.n, S1 = kb > 0 ? r->S + n * kb : r->S;
	if (S1 + ((double)q->prompt + q->gen + 1) + (r->nrun + 1) > f->cap_tokens)
		return false;
	r->pv = r->sp;
	r->pv.k_end = kb;
	r->it_pv = r->it;
	r->S_pv = r->S;
	r->seq0_pv = r->seq0;
	if (kb > 0) {
		r->it += kb;
		r->S = S1;
	}
	r->pend = 1;
	q_init(&r->pq);
	r->pnq = 0;
	r->seq0 = f->seq;
	r->sp.t0 = tb;
	r->sp.ptok = 0;
	eager_admit(f, r, now);
	eager_span(f, r);
	return true;
}

/* An arrival before r's pending start: the boundary admits it too if it
 * fits (and what waited before it did). */
static void eager_merge(fleet *f, replica *r, double now)
{
	uint32_t pn = r->pq.len;
	eager_admit(f, r, now);
	if (r->pq.len != pn)
		eager_span(f, r);
}

/* The clock reached r's pending start: book what the boundary event would
 * have booked (span_done's sums for the cut span, take's and start_span's
 * for the admissions), in its order. */
static void eager_settle(fleet *f, replica *r)
{
	r->pend = 0;
	double k = r->pv.k_end, n = r->pv.n;
	if (k > 0) {
		f->tokens_out += n * k;
		f->flops += 2 * f->P * n * k;
		f->bs[r->pv.n] += (uint64_t)k;
		double S1 = r->S_pv + n * k;
		f->kv_peak_tokens = S1 > f->kv_peak_tokens ? S1 : f->kv_peak_tokens;
	}
	/* take's queue waits and start_span's first tokens, in one pass (each
	 * histogram gets its values in the boundary's order) */
	double t0 = r->sp.t0, t1 = t0 + r->sp.tp;
	for (uint32_t id = r->pq.head; id != NIL; id = f->rq[id].next) {
		req *q = &f->rq[id];
		if (!q->started) {
			q->started = 1;
			f->started++;
			aiwi_hist_add_fast(&f->wait, t0 - q->t_arr);
		}
		if (isnan(q->t_first)) {
			q->t_first = t1;
			aiwi_hist_add_fast(&f->ttft_win, t1 - q->t_arr);
		}
	}
	/* (selects: the peaks' updates, rare, as stores without branches) */
	f->batch_peak = r->sp.n > f->batch_peak ? r->sp.n : f->batch_peak;
	f->kv_peak_tokens = r->S > f->kv_peak_tokens ? r->S : f->kv_peak_tokens;
	f->tokens_prefill += r->sp.ptok;
	f->flops += 2 * f->P * r->sp.ptok;
	f->tokens_out += r->pq.len;
	if (r->sp.tp > 0)
		book_prefill(f, r, r->sp.tp, +1);
}

/* Every pending start reached by t. */
static void eager_settle_all(fleet *f, double t)
{
	if (!f->eager)
		return;
	for (uint32_t i = 0; i < f->nslots; i++)
		if (f->rep[i].pend && f->rep[i].sp.t0 <= t)
			eager_settle(f, &f->rep[i]);
}

/* Requests admitted at pending starts after t (still waiting at t), and,
 * when waiting is not NULL, the request-seconds from t to those starts
 * that the waiting integral already holds. */
static uint64_t eager_waiting(const fleet *f, double t, double *ahead)
{
	uint64_t n = 0;
	double w = 0;
	for (uint32_t i = 0; f->eager && i < f->nslots; i++) {
		const replica *r = &f->rep[i];
		if (r->pend && t < r->sp.t0) {
			n += r->pq.len;
			w += r->pq.len * (r->sp.t0 - t);
		}
	}
	if (ahead)
		*ahead = w;
	return n;
}

/* A failure of r before its pending start: back to the cut span, the
 * admitted requests back in their queues (in order, in front), as if the
 * boundary had not come. */
static void eager_undo(fleet *f, replica *r, double now)
{
	double t0 = r->sp.t0;
	uint32_t last = NIL;
	for (uint32_t id = r->pq.head; id != NIL;) { /* reverse the list */
		uint32_t nx = f->rq[id].next;
		f->rq[id].next = last;
		last = id;
		id = nx;
	}
	/* the running set without them (the requests it admitted since the
	 * cut: seq0 on), the others in their order */
	rent *h = r->run + r->rh;
	uint32_t m = 0;
	for (uint32_t i = 0; i < r->nrun; i++)
		if ((uint32_t)(h[i].seq - r->seq0) >= (uint32_t)(f->seq - r->seq0))
			h[m++] = h[i];
	r->nrun = m;
	for (uint32_t id = last; id != NIL;) {
		req *q = &f->rq[id];
		uint32_t nx = q->next;
		q->gen--;
		q_push_front(f, q->from_pre ? &r->pre : &r->q, id);
		f->nrunning--;
		waiting_add(f, now, +1);
		f->waiting.sum -= t0 - now;
		id = nx;
	}
	r->pend = 0;
	r->it = r->it_pv;
	r->S = r->S_pv;
	r->seq0 = r->seq0_pv;
	r->sp = r->pv;
	r->cut = 1;
	schedule(f, r, t0);
}

/* The FREE slots, lowest index first: a slot retired is reused before a new
 * one is appended, and replica ids stay as small as they can (the lowest
 * free index, as a scan would find, in O(log slots) instead of O(slots)). */
static void free_push(fleet *f, uint32_t id)
{
	uint32_t *h = f->freeh, i = f->nfree++;
	while (i > 0 && h[(i - 1) / 2] > id) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = id;
}

static uint32_t free_pop(fleet *f)
{
	uint32_t *h = f->freeh, top = h[0], last = h[--f->nfree], n = f->nfree, i = 0;
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && h[c + 1] < h[c])
			c++;
		if (h[c] >= last)
			break;
		h[i] = h[c];
		i = c;
	}
	if (n)
		h[i] = last;
	return top;
}

static void retire(fleet *f, replica *r, double now)
{
	uint32_t id = (uint32_t)(r - f->rep);
	ag_remove(f, r);
	if (r->tmr) {
		aiwi_cancel(f->sim, r->tmr);
		r->tmr = 0;
	}
	if (r->state == AIW_REPLICA_READY)
		ready_remove(f, id);
	idle_remove(f, id);
	f->nstate[r->state]--;
	r->state = AIW_REPLICA_FREE;
	f->nstate[AIW_REPLICA_FREE]++;
	free_push(f, id);
	r->span = SPAN_NONE;
	set_phase(f, r, PH_OFF, now);
	r->spot = 0;
}

static void go_idle(fleet *f, replica *r, double now)
{
	r->span = SPAN_NONE;
	if (r->phase != PH_IDLE) {
		set_phase(f, r, PH_IDLE, now);
		r->free_since = now;
	}
	if (r->state == AIW_REPLICA_DRAINING) {
		if (r->outstanding == 0)
			retire(f, r, now);
		return;
	}
	if (f->batching == B_DYNAMIC)
		ensure_timer(f, r, now);
	if (f->router == RT_CENTRAL)
		idle_add(f, (uint32_t)(r - f->rep));
}

static void step(fleet *f, replica *r, double now)
{
	if (r->state != AIW_REPLICA_READY && r->state != AIW_REPLICA_DRAINING)
		return;
	double ptok = 0;
	f->nadm = 0;
	uint32_t nadm = admit(f, r, now, &ptok);
	if (r->nrun == 0) {
		go_idle(f, r, now);
		return;
	}
	if (!f->service_mode) {
		start_span(f, r, now, nadm, ptok);
		return;
	}
	double t = run_min(r);
	r->span = SPAN_SERVICE;
	set_phase(f, r, PH_DECODE, now);
	if (f->ak[(uint32_t)(r - f->rep)] != tbits(t)) /* (none pending: NONE) */
		schedule(f, r, t);
}

/* End of a roofline span: its k_end decode iterations are done. */
static void span_done(fleet *f, replica *r, double now)
{
	double k = r->sp.k_end, n = r->sp.n;
	if (k > 0) {
		r->it += k;
		r->S += n * k;
		f->tokens_out += n * k;
		f->flops += 2 * f->P * n * k;
		f->bs[r->sp.n] += (uint64_t)k;
		if (f->batching == B_CONTINUOUS)
			f->kv_peak_tokens = r->S > f->kv_peak_tokens ? r->S : f->kv_peak_tokens;
	}
	while (r->nrun && run_min(r) <= r->it)
		complete(f, r, run_pop(r).id, now);
}

static void service_done(fleet *f, replica *r, double now)
{
	while (r->nrun && run_min(r) <= now)
		complete(f, r, run_pop(r).id, now);
}

static void make_ready(fleet *f, replica *r, double now);

static void replica_event(fleet *f, replica *r, double now)
{
	switch (r->span) {
	case SPAN_LOAD:
		make_ready(f, r, now);
		return;
	case SPAN_RUN:
		if (r->pend)
			eager_settle(f, r);
		span_done(f, r, now);
		break;
	case SPAN_SERVICE:
		service_done(f, r, now);
		break;
	default:
		break;
	}
	r->span = SPAN_NONE;
	step(f, r, now);
}

static bool arrive(fleet *f, double now);

/* The one engine event of the component: it runs the span ends and the
 * arrivals that are due, then the next ones for as long as they come before
 * every other event of the sim (most of the time under load), as the engine
 * would have run them, without a push and a pop each. */
static void master_event(aiw_sim *sim, void *ctx, uint64_t arg)
{
	fleet *f = ctx;
	double now = aiwi_now(sim);
	f->master = 0;
	f->in_master = true;
	uint64_t nowb = tbits(now);
	while (!f->fail) {
		/* the earlier of the agenda's first span end and the next arrival
		 * (span ends first at equal times; NONE and +inf's bits are above
		 * every time's): one branch on which it is, rather than a loop
		 * over each kind, whose exits the predictor would miss */
		uint32_t s;
		uint64_t k = ag_top(f, &s), ab = tbits(f->arr_t);
		bool span = k <= ab;
		uint64_t tb = span ? k : ab;
		if (tb > nowb) {
			double t = btime(tb);
			if (!(t < INFINITY) || !aiwi_engine_run_inline(f->eng, t))
				break;
			now = f->eng->now;
			nowb = tbits(now);
		}
		if (span) {
			/* the replica keeps its entry while it handles its event, so
			 * that a new span end updates its path once; if it scheduled
			 * nothing, its entry goes */
			replica *r = &f->rep[s];
			r->resched = 0;
			replica_event(f, r, now);
			if (!r->resched)
				ag_remove(f, r);
		} else {
			/* the first span end is most often the next event after
			 * this arrival: its replica's first line comes in
			 * meanwhile (it is out of the cache more often than not) */
			if (k != NONE)
				__builtin_prefetch(&f->rep[s], 1);
			if (!arrive(f, now))
				break;
		}
	}
	f->in_master = false;
	ag_sync(f);
}

/* A request became available to r: start it, or cut the running span at its
 * next iteration boundary so that it joins there (continuous). */
static void kick(fleet *f, replica *r, double now)
{
	switch (r->span) {
	case SPAN_NONE:
		step(f, r, now);
		break;
	case SPAN_RUN: {
		if (r->pend) {
			if (now < r->sp.t0) {
				if (!r->pre.len) {
					eager_merge(f, r, now);
					break;
				}
				/* requeued requests (a failed replica's) go first at
				 * the boundary: its admissions again, in that order */
				double kb = r->pv.k_end, tb = r->sp.t0;
				eager_undo(f, r, now);
				eager_cut(f, r, now, kb, tb);
				break;
			}
			eager_settle(f, r);
		}
		if (f->batching != B_CONTINUOUS || r->cut || r->nrun >= f->max_batch)
			break;
		double x = now - r->sp.t0 - r->sp.tp;
		double tn = NAN; /* T(kb) when span_done_by_next computed it */
		double kb = x < 0 ? 0 : span_done_by_next(&r->sp, x, &tn) + 1;
		r->cut = 1;
		if (kb < r->sp.k_end) {
			double tb = r->sp.t0 + r->sp.tp + (isnan(tn) ? span_T(&r->sp, kb) : tn);
			if (!f->eager || !eager_cut(f, r, now, kb, tb)) {
				r->sp.k_end = kb;
				schedule(f, r, tb);
			}
		}
		break;
	}
	case SPAN_SERVICE:
		if (f->batching == B_CONTINUOUS && r->nrun < f->max_batch)
			step(f, r, now);
		break;
	default:
		break; /* loading: it admits when ready */
	}
}

/* ---- dynamic-batch timers ---- */
static void central_dispatch(fleet *f, double now);

static void timer_event(aiw_sim *sim, void *ctx, uint64_t arg)
{
	fleet *f = ctx;
	double now = aiwi_now(sim);
	if (arg == NIL) {
		f->cq_tmr = 0;
		central_dispatch(f, now);
		return;
	}
	replica *r = &f->rep[arg];
	r->tmr = 0;
	if (r->span == SPAN_NONE)
		step(f, r, now);
}

static void ensure_timer(fleet *f, replica *r, double now)
{
	queue *s = source(f, r);
	if (!s->len)
		return;
	double t = f->rq[s->head].t_arr + f->max_delay;
	if (s == &f->cq) {
		if (!f->cq_tmr)
			f->cq_tmr = aiwi_at(f->sim, t, timer_event, f, NIL);
	} else if (!r->tmr) {
		r->tmr = aiwi_at(f->sim, t, timer_event, f, (uint64_t)(r - f->rep));
	}
}

/* Central queue: let idle replicas pull; for continuous batching with no
 * idle replica, cut the least loaded busy one that has room. */
static void central_dispatch(fleet *f, double now)
{
	purge(f, &f->cq, NULL, now);
	while (f->cq.len && f->nidle) {
		replica *r = &f->rep[f->idle[f->nidle - 1]];
		idle_remove(f, (uint32_t)(r - f->rep));
		step(f, r, now);
		if (r->span == SPAN_NONE) /* rule not met (dynamic): wait for the timer */
			break;
	}
	uint32_t ll;
	if (f->cq.len && f->batching == B_CONTINUOUS && f->nidle == 0 &&
	    (ll = least_loaded(f)) != NIL) {
		replica *r = &f->rep[ll];
		if (r->nrun < f->max_batch)
			kick(f, r, now);
	}
	if (f->cq.len && f->batching == B_DYNAMIC && f->nidle && !f->cq_tmr)
		ensure_timer(f, &f->rep[f->idle[f->nidle - 1]], now);
}

/* ======================================================================== */
/* routing                                                                   */
/* ======================================================================== */
static uint32_t choose(fleet *f)
{
	switch (f->router) {
	case RT_ROUND_ROBIN:
		if (f->rr >= f->nready)
			f->rr = 0;
		return f->ready[f->rr++];
	case RT_LEAST_LOADED:
		return least_loaded(f);
	case RT_P2C: {
		if (f->nready == 1)
			return f->ready[0];
		uint32_t i = (uint32_t)gsl_rng_uniform_int(f->rng_route, f->nready);
		uint32_t j = (uint32_t)gsl_rng_uniform_int(f->rng_route, f->nready - 1);
		if (j >= i)
			j++;
		uint32_t a = f->ready[i], b = f->ready[j];
		return f->rep[b].outstanding < f->rep[a].outstanding ? b : a;
	}
	}
	return f->ready[0];
}

/* Place a request that is in no queue.  FRESH: a new arrival (queue limit
 * applies); MOVE: from the router's waiting queue to a replica's queue, in
 * arrival order; REQUEUE: restarted after its replica failed (in front, or
 * in the replica's preempted list). */
enum { FRESH, MOVE, REQUEUE };
static void route(fleet *f, uint32_t id, int how, double now)
{
	if (f->router == RT_CENTRAL || f->nready == 0) {
		if (how == FRESH) {
			purge(f, &f->cq, NULL, now);
			if (f->cq.len >= f->qlimit) {
				drop(f, id, DROP_QUEUE_FULL);
				return;
			}
			q_push(f, &f->cq, id);
		} else {
			q_push_front(f, &f->cq, id);
		}
		waiting_add(f, now, +1);
		if (f->router == RT_CENTRAL)
			central_dispatch(f, now);
		return;
	}
	replica *r = &f->rep[choose(f)];
	if (how == FRESH) {
		purge(f, &r->q, r, now);
		/* (requests of a pending start are still in the queue) */
		if (r->q.len + (r->pend && now < r->sp.t0 ? r->pnq : 0) >= f->qlimit) {
			drop(f, id, DROP_QUEUE_FULL);
			return;
		}
		q_push(f, &r->q, id);
	} else {
		q_push(f, how == MOVE ? &r->q : &r->pre, id);
	}
	waiting_add(f, now, +1);
	out_add(f, r, +1);
	kick(f, r, now);
}

/* Requests that waited at the router for a replica to be ready. */
static void reroute_central(fleet *f, double now)
{
	if (f->router == RT_CENTRAL) {
		central_dispatch(f, now);
		return;
	}
	while (f->cq.len && f->nready) {
		uint32_t id = q_pop(f, &f->cq);
		waiting_add(f, now, -1);
		route(f, id, MOVE, now);
	}
}

/* ======================================================================== */
/* arrivals                                                                  */
/* ======================================================================== */
static inline uint32_t tokens_of(double x)
{
	return aiwi_round_count(x);
}

/* A draw of d, the two common forms by the cheaper route: lognormals
 * through the ziggurat normal (no log per draw), exponentials through the
 * exponential ziggurat (lib/core/rng.h; tables built by inference_start). */
static inline double draw(const aiwi_dist *d, gsl_rng *r)
{
	if (d->kind == AIW_D_LOGNORMAL)
		return exp(d->a + d->b * gsl_ran_gaussian_ziggurat(r, 1.0));
	if (d->kind == AIW_D_EXP)
		return d->a * aiwi_rng_exponential(r);
	return aiwi_dist_sample(d, r);
}

/* The next arrival's sizes by table: their uniform words drawn now, one
 * arrival ahead (from the size stream, which nothing else draws from; a
 * tail's inversion draws its uniform when its arrival comes, after both
 * words), and the columns they pick fetched meanwhile, so that the arrival
 * finds them in the first-level cache (a table's columns are read at
 * random). */
static inline void sizes_ahead(fleet *f)
{
	if (f->tok_p) {
		f->xp = aiwi_rng_u32(f->rng_size);
		__builtin_prefetch(aiwi_count_slot(f->tok_p, f->xp));
	}
	if (f->tok_o) {
		f->xo = aiwi_rng_u32(f->rng_size);
		__builtin_prefetch(aiwi_count_slot(f->tok_o, f->xo));
	}
}

/* A size from its table and its word drawn ahead. */
static inline uint32_t size_by_table(const fleet *f, const aiwi_count_table *t, uint32_t x)
{
	uint32_t n = aiwi_count_pick(t, x);
	return AIW_LIKELY(n) ? n : aiwi_count_tail(t, f->rng_size);
}

/* Arrivals drawn ahead, from now on (the traffic draws from the component's
 * stream only, so they are the times it would give one at a time). */
#define ABUF 64
static void arrivals_ahead(fleet *f, double now)
{
	f->an = (uint32_t)aiwi_traffic_next_n(f->tr, f->c->rng, now, f->abuf, ABUF);
	f->ai = 0;
}

/* The arrival after the one at now: from the buffer, refilled when empty
 * (a trace's one row at a time, its sizes to next_p, next_o). */
static inline double next_arrival(fleet *f, double now)
{
	if (f->an) {
		if (AIW_UNLIKELY(f->ai == f->an))
			arrivals_ahead(f, now);
		return f->abuf[f->ai++];
	}
	return aiwi_traffic_next(f->tr, f->c->rng, now, &f->next_p, &f->next_o);
}

/* The arrival due at now (run by the master event); false when the run
 * fails here (the trace could not be read, too many requests in flight). */
static bool arrive(fleet *f, double now)
{
	aiwi_comp *c = f->c;
	aiw_sim *sim = f->sim;
	double p = f->next_p, o = f->next_o;
	/* the next arrival first: its sizes come with it from a trace */
	double nt = next_arrival(f, now);
	f->arr_t = INFINITY;
	if (isnan(nt)) {
		aiwi_err(sim, AIW_EIO, "%s: %s", c->prefix, aiwi_traffic_errmsg(f->tr));
		aiwi_fail(sim, AIW_EIO);
		return false;
	}
	if (isfinite(nt))
		f->arr_t = nt;
	f->arrived++;
	uint32_t prompt, output;
	double svc = 0;
	if (f->service_mode) {
		/* a queue: sizes only matter for the token counts, taken from a
		 * trace when there is one and not drawn otherwise */
		svc = draw(aiwi_pd(c, P_SERVICE), f->rng_size);
		prompt = isnan(p) ? 0 : tokens_of(p);
		output = isnan(o) ? 0 : tokens_of(o);
	} else {
		/* sizes from the trace, or drawn: by table (dist.c), or drawn
		 * and rounded */
		prompt = !isnan(p) ? tokens_of(p)
		         : f->tok_p ? size_by_table(f, f->tok_p, f->xp)
		                    : tokens_of(draw(aiwi_pd(c, P_PROMPT_TOKENS), f->rng_size));
		output = !isnan(o) ? tokens_of(o)
		         : f->tok_o ? size_by_table(f, f->tok_o, f->xo)
		                    : tokens_of(draw(aiwi_pd(c, P_OUTPUT_TOKENS), f->rng_size));
		sizes_ahead(f);
	}
	if (!f->service_mode && (double)prompt + output > f->cap_tokens) {
		f->dropped[DROP_KV_TOO_LARGE]++;
		return true;
	}
	uint32_t id = req_alloc(f);
	if (id == NIL) {
		bool limit = f->nrq >= MAX_IN_FLIGHT;
		if (limit)
			aiwi_err(sim, AIW_ELIMIT,
			         "%s: more than %u requests in flight (the fleet is overloaded); set "
			         "queue_limit or timeout, or add replicas",
			         c->prefix, MAX_IN_FLIGHT);
		else
			aiwi_err(sim, AIW_ENOMEM, "%s: out of memory", c->prefix);
		aiwi_fail(sim, limit ? AIW_ELIMIT : AIW_ENOMEM);
		f->arrived--; /* never entered the model: the run stops here */
		return false;
	}
	req *q = &f->rq[id];
	q->t_arr = now;
	if (f->service_mode)
		q->key = svc > 0 ? svc : 0;
	else
		q->t_first = NAN;
	q->prompt = prompt;
	q->output = output;
	q->gen = 0;
	q->started = 0;
	route(f, id, FRESH, now);
	return true;
}

/* ======================================================================== */
/* replica lifecycle                                                         */
/* ======================================================================== */
static int slot_new(fleet *f)
{
	if (f->nfree)
		return (int)free_pop(f);
	if (f->nslots >= MAX_SLOTS)
		return aiwi_err(f->sim, AIW_ELIMIT, "%s: more than %u replica slots", f->c->prefix,
		                MAX_SLOTS);
	if (f->nslots == f->capslots) {
		uint32_t n = f->capslots ? 2 * f->capslots : 16;
		/* aligned to a cache line, as replica is (its layout is by line) */
		replica *p = aligned_alloc(_Alignof(replica), (size_t)n * sizeof *p);
		if (!p)
			return aiwi_err(f->sim, AIW_ENOMEM, "out of memory");
		if (f->nslots)
			memcpy(p, f->rep, (size_t)f->nslots * sizeof *p);
		free(f->rep);
		f->rep = p;
		struct blink *bl = realloc(f->bl, (size_t)n * sizeof *bl);
		if (!bl)
			return aiwi_err(f->sim, AIW_ENOMEM, "out of memory");
		f->bl = bl;
		uint32_t *a = realloc(f->ready, (size_t)n * sizeof *a);
		if (!a)
			return aiwi_err(f->sim, AIW_ENOMEM, "out of memory");
		f->ready = a;
		uint32_t *b = realloc(f->idle, (size_t)n * sizeof *b);
		if (!b)
			return aiwi_err(f->sim, AIW_ENOMEM, "out of memory");
		f->idle = b;
		uint32_t *h = realloc(f->freeh, (size_t)n * sizeof *h);
		if (!h)
			return aiwi_err(f->sim, AIW_ENOMEM, "out of memory");
		f->freeh = h;
		f->capslots = n;
	}
	if (!ag_grow(f, f->nslots + 1))
		return aiwi_err(f->sim, AIW_ENOMEM, "out of memory");
	replica *r = &f->rep[f->nslots];
	memset(r, 0, sizeof *r);
	double first = (double)f->nslots * f->g;
	r->rack0 = (uint32_t)(first / f->gpr);
	r->rack1 = (uint32_t)((first + f->g - 1) / f->gpr);
	r->state = AIW_REPLICA_FREE;
	r->phase = PH_OFF;
	f->nph[PH_OFF]++;
	f->nstate[AIW_REPLICA_FREE]++;
	return (int)f->nslots++;
}

static void make_ready(fleet *f, replica *r, double now)
{
	uint32_t id = (uint32_t)(r - f->rep);
	f->nstate[r->state]--;
	r->state = AIW_REPLICA_READY;
	f->nstate[AIW_REPLICA_READY]++;
	r->span = SPAN_NONE;
	set_phase(f, r, PH_IDLE, now);
	r->free_since = now;
	ready_add(f, id);
	if (f->router == RT_CENTRAL)
		idle_add(f, id);
	reroute_central(f, now);
	if (r->span == SPAN_NONE && r->state == AIW_REPLICA_READY)
		step(f, r, now);
}

int aiwi_serving_add_replica(aiwi_comp *c, double cold_start_s, bool spot)
{
	if (!aiwi_serving_active(c))
		return AIW_ESTATE;
	fleet *f = F_(c);
	if (!(cold_start_s >= 0) || !isfinite(cold_start_s))
		return aiwi_err(c->sim, AIW_ERANGE, "%s: cold start %g s must be finite and >= 0",
		                c->prefix, cold_start_s);
	int s = slot_new(f);
	if (s < 0)
		return s;
	replica *r = &f->rep[s];
	double now = aiwi_now(c->sim);
	q_init(&r->q);
	q_init(&r->pre);
	run_clear(r);
	r->S = r->resv = r->it = 0;
	r->outstanding = 0;
	r->tmr = 0;
	r->inb = r->in_idle = r->cut = 0;
	r->spot = spot ? 1 : 0;
	f->nstate[AIW_REPLICA_FREE]--;
	r->state = AIW_REPLICA_LOADING;
	f->nstate[AIW_REPLICA_LOADING]++;
	r->span = SPAN_LOAD;
	set_phase(f, r, PH_LOADING, now);
	if (cold_start_s > 0)
		schedule(f, r, now + cold_start_s);
	else
		make_ready(f, r, now);
	return f->fail ? AIW_ENOMEM : s;
}

static bool valid_id(const fleet *f, int id)
{
	return id >= 0 && (uint32_t)id < f->nslots && f->rep[id].state != AIW_REPLICA_FREE;
}

int aiwi_serving_remove_replica(aiwi_comp *c, int id)
{
	if (!aiwi_serving_active(c))
		return AIW_ESTATE;
	fleet *f = F_(c);
	double now = aiwi_now(c->sim);
	if (id < 0) {
		for (uint32_t i = f->nslots; i-- > 0;)
			if (f->rep[i].state == AIW_REPLICA_LOADING) {
				id = (int)i;
				break;
			}
		if (id < 0 && f->nready) {
			uint32_t ll = least_loaded(f);
			id = (int)(ll != NIL ? ll : f->ready[0]);
		}
		if (id < 0)
			return aiwi_err(c->sim, AIW_ESTATE, "%s: no loading or ready replica to remove",
			                c->prefix);
	} else if (!valid_id(f, id) || f->rep[id].state == AIW_REPLICA_DRAINING) {
		return aiwi_err(c->sim, AIW_EINVAL, "%s: replica %d is not loading or ready",
		                c->prefix, id);
	}
	replica *r = &f->rep[id];
	if (r->state == AIW_REPLICA_LOADING) {
		retire(f, r, now);
		return id;
	}
	ready_remove(f, (uint32_t)id);
	idle_remove(f, (uint32_t)id);
	f->nstate[r->state]--;
	r->state = AIW_REPLICA_DRAINING;
	f->nstate[AIW_REPLICA_DRAINING]++;
	if (r->tmr) { /* a draining replica serves what it holds without waiting */
		aiwi_cancel(f->sim, r->tmr);
		r->tmr = 0;
	}
	if (r->span == SPAN_NONE) {
		if (r->outstanding == 0)
			retire(f, r, now);
		else
			step(f, r, now);
	}
	return id;
}

aiw_status aiwi_serving_fail_replica(aiwi_comp *c, int id)
{
	if (!aiwi_serving_active(c))
		return AIW_ESTATE;
	fleet *f = F_(c);
	if (!valid_id(f, id))
		return aiwi_err(c->sim, AIW_EINVAL, "%s: replica %d is not provisioned", c->prefix, id);
	double now = aiwi_now(c->sim);
	replica *r = &f->rep[id];
	if (r->pend) {
		if (now < r->sp.t0)
			eager_undo(f, r, now);
		else
			eager_settle(f, r);
	}
	uint32_t nhold = r->nrun + r->pre.len + r->q.len;
	uint32_t *hold = nhold ? malloc((size_t)nhold * sizeof *hold) : NULL;
	if (nhold && !hold)
		return aiwi_err(c->sim, AIW_ENOMEM, "out of memory");
	uint32_t k = 0;
	if (r->span == SPAN_RUN) {
		/* the state at now: decode iterations done, the prefill not yet
		 * finished (its tokens were booked ahead: take them back) */
		double x = now - r->sp.t0 - r->sp.tp;
		bool in_prefill = x < 0;
		double done = in_prefill ? 0 : fmin(span_done_by(&r->sp, x), r->sp.k_end);
		r->it += done;
		f->tokens_out += r->sp.n * done;
		f->flops += 2 * f->P * r->sp.n * done;
		f->bs[r->sp.n] += (uint64_t)done;
		if (in_prefill) {
			double undone = (r->sp.t0 + r->sp.tp - now) / r->sp.tp;
			book_prefill(f, r, r->sp.t0 + r->sp.tp - now, -1);
			f->tokens_out -= r->sp.nfirst;
			f->flops -= 2 * f->P * r->sp.ptok * undone;
			f->tokens_prefill -= r->sp.ptok * undone;
		}
		for (uint32_t i = 0; i < r->nrun; i++) {
			req *q = &f->rq[run_at(r, i)->id];
			/* admitted by this span: since seq0 */
			if (in_prefill && (uint32_t)(run_at(r, i)->seq - r->seq0) < (uint32_t)(f->seq - r->seq0)) {
				q->gen--; /* its prefill token never came */
				if (q->t_first == r->sp.t0 + r->sp.tp)
					q->t_first = NAN; /* (its TTFT sample stays recorded) */
			} else {
				q->gen = q->output - (uint32_t)(run_at(r, i)->key - r->it);
			}
		}
	}
	for (uint32_t i = 0; i < r->nrun; i++) {
		const rent *e = run_at(r, i);
		req *q = &f->rq[e->id];
		if (f->service_mode) /* what is left of its service */
			q->key = e->key > now ? e->key - now : 0;
		hold[k++] = e->id;
	}
	uint32_t nrun = r->nrun;
	f->nrunning -= nrun;
	f->preemptions += nrun;
	waiting_add(f, now, (int)nrun);
	while (r->pre.len)
		hold[k++] = q_pop(f, &r->pre);
	while (r->q.len)
		hold[k++] = q_pop(f, &r->q);
	run_clear(r);
	r->S = r->resv = 0;
	if (r->inb)
		bucket_remove(f, (uint32_t)id);
	r->outstanding = 0;
	retire(f, r, now);
	/* the router's queue takes them in front: requeue in reverse there to
	 * keep their order; a replica's preempted list takes them at the back */
	waiting_add(f, now, -(int)k);
	bool front = f->router == RT_CENTRAL || f->nready == 0;
	for (uint32_t i = 0; i < k; i++)
		route(f, hold[front ? k - 1 - i : i], REQUEUE, now);
	free(hold);
	return AIW_OK;
}

/* ======================================================================== */
/* the component                                                             */
/* ======================================================================== */
bool aiwi_serving_active(const aiwi_comp *c)
{
	return c && c->kind == &aiwi_kind_inference && c->state;
}

static void emit_metrics(aiwi_comp *c, double t);

static aiw_status inference_start(aiwi_comp *c)
{
	aiwi_rng_exp_init();
	aiw_sim *sim = c->sim;
	fleet *f = calloc(1, sizeof *f);
	if (!f)
		return aiwi_err(sim, AIW_ENOMEM, "out of memory");
	c->state = f;
	f->c = c;
	f->sim = sim;
	f->eng = aiwi_sim_engine(sim);
	f->free_head = NIL;
	q_init(&f->cq);
	f->spot_factor = 1;
	f->master_t = INFINITY;
	f->arr_t = INFINITY;
	f->at_key = NONE;
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
	f->service_mode = aiwi_pset(c, P_SERVICE);
	f->g = aiwi_p(c, P_GPUS_PER_REPLICA);
	f->P = aiwi_p(c, P_MODEL_PARAMS);
	f->Wb = f->P * aiwi_p(c, P_WEIGHT_BITS) / 8;
	f->kvpt = aiwi_pset(c, P_KV_BYTES_PER_TOKEN)
	                  ? aiwi_p(c, P_KV_BYTES_PER_TOKEN)
	                  : 2 * aiwi_p(c, P_LAYERS) * aiwi_p(c, P_KV_HEADS) * aiwi_p(c, P_HEAD_DIM) *
	                            aiwi_p(c, P_KV_BITS) / 8;
	double peak = aiwi_p(c, P_WEIGHT_BITS) <= 8 && f->gpu.fp8_flops > 0 ? f->gpu.fp8_flops
	                                                                   : f->gpu.bf16_flops;
	f->F = f->g * peak * aiwi_p(c, P_MFU);
	f->BW = f->g * f->gpu.mem_bw * aiwi_p(c, P_MEM_BW_EFF);
	f->t_weights = f->Wb / f->BW;
	f->pf_s = 2 * f->P / f->F;
	f->kv_s = f->kvpt / f->BW;
	double usable = f->g * f->gpu.mem_bytes * (1 - aiwi_p(c, P_KV_MARGIN));
	f->cap_tokens = floor((usable - f->Wb) / f->kvpt);
	if (!f->service_mode && !(f->cap_tokens >= 2))
		return aiwi_err(sim, AIW_ERANGE,
		                "%s: weights of %.4g GB (model_params %g at weight_bits %g) do not fit "
		                "with room for a KV cache in gpus_per_replica = %g x %.4g GB (%s) less "
		                "kv_margin %g; raise gpus_per_replica or lower weight_bits",
		                c->prefix, f->Wb / 1e9, f->P, aiwi_p(c, P_WEIGHT_BITS), f->g,
		                f->gpu.mem_bytes / 1e9, f->gpu.name, aiwi_p(c, P_KV_MARGIN));
	f->gpr = aiwi_site_gpus_per_rack(sim);
	f->max_batch = (uint32_t)aiwi_p(c, P_MAX_BATCH);
	f->max_delay = aiwi_p(c, P_MAX_QUEUE_DELAY);
	f->timeout = aiwi_pset(c, P_TIMEOUT) ? aiwi_p(c, P_TIMEOUT) : INFINITY;
	f->qlimit = aiwi_pset(c, P_QUEUE_LIMIT) ? (uint64_t)aiwi_p(c, P_QUEUE_LIMIT) : UINT64_MAX;
	f->eager = aiwi_serving_eager && f->batching == B_CONTINUOUS && !f->service_mode &&
	           f->router != RT_CENTRAL && !(f->timeout < INFINITY) && f->max_batch <= RUN_SORTED;
	f->slo_ttft = aiwi_pset(c, P_SLO_TTFT) ? aiwi_p(c, P_SLO_TTFT) : INFINITY;
	f->slo_tpot = aiwi_pset(c, P_SLO_TPOT) ? aiwi_p(c, P_SLO_TPOT) : INFINITY;
	f->slo_e2e = aiwi_pset(c, P_SLO_E2E) ? aiwi_p(c, P_SLO_E2E) : INFINITY;
	f->resp_bytes = aiwi_p(c, P_RESPONSE_BYTES);
	double ovh = f->price.node_overhead_w / aiwi_p(c, P_GPUS_PER_NODE);
	f->w_tot[PH_OFF] = 0;
	f->w_tot[PH_LOADING] = f->gpu.loading_w + ovh;
	f->w_tot[PH_IDLE] = f->gpu.idle_w + ovh;
	f->w_tot[PH_PREFILL] = f->gpu.prefill_w + ovh;
	f->w_tot[PH_DECODE] = f->gpu.decode_w + ovh;
	f->w_pre_extra = f->gpu.prefill_w - f->gpu.decode_w;

	/* traffic */
	aiwi_traffic_conf tc;
	aiwi_traffic_conf_default(&tc);
	tc.kind = (aiwi_traffic_kind)(int)aiwi_p(c, P_TRAFFIC);
	tc.prefix = c->prefix;
	tc.rate = aiwi_p(c, P_RATE);
	tc.peak_to_trough = aiwi_p(c, P_PEAK_TO_TROUGH);
	tc.peak_hour = aiwi_p(c, P_PEAK_HOUR);
	tc.weekend_factor = aiwi_p(c, P_WEEKEND_FACTOR);
	tc.cv = aiwi_p(c, P_CV);
	tc.modulate = aiwi_p(c, P_MODULATE) != 0;
	tc.trace_path = aiwi_ps(c, P_TRACE_FILE);
	tc.base_dir = aiwi_base_dir(sim);
	tc.time_scale = aiwi_p(c, P_TRACE_TIME_SCALE);
	tc.loop = aiwi_p(c, P_TRACE_LOOP) != 0;
	if (tc.kind == AIW_TRAFFIC_TRACE && !aiwi_pset(c, P_TRACE_FILE))
		return aiwi_err(sim, AIW_EINVAL,
		                "%s.trace_file is not set: traffic = trace needs a CSV file", c->prefix);
	char e[512];
	st = aiwi_traffic_new(&f->tr, &tc, e, sizeof e);
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
	/* request sizes by table (a trace brings its own) */
	if (!f->service_mode && tc.kind != AIW_TRAFFIC_TRACE &&
	    (aiwi_count_table_new(aiwi_pd(c, P_PROMPT_TOKENS), SIZE_TABLE_MAX, SIZE_TABLE_TAIL, &f->tok_p) != AIW_OK ||
	     aiwi_count_table_new(aiwi_pd(c, P_OUTPUT_TOKENS), SIZE_TABLE_MAX, SIZE_TABLE_TAIL, &f->tok_o) != AIW_OK))
		return aiwi_err(sim, AIW_ENOMEM, "out of memory");

	/* statistics */
	aiwi_hist *hs[5] = {&f->ttft, &f->ttft_win, &f->tpot, &f->e2e, &f->wait};
	for (int i = 0; i < 5; i++)
		if ((st = aiwi_hist_init(hs[i], AIW_HIST_MIN_S, AIW_HIST_MAX_S, AIW_HIST_REL_ERR, e,
		                        sizeof e)) != AIW_OK)
			return aiwi_err(sim, st, "%s: %s", c->prefix, e);
	f->bs = calloc((size_t)f->max_batch + 1, sizeof *f->bs);
	f->adm = calloc((size_t)f->max_batch, sizeof *f->adm);
	if (!f->bs || !f->adm)
		return aiwi_err(sim, AIW_ENOMEM, "out of memory");

	/* curves */
	struct {
		int *id;
		const char *key, *unit;
	} curves[] = {
		{&f->id_arr, "arrival_rate", "1/s"},     {&f->id_thr, "throughput", "1/s"},
		{&f->id_good, "goodput_rps", "1/s"},     {&f->id_ttft99, "ttft_p99_s", "s"},
		{&f->id_qlen, "queue_length", "1"},      {&f->id_busy, "busy_replicas", "1"},
		{&f->id_reps, "replicas", "1"},          {&f->id_tok, "tokens_per_s", "1/s"},
		{&f->id_resp, "response_bytes_per_s", "B/s"},
		{&f->id_cu, "compute_utilization", "1"},
	};
	for (size_t i = 0; i < sizeof curves / sizeof *curves; i++) {
		char n[256];
		snprintf(n, sizeof n, "%s.%s", c->prefix, curves[i].key);
		if ((*curves[i].id = aiwi_rec_add(sim, n, curves[i].unit)) < 0)
			return (aiw_status)*curves[i].id;
	}

	if (!ag_grow(f, 2))
		return aiwi_err(sim, AIW_ENOMEM, "out of memory");
	aiwi_int_init(&f->energy, 0, 0);
	aiwi_int_init(&f->busy, 0, 0);
	aiwi_int_init(&f->paid, 0, 0);
	aiwi_int_init(&f->cost, 0, 0);
	aiwi_int_init(&f->waiting, 0, 0);

	/* the initial replicas, ready at t = 0 */
	uint32_t nrep = (uint32_t)aiwi_p(c, P_REPLICAS);
	for (uint32_t i = 0; i < nrep; i++) {
		int s = aiwi_serving_add_replica(c, 0, false);
		if (s < 0)
			return (aiw_status)s;
	}
	c->gpus = f->paid.value;
	/* the autoscaler, if any, takes over the replica count from here */
	if ((st = aiwi_autoscale_start(c, P_AUTOSCALE)) != AIW_OK)
		return st;

	/* the first arrival */
	f->next_p = f->next_o = NAN;
	f->abuf = malloc(ABUF * sizeof *f->abuf);
	if (!f->abuf)
		return aiwi_err(sim, AIW_ENOMEM, "%s: out of memory", c->prefix);
	arrivals_ahead(f, 0);
	double t = next_arrival(f, 0);
	sizes_ahead(f);
	if (isnan(t))
		return aiwi_err(sim, AIW_EIO, "%s: %s", c->prefix, aiwi_traffic_errmsg(f->tr));
	f->arr_t = isfinite(t) ? t : INFINITY;
	ag_sync(f);
	return f->fail ? AIW_ENOMEM : AIW_OK;
}

/* Output tokens emitted up to t: the decode iterations of the spans in
 * progress count as they finish, a span's prefill tokens at its end. */
static double tokens_at(const fleet *f, double t)
{
	double tok = f->tokens_out;
	if (f->service_mode)
		return tok;
	for (uint32_t i = 0; i < f->nslots; i++) {
		const replica *r = &f->rep[i];
		if (r->span != SPAN_RUN)
			continue;
		const span *sp = span_at(r, t);
		double x = t - sp->t0 - sp->tp;
		if (x < 0)
			tok -= sp->nfirst;
		else
			tok += sp->n * fmin(span_done_by(sp, x), sp->k_end);
	}
	return tok;
}

/* FLOPs done up to t: prefill FLOPs are booked when a span starts and run
 * at a constant rate over its prefill; decode iterations count as they end. */
static double flops_at(const fleet *f, double t)
{
	double fl = f->flops;
	if (f->service_mode)
		return fl;
	for (uint32_t i = 0; i < f->nslots; i++) {
		const replica *r = &f->rep[i];
		if (r->span != SPAN_RUN)
			continue;
		const span *sp = span_at(r, t);
		double x = t - sp->t0 - sp->tp;
		if (x < 0)
			fl -= 2 * f->P * sp->ptok * (-x / sp->tp);
		else
			fl += 2 * f->P * sp->n * fmin(span_done_by(sp, x), sp->k_end);
	}
	return fl;
}

/* IT energy up to t: the phase integral, plus the prefill energy booked by
 * the spans, less what of it lies after t. */
static double energy_at(const fleet *f, double t)
{
	double e = f->energy.sum + f->energy_adj;
	if (f->service_mode)
		return e;
	for (uint32_t i = 0; i < f->nslots; i++)
		e -= prefill_pending(f, &f->rep[i], t) * f->g;
	return e;
}

static void bring_to(aiwi_comp *c, double t)
{
	fleet *f = F_(c);
	purge_all(f, t);
	advance(f, t);
	aiwi_int_advance(&f->waiting, t);
	c->energy_j = energy_at(f, t);
	c->busy_gpu_s = f->busy.sum;
	c->paid_gpu_s = f->paid.sum;
	c->cost_usd = f->cost.sum;
	c->gpus = f->paid.value;
}

static void inference_sample(aiwi_comp *c, double t)
{
	fleet *f = F_(c);
	if (!f)
		return;
	aiw_sim *sim = c->sim;
	eager_settle_all(f, t);
	bring_to(c, t);
	double w_ahead = 0;
	eager_waiting(f, t, &w_ahead);
	double wsum = f->waiting.sum - w_ahead; /* as the boundary events would have it */
	double dt = aiwi_rec_dt(sim);
	double tok = tokens_at(f, t), fl = flops_at(f, t);
	double peak_gpu = f->F / f->g / aiwi_p(c, P_MFU); /* FLOP/s of one GPU */
	double ttft99 = aiwi_hist_quantile(&f->ttft_win, 0.99);
	aiwi_hist_merge(&f->ttft, &f->ttft_win);
	aiwi_hist_reset(&f->ttft_win);
	if (dt > 0) {
		aiwi_rec_put(sim, f->id_arr, (double)(f->arrived - f->prev_arrived) / dt);
		aiwi_rec_put(sim, f->id_thr, (double)(f->completed - f->prev_completed) / dt);
		aiwi_rec_put(sim, f->id_good, (double)(f->met_all - f->prev_met) / dt);
		aiwi_rec_put(sim, f->id_qlen, (wsum - f->prev_waiting) / dt);
		aiwi_rec_put(sim, f->id_busy, (f->busy.sum - f->prev_busy) / f->g / dt);
		aiwi_rec_put(sim, f->id_reps, (f->paid.sum - f->prev_paid) / f->g / dt);
		aiwi_rec_put(sim, f->id_tok, (tok - f->prev_tokens) / dt);
		aiwi_rec_put(sim, f->id_resp, (tok - f->prev_tokens) * f->resp_bytes / dt);
		double dp = f->paid.sum - f->prev_paid;
		aiwi_rec_put(sim, f->id_cu, dp > 0 ? (fl - f->prev_flops) / (dp * peak_gpu) : 0);
	}
	aiwi_rec_put(sim, f->id_ttft99, ttft99);
	f->prev_arrived = f->arrived;
	f->prev_completed = f->completed;
	f->prev_met = f->met_all;
	f->prev_waiting = wsum;
	f->prev_busy = f->busy.sum;
	f->prev_paid = f->paid.sum;
	f->prev_tokens = tok;
	f->prev_flops = fl;
	/* racks: the booked prefill energy still ahead of t is taken back per rack */
	size_t nr = f->racks_used;
	for (size_t k = 0; k < nr; k++)
		aiwi_int_advance(&f->racks[k].p, t);
	double *ahead = nr ? calloc(nr, sizeof *ahead) : NULL;
	if (nr && !ahead) {
		oom(f);
		return;
	}
	for (uint32_t i = 0; i < f->nslots && !f->service_mode; i++) {
		double pend = prefill_pending(f, &f->rep[i], t);
		if (pend > 0) {
			size_t r0, r1;
			slot_racks(f, i, &r0, &r1);
			for (size_t k = r0; k <= r1; k++)
				ahead[k] += pend * slot_gpus_in(f, i, k);
		}
	}
	for (size_t k = 0; k < nr; k++) {
		rack *rk = &f->racks[k];
		double e = rk->p.sum + rk->adj - ahead[k];
		if (dt > 0)
			aiwi_site_rack_power(sim, c, k, (e - rk->prev) / dt);
		rk->prev = e;
	}
	free(ahead);
	aiwi_autoscale_sample(c, t);
}

static void inference_finish(aiwi_comp *c, double t)
{
	if (!F_(c))
		return;
	eager_settle_all(F_(c), t);
	bring_to(c, t);
	emit_metrics(c, t);
	aiwi_autoscale_finish(c, t);
}

static void emit_metrics(aiwi_comp *c, double t)
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
	M("requests_waiting", (double)(f->nwaiting + ahead));
	M("requests_running", (double)(f->nrunning - ahead));
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
	M("queue_wait_count", (double)aiwi_hist_count(&f->wait));
	M("queue_wait_sum_s", aiwi_hist_sum(&f->wait));
	double finished = (double)(f->completed + dropped);
	M("slo_attainment", finished > 0 ? (double)f->met_all / finished : NAN);
	M("slo_ttft_attainment", finished > 0 ? (double)f->met_ttft / finished : NAN);
	M("slo_tpot_attainment", finished > 0 ? (double)f->met_tpot / finished : NAN);
	M("slo_e2e_attainment", finished > 0 ? (double)f->met_e2e / finished : NAN);
	M("goodput_rps", t > 0 ? (double)f->met_all / t : NAN);
	M("throughput_rps", t > 0 ? (double)f->completed / t : NAN);
	double tok = tokens_at(f, t);
	M("tokens_out", tok);
	M("tokens_per_s", t > 0 ? tok / t : NAN);
	M("prefill_tokens", f->tokens_prefill);
	M("response_bytes", tok * f->resp_bytes);

	/* batch sizes, per decode iteration */
	double iters = 0, sum = 0;
	uint32_t bmax = 0;
	for (uint32_t b = 1; b <= f->max_batch; b++) {
		iters += (double)f->bs[b];
		sum += (double)f->bs[b] * b;
		if (f->bs[b])
			bmax = b;
	}
	double p99 = NAN;
	if (iters > 0) {
		double rank = ceil(0.99 * iters), cum = 0;
		for (uint32_t b = 1; b <= f->max_batch; b++) {
			cum += (double)f->bs[b];
			if (cum >= rank) {
				p99 = b;
				break;
			}
		}
	}
	M("decode_iterations", iters);
	M("batch_size_mean", iters > 0 ? sum / iters : NAN);
	M("batch_size_p99", p99);
	M("batch_size_max", (double)(bmax > f->batch_peak ? bmax : f->batch_peak));
	M("batch_wait_max_s", f->batch_wait_max);
	M("kv_capacity_bytes", f->service_mode ? NAN : f->cap_tokens * f->kvpt);
	M("kv_peak_bytes", f->service_mode ? NAN : f->kv_peak_tokens * f->kvpt);
	M("kv_bytes_per_token", f->kvpt);
	M("weight_bytes", f->Wb);

	M("utilization", c->paid_gpu_s > 0 ? c->busy_gpu_s / c->paid_gpu_s : NAN);
	M("compute_utilization",
	  c->paid_gpu_s > 0 ? flops_at(f, t) / (c->paid_gpu_s * f->F / f->g / aiwi_p(c, P_MFU)) : NAN);
	M("gpu_hours", c->paid_gpu_s / 3600);
	M("replicas_ready", (double)f->nstate[AIW_REPLICA_READY]);
	M("replicas_loading", (double)f->nstate[AIW_REPLICA_LOADING]);
	M("replicas_draining", (double)f->nstate[AIW_REPLICA_DRAINING]);
	M("energy_kwh", c->energy_j / 3.6e6);
	/* hardware + energy at the site's PUE and price, as the site's
	 * <prefix>.cost_usd (published by power.c) */
	double total = c->cost_usd + c->energy_j * aiwi_site_pue(sim) * aiwi_site_price_per_j(sim);
	M("cost_per_mtok_usd", tok > 0 ? total / tok * 1e6 : NAN);
	M("cost_per_request_usd", f->completed ? total / (double)f->completed : NAN);
#undef M
}

static aiw_status inference_param_changed(aiwi_comp *c, size_t idx)
{
	/* with an autoscaler, `replicas` is its desired count, and its own
	 * parameters are its business */
	if (aiwi_autoscale_active(c))
		return aiwi_autoscale_param_changed(c, idx);
	if (idx != P_REPLICAS)
		return AIW_OK;
	fleet *f = F_(c);
	uint32_t want = (uint32_t)aiwi_p(c, P_REPLICAS);
	uint32_t have = f->nstate[AIW_REPLICA_READY] + f->nstate[AIW_REPLICA_LOADING];
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
	aiwi_autoscale_destroy(c);
	for (uint32_t i = 0; i < f->nslots; i++)
		free(f->rep[i].run);
	free(f->rep);
	free(f->ready);
	free(f->idle);
	free(f->freeh);
	free(f->bhead);
	free(f->btail);
	free(f->bl);
	free(f->racks);
	free(f->at);
	free(f->ak);
	free(f->rq);
	free(f->bs);
	free(f->adm);
	free(f->abuf);
	aiwi_traffic_free(f->tr);
	aiwi_count_table_free(f->tok_p);
	aiwi_count_table_free(f->tok_o);
	if (f->rng_size)
		gsl_rng_free(f->rng_size);
	if (f->rng_route)
		gsl_rng_free(f->rng_route);
	if (f->rng_life)
		gsl_rng_free(f->rng_life);
	aiwi_hist_free(&f->ttft);
	aiwi_hist_free(&f->ttft_win);
	aiwi_hist_free(&f->tpot);
	aiwi_hist_free(&f->e2e);
	aiwi_hist_free(&f->wait);
	free(f);
	c->state = NULL;
}

const aiwi_kind aiwi_kind_inference = {
	.name = "inference",
	.params = INFERENCE_PARAMS,
	.nparams = P_NPARAMS,
	.start = inference_start,
	.sample = inference_sample,
	.finish = inference_finish,
	.param_changed = inference_param_changed,
	.destroy = inference_destroy,
};

/* ======================================================================== */
/* the internal API for the autoscaler                                       */
/* ======================================================================== */
void aiwi_serving_get_counts(const aiwi_comp *c, aiwi_serving_counts *out)
{
	memset(out, 0, sizeof *out);
	if (!aiwi_serving_active(c))
		return;
	const fleet *f = F_(c);
	out->ready = f->nstate[AIW_REPLICA_READY];
	out->loading = f->nstate[AIW_REPLICA_LOADING];
	out->draining = f->nstate[AIW_REPLICA_DRAINING];
	out->busy = f->nph[PH_PREFILL] + f->nph[PH_DECODE];
	out->spot = f->nspot;
	uint64_t ahead = eager_waiting(f, aiwi_now(c->sim), NULL);
	out->waiting = f->nwaiting + ahead;
	out->running = f->nrunning - ahead;
	out->arrived = f->arrived;
	out->completed = f->completed;
	for (int i = 0; i < NDROP; i++)
		out->dropped += f->dropped[i];
}

size_t aiwi_serving_slots(const aiwi_comp *c)
{
	return aiwi_serving_active(c) ? F_(c)->nslots : 0;
}

aiwi_replica_state aiwi_serving_replica_state(const aiwi_comp *c, size_t id)
{
	if (!aiwi_serving_active(c) || id >= F_(c)->nslots)
		return AIW_REPLICA_FREE;
	return (aiwi_replica_state)F_(c)->rep[id].state;
}

bool aiwi_serving_replica_spot(const aiwi_comp *c, size_t id)
{
	if (!aiwi_serving_active(c) || id >= F_(c)->nslots)
		return false;
	return F_(c)->rep[id].spot != 0;
}

uint32_t aiwi_serving_replica_outstanding(const aiwi_comp *c, size_t id)
{
	if (!aiwi_serving_active(c) || id >= F_(c)->nslots)
		return 0;
	return F_(c)->rep[id].outstanding;
}

void aiwi_serving_integrals(aiwi_comp *c, double *busy_gpu_s, double *paid_gpu_s,
                           double *waiting_req_s)
{
	double b = 0, p = 0, w = 0;
	if (aiwi_serving_active(c)) {
		fleet *f = F_(c);
		double now = aiwi_now(c->sim);
		advance(f, now);
		aiwi_int_advance(&f->waiting, now);
		double ahead = 0;
		eager_waiting(f, now, &ahead);
		b = f->busy.sum;
		p = f->paid.sum;
		w = f->waiting.sum - ahead;
	}
	if (busy_gpu_s)
		*busy_gpu_s = b;
	if (paid_gpu_s)
		*paid_gpu_s = p;
	if (waiting_req_s)
		*waiting_req_s = w;
}

void *aiwi_serving_autoscale(const aiwi_comp *c)
{
	return aiwi_serving_active(c) ? F_(c)->autoscale : NULL;
}

void aiwi_serving_set_autoscale(aiwi_comp *c, void *state)
{
	if (aiwi_serving_active(c))
		F_(c)->autoscale = state;
}

const aiwi_traffic *aiwi_serving_traffic(const aiwi_comp *c)
{
	return aiwi_serving_active(c) ? F_(c)->tr : NULL;
}

aiw_status aiwi_serving_set_spot_factor(aiwi_comp *c, double factor)
{
	if (!aiwi_serving_active(c))
		return AIW_ESTATE;
	if (!(factor >= 0 && factor <= 1))
		return aiwi_err(c->sim, AIW_ERANGE, "%s: spot price factor %g must be in [0, 1]",
		                c->prefix, factor);
	fleet *f = F_(c);
	advance(f, aiwi_now(c->sim));
	f->spot_factor = factor;
	levels(f);
	return AIW_OK;
}

const aiwi_hist *aiwi_serving_hist(const aiwi_comp *c, const char *which)
{
	if (!c || !which || c->kind != &aiwi_kind_inference || !c->state)
		return NULL;
	fleet *f = F_(c);
	eager_settle_all(f, aiwi_now(c->sim));
	if (!strcmp(which, "ttft"))
		return &f->ttft;
	if (!strcmp(which, "tpot"))
		return &f->tpot;
	if (!strcmp(which, "e2e"))
		return f->service_mode ? &f->ttft : &f->e2e;
	if (!strcmp(which, "queue_wait"))
		return &f->wait;
	return NULL;
}
