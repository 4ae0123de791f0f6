/*
 * power.c - the site: sums the components' power into site curves, tracks
 * peaks and gives the electrical diversity factor and the cost of a run;
 * the scripted `load` kind; the training-share diversity sweep.
 *
 * Diversity factor ("facteur de foisonnement") = sum of the individual peaks
 * / peak of the sum, at component level (each component's IT power) and at
 * rack level (each rack the models report through aiw_site_rack_power; a
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
#include "cost.h"
#include "hw.h"
#include "internal.h"
#include "power.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SECONDS_PER_MONTH 2629800.0 /* 365.25 / 12 days */

double aiw_power_fan(double idle, double busy, double u, int curve)
{
	if (!(u > 0))
		u = 0;
	else if (u > 1)
		u = 1;
	double f = curve == AIW_POWER_FAN ? 2 * u - pow(u, 1.4) : u;
	return idle + (busy - idle) * f;
}

enum {
	P_PUE,
	P_PRICE,
	P_GPUS_PER_RACK,
	P_MARGIN,
	P_CAP_PRICE,
	P_CAPACITY,
	P_NPARAMS
};

static const aiw_param_def SITE_PARAMS[] = {
	[P_PUE] = {"pue", "site.pue", AIW_PT_REAL, "1.3", "1", 1, 5, NULL, 0,
	           "power usage effectiveness: facility power / IT power", 0},
	[P_PRICE] = {"electricity_price", "site.electricity_price", AIW_PT_MONEY, "0.08", "USD/kWh",
	             0, 100, NULL, AIW_PF_EXCL_MIN,
	             "price of electricity per kWh of facility energy", 0},
	[P_GPUS_PER_RACK] = {"gpus_per_rack", "site.gpus_per_rack", AIW_PT_INT, "32", "1", 1, 1024,
	                     NULL, 0, "GPUs per rack, for rack-level peaks", 0},
	[P_MARGIN] = {"provisioning_margin", "site.provisioning_margin", AIW_PT_REAL, "0.1", "1", 0,
	              10, NULL, 0, "margin over the aggregate peak for recommended provisioning",
	              0},
	[P_CAP_PRICE] = {"capacity_price", "site.capacity_price", AIW_PT_MONEY, NULL,
	                 "USD/kW-month", 0, 1e6, NULL, AIW_PF_NONE | AIW_PF_EXCL_MIN,
	                 "price of provisioned facility power per kW and month (none: not charged)",
	                 0},
	[P_CAPACITY] = {"capacity", "site.capacity", AIW_PT_POWER, NULL, "W", 0, 1e12, NULL,
	                AIW_PF_NONE | AIW_PF_EXCL_MIN,
	                "contracted facility power (none: the recommended provisioning of the run)",
	                0},
};

/* per component: peaks, rack peaks, cost bookkeeping */
typedef struct rackset {
	double *peak;
	size_t n;     /* capacity of peak[] */
	size_t used;  /* highest rack index reported + 1 */
} rackset;

typedef struct compacc {
	double peak;                                       /* of the sampled IT power */
	double last_e, last_busy, last_paid, last_cost;    /* at the last site update */
	double idle_cost;                                  /* USD */
	int id_cost;                                       /* <prefix>.cost_usd */
	rackset racks;
} compacc;

typedef struct site {
	int id_it, id_fac, id_util, id_cost_rate, id_cost;
	double peak_it;
	compacc *comp; /* indexed by creation order */
	size_t ncomp;
} site;

double aiw_site_pue(const aiw_sim *sim)
{
	return aiw_p(aiw__site(sim), P_PUE);
}

double aiw_site_price_per_j(const aiw_sim *sim)
{
	return aiw_p(aiw__site(sim), P_PRICE) / 3.6e6;
}

double aiw_site_gpus_per_rack(const aiw_sim *sim)
{
	return aiw_p(aiw__site(sim), P_GPUS_PER_RACK);
}

static rackset *racks_of(aiw_sim *sim, aiw_comp *c, size_t need)
{
	site *s = aiw__site(sim)->state;
	if (!s || !s->comp || c->order >= s->ncomp)
		return NULL;
	rackset *r = &s->comp[c->order].racks;
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
	if (need > r->used)
		r->used = need;
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
	if (!nracks)
		return;
	rackset *r = racks_of(sim, c, nracks);
	if (!r)
		return;
	for (size_t i = 0; i < nracks; i++)
		if (avg_w_each > r->peak[i])
			r->peak[i] = avg_w_each;
}

