/*
 * capacity.c - aiw_inference_capacity: what an inference fleet serves, in
 * the two figures MLPerf Inference publishes for a data-centre system.
 *
 * Offline (MLPerf's offline scenario: "LoadGen sends all queries to the SUT
 * at start"): offline_requests requests, all arriving at t = 0, their
 * prompt and output lengths drawn from the component's prompt_tokens and
 * output_tokens (rounded, at least 1), served by the fleet to the last
 * one; throughput = requests (and output and input tokens) / the time the
 * last one ends (the largest end-to-end latency, all having arrived at 0).
 * They are replayed as a trace whose rows all carry timestamp 0, written
 * to a temporary file (in $TMPDIR, else /tmp) and removed at once.
 *
 * Server (MLPerf's server scenario: Poisson arrivals, a P99 latency
 * constraint; the largest Poisson rate that meets it): at a rate lambda the
 * fleet runs from t = 0 until both `duration` has passed and min_requests
 * requests have arrived (LoadGen's stopping rule: the minimum query count
 * and the minimum time), then
 *   TTFT: the requests that ended (completed or dropped: a drop never meets
 *         a limit) plus the ones still queued at the end (counted as over
 *         the limit: their TTFT, still unknown, is censored), of which at
 *         most floor(0.01 n) may be over ttft_p99 (nearest-rank P99 <= limit);
 *   TPOT: the requests that ended, at most floor(0.01 n) over tpot_p99.
 * Requests still in a batch at the end are left out of both counts (their
 * TTFT and TPOT are not final; in a stable fleet they are a sample like the
 * others).  The counts come from the fleet's SLO counters (slo_ttft and
 * slo_tpot set to the limits: exact comparisons, no histogram rounding).
 *
 * The search: every run uses the scenario's sim.seed (common random
 * numbers: a Poisson stream's interarrival times are its exponential draws
 * over lambda, so the same seed at another rate replays the same arrivals
 * rescaled in time, and the verdict moves with the rate, not with the
 * noise).  The bracket starts at the offline request rate: doubled while it
 * passes, halved while it fails, then bisected geometrically (sqrt(lo hi))
 * until hi / lo - 1 <= resolution.  (The offline figure includes the
 * drain at the end, the last long outputs decoding in small batches, so a
 * continuously batched fleet's server rate can exceed it by a few percent;
 * the doubling covers that.)  The result is the largest rate that passed and the smallest
 * that failed; between them the verdict is not known.  The over-limit
 * count is a step function of the rate with noise of its own, so the
 * verdict need not be monotone: bisection then returns one of its changes,
 * adjacent pass and fail within the resolution.
 *
 * Seeds: the resolution is the search's, not the estimate's; one seed's
 * rate carries the sampling noise of its over-limit count (about 0.5-1% at
 * 270,336 requests).  seeds = N repeats the whole measurement, offline run
 * included (its request sizes are drawn from the seed too), for sim.seed +
 * k, k = 0 .. N - 1 (mod 2^64), each exactly the call with that sim.seed
 * and seeds = 1, and summarises the N server rates (SERVER_RATE, the
 * largest passing rate of each search) and offline request rates: the
 * mean, the sample standard deviation (GSL rstat), the 95% Student
 * interval of the mean, mean -+ t(0.975, N - 1) sd / sqrt(N)
 * (gsl_cdf_tdist_Pinv), min and max.  The interval is the seeds' spread
 * only: each rate is its bracket's lower end, up to `resolution` below the
 * crossing.  The per-run columns are the median seed's (the seeds ordered
 * by server rate, the lower middle one), the run count the sum.  max_runs
 * bounds each seed's search; the progress callback counts the runs of
 * every seed, of at most N max_runs.
 *
 * Constants, with their sources:
 *   MLPerf Inference rules (mlcommons/inference_policies, inference_rules.adoc,
 *   "Scenarios"): the number of queries is set for a 99% confidence that
 *   the tail-latency percentile is met within a margin: for the 99th
 *   percentile, 99% confidence and a 0.05% margin, 262,742 queries,
 *   rounded up to 33 x 2^13 = 270,336 (DEFAULT_MIN_REQUESTS); offline: at
 *   least 24,576 samples (3 x 2^13, DEFAULT_OFFLINE_REQUESTS).
 *   LoadGen's mlperf.conf: *.Server.min_duration = 600000 (ms)
 *   (DEFAULT_DURATION).  Llama-2-70B server (MLPerf Inference v4.0 rules,
 *   mlperf.conf llama2-70b.Server.ttft_latency = 2000 and tpot_latency =
 *   200, ms): P99 TTFT 2 s, P99 TPOT 200 ms (DEFAULT_TTFT, DEFAULT_TPOT).
 *
 * The fleet is measured as configured, with a fixed `replicas` (the
 * autoscaler is turned off); the scenario's other workloads (training
 * jobs, other fleets) are left out: they share no queue with it.
 * Everything else goes through the public API: the call works with
 * whatever serving time model the component uses.
 */
#include "core/internal.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_rstat.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_TTFT 2.0
#define DEFAULT_TPOT 0.2
#define DEFAULT_DURATION 600.0
#define DEFAULT_MIN_REQUESTS 270336.0
#define DEFAULT_OFFLINE_REQUESTS 24576.0
#define DEFAULT_RESOLUTION 0.01
#define DEFAULT_MAX_RUNS 40.0
#define DEFAULT_SEEDS 1.0
/* the confidence of the interval over seeds: 95%, two-sided */
#define CI_LEVEL 0.95
/* the tail: P99 */
#define TAIL 0.01
/* halvings of the bracket below the offline rate before "no rate passes" */
#define MAX_HALVINGS 20
/* doublings above it before "every rate passes" */
#define MAX_DOUBLINGS 10
/* the offline run's horizon: doubled from this until every request ended */
#define OFFLINE_FIRST_HORIZON 60.0
#define HORIZON_MAX 3.2e9
/* sample ticks of a run at most (no curve is read) */
#define MAX_TICKS 1e4
/* The zero-load check: before the search, ZERO_LOAD_REQUESTS (at most
 * min_requests) at the offline rate / ZERO_LOAD_DIVISOR, a load at which a
 * request almost never waits; a fleet that fails the limits there fails
 * them at every rate, and the search would only halve its way down to
 * nothing. */
