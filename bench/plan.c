/*
 * bench/plan.c - the serving plan (aiw_plan_*) against an exhaustive sweep
 * of the same grid: candidates pruned and simulated, CPU time of each, and
 * a check that both find the same optimum.
 *
 *   bench/plan [MAX_REPLICAS] [OBJECTIVE] [JOBS] [PP]   (defaults: 128, gpus, 1, 1)
 *
 * Workload: one 70e9-parameter fleet, Poisson traffic at 40 requests/s
 * (prompts lognormal, median 1024 tokens; outputs median 256), 2 simulated
 * minutes per candidate, P99 TTFT <= 1 s and P99 TPOT <= 100 ms; grid GPU
 * (H100-SXM, H200, A100-80GB, L40S, MI300X) x gpus_per_replica (1, 2, 4,
 * 8) x weight_bits (8, 16) x replicas (1 .. MAX_REPLICAS): 5,120
 * candidates at the default; PP, a comma-separated list of pipeline
 * degrees (e.g. 1,2), adds the pp axis (bench/plan 64 gpus 1 1,2: 5,120
 * candidates, 5 x 4 x 2 x 2 x 64).  The exhaustive sweep runs every candidate
 * (those the fleet's start check refuses cost a refused start) through the
 * public API and takes the feasible one of least objective.  CPU time is
 * the process's (CLOCK_PROCESS_CPUTIME_ID); the exhaustive sweep runs in
 * one thread, the plan on JOBS threads (its CPU time is then the sum).
 */
#include <stdlib.h>

#include "aiworkload.h"
#include "bench.h"

static const char SCEN[] =
    "[sim]\nseed = 1\nduration = 2min\nsample_interval = 1min\n"
    "[inference chat]\ngpu = H100-SXM\ngpus_per_replica = 1\nmodel_params = 70e9\n"
    "traffic = poisson\nrate = 40/s\nprompt_tokens = lognormal(median=1024,sigma=0.6)\n"
    "output_tokens = lognormal(median=256,sigma=0.6)\n";
static const char *const GPUS[] = {"H100-SXM", "H200", "A100-80GB", "L40S", "MI300X"};
static const char *const TPS[] = {"1", "2", "4", "8"};
static const char *const BITS[] = {"8", "16"};
#define NG (sizeof GPUS / sizeof *GPUS)
#define NT (sizeof TPS / sizeof *TPS)
#define NB (sizeof BITS / sizeof *BITS)
#define TTFT 1.0
#define TPOT 0.1

static double objective_of(aiw_sim *sim, const char *obj, double gpus)
{
	if (strcmp(obj, "gpus") == 0)
		return gpus;
	if (strcmp(obj, "energy") == 0)
		return bench_metric(sim, "site.energy_kwh");
	if (strcmp(obj, "peak_power") == 0)
		return bench_metric(sim, "site.power_peak_w");
	return bench_metric(sim, "inference.chat.cost_per_mtok_blended_usd");
}

