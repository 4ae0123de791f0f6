/* test_hostile.c - hostile values through the public API, each with the
 * message a user sees (aiw_sim_set, aiw_sim_load_string, aiw_sim_load_file,
 * aiw_sim_run); the up-front work and memory limits (lib/core/limits.c);
 * hostile trace and scenario files; numerical edge cases (order-statistic
 * sampler at n = 2 .. 1e15, thinning at rates near zero, 1e7 pending
 * events, times near 1e9 s). */
#include "core/internal.h"
#include "core/limits.h"
#include "../testutil.h"
#include "inference/traffic.h"

#include <fcntl.h>
#include <gsl/gsl_rng.h>
#include <string.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif

/* Under valgrind (~50x slower) the 1e7-event heap shrinks to 1e5, under
 * the sanitizers (AIW_SANITIZED=1, ~10x) to 1e6: there the point is memory
 * checking; the full size runs in the plain build. */
static bool under_valgrind(void)
{
#ifdef RUNNING_ON_VALGRIND
	if (RUNNING_ON_VALGRIND)
		return true;
#endif
	const char *p = getenv("LD_PRELOAD");
	return p && strstr(p, "vgpreload") != NULL;
}

static aiw_sim *new_sim(void)
{
	aiw_sim *sim = NULL;
	ck_assert_int_eq(aiw_sim_create(&sim, 1), AIW_OK);
	return sim;
}

#define ck_assert_msg_eq(sim, want)                                                     \
	ck_assert_msg(strcmp(aiw_sim_errmsg(sim), (want)) == 0, "message\n  got:  %s\n  want: %s", \
	              aiw_sim_errmsg(sim), (want))

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
	{"sim.seed", "-1", AIW_ERANGE, "sim.seed = -1: -1 is outside the range [0, 1.8446744073709552e+19]"},
	{"training.t.mfu", "0", AIW_ERANGE, "training.t.mfu = 0: 0 is outside the range (0, 1]"},
	{"training.t.gpu_mtbf", "0", AIW_ERANGE,
	 "training.t.gpu_mtbf = 0: 0 is outside the range (0, 1e+15] s"},
	{"inference.a.rate", "-5/s", AIW_ERANGE,
	 "inference.a.rate = -5/s: -5/s is outside the range [0, 1e+09] 1/s"},
	{"inference.a.max_batch", "0", AIW_ERANGE,
	 "inference.a.max_batch = 0: 0 is outside the range [1, 4096]"},
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
	 "step_compute = 1e-9\n",
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
	/* memory: 5e7 samples x 32 curves; 4e8 racks of one GPU */
	{"[sim]\nduration = 50s\nsample_interval = 1e-6\n[training t]\n[inference a]\n",
	 AIW_ELIMIT,
	 "the run: about 1.8e10 bytes of memory (the largest part: hostile.ini:1: the curves: "
	 "about 1.8e10 bytes (5e7 samples x 32 curves x 8 B, grown by doubling)); the limit is "
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
	 "the run: about 1.3e10 bytes of memory (the largest part: hostile.ini:1: the curves: "
	 "about 1.3e10 bytes (the last 5e7 points, sim.series_keep, x 32 curves x 8 B)); the "
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
	ck_assert_msg(e.curves >= (double)n && e.curves <= (double)n + 6 + 1,
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

/* ======================================================================== */
/* hostile trace files                                                       */
/* ======================================================================== */
static void write_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_msg(fd >= 0, "cannot create %s", path);
	ck_assert(write(fd, data, len) == (ssize_t)len);
	close(fd);
}

/* Bytes this process has read so far (/proc/self/io rchar), or -1. */
static double bytes_read(void)
{
	FILE *f = fopen("/proc/self/io", "r");
	if (!f)
		return -1;
	char line[128];
	double v = -1;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "rchar: %lf", &v) == 1)
			break;
	fclose(f);
	return v;
}