#define ZERO_LOAD_REQUESTS 2000.0
#define ZERO_LOAD_DIVISOR 1000.0

typedef struct cap_conf {
	double ttft, tpot;     /* limits (s); INFINITY: none */
	double duration;       /* minimum measured span (s) */
	double min_requests;   /* minimum arrivals per server run */
	double offline_n;      /* requests at t = 0 */
	double resolution;     /* hi / lo - 1 to reach */
	double max_runs;       /* simulations of one seed, offline included */
	double seeds;          /* seeds measured: sim.seed, sim.seed + 1, ... */
} cap_conf;

static const struct {
	const char *key, *type;
	double lo, hi;
	size_t off;
	const char *doc;
} KEYS[] = {
	{"ttft_p99", "duration", 0, 3.2e9, offsetof(cap_conf, ttft), "P99 TTFT limit"},
	{"tpot_p99", "duration", 0, 3.2e9, offsetof(cap_conf, tpot), "P99 TPOT limit"},
	{"duration", "duration", 0, 3.2e9, offsetof(cap_conf, duration), "measured span"},
	{"min_requests", "int", 100, 1e8, offsetof(cap_conf, min_requests), "arrivals per run"},
	{"offline_requests", "int", 1, 1e8, offsetof(cap_conf, offline_n), "offline requests"},
	{"resolution", "real", 1e-4, 1, offsetof(cap_conf, resolution), "relative bracket width"},
	{"max_runs", "int", 3, 1000, offsetof(cap_conf, max_runs), "simulations per seed"},
	{"seeds", "int", 1, 1000, offsetof(cap_conf, seeds), "seeds measured"},
};
#define NKEYS (sizeof KEYS / sizeof *KEYS)

static aiw_status parse_settings(aiw_sim *sim, const char *const *settings, size_t n,
                                 cap_conf *c)
{
	*c = (cap_conf){DEFAULT_TTFT,      DEFAULT_TPOT,       DEFAULT_DURATION, DEFAULT_MIN_REQUESTS,
	                DEFAULT_OFFLINE_REQUESTS, DEFAULT_RESOLUTION, DEFAULT_MAX_RUNS,
	                DEFAULT_SEEDS};
	if (n > 0 && !settings)
		return aiwi_err(sim, AIW_EINVAL,
		                "aiw_inference_capacity: settings is NULL with nsettings = %zu", n);
	for (size_t i = 0; i < n; i++) {
		const char *s = settings[i];
		if (!s)
			return aiwi_err(sim, AIW_EINVAL, "aiw_inference_capacity: settings[%zu] is NULL",
			                i);
		const char *eq = strchr(s, '=');
		size_t kl = eq ? (size_t)(eq - s) : strlen(s);
		size_t k = 0;
		while (k < NKEYS && !(strlen(KEYS[k].key) == kl && strncmp(KEYS[k].key, s, kl) == 0))
			k++;
		if (k == NKEYS)
			return aiwi_err(sim, AIW_EUNKNOWN,
			                "aiw_inference_capacity: setting '%s': unknown key (ttft_p99, "
			                "tpot_p99, duration, min_requests, offline_requests, "
			                "resolution, max_runs, seeds)",
			                s);
		if (!eq)
			return aiwi_err(sim, AIW_EPARSE,
			                "aiw_inference_capacity: setting '%s': expected %s=VALUE", s,
			                KEYS[k].key);
		double v;
		char err[200];
		double *dst = (double *)((char *)c + KEYS[k].off);
		bool lim = k < 2; /* the limits take "none" */
		if (lim && strcmp(eq + 1, "none") == 0) {
			*dst = INFINITY;
			continue;
		}
		aiw_status st = aiw_parse_value(KEYS[k].type, eq + 1, &v, err, sizeof err);
		bool whole = strcmp(KEYS[k].type, "int") == 0;
		bool excl = KEYS[k].lo == 0;
		if (st != AIW_OK)
			return aiwi_err(sim, st,
			                "aiw_inference_capacity: setting '%s': %s (%s: %s %s %g to "
			                "%g%s)",
			                s, err, KEYS[k].key, whole ? "an integer" : "a value",
			                excl ? "above" : "from", KEYS[k].lo, KEYS[k].hi,
			                lim ? ", or none" : "");
		if (!isfinite(v) || (excl ? !(v > KEYS[k].lo) : !(v >= KEYS[k].lo)) || v > KEYS[k].hi ||
		    (whole && v != floor(v)))
			return aiwi_err(sim, AIW_ERANGE,
			                "aiw_inference_capacity: %s = %g (%s) out of range: %s %s %g to "
			                "%g%s",
			                KEYS[k].key, v, KEYS[k].doc, whole ? "an integer" : "a value",
			                excl ? "above" : "from", KEYS[k].lo, KEYS[k].hi,
			                lim ? ", or none" : "");
		*dst = v;
	}
	if (!isfinite(c->ttft) && !isfinite(c->tpot))
		return aiwi_err(sim, AIW_EINVAL,
		                "aiw_inference_capacity: ttft_p99 and tpot_p99 are both none: the "
		                "server search needs a limit");
	return AIW_OK;
}

