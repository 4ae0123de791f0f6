/* test_flags.c - results that must not mislead: an overloaded inference
 * fleet is warned of and its cost per token flagged; a setting given where
 * its mode gives it no effect is warned of (every row of the mode tables
 * checked); every breakdown of the summary adds up to its total; the
 * diversity sweep leaves the SLO column empty without an objective. */
#include "core/internal.h"
#include "../testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static aiw_sim *load_text(const char *text)
{
	aiw_sim *sim;
	ck_assert_int_eq(aiw_sim_create(&sim, 1), AIW_OK);
	AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim, text, "test.ini"));
	return sim;
}

/* the index of the first warning containing `part', or -1 */
static int warning_with(aiw_sim *sim, const char *part)
{
	size_t n = 0;
	AIW_OK_OR_FAIL(sim, aiw_sim_warning_count(sim, &n));
	for (size_t i = 0; i < n; i++) {
		const char *w;
		AIW_OK_OR_FAIL(sim, aiw_sim_warning(sim, i, &w));
		if (strstr(w, part))
			return (int)i;
	}
	return -1;
}

static size_t warning_count(aiw_sim *sim)
{
	size_t n = 0;
	AIW_OK_OR_FAIL(sim, aiw_sim_warning_count(sim, &n));
	return n;
}

/* 3 replicas of 8 H100 serving a 70B model at 60 requests/s: about 10/s
 * complete, the queue grows through the run */
static const char OVERLOADED[] = "[sim]\nduration = 20min\n"
                                 "[inference chat]\ngpu = H100-SXM\ngpus_per_replica = 8\n"
                                 "replicas = 3\nmodel_params = 70e9\nrate = 60/s\n";

START_TEST(overloaded_fleet_flagged)
{
	aiw_sim *sim = load_text(OVERLOADED);
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert_msg(warning_with(sim, "inference.chat is overloaded") >= 0,
	              "no overload warning (%zu warnings)", warning_count(sim));
	ck_assert(aiwi_test_metric(sim, "inference.chat.overloaded") == 1);
	double arrived = aiwi_test_metric(sim, "inference.chat.requests_arrived");
	double waiting = aiwi_test_metric(sim, "inference.chat.requests_waiting");
	ck_assert_msg(waiting > 0.25 * arrived, "waiting %g of %g", waiting, arrived);
	/* stepping on: one warning, the flag still set */
	AIW_OK_OR_FAIL(sim, aiw_sim_run_until(sim, 1500));
	size_t n = warning_count(sim);
	AIW_OK_OR_FAIL(sim, aiw_sim_run_until(sim, 1800));
	ck_assert_uint_eq(warning_count(sim), n);
	/* the JSON carries the flag and the warnings */
	char path[256];
	FILE *f = aiwi_test_tmpfile(path, sizeof path);
	fclose(f);
	AIW_OK_OR_FAIL(sim, aiw_sim_write_json(sim, path));
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	static char buf[1 << 20];
	size_t len = fread(buf, 1, sizeof buf - 1, f);
	buf[len] = 0;
	fclose(f);
	remove(path);
	ck_assert_msg(strstr(buf, "\"inference.chat.overloaded\": 1"), "no flag in the JSON");
	ck_assert_msg(strstr(buf, "\"warnings\": [\n    \"inference.chat is overloaded"),
	              "no warnings in the JSON");
	aiw_sim_free(sim);

	/* the same fleet at a rate it serves: no warning, no flag, and the
	 * JSON has no warnings member */
	sim = load_text(OVERLOADED);
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "inference.chat.rate", "2/s"));
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert_uint_eq(warning_count(sim), 0);
	double v;
	ck_assert_int_ne(aiw_sim_metric(sim, "inference.chat.overloaded", &v), AIW_OK);
	f = aiwi_test_tmpfile(path, sizeof path);
	fclose(f);
	AIW_OK_OR_FAIL(sim, aiw_sim_write_json(sim, path));
	f = fopen(path, "r");
	len = fread(buf, 1, sizeof buf - 1, f);
	buf[len] = 0;
	fclose(f);
	remove(path);
	ck_assert(!strstr(buf, "\"warnings\""));
	ck_assert(len > 3 && strcmp(buf + len - 4, "}\n}\n") == 0);
	aiw_sim_free(sim);

	/* a queue limit bounds the queue, not the overload: the drops count */
	sim = load_text(OVERLOADED);
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "inference.chat.queue_limit", "50"));
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert(aiwi_test_metric(sim, "inference.chat.overloaded") == 1);
	ck_assert(warning_with(sim, "dropped for waiting") >= 0);
	aiw_sim_free(sim);
}
END_TEST