/* Run a one-hour fleet on trace `path`; the status, message in *sim. */
static aiw_status run_trace(aiw_sim **out, const char *path, bool loop)
{
	aiw_sim *sim = new_sim();
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.duration", "1h"));
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.sample_interval", "10min"));
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "inference.a.traffic", "trace"));
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "inference.a.trace_file", path));
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "inference.a.trace_loop", loop ? "true" : "false"));
	*out = sim;
	return aiw_sim_run(sim);
}

typedef struct trace_case {
	const char *data;
	size_t len;
	aiw_status st;
	const char *msg; /* after "PATH:" */
} trace_case;

#define TC(s, st, msg) {s, sizeof s - 1, st, msg}
static const trace_case TRACE_CASES[] = {
	TC("", AIW_EPARSE, " no data rows"),
	TC("TIMESTAMP,ContextTokens,GeneratedTokens\n", AIW_EPARSE, " no data rows"),
	TC("# only a comment\n\n\n", AIW_EPARSE, " no data rows"),
	/* malformed timestamps */
	TC("2023-11-16 18:17:03.9799600,10,10\n2023-13-16 18:17:04,1,1\n", AIW_EPARSE,
	   "2: timestamp '2023-13-16 18:17:04' is neither 'YYYY-MM-DD HH:MM:SS[.fraction]' nor a "
	   "number of seconds"),
	TC("2023-02-30 00:00:00,10,10\n", AIW_EPARSE,
	   "1: timestamp '2023-02-30 00:00:00' is neither 'YYYY-MM-DD HH:MM:SS[.fraction]' nor a "
	   "number of seconds"),
	TC("0,10,10\n12:00,1,1\n", AIW_EPARSE,
	   "2: timestamp '12:00' is neither 'YYYY-MM-DD HH:MM:SS[.fraction]' nor a number of "
	   "seconds"),
	TC("0,10,10\nnan,1,1\n", AIW_EPARSE,
	   "2: timestamp 'nan' is neither 'YYYY-MM-DD HH:MM:SS[.fraction]' nor a number of "
	   "seconds"),
	TC("0,10,10\n5,1,1\n3,1,1\n", AIW_EPARSE,
	   "3: timestamp '3' is earlier than the previous row's (line 2): rows must be in time "
	   "order (equal times are allowed)"),
	TC("0,10,10\n2023-11-16 18:17:04,1,1\n", AIW_EPARSE,
	   "2: timestamp '2023-11-16 18:17:04' is a date and time but the first row's is a number "
	   "of seconds"),
	TC("0,10\n", AIW_EPARSE,
	   "1: expected 3 fields (timestamp,prompt tokens,output tokens) or the timestamp alone, "
	   "found 2"),
	TC("0,10,10\n1,-5,3\n", AIW_EPARSE, "2: ContextTokens (prompt tokens) '-5' is not a number >= 0"),
	/* NUL bytes, in the first line and later */
	TC("0,1\0,1\n", AIW_EPARSE, "1: NUL byte in the line: not a text CSV file"),
	TC("0,10,10\n1,2\0,3\n", AIW_EPARSE, "2: NUL byte in the line: not a text CSV file"),
};

START_TEST(trace_hostile)
{
	const trace_case *k = &TRACE_CASES[_i];
	char path[] = "/tmp/aiwi_hostile_traceXXXXXX";
	int fd = mkstemp(path);
	ck_assert(fd >= 0);
	close(fd);
	write_file(path, k->data, k->len);
	aiw_sim *sim;
	aiw_status st = run_trace(&sim, path, false);
	char want[1024];
	snprintf(want, sizeof want, "%s:%s", path, k->msg);
	ck_assert_msg(st == k->st, "case %d: %s (%s)", _i, aiw_status_name(st), aiw_sim_errmsg(sim));
	ck_assert_msg_eq(sim, want);
	aiw_sim_free(sim);
	unlink(path);
}
END_TEST

