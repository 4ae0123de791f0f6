/*
 * power.c - the site: sums the components' power into site curves, tracks
 * peaks and gives the electrical diversity factor.
 *
 * Diversity factor ("facteur de foisonnement") = sum of the individual peaks
 * / peak of the sum.  Peaks are taken on the sampled curves (interval
 * averages), so the sample interval is the resolution of every peak.
 * Facility power = IT power x PUE.
 */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

enum { P_PUE, P_PRICE, P_GPUS_PER_RACK, P_MARGIN, P_NPARAMS };

static const aiw_param_def SITE_PARAMS[] = {
	[P_PUE] = {"pue", "site.pue", AIW_PT_REAL, "1.3", "1", 1, 5, NULL, 0,
	           "power usage effectiveness: facility power / IT power", 0},
	[P_PRICE] = {"electricity_price", "site.electricity_price", AIW_PT_MONEY, "0.08", "USD/kWh",
	             0, 100, NULL, 0, "price of electricity per kWh of facility energy", 0},
	[P_GPUS_PER_RACK] = {"gpus_per_rack", "site.gpus_per_rack", AIW_PT_INT, "32", "1", 1, 1024,
	                     NULL, 0, "GPUs per rack, for rack-level peaks", 0},
	[P_MARGIN] = {"provisioning_margin", "site.provisioning_margin", AIW_PT_REAL, "0.1", "1", 0,
	              10, NULL, 0, "margin over the aggregate peak for recommended provisioning",
	              0},
};

/* rack peaks: running maxima per (component, rack) */
typedef struct rackset {
	double *peak;
	size_t n;
} rackset;

typedef struct site {
	int id_it, id_fac, id_util, id_cost;
	double peak_it;
	double *comp_peak; /* per component, indexed by creation order */
	size_t ncomp;
	double energy_cost_usd;
	double it_energy_j;
	rackset *racks; /* per component */
} site;

static rackset *racks_of(aiw_sim *sim, aiw_comp *c, size_t need)
{
	site *s = aiw__site(sim)->state;
	if (!s || !s->racks || c->order >= s->ncomp)
		return NULL;
	rackset *r = &s->racks[c->order];
	if (need > r->n) {
		size_t n = r->n ? r->n : 16;
		while (n < need)
			n *= 2;
		double *p = realloc(r->peak, n * sizeof *p);
		if (!p) {
			aiw__err(sim, AIW_ENOMEM, "out of memory tracking rack peaks");
			aiw__fail(sim, AIW_ENOMEM);
			return NULL;
		}
		for (size_t i = r->n; i < n; i++)
			p[i] = 0;
		r->peak = p;
		r->n = n;
	}
	return r;
}


void aiw_site_rack_power(aiw_sim *sim, aiw_comp *c, size_t rack, double avg_w)
{
	rackset *r = racks_of(sim, c, rack + 1);
	if (r && avg_w > r->peak[rack])
		r->peak[rack] = avg_w;
}

void aiw_site_racks_uniform(aiw_sim *sim, aiw_comp *c, size_t nracks, double avg_w_each)
{
	rackset *r = racks_of(sim, c, nracks);
	if (!r)
		return;
	for (size_t i = 0; i < nracks; i++)
		if (avg_w_each > r->peak[i])
			r->peak[i] = avg_w_each;
}

double aiw_site_gpus_per_rack(const aiw_sim *sim)
{
	return aiw_p(aiw__site(sim), P_GPUS_PER_RACK);
}

static aiw_status site_start(aiw_comp *c)
{
	aiw_sim *sim = c->sim;
	site *s = calloc(1, sizeof *s);
	if (!s)
		return aiw__err(sim, AIW_ENOMEM, "out of memory");
	c->state = s;
	s->ncomp = aiw__ncomps(sim);
	s->comp_peak = calloc(s->ncomp, sizeof *s->comp_peak);
	s->racks = calloc(s->ncomp, sizeof *s->racks);
	if (!s->comp_peak || !s->racks)
		return aiw__err(sim, AIW_ENOMEM, "out of memory");
	s->id_it = aiw_rec_add(sim, "site.power_w", "W");
	s->id_fac = aiw_rec_add(sim, "site.facility_power_w", "W");
	s->id_util = aiw_rec_add(sim, "site.utilization", "1");
	s->id_cost = aiw_rec_add(sim, "site.cost_rate_usd_per_h", "USD/h");
	if (s->id_it < 0 || s->id_fac < 0 || s->id_util < 0 || s->id_cost < 0)
		return AIW_ENOMEM;
	return AIW_OK;
}