START_TEST(settings_without_effect_warned)
{
	static const struct {
		const char *set, *value, *mode, *mode_value; /* mode NULL: none */
		bool warns;
	} C[] = {
		{"inference.chat.mfu", "0.4", NULL, NULL, true},
		{"inference.chat.mfu", "0.4", "inference.chat.timing", "roofline", false},
		{"inference.chat.mem_bw_efficiency", "0.6", NULL, NULL, true},
		{"inference.chat.mem_bw_efficiency", "0.6", "inference.chat.timing", "roofline", false},
		/* hpa on the busy fraction reads target_utilization */
		{"inference.chat.target_value", "5", "inference.chat.autoscaler", "hpa", true},
		{"inference.chat.target_utilization", "0.5", "inference.chat.autoscaler", "hpa", false},
		/* the kpa reads target_value on every metric */
		{"inference.chat.target_value", "5", "inference.chat.autoscaler", "kpa", false},
		{"inference.chat.target_utilization", "0.5", "inference.chat.autoscaler", "kpa", true},
		/* a fixed fleet reads neither */
		{"inference.chat.target_value", "5", NULL, NULL, true},
		/* each policy reads its own settings */
		{"inference.chat.kpa_tick", "3", "inference.chat.autoscaler", "hpa", true},
		{"inference.chat.kpa_tick", "3", "inference.chat.autoscaler", "kpa", false},
		{"inference.chat.hpa_tolerance", "0.2", "inference.chat.autoscaler", "kpa", true},
		{"inference.chat.hpa_tolerance", "0.2", "inference.chat.autoscaler", "hpa", false},
		{"inference.chat.hpa_tolerance", "0.2", "inference.chat.autoscaler", "predictive", false},
		{"inference.chat.predictive_headroom", "1", "inference.chat.autoscaler", "hpa", true},
		{"inference.chat.max_replicas", "4", NULL, NULL, true},
		{"inference.chat.max_replicas", "4", "inference.chat.autoscaler", "hpa", false},
		{"inference.chat.min_replicas", "2", NULL, NULL, true},
		/* the scrape interval: the kpa's windows, the hpa's concurrency */
		{"inference.chat.metric_interval", "2", "inference.chat.autoscaler", "hpa", true},
		{"inference.chat.metric_interval", "2", "inference.chat.autoscaler", "kpa", false},
		/* the token budget is chunked prefill's */
		{"inference.chat.max_num_batched_tokens", "4096", NULL, NULL, true},
		{"inference.chat.max_num_batched_tokens", "4096", "inference.chat.chunked_prefill", "on",
		 false},
		/* prefix caching and the conversations' settings need sessions */
		{"inference.chat.prefix_caching", "on", NULL, NULL, true},
		{"inference.chat.prefix_caching", "on", "inference.chat.sessions", "on", false},
		{"inference.chat.think_time", "exp(5s)", NULL, NULL, true},
		{"inference.chat.system_prompts", "3", "inference.chat.sessions", "on", false},
	};
	for (size_t i = 0; i < sizeof C / sizeof *C; i++) {
		aiw_sim *sim = load_text("[sim]\nduration = 1min\n[inference chat]\nrate = 1/s\n");
		AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, C[i].set, C[i].value));
		if (C[i].mode)
			AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, C[i].mode, C[i].mode_value));
		AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
		char part[256];
		snprintf(part, sizeof part, "%s = %s has no effect", C[i].set, C[i].value);
		int w = warning_with(sim, part);
		ck_assert_msg((w >= 0) == C[i].warns, "case %zu (%s = %s, %s = %s): warned %d", i,
		              C[i].set, C[i].value, C[i].mode ? C[i].mode : "-",
		              C[i].mode_value ? C[i].mode_value : "-", w >= 0);
		aiw_sim_free(sim);
	}
	/* a default is not a setting: nothing given, nothing warned */
	aiw_sim *sim = load_text("[sim]\nduration = 1min\n[inference chat]\nrate = 1/s\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert_uint_eq(warning_count(sim), 0);
	aiw_sim_free(sim);
}
END_TEST

