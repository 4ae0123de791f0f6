/*
 * plan.c - aiw_plan_*: the serving plan, the cheapest configuration of one
 * inference fleet of a scenario that meets its service levels under caps.
 *
 * The grid: gpu x gpus_per_replica x weight_bits x max_batch x pp x
 * spot_fraction x max_num_batched_tokens x target x replicas (each axis the
 * scenario's own value unless given), the fleet's other parameters, its
 * traffic and the rest of the scenario as written, the fleet's autoscaler
 * off (the plan sizes `replicas`) unless the target axis is given: then
 * the autoscaler stays, target is set on the parameter it reads
 * (target_utilization or target_value), replicas on max_replicas, and
 * every count of a combination is simulated (no bisection, no load bound:
 * an autoscaled fleet need not be monotone in its cap).  A candidate is
 * feasible when the means over its replications of the fleet's P99 TTFT and
 * P99 TPOT (the fleet's ttft_p99_s and tpot_p99_s metrics) are within the
 * limits (with `attainment` a set: when the one-sided Clopper-Pearson lower
 * bound at `confidence` of the share of its replications whose own P99s
 * met both limits is at least a; aiwi_plan_attainment_lcb), its GPUs
 * within max_gpus and the site's peak power (site.power_peak_w) within
 * power_budget.
 *
 * The search, per combination of the axes but replicas (in grid order, the
 * last axis varying fastest):
 *   1. memory: one zero-length run of the combination at the smallest
 *      replica count; the fleet's start check refuses weights plus the
 *      minimum KV cache that do not fit the GPUs (the library's own
 *      refusal at the start of a run, AIW_ERANGE, which does not depend on
 *      `replicas`; a layout the fleet cannot hold, a pp that does not
 *      divide gpus_per_replica, is refused there too, AIW_EINVAL); the
 *      whole replica axis goes (exact).  Any other failure (an unknown
 *      GPU name) stops the plan with its message.
 *   2. caps: replica counts whose GPUs (replicas x gpus_per_replica)
 *      exceed max_gpus go (exact).
 *   3. bisection on the replica counts left, ascending (after step 4's
 *      bound, when it applies): the largest is
 *      simulated first; if it misses the latency limits the combination
 *      has no feasible count; else the smallest count that meets them is
 *      found by bisection.  Assumed: the P99 latencies do not increase with
 *      replicas (more replicas share the same arrivals) and every objective
 *      (GPUs, cost per million tokens, energy, peak power) and the peak
 *      power do not decrease with replicas (each replica draws at least its
 *      idle power and is paid for), so the smallest count meeting the
 *      latencies is the combination's optimum and the only one whose power
 *      needs checking.  The assumption is verified against brute force on
 *      small grids (tests/model/test_plan.c); with noise it can fail near a
 *      limit, where two counts straddle it within the replications' spread.
 *   4. load bound, when the largest count passes and a TTFT limit is set:
 *      lambda, the requests that arrived over sim.duration T in that run,
 *      and mu1, one replica's offline throughput (aiw_inference_capacity,
 *      replicas = 1).  A fleet of r replicas with lambda > r mu1 (1 + s)
 *      (1 + L / (0.99 T)), s = LOAD_SLACK, L the TTFT limit, is
 *      overloaded by a factor rho > 1 + L / (0.99 T): in the fluid limit a
 *      request arriving at t waits (rho - 1) t, so more than 1% of the
 *      requests wait over L, and the P99 TTFT misses the limit.  Such
 *      counts are removed unsimulated (assumed: the fluid bound, with s
 *      covering the offline figure's drain and Poisson noise); the search
 *      then steps up from the bound by factors of LOAD_STEP to the first
 *      count that passes and bisects below it (the bound only moves the
 *      bisection's first probes).  A bound above the largest count (which
 *      passed) is ignored.
 * The ranked table has one row per combination with a feasible count, by
 * objective (ties: fewer GPUs, then grid order).  Pareto flags: no other
 * row is at most as large in both the objective and the P99 TTFT (peak
 * power), and smaller in one.
 *
 * Replications: R runs per candidate with sim.seed = s + k, k = 0 .. R - 1
 * (mod 2^64), s the scenario's sim.seed or the plan's seed; each metric's
 * mean and 95% Student half-width t(0.975, R - 1) sd / sqrt(R) (NaN when
 * R = 1; gsl_cdf_tdist_Pinv).  The run with replications = 1 is the
 * scenario with the row's snippet applied, bit for bit.
 *
 * The re-check (recheck = N > 0): after ranking, the rows are taken in
 * order and each is run again at recheck_replications seeds it has not
 * seen, s + R .. s + R + Q - 1 (R the search's replications, Q the
 * re-check's); its P99 TTFT and TPOT means and half-widths over those Q
 * runs, the share of the Q runs whose own P99s both met the limits, and
 * whether the Q-run means meet them (the search's criterion at other
 * seeds) fill the AIW_PLAN_RECHECK_* columns.  The walk stops when N rows
 * have passed or 4N rows have been examined (a table whose top rows keep
 * failing says so rather than running on); the order of the table is not
 * changed, a failed row stays where the search put it, flagged.  Rows not
 * examined have NaN there.  The re-check runs on the calling thread.
 *
 * Progress: a callback (aiw_plan_set_progress) is called after each
 * combination ends, with the number ended and the total, under the
 * workers' lock (one call at a time, from whichever thread ran it), and
 * once after each re-checked row (done = total).  A non-zero return stops
 * the plan: no new combination or re-check starts, and aiw_plan_run
 * returns AIW_ESTOPPED with an empty table.
 *
 * Threads: `jobs` workers (default 1: the calling thread) take the
 * combinations in grid order; the bisection inside one is sequential (its
 * next candidate depends on the last verdict).  Each combination's result
 * (counts, misses, row, message) is stored by its index and merged in grid
 * order after all have ended, so the output is the same bytes whatever
 * the number of threads; after a failure no new combination starts and the
 * plan returns the failure of lowest index (all below it ran).
 * Everything goes through the public API.
 */
#include "studies/plan.h"

#include <gsl/gsl_cdf.h>

#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* the confidence of the half-width: 95%, two-sided */
#define CI_LEVEL 0.95
/* The load bound (see the top): the slack on a replica's offline rate
 * (the offline figure of LOAD_OFFLINE_REQUESTS requests includes the
 * drain of the last batch, and a continuously batched fleet's server rate
 * can exceed its offline rate by a few percent, capacity.c; 25% covers
 * both with room), and the factor of the steps up from the bound. */
#define LOAD_SLACK 0.25
#define LOAD_STEP 1.25

typedef struct plan_eval {
	bool done;
	aiw_status st;
	double arrived, duration; /* requests arrived (first replication), sim.duration */
	double m[AIW_PLAN_NCOLUMNS]; /* the row's columns */
	bool slo_ok;
} plan_eval;

aiw_status aiwi_plan_err(aiw_plan *p, aiw_status st, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->err, sizeof p->err, fmt, ap);
	va_end(ap);
	return st;
}

char *aiwi_plan_dupstr(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);
	if (d)
		memcpy(d, s, n);
	return d;
}

/* The fleet parameter axis a sets: the axis's name, but the autoscaler's
 * target parameter for `target` (target_value before the run, for the
 * range check) and max_replicas for `replicas` when the fleet autoscales. */
static const char *axis_param(const aiw_plan *p, size_t a)
{
	if (a == AX_TARGET)
		return p->target_key[0] ? p->target_key : "target_value";
	if (a == AX_REPLICAS && p->ax[AX_TARGET])
		return "max_replicas";
	return aiwi_plan_axis[a];
}

/* Whether candidate c is disaggregated: its disaggregation axis value, else
 * the scenario's role of the fleet (a prefill pool: dpx set, no axis). */
static bool cand_disagg(const aiw_plan *p, const cand *c)
{
	if (!p->dpx[0])
		return false;
	return c->v[AX_DISAGG] ? strcmp(c->v[AX_DISAGG], "on") == 0 : true;
}

