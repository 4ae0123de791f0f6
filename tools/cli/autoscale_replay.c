/*
 * autoscale_replay.c - `aiworkload autoscale-replay --policy hpa|kpa
 * [--set KEY=VALUE ...] METRICS.csv [--out FILE]`: the replica count an
 * autoscaler would have chosen at each sync of a recorded metric series,
 * with the reason (aiw_autoscale_replay).
 */
#include "common.h"

#include <stdlib.h>
#include <string.h>

static void replay_usage(FILE *f)
{
	fprintf(f,
	        "usage: aiworkload autoscale-replay --policy hpa|kpa [--set KEY=VALUE ...]\n"
	        "                                   METRICS.csv [--out FILE.csv]\n"
	        "\n"
	        "Replay an autoscaler's decisions on recorded metrics: CSV columns time,\n"
	        "ready, metric (per pod) or total, and optionally unready (starts),\n"
	        "missing, current, stable, panic (kpa: desired, active_for,\n"
	        "inactive_for, activating_for, proxy_for, activator; aiw_autoscale_replay(3)).\n"
	        "Prints time,replicas,reason at each sync (--out: to FILE.csv, which may not\n"
	        "be METRICS.csv).  KEY: an autoscaling parameter of [inference]\n"
	        "(hpa_tolerance, hpa_scale_up_policies, kpa_stable_window, replicas, ...).\n"
	        "\n"
	        "Exit status: 0 success, 2 bad usage or invalid input, 1 other failure.\n");
}

int cli_autoscale_replay(int argc, char **argv)
{
	const char *policy = NULL, *out = NULL;
	size_t room = argc > 0 ? (size_t)argc : 1, nset = 0, nops = 0;
	const char **set = calloc(room, sizeof *set), **ops = calloc(room, sizeof *ops);
	int rc = 0;
	if (!set || !ops) {
		cli_errorf("out of memory");
		free(set);
		free(ops);
		return EXIT_FAIL;
	}
	const cli_opt opts[] = {
		{"--policy", CLI_OPT_ONE, &policy, NULL, NULL},
		{"--out", CLI_OPT_ONE, &out, NULL, NULL},
		{"--set", CLI_OPT_MANY, NULL, set, &nset},
	};
	const cli_cmd who = {cli_prog, "autoscale-replay", false};
	bool help = false;
	rc = cli_parse_options(&who, argc, argv, 2, opts, sizeof opts / sizeof *opts, ops, &nops,
	                       &help);
	if (!rc && help) {
		replay_usage(stdout);
		rc = cli_flush_stdout();
	} else if (!rc) {
		if (!policy)
			rc = cli_cmd_usage_error(&who, "--policy hpa|kpa is required");
		else if (nops == 0)
			rc = cli_cmd_usage_error(&who, "no METRICS.csv given");
		else if (nops > 1)
			rc = cli_cmd_usage_error(&who, "one METRICS.csv only ('%s', '%s')", ops[0], ops[1]);
	}
	if (!rc && !help && out) {
		cli_files o = {0}, in = {0};
		rc = cli_files_add(&o, "--out", out) || cli_files_add(&in, "the metrics", ops[0])
		         ? EXIT_FAIL : cli_check_outputs(&who, &o, &in);
		cli_files_free(&o);
		cli_files_free(&in);
	}
	if (!rc && !help) {
		char err[1024];
		fflush(stdout);
		aiw_status st = aiw_autoscale_replay(policy, set, nset, ops[0], out ? out : "-",
		                                     NULL, err, sizeof err);
		if (st != AIW_OK) {
			cli_errorf("%s", err);
			rc = st == AIW_EIO || st == AIW_ENOMEM ? EXIT_FAIL : EXIT_USAGE;
		}
	}
	free(set);
	free(ops);
	return rc;
}
