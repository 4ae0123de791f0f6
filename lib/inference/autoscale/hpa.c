/*
 * hpa.c - autoscaler = hpa: the Kubernetes HorizontalPodAutoscaler,
 * autoscaling/v2, as its controller computes (kubernetes
 * pkg/controller/podautoscaler, replica_calculator.go and horizontal.go;
 * documented in "Horizontal Pod Autoscaling", algorithm details, and
 * "Configurable scaling behavior"): every sync period, desired =
 * ceil(ready * metric / target) unless |metric / target - 1| <= tolerance;
 * pods not ready yet count as 0 on a scale-up and are set aside on a
 * scale-down; the recommendation is stabilised (highest of the last 300 s
 * on scale-down) and limited by the scaling policies (up: 100 % or 4 pods
 * per 15 s, the larger; down: 100 % per 15 s), then bounded by min/max.
 * The metric is what the fleet did over the sync period: busy
 * replica-seconds, queued request-seconds, sampled requests in flight or
 * arrivals, divided by the replica-seconds of the replicas that served
 * (ready or draining), so each ready replica reports the fleet's average.
 *
 * The decision functions (aiwi_hpa_*) take numbers, not a fleet; the glue
 * at the end reads the fleet's window through the controller.
 */
#include "inference/autoscale/controller.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static inline int64_t clamp32(int64_t x)
{
	return x > INT32_MAX ? INT32_MAX : x < INT32_MIN ? INT32_MIN : x;
}

int32_t aiwi_hpa_calc(const aiwi_hpa_calc_in *in)
{
	if (!in || in->ready <= 0 || !(in->value >= 0) || !(in->target > 0))
		return -1; /* "did not receive metrics for targeted pods" */
	int64_t ready = in->ready;
	int64_t missing = in->missing > 0 ? in->missing : 0;
	int64_t unready = in->unready > 0 ? in->unready : 0;
	int64_t current = in->current;
	/* keeps the milli-units (x 100 for percent) of 1e5 pods in int64 */
	double value = fmin(in->value, in->resource ? 1e6 : 1e9);
	double ratio, new_ratio;
	int64_t n; /* pods in the second computation */
	bool up_unready;
	if (in->resource) {
		/* GetResourceUtilizationRatio: each pod requests 1000m; the
		 * utilisation is an integer percent of the requests */
		int64_t target = llround(in->target * 100);
		if (target < 1)
			target = 1;
		int64_t use = (int64_t)floor(value * 1000);
		int64_t total = ready * use, req = ready * 1000;
		ratio = (double)(total * 100 / req) / (double)target;
		up_unready = unready > 0 && ratio > 1.0;
		if (!up_unready && missing == 0) {
			if (fabs(1.0 - ratio) <= in->tolerance)
				return (int32_t)current;
			return (int32_t)clamp32((int64_t)ceil(ratio * (double)ready));
		}
		if (missing > 0) {
			if (ratio < 1.0) { /* missing pods use 100 % (or the target if higher) */
				int64_t fb = target > 100 ? target : 100;
				total += missing * (1000 * fb / 100);
				req += missing * 1000;
			} else if (ratio > 1.0) { /* ... or 0 on a scale-up */
				req += missing * 1000;
			}
		}
		if (up_unready)
			req += unready * 1000;
		new_ratio = (double)(total * 100 / req) / (double)target;
		n = req / 1000;
	} else {
		/* GetMetricUsageRatio on Quantity milli-values */
		int64_t target = llround(in->target * 1000);
		if (target < 1)
			target = 1;
		int64_t use = (int64_t)floor(value * 1000);
		int64_t total = ready * use;
		n = ready;
		ratio = (double)(total / n) / (double)target;
		up_unready = unready > 0 && ratio > 1.0;
		if (!up_unready && missing == 0) {
			if (fabs(1.0 - ratio) <= in->tolerance)
				return (int32_t)current;
			return (int32_t)clamp32((int64_t)ceil(ratio * (double)ready));
		}
		if (missing > 0) { /* the target on a scale-down, 0 on a scale-up */
			if (ratio < 1.0)
				total += missing * target;
			n += missing;
		}
		if (up_unready)
			n += unready;
		new_ratio = (double)(total / n) / (double)target;
	}
	/* a change within tolerance or of the other direction is dropped */
	if (fabs(1.0 - new_ratio) <= in->tolerance || (ratio < 1.0 && new_ratio > 1.0) ||
	    (ratio > 1.0 && new_ratio < 1.0))
		return (int32_t)current;
	int64_t nr = (int64_t)ceil(new_ratio * (double)n);
	if ((new_ratio < 1.0 && nr > current) || (new_ratio > 1.0 && nr < current))
		return (int32_t)current;
	return (int32_t)clamp32(nr);
}

