/* test_longrun.c - long runs keep flat memory and conserve requests and
 * energy.  A mixed site (training with failures and checkpoints, a diurnal
 * inference fleet under the HPA with spot replicas, an on/off load) runs
 * for 1 day and for 30 days, each in a child process whose peak RSS the
 * parent reads with wait4(); the 30-day peak, less the recorder's curves
 * (capacity x (curves + 1) x 8 B), stays within 10% of the 1-day one: no
 * memory grows with the simulated time or the number of events.  At the
 * end of each run:
 *   arrived = completed + dropped + in flight           (exactly)
 *   sum of curve points x interval = energy metric      (1e-9 relative)
 * for the site and every component.
 *
 * Measured on the 2-core development machine (gcc -O2): 1 d in 0.02 s
 * (4.4e4 requests, 3.9e3 steps), 30 d in 1.2 s (1.3e6 requests, 1.2e5
 * training steps); peak RSS 3.9 MB for both, of which the curves' arrays
 * are 288 kB (the figures are printed).
 * Under ASan (its quarantine keeps freed blocks) and valgrind the RSS
 * comparison is skipped; conservation is still checked, and valgrind runs
 * 1 d and 2 d. */
#define _DEFAULT_SOURCE 1 /* wait4 */
#include "../testutil.h"

#include <stdbool.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define under_valgrind aiwi_test_under_valgrind
#define sanitized aiwi_test_slowed

static const char MIXED[] = "[sim]\n"
                            "sample_interval = 6h\n"
                            "[site]\n"
                            "pue = 1.2\n"
                            "[training t]\n"
                            "gpus = 256\n"
                            "jitter = lognormal(0,0.03)\n"
                            "slow_gpus = 1\n"
                            "gpu_mtbf = 20000h\n"
                            "hot_spares = 8\n"
                            "checkpoint_interval = auto\n"
                            "[inference a]\n"
                            "traffic = diurnal\n"
                            "rate = 0.5/s\n"
                            "replicas = 2\n"
                            "autoscaler = hpa\n"
                            "min_replicas = 1\n"
                            "max_replicas = 8\n"
                            "spot_fraction = 0.5\n"
                            "slo_ttft = 1s\n"
                            "timeout = 10min\n"
                            "[load l]\n"
                            "on_time = exp(1h)\n"
                            "off_time = exp(2h)\n"
                            "racks = 8\n"
                            "on_power = 20kW\n";

typedef struct result {
	int ok;                       /* every check in the child passed */
	char why[256];
	double days, wall_s;
	double arrived, completed, dropped, in_flight;
	double steps;
	double curve_bytes;
	double energy_rel_err;        /* worst over site and components */
} result;

/* sum over the points of curve `name` of value x interval length */
static double curve_integral(aiw_sim *sim, const char *name, size_t n, const double *t,
                             double *v)
{
	size_t got = 0;
	if (aiw_sim_series_copy(sim, name, NULL, v, n, &got) != AIW_OK || got != n)
		return NAN;
	double s = 0, prev = 0;
	for (size_t i = 0; i < n; i++) {
		s += v[i] * (t[i] - prev);
		prev = t[i];
	}
	return s;
}

static void fail_(result *r, const char *fmt, double a, double b)
{
	if (!r->ok)
		return;
	snprintf(r->why, sizeof r->why, fmt, a, b);
}
#define CHECK(r, cond, fmt, a, b)          \
	do {                               \
		if (!(cond)) {             \
			fail_(r, fmt, a, b); \
			(r)->ok = 0;       \
		}                          \
	} while (0)

