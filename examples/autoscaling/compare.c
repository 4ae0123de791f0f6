/* compare.c - run examples/autoscaling/diurnal-48h.ini under every replica
 * policy (and the HPA with half of its replicas on spot) and print what each
 * costs and what it does to latency, against the fixed fleet the scenario
 * compares with.  Public API only.
 *
 *   cc compare.c -o compare $(pkg-config --cflags --libs aiworkload)
 *   ./compare [diurnal-48h.ini] [seed]
 */
#include <aiworkload.h>

#include <stdio.h>
#include <stdlib.h>

static double metric(aiw_sim *sim, const char *key)
{
	char name[128];
	double v = 0.0 / 0.0;
	snprintf(name, sizeof name, "inference.chat.%s", key);
	aiw_sim_metric(sim, name, &v);
	return v;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "diurnal-48h.ini";
	const char *seed = argc > 2 ? argv[2] : "1";
	static const struct {
		const char *label, *policy, *extra, *value;
		int spot;
	} runs[] = {
	    {"hpa", "hpa", NULL, NULL, 0},
	    {"kpa", "kpa", NULL, NULL, 0},
	    {"kpa, 5 min scale-down delay", "kpa", "inference.chat.kpa_scale_down_delay", "5min",
	     0},
	    {"predictive (profile)", "predictive", NULL, NULL, 0},
	    {"predictive (history)", "predictive", "inference.chat.predictive_source", "history",
	     0},
	    {"schedule", "schedule", NULL, NULL, 0},
	    {"hpa, 50 % spot", "hpa", "inference.chat.spot_fraction", "0.5", 1},
	};
	printf("| policy | GPU-h | cost USD | energy kWh | SLO attainment | TTFT P99 s | "
	       "cold starts | replicas peak (mean) |\n");
	printf("|---|---:|---:|---:|---:|---:|---:|---|\n");
	for (size_t i = 0; i < sizeof runs / sizeof *runs; i++) {
		aiw_sim *sim;
		if (aiw_sim_create(&sim, 1) != AIW_OK)
			return 1;
		aiw_status st = aiw_sim_load_file(sim, path);
		if (st == AIW_OK)
			st = aiw_sim_set(sim, "sim.seed", seed);
		if (st == AIW_OK)
			st = aiw_sim_set(sim, "inference.chat.autoscaler", runs[i].policy);
		if (st == AIW_OK && runs[i].extra)
			st = aiw_sim_set(sim, runs[i].extra, runs[i].value);
		if (st == AIW_OK)
			st = aiw_sim_run(sim);
		if (st != AIW_OK) {
			fprintf(stderr, "%s: %s\n", runs[i].label, aiw_sim_errmsg(sim));
			aiw_sim_free(sim);
			return 1;
		}
		if (i == 0) /* the fixed twin is the same in every run */
			printf(
			    "| fixed, %g replicas | %.0f | %.0f | %.0f | %.5f | %.3f | 0 | %g |\n",
			    metric(sim, "fixed_replicas"), metric(sim, "fixed_gpu_hours"),
			    metric(sim, "fixed_cost_usd"), metric(sim, "fixed_energy_kwh"),
			    metric(sim, "fixed_slo_attainment"), metric(sim, "fixed_ttft_p99_s"),
			    metric(sim, "fixed_replicas"));
		double cost = metric(sim, "fixed_cost_usd") - metric(sim, "cost_saved_usd");
		printf("| %s | %.0f | %.0f | %.0f | %.5f | %.3f | %.0f | %g (%.1f) |\n",
		       runs[i].label, metric(sim, "gpu_hours"), cost,
		       metric(sim, "fixed_energy_kwh") - metric(sim, "energy_saved_kwh"),
		       metric(sim, "slo_attainment"), metric(sim, "ttft_p99_s"),
		       metric(sim, "cold_starts"), metric(sim, "replicas_peak"),
		       metric(sim, "replicas_mean"));
		if (runs[i].spot)
			printf(
			    "|   spot: %.0f preemptions (%.1f expected), %.0f requests re-queued, "
			    "cost saved %.0f %% | | | | | | | |\n",
			    metric(sim, "spot_preemptions"),
			    metric(sim, "spot_preemptions_expected"),
			    metric(sim, "requests_requeued"),
			    100 * metric(sim, "cost_saved_fraction"));
		aiw_sim_free(sim);
	}
	return 0;
}