/* ------------------------------------------------------------------------ */
/* one simulation of the fleet alone                                         */
/* ------------------------------------------------------------------------ */
typedef struct cap_ctx {
	aiw_sim *tmpl;           /* the caller's configuration */
	const aiwi_comp *target; /* the fleet, in tmpl */
	uint64_t seed;      /* this measurement's */
	uint64_t base_seed; /* the template's sim.seed */
	cap_conf conf;
	char px[256]; /* "inference.NAME" */
	/* a prefill pool's decode pool (disaggregation = prefill), in tmpl,
	 * measured with it; NULL otherwise */
	const aiwi_comp *decode;
	char dpx[256];
	bool sessions; /* conversations: no offline figure */
} cap_ctx;

static aiw_status set_target(aiw_sim *sim, const cap_ctx *x, const char *key, const char *v)
{
	char name[300];
	snprintf(name, sizeof name, "%s.%s", x->px, key);
	return aiw_sim_set(sim, name, v);
}

static aiw_status set_target_num(aiw_sim *sim, const cap_ctx *x, const char *key, double v)
{
	char name[300];
	snprintf(name, sizeof name, "%s.%s", x->px, key);
	return aiw_sim_set_double(sim, name, v);
}

static double metric(aiw_sim *sim, const cap_ctx *x, const char *key)
{
	char name[300];
	double v = NAN;
	snprintf(name, sizeof name, "%s.%s", x->px, key);
	if (aiw_sim_metric(sim, name, &v) != AIW_OK)
		return NAN;
	return v;
}

/* The decode pool's metric (NaN without one). */
static double metric_d(aiw_sim *sim, const cap_ctx *x, const char *key)
{
	char name[300];
	double v = NAN;
	snprintf(name, sizeof name, "%s.%s", x->dpx, key);
	if (!x->decode || aiw_sim_metric(sim, name, &v) != AIW_OK)
		return NAN;
	return v;
}

/* A count over the fleet and its decode pool: a request prefilled by the
 * one completes in the other (a one-token output in the first). */
static double total(aiw_sim *sim, const cap_ctx *x, const char *key)
{
	return metric(sim, x, key) + (x->decode ? metric_d(sim, x, key) : 0);
}

/* The requests of a pool that met an SLO: attainment x ended, 0 when
 * none ended (the attainment is NaN). */
static double met_of(double attainment, double ended)
{
	return ended > 0 ? floor(attainment * ended + 0.5) : 0;
}

/* A fresh simulation holding the template's sim, site, GPU and other
 * non-workload components and the target fleet (and its decode pool), with
 * the fleet fixed. */
static aiw_status fleet_sim(const cap_ctx *x, double duration, aiw_sim **out)
{
	aiw_sim *sim;
	aiw_status st = aiw_sim_create(&sim, x->seed);
	if (st != AIW_OK)
		return aiwi_err(x->tmpl, st, "aiw_inference_capacity: out of memory");
	for (size_t i = 0; i < aiwi_ncomps(x->tmpl) && st == AIW_OK; i++) {
		const aiwi_comp *c = aiwi_comp_at(x->tmpl, i);
		if (c != x->target && c != x->decode && aiwi_kind_is(c->kind, AIWI_KIND_WORKLOAD))
			continue;
		aiwi_comp *d;
		st = aiwi_comp_get(sim, c->kind->name, c->name, true, &d);
		for (size_t j = 0; j < c->kind->nparams && st == AIW_OK; j++)
			st = aiwi_value_copy(&d->v[j], &c->v[j]);
	}
	/* sim.seed came with the sim component: every run of the first seed
	 * has the scenario's, the others' theirs */
	if (st == AIW_OK && x->seed != x->base_seed) {
		char buf[32];
		snprintf(buf, sizeof buf, "%llu", (unsigned long long)x->seed);
		st = aiw_sim_set(sim, "sim.seed", buf);
	}
	if (st == AIW_OK)
		st = aiw_sim_set_double(sim, "sim.duration", duration);
	if (st == AIW_OK) /* no curve is read: keep one point */
		st = aiw_sim_set(sim, "sim.series_keep", "1");
	if (st == AIW_OK)
		st = set_target(sim, x, "autoscaler", "none");
	if (st == AIW_OK)
		st = isfinite(x->conf.ttft) ? set_target_num(sim, x, "slo_ttft", x->conf.ttft)
		                            : set_target(sim, x, "slo_ttft", "none");
	if (st == AIW_OK)
		st = isfinite(x->conf.tpot) ? set_target_num(sim, x, "slo_tpot", x->conf.tpot)
		                            : set_target(sim, x, "slo_tpot", "none");
	if (st == AIW_OK)
		st = set_target(sim, x, "slo_e2e", "none");
	if (st == AIW_OK && x->decode) { /* the same limits, fixed too */
		const char *keys[] = {"autoscaler", "slo_ttft", "slo_tpot", "slo_e2e"};
		for (size_t i = 0; i < 4 && st == AIW_OK; i++) {
			char name[300], v[300];
			snprintf(name, sizeof name, "%s.%s", x->px, keys[i]);
			snprintf(v, sizeof v, "%s.%s", x->dpx, keys[i]);
			char buf[64];
			st = aiw_sim_get(sim, name, buf, sizeof buf);
			if (st == AIW_OK)
				st = aiw_sim_set(sim, v, buf);
		}
	}
	if (st != AIW_OK) {
		aiwi_err(x->tmpl, st, "aiw_inference_capacity: %s", aiw_sim_errmsg(sim));
		aiw_sim_free(sim);
		return st;
	}
	*out = sim;
	return AIW_OK;
}

/* Run sim (already configured) and copy its error to the template. */
static aiw_status run_to(const cap_ctx *x, aiw_sim *sim, double t, const char *what)
{
	aiw_status st = aiw_sim_run_until(sim, t);
	if (st != AIW_OK)
		aiwi_err(x->tmpl, st, "aiw_inference_capacity: %s: %s", what, aiw_sim_errmsg(sim));
	return st;
}

