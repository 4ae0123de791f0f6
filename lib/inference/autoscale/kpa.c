/*
 * kpa.c - autoscaler = kpa: the Knative Pod Autoscaler (knative/serving
 * pkg/autoscaler/scaling/autoscaler.go, Scale; defaults from
 * config-autoscaler): every tick (2 s) the total demand (requests in
 * flight, sampled each second, or arrivals per second) averaged over the
 * stable (60 s) and panic (6 s) windows gives dspc = ceil(stable /
 * target) and dppc = ceil(panic / target), target = target_value x
 * kpa_target_utilization; panic mode starts when dppc / ready >= 2 and
 * ends a stable window after the last time above; in panic the count only
 * grows.  Optionally (scale-down delay) the highest decision of a window
 * wins.  Scale to zero (min_replicas = 0) after zero demand for the
 * grace period; a request reaching an empty fleet triggers a decision at
 * once (the activator's poke).
 *
 * Where the library differs from Knative's reconciler (pkg/reconciler/
 * autoscaling/kpa/scaler.go, handleScaleToZero): there a zero decision is
 * applied only once the PodAutoscaler has been active for a stable window,
 * then marked inactive (the activator in the path), and inactive for
 * max(scale-to-zero-grace-period, scale-to-zero-pod-retention-period);
 * meanwhile it keeps 1 replica (or, on the tick that marks it inactive,
 * the current count).  Here the grace period starts at the first zero
 * decision and there is no activation state: a revision active for less
 * than a stable window goes to zero grace seconds after its demand does,
 * sooner than Knative would; pod retention is not modelled.
 *
 * The decision functions (aiwi_kpa_*) take numbers, not a fleet; the glue
 * at the end samples the fleet through the controller.
 */
#include "inference/autoscale/controller.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void aiwi_kpa_state_init(aiwi_kpa_state *s)
{
	memset(s, 0, sizeof *s);
	s->panic_time = NAN;
	s->max_panic_pods = 0;
	s->zero_since = NAN;
}

void aiwi_kpa_state_start(aiwi_kpa_state *s, double now, int32_t ready)
{
	if (ready < 0)
		ready = 0;
	s->panic_time = ready > 1 ? now : NAN;
	s->max_panic_pods = ready;
}

/* autoscaler.go, Scale (from the ready pods to the delay window) */
static int32_t decide(const aiwi_kpa_conf *k, aiwi_kpa_state *s, double now, uint32_t ready_pods,
                      double stable, double panic, int *why)
{
	double ready = ready_pods > 0 ? (double)ready_pods : 1.0;
	double max_up = ceil(k->max_up_rate * ready);
	double max_down = k->unreachable ? 0 : floor(ready / k->max_down_rate);
	double dspc = ceil(stable / k->target);
	double dppc = ceil(panic / k->target);
	int32_t dsp = (int32_t)fmin(fmin(fmax(dspc, max_down), max_up), INT32_MAX);
	int32_t dpp = (int32_t)fmin(fmin(fmax(dppc, max_down), max_up), INT32_MAX);
	if (why)
		*why = dspc > max_up || dspc < max_down ? AIW_AS_R_RATE : AIW_AS_R_STABLE;
	if (k->activation_scale > 1) {
		if (dspc > 0 && k->activation_scale > dsp) {
			dsp = k->activation_scale;
			if (why)
				*why = AIW_AS_R_ACTIVATION;
		}
		if (dppc > 0 && k->activation_scale > dpp)
			dpp = k->activation_scale;
	}
	bool over = dppc / ready >= k->panic_threshold;
	if (over) {
		s->panic_time = now; /* begin, or extend */
	} else if (!isnan(s->panic_time) && s->panic_time + k->stable_window < now) {
		s->panic_time = NAN; /* the surge has reached the stable window */
		s->max_panic_pods = 0;
	}
	int32_t want = dsp;
	if (!isnan(s->panic_time)) {
		if (want < dpp)
			want = dpp;
		if (want > s->max_panic_pods)
			s->max_panic_pods = want;
		want = s->max_panic_pods; /* no scale-down while panicking */
		if (why)
			*why = AIW_AS_R_PANIC;
	}
	return want;
}


int32_t aiwi_kpa_decide(const aiwi_kpa_conf *k, aiwi_kpa_state *s, double now, uint32_t ready_pods,
                       double stable, double panic)
{
	return decide(k, s, now, ready_pods, stable, panic, NULL);
}

void aiwi_kpa_state_free(aiwi_kpa_state *s)
{
	if (!s)
		return;
	free(s->delay);
	s->delay = NULL;
	s->ndelay = s->capdelay = s->first = 0;
}

/* aggregation/max: TimeWindow.Record then Current, on a ring of `cap`
 * buckets holding the descending maxima (the newest last) */
