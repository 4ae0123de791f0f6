/*
 * aiworkload - command-line front end of libaiworkload.
 *
 *   aiworkload [run] [SCENARIO.ini ...] [options]   run, print a summary table
 *   aiworkload plot [SCENARIO.ini] -o FILE.svg       run, write the chart
 *   aiworkload sweep SCENARIO.ini --set N=V1,V2 ...  sweeps
 *   aiworkload params [PATTERN] [--man]              the parameter registry
 *   aiworkload catalog [GPU|LINK]                    built-in hardware
 *   aiworkload scenario                              print the built-in default
 *   aiworkload autoscale-replay --policy hpa|kpa METRICS.csv   replay decisions
 *   aiworkload calibrate FILE.csv [--gpu G]          fit serving times to measurements
 *   aiworkload capacity SCENARIO.ini [--ttft-p99 S]  offline and server capacity (MLPerf)
 *   aiworkload plan SCENARIO.ini --component NAME    the cheapest fleet meeting SLOs
 *
 * One file per command (common.h lists them).  Exit status: 0 success, 2 bad
 * usage or invalid scenario (the message names file:line or the parameter),
 * 1 any other failure (I/O, memory, limits).
 */
#include "common.h"

#include <string.h>

#include "sweep.h"

/* ======================================================================== */
int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "run";
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
		cli_usage(stdout);
		return cli_flush_stdout();
	}
	if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
		printf("aiworkload (libaiworkload) %s\n", aiw_version_string());
		return cli_flush_stdout();
	}
	if (strcmp(cmd, "sweep") == 0) /* sweep.c */
		return cli_sweep(argc - 1, argv + 1);
	if (strcmp(cmd, "capacity") == 0) /* capacity.c */
		return cli_capacity(argc, argv);
	if (strcmp(cmd, "plan") == 0) /* plan.c */
		return cli_plan(argc, argv);
	if (strcmp(cmd, "autoscale-replay") == 0) /* autoscale_replay.c */
		return cli_autoscale_replay(argc, argv);
	/* each command answers its own --help */
	if (strcmp(cmd, "run") == 0)
		return cli_run(argc, argv, 2, false);
	if (strcmp(cmd, "plot") == 0)
		return cli_run(argc, argv, 2, true);
	if (strcmp(cmd, "params") == 0)
		return cli_params(argc, argv);
	if (strcmp(cmd, "catalog") == 0)
		return cli_catalog(argc, argv);
	if (strcmp(cmd, "scenario") == 0)
		return cli_scenario(argc, argv);
	if (strcmp(cmd, "calibrate") == 0) /* calibrate.c */
		return cli_calibrate(argc, argv);
	/* `aiworkload FILE.ini ...` and `aiworkload --set ...` mean run */
	if (cmd[0] == '-' || cli_ends_with(cmd, ".ini"))
		return cli_run(argc, argv, 1, false);
	return cli_usage_error("unknown command '%s'", cmd);
}
