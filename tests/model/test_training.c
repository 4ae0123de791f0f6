/* test_training.c - the training model against closed forms: the sampled
 * maximum of N iid draws, all-reduce times through the step, exact energy
 * by phase, Poisson failures, Daly's checkpoint interval, the Kokolis et al.
 * first-order ETTR, the Llama 3 interruption figure, reproducibility, and
 * the scaling study. */
#include "core/internal.h"
#include "../testutil.h"

#include <stdarg.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_integration.h>
#include <gsl/gsl_math.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_sf_psi.h>
#include <gsl/gsl_sort.h>

#define EULER 0.57721566490153286061
/* No exposed communication: 0 bytes over a binomial tree costs 2 log2(N)
 * latencies (under 1 ms up to N = 1e7), hidden behind the compute. */
#define NOCOMM "grad_bytes_per_param=0\nallreduce=tree\noverlap=1\n"

/* ------------------------------------------------------------------------ */
/* helpers                                                                   */
/* ------------------------------------------------------------------------ */
static aiw_sim *load(uint64_t seed, const char *fmt, ...) AIW_PRINTF(2, 3);
static aiw_sim *load(uint64_t seed, const char *fmt, ...)
{
	char text[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	aiw_sim *sim;
	ck_assert_int_eq(aiw_sim_create(&sim, seed), AIW_OK);
	AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim, text, "test.ini"));
	return sim;
}

static double M(aiw_sim *sim, const char *key)
{
	char n[256];
	snprintf(n, sizeof n, "training.t.%s", key);
	return aiwi_test_metric(sim, n);
}

static double catalog(const char *gpu, const char *field)
{
	double v = NAN;
	ck_assert_int_eq(aiw_catalog_gpu_value(gpu, field, &v), AIW_OK);
	return v;
}

/* Copy a curve into a new buffer (caller frees); *n gets its length. */
static double *curve(aiw_sim *sim, const char *name, double **t, size_t *n)
{
	AIW_OK_OR_FAIL(sim, aiw_sim_series_length(sim, name, n));
	double *v = malloc(*n * sizeof *v);
	double *tt = malloc(*n * sizeof *tt);
	ck_assert(v && tt);
	size_t got;
	AIW_OK_OR_FAIL(sim, aiw_sim_series_copy(sim, name, tt, v, *n, &got));
	ck_assert_uint_eq(got, *n);
	if (t)
		*t = tt;
	else
		free(tt);
	return v;
}

/* E[max of N standard normals] and E[max^2]: integrals of x^k N phi(x)
 * Phi(x)^(N-1) over the real line (gsl_integration_qagi).  Phi^(N-1) is
 * exp((N-1) log Phi), with log Phi = log1p(-Q) for x > 0 (no cancellation
 * where Phi is near 1). */
typedef struct {
	double N;
	int k;
} maxpar;

static double max_density(double x, void *p)
{
	const maxpar *m = p;
	double logphi = x > 0 ? log1p(-gsl_cdf_ugaussian_Q(x)) : log(gsl_cdf_ugaussian_P(x));
	double f = m->N * gsl_ran_ugaussian_pdf(x) * exp((m->N - 1) * logphi);
	return m->k == 1 ? x * f : x * x * f;
}

static double normal_max_moment(double N, int k)
{
	gsl_integration_workspace *w = gsl_integration_workspace_alloc(2000);
	maxpar p = {N, k};
	gsl_function f = {max_density, &p};
	double r, err;
	int st = gsl_integration_qagi(&f, 1e-12, 1e-11, 2000, w, &r, &err);
	gsl_integration_workspace_free(w);
	ck_assert_msg(st == 0 && err < 1e-8, "qagi N=%g: status %d err %g", N, st, err);
	return r;
}

/* ------------------------------------------------------------------------ */
/* the maximum of N iid draws                                                */
/* ------------------------------------------------------------------------ */
START_TEST(max_normal_mean)
{
	/* the integration itself against the published figures of aiworkload(7) "Training" (3
	 * decimals: +-5e-4) */
	ck_assert(fabs(normal_max_moment(1e3, 1) - 3.241) <= 5e-4);
	ck_assert(fabs(normal_max_moment(1e5, 1) - 4.384) <= 5e-4);
	aiwi_dist *d;
	char e[256];
	ck_assert(aiwi_dist_parse("normal(0,1)", AIW_PT_REAL, "", &d, e, sizeof e) == AIW_OK);
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, 4);
	const double Ns[] = {10, 1e3, 1e5};
	for (size_t j = 0; j < 3; j++) {
		double N = Ns[j], m1 = normal_max_moment(N, 1), m2 = normal_max_moment(N, 2);
		double sd = sqrt(m2 - m1 * m1);
		/* K draws: the sample mean is within 5 standard errors sd/sqrt(K)
		 * (a false alarm has probability 6e-7) */
		const size_t K = 200000;
		double s = 0;
		for (size_t i = 0; i < K; i++)
			s += aiwi_dist_sample_max(d, r, N);
		double mean = s / (double)K, se = sd / sqrt((double)K);
		ck_assert_msg(fabs(mean - m1) <= 5 * se, "N=%g: mean %.6f vs exact %.6f (se %.2g)", N,
		              mean, m1, se);
	}
	gsl_rng_free(r);
	aiwi_dist_free(d);
}
END_TEST

START_TEST(max_normal_ks)
{
	/* Kolmogorov-Smirnov: K draws of the max of N vs F^N = Phi^N.  Critical
	 * value at alpha = 0.001 with Stephens' finite-K correction:
	 * D > 1.9495 / (sqrt(K) + 0.12 + 0.11 / sqrt(K)) rejects. */
	aiwi_dist *d;
	char e[256];
	ck_assert(aiwi_dist_parse("normal(0,1)", AIW_PT_REAL, "", &d, e, sizeof e) == AIW_OK);
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, 5);
	const size_t K = 20000;
	double *x = malloc(K * sizeof *x);
	const double Ns[] = {10, 1e3, 1e5, 1e7};
	double sk = sqrt((double)K), crit = 1.9495 / (sk + 0.12 + 0.11 / sk);
	for (size_t j = 0; j < 4; j++) {
		double N = Ns[j];
		for (size_t i = 0; i < K; i++)
			x[i] = aiwi_dist_sample_max(d, r, N);
		gsl_sort(x, 1, K);
		double D = 0;
		for (size_t i = 0; i < K; i++) {
			double F = exp(N * log1p(-gsl_cdf_ugaussian_Q(x[i])));
			D = fmax(D, fmax((double)(i + 1) / (double)K - F, F - (double)i / (double)K));
		}
		ck_assert_msg(D < crit, "N=%g: KS D = %.5f >= %.5f", N, D, crit);
	}
	/* and the test can fail: the max of N draws is not distributed as the
	 * max of 2N */
	for (size_t i = 0; i < K; i++)
		x[i] = aiwi_dist_sample_max(d, r, 2e3);
	gsl_sort(x, 1, K);
	double D = 0;
	for (size_t i = 0; i < K; i++) {
		double F = exp(1e3 * log1p(-gsl_cdf_ugaussian_Q(x[i])));
		D = fmax(D, fmax((double)(i + 1) / (double)K - F, F - (double)i / (double)K));
	}
	ck_assert_msg(D > crit, "KS does not tell N from 2N: D = %.5f", D);
	free(x);
	gsl_rng_free(r);
	aiwi_dist_free(d);
}
END_TEST

