/*
 * site.c - the site ([site]): sums the components' power into site curves, tracks
 * peaks and gives the electrical diversity factor and the cost of a run.
 * (the scripted `load` kind is load.c, the training-share diversity sweep
 * lib/studies/diversity.c).
 *
 * Diversity factor ("facteur de foisonnement") = sum of the individual peaks
 * / peak of the sum, at component level (each component's IT power) and at
 * rack level (each rack the models report through aiwi_site_rack_power; a
 * component that reports no rack counts as one rack).  Peaks are taken on
 * the sampled curves (interval averages), so the sample interval is the
 * resolution of every peak.  Facility power = IT power x PUE; recommended
 * provisioning = facility peak x (1 + margin).
 *
 * Costs: hardware (each model's exact c->cost_usd: capex amortised or
 * rented GPU-seconds, see cost.c), energy = facility energy x electricity
 * price (from the exact energy integrals, so it is exact even when a run
 * stops between two sample ticks), and optionally provisioned capacity at a
 * price per kW-month.  Idle cost = the hardware cost of paid GPU-seconds
 * that did no work: per interval, d(cost) x (1 - d(busy) / d(paid)).
 *
 * Memory: O(components + racks), never per-rack curves.
 */
#include "site/cost.h"
#include "hw/hw.h"
#include "core/internal.h"
#include "site/power.h"
#include "site/grid.h"
#include "site/tariff.h"
#include "site/storage.h"
#include "site/budget.h"
#include "site/capping.h"
#include "site/site_params.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SECONDS_PER_MONTH 2629800.0 /* 365.25 / 12 days */

double aiwi_power_fan(double idle, double busy, double u, int curve)
{
	if (!(u > 0))
		u = 0;
	else if (u > 1)
		u = 1;
	double f = curve == AIW_POWER_FAN ? 2 * u - pow(u, 1.4) : u;
	return idle + (busy - idle) * f;
}

/* per component: peaks, rack peaks, cost bookkeeping */
typedef struct rackset {
	double *peak;
	double *now;  /* this tick's power, with the hierarchy on */
	size_t n;     /* capacity of peak[] */
	size_t used;  /* highest rack index reported + 1 */
} rackset;

typedef struct compacc {
	double peak;                                       /* of the sampled IT power */
	double last_e, last_busy, last_paid, last_cost;    /* at the last site update */
	double idle_cost;                                  /* USD */
	double peak_gpus;                                  /* most GPUs at a sample */
	double extra_rate;  /* network + storage capex per GPU-second (cost.h) */
	/* with a price or carbon series: the IT energy priced so far, its
	 * energy cost (USD) and emissions (kg) */
	double e_priced, ecost, emis;
	int id_cost;                                       /* <prefix>.cost_usd */
	rackset racks;
} compacc;

typedef struct site {
	int id_it, id_fac, id_util, id_cost_rate, id_cost, id_kbusy, id_tensor;
	double peak_it;
	compacc *comp; /* indexed by creation order */
	size_t ncomp;
	/* rows and halls (site.racks_per_row): this tick's sums and peaks */
	bool hier;
	size_t rpr, rph;
	double *row_now, *row_peak, *hall_now, *hall_peak;
	size_t nrow_cap, nrows, nhall_cap, nhalls;
	aiwi_grid *grid; /* site.grid = on */
	unsigned causes; /* with grid: what the models reported since the last tick */
	/* a price or carbon series (tariff.h): each component's facility
	 * energy priced per sample interval at the interval's mean */
	aiwi_tseries price, carbon;
	bool series_price, has_carbon;
	double carbon_const; /* g/kWh, with has_carbon and no carbon series */
	double last_t;       /* where the component accumulators stop */
	double emis_prev;    /* emissions (kg) at the last tick */
	int id_price, id_emis_rate, id_emis;
	/* site.storage: the battery at the meter, the last tick's time, the
	 * energy cost of its net draw (USD) */
	aiwi_storage *storage;
	double tick_t, storage_cost, storage_emis;
	int id_grid_w, id_soc;
	aiwi_budget *budget; /* site.gpu_budget (budget.c) */
	/* site.capping: the controller, each component's group (-1: not
	 * capped), the thresholds without demand response, the figures */
	aiwi_capping *capc;
	int *cap_group;
	double cap_high0, cap_low0, cap_limit;
	double cap_throttled_gpu_s, cap_over_limit_s, cap_over_high_s;
	int id_cap;
	/* demand response: the events, the one announced (-1: none), its
	 * baseline and target; the window's energy, time and time above target,
	 * the sums of the events' baselines and targets */
	bool dr_on;
	aiwi_dr dr;
	long dr_cur;
	double dr_baseline, dr_target, dr_energy_j, dr_time_s, dr_over_s;
	double dr_baseline_sum, dr_target_sum, dr_events;
} site;

aiwi_budget *aiwi_site_budget(const aiw_sim *sim)
{
	aiwi_comp *c = aiwi_aggregator(sim);
	site *s = c ? c->state : NULL;
	return s ? s->budget : NULL;
}

double aiwi_site_pue(const aiw_sim *sim)
{
	return aiwi_p(aiwi_aggregator(sim), P_PUE);
}

double aiwi_site_price_per_j(const aiw_sim *sim)
{
	return aiwi_p(aiwi_aggregator(sim), P_PRICE) / 3.6e6;
}

/* The mean electricity price (USD/kWh) and carbon intensity (g/kWh; NaN:
 * none) over [a, b]: the series' mean, or the constant. */
static double price_mean(const aiwi_comp *c, const site *s, double a, double b)
{
	return s->series_price ? aiwi_tseries_mean(&s->price, a, b) : aiwi_p(c, P_PRICE);
}

static double carbon_mean(const site *s, double a, double b)
{
	if (!s->has_carbon)
		return NAN;
	return s->carbon.n ? aiwi_tseries_mean(&s->carbon, a, b) : s->carbon_const;
}

/* With a price or carbon series: price each component's facility energy
 * since the last update at the mean over [last_t, t] (exact when the
 * series steps on sample ticks: the interval's value is then constant). */
static void price_catch_up(aiwi_comp *c, site *s, double t)
{
	if (!s->series_price && !s->has_carbon)
		return;
	aiw_sim *sim = c->sim;
	double pue = aiwi_p(c, P_PUE);
	double mp = price_mean(c, s, s->last_t, t), mc = carbon_mean(s, s->last_t, t);
	for (size_t i = 0; i < s->ncomp; i++) {
		aiwi_comp *k = aiwi_comp_at(sim, i);
		if (!k->accounted)
			continue;
		compacc *a = &s->comp[i];
		double kwh = (k->energy_j - a->e_priced) * pue / 3.6e6;
		a->ecost += kwh * mp;
		if (s->has_carbon)
			a->emis += kwh * mc / 1000.0;
		a->e_priced = k->energy_j;
	}
	s->last_t = t;
}

/* k's accumulators brought to now without moving them (a run stepped in
 * several calls prices the same): energy cost (USD) and emissions (kg) */
static void priced_now(const aiwi_comp *c, const site *s, const aiwi_comp *k, double *cost,
                       double *emis)
{
	const compacc *a = &s->comp[k->order];
	double t = aiwi_now(c->sim);
	double kwh = (k->energy_j - a->e_priced) * aiwi_p(c, P_PUE) / 3.6e6;
	*cost = a->ecost + kwh * price_mean(c, s, s->last_t, t);
	*emis = s->has_carbon ? a->emis + kwh * carbon_mean(s, s->last_t, t) / 1000.0 : NAN;
}

double aiwi_site_energy_cost_usd(const aiwi_comp *k)
{
	aiw_sim *sim = k->sim;
	const aiwi_comp *c = aiwi_aggregator(sim);
	const site *s = c ? c->state : NULL;
	if (!s || !s->series_price || !s->comp || k->order >= s->ncomp)
		return k->energy_j * aiwi_site_pue(sim) * aiwi_site_price_per_j(sim);
	double cost, emis;
	priced_now(c, s, k, &cost, &emis);
	return cost;
}

/* The step times of series ts in [a, b] (a periodic one repeated), each
 * passed to fn. */
static void each_step(const aiwi_tseries *ts, double a, double b, void (*fn)(double, void *),
                      void *ctx)
{
	if (ts->period > 0) {
		for (double k = floor(a / ts->period); k * ts->period <= b; k += 1)
			for (size_t i = 0; i < ts->n; i++) {
				double x = k * ts->period + ts->t[i];
				if (x >= a && x <= b)
					fn(x, ctx);
			}
		return;
	}
	for (size_t i = 0; i < ts->n; i++)
		if (ts->t[i] >= a && ts->t[i] <= b)
			fn(ts->t[i], ctx);
}

typedef struct best_start {
	const aiwi_tseries *ts;
	double a, b, d, best, value;
} best_start;

static void try_start(double x, best_start *B)
{
	if (!(x >= B->a && x <= B->b))
		return;
	double v = aiwi_tseries_integral(B->ts, x, x + B->d);
	/* the earliest of equal integrals (to rounding) */
	double tol = 1e-12 * fmax(fabs(v), fabs(B->value));
	if (v < B->value - tol || (fabs(v - B->value) <= tol && x < B->best)) {
		B->best = x;
		B->value = v;
	}
}

static void try_step(double tau, void *ctx)
{
	best_start *B = ctx;
	try_start(tau, B);         /* the job starts on a step */
	try_start(tau - B->d, B);  /* or ends on one */
}

double aiwi_site_best_start(const aiw_sim *sim, bool carbon, double a, double b, double d)
{
	const aiwi_comp *c = aiwi_aggregator(sim);
	const site *s = c ? c->state : NULL;
	const aiwi_tseries *ts = !s ? NULL : carbon ? &s->carbon : &s->price;
	if (!ts || !ts->n || !(b > a) || !(d > 0) || !isfinite(d))
		return a;
	/* g(x) = F(x + d) - F(x) is linear between the times where x or x + d
	 * meets a step of the series: its least value is at one of them or an
	 * end of the window */
	best_start B = {ts, a, b, d, a, aiwi_tseries_integral(ts, a, a + d)};
	try_start(b, &B);
	each_step(ts, a, b + d, try_step, &B);
	return B.best;
}

bool aiwi_site_has_series(const aiw_sim *sim, bool carbon)
{
	const aiwi_comp *c = aiwi_aggregator(sim);
	const site *s = c ? c->state : NULL;
	return s && (carbon ? s->carbon.n : s->price.n) > 0;
}

