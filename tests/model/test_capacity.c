/*
 * test_capacity.c - aiw_inference_capacity against closed forms.
 *
 * Offline: with `service = const(s)` and batching = none (one request per
 * replica: M/D/c with every request at t = 0), N requests on c replicas end
 * at ceil(N / c) s exactly, so the offline rate is N / (ceil(N / c) s): c / s
 * when c divides N, one replica with batch 1 included.
 *
 * Server: the M/M/c set-up of test_queueing.c (service = exp(1/mu),
 * batching = none, router = central: the FIFO M/M/c queue).  Without a
 * first token before the whole response (service mode), TTFT is the sojourn
 * T = W + S, and
 *   P(T > L) = (1 - C) e^(-mu L) + C (mu e^(-theta L) - theta e^(-mu L)) / (mu - theta),
 * C the Erlang C probability of waiting, theta = c mu - lambda (W given it
 * waits is exponential with rate theta, S exponential with rate mu).  The
 * largest lambda with P(T > L) <= 0.01 is the search's target.  The
 * search's estimate at one seed is noisy (the over-limit fraction of 270,336
 * correlated requests); K seeds give a mean and a Student interval, which
 * must hold the closed form (plus the bracket's resolution).
 */
#include "../testutil.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_roots.h>

static const char MDC[] = "[inference q]\nreplicas = %d\nservice = const(%gs)\n"
                          "batching = none\nrouter = central\n";
static const char MMC[] = "[inference q]\nreplicas = 4\nservice = exp(1s)\nbatching = none\n"
                          "router = central\n";

static aiw_sim *load(const char *text, uint64_t seed)
{
	aiw_sim *sim;
	ck_assert_int_eq(aiw_sim_create(&sim, seed), AIW_OK);
	AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim, text, "test"));
	return sim;
}

static void offline_case(int c, double s, int n, const char *router)
{
	char text[512], nreq[64];
	snprintf(text, sizeof text, MDC, c, s);
	if (router)
		snprintf(text + strlen(text), sizeof text - strlen(text), "router = %s\n", router);
	aiw_sim *sim = load(text, 7);
	snprintf(nreq, sizeof nreq, "offline_requests=%d", n);
	const char *set[] = {nreq, "min_requests=1000", "duration=100s", "resolution=0.05"};
	double out[AIW_CAPACITY_NCOLUMNS];
	AIW_OK_OR_FAIL(sim, aiw_inference_capacity(sim, "q", set, 4, out, AIW_CAPACITY_NCOLUMNS,
	                                           NULL, NULL));
	double span = ceil((double)n / c) * s;
	ck_assert_msg(out[AIW_CAPACITY_OFFLINE_MAKESPAN_S] == span, "c=%d: makespan %.17g vs %.17g",
	              c, out[AIW_CAPACITY_OFFLINE_MAKESPAN_S], span);
	ck_assert(out[AIW_CAPACITY_OFFLINE_REQUESTS] == n);
	ck_assert_rel(out[AIW_CAPACITY_OFFLINE_REQUESTS_PER_S], n / span, 1e-15);
	aiw_sim_free(sim);
}

START_TEST(offline_mdc_exact)
{
	offline_case(1, 0.5, 1000, NULL);         /* one replica, batch 1: 1 / s */
	offline_case(4, 2.0, 4000, NULL);         /* c / s */
	offline_case(4, 2.0, 4000, "round_robin"); /* any router: all arrive at once */
	offline_case(3, 1.0, 1000, NULL);         /* ceil(N / c) s */
	/* c / s exactly where c divides N */
	char text[256];
	snprintf(text, sizeof text, MDC, 8, 0.25);
	aiw_sim *sim = load(text, 1);
	const char *set[] = {"offline_requests=800", "min_requests=500", "duration=10s"};
	double out[AIW_CAPACITY_NCOLUMNS];
	AIW_OK_OR_FAIL(sim, aiw_inference_capacity(sim, NULL, set, 3, out, AIW_CAPACITY_NCOLUMNS,
	                                           NULL, NULL));
	ck_assert(out[AIW_CAPACITY_OFFLINE_REQUESTS_PER_S] == 32.0);
	aiw_sim_free(sim);
}
END_TEST

