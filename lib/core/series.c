/*
 * series.c - the recorder: curves at a fixed sample interval.
 *
 * Models keep exact time-integrals (energy, busy GPU-seconds, paid
 * GPU-seconds, cost) of piecewise-constant quantities.  At each tick the
 * recorder asks every component to bring its integrals up to the tick, and
 * turns the deltas into interval averages: power = dE/dt, utilisation =
 * d(busy)/d(paid), cost rate = d(cost)/dt.  A curve therefore integrates back
 * to the energy metric exactly (to rounding).  Nothing per event is kept.
 *
 * Memory: every curve keeps its points in an array of one capacity shared
 * with the times.  With sim.series_keep = all (0, the default) the capacity
 * is the run's ticks, allocated at once up to 2^20 (doubled beyond), so
 * memory is O(samples x curves).  With series_keep = N the capacity is
 * min(ticks, N) and the arrays are a ring: once full, each tick overwrites
 * the oldest point, so memory is O(N x curves) however long the run.
 * Readers (aiwi_rec_times, aiwi_rec_values: the copy-out and the writers)
 * first rotate the ring in place so that the oldest kept point is at index
 * 0.  The sample callback (aiw_sim_set_sample_callback) sees every tick's
 * values as they are recorded, so a consumer can stream whole curves out of
 * a run that keeps only a few points.
 */
#include "core/internal.h"
#include "core/stats.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct series {
	char *name;
	char *unit;
	double *v;
} series;

struct aiwi_recorder {
	series *s;
	size_t ns, caps;
	double *t;
	size_t len, cap; /* points kept, capacity of every array */
	size_t head;     /* index of the oldest kept point (0 unless the ring wrapped) */
	size_t cur;      /* index of the newest point (the one a tick fills) */
	size_t keep;     /* sim.series_keep: 0 keeps every point, else at most keep */
	uint64_t total;  /* points recorded since the run started (kept or not) */
	size_t expect;   /* ticks the run's duration calls for: the first allocation */
	double *row;     /* the sample callback's values, one per curve */
	double interval, last_t, cur_t;
	uint64_t k;      /* index of the next tick */
	bool in_tick;
	size_t *hash;    /* curves by name, open addressing: index+1, 0 empty */
	size_t hcap;
	/* latency histogram snapshots (aiwi_rec_hist_snapshots): hs_n values
	 * per tick, hs_len ticks of hs_cap */
	double *hs;
	size_t hs_n, hs_len, hs_cap;
};

const double aiwi_le_bounds[AIWI_NLE] = {0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
                                         1,     2.5,  5,    10,    30,  60,  120};

static size_t name_hash(const char *s)
{
	size_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h ^ (h >> 29);
}

static void hash_put(aiwi_recorder *r, size_t i)
{
	size_t j = name_hash(r->s[i].name) & (r->hcap - 1);
	while (r->hash[j])
		j = (j + 1) & (r->hcap - 1);
	r->hash[j] = i + 1;
}

aiwi_recorder *aiwi_rec_new(void)
{
	return calloc(1, sizeof(aiwi_recorder));
}

void aiwi_rec_clear(aiwi_recorder *r)
{
	for (size_t i = 0; i < r->ns; i++) {
		free(r->s[i].name);
		free(r->s[i].unit);
		free(r->s[i].v);
	}
	free(r->s);
	free(r->t);
	free(r->row);
	free(r->hash);
	free(r->hs);
	memset(r, 0, sizeof *r);
}

void aiwi_rec_free(aiwi_recorder *r)
{
	if (!r)
		return;
	aiwi_rec_clear(r);
	free(r);
}

int aiwi_rec_add(aiw_sim *sim, const char *name, const char *unit)
{
	aiwi_recorder *r = aiwi_sim_recorder(sim);
	if (aiwi_rec_find(r, name) >= 0)
		return aiwi_err(sim, AIW_EINVAL, "curve %s registered twice", name);
	if (r->total)
		return aiwi_err(sim, AIW_ESTATE, "curve %s registered after recording began", name);
	if (r->ns == r->caps) {
		size_t n = r->caps ? 2 * r->caps : 32;
		series *p = realloc(r->s, n * sizeof *p);
		if (!p)
			return aiwi_err(sim, AIW_ENOMEM, "out of memory");
		r->s = p;
		r->caps = n;
	}
	/* curves are found by name in O(1): registering N of them is O(N) */
	if (2 * (r->ns + 1) > r->hcap) {
		size_t cap = r->hcap ? 2 * r->hcap : 64;
		size_t *h = calloc(cap, sizeof *h);
		if (!h)
			return aiwi_err(sim, AIW_ENOMEM, "out of memory");
		free(r->hash);
		r->hash = h;
		r->hcap = cap;
		for (size_t i = 0; i < r->ns; i++)
			hash_put(r, i);
	}
	series *s = &r->s[r->ns];
	s->name = strdup(name);
	s->unit = strdup(unit ? unit : "");
	s->v = NULL;
	if (!s->name || !s->unit) {
		free(s->name);
		free(s->unit);
		return aiwi_err(sim, AIW_ENOMEM, "out of memory");
	}
	hash_put(r, r->ns);
	return (int)r->ns++;
}