/* Read site.electricity_price_daily/_file and site.carbon_intensity*: at most
 * one price series and one carbon source, refused otherwise. */
static aiw_status tariff_start(aiwi_comp *c, site *s)
{
	aiw_sim *sim = c->sim;
	char err[512];
	s->id_price = s->id_emis_rate = s->id_emis = -1;
	struct {
		int daily, file;
		aiwi_tseries *ts;
		aiwi_ptype unit;
		double hi;
	} src[2] = {{P_PRICE_DAILY, P_PRICE_FILE, &s->price, AIW_PT_MONEY, 100},
	            {P_CARBON_DAILY, P_CARBON_FILE, &s->carbon, AIW_PT_REAL, 1e4}};
	for (int j = 0; j < 2; j++) {
		const aiwi_param_def *dd = &c->kind->params[src[j].daily];
		const aiwi_param_def *df = &c->kind->params[src[j].file];
		bool d = aiwi_pset(c, src[j].daily), f = aiwi_pset(c, src[j].file);
		if (d && f)
			return aiwi_err(sim, AIW_ESCENARIO, "%s and %s are both set: give one of them",
			                dd->full, df->full);
		/* a price series replaces electricity_price (which the default site
		 * sets); two carbon sources are refused */
		if (j == 1 && (d || f) && aiwi_pset(c, P_CARBON))
			return aiwi_err(sim, AIW_ESCENARIO, "%s and %s are both set: give one of them",
			                c->kind->params[P_CARBON].full, d ? dd->full : df->full);
		if (!d && !f)
			continue;
		aiw_status st = d ? aiwi_tseries_daily(src[j].ts, aiwi_ps(c, src[j].daily), src[j].unit,
		                                       0, src[j].hi, dd->full, err, sizeof err)
		                  : aiwi_tseries_file(src[j].ts, aiwi_ps(c, src[j].file), src[j].unit,
		                                      0, src[j].hi, df->full, err, sizeof err);
		if (st != AIW_OK)
			return aiwi_err(sim, st, "%s", err);
		double dur, dt, keep;
		aiwi_run_conf(sim, &dur, &dt, &keep);
		double off = aiwi_tseries_off_tick(src[j].ts, dt);
		if (off >= 0)
			aiwi_warn(sim,
			          "%s: a step at %g s is not on a sample tick (sim.sample_interval = %g s): "
			          "the energy of that interval is priced at the interval's mean value, "
			          "exact only if its power was constant",
			          d ? dd->full : df->full, off, dt);
	}
	s->series_price = s->price.n > 0;
	s->has_carbon = s->carbon.n > 0 || aiwi_pset(c, P_CARBON);
	s->carbon_const = aiwi_pset(c, P_CARBON) ? aiwi_p(c, P_CARBON) : NAN;
	if (s->series_price &&
	    (s->id_price = aiwi_rec_add(sim, "site.electricity_price_usd_per_kwh", "USD/kWh")) < 0)
		return AIW_ENOMEM;
	if (s->has_carbon) {
		s->id_emis_rate = aiwi_rec_add(sim, "site.emissions_rate_kg_per_h", "kg/h");
		s->id_emis = aiwi_rec_add(sim, "site.emissions_kg", "kg");
		if (s->id_emis_rate < 0 || s->id_emis < 0)
			return AIW_ENOMEM;
	}
	return AIW_OK;
}

/* site.storage: check the battery's settings and build it. */
static aiw_status storage_start(aiwi_comp *c, site *s)
{
	aiw_sim *sim = c->sim;
	s->id_grid_w = s->id_soc = -1;
	int mode = (int)aiwi_p(c, P_STORAGE);
	if (mode == 0)
		return AIW_OK;
	const char *m = mode == 1 ? "peak_shaving" : "ramp_limit";
	if (!aiwi_pset(c, P_ST_CAPACITY))
		return aiwi_err(sim, AIW_ESCENARIO,
		                "site.storage = %s needs site.storage_capacity (the battery's usable "
		                "energy, e.g. 10MWh)",
		                m);
	double cap = aiwi_p(c, P_ST_CAPACITY);
	double pw = aiwi_pset(c, P_ST_POWER) ? aiwi_p(c, P_ST_POWER) : cap / (4 * 3600.0);
	double limit = 0, ramp = 0;
	if (mode == 1) {
		if (!aiwi_pset(c, P_ST_LIMIT) && !aiwi_pset(c, P_CAPACITY))
			return aiwi_err(sim, AIW_ESCENARIO,
			                "site.storage = peak_shaving needs site.storage_grid_limit (or "
			                "site.capacity): the facility power to hold the grid's draw to");
		limit = aiwi_pset(c, P_ST_LIMIT) ? aiwi_p(c, P_ST_LIMIT) : aiwi_p(c, P_CAPACITY);
	} else {
		if (!aiwi_pset(c, P_ST_RAMP))
			return aiwi_err(sim, AIW_ESCENARIO,
			                "site.storage = ramp_limit needs site.storage_ramp_limit (W/s of "
			                "facility power, e.g. 16667 for 1 MW per minute)");
		ramp = aiwi_p(c, P_ST_RAMP);
	}
	if (!(s->storage = calloc(1, sizeof *s->storage)))
		return aiwi_err(sim, AIW_ENOMEM, "out of memory");
	aiwi_storage_init(s->storage, mode == 1 ? AIWI_STORAGE_PEAK : AIWI_STORAGE_RAMP, cap, pw,
	                  aiwi_p(c, P_ST_EFF), aiwi_p(c, P_ST_SOC0), limit, ramp);
	s->id_grid_w = aiwi_rec_add(sim, "site.grid_power_w", "W");
	s->id_soc = aiwi_rec_add(sim, "site.storage_charge", "1");
	if (s->id_grid_w < 0 || s->id_soc < 0)
		return AIW_ENOMEM;
	return AIW_OK;
}

/* site.capping: check the controller's settings, group the components it
 * can cap by their capping priority (lowest first), build it. */
static aiw_status capping_start(aiwi_comp *c, site *s)
{
	aiw_sim *sim = c->sim;
	if (aiwi_p(c, P_CAPPING) != 1)
		return AIW_OK;
	bool cap_set = aiwi_pset(c, P_CAPACITY), dr = aiwi_pset(c, P_DR_START);
	if (!cap_set && !dr)
		return aiwi_err(sim, AIW_ESCENARIO,
		                "site.capping = on needs site.capacity (the contracted facility power "
		                "its thresholds are fractions of) or a demand-response event "
		                "(site.demand_response_start)");
	double hi = aiwi_p(c, P_CAPPING_HIGH), lo = aiwi_p(c, P_CAPPING_LOW);
	if (!(lo <= hi))
		return aiwi_err(sim, AIW_ERANGE,
		                "site.capping_low = %g is above site.capping_high = %g: the range is "
		                "(0, capping_high]",
		                lo, hi);
	double step = aiwi_p(c, P_CAPPING_STEP), min = aiwi_p(c, P_CAPPING_MIN);
	if (!(1 - step >= min - 1e-9))
		return aiwi_err(sim, AIW_ERANGE,
		                "site.capping_step = %g leaves no level down to site.capping_min = %g: "
		                "the range is (0, 1 - capping_min]",
		                step, min);
	if (dr) {
		bool f = aiwi_pset(c, P_DR_REDUCTION), w = aiwi_pset(c, P_DR_REDUCTION_W);
		if (f == w)
			return aiwi_err(sim, AIW_ESCENARIO,
			                "site.demand_response_start needs exactly one of "
			                "site.demand_response_reduction (a fraction of the baseline) and "
			                "site.demand_response_reduction_w");
		s->dr.start = aiwi_p(c, P_DR_START);
		s->dr.duration = aiwi_p(c, P_DR_DURATION);
		s->dr.period = aiwi_pset(c, P_DR_PERIOD) ? aiwi_p(c, P_DR_PERIOD) : 0;
		s->dr.notice = aiwi_p(c, P_DR_NOTICE);
		if (s->dr.notice > s->dr.start)
			return aiwi_err(sim, AIW_ERANGE,
			                "site.demand_response_notice = %g s is longer than the time to the "
			                "first window, site.demand_response_start = %g s: the range is "
			                "[0, demand_response_start]",
			                s->dr.notice, s->dr.start);
		if (s->dr.period > 0 && !(s->dr.notice + s->dr.duration <= s->dr.period))
			return aiwi_err(sim, AIW_ERANGE,
			                "site.demand_response_period = %g s is shorter than the notice and "
			                "the window (%g s): the events would overlap",
			                s->dr.period, s->dr.notice + s->dr.duration);
		s->dr_on = true;
		s->dr_cur = -1;
	}
	/* the groups: the distinct priorities of the components that take a cap */
	if (!(s->cap_group = malloc(s->ncomp * sizeof *s->cap_group)) ||
	    !(s->capc = calloc(1, sizeof *s->capc)))
		return aiwi_err(sim, AIW_ENOMEM, "out of memory");
	bool used[AIWI_CAPPING_GROUPS] = {false};
	for (size_t i = 0; i < s->ncomp; i++) {
		aiwi_comp *k = aiwi_comp_at(sim, i);
		aiwi_answer a;
		s->cap_group[i] = -1;
		if (!k->accounted)
			continue;
		if (!k->kind->site_cap || !aiwi_comp_query(k, AIWI_Q_CAPPING_PRIORITY, &a)) {
			aiwi_warn(sim,
			          "site.capping: %s takes no cap from the controller (only training jobs "
			          "of the mfu or step_compute models do): its power is counted, never "
			          "capped",
			          k->prefix);
			continue;
		}
		int p = (int)a.num;
		if (p < 0)
			p = 0;
		if (p >= AIWI_CAPPING_GROUPS)
			p = AIWI_CAPPING_GROUPS - 1;
		used[p] = true;
		s->cap_group[i] = p;
	}
	int rank[AIWI_CAPPING_GROUPS], n = 0;
	for (int p = 0; p < AIWI_CAPPING_GROUPS; p++)
		rank[p] = used[p] ? n++ : -1;
	for (size_t i = 0; i < s->ncomp; i++)
		if (s->cap_group[i] >= 0)
			s->cap_group[i] = rank[s->cap_group[i]];
	double C = cap_set ? aiwi_p(c, P_CAPACITY) : INFINITY;
	s->cap_limit = C;
	s->cap_high0 = hi * C;
	s->cap_low0 = lo * C;
	aiwi_capping_init(s->capc, (size_t)n, s->cap_high0, s->cap_low0,
	                  aiwi_p(c, P_CAPPING_REACTION), step, min);
	if ((s->id_cap = aiwi_rec_add(sim, "site.capping_cap", "1")) < 0)
		return AIW_ENOMEM;
	return AIW_OK;
}