/* The child: run, check conservation, report. */
static void run_child(double days, result *r)
{
	memset(r, 0, sizeof *r);
	r->ok = 1;
	r->days = days;
	aiw_sim *sim;
	if (aiw_sim_create(&sim, 2024) != AIW_OK) {
		r->ok = 0;
		return;
	}
	char dur[32];
	snprintf(dur, sizeof dur, "%gd", days);
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	if (aiw_sim_load_string(sim, MIXED, "mixed.ini") != AIW_OK ||
	    aiw_sim_set(sim, "sim.duration", dur) != AIW_OK || aiw_sim_run(sim) != AIW_OK) {
		snprintf(r->why, sizeof r->why, "run: %s", aiw_sim_errmsg(sim));
		r->ok = 0;
		aiw_sim_free(sim);
		return;
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	r->wall_s = (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
	aiw_sim_metric(sim, "inference.a.requests_arrived", &r->arrived);
	aiw_sim_metric(sim, "inference.a.requests_completed", &r->completed);
	aiw_sim_metric(sim, "inference.a.requests_dropped", &r->dropped);
	aiw_sim_metric(sim, "inference.a.requests_in_flight", &r->in_flight);
	aiw_sim_metric(sim, "training.t.steps", &r->steps);
	CHECK(r, r->arrived == r->completed + r->dropped + r->in_flight,
	      "requests: arrived %.17g != completed + dropped + in flight %.17g", r->arrived,
	      r->completed + r->dropped + r->in_flight);
	/* the diurnal profile averages `rate` over whole weekdays (weekend
	 * factor 1): Poisson count of mean 0.5 x 86400 x days, within 6 sd */
	double mean = 0.5 * 86400 * days;
	CHECK(r, fabs(r->arrived - mean) <= 6 * sqrt(mean), "arrived %.17g, expected %.17g",
	      r->arrived, mean);
	CHECK(r, r->steps > 0, "training steps %g%g", r->steps, 0.0);
	/* energy: every power curve integrates to its energy metric */
	size_t n = 0, nc = 0;
	aiw_sim_series_length(sim, "site.power_w", &n);
	aiw_sim_series_count(sim, &nc);
	size_t cap = 1024;
	while (cap < n)
		cap *= 2;
	r->curve_bytes = (double)cap * (double)(nc + 1) * 8;
	double *t = malloc(n * sizeof *t), *v = malloc(n * sizeof *v);
	aiw_sim_series_copy(sim, "site.power_w", t, NULL, n, NULL);
	CHECK(r, n > 0 && t[n - 1] == days * 86400, "last sample at %g s, want %g s",
	      n ? t[n - 1] : NAN, days * 86400);
	const char *pairs[][2] = {{"site.power_w", "site.energy_kwh"},
	                          {"training.t.power_w", "training.t.energy_kwh"},
	                          {"inference.a.power_w", "inference.a.energy_kwh"},
	                          {"load.l.power_w", "load.l.energy_kwh"}};
	for (size_t i = 0; i < sizeof pairs / sizeof *pairs; i++) {
		double e_curve = curve_integral(sim, pairs[i][0], n, t, v), kwh = NAN;
		aiw_sim_metric(sim, pairs[i][1], &kwh);
		double rel = fabs(e_curve - kwh * 3.6e6) / (kwh * 3.6e6);
		if (!(rel <= r->energy_rel_err))
			r->energy_rel_err = rel;
		CHECK(r, rel <= 1e-9, "energy: curve integral %.17g J vs metric %.17g J", e_curve,
		      kwh * 3.6e6);
	}
	free(t);
	free(v);
	aiw_sim_free(sim);
}

/* Run in a child; its peak RSS (bytes) from wait4. */
static double run_forked(double days, result *r)
{
	int fd[2];
	ck_assert(pipe(fd) == 0);
	fflush(NULL);
	pid_t pid = fork();
	ck_assert(pid >= 0);
	if (pid == 0) {
		close(fd[0]);
		result res;
		run_child(days, &res);
		ssize_t w = write(fd[1], &res, sizeof res);
		_exit(w == (ssize_t)sizeof res ? 0 : 1);
	}
	close(fd[1]);
	memset(r, 0, sizeof *r);
	size_t got = 0;
	while (got < sizeof *r) {
		ssize_t k = read(fd[0], (char *)r + got, sizeof *r - got);
		if (k <= 0)
			break;
		got += (size_t)k;
	}
	close(fd[0]);
	int status = 0;
	struct rusage ru;
	ck_assert(wait4(pid, &status, 0, &ru) == pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child for %g d died", days);
	ck_assert_uint_eq(got, sizeof *r);
	ck_assert_msg(r->ok, "%g d: %s", days, r->why);
	return (double)ru.ru_maxrss * 1024; /* Linux: kilobytes */
}

START_TEST(memory_flat_and_conservation)
{
	double d0 = 1, d1 = under_valgrind() ? 2 : 30;
	result r0, r1;
	double rss0 = run_forked(d0, &r0);
	double rss1 = run_forked(d1, &r1);
	printf("longrun: %g d: peak RSS %.0f kB (curves %.0f kB), %.0f requests, %.0f steps, "
	       "%.2f s; energy error %.1e\n",
	       d0, rss0 / 1024, r0.curve_bytes / 1024, r0.arrived, r0.steps, r0.wall_s,
	       r0.energy_rel_err);
	printf("longrun: %g d: peak RSS %.0f kB (curves %.0f kB), %.0f requests, %.0f steps, "
	       "%.2f s; energy error %.1e\n",
	       d1, rss1 / 1024, r1.curve_bytes / 1024, r1.arrived, r1.steps, r1.wall_s,
	       r1.energy_rel_err);
	/* the long run did proportionally more work */
	ck_assert(r1.arrived > 0.5 * (d1 / d0) * r0.arrived);
	ck_assert(r1.steps > 0.5 * (d1 / d0) * r0.steps);
	if (sanitized())
		return;
	double m0 = rss0 - r0.curve_bytes, m1 = rss1 - r1.curve_bytes;
	ck_assert_msg(m1 <= 1.10 * m0,
	              "peak RSS less curves: %.0f kB after %g d vs %.0f kB after %g d (> 10%%)",
	              m1 / 1024, d1, m0 / 1024, d0);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("longrun");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, memory_flat_and_conservation);
	suite_add_tcase(s, tc);
	return s;
}

AIW_TEST_MAIN(make_suite)
