/* test_hostile_limits.c - valid values that would exhaust time or
 * memory: the up-front work and memory limits (lib/core/limits.c). */
#include "hostile.h"

#include <time.h>

/* ======================================================================== */
/* valid values that would exhaust time or memory: refused at the run       */
/* ======================================================================== */
typedef struct run_case {
	const char *ini;
	aiw_status st;
	const char *msg;
} run_case;

static const run_case RUN_CASES[] = {
	/* rates: 1e9/s for a day; the weekly profile's weekend factor */
	{"[sim]\nduration = 1d\n[inference a]\nrate = 1e9/s\n", AIW_ELIMIT,
	 "hostile.ini:3: inference.a: about 8.6e13 requests (rate 1e9/s x 1 d); the limit is 1e10 "
	 "(lower rate or sim.duration)"},
	{"[sim]\nduration = 7d\nsample_interval = 1h\n[inference a]\ntraffic = diurnal\n"
	 "rate = 1e5/s\nweekend_factor = 1000\n",
	 AIW_ELIMIT,
	 "hostile.ini:4: inference.a: about 1.7e13 requests (mean rate 2.9e7/s of the daily "
	 "profile x 7 d); the limit is 1e10 (lower rate or sim.duration)"},
	{"[sim]\nduration = 100y\nsample_interval = 1d\n[inference a]\ntraffic = bursty\n"
	 "rate = 10/s\ncv = 3\n",
	 AIW_ELIMIT,
	 "hostile.ini:4: inference.a: about 3.2e10 requests (rate 10/s x 100 y); the limit is "
	 "1e10 (lower rate or sim.duration)"},
	{"[sim]\nduration = 30d\nsample_interval = 1h\n[inference a]\nrate = 2000/s\n"
	 "autoscaler = hpa\ncompare_fixed = 4\n",
	 AIW_ELIMIT,
	 "hostile.ini:4: inference.a: about 1e10 requests (rate 2000/s x 30 d, twice with "
	 "compare_fixed); the limit is 1e10 (lower rate or sim.duration)"},
	/* training: a nanosecond step for a century; failures every microsecond */
	{"[sim]\nduration = 100y\nsample_interval = 1d\n[training t]\ngpus = 1\n"
	 "step_compute = 1e-9\nmemory_check = warn\n",
	 AIW_ELIMIT,
	 "hostile.ini:4: training.t: about 3.2e18 steps (100 y / step time 1e-9 s); the limit is "
	 "1e10 (lower sim.duration, or raise the step time (step_compute, model_params or "
	 "tokens_per_step), or set max_steps)"},
	{"[sim]\nduration = 1d\n[training t]\ngpus = 1e7\ngpu_mtbf = 1e-6\n", AIW_ELIMIT,
	 "hostile.ini:3: training.t: about 8.6e17 failures (gpus 1e7 / gpu_mtbf 1e-6 s x 1 d); "
	 "the limit is 1e10 (raise gpu_mtbf or lower sim.duration)"},
	/* periods of 1e-300 s: the autoscaler, loads */
	{"[sim]\nduration = 1d\n[inference a]\nautoscaler = hpa\nhpa_sync_period = 1e-300\n",
	 AIW_ELIMIT,
	 "hostile.ini:3: inference.a: about 8.6e304 autoscaler ticks (sim.duration 1 d / "
	 "hpa_sync_period 1e-300 s); the limit is 1e10 (raise hpa_sync_period or lower "
	 "sim.duration)"},
	{"[sim]\nduration = 1d\n[inference a]\nautoscaler = kpa\nkpa_tick = 1e-300\n", AIW_ELIMIT,
	 "hostile.ini:3: inference.a: about 8.6e304 autoscaler ticks (sim.duration 1 d / kpa_tick "
	 "1e-300 s); the limit is 1e10 (raise kpa_tick or lower sim.duration)"},
	{"[sim]\nduration = 1d\n[inference a]\nautoscaler = kpa\nmetric_interval = 1e-300\n",
	 AIW_ELIMIT,
	 "hostile.ini:3: inference.a: about 8.6e304 autoscaler ticks (sim.duration 1 d / "
	 "metric_interval 1e-300 s); the limit is 1e10 (raise metric_interval or lower "
	 "sim.duration)"},
	{"[sim]\nduration = 1d\n[load l]\nprofile = 0:1kW\nperiod = 1e-300\n", AIW_ELIMIT,
	 "hostile.ini:3: load.l: about 8.6e304 profile steps (1 timelines x 1 steps x 8.6e304 "
	 "periods of 1e-300 s); the limit is 1e10 (raise period or lower racks)"},
	{"[sim]\nduration = 1d\n[load l]\nprofile = 0:1kW, 0.5ms:2kW\nperiod = 1ms\n"
	 "racks = 1000000\nrack_offset = 1e-9\n",
	 AIW_ELIMIT,
	 "hostile.ini:3: load.l: about 1.7e14 profile steps (1e6 timelines x 2 steps x 8.6e7 "
	 "periods of 0.001 s); the limit is 1e10 (raise period or lower racks)"},
	{"[sim]\nduration = 1d\n[load l]\non_time = const(1e-300)\noff_time = const(1e-300)\n"
	 "on_power = 1kW\n",
	 AIW_ELIMIT,
	 "hostile.ini:3: load.l: about 8.6e304 on/off toggles (1 racks x 2 x 1 d / (E[on_time] + "
	 "E[off_time]) 2e-300 s); the limit is 1e10 (raise on_time and off_time, or lower racks)"},
	{"[sim]\nduration = 1d\n[load l]\nduty = 0.5\nslot = 1e-300\non_power = 1kW\n", AIW_ELIMIT,
	 "hostile.ini:3: load.l: about 8.6e304 rack draws (1 racks x 8.6e304 slots of 1e-300 s); "
	 "the limit is 1e10 (raise slot or lower racks)"},
	/* a looping trace sped up a billion times */
	{"[sim]\nduration = 1h\n[inference a]\ntraffic = trace\ntrace_file = @TRACE@\n"
	 "trace_loop = true\ntrace_time_scale = 1e9\n",
	 AIW_ELIMIT,
	 "hostile.ini:3: inference.a: about 2.9e12 requests (3 trace rows x 9.6e11 replays in 1 "
	 "h); the limit is 1e10 (lower trace_time_scale or sim.duration, or unset trace_loop)"},
	/* two fleets under the limit each, above it together */
	{"[sim]\nduration = 10d\nsample_interval = 1h\n[inference a]\nrate = 6000/s\n"
	 "[inference b]\nrate = 6000/s\n",
	 AIW_ELIMIT,
	 "the run: about 1e10 work items in all (requests, steps and other model events; the "
	 "largest: hostile.ini:4: inference.a: about 5.2e9 requests (rate 6000/s x 10 d)); the "
	 "limit is 1e10 (lower sim.duration or the rates)"},
	/* memory: 5e7 samples x 46 curves; 4e8 racks of one GPU */
	{"[sim]\nduration = 50s\nsample_interval = 1e-6\n[training t]\n[inference a]\n",
	 AIW_ELIMIT,
	 "the run: about 2.5e10 bytes of memory (the largest part: hostile.ini:1: the curves: "
	 "about 2.5e10 bytes (5e7 samples x 46 curves x 8 B, grown by doubling)); the limit is "
	 "4e9 bytes (raise sim.sample_interval, lower sim.duration or set sim.series_keep)"},
	{"[sim]\nduration = 1h\nsample_interval = 1h\n[site]\ngpus_per_rack = 1\n"
	 "[inference a]\nreplicas = 100000\n"
	 "gpus_per_replica = 4096\nrate = 0\n",
	 AIW_ELIMIT,
	 "the run: about 2.6e10 bytes of memory (the largest part: hostile.ini:6: inference.a: "
	 "about 2.3e10 bytes (100000 replica slots of 4096 GPUs, 4.1e8 racks of 1 GPUs)); the "
	 "limit is 4e9 bytes (lower replicas / max_replicas or gpus_per_replica, or raise "
	 "site.gpus_per_rack)"},
	/* 4.1e8 GPUs in racks of 32 sampled every minute for a day */
	{"[sim]\nduration = 1d\n[inference a]\nreplicas = 100000\ngpus_per_replica = 4096\n"
	 "rate = 0\n",
	 AIW_ELIMIT,
	 "hostile.ini:1: the recorder: about 1.9e10 rack and replica samples (1441 samples x "
	 "1.3e7 racks and replica slots); the limit is 1e10 (raise sim.sample_interval or "
	 "site.gpus_per_rack)"},
	/* the same with a ring of 5e7 points: the ring is what is too big */
	{"[sim]\nduration = 50s\nsample_interval = 1e-6\nseries_keep = 5e7\n[training t]\n"
	 "[inference a]\n",
	 AIW_ELIMIT,
	 "the run: about 1.9e10 bytes of memory (the largest part: hostile.ini:1: the curves: "
	 "about 1.9e10 bytes (the last 5e7 points, sim.series_keep, x 46 curves x 8 B)); the "
	 "limit is 4e9 bytes (lower sim.series_keep)"},
	/* 1e-6 s samples for a day: the recorder's own limit */
	{"[sim]\nduration = 1d\nsample_interval = 1e-6\n", AIW_ELIMIT,
	 "hostile.ini:1: sim.duration / sim.sample_interval = 8.64e+10 samples per curve; the "
	 "limit is 5e7 (raise sample_interval)"},
	/* the same values in a scenario: the file and line in front */
	{"[sim]\nduration = 1h\nsample_interval = 1e-12\n", AIW_ESCENARIO,
	 "hostile.ini:3: sim.sample_interval = 1e-12: 1e-12 is outside the range [1e-06, 3.2e+09] "
	 "s"},
	{"[sim]\nduration = 1h\n[inference a]\nrate = 1e12/s\n", AIW_ESCENARIO,
	 "hostile.ini:4: inference.a.rate = 1e12/s: 1e12/s is outside the range [0, 1e+09] 1/s"},
	{"[sim]\nduration = 1h\n[training t]\ngpus = 0\n", AIW_ESCENARIO,
	 "hostile.ini:4: training.t.gpus = 0: 0 is outside the range [1, 1e+07]"},
	{"[sim]\nduration = nan\n", AIW_ESCENARIO,
	 "hostile.ini:2: sim.duration = nan: 'nan' is not a duration such as 90d, 15min, 250ms or "
	 "seconds"},
};