static int32_t delay_record(aiwi_kpa_state *s, int64_t index, int32_t v)
{
	size_t cap = s->capdelay;
	aiwi_kpa_bucket *m = s->delay;
	/* a value no lower than the newest ones replaces them */
	while (s->ndelay > 0 && !(v < m[(s->first + s->ndelay - 1) % cap].value))
		s->ndelay--;
	/* buckets a window old leave at the front */
	while (s->ndelay > 0 && index - m[s->first].index >= (int64_t)cap) {
		s->ndelay--;
		s->first = (s->first + 1) % cap;
	}
	/* the same bucket keeps the larger value */
	if (s->ndelay > 0) {
		aiwi_kpa_bucket *last = &m[(s->first + s->ndelay - 1) % cap];
		if (last->index == index) {
			if (last->value > v)
				v = last->value;
			s->ndelay--;
		}
	}
	m[(s->first + s->ndelay) % cap] = (aiwi_kpa_bucket){index, v};
	s->ndelay++;
	return m[s->first].value;
}

int32_t aiwi_kpa_step(const aiwi_kpa_conf *k, aiwi_kpa_state *s, double now, int32_t current,
                     uint32_t ready, double stable, double panic)
{
	return aiwi_kpa_step_r(k, s, now, current, ready, stable, panic, NULL);
}

int32_t aiwi_kpa_step_r(const aiwi_kpa_conf *k, aiwi_kpa_state *s, double now,
                       int32_t current, uint32_t ready, double stable, double panic,
                       int *reason)
{
	int why_;
	int *why = reason ? reason : &why_;
	int32_t want = decide(k, s, now, ready, stable, panic, why);
	/* scale-down delay (a reachable revision's): the highest decision of
	 * the window's buckets wins */
	double dw = k->down_delay;
	if (dw > 0 && !k->unreachable) {
		size_t cap = (size_t)ceil(dw / AIWI_KPA_DELAY_BUCKET - 1e-9);
		if (cap < 1)
			cap = 1;
		if (s->capdelay != cap) { /* first use (or a new delay): an empty window */
			aiwi_kpa_bucket *p = realloc(s->delay, cap * sizeof *p);
			if (!p)
				return AIW_ENOMEM;
			s->delay = p;
			s->capdelay = cap;
			s->first = s->ndelay = 0;
		}
		int32_t held = delay_record(s, (int64_t)floor(now / AIWI_KPA_DELAY_BUCKET), want);
		if (held != want) {
			want = held;
			*why = AIW_AS_R_DELAY;
		}
	}
	/* the last replica stays until the demand has been zero for the grace */
	if (want == 0) {
		if (isnan(s->zero_since))
			s->zero_since = now;
		if (current > 0 && now - s->zero_since < k->zero_grace) {
			want = 1;
			*why = AIW_AS_R_GRACE;
		}
	} else {
		s->zero_since = NAN;
	}
	if (want < k->min_replicas) {
		want = k->min_replicas;
		*why = AIW_AS_R_MIN;
	}
	if (want > k->max_replicas) {
		want = k->max_replicas;
		*why = AIW_AS_R_MAX;
	}
	return want;
}

aiw_status aiwi_kpa_ring_init(aiwi_kpa_ring *r, size_t cap)
{
	memset(r, 0, sizeof *r);
	if (!cap)
		cap = 1;
	if (!(r->v = calloc(cap, sizeof *r->v)))
		return AIW_ENOMEM;
	r->cap = cap;
	return AIW_OK;
}

void aiwi_kpa_ring_free(aiwi_kpa_ring *r)
{
	if (!r)
		return;
	free(r->v);
	memset(r, 0, sizeof *r);
}

void aiwi_kpa_ring_push(aiwi_kpa_ring *r, double x)
{
	r->v[r->pos] = x;
	r->pos = (r->pos + 1) % r->cap;
	if (r->n < r->cap)
		r->n++;
}

double aiwi_kpa_ring_mean(const aiwi_kpa_ring *r, size_t last)
{
	size_t n = last < r->n ? last : r->n;
	if (!n)
		return 0;
	double s = 0;
	for (size_t i = 1; i <= n; i++)
		s += r->v[(r->pos + r->cap - i) % r->cap];
	return s / (double)n;
}

