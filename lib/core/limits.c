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
 * (tests/api/test_hostile_limits.c) keeps the curve count an upper bound of the real
 * one.
 *
 * Each kind's estimate hook (aiwi_kind.estimate, next to the model) counts
 * its own items by calling the derivations its start runs; this file only
 * sums them, adds the recorder and the event set, and compares the sums
 * with the limits.  The aggregator's hook (the site's: its racks) runs
 * after every other component's, on the racks they reported.
 */
#include "core/limits.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* numbers in messages: "8.6e16", "86400", "1 d"                             */
/* ------------------------------------------------------------------------ */
const char *aiwi_est_num(char *buf, size_t len, double x)
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

const char *aiwi_est_dur(char *buf, size_t len, double s)
{
	static const struct {
		const char *u;
		double f;
	} U[] = {{"y", 31536000}, {"d", 86400}, {"h", 3600}, {"min", 60}, {"s", 1}};
	char n[64];
	for (size_t i = 0; i < sizeof U / sizeof *U; i++)
		if (s >= U[i].f || i + 1 == sizeof U / sizeof *U) {
			snprintf(buf, len, "%s %s", aiwi_est_num(n, sizeof n, s / U[i].f), U[i].u);
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

struct aiwi_estimate {
	aiwi_limits_est out;
	item worst;        /* largest work item */
	item big_mem;      /* largest memory item */
	const char *origin; /* of the component whose items are being added */
	double D;
	double site_racks; /* racks the site keeps a peak for */
	double tick_units; /* racks and replica slots a sample tick visits */
	aiw_status bad;    /* a configuration refused at once (message on sim) */
};

static void add_work(aiwi_estimate *E, const item *it)
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

static void add_mem(aiwi_estimate *E, const item *it)
{
	if (!(it->n > 0))
		return;
	E->out.memory_bytes += it->n;
	if (it->n > E->big_mem.n) {
		E->big_mem = *it;
		E->big_mem.origin = E->origin;
	}
}

static void vitem(item *it, double n, const char *fix, const char *what, va_list ap)
{
	it->n = n;
	vsnprintf(it->what, sizeof it->what, what, ap);
	snprintf(it->fix, sizeof it->fix, "%s", fix ? fix : "");
	it->origin = NULL;
}

void aiwi_est_work(aiwi_estimate *E, double n, const char *fix, const char *what, ...)
{
	item it;
	va_list ap;
	va_start(ap, what);
	vitem(&it, n, fix, what, ap);
	va_end(ap);
	add_work(E, &it);
}

void aiwi_est_memory(aiwi_estimate *E, double bytes, const char *fix, const char *what, ...)
{
	item it;
	va_list ap;
	va_start(ap, what);
	vitem(&it, bytes, fix, what, ap);
	va_end(ap);
	add_mem(E, &it);
}

void aiwi_est_pending(aiwi_estimate *E, double events)
{
	E->out.pending += events;
}

void aiwi_est_racks(aiwi_estimate *E, double site_racks, double tick_units)
{
	E->site_racks += site_racks;
	E->tick_units += tick_units;
}

double aiwi_est_site_racks(const aiwi_estimate *E)
{
	return E->site_racks;
}

double aiwi_est_duration(const aiwi_estimate *E)
{
	return E->D;
}

void aiwi_est_refuse(aiwi_estimate *E, aiw_status st)
{
	if (!E->bad)
		E->bad = st;
}

bool aiwi_est_refused(const aiwi_estimate *E)
{
	return E->bad != AIW_OK;
}

#define FMT_ITEM(it, n_, fix_, ...)                                         \
	do {                                                                \
		(it)->n = (n_);                                             \
		snprintf((it)->what, sizeof (it)->what, __VA_ARGS__);       \
		snprintf((it)->fix, sizeof (it)->fix, "%s", (fix_));        \
	} while (0)

/* The samples of empirical(FILE) distributions that the parameters of a
 * component hold, 8 bytes each (the sorted copy read at set time; no model
 * keeps another): whatever the kind, so counted here rather than in the
 * kinds' estimate hooks. */
static void empirical_memory(aiwi_estimate *E, aiwi_comp *c)
{
	for (size_t j = 0; j < c->kind->nparams; j++) {
		const aiwi_dist *d = c->v[j].dist;
		if (!d || d->kind != AIW_D_EMPIRICAL)
			continue;
		char a[64];
		aiwi_est_memory(E, 8.0 * (double)d->n, "use fewer samples in the file",
		                "%s.%s: about @ bytes (%s samples of %s)", c->prefix,
		                c->kind->params[j].key, aiwi_est_num(a, sizeof a, (double)d->n),
		                d->spec);
	}
}

static void estimate(aiw_sim *sim, aiwi_estimate *E)
{
	memset(E, 0, sizeof *E);
	E->out.work_max = NAN;
	double si, keep;
	aiwi_run_conf(sim, &E->D, &si, &keep);
	double samples = si > 0 ? ceil(E->D / si) + 1 : 0;
	E->out.samples = samples;
	double curves = 0;
	size_t ncomponent_curves = 0;
	while (aiwi_component_curves[ncomponent_curves].key)
		ncomponent_curves++;
	size_t pending0 = 0;
	aiw_sim_pending(sim, &pending0);
	E->out.pending = 1 + (double)pending0;
	char a[64], b[64];
	aiwi_comp *agg = NULL;
	for (size_t i = 0; i < aiwi_ncomps(sim); i++) {
		aiwi_comp *c = aiwi_comp_at(sim, i);
		E->origin = c->origin;
		/* its own curves, and the standard ones when it is accounted */
		curves += (double)aiwi_kind_curve_count(c->kind);
		empirical_memory(E, c);
		if (aiwi_kind_is(c->kind, AIWI_KIND_ACCOUNTED))
			curves += (double)ncomponent_curves;
		if (aiwi_kind_is(c->kind, AIWI_KIND_AGGREGATOR) && c->kind->estimate) {
			agg = c; /* sums the others' items: after them, below */
			continue;
		}
		if (!c->kind->estimate) { /* fixed state only */
			item m = {.n = 8.0 * 1024};
			add_mem(E, &m);
			continue;
		}
		/* a derivation's message is not the estimate's, unless it refuses */
		char saved[1024];
		snprintf(saved, sizeof saved, "%s", aiw_sim_errmsg(sim));
		bool was_bad = E->bad != AIW_OK;
		c->kind->estimate(c, E);
		if (was_bad || E->bad == AIW_OK)
			aiwi_err(sim, AIW_OK, "%s", saved);
	}
	E->out.curves = curves;
	E->origin = aiwi_simcomp(sim)->origin; /* [sim]: sim.duration and sim.sample_interval */
	double tick_units = E->tick_units;
	/* the recorder: one tick per sample, arrays grown by doubling */
	item it;
	FMT_ITEM(&it, samples, "raise sim.sample_interval", "the recorder: about @ sample ticks");
	add_work(E, &it);
	/* each tick visits every rack of the fleets and loads, and every slot */
	FMT_ITEM(&it, samples * tick_units, "raise sim.sample_interval or site.gpus_per_rack",
	         "the recorder: about @ rack and replica samples (%s samples x %s racks and replica "
	         "slots)",
	         aiwi_est_num(a, sizeof a, samples), aiwi_est_num(b, sizeof b, tick_units));
	add_work(E, &it);
	/* the recorder allocates up to 2^20 samples at once, then doubles; a
	 * bounded sim.series_keep caps it (a ring of the last keep points) */
	double cap = ceil(samples);
	if (cap > 1048576) {
		cap = 1048576;
		while (cap < samples)
			cap *= 2;
	}
	bool ring = keep >= 1 && keep < cap;
	if (ring)
		cap = keep;
	E->out.points = samples > 0 ? cap : 0;
	item m;
	if (ring)
		FMT_ITEM(&m, cap * (curves + 1) * 8, "lower sim.series_keep",
		         "the curves: about @ bytes (the last %s points, sim.series_keep, x %s curves x "
		         "8 B)",
		         aiwi_est_num(a, sizeof a, cap), aiwi_est_num(b, sizeof b, curves));
	else
		FMT_ITEM(&m, samples > 0 ? cap * (curves + 1) * 8 : 0,
		         "raise sim.sample_interval, lower sim.duration or set sim.series_keep",
		         "the curves: about @ bytes (%s samples x %s curves x 8 B%s)",
		         aiwi_est_num(a, sizeof a, samples), aiwi_est_num(b, sizeof b, curves),
		         cap > 1048576 ? ", grown by doubling" : "");
	add_mem(E, &m);
	/* the latency histograms' snapshots at every tick (series.c), with
	 * sim.histogram_series: AIWI_NLE + 2 numbers per histogram and tick */
	double hs_n = 0;
	for (size_t i = 0; aiwi_hist_series(sim) && i < aiwi_ncomps(sim); i++) {
		aiwi_comp *c = aiwi_comp_at(sim, i);
		if (!c->kind->histograms || !c->kind->histogram)
			continue;
		for (const aiwi_hist_def *h = c->kind->histograms; h->key; h++)
			hs_n += AIWI_NLE + 2;
	}
	if (hs_n > 0 && samples > 0) {
		FMT_ITEM(&m, cap * hs_n * 8,
		         "raise sim.sample_interval, lower sim.duration or set sim.series_keep",
		         "the latency histograms at every sample: about @ bytes (%s samples x %s "
		         "bucket counts x 8 B)",
		         aiwi_est_num(a, sizeof a, samples), aiwi_est_num(b, sizeof b, hs_n));
		add_mem(E, &m);
	}
	/* the aggregator (the site): its state over the racks the others
	 * reported (aiwi_est_racks) */
	if (agg)
		agg->kind->estimate(agg, E);
	FMT_ITEM(&m, 52 * E->out.pending, "", "the event set: about @ bytes");
	add_mem(E, &m);
}

aiw_status aiwi_limits_estimate(aiw_sim *sim, aiwi_limits_est *out)
{
	if (!sim || !out)
		return AIW_EINVAL;
	aiwi_estimate *E = malloc(sizeof *E);
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
		         aiwi_est_num(n, sizeof n, it->n), at + 1);
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
		                aiwi_est_num(l, sizeof l, limit), it->fix);
	return aiwi_err(sim, AIW_ELIMIT, "%s; the limit is %s", msg, aiwi_est_num(l, sizeof l, limit));
}

