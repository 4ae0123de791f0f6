/* test_cost.c - cost accounting: capex and on-demand hardware cost, energy
 * at facility energy x price, provisioned capacity, idle cost, cumulative
 * cost curves, exactness when a run stops between ticks, and bad prices. */
#include "site/cost.h"
#include "core/internal.h"
#include "../testutil.h"

#include <math.h>
#include <string.h>

static aiw_sim *load_text(const char *text)
{
	aiw_sim *sim;
	ck_assert_int_eq(aiw_sim_create(&sim, 1), AIW_OK);
	AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim, text, "test.ini"));
	return sim;
}

static double param(aiw_sim *sim, const char *name)
{
	double v;
	AIW_OK_OR_FAIL(sim, aiw_sim_get_double(sim, name, &v));
	return v;
}

static double curve_last(aiw_sim *sim, const char *name)
{
	size_t n;
	AIW_OK_OR_FAIL(sim, aiw_sim_series_length(sim, name, &n));
	double *v = malloc(n * sizeof *v);
	AIW_OK_OR_FAIL(sim, aiw_sim_series_copy(sim, name, NULL, v, n, &n));
	double x = v[n - 1];
	free(v);
	return x;
}

#define curve_integral aiwi_test_curve_integral

/* 8 GPUs drawing 10 kW, busy in [0, 1h) and [3h, 10h), idle in [1h, 3h);
 * samples every 47 min (nothing aligns) */
#define JOB                                                                                  \
	"[sim]\nduration = 10h\nsample_interval = 47min\n"                                   \
	"[site]\npue = 1.2\nelectricity_price = 0.1\n"                                       \
	"[load job]\nprofile = 0:10kW, 1h:0W, 3h:10kW\ngpus = 8\n"

START_TEST(capex_exact)
{
	aiw_sim *sim = load_text(JOB "gpu_price = 30000\nlifetime = 4y\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	double rate = 30000 / param(sim, "load.job.lifetime"); /* USD per GPU-second */
	double hw = 8 * 36000 * rate, idle = 8 * 7200 * rate;
	double energy = 80 * 1.2 * 0.1; /* 80 kWh IT x PUE x price */
	ck_assert_rel(aiwi_test_metric(sim, "site.hardware_cost_usd"), hw, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "load.job.hardware_cost_usd"), hw, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "site.energy_cost_usd"), energy, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "load.job.energy_cost_usd"), energy, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "site.cost_usd"), hw + energy, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "load.job.cost_usd"), hw + energy, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "site.idle_cost_usd"), idle, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "load.job.idle_cost_usd"), idle, 1e-12);
	ck_assert(aiwi_test_metric(sim, "site.capacity_cost_usd") == 0);
	ck_assert_rel(aiwi_test_metric(sim, "site.utilization"), 0.8, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "site.gpu_hours"), 80, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "site.busy_gpu_hours"), 64, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "site.cost_per_gpu_hour_usd"), (hw + energy) / 80, 1e-12);
	/* curves: the cumulative cost ends at the metric, the cost rate
	 * integrates to it */
	ck_assert_rel(curve_last(sim, "site.cost_usd"), hw + energy, 1e-12);
	ck_assert_rel(curve_last(sim, "load.job.cost_usd"), hw + energy, 1e-12);
	ck_assert_rel(curve_integral(sim, "site.cost_rate_usd_per_h") / 3600, hw + energy, 1e-9);
	ck_assert_rel(curve_integral(sim, "load.job.cost_rate_usd_per_h") / 3600, hw, 1e-9);
	aiw_sim_free(sim);
}
END_TEST

START_TEST(ondemand_exact)
{
	aiw_sim *sim = load_text(JOB "pricing = ondemand\nondemand_price = 2.5\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	/* 8 GPUs x 10 h x 2.5 USD/h; idle 8 x 2 h */
	ck_assert_rel(aiwi_test_metric(sim, "site.hardware_cost_usd"), 200, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "site.idle_cost_usd"), 40, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "site.cost_usd"), 200 + 9.6, 1e-12);
	aiw_sim_free(sim);
}
END_TEST

START_TEST(catalog_prices)
{
	double h100_h, h100_price;
	ck_assert_int_eq(aiw_catalog_gpu_value("H100-SXM", "ondemand_usd_per_h", &h100_h), AIW_OK);
	ck_assert_int_eq(aiw_catalog_gpu_value("H100-SXM", "price_usd", &h100_price), AIW_OK);
	ck_assert(h100_h > 0 && h100_price > 0);
	aiw_sim *sim = load_text(JOB "gpu = H100-SXM\npricing = ondemand\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert_rel(aiwi_test_metric(sim, "site.hardware_cost_usd"), 80 * h100_h, 1e-12);
	aiw_sim_free(sim);
	sim = load_text(JOB "gpu = h100-sxm\nlifetime = 5y\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert_rel(aiwi_test_metric(sim, "site.hardware_cost_usd"),
	              8 * 36000 * h100_price / param(sim, "load.job.lifetime"), 1e-12);
	aiw_sim_free(sim);
	/* no gpu type and no price: the GPUs are free */
	sim = load_text(JOB);
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert(aiwi_test_metric(sim, "site.hardware_cost_usd") == 0);
	ck_assert(aiwi_test_metric(sim, "site.idle_cost_usd") == 0);
	ck_assert_rel(aiwi_test_metric(sim, "site.cost_usd"), 9.6, 1e-12);
	aiw_sim_free(sim);
}
END_TEST

START_TEST(stop_between_ticks)
{
	/* stopped at 5000 s (inside the second 47-min interval): every cost is
	 * the exact integral up to 5000 s, not up to the last tick */
	aiw_sim *sim = load_text(JOB "pricing = ondemand\nondemand_price = 3.6\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run_until(sim, 5000));
	double rate = 3.6 / 3600;
	/* IT energy: 10 kW for 1 h */
	ck_assert_rel(aiwi_test_metric(sim, "site.energy_cost_usd"), 10 * 1.2 * 0.1, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "site.hardware_cost_usd"), 8 * 5000 * rate, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "site.idle_cost_usd"), 8 * 1400 * rate, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "site.utilization"), 3600.0 / 5000, 1e-12);
	/* twice at the same time: idempotent */
	AIW_OK_OR_FAIL(sim, aiw_sim_run_until(sim, 5000));
	ck_assert_rel(aiwi_test_metric(sim, "site.idle_cost_usd"), 8 * 1400 * rate, 1e-12);
	AIW_OK_OR_FAIL(sim, aiw_sim_run_until(sim, 12345));
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert_rel(aiwi_test_metric(sim, "site.hardware_cost_usd"), 8 * 10 * 3.6, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "site.idle_cost_usd"), 8 * 2 * 3.6, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "site.energy_cost_usd"), 9.6, 1e-12);
	aiw_sim_free(sim);
}
END_TEST

