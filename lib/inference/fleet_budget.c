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
	if (!b)
		return AIW_OK;
	int m = aiwi_budget_join(b, c->prefix, f->replica_gpus, aiwi_p(c, P_BUDGET_PRIORITY),
	                         aiwi_p(c, P_BUDGET_WEIGHT), budget_held, budget_grant, f);
	if (m < 0)
		return (aiw_status)m;
	aiwi_autoscale_set_budget(f->autoscale, b, m);
	return AIW_OK;
}