/* ------------------------------------------------------------------------ */
/* offline                                                                   */
/* ------------------------------------------------------------------------ */
static double draw_count(const aiwi_dist *d, gsl_rng *r)
{
	double v = d ? floor(aiwi_dist_sample(d, r) + 0.5) : 1.0;
	return v >= 1.0 && isfinite(v) ? v : 1.0;
}

/* The offline trace: n rows at timestamp 0 into a new temporary file. */
static aiw_status write_offline_trace(const cap_ctx *x, char *path, size_t plen)
{
	const aiwi_kind *k = x->target->kind;
	size_t ip = aiwi_kind_param_index(k, "prompt_tokens");
	size_t io = aiwi_kind_param_index(k, "output_tokens");
	const aiwi_dist *dp = ip != SIZE_MAX ? aiwi_pd(x->target, ip) : NULL;
	const aiwi_dist *dout = io != SIZE_MAX ? aiwi_pd(x->target, io) : NULL;
	const char *dir = getenv("TMPDIR");
	if (!dir || !*dir)
		dir = "/tmp";
	if ((size_t)snprintf(path, plen, "%s/aiw-offline-XXXXXX", dir) >= plen)
		return aiwi_err(x->tmpl, AIW_EIO, "aiw_inference_capacity: TMPDIR '%s' is too long",
		                dir);
	int fd = mkstemp(path);
	if (fd < 0)
		return aiwi_err(x->tmpl, AIW_EIO,
		                "aiw_inference_capacity: cannot create the offline trace '%s': %s",
		                path, strerror(errno));
	FILE *f = fdopen(fd, "w");
	gsl_rng *r = aiwi_rng_alloc();
	if (!f || !r) {
		if (f)
			fclose(f);
		else
			close(fd);
		if (r)
			gsl_rng_free(r);
		unlink(path);
		return aiwi_err(x->tmpl, AIW_ENOMEM, "aiw_inference_capacity: out of memory");
	}
	/* the request sizes' own stream: seed and a fixed offset */
	gsl_rng_set(r, (unsigned long)(x->seed ^ 0x6f66666c696e65ull));
	fputs("TIMESTAMP,ContextTokens,GeneratedTokens\n", f);
	for (double i = 0; i < x->conf.offline_n; i++) {
		double p = draw_count(dp, r);
		double o = draw_count(dout, r);
		fprintf(f, "0,%.17g,%.17g\n", p, o);
	}
	gsl_rng_free(r);
	bool bad = ferror(f) != 0;
	if (fclose(f) != 0 || bad) {
		int e = errno;
		unlink(path);
		return aiwi_err(x->tmpl, AIW_EIO,
		                "aiw_inference_capacity: cannot write the offline trace '%s': %s",
		                path, strerror(e));
	}
	return AIW_OK;
}

static aiw_status run_offline(const cap_ctx *x, double *out)
{
	char path[4096];
	aiw_status st = write_offline_trace(x, path, sizeof path);
	if (st != AIW_OK)
		return st;
	aiw_sim *sim = NULL;
	st = fleet_sim(x, HORIZON_MAX, &sim);
	/* conversations cannot replay a trace: their sizes alone give the
	 * server search its first rate, and no offline figure is reported */
	if (st == AIW_OK && x->sessions && (st = set_target(sim, x, "sessions", "off")) == AIW_OK)
		st = set_target(sim, x, "prefix_caching", "off");
	if (st == AIW_OK && (st = set_target(sim, x, "traffic", "trace")) == AIW_OK &&
	    (st = set_target(sim, x, "trace_file", path)) == AIW_OK &&
	    (st = set_target(sim, x, "trace_loop", "false")) == AIW_OK &&
	    (st = set_target(sim, x, "trace_time_scale", "1")) == AIW_OK &&
	    /* no curve is read: ticks as rare as the limits allow */
	    (st = aiw_sim_set_double(sim, "sim.sample_interval", HORIZON_MAX / MAX_TICKS)) != AIW_OK)
		aiwi_err(x->tmpl, st, "aiw_inference_capacity: %s", aiw_sim_errmsg(sim));
	double n = x->conf.offline_n, ended = 0;
	for (double h = OFFLINE_FIRST_HORIZON; st == AIW_OK; h *= 2) {
		if (h > HORIZON_MAX)
			h = HORIZON_MAX;
		if ((st = run_to(x, sim, h, "offline run")) != AIW_OK)
			break;
		/* the trace is read at the start: the file can go */
		if (path[0]) {
			unlink(path);
			path[0] = '\0';
		}
		ended = total(sim, x, "requests_completed") + total(sim, x, "requests_dropped");
		if (ended >= n)
			break;
		if (h >= HORIZON_MAX) {
			st = aiwi_err(x->tmpl, AIW_ELIMIT,
			              "aiw_inference_capacity: offline run: %g of %g requests ended in "
			              "%g s",
			              ended, n, h);
			break;
		}
	}
	if (path[0])
		unlink(path);
	if (st == AIW_OK) {
		double done = total(sim, x, "requests_completed");
		/* (fmax: NaN for a pool that completed none) */
		double span = fmax(metric(sim, x, "e2e_max_s"), metric_d(sim, x, "e2e_max_s"));
		if (!(done > 0) || !(span > 0)) {
			st = aiwi_err(x->tmpl, AIW_ESCENARIO,
			              "aiw_inference_capacity: offline run: no request completed (%g "
			              "dropped: too large for the KV cache, or a queue limit)",
			              total(sim, x, "requests_dropped"));
		} else {
			out[AIW_CAPACITY_OFFLINE_REQUESTS] = done;
			out[AIW_CAPACITY_OFFLINE_MAKESPAN_S] = span;
			out[AIW_CAPACITY_OFFLINE_REQUESTS_PER_S] = done / span;
			out[AIW_CAPACITY_OFFLINE_OUTPUT_TOKENS_PER_S] = total(sim, x, "tokens_out") / span;
			out[AIW_CAPACITY_OFFLINE_INPUT_TOKENS_PER_S] = metric(sim, x, "tokens_in") / span;
		}
	}
	aiw_sim_free(sim);
	return st;
}