START_TEST(capacity_charge)
{
	const double month = 365.25 / 12 * 86400;
	/* derived from the run: 10 kW IT peak x PUE 1.2 x (1 + 0.1) = 13.2 kW at
	 * 12 USD per kW-month over 10 h */
	aiw_sim *sim = load_text(JOB "[site]\ncapacity_price = 12\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	double cap = 13.2 * 12 * 36000 / month;
	ck_assert_rel(aiwi_test_metric(sim, "site.provisioned_power_w"), 13200, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "site.capacity_cost_usd"), cap, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "site.cost_usd"), 9.6 + cap, 1e-12);
	aiw_sim_free(sim);
	/* contracted 20 kW: accrues linearly, so the cumulative curve carries it */
	sim = load_text(JOB "[site]\ncapacity_price = 12\ncapacity = 20kW\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	cap = 20 * 12 * 36000 / month;
	ck_assert_rel(aiwi_test_metric(sim, "site.capacity_cost_usd"), cap, 1e-12);
	ck_assert_rel(curve_last(sim, "site.cost_usd"), 9.6 + cap, 1e-12);
	ck_assert_rel(curve_integral(sim, "site.cost_rate_usd_per_h") / 3600, 9.6 + cap, 1e-9);
	ck_assert_rel(aiwi_test_metric(sim, "site.capacity_headroom_w"), 20000 - 12000, 1e-12);
	aiw_sim_free(sim);
}
END_TEST

START_TEST(energy_price_helper)
{
	aiw_sim *sim = load_text("[site]\npue = 1.4\nelectricity_price = 0.2\n"
	                         "[load job]\nprofile = 0:1kW\n");
	/* 1 kWh of IT energy: 1.4 kWh of facility energy at 0.2 USD */
	aiwi_comp *job = NULL;
	for (size_t i = 0; i < aiwi_ncomps(sim); i++)
		if (strcmp(aiwi_comp_at(sim, i)->prefix, "load.job") == 0)
			job = aiwi_comp_at(sim, i);
	ck_assert_ptr_nonnull(job);
	job->energy_j = 3.6e6;
	ck_assert_rel(aiwi_cost_energy_usd(job), 0.28, 1e-15);
	aiw_sim_free(sim);
}
END_TEST

START_TEST(bad_prices)
{
	aiw_sim *sim;
	ck_assert_int_eq(aiw_sim_create(&sim, 1), AIW_OK);
	struct {
		const char *name, *value, *msg;
	} cases[] = {
		{"site.electricity_price", "0", "outside the range"},
		{"site.electricity_price", "-0.08", "outside the range"},
		{"site.pue", "0.99", "0.99 is outside the range [1, 5]"},
		{"site.capacity_price", "0", "outside the range"},
		{"site.capacity", "-1kW", "outside the range"},
		{"load.x.gpu_price", "0", "outside the range"},
		{"load.x.gpu_price", "-30000", "outside the range"},
		{"load.x.ondemand_price", "0", "outside the range"},
		{"load.x.lifetime", "0s", "outside the range"},
		{"load.x.pricing", "lease", "is not one of capex|ondemand"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		aiw_status st = aiw_sim_set(sim, cases[i].name, cases[i].value);
		ck_assert_msg(st == AIW_ERANGE || st == AIW_EPARSE, "%s = %s: %s", cases[i].name,
		              cases[i].value, aiw_status_name(st));
		ck_assert_msg(strstr(aiw_sim_errmsg(sim), cases[i].name) &&
		                      strstr(aiw_sim_errmsg(sim), cases[i].msg),
		              "%s = %s: '%s'", cases[i].name, cases[i].value, aiw_sim_errmsg(sim));
	}
	aiw_sim_free(sim);
}
END_TEST

START_TEST(unknown_gpu)
{
	aiw_sim *sim = load_text(JOB "gpu = H100\n");
	ck_assert_int_eq(aiw_sim_run(sim), AIW_EUNKNOWN);
	const char *m = aiw_sim_errmsg(sim);
	ck_assert_msg(strstr(m, "load.job.gpu") && strstr(m, "did you mean") && strstr(m, "H100-SXM"),
	              "%s", m);
	aiw_sim_free(sim);
}
END_TEST

START_TEST(missing_price)
{
	/* a GPU the catalog has no price for: the model is told which parameter
	 * to set */
	aiw_sim *sim = load_text("[load x]\ngpus = 1\n");
	aiwi_comp *c;
	AIW_OK_OR_FAIL(sim, aiwi_comp_get(sim, "load", "x", false, &c));
	size_t first = aiwi_kind_param_index(c->kind, "pricing");
	ck_assert(first != SIZE_MAX);
	aiwi_gpu_spec g = {.name = "NOPRICE"};
	aiwi_pricing p;
	ck_assert_int_eq(aiwi_cost_pricing(c, first, &g, &p), AIW_ERANGE);
	ck_assert_msg(strstr(aiw_sim_errmsg(sim), "load.x.gpu_price") &&
	                      strstr(aiw_sim_errmsg(sim), "NOPRICE"),
	              "%s", aiw_sim_errmsg(sim));
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "load.x.pricing", "ondemand"));
	ck_assert_int_eq(aiwi_cost_pricing(c, first, &g, &p), AIW_ERANGE);
	ck_assert_msg(strstr(aiw_sim_errmsg(sim), "load.x.ondemand_price"), "%s",
	              aiw_sim_errmsg(sim));
	g.ondemand_usd_per_h = 7.2;
	AIW_OK_OR_FAIL(sim, aiwi_cost_pricing(c, first, &g, &p));
	ck_assert_rel(p.usd_per_gpu_s, 0.002, 1e-15);
	/* node_overhead unset: the HGX H100 node's measured 2.8 kW of its
	 * 4.6 kW rated beyond the GPUs, scaled with node_nameplate; set, as
	 * set */
	ck_assert_double_eq(p.node_overhead_w, 2800);
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "load.x.node_nameplate", "3.3kW"));
	AIW_OK_OR_FAIL(sim, aiwi_cost_pricing(c, first, &g, &p));
	ck_assert_rel(p.node_overhead_w, 3300 * 2800.0 / 4600, 1e-15);
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "load.x.node_overhead", "1.5kW"));
	AIW_OK_OR_FAIL(sim, aiwi_cost_pricing(c, first, &g, &p));
	ck_assert_double_eq(p.node_overhead_w, 1500);
	aiw_sim_free(sim);
	/* through a run: ondemand pricing named, no gpu type, no rental price */
	sim = load_text(JOB "pricing = ondemand\ngpu_price = 1000\n");
	ck_assert_int_eq(aiw_sim_run(sim), AIW_ERANGE);
	ck_assert_msg(strstr(aiw_sim_errmsg(sim), "load.job.ondemand_price"), "%s",
	              aiw_sim_errmsg(sim));
	aiw_sim_free(sim);
}
END_TEST

/* site.capacity below the facility peak: the run goes on (status OK, the
 * load not capped), the headroom is negative, and one warning says so with
 * both figures; none when the capacity holds; reset clears them. */
