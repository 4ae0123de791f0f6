/* test_queueing.c - the inference model as a queue, against closed forms:
 * M/M/c mean wait (Erlang C) for c = 1, 4, 16 at several loads, and M/D/1
 * mean wait (Pollaczek-Khinchine), each within the confidence interval of
 * the runs.
 *
 * Set-up: `service = exp(1/mu)` or `const(1/mu)` replaces the roofline,
 * batching = none (one request per replica), router = central (one FIFO
 * queue that free replicas pull from): exactly the M/G/c FIFO queue.
 *
 * Confidence interval (independent replications, Law & Kelton ch. 9): K
 * runs with seeds 1..K; each drops a warm-up and gives the mean queue wait
 * of the customers who start service after it, Y_k = (sum of waits) /
 * (count), read from the cumulative metrics queue_wait_sum_s and
 * queue_wait_count at the warm-up and at the end.  The Y_k are iid (distinct
 * seeds give independent streams) and near normal (each averages ~10^4
 * customers), so mean(Y) +- t_{K-1, 0.9995} sd(Y)/sqrt(K) is a 99.9%
 * interval for the steady-state wait W_q.  The warm-up (200 mean service
 * times; the M/M/1 relaxation time at rho = 0.8 is 1/(mu (1 - sqrt rho))^2
 * = 89 service times) makes the initial-state bias small against the
 * interval.  The runs are seeded: the test is deterministic, and at 99.9%
 * a correct model fails one comparison in a thousand, so the seeds are not
 * tuned.  Each interval is also asserted narrow (half-width < 15% of W_q),
 * so that the comparison has power: a model off by more than ~30% fails.
 * (With K = 20 the estimated sd itself varies by ~16%, which the 15% bound
 * allows for at the run lengths below.)
 */
#include "core/internal.h"
#include "../testutil.h"

#include <gsl/gsl_cdf.h>
#include <string.h>

#define K 20

/* Erlang C: probability that an arrival waits in M/M/c with offered load a = lambda/mu. */
static double erlang_c(int c, double a)
{
	double term = 1, sum = 1; /* k = 0 */
	for (int k = 1; k < c; k++) {
		term *= a / k;
		sum += term;
	}
	double last = term * a / c * c / (c - a); /* a^c/c! * c/(c-a) */
	return last / (sum + last);
}

typedef struct {
	double mean, half;
	double busy_frac; /* utilization metric of the last run */
} ci;

/* K replications of the central-queue model; mean queue wait after warm-up. */
static ci replicate(int c, double lambda, const char *service, double mean_service, double n_cust)
{
	double warm = 200 * mean_service, dur = warm + n_cust / lambda;
	double y[K];
	ci out = {0, 0, 0};
	for (int k = 0; k < K; k++) {
		aiw_sim *sim;
		ck_assert_int_eq(aiw_sim_create(&sim, (uint64_t)k + 1), AIW_OK);
		char text[1024];
		snprintf(text, sizeof text,
		         "[sim]\nduration = %.17g\nsample_interval = %.17g\n"
		         "[inference q]\nreplicas = %d\nrate = %.17g\nservice = %s\n"
		         "batching = none\nrouter = central\n",
		         dur, dur / 4, c, lambda, service);
		AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim, text, "queueing"));
		AIW_OK_OR_FAIL(sim, aiw_sim_run_until(sim, warm));
		double s0 = aiwi_test_metric(sim, "inference.q.queue_wait_sum_s");
		double n0 = aiwi_test_metric(sim, "inference.q.queue_wait_count");
		AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
		double s1 = aiwi_test_metric(sim, "inference.q.queue_wait_sum_s");
		double n1 = aiwi_test_metric(sim, "inference.q.queue_wait_count");
		ck_assert_msg(n1 - n0 > 0.5 * n_cust, "only %g customers", n1 - n0);
		y[k] = (s1 - s0) / (n1 - n0);
		/* every run conserves requests */
		double arr = aiwi_test_metric(sim, "inference.q.requests_arrived");
		double done = aiwi_test_metric(sim, "inference.q.requests_completed");
		double drop = aiwi_test_metric(sim, "inference.q.requests_dropped");
		double fly = aiwi_test_metric(sim, "inference.q.requests_in_flight");
		ck_assert(arr == done + drop + fly);
		ck_assert(drop == 0);
		out.busy_frac = aiwi_test_metric(sim, "inference.q.utilization");
		aiw_sim_free(sim);
	}
	double m = 0, v = 0;
	for (int k = 0; k < K; k++)
		m += y[k];
	m /= K;
	for (int k = 0; k < K; k++)
		v += (y[k] - m) * (y[k] - m);
	v /= K - 1;
	out.mean = m;
	out.half = gsl_cdf_tdist_Pinv(0.9995, K - 1) * sqrt(v / K);
	return out;
}