/* CRLF line ends and a header: read as LF; 3 rows arrive at 0, 1, 2.5 s. */
START_TEST(trace_crlf)
{
	char path[] = "/tmp/aiwi_hostile_crlfXXXXXX";
	int fd = mkstemp(path);
	ck_assert(fd >= 0);
	close(fd);
	const char rows[] = "TIMESTAMP,ContextTokens,GeneratedTokens\r\n0,10,10\r\n\r\n1,20,5\r\n"
	                    "2.5,3,3\r\n";
	write_file(path, rows, sizeof rows - 1);
	aiw_sim *sim;
	AIW_OK_OR_FAIL(sim, run_trace(&sim, path, false));
	ck_assert(aiwi_test_metric(sim, "inference.a.requests_arrived") == 3);
	ck_assert(aiwi_test_metric(sim, "inference.a.requests_completed") == 3);
	aiw_sim_free(sim);
	unlink(path);
}
END_TEST

/* Very long lines: 4096 bytes is the longest line; one more is refused. */
START_TEST(trace_long_lines)
{
	char path[] = "/tmp/aiwi_hostile_longXXXXXX";
	int fd = mkstemp(path);
	ck_assert(fd >= 0);
	close(fd);
	size_t n = 8 + AIW_TRACE_MAX_LINE + 2;
	char *buf = malloc(n + 1);
	/* "0,10,10\n" then "1,1,   ...   1": blanks around a field are trimmed;
	 * 4096 bytes */
	memcpy(buf, "0,10,10\n", 8);
	size_t len = AIW_TRACE_MAX_LINE;
	memcpy(buf + 8, "1,1,", 4);
	memset(buf + 12, ' ', len - 5);
	buf[8 + len - 1] = '1';
	buf[8 + len] = '\n';
	write_file(path, buf, 8 + len + 1);
	aiw_sim *sim;
	AIW_OK_OR_FAIL(sim, run_trace(&sim, path, false));
	ck_assert(aiwi_test_metric(sim, "inference.a.requests_arrived") == 2);
	aiw_sim_free(sim);
	/* one byte more */
	memmove(buf + 13, buf + 12, len - 4 + 1);
	buf[12] = ' ';
	write_file(path, buf, 8 + len + 2);
	aiw_status st = run_trace(&sim, path, false);
	ck_assert_int_eq(st, AIW_EPARSE);
	char want[512];
	snprintf(want, sizeof want, "%s:2: line longer than %d bytes", path, AIW_TRACE_MAX_LINE);
	ck_assert_msg_eq(sim, want);
	aiw_sim_free(sim);
	/* a megabyte on one line is refused after reading a little of it */
	size_t big = 1 << 20;
	char *line = malloc(big);
	memset(line, '7', big);
	line[big - 1] = '\n';
	write_file(path, line, big);
	double r0 = bytes_read();
	st = run_trace(&sim, path, false);
	double r1 = bytes_read();
	ck_assert_int_eq(st, AIW_EPARSE);
	snprintf(want, sizeof want, "%s:1: line longer than %d bytes", path, AIW_TRACE_MAX_LINE);
	ck_assert_msg_eq(sim, want);
	if (r0 >= 0)
		ck_assert_msg(r1 - r0 < 256 * 1024, "read %g bytes to refuse a 1 MB line", r1 - r0);
	aiw_sim_free(sim);
	free(line);
	free(buf);
	unlink(path);
}
END_TEST

/* 1 GB files: a sparse file of NULs, and one valid row before a hole.  The
 * reader streams, and these are refused after reading a few kilobytes
 * (not the gigabyte: /proc/self/io counts the bytes read). */
