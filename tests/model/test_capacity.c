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
 *
 * TPOT: one replica, continuous batching, every request of 1 prompt token
 * and 2 output tokens (its first at its prefill's end, the second after
 * one decode iteration), the iteration model's coefficients set so that a
 * prefill takes p = 1 ns whatever its batch and a decode iteration of n
 * sequences a + b n (decode.overhead = a = 10 ms, decode.seq = b = 1 ms,
 * every other term 0).  A request's TPOT is then the time from its first
 * token to its second: the decode iteration it runs in, a + b R, R the
 * sequences admitted with it.  Arrivals during a cycle (prefill, then the
 * iteration) join at the next boundary; every request of the batch ends
 * with the iteration; an idle replica starts a cycle of one at the next
 * arrival.  So the batch sizes of successive cycles are a Markov chain on
 * R >= 1:
 *   R' = N with N ~ Poisson(lambda (p + a + b R)), and R' = 1 when N = 0,
 * and with pi its stationary law, the fraction of requests whose TPOT
 * exceeds a limit L in (a + b m, a + b (m + 1)) is the fraction of requests
 * in cycles of R > m:
 *   F(lambda) = sum_{R > m} R pi(R) / sum_R R pi(R),
 * increasing in lambda; the search's target is F(lambda) = 0.01 (pi by a
 * linear solve on R <= 300, the tail beyond it lumped: below 1e-30 at the
 * rates met; the root by GSL's Brent).  What the chain leaves out, an
 * arrival during a 1 ns prefill (another prefill before the decode),
 * happens in at most lambda p < 1e-6 of the cycles.  The limit L = a + b
 * (m + 1/2) lies half an iteration step from every TPOT value, so the
 * comparisons are exact.  TTFT has no limit (ttft_p99 = none): TPOT binds.
 */
#include "../testutil.h"

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_roots.h>
#include <gsl/gsl_rstat.h>
#include <gsl/gsl_statistics_double.h>

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

/* The TPOT chain above: a, b, p (s), the threshold m, the tail. */
typedef struct tpot_chain {
	double a, b, p;
	int m;
	double tail;
} tpot_chain;

#define CHAIN_N 300

/* The chain's law at lambda: pi from (P^T - I) pi = 0 with sum pi = 1
 * (the last equation replaced by the sum), states R = 1 .. CHAIN_N; the
 * fraction of requests in cycles of R > m, and the mean and standard
 * deviation of R over requests (a request's cycle: R weighted by R). */
static double chain_law(double lambda, const tpot_chain *c, double *mean_r, double *sd_r)
{
	gsl_matrix *A = gsl_matrix_calloc(CHAIN_N, CHAIN_N);
	gsl_vector *rhs = gsl_vector_calloc(CHAIN_N), *pi = gsl_vector_alloc(CHAIN_N);
	gsl_permutation *perm = gsl_permutation_alloc(CHAIN_N);
	for (int r = 1; r <= CHAIN_N; r++) {
		double mu = lambda * (c->p + c->a + c->b * r), left = 1;
		for (int j = 1; j <= CHAIN_N; j++) {
			double q = gsl_ran_poisson_pdf((unsigned)j, mu);
			if (j == 1)
				q += gsl_ran_poisson_pdf(0, mu); /* idle: a cycle of one */
			if (j == CHAIN_N)
				q = left; /* the tail, lumped */
			left -= q;
			/* row j - 1 of P^T: into state j from state r */
			*gsl_matrix_ptr(A, (size_t)j - 1, (size_t)r - 1) += q;
		}
	}
	for (int j = 0; j < CHAIN_N; j++)
		*gsl_matrix_ptr(A, (size_t)j, (size_t)j) -= 1;
	for (int r = 0; r < CHAIN_N; r++)
		gsl_matrix_set(A, CHAIN_N - 1, (size_t)r, 1);
	gsl_vector_set(rhs, CHAIN_N - 1, 1);
	int sign;
	ck_assert(gsl_linalg_LU_decomp(A, perm, &sign) == GSL_SUCCESS);
	ck_assert(gsl_linalg_LU_solve(A, perm, rhs, pi) == GSL_SUCCESS);
	double all = 0, over = 0, m1 = 0, m2 = 0;
	for (int r = 1; r <= CHAIN_N; r++) {
		double w = r * gsl_vector_get(pi, (size_t)r - 1);
		all += w;
		m1 += w * r;
		m2 += w * r * r;
		if (r > c->m)
			over += w;
	}
	gsl_matrix_free(A);
	gsl_vector_free(rhs);
	gsl_vector_free(pi);
	gsl_permutation_free(perm);
	*mean_r = m1 / all;
	*sd_r = sqrt(m2 / all - *mean_r * *mean_r);
	return over / all;
}