/* ======================================================================== */
/* the policy                                                                */
/* ======================================================================== */
static void kpa_decide_now(autoscaler *a)
{
	double now = aiwi_now(a->sim);
	double iv = P(a, AIW_AS_METRIC_INTERVAL);
	size_t ns = (size_t)ceil(P(a, AIW_AS_KPA_STABLE_WINDOW) / iv - 1e-9);
	size_t np = (size_t)ceil(P(a, AIW_AS_KPA_PANIC_WINDOW) / iv - 1e-9);
	aiwi_as_fleet k;
	aiwi_as_counts(a, &k);
	a->kc.target = P(a, AIW_AS_TARGET_VALUE) * P(a, AIW_AS_KPA_TARGET_UTILIZATION);
	a->kc.down_delay = P(a, AIW_AS_KPA_DOWN_DELAY);
	a->kc.zero_grace = P(a, AIW_AS_KPA_ZERO_GRACE);
	a->kc.min_replicas = (int32_t)P(a, AIW_AS_MIN_REPLICAS);
	a->kc.max_replicas = (int32_t)P(a, AIW_AS_MAX_REPLICAS);
	a->kc.activation_scale = (int32_t)P(a, AIW_AS_KPA_ACTIVATION_SCALE);
	a->kc.unreachable = P(a, AIW_AS_KPA_UNREACHABLE) != 0;
	bool was = !isnan(a->ks.panic_time);
	if (was)
		a->panic_s += now - a->last_tick;
	a->last_tick = now;
	int32_t want = aiwi_kpa_step(&a->kc, &a->ks, now, a->spec, k.ready,
	                             aiwi_kpa_ring_mean(&a->ring, ns),
	                             aiwi_kpa_ring_mean(&a->ring, np ? np : 1));
	if (!was && !isnan(a->ks.panic_time))
		a->panic_entries++;
	if (want < 0) {
		aiwi_as_fail(a, (aiw_status)want);
		return;
	}
	a->syncs++;
	aiwi_as_set_spec(a, want);
}

static void tick_event(aiw_sim *sim, void *ctx, uint64_t k)
{
	autoscaler *a = ctx;
	kpa_decide_now(a);
	if (!aiwi_at(sim, (double)(k + 2) * P(a, AIW_AS_KPA_TICK), tick_event, a, k + 1))
		aiwi_as_fail(a, AIW_ENOMEM);
}

static aiw_status kpa_check(autoscaler *a)
{
	const char *px = a->c->prefix;
	if (a->metric == AIW_AS_M_QUEUE)
		return aiwi_err(a->sim, AIW_EINVAL,
		                "%s.metric = queue: kpa scales on concurrency or rps", px);
	if (a->metric == AIW_AS_M_UTILIZATION)
		a->metric = AIW_AS_M_CONCURRENCY; /* Knative's default metric */
	double pw = P(a, AIW_AS_KPA_PANIC_WINDOW), sw = P(a, AIW_AS_KPA_STABLE_WINDOW);
	double iv = P(a, AIW_AS_METRIC_INTERVAL);
	if (pw > sw)
		return aiwi_err(a->sim, AIW_ERANGE,
		                "%s.kpa_panic_window = %g s is longer than kpa_stable_window = "
		                "%g s",
		                px, pw, sw);
	if (iv > pw)
		return aiwi_err(a->sim, AIW_ERANGE,
		                "%s.metric_interval = %g s is longer than kpa_panic_window = "
		                "%g s",
		                px, iv, pw);
	return AIW_OK;
}

static aiw_status kpa_start(autoscaler *a)
{
	double iv = P(a, AIW_AS_METRIC_INTERVAL);
	if (aiwi_kpa_ring_init(&a->ring,
	                       (size_t)ceil(P(a, AIW_AS_KPA_STABLE_WINDOW) / iv - 1e-9)) != AIW_OK)
		return aiwi_err(a->sim, AIW_ENOMEM, "out of memory");
	a->kc.panic_threshold = P(a, AIW_AS_KPA_PANIC_THRESHOLD);
	a->kc.max_up_rate = P(a, AIW_AS_KPA_MAX_UP_RATE);
	a->kc.max_down_rate = P(a, AIW_AS_KPA_MAX_DOWN_RATE);
	a->kc.stable_window = P(a, AIW_AS_KPA_STABLE_WINDOW);
	/* the decider is created with the replicas ready now: more than one
	 * starts it in panic mode, as Knative */
	aiwi_as_fleet k;
	aiwi_as_counts(a, &k);
	aiwi_kpa_state_start(&a->ks, aiwi_now(a->sim), (int32_t)k.ready);
	if (!isnan(a->ks.panic_time))
		a->panic_entries++;
	a->last_tick = aiwi_now(a->sim);
	if (!aiwi_at(a->sim, P(a, AIW_AS_KPA_TICK), tick_event, a, 0))
		return AIW_ENOMEM;
	return aiwi_as_start_scrape(a);
}

static void kpa_finish(autoscaler *a, double t)
{
	double panic = a->panic_s + (isnan(a->ks.panic_time) ? 0 : t - a->last_tick);
	aiwi_metric(a->sim, a->c->prefix, "kpa_panic_entries", (double)a->panic_entries);
	aiwi_metric(a->sim, a->c->prefix, "kpa_panic_s", panic);
}

static void kpa_free(autoscaler *a)
{
	aiwi_kpa_ring_free(&a->ring);
	aiwi_kpa_state_free(&a->ks);
}

const aiwi_as_policy aiwi_as_policy_kpa = {
	.name = "kpa",
	.id = AIW_AS_KPA,
	.params = "metric, target_value, metric_interval, kpa_*",
	.check = kpa_check,
	.start = kpa_start,
	.activate = kpa_decide_now,
	.finish = kpa_finish,
	.free = kpa_free,
};
