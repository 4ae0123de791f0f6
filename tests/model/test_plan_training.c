/*
 * test_plan_training.c - the training plan (aiw_plan_* on a [training
 * NAME] job) against brute force and a published layout.
 *
 *   - on an 8-GPU job the full grid tp x pp x dp x zero_stage x micro_batch
 *     x recompute is run candidate by candidate through the public API
 *     (the scenario, the layout set, the start check at time 0): the
 *     planner's rows are exactly its accepted candidates, its best row has
 *     the brute-force maximum of tokens/s, and the table is ranked;
 *   - every row re-run from its snippet gives the row's step time and
 *     memory, bit for bit;
 *   - a job no layout fits is refused naming the closest layout's memory
 *     need and the GPU's memory;
 *   - the layout NVIDIA's NeMo 24.09 performance summary gives for
 *     LLAMA2-70B on 64 H100 (tp 4, pp 4, micro_batch 1, the distributed
 *     optimizer, no recomputation; its virtual stages are not an axis of
 *     the plan) is feasible, within 15% of the best row, and the best row
 *     has its tp; its rank is printed.
 */
#include "../testutil.h"
#include "studies/plan.h"

#include <gsl/gsl_cdf.h>

#include <unistd.h>

#define PLAN_OK(p, call)                                                                  \
	do {                                                                                  \
		aiw_status st_ = (call);                                                          \
		ck_assert_msg(st_ == AIW_OK, "%s: %s", #call, aiw_plan_errmsg(p));                \
	} while (0)

static const char SMALL[] = "[sim]\nduration = 1h\n[training pretrain]\ngpu = H100-SXM\n"
                            "gpus = 8\ngpus_per_node = 8\nlayers = 32\nhidden = 4096\n"
                            "ffn_hidden = 11008\nheads = 32\nkv_heads = 32\nvocab = 32000\n"
                            "seq_len = 4096\nmlp = swiglu\nglobal_batch = 16\n";

static const char NEMO70[] = "[sim]\nduration = 1h\n[training pretrain]\ngpu = H100-SXM\n"
                             "gpus = 64\ngpus_per_node = 8\nlayers = 80\nhidden = 8192\n"
                             "ffn_hidden = 28672\nheads = 64\nkv_heads = 8\nvocab = 32000\n"
                             "seq_len = 4096\nmlp = swiglu\nattention = flash\n"
                             "global_batch = 128\nsequence_parallel = true\n"
                             "tp_comm_overlap = true\nprecision = fp8\n";

static const char *const RC[] = {"none", "selective", "full"};

/* the scenario with "--set NAME=VALUE" lines applied, started */
static aiw_status start(const char *scen, const char *snip, aiw_sim **out)
{
	aiw_sim *sim;
	ck_assert_int_eq(aiw_sim_create(&sim, 1), AIW_OK);
	AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim, scen, "test"));
	const char *s = snip;
	while (*s) {
		ck_assert(strncmp(s, "--set ", 6) == 0);
		s += 6;
		const char *nl = strchr(s, '\n'), *eq = strchr(s, '=');
		ck_assert(nl && eq && eq < nl);
		char name[256], value[256];
		snprintf(name, sizeof name, "%.*s", (int)(eq - s), s);
		snprintf(value, sizeof value, "%.*s", (int)(nl - eq - 1), eq + 1);
		AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, name, value));
		s = nl + 1;
	}
	*out = sim;
	return aiw_sim_run_until(sim, 0);
}

static double metric(aiw_sim *sim, const char *key)
{
	char name[128];
	double v = NAN;
	snprintf(name, sizeof name, "training.pretrain.%s", key);
	AIW_OK_OR_FAIL(sim, aiw_sim_metric(sim, name, &v));
	return v;
}

