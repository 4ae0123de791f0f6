/* test_capping.c - the site's capping controller and demand response: the
 * controller's thresholds, hysteresis, reaction time and priority order by
 * hand; in a run, every sample checked against a replay of the controller
 * (capped power never above the cap once in force, power above the high
 * threshold only inside a reaction window), the priority order, a
 * demand-response event delivering its target, energy still the integral
 * of power, the controller inert when it never acts, seeded runs
 * bit-identical, warnings and refusals. */
#include "site/capping.h"
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

/* A curve, all its points (n of them, at most cap). */
static size_t curve(aiw_sim *sim, const char *name, double *t, double *v, size_t cap)
{
	size_t got = 0;
	AIW_OK_OR_FAIL(sim, aiw_sim_series_copy(sim, name, t, v, cap, &got));
	return got;
}

/* Two groups, high 100 W, low 80 W, reaction 120 s at 60 s ticks, levels of
 * 0.25 down to 0.5 (two each), worked by hand. */
START_TEST(controller_by_hand)
{
	aiwi_capping k;
	aiwi_capping_init(&k, 2, 100, 80, 120, 0.25, 0.5);
	ck_assert_int_eq(k.max_level, 2);
	const struct {
		double t, p;
		int act;
		size_t g;
		double f0, f1;
	} seq[] = {
	        {60, 90, 0, 0, 1, 1},         /* between the thresholds: hold */
	        {120, 110, 0, 0, 1, 1},       /* above: the count starts */
	        {180, 110, 0, 0, 1, 1},       /* 60 s < 120 s */
	        {240, 110, 1, 0, 0.75, 1},    /* 120 s: the lowest priority first */
	        {300, 105, 0, 0, 0.75, 1},    /* the count starts again at the action */
	        {360, 105, 1, 0, 0.5, 1},     /* group 0 to its deepest level */
	        {420, 105, 0, 0, 0.5, 1},
	        {480, 105, 1, 1, 0.5, 0.75},  /* then group 1 */
	        {540, 95, 0, 0, 0.5, 0.75},   /* in the band: hold, counts reset */
	        {600, 101, 0, 0, 0.5, 0.75},  /* above again: a new count */
	        {660, 95, 0, 0, 0.5, 0.75},   /* broken before the reaction time */
	        {720, 79, 0, 0, 0.5, 0.75},   /* below low: the release count starts */
	        {780, 79, 0, 0, 0.5, 0.75},
	        {840, 79, -1, 1, 0.5, 1},     /* the last capped comes off first */
	        {900, 79, 0, 0, 0.5, 1},
	        {960, 79, -1, 0, 0.75, 1},
	        {1020, 85, 0, 0, 0.75, 1},    /* hysteresis: no release in the band */
	        {1080, 79, 0, 0, 0.75, 1},
	        {1140, 79, 0, 0, 0.75, 1},
	        {1200, 79, -1, 0, 1, 1},
	        {1260, 79, 0, 0, 1, 1},
	        {1320, 79, 0, 0, 1, 1},       /* nothing left to release */
	};
	for (size_t i = 0; i < sizeof seq / sizeof *seq; i++) {
		size_t g = 99;
		int a = aiwi_capping_tick(&k, seq[i].t, seq[i].p, &g);
		ck_assert_msg(a == seq[i].act, "t = %g: action %d, expected %d", seq[i].t, a,
		              seq[i].act);
		if (a)
			ck_assert_uint_eq(g, seq[i].g);
		ck_assert_msg(aiwi_capping_frac(&k, 0) == seq[i].f0 &&
		                      aiwi_capping_frac(&k, 1) == seq[i].f1,
		              "t = %g: caps %g %g", seq[i].t, aiwi_capping_frac(&k, 0),
		              aiwi_capping_frac(&k, 1));
	}
	ck_assert_uint_eq(k.cap_events, 3);
	ck_assert_uint_eq(k.release_events, 3);
	/* every level taken: above the threshold it holds */
	aiwi_capping_init(&k, 1, 100, 80, 0, 0.5, 0.5);
	size_t g;
	ck_assert_int_eq(aiwi_capping_tick(&k, 60, 200, &g), 1);
	ck_assert_int_eq(aiwi_capping_tick(&k, 120, 200, &g), 0);
	ck_assert_uint_eq(k.cap_events, 1);
	ck_assert(aiwi_capping_frac(&k, 0) == 0.5);
}
END_TEST