/* ------------------------------------------------------------------------ */
/* server: one rate's verdict                                                */
/* ------------------------------------------------------------------------ */
typedef struct verdict {
	bool pass;
	double ttft_p99, tpot_p99;   /* the fleet's histogram figures */
	double ttft_over, tpot_over; /* fractions over the limits (censored included) */
	double n;                    /* requests issued (arrived) */
	double span;                 /* simulated time */
	double tokens_per_s;         /* output tokens per second */
} verdict;

static aiw_status run_rate(const cap_ctx *x, double rate, verdict *v)
{
	double need = x->conf.min_requests;
	double t = fmax(x->conf.duration, need / rate);
	aiw_sim *sim;
	/* room for the top-up runs below (the arrivals are random) */
	double horizon = fmin(HORIZON_MAX, 4 * t + 10 / rate);
	aiw_status st = fleet_sim(x, horizon, &sim);
	if (st != AIW_OK)
		return st;
	/* no curve is read: at most MAX_TICKS ticks (the scenario's interval
	 * when it gives fewer) */
	double dt;
	if (aiw_sim_get_double(sim, "sim.sample_interval", &dt) == AIW_OK && horizon / dt > MAX_TICKS)
		st = aiw_sim_set_double(sim, "sim.sample_interval", horizon / MAX_TICKS);
	if (st != AIW_OK || (st = set_target(sim, x, "traffic", "poisson")) != AIW_OK ||
	    (st = set_target_num(sim, x, "rate", rate)) != AIW_OK) {
		aiwi_err(x->tmpl, st, "aiw_inference_capacity: rate %g/s: %s", rate,
		         aiw_sim_errmsg(sim));
		aiw_sim_free(sim);
		return st;
	}
	char what[64];
	snprintf(what, sizeof what, "server run at %g/s", rate);
	st = run_to(x, sim, t, what);
	/* LoadGen's rule: both the minimum time and the minimum count */
	for (int k = 0; st == AIW_OK && k < 8; k++) {
		double arrived = metric(sim, x, "requests_arrived");
		if (!(arrived < need))
			break;
		t += (need - arrived) / rate + 1 / rate;
		st = run_to(x, sim, t, what);
	}
	if (st == AIW_OK) {
		double done = total(sim, x, "requests_completed");
		double dropped = total(sim, x, "requests_dropped");
		double waiting = total(sim, x, "requests_waiting");
		double ended = done + dropped;
		/* each pool's attainment over the requests that ended there */
		double e_t = metric(sim, x, "requests_completed") + metric(sim, x, "requests_dropped");
		double e_d = x->decode ? metric_d(sim, x, "requests_completed") +
		                                 metric_d(sim, x, "requests_dropped")
		                       : 0;
		double met_ttft = isfinite(x->conf.ttft)
		                          ? met_of(metric(sim, x, "slo_ttft_attainment"), e_t) +
		                                    met_of(metric_d(sim, x, "slo_ttft_attainment"), e_d)
		                          : ended;
		double met_tpot = isfinite(x->conf.tpot)
		                          ? met_of(metric(sim, x, "slo_tpot_attainment"), e_t) +
		                                    met_of(metric_d(sim, x, "slo_tpot_attainment"), e_d)
		                          : ended;
		if (!(ended > 0)) /* attainment NaN: nothing ended */
			met_ttft = met_tpot = 0;
		double n_ttft = ended + waiting, n_tpot = ended;
		double over_ttft = n_ttft - met_ttft, over_tpot = n_tpot - met_tpot;
		v->ttft_over = n_ttft > 0 ? over_ttft / n_ttft : 1;
		v->tpot_over = n_tpot > 0 ? over_tpot / n_tpot : 1;
		v->pass = ended > 0 && over_ttft <= floor(TAIL * n_ttft) &&
		          over_tpot <= floor(TAIL * n_tpot);
		/* (a prefill pool records every TTFT, its decode pool the TPOTs) */
		v->ttft_p99 = metric(sim, x, "ttft_p99_s");
		v->tpot_p99 = x->decode ? metric_d(sim, x, "tpot_p99_s") : metric(sim, x, "tpot_p99_s");
		v->n = metric(sim, x, "requests_arrived");
		aiw_sim_now(sim, &v->span);
		v->tokens_per_s = v->span > 0 ? total(sim, x, "tokens_out") / v->span : NAN;
	}
	aiw_sim_free(sim);
	return st;
}

/* ------------------------------------------------------------------------ */
/* the call                                                                  */
/* ------------------------------------------------------------------------ */
static aiw_status find_target(aiw_sim *sim, const char *component, const aiwi_comp **out)
{
	const char *name = component;
	if (name && strncmp(name, "inference.", 10) == 0)
		name += 10;
	const aiwi_kind *inference = aiwi_kind_find("inference");
	const aiwi_comp *found = NULL;
	int n = 0;
	for (size_t i = 0; i < aiwi_ncomps(sim); i++) {
		const aiwi_comp *c = aiwi_comp_at(sim, i);
		if (c->kind != inference)
			continue;
		n++;
		if (!name ? n == 1 : strcmp(c->name, name) == 0)
			found = c;
	}
	if (!name && n != 1) {
		char names[256] = "";
		size_t len = 0;
		for (size_t i = 0; i < aiwi_ncomps(sim) && len < sizeof names; i++) {
			const aiwi_comp *c = aiwi_comp_at(sim, i);
			if (c->kind == inference)
				len += (size_t)snprintf(names + len, sizeof names - len, "%s%s",
				                        len ? ", " : "", c->name);
		}
		return aiwi_err(sim, n ? AIW_EINVAL : AIW_ESCENARIO,
		                "aiw_inference_capacity: component is NULL and the scenario has %d "
		                "[inference NAME] sections%s%s%s: name one",
		                n, n ? " (" : "", names, n ? ")" : "");
	}
	if (!found)
		return aiwi_err(sim, AIW_EUNKNOWN,
		                "aiw_inference_capacity: component '%s': the scenario has no "
		                "[inference %s] section",
		                component, name);
	*out = found;
	return AIW_OK;
}

