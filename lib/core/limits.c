/*
 * limits.c - up-front work and memory estimates of a run (see limits.h).
 *
 * Work items, each an expected count over the run [0, D], D = sim.duration:
 *  - inference: requests = integral of the arrival rate over [0, D]
 *    (rate x D for poisson and bursty, the diurnal/weekly profile's
 *    integral, rows x replays for a trace: aiwi_traffic_integral), twice
 *    with compare_fixed (a second fleet replays the same traffic);
 *    autoscaler ticks = D / period for each periodic control event (HPA
 *    sync, KPA tick, metric scrape, predictive bins); spot preemptions =
 *    spot replicas x spot_preemption_rate x D.
 *  - training: steps = (D - start) / E[step], with E[step] >= t_c max(E[M],
 *    1e-6) + max(0, t_comm - overlap t_c) (the model's step: the slowest
 *    GPU's multiplier has a mean >= E[M], and never below 1e-6), capped by
 *    max_steps and max_tokens; failures = gpus / gpu_mtbf x (D - start).
 *  - load: profile steps (x racks with per-rack timelines, x D / period
 *    when periodic), on/off toggles = racks x 2 D / (E[on] + E[off]),
 *    duty rack draws = racks x D / slot.
 *  - the recorder: one tick per sample, and per tick every rack of the
 *    fleets and of per-rack loads and every replica slot (their sample
 *    hooks visit each).
 * Memory: curves = capacity x (curves + 1) x 8 B, the capacity being the
 * recorder's (every sample, allocated at once up to 2^20, beyond that 2^20
 * doubled until it holds every sample; at most sim.series_keep points when
 * that bounds the curves to a ring); 8 B of peak per
 * rack at the site, 56 B per inference rack, 64 B per load rack; 320 B per
 * replica slot; KPA windows of stable_window / metric_interval x 8 B; the
 * fixed state of each model (histograms: 256 KiB per training job, 160 KiB
 * per fleet, 8 KiB otherwise); 52 B per pending event.
 * The byte counts are those of the models' structures rounded up; a test
 * (tests/api/test_hostile.c) keeps the curve count an upper bound of the real
 * one.
 */
#include "core/limits.h"

#include "hw/hw.h"
#include "inference/traffic.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

/* ------------------------------------------------------------------------ */
/* reading parameters generically                                            */
/* ------------------------------------------------------------------------ */
static const aiwi_value *pv(const aiwi_comp *c, const char *key)
{
	size_t i = aiwi_kind_param_index(c->kind, key);
	return i == SIZE_MAX ? NULL : &c->v[i];
}

/* Numeric value, or def when the parameter is missing, unset or auto. */
static double pnum(const aiwi_comp *c, const char *key, double def)
{
	const aiwi_value *v = pv(c, key);
	if (!v || !v->set || v->is_auto || isnan(v->d))
		return def;
	return v->d;
}

static bool pisset(const aiwi_comp *c, const char *key)
{
	const aiwi_value *v = pv(c, key);
	return v && v->set && !v->is_auto;
}

static const char *pstr(const aiwi_comp *c, const char *key)
{
	const aiwi_value *v = pv(c, key);
	return v && v->set && v->s ? v->s : NULL;
}

static const aiwi_dist *pdist(const aiwi_comp *c, const char *key)
{
	const aiwi_value *v = pv(c, key);
	return v && v->set ? v->dist : NULL;
}

/* Whether enum parameter key holds the choice `word` (by index in the
 * declared choices, so the spelling the user gave does not matter). */
static bool penum_is(const aiwi_comp *c, const char *key, const char *word)
{
	size_t i = aiwi_kind_param_index(c->kind, key);
	if (i == SIZE_MAX || !c->v[i].set)
		return false;
	const char *ch = c->kind->params[i].choices;
	if (!ch)
		return c->v[i].s && strcasecmp(c->v[i].s, word) == 0;
	size_t idx = 0, wl = strlen(word);
	for (const char *p = ch;; idx++) {
		const char *bar = strchr(p, '|');
		size_t l = bar ? (size_t)(bar - p) : strlen(p);
		if (l == wl && strncasecmp(p, word, l) == 0)
			return c->v[i].d == (double)idx;
		if (!bar)
			return false;
		p = bar + 1;
	}
}