START_TEST(trace_one_gigabyte)
{
	char path[] = "/tmp/aiwi_hostile_1gbXXXXXX";
	int fd = mkstemp(path);
	ck_assert(fd >= 0);
	ck_assert(ftruncate(fd, (off_t)1 << 30) == 0);
	close(fd);
	aiw_sim *sim;
	double r0 = bytes_read();
	aiw_status st = run_trace(&sim, path, false);
	double r1 = bytes_read();
	ck_assert_int_eq(st, AIW_EPARSE);
	char want[512];
	snprintf(want, sizeof want, "%s:1: NUL byte in the line: not a text CSV file", path);
	ck_assert_msg_eq(sim, want);
	if (r0 >= 0)
		ck_assert_msg(r1 - r0 < (1 << 20), "read %g bytes to refuse a sparse 1 GB file",
		              r1 - r0);
	aiw_sim_free(sim);
	/* a valid first row, then the hole; looping or not */
	fd = open(path, O_WRONLY | O_TRUNC);
	ck_assert(fd >= 0);
	ck_assert(write(fd, "0,10,10\n", 8) == 8);
	ck_assert(ftruncate(fd, (off_t)1 << 30) == 0);
	close(fd);
	for (int loop = 0; loop < 2; loop++) {
		r0 = bytes_read();
		st = run_trace(&sim, path, loop);
		r1 = bytes_read();
		ck_assert_int_eq(st, AIW_EPARSE);
		snprintf(want, sizeof want, "%s:2: NUL byte in the line: not a text CSV file", path);
		ck_assert_msg_eq(sim, want);
		if (r0 >= 0)
			ck_assert_msg(r1 - r0 < (1 << 20), "read %g bytes", r1 - r0);
		aiw_sim_free(sim);
	}
	unlink(path);
}
END_TEST

/* Timestamps 6 and 1.1e308 s (or -1e308 and 1e308) once made the trace's
 * period infinite and traffic.c converted inf and NaN to size_t (undefined
 * behaviour found by fuzz_trace, caught by clang's -fsanitize=undefined or
 * gcc's -fsanitize=float-cast-overflow; tests/fuzz/regressions/trace/).
 * The reader now refuses rows more than 1e15 s after the first. */
START_TEST(trace_huge_timestamps)
{
	const char *texts[] = {"TI\n\n\n6\n11E307\n", "-1e308,1,1\n1e308,1,1\n"};
	for (size_t i = 0; i < 2; i++) {
		char path[] = "/tmp/aiwi_hostile_hugetsXXXXXX";
		int fd = mkstemp(path);
		ck_assert(fd >= 0);
		close(fd);
		write_file(path, texts[i], strlen(texts[i]));
		for (int loop = 0; loop < 2; loop++) {
			aiw_sim *sim;
			aiw_status st = run_trace(&sim, path, loop);
			/* refused up front, naming the bound */
			ck_assert_int_ne(st, AIW_OK);
			ck_assert_msg(strstr(aiw_sim_errmsg(sim), "more than 1e15 s after the first row"),
			              "%s", aiw_sim_errmsg(sim));
			aiw_sim_free(sim);
		}
		unlink(path);
	}
}
END_TEST

/* ======================================================================== */
/* hostile scenario files                                                    */
/* ======================================================================== */
static aiw_status load_bytes(aiw_sim **out, const char *data, size_t len, char *path,
                             size_t pathlen)
{
	snprintf(path, pathlen, "/tmp/aiwi_hostile_scnXXXXXX");
	int fd = mkstemp(path);
	ck_assert(fd >= 0);
	close(fd);
	write_file(path, data, len);
	aiw_sim *sim = new_sim();
	*out = sim;
	return aiw_sim_load_file(sim, path);
}