/* Erlang C: probability that an arrival waits in M/M/c, offered load a. */
static double erlang_c(int c, double a)
{
	double sum = 0, term = 1;
	for (int k = 0; k < c; k++) {
		sum += term;
		term *= a / (k + 1);
	}
	double top = term * c / (c - a);
	return top / (sum + top);
}

typedef struct mmc {
	int c;
	double mu, limit, tail;
} mmc;

static double sojourn_tail(double lambda, void *p)
{
	const mmc *m = p;
	double C = erlang_c(m->c, lambda / m->mu), th = m->c * m->mu - lambda, mu = m->mu;
	double L = m->limit;
	double hypo = (mu * exp(-th * L) - th * exp(-mu * L)) / (mu - th);
	return (1 - C) * exp(-mu * L) + C * hypo - m->tail;
}

/* The largest lambda with P(T > L) <= tail: GSL's Brent solver. */
static double mmc_capacity(mmc *m)
{
	gsl_function F = {sojourn_tail, m};
	gsl_root_fsolver *s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
	gsl_root_fsolver_set(s, &F, 0.5 * m->c * m->mu, 0.999 * m->c * m->mu);
	double r = NAN;
	for (int i = 0; i < 200; i++) {
		gsl_root_fsolver_iterate(s);
		r = gsl_root_fsolver_root(s);
		if (gsl_root_test_interval(gsl_root_fsolver_x_lower(s), gsl_root_fsolver_x_upper(s),
		                           0, 1e-12) == GSL_SUCCESS)
			break;
	}
	gsl_root_fsolver_free(s);
	return r;
}

START_TEST(server_mmc_erlang)
{
	mmc m = {4, 1.0, 6.0, 0.01};
	double target = mmc_capacity(&m);
	ck_assert(target > 2.9 && target < 3.1);
	ck_assert(fabs(sojourn_tail(target, &m)) < 1e-12);
	enum { K = 8 };
	double est[K], sum = 0;
	const double res = 0.002;
	const char *set[] = {"ttft_p99=6s", "tpot_p99=none", "resolution=0.002",
	                     "offline_requests=4000"};
	for (int k = 0; k < K; k++) {
		aiw_sim *sim = load(MMC, 1000 + (uint64_t)k);
		double out[AIW_CAPACITY_NCOLUMNS];
		AIW_OK_OR_FAIL(sim, aiw_inference_capacity(sim, "inference.q", set, 4, out,
		                                           AIW_CAPACITY_NCOLUMNS, NULL, NULL));
		/* offline: 4 replicas of mean 1 s */
		ck_assert_rel(out[AIW_CAPACITY_OFFLINE_REQUESTS_PER_S], 4.0, 0.1);
		ck_assert(out[AIW_CAPACITY_SERVER_RESOLUTION] <= res);
		ck_assert(out[AIW_CAPACITY_SERVER_REQUESTS] >= 270336);
		ck_assert(out[AIW_CAPACITY_SERVER_TTFT_OVER] <= 0.01);
		ck_assert(out[AIW_CAPACITY_SERVER_TTFT_P99_S] <= 6.0 * 1.02); /* histogram rounding */
		/* the crossing lies in [passed, failed]: its geometric middle */
		est[k] = sqrt(out[AIW_CAPACITY_SERVER_RATE] * out[AIW_CAPACITY_SERVER_RATE_FAILED]);
		sum += est[k];
		aiw_sim_free(sim);
	}
	double mean = sum / K, ss = 0;
	for (int k = 0; k < K; k++)
		ss += (est[k] - mean) * (est[k] - mean);
	double sd = sqrt(ss / (K - 1));
	double half = gsl_cdf_tdist_Pinv(0.9995, K - 1) * sd / sqrt(K) + res * target;
	if (getenv("AIW_VERBOSE"))
		printf("M/M/4 P99 sojourn <= 6 s: %.5g +- %.3g (sd %.3g) vs closed form %.6g\n", mean,
		       half, sd, target);
	ck_assert_msg(fabs(mean - target) <= half, "search %.6g +- %.3g vs closed form %.6g", mean,
	              half, target);
	ck_assert_msg(sd > 0 && half < 0.05 * target, "interval %.3g too wide", half);
	/* and not the P95 rate: the test tells them apart */
	mmc m95 = {4, 1.0, 6.0, 0.05};
	ck_assert(fabs(mean - mmc_capacity(&m95)) > half);
}
END_TEST