START_TEST(capacity_exceeded_warns)
{
	/* 10 kW IT x PUE 1.2 = 12 kW facility peak */
	aiw_sim *sim = load_text(JOB "gpu_price = 30000\n[site]\ncapacity = 11kW\n");
	size_t n = 99;
	const char *w = NULL;
	AIW_OK_OR_FAIL(sim, aiw_sim_warning_count(sim, &n));
	ck_assert_uint_eq(n, 0);
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert_rel(aiwi_test_metric(sim, "site.capacity_headroom_w"), -1000, 1e-9);
	ck_assert_rel(aiwi_test_metric(sim, "site.facility_power_peak_w"), 12000, 1e-9);
	AIW_OK_OR_FAIL(sim, aiw_sim_warning_count(sim, &n));
	ck_assert_uint_eq(n, 1);
	AIW_OK_OR_FAIL(sim, aiw_sim_warning(sim, 0, &w));
	ck_assert_msg(strstr(w, "site.capacity 11 kW exceeded") && strstr(w, "12 kW") &&
	                      strstr(w, "-1 kW"),
	              "%s", w);
	ck_assert_int_eq(aiw_sim_warning(sim, 1, &w), AIW_ERANGE);
	ck_assert_msg(strstr(aiw_sim_errmsg(sim), "warning index 1: there are 1"), "%s",
	              aiw_sim_errmsg(sim));
	ck_assert_int_eq(aiw_sim_warning(sim, 0, NULL), AIW_EINVAL);
	ck_assert_int_eq(aiw_sim_warning_count(sim, NULL), AIW_EINVAL);
	ck_assert_int_eq(aiw_sim_warning_count(NULL, &n), AIW_EINVAL);
	ck_assert_int_eq(aiw_sim_warning(NULL, 0, &w), AIW_EINVAL);
	AIW_OK_OR_FAIL(sim, aiw_sim_reset(sim));
	AIW_OK_OR_FAIL(sim, aiw_sim_warning_count(sim, &n));
	ck_assert_uint_eq(n, 0);
	/* a capacity that holds: no warning */
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "site.capacity", "12.5kW"));
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert_rel(aiwi_test_metric(sim, "site.capacity_headroom_w"), 500, 1e-9);
	AIW_OK_OR_FAIL(sim, aiw_sim_warning_count(sim, &n));
	ck_assert_uint_eq(n, 0);
	aiw_sim_free(sim);
}
END_TEST

/* The store: a text given twice is kept once; past the cap the last entry
 * counts the rest. */
START_TEST(warnings_store)
{
	aiw_sim *sim;
	ck_assert_int_eq(aiw_sim_create(&sim, 1), AIW_OK);
	aiwi_warn(sim, "same %d", 1);
	aiwi_warn(sim, "same %d", 1);
	size_t n = 0;
	AIW_OK_OR_FAIL(sim, aiw_sim_warning_count(sim, &n));
	ck_assert_uint_eq(n, 1);
	for (int i = 0; i < 100; i++)
		aiwi_warn(sim, "warning %d", i);
	AIW_OK_OR_FAIL(sim, aiw_sim_warning_count(sim, &n));
	ck_assert_uint_eq(n, AIWI_WARNINGS_MAX);
	const char *w;
	AIW_OK_OR_FAIL(sim, aiw_sim_warning(sim, AIWI_WARNINGS_MAX - 2, &w));
	ck_assert_str_eq(w, "warning 61");
	AIW_OK_OR_FAIL(sim, aiw_sim_warning(sim, AIWI_WARNINGS_MAX - 1, &w));
	/* 101 distinct warnings, 63 kept, 38 counted */
	ck_assert_msg(strstr(w, "38 more warnings not kept (at most 63 are)"), "%s", w);
	aiw_sim_free(sim);
}
END_TEST

/* Inference cost per million tokens as serving is priced: with C the
 * fleet's cost (hardware + energy at the site's PUE and price), N_in the
 * prompt tokens of the admitted requests (each once), N_out the generated
 * tokens and k = output_price_ratio, input = C / (N_in + k N_out), output =
 * k x input, blended = C / (N_in + N_out); cost_per_mtok_usd stays C /
 * N_out.  Both admission paths (eager cuts; a timeout forces the boundary
 * events), 2,048-token prompts and 28-token outputs as the Azure code
 * trace's medians. */
#define FLEET(NAME, EXTRA)                                                                    \
	"[inference " NAME "]\ngpu = H100-SXM\nmodel_params = 8e9\ntraffic = poisson\n"        \
	"rate = 3/s\nreplicas = 2\nprompt_tokens = 2048\noutput_tokens = 28\n" EXTRA
START_TEST(inference_token_prices)
{
	aiw_sim *sim = load_text("[sim]\nduration = 20min\nsample_interval = 1min\n"
	                         FLEET("a", "") FLEET("b", "timeout = 1h\noutput_price_ratio = 1\n"));
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	static const char *const names[2] = {"a", "b"};
	for (int i = 0; i < 2; i++) {
		char n[128];
#define IM(key) (snprintf(n, sizeof n, "inference.%s.%s", names[i], key), aiwi_test_metric(sim, n))
		double c = IM("cost_usd"), nin = IM("tokens_in"), nout = IM("tokens_out");
		double k = i == 0 ? 4 : 1;
		ck_assert(nout > 1000);
		ck_assert_double_eq(nin, 2048 * IM("requests_started"));
		double pin = IM("cost_per_mtok_input_usd"), pout = IM("cost_per_mtok_output_usd");
		ck_assert_rel(pin, c / (nin + k * nout) * 1e6, 1e-12);
		ck_assert_rel(pout, k * pin, 1e-12);
		ck_assert(nin > 0 && nout > 0 && pin > 0);
		ck_assert_rel((nin * pin + nout * pout) / 1e6, c, 1e-12);
		ck_assert_rel(IM("cost_per_mtok_blended_usd"), c / (nin + nout) * 1e6, 1e-12);
		ck_assert_rel(IM("cost_per_mtok_usd"), c / nout * 1e6, 1e-12);
		/* the output-only figure is 1 + N_in / N_out ~ 74 times the blended one */
		double out_only = IM("cost_per_mtok_usd"), blended = IM("cost_per_mtok_blended_usd");
		ck_assert(out_only > 50 * blended);
#undef IM
	}
	aiw_sim_free(sim);
}
END_TEST

/* Autoscaling released capacity: peak x GPUs x time - provisioned
 * GPU-hours.  Rented (ondemand), the released GPU-hours are not paid: the
 * saving against the fixed fleet is the hardware and energy difference.
 * Owned (capex), they are paid anyway (stranded): against a fixed fleet of
 * the peak size (compare_fixed = auto) the saving is the energy alone.
 * At 7/s the diurnal peak needs 16 replicas (timing = iteration), below
 * max_replicas: the autoscaler follows the load instead of its cap. */
