/* test_series.c - the recorder: curves from exact integrals, copy-out,
 * CSV/JSON writers, peaks and diversity on scripted loads. */
#include "internal.h"
#include "testutil.h"

#include <string.h>
#include <unistd.h>

static aiw_sim *scripted(void)
{
	aiw_sim *sim;
	ck_assert_int_eq(aiw_sim_create(&sim, 1), AIW_OK);
	/* two racks whose peaks do not coincide: a 0-2h at 10 kW then 2 kW;
	 * b 0-1h 2 kW, 1-3h 8 kW, then 4 kW; over 4 h sampled every 30 min. */
	const char *text = "[sim]\nduration = 4h\nsample_interval = 30min\n"
	                   "[site]\npue = 1.5\nelectricity_price = 0.1\n"
	                   "[load a]\nprofile = 0:10kW, 2h:2kW\ngpus = 8\n"
	                   "[load b]\nprofile = 0:2kW, 1h:8kW, 3h:4kW\ngpus = 8\n";
	AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim, text, "scripted.ini"));
	return sim;
}

START_TEST(exact_energy_and_peaks)
{
	aiw_sim *sim = scripted();
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	/* energy by hand: a = 2h*10 + 2h*2 = 24 kWh; b = 1*2 + 2*8 + 1*4 = 22 kWh */
	ck_assert_rel(aiw_test_metric(sim, "load.a.energy_kwh"), 24.0, 1e-12);
	ck_assert_rel(aiw_test_metric(sim, "load.b.energy_kwh"), 22.0, 1e-12);
	ck_assert_rel(aiw_test_metric(sim, "site.energy_kwh"), 46.0, 1e-12);
	ck_assert_rel(aiw_test_metric(sim, "site.facility_energy_kwh"), 69.0, 1e-12);
	/* peaks: a 10 kW, b 8 kW, sum 18 kW; site peak 18 kW during 1-2h */
	ck_assert_rel(aiw_test_metric(sim, "site.sum_of_peaks_w"), 18000.0, 1e-12);
	ck_assert_rel(aiw_test_metric(sim, "site.power_peak_w"), 18000.0, 1e-12);
	ck_assert_rel(aiw_test_metric(sim, "site.diversity_factor"), 1.0, 1e-12);
	/* energy cost: 69 kWh x 0.1 */
	ck_assert_rel(aiw_test_metric(sim, "site.energy_cost_usd"), 6.9, 1e-12);
	/* the curve integrates back to the energy */
	size_t n;
	AIW_OK_OR_FAIL(sim, aiw_sim_series_length(sim, "site.power_w", &n));
	ck_assert_uint_eq(n, 8);
	double t[8], v[8];
	AIW_OK_OR_FAIL(sim, aiw_sim_series_copy(sim, "site.power_w", t, v, 8, &n));
	double e = 0;
	for (size_t i = 0; i < n; i++) {
		ck_assert(t[i] == 1800.0 * (double)(i + 1));
		e += v[i] * 1800.0;
	}
	ck_assert_rel(e / 3.6e6, 46.0, 1e-12);
	double want[8] = {12e3, 12e3, 18e3, 18e3, 10e3, 10e3, 6e3, 6e3};
	for (size_t i = 0; i < 8; i++)
		ck_assert_rel(v[i], want[i], 1e-12);
	/* utilisation: busy while power > 0: both always on */
	AIW_OK_OR_FAIL(sim, aiw_sim_series_copy(sim, "site.utilization", NULL, v, 8, &n));
	for (size_t i = 0; i < 8; i++)
		ck_assert_rel(v[i], 1.0, 1e-12);
	aiw_sim_free(sim);
}
END_TEST

START_TEST(diversity_non_coincident)
{
	/* a rack on for the first hour and one for the second: each peaks at
	 * 5 kW, the site never sees more than 5 kW: diversity factor 2 */
	aiw_sim *sim;
	ck_assert_int_eq(aiw_sim_create(&sim, 1), AIW_OK);
	AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim,
	                                        "[sim]\nduration = 2h\nsample_interval = 10min\n"
	                                        "[load x]\nprofile = 0:5kW, 1h:0W\n"
	                                        "[load y]\nprofile = 0:0W, 1h:5kW\n",
	                                        NULL));
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert_rel(aiw_test_metric(sim, "site.diversity_factor"), 2.0, 1e-12);
	ck_assert_rel(aiw_test_metric(sim, "site.power_peak_w"), 5000.0, 1e-12);
	aiw_sim_free(sim);
}
END_TEST

START_TEST(partial_interval_and_steps)
{
	/* duration not a multiple of the interval: a last, shorter point; and
	 * stepping with run_until gives the same curves as one run */
	aiw_sim *a = scripted(), *b = scripted();
	AIW_OK_OR_FAIL(a, aiw_sim_set(a, "sim.duration", "4000s"));
	AIW_OK_OR_FAIL(b, aiw_sim_set(b, "sim.duration", "4000s"));
	AIW_OK_OR_FAIL(a, aiw_sim_run(a));
	for (double t = 0; t < 4000; t += 333)
		AIW_OK_OR_FAIL(b, aiw_sim_run_until(b, t));
	AIW_OK_OR_FAIL(b, aiw_sim_run(b));
	size_t na, nb;
	AIW_OK_OR_FAIL(a, aiw_sim_series_length(a, "load.b.power_w", &na));
	AIW_OK_OR_FAIL(b, aiw_sim_series_length(b, "load.b.power_w", &nb));
	ck_assert_uint_eq(na, 3);
	ck_assert_uint_eq(nb, 3);
	double ta[3], va[3], tb[3], vb[3];
	AIW_OK_OR_FAIL(a, aiw_sim_series_copy(a, "load.b.power_w", ta, va, 3, &na));
	AIW_OK_OR_FAIL(b, aiw_sim_series_copy(b, "load.b.power_w", tb, vb, 3, &nb));
	ck_assert(ta[2] == 4000.0);
	/* 1h..4000s at 8 kW */
	ck_assert_rel(va[2], 8000.0, 1e-12);
	ck_assert_rel(va[1], (1800 * 2000.0 + 0 * 8000.0) / 1800, 1e-12);
	ck_assert(memcmp(va, vb, sizeof va) == 0 && memcmp(ta, tb, sizeof ta) == 0);
	ck_assert_rel(aiw_test_metric(a, "load.b.energy_kwh"), 2 + 8 * (4000 - 3600) / 3600.0, 1e-12);
	aiw_sim_free(a);
	aiw_sim_free(b);
}
END_TEST

