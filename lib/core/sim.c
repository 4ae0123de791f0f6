/*
 * sim.c - the simulation object: components, random streams, the run loop,
 * scheduling for experiment drivers, summary metrics, status codes.
 *
 * Lifecycle: CONFIG (parameters may change) -> first run call starts every
 * component -> RUNNING (run_until steps; runtime parameters may change) ->
 * DONE at sim.duration.  aiw_sim_reset goes back to CONFIG at time 0.
 *
 * Random streams: each component owns a gsl_rng (MT19937) seeded from
 * (seed, component prefix) through SplitMix64, so adding a component never
 * changes the draws of another, and a result depends only on (scenario, seed).
 */
#include "core/internal.h"
#include "core/limits.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>

#define ERRMSG_LEN 1024
/* the shortest progress interval, as sim.sample_interval's minimum */
#define AIW_PROGRESS_MIN_EVERY 1e-6

enum { ST_CONFIG, ST_RUNNING, ST_DONE };

/* the core's own kind ([sim]: the clock and the seed), defined below and
 * listed in lib/kinds.def */
extern const aiwi_kind aiwi_kind_sim;

typedef struct metric {
	char *name;
	double value;
} metric;

struct aiw_sim {
	uint64_t seed;
	aiwi_engine eng;
	aiwi_comp **comps;
	size_t ncomps, capcomps;
	size_t *chash; /* components by (kind, name), open addressing: index+1, 0 empty */
	size_t chcap;
	aiwi_recorder *rec;
	aiwi_comp *simcomp, *aggregator; /* the sim singleton; the aggregator (the site) */
	metric *metrics;
	size_t nmetrics, capmetrics;
	size_t *mhash; /* open addressing: index+1 into metrics, 0 empty */
	size_t mhcap;
	int state;
	bool in_run;
	bool free_pending; /* aiw_sim_free called from a callback: done at the run's end */
	aiw_status fail;
	double end, sample_interval;
	aiw_progress_fn progress;
	void *progress_payload;
	aiw_sample_fn sample;
	void *sample_payload;
	double progress_every, progress_next;
	const char *base_dir;
	aiwi_int_log intlog; /* integrals advanced by the finish hooks (internal.h) */
	struct aiwi_warnings *warnings; /* warnings.c */
	aiwi_memo *memo;                /* shared results of input files (memo.c), or NULL */
	char errmsg[ERRMSG_LEN];
};

void aiwi_sim_set_memo(aiw_sim *sim, aiwi_memo *m)
{
	aiwi_memo_ref(m);
	aiwi_memo_unref(sim->memo);
	sim->memo = m;
}

aiwi_memo *aiwi_sim_memo(const aiw_sim *sim)
{
	return sim->memo;
}

struct aiwi_warnings **aiwi_sim_warnings(aiw_sim *sim)
{
	return &sim->warnings;
}

_Thread_local aiwi_int_log *aiwi_int_peek AIW_TLS_IE;

void aiwi_int_save(aiwi_integral *x)
{
	aiwi_int_log *l = aiwi_int_peek;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 64;
		aiwi_int_saved *v = realloc(l->v, cap * sizeof *v);
		if (!v) {
			l->lost = true;
			return;
		}
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = (aiwi_int_saved){x, *x};
}

/* ------------------------------------------------------------------------ */
/* status codes and version                                                  */
/* ------------------------------------------------------------------------ */
AIW_EXPORT const char *aiw_strerror(int status)
{
	switch (status) {
#define XX(name, value, text) \
	case value: return text;
		AIW_STATUS_MAP(XX)
#undef XX
	}
	return "unknown status code";
}

AIW_EXPORT const char *aiw_status_name(int status)
{
	switch (status) {
#define XX(name, value, text) \
	case value: return "AIW_" #name;
		AIW_STATUS_MAP(XX)
#undef XX
	}
	return "AIW_UNKNOWN_STATUS";
}

AIW_EXPORT unsigned aiw_version(void)
{
	return AIW_VERSION_NUMBER;
}

#define AIW_STR2(x) #x
#define AIW_STR(x) AIW_STR2(x)
AIW_EXPORT const char *aiw_version_string(void)
{
	return AIW_STR(AIW_VERSION_MAJOR) "." AIW_STR(AIW_VERSION_MINOR) "." AIW_STR(
		AIW_VERSION_PATCH);
}

/* ------------------------------------------------------------------------ */
/* errors                                                                    */
/* ------------------------------------------------------------------------ */
aiw_status aiwi_verr(aiw_sim *sim, aiw_status code, const char *fmt, va_list ap)
{
	if (sim)
		vsnprintf(sim->errmsg, sizeof sim->errmsg, fmt, ap);
	return code;
}

aiw_status aiwi_err(aiw_sim *sim, aiw_status code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	aiwi_verr(sim, code, fmt, ap);
	va_end(ap);
	return code;
}

AIW_EXPORT const char *aiw_sim_errmsg(const aiw_sim *sim)
{
	return sim ? sim->errmsg : "aiw_sim_errmsg: sim is NULL";
}

void aiwi_fail(aiw_sim *sim, aiw_status code)
{
	if (sim->fail == AIW_OK)
		sim->fail = code;
	sim->eng.inl_end = -INFINITY; /* after a failure nothing runs in place */
}

aiw_sample_fn aiwi_sample_fn(const aiw_sim *sim, void **payload)
{
	*payload = sim->sample_payload;
	return sim->sample;
}

/* ------------------------------------------------------------------------ */
/* components                                                                */
/* ------------------------------------------------------------------------ */
uint64_t aiwi_stream_seed(uint64_t seed, const char *text)
{
	/* FNV-1a of the text, mixed with the seed through SplitMix64 */
	uint64_t h = 1469598103934665603ull;
	for (const unsigned char *p = (const unsigned char *)text; *p; p++)
		h = (h ^ *p) * 1099511628211ull;
	uint64_t z = seed + 0x9e3779b97f4a7c15ull * (h | 1);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static void comp_free(aiwi_comp *c)
{
	if (!c)
		return;
	if (c->kind->destroy && c->state)
		c->kind->destroy(c);
	for (size_t i = 0; i < c->kind->nparams; i++)
		aiwi_value_free(&c->v[i]);
	free(c->v);
	free(c->late);
	if (c->rng)
		gsl_rng_free(c->rng);
	free(c->name);
	free(c->prefix);
	free(c->origin);
	free(c);
}

static bool valid_name(const char *s)
{
	if (!*s || strlen(s) > 64)
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || *s == '-'))
			return false;
	return true;
}

