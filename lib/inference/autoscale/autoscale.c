/*
 * autoscale.c - autoscaling of an inference fleet: the policies that set
 * its desired replica count, the controller that provisions replicas (cold
 * starts, draining, spot capacity with preemptions), and a fixed-fleet twin
 * run for the savings metrics.
 *
 * hpa: the Kubernetes HorizontalPodAutoscaler, autoscaling/v2, as its
 *   controller computes (kubernetes pkg/controller/podautoscaler,
 *   replica_calculator.go and horizontal.go; documented in "Horizontal Pod
 *   Autoscaling", algorithm details, and "Configurable scaling behavior"):
 *   every sync period, desired = ceil(ready * metric / target) unless
 *   |metric / target - 1| <= tolerance; pods not ready yet count as 0 on a
 *   scale-up and are set aside on a scale-down; the recommendation is
 *   stabilised (highest of the last 300 s on scale-down) and limited by the
 *   scaling policies (up: 100 % or 4 pods per 15 s, the larger; down: 100 %
 *   per 15 s), then bounded by min/max.  The metric is what the fleet did
 *   over the sync period: busy replica-seconds, queued request-seconds,
 *   sampled requests in flight or arrivals, divided by the replica-seconds
 *   of the replicas that served (ready or draining), so each ready replica
 *   reports the fleet's average.
 *
 * kpa: the Knative Pod Autoscaler (knative/serving
 *   pkg/autoscaler/scaling/autoscaler.go, Scale; defaults from
 *   config-autoscaler): every tick (2 s) the total demand (requests in
 *   flight, sampled each second, or arrivals per second) averaged over the
 *   stable (60 s) and panic (6 s) windows gives dspc = ceil(stable /
 *   target) and dppc = ceil(panic / target), target = target_value x
 *   kpa_target_utilization; panic mode starts when dppc / ready >= 2 and
 *   ends a stable window after the last time above; in panic the count only
 *   grows.  Optionally (scale-down delay) the highest decision of a window
 *   wins.  Scale to zero (min_replicas = 0) after zero demand for the
 *   grace period; a request reaching an empty fleet triggers a decision at
 *   once (the activator's poke).
 *
 * predictive: provisions for the largest forecast rate over the next lead
 *   time (a cold start plus a sync period), plus predictive_headroom
 *   standard deviations of the Poisson count over the lead, sqrt(rate /
 *   lead): the rate the fleet may see before a replica started now serves.
 *   The forecast is the traffic profile's rate (aiwi_traffic_rate), or a
 *   daily profile learned from the arrivals of the previous days in
 *   time-of-day bins, exponentially smoothed across days.
 *   Replicas needed for a rate lambda: lambda / predictive_capacity, else
 *   by the utilisation law lambda * D / target (D: busy replica-seconds per
 *   completed request, learned with a 30 min exponential memory), or
 *   lambda / target_value (rps), or lambda * R / target_value (concurrency,
 *   R by Little's law).  The HPA's recommendation is a reactive floor; the
 *   HPA's stabilisation windows apply, not its rate limits.
 *
 * schedule: replicas by time of day from a table.
 *
 * Controller: spec (the desired count) against the replicas provisioned
 * (ready + loading).  A new replica loads for a cold start drawn from the
 * fleet's `cold_start`; scale-down takes loading replicas first (newest
 * first), then the ready ones holding the fewest requests; they drain.
 * Spot: floor(spot_fraction x spec) replicas are spot; each is preempted
 * after an exponential time (a Poisson process per replica, memoryless, so
 * drawn once at provisioning); at the notice it stops taking requests and
 * drains, a replacement is provisioned at once, and at the end of the
 * notice whatever it still holds is re-queued (counted).  An acquisition
 * fails with probability spot_acquire_failure and is retried; after
 * spot_max_failed_acquisitions failures in a row the replica is provisioned
 * on-demand instead.
 *
 * Comparison (compare_fixed): a second simulation of this fleet alone with
 * the same seed, traffic, sizes and prices (the same random streams, so the
 * same requests), fixed at N on-demand replicas, run to the same time; its
 * figures are published as fixed_* and the differences as *_saved.
 *
 * All state hangs off the component (aiwi_serving_set_autoscale); random
 * draws come from two streams derived from the seed and the component's
 * name, so the fleet's own streams (arrivals, sizes) do not move when the
 * policy changes.
 */
#include "inference/autoscale/autoscale.h"

#include "site/cost.h"
#include "inference/serving.h"
#include "inference/traffic.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

/* ======================================================================== */
/* Kubernetes HPA                                                            */
/* ======================================================================== */
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
/* Knative KPA                                                               */
/* ======================================================================== */
void aiwi_kpa_state_init(aiwi_kpa_state *s)
{
	s->panic_time = NAN;
	s->max_panic_pods = 0;
}

int32_t aiwi_kpa_decide(const aiwi_kpa_conf *k, aiwi_kpa_state *s, double now, uint32_t ready_pods,
                       double stable, double panic)
{
	double ready = ready_pods > 0 ? (double)ready_pods : 1.0;
	double max_up = ceil(k->max_up_rate * ready);
	double max_down = floor(ready / k->max_down_rate);
	double dspc = ceil(stable / k->target);
	double dppc = ceil(panic / k->target);
	int32_t dsp = (int32_t)fmin(fmin(fmax(dspc, max_down), max_up), INT32_MAX);
	int32_t dpp = (int32_t)fmin(fmin(fmax(dppc, max_down), max_up), INT32_MAX);
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
	}
	return want;
}

