/*
 * autoscale_replay.c - `aiworkload autoscale-replay --policy hpa|kpa
 * [--set KEY=VALUE ...] METRICS.csv [--out FILE]`: the replica count an
 * autoscaler would have chosen at each sync of a recorded metric series,
 * with the reason (aiw_autoscale_replay).
 */
#include "common.h"

#include <stdlib.h>
#include <string.h>

int cli_autoscale_replay(int argc, char **argv)
{
	const char *policy = NULL, *in = NULL, *out = NULL;
	const char **set = calloc((size_t)argc, sizeof *set);
	size_t nset = 0;
	if (!set) {
		cli_errorf("out of memory");
		return EXIT_FAIL;
	}
	int rc = 0;
	for (int i = 2; i < argc && !rc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			printf("usage: aiworkload autoscale-replay --policy hpa|kpa [--set KEY=VALUE ...]\n"
			       "                                   METRICS.csv [--out FILE]\n"
			       "Replay an autoscaler's decisions on recorded metrics: CSV columns time,\n"
			       "ready, metric (per pod) or total, and optionally unready (starts),\n"
			       "missing, current, stable, panic (kpa: desired, active_for,\n"
			       "inactive_for, activating_for, proxy_for, activator; aiw_autoscale_replay(3)).\n"
			       "Prints time,replicas,reason at each\n"
			       "sync.  KEY: an autoscaling parameter of [inference] (hpa_tolerance,\n"
			       "hpa_scale_up_policies, kpa_stable_window, replicas, ...).\n");
			free(set);
			return 0;
		}
		if (!strcmp(a, "--policy") || !strcmp(a, "--set") || !strcmp(a, "--out")) {
			if (i + 1 >= argc) {
				rc = cli_usage_error("autoscale-replay: %s needs a value", a);
				break;
			}
			const char *v = argv[++i];
			if (!strcmp(a, "--policy"))
				policy = v;
			else if (!strcmp(a, "--out"))
				out = v;
			else
				set[nset++] = v;
		} else if (a[0] == '-' && a[1]) {
			rc = cli_usage_error("autoscale-replay: unknown option '%s'", a);
		} else if (in) {
			rc = cli_usage_error("autoscale-replay: one METRICS.csv only ('%s', '%s')", in, a);
		} else {
			in = a;
		}
	}
	if (!rc && !policy)
		rc = cli_usage_error("autoscale-replay: --policy hpa|kpa is required");
	if (!rc && !in)
		rc = cli_usage_error("autoscale-replay: no METRICS.csv given");
	if (!rc) {
		char err[1024];
		fflush(stdout);
		aiw_status st = aiw_autoscale_replay(policy, set, nset, in, out ? out : "-",
		                                     NULL, err, sizeof err);
		if (st != AIW_OK) {
			cli_errorf("%s", err);
			rc = st == AIW_EIO || st == AIW_ENOMEM ? EXIT_FAIL : EXIT_USAGE;
		}
	}
	free(set);
	return rc;
}
