/* test_hostile_values.c - hostile parameter values through aiw_sim_set,
 * each with the message a user sees; seeds; introspection of ranges. */
#include "hostile.h"

/* ======================================================================== */
/* hostile parameter values: aiw_sim_set                                     */
/* ======================================================================== */
typedef struct set_case {
	const char *name, *value;
	aiw_status st;
	const char *msg;
} set_case;

static const set_case SET_CASES[] = {
	/* NaN and infinities are never numbers */
	{"site.pue", "nan", AIW_EPARSE, "site.pue = nan: 'nan' is not a number"},
	{"site.pue", "NaN", AIW_EPARSE, "site.pue = NaN: 'NaN' is not a number"},
	{"site.pue", "inf", AIW_EPARSE, "site.pue = inf: 'inf' is not a number"},
	{"site.pue", "-inf", AIW_EPARSE, "site.pue = -inf: '-inf' is not a number"},
	{"site.pue", "+nan", AIW_EPARSE, "site.pue = +nan: '+nan' is not a number"},
	{"site.pue", "1e309", AIW_ERANGE, "site.pue = 1e309: '1e309' overflows a double"},
	{"site.pue", "", AIW_EPARSE, "site.pue = : '' is not a number"},
	{"inference.a.rate", "nan", AIW_EPARSE,
	 "inference.a.rate = nan: 'nan' is not a rate such as 20/s, 0.05/h or events per second"},
	{"inference.a.rate", "0x10", AIW_EPARSE,
	 "inference.a.rate = 0x10: '0x10' is not a rate such as 20/s, 0.05/h or events per "
	 "second"},
	{"training.t.mfu", "nan", AIW_EPARSE, "training.t.mfu = nan: 'nan' is not a number"},
	{"training.t.jitter", "normal(nan,1)", AIW_EPARSE,
	 "training.t.jitter = normal(nan,1): 'normal(nan,1)': argument 1: 'nan' is not a number"},
	{"training.t.jitter", "lognormal(0,inf)", AIW_EPARSE,
	 "training.t.jitter = lognormal(0,inf): 'lognormal(0,inf)': argument 2: 'inf' is not a "
	 "number"},
	/* 1e308 and friends: out of every range */
	{"site.pue", "1e308", AIW_ERANGE, "site.pue = 1e308: 1e308 is outside the range [1, 5]"},
	{"sim.duration", "1e308", AIW_ERANGE,
	 "sim.duration = 1e308: 1e308 is outside the range (0, 3.2e+09] s"},
	{"training.t.model_params", "1e308", AIW_ERANGE,
	 "training.t.model_params = 1e308: 1e308 is outside the range (0, 1e+15]"},
	/* negative and zero where invalid */
	{"sim.duration", "-1s", AIW_ERANGE,
	 "sim.duration = -1s: -1s is outside the range (0, 3.2e+09] s"},
	{"sim.duration", "0", AIW_ERANGE, "sim.duration = 0: 0 is outside the range (0, 3.2e+09] s"},
	{"sim.seed", "-1", AIW_ERANGE, "sim.seed = -1: -1 is outside the range [0, 18446744073709551615]"},
	{"training.t.mfu", "0", AIW_ERANGE, "training.t.mfu = 0: 0 is outside the range (0, 1]"},
	{"training.t.gpu_mtbf", "0", AIW_ERANGE,
	 "training.t.gpu_mtbf = 0: 0 is outside the range (0, 1e+15] s"},
	{"inference.a.rate", "-5/s", AIW_ERANGE,
	 "inference.a.rate = -5/s: -5/s is outside the range [0, 1e+09] 1/s"},
	{"inference.a.max_batch", "0", AIW_ERANGE,
	 "inference.a.max_batch = 0: 0 is outside the range [1, 65536]"},
	{"training.t.jitter", "normal(0,-1)", AIW_ERANGE,
	 "training.t.jitter = normal(0,-1): 'normal(0,-1)': normal sd must be >= 0"},
	{"inference.a.cold_start", "exp(-1)", AIW_ERANGE,
	 "inference.a.cold_start = exp(-1): 'exp(-1)': exp mean must be > 0"},
	/* 0 or 1e9 GPUs */
	{"training.t.gpus", "0", AIW_ERANGE, "training.t.gpus = 0: 0 is outside the range [1, 1e+07]"},
	{"training.t.gpus", "-1", AIW_ERANGE,
	 "training.t.gpus = -1: -1 is outside the range [1, 1e+07]"},
	{"training.t.gpus", "1e9", AIW_ERANGE,
	 "training.t.gpus = 1e9: 1e9 is outside the range [1, 1e+07]"},
	{"training.t.gpus", "2.5", AIW_EPARSE, "training.t.gpus = 2.5: '2.5' is not an integer"},
	{"inference.a.gpus_per_replica", "0", AIW_ERANGE,
	 "inference.a.gpus_per_replica = 0: 0 is outside the range [1, 4096]"},
	{"inference.a.gpus_per_replica", "1e9", AIW_ERANGE,
	 "inference.a.gpus_per_replica = 1e9: 1e9 is outside the range [1, 4096]"},
	{"inference.a.replicas", "1e9", AIW_ERANGE,
	 "inference.a.replicas = 1e9: 1e9 is outside the range [0, 100000]"},
	{"load.l.gpus", "1e9", AIW_ERANGE, "load.l.gpus = 1e9: 1e9 is outside the range [0, 1e+07]"},
	/* 1e-12 s sample intervals */
	{"sim.sample_interval", "1e-12", AIW_ERANGE,
	 "sim.sample_interval = 1e-12: 1e-12 is outside the range [1e-06, 3.2e+09] s"},
	{"sim.sample_interval", "0", AIW_ERANGE,
	 "sim.sample_interval = 0: 0 is outside the range [1e-06, 3.2e+09] s"},
	/* curve retention: all, 0 or 1 .. 5e7 points */
	{"sim.series_keep", "-1", AIW_ERANGE,
	 "sim.series_keep = -1: -1 is outside the range [0, 5e+07]"},
	{"sim.series_keep", "1e9", AIW_ERANGE,
	 "sim.series_keep = 1e9: 1e9 is outside the range [0, 5e+07]"},
	{"sim.series_keep", "2.5", AIW_EPARSE, "sim.series_keep = 2.5: '2.5' is not an integer"},
	{"sim.series_keep", "some", AIW_EPARSE,
	 "sim.series_keep = some: 'some' is not all or an integer"},
	{"sim.series_keep", "nan", AIW_EPARSE,
	 "sim.series_keep = nan: 'nan' is not all or an integer"},
	{"sim.series_keep", "", AIW_EPARSE, "sim.series_keep = : '' is not all or an integer"},
	/* durations past 100 years (3.2e9 s is about 101.5 years) */
	{"sim.duration", "102y", AIW_ERANGE,
	 "sim.duration = 102y: 102y is outside the range (0, 3.2e+09] s"},
	/* rates of 1e12/s */
	{"inference.a.rate", "1e12/s", AIW_ERANGE,
	 "inference.a.rate = 1e12/s: 1e12/s is outside the range [0, 1e+09] 1/s"},
};