static void site_sample(aiw_comp *c, double t)
{
	site *s = c->state;
	aiw_sim *sim = c->sim;
	double pue = aiw_p(c, P_PUE), price_j = aiw_p(c, P_PRICE) / 3.6e6;
	double it = 0, busy = 0, paid = 0, cost = 0;
	for (size_t i = 0; i < s->ncomp; i++) {
		aiw_comp *k = aiw__comp_at(sim, i);
		if (!k->accounted)
			continue;
		it += k->tick_power_w;
		busy += k->tick_util * k->tick_gpus;
		paid += k->tick_gpus;
		cost += k->tick_cost_rate;
		if (k->tick_power_w > s->comp_peak[i])
			s->comp_peak[i] = k->tick_power_w;
	}
	if (it > s->peak_it)
		s->peak_it = it;
	double dt = aiw_rec_dt(sim);
	s->it_energy_j += it * dt;
	s->energy_cost_usd += it * pue * dt * price_j;
	aiw_rec_put(sim, s->id_it, it);
	aiw_rec_put(sim, s->id_fac, it * pue);
	aiw_rec_put(sim, s->id_util, paid > 0 ? busy / paid : 0);
	aiw_rec_put(sim, s->id_cost, cost + it * pue * price_j * 3600.0);
}

static void site_finish(aiw_comp *c, double t)
{
	site *s = c->state;
	aiw_sim *sim = c->sim;
	if (!s)
		return;
	double pue = aiw_p(c, P_PUE);
	double sum_peaks = 0, energy = 0, hw = 0;
	for (size_t i = 0; i < s->ncomp; i++) {
		aiw_comp *k = aiw__comp_at(sim, i);
		if (!k->accounted)
			continue;
		sum_peaks += s->comp_peak[i];
		energy += k->energy_j;
		hw += k->cost_usd;
		aiw__metric(sim, k->prefix, "power_peak_w", s->comp_peak[i]);
	}
	aiw__metric(sim, "site", "power_peak_w", s->peak_it);
	aiw__metric(sim, "site", "facility_power_peak_w", s->peak_it * pue);
	aiw__metric(sim, "site", "sum_of_peaks_w", sum_peaks);
	aiw__metric(sim, "site", "diversity_factor", s->peak_it > 0 ? sum_peaks / s->peak_it : NAN);
	aiw__metric(sim, "site", "provisioned_power_w",
	            s->peak_it * pue * (1 + aiw_p(c, P_MARGIN)));
	aiw__metric(sim, "site", "energy_kwh", energy / 3.6e6);
	aiw__metric(sim, "site", "facility_energy_kwh", energy * pue / 3.6e6);
	aiw__metric(sim, "site", "energy_cost_usd", s->energy_cost_usd);
	aiw__metric(sim, "site", "cost_usd", hw + s->energy_cost_usd);
}

static void site_destroy(aiw_comp *c)
{
	site *s = c->state;
	for (size_t i = 0; s->racks && i < s->ncomp; i++)
		free(s->racks[i].peak);
	free(s->racks);
	free(s->comp_peak);
	free(s);
	c->state = NULL;
}

const aiw_kind aiw_kind_site = {
	.name = "site",
	.params = SITE_PARAMS,
	.nparams = P_NPARAMS,
	.singleton = true,
	.start = site_start,
	.sample = site_sample,
	.finish = site_finish,
	.destroy = site_destroy,
};

/* ------------------------------------------------------------------------ */
/* load: a scripted piecewise-constant power profile ([load NAME]).  Models  */
/* anything the other kinds do not (cooling plant, storage, CPU racks), and  */
/* gives tests a component whose energy and peaks are known by hand.         */
/* ------------------------------------------------------------------------ */
enum { L_PROFILE, L_PERIOD, L_GPUS, L_NPARAMS };

static const aiw_param_def LOAD_PARAMS[] = {
	[L_PROFILE] = {"profile", "load.NAME.profile", AIW_PT_STRING, "0s:0W", "", 0, 0, NULL, 0,
	               "piecewise-constant power: TIME:POWER steps, e.g. 0:1kW,2h:5kW", 0},
	[L_PERIOD] = {"period", "load.NAME.period", AIW_PT_DURATION, NULL, "s", 0, 3.2e9, NULL,
	              AIW_PF_NONE | AIW_PF_EXCL_MIN,
	              "repeat the profile with this period (none: hold the last step)", 0},
	[L_GPUS] = {"gpus", "load.NAME.gpus", AIW_PT_INT, "0", "1", 0, 1e7, NULL, 0,
	            "GPUs paid for by this load (busy while its power is above zero)", 0},
};

typedef struct load {
	double *t, *w;
	size_t n, i;
	double cycle0; /* start of the current period */
	aiw_integral energy, busy;
} load;

#define LOAD_MAX_STEPS 100000