#define HPA_FLEET                                                                             \
	"[sim]\nduration = 6h\nsample_interval = 1min\n"                                      \
	"[inference hpa]\ngpus_per_replica = 2\nweight_bits = 8\ntraffic = diurnal\n"         \
	"rate = 7/s\npeak_to_trough = 10\npeak_hour = 4\nreplicas = 4\nautoscaler = hpa\n"     \
	"min_replicas = 2\nmax_replicas = 24\nmetric = concurrency\ntarget_value = 12\n"        \
	"cold_start = uniform(10s,30s)\ncompare_fixed = auto\n"
START_TEST(autoscale_stranded_vs_released)
{
	for (int owned = 0; owned < 2; owned++) {
		aiw_sim *sim = load_text(owned ? HPA_FLEET "pricing = capex\n"
		                               : HPA_FLEET "pricing = ondemand\n");
		AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
#define HM(key) aiwi_test_metric(sim, "inference.hpa." key)
		double peak = HM("replicas_peak"), gh = HM("gpu_hours");
		double rel = HM("released_gpu_hours"), rel_usd = HM("released_usd");
		ck_assert_double_eq(HM("fixed_replicas"), peak);
		ck_assert_rel(rel, peak * 2 * 6 - gh, 1e-12);
		ck_assert(rel > 0.2 * gh); /* the night trough is released */
		ck_assert_rel(rel_usd, rel * HM("hardware_cost_usd") / gh, 1e-12);
		double cost = HM("cost_usd"), fixed = HM("fixed_cost_usd"), saved = HM("cost_saved_usd");
		/* the bill: the hardware cost and what is paid but released */
		ck_assert_rel(HM("hardware_bill_usd"), HM("hardware_cost_usd") + HM("stranded_usd"),
		              1e-12);
		ck_assert_rel(aiwi_test_metric(sim, "site.hardware_bill_usd"), HM("hardware_bill_usd"),
		              1e-12);
		if (!owned) {
			ck_assert_double_eq(HM("stranded_gpu_hours"), 0);
			ck_assert_double_eq(HM("stranded_usd"), 0);
			ck_assert_rel(saved, fixed - cost, 1e-12);
			ck_assert(saved > 0.8 * rel_usd); /* mostly the rent of what was released */
		} else {
			ck_assert_double_eq(HM("stranded_gpu_hours"), rel);
			ck_assert_double_eq(HM("stranded_usd"), rel_usd);
			ck_assert_rel(saved, fixed - cost - rel_usd, 1e-12);
			/* same owned hardware on both sides: only the energy is saved */
			double fixed_energy_cost = fixed - HM("fixed_hardware_cost_usd");
			double energy_cost = cost - HM("hardware_cost_usd");
			ck_assert_rel(saved, fixed_energy_cost - energy_cost, 1e-9);
			ck_assert(saved < 0.2 * rel_usd);
		}
#undef HM
		aiw_sim_free(sim);
	}
}
END_TEST

/* Nameplate provisioning beside the simulated peak: each component's most
 * GPUs x (TDP + node_nameplate / gpus_per_node), a scripted load its own
 * peak; x PUE for the facility. */
START_TEST(nameplate_power)
{
	aiw_sim *sim = load_text(JOB "gpu_price = 30000\n"
	                         "[inference f]\ngpu = H100-SXM\nmodel_params = 8e9\nrate = 1/s\n"
	                         "replicas = 3\ngpus_per_replica = 1\nautoscaler = none\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	double inf = 3 * (700 + 4600.0 / 8), load = 10000; /* H100 TDP 700 W */
	ck_assert_rel(aiwi_test_metric(sim, "site.nameplate_power_w"), inf + load, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "site.facility_nameplate_power_w"), 1.2 * (inf + load),
	              1e-12);
	/* the simulated peak is below it: the fleet draws idle/decode power */
	ck_assert(aiwi_test_metric(sim, "site.power_peak_w") < inf + load);
	aiw_sim_free(sim);
	sim = load_text(JOB "gpu_price = 30000\n[inference f]\ngpu = B200\nmodel_params = 8e9\n"
	                "rate = 1/s\nreplicas = 2\ngpus_per_replica = 1\ngpus_per_node = 4\nnode_nameplate = 2kW\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert_rel(aiwi_test_metric(sim, "site.nameplate_power_w"), 2 * (1000 + 500.0) + load,
	              1e-12);
	aiw_sim_free(sim);
	/* unset, node_nameplate is the catalog GPU's node rating: DGX A100's
	 * 6.5 kW less 8 x 400 W; node_overhead follows it (x 2.8/4.6); a GPU
	 * of one's own without a rating gets DGX H100's 4.6 kW */
	sim = load_text(JOB "gpu_price = 30000\n[inference f]\ngpu = A100-80GB\nmodel_params = 8e9\n"
	                "rate = 1/s\nreplicas = 2\ngpus_per_replica = 1\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert_rel(aiwi_test_metric(sim, "site.nameplate_power_w"), 2 * (400 + 3300.0 / 8) + load,
	              1e-12);
	aiwi_comp *c;
	AIW_OK_OR_FAIL(sim, aiwi_comp_get(sim, "inference", "f", false, &c));
	aiwi_pricing p;
	const aiwi_gpu_spec *a100 = aiwi_hw_gpu(NULL, "A100-80GB");
	AIW_OK_OR_FAIL(sim, aiwi_cost_pricing(c, aiwi_kind_param_index(c->kind, "pricing"), a100, &p));
	ck_assert_rel(p.node_overhead_w, 3300 * 2800.0 / 4600, 1e-15);
	aiw_sim_free(sim);
	sim = load_text(JOB "gpu_price = 30000\n[gpu mine]\nbf16_flops = 500e12\nmem_bytes = 64GB\n"
	                "mem_bw = 2TB/s\ntdp_w = 500W\n[inference f]\ngpu = mine\ngpu_price = 1000\n"
	                "model_params = 8e9\nrate = 1/s\nreplicas = 2\ngpus_per_replica = 1\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert_rel(aiwi_test_metric(sim, "site.nameplate_power_w"), 2 * (500 + 4600.0 / 8) + load,
	              1e-12);
	aiw_sim_free(sim);
}
END_TEST


/* Reserved and committed-use pricing: a fleet paid at hours x on-demand x
 * the term's ratio (or the reserved price set), and released capacity
 * stranded as under capex. */
