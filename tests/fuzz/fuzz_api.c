/* fuzz_api - libFuzzer harness: random parameter sets applied through the
 * public API (names from the registry, values from a small dictionary of
 * hostile and ordinary texts), then a short run.  Checks that a run either
 * fails cleanly, with a message, or keeps its conservation laws (requests;
 * energy between the site's power curve and its energy metric). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aiworkload.h"
#include "core/limits.h"

static const char *const VALUES[] = {
	"0", "1", "-1", "2", "8", "32", "1024", "1e308", "-1e308", "nan", "inf", "1e-12",
	"0.5", "100y", "1e12/s", "10/s", "1ms", "1h", "80GB", "700W", "3.35TB/s", "auto",
	"none", "", "exp(1)", "lognormal(0,0.5)", "lognormal(median=1024,sigma=0.8)",
	"uniform(10s,30s)", "const(0)", "normal(0,1)", "pareto(1,0.5)", "ring", "tree",
	"hierarchical", "poisson", "diurnal", "bursty", "continuous", "dynamic", "hpa",
	"predictive", "H100-SXM", "L4", "MI300X", "nosuchgpu", "true", "false", "1e9",
	"0:1kW,1h:2kW",
	/* values the work and memory limits (lib/core/limits.c) must catch before a run */
	"1e-300", "1e9/s", "100000", "4096", "1e7", "const(1e-300)", "kpa", "schedule",
	"0h:2, 8h:10", "1e-6", "exp(1e-300)"};
#define NV (sizeof VALUES / sizeof *VALUES)
static const char *const INSTANCES[] = {"a", "b"};

/* The site's energy from its power curve, integrated over every sample tick
 * (the sample callback sees every point; with sim.series_keep = N the
 * copy-out holds only the last N, so it cannot be integrated from 0). */
struct energy {
	double joules, prev;
	long col; /* index of site.power_w among the curves, -1 until found */
};
static void on_sample(aiw_sim *sim, double t, const double *v, size_t n, void *payload)
{
	struct energy *e = payload;
	if (e->col < 0) {
		for (size_t i = 0; i < n; i++) {
			const char *name;
			if (aiw_sim_series_name(sim, i, &name) == AIW_OK && !strcmp(name, "site.power_w"))
				e->col = (long)i;
		}
		if (e->col < 0)
			return;
	}
	e->joules += v[e->col] * (t - e->prev);
	e->prev = t;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	aiw_sim *sim;
	if (aiw_sim_create(&sim, 7) != AIW_OK)
		return 0;
	size_t np = 0;
	aiw_param_count(&np);
	aiw_sim_set(sim, "sim.duration", "900s");
	for (size_t i = 0; i + 2 < size && i < 96; i += 3) {
		const char *name;
		aiw_param_info(((size_t)data[i] << 8 | data[i + 1]) % np, &name, NULL, NULL, NULL,
		               NULL, NULL, NULL, NULL);
		char full[256];
		const char *ph = strstr(name, ".NAME.");
		if (ph)
			snprintf(full, sizeof full, "%.*s.%s.%s", (int)(ph - name), name,
			         INSTANCES[data[i + 2] & 1], ph + 6);
		else
			snprintf(full, sizeof full, "%s", name);
		if (!strcmp(full, "sim.duration") || !strcmp(full, "sim.sample_interval"))
			continue; /* bounded run length */
		aiw_sim_set(sim, full, VALUES[(data[i + 2] >> 1) % NV]);
	}
	/* runs the limits accept can still take hours (1e10 work items): above
	 * 1e6 (seconds under ASan and coverage, against the 20 s timeout) they
	 * are skipped; refusals above the limits are fast and always run */
	aiwi_limits_est e;
	if (aiwi_limits_estimate(sim, &e) == AIW_OK &&
	    ((e.work > 1e6 && e.work <= AIW_LIMIT_WORK) ||
	     (e.memory_bytes > 5e8 && e.memory_bytes <= AIW_LIMIT_MEMORY_BYTES))) {
		aiw_sim_free(sim);
		return 0;
	}
	struct energy en = {0, 0, -1};
	aiw_sim_set_sample_callback(sim, on_sample, &en);
	aiw_status st = aiw_sim_run(sim);
	if (st != AIW_OK && !aiw_sim_errmsg(sim)[0])
		__builtin_trap(); /* a refusal without a message is a finding */
	if (st == AIW_OK) {
		/* energy: the site's power curve integrates to its energy metric */
		double kwh = 0;
		if (en.col >= 0 && aiw_sim_metric(sim, "site.energy_kwh", &kwh) == AIW_OK) {
			double ref = kwh * 3.6e6;
			if (isfinite(ref) && fabs(en.joules - ref) > 1e-6 * fabs(ref) + 1e-6)
				__builtin_trap(); /* energy lost between curve and metric */
		}
		/* conservation for every inference component present */
		size_t nm = 0;
		aiw_sim_metric_count(sim, &nm);
		for (size_t i = 0; i < nm; i++) {
			const char *m;
			aiw_sim_metric_name(sim, i, &m);
			size_t l = strlen(m);
			if (l > 17 && !strcmp(m + l - 17, ".requests_arrived")) {
				char base[200];
				snprintf(base, sizeof base, "%.*s", (int)(l - 17), m);
				double a, c, d, f;
				char k[256];
				aiw_sim_metric(sim, m, &a);
				snprintf(k, sizeof k, "%s.requests_completed", base);
				if (aiw_sim_metric(sim, k, &c) != AIW_OK)
					continue;
				snprintf(k, sizeof k, "%s.requests_dropped", base);
				aiw_sim_metric(sim, k, &d);
				snprintf(k, sizeof k, "%s.requests_in_flight", base);
				aiw_sim_metric(sim, k, &f);
				if (a != c + d + f)
					__builtin_trap(); /* a lost request is a finding */
			}
		}
	}
	aiw_sim_free(sim);
	return 0;
}
