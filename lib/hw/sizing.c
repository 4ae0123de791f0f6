/*
 * sizing.c - memory and compute sizing calculators (pure functions).
 *
 * Training state per parameter = weights + gradients + optimizer states
 * (Rajbhandari et al., "ZeRO: Memory Optimizations Toward Training Trillion
 * Parameter Models", SC 2020, section 3.1: mixed-precision Adam keeps
 * 2 + 2 + 12 bytes per parameter).  Activations: Korthikanti et al.,
 * "Reducing Activation Recomputation in Large Transformer Models", MLSys
 * 2023 (arXiv:2205.05198), Table 2.  Inference: weights at weight_bits plus
 * the KV cache, 2 (K and V) x layers x kv_heads x head_dim per token.
 * Training compute: 6 N D FLOPs (Kaplan et al., "Scaling Laws for Neural
 * Language Models", 2020): 2 N D forward, 4 N D backward.
 */
#include "hw/hw.h"

#include <math.h>

/* ------------------------------------------------------------------------ */
/* training state presets                                                    */
/* ------------------------------------------------------------------------ */
static const struct {
	const char *name;
	double bytes; /* per parameter */
} PRESETS[] = {
	/* bf16 weights 2 + bf16 gradients 2 + fp32 Adam moments m 4 + v 4; the
	 * seed's figure (70e9 parameters -> 840 GB) */
	{"mixed_adam", 12},
	/* the same plus an fp32 master copy of the weights, 4 (ZeRO's 16) */
	{"mixed_adam_fp32master", 16},
	/* fp32 weights 4 + gradients 4 + Adam m 4 + v 4 */
	{"fp32_adam", 16},
	/* bf16 weights 2 + bf16 gradients 2; plain SGD keeps no state */
	{"bf16_sgd", 4},
	/* fp32 weights 4 + gradients 4 + momentum buffer 4 */
	{"fp32_sgd_momentum", 12},
};
#define NPRESETS (sizeof PRESETS / sizeof *PRESETS)

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

AIW_EXPORT aiw_status aiw_size_training_preset(const char *preset, double *bytes_per_param)
{
	if (!preset || !bytes_per_param)
		return AIW_EINVAL;
	for (size_t i = 0; i < NPRESETS; i++)
		if (aiwi_hw_ieq(PRESETS[i].name, preset)) {
			*bytes_per_param = PRESETS[i].bytes;
			return AIW_OK;
		}
	return AIW_EUNKNOWN;
}

AIW_EXPORT aiw_status aiw_size_training_preset_name(size_t i, const char **out)
{
	if (!out)
		return AIW_EINVAL;
	if (i >= NPRESETS)
		return AIW_ERANGE;
	*out = PRESETS[i].name;
	return AIW_OK;
}

AIW_EXPORT aiw_status aiw_size_training_memory(double params, double bytes_per_param,
                                               double *out)
{
	if (!out)
		return AIW_EINVAL;
	if (!pos(params) || !pos(bytes_per_param))
		return AIW_ERANGE;
	return put(out, params * bytes_per_param);
}

/* ------------------------------------------------------------------------ */
/* activations                                                               */
/* ------------------------------------------------------------------------ */
/* Korthikanti et al. Table 2, bytes per layer with 16-bit activations,
 * s = seq_len, b = micro_batch, h = hidden, a = heads, t = tensor parallel
 * (with sequence parallelism):
 *   none:      s b h (34/t + 5 a s / (h t))
 *   selective: s b h 34/t   (attention's s^2 terms recomputed)
 *   full:      s b h 2      (only each layer's input is kept)
 * 34 = attention 11 + MLP 19 + layer norms 4 (sbh units, dropout masks at
 * one byte); 5as/h counts the softmax input and output and the dropout mask.
 * Under 1F1B pipelining the first stage holds L layers' worth, so the total
 * over `layers` is also the per-GPU peak of the first pipeline stage. */
