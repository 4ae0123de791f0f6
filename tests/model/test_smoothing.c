/* test_smoothing.c - GPU power smoothing of a training job (power_floor,
 * power_ramp_down) and the staggered pipeline bubble (bubble_shape), by
 * hand: the floor's energy, the ramp's closed-form integral, the site's
 * swing at fine resolution, the bubble's idle GPU-seconds, and seeded runs
 * reproduced bit for bit. */
#include "core/internal.h"
#include "training/training.h"
#include "../testutil.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static aiw_sim *run_text(const char *text, uint64_t seed)
{
	aiw_sim *sim;
	ck_assert_int_eq(aiw_sim_create(&sim, seed), AIW_OK);
	AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim, text, "test.ini"));
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	return sim;
}

#define TM(sim, key) aiwi_test_metric(sim, "training.t." key)

/* A data-parallel job on H100-SXM (catalog: tdp_w 700, compute_w 700,
 * comm_w 350, idle_w 75 W), no jitter, failures or checkpoints, 100 steps
 * of 1.3 s compute and an exposed ring all-reduce of e seconds. */
#define DP_JOB                                                                                 \
	"[sim]\nduration = 10min\nsample_interval = %s\n[site]\ngrid = %s\n"                    \
	"[training t]\ngpu = H100-SXM\ngpus = 64\ngpus_per_node = 8\nmodel_params = 1e9\n"        \
	"tokens_per_step = 1e6\nstep_compute = 1.3s\nallreduce = ring\noverlap = 0\n"            \
	"checkpoint_interval = none\nmax_steps = 100\n%s"

static aiw_sim *dp_job(const char *dt, const char *grid, const char *extra)
{
	char text[2048];
	snprintf(text, sizeof text, DP_JOB, dt, grid, extra);
	return run_text(text, 1);
}

/* The floor at 0.7 x 700 = 490 W holds the communication at 490 W instead
 * of comm_w = 350: 100 steps x 64 GPUs x 140 W x e. */
START_TEST(floor_energy_by_hand)
{
	aiw_sim *a = dp_job("1min", "off", "");
	aiw_sim *b = dp_job("1min", "off", "power_floor = 0.7\n");
	double e = TM(a, "allreduce_s");
	ck_assert(e > 0);
	ck_assert_double_eq(TM(a, "step_time_mean_s"), TM(b, "step_time_mean_s"));
	double hand = 100 * 64 * (0.7 * 700 - 350) * e;
	double got = TM(b, "smoothing_energy_kwh") * 3.6e6;
	ck_assert_msg(fabs(got - hand) <= 1e-9 * hand, "floor: %.17g J, by hand %.17g J", got, hand);
	double de = (TM(b, "energy_kwh") - TM(a, "energy_kwh")) * 3.6e6;
	ck_assert_msg(fabs(de - hand) <= 1e-9 * TM(a, "energy_kwh") * 3.6e6, "%.17g %.17g", de, hand);
	ck_assert_double_eq_tol(TM(b, "smoothing_overhead"), got / (TM(a, "energy_kwh") * 3.6e6),
	                        1e-12);
	aiw_sim_free(a);
	aiw_sim_free(b);
	/* a floor below every level costs nothing, exactly */
	a = dp_job("1min", "off", "power_floor = 0\n");
	ck_assert_double_eq(TM(a, "smoothing_energy_kwh"), 0);
	aiw_sim_free(a);
}
END_TEST

/* The ramp: at the end of the compute each GPU falls from 700 W toward
 * comm_w = 350 W at R W/s.  R = 10 kW/s reaches it after 35 ms < e: per
 * GPU and step the triangle 350^2 / (2 R).  R = 2 kW/s does not (350 / R =
 * 175 ms > e): the trapezoid 350 e - R e^2 / 2, and the next step's
 * compute jumps back up to 700 W. */
