/*
 * plan.c - `aiworkload plan SCENARIO.ini --component NAME`: the cheapest
 * configuration of one inference fleet that meets P99 latency limits under
 * caps (GPU type x gpus_per_replica x weight_bits x max_batch x replicas),
 * through aiw_plan_*: a ranked table, the Pareto fronts and each row's
 * --set lines.
 */
#include "common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

aiw_status (*cli_plan_runner)(aiw_plan *plan) = NULL;

static void plan_usage(FILE *f)
{
	fprintf(f,
	        "usage: aiworkload plan SCENARIO.ini [--component NAME] [options]\n"
	        "\n"
	        "Search the configuration of one inference fleet of the scenario (its\n"
	        "traffic, model and the rest as written, its autoscaler off) that minimises\n"
	        "an objective while its P99 TTFT and P99 TPOT meet their limits: GPU type x\n"
	        "gpus_per_replica x weight_bits x max_batch x replicas, each axis the\n"
	        "scenario's value unless --set-grid gives values.  Combinations that do not\n"
	        "fit memory (the fleet's start check) and replica counts over --max-gpus are\n"
	        "removed unsimulated, so are replica counts too few for the offered load\n"
	        "(a replica's offline throughput, 25%% slack); the replica count of each\n"
	        "combination is bisected.\n"
	        "\n"
	        "options:\n"
	        "  --component NAME     the [inference NAME] fleet (default: the only one that\n"
	        "                       is not a decode pool), or a\n"
	        "                       [training NAME] job (or training.NAME): its layout\n"
	        "                       tp x pp x dp x zero_stage x micro_batch x recompute\n"
	        "                       that fits memory, ranked by tokens/s\n"
	        "  --ttft-p99 S         P99 TTFT limit (default: the fleet's slo_ttft, else none)\n"
	        "  --tpot-p99 S         P99 TPOT limit (default: the fleet's slo_tpot, else none)\n"
	        "  --objective O        cost_per_mtok (default), gpus, energy, peak_power\n"
	        "  --max-gpus N         at most N GPUs\n"
	        "  --power-budget W     site peak IT power at most W\n"
	        "  --set-grid NAME=V1,V2,...\n"
	        "                       values of an axis: gpu, gpus_per_replica, weight_bits,\n"
	        "                       max_batch, pp, spot_fraction, max_num_batched_tokens\n"
	        "                       (chunked_prefill on), target (the autoscaler's target:\n"
	        "                       the fleet keeps its autoscaler, replicas sets\n"
	        "                       max_replicas, every count simulated),\n"
	        "                       disaggregation (off,on: the fleet aggregated, or the\n"
	        "                       prefill pool of its decode_fleet), decode_replicas\n"
	        "                       (the decode pool's replicas), replicas\n"
	        "                       (integer ranges A..B; replicas default 1..64)\n"
	        "  --attainment A       feasible when the one-sided Clopper-Pearson lower bound\n"
	        "                       of the share of replications meeting both limits is at\n"
	        "                       least A (0 < A < 1), instead of the means meeting them\n"
	        "  --confidence C       the bound's confidence (default 0.95)\n"
	        "  --train-tokens N     a training plan: each layout's expected time and cost\n"
	        "                       to train N tokens with failures and Daly's interval\n"
	        "  --replications N     runs per candidate, seeds sim.seed + 0 .. N - 1 (1)\n"
	        "  --set NAME=VALUE     set a scenario parameter in every candidate\n"
	        "  --seed N             sim.seed of the first replication\n"
	        "  --csv FILE           write the ranked table as CSV\n"
	        "  --report FILE.html   the plan's report: settings, the ranked table, Pareto\n"
	        "                       plots of the objective against P99 TTFT and peak power\n"
	        "  --top N              rows printed (default 20; 0: all)\n"
	        "  --recheck N          run the ranked rows again at further seeds until N pass\n"
	        "                       (or 4N were examined); a row that misses is flagged\n"
	        "  --recheck-replications Q\n"
	        "                       runs per re-checked row, seeds after the search's (10)\n"
	        "  --progress, --no-progress\n"
	        "                       combinations ended, on standard error (default: when it\n"
	        "                       is a terminal)\n"
	        "  --jobs N, -j N       threads, each taking whole combinations (default 1;\n"
	        "                       0: one per processor); the output is the same\n"
	        "\n"
	        "Exit status: 0 a plan found, 1 no candidate feasible (the message says which\n"
	        "constraint removed the last ones) or another failure, 2 bad usage or invalid\n"
	        "scenario.  See aiworkload(1) and aiw_plan_create(3).\n");
}

