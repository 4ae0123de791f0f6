/*
 * controller.c - the autoscaling controller, between the fleet and the
 * policies (which see no fleet state): the controller that provisions
 * replicas (cold starts, draining, spot capacity with preemptions), the
 * measurement of what the fleet did, the table of policies (hpa.c, kpa.c,
 * predictive.c, schedule.c), and a fixed-fleet twin run for the savings
 * metrics.  It reaches the fleet only through the port the fleet hands to
 * aiwi_autoscale_start (port.h), so that nothing here calls up into
 * lib/inference/.
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
 * The state is the fleet's to keep (aiwi_autoscale_start's *out); random
 * draws come from two streams derived from the seed and the component's
 * name, so the fleet's own streams (arrivals, sizes) do not move when the
 * policy changes.
 */
#include "inference/autoscale/controller.h"

#include "site/cost.h"
#include "site/budget.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

/* ======================================================================== */
/* the policies                                                              */
/* ======================================================================== */
const aiwi_as_policy aiwi_as_policy_none = {
	.name = "none",
	.id = AIW_AS_NONE,
	.params = "",
};

const aiwi_as_policy *const aiwi_as_policies[] = {
	[AIW_AS_NONE] = &aiwi_as_policy_none,
	[AIW_AS_HPA] = &aiwi_as_policy_hpa,
	[AIW_AS_KPA] = &aiwi_as_policy_kpa,
	[AIW_AS_PREDICTIVE] = &aiwi_as_policy_predictive,
	[AIW_AS_SCHEDULE_POLICY] = &aiwi_as_policy_schedule,
};

/* ======================================================================== */
/* the controller                                                            */
/* ======================================================================== */
void aiwi_as_fail(autoscaler *a, aiw_status st)
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
	int s = a->port->add_replica(c, cold_start, spot);
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
	r->initial = 0;
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
	size_t n = a->port->slots(c);
	int best = -1;
	bool best_loading = false;
	uint32_t best_out = 0;
	double best_t = -INFINITY;
	for (size_t i = 0; i < n; i++) {
		aiwi_replica_state st = a->port->replica_state(c, i);
		if (st != AIW_REPLICA_LOADING && st != AIW_REPLICA_READY)
			continue;
		if ((int)a->port->replica_spot(c, i) != want)
			continue;
		bool loading = st == AIW_REPLICA_LOADING;
		uint32_t out = loading ? 0 : a->port->replica_outstanding(c, i);
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
	aiwi_fleet_counts k;
	a->port->counts(c, &k);
	int64_t have = (int64_t)k.ready + k.loading;
	double f = P(a, AIW_AS_SPOT_FRACTION);
	int64_t room = INT64_MAX;
	if (AIW_UNLIKELY(a->bud != NULL)) {
		/* a GPU budget: a scale-up asks the arbiter, which grants it at
		 * this instant (aiwi_autoscale_budget_grant) */
		if (!a->allow) {
			aiwi_budget_request(a->bud, a->bud_m,
			                    have < a->spec ? (uint32_t)(a->spec - have) : 0);
			room = 0;
		} else {
			room = a->allow;
		}
	}
	while (have < a->spec && room-- > 0) {
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
						aiwi_as_fail(a, AIW_ENOMEM);
					break;
				}
			} else {
				a->consec_fail = 0;
			}
		}
		int s = provision(a, spot, draw_cold_start(a));
		if (s < 0) {
			aiwi_as_fail(a, (aiw_status)s);
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
		int r = a->port->remove_replica(c, s);
		if (r < 0) {
			aiwi_as_fail(a, (aiw_status)r);
			return;
		}
		a->removed++;
		have--;
	}
}

/* ---- a GPU budget (site/budget.h) ---- */
void aiwi_autoscale_set_budget(aiwi_autoscaler *a, struct aiwi_budget *b, int member)
{
	if (a) {
		a->bud = b;
		a->bud_m = member;
	}
}

void aiwi_autoscale_budget_grant(aiwi_autoscaler *a, uint32_t n)
{
	if (!a || !n)
		return;
	a->allow = n;
	reconcile(a);
	a->allow = 0;
}