/* A pool of a disaggregated pair: the prefill pool is measured with its
 * decode pool (x->decode); a decode pool alone receives no traffic and is
 * refused.  Conversations (sessions = on) noted in x->sessions. */
static aiw_status pool_setup(aiw_sim *sim, cap_ctx *x)
{
	const aiwi_comp *t = x->target;
	size_t id = aiwi_kind_param_index(t->kind, "disaggregation");
	size_t is = aiwi_kind_param_index(t->kind, "sessions");
	x->sessions = is != SIZE_MAX && aiwi_p(t, is) == 1;
	int role = id != SIZE_MAX ? (int)aiwi_p(t, id) : 0; /* off, prefill, decode */
	if (role == 2) {
		char prefill[256] = "";
		size_t idf = aiwi_kind_param_index(t->kind, "decode_fleet");
		for (size_t i = 0; i < aiwi_ncomps(sim) && idf != SIZE_MAX; i++) {
			const aiwi_comp *c = aiwi_comp_at(sim, i);
			if (c->kind == t->kind && aiwi_p(c, id) == 1 && aiwi_ps(c, idf) &&
			    strcmp(aiwi_ps(c, idf), t->name) == 0) {
				snprintf(prefill, sizeof prefill, "%s", c->prefix);
				break;
			}
		}
		return aiwi_err(sim, AIW_EINVAL,
		                "aiw_inference_capacity: %s is a decode pool (disaggregation = "
		                "decode): it receives no traffic of its own; measure its prefill "
		                "pool%s%s, with which it is measured",
		                x->px, prefill[0] ? " " : "", prefill);
	}
	if (role != 1)
		return AIW_OK;
	size_t idf = aiwi_kind_param_index(t->kind, "decode_fleet");
	const char *name = idf != SIZE_MAX ? aiwi_ps(t, idf) : NULL;
	for (size_t i = 0; name && i < aiwi_ncomps(sim); i++) {
		const aiwi_comp *c = aiwi_comp_at(sim, i);
		if (c->kind == t->kind && strcmp(c->name, name) == 0)
			x->decode = c;
	}
	if (!x->decode)
		return aiwi_err(sim, AIW_ESCENARIO,
		                "aiw_inference_capacity: %s.decode_fleet = %s: no [inference %s] "
		                "section",
		                x->px, name ? name : "none", name ? name : "NAME");
	snprintf(x->dpx, sizeof x->dpx, "%s", x->decode->prefix);
	return AIW_OK;
}

static void fill_verdict(double *out, double rate, const verdict *v)
{
	out[AIW_CAPACITY_SERVER_RATE] = rate;
	out[AIW_CAPACITY_SERVER_TTFT_P99_S] = v->ttft_p99;
	out[AIW_CAPACITY_SERVER_TPOT_P99_S] = v->tpot_p99;
	out[AIW_CAPACITY_SERVER_TTFT_OVER] = v->ttft_over;
	out[AIW_CAPACITY_SERVER_TPOT_OVER] = v->tpot_over;
	out[AIW_CAPACITY_SERVER_REQUESTS] = v->n;
	out[AIW_CAPACITY_SERVER_DURATION_S] = v->span;
	out[AIW_CAPACITY_SERVER_OUTPUT_TOKENS_PER_S] = v->tokens_per_s;
}

/* The runs of the call, over every seed, and the progress callback. */
typedef struct cap_runs {
	size_t done;     /* simulations run, every seed */
	size_t max;      /* seeds x max_runs: what the callback is told */
	aiw_capacity_progress_fn progress;
	void *payload;
	aiw_sim *tmpl; /* held: aiw_sim_free from the callback is deferred */
	bool stopped;
} cap_runs;

static void report(cap_runs *rr, double rate, int verdict)
{
	rr->done++;
	if (rr->progress && rr->progress(rr->done, rr->max, rate, verdict, rr->payload) != 0)
		rr->stopped = true;
	if (aiwi_sim_freeing(rr->tmpl))
		rr->stopped = true;
}

/* One seed's measurement (x->seed): the offline run, then the server
 * search, into res (AIW_CAPACITY_RUNS: its own runs). */
/* Refuse (AIW_ERANGE) a fleet that misses the limits unloaded: its
 * requests at `rate' (next to none waiting) over the limits beyond the 1 %
 * the P99 allows, with the unloaded P99 figures in the message. */