/* true: component names a [training NAME] job ("training.NAME", or a bare
 * NAME the scenario has as [training NAME] and not as [inference NAME]) */
/* a line on standard error at each whole percent of the combinations
 * ended, then one per re-checked row */
static int plan_progress(const aiw_plan *plan, size_t done, size_t total, void *payload)
{
	(void)plan;
	long *last = payload;
	long pct = total ? (long)(100 * done / total) : 100;
	if (*last >= 100 && done == total)
		fprintf(stderr, "plan: re-checked a row\n");
	else if (pct != *last)
		fprintf(stderr, "plan: %zu/%zu combinations (%ld%%)\n", done, total, pct);
	*last = pct;
	return 0;
}

static bool is_training(const char *file, const char *comp)
{
	if (strncmp(comp, "training.", 9) == 0)
		return true;
	if (strncmp(comp, "inference.", 10) == 0)
		return false;
	aiw_sim *sim;
	if (aiw_sim_create(&sim, 1) != AIW_OK)
		return false;
	size_t nc = 0;
	bool inf = false, tr = false;
	if (aiw_sim_load_file(sim, file) == AIW_OK)
		aiw_sim_component_count(sim, &nc);
	for (size_t k = 0; k < nc; k++) {
		const char *kind, *name;
		if (aiw_sim_component(sim, k, &kind, &name) != AIW_OK || strcmp(name, comp) != 0)
			continue;
		inf = inf || strcmp(kind, "inference") == 0;
		tr = tr || strcmp(kind, "training") == 0;
	}
	aiw_sim_free(sim);
	return tr && !inf;
}

/* the fleet's own slo_ttft or slo_tpot as text, or NULL */
static const char *fleet_limit(const char *file, const char *comp, const char *key, char *buf,
                               size_t len)
{
	aiw_sim *sim;
	const char *out = NULL;
	if (aiw_sim_create(&sim, 1) != AIW_OK)
		return NULL;
	char name[300];
	snprintf(name, sizeof name, "inference.%s.%s", comp, key);
	double v;
	if (aiw_sim_load_file(sim, file) == AIW_OK && aiw_sim_get_double(sim, name, &v) == AIW_OK &&
	    isfinite(v) && v > 0) {
		snprintf(buf, len, "%.17g", v);
		out = buf;
	}
	aiw_sim_free(sim);
	return out;
}