START_TEST(best_is_brute_force_optimum)
{
	aiw_plan *p;
	ck_assert_int_eq(aiw_plan_create(&p, NULL, SMALL, "pretrain"), AIW_OK);
	PLAN_OK(p, aiw_plan_run(p));
	size_t s[AIW_PLAN_NSTATS];
	ck_assert_int_eq(aiw_plan_stats(p, s, AIW_PLAN_NSTATS), AIW_OK);
	/* brute force: every divisor layout of 8 GPUs, written out */
	size_t cands = 0, feasible = 0;
	double best = -1;
	for (int tp = 1; tp <= 8; tp *= 2)
		for (int pp = 1; tp * pp <= 8; pp *= 2)
			for (int mb = 1; mb <= 8; mb *= 2) {
				int dp = 8 / (tp * pp);
				if (16 % (mb * dp) != 0)
					continue;
				for (int z = 0; z <= 3; z++)
					for (int r = 0; r <= 2; r++) {
						char snip[512];
						snprintf(snip, sizeof snip,
						         "--set training.pretrain.tp=%d\n--set training.pretrain.pp=%d\n"
						         "--set training.pretrain.zero_stage=%d\n"
						         "--set training.pretrain.micro_batch=%d\n"
						         "--set training.pretrain.recompute=%s\n",
						         tp, pp, z, mb, RC[r]);
						aiw_sim *sim;
						cands++;
						aiw_status st = start(SMALL, snip, &sim);
						if (st == AIW_OK) {
							feasible++;
							double tok = 16.0 * 4096 / metric(sim, "step_time_model_s");
							if (tok > best)
								best = tok;
						} else {
							ck_assert_int_eq(st, AIW_ERANGE);
						}
						aiw_sim_free(sim);
					}
			}
	ck_assert_uint_eq(s[AIW_PLAN_STAT_CANDIDATES], cands);
	ck_assert_uint_eq(s[AIW_PLAN_STAT_ROWS], feasible);
	ck_assert_uint_eq(s[AIW_PLAN_STAT_PRUNED_MEMORY], cands - feasible);
	ck_assert_uint_gt(feasible, 10);
	ck_assert_uint_lt(feasible, cands); /* the memory check removed some */
	double v[AIW_PLAN_T_NCOLUMNS], prev = INFINITY;
	ck_assert_int_eq(aiw_plan_row(p, 0, v, AIW_PLAN_T_NCOLUMNS, NULL, NULL), AIW_OK);
	ck_assert_double_eq(v[AIW_PLAN_T_TOKENS_PER_S], best);
	for (size_t i = 0; i < s[AIW_PLAN_STAT_ROWS]; i++) {
		ck_assert_int_eq(aiw_plan_row(p, i, v, AIW_PLAN_T_NCOLUMNS, NULL, NULL), AIW_OK);
		ck_assert(v[AIW_PLAN_T_TOKENS_PER_S] <= prev);
		prev = v[AIW_PLAN_T_TOKENS_PER_S];
		ck_assert_double_eq(v[AIW_PLAN_T_TP] * v[AIW_PLAN_T_PP] * v[AIW_PLAN_T_DP], 8);
	}
	ck_assert_int_eq(aiw_plan_row(p, s[AIW_PLAN_STAT_ROWS], v, 1, NULL, NULL), AIW_ERANGE);
	aiw_plan_free(p);
}
END_TEST

