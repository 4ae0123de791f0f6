/* fuzz_capacity - libFuzzer harness: the settings of aiw_inference_capacity
 * (`aiworkload capacity`'s options: "KEY=VALUE" strings, the input split at
 * NUL bytes, up to 16 of them) and the component's name (the first string)
 * on a small fleet of fixed service times.  Each call is stopped by its
 * progress callback after three runs, and inputs that set the span or the
 * request counts of a run (duration, min_requests, offline_requests) are
 * skipped: a valid large value only takes time, which is no finding.  The
 * refusals name the setting; the columns of an answer are checked for
 * their order (a passing rate below the failing one). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <aiworkload.h>

#define MAX_SETTINGS 16

static const char SCENARIO[] = "[sim]\nduration = 10min\n"
                               "[inference q]\nreplicas = 2\nservice = const(0.5s)\n"
                               "batching = none\nrouter = central\nrate = 1/s\n";

static int stop_after_three(size_t done, size_t max_runs, double rate, int verdict, void *payload)
{
	(void)max_runs, (void)rate, (void)verdict, (void)payload;
	return done >= 3;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 4096)
		return 0;
	char *text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = 0;
	const char *strs[MAX_SETTINGS + 1];
	size_t n = 0;
	for (size_t i = 0; i <= size && n < MAX_SETTINGS + 1;) {
		strs[n++] = text + i;
		i += strlen(text + i) + 1;
	}
	for (size_t k = 1; k < n; k++)
		if (!strncmp(strs[k], "duration", 8) || !strncmp(strs[k], "min_requests", 12) ||
		    !strncmp(strs[k], "offline_requests", 16)) {
			free(text);
			return 0;
		}
	aiw_sim *sim = NULL;
	if (aiw_sim_create(&sim, 3) == AIW_OK &&
	    aiw_sim_load_string(sim, SCENARIO, "fuzz.ini") == AIW_OK) {
		double out[AIW_CAPACITY_NCOLUMNS];
		/* the first string names the component ("" for the only fleet) */
		const char *comp = strs[0][0] ? strs[0] : NULL;
		aiw_status st = aiw_inference_capacity(sim, comp, strs + 1, n - 1, out,
		                                       AIW_CAPACITY_NCOLUMNS, stop_after_three, NULL);
		if (st == AIW_OK && out[AIW_CAPACITY_SERVER_RATE] > 0 &&
		    !(out[AIW_CAPACITY_SERVER_RATE] < out[AIW_CAPACITY_SERVER_RATE_FAILED]))
			abort(); /* a passing rate at or above the failing one */
		if (st != AIW_OK && st != AIW_ESTOPPED && !aiw_sim_errmsg(sim)[0])
			abort(); /* a refusal without a message */
	}
	aiw_sim_free(sim);
	free(text);
	return 0;
}
