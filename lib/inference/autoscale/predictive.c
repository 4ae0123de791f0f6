/*
 * predictive.c - autoscaler = predictive: provisions for the largest
 * forecast rate over the next lead time (a cold start plus a sync period),
 * plus predictive_headroom standard deviations of the Poisson count over
 * the lead, sqrt(rate / lead): the rate the fleet may see before a replica
 * started now serves.  The forecast is the traffic profile's rate (the
 * fleet's arrival rate, aiwi_as_arrival_rate), or a daily profile learned from the arrivals of the
 * previous days in time-of-day bins, exponentially smoothed across days.
 * Replicas needed for a rate lambda: lambda / predictive_capacity, else by
 * the utilisation law lambda * D / target (D: busy replica-seconds per
 * completed request, learned with a 30 min exponential memory), or lambda
 * / target_value (rps), or lambda * R / target_value (concurrency, R by
 * Little's law).  The HPA's recommendation is a reactive floor; the HPA's
 * stabilisation windows apply, not its rate limits.
 */
#include "inference/autoscale/controller.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>

static inline int64_t clamp32(int64_t x)
{
	return x > INT32_MAX ? INT32_MAX : x < INT32_MIN ? INT32_MIN : x;
}

static double forecast_at(const autoscaler *a, double t)
{
	if ((int)P(a, AIW_AS_PRED_SOURCE) == AIW_AS_SRC_PROFILE)
		return aiwi_as_arrival_rate(a, t);
	size_t b = (size_t)(fmod(t, 86400.0) / a->bin);
	return b < a->nbins ? a->est[b] : NAN;
}

/* The largest forecast rate over [now, now + lead] (NAN: unknown). */
static double forecast_max(const autoscaler *a, double now)
{
	double step = a->lead / 8;
	if ((int)P(a, AIW_AS_PRED_SOURCE) == AIW_AS_SRC_HISTORY && a->bin < step)
		step = a->bin;
	double m = -INFINITY;
	for (double s = now;; s += step) {
		double x = forecast_at(a, fmin(s, now + a->lead));
		if (isnan(x))
			return NAN;
		m = fmax(m, x);
		if (s >= now + a->lead || !(step > 0))
			break;
	}
	return m;
}

/* Replicas a rate needs at the target (NAN: not known yet). */
static double replicas_for(const autoscaler *a, double rate)
{
	if (PSET(a, AIW_AS_PRED_CAPACITY))
		return rate / P(a, AIW_AS_PRED_CAPACITY);
	switch (a->metric) {
	case AIW_AS_M_UTILIZATION: {
		double u = (double)llround(P(a, AIW_AS_TARGET_UTILIZATION) * 100) / 100;
		return a->d_done > 0 ? rate * (a->d_busy / a->d_done) / u : NAN;
	}
	case AIW_AS_M_RPS:
		return rate / P(a, AIW_AS_TARGET_VALUE);
	default: /* concurrency (or kv_occupancy: occupancy-seconds per request), by
	          * Little's law */
		return a->d_done > 0 ? rate * (a->d_infl / a->d_done) / P(a, AIW_AS_TARGET_VALUE)
		                     : NAN;
	}
}

static void bin_event(aiw_sim *sim, void *ctx, uint64_t k)
{
	autoscaler *a = ctx;
	aiwi_as_fleet c;
	aiwi_as_counts(a, &c);
	double obs = (double)(c.arrived - a->bin_arr) / a->bin;
	a->bin_arr = c.arrived;
	size_t b = (size_t)(k % a->nbins);
	double alpha = P(a, AIW_AS_PRED_SMOOTHING);
	a->est[b] = isnan(a->est[b]) ? obs : alpha * obs + (1 - alpha) * a->est[b];
	if (!aiwi_at(sim, (double)(k + 2) * a->bin, bin_event, a, k + 1))
		aiwi_as_fail(a, AIW_ENOMEM);
}

