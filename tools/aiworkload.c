/*
 * aiworkload - command-line front end of libaiworkload (minimal: run a
 * scenario and print its metrics; grows into run/params/sweep/plot).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aiworkload.h"

static int usage(void)
{
	fprintf(stderr, "usage: aiworkload run [SCENARIO.ini] [--set key=value ...]\n"
	                "       aiworkload params [PATTERN]\n");
	return 2;
}

static int cmd_params(const char *pat)
{
	size_t n;
	aiw_param_count(&n);
	for (size_t i = 0; i < n; i++) {
		const char *name, *type, *def, *unit, *choices, *doc;
		double lo, hi;
		aiw_param_info(i, &name, &type, &def, &unit, &lo, &hi, &choices, &doc);
		if (pat && !strstr(name, pat))
			continue;
		printf("%-40s %-9s %-12s %-8s %s\n", name, type, *def ? def : "-", unit, doc);
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "run";
	if (!strcmp(cmd, "params"))
		return cmd_params(argc > 2 ? argv[2] : NULL);
	if (strcmp(cmd, "run"))
		return usage();
	aiw_sim *sim;
	if (aiw_sim_create(&sim, 1) != AIW_OK)
		return 1;
	int rc = 0;
	for (int i = 2; i < argc && rc == 0; i++) {
		if (!strcmp(argv[i], "--set") && i + 1 < argc) {
			char *kv = argv[++i], *eq = strchr(kv, '=');
			if (!eq) {
				rc = usage();
				break;
			}
			*eq = 0;
			if (aiw_sim_set(sim, kv, eq + 1) != AIW_OK) {
				fprintf(stderr, "aiworkload: %s\n", aiw_sim_errmsg(sim));
				rc = 2;
			}
		} else if (aiw_sim_load_file(sim, argv[i]) != AIW_OK) {
			fprintf(stderr, "aiworkload: %s\n", aiw_sim_errmsg(sim));
			rc = 2;
		}
	}
	if (rc == 0 && aiw_sim_run(sim) != AIW_OK) {
		fprintf(stderr, "aiworkload: %s\n", aiw_sim_errmsg(sim));
		rc = 1;
	}
	if (rc == 0) {
		size_t n;
		aiw_sim_metric_count(sim, &n);
		for (size_t i = 0; i < n; i++) {
			const char *name;
			double v;
			aiw_sim_metric_name(sim, i, &name);
			aiw_sim_metric(sim, name, &v);
			printf("%-45s %.6g\n", name, v);
		}
	}
	aiw_sim_free(sim);
	return rc;
}