typedef struct rec {
	size_t n;
	double rate[64];
	int verdict[64];
	size_t stop_after;
} rec;

static int record(size_t done, size_t max_runs, double rate, int verdict, void *payload)
{
	rec *r = payload;
	ck_assert(done == r->n + 1 && done <= max_runs);
	if (r->n < 64) {
		r->rate[r->n] = rate;
		r->verdict[r->n] = verdict;
	}
	r->n++;
	return r->stop_after && r->n >= r->stop_after;
}

START_TEST(bracket_and_resolution)
{
	aiw_sim *sim = load("[inference chat]\nreplicas = 2\n", 3);
	const char *set[] = {"min_requests=2000", "duration=60s", "offline_requests=2000",
	                     "resolution=0.05"};
	double out[AIW_CAPACITY_NCOLUMNS];
	rec r = {0};
	AIW_OK_OR_FAIL(sim, aiw_inference_capacity(sim, NULL, set, 4, out, AIW_CAPACITY_NCOLUMNS,
	                                           record, &r));
	ck_assert(r.n == out[AIW_CAPACITY_RUNS] && r.n >= 3);
	ck_assert(r.verdict[0] == -1 && r.rate[0] == out[AIW_CAPACITY_OFFLINE_REQUESTS_PER_S]);
	/* the first server rate is the offline rate */
	ck_assert(r.rate[1] == r.rate[0]);
	double lo = out[AIW_CAPACITY_SERVER_RATE], hi = out[AIW_CAPACITY_SERVER_RATE_FAILED];
	ck_assert(lo > 0 && hi > lo);
	ck_assert_rel(out[AIW_CAPACITY_SERVER_RESOLUTION], hi / lo - 1, 1e-15);
	ck_assert(hi / lo - 1 <= 0.05);
	/* lo was run and passed, hi was run and failed; every rate run lies in
	 * the bracket's history: passes below hi, fails above lo */
	bool saw_lo = false, saw_hi = false;
	for (size_t i = 1; i < r.n; i++) {
		saw_lo |= r.rate[i] == lo && r.verdict[i] == 1;
		saw_hi |= r.rate[i] == hi && r.verdict[i] == 0;
		if (r.verdict[i] == 1)
			ck_assert(r.rate[i] <= lo);
		else
			ck_assert(r.rate[i] >= hi);
	}
	ck_assert(saw_lo && saw_hi);
	ck_assert(out[AIW_CAPACITY_SERVER_TTFT_P99_S] <= 2.0 * 1.02);
	ck_assert(out[AIW_CAPACITY_SERVER_TPOT_P99_S] <= 0.2 * 1.02);
	ck_assert(out[AIW_CAPACITY_SERVER_REQUESTS] >= 2000);
	/* a finer resolution costs runs and narrows the bracket */
	const char *fine[] = {"min_requests=2000", "duration=60s", "offline_requests=2000",
	                      "resolution=0.001"};
	double out2[AIW_CAPACITY_NCOLUMNS];
	AIW_OK_OR_FAIL(sim, aiw_inference_capacity(sim, NULL, fine, 4, out2, AIW_CAPACITY_NCOLUMNS,
	                                           NULL, NULL));
	ck_assert(out2[AIW_CAPACITY_SERVER_RESOLUTION] <= 0.001);
	ck_assert(out2[AIW_CAPACITY_RUNS] > out[AIW_CAPACITY_RUNS]);
	/* a max_runs too small for the resolution: the bracket reached, stated */
	const char *few[] = {"min_requests=2000", "duration=60s", "offline_requests=2000",
	                     "resolution=0.0001", "max_runs=5"};
	AIW_OK_OR_FAIL(sim, aiw_inference_capacity(sim, NULL, few, 5, out2, AIW_CAPACITY_NCOLUMNS,
	                                           NULL, NULL));
	ck_assert(out2[AIW_CAPACITY_RUNS] == 5);
	ck_assert(out2[AIW_CAPACITY_SERVER_RESOLUTION] > 0.0001);
	/* a TPOT limit under any decode iteration: no rate passes */
	const char *tight[] = {"min_requests=200", "duration=10s", "offline_requests=200",
	                       "tpot_p99=1us"};
	AIW_OK_OR_FAIL(sim, aiw_inference_capacity(sim, NULL, tight, 4, out2, AIW_CAPACITY_NCOLUMNS,
	                                           NULL, NULL));
	ck_assert(out2[AIW_CAPACITY_SERVER_RATE] == 0);
	ck_assert(isnan(out2[AIW_CAPACITY_SERVER_TTFT_P99_S]));
	ck_assert(out2[AIW_CAPACITY_RUNS] == 22); /* offline, the offline rate, 20 halvings */
	/* the same with too few runs to halve that far: not known, not 0 */
	const char *tight_few[] = {"min_requests=200", "duration=10s", "offline_requests=200",
	                           "tpot_p99=1us", "max_runs=6"};
	AIW_OK_OR_FAIL(sim, aiw_inference_capacity(sim, NULL, tight_few, 5, out2,
	                                           AIW_CAPACITY_NCOLUMNS, NULL, NULL));
	ck_assert(isnan(out2[AIW_CAPACITY_SERVER_RATE]));
	ck_assert(out2[AIW_CAPACITY_RUNS] == 6);
	/* the configuration is left as it was: it still runs */
	double ts;
	AIW_OK_OR_FAIL(sim, aiw_sim_get_double(sim, "inference.chat.rate", &ts));
	ck_assert(ts == 1.0);
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.duration", "60s"));
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	aiw_sim_free(sim);
}
END_TEST

