/* test_tariff.c - electricity price and carbon intensity that change with
 * the hour: the step series' exact integrals (tariff.c), the site's energy
 * cost and emissions priced per sample interval against hand computations,
 * runs stepped in pieces, the constant price unchanged, warnings and
 * refusals. */
#include "site/tariff.h"
#include "site/power.h"
#include "core/internal.h"
#include "../testutil.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static aiw_sim *load_text(const char *text)
{
	aiw_sim *sim;
	ck_assert_int_eq(aiw_sim_create(&sim, 1), AIW_OK);
	AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim, text, "test.ini"));
	return sim;
}

/* 24 hourly prices (USD/kWh) and their sum */
#define PRICES                                                                               \
	"0.05 0.05 0.05 0.05 0.05 0.05 0.07 0.09 0.12 0.12 0.10 0.09 "                       \
	"0.08 0.08 0.09 0.11 0.14 0.18 0.20 0.16 0.12 0.09 0.07 0.06"
static const double price_h[24] = {0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.07, 0.09,
                                   0.12, 0.12, 0.10, 0.09, 0.08, 0.08, 0.09, 0.11,
                                   0.14, 0.18, 0.20, 0.16, 0.12, 0.09, 0.07, 0.06};

/* The exact integral of the hourly price over [a, b] (hours), by hand: one
 * hour at a time. */
static double price_integral_h(double a, double b)
{
	double sum = 0;
	for (double h = floor(a); h < b; h += 1) {
		double lo = fmax(h, a), hi = fmin(h + 1, b);
		if (hi > lo)
			sum += price_h[(int)fmod(h, 24)] * (hi - lo);
	}
	return sum;
}

START_TEST(series_integrals)
{
	aiwi_tseries s;
	char err[256];
	ck_assert_int_eq(aiwi_tseries_daily(&s, PRICES, AIW_PT_MONEY, 0, 100, "p", err, sizeof err),
	                 AIW_OK);
	ck_assert_uint_eq(s.n, 24);
	ck_assert(s.period == 86400);
	double day = 0;
	for (int i = 0; i < 24; i++)
		day += price_h[i] * 3600;
	ck_assert_rel(aiwi_tseries_integral(&s, 0, 86400), day, 1e-14);
	/* across midnight, part hours, several days */
	double cases[][2] = {{0.5, 1.25}, {23.5, 24.5}, {5, 77.75}, {47.9, 48.1}, {100, 100}};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		double a = cases[i][0], b = cases[i][1];
		ck_assert_rel(aiwi_tseries_integral(&s, a * 3600, b * 3600),
		              price_integral_h(a, b) * 3600, 1e-12);
	}
	ck_assert(aiwi_tseries_at(&s, 17.5 * 3600) == 0.18);
	ck_assert(aiwi_tseries_at(&s, (24 + 18) * 3600) == 0.20);
	ck_assert(aiwi_tseries_mean(&s, 3600, 3600) == 0.05);
	ck_assert_rel(aiwi_tseries_mean(&s, 8 * 3600, 10 * 3600), 0.12, 1e-14);
	ck_assert(aiwi_tseries_off_tick(&s, 60) < 0);
	ck_assert(aiwi_tseries_off_tick(&s, 7 * 60) == 3600);
	aiwi_tseries_free(&s);

	/* a file: a header, comments, units; before its first row the first
	 * value, after its last the last */
	char path[] = "/tmp/aiw-tariff-XXXXXX";
	int fd = mkstemp(path);
	ck_assert(fd >= 0);
	FILE *f = fdopen(fd, "w");
	fputs("time,price\n# a comment\n1h,0.10\n7200, 0.30 # evening\n3h;0.20\n", f);
	fclose(f);
	ck_assert_int_eq(aiwi_tseries_file(&s, path, AIW_PT_MONEY, 0, 100, "p", err, sizeof err),
	                 AIW_OK);
	ck_assert_uint_eq(s.n, 3);
	ck_assert(s.period == 0);
	ck_assert_rel(aiwi_tseries_integral(&s, 0, 5 * 3600),
	              (0.10 * 2 + 0.30 + 0.20 * 2) * 3600, 1e-14);
	ck_assert_rel(aiwi_tseries_integral(&s, 1800, 2.5 * 3600), (0.10 * 1.5 + 0.30 * 0.5) * 3600,
	              1e-14);
	ck_assert(aiwi_tseries_at(&s, 0) == 0.10);
	ck_assert(aiwi_tseries_at(&s, 1e6) == 0.20);
	aiwi_tseries_free(&s);

	/* bad files and lists: each a message naming the line or value */
	const struct {
		const char *text;
		const char *msg;
	} bad[] = {{"0,0.1\n0,0.2\n", "strictly increasing"},
	           {"0,0.1\n1h,-1\n", "out of range"},
	           {"0,0.1\n1h\n", "expected TIME,VALUE"},
	           {"time,price\n", "no TIME,VALUE rows"},
	           {"0,0.1\nabc,0.2\n", ":2: expected"}};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		f = fopen(path, "w");
		fputs(bad[i].text, f);
		fclose(f);
		ck_assert_int_ne(aiwi_tseries_file(&s, path, AIW_PT_MONEY, 0, 100, "p", err, sizeof err),
		                 AIW_OK);
		ck_assert_msg(strstr(err, bad[i].msg), "'%s': %s", bad[i].text, err);
		ck_assert(s.t == NULL && s.n == 0);
	}
	unlink(path);
	ck_assert_int_eq(aiwi_tseries_file(&s, path, AIW_PT_MONEY, 0, 100, "p", err, sizeof err),
	                 AIW_EIO);
	ck_assert_int_eq(aiwi_tseries_daily(&s, "", AIW_PT_MONEY, 0, 100, "p", err, sizeof err),
	                 AIW_EPARSE);
	ck_assert_int_eq(aiwi_tseries_daily(&s, "0.1, x", AIW_PT_MONEY, 0, 100, "p", err, sizeof err),
	                 AIW_EPARSE);
	ck_assert_msg(strstr(err, "value 2"), "%s", err);
	ck_assert_int_eq(aiwi_tseries_daily(&s, "0.1 200", AIW_PT_MONEY, 0, 100, "p", err, sizeof err),
	                 AIW_ERANGE);
	ck_assert(strstr(err, "value 2 = 200") && strstr(err, "[0, 100]"));
}
END_TEST