static aiw_status comp_new(aiw_sim *sim, const aiwi_kind *k, const char *name, aiwi_comp **out)
{
	aiwi_comp *c = calloc(1, sizeof *c);
	if (!c)
		return aiwi_err(sim, AIW_ENOMEM, "out of memory creating %s %s", k->name, name);
	c->kind = k;
	c->sim = sim;
	c->name = strdup(name);
	size_t pl = strlen(k->name) + strlen(name) + 2;
	c->prefix = malloc(pl);
	c->v = calloc(k->nparams ? k->nparams : 1, sizeof *c->v);
	c->late = calloc(k->nparams ? k->nparams : 1, 1);
	if (!c->name || !c->prefix || !c->v || !c->late) {
		comp_free(c);
		return aiwi_err(sim, AIW_ENOMEM, "out of memory creating %s %s", k->name, name);
	}
	if (aiwi_kind_is(k, AIWI_KIND_SINGLETON))
		snprintf(c->prefix, pl, "%s", k->name);
	else
		snprintf(c->prefix, pl, "%s.%s", k->name, name);
	for (size_t i = 0; i < k->nparams; i++) {
		const aiwi_param_def *d = &k->params[i];
		c->v[i].d = NAN;
		if (!d->def)
			continue;
		char e[256];
		aiw_status st = aiwi_value_parse(d, d->def, "", &c->v[i], e, sizeof e);
		if (st != AIW_OK) { /* a library bug: the default does not parse */
			aiwi_err(sim, st, "default of %s.%s: %s", c->prefix, d->key, e);
			comp_free(c);
			return st;
		}
	}
	*out = c;
	return AIW_OK;
}

/* Components are found by (kind, name) in a hash table, so that setting up
 * N components costs O(N), not O(N^2) string comparisons. */
static size_t comp_hash(const aiwi_kind *k, const char *name)
{
	size_t h = 1469598103934665603ull ^ (size_t)(uintptr_t)k;
	for (const unsigned char *p = (const unsigned char *)name; *p; p++)
		h = (h ^ *p) * 1099511628211ull;
	return h ^ (h >> 29);
}

static void chash_put(aiw_sim *sim, size_t i)
{
	const aiwi_comp *c = sim->comps[i];
	size_t j = comp_hash(c->kind, c->name) & (sim->chcap - 1);
	while (sim->chash[j])
		j = (j + 1) & (sim->chcap - 1);
	sim->chash[j] = i + 1;
}

/* Rebuild the table for the first sim->ncomps components at capacity cap. */
static bool chash_rebuild(aiw_sim *sim, size_t cap)
{
	size_t *h = calloc(cap, sizeof *h);
	if (!h)
		return false;
	free(sim->chash);
	sim->chash = h;
	sim->chcap = cap;
	for (size_t i = 0; i < sim->ncomps; i++)
		chash_put(sim, i);
	return true;
}

/* The component of kind k named name, or NULL; *probes (may be NULL)
 * receives the entries compared. */
static aiwi_comp *comp_lookup(const aiw_sim *sim, const aiwi_kind *k, const char *name,
                              size_t *probes)
{
	size_t n = 0;
	aiwi_comp *found = NULL;
	if (sim->chcap) {
		size_t j = comp_hash(k, name) & (sim->chcap - 1);
		for (; sim->chash[j]; j = (j + 1) & (sim->chcap - 1)) {
			aiwi_comp *c = sim->comps[sim->chash[j] - 1];
			n++;
			if (c->kind == k && strcmp(c->name, name) == 0) {
				found = c;
				break;
			}
		}
	}
	if (probes)
		*probes = n;
	return found;
}

static aiwi_comp *comp_find(const aiw_sim *sim, const aiwi_kind *k, const char *name)
{
	return comp_lookup(sim, k, name, NULL);
}

static aiw_status comp_append(aiw_sim *sim, aiwi_comp *c)
{
	if (2 * (sim->ncomps + 1) > sim->chcap &&
	    !chash_rebuild(sim, sim->chcap ? 2 * sim->chcap : 16))
		return aiwi_err(sim, AIW_ENOMEM, "out of memory");
	if (sim->ncomps == sim->capcomps) {
		size_t n = sim->capcomps ? 2 * sim->capcomps : 8;
		aiwi_comp **p = realloc(sim->comps, n * sizeof *p);
		if (!p)
			return aiwi_err(sim, AIW_ENOMEM, "out of memory");
		sim->comps = p;
		sim->capcomps = n;
	}
	c->order = sim->ncomps;
	sim->comps[sim->ncomps++] = c;
	chash_put(sim, sim->ncomps - 1);
	return AIW_OK;
}

#define MAX_COMPONENTS 4096

aiw_status aiwi_comp_get(aiw_sim *sim, const char *kind, const char *name, bool create,
                         aiwi_comp **out)
{
	const aiwi_kind *k = aiwi_kind_find(kind);
	if (!k) {
		const char *best = NULL;
		size_t bd = SIZE_MAX;
		for (size_t i = 0; aiwi_kinds[i]; i++) {
			size_t d = aiwi_edit_distance(aiwi_kinds[i]->name, kind);
			if (d < bd)
				bd = d, best = aiwi_kinds[i]->name;
		}
		if (best && bd <= 2)
			return aiwi_err(sim, AIW_EUNKNOWN, "unknown component kind '%s'; did you mean '%s'?",
			                kind, best);
		char known[256];
		size_t o = 0;
		known[0] = 0;
		for (size_t i = 0; aiwi_kinds[i] && o < sizeof known; i++)
			o += (size_t)snprintf(known + o, sizeof known - o, "%s%s", i ? ", " : "",
			                      aiwi_kinds[i]->name);
		return aiwi_err(sim, AIW_EUNKNOWN, "unknown component kind '%s' (known: %s)", kind,
		                known);
	}
	if (aiwi_kind_is(k, AIWI_KIND_SINGLETON))
		name = "";
	else if (!name || !valid_name(name))
		return aiwi_err(sim, AIW_EINVAL,
		                "component name '%s' for %s: use 1-64 letters, digits, '_' or '-'",
		                name ? name : "(null)", kind);
	aiwi_comp *found = comp_find(sim, k, name);
	if (found) {
		*out = found;
		return AIW_OK;
	}
	if (!create)
		return aiwi_err(sim, AIW_EUNKNOWN, "no component %s %s", kind, name);
	if (sim->state != ST_CONFIG)
		return aiwi_err(sim, AIW_ESTATE,
		                "cannot add %s %s during a run; call aiw_sim_reset first", kind, name);
	if (sim->ncomps >= MAX_COMPONENTS)
		return aiwi_err(sim, AIW_ELIMIT, "more than %d components", MAX_COMPONENTS);
	aiwi_comp *c = NULL;
	aiw_status st = comp_new(sim, k, name, &c);
	if (st != AIW_OK)
		return st;
	if ((st = comp_append(sim, c)) != AIW_OK) {
		comp_free(c);
		return st;
	}
	*out = c;
	return AIW_OK;
}