void aiwi_rec_put(aiw_sim *sim, int id, double value)
{
	aiwi_recorder *r = aiwi_sim_recorder(sim);
	if (id >= 0 && (size_t)id < r->ns && r->in_tick)
		r->s[id].v[r->cur] = value;
}

double aiwi_rec_dt(const aiw_sim *sim)
{
	aiwi_recorder *r = aiwi_sim_recorder((aiw_sim *)sim);
	return r->total ? r->cur_t - r->last_t : r->interval;
}

static void tick_event(aiw_sim *sim, void *ctx, uint64_t arg);

static double tick_time(const aiwi_recorder *r, double end)
{
	double t = (double)r->k * r->interval;
	return t > end ? end : t;
}

aiw_status aiwi_rec_begin(aiw_sim *sim, double interval, size_t keep)
{
	aiwi_recorder *r = aiwi_sim_recorder(sim);
	aiwi_rec_clear(r);
	r->interval = interval;
	r->k = 1;
	r->keep = keep;
	/* ticks at interval, 2 interval, ... and one at the end: allocate that
	 * many points at once (up to 2^20, 8 MiB a curve), so a run's curves
	 * take what they hold without doubling slack; longer runs, or runs
	 * extended later, still grow by doubling.  A ring of keep points never
	 * takes more than keep. */
	double expect = ceil(aiwi_end(sim) / interval);
	r->expect = expect >= 1 && expect <= 1048576 ? (size_t)expect : 0;
	if (keep && (!r->expect || r->expect > keep) && keep <= 1048576)
		r->expect = keep;
	/* standard curves of the components that take part in the accounting */
	for (size_t i = 0; i < aiwi_ncomps(sim); i++) {
		aiwi_comp *c = aiwi_comp_at(sim, i);
		c->series_base = -1;
		if (!aiwi_kind_is(c->kind, AIWI_KIND_ACCOUNTED))
			continue;
		char n[256];
		snprintf(n, sizeof n, "%s.power_w", c->prefix);
		int id = aiwi_rec_add(sim, n, "W");
		snprintf(n, sizeof n, "%s.utilization", c->prefix);
		int id2 = aiwi_rec_add(sim, n, "1");
		snprintf(n, sizeof n, "%s.cost_rate_usd_per_h", c->prefix);
		int id3 = aiwi_rec_add(sim, n, "USD/h");
		int id4 = 0, id5 = 0;
		if (aiwi_kind_is(c->kind, AIWI_KIND_TELEMETRY)) {
			snprintf(n, sizeof n, "%s.kernel_busy", c->prefix);
			id4 = aiwi_rec_add(sim, n, "1");
			snprintf(n, sizeof n, "%s.tensor_activity", c->prefix);
			id5 = aiwi_rec_add(sim, n, "1");
		}
		if (id < 0 || id2 < 0 || id3 < 0 || id4 < 0 || id5 < 0)
			return AIW_ENOMEM;
		c->series_base = id;
		c->accounted = true;
	}
	/* the histogram snapshots, when asked for and every point is kept */
	r->hs_n = 0;
	for (size_t i = 0; !keep && aiwi_hist_series(sim) && i < aiwi_ncomps(sim); i++) {
		aiwi_comp *c = aiwi_comp_at(sim, i);
		if (!c->kind->histograms || !c->kind->histogram)
			continue;
		for (const aiwi_hist_def *h = c->kind->histograms; h->key; h++)
			r->hs_n += AIWI_NLE + 2;
	}
	if (!aiwi_at(sim, tick_time(r, aiwi_end(sim)), tick_event, r, 0))
		return AIW_ENOMEM;
	return AIW_OK;
}

/* This tick's snapshot of every latency histogram; false when out of
 * memory. */
