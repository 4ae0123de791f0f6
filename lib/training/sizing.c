/*
 * sizing.c - the per-GPU sizing calculators of training layouts (public,
 * pure functions; aiworkload.h): ZeRO's model states and a pipelined job's
 * activations, from the layout model's own formulas (memory.c).
 */
#include "training/layout.h"

#include <math.h>

static bool pos(double x) { return isfinite(x) && x > 0; }
static bool nonneg(double x) { return isfinite(x) && x >= 0; }
static bool count(double x) { return isfinite(x) && x >= 1; }

/* Store a result, refusing overflow to infinity. */
static aiw_status put(double *out, double v)
{
	if (!isfinite(v))
		return AIW_ERANGE;
	*out = v;
	return AIW_OK;
}

/* Per GPU: the first pipeline stage's activations under the schedule
 * (memory.c: 1F1B keeps min(m, pp) micro-batches of its
 * layers / pp layers, interleaved layers (1 + (pp-1)/(pp v))). */
AIW_EXPORT aiw_status aiw_size_activations_per_gpu(double layers, double seq_len,
                                                   double micro_batch, double hidden,
                                                   double heads, double tensor_parallel,
                                                   int sequence_parallel,
                                                   double pipeline_parallel,
                                                   double virtual_stages, double micro_batches,
                                                   const char *recompute, double *out)
{
	if (!recompute || !out)
		return AIW_EINVAL;
	if (!count(layers) || !count(seq_len) || !count(micro_batch) || !count(hidden) ||
	    !count(heads) || !count(tensor_parallel) || !count(pipeline_parallel) ||
	    !count(virtual_stages) || !count(micro_batches) || pipeline_parallel > layers)
		return AIW_ERANGE;
	int rc;
	if (aiwi_hw_ieq(recompute, "none"))
		rc = AIWI_RC_NONE;
	else if (aiwi_hw_ieq(recompute, "selective"))
		rc = AIWI_RC_SELECTIVE;
	else if (aiwi_hw_ieq(recompute, "full"))
		rc = AIWI_RC_FULL;
	else
		return AIW_EUNKNOWN;
	double per = aiwi_act_layer_bytes(seq_len, micro_batch, hidden, heads, tensor_parallel,
	                                  sequence_parallel != 0, rc, AIWI_ATTN_STANDARD);
	int sched = virtual_stages > 1 ? AIWI_SCHED_INTERLEAVED : AIWI_SCHED_1F1B;
	return put(out, per * aiwi_act_in_flight(layers, pipeline_parallel, virtual_stages,
	                                         micro_batches, sched));
}

/* Per GPU: ZeRO's model states (training/memory.c, Rajbhandari et al. 2020,
 * section 5). */
AIW_EXPORT aiw_status aiw_size_zero_state(double params, double data_parallel, int zero_stage,
                                          double weight_bytes, double grad_bytes,
                                          double optimizer_bytes, double *out)
{
	if (!out)
		return AIW_EINVAL;
	if (!pos(params) || !count(data_parallel) || zero_stage < 0 || zero_stage > 3 ||
	    !nonneg(weight_bytes) || !nonneg(grad_bytes) || !nonneg(optimizer_bytes))
		return AIW_ERANGE;
	double st[3];
	aiwi_zero_states(params, 0, data_parallel, 1, zero_stage, weight_bytes, grad_bytes,
	                 optimizer_bytes, st);
	return put(out, st[0] + st[1] + st[2]);
}