START_TEST(ramp_integral_closed_form)
{
	aiw_sim *a = dp_job("1min", "off", "");
	double e = TM(a, "allreduce_s");
	ck_assert(e > 0.035 && e < 0.175);
	aiw_sim_free(a);
	double R[2] = {10e3, 2e3};
	double per[2] = {350.0 * 350 / (2 * R[0]), 350 * e - R[1] * e * e / 2};
	for (int i = 0; i < 2; i++) {
		char x[100];
		snprintf(x, sizeof x, "power_ramp_down = %g\n", R[i]);
		aiw_sim *b = dp_job("1min", "off", x);
		double hand = 100 * 64 * per[i], got = TM(b, "smoothing_energy_kwh") * 3.6e6;
		ck_assert_msg(fabs(got - hand) <= 1e-9 * hand, "R %g: %.17g J, closed form %.17g J", R[i],
		              got, hand);
		aiw_sim_free(b);
	}
}
END_TEST

/* max - min of the site's sampled power over whole steps at 10 ms: the
 * compute's 64 x 700 W against the communication's 64 x max(350, floor). */
static double site_swing(aiw_sim *sim)
{
	size_t n = 0;
	ck_assert_int_eq(aiw_sim_series_length(sim, "site.power_w", &n), AIW_OK);
	double *t = malloc(n * sizeof *t), *v = malloc(n * sizeof *v);
	size_t got = 0;
	ck_assert_int_eq(aiw_sim_series_copy(sim, "site.power_w", t, v, n, &got), AIW_OK);
	double lo = INFINITY, hi = -INFINITY;
	for (size_t i = 0; i < got; i++)
		if (t[i] > 5 && t[i] < 100) {
			lo = fmin(lo, v[i]);
			hi = fmax(hi, v[i]);
		}
	free(t);
	free(v);
	return hi - lo;
}

START_TEST(site_swing_with_the_floor)
{
	aiw_sim *a = dp_job("10ms", "on", "");
	aiw_sim *b = dp_job("10ms", "on", "power_floor = 0.7\n");
	double s0 = site_swing(a), s1 = site_swing(b);
	/* site.power_w is IT power: the GPUs' swing */
	ck_assert_msg(fabs(s0 - 64 * 350.0) <= 1e-6 * s0, "unfloored swing %.17g W", s0);
	ck_assert_msg(fabs(s1 - 64 * (700 - 490.0)) <= 1e-6 * s1, "floored swing %.17g W", s1);
	/* the swing falls by (compute_w - floor) / (compute_w - comm_w) = 0.6 */
	ck_assert_double_eq_tol(s1 / s0, 0.6, 1e-6);
	ck_assert(aiwi_test_metric(b, "site.grid_step_max_w_load") <
	          aiwi_test_metric(a, "site.grid_step_max_w_load"));
	aiw_sim_free(a);
	aiw_sim_free(b);
	/* at 10 ms the interval averages are the exact integrals of the
	 * piecewise-linear phases: the curve integrates back to the energy */
	a = dp_job("10ms", "off", "power_floor = 0.6\npower_ramp_down = 3000\n");
	aiwi_comp *c;
	ck_assert_int_eq(aiwi_comp_get(a, "training", "t", false, &c), AIW_OK);
	double in = aiwi_test_curve_integral(a, "training.t.power_w");
	ck_assert_msg(fabs(in - c->energy_j) <= 1e-9 * c->energy_j, "curve %.17g J, energy %.17g J",
	              in, c->energy_j);
	aiw_sim_free(a);
}
END_TEST

/* A 7B-class layout on PP 4 (1F1B, 4 micro-batches): the bubble is 3 of 7
 * slots.  Staggered, every stage still idles the whole bubble: the step
 * time is the same to the bit, the busy GPU-seconds (hence the idle ones,
 * GPUs x wall - busy) and the energy the same up to rounding, with or
 * without jitter; without, the load's largest step at the site is half the
 * aligned one or less (the staircase's quarters). */