START_TEST(scenario_files)
{
	char path[64], want[512];
	aiw_sim *sim;
	/* NUL bytes */
	const char nul[] = "[sim]\nduration = 1h\0\nsample_interval = 10min\n";
	ck_assert_int_eq(load_bytes(&sim, nul, sizeof nul - 1, path, sizeof path), AIW_ESCENARIO);
	snprintf(want, sizeof want, "%s:2: NUL byte in scenario text", path);
	ck_assert_msg_eq(sim, want);
	aiw_sim_free(sim);
	unlink(path);
	/* CRLF line ends: read like LF */
	const char crlf[] = "[sim]\r\nduration = 2h\r\nsample_interval = 10min\r\n[site]\r\n"
	                    "pue = 1.25\r\n";
	AIW_OK_OR_FAIL(sim, load_bytes(&sim, crlf, sizeof crlf - 1, path, sizeof path));
	double v;
	AIW_OK_OR_FAIL(sim, aiw_sim_get_double(sim, "sim.duration", &v));
	ck_assert(v == 7200);
	AIW_OK_OR_FAIL(sim, aiw_sim_get_double(sim, "site.pue", &v));
	ck_assert(v == 1.25);
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	aiw_sim_free(sim);
	unlink(path);
	/* very long lines; all-or-nothing: the line before does not apply */
	char longl[400];
	int n = snprintf(longl, sizeof longl, "[sim]\nsample_interval = 10min\nduration = 1");
	memset(longl + n, '0', 300);
	longl[n + 300] = '\n';
	ck_assert_int_eq(load_bytes(&sim, longl, (size_t)n + 301, path, sizeof path), AIW_ESCENARIO);
	snprintf(want, sizeof want, "%s:3: line longer than 198 characters", path);
	ck_assert_msg_eq(sim, want);
	AIW_OK_OR_FAIL(sim, aiw_sim_get_double(sim, "sim.sample_interval", &v));
	ck_assert(v == 60);
	aiw_sim_free(sim);
	unlink(path);
	/* an empty file is an empty scenario */
	AIW_OK_OR_FAIL(sim, load_bytes(&sim, "", 0, path, sizeof path));
	aiw_sim_free(sim);
	unlink(path);
	/* 1 GB, sparse: refused by its size, without reading it */
	snprintf(path, sizeof path, "/tmp/aiwi_hostile_bigXXXXXX");
	int fd = mkstemp(path);
	ck_assert(fd >= 0);
	ck_assert(ftruncate(fd, (off_t)1 << 30) == 0);
	close(fd);
	sim = new_sim();
	ck_assert_int_eq(aiw_sim_load_file(sim, path), AIW_ELIMIT);
	snprintf(want, sizeof want, "%s: 1073741824 bytes, larger than the limit of 67108864 bytes", path);
	ck_assert_msg_eq(sim, want);
	aiw_sim_free(sim);
	unlink(path);
	/* a directory, a missing file */
	sim = new_sim();
	ck_assert_int_eq(aiw_sim_load_file(sim, "/"), AIW_EIO);
	ck_assert_int_eq(aiw_sim_load_file(sim, "/nonexistent/aiw.ini"), AIW_EIO);
	ck_assert_msg_eq(sim, "/nonexistent/aiw.ini: No such file or directory");
	ck_assert_int_eq(aiw_sim_load_file(sim, NULL), AIW_EINVAL);
	ck_assert_int_eq(aiw_sim_load_string(sim, NULL, NULL), AIW_EINVAL);
	aiw_sim_free(sim);
}
END_TEST

/* ======================================================================== */
/* numerical edge cases                                                      */
/* ======================================================================== */
/* The order-statistic sampler at n = 2, 1e7 and 1e15 (normal and lognormal
 * jitter): finite, at the exact median of the maximum, and monotone in n
 * in distribution.  The median of max of n is F^-1(2^(-1/n)), i.e. the
 * upper-tail quantile at q = 1 - 2^(-1/n) = -expm1(-log(2)/n).  Of K
 * draws, the count below the true median is Binomial(K, 1/2): within
 * 5 sd = 5 sqrt(K)/2 of K/2 except with probability 6e-7. */
