/*
 * test_plan.c - the serving plan (aiw_plan_*) against brute force.
 *
 * A grid small enough to simulate whole (a 13e9-parameter model, 1 min of
 * Poisson traffic; GPU x gpus_per_replica x weight_bits x max_batch x
 * replicas 1..8, 128 candidates) is run candidate by candidate through the
 * public API (the scenario, the fleet's autoscaler off, the axes set), and:
 *   - the planner's best row has the brute-force optimum's objective,
 *     exactly, for the objectives gpus, cost_per_mtok and energy, with and
 *     without a GPU cap and a power budget;
 *   - every combination with a feasible candidate in the grid has its row,
 *     at the smallest feasible replica count (the pruning, memory, cap,
 *     load bound and bisection, removes no feasible optimum), and no other
 *     combination has one;
 *   - the bisection's assumption holds on the grid: per combination the
 *     latency verdict is monotone in replicas and the objectives do not
 *     decrease over the feasible counts;
 *   - every row re-run from its snippet gives the row's metrics, bit for
 *     bit, and two plans with the same seed, on 1 and 2 threads, write the
 *     same CSV;
 *   - an empty table names the constraint that removed the last candidate.
 */
#include "../testutil.h"
#include "studies/plan.h"

#include <gsl/gsl_cdf.h>

#include <math.h>
#include <unistd.h>

static const char SCEN[] = "[sim]\nseed = 11\nduration = 1min\nsample_interval = 10s\n"
                           "[inference chat]\ngpu = H100-SXM\ngpus_per_replica = 1\n"
                           "model_params = 13e9\nweight_bits = 16\ntraffic = poisson\n"
                           "rate = 12/s\nprompt_tokens = lognormal(median=512,sigma=0.5)\n"
                           "output_tokens = lognormal(median=128,sigma=0.5)\nreplicas = 1\n";

static const char *const GPUS[] = {"H100-SXM", "L4"};
static const char *const TPS[] = {"1", "2"};
static const char *const BITS[] = {"8", "16"};
static const char *const BATCH[] = {"16", "64"};
#define NR 8
#define NCOMBO 16
#define TTFT_LIMIT 0.4

typedef struct bf {
	bool refused;
	double ttft, tpot, peak, energy, cost, gpus;
} bf;

static bf BF[NCOMBO][NR];
static bool bf_done;

static void combo_values(size_t ci, const char **g, const char **t, const char **b,
                         const char **m)
{
	*g = GPUS[(ci >> 3) & 1];
	*t = TPS[(ci >> 2) & 1];
	*b = BITS[(ci >> 1) & 1];
	*m = BATCH[ci & 1];
}

static aiw_status run_candidate(const char *const sets[][2], size_t n, aiw_sim **out)
{
	aiw_sim *sim;
	ck_assert_int_eq(aiw_sim_create(&sim, 1), AIW_OK);
	AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim, SCEN, "test"));
	for (size_t i = 0; i < n; i++)
		AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, sets[i][0], sets[i][1]));
	*out = sim;
	return aiw_sim_run(sim);
}

static void brute_force(void)
{
	if (bf_done)
		return;
	for (size_t ci = 0; ci < NCOMBO; ci++)
		for (int r = 1; r <= NR; r++) {
			const char *g, *t, *b, *m;
			char rs[8];
			combo_values(ci, &g, &t, &b, &m);
			snprintf(rs, sizeof rs, "%d", r);
			const char *sets[][2] = {{"inference.chat.autoscaler", "none"},
			                         {"inference.chat.gpu", g},
			                         {"inference.chat.gpus_per_replica", t},
			                         {"inference.chat.weight_bits", b},
			                         {"inference.chat.max_batch", m},
			                         {"inference.chat.replicas", rs}};
			aiw_sim *sim;
			aiw_status st = run_candidate(sets, 6, &sim);
			bf *x = &BF[ci][r - 1];
			x->gpus = r * atof(t);
			if (st != AIW_OK) {
				ck_assert_msg(st == AIW_ERANGE, "%s", aiw_sim_errmsg(sim));
				x->refused = true;
			} else {
				x->ttft = aiwi_test_metric(sim, "inference.chat.ttft_p99_s");
				x->tpot = aiwi_test_metric(sim, "inference.chat.tpot_p99_s");
				x->peak = aiwi_test_metric(sim, "site.power_peak_w");
				x->energy = aiwi_test_metric(sim, "site.energy_kwh");
				x->cost = aiwi_test_metric(sim, "inference.chat.cost_per_mtok_blended_usd");
			}
			aiw_sim_free(sim);
		}
	bf_done = true;
}

static double objective(const bf *x, const char *obj)
{
	if (strcmp(obj, "gpus") == 0)
		return x->gpus;
	if (strcmp(obj, "energy") == 0)
		return x->energy;
	if (strcmp(obj, "peak_power") == 0)
		return x->peak;
	return x->cost;
}

static bool feasible(const bf *x, double max_gpus, double budget)
{
	return !x->refused && x->ttft <= TTFT_LIMIT && x->gpus <= max_gpus && x->peak <= budget;
}

static aiw_plan *make_plan(const char *obj, const char *max_gpus, const char *budget)
{
	aiw_plan *p;
	ck_assert_int_eq(aiw_plan_create(&p, NULL, SCEN, "chat"), AIW_OK);
	char lim[32];
	snprintf(lim, sizeof lim, "%g", TTFT_LIMIT);
	ck_assert_int_eq(aiw_plan_set(p, "ttft_p99", lim), AIW_OK);
	ck_assert_int_eq(aiw_plan_set(p, "objective", obj), AIW_OK);
	if (max_gpus)
		ck_assert_int_eq(aiw_plan_set(p, "max_gpus", max_gpus), AIW_OK);
	if (budget)
		ck_assert_int_eq(aiw_plan_set(p, "power_budget", budget), AIW_OK);
	ck_assert_int_eq(aiw_plan_grid(p, "gpu", "H100-SXM,L4"), AIW_OK);
	ck_assert_int_eq(aiw_plan_grid(p, "gpus_per_replica", "1,2"), AIW_OK);
	ck_assert_int_eq(aiw_plan_grid(p, "weight_bits", "8,16"), AIW_OK);
	ck_assert_int_eq(aiw_plan_grid(p, "max_batch", "16,64"), AIW_OK);
	ck_assert_int_eq(aiw_plan_grid(p, "replicas", "1..8"), AIW_OK);
	aiw_status st = aiw_plan_run(p);
	ck_assert_msg(st == AIW_OK, "%s", aiw_plan_errmsg(p));
	return p;
}

/* the combination index of a row */
static size_t row_combo(const double *v, const char *gpu)
{
	size_t ci = strcmp(gpu, "L4") == 0 ? 8 : 0;
	ci |= v[AIW_PLAN_GPUS_PER_REPLICA] == 2 ? 4 : 0;
	ci |= v[AIW_PLAN_WEIGHT_BITS] == 16 ? 2 : 0;
	ci |= v[AIW_PLAN_MAX_BATCH] == 64 ? 1 : 0;
	return ci;
}

static void check_against_brute_force(const char *obj, const char *max_gpus, const char *budget)
{
	brute_force();
	double cap = max_gpus ? atof(max_gpus) : INFINITY, pb = budget ? atof(budget) : INFINITY;
	aiw_plan *p = make_plan(obj, max_gpus, budget);
	size_t s[AIW_PLAN_NSTATS];
	ck_assert_int_eq(aiw_plan_stats(p, s, AIW_PLAN_NSTATS), AIW_OK);
	ck_assert_uint_eq(s[AIW_PLAN_STAT_CANDIDATES], NCOMBO * NR);
	ck_assert_uint_eq(s[AIW_PLAN_STAT_CANDIDATES],
	                  s[AIW_PLAN_STAT_PRUNED_MEMORY] + s[AIW_PLAN_STAT_PRUNED_CAP] +
	                      s[AIW_PLAN_STAT_PRUNED_LOAD] + s[AIW_PLAN_STAT_PRUNED_BISECTION] +
	                      s[AIW_PLAN_STAT_SIMULATED]);
	/* every pruning stage acts on this grid */
	ck_assert_uint_gt(s[AIW_PLAN_STAT_PRUNED_MEMORY], 0);
	ck_assert_uint_gt(s[AIW_PLAN_STAT_PRUNED_BISECTION], 0);
	if (!max_gpus && !budget)
		ck_assert_uint_gt(s[AIW_PLAN_STAT_PRUNED_LOAD], 0);
	/* the optimum over the whole grid */
	double best = INFINITY;
	size_t want_rows = 0;
	int want_r[NCOMBO];
	for (size_t ci = 0; ci < NCOMBO; ci++) {
		want_r[ci] = 0;
		for (int r = 1; r <= NR; r++) {
			const bf *x = &BF[ci][r - 1];
			if (feasible(x, cap, pb) && objective(x, obj) < best)
				best = objective(x, obj);
			/* the smallest count meeting the latency and the cap; its power */
			if (!want_r[ci] && !x->refused && x->ttft <= TTFT_LIMIT && x->gpus <= cap)
				want_r[ci] = x->peak <= pb ? r : -1;
		}
		if (want_r[ci] > 0)
			want_rows++;
	}
	ck_assert_msg(isfinite(best), "the grid has a feasible candidate (%s)", obj);
	ck_assert_uint_eq(s[AIW_PLAN_STAT_ROWS], want_rows);
	double v[AIW_PLAN_NCOLUMNS];
	const char *gpu, *snip;
	ck_assert_int_eq(aiw_plan_row(p, 0, v, AIW_PLAN_NCOLUMNS, &gpu, &snip), AIW_OK);
	ck_assert_msg(v[AIW_PLAN_OBJECTIVE] == best, "%s: plan %.17g, brute force %.17g", obj,
	              v[AIW_PLAN_OBJECTIVE], best);
	for (size_t i = 0; i < s[AIW_PLAN_STAT_ROWS]; i++) {
		ck_assert_int_eq(aiw_plan_row(p, i, v, AIW_PLAN_NCOLUMNS, &gpu, &snip), AIW_OK);
		size_t ci = row_combo(v, gpu);
		ck_assert_msg(want_r[ci] > 0 && v[AIW_PLAN_REPLICAS] == want_r[ci],
		              "combination %zu: plan %g replicas, brute force %d", ci,
		              v[AIW_PLAN_REPLICAS], want_r[ci]);
		const bf *x = &BF[ci][want_r[ci] - 1];
		ck_assert(v[AIW_PLAN_TTFT_P99_S] == x->ttft);
		ck_assert(v[AIW_PLAN_POWER_PEAK_W] == x->peak);
		ck_assert(v[AIW_PLAN_OBJECTIVE] == objective(x, obj));
		if (i > 0) {
			double prev[AIW_PLAN_NCOLUMNS];
			aiw_plan_row(p, i - 1, prev, AIW_PLAN_NCOLUMNS, NULL, NULL);
			ck_assert(prev[AIW_PLAN_OBJECTIVE] <= v[AIW_PLAN_OBJECTIVE]);
		}
	}
	const char *why;
	ck_assert_int_eq(aiw_plan_verdict(p, &why), AIW_OK);
	ck_assert_str_eq(why, "");
	aiw_plan_free(p);
}

