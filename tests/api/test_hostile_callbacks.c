/* test_hostile_callbacks.c - misuse from inside callbacks and the stepping
 * API: progress intervals below the bound, aiw_sim_free from a sample,
 * event or progress callback and aiw_sweep_free from a sweep callback
 * (deferred, not a use-after-free: run under the sanitizers), a sweep
 * re-entered from its own callback, and aiw_sim_run_until in steps that
 * are not multiples of the sample interval (the same metrics and curves,
 * bit for bit, as one aiw_sim_run). */
#include "hostile.h"

/* A small fleet: one hour of Poisson traffic on two replicas. */
static aiw_sim *small_fleet(const char *duration)
{
	aiw_sim *sim = new_sim();
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.duration", duration));
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.sample_interval", "1min"));
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "inference.a.rate", "5/s"));
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "inference.a.replicas", "2"));
	return sim;
}

static int count_progress(aiw_sim *sim, double now, double end, void *payload)
{
	(void)sim, (void)now, (void)end;
	++*(size_t *)payload;
	return 0;
}

/* ======================================================================== */
/* progress intervals                                                        */
/* ======================================================================== */
/* Intervals under 1e-6 s are refused with the usual message; 1e-6 s runs an
 * hour at one call per event at most (the progress time is found in O(1),
 * where it was stepped by `every' until past the clock: 3.6e9 steps). */
START_TEST(progress_interval_bound)
{
	aiw_sim *sim = small_fleet("1h");
	size_t calls = 0;
	static const double tiny[] = {1e-9, 1e-300, 9.9e-7, 5e-324};
	for (size_t i = 0; i < sizeof tiny / sizeof *tiny; i++) {
		ck_assert_int_eq(aiw_sim_set_progress(sim, count_progress, &calls, tiny[i]),
		                 AIW_ERANGE);
		char want[160];
		snprintf(want, sizeof want,
		         "aiw_sim_set_progress: every = %g s is outside the range 0 or [1e-06, inf) s",
		         tiny[i]);
		ck_assert_msg_eq(sim, want);
	}
	AIW_OK_OR_FAIL(sim, aiw_sim_set_progress(sim, count_progress, &calls, 1e-6));
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	double events = aiwi_test_metric(sim, "sim.events");
	ck_assert_msg(calls > 0 && (double)calls <= events, "%zu calls for %g events", calls,
	              events);
	aiw_sim_free(sim);
}
END_TEST

/* ======================================================================== */
/* aiw_sim_free from inside a run: deferred to the run call's end            */
/* ======================================================================== */
static int free_in_progress(aiw_sim *sim, double now, double end, void *payload)
{
	(void)now, (void)end;
	++*(int *)payload;
	aiw_sim_free(sim);
	return 0; /* (the run stops all the same) */
}

/* An event after the free would run on a simulation its owner has let go:
 * none may. */
static void must_not_run(aiw_sim *sim, double t, void *payload)
{
	(void)sim, (void)t, (void)payload;
	ck_abort_msg("an event ran after aiw_sim_free");
}

static void free_in_sample(aiw_sim *sim, double t, const double *values, size_t n,
                           void *payload)
{
	(void)t, (void)values, (void)n;
	++*(int *)payload;
	aiw_sim_free(sim);
}

static void free_in_event(aiw_sim *sim, double t, void *payload)
{
	(void)t;
	++*(int *)payload;
	aiw_sim_free(sim);
	aiw_sim_free(sim); /* twice: still deferred, still once */
}

START_TEST(free_from_callbacks)
{
	for (int how = 0; how < 3; how++) {
		aiw_sim *sim = small_fleet("1h");
		int calls = 0;
		if (how == 0)
			AIW_OK_OR_FAIL(sim, aiw_sim_set_progress(sim, free_in_progress, &calls, 60));
		else if (how == 1)
			AIW_OK_OR_FAIL(sim, aiw_sim_set_sample_callback(sim, free_in_sample, &calls));
		else
			AIW_OK_OR_FAIL(sim, aiw_sim_schedule(sim, 600, free_in_event, &calls, NULL));
		/* the progress call at t >= 60 s, the first tick at 60 s, the event at 600 s:
		 * nothing of the user's after them */
		AIW_OK_OR_FAIL(sim, aiw_sim_schedule(sim, how == 2 ? 600 : 61, must_not_run, NULL, NULL));
		/* the run stops after the callback, frees sim and says so; sim is
		 * gone (the sanitizers and valgrind see any later use) */
		ck_assert_int_eq(aiw_sim_run(sim), AIW_ESTOPPED);
		ck_assert_int_eq(calls, 1);
	}
}
END_TEST

/* ======================================================================== */
/* sweeps: re-entered or freed from their own callbacks                      */
/* ======================================================================== */
typedef struct sweep_probe {
	int calls;
	aiw_status inner;
	bool free_it;
} sweep_probe;