START_TEST(set_hostile)
{
	const set_case *k = &SET_CASES[_i];
	aiw_sim *sim = new_sim();
	aiw_status st = aiw_sim_set(sim, k->name, k->value);
	ck_assert_msg(st == k->st, "%s = '%s': %s, want %s (%s)", k->name, k->value,
	              aiw_status_name(st), aiw_status_name(k->st), aiw_sim_errmsg(sim));
	ck_assert_msg_eq(sim, k->msg);
	/* a refused value creates no component and changes nothing */
	char buf[64];
	if (strncmp(k->name, "sim.", 4) && strncmp(k->name, "site.", 5))
		ck_assert_int_eq(aiw_sim_get(sim, k->name, buf, sizeof buf), AIW_EUNKNOWN);
	/* and the simulation still runs (the default one: 24 h, empty) */
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.duration", "1h"));
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	aiw_sim_free(sim);
}
END_TEST

static void noop_event(aiw_sim *sim, double t, void *payload)
{
	(void)sim, (void)t, (void)payload;
}

START_TEST(set_double_non_finite)
{
	aiw_sim *sim = new_sim();
	ck_assert_int_eq(aiw_sim_set_double(sim, "site.pue", NAN), AIW_ERANGE);
	ck_assert_msg_eq(sim, "site.pue = nan: not a finite number");
	ck_assert_int_eq(aiw_sim_set_double(sim, "site.pue", INFINITY), AIW_ERANGE);
	ck_assert_msg_eq(sim, "site.pue = inf: not a finite number");
	ck_assert_int_eq(aiw_sim_set_double(sim, "site.pue", -INFINITY), AIW_ERANGE);
	ck_assert_msg_eq(sim, "site.pue = -inf: not a finite number");
	ck_assert_int_eq(aiw_sim_set_double(sim, "training.t.gpus", 1e9), AIW_ERANGE);
	ck_assert_msg_eq(sim,
	                 "training.t.gpus = 1000000000: 1000000000 is outside the range [1, 1e+07]");
	ck_assert_int_eq(aiw_sim_set_double(sim, "sim.duration", 1e308), AIW_ERANGE);
	ck_assert_int_eq(aiw_sim_set_double(sim, "sim.duration", -0.0), AIW_ERANGE);
	ck_assert_int_eq(aiw_sim_set_double(sim, "sim.duration", 5e-324), AIW_OK); /* > 0 */
	/* run_until and schedule refuse NaN and infinite times */
	ck_assert_int_eq(aiw_sim_run_until(sim, NAN), AIW_ERANGE);
	ck_assert_int_eq(aiw_sim_run_until(sim, -1), AIW_ERANGE);
	ck_assert_int_eq(aiw_sim_schedule(sim, NAN, noop_event, NULL, NULL), AIW_ERANGE);
	ck_assert_int_eq(aiw_sim_schedule(sim, INFINITY, noop_event, NULL, NULL),
	                 AIW_ERANGE);
	ck_assert_int_eq(aiw_sim_set_progress(sim, NULL, NULL, NAN), AIW_ERANGE);
	ck_assert_int_eq(aiw_sim_set_double(sim, "sim.series_keep", NAN), AIW_ERANGE);
	ck_assert_msg_eq(sim, "sim.series_keep = nan: not a finite number");
	ck_assert_int_eq(aiw_sim_set_double(sim, "sim.series_keep", -1), AIW_ERANGE);
	ck_assert_msg_eq(sim, "sim.series_keep = -1: -1 is outside the range [0, 5e+07]");
	ck_assert_int_eq(aiw_sim_set_sample_callback(NULL, NULL, NULL), AIW_EINVAL);
	aiw_sim_free(sim);
}
END_TEST