START_TEST(reproducible_and_stoppable)
{
	const char *set[] = {"min_requests=3000", "duration=60s", "offline_requests=3000"};
	double a[AIW_CAPACITY_NCOLUMNS], b[AIW_CAPACITY_NCOLUMNS], c[AIW_CAPACITY_NCOLUMNS];
	aiw_sim *s1 = load("[inference chat]\nreplicas = 2\n", 11);
	aiw_sim *s2 = load("[inference chat]\nreplicas = 2\n", 11);
	aiw_sim *s3 = load("[inference chat]\nreplicas = 2\n", 12);
	AIW_OK_OR_FAIL(s1, aiw_inference_capacity(s1, NULL, set, 3, a, AIW_CAPACITY_NCOLUMNS, NULL,
	                                          NULL));
	AIW_OK_OR_FAIL(s2, aiw_inference_capacity(s2, NULL, set, 3, b, AIW_CAPACITY_NCOLUMNS, NULL,
	                                          NULL));
	AIW_OK_OR_FAIL(s3, aiw_inference_capacity(s3, NULL, set, 3, c, AIW_CAPACITY_NCOLUMNS, NULL,
	                                          NULL));
	ck_assert(memcmp(a, b, sizeof a) == 0);
	ck_assert(a[AIW_CAPACITY_OFFLINE_OUTPUT_TOKENS_PER_S] != c[AIW_CAPACITY_OFFLINE_OUTPUT_TOKENS_PER_S]);
	/* the same call again on the same handle: the same bits */
	AIW_OK_OR_FAIL(s1, aiw_inference_capacity(s1, NULL, set, 3, b, AIW_CAPACITY_NCOLUMNS, NULL,
	                                          NULL));
	ck_assert(memcmp(a, b, sizeof a) == 0);
	/* a narrower row: the first columns; a wider one: NaN beyond */
	double narrow[3], wide[AIW_CAPACITY_NCOLUMNS + 2];
	AIW_OK_OR_FAIL(s1, aiw_inference_capacity(s1, NULL, set, 3, narrow, 3, NULL, NULL));
	ck_assert(memcmp(a, narrow, sizeof narrow) == 0);
	AIW_OK_OR_FAIL(s1, aiw_inference_capacity(s1, NULL, set, 3, wide, AIW_CAPACITY_NCOLUMNS + 2,
	                                          NULL, NULL));
	ck_assert(isnan(wide[AIW_CAPACITY_NCOLUMNS]) && isnan(wide[AIW_CAPACITY_NCOLUMNS + 1]));
	/* stop after the offline run: its columns filled, the server's NaN */
	rec r = {.stop_after = 1};
	ck_assert_int_eq(aiw_inference_capacity(s1, NULL, set, 3, b, AIW_CAPACITY_NCOLUMNS, record,
	                                        &r),
	                 AIW_ESTOPPED);
	ck_assert(r.n == 1);
	ck_assert(b[AIW_CAPACITY_OFFLINE_REQUESTS_PER_S] == a[AIW_CAPACITY_OFFLINE_REQUESTS_PER_S]);
	ck_assert(isnan(b[AIW_CAPACITY_SERVER_RATE]));
	ck_assert(isnan(b[AIW_CAPACITY_SERVER_RATE_FAILED]));
	ck_assert(strstr(aiw_sim_errmsg(s1), "stopped"));
	aiw_sim_free(s1);
	aiw_sim_free(s2);
	aiw_sim_free(s3);
}
END_TEST