/* F(lambda) - tail */
static double tpot_tail(double lambda, void *par)
{
	double m, sd;
	return chain_law(lambda, par, &m, &sd) - ((const tpot_chain *)par)->tail;
}

static double tpot_capacity(tpot_chain *c)
{
	gsl_function F = {tpot_tail, c};
	gsl_root_fsolver *s = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
	/* F < tail at a tenth of 1 / b, > tail near saturation (lambda b -> 1) */
	gsl_root_fsolver_set(s, &F, 0.1 / c->b, 0.95 / c->b);
	double r = NAN;
	for (int i = 0; i < 200; i++) {
		gsl_root_fsolver_iterate(s);
		r = gsl_root_fsolver_root(s);
		if (gsl_root_test_interval(gsl_root_fsolver_x_lower(s), gsl_root_fsolver_x_upper(s),
		                           0, 1e-10) == GSL_SUCCESS)
			break;
	}
	gsl_root_fsolver_free(s);
	return r;
}

static const char TPOT_FLEET[] =
        "[inference d]\nreplicas = 1\nbatching = continuous\nmax_batch = 4096\n"
        "prompt_tokens = const(1)\noutput_tokens = const(2)\n"
        "prefill.overhead = 1e-9\nprefill.gemm = 0\nprefill.attn = 0\nprefill.mem = 0\n"
        "prefill.comm = 0\nprefill.seq = 0\n"
        "decode.overhead = 0.01\ndecode.gemm = 0\ndecode.attn = 0\ndecode.mem = 0\n"
        "decode.comm = 0\ndecode.seq = 0.001\n";