/* Demand-response windows: one event, then a daily one with notice. */
START_TEST(dr_windows_by_hand)
{
	aiwi_dr d = {.start = 3600, .duration = 1800, .period = 0, .notice = 600};
	ck_assert_int_eq(aiwi_dr_event(&d, 2999), -1);
	ck_assert_int_eq(aiwi_dr_event(&d, 3000), 0);
	ck_assert_int_eq(aiwi_dr_event(&d, 5399), 0);
	ck_assert_int_eq(aiwi_dr_event(&d, 5400), -1);
	ck_assert(aiwi_dr_overlap(&d, 3000, 3660) == 60);
	ck_assert(aiwi_dr_overlap(&d, 0, 1e6) == 1800);
	d.period = 86400;
	ck_assert_int_eq(aiwi_dr_event(&d, 86400 + 3000), 1);
	ck_assert_int_eq(aiwi_dr_event(&d, 86400 + 5400), -1);
	ck_assert(aiwi_dr_overlap(&d, 0, 3 * 86400) == 3 * 1800);
	ck_assert(aiwi_dr_overlap(&d, 86400 + 5000, 86400 + 6000) == 400);
}
END_TEST

/* Two 64-GPU jobs whose steps (2 s of compute, the communication hidden)
 * draw 64 x 700 W + the nodes' overhead, b of capping priority 2 starting
 * at 30 min, under a contract a capped site holds: 1-minute samples,
 * reaction 2 min, levels of 0.1 TDP down to 0.5. */
#define TWO_JOBS                                                                       \
	"[sim]\nseed = 3\nduration = 3h\nsample_interval = 1min\n"                     \
	"[site]\npue = 1.25\ncapacity = %s\ncapping = on\ncapping_reaction = 2min\n"    \
	"[training a]\ngpu = H100-SXM\ngpus = 64\nmodel_params = 7e9\n"                \
	"tokens_per_step = 1e6\nstep_compute = 2s\noverlap = 1\njitter = const(1)\n"    \
	"[training b]\ngpu = H100-SXM\ngpus = 64\nmodel_params = 7e9\n"                \
	"tokens_per_step = 1e6\nstep_compute = 2s\noverlap = 1\njitter = const(1)\n"    \
	"start = 30min\ncapping_priority = 2\n"

#define NPTS 256

