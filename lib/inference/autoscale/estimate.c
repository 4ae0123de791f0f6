/*
 * estimate.c - the autoscaler's share of the inference kind's up-front
 * estimate: the periodic control events each policy schedules (HPA and
 * predictive syncs, KPA ticks, concurrency scrapes, predictive history
 * bins), the KPA's window of demand samples, and the spot preemptions of
 * the spot share of the slots.
 */
#include "inference/autoscale/autoscale.h"

#include <math.h>
#include <stdio.h>

bool aiwi_autoscale_compare_fixed(const aiwi_comp *c, size_t first)
{
	return aiwi_pset(c, first + AIW_AS_COMPARE_FIXED);
}

double aiwi_autoscale_estimate(aiwi_comp *c, size_t first, double replicas, aiwi_estimate *E)
{
	double D = aiwi_est_duration(E);
	char a[64], d[64], p[64];
	int policy = (int)aiwi_p(c, first + AIW_AS_AUTOSCALER);
	bool hpa = policy == AIW_AS_HPA, kpa = policy == AIW_AS_KPA;
	bool pred = policy == AIW_AS_PREDICTIVE;
	double slots = replicas;
	if (policy != AIW_AS_NONE)
		slots = fmax(slots, aiwi_p(c, first + AIW_AS_MAX_REPLICAS));
	int metric = (int)aiwi_p(c, first + AIW_AS_METRIC);
	struct {
		bool on;
		size_t param;
	} periodic[] = {
		{hpa || pred, AIW_AS_HPA_SYNC_PERIOD},
		{kpa, AIW_AS_KPA_TICK},
		{kpa || ((hpa || pred) && (metric == AIW_AS_M_CONCURRENCY ||
		                           metric == AIW_AS_M_QUEUED_PROMPT_TOKENS ||
		                           metric == AIW_AS_M_KV_OCCUPANCY)),
		 AIW_AS_METRIC_INTERVAL},
		{pred && (int)aiwi_p(c, first + AIW_AS_PRED_SOURCE) == AIW_AS_SRC_HISTORY,
		 AIW_AS_PRED_BIN},
	};
	for (size_t k = 0; k < sizeof periodic / sizeof *periodic; k++) {
		double per = aiwi_p(c, first + periodic[k].param);
		const char *key = c->kind->params[first + periodic[k].param].key;
		if (!periodic[k].on || !(per > 0))
			continue;
		char fix[160];
		snprintf(fix, sizeof fix, "raise %s or lower sim.duration", key);
		aiwi_est_work(E, D / per, fix, "%s: about @ autoscaler ticks (sim.duration %s / %s %s)",
		              c->prefix, aiwi_est_dur(d, sizeof d, D), key, aiwi_est_dur(p, sizeof p, per));
	}
	if (kpa) { /* the stable window's ring of demand samples */
		double iv = aiwi_p(c, first + AIW_AS_METRIC_INTERVAL);
		double sw = aiwi_p(c, first + AIW_AS_KPA_STABLE_WINDOW);
		if (iv > 0)
			aiwi_est_memory(E, 8 * ceil(sw / iv), "raise metric_interval",
			                "%s: about @ bytes of KPA window (kpa_stable_window %s / "
			                "metric_interval %s)",
			                c->prefix, aiwi_est_dur(d, sizeof d, sw), aiwi_est_dur(p, sizeof p, iv));
	}
	double spot = aiwi_p(c, first + AIW_AS_SPOT_FRACTION);
	double rate = aiwi_p(c, first + AIW_AS_SPOT_RATE);
	if (spot > 0 && rate > 0) {
		double n = ceil(spot * slots);
		aiwi_est_work(E, n * rate * D, "lower spot_preemption_rate, spot_fraction or sim.duration",
		              "%s: about @ spot preemptions (%s spot replicas x %s/s x %s)", c->prefix,
		              aiwi_est_num(a, sizeof a, n), aiwi_est_num(p, sizeof p, rate),
		              aiwi_est_dur(d, sizeof d, D));
	}
	return slots;
}