/* The controller at the tick ending at t, dt after the last, with
 * facility power p over the interval: its figures, the demand-response
 * event announced or ended, then its decision applied to the components of
 * the group it moves (from now on: the next interval sees it). */
static void capping_tick(site *s, aiw_sim *sim, double t, double dt, double p)
{
	aiwi_capping *k = s->capc;
	for (size_t i = 0; i < s->ncomp; i++) /* under a cap set at an earlier tick */
		if (s->cap_group[i] >= 0 && aiwi_capping_frac(k, (size_t)s->cap_group[i]) < 1)
			s->cap_throttled_gpu_s += aiwi_comp_at(sim, i)->tick_gpus * dt;
	if (p > s->cap_limit)
		s->cap_over_limit_s += dt;
	if (p > k->high_w)
		s->cap_over_high_s += dt;
	if (s->dr_on) {
		double in = aiwi_dr_overlap(&s->dr, t - dt, t);
		if (in > 0) {
			s->dr_energy_j += p * in;
			s->dr_time_s += in;
			if (p > s->dr_target)
				s->dr_over_s += in;
		}
		long ev = aiwi_dr_event(&s->dr, t);
		if (ev != s->dr_cur) {
			if (ev >= 0) { /* announced: the baseline is the interval just ended */
				aiwi_comp *sc = aiwi_aggregator(sim);
				s->dr_baseline = p;
				s->dr_target = aiwi_pset(sc, P_DR_REDUCTION_W)
				                       ? p - aiwi_p(sc, P_DR_REDUCTION_W)
				                       : p * (1 - aiwi_p(sc, P_DR_REDUCTION));
				/* through the notice and the window it only lowers caps:
				 * they come off after it, by the usual rule */
				k->high_w = fmin(s->cap_high0, s->dr_target);
				k->low_w = -INFINITY;
				s->dr_events++;
				s->dr_baseline_sum += s->dr_baseline;
				s->dr_target_sum += s->dr_target;
			} else {
				k->high_w = s->cap_high0;
				k->low_w = s->cap_low0;
			}
			s->dr_cur = ev;
		}
	}
	size_t g = 0;
	int act = aiwi_capping_tick(k, t, p, &g);
	if (act != AIWI_CAPPING_HOLD) {
		double f = aiwi_capping_frac(k, g);
		for (size_t i = 0; i < s->ncomp; i++)
			if (s->cap_group[i] == (int)g)
				aiwi_comp_site_cap(aiwi_comp_at(sim, i), f);
	}
	double lowest = 1;
	for (size_t i = 0; i < k->ngroups; i++)
		lowest = fmin(lowest, aiwi_capping_frac(k, i));
	aiwi_rec_put(sim, s->id_cap, lowest);
}

/* The grid settings of site component c at the run's sample interval. */
static void grid_conf(const aiwi_comp *c, aiwi_grid_conf *g)
{
	double dur, keep;
	aiwi_run_conf(c->sim, &dur, &g->dt, &keep);
	g->window[0] = aiwi_p(c, P_RAMP_W1);
	g->window[1] = aiwi_p(c, P_RAMP_W2);
	g->window[2] = aiwi_p(c, P_RAMP_W3);
	g->drop_window = aiwi_p(c, P_DROP_WINDOW);
	g->drop_fraction = aiwi_pset(c, P_DROP_FRACTION) ? aiwi_p(c, P_DROP_FRACTION) : 0;
	g->segment = (size_t)aiwi_p(c, P_WELCH_SEG);
	g->band_lo = aiwi_p(c, P_BAND_LO);
	g->band_hi = aiwi_p(c, P_BAND_HI);
}

void aiwi_site_cause(aiw_sim *sim, int cause)
{
	aiwi_comp *c = aiwi_aggregator(sim);
	site *s = c ? c->state : NULL;
	if (s && s->grid)
		s->causes |= 1u << cause;
}

const aiwi_grid *aiwi_site_grid(const aiw_sim *sim)
{
	const aiwi_comp *c = aiwi_aggregator(sim);
	const site *s = c ? c->state : NULL;
	return s ? s->grid : NULL;
}

double aiwi_site_gpus_per_rack(const aiw_sim *sim)
{
	return aiwi_p(aiwi_aggregator(sim), P_GPUS_PER_RACK);
}

static rackset *racks_of(aiw_sim *sim, aiwi_comp *c, size_t need)
{
	site *s = aiwi_aggregator(sim)->state;
	if (!s || !s->comp || c->order >= s->ncomp)
		return NULL;
	rackset *r = &s->comp[c->order].racks;
	if (need > r->n) {
		size_t n = r->n ? r->n : 16;
		while (n < need)
			n *= 2;
		double *p = realloc(r->peak, n * sizeof *p);
		if (p)
			r->peak = p;
		double *q = s->hier ? realloc(r->now, n * sizeof *q) : NULL;
		if (q)
			r->now = q;
		if (!p || (s->hier && !q)) {
			aiwi_err(sim, AIW_ENOMEM, "out of memory tracking rack peaks");
			aiwi_fail(sim, AIW_ENOMEM);
			return NULL;
		}
		for (size_t i = r->n; i < n; i++) {
			p[i] = 0;
			if (q)
				q[i] = 0;
		}
		r->n = n;
	}
	if (need > r->used)
		r->used = need;
	return r;
}

void aiwi_site_rack_power(aiw_sim *sim, aiwi_comp *c, size_t rack, double avg_w)
{
	rackset *r = racks_of(sim, c, rack + 1);
	if (!r)
		return;
	if (avg_w > r->peak[rack])
		r->peak[rack] = avg_w;
	if (r->now)
		r->now[rack] = avg_w;
}

void aiwi_site_racks_uniform(aiw_sim *sim, aiwi_comp *c, size_t nracks, double avg_w_each)
{
	if (!nracks)
		return;
	rackset *r = racks_of(sim, c, nracks);
	if (!r)
		return;
	for (size_t i = 0; i < nracks; i++)
		if (avg_w_each > r->peak[i])
			r->peak[i] = avg_w_each;
	if (r->now)
		for (size_t i = 0; i < nracks; i++)
			r->now[i] = avg_w_each;
}

static aiw_status site_start(aiwi_comp *c)
{
	aiw_sim *sim = c->sim;
	site *s = calloc(1, sizeof *s);
	if (!s)
		return aiwi_err(sim, AIW_ENOMEM, "out of memory");
	c->state = s;
	s->ncomp = aiwi_ncomps(sim);
	s->comp = calloc(s->ncomp, sizeof *s->comp);
	if (!s->comp)
		return aiwi_err(sim, AIW_ENOMEM, "out of memory");
	s->id_it = aiwi_rec_add(sim, "site.power_w", "W");
	s->id_fac = aiwi_rec_add(sim, "site.facility_power_w", "W");
	s->id_util = aiwi_rec_add(sim, "site.utilization", "1");
	s->id_cost_rate = aiwi_rec_add(sim, "site.cost_rate_usd_per_h", "USD/h");
	s->id_cost = aiwi_rec_add(sim, "site.cost_usd", "USD");
	/* the telemetry figures when a component keeps them */
	s->id_kbusy = s->id_tensor = -1;
	for (size_t i = 0; i < s->ncomp; i++) {
		aiwi_comp *k = aiwi_comp_at(sim, i);
		if (k->accounted && aiwi_kind_is(k->kind, AIWI_KIND_TELEMETRY)) {
			s->id_kbusy = aiwi_rec_add(sim, "site.kernel_busy", "1");
			s->id_tensor = aiwi_rec_add(sim, "site.tensor_activity", "1");
			if (s->id_kbusy < 0 || s->id_tensor < 0)
				return AIW_ENOMEM;
			break;
		}
	}
	if (s->id_it < 0 || s->id_fac < 0 || s->id_util < 0 || s->id_cost_rate < 0 ||
	    s->id_cost < 0)
		return AIW_ENOMEM;
	if (aiwi_pset(c, P_ROWS_PER_HALL) && !aiwi_pset(c, P_RACKS_PER_ROW))
		return aiwi_err(sim, AIW_ESCENARIO,
		                "site.rows_per_hall = %g is set without site.racks_per_row: halls are "
		                "made of rows of racks",
		                aiwi_p(c, P_ROWS_PER_HALL));
	if (aiwi_pset(c, P_RACKS_PER_ROW)) {
		s->hier = true;
		s->rpr = (size_t)aiwi_p(c, P_RACKS_PER_ROW);
		s->rph = aiwi_pset(c, P_ROWS_PER_HALL) ? (size_t)aiwi_p(c, P_ROWS_PER_HALL) : SIZE_MAX;
	}
	if (aiwi_p(c, P_GRID) == 1) {
		aiwi_grid_conf g;
		grid_conf(c, &g);
		if (!(g.band_lo < g.band_hi))
			return aiwi_err(sim, AIW_ERANGE,
			                "site.grid_band_low = %g Hz must be below site.grid_band_high = %g Hz",
			                g.band_lo, g.band_hi);
		if (!(s->grid = aiwi_grid_new(&g)))
			return aiwi_err(sim, AIW_ENOMEM, "out of memory for the grid statistics");
		aiwi_grid_check(&g, sim);
	}
	aiw_status tst = tariff_start(c, s);
	if (tst != AIW_OK)
		return tst;
	if ((tst = storage_start(c, s)) != AIW_OK)
		return tst;
	if (aiwi_pset(c, P_GPU_BUDGET) &&
	    !(s->budget = aiwi_budget_new(sim, aiwi_p(c, P_GPU_BUDGET), (int)aiwi_p(c, P_BUDGET_RULE))))
		return aiwi_err(sim, AIW_ENOMEM, "out of memory");
	if ((tst = capping_start(c, s)) != AIW_OK)
		return tst;
	for (size_t i = 0; i < s->ncomp; i++) {
		aiwi_comp *k = aiwi_comp_at(sim, i);
		s->comp[i].id_cost = -1;
		if (!k->accounted)
			continue;
		s->comp[i].extra_rate = aiwi_cost_network_rate(k) + aiwi_cost_storage_rate(k);
		char n[256];
		snprintf(n, sizeof n, "%s.cost_usd", k->prefix);
		if ((s->comp[i].id_cost = aiwi_rec_add(sim, n, "USD")) < 0)
			return AIW_ENOMEM;
	}
	return AIW_OK;
}