static bool hist_snapshot(aiw_sim *sim, aiwi_recorder *r)
{
	if (!r->hs_n)
		return true;
	if (r->hs_len == r->hs_cap) {
		size_t n = r->hs_cap ? 2 * r->hs_cap : r->expect ? r->expect + 1 : 1024;
		double *p = realloc(r->hs, n * r->hs_n * sizeof *p);
		if (!p)
			return false;
		r->hs = p;
		r->hs_cap = n;
	}
	double *o = r->hs + r->hs_len * r->hs_n;
	for (size_t i = 0; i < aiwi_ncomps(sim); i++) {
		aiwi_comp *c = aiwi_comp_at(sim, i);
		if (!c->kind->histograms || !c->kind->histogram)
			continue;
		for (const aiwi_hist_def *d = c->kind->histograms; d->key; d++) {
			const aiwi_hist *h = c->kind->histogram(c, d->key);
			uint64_t cnt[AIWI_NLE];
			aiwi_hist_counts_le(h, aiwi_le_bounds, AIWI_NLE, cnt);
			for (size_t b = 0; b < AIWI_NLE; b++)
				*o++ = h ? (double)cnt[b] : NAN;
			*o++ = h ? (double)aiwi_hist_count(h) : NAN;
			*o++ = h ? aiwi_hist_sum(h) : NAN;
		}
	}
	r->hs_len++;
	return true;
}

const double *aiwi_rec_hist_snapshots(const aiwi_recorder *r, size_t *per_tick, size_t *ticks)
{
	*per_tick = r->hs_n;
	*ticks = r->hs_n && r->hs_len == r->len ? r->hs_len : 0;
	return r->hs;
}

static void reverse(double *a, size_t lo, size_t hi)
{
	while (lo + 1 < hi) {
		double x = a[lo];
		a[lo++] = a[--hi];
		a[hi] = x;
	}
}

/* Rotate a[0 .. n) left by k in place (three reversals). */
static void rotate(double *a, size_t n, size_t k)
{
	reverse(a, 0, k);
	reverse(a, k, n);
	reverse(a, 0, n);
}

/* Bring the oldest kept point to index 0 of every array.  The ring moves
 * only once it is full (len == cap), so the whole capacity rotates. */
static void linearize(aiwi_recorder *r)
{
	if (!r->head)
		return;
	rotate(r->t, r->cap, r->head);
	for (size_t i = 0; i < r->ns; i++)
		rotate(r->s[i].v, r->cap, r->head);
	r->cur = (r->cur + r->cap - r->head) % r->cap;
	r->head = 0;
}

