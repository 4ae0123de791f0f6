/*
 * test_metrics.c - the metric catalogue (aiw_metric_count, aiw_metric_info)
 * and the kinds' curve tables: well-formed rows, and complete against what
 * runs publish (a metric or a curve without a row fails here); the kinds'
 * flags and the answers of their query hooks.
 */
#include "core/internal.h"
#include "hw/hw.h"
#include "site/cost.h"

#include "../testutil.h"

#include <math.h>
#include <string.h>

START_TEST(catalogue_rows)
{
	size_t n = 0;
	ck_assert_int_eq(aiw_metric_count(&n), AIW_OK);
	ck_assert_int_eq(aiw_metric_count(NULL), AIW_EINVAL);
	ck_assert_uint_gt(n, 100);
	static const char *const UNITS[] = {"W",   "kWh",     "USD", "s",    "1/s", "B",
	                                    "B/s", "h",       "1",   "W/s",  "kg",  "USD/kWh",
	                                    "g/kWh"};
	for (size_t i = 0; i < n; i++) {
		const char *name, *label, *unit, *doc, *prom, *type;
		unsigned flags;
		ck_assert_int_eq(aiw_metric_info(i, &name, &label, &unit, &doc, &prom, &type, &flags),
		                 AIW_OK);
		ck_assert(label[0] && doc[0] && prom[0]);
		bool unit_ok = false;
		for (size_t u = 0; u < sizeof UNITS / sizeof *UNITS; u++)
			unit_ok |= strcmp(unit, UNITS[u]) == 0;
		ck_assert_msg(unit_ok, "%s: unit '%s'", name, unit);
		ck_assert(strcmp(type, "gauge") == 0 || strcmp(type, "counter") == 0);
		ck_assert_uint_eq(flags & ~15u, 0);
		/* NAME exactly for the kinds that have instances */
		char kind[64];
		snprintf(kind, sizeof kind, "%.*s", (int)strcspn(name, "."), name);
		const aiwi_kind *k = aiwi_kind_find(kind);
		ck_assert_msg(k != NULL, "%s: no kind", name);
		ck_assert_int_eq(strstr(name, ".NAME.") != NULL, !aiwi_kind_is(k, AIWI_KIND_SINGLETON));
		for (size_t j = 0; j < i; j++) {
			const char *other;
			aiw_metric_info(j, &other, NULL, NULL, NULL, NULL, NULL, NULL);
			ck_assert_msg(strcmp(name, other) != 0, "%s twice", name);
		}
	}
	ck_assert_int_eq(aiw_metric_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL), AIW_ERANGE);
	/* one operator name, as the exposition writes it */
	size_t i = 0;
	const char *name = "", *prom = "", *type = "";
	for (; i < n; i++) {
		aiw_metric_info(i, &name, NULL, NULL, NULL, &prom, &type, NULL);
		if (strcmp(name, "inference.NAME.requests_arrived") == 0)
			break;
	}
	ck_assert_uint_lt(i, n);
	ck_assert_str_eq(prom, "inference_requests_arrived_total");
	ck_assert_str_eq(type, "counter");
}
END_TEST

static bool catalogued(const char *generic)
{
	size_t n = 0;
	aiw_metric_count(&n);
	for (size_t i = 0; i < n; i++) {
		const char *name;
		aiw_metric_info(i, &name, NULL, NULL, NULL, NULL, NULL, NULL);
		if (strcmp(name, generic) == 0)
			return true;
	}
	return false;
}

/* A run of every kind, with the optional parts (autoscaler, spot, the
 * fixed-fleet comparison, failures and checkpoints, a capacity contract,
 * the grid statistics and the row/hall hierarchy) switched on: each metric it publishes has a row, each curve too. */