/* ======================================================================== */
/* schedule tables                                                           */
/* ======================================================================== */
aiw_status aiwi_sched_parse(const char *text, aiwi_sched_entry **out, size_t *n, char *err,
                           size_t errlen)
{
	if (!text || !out || !n)
		return aiwi_buferr(err, errlen, AIW_EINVAL, "no schedule given");
	*out = NULL;
	*n = 0;
	size_t cap = 1;
	for (const char *p = text; *p; p++)
		cap += *p == ',';
	aiwi_sched_entry *e = calloc(cap, sizeof *e);
	if (!e)
		return AIW_ENOMEM;
	size_t k = 0;
	const char *p = text;
	aiw_status st = AIW_OK;
	for (;;) {
		size_t len = strcspn(p, ",");
		char item[128];
		while (len && (*p == ' ' || *p == '\t')) {
			p++;
			len--;
		}
		while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
			len--;
		if (len == 0 || len >= sizeof item) {
			st = aiwi_buferr(err, errlen, AIW_EPARSE,
			                 len ? "entry too long"
			                     : "empty entry: expected TIME:REPLICAS");
			break;
		}
		memcpy(item, p, len);
		item[len] = 0;
		char *colon = strrchr(item, ':');
		if (!colon) {
			st = aiwi_buferr(err, errlen, AIW_EPARSE,
			                 "'%s': expected TIME:REPLICAS (\"8h:10\")", item);
			break;
		}
		*colon = 0;
		char e2[256];
		double tod;
		if (aiwi_parse_units(AIW_PT_DURATION, item, &tod, e2, sizeof e2) != AIW_OK) {
			st = aiwi_buferr(err, errlen, AIW_EPARSE, "time '%s': %s", item, e2);
			break;
		}
		char *end;
		double r = strtod(colon + 1, &end);
		while (*end == ' ' || *end == '\t')
			end++;
		if (end == colon + 1 || *end || r != floor(r) || r < 0 || r > 100000) {
			st = aiwi_buferr(err, errlen, AIW_ERANGE,
			                 "replicas '%s' at %s: expected an integer in [0, 100000]",
			                 colon + 1, item);
			break;
		}
		if (!(tod >= 0 && tod < 86400)) {
			st = aiwi_buferr(err, errlen, AIW_ERANGE,
			                 "time %s is outside one day [0, 24h)", item);
			break;
		}
		if (k && !(tod > e[k - 1].tod)) {
			st = aiwi_buferr(err, errlen, AIW_EPARSE,
			                 "time %s is not after the previous entry's (times must "
			                 "increase)",
			                 item);
			break;
		}
		e[k].tod = tod;
		e[k].replicas = (int32_t)r;
		k++;
		p += strcspn(p, ",");
		if (!*p)
			break;
		p++;
	}
	if (st != AIW_OK) {
		free(e);
		return st;
	}
	*out = e;
	*n = k;
	return AIW_OK;
}

static size_t sched_index(const aiwi_sched_entry *e, size_t n, double t)
{
	double tod = fmod(t, 86400.0);
	size_t i = n - 1; /* before the first entry: the day before's last */
	for (size_t j = 0; j < n; j++)
		if (e[j].tod <= tod)
			i = j;
	return i;
}

int32_t aiwi_sched_at(const aiwi_sched_entry *e, size_t n, double t)
{
	if (!e || !n)
		return 0;
	return e[sched_index(e, n, t)].replicas;
}

double aiwi_sched_next(const aiwi_sched_entry *e, size_t n, double t)
{
	if (!e || !n)
		return INFINITY;
	double day = floor(t / 86400.0);
	double tod = t - day * 86400.0;
	for (size_t j = 0; j < n; j++)
		if (e[j].tod > tod)
			return day * 86400.0 + e[j].tod;
	return (day + 1) * 86400.0 + e[0].tod;
}

/* ======================================================================== */
/* the controller                                                            */
/* ======================================================================== */
#define DEMAND_MEMORY_S 1800.0 /* predictive: memory of the demand per request */

/* What the controller knows of a replica slot it provisioned. */
typedef struct slotrec {
	double t_add, t_load_end; /* its cold start: [t_add, t_load_end) */
	uint64_t ev_notice, ev_kill;
	uint32_t gen;
	uint8_t used;  /* holds a loading interval not yet folded into load_done */
	uint8_t live;  /* spot and exposed to preemption (no notice yet) */
} slotrec;

typedef struct autoscaler {
	aiwi_comp *c;
	aiw_sim *sim;
	size_t p; /* index of the first autoscaling parameter */
	size_t i_replicas, i_cold;
	int policy, metric;
	double g; /* GPUs per replica */
	gsl_rng *rng_cold, *rng_spot;
	int32_t spec, peak;
	/* replicas */
	slotrec *rec;
	size_t nrec;
	double load_done;      /* replica-seconds of loading, folded */
	aiwi_integral spot_live; /* spot replicas exposed to preemption */
	uint32_t consec_fail;
	uint64_t retry_ev;
	/* measurement at the previous sync */
	double m_t, m_busy, m_paid, m_wait, m_load, m_infl;
	uint64_t m_arr, m_done;
	/* requests in flight, sampled every metric_interval */
	double infl_int;  /* request-seconds (left sums) */
	double *ring;     /* kpa: the last samples of the demand */
	size_t nring, ring_pos, ring_n;
	uint64_t scrape_arr;
	/* hpa */
	aiwi_hpa_rules rules;
	aiwi_hpa_state hs;
	/* kpa */
	aiwi_kpa_conf kc;
	aiwi_kpa_state ks;
	aiwi_hpa_sample *delay; /* the decisions of the scale-down delay window */
	size_t ndelay, capdelay;
	double zero_since, last_tick, panic_s;
	uint64_t panic_entries;
	/* predictive */
	double lead, d_busy, d_done, d_infl;
	double *est, bin;
	size_t nbins;
	uint64_t bin_arr;
	/* schedule */
	aiwi_sched_entry *sched;
	size_t nsched;
	/* counters */
	uint64_t syncs, ups, downs, added, removed, cold_starts;
	double cold_sum;
	uint64_t preemptions, reclaims, requeued, acq_fail, fallbacks;
	/* curves */
	int id_des, id_ready, id_load, id_drain, id_spot, id_panic;
	/* comparison */
	aiw_sim *fixed;
	int32_t fixed_n;
	bool fail;
} autoscaler;

static inline autoscaler *AS_(const aiwi_comp *c)
{
	return (autoscaler *)aiwi_serving_autoscale(c);
}

static inline double P(const autoscaler *a, int i) { return aiwi_p(a->c, a->p + (size_t)i); }
static inline bool PSET(const autoscaler *a, int i) { return aiwi_pset(a->c, a->p + (size_t)i); }

static void as_fail(autoscaler *a, aiw_status st)
{
	if (!a->fail) {
		if (st == AIW_ENOMEM)
			aiwi_err(a->sim, st, "%s: out of memory", a->c->prefix);
		aiwi_fail(a->sim, st);
		a->fail = true;
	}
}

static bool rec_grow(autoscaler *a, size_t need)
{
	if (need <= a->nrec)
		return true;
	size_t n = a->nrec ? 2 * a->nrec : 64;
	while (n < need)
		n *= 2;
	slotrec *p = realloc(a->rec, n * sizeof *p);
	if (!p)
		return false;
	memset(p + a->nrec, 0, (n - a->nrec) * sizeof *p);
	a->rec = p;
	a->nrec = n;
	return true;
}

/* Replica-seconds spent loading from 0 to t (t >= every change made). */
static double loading_integral(const autoscaler *a, double t)
{
	double sum = a->load_done;
	for (size_t i = 0; i < a->nrec; i++) {
		const slotrec *r = &a->rec[i];
		if (r->used && r->t_load_end > r->t_add && t > r->t_add)
			sum += fmin(t, r->t_load_end) - r->t_add;
	}
	return sum;
}

