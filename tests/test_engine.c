/* test_engine.c - the pending-event set and public scheduling. */
#include "internal.h"
#include "testutil.h"

#include <gsl/gsl_rng.h>
#include <string.h>

static void rec(aiw_sim *sim, void *ctx, uint64_t arg)
{
	(void)sim;
	uint64_t **p = ctx;
	*(*p)++ = arg;
}

START_TEST(order_random_against_sort)
{
	/* 20,000 random times with many ties: pops come out sorted by (t, seq) */
	aiw_engine e;
	aiw_engine_init(&e);
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	enum { N = 20000 };
	static double t[N];
	for (uint64_t i = 0; i < N; i++) {
		t[i] = (double)gsl_rng_uniform_int(r, 500); /* ties on purpose */
		ck_assert(aiw_engine_push(&e, t[i], rec, NULL, i) != 0);
	}
	double last_t = -1;
	uint64_t last_i = 0;
	for (size_t k = 0; k < N; k++) {
		aiw_evfn fn;
		void *ctx;
		uint64_t arg;
		ck_assert(aiw_engine_pop(&e, &fn, &ctx, &arg));
		ck_assert(fn == rec);
		ck_assert(t[arg] >= last_t);
		if (t[arg] == last_t)
			ck_assert_msg(arg > last_i, "FIFO tie broken: %llu after %llu",
			              (unsigned long long)arg, (unsigned long long)last_i);
		last_t = t[arg];
		last_i = arg;
		ck_assert(e.now == t[arg]);
	}
	aiw_evfn fn;
	void *ctx;
	uint64_t arg;
	ck_assert(!aiw_engine_pop(&e, &fn, &ctx, &arg));
	gsl_rng_free(r);
	aiw_engine_free(&e);
}
END_TEST

START_TEST(cancel_random)
{
	/* cancel a random half; the rest still pops in order, stale handles fail */
	aiw_engine e;
	aiw_engine_init(&e);
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	enum { N = 5000 };
	static uint64_t h[N];
	static double t[N];
	static bool gone[N];
	for (uint64_t i = 0; i < N; i++) {
		t[i] = gsl_rng_uniform(r);
		h[i] = aiw_engine_push(&e, t[i], rec, NULL, i);
	}
	size_t kept = N;
	for (size_t i = 0; i < N; i++)
		if (gsl_rng_uniform(r) < 0.5) {
			ck_assert(aiw_engine_cancel(&e, h[i]));
			ck_assert(!aiw_engine_cancel(&e, h[i])); /* twice: refused */
			gone[i] = true;
			kept--;
		}
	ck_assert_uint_eq(aiw_engine_pending(&e), kept);
	double last = -1;
	aiw_evfn fn;
	void *ctx;
	uint64_t arg;
	size_t popped = 0;
	while (aiw_engine_pop(&e, &fn, &ctx, &arg)) {
		ck_assert(!gone[arg]);
		ck_assert(t[arg] >= last);
		last = t[arg];
		ck_assert(!aiw_engine_cancel(&e, h[arg])); /* already ran */
		popped++;
	}
	ck_assert_uint_eq(popped, kept);
	/* slots are reused: an old handle must not cancel the new event */
	uint64_t fresh = aiw_engine_push(&e, 1.0, rec, NULL, 0);
	for (size_t i = 0; i < N; i++)
		ck_assert(!aiw_engine_cancel(&e, h[i]));
	ck_assert(aiw_engine_cancel(&e, fresh));
	ck_assert(!aiw_engine_cancel(&e, 0));
	ck_assert(!aiw_engine_cancel(&e, UINT64_MAX));
	ck_assert(!aiw_engine_cancel(&e, 0xffffffffull));
	gsl_rng_free(r);
	aiw_engine_free(&e);
}
END_TEST

START_TEST(large_times_keep_order)
{
	/* near 1e9 s a double still resolves 1e-7 s: order holds */
	aiw_engine e;
	aiw_engine_init(&e);
	double base = 1e9;
	for (uint64_t i = 0; i < 100; i++)
		aiw_engine_push(&e, base + (double)(99 - i) * 1e-6, rec, NULL, i);
	uint64_t prev = 100;
	aiw_evfn fn;
	void *ctx;
	uint64_t arg;
	while (aiw_engine_pop(&e, &fn, &ctx, &arg)) {
		ck_assert(arg < prev);
		prev = arg;
	}
	aiw_engine_free(&e);
}
END_TEST

/* ---- public scheduling through a simulation ---- */
typedef struct log_ {
	double t[64];
	int id[64];
	int n;
	uint64_t h_cancel;
} log_;

static log_ LOG;

static void cb(aiw_sim *sim, double t, void *payload)
{
	(void)sim;
	LOG.t[LOG.n] = t;
	LOG.id[LOG.n++] = (int)(intptr_t)payload;
}

static void cb_resched(aiw_sim *sim, double t, void *payload)
{
	cb(sim, t, payload);
	/* an event scheduled at the current time runs after those already queued */
	ck_assert_int_eq(aiw_sim_schedule(sim, t, cb, (void *)(intptr_t)99, NULL), AIW_OK);
	ck_assert_int_eq(aiw_sim_cancel(sim, LOG.h_cancel), AIW_OK);
	/* the past is refused */
	ck_assert_int_eq(aiw_sim_schedule(sim, t - 1, cb, NULL, NULL), AIW_ERANGE);
	/* nested runs are refused */
	ck_assert_int_eq(aiw_sim_run(sim), AIW_ESTATE);
}