static aiw_status zero_load_check(const cap_ctx *x, double rate)
{
	cap_ctx z = *x;
	z.conf.min_requests = fmin(ZERO_LOAD_REQUESTS, x->conf.min_requests);
	z.conf.duration = 0;
	verdict v;
	aiw_status st = run_rate(&z, rate, &v);
	if (st != AIW_OK || v.pass)
		return st;
	char lim[160] = "", got[160] = "";
	if (v.ttft_over > TAIL) {
		snprintf(lim, sizeof lim, "ttft_p99 = %.4g ms", x->conf.ttft * 1e3);
		snprintf(got, sizeof got, "P99 TTFT %.4g ms (%.2f %% of the requests over the limit)",
		         v.ttft_p99 * 1e3, 100 * v.ttft_over);
	}
	if (v.tpot_over > TAIL) {
		size_t l = strlen(lim), g = strlen(got);
		snprintf(lim + l, sizeof lim - l, "%stpot_p99 = %.4g ms", l ? ", " : "",
		         x->conf.tpot * 1e3);
		snprintf(got + g, sizeof got - g, "%sP99 TPOT %.4g ms (%.2f %% over)", g ? ", " : "",
		         v.tpot_p99 * 1e3, 100 * v.tpot_over);
	}
	return aiwi_err(x->tmpl, AIW_ERANGE,
	                "aiw_inference_capacity: %s misses the limits (%s) without load: %s over "
	                "%.0f requests at %.4g/s (one in %.0f of its offline rate, next to none "
	                "waiting); no arrival rate meets them: raise the limits or serve faster "
	                "(GPUs, replica size, model)",
	                x->px, lim, got, v.n, rate, ZERO_LOAD_DIVISOR);
}

static aiw_status measure(const cap_ctx *x, double *res, cap_runs *rr)
{
	size_t runs = 0, max_runs = (size_t)x->conf.max_runs;
#define PROGRESS(rate, verdict)                            \
	do {                                               \
		runs++;                                    \
		res[AIW_CAPACITY_RUNS] = (double)runs;     \
		report(rr, (rate), (verdict));             \
	} while (0)

	aiw_status st = run_offline(x, res);
	double start = res[AIW_CAPACITY_OFFLINE_REQUESTS_PER_S];
	if (st == AIW_OK)
		PROGRESS(start, -1);
	if (x->sessions) /* the run without conversations only gave the first rate */
		for (int i = AIW_CAPACITY_OFFLINE_REQUESTS_PER_S; i <= AIW_CAPACITY_OFFLINE_REQUESTS; i++)
			res[i] = NAN;
	if (st == AIW_OK && !rr->stopped && start > 0)
		st = zero_load_check(x, start / ZERO_LOAD_DIVISOR);
	/* the bracket [lo, hi]: lo passed (0: none yet), hi failed */
	double lo = 0, hi = start;
	verdict v, vlo = {0};
	bool have_hi = false, none_passes = false;
	if (st == AIW_OK && !rr->stopped) {
		double r = hi;
		for (int k = 0; st == AIW_OK && !rr->stopped && runs < max_runs; k++) {
			if ((st = run_rate(x, r, &v)) != AIW_OK)
				break;
			PROGRESS(r, v.pass);
			if (v.pass) {
				lo = r;
				vlo = v;
				if (have_hi || k >= MAX_DOUBLINGS)
					break;
				r *= 2;
			} else {
				hi = r;
				have_hi = true;
				if (lo > 0)
					break;
				if (k >= MAX_HALVINGS) {
					none_passes = true;
					break;
				}
				r /= 2;
			}
		}
	}
	if (st == AIW_OK && !rr->stopped && lo > 0 && have_hi) {
		while (hi / lo - 1 > x->conf.resolution && runs < max_runs && !rr->stopped) {
			double mid = sqrt(lo * hi);
			if ((st = run_rate(x, mid, &v)) != AIW_OK)
				break;
			PROGRESS(mid, v.pass);
			if (v.pass) {
				lo = mid;
				vlo = v;
			} else {
				hi = mid;
			}
		}
	}
#undef PROGRESS
	if (st == AIW_OK) {
		if (lo > 0)
			fill_verdict(res, lo, &vlo);
		else if (none_passes) /* else NaN: max_runs came first */
			res[AIW_CAPACITY_SERVER_RATE] = 0;
		/* infinity: rates were run and every one passed */
		res[AIW_CAPACITY_SERVER_RATE_FAILED] =
		        have_hi ? hi : lo > 0 && !rr->stopped ? INFINITY : NAN;
		res[AIW_CAPACITY_SERVER_RESOLUTION] = lo > 0 && have_hi ? hi / lo - 1 : NAN;
	}
	return st;
}

/* The moments of column `col` over the n rows (GSL rstat: Welford's
 * running mean and variance; the sd is the sample one, n - 1), into the six
 * columns from `first`: mean, standard deviation, the Student interval's
 * ends, min, max.  NaN when a row's value is NaN (a search that ran out of
 * runs); one row: mean, min and max its value, sd and interval NaN. */
static void seed_stats(const double *rows, size_t n, size_t col, double *res, size_t first)
{
	for (size_t j = 0; j < 6; j++)
		res[first + j] = NAN;
	if (n == 0)
		return;
	for (size_t k = 0; k < n; k++)
		if (isnan(rows[k * AIW_CAPACITY_NCOLUMNS + col]))
			return;
	gsl_rstat_workspace *w = gsl_rstat_alloc();
	if (!w)
		return;
	for (size_t k = 0; k < n; k++)
		gsl_rstat_add(rows[k * AIW_CAPACITY_NCOLUMNS + col], w);
	double mean = gsl_rstat_mean(w);
	res[first + 0] = mean;
	res[first + 4] = gsl_rstat_min(w);
	res[first + 5] = gsl_rstat_max(w);
	if (n >= 2) {
		double sd = gsl_rstat_sd(w);
		double half = gsl_cdf_tdist_Pinv(0.5 + CI_LEVEL / 2, (double)(n - 1)) * sd /
		              sqrt((double)n);
		res[first + 1] = sd;
		res[first + 2] = mean - half;
		res[first + 3] = mean + half;
	}
	gsl_rstat_free(w);
}

/* The median seed's row: the seeds ordered by server rate (NaN first: no
 * rate passed within the runs), the lower middle one, the earlier seed
 * first among equal rates. */