START_TEST(assumption_holds_on_grid)
{
	brute_force();
	size_t feasible_combos = 0, refused = 0;
	for (size_t ci = 0; ci < NCOMBO; ci++) {
		bool met = false;
		for (int r = 1; r <= NR; r++) {
			const bf *x = &BF[ci][r - 1];
			if (x->refused) {
				ck_assert(r == 1 || BF[ci][0].refused); /* refusals ignore replicas */
				refused++;
				continue;
			}
			bool ok = x->ttft <= TTFT_LIMIT;
			ck_assert_msg(!met || ok, "combination %zu: latency met at fewer replicas than %d",
			              ci, r);
			if (met) {
				const bf *y = &BF[ci][r - 2];
				ck_assert_msg(x->cost >= y->cost && x->energy >= y->energy &&
				                  x->peak >= y->peak,
				              "combination %zu: an objective decreases from %d to %d replicas",
				              ci, r - 1, r);
			}
			met = met || ok;
		}
		feasible_combos += met;
	}
	/* the grid exercises every stage: refusals, infeasible and feasible */
	ck_assert_uint_gt(refused, 0);
	ck_assert_uint_gt(feasible_combos, 2);
	ck_assert_uint_lt(feasible_combos + refused / NR, NCOMBO);
}
END_TEST

START_TEST(optimum_gpus)
{
	check_against_brute_force("gpus", NULL, NULL);
}
END_TEST

START_TEST(optimum_cost)
{
	check_against_brute_force("cost_per_mtok", NULL, NULL);
}
END_TEST

START_TEST(optimum_energy_capped)
{
	check_against_brute_force("energy", "4", NULL);
	check_against_brute_force("cost_per_mtok", "3", NULL);
}
END_TEST

START_TEST(optimum_power_budget)
{
	brute_force();
	/* a budget between the two lowest feasible peaks removes the lowest
	 * ... of the latency-feasible rows, it keeps those at or under it */
	double peaks[NCOMBO];
	size_t n = 0;
	for (size_t ci = 0; ci < NCOMBO; ci++)
		for (int r = 1; r <= NR; r++)
			if (feasible(&BF[ci][r - 1], INFINITY, INFINITY)) {
				peaks[n++] = BF[ci][r - 1].peak;
				break;
			}
	double lo = INFINITY, hi = 0;
	for (size_t i = 0; i < n; i++) {
		lo = fmin(lo, peaks[i]);
		hi = fmax(hi, peaks[i]);
	}
	ck_assert(lo < hi);
	char b[64];
	snprintf(b, sizeof b, "%.17g", (lo + hi) / 2);
	check_against_brute_force("cost_per_mtok", NULL, b);
	check_against_brute_force("gpus", NULL, b);
}
END_TEST

/* "--set NAME=VALUE" lines of a snippet, applied to the scenario scen */
static aiw_sim *rerun_in(const char *scen, const char *snip)
{
	aiw_sim *sim;
	ck_assert_int_eq(aiw_sim_create(&sim, 1), AIW_OK);
	AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim, scen, "test"));
	const char *s = snip;
	while (*s) {
		ck_assert(strncmp(s, "--set ", 6) == 0);
		s += 6;
		const char *nl = strchr(s, '\n'), *eq = strchr(s, '=');
		ck_assert(nl && eq && eq < nl);
		char name[256], value[256];
		snprintf(name, sizeof name, "%.*s", (int)(eq - s), s);
		snprintf(value, sizeof value, "%.*s", (int)(nl - eq - 1), eq + 1);
		AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, name, value));
		s = nl + 1;
	}
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	return sim;
}

static aiw_sim *rerun(const char *snip)
{
	return rerun_in(SCEN, snip);
}