void aiwi_hpa_state_init(aiwi_hpa_state *s)
{
	memset(s, 0, sizeof *s);
}

void aiwi_hpa_state_free(aiwi_hpa_state *s)
{
	if (!s)
		return;
	free(s->recs);
	free(s->ups);
	free(s->downs);
	aiwi_hpa_state_init(s);
}

static bool push_sample(aiwi_hpa_sample **v, size_t *n, size_t *cap, aiwi_hpa_sample x)
{
	if (*n == *cap) {
		size_t nc = *cap ? 2 * *cap : 16;
		aiwi_hpa_sample *p = realloc(*v, nc * sizeof *p);
		if (!p)
			return false;
		*v = p;
		*cap = nc;
	}
	(*v)[(*n)++] = x;
	return true;
}

int32_t aiwi_hpa_stabilize(const aiwi_hpa_rules *r, aiwi_hpa_state *s, double now,
                          int32_t current, int32_t desired, bool *enomem)
{
	int32_t up = desired, down = desired;
	double upc = now - r->up_window, downc = now - r->down_window;
	bool old = false;
	size_t oldi = 0;
	/* timestamps strictly after the cutoff are in a window; one older
	 * than both cutoffs is reused for the new record */
	for (size_t i = 0; i < s->nrecs; i++) {
		const aiwi_hpa_sample *x = &s->recs[i];
		if (x->t > upc && x->v < up)
			up = x->v;
		if (x->t > downc && x->v > down)
			down = x->v;
		if (x->t < upc && x->t < downc) {
			old = true;
			oldi = i;
		}
	}
	int32_t rec = current;
	if (rec < up)
		rec = up;
	if (rec > down)
		rec = down;
	aiwi_hpa_sample x = {now, desired};
	if (old)
		s->recs[oldi] = x;
	else if (!push_sample(&s->recs, &s->nrecs, &s->caprecs, x) && enomem)
		*enomem = true;
	return rec;
}

/* getReplicasChangePerPeriod */
static int64_t change_in(const aiwi_hpa_sample *ev, size_t n, double now, double period)
{
	double cutoff = now - period;
	int64_t sum = 0;
	for (size_t i = 0; i < n; i++)
		if (ev[i].t > cutoff)
			sum += ev[i].v;
	return sum;
}

static int64_t period_start(const aiwi_hpa_rules *r, const aiwi_hpa_state *s, double now,
                            int64_t current)
{
	return current - change_in(s->ups, s->nups, now, r->period) +
	       change_in(s->downs, s->ndowns, now, r->period);
}

/* calculateScaleUpLimitWithScalingRules */
static int64_t up_limit(const aiwi_hpa_rules *r, const aiwi_hpa_state *s, double now,
                        int64_t current)
{
	if (r->up_select == AIW_HPA_SELECT_DISABLED)
		return current;
	bool mn = r->up_select == AIW_HPA_SELECT_MIN;
	int64_t res = mn ? INT32_MAX : INT32_MIN;
	int64_t start = period_start(r, s, now, current);
	if (r->up_pods >= 0) {
		int64_t p = start + (int64_t)r->up_pods;
		res = mn ? (p < res ? p : res) : (p > res ? p : res);
	}
	if (r->up_percent >= 0) {
		int64_t p = clamp32((int64_t)ceil((double)start * (1 + r->up_percent / 100)));
		res = mn ? (p < res ? p : res) : (p > res ? p : res);
	}
	return res;
}