/* 10 kW for [0, 5h), 2 kW for [5h, 30h), 40 kW from 30 h: a scripted load
 * whose steps fall on the hour */
#define LOAD_RUN(extra)                                                                      \
	"[sim]\nduration = 50h\nsample_interval = 1min\n"                                    \
	"[site]\npue = 1.25\nelectricity_price = 0.08\n" extra                               \
	"[load job]\nprofile = 0:10kW, 5h:2kW, 30h:40kW\ngpus = 8\n"

/* the job's IT power (W) in hour h */
static double job_w(double h)
{
	return h < 5 ? 10e3 : h < 30 ? 2e3 : 40e3;
}

START_TEST(site_prices_exact)
{
	aiw_sim *sim = load_text(LOAD_RUN("electricity_price_daily = " PRICES "\n"
	                                  "carbon_intensity_daily = 400 380 360 340\n"));
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	double cost = 0, kg = 0, kwh = 0;
	for (int h = 0; h < 50; h++) {
		double fkwh = job_w(h) * 1.25 / 1e3; /* facility kWh in that hour */
		cost += fkwh * price_h[h % 24];
		kg += fkwh * (400 - 20 * ((h % 24) / 6)) / 1000;
		kwh += fkwh;
	}
	ck_assert_rel(aiwi_test_metric(sim, "site.energy_cost_usd"), cost, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "load.job.energy_cost_usd"), cost, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "site.energy_price_mean_usd_per_kwh"), cost / kwh, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "site.emissions_kg"), kg, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "load.job.emissions_kg"), kg, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "site.carbon_intensity_mean_g_per_kwh"), kg * 1000 / kwh,
	              1e-12);
	/* the curves: the price curve is the hour's price, the cumulative
	 * emissions end at the metric, the rate integrates to it, and the
	 * cost curve ends at the total cost */
	size_t n;
	AIW_OK_OR_FAIL(sim, aiw_sim_series_length(sim, "site.electricity_price_usd_per_kwh", &n));
	ck_assert_uint_eq(n, 3000);
	double *t = malloc(n * sizeof *t), *v = malloc(n * sizeof *v);
	AIW_OK_OR_FAIL(sim, aiw_sim_series_copy(sim, "site.electricity_price_usd_per_kwh", t, v, n, &n));
	for (size_t i = 0; i < n; i++) /* the tick ending at t covers (t - 60, t] */
		ck_assert_rel(v[i], price_h[(int)fmod(floor((t[i] - 1) / 3600), 24)], 1e-12);
	free(t);
	free(v);
	ck_assert_rel(aiwi_test_curve_integral(sim, "site.emissions_rate_kg_per_h") / 3600, kg, 1e-9);
	ck_assert_rel(aiwi_test_metric(sim, "site.cost_usd"),
	              aiwi_test_metric(sim, "site.hardware_cost_usd") + cost, 1e-12);
	aiw_sim_free(sim);
}
END_TEST

