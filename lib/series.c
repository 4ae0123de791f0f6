/*
 * series.c - the recorder: curves at a fixed sample interval.
 *
 * Models keep exact time-integrals (energy, busy GPU-seconds, paid
 * GPU-seconds, cost) of piecewise-constant quantities.  At each tick the
 * recorder asks every component to bring its integrals up to the tick, and
 * turns the deltas into interval averages: power = dE/dt, utilisation =
 * d(busy)/d(paid), cost rate = d(cost)/dt.  A curve therefore integrates back
 * to the energy metric exactly (to rounding).  Memory is O(samples x curves);
 * nothing per event is kept.
 */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct series {
	char *name;
	char *unit;
	double *v;
} series;

struct aiw_recorder {
	series *s;
	size_t ns, caps;
	double *t;
	size_t len, cap; /* points recorded, capacity of every array */
	size_t expect;   /* ticks the run's duration calls for: the first allocation */
	double interval, last_t;
	uint64_t k;      /* index of the next tick */
	bool in_tick;
};

aiw_recorder *aiw_rec_new(void)
{
	return calloc(1, sizeof(aiw_recorder));
}

void aiw_rec_clear(aiw_recorder *r)
{
	for (size_t i = 0; i < r->ns; i++) {
		free(r->s[i].name);
		free(r->s[i].unit);
		free(r->s[i].v);
	}
	free(r->s);
	free(r->t);
	memset(r, 0, sizeof *r);
}

void aiw_rec_free(aiw_recorder *r)
{
	if (!r)
		return;
	aiw_rec_clear(r);
	free(r);
}

int aiw_rec_add(aiw_sim *sim, const char *name, const char *unit)
{
	aiw_recorder *r = aiw__recorder(sim);
	if (aiw_rec_find(r, name) >= 0)
		return aiw__err(sim, AIW_EINVAL, "curve %s registered twice", name);
	if (r->len)
		return aiw__err(sim, AIW_ESTATE, "curve %s registered after recording began", name);
	if (r->ns == r->caps) {
		size_t n = r->caps ? 2 * r->caps : 32;
		series *p = realloc(r->s, n * sizeof *p);
		if (!p)
			return aiw__err(sim, AIW_ENOMEM, "out of memory");
		r->s = p;
		r->caps = n;
	}
	series *s = &r->s[r->ns];
	s->name = strdup(name);
	s->unit = strdup(unit ? unit : "");
	s->v = NULL;
	if (!s->name || !s->unit) {
		free(s->name);
		free(s->unit);
		return aiw__err(sim, AIW_ENOMEM, "out of memory");
	}
	return (int)r->ns++;
}

void aiw_rec_put(aiw_sim *sim, int id, double value)
{
	aiw_recorder *r = aiw__recorder(sim);
	if (id >= 0 && (size_t)id < r->ns && r->in_tick)
		r->s[id].v[r->len - 1] = value;
}

double aiw_rec_dt(const aiw_sim *sim)
{
	aiw_recorder *r = aiw__recorder((aiw_sim *)sim);
	return r->len ? r->t[r->len - 1] - r->last_t : r->interval;
}

static void tick_event(aiw_sim *sim, void *ctx, uint64_t arg);

static double tick_time(const aiw_recorder *r, double end)
{
	double t = (double)r->k * r->interval;
	return t > end ? end : t;
}

aiw_status aiw_rec_begin(aiw_sim *sim, double interval)
{
	aiw_recorder *r = aiw__recorder(sim);
	aiw_rec_clear(r);
	r->interval = interval;
	r->k = 1;
	/* ticks at interval, 2 interval, ... and one at the end: allocate that
	 * many points at once (up to 2^20, 8 MiB a curve), so a run's curves
	 * take what they hold without doubling slack; longer runs, or runs
	 * extended later, still grow by doubling */
	double expect = ceil(aiw__end(sim) / interval);
	r->expect = expect >= 1 && expect <= 1048576 ? (size_t)expect : 0;
	/* standard curves of the components that take part in the accounting */
	for (size_t i = 0; i < aiw__ncomps(sim); i++) {
		aiw_comp *c = aiw__comp_at(sim, i);
		c->series_base = -1;
		if (!c->kind->sample || c->kind->singleton)
			continue;
		char n[256];
		snprintf(n, sizeof n, "%s.power_w", c->prefix);
		int id = aiw_rec_add(sim, n, "W");
		snprintf(n, sizeof n, "%s.utilization", c->prefix);
		int id2 = aiw_rec_add(sim, n, "1");
		snprintf(n, sizeof n, "%s.cost_rate_usd_per_h", c->prefix);
		int id3 = aiw_rec_add(sim, n, "USD/h");
		if (id < 0 || id2 < 0 || id3 < 0)
			return AIW_ENOMEM;
		c->series_base = id;
		c->accounted = true;
	}
	if (!aiw__at(sim, tick_time(r, aiw__end(sim)), tick_event, r, 0))
		return AIW_ENOMEM;
	return AIW_OK;
}