START_TEST(rows_rerun_from_snippets)
{
	aiw_plan *p;
	ck_assert_int_eq(aiw_plan_create(&p, NULL, SMALL, "training.pretrain"), AIW_OK);
	PLAN_OK(p, aiw_plan_set(p, "training.pretrain.gpu_mtbf", "none"));
	PLAN_OK(p, aiw_plan_run(p));
	size_t s[AIW_PLAN_NSTATS];
	ck_assert_int_eq(aiw_plan_stats(p, s, AIW_PLAN_NSTATS), AIW_OK);
	for (size_t i = 0; i < s[AIW_PLAN_STAT_ROWS]; i++) {
		double v[AIW_PLAN_T_NCOLUMNS];
		const char *gpu, *snip;
		ck_assert_int_eq(aiw_plan_row(p, i, v, AIW_PLAN_T_NCOLUMNS, &gpu, &snip), AIW_OK);
		ck_assert_str_eq(gpu, "H100-SXM");
		ck_assert(strstr(snip, "gpu_mtbf=none") != NULL);
		aiw_sim *sim;
		ck_assert_int_eq(start(SMALL, snip, &sim), AIW_OK);
		double step = metric(sim, "step_time_model_s");
		ck_assert_double_eq(step, v[AIW_PLAN_T_STEP_TIME_S]);
		ck_assert_double_eq(16.0 * 4096 / step, v[AIW_PLAN_T_TOKENS_PER_S]);
		ck_assert_double_eq(metric(sim, "memory_per_gpu_bytes"),
		                    v[AIW_PLAN_T_MEMORY_PER_GPU_BYTES]);
		aiw_sim_free(sim);
	}
	char path[] = "/tmp/aiw_plan_training_XXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(aiw_plan_write_csv(p, path), AIW_OK);
	FILE *f = fopen(path, "r");
	char line[256];
	ck_assert(fgets(line, sizeof line, f) != NULL);
	ck_assert(strncmp(line, "rank,gpu,tokens_per_s,gpus,tp,pp,dp,zero_stage,micro_batch,", 59) ==
	          0);
	size_t n = 0;
	char big[4096];
	while (fgets(big, sizeof big, f))
		n++;
	fclose(f);
	unlink(path);
	ck_assert_uint_eq(n, s[AIW_PLAN_STAT_ROWS]);
	aiw_plan_free(p);
}
END_TEST

START_TEST(nothing_fits_says_why)
{
	char scen[1024];
	snprintf(scen, sizeof scen, "%s", NEMO70);
	char *g = strstr(scen, "gpus = 64");
	memcpy(g, "gpus = 01", 9); /* one GPU: nothing fits */
	aiw_plan *p;
	ck_assert_int_eq(aiw_plan_create(&p, NULL, scen, "pretrain"), AIW_OK);
	PLAN_OK(p, aiw_plan_run(p));
	size_t s[AIW_PLAN_NSTATS];
	ck_assert_int_eq(aiw_plan_stats(p, s, AIW_PLAN_NSTATS), AIW_OK);
	ck_assert_uint_eq(s[AIW_PLAN_STAT_ROWS], 0);
	ck_assert_uint_eq(s[AIW_PLAN_STAT_PRUNED_MEMORY], s[AIW_PLAN_STAT_CANDIDATES]);
	const char *why;
	ck_assert_int_eq(aiw_plan_verdict(p, &why), AIW_OK);
	ck_assert_msg(strstr(why, "memory: no layout of the") && strstr(why, "GB per GPU") &&
	                  strstr(why, "H100-SXM has 80.0 GB"),
	              "%s", why);
	aiw_plan_free(p);
}
END_TEST