aiw_status aiwi_limits_check(aiw_sim *sim)
{
	if (!sim)
		return AIW_EINVAL;
	aiwi_estimate *E = malloc(sizeof *E);
	if (!E)
		return aiwi_err(sim, AIW_ENOMEM, "out of memory");
	estimate(sim, E);
	aiw_status st = E->bad;
	char a[64], b[64], l[64];
	if (st != AIW_OK) {
		/* the message of the refusing kind is on sim */
	} else if (!(E->out.work_max <= AIW_LIMIT_WORK) && !isnan(E->out.work_max)) {
		st = refuse(sim, &E->worst, AIW_LIMIT_WORK);
	} else if (!(E->out.work <= AIW_LIMIT_WORK)) {
		char w[900];
		item_text(w, sizeof w, &E->worst);
		st = aiwi_err(sim, AIW_ELIMIT,
		              "the run: about %s work items in all (requests, steps and other model "
		              "events; the largest: %s); the limit is %s (lower sim.duration or the "
		              "rates)",
		              aiwi_est_num(b, sizeof b, E->out.work), w, aiwi_est_num(l, sizeof l, AIW_LIMIT_WORK));
	} else if (!(E->out.memory_bytes <= AIW_LIMIT_MEMORY_BYTES)) {
		char w[900];
		item_text(w, sizeof w, &E->big_mem);
		st = aiwi_err(sim, AIW_ELIMIT,
		              "the run: about %s bytes of memory (the largest part: %s); the limit is "
		              "%s bytes%s%s%s",
		              aiwi_est_num(b, sizeof b, E->out.memory_bytes), w,
		              aiwi_est_num(l, sizeof l, AIW_LIMIT_MEMORY_BYTES), E->big_mem.fix[0] ? " (" : "",
		              E->big_mem.fix, E->big_mem.fix[0] ? ")" : "");
	} else if (!(E->out.pending <= AIW_LIMIT_PENDING)) {
		st = aiwi_err(sim, AIW_ELIMIT,
		              "the run: about %s events pending at once (load racks, replica timers, "
		              "repairs); the event set holds at most %u (lower load racks or "
		              "hot_spares)",
		              aiwi_est_num(a, sizeof a, E->out.pending), AIW_ENGINE_MAX_PENDING);
	}
	free(E);
	return st;
}