/* Through the model: jitter normal(1, s) on N GPUs, no communication, a
 * 1 s nominal compute: E[step] = 1 + s E[max of N standard normals]. */
START_TEST(model_normal_max)
{
	const double N = 1000, sig = 0.05;
	const double K = 20000;
	aiw_sim *sim = load(11,
	                    "[sim]\nduration=100000s\nsample_interval=1h\n"
	                    "[training t]\ngpus=%g\nstep_compute=1s\ngrad_bytes_per_param=0\n"
	                    "jitter=normal(1,%g)\nmax_steps=%g\n",
	                    N, sig, K);
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert(M(sim, "steps") == K);
	double m1 = normal_max_moment(N, 1), m2 = normal_max_moment(N, 2);
	double se = sig * sqrt(m2 - m1 * m1) / sqrt(K);
	double mean = M(sim, "step_time_mean_s");
	ck_assert_msg(fabs(mean - (1 + sig * m1)) <= 5 * se, "mean step %.6f vs %.6f (se %.2g)", mean,
	              1 + sig * m1, se);
	/* the straggler wait is all the time above the nominal compute */
	ck_assert_rel(M(sim, "straggler_wait_s"), (mean - 1) * K, 1e-9);
	ck_assert_rel(M(sim, "compute_s"), K, 1e-12);
	ck_assert_rel(M(sim, "straggler_slowdown"), mean, 1e-12);
	aiw_sim_free(sim);
}
END_TEST

/* Exponential jitter of mean 1/lambda: E[max of N] = H_N / lambda, H_N =
 * psi(N + 1) + gamma; Var = sum 1/k^2 / lambda^2 < (pi^2/6) / lambda^2. */
START_TEST(exponential_harmonic)
{
	const double Ns[] = {1000, 1e7};
	const double K = 20000, mean_m = 0.25;
	for (size_t j = 0; j < 2; j++) {
		double N = Ns[j];
		aiw_sim *sim = load(12,
		                    "[sim]\nduration=1000000s\nsample_interval=1h\n"
		                    "[training t]\ngpus=%g\nstep_compute=2s\n%s"
		                    "jitter=exp(%g)\nmax_steps=%g\n",
		                    N, NOCOMM, mean_m, K);
		AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
		double H = gsl_sf_psi(N + 1) + EULER;
		double want = 2 * H * mean_m, se = 2 * mean_m * M_PI / sqrt(6) / sqrt(K);
		double got = M(sim, "step_time_mean_s");
		ck_assert_msg(fabs(got - want) <= 5 * se, "N=%g: mean step %.5f vs 2 H_N mean %.5f", N,
		              got, want);
		aiw_sim_free(sim);
	}
}
END_TEST

/* ------------------------------------------------------------------------ */
/* all-reduce through the step                                               */
/* ------------------------------------------------------------------------ */
static double ring_cf(double S, double p, double a, double bw)
{
	return p <= 1 ? 0 : 2 * (p - 1) * a + 2 * (p - 1) / p * S / bw;
}