static void refused(aiw_sim *sim, const char *component, const char *setting, aiw_status want,
                    const char *needle)
{
	double out[AIW_CAPACITY_NCOLUMNS];
	const char *set[] = {setting};
	aiw_status st = aiw_inference_capacity(sim, component, set, setting ? 1 : 0, out,
	                                       AIW_CAPACITY_NCOLUMNS, NULL, NULL);
	ck_assert_msg(st == want, "%s: %s (want %s): %s", setting ? setting : "(none)",
	              aiw_status_name(st), aiw_status_name(want), aiw_sim_errmsg(sim));
	ck_assert_msg(strstr(aiw_sim_errmsg(sim), needle), "'%s' lacks '%s'", aiw_sim_errmsg(sim),
	              needle);
	for (size_t i = 0; i < AIW_CAPACITY_NCOLUMNS; i++)
		ck_assert(isnan(out[i]));
}

START_TEST(bad_arguments)
{
	double out[AIW_CAPACITY_NCOLUMNS];
	ck_assert_int_eq(aiw_inference_capacity(NULL, NULL, NULL, 0, out, AIW_CAPACITY_NCOLUMNS,
	                                        NULL, NULL),
	                 AIW_EINVAL);
	aiw_sim *sim = load("[inference a]\nreplicas = 1\n[inference b]\nreplicas = 1\n", 1);
	ck_assert_int_eq(aiw_inference_capacity(sim, "a", NULL, 0, NULL, 3, NULL, NULL),
	                 AIW_EINVAL);
	ck_assert(strstr(aiw_sim_errmsg(sim), "out"));
	ck_assert_int_eq(aiw_inference_capacity(sim, "a", NULL, 2, out, AIW_CAPACITY_NCOLUMNS,
	                                        NULL, NULL),
	                 AIW_EINVAL);
	ck_assert(strstr(aiw_sim_errmsg(sim), "settings"));
	refused(sim, NULL, NULL, AIW_EINVAL, "2 [inference NAME] sections");
	refused(sim, "c", NULL, AIW_EUNKNOWN, "component 'c'");
	refused(sim, "a", "ttft=2s", AIW_EUNKNOWN, "unknown key");
	refused(sim, "a", "ttft_p99", AIW_EPARSE, "ttft_p99=VALUE");
	refused(sim, "a", "ttft_p99=fast", AIW_EPARSE, "ttft_p99=fast");
	refused(sim, "a", "ttft_p99=0", AIW_ERANGE, "ttft_p99 = 0");
	refused(sim, "a", "tpot_p99=-1ms", AIW_ERANGE, "tpot_p99 = -0.001");
	refused(sim, "a", "duration=0", AIW_ERANGE, "duration = 0");
	refused(sim, "a", "min_requests=99", AIW_ERANGE, "min_requests = 99");
	refused(sim, "a", "min_requests=1000.5", AIW_EPARSE, "not an integer");
	refused(sim, "a", "offline_requests=0", AIW_ERANGE, "offline_requests = 0");
	refused(sim, "a", "resolution=2", AIW_ERANGE, "resolution = 2");
	refused(sim, "a", "resolution=nan", AIW_EPARSE, "resolution");
	refused(sim, "a", "max_runs=2", AIW_ERANGE, "max_runs = 2");
	{
		const char *both[] = {"ttft_p99=none", "tpot_p99=none"};
		ck_assert_int_eq(aiw_inference_capacity(sim, "a", both, 2, out,
		                                        AIW_CAPACITY_NCOLUMNS, NULL, NULL),
		                 AIW_EINVAL);
		ck_assert(strstr(aiw_sim_errmsg(sim), "both none"));
	}
	aiw_sim_free(sim);
	sim = load("[site]\npue = 1.2\n", 1);
	refused(sim, NULL, NULL, AIW_ESCENARIO, "0 [inference NAME] sections");
	aiw_sim_free(sim);
	/* a fleet whose every request is too large for its KV cache */
	sim = load("[inference big]\ngpus_per_replica = 1\nprompt_tokens = const(3e6)\n", 1);
	double o[AIW_CAPACITY_NCOLUMNS];
	const char *small[] = {"offline_requests=10", "min_requests=100"};
	aiw_status st = aiw_inference_capacity(sim, NULL, small, 2, o, AIW_CAPACITY_NCOLUMNS, NULL,
	                                       NULL);
	ck_assert_msg(st != AIW_OK, "%s", aiw_status_name(st));
	aiw_sim_free(sim);
}
END_TEST

