/*
 * bench/mm1 - the M/M/1 peer benchmark: rho = 0.9, 1,000,000 customers,
 * exponential service (mean 1 s), one replica, no batching, through the
 * public API (an [inference] component with `service = exp(1s)`), against
 * the same model in SimPy (bench/mm1_simpy.py) timed in the same run.
 *
 * The library run covers the arrivals of 1e6 / lambda simulated seconds
 * (about 1e6 customers); customers/s counts the ones that completed.  The
 * mean queue wait is printed next to the M/M/1 value rho / (mu - lambda) = 9 s
 * (at rho = 0.9 the sample mean of one run is within a few percent).
 *
 * The library run is repeated 5 times (the machine may be shared): the
 * best and the median wall times are printed, the speed-up uses the best.
 *
 * usage: bench/mm1 [customers] [--no-simpy]
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "aiworkload.h"
#include "bench.h"

#ifndef AIW_SRCDIR
#define AIW_SRCDIR "."
#endif

int main(int argc, char **argv)
{
	long n = 1000000;
	int simpy = 1;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--no-simpy"))
			simpy = 0;
		else if ((n = strtol(argv[i], NULL, 10)) < 1) {
			fprintf(stderr, "usage: mm1 [customers] [--no-simpy]\n");
			return 2;
		}
	}
	const double rho = 0.9, mu = 1.0, lambda = rho * mu;
	double duration = (double)n / lambda;
	char text[512];
	/* one sample at the end: the curves are not what is measured */
	snprintf(text, sizeof text,
	         "[sim]\nduration = %.17g\nsample_interval = %.17g\n"
	         "[inference mm1]\nreplicas = 1\nbatching = none\nrouter = central\n"
	         "traffic = poisson\nrate = %.17g\nservice = exp(%.17gs)\n",
	         duration, duration, lambda, 1 / mu);
	enum { REPEAT = 5 };
	double walls[REPEAT], done = 0, wq = 0, events = 0;
	for (int k = 0; k < REPEAT; k++) {
		double t0 = bench_clock_s(CLOCK_MONOTONIC);
		aiw_sim *sim;
		if (aiw_sim_create(&sim, 42) != AIW_OK)
			return 1;
		if (aiw_sim_load_string(sim, text, "mm1") != AIW_OK || aiw_sim_run(sim) != AIW_OK) {
			fprintf(stderr, "mm1: %s\n", aiw_sim_errmsg(sim));
			aiw_sim_free(sim);
			return 1;
		}
		walls[k] = bench_clock_s(CLOCK_MONOTONIC) - t0; /* creation, parsing and the run */
		done = bench_metric(sim, "inference.mm1.requests_completed");
		wq = bench_metric(sim, "inference.mm1.queue_wait_mean_s");
		events = bench_metric(sim, "sim.events");
		aiw_sim_free(sim);
	}
	for (int i = 1; i < REPEAT; i++) /* insertion sort of 5 */
		for (int j = i; j > 0 && walls[j] < walls[j - 1]; j--) {
			double x = walls[j];
			walls[j] = walls[j - 1];
			walls[j - 1] = x;
		}
	double wall = walls[0];
	printf("libaiworkload_mm1 customers=%.0f wall_s=%.3f (median of %d: %.3f) customers_per_s=%.0f "
	       "events=%.0f mean_wait_s=%.4f (theory=%.4f)\n",
	       done, wall, REPEAT, walls[REPEAT / 2], done / wall, events, wq, rho / (mu - lambda));
	if (!simpy)
		goto out;

	/* the same model in SimPy, timed by the script itself */
	char cmd[4600];
	snprintf(cmd, sizeof cmd, "python3 '%s/bench/mm1_simpy.py' %ld 2>&1", AIW_SRCDIR, n);
	FILE *p = popen(cmd, "r");
	if (!p) {
		printf("simpy: cannot run %s\n", cmd);
		goto out;
	}
	char line[512];
	double simpy_rate = NAN;
	while (fgets(line, sizeof line, p)) {
		fputs(line, stdout);
		const char *k = strstr(line, "customers_per_s=");
		if (k)
			simpy_rate = strtod(k + strlen("customers_per_s="), NULL);
	}
	int rc = pclose(p);
	if (rc != 0 || !(simpy_rate > 0)) {
		printf("simpy: not available (exit %d); no speed-up to report\n", rc);
		goto out;
	}
	printf("speedup %.1fx (goal >= 50x)\n", done / wall / simpy_rate);
out:
	print_machine();
	return 0;
}