START_TEST(nemo_llama2_70b_layout)
{
	aiw_plan *p;
	ck_assert_int_eq(aiw_plan_create(&p, NULL, NEMO70, "pretrain"), AIW_OK);
	PLAN_OK(p, aiw_plan_run(p));
	size_t s[AIW_PLAN_NSTATS];
	ck_assert_int_eq(aiw_plan_stats(p, s, AIW_PLAN_NSTATS), AIW_OK);
	double best[AIW_PLAN_T_NCOLUMNS], v[AIW_PLAN_T_NCOLUMNS];
	ck_assert_int_eq(aiw_plan_row(p, 0, best, AIW_PLAN_T_NCOLUMNS, NULL, NULL), AIW_OK);
	size_t rank = 0;
	for (size_t i = 0; i < s[AIW_PLAN_STAT_ROWS] && !rank; i++) {
		aiw_plan_row(p, i, v, AIW_PLAN_T_NCOLUMNS, NULL, NULL);
		if (v[AIW_PLAN_T_TP] == 4 && v[AIW_PLAN_T_PP] == 4 && v[AIW_PLAN_T_ZERO_STAGE] == 1 &&
		    v[AIW_PLAN_T_MICRO_BATCH] == 1 && v[AIW_PLAN_T_RECOMPUTE] == 0)
			rank = i + 1;
	}
	ck_assert_uint_gt(rank, 0);
	double ratio = v[AIW_PLAN_T_TOKENS_PER_S] / best[AIW_PLAN_T_TOKENS_PER_S];
	fprintf(stderr,
	        "NeMo 24.09 LLAMA2-70B on 64 H100 (tp 4, pp 4, dp 4, ZeRO 1, micro_batch 1): rank "
	        "%zu of %zu feasible layouts, %.0f tokens/s, %.1f%% of the best (tp %g, pp %g, dp "
	        "%g, ZeRO %g, micro_batch %g, recompute %s: %.0f tokens/s)\n",
	        rank, s[AIW_PLAN_STAT_ROWS], v[AIW_PLAN_T_TOKENS_PER_S], 100 * ratio,
	        best[AIW_PLAN_T_TP], best[AIW_PLAN_T_PP], best[AIW_PLAN_T_DP],
	        best[AIW_PLAN_T_ZERO_STAGE], best[AIW_PLAN_T_MICRO_BATCH],
	        RC[(int)best[AIW_PLAN_T_RECOMPUTE]], best[AIW_PLAN_T_TOKENS_PER_S]);
	ck_assert_msg(ratio > 0.85, "NeMo's layout at %.3g of the best", ratio);
	ck_assert_double_eq(best[AIW_PLAN_T_TP], 4);
	aiw_plan_free(p);
}
END_TEST

START_TEST(bad_arguments)
{
	aiw_plan *p;
	ck_assert_int_eq(aiw_plan_create(&p, NULL, SMALL, "training."), AIW_ERANGE);
	ck_assert_int_eq(aiw_plan_create(&p, NULL, SMALL, "training.a b"), AIW_EPARSE);
	ck_assert_int_eq(aiw_plan_create(&p, NULL, SMALL, "pretrain"), AIW_OK);
	ck_assert_int_eq(aiw_plan_grid(p, "replicas", "1..3"), AIW_OK);
	ck_assert_int_eq(aiw_plan_run(p), AIW_EINVAL);
	ck_assert(strstr(aiw_plan_errmsg(p), "'replicas' does not apply") != NULL);
	aiw_plan_free(p);
	/* no global_batch: the search cannot enumerate dp */
	char scen[1024];
	snprintf(scen, sizeof scen, "%s", SMALL);
	*strstr(scen, "global_batch") = '\0';
	ck_assert_int_eq(aiw_plan_create(&p, NULL, scen, "pretrain"), AIW_OK);
	ck_assert_int_eq(aiw_plan_run(p), AIW_EINVAL);
	ck_assert_msg(strstr(aiw_plan_errmsg(p), "training.pretrain.global_batch") != NULL, "%s",
	              aiw_plan_errmsg(p));
	aiw_plan_free(p);
}
END_TEST

/* Time to train a token budget with failures.  The 8-GPU job with a GPU
 * MTBF of 10 h (job MTBF M = 4,500 s) and a 5 min restart: for every row,
 * the Young interval sqrt(2 C M) (Young 1974), the interval the job uses
 * (auto: Daly 2006's sqrt(2 C M) (1 + sqrt(r)/3 + r/9) - C, r = C / 2M),
 * the solve time ceil(tokens / (global_batch x seq_len)) x step and the
 * expected wall time M e^(R/M) (e^((tau + C)/M) - 1) ts / tau (Daly 2006)
 * against the closed forms to 1e-12, C the row's own checkpoint_time_s;
 * the cost is the time at the job's cost per wall second over its first
 * 10 steps. */
static const char FAIL[] = "gpu_mtbf = 10h\nrestart_time = const(5min)\n";
#define TRAIN_TOKENS 2e9

static aiw_plan *fail_plan(void)
{
	char scen[sizeof SMALL + sizeof FAIL];
	snprintf(scen, sizeof scen, "%s%s", SMALL, FAIL);
	aiw_plan *p;
	ck_assert_int_eq(aiw_plan_create(&p, NULL, scen, "training.pretrain"), AIW_OK);
	ck_assert_int_eq(aiw_plan_set(p, "train_tokens", "2e9"), AIW_OK);
	ck_assert_msg(aiw_plan_run(p) == AIW_OK, "%s", aiw_plan_errmsg(p));
	return p;
}

