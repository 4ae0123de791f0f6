/* test_storage.c - energy storage between the site and the grid: the
 * battery's steps by hand (peak shaving and ramp limiting), its energy
 * balance exactly, a site that shaves a load's peak under its limit, the
 * grid statistics seeing the smoothed draw, warnings and refusals. */
#include "site/storage.h"
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

/* The balance every battery keeps (storage.h): grid = demand + charged -
 * discharged; stored energy change = sqrt(eta) charged - discharged /
 * sqrt(eta); losses the difference. */
static void check_balance(const aiwi_storage *b, double soc0_j)
{
	double se = sqrt(b->eta);
	ck_assert_rel(b->grid_j, b->demand_j + b->charged_j - b->discharged_j, 1e-12);
	ck_assert(fabs(b->soc_j - soc0_j - (se * b->charged_j - b->discharged_j / se)) <=
	          1e-9 * b->capacity_j);
	ck_assert(fabs(b->loss_j - (b->charged_j - b->discharged_j - (b->soc_j - soc0_j))) <=
	          1e-9 * b->capacity_j);
	ck_assert(b->soc_min_j >= 0 && b->soc_max_j <= b->capacity_j);
}

/* 10 kWh, 5 kW, eta 0.81 (0.9 each way), half charged, limit 8 kW, hourly
 * intervals, worked by hand. */
START_TEST(peak_by_hand)
{
	aiwi_storage b;
	aiwi_storage_init(&b, AIWI_STORAGE_PEAK, 3.6e7, 5000, 0.81, 0.5, 8000, 0);
	/* 12 kW: 4 kW out, 4000 x 3600 / 0.9 = 1.6e7 J taken: 2e6 J left */
	ck_assert_rel(aiwi_storage_step(&b, 12000, 3600), 8000, 1e-15);
	ck_assert_rel(b.soc_j, 2e6, 1e-12);
	/* 12 kW again: 2e6 x 0.9 / 3600 = 500 W is all it has */
	ck_assert_rel(aiwi_storage_step(&b, 12000, 3600), 11500, 1e-12);
	ck_assert(b.soc_j < 1e-6);
	ck_assert(b.over_s == 3600);
	/* 3 kW: recharges at its 5 kW rating up to the 8 kW limit */
	ck_assert_rel(aiwi_storage_step(&b, 3000, 3600), 8000, 1e-15);
	ck_assert_rel(b.soc_j, 5000 * 3600 * 0.9, 1e-9);
	/* at the limit: nothing moves */
	ck_assert_rel(aiwi_storage_step(&b, 8000, 3600), 8000, 1e-15);
	ck_assert_rel(b.discharged_j, (4000 + 500) * 3600.0, 1e-12);
	ck_assert_rel(b.charged_j, 5000 * 3600.0, 1e-12);
	ck_assert_rel(b.loss_j, (1 / 0.9 - 1) * 4500 * 3600 + 0.1 * 5000 * 3600, 1e-9);
	ck_assert_rel(b.grid_peak_w, 11500, 1e-12);
	check_balance(&b, 1.8e7);
}
END_TEST

/* Ramp limiting: a step of 0 -> 100 W at 1 W/s over 10 s intervals; the
 * grid climbs 10 W an interval while the battery makes up the rest, then
 * recharges to half without ramping faster. */
START_TEST(ramp_by_hand)
{
	aiwi_storage b;
	aiwi_storage_init(&b, AIWI_STORAGE_RAMP, 1e6, 1000, 0.9, 0.5, 0, 1);
	double g = aiwi_storage_step(&b, 0, 10), prev = g;
	ck_assert(g == 0);
	ck_assert_rel(aiwi_storage_step(&b, 100, 10), 10, 1e-12); /* 90 W from the battery */
	ck_assert_rel(b.discharged_j, 900, 1e-12);
	prev = 10;
	for (int i = 0; i < 2000; i++) {
		g = aiwi_storage_step(&b, 100, 10);
		ck_assert(fabs(g - prev) <= 10 * (1 + 1e-12));
		prev = g;
	}
	ck_assert(b.over_s == 0);
	/* back to half charge and to the demand */
	ck_assert(fabs(b.soc_j - 5e5) < 1e-6 * 1e6);
	ck_assert_rel(g, 100, 1e-9);
	check_balance(&b, 5e5);
	/* a battery too small: the ramp is broken, and counted */
	aiwi_storage_init(&b, AIWI_STORAGE_RAMP, 100, 1000, 1, 0.5, 0, 1);
	aiwi_storage_step(&b, 0, 10);
	aiwi_storage_step(&b, 100, 10); /* 50 J hold 5 W for 10 s */
	ck_assert_rel(b.g_prev, 95, 1e-12);
	ck_assert(b.over_s == 10);
	check_balance(&b, 50);
}
END_TEST