/* A run stepped in pieces that end between ticks prices as one run: the
 * partial interval is priced without moving the accumulators. */
START_TEST(stepped_runs_agree)
{
	const char *text = LOAD_RUN("electricity_price_daily = " PRICES "\ncarbon_intensity = 300\n");
	aiw_sim *one = load_text(text), *parts = load_text(text);
	AIW_OK_OR_FAIL(one, aiw_sim_run(one));
	double stops[] = {1234.5, 7200.25, 40000, 99999.9, 180000};
	for (size_t i = 0; i < sizeof stops / sizeof *stops; i++)
		AIW_OK_OR_FAIL(parts, aiw_sim_run_until(parts, stops[i]));
	const char *m[] = {"site.energy_cost_usd", "site.emissions_kg", "site.cost_usd",
	                   "load.job.cost_usd"};
	for (size_t i = 0; i < sizeof m / sizeof *m; i++)
		ck_assert_msg(aiwi_test_metric(one, m[i]) == aiwi_test_metric(parts, m[i]), "%s", m[i]);
	aiw_sim_free(one);
	aiw_sim_free(parts);
}
END_TEST

/* A series of one price is the constant price (to rounding); without a
 * series no new figure appears. */
START_TEST(constant_unchanged)
{
	aiw_sim *a = load_text(LOAD_RUN("")), *b = load_text(LOAD_RUN("electricity_price_daily = 0.08\n"));
	AIW_OK_OR_FAIL(a, aiw_sim_run(a));
	AIW_OK_OR_FAIL(b, aiw_sim_run(b));
	ck_assert_rel(aiwi_test_metric(b, "site.energy_cost_usd"),
	              aiwi_test_metric(a, "site.energy_cost_usd"), 1e-12);
	double x;
	ck_assert_int_ne(aiw_sim_metric(a, "site.emissions_kg", &x), AIW_OK);
	ck_assert_int_ne(aiw_sim_metric(a, "site.energy_price_mean_usd_per_kwh", &x), AIW_OK);
	size_t n;
	ck_assert_int_ne(aiw_sim_series_length(a, "site.electricity_price_usd_per_kwh", &n), AIW_OK);
	aiw_sim_free(a);
	aiw_sim_free(b);
}
END_TEST

/* Serving figures use the same priced energy: the fleet's cost per million
 * tokens agrees with the site's cost of the fleet. */
