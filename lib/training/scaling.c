/*
 * scaling.c - the scaling study of a training job (aiw_training_scaling): the
 * expected step time and efficiency at other GPU counts, weak or strong.
 */
#include "training/training.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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
	aiwi_tcfg k;
	if ((st = aiwi_training_derive(c, &k)) != AIW_OK)
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
		double e = fmax(0, aiwi_training_comm_time(&k, p, degraded && p > 1, deg) - k.overlap * tc);
		step_time_s[i] = tc * em + e;
		if (efficiency)
			efficiency[i] = isfinite(k.mu) ? tc * k.mu / step_time_s[i] : NAN;
	}
	return AIW_OK;
}