START_TEST(reserved_committed_exact)
{
	const struct {
		const char *set;
		double per_h;
	} cases[] = {
		{"pricing = reserved\nondemand_price = 2.5\n", 2.5 * 0.63},
		{"pricing = reserved\nterm = 3y\nondemand_price = 2.5\n", 2.5 * 0.45},
		{"pricing = reserved\nterm = 3y\nondemand_price = 2.5\nreserved_price = 1.1\n", 1.1},
		{"pricing = committed\nondemand_price = 2.5\n", 2.5 * (1 - 0.25)},
		{"pricing = committed\nterm = 3y\nondemand_price = 2.5\n", 2.5 * (1 - 0.52)},
		{"pricing = committed\nondemand_price = 2.5\ncommitted_discount = 0.3\n", 2.5 * 0.7},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char text[512];
		snprintf(text, sizeof text, "%s%s", JOB, cases[i].set);
		aiw_sim *sim = load_text(text);
		AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
		/* 8 GPUs x 10 h x price; idle 8 x 2 h */
		double hw = 8 * 10 * cases[i].per_h;
		ck_assert_rel(aiwi_test_metric(sim, "site.hardware_cost_usd"), hw, 1e-12);
		ck_assert_rel(aiwi_test_metric(sim, "site.idle_cost_usd"), hw * 0.2, 1e-12);
		ck_assert_rel(aiwi_test_metric(sim, "site.cost_usd"), hw + 9.6, 1e-12);
		ck_assert_rel(curve_integral(sim, "site.cost_rate_usd_per_h") / 3600, hw + 9.6, 1e-9);
		aiw_sim_free(sim);
	}
	/* the catalog's on-demand price x the published 1-year ratio */
	double h100_h;
	ck_assert_int_eq(aiw_catalog_gpu_value("H100-SXM", "ondemand_usd_per_h", &h100_h), AIW_OK);
	aiw_sim *sim = load_text(JOB "gpu = H100-SXM\npricing = reserved\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert_rel(aiwi_test_metric(sim, "site.hardware_cost_usd"), 80 * h100_h * 0.63, 1e-12);
	aiw_sim_free(sim);
	ck_assert_double_eq(aiwi_cost_term_factor(AIW_PRICING_RESERVED, 0), AIW_RESERVED_RATIO_1Y);
	ck_assert_double_eq(aiwi_cost_term_factor(AIW_PRICING_COMMITTED, 1),
	                    1 - AIW_COMMITTED_DISCOUNT_3Y);
	ck_assert_double_eq(aiwi_cost_term_factor(AIW_PRICING_ONDEMAND, 1), 1);
	/* no rental price known (Gaudi3): refused, naming the parameter */
	ck_assert_int_eq(aiw_sim_create(&sim, 1), AIW_OK);
	AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim, JOB "gpu = Gaudi3\npricing = reserved\n",
	                                       "t.ini"));
	ck_assert_int_ne(aiw_sim_run(sim), AIW_OK);
	ck_assert_ptr_nonnull(strstr(aiw_sim_errmsg(sim), "load.job.ondemand_price"));
	ck_assert_ptr_nonnull(strstr(aiw_sim_errmsg(sim), "reserved_price"));
	aiw_sim_free(sim);
	/* out of range */
	ck_assert_int_eq(aiw_sim_create(&sim, 1), AIW_OK);
	AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim, JOB, "t.ini"));
	ck_assert_int_eq(aiw_sim_set(sim, "load.job.committed_discount", "1"), AIW_ERANGE);
	ck_assert_int_ne(aiw_sim_set(sim, "load.job.term", "2y"), AIW_OK);
	ck_assert_int_eq(aiw_sim_set(sim, "load.job.reserved_price", "0"), AIW_ERANGE);
	aiw_sim_free(sim);
}
END_TEST

START_TEST(autoscale_reserved_committed_stranded)
{
	const char *modes[] = {"pricing = reserved\nterm = 3y\n", "pricing = committed\n"};
	for (int m = 0; m < 2; m++) {
		char text[2048];
		snprintf(text, sizeof text, "%s%s", HPA_FLEET, modes[m]);
		aiw_sim *sim = load_text(text);
		AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
#define HM(key) aiwi_test_metric(sim, "inference.hpa." key)
		double gh = HM("gpu_hours"), rel = HM("released_gpu_hours");
		double h;
		ck_assert_int_eq(aiw_catalog_gpu_value("H100-SXM", "ondemand_usd_per_h", &h), AIW_OK);
		double per_h = m == 0 ? h * 0.45 : h * 0.75;
		ck_assert_rel(HM("hardware_cost_usd"), gh * per_h, 1e-12);
		ck_assert(rel > 0.2 * gh);
		/* paid whether used or not: stranded, not saved */
		ck_assert_double_eq(HM("stranded_gpu_hours"), rel);
		ck_assert_rel(HM("stranded_usd"), rel * per_h, 1e-12);
		double cost = HM("cost_usd"), fixed = HM("fixed_cost_usd");
		ck_assert_rel(HM("cost_saved_usd"), fixed - cost - HM("stranded_usd"), 1e-12);
		ck_assert(HM("cost_saved_usd") < 0.2 * HM("stranded_usd"));
#undef HM
		aiw_sim_free(sim);
	}
}
END_TEST

/* Spot replicas of a reserved, committed or owned fleet are rented: the
 * spot discount applies to the on-demand price.  4 replicas, 2 on spot
 * without preemptions, 2 h: 2 x 2 h x (3 x 0.63) + 2 x 2 h x 3 x 0.4. */
START_TEST(spot_of_reserved_fleet)
{
	const char *const base = "[sim]\nduration = 2h\n[inference f]\ngpu = H100-SXM\n"
	                         "model_params = 8e9\nrate = 1/s\nreplicas = 4\n"
	                         "gpus_per_replica = 1\nautoscaler = none\nspot_fraction = 0.5\n"
	                         "spot_preemption_rate = 0/h\nondemand_price = 3\n";
	const struct {
		const char *set;
		double want;
	} cases[] = {
		{"pricing = reserved\n", 2 * 2 * 3 * 0.63 + 2 * 2 * 3 * 0.4},
		{"pricing = reserved\nreserved_price = 2\n", 2 * 2 * 2 + 2 * 2 * 3 * 0.4},
		{"pricing = committed\nterm = 3y\n", 2 * 2 * 3 * 0.48 + 2 * 2 * 3 * 0.4},
		{"pricing = ondemand\n", 2 * 2 * 3 + 2 * 2 * 3 * 0.4},
		/* owned: $30,000 over 10,000 h is $3/h for the owned replicas;
		 * the spot ones are rented at on-demand less the discount */
		{"pricing = capex\ngpu_price = 30000\nlifetime = 10000h\nondemand_price = 5\n",
		 2 * 2 * 3 + 2 * 2 * 5 * 0.4},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char text[1024];
		snprintf(text, sizeof text, "%s%s", base, cases[i].set);
		aiw_sim *sim = load_text(text);
		AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
		ck_assert_double_eq(aiwi_test_metric(sim, "inference.f.spot_exposure_h"), 4);
		ck_assert_rel(aiwi_test_metric(sim, "inference.f.hardware_cost_usd"), cases[i].want,
		              1e-12);
		aiw_sim_free(sim);
	}
}
END_TEST

/* Network and storage capex per GPU, amortised over the lifetime on the
 * provisioned GPU-seconds; facility capex per MW of provisioned facility
 * power over its life. */