START_TEST(server_tpot_chain)
{
	tpot_chain c = {0.01, 0.001, 1e-9, 20, 0.01};
	double target = tpot_capacity(&c);
	ck_assert(fabs(tpot_tail(target, &c)) < 1e-9);
	ck_assert(target > 400 && target < 600);
	/* the premise, TPOT = a + b R with R the chain's: a plain run at 20/s
	 * (lambda (a + b) = 0.22: cycles of one and of several), its mean TPOT
	 * against a + b E[R] over requests.  Its standard error: b sd(R) /
	 * sqrt(n) for n independent requests, times sqrt(E[R]) for the requests
	 * of one cycle sharing their R (the design effect of clusters of about
	 * E[R]); 6 of them. */
	{
		aiw_sim *plain = load(TPOT_FLEET, 77);
		AIW_OK_OR_FAIL(plain, aiw_sim_set(plain, "inference.d.rate", "20"));
		AIW_OK_OR_FAIL(plain, aiw_sim_set(plain, "sim.duration", "2000s"));
		AIW_OK_OR_FAIL(plain, aiw_sim_run(plain));
		double n, tpot, er, sdr;
		AIW_OK_OR_FAIL(plain, aiw_sim_metric(plain, "inference.d.requests_completed", &n));
		AIW_OK_OR_FAIL(plain, aiw_sim_metric(plain, "inference.d.tpot_mean_s", &tpot));
		chain_law(20, &c, &er, &sdr);
		double want = c.a + c.b * er, se = c.b * sdr * sqrt(er / n);
		if (getenv("AIW_VERBOSE"))
			printf("TPOT chain at 20/s: mean TPOT %.7g s vs a + b E[R] = %.7g s (se %.2g, "
			       "%.0f requests)\n",
			       tpot, want, se, n);
		ck_assert(n > 30000);
		ck_assert_msg(fabs(tpot - want) <= 6 * se, "mean TPOT %.7g vs %.7g +- 6 x %.2g", tpot,
		              want, se);
		/* and not the TPOT of cycles of one alone: the sharing is seen */
		ck_assert(fabs(tpot - (c.a + c.b)) > 6 * se);
		aiw_sim_free(plain);
	}
	enum { K = 8 };
	const double res = 0.002;
	const char *set[] = {"ttft_p99=none", "tpot_p99=30.5ms", "resolution=0.002",
	                     "offline_requests=1000", "seeds=8"};
	aiw_sim *sim = load(TPOT_FLEET, 500);
	double out[AIW_CAPACITY_NCOLUMNS];
	AIW_OK_OR_FAIL(sim, aiw_inference_capacity(sim, "d", set, 5, out, AIW_CAPACITY_NCOLUMNS,
	                                           NULL, NULL));
	ck_assert(out[AIW_CAPACITY_SEEDS] == K);
	/* offline: 1000 requests prefilled (1 ns) and decoded in one iteration */
	ck_assert_rel(out[AIW_CAPACITY_OFFLINE_REQUESTS_PER_S], 1000 / (1e-9 + 0.01 + 1.0), 1e-9);
	ck_assert(out[AIW_CAPACITY_SERVER_RESOLUTION] <= res);
	ck_assert(out[AIW_CAPACITY_SERVER_TPOT_OVER] <= 0.01);
	/* the median seed's P99 TPOT: a TPOT value a + b n, n <= m */
	ck_assert(out[AIW_CAPACITY_SERVER_TPOT_P99_S] <= 0.0305 * 1.02); /* histogram rounding */
	double mean = out[AIW_CAPACITY_SERVER_RATE_MEAN], sd = out[AIW_CAPACITY_SERVER_RATE_SD];
	double half = gsl_cdf_tdist_Pinv(0.9995, K - 1) * sd / sqrt(K) + res * target;
	if (getenv("AIW_VERBOSE"))
		printf("TPOT chain P99 <= 30.5 ms: %.5g +- %.3g (sd %.3g, min %.5g, max %.5g) vs "
		       "closed form %.6g\n",
		       mean, half, sd, out[AIW_CAPACITY_SERVER_RATE_MIN],
		       out[AIW_CAPACITY_SERVER_RATE_MAX], target);
	ck_assert_msg(fabs(mean - target) <= half, "search %.6g +- %.3g vs closed form %.6g", mean,
	              half, target);
	ck_assert_msg(sd > 0 && half < 0.02 * target, "interval %.3g too wide", half);
	/* and not the answer of the next threshold (m = 19, L one step lower),
	 * nor of the P98: the test tells them apart */
	tpot_chain c19 = {0.01, 0.001, 1e-9, 19, 0.01}, c98 = {0.01, 0.001, 1e-9, 20, 0.02};
	ck_assert(fabs(mean - tpot_capacity(&c19)) > half);
	ck_assert(fabs(mean - tpot_capacity(&c98)) > half);
	aiw_sim_free(sim);
}
END_TEST

typedef struct rec {
	size_t n;
	double rate[128];
	int verdict[128];
	size_t stop_after;
	size_t max_runs; /* as the callback was told */
} rec;