size_t aiwi_ncomps(const aiw_sim *sim) { return sim->ncomps; }
aiwi_comp *aiwi_comp_at(const aiw_sim *sim, size_t i) { return i < sim->ncomps ? sim->comps[i] : NULL; }
aiwi_comp *aiwi_simcomp(const aiw_sim *sim) { return sim->simcomp; }
aiwi_comp *aiwi_aggregator(const aiw_sim *sim) { return sim->aggregator; }
aiwi_engine *aiwi_sim_engine(aiw_sim *sim) { return &sim->eng; }
double aiwi_now(const aiw_sim *sim) { return sim->eng.now; }
double aiwi_end(const aiw_sim *sim) { return sim->end; }

enum { SIM_P_SEED, SIM_P_DURATION, SIM_P_SAMPLE_INTERVAL, SIM_P_SERIES_KEEP, SIM_P_HIST_SERIES,
       SIM_P_NPARAMS };

static double sim_param(const aiw_sim *sim, size_t i, double def)
{
	const aiwi_value *v = &sim->simcomp->v[i];
	return v->set && !v->is_auto && !isnan(v->d) ? v->d : def;
}

void aiwi_run_conf(const aiw_sim *sim, double *duration, double *interval, double *keep)
{
	*duration = sim_param(sim, SIM_P_DURATION, 0);
	*interval = sim_param(sim, SIM_P_SAMPLE_INTERVAL, 60);
	*keep = sim_param(sim, SIM_P_SERIES_KEEP, 0);
}

bool aiwi_hist_series(const aiw_sim *sim)
{
	return sim_param(sim, SIM_P_HIST_SERIES, 0) != 0 && sim_param(sim, SIM_P_SERIES_KEEP, 0) == 0;
}
aiwi_recorder *aiwi_sim_recorder(aiw_sim *sim) { return sim->rec; }

bool aiwi_sim_hold(aiw_sim *sim)
{
	bool held = sim->in_run;
	sim->in_run = true;
	return held;
}

bool aiwi_sim_freeing(const aiw_sim *sim) { return sim->free_pending; }

bool aiwi_sim_release(aiw_sim *sim, bool held)
{
	if (held)
		return false; /* the outer run frees it, if asked to */
	sim->in_run = false;
	sim->eng.inl_end = -INFINITY;
	if (!sim->free_pending)
		return false;
	sim->free_pending = false;
	aiw_sim_free(sim);
	return true;
}
const char *aiwi_base_dir(const aiw_sim *sim) { return sim->base_dir ? sim->base_dir : ""; }

void aiwi_set_base_dir(aiw_sim *sim, const char *dir);
void aiwi_set_base_dir(aiw_sim *sim, const char *dir) { sim->base_dir = dir; }

uint64_t aiwi_at(aiw_sim *sim, double t, aiwi_evfn fn, void *ctx, uint64_t arg)
{
	if (t < sim->eng.now)
		t = sim->eng.now;
	uint64_t h = aiwi_engine_push(&sim->eng, t, fn, ctx, arg);
	if (!h) {
		aiw_status st = sim->eng.n >= AIW_ENGINE_MAX_PENDING || sim->eng.seq >= AIW_ENGINE_SEQ_LIMIT
		                        ? AIW_ELIMIT
		                        : AIW_ENOMEM;
		aiwi_err(sim, st, "cannot schedule: %zu events pending (limit %u), %llu scheduled (limit 2^40)",
		         sim->eng.n, AIW_ENGINE_MAX_PENDING, (unsigned long long)sim->eng.seq);
		aiwi_fail(sim, st);
	}
	return h;
}

bool aiwi_cancel(aiw_sim *sim, uint64_t handle)
{
	return aiwi_engine_cancel(&sim->eng, handle);
}

/* ------------------------------------------------------------------------ */
/* create / free / reset                                                     */
/* ------------------------------------------------------------------------ */
static pthread_once_t gsl_handler_once = PTHREAD_ONCE_INIT;

static void gsl_handler_setup(void)
{
	gsl_error_handler_t *prev = gsl_set_error_handler_off();
	if (prev)
		gsl_set_error_handler(prev);
}

AIW_EXPORT aiw_status aiw_sim_create(aiw_sim **out, uint64_t seed)
{
	if (!out)
		return AIW_EINVAL;
	*out = NULL;
	/* GSL's default handler aborts; the library validates its inputs so GSL
	 * never reports errors, and, as a second line, turns the handler off
	 * unless the application installed its own (a process-wide setting,
	 * done once per process so that threads creating simulations do not
	 * race on GSL's global) */
	pthread_once(&gsl_handler_once, gsl_handler_setup);
	aiw_sim *sim = calloc(1, sizeof *sim);
	if (!sim)
		return AIW_ENOMEM;
	sim->seed = seed;
	aiwi_engine_init(&sim->eng);
	sim->rec = aiwi_rec_new();
	if (!sim->rec) {
		aiw_sim_free(sim);
		return AIW_ENOMEM;
	}
	/* the singletons exist in every simulation, in the order of the kinds */
	for (size_t k = 0; aiwi_kinds[k]; k++) {
		aiwi_comp *c = NULL;
		if (!aiwi_kind_is(aiwi_kinds[k], AIWI_KIND_SINGLETON))
			continue;
		if (aiwi_comp_get(sim, aiwi_kinds[k]->name, "", true, &c) != AIW_OK) {
			aiw_sim_free(sim);
			return AIW_ENOMEM;
		}
		if (aiwi_kinds[k] == &aiwi_kind_sim)
			sim->simcomp = c;
		else if (aiwi_kind_is(aiwi_kinds[k], AIWI_KIND_AGGREGATOR))
			sim->aggregator = c;
	}
	char buf[32];
	snprintf(buf, sizeof buf, "%llu", (unsigned long long)seed);
	aiwi_comp *sc = sim->simcomp;
	size_t i = aiwi_kind_param_index(sc->kind, "seed");
	char e[128];
	if (i != SIZE_MAX)
		aiwi_value_parse(&sc->kind->params[i], buf, "", &sc->v[i], e, sizeof e);
	*out = sim;
	return AIW_OK;
}

static void clear_metrics(aiw_sim *sim)
{
	for (size_t i = 0; i < sim->nmetrics; i++)
		free(sim->metrics[i].name);
	sim->nmetrics = 0;
	if (sim->mhash)
		memset(sim->mhash, 0, sim->mhcap * sizeof *sim->mhash);
}