void aiwi_as_set_spec(autoscaler *a, int32_t n)
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
	aiwi_replica_state st = a->port->replica_state(c, s);
	release(a, s);
	if (st != AIW_REPLICA_LOADING && st != AIW_REPLICA_READY)
		return;
	a->preemptions++;
	double notice = P(a, AIW_AS_SPOT_NOTICE);
	if (st == AIW_REPLICA_READY && notice <= 0) {
		a->requeued += a->port->replica_outstanding(c, s);
		a->reclaims++;
		aiw_status e = a->port->fail_replica(c, (int)s);
		if (e != AIW_OK) {
			aiwi_as_fail(a, e);
			return;
		}
	} else {
		int e = a->port->remove_replica(c, (int)s);
		if (e < 0) {
			aiwi_as_fail(a, (aiw_status)e);
			return;
		}
		if (a->port->replica_state(c, s) == AIW_REPLICA_DRAINING &&
		    !(r->ev_kill = aiwi_at(sim, aiwi_now(sim) + notice, kill_event, a, arg))) {
			aiwi_as_fail(a, AIW_ENOMEM);
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
	if (a->port->replica_state(a->c, s) != AIW_REPLICA_DRAINING)
		return; /* drained within the notice */
	a->requeued += a->port->replica_outstanding(a->c, s);
	a->reclaims++;
	aiw_status e = a->port->fail_replica(a->c, (int)s);
	if (e != AIW_OK)
		aiwi_as_fail(a, e);
}

/* ---- replica failures (the fleet's fleet_failure.c) ---- */
void aiwi_autoscale_replica_failed(aiwi_autoscaler *a, uint32_t failed, int spare)
{
	if (!a || a->fail)
		return;
	release(a, failed);
	if (failed < a->nrec && a->rec[failed].ev_kill) {
		aiwi_cancel(a->sim, a->rec[failed].ev_kill);
		a->rec[failed].ev_kill = 0;
	}
	if (spare >= 0) {
		if (!rec_grow(a, (size_t)spare + 1)) {
			aiwi_as_fail(a, AIW_ENOMEM);
			return;
		}
		slotrec *r = &a->rec[spare];
		if (r->used && r->t_load_end > r->t_add)
			a->load_done += r->t_load_end - r->t_add;
		if (r->ev_notice)
			aiwi_cancel(a->sim, r->ev_notice);
		if (r->ev_kill)
			aiwi_cancel(a->sim, r->ev_kill);
		r->ev_notice = r->ev_kill = 0;
		r->gen++;
		r->used = 1;
		r->t_add = r->t_load_end = aiwi_now(a->sim); /* ready since now, no load */
		r->live = 0;
		r->initial = 0;
	}
	reconcile(a);
}

/* ---- measurement ---- */

void aiwi_as_measure(autoscaler *a, window *w)
{
	double now = aiwi_now(a->sim);
	double busy, paid, wait;
	a->port->integrals(a->c, &busy, &paid, &wait);
	double load = loading_integral(a, now);
	aiwi_fleet_counts k;
	a->port->counts(a->c, &k);
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

double aiwi_as_metric_value(const autoscaler *a, const window *w)
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
	case AIW_AS_M_QUEUED_PROMPT_TOKENS:
	case AIW_AS_M_KV_OCCUPANCY: /* the load's samples, as concurrency's */
		return w->infl_s / w->serving_rep_s;
	default:
		return (double)w->arrived / w->serving_rep_s;
	}
}

static void scrape_event(aiw_sim *sim, void *ctx, uint64_t k)
{
	autoscaler *a = ctx;
	double iv = P(a, AIW_AS_METRIC_INTERVAL);
	aiwi_fleet_counts c;
	a->port->counts(a->c, &c);
	double infl = (double)(c.waiting + c.running);
	if (a->metric == AIW_AS_M_QUEUED_PROMPT_TOKENS || a->metric == AIW_AS_M_KV_OCCUPANCY) {
		double tok, occ;
		a->port->load(a->c, &tok, &occ);
		infl = a->metric == AIW_AS_M_KV_OCCUPANCY ? occ : tok;
	}
	a->infl_int += infl * iv;
	if (a->ring.v) {
		double x = infl;
		if (a->metric == AIW_AS_M_RPS)
			x = (double)(c.arrived - a->scrape_arr) / iv;
		a->scrape_arr = c.arrived;
		aiwi_kpa_ring_push(&a->ring, x);
		/* a request reaching an empty fleet: the activator pokes the autoscaler */
		if (a->pol->activate && a->spec == 0 && c.waiting > 0)
			a->pol->activate(a);
	}
	if (!aiwi_at(sim, (double)(k + 2) * iv, scrape_event, a, k + 1))
		aiwi_as_fail(a, AIW_ENOMEM);
}