AIW_EXPORT aiw_status aiw_size_activations(double layers, double seq_len, double micro_batch,
                                           double hidden, double heads, double tensor_parallel,
                                           const char *recompute, double *out)
{
	if (!recompute || !out)
		return AIW_EINVAL;
	if (!count(layers) || !count(seq_len) || !count(micro_batch) || !count(hidden) ||
	    !count(heads) || !count(tensor_parallel))
		return AIW_ERANGE;
	double s = seq_len, b = micro_batch, h = hidden, a = heads, t = tensor_parallel;
	double per_layer;
	if (aiwi_hw_ieq(recompute, "none"))
		per_layer = s * b * h * (34 / t + 5 * a * s / (h * t));
	else if (aiwi_hw_ieq(recompute, "selective"))
		per_layer = s * b * h * 34 / t;
	else if (aiwi_hw_ieq(recompute, "full"))
		per_layer = 2 * s * b * h;
	else
		return AIW_EUNKNOWN;
	return put(out, layers * per_layer);
}

/* ------------------------------------------------------------------------ */
/* inference                                                                 */
/* ------------------------------------------------------------------------ */
AIW_EXPORT aiw_status aiw_size_inference_weights(double params, double weight_bits,
                                                 double *out)
{
	if (!out)
		return AIW_EINVAL;
	if (!pos(params) || !pos(weight_bits) || weight_bits > 64)
		return AIW_ERANGE;
	return put(out, params * weight_bits / 8);
}

AIW_EXPORT aiw_status aiw_size_kv_cache(double layers, double kv_heads, double head_dim,
                                        double kv_bits, double tokens, double sequences,
                                        double *out)
{
	if (!out)
		return AIW_EINVAL;
	if (!count(layers) || !count(kv_heads) || !count(head_dim) || !pos(kv_bits) ||
	    kv_bits > 64 || !nonneg(tokens) || !nonneg(sequences))
		return AIW_ERANGE;
	/* K and V, each kv_heads x head_dim values per layer per token */
	return put(out, 2 * layers * kv_heads * head_dim * (kv_bits / 8) * tokens * sequences);
}

AIW_EXPORT aiw_status aiw_size_max_sequences(double mem_bytes, double weight_bytes,
                                             double kv_bytes_per_sequence, double headroom,
                                             double *out)
{
	if (!out)
		return AIW_EINVAL;
	if (!pos(mem_bytes) || !nonneg(weight_bytes) || !pos(kv_bytes_per_sequence) ||
	    !nonneg(headroom) || headroom >= 1)
		return AIW_ERANGE;
	double free_b = mem_bytes * (1 - headroom) - weight_bytes;
	/* a tiny KV size can make the quotient overflow to +inf: refused */
	return put(out, free_b > 0 ? floor(free_b / kv_bytes_per_sequence) : 0);
}

AIW_EXPORT aiw_status aiw_size_min_gpus(const char *gpu, double bytes, double headroom,
                                        double *out)
{
	if (!gpu || !out)
		return AIW_EINVAL;
	if (!pos(bytes) || !nonneg(headroom) || headroom >= 1)
		return AIW_ERANGE;
	const aiwi_gpu_spec *g = aiwi_hw_gpu(NULL, gpu);
	if (!g)
		return AIW_EUNKNOWN;
	double usable = g->mem_bytes * (1 - headroom);
	double n = ceil(bytes / usable);
	/* rounding may bring a quotient just above an integer down onto it (never
	 * above the answer: n is representable); fma gives the exact sign */
	if (fma(n, usable, -bytes) < 0)
		n += 1;
	return put(out, n);
}

/* ------------------------------------------------------------------------ */
/* compute                                                                   */
/* ------------------------------------------------------------------------ */
AIW_EXPORT aiw_status aiw_size_training_flops(double params, double tokens, double *out)
{
	if (!out)
		return AIW_EINVAL;
	if (!pos(params) || !pos(tokens))
		return AIW_ERANGE;
	return put(out, 6 * params * tokens);
}

AIW_EXPORT aiw_status aiw_size_training_time(double flops, const char *gpu, double gpus,
                                             double mfu, double *out)
{
	if (!gpu || !out)
		return AIW_EINVAL;
	if (!pos(flops) || !count(gpus) || !pos(mfu) || mfu > 1)
		return AIW_ERANGE;
	const aiwi_gpu_spec *g = aiwi_hw_gpu(NULL, gpu);
	if (!g)
		return AIW_EUNKNOWN;
	return put(out, flops / (gpus * g->bf16_flops * mfu));
}