static aiw_status load_parse(aiw_comp *c, load *L)
{
	aiw_sim *sim = c->sim;
	const char *text = aiw_ps(c, L_PROFILE);
	size_t cap = 8;
	L->t = malloc(cap * sizeof *L->t);
	L->w = malloc(cap * sizeof *L->w);
	if (!L->t || !L->w)
		return aiw__err(sim, AIW_ENOMEM, "out of memory");
	char *copy = strdup(text ? text : "");
	if (!copy)
		return aiw__err(sim, AIW_ENOMEM, "out of memory");
	aiw_status st = AIW_OK;
	char *save = NULL;
	for (char *tok = strtok_r(copy, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
		char *colon = strchr(tok, ':');
		char e[256];
		double t, w;
		if (!colon) {
			st = aiw__err(sim, AIW_EPARSE, "%s.profile: step '%s' is not TIME:POWER",
			              c->prefix, tok);
			break;
		}
		*colon = 0;
		if ((st = aiw_parse_units(AIW_PT_DURATION, tok, &t, e, sizeof e)) != AIW_OK ||
		    (st = aiw_parse_units(AIW_PT_POWER, colon + 1, &w, e, sizeof e)) != AIW_OK) {
			aiw__err(sim, st, "%s.profile: %s", c->prefix, e);
			break;
		}
		if (t < 0 || w < 0 || (L->n && t <= L->t[L->n - 1])) {
			st = aiw__err(sim, AIW_ERANGE,
			              "%s.profile: step %s:%g W: times must increase from 0 and powers "
			              "be >= 0",
			              c->prefix, tok, w);
			break;
		}
		if (L->n == cap) {
			if (cap >= LOAD_MAX_STEPS) {
				st = aiw__err(sim, AIW_ELIMIT, "%s.profile: more than %d steps", c->prefix,
				              LOAD_MAX_STEPS);
				break;
			}
			cap *= 2;
			double *a = realloc(L->t, cap * sizeof *a);
			if (a)
				L->t = a;
			double *b = realloc(L->w, cap * sizeof *b);
			if (b)
				L->w = b;
			if (!a || !b) {
				st = aiw__err(sim, AIW_ENOMEM, "out of memory");
				break;
			}
		}
		L->t[L->n] = t;
		L->w[L->n++] = w;
	}
	free(copy);
	if (st == AIW_OK && L->n == 0)
		st = aiw__err(sim, AIW_EPARSE, "%s.profile is empty", c->prefix);
	if (st == AIW_OK && aiw_pset(c, L_PERIOD) && L->t[L->n - 1] >= aiw_p(c, L_PERIOD))
		st = aiw__err(sim, AIW_ERANGE, "%s.profile: last step at %g s is not before period %g s",
		              c->prefix, L->t[L->n - 1], aiw_p(c, L_PERIOD));
	return st;
}

static void load_apply(aiw_comp *c, load *L, double now)
{
	double w = L->w[L->i];
	aiw_int_set(&L->energy, now, w);
	aiw_int_set(&L->busy, now, w > 0 ? aiw_p(c, L_GPUS) : 0);
}

static void load_step(aiw_sim *sim, void *ctx, uint64_t arg)
{
	aiw_comp *c = ctx;
	load *L = c->state;
	double now = aiw__now(sim);
	L->i = (size_t)arg;
	load_apply(c, L, now);
	size_t next = L->i + 1;
	if (next < L->n) {
		aiw__at(sim, L->cycle0 + L->t[next], load_step, c, next);
	} else if (aiw_pset(c, L_PERIOD)) {
		L->cycle0 += aiw_p(c, L_PERIOD);
		aiw__at(sim, L->cycle0 + L->t[0], load_step, c, 0);
	}
}

static aiw_status load_start(aiw_comp *c)
{
	load *L = calloc(1, sizeof *L);
	if (!L)
		return aiw__err(c->sim, AIW_ENOMEM, "out of memory");
	c->state = L;
	aiw_status st = load_parse(c, L);
	if (st != AIW_OK)
		return st;
	aiw_int_init(&L->energy, 0, 0);
	aiw_int_init(&L->busy, 0, 0);
	c->gpus = aiw_p(c, L_GPUS);
	aiw__at(c->sim, L->t[0], load_step, c, 0);
	return AIW_OK;
}

static void load_account(aiw_comp *c, double t)
{
	load *L = c->state;
	aiw_int_advance(&L->energy, t);
	aiw_int_advance(&L->busy, t);
	c->energy_j = L->energy.sum;
	c->busy_gpu_s = L->busy.sum;
	c->paid_gpu_s = aiw_p(c, L_GPUS) * t;
}

static void load_finish(aiw_comp *c, double t)
{
	if (!c->state)
		return;
	load_account(c, t);
	aiw__metric(c->sim, c->prefix, "energy_kwh", c->energy_j / 3.6e6);
}

static void load_destroy(aiw_comp *c)
{
	load *L = c->state;
	free(L->t);
	free(L->w);
	free(L);
	c->state = NULL;
}

const aiw_kind aiw_kind_load = {
	.name = "load",
	.params = LOAD_PARAMS,
	.nparams = L_NPARAMS,
	.start = load_start,
	.sample = load_account,
	.finish = load_finish,
	.destroy = load_destroy,
};