/* The callback gets a const handle; a caller that casts it away (or keeps
 * its own copy of the handle) can still try these. */
static void sweep_cb(const aiw_sweep *csw, size_t point, void *payload)
{
	(void)point;
	aiw_sweep *sw = (aiw_sweep *)(uintptr_t)csw;
	sweep_probe *p = payload;
	p->calls++;
	if (p->free_it) {
		aiw_sweep_free(sw);
		return;
	}
	p->inner = aiw_sweep_run(sw);
}

static aiw_sweep *small_sweep(void)
{
	aiw_sweep *sw = NULL;
	ck_assert_int_eq(aiw_sweep_create(&sw, NULL,
	                                  "[sim]\nduration = 10min\nsample_interval = 1min\n"
	                                  "[inference a]\nrate = 2/s\nreplicas = 1\n"),
	                 AIW_OK);
	ck_assert_int_eq(aiw_sweep_axis(sw, "inference.a.rate", "1/s,2/s,3/s"), AIW_OK);
	ck_assert_int_eq(aiw_sweep_set_jobs(sw, 1), AIW_OK);
	return sw;
}

START_TEST(sweep_callback_misuse)
{
	aiw_sweep *sw = small_sweep();
	sweep_probe p = {0, AIW_OK, false};
	ck_assert_int_eq(aiw_sweep_set_callback(sw, sweep_cb, &p), AIW_OK);
	ck_assert_int_eq(aiw_sweep_run(sw), AIW_OK);
	ck_assert_int_eq(p.calls, 3); /* once per point, not twice */
	ck_assert_int_eq(p.inner, AIW_ESTATE);
	ck_assert_str_eq(aiw_sweep_errmsg(sw), "aiw_sweep_run: called from inside the sweep's "
	                                       "own callback (the run in progress is not finished)");
	aiw_sweep_free(sw);

	sw = small_sweep();
	sweep_probe q = {0, AIW_OK, true};
	ck_assert_int_eq(aiw_sweep_set_callback(sw, sweep_cb, &q), AIW_OK);
	ck_assert_int_eq(aiw_sweep_run(sw), AIW_ESTOPPED); /* and sw is freed */
	ck_assert_int_eq(q.calls, 1);
}
END_TEST

/* ======================================================================== */
/* stepping                                                                  */
/* ======================================================================== */
/* Every metric and every curve's every point of a run stepped by
 * aiw_sim_run_until in steps of `step' seconds equal one aiw_sim_run's, bit
 * for bit (the finish hooks' integrals are put back after each step). */
/* The one exception (aiw_sim_run_until(3)): a fleet's FLOP count, the sum
 * behind compute_utilization and tensor_activity (a fleet's, the site's), takes the work of batches whose start was
 * decided ahead (continuous batching's eager cuts) when a step ends, in
 * another order than one run adds it.  Reordering a sum of n positive terms
 * moves it by at most (n - 1) 2^-53 relative; n < 1e6 batches here. */
#define REORDER_TOL 1.2e-10
static bool reordered(const char *name)
{
	static const char *const SUM[] = {"compute_utilization", "tensor_activity",
	                                  "dram_activity"};
	size_t n = strlen(name);
	for (size_t i = 0; i < sizeof SUM / sizeof *SUM; i++) {
		size_t k = strlen(SUM[i]);
		if (n >= k && strcmp(name + n - k, SUM[i]) == 0)
			return true;
	}
	return false;
}

/* Every inference fleet of sim on `timing` (NULL: as the scenario has it). */
static void set_timing(aiw_sim *sim, const char *timing)
{
	size_t n = 0;
	AIW_OK_OR_FAIL(sim, aiw_sim_component_count(sim, &n));
	for (size_t i = 0; timing && i < n; i++) {
		const char *kind, *name;
		AIW_OK_OR_FAIL(sim, aiw_sim_component(sim, i, &kind, &name));
		if (strcmp(kind, "inference") == 0) {
			char key[256];
			snprintf(key, sizeof key, "inference.%s.timing", name);
			AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, key, timing));
		}
	}
}