static bool grow(aiw_recorder *r)
{
	size_t n = r->cap ? 2 * r->cap : r->expect ? r->expect : 1024;
	double *t = realloc(r->t, n * sizeof *t);
	if (!t)
		return false;
	r->t = t;
	for (size_t i = 0; i < r->ns; i++) {
		double *v = realloc(r->s[i].v, n * sizeof *v);
		if (!v)
			return false;
		r->s[i].v = v;
	}
	r->cap = n;
	return true;
}

void aiw_rec_tick(aiw_sim *sim, double t)
{
	aiw_recorder *r = aiw__recorder(sim);
	if (r->len == r->cap && !grow(r)) {
		aiw__err(sim, AIW_ENOMEM, "out of memory recording curves (%zu points)", r->len);
		aiw__fail(sim, AIW_ENOMEM);
		return;
	}
	r->t[r->len] = t;
	for (size_t i = 0; i < r->ns; i++)
		r->s[i].v[r->len] = NAN;
	r->len++;
	r->in_tick = true;
	double dt = t - r->last_t;
	size_t nc = aiw__ncomps(sim);
	aiw_comp *site = aiw__site(sim);
	for (size_t i = 0; i < nc; i++) {
		aiw_comp *c = aiw__comp_at(sim, i);
		if (c == site || !c->kind->sample)
			continue;
		c->kind->sample(c, t);
		if (c->series_base < 0)
			continue;
		double de = c->energy_j - c->prev_energy_j;
		double db = c->busy_gpu_s - c->prev_busy_gpu_s;
		double dp = c->paid_gpu_s - c->prev_paid_gpu_s;
		double dc = c->cost_usd - c->prev_cost_usd;
		c->tick_power_w = dt > 0 ? de / dt : 0;
		c->tick_util = dp > 0 ? db / dp : 0;
		c->tick_cost_rate = dt > 0 ? dc / dt * 3600.0 : 0;
		c->tick_gpus = dt > 0 ? dp / dt : c->gpus;
		c->prev_energy_j = c->energy_j;
		c->prev_busy_gpu_s = c->busy_gpu_s;
		c->prev_paid_gpu_s = c->paid_gpu_s;
		c->prev_cost_usd = c->cost_usd;
		r->s[c->series_base].v[r->len - 1] = c->tick_power_w;
		r->s[c->series_base + 1].v[r->len - 1] = c->tick_util;
		r->s[c->series_base + 2].v[r->len - 1] = c->tick_cost_rate;
	}
	if (site->kind->sample)
		site->kind->sample(site, t);
	r->in_tick = false;
	r->last_t = t;
}

static void tick_event(aiw_sim *sim, void *ctx, uint64_t arg)
{
	aiw_recorder *r = ctx;
	double t = aiw__now(sim);
	aiw_rec_tick(sim, t);
	double end = aiw__end(sim);
	if (t >= end)
		return;
	r->k++;
	aiw__at(sim, tick_time(r, end), tick_event, r, 0);
}

size_t aiw_rec_count(const aiw_recorder *r) { return r->ns; }
const char *aiw_rec_name(const aiw_recorder *r, size_t i) { return i < r->ns ? r->s[i].name : NULL; }
const char *aiw_rec_unit(const aiw_recorder *r, size_t i) { return i < r->ns ? r->s[i].unit : NULL; }
size_t aiw_rec_length(const aiw_recorder *r) { return r->len; }
const double *aiw_rec_times(const aiw_recorder *r) { return r->t; }
const double *aiw_rec_values(const aiw_recorder *r, size_t i) { return i < r->ns ? r->s[i].v : NULL; }

