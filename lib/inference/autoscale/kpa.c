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
 * wins.  A request reaching an empty fleet triggers a decision at once (the
 * activator's poke).
 *
 * Scale to zero (min_replicas = 0) is Knative's reconciler's (pkg/reconciler/
 * autoscaling/kpa: scaler.go, handleScaleToZero; kpa.go,
 * computeActiveCondition and the ServerlessService's mode): the
 * PodAutoscaler is active, inactive or activating since a time.  A zero
 * decision while active for less than a stable window keeps 1 replica;
 * once active for a stable window it marks the revision inactive (the
 * count stays) and the activator goes in the path; inactive, the last
 * replica goes after max(kpa_scale_to_zero_grace,
 * kpa_scale_to_zero_pod_retention), or after the retention once the
 * activator has been in the path for the grace period (it is from the
 * start when the excess burst capacity, ready x target_value -
 * kpa_target_burst_capacity - the panic demand, is negative: with Knative's
 * default 211 a small revision goes to zero as soon as it is inactive).
 * Activating (scaled from zero, nothing ready yet) for longer than
 * kpa_progress_deadline + 10 s it goes back to zero.  No minimum applies to
 * an unreachable revision.  The reconciler runs at every tick and again at
 * once when a pass changes the PodAutoscaler's state or the proxy mode (its
 * status update queues it); Knative's timed re-queues (after the rest of the
 * stable window, the grace, the retention) land on the next tick, which
 * with the defaults (windows multiples of the 2 s tick) is the same instant.
 * The activator probe always succeeds in the simulation; initial scale is
 * not modelled (a fleet starts with `replicas` ready).
 *
 * The decision functions (aiwi_kpa_*) take numbers, not a fleet; the code
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
	s->pa = AIW_KPA_PA_INACTIVE;
	s->pa_since = 0;
	s->proxy_since = NAN;
}