static int print_training(aiw_plan *plan, const char *file, const char *component,
                          const size_t *s, long ntop)
{
	static const char *const RC[] = {"none", "selective", "full"};
	printf("Plan of %s, training job %s: the layout of the highest throughput (tokens/s "
	       "of the layout model's step time)\n",
	       file, component);
	printf("Candidates %zu: refused %zu by the start check (memory, layout); feasible "
	       "layouts %zu\n",
	       s[AIW_PLAN_STAT_CANDIDATES], s[AIW_PLAN_STAT_PRUNED_MEMORY], s[AIW_PLAN_STAT_ROWS]);
	if (s[AIW_PLAN_STAT_ROWS] == 0) {
		const char *why = "";
		aiw_plan_verdict(plan, &why);
		cli_errorf("plan: no feasible layout: %s", why);
		cli_flush_stdout();
		return EXIT_FAIL;
	}
	printf("%4s  %-12s %4s %4s %5s %4s %5s %-9s  %12s %10s %8s %6s\n", "rank", "gpu", "tp",
	       "pp", "dp", "zero", "micro", "recompute", "tokens/s", "step_s", "mem_GB", "mfu");
	for (size_t i = 0; i < s[AIW_PLAN_STAT_ROWS] && (ntop == 0 || i < (size_t)ntop); i++) {
		double v[AIW_PLAN_T_NCOLUMNS];
		const char *gpu, *snip;
		aiw_plan_row(plan, i, v, AIW_PLAN_T_NCOLUMNS, &gpu, &snip);
		printf("%4zu  %-12s %4.0f %4.0f %5.0f %4.0f %5.0f %-9s  %12.6g %10.4g %8.2f %6.3f\n",
		       i + 1, gpu, v[AIW_PLAN_T_TP], v[AIW_PLAN_T_PP], v[AIW_PLAN_T_DP],
		       v[AIW_PLAN_T_ZERO_STAGE], v[AIW_PLAN_T_MICRO_BATCH],
		       RC[(int)v[AIW_PLAN_T_RECOMPUTE]], v[AIW_PLAN_T_TOKENS_PER_S],
		       v[AIW_PLAN_T_STEP_TIME_S], v[AIW_PLAN_T_MEMORY_PER_GPU_BYTES] / 1e9,
		       v[AIW_PLAN_T_MFU]);
		if (isfinite(v[AIW_PLAN_T_TRAIN_TIME_S]))
			printf("      to train: %.6g days expected (%.6g without failures), %.6g USD; "
			       "checkpoint every %.6g s (Young %.6g s)\n",
			       v[AIW_PLAN_T_TRAIN_TIME_S] / 86400, v[AIW_PLAN_T_TRAIN_SOLVE_S] / 86400,
			       v[AIW_PLAN_T_TRAIN_COST_USD], v[AIW_PLAN_T_CKPT_INTERVAL_S],
			       v[AIW_PLAN_T_CKPT_YOUNG_S]);
		fputs("      ", stdout);
		for (const char *c = snip; *c; c++)
			fputc(*c == '\n' ? (c[1] ? ' ' : '\n') : *c, stdout);
	}
	/* the training metrics of a run of the best row (the scenario's
	 * duration, max_tokens, failures and checkpoints as written) */
	const char *snip;
	aiw_plan_row(plan, 0, NULL, 0, NULL, &snip);
	aiw_sim *sim;
	if (aiw_sim_create(&sim, 1) != AIW_OK)
		return EXIT_FAIL;
	aiw_status st = aiw_sim_load_file(sim, file);
	for (const char *c = snip; st == AIW_OK && strncmp(c, "--set ", 6) == 0;) {
		const char *eq = strchr(c, '='), *nl = strchr(c, '\n');
		char name[512], value[512];
		if (!eq || !nl || eq > nl)
			break;
		snprintf(name, sizeof name, "%.*s", (int)(eq - c - 6), c + 6);
		snprintf(value, sizeof value, "%.*s", (int)(nl - eq - 1), eq + 1);
		st = aiw_sim_set(sim, name, value);
		c = nl + 1;
	}
	if (st == AIW_OK)
		st = aiw_sim_run(sim);
	if (st != AIW_OK) {
		cli_errorf("plan: the run of the best layout: %s", aiw_sim_errmsg(sim));
		aiw_sim_free(sim);
		return cli_exit_code(st);
	}
	static const char *const KEY[] = {"tokens", "wall_s", "goodput", "ettr", "failures",
	                                  "checkpoint_interval_s", "cost_usd", "cost_per_mtok_usd"};
	const char *name = strchr(component, '.') ? strchr(component, '.') + 1 : component;
	printf("A run of the best layout:");
	for (size_t k = 0; k < sizeof KEY / sizeof *KEY; k++) {
		char m[400];
		double v = NAN;
		snprintf(m, sizeof m, "training.%s.%s", name, KEY[k]);
		if (aiw_sim_metric(sim, m, &v) == AIW_OK && isfinite(v))
			printf(" %s %.6g", KEY[k], v);
		else
			printf(" %s none", KEY[k]);
	}
	printf("\n");
	aiw_sim_free(sim);
	return cli_flush_stdout();
}