#define PP_JOB                                                                                 \
	"[sim]\nduration = 2min\nsample_interval = 20ms\n[site]\ngrid = on\n"                   \
	"[training t]\ngpu = H100-SXM\ngpus = 32\ngpus_per_node = 8\nmemory_check = warn\n"       \
	"layers = 32\nhidden = 4096\nheads = 32\nvocab = 32000\nseq_len = 4096\ntp = 1\npp = 4\n" \
	"micro_batch = 1\nglobal_batch = 32\ncheckpoint_interval = none\nmax_steps = 150\n%s"

static aiw_sim *pp_job(const char *extra, uint64_t seed)
{
	char text[2048];
	snprintf(text, sizeof text, PP_JOB, extra);
	return run_text(text, seed);
}

START_TEST(staggered_bubble_same_idle)
{
	static const char *const jit[2] = {"", "jitter = lognormal(0, 0.03)\n"};
	char xa[200], xb[200];
	snprintf(xa, sizeof xa, "%s", jit[_i]);
	snprintf(xb, sizeof xb, "%sbubble_shape = staggered\n", jit[_i]);
	aiw_sim *a = pp_job(xa, 1), *b = pp_job(xb, 1);
	ck_assert(TM(a, "step_pp_bubble_s") > 0);
	ck_assert_double_eq(TM(a, "steps"), 150);
	ck_assert_double_eq(TM(a, "step_time_mean_s"), TM(b, "step_time_mean_s"));
	ck_assert_double_eq(TM(a, "wall_s"), TM(b, "wall_s"));
	ck_assert_double_eq(TM(a, "pp_bubble_s"), TM(b, "pp_bubble_s"));
	aiwi_comp *ca, *cb;
	ck_assert_int_eq(aiwi_comp_get(a, "training", "t", false, &ca), AIW_OK);
	ck_assert_int_eq(aiwi_comp_get(b, "training", "t", false, &cb), AIW_OK);
	double wall = TM(a, "wall_s");
	double idle_a = 32 * wall - ca->busy_gpu_s, idle_b = 32 * wall - cb->busy_gpu_s;
	ck_assert_msg(fabs(idle_a - idle_b) <= 1e-9 * idle_a, "idle GPU-s %.17g, %.17g", idle_a,
	              idle_b);
	/* the bubble's idle GPU-seconds are in them: 32 x pp_bubble_s */
	ck_assert(idle_a >= 32 * TM(a, "pp_bubble_s"));
	ck_assert_msg(fabs(ca->energy_j - cb->energy_j) <= 1e-9 * ca->energy_j, "%.17g %.17g",
	              ca->energy_j, cb->energy_j);
	/* the steps of the load itself (the job's start and stop aside) */
	double da = aiwi_test_metric(a, "site.grid_step_max_w_load");
	double db = aiwi_test_metric(b, "site.grid_step_max_w_load");
	if (_i == 0) /* without jitter the steps are the staircase's quarters */
		ck_assert_msg(db <= da / 2, "staggered step %g W, aligned %g W", db, da);
	aiw_sim_free(a);
	aiw_sim_free(b);
}
END_TEST

/* Jitter, the floor, the ramp and the staggered bubble together, twice:
 * every metric and curve equal to the bit; the busy GPU-seconds do not
 * depend on the smoothing. */