START_TEST(schedule_run_until)
{
	aiw_sim *sim;
	ck_assert_int_eq(aiw_sim_create(&sim, 7), AIW_OK);
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.duration", "100s"));
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.sample_interval", "10s"));
	memset(&LOG, 0, sizeof LOG);
	AIW_OK_OR_FAIL(sim, aiw_sim_schedule(sim, 5, cb, (void *)1, NULL));
	AIW_OK_OR_FAIL(sim, aiw_sim_schedule(sim, 5, cb_resched, (void *)2, NULL));
	AIW_OK_OR_FAIL(sim, aiw_sim_schedule(sim, 5, cb, (void *)3, NULL));
	AIW_OK_OR_FAIL(sim, aiw_sim_schedule(sim, 50, cb, (void *)4, &LOG.h_cancel));
	AIW_OK_OR_FAIL(sim, aiw_sim_schedule(sim, 60, cb, (void *)5, NULL));
	AIW_OK_OR_FAIL(sim, aiw_sim_run_until(sim, 5));
	double now;
	aiw_sim_now(sim, &now);
	ck_assert(now == 5.0);
	ck_assert_int_eq(LOG.n, 4);
	int want[] = {1, 2, 3, 99};
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(LOG.id[i], want[i]);
	ck_assert_int_eq(aiw_sim_run_until(sim, 4), AIW_ERANGE); /* backwards */
	AIW_OK_OR_FAIL(sim, aiw_sim_run_until(sim, 59.5));
	ck_assert_int_eq(LOG.n, 4); /* event 4 was cancelled */
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert_int_eq(LOG.n, 5);
	ck_assert_int_eq(LOG.id[4], 5);
	ck_assert(LOG.t[4] == 60.0);
	aiw_sim_now(sim, &now);
	ck_assert(now == 100.0);
	/* bad arguments */
	ck_assert_int_eq(aiw_sim_schedule(NULL, 1, cb, NULL, NULL), AIW_EINVAL);
	ck_assert_int_eq(aiw_sim_schedule(sim, 200, NULL, NULL, NULL), AIW_EINVAL);
	ck_assert_int_eq(aiw_sim_schedule(sim, NAN, cb, NULL, NULL), AIW_ERANGE);
	ck_assert_int_eq(aiw_sim_schedule(sim, INFINITY, cb, NULL, NULL), AIW_ERANGE);
	ck_assert_int_eq(aiw_sim_cancel(sim, 12345), AIW_EUNKNOWN);
	ck_assert_int_eq(aiw_sim_run_until(sim, NAN), AIW_ERANGE);
	aiw_sim_free(sim);
}
END_TEST

static int stop_at_30(aiw_sim *sim, double now, double end, void *p)
{
	(void)sim;
	(void)end;
	int *calls = p;
	(*calls)++;
	return now >= 30;
}

START_TEST(progress_and_stop)
{
	aiw_sim *sim;
	ck_assert_int_eq(aiw_sim_create(&sim, 7), AIW_OK);
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.duration", "100s"));
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.sample_interval", "10s"));
	int calls = 0;
	AIW_OK_OR_FAIL(sim, aiw_sim_set_progress(sim, stop_at_30, &calls, 10));
	ck_assert_int_eq(aiw_sim_run(sim), AIW_ESTOPPED);
	ck_assert_int_eq(calls, 3);
	double now;
	aiw_sim_now(sim, &now);
	ck_assert(now == 30.0);
	ck_assert_int_eq(aiw_sim_set_progress(sim, NULL, NULL, -1), AIW_ERANGE);
	/* reset and rerun without the callback reaches the end */
	AIW_OK_OR_FAIL(sim, aiw_sim_reset(sim));
	AIW_OK_OR_FAIL(sim, aiw_sim_set_progress(sim, NULL, NULL, 0));
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	aiw_sim_now(sim, &now);
	ck_assert(now == 100.0);
	aiw_sim_free(sim);
}
END_TEST

START_TEST(pending_count)
{
	aiw_sim *sim;
	ck_assert_int_eq(aiw_sim_create(&sim, 1), AIW_OK);
	size_t n = 99;
	AIW_OK_OR_FAIL(sim, aiw_sim_pending(sim, &n));
	ck_assert_uint_eq(n, 0);
	for (int i = 0; i < 10; i++)
		AIW_OK_OR_FAIL(sim, aiw_sim_schedule(sim, i, cb, NULL, NULL));
	AIW_OK_OR_FAIL(sim, aiw_sim_pending(sim, &n));
	ck_assert_uint_eq(n, 10);
	ck_assert_int_eq(aiw_sim_pending(sim, NULL), AIW_EINVAL);
	aiw_sim_free(sim);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("engine");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, order_random_against_sort);
	tcase_add_test(tc, cancel_random);
	tcase_add_test(tc, large_times_keep_order);
	tcase_add_test(tc, schedule_run_until);
	tcase_add_test(tc, progress_and_stop);
	tcase_add_test(tc, pending_count);
	suite_add_tcase(s, tc);
	return s;
}

AIW_TEST_MAIN(make_suite)