/* ------------------------------------------------------------------------ */
/* numbers in messages: "8.6e16", "86400", "1 d"                             */
/* ------------------------------------------------------------------------ */
static const char *num(char *buf, size_t len, double x)
{
	char t[64];
	if (x == floor(x) && fabs(x) < 1e6) /* whole numbers as such: "100", "86400" */
		snprintf(t, sizeof t, "%.0f", x);
	else
		snprintf(t, sizeof t, "%.2g", x);
	/* "8.6e+16" -> "8.6e16", "1e-09" -> "1e-9" */
	char *e = strchr(t, 'e');
	if (e) {
		char *d = e + 1, *s = e + 1;
		if (*s == '+')
			s++;
		else if (*s == '-')
			*d++ = *s++;
		while (*s == '0' && s[1])
			s++;
		memmove(d, s, strlen(s) + 1);
	}
	snprintf(buf, len, "%s", t);
	return buf;
}

static const char *dur(char *buf, size_t len, double s)
{
	static const struct {
		const char *u;
		double f;
	} U[] = {{"y", 31536000}, {"d", 86400}, {"h", 3600}, {"min", 60}, {"s", 1}};
	char n[64];
	for (size_t i = 0; i < sizeof U / sizeof *U; i++)
		if (s >= U[i].f || i + 1 == sizeof U / sizeof *U) {
			snprintf(buf, len, "%s %s", num(n, sizeof n, s / U[i].f), U[i].u);
			return buf;
		}
	return buf;
}

/* ------------------------------------------------------------------------ */
/* the estimate                                                              */
/* ------------------------------------------------------------------------ */
typedef struct item {
	double n;          /* expected count (work) or bytes (memory) */
	char what[400];    /* "inference.chat: about @ requests (...)": @ is the number */
	char fix[160];     /* "lower rate or sim.duration" */
	const char *origin; /* FILE:LINE of the component's scenario section, or NULL */
} item;

typedef struct est {
	aiwi_limits_est out;
	item worst;        /* largest work item */
	item big_mem;      /* largest memory item */
	const char *origin; /* of the component whose items are being added */
	double D;
	aiw_status bad;    /* a trace refused by trace_precheck (message on sim) */
} est;

#define FMT_ITEM(it, n_, fix_, ...)                                         \
	do {                                                                \
		(it)->n = (n_);                                             \
		snprintf((it)->what, sizeof (it)->what, __VA_ARGS__);       \
		snprintf((it)->fix, sizeof (it)->fix, "%s", (fix_));        \
	} while (0)

static void add_work(est *E, const item *it)
{
	if (!(it->n > 0))
		return;
	E->out.work += it->n;
	if (it->n > E->out.work_max || isnan(E->out.work_max)) {
		E->out.work_max = it->n;
		E->worst = *it;
		E->worst.origin = E->origin;
	}
}

static void add_mem(est *E, const item *it)
{
	if (!(it->n > 0))
		return;
	E->out.memory_bytes += it->n;
	if (it->n > E->big_mem.n) {
		E->big_mem = *it;
		E->big_mem.origin = E->origin;
	}
}

/* The first TRACE_PRECHECK bytes of a trace: a NUL byte or a line longer
 * than AIW_TRACE_MAX_LINE there is refused at once with the reader's own
 * message, whichever comes first.  (The reader reports them only at the end
 * of the line, so a sparse file of NULs, or one line of a gigabyte, would be
 * read whole first.)  Returns AIW_OK when the prefix is clean or the file
 * cannot be read (the model reports that). */