START_TEST(rows_rerun_from_snippets)
{
	aiw_plan *p;
	ck_assert_int_eq(aiw_plan_create(&p, NULL, SCEN, "inference.chat"), AIW_OK);
	ck_assert_int_eq(aiw_plan_set(p, "ttft_p99", "400ms"), AIW_OK);
	ck_assert_int_eq(aiw_plan_set(p, "seed", "5"), AIW_OK);
	ck_assert_int_eq(aiw_plan_set(p, "sim.duration", "45s"), AIW_OK);
	ck_assert_int_eq(aiw_plan_grid(p, "gpu", "H100-SXM,L4"), AIW_OK);
	ck_assert_int_eq(aiw_plan_grid(p, "weight_bits", "8,16"), AIW_OK);
	ck_assert_int_eq(aiw_plan_grid(p, "replicas", "1,2,4,8"), AIW_OK);
	ck_assert_msg(aiw_plan_run(p) == AIW_OK, "%s", aiw_plan_errmsg(p));
	size_t s[AIW_PLAN_NSTATS];
	aiw_plan_stats(p, s, AIW_PLAN_NSTATS);
	ck_assert_uint_gt(s[AIW_PLAN_STAT_ROWS], 1);
	for (size_t i = 0; i < s[AIW_PLAN_STAT_ROWS]; i++) {
		double v[AIW_PLAN_NCOLUMNS];
		const char *gpu, *snip;
		ck_assert_int_eq(aiw_plan_row(p, i, v, AIW_PLAN_NCOLUMNS, &gpu, &snip), AIW_OK);
		aiw_sim *sim = rerun(snip);
		ck_assert(aiwi_test_metric(sim, "inference.chat.ttft_p99_s") == v[AIW_PLAN_TTFT_P99_S]);
		ck_assert(aiwi_test_metric(sim, "inference.chat.tpot_p99_s") == v[AIW_PLAN_TPOT_P99_S]);
		ck_assert(aiwi_test_metric(sim, "site.power_peak_w") == v[AIW_PLAN_POWER_PEAK_W]);
		ck_assert(aiwi_test_metric(sim, "site.energy_kwh") == v[AIW_PLAN_ENERGY_KWH]);
		ck_assert(aiwi_test_metric(sim, "inference.chat.cost_per_mtok_blended_usd") ==
		          v[AIW_PLAN_COST_PER_MTOK_USD]);
		aiw_sim_free(sim);
	}
	aiw_plan_free(p);
}
END_TEST

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	ck_assert(f != NULL);
	char *buf = calloc(1, 1 << 20);
	size_t n = fread(buf, 1, (1 << 20) - 1, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

START_TEST(same_output_one_and_two_threads)
{
	char path[2][64];
	for (int k = 0; k < 2; k++) {
		aiw_plan *p;
		ck_assert_int_eq(aiw_plan_create(&p, NULL, SCEN, "chat"), AIW_OK);
		ck_assert_int_eq(aiw_plan_set(p, "ttft_p99", "0.4"), AIW_OK);
		ck_assert_int_eq(aiw_plan_set(p, "replications", "3"), AIW_OK);
		ck_assert_int_eq(aiw_plan_set(p, "jobs", k ? "2" : "1"), AIW_OK); /* 1, 2 threads */
		ck_assert_int_eq(aiw_plan_grid(p, "gpu", "H100-SXM,L4"), AIW_OK);
		ck_assert_int_eq(aiw_plan_grid(p, "weight_bits", "8,16"), AIW_OK);
		ck_assert_int_eq(aiw_plan_grid(p, "replicas", "1..6"), AIW_OK);
		ck_assert_msg(aiw_plan_run(p) == AIW_OK, "%s", aiw_plan_errmsg(p));
		snprintf(path[k], sizeof path[k], "test_plan_%d_%d.csv", (int)getpid(), k);
		ck_assert_int_eq(aiw_plan_write_csv(p, path[k]), AIW_OK);
		double v[AIW_PLAN_NCOLUMNS];
		ck_assert_int_eq(aiw_plan_row(p, 0, v, AIW_PLAN_NCOLUMNS, NULL, NULL), AIW_OK);
		ck_assert(isfinite(v[AIW_PLAN_TTFT_P99_CI95])); /* 3 replications: an interval */
		aiw_plan_free(p);
	}
	char *a = slurp(path[0]), *b = slurp(path[1]);
	ck_assert(strlen(a) > 100);
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
	unlink(path[0]);
	unlink(path[1]);
}
END_TEST

static void expect_verdict(const char *ttft, const char *set_key, const char *set_value,
                           const char *gpus, const char *max_gpus, const char *budget,
                           const char *prefix)
{
	aiw_plan *p;
	ck_assert_int_eq(aiw_plan_create(&p, NULL, SCEN, "chat"), AIW_OK);
	ck_assert_int_eq(aiw_plan_set(p, "ttft_p99", ttft), AIW_OK);
	if (set_key)
		ck_assert_int_eq(aiw_plan_set(p, set_key, set_value), AIW_OK);
	if (max_gpus)
		ck_assert_int_eq(aiw_plan_set(p, "max_gpus", max_gpus), AIW_OK);
	if (budget)
		ck_assert_int_eq(aiw_plan_set(p, "power_budget", budget), AIW_OK);
	ck_assert_int_eq(aiw_plan_grid(p, "gpu", gpus), AIW_OK);
	ck_assert_int_eq(aiw_plan_grid(p, "replicas", "1..8"), AIW_OK);
	ck_assert_msg(aiw_plan_run(p) == AIW_OK, "%s", aiw_plan_errmsg(p));
	const char *why;
	ck_assert_int_eq(aiw_plan_verdict(p, &why), AIW_OK);
	ck_assert_msg(strncmp(why, prefix, strlen(prefix)) == 0, "verdict '%s', expected '%s...'",
	              why, prefix);
	ck_assert_int_eq(aiw_plan_row(p, 0, NULL, 0, NULL, NULL), AIW_ERANGE);
	aiw_plan_free(p);
}

START_TEST(empty_set_says_why)
{
	expect_verdict("1ms", NULL, NULL, "H100-SXM,L4", NULL, NULL, "latency: P99 TTFT");
	expect_verdict("0.4", "inference.chat.model_params", "70e9", "L4,H100-SXM", NULL, NULL,
	               "memory: every combination refused");
	expect_verdict("0.4", "inference.chat.weight_bits", "8", "L4", "1", NULL, "latency");
	expect_verdict("0.4", "inference.chat.gpus_per_replica", "4", "H100-SXM", "3", NULL,
	               "max_gpus: the smallest candidate that fits memory needs 4 GPUs, cap 3");
	expect_verdict("0.4", NULL, NULL, "H100-SXM", NULL, "10W", "power_budget: peak power");
}
END_TEST

START_TEST(bad_arguments)
{
	aiw_plan *p;
	ck_assert_int_eq(aiw_plan_create(NULL, NULL, SCEN, "chat"), AIW_EINVAL);
	ck_assert_int_eq(aiw_plan_create(&p, NULL, NULL, "chat"), AIW_EINVAL);
	ck_assert_int_eq(aiw_plan_create(&p, "x.ini", SCEN, "chat"), AIW_EINVAL);
	ck_assert_int_eq(aiw_plan_create(&p, NULL, SCEN, NULL), AIW_EINVAL);
	ck_assert_int_eq(aiw_plan_create(&p, NULL, SCEN, ""), AIW_ERANGE);
	ck_assert_int_eq(aiw_plan_create(&p, NULL, SCEN, "a b"), AIW_EPARSE);
	ck_assert_int_eq(aiw_plan_create(&p, NULL, SCEN, "nosuch"), AIW_OK);
	ck_assert_int_eq(aiw_plan_set(p, "ttft_p99", "-1"), AIW_ERANGE);
	ck_assert(strstr(aiw_plan_errmsg(p), "ttft_p99") != NULL);
	ck_assert_int_eq(aiw_plan_set(p, "objective", "speed"), AIW_EUNKNOWN);
	ck_assert(strstr(aiw_plan_errmsg(p), "cost_per_mtok") != NULL);
	ck_assert_int_eq(aiw_plan_set(p, "max_gpus", "2.5"), AIW_EPARSE);
	ck_assert(strstr(aiw_plan_errmsg(p), "max_gpus") != NULL);
	ck_assert_int_eq(aiw_plan_set(p, "max_gpus", "0"), AIW_ERANGE);
	ck_assert_int_eq(aiw_plan_set(p, "replications", "0"), AIW_ERANGE);
	ck_assert_int_eq(aiw_plan_set(p, "recheck", "1001"), AIW_ERANGE);
	ck_assert(strstr(aiw_plan_errmsg(p), "recheck") != NULL);
	ck_assert_int_eq(aiw_plan_set(p, "recheck_replications", "1"), AIW_ERANGE);
	ck_assert(strstr(aiw_plan_errmsg(p), "recheck_replications") != NULL);
	ck_assert_int_eq(aiw_plan_set(p, "jobs", "1025"), AIW_ERANGE);
	ck_assert(strstr(aiw_plan_errmsg(p), "jobs") != NULL);
	ck_assert_int_eq(aiw_plan_set(p, "bogus", "1"), AIW_EUNKNOWN);
	ck_assert_int_eq(aiw_plan_set(p, "sim.duration", "-5s"), AIW_ERANGE);
	ck_assert_int_eq(aiw_plan_set(p, NULL, "1"), AIW_EINVAL);
	ck_assert_int_eq(aiw_plan_grid(p, "bogus_axis", "1,2"), AIW_EUNKNOWN);
	ck_assert_int_eq(aiw_plan_grid(p, "replicas", "0,1"), AIW_ERANGE);
	ck_assert(strstr(aiw_plan_errmsg(p), "replicas") != NULL);
	ck_assert_int_eq(aiw_plan_grid(p, "replicas", "3..1"), AIW_EPARSE);
	ck_assert_int_eq(aiw_plan_grid(p, "replicas", "1,,2"), AIW_EPARSE);
	ck_assert_int_eq(aiw_plan_grid(p, "gpus_per_replica", "0"), AIW_ERANGE);
	size_t s[AIW_PLAN_NSTATS];
	ck_assert_int_eq(aiw_plan_stats(p, s, AIW_PLAN_NSTATS), AIW_ESTATE);
	/* no replicas axis yet, no limit yet */
	ck_assert_int_eq(aiw_plan_run(p), AIW_EINVAL);
	ck_assert_int_eq(aiw_plan_set(p, "ttft_p99", "1s"), AIW_OK);
	ck_assert_int_eq(aiw_plan_run(p), AIW_EINVAL);
	ck_assert(strstr(aiw_plan_errmsg(p), "replicas") != NULL);
	ck_assert_int_eq(aiw_plan_grid(p, "replicas", "1..3"), AIW_OK);
	ck_assert_int_eq(aiw_plan_run(p), AIW_EUNKNOWN); /* no [inference nosuch] */
	ck_assert(strstr(aiw_plan_errmsg(p), "nosuch") != NULL);
	aiw_plan_free(p);
	aiw_plan_free(NULL);
	ck_assert_int_eq(aiw_plan_create(&p, NULL, SCEN, "chat"), AIW_OK);
	ck_assert_int_eq(aiw_plan_set(p, "ttft_p99", "1s"), AIW_OK);
	ck_assert_int_eq(aiw_plan_grid(p, "gpu", "NoSuchGPU"), AIW_OK); /* a [gpu] may add it */
	ck_assert_int_eq(aiw_plan_grid(p, "replicas", "1"), AIW_OK);
	ck_assert_int_eq(aiw_plan_run(p), AIW_EUNKNOWN);
	ck_assert(strstr(aiw_plan_errmsg(p), "NoSuchGPU") != NULL);
	ck_assert_int_eq(aiw_plan_run(p), AIW_ESTATE);
	ck_assert_int_eq(aiw_plan_set(p, "ttft_p99", "1s"), AIW_ESTATE);
	ck_assert_int_eq(aiw_plan_write_csv(p, NULL), AIW_EINVAL);
	aiw_plan_free(p);
}
END_TEST

/* the re-check: each re-checked row's columns are the means and 95%
 * half-widths of its snippet run at the seeds after the search's, and the
 * walk stops at N passes or 4N rows */
START_TEST(recheck_at_further_seeds)
{
	enum { R = 2, Q = 4, N = 2 };
	aiw_plan *p;
	ck_assert_int_eq(aiw_plan_create(&p, NULL, SCEN, "chat"), AIW_OK);
	ck_assert_int_eq(aiw_plan_set(p, "ttft_p99", "300ms"), AIW_OK);
	ck_assert_int_eq(aiw_plan_set(p, "seed", "5"), AIW_OK);
	ck_assert_int_eq(aiw_plan_set(p, "replications", "2"), AIW_OK);
	ck_assert_int_eq(aiw_plan_set(p, "recheck", "2"), AIW_OK);
	ck_assert_int_eq(aiw_plan_set(p, "recheck_replications", "4"), AIW_OK);
	ck_assert_int_eq(aiw_plan_set(p, "sim.duration", "30s"), AIW_OK);
	ck_assert_int_eq(aiw_plan_grid(p, "gpu", "H100-SXM,L4"), AIW_OK);
	ck_assert_int_eq(aiw_plan_grid(p, "weight_bits", "8,16"), AIW_OK);
	ck_assert_int_eq(aiw_plan_grid(p, "replicas", "1..4"), AIW_OK);
	ck_assert_msg(aiw_plan_run(p) == AIW_OK, "%s", aiw_plan_errmsg(p));
	size_t s[AIW_PLAN_NSTATS];
	aiw_plan_stats(p, s, AIW_PLAN_NSTATS);
	size_t rows = s[AIW_PLAN_STAT_ROWS], examined = s[AIW_PLAN_STAT_RECHECKED];
	ck_assert_uint_gt(rows, 1);
	ck_assert_uint_ge(examined, 1);
	ck_assert_uint_le(examined, 4 * N);
	size_t passed = 0, failed = 0;
	for (size_t i = 0; i < rows; i++) {
		double v[AIW_PLAN_NCOLUMNS];
		const char *gpu, *snip;
		ck_assert_int_eq(aiw_plan_row(p, i, v, AIW_PLAN_NCOLUMNS, &gpu, &snip), AIW_OK);
		if (i >= examined) { /* not re-checked */
			for (int k = AIW_PLAN_RECHECK_TTFT_P99_S; k <= AIW_PLAN_RECHECK_OK; k++)
				ck_assert(isnan(v[k]));
			continue;
		}
		double x[2][Q];
		size_t met = 0;
		for (int k = 0; k < Q; k++) {
			/* the snippet (seed 5), then the re-check's seed 5 + R + k */
			aiw_sim *sim;
			ck_assert_int_eq(aiw_sim_create(&sim, 1), AIW_OK);
			AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim, SCEN, "test"));
			AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.duration", "30s"));
			for (const char *c = snip; *c;) {
				const char *nl = strchr(c, '\n'), *eq = strchr(c, '=');
				char name[256], value[256];
				snprintf(name, sizeof name, "%.*s", (int)(eq - c - 6), c + 6);
				snprintf(value, sizeof value, "%.*s", (int)(nl - eq - 1), eq + 1);
				AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, name, value));
				c = nl + 1;
			}
			char seed[16];
			snprintf(seed, sizeof seed, "%d", 5 + R + k);
			AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.seed", seed));
			AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
			x[0][k] = aiwi_test_metric(sim, "inference.chat.ttft_p99_s");
			x[1][k] = aiwi_test_metric(sim, "inference.chat.tpot_p99_s");
			met += x[0][k] <= 0.3;
			aiw_sim_free(sim);
		}
		for (int j = 0; j < 2; j++) {
			double m = 0, q = 0;
			for (int k = 0; k < Q; k++)
				m += x[j][k];
			m /= Q;
			for (int k = 0; k < Q; k++)
				q += (x[j][k] - m) * (x[j][k] - m);
			double ci = gsl_cdf_tdist_Pinv(0.975, Q - 1) * sqrt(q / (Q - 1)) / sqrt((double)Q);
			int col = j ? AIW_PLAN_RECHECK_TPOT_P99_S : AIW_PLAN_RECHECK_TTFT_P99_S;
			ck_assert_msg(fabs(v[col] - m) <= 1e-12 * m, "row %zu: mean %.17g, plan %.17g",
			              i, m, v[col]);
			ck_assert_msg(fabs(v[col + 1] - ci) <= 1e-12 * ci + 1e-300,
			              "row %zu: half-width %.17g, plan %.17g", i, ci, v[col + 1]);
		}
		ck_assert(v[AIW_PLAN_RECHECK_MET_SHARE] == (double)met / Q);
		ck_assert(v[AIW_PLAN_RECHECK_OK] == (v[AIW_PLAN_RECHECK_TTFT_P99_S] <= 0.3));
		if (v[AIW_PLAN_RECHECK_OK] == 1)
			passed++;
		else
			failed++;
	}
	ck_assert_uint_eq(failed, s[AIW_PLAN_STAT_RECHECK_FAILED]);
	ck_assert_uint_le(passed, N);
	/* the walk stops at N passes, 4N rows or the table's end */
	ck_assert(passed == N || examined == 4 * N || examined == rows);
	aiw_plan_free(p);
}
END_TEST