/* The scenario settings of axis a of candidate c (at most 2): the fleet's
 * parameter (axis_param) and the value; disaggregation = on sets the
 * fleet's disaggregation = prefill, off sets it off and the decode pool's
 * replicas to 0 (no GPU); decode_replicas sets the decode pool's replicas. */
static size_t axis_sets(const aiw_plan *p, const cand *c, size_t a, char names[2][400],
                        const char *vals[2])
{
	if (!c->v[a])
		return 0;
	if (a == AX_DISAGG) {
		bool on = strcmp(c->v[a], "on") == 0;
		snprintf(names[0], 400, "%s.disaggregation", p->px);
		vals[0] = on ? "prefill" : "off";
		if (on)
			return 1;
		snprintf(names[1], 400, "%s.replicas", p->dpx);
		vals[1] = "0";
		return 2;
	}
	if (a == AX_DREPL) {
		snprintf(names[0], 400, "%s.replicas", p->dpx);
		vals[0] = c->v[a];
		return 1;
	}
	snprintf(names[0], 400, "%s.%s", p->px, axis_param(p, a));
	vals[0] = c->v[a];
	return 1;
}

void aiwi_plan_free_list(char **l, size_t n)
{
	for (size_t i = 0; l && i < n; i++)
		free(l[i]);
	free(l);
}

static void free_rows(aiw_plan *p)
{
	for (size_t i = 0; i < p->nrows; i++) {
		free(p->rows[i].gpu);
		free(p->rows[i].snippet);
	}
	free(p->rows);
	p->rows = NULL;
	p->nrows = 0;
}

