/*
 * scenario.c - `aiworkload scenario`: prints the built-in default
 * scenario (aiw_default_scenario, lib/site/default_site.c).
 */
#include "common.h"

#include <stdlib.h>

int cli_scenario(int argc, char **argv)
{
	const cli_cmd who = {cli_prog, "scenario", false};
	const char **ops = calloc(argc > 0 ? (size_t)argc : 1, sizeof *ops);
	if (!ops) {
		cli_errorf("out of memory");
		return EXIT_FAIL;
	}
	size_t nops = 0;
	bool help = false;
	int rc = cli_parse_options(&who, argc, argv, 2, NULL, 0, ops, &nops, &help);
	const char *first = nops ? ops[0] : NULL;
	free(ops);
	if (rc)
		return rc;
	if (help) {
		printf("usage: aiworkload scenario\n\nPrint the built-in default scenario "
		       "(examples/scenarios/mixed-site.ini),\nwhich `aiworkload run` runs without a "
		       "scenario file.\n");
		return cli_flush_stdout();
	}
	if (first)
		return cli_cmd_usage_error(&who, "takes no arguments ('%s')", first);
	fputs(aiw_default_scenario(), stdout);
	return cli_flush_stdout();
}