/* Replace @TRACE@ in text with the path of a new 3-row trace (in *trace,
 * to unlink; "" when the text names none). */
static char *subst_trace(const char *ini, char trace[64])
{
	trace[0] = 0;
	const char *at = strstr(ini, "@TRACE@");
	size_t n = strlen(ini) + 64;
	char *s = malloc(n);
	ck_assert(s);
	if (!at) {
		snprintf(s, n, "%s", ini);
		return s;
	}
	snprintf(trace, 64, "/tmp/aiwi_hostile_trace3_XXXXXX");
	int fd = mkstemp(trace);
	ck_assert(fd >= 0);
	const char rows[] = "0,10,10\r\n1,20,5\r\n2.5,3,3\r\n";
	ck_assert(write(fd, rows, sizeof rows - 1) == (ssize_t)(sizeof rows - 1));
	close(fd);
	snprintf(s, n, "%.*s%s%s", (int)(at - ini), ini, trace, at + 7);
	return s;
}

START_TEST(run_refused)
{
	const run_case *k = &RUN_CASES[_i];
	aiw_sim *sim = new_sim();
	char trace[64];
	char *ini = subst_trace(k->ini, trace);
	aiw_status st = aiw_sim_load_string(sim, ini, "hostile.ini");
	if (st == AIW_OK)
		st = aiw_sim_run(sim);
	ck_assert_msg(st == k->st, "%s\n-> %s (%s), want %s", ini, aiw_status_name(st),
	              aiw_sim_errmsg(sim), aiw_status_name(k->st));
	ck_assert_msg_eq(sim, k->msg);
	/* refused up front: nothing ran, nothing is pending, the clock is at 0 */
	double now = -1;
	size_t pending = 99;
	aiw_sim_now(sim, &now);
	aiw_sim_pending(sim, &pending);
	ck_assert(now == 0);
	ck_assert_uint_eq(pending, 0);
	if (trace[0])
		unlink(trace);
	free(ini);
	aiw_sim_free(sim);
}
END_TEST