aiw_status aiwi_as_start_scrape(autoscaler *a)
{
	return aiwi_at(a->sim, P(a, AIW_AS_METRIC_INTERVAL), scrape_event, a, 0) ? AIW_OK
	                                                                         : AIW_ENOMEM;
}

void aiwi_as_counts(const autoscaler *a, aiwi_as_fleet *k)
{
	aiwi_fleet_counts f;
	a->port->counts(a->c, &f);
	*k = (aiwi_as_fleet){f.ready, f.loading, f.draining, f.arrived};
}

void aiwi_as_pod_groups(const autoscaler *a, const window *w, aiwi_hpa_groups *g)
{
	const aiwi_comp *c = a->c;
	double now = aiwi_now(a->sim);
	bool cpu = a->metric == AIW_AS_M_UTILIZATION;
	double init = P(a, AIW_AS_HPA_CPU_INIT), delay = P(a, AIW_AS_HPA_READINESS_DELAY);
	*g = (aiwi_hpa_groups){0};
	size_t n = a->port->slots(c);
	int64_t provisioned = 0;
	for (size_t i = 0; i < n; i++) {
		aiwi_replica_state st = a->port->replica_state(c, i);
		if (st == AIW_REPLICA_FREE)
			continue;
		const slotrec *r = i < a->nrec && a->rec[i].used && !a->rec[i].initial ? &a->rec[i]
		                                                                      : NULL;
		aiwi_hpa_pod pod = {
			.phase = AIW_HPA_POD_RUNNING,
			.deleting = st == AIW_REPLICA_DRAINING,
			.has_metric = st == AIW_REPLICA_READY || cpu,
			.has_condition = true,
			.ready = st == AIW_REPLICA_READY,
			.start = r ? r->t_add : -INFINITY,
			/* a loading replica has been unready since its start */
			.transition = !r ? -INFINITY : st == AIW_REPLICA_READY ? r->t_load_end : r->t_add,
			.metric_time = now,
			.metric_window = w->dt,
		};
		if (st != AIW_REPLICA_DRAINING)
			provisioned++;
		aiwi_hpa_group(&pod, cpu, now, init, delay, g);
	}
	/* asked for and not provisioned yet (a spot acquisition being retried) */
	aiwi_hpa_pod pending = {.phase = AIW_HPA_POD_PENDING};
	for (int64_t k = provisioned; k < a->spec; k++)
		aiwi_hpa_group(&pending, cpu, now, init, delay, g);
}

double aiwi_as_arrival_rate(const autoscaler *a, double t)
{
	return a->port->arrival_rate(a->c, t);
}