/* Contracted capacity charge per second (USD/s), 0 when not charged or when
 * the capacity is only known at the end (derived from the run's peak). */
static double capacity_rate(const aiwi_comp *c)
{
	if (!aiwi_pset(c, P_CAP_PRICE) || !aiwi_pset(c, P_CAPACITY))
		return 0;
	return aiwi_p(c, P_CAPACITY) / 1000.0 * aiwi_p(c, P_CAP_PRICE) / SECONDS_PER_MONTH;
}

/* The facility's capex per second (USD/s) when the provisioned power is
 * known from the start (site.capacity), else 0 (charged at the end on the
 * recommended provisioning). */
static double facility_rate(const aiwi_comp *c)
{
	if (!(aiwi_p(c, P_FAC_CAPEX) > 0) || !aiwi_pset(c, P_CAPACITY))
		return 0;
	return aiwi_p(c, P_CAPACITY) / 1e6 * aiwi_p(c, P_FAC_CAPEX) / aiwi_p(c, P_FAC_LIFE);
}

/* Bring the idle-cost bookkeeping up to the components' current integrals. */
static void site_catch_up(site *s, aiw_sim *sim)
{
	for (size_t i = 0; i < s->ncomp; i++) {
		aiwi_comp *k = aiwi_comp_at(sim, i);
		if (!k->accounted)
			continue;
		compacc *a = &s->comp[i];
		/* idle cost = hardware cost x idle share of the paid GPU-seconds,
		 * from the cumulative integrals, so it does not depend on how a
		 * run is stepped (exact for a constant price per GPU-second) */
		double idle = k->paid_gpu_s > 0 ? 1 - k->busy_gpu_s / k->paid_gpu_s : 0;
		idle = idle > 0 ? (idle < 1 ? idle : 1) : 0;
		a->idle_cost = k->cost_usd * idle;
		a->last_e = k->energy_j;
		a->last_busy = k->busy_gpu_s;
		a->last_paid = k->paid_gpu_s;
		a->last_cost = k->cost_usd;
	}
}

/* Grow a[] (and its peaks b[]) to hold index i, zeroing the new part. */
static bool grow2(double **a, double **b, size_t *cap, size_t i)
{
	if (i < *cap)
		return true;
	size_t n = *cap ? *cap : 16;
	while (n <= i)
		n *= 2;
	double *x = realloc(*a, n * sizeof *x);
	if (x)
		*a = x;
	double *y = realloc(*b, n * sizeof *y);
	if (y)
		*b = y;
	if (!x || !y)
		return false;
	for (size_t k = *cap; k < n; k++)
		x[k] = y[k] = 0;
	*cap = n;
	return true;
}

/* Rows and halls at this tick: the racks in component order (a component
 * that reports no racks is one rack of its power) fill rows of rpr racks,
 * the rows halls of rph rows; each row's and hall's power is the sum of
 * its racks' interval averages. */
static void hierarchy_tick(site *s, aiw_sim *sim)
{
	size_t g = 0;
	for (size_t i = 0; i < s->ncomp; i++) {
		aiwi_comp *k = aiwi_comp_at(sim, i);
		if (!k->accounted)
			continue;
		rackset *r = &s->comp[i].racks;
		size_t nr = r->used ? r->used : 1;
		for (size_t j = 0; j < nr; j++, g++) {
			double w = r->used ? r->now[j] : k->tick_power_w;
			if (r->used)
				r->now[j] = 0; /* a rack not reported next tick draws nothing */
			size_t row = g / s->rpr;
			if (!grow2(&s->row_now, &s->row_peak, &s->nrow_cap, row)) {
				aiwi_err(sim, AIW_ENOMEM, "out of memory tracking row peaks");
				aiwi_fail(sim, AIW_ENOMEM);
				return;
			}
			s->row_now[row] += w;
		}
	}
	size_t rows = (g + s->rpr - 1) / s->rpr;
	if (rows > s->nrows)
		s->nrows = rows;
	for (size_t row = 0; row < rows; row++) {
		double w = s->row_now[row];
		s->row_now[row] = 0;
		if (w > s->row_peak[row])
			s->row_peak[row] = w;
		size_t hall = s->rph == SIZE_MAX ? 0 : row / s->rph;
		if (!grow2(&s->hall_now, &s->hall_peak, &s->nhall_cap, hall)) {
			aiwi_err(sim, AIW_ENOMEM, "out of memory tracking hall peaks");
			aiwi_fail(sim, AIW_ENOMEM);
			return;
		}
		s->hall_now[hall] += w;
		if (hall + 1 > s->nhalls)
			s->nhalls = hall + 1;
	}
	for (size_t h = 0; h < s->nhalls; h++) {
		if (s->hall_now[h] > s->hall_peak[h])
			s->hall_peak[h] = s->hall_now[h];
		s->hall_now[h] = 0;
	}
}

static void site_sample(aiwi_comp *c, double t)
{
	site *s = c->state;
	aiw_sim *sim = c->sim;
	double pue = aiwi_p(c, P_PUE), price_j = aiwi_p(c, P_PRICE) / 3.6e6;
	double it = 0, busy = 0, paid = 0, rate = 0, cum = 0, kb = 0, ten = 0, tpaid = 0;
	double tick_dt = t - s->tick_t, emis = 0;
	aiwi_budget_sample(s->budget);
	if (s->series_price) { /* this interval's mean price */
		double mp = price_mean(c, s, s->last_t, t);
		price_j = mp / 3.6e6;
		aiwi_rec_put(sim, s->id_price, mp);
	}
	price_catch_up(c, s, t);
	for (size_t i = 0; i < s->ncomp; i++) {
		aiwi_comp *k = aiwi_comp_at(sim, i);
		if (!k->accounted)
			continue;
		compacc *a = &s->comp[i];
		it += k->tick_power_w;
		busy += k->tick_util * k->tick_gpus;
		paid += k->tick_gpus;
		if (k->peak_flop_s > 0 && k->tick_gpus > 0) { /* a telemetry figure: GPU-weighted */
			kb += k->tick_kbusy * k->tick_gpus;
			ten += k->tick_tensor * k->tick_gpus;
			tpaid += k->tick_gpus;
		}
		rate += k->tick_cost_rate + k->tick_gpus * a->extra_rate * 3600.0;
		if (k->tick_power_w > a->peak)
			a->peak = k->tick_power_w;
		if (k->tick_gpus > a->peak_gpus)
			a->peak_gpus = k->tick_gpus;
		double kc = k->cost_usd + (s->series_price ? a->ecost : k->energy_j * pue * price_j) +
		            k->paid_gpu_s * a->extra_rate;
		aiwi_rec_put(sim, a->id_cost, kc);
		emis += a->emis;
		cum += kc;
	}
	site_catch_up(s, sim);
	if (s->hier)
		hierarchy_tick(s, sim);
	if (it > s->peak_it)
		s->peak_it = it;
	if (s->capc)
		capping_tick(s, sim, t, tick_dt, it * pue);
	double grid_it = it; /* what the grid sees, in IT watts */
	double storage_rate = 0; /* USD/s of the battery's net draw */
	if (s->storage) {
		double dt = t - s->tick_t, fac = it * pue;
		double g = aiwi_storage_step(s->storage, fac, dt);
		storage_rate = (g - fac) * price_j;
		s->storage_cost += storage_rate * dt;
		if (s->has_carbon)
			s->storage_emis += (g - fac) * dt / 3.6e6 * carbon_mean(s, s->tick_t, t) / 1000.0;
		grid_it = g / pue;
		aiwi_rec_put(sim, s->id_grid_w, g);
		aiwi_rec_put(sim, s->id_soc, s->storage->soc_j / s->storage->capacity_j);
	}
	s->tick_t = t;
	if (s->grid) {
		aiwi_grid_add(s->grid, t, grid_it, s->causes);
		s->causes = 0;
	}
	double cap = capacity_rate(c) + facility_rate(c);
	aiwi_rec_put(sim, s->id_it, it);
	aiwi_rec_put(sim, s->id_fac, it * pue);
	aiwi_rec_put(sim, s->id_util, paid > 0 ? busy / paid : 0);
	aiwi_rec_put(sim, s->id_cost_rate, rate + (it * pue * price_j + cap + storage_rate) * 3600.0);
	aiwi_rec_put(sim, s->id_cost, cum + cap * t + s->storage_cost);
	if (s->id_kbusy >= 0) {
		aiwi_rec_put(sim, s->id_kbusy, tpaid > 0 ? kb / tpaid : 0);
		aiwi_rec_put(sim, s->id_tensor, tpaid > 0 ? ten / tpaid : 0);
	}
	if (s->has_carbon) { /* the battery's net draw emits too */
		double total = emis + s->storage_emis;
		aiwi_rec_put(sim, s->id_emis_rate,
		             tick_dt > 0 ? (total - s->emis_prev) / tick_dt * 3600 : 0);
		aiwi_rec_put(sim, s->id_emis, total);
		s->emis_prev = total;
	}
}

/* The IT power component k is rated for: its most GPUs at once x the power
 * one GPU is rated for, as the component answers it (TDP + node_nameplate /
 * gpus_per_node); a component that does not know it (a scripted load with
 * no catalog GPU) counts its own peak. */
static double nameplate_w(const aiwi_comp *k, const compacc *a)
{
	aiwi_answer per_gpu;
	if (!(a->peak_gpus > 0) || !aiwi_comp_query(k, AIWI_Q_NAMEPLATE_PER_GPU_W, &per_gpu))
		return a->peak;
	return a->peak_gpus * per_gpu.num;
}