/* The event set's limit, estimated before the run: 17 loads of 1e6 racks
 * each with their own on/off timelines. */
START_TEST(pending_refused)
{
	aiw_sim *sim = new_sim();
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.duration", "1h"));
	for (int i = 0; i < 17; i++) {
		char n[64];
		snprintf(n, sizeof n, "load.l%d.", i);
		char k[96];
#define SETL(key, v)                                                  \
	snprintf(k, sizeof k, "%s%s", n, key);                        \
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, k, v))
		SETL("racks", "1000000");
		SETL("on_time", "exp(1d)");
		SETL("off_time", "exp(1d)");
		SETL("on_power", "1MW");
#undef SETL
	}
	ck_assert_int_eq(aiw_sim_run(sim), AIW_ELIMIT);
	ck_assert_msg_eq(sim, "the run: about 1.7e7 events pending at once (load racks, replica "
	                      "timers, repairs); the event set holds at most 16777215 (lower load "
	                      "racks or hot_spares)");
	aiw_sim_free(sim);
}
END_TEST

/* A valid century: 100 years at a low rate run and keep every request. */
START_TEST(hundred_years)
{
	aiw_sim *sim = new_sim();
	AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim,
	                                        "[sim]\nduration = 100y\nsample_interval = 10d\n"
	                                        "[inference a]\nrate = 1e-5/s\nreplicas = 1\n"
	                                        "[load l]\nprofile = 0:1kW, 12h:2kW\nperiod = 1d\n",
	                                        "century.ini"));
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	double t = aiwi_test_metric(sim, "sim.time_s");
	ck_assert(t == 100 * 31536000.0);
	double a = aiwi_test_metric(sim, "inference.a.requests_arrived");
	double c = aiwi_test_metric(sim, "inference.a.requests_completed");
	double d = aiwi_test_metric(sim, "inference.a.requests_dropped");
	double f = aiwi_test_metric(sim, "inference.a.requests_in_flight");
	ck_assert(a == c + d + f);
	/* Poisson count with mean 31536: within 6 sd (sd = 177.6) */
	ck_assert_msg(fabs(a - 31536) < 6 * sqrt(31536), "arrived %g", a);
	/* the load: 1.5 kW on average, exactly, over whole days */
	ck_assert_rel(aiwi_test_metric(sim, "load.l.energy_kwh"), 1.5 * 24 * 36500, 1e-9);
	aiw_sim_free(sim);
}
END_TEST