static int32_t spot_target(const autoscaler *a, int32_t spec)
{
	double f = P(a, AIW_AS_SPOT_FRACTION);
	return f > 0 ? (int32_t)floor(f * spec + 1e-9) : 0;
}

static void notice_event(aiw_sim *sim, void *ctx, uint64_t arg);
static void kill_event(aiw_sim *sim, void *ctx, uint64_t arg);
static void retry_event(aiw_sim *sim, void *ctx, uint64_t arg);

/* Provision one replica now; returns the slot or a negative status. */
static int provision(autoscaler *a, bool spot, double cold_start)
{
	aiwi_comp *c = a->c;
	double now = aiwi_now(a->sim);
	int s = aiwi_serving_add_replica(c, cold_start, spot);
	if (s < 0)
		return s;
	if (!rec_grow(a, (size_t)s + 1))
		return AIW_ENOMEM;
	slotrec *r = &a->rec[s];
	if (r->used && r->t_load_end > r->t_add)
		a->load_done += r->t_load_end - r->t_add;
	if (r->ev_notice)
		aiwi_cancel(a->sim, r->ev_notice);
	if (r->ev_kill)
		aiwi_cancel(a->sim, r->ev_kill);
	r->ev_notice = r->ev_kill = 0;
	r->gen++;
	r->used = 1;
	r->t_add = now;
	r->t_load_end = now + cold_start;
	r->live = 0;
	a->added++;
	if (cold_start > 0) {
		a->cold_starts++;
		a->cold_sum += cold_start;
	}
	if (spot) {
		r->live = 1;
		aiwi_int_set(&a->spot_live, now, a->spot_live.value + 1);
		double rate = P(a, AIW_AS_SPOT_RATE);
		if (rate > 0) {
			double t = now + gsl_ran_exponential(a->rng_spot, 1.0 / rate);
			uint64_t arg = (uint64_t)s | (uint64_t)r->gen << 32;
			r->ev_notice = isfinite(t) ? aiwi_at(a->sim, t, notice_event, a, arg) : 0;
			if (isfinite(t) && !r->ev_notice)
				return AIW_ENOMEM;
		}
	}
	return s;
}

/* The controller stops counting slot s as its own loading or exposed replica. */
static void release(autoscaler *a, uint32_t s)
{
	if (s >= a->nrec)
		return;
	double now = aiwi_now(a->sim);
	slotrec *r = &a->rec[s];
	if (r->used && r->t_load_end > now)
		r->t_load_end = now > r->t_add ? now : r->t_add;
	if (r->live) {
		r->live = 0;
		aiwi_int_set(&a->spot_live, now, a->spot_live.value - 1);
	}
	if (r->ev_notice) {
		aiwi_cancel(a->sim, r->ev_notice);
		r->ev_notice = 0;
	}
}

/* The replica to remove: a spot one (want 1) or an on-demand one (0);
 * loading ones first (the newest), then the ready one holding the fewest
 * requests (the newest among equals).  -1 if there is none of that kind. */
static int victim(const autoscaler *a, int want)
{
	const aiwi_comp *c = a->c;
	size_t n = aiwi_serving_slots(c);
	int best = -1;
	bool best_loading = false;
	uint32_t best_out = 0;
	double best_t = -INFINITY;
	for (size_t i = 0; i < n; i++) {
		aiwi_replica_state st = aiwi_serving_replica_state(c, i);
		if (st != AIW_REPLICA_LOADING && st != AIW_REPLICA_READY)
			continue;
		if ((int)aiwi_serving_replica_spot(c, i) != want)
			continue;
		bool loading = st == AIW_REPLICA_LOADING;
		uint32_t out = loading ? 0 : aiwi_serving_replica_outstanding(c, i);
		double t = i < a->nrec && a->rec[i].used ? a->rec[i].t_add : 0;
		bool better;
		if (best < 0)
			better = true;
		else if (loading != best_loading)
			better = loading;
		else if (!loading && out != best_out)
			better = out < best_out;
		else
			better = t >= best_t;
		if (better) {
			best = (int)i;
			best_loading = loading;
			best_out = out;
			best_t = t;
		}
	}
	return best;
}

static double draw_cold_start(autoscaler *a)
{
	const aiwi_dist *d = aiwi_pd(a->c, a->i_cold);
	double x = d ? aiwi_dist_sample(d, a->rng_cold) : 0;
	return x > 0 && isfinite(x) ? x : 0;
}

/* Bring the provisioned replicas (ready + loading) to spec. */
static void reconcile(autoscaler *a)
{
	if (a->fail)
		return;
	aiwi_comp *c = a->c;
	aiwi_serving_counts k;
	aiwi_serving_get_counts(c, &k);
	int64_t have = (int64_t)k.ready + k.loading;
	double f = P(a, AIW_AS_SPOT_FRACTION);
	while (have < a->spec) {
		bool spot = f > 0 && a->spot_live.value < spot_target(a, a->spec);
		if (spot) {
			if (a->retry_ev)
				break; /* an acquisition is being retried */
			double pf = P(a, AIW_AS_SPOT_ACQ_FAILURE);
			if (pf > 0 && gsl_rng_uniform(a->rng_spot) < pf) {
				a->acq_fail++;
				if (++a->consec_fail >= (uint32_t)P(a, AIW_AS_SPOT_MAX_FAILED)) {
					a->consec_fail = 0;
					a->fallbacks++;
					spot = false; /* on-demand instead */
				} else {
					double t = aiwi_now(a->sim) + P(a, AIW_AS_SPOT_RETRY);
					if (!(a->retry_ev = aiwi_at(a->sim, t, retry_event, a, 0)))
						as_fail(a, AIW_ENOMEM);
					break;
				}
			} else {
				a->consec_fail = 0;
			}
		}
		int s = provision(a, spot, draw_cold_start(a));
		if (s < 0) {
			as_fail(a, (aiw_status)s);
			return;
		}
		have++;
	}
	while (have > a->spec) {
		int want = a->spot_live.value > spot_target(a, a->spec) ? 1 : 0;
		int s = victim(a, want);
		if (s < 0)
			s = victim(a, !want);
		if (s < 0)
			break;
		release(a, (uint32_t)s);
		int r = aiwi_serving_remove_replica(c, s);
		if (r < 0) {
			as_fail(a, (aiw_status)r);
			return;
		}
		a->removed++;
		have--;
	}
}

static void set_spec(autoscaler *a, int32_t n)
{
	if (n < 0)
		n = 0;
	if (n > a->spec)
		a->ups++;
	else if (n < a->spec)
		a->downs++;
	a->spec = n;
	if (n > a->peak)
		a->peak = n;
	reconcile(a);
}

/* ---- spot ---- */
static void retry_event(aiw_sim *sim, void *ctx, uint64_t arg)
{
	autoscaler *a = ctx;
	a->retry_ev = 0;
	reconcile(a);
}