static void assert_stepping_exact(const char *ini, const char *duration, double step,
                                  const char *timing)
{
	aiw_sim *a = new_sim(), *b = new_sim();
	AIW_OK_OR_FAIL(a, aiw_sim_load_string(a, ini, "stepping.ini"));
	AIW_OK_OR_FAIL(b, aiw_sim_load_string(b, ini, "stepping.ini"));
	set_timing(a, timing);
	set_timing(b, timing);
	AIW_OK_OR_FAIL(a, aiw_sim_set(a, "sim.duration", duration));
	AIW_OK_OR_FAIL(b, aiw_sim_set(b, "sim.duration", duration));
	AIW_OK_OR_FAIL(a, aiw_sim_run(a));
	double end = aiwi_test_metric(a, "sim.time_s");
	for (double t = step; t < end + step; t += step)
		AIW_OK_OR_FAIL(b, aiw_sim_run_until(b, t));
	size_t n, m;
	AIW_OK_OR_FAIL(a, aiw_sim_metric_count(a, &n));
	AIW_OK_OR_FAIL(b, aiw_sim_metric_count(b, &m));
	ck_assert_uint_eq(n, m);
	for (size_t i = 0; i < n; i++) {
		const char *name;
		AIW_OK_OR_FAIL(a, aiw_sim_metric_name(a, i, &name));
		double x = aiwi_test_metric(a, name), y = aiwi_test_metric(b, name);
		if (reordered(name)) {
			ck_assert_rel(y, x, REORDER_TOL);
			continue;
		}
		ck_assert_msg(memcmp(&x, &y, sizeof x) == 0 || (isnan(x) && isnan(y)),
		              "step %g s: %s = %.17g in one run, %.17g stepped", step, name, x, y);
	}
	AIW_OK_OR_FAIL(a, aiw_sim_series_count(a, &n));
	for (size_t i = 0; i < n; i++) {
		const char *name;
		size_t la, lb;
		AIW_OK_OR_FAIL(a, aiw_sim_series_name(a, i, &name));
		AIW_OK_OR_FAIL(a, aiw_sim_series_length(a, name, &la));
		AIW_OK_OR_FAIL(b, aiw_sim_series_length(b, name, &lb));
		ck_assert_uint_eq(la, lb);
		double *va = malloc(la * sizeof *va), *vb = malloc(la * sizeof *vb);
		ck_assert(va && vb);
		size_t got;
		AIW_OK_OR_FAIL(a, aiw_sim_series_copy(a, name, NULL, va, la, &got));
		AIW_OK_OR_FAIL(b, aiw_sim_series_copy(b, name, NULL, vb, la, &got));
		for (size_t k = 0; k < la; k++)
			if (reordered(name))
				ck_assert_rel(vb[k], va[k], REORDER_TOL);
			else
				ck_assert_msg(memcmp(&va[k], &vb[k], sizeof *va) == 0 ||
				                      (isnan(va[k]) && isnan(vb[k])),
				              "step %g s: %s[%zu] = %.17g in one run, %.17g stepped",
				              step, name, k, va[k], vb[k]);
		free(va);
		free(vb);
	}
	aiw_sim_free(a);
	aiw_sim_free(b);
}

static char *read_example(const char *rel)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/%s", AIW_SRCDIR, rel);
	FILE *f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	static char buf[1 << 16];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = 0;
	return buf;
}

/* The examples whose energy, utilisation and cost metrics differed in the
 * last bits (up to 2e-13 relative) when stepped: fixed fleets, a spot
 * fleet and autoscalers with the fixed-fleet comparison. */
START_TEST(stepping_exact)
{
	static const char *const files[] = {"examples/scenarios/inference-only.ini",
	                                    "examples/scenarios/spot.ini",
	                                    "examples/scenarios/autoscaling.ini"};
	static const double steps[] = {97.3, 1234.5, 7};
	char *ini = read_example(files[_i]);
	/* (one hour and one step size under valgrind and the sanitizers) */
	size_t nsteps = slowed() ? 1 : sizeof steps / sizeof *steps;
	for (size_t k = 0; k < nsteps; k++)
		assert_stepping_exact(ini, slowed() ? "1h" : "3h", steps[k], NULL);
}
END_TEST

/* The same on the per-iteration model: its prefills (compute-bound, of
 * varying lengths) book surcharges of varying sizes, which a stepped run
 * settles at its stops in another order than the single run (the booked
 * energy is an exact sum, aiwi_xsum, so the order does not show). */
START_TEST(stepping_exact_iteration)
{
	static const char *const files[] = {"examples/scenarios/inference-only.ini",
	                                    "examples/scenarios/autoscaling.ini"};
	char *ini = read_example(files[_i]);
	assert_stepping_exact(ini, slowed() ? "1h" : "2h", 7, "iteration");
	if (!slowed())
		assert_stepping_exact(ini, "2h", 97.3, "iteration");
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("hostile_callbacks");
	TCase *tc = tcase_create("callbacks");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, progress_interval_bound);
	tcase_add_test(tc, free_from_callbacks);
	tcase_add_test(tc, sweep_callback_misuse);
	suite_add_tcase(s, tc);

	tc = tcase_create("stepping");
	tcase_set_timeout(tc, 300);
	tcase_add_loop_test(tc, stepping_exact, 0, 3);
	tcase_add_loop_test(tc, stepping_exact_iteration, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

AIW_TEST_MAIN(make_suite)