START_TEST(allreduce_closed_forms)
{
	/* H100: 64 GPUs on 8 nodes; S = 7e9 params x 2 B.  No jitter: the step
	 * time is exactly compute + max(0, t_comm - overlap x compute). */
	const char *g = "H100-SXM";
	double ai = catalog(g, "nvlink_latency_s"), bi = catalog(g, "nvlink_bw");
	double ae = catalog(g, "nic_latency_s"), be = catalog(g, "nic_bw");
	const double P = 7e9, S = 2 * P, p = 64, gpn = 8, tc = 0.8, ov = 0.25;
	const char *algos[] = {"ring", "tree", "hierarchical"};
	double want0[3] = {0};
	for (int deg = 0; deg < 2; deg++) {
		double f = deg ? 0.4 : 1;
		double L = 6; /* ceil(log2 64) */
		double a = fmax(ai, ae), bw = fmin(bi, be);
		double want[3] = {
			2 * (p - 1) * a + 2 * (p - 1) / p * S / (f * bw),
			2 * L * a + 2 * (L - 1 + 1 / f) * S / bw,
			ring_cf(S, gpn, ai, bi) + ring_cf(S / gpn, p / gpn, ae, f * be),
		};
		for (int k = 0; k < 3; k++) {
			aiw_sim *sim = load(1,
			                    "[sim]\nduration=1h\nsample_interval=10min\n"
			                    "[training t]\ngpus=%g\ngpus_per_node=%g\nmodel_params=%g\n"
			                    "step_compute=%gs\noverlap=%g\nallreduce=%s\n"
			                    "degraded_links=%d\ndegraded_link_factor=%g\n",
			                    p, gpn, P, tc, ov, algos[k], deg, f);
			AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
			double step = tc + fmax(0, want[k] - ov * tc);
			ck_assert_rel(M(sim, "allreduce_s"), want[k], 1e-14);
			ck_assert_rel(M(sim, "step_time_mean_s"), step, 1e-12);
			/* nearest-rank quantile from a 0.1%-relative histogram */
			ck_assert_rel(M(sim, "step_time_p99_s"), step, 1e-3);
			/* completed steps, and part of the one in progress at the end */
			double ec = M(sim, "exposed_comm_s"), nst = M(sim, "steps");
			ck_assert(ec >= nst * (step - tc) * (1 - 1e-12));
			ck_assert(ec <= (nst + 1) * (step - tc) * (1 + 1e-12));
			/* nccl-tests bus bandwidth = algbw x 2(p-1)/p */
			ck_assert_rel(M(sim, "allreduce_busbw_bytes_per_s"),
			              S / want[k] * 2 * (p - 1) / p, 1e-14);
			/* the public collective function agrees */
			double t2;
			ck_assert_int_eq(aiw_allreduce_time(algos[k], S, p, gpn, ai, bi, ae, be, f, &t2),
			                 AIW_OK);
			ck_assert_rel(t2, want[k], 1e-14);
			/* straggler slowdown: the degraded link is a slow part */
			if (!deg)
				want0[k] = want[k];
			double base = tc + fmax(0, want0[k] - ov * tc);
			ck_assert_rel(M(sim, "straggler_slowdown"), step / base, 1e-12);
			aiw_sim_free(sim);
		}
	}
	/* overlap 1 hides a short all-reduce entirely */
	aiw_sim *sim = load(1,
	                    "[sim]\nduration=10min\n[training t]\ngpus=16\nmodel_params=1e8\n"
	                    "step_compute=1s\noverlap=1\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert(M(sim, "allreduce_s") < 1);
	ck_assert(M(sim, "step_time_mean_s") == 1.0);
	ck_assert(M(sim, "exposed_comm_s") == 0.0);
	aiw_sim_free(sim);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* one slow card slows the whole cluster                                      */
/* ------------------------------------------------------------------------ */
START_TEST(one_slow_gpu)
{
	const double s = 1.37, Ns[] = {2, 8, 1000, 1e5, 1e7};
	for (size_t j = 0; j < 5; j++) {
		aiw_sim *sim = load(3,
		                    "[sim]\nduration=1h\nsample_interval=10min\n"
		                    "[training t]\ngpus=%g\nstep_compute=1s\n%s"
		                    "slow_gpus=1\nslow_factor=%g\nmemory_check=warn\n",
		                    Ns[j], NOCOMM, s);
		AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
		/* no jitter: every step computes exactly s x nominal */
		ck_assert_rel(M(sim, "step_time_mean_s"), s, 1e-12);
		ck_assert_rel(M(sim, "straggler_slowdown"), s, 1e-12);
		/* whole steps, and part of the one in progress at the end */
		double wt = M(sim, "straggler_wait_s"), nst = M(sim, "steps");
		ck_assert(wt >= (s - 1) * nst * (1 - 1e-12) && wt <= (s - 1) * (nst + 1));
		aiw_sim_free(sim);
	}
	/* with jitter lognormal(0, 0.03) the slowest is at least the slow
	 * card: E[step compute] >= s E[M] = s exp(sigma^2/2) > s; the sample
	 * mean of K steps falls below s (E[M] - 5 sigma / sqrt(K)) with
	 * probability < 3e-7 */
	const double K = 10000, sig = 0.03;
	for (size_t j = 0; j < 5; j++) {
		aiw_sim *sim = load(4,
		                    "[sim]\nduration=100000s\nsample_interval=1h\n"
		                    "[training t]\ngpus=%g\nstep_compute=1s\n%s"
		                    "slow_gpus=1\nslow_factor=%g\njitter=lognormal(0,%g)\nmax_steps=%g\n"
		                    "memory_check=warn\n",
		                    Ns[j], NOCOMM, s, sig, K);
		AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
		double floor_ = s * (exp(sig * sig / 2) - 5 * sig / sqrt(K));
		ck_assert_msg(M(sim, "step_time_mean_s") >= floor_, "N=%g: mean step %.5f < %.5f",
		              Ns[j], M(sim, "step_time_mean_s"), floor_);
		aiw_sim_free(sim);
	}
}
END_TEST

/* ------------------------------------------------------------------------ */
/* energy by phase                                                           */
/* ------------------------------------------------------------------------ */
START_TEST(energy_exact)
{
	/* 16 H100 on 2 nodes, no jitter, one slow GPU at 1.25, a 0.5 s exposed
	 * all-reduce (given by the model; read back), checkpoints of 10 s every
	 * 100 s, stop after 1000 steps.  Per step: 15 GPUs compute 1 s then
	 * wait 0.25 s at idle, the slow one computes 1.25 s, all 16 communicate
	 * at comm_w; checkpoints at idle; nodes at node_overhead throughout. */
	const char *g = "H100-SXM";
	double cw = catalog(g, "compute_w"), iw = catalog(g, "idle_w"), mw = catalog(g, "comm_w");
	const double N = 16, s = 1.25, over = 1500;
	aiw_sim *sim = load(1,
	                    "[sim]\nduration=2h\nsample_interval=100ms\n"
	                    "[training t]\ngpus=%g\nmodel_params=1e9\nstep_compute=1s\noverlap=0\n"
	                    "slow_gpus=1\nslow_factor=%g\ncheckpoint_interval=100s\n"
	                    "checkpoint_time=10s\nmax_steps=1000\nnode_overhead=%gW\n",
	                    N, s, over);
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	double e = M(sim, "allreduce_s"), steps = M(sim, "steps"), ck = M(sim, "checkpoints");
	ck_assert(steps == 1000);
	ck_assert(ck > 0);
	double wall = steps * (s + e) + ck * 10;
	ck_assert_rel(M(sim, "wall_s"), wall, 1e-12);
	double step_j = (N - 1) * (cw * 1 + iw * (s - 1)) + cw * s + N * mw * e;
	double want = steps * step_j + ck * N * iw * 10 + 2 * over * wall;
	ck_assert_rel(M(sim, "energy_kwh"), want / 3.6e6, 1e-12);
	/* the curve at 100 ms integrates to it and shows each phase's level */
	size_t n;
	double *t, *v = curve(sim, "training.t.power_w", &t, &n);
	double sum = 0, lo = INFINITY, hi = 0;
	for (size_t i = 0; i < n; i++) {
		sum += v[i] * (t[i] - (i ? t[i - 1] : 0));
		if (t[i] <= wall - 1) {
			lo = fmin(lo, v[i]);
			hi = fmax(hi, v[i]);
		}
	}
	ck_assert_rel(sum / 3.6e6, M(sim, "energy_kwh"), 1e-9);
	ck_assert_rel(hi, N * cw + 2 * over, 1e-9);         /* all computing */
	ck_assert_rel(lo, N * iw + 2 * over, 1e-9);         /* checkpoint */
	ck_assert(v[n - 1] == 0);                           /* released */
	free(v);
	free(t);
	/* utilisation = compute GPU-seconds / paid GPU-seconds: per step 15
	 * GPUs x 1 s + the slow one's 1.25 s */
	v = curve(sim, "training.t.utilization", &t, &n);
	double busy = 0;
	for (size_t i = 0; i < n; i++) {
		double t0 = i ? t[i - 1] : 0;
		busy += v[i] * N * (fmin(t[i], wall) - fmin(t0, wall));
	}
	ck_assert_rel(busy, steps * ((N - 1) + s), 1e-9);
	free(v);
	free(t);
	aiw_sim_free(sim);

	/* synchronisation dips at 100 ms, a plateau at 10 min: 20e9 params
	 * (40 GB of gradients, about 0.26 s of exposed all-reduce per 1 s step),
	 * no checkpoints, no node overhead */
	const char *dips = "[sim]\nduration=1h\nsample_interval=100ms\n"
	                   "[training t]\ngpus=16\nmodel_params=20e9\nstep_compute=1s\n"
	                   "overlap=0\ncheckpoint_interval=none\nnode_overhead=0W\n";
	sim = load(1, "%s", dips);
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	e = M(sim, "allreduce_s");
	ck_assert(e > 0.2);
	v = curve(sim, "training.t.power_w", NULL, &n);
	lo = INFINITY, hi = 0;
	for (size_t i = 0; i < n; i++)
		lo = fmin(lo, v[i]), hi = fmax(hi, v[i]);
	free(v);
	ck_assert_rel(hi, N * cw, 1e-9); /* 100 ms all in compute */
	ck_assert_rel(lo, N * mw, 1e-9); /* 100 ms all in the all-reduce */
	/* at 10 min every interval holds ~600 / (1 + e) steps: its average is
	 * the step average within one step's swing */
	AIW_OK_OR_FAIL(sim, aiw_sim_reset(sim));
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.sample_interval", "10min"));
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	double avg = N * (cw + mw * e) / (1 + e);
	v = curve(sim, "training.t.power_w", NULL, &n);
	ck_assert_uint_eq(n, 6);
	for (size_t i = 0; i < n; i++)
		ck_assert_msg(fabs(v[i] - avg) <= (cw - mw) * N * (1 + e) / 600, "%zu: %g vs %g", i,
		              v[i], avg);
	free(v);
	aiw_sim_free(sim);
}
END_TEST

START_TEST(energy_conservation)
{
	/* everything on: jitter, slow GPUs, degraded link, failures,
	 * checkpoints, hot spares, a late start; 100 ms curves */
	aiw_sim *sim = load(21,
	                    "[sim]\nduration=3h\nsample_interval=100ms\n"
	                    "[training t]\ngpus=512\nmodel_params=8e9\ntokens_per_step=1e6\n"
	                    "jitter=lognormal(0,0.05)\nslow_gpus=3\nslow_factor=1.2\n"
	                    "degraded_links=1\ngpu_mtbf=300h\nrestart_time=uniform(2min,6min)\n"
	                    "checkpoint_interval=10min\nhot_spares=8\nstart=7min\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert(M(sim, "failures") >= 1);
	ck_assert(M(sim, "checkpoints") >= 1);
	size_t n;
	double *t, *v = curve(sim, "training.t.power_w", &t, &n);
	ck_assert_uint_eq(n, 108000);
	double sum = 0, c = 0; /* Neumaier: 1e5 terms */
	for (size_t i = 0; i < n; i++) {
		double x = v[i] * (t[i] - (i ? t[i - 1] : 0)), s2 = sum + x;
		c += fabs(sum) >= fabs(x) ? (sum - s2) + x : (x - s2) + sum;
		sum = s2;
		if (t[i] <= 7 * 60)
			ck_assert(v[i] == 0); /* not started */
	}
	ck_assert_rel((sum + c) / 3.6e6, M(sim, "energy_kwh"), 1e-9);
	free(v);
	free(t);
	/* the time breakdown covers the wall time */
	double parts = M(sim, "compute_s") + M(sim, "exposed_comm_s") + M(sim, "straggler_wait_s") +
	               M(sim, "checkpoint_s") + M(sim, "lost_s") + M(sim, "restart_s");
	ck_assert_rel(parts, M(sim, "wall_s"), 1e-9);
	ck_assert_rel(M(sim, "wall_s"), 3 * 3600 - 7 * 60, 1e-12);
	/* the tokens curve ends at the tokens metric */
	v = curve(sim, "training.t.tokens", NULL, &n);
	ck_assert(v[n - 1] == M(sim, "tokens"));
	free(v);
	/* east-west traffic: the curve integrates to the metric over nodes */
	v = curve(sim, "training.t.east_west_bytes_per_s_per_node", &t, &n);
	sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += v[i] * (t[i] - (i ? t[i - 1] : 0));
	ck_assert_rel(sum * 64, M(sim, "east_west_bytes"), 1e-9);
	free(v);
	free(t);
	/* the same run at a coarse interval: the same energy */
	double e1 = M(sim, "energy_kwh");
	AIW_OK_OR_FAIL(sim, aiw_sim_reset(sim));
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.sample_interval", "17min"));
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert_rel(M(sim, "energy_kwh"), e1, 1e-12);
	/* rack peaks: the job's racks all peak at its peak / racks */
	ck_assert_rel(aiwi_test_metric(sim, "site.sum_of_rack_peaks_w"),
	              aiwi_test_metric(sim, "training.t.power_peak_w"), 1e-12);
	aiw_sim_free(sim);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* failures and checkpoints                                                  */
/* ------------------------------------------------------------------------ */
START_TEST(poisson_failures)
{
	/* N = 1000, MTBF 1000 h: one failure per hour; over 2000 h the count
	 * is Poisson(2000): within 3 sigma = 3 sqrt(2000) */
	aiw_sim *sim = load(31,
	                    "[sim]\nduration=2000h\nsample_interval=10h\n"
	                    "[training t]\ngpus=1000\nstep_compute=120s\ngrad_bytes_per_param=0\n"
	                    "gpu_mtbf=1000h\ncheckpoint_time=30s\nrestart_time=const(5min)\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	double mu = 2000, f = M(sim, "failures");
	ck_assert_msg(fabs(f - mu) <= 3 * sqrt(mu), "failures %g vs Poisson mean %g", f, mu);
	/* restarts are const(5min), cut short when a failure hits one (about
	 * 8% of them: 5 min at one failure per hour) */
	ck_assert(M(sim, "restart_s") <= f * 300 * (1 + 1e-12));
	ck_assert(M(sim, "restart_s") >= 0.85 * f * 300);
	aiw_sim_free(sim);
}
END_TEST

static double daly(double d, double Mt)
{
	double r = d / (2 * Mt);
	return d < 2 * Mt ? sqrt(2 * d * Mt) * (1 + sqrt(r) / 3 + r / 9) - d : Mt;
}

START_TEST(daly_peak)
{
	/* system MTBF M = 1 h (100 GPUs at 100 h), checkpoint d = 60 s,
	 * restart R = 5 min, steps of 10 s, no jitter or communication.
	 * Goodput over a grid of intervals around Daly's tau*; the waste
	 * 1 - goodput ~ a/tau + b tau + c (checkpoint cost d/tau, rework
	 * tau/2M), fitted by least squares, peaks at sqrt(a/b). */
	const double d = 60, Mt = 3600, R = 300;
	double ts = daly(d, Mt);
	ck_assert_rel(ts, 617.8760, 1e-5);
	const double f[] = {0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0, 1.1, 1.25, 1.4, 1.6, 1.8, 2.0, 2.5};
	const size_t n = sizeof f / sizeof *f;
	double A[3][3] = {{0}}, B[3] = {0}, best = 0, best_tau = 0;
	for (size_t i = 0; i < n; i++) {
		double tau = f[i] * ts;
		aiw_sim *sim = load(41,
		                    "[sim]\nduration=1500h\nsample_interval=100h\n"
		                    "[training t]\ngpus=100\nstep_compute=10s\ngrad_bytes_per_param=0\n"
		                    "gpu_mtbf=100h\ncheckpoint_time=%gs\nrestart_time=const(%gs)\n"
		                    "checkpoint_interval=%.9gs\n",
		                    d, R, tau);
		AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
		double g = M(sim, "goodput");
		/* Daly's complete model for exponential failures (restart and
		 * checkpoint can fail too): goodput = tau / (M e^(R/M) (e^((tau+d)/M)
		 * - 1)).  Noise: ~1500 failures, each costing ~R + tau/2 ~ 10 min:
		 * sd ~ sqrt(1500) x 600 s / 5.4e6 s = 0.0043; 4 sd = 0.017 */
		double exact = tau / (Mt * exp(R / Mt) * expm1((tau + d) / Mt));
		ck_assert_msg(fabs(g - exact) < 0.017, "tau %g: goodput %g vs Daly %g", tau, g, exact);
		if (g > best)
			best = g, best_tau = tau;
		double x[3] = {1 / tau, tau, 1}, y = 1 - g;
		for (int j = 0; j < 3; j++) {
			B[j] += x[j] * y;
			for (int k = 0; k < 3; k++)
				A[j][k] += x[j] * x[k];
		}
		aiw_sim_free(sim);
	}
	/* solve the 3x3 normal equations */
	for (int p = 0; p < 3; p++)
		for (int q = p + 1; q < 3; q++) {
			double m = A[q][p] / A[p][p];
			for (int k = 0; k < 3; k++)
				A[q][k] -= m * A[p][k];
			B[q] -= m * B[p];
		}
	double sol[3];
	for (int p = 2; p >= 0; p--) {
		double s = B[p];
		for (int k = p + 1; k < 3; k++)
			s -= A[p][k] * sol[k];
		sol[p] = s / A[p][p];
	}
	double peak = sqrt(sol[0] / sol[1]);
	ck_assert_msg(fabs(peak / ts - 1) <= 0.15, "goodput peaks at %g s, Daly %g s (grid best %g)",
	              peak, ts, best_tau);
	/* and `auto` picks Daly's interval */
	aiw_sim *sim = load(41,
	                    "[sim]\nduration=1h\n[training t]\ngpus=100\nstep_compute=10s\n"
	                    "gpu_mtbf=100h\ncheckpoint_time=60s\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert_rel(M(sim, "checkpoint_interval_s"), ts, 1e-12);
	aiw_sim_free(sim);
}
END_TEST

START_TEST(ettr_kokolis)
{
	/* Kokolis et al. (HPCA 2025): E[ETTR] ~ (1 - N r_f (u0 + tau/2)) /
	 * (1 + w / tau), valid while N r_f (u0 + tau) << 1.  Here N r_f =
	 * 1/(10 h), u0 = 10 min, tau = 30 min, w = 1 min: N r_f (u0 + tau) =
	 * 0.067.  The model is evaluated at the realised failure rate (so the
	 * Poisson count noise cancels).  What remains: the rework per failure
	 * is uniform on one checkpoint cycle, sd ~ tau / sqrt(12) each, over
	 * ~500 failures: 520 s x sqrt(500) / 1.8e7 s = 0.0006; and the model's
	 * neglected terms: failures during restarts and checkpoints, the write
	 * time inside the cycle (N r_f w / 2 = 0.0008), second order
	 * (N r_f (u0 + tau/2))^2 = 0.0017.  Tolerance 0.005. */
	const double tau = 1800, w = 60, u0 = 600;
	aiw_sim *sim = load(51,
	                    "[sim]\nduration=5000h\nsample_interval=100h\n"
	                    "[training t]\ngpus=1000\nstep_compute=60s\ngrad_bytes_per_param=0\n"
	                    "gpu_mtbf=10000h\ncheckpoint_time=%gs\ncheckpoint_interval=%gs\n"
	                    "restart_time=const(%gs)\n",
	                    w, tau, u0);
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	double T = M(sim, "wall_s"), rate = M(sim, "failures") / T;
	double model = (1 - rate * (u0 + tau / 2)) / (1 + w / tau);
	double ettr = M(sim, "ettr");
	ck_assert_msg(fabs(ettr - model) <= 0.005, "ETTR %.5f vs first-order %.5f", ettr, model);
	/* with no jitter or communication, goodput = ETTR but for the step in
	 * progress at the end (ETTR counts it, goodput counts whole steps): at
	 * most 60 s of 1.8e7 s */
	ck_assert(fabs(M(sim, "goodput") - ettr) <= 60 / T);
	aiw_sim_free(sim);
}
END_TEST

START_TEST(llama3)
{
	/* Llama 3 405B (Dubey et al. 2024): 16,384 H100 for 54 days, 419
	 * unexpected interruptions, one per ~3.1 h, > 90% effective training
	 * time.  Per-GPU MTBF = 16384 x 3.1 h gives one failure per 3.1 h:
	 * E = 54 x 24 / 3.1 = 418.1, within 3 sqrt(418); checkpoints at Daly's
	 * interval, 16 B/param to storage at 2 TB/s, 10 min restarts. */
	aiw_sim *sim = load(405,
	                    "[sim]\nduration=54d\nsample_interval=1h\n"
	                    "[training t]\ngpus=16384\nmodel_params=405e9\ntokens_per_step=16e6\n"
	                    "mfu=0.40\njitter=lognormal(0,0.02)\ngpu_mtbf=%.10gh\n"
	                    "checkpoint_bytes_per_param=16\nstorage_bw=2TB/s\n"
	                    "restart_time=const(10min)\n",
	                    16384 * 3.1);
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	double want = 54 * 24 / 3.1, f = M(sim, "failures");
	ck_assert_msg(fabs(f - want) <= 3 * sqrt(want), "%g interruptions vs %g", f, want);
	ck_assert_msg(M(sim, "ettr") > 0.9, "ETTR %g", M(sim, "ettr"));
	ck_assert_rel(M(sim, "checkpoint_time_s"), 405e9 * 16 / 2e12, 1e-12);
	aiw_sim_free(sim);
}
END_TEST

START_TEST(hot_spares)
{
	/* failure times come from their own stream, so runs that differ only
	 * in spares and repair times see the same failures.  MTBF 100 h for the job, restarts
	 * 1 min, replacement 1 min: a failure during a 2 min outage has
	 * probability 3e-4, so each outage runs in full (checked for this seed
	 * by the exact equalities). */
	const char *base = "[sim]\nduration=2000h\nsample_interval=100h\n"
	                   "[training t]\ngpus=100\nstep_compute=60s\ngrad_bytes_per_param=0\n"
	                   "gpu_mtbf=10000h\nrestart_time=const(1min)\nreplace_time=const(1min)\n"
	                   "repair_time=const(%s)\nhot_spares=%d\n";
	double f[4], r[4];
	int spares[4] = {0, 2, 1000, 1};
	/* the last: one spare, back 2 min after each failure (the gaps between
	 * failures, 100 h on average, are longer by far): always a spare */
	const char *repair[4] = {"10000h", "10000h", "10000h", "2min"};
	for (int i = 0; i < 4; i++) {
		aiw_sim *sim = load(61, base, repair[i], spares[i]);
		AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
		f[i] = M(sim, "failures");
		r[i] = M(sim, "restart_s");
		aiw_sim_free(sim);
	}
	ck_assert(f[0] == f[1] && f[1] == f[2] && f[2] == f[3]);
	ck_assert(f[0] > 5);
	ck_assert_rel(r[3], f[3] * 60, 1e-12); /* one spare, repaired each time */
	ck_assert_rel(r[0], f[0] * 120, 1e-12);              /* no spares: replace */
	ck_assert_rel(r[1], 2 * 60 + (f[1] - 2) * 120, 1e-12); /* two, never back */
	ck_assert_rel(r[2], f[2] * 60, 1e-12);               /* always a spare */
	/* spares are paid and powered */
	aiw_sim *a = load(61, base, "10000h", 0), *b = load(61, base, "10000h", 16);
	AIW_OK_OR_FAIL(a, aiw_sim_run(a));
	AIW_OK_OR_FAIL(b, aiw_sim_run(b));
	ck_assert_rel(M(b, "hardware_cost_usd"), M(a, "hardware_cost_usd") * 116 / 100, 1e-12);
	ck_assert(M(b, "energy_kwh") > M(a, "energy_kwh"));
	aiw_sim_free(a);
	aiw_sim_free(b);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* runs                                                                      */
/* ------------------------------------------------------------------------ */
static const char *FULL = "[sim]\nduration=6h\nsample_interval=1min\n"
                          "[training t]\ngpus=4096\njitter=lognormal(0,0.03)\nslow_gpus=2\n"
                          "slow_factor=1.3\ngpu_mtbf=5000h\nrestart_time=uniform(5min,15min)\n"
                          "checkpoint_time=60s\nhot_spares=4\nreplace_time=exp(20min)\n";

/* Metrics and curves bit for bit; with `only` set, other metrics to 1e-12
 * (the site's idle-cost bookkeeping is summed per run call). */
static void same_results(aiw_sim *a, aiw_sim *b, const char *only)
{
	size_t na, nb;
	AIW_OK_OR_FAIL(a, aiw_sim_metric_count(a, &na));
	AIW_OK_OR_FAIL(b, aiw_sim_metric_count(b, &nb));
	ck_assert_uint_eq(na, nb);
	for (size_t i = 0; i < na; i++) {
		const char *name;
		double x, y;
		AIW_OK_OR_FAIL(a, aiw_sim_metric_name(a, i, &name));
		if (!strcmp(name, "sim.events"))
			continue;
		AIW_OK_OR_FAIL(a, aiw_sim_metric(a, name, &x));
		AIW_OK_OR_FAIL(b, aiw_sim_metric(b, name, &y));
		if (only && strncmp(name, only, strlen(only)) != 0)
			ck_assert_rel(x, y, 1e-12);
		else
			ck_assert_msg(memcmp(&x, &y, sizeof x) == 0, "%s: %.17g vs %.17g", name, x, y);
	}
	AIW_OK_OR_FAIL(a, aiw_sim_series_count(a, &na));
	for (size_t i = 0; i < na; i++) {
		const char *name;
		AIW_OK_OR_FAIL(a, aiw_sim_series_name(a, i, &name));
		size_t n1, n2;
		double *v1 = curve(a, name, NULL, &n1), *v2 = curve(b, name, NULL, &n2);
		ck_assert_uint_eq(n1, n2);
		ck_assert_msg(memcmp(v1, v2, n1 * sizeof *v1) == 0, "curve %s differs", name);
		free(v1);
		free(v2);
	}
}

/* Checkpoint writes that fail (checkpoint_failure_prob): with p = 1 none
 * saves, each attempt's time is checkpoint time and the breakdown still
 * covers the wall time; with p = 0.3 over n attempts the failed count is
 * Binomial(n, 0.3), within 4 sigma (a fixed seed: the check is of the
 * draw's law, its false-alarm rate 6e-5); with GPU failures on, failed
 * writes since the last save are lost with the work; p = 0 gives the
 * results of a job without the setting, bit for bit; the curve ends at the
 * metric. */
START_TEST(checkpoint_failures)
{
	const char *base = "[sim]\nduration=%s\nsample_interval=10min\n"
	                   "[training t]\ngpus=64\nstep_compute=20s\n" NOCOMM
	                   "checkpoint_interval=%s\ncheckpoint_time=30s\n%s";
	/* every write fails: 2 h of 20 s steps, a write every 10 min of work */
	aiw_sim *sim = load(3, base, "2h", "10min", "checkpoint_failure_prob=1\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	double att = M(sim, "checkpoint_failures");
	ck_assert(M(sim, "checkpoints") == 0);
	/* attempts: one after each 10 min of steps (30 steps, 600 s) and its
	 * 30 s write: floor(7200 / 630) */
	ck_assert_msg(att == floor(7200.0 / 630), "attempts %g", att);
	ck_assert_rel(M(sim, "checkpoint_s"), 30 * att, 1e-12);
	double parts = M(sim, "compute_s") + M(sim, "exposed_comm_s") + M(sim, "straggler_wait_s") +
	               M(sim, "checkpoint_s") + M(sim, "lost_s") + M(sim, "restart_s");
	ck_assert_rel(parts, M(sim, "wall_s"), 1e-12);
	size_t n;
	double *v = curve(sim, "training.t.checkpoint_failures", NULL, &n);
	ck_assert(v[n - 1] == att);
	free(v);
	aiw_sim_free(sim);

	/* p = 0.3: Binomial */
	sim = load(5, base, "100h", "1min", "checkpoint_failure_prob=0.3\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	double nf = M(sim, "checkpoint_failures"), ns = M(sim, "checkpoints"), na = nf + ns;
	ck_assert(na > 1000);
	ck_assert_msg(fabs(nf - 0.3 * na) <= 4 * sqrt(na * 0.3 * 0.7), "%g failed of %g", nf, na);
	aiw_sim_free(sim);

	/* with GPU failures: the breakdown covers the wall time, and work and
	 * failed writes since the last save are lost together */
	sim = load(9, base, "200h", "20min",
	           "checkpoint_failure_prob=0.5\ngpu_mtbf=200h\nrestart_time=const(5min)\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert(M(sim, "failures") >= 10);
	ck_assert(M(sim, "checkpoint_failures") >= 10);
	parts = M(sim, "compute_s") + M(sim, "exposed_comm_s") + M(sim, "straggler_wait_s") +
	        M(sim, "checkpoint_s") + M(sim, "lost_s") + M(sim, "restart_s");
	ck_assert_rel(parts, M(sim, "wall_s"), 1e-9);
	aiw_sim_free(sim);

	/* p = 0: bit for bit the job without the setting (FULL has failures,
	 * jitter and spares) */
	char with[1024];
	snprintf(with, sizeof with, "%scheckpoint_failure_prob=0\n", FULL);
	aiw_sim *a = load(7, "%s", FULL), *b = load(7, "%s", with);
	AIW_OK_OR_FAIL(a, aiw_sim_run(a));
	AIW_OK_OR_FAIL(b, aiw_sim_run(b));
	same_results(a, b, NULL);
	aiw_sim_free(a);
	aiw_sim_free(b);

	/* no checkpoints: a warning that the setting does nothing */
	sim = load(1, base, "1h", "none", "checkpoint_failure_prob=0.1\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	size_t nw = 0;
	aiw_sim_warning_count(sim, &nw);
	bool warned = false;
	for (size_t i = 0; i < nw; i++) {
		const char *w;
		aiw_sim_warning(sim, i, &w);
		warned = warned || strstr(w, "checkpoint_failure_prob = 0.1 has no effect");
	}
	ck_assert(warned);
	aiw_sim_free(sim);
}
END_TEST

START_TEST(reproducible)
{
	aiw_sim *a = load(7, "%s", FULL), *b = load(7, "%s", FULL);
	AIW_OK_OR_FAIL(a, aiw_sim_run(a));
	/* b in steps: finish runs at each step and must not change the run */
	for (double t = 1000; t < 6 * 3600; t += 1777) {
		AIW_OK_OR_FAIL(b, aiw_sim_run_until(b, t));
		(void)M(b, "steps");
	}
	AIW_OK_OR_FAIL(b, aiw_sim_run(b));
	ck_assert(M(a, "failures") >= 1);
	same_results(a, b, "training.t.");
	aiw_sim *a2 = load(7, "%s", FULL);
	AIW_OK_OR_FAIL(a2, aiw_sim_run(a2));
	same_results(a, a2, NULL);
	aiw_sim_free(a2);
	/* reset reproduces the run */
	double s1 = M(a, "step_time_mean_s");
	AIW_OK_OR_FAIL(a, aiw_sim_reset(a));
	AIW_OK_OR_FAIL(a, aiw_sim_run(a));
	ck_assert(M(a, "step_time_mean_s") == s1);
	same_results(a, b, "training.t.");
	/* another seed gives another run */
	aiw_sim *c = load(8, "%s", FULL);
	AIW_OK_OR_FAIL(c, aiw_sim_run(c));
	ck_assert(M(c, "step_time_mean_s") != s1);
	aiw_sim_free(a);
	aiw_sim_free(b);
	aiw_sim_free(c);
}
END_TEST

START_TEST(budgets_and_start)
{
	/* 100 steps of 2 s from t = 10 min, then the GPUs are released */
	aiw_sim *sim = load(1,
	                    "[sim]\nduration=1h\nsample_interval=1min\n"
	                    "[training t]\ngpus=64\nstep_compute=2s\ngrad_bytes_per_param=0\n"
	                    "tokens_per_step=1e6\nmax_steps=100\nstart=10min\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert(M(sim, "steps") == 100);
	ck_assert(M(sim, "tokens") == 1e8);
	ck_assert_rel(M(sim, "wall_s"), 200, 1e-12);
	double life;
	AIW_OK_OR_FAIL(sim, aiw_sim_get_double(sim, "training.t.lifetime", &life));
	double usd_s = catalog("H100-SXM", "price_usd") / life;
	ck_assert_rel(M(sim, "hardware_cost_usd"), 64 * 200 * usd_s, 1e-12);
	ck_assert_rel(M(sim, "cost_per_mtok_usd"), M(sim, "cost_usd") / 100, 1e-12);
	size_t n;
	double *t, *v = curve(sim, "training.t.power_w", &t, &n);
	for (size_t i = 0; i < n; i++)
		if (t[i] <= 600 || t[i] > 900)
			ck_assert(v[i] == 0);
	free(v);
	free(t);
	/* goodput 1 and MFU as given when nothing else costs time */
	ck_assert_rel(M(sim, "goodput"), 1, 1e-12);
	aiw_sim_free(sim);
	/* max_tokens rounds up to whole steps */
	sim = load(1,
	           "[sim]\nduration=1h\n[training t]\ngpus=64\nstep_compute=2s\n"
	           "tokens_per_step=1e6\nmax_tokens=2.5e6\nmfu=0.4\nmodel_params=1e9\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert(M(sim, "steps") == 3);
	aiw_sim_free(sim);
	/* mfu gives the compute time: 6 P T / (N peak mfu); mfu_achieved =
	 * mfu x goodput */
	sim = load(1,
	           "[sim]\nduration=1h\n[training t]\ngpus=64\nmodel_params=7e9\n"
	           "tokens_per_step=1e6\nmfu=0.4\ngrad_bytes_per_param=0\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	double peak = catalog("H100-SXM", "bf16_flops");
	ck_assert_rel(M(sim, "step_compute_s"), 6 * 7e9 * 1e6 / (64 * peak * 0.4), 1e-14);
	ck_assert_rel(M(sim, "mfu_achieved"), 0.4 * M(sim, "goodput"), 1e-12);
	aiw_sim_free(sim);
}
END_TEST

START_TEST(runtime_change)
{
	/* a controller evicts the slow GPU after 1 h */
	aiw_sim *sim = load(1,
	                    "[sim]\nduration=2h\nsample_interval=10min\n"
	                    "[training t]\ngpus=256\nstep_compute=1s\ngrad_bytes_per_param=0\n"
	                    "slow_gpus=1\nslow_factor=2\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run_until(sim, 3600));
	ck_assert_rel(M(sim, "step_time_mean_s"), 2, 1e-14);
	/* invalid values are refused and the old one kept */
	ck_assert_int_eq(aiw_sim_set(sim, "training.t.slow_gpus", "300"), AIW_ERANGE);
	ck_assert(strstr(aiw_sim_errmsg(sim), "slow_gpus"));
	/* gpus is fixed during a run */
	ck_assert_int_eq(aiw_sim_set(sim, "training.t.gpus", "8"), AIW_ESTATE);
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "training.t.slow_gpus", "0"));
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	size_t n;
	double *v = curve(sim, "training.t.step_time_s", NULL, &n);
	ck_assert_uint_eq(n, 12);
	ck_assert_rel(v[2], 2, 1e-14);
	ck_assert_rel(v[9], 1, 1e-14);
	free(v);
	/* the change applies from the next step: the step starting at 1 h was
	 * drawn before it, so 1801 steps of 2 s, then 3598 of 1 s */
	ck_assert(M(sim, "steps") == 1801 + 3598);
	aiw_sim_free(sim);
}
END_TEST

START_TEST(invalid_params)
{
	aiw_sim *sim;
	ck_assert_int_eq(aiw_sim_create(&sim, 1), AIW_OK);
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "training.t.gpus", "8"));
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "training.t.memory_check", "warn"));
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "training.t.slow_gpus", "9"));
	ck_assert_int_eq(aiw_sim_run(sim), AIW_ERANGE);
	ck_assert_msg(strstr(aiw_sim_errmsg(sim), "training.t.slow_gpus = 9"), "%s",
	              aiw_sim_errmsg(sim));
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "training.t.slow_gpus", "0"));
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "training.t.gpu", "H100-SMX"));
	ck_assert_int_eq(aiw_sim_run(sim), AIW_EUNKNOWN);
	ck_assert_msg(strstr(aiw_sim_errmsg(sim), "training.t.gpu"), "%s", aiw_sim_errmsg(sim));
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "training.t.gpu", "H100-SXM"));
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "training.t.jitter", "normal(0,1)"));
	ck_assert_int_eq(aiw_sim_run(sim), AIW_ERANGE);
	ck_assert_msg(strstr(aiw_sim_errmsg(sim), "jitter"), "%s", aiw_sim_errmsg(sim));
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "training.t.jitter", "const(1)"));
	/* range checks at parse time */
	ck_assert_int_eq(aiw_sim_set(sim, "training.t.restart_time", "normal(10min,1min)"),
	                 AIW_ERANGE);
	ck_assert_int_eq(aiw_sim_set(sim, "training.t.overlap", "1.5"), AIW_ERANGE);
	ck_assert_int_eq(aiw_sim_set(sim, "training.t.degraded_link_factor", "0"), AIW_ERANGE);
	ck_assert_int_eq(aiw_sim_set(sim, "training.t.allreduce", "butterfly"), AIW_EPARSE);
	ck_assert_int_eq(aiw_sim_set(sim, "training.t.mfu", "0"), AIW_ERANGE);
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	aiw_sim_free(sim);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* scaling study                                                             */
/* ------------------------------------------------------------------------ */
START_TEST(scaling)
{
	const char *g = "H100-SXM";
	double ai = catalog(g, "nvlink_latency_s"), bi = catalog(g, "nvlink_bw");
	double ae = catalog(g, "nic_latency_s"), be = catalog(g, "nic_bw");
	aiw_sim *sim = load(1,
	                    "[training t]\ngpus=512\nmodel_params=7e9\nstep_compute=2s\n"
	                    "overlap=0.3\n");
	const double counts[] = {1, 8, 64, 512, 4096, 32768};
	double st[6], eff[6];
	for (int weak = 0; weak < 2; weak++) {
		AIW_OK_OR_FAIL(sim, aiw_training_scaling(sim, "t", counts, 6, weak, st, eff));
		for (int i = 0; i < 6; i++) {
			double tc = weak ? 2 : 2 * 512 / counts[i], T;
			ck_assert_int_eq(aiw_allreduce_time("hierarchical", 14e9, counts[i], 8, ai, bi, ae, be,
			                                    1, &T),
			                 AIW_OK);
			double want = tc + fmax(0, T - 0.3 * tc);
			ck_assert_rel(st[i], want, 1e-14);
			ck_assert_rel(eff[i], tc / want, 1e-14);
		}
		ck_assert(eff[0] == 1);
		for (int i = 1; i < 6; i++)
			ck_assert(eff[i] <= eff[i - 1]);
		/* strong scaling: 110 ms of compute hides little of the all-reduce;
		 * weak: 0.6 s hides it all */
		ck_assert(weak ? eff[5] == 1 : eff[5] < eff[4]);
	}
	/* with normal jitter, E[max] by quadrature vs qagi: the midpoint rule
	 * on 16384 points is good to ~1e-5 of sigma */
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "training.t.jitter", "normal(1,0.05)"));
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "training.t.grad_bytes_per_param", "0"));
	const double c2[] = {10, 1000, 100000};
	AIW_OK_OR_FAIL(sim, aiw_training_scaling(sim, "training.t", c2, 3, 1, st, eff));
	for (int i = 0; i < 3; i++) {
		ck_assert(fabs(st[i] - 2 * (1 + 0.05 * normal_max_moment(c2[i], 1))) < 2 * 0.05 * 1e-4);
		ck_assert_rel(eff[i], 2 / st[i], 1e-14);
	}
	/* two classes: one slow GPU at 1.5 dominates a normal(1, 0.05) max of
	 * 1000 (E ~ 1.16) almost surely: E[max] ~ 1.5 E[M] = 1.5 */
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "training.t.slow_gpus", "1"));
	AIW_OK_OR_FAIL(sim, aiw_training_scaling(sim, "t", c2 + 1, 1, 1, st, NULL));
	ck_assert_rel(st[0], 2 * 1.5, 1e-5);
	/* errors */
	ck_assert_int_eq(aiw_training_scaling(NULL, "t", c2, 1, 1, st, eff), AIW_EINVAL);
	ck_assert_int_eq(aiw_training_scaling(sim, NULL, c2, 1, 1, st, eff), AIW_EINVAL);
	ck_assert_int_eq(aiw_training_scaling(sim, "t", c2, 0, 1, st, eff), AIW_EINVAL);
	ck_assert_int_eq(aiw_training_scaling(sim, "t", c2, 1, 1, NULL, eff), AIW_EINVAL);
	const double bad[] = {8, 2.5};
	ck_assert_int_eq(aiw_training_scaling(sim, "t", bad, 2, 1, st, eff), AIW_ERANGE);
	ck_assert(strstr(aiw_sim_errmsg(sim), "gpu_counts[1] = 2.5"));
	ck_assert_int_eq(aiw_training_scaling(sim, "nosuch", c2, 1, 1, st, eff), AIW_EUNKNOWN);
	aiw_sim_free(sim);
}
END_TEST