#define TRACE_PRECHECK 65536
static aiw_status trace_precheck(aiw_sim *sim, const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return AIW_OK;
	unsigned char *buf = malloc(TRACE_PRECHECK);
	size_t n = buf ? fread(buf, 1, TRACE_PRECHECK, f) : 0;
	fclose(f);
	aiw_status st = AIW_OK;
	unsigned long long line = 1;
	size_t len = 0;
	for (size_t i = 0; i < n && st == AIW_OK; i++) {
		if (buf[i] == '\n') {
			line++, len = 0;
		} else if (buf[i] == 0) {
			st = aiwi_err(sim, AIW_EPARSE, "%s:%llu: NUL byte in the line: not a text CSV file",
			              path, line);
		} else if (++len > AIW_TRACE_MAX_LINE) {
			st = aiwi_err(sim, AIW_EPARSE, "%s:%llu: line longer than %d bytes", path, line,
			              AIW_TRACE_MAX_LINE);
		}
	}
	free(buf);
	return st;
}

/* Expected requests of an inference fleet over [0, D]. */
static void inference_work(est *E, aiwi_comp *c)
{
	aiw_sim *sim = c->sim;
	double D = E->D;
	char a[64], b[64], d[64];
	aiwi_traffic_conf tc;
	aiwi_traffic_conf_default(&tc);
	static const char *const KINDS[] = {"poisson", "diurnal", "bursty", "trace"};
	int kind = -1;
	for (int k = 0; k < 4; k++)
		if (penum_is(c, "traffic", KINDS[k]))
			kind = k;
	if (kind < 0)
		return;
	tc.kind = (aiwi_traffic_kind)kind;
	tc.prefix = c->prefix;
	tc.rate = pnum(c, "rate", 0);
	tc.peak_to_trough = pnum(c, "peak_to_trough", 1);
	tc.peak_hour = pnum(c, "peak_hour", 14);
	tc.weekend_factor = pnum(c, "weekend_factor", 1);
	tc.cv = pnum(c, "cv", 1);
	tc.modulate = pnum(c, "modulate", 0) != 0;
	tc.trace_path = pstr(c, "trace_file");
	tc.base_dir = aiwi_base_dir(sim);
	tc.time_scale = pnum(c, "trace_time_scale", 1);
	tc.loop = pnum(c, "trace_loop", 0) != 0;
	double mult = pisset(c, "compare_fixed") ? 2 : 1;
	const char *twice = mult > 1 ? ", twice with compare_fixed" : "";
	item it = {0};
	if (tc.kind == AIW_TRAFFIC_TRACE) {
		if (!tc.trace_path)
			return; /* the model reports it */
		/* a trace without loop has at most one row per 2 bytes ("0\n"):
		 * below the limit, the file need not be read twice */
		struct stat sb;
		char path[4096];
		if (tc.trace_path[0] != '/' && tc.base_dir && *tc.base_dir)
			snprintf(path, sizeof path, "%s/%s", tc.base_dir, tc.trace_path);
		else
			snprintf(path, sizeof path, "%s", tc.trace_path);
		if (stat(path, &sb) != 0)
			return;
		if (!E->bad && (E->bad = trace_precheck(sim, path)) != AIW_OK)
			return;
		double bound = mult * (double)sb.st_size / 2;
		if (!tc.loop && bound <= AIW_LIMIT_WORK) {
			FMT_ITEM(&it, bound, "", "%s: at most @ requests (%s bytes of trace%s)",
			         c->prefix, num(b, sizeof b, (double)sb.st_size), twice);
			add_work(E, &it);
			return;
		}
	}
	if (tc.kind != AIW_TRAFFIC_TRACE && !(tc.rate > 0))
		return;
	char e[512];
	aiwi_traffic *tr = NULL;
	if (aiwi_traffic_new(&tr, &tc, e, sizeof e) != AIW_OK)
		return; /* invalid: the model's start says why */
	double n = mult * aiwi_traffic_integral(tr, 0, D);
	if (tc.kind == AIW_TRAFFIC_TRACE) {
		aiwi_trace_info ti;
		double rows = 0, per = 0;
		if (aiwi_traffic_trace_info(tr, &ti) == AIW_OK)
			rows = (double)ti.rows, per = ti.period_s;
		double reps = tc.loop && per > 0 ? D / per : 1;
		FMT_ITEM(&it, n, "lower trace_time_scale or sim.duration, or unset trace_loop",
		         "%s: about @ requests (%s trace rows x %s replays in %s%s)", c->prefix,
		         num(a, sizeof a, rows), num(b, sizeof b, reps), dur(d, sizeof d, D), twice);
	} else if (tc.kind == AIW_TRAFFIC_POISSON ||
	           (tc.kind == AIW_TRAFFIC_BURSTY && !tc.modulate)) {
		FMT_ITEM(&it, n, "lower rate or sim.duration", "%s: about @ requests (rate %s/s x %s%s)",
		         c->prefix, num(a, sizeof a, tc.rate), dur(d, sizeof d, D), twice);
	} else {
		FMT_ITEM(&it, n, "lower rate or sim.duration",
		         "%s: about @ requests (mean rate %s/s of the daily profile x %s%s)",
		         c->prefix, num(a, sizeof a, D > 0 ? n / mult / D : 0), dur(d, sizeof d, D),
		         twice);
	}
	aiwi_traffic_free(tr);
	add_work(E, &it);
}