START_TEST(sample_max_extreme_n)
{
	const char *specs[] = {"normal(0,1)", "lognormal(0,0.5)", "exp(1)"};
	const double ns[] = {2, 1e7, 1e15};
	enum { K = 20000 };
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, 12345);
	for (size_t s = 0; s < 3; s++) {
		aiwi_dist *d;
		char e[256];
		ck_assert(aiwi_dist_parse(specs[s], AIW_PT_REAL, "", &d, e, sizeof e) == AIW_OK);
		double med[3];
		static double x[3][K];
		for (size_t j = 0; j < 3; j++) {
			med[j] = aiwi_dist_quantile_upper(d, -expm1(-log(2.0) / ns[j]));
			ck_assert(isfinite(med[j]));
			size_t below = 0;
			for (size_t i = 0; i < K; i++) {
				x[j][i] = aiwi_dist_sample_max(d, r, ns[j]);
				ck_assert_msg(isfinite(x[j][i]), "%s n=%g: %g", specs[s], ns[j], x[j][i]);
				below += x[j][i] <= med[j];
			}
			ck_assert_msg(fabs((double)below - K / 2.0) <= 5 * sqrt((double)K) / 2,
			              "%s n=%g: %zu of %d below the median %g", specs[s], ns[j], below,
			              K, med[j]);
		}
		/* monotone: the medians increase, and P(max of n' <= median of n)
		 * = 2^(-n'/n): 2^(-5e6) and 2^(-1e8) are zero, so no draw of the
		 * larger n falls below the smaller n's median */
		ck_assert(med[0] < med[1] && med[1] < med[2]);
		for (size_t i = 0; i < K; i++) {
			ck_assert(x[1][i] > med[0]);
			ck_assert(x[2][i] > med[1]);
		}
		aiwi_dist_free(d);
	}
	gsl_rng_free(r);
}
END_TEST

/* Rates near zero in thinning: a fleet at 1e-9/s and 1e-300/s for a day,
 * for every arrival process: the run ends and (P(N >= 1) = 8.6e-5 at
 * 1e-9/s) nothing arrives with this seed. */
START_TEST(rates_near_zero)
{
	const char *kinds[] = {"poisson", "diurnal", "bursty"};
	const char *rates[] = {"1e-9/s", "1e-300/s"};
	for (size_t k = 0; k < 3; k++)
		for (size_t j = 0; j < 2; j++)
			for (int mod = 0; mod < 2; mod++) {
				aiw_sim *sim = new_sim();
				AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "inference.a.traffic", kinds[k]));
				AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "inference.a.rate", rates[j]));
				AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "inference.a.peak_to_trough", "1e6"));
				AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "inference.a.modulate",
				                                mod ? "true" : "false"));
				AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
				ck_assert(aiwi_test_metric(sim, "inference.a.requests_arrived") == 0);
				aiw_sim_free(sim);
			}
	/* the processes themselves: the next arrival lies far ahead, or never */
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	for (size_t k = 0; k < 3; k++) {
		aiwi_traffic_conf conf;
		aiwi_traffic_conf_default(&conf);
		conf.kind = (aiwi_traffic_kind)k;
		conf.rate = 1e-300;
		conf.peak_to_trough = 1e6;
		conf.modulate = true;
		aiwi_traffic *tr;
		char e[256];
		ck_assert_int_eq(aiwi_traffic_new(&tr, &conf, e, sizeof e), AIW_OK);
		double t = aiwi_traffic_next(tr, r, 0, NULL, NULL);
		ck_assert_msg(!isnan(t) && t > 1e200, "kind %zu: next arrival at %g", k, t);
		aiwi_traffic_free(tr);
	}
	gsl_rng_free(r);
}
END_TEST

/* 1e7 pending events through aiw_sim_schedule: random times with ties,
 * popped in (time, schedule order).  Memory ~ 1e7 x (48 B slot + 16 B of
 * bucket heads + 16 B bottom entry) = 800 MB at most (slots are touched
 * only up to the peak, not the capacity; 790 MB peak RSS measured). */
typedef struct order_log {
	double last_t;
	uintptr_t last_i;
	size_t n, bad;
} order_log;
static order_log OL;

