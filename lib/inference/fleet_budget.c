/*
 * fleet_budget.c - the fleet as a member of a GPU budget shared by the
 * serving fleets (site.gpu_budget; the arbiter: lib/site/budget.c).  The
 * fleet holds its provisioned replicas' GPUs, and those out for repair
 * that come back on their own (a fleet without an autoscaler: `missing`);
 * its autoscaler's scale-ups ask the arbiter, whose grants come back here.
 * Part of serving.c's translation unit: included by it after fleet.h, not
 * compiled alone.
 */
#include "site/budget.h"

static double budget_held(void *ctx)
{
	const fleet *f = ctx;
	uint32_t prov = f->slot_count - f->state_count[AIW_REPLICA_FREE];
	return ((double)prov + f->missing) * f->replica_gpus;
}

static void budget_grant(void *ctx, uint32_t n)
{
	fleet *f = ctx;
	aiwi_autoscale_budget_grant(f->autoscale, n);
}

/* Join the run's budget, if any (at the start, the initial replicas and the
 * autoscaler in place). */
static aiw_status budget_join(aiwi_comp *c, fleet *f)
{
	aiwi_budget *b = aiwi_site_budget(c->sim);
	/* a fleet's budget settings that the budget's rule does not read
	 * (the mode table cannot name another component's setting) */
	int rule = b ? aiwi_budget_rule(b) : -1;
	if (aiwi_pgiven(c, P_BUDGET_PRIORITY) && rule != AIW_BUDGET_PRIORITY)
		aiwi_warn(c->sim, "%s.budget_priority has no effect: %s", c->prefix,
		          b ? "site.budget_rule is not priority" : "site.gpu_budget is not set");
	if (aiwi_pgiven(c, P_BUDGET_WEIGHT) && rule != AIW_BUDGET_WEIGHTED)
		aiwi_warn(c->sim, "%s.budget_weight has no effect: %s", c->prefix,
		          b ? "site.budget_rule is not weighted" : "site.gpu_budget is not set");
	if (!b)
		return AIW_OK;
	int m = aiwi_budget_join(b, c->prefix, f->replica_gpus, aiwi_p(c, P_BUDGET_PRIORITY),
	                         aiwi_p(c, P_BUDGET_WEIGHT), budget_held, budget_grant, f);
	if (m < 0)
		return (aiw_status)m;
	aiwi_autoscale_set_budget(f->autoscale, b, m);
	return AIW_OK;
}

/* ======================================================================== */
/* an offline job (traffic = batch)                                          */
/* ======================================================================== */
/* The job's deadline: the requests done and the output tokens emitted by
 * then (totals_at: the spans in progress counted to the instant). */
static void batch_deadline_event(aiw_sim *sim, void *ctx, uint64_t arg)
{
	(void)arg;
	fleet *f = ctx;
	double t = aiwi_now(sim);
	f->batch_ev = 0;
	eager_settle_all(f, t);
	fleet_at at;
	totals_at(f, t, &at);
	f->batch_done_by_dl = (double)f->completed;
	f->batch_tokens_by_dl = at.tokens;
}

static aiw_status batch_setup(aiwi_comp *c, fleet *f)
{
	f->batch_done_t = f->batch_done_by_dl = f->batch_tokens_by_dl = NAN;
	f->batch_deadline = INFINITY;
	if ((int)aiwi_p(c, P_TRAFFIC) != AIW_TRAFFIC_BATCH)
		return AIW_OK;
	if (f->sessions || f->disagg == DIS_DECODE)
		return aiwi_err(c->sim, AIW_ESCENARIO,
		                "%s.traffic = batch: an offline job's requests are independent (sessions "
		                "off) and drawn by the fleet itself (not a decode pool)",
		                c->prefix);
	f->batch_job = true;
	f->batch_n = (uint64_t)aiwi_p(c, P_BATCH_REQUESTS);
	if (aiwi_pset(c, P_BATCH_DEADLINE)) {
		f->batch_deadline = aiwi_p(c, P_BATCH_DEADLINE);
		if (!(f->batch_deadline >= aiwi_p(c, P_BATCH_START)))
			return aiwi_err(c->sim, AIW_ERANGE,
			                "%s.batch_deadline = %g s is before batch_start = %g s",
			                c->prefix, f->batch_deadline, aiwi_p(c, P_BATCH_START));
		if (!(f->batch_ev = aiwi_at(c->sim, f->batch_deadline, batch_deadline_event, f, 0)))
			return AIW_ENOMEM;
	}
	return AIW_OK;
}

/* The job's figures at the end of a run at t (at: the fleet's totals). */
static void batch_metrics(aiwi_comp *c, fleet *f, double t, const fleet_at *at)
{
	aiw_sim *sim = c->sim;
	const char *px = c->prefix;
	double done = f->batch_done_t, dl = f->batch_deadline;
	aiwi_metric(sim, px, "batch_job_requests", (double)f->batch_n);
	aiwi_metric(sim, px, "batch_completion_s", done);
	aiwi_metric(sim, px, "batch_duration_s", done - aiwi_p(c, P_BATCH_START));
	if (!isfinite(dl))
		return;
	double by_dl = f->batch_done_by_dl, tok_dl = f->batch_tokens_by_dl;
	if (isnan(by_dl) && !isnan(done)) { /* done before a deadline the run did not reach */
		by_dl = (double)f->completed;
		tok_dl = at->tokens;
	}
	aiwi_metric(sim, px, "batch_deadline_s", dl);
	/* met: done by the deadline; missed: not done by it (done later, or
	 * not done when the run ended after it); unknown: neither yet */
	double met = !isnan(done) ? (done <= dl ? 1 : 0) : (t > dl ? 0 : NAN);
	aiwi_metric(sim, px, "batch_deadline_met", met);
	aiwi_metric(sim, px, "batch_lateness_s", done - dl);
	aiwi_metric(sim, px, "batch_requests_by_deadline", by_dl);
	aiwi_metric(sim, px, "batch_tokens_by_deadline", tok_dl);
}