START_TEST(network_storage_facility)
{
	aiw_sim *sim = load_text(JOB "gpu_price = 30000\nnetwork_price = 4000\nstorage_price = 1000\n"
	                         "[site]\nfacility_capex = 12e6\nfacility_life = 15y\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	double life = param(sim, "load.job.lifetime"), flife = param(sim, "site.facility_life");
	ck_assert_rel(flife, 15 * 365 * 86400.0, 1e-12);
	double hw = 8.0 * 36000 * 30000 / life;
	double net = 8.0 * 36000 * 4000 / life, stor = 8.0 * 36000 * 1000 / life;
	/* recommended provisioning: 13.2 kW = 0.0132 MW */
	double fac = 0.0132 * 12e6 / flife * 36000;
	ck_assert_rel(aiwi_test_metric(sim, "load.job.network_cost_usd"), net, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "load.job.storage_cost_usd"), stor, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "load.job.hardware_cost_usd"), hw, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "load.job.cost_usd"), hw + net + stor + 9.6, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "site.network_cost_usd"), net, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "site.storage_cost_usd"), stor, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "site.facility_cost_usd"), fac, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "site.cost_usd"), hw + net + stor + 9.6 + fac, 1e-12);
	ck_assert_rel(curve_last(sim, "load.job.cost_usd"), hw + net + stor + 9.6, 1e-12);
	/* the idle cost stays the GPUs' */
	ck_assert_rel(aiwi_test_metric(sim, "site.idle_cost_usd"), hw * 0.2, 1e-12);
	aiw_sim_free(sim);
	/* contracted 2 MW: accrues linearly, the curves carry it */
	sim = load_text(JOB "network_price = 4000\n[site]\nfacility_capex = 12e6\ncapacity = 2MW\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	life = param(sim, "load.job.lifetime");
	flife = param(sim, "site.facility_life");
	fac = 2 * 12e6 / flife * 36000;
	net = 8.0 * 36000 * 4000 / life;
	ck_assert_rel(aiwi_test_metric(sim, "site.facility_cost_usd"), fac, 1e-12);
	ck_assert_rel(curve_last(sim, "site.cost_usd"), 9.6 + net + fac, 1e-12);
	ck_assert_rel(curve_integral(sim, "site.cost_rate_usd_per_h") / 3600, 9.6 + net + fac, 1e-9);
	aiw_sim_free(sim);
	/* the models' own cost summaries count them: a training job's cost per
	 * million tokens is its published cost over its tokens */
	sim = load_text("[sim]\nduration = 2h\n[training t]\ngpu = H100-SXM\ngpus = 16\n"
	                "model_params = 7e9\nnetwork_price = 5000\nstorage_price = 500\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	double tok = aiwi_test_metric(sim, "training.t.tokens");
	double tcost = aiwi_test_metric(sim, "training.t.cost_usd");
	life = param(sim, "training.t.lifetime");
	ck_assert_rel(aiwi_test_metric(sim, "training.t.network_cost_usd"),
	              aiwi_test_metric(sim, "site.gpu_hours") * 3600 * 5000 / life, 1e-12);
	ck_assert_rel(tcost,
	              aiwi_test_metric(sim, "training.t.hardware_cost_usd") +
	                      aiwi_test_metric(sim, "training.t.energy_cost_usd") +
	                      aiwi_test_metric(sim, "training.t.network_cost_usd") +
	                      aiwi_test_metric(sim, "training.t.storage_cost_usd"),
	              1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "training.t.cost_per_mtok_usd"), tcost / (tok / 1e6),
	              1e-12);
	aiw_sim_free(sim);
}
END_TEST

/* committed_gpus N: N GPUs at the committed rate for the whole run, used or
 * not, the GPUs above N on demand.  The 8-GPU job for 10 h at $2.5/h on
 * demand, reserved 1y (x 0.63): a commitment under the fleet (5: 3 GPUs x
 * 10 h on demand), over it (12: 4 x 10 h stranded) and equal to it.  The
 * hardware cost is the provisioned GPUs' (min(8, N) at the committed rate,
 * the excess on demand), the bill adds the stranded commitment. */