START_TEST(time_to_train_closed_form)
{
	char scen[sizeof SMALL + sizeof FAIL];
	snprintf(scen, sizeof scen, "%s%s", SMALL, FAIL);
	aiw_plan *p = fail_plan();
	size_t s[AIW_PLAN_NSTATS];
	aiw_plan_stats(p, s, AIW_PLAN_NSTATS);
	ck_assert_uint_gt(s[AIW_PLAN_STAT_ROWS], 20);
	const double M = 36000.0 / 8, R = 300, tokens_step = 16.0 * 4096;
	for (size_t i = 0; i < s[AIW_PLAN_STAT_ROWS]; i += 7) {
		double v[AIW_PLAN_T_NCOLUMNS];
		const char *snip;
		ck_assert_int_eq(aiw_plan_row(p, i, v, AIW_PLAN_T_NCOLUMNS, NULL, &snip), AIW_OK);
		aiw_sim *sim;
		AIW_OK_OR_FAIL(sim, start(scen, snip, &sim));
		double C = metric(sim, "checkpoint_time_s"), step = metric(sim, "step_time_model_s");
		ck_assert(C > 0 && step == v[AIW_PLAN_T_STEP_TIME_S]);
		double young = sqrt(2 * C * M), r = C / (2 * M);
		double daly = sqrt(2 * C * M) * (1 + sqrt(r) / 3 + r / 9) - C;
		double ts = ceil(TRAIN_TOKENS / tokens_step) * step;
		double T = M * exp(R / M) * (exp((daly + C) / M) - 1) * ts / daly;
		ck_assert_double_eq_tol(v[AIW_PLAN_T_CKPT_YOUNG_S] / young, 1, 1e-12);
		ck_assert_double_eq_tol(v[AIW_PLAN_T_CKPT_INTERVAL_S] / daly, 1, 1e-12);
		ck_assert_double_eq_tol(v[AIW_PLAN_T_TRAIN_SOLVE_S] / ts, 1, 1e-12);
		ck_assert_double_eq_tol(v[AIW_PLAN_T_TRAIN_TIME_S] / T, 1, 1e-12);
		ck_assert(T > ts);
		/* the cost per wall second of the job's first 10 steps */
		AIW_OK_OR_FAIL(sim, aiw_sim_run_until(sim, 10 * step));
		double rate = metric(sim, "cost_usd") / metric(sim, "wall_s");
		ck_assert_double_eq_tol(v[AIW_PLAN_T_TRAIN_COST_USD] / (rate * T), 1, 1e-12);
		aiw_sim_free(sim);
	}
	aiw_plan_free(p);
	/* the closed form's limits: no failure, the solve time; one segment
	 * without a checkpoint */
	ck_assert(aiwi_plan_daly_time(100, 10, 1, 5, INFINITY) == 100);
	ck_assert_double_eq_tol(aiwi_plan_daly_time(100, INFINITY, 1, 5, 1000),
	                        1000 * exp(0.005) * expm1(0.1), 1e-12);
	/* without train_tokens: no such columns */
	aiw_plan *q;
	ck_assert_int_eq(aiw_plan_create(&q, NULL, scen, "training.pretrain"), AIW_OK);
	ck_assert_int_eq(aiw_plan_run(q), AIW_OK);
	double v[AIW_PLAN_T_NCOLUMNS];
	ck_assert_int_eq(aiw_plan_row(q, 0, v, AIW_PLAN_T_NCOLUMNS, NULL, NULL), AIW_OK);
	ck_assert(isnan(v[AIW_PLAN_T_TRAIN_TIME_S]) && isnan(v[AIW_PLAN_T_CKPT_YOUNG_S]));
	aiw_plan_free(q);
	/* attainment is a serving setting */
	ck_assert_int_eq(aiw_plan_create(&q, NULL, scen, "training.pretrain"), AIW_OK);
	ck_assert_int_eq(aiw_plan_set(q, "attainment", "0.9"), AIW_OK);
	ck_assert_int_eq(aiw_plan_run(q), AIW_EINVAL);
	ck_assert(strstr(aiw_plan_errmsg(q), "attainment") != NULL);
	aiw_plan_free(q);
}
END_TEST