typedef struct calls {
	size_t n, last_done, total, stop_at;
	bool monotone;
} calls;

static int count_progress(const aiw_plan *plan, size_t done, size_t total, void *payload)
{
	calls *c = payload;
	ck_assert(plan != NULL);
	if (done < c->last_done || done > total)
		c->monotone = false;
	c->last_done = done;
	c->total = total;
	return ++c->n == c->stop_at;
}

/* the progress callback: once per combination (and per re-checked row),
 * done rising to total; a non-zero return stops the plan */
START_TEST(progress_and_stop)
{
	for (int jobs = 1; jobs <= 2; jobs++) {
		aiw_plan *p;
		ck_assert_int_eq(aiw_plan_create(&p, NULL, SCEN, "chat"), AIW_OK);
		ck_assert_int_eq(aiw_plan_set(p, "ttft_p99", "400ms"), AIW_OK);
		ck_assert_int_eq(aiw_plan_set(p, "sim.duration", "20s"), AIW_OK);
		ck_assert_int_eq(aiw_plan_set(p, "recheck", "1"), AIW_OK);
		ck_assert_int_eq(aiw_plan_set(p, "recheck_replications", "2"), AIW_OK);
		ck_assert_int_eq(aiw_plan_set(p, "jobs", jobs == 1 ? "1" : "2"), AIW_OK);
		ck_assert_int_eq(aiw_plan_grid(p, "gpu", "H100-SXM,L4"), AIW_OK);
		ck_assert_int_eq(aiw_plan_grid(p, "weight_bits", "8,16"), AIW_OK);
		ck_assert_int_eq(aiw_plan_grid(p, "replicas", "1..4"), AIW_OK);
		calls c = {0, 0, 0, 0, true};
		ck_assert_int_eq(aiw_plan_set_progress(p, count_progress, &c), AIW_OK);
		ck_assert_msg(aiw_plan_run(p) == AIW_OK, "%s", aiw_plan_errmsg(p));
		size_t s[AIW_PLAN_NSTATS];
		aiw_plan_stats(p, s, AIW_PLAN_NSTATS);
		ck_assert(c.monotone);
		ck_assert_uint_eq(c.total, 4);
		ck_assert_uint_eq(c.n, 4 + s[AIW_PLAN_STAT_RECHECKED]);
		ck_assert_uint_eq(c.last_done, 4);
		/* after the run: refused */
		ck_assert_int_eq(aiw_plan_set_progress(p, NULL, NULL), AIW_ESTATE);
		aiw_plan_free(p);

		/* stopped at the second combination */
		ck_assert_int_eq(aiw_plan_create(&p, NULL, SCEN, "chat"), AIW_OK);
		ck_assert_int_eq(aiw_plan_set(p, "ttft_p99", "400ms"), AIW_OK);
		ck_assert_int_eq(aiw_plan_set(p, "sim.duration", "20s"), AIW_OK);
		ck_assert_int_eq(aiw_plan_set(p, "jobs", jobs == 1 ? "1" : "2"), AIW_OK);
		ck_assert_int_eq(aiw_plan_grid(p, "gpu", "H100-SXM,L4"), AIW_OK);
		ck_assert_int_eq(aiw_plan_grid(p, "weight_bits", "8,16"), AIW_OK);
		ck_assert_int_eq(aiw_plan_grid(p, "replicas", "1..4"), AIW_OK);
		calls d = {0, 0, 0, 2, true};
		ck_assert_int_eq(aiw_plan_set_progress(p, count_progress, &d), AIW_OK);
		ck_assert_int_eq(aiw_plan_run(p), AIW_ESTOPPED);
		ck_assert_msg(strstr(aiw_plan_errmsg(p), "stopped by the progress callback") != NULL,
		              "%s", aiw_plan_errmsg(p));
		ck_assert_uint_le(d.n, 3); /* the other thread's combination may end */
		aiw_plan_stats(p, s, AIW_PLAN_NSTATS);
		ck_assert_uint_eq(s[AIW_PLAN_STAT_ROWS], 0);
		double v[1];
		ck_assert_int_eq(aiw_plan_row(p, 0, v, 1, NULL, NULL), AIW_ERANGE);
		/* no report of a stopped plan */
		ck_assert_int_eq(aiw_plan_write_html(p, "/dev/null"), AIW_ESTATE);
		aiw_plan_free(p);
	}
	ck_assert_int_eq(aiw_plan_set_progress(NULL, NULL, NULL), AIW_EINVAL);
	/* the report: arguments, state, a file that cannot be written */
	ck_assert_int_eq(aiw_plan_write_html(NULL, "x.html"), AIW_EINVAL);
	aiw_plan *p;
	ck_assert_int_eq(aiw_plan_create(&p, NULL, SCEN, "chat"), AIW_OK);
	ck_assert_int_eq(aiw_plan_write_html(p, "x.html"), AIW_ESTATE);
	ck_assert(strstr(aiw_plan_errmsg(p), "aiw_plan_run") != NULL);
	ck_assert_int_eq(aiw_plan_write_html(p, NULL), AIW_EINVAL);
	ck_assert_int_eq(aiw_plan_write_html(p, ""), AIW_EINVAL);
	ck_assert_int_eq(aiw_plan_set(p, "ttft_p99", "400ms"), AIW_OK);
	ck_assert_int_eq(aiw_plan_set(p, "sim.duration", "10s"), AIW_OK);
	ck_assert_int_eq(aiw_plan_grid(p, "replicas", "1..2"), AIW_OK);
	ck_assert_msg(aiw_plan_run(p) == AIW_OK, "%s", aiw_plan_errmsg(p));
	ck_assert_int_eq(aiw_plan_write_html(p, "/nonexistent-dir/x.html"), AIW_EIO);
	ck_assert(strstr(aiw_plan_errmsg(p), "/nonexistent-dir/x.html") != NULL);
	ck_assert_int_eq(aiw_plan_write_html(p, "/dev/null"), AIW_OK);
	aiw_plan_free(p);
}
END_TEST


/* ------------------------------------------------------------------------ */
/* the further axes: pp x spot_fraction x max_num_batched_tokens            */
/* ------------------------------------------------------------------------ */
static const char SCEN2[] = "[sim]\nseed = 7\nduration = 1min\nsample_interval = 10s\n"
                            "[inference chat]\ngpu = H100-SXM\ngpus_per_replica = 2\n"
                            "model_params = 13e9\nweight_bits = 16\ntraffic = poisson\n"
                            "rate = 16/s\nprompt_tokens = lognormal(median=512,sigma=0.5)\n"
                            "output_tokens = lognormal(median=128,sigma=0.5)\nreplicas = 1\n"
                            "max_batch = 64\nchunked_prefill = on\nspot_preemption_rate = 20/h\n"
                            "spot_notice = 10s\n";
