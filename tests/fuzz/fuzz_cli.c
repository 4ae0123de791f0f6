/* fuzz_cli - libFuzzer harness: the command line of `aiworkload run`,
 * `plot`, `sweep` and `calibrate`.  The input is an argument vector: its first byte picks
 * the command, the rest splits at NUL bytes into arguments.  The run and
 * plot parser's result is then applied to a simulation holding the
 * built-in scenario (every --set, --seed, --duration, --sample-interval:
 * where a fixed buffer once took a --set name), without running it; the
 * scenario files named are not opened.  `calibrate` runs whole, in a
 * private temporary directory where the argument "@T" names a small
 * measured table (every 20th row of Splitwise's), with its output on
 * /dev/null; an input with an argument holding '/' is skipped, so that
 * nothing it writes (--out) lands outside that directory.  Built by tests/fuzz/run.sh with
 * tools/cli/ (all but main.c). */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "sweep.h"

#define MAX_ARGS 64

/* Every 20th row of data/splitwise-perf/perf_model.csv, times to 3 decimals. */
static const char TABLE[] =
	"model,hardware,prompt_size,batch_size,token_size,peak_power,average_power,prompt_time,token_time,e2e_time,tensor_parallel\n"
	"llama2-70b,h100-80gb,512,2,128,0.0,0.0,154.811,37.469,4917.347,2\n"
	"llama2-70b,h100-80gb,512,8,128,0.0,0.0,605.421,40.460,5751.427,2\n"
	"llama2-70b,h100-80gb,512,32,128,0.0,0.0,2390.859,52.256,9044.612,2\n"
	"llama2-70b,h100-80gb,128,1,128,0.0,0.0,47.287,37.274,4783.814,2\n"
	"llama2-70b,h100-80gb,512,1,128,0.0,0.0,82.850,36.999,4785.681,2\n"
	"llama2-70b,h100-80gb,2048,1,128,0.0,0.0,312.491,37.366,5064.700,2\n"
	"llama2-70b,h100-80gb,8192,1,128,0.0,0.0,1343.046,37.758,6181.681,2\n"
	"llama2-70b,h100-80gb,512,1,256,0.0,0.0,83.804,37.318,9605.420,2\n"
	"llama2-70b,h100-80gb,512,1,1024,0.0,0.0,83.299,37.149,28810.425,2\n"
	"llama2-70b,h100-80gb,512,1,4096,0.0,0.0,84.945,37.349,35920.175,2\n"
	"llama2-70b,h100-80gb,512,1,128,0.0,0.0,53.342,29.488,3801.809,8\n"
	"llama2-70b,h100-80gb,512,4,128,0.0,0.0,131.903,31.953,4194.752,8\n"
	"llama2-70b,h100-80gb,512,16,128,0.0,0.0,769.897,34.351,5142.549,8\n"
	"llama2-70b,h100-80gb,512,64,128,0.0,0.0,2915.515,47.971,9040.988,8\n"
	"llama2-70b,h100-80gb,256,1,128,0.0,0.0,52.030,28.894,3724.543,8\n"
	"llama2-70b,h100-80gb,1024,1,128,0.0,0.0,77.551,30.067,3899.932,8\n"
	"llama2-70b,h100-80gb,4096,1,128,0.0,0.0,322.070,30.586,4221.658,8\n"
	"llama2-70b,h100-80gb,512,1,128,0.0,0.0,53.342,29.488,3801.809,8\n"
	"llama2-70b,h100-80gb,512,1,512,0.0,0.0,53.213,30.657,15729.829,8\n"
	"llama2-70b,h100-80gb,512,1,2048,0.0,0.0,54.632,30.838,26900.584,8\n"
	"llama2-70b,h100-80gb,512,1,8192,0.0,0.0,53.274,30.974,12358.578,8\n"
	"llama2-70b,h100-80gb-pcap,512,8,128,0.0,0.0,787.047,40.460,5751.427,2\n"
	"llama2-70b,h100-80gb-pcap,128,1,128,0.0,0.0,61.474,37.274,4783.814,2\n"
	"llama2-70b,h100-80gb-pcap,2048,1,128,0.0,0.0,406.239,37.366,5064.700,2\n"
	"llama2-70b,h100-80gb-pcap,512,1,256,0.0,0.0,108.945,37.318,9605.420,2\n"
	"llama2-70b,h100-80gb-pcap,512,1,4096,0.0,0.0,110.429,37.349,35920.175,2\n"
	"llama2-70b,h100-80gb-pcap,512,4,128,0.0,0.0,171.474,31.953,4194.752,8\n"
	"llama2-70b,h100-80gb-pcap,512,64,128,0.0,0.0,3790.170,47.971,9040.988,8\n"
	"llama2-70b,h100-80gb-pcap,1024,1,128,0.0,0.0,100.817,30.067,3899.932,8\n"
	"llama2-70b,h100-80gb-pcap,512,1,128,0.0,0.0,69.344,29.488,3801.809,8\n"
	"llama2-70b,h100-80gb-pcap,512,1,2048,0.0,0.0,71.022,30.838,26900.584,8\n"
;

/* Once: a private directory to work in, the table in it, stdout discarded. */
static bool setup(void)
{
	static int state; /* 0 not yet, 1 ready, -1 failed */
	if (state)
		return state > 0;
	state = -1;
	char dir[] = "/tmp/aiwi_fuzz_cliXXXXXX";
	if (!mkdtemp(dir) || chdir(dir) != 0)
		return false;
	FILE *f = fopen("t.csv", "w");
	if (!f)
		return false;
	bool ok = fputs(TABLE, f) >= 0;
	ok = fclose(f) == 0 && ok;
	if (!ok || !freopen("/dev/null", "w", stdout))
		return false;
	state = 1;
	return true;
}

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
	static const char *const CMDS[] = {"run", "plot", "sweep", "calibrate"};
	int cmd = data[0] % 4, argc = 0;
	argv[argc++] = (char *)CMDS[cmd];
	for (size_t i = 0; i < size - 1 && argc < MAX_ARGS + 1;) {
		argv[argc++] = text + i;
		i += strlen(text + i) + 1;
	}
	argv[argc] = NULL;
	if (cmd == 3) {
		/* argv[0] the program, argv[1] the command: options from 2 */
		static char table[] = "t.csv";
		char *cargv[MAX_ARGS + 3];
		int cargc = 0;
		bool skip = !setup();
		cargv[cargc++] = "aiworkload";
		for (int i = 0; i < argc && !skip; i++) {
			skip = strchr(argv[i], '/') != NULL;
			cargv[cargc++] = strcmp(argv[i], "@T") == 0 ? table : argv[i];
		}
		cargv[cargc] = NULL;
		if (!skip)
			cli_calibrate(cargc, cargv);
		free(text);
		return 0;
	}
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