static void stop_components(aiw_sim *sim)
{
	for (size_t i = 0; i < sim->ncomps; i++) {
		aiwi_comp *c = sim->comps[i];
		if (c->kind->destroy && c->state)
			c->kind->destroy(c);
		c->state = NULL;
		if (c->rng)
			gsl_rng_free(c->rng);
		c->rng = NULL;
		c->energy_j = c->busy_gpu_s = c->paid_gpu_s = c->cost_usd = c->gpus = 0;
		c->prev_energy_j = c->prev_busy_gpu_s = c->prev_paid_gpu_s = c->prev_cost_usd = 0;
		c->tick_power_w = c->tick_util = c->tick_cost_rate = c->tick_gpus = 0;
		c->kbusy_gpu_s = c->flops = c->peak_flop_s = 0;
		c->excess_gpu_s = c->excess_usd = c->stranded_gpu_s = c->stranded_usd = 0;
		c->prev_kbusy_gpu_s = c->prev_flops = c->tick_kbusy = c->tick_tensor = 0;
		c->series_base = -1;
		c->accounted = false;
	}
}

AIW_EXPORT void aiw_sim_free(aiw_sim *sim)
{
	if (!sim)
		return;
	if (sim->in_run) {
		/* from a callback during a run call: the run stops after the
		 * callback returns, and the run call frees sim on its way out */
		sim->free_pending = true;
		sim->eng.inl_end = -INFINITY; /* nothing more runs in place */
		return;
	}
	stop_components(sim);
	for (size_t i = 0; i < sim->ncomps; i++)
		comp_free(sim->comps[i]);
	free(sim->comps);
	free(sim->chash);
	free(sim->intlog.v);
	aiwi_engine_free(&sim->eng);
	aiwi_rec_free(sim->rec);
	clear_metrics(sim);
	aiwi_warnings_clear(sim);
	aiwi_memo_unref(sim->memo);
	free(sim->metrics);
	free(sim->mhash);
	free(sim);
}

AIW_EXPORT aiw_status aiw_sim_reset(aiw_sim *sim)
{
	if (!sim)
		return AIW_EINVAL;
	if (sim->in_run)
		return aiwi_err(sim, AIW_ESTATE, "aiw_sim_reset: called from inside a run");
	stop_components(sim);
	aiwi_engine_clear(&sim->eng);
	aiwi_rec_clear(sim->rec);
	clear_metrics(sim);
	aiwi_warnings_clear(sim);
	sim->state = ST_CONFIG;
	sim->fail = AIW_OK;
	sim->errmsg[0] = 0;
	return AIW_OK;
}

/* ------------------------------------------------------------------------ */
/* parameters                                                                */
/* ------------------------------------------------------------------------ */
/* Split "kind.name.key" / "kind.key" and find (component, index). */
static aiw_status resolve(aiw_sim *sim, const char *full, bool create, aiwi_comp **oc,
                          size_t *oi)
{
	if (!full || !*full)
		return aiwi_err(sim, AIW_EINVAL, "parameter name is empty");
	if (strlen(full) > 200)
		return aiwi_err(sim, AIW_EINVAL, "parameter name longer than 200 characters");
	char buf[256];
	snprintf(buf, sizeof buf, "%s", full);
	char *d1 = strchr(buf, '.');
	if (!d1)
		return aiwi_err(sim, AIW_EUNKNOWN,
		                "unknown parameter '%s' (names look like site.pue or "
		                "training.NAME.gpus)",
		                full);
	*d1 = 0;
	const aiwi_kind *k = aiwi_kind_find(buf);
	const char *name = "", *key;
	if (k && !aiwi_kind_is(k, AIWI_KIND_SINGLETON)) {
		char *d2 = strchr(d1 + 1, '.');
		if (!d2)
			return aiwi_err(sim, AIW_EUNKNOWN,
			                "unknown parameter '%s': %s parameters are named %s.NAME.key",
			                full, buf, buf);
		*d2 = 0;
		name = d1 + 1;
		key = d2 + 1;
	} else {
		key = d1 + 1;
	}
	if (!k)
		return aiwi_comp_get(sim, buf, name, false, oc); /* reports the kind */
	size_t i = aiwi_kind_param_index(k, key);
	if (i == SIZE_MAX) {
		const char *s = aiwi_kind_suggest(k, key);
		if (s)
			return aiwi_err(sim, AIW_EUNKNOWN, "unknown parameter '%s'; did you mean '%s'?",
			                full, s);
		return aiwi_err(sim, AIW_EUNKNOWN,
		                "unknown parameter '%s' (see aiworkload params %s)", full, k->name);
	}
	aiw_status st = aiwi_comp_get(sim, k->name, name, create, oc);
	if (st != AIW_OK)
		return st;
	*oi = i;
	return AIW_OK;
}

/* Bytes of empirical(FILE) samples the parameters of sim hold. */
static double empirical_bytes(const aiw_sim *sim)
{
	double b = 0;
	for (size_t k = 0; k < sim->ncomps; k++) {
		const aiwi_comp *c = sim->comps[k];
		for (size_t j = 0; j < c->kind->nparams; j++)
			if (c->v[j].dist && c->v[j].dist->kind == AIW_D_EMPIRICAL)
				b += 8.0 * (double)c->v[j].dist->n;
	}
	return b;
}

static aiw_status set_value(aiw_sim *sim, aiwi_comp *c, size_t i, const char *text)
{
	const aiwi_param_def *d = &c->kind->params[i];
	if (sim->state != ST_CONFIG && !(d->flags & AIW_PF_RUNTIME))
		return aiwi_err(sim, AIW_ESTATE,
		                "%s.%s cannot change during a run (it is fixed at start); call "
		                "aiw_sim_reset first",
		                c->prefix, d->key);
	char e[512];
	aiwi_value old = {0};
	aiw_status st = aiwi_value_copy(&old, &c->v[i]);
	if (st != AIW_OK)
		return aiwi_err(sim, st, "out of memory");
	st = aiwi_value_parse(d, text, aiwi_base_dir(sim), &c->v[i], e, sizeof e);
	if (st != AIW_OK) {
		aiwi_value_free(&old);
		return aiwi_err(sim, st, "%s.%s = %s: %s", c->prefix, d->key, text, e);
	}
	/* the samples of empirical files are read now: their sum is held to the
	 * memory limit here, before a second file is read past it */
	if (c->v[i].dist && c->v[i].dist->kind == AIW_D_EMPIRICAL) {
		double b = empirical_bytes(sim);
		if (b > AIW_LIMIT_MEMORY_BYTES) {
			aiwi_value_free(&c->v[i]);
			c->v[i] = old;
			return aiwi_err(sim, AIW_ELIMIT,
			                "%s.%s = %s: the empirical samples of the simulation would take "
			                "about %.3g bytes; the limit is %.3g bytes (use fewer samples)",
			                c->prefix, d->key, text, b, AIW_LIMIT_MEMORY_BYTES);
		}
	}
	if (sim->state == ST_RUNNING && c->kind->param_changed && c->state) {
		st = c->kind->param_changed(c, i);
		if (st != AIW_OK) { /* the model refused: restore the old value */
			aiwi_value_free(&c->v[i]);
			c->v[i] = old;
			return st;
		}
	}
	aiwi_value_free(&old);
	c->v[i].given = true;
	/* a value set after the scenario section that declared the component
	 * (a scenario is being loaded while base_dir is set, scenario.c) */
	c->late[i] = c->origin && !sim->base_dir;
	return AIW_OK;
}