START_TEST(run_against_replay)
{
	char text[2048];
	/* uncapped, both jobs draw 2 x (64 x 700 + F) x 1.25: take F from a run
	 * without the controller */
	snprintf(text, sizeof text, TWO_JOBS, "1MW");
	aiw_sim *off = load_text(text);
	AIW_OK_OR_FAIL(off, aiw_sim_set(off, "site.capping", "off"));
	AIW_OK_OR_FAIL(off, aiw_sim_run(off));
	static double t[NPTS], pa[NPTS], pb[NPTS], fac[NPTS], cap[NPTS];
	size_t n = curve(off, "training.a.power_w", t, pa, NPTS);
	ck_assert_uint_eq(n, 180);
	double full = pa[0], N = 64, F = full - N * 700;
	ck_assert(F > 0);
	for (size_t j = 0; j < n; j++)
		ck_assert_rel(pa[j], full, 1e-12); /* a flat draw: no exposed communication */
	aiw_sim_free(off);
	/* the contract: 1.6 x one job's facility power, so that both jobs need
	 * a's caps and some of b's */
	double C = 1.6 * 1.25 * full;
	char cs[64];
	snprintf(cs, sizeof cs, "%.17gW", C);
	snprintf(text, sizeof text, TWO_JOBS, cs);
	aiw_sim *sim = load_text(text);
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert_uint_eq(curve(sim, "training.a.power_w", t, pa, NPTS), n);
	ck_assert_uint_eq(curve(sim, "training.b.power_w", t, pb, NPTS), n);
	ck_assert_uint_eq(curve(sim, "site.facility_power_w", t, fac, NPTS), n);
	ck_assert_uint_eq(curve(sim, "site.capping_cap", t, cap, NPTS), n);
	/* replay the controller on the site's curve: the run's is the same */
	aiwi_capping k;
	aiwi_capping_init(&k, 2, 0.98 * C, 0.9 * C, 120, 0.1, 0.5);
	double fa[NPTS], fb[NPTS], last = NAN, over_s = 0, thr = 0;
	int acts = 0;
	for (size_t j = 0; j < n; j++) {
		double dt = t[j] - (j ? t[j - 1] : 0);
		if (j && fa[j - 1] < 1)
			thr += N * dt;
		if (j && fb[j - 1] < 1 && t[j] > 1800)
			thr += N * dt;
		if (fac[j] > C)
			over_s += dt;
		size_t g;
		int a = aiwi_capping_tick(&k, t[j], fac[j], &g);
		acts += a == 1;
		fa[j] = aiwi_capping_frac(&k, 0);
		fb[j] = aiwi_capping_frac(&k, 1);
		ck_assert_msg(cap[j] == fmin(fa[j], fb[j]), "t = %g: cap %g, replay %g %g", t[j],
		              cap[j], fa[j], fb[j]);
		/* above the threshold only within a reaction window: the run above
		 * began, or the controller last acted, at most 2 min + the sample
		 * the cap takes to be in force before; or every level is taken */
		if (fac[j] > k.high_w) {
			if (isnan(last))
				last = t[j];
			if (a == 1)
				last = t[j];
			bool exhausted = fa[j] == 0.5 && fb[j] == 0.5;
			ck_assert_msg(exhausted || t[j] - last <= 120 + 60,
			              "t = %g: above the high threshold %g s after the last action", t[j],
			              t[j] - last);
		} else
			last = NAN;
		/* the caps: in force over a whole interval when set two ticks
		 * before and unchanged since (a 2 s step ends well inside a 1-minute
		 * interval); never above the higher of the last two otherwise */
		if (j >= 2) {
			double ca = 1.25 * (N * fmin(700, fa[j - 2] * 700) + F);
			double cb = 1.25 * (N * fmin(700, fb[j - 2] * 700) + F);
			double ua = 1.25 * (N * fmin(700, fmax(fa[j - 2], fa[j - 1]) * 700) + F);
			double ub = 1.25 * (N * fmin(700, fmax(fb[j - 2], fb[j - 1]) * 700) + F);
			ck_assert(1.25 * pa[j] <= ua * (1 + 1e-12));
			if (t[j] > 1800 + 60)
				ck_assert(1.25 * pb[j] <= ub * (1 + 1e-12));
			if (fa[j - 1] == fa[j - 2])
				ck_assert_rel(1.25 * pa[j], ca, 1e-12);
			if (fb[j - 1] == fb[j - 2] && t[j] > 1800 + 60)
				ck_assert_rel(1.25 * pb[j], cb, 1e-12);
		}
		/* priority: b is capped only once a has every level */
		if (fb[j] < 1)
			ck_assert(fa[j] == 0.5);
	}
	ck_assert(acts > 5); /* a's five levels and at least one of b's */
	ck_assert(fb[n - 1] < 1);
	ck_assert_rel(aiwi_test_metric(sim, "site.capping_events"), acts, 0);
	ck_assert_rel(aiwi_test_metric(sim, "site.capping_over_limit_s"), over_s, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "site.capping_throttled_gpu_hours"), thr / 3600, 1e-12);
	/* the capped site ends under its contract */
	ck_assert(fac[n - 1] <= C);
	/* energy is still the integral of power, the site's and each job's */
	ck_assert_rel(aiwi_test_metric(sim, "site.energy_kwh") * 3.6e6,
	              aiwi_test_curve_integral(sim, "site.power_w"), 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "training.a.energy_kwh") * 3.6e6,
	              aiwi_test_curve_integral(sim, "training.a.power_w"), 1e-12);
	aiw_sim_free(sim);
}
END_TEST

/* A demand-response event: one job of constant draw B (facility), the
 * event at 1 h for 30 min asking 25 %, announced 10 min ahead, reaction
 * 2 min (the interval after an action still holds the end of a step at the
 * old cap; the next is clean): the controller lowers the cap a level every
 * 2 min from the announcement until the draw is under 0.75 B, holds it
 * through the window and releases it after, a level every 2 min. */