START_TEST(runs_publish_catalogued_metrics)
{
	static const char *const SCENARIOS[] = {
		"[sim]\nduration = 2h\n[site]\ncapacity = 10MW\n"
		"[training t]\ngpus = 64\ngpu = H100-SXM\ngpu_mtbf = 1000h\ncheckpoint_interval = auto\n"
		"[inference i]\ngpu = H100-SXM\nreplicas = 2\nrate = 5/s\nautoscaler = kpa\n"
		"spot_fraction = 0.5\nspot_preemption_rate = 1/h\ncompare_fixed = 2\n"
		"[load aux]\nprofile = 0:1kW\n[gpu custom]\nbase = H100-SXM\n",
		/* the grid statistics and the row/hall hierarchy */
		"[sim]\nduration = 1h\n[site]\ngrid = on\ngrid_drop_fraction = 0.5\nracks_per_row = 2\n"
		"rows_per_hall = 2\n"
		"[inference h]\ngpu = H100-SXM\nautoscaler = hpa\nrate = 2/s\n"
		"[load l]\non_time = 10min\noff_time = 5min\non_power = 10kW\nracks = 4\n",
		/* a training job costed from its parallel layout (MoE, 3D) */
		"[sim]\nduration = 2h\n[training l]\ngpu = H100-SXM\ngpus = 256\nlayers = 32\n"
		"hidden = 4096\nheads = 32\nvocab = 32000\nseq_len = 4096\nexperts = 8\n"
		"experts_per_token = 2\ntp = 4\npp = 4\nep = 4\nglobal_batch = 256\n"
		"gpu_mtbf = 1000h\ncheckpoint_interval = 30min\n",
	};
	for (size_t s = 0; s < sizeof SCENARIOS / sizeof *SCENARIOS; s++) {
		aiw_sim *sim;
		ck_assert_int_eq(aiw_sim_create(&sim, 7), AIW_OK);
		AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim, SCENARIOS[s], "test"));
		AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
		size_t n = 0;
		aiw_sim_metric_count(sim, &n);
		for (size_t i = 0; i < n; i++) {
			const char *m;
			aiw_sim_metric_name(sim, i, &m);
			char kind[64], generic[256];
			snprintf(kind, sizeof kind, "%.*s", (int)strcspn(m, "."), m);
			const aiwi_kind *k = aiwi_kind_find(kind);
			ck_assert(k != NULL);
			if (aiwi_kind_is(k, AIWI_KIND_SINGLETON))
				snprintf(generic, sizeof generic, "%s", m);
			else
				snprintf(generic, sizeof generic, "%s.NAME.%s", kind, strrchr(m, '.') + 1);
			ck_assert_msg(catalogued(generic), "%s is published but has no row", generic);
		}
		size_t nc = 0;
		aiw_sim_series_count(sim, &nc);
		for (size_t i = 0; i < nc; i++) {
			const char *cn;
			aiw_sim_series_name(sim, i, &cn);
			char kind[64];
			snprintf(kind, sizeof kind, "%.*s", (int)strcspn(cn, "."), cn);
			const aiwi_kind *k = aiwi_kind_find(kind);
			ck_assert(k != NULL);
			const char *key = aiwi_kind_is(k, AIWI_KIND_SINGLETON) ? strchr(cn, '.') + 1 : strrchr(cn, '.') + 1;
			ck_assert_msg(aiwi_curve_def_find(k, !aiwi_kind_is(k, AIWI_KIND_SINGLETON), key) != NULL,
			              "curve %s has no row", cn);
		}
		aiw_sim_free(sim);
	}
}
END_TEST

/* The curve catalogue: every curve has a unit and a one-line doc, the
 * names are unique, and every curve a run records is in it (the reverse
 * of the check above, through the public interface). */
START_TEST(curve_catalogue)
{
	size_t n = 0;
	ck_assert_int_eq(aiw_curve_count(&n), AIW_OK);
	ck_assert(n > 20);
	ck_assert_int_eq(aiw_curve_count(NULL), AIW_EINVAL);
	ck_assert_int_eq(aiw_curve_info(n, NULL, NULL, NULL), AIW_ERANGE);
	for (size_t i = 0; i < n; i++) {
		const char *name, *unit, *doc;
		ck_assert_int_eq(aiw_curve_info(i, &name, &unit, &doc), AIW_OK);
		ck_assert_msg(*unit && *doc, "curve %s: unit '%s', doc '%s'", name, unit, doc);
		for (size_t j = 0; j < i; j++) {
			const char *other;
			aiw_curve_info(j, &other, NULL, NULL);
			ck_assert_msg(strcmp(name, other) != 0, "curve %s listed twice", name);
		}
	}
	aiw_sim *sim;
	ck_assert_int_eq(aiw_sim_create(&sim, 1), AIW_OK);
	AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim,
	                                        "[sim]\nduration = 1h\n[training t]\ngpus = 8\n"
	                                        "memory_check = warn\n"
	                                        "[inference i]\nrate = 1/s\nautoscaler = hpa\n",
	                                        "t"));
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	size_t nc = 0;
	aiw_sim_series_count(sim, &nc);
	for (size_t i = 0; i < nc; i++) {
		const char *cn, *unit;
		aiw_sim_series_name(sim, i, &cn);
		aiw_sim_series_unit(sim, cn, &unit);
		char generic[256];
		const char *dot = strchr(cn, '.'), *last = strrchr(cn, '.');
		if (dot == last)
			snprintf(generic, sizeof generic, "%s", cn);
		else
			snprintf(generic, sizeof generic, "%.*s.NAME%s", (int)(dot - cn), cn, last);
		bool found = false;
		for (size_t j = 0; j < n && !found; j++) {
			const char *name, *u;
			aiw_curve_info(j, &name, &u, NULL);
			if (strcmp(name, generic) == 0) {
				found = true;
				ck_assert_msg(strcmp(u, unit) == 0, "%s: unit %s, catalogue %s", cn, unit, u);
			}
		}
		ck_assert_msg(found, "curve %s (%s) is recorded but not in the catalogue", cn, generic);
	}
	aiw_sim_free(sim);
}
END_TEST

