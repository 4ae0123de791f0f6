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
 * same way over the lifetime, plus any price per GPU-hour; the site adds
 * them (aiwi_cost_extra_usd).
 *
 * committed_gpus N: N GPUs are paid at the capex, reserved or committed rate
 * for the whole run, used or not, and the provisioned GPUs above N at the
 * on-demand rate.  One rule with or without N: the cost (hardware_cost_usd)
 * is that of the provisioned GPU-seconds, at the rate min(g, N) r +
 * max(0, g - N) r_od with g GPUs provisioned (aiwi_cost_commit_rate), and
 * what is paid but not provisioned is stranded, beside it: the commitment's
 * max(0, N - g), or, unset (the commitment is the peak), the capacity an
 * autoscaled fleet releases below its peak.  The bill (hardware_bill_usd)
 * is the sum: what the GPUs cost whether other work uses the stranded part
 * or not.  A model whose GPU count is piecewise constant integrates the
 * excess max(0, g - N) and the stranded max(0, N - g) exactly, updated where
 * g changes, so that a commitment at the peak gives the same cost and bill
 * as none.
 */
#include "site/cost.h"
#include "site/power.h"

#include <math.h>

double aiwi_cost_node_nameplate_w(const aiwi_comp *c, size_t idx, const aiwi_gpu_spec *g)
{
	if (aiwi_pset(c, idx))
		return aiwi_p(c, idx);
	return g && g->node_nameplate_w > 0 ? g->node_nameplate_w : AIW_NODE_NAMEPLATE_W;
}

/* capex per GPU (entry i) over the lifetime, plus a price per GPU-hour
 * (entry ih); with the hourly price 0 (its default) exactly the capex rate */
static double gpu_rate(const aiwi_comp *c, size_t first, size_t i, size_t ih)
{
	double r = 0;
	if (aiwi_p(c, first + i) > 0)
		r = aiwi_p(c, first + i) / aiwi_p(c, first + AIW_COST_LIFETIME);
	if (aiwi_p(c, first + ih) > 0)
		r += aiwi_p(c, first + ih) / 3600.0;
	return r;
}

bool aiwi_cost_query(const aiwi_comp *c, size_t first, size_t igpu, size_t ipn, aiwi_query q,
                     aiwi_answer *out)
{
	switch (q) {
	case AIWI_Q_NETWORK_RATE:
		out->num = gpu_rate(c, first, AIW_COST_NETWORK_PRICE, AIW_COST_NETWORK_PRICE_PER_H);
		return true;
	case AIWI_Q_STORAGE_RATE:
		out->num = gpu_rate(c, first, AIW_COST_STORAGE_PRICE, AIW_COST_STORAGE_PRICE_PER_H);
		return true;
	case AIWI_Q_NAMEPLATE_PER_GPU_W: {
		const aiwi_gpu_spec *g = NULL;
		if (!aiwi_pset(c, igpu) || aiwi_hw_gpu_get(c->sim, aiwi_ps(c, igpu), &g) != AIW_OK ||
		    !g)
			return false;
		double per_node = ipn != SIZE_MAX ? aiwi_p(c, ipn) : 8;
		out->num = g->tdp_w + aiwi_cost_node_nameplate_w(c, first + AIW_COST_NODE_NAMEPLATE, g) /
		                              per_node;
		return true;
	}
	case AIWI_Q_PRICING:
		out->num = aiwi_p(c, first + AIW_COST_PRICING);
		return true;
	case AIWI_Q_COMMITTED_GPUS:
		if (!aiwi_pset(c, first + AIW_COST_COMMITTED_GPUS))
			return false;
		out->num = aiwi_p(c, first + AIW_COST_COMMITTED_GPUS);
		return true;
	case AIWI_Q_GPU_TYPE:
		if (!aiwi_pset(c, igpu))
			return false;
		out->text = aiwi_ps(c, igpu);
		return true;
	default:
		return false;
	}
}

double aiwi_cost_term_factor(int mode, int term)
{
	if (mode == AIW_PRICING_RESERVED)
		return term == 1 ? AIW_RESERVED_RATIO_3Y : AIW_RESERVED_RATIO_1Y;
	if (mode == AIW_PRICING_COMMITTED)
		return 1 - (term == 1 ? AIW_COMMITTED_DISCOUNT_3Y : AIW_COMMITTED_DISCOUNT_1Y);
	return 1;
}