static void notice_event(aiw_sim *sim, void *ctx, uint64_t arg)
{
	autoscaler *a = ctx;
	uint32_t s = (uint32_t)(arg & 0xffffffffu), gen = (uint32_t)(arg >> 32);
	if (s >= a->nrec)
		return;
	slotrec *r = &a->rec[s];
	if (r->gen != gen || !r->live)
		return;
	r->ev_notice = 0;
	aiwi_comp *c = a->c;
	aiwi_replica_state st = aiwi_serving_replica_state(c, s);
	release(a, s);
	if (st != AIW_REPLICA_LOADING && st != AIW_REPLICA_READY)
		return;
	a->preemptions++;
	double notice = P(a, AIW_AS_SPOT_NOTICE);
	if (st == AIW_REPLICA_READY && notice <= 0) {
		a->requeued += aiwi_serving_replica_outstanding(c, s);
		a->reclaims++;
		aiw_status e = aiwi_serving_fail_replica(c, (int)s);
		if (e != AIW_OK) {
			as_fail(a, e);
			return;
		}
	} else {
		int e = aiwi_serving_remove_replica(c, (int)s);
		if (e < 0) {
			as_fail(a, (aiw_status)e);
			return;
		}
		if (aiwi_serving_replica_state(c, s) == AIW_REPLICA_DRAINING &&
		    !(r->ev_kill = aiwi_at(sim, aiwi_now(sim) + notice, kill_event, a, arg))) {
			as_fail(a, AIW_ENOMEM);
			return;
		}
	}
	reconcile(a); /* the replacement */
}

static void kill_event(aiw_sim *sim, void *ctx, uint64_t arg)
{
	autoscaler *a = ctx;
	uint32_t s = (uint32_t)(arg & 0xffffffffu), gen = (uint32_t)(arg >> 32);
	if (s >= a->nrec || a->rec[s].gen != gen)
		return;
	a->rec[s].ev_kill = 0;
	if (aiwi_serving_replica_state(a->c, s) != AIW_REPLICA_DRAINING)
		return; /* drained within the notice */
	a->requeued += aiwi_serving_replica_outstanding(a->c, s);
	a->reclaims++;
	aiw_status e = aiwi_serving_fail_replica(a->c, (int)s);
	if (e != AIW_OK)
		as_fail(a, e);
}

/* ---- measurement ---- */
typedef struct window {
	double dt, busy_rep_s, serving_rep_s, wait_s, infl_s;
	uint64_t arrived, completed;
} window;

/* What the fleet did since the previous call. */
static void measure(autoscaler *a, window *w)
{
	double now = aiwi_now(a->sim);
	double busy, paid, wait;
	aiwi_serving_integrals(a->c, &busy, &paid, &wait);
	double load = loading_integral(a, now);
	aiwi_serving_counts k;
	aiwi_serving_get_counts(a->c, &k);
	w->dt = now - a->m_t;
	w->busy_rep_s = (busy - a->m_busy) / a->g;
	w->serving_rep_s = (paid - a->m_paid) / a->g - (load - a->m_load);
	w->wait_s = wait - a->m_wait;
	w->infl_s = a->infl_int - a->m_infl;
	w->arrived = k.arrived - a->m_arr;
	w->completed = k.completed - a->m_done;
	a->m_t = now;
	a->m_busy = busy;
	a->m_paid = paid;
	a->m_wait = wait;
	a->m_load = load;
	a->m_infl = a->infl_int;
	a->m_arr = k.arrived;
	a->m_done = k.completed;
}

/* The metric of each ready replica over the window (NAN: none served). */
static double metric_value(const autoscaler *a, const window *w)
{
	if (!(w->serving_rep_s > 1e-9))
		return NAN;
	switch (a->metric) {
	case AIW_AS_M_UTILIZATION:
		return w->busy_rep_s / w->serving_rep_s;
	case AIW_AS_M_CONCURRENCY:
		return w->infl_s / w->serving_rep_s;
	case AIW_AS_M_QUEUE:
		return w->wait_s / w->serving_rep_s;
	default:
		return (double)w->arrived / w->serving_rep_s;
	}
}

static int32_t hpa_recommendation(const autoscaler *a, const window *w)
{
	aiwi_serving_counts k;
	aiwi_serving_get_counts(a->c, &k);
	int64_t have = (int64_t)k.ready + k.loading;
	int64_t pods = a->spec > have ? a->spec : have;
	aiwi_hpa_calc_in in = {
		.current = a->spec,
		.ready = (int32_t)k.ready,
		.unready = (int32_t)(pods - k.ready),
		.missing = 0,
		.value = metric_value(a, w),
		.target = a->metric == AIW_AS_M_UTILIZATION ? P(a, AIW_AS_TARGET_UTILIZATION)
		                                            : P(a, AIW_AS_TARGET_VALUE),
		.tolerance = P(a, AIW_AS_HPA_TOLERANCE),
		.resource = a->metric == AIW_AS_M_UTILIZATION,
	};
	return aiwi_hpa_calc(&in);
}

static void refresh_rules(autoscaler *a)
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
static double forecast_at(const autoscaler *a, double t)
{
	if ((int)P(a, AIW_AS_PRED_SOURCE) == AIW_AS_SRC_PROFILE)
		return aiwi_traffic_rate(aiwi_serving_traffic(a->c), t);
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
	default: /* concurrency, by Little's law */
		return a->d_done > 0 ? rate * (a->d_infl / a->d_done) / P(a, AIW_AS_TARGET_VALUE)
		                     : NAN;
	}
}

static void bin_event(aiw_sim *sim, void *ctx, uint64_t k)
{
	autoscaler *a = ctx;
	aiwi_serving_counts c;
	aiwi_serving_get_counts(a->c, &c);
	double obs = (double)(c.arrived - a->bin_arr) / a->bin;
	a->bin_arr = c.arrived;
	size_t b = (size_t)(k % a->nbins);
	double alpha = P(a, AIW_AS_PRED_SMOOTHING);
	a->est[b] = isnan(a->est[b]) ? obs : alpha * obs + (1 - alpha) * a->est[b];
	if (!aiwi_at(sim, (double)(k + 2) * a->bin, bin_event, a, k + 1))
		as_fail(a, AIW_ENOMEM);
}

/* ---- the policies' events ---- */
static void sync_event(aiw_sim *sim, void *ctx, uint64_t arg)
{
	autoscaler *a = ctx;
	double now = aiwi_now(sim);
	window w;
	measure(a, &w);
	refresh_rules(a);
	a->syncs++;
	int32_t next;
	int32_t rec = hpa_recommendation(a, &w);
	if (a->policy == AIW_AS_HPA) {
		next = aiwi_hpa_sync(&a->rules, &a->hs, now, a->spec, rec);
	} else { /* predictive */
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
	}
	if (next < 0) {
		as_fail(a, (aiw_status)next);
		return;
	}
	set_spec(a, next);
	if (!aiwi_at(sim, now + P(a, AIW_AS_HPA_SYNC_PERIOD), sync_event, a, 0))
		as_fail(a, AIW_ENOMEM);
}