/* The simulated mean step agrees with the scaling study's expectation. */
START_TEST(scaling_vs_simulation)
{
	const double K = 20000, sig = 0.04;
	aiw_sim *sim = load(9,
	                    "[sim]\nduration=100000s\nsample_interval=1h\n"
	                    "[training t]\ngpus=4096\nstep_compute=1s\nmodel_params=7e9\n"
	                    "jitter=lognormal(0,%g)\nslow_gpus=2\nslow_factor=1.1\nmax_steps=%g\n",
	                    sig, K);
	double p = 4096, st, eff;
	AIW_OK_OR_FAIL(sim, aiw_training_scaling(sim, "t", &p, 1, 1, &st, &eff));
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	/* sd of the step < sd of the max class ~ 1.1 x sigma x 0.6; 5 se */
	double se = 1.1 * sig * 0.6 / sqrt(K);
	ck_assert_msg(fabs(M(sim, "step_time_mean_s") - st) <= 5 * se, "sim %.6f vs study %.6f",
	              M(sim, "step_time_mean_s"), st);
	aiw_sim_free(sim);
}
END_TEST

/* tokens_per_gpu: the global batch grows with the job (weak scaling),
 * tokens_per_step = tokens_per_gpu x gpus exactly: the same run, bit for
 * bit, as that tokens_per_step; 3906.25 x 1024 is the built-in 4e6 */