/* A range whose maximum would round up in 6 digits: inference.NAME.peak_hour
 * has max 23.999999, so "24 is outside the range [0, 24] h" would
 * contradict itself; the bound prints in full. */
START_TEST(range_message_rounding)
{
	aiw_sim *sim = new_sim();
	ck_assert_int_eq(aiw_sim_set(sim, "inference.a.peak_hour", "24"), AIW_ERANGE);
	ck_assert_msg_eq(sim, "inference.a.peak_hour = 24: 24 is outside the range [0, 23.999999] h");
	aiw_sim_free(sim);
}
END_TEST


/* Every numeric parameter accepts the minimum and the maximum that
 * aiw_param_info reports, unless aiw_param_flags says the minimum is
 * excluded; then it refuses the minimum and accepts the next double. */
START_TEST(range_bounds_introspected)
{
	size_t n, excl = 0, numeric = 0;
	ck_assert_int_eq(aiw_param_count(&n), AIW_OK);
	ck_assert_int_eq(aiw_param_flags(n, &(unsigned){0}), AIW_ERANGE);
	ck_assert_int_eq(aiw_param_flags(0, NULL), AIW_EINVAL);
	for (size_t i = 0; i < n; i++) {
		const char *name, *type;
		double min, max;
		unsigned flags;
		ck_assert_int_eq(aiw_param_info(i, &name, &type, NULL, NULL, &min, &max, NULL, NULL),
		                 AIW_OK);
		ck_assert_int_eq(aiw_param_flags(i, &flags), AIW_OK);
		if (!strcmp(type, "string") || !strcmp(type, "enum") || !strcmp(type, "bool") ||
		    !strcmp(type, "dist"))
			continue;
		numeric++;
		char full[256], v[64];
		const char *p = strstr(name, ".NAME.");
		if (p)
			snprintf(full, sizeof full, "%.*s.x.%s", (int)(p - name), name, p + 6);
		else
			snprintf(full, sizeof full, "%s", name);
		aiw_sim *sim = new_sim();
		bool ex = flags & AIW_PARAM_MIN_EXCLUSIVE;
		excl += ex;
		snprintf(v, sizeof v, "%.17g", min);
		aiw_status st = aiw_sim_set(sim, full, v);
		ck_assert_msg(ex ? st == AIW_ERANGE : st == AIW_OK, "%s = %s (min%s): %s: %s", full, v,
		              ex ? ", excluded" : "", aiw_status_name(st), aiw_sim_errmsg(sim));
		if (ex) {
			snprintf(v, sizeof v, "%.17g", nextafter(min, INFINITY));
			if (!strcmp(type, "int"))
				snprintf(v, sizeof v, "%.17g", floor(min) + 1);
			AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, full, v));
		}
		if (max <= 1.8e19) { /* the seed's 2^64 - 1 does not print as a double */
			snprintf(v, sizeof v, "%.17g", max);
			AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, full, v));
		}
		aiw_sim_free(sim);
	}
	/* the parameters whose minimum was refused without a word of it */
	ck_assert_msg(excl >= 50 && numeric > excl, "%zu of %zu exclude their minimum", excl,
	              numeric);
}
END_TEST