START_TEST(commitment_fixed_fleet)
{
	const double od = 2.5, rc = 2.5 * 0.63, energy = 9.6;
	const struct {
		const char *set;
		double n, rate;
	} cases[] = {
		{"pricing = reserved\n", 5, rc},
		{"pricing = reserved\n", 12, rc},
		{"pricing = reserved\n", 8, rc},
		{"pricing = reserved\n", 0, rc},
		{"pricing = committed\nterm = 3y\n", 5, 2.5 * 0.48},
		{"pricing = capex\ngpu_price = 30000\nlifetime = 10000h\n", 3, 3},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		char text[1024];
		snprintf(text, sizeof text, "%s%sondemand_price = 2.5\ncommitted_gpus = %g\n", JOB,
		         cases[i].set, cases[i].n);
		aiw_sim *sim = load_text(text);
		AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
		double n = cases[i].n, r = cases[i].rate;
		double excess_h = n < 8 ? (8 - n) * 10 : 0, stranded_h = n > 8 ? (n - 8) * 10 : 0;
		double hw = (n < 8 ? n : 8) * 10 * r + excess_h * od, bill = n * 10 * r + excess_h * od;
#define LM(key) aiwi_test_metric(sim, "load.job." key)
		ck_assert_rel(LM("hardware_cost_usd"), hw, 1e-12);
		ck_assert_rel(LM("hardware_bill_usd"), bill, 1e-12);
		ck_assert_rel(LM("cost_usd"), hw + energy, 1e-12);
		ck_assert_rel(aiwi_test_metric(sim, "site.hardware_cost_usd"), hw, 1e-12);
		ck_assert_rel(aiwi_test_metric(sim, "site.hardware_bill_usd"), bill, 1e-12);
		ck_assert_rel(aiwi_test_metric(sim, "site.bill_usd"),
		              aiwi_test_metric(sim, "site.cost_usd") + (bill - hw), 1e-12);
		ck_assert_double_eq_tol(LM("ondemand_excess_gpu_hours"), excess_h, 1e-9);
		ck_assert_double_eq_tol(LM("ondemand_excess_usd"), excess_h * od, 1e-9);
		ck_assert_double_eq_tol(LM("commitment_stranded_gpu_hours"), stranded_h, 1e-9);
		ck_assert_double_eq_tol(LM("commitment_stranded_usd"), stranded_h * r, 1e-9);
		/* the provisioned GPUs idle 2 h in 10 (the stranded commitment is
		 * apart, in the bill) */
		ck_assert_rel(LM("idle_cost_usd"), hw * 0.2, 1e-12);
		ck_assert_rel(curve_integral(sim, "site.cost_rate_usd_per_h") / 3600, hw + energy,
		              1e-9);
		ck_assert_rel(curve_last(sim, "load.job.cost_usd"), hw + energy, 1e-12);
#undef LM
		aiw_sim_free(sim);
	}
	/* unset: no commitment figures, the cost as before, also after a
	 * reset from a run with one (its stranded commitment forgotten) */
	aiw_sim *sim = load_text(JOB "pricing = reserved\nondemand_price = 2.5\n"
	                             "committed_gpus = 12\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	AIW_OK_OR_FAIL(sim, aiw_sim_reset(sim));
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "load.job.committed_gpus", "none"));
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert_rel(aiwi_test_metric(sim, "load.job.idle_cost_usd"), 80 * rc * 0.2, 1e-12);
	double v;
	ck_assert_int_ne(aiw_sim_metric(sim, "load.job.ondemand_excess_gpu_hours", &v), AIW_OK);
	ck_assert_int_ne(aiw_sim_metric(sim, "load.job.commitment_stranded_usd", &v), AIW_OK);
	ck_assert_rel(aiwi_test_metric(sim, "load.job.hardware_cost_usd"), 80 * rc, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "load.job.hardware_bill_usd"), 80 * rc, 1e-12);
	aiw_sim_free(sim);
	/* a training job of 16 GPUs on an 8-GPU commitment: half on demand */
	double h;
	ck_assert_int_eq(aiw_catalog_gpu_value("H100-SXM", "ondemand_usd_per_h", &h), AIW_OK);
	sim = load_text("[sim]\nduration = 2h\n[training t]\ngpu = H100-SXM\ngpus = 16\n"
	                "model_params = 7e9\npricing = reserved\ncommitted_gpus = 8\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	double gh = aiwi_test_metric(sim, "site.gpu_hours");
	ck_assert(gh > 0);
	ck_assert_rel(aiwi_test_metric(sim, "training.t.hardware_cost_usd"),
	              gh / 2 * h * 0.63 + gh / 2 * h, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "training.t.ondemand_excess_gpu_hours"), gh / 2, 1e-12);
	ck_assert_double_eq(aiwi_test_metric(sim, "training.t.commitment_stranded_gpu_hours"), 0);
	aiw_sim_free(sim);
	/* refused: a commitment under on-demand pricing, or no on-demand
	 * price for the excess */
	ck_assert_int_eq(aiw_sim_create(&sim, 1), AIW_OK);
	AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim, JOB "pricing = ondemand\nondemand_price = 2\n"
	                                       "committed_gpus = 4\n", "t.ini"));
	ck_assert_int_eq(aiw_sim_run(sim), AIW_EINVAL);
	ck_assert_ptr_nonnull(strstr(aiw_sim_errmsg(sim), "load.job.committed_gpus = 4"));
	aiw_sim_free(sim);
	ck_assert_int_eq(aiw_sim_create(&sim, 1), AIW_OK);
	AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim, JOB "gpu = Gaudi3\npricing = reserved\n"
	                                       "reserved_price = 1\ncommitted_gpus = 4\n", "t.ini"));
	ck_assert_int_eq(aiw_sim_run(sim), AIW_ERANGE);
	ck_assert_ptr_nonnull(strstr(aiw_sim_errmsg(sim), "load.job.ondemand_price"));
	aiw_sim_free(sim);
	ck_assert_int_eq(aiw_sim_create(&sim, 1), AIW_OK);
	AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim, JOB, "t.ini"));
	ck_assert_int_eq(aiw_sim_set(sim, "load.job.committed_gpus", "-1"), AIW_ERANGE);
	ck_assert_int_ne(aiw_sim_set(sim, "load.job.committed_gpus", "2.5"), AIW_OK);
	aiw_sim_free(sim);
}
END_TEST

/* An autoscaled fleet (2 GPUs a replica) on a commitment: the excess
 * against the integral of its provisioned-GPUs curve.  With N = 0 every
 * provisioned GPU-second is excess: the curve's integral exactly.  With N
 * at or above the peak nothing is, and the stranded commitment is N T less
 * it.  Between, per sample interval of mean m the excess lies between
 * max(0, m - N) dt (Jensen: max(0, g - N) is convex) and that plus
 * (peak GPUs - N) dt where the count changed in the interval (its mean is
 * not a whole number of replicas), and excess - stranded = paid - N T
 * exactly. */
START_TEST(commitment_autoscaled_fleet)
{
	double h;
	ck_assert_int_eq(aiw_catalog_gpu_value("H100-SXM", "ondemand_usd_per_h", &h), AIW_OK);
	const double od = h / 3600, rc = h * 0.63 / 3600, T = 6 * 3600.0;
	double peak_gpus = 0;
	for (int k = 0; k < 4; k++) {
		double n = k == 0 ? 0 : k == 1 ? 12 : k == 2 ? 16 : 48;
		char text[2048];
		snprintf(text, sizeof text, "%spricing = reserved\ncommitted_gpus = %g\n", HPA_FLEET, n);
		aiw_sim *sim = load_text(text);
		AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
#define HM(key) aiwi_test_metric(sim, "inference.hpa." key)
		double paid = HM("gpu_hours") * 3600;
		double ex = HM("ondemand_excess_gpu_hours") * 3600;
		double st = HM("commitment_stranded_gpu_hours") * 3600;
		peak_gpus = 2 * HM("replicas_peak");
		ck_assert(peak_gpus > 24 && peak_gpus < 48);
		/* the replicas curve: provisioned GPU-seconds / 2 per interval */
		ck_assert_rel(2 * curve_integral(sim, "inference.hpa.replicas"), paid, 1e-9);
		ck_assert_double_eq_tol(ex - st, paid - n * T, 1e-9 * paid);
		if (n == 0) {
			ck_assert_rel(ex, paid, 1e-12);
			ck_assert_double_eq(st, 0);
		} else if (n >= peak_gpus) {
			ck_assert_double_eq(ex, 0);
			ck_assert_rel(st, n * T - paid, 1e-12);
		} else {
			size_t len;
			AIW_OK_OR_FAIL(sim, aiw_sim_series_length(sim, "inference.hpa.replicas", &len));
			double *t = malloc(len * sizeof *t), *v = malloc(len * sizeof *v);
			AIW_OK_OR_FAIL(sim, aiw_sim_series_copy(sim, "inference.hpa.replicas", t, v, len,
			                                        &len));
			double lo = 0, hi = 0, prev = 0;
			for (size_t i = 0; i < len; i++) {
				double m = 2 * v[i], dt = t[i] - prev, x = m > n ? (m - n) * dt : 0;
				lo += x;
				hi += x + (v[i] != floor(v[i]) ? (peak_gpus - n) * dt : 0);
				prev = t[i];
			}
			free(t);
			free(v);
			ck_assert(lo > 0.05 * paid); /* the day's peak is above the commitment */
			ck_assert_msg(ex >= lo * (1 - 1e-12) && ex <= hi * (1 + 1e-12),
			              "N %g: excess %.17g outside [%.17g, %.17g]", n, ex, lo, hi);
			ck_assert(hi - lo < 0.2 * lo); /* the bounds mean something */
		}
		ck_assert_rel(HM("ondemand_excess_usd"), ex * od, 1e-12);
		ck_assert_double_eq_tol(HM("commitment_stranded_usd"), st * rc, 1e-9 * (n * T * rc + 1));
		/* the provisioned GPU-seconds: up to N at the committed rate, the
		 * excess on demand; the bill adds the stranded commitment, so that
		 * it is the commitment all run and the excess on demand */
		ck_assert_rel(HM("hardware_cost_usd"), (paid - ex) * rc + ex * od, 1e-9);
		ck_assert_rel(HM("hardware_bill_usd"), n * T * rc + ex * od, 1e-9);
		ck_assert_double_eq(HM("stranded_gpu_hours"), st / 3600);
		ck_assert_double_eq(HM("stranded_usd"), HM("commitment_stranded_usd"));
		/* the fixed comparison fleet holds the same commitment: the saving
		 * is between the two bills */
		double fixed_hw = (peak_gpus < n ? peak_gpus : n) * T * rc +
		                  (peak_gpus > n ? (peak_gpus - n) * T * od : 0);
		double fixed_st = peak_gpus < n ? (n - peak_gpus) * T * rc : 0;
		ck_assert_rel(HM("fixed_hardware_cost_usd"), fixed_hw, 1e-9);
		ck_assert_rel(HM("cost_saved_usd"),
		              HM("fixed_cost_usd") + fixed_st - HM("cost_usd") - HM("stranded_usd"),
		              1e-9);
#undef HM
		aiw_sim_free(sim);
	}
}
END_TEST