static double ring_mean(const autoscaler *a, size_t last)
{
	size_t n = last < a->ring_n ? last : a->ring_n;
	if (!n)
		return 0;
	double s = 0;
	for (size_t i = 1; i <= n; i++)
		s += a->ring[(a->ring_pos + a->nring - i) % a->nring];
	return s / (double)n;
}

static void kpa_decide_now(autoscaler *a)
{
	double now = aiwi_now(a->sim);
	double iv = P(a, AIW_AS_METRIC_INTERVAL);
	size_t ns = (size_t)ceil(P(a, AIW_AS_KPA_STABLE_WINDOW) / iv - 1e-9);
	size_t np = (size_t)ceil(P(a, AIW_AS_KPA_PANIC_WINDOW) / iv - 1e-9);
	aiwi_serving_counts k;
	aiwi_serving_get_counts(a->c, &k);
	a->kc.target = P(a, AIW_AS_TARGET_VALUE) * P(a, AIW_AS_KPA_TARGET_UTILIZATION);
	bool was = !isnan(a->ks.panic_time);
	if (was)
		a->panic_s += now - a->last_tick;
	a->last_tick = now;
	int32_t want = aiwi_kpa_decide(&a->kc, &a->ks, now, k.ready, ring_mean(a, ns),
	                              ring_mean(a, np ? np : 1));
	if (!was && !isnan(a->ks.panic_time))
		a->panic_entries++;
	/* scale-down delay: the highest decision of the window wins */
	double dw = P(a, AIW_AS_KPA_DOWN_DELAY);
	if (dw > 0) {
		aiwi_hpa_sample x = {now, want};
		size_t keep = 0;
		for (size_t i = 0; i < a->ndelay; i++)
			if (a->delay[i].t > now - dw) {
				if (a->delay[i].v > want)
					want = a->delay[i].v;
				a->delay[keep++] = a->delay[i];
			}
		a->ndelay = keep;
		if (!push_sample(&a->delay, &a->ndelay, &a->capdelay, x))
			as_fail(a, AIW_ENOMEM);
	}
	/* the last replica stays until the demand has been zero for the grace */
	if (want == 0) {
		if (isnan(a->zero_since))
			a->zero_since = now;
		if (a->spec > 0 && now - a->zero_since < P(a, AIW_AS_KPA_ZERO_GRACE))
			want = 1;
	} else {
		a->zero_since = NAN;
	}
	int32_t lo = (int32_t)P(a, AIW_AS_MIN_REPLICAS), hi = (int32_t)P(a, AIW_AS_MAX_REPLICAS);
	if (want < lo)
		want = lo;
	if (want > hi)
		want = hi;
	a->syncs++;
	set_spec(a, want);
}

static void tick_event(aiw_sim *sim, void *ctx, uint64_t k)
{
	autoscaler *a = ctx;
	kpa_decide_now(a);
	if (!aiwi_at(sim, (double)(k + 2) * P(a, AIW_AS_KPA_TICK), tick_event, a, k + 1))
		as_fail(a, AIW_ENOMEM);
}

static void scrape_event(aiw_sim *sim, void *ctx, uint64_t k)
{
	autoscaler *a = ctx;
	double iv = P(a, AIW_AS_METRIC_INTERVAL);
	aiwi_serving_counts c;
	aiwi_serving_get_counts(a->c, &c);
	double infl = (double)(c.waiting + c.running);
	a->infl_int += infl * iv;
	if (a->ring) {
		double x = infl;
		if (a->metric == AIW_AS_M_RPS)
			x = (double)(c.arrived - a->scrape_arr) / iv;
		a->scrape_arr = c.arrived;
		a->ring[a->ring_pos] = x;
		a->ring_pos = (a->ring_pos + 1) % a->nring;
		if (a->ring_n < a->nring)
			a->ring_n++;
		/* a request reaching an empty fleet: the activator pokes the autoscaler */
		if (a->policy == AIW_AS_KPA && a->spec == 0 && c.waiting > 0)
			kpa_decide_now(a);
	}
	if (!aiwi_at(sim, (double)(k + 2) * iv, scrape_event, a, k + 1))
		as_fail(a, AIW_ENOMEM);
}

static void sched_event(aiw_sim *sim, void *ctx, uint64_t i)
{
	autoscaler *a = ctx;
	double now = aiwi_now(sim);
	a->syncs++;
	set_spec(a, a->sched[i].replicas);
	/* the next entry, by index (no time-of-day rounding can repeat one):
	 * the day of this entry (-1 for the day before's last at t = 0) */
	double day = floor((now - a->sched[i].tod) / 86400.0 + 0.5);
	size_t j = (size_t)i + 1;
	double t = j < a->nsched ? day * 86400.0 + a->sched[j].tod
	                         : (day + 1) * 86400.0 + a->sched[0].tod;
	if (j >= a->nsched)
		j = 0;
	if (!aiwi_at(sim, t, sched_event, a, j))
		as_fail(a, AIW_ENOMEM);
}

/* ======================================================================== */
/* the fixed-fleet twin                                                      */
/* ======================================================================== */
static aiw_status copy_params(aiw_sim *dst, const aiwi_comp *src)
{
	const aiwi_kind *k = src->kind;
	char *text = malloc(8192);
	if (!text)
		return AIW_ENOMEM;
	aiw_status st = AIW_OK;
	for (size_t i = 0; i < k->nparams && st == AIW_OK; i++) {
		const aiwi_param_def *d = &k->params[i];
		const aiwi_value *v = &src->v[i];
		if (!v->set && !d->def)
			continue; /* unset without a default: leave it so */
		if (!v->set && !(d->flags & AIW_PF_NONE))
			continue;
		aiwi_value_format(d, v, text, 8192);
		char name[512];
		snprintf(name, sizeof name, "%s.%s", src->prefix, d->key);
		st = aiw_sim_set(dst, name, text);
	}
	free(text);
	return st;
}