/* Every mode of the registry names an enum parameter of the same kind and
 * values among its choices. */
START_TEST(mode_table_well_formed)
{
	size_t n, rows = 0;
	ck_assert_int_eq(aiw_param_count(&n), AIW_OK);
	const char *m;
	ck_assert_int_eq(aiw_param_mode(n, &m), AIW_ERANGE);
	ck_assert_int_eq(aiw_param_mode(0, NULL), AIW_EINVAL);
	size_t i;
	ck_assert_int_eq(aiw_param_find("inference.NAME.mfu", &i), AIW_OK);
	ck_assert_int_eq(aiw_param_mode(i, &m), AIW_OK);
	ck_assert_str_eq(m, "timing=roofline");
	ck_assert_int_eq(aiw_param_find("inference.NAME.replicas", &i), AIW_OK);
	ck_assert_int_eq(aiw_param_mode(i, &m), AIW_OK);
	ck_assert_str_eq(m, "");
	ck_assert_int_eq(aiw_param_find("inference.NAME.rate", &i), AIW_OK);
	ck_assert_int_eq(aiw_param_mode(i, &m), AIW_OK);
	ck_assert_str_eq(m, "disaggregation=off|prefill"); /* a decode pool draws no arrivals */
	for (i = 0; i < n; i++) {
		const char *name;
		ck_assert_int_eq(aiw_param_info(i, &name, NULL, NULL, NULL, NULL, NULL, NULL, NULL),
		                 AIW_OK);
		ck_assert_int_eq(aiw_param_mode(i, &m), AIW_OK);
		if (!*m)
			continue;
		rows++;
		/* "kind.NAME." of this parameter */
		char prefix[128];
		const char *last = strrchr(name, '.');
		snprintf(prefix, sizeof prefix, "%.*s", (int)(last - name + 1), name);
		char buf[512];
		snprintf(buf, sizeof buf, "%s", m);
		char *save1 = NULL;
		for (char *alt = strtok_r(buf, ";", &save1); alt; alt = strtok_r(NULL, ";", &save1)) {
			char *save2 = NULL;
			for (char *cond = strtok_r(alt, " ", &save2); cond;
			     cond = strtok_r(NULL, " ", &save2)) {
				char *eq = strchr(cond, '=');
				ck_assert_msg(eq, "%s: condition '%s' has no '='", name, cond);
				*eq = 0;
				char full[256];
				snprintf(full, sizeof full, "%s%s", prefix, cond);
				size_t j;
				ck_assert_msg(aiw_param_find(full, &j) == AIW_OK, "%s: no mode %s", name, full);
				const char *type, *choices;
				aiw_param_info(j, NULL, &type, NULL, NULL, NULL, NULL, &choices, NULL);
				ck_assert_msg(strcmp(type, "enum") == 0, "%s: mode %s is no enum", name, full);
				char *save3 = NULL;
				for (char *v = strtok_r(eq + 1, "|", &save3); v; v = strtok_r(NULL, "|", &save3)) {
					char cb[512];
					snprintf(cb, sizeof cb, "|%s|", choices);
					char want[128];
					snprintf(want, sizeof want, "|%s|", v);
					ck_assert_msg(strstr(cb, want), "%s: %s has no choice %s (%s)", name, full,
					              v, choices);
				}
			}
		}
	}
	ck_assert_uint_ge(rows, 4);
}
END_TEST