START_TEST(serving_cost_agrees)
{
	aiw_sim *sim = load_text("[sim]\nduration = 26h\nsample_interval = 1min\n"
	                         "[site]\nelectricity_price_daily = " PRICES "\n"
	                         "[inference chat]\nmodel_params = 8e9\ngpu = H100-SXM\n"
	                         "replicas = 2\nrate = 3\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	double cost = aiwi_test_metric(sim, "inference.chat.cost_usd");
	double tok = aiwi_test_metric(sim, "inference.chat.tokens_out");
	ck_assert_rel(aiwi_test_metric(sim, "inference.chat.cost_per_mtok_usd"), cost / tok * 1e6,
	              1e-12);
	aiw_sim_free(sim);
}
END_TEST

START_TEST(warnings_and_refusals)
{
	/* 7 parts of a day: steps every 12,342.857 s, not on 1-minute ticks */
	aiw_sim *sim = load_text(LOAD_RUN("electricity_price_daily = 1 2 3 4 5 6 7\n"));
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert(aiwi_test_warned(sim, "not on a sample tick"));
	aiw_sim_free(sim);

	const struct {
		const char *extra;
		const char *msg;
	} bad[] = {
	        {"electricity_price_daily = 0.1\nelectricity_price_file = /nonexistent.csv\n",
	         "site.electricity_price_daily and site.electricity_price_file are both set"},
	        {"carbon_intensity = 100\ncarbon_intensity_daily = 1 2\n",
	         "site.carbon_intensity and site.carbon_intensity_daily are both set"},
	        {"electricity_price_daily = 0.1 -3\n", "value 2"},
	        {"carbon_intensity_daily = 100 20000\n", "value 2 = 20000 is out of range [0, 10000]"},
	        {"electricity_price_file = /nonexistent/prices.csv\n", "cannot open"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char text[1024];
		snprintf(text, sizeof text,
		         "[sim]\nduration = 2h\n[site]\n%s[load job]\nprofile = 0:1kW\n", bad[i].extra);
		aiw_sim *s;
		ck_assert_int_eq(aiw_sim_create(&s, 1), AIW_OK);
		aiw_status st = aiw_sim_load_string(s, text, "test.ini");
		if (st == AIW_OK)
			st = aiw_sim_run(s);
		ck_assert_msg(st != AIW_OK, "%s accepted", bad[i].extra);
		ck_assert_msg(strstr(aiw_sim_errmsg(s), bad[i].msg), "%s: %s", bad[i].extra,
		              aiw_sim_errmsg(s));
		aiw_sim_free(s);
	}
}
END_TEST

/* Seeded runs with every series on reproduce bit for bit. */
START_TEST(reproducible)
{
	const char *text = "[sim]\nduration = 6h\n[site]\nelectricity_price_daily = " PRICES
	                   "\ncarbon_intensity_daily = 400 300\n"
	                   "[inference chat]\nmodel_params = 8e9\ngpu = H100-SXM\nreplicas = 2\n"
	                   "rate = 2\n";
	aiw_sim *a = load_text(text), *b = load_text(text);
	AIW_OK_OR_FAIL(a, aiw_sim_run(a));
	AIW_OK_OR_FAIL(b, aiw_sim_run(b));
	ck_assert(aiwi_test_metric(a, "site.energy_cost_usd") ==
	          aiwi_test_metric(b, "site.energy_cost_usd"));
	ck_assert(aiwi_test_metric(a, "site.emissions_kg") == aiwi_test_metric(b, "site.emissions_kg"));
	aiw_sim_free(a);
	aiw_sim_free(b);
}
END_TEST

/* A training job of 2,000 steps of 6.741 s (3.745 h) may start in
 * [5h, 29h]; cheap hours are 2h-8h each day: it starts at 26 h, the first
 * start whose whole run is cheap, and pays the cheap price for all of it. */
#define DEFER                                                                                \
	"[sim]\nduration = 3d\n"                                                             \
	"[site]\nelectricity_price_daily = 0.2 0.2 0.05 0.05 0.05 0.05 0.05 0.05 0.2 0.2 0.2 "  \
	"0.2 0.2 0.2 0.2 0.2 0.2 0.2 0.2 0.2 0.2 0.2 0.2 0.2\n"                                \
	"carbon_intensity_daily = 100 500\n"                                                  \
	"[training ft]\ngpus = 64\nmodel_params = 8e9\ntokens_per_step = 4e6\n"              \
	"max_steps = 2000\nstart = 5h\nstart_window = 1d\n"

START_TEST(deferred_start)
{
	aiw_sim *sim = load_text(DEFER);
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert(aiwi_test_metric(sim, "training.ft.start_deferred_s") == 21 * 3600.0);
	double kwh = aiwi_test_metric(sim, "site.energy_kwh");
	ck_assert_rel(aiwi_test_metric(sim, "site.energy_cost_usd"), kwh * 1.3 * 0.05, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "training.ft.wall_s"), 2000 * 6.741, 1e-3);
	aiw_sim_free(sim);
	/* cleanest: carbon 100 g/kWh before noon, 500 after; from 5 h the
	 * run ends at 8.745 h, before noon: no deferral */
	sim = load_text(DEFER "start_policy = cleanest\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert(aiwi_test_metric(sim, "training.ft.start_deferred_s") == 0);
	ck_assert_rel(aiwi_test_metric(sim, "site.carbon_intensity_mean_g_per_kwh"), 100, 1e-12);
	aiw_sim_free(sim);
	/* without a budget the job's length is unknown: refused */
	sim = load_text("[sim]\nduration = 1d\n[training ft]\ngpus = 8\nmodel_params = 8e9\n"
	                "tokens_per_step = 1e6\nstart_window = 2h\n");
	ck_assert_int_eq(aiw_sim_run(sim), AIW_ESCENARIO);
	ck_assert(strstr(aiw_sim_errmsg(sim), "training.ft.start_window = 7200 s needs the job's length"));
	aiw_sim_free(sim);
	/* without the policy's series: at start, with a warning */
	sim = load_text("[sim]\nduration = 1d\n[training ft]\ngpus = 8\nmodel_params = 8e9\n"
	                "tokens_per_step = 1e6\nmax_steps = 10\nstart_window = 2h\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert(aiwi_test_metric(sim, "training.ft.start_deferred_s") == 0);
	ck_assert(aiwi_test_warned(sim, "no electricity price series"));
	aiw_sim_free(sim);
}
END_TEST

/* The placement against brute force: every whole second of the window,
 * for job lengths that do and do not align with the hourly steps. */
START_TEST(best_start_brute_force)
{
	aiw_sim *sim = load_text(LOAD_RUN("electricity_price_daily = " PRICES "\n"));
	AIW_OK_OR_FAIL(sim, aiw_sim_run_until(sim, 60));
	aiwi_tseries ts;
	char err[128];
	ck_assert_int_eq(aiwi_tseries_daily(&ts, PRICES, AIW_PT_MONEY, 0, 100, "p", err, sizeof err),
	                 AIW_OK);
	const double cases[][3] = {/* a, window, length (s) */
	                           {0, 86400, 3.7 * 3600},  {5000, 30000, 1234.5},
	                           {40000, 86400, 30 * 3600}, {100, 7200, 36000},
	                           {86000, 50000, 17 * 3600 + 7}};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
		double a = cases[i][0], b = a + cases[i][1], d = cases[i][2];
		double x = aiwi_site_best_start(sim, false, a, b, d);
		ck_assert(x >= a && x <= b);
		double v = aiwi_tseries_integral(&ts, x, x + d), best = INFINITY, first = NAN;
		for (double y = a; y <= b; y += 1) {
			double w = aiwi_tseries_integral(&ts, y, y + d);
			if (w < best - 1e-9 * w) {
				best = w;
				first = y;
			}
		}
		ck_assert_msg(v <= best * (1 + 1e-12), "case %zu: %g at %g, brute %g at %g", i, v, x,
		              best, first);
		ck_assert_msg(x <= first + 1, "case %zu: %g later than the brute force's %g", i, x, first);
	}
	aiwi_tseries_free(&ts);
	aiw_sim_free(sim);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("tariff");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, series_integrals);
	tcase_add_test(tc, site_prices_exact);
	tcase_add_test(tc, stepped_runs_agree);
	tcase_add_test(tc, constant_unchanged);
	tcase_add_test(tc, serving_cost_agrees);
	tcase_add_test(tc, warnings_and_refusals);
	tcase_add_test(tc, reproducible);
	tcase_add_test(tc, deferred_start);
	tcase_add_test(tc, best_start_brute_force);
	suite_add_tcase(s, tc);
	return s;
}

AIW_TEST_MAIN(suite)
