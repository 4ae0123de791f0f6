/*
 * hpa.c - autoscaler = hpa: the Kubernetes HorizontalPodAutoscaler,
 * autoscaling/v2, as its controller computes (kubernetes
 * pkg/controller/podautoscaler, replica_calculator.go and horizontal.go;
 * documented in "Horizontal Pod Autoscaling", algorithm details, and
 * "Configurable scaling behavior"): every sync period, desired =
 * ceil(ready * metric / target) unless |metric / target - 1| <= tolerance;
 * the pods are grouped as groupPods does (aiwi_hpa_group): unready ones
 * count as 0 on a scale-up and are set aside on a scale-down, missing ones
 * count as 0 on a scale-up and as the target on a scale-down, ignored ones
 * (being deleted, failed) are left out; which replica is which is the
 * controller's mapping (aiwi_as_pod_groups: loading replicas are unready on
 * metric = utilization, the CPU rule, and missing on the others; draining
 * ones are being deleted); the recommendation is stabilised (highest of the last 300 s
 * on scale-down) and limited by the scaling policies (up: 100 % or 4 pods
 * per 15 s, the larger; down: 100 % per 15 s), then bounded by min/max.
 * The metric is what the fleet did over the sync period: busy
 * replica-seconds, queued request-seconds, sampled requests in flight or
 * arrivals, divided by the replica-seconds of the replicas that served
 * (ready or draining), so each ready replica reports the fleet's average.
 *
 * The decision functions (aiwi_hpa_*) take numbers, not a fleet; the code
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

/* replica_calculator.go: Tolerances.isWithin (1.33), or |1 - ratio| <=
 * tolerance (earlier releases, one tolerance) */
static inline bool within(const aiwi_hpa_calc_in *in, double ratio)
{
	if (in->per_direction)
		return 1.0 - in->tolerance_down <= ratio && ratio <= 1.0 + in->tolerance_up;
	return fabs(1.0 - ratio) <= in->tolerance;
}

int32_t aiwi_hpa_calc(const aiwi_hpa_calc_in *in)
{
	return aiwi_hpa_calc_r(in, NULL);
}

/* GetResourceReplicas (resource) and calcPlainMetricReplicas (pods metric),
 * replica_calculator.go */