START_TEST(demand_response_delivers)
{
	const char *text =
	        "[sim]\nseed = 1\nduration = 2h\nsample_interval = 1min\n"
	        "[site]\npue = 1\ncapping = on\ncapping_reaction = 2min\n"
	        "demand_response_start = 1h\n"
	        "demand_response_duration = 30min\ndemand_response_notice = 10min\n"
	        "demand_response_reduction = 0.25\n"
	        "[training a]\ngpu = H100-SXM\ngpus = 64\nmodel_params = 7e9\n"
	        "tokens_per_step = 1e6\nstep_compute = 2s\noverlap = 1\njitter = const(1)\n";
	aiw_sim *sim = load_text(text);
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	static double t[NPTS], p[NPTS];
	size_t n = curve(sim, "site.facility_power_w", t, p, NPTS);
	double B = p[0], N = 64, F = B - N * 700, target = 0.75 * B;
	/* the first level that meets the target */
	int lv = 1;
	while (N * (1 - 0.1 * lv) * 700 + F > target)
		lv++;
	double held = N * (1 - 0.1 * lv) * 700 + F;
	ck_assert(lv * 120 + 60 <= 600); /* reached inside the 10 min notice */
	ck_assert_rel(aiwi_test_metric(sim, "site.demand_response_events"), 1, 0);
	ck_assert_rel(aiwi_test_metric(sim, "site.demand_response_baseline_w"), B, 0);
	ck_assert_rel(aiwi_test_metric(sim, "site.demand_response_target_w"), target, 1e-15);
	ck_assert_rel(aiwi_test_metric(sim, "site.demand_response_power_w"), held, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "site.demand_response_reduction_w"), B - held, 1e-9);
	ck_assert(aiwi_test_metric(sim, "site.demand_response_over_target_s") == 0);
	ck_assert_rel(aiwi_test_metric(sim, "site.capping_events"), lv, 0);
	/* released after the window, one level a tick: back to B */
	ck_assert_rel(aiwi_test_metric(sim, "site.capping_releases"), lv, 0);
	ck_assert_rel(p[n - 1], B, 1e-12);
	/* a reduction in W asks the same when it is 0.25 B */
	aiw_sim *w = load_text(text);
	char v[64];
	snprintf(v, sizeof v, "%.17gW", 0.25 * B);
	AIW_OK_OR_FAIL(w, aiw_sim_set(w, "site.demand_response_reduction", "none"));
	AIW_OK_OR_FAIL(w, aiw_sim_set(w, "site.demand_response_reduction_w", v));
	AIW_OK_OR_FAIL(w, aiw_sim_run(w));
	ck_assert_rel(aiwi_test_metric(w, "site.demand_response_power_w"), held, 1e-12);
	aiw_sim_free(w);
	aiw_sim_free(sim);
}
END_TEST

/* A controller that never acts changes nothing: every metric and curve of
 * the run without it, bit for bit. */
START_TEST(inert_when_idle)
{
	char text[2048];
	snprintf(text, sizeof text, TWO_JOBS, "100MW");
	aiw_sim *on = load_text(text), *off = load_text(text);
	AIW_OK_OR_FAIL(on, aiw_sim_set(on, "training.a.jitter", "lognormal(0,0.05)"));
	AIW_OK_OR_FAIL(off, aiw_sim_set(off, "training.a.jitter", "lognormal(0,0.05)"));
	AIW_OK_OR_FAIL(off, aiw_sim_set(off, "site.capping", "off"));
	AIW_OK_OR_FAIL(on, aiw_sim_run(on));
	AIW_OK_OR_FAIL(off, aiw_sim_run(off));
	ck_assert(aiwi_test_metric(on, "site.capping_events") == 0);
	size_t m = 0;
	ck_assert_int_eq(aiw_sim_metric_count(off, &m), AIW_OK);
	for (size_t i = 0; i < m; i++) {
		const char *name;
		ck_assert_int_eq(aiw_sim_metric_name(off, i, &name), AIW_OK);
		if (!strcmp(name, "sim.events") || !strncmp(name, "sim.wall", 8))
			continue;
		double x = aiwi_test_metric(off, name), y = aiwi_test_metric(on, name);
		ck_assert_msg((isnan(x) && isnan(y)) || x == y, "%s: %.17g off, %.17g on", name, x, y);
	}
	size_t nc = 0;
	ck_assert_int_eq(aiw_sim_series_count(off, &nc), AIW_OK);
	for (size_t i = 0; i < nc; i++) {
		const char *name;
		ck_assert_int_eq(aiw_sim_series_name(off, i, &name), AIW_OK);
		static double ta[NPTS], va[NPTS], tb[NPTS], vb[NPTS];
		size_t la = curve(off, name, ta, va, NPTS), lb = curve(on, name, tb, vb, NPTS);
		ck_assert_uint_eq(la, lb);
		ck_assert_msg(!memcmp(ta, tb, la * sizeof *ta) && !memcmp(va, vb, la * sizeof *va),
		              "%s differs", name);
	}
	aiw_sim_free(on);
	aiw_sim_free(off);
}
END_TEST