static aiw_status pricing(const aiwi_comp *c, size_t first, const aiwi_gpu_spec *g,
                          aiwi_pricing *out);

/* committed_gpus: the commitment and the on-demand rate of the excess */
aiw_status aiwi_cost_pricing(const aiwi_comp *c, size_t first, const aiwi_gpu_spec *g,
                            aiwi_pricing *out)
{
	out->commit_gpus = -1;
	out->ondemand_usd_per_gpu_s = NAN;
	aiw_status st = pricing(c, first, g, out);
	if (st != AIW_OK || !aiwi_pset(c, first + AIW_COST_COMMITTED_GPUS))
		return st;
	int mode = (int)aiwi_p(c, first + AIW_COST_PRICING);
	if (mode == AIW_PRICING_ONDEMAND)
		return aiwi_err(c->sim, AIW_EINVAL,
		                "%s.committed_gpus = %g: pricing = ondemand has no commitment; set "
		                "pricing = reserved, committed or capex, or committed_gpus = none",
		                c->prefix, aiwi_p(c, first + AIW_COST_COMMITTED_GPUS));
	double h = aiwi_pset(c, first + AIW_COST_ONDEMAND_PRICE)
	                   ? aiwi_p(c, first + AIW_COST_ONDEMAND_PRICE)
	                   : g->ondemand_usd_per_h;
	if (!(h > 0))
		return aiwi_err(c->sim, AIW_ERANGE,
		                "%s.ondemand_price: committed_gpus bills the GPUs above the "
		                "commitment on demand, and the catalog has no rental price for %s; "
		                "set one (USD per GPU-hour)",
		                c->prefix, g->name);
	out->commit_gpus = aiwi_p(c, first + AIW_COST_COMMITTED_GPUS);
	out->ondemand_usd_per_gpu_s = h / 3600.0;
	return AIW_OK;
}

void aiwi_cost_account_fixed(aiwi_comp *c, const aiwi_pricing *p, double g, double t)
{
	c->paid_gpu_s = g * t;
	if (!(p->commit_gpus >= 0)) {
		c->cost_usd = c->paid_gpu_s * p->usd_per_gpu_s;
		return;
	}
	double n = p->commit_gpus;
	c->excess_gpu_s = g > n ? (g - n) * t : 0;
	c->stranded_gpu_s = n > g ? (n - g) * t : 0;
	c->excess_usd = c->excess_gpu_s * p->ondemand_usd_per_gpu_s;
	c->stranded_usd = c->stranded_gpu_s * p->usd_per_gpu_s;
	c->cost_usd = aiwi_cost_commit_rate(p, g) * t;
}

static aiw_status pricing(const aiwi_comp *c, size_t first, const aiwi_gpu_spec *g,
                          aiwi_pricing *out)
{
	aiw_sim *sim = c->sim;
	int mode = (int)aiwi_p(c, first + AIW_COST_PRICING);
	int term = (int)aiwi_p(c, first + AIW_COST_TERM);
	out->node_overhead_w =
	        aiwi_pset(c, first + AIW_COST_NODE_OVERHEAD)
	                ? aiwi_p(c, first + AIW_COST_NODE_OVERHEAD)
	                : aiwi_cost_node_nameplate_w(c, first + AIW_COST_NODE_NAMEPLATE, g) *
	                          AIW_NODE_OVERHEAD_MEASURED_W / AIW_NODE_NAMEPLATE_W;
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
	aiwi_answer a;
	return aiwi_comp_query(c, AIWI_Q_PRICING, &a) && (int)a.num != AIW_PRICING_ONDEMAND;
}

double aiwi_cost_network_rate(const aiwi_comp *c)
{
	aiwi_answer a;
	return aiwi_comp_query(c, AIWI_Q_NETWORK_RATE, &a) ? a.num : 0;
}

double aiwi_cost_storage_rate(const aiwi_comp *c)
{
	aiwi_answer a;
	return aiwi_comp_query(c, AIWI_Q_STORAGE_RATE, &a) ? a.num : 0;
}

double aiwi_cost_extra_usd(const aiwi_comp *c)
{
	return c->paid_gpu_s * aiwi_cost_network_rate(c) +
	       c->paid_gpu_s * aiwi_cost_storage_rate(c);
}

double aiwi_cost_energy_usd(const aiwi_comp *k)
{
	return aiwi_site_energy_cost_usd(k);
}
