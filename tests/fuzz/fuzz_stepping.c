/* fuzz_stepping - libFuzzer harness for the progress and stepping API: a
 * small scenario (a fleet, picked by the first byte among continuous,
 * dynamic and spot variants) is run once with aiw_sim_run, then again in
 * aiw_sim_run_until steps of random lengths (from sub-millisecond to hours)
 * with progress intervals changed between steps, some below the 1e-6 s
 * bound (refused) and some tiny.  Every step must return, every metric but
 * compute_utilization and tensor_activity must equal the single run's bit
 * for bit (those within the reordering bound of aiw_sim_run_until(3)), and
 * the progress
 * callback must come at most once per event. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aiworkload.h"

static const char *const SCENARIOS[] = {
	"[sim]\nduration = 20min\nsample_interval = 1min\n"
	"[inference a]\nrate = 4/s\nreplicas = 2\n",
	"[sim]\nduration = 20min\nsample_interval = 90s\n"
	"[inference a]\nrate = 3/s\nreplicas = 2\nbatching = dynamic\n"
	"[training t]\ngpus = 16\nmodel_params = 1e9\ntokens_per_step = 1e6\n",
	"[sim]\nduration = 20min\nsample_interval = 1min\n"
	"[inference a]\nrate = 2/s\nreplicas = 2\nautoscaler = hpa\nmin_replicas = 1\n"
	"max_replicas = 4\nspot_fraction = 0.5\n"
	"[inference b]\nrate = 1/s\nreplicas = 1\ntimeout = 30s\n",
};
#define NS (sizeof SCENARIOS / sizeof *SCENARIOS)

static int on_progress(aiw_sim *sim, double now, double end, void *payload)
{
	(void)sim, (void)now, (void)end;
	++*(unsigned long *)payload;
	return 0;
}

static bool reordered(const char *name)
{
	static const char *const SUM[] = {"compute_utilization", "tensor_activity",
	                                  "dram_activity"};
	size_t n = strlen(name);
	for (size_t i = 0; i < sizeof SUM / sizeof *SUM; i++) {
		size_t k = strlen(SUM[i]);
		if (n >= k && strcmp(name + n - k, SUM[i]) == 0)
			return true;
	}
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	const char *ini = SCENARIOS[data[0] % NS];
	aiw_sim *a, *b;
	if (aiw_sim_create(&a, 3) != AIW_OK)
		return 0;
	if (aiw_sim_create(&b, 3) != AIW_OK) {
		aiw_sim_free(a);
		return 0;
	}
	if (aiw_sim_load_string(a, ini, "fuzz.ini") != AIW_OK ||
	    aiw_sim_load_string(b, ini, "fuzz.ini") != AIW_OK || aiw_sim_run(a) != AIW_OK) {
		fprintf(stderr, "scenario: %s\n", aiw_sim_errmsg(a));
		abort();
	}
	double end = 0;
	aiw_sim_metric(a, "sim.time_s", &end);
	unsigned long calls = 0;
	double t = 0;
	for (size_t i = 1; i + 1 < size && t < end; i += 2) {
		/* a step from 2^-20 s to about 2^12 s, and sometimes a progress change */
		double step = ldexp(1.0 + data[i] / 256.0, (int)(data[i] % 33) - 20);
		t += step;
		uint8_t p = data[i + 1];
		if (p < 64) {
			static const double every[] = {0, 1e-9, 1e-6, 1e-3, 0.7, 60, 1e-300, 3600};
			aiw_status st = aiw_sim_set_progress(b, on_progress, &calls, every[p % 8]);
			bool refused = every[p % 8] > 0 && every[p % 8] < 1e-6;
			if ((st == AIW_ERANGE) != refused) {
				fprintf(stderr, "set_progress(%g): %s\n", every[p % 8], aiw_sim_errmsg(b));
				abort();
			}
		} else if (p < 72) {
			aiw_sim_set_progress(b, NULL, NULL, 0);
		}
		if (aiw_sim_run_until(b, t) != AIW_OK) {
			fprintf(stderr, "run_until(%.17g): %s\n", t, aiw_sim_errmsg(b));
			abort();
		}
	}
	if (aiw_sim_run(b) != AIW_OK) {
		fprintf(stderr, "run: %s\n", aiw_sim_errmsg(b));
		abort();
	}
	double events = 0;
	aiw_sim_metric(b, "sim.events", &events);
	if ((double)calls > events) {
		fprintf(stderr, "%lu progress calls for %g events\n", calls, events);
		abort();
	}
	size_t n = 0, m = 0;
	aiw_sim_metric_count(a, &n);
	aiw_sim_metric_count(b, &m);
	if (n != m)
		abort();
	for (size_t i = 0; i < n; i++) {
		const char *name;
		double x, y;
		aiw_sim_metric_name(a, i, &name);
		aiw_sim_metric(a, name, &x);
		if (aiw_sim_metric(b, name, &y) != AIW_OK)
			abort();
		bool same = memcmp(&x, &y, sizeof x) == 0 || (isnan(x) && isnan(y));
		if (!same && reordered(name) && fabs(x - y) <= 1.2e-10 * fabs(x))
			same = true;
		if (!same) {
			fprintf(stderr, "%s: %.17g in one run, %.17g stepped\n", name, x, y);
			abort();
		}
	}
	aiw_sim_free(a);
	aiw_sim_free(b);
	return 0;
}