static aiw_status site_start(aiw_comp *c)
{
	aiw_sim *sim = c->sim;
	site *s = calloc(1, sizeof *s);
	if (!s)
		return aiw__err(sim, AIW_ENOMEM, "out of memory");
	c->state = s;
	s->ncomp = aiw__ncomps(sim);
	s->comp = calloc(s->ncomp, sizeof *s->comp);
	if (!s->comp)
		return aiw__err(sim, AIW_ENOMEM, "out of memory");
	s->id_it = aiw_rec_add(sim, "site.power_w", "W");
	s->id_fac = aiw_rec_add(sim, "site.facility_power_w", "W");
	s->id_util = aiw_rec_add(sim, "site.utilization", "1");
	s->id_cost_rate = aiw_rec_add(sim, "site.cost_rate_usd_per_h", "USD/h");
	s->id_cost = aiw_rec_add(sim, "site.cost_usd", "USD");
	if (s->id_it < 0 || s->id_fac < 0 || s->id_util < 0 || s->id_cost_rate < 0 ||
	    s->id_cost < 0)
		return AIW_ENOMEM;
	for (size_t i = 0; i < s->ncomp; i++) {
		aiw_comp *k = aiw__comp_at(sim, i);
		s->comp[i].id_cost = -1;
		if (!k->accounted)
			continue;
		char n[256];
		snprintf(n, sizeof n, "%s.cost_usd", k->prefix);
		if ((s->comp[i].id_cost = aiw_rec_add(sim, n, "USD")) < 0)
			return AIW_ENOMEM;
	}
	return AIW_OK;
}

/* Contracted capacity charge per second (USD/s), 0 when not charged or when
 * the capacity is only known at the end (derived from the run's peak). */
static double capacity_rate(const aiw_comp *c)
{
	if (!aiw_pset(c, P_CAP_PRICE) || !aiw_pset(c, P_CAPACITY))
		return 0;
	return aiw_p(c, P_CAPACITY) / 1000.0 * aiw_p(c, P_CAP_PRICE) / SECONDS_PER_MONTH;
}

/* Bring the idle-cost bookkeeping up to the components' current integrals. */
static void site_catch_up(site *s, aiw_sim *sim)
{
	for (size_t i = 0; i < s->ncomp; i++) {
		aiw_comp *k = aiw__comp_at(sim, i);
		if (!k->accounted)
			continue;
		compacc *a = &s->comp[i];
		/* idle cost = hardware cost x idle share of the paid GPU-seconds,
		 * from the cumulative integrals, so it does not depend on how a
		 * run is stepped (exact for a constant price per GPU-second) */
		double idle = k->paid_gpu_s > 0 ? 1 - k->busy_gpu_s / k->paid_gpu_s : 0;
		a->idle_cost = k->cost_usd * (idle > 0 ? (idle < 1 ? idle : 1) : 0);
		a->last_e = k->energy_j;
		a->last_busy = k->busy_gpu_s;
		a->last_paid = k->paid_gpu_s;
		a->last_cost = k->cost_usd;
	}
}

static void site_sample(aiw_comp *c, double t)
{
	site *s = c->state;
	aiw_sim *sim = c->sim;
	double pue = aiw_p(c, P_PUE), price_j = aiw_p(c, P_PRICE) / 3.6e6;
	double it = 0, busy = 0, paid = 0, rate = 0, cum = 0;
	for (size_t i = 0; i < s->ncomp; i++) {
		aiw_comp *k = aiw__comp_at(sim, i);
		if (!k->accounted)
			continue;
		compacc *a = &s->comp[i];
		it += k->tick_power_w;
		busy += k->tick_util * k->tick_gpus;
		paid += k->tick_gpus;
		rate += k->tick_cost_rate;
		if (k->tick_power_w > a->peak)
			a->peak = k->tick_power_w;
		double kc = k->cost_usd + k->energy_j * pue * price_j;
		aiw_rec_put(sim, a->id_cost, kc);
		cum += kc;
	}
	site_catch_up(s, sim);
	if (it > s->peak_it)
		s->peak_it = it;
	double cap = capacity_rate(c);
	aiw_rec_put(sim, s->id_it, it);
	aiw_rec_put(sim, s->id_fac, it * pue);
	aiw_rec_put(sim, s->id_util, paid > 0 ? busy / paid : 0);
	aiw_rec_put(sim, s->id_cost_rate, rate + (it * pue * price_j + cap) * 3600.0);
	aiw_rec_put(sim, s->id_cost, cum + cap * t);
}