/* Autoscaler ticks and spot preemptions; replica slots, for memory. */
static double autoscaler_work(est *E, aiwi_comp *c)
{
	double D = E->D;
	char a[64], d[64], p[64];
	bool hpa = penum_is(c, "autoscaler", "hpa"), kpa = penum_is(c, "autoscaler", "kpa");
	bool pred = penum_is(c, "autoscaler", "predictive");
	bool scaled = hpa || kpa || pred || penum_is(c, "autoscaler", "schedule");
	double slots = pnum(c, "replicas", 1);
	if (scaled)
		slots = fmax(slots, pnum(c, "max_replicas", slots));
	struct {
		bool on;
		const char *key;
	} periodic[] = {
		{hpa || pred, "hpa_sync_period"},
		{kpa, "kpa_tick"},
		{kpa || ((hpa || pred) && penum_is(c, "metric", "concurrency")), "metric_interval"},
		{pred && penum_is(c, "predictive_source", "history"), "predictive_bin"},
	};
	for (size_t k = 0; k < sizeof periodic / sizeof *periodic; k++) {
		double per = pnum(c, periodic[k].key, NAN);
		if (!periodic[k].on || !(per > 0))
			continue;
		item it;
		FMT_ITEM(&it, D / per, "", "%s: about @ autoscaler ticks (sim.duration %s / %s %s)",
		         c->prefix, dur(d, sizeof d, D), periodic[k].key, dur(p, sizeof p, per));
		snprintf(it.fix, sizeof it.fix, "raise %s or lower sim.duration", periodic[k].key);
		add_work(E, &it);
	}
	if (kpa) { /* the stable window's ring of demand samples */
		double iv = pnum(c, "metric_interval", NAN), sw = pnum(c, "kpa_stable_window", 60);
		if (iv > 0) {
			item m;
			FMT_ITEM(&m, 8 * ceil(sw / iv), "raise metric_interval",
			         "%s: about @ bytes of KPA window (kpa_stable_window %s / "
			         "metric_interval %s)",
			         c->prefix, dur(d, sizeof d, sw), dur(p, sizeof p, iv));
			add_mem(E, &m);
		}
	}
	double spot = pnum(c, "spot_fraction", 0), rate = pnum(c, "spot_preemption_rate", 0);
	if (spot > 0 && rate > 0) {
		double n = ceil(spot * slots);
		item it;
		FMT_ITEM(&it, n * rate * D, "lower spot_preemption_rate, spot_fraction or sim.duration",
		         "%s: about @ spot preemptions (%s spot replicas x %s/s x %s)", c->prefix,
		         num(a, sizeof a, n), num(p, sizeof p, rate), dur(d, sizeof d, D));
		add_work(E, &it);
	}
	return slots;
}