/* A site of one load: 2 kW, 12 kW for [1h, 3h), 2 kW again; PUE 1; a
 * 10 kWh, 10 kW battery full at the start, limit 8 kW.  The 8 kWh above
 * the limit fit in the battery: the grid never sees more than 8 kW; after
 * the peak it recharges at 6 kW (the limit less the load) for 4/3 h. */
#define SHAVE                                                                                \
	"[sim]\nduration = 8h\nsample_interval = 1min\n"                                     \
	"[site]\npue = 1\nelectricity_price = 0.1\nstorage = peak_shaving\n"                 \
	"storage_capacity = 10kWh\nstorage_power = 10kW\nstorage_efficiency = 1\n"            \
	"storage_initial_charge = 1\nstorage_grid_limit = 8kW\n"                              \
	"[load job]\nprofile = 0:2kW, 1h:12kW, 3h:2kW\n"

START_TEST(site_shaves_peak)
{
	aiw_sim *sim = load_text(SHAVE);
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert_rel(aiwi_test_metric(sim, "site.power_peak_w"), 12000, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "site.grid_power_peak_w"), 8000, 1e-12);
	ck_assert(aiwi_test_metric(sim, "site.storage_over_limit_s") == 0);
	ck_assert_rel(aiwi_test_metric(sim, "site.storage_discharged_kwh"), 8, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "site.storage_charged_kwh"), 8, 1e-9);
	ck_assert(aiwi_test_metric(sim, "site.storage_losses_kwh") < 1e-9);
	ck_assert_rel(aiwi_test_metric(sim, "site.storage_charge_min"), 0.2, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "site.storage_charge_end"), 1, 1e-12);
	/* IT 2 x 6 + 12 x 2 = 36 kWh, all of it delivered by the grid in the
	 * end (the battery ends as full as it began) */
	ck_assert_rel(aiwi_test_metric(sim, "site.grid_energy_kwh"), 36, 1e-9);
	ck_assert(fabs(aiwi_test_metric(sim, "site.storage_energy_cost_usd")) < 1e-9);
	ck_assert_rel(aiwi_test_metric(sim, "site.energy_cost_usd"), 3.6, 1e-9);
	/* the grid curve: 8 kW through the peak, 8 kW while recharging for
	 * 80 min after it, 2 kW after */
	size_t n;
	AIW_OK_OR_FAIL(sim, aiw_sim_series_length(sim, "site.grid_power_w", &n));
	double *t = malloc(n * sizeof *t), *v = malloc(n * sizeof *v);
	AIW_OK_OR_FAIL(sim, aiw_sim_series_copy(sim, "site.grid_power_w", t, v, n, &n));
	for (size_t i = 0; i < n; i++) {
		double want = t[i] <= 3600 ? 2000 : t[i] <= 3 * 3600 + 80 * 60 ? 8000 : 2000;
		ck_assert_msg(fabs(v[i] - want) < 1e-6, "t %g: %g W, want %g", t[i], v[i], want);
	}
	free(t);
	free(v);
	aiw_sim_free(sim);
	/* a battery of 4 kWh cannot: the grid sees 12 kW again after 1 h of
	 * shaving, and the time over the limit is that hour */
	sim = load_text(SHAVE "");
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "site.storage_capacity", "4kWh"));
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert_rel(aiwi_test_metric(sim, "site.grid_power_peak_w"), 12000, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "site.storage_over_limit_s"), 3600, 1e-12);
	aiw_sim_free(sim);
}
END_TEST

/* With a ramp limit the grid statistics see the smoothed draw: a load
 * that jumps 0 <-> 10 kW every 10 min ramps 10 kW in one 1-minute sample
 * without storage, at most the limit with it. */