static void site_finish(aiw_comp *c, double t)
{
	site *s = c->state;
	aiw_sim *sim = c->sim;
	if (!s)
		return;
	site_catch_up(s, sim);
	double pue = aiw_p(c, P_PUE), price_j = aiw_p(c, P_PRICE) / 3.6e6;
	double sum_peaks = 0, sum_rack_peaks = 0, racks = 0, energy = 0, hw = 0, idle = 0;
	double busy = 0, paid = 0;
	for (size_t i = 0; i < s->ncomp; i++) {
		aiw_comp *k = aiw__comp_at(sim, i);
		if (!k->accounted)
			continue;
		compacc *a = &s->comp[i];
		sum_peaks += a->peak;
		if (a->racks.used) {
			for (size_t r = 0; r < a->racks.used; r++)
				sum_rack_peaks += a->racks.peak[r];
			racks += (double)a->racks.used;
		} else {
			sum_rack_peaks += a->peak; /* one rack */
			racks += 1;
		}
		double ecost = k->energy_j * pue * price_j;
		energy += k->energy_j;
		hw += k->cost_usd;
		idle += a->idle_cost;
		busy += k->busy_gpu_s;
		paid += k->paid_gpu_s;
		aiw__metric(sim, k->prefix, "power_peak_w", a->peak);
		aiw__metric(sim, k->prefix, "energy_cost_usd", ecost);
		aiw__metric(sim, k->prefix, "hardware_cost_usd", k->cost_usd);
		aiw__metric(sim, k->prefix, "cost_usd", k->cost_usd + ecost);
		aiw__metric(sim, k->prefix, "idle_cost_usd", a->idle_cost);
	}
	double peak_fac = s->peak_it * pue;
	double recommended = peak_fac * (1 + aiw_p(c, P_MARGIN));
	double energy_cost = energy * pue * price_j;
	double capacity = aiw_pset(c, P_CAPACITY) ? aiw_p(c, P_CAPACITY) : recommended;
	double cap_cost = aiw_pset(c, P_CAP_PRICE)
	                          ? capacity / 1000.0 * aiw_p(c, P_CAP_PRICE) * t / SECONDS_PER_MONTH
	                          : 0;
	double total = hw + energy_cost + cap_cost;
	aiw__metric(sim, "site", "power_peak_w", s->peak_it);
	aiw__metric(sim, "site", "facility_power_peak_w", peak_fac);
	aiw__metric(sim, "site", "power_mean_w", t > 0 ? energy / t : NAN);
	aiw__metric(sim, "site", "load_factor", s->peak_it > 0 && t > 0 ? energy / t / s->peak_it : NAN);
	aiw__metric(sim, "site", "sum_of_peaks_w", sum_peaks);
	aiw__metric(sim, "site", "diversity_factor", s->peak_it > 0 ? sum_peaks / s->peak_it : NAN);
	aiw__metric(sim, "site", "sum_of_rack_peaks_w", sum_rack_peaks);
	aiw__metric(sim, "site", "rack_diversity_factor",
	            s->peak_it > 0 ? sum_rack_peaks / s->peak_it : NAN);
	aiw__metric(sim, "site", "racks", racks);
	aiw__metric(sim, "site", "provisioned_power_w", recommended);
	if (aiw_pset(c, P_CAPACITY))
		aiw__metric(sim, "site", "capacity_headroom_w", capacity - peak_fac);
	aiw__metric(sim, "site", "energy_kwh", energy / 3.6e6);
	aiw__metric(sim, "site", "facility_energy_kwh", energy * pue / 3.6e6);
	aiw__metric(sim, "site", "energy_cost_usd", energy_cost);
	aiw__metric(sim, "site", "hardware_cost_usd", hw);
	aiw__metric(sim, "site", "capacity_cost_usd", cap_cost);
	aiw__metric(sim, "site", "cost_usd", total);
	aiw__metric(sim, "site", "idle_cost_usd", idle);
	aiw__metric(sim, "site", "gpu_hours", paid / 3600.0);
	aiw__metric(sim, "site", "busy_gpu_hours", busy / 3600.0);
	aiw__metric(sim, "site", "utilization", paid > 0 ? busy / paid : NAN);
	aiw__metric(sim, "site", "cost_per_gpu_hour_usd", paid > 0 ? total / (paid / 3600.0) : NAN);
}