/* Expected step time (lower bound) of a training job, or NAN when the
 * parameters do not give one (the model's start reports why). */
static double training_step(aiwi_comp *c, double *t_c_out)
{
	aiw_sim *sim = c->sim;
	const char *gname = pstr(c, "gpu");
	if (!gname)
		return NAN;
	char saved[1024];
	snprintf(saved, sizeof saved, "%s", aiw_sim_errmsg(sim));
	const aiwi_gpu_spec *g = NULL;
	aiw_status st = aiwi_hw_gpu_get(sim, gname, &g);
	aiwi_err(sim, AIW_OK, "%s", saved); /* a lookup's message is not ours */
	if (st != AIW_OK || !g)
		return NAN;
	double N = pnum(c, "gpus", NAN), gpn = pnum(c, "gpus_per_node", 8);
	double P = pnum(c, "model_params", NAN), T = pnum(c, "tokens_per_step", NAN);
	double t_c = pisset(c, "step_compute")
	                     ? pnum(c, "step_compute", NAN)
	                     : 6 * P * T / (N * g->bf16_flops * pnum(c, "mfu", NAN));
	if (!(t_c > 0) || !isfinite(t_c))
		return NAN;
	const aiwi_dist *jit = pdist(c, "jitter");
	double mu = jit ? aiwi_dist_mean(jit) : 1;
	if (!(mu > 0))
		return NAN;
	aiwi_link_spec intra, inter;
	aiwi_hw_gpu_links(g, &intra, &inter);
	int algo = 0;
	static const char *const ALGOS[] = {"ring", "tree", "hierarchical"};
	for (int k = 0; k < 3; k++)
		if (penum_is(c, "allreduce", ALGOS[k]))
			algo = aiwi_allreduce_algo(ALGOS[k]);
	double comm = aiwi_allreduce(algo, P * pnum(c, "grad_bytes_per_param", 2), N, gpn, &intra,
	                            &inter, 1);
	double e = isfinite(comm) ? fmax(0, comm - pnum(c, "overlap", 0) * t_c) : 0;
	*t_c_out = t_c;
	return t_c * fmax(mu, 1e-6) + e;
}

static void training_work(est *E, aiwi_comp *c)
{
	double start = pnum(c, "start", 0), span = fmax(0, E->D - start);
	char a[64], d[64], p[64];
	double t_c = NAN, step = training_step(c, &t_c);
	if (step > 0) {
		double steps = span / step;
		if (pisset(c, "max_steps"))
			steps = fmin(steps, pnum(c, "max_steps", INFINITY));
		double tps = pnum(c, "tokens_per_step", NAN);
		if (pisset(c, "max_tokens") && tps > 0)
			steps = fmin(steps, ceil(pnum(c, "max_tokens", INFINITY) / tps));
		item it;
		FMT_ITEM(&it, steps,
		         "lower sim.duration, or raise the step time (step_compute, model_params or "
		         "tokens_per_step), or set max_steps",
		         "%s: about @ steps (%s / step time %s)", c->prefix, dur(d, sizeof d, span),
		         dur(p, sizeof p, step));
		add_work(E, &it);
	}
	double N = pnum(c, "gpus", NAN), mtbf = pnum(c, "gpu_mtbf", NAN);
	if (pisset(c, "gpu_mtbf") && mtbf > 0 && N > 0) {
		item it;
		FMT_ITEM(&it, N / mtbf * span, "raise gpu_mtbf or lower sim.duration",
		         "%s: about @ failures (gpus %s / gpu_mtbf %s x %s)", c->prefix,
		         num(a, sizeof a, N), dur(p, sizeof p, mtbf), dur(d, sizeof d, span));
		add_work(E, &it);
		/* a failure that takes a hot spare schedules its repair */
		double spares = pnum(c, "hot_spares", 0);
		E->out.pending += fmin(spares, N / mtbf * span + 1);
	}
}

