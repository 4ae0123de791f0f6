/*
 * serving_params.h - the parameters of [inference NAME]: their indexes in
 * the kind's table (serving_params.c), the enumerated values the fleet
 * switches on.  Private to lib/inference/serving*.c and fleet_*.c.
 */
#ifndef AIW_INFERENCE_SERVING_PARAMS_H
#define AIW_INFERENCE_SERVING_PARAMS_H

#include "core/internal.h"
#include "inference/autoscale/autoscale.h"
#include "site/cost.h"

enum {
	P_GPU,
	P_GPUS_PER_REPLICA,
	P_GPUS_PER_NODE,
	P_PP,
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
	P_CHUNKED,
	P_MAX_BATCHED_TOKENS,
	P_SPECULATIVE,
	P_SPEC_TOKENS,
	P_ACCEPTANCE,
	P_DRAFT_PARAMS,
	P_DRAFT_LAYERS,
	P_DRAFT_COST,
	P_MOE,
	P_EXPERTS,
	P_TOPK,
	P_SHARED_EXPERTS,
	P_EXPERT_PARAMS,
	P_ACTIVE_PARAMS,
	P_MOE_LAYERS,
	P_EP,
	P_MOE_IMBALANCE,
	P_PREFIX_CACHING,
	P_SESSIONS,
	P_SESSION_TURNS,
	P_THINK_TIME,
	P_SYSTEM_PROMPTS,
	P_SYSTEM_PROMPT_TOKENS,
	P_SYSTEM_PROMPT_ZIPF,
	P_KV_MARGIN,
	P_ROUTER,
	P_TIMEOUT,
	P_QUEUE_LIMIT,
	P_SLO_TTFT,
	P_SLO_TPOT,
	P_SLO_E2E,
	P_RESPONSE_BYTES,
	P_TIMING,
	P_HIDDEN,
	P_ACT_BITS,
	P_PROFILE,
	P_PROFILE_GPU,
	P_ITER_COEF,                               /* 2 phases x 6 terms (iteration.h's order) */
	P_COST = P_ITER_COEF + 12,                 /* AIW_COST_NPARAMS entries */
	P_TOKEN_PRICE = P_COST + AIW_COST_NPARAMS, /* AIW_TOKEN_PRICE_NPARAMS entries */
	P_AUTOSCALE = P_TOKEN_PRICE + AIW_TOKEN_PRICE_NPARAMS, /* AIW_AUTOSCALE_NPARAMS entries */
	P_NPARAMS = P_AUTOSCALE + AIW_AUTOSCALE_NPARAMS
};

enum { B_NONE, B_DYNAMIC, B_CONTINUOUS };
enum { TIMING_ROOFLINE, TIMING_ITERATION };
enum { SPEC_OFF, SPEC_DRAFT, SPEC_HEADS };
enum { RT_ROUND_ROBIN, RT_LEAST_LOADED, RT_P2C, RT_CENTRAL, RT_AFFINITY, RT_KV };

/* The parameter table of the inference kind (P_NPARAMS entries). */
extern const aiwi_param_def aiwi_inference_params[];
extern const aiwi_param_mode aiwi_inference_modes[];

#endif /* AIW_INFERENCE_SERVING_PARAMS_H */