START_TEST(seeded_runs_reproduced)
{
	const char *x = "jitter = lognormal(0, 0.03)\nbubble_shape = staggered\n"
	                "power_floor = 0.6\npower_ramp_down = 3000\n";
	aiw_sim *a = pp_job(x, 7), *b = pp_job(x, 7);
	size_t n = 0;
	ck_assert_int_eq(aiw_sim_metric_count(a, &n), AIW_OK);
	for (size_t i = 0; i < n; i++) {
		const char *name;
		ck_assert_int_eq(aiw_sim_metric_name(a, i, &name), AIW_OK);
		if (!strcmp(name, "sim.events") || !strncmp(name, "sim.wall", 8))
			continue;
		double u = aiwi_test_metric(a, name), v = aiwi_test_metric(b, name);
		ck_assert_msg((isnan(u) && isnan(v)) || u == v, "%s: %.17g %.17g", name, u, v);
	}
	ck_assert(TM(a, "smoothing_energy_kwh") > 0);
	aiw_sim *c = pp_job("jitter = lognormal(0, 0.03)\nbubble_shape = staggered\n", 7);
	aiwi_comp *ca, *cc;
	ck_assert_int_eq(aiwi_comp_get(a, "training", "t", false, &ca), AIW_OK);
	ck_assert_int_eq(aiwi_comp_get(c, "training", "t", false, &cc), AIW_OK);
	ck_assert_double_eq(TM(a, "step_time_mean_s"), TM(c, "step_time_mean_s"));
	ck_assert_msg(fabs(ca->busy_gpu_s - cc->busy_gpu_s) <= 1e-9 * cc->busy_gpu_s, "%.17g %.17g",
	              ca->busy_gpu_s, cc->busy_gpu_s);
	/* the smoothing's energy is the whole difference */
	double d = ca->energy_j - cc->energy_j, s = TM(a, "smoothing_energy_kwh") * 3.6e6;
	ck_assert_msg(fabs(d - s) <= 1e-9 * ca->energy_j, "%.17g %.17g", d, s);
	aiw_sim_free(a);
	aiw_sim_free(b);
	aiw_sim_free(c);
}
END_TEST

/* Refusals: a floor above the power cap; values out of range. */
START_TEST(refusals)
{
	aiw_sim *sim;
	ck_assert_int_eq(aiw_sim_create(&sim, 1), AIW_OK);
	char text[2048];
	snprintf(text, sizeof text, DP_JOB, "1min", "off", "power_cap = 400\npower_floor = 0.7\n");
	aiw_status st = aiw_sim_load_string(sim, text, "test.ini");
	if (st == AIW_OK)
		st = aiw_sim_run(sim);
	ck_assert_int_ne(st, AIW_OK);
	ck_assert_ptr_nonnull(strstr(aiw_sim_errmsg(sim), "power_floor"));
	aiw_sim_free(sim);
	ck_assert_int_eq(aiw_sim_create(&sim, 1), AIW_OK);
	snprintf(text, sizeof text, DP_JOB, "1min", "off", "power_floor = 1.5\n");
	ck_assert_int_ne(aiw_sim_load_string(sim, text, "test.ini"), AIW_OK);
	ck_assert_ptr_nonnull(strstr(aiw_sim_errmsg(sim), "power_floor"));
	aiw_sim_free(sim);
	ck_assert_int_eq(aiw_sim_create(&sim, 1), AIW_OK);
	snprintf(text, sizeof text, DP_JOB, "1min", "off", "bubble_shape = staggered\n");
	st = aiw_sim_load_string(sim, text, "test.ini");
	if (st == AIW_OK)
		st = aiw_sim_run(sim);
	ck_assert_int_ne(st, AIW_OK); /* the layout model's setting without layers */
	aiw_sim_free(sim);
	/* staggered without a pipeline: warned, nothing changes */
	char pp1[2048];
	snprintf(pp1, sizeof pp1, PP_JOB, "bubble_shape = staggered\n");
	char *q = strstr(pp1, "pp = 4");
	ck_assert_ptr_nonnull(q);
	q[5] = '1';
	sim = run_text(pp1, 1);
	ck_assert(aiwi_test_warned(sim, "bubble_shape = staggered has no effect"));
	aiw_sim_free(sim);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("smoothing");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, floor_energy_by_hand);
	tcase_add_test(tc, ramp_integral_closed_form);
	tcase_add_test(tc, site_swing_with_the_floor);
	tcase_add_loop_test(tc, staggered_bubble_same_idle, 0, 2);
	tcase_add_test(tc, seeded_runs_reproduced);
	tcase_add_test(tc, refusals);
	suite_add_tcase(s, tc);
	return s;
}

AIW_TEST_MAIN(make_suite)
