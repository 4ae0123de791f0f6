/*
 * capacity.c - `aiworkload capacity SCENARIO.ini`: an inference fleet's
 * offline throughput and the largest Poisson rate meeting P99 TTFT and
 * TPOT limits (MLPerf Inference's offline and server scenarios), through
 * aiw_inference_capacity.
 */
#include "common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void capacity_usage(FILE *f)
{
	fprintf(f,
	        "usage: aiworkload capacity [options] SCENARIO.ini\n"
	        "\n"
	        "Measure what one inference fleet of the scenario serves, as MLPerf Inference\n"
	        "does: offline, every request issued at t = 0 (requests, output and input\n"
	        "tokens per second to the last one); server, the largest Poisson rate at\n"
	        "which the P99 TTFT and the P99 TPOT stay within their limits, found by\n"
	        "bisection with the scenario's seed at every rate.  The fleet keeps its\n"
	        "`replicas` (no autoscaler); the scenario's other components are left out.\n"
	        "\n"
	        "options:\n"
	        "  --ttft-p99 S         P99 TTFT limit (default 2s, MLPerf Llama-2-70B; none)\n"
	        "  --tpot-p99 S         P99 TPOT limit (default 200ms; none)\n"
	        "  --component NAME     the [inference NAME] fleet (default: the only one)\n"
	        "  --duration D         shortest measured span of a rate (default 600s)\n"
	        "  --min-requests N     fewest arrivals per rate (default 270336, MLPerf's\n"
	        "                       count for a P99 at 99%% confidence)\n"
	        "  --offline-requests N requests issued at t = 0 (default 24576)\n"
	        "  --resolution R       relative width of the final bracket (default 0.01)\n"
	        "  --max-runs N         simulations per seed, the offline one included\n"
	        "                       (default 40)\n"
	        "  --seeds N            measure with N seeds, sim.seed + 0 .. N - 1, and print\n"
	        "                       the rates' mean and 95%% confidence interval; the\n"
	        "                       other figures are the median seed's (default 1)\n"
	        "  --set NAME=VALUE     set a parameter of the scenario first\n"
	        "  --seed N             sim.seed (the same at every rate)\n"
	        "  --progress, --no-progress\n"
	        "                       one line per run on standard error (default: when it\n"
	        "                       is a terminal)\n"
	        "\n"
	        "Exit status: 0 success, 2 bad usage or invalid scenario, 1 other failure.\n"
	        "See aiworkload(1) and aiw_inference_capacity(3).\n");
}

static int capacity_progress(size_t done, size_t max_runs, double rate, int verdict,
                             void *payload)
{
	(void)payload;
	fprintf(stderr, "capacity: run %zu/%zu: %s %.6g/s%s\n", done, max_runs,
	        verdict < 0 ? "offline" : "server", rate,
	        verdict < 0 ? "" : verdict ? " passes" : " fails");
	return 0;
}

/* "--opt VALUE" into the library's KEY=VALUE */
static bool add_setting(char **buf, const char **list, size_t *n, const char *key,
                        const char *value)
{
	size_t len = strlen(key) + strlen(value) + 2;
	char *s = malloc(len);
	if (!s)
		return false;
	snprintf(s, len, "%s=%s", key, value);
	buf[*n] = s;
	list[(*n)++] = s;
	return true;
}