double aiwi_as_forecast(const autoscaler *a, double t)
{
	if (!a || a->policy != AIW_AS_PREDICTIVE)
		return NAN;
	return aiwi_as_predictive_forecast(a, t);
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
	/* the twin's values are given where the fleet's were, no more (a
	 * default such as timing's applies by whether it was given) */
	aiwi_comp *d = NULL;
	if (st == AIW_OK && k->nparams &&
	    (st = aiwi_comp_get(dst, k->name, src->name, false, &d)) == AIW_OK)
		for (size_t i = 0; i < k->nparams; i++)
			d->v[i].given = src->v[i].given;
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
		/* the fleet and the configuration (sim, site, [gpu]): what takes
		 * part in no accounting */
		if (x == c || !aiwi_kind_is(x->kind, AIWI_KIND_ACCOUNTED))
			st = copy_params(n, x);
	}
	char name[512];
	/* the twin rented by the hour: ondemand pricing, no commitment */
	bool od = (int)aiwi_p(c, a->p + AIW_AS_COMPARE_FIXED_PRICING) == 1;
	static const char *const over[][2] = {{"autoscaler", "none"},
	                                      {"spot_fraction", "0"},
	                                      {"compare_fixed", "none"},
	                                      {"pricing", "ondemand"},
	                                      {"committed_gpus", "none"}};
	for (size_t i = 0; i < (od ? 5u : 3u) && st == AIW_OK; i++) {
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

static double released(const autoscaler *a, double t, bool stranded_usd);

/* whether the fleet's commitment is set (cost.h, committed_gpus) */
static bool committed_gpus(const aiwi_comp *c)
{
	size_t i = aiwi_kind_param_index(c->kind, "committed_gpus");
	return i != SIZE_MAX && aiwi_pset(c, i);
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
		aiwi_as_fail(a, st);
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
	/* the bills of both fleets: the fixed fleet's cost and its stranded
	 * commitment, if any (it holds the same committed_gpus) */
	snprintf(name, sizeof name, "%s.commitment_stranded_usd", px);
	double fixed_stranded;
	if (aiw_sim_metric(a->fixed, name, &fixed_stranded) == AIW_OK)
		fix[1] += fixed_stranded;
	/* this run's figures from its integrals (the site publishes cost_usd
	 * after the components finish); owned or reserved, the capacity it
	 * released below its peak is paid all the same (stranded: set by
	 * aiwi_autoscale_finish before it calls here), and so is the network
	 * and storage capex of the released capacity (owned); at a
	 * committed_gpus commitment, its unprovisioned part */
	double extra = aiwi_cost_network_rate(c) + aiwi_cost_storage_rate(c);
	bool commit = committed_gpus(c);
	double mine[4] = {c->paid_gpu_s / 3600,
	                  c->cost_usd + aiwi_cost_energy_usd(c) + c->stranded_usd,
	                  0, c->energy_j / 3.6e6};
	if (extra > 0)
		mine[1] += extra * (c->paid_gpu_s + (commit ? 0 : released(a, t, false)));
	aiwi_metric(a->sim, px, "fixed_replicas", want);
	aiwi_metric(a->sim, px, "gpu_hours_saved", fix[0] - mine[0]);
	aiwi_metric(a->sim, px, "cost_saved_usd", fix[1] - mine[1]);
	aiwi_metric(a->sim, px, "cost_saved_fraction", fix[1] > 0 ? 1 - mine[1] / fix[1] : NAN);
	aiwi_metric(a->sim, px, "energy_saved_kwh", fix[3] - mine[3]);
}

/* ======================================================================== */
/* hooks                                                                     */
/* ======================================================================== */
int32_t aiwi_as_desired(const autoscaler *a)
{
	return a ? a->spec : -1;
}

bool aiwi_as_panicking(const autoscaler *a)
{
	return a && !isnan(a->ks.panic_time);
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

static aiw_status check_bounds(const aiwi_comp *c, size_t p, const aiwi_as_policy *pol)
{
	double lo = aiwi_p(c, p + AIW_AS_MIN_REPLICAS), hi = aiwi_p(c, p + AIW_AS_MAX_REPLICAS);
	if (lo > hi)
		return aiwi_err(c->sim, AIW_ERANGE,
		                "%s.min_replicas = %g is above max_replicas = %g", c->prefix, lo,
		                hi);
	if (lo < 1 && pol->min_one)
		return aiwi_err(c->sim, AIW_ERANGE,
		                "%s.min_replicas = 0: the HPA scales from zero only on object or "
		                "external metrics; use autoscaler = kpa to scale to zero, or "
		                "min_replicas >= 1",
		                c->prefix);
	return AIW_OK;
}

/* The busy-time trap: a replica with any request in its batch is busy, so
 * under continuous batching the busy fraction stays high until replicas sit
 * idle between requests, and a policy scaling on it grows the fleet far past
 * the load's need, up to max_replicas (aiworkload(7)
 * "Utilisation").  Warned, not refused: the arithmetic is Kubernetes'. */
static void warn_busy_metric(const autoscaler *a)
{
	const aiwi_comp *c = a->c;
	if (a->metric != AIW_AS_M_UTILIZATION ||
	    (a->policy != AIW_AS_HPA && a->policy != AIW_AS_PREDICTIVE) ||
	    (a->policy == AIW_AS_PREDICTIVE && aiwi_pset(c, a->p + AIW_AS_PRED_CAPACITY)))
		return;
	size_t ib = aiwi_kind_param_index(c->kind, "batching");
	char b[32] = "";
	if (ib != SIZE_MAX)
		aiwi_value_format(&c->kind->params[ib], &c->v[ib], b, sizeof b);
	if (strcmp(b, "continuous") != 0)
		return;
	aiwi_warn(a->sim,
	          "%s: autoscaler = %s on metric = utilization with continuous batching: the busy "
	          "fraction (a replica with any request in its batch is busy) stays high until "
	          "replicas sit idle between requests, so the fleet grows far past what the load "
	          "needs, up to max_replicas; scale on metric = concurrency (target_value = "
	          "requests in flight per replica) or rps",
	          c->prefix, a->policy == AIW_AS_HPA ? "hpa" : "predictive");
}

static aiw_status start_checks(autoscaler *a)
{
	aiw_status st = check_bounds(a->c, a->p, a->pol);
	if (st != AIW_OK)
		return st;
	st = a->pol->check ? a->pol->check(a) : AIW_OK;
	if (st == AIW_OK)
		warn_busy_metric(a);
	return st;
}

aiw_status aiwi_autoscale_start(aiwi_comp *c, size_t first, const aiwi_fleet_port *port,
                                autoscaler **out)
{
	if (!out)
		return AIW_EINVAL;
	*out = NULL;
	if (!c || !port || first + AIW_AUTOSCALE_NPARAMS > c->kind->nparams)
		return AIW_EINVAL;
	aiw_sim *sim = c->sim;
	int policy = (int)aiwi_p(c, first + AIW_AS_AUTOSCALER);
	if (policy < 0 || policy > AIW_AS_SCHEDULE_POLICY)
		return AIW_EINVAL;
	bool spot = aiwi_p(c, first + AIW_AS_SPOT_FRACTION) > 0;
	bool compare = aiwi_pset(c, first + AIW_AS_COMPARE_FIXED);
	if (policy == AIW_AS_NONE && !spot && !compare)
		return AIW_OK; /* nothing to control */
	autoscaler *a = calloc(1, sizeof *a);
	if (!a)
		return aiwi_err(sim, AIW_ENOMEM, "out of memory");
	*out = a;
	a->c = c;
	a->port = port;
	a->sim = sim;
	a->p = first;
	a->policy = policy;
	a->pol = aiwi_as_policies[policy];
	a->metric = (int)aiwi_p(c, first + AIW_AS_METRIC);
	a->i_replicas = aiwi_kind_param_index(c->kind, "replicas");
	a->i_cold = aiwi_kind_param_index(c->kind, "cold_start");
	size_t ig = aiwi_kind_param_index(c->kind, "gpus_per_replica");
	if (a->i_replicas == SIZE_MAX || a->i_cold == SIZE_MAX || ig == SIZE_MAX)
		return aiwi_err(sim, AIW_EINVAL,
		                "%s: the autoscaler needs replicas, cold_start and gpus_per_replica",
		                c->prefix);
	a->g = aiwi_p(c, ig);
	aiwi_kpa_state_init(&a->ks);
	aiwi_hpa_state_init(&a->hs);
	aiwi_fleet_counts k;
	a->port->counts(c, &k);
	a->spec = (int32_t)(k.ready + k.loading); /* the initial replicas */
	a->peak = a->spec;
	aiw_status st = start_checks(a);
	if (st != AIW_OK)
		return st;
	aiwi_as_hpa_refresh_rules(a);

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

	st = a->port->set_spot_factor(c, 1 - aiwi_p(c, first + AIW_AS_SPOT_DISCOUNT));
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
		if ((st = a->port->remove_replica(c, s)) < 0 ||
		    (st = provision(a, true, 0)) < 0)
			return st;
		a->rec[(size_t)st].initial = 1;
	}
	a->added = 0; /* the initial replicas were not scaling actions */
	if (!rec_grow(a, a->port->slots(c) + 1))
		return aiwi_err(sim, AIW_ENOMEM, "out of memory");

	/* the policy's events */
	if (a->pol->start && (st = a->pol->start(a)) != AIW_OK)
		return st;
	if (compare && (st = build_fixed(a)) != AIW_OK)
		return st;
	return a->fail ? AIW_ENOMEM : AIW_OK;
}

void aiwi_autoscale_sample(autoscaler *a, double t)
{
	if (!a)
		return;
	aiwi_fleet_counts k;
	a->port->counts(a->c, &k);
	aiwi_rec_put(a->sim, a->id_des, a->spec);
	aiwi_rec_put(a->sim, a->id_ready, k.ready);
	aiwi_rec_put(a->sim, a->id_load, k.loading);
	aiwi_rec_put(a->sim, a->id_drain, k.draining);
	aiwi_rec_put(a->sim, a->id_spot, k.spot);
	if (a->id_panic >= 0)
		aiwi_rec_put(a->sim, a->id_panic, isnan(a->ks.panic_time) ? 0 : 1);
}

/* GPU-seconds (usd false) or their hardware cost (usd true) that the fleet
 * released below its peak: owned capacity (peak replicas x GPUs x time)
 * less the provisioned GPU-seconds.  stranded: only under capex or
 * reserved pricing, where released GPUs are paid anyway (aiwi_cost_committed);
 * the cost is at the fleet's mean price per provisioned GPU-second. */
static double released(const autoscaler *a, double t, bool stranded_usd)
{
	const aiwi_comp *c = a->c;
	double s = (double)a->peak * a->g * t - c->paid_gpu_s;
	if (!(s > 0))
		return 0;
	if (!stranded_usd)
		return s;
	if (!aiwi_cost_committed(c) || !(c->paid_gpu_s > 0))
		return 0;
	return s * c->cost_usd / c->paid_gpu_s;
}

void aiwi_autoscale_finish(autoscaler *a, double t)
{
	if (!a)
		return;
	aiwi_comp *c = a->c;
	aiw_sim *sim = a->sim;
	const char *px = c->prefix;
	aiwi_int_advance(&a->spot_live, t);
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
	/* capacity released below the peak: saved if rented, stranded if owned */
	double rel_s = released(a, t, false);
	double rel_usd = c->paid_gpu_s > 0 ? rel_s * c->cost_usd / c->paid_gpu_s : 0;
	bool owned = aiwi_cost_committed(c);
	M("released_gpu_hours", rel_s / 3600);
	M("released_usd", rel_usd);
	if (!committed_gpus(c)) {
		/* the commitment is the peak: what it released is stranded if
		 * owned, for the bill (hardware_bill_usd) the site publishes */
		c->stranded_gpu_s = owned ? rel_s : 0;
		c->stranded_usd = owned ? rel_usd : 0;
	}
	M("stranded_gpu_hours", c->stranded_gpu_s / 3600);
	M("stranded_usd", c->stranded_usd);
	M("spot_preemptions", a->preemptions);
	M("spot_reclaims", a->reclaims);
	M("spot_exposure_h", a->spot_live.sum / 3600);
	M("spot_preemptions_expected", a->spot_live.sum * P(a, AIW_AS_SPOT_RATE));
	M("spot_acquisition_failures", a->acq_fail);
	M("spot_ondemand_fallbacks", a->fallbacks);
	M("requests_requeued", a->requeued);
#undef M
	if (a->pol->finish)
		a->pol->finish(a, t);
	if (a->fixed && !a->fail)
		run_fixed(a, t);
}

aiw_status aiwi_autoscale_param_changed(autoscaler *a, size_t idx)
{
	if (!a)
		return AIW_OK;
	aiwi_comp *c = a->c;
	if (idx == a->i_replicas) {
		double v = aiwi_p(c, idx);
		aiwi_as_set_spec(a, (int32_t)v);
		return a->fail ? AIW_ENOMEM : AIW_OK;
	}
	if (idx == a->p + AIW_AS_MIN_REPLICAS || idx == a->p + AIW_AS_MAX_REPLICAS)
		return check_bounds(c, a->p, a->pol);
	if (idx == a->p + AIW_AS_SPOT_DISCOUNT)
		return a->port->set_spot_factor(c, 1 - aiwi_p(c, idx));
	return AIW_OK;
}

void aiwi_autoscale_destroy(autoscaler *a)
{
	if (!a)
		return;
	free(a->rec);
	if (a->pol && a->pol->free)
		a->pol->free(a);
	if (a->rng_cold)
		gsl_rng_free(a->rng_cold);
	if (a->rng_spot)
		gsl_rng_free(a->rng_spot);
	aiw_sim_free(a->fixed);
	free(a);
}