/* Every breakdown of the summary adds up to its total: in each kind's
 * metric catalogue, the rows labelled "  ..." (two spaces, a part) that
 * follow a total listed here are its parts. */
static void check_breakdowns(aiw_sim *sim, const char *prefix, const char *kind)
{
	static const char *const TOTALS[] = {"wall_s", "requests_dropped", "requests_in_flight",
	                                     "memory_per_gpu_bytes"};
	size_t nm;
	ck_assert_int_eq(aiw_metric_count(&nm), AIW_OK);
	size_t checked = 0;
	for (size_t t = 0; t < sizeof TOTALS / sizeof *TOTALS; t++) {
		char total_name[256];
		snprintf(total_name, sizeof total_name, "%s.NAME.%s", kind, TOTALS[t]);
		size_t i;
		for (i = 0; i < nm; i++) {
			const char *name;
			aiw_metric_info(i, &name, NULL, NULL, NULL, NULL, NULL, NULL);
			if (strcmp(name, total_name) == 0)
				break;
		}
		if (i == nm)
			continue;
		char full[256];
		snprintf(full, sizeof full, "%s.%s", prefix, TOTALS[t]);
		double total;
		if (aiw_sim_metric(sim, full, &total) != AIW_OK)
			continue;
		double sum = 0;
		int parts = 0;
		for (size_t j = i + 1; j < nm; j++) {
			const char *name, *label;
			aiw_metric_info(j, &name, &label, NULL, NULL, NULL, NULL, NULL);
			if (strncmp(label, "  ", 2) != 0 || label[2] == ' ')
				break;
			const char *key = strrchr(name, '.') + 1;
			snprintf(full, sizeof full, "%s.%s", prefix, key);
			double v;
			if (aiw_sim_metric(sim, full, &v) == AIW_OK) {
				sum += v;
				parts++;
			}
		}
		ck_assert_msg(parts >= 2, "%s.%s: %d parts", prefix, TOTALS[t], parts);
		ck_assert_msg(fabs(sum - total) <= 1e-9 * fabs(total) + 1e-9,
		              "%s.%s = %.17g, its %d parts sum to %.17g", prefix, TOTALS[t], total,
		              parts, sum);
		checked++;
	}
	ck_assert_uint_ge(checked, 1);
}

START_TEST(breakdowns_add_up)
{
	/* a pipelined layout with failures and checkpoints: every term of the
	 * wall time, the bubble included */
	aiw_sim *sim = load_text("[sim]\nduration = 2d\nseed = 3\n"
	                         "[training t]\ngpu = A100-80GB\ngpus = 1024\ngpus_per_node = 8\n"
	                         "layers = 48\nhidden = 8192\nheads = 64\nvocab = 50000\nseq_len = 4096\n"
	                         "tp = 8\npp = 8\nmicro_batch = 1\nglobal_batch = 1024\n"
	                         "schedule = 1f1b\ngpu_mtbf = 20000h\n"
	                         "restart_time = const(10min)\ncheckpoint_interval = 2h\n"
	                         "storage_bw = 100GB/s\n"
	                         "jitter = lognormal(median=1,sigma=0.05)\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert_msg(aiwi_test_metric(sim, "training.t.pp_bubble_s") > 0, "no bubble");
	ck_assert_msg(aiwi_test_metric(sim, "training.t.failures") > 0, "no failure");
	check_breakdowns(sim, "training.t", "training");
	aiw_sim_free(sim);
	/* a fleet that drops and ends with requests in flight */
	sim = load_text(OVERLOADED);
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "inference.chat.queue_limit", "50"));
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "inference.chat.timeout", "20s"));
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	check_breakdowns(sim, "inference.chat", "inference");
	aiw_sim_free(sim);
}
END_TEST

/* The built-in site is the one scenario; its SLO column is the fleet's,
 * and a scenario without an objective leaves it NaN. */