/* Undo the creation of the newest component (a set that failed on it). */
static void drop_new(aiw_sim *sim, size_t before)
{
	if (sim->ncomps <= before)
		return;
	while (sim->ncomps > before)
		comp_free(sim->comps[--sim->ncomps]);
	/* the table only shrinks: rebuilt in place at the same capacity */
	memset(sim->chash, 0, sim->chcap * sizeof *sim->chash);
	for (size_t i = 0; i < sim->ncomps; i++)
		chash_put(sim, i);
}

AIW_EXPORT aiw_status aiw_sim_set(aiw_sim *sim, const char *name, const char *value)
{
	if (!sim)
		return AIW_EINVAL;
	if (!value)
		return aiwi_err(sim, AIW_EINVAL, "aiw_sim_set: value for '%s' is NULL",
		                name ? name : "(null)");
	aiwi_comp *c;
	size_t i, before = sim->ncomps;
	aiw_status st = resolve(sim, name, true, &c, &i);
	if (st != AIW_OK)
		return st;
	st = set_value(sim, c, i, value);
	if (st != AIW_OK)
		drop_new(sim, before);
	return st;
}

AIW_EXPORT aiw_status aiw_sim_set_double(aiw_sim *sim, const char *name, double value)
{
	if (!sim)
		return AIW_EINVAL;
	if (!isfinite(value))
		return aiwi_err(sim, AIW_ERANGE, "%s = %g: not a finite number", name ? name : "(null)",
		                value);
	aiwi_comp *c;
	size_t i, before = sim->ncomps;
	aiw_status st = resolve(sim, name, true, &c, &i);
	if (st != AIW_OK)
		return st;
	aiwi_ptype t = c->kind->params[i].type;
	if (t == AIW_PT_STRING || t == AIW_PT_ENUM || t == AIW_PT_DIST) {
		drop_new(sim, before);
		return aiwi_err(sim, AIW_EINVAL, "%s is of type %s: set it with aiw_sim_set", name,
		                aiwi_ptype_name(t));
	}
	char buf[64];
	snprintf(buf, sizeof buf, "%.17g", value);
	st = set_value(sim, c, i, buf);
	if (st != AIW_OK)
		drop_new(sim, before);
	return st;
}

AIW_EXPORT aiw_status aiw_sim_get(aiw_sim *sim, const char *name, char *buf, size_t len)
{
	if (!sim)
		return AIW_EINVAL;
	if (!buf || !len)
		return aiwi_err(sim, AIW_EINVAL, "aiw_sim_get: buf is NULL or len is 0");
	aiwi_comp *c;
	size_t i;
	aiw_status st = resolve(sim, name, false, &c, &i);
	if (st != AIW_OK)
		return st;
	char tmp[4200];
	aiwi_value_format(&c->kind->params[i], &c->v[i], tmp, sizeof tmp);
	if (strlen(tmp) >= len) {
		memcpy(buf, tmp, len - 1);
		buf[len - 1] = 0;
		return aiwi_err(sim, AIW_EBUFFER, "aiw_sim_get: %s needs %zu bytes, buffer has %zu",
		                name, strlen(tmp) + 1, len);
	}
	memcpy(buf, tmp, strlen(tmp) + 1);
	return AIW_OK;
}

AIW_EXPORT aiw_status aiw_sim_get_double(aiw_sim *sim, const char *name, double *out)
{
	if (!sim)
		return AIW_EINVAL;
	if (!out)
		return aiwi_err(sim, AIW_EINVAL, "aiw_sim_get_double: out is NULL");
	aiwi_comp *c;
	size_t i;
	aiw_status st = resolve(sim, name, false, &c, &i);
	if (st != AIW_OK)
		return st;
	aiwi_ptype t = c->kind->params[i].type;
	if (t == AIW_PT_STRING)
		return aiwi_err(sim, AIW_EINVAL, "%s is text: read it with aiw_sim_get", name);
	*out = c->v[i].d; /* enum index, distribution mean, NAN for auto/unset */
	return AIW_OK;
}

AIW_EXPORT aiw_status aiw_sim_add_component(aiw_sim *sim, const char *kind, const char *name)
{
	if (!sim)
		return AIW_EINVAL;
	if (!kind)
		return aiwi_err(sim, AIW_EINVAL, "aiw_sim_add_component: kind is NULL");
	aiwi_comp *c;
	return aiwi_comp_get(sim, kind, name, true, &c);
}

AIW_EXPORT aiw_status aiw_sim_component_count(const aiw_sim *sim, size_t *out)
{
	if (!sim || !out)
		return AIW_EINVAL;
	*out = sim->ncomps;
	return AIW_OK;
}

AIW_EXPORT aiw_status aiw_sim_component(aiw_sim *sim, size_t i, const char **kind,
                                        const char **name)
{
	if (!sim)
		return AIW_EINVAL;
	if (!kind || !name)
		return aiwi_err(sim, AIW_EINVAL, "aiw_sim_component: kind and name must not be NULL");
	if (i >= sim->ncomps)
		return aiwi_err(sim, AIW_ERANGE, "component index %zu: there are %zu components", i,
		                sim->ncomps);
	*kind = sim->comps[i]->kind->name;
	*name = sim->comps[i]->name;
	return AIW_OK;
}