int cli_capacity(int argc, char **argv)
{
	static const struct {
		const char *opt, *key;
	} OPTS[] = {{"--ttft-p99", "ttft_p99"},
	            {"--tpot-p99", "tpot_p99"},
	            {"--duration", "duration"},
	            {"--min-requests", "min_requests"},
	            {"--offline-requests", "offline_requests"},
	            {"--resolution", "resolution"},
	            {"--max-runs", "max_runs"},
	            {"--seeds", "seeds"}};
	enum { NOPTS = sizeof OPTS / sizeof *OPTS };
	char *owned[NOPTS];
	const char *settings[NOPTS], *vals[NOPTS];
	size_t nset = 0, nsets = 0, nops = 0, room = argc > 0 ? (size_t)argc : 1;
	const char *file = NULL, *component = NULL, *seed = NULL, *prog = NULL;
	const char **sets = calloc(room, sizeof *sets), **ops = calloc(room, sizeof *ops);
	int progress = -1, rc = 0;
	aiw_sim *sim = NULL;
	if (!sets || !ops) {
		cli_errorf("out of memory");
		rc = EXIT_FAIL;
		goto done;
	}
	cli_opt opts[NOPTS + 4];
	for (size_t k = 0; k < NOPTS; k++)
		opts[k] = (cli_opt){OPTS[k].opt, CLI_OPT_ONE, &vals[k], NULL, NULL};
	opts[NOPTS + 0] = (cli_opt){"--component", CLI_OPT_ONE, &component, NULL, NULL};
	opts[NOPTS + 1] = (cli_opt){"--set", CLI_OPT_MANY, NULL, sets, &nsets};
	opts[NOPTS + 2] = (cli_opt){"--seed", CLI_OPT_ONE, &seed, NULL, NULL};
	opts[NOPTS + 3] = (cli_opt){"--progress|--no-progress", CLI_OPT_FLAG, &prog, NULL, NULL};
	const cli_cmd who = {cli_prog, "capacity", false};
	bool help = false;
	rc = cli_parse_options(&who, argc, argv, 2, opts, NOPTS + 4, ops, &nops, &help);
	if (rc)
		goto done;
	if (help) {
		capacity_usage(stdout);
		rc = cli_flush_stdout();
		goto done;
	}
	for (size_t k = 0; k < NOPTS; k++)
		if (vals[k] && !add_setting(owned, settings, &nset, OPTS[k].key, vals[k])) {
			cli_errorf("out of memory");
			rc = EXIT_FAIL;
			goto done;
		}
	if (prog)
		progress = strcmp(prog, "--progress") == 0;
	if (nops > 1) {
		rc = cli_cmd_usage_error(&who, "one scenario only ('%s' and '%s')", ops[0], ops[1]);
		goto done;
	}
	if (nops == 0) {
		rc = cli_cmd_usage_error(&who, "no scenario given");
		goto done;
	}
	file = ops[0];
	if (progress < 0)
		progress = isatty(2);
	aiw_status st = aiw_sim_create(&sim, 1);
	if (st != AIW_OK) {
		cli_errorf("out of memory");
		rc = EXIT_FAIL;
		goto done;
	}
	if ((st = aiw_sim_load_file(sim, file)) != AIW_OK) {
		cli_errorf("%s", aiw_sim_errmsg(sim));
		rc = cli_exit_code(st);
		goto done;
	}
	for (size_t k = 0; k < nsets; k++) {
		const char *eq = strchr(sets[k], '=');
		char name[256], msg[512];
		if (!eq || eq == sets[k] || (size_t)(eq - sets[k]) >= sizeof name) {
			rc = cli_cmd_usage_error(&who, "--set expects NAME=VALUE, got '%s'", sets[k]);
			goto done;
		}
		memcpy(name, sets[k], (size_t)(eq - sets[k]));
		name[eq - sets[k]] = '\0';
		if (cli_undeclared_component(sim, name, NULL, 0, msg, sizeof msg)) {
			rc = cli_cmd_usage_error(&who, "--set %s: %s", name, msg);
			goto done;
		}
		if ((st = aiw_sim_set(sim, name, eq + 1)) != AIW_OK) {
			cli_errorf("capacity: --set %s: %s", sets[k], aiw_sim_errmsg(sim));
			rc = cli_exit_code(st);
			goto done;
		}
	}
	if (seed && (st = aiw_sim_set(sim, "sim.seed", seed)) != AIW_OK) {
		cli_errorf("capacity: --seed: %s", aiw_sim_errmsg(sim));
		rc = cli_exit_code(st);
		goto done;
	}
	if (!component) { /* the command's words for the library's "component is NULL" */
		size_t nc = 0, nfleets = 0;
		char names[256] = "";
		size_t len = 0;
		aiw_sim_component_count(sim, &nc);
		for (size_t k = 0; k < nc; k++) {
			const char *kind, *name;
			if (aiw_sim_component(sim, k, &kind, &name) == AIW_OK &&
			    strcmp(kind, "inference") == 0) {
				nfleets++;
				if (len < sizeof names)
					len += (size_t)snprintf(names + len, sizeof names - len, "%s%s",
					                        len ? ", " : "", name);
			}
		}
		if (nfleets > 1) {
			rc = cli_cmd_usage_error(&who, "%s has %zu inference fleets (%s): choose one "
			                     "with --component NAME",
			                     file, nfleets, names);
			goto done;
		}
	}
	double out[AIW_CAPACITY_NCOLUMNS];
	st = aiw_inference_capacity(sim, component, settings, nset, out, AIW_CAPACITY_NCOLUMNS,
	                            progress ? capacity_progress : NULL, NULL);
	if (st != AIW_OK) {
		cli_errorf("capacity: %s", aiw_sim_errmsg(sim));
		rc = cli_exit_code(st);
		goto done;
	}
	size_t nw = 0;
	if (aiw_sim_warning_count(sim, &nw) == AIW_OK)
		for (size_t k = 0; k < nw; k++) {
			const char *text;
			if (aiw_sim_warning(sim, k, &text) == AIW_OK)
				fprintf(stderr, "%s: warning: %s\n", cli_prog, text);
		}
	char a[64], b[64], c[64];
	printf("Capacity of %s%s%s\n", file, component ? ", fleet " : "", component ? component : "");
	if (isnan(out[AIW_CAPACITY_OFFLINE_REQUESTS])) {
		/* aiw_inference_capacity(3): conversations have no offline figure */
		printf("Offline: not measured (conversations: each turn follows the last one's "
		       "answer and a think time)\n");
	} else {
		printf("Offline (%.0f requests issued at t = 0, the last one ends at ",
		       out[AIW_CAPACITY_OFFLINE_REQUESTS]);
		cli_fmt_duration(a, sizeof a, out[AIW_CAPACITY_OFFLINE_MAKESPAN_S]);
		printf("%s)\n", a);
		printf("  requests/s              %.6g\n", out[AIW_CAPACITY_OFFLINE_REQUESTS_PER_S]);
		printf("  output tokens/s         %.6g\n", out[AIW_CAPACITY_OFFLINE_OUTPUT_TOKENS_PER_S]);
		printf("  input tokens/s          %.6g\n", out[AIW_CAPACITY_OFFLINE_INPUT_TOKENS_PER_S]);
	}
	const char *ttft = "2s", *tpot = "200ms";
	for (size_t k = 0; k < nset; k++) {
		if (strncmp(settings[k], "ttft_p99=", 9) == 0)
			ttft = settings[k] + 9;
		if (strncmp(settings[k], "tpot_p99=", 9) == 0)
			tpot = settings[k] + 9;
	}
	printf("Server (Poisson arrivals; limits: P99 TTFT %s, P99 TPOT %s)\n", ttft, tpot);
	double rate = out[AIW_CAPACITY_SERVER_RATE];
	if (isnan(rate)) {
		printf("  no rate passed within --max-runs (the lowest tried, %.6g/s, failed)\n",
		       out[AIW_CAPACITY_SERVER_RATE_FAILED]);
	} else if (!(rate > 0)) {
		printf("  no rate meets the limits (failed down to %.6g/s)\n",
		       out[AIW_CAPACITY_SERVER_RATE_FAILED]);
	} else if (isinf(out[AIW_CAPACITY_SERVER_RATE_FAILED])) {
		printf("  every rate tried passed, up to %.6g/s\n", rate);
	} else {
		printf("  largest rate passing    %.6g/s (fails at %.6g/s: resolution %.3g%%)\n", rate,
		       out[AIW_CAPACITY_SERVER_RATE_FAILED], 100 * out[AIW_CAPACITY_SERVER_RESOLUTION]);
		/* NaN: not measured (a sampled service time has no TPOT) */
		for (int k = 0; k < 2; k++) {
			double v = out[k ? AIW_CAPACITY_SERVER_TPOT_P99_S : AIW_CAPACITY_SERVER_TTFT_P99_S];
			char *dst = k ? b : a;
			if (isnan(v))
				snprintf(dst, sizeof a, "not measured");
			else
				cli_fmt_duration(dst, sizeof a, v);
		}
		printf("  TTFT P99                %s (%.3g%% over the limit)\n", a,
		       100 * out[AIW_CAPACITY_SERVER_TTFT_OVER]);
		printf("  TPOT P99                %s (%.3g%% over the limit)\n", b,
		       100 * out[AIW_CAPACITY_SERVER_TPOT_OVER]);
		printf("  output tokens/s         %.6g\n", out[AIW_CAPACITY_SERVER_OUTPUT_TOKENS_PER_S]);
		cli_fmt_duration(c, sizeof c, out[AIW_CAPACITY_SERVER_DURATION_S]);
		printf("  measured                %.0f requests over %s\n",
		       out[AIW_CAPACITY_SERVER_REQUESTS], c);
	}
	if (out[AIW_CAPACITY_SEEDS] > 1) {
		/* the seeds: sim.seed + 0 .. N - 1 */
		char sd[32] = "?";
		unsigned long long s0 = 0;
		if (aiw_sim_get(sim, "sim.seed", sd, sizeof sd) == AIW_OK)
			s0 = strtoull(sd, NULL, 10);
		double n = out[AIW_CAPACITY_SEEDS];
		printf("Over %.0f seeds (sim.seed %llu to %llu; the figures above: the median seed's)\n",
		       n, s0, s0 + (unsigned long long)n - 1);
		static const struct {
			const char *label, *unit;
			int first;
		} ST[] = {{"server rate", "/s", AIW_CAPACITY_SERVER_RATE_MEAN},
		          {"offline requests/s", "", AIW_CAPACITY_OFFLINE_REQUESTS_PER_S_MEAN}};
		for (size_t k = 0; k < sizeof ST / sizeof *ST; k++) {
			const double *m = out + ST[k].first;
			/* mean, sd, CI low, CI high, min, max */
			const char *u = ST[k].unit;
			printf("  %-23s %.6g%s +- %.3g%s (95%% CI %.6g to %.6g; sd %.3g, min %.6g, "
			       "max %.6g)\n",
			       ST[k].label, m[0], u, m[3] - m[0], u, m[2], m[3], m[1], m[4], m[5]);
		}
	}
	printf("  simulations             %.0f\n", out[AIW_CAPACITY_RUNS]);
	rc = cli_flush_stdout();
done:
	for (size_t k = 0; k < nset; k++)
		free(owned[k]);
	free(sets);
	free(ops);
	aiw_sim_free(sim);
	return rc;
}
