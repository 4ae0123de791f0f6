/*
 * bench/report_cost - the CPU that writing the report (aiw_sim_write_html)
 * and the OpenMetrics file (aiw_sim_write_openmetrics) adds to a run of
 * the built-in default day (the mixed site, one-minute curves), as a
 * ratio to the run's own CPU, measured in the same process: each round
 * runs the day, then writes both files (to TMPDIR or /tmp), each step
 * timed by the thread's CPU clock.  Goal: the writes add at most 20%.
 * The run snapshots the latency histograms at every tick for the
 * OpenMetrics file (sim.histogram_series = true, as --openmetrics sets
 * it): each round also runs the day without (the default), and the median
 * of the two runs' CPU ratio is what the snapshots cost.
 *
 * usage: bench/report_cost [ROUNDS]   (default 5)
 * Prints each round, the median ratio, and the machine.
 */
#include <aiworkload.h>

#include "bench.h"

#include <stdio.h>
#include <stdlib.h>

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 5;
	if (rounds < 1 || rounds > 1000) {
		fprintf(stderr, "usage: report_cost [ROUNDS 1..1000]\n");
		return 2;
	}
	const char *td = getenv("TMPDIR");
	char html[4096], om[4096];
	snprintf(html, sizeof html, "%s/aiw-report-cost.html", td && *td ? td : "/tmp");
	snprintf(om, sizeof om, "%s/aiw-report-cost.om", td && *td ? td : "/tmp");
	double *ratio = calloc((size_t)rounds, sizeof *ratio);
	double *snapr = calloc((size_t)rounds, sizeof *snapr);
	if (!ratio || !snapr)
		return 1;
	printf("round  run CPU s  report CPU s  openmetrics CPU s  (report+openmetrics)/run  "
	       "run/run without snapshots\n");
	for (int r = 0; r < rounds; r++) {
		aiw_sim *sim;
		if (aiw_sim_create(&sim, 1) != AIW_OK)
			return 1;
		if (aiw_sim_load_string(sim, aiw_default_scenario(), "default") != AIW_OK ||
		    aiw_sim_set(sim, "sim.histogram_series", "true") != AIW_OK) {
			fprintf(stderr, "%s\n", aiw_sim_errmsg(sim));
			return 1;
		}
		double t0 = bench_clock_s(CLOCK_THREAD_CPUTIME_ID);
		if (aiw_sim_run(sim) != AIW_OK) {
			fprintf(stderr, "%s\n", aiw_sim_errmsg(sim));
			return 1;
		}
		double t1 = bench_clock_s(CLOCK_THREAD_CPUTIME_ID);
		if (aiw_sim_write_html(sim, html) != AIW_OK) {
			fprintf(stderr, "%s\n", aiw_sim_errmsg(sim));
			return 1;
		}
		double t2 = bench_clock_s(CLOCK_THREAD_CPUTIME_ID);
		if (aiw_sim_write_openmetrics(sim, om, 1.8e9) != AIW_OK) {
			fprintf(stderr, "%s\n", aiw_sim_errmsg(sim));
			return 1;
		}
		double t3 = bench_clock_s(CLOCK_THREAD_CPUTIME_ID);
		ratio[r] = (t3 - t1) / (t1 - t0);
		aiw_sim *plain;
		if (aiw_sim_create(&plain, 1) != AIW_OK ||
		    aiw_sim_load_string(plain, aiw_default_scenario(), "default") != AIW_OK)
			return 1;
		double p0 = bench_clock_s(CLOCK_THREAD_CPUTIME_ID);
		if (aiw_sim_run(plain) != AIW_OK)
			return 1;
		double p1 = bench_clock_s(CLOCK_THREAD_CPUTIME_ID);
		snapr[r] = (t1 - t0) / (p1 - p0);
		aiw_sim_free(plain);
		aiw_sim_free(sim);
		printf("%5d  %9.3f  %12.4f  %17.4f  %24.3f  %.3f\n", r + 1, t1 - t0, t2 - t1, t3 - t2,
		       ratio[r], snapr[r]);
	}
	qsort(ratio, (size_t)rounds, sizeof *ratio, cmp);
	qsort(snapr, (size_t)rounds, sizeof *snapr, cmp);
	printf("median: writing the report and the OpenMetrics file adds %.1f%% to the run's CPU "
	       "(goal <= 20%%)\n",
	       100 * ratio[rounds / 2]);
	printf("median: the histogram snapshots make the run %.3fx its CPU without them\n",
	       snapr[rounds / 2]);
	remove(html);
	remove(om);
	free(ratio);
	free(snapr);
	print_machine();
	return 0;
}