static bool has_warning(aiw_sim *sim, const char *needle)
{
	size_t n = 0;
	const char *w;
	ck_assert_int_eq(aiw_sim_warning_count(sim, &n), AIW_OK);
	for (size_t i = 0; i < n; i++)
		if (aiw_sim_warning(sim, i, &w) == AIW_OK && strstr(w, needle))
			return true;
	return false;
}

/* What the measurement changes is said: an autoscaler turned off, a
 * trace's sizes replaced by the distributions. */
START_TEST(warnings_say_what_changed)
{
	const char *set[] = {"offline_requests=100", "min_requests=100", "max_runs=3"};
	double out[AIW_CAPACITY_NCOLUMNS];
	aiw_sim *sim = load("[inference q]\nreplicas = 3\nservice = const(1s)\nbatching = none\n"
	                    "autoscaler = hpa\nmax_replicas = 9\n",
	                    1);
	AIW_OK_OR_FAIL(sim, aiw_inference_capacity(sim, NULL, set, 3, out, AIW_CAPACITY_NCOLUMNS,
	                                           NULL, NULL));
	ck_assert(has_warning(sim, "autoscaler hpa turned off"));
	ck_assert(has_warning(sim, "replicas = 3"));
	ck_assert(out[AIW_CAPACITY_OFFLINE_REQUESTS_PER_S] == 100.0 / 34.0); /* 3 replicas */
	aiw_sim_free(sim);
	sim = load("[inference q]\nservice = const(1s)\nbatching = none\n", 1);
	AIW_OK_OR_FAIL(sim, aiw_inference_capacity(sim, NULL, set, 3, out, AIW_CAPACITY_NCOLUMNS,
	                                           NULL, NULL));
	size_t n = 1;
	ck_assert_int_eq(aiw_sim_warning_count(sim, &n), AIW_OK);
	ck_assert(n == 0);
	aiw_sim_free(sim);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("capacity");
	TCase *tc = tcase_create("offline and server");
	tcase_set_timeout(tc, 900);
	tcase_add_test(tc, offline_mdc_exact);
	tcase_add_test(tc, server_mmc_erlang);
	tcase_add_test(tc, bracket_and_resolution);
	tcase_add_test(tc, reproducible_and_stoppable);
	tcase_add_test(tc, bad_arguments);
	tcase_add_test(tc, warnings_say_what_changed);
	suite_add_tcase(s, tc);
	return s;
}

AIW_TEST_MAIN(make_suite)