int cli_plan(int argc, char **argv)
{
	const char *component = NULL, *ttft = NULL, *tpot = NULL, *objective = NULL,
	           *max_gpus = NULL, *power = NULL, *reps = NULL, *seed = NULL, *csv = NULL,
	           *top = NULL, *jobs = NULL, *recheck = NULL, *recheck_reps = NULL,
	           *prog = NULL, *report = NULL, *attain = NULL, *conf = NULL, *ttok = NULL;
	size_t nsets = 0, ngrids = 0, nops = 0, room = argc > 0 ? (size_t)argc : 1;
	const char **sets = calloc(room, sizeof *sets), **grids = calloc(room, sizeof *grids),
	           **ops = calloc(room, sizeof *ops);
	int rc = 0;
	aiw_plan *plan = NULL;
	char comp_buf[256];
	if (!sets || !grids || !ops) {
		cli_errorf("out of memory");
		rc = EXIT_FAIL;
		goto done;
	}
	const cli_opt opts[] = {
	    {"--component", CLI_OPT_ONE, &component, NULL, NULL},
	    {"--ttft-p99", CLI_OPT_ONE, &ttft, NULL, NULL},
	    {"--tpot-p99", CLI_OPT_ONE, &tpot, NULL, NULL},
	    {"--objective", CLI_OPT_ONE, &objective, NULL, NULL},
	    {"--max-gpus", CLI_OPT_ONE, &max_gpus, NULL, NULL},
	    {"--power-budget", CLI_OPT_ONE, &power, NULL, NULL},
	    {"--replications", CLI_OPT_ONE, &reps, NULL, NULL},
	    {"--seed", CLI_OPT_ONE, &seed, NULL, NULL},
	    {"--csv", CLI_OPT_ONE, &csv, NULL, NULL},
	    {"--report", CLI_OPT_ONE, &report, NULL, NULL},
	    {"--top", CLI_OPT_ONE, &top, NULL, NULL},
	    {"--jobs|-j", CLI_OPT_ONE, &jobs, NULL, NULL},
	    {"--recheck", CLI_OPT_ONE, &recheck, NULL, NULL},
	    {"--recheck-replications", CLI_OPT_ONE, &recheck_reps, NULL, NULL},
	    {"--attainment", CLI_OPT_ONE, &attain, NULL, NULL},
	    {"--confidence", CLI_OPT_ONE, &conf, NULL, NULL},
	    {"--train-tokens", CLI_OPT_ONE, &ttok, NULL, NULL},
	    {"--progress|--no-progress", CLI_OPT_FLAG, &prog, NULL, NULL},
	    {"--set", CLI_OPT_MANY, NULL, sets, &nsets},
	    {"--set-grid", CLI_OPT_MANY, NULL, grids, &ngrids},
	};
	const cli_cmd who = {cli_prog, "plan", false};
	bool help = false;
	long last_pct = -1;
	rc = cli_parse_options(&who, argc, argv, 2, opts, sizeof opts / sizeof *opts, ops, &nops,
	                       &help);
	if (rc)
		goto done;
	if (help) {
		plan_usage(stdout);
		rc = cli_flush_stdout();
		goto done;
	}
	if (nops != 1) {
		rc = cli_cmd_usage_error(&who, nops ? "one scenario only ('%s' and '%s')"
		                                    : "no scenario given%s%s",
		                         nops ? ops[0] : "", nops ? ops[1] : "");
		goto done;
	}
	const char *file = ops[0];
	{ /* outputs that would overwrite the scenario, a file it names, or
	   * each other: refused before anything runs */
		cli_files out = {0}, in = {0};
		aiw_sim *sim = NULL;
		rc = cli_files_add(&out, "--csv", csv) || cli_files_add(&out, "--report", report) ||
		             cli_files_add(&in, "the scenario", file)
		         ? EXIT_FAIL
		         : 0;
		if (!rc && out.n && aiw_sim_create(&sim, 1) == AIW_OK &&
		    aiw_sim_load_file(sim, file) == AIW_OK)
			rc = cli_files_add_sim(&in, sim);
		if (!rc)
			rc = cli_check_outputs(&who, &out, &in);
		cli_files_free(&out);
		cli_files_free(&in);
		aiw_sim_free(sim);
		if (rc)
			goto done;
	}
	long ntop = 20;
	if (top) {
		char *end;
		ntop = strtol(top, &end, 10);
		if (!*top || *end || ntop < 0) {
			rc = cli_cmd_usage_error(&who, "--top expects a count >= 0, got '%s'", top);
			goto done;
		}
	}
	if (!component) { /* the only fleet */
		aiw_sim *sim;
		size_t nc = 0, nf = 0;
		if (aiw_sim_create(&sim, 1) != AIW_OK) {
			cli_errorf("out of memory");
			rc = EXIT_FAIL;
			goto done;
		}
		aiw_status st = aiw_sim_load_file(sim, file);
		if (st != AIW_OK) {
			cli_errorf("%s", aiw_sim_errmsg(sim));
			aiw_sim_free(sim);
			rc = cli_exit_code(st);
			goto done;
		}
		aiw_sim_component_count(sim, &nc);
		for (size_t k = 0; k < nc; k++) {
			const char *kind, *name;
			char key[300], role[32] = "";
			if (aiw_sim_component(sim, k, &kind, &name) != AIW_OK ||
			    strcmp(kind, "inference") != 0)
				continue;
			/* a decode pool draws no arrivals: its prefill pool is planned */
			snprintf(key, sizeof key, "inference.%s.disaggregation", name);
			if (aiw_sim_get(sim, key, role, sizeof role) == AIW_OK &&
			    strcmp(role, "decode") == 0)
				continue;
			if (nf++ == 0)
				snprintf(comp_buf, sizeof comp_buf, "%s", name);
		}
		aiw_sim_free(sim);
		if (nf != 1) {
			rc = cli_cmd_usage_error(&who, "%s has %zu inference fleets (not decode pools): "
			                               "choose one with "
			                               "--component NAME",
			                         file, nf);
			goto done;
		}
		component = comp_buf;
	}
	aiw_status st = aiw_plan_create(&plan, file, NULL, component);
	if (st != AIW_OK) {
		rc = cli_cmd_usage_error(&who, "--component '%s': %s", component, aiw_strerror(st));
		goto done;
	}
	bool training = is_training(file, component);
	char lb[2][64];
	if (!ttft && !training)
		ttft = fleet_limit(file, strncmp(component, "inference.", 10) ? component
		                                                              : component + 10,
		                   "slo_ttft", lb[0], sizeof lb[0]);
	if (!tpot && !training)
		tpot = fleet_limit(file, strncmp(component, "inference.", 10) ? component
		                                                              : component + 10,
		                   "slo_tpot", lb[1], sizeof lb[1]);
	const struct {
		const char *key, *value, *opt;
	} kv[] = {{"ttft_p99", ttft, "--ttft-p99"},        {"tpot_p99", tpot, "--tpot-p99"},
	          {"objective", objective, "--objective"}, {"max_gpus", max_gpus, "--max-gpus"},
	          {"power_budget", power, "--power-budget"}, {"replications", reps, "--replications"},
	          {"seed", seed, "--seed"},                   {"jobs", jobs, "--jobs"},
	          {"recheck", recheck, "--recheck"},
	          {"recheck_replications", recheck_reps, "--recheck-replications"},
	          {"attainment", attain, "--attainment"},
	          {"confidence", conf, "--confidence"},
	          {"train_tokens", ttok, "--train-tokens"}};
	for (size_t k = 0; k < sizeof kv / sizeof *kv; k++)
		if (kv[k].value && (st = aiw_plan_set(plan, kv[k].key, kv[k].value)) != AIW_OK) {
			cli_errorf("plan: %s: %s", kv[k].opt, aiw_plan_errmsg(plan));
			rc = cli_exit_code(st);
			goto done;
		}
	for (size_t k = 0; k < nsets; k++) {
		const char *eq = strchr(sets[k], '=');
		char name[256];
		if (!eq || eq == sets[k] || (size_t)(eq - sets[k]) >= sizeof name) {
			rc = cli_cmd_usage_error(&who, "--set expects NAME=VALUE, got '%s'", sets[k]);
			goto done;
		}
		memcpy(name, sets[k], (size_t)(eq - sets[k]));
		name[eq - sets[k]] = '\0';
		if (!strchr(name, '.') || (st = aiw_plan_set(plan, name, eq + 1)) != AIW_OK) {
			cli_errorf("plan: --set %s: %s", sets[k],
			           strchr(name, '.') ? aiw_plan_errmsg(plan) : "expected NAME.KEY=VALUE");
			rc = strchr(name, '.') ? cli_exit_code(st) : EXIT_USAGE;
			goto done;
		}
	}
	bool have_replicas = false;
	for (size_t k = 0; k < ngrids; k++) {
		const char *eq = strchr(grids[k], '=');
		char name[64];
		if (!eq || eq == grids[k] || (size_t)(eq - grids[k]) >= sizeof name) {
			rc = cli_cmd_usage_error(&who, "--set-grid expects NAME=V1,V2,..., got '%s'",
			                         grids[k]);
			goto done;
		}
		memcpy(name, grids[k], (size_t)(eq - grids[k]));
		name[eq - grids[k]] = '\0';
		if (strcmp(name, "replicas") == 0)
			have_replicas = true;
		if ((st = aiw_plan_grid(plan, name, eq + 1)) != AIW_OK) {
			cli_errorf("plan: --set-grid %s: %s", grids[k], aiw_plan_errmsg(plan));
			rc = cli_exit_code(st);
			goto done;
		}
	}
	if (!have_replicas && !training && (st = aiw_plan_grid(plan, "replicas", "1..64")) != AIW_OK) {
		cli_errorf("plan: %s", aiw_plan_errmsg(plan));
		rc = cli_exit_code(st);
		goto done;
	}
	if (prog ? strcmp(prog, "--progress") == 0 : isatty(STDERR_FILENO))
		aiw_plan_set_progress(plan, plan_progress, &last_pct);
	if ((st = cli_plan_runner ? cli_plan_runner(plan) : aiw_plan_run(plan)) != AIW_OK) {
		cli_errorf("plan: %s", aiw_plan_errmsg(plan));
		rc = cli_exit_code(st);
		goto done;
	}
	size_t s[AIW_PLAN_NSTATS];
	aiw_plan_stats(plan, s, AIW_PLAN_NSTATS);
	if (csv && (st = aiw_plan_write_csv(plan, csv)) != AIW_OK) {
		cli_errorf("plan: %s", aiw_plan_errmsg(plan));
		rc = cli_exit_code(st);
		goto done;
	}
	if (report && (st = aiw_plan_write_html(plan, report)) != AIW_OK) {
		cli_errorf("plan: %s", aiw_plan_errmsg(plan));
		rc = cli_exit_code(st);
		goto done;
	}
	if (training) {
		rc = print_training(plan, file, component, s, ntop);
		goto done;
	}
	printf("Plan of %s, fleet %s: objective %s; limits P99 TTFT %s, P99 TPOT %s\n", file,
	       component, objective ? objective : "cost_per_mtok", ttft ? ttft : "none",
	       tpot ? tpot : "none");
	printf("Candidates %zu: pruned %zu by memory, %zu by --max-gpus, %zu by the load bound, "
	       "%zu by the bisection; simulated %zu (%zu runs); feasible combinations %zu\n",
	       s[AIW_PLAN_STAT_CANDIDATES], s[AIW_PLAN_STAT_PRUNED_MEMORY],
	       s[AIW_PLAN_STAT_PRUNED_CAP], s[AIW_PLAN_STAT_PRUNED_LOAD],
	       s[AIW_PLAN_STAT_PRUNED_BISECTION],
	       s[AIW_PLAN_STAT_SIMULATED], s[AIW_PLAN_STAT_RUNS], s[AIW_PLAN_STAT_ROWS]);
	if (s[AIW_PLAN_STAT_ROWS] == 0) {
		const char *why = "";
		aiw_plan_verdict(plan, &why);
		cli_errorf("plan: no feasible candidate: %s", why);
		rc = cli_flush_stdout() ? EXIT_FAIL : EXIT_FAIL;
		goto done;
	}
	bool rechecked = s[AIW_PLAN_STAT_RECHECKED] > 0;
	if (rechecked)
		printf("Re-checked %zu rows at %s further seeds: %zu missed the limits there\n",
		       s[AIW_PLAN_STAT_RECHECKED], recheck_reps ? recheck_reps : "10",
		       s[AIW_PLAN_STAT_RECHECK_FAILED]);
	/* the further axes given with --set-grid, one column each */
	static const struct {
		const char *axis, *head;
		int col;
	} EXTRA[] = {{"pp", "pp", AIW_PLAN_PP},
	             {"spot_fraction", "spot", AIW_PLAN_SPOT_FRACTION},
	             {"max_num_batched_tokens", "mnbt", AIW_PLAN_MAX_NUM_BATCHED_TOKENS},
	             {"target", "target", AIW_PLAN_AUTOSCALER_TARGET},
	             {"disaggregation", "disagg", AIW_PLAN_DISAGGREGATED},
	             {"decode_replicas", "dec", AIW_PLAN_DECODE_REPLICAS}};
	enum { NEXTRA = sizeof EXTRA / sizeof *EXTRA };
	bool shown[NEXTRA] = {false};
	for (size_t k = 0; k < ngrids; k++)
		for (size_t e = 0; e < NEXTRA; e++) {
			size_t l = strlen(EXTRA[e].axis);
			if (strncmp(grids[k], EXTRA[e].axis, l) == 0 && grids[k][l] == '=')
				shown[e] = true;
		}
	if (shown[4]) /* the decode pool's replicas beside on/off */
		shown[5] = true;
	printf("%4s  %-12s %3s %4s %6s %5s %5s", "rank", "gpu", "tp", "bits", "batch", "repl",
	       "gpus");
	for (size_t e = 0; e < NEXTRA; e++)
		if (shown[e])
			printf(" %6s", EXTRA[e].head);
	printf("  %12s %10s %10s %11s  %s%s\n", "objective", "ttft_p99", "tpot_p99", "peak_w",
	       "pareto", rechecked ? "  recheck" : "");
	for (size_t i = 0; i < s[AIW_PLAN_STAT_ROWS] && (ntop == 0 || i < (size_t)ntop); i++) {
		double v[AIW_PLAN_NCOLUMNS];
		const char *gpu, *snip;
		aiw_plan_row(plan, i, v, AIW_PLAN_NCOLUMNS, &gpu, &snip);
		char mb[32] = "-";
		if (isfinite(v[AIW_PLAN_MAX_BATCH]))
			snprintf(mb, sizeof mb, "%g", v[AIW_PLAN_MAX_BATCH]);
		char rc_text[64] = "";
		if (rechecked && isfinite(v[AIW_PLAN_RECHECK_OK]))
			snprintf(rc_text, sizeof rc_text, "      %s %.0f%%",
			         v[AIW_PLAN_RECHECK_OK] ? "ok" : "MISS",
			         100 * v[AIW_PLAN_RECHECK_MET_SHARE]);
		else if (rechecked)
			snprintf(rc_text, sizeof rc_text, "      -");
		printf("%4zu  %-12s %3.0f %4g %6s %5.0f %5.0f", i + 1, gpu,
		       v[AIW_PLAN_GPUS_PER_REPLICA], v[AIW_PLAN_WEIGHT_BITS], mb, v[AIW_PLAN_REPLICAS],
		       v[AIW_PLAN_GPUS]);
		for (size_t e = 0; e < NEXTRA; e++) {
			double x = v[EXTRA[e].col];
			if (!shown[e])
				continue;
			if (EXTRA[e].col == AIW_PLAN_DISAGGREGATED)
				printf(" %6s", !isfinite(x) ? "-" : x ? "on" : "off");
			else if (isfinite(x))
				printf(" %6g", x);
			else
				printf(" %6s", "-");
		}
		printf("  %12.6g %10.4g %10.4g %11.6g  %s%s%s\n",
		       v[AIW_PLAN_OBJECTIVE], v[AIW_PLAN_TTFT_P99_S], v[AIW_PLAN_TPOT_P99_S],
		       v[AIW_PLAN_POWER_PEAK_W], v[AIW_PLAN_PARETO_TTFT] ? "T" : "-",
		       v[AIW_PLAN_PARETO_POWER] ? "P" : "-", rc_text);
		if (isfinite(v[AIW_PLAN_ATTAINMENT_LCB]))
			printf("      attainment: %.6g of the runs met both limits, lower bound %.6g at "
			       "confidence %s\n",
			       v[AIW_PLAN_MET_SHARE], v[AIW_PLAN_ATTAINMENT_LCB], conf ? conf : "0.95");
		fputs("      ", stdout);
		for (const char *c = snip; *c; c++)
			fputc(*c == '\n' ? (c[1] ? ' ' : '\n') : *c, stdout);
	}
	printf("pareto: T on the front of the objective vs P99 TTFT, P on that of the objective "
	       "vs peak power\n");
	if (rechecked)
		printf("recheck: ok (MISS) when the means of the further seeds' P99s meet (miss) the "
		       "limits, with the share of those runs that met both\n");
	rc = cli_flush_stdout();
done:
	aiw_plan_free(plan);
	free(sets);
	free(grids);
	free(ops);
	return rc;
}