void aiwi_kpa_state_start(aiwi_kpa_state *s, double now, int32_t ready)
{
	if (ready < 0)
		ready = 0;
	s->panic_time = ready > 1 ? now : NAN;
	s->max_panic_pods = ready;
	s->pa = ready > 0 ? AIW_KPA_PA_ACTIVE : AIW_KPA_PA_INACTIVE;
	s->pa_since = now;
	s->proxy_since = ready > 0 ? NAN : now;
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
	if (!k->reconciler) {
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
	/* autoscaler.go: the excess burst capacity, from the panic value */
	double ebc = k->burst_capacity == 0 ? 0
	             : k->burst_capacity > 0
	                     ? floor((double)ready * k->total_value - k->burst_capacity - panic)
	                     : -1;
	int32_t e = (int32_t)fmax(fmin(ebc, INT32_MAX), INT32_MIN);
	/* the reconciler; a pass that changes the PodAutoscaler's state or the
	 * ServerlessService's mode updates their status, which queues the
	 * PodAutoscaler again at once */
	int32_t n = current;
	int dec_why = *why;
	for (int pass = 0; pass < 4; pass++) {
		int pa = s->pa;
		bool proxy = !isnan(s->proxy_since);
		int rwhy = dec_why;
		n = aiwi_kpa_reconcile_r(k, s, now, n, ready, want, e, &rwhy);
		*why = rwhy;
		if (s->pa == pa && !isnan(s->proxy_since) == proxy)
			break;
	}
	return n;
}

int32_t aiwi_kpa_reconcile_r(const aiwi_kpa_conf *k, aiwi_kpa_state *s, double now,
                            int32_t current, uint32_t ready, int32_t want, int32_t ebc,
                            int *reason)
{
	int why_;
	int *why = reason ? reason : &why_;
	int32_t d = want;
	bool apply = true;
	/* scaler.go, scale: no metrics yet (and not activating): nothing */
	if (d < 0 && s->pa != AIW_KPA_PA_ACTIVATING) {
		apply = false;
		*why = AIW_AS_R_NO_METRIC;
	} else {
		/* PodAutoscaler.ScaleBounds: no minimum when unreachable */
		int32_t lo = k->unreachable ? 0 : k->min_replicas, hi = k->max_replicas;
		if (d < lo) {
			d = lo;
			*why = AIW_AS_R_MIN;
		} else if (hi > 0 && d > hi) {
			d = hi;
			*why = AIW_AS_R_MAX;
		}
	}
	/* handleScaleToZero */
	if (d == 0) {
		double dt = now - s->pa_since;
		if (s->pa == AIW_KPA_PA_ACTIVATING) {
			if (!(dt > k->progress_deadline + AIWI_KPA_ACTIVATION_BUFFER)) {
				d = -1; /* scaleUnknown */
				apply = false;
				*why = AIW_AS_R_ACTIVATING;
			}
		} else if (s->pa == AIW_KPA_PA_ACTIVE) {
			if (dt >= k->stable_window) {
				apply = false; /* marked inactive below */
				*why = AIW_AS_R_DEACTIVATE;
			} else {
				d = 1; /* at most 1 for the rest of the stable window */
				*why = AIW_AS_R_IDLE;
			}
		} else if (k->no_activator && k->burst_capacity != -1) {
			apply = false; /* probed asynchronously, not in the path yet */
			*why = AIW_AS_R_PROBE;
		} else if (!(dt >= fmax(k->zero_grace, k->pod_retention))) {
			double pf = isnan(s->proxy_since) ? 0 : now - s->proxy_since;
			if (k->pod_retention > 0 && dt < k->pod_retention) {
				apply = false;
				*why = AIW_AS_R_RETENTION;
			} else if (k->zero_grace - pf > 0) {
				apply = false;
				*why = AIW_AS_R_GRACE;
			}
		}
	}
	int32_t next = apply ? d : current;
	/* kpa.go, computeActiveCondition (the scale target initialised) */
	int32_t lo = k->unreachable ? 0 : k->min_replicas;
	int64_t min_ready = lo > 1 ? lo : 1;
	int pa = s->pa;
	if (d == 0)
		pa = AIW_KPA_PA_INACTIVE;
	else if ((int64_t)ready < min_ready)
		pa = d > 0 || s->pa != AIW_KPA_PA_INACTIVE ? AIW_KPA_PA_ACTIVATING : AIW_KPA_PA_INACTIVE;
	else if (d > 0 || s->pa != AIW_KPA_PA_INACTIVE)
		pa = AIW_KPA_PA_ACTIVE;
	if (pa != s->pa) {
		s->pa = pa;
		s->pa_since = now;
	}
	/* the ServerlessService: the activator in the path at zero, without
	 * burst capacity, or with no metrics while inactive */
	bool proxy = d == 0 || ebc < 0 || (d == -1 && s->pa == AIW_KPA_PA_INACTIVE);
	if (proxy && isnan(s->proxy_since))
		s->proxy_since = now;
	else if (!proxy)
		s->proxy_since = NAN;
	return next;
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
	/* newest first, as (pos - i) mod cap for i = 1..n, without a division
	 * per sample */
	double s = 0;
	size_t a = n < r->pos ? n : r->pos;
	for (size_t i = r->pos; i > r->pos - a; i--)
		s += r->v[i - 1];
	for (size_t i = r->cap, left = n - a; left > 0; i--, left--)
		s += r->v[i - 1];
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
	a->kc.pod_retention = P(a, AIW_AS_KPA_POD_RETENTION);
	a->kc.burst_capacity = P(a, AIW_AS_KPA_TBC);
	a->kc.total_value = P(a, AIW_AS_TARGET_VALUE);
	a->kc.progress_deadline = P(a, AIW_AS_KPA_PROGRESS_DEADLINE);
	a->kc.reconciler = P(a, AIW_AS_KPA_RECONCILER) != 0;
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
	if (a->metric == AIW_AS_M_QUEUE || a->metric == AIW_AS_M_QUEUED_PROMPT_TOKENS ||
	    a->metric == AIW_AS_M_KV_OCCUPANCY)
		return aiwi_err(a->sim, AIW_EINVAL, "%s.metric = %s: kpa scales on concurrency or rps",
		                px,
		                a->metric == AIW_AS_M_QUEUE                  ? "queue"
		                : a->metric == AIW_AS_M_KV_OCCUPANCY ? "kv_occupancy"
		                                                     : "queued_prompt_tokens");
	if (a->metric == AIW_AS_M_UTILIZATION)
		a->metric = AIW_AS_M_CONCURRENCY; /* Knative's default metric */
	double tbc = P(a, AIW_AS_KPA_TBC);
	if (tbc < 0 && tbc != -1)
		return aiwi_err(a->sim, AIW_ERANGE,
		                "%s.kpa_target_burst_capacity = %g: expected -1 (the activator "
		                "always in the path) or a value >= 0",
		                px, tbc);
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