/* A seed is an exact integer in [0, 2^64 - 1]: written in digits, or in
 * any notation whose value is exactly such an integer; the JSON and
 * aiw_sim_get give its digits, and 1e16 runs as 10^16, not as seed 1. */
START_TEST(seeds_exact)
{
	static const struct {
		const char *text, *digits;
	} ok[] = {{"1e16", "10000000000000000"}, {"2e18", "2000000000000000000"},
	          {"18446744073709551615", "18446744073709551615"},
	          {"1.8446744073709551615e19", "18446744073709551615"},
	          {"1.5k", "1500"}, {"007", "7"}, {"+3", "3"}, {"0.0", "0"}};
	static const struct {
		const char *text;
		aiw_status st;
		const char *msg;
	} bad[] = {
		{"18446744073709551616", AIW_ERANGE,
		 "sim.seed = 18446744073709551616: 18446744073709551616 is outside the range [0, "
		 "18446744073709551615]"},
		{"1e20", AIW_ERANGE, "sim.seed = 1e20: 1e20 is outside the range [0, 18446744073709551615]"},
		{"1e-3", AIW_EPARSE, "sim.seed = 1e-3: '1e-3' is not an integer"},
		{"0.5", AIW_EPARSE, "sim.seed = 0.5: '0.5' is not an integer"},
		{"0x1p3", AIW_EPARSE, "sim.seed = 0x1p3: '0x1p3' is not an integer"},
		{"5abc", AIW_EPARSE, "sim.seed = 5abc: '5abc' is not an integer"},
		{"nan", AIW_EPARSE, "sim.seed = nan: 'nan' is not an integer"},
	};
	aiw_sim *sim = new_sim();
	char buf[64];
	for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
		AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.seed", ok[i].text));
		AIW_OK_OR_FAIL(sim, aiw_sim_get(sim, "sim.seed", buf, sizeof buf));
		ck_assert_str_eq(buf, ok[i].digits);
	}
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		ck_assert_int_eq(aiw_sim_set(sim, "sim.seed", bad[i].text), bad[i].st);
		ck_assert_msg_eq(sim, bad[i].msg);
	}
	/* through aiw_sim_set_double: 1e16 is exact, 2^64 is out of range */
	AIW_OK_OR_FAIL(sim, aiw_sim_set_double(sim, "sim.seed", 1e16));
	AIW_OK_OR_FAIL(sim, aiw_sim_get(sim, "sim.seed", buf, sizeof buf));
	ck_assert_str_eq(buf, "10000000000000000");
	ck_assert_int_eq(aiw_sim_set_double(sim, "sim.seed", 18446744073709551616.0), AIW_ERANGE);
	aiw_sim_free(sim);

	/* seeds 1e16 and 1 run differently; aiw_sim_create's seed is exact */
	double arrived[3];
	for (int k = 0; k < 3; k++) {
		sim = NULL;
		ck_assert_int_eq(aiw_sim_create(&sim, k == 2 ? UINT64_C(10000000000000000) : 1), AIW_OK);
		AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.duration", "10min"));
		AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "inference.a.rate", "5/s"));
		if (k == 1)
			AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.seed", "1e16"));
		AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
		arrived[k] = aiwi_test_metric(sim, "inference.a.requests_arrived");
		AIW_OK_OR_FAIL(sim, aiw_sim_get(sim, "sim.seed", buf, sizeof buf));
		ck_assert_str_eq(buf, k ? "10000000000000000" : "1");
		aiw_sim_free(sim);
	}
	ck_assert(arrived[1] != arrived[0]);
	ck_assert(arrived[1] == arrived[2]);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("hostile_values");
	TCase *tc = tcase_create("values");
	tcase_add_loop_test(tc, set_hostile, 0, (int)(sizeof SET_CASES / sizeof *SET_CASES));
	tcase_add_test(tc, set_double_non_finite);
	tcase_add_test(tc, range_message_rounding);
	tcase_add_test(tc, range_bounds_introspected);
	tcase_add_test(tc, seeds_exact);
	suite_add_tcase(s, tc);
	return s;
}

AIW_TEST_MAIN(make_suite)