/* ------------------------------------------------------------------------ */
/* metrics                                                                   */
/* ------------------------------------------------------------------------ */
static size_t hash_str(const char *s)
{
	size_t h = 1469598103934665603ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

static bool rehash(aiw_sim *sim, size_t cap)
{
	size_t *h = calloc(cap, sizeof *h);
	if (!h)
		return false;
	for (size_t i = 0; i < sim->nmetrics; i++) {
		size_t j = hash_str(sim->metrics[i].name) & (cap - 1);
		while (h[j])
			j = (j + 1) & (cap - 1);
		h[j] = i + 1;
	}
	free(sim->mhash);
	sim->mhash = h;
	sim->mhcap = cap;
	return true;
}

static metric *metric_lookup(const aiw_sim *sim, const char *name, size_t *probes)
{
	size_t n = 0;
	metric *found = NULL;
	if (sim->mhcap) {
		size_t j = hash_str(name) & (sim->mhcap - 1);
		while (sim->mhash[j]) {
			metric *m = &sim->metrics[sim->mhash[j] - 1];
			n++;
			if (strcmp(m->name, name) == 0) {
				found = m;
				break;
			}
			j = (j + 1) & (sim->mhcap - 1);
		}
	}
	if (probes)
		*probes = n;
	return found;
}

static metric *metric_find(const aiw_sim *sim, const char *name)
{
	return metric_lookup(sim, name, NULL);
}

size_t aiwi_sim_lookup_probes(const aiw_sim *sim, const char *kind, const char *name,
                              const char *metric_name)
{
	size_t n = 0;
	const aiwi_kind *k = kind ? aiwi_kind_find(kind) : NULL;
	if (k)
		comp_lookup(sim, k, name ? name : "", &n);
	else if (metric_name)
		metric_lookup(sim, metric_name, &n);
	return n;
}

aiw_status aiwi_metric(aiw_sim *sim, const char *prefix, const char *key, double value)
{
	char name[256];
	snprintf(name, sizeof name, "%s.%s", prefix, key);
	metric *m = metric_find(sim, name);
	if (m) {
		m->value = value;
		return AIW_OK;
	}
	if (sim->nmetrics == sim->capmetrics) {
		size_t n = sim->capmetrics ? 2 * sim->capmetrics : 64;
		metric *p = realloc(sim->metrics, n * sizeof *p);
		if (!p)
			return AIW_ENOMEM;
		sim->metrics = p;
		sim->capmetrics = n;
	}
	if (2 * (sim->nmetrics + 1) > sim->mhcap && !rehash(sim, sim->mhcap ? 2 * sim->mhcap : 128))
		return AIW_ENOMEM;
	char *s = strdup(name);
	if (!s)
		return AIW_ENOMEM;
	sim->metrics[sim->nmetrics] = (metric){s, value};
	size_t j = hash_str(s) & (sim->mhcap - 1);
	while (sim->mhash[j])
		j = (j + 1) & (sim->mhcap - 1);
	sim->mhash[j] = ++sim->nmetrics;
	return AIW_OK;
}

AIW_EXPORT aiw_status aiw_sim_metric(aiw_sim *sim, const char *name, double *out)
{
	if (!sim)
		return AIW_EINVAL;
	if (!name || !out)
		return aiwi_err(sim, AIW_EINVAL, "aiw_sim_metric: name and out must not be NULL");
	metric *m = metric_find(sim, name);
	if (!m) {
		const char *best = NULL;
		size_t bd = SIZE_MAX;
		for (size_t i = 0; i < sim->nmetrics; i++) {
			size_t d = aiwi_edit_distance(sim->metrics[i].name, name);
			if (d < bd)
				bd = d, best = sim->metrics[i].name;
		}
		if (best && bd <= 3)
			return aiwi_err(sim, AIW_EUNKNOWN, "no metric '%s'; did you mean '%s'?", name, best);
		return aiwi_err(sim, AIW_EUNKNOWN, "no metric '%s'%s", name,
		                sim->nmetrics ? "" : " (metrics exist after a run call)");
	}
	*out = m->value;
	return AIW_OK;
}

AIW_EXPORT aiw_status aiw_sim_metric_count(aiw_sim *sim, size_t *out)
{
	if (!sim)
		return AIW_EINVAL;
	if (!out)
		return aiwi_err(sim, AIW_EINVAL, "aiw_sim_metric_count: out is NULL");
	*out = sim->nmetrics;
	return AIW_OK;
}

AIW_EXPORT aiw_status aiw_sim_metric_name(aiw_sim *sim, size_t i, const char **out)
{
	if (!sim)
		return AIW_EINVAL;
	if (!out)
		return aiwi_err(sim, AIW_EINVAL, "aiw_sim_metric_name: out is NULL");
	if (i >= sim->nmetrics)
		return aiwi_err(sim, AIW_ERANGE, "metric index %zu: there are %zu metrics", i,
		                sim->nmetrics);
	*out = sim->metrics[i].name;
	return AIW_OK;
}

/* ------------------------------------------------------------------------ */
/* running                                                                   */
/* ------------------------------------------------------------------------ */
/* The start-time error of c rewritten as "PREFIX (declared at ORIGIN;
 * KEY = VALUE, ... set after loading): MESSAGE" when parameters of c were
 * set after its scenario section; false (nothing changed) when none was. */
static bool start_error_late(aiw_sim *sim, const aiwi_comp *c, aiw_status st)
{
	char note[512];
	size_t o = 0;
	note[0] = 0;
	for (size_t j = 0; j < c->kind->nparams && o < sizeof note; j++) {
		if (!c->late[j])
			continue;
		char v[128];
		aiwi_value_format(&c->kind->params[j], &c->v[j], v, sizeof v);
		o += (size_t)snprintf(note + o, sizeof note - o, "%s%s = %s", o ? ", " : "",
		                      c->kind->params[j].key, v);
	}
	if (!o)
		return false;
	const char *m = sim->errmsg;
	size_t ol = strlen(c->origin), pl = strlen(c->prefix);
	if (strncmp(m, c->origin, ol) == 0 && strncmp(m + ol, ": ", 2) == 0)
		m += ol + 2;
	if (strncmp(m, c->prefix, pl) == 0 && strncmp(m + pl, ": ", 2) == 0)
		m += pl + 2;
	char msg[sizeof sim->errmsg];
	snprintf(msg, sizeof msg, "%s", m);
	aiwi_err(sim, st, "%s (declared at %s; %s set after loading): %s", c->prefix, c->origin,
	         note, msg);
	return true;
}

static aiw_status start(aiw_sim *sim)
{
	aiwi_comp *sc = sim->simcomp;
	size_t iseed = aiwi_kind_param_index(sc->kind, "seed");
	size_t idur = aiwi_kind_param_index(sc->kind, "duration");
	size_t isi = aiwi_kind_param_index(sc->kind, "sample_interval");
	size_t ikeep = aiwi_kind_param_index(sc->kind, "series_keep");
	/* doubles hold integers exactly only up to 2^53: the seed is read from
	 * its exact digits (AIW_PF_U64) */
	sim->seed = strtoull(sc->v[iseed].s, NULL, 10);
	sim->end = sc->v[idur].d;
	double si = sc->v[isi].d;
	sim->sample_interval = si;
	double samples = sim->end / si;
	if (samples > 5e7)
		return aiwi_err(sim, AIW_ELIMIT,
		                "%s%ssim.duration / sim.sample_interval = %.3g samples per curve; the "
		                "limit is 5e7 (raise sample_interval)",
		                sc->origin ? sc->origin : "", sc->origin ? ": " : "", samples);
	/* up-front work and memory estimates (limits.c): refuse what would not end */
	aiw_status lst = aiwi_limits_check(sim);
	if (lst != AIW_OK)
		return lst;
	/* events a driver scheduled before the run stay pending */
	aiwi_rec_clear(sim->rec);
	clear_metrics(sim);
	sim->fail = AIW_OK;
	for (size_t i = 0; i < sim->ncomps; i++) {
		aiwi_comp *c = sim->comps[i];
		c->rng = aiwi_rng_alloc();
		if (!c->rng) {
			stop_components(sim);
			return aiwi_err(sim, AIW_ENOMEM, "out of memory");
		}
		gsl_rng_set(c->rng, (unsigned long)aiwi_stream_seed(sim->seed, c->prefix));
	}
	aiw_status st = aiwi_rec_begin(sim, si, (size_t)sc->v[ikeep].d);
	if (st != AIW_OK) {
		stop_components(sim);
		aiwi_rec_clear(sim->rec);
		return st;
	}
	sim->state = ST_RUNNING;
	for (size_t i = 0; i < sim->ncomps; i++)
		aiwi_param_modes_check(sim->comps[i]);
	for (size_t i = 0; i < sim->ncomps; i++) {
		aiwi_comp *c = sim->comps[i];
		if (c->kind->start && (st = c->kind->start(c)) != AIW_OK) {
			/* named by the scenario line that declared the component, as
			 * the errors found while loading are, and by the values set
			 * after it, which the line does not show */
			if (c->origin && start_error_late(sim, c, st))
				;
			else if (c->origin && strncmp(sim->errmsg, c->origin, strlen(c->origin)) != 0) {
				char msg[sizeof sim->errmsg];
				snprintf(msg, sizeof msg, "%s", sim->errmsg);
				aiwi_err(sim, st, "%s: %s", c->origin, msg);
			}
			/* a failed start leaves nothing behind, driver events included */
			stop_components(sim);
			aiwi_engine_clear(&sim->eng);
			aiwi_rec_clear(sim->rec);
			sim->state = ST_CONFIG;
			return st;
		}
	}
	sim->progress_next = sim->progress_every > 0 ? sim->progress_every : si;
	return sim->fail;
}

static void finish_all(aiw_sim *sim)
{
	double t = sim->eng.now;
	/* the integrals the hooks advance to t are put back afterwards: the run
	 * goes on as if this call had not ended here (internal.h) */
	sim->intlog.n = 0;
	aiwi_int_peek = &sim->intlog;
	/* the aggregator (the site) finishes last: it sums what the others
	 * published */
	for (int last = 0; last < 2; last++)
		for (size_t i = 0; i < sim->ncomps; i++) {
			aiwi_comp *c = sim->comps[i];
			if (c->kind->finish && aiwi_kind_is(c->kind, AIWI_KIND_AGGREGATOR) == (last == 1))
				c->kind->finish(c, t);
		}
	aiwi_int_peek = NULL;
	for (size_t i = sim->intlog.n; i-- > 0;)
		*sim->intlog.v[i].x = sim->intlog.v[i].was;
	sim->intlog.n = 0;
	aiwi_metric(sim, "sim", "time_s", t);
	aiwi_metric(sim, "sim", "events", (double)sim->eng.seq);
}

/* The next progress time after the clock: a few steps of `every' (the
 * times the callback has always had), then a jump, so that a tiny interval
 * costs O(1) per event and a step lost to rounding cannot loop forever. */
static void progress_advance(aiw_sim *sim)
{
	double now = sim->eng.now;
	double every = sim->progress_every > 0 ? sim->progress_every : sim->sample_interval;
	for (int i = 0; i < 64 && sim->progress_next <= now; i++)
		sim->progress_next += every;
	if (sim->progress_next <= now) {
		double k = floor((now - sim->progress_next) / every) + 1;
		sim->progress_next += k * every;
		if (!(sim->progress_next > now))
			sim->progress_next = nextafter(now, INFINITY);
	}
}

static aiw_status run_to_inner(aiw_sim *sim, double t_end);

/* A run call may be made from inside another simulation's finish hook (a
 * kind comparing against a counterfactual simulation): that one's log of
 * advanced integrals is set aside meanwhile. */
static aiw_status run_to(aiw_sim *sim, double t_end)
{
	aiwi_int_log *outer = aiwi_int_peek;
	aiwi_int_peek = NULL;
	aiw_status st = run_to_inner(sim, t_end);
	aiwi_int_peek = outer;
	return st;
}

static aiw_status run_to_inner(aiw_sim *sim, double t_end)
{
	if (sim->in_run)
		return aiwi_err(sim, AIW_ESTATE, "run called from inside a run (an event callback)");
	aiw_status st = AIW_OK;
	if (sim->fail != AIW_OK)
		return aiwi_err(sim, sim->fail,
		                "the run failed earlier (%s); call aiw_sim_reset to start again",
		                aiw_status_name(sim->fail));
	if (sim->state == ST_CONFIG && (st = start(sim)) != AIW_OK)
		return st;
	if (t_end > sim->end)
		t_end = sim->end;
	if (sim->state == ST_DONE || t_end < sim->eng.now)
		return AIW_OK;
	sim->in_run = true;
	aiwi_engine *e = &sim->eng;
	/* events may run in place up to t_end, while no report is due */
	e->inl_end = t_end;
	e->inl_before = sim->progress ? sim->progress_next : INFINITY;
	while (e->n && aiwi_engine_peek(e) <= t_end) {
		aiwi_evfn fn;
		void *ctx;
		uint64_t arg;
		aiwi_engine_pop(e, &fn, &ctx, &arg);
		fn(sim, ctx, arg);
		if (AIW_UNLIKELY(sim->fail != AIW_OK || sim->free_pending))
			break;
		if (AIW_UNLIKELY(sim->progress) && e->now >= sim->progress_next) {
			progress_advance(sim);
			e->inl_before = sim->progress_next;
			if (sim->progress(sim, e->now, sim->end, sim->progress_payload)) {
				st = aiwi_err(sim, AIW_ESTOPPED, "run stopped by the progress callback at t = %g s",
				              e->now);
				break;
			}
			if (AIW_UNLIKELY(sim->free_pending))
				break;
		}
	}
	sim->in_run = false;
	e->inl_end = -INFINITY;
	if (sim->free_pending) {
		sim->free_pending = false;
		aiw_sim_free(sim);
		return AIW_ESTOPPED;
	}
	if (sim->fail != AIW_OK) {
		/* the metrics of what ran, at the time of the failure (the header
		 * promises metrics after any run call); the run cannot go on */
		finish_all(sim);
		return sim->fail;
	}
	if (st == AIW_OK)
		e->now = t_end;
	finish_all(sim);
	if (st == AIW_OK && t_end >= sim->end)
		sim->state = ST_DONE;
	return st;
}

AIW_EXPORT aiw_status aiw_sim_run(aiw_sim *sim)
{
	if (!sim)
		return AIW_EINVAL;
	return run_to(sim, INFINITY);
}

AIW_EXPORT aiw_status aiw_sim_run_until(aiw_sim *sim, double t)
{
	if (!sim)
		return AIW_EINVAL;
	if (isnan(t) || t < 0)
		return aiwi_err(sim, AIW_ERANGE, "aiw_sim_run_until: t = %g s must be >= 0", t);
	if (sim->state != ST_CONFIG && t < sim->eng.now)
		return aiwi_err(sim, AIW_ERANGE,
		                "aiw_sim_run_until: t = %g s is before the current time %g s", t,
		                sim->eng.now);
	return run_to(sim, t);
}

AIW_EXPORT aiw_status aiw_sim_now(const aiw_sim *sim, double *out)
{
	if (!sim || !out)
		return AIW_EINVAL;
	*out = sim->eng.now;
	return AIW_OK;
}

AIW_EXPORT aiw_status aiw_sim_set_sample_callback(aiw_sim *sim, aiw_sample_fn fn, void *payload)
{
	if (!sim)
		return AIW_EINVAL;
	/* read at every tick (series.c), so a change, even from inside the
	 * callback, takes effect at the next tick */
	sim->sample = fn;
	sim->sample_payload = fn ? payload : NULL;
	return AIW_OK;
}

AIW_EXPORT aiw_status aiw_sim_set_progress(aiw_sim *sim, aiw_progress_fn fn, void *payload,
                                           double every)
{
	if (!sim)
		return AIW_EINVAL;
	if (!(every >= 0) || !isfinite(every))
		return aiwi_err(sim, AIW_ERANGE, "aiw_sim_set_progress: every = %g s must be >= 0",
		                every);
	/* at most one call per AIW_PROGRESS_MIN_EVERY simulated seconds (and at
	 * most one per event): a shorter interval is refused */
	if (every > 0 && every < AIW_PROGRESS_MIN_EVERY)
		return aiwi_err(sim, AIW_ERANGE,
		                "aiw_sim_set_progress: every = %g s is outside the range 0 or "
		                "[%g, inf) s",
		                every, AIW_PROGRESS_MIN_EVERY);
	sim->progress = fn;
	sim->progress_payload = payload;
	sim->progress_every = every;
	if (every > 0)
		sim->progress_next = sim->eng.now + every;
	sim->eng.inl_before = fn ? sim->progress_next : INFINITY; /* (a callback may set it) */
	return AIW_OK;
}

/* user events: ctx = payload, arg = the callback */
static void user_event(aiw_sim *sim, void *ctx, uint64_t arg)
{
	aiw_event_fn fn = (aiw_event_fn)(uintptr_t)arg;
	fn(sim, sim->eng.now, ctx);
}

AIW_EXPORT aiw_status aiw_sim_schedule(aiw_sim *sim, double t, aiw_event_fn fn, void *payload,
                                       uint64_t *out_handle)
{
	if (!sim)
		return AIW_EINVAL;
	if (!fn)
		return aiwi_err(sim, AIW_EINVAL, "aiw_sim_schedule: fn is NULL");
	if (!(t >= sim->eng.now) || !isfinite(t))
		return aiwi_err(sim, AIW_ERANGE,
		                "aiw_sim_schedule: t = %g s must be finite and >= now = %g s", t,
		                sim->eng.now);
	if (aiwi_engine_pending(&sim->eng) >= AIW_ENGINE_MAX_PENDING)
		return aiwi_err(sim, AIW_ELIMIT, "aiw_sim_schedule: %u events already pending",
		                AIW_ENGINE_MAX_PENDING);
	uint64_t h = aiwi_engine_push(&sim->eng, t, user_event, payload, (uint64_t)(uintptr_t)fn);
	if (!h)
		return aiwi_err(sim, sim->eng.seq >= AIW_ENGINE_SEQ_LIMIT ? AIW_ELIMIT : AIW_ENOMEM,
		                "aiw_sim_schedule: cannot schedule (%zu pending, %llu scheduled)",
		                sim->eng.n, (unsigned long long)sim->eng.seq);
	if (out_handle)
		*out_handle = h;
	return AIW_OK;
}

AIW_EXPORT aiw_status aiw_sim_cancel(aiw_sim *sim, uint64_t handle)
{
	if (!sim)
		return AIW_EINVAL;
	if (!aiwi_engine_cancel(&sim->eng, handle))
		return aiwi_err(sim, AIW_EUNKNOWN,
		                "aiw_sim_cancel: handle %llu is not pending (already ran or cancelled)",
		                (unsigned long long)handle);
	return AIW_OK;
}

AIW_EXPORT aiw_status aiw_sim_pending(const aiw_sim *sim, size_t *out)
{
	if (!sim || !out)
		return AIW_EINVAL;
	*out = aiwi_engine_pending(&sim->eng);
	return AIW_OK;
}

/* ------------------------------------------------------------------------ */
/* the sim kind: run-wide parameters                                         */
/* ------------------------------------------------------------------------ */
static const aiwi_param_def SIM_PARAMS[SIM_P_NPARAMS] = {
	[SIM_P_SEED] = {"seed", "sim.seed", AIW_PT_INT, "1", "", 0, 18446744073709551615.0, NULL, AIW_PF_U64,
	 "seed of every random stream (a result depends only on scenario and seed)", 0},
	[SIM_P_DURATION] = {"duration", "sim.duration", AIW_PT_DURATION, "24h", "s", 0, 3.2e9, NULL, AIW_PF_EXCL_MIN,
	 "simulated time span of a run", 0},
	[SIM_P_SAMPLE_INTERVAL] = {"sample_interval", "sim.sample_interval", AIW_PT_DURATION, "1min", "s", 1e-6, 3.2e9, NULL,
	 0, "interval of the recorded curves (each point averages one interval)", 0},
	[SIM_P_SERIES_KEEP] = {"series_keep", "sim.series_keep", AIW_PT_INT, "all", "", 0, 5e7, NULL, AIW_PF_ALL,
	 "points each curve keeps in memory: all (or 0) keeps every point; N keeps the most "
	 "recent N, older points are streamed out (to the sample callback) and dropped",
	 0},
	[SIM_P_HIST_SERIES] = {"histogram_series", "sim.histogram_series", AIW_PT_BOOL, "false", "", 0, 1,
	 NULL, 0,
	 "keep the latency histograms' le bucket counts, count and sum at every sample (16 "
	 "numbers per histogram and sample), for the timestamped histograms of the OpenMetrics "
	 "and promtool outputs; only with series_keep = all",
	 0},
};

static const aiwi_metric_def SIM_METRICS[] = {
	{"time_s", "Simulated time", "s", 0,
	 "simulated time reached", NULL, NULL, NULL, NULL},
	{"events", "Events", "1", AIW_METRIC_COUNT,
	 "events scheduled (run, cancelled, or run in place)", NULL, NULL, NULL, NULL},
	{NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL},
};

const aiwi_kind aiwi_kind_sim = {
	.metrics = SIM_METRICS,
	.name = "sim",
	.params = SIM_PARAMS,
	.nparams = sizeof SIM_PARAMS / sizeof *SIM_PARAMS,
	.flags = AIWI_KIND_SINGLETON,
};