static void site_finish(aiwi_comp *c, double t)
{
	site *s = c->state;
	aiw_sim *sim = c->sim;
	if (!s)
		return;
	site_catch_up(s, sim);
	aiwi_budget_finish(s->budget);
	double pue = aiwi_p(c, P_PUE), price_j = aiwi_p(c, P_PRICE) / 3.6e6;
	double sum_peaks = 0, sum_rack_peaks = 0, racks = 0, energy = 0, hw = 0, idle = 0, bill = 0;
	double busy = 0, paid = 0, nameplate = 0, kbusy = 0, flops = 0, tpaid = 0;
	double net = 0, stor = 0, ecost_sum = 0, emis_sum = 0;
	for (size_t i = 0; i < s->ncomp; i++) {
		aiwi_comp *k = aiwi_comp_at(sim, i);
		if (!k->accounted)
			continue;
		compacc *a = &s->comp[i];
		sum_peaks += a->peak;
		nameplate += nameplate_w(k, a);
		if (a->racks.used) {
			for (size_t r = 0; r < a->racks.used; r++)
				sum_rack_peaks += a->racks.peak[r];
			racks += (double)a->racks.used;
		} else {
			sum_rack_peaks += a->peak; /* one rack */
			racks += 1;
		}
		double ecost = k->energy_j * pue * price_j, kemis = NAN;
		if (s->series_price || s->has_carbon) {
			double pc;
			priced_now(c, s, k, &pc, &kemis);
			if (s->series_price)
				ecost = pc;
		}
		ecost_sum += ecost;
		emis_sum += kemis;
		energy += k->energy_j;
		hw += k->cost_usd;
		idle += a->idle_cost;
		busy += k->busy_gpu_s;
		paid += k->paid_gpu_s;
		aiwi_metric(sim, k->prefix, "power_peak_w", a->peak);
		aiwi_metric(sim, k->prefix, "energy_cost_usd", ecost);
		aiwi_metric(sim, k->prefix, "hardware_cost_usd", k->cost_usd);
		/* paid, not provisioned: a commitment's idle part, or the capacity
		 * an owned autoscaled fleet released (its autoscaler sets it) */
		aiwi_metric(sim, k->prefix, "hardware_bill_usd", k->cost_usd + k->stranded_usd);
		bill += k->cost_usd + k->stranded_usd;
		double knet = k->paid_gpu_s * aiwi_cost_network_rate(k);
		double kstor = k->paid_gpu_s * aiwi_cost_storage_rate(k);
		net += knet;
		stor += kstor;
		aiwi_metric(sim, k->prefix, "network_cost_usd", knet);
		aiwi_metric(sim, k->prefix, "storage_cost_usd", kstor);
		aiwi_metric(sim, k->prefix, "cost_usd", k->cost_usd + ecost + knet + kstor);
		if (s->has_carbon)
			aiwi_metric(sim, k->prefix, "emissions_kg", kemis);
		aiwi_metric(sim, k->prefix, "idle_cost_usd", a->idle_cost);
		aiwi_answer commit;
		if (aiwi_comp_query(k, AIWI_Q_COMMITTED_GPUS, &commit)) { /* a commitment of its own */
			aiwi_metric(sim, k->prefix, "ondemand_excess_gpu_hours", k->excess_gpu_s / 3600);
			aiwi_metric(sim, k->prefix, "ondemand_excess_usd", k->excess_usd);
			aiwi_metric(sim, k->prefix, "commitment_stranded_gpu_hours",
			            k->stranded_gpu_s / 3600);
			aiwi_metric(sim, k->prefix, "commitment_stranded_usd", k->stranded_usd);
		}
		if (k->peak_flop_s > 0) {
			double kp = k->paid_gpu_s;
			aiwi_metric(sim, k->prefix, "kernel_busy", kp > 0 ? k->kbusy_gpu_s / kp : NAN);
			aiwi_metric(sim, k->prefix, "tensor_activity",
			            kp > 0 ? k->flops / (kp * k->peak_flop_s) : NAN);
			kbusy += k->kbusy_gpu_s;
			flops += k->flops / k->peak_flop_s; /* GPU-seconds at peak */
			tpaid += kp;
		}
	}
	double peak_fac = s->peak_it * pue;
	double recommended = peak_fac * (1 + aiwi_p(c, P_MARGIN));
	double energy_cost = s->series_price ? ecost_sum : energy * pue * price_j;
	energy_cost += s->storage_cost; /* the battery's net draw (0 without one) */
	double capacity = aiwi_pset(c, P_CAPACITY) ? aiwi_p(c, P_CAPACITY) : recommended;
	double cap_cost = aiwi_pset(c, P_CAP_PRICE)
	                          ? capacity / 1000.0 * aiwi_p(c, P_CAP_PRICE) * t / SECONDS_PER_MONTH
	                          : 0;
	/* facility capex on the provisioned facility power (site.capacity, or
	 * the recommended provisioning), amortised over facility_life */
	double fac_cost = aiwi_p(c, P_FAC_CAPEX) > 0
	                          ? capacity / 1e6 * aiwi_p(c, P_FAC_CAPEX) / aiwi_p(c, P_FAC_LIFE) * t
	                          : 0;
	double total = hw + energy_cost + cap_cost;
	total += net + stor + fac_cost;
	aiwi_metric(sim, "site", "power_peak_w", s->peak_it);
	aiwi_metric(sim, "site", "facility_power_peak_w", peak_fac);
	aiwi_metric(sim, "site", "power_mean_w", t > 0 ? energy / t : NAN);
	aiwi_metric(sim, "site", "load_factor", s->peak_it > 0 && t > 0 ? energy / t / s->peak_it : NAN);
	aiwi_metric(sim, "site", "sum_of_peaks_w", sum_peaks);
	aiwi_metric(sim, "site", "diversity_factor", s->peak_it > 0 ? sum_peaks / s->peak_it : NAN);
	aiwi_metric(sim, "site", "sum_of_rack_peaks_w", sum_rack_peaks);
	aiwi_metric(sim, "site", "rack_diversity_factor",
	            s->peak_it > 0 ? sum_rack_peaks / s->peak_it : NAN);
	aiwi_metric(sim, "site", "racks", racks);
	aiwi_metric(sim, "site", "provisioned_power_w", recommended);
	aiwi_metric(sim, "site", "nameplate_power_w", nameplate);
	aiwi_metric(sim, "site", "facility_nameplate_power_w", nameplate * pue);
	if (aiwi_pset(c, P_CAPACITY)) {
		aiwi_metric(sim, "site", "capacity_headroom_w", capacity - peak_fac);
		/* not capped (the run's loads are what they are): said, not hidden;
		 * with storage, what the grid drew */
		if (s->storage)
			peak_fac = s->storage->grid_peak_w;
		if (peak_fac > capacity && s->capc)
			aiwi_warn(sim,
			          "site.capacity %.4g kW exceeded: facility power peak %.4g kW "
			          "(headroom %.4g kW); site.capping held it above for %g s "
			          "(capping_over_limit_s)",
			          capacity / 1e3, peak_fac / 1e3, (capacity - peak_fac) / 1e3,
			          s->cap_over_limit_s);
		else if (peak_fac > capacity)
			aiwi_warn(sim,
			          "site.capacity %.4g kW exceeded: facility power peak %.4g kW "
			          "(headroom %.4g kW); the run does not cap the load, its figures "
			          "assume the power was there",
			          capacity / 1e3, peak_fac / 1e3, (capacity - peak_fac) / 1e3);
	}
	aiwi_metric(sim, "site", "energy_kwh", energy / 3.6e6);
	aiwi_metric(sim, "site", "facility_energy_kwh", energy * pue / 3.6e6);
	aiwi_metric(sim, "site", "energy_cost_usd", energy_cost);
	if (s->series_price) { /* over what the grid delivered */
		double bj = s->storage ? s->storage->grid_j - s->storage->demand_j : 0;
		aiwi_metric(sim, "site", "energy_price_mean_usd_per_kwh",
		            energy > 0 ? energy_cost / ((energy * pue + bj) / 3.6e6) : NAN);
	}
	if (s->has_carbon) {
		/* the battery's net draw included (0 without one) */
		double bj = s->storage ? s->storage->grid_j - s->storage->demand_j : 0;
		aiwi_metric(sim, "site", "emissions_kg", emis_sum + s->storage_emis);
		aiwi_metric(sim, "site", "carbon_intensity_mean_g_per_kwh",
		            energy > 0 ? (emis_sum + s->storage_emis) * 1000.0 /
		                                 ((energy * pue + bj) / 3.6e6)
		                       : NAN);
	}
	aiwi_metric(sim, "site", "hardware_cost_usd", hw);
	aiwi_metric(sim, "site", "hardware_bill_usd", bill);
	aiwi_metric(sim, "site", "capacity_cost_usd", cap_cost);
	aiwi_metric(sim, "site", "network_cost_usd", net);
	aiwi_metric(sim, "site", "storage_cost_usd", stor);
	aiwi_metric(sim, "site", "facility_cost_usd", fac_cost);
	aiwi_metric(sim, "site", "cost_usd", total);
	aiwi_metric(sim, "site", "bill_usd", total + (bill - hw));
	aiwi_metric(sim, "site", "idle_cost_usd", idle);
	aiwi_metric(sim, "site", "gpu_hours", paid / 3600.0);
	aiwi_metric(sim, "site", "busy_gpu_hours", busy / 3600.0);
	aiwi_metric(sim, "site", "utilization", paid > 0 ? busy / paid : NAN);
	/* each the mean of one figure over the components that keep it,
	 * weighted by their provisioned GPU-seconds */
	if (s->id_kbusy >= 0) {
		aiwi_metric(sim, "site", "kernel_busy", tpaid > 0 ? kbusy / tpaid : NAN);
		aiwi_metric(sim, "site", "tensor_activity", tpaid > 0 ? flops / tpaid : NAN);
	}
	aiwi_metric(sim, "site", "cost_per_gpu_hour_usd", paid > 0 ? total / (paid / 3600.0) : NAN);
	if (s->storage) {
		const aiwi_storage *b = s->storage;
		aiwi_metric(sim, "site", "grid_power_peak_w", b->grid_peak_w);
		aiwi_metric(sim, "site", "grid_energy_kwh", b->grid_j / 3.6e6);
		aiwi_metric(sim, "site", "storage_charged_kwh", b->charged_j / 3.6e6);
		aiwi_metric(sim, "site", "storage_discharged_kwh", b->discharged_j / 3.6e6);
		aiwi_metric(sim, "site", "storage_losses_kwh", b->loss_j / 3.6e6);
		aiwi_metric(sim, "site", "storage_charge_min", b->soc_min_j / b->capacity_j);
		aiwi_metric(sim, "site", "storage_charge_max", b->soc_max_j / b->capacity_j);
		aiwi_metric(sim, "site", "storage_charge_end", b->soc_j / b->capacity_j);
		aiwi_metric(sim, "site", "storage_over_limit_s", b->over_s);
		aiwi_metric(sim, "site", "storage_energy_cost_usd", s->storage_cost);
	}
	if (s->capc) {
		aiwi_metric(sim, "site", "capping_events", (double)s->capc->cap_events);
		aiwi_metric(sim, "site", "capping_releases", (double)s->capc->release_events);
		aiwi_metric(sim, "site", "capping_throttled_gpu_hours", s->cap_throttled_gpu_s / 3600);
		aiwi_metric(sim, "site", "capping_over_limit_s",
		            isfinite(s->cap_limit) ? s->cap_over_limit_s : NAN);
		aiwi_metric(sim, "site", "capping_over_high_s", s->cap_over_high_s);
	}
	if (s->dr_on) {
		double n = s->dr_events, pw = s->dr_time_s > 0 ? s->dr_energy_j / s->dr_time_s : NAN;
		double base = n > 0 ? s->dr_baseline_sum / n : NAN;
		aiwi_metric(sim, "site", "demand_response_events", n);
		aiwi_metric(sim, "site", "demand_response_baseline_w", base);
		aiwi_metric(sim, "site", "demand_response_target_w", n > 0 ? s->dr_target_sum / n : NAN);
		aiwi_metric(sim, "site", "demand_response_power_w", pw);
		aiwi_metric(sim, "site", "demand_response_reduction_w", base - pw);
		aiwi_metric(sim, "site", "demand_response_over_target_s", s->dr_over_s);
	}
	if (s->grid)
		aiwi_grid_publish(s->grid, sim);
	if (s->hier) {
		double rows = 0, halls = 0;
		for (size_t r = 0; r < s->nrows; r++)
			rows += s->row_peak[r];
		for (size_t h = 0; h < s->nhalls; h++)
			halls += s->hall_peak[h];
		aiwi_metric(sim, "site", "rows", (double)s->nrows);
		aiwi_metric(sim, "site", "halls", (double)s->nhalls);
		aiwi_metric(sim, "site", "sum_of_row_peaks_w", rows);
		aiwi_metric(sim, "site", "sum_of_hall_peaks_w", halls);
		aiwi_metric(sim, "site", "diversity_racks_in_rows", rows > 0 ? sum_rack_peaks / rows : NAN);
		aiwi_metric(sim, "site", "diversity_rows_in_halls", halls > 0 ? rows / halls : NAN);
		aiwi_metric(sim, "site", "diversity_halls_in_site",
		            s->peak_it > 0 ? halls / s->peak_it : NAN);
		aiwi_metric(sim, "site", "rack_peaks_to_nameplate",
		            nameplate > 0 ? sum_rack_peaks / nameplate : NAN);
		aiwi_metric(sim, "site", "row_peaks_to_nameplate", nameplate > 0 ? rows / nameplate : NAN);
		aiwi_metric(sim, "site", "hall_peaks_to_nameplate",
		            nameplate > 0 ? halls / nameplate : NAN);
		aiwi_metric(sim, "site", "site_peak_to_nameplate",
		            nameplate > 0 ? s->peak_it / nameplate : NAN);
	}
}