int main(int argc, char **argv)
{
	int maxr = argc > 1 ? atoi(argv[1]) : 128;
	const char *obj = argc > 2 ? argv[2] : "gpus";
	const char *jobs = argc > 3 ? argv[3] : "1";
	const char *pps = argc > 4 ? argv[4] : NULL;
	char ppbuf[64], *pp[8];
	size_t npp = 0;
	if (pps) {
		snprintf(ppbuf, sizeof ppbuf, "%s", pps);
		for (char *t = strtok(ppbuf, ","); t && npp < 8; t = strtok(NULL, ","))
			pp[npp++] = t;
	}
	if (maxr < 1 || maxr > 100000 || (pps && npp == 0)) {
		fprintf(stderr, "usage: bench/plan [MAX_REPLICAS] [OBJECTIVE] [JOBS] [PP,PP...]\n");
		return 2;
	}
	if (npp == 0)
		pp[npp++] = NULL;
	char rr[32];
	snprintf(rr, sizeof rr, "1..%d", maxr);
	/* the plan */
	double c0 = bench_clock_s(CLOCK_PROCESS_CPUTIME_ID), w0 = bench_clock_s(CLOCK_MONOTONIC);
	aiw_plan *p;
	if (aiw_plan_create(&p, NULL, SCEN, "chat") != AIW_OK)
		return 1;
	char lim[2][32];
	snprintf(lim[0], sizeof lim[0], "%g", TTFT);
	snprintf(lim[1], sizeof lim[1], "%g", TPOT);
	if (aiw_plan_set(p, "ttft_p99", lim[0]) || aiw_plan_set(p, "tpot_p99", lim[1]) ||
	    aiw_plan_set(p, "objective", obj) || aiw_plan_set(p, "jobs", jobs) ||
	    aiw_plan_grid(p, "gpu", "H100-SXM,H200,A100-80GB,L40S,MI300X") ||
	    aiw_plan_grid(p, "gpus_per_replica", "1,2,4,8") || aiw_plan_grid(p, "weight_bits", "8,16") ||
	    (pps && aiw_plan_grid(p, "pp", pps)) || aiw_plan_grid(p, "replicas", rr) ||
	    aiw_plan_run(p)) {
		fprintf(stderr, "plan: %s\n", aiw_plan_errmsg(p));
		return 1;
	}
	double c1 = bench_clock_s(CLOCK_PROCESS_CPUTIME_ID), w1 = bench_clock_s(CLOCK_MONOTONIC);
	size_t s[AIW_PLAN_NSTATS];
	aiw_plan_stats(p, s, AIW_PLAN_NSTATS);
	double best_plan = NAN;
	const char *gpu = "", *snip = "";
	double row[AIW_PLAN_NCOLUMNS];
	if (s[AIW_PLAN_STAT_ROWS] > 0 &&
	    aiw_plan_row(p, 0, row, AIW_PLAN_NCOLUMNS, &gpu, &snip) == AIW_OK)
		best_plan = row[AIW_PLAN_OBJECTIVE];
	/* the exhaustive sweep */
	double best = INFINITY;
	size_t runs = 0, refused = 0;
	for (size_t g = 0; g < NG; g++)
		for (size_t t = 0; t < NT; t++)
			for (size_t b = 0; b < NB; b++)
				for (size_t q = 0; q < npp; q++)
				for (int r = 1; r <= maxr; r++) {
					aiw_sim *sim;
					char rs[16];
					snprintf(rs, sizeof rs, "%d", r);
					if (aiw_sim_create(&sim, 1) != AIW_OK ||
					    aiw_sim_load_string(sim, SCEN, "bench") != AIW_OK ||
					    aiw_sim_set(sim, "inference.chat.autoscaler", "none") ||
					    aiw_sim_set(sim, "inference.chat.gpu", GPUS[g]) ||
					    aiw_sim_set(sim, "inference.chat.gpus_per_replica", TPS[t]) ||
					    aiw_sim_set(sim, "inference.chat.weight_bits", BITS[b]) ||
					    (pp[q] && aiw_sim_set(sim, "inference.chat.pp", pp[q])) ||
					    aiw_sim_set(sim, "inference.chat.replicas", rs)) {
						fprintf(stderr, "exhaustive: %s\n", aiw_sim_errmsg(sim));
						return 1;
					}
					runs++;
					if (aiw_sim_run(sim) != AIW_OK) {
						refused++;
					} else {
						double ttft = bench_metric(sim, "inference.chat.ttft_p99_s");
						double tpot = bench_metric(sim, "inference.chat.tpot_p99_s");
						double o = objective_of(sim, obj, r * atof(TPS[t]));
						if (ttft <= TTFT && tpot <= TPOT && o < best)
							best = o;
					}
					aiw_sim_free(sim);
				}
	double c2 = bench_clock_s(CLOCK_PROCESS_CPUTIME_ID), w2 = bench_clock_s(CLOCK_MONOTONIC);
	printf("serving plan, objective %s, %zu candidates (5 GPUs x 4 TP x 2 precisions x %zu "
	       "pp x %d replica counts)\n",
	       obj, s[AIW_PLAN_STAT_CANDIDATES], npp, maxr);
	printf("  plan: pruned %zu by memory, %zu by the GPU cap, %zu by the load bound, %zu by "
	       "the bisection; simulated %zu (%zu runs, the offline measurements included); rows "
	       "%zu\n",
	       s[AIW_PLAN_STAT_PRUNED_MEMORY], s[AIW_PLAN_STAT_PRUNED_CAP],
	       s[AIW_PLAN_STAT_PRUNED_LOAD], s[AIW_PLAN_STAT_PRUNED_BISECTION],
	       s[AIW_PLAN_STAT_SIMULATED], s[AIW_PLAN_STAT_RUNS], s[AIW_PLAN_STAT_ROWS]);
	printf("  plan:       %.3f s CPU, %.3f s wall (%s thread(s)); best %s = %.17g (%s)\n",
	       c1 - c0, w1 - w0, jobs, obj, best_plan, gpu);
	printf("  exhaustive: %.3f s CPU, %.3f s wall; %zu runs (%zu refused at the start); best "
	       "%s = %.17g\n",
	       c2 - c1, w2 - w1, runs, refused, obj, best);
	printf("  CPU ratio exhaustive / plan: %.1fx (goal >= 20x); same optimum: %s\n",
	       (c2 - c1) / (c1 - c0), best_plan == best ? "yes" : "NO");
	printf("  best row: ");
	for (const char *c = snip; *c; c++)
		putchar(*c == '\n' ? ' ' : *c);
	putchar('\n');
	print_machine();
	aiw_plan_free(p);
	return best_plan == best ? 0 : 1;
}
