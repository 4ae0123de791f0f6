/*
 * load.c - the scripted `load` kind ([load NAME]).
 */
#include "core/internal.h"
#include "hw/hw.h"
#include "site/cost.h"
#include "site/power.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

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

static const aiwi_param_def LOAD_PARAMS[] = {
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
	aiwi_integral *re;   /* per-rack energy */
	double *rlast;      /* per-rack energy at the last tick */
	double total_w;     /* current power of the whole load */
	size_t nbusy;       /* racks drawing power */
	double slot_k;      /* duty: index of the current slot */
	double gpr;         /* GPUs per rack */
	double elast;       /* shared timeline: energy at the last tick */
	aiwi_integral energy, busy;
	aiwi_pricing price; /* free: rate 0, no commitment */
} load;

#define LOAD_MAX_STEPS 100000

static aiw_status load_parse(aiwi_comp *c, load *L)
{
	aiw_sim *sim = c->sim;
	const char *text = aiwi_pset(c, L_PROFILE) ? aiwi_ps(c, L_PROFILE) : NULL;
	size_t cap = 8;
	L->t = malloc(cap * sizeof *L->t);
	L->w = malloc(cap * sizeof *L->w);
	if (!L->t || !L->w)
		return aiwi_err(sim, AIW_ENOMEM, "out of memory");
	if (!text || !*text) { /* unset: 0 W */
		L->t[0] = 0;
		L->w[0] = 0;
		L->n = 1;
		return AIW_OK;
	}
	char *copy = strdup(text);
	if (!copy)
		return aiwi_err(sim, AIW_ENOMEM, "out of memory");
	aiw_status st = AIW_OK;
	char *save = NULL;
	for (char *tok = strtok_r(copy, ", \t", &save); tok; tok = strtok_r(NULL, ", \t", &save)) {
		char *colon = strchr(tok, ':');
		char e[256];
		double t, w;
		if (!colon) {
			st = aiwi_err(sim, AIW_EPARSE, "%s.profile: step '%s' is not TIME:POWER",
			              c->prefix, tok);
			break;
		}
		*colon = 0;
		if ((st = aiwi_parse_units(AIW_PT_DURATION, tok, &t, e, sizeof e)) != AIW_OK ||
		    (st = aiwi_parse_units(AIW_PT_POWER, colon + 1, &w, e, sizeof e)) != AIW_OK) {
			aiwi_err(sim, st, "%s.profile: %s", c->prefix, e);
			break;
		}
		if (t < 0 || w < 0 || (L->n && t <= L->t[L->n - 1])) {
			st = aiwi_err(sim, AIW_ERANGE,
			              "%s.profile: step %s:%g W: times must increase from 0 and powers "
			              "be >= 0",
			              c->prefix, tok, w);
			break;
		}
		if (L->n == cap) {
			if (cap >= LOAD_MAX_STEPS) {
				st = aiwi_err(sim, AIW_ELIMIT, "%s.profile: more than %d steps", c->prefix,
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
				st = aiwi_err(sim, AIW_ENOMEM, "out of memory");
				break;
			}
		}
		L->t[L->n] = t;
		L->w[L->n++] = w;
	}
	free(copy);
	if (st == AIW_OK && L->n == 0)
		st = aiwi_err(sim, AIW_EPARSE, "%s.profile is empty", c->prefix);
	if (st == AIW_OK && aiwi_pset(c, L_PERIOD) && L->t[L->n - 1] >= aiwi_p(c, L_PERIOD))
		st = aiwi_err(sim, AIW_ERANGE, "%s.profile: last step at %g s is not before period %g s",
		              c->prefix, L->t[L->n - 1], aiwi_p(c, L_PERIOD));
	return st;
}

/* Cross-parameter checks and the mode. */
static aiw_status load_mode(aiwi_comp *c, load *L)
{
	aiw_sim *sim = c->sim;
	bool on = aiwi_pset(c, L_ON_TIME), off = aiwi_pset(c, L_OFF_TIME);
	bool duty = aiwi_pset(c, L_DUTY), slot = aiwi_pset(c, L_SLOT);
	bool profile = aiwi_pset(c, L_PROFILE) && aiwi_ps(c, L_PROFILE)[0];
	if (on != off)
		return aiwi_err(sim, AIW_ESCENARIO, "%s.%s is set without %s.%s: the on/off mode needs both",
		                c->prefix, on ? "on_time" : "off_time", c->prefix,
		                on ? "off_time" : "on_time");
	if (duty != slot)
		return aiwi_err(sim, AIW_ESCENARIO, "%s.%s is set without %s.%s: the duty mode needs both",
		                c->prefix, duty ? "duty" : "slot", c->prefix, duty ? "slot" : "duty");
	if (on && duty)
		return aiwi_err(sim, AIW_ESCENARIO,
		                "%s: on_time/off_time (on/off mode) and duty/slot (duty mode) exclude "
		                "each other",
		                c->prefix);
	if ((on || duty) && profile)
		return aiwi_err(sim, AIW_ESCENARIO,
		                "%s.profile is set together with %s: a load has one mode (profile, "
		                "on/off or duty)",
		                c->prefix, on ? "on_time/off_time" : "duty/slot");
	if (!(on || duty) && aiwi_p(c, L_ON_POWER) > 0)
		return aiwi_err(sim, AIW_ESCENARIO,
		                "%s.on_power = %g W needs on_time/off_time or duty/slot (a profile gives "
		                "its own powers)",
		                c->prefix, aiwi_p(c, L_ON_POWER));
	if ((on || duty) && aiwi_p(c, L_RACK_OFFSET) > 0)
		return aiwi_err(sim, AIW_ESCENARIO,
		                "%s.rack_offset applies to a profile only (random racks are already "
		                "independent)",
		                c->prefix);
	if (on && !(aiwi_dist_mean(aiwi_pd(c, L_ON_TIME)) > 0 &&
	            aiwi_dist_mean(aiwi_pd(c, L_OFF_TIME)) > 0))
		return aiwi_err(sim, AIW_ERANGE,
		                "%s: on_time = %s and off_time = %s must both have a mean > 0 s",
		                c->prefix, aiwi_ps(c, L_ON_TIME), aiwi_ps(c, L_OFF_TIME));
	L->mode = on ? MODE_ONOFF : duty ? MODE_DUTY : MODE_PROFILE;
	L->per_rack = L->mode != MODE_PROFILE || aiwi_p(c, L_RACK_OFFSET) > 0;
	return AIW_OK;
}

/* Resolve the price of one GPU-second. */
static aiw_status load_pricing(aiwi_comp *c, load *L)
{
	aiw_sim *sim = c->sim;
	const aiwi_gpu_spec *g = NULL;
	if (aiwi_pset(c, L_GPU) && aiwi_ps(c, L_GPU)[0]) {
		aiw_status st = aiwi_hw_gpu_get(sim, aiwi_ps(c, L_GPU), &g);
		if (st != AIW_OK) {
			char msg[1024];
			snprintf(msg, sizeof msg, "%s", aiw_sim_errmsg(sim));
			return aiwi_err(sim, st, "%s.gpu: %s", c->prefix, msg);
		}
	}
	bool priced = g || aiwi_pset(c, L_COST + AIW_COST_GPU_PRICE) ||
	              aiwi_pset(c, L_COST + AIW_COST_ONDEMAND_PRICE) ||
	              aiwi_pset(c, L_COST + AIW_COST_RESERVED_PRICE);
	if (!priced || aiwi_p(c, L_GPUS) == 0)
		return AIW_OK; /* free */
	aiwi_gpu_spec none = {.name = "a load without a gpu type"};
	aiwi_pricing p;
	aiw_status st = aiwi_cost_pricing(c, L_COST, g ? g : &none, &p);
	if (st == AIW_OK)
		L->price = p;
	return st;
}

static void rack_set(load *L, size_t r, double now, double w)
{
	double old = L->rw[r];
	if (w == old)
		return;
	aiwi_int_set(&L->re[r], now, w);
	L->rw[r] = w;
	L->nbusy += (w > 0) - (old > 0);
	L->total_w = L->nbusy ? L->total_w + (w - old) : 0;
}

static void load_level(aiwi_comp *c, load *L, double now)
{
	aiwi_int_set(&L->energy, now, L->total_w);
	aiwi_int_set(&L->busy, now, (double)L->nbusy * L->gpr);
}

/* profile, shared timeline */
static void load_step(aiw_sim *sim, void *ctx, uint64_t arg)
{
	aiwi_comp *c = ctx;
	load *L = c->state;
	double now = aiwi_now(sim);
	L->i = (size_t)arg;
	double w = L->w[L->i];
	L->total_w = w;
	L->nbusy = w > 0 ? L->nr : 0;
	load_level(c, L, now);
	size_t next = L->i + 1;
	if (next < L->n) {
		aiwi_at(sim, L->cycle0 + L->t[next], load_step, c, next);
	} else if (aiwi_pset(c, L_PERIOD)) {
		L->cycle0 += aiwi_p(c, L_PERIOD);
		aiwi_at(sim, L->cycle0 + L->t[0], load_step, c, 0);
	}
}

/* profile, one timeline per rack: arg = rack << 32 | step */
static void load_rack_step(aiw_sim *sim, void *ctx, uint64_t arg)
{
	aiwi_comp *c = ctx;
	load *L = c->state;
	double now = aiwi_now(sim);
	size_t r = (size_t)(arg >> 32), i = (size_t)(arg & 0xffffffffu);
	L->ri[r] = i;
	rack_set(L, r, now, L->w[i] / (double)L->nr);
	load_level(c, L, now);
	size_t next = i + 1;
	if (next < L->n) {
		aiwi_at(sim, L->rc0[r] + L->t[next], load_rack_step, c, ((uint64_t)r << 32) | next);
	} else if (aiwi_pset(c, L_PERIOD)) {
		L->rc0[r] += aiwi_p(c, L_PERIOD);
		aiwi_at(sim, L->rc0[r] + L->t[0], load_rack_step, c, (uint64_t)r << 32);
	}
}

/* on/off: rack arg toggles */
static void load_toggle(aiw_sim *sim, void *ctx, uint64_t arg)
{
	aiwi_comp *c = ctx;
	load *L = c->state;
	double now = aiwi_now(sim);
	size_t r = (size_t)arg;
	L->on[r] = !L->on[r];
	rack_set(L, r, now, L->on[r] ? aiwi_p(c, L_ON_POWER) / (double)L->nr : 0);
	load_level(c, L, now);
	double d = aiwi_dist_sample(aiwi_pd(c, L->on[r] ? L_ON_TIME : L_OFF_TIME), c->rng);
	aiwi_at(sim, now + d, load_toggle, c, r);
}

/* duty: a new slot; every rack draws its state */
static void load_slot(aiw_sim *sim, void *ctx, uint64_t arg)
{
	aiwi_comp *c = ctx;
	load *L = c->state;
	double now = aiwi_now(sim), duty = aiwi_p(c, L_DUTY), w = aiwi_p(c, L_ON_POWER) / (double)L->nr;
	for (size_t r = 0; r < L->nr; r++) {
		L->on[r] = gsl_rng_uniform(c->rng) < duty;
		rack_set(L, r, now, L->on[r] ? w : 0);
	}
	load_level(c, L, now);
	L->slot_k += 1;
	aiwi_at(sim, L->slot_k * aiwi_p(c, L_SLOT), load_slot, c, 0);
}

static aiw_status load_start(aiwi_comp *c)
{
	aiw_sim *sim = c->sim;
	load *L = calloc(1, sizeof *L);
	if (!L)
		return aiwi_err(sim, AIW_ENOMEM, "out of memory");
	c->state = L;
	L->price.commit_gpus = -1; /* free until load_pricing prices it */
	aiw_status st;
	if ((st = load_mode(c, L)) != AIW_OK || (st = load_parse(c, L)) != AIW_OK ||
	    (st = load_pricing(c, L)) != AIW_OK)
		return st;
	L->nr = (size_t)aiwi_p(c, L_RACKS);
	L->gpr = aiwi_p(c, L_GPUS) / (double)L->nr;
	aiwi_int_init(&L->energy, 0, 0);
	aiwi_int_init(&L->busy, 0, 0);
	c->gpus = aiwi_p(c, L_GPUS);
	if (L->per_rack) {
		L->ri = calloc(L->nr, sizeof *L->ri);
		L->rc0 = calloc(L->nr, sizeof *L->rc0);
		L->on = calloc(L->nr, 1);
		L->rw = calloc(L->nr, sizeof *L->rw);
		L->re = calloc(L->nr, sizeof *L->re);
		L->rlast = calloc(L->nr, sizeof *L->rlast);
		if (!L->ri || !L->rc0 || !L->on || !L->rw || !L->re || !L->rlast)
			return aiwi_err(sim, AIW_ENOMEM, "out of memory for %zu racks", L->nr);
		for (size_t r = 0; r < L->nr; r++)
			aiwi_int_init(&L->re[r], 0, 0);
	}
	switch (L->mode) {
	case MODE_PROFILE:
		if (!L->per_rack) {
			aiwi_at(sim, L->t[0], load_step, c, 0);
			break;
		}
		for (size_t r = 0; r < L->nr; r++) {
			L->rc0[r] = (double)r * aiwi_p(c, L_RACK_OFFSET);
			aiwi_at(sim, L->rc0[r] + L->t[0], load_rack_step, c, (uint64_t)r << 32);
		}
		break;
	case MODE_ONOFF: {
		double mon = aiwi_dist_mean(aiwi_pd(c, L_ON_TIME));
		double moff = aiwi_dist_mean(aiwi_pd(c, L_OFF_TIME));
		double p_on = mon / (mon + moff), w = aiwi_p(c, L_ON_POWER) / (double)L->nr;
		for (size_t r = 0; r < L->nr; r++) {
			L->on[r] = gsl_rng_uniform(c->rng) < p_on;
			rack_set(L, r, 0, L->on[r] ? w : 0);
			double d = aiwi_dist_sample(aiwi_pd(c, L->on[r] ? L_ON_TIME : L_OFF_TIME), c->rng);
			aiwi_at(sim, d, load_toggle, c, r);
		}
		load_level(c, L, 0);
		break;
	}
	case MODE_DUTY:
		aiwi_at(sim, 0, load_slot, c, 0);
		break;
	}
	return AIW_OK;
}

/* Integral at t >= x->t without moving x: a run stopped between ticks must
 * not split the sums, or a stepped run would round differently from one
 * run. */
static double int_at(const aiwi_integral *x, double t)
{
	return t > x->t ? x->sum + x->value * (t - x->t) : x->sum;
}

static void load_account(aiwi_comp *c, double t)
{
	load *L = c->state;
	c->energy_j = int_at(&L->energy, t);
	c->busy_gpu_s = int_at(&L->busy, t);
	aiwi_cost_account_fixed(c, &L->price, aiwi_p(c, L_GPUS), t);
}

static void load_sample(aiwi_comp *c, double t)
{
	load *L = c->state;
	aiw_sim *sim = c->sim;
	load_account(c, t);
	double dt = aiwi_rec_dt(sim);
	if (!(dt > 0))
		return;
	if (!L->per_rack) {
		aiwi_site_racks_uniform(sim, c, L->nr, (c->energy_j - L->elast) / dt / (double)L->nr);
		L->elast = c->energy_j;
		return;
	}
	for (size_t r = 0; r < L->nr; r++) {
		aiwi_int_advance(&L->re[r], t);
		aiwi_site_rack_power(sim, c, r, (L->re[r].sum - L->rlast[r]) / dt);
		L->rlast[r] = L->re[r].sum;
	}
}

static void load_finish(aiwi_comp *c, double t)
{
	if (!c->state)
		return;
	load_account(c, t);
	aiwi_metric(c->sim, c->prefix, "energy_kwh", c->energy_j / 3.6e6);
}

static void load_destroy(aiwi_comp *c)
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

/* The run's work from the mode and profile start derives: profile steps
 * (per rack timeline, per period), on/off toggles or duty draws of the
 * racks; per-rack state and timers. */
static void load_estimate(aiwi_comp *c, aiwi_estimate *E)
{
	double D = aiwi_est_duration(E), racks = aiwi_p(c, L_RACKS);
	char a[64], d[64], p[64], q[64];
	load L = {0};
	if (load_mode(c, &L) != AIW_OK)
		return; /* start says why */
	if (L.mode == MODE_ONOFF) {
		double cyc = aiwi_dist_mean(aiwi_pd(c, L_ON_TIME)) + aiwi_dist_mean(aiwi_pd(c, L_OFF_TIME));
		aiwi_est_work(E, racks * 2 * D / cyc, "raise on_time and off_time, or lower racks",
		              "%s: about @ on/off toggles (%s racks x 2 x %s / (E[on_time] + "
		              "E[off_time]) %s)",
		              c->prefix, aiwi_est_num(a, sizeof a, racks), aiwi_est_dur(d, sizeof d, D),
		              aiwi_est_dur(p, sizeof p, cyc));
	} else if (L.mode == MODE_DUTY) {
		double slot = aiwi_p(c, L_SLOT);
		aiwi_est_work(E, racks * ceil(D / slot), "raise slot or lower racks",
		              "%s: about @ rack draws (%s racks x %s slots of %s)", c->prefix,
		              aiwi_est_num(a, sizeof a, racks), aiwi_est_num(q, sizeof q, ceil(D / slot)),
		              aiwi_est_dur(p, sizeof p, slot));
	} else if (load_parse(c, &L) == AIW_OK) {
		double timelines = L.per_rack ? racks : 1, steps = (double)L.n;
		if (aiwi_pset(c, L_PERIOD)) {
			double period = aiwi_p(c, L_PERIOD);
			aiwi_est_work(E, timelines * steps * ceil(D / period), "raise period or lower racks",
			              "%s: about @ profile steps (%s timelines x %s steps x %s periods of "
			              "%s)",
			              c->prefix, aiwi_est_num(a, sizeof a, timelines),
			              aiwi_est_num(q, sizeof q, steps), aiwi_est_num(d, sizeof d, ceil(D / period)),
			              aiwi_est_dur(p, sizeof p, period));
		} else {
			aiwi_est_work(E, timelines * steps, NULL, "%s", "");
		}
	}
	free(L.t);
	free(L.w);
	aiwi_est_pending(E, L.per_rack ? racks : 1);
	aiwi_est_memory(E, L.per_rack ? 64 * racks : 0, "lower racks", "%s: about @ bytes for %s racks",
	                c->prefix, aiwi_est_num(a, sizeof a, racks));
	aiwi_est_racks(E, racks, racks);
}

static const aiwi_metric_def LOAD_METRICS[] = {
	AIWI_ACCOUNT_METRICS_FIRST,
	AIWI_ACCOUNT_METRICS_LAST,
	{NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL},
};

/* nameplate and commitment from its cost entries; nodes of 8 GPUs */
static bool load_query(const aiwi_comp *c, aiwi_query q, aiwi_answer *out)
{
	return aiwi_cost_query(c, L_COST, L_GPU, SIZE_MAX, q, out);
}

const aiwi_kind aiwi_kind_load = {
	.metrics = LOAD_METRICS,
	.estimate = load_estimate,
	.name = "load",
	.params = LOAD_PARAMS,
	.nparams = L_NPARAMS,
	.flags = AIWI_KIND_ACCOUNTED,
	.start = load_start,
	.sample = load_sample,
	.finish = load_finish,
	.destroy = load_destroy,
	.query = load_query,
};