static aiw_status build_fixed(autoscaler *a)
{
	aiw_sim *sim = a->sim;
	aiwi_comp *c = a->c;
	aiw_sim *n;
	aiw_status st = aiw_sim_create(&n, 1);
	if (st != AIW_OK)
		return aiwi_err(sim, st, "out of memory");
	for (size_t i = 0; i < aiwi_ncomps(sim) && st == AIW_OK; i++) {
		aiwi_comp *x = aiwi_comp_at(sim, i);
		const char *kn = x->kind->name;
		if (x == c || !strcmp(kn, "sim") || !strcmp(kn, "site") || !strcmp(kn, "gpu"))
			st = copy_params(n, x);
	}
	char name[512];
	static const char *const over[][2] = {
		{"autoscaler", "none"}, {"spot_fraction", "0"}, {"compare_fixed", "none"}};
	for (size_t i = 0; i < 3 && st == AIW_OK; i++) {
		snprintf(name, sizeof name, "%s.%s", c->prefix, over[i][0]);
		st = aiw_sim_set(n, name, over[i][1]);
	}
	if (st != AIW_OK) {
		aiwi_err(sim, st, "%s.compare_fixed: cannot set up the fixed fleet: %s", c->prefix,
		         aiw_sim_errmsg(n));
		aiw_sim_free(n);
		return st;
	}
	a->fixed = n;
	a->fixed_n = -1;
	return AIW_OK;
}

static void run_fixed(autoscaler *a, double t)
{
	aiwi_comp *c = a->c;
	const char *px = c->prefix;
	int32_t want = aiwi_p(c, a->p + AIW_AS_COMPARE_FIXED) > 0
	                       ? (int32_t)P(a, AIW_AS_COMPARE_FIXED)
	                       : (a->peak > 0 ? a->peak : 1);
	aiw_status st = AIW_OK;
	char name[512], val[32];
	double now = NAN;
	aiw_sim_now(a->fixed, &now);
	if (want != a->fixed_n || t < now) {
		aiw_sim_reset(a->fixed);
		snprintf(name, sizeof name, "%s.replicas", px);
		snprintf(val, sizeof val, "%d", (int)want);
		st = aiw_sim_set(a->fixed, name, val);
		a->fixed_n = want;
	}
	if (st == AIW_OK)
		st = aiw_sim_run_until(a->fixed, t);
	if (st != AIW_OK) {
		aiwi_err(a->sim, st, "%s.compare_fixed: the fixed fleet's run failed: %s", px,
		         aiw_sim_errmsg(a->fixed));
		as_fail(a, st);
		return;
	}
	static const char *const keys[][2] = {
		{"gpu_hours", "fixed_gpu_hours"},
		{"cost_usd", "fixed_cost_usd"},
		{"hardware_cost_usd", "fixed_hardware_cost_usd"},
		{"energy_kwh", "fixed_energy_kwh"},
		{"slo_attainment", "fixed_slo_attainment"},
		{"ttft_p99_s", "fixed_ttft_p99_s"},
		{"requests_completed", "fixed_requests_completed"},
	};
	double fix[7];
	for (size_t i = 0; i < 7; i++) {
		snprintf(name, sizeof name, "%s.%s", px, keys[i][0]);
		if (aiw_sim_metric(a->fixed, name, &fix[i]) != AIW_OK)
			fix[i] = NAN;
		aiwi_metric(a->sim, px, keys[i][1], fix[i]);
	}
	/* this run's figures from its integrals (the site publishes cost_usd
	 * after the components finish) */
	double mine[4] = {c->paid_gpu_s / 3600,
	                  c->cost_usd + aiwi_cost_energy_usd(a->sim, c->energy_j), 0,
	                  c->energy_j / 3.6e6};
	aiwi_metric(a->sim, px, "fixed_replicas", want);
	aiwi_metric(a->sim, px, "gpu_hours_saved", fix[0] - mine[0]);
	aiwi_metric(a->sim, px, "cost_saved_usd", fix[1] - mine[1]);
	aiwi_metric(a->sim, px, "cost_saved_fraction", fix[1] > 0 ? 1 - mine[1] / fix[1] : NAN);
	aiwi_metric(a->sim, px, "energy_saved_kwh", fix[3] - mine[3]);
}

/* ======================================================================== */
/* hooks                                                                     */
/* ======================================================================== */
bool aiwi_autoscale_active(const aiwi_comp *c)
{
	return c && aiwi_serving_active(c) && AS_(c) != NULL;
}

int32_t aiwi_autoscale_desired(const aiwi_comp *c)
{
	return aiwi_autoscale_active(c) ? AS_(c)->spec : -1;
}

bool aiwi_autoscale_panicking(const aiwi_comp *c)
{
	return aiwi_autoscale_active(c) && !isnan(AS_(c)->ks.panic_time);
}

double aiwi_autoscale_forecast(const aiwi_comp *c, double t)
{
	if (!aiwi_autoscale_active(c) || AS_(c)->policy != AIW_AS_PREDICTIVE)
		return NAN;
	return forecast_at(AS_(c), t);
}

static uint64_t sim_seed(aiw_sim *sim)
{
	aiwi_comp *sc = aiwi_simcomp(sim);
	size_t i = aiwi_kind_param_index(sc->kind, "seed");
	if (i == SIZE_MAX)
		return 1;
	double d = aiwi_p(sc, i);
	return d < 9007199254740992.0 ? (uint64_t)d : strtoull(aiwi_ps(sc, i), NULL, 10);
}

static aiw_status check_bounds(const aiwi_comp *c, size_t p, int policy)
{
	double lo = aiwi_p(c, p + AIW_AS_MIN_REPLICAS), hi = aiwi_p(c, p + AIW_AS_MAX_REPLICAS);
	if (lo > hi)
		return aiwi_err(c->sim, AIW_ERANGE,
		                "%s.min_replicas = %g is above max_replicas = %g", c->prefix, lo,
		                hi);
	if (lo < 1 && (policy == AIW_AS_HPA || policy == AIW_AS_PREDICTIVE))
		return aiwi_err(c->sim, AIW_ERANGE,
		                "%s.min_replicas = 0: the HPA scales from zero only on object or "
		                "external metrics; use autoscaler = kpa to scale to zero, or "
		                "min_replicas >= 1",
		                c->prefix);
	return AIW_OK;
}