/* Seeded runs with the controller acting: bit-identical. */
START_TEST(seeded_bit_identical)
{
	char text[2048];
	snprintf(text, sizeof text, TWO_JOBS, "150kW");
	aiw_sim *a = load_text(text), *b = load_text(text);
	for (int i = 0; i < 2; i++) {
		aiw_sim *s = i ? b : a;
		AIW_OK_OR_FAIL(s, aiw_sim_set(s, "training.a.jitter", "lognormal(0,0.05)"));
		AIW_OK_OR_FAIL(s, aiw_sim_set(s, "training.b.jitter", "lognormal(0,0.05)"));
		AIW_OK_OR_FAIL(s, aiw_sim_run(s));
	}
	ck_assert(aiwi_test_metric(a, "site.capping_events") > 0);
	size_t m = 0;
	ck_assert_int_eq(aiw_sim_metric_count(a, &m), AIW_OK);
	for (size_t i = 0; i < m; i++) {
		const char *name;
		ck_assert_int_eq(aiw_sim_metric_name(a, i, &name), AIW_OK);
		if (!strncmp(name, "sim.wall", 8))
			continue;
		double x = aiwi_test_metric(a, name), y = aiwi_test_metric(b, name);
		ck_assert_msg((isnan(x) && isnan(y)) || x == y, "%s: %.17g, %.17g", name, x, y);
	}
	aiw_sim_free(a);
	aiw_sim_free(b);
}
END_TEST

START_TEST(warnings_and_refusals)
{
	/* a component the controller cannot cap: said, counted, never capped */
	aiw_sim *sim = load_text("[sim]\nduration = 1h\n[site]\npue = 1\ncapacity = 1kW\n"
	                         "capping = on\n[load a]\nprofile = 0:2kW\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert(aiwi_test_warned(sim, "load.a takes no cap"));
	ck_assert(aiwi_test_metric(sim, "site.capping_events") == 0);
	ck_assert(aiwi_test_metric(sim, "site.capping_over_limit_s") == 3600);
	aiw_sim_free(sim);
	/* settings without the controller: the mode table's warning */
	sim = load_text("[sim]\nduration = 1h\n[site]\ncapping_high = 0.9\n"
	                "[load a]\nprofile = 0:1kW\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert(aiwi_test_warned(sim, "capping_high"));
	double x;
	ck_assert_int_ne(aiw_sim_metric(sim, "site.capping_events", &x), AIW_OK);
	aiw_sim_free(sim);
	const struct {
		const char *extra, *msg;
	} bad[] = {
	        {"capping = on\n", "needs site.capacity"},
	        {"capping = on\ncapacity = 1kW\ncapping_low = 0.99\n", "capping_low = 0.99"},
	        {"capping = on\ncapacity = 1kW\ncapping_step = 0.6\n", "capping_step = 0.6"},
	        {"capping = on\ndemand_response_start = 1h\n", "exactly one of"},
	        {"capping = on\ndemand_response_start = 1h\ndemand_response_reduction = 0.1\n"
	         "demand_response_reduction_w = 1kW\n",
	         "exactly one of"},
	        {"capping = on\ndemand_response_start = 1h\ndemand_response_reduction = 0.1\n"
	         "demand_response_notice = 2h\n",
	         "demand_response_notice"},
	        {"capping = on\ndemand_response_start = 1h\ndemand_response_reduction = 0.1\n"
	         "demand_response_period = 30min\n",
	         "demand_response_period"},
	        {"capping = on\ncapacity = 1kW\ncapping_high = 0\n", "capping_high"},
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
}
END_TEST

static Suite *suite(void)
{
	Suite *s = suite_create("capping");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, controller_by_hand);
	tcase_add_test(tc, dr_windows_by_hand);
	tcase_add_test(tc, run_against_replay);
	tcase_add_test(tc, demand_response_delivers);
	tcase_add_test(tc, inert_when_idle);
	tcase_add_test(tc, seeded_bit_identical);
	tcase_add_test(tc, warnings_and_refusals);
	suite_add_tcase(s, tc);
	return s;
}

AIW_TEST_MAIN(suite)