static void load_work(est *E, aiwi_comp *c)
{
	double D = E->D, racks = pnum(c, "racks", 1);
	char a[64], d[64], p[64], q[64];
	item it = {0};
	bool per_rack = true;
	if (pisset(c, "on_time") && pisset(c, "off_time")) {
		double cyc = aiwi_dist_mean(pdist(c, "on_time")) + aiwi_dist_mean(pdist(c, "off_time"));
		if (cyc > 0)
			FMT_ITEM(&it, racks * 2 * D / cyc, "raise on_time and off_time, or lower racks",
			         "%s: about @ on/off toggles (%s racks x 2 x %s / (E[on_time] + "
			         "E[off_time]) %s)",
			         c->prefix, num(a, sizeof a, racks), dur(d, sizeof d, D),
			         dur(p, sizeof p, cyc));
	} else if (pisset(c, "duty") && pisset(c, "slot")) {
		double slot = pnum(c, "slot", NAN);
		if (slot > 0)
			FMT_ITEM(&it, racks * ceil(D / slot), "raise slot or lower racks",
			         "%s: about @ rack draws (%s racks x %s slots of %s)", c->prefix,
			         num(a, sizeof a, racks), num(q, sizeof q, ceil(D / slot)),
			         dur(p, sizeof p, slot));
	} else {
		const char *prof = pstr(c, "profile");
		double steps = 0; /* one TIME:POWER pair per step */
		for (const char *s = prof; s && *s; s++)
			steps += *s == ':';
		steps = fmax(steps, 1);
		per_rack = pnum(c, "rack_offset", 0) > 0;
		double timelines = per_rack ? racks : 1;
		double period = pnum(c, "period", NAN);
		if (pisset(c, "period") && period > 0)
			FMT_ITEM(&it, timelines * steps * ceil(D / period), "raise period or lower racks",
			         "%s: about @ profile steps (%s timelines x %s steps x %s periods of %s)",
			         c->prefix, num(a, sizeof a, timelines), num(q, sizeof q, steps),
			         num(d, sizeof d, ceil(D / period)), dur(p, sizeof p, period));
		else
			it.n = timelines * steps;
	}
	add_work(E, &it);
	E->out.pending += per_rack ? racks : 1;
	item m;
	FMT_ITEM(&m, per_rack ? 64 * racks : 0, "lower racks", "%s: about @ bytes for %s racks",
	         c->prefix, num(a, sizeof a, racks));
	add_mem(E, &m);
}

/* Curves a component adds beyond the standard three and the site's cost
 * curve: an upper bound per kind (test_hostile.c checks it). */
static double extra_curves(const aiwi_comp *c)
{
	if (strcmp(c->kind->name, "training") == 0)
		return 3;
	if (strcmp(c->kind->name, "inference") == 0)
		return 10 + 6;
	return 0;
}