static void ordered(aiw_sim *sim, double t, void *payload)
{
	(void)sim;
	uintptr_t i = (uintptr_t)payload;
	if (t < OL.last_t || (t == OL.last_t && i < OL.last_i))
		OL.bad++;
	OL.last_t = t;
	OL.last_i = i;
	OL.n++;
}

START_TEST(ten_million_pending)
{
	const char *san = getenv("AIW_SANITIZED");
	size_t N = under_valgrind() ? 100000 : san && *san == '1' ? 1000000 : 10000000;
	aiw_sim *sim = new_sim();
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.duration", "1e9"));
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.sample_interval", "1e8"));
	uint64_t x = 88172645463325252ull; /* xorshift64: times in [0, 1e9) with ties */
	for (size_t i = 0; i < N; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		double t = (double)(x % 1000000) * 1000.0;
		aiw_status st = aiw_sim_schedule(sim, t, ordered, (void *)(uintptr_t)i, NULL);
		ck_assert_msg(st == AIW_OK, "event %zu: %s", i, aiw_sim_errmsg(sim));
	}
	size_t p = 0;
	aiw_sim_pending(sim, &p);
	ck_assert_uint_eq(p, N);
	OL = (order_log){-1, 0, 0, 0};
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert_uint_eq(OL.n, N);
	ck_assert_uint_eq(OL.bad, 0);
	aiw_sim_free(sim);
}
END_TEST

/* Times near 1e9 s and near the 3.2e9 s maximum duration: 1000
 * neighbouring doubles (one ulp apart: 1.2e-7 s at 1e9, 4.8e-7 s at 3.2e9),
 * each scheduled twice, all in a shuffled order: they run in time order,
 * every time twice, the two in the order they were scheduled. */
typedef struct tev {
	double t;
	uint32_t id;
} tev;
static tev TL[4096];
static size_t TLN;

static void tlog(aiw_sim *sim, double t, void *payload)
{
	(void)sim;
	if (TLN < 4096)
		TL[TLN++] = (tev){t, (uint32_t)(uintptr_t)payload};
}

START_TEST(times_near_1e9)
{
	const double bases[] = {1e9, 3.2e9 - 2000 * 4.76837158203125e-07};
	enum { M = 1000 };
	for (size_t b = 0; b < 2; b++) {
		aiw_sim *sim = new_sim();
		AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.duration", "3.2e9"));
		AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.sample_interval", "1e8"));
		double t[M];
		t[0] = bases[b];
		for (int i = 1; i < M; i++)
			t[i] = nextafter(t[i - 1], INFINITY);
		ck_assert(t[M - 1] > t[0] && t[M - 1] <= 3.2e9);
		/* ids 0 .. 2M-1: id k is time k % M; id k < M is scheduled first */
		uint32_t order[2 * M];
		for (uint32_t k = 0; k < 2 * M; k++)
			order[k] = k;
		uint64_t x = 7 + b; /* xorshift64 shuffle, then the first copies first */
		for (int i = M - 1; i > 0; i--) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			int j = (int)(x % (uint64_t)(i + 1));
			uint32_t s = order[i];
			order[i] = order[j];
			order[j] = s;
		}
		for (int i = 0; i < M; i++)
			order[M + i] = order[i] + M;
		for (int k = 0; k < 2 * M; k++)
			AIW_OK_OR_FAIL(sim, aiw_sim_schedule(sim, t[order[k] % M], tlog,
			                                     (void *)(uintptr_t)order[k], NULL));
		TLN = 0;
		AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
		ck_assert_uint_eq(TLN, 2 * M);
		for (size_t k = 0; k < TLN; k++) {
			/* the k-th event is time k / 2; the first of a pair is the
			 * one scheduled first */
			ck_assert_msg(TL[k].t == t[k / 2], "event %zu at %.17g, want %.17g", k, TL[k].t,
			              t[k / 2]);
			ck_assert_uint_eq(TL[k].id, (uint32_t)(k / 2 + (k % 2) * M));
		}
		aiw_sim_free(sim);
	}
}
END_TEST

