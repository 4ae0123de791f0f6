/*
 * cost.c - pricing of provisioned GPUs.
 *
 * capex: purchase price amortised linearly over the lifetime, paid whether
 * the GPU is busy or idle (idle GPU-hours are the wasted cost).  ondemand:
 * the hourly rental price.  reserved: a rental price for a term (by default
 * the on-demand price x the published reserved/on-demand ratio of the
 * term), committed: the on-demand price less a committed-use discount;
 * both paid for the term whether used or not, like capex.  All are per
 * provisioned GPU-second, so a model's cost is an exact integral of (GPUs
 * provisioned) x rate.  Network and storage capex per GPU are amortised the
 * same way over the lifetime; the site adds them (aiwi_cost_extra_usd).
 */
#include "site/cost.h"
#include "site/power.h"

#include <math.h>

double aiwi_cost_term_factor(int mode, int term)
{
	if (mode == AIW_PRICING_RESERVED)
		return term == 1 ? AIW_RESERVED_RATIO_3Y : AIW_RESERVED_RATIO_1Y;
	if (mode == AIW_PRICING_COMMITTED)
		return 1 - (term == 1 ? AIW_COMMITTED_DISCOUNT_3Y : AIW_COMMITTED_DISCOUNT_1Y);
	return 1;
}

aiw_status aiwi_cost_pricing(const aiwi_comp *c, size_t first, const aiwi_gpu_spec *g,
                            aiwi_pricing *out)
{
	aiw_sim *sim = c->sim;
	int mode = (int)aiwi_p(c, first + AIW_COST_PRICING);
	int term = (int)aiwi_p(c, first + AIW_COST_TERM);
	out->node_overhead_w = aiwi_p(c, first + AIW_COST_NODE_OVERHEAD);
	if (mode == AIW_PRICING_RESERVED && aiwi_pset(c, first + AIW_COST_RESERVED_PRICE)) {
		out->usd_per_gpu_s = aiwi_p(c, first + AIW_COST_RESERVED_PRICE) / 3600.0;
		/* spot against the on-demand price when one is known */
		double h = aiwi_pset(c, first + AIW_COST_ONDEMAND_PRICE)
		                   ? aiwi_p(c, first + AIW_COST_ONDEMAND_PRICE)
		                   : g->ondemand_usd_per_h;
		out->spot_base_usd_per_gpu_s = h > 0 ? h / 3600.0 : out->usd_per_gpu_s;
	} else if (mode != AIW_PRICING_CAPEX) {
		double h = aiwi_pset(c, first + AIW_COST_ONDEMAND_PRICE)
		                   ? aiwi_p(c, first + AIW_COST_ONDEMAND_PRICE)
		                   : g->ondemand_usd_per_h;
		if (!(h > 0))
			return aiwi_err(sim, AIW_ERANGE,
			                "%s.ondemand_price: the catalog has no rental price for %s; set "
			                "one (USD per GPU-hour)%s",
			                c->prefix, g->name,
			                mode == AIW_PRICING_RESERVED ? ", or reserved_price" : "");
		double f = aiwi_cost_term_factor(mode, term);
		if (mode == AIW_PRICING_COMMITTED &&
		    aiwi_pset(c, first + AIW_COST_COMMITTED_DISCOUNT))
			f = 1 - aiwi_p(c, first + AIW_COST_COMMITTED_DISCOUNT);
		/* ondemand: f = 1 exactly, the rate as before */
		out->usd_per_gpu_s = mode == AIW_PRICING_ONDEMAND ? h / 3600.0 : h * f / 3600.0;
		out->spot_base_usd_per_gpu_s = h / 3600.0;
		return AIW_OK;
	} else {
		double price = aiwi_pset(c, first + AIW_COST_GPU_PRICE)
		                       ? aiwi_p(c, first + AIW_COST_GPU_PRICE)
		                       : g->price_usd;
		if (!(price > 0))
			return aiwi_err(sim, AIW_ERANGE,
			                "%s.gpu_price: the catalog has no price for %s; set one (USD)",
			                c->prefix, g->name);
		out->usd_per_gpu_s = price / aiwi_p(c, first + AIW_COST_LIFETIME);
		/* a spot replica of an owned fleet is rented: its discount applies
		 * to the on-demand price when one is known, else (no rental price
		 * anywhere) to the capex rate */
		double h = aiwi_pset(c, first + AIW_COST_ONDEMAND_PRICE)
		                   ? aiwi_p(c, first + AIW_COST_ONDEMAND_PRICE)
		                   : g->ondemand_usd_per_h;
		out->spot_base_usd_per_gpu_s = h > 0 ? h / 3600.0 : out->usd_per_gpu_s;
	}
	return AIW_OK;
}

bool aiwi_cost_committed(const aiwi_comp *c)
{
	size_t i = aiwi_kind_param_index(c->kind, "pricing");
	return i != SIZE_MAX && (int)aiwi_p(c, i) != AIW_PRICING_ONDEMAND;
}

static double capex_rate(const aiwi_comp *c, const char *key)
{
	size_t i = aiwi_kind_param_index(c->kind, key);
	size_t il = aiwi_kind_param_index(c->kind, "lifetime");
	if (i == SIZE_MAX || il == SIZE_MAX || !(aiwi_p(c, i) > 0))
		return 0;
	return aiwi_p(c, i) / aiwi_p(c, il);
}

double aiwi_cost_network_rate(const aiwi_comp *c)
{
	return capex_rate(c, "network_price");
}

double aiwi_cost_storage_rate(const aiwi_comp *c)
{
	return capex_rate(c, "storage_price");
}

double aiwi_cost_extra_usd(const aiwi_comp *c)
{
	return c->paid_gpu_s * aiwi_cost_network_rate(c) +
	       c->paid_gpu_s * aiwi_cost_storage_rate(c);
}

double aiwi_cost_energy_usd(const aiw_sim *sim, double it_energy_j)
{
	return it_energy_j * aiwi_site_pue(sim) * aiwi_site_price_per_j(sim);
}
