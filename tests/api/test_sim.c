/* test_sim.c - the simulation object: lifecycle, reset, random streams and
 * bit-for-bit determinism (twice in one process and across processes). */
#include "core/internal.h"
#include "../testutil.h"

#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The richest scenario the library can run; every model joins it. */
static const char *SCENARIO = "[sim]\nduration = 6h\nsample_interval = 5min\n"
                              "[load a]\nprofile = 0:1kW, 20min:3kW, 50min:2kW\nperiod = 1h\n"
                              "[load b]\nprofile = 0:4kW, 3h:1kW\ngpus = 4\n"
                              "[training t]\ngpus = 256\njitter = lognormal(0,0.05)\n"
                              "slow_gpus = 1\nslow_factor = 1.2\ngpu_mtbf = 2000h\n"
                              "checkpoint_interval = auto\n"
                              "[load r]\non_time = exp(10min)\noff_time = exp(20min)\nracks = 4\n"
                              "on_power = 10kW\n"
	;

/* FNV-1a over every curve and metric: equal hashes mean equal bits */
static uint64_t run_hash(uint64_t seed)
{
	aiw_sim *sim;
	ck_assert_int_eq(aiw_sim_create(&sim, seed), AIW_OK);
	AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim, SCENARIO, "determinism.ini"));
	AIW_OK_OR_FAIL(sim, aiw_sim_set_double(sim, "sim.seed", (double)seed));
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	uint64_t h = 1469598103934665603ull;
	size_t ns, nm;
	aiw_sim_series_count(sim, &ns);
	for (size_t i = 0; i < ns; i++) {
		const char *name;
		size_t n;
		aiw_sim_series_name(sim, i, &name);
		aiw_sim_series_length(sim, name, &n);
		double *v = malloc((n ? n : 1) * sizeof *v);
		aiw_sim_series_copy(sim, name, NULL, v, n, &n);
		const unsigned char *b = (const unsigned char *)v;
		for (size_t k = 0; k < n * sizeof *v; k++)
			h = (h ^ b[k]) * 1099511628211ull;
		free(v);
	}
	aiw_sim_metric_count(sim, &nm);
	for (size_t i = 0; i < nm; i++) {
		const char *name;
		double v;
		aiw_sim_metric_name(sim, i, &name);
		aiw_sim_metric(sim, name, &v);
		const unsigned char *b = (const unsigned char *)&v;
		for (size_t k = 0; k < sizeof v; k++)
			h = (h ^ b[k]) * 1099511628211ull;
	}
	aiw_sim_free(sim);
	return h;
}

START_TEST(deterministic_in_process)
{
	ck_assert(run_hash(42) == run_hash(42));
}
END_TEST

START_TEST(deterministic_across_processes)
{
	int fd[2];
	ck_assert(pipe(fd) == 0);
	pid_t pid = fork();
	ck_assert(pid >= 0);
	if (pid == 0) {
		uint64_t h = run_hash(42);
		ssize_t w = write(fd[1], &h, sizeof h);
		_exit(w == (ssize_t)sizeof h ? 0 : 1);
	}
	uint64_t child = 0;
	ck_assert(read(fd[0], &child, sizeof child) == (ssize_t)sizeof child);
	int status;
	waitpid(pid, &status, 0);
	close(fd[0]);
	close(fd[1]);
	ck_assert(child == run_hash(42));
}
END_TEST

START_TEST(reset_reproduces)
{
	aiw_sim *sim;
	ck_assert_int_eq(aiw_sim_create(&sim, 9), AIW_OK);
	AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim, SCENARIO, NULL));
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	double e1 = aiwi_test_metric(sim, "site.energy_kwh");
	double t;
	aiw_sim_now(sim, &t);
	ck_assert(t == 6 * 3600.0);
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim)); /* done: a no-op */
	AIW_OK_OR_FAIL(sim, aiw_sim_reset(sim));
	aiw_sim_now(sim, &t);
	ck_assert(t == 0);
	size_t n;
	aiw_sim_metric_count(sim, &n);
	ck_assert_uint_eq(n, 0);
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert(aiwi_test_metric(sim, "site.energy_kwh") == e1);
	ck_assert_int_eq(aiw_sim_reset(NULL), AIW_EINVAL);
	aiw_sim_free(sim);
}
END_TEST

START_TEST(streams_independent)
{
	/* a stream depends on (seed, component prefix) only */
	uint64_t a = aiwi_stream_seed(1, "training.a");
	ck_assert(a == aiwi_stream_seed(1, "training.a"));
	ck_assert(a != aiwi_stream_seed(2, "training.a"));
	ck_assert(a != aiwi_stream_seed(1, "training.b"));
	ck_assert(aiwi_stream_seed(1, "inference.x") != aiwi_stream_seed(1, "training.x"));
}
END_TEST

START_TEST(many_create_free)
{
	for (int i = 0; i < 2000; i++) {
		aiw_sim *sim;
		ck_assert_int_eq(aiw_sim_create(&sim, (uint64_t)i), AIW_OK);
		ck_assert_str_eq(aiw_sim_errmsg(sim), "");
		aiw_sim_free(sim);
	}
	aiw_sim_free(NULL);
	ck_assert_int_eq(aiw_sim_create(NULL, 1), AIW_EINVAL);
	ck_assert(aiw_sim_errmsg(NULL) != NULL);
	ck_assert_int_eq(aiw_sim_run(NULL), AIW_EINVAL);
	ck_assert_int_eq(aiw_sim_run_until(NULL, 1), AIW_EINVAL);
	ck_assert_int_eq(aiw_sim_now(NULL, NULL), AIW_EINVAL);
}
END_TEST

START_TEST(big_seed_round_trip)
{
	aiw_sim *sim;
	ck_assert_int_eq(aiw_sim_create(&sim, UINT64_MAX), AIW_OK);
	char buf[32];
	AIW_OK_OR_FAIL(sim, aiw_sim_get(sim, "sim.seed", buf, sizeof buf));
	ck_assert_str_eq(buf, "18446744073709551615");
	aiw_sim_free(sim);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("sim");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, deterministic_in_process);
	tcase_add_test(tc, deterministic_across_processes);
	tcase_add_test(tc, reset_reproduces);
	tcase_add_test(tc, streams_independent);
	tcase_add_test(tc, many_create_free);
	tcase_add_test(tc, big_seed_round_trip);
	suite_add_tcase(s, tc);
	return s;
}

AIW_TEST_MAIN(make_suite)