/* The site's share of the up-front estimate, after every other component's
 * (it is the aggregator): its fixed state (8 KiB, as the core counts a
 * kind with no estimate hook) and a running peak, 8 B, per rack the
 * components reported (aiwi_est_racks). */
static void site_estimate(aiwi_comp *c, aiwi_estimate *E)
{
	char a[64], b[64];
	double racks = aiwi_est_site_racks(E);
	aiwi_est_memory(E, 8.0 * 1024, "", "%s", "");
	aiwi_est_memory(E, 8 * racks, "raise site.gpus_per_rack",
	                "the site: about @ bytes for %s racks of %s GPUs",
	                aiwi_est_num(a, sizeof a, racks),
	                aiwi_est_num(b, sizeof b, aiwi_p(c, P_GPUS_PER_RACK)));
	if (aiwi_pset(c, P_RACKS_PER_ROW)) /* a tick power per rack, sums and peaks per row */
		aiwi_est_memory(E, 8 * racks + 32 * ceil(racks / aiwi_p(c, P_RACKS_PER_ROW)),
		                "raise site.gpus_per_rack",
		                "the site's rows: about @ bytes for %s racks",
		                aiwi_est_num(a, sizeof a, racks));
	if (aiwi_p(c, P_GRID) == 1) {
		aiwi_grid_conf g;
		grid_conf(c, &g);
		aiwi_est_memory(E, aiwi_grid_bytes(&g),
		                "lower site.grid_welch_segment or the ramp windows, or raise "
		                "sim.sample_interval",
		                "the grid statistics: about @ bytes (windows of up to %s samples, "
		                "Welch segments of %s)",
		                aiwi_est_num(a, sizeof a,
		                             fmax(fmax(g.window[0], g.window[1]),
		                                  fmax(g.window[2], g.drop_window)) / g.dt),
		                aiwi_est_num(b, sizeof b, (double)g.segment));
	}
}

static void site_destroy(aiwi_comp *c)
{
	site *s = c->state;
	for (size_t i = 0; s->comp && i < s->ncomp; i++) {
		free(s->comp[i].racks.peak);
		free(s->comp[i].racks.now);
	}
	free(s->row_now);
	free(s->row_peak);
	free(s->hall_now);
	free(s->hall_peak);
	free(s->comp);
	aiwi_grid_free(s->grid);
	aiwi_budget_free(s->budget);
	free(s->storage);
	free(s->capc);
	free(s->cap_group);
	aiwi_tseries_free(&s->price);
	aiwi_tseries_free(&s->carbon);
	free(s);
	c->state = NULL;
}