static void site_destroy(aiw_comp *c)
{
	site *s = c->state;
	for (size_t i = 0; s->comp && i < s->ncomp; i++)
		free(s->comp[i].racks.peak);
	free(s->comp);
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
/* load ([load NAME]): power that the other kinds do not model (cooling      */
/* plant, storage, CPU racks), and components whose energy, peaks and cost   */
/* are known by hand for the tests.  Three modes:                            */
/*  - profile: piecewise-constant TIME:POWER steps of the whole load, split  */
/*    evenly over `racks` racks; rack i may follow the profile delayed by    */
/*    i x rack_offset (0 W before its first step);                           */
/*  - on/off: each rack alternates on (on_power / racks) and off (0 W) for   */
/*    durations drawn from on_time and off_time (an alternating renewal      */
/*    process; it starts on with probability E[on] / (E[on] + E[off]), which */
/*    is stationary for exponential durations);                              */
/*  - duty: at every multiple of `slot` each rack is on with probability     */
/*    duty, independently of everything else (iid binomial rack counts).    */
/* The load's GPUs (gpus, spread evenly over the racks) are paid all the    */
/* time and busy while their rack draws power; they cost money when `gpu`   */
/* names a catalog GPU or a price is given (AIW_COST_PARAM_DEFS; the        */
/* node_overhead entry is not used: a load's power is its whole power).     */
/* ------------------------------------------------------------------------ */
enum {
	L_PROFILE,
	L_PERIOD,
	L_GPUS,
	L_GPU,
	L_RACKS,
	L_RACK_OFFSET,
	L_ON_TIME,
	L_OFF_TIME,
	L_DUTY,
	L_SLOT,
	L_ON_POWER,
	L_COST,
	L_NPARAMS = L_COST + AIW_COST_NPARAMS
};

static const aiw_param_def LOAD_PARAMS[] = {
	[L_PROFILE] = {"profile", "load.NAME.profile", AIW_PT_STRING, NULL, "", 0, 0, NULL,
	               AIW_PF_NONE,
	               "piecewise-constant power of the whole load: TIME:POWER steps, e.g. "
	               "0:1kW,2h:5kW (none: 0 W)",
	               0},
	[L_PERIOD] = {"period", "load.NAME.period", AIW_PT_DURATION, NULL, "s", 0, 3.2e9, NULL,
	              AIW_PF_NONE | AIW_PF_EXCL_MIN,
	              "repeat the profile with this period (none: hold the last step)", 0},
	[L_GPUS] = {"gpus", "load.NAME.gpus", AIW_PT_INT, "0", "1", 0, 1e7, NULL, 0,
	            "GPUs paid for by this load (busy while their rack draws power)", 0},
	[L_GPU] = {"gpu", "load.NAME.gpu", AIW_PT_STRING, NULL, "", 0, 0, NULL, AIW_PF_NONE,
	           "GPU type whose catalog prices the GPUs pay (none: free unless a price is set)",
	           0},
	[L_RACKS] = {"racks", "load.NAME.racks", AIW_PT_INT, "1", "1", 1, 1e6, NULL, 0,
	             "racks the load (power and GPUs) is spread over evenly", 0},
	[L_RACK_OFFSET] = {"rack_offset", "load.NAME.rack_offset", AIW_PT_DURATION, "0", "s", 0,
	                   3.2e9, NULL, 0,
	                   "profile mode: rack i follows the profile delayed by i x rack_offset", 0},
	[L_ON_TIME] = {"on_time", "load.NAME.on_time", AIW_PT_DIST, NULL, "s", 0, 3.2e9, NULL,
	               AIW_PF_NONE,
	               "on/off mode: duration of each on period of a rack (with off_time)",
	               AIW_PT_DURATION},
	[L_OFF_TIME] = {"off_time", "load.NAME.off_time", AIW_PT_DIST, NULL, "s", 0, 3.2e9, NULL,
	                AIW_PF_NONE,
	                "on/off mode: duration of each off period of a rack (with on_time)",
	                AIW_PT_DURATION},
	[L_DUTY] = {"duty", "load.NAME.duty", AIW_PT_REAL, NULL, "1", 0, 1, NULL, AIW_PF_NONE,
	            "duty mode: probability that a rack is on in each slot, independently", 0},
	[L_SLOT] = {"slot", "load.NAME.slot", AIW_PT_DURATION, NULL, "s", 0, 3.2e9, NULL,
	            AIW_PF_NONE | AIW_PF_EXCL_MIN, "duty mode: length of a slot", 0},
	[L_ON_POWER] = {"on_power", "load.NAME.on_power", AIW_PT_POWER, "0", "W", 0, 1e12, NULL, 0,
	                "on/off and duty modes: power of the whole load with every rack on", 0},
	[L_COST] = AIW_COST_PARAM_DEFS("load"),
};

enum { MODE_PROFILE, MODE_ONOFF, MODE_DUTY };

typedef struct load {
	int mode;
	double *t, *w; /* profile steps */
	size_t n;
	size_t nr;          /* racks */
	bool per_rack;      /* racks have their own timelines or states */
	size_t i;           /* shared timeline: current step */
	double cycle0;      /* shared timeline: start of the current period */
	size_t *ri;         /* per-rack step (profile) */
	double *rc0;        /* per-rack period start (profile) */
	unsigned char *on;  /* per-rack state (on/off, duty) */
	double *rw;         /* per-rack power */
	aiw_integral *re;   /* per-rack energy */
	double *rlast;      /* per-rack energy at the last tick */
	double total_w;     /* current power of the whole load */
	size_t nbusy;       /* racks drawing power */
	double slot_k;      /* duty: index of the current slot */
	double gpr;         /* GPUs per rack */
	double elast;       /* shared timeline: energy at the last tick */
	aiw_integral energy, busy;
	double usd_per_gpu_s;
} load;

#define LOAD_MAX_STEPS 100000

static aiw_status load_parse(aiw_comp *c, load *L)
{
	aiw_sim *sim = c->sim;
	const char *text = aiw_pset(c, L_PROFILE) ? aiw_ps(c, L_PROFILE) : NULL;
	size_t cap = 8;
	L->t = malloc(cap * sizeof *L->t);
	L->w = malloc(cap * sizeof *L->w);
	if (!L->t || !L->w)
		return aiw__err(sim, AIW_ENOMEM, "out of memory");
	if (!text || !*text) { /* unset: 0 W */
		L->t[0] = 0;
		L->w[0] = 0;
		L->n = 1;
		return AIW_OK;
	}
	char *copy = strdup(text);
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

/* Cross-parameter checks and the mode. */
static aiw_status load_mode(aiw_comp *c, load *L)
{
	aiw_sim *sim = c->sim;
	bool on = aiw_pset(c, L_ON_TIME), off = aiw_pset(c, L_OFF_TIME);
	bool duty = aiw_pset(c, L_DUTY), slot = aiw_pset(c, L_SLOT);
	bool profile = aiw_pset(c, L_PROFILE) && aiw_ps(c, L_PROFILE)[0];
	if (on != off)
		return aiw__err(sim, AIW_ESCENARIO, "%s.%s is set without %s.%s: the on/off mode needs both",
		                c->prefix, on ? "on_time" : "off_time", c->prefix,
		                on ? "off_time" : "on_time");
	if (duty != slot)
		return aiw__err(sim, AIW_ESCENARIO, "%s.%s is set without %s.%s: the duty mode needs both",
		                c->prefix, duty ? "duty" : "slot", c->prefix, duty ? "slot" : "duty");
	if (on && duty)
		return aiw__err(sim, AIW_ESCENARIO,
		                "%s: on_time/off_time (on/off mode) and duty/slot (duty mode) exclude "
		                "each other",
		                c->prefix);
	if ((on || duty) && profile)
		return aiw__err(sim, AIW_ESCENARIO,
		                "%s.profile is set together with %s: a load has one mode (profile, "
		                "on/off or duty)",
		                c->prefix, on ? "on_time/off_time" : "duty/slot");
	if (!(on || duty) && aiw_p(c, L_ON_POWER) > 0)
		return aiw__err(sim, AIW_ESCENARIO,
		                "%s.on_power = %g W needs on_time/off_time or duty/slot (a profile gives "
		                "its own powers)",
		                c->prefix, aiw_p(c, L_ON_POWER));
	if ((on || duty) && aiw_p(c, L_RACK_OFFSET) > 0)
		return aiw__err(sim, AIW_ESCENARIO,
		                "%s.rack_offset applies to a profile only (random racks are already "
		                "independent)",
		                c->prefix);
	if (on && !(aiw_dist_mean(aiw_pd(c, L_ON_TIME)) > 0 &&
	            aiw_dist_mean(aiw_pd(c, L_OFF_TIME)) > 0))
		return aiw__err(sim, AIW_ERANGE,
		                "%s: on_time = %s and off_time = %s must both have a mean > 0 s",
		                c->prefix, aiw_ps(c, L_ON_TIME), aiw_ps(c, L_OFF_TIME));
	L->mode = on ? MODE_ONOFF : duty ? MODE_DUTY : MODE_PROFILE;
	L->per_rack = L->mode != MODE_PROFILE || aiw_p(c, L_RACK_OFFSET) > 0;
	return AIW_OK;
}

/* Resolve the price of one GPU-second. */
static aiw_status load_pricing(aiw_comp *c, load *L)
{
	aiw_sim *sim = c->sim;
	const aiw_gpu_spec *g = NULL;
	if (aiw_pset(c, L_GPU) && aiw_ps(c, L_GPU)[0]) {
		aiw_status st = aiw_hw_gpu_get(sim, aiw_ps(c, L_GPU), &g);
		if (st != AIW_OK) {
			char msg[1024];
			snprintf(msg, sizeof msg, "%s", aiw_sim_errmsg(sim));
			return aiw__err(sim, st, "%s.gpu: %s", c->prefix, msg);
		}
	}
	bool priced = g || aiw_pset(c, L_COST + 1) || aiw_pset(c, L_COST + 3);
	if (!priced || aiw_p(c, L_GPUS) == 0)
		return AIW_OK; /* free */
	aiw_gpu_spec none = {.name = "a load without a gpu type"};
	aiw_pricing p;
	aiw_status st = aiw_cost_pricing(c, L_COST, g ? g : &none, &p);
	if (st == AIW_OK)
		L->usd_per_gpu_s = p.usd_per_gpu_s;
	return st;
}

static void rack_set(load *L, size_t r, double now, double w)
{
	double old = L->rw[r];
	if (w == old)
		return;
	aiw_int_set(&L->re[r], now, w);
	L->rw[r] = w;
	L->nbusy += (w > 0) - (old > 0);
	L->total_w = L->nbusy ? L->total_w + (w - old) : 0;
}

static void load_level(aiw_comp *c, load *L, double now)
{
	aiw_int_set(&L->energy, now, L->total_w);
	aiw_int_set(&L->busy, now, (double)L->nbusy * L->gpr);
}

/* profile, shared timeline */
static void load_step(aiw_sim *sim, void *ctx, uint64_t arg)
{
	aiw_comp *c = ctx;
	load *L = c->state;
	double now = aiw__now(sim);
	L->i = (size_t)arg;
	double w = L->w[L->i];
	L->total_w = w;
	L->nbusy = w > 0 ? L->nr : 0;
	load_level(c, L, now);
	size_t next = L->i + 1;
	if (next < L->n) {
		aiw__at(sim, L->cycle0 + L->t[next], load_step, c, next);
	} else if (aiw_pset(c, L_PERIOD)) {
		L->cycle0 += aiw_p(c, L_PERIOD);
		aiw__at(sim, L->cycle0 + L->t[0], load_step, c, 0);
	}
}

/* profile, one timeline per rack: arg = rack << 32 | step */
static void load_rack_step(aiw_sim *sim, void *ctx, uint64_t arg)
{
	aiw_comp *c = ctx;
	load *L = c->state;
	double now = aiw__now(sim);
	size_t r = (size_t)(arg >> 32), i = (size_t)(arg & 0xffffffffu);
	L->ri[r] = i;
	rack_set(L, r, now, L->w[i] / (double)L->nr);
	load_level(c, L, now);
	size_t next = i + 1;
	if (next < L->n) {
		aiw__at(sim, L->rc0[r] + L->t[next], load_rack_step, c, ((uint64_t)r << 32) | next);
	} else if (aiw_pset(c, L_PERIOD)) {
		L->rc0[r] += aiw_p(c, L_PERIOD);
		aiw__at(sim, L->rc0[r] + L->t[0], load_rack_step, c, (uint64_t)r << 32);
	}
}

/* on/off: rack arg toggles */
static void load_toggle(aiw_sim *sim, void *ctx, uint64_t arg)
{
	aiw_comp *c = ctx;
	load *L = c->state;
	double now = aiw__now(sim);
	size_t r = (size_t)arg;
	L->on[r] = !L->on[r];
	rack_set(L, r, now, L->on[r] ? aiw_p(c, L_ON_POWER) / (double)L->nr : 0);
	load_level(c, L, now);
	double d = aiw_dist_sample(aiw_pd(c, L->on[r] ? L_ON_TIME : L_OFF_TIME), c->rng);
	aiw__at(sim, now + d, load_toggle, c, r);
}

/* duty: a new slot; every rack draws its state */
static void load_slot(aiw_sim *sim, void *ctx, uint64_t arg)
{
	aiw_comp *c = ctx;
	load *L = c->state;
	double now = aiw__now(sim), duty = aiw_p(c, L_DUTY), w = aiw_p(c, L_ON_POWER) / (double)L->nr;
	for (size_t r = 0; r < L->nr; r++) {
		L->on[r] = gsl_rng_uniform(c->rng) < duty;
		rack_set(L, r, now, L->on[r] ? w : 0);
	}
	load_level(c, L, now);
	L->slot_k += 1;
	aiw__at(sim, L->slot_k * aiw_p(c, L_SLOT), load_slot, c, 0);
}

static aiw_status load_start(aiw_comp *c)
{
	aiw_sim *sim = c->sim;
	load *L = calloc(1, sizeof *L);
	if (!L)
		return aiw__err(sim, AIW_ENOMEM, "out of memory");
	c->state = L;
	aiw_status st;
	if ((st = load_mode(c, L)) != AIW_OK || (st = load_parse(c, L)) != AIW_OK ||
	    (st = load_pricing(c, L)) != AIW_OK)
		return st;
	L->nr = (size_t)aiw_p(c, L_RACKS);
	L->gpr = aiw_p(c, L_GPUS) / (double)L->nr;
	aiw_int_init(&L->energy, 0, 0);
	aiw_int_init(&L->busy, 0, 0);
	c->gpus = aiw_p(c, L_GPUS);
	if (L->per_rack) {
		L->ri = calloc(L->nr, sizeof *L->ri);
		L->rc0 = calloc(L->nr, sizeof *L->rc0);
		L->on = calloc(L->nr, 1);
		L->rw = calloc(L->nr, sizeof *L->rw);
		L->re = calloc(L->nr, sizeof *L->re);
		L->rlast = calloc(L->nr, sizeof *L->rlast);
		if (!L->ri || !L->rc0 || !L->on || !L->rw || !L->re || !L->rlast)
			return aiw__err(sim, AIW_ENOMEM, "out of memory for %zu racks", L->nr);
		for (size_t r = 0; r < L->nr; r++)
			aiw_int_init(&L->re[r], 0, 0);
	}
	switch (L->mode) {
	case MODE_PROFILE:
		if (!L->per_rack) {
			aiw__at(sim, L->t[0], load_step, c, 0);
			break;
		}
		for (size_t r = 0; r < L->nr; r++) {
			L->rc0[r] = (double)r * aiw_p(c, L_RACK_OFFSET);
			aiw__at(sim, L->rc0[r] + L->t[0], load_rack_step, c, (uint64_t)r << 32);
		}
		break;
	case MODE_ONOFF: {
		double mon = aiw_dist_mean(aiw_pd(c, L_ON_TIME));
		double moff = aiw_dist_mean(aiw_pd(c, L_OFF_TIME));
		double p_on = mon / (mon + moff), w = aiw_p(c, L_ON_POWER) / (double)L->nr;
		for (size_t r = 0; r < L->nr; r++) {
			L->on[r] = gsl_rng_uniform(c->rng) < p_on;
			rack_set(L, r, 0, L->on[r] ? w : 0);
			double d = aiw_dist_sample(aiw_pd(c, L->on[r] ? L_ON_TIME : L_OFF_TIME), c->rng);
			aiw__at(sim, d, load_toggle, c, r);
		}
		load_level(c, L, 0);
		break;
	}
	case MODE_DUTY:
		aiw__at(sim, 0, load_slot, c, 0);
		break;
	}
	return AIW_OK;
}

/* Integral at t >= x->t without moving x: a run stopped between ticks must
 * not split the sums, or a stepped run would round differently from one
 * run. */
static double int_at(const aiw_integral *x, double t)
{
	return t > x->t ? x->sum + x->value * (t - x->t) : x->sum;
}

static void load_account(aiw_comp *c, double t)
{
	load *L = c->state;
	c->energy_j = int_at(&L->energy, t);
	c->busy_gpu_s = int_at(&L->busy, t);
	c->paid_gpu_s = aiw_p(c, L_GPUS) * t;
	c->cost_usd = c->paid_gpu_s * L->usd_per_gpu_s;
}

static void load_sample(aiw_comp *c, double t)
{
	load *L = c->state;
	aiw_sim *sim = c->sim;
	load_account(c, t);
	double dt = aiw_rec_dt(sim);
	if (!(dt > 0))
		return;
	if (!L->per_rack) {
		aiw_site_racks_uniform(sim, c, L->nr, (c->energy_j - L->elast) / dt / (double)L->nr);
		L->elast = c->energy_j;
		return;
	}
	for (size_t r = 0; r < L->nr; r++) {
		aiw_int_advance(&L->re[r], t);
		aiw_site_rack_power(sim, c, r, (L->re[r].sum - L->rlast[r]) / dt);
		L->rlast[r] = L->re[r].sum;
	}
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
	free(L->ri);
	free(L->rc0);
	free(L->on);
	free(L->rw);
	free(L->re);
	free(L->rlast);
	free(L);
	c->state = NULL;
}

const aiw_kind aiw_kind_load = {
	.name = "load",
	.params = LOAD_PARAMS,
	.nparams = L_NPARAMS,
	.start = load_start,
	.sample = load_sample,
	.finish = load_finish,
	.destroy = load_destroy,
};

/* ------------------------------------------------------------------------ */
/* The training-share sweep: "ask for the training/inference ratio first".   */
/* ------------------------------------------------------------------------ */
/* The default mixed site (parameter names of DESIGN.md): a synchronous 70B
 * pre-training job and a 70B chat fleet on H100s, one diurnal day sampled
 * every 5 minutes.  The inference rate is that of the base fleet (1/s for
 * 8 two-GPU replicas: a busy fraction near 0.55, P99 TTFT under 0.5 s with
 * the inference model's default request sizes) and scales with the
 * replicas. */
static const char DEFAULT_SITE[] =
	"[sim]\nduration = 24h\nsample_interval = 5min\n"
	"[site]\npue = 1.3\ngpus_per_rack = 32\n"
	"[training train]\ngpu = H100-SXM\ngpus = 8\ngpus_per_node = 8\nmodel_params = 70e9\n"
	"tokens_per_step = 4e6\nmfu = 0.45\n"
	"[inference serve]\ngpu = H100-SXM\ngpus_per_replica = 2\nreplicas = 8\n"
	"model_params = 70e9\nweight_bits = 8\ntraffic = diurnal\nrate = 1/s\n"
	"peak_to_trough = 10\npeak_hour = 14\nbatching = continuous\nmax_batch = 32\n";

#define SWEEP_MAX_STEPS 10001

static size_t param_or_none(const aiw_kind *k, const char *key)
{
	return k->nparams ? aiw_kind_param_index(k, key) : SIZE_MAX;
}

/* Copy every parameter value of src into a component of the same kind and
 * name in dst. */
static aiw_status copy_comp(aiw_sim *dst, const aiw_comp *src)
{
	aiw_comp *c;
	aiw_status st = aiw__comp_get(dst, src->kind->name, src->name, true, &c);
	if (st != AIW_OK)
		return st;
	for (size_t j = 0; j < src->kind->nparams; j++)
		if ((st = aiw_value_copy(&c->v[j], &src->v[j])) != AIW_OK)
			return aiw__err(dst, st, "out of memory");
	return AIW_OK;
}

static aiw_status set_num(aiw_sim *sim, const aiw_comp *c, const char *key, double v)
{
	char name[256];
	snprintf(name, sizeof name, "%s.%s", c->prefix, key);
	return aiw_sim_set_double(sim, name, v);
}

/* One share: a fresh sim from the probe's values with gt training GPUs and
 * reps inference replicas. */
static aiw_status sweep_one(const aiw_sim *probe, const aiw_comp *T, const aiw_comp *I,
                            double gt, double reps, double reps0, double out[4], char *msg,
                            size_t msglen)
{
	aiw_sim *sim;
	aiw_status st = aiw_sim_create(&sim, 1);
	if (st != AIW_OK)
		return aiw__buferr(msg, msglen, st, "out of memory");
	for (size_t i = 0; i < aiw__ncomps(probe) && st == AIW_OK; i++) {
		const aiw_comp *c = aiw__comp_at(probe, i);
		if ((c == T && gt == 0) || (c == I && reps == 0))
			continue;
		st = copy_comp(sim, c);
	}
	if (st == AIW_OK && gt > 0)
		st = set_num(sim, T, "gpus", gt);
	if (st == AIW_OK && reps > 0) {
		const aiw_kind *k = I->kind;
		st = set_num(sim, I, "replicas", reps);
		size_t ir = param_or_none(k, "rate");
		if (st == AIW_OK && ir != SIZE_MAX && aiw_pset(I, ir) && k->params[ir].type == AIW_PT_RATE)
			st = set_num(sim, I, "rate", aiw_p(I, ir) * reps / reps0);
		/* an autoscaled fleet stays within its GPU share */
		size_t imax = param_or_none(k, "max_replicas"), imin = param_or_none(k, "min_replicas");
		if (st == AIW_OK && imax != SIZE_MAX && aiw_pset(I, imax))
			st = set_num(sim, I, "max_replicas", reps);
		if (st == AIW_OK && imin != SIZE_MAX && aiw_pset(I, imin) && aiw_p(I, imin) > reps)
			st = set_num(sim, I, "min_replicas", reps);
	}
	if (st == AIW_OK)
		st = aiw_sim_run(sim);
	static const char *const M[4] = {"site.rack_diversity_factor", "site.provisioned_power_w",
	                                 "site.power_peak_w", "site.sum_of_rack_peaks_w"};
	for (int k = 0; k < 4 && st == AIW_OK; k++)
		st = aiw_sim_metric(sim, M[k], &out[k]);
	if (st != AIW_OK)
		aiw__buferr(msg, msglen, st, "%s", aiw_sim_errmsg(sim));
	aiw_sim_free(sim);
	return st;
}

AIW_EXPORT aiw_status aiw_site_diversity_sweep(const char *scenario, double total_gpus,
                                               size_t steps, double *share, double *diversity,
                                               double *provisioned_w, double *peak_w,
                                               double *sum_of_peaks_w, char *errbuf,
                                               size_t errlen)
{
	if (errbuf && errlen)
		errbuf[0] = 0;
	if (!(total_gpus >= 1 && total_gpus <= 1e7) || total_gpus != floor(total_gpus))
		return aiw__buferr(errbuf, errlen, AIW_ERANGE,
		                   "aiw_site_diversity_sweep: total_gpus = %g must be a whole number in "
		                   "[1, 1e7]",
		                   total_gpus);
	if (steps < 2 || steps > SWEEP_MAX_STEPS)
		return aiw__buferr(errbuf, errlen, AIW_ERANGE,
		                   "aiw_site_diversity_sweep: steps = %zu must be in [2, %d] (shares 0, "
		                   "1/(steps-1), ..., 1)",
		                   steps, SWEEP_MAX_STEPS);
	/* the workload models must provide the parameters the sweep sets */
	static const struct {
		const aiw_kind *k;
		const char *key;
	} NEED[] = {{&aiw_kind_training, "gpus"},
	            {&aiw_kind_inference, "replicas"},
	            {&aiw_kind_inference, "gpus_per_replica"}};
	for (size_t i = 0; i < sizeof NEED / sizeof *NEED; i++)
		if (param_or_none(NEED[i].k, NEED[i].key) == SIZE_MAX)
			return aiw__buferr(errbuf, errlen, AIW_ENOTSUP,
			                   "aiw_site_diversity_sweep: the %s model of this build has no "
			                   "parameter %s.NAME.%s",
			                   NEED[i].k->name, NEED[i].k->name, NEED[i].key);
	aiw_sim *probe;
	aiw_status st = aiw_sim_create(&probe, 1);
	if (st != AIW_OK)
		return aiw__buferr(errbuf, errlen, st, "out of memory");
	st = aiw_sim_load_string(probe, scenario ? scenario : DEFAULT_SITE,
	                         scenario ? "scenario" : "default site");
	if (st != AIW_OK) {
		aiw__buferr(errbuf, errlen, st, "%s", aiw_sim_errmsg(probe));
		aiw_sim_free(probe);
		return st;
	}
	const aiw_comp *T = NULL, *I = NULL;
	int nt = 0, ni = 0;
	for (size_t i = 0; i < aiw__ncomps(probe); i++) {
		const aiw_comp *c = aiw__comp_at(probe, i);
		if (c->kind == &aiw_kind_training && nt++ == 0)
			T = c;
		if (c->kind == &aiw_kind_inference && ni++ == 0)
			I = c;
	}
	if (nt != 1 || ni != 1) {
		aiw_sim_free(probe);
		return aiw__buferr(errbuf, errlen, AIW_ESCENARIO,
		                   "aiw_site_diversity_sweep: the scenario needs exactly one [training "
		                   "NAME] and one [inference NAME] section (it has %d and %d)",
		                   nt, ni);
	}
	size_t igpr = param_or_none(I->kind, "gpus_per_replica");
	size_t irep = param_or_none(I->kind, "replicas");
	size_t ignode = param_or_none(T->kind, "gpus_per_node");
	double gpr = aiw_pset(I, igpr) && aiw_p(I, igpr) >= 1 ? aiw_p(I, igpr) : 1;
	double reps0 = aiw_pset(I, irep) && aiw_p(I, irep) >= 1 ? aiw_p(I, irep) : 1;
	double gnode = ignode != SIZE_MAX && aiw_pset(T, ignode) && aiw_p(T, ignode) >= 1
	                       ? aiw_p(T, ignode)
	                       : 1;
	for (size_t k = 0; k < steps && st == AIW_OK; k++) {
		double s = (double)k / (double)(steps - 1);
		/* whole nodes of training, whole replicas of inference; leftovers idle */
		double gt = gnode * round(s * total_gpus / gnode);
		if (gt > total_gpus)
			gt -= gnode;
		double reps = floor((total_gpus - gt) / gpr);
		if (gt == 0 && reps == 0) {
			st = aiw__buferr(errbuf, errlen, AIW_ERANGE,
			                 "aiw_site_diversity_sweep: total_gpus = %g holds neither a training "
			                 "node (%g GPUs) nor an inference replica (%g GPUs)",
			                 total_gpus, gnode, gpr);
			break;
		}
		double out[4];
		char msg[1024];
		st = sweep_one(probe, T, I, gt, reps, reps0, out, msg, sizeof msg);
		if (st != AIW_OK) {
			aiw__buferr(errbuf, errlen, st, "aiw_site_diversity_sweep: training share %g (%g "
			            "training GPUs, %g replicas): %s",
			            s, gt, reps, msg);
			break;
		}
		if (share)
			share[k] = gt / total_gpus;
		if (diversity)
			diversity[k] = out[0];
		if (provisioned_w)
			provisioned_w[k] = out[1];
		if (peak_w)
			peak_w[k] = out[2];
		if (sum_of_peaks_w)
			sum_of_peaks_w[k] = out[3];
	}
	aiw_sim_free(probe);
	return st;
}