/* One rule with or without a commitment: committed_gpus at the fleet's peak
 * gives the figures of no commitment (whose commitment is the peak): the
 * same hardware cost (the provisioned GPU-seconds), stranded capacity (the
 * peak less what was provisioned), bill and saving against the fixed fleet;
 * a commitment above the peak only adds to the stranded part and the bills
 * (of both fleets: the saving stays). */
START_TEST(commitment_at_peak_is_none)
{
	aiw_sim *sim = load_text(HPA_FLEET "pricing = reserved\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	const char *keys[] = {"hardware_cost_usd", "hardware_bill_usd", "stranded_gpu_hours",
	                      "stranded_usd", "cost_usd", "cost_saved_usd", "idle_cost_usd"};
	double none[7], peak = aiwi_test_metric(sim, "inference.hpa.replicas_peak");
	char name[128];
	for (int i = 0; i < 7; i++) {
		snprintf(name, sizeof name, "inference.hpa.%s", keys[i]);
		none[i] = aiwi_test_metric(sim, name);
	}
	ck_assert(none[2] > 0); /* the night trough is released */
	aiw_sim_free(sim);
	for (int above = 0; above < 2; above++) {
		char text[2048];
		snprintf(text, sizeof text, "%spricing = reserved\ncommitted_gpus = %g\n", HPA_FLEET,
		         2 * peak + 6 * above);
		sim = load_text(text);
		AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
		double T = 6 * 3600.0, rc = none[0] / (aiwi_test_metric(sim, "inference.hpa.gpu_hours") * 3600);
		for (int i = 0; i < 7; i++) {
			snprintf(name, sizeof name, "inference.hpa.%s", keys[i]);
			double v = aiwi_test_metric(sim, name), want = none[i];
			/* 6 more GPUs paid all run, unused (the fixed fleet holds them
			 * too: the saving stays) */
			if (above && (i == 1 || i == 3))
				want += 6 * T * rc;
			if (above && i == 2)
				want += 6 * T / 3600;
			ck_assert_msg(fabs(v - want) <= 1e-9 * fabs(want) + 1e-9, "%s: %.17g against %.17g",
			              keys[i], v, want);
		}
		ck_assert_double_eq(aiwi_test_metric(sim, "inference.hpa.ondemand_excess_gpu_hours"), 0);
		aiw_sim_free(sim);
	}
}
END_TEST

/* Network and storage per provisioned GPU-hour (cloud billing), beside the
 * capex per GPU: 8 GPUs x 10 h x ($0.10 + $0.05) plus the capex. */
START_TEST(network_storage_per_hour)
{
	aiw_sim *sim = load_text(JOB "gpu_price = 30000\nnetwork_price = 4000\n"
	                         "network_price_per_h = 0.10\nstorage_price_per_h = 0.05\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	double life = param(sim, "load.job.lifetime");
	double hw = 8.0 * 36000 * 30000 / life;
	double net = 8.0 * 36000 * 4000 / life + 80 * 0.10, stor = 80 * 0.05;
	ck_assert_rel(aiwi_test_metric(sim, "load.job.network_cost_usd"), net, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "load.job.storage_cost_usd"), stor, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "site.network_cost_usd"), net, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "site.storage_cost_usd"), stor, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "load.job.cost_usd"), hw + net + stor + 9.6, 1e-12);
	ck_assert_rel(curve_last(sim, "site.cost_usd"), hw + net + stor + 9.6, 1e-12);
	ck_assert_rel(curve_integral(sim, "site.cost_rate_usd_per_h") / 3600, hw + net + stor + 9.6,
	              1e-9);
	aiw_sim_free(sim);
	/* an inference fleet: on its provisioned GPU-hours */
	sim = load_text("[sim]\nduration = 2h\n[inference f]\ngpu = H100-SXM\nmodel_params = 8e9\n"
	                "rate = 1/s\nreplicas = 3\ngpus_per_replica = 2\nautoscaler = none\n"
	                "storage_price_per_h = 0.2\n");
	ck_assert_int_eq(aiw_sim_set(sim, "inference.f.network_price_per_h", "-1"), AIW_ERANGE);
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert_rel(aiwi_test_metric(sim, "inference.f.storage_cost_usd"), 12 * 0.2, 1e-12);
	aiw_sim_free(sim);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("cost");
	TCase *tc = tcase_create("core");
	/* the autoscaled fleets run 216,000 requests twice with their fixed
	 * comparison: seconds under the sanitizers and the invariant checks */
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, capex_exact);
	tcase_add_test(tc, ondemand_exact);
	tcase_add_test(tc, catalog_prices);
	tcase_add_test(tc, stop_between_ticks);
	tcase_add_test(tc, capacity_charge);
	tcase_add_test(tc, energy_price_helper);
	tcase_add_test(tc, bad_prices);
	tcase_add_test(tc, unknown_gpu);
	tcase_add_test(tc, missing_price);
	tcase_add_test(tc, capacity_exceeded_warns);
	tcase_add_test(tc, warnings_store);
	tcase_add_test(tc, inference_token_prices);
	tcase_add_test(tc, autoscale_stranded_vs_released);
	tcase_add_test(tc, nameplate_power);
	tcase_add_test(tc, reserved_committed_exact);
	tcase_add_test(tc, autoscale_reserved_committed_stranded);
	tcase_add_test(tc, network_storage_facility);
	tcase_add_test(tc, spot_of_reserved_fleet);
	tcase_add_test(tc, commitment_fixed_fleet);
	tcase_add_test(tc, commitment_autoscaled_fleet);
	tcase_add_test(tc, commitment_at_peak_is_none);
	tcase_add_test(tc, network_storage_per_hour);
	suite_add_tcase(s, tc);
	return s;
}

AIW_TEST_MAIN(make_suite)