static const aiwi_metric_def SITE_METRICS[] = {
	{"power_peak_w", "IT power peak", "W", AIW_METRIC_HEADLINE,
	 "peak of the site IT power curve (sum of the components at each sample)", NULL, NULL, NULL, NULL},
	{"facility_power_peak_w", "Facility power peak", "W", AIW_METRIC_HEADLINE,
	 "IT power peak x PUE", NULL, NULL, NULL, NULL},
	{"power_mean_w", "Mean IT power", "W", 0,
	 "IT energy / simulated time", NULL, NULL, NULL, NULL},
	{"load_factor", "Load factor (mean / peak)", "1", AIW_METRIC_FRACTION,
	 "mean IT power / IT power peak", NULL, NULL, NULL, NULL},
	{"sum_of_peaks_w", "Sum of component peaks", "W", AIW_METRIC_HEADLINE,
	 "sum of the components' individual IT power peaks", NULL, NULL, NULL, NULL},
	{"diversity_factor", "Diversity factor", "1", AIW_METRIC_HEADLINE | AIW_METRIC_RATIO,
	 "sum of the component peaks / peak of the sum (1: the peaks coincide)", NULL, NULL, NULL, NULL},
	{"sum_of_rack_peaks_w", "Sum of rack peaks", "W", 0,
	 "sum of every rack's own IT power peak", NULL, NULL, NULL, NULL},
	{"rack_diversity_factor", "Rack diversity factor", "1", AIW_METRIC_HEADLINE | AIW_METRIC_RATIO,
	 "sum of the rack peaks / site IT power peak", NULL, NULL, NULL, NULL},
	{"racks", "Racks", "1", AIW_METRIC_COUNT,
	 "racks of site.gpus_per_rack GPUs over all components", NULL, NULL, NULL, NULL},
	{"provisioned_power_w", "Provisioned power (recommended)", "W", AIW_METRIC_HEADLINE,
	 "facility power peak x (1 + site.provisioning_margin)", NULL, NULL, NULL, NULL},
	{"nameplate_power_w", "IT nameplate power", "W", AIW_METRIC_HEADLINE,
	 "sum over components of their most GPUs x (TDP + node_nameplate / gpus_per_node); "
	 "scripted loads: their peak (what rated provisioning reserves, beside power_peak_w)",
	 NULL, NULL, NULL, NULL},
	{"facility_nameplate_power_w", "Facility nameplate power", "W", AIW_METRIC_HEADLINE,
	 "IT nameplate power x PUE: nameplate provisioning, to compare with provisioned_power_w",
	 NULL, NULL, NULL, NULL},
	{"capacity_headroom_w", "Capacity headroom", "W", AIW_METRIC_HEADLINE,
	 "site.capacity - facility power peak (negative: the contract is exceeded)", NULL, NULL, NULL, NULL},
	{"kernel_busy", "GPU busy (kernel-busy, nvidia-smi)", "1",
	 AIW_METRIC_HEADLINE | AIW_METRIC_FRACTION,
	 "kernel-busy GPU-seconds / provisioned GPU-seconds of the components that model it "
	 "(inference and training): nvidia-smi's utilization.gpu, GPU-weighted", NULL, NULL, NULL,
	 NULL},
	{"tensor_activity", "Tensor activity (FLOPs/peak, DCGM)", "1",
	 AIW_METRIC_HEADLINE | AIW_METRIC_FRACTION,
	 "hardware FLOPs / (provisioned GPU-seconds x peak FLOP/s) of the components that model "
	 "it: DCGM's tensor-pipe activity, GPU-weighted", NULL, NULL, NULL, NULL},
	{"utilization", "Useful-work time (each kind's busy)", "1", AIW_METRIC_FRACTION,
	 "busy GPU-seconds / provisioned GPU-seconds over the run, busy as each kind counts useful "
	 "work (inference: a request in the batch; training: compute only); unlike figures summed, "
	 "see kernel_busy and tensor_activity", NULL, NULL, NULL, NULL},
	{"gpu_hours", "GPU-hours provisioned", "h", AIW_METRIC_COUNT,
	 "provisioned (paid) GPU-hours", NULL, NULL, NULL, NULL},
	{"busy_gpu_hours", "GPU-hours busy", "h", AIW_METRIC_COUNT,
	 "GPU-hours doing useful work", NULL, NULL, NULL, NULL},
	{"energy_kwh", "IT energy", "kWh", AIW_METRIC_HEADLINE,
	 "IT energy of every component", NULL, NULL, NULL, NULL},
	{"facility_energy_kwh", "Facility energy", "kWh", AIW_METRIC_HEADLINE,
	 "IT energy x PUE", NULL, NULL, NULL, NULL},
	{"energy_cost_usd", "Energy cost", "USD", 0,
	 "facility energy x site.electricity_price, or with a price series each sample "
	 "interval's facility energy x its mean price", NULL, NULL, NULL, NULL},
	{"energy_price_mean_usd_per_kwh", "Mean electricity price paid", "USD/kWh", 0,
	 "a price series set (site.electricity_price_daily or _file): energy_cost_usd / facility "
	 "energy, the energy-weighted mean price", NULL, NULL, NULL, NULL},
	{"emissions_kg", "Emissions (CO2e)", "kg", AIW_METRIC_HEADLINE,
	 "site.carbon_intensity (or its series) set: facility energy x the grid carbon intensity, "
	 "each sample interval at its mean intensity", NULL, NULL, NULL, NULL},
	{"carbon_intensity_mean_g_per_kwh", "Mean carbon intensity", "g/kWh", 0,
	 "site.carbon_intensity set: emissions_kg / facility energy, the energy-weighted mean "
	 "intensity", NULL, NULL, NULL, NULL},
	{"hardware_cost_usd", "Hardware cost", "USD", 0,
	 "sum of the components' hardware_cost_usd: provisioned GPU-seconds at their price "
	 "(amortised purchase price, or rent)", NULL, NULL, NULL, NULL},
	{"hardware_bill_usd", "Hardware bill (stranded included)", "USD", 0,
	 "sum of the components' hardware_bill_usd: hardware_cost_usd plus the GPUs paid but "
	 "not provisioned (unused commitments, owned capacity released by autoscaling)",
	 NULL, NULL, NULL, NULL},
	{"capacity_cost_usd", "Capacity cost", "USD", 0,
	 "contracted facility power x site.capacity_price", NULL, NULL, NULL, NULL},
	{"network_cost_usd", "Network cost", "USD", 0,
	 "sum of the components' network_cost_usd (network_price per GPU amortised)",
	 NULL, NULL, NULL, NULL},
	{"storage_cost_usd", "Storage cost", "USD", 0,
	 "sum of the components' storage_cost_usd (storage_price per GPU amortised)",
	 NULL, NULL, NULL, NULL},
	{"facility_cost_usd", "Facility cost", "USD", 0,
	 "provisioned facility power (site.capacity, else provisioned_power_w) in MW x "
	 "site.facility_capex / site.facility_life x run time", NULL, NULL, NULL, NULL},
	{"idle_cost_usd", "Hardware cost of paid time with no useful work", "USD", 0,
	 "hardware cost of the provisioned GPU-seconds that did no useful work", NULL, NULL, NULL, NULL},
	{"cost_usd", "Total cost", "USD", AIW_METRIC_HEADLINE,
	 "hardware, network, storage, energy, capacity and facility cost (the hardware's "
	 "provisioned GPU-seconds: capacity paid but stranded is in bill_usd)", NULL, NULL, NULL, NULL},
	{"bill_usd", "  with stranded capacity (bill)", "USD", AIW_METRIC_HEADLINE,
	 "cost_usd plus the GPUs paid but not provisioned (unused commitments, owned capacity "
	 "released by autoscaling): hardware_bill_usd - hardware_cost_usd more", NULL, NULL, NULL, NULL},
	{"cost_per_gpu_hour_usd", "Cost per GPU-hour", "USD", 0,
	 "total cost / provisioned GPU-hours", NULL, NULL, NULL, NULL},
	{"rows", "Rows", "1", AIW_METRIC_COUNT,
	 "site.racks_per_row set: rows the racks filled, in component order (a component that "
	 "reports no racks is one rack)", NULL, NULL, NULL, NULL},
	{"halls", "Halls", "1", AIW_METRIC_COUNT,
	 "site.racks_per_row set: halls of site.rows_per_hall rows (1 when unset)", NULL, NULL,
	 NULL, NULL},
	{"sum_of_row_peaks_w", "Sum of row peaks", "W", 0,
	 "site.racks_per_row set: sum of every row's own IT power peak (its racks' sum at each "
	 "sample)", NULL, NULL, NULL, NULL},
	{"sum_of_hall_peaks_w", "Sum of hall peaks", "W", 0,
	 "site.racks_per_row set: sum of every hall's own IT power peak", NULL, NULL, NULL, NULL},
	{"diversity_racks_in_rows", "Diversity: racks within rows", "1", AIW_METRIC_RATIO,
	 "site.racks_per_row set: sum of the rack peaks / sum of the row peaks", NULL, NULL, NULL,
	 NULL},
	{"diversity_rows_in_halls", "Diversity: rows within halls", "1", AIW_METRIC_RATIO,
	 "site.racks_per_row set: sum of the row peaks / sum of the hall peaks", NULL, NULL, NULL,
	 NULL},
	{"diversity_halls_in_site", "Diversity: halls within the site", "1", AIW_METRIC_RATIO,
	 "site.racks_per_row set: sum of the hall peaks / site IT power peak (the three "
	 "multiply to rack_diversity_factor)", NULL, NULL, NULL, NULL},
	{"rack_peaks_to_nameplate", "Rack peaks / nameplate", "1", AIW_METRIC_FRACTION,
	 "site.racks_per_row set: sum of the rack peaks / nameplate_power_w, the share of the "
	 "nameplate the rack feeds must carry", NULL, NULL, NULL, NULL},
	{"row_peaks_to_nameplate", "Row peaks / nameplate", "1", AIW_METRIC_FRACTION,
	 "site.racks_per_row set: sum of the row peaks / nameplate_power_w", NULL, NULL, NULL,
	 NULL},
	{"hall_peaks_to_nameplate", "Hall peaks / nameplate", "1", AIW_METRIC_FRACTION,
	 "site.racks_per_row set: sum of the hall peaks / nameplate_power_w", NULL, NULL, NULL,
	 NULL},
	{"site_peak_to_nameplate", "Site peak / nameplate", "1", AIW_METRIC_FRACTION,
	 "site.racks_per_row set: power_peak_w / nameplate_power_w", NULL, NULL, NULL, NULL},
	{"grid_power_peak_w", "Grid draw peak (after storage)", "W", AIW_METRIC_HEADLINE,
	 "site.storage on: the peak of the facility power the grid draws, the battery's "
	 "discharge taken off and its charging added (site.grid_power_w)", NULL, NULL, NULL, NULL},
	{"grid_energy_kwh", "Grid energy (after storage)", "kWh", 0,
	 "site.storage on: energy the grid delivered up to the last sample: facility energy + "
	 "charged - discharged", NULL, NULL, NULL, NULL},
	{"storage_charged_kwh", "Storage: energy charged", "kWh", 0,
	 "site.storage on: energy drawn from the grid into the battery", NULL, NULL, NULL, NULL},
	{"storage_discharged_kwh", "Storage: energy discharged", "kWh", 0,
	 "site.storage on: energy the battery gave the site", NULL, NULL, NULL, NULL},
	{"storage_losses_kwh", "Storage: losses", "kWh", 0,
	 "site.storage on: (1 - sqrt(eff)) charged + (1 / sqrt(eff) - 1) discharged, eff the "
	 "round-trip efficiency", NULL, NULL, NULL, NULL},
	{"storage_charge_min", "Storage: lowest charge", "1", AIW_METRIC_FRACTION,
	 "site.storage on: the lowest state of charge at a sample, a fraction of capacity", NULL,
	 NULL, NULL, NULL},
	{"storage_charge_max", "Storage: highest charge", "1", AIW_METRIC_FRACTION,
	 "site.storage on: the highest state of charge at a sample", NULL, NULL, NULL, NULL},
	{"storage_charge_end", "Storage: charge at the end", "1", AIW_METRIC_FRACTION,
	 "site.storage on: the state of charge at the last sample", NULL, NULL, NULL, NULL},
	{"storage_over_limit_s", "Storage: time over its limit", "s", AIW_METRIC_HEADLINE,
	 "site.storage on: sample intervals in which the grid drew above storage_grid_limit "
	 "(peak_shaving) or changed faster than storage_ramp_limit (ramp_limit): the battery "
	 "was empty, full or at its power rating", NULL, NULL, NULL, NULL},
	{"storage_energy_cost_usd", "Storage: energy cost of its net draw", "USD", 0,
	 "site.storage on: (charged - discharged) at each interval's price, in energy_cost_usd",
	 NULL, NULL, NULL, NULL},
	{"capping_events", "Capping: caps lowered", "1", AIW_METRIC_COUNT,
	 "site.capping = on: the controller's actions lowering a group's cap by one level",
	 NULL, NULL, NULL, NULL},
	{"capping_releases", "Capping: caps raised", "1", AIW_METRIC_COUNT,
	 "site.capping = on: its actions raising a group's cap by one level", NULL, NULL, NULL,
	 NULL},
	{"capping_throttled_gpu_hours", "Capping: GPU-hours under its cap", "h", AIW_METRIC_HEADLINE,
	 "site.capping = on: GPU-hours of the components while the controller capped them "
	 "(their provisioned GPUs x the sample intervals after the cap was set)", NULL, NULL,
	 NULL, NULL},
	{"capping_over_limit_s", "Capping: time over site.capacity", "s", AIW_METRIC_HEADLINE,
	 "site.capping = on: sample intervals whose facility power was above site.capacity",
	 NULL, NULL, NULL, NULL},
	{"capping_over_high_s", "Capping: time over the high threshold", "s", 0,
	 "site.capping = on: sample intervals whose facility power was above the high threshold "
	 "then in force (lowered by a demand-response event)", NULL, NULL, NULL, NULL},
	{"demand_response_events", "Demand response: events", "1", AIW_METRIC_COUNT,
	 "site.demand_response_start set: events announced", NULL, NULL, NULL, NULL},
	{"demand_response_baseline_w", "Demand response: baseline", "W", 0,
	 "mean over the events of the facility power's interval average at each announcement",
	 NULL, NULL, NULL, NULL},
	{"demand_response_target_w", "Demand response: target", "W", 0,
	 "mean over the events of the facility power asked for: baseline less the reduction",
	 NULL, NULL, NULL, NULL},
	{"demand_response_power_w", "Demand response: mean power in the windows", "W",
	 AIW_METRIC_HEADLINE,
	 "facility energy in the events' windows / their length (interval averages; exact when "
	 "the windows start and end on sample ticks)", NULL, NULL, NULL, NULL},
	{"demand_response_reduction_w", "Demand response: reduction delivered", "W",
	 AIW_METRIC_HEADLINE,
	 "demand_response_baseline_w - demand_response_power_w", NULL, NULL, NULL, NULL},
	{"demand_response_over_target_s", "Demand response: time above target", "s", 0,
	 "time in the windows whose interval's facility power was above the target", NULL, NULL,
	 NULL, NULL},
	{"grid_ramp_1_max_w_per_s", "Grid: ramp max (window 1)", "W/s", AIW_METRIC_HEADLINE,
	 "site.grid = on: the largest |P(t) - P(t - w)| / w of the IT power curve, w = "
	 "site.grid_ramp_window_1 in whole sample intervals (x 1e-6: MW/s; x 6e-5: MW/min)",
	 NULL, NULL, NULL, NULL},
	{"grid_ramp_1_p99_w_per_s", "Grid: ramp P99 (window 1)", "W/s", 0,
	 "site.grid = on: the 99th percentile of those ramps over the samples (P-square "
	 "estimate, GSL gsl_rstat_quantile)", NULL, NULL, NULL, NULL},
	{"grid_ramp_2_max_w_per_s", "Grid: ramp max (window 2)", "W/s", AIW_METRIC_HEADLINE,
	 "site.grid = on: as grid_ramp_1_max_w_per_s over site.grid_ramp_window_2", NULL, NULL,
	 NULL, NULL},
	{"grid_ramp_2_p99_w_per_s", "Grid: ramp P99 (window 2)", "W/s", 0,
	 "site.grid = on: as grid_ramp_1_p99_w_per_s over site.grid_ramp_window_2", NULL, NULL,
	 NULL, NULL},
	{"grid_ramp_3_max_w_per_s", "Grid: ramp max (window 3)", "W/s", AIW_METRIC_HEADLINE,
	 "site.grid = on: as grid_ramp_1_max_w_per_s over site.grid_ramp_window_3", NULL, NULL,
	 NULL, NULL},
	{"grid_ramp_3_p99_w_per_s", "Grid: ramp P99 (window 3)", "W/s", 0,
	 "site.grid = on: as grid_ramp_1_p99_w_per_s over site.grid_ramp_window_3", NULL, NULL,
	 NULL, NULL},
	{"grid_step_up_max_w", "Grid: largest load step up", "W", AIW_METRIC_HEADLINE,
	 "site.grid = on: the largest rise of the IT power curve from one sample to the next",
	 NULL, NULL, NULL, NULL},
	{"grid_step_up_time_s", "Grid: time of that step up", "s", 0,
	 "site.grid = on: the end of the sample interval it ended in (NaN: none)", NULL, NULL,
	 NULL, NULL},
	{"grid_step_down_max_w", "Grid: largest load step down", "W", AIW_METRIC_HEADLINE,
	 "site.grid = on: the largest fall of the IT power curve from one sample to the next",
	 NULL, NULL, NULL, NULL},
	{"grid_step_down_time_s", "Grid: time of that step down", "s", 0,
	 "site.grid = on: the end of the sample interval it ended in (NaN: none)", NULL, NULL,
	 NULL, NULL},
	{"grid_step_max_w_job_start", "Grid: largest step at a job start", "W", 0,
	 "site.grid = on: the largest rise or fall between two samples when a training job "
	 "started in either interval (0: none)", NULL, NULL, NULL, NULL},
	{"grid_step_max_w_job_stop", "Grid: largest step at a job end", "W", 0,
	 "site.grid = on: as grid_step_max_w_job_start, a training job ending", NULL, NULL, NULL,
	 NULL},
	{"grid_step_max_w_checkpoint", "Grid: largest step at a checkpoint", "W",
	 AIW_METRIC_HEADLINE,
	 "site.grid = on: as grid_step_max_w_job_start, a checkpoint write starting or ending",
	 NULL, NULL, NULL, NULL},
	{"grid_step_max_w_failure", "Grid: largest step at a failure", "W", AIW_METRIC_HEADLINE,
	 "site.grid = on: as grid_step_max_w_job_start, a training job's GPU or a serving "
	 "replica failing", NULL, NULL, NULL, NULL},
	{"grid_step_max_w_restart", "Grid: largest step at a restart", "W", 0,
	 "site.grid = on: as grid_step_max_w_job_start, a job resuming after a failure", NULL,
	 NULL, NULL, NULL},
	{"grid_step_max_w_scale_up", "Grid: largest step at a scale-up", "W", 0,
	 "site.grid = on: as grid_step_max_w_job_start, serving replicas added or ready", NULL,
	 NULL, NULL, NULL},
	{"grid_step_max_w_scale_down", "Grid: largest step at a scale-down", "W", 0,
	 "site.grid = on: as grid_step_max_w_job_start, serving replicas removed", NULL, NULL,
	 NULL, NULL},
	{"grid_step_max_w_preemption", "Grid: largest step at a preemption", "W", 0,
	 "site.grid = on: as grid_step_max_w_job_start, spot replicas reclaimed", NULL, NULL,
	 NULL, NULL},
	{"grid_step_max_w_load", "Grid: largest step with no event", "W", 0,
	 "site.grid = on: the largest step between two samples when no model reported an event "
	 "in either interval: the load itself (traffic, steps, batches)", NULL, NULL, NULL, NULL},
	{"grid_drop_max_fraction", "Grid: deepest load drop", "1", AIW_METRIC_FRACTION,
	 "site.grid = on: the largest (M - P) / M, P a sample of the IT power curve and M the "
	 "highest of the samples within site.grid_drop_window before it", NULL, NULL, NULL, NULL},
	{"grid_drop_events", "Grid: load drop events", "1", AIW_METRIC_COUNT,
	 "site.grid = on and site.grid_drop_fraction set: times the curve fell more than that "
	 "fraction below its highest sample within site.grid_drop_window (an event lasts while "
	 "it stays so)", NULL, NULL, NULL, NULL},
	{"grid_spectrum_segments", "Grid: Welch segments averaged", "1", AIW_METRIC_COUNT,
	 "site.grid = on: segments of site.grid_welch_segment samples (50 % overlap) in the "
	 "spectrum", NULL, NULL, NULL, NULL},
	{"grid_band_share", "Grid: spectrum share in band", "1", AIW_METRIC_FRACTION,
	 "site.grid = on: the IT power's fluctuation energy (Welch spectrum, mean removed) in "
	 "site.grid_band_low-grid_band_high / all of it up to the Nyquist frequency; NaN when "
	 "the sample interval or segment cannot see the band", NULL, NULL, NULL, NULL},
	{"grid_band_rms_w", "Grid: RMS swing in band", "W", 0,
	 "site.grid = on: square root of the spectrum's power in that band (the RMS amplitude "
	 "of the swings there)", NULL, NULL, NULL, NULL},
	{"grid_dominant_frequency_hz", "Grid: dominant frequency", "1/s", 0,
	 "site.grid = on: frequency (Hz) of the spectrum's highest bin above 0", NULL, NULL, NULL,
	 NULL},
	{"budget_gpus", "GPU budget", "1", 0,
	 "site.gpu_budget set: the GPUs shared by the serving fleets", NULL, NULL, NULL, NULL},
	{"budget_peak_gpus", "GPU budget: peak GPUs held", "1", AIW_METRIC_HEADLINE,
	 "site.gpu_budget set: the most GPUs the fleets held together, at every arbitration and "
	 "sample (never above budget_gpus)", NULL, NULL, NULL, NULL},
	{"budget_decisions", "GPU budget: arbitrations", "1", AIW_METRIC_COUNT,
	 "site.gpu_budget set: instants at which scale-ups were arbitrated", NULL, NULL, NULL,
	 NULL},
	{"budget_denied_scaleups", "GPU budget: scale-ups denied", "1", AIW_METRIC_COUNT,
	 "site.gpu_budget set: scale-up requests denied in whole or in part, every fleet (a fleet "
	 "denied asks again at its next decision: each counts)", NULL, NULL, NULL, NULL},
	{"budget_denied_gpus", "GPU budget: GPUs denied", "1", 0,
	 "site.gpu_budget set: GPUs asked and not granted, summed over the denied scale-ups",
	 NULL, NULL, NULL, NULL},
	{NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL},
};