static bool grow(aiwi_recorder *r)
{
	size_t n = r->cap ? 2 * r->cap : r->expect ? r->expect : 1024;
	if (r->keep && n > r->keep)
		n = r->keep;
	linearize(r); /* (a ring that can still grow has not wrapped) */
	if (!r->row) {
		r->row = malloc((r->ns ? r->ns : 1) * sizeof *r->row);
		if (!r->row)
			return false;
	}
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

void aiwi_rec_tick(aiw_sim *sim, double t)
{
	aiwi_recorder *r = aiwi_sim_recorder(sim);
	if (r->len == r->cap && (!r->keep || r->cap < r->keep) && !grow(r)) {
		aiwi_err(sim, AIW_ENOMEM, "out of memory recording curves (%zu points)", r->len);
		aiwi_fail(sim, AIW_ENOMEM);
		return;
	}
	if (r->len < r->cap) {
		r->cur = (r->head + r->len) % r->cap;
		r->len++;
	} else { /* a full ring: the newest point replaces the oldest */
		r->cur = r->head;
		r->head = (r->head + 1) % r->cap;
	}
	r->total++;
	r->cur_t = t;
	r->t[r->cur] = t;
	for (size_t i = 0; i < r->ns; i++)
		r->s[i].v[r->cur] = NAN;
	r->in_tick = true;
	double dt = t - r->last_t;
	size_t nc = aiwi_ncomps(sim);
	aiwi_comp *agg = aiwi_aggregator(sim);
	for (size_t i = 0; i < nc; i++) {
		aiwi_comp *c = aiwi_comp_at(sim, i);
		if (!c->kind->sample || aiwi_kind_is(c->kind, AIWI_KIND_AGGREGATOR))
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
		/* telemetry figures: NaN where the model keeps none */
		bool tel = c->peak_flop_s > 0;
		c->tick_kbusy = !tel ? NAN : dp > 0 ? (c->kbusy_gpu_s - c->prev_kbusy_gpu_s) / dp : 0;
		c->tick_tensor = !tel ? NAN : dp > 0 ? (c->flops - c->prev_flops) / (dp * c->peak_flop_s) : 0;
		c->prev_kbusy_gpu_s = c->kbusy_gpu_s;
		c->prev_flops = c->flops;
		c->prev_energy_j = c->energy_j;
		c->prev_busy_gpu_s = c->busy_gpu_s;
		c->prev_paid_gpu_s = c->paid_gpu_s;
		c->prev_cost_usd = c->cost_usd;
		r->s[c->series_base].v[r->cur] = c->tick_power_w;
		r->s[c->series_base + 1].v[r->cur] = c->tick_util;
		r->s[c->series_base + 2].v[r->cur] = c->tick_cost_rate;
		if (aiwi_kind_is(c->kind, AIWI_KIND_TELEMETRY)) {
			r->s[c->series_base + 3].v[r->cur] = c->tick_kbusy;
			r->s[c->series_base + 4].v[r->cur] = c->tick_tensor;
		}
	}
	/* the aggregator (the site) sums the ticks the others just gave */
	if (agg && agg->kind->sample)
		agg->kind->sample(agg, t);
	r->in_tick = false;
	r->last_t = t;
	if (!hist_snapshot(sim, r)) {
		aiwi_err(sim, AIW_ENOMEM, "out of memory recording the latency histograms (%zu points)",
		         r->hs_len);
		aiwi_fail(sim, AIW_ENOMEM);
		return;
	}
	/* every curve has its point: hand the tick to the sample callback
	 * (which may read or write anything of sim a callback may, including
	 * the curves, rotating the ring: nothing of this tick is used after) */
	void *payload;
	aiw_sample_fn fn = aiwi_sample_fn(sim, &payload);
	if (fn) {
		for (size_t i = 0; i < r->ns; i++)
			r->row[i] = r->s[i].v[r->cur];
		fn(sim, t, r->row, r->ns, payload);
	}
}

static void tick_event(aiw_sim *sim, void *ctx, uint64_t arg)
{
	aiwi_recorder *r = ctx;
	double t = aiwi_now(sim);
	aiwi_rec_tick(sim, t);
	double end = aiwi_end(sim);
	if (t >= end)
		return;
	r->k++;
	aiwi_at(sim, tick_time(r, end), tick_event, r, 0);
}

size_t aiwi_rec_count(const aiwi_recorder *r) { return r->ns; }
const char *aiwi_rec_name(const aiwi_recorder *r, size_t i) { return i < r->ns ? r->s[i].name : NULL; }
const char *aiwi_rec_unit(const aiwi_recorder *r, size_t i) { return i < r->ns ? r->s[i].unit : NULL; }
size_t aiwi_rec_length(const aiwi_recorder *r) { return r->len; }
size_t aiwi_rec_capacity(const aiwi_recorder *r) { return r->cap; }
uint64_t aiwi_rec_dropped(const aiwi_recorder *r) { return r->total - r->len; }

double aiwi_rec_window_start(const aiwi_recorder *r)
{
	/* the tick before the oldest kept one: ticks are k x interval (only the
	 * last can be shorter, and it is never followed by another) */
	return r->total > r->len ? (double)(r->total - r->len) * r->interval : 0.0;
}

const double *aiwi_rec_times(aiwi_recorder *r)
{
	linearize(r);
	return r->t;
}

const double *aiwi_rec_values(aiwi_recorder *r, size_t i)
{
	linearize(r);
	return i < r->ns ? r->s[i].v : NULL;
}

int aiwi_rec_find(const aiwi_recorder *r, const char *name)
{
	if (!r->hcap)
		return -1;
	for (size_t j = name_hash(name) & (r->hcap - 1); r->hash[j]; j = (j + 1) & (r->hcap - 1))
		if (strcmp(r->s[r->hash[j] - 1].name, name) == 0)
			return (int)(r->hash[j] - 1);
	return -1;
}

/* ------------------------------------------------------------------------ */
/* public access                                                             */
/* ------------------------------------------------------------------------ */
static aiw_status find_series(aiw_sim *sim, const char *name, int *id)
{
	if (!name)
		return aiwi_err(sim, AIW_EINVAL, "curve name is NULL");
	aiwi_recorder *r = aiwi_sim_recorder(sim);
	*id = aiwi_rec_find(r, name);
	if (*id >= 0)
		return AIW_OK;
	const char *best = NULL;
	size_t bd = SIZE_MAX;
	for (size_t i = 0; i < r->ns; i++) {
		size_t d = aiwi_edit_distance(r->s[i].name, name);
		if (d < bd)
			bd = d, best = r->s[i].name;
	}
	if (best && bd <= 3)
		return aiwi_err(sim, AIW_EUNKNOWN, "no curve '%s'; did you mean '%s'?", name, best);
	return aiwi_err(sim, AIW_EUNKNOWN, "no curve '%s'%s", name,
	                r->ns ? "" : " (curves exist once a run has started)");
}

AIW_EXPORT aiw_status aiw_sim_series_count(aiw_sim *sim, size_t *out)
{
	if (!sim)
		return AIW_EINVAL;
	if (!out)
		return aiwi_err(sim, AIW_EINVAL, "aiw_sim_series_count: out is NULL");
	*out = aiwi_rec_count(aiwi_sim_recorder(sim));
	return AIW_OK;
}

AIW_EXPORT aiw_status aiw_sim_series_name(aiw_sim *sim, size_t i, const char **out)
{
	if (!sim)
		return AIW_EINVAL;
	if (!out)
		return aiwi_err(sim, AIW_EINVAL, "aiw_sim_series_name: out is NULL");
	aiwi_recorder *r = aiwi_sim_recorder(sim);
	if (i >= r->ns)
		return aiwi_err(sim, AIW_ERANGE, "curve index %zu: there are %zu curves", i, r->ns);
	*out = r->s[i].name;
	return AIW_OK;
}

AIW_EXPORT aiw_status aiw_sim_series_unit(aiw_sim *sim, const char *name, const char **out)
{
	if (!sim)
		return AIW_EINVAL;
	if (!out)
		return aiwi_err(sim, AIW_EINVAL, "aiw_sim_series_unit: out is NULL");
	int id;
	aiw_status st = find_series(sim, name, &id);
	if (st == AIW_OK)
		*out = aiwi_sim_recorder(sim)->s[id].unit;
	return st;
}

AIW_EXPORT aiw_status aiw_sim_series_length(aiw_sim *sim, const char *name, size_t *out)
{
	if (!sim)
		return AIW_EINVAL;
	if (!out)
		return aiwi_err(sim, AIW_EINVAL, "aiw_sim_series_length: out is NULL");
	int id;
	aiw_status st = find_series(sim, name, &id);
	if (st == AIW_OK)
		*out = aiwi_sim_recorder(sim)->len;
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
	if ((t || v) && cap == 0 && aiwi_sim_recorder(sim)->len)
		return aiwi_err(sim, AIW_EBUFFER, "aiw_sim_series_copy: cap is 0");
	aiwi_recorder *r = aiwi_sim_recorder(sim);
	size_t k = r->len < cap ? r->len : cap;
	if (t && k) /* (nothing recorded yet: no buffer to copy from) */
		memcpy(t, aiwi_rec_times(r), k * sizeof *t);
	if (v && k)
		memcpy(v, aiwi_rec_values(r, (size_t)id), k * sizeof *v);
	if (n)
		*n = k;
	if (k < r->len)
		return aiwi_err(sim, AIW_EBUFFER, "aiw_sim_series_copy: %s has %zu points, cap is %zu",
		                name, r->len, cap);
	return AIW_OK;
}

/* ------------------------------------------------------------------------ */
/* the standard curves of an accounted component                             */
/* ------------------------------------------------------------------------ */
const aiwi_curve_def aiwi_component_curves[] = {
	{"power_w", "W", "power_watts", NULL, AIWI_CURVE_GAUGE, false, false,
	 "IT power of a component: GPUs and node overhead (W)"},
	{"utilization", "1", "gpu_utilization", NULL, AIWI_CURVE_GAUGE, false, false,
	 "useful-work GPU-seconds / provisioned GPU-seconds of a component (0-1): inference, a "
	 "replica with a request in its batch; training, compute time only"},
	{"cost_rate_usd_per_h", "USD/h", NULL, NULL, 0, false, false,
	 "hardware and energy cost rate of a component over the interval (USD/h)"},
	/* recorded by the site (site.c) */
	{"cost_usd", "USD", NULL, NULL, 0, false, false,
	 "cumulative cost of a component since the start: hardware and energy (USD)"},
	{NULL, NULL, NULL, NULL, 0, false, false, NULL},
};