START_TEST(diversity_slo_column)
{
	static const char NO_SLO[] =
		"[sim]\nduration = 2h\nsample_interval = 5min\n"
		"[training train]\ngpu = H100-SXM\ngpus = 8\ngpus_per_node = 8\nmodel_params = 7e9\n"
		"[inference serve]\ngpu = H100-SXM\ngpus_per_replica = 2\nreplicas = 2\n"
		"model_params = 7e9\nrate = 0.5/s\n";
	double shares[1] = {0.5}, out[AIW_DIVERSITY_NCOLUMNS];
	char err[512];
	ck_assert_msg(aiw_site_diversity_shares(NO_SLO, 16, shares, 1, out, AIW_DIVERSITY_NCOLUMNS,
	                                        NULL, NULL, err, sizeof err) == AIW_OK,
	              "%s", err);
	ck_assert_msg(isnan(out[AIW_DIVERSITY_SLO_ATTAINMENT]), "SLO column %g without an SLO",
	              out[AIW_DIVERSITY_SLO_ATTAINMENT]);
	ck_assert(out[AIW_DIVERSITY_TTFT_P99_S] > 0);
	char with[sizeof NO_SLO + 32];
	snprintf(with, sizeof with, "%sslo_ttft = 2s\n", NO_SLO);
	ck_assert_msg(aiw_site_diversity_shares(with, 16, shares, 1, out, AIW_DIVERSITY_NCOLUMNS,
	                                        NULL, NULL, err, sizeof err) == AIW_OK,
	              "%s", err);
	ck_assert(out[AIW_DIVERSITY_SLO_ATTAINMENT] >= 0 && out[AIW_DIVERSITY_SLO_ATTAINMENT] <= 1);
	/* the built-in scenario: the text aiworkload run and scenario use */
	const char *d = aiw_default_scenario();
	ck_assert_ptr_nonnull(d);
	ck_assert(strstr(d, "[training pretrain]") && strstr(d, "[inference chat]") &&
	          strstr(d, "slo_ttft = 500ms"));
}
END_TEST

/* max_batch unset: the serving engine's default, vLLM's max_num_seqs for
 * the GPU under continuous batching (1024 on an H100, 256 on an A100),
 * 32 under dynamic batching.  An overloaded fleet fills its batches to the
 * limit (the KV cache of 8 GPUs holds ~1,000 of these requests). */
START_TEST(max_batch_engine_default)
{
	static const struct {
		const char *gpu, *batching;
		double lo, hi; /* batch_size_max in [lo, hi] */
	} C[] = {
		{"H100-SXM", "continuous", 257, 1024},
		{"A100-80GB", "continuous", 256, 256},
		{"H100-SXM", "dynamic", 1, 32},
	};
	for (size_t i = 0; i < sizeof C / sizeof *C; i++) {
		aiw_sim *sim = load_text(OVERLOADED);
		AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.duration", "5min"));
		AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "inference.chat.gpu", C[i].gpu));
		AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "inference.chat.batching", C[i].batching));
		AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
		double b = aiwi_test_metric(sim, "inference.chat.batch_size_max");
		ck_assert_msg(b >= C[i].lo && b <= C[i].hi, "%s %s: largest batch %g, want [%g, %g]",
		              C[i].gpu, C[i].batching, b, C[i].lo, C[i].hi);
		aiw_sim_free(sim);
	}
	/* given, it is the limit */
	aiw_sim *sim = load_text(OVERLOADED);
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.duration", "5min"));
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "inference.chat.max_batch", "48"));
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert(aiwi_test_metric(sim, "inference.chat.batch_size_max") == 48);
	aiw_sim_free(sim);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("flags");
	TCase *tc = tcase_create("flags");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, overloaded_fleet_flagged);
	tcase_add_test(tc, settings_without_effect_warned);
	tcase_add_test(tc, mode_table_well_formed);
	tcase_add_test(tc, breakdowns_add_up);
	tcase_add_test(tc, diversity_slo_column);
	tcase_add_test(tc, max_batch_engine_default);
	suite_add_tcase(s, tc);
	return s;
}

AIW_TEST_MAIN(make_suite)