static const char *const PPS[] = {"1", "2"};
static const char *const SPOTS[] = {"0", "0.5"};
static const char *const MNBTS[] = {"32", "512", "4096"};
#define NR2 6
#define NCOMBO2 12
#define TTFT2 0.3

static aiw_plan *plan2(const char *obj, const char *jobs)
{
	aiw_plan *p;
	ck_assert_int_eq(aiw_plan_create(&p, NULL, SCEN2, "chat"), AIW_OK);
	ck_assert_int_eq(aiw_plan_set(p, "ttft_p99", "0.3"), AIW_OK);
	ck_assert_int_eq(aiw_plan_set(p, "objective", obj), AIW_OK);
	ck_assert_int_eq(aiw_plan_set(p, "jobs", jobs), AIW_OK);
	ck_assert_int_eq(aiw_plan_grid(p, "pp", "1,2"), AIW_OK);
	ck_assert_int_eq(aiw_plan_grid(p, "spot_fraction", "0,0.5"), AIW_OK);
	ck_assert_int_eq(aiw_plan_grid(p, "max_num_batched_tokens", "32,512,4096"), AIW_OK);
	ck_assert_int_eq(aiw_plan_grid(p, "replicas", "1..6"), AIW_OK);
	ck_assert_msg(aiw_plan_run(p) == AIW_OK, "%s", aiw_plan_errmsg(p));
	return p;
}

/* Every candidate of pp x spot_fraction x max_num_batched_tokens x
 * replicas 1..6 (72) simulated: the plan's rows are each combination's
 * smallest count meeting the limit, its best row the grid's optimum (cost
 * per million tokens, GPUs); the start check removes the budget below
 * max_batch (exact: 32 < 64 is refused whatever the count); every row re-run
 * from its snippet gives its metrics bit for bit; 1 and 2 threads write the
 * same CSV. */
START_TEST(further_axes_against_brute_force)
{
	static bf B[NCOMBO2][NR2];
	for (size_t ci = 0; ci < NCOMBO2; ci++)
		for (int r = 1; r <= NR2; r++) {
			char rs[8];
			snprintf(rs, sizeof rs, "%d", r);
			const char *sets[][2] = {{"inference.chat.autoscaler", "none"},
			                         {"inference.chat.pp", PPS[ci / 6]},
			                         {"inference.chat.spot_fraction", SPOTS[(ci / 3) % 2]},
			                         {"inference.chat.max_num_batched_tokens", MNBTS[ci % 3]},
			                         {"inference.chat.replicas", rs}};
			aiw_sim *sim;
			ck_assert_int_eq(aiw_sim_create(&sim, 1), AIW_OK);
			AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim, SCEN2, "test"));
			for (size_t i = 0; i < 5; i++)
				AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, sets[i][0], sets[i][1]));
			aiw_status st = aiw_sim_run(sim);
			bf *x = &B[ci][r - 1];
			x->gpus = 2.0 * r;
			x->refused = st != AIW_OK;
			if (st != AIW_OK)
				ck_assert_msg(st == AIW_EINVAL || st == AIW_ERANGE, "%s", aiw_sim_errmsg(sim));
			else {
				x->ttft = aiwi_test_metric(sim, "inference.chat.ttft_p99_s");
				x->cost = aiwi_test_metric(sim, "inference.chat.cost_per_mtok_blended_usd");
				x->peak = aiwi_test_metric(sim, "site.power_peak_w");
			}
			aiw_sim_free(sim);
		}
	const char *objs[] = {"cost_per_mtok", "gpus"};
	for (size_t o = 0; o < 2; o++) {
		aiw_plan *p = plan2(objs[o], "1");
		size_t s[AIW_PLAN_NSTATS];
		aiw_plan_stats(p, s, AIW_PLAN_NSTATS);
		ck_assert_uint_eq(s[AIW_PLAN_STAT_CANDIDATES], NCOMBO2 * NR2);
		ck_assert_uint_eq(s[AIW_PLAN_STAT_PRUNED_MEMORY], 4 * NR2); /* the 32-token budget */
		double best = INFINITY;
		size_t want_rows = 0;
		int want_r[NCOMBO2];
		for (size_t ci = 0; ci < NCOMBO2; ci++) {
			want_r[ci] = 0;
			for (int r = 1; r <= NR2; r++) {
				const bf *x = &B[ci][r - 1];
				ck_assert(x->refused == (ci % 3 == 0));
				if (x->refused || !(x->ttft <= TTFT2))
					continue;
				best = fmin(best, o ? x->gpus : x->cost);
				if (!want_r[ci])
					want_r[ci] = r;
			}
			want_rows += want_r[ci] > 0;
		}
		ck_assert(isfinite(best));
		ck_assert_uint_eq(s[AIW_PLAN_STAT_ROWS], want_rows);
		for (size_t i = 0; i < s[AIW_PLAN_STAT_ROWS]; i++) {
			double v[AIW_PLAN_NCOLUMNS];
			const char *gpu, *snip;
			ck_assert_int_eq(aiw_plan_row(p, i, v, AIW_PLAN_NCOLUMNS, &gpu, &snip), AIW_OK);
			size_t ci = (v[AIW_PLAN_PP] == 2 ? 6 : 0) + (v[AIW_PLAN_SPOT_FRACTION] > 0 ? 3 : 0) +
			            (v[AIW_PLAN_MAX_NUM_BATCHED_TOKENS] == 4096   ? 2
			             : v[AIW_PLAN_MAX_NUM_BATCHED_TOKENS] == 512 ? 1
			                                                         : 0);
			ck_assert_msg(want_r[ci] > 0 && v[AIW_PLAN_REPLICAS] == want_r[ci],
			              "combination %zu: plan %g replicas, brute force %d", ci,
			              v[AIW_PLAN_REPLICAS], want_r[ci]);
			const bf *x = &B[ci][want_r[ci] - 1];
			ck_assert(v[AIW_PLAN_TTFT_P99_S] == x->ttft);
			if (i == 0)
				ck_assert_msg(v[AIW_PLAN_OBJECTIVE] == best, "plan %.17g, brute force %.17g",
				              v[AIW_PLAN_OBJECTIVE], best);
			aiw_sim *sim = rerun_in(SCEN2, snip);
			ck_assert(aiwi_test_metric(sim, "inference.chat.ttft_p99_s") == v[AIW_PLAN_TTFT_P99_S]);
			ck_assert(aiwi_test_metric(sim, "inference.chat.cost_per_mtok_blended_usd") ==
			          v[AIW_PLAN_COST_PER_MTOK_USD]);
			aiw_sim_free(sim);
			ck_assert(isnan(v[AIW_PLAN_ATTAINMENT_LCB])); /* no attainment set */
		}
		aiw_plan_free(p);
	}
	/* 1 and 2 threads: the same bytes */
	char path[2][64];
	for (int k = 0; k < 2; k++) {
		aiw_plan *p = plan2("cost_per_mtok", k ? "2" : "1");
		snprintf(path[k], sizeof path[k], "test_plan2_%d_%d.csv", (int)getpid(), k);
		ck_assert_int_eq(aiw_plan_write_csv(p, path[k]), AIW_OK);
		aiw_plan_free(p);
	}
	char *a = slurp(path[0]), *b = slurp(path[1]);
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
	unlink(path[0]);
	unlink(path[1]);
}
END_TEST

/* The autoscaler's target: the fleet keeps its HPA, replicas sets
 * max_replicas, every count simulated; the best row is the brute-force
 * optimum over target x max_replicas, its snippet reproduces it; a fleet
 * without an autoscaler, a target out of its parameter's range and a
 * chunked-prefill budget with chunked prefill off are refused naming the
 * parameter. */
static const char SCEN3[] = "[sim]\nseed = 5\nduration = 4min\nsample_interval = 10s\n"
                            "[inference chat]\ngpu = H100-SXM\ngpus_per_replica = 1\n"
                            "model_params = 13e9\nweight_bits = 16\ntraffic = poisson\n"
                            "rate = 10/s\nprompt_tokens = lognormal(median=512,sigma=0.5)\n"
                            "output_tokens = lognormal(median=128,sigma=0.5)\nreplicas = 1\n"
                            "autoscaler = hpa\n"
                            "cold_start = const(20s)\n";