START_TEST(copy_out_and_errors)
{
	aiw_sim *sim = scripted();
	size_t n = 99;
	ck_assert_int_eq(aiw_sim_series_length(sim, "site.power_w", &n), AIW_EUNKNOWN); /* not run */
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	double t[4], v[4];
	ck_assert_int_eq(aiw_sim_series_copy(sim, "site.power_w", t, v, 4, &n), AIW_EBUFFER);
	ck_assert_uint_eq(n, 4);
	ck_assert(t[3] == 4 * 1800.0);
	ck_assert_int_eq(aiw_sim_series_copy(sim, "site.powr_w", t, v, 4, &n), AIW_EUNKNOWN);
	ck_assert_msg(strstr(aiw_sim_errmsg(sim), "did you mean 'site.power_w'"), "%s",
	              aiw_sim_errmsg(sim));
	ck_assert_int_eq(aiw_sim_series_copy(sim, NULL, t, v, 4, &n), AIW_EINVAL);
	ck_assert_int_eq(aiw_sim_series_copy(sim, "site.power_w", t, v, 0, &n), AIW_EBUFFER);
	size_t count;
	AIW_OK_OR_FAIL(sim, aiw_sim_series_count(sim, &count));
	/* per load: power, utilization, cost rate, cost_usd; site: 5 curves */
	ck_assert_uint_eq(count, 2 * 4 + 5);
	const char *name, *unit;
	for (size_t i = 0; i < count; i++) {
		AIW_OK_OR_FAIL(sim, aiw_sim_series_name(sim, i, &name));
		AIW_OK_OR_FAIL(sim, aiw_sim_series_unit(sim, name, &unit));
	}
	ck_assert_int_eq(aiw_sim_series_name(sim, count, &name), AIW_ERANGE);
	ck_assert_int_eq(aiw_sim_series_count(sim, NULL), AIW_EINVAL);
	ck_assert_int_eq(aiw_sim_metric(sim, "site.nothing", &v[0]), AIW_EUNKNOWN);
	ck_assert_int_eq(aiw_sim_metric(sim, NULL, &v[0]), AIW_EINVAL);
	ck_assert_int_eq(aiw_sim_metric_name(sim, 100000, &name), AIW_ERANGE);
	aiw_sim_free(sim);
}
END_TEST

START_TEST(writers)
{
	aiw_sim *sim = scripted();
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	char csv[] = "/tmp/aiw_csvXXXXXX", json[] = "/tmp/aiw_jsonXXXXXX";
	close(mkstemp(csv));
	close(mkstemp(json));
	AIW_OK_OR_FAIL(sim, aiw_sim_write_csv(sim, csv));
	AIW_OK_OR_FAIL(sim, aiw_sim_write_json(sim, json));
	FILE *f = fopen(csv, "r");
	char line[4096];
	ck_assert(fgets(line, sizeof line, f));
	ck_assert_msg(strncmp(line, "time_s,", 7) == 0 && strstr(line, "site.power_w [W]"), "%s", line);
	/* find the site.power_w column and compare every row with the copy-out */
	int col = 0, k = 0;
	for (char *p = line; *p; p++)
		if (*p == ',') {
			k++;
			if (strncmp(p + 1, "site.power_w [", 14) == 0)
				col = k;
		}
	double v[8];
	size_t n;
	AIW_OK_OR_FAIL(sim, aiw_sim_series_copy(sim, "site.power_w", NULL, v, 8, &n));
	int rows = 0;
	while (fgets(line, sizeof line, f)) {
		char *p = line;
		for (int c = 0; c < col; c++)
			p = strchr(p, ',') + 1;
		ck_assert(strtod(p, NULL) == v[rows]);
		rows++;
	}
	ck_assert_int_eq(rows, 8);
	fclose(f);
	f = fopen(json, "r");
	size_t len = fread(line, 1, sizeof line - 1, f);
	line[len] = 0;
	fclose(f);
	ck_assert_msg(strstr(line, "\"site.diversity_factor\": 1") && strstr(line, "\"seed\": 1"),
	              "%s", line);
	unlink(csv);
	unlink(json);
	ck_assert_int_eq(aiw_sim_write_csv(sim, "/nonexistent/dir/x.csv"), AIW_EIO);
	ck_assert_int_eq(aiw_sim_write_json(sim, NULL), AIW_EINVAL);
	aiw_sim_free(sim);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("series");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, exact_energy_and_peaks);
	tcase_add_test(tc, diversity_non_coincident);
	tcase_add_test(tc, partial_interval_and_steps);
	tcase_add_test(tc, copy_out_and_errors);
	tcase_add_test(tc, writers);
	suite_add_tcase(s, tc);
	return s;
}

AIW_TEST_MAIN(make_suite)
