/* fuzz_scenario - libFuzzer harness: arbitrary bytes as a scenario file,
 * then (when it loads) a short run.  Must never crash, hang or leak. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "aiworkload.h"
#include "core/limits.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 1 << 16)
		return 0;
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	aiw_sim *sim;
	if (aiw_sim_create(&sim, 1) == AIW_OK) {
		if (aiw_sim_load_string(sim, text, "fuzz.ini") == AIW_OK) {
			/* keep runs short whatever the input asked for */
			double d = 0, si = 0;
			aiw_sim_get_double(sim, "sim.duration", &d);
			aiw_sim_get_double(sim, "sim.sample_interval", &si);
			if (d > 600)
				aiw_sim_set(sim, "sim.duration", "600s");
			if (si < 1)
				aiw_sim_set(sim, "sim.sample_interval", "1s");
			/* runs the limits accept can still take hours (1e10 work items): above
			 * 1e6 (seconds under ASan and coverage, against the 20 s timeout) they
			 * are skipped; refusals above the limits are fast and always run */
			aiwi_limits_est e;
			if (aiwi_limits_estimate(sim, &e) == AIW_OK &&
			    ((e.work > 1e6 && e.work <= AIW_LIMIT_WORK) ||
			     (e.memory_bytes > 5e8 && e.memory_bytes <= AIW_LIMIT_MEMORY_BYTES))) {
				aiw_sim_free(sim);
				free(text);
				return 0;
			}
			aiw_sim_run(sim);
			size_t n = 0;
			aiw_sim_metric_count(sim, &n);
		}
		aiw_sim_free(sim);
	}
	free(text);
	return 0;
}