START_TEST(autoscaler_target_against_brute_force)
{
	static const char *const TG[] = {"0.3", "0.6", "0.9"};
	double best = INFINITY;
	for (size_t t = 0; t < 3; t++)
		for (int r = 1; r <= 4; r++) {
			char rs[8];
			snprintf(rs, sizeof rs, "%d", r);
			aiw_sim *sim;
			ck_assert_int_eq(aiw_sim_create(&sim, 1), AIW_OK);
			AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim, SCEN3, "test"));
			AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "inference.chat.target_utilization", TG[t]));
			AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "inference.chat.max_replicas", rs));
			AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
			double ttft = aiwi_test_metric(sim, "inference.chat.ttft_p99_s");
			double cost = aiwi_test_metric(sim, "inference.chat.cost_per_mtok_blended_usd");
			if (ttft <= 1.0)
				best = fmin(best, cost);
			aiw_sim_free(sim);
		}
	ck_assert(isfinite(best));
	aiw_plan *p;
	ck_assert_int_eq(aiw_plan_create(&p, NULL, SCEN3, "chat"), AIW_OK);
	ck_assert_int_eq(aiw_plan_set(p, "ttft_p99", "1"), AIW_OK);
	ck_assert_int_eq(aiw_plan_grid(p, "target", "0.3,0.6,0.9"), AIW_OK);
	ck_assert_int_eq(aiw_plan_grid(p, "replicas", "1..4"), AIW_OK);
	ck_assert_msg(aiw_plan_run(p) == AIW_OK, "%s", aiw_plan_errmsg(p));
	size_t s[AIW_PLAN_NSTATS];
	aiw_plan_stats(p, s, AIW_PLAN_NSTATS);
	ck_assert_uint_eq(s[AIW_PLAN_STAT_SIMULATED], 12); /* every count */
	double v[AIW_PLAN_NCOLUMNS];
	const char *snip;
	ck_assert_int_eq(aiw_plan_row(p, 0, v, AIW_PLAN_NCOLUMNS, NULL, &snip), AIW_OK);
	ck_assert_msg(v[AIW_PLAN_OBJECTIVE] == best, "plan %.17g, brute force %.17g",
	              v[AIW_PLAN_OBJECTIVE], best);
	ck_assert(strstr(snip, "inference.chat.target_utilization=") != NULL);
	ck_assert(strstr(snip, "inference.chat.max_replicas=") != NULL);
	ck_assert(strstr(snip, "autoscaler=none") == NULL);
	ck_assert(isfinite(v[AIW_PLAN_AUTOSCALER_TARGET]));
	aiw_sim *sim = rerun_in(SCEN3, snip);
	ck_assert(aiwi_test_metric(sim, "inference.chat.cost_per_mtok_blended_usd") ==
	          v[AIW_PLAN_OBJECTIVE]);
	aiw_sim_free(sim);
	aiw_plan_free(p);
	/* refusals naming the parameter, the value and the range */
	ck_assert_int_eq(aiw_plan_create(&p, NULL, SCEN3, "chat"), AIW_OK);
	ck_assert_int_eq(aiw_plan_set(p, "ttft_p99", "1"), AIW_OK);
	ck_assert_int_eq(aiw_plan_grid(p, "target", "1.5"), AIW_OK); /* a target_value */
	ck_assert_int_eq(aiw_plan_grid(p, "replicas", "1..4"), AIW_OK);
	ck_assert_int_eq(aiw_plan_run(p), AIW_ERANGE);
	ck_assert_msg(strstr(aiw_plan_errmsg(p), "target_utilization") &&
	                  strstr(aiw_plan_errmsg(p), "1.5") && strstr(aiw_plan_errmsg(p), "(0, 1]"),
	              "%s", aiw_plan_errmsg(p));
	aiw_plan_free(p);
	ck_assert_int_eq(aiw_plan_create(&p, NULL, SCEN, "chat"), AIW_OK);
	ck_assert_int_eq(aiw_plan_set(p, "ttft_p99", "1"), AIW_OK);
	ck_assert_int_eq(aiw_plan_grid(p, "target", "0.5"), AIW_OK);
	ck_assert_int_eq(aiw_plan_grid(p, "replicas", "1..4"), AIW_OK);
	ck_assert_int_eq(aiw_plan_run(p), AIW_EINVAL);
	ck_assert_msg(strstr(aiw_plan_errmsg(p), "autoscaler = none"), "%s", aiw_plan_errmsg(p));
	aiw_plan_free(p);
	ck_assert_int_eq(aiw_plan_create(&p, NULL, SCEN, "chat"), AIW_OK);
	ck_assert_int_eq(aiw_plan_set(p, "ttft_p99", "1"), AIW_OK);
	ck_assert_int_eq(aiw_plan_grid(p, "max_num_batched_tokens", "2048"), AIW_OK);
	ck_assert_int_eq(aiw_plan_grid(p, "replicas", "1..4"), AIW_OK);
	ck_assert_int_eq(aiw_plan_run(p), AIW_EINVAL);
	ck_assert_msg(strstr(aiw_plan_errmsg(p), "chunked_prefill = off"), "%s", aiw_plan_errmsg(p));
	aiw_plan_free(p);
	ck_assert_int_eq(aiw_plan_create(&p, NULL, SCEN, "chat"), AIW_OK);
	ck_assert_int_eq(aiw_plan_grid(p, "pp", "0"), AIW_ERANGE);
	ck_assert_msg(strstr(aiw_plan_errmsg(p), "pp") != NULL, "%s", aiw_plan_errmsg(p));
	ck_assert_int_eq(aiw_plan_grid(p, "spot_fraction", "1.5"), AIW_ERANGE);
	ck_assert_msg(strstr(aiw_plan_errmsg(p), "spot_fraction") != NULL, "%s", aiw_plan_errmsg(p));
	aiw_plan_free(p);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* attainment at a confidence                                                */
/* ------------------------------------------------------------------------ */
/* The one-sided Clopper-Pearson bound against hand computations: k = n,
 * Beta(n, 1)'s quantile (1 - c)^(1/n); k = n - 1, the bound L solves
 * P(X >= n - 1 | L) = n L^(n-1) - (n-1) L^n = 1 - c (Beta(n-1, 2)'s CDF);
 * k = 0, 0. */
START_TEST(attainment_bound_hand_computed)
{
	const double c = 0.95;
	ck_assert_double_eq_tol(aiwi_plan_attainment_lcb(10, 10, c), pow(0.05, 0.1), 1e-12);
	ck_assert_double_eq_tol(aiwi_plan_attainment_lcb(30, 30, c), pow(0.05, 1.0 / 30), 1e-12);
	/* 0.05^(1/30) = 0.904966..., the least n for 0.9 at 95% is 29: 0.05^(1/28) < 0.9 */
	ck_assert(pow(0.05, 1.0 / 29) >= 0.9 && pow(0.05, 1.0 / 28) < 0.9);
	for (size_t n = 5; n <= 40; n += 7) {
		double L = aiwi_plan_attainment_lcb(n - 1, n, c), dn = (double)n;
		double tail = dn * pow(L, dn - 1) - (dn - 1) * pow(L, dn);
		ck_assert_double_eq_tol(tail, 1 - c, 1e-12);
	}
	ck_assert(aiwi_plan_attainment_lcb(0, 10, c) == 0);
	/* k = 1 of n: 1 - (1 - L)^n = 1 - c, L = 1 - c^(1/n) */
	ck_assert_double_eq_tol(aiwi_plan_attainment_lcb(1, 20, c), 1 - pow(c, 1.0 / 20), 1e-12);
}
END_TEST

/* The decision on a hand-worked case: 30 replications, attainment 0.9 at
 * 95%: 30 of 30 runs bound it at 0.05^(1/30) = 0.90497 >= 0.9, 29 of 30 at
 * 0.8514 (the k = n - 1 bound) < 0.9, so a count is feasible exactly when
 * all 30 of its runs meet the limit.  Brute force over replicas 1..5 at
 * the 30 seeds: the plan's row is the smallest count whose runs all met
 * it; its met share is 1 and its bound 0.05^(1/30).  Too few replications
 * for the target are refused naming the least that can show it. */
START_TEST(attainment_decision_hand_worked)
{
	ck_assert(aiwi_plan_attainment_lcb(29, 30, 0.95) < 0.9);
	int want = 0;
	for (int r = 1; r <= 5 && !want; r++) {
		size_t met = 0;
		for (int k = 0; k < 30; k++) {
			char rs[8], seed[16];
			snprintf(rs, sizeof rs, "%d", r);
			snprintf(seed, sizeof seed, "%d", 11 + k);
			aiw_sim *sim;
			ck_assert_int_eq(aiw_sim_create(&sim, 1), AIW_OK);
			AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim, SCEN, "test"));
			AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "inference.chat.autoscaler", "none"));
			AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "inference.chat.replicas", rs));
			AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.seed", seed));
			AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.duration", "20s"));
			AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
			met += aiwi_test_metric(sim, "inference.chat.ttft_p99_s") <= 0.12;
			aiw_sim_free(sim);
		}
		if (met == 30)
			want = r;
	}
	ck_assert_int_gt(want, 1); /* the case is not trivial */
	aiw_plan *p;
	ck_assert_int_eq(aiw_plan_create(&p, NULL, SCEN, "chat"), AIW_OK);
	ck_assert_int_eq(aiw_plan_set(p, "ttft_p99", "0.12"), AIW_OK);
	ck_assert_int_eq(aiw_plan_set(p, "sim.duration", "20s"), AIW_OK);
	ck_assert_int_eq(aiw_plan_set(p, "attainment", "0.9"), AIW_OK);
	ck_assert_int_eq(aiw_plan_set(p, "confidence", "0.95"), AIW_OK);
	ck_assert_int_eq(aiw_plan_set(p, "replications", "30"), AIW_OK);
	ck_assert_int_eq(aiw_plan_grid(p, "replicas", "1..5"), AIW_OK);
	ck_assert_msg(aiw_plan_run(p) == AIW_OK, "%s", aiw_plan_errmsg(p));
	double v[AIW_PLAN_NCOLUMNS];
	ck_assert_int_eq(aiw_plan_row(p, 0, v, AIW_PLAN_NCOLUMNS, NULL, NULL), AIW_OK);
	ck_assert_int_eq((int)v[AIW_PLAN_REPLICAS], want);
	ck_assert(v[AIW_PLAN_MET_SHARE] == 1);
	ck_assert_double_eq_tol(v[AIW_PLAN_ATTAINMENT_LCB], pow(0.05, 1.0 / 30), 1e-12);
	aiw_plan_free(p);
	/* 10 replications cannot show 0.9 at 95% (0.05^(1/10) = 0.741) */
	ck_assert_int_eq(aiw_plan_create(&p, NULL, SCEN, "chat"), AIW_OK);
	ck_assert_int_eq(aiw_plan_set(p, "ttft_p99", "0.12"), AIW_OK);
	ck_assert_int_eq(aiw_plan_set(p, "attainment", "0.9"), AIW_OK);
	ck_assert_int_eq(aiw_plan_set(p, "replications", "10"), AIW_OK);
	ck_assert_int_eq(aiw_plan_grid(p, "replicas", "1..5"), AIW_OK);
	ck_assert_int_eq(aiw_plan_run(p), AIW_EINVAL);
	ck_assert_msg(strstr(aiw_plan_errmsg(p), "replications from 29"), "%s", aiw_plan_errmsg(p));
	aiw_plan_free(p);
	/* so can the re-check's 10 (its criterion is the search's) */
	ck_assert_int_eq(aiw_plan_create(&p, NULL, SCEN, "chat"), AIW_OK);
	ck_assert_int_eq(aiw_plan_set(p, "ttft_p99", "0.12"), AIW_OK);
	ck_assert_int_eq(aiw_plan_set(p, "attainment", "0.9"), AIW_OK);
	ck_assert_int_eq(aiw_plan_set(p, "replications", "30"), AIW_OK);
	ck_assert_int_eq(aiw_plan_set(p, "recheck", "1"), AIW_OK);
	ck_assert_int_eq(aiw_plan_grid(p, "replicas", "1..5"), AIW_OK);
	ck_assert_int_eq(aiw_plan_run(p), AIW_EINVAL);
	ck_assert_msg(strstr(aiw_plan_errmsg(p), "recheck_replications from 29"), "%s",
	              aiw_plan_errmsg(p));
	aiw_plan_free(p);
	/* settings out of range: named with the value and the range */
	ck_assert_int_eq(aiw_plan_create(&p, NULL, SCEN, "chat"), AIW_OK);
	ck_assert_int_eq(aiw_plan_set(p, "attainment", "1"), AIW_ERANGE);
	ck_assert_msg(strstr(aiw_plan_errmsg(p), "attainment = 1 out of range"), "%s",
	              aiw_plan_errmsg(p));
	ck_assert_int_eq(aiw_plan_set(p, "confidence", "0.4"), AIW_ERANGE);
	ck_assert_msg(strstr(aiw_plan_errmsg(p), "above 0.5"), "%s", aiw_plan_errmsg(p));
	ck_assert_int_eq(aiw_plan_set(p, "attainment", "x"), AIW_EPARSE);
	ck_assert_int_eq(aiw_plan_set(p, "train_tokens", "1e12"), AIW_OK);
	ck_assert_int_eq(aiw_plan_set(p, "ttft_p99", "1"), AIW_OK);
	ck_assert_int_eq(aiw_plan_grid(p, "replicas", "1"), AIW_OK);
	ck_assert_int_eq(aiw_plan_run(p), AIW_EINVAL); /* a serving plan */
	aiw_plan_free(p);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* aggregated vs disaggregated serving                                       */