START_TEST(grid_sees_smoothed_draw)
{
	const char *base = "[sim]\nduration = 6h\nsample_interval = 1min\n"
	                   "[site]\npue = 1\ngrid = on\ngrid_ramp_window_1 = 1min\n"
	                   "[load sq]\nprofile = 0:0W, 10min:10kW\nperiod = 20min\n";
	aiw_sim *off = load_text(base);
	AIW_OK_OR_FAIL(off, aiw_sim_run(off));
	ck_assert_rel(aiwi_test_metric(off, "site.grid_ramp_1_max_w_per_s"), 10000 / 60.0, 1e-12);
	aiw_sim *on = load_text(base);
	AIW_OK_OR_FAIL(on, aiw_sim_set(on, "site.storage", "ramp_limit"));
	AIW_OK_OR_FAIL(on, aiw_sim_set(on, "site.storage_capacity", "10kWh"));
	AIW_OK_OR_FAIL(on, aiw_sim_set(on, "site.storage_power", "20kW"));
	AIW_OK_OR_FAIL(on, aiw_sim_set(on, "site.storage_ramp_limit", "20"));
	AIW_OK_OR_FAIL(on, aiw_sim_run(on));
	ck_assert(aiwi_test_metric(on, "site.storage_over_limit_s") == 0);
	ck_assert(aiwi_test_metric(on, "site.grid_ramp_1_max_w_per_s") <= 20 * (1 + 1e-9));
	/* the IT curve itself is unchanged */
	ck_assert(aiwi_test_metric(on, "site.power_peak_w") == aiwi_test_metric(off, "site.power_peak_w"));
	ck_assert(aiwi_test_metric(on, "site.energy_kwh") == aiwi_test_metric(off, "site.energy_kwh"));
	aiw_sim_free(off);
	aiw_sim_free(on);
}
END_TEST

START_TEST(warnings_and_refusals)
{
	aiw_sim *sim = load_text("[sim]\nduration = 1h\n[site]\nstorage_capacity = 1MWh\n"
	                         "[load a]\nprofile = 0:1kW\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert(aiwi_test_warned(sim, "storage_capacity"));
	double x;
	ck_assert_int_ne(aiw_sim_metric(sim, "site.grid_power_peak_w", &x), AIW_OK);
	aiw_sim_free(sim);
	const struct {
		const char *extra, *msg;
	} bad[] = {
	        {"storage = peak_shaving\nstorage_grid_limit = 1kW\n", "needs site.storage_capacity"},
	        {"storage = peak_shaving\nstorage_capacity = 1kWh\n", "needs site.storage_grid_limit"},
	        {"storage = ramp_limit\nstorage_capacity = 1kWh\n", "needs site.storage_ramp_limit"},
	        {"storage = ramp_limit\nstorage_capacity = 1kWh\nstorage_efficiency = 0\n",
	         "storage_efficiency"},
	        {"storage = ramp_limit\nstorage_capacity = 1kWh\nstorage_initial_charge = 2\n",
	         "storage_initial_charge"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		char text[512];
		snprintf(text, sizeof text, "[sim]\nduration = 1h\n[site]\n%s[load a]\nprofile = 0:1kW\n",
		         bad[i].extra);
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
	/* with site.capacity, peak shaving holds to it */
	sim = load_text("[sim]\nduration = 3h\n[site]\npue = 1\ncapacity = 1.5kW\n"
	                "storage = peak_shaving\nstorage_capacity = 1kWh\nstorage_power = 1kW\n"
	                "storage_initial_charge = 1\n"
	                "[load a]\nprofile = 0:1kW, 1h:2kW, 90min:1kW\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert_rel(aiwi_test_metric(sim, "site.grid_power_peak_w"), 1500, 1e-12);
	aiw_sim_free(sim);
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("storage");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, peak_by_hand);
	tcase_add_test(tc, ramp_by_hand);
	tcase_add_test(tc, site_shaves_peak);
	tcase_add_test(tc, grid_sees_smoothed_draw);
	tcase_add_test(tc, warnings_and_refusals);
	suite_add_tcase(s, tc);
	return s;
}

AIW_TEST_MAIN(suite)