static void estimate(aiw_sim *sim, est *E)
{
	memset(E, 0, sizeof *E);
	E->out.work_max = NAN;
	aiwi_comp *sc = aiwi_simcomp(sim);
	E->D = pnum(sc, "duration", 0);
	double si = pnum(sc, "sample_interval", 60);
	double samples = si > 0 ? ceil(E->D / si) + 1 : 0;
	E->out.samples = samples;
	double gpr = pnum(aiwi_site(sim), "gpus_per_rack", 32);
	double curves = 5, site_racks = 0;
	double tick_units = 0; /* racks and replica slots a sample tick visits */
	size_t pending0 = 0;
	aiw_sim_pending(sim, &pending0);
	E->out.pending = 1 + (double)pending0;
	char a[64], b[64], d[64], g[64];
	for (size_t i = 0; i < aiwi_ncomps(sim); i++) {
		aiwi_comp *c = aiwi_comp_at(sim, i);
		E->origin = c->origin;
		if (c->kind->sample && !c->kind->singleton)
			curves += 4 + extra_curves(c);
		const char *k = c->kind->name;
		if (strcmp(k, "inference") == 0) {
			inference_work(E, c);
			double slots = autoscaler_work(E, c);
			double gpus = slots * pnum(c, "gpus_per_replica", 1);
			double racks = ceil(gpus / gpr);
			site_racks += racks;
			tick_units += racks + slots;
			E->out.pending += 3 * slots + 8;
			item m;
			FMT_ITEM(&m, 160.0 * 1024 + 320 * slots + 56 * racks,
			         "lower replicas / max_replicas or gpus_per_replica, or raise "
			         "site.gpus_per_rack",
			         "%s: about @ bytes (%s replica slots of %s GPUs, %s racks of %s GPUs)",
			         c->prefix, num(a, sizeof a, slots),
			         num(b, sizeof b, pnum(c, "gpus_per_replica", 1)), num(d, sizeof d, racks),
			         num(g, sizeof g, gpr));
			add_mem(E, &m);
		} else if (strcmp(k, "training") == 0) {
			training_work(E, c);
			double gpus = pnum(c, "gpus", 0) + pnum(c, "hot_spares", 0);
			site_racks += ceil(gpus / gpr);
			E->out.pending += 4;
			item m = {.n = 256.0 * 1024};
			add_mem(E, &m);
		} else if (strcmp(k, "load") == 0) {
			load_work(E, c);
			site_racks += pnum(c, "racks", 1);
			tick_units += pnum(c, "racks", 1);
		} else {
			item m = {.n = 8.0 * 1024};
			add_mem(E, &m);
		}
	}
	E->out.curves = curves;
	E->origin = sc->origin; /* [sim]: sim.duration and sim.sample_interval */
	/* the recorder: one tick per sample, arrays grown by doubling */
	item it;
	FMT_ITEM(&it, samples, "raise sim.sample_interval", "the recorder: about @ sample ticks");
	add_work(E, &it);
	/* each tick visits every rack of the fleets and loads, and every slot */
	FMT_ITEM(&it, samples * tick_units, "raise sim.sample_interval or site.gpus_per_rack",
	         "the recorder: about @ rack and replica samples (%s samples x %s racks and replica "
	         "slots)",
	         num(a, sizeof a, samples), num(b, sizeof b, tick_units));
	add_work(E, &it);
	/* the recorder allocates up to 2^20 samples at once, then doubles; a
	 * bounded sim.series_keep caps it (a ring of the last keep points) */
	double cap = ceil(samples);
	if (cap > 1048576) {
		cap = 1048576;
		while (cap < samples)
			cap *= 2;
	}
	double keep = pnum(sc, "series_keep", 0);
	bool ring = keep >= 1 && keep < cap;
	if (ring)
		cap = keep;
	E->out.points = samples > 0 ? cap : 0;
	item m;
	if (ring)
		FMT_ITEM(&m, cap * (curves + 1) * 8, "lower sim.series_keep",
		         "the curves: about @ bytes (the last %s points, sim.series_keep, x %s curves x "
		         "8 B)",
		         num(a, sizeof a, cap), num(b, sizeof b, curves));
	else
		FMT_ITEM(&m, samples > 0 ? cap * (curves + 1) * 8 : 0,
		         "raise sim.sample_interval, lower sim.duration or set sim.series_keep",
		         "the curves: about @ bytes (%s samples x %s curves x 8 B%s)",
		         num(a, sizeof a, samples), num(b, sizeof b, curves),
		         cap > 1048576 ? ", grown by doubling" : "");
	add_mem(E, &m);
	FMT_ITEM(&m, 8 * site_racks, "raise site.gpus_per_rack",
	         "the site: about @ bytes for %s racks of %s GPUs", num(a, sizeof a, site_racks),
	         num(b, sizeof b, gpr));
	add_mem(E, &m);
	FMT_ITEM(&m, 52 * E->out.pending, "", "the event set: about @ bytes");
	add_mem(E, &m);
}

