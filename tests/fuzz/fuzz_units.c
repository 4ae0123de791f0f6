/* fuzz_units - libFuzzer harness: the unit parser for every kind, and the
 * distribution parser through a parameter of each distribution-typed kind. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aiworkload.h"

static const char *const KINDS[] = {"int",    "real",   "duration", "rate",  "size",
                                    "bandwidth", "power", "energy", "money", "flops"};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 4096)
		return 0;
	char *text = malloc(size);
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = 0;
	double x;
	char err[256];
	aiw_parse_value(KINDS[data[0] % 10], text, &x, err, sizeof err);
	/* distributions and every other typed parameter through the registry */
	aiw_sim *sim;
	if (aiw_sim_create(&sim, 1) == AIW_OK) {
		size_t n = 0;
		aiw_param_count(&n);
		if (n) {
			const char *name;
			aiw_param_info(data[0] % n, &name, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
			char full[256];
			const char *ph = strstr(name, ".NAME.");
			if (ph)
				snprintf(full, sizeof full, "%.*s.f.%s", (int)(ph - name), name, ph + 6);
			else
				snprintf(full, sizeof full, "%s", name);
			aiw_sim_set(sim, full, text);
		}
		aiw_sim_free(sim);
	}
	free(text);
	return 0;
}