/* The expected time against simulated runs of the best row's job to the
 * same budget (max_tokens): the mean wall time over N = 40 seeds is within
 * t(0.9995, N - 1) s / sqrt(N) of Daly's expectation (a 99.9% interval of
 * the mean; s the runs' sample deviation), widened by the job's
 * discreteness, which the closed form does not have: a checkpoint waits for
 * the step in flight and a failure loses the partial step, at most one step
 * per checkpoint (ts / tau of them) and per failure (T / M expected). */
START_TEST(time_to_train_simulated)
{
	char scen[sizeof SMALL + sizeof FAIL];
	snprintf(scen, sizeof scen, "%s%s", SMALL, FAIL);
	aiw_plan *p = fail_plan();
	double v[AIW_PLAN_T_NCOLUMNS];
	const char *snip;
	ck_assert_int_eq(aiw_plan_row(p, 0, v, AIW_PLAN_T_NCOLUMNS, NULL, &snip), AIW_OK);
	enum { N = 40 };
	double w[N], sum = 0, fails = 0;
	for (int k = 0; k < N; k++) {
		aiw_sim *sim;
		AIW_OK_OR_FAIL(sim, start(scen, snip, &sim));
		AIW_OK_OR_FAIL(sim, aiw_sim_reset(sim));
		char seed[16];
		snprintf(seed, sizeof seed, "%d", 100 + k);
		AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.seed", seed));
		AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.duration", "30d"));
		AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "training.pretrain.max_tokens", "2e9"));
		AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
		w[k] = metric(sim, "wall_s");
		fails += metric(sim, "failures");
		ck_assert(metric(sim, "tokens") >= TRAIN_TOKENS);
		sum += w[k];
		aiw_sim_free(sim);
	}
	double mean = sum / N, q = 0;
	for (int k = 0; k < N; k++)
		q += (w[k] - mean) * (w[k] - mean);
	double sd = sqrt(q / (N - 1));
	double step = v[AIW_PLAN_T_STEP_TIME_S], T = v[AIW_PLAN_T_TRAIN_TIME_S];
	double disc = (v[AIW_PLAN_T_TRAIN_SOLVE_S] / v[AIW_PLAN_T_CKPT_INTERVAL_S] + T / 4500) * step;
	double tol = gsl_cdf_tdist_Pinv(0.9995, N - 1) * sd / sqrt(N) + disc;
	printf("time to train: Daly %.1f s, simulated %.1f s (sd %.1f, %d runs, %.1f failures "
	       "each), tolerance %.1f s, solve time %.1f s\n",
	       T, mean, sd, N, fails / N, tol, v[AIW_PLAN_T_TRAIN_SOLVE_S]);
	ck_assert_msg(fabs(mean - T) <= tol, "Daly %.1f, simulated %.1f +- %.1f", T, mean, tol);
	/* the overhead is resolved: the solve time alone is outside */
	ck_assert(fabs(mean - v[AIW_PLAN_T_TRAIN_SOLVE_S]) > tol);
	aiw_plan_free(p);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("plan_training");
	TCase *tc = tcase_create("training plan");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, best_is_brute_force_optimum);
	tcase_add_test(tc, rows_rerun_from_snippets);
	tcase_add_test(tc, nothing_fits_says_why);
	tcase_add_test(tc, nemo_llama2_70b_layout);
	tcase_add_test(tc, bad_arguments);
	tcase_add_test(tc, time_to_train_closed_form);
	tcase_add_test(tc, time_to_train_simulated);
	suite_add_tcase(s, tc);
	return s;
}

AIW_TEST_MAIN(make_suite)
