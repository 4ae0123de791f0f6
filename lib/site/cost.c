/*
 * cost.c - pricing of provisioned GPUs.
 *
 * capex: purchase price amortised linearly over the lifetime, paid whether
 * the GPU is busy or idle (idle GPU-hours are the wasted cost).  ondemand:
 * the hourly rental price.  Both are per provisioned GPU-second, so a
 * model's cost is an exact integral of (GPUs provisioned) x rate.
 */
#include "site/cost.h"
#include "site/power.h"

#include <math.h>

aiw_status aiwi_cost_pricing(const aiwi_comp *c, size_t first, const aiwi_gpu_spec *g,
                            aiwi_pricing *out)
{
	aiw_sim *sim = c->sim;
	int mode = (int)aiwi_p(c, first);
	out->node_overhead_w = aiwi_p(c, first + 4);
	if (mode == AIW_PRICING_ONDEMAND) {
		double h = aiwi_pset(c, first + 3) ? aiwi_p(c, first + 3) : g->ondemand_usd_per_h;
		if (!(h > 0))
			return aiwi_err(sim, AIW_ERANGE,
			                "%s.ondemand_price: the catalog has no rental price for %s; set "
			                "one (USD per GPU-hour)",
			                c->prefix, g->name);
		out->usd_per_gpu_s = h / 3600.0;
	} else {
		double price = aiwi_pset(c, first + 1) ? aiwi_p(c, first + 1) : g->price_usd;
		if (!(price > 0))
			return aiwi_err(sim, AIW_ERANGE,
			                "%s.gpu_price: the catalog has no price for %s; set one (USD)",
			                c->prefix, g->name);
		out->usd_per_gpu_s = price / aiwi_p(c, first + 2);
	}
	return AIW_OK;
}

bool aiwi_cost_committed(const aiwi_comp *c)
{
	size_t i = aiwi_kind_param_index(c->kind, "pricing");
	return i != SIZE_MAX && (int)aiwi_p(c, i) != AIW_PRICING_ONDEMAND;
}

double aiwi_cost_energy_usd(const aiw_sim *sim, double it_energy_j)
{
	return it_energy_j * aiwi_site_pue(sim) * aiwi_site_price_per_j(sim);
}