aiw_status aiw_plan_create(aiw_plan **out, const char *scenario_path, const char *scenario_text,
                           const char *component)
{
	if (!out)
		return AIW_EINVAL;
	*out = NULL;
	if (scenario_path && scenario_text)
		return AIW_EINVAL;
	if (!scenario_path && !scenario_text)
		return AIW_EINVAL;
	if (!component)
		return AIW_EINVAL;
	bool training = false;
	if (strncmp(component, "inference.", 10) == 0) {
		component += 10;
	} else if (strncmp(component, "training.", 9) == 0) {
		component += 9;
		training = true;
	}
	size_t cl = strlen(component);
	if (cl == 0 || cl > 200)
		return AIW_ERANGE;
	for (size_t i = 0; i < cl; i++) {
		char c = component[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-'))
			return AIW_EPARSE;
	}
	aiw_plan *p = calloc(1, sizeof *p);
	if (!p)
		return AIW_ENOMEM;
	p->comp = aiwi_plan_dupstr(component);
	p->path = scenario_path ? aiwi_plan_dupstr(scenario_path) : NULL;
	p->text = scenario_text ? aiwi_plan_dupstr(scenario_text) : NULL;
	if (!p->comp || (scenario_path && !p->path) || (scenario_text && !p->text)) {
		aiw_plan_free(p);
		return AIW_ENOMEM;
	}
	p->training = training;
	snprintf(p->px, sizeof p->px, "%s.%s", training ? "training" : "inference", component);
	p->ttft = INFINITY;
	p->tpot = INFINITY;
	p->max_gpus = INFINITY;
	p->power_budget = INFINITY;
	p->objective = 0;
	p->reps = 1;
	p->jobs = 1;
	p->recheck = 0;
	p->recheck_reps = 10;
	p->attainment = NAN;
	p->confidence = CI_LEVEL;
	p->train_tokens = NAN;
	*out = p;
	return AIW_OK;
}

void aiw_plan_free(aiw_plan *p)
{
	if (!p)
		return;
	free(p->path);
	free(p->text);
	free(p->comp);
	aiwi_plan_free_list(p->sets, p->nsets);
	for (size_t a = 0; a < NAXES; a++)
		aiwi_plan_free_list(p->ax[a], p->nax[a]);
	free_rows(p);
	free(p);
}

const char *aiw_plan_errmsg(const aiw_plan *p)
{
	return p ? p->err : "aiw_plan_errmsg: plan is NULL";
}

/* ------------------------------------------------------------------------ */
/* one candidate                                                             */
/* ------------------------------------------------------------------------ */
/* A new simulation of the scenario with the plan's settings of every
 * candidate applied; NULL out of memory (*st AIW_ENOMEM, the message set),
 * else *st the status of the load and the settings (the simulation's
 * message says what failed). */
aiw_sim *aiwi_plan_scenario(aiw_plan *p, aiw_status *st)
{
	aiw_sim *sim;
	if (aiw_sim_create(&sim, 1) != AIW_OK) {
		*st = aiwi_plan_err(p, AIW_ENOMEM, "aiw_plan_run: out of memory");
		return NULL;
	}
	*st = p->path ? aiw_sim_load_file(sim, p->path) : aiw_sim_load_string(sim, p->text, "scenario");
	for (size_t i = 0; i < p->nsets && *st == AIW_OK; i++) {
		char name[MAX_TEXT + 8];
		const char *eq = strchr(p->sets[i], '=');
		snprintf(name, sizeof name, "%.*s", (int)(eq - p->sets[i]), p->sets[i]);
		*st = aiw_sim_set(sim, name, eq + 1);
	}
	return sim;
}

static aiw_status load_sim(aiw_plan *p, const cand *c, uint64_t k, aiw_sim **out)
{
	aiw_sim *sim;
	aiw_status st;
	if (!(sim = aiwi_plan_scenario(p, &st)))
		return st;
	char name[400];
	if (st == AIW_OK && !p->ax[AX_TARGET]) {
		snprintf(name, sizeof name, "%s.autoscaler", p->px);
		st = aiw_sim_set(sim, name, "none");
	}
	for (size_t a = 0; a < NAXES && st == AIW_OK; a++) {
		char names[2][400];
		const char *vals[2];
		size_t ns = axis_sets(p, c, a, names, vals);
		for (size_t i = 0; i < ns && st == AIW_OK; i++)
			st = aiw_sim_set(sim, names[i], vals[i]);
	}
	uint64_t seed = 0;
	if (st == AIW_OK && !p->seed_set) {
		double d;
		char buf[64];
		st = aiw_sim_get(sim, "sim.seed", buf, sizeof buf);
		(void)d;
		seed = strtoull(buf, NULL, 10);
	} else {
		seed = p->seed;
	}
	if (st == AIW_OK && (p->seed_set || k > 0)) {
		char buf[32];
		snprintf(buf, sizeof buf, "%llu", (unsigned long long)(seed + k));
		st = aiw_sim_set(sim, "sim.seed", buf);
	}
	if (st != AIW_OK) {
		aiwi_plan_err(p, st, "aiw_plan_run: %s", aiw_sim_errmsg(sim));
		aiw_sim_free(sim);
		return st;
	}
	*out = sim;
	return AIW_OK;
}

double aiwi_plan_metric(aiw_sim *sim, const char *px, const char *key)
{
	char name[400];
	double v = NAN;
	if (px)
		snprintf(name, sizeof name, "%s.%s", px, key);
	else
		snprintf(name, sizeof name, "%s", key);
	if (aiw_sim_metric(sim, name, &v) != AIW_OK)
		return NAN;
	return v;
}

/* The fleet's start check at time 0: AIW_OK, or the refusal in msg. */
static aiw_status start_check(aiw_plan *p, const cand *c, char *msg, size_t len, bool *refused,
                              double *tp, double *dg)
{
	aiw_sim *sim;
	aiw_status st = load_sim(p, c, 0, &sim);
	if (st != AIW_OK)
		return st;
	/* the fleet's gpus_per_replica as the candidate sets it */
	char name[400];
	snprintf(name, sizeof name, "%s.gpus_per_replica", p->px);
	if (aiw_sim_get_double(sim, name, tp) != AIW_OK)
		*tp = NAN;
	/* the decode pool's GPUs, replicas x gpus_per_replica (0 aggregated) */
	*dg = 0;
	if (cand_disagg(p, c)) {
		double dr = NAN, dt = NAN;
		snprintf(name, sizeof name, "%s.replicas", p->dpx);
		aiw_sim_get_double(sim, name, &dr);
		snprintf(name, sizeof name, "%s.gpus_per_replica", p->dpx);
		aiw_sim_get_double(sim, name, &dt);
		*dg = dr * dt;
	}
	st = aiw_sim_run_until(sim, 0);
	*refused = false;
	if (st == AIW_ERANGE || st == AIW_EINVAL || st == AIW_ESCENARIO) {
		*refused = true;
		snprintf(msg, len, "%s", aiw_sim_errmsg(sim));
		st = AIW_OK;
	} else if (st != AIW_OK) {
		aiwi_plan_err(p, st, "aiw_plan_run: %s", aiw_sim_errmsg(sim));
	}
	aiw_sim_free(sim);
	return st;
}

static void mean_ci(const double *x, size_t n, double *mean, double *ci)
{
	double s = 0;
	for (size_t i = 0; i < n; i++)
		s += x[i];
	double m = s / (double)n, q = 0;
	for (size_t i = 0; i < n; i++)
		q += (x[i] - m) * (x[i] - m);
	*mean = m;
	*ci = n < 2 ? NAN
	            : gsl_cdf_tdist_Pinv(0.5 + CI_LEVEL / 2, (double)(n - 1)) *
	                  sqrt(q / (double)(n - 1)) / sqrt((double)n);
}

/* The runs of candidate c at seeds k0 .. k0 + reps - 1 into e (e->m: the
 * row's columns, means and half-widths over those runs); met, when not
 * NULL, counts the runs whose own P99s both met the limits. */
static aiw_status evaluate_at(aiw_plan *p, const cand *c, double tp, double dg, size_t k0,
                              size_t reps, plan_eval *e, size_t *met)
{
	bool dis = cand_disagg(p, c);
	double *x = malloc(5 * reps * sizeof *x);
	if (!x)
		return aiwi_plan_err(p, AIW_ENOMEM, "aiw_plan_run: out of memory");
	aiw_status st = AIW_OK;
	size_t met_runs = 0;
	for (size_t k = 0; k < reps && st == AIW_OK; k++) {
		aiw_sim *sim;
		if ((st = load_sim(p, c, k0 + k, &sim)) != AIW_OK)
			break;
		st = aiw_sim_run(sim);
		if (st != AIW_OK) {
			aiwi_plan_err(p, st, "aiw_plan_run: %s", aiw_sim_errmsg(sim));
		} else {
			x[0 * reps + k] = aiwi_plan_metric(sim, p->px, "ttft_p99_s");
			/* disaggregated: the TPOT is the decode pool's */
			x[1 * reps + k] = aiwi_plan_metric(sim, dis ? p->dpx : p->px, "tpot_p99_s");
			x[2 * reps + k] = aiwi_plan_metric(sim, NULL, "site.power_peak_w");
			x[3 * reps + k] = aiwi_plan_metric(sim, NULL, "site.energy_kwh");
			if (p->dpx[0]) {
				/* both pools' cost over the pair's tokens: the prompts and
				 * first tokens of the prefill pool, the rest of the
				 * decode pool (the same figure as cost_per_mtok_blended_usd
				 * for a fleet alone: its decode pool has no replica) */
				double tok = aiwi_plan_metric(sim, p->px, "tokens_in") +
				             aiwi_plan_metric(sim, p->px, "tokens_out") +
				             aiwi_plan_metric(sim, p->dpx, "tokens_out");
				double cost = aiwi_plan_metric(sim, p->px, "cost_usd") +
				              aiwi_plan_metric(sim, p->dpx, "cost_usd");
				x[4 * reps + k] = tok > 0 ? cost / tok * 1e6 : NAN;
			} else {
				x[4 * reps + k] = aiwi_plan_metric(sim, p->px, "cost_per_mtok_blended_usd");
			}
			if ((!isfinite(p->ttft) || x[k] <= p->ttft) &&
			    (!isfinite(p->tpot) || x[reps + k] <= p->tpot))
				met_runs++;
			if (k == 0) {
				e->arrived = aiwi_plan_metric(sim, p->px, "requests_arrived");
				if (aiw_sim_get_double(sim, "sim.duration", &e->duration) != AIW_OK)
					e->duration = NAN;
			}
		}
		aiw_sim_free(sim);
		p->stats[AIW_PLAN_STAT_RUNS]++;
	}
	if (st == AIW_OK) {
		double *m = e->m, ci;
		for (size_t i = 0; i < AIW_PLAN_NCOLUMNS; i++)
			m[i] = NAN;
		double r = atof(c->v[AX_REPLICAS]);
		m[AIW_PLAN_REPLICAS] = r;
		m[AIW_PLAN_GPUS_PER_REPLICA] = tp;
		m[AIW_PLAN_GPUS] = r * tp + dg;
		m[AIW_PLAN_DECODE_GPUS] = p->dpx[0] ? dg : NAN;
		mean_ci(x, reps, &m[AIW_PLAN_TTFT_P99_S], &m[AIW_PLAN_TTFT_P99_CI95]);
		mean_ci(x + reps, reps, &m[AIW_PLAN_TPOT_P99_S], &m[AIW_PLAN_TPOT_P99_CI95]);
		mean_ci(x + 2 * reps, reps, &m[AIW_PLAN_POWER_PEAK_W], &ci);
		mean_ci(x + 3 * reps, reps, &m[AIW_PLAN_ENERGY_KWH], &ci);
		mean_ci(x + 4 * reps, reps, &m[AIW_PLAN_COST_PER_MTOK_USD], &ci);
		static const int OBJCOL[NOBJ] = {AIW_PLAN_COST_PER_MTOK_USD, AIW_PLAN_GPUS,
		                                 AIW_PLAN_ENERGY_KWH, AIW_PLAN_POWER_PEAK_W};
		m[AIW_PLAN_OBJECTIVE] = m[OBJCOL[p->objective]];
		/* a latency never measured (no request ended) does not meet a limit */
		e->slo_ok = (!isfinite(p->ttft) || m[AIW_PLAN_TTFT_P99_S] <= p->ttft) &&
		            (!isfinite(p->tpot) || m[AIW_PLAN_TPOT_P99_S] <= p->tpot);
		m[AIW_PLAN_MET_SHARE] = (double)met_runs / (double)reps;
		if (isfinite(p->attainment)) {
			/* attainment at a confidence: the bound, not the means */
			m[AIW_PLAN_ATTAINMENT_LCB] = aiwi_plan_attainment_lcb(met_runs, reps, p->confidence);
			e->slo_ok = m[AIW_PLAN_ATTAINMENT_LCB] >= p->attainment;
		}
		e->done = true;
		p->stats[AIW_PLAN_STAT_SIMULATED]++;
	}
	if (met)
		*met = met_runs;
	free(x);
	return st;
}

static aiw_status evaluate(aiw_plan *p, const cand *c, double tp, double dg, plan_eval *e)
{
	return evaluate_at(p, c, tp, dg, 0, p->reps, e, NULL);
}

/* ------------------------------------------------------------------------ */
/* the load bound                                                            */
/* ------------------------------------------------------------------------ */
/* A replica's offline throughput mu1 (requests/s): aiw_inference_capacity's
 * offline figure of the combination at replicas = 1, LOAD_OFFLINE_REQUESTS
 * requests at t = 0; its server search is cut to the fewest runs
 * (max_runs = 3, 100 requests over 1 s) since only the offline figure is
 * read.  NaN when the measurement fails (the bound is then not used). */
#define LOAD_OFFLINE_REQUESTS "1000"
static double replica_offline_rate(aiw_plan *p, const cand *c)
{
	cand one = *c;
	one.v[AX_REPLICAS] = "1";
	aiw_sim *sim;
	if (load_sim(p, &one, 0, &sim) != AIW_OK)
		return NAN;
	char lim[64];
	snprintf(lim, sizeof lim, "ttft_p99=%.17g", isfinite(p->ttft) ? p->ttft : 1e9);
	const char *set[] = {"offline_requests=" LOAD_OFFLINE_REQUESTS, "max_runs=3",
	                     "min_requests=100", "duration=1s", lim, "tpot_p99=none"};
	double out[AIW_CAPACITY_NCOLUMNS];
	aiw_status st = aiw_inference_capacity(sim, p->comp, set, sizeof set / sizeof *set, out,
	                                       AIW_CAPACITY_NCOLUMNS, NULL, NULL);
	double mu = st == AIW_OK ? out[AIW_CAPACITY_OFFLINE_REQUESTS_PER_S] : NAN;
	if (st == AIW_OK)
		p->stats[AIW_PLAN_STAT_RUNS] += (size_t)out[AIW_CAPACITY_RUNS];
	aiw_sim_free(sim);
	return mu > 0 && isfinite(mu) ? mu : NAN;
}

/* ------------------------------------------------------------------------ */
/* the search                                                                */
/* ------------------------------------------------------------------------ */
static int cmp_double_text(const void *a, const void *b)
{
	double x = atof(*(char *const *)a), y = atof(*(char *const *)b);
	return x < y ? -1 : x > y;
}

static int cmp_rows(const void *a, const void *b)
{
	const plan_row *x = a, *y = b;
	double ox = x->v[AIW_PLAN_OBJECTIVE], oy = y->v[AIW_PLAN_OBJECTIVE];
	bool nx = !(ox == ox), ny = !(oy == oy);
	if (nx != ny)
		return nx ? 1 : -1;
	if (!nx && ox != oy)
		return ox < oy ? -1 : 1;
	if (x->v[AIW_PLAN_GPUS] != y->v[AIW_PLAN_GPUS])
		return x->v[AIW_PLAN_GPUS] < y->v[AIW_PLAN_GPUS] ? -1 : 1;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* the snippet: one --set line per axis and the autoscaler */
static char *snippet(const aiw_plan *p, const cand *c)
{
	size_t len = 128 + strlen(p->px);
	for (size_t a = 0; a < NAXES; a++)
		len += (c->v[a] ? strlen(c->v[a]) : 0) + 2 * (strlen(p->px) + strlen(p->dpx)) + 80;
	for (size_t i = 0; i < p->nsets; i++)
		len += strlen(p->sets[i]) + 16;
	char *s = malloc(len);
	if (!s)
		return NULL;
	size_t o = 0;
	for (size_t i = 0; i < p->nsets; i++)
		o += (size_t)snprintf(s + o, len - o, "--set %s\n", p->sets[i]);
	if (!p->ax[AX_TARGET])
		o += (size_t)snprintf(s + o, len - o, "--set %s.autoscaler=none\n", p->px);
	for (size_t a = 0; a < NAXES; a++) {
		char names[2][400];
		const char *vals[2];
		size_t ns = axis_sets(p, c, a, names, vals);
		for (size_t i = 0; i < ns; i++)
			o += (size_t)snprintf(s + o, len - o, "--set %s=%s\n", names[i], vals[i]);
	}
	if (p->seed_set)
		snprintf(s + o, len - o, "--set sim.seed=%llu\n", (unsigned long long)p->seed);
	return s;
}


static void note_miss(miss *m, double value, double limit, const cand *c, double gpus)
{
	double r = value / limit;
	if (m->any && !(r < m->ratio))
		return;
	m->any = true;
	m->ratio = r;
	m->value = value;
	m->limit = limit;
	int o = snprintf(m->where, sizeof m->where, "gpu=%s gpus_per_replica=%s weight_bits=%s max_batch=%s",
	         c->v[AX_GPU] ? c->v[AX_GPU] : "(scenario)", c->v[AX_TP] ? c->v[AX_TP] : "(scenario)",
	         c->v[AX_BITS] ? c->v[AX_BITS] : "(scenario)",
	         c->v[AX_BATCH] ? c->v[AX_BATCH] : "(scenario)");
	for (size_t a = AX_PP; a < AX_REPLICAS; a++) /* the further axes, when given */
		if (c->v[a] && o > 0 && (size_t)o < sizeof m->where)
			o += snprintf(m->where + o, sizeof m->where - (size_t)o, " %s=%s", aiwi_plan_axis[a],
			              c->v[a]);
	if (o > 0 && (size_t)o < sizeof m->where)
		snprintf(m->where + o, sizeof m->where - (size_t)o, " replicas=%s (%g GPUs)",
		         c->v[AX_REPLICAS], gpus);
}


/* the latency miss of a candidate c with columns m, the closer limit */
static void note_slo_miss(const aiw_plan *p, combo_res *res, const double *m, const cand *c)
{
	double rt = isfinite(p->ttft) ? m[AIW_PLAN_TTFT_P99_S] / p->ttft : 0;
	double rp = isfinite(p->tpot) ? m[AIW_PLAN_TPOT_P99_S] / p->tpot : 0;
	if (!(rt == rt) || rt >= rp || !(rp == rp))
		note_miss(&res->slo, m[AIW_PLAN_TTFT_P99_S], p->ttft, c, m[AIW_PLAN_GPUS]);
	else
		note_miss(&res->slo, m[AIW_PLAN_TPOT_P99_S], p->tpot, c, m[AIW_PLAN_GPUS]);
	if (!isfinite(res->slo.limit) || !(res->slo.ratio == res->slo.ratio))
		res->slo.ratio = INFINITY;
}

/* Combination ci of the axes but replicas into c; false for a duplicate
 * (an aggregated candidate at a decode_replicas value past the first: the
 * decode pool has no replica then, so only the first is a candidate). */
bool aiwi_plan_combo_cand(const aiw_plan *p, size_t ci, const size_t *n, cand *c)
{
	bool dup = false;
	size_t rest = ci;
	*c = (cand){{0}};
	for (size_t a = AX_REPLICAS; a-- > 0;) {
		if (p->ax[a])
			c->v[a] = p->ax[a][rest % n[a]];
		if (a == AX_DREPL && rest % n[a] > 0)
			dup = true;
		rest /= n[a];
	}
	if (c->v[AX_DISAGG] && strcmp(c->v[AX_DISAGG], "off") == 0)
		c->v[AX_DREPL] = NULL; /* off: the decode pool has 0 replicas */
	else
		dup = false;
	c->v[AX_REPLICAS] = p->ax[AX_REPLICAS][0];
	return !dup;
}

static aiw_status run_combo(aiw_plan *p, size_t ci, const size_t *n, plan_eval *ev,
                            combo_res *res)
{
	size_t nr = n[AX_REPLICAS];
	aiw_status st = AIW_OK;
	cand c;
	if (!aiwi_plan_combo_cand(p, ci, n, &c))
		return AIW_OK;
	bool dis = cand_disagg(p, &c);
	/* 1. memory: the fleet's start check (both pools' when disaggregated) */
	bool refused;
	char msg[1024];
	double tp, dg;
	if ((st = start_check(p, &c, msg, sizeof msg, &refused, &tp, &dg)) != AIW_OK)
		return st;
	if (refused) {
		p->stats[AIW_PLAN_STAT_PRUNED_MEMORY] += nr;
		res->mem_refused = true;
		snprintf(res->memmsg, sizeof res->memmsg, "%s", msg);
		return AIW_OK;
	}
	/* 2. caps: GPUs */
	size_t hi_i = nr;
	while (hi_i > 0 && atof(p->ax[AX_REPLICAS][hi_i - 1]) * tp + dg > p->max_gpus)
		hi_i--;
	p->stats[AIW_PLAN_STAT_PRUNED_CAP] += nr - hi_i;
	if (hi_i < nr) {
		double g = atof(p->ax[AX_REPLICAS][0]) * tp + dg;
		res->cap_gpus = (size_t)g;
	}
	if (hi_i == 0)
		return AIW_OK;
	/* 3. bisection on replicas */
	memset(ev, 0, nr * sizeof *ev);
	size_t sims_before = p->stats[AIW_PLAN_STAT_SIMULATED];
	size_t load_before = p->stats[AIW_PLAN_STAT_PRUNED_LOAD];
	c.v[AX_REPLICAS] = p->ax[AX_REPLICAS][hi_i - 1];
	if ((st = evaluate(p, &c, tp, dg, &ev[hi_i - 1])) != AIW_OK)
		return st;
	size_t found = SIZE_MAX;
	if (!ev[hi_i - 1].slo_ok && !p->ax[AX_TARGET]) {
		note_slo_miss(p, res, ev[hi_i - 1].m, &c);
	} else if (p->ax[AX_TARGET]) {
		/* an autoscaling fleet: every count simulated (its cost and
		 * latencies need not be monotone in max_replicas); the best count
		 * by objective (ties: the smaller) within the power budget, else
		 * the lowest-power one for the refusal */
		size_t best = SIZE_MAX, lowp = SIZE_MAX;
		for (size_t j = 0; j < hi_i && st == AIW_OK; j++) {
			if (!ev[j].done) {
				c.v[AX_REPLICAS] = p->ax[AX_REPLICAS][j];
				if ((st = evaluate(p, &c, tp, dg, &ev[j])) != AIW_OK)
					break;
			}
			const double *m = ev[j].m;
			if (!ev[j].slo_ok) {
				note_slo_miss(p, res, m, &c);
				continue;
			}
			if (m[AIW_PLAN_POWER_PEAK_W] <= p->power_budget) {
				if (best == SIZE_MAX || m[AIW_PLAN_OBJECTIVE] < ev[best].m[AIW_PLAN_OBJECTIVE])
					best = j;
			} else if (lowp == SIZE_MAX ||
			           m[AIW_PLAN_POWER_PEAK_W] < ev[lowp].m[AIW_PLAN_POWER_PEAK_W]) {
				lowp = j;
			}
		}
		if (st != AIW_OK)
			return st;
		found = best != SIZE_MAX ? best : lowp;
		if (found != SIZE_MAX)
			res->slo = (miss){0}; /* a count met the limits */
	} else {
		size_t lo = SIZE_MAX, hi = hi_i - 1; /* lo: largest known failing (none) */
		/* the load bound: counts whose offline capacity is below the
		 * offered load by more than LOAD_SLACK fail (see the top) */
		const plan_eval *top = &ev[hi_i - 1];
		double lam = top->arrived / top->duration;
		/* (not for a prefill pool: its offline figure is not a
		 * colocated replica's; the bisection alone then) */
		double mu1 = isfinite(p->ttft) && lam > 0 && hi_i > 1 && !dis
		                 ? replica_offline_rate(p, &c)
		                 : NAN;
		double need =
		    mu1 > 0 ? lam / (mu1 * (1 + LOAD_SLACK) * (1 + p->ttft / (0.99 * top->duration)))
		            : NAN;
		if (need > 0 && atof(p->ax[AX_REPLICAS][hi]) >= need) {
			size_t k = 0;
			while (k < hi && atof(p->ax[AX_REPLICAS][k]) < need)
				k++;
			if (k > 0 && k <= hi) {
				lo = k - 1;
				p->stats[AIW_PLAN_STAT_PRUNED_LOAD] += k;
			}
			/* then up from the bound by factors of LOAD_STEP to the
			 * first count that passes, and bisect below it */
			double r = atof(p->ax[AX_REPLICAS][k]);
			for (size_t j = k; j < hi && st == AIW_OK;) {
				c.v[AX_REPLICAS] = p->ax[AX_REPLICAS][j];
				if ((st = evaluate(p, &c, tp, dg, &ev[j])) != AIW_OK)
					break;
				if (ev[j].slo_ok) {
					hi = j;
					break;
				}
				lo = j;
				r = fmax(r * LOAD_STEP, r + 1);
				while (j < hi && atof(p->ax[AX_REPLICAS][j]) < r)
					j++;
			}
			if (st != AIW_OK)
				return st;
		}
		while (hi - (lo == SIZE_MAX ? 0 : lo + 1) > 0) {
			size_t base = lo == SIZE_MAX ? 0 : lo + 1;
			size_t mid = base + (hi - base) / 2;
			c.v[AX_REPLICAS] = p->ax[AX_REPLICAS][mid];
			if ((st = evaluate(p, &c, tp, dg, &ev[mid])) != AIW_OK)
				break;
			if (ev[mid].slo_ok)
				hi = mid;
			else
				lo = mid;
		}
		if (st != AIW_OK)
			return st;
		found = hi;
	}
	p->stats[AIW_PLAN_STAT_PRUNED_BISECTION] +=
	    hi_i - (p->stats[AIW_PLAN_STAT_SIMULATED] - sims_before) -
	    (p->stats[AIW_PLAN_STAT_PRUNED_LOAD] - load_before);
	if (found == SIZE_MAX)
		return AIW_OK;
	c.v[AX_REPLICAS] = p->ax[AX_REPLICAS][found];
	const double *m = ev[found].m;
	if (!(m[AIW_PLAN_POWER_PEAK_W] <= p->power_budget)) {
		note_miss(&res->pow, m[AIW_PLAN_POWER_PEAK_W], p->power_budget, &c,
		          m[AIW_PLAN_GPUS]);
		return AIW_OK;
	}
	plan_row *r = &res->row;
	memcpy(r->v, m, sizeof r->v);
	r->v[AIW_PLAN_WEIGHT_BITS] = NAN;
	r->v[AIW_PLAN_MAX_BATCH] = NAN;
	r->v[AIW_PLAN_PP] = NAN;
	r->v[AIW_PLAN_SPOT_FRACTION] = NAN;
	r->v[AIW_PLAN_MAX_NUM_BATCHED_TOKENS] = NAN;
	r->v[AIW_PLAN_AUTOSCALER_TARGET] = NAN;
	r->v[AIW_PLAN_DISAGGREGATED] = p->dpx[0] ? (double)dis : NAN;
	r->v[AIW_PLAN_DECODE_REPLICAS] = p->dpx[0] && !dis ? 0 : NAN; /* on: read below */
	{
		aiw_sim *sim;
		if ((st = load_sim(p, &c, 0, &sim)) != AIW_OK)
			return st;
		char name[400], gbuf[256];
		snprintf(name, sizeof name, "%s.weight_bits", p->px);
		aiw_sim_get_double(sim, name, &r->v[AIW_PLAN_WEIGHT_BITS]);
		snprintf(name, sizeof name, "%s.max_batch", p->px);
		aiw_sim_get_double(sim, name, &r->v[AIW_PLAN_MAX_BATCH]);
		snprintf(name, sizeof name, "%s.pp", p->px);
		aiw_sim_get_double(sim, name, &r->v[AIW_PLAN_PP]);
		snprintf(name, sizeof name, "%s.spot_fraction", p->px);
		aiw_sim_get_double(sim, name, &r->v[AIW_PLAN_SPOT_FRACTION]);
		snprintf(name, sizeof name, "%s.chunked_prefill", p->px);
		if (aiw_sim_get(sim, name, gbuf, sizeof gbuf) == AIW_OK && strcmp(gbuf, "on") == 0) {
			snprintf(name, sizeof name, "%s.max_num_batched_tokens", p->px);
			if (aiw_sim_get_double(sim, name, &r->v[AIW_PLAN_MAX_NUM_BATCHED_TOKENS]) != AIW_OK)
				r->v[AIW_PLAN_MAX_NUM_BATCHED_TOKENS] = NAN;
		}
		if (p->target_key[0]) {
			snprintf(name, sizeof name, "%s.%s", p->px, p->target_key);
			aiw_sim_get_double(sim, name, &r->v[AIW_PLAN_AUTOSCALER_TARGET]);
		}
		if (dis) {
			snprintf(name, sizeof name, "%s.replicas", p->dpx);
			aiw_sim_get_double(sim, name, &r->v[AIW_PLAN_DECODE_REPLICAS]);
		}
		snprintf(name, sizeof name, "%s.gpu", p->px);
		if (aiw_sim_get(sim, name, gbuf, sizeof gbuf) != AIW_OK)
			gbuf[0] = '\0';
		aiw_sim_free(sim);
		r->gpu = aiwi_plan_dupstr(gbuf);
	}
	r->snippet = snippet(p, &c);
	r->order = ci;
	r->c = c;
	if (!r->gpu || !r->snippet) {
		free(r->gpu);
		free(r->snippet);
		r->gpu = r->snippet = NULL;
		return aiwi_plan_err(p, AIW_ENOMEM, "aiw_plan_run: out of memory");
	}
	r->v[AIW_PLAN_PARETO_TTFT] = 0;
	r->v[AIW_PLAN_PARETO_POWER] = 0;
	for (int k = AIW_PLAN_RECHECK_TTFT_P99_S; k <= AIW_PLAN_RECHECK_OK; k++)
		r->v[k] = NAN;
	res->has_row = true;
	return AIW_OK;
}

typedef struct plan_work {
	const aiw_plan *plan;
	const size_t *n;
	size_t combos;
	combo_res *res;
	pthread_mutex_t lock;
	size_t next, ended;
	bool stop;
	size_t part, nparts, ntasks; /* combinations part, part + nparts, ...: ntasks */
} plan_work;

static void *plan_worker(void *arg)
{
	plan_work *w = arg;
	aiw_plan mine = *w->plan; /* shallow: the grid and settings are read only */
	plan_eval *ev = calloc(w->n[AX_REPLICAS], sizeof *ev);
	for (;;) {
		pthread_mutex_lock(&w->lock);
		size_t t = w->next < w->ntasks && !w->stop ? w->next++ : SIZE_MAX;
		pthread_mutex_unlock(&w->lock);
		if (t == SIZE_MAX)
			break;
		size_t ci = w->part + t * w->nparts;
		combo_res *r = &w->res[ci];
		memset(mine.stats, 0, sizeof mine.stats);
		mine.err[0] = '\0';
		r->cap_gpus = SIZE_MAX;
		r->st = ev ? run_combo(&mine, ci, w->n, ev, r)
		           : aiwi_plan_err(&mine, AIW_ENOMEM, "aiw_plan_run: out of memory");
		memcpy(r->stats, mine.stats, sizeof r->stats);
		pthread_mutex_lock(&w->lock);
		w->ended++;
		if (r->st != AIW_OK) {
			snprintf(r->err, sizeof r->err, "%s", mine.err);
			w->stop = true;
		} else if (w->plan->progress && !w->stop &&
		           w->plan->progress(w->plan, w->ended, w->ntasks,
		                             w->plan->progress_payload) != 0) {
			w->stop = true;
			((aiw_plan *)w->plan)->stopped = true; /* read after the join */
		}
		pthread_mutex_unlock(&w->lock);
	}
	free(ev);
	return NULL;
}

static void merge_miss(miss *dst, const miss *src)
{
	if (src->any && (!dst->any || src->ratio < dst->ratio))
		*dst = *src;
}

/* The re-check of the ranked table's top rows (see the top). */
static aiw_status recheck(aiw_plan *p, size_t combos)
{
	size_t passed = 0, examined = 0;
	for (size_t i = 0; i < p->nrows && passed < p->recheck && examined < 4 * p->recheck;
	     i++, examined++) {
		plan_row *r = &p->rows[i];
		plan_eval e = {0};
		size_t met = 0;
		double dg = r->v[AIW_PLAN_DECODE_GPUS];
		aiw_status st = evaluate_at(p, &r->c, r->v[AIW_PLAN_GPUS_PER_REPLICA],
		                            isfinite(dg) ? dg : 0, p->reps, p->recheck_reps, &e, &met);
		if (st != AIW_OK)
			return st;
		r->v[AIW_PLAN_RECHECK_TTFT_P99_S] = e.m[AIW_PLAN_TTFT_P99_S];
		r->v[AIW_PLAN_RECHECK_TTFT_P99_CI95] = e.m[AIW_PLAN_TTFT_P99_CI95];
		r->v[AIW_PLAN_RECHECK_TPOT_P99_S] = e.m[AIW_PLAN_TPOT_P99_S];
		r->v[AIW_PLAN_RECHECK_TPOT_P99_CI95] = e.m[AIW_PLAN_TPOT_P99_CI95];
		r->v[AIW_PLAN_RECHECK_MET_SHARE] = (double)met / (double)p->recheck_reps;
		r->v[AIW_PLAN_RECHECK_OK] = e.slo_ok;
		p->stats[AIW_PLAN_STAT_RECHECKED]++;
		if (e.slo_ok)
			passed++;
		else
			p->stats[AIW_PLAN_STAT_RECHECK_FAILED]++;
		/* the evaluation counted itself as a simulated candidate */
		p->stats[AIW_PLAN_STAT_SIMULATED]--;
		if (p->progress && p->progress(p, combos, combos, p->progress_payload) != 0) {
			p->stopped = true;
			free_rows(p);
			p->stats[AIW_PLAN_STAT_ROWS] = 0;
			return aiwi_plan_err(p, AIW_ESTOPPED,
			            "aiw_plan_run: stopped by the progress callback in the re-check, "
			            "after %zu rows",
			            examined + 1);
		}
	}
	return AIW_OK;
}

aiw_status aiw_plan_set_progress(aiw_plan *p, aiw_plan_progress_fn fn, void *payload)
{
	if (!p)
		return AIW_EINVAL;
	if (p->ran)
		return aiwi_plan_err(p, AIW_ESTATE,
		            "aiw_plan_set_progress: the plan has run (set before aiw_plan_run)");
	p->progress = fn;
	p->progress_payload = payload;
	return AIW_OK;
}

double aiwi_plan_attainment_lcb(size_t k, size_t n, double conf)
{
	if (k == 0 || n == 0)
		return 0;
	/* P(X >= k | p = L) = 1 - conf: L = B^-1(1 - conf; k, n - k + 1) */
	return gsl_cdf_beta_Pinv(1 - conf, (double)k, (double)(n - k + 1));
}

/* The settings of the search's further axes and attainment, checked on
 * the scenario with the plan's settings before anything runs. */
static aiw_status check_new_settings(aiw_plan *p)
{
	if (isfinite(p->train_tokens))
		return aiwi_plan_err(p, AIW_EINVAL,
		            "aiw_plan_run: train_tokens = %g applies to a training plan ([training "
		            "NAME]); %s is a fleet",
		            p->train_tokens, p->px);
	/* the search's replications, and the re-check's (its criterion is the
	 * search's at further seeds) */
	for (int k = 0; k < 2 && isfinite(p->attainment); k++) {
		size_t n = k ? p->recheck_reps : p->reps;
		if (k && p->recheck == 0)
			break;
		double best = aiwi_plan_attainment_lcb(n, n, p->confidence);
		if (best < p->attainment) {
			/* (1 - c)^(1/n) >= a: n >= ln(1 - c) / ln(a) */
			double need = ceil(log(1 - p->confidence) / log(p->attainment));
			while (aiwi_plan_attainment_lcb((size_t)need, (size_t)need, p->confidence) <
			       p->attainment)
				need++;
			return aiwi_plan_err(p, AIW_EINVAL,
			            "aiw_plan_run: attainment = %g at confidence = %g cannot be shown "
			            "with %s = %zu (every run meeting the limits bounds it at %.6g): "
			            "%s from %.0f to %d",
			            p->attainment, p->confidence, k ? "recheck_replications" : "replications",
			            n, best, k ? "recheck_replications" : "replications", need, MAX_REPS);
		}
	}
	aiw_status st;
	aiw_sim *sim = aiwi_plan_scenario(p, &st);
	if (!sim)
		return st;
	if (st != AIW_OK) {
		aiwi_plan_err(p, st, "aiw_plan_run: %s", aiw_sim_errmsg(sim));
		aiw_sim_free(sim);
		return st;
	}
	char name[400], buf[64];
	/* disaggregation: the fleet's decode_fleet names the decode pool (an
	 * [inference D] with disaggregation = decode); a fleet that is a
	 * prefill pool in the scenario is planned as a pair too */
	char role[64] = "";
	snprintf(name, sizeof name, "%s.disaggregation", p->px);
	aiw_sim_get(sim, name, role, sizeof role);
	p->dpx[0] = '\0';
	if (p->ax[AX_DREPL] && !p->ax[AX_DISAGG] && strcmp(role, "prefill") != 0)
		st = aiwi_plan_err(p, AIW_EINVAL,
		                   "aiw_plan_run: decode_replicas: %s.disaggregation = %s: the axis "
		                   "needs the disaggregation axis (on, or off,on) or a prefill pool",
		                   p->px, role);
	if (st == AIW_OK && (p->ax[AX_DISAGG] || strcmp(role, "prefill") == 0)) {
		char dn[256] = "", drole[64] = "";
		snprintf(name, sizeof name, "%s.decode_fleet", p->px);
		if (aiw_sim_get(sim, name, dn, sizeof dn) != AIW_OK || !dn[0]) {
			st = aiwi_plan_err(p, AIW_EINVAL,
			                   "aiw_plan_run: disaggregation: %s.decode_fleet is not set "
			                   "(the name of an [inference NAME] section with "
			                   "disaggregation = decode)",
			                   p->px);
		} else {
			snprintf(name, sizeof name, "inference.%s.disaggregation", dn);
			if (aiw_sim_get(sim, name, drole, sizeof drole) != AIW_OK ||
			    strcmp(drole, "decode") != 0)
				st = aiwi_plan_err(p, AIW_EINVAL,
				                   "aiw_plan_run: disaggregation: %s.decode_fleet = %s: no "
				                   "[inference %s] section with disaggregation = decode",
				                   p->px, dn, dn);
			else
				snprintf(p->dpx, sizeof p->dpx, "inference.%s", dn);
		}
		if (st == AIW_OK && p->ax[AX_TARGET])
			st = aiwi_plan_err(p, AIW_EINVAL,
			                   "aiw_plan_run: target and disaggregation: the target axis "
			                   "plans an autoscaled fleet alone (give one of the two)");
	}
	if (st == AIW_OK && p->ax[AX_MNBT]) {
		snprintf(name, sizeof name, "%s.chunked_prefill", p->px);
		if (aiw_sim_get(sim, name, buf, sizeof buf) != AIW_OK || strcmp(buf, "on") != 0)
			st = aiwi_plan_err(p, AIW_EINVAL,
			            "aiw_plan_run: max_num_batched_tokens: %s.chunked_prefill = %s: the "
			            "axis needs chunked_prefill = on (the budget does nothing without it)",
			            p->px, buf);
	}
	if (st == AIW_OK && p->ax[AX_TARGET]) {
		char as[64] = "", met[64] = "";
		snprintf(name, sizeof name, "%s.autoscaler", p->px);
		aiw_sim_get(sim, name, as, sizeof as);
		snprintf(name, sizeof name, "%s.metric", p->px);
		aiw_sim_get(sim, name, met, sizeof met);
		if (strcmp(as, "hpa") != 0 && strcmp(as, "kpa") != 0 && strcmp(as, "predictive") != 0)
			st = aiwi_plan_err(p, AIW_EINVAL,
			            "aiw_plan_run: target: %s.autoscaler = %s: the axis needs an "
			            "autoscaler with a target (hpa, kpa or predictive)",
			            p->px, as);
		else
			snprintf(p->target_key, sizeof p->target_key, "%s",
			         strcmp(as, "kpa") != 0 && strcmp(met, "utilization") == 0
			             ? "target_utilization"
			             : "target_value");
		/* every value against the parameter's own range */
		for (size_t i = 0; i < p->nax[AX_TARGET] && st == AIW_OK; i++) {
			snprintf(name, sizeof name, "%s.%s", p->px, p->target_key);
			if ((st = aiw_sim_set(sim, name, p->ax[AX_TARGET][i])) != AIW_OK)
				aiwi_plan_err(p, st, "aiw_plan_run: target: %s", aiw_sim_errmsg(sim));
		}
		/* the start count and the floor within the smallest cap */
		double lo = INFINITY;
		for (size_t i = 0; i < p->nax[AX_REPLICAS]; i++)
			lo = fmin(lo, atof(p->ax[AX_REPLICAS][i]));
		const char *keys[] = {"replicas", "min_replicas"};
		for (size_t i = 0; i < 2 && st == AIW_OK; i++) {
			double v = NAN;
			snprintf(name, sizeof name, "%s.%s", p->px, keys[i]);
			aiw_sim_get_double(sim, name, &v);
			if (v > lo)
				st = aiwi_plan_err(p, AIW_ERANGE,
				            "aiw_plan_run: target: %s.%s = %g is above the smallest replica "
				            "count %g (with the autoscaler on, replicas sets max_replicas)",
				            p->px, keys[i], v, lo);
		}
		if (st != AIW_OK)
			p->target_key[0] = '\0';
	}
	aiw_sim_free(sim);
	return st;
}

/* The plan's checks, the grid's sizes n and its combinations (*combos; 0:
 * a training plan, run whole by aiwi_plan_run_training). */
aiw_status aiwi_plan_prepare(aiw_plan *p, size_t *n, size_t *combos)
{
	*combos = 0;
	if (p->ran)
		return aiwi_plan_err(p, AIW_ESTATE, "aiw_plan_run: the plan has run already");
	if (!p->training) {
		/* a bare name that is a [training NAME] and no [inference NAME] */
		int kind = 0;
		aiw_status st = aiwi_plan_component_kind(p, &kind);
		if (st != AIW_OK)
			return st;
		if (kind == 2) {
			p->training = true;
			snprintf(p->px, sizeof p->px, "training.%s", p->comp);
		}
	}
	if (p->training)
		return AIW_OK;
	if (!isfinite(p->ttft) && !isfinite(p->tpot))
		return aiwi_plan_err(p, AIW_EINVAL,
		            "aiw_plan_run: ttft_p99 and tpot_p99 are both none: the plan needs a "
		            "latency limit");
	if (!p->ax[AX_REPLICAS])
		return aiwi_plan_err(p, AIW_EINVAL,
		            "aiw_plan_run: no replicas axis (aiw_plan_grid(plan, \"replicas\", "
		            "\"1..16\"))");
	/* the fleet exists and the scenario loads */
	{
		aiw_sim *sim;
		if (aiw_sim_create(&sim, 1) != AIW_OK)
			return aiwi_plan_err(p, AIW_ENOMEM, "aiw_plan_run: out of memory");
		aiw_status st = p->path ? aiw_sim_load_file(sim, p->path)
		                        : aiw_sim_load_string(sim, p->text, "scenario");
		if (st != AIW_OK) {
			aiwi_plan_err(p, st, "aiw_plan_run: %s", aiw_sim_errmsg(sim));
			aiw_sim_free(sim);
			return st;
		}
		size_t nc = 0;
		bool found = false;
		aiw_sim_component_count(sim, &nc);
		for (size_t i = 0; i < nc; i++) {
			const char *kind, *name;
			aiw_sim_component(sim, i, &kind, &name);
			if (strcmp(kind, "inference") == 0 && strcmp(name, p->comp) == 0)
				found = true;
		}
		aiw_sim_free(sim);
		if (!found)
			return aiwi_plan_err(p, AIW_EUNKNOWN,
			            "aiw_plan_run: component '%s': the scenario has no [inference %s]",
			            p->comp, p->comp);
	}
	aiw_status cst = check_new_settings(p);
	if (cst != AIW_OK)
		return cst;
	p->ran = true;
	qsort(p->ax[AX_REPLICAS], p->nax[AX_REPLICAS], sizeof(char *), cmp_double_text);
	size_t nc = 1;
	for (size_t a = 0; a < NAXES; a++) {
		n[a] = p->ax[a] ? p->nax[a] : 1;
		if (a != AX_REPLICAS)
			nc *= n[a];
	}
	size_t nr = n[AX_REPLICAS], distinct = 0;
	for (size_t ci = 0; ci < nc; ci++) {
		cand c;
		distinct += aiwi_plan_combo_cand(p, ci, n, &c);
	}
	p->stats[AIW_PLAN_STAT_CANDIDATES] = distinct * nr;
	*combos = nc;
	return AIW_OK;
}

/* A new array of the combinations' results, each not run (AIW_ESTOPPED). */
combo_res *aiwi_plan_new_results(aiw_plan *p, size_t combos)
{
	combo_res *res = calloc(combos, sizeof *res);
	if (!res) {
		aiwi_plan_err(p, AIW_ENOMEM, "aiw_plan_run: out of memory");
		return NULL;
	}
	for (size_t ci = 0; ci < combos; ci++)
		res[ci].st = AIW_ESTOPPED; /* not run */
	return res;
}

void aiwi_plan_free_results(combo_res *res, size_t combos)
{
	for (size_t ci = 0; res && ci < combos; ci++)
		if (res[ci].has_row) {
			free(res[ci].row.gpu);
			free(res[ci].row.snippet);
		}
	free(res);
}

/* The combinations part, part + nparts, ... of the grid on the plan's
 * threads, into res; *ended: how many ended. */
void aiwi_plan_share(aiw_plan *p, const size_t *n, size_t combos, combo_res *res, size_t part,
                     size_t nparts, size_t *ended)
{
	size_t ntasks = part < combos ? (combos - part + nparts - 1) / nparts : 0;
	plan_work w = {p, n, combos, res, PTHREAD_MUTEX_INITIALIZER, 0, 0, false,
	               part, nparts, ntasks};
	size_t nth = p->jobs < ntasks ? p->jobs : ntasks;
	pthread_t *th = nth > 1 ? calloc(nth, sizeof *th) : NULL;
	size_t started = 0;
	if (th)
		for (; started < nth; started++)
			if (pthread_create(&th[started], NULL, plan_worker, &w) != 0)
				break;
	if (started == 0)
		plan_worker(&w); /* one thread: the caller's */
	for (size_t i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	free(th);
	pthread_mutex_destroy(&w.lock);
	*ended = w.ended;
}

/* The results of every combination merged in grid order (the same bytes
 * whatever the threads and parts), ranked, flagged, re-checked; res freed. */
aiw_status aiwi_plan_finish(aiw_plan *p, size_t combos, combo_res *res, size_t ended)
{
	miss slo = {0}, pow = {0};
	bool mem_any = false;
	char memmsg[1024] = "";
	size_t smallest_tp_gpus = SIZE_MAX;
	aiw_status st = AIW_OK;
	for (size_t ci = 0; ci < combos && st == AIW_OK && !p->stopped; ci++) {
		combo_res *r = &res[ci];
		if (r->st != AIW_OK) {
			st = r->st;
			snprintf(p->err, sizeof p->err, "%s", r->err);
			break;
		}
		for (size_t k = 0; k < AIW_PLAN_NSTATS; k++)
			p->stats[k] += r->stats[k];
		if (r->mem_refused && !mem_any) {
			mem_any = true;
			snprintf(memmsg, sizeof memmsg, "%s", r->memmsg);
		}
		if (r->cap_gpus < smallest_tp_gpus)
			smallest_tp_gpus = r->cap_gpus;
		merge_miss(&slo, &r->slo);
		merge_miss(&pow, &r->pow);
		if (r->has_row) {
			plan_row *rows = realloc(p->rows, (p->nrows + 1) * sizeof *rows);
			if (!rows) {
				st = aiwi_plan_err(p, AIW_ENOMEM, "aiw_plan_run: out of memory");
				break;
			}
			p->rows = rows;
			rows[p->nrows++] = r->row;
			r->has_row = false; /* owned by the plan now */
		}
	}
	aiwi_plan_free_results(res, combos);
	if (st == AIW_OK && p->stopped) {
		free_rows(p);
		return aiwi_plan_err(p, AIW_ESTOPPED,
		            "aiw_plan_run: stopped by the progress callback after %zu of %zu "
		            "combinations",
		            ended, combos);
	}
	if (st != AIW_OK)
		return st;
	p->stats[AIW_PLAN_STAT_ROWS] = p->nrows;
	if (p->nrows > 1) /* no rows: no array (qsort's argument must not be NULL) */
		qsort(p->rows, p->nrows, sizeof *p->rows, cmp_rows);
	for (size_t i = 0; i < p->nrows; i++) {
		double *v = p->rows[i].v;
		bool dt = false, dp = false;
		for (size_t j = 0; j < p->nrows; j++) {
			const double *w = p->rows[j].v;
			if (j == i)
				continue;
			if (w[0] <= v[0] && w[AIW_PLAN_TTFT_P99_S] <= v[AIW_PLAN_TTFT_P99_S] &&
			    (w[0] < v[0] || w[AIW_PLAN_TTFT_P99_S] < v[AIW_PLAN_TTFT_P99_S]))
				dt = true;
			if (w[0] <= v[0] && w[AIW_PLAN_POWER_PEAK_W] <= v[AIW_PLAN_POWER_PEAK_W] &&
			    (w[0] < v[0] || w[AIW_PLAN_POWER_PEAK_W] < v[AIW_PLAN_POWER_PEAK_W]))
				dp = true;
		}
		v[AIW_PLAN_PARETO_TTFT] = !dt;
		v[AIW_PLAN_PARETO_POWER] = !dp;
	}
	if ((st = recheck(p, combos)) != AIW_OK)
		return st;
	/* the refusal: the last stage that removed candidates */
	if (p->nrows == 0) {
		if (pow.any)
			snprintf(p->verdict, sizeof p->verdict,
			         "power_budget: peak power %.6g W at the lowest-power candidate that "
			         "meets the latency limits (%s), budget %.6g W (%.3g%% over)",
			         pow.value, pow.where, pow.limit, 100 * (pow.ratio - 1));
		else if (slo.any)
			snprintf(p->verdict, sizeof p->verdict,
			         "latency: P99 %s %.6g s at the closest candidate (%s), limit %.6g s "
			         "(%.3g%% over)",
			         slo.limit == p->ttft ? "TTFT" : "TPOT", slo.value, slo.where, slo.limit,
			         100 * (slo.ratio - 1));
		else if (p->stats[AIW_PLAN_STAT_PRUNED_CAP] > 0)
			snprintf(p->verdict, sizeof p->verdict,
			         "max_gpus: the smallest candidate that fits memory needs %zu GPUs, cap "
			         "%.0f",
			         smallest_tp_gpus, p->max_gpus);
		else if (mem_any)
			snprintf(p->verdict, sizeof p->verdict,
			         "memory: every combination refused by the fleet's start check (the "
			         "first: %s)",
			         memmsg);
	}
	return AIW_OK;
}

aiw_status aiw_plan_run(aiw_plan *p)
{
	if (!p)
		return AIW_EINVAL;
	size_t n[NAXES], combos, ended = 0;
	aiw_status st = aiwi_plan_prepare(p, n, &combos);
	if (st != AIW_OK)
		return st;
	if (p->training)
		return aiwi_plan_run_training(p);
	combo_res *res = aiwi_plan_new_results(p, combos);
	if (!res)
		return AIW_ENOMEM;
	aiwi_plan_share(p, n, combos, res, 0, 1, &ended);
	return aiwi_plan_finish(p, combos, res, ended);
}
