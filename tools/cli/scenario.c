/*
 * scenario.c - `aiworkload scenario`: prints the built-in default
 * scenario (aiw_default_scenario, lib/site/default_site.c).
 */
#include "common.h"

int cli_scenario(int argc, char **argv)
{
	(void)argv;
	if (argc > 2)
		return cli_usage_error("scenario takes no arguments");
	fputs(aiw_default_scenario(), stdout);
	return cli_flush_stdout();
}