/* The windowed TTFT P99 (ttft_p99_last_interval_s), published at the end of
 * every run call, is the last point of the ttft_p99_s curve; after an
 * overloaded start, the cumulative P99 keeps the backlog's waits while the
 * last interval's is back to the light-load figure.  One replica serves
 * about 4 requests/s at its full batch of 32 (timing = iteration): at
 * 10/s the first 15 min leave it about 5,400 queued, which the least-loaded
 * router leaves on it (newcomers go to the 15 idle replicas) and it drains
 * in about 1,350 s, well before the last window at 1 h 45 min. */
START_TEST(windowed_percentile)
{
	aiw_sim *sim;
	ck_assert_int_eq(aiw_sim_create(&sim, 3), AIW_OK);
	AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim,
	                                        "[sim]\nduration = 2h\nsample_interval = 1min\n"
	                                        "[inference c]\ngpu = H100-SXM\ngpus_per_replica = 1\n"
	                                        "model_params = 8e9\nreplicas = 1\nrate = 10/s\n",
	                                        "w.ini"));
	const char *name = "inference.c.ttft_p99_s";
	double last = NAN, cum = NAN, first_window = NAN;
	for (int step = 1; step <= 8; step++) {
		if (step == 2) /* 15 min overloaded, then enough replicas */
			AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "inference.c.replicas", "16"));
		AIW_OK_OR_FAIL(sim, aiw_sim_run_until(sim, 900.0 * step));
		size_t n = 0;
		AIW_OK_OR_FAIL(sim, aiw_sim_series_length(sim, name, &n));
		ck_assert_uint_eq(n, 15 * (size_t)step);
		double t[120], v[120];
		size_t got = 0;
		AIW_OK_OR_FAIL(sim, aiw_sim_series_copy(sim, name, t, v, 120, &got));
		ck_assert_uint_eq(got, n);
		AIW_OK_OR_FAIL(sim, aiw_sim_metric(sim, "inference.c.ttft_p99_last_interval_s", &last));
		AIW_OK_OR_FAIL(sim, aiw_sim_metric(sim, "inference.c.ttft_p99_s", &cum));
		/* the same number, bit for bit, as the curve's last point */
		ck_assert_msg(last == v[n - 1] || (isnan(last) && isnan(v[n - 1])),
		              "step %d: %.17g vs the curve's %.17g", step, last, v[n - 1]);
		if (step == 1)
			first_window = last;
	}
	/* overloaded (one replica at 10/s): the queue grows for 15 min, the
	 * waits reach minutes; two hours later the window is light load */
	ck_assert_msg(first_window > 10, "overloaded window P99 %g s", first_window);
	ck_assert_msg(last < 2, "light-load window P99 %g s", last);
	ck_assert_msg(cum > 10 * last, "cumulative P99 %g s vs window %g s", cum, last);
	aiw_sim_free(sim);
}
END_TEST

/* The flags are consistent: one aggregator, a singleton; an accounted kind
 * is sampled and named; telemetry and workloads are accounted. */
START_TEST(kind_flags)
{
	size_t naggregator = 0, nworkload = 0;
	for (size_t i = 0; aiwi_kinds[i]; i++) {
		const aiwi_kind *k = aiwi_kinds[i];
		if (aiwi_kind_is(k, AIWI_KIND_AGGREGATOR)) {
			naggregator++;
			ck_assert_msg(aiwi_kind_is(k, AIWI_KIND_SINGLETON), "%s", k->name);
			ck_assert_msg(k->sample && k->finish, "%s", k->name);
		}
		if (aiwi_kind_is(k, AIWI_KIND_ACCOUNTED))
			ck_assert_msg(k->sample && !aiwi_kind_is(k, AIWI_KIND_SINGLETON), "%s", k->name);
		if (aiwi_kind_is(k, AIWI_KIND_TELEMETRY | AIWI_KIND_WORKLOAD | AIWI_KIND_BASELOAD))
			ck_assert_msg(aiwi_kind_is(k, AIWI_KIND_ACCOUNTED), "%s", k->name);
		nworkload += aiwi_kind_is(k, AIWI_KIND_WORKLOAD);
	}
	ck_assert_uint_eq(naggregator, 1);
	ck_assert_uint_ge(nworkload, 2);
}
END_TEST

/* What a component answers through its kind's query hook: what its
 * parameters say, and "unknown" (out untouched) where it knows nothing. */