int32_t aiwi_hpa_calc_r(const aiwi_hpa_calc_in *in, int *reason)
{
	int why_;
	int *why = reason ? reason : &why_;
	*why = AIW_AS_R_SCALE;
	if (!in || in->ready <= 0 || !(in->target > 0) ||
	    (in->have_sum ? in->sum_milli < 0 : !(in->value >= 0))) {
		*why = AIW_AS_R_NO_METRIC;
		return -1; /* "did not receive metrics for any ready pods" */
	}
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
		int64_t total = in->have_sum ? in->sum_milli : ready * use, req = ready * 1000;
		ratio = (double)(total * 100 / req) / (double)target;
		up_unready = unready > 0 && ratio > 1.0;
		if (!up_unready && missing == 0) {
			if (within(in, ratio)) {
				*why = AIW_AS_R_TOLERANCE;
				return (int32_t)current;
			}
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
		int64_t total = in->have_sum ? in->sum_milli : ready * use;
		n = ready;
		ratio = (double)(total / n) / (double)target;
		up_unready = unready > 0 && ratio > 1.0;
		if (!up_unready && missing == 0) {
			if (within(in, ratio)) {
				*why = AIW_AS_R_TOLERANCE;
				return (int32_t)current;
			}
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
	if (within(in, new_ratio) || (ratio < 1.0 && new_ratio > 1.0) ||
	    (ratio > 1.0 && new_ratio < 1.0)) {
		*why = AIW_AS_R_TOLERANCE;
		return (int32_t)current;
	}
	int64_t nr = (int64_t)ceil(new_ratio * (double)n);
	if ((new_ratio < 1.0 && nr > current) || (new_ratio > 1.0 && nr < current)) {
		*why = AIW_AS_R_TOLERANCE;
		return (int32_t)current;
	}
	return (int32_t)clamp32(nr);
}

/* replica_calculator.go, groupPods */
void aiwi_hpa_group(const aiwi_hpa_pod *pod, bool cpu, double now, double cpu_init,
                    double readiness_delay, aiwi_hpa_groups *g)
{
	if (pod->deleting || pod->phase == AIW_HPA_POD_FAILED) {
		g->ignored++;
		return;
	}
	if (pod->phase == AIW_HPA_POD_PENDING) {
		g->unready++;
		return;
	}
	if (!pod->has_metric) {
		g->missing++;
		return;
	}
	if (cpu) {
		bool unready;
		if (!pod->has_condition)
			unready = true;
		else if (pod->start + cpu_init > now) /* still within its initialisation */
			unready = !pod->ready ||
			          pod->metric_time < pod->transition + pod->metric_window;
		else /* unready and never ready */
			unready = !pod->ready && pod->start + readiness_delay > pod->transition;
		if (unready) {
			g->unready++;
			return;
		}
	}
	g->ready++;
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

bool aiwi_hpa_record_event(aiwi_hpa_state *s, double t, bool up, int32_t change)
{
	aiwi_hpa_sample x = {t, change};
	return up ? push_sample(&s->ups, &s->nups, &s->capups, x)
	          : push_sample(&s->downs, &s->ndowns, &s->capdowns, x);
}

bool aiwi_hpa_record_recommendation(aiwi_hpa_state *s, double t, int32_t rec)
{
	aiwi_hpa_sample x = {t, rec};
	return push_sample(&s->recs, &s->nrecs, &s->caprecs, x);
}

int32_t aiwi_hpa_stabilize(const aiwi_hpa_rules *r, aiwi_hpa_state *s, double now,
                          int32_t current, int32_t desired, bool *enomem)
{
	int32_t up = desired, down = desired;
	double upc = now - r->up.window, downc = now - r->down.window;
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

/* horizontal.go, getReplicasChangePerPeriod: events strictly after now -
 * period */
static int64_t change_in(const aiwi_hpa_sample *ev, size_t n, double now, double period)
{
	double cutoff = now - period;
	int64_t sum = 0;
	for (size_t i = 0; i < n; i++)
		if (ev[i].t > cutoff)
			sum += ev[i].v;
	return sum;
}

/* periodStartReplicas of one policy: current - added + deleted in its
 * period */
static int64_t period_start(const aiwi_hpa_state *s, double now, double period,
                            int64_t current)
{
	return current - change_in(s->ups, s->nups, now, period) +
	       change_in(s->downs, s->ndowns, now, period);
}

/* horizontal.go, calculateScaleUpLimitWithScalingRules */
static int64_t up_limit(const aiwi_hpa_scaling *r, const aiwi_hpa_state *s, double now,
                        int64_t current)
{
	if (r->select == AIW_HPA_SELECT_DISABLED)
		return current;
	bool mn = r->select == AIW_HPA_SELECT_MIN;
	int64_t res = mn ? INT32_MAX : INT32_MIN;
	for (size_t i = 0; i < r->npolicies; i++) {
		const aiwi_hpa_policy *q = &r->policies[i];
		int64_t start = period_start(s, now, q->period, current), p;
		if (q->type == AIW_HPA_PODS)
			p = start + (int64_t)q->value;
		else /* rounded up, or a small percentage would never add a pod */
			p = clamp32((int64_t)ceil((double)start * (1 + q->value / 100)));
		res = mn ? (p < res ? p : res) : (p > res ? p : res);
	}
	return res;
}

/* horizontal.go, calculateScaleDownLimitWithBehaviors */
static int64_t down_limit(const aiwi_hpa_scaling *r, const aiwi_hpa_state *s, double now,
                          int64_t current)
{
	if (r->select == AIW_HPA_SELECT_DISABLED)
		return current;
	bool mn = r->select == AIW_HPA_SELECT_MIN;
	int64_t res = mn ? INT32_MIN : INT32_MAX;
	for (size_t i = 0; i < r->npolicies; i++) {
		const aiwi_hpa_policy *q = &r->policies[i];
		int64_t start = period_start(s, now, q->period, current), p;
		if (q->type == AIW_HPA_PODS)
			p = start - (int64_t)q->value;
		else /* int32() truncates */
			p = (int64_t)((double)start * (1 - q->value / 100));
		res = mn ? (p > res ? p : res) : (p < res ? p : res);
	}
	return res;
}

/* horizontal.go, getLongestPolicyPeriod */
static double longest_period(const aiwi_hpa_scaling *r)
{
	double m = 0;
	for (size_t i = 0; i < r->npolicies; i++)
		if (r->policies[i].period > m)
			m = r->policies[i].period;
	return m;
}

/* horizontal.go, storeScaleEvent and markScaleEventsOutdated: an event
 * older than the longest policy period of its direction is reused (the
 * last such one) */
static bool store_event(const aiwi_hpa_rules *r, aiwi_hpa_state *s, double now, int32_t prev,
                        int32_t next)
{
	if (r->legacy)
		return true; /* without behavior no event is kept */
	bool up = next > prev;
	aiwi_hpa_sample **v = up ? &s->ups : &s->downs;
	size_t *n = up ? &s->nups : &s->ndowns;
	size_t *cap = up ? &s->capups : &s->capdowns;
	aiwi_hpa_sample x = {now, up ? next - prev : prev - next};
	double cutoff = now - longest_period(up ? &r->up : &r->down);
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

/* horizontal.go, stabilizeRecommendation (no behavior): the highest
 * recommendation not before now - window, this one included */
static int32_t legacy_stabilize(const aiwi_hpa_rules *r, aiwi_hpa_state *s, double now,
                                int32_t desired, bool *enomem)
{
	int32_t m = desired;
	double cutoff = now - r->down.window;
	bool old = false;
	size_t oldi = 0;
	for (size_t i = 0; i < s->nrecs; i++) {
		if (s->recs[i].t < cutoff) {
			old = true;
			oldi = i;
		} else if (s->recs[i].v > m) {
			m = s->recs[i].v;
		}
	}
	aiwi_hpa_sample x = {now, desired};
	if (old)
		s->recs[oldi] = x;
	else if (!push_sample(&s->recs, &s->nrecs, &s->caprecs, x) && enomem)
		*enomem = true;
	return m;
}

int32_t aiwi_hpa_sync(const aiwi_hpa_rules *r, aiwi_hpa_state *s, double now, int32_t current,
                     int32_t recommendation)
{
	return aiwi_hpa_sync_r(r, s, now, current, recommendation, NULL);
}

/* horizontal.go, reconcileAutoscaler then normalizeDesiredReplicas (no
 * behavior) or normalizeDesiredReplicasWithBehaviors */
int32_t aiwi_hpa_sync_r(const aiwi_hpa_rules *r, aiwi_hpa_state *s, double now,
                       int32_t current, int32_t recommendation, int *reason)
{
	int why_;
	int *why = reason ? reason : &why_;
	*why = AIW_AS_R_SCALE;
	if (!r || !s)
		return AIW_EINVAL;
	int32_t desired;
	if (current == 0 && r->min_replicas != 0) {
		*why = AIW_AS_R_DISABLED;
		return 0; /* scaled to zero by hand: autoscaling is disabled */
	}
	if (current > r->max_replicas) {
		desired = r->max_replicas;
		*why = AIW_AS_R_MAX;
	} else if (current < r->min_replicas) {
		desired = r->min_replicas;
		*why = AIW_AS_R_MIN;
	} else {
		if (recommendation < 0) {
			*why = AIW_AS_R_NO_METRIC;
			return current; /* no metric: no scaling, nothing recorded */
		}
		bool enomem = false;
		int64_t d;
		if (r->legacy) {
			d = legacy_stabilize(r, s, now, recommendation, &enomem);
			if (enomem)
				return AIW_ENOMEM;
			if (d != recommendation)
				*why = AIW_AS_R_STABILIZED;
			/* convertDesiredReplicasWithRules: calculateScaleUpLimit */
			int64_t lim = (int64_t)fmax(r->legacy_up_factor * (double)current, r->legacy_up_minimum);
			int64_t hi = r->max_replicas > lim ? lim : r->max_replicas;
			if (d < r->min_replicas) {
				d = r->min_replicas;
				*why = AIW_AS_R_MIN;
			} else if (d > hi) {
				*why = r->max_replicas > lim ? AIW_AS_R_LIMIT : AIW_AS_R_MAX;
				d = hi;
			}
		} else {
			d = aiwi_hpa_stabilize(r, s, now, current, recommendation, &enomem);
			if (enomem)
				return AIW_ENOMEM;
			if (d != recommendation)
				*why = AIW_AS_R_STABILIZED;
			/* convertDesiredReplicasWithBehaviorRate */
			if (d > current) {
				int64_t lim = up_limit(&r->up, s, now, current);
				if (lim < current)
					lim = current;
				int64_t hi = r->max_replicas < lim ? r->max_replicas : lim;
				if (d > hi) {
					*why = r->max_replicas > lim ? AIW_AS_R_LIMIT : AIW_AS_R_MAX;
					d = hi;
				}
			} else if (d < current) {
				int64_t lim = down_limit(&r->down, s, now, current);
				if (lim > current)
					lim = current;
				int64_t lo = r->min_replicas > lim ? r->min_replicas : lim;
				if (d < lo) {
					*why = r->min_replicas < lim ? AIW_AS_R_LIMIT : AIW_AS_R_MIN;
					d = lo;
				}
			}
		}
		desired = (int32_t)d;
	}
	if (desired != current && !store_event(r, s, now, current, desired))
		return AIW_ENOMEM;
	return desired;
}

static const char *const reason_names[AIW_AS_NREASONS] = {
	[AIW_AS_R_SCALE] = "scale",           [AIW_AS_R_TOLERANCE] = "tolerance",
	[AIW_AS_R_NO_METRIC] = "no-metric",   [AIW_AS_R_DISABLED] = "disabled",
	[AIW_AS_R_STABILIZED] = "stabilized", [AIW_AS_R_LIMIT] = "limit",
	[AIW_AS_R_MAX] = "max",               [AIW_AS_R_MIN] = "min",
	[AIW_AS_R_PANIC] = "panic",           [AIW_AS_R_DELAY] = "delay",
	[AIW_AS_R_GRACE] = "grace",           [AIW_AS_R_RATE] = "rate",
	[AIW_AS_R_ACTIVATION] = "activation", [AIW_AS_R_STABLE] = "stable",
	[AIW_AS_R_IDLE] = "idle",             [AIW_AS_R_DEACTIVATE] = "deactivate",
	[AIW_AS_R_RETENTION] = "retention",   [AIW_AS_R_ACTIVATING] = "activating",
	[AIW_AS_R_PROBE] = "probe",
};

const char *aiwi_as_reason_name(int reason)
{
	return reason >= 0 && reason < AIW_AS_NREASONS ? reason_names[reason] : NULL;
}

aiw_status aiwi_hpa_policies_parse(const char *text, aiwi_hpa_scaling *out, char *err,
                                  size_t errlen)
{
	if (!text || !out)
		return aiwi_buferr(err, errlen, AIW_EINVAL, "no policies given");
	out->npolicies = 0;
	const char *p = text;
	for (;;) {
		size_t len = strcspn(p, ",");
		char item[128];
		while (len && (*p == ' ' || *p == '\t')) {
			p++;
			len--;
		}
		while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
			len--;
		if (len == 0 || len >= sizeof item)
			return aiwi_buferr(err, errlen, AIW_EPARSE,
			                   len ? "entry too long"
			                       : "empty entry: expected TYPE:VALUE/PERIOD "
			                         "(\"pods:4/15s\", \"percent:100/15s\")");
		memcpy(item, p, len);
		item[len] = 0;
		if (out->npolicies == AIW_HPA_MAX_POLICIES)
			return aiwi_buferr(err, errlen, AIW_ERANGE,
			                   "'%s': more than %d policies", item,
			                   AIW_HPA_MAX_POLICIES);
		char *colon = strchr(item, ':'), *slash = strchr(item, '/');
		if (!colon || !slash || slash < colon)
			return aiwi_buferr(err, errlen, AIW_EPARSE,
			                   "'%s': expected TYPE:VALUE/PERIOD (\"pods:4/15s\")", item);
		*colon = 0;
		*slash = 0;
		char *type = item;
		while (*type == ' ')
			type++;
		size_t tl = strlen(type);
		while (tl && type[tl - 1] == ' ')
			type[--tl] = 0;
		aiwi_hpa_policy q;
		if (!strcmp(type, "pods"))
			q.type = AIW_HPA_PODS;
		else if (!strcmp(type, "percent"))
			q.type = AIW_HPA_PERCENT;
		else
			return aiwi_buferr(err, errlen, AIW_EPARSE,
			                   "policy type '%s': expected pods or percent", type);
		char *end;
		q.value = strtod(colon + 1, &end);
		while (*end == ' ')
			end++;
		if (end == colon + 1 || *end || !(q.value > 0) || q.value > 1e6 ||
		    (q.type == AIW_HPA_PODS && q.value != floor(q.value)))
			return aiwi_buferr(err, errlen, AIW_ERANGE,
			                   "%s value '%s': expected %s in (0, 1e6]", type, colon + 1,
			                   q.type == AIW_HPA_PODS ? "an integer" : "a number");
		char e2[256];
		if (aiwi_parse_units(AIW_PT_DURATION, slash + 1, &q.period, e2, sizeof e2) !=
		    AIW_OK)
			return aiwi_buferr(err, errlen, AIW_EPARSE, "%s period '%s': %s", type,
			                   slash + 1, e2);
		if (!(q.period > 0 && q.period <= 1800))
			return aiwi_buferr(err, errlen, AIW_ERANGE,
			                   "%s period '%s': expected a duration in (0, 1800 s]", type,
			                   slash + 1);
		out->policies[out->npolicies++] = q;
		p += strcspn(p, ",");
		if (!*p)
			break;
		p++;
	}
	return AIW_OK;
}

/* ======================================================================== */
/* the policy                                                                */
/* ======================================================================== */
int32_t aiwi_as_hpa_recommendation(const autoscaler *a, const window *w)
{
	aiwi_hpa_groups g;
	aiwi_as_pod_groups(a, w, &g);
	aiwi_hpa_calc_in in = {
		.current = a->spec,
		.ready = g.ready,
		.unready = g.unready,
		.missing = g.missing,
		.value = aiwi_as_metric_value(a, w),
		.target = a->metric == AIW_AS_M_UTILIZATION ? P(a, AIW_AS_TARGET_UTILIZATION)
		                                            : P(a, AIW_AS_TARGET_VALUE),
		.tolerance = P(a, AIW_AS_HPA_TOLERANCE),
		.resource = a->metric == AIW_AS_M_UTILIZATION,
		.per_direction = PSET(a, AIW_AS_HPA_TOLERANCE_UP) || PSET(a, AIW_AS_HPA_TOLERANCE_DOWN),
		.tolerance_up = PSET(a, AIW_AS_HPA_TOLERANCE_UP) ? P(a, AIW_AS_HPA_TOLERANCE_UP)
		                                                 : P(a, AIW_AS_HPA_TOLERANCE),
		.tolerance_down = PSET(a, AIW_AS_HPA_TOLERANCE_DOWN)
		                          ? P(a, AIW_AS_HPA_TOLERANCE_DOWN)
		                          : P(a, AIW_AS_HPA_TOLERANCE),
	};
	return aiwi_hpa_calc(&in);
}

/* The policies of one direction from the older parameters: NAME_pods and
 * NAME_percent (each unset: no such policy) per hpa_policy_period. */
static void two_policies(const autoscaler *a, aiwi_hpa_scaling *d, int ipods, int ipct)
{
	double period = P(a, AIW_AS_HPA_POLICY_PERIOD);
	d->npolicies = 0;
	if (PSET(a, ipods))
		d->policies[d->npolicies++] = (aiwi_hpa_policy){AIW_HPA_PODS, P(a, ipods), period};
	if (PSET(a, ipct))
		d->policies[d->npolicies++] = (aiwi_hpa_policy){AIW_HPA_PERCENT, P(a, ipct), period};
}

void aiwi_as_hpa_refresh_rules(autoscaler *a)
{
	aiwi_hpa_rules *r = &a->rules;
	r->min_replicas = (int32_t)P(a, AIW_AS_MIN_REPLICAS);
	r->max_replicas = (int32_t)P(a, AIW_AS_MAX_REPLICAS);
	r->legacy = (int)P(a, AIW_AS_HPA_BEHAVIOR) == 1;
	r->legacy_up_factor = P(a, AIW_AS_HPA_LEGACY_FACTOR);
	r->legacy_up_minimum = P(a, AIW_AS_HPA_LEGACY_MINIMUM);
	r->up.window = P(a, AIW_AS_HPA_UPSCALE_STAB);
	r->down.window = P(a, AIW_AS_HPA_DOWNSCALE_STAB);
	r->up.select = (int)P(a, AIW_AS_HPA_UP_SELECT);
	r->down.select = (int)P(a, AIW_AS_HPA_DOWN_SELECT);
	if (PSET(a, AIW_AS_HPA_UP_POLICIES)) {
		memcpy(r->up.policies, a->up_list.policies, sizeof r->up.policies);
		r->up.npolicies = a->up_list.npolicies;
	} else {
		two_policies(a, &r->up, AIW_AS_HPA_UP_PODS, AIW_AS_HPA_UP_PERCENT);
	}
	if (PSET(a, AIW_AS_HPA_DOWN_POLICIES)) {
		memcpy(r->down.policies, a->down_list.policies, sizeof r->down.policies);
		r->down.npolicies = a->down_list.npolicies;
	} else {
		two_policies(a, &r->down, AIW_AS_HPA_DOWN_PODS, AIW_AS_HPA_DOWN_PERCENT);
	}
}

aiw_status aiwi_as_hpa_check_policies(autoscaler *a)
{
	static const int idx[2] = {AIW_AS_HPA_UP_POLICIES, AIW_AS_HPA_DOWN_POLICIES};
	static const char *const key[2] = {"hpa_scale_up_policies", "hpa_scale_down_policies"};
	aiwi_hpa_scaling *dst[2] = {&a->up_list, &a->down_list};
	for (int k = 0; k < 2; k++) {
		if (!PSET(a, idx[k]))
			continue;
		char e[256];
		const char *text = aiwi_ps(a->c, a->p + (size_t)idx[k]);
		aiw_status st = aiwi_hpa_policies_parse(text, dst[k], e, sizeof e);
		if (st != AIW_OK)
			return aiwi_err(a->sim, st, "%s.%s = %s: %s", a->c->prefix, key[k], text, e);
	}
	return AIW_OK;
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
	aiw_status st = aiwi_as_hpa_check_policies(a);
	if (st != AIW_OK)
		return st;
	if (a->spec == 0)
		return aiwi_err(a->sim, AIW_ERANGE,
		                "%s.replicas = 0: Kubernetes disables the HPA of a workload "
		                "scaled to zero; start with replicas >= 1",
		                a->c->prefix);
	return AIW_OK;
}

static aiw_status hpa_start(autoscaler *a)
{
	if (aiwi_as_sampled(a) && aiwi_as_start_scrape(a) != AIW_OK)
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