static int record(size_t done, size_t max_runs, double rate, int verdict, void *payload)
{
	rec *r = payload;
	ck_assert(done == r->n + 1 && done <= max_runs);
	ck_assert(r->n == 0 || max_runs == r->max_runs);
	r->max_runs = max_runs;
	if (r->n < 128) {
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
	/* a TPOT limit under any decode iteration: the fleet misses it without
	 * load, refused before any search with the reason and the figure */
	const char *tight[] = {"min_requests=200", "duration=10s", "offline_requests=200",
	                       "tpot_p99=1us"};
	ck_assert_int_eq(aiw_inference_capacity(sim, NULL, tight, 4, out2, AIW_CAPACITY_NCOLUMNS,
	                                        NULL, NULL),
	                 AIW_ERANGE);
	const char *msg = aiw_sim_errmsg(sim);
	ck_assert_msg(strstr(msg, "misses the limits (tpot_p99 = 0.001 ms) without load: P99 TPOT"),
	              "%s", msg);
	ck_assert_msg(strstr(msg, "no arrival rate meets them"), "%s", msg);
	ck_assert(isnan(out2[AIW_CAPACITY_SERVER_RATE]));
	ck_assert(out2[AIW_CAPACITY_OFFLINE_REQUESTS_PER_S] > 0); /* measured before */
	/* the same whatever the runs allowed */
	const char *tight_few[] = {"min_requests=200", "duration=10s", "offline_requests=200",
	                           "tpot_p99=1us", "max_runs=6"};
	ck_assert_int_eq(aiw_inference_capacity(sim, NULL, tight_few, 5, out2,
	                                        AIW_CAPACITY_NCOLUMNS, NULL, NULL),
	                 AIW_ERANGE);
	/* a TTFT limit under the unloaded prefill of the longest prompts */
	const char *ttft[] = {"min_requests=200", "duration=10s", "offline_requests=200",
	                      "ttft_p99=1ms", "tpot_p99=none"};
	ck_assert_int_eq(aiw_inference_capacity(sim, NULL, ttft, 5, out2, AIW_CAPACITY_NCOLUMNS,
	                                        NULL, NULL),
	                 AIW_ERANGE);
	msg = aiw_sim_errmsg(sim);
	ck_assert_msg(strstr(msg, "(ttft_p99 = 1 ms) without load: P99 TTFT"), "%s", msg);
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

static double rstat_mean(const double *x, size_t n)
{
	gsl_rstat_workspace *w = gsl_rstat_alloc();
	for (size_t i = 0; i < n; i++)
		gsl_rstat_add(x[i], w);
	double m = gsl_rstat_mean(w);
	gsl_rstat_free(w);
	return m;
}

/* seeds=N: seeds=1 is the call without it, bit for bit; seeds=3 is three
 * calls with sim.seed set by hand to s, s + 1, s + 2: its statistics are
 * theirs (the mean by GSL's running update, as the call computes it:
 * exactly), its row the
 * median seed's, its runs their sum, and the progress counts every run. */
START_TEST(seeds_summarise_hand_runs)
{
	static const char FLEET[] = "[inference chat]\nreplicas = 2\n";
	const char *base[] = {"min_requests=3000", "duration=60s", "offline_requests=3000"};
	const char *one[] = {"min_requests=3000", "duration=60s", "offline_requests=3000",
	                     "seeds=1"};
	const char *three[] = {"min_requests=3000", "duration=60s", "offline_requests=3000",
	                       "seeds=3"};
	double a[AIW_CAPACITY_NCOLUMNS], b[AIW_CAPACITY_NCOLUMNS], m[AIW_CAPACITY_NCOLUMNS];
	double hand[3][AIW_CAPACITY_NCOLUMNS];
	aiw_sim *sim = load(FLEET, 21);
	AIW_OK_OR_FAIL(sim, aiw_inference_capacity(sim, NULL, base, 3, a, AIW_CAPACITY_NCOLUMNS,
	                                           NULL, NULL));
	AIW_OK_OR_FAIL(sim, aiw_inference_capacity(sim, NULL, one, 4, b, AIW_CAPACITY_NCOLUMNS,
	                                           NULL, NULL));
	ck_assert(memcmp(a, b, sizeof a) == 0);
	/* one seed: its rate is the mean, min and max; no spread */
	ck_assert(a[AIW_CAPACITY_SEEDS] == 1);
	ck_assert(a[AIW_CAPACITY_SERVER_RATE_MEAN] == a[AIW_CAPACITY_SERVER_RATE]);
	ck_assert(a[AIW_CAPACITY_SERVER_RATE_MIN] == a[AIW_CAPACITY_SERVER_RATE]);
	ck_assert(a[AIW_CAPACITY_SERVER_RATE_MAX] == a[AIW_CAPACITY_SERVER_RATE]);
	ck_assert(isnan(a[AIW_CAPACITY_SERVER_RATE_SD]) && isnan(a[AIW_CAPACITY_SERVER_RATE_CI_LO]));
	ck_assert(a[AIW_CAPACITY_OFFLINE_REQUESTS_PER_S_MEAN] ==
	          a[AIW_CAPACITY_OFFLINE_REQUESTS_PER_S]);
	rec r = {0};
	AIW_OK_OR_FAIL(sim, aiw_inference_capacity(sim, NULL, three, 4, m, AIW_CAPACITY_NCOLUMNS,
	                                           record, &r));
	double rates[3], offl[3], runs = 0;
	for (int k = 0; k < 3; k++) {
		aiw_sim *h = load(FLEET, 1);
		char seed[32];
		snprintf(seed, sizeof seed, "%d", 21 + k);
		AIW_OK_OR_FAIL(h, aiw_sim_set(h, "sim.seed", seed));
		AIW_OK_OR_FAIL(h, aiw_inference_capacity(h, NULL, base, 3, hand[k],
		                                         AIW_CAPACITY_NCOLUMNS, NULL, NULL));
		rates[k] = hand[k][AIW_CAPACITY_SERVER_RATE];
		offl[k] = hand[k][AIW_CAPACITY_OFFLINE_REQUESTS_PER_S];
		runs += hand[k][AIW_CAPACITY_RUNS];
		aiw_sim_free(h);
	}
	/* seed 21 by hand is the first call's */
	ck_assert(memcmp(hand[0], a, sizeof a) == 0);
	/* the seeds differ: the spread is real */
	ck_assert(rates[0] != rates[1] || rates[1] != rates[2]);
	ck_assert(m[AIW_CAPACITY_SEEDS] == 3);
	ck_assert(m[AIW_CAPACITY_RUNS] == runs && r.n == runs);
	double mean = m[AIW_CAPACITY_SERVER_RATE_MEAN];
	/* exactly GSL's running mean of the three (rstat, as the call computes
	 * it), and their plain mean to the last bits */
	ck_assert(mean == rstat_mean(rates, 3));
	ck_assert_rel(mean, (rates[0] + rates[1] + rates[2]) / 3, 1e-15);
	ck_assert(mean >= m[AIW_CAPACITY_SERVER_RATE_MIN] && mean <= m[AIW_CAPACITY_SERVER_RATE_MAX]);
	ck_assert(m[AIW_CAPACITY_SERVER_RATE_MIN] == gsl_stats_min(rates, 1, 3));
	ck_assert(m[AIW_CAPACITY_SERVER_RATE_MAX] == gsl_stats_max(rates, 1, 3));
	ck_assert_rel(m[AIW_CAPACITY_SERVER_RATE_SD], gsl_stats_sd(rates, 1, 3), 1e-12);
	double half = gsl_cdf_tdist_Pinv(0.975, 2) * gsl_stats_sd(rates, 1, 3) / sqrt(3);
	ck_assert_rel(m[AIW_CAPACITY_SERVER_RATE_CI_LO], mean - half, 1e-12);
	ck_assert_rel(m[AIW_CAPACITY_SERVER_RATE_CI_HI], mean + half, 1e-12);
	ck_assert(m[AIW_CAPACITY_OFFLINE_REQUESTS_PER_S_MEAN] == rstat_mean(offl, 3));
	ck_assert(m[AIW_CAPACITY_OFFLINE_REQUESTS_PER_S_MIN] == gsl_stats_min(offl, 1, 3));
	ck_assert(m[AIW_CAPACITY_OFFLINE_REQUESTS_PER_S_MAX] == gsl_stats_max(offl, 1, 3));
	ck_assert_rel(m[AIW_CAPACITY_OFFLINE_REQUESTS_PER_S_SD], gsl_stats_sd(offl, 1, 3), 1e-12);
	/* the row is the median seed's: its columns bit for bit but the runs */
	int med = 0;
	for (int k = 0; k < 3; k++) {
		int below = 0, above = 0;
		for (int j = 0; j < 3; j++)
			if (j != k) {
				below += rates[j] < rates[k] || (rates[j] == rates[k] && j < k);
				above += !(rates[j] < rates[k] || (rates[j] == rates[k] && j < k));
			}
		if (below == 1 && above == 1)
			med = k;
	}
	ck_assert(memcmp(m, hand[med], AIW_CAPACITY_RUNS * sizeof(double)) == 0);
	/* progress: every run counted, of at most 3 x max_runs */
	ck_assert(r.verdict[0] == -1 && r.max_runs == 3 * 40);
	size_t first = (size_t)hand[0][AIW_CAPACITY_RUNS];
	ck_assert(r.verdict[first] == -1 && r.rate[first] == offl[1]);
	/* stopped in the second seed: the first one's row and statistics */
	rec stop = {.stop_after = first + 1};
	ck_assert_int_eq(aiw_inference_capacity(sim, NULL, three, 4, b, AIW_CAPACITY_NCOLUMNS,
	                                        record, &stop),
	                 AIW_ESTOPPED);
	ck_assert(b[AIW_CAPACITY_SEEDS] == 1 && b[AIW_CAPACITY_RUNS] == first + 1);
	ck_assert(memcmp(b, a, AIW_CAPACITY_RUNS * sizeof(double)) == 0);
	ck_assert(b[AIW_CAPACITY_SERVER_RATE_MEAN] == a[AIW_CAPACITY_SERVER_RATE]);
	aiw_sim_free(sim);
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
	refused(sim, "a", "seeds=0", AIW_ERANGE, "seeds = 0 (seeds measured) out of range: an "
	                                         "integer from 1 to 1000");
	refused(sim, "a", "seeds=1001", AIW_ERANGE, "seeds = 1001");
	refused(sim, "a", "seeds=-3", AIW_ERANGE, "seeds = -3");
	refused(sim, "a", "seeds=2.5", AIW_EPARSE,
	        "setting 'seeds=2.5': '2.5' is not an integer (seeds: an integer from 1 to 1000)");
	refused(sim, "a", "seeds=many", AIW_EPARSE, "seeds=many");
	refused(sim, "a", "seeds", AIW_EPARSE, "seeds=VALUE");
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
	ck_assert(aiwi_test_warned(sim, "autoscaler hpa turned off"));
	ck_assert(aiwi_test_warned(sim, "replicas = 3"));
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

/* A prefill pool is measured with its decode pool: the offline requests
 * complete once each across the pair (N, and N x output tokens: the first
 * token the prefill pool's, the rest the decode pool's), the server rate
 * grows with the decode pool's replicas (it bounds the pair), and a decode
 * pool alone is refused, naming its prefill pool. */
#define PAIR                                                                                       \
	"[inference p]\ngpus_per_replica = 1\nreplicas = 1\nmodel_params = 8e9\n"                 \
	"prompt_tokens = const(512)\noutput_tokens = const(%d)\ndisaggregation = prefill\n"        \
	"decode_fleet = d\n[inference d]\ngpus_per_replica = 1\nreplicas = %d\n"                  \
	"model_params = 8e9\nmax_batch = 16\ndisaggregation = decode\n"

START_TEST(disaggregated_pair)
{
	const char *set[] = {"offline_requests=2000", "min_requests=4000", "duration=60s",
	                     "tpot_p99=30ms"};
	double out[2][AIW_CAPACITY_NCOLUMNS];
	for (int k = 0; k < 2; k++) {
		char text[1024];
		snprintf(text, sizeof text, PAIR, 300, 1 + 2 * k);
		aiw_sim *sim = load(text, 1);
		AIW_OK_OR_FAIL(sim, aiw_inference_capacity(sim, "p", set, 4, out[k],
		                                           AIW_CAPACITY_NCOLUMNS, NULL, NULL));
		ck_assert(out[k][AIW_CAPACITY_OFFLINE_REQUESTS] == 2000);
		ck_assert_rel(out[k][AIW_CAPACITY_OFFLINE_OUTPUT_TOKENS_PER_S] *
		                      out[k][AIW_CAPACITY_OFFLINE_MAKESPAN_S],
		              2000.0 * 300, 1e-12);
		ck_assert(out[k][AIW_CAPACITY_SERVER_RATE] > 0);
		ck_assert(out[k][AIW_CAPACITY_SERVER_TPOT_P99_S] <= 0.030);
		if (k == 0)
			refused(sim, "d", NULL, AIW_EINVAL,
			        "inference.d is a decode pool (disaggregation = decode): it receives no "
			        "traffic of its own; measure its prefill pool inference.p");
		aiw_sim_free(sim);
	}
	ck_assert_msg(out[1][AIW_CAPACITY_SERVER_RATE] > 1.5 * out[0][AIW_CAPACITY_SERVER_RATE],
	              "1 decode replica: %g/s, 3: %g/s", out[0][AIW_CAPACITY_SERVER_RATE],
	              out[1][AIW_CAPACITY_SERVER_RATE]);
}
END_TEST

/* Conversations have no offline figure (NaN); the server search still
 * runs, and a seed gives the same answer twice. */
START_TEST(conversations_server_only)
{
	const char *set[] = {"offline_requests=500", "min_requests=3000", "duration=60s"};
	double a[AIW_CAPACITY_NCOLUMNS], b[AIW_CAPACITY_NCOLUMNS];
	static const char text[] = "[inference c]\ngpus_per_replica = 1\nreplicas = 1\n"
	                           "model_params = 8e9\nsessions = on\nprefix_caching = on\n"
	                           "session_turns = const(3)\nthink_time = exp(10s)\n";
	aiw_sim *sim = load(text, 3);
	AIW_OK_OR_FAIL(sim, aiw_inference_capacity(sim, NULL, set, 3, a, AIW_CAPACITY_NCOLUMNS,
	                                           NULL, NULL));
	AIW_OK_OR_FAIL(sim, aiw_inference_capacity(sim, NULL, set, 3, b, AIW_CAPACITY_NCOLUMNS,
	                                           NULL, NULL));
	for (int i = AIW_CAPACITY_OFFLINE_REQUESTS_PER_S; i <= AIW_CAPACITY_OFFLINE_REQUESTS; i++)
		ck_assert(isnan(a[i]));
	ck_assert(a[AIW_CAPACITY_SERVER_RATE] > 0 && isfinite(a[AIW_CAPACITY_SERVER_RATE]));
	for (int i = AIW_CAPACITY_OFFLINE_REQUESTS_PER_S; i < AIW_CAPACITY_RUNS; i++)
		ck_assert(a[i] == b[i] || (isnan(a[i]) && isnan(b[i])));
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
	tcase_add_test(tc, server_tpot_chain);
	tcase_add_test(tc, bracket_and_resolution);
	tcase_add_test(tc, reproducible_and_stoppable);
	tcase_add_test(tc, seeds_summarise_hand_runs);
	tcase_add_test(tc, bad_arguments);
	tcase_add_test(tc, warnings_say_what_changed);
	tcase_add_test(tc, disaggregated_pair);
	tcase_add_test(tc, conversations_server_only);
	suite_add_tcase(s, tc);
	return s;
}

AIW_TEST_MAIN(make_suite)