static void check_mmc(int c, double rho, double n_cust)
{
	double mu = 1.0, lambda = rho * c * mu;
	double wq = erlang_c(c, lambda / mu) / (c * mu - lambda);
	ci r = replicate(c, lambda, "exp(1s)", 1 / mu, n_cust);
	if (getenv("AIW_VERBOSE"))
		printf("M/M/%d rho=%g: %.5g +- %.3g (Erlang C %.5g)\n", c, rho, r.mean, r.half, wq);
	ck_assert_msg(fabs(r.mean - wq) <= r.half,
	              "M/M/%d rho=%g: mean wait %.5g +- %.3g, Erlang C %.5g", c, rho, r.mean, r.half,
	              wq);
	ck_assert_msg(r.half < 0.15 * wq, "M/M/%d rho=%g: interval +-%.3g too wide for Wq %.4g", c,
	              rho, r.half, wq);
	/* busy fraction of the servers = rho (law of large numbers: a loose check) */
	ck_assert_msg(fabs(r.busy_frac - rho) < 0.05, "M/M/%d: utilization %g vs rho %g", c,
	              r.busy_frac, rho);
}

START_TEST(erlang_c_closed_form)
{
	/* hand values: M/M/1 C = rho; M/M/2 at a = 1: C = 1/3 */
	ck_assert_rel(erlang_c(1, 0.7), 0.7, 1e-14);
	ck_assert_rel(erlang_c(2, 1.0), 1.0 / 3.0, 1e-14);
	/* c = 4, a = 2: [16/24 * 2] / [1 + 2 + 2 + 4/3 + 4/3] = (4/3)/(23/3) = 4/23 */
	ck_assert_rel(erlang_c(4, 2.0), 4.0 / 23.0, 1e-14);
}
END_TEST

START_TEST(mm1)
{
	check_mmc(1, 0.5, 20000);
	check_mmc(1, 0.8, 60000);
}
END_TEST

START_TEST(mm4)
{
	check_mmc(4, 0.5, 40000);
	check_mmc(4, 0.8, 100000);
}
END_TEST

START_TEST(mm16)
{
	check_mmc(16, 0.7, 300000);
	check_mmc(16, 0.85, 200000);
}
END_TEST

START_TEST(md1_pollaczek_khinchine)
{
	/* M/D/1: Wq = lambda E[S^2] / (2 (1 - rho)) = rho S / (2 (1 - rho)) */
	double S = 0.5;
	for (int i = 0; i < 2; i++) {
		double rho = i ? 0.8 : 0.5, lambda = rho / S;
		double wq = rho * S / (2 * (1 - rho));
		ci r = replicate(1, lambda, "const(0.5s)", S, 40000);
		if (getenv("AIW_VERBOSE"))
			printf("M/D/1 rho=%g: %.5g +- %.3g (P-K %.5g)\n", rho, r.mean, r.half, wq);
		ck_assert_msg(fabs(r.mean - wq) <= r.half, "M/D/1 rho=%g: %.5g +- %.3g vs P-K %.5g", rho,
		              r.mean, r.half, wq);
		ck_assert_msg(r.half < 0.15 * wq, "M/D/1: interval too wide");
		/* and not the M/M/1 value (twice as large): the test tells them apart */
		ck_assert(fabs(r.mean - 2 * wq) > r.half);
	}
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("queueing");
	TCase *tc = tcase_create("closed forms");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, erlang_c_closed_form);
	tcase_add_test(tc, mm1);
	tcase_add_test(tc, mm4);
	tcase_add_test(tc, mm16);
	tcase_add_test(tc, md1_pollaczek_khinchine);
	suite_add_tcase(s, tc);
	return s;
}

AIW_TEST_MAIN(make_suite)