/* calculateScaleDownLimitWithBehaviors */
static int64_t down_limit(const aiwi_hpa_rules *r, const aiwi_hpa_state *s, double now,
                          int64_t current)
{
	if (r->down_select == AIW_HPA_SELECT_DISABLED)
		return current;
	bool mn = r->down_select == AIW_HPA_SELECT_MIN;
	int64_t res = mn ? INT32_MIN : INT32_MAX;
	int64_t start = period_start(r, s, now, current);
	if (r->down_pods >= 0) {
		int64_t p = start - (int64_t)r->down_pods;
		res = mn ? (p > res ? p : res) : (p < res ? p : res);
	}
	if (r->down_percent >= 0) {
		int64_t p = (int64_t)((double)start * (1 - r->down_percent / 100)); /* truncates */
		res = mn ? (p > res ? p : res) : (p < res ? p : res);
	}
	return res;
}

/* storeScaleEvent: replaces an entry older than the policy period, if any */
static bool store_event(const aiwi_hpa_rules *r, aiwi_hpa_state *s, double now, int32_t prev,
                        int32_t next)
{
	aiwi_hpa_sample **v = next > prev ? &s->ups : &s->downs;
	size_t *n = next > prev ? &s->nups : &s->ndowns;
	size_t *cap = next > prev ? &s->capups : &s->capdowns;
	aiwi_hpa_sample x = {now, next > prev ? next - prev : prev - next};
	double cutoff = now - r->period;
	bool old = false;
	size_t oldi = 0;
	for (size_t i = 0; i < *n; i++)
		if ((*v)[i].t < cutoff) {
			old = true;
			oldi = i;
		}
	if (old) {
		(*v)[oldi] = x;
		return true;
	}
	return push_sample(v, n, cap, x);
}

int32_t aiwi_hpa_sync(const aiwi_hpa_rules *r, aiwi_hpa_state *s, double now, int32_t current,
                     int32_t recommendation)
{
	if (!r || !s)
		return AIW_EINVAL;
	int32_t desired;
	if (current == 0 && r->min_replicas != 0)
		return 0; /* scaled to zero by hand: autoscaling is disabled */
	if (current > r->max_replicas) {
		desired = r->max_replicas;
	} else if (current < r->min_replicas) {
		desired = r->min_replicas;
	} else {
		if (recommendation < 0)
			return current; /* no metric: no scaling, nothing recorded */
		bool enomem = false;
		int64_t d = aiwi_hpa_stabilize(r, s, now, current, recommendation, &enomem);
		if (enomem)
			return AIW_ENOMEM;
		/* convertDesiredReplicasWithBehaviorRate */
		if (d > current) {
			int64_t lim = up_limit(r, s, now, current);
			if (lim < current)
				lim = current;
			int64_t hi = r->max_replicas < lim ? r->max_replicas : lim;
			if (d > hi)
				d = hi;
		} else if (d < current) {
			int64_t lim = down_limit(r, s, now, current);
			if (lim > current)
				lim = current;
			int64_t lo = r->min_replicas > lim ? r->min_replicas : lim;
			if (d < lo)
				d = lo;
		}
		desired = (int32_t)d;
	}
	if (desired != current && !store_event(r, s, now, current, desired))
		return AIW_ENOMEM;
	return desired;
}