START_TEST(kind_queries)
{
	aiw_sim *sim;
	ck_assert_int_eq(aiw_sim_create(&sim, 1), AIW_OK);
	static const char SCEN[] = "[training t]\ngpu = H100-SXM\ngpus = 8\ngpus_per_node = 4\n"
	                           "node_nameplate = 2kW\n"
	                           "[inference i]\ngpu = A100-80GB\ncommitted_gpus = 6\n"
	                           "[load l]\ngpus = 4\n";
	AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim, SCEN, "test"));
	aiwi_comp *t, *inf, *l;
	AIW_OK_OR_FAIL(sim, aiwi_comp_get(sim, "training", "t", false, &t));
	AIW_OK_OR_FAIL(sim, aiwi_comp_get(sim, "inference", "i", false, &inf));
	AIW_OK_OR_FAIL(sim, aiwi_comp_get(sim, "load", "l", false, &l));
	const aiwi_gpu_spec *h100, *a100;
	AIW_OK_OR_FAIL(sim, aiwi_hw_gpu_get(sim, "H100-SXM", &h100));
	AIW_OK_OR_FAIL(sim, aiwi_hw_gpu_get(sim, "A100-80GB", &a100));
	aiwi_answer a = {-1, NULL};
	/* training: 2 kW a node of 4 GPUs */
	ck_assert(aiwi_comp_query(t, AIWI_Q_NAMEPLATE_PER_GPU_W, &a));
	ck_assert_double_eq(a.num, h100->tdp_w + 2000.0 / 4);
	ck_assert(aiwi_comp_query(t, AIWI_Q_GPU_TYPE, &a));
	ck_assert_str_eq(a.text, "H100-SXM");
	a.num = -1;
	ck_assert(!aiwi_comp_query(t, AIWI_Q_COMMITTED_GPUS, &a)); /* unset */
	ck_assert(!aiwi_comp_query(t, AIWI_Q_REPLICA_CURVE, &a));
	ck_assert_double_eq(a.num, -1);
	/* inference: the catalog node rating over 8 GPUs a node; a commitment */
	ck_assert(aiwi_comp_query(inf, AIWI_Q_NAMEPLATE_PER_GPU_W, &a));
	ck_assert_double_eq(a.num, a100->tdp_w + a100->node_nameplate_w / 8);
	ck_assert(aiwi_comp_query(inf, AIWI_Q_COMMITTED_GPUS, &a));
	ck_assert_double_eq(a.num, 6);
	ck_assert(aiwi_comp_query(inf, AIWI_Q_REPLICA_CURVE, &a));
	ck_assert_ptr_nonnull(aiwi_curve_def_find(inf->kind, true, a.text));
	/* network and storage prices: the hourly price per GPU-second */
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "inference.i.network_price_per_h", "0.36"));
	ck_assert(aiwi_comp_query(inf, AIWI_Q_NETWORK_RATE, &a));
	ck_assert_double_eq(a.num, 0.36 / 3600.0);
	/* the pricing mode: owned by default, rented on demand when set so */
	ck_assert(aiwi_comp_query(inf, AIWI_Q_PRICING, &a));
	ck_assert_int_eq((int)a.num, AIW_PRICING_CAPEX);
	ck_assert(aiwi_cost_committed(inf));
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "load.l.pricing", "ondemand"));
	ck_assert(aiwi_comp_query(l, AIWI_Q_PRICING, &a));
	ck_assert_int_eq((int)a.num, AIW_PRICING_ONDEMAND);
	ck_assert(!aiwi_cost_committed(l));
	/* a scripted load with no catalog GPU: no rating */
	a.num = -1;
	ck_assert(!aiwi_comp_query(l, AIWI_Q_NAMEPLATE_PER_GPU_W, &a));
	ck_assert(!aiwi_comp_query(l, AIWI_Q_GPU_TYPE, &a));
	/* kinds without a hook: unknown to everything */
	for (size_t i = 0; i < aiwi_ncomps(sim); i++) {
		aiwi_comp *c = aiwi_comp_at(sim, i);
		if (c->kind->query)
			continue;
		for (int q = AIWI_Q_NAMEPLATE_PER_GPU_W; q <= AIWI_Q_STORAGE_RATE; q++)
			ck_assert_msg(!aiwi_comp_query(c, (aiwi_query)q, &a), "%s %d", c->prefix, q);
	}
	ck_assert_double_eq(a.num, -1);
	ck_assert(!aiwi_comp_query(NULL, AIWI_Q_GPU_TYPE, &a));
	aiw_sim_free(sim);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("metrics");
	TCase *tc = tcase_create("catalogue");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, catalogue_rows);
	tcase_add_test(tc, runs_publish_catalogued_metrics);
	tcase_add_test(tc, curve_catalogue);
	tcase_add_test(tc, windowed_percentile);
	tcase_add_test(tc, kind_flags);
	tcase_add_test(tc, kind_queries);
	suite_add_tcase(s, tc);
	return s;
}

AIW_TEST_MAIN(make_suite)