aiw_status aiwi_limits_estimate(aiw_sim *sim, aiwi_limits_est *out)
{
	if (!sim || !out)
		return AIW_EINVAL;
	est *E = malloc(sizeof *E);
	if (!E)
		return aiwi_err(sim, AIW_ENOMEM, "out of memory");
	char saved[1024];
	snprintf(saved, sizeof saved, "%s", aiw_sim_errmsg(sim));
	estimate(sim, E);
	aiwi_err(sim, AIW_OK, "%s", saved); /* an estimate leaves no message */
	*out = E->out;
	free(E);
	return AIW_OK;
}

/* The text of an item with its number in place of the @, after the
 * FILE:LINE of its scenario section when it came from one (as the errors of
 * a component's start are named). */
static const char *item_text(char *buf, size_t len, const item *it)
{
	char n[64];
	const char *at = strchr(it->what, '@');
	const char *o = it->origin ? it->origin : "", *sep = it->origin ? ": " : "";
	if (at)
		snprintf(buf, len, "%s%s%.*s%s%s", o, sep, (int)(at - it->what), it->what,
		         num(n, sizeof n, it->n), at + 1);
	else
		snprintf(buf, len, "%s%s%s", o, sep, it->what);
	return buf;
}

static aiw_status refuse(aiw_sim *sim, const item *it, double limit)
{
	char l[64], msg[900];
	item_text(msg, sizeof msg, it);
	if (it->fix[0])
		return aiwi_err(sim, AIW_ELIMIT, "%s; the limit is %s (%s)", msg,
		                num(l, sizeof l, limit), it->fix);
	return aiwi_err(sim, AIW_ELIMIT, "%s; the limit is %s", msg, num(l, sizeof l, limit));
}

aiw_status aiwi_limits_check(aiw_sim *sim)
{
	if (!sim)
		return AIW_EINVAL;
	est *E = malloc(sizeof *E);
	if (!E)
		return aiwi_err(sim, AIW_ENOMEM, "out of memory");
	estimate(sim, E);
	aiw_status st = E->bad;
	char a[64], b[64], l[64];
	if (st != AIW_OK) {
		/* the message of trace_precheck is on sim */
	} else if (!(E->out.work_max <= AIW_LIMIT_WORK) && !isnan(E->out.work_max)) {
		st = refuse(sim, &E->worst, AIW_LIMIT_WORK);
	} else if (!(E->out.work <= AIW_LIMIT_WORK)) {
		char w[900];
		item_text(w, sizeof w, &E->worst);
		st = aiwi_err(sim, AIW_ELIMIT,
		              "the run: about %s work items in all (requests, steps and other model "
		              "events; the largest: %s); the limit is %s (lower sim.duration or the "
		              "rates)",
		              num(b, sizeof b, E->out.work), w, num(l, sizeof l, AIW_LIMIT_WORK));
	} else if (!(E->out.memory_bytes <= AIW_LIMIT_MEMORY_BYTES)) {
		char w[900];
		item_text(w, sizeof w, &E->big_mem);
		st = aiwi_err(sim, AIW_ELIMIT,
		              "the run: about %s bytes of memory (the largest part: %s); the limit is "
		              "%s bytes%s%s%s",
		              num(b, sizeof b, E->out.memory_bytes), w,
		              num(l, sizeof l, AIW_LIMIT_MEMORY_BYTES), E->big_mem.fix[0] ? " (" : "",
		              E->big_mem.fix, E->big_mem.fix[0] ? ")" : "");
	} else if (!(E->out.pending <= AIW_LIMIT_PENDING)) {
		st = aiwi_err(sim, AIW_ELIMIT,
		              "the run: about %s events pending at once (load racks, replica timers, "
		              "repairs); the event set holds at most %u (lower load racks or "
		              "hot_spares)",
		              num(a, sizeof a, E->out.pending), AIW_ENGINE_MAX_PENDING);
	}
	free(E);
	return st;
}