int aiw_rec_find(const aiw_recorder *r, const char *name)
{
	for (size_t i = 0; i < r->ns; i++)
		if (strcmp(r->s[i].name, name) == 0)
			return (int)i;
	return -1;
}

/* ------------------------------------------------------------------------ */
/* public access                                                             */
/* ------------------------------------------------------------------------ */
static aiw_status find_series(aiw_sim *sim, const char *name, int *id)
{
	if (!name)
		return aiw__err(sim, AIW_EINVAL, "curve name is NULL");
	aiw_recorder *r = aiw__recorder(sim);
	*id = aiw_rec_find(r, name);
	if (*id >= 0)
		return AIW_OK;
	const char *best = NULL;
	size_t bd = SIZE_MAX;
	for (size_t i = 0; i < r->ns; i++) {
		size_t d = aiw_edit_distance(r->s[i].name, name);
		if (d < bd)
			bd = d, best = r->s[i].name;
	}
	if (best && bd <= 3)
		return aiw__err(sim, AIW_EUNKNOWN, "no curve '%s'; did you mean '%s'?", name, best);
	return aiw__err(sim, AIW_EUNKNOWN, "no curve '%s'%s", name,
	                r->ns ? "" : " (curves exist once a run has started)");
}

AIW_EXPORT aiw_status aiw_sim_series_count(aiw_sim *sim, size_t *out)
{
	if (!sim)
		return AIW_EINVAL;
	if (!out)
		return aiw__err(sim, AIW_EINVAL, "aiw_sim_series_count: out is NULL");
	*out = aiw_rec_count(aiw__recorder(sim));
	return AIW_OK;
}

AIW_EXPORT aiw_status aiw_sim_series_name(aiw_sim *sim, size_t i, const char **out)
{
	if (!sim)
		return AIW_EINVAL;
	if (!out)
		return aiw__err(sim, AIW_EINVAL, "aiw_sim_series_name: out is NULL");
	aiw_recorder *r = aiw__recorder(sim);
	if (i >= r->ns)
		return aiw__err(sim, AIW_ERANGE, "curve index %zu: there are %zu curves", i, r->ns);
	*out = r->s[i].name;
	return AIW_OK;
}

AIW_EXPORT aiw_status aiw_sim_series_unit(aiw_sim *sim, const char *name, const char **out)
{
	if (!sim)
		return AIW_EINVAL;
	if (!out)
		return aiw__err(sim, AIW_EINVAL, "aiw_sim_series_unit: out is NULL");
	int id;
	aiw_status st = find_series(sim, name, &id);
	if (st == AIW_OK)
		*out = aiw__recorder(sim)->s[id].unit;
	return st;
}

AIW_EXPORT aiw_status aiw_sim_series_length(aiw_sim *sim, const char *name, size_t *out)
{
	if (!sim)
		return AIW_EINVAL;
	if (!out)
		return aiw__err(sim, AIW_EINVAL, "aiw_sim_series_length: out is NULL");
	int id;
	aiw_status st = find_series(sim, name, &id);
	if (st == AIW_OK)
		*out = aiw__recorder(sim)->len;
	return st;
}

AIW_EXPORT aiw_status aiw_sim_series_copy(aiw_sim *sim, const char *name, double *t, double *v,
                                          size_t cap, size_t *n)
{
	if (!sim)
		return AIW_EINVAL;
	int id;
	aiw_status st = find_series(sim, name, &id);
	if (st != AIW_OK)
		return st;
	if ((t || v) && cap == 0 && aiw__recorder(sim)->len)
		return aiw__err(sim, AIW_EBUFFER, "aiw_sim_series_copy: cap is 0");
	aiw_recorder *r = aiw__recorder(sim);
	size_t k = r->len < cap ? r->len : cap;
	if (t)
		memcpy(t, r->t, k * sizeof *t);
	if (v)
		memcpy(v, r->s[id].v, k * sizeof *v);
	if (n)
		*n = k;
	if (k < r->len)
		return aiw__err(sim, AIW_EBUFFER, "aiw_sim_series_copy: %s has %zu points, cap is %zu",
		                name, r->len, cap);
	return AIW_OK;
}