START_TEST(tokens_per_gpu)
{
	const double Ns[] = {1024, 2048, 16384};
	for (size_t j = 0; j < 3; j++) {
		const char *fmt = "[sim]\nduration=2h\nsample_interval=10min\n"
		                  "[training t]\ngpus=%g\nmodel_params=70e9\nmfu=0.45\n%s=%.17g\n";
		aiw_sim *a = load(5, fmt, Ns[j], "tokens_per_gpu", 3906.25);
		aiw_sim *b = load(5, fmt, Ns[j], "tokens_per_step", 3906.25 * Ns[j]);
		AIW_OK_OR_FAIL(a, aiw_sim_run(a));
		AIW_OK_OR_FAIL(b, aiw_sim_run(b));
		ck_assert(M(a, "steps") > 0);
		ck_assert(M(a, "tokens") == M(a, "steps") * 3906.25 * Ns[j]);
		ck_assert(M(a, "tokens") == M(b, "tokens"));
		ck_assert(M(a, "step_time_mean_s") == M(b, "step_time_mean_s"));
		aiw_sim_free(a);
		aiw_sim_free(b);
	}
	/* neither set: 4e6 tokens per step at every size */
	aiw_sim *sim = load(5, "[sim]\nduration=1h\n[training t]\ngpus=64\nstep_compute=1s\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert(M(sim, "tokens") == M(sim, "steps") * 4e6);
	aiw_sim_free(sim);
	/* both set: refused at start, both named */
	sim = load(5, "[sim]\nduration=1h\n[training t]\ntokens_per_step=4e6\n"
	              "tokens_per_gpu=3906.25\n");
	ck_assert_int_eq(aiw_sim_run(sim), AIW_EINVAL);
	ck_assert_msg(strstr(aiw_sim_errmsg(sim), "training.t.tokens_per_step = 4e+06 and "
	                                          "training.t.tokens_per_gpu = 3906.25 are both set"),
	              "%s", aiw_sim_errmsg(sim));
	aiw_sim_free(sim);
	/* the product is held to tokens_per_step's range */
	sim = load(5, "[sim]\nduration=1h\n[training t]\ngpus=1e6\ntokens_per_gpu=1e7\n");
	ck_assert_int_eq(aiw_sim_run(sim), AIW_ERANGE);
	aiw_sim_free(sim);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("training");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, max_normal_mean);
	tcase_add_test(tc, max_normal_ks);
	tcase_add_test(tc, model_normal_max);
	tcase_add_test(tc, exponential_harmonic);
	tcase_add_test(tc, allreduce_closed_forms);
	tcase_add_test(tc, one_slow_gpu);
	tcase_add_test(tc, energy_exact);
	tcase_add_test(tc, energy_conservation);
	tcase_add_test(tc, poisson_failures);
	tcase_add_test(tc, daly_peak);
	tcase_add_test(tc, ettr_kokolis);
	tcase_add_test(tc, llama3);
	tcase_add_test(tc, hot_spares);
	tcase_add_test(tc, reproducible);
	tcase_add_test(tc, checkpoint_failures);
	tcase_add_test(tc, budgets_and_start);
	tcase_add_test(tc, runtime_change);
	tcase_add_test(tc, invalid_params);
	tcase_add_test(tc, scaling);
	tcase_add_test(tc, scaling_vs_simulation);
	tcase_add_test(tc, tokens_per_gpu);
	suite_add_tcase(s, tc);
	return s;
}

AIW_TEST_MAIN(make_suite)
