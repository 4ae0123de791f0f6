/* fuzz_cli - libFuzzer harness: the command line of `aiworkload run`,
 * `plot` and `sweep`.  The input is an argument vector: its first byte picks
 * the command, the rest splits at NUL bytes into arguments.  The run and
 * plot parser's result is then applied to a simulation holding the
 * built-in scenario (every --set, --seed, --duration, --sample-interval:
 * where a fixed buffer once took a --set name), without running it; the
 * scenario files named are not opened.  Built by tests/fuzz/run.sh with
 * tools/cli/ (all but main.c). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "sweep.h"

#define MAX_ARGS 64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 16384)
		return 0;
	char *text = malloc(size); /* the arguments, NUL-terminated */
	char *argv[MAX_ARGS + 2];
	if (!text)
		return 0;
	memcpy(text, data + 1, size - 1);
	text[size - 1] = 0;
	static const char *const CMDS[] = {"run", "plot", "sweep"};
	int cmd = data[0] % 3, argc = 0;
	argv[argc++] = (char *)CMDS[cmd];
	for (size_t i = 0; i < size - 1 && argc < MAX_ARGS + 1;) {
		argv[argc++] = text + i;
		i += strlen(text + i) + 1;
	}
	argv[argc] = NULL;
	if (cmd == 2) {
		cli_sweep_opts o;
		cli_sweep_parse(argc, argv, &o, true);
		cli_sweep_opts_free(&o);
	} else {
		cli_run_opts o;
		if (cli_run_parse(argc, argv, 1, cmd == 1, &o) == 0 && !o.help) {
			aiw_sim *sim;
			o.nscenarios = 0; /* the built-in scenario; no file is read */
			if (aiw_sim_create(&sim, 1) == AIW_OK) {
				cli_run_configure(sim, &o);
				aiw_sim_free(sim);
			}
		}
		cli_run_opts_free(&o);
	}
	free(text);
	return 0;
}