/* The estimate's curve count is an upper bound of the real one (limits.c
 * keeps a table of the curves each kind adds), and tight within the
 * autoscaler curves a fleet without autoscaler does not add. */
START_TEST(estimate_curves)
{
	aiw_sim *sim = new_sim();
	AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim,
	                                        "[sim]\nduration = 1h\nsample_interval = 10min\n"
	                                        "[training t]\ngpus = 64\n"
	                                        "[inference a]\nautoscaler = kpa\n"
	                                        "[inference b]\n"
	                                        "[load l]\nprofile = 0:1kW\n",
	                                        "curves.ini"));
	aiwi_limits_est e;
	ck_assert_int_eq(aiwi_limits_estimate(sim, &e), AIW_OK);
	ck_assert_str_eq(aiw_sim_errmsg(sim), "");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	size_t n;
	aiw_sim_series_count(sim, &n);
	/* 6 autoscaler curves, the site's 5 of prices, carbon and storage
	 * (counted whether set or not: an upper bound), 1 spare */
	ck_assert_msg(e.curves >= (double)n && e.curves <= (double)n + 6 + 5 + 1,
	              "estimated %g curves, the run has %zu", e.curves, n);
	ck_assert(e.samples == 7); /* 6 ticks + the allowance for a partial one */
	ck_assert(e.work > 0 && e.work < 1e7);
	ck_assert(e.memory_bytes > 0 && e.memory_bytes < 1e8);
	ck_assert(e.pending >= 4);
	ck_assert_int_eq(aiwi_limits_estimate(NULL, &e), AIW_EINVAL);
	ck_assert_int_eq(aiwi_limits_estimate(sim, NULL), AIW_EINVAL);
	aiw_sim_free(sim);
}
END_TEST