static aiw_status start_checks(autoscaler *a)
{
	aiwi_comp *c = a->c;
	const char *px = c->prefix;
	aiw_status st = check_bounds(c, a->p, a->policy);
	if (st != AIW_OK)
		return st;
	if (a->policy == AIW_AS_HPA && a->spec == 0)
		return aiwi_err(a->sim, AIW_ERANGE,
		                "%s.replicas = 0: Kubernetes disables the HPA of a workload "
		                "scaled to zero; start with replicas >= 1",
		                px);
	if (a->policy == AIW_AS_KPA) {
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
	}
	if (a->policy == AIW_AS_PREDICTIVE) {
		if (a->metric == AIW_AS_M_QUEUE && !PSET(a, AIW_AS_PRED_CAPACITY))
			return aiwi_err(a->sim, AIW_EINVAL,
			                "%s.metric = queue: predictive sizes the fleet from a rate; "
			                "use utilization, concurrency or rps, or set "
			                "predictive_capacity",
			                px);
		if ((int)P(a, AIW_AS_PRED_SOURCE) == AIW_AS_SRC_HISTORY) {
			double k = 86400.0 / P(a, AIW_AS_PRED_BIN);
			if (fabs(k - round(k)) > 1e-9 * k)
				return aiwi_err(a->sim, AIW_ERANGE,
				                "%s.predictive_bin = %g s does not divide a day into "
				                "whole bins",
				                px, P(a, AIW_AS_PRED_BIN));
		}
	}
	if (a->policy == AIW_AS_SCHEDULE_POLICY && !PSET(a, AIW_AS_SCHEDULE))
		return aiwi_err(a->sim, AIW_EINVAL,
		                "%s.schedule is not set: autoscaler = schedule needs a table "
		                "(\"0h:2, 8h:10, 20h:4\")",
		                px);
	if (PSET(a, AIW_AS_SCHEDULE) && a->policy == AIW_AS_SCHEDULE_POLICY) {
		char e[256];
		st = aiwi_sched_parse(aiwi_ps(c, a->p + AIW_AS_SCHEDULE), &a->sched, &a->nsched, e,
		                     sizeof e);
		if (st == AIW_ENOMEM)
			return aiwi_err(a->sim, st, "out of memory");
		if (st != AIW_OK)
			return aiwi_err(a->sim, st, "%s.schedule = %s: %s", px,
			                aiwi_ps(c, a->p + AIW_AS_SCHEDULE), e);
		if (!a->nsched)
			return aiwi_err(a->sim, AIW_EINVAL, "%s.schedule is empty", px);
	}
	return AIW_OK;
}

aiw_status aiwi_autoscale_start(aiwi_comp *c, size_t first)
{
	if (!aiwi_serving_active(c) || first + AIW_AUTOSCALE_NPARAMS > c->kind->nparams)
		return AIW_EINVAL;
	aiw_sim *sim = c->sim;
	int policy = (int)aiwi_p(c, first + AIW_AS_AUTOSCALER);
	bool spot = aiwi_p(c, first + AIW_AS_SPOT_FRACTION) > 0;
	bool compare = aiwi_pset(c, first + AIW_AS_COMPARE_FIXED);
	if (policy == AIW_AS_NONE && !spot && !compare)
		return AIW_OK; /* nothing to control */
	autoscaler *a = calloc(1, sizeof *a);
	if (!a)
		return aiwi_err(sim, AIW_ENOMEM, "out of memory");
	aiwi_serving_set_autoscale(c, a);
	a->c = c;
	a->sim = sim;
	a->p = first;
	a->policy = policy;
	a->metric = (int)aiwi_p(c, first + AIW_AS_METRIC);
	a->i_replicas = aiwi_kind_param_index(c->kind, "replicas");
	a->i_cold = aiwi_kind_param_index(c->kind, "cold_start");
	size_t ig = aiwi_kind_param_index(c->kind, "gpus_per_replica");
	if (a->i_replicas == SIZE_MAX || a->i_cold == SIZE_MAX || ig == SIZE_MAX)
		return aiwi_err(sim, AIW_EINVAL,
		                "%s: the autoscaler needs replicas, cold_start and gpus_per_replica",
		                c->prefix);
	a->g = aiwi_p(c, ig);
	a->zero_since = NAN;
	aiwi_kpa_state_init(&a->ks);
	aiwi_hpa_state_init(&a->hs);
	aiwi_serving_counts k;
	aiwi_serving_get_counts(c, &k);
	a->spec = (int32_t)(k.ready + k.loading); /* the initial replicas */
	a->peak = a->spec;
	aiw_status st = start_checks(a);
	if (st != AIW_OK)
		return st;
	refresh_rules(a);

	/* streams of their own: the fleet's arrivals and sizes stay put */
	char label[512];
	uint64_t seed = sim_seed(sim);
	a->rng_cold = aiwi_rng_alloc();
	a->rng_spot = aiwi_rng_alloc();
	if (!a->rng_cold || !a->rng_spot)
		return aiwi_err(sim, AIW_ENOMEM, "out of memory");
	snprintf(label, sizeof label, "%s/cold_start", c->prefix);
	gsl_rng_set(a->rng_cold, (unsigned long)aiwi_stream_seed(seed, label));
	snprintf(label, sizeof label, "%s/spot", c->prefix);
	gsl_rng_set(a->rng_spot, (unsigned long)aiwi_stream_seed(seed, label));

	st = aiwi_serving_set_spot_factor(c, 1 - aiwi_p(c, first + AIW_AS_SPOT_DISCOUNT));
	if (st != AIW_OK)
		return st;
	aiwi_int_init(&a->spot_live, 0, 0);

	/* curves */
	struct {
		int *id;
		const char *key;
	} curves[] = {{&a->id_des, "replicas_desired"},
	              {&a->id_ready, "replicas_ready"},
	              {&a->id_load, "replicas_loading"},
	              {&a->id_drain, "replicas_draining"},
	              {&a->id_spot, "replicas_spot"},
	              {&a->id_panic, "kpa_panic"}};
	a->id_panic = -1;
	for (size_t i = 0; i < sizeof curves / sizeof *curves; i++) {
		if (*curves[i].id == -1 && policy != AIW_AS_KPA)
			continue;
		snprintf(label, sizeof label, "%s.%s", c->prefix, curves[i].key);
		if ((*curves[i].id = aiwi_rec_add(sim, label, "1")) < 0)
			return (aiw_status)*curves[i].id;
	}

	/* the initial replicas (ready at 0): adopted, the spot share re-provisioned */
	int32_t nspot = spot_target(a, a->spec);
	for (int32_t i = 0; i < nspot; i++) {
		int s = victim(a, 0);
		if (s < 0)
			break;
		if ((st = aiwi_serving_remove_replica(c, s)) < 0 ||
		    (st = provision(a, true, 0)) < 0)
			return st;
	}
	a->added = 0; /* the initial replicas were not scaling actions */
	if (!rec_grow(a, aiwi_serving_slots(c) + 1))
		return aiwi_err(sim, AIW_ENOMEM, "out of memory");

	/* the policy's events */
	bool scrape = policy == AIW_AS_KPA ||
	              ((policy == AIW_AS_HPA || policy == AIW_AS_PREDICTIVE) &&
	               a->metric == AIW_AS_M_CONCURRENCY);
	double iv = aiwi_p(c, first + AIW_AS_METRIC_INTERVAL);
	if (policy == AIW_AS_KPA) {
		a->nring = (size_t)ceil(aiwi_p(c, first + AIW_AS_KPA_STABLE_WINDOW) / iv - 1e-9);
		if (!a->nring)
			a->nring = 1;
		if (!(a->ring = calloc(a->nring, sizeof *a->ring)))
			return aiwi_err(sim, AIW_ENOMEM, "out of memory");
		a->kc.panic_threshold = aiwi_p(c, first + AIW_AS_KPA_PANIC_THRESHOLD);
		a->kc.max_up_rate = aiwi_p(c, first + AIW_AS_KPA_MAX_UP_RATE);
		a->kc.max_down_rate = aiwi_p(c, first + AIW_AS_KPA_MAX_DOWN_RATE);
		a->kc.stable_window = aiwi_p(c, first + AIW_AS_KPA_STABLE_WINDOW);
		if (!aiwi_at(sim, aiwi_p(c, first + AIW_AS_KPA_TICK), tick_event, a, 0))
			return AIW_ENOMEM;
	}
	if (scrape && !aiwi_at(sim, iv, scrape_event, a, 0))
		return AIW_ENOMEM;
	if (policy == AIW_AS_HPA || policy == AIW_AS_PREDICTIVE) {
		if (!aiwi_at(sim, 0, sync_event, a, 0))
			return AIW_ENOMEM;
	}
	if (policy == AIW_AS_PREDICTIVE) {
		const aiwi_dist *cd = aiwi_pd(c, a->i_cold);
		a->lead = aiwi_pset(c, first + AIW_AS_PRED_LEAD) &&
		                          !c->v[first + AIW_AS_PRED_LEAD].is_auto
		                  ? aiwi_p(c, first + AIW_AS_PRED_LEAD)
		                  : (cd ? fmax(0, aiwi_dist_quantile_upper(cd, 0.01)) : 0) +
		                            aiwi_p(c, first + AIW_AS_HPA_SYNC_PERIOD);
		if (!isfinite(a->lead))
			a->lead = aiwi_p(c, first + AIW_AS_HPA_SYNC_PERIOD);
		if ((int)aiwi_p(c, first + AIW_AS_PRED_SOURCE) == AIW_AS_SRC_HISTORY) {
			a->bin = aiwi_p(c, first + AIW_AS_PRED_BIN);
			a->nbins = (size_t)llround(86400.0 / a->bin);
			if (!(a->est = malloc(a->nbins * sizeof *a->est)))
				return aiwi_err(sim, AIW_ENOMEM, "out of memory");
			for (size_t i = 0; i < a->nbins; i++)
				a->est[i] = NAN;
			if (!aiwi_at(sim, a->bin, bin_event, a, 0))
				return AIW_ENOMEM;
		}
	}
	if (policy == AIW_AS_SCHEDULE_POLICY) {
		size_t i = sched_index(a->sched, a->nsched, 0);
		if (!aiwi_at(sim, 0, sched_event, a, i))
			return AIW_ENOMEM;
	}
	if (compare && (st = build_fixed(a)) != AIW_OK)
		return st;
	return a->fail ? AIW_ENOMEM : AIW_OK;
}