/* ------------------------------------------------------------------------ */
static const char SCEN4[] = "[sim]\nseed = 3\nduration = 1min\nsample_interval = 10s\n"
                            "[inference chat]\ngpu = H100-SXM\ngpus_per_replica = 1\n"
                            "model_params = 13e9\ntraffic = poisson\nrate = 12/s\n"
                            "prompt_tokens = lognormal(median=512,sigma=0.5)\n"
                            "output_tokens = lognormal(median=128,sigma=0.5)\nreplicas = 1\n"
                            "decode_fleet = dec\n"
                            "[inference dec]\ngpu = H100-SXM\ngpus_per_replica = 1\n"
                            "model_params = 13e9\ndisaggregation = decode\nreplicas = 1\n";
#define NR4 6
#define TTFT4 0.4
#define TPOT4 0.04

static aiw_plan *new_plan4(const char *obj, const char *max_gpus, const char *jobs)
{
	aiw_plan *p;
	ck_assert_int_eq(aiw_plan_create(&p, NULL, SCEN4, "chat"), AIW_OK);
	ck_assert_int_eq(aiw_plan_set(p, "ttft_p99", "0.4"), AIW_OK);
	ck_assert_int_eq(aiw_plan_set(p, "tpot_p99", "0.04"), AIW_OK);
	ck_assert_int_eq(aiw_plan_set(p, "objective", obj), AIW_OK);
	ck_assert_int_eq(aiw_plan_set(p, "max_gpus", max_gpus), AIW_OK);
	ck_assert_int_eq(aiw_plan_set(p, "jobs", jobs), AIW_OK);
	ck_assert_int_eq(aiw_plan_grid(p, "disaggregation", "off,on"), AIW_OK);
	ck_assert_int_eq(aiw_plan_grid(p, "decode_replicas", "1,2"), AIW_OK);
	ck_assert_int_eq(aiw_plan_grid(p, "replicas", "1..6"), AIW_OK);
	return p;
}

static aiw_plan *plan4(const char *obj, const char *max_gpus, const char *jobs)
{
	aiw_plan *p = new_plan4(obj, max_gpus, jobs);
	ck_assert_msg(aiw_plan_run(p) == AIW_OK, "%s", aiw_plan_errmsg(p));
	return p;
}

/* The pair's cost per million tokens: both pools' cost over the prefill
 * pool's prompts and first tokens and the decode pool's further tokens. */
static double pair_cost(aiw_sim *sim)
{
	return (aiwi_test_metric(sim, "inference.chat.cost_usd") +
	        aiwi_test_metric(sim, "inference.dec.cost_usd")) /
	       (aiwi_test_metric(sim, "inference.chat.tokens_in") +
	        aiwi_test_metric(sim, "inference.chat.tokens_out") +
	        aiwi_test_metric(sim, "inference.dec.tokens_out")) * 1e6;
}

/* Every candidate of disaggregation {off, on} x decode_replicas {1, 2} x
 * replicas 1..6 (off: the decode pool at 0 replicas, one candidate per
 * count: 18) simulated: the plan counts 18 candidates, its rows are each
 * combination's smallest count meeting both limits (TTFT of the prefill
 * pool, TPOT of the decode pool when disaggregated), its best row the
 * grid's optimum for cost per million tokens (both pools' cost), GPUs (both
 * pools') and peak power, with and without a GPU cap; every row re-runs
 * from its snippet to its metrics bit for bit; an aggregated row's cost is
 * the fleet's own cost_per_mtok_blended_usd (to rounding); 1 and 2 threads
 * write the same CSV; the grid has both kinds of rows (the comparison is
 * made). */