/* The expected requests are the integral of the arrival rate: checked
 * against the closed forms (poisson rate x D; diurnal: a weekday's mean
 * is `rate`, the weekly mean rate (5 + 2 w) / 7). */
START_TEST(estimate_requests_closed_form)
{
	const struct {
		const char *ini;
		double requests;
	} C[] = {
		{"[sim]\nduration = 1d\n[inference a]\nrate = 5/s\nreplicas = 1\n", 5 * 86400.0},
		{"[sim]\nduration = 7d\nsample_interval = 1h\n[inference a]\ntraffic = diurnal\n"
		 "rate = 5/s\nweekend_factor = 2\n",
		 5 * 86400.0 * (5 + 2 * 2)},
		{"[sim]\nduration = 2d\n[inference a]\ntraffic = diurnal\nrate = 3/s\n", 3 * 172800.0},
	};
	for (size_t i = 0; i < sizeof C / sizeof *C; i++) {
		aiw_sim *sim = new_sim();
		AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim, C[i].ini, "est.ini"));
		aiwi_limits_est e;
		ck_assert_int_eq(aiwi_limits_estimate(sim, &e), AIW_OK);
		/* the requests are the largest item; the work adds the sample ticks
		 * and the racks and replica slots each tick visits (1 + 1) */
		ck_assert_rel(e.work_max, C[i].requests, 1e-9);
		ck_assert_rel(e.work, C[i].requests + 3 * e.samples, 1e-9);
		aiw_sim_free(sim);
	}
}
END_TEST


/* The samples of empirical(FILE) distributions are in the up-front memory
 * estimate, 8 bytes each, for every parameter that holds them (eleven 5e7-
 * sample parameters took 4.3 GB unrefused when they were left out). */
START_TEST(estimate_empirical)
{
	char path[] = "/tmp/aiwi_hostile_empestXXXXXX";
	int fd = mkstemp(path);
	ck_assert(fd >= 0);
	FILE *f = fdopen(fd, "w");
	ck_assert(f != NULL);
	enum { N = 100000 };
	for (int i = 0; i < N; i++)
		fprintf(f, "%d\n", 1 + i % 2000);
	fclose(f);
	aiw_sim *sim = new_sim();
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "inference.a.rate", "1/s"));
	aiwi_limits_est e0, e1;
	ck_assert_int_eq(aiwi_limits_estimate(sim, &e0), AIW_OK);
	char spec[128];
	snprintf(spec, sizeof spec, "empirical(%s)", path);
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "inference.a.prompt_tokens", spec));
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "inference.a.output_tokens", spec));
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "inference.b.prompt_tokens", spec));
	ck_assert_int_eq(aiwi_limits_estimate(sim, &e1), AIW_OK);
	/* fleet b's own memory, plus three copies of the samples */
	aiw_sim *one = new_sim();
	aiwi_limits_est eb;
	AIW_OK_OR_FAIL(one, aiw_sim_set(one, "inference.a.rate", "1/s"));
	AIW_OK_OR_FAIL(one, aiw_sim_set(one, "inference.b.rate", "1/s"));
	ck_assert_int_eq(aiwi_limits_estimate(one, &eb), AIW_OK);
	ck_assert_msg(e1.memory_bytes - eb.memory_bytes == 3 * 8.0 * N,
	              "estimate %.17g bytes, without the samples %.17g", e1.memory_bytes,
	              eb.memory_bytes);
	ck_assert(e0.memory_bytes < eb.memory_bytes);
	aiw_sim_free(one);
	aiw_sim_free(sim);
	unlink(path);
}
END_TEST