/* ======================================================================== */
/* the policy                                                                */
/* ======================================================================== */
int32_t aiwi_as_hpa_recommendation(const autoscaler *a, const window *w)
{
	aiwi_serving_counts k;
	aiwi_as_counts(a, &k);
	int64_t have = (int64_t)k.ready + k.loading;
	int64_t pods = a->spec > have ? a->spec : have;
	aiwi_hpa_calc_in in = {
		.current = a->spec,
		.ready = (int32_t)k.ready,
		.unready = (int32_t)(pods - k.ready),
		.missing = 0,
		.value = aiwi_as_metric_value(a, w),
		.target = a->metric == AIW_AS_M_UTILIZATION ? P(a, AIW_AS_TARGET_UTILIZATION)
		                                            : P(a, AIW_AS_TARGET_VALUE),
		.tolerance = P(a, AIW_AS_HPA_TOLERANCE),
		.resource = a->metric == AIW_AS_M_UTILIZATION,
	};
	return aiwi_hpa_calc(&in);
}

void aiwi_as_hpa_refresh_rules(autoscaler *a)
{
	aiwi_hpa_rules *r = &a->rules;
	r->min_replicas = (int32_t)P(a, AIW_AS_MIN_REPLICAS);
	r->max_replicas = (int32_t)P(a, AIW_AS_MAX_REPLICAS);
	r->up_window = P(a, AIW_AS_HPA_UPSCALE_STAB);
	r->down_window = P(a, AIW_AS_HPA_DOWNSCALE_STAB);
	r->up_pods = PSET(a, AIW_AS_HPA_UP_PODS) ? P(a, AIW_AS_HPA_UP_PODS) : -1;
	r->up_percent = PSET(a, AIW_AS_HPA_UP_PERCENT) ? P(a, AIW_AS_HPA_UP_PERCENT) : -1;
	r->down_pods = PSET(a, AIW_AS_HPA_DOWN_PODS) ? P(a, AIW_AS_HPA_DOWN_PODS) : -1;
	r->down_percent = PSET(a, AIW_AS_HPA_DOWN_PERCENT) ? P(a, AIW_AS_HPA_DOWN_PERCENT) : -1;
	r->period = P(a, AIW_AS_HPA_POLICY_PERIOD);
	r->up_select = (int)P(a, AIW_AS_HPA_UP_SELECT);
	r->down_select = (int)P(a, AIW_AS_HPA_DOWN_SELECT);
}

/* ---- predictive ---- */
static void sync_event(aiw_sim *sim, void *ctx, uint64_t arg)
{
	autoscaler *a = ctx;
	double now = aiwi_now(sim);
	window w;
	aiwi_as_measure(a, &w);
	aiwi_as_hpa_refresh_rules(a);
	a->syncs++;
	int32_t rec = aiwi_as_hpa_recommendation(a, &w);
	int32_t next = aiwi_hpa_sync(&a->rules, &a->hs, now, a->spec, rec);
	if (next < 0) {
		aiwi_as_fail(a, (aiw_status)next);
		return;
	}
	aiwi_as_set_spec(a, next);
	if (!aiwi_at(sim, now + P(a, AIW_AS_HPA_SYNC_PERIOD), sync_event, a, 0))
		aiwi_as_fail(a, AIW_ENOMEM);
}

static aiw_status hpa_check(autoscaler *a)
{
	if (a->spec == 0)
		return aiwi_err(a->sim, AIW_ERANGE,
		                "%s.replicas = 0: Kubernetes disables the HPA of a workload "
		                "scaled to zero; start with replicas >= 1",
		                a->c->prefix);
	return AIW_OK;
}

static aiw_status hpa_start(autoscaler *a)
{
	if (a->metric == AIW_AS_M_CONCURRENCY && aiwi_as_start_scrape(a) != AIW_OK)
		return AIW_ENOMEM;
	if (!aiwi_at(a->sim, 0, sync_event, a, 0))
		return AIW_ENOMEM;
	return AIW_OK;
}

static void hpa_free(autoscaler *a)
{
	aiwi_hpa_state_free(&a->hs);
}

const aiwi_as_policy aiwi_as_policy_hpa = {
	.name = "hpa",
	.id = AIW_AS_HPA,
	.params = "metric, target_utilization, target_value, metric_interval, hpa_*",
	.min_one = true,
	.check = hpa_check,
	.start = hpa_start,
	.free = hpa_free,
};