/* ---- the policies' events ---- */
static void sync_event(aiw_sim *sim, void *ctx, uint64_t arg)
{
	autoscaler *a = ctx;
	double now = aiwi_now(sim);
	window w;
	aiwi_as_measure(a, &w);
	aiwi_as_hpa_refresh_rules(a);
	a->syncs++;
	int32_t next;
	int32_t rec = aiwi_as_hpa_recommendation(a, &w);
	double decay = exp(-w.dt / DEMAND_MEMORY_S);
	a->d_busy = a->d_busy * decay + w.busy_rep_s;
	a->d_infl = a->d_infl * decay + w.infl_s;
	a->d_done = a->d_done * decay + (double)w.completed;
	double fc = forecast_max(a, now);
	if (fc > 0 && a->lead > 0) /* the Poisson count over the lead */
		fc += P(a, AIW_AS_PRED_HEADROOM) * sqrt(fc / a->lead);
	double need = replicas_for(a, fc);
	int64_t want = rec;
	if (isfinite(need) && need > 0) {
		int64_t n = (int64_t)ceil(need - 1e-9);
		if (n > want)
			want = n;
	}
	if (want < 0)
		want = a->spec;
	bool enomem = false;
	next = aiwi_hpa_stabilize(&a->rules, &a->hs, now, a->spec, (int32_t)clamp32(want),
	                         &enomem);
	if (enomem)
		next = AIW_ENOMEM;
	else if (next < a->rules.min_replicas)
		next = a->rules.min_replicas;
	else if (next > a->rules.max_replicas)
		next = a->rules.max_replicas;
	if (next < 0) {
		aiwi_as_fail(a, (aiw_status)next);
		return;
	}
	aiwi_as_set_spec(a, next);
	if (!aiwi_at(sim, now + P(a, AIW_AS_HPA_SYNC_PERIOD), sync_event, a, 0))
		aiwi_as_fail(a, AIW_ENOMEM);
}

double aiwi_as_predictive_forecast(const autoscaler *a, double t)
{
	return forecast_at(a, t);
}

static aiw_status pred_check(autoscaler *a)
{
	const char *px = a->c->prefix;
	aiw_status st = aiwi_as_hpa_check_policies(a);
	if (st != AIW_OK)
		return st;
	if ((a->metric == AIW_AS_M_QUEUE || a->metric == AIW_AS_M_QUEUED_PROMPT_TOKENS) &&
	    !PSET(a, AIW_AS_PRED_CAPACITY))
		return aiwi_err(a->sim, AIW_EINVAL,
		                "%s.metric = %s: predictive sizes the fleet from a rate; "
		                "use utilization, concurrency or rps, or set "
		                "predictive_capacity",
		                px, a->metric == AIW_AS_M_QUEUE ? "queue" : "queued_prompt_tokens");
	if ((int)P(a, AIW_AS_PRED_SOURCE) == AIW_AS_SRC_HISTORY) {
		double k = 86400.0 / P(a, AIW_AS_PRED_BIN);
		if (fabs(k - round(k)) > 1e-9 * k)
			return aiwi_err(a->sim, AIW_ERANGE,
			                "%s.predictive_bin = %g s does not divide a day into "
			                "whole bins",
			                px, P(a, AIW_AS_PRED_BIN));
	}
	return AIW_OK;
}

static aiw_status pred_start(autoscaler *a)
{
	aiwi_comp *c = a->c;
	size_t first = a->p;
	if (aiwi_as_sampled(a) && aiwi_as_start_scrape(a) != AIW_OK)
		return AIW_ENOMEM;
	if (!aiwi_at(a->sim, 0, sync_event, a, 0))
		return AIW_ENOMEM;
	const aiwi_dist *cd = aiwi_pd(c, a->i_cold);
	a->lead = aiwi_pset(c, first + AIW_AS_PRED_LEAD) && !c->v[first + AIW_AS_PRED_LEAD].is_auto
	                  ? aiwi_p(c, first + AIW_AS_PRED_LEAD)
	                  : (cd ? fmax(0, aiwi_dist_quantile_upper(cd, 0.01)) : 0) +
	                            aiwi_p(c, first + AIW_AS_HPA_SYNC_PERIOD);
	if (!isfinite(a->lead))
		a->lead = aiwi_p(c, first + AIW_AS_HPA_SYNC_PERIOD);
	if ((int)aiwi_p(c, first + AIW_AS_PRED_SOURCE) == AIW_AS_SRC_HISTORY) {
		a->bin = aiwi_p(c, first + AIW_AS_PRED_BIN);
		a->nbins = (size_t)llround(86400.0 / a->bin);
		if (!(a->est = malloc(a->nbins * sizeof *a->est)))
			return aiwi_err(a->sim, AIW_ENOMEM, "out of memory");
		for (size_t i = 0; i < a->nbins; i++)
			a->est[i] = NAN;
		if (!aiwi_at(a->sim, a->bin, bin_event, a, 0))
			return AIW_ENOMEM;
	}
	return AIW_OK;
}

static void pred_free(autoscaler *a)
{
	free(a->est);
	a->est = NULL;
	aiwi_hpa_state_free(&a->hs);
}

const aiwi_as_policy aiwi_as_policy_predictive = {
	.name = "predictive",
	.id = AIW_AS_PREDICTIVE,
	.params = "metric, target_utilization, target_value, hpa_sync_period, hpa_tolerance, "
	          "hpa_*_stabilization, predictive_*",
	.min_one = true,
	.check = pred_check,
	.start = pred_start,
	.free = pred_free,
};