static const aiwi_curve_def SITE_CURVES[] = {
	{"power_w", "W", "site_power_watts", NULL, AIWI_CURVE_GAUGE, false, false,
	 "IT power of the whole site (W)"},
	{"facility_power_w", "W", "site_facility_power_watts", NULL, AIWI_CURVE_GAUGE, false, false,
	 "facility power of the site: IT power x PUE (W)"},
	{"utilization", "1", "site_gpu_utilization", NULL, AIWI_CURVE_GAUGE, false, false,
	 "useful-work GPU-seconds / provisioned GPU-seconds over the whole site, busy as each kind "
	 "counts it (0-1)"},
	{"kernel_busy", "1", "site_gpu_kernel_busy_ratio", NULL, AIWI_CURVE_GAUGE, false, false,
	 "kernel-busy GPU-seconds / provisioned GPU-seconds over the components that model it "
	 "(0-1, as nvidia-smi)"},
	{"tensor_activity", "1", "site_gpu_tensor_activity_ratio", NULL, AIWI_CURVE_GAUGE, false,
	 false, "GPU-weighted tensor activity over the components that model it (0-1, as DCGM)"},
	{"cost_rate_usd_per_h", "USD/h", NULL, NULL, 0, false, false,
	 "cost rate of the site over the interval: hardware, network, storage, energy, capacity "
	 "and facility (USD/h; facility and capacity only when site.capacity is set)"},
	{"cost_usd", "USD", NULL, NULL, 0, false, false,
	 "cumulative cost of the site since the start (USD)"},
	{"electricity_price_usd_per_kwh", "USD/kWh", "site_electricity_price_usd_per_kwh", NULL,
	 AIWI_CURVE_GAUGE, false, false,
	 "with a price series: the electricity price, mean over the interval (USD/kWh)"},
	{"emissions_rate_kg_per_h", "kg/h", "site_emissions_rate_kg_per_hour", NULL,
	 AIWI_CURVE_GAUGE, false, false,
	 "with site.carbon_intensity: CO2e emitted per hour over the interval (kg/h)"},
	{"emissions_kg", "kg", "site_emissions_kg", NULL, AIWI_CURVE_COUNTER, false, false,
	 "with site.carbon_intensity: CO2e emitted since the start (kg)"},
	{"grid_power_w", "W", "site_grid_power_watts", NULL, AIWI_CURVE_GAUGE, false, false,
	 "with site.storage: facility power the grid draws after the battery (W)"},
	{"storage_charge", "1", "site_storage_charge_ratio", NULL, AIWI_CURVE_GAUGE, false, false,
	 "with site.storage: the battery's state of charge (0-1)"},
	{"capping_cap", "1", "site_capping_cap_ratio", NULL, AIWI_CURVE_GAUGE, false, false,
	 "with site.capping: the deepest cap the controller holds after the tick, a fraction "
	 "of the TDP (1: none)"},
	{NULL, NULL, NULL, NULL, 0, false, false, NULL},
};

const aiwi_kind aiwi_kind_site = {
	.metrics = SITE_METRICS,
	.curves = SITE_CURVES,
	.name = "site",
	.params = aiwi_site_params,
	.nparams = P_NPARAMS,
	.flags = AIWI_KIND_SINGLETON | AIWI_KIND_AGGREGATOR,
	.estimate = site_estimate,
	.start = site_start,
	.sample = site_sample,
	.finish = site_finish,
	.destroy = site_destroy,
	.modes = aiwi_site_modes,
};