static size_t median_seed(const double *rows, size_t n)
{
	size_t best = 0;
	for (size_t k = 0; k < n; k++) {
		/* rank of seed k: seeds before it in the order */
		double rk = rows[k * AIW_CAPACITY_NCOLUMNS + AIW_CAPACITY_SERVER_RATE];
		size_t below = 0;
		for (size_t j = 0; j < n; j++) {
			double rj = rows[j * AIW_CAPACITY_NCOLUMNS + AIW_CAPACITY_SERVER_RATE];
			bool less = isnan(rj) ? !isnan(rk) || j < k
			                      : !isnan(rk) && (rj < rk || (rj == rk && j < k));
			below += j != k && less;
		}
		if (below == (n - 1) / 2)
			best = k;
	}
	return best;
}

AIW_EXPORT aiw_status aiw_inference_capacity(aiw_sim *sim, const char *component,
                                             const char **settings, size_t nsettings,
                                             double *out, size_t ncolumns,
                                             aiw_capacity_progress_fn progress, void *payload)
{
	if (!sim)
		return AIW_EINVAL;
	if (!out || ncolumns == 0)
		return aiwi_err(sim, AIW_EINVAL,
		                "aiw_inference_capacity: out is NULL or ncolumns = %zu (want %d)",
		                ncolumns, AIW_CAPACITY_NCOLUMNS);
	double res[AIW_CAPACITY_NCOLUMNS];
	for (size_t i = 0; i < AIW_CAPACITY_NCOLUMNS; i++)
		res[i] = NAN;
	for (size_t i = 0; i < ncolumns; i++)
		out[i] = NAN;
	cap_ctx x = {.tmpl = sim};
	aiw_status st = parse_settings(sim, settings, nsettings, &x.conf);
	if (st == AIW_OK)
		st = find_target(sim, component, &x.target);
	if (st != AIW_OK)
		return st;
	snprintf(x.px, sizeof x.px, "%s", x.target->prefix);
	if ((st = pool_setup(sim, &x)) != AIW_OK)
		return st;
	{
		char tr[32], as[32], reps[32];
		char name[300];
		snprintf(name, sizeof name, "%s.autoscaler", x.px);
		if (aiw_sim_get(sim, name, as, sizeof as) == AIW_OK && strcmp(as, "none") != 0) {
			snprintf(name, sizeof name, "%s.replicas", x.px);
			if (aiw_sim_get(sim, name, reps, sizeof reps) != AIW_OK)
				snprintf(reps, sizeof reps, "?");
			aiwi_warn(sim,
			          "aiw_inference_capacity: %s: autoscaler %s turned off; the fleet is "
			          "measured with replicas = %s",
			          x.px, as, reps);
		}
		snprintf(name, sizeof name, "%s.traffic", x.px);
		if (aiw_sim_get(sim, name, tr, sizeof tr) == AIW_OK && strcmp(tr, "trace") == 0)
			aiwi_warn(sim,
			          "aiw_inference_capacity: %s replays a trace; its capacity is measured "
			          "with request sizes drawn from prompt_tokens and output_tokens, not "
			          "the trace's",
			          x.px);
	}
	{
		char buf[32];
		if ((st = aiw_sim_get(sim, "sim.seed", buf, sizeof buf)) != AIW_OK)
			return st;
		x.base_seed = strtoull(buf, NULL, 10);
	}
	size_t nseeds = (size_t)x.conf.seeds;
	/* every seed's row (the median's is reported) */
	double *rows = malloc(nseeds * sizeof(double[AIW_CAPACITY_NCOLUMNS]));
	if (!rows)
		return aiwi_err(sim, AIW_ENOMEM, "aiw_inference_capacity: out of memory");
	cap_runs rr = {.max = nseeds * (size_t)x.conf.max_runs, .progress = progress,
	               .payload = payload, .tmpl = sim};
	bool held = aiwi_sim_hold(sim);
	size_t complete = 0; /* seeds measured to the end */
	for (size_t k = 0; k < nseeds && st == AIW_OK && !rr.stopped; k++) {
		double *row = rows + k * AIW_CAPACITY_NCOLUMNS;
		for (size_t i = 0; i < AIW_CAPACITY_NCOLUMNS; i++)
			row[i] = NAN;
		/* seed k: sim.seed + k (mod 2^64) */
		x.seed = x.base_seed + (uint64_t)k;
		st = measure(&x, row, &rr);
		if (st == AIW_OK && !rr.stopped)
			complete++;
		else if (complete == 0) /* the columns known so far */
			memcpy(res, row, sizeof res);
	}
	if (complete > 0) {
		memcpy(res, rows + median_seed(rows, complete) * AIW_CAPACITY_NCOLUMNS, sizeof res);
		seed_stats(rows, complete, AIW_CAPACITY_SERVER_RATE, res, AIW_CAPACITY_SERVER_RATE_MEAN);
		seed_stats(rows, complete, AIW_CAPACITY_OFFLINE_REQUESTS_PER_S, res,
		           AIW_CAPACITY_OFFLINE_REQUESTS_PER_S_MEAN);
	}
	res[AIW_CAPACITY_SEEDS] = (double)complete;
	if (rr.done > 0)
		res[AIW_CAPACITY_RUNS] = (double)rr.done;
	free(rows);
	for (size_t i = 0; i < ncolumns && i < AIW_CAPACITY_NCOLUMNS; i++)
		out[i] = res[i];
	if (aiwi_sim_release(sim, held))
		return AIW_ESTOPPED; /* freed by the callback: nothing of sim is left */
	if (st != AIW_OK)
		return st;
	if (rr.stopped)
		return aiwi_err(sim, AIW_ESTOPPED,
		                "aiw_inference_capacity: stopped by the progress callback after %zu "
		                "runs",
		                rr.done);
	return AIW_OK;
}