/* ======================================================================== */
/* refused without reading: findings of the first hardening pass             */
/* ======================================================================== */
/* A trace whose first 128 KiB are valid rows and then holds a gigabyte
 * hole (NUL bytes): the reader stops at the first NUL byte, past limits.c's
 * 64 KiB pre-check, instead of reading the gigabyte to the line's end. */
START_TEST(trace_hole_after_64k)
{
	char path[] = "/tmp/aiwi_hostile_hole64kXXXXXX";
	int fd = mkstemp(path);
	ck_assert(fd >= 0);
	char row[32];
	size_t rows = 0;
	for (off_t off = 0; off < 128 * 1024; rows++) {
		int n = snprintf(row, sizeof row, "%zu,10,10\n", rows);
		ck_assert(write(fd, row, (size_t)n) == n);
		off += n;
	}
	ck_assert(ftruncate(fd, (off_t)1 << 30) == 0);
	close(fd);
	aiw_sim *sim;
	double r0 = bytes_read();
	aiw_status st = run_trace(&sim, path, false);
	double r1 = bytes_read();
	ck_assert_int_eq(st, AIW_EPARSE);
	if (r0 >= 0)
		ck_assert_msg(r1 - r0 < 16 << 20, "read %g bytes to refuse a hole at 128 KiB", r1 - r0);
	aiw_sim_free(sim);
	unlink(path);
}
END_TEST

/* A 1 GB scenario file is refused from its size: less than 1 MiB read. */
START_TEST(scenario_size_unread)
{
	char path[] = "/tmp/aiwi_hostile_bigscnXXXXXX";
	int fd = mkstemp(path);
	ck_assert(fd >= 0);
	ck_assert(ftruncate(fd, (off_t)1 << 30) == 0);
	close(fd);
	aiw_sim *sim = new_sim();
	double r0 = bytes_read();
	ck_assert_int_eq(aiw_sim_load_file(sim, path), AIW_ELIMIT);
	double r1 = bytes_read();
	if (r0 >= 0)
		ck_assert_msg(r1 - r0 < (1 << 20), "read %g bytes to refuse a 1 GB scenario",
		              r1 - r0);
	aiw_sim_free(sim);
	unlink(path);
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

static Suite *make_suite(void)
{
	Suite *s = suite_create("hostile");
	TCase *tc = tcase_create("values");
	tcase_add_loop_test(tc, set_hostile, 0, (int)(sizeof SET_CASES / sizeof *SET_CASES));
	tcase_add_test(tc, set_double_non_finite);
	suite_add_tcase(s, tc);

	tc = tcase_create("limits");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, run_refused, 0, (int)(sizeof RUN_CASES / sizeof *RUN_CASES));
	tcase_add_test(tc, pending_refused);
	tcase_add_test(tc, hundred_years);
	tcase_add_test(tc, estimate_curves);
	tcase_add_test(tc, estimate_requests_closed_form);
	suite_add_tcase(s, tc);

	tc = tcase_create("files");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, trace_hostile, 0, (int)(sizeof TRACE_CASES / sizeof *TRACE_CASES));
	tcase_add_test(tc, trace_crlf);
	tcase_add_test(tc, trace_long_lines);
	tcase_add_test(tc, trace_one_gigabyte);
	tcase_add_test(tc, trace_huge_timestamps);
	tcase_add_test(tc, scenario_files);
	suite_add_tcase(s, tc);

	tc = tcase_create("numerics");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, sample_max_extreme_n);
	tcase_add_test(tc, rates_near_zero);
	tcase_add_test(tc, ten_million_pending);
	tcase_add_test(tc, times_near_1e9);
	suite_add_tcase(s, tc);

	tc = tcase_create("unread");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, trace_hole_after_64k);
	tcase_add_test(tc, range_message_rounding);
	tcase_add_test(tc, scenario_size_unread);
	suite_add_tcase(s, tc);
	return s;
}

AIW_TEST_MAIN(make_suite)