void aiwi_autoscale_sample(aiwi_comp *c, double t)
{
	autoscaler *a = c ? AS_(c) : NULL;
	if (!a)
		return;
	aiwi_serving_counts k;
	aiwi_serving_get_counts(c, &k);
	aiwi_rec_put(a->sim, a->id_des, a->spec);
	aiwi_rec_put(a->sim, a->id_ready, k.ready);
	aiwi_rec_put(a->sim, a->id_load, k.loading);
	aiwi_rec_put(a->sim, a->id_drain, k.draining);
	aiwi_rec_put(a->sim, a->id_spot, k.spot);
	if (a->id_panic >= 0)
		aiwi_rec_put(a->sim, a->id_panic, isnan(a->ks.panic_time) ? 0 : 1);
}

void aiwi_autoscale_finish(aiwi_comp *c, double t)
{
	autoscaler *a = c ? AS_(c) : NULL;
	if (!a)
		return;
	aiw_sim *sim = a->sim;
	const char *px = c->prefix;
	aiwi_int_advance(&a->spot_live, t);
	double panic = a->panic_s + (isnan(a->ks.panic_time) ? 0 : t - a->last_tick);
#define M(key, v) aiwi_metric(sim, px, key, (double)(v))
	M("autoscale_syncs", a->syncs);
	M("autoscale_scale_ups", a->ups);
	M("autoscale_scale_downs", a->downs);
	M("replicas_desired", a->spec);
	M("replicas_peak", a->peak);
	M("replicas_mean", t > 0 ? c->paid_gpu_s / a->g / t : NAN);
	M("replicas_added", a->added);
	M("replicas_removed", a->removed);
	M("cold_starts", a->cold_starts);
	M("cold_start_mean_s", a->cold_starts ? a->cold_sum / (double)a->cold_starts : NAN);
	M("gpu_hours_paid", c->paid_gpu_s / 3600);
	M("gpu_hours_busy", c->busy_gpu_s / 3600);
	M("spot_preemptions", a->preemptions);
	M("spot_reclaims", a->reclaims);
	M("spot_exposure_h", a->spot_live.sum / 3600);
	M("spot_preemptions_expected", a->spot_live.sum * P(a, AIW_AS_SPOT_RATE));
	M("spot_acquisition_failures", a->acq_fail);
	M("spot_ondemand_fallbacks", a->fallbacks);
	M("requests_requeued", a->requeued);
	if (a->policy == AIW_AS_KPA) {
		M("kpa_panic_entries", a->panic_entries);
		M("kpa_panic_s", panic);
	}
#undef M
	if (a->fixed && !a->fail)
		run_fixed(a, t);
}

aiw_status aiwi_autoscale_param_changed(aiwi_comp *c, size_t idx)
{
	autoscaler *a = c ? AS_(c) : NULL;
	if (!a)
		return AIW_OK;
	if (idx == a->i_replicas) {
		double v = aiwi_p(c, idx);
		set_spec(a, (int32_t)v);
		return a->fail ? AIW_ENOMEM : AIW_OK;
	}
	if (idx == a->p + AIW_AS_MIN_REPLICAS || idx == a->p + AIW_AS_MAX_REPLICAS)
		return check_bounds(c, a->p, a->policy);
	if (idx == a->p + AIW_AS_SPOT_DISCOUNT)
		return aiwi_serving_set_spot_factor(c, 1 - aiwi_p(c, idx));
	return AIW_OK;
}

void aiwi_autoscale_destroy(aiwi_comp *c)
{
	autoscaler *a = c && c->state ? AS_(c) : NULL;
	if (!a)
		return;
	free(a->rec);
	free(a->ring);
	free(a->delay);
	free(a->est);
	free(a->sched);
	aiwi_hpa_state_free(&a->hs);
	if (a->rng_cold)
		gsl_rng_free(a->rng_cold);
	if (a->rng_spot)
		gsl_rng_free(a->rng_spot);
	aiw_sim_free(a->fixed);
	free(a);
	aiwi_serving_set_autoscale(c, NULL);
}