START_TEST(disaggregation_against_brute_force)
{
	/* combination k: 0 off, 1 on with 1 decode replica, 2 on with 2 */
	static bf B[3][NR4];
	for (size_t k = 0; k < 3; k++)
		for (int r = 1; r <= NR4; r++) {
			char rs[8];
			snprintf(rs, sizeof rs, "%d", r);
			const char *sets[][2] = {{"inference.chat.autoscaler", "none"},
			                         {"inference.chat.disaggregation", k ? "prefill" : "off"},
			                         {"inference.dec.replicas", k == 0 ? "0" : k == 1 ? "1" : "2"},
			                         {"inference.chat.replicas", rs}};
			aiw_sim *sim;
			ck_assert_int_eq(aiw_sim_create(&sim, 1), AIW_OK);
			AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim, SCEN4, "test"));
			for (size_t i = 0; i < 4; i++)
				AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, sets[i][0], sets[i][1]));
			AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
			bf *x = &B[k][r - 1];
			x->gpus = r + (double)k;
			x->ttft = aiwi_test_metric(sim, "inference.chat.ttft_p99_s");
			x->tpot = aiwi_test_metric(sim, k ? "inference.dec.tpot_p99_s"
			                                  : "inference.chat.tpot_p99_s");
			x->cost = pair_cost(sim);
			x->peak = aiwi_test_metric(sim, "site.power_peak_w");
			if (k == 0) /* aggregated: the fleet's own figure */
				ck_assert(fabs(x->cost / aiwi_test_metric(
				                             sim, "inference.chat.cost_per_mtok_blended_usd") -
				               1) < 1e-12);
			aiw_sim_free(sim);
		}
	const char *objs[] = {"cost_per_mtok", "gpus", "peak_power"};
	const char *caps[] = {"none", "3"};
	bool seen_on = false, seen_off = false;
	for (size_t o = 0; o < 3; o++)
		for (size_t cp = 0; cp < 2; cp++) {
			double cap = cp ? 3 : INFINITY;
			aiw_plan *p = plan4(objs[o], caps[cp], "1");
			size_t s[AIW_PLAN_NSTATS];
			aiw_plan_stats(p, s, AIW_PLAN_NSTATS);
			ck_assert_uint_eq(s[AIW_PLAN_STAT_CANDIDATES], 3 * NR4);
			double best = INFINITY;
			int want_r[3];
			size_t want_rows = 0;
			for (size_t k = 0; k < 3; k++) {
				want_r[k] = 0;
				for (int r = 1; r <= NR4; r++) {
					const bf *x = &B[k][r - 1];
					if (!(x->ttft <= TTFT4 && x->tpot <= TPOT4) || x->gpus > cap)
						continue;
					best = fmin(best, o == 0 ? x->cost : o == 1 ? x->gpus : x->peak);
					if (!want_r[k])
						want_r[k] = r;
				}
				want_rows += want_r[k] > 0;
			}
			ck_assert(isfinite(best));
			ck_assert_uint_eq(s[AIW_PLAN_STAT_ROWS], want_rows);
			for (size_t i = 0; i < s[AIW_PLAN_STAT_ROWS]; i++) {
				double v[AIW_PLAN_NCOLUMNS];
				const char *gpu, *snip;
				ck_assert_int_eq(aiw_plan_row(p, i, v, AIW_PLAN_NCOLUMNS, &gpu, &snip),
				                 AIW_OK);
				size_t k = v[AIW_PLAN_DISAGGREGATED] ? (size_t)v[AIW_PLAN_DECODE_REPLICAS] : 0;
				ck_assert(k < 3);
				seen_on = seen_on || k > 0;
				seen_off = seen_off || k == 0;
				ck_assert_msg(want_r[k] > 0 && v[AIW_PLAN_REPLICAS] == want_r[k],
				              "combination %zu: plan %g replicas, brute force %d", k,
				              v[AIW_PLAN_REPLICAS], want_r[k]);
				const bf *x = &B[k][want_r[k] - 1];
				ck_assert(v[AIW_PLAN_TTFT_P99_S] == x->ttft);
				ck_assert(v[AIW_PLAN_TPOT_P99_S] == x->tpot);
				ck_assert(v[AIW_PLAN_COST_PER_MTOK_USD] == x->cost);
				ck_assert(v[AIW_PLAN_GPUS] == x->gpus);
				ck_assert(v[AIW_PLAN_DECODE_GPUS] == (double)k);
				if (i == 0)
					ck_assert_msg(v[AIW_PLAN_OBJECTIVE] == best,
					              "%s: plan %.17g, brute force %.17g", objs[o],
					              v[AIW_PLAN_OBJECTIVE], best);
				aiw_sim *sim = rerun_in(SCEN4, snip);
				ck_assert(aiwi_test_metric(sim, "inference.chat.ttft_p99_s") ==
				          v[AIW_PLAN_TTFT_P99_S]);
				ck_assert(pair_cost(sim) == v[AIW_PLAN_COST_PER_MTOK_USD]);
				ck_assert(aiwi_test_metric(sim, "site.power_peak_w") ==
				          v[AIW_PLAN_POWER_PEAK_W]);
				aiw_sim_free(sim);
			}
			aiw_plan_free(p);
		}
	ck_assert(seen_on && seen_off);
	/* 1 and 2 threads: the same bytes */
	char path[2][64];
	for (int k = 0; k < 2; k++) {
		aiw_plan *p = plan4("cost_per_mtok", "none", k ? "2" : "1");
		snprintf(path[k], sizeof path[k], "test_plan4_%d_%d.csv", (int)getpid(), k);
		ck_assert_int_eq(aiw_plan_write_csv(p, path[k]), AIW_OK);
		aiw_plan_free(p);
	}
	char *a = slurp(path[0]), *b = slurp(path[1]);
	ck_assert_str_eq(a, b);
	free(a);
	free(b);
	unlink(path[0]);
	unlink(path[1]);
	/* refusals: a value, an axis without its decode pool */
	aiw_plan *p;
	ck_assert_int_eq(aiw_plan_create(&p, NULL, SCEN4, "chat"), AIW_OK);
	ck_assert_int_eq(aiw_plan_grid(p, "disaggregation", "off,maybe"), AIW_EINVAL);
	ck_assert(strstr(aiw_plan_errmsg(p), "maybe") != NULL);
	ck_assert_int_eq(aiw_plan_grid(p, "decode_replicas", "0"), AIW_ERANGE);
	ck_assert_int_eq(aiw_plan_set(p, "ttft_p99", "0.4"), AIW_OK);
	ck_assert_int_eq(aiw_plan_grid(p, "decode_replicas", "1,2"), AIW_OK);
	ck_assert_int_eq(aiw_plan_grid(p, "replicas", "1..2"), AIW_OK);
	ck_assert_int_eq(aiw_plan_run(p), AIW_EINVAL); /* no disaggregation axis */
	ck_assert(strstr(aiw_plan_errmsg(p), "decode_replicas") != NULL);
	aiw_plan_free(p);
	ck_assert_int_eq(aiw_plan_create(&p, NULL, SCEN, "chat"), AIW_OK);
	ck_assert_int_eq(aiw_plan_set(p, "ttft_p99", "0.4"), AIW_OK);
	ck_assert_int_eq(aiw_plan_grid(p, "disaggregation", "off,on"), AIW_OK);
	ck_assert_int_eq(aiw_plan_grid(p, "replicas", "1..2"), AIW_OK);
	ck_assert_int_eq(aiw_plan_run(p), AIW_EINVAL); /* no decode_fleet */
	ck_assert(strstr(aiw_plan_errmsg(p), "decode_fleet") != NULL);
	aiw_plan_free(p);
}
END_TEST

/* The grid split in parts (aiw_plan_run_part, aiw_plan_merge; what the MPI
 * command does across processes): 1, 2 and 4 parts (4: more parts than some
 * axes' values; the parts given in reverse order) write the same CSV as
 * aiw_plan_run, with a re-check too; the refusals. */
START_TEST(parts_same_bytes)
{
	char ref[64], got[64];
	snprintf(ref, sizeof ref, "test_plan_parts_%d_ref.csv", (int)getpid());
	snprintf(got, sizeof got, "test_plan_parts_%d.csv", (int)getpid());
	aiw_plan *p = new_plan4("cost_per_mtok", "none", "1");
	ck_assert_int_eq(aiw_plan_set(p, "recheck", "1"), AIW_OK);
	ck_assert_int_eq(aiw_plan_set(p, "recheck_replications", "2"), AIW_OK);
	ck_assert_msg(aiw_plan_run(p) == AIW_OK, "%s", aiw_plan_errmsg(p));
	ck_assert_int_eq(aiw_plan_write_csv(p, ref), AIW_OK);
	size_t sref[AIW_PLAN_NSTATS];
	aiw_plan_stats(p, sref, AIW_PLAN_NSTATS);
	aiw_plan_free(p);
	char *a = slurp(ref);
	const size_t NP[] = {1, 2, 4};
	for (size_t t = 0; t < 3; t++) {
		size_t np = NP[t];
		void *bytes[4];
		size_t lens[4];
		aiw_plan *q[4];
		for (size_t k = 0; k < np; k++) {
			q[k] = new_plan4("cost_per_mtok", "none", k % 2 ? "2" : "1");
			ck_assert_int_eq(aiw_plan_set(q[k], "recheck", "1"), AIW_OK);
			ck_assert_int_eq(aiw_plan_set(q[k], "recheck_replications", "2"), AIW_OK);
			ck_assert_msg(aiw_plan_run_part(q[k], k, np, &bytes[k], &lens[k]) == AIW_OK, "%s",
			              aiw_plan_errmsg(q[k]));
		}
		/* the parts in reverse order, merged on the last part's plan */
		const void *rev[4];
		size_t rlen[4];
		for (size_t k = 0; k < np; k++) {
			rev[k] = bytes[np - 1 - k];
			rlen[k] = lens[np - 1 - k];
		}
		aiw_plan *m = q[np - 1];
		ck_assert_int_eq(aiw_plan_merge(m, rev, rlen, np), AIW_OK);
		ck_assert_int_eq(aiw_plan_merge(m, rev, rlen, np), AIW_ESTATE);
		ck_assert_int_eq(aiw_plan_write_csv(m, got), AIW_OK);
		char *b = slurp(got);
		ck_assert_str_eq(a, b);
		free(b);
		size_t s[AIW_PLAN_NSTATS];
		aiw_plan_stats(m, s, AIW_PLAN_NSTATS);
		for (size_t k = 0; k < AIW_PLAN_NSTATS; k++)
			ck_assert_uint_eq(s[k], sref[k]);
		if (np == 2) {
			/* a part missing, one given twice, a truncated one */
			aiw_plan *x = new_plan4("cost_per_mtok", "none", "1");
			void *xb;
			size_t xl;
			ck_assert_int_eq(aiw_plan_merge(x, rev, rlen, np), AIW_ESTATE); /* no part run */
			ck_assert_int_eq(aiw_plan_run_part(x, 2, 2, &xb, &xl), AIW_ERANGE);
			ck_assert_int_eq(aiw_plan_run_part(x, 0, 2, &xb, &xl), AIW_OK);
			const void *two[2] = {xb, xb};
			size_t tl[2] = {xl, xl};
			ck_assert_int_eq(aiw_plan_merge(x, two, tl, 2), AIW_EINVAL);
			ck_assert_int_eq(aiw_plan_merge(x, two, tl, 1), AIW_EINVAL); /* 2 parts made */
			tl[0] = xl - 3;
			two[1] = bytes[1];
			tl[1] = lens[1];
			ck_assert_int_eq(aiw_plan_merge(x, two, tl, 2), AIW_EINVAL);
			ck_assert(strstr(aiw_plan_errmsg(x), "part 0") != NULL);
			free(xb);
			aiw_plan_free(x);
		}
		for (size_t k = 0; k < np; k++) {
			free(bytes[k]);
			aiw_plan_free(q[k]);
		}
	}
	free(a);
	unlink(ref);
	unlink(got);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("plan");
	TCase *tc = tcase_create("serving plan");
	tcase_set_timeout(tc, 900);
	tcase_add_test(tc, assumption_holds_on_grid);
	tcase_add_test(tc, optimum_gpus);
	tcase_add_test(tc, optimum_cost);
	tcase_add_test(tc, optimum_energy_capped);
	tcase_add_test(tc, optimum_power_budget);
	tcase_add_test(tc, rows_rerun_from_snippets);
	tcase_add_test(tc, same_output_one_and_two_threads);
	tcase_add_test(tc, empty_set_says_why);
	tcase_add_test(tc, bad_arguments);
	tcase_add_test(tc, recheck_at_further_seeds);
	tcase_add_test(tc, progress_and_stop);
	tcase_add_test(tc, further_axes_against_brute_force);
	tcase_add_test(tc, autoscaler_target_against_brute_force);
	tcase_add_test(tc, attainment_bound_hand_computed);
	tcase_add_test(tc, attainment_decision_hand_worked);
	suite_add_tcase(s, tc);
	TCase *td = tcase_create("disaggregation");
	tcase_set_timeout(td, 900);
	tcase_add_test(td, disaggregation_against_brute_force);
	tcase_add_test(td, parts_same_bytes);
	suite_add_tcase(s, td);
	return s;
}

AIW_TEST_MAIN(make_suite)