/* Setting up and starting N components is linear in N: components and
 * metrics are found by name through hash tables (a linear search made
 * 4,000 fleets take 19 s, 2,000 3.7 s, 1,000 0.8 s).  Checked by what does
 * not depend on the machine: the entries a lookup compares stay near one
 * however many components there are (a linear search compares N / 2 on
 * average).  The CPU times of n and 8 n fleets are printed, not asserted. */
static aiw_sim *fleets(int n, double *cpu_s)
{
	aiw_sim *sim = new_sim();
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.duration", "1min"));
	clock_t c0 = clock();
	char k[64];
	for (int i = 0; i < n; i++) {
		static const char *const keys[][2] = {{"rate", "0.01/s"}, {"replicas", "1"},
		                                      {"prompt_tokens", "100"}, {"output_tokens", "10"}};
		for (size_t j = 0; j < 4; j++) {
			snprintf(k, sizeof k, "inference.f%d.%s", i, keys[j][0]);
			AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, k, keys[j][1]));
		}
	}
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim)); /* starts and finishes every component */
	*cpu_s = (double)(clock() - c0) / CLOCKS_PER_SEC;
	return sim;
}

/* Mean entries compared to find each fleet and one metric of each. */
static void mean_probes(aiw_sim *sim, int n, double *comp, double *metric)
{
	double pc = 0, pm = 0;
	char name[32], m[64];
	for (int i = 0; i < n; i++) {
		snprintf(name, sizeof name, "f%d", i);
		snprintf(m, sizeof m, "inference.f%d.requests_arrived", i);
		size_t a = aiwi_sim_lookup_probes(sim, "inference", name, NULL);
		size_t b = aiwi_sim_lookup_probes(sim, NULL, NULL, m);
		ck_assert_msg(a >= 1 && b >= 1, "f%d or its metric not found", i);
		pc += (double)a;
		pm += (double)b;
	}
	*comp = pc / n;
	*metric = pm / n;
}

START_TEST(setup_linear)
{
	int n = slowed() ? 100 : 250; /* (fewer under valgrind and the sanitizers) */
	double t1, t8, c1, m1, c8, m8;
	aiw_sim *small = fleets(n, &t1), *big = fleets(8 * n, &t8);
	mean_probes(small, n, &c1, &m1);
	mean_probes(big, 8 * n, &c8, &m8);
	/* open addressing at a load of at most 1/2: about 1.5 compared on
	 * average for a hit (Knuth, TAOCP 6.4: (1 + 1/(1 - a)) / 2 at load a) */
	ck_assert_msg(c1 < 2 && c8 < 2, "components: %.2f and %.2f compared per lookup", c1, c8);
	ck_assert_msg(m1 < 2 && m8 < 2, "metrics: %.2f and %.2f compared per lookup", m1, m8);
	fprintf(stderr, "setup_linear: %d fleets %.3f s CPU, %d fleets %.3f s (x%.1f)\n", n, t1,
	        8 * n, t8, t1 > 0 ? t8 / t1 : NAN);
	aiw_sim_free(small);
	aiw_sim_free(big);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("hostile_limits");
	TCase *tc = tcase_create("limits");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, run_refused, 0, (int)(sizeof RUN_CASES / sizeof *RUN_CASES));
	tcase_add_test(tc, pending_refused);
	tcase_add_test(tc, hundred_years);
	tcase_add_test(tc, estimate_curves);
	tcase_add_test(tc, estimate_requests_closed_form);
	tcase_add_test(tc, setup_linear);
	tcase_add_test(tc, estimate_empirical);
	suite_add_tcase(s, tc);
	return s;
}

AIW_TEST_MAIN(make_suite)
