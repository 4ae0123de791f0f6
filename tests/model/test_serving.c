/* test_serving.c - the inference fleet (serving.c): the roofline against
 * hand-computed service and energy, request conservation under every kind
 * of drop, seeded bit-reproducibility, the KV-cache and max_batch
 * invariants of continuous batching, the dynamic batcher's delay bound,
 * replay of both Azure traces (every request accounted, arrivals per
 * minute equal to the file's), diurnal arrivals per hour, replicas changed
 * during a run (exact energy), the autoscaler's internal API, errors. */
#include "core/internal.h"
#include "hw/hw.h"
#include "inference/serving.h"
#include "inference/traffic.h"
#include "../testutil.h"

#include <string.h>
#include <unistd.h>

/* ------------------------------------------------------------------------ */
/* helpers                                                                   */
/* ------------------------------------------------------------------------ */
static aiw_sim *load(uint64_t seed, const char *text)
{
	aiw_sim *sim;
	ck_assert_int_eq(aiw_sim_create(&sim, seed), AIW_OK);
	AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim, text, "test"));
	return sim;
}

static double M(aiw_sim *sim, const char *comp, const char *key)
{
	char n[256];
	snprintf(n, sizeof n, "inference.%s.%s", comp, key);
	return aiwi_test_metric(sim, n);
}

/* arrived = completed + dropped(reasons) + in flight, exactly; in flight =
 * waiting + running. */
static void check_conservation(aiw_sim *sim, const char *comp)
{
	double drop = M(sim, comp, "requests_dropped"), fly = M(sim, comp, "requests_in_flight");
	double reasons = M(sim, comp, "requests_dropped_timeout") +
	                 M(sim, comp, "requests_dropped_queue_full") +
	                 M(sim, comp, "requests_dropped_kv_too_large");
	char prefix[128];
	snprintf(prefix, sizeof prefix, "inference.%s", comp);
	aiwi_test_conservation(sim, prefix); /* arrived = completed + dropped + in flight */
	ck_assert(drop == reasons);
	ck_assert(fly == M(sim, comp, "requests_waiting") + M(sim, comp, "requests_running"));
}

static size_t curve(aiw_sim *sim, const char *name, double *t, double *v, size_t cap)
{
	size_t n = 0;
	AIW_OK_OR_FAIL(sim, aiw_sim_series_copy(sim, name, t, v, cap, &n));
	return n;
}

static const aiwi_gpu_spec *h100(void)
{
	const aiwi_gpu_spec *g = aiwi_hw_gpu(NULL, "H100-SXM");
	ck_assert(g != NULL);
	return g;
}

/* A one-row trace (seconds format): one request at t = 0. */
static void one_request_trace(char *path, size_t len, int prompt, int output)
{
	FILE *f = aiwi_test_tmpfile(path, len);
	fprintf(f, "0,%d,%d\n", prompt, output);
	fclose(f);
}

/* ------------------------------------------------------------------------ */
/* the roofline, by hand                                                     */
/* ------------------------------------------------------------------------ */
START_TEST(roofline_one_request)
{
	/* 70B at 16 bits on 2 H100, timing = roofline set (defaults: mfu 0.5,
	 * mem_bw_efficiency 0.7, 80 layers x 8 KV heads x 128 dims x 16 bits
	 * -> 327,680 B/token) */
	char path[256];
	one_request_trace(path, sizeof path, 1000, 100);
	char text[1024];
	snprintf(text, sizeof text,
	         "[sim]\nduration = 600s\nsample_interval = 60s\n"
	         "[inference one]\ngpus_per_replica = 2\nreplicas = 1\nbatching = none\n"
	         "traffic = trace\ntrace_file = %s\ntiming = roofline\n",
	         path);
	aiw_sim *sim = load(1, text);
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	unlink(path);
	const aiwi_gpu_spec *g = h100();
	double P = 70e9, W = P * 2, kv = 2.0 * 80 * 8 * 128 * 2, G = 2;
	double F = G * g->bf16_flops * 0.5, B = G * g->mem_bw * 0.7;
	double tp = fmax(2 * P * 1000 / F, W / B); /* prefill, compute-bound */
	ck_assert(tp == 2 * P * 1000 / F);
	double td = 0; /* 99 decode iterations over a context of 1001 .. 1099 tokens */
	for (int j = 0; j < 99; j++)
		td += fmax(2 * P / F, (W + kv * (1001 + j)) / B);
	ck_assert_rel(M(sim, "one", "ttft_mean_s"), tp, 1e-12);
	ck_assert_rel(M(sim, "one", "e2e_mean_s"), tp + td, 1e-12);
	ck_assert_rel(M(sim, "one", "tpot_mean_s"), td / 99, 1e-12);
	ck_assert(M(sim, "one", "queue_wait_mean_s") == 0);
	ck_assert(M(sim, "one", "tokens_out") == 100);
	ck_assert(M(sim, "one", "prefill_tokens") == 1000);
	ck_assert(M(sim, "one", "decode_iterations") == 99);
	ck_assert(M(sim, "one", "batch_size_mean") == 1);
	ck_assert(M(sim, "one", "kv_bytes_per_token") == kv);
	ck_assert_rel(M(sim, "one", "kv_capacity_bytes"),
	              floor((G * 80e9 * 0.9 - W) / kv) * kv, 1e-15);
	/* KV peak: the context after the last token, 1000 + 100 */
	ck_assert_rel(M(sim, "one", "kv_peak_bytes"), 1100 * kv, 1e-15);
	/* energy: per GPU prefill, decode, idle power plus node overhead / 8 */
	double ovh = 2800.0 / 8, T = 600;
	double e = G * ((g->prefill_w + ovh) * tp + (g->decode_w + ovh) * td +
	                (g->idle_w + ovh) * (T - tp - td));
	ck_assert_rel(M(sim, "one", "energy_kwh") * 3.6e6, e, 1e-12);
	/* the power curve integrates back to it */
	double v[10];
	size_t n = curve(sim, "inference.one.power_w", NULL, v, 10);
	ck_assert_uint_eq(n, 10);
	double sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += v[i] * 60;
	ck_assert_rel(sum, e, 1e-12);
	/* compute: 2 P FLOPs per token, prompt and output, and attention's
	 * (d = sqrt(P / (12 L)), hidden_size unset): 2 L d T^2 for the prompt of
	 * T = 1000 tokens, 4 L d s for each of the 99 decoded tokens over its
	 * s = 1001 .. 1099 tokens of context; over the peak of the GPUs paid for
	 * the whole run; the curve averages back to it */
	double L = 80, d = sqrt(P / (12 * L)), fl = 2 * P * (1000 + 99) + 2 * L * d * 1000.0 * 1000;
	for (int j = 0; j < 99; j++)
		fl += 4 * L * d * (1001 + j);
	double cu = fl / (G * g->bf16_flops * T);
	ck_assert_rel(M(sim, "one", "compute_utilization"), cu, 1e-12);
	n = curve(sim, "inference.one.compute_utilization", NULL, v, 10);
	sum = 0;
	for (size_t i = 0; i < n; i++)
		sum += v[i] / 10;
	ck_assert_rel(sum, cu, 1e-12);
	/* busy GPU-seconds and cost (capex: $30,000 over 4 years of 365 days) */
	ck_assert_rel(M(sim, "one", "utilization"), (tp + td) / T, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "inference.one.hardware_cost_usd"),
	              G * T * 30000 / (4 * 365.0 * 86400), 1e-12);
	/* the request is accounted for */
	ck_assert(M(sim, "one", "requests_arrived") == 1);
	ck_assert(M(sim, "one", "requests_completed") == 1);
	check_conservation(sim, "one");
	aiw_sim_free(sim);
}
END_TEST

START_TEST(prefill_energy_exact_at_ticks)
{
	/* ticks every 50 ms cut through the 141.6 ms prefill: each interval's
	 * power is the exact mix of the phases it holds */
	char path[256];
	one_request_trace(path, sizeof path, 1000, 5);
	char text[1024];
	snprintf(text, sizeof text,
	         "[sim]\nduration = 1s\nsample_interval = 50ms\n"
	         "[inference one]\ngpus_per_replica = 2\nreplicas = 1\nbatching = continuous\n"
	         "traffic = trace\ntrace_file = %s\ntiming = roofline\n",
	         path);
	aiw_sim *sim = load(1, text);
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	unlink(path);
	const aiwi_gpu_spec *g = h100();
	double P = 70e9, F = 2 * g->bf16_flops * 0.5, tp = 2 * P * 1000 / F, ovh = 2800.0 / 8;
	double v[20], tok[20];
	size_t n = curve(sim, "inference.one.power_w", NULL, v, 20);
	ck_assert_uint_eq(n, 20);
	curve(sim, "inference.one.tokens_per_s", NULL, tok, 20);
	/* [0, 50ms], [50, 100ms]: prefill only */
	ck_assert_rel(v[0], 2 * (g->prefill_w + ovh), 1e-12);
	ck_assert_rel(v[1], 2 * (g->prefill_w + ovh), 1e-12);
	/* [100, 150ms]: prefill until tp, then decode */
	double x = tp - 0.1;
	ck_assert_rel(v[2], 2 * ((g->prefill_w + ovh) * x + (g->decode_w + ovh) * (0.05 - x)) / 0.05,
	              1e-9);
	/* no token before the prefill ends; the first one in [100, 150ms] */
	ck_assert(tok[0] == 0 && tok[1] == 0);
	ck_assert(tok[2] * 0.05 >= 1 - 1e-9);
	double total = 0;
	for (size_t i = 0; i < n; i++)
		total += tok[i] * 0.05;
	ck_assert_rel(total, 5, 1e-12);
	aiw_sim_free(sim);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* conservation and reproducibility                                          */
/* ------------------------------------------------------------------------ */
static const char *OVERLOAD =
	"[sim]\nduration = 10min\nsample_interval = 1min\n"
	"[inference hot]\nreplicas = 2\nrate = 25/s\nbatching = continuous\nmax_batch = 16\n"
	"kv_bytes_per_token = 10MB\nprompt_tokens = lognormal(median=2000,sigma=1.5)\n"
	"timeout = 20s\nqueue_limit = 60\nrouter = p2c\n";

START_TEST(conservation_with_drops)
{
	aiw_sim *sim = load(7, OVERLOAD);
	/* at every step of a run, not only at the end */
	for (int k = 1; k <= 10; k++) {
		AIW_OK_OR_FAIL(sim, aiw_sim_run_until(sim, 60.0 * k));
		check_conservation(sim, "hot");
	}
	ck_assert(M(sim, "hot", "requests_dropped_timeout") > 0);
	ck_assert(M(sim, "hot", "requests_dropped_queue_full") > 0);
	ck_assert(M(sim, "hot", "requests_dropped_kv_too_large") > 0);
	ck_assert(M(sim, "hot", "requests_completed") > 0);
	ck_assert(M(sim, "hot", "preemptions") > 0);
	/* dropped requests miss their SLOs: attainment < 1 */
	ck_assert(M(sim, "hot", "slo_attainment") < 1);
	/* timeouts: nobody started after waiting longer than the timeout */
	ck_assert(M(sim, "hot", "queue_wait_max_s") <= 20);
	aiw_sim_free(sim);
}
END_TEST

static void snapshot(aiw_sim *sim, double **vals, size_t *n)
{
	size_t nm, ns, len;
	AIW_OK_OR_FAIL(sim, aiw_sim_metric_count(sim, &nm));
	AIW_OK_OR_FAIL(sim, aiw_sim_series_count(sim, &ns));
	const char *first;
	AIW_OK_OR_FAIL(sim, aiw_sim_series_name(sim, 0, &first));
	AIW_OK_OR_FAIL(sim, aiw_sim_series_length(sim, first, &len));
	*n = nm + ns * len;
	*vals = malloc(*n * sizeof **vals);
	for (size_t i = 0; i < nm; i++) {
		const char *name;
		AIW_OK_OR_FAIL(sim, aiw_sim_metric_name(sim, i, &name));
		(*vals)[i] = aiwi_test_metric(sim, name);
	}
	for (size_t i = 0; i < ns; i++) {
		const char *name;
		AIW_OK_OR_FAIL(sim, aiw_sim_series_name(sim, i, &name));
		size_t k;
		AIW_OK_OR_FAIL(sim, aiw_sim_series_copy(sim, name, NULL, *vals + nm + i * len, len, &k));
	}
}

START_TEST(seeded_bit_reproducible)
{
	double *a, *b, *c;
	size_t na, nb, nc;
	aiw_sim *s1 = load(11, OVERLOAD);
	AIW_OK_OR_FAIL(s1, aiw_sim_run(s1));
	snapshot(s1, &a, &na);
	aiw_sim *s2 = load(11, OVERLOAD);
	AIW_OK_OR_FAIL(s2, aiw_sim_run(s2));
	snapshot(s2, &b, &nb);
	ck_assert_uint_eq(na, nb);
	ck_assert(memcmp(a, b, na * sizeof *a) == 0);
	/* a reset replays the same run, bit for bit */
	AIW_OK_OR_FAIL(s1, aiw_sim_reset(s1));
	AIW_OK_OR_FAIL(s1, aiw_sim_run(s1));
	snapshot(s1, &c, &nc);
	ck_assert_uint_eq(na, nc);
	ck_assert(memcmp(a, c, na * sizeof *a) == 0);
	/* another seed, another run */
	aiw_sim *s3 = load(12, OVERLOAD);
	AIW_OK_OR_FAIL(s3, aiw_sim_run(s3));
	ck_assert(M(s3, "hot", "requests_arrived") != M(s1, "hot", "requests_arrived"));
	free(a);
	free(b);
	free(c);
	aiw_sim_free(s1);
	aiw_sim_free(s2);
	aiw_sim_free(s3);
}
END_TEST

/* Span ends run in place inside the master event when nothing else comes
 * first (aiwi_engine_run_inline), but not past a due progress report (the
 * run loop checks between events): a run watched by a progress callback is
 * the same run, bit for bit, and the callback sees every report. */
static int count_reports(aiw_sim *sim, double now, double end, void *payload)
{
	(void)sim;
	(void)end;
	double *last = payload;
	ck_assert(now >= last[0] + 0.013 && now < last[0] + 0.013 + 0.5);
	last[0] = now - fmod(now, 0.013);
	last[1]++;
	return 0;
}

START_TEST(progress_same_bits)
{
	double *a, *c;
	size_t na, nc;
	aiw_sim *s1 = load(11, OVERLOAD);
	AIW_OK_OR_FAIL(s1, aiw_sim_run(s1));
	snapshot(s1, &a, &na);
	aiw_sim *s3 = load(11, OVERLOAD);
	double last[2] = {-0.013, 0};
	AIW_OK_OR_FAIL(s3, aiw_sim_set_progress(s3, count_reports, last, 0.013));
	AIW_OK_OR_FAIL(s3, aiw_sim_run(s3));
	ck_assert(last[1] > 1000);
	snapshot(s3, &c, &nc);
	ck_assert_uint_eq(na, nc);
	ck_assert(memcmp(a, c, na * sizeof *a) == 0);
	free(a);
	free(c);
	aiw_sim_free(s1);
	aiw_sim_free(s3);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* batching invariants                                                       */
/* ------------------------------------------------------------------------ */
START_TEST(continuous_kv_and_batch_bounds)
{
	/* a KV cache of ~7,400 tokens for 16 requests of ~1,700: memory binds
	 * before max_batch, so requests are preempted (recompute) */
	aiw_sim *sim = load(3, "[sim]\nduration = 20min\n"
	                       "[inference kv]\nreplicas = 3\nrate = 6/s\nmax_batch = 16\n"
	                       "kv_bytes_per_token = 20MB\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	double cap = M(sim, "kv", "kv_capacity_bytes"), peak = M(sim, "kv", "kv_peak_bytes");
	ck_assert_msg(peak <= cap, "KV peak %g > capacity %g", peak, cap);
	ck_assert_msg(peak > 0.95 * cap, "KV peak %g: the constraint was not binding", peak);
	ck_assert(M(sim, "kv", "preemptions") > 0);
	ck_assert(M(sim, "kv", "batch_size_max") <= 16);
	ck_assert(M(sim, "kv", "batch_size_p99") <= 16);
	check_conservation(sim, "kv");
	aiw_sim_free(sim);

	/* plenty of memory: max_batch binds, and is reached */
	sim = load(3, "[sim]\nduration = 10min\n"
	              "[inference mb]\nreplicas = 1\nrate = 20/s\nmax_batch = 8\n"
	              "model_params = 8e9\nlayers = 32\ngpus_per_replica = 1\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert(M(sim, "mb", "batch_size_max") == 8);
	ck_assert(M(sim, "mb", "batch_size_p99") == 8);
	ck_assert(M(sim, "mb", "kv_peak_bytes") <= M(sim, "mb", "kv_capacity_bytes"));
	ck_assert(M(sim, "mb", "preemptions") == 0);
	check_conservation(sim, "mb");
	aiw_sim_free(sim);

	/* batches of a few hundred with long outputs: the running requests go
	 * from the sorted array to the heap (past 64 entries), while requests
	 * are preempted out of the middle of either (the way back, at 32:
	 * running_set_heap_and_back) */
	sim = load(11, "[sim]\nduration = 20min\n"
	               "[inference wide]\nreplicas = 2\ntraffic = bursty\ncv = 2\nrate = 8/s\n"
	               "max_batch = 400\nmodel_params = 8e9\nlayers = 32\ngpus_per_replica = 1\n"
	               "prompt_tokens = lognormal(median=300,sigma=1)\n"
	               "output_tokens = lognormal(median=1500,sigma=0.8)\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert(M(sim, "wide", "batch_size_max") > 128);
	ck_assert(M(sim, "wide", "batch_size_max") <= 400);
	ck_assert(M(sim, "wide", "preemptions") > 1000);
	ck_assert(M(sim, "wide", "kv_peak_bytes") <= M(sim, "wide", "kv_capacity_bytes"));
	check_conservation(sim, "wide");
	aiw_sim_free(sim);
}
END_TEST

/* The running requests of a replica cross from the sorted array to the heap
 * (past 64) and back (at 32), twice: two waves of 200 requests within a
 * second on one replica, 20 s apart, a third of them short (they leave from
 * the front of the array while it fills: the second wave reaches the heap
 * from an array that no longer starts at its first entry), the others long,
 * each of a different length in its wave (they drain one by one through the
 * heap and, below 32, the array again).  The KV cache is ample:
 * no preemption, so every request yields exactly its output tokens, and the
 * tokens counted per decode iteration (batch size x iterations) add up to
 * the trace's only if each request left at its own iteration. */
START_TEST(running_set_heap_and_back)
{
	char path[256];
	FILE *tf = aiwi_test_tmpfile(path, sizeof path);
	double prompts = 0, outputs = 0;
	for (int i = 0; i < 400; i++) {
		int prompt = 50 + i % 200, output = i % 3 == 0 ? 3 + i % 7 : 800 + 3 * (i % 200);
		fprintf(tf, "%.3f,%d,%d\n", 0.005 * (i % 200) + (i < 200 ? 0 : 20), prompt, output);
		prompts += prompt;
		outputs += output;
	}
	fclose(tf);
	char text[512];
	snprintf(text, sizeof text,
	         "[sim]\nduration = 10min\n"
	         "[inference run]\nreplicas = 1\ngpus_per_replica = 1\nmax_batch = 400\n"
	         "model_params = 1e9\nlayers = 16\nkv_heads = 8\nhead_dim = 64\n"
	         "traffic = trace\ntrace_file = %s\n",
	         path);
	aiw_sim *sim = load(1, text);
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	unlink(path);
	ck_assert(M(sim, "run", "requests_completed") == 400);
	ck_assert(M(sim, "run", "requests_in_flight") == 0);
	ck_assert(M(sim, "run", "preemptions") == 0);
	ck_assert_msg(M(sim, "run", "batch_size_max") > 64, "batch_size_max %g: no heap",
	              M(sim, "run", "batch_size_max"));
	ck_assert_msg(M(sim, "run", "tokens_out") == outputs, "tokens_out %.17g, want %.17g",
	              M(sim, "run", "tokens_out"), outputs);
	ck_assert(M(sim, "run", "prefill_tokens") == prompts);
	check_conservation(sim, "run");
	aiw_sim_free(sim);
}
END_TEST

START_TEST(dynamic_batcher_delay)
{
	/* light load: batches are mostly started by the timer, the first
	 * request of a batch waits max_queue_delay (from when it found the
	 * replica free) and never longer */
	const char *fmt = "[sim]\nduration = 30min\n"
	                  "[inference dyn]\nreplicas = %d\nrate = %g/s\nbatching = dynamic\n"
	                  "max_batch = 8\nmax_queue_delay = 50ms\n"
	                  "model_params = 8e9\nlayers = 32\ngpus_per_replica = 1\n";
	char text[512];
	snprintf(text, sizeof text, fmt, 1, 0.5);
	aiw_sim *sim = load(5, text);
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	double w = M(sim, "dyn", "batch_wait_max_s");
	ck_assert_msg(w <= 0.050 * (1 + 1e-12), "batch wait %g > 50 ms", w);
	ck_assert_msg(w >= 0.050 * (1 - 1e-9), "batch wait %g: the timer never ran", w);
	ck_assert(M(sim, "dyn", "queue_wait_p50_s") >= 0.049);
	check_conservation(sim, "dyn");
	aiw_sim_free(sim);
	/* heavy load: batches fill up, and the bound still holds */
	snprintf(text, sizeof text, fmt, 2, 30.0);
	sim = load(5, text);
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert(M(sim, "dyn", "batch_wait_max_s") <= 0.050 * (1 + 1e-12));
	ck_assert(M(sim, "dyn", "batch_size_mean") > 2);
	ck_assert(M(sim, "dyn", "batch_size_max") == 8);
	ck_assert(M(sim, "dyn", "kv_peak_bytes") <= M(sim, "dyn", "kv_capacity_bytes"));
	check_conservation(sim, "dyn");
	aiw_sim_free(sim);
}
END_TEST

START_TEST(none_serves_one_at_a_time)
{
	aiw_sim *sim = load(2, "[sim]\nduration = 10min\n"
	                       "[inference one]\nreplicas = 2\nrate = 2/s\nbatching = none\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert(M(sim, "one", "batch_size_max") == 1);
	ck_assert(M(sim, "one", "batch_size_mean") == 1);
	check_conservation(sim, "one");
	aiw_sim_free(sim);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* traces                                                                    */
/* ------------------------------------------------------------------------ */
/* Arrivals per minute of a trace, straight from the file. */
static size_t trace_minutes(const char *path, double *count, size_t cap, size_t *rows)
{
	FILE *f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	char line[256];
	int64_t s0 = 0, n0 = 0;
	size_t nmin = 0;
	*rows = 0;
	ck_assert(fgets(line, sizeof line, f)); /* header */
	while (fgets(line, sizeof line, f)) {
		int64_t s, ns;
		ck_assert(aiwi_trace_parse_datetime(line, strcspn(line, ","), &s, &ns));
		if (*rows == 0)
			s0 = s, n0 = ns;
		double rel = (double)(s - s0) + (double)(ns - n0) * 1e-9;
		size_t m = (size_t)(rel / 60);
		ck_assert(m < cap);
		count[m]++;
		if (m + 1 > nmin)
			nmin = m + 1;
		(*rows)++;
	}
	fclose(f);
	return nmin;
}

static void replay(const char *file, double rows_expected)
{
	char path[256];
	snprintf(path, sizeof path, "%s/examples/traces/%s", AIW_SRCDIR, file);
	char text[5000];
	snprintf(text, sizeof text,
	         "[sim]\nduration = 2h\nsample_interval = 1min\n"
	         "[inference tr]\nreplicas = 8\ntraffic = trace\ntrace_file = %s\n",
	         path);
	aiw_sim *sim = load(1, text);
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	/* every request arrived and was served */
	ck_assert_msg(M(sim, "tr", "requests_arrived") == rows_expected, "%s: %g arrivals", file,
	              M(sim, "tr", "requests_arrived"));
	ck_assert(M(sim, "tr", "requests_completed") == rows_expected);
	ck_assert(M(sim, "tr", "requests_in_flight") == 0);
	ck_assert(M(sim, "tr", "requests_dropped") == 0);
	check_conservation(sim, "tr");
	/* arrivals per minute equal the file's */
	static double want[200], got[200];
	memset(want, 0, sizeof want);
	size_t rows;
	size_t nmin = trace_minutes(path, want, 200, &rows);
	ck_assert(rows == rows_expected);
	size_t n = curve(sim, "inference.tr.arrival_rate", NULL, got, 200);
	ck_assert_uint_eq(n, 120);
	for (size_t m = 0; m < n; m++)
		ck_assert_msg(fabs(got[m] * 60 - want[m]) < 1e-6, "%s minute %zu: %g arrivals, file %g",
		              file, m, got[m] * 60, want[m]);
	ck_assert(nmin <= 60);
	/* output tokens are the trace's own: tokens = sum of GeneratedTokens */
	ck_assert(M(sim, "tr", "tokens_out") > rows_expected * 10);
	aiw_sim_free(sim);
}

START_TEST(azure_code_trace)
{
	replay("AzureLLMInferenceTrace_code.csv", 8819);
}
END_TEST

START_TEST(azure_conv_trace)
{
	replay("AzureLLMInferenceTrace_conv.csv", 19366);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* diurnal arrivals                                                          */
/* ------------------------------------------------------------------------ */
START_TEST(diurnal_counts_per_hour)
{
	/* rate(t) = 5 (1 + a sin(2 pi (h - 14 + 6)/24)), a = 9/11: the count of
	 * hour k is Poisson with mean m_k = integral of the rate over the hour
	 * (closed form below); 4.5 standard deviations per hour leave a chance
	 * of ~2e-4 that one of 24 hours fails by chance */
	aiw_sim *sim = load(9, "[sim]\nduration = 24h\nsample_interval = 1h\n"
	                       "[inference d]\nreplicas = 100\ntraffic = diurnal\nrate = 5/s\n"
	                       "peak_to_trough = 10\npeak_hour = 14\nservice = const(10ms)\n"
	                       "batching = none\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	double v[24];
	ck_assert_uint_eq(curve(sim, "inference.d.arrival_rate", NULL, v, 24), 24);
	double a = 9.0 / 11.0, w = 2 * 3.14159265358979323846 / 24, phi = w * (6 - 14), lo = 1e300, hi = 0;
	double mlo = 1e300, mhi = 0;
	for (int k = 0; k < 24; k++) {
		/* integral over [k, k+1] h of 5 (1 + a sin(w h + phi)) dh, in seconds */
		double m = 5 * 3600 * (1 - a / w * (cos(w * (k + 1) + phi) - cos(w * k + phi)));
		double got = v[k] * 3600;
		ck_assert_msg(fabs(got - m) <= 4.5 * sqrt(m), "hour %d: %g arrivals, expected %g", k,
		              got, m);
		lo = fmin(lo, got), hi = fmax(hi, got);
		mlo = fmin(mlo, m), mhi = fmax(mhi, m);
	}
	/* the observed peak/trough ratio of hourly counts vs the expected one
	 * (hourly means flatten the 10x instantaneous ratio a little) */
	ck_assert_msg(fabs(hi / lo - mhi / mlo) < 0.1 * (mhi / mlo), "peak/trough %g vs %g", hi / lo,
	              mhi / mlo);
	ck_assert(mhi / mlo > 9);
	check_conservation(sim, "d");
	aiw_sim_free(sim);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* replicas during a run                                                     */
/* ------------------------------------------------------------------------ */
START_TEST(replicas_change_exact_energy)
{
	/* no traffic: 2 idle replicas for 1 h; 2 more (60 s of loading) for the
	 * second hour; down to 1 for the third */
	aiw_sim *sim = load(1, "[sim]\nduration = 3h\nsample_interval = 30min\n"
	                       "[inference s]\nreplicas = 2\nrate = 0\ngpus_per_replica = 4\n"
	                       "cold_start = const(60s)\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run_until(sim, 3600));
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "inference.s.replicas", "4"));
	AIW_OK_OR_FAIL(sim, aiw_sim_run_until(sim, 3600 + 30));
	ck_assert(M(sim, "s", "replicas_loading") == 2);
	ck_assert(M(sim, "s", "replicas_ready") == 2);
	AIW_OK_OR_FAIL(sim, aiw_sim_run_until(sim, 7200));
	ck_assert(M(sim, "s", "replicas_ready") == 4);
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "inference.s.replicas", "1"));
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert(M(sim, "s", "replicas_ready") == 1);
	const aiwi_gpu_spec *g = h100();
	double ovh = 2800.0 / 8, idle = g->idle_w + ovh, ld = g->loading_w + ovh;
	double e = 4 * (2 * idle * 3600 + (2 * idle * 3600 + 2 * (ld * 60 + idle * 3540)) +
	                1 * idle * 3600);
	ck_assert_rel(M(sim, "s", "energy_kwh") * 3.6e6, e, 1e-12);
	double v[6];
	ck_assert_uint_eq(curve(sim, "inference.s.replicas", NULL, v, 6), 6);
	double want[6] = {2, 2, 4, 4, 1, 1};
	for (int i = 0; i < 6; i++)
		ck_assert_rel(v[i], want[i], 1e-12);
	ck_assert_rel(M(sim, "s", "gpu_hours"), 4 * (2 + 4 + 1), 1e-12);
	aiw_sim_free(sim);
}
END_TEST

START_TEST(scale_down_drains)
{
	/* shrink a busy fleet: draining replicas finish what they hold */
	aiw_sim *sim = load(4, "[sim]\nduration = 1h\n"
	                       "[inference s]\nreplicas = 4\nrate = 8/s\nrouter = round_robin\n"
	                       "cold_start = const(20s)\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run_until(sim, 600));
	double before = M(sim, "s", "requests_in_flight");
	ck_assert(before > 0);
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "inference.s.replicas", "2"));
	AIW_OK_OR_FAIL(sim, aiw_sim_run_until(sim, 601));
	ck_assert(M(sim, "s", "replicas_draining") + M(sim, "s", "replicas_ready") >= 2);
	check_conservation(sim, "s");
	AIW_OK_OR_FAIL(sim, aiw_sim_run_until(sim, 1800));
	ck_assert(M(sim, "s", "replicas_draining") == 0);
	ck_assert(M(sim, "s", "replicas_ready") == 2);
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "inference.s.replicas", "5"));
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert(M(sim, "s", "replicas_ready") == 5);
	check_conservation(sim, "s");
	ck_assert(M(sim, "s", "requests_dropped") == 0);
	aiw_sim_free(sim);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* the internal API for the autoscaler                                       */
/* ------------------------------------------------------------------------ */
static aiwi_comp *comp(aiw_sim *sim, const char *name)
{
	aiwi_comp *c = NULL;
	ck_assert_int_eq(aiwi_comp_get(sim, "inference", name, false, &c), AIW_OK);
	return c;
}

START_TEST(internal_api)
{
	aiw_sim *sim = load(8, "[sim]\nduration = 30min\n"
	                       "[inference a]\nreplicas = 3\nrate = 6/s\n");
	aiwi_comp *c = comp(sim, "a");
	ck_assert(!aiwi_serving_active(c));
	ck_assert_int_eq(aiwi_serving_add_replica(c, 0, false), AIW_ESTATE);
	AIW_OK_OR_FAIL(sim, aiw_sim_run_until(sim, 300));
	ck_assert(aiwi_serving_active(c));
	aiwi_serving_counts k;
	aiwi_serving_get_counts(c, &k);
	ck_assert_uint_eq(k.ready, 3);
	ck_assert(k.arrived == M(sim, "a", "requests_arrived"));
	ck_assert(k.waiting + k.running == M(sim, "a", "requests_in_flight"));
	ck_assert_uint_eq(aiwi_serving_slots(c), 3);
	uint32_t out = 0;
	for (size_t i = 0; i < 3; i++) {
		ck_assert_int_eq(aiwi_serving_replica_state(c, i), AIW_REPLICA_READY);
		out += aiwi_serving_replica_outstanding(c, i);
	}
	ck_assert(out == k.waiting + k.running);
	/* a spot replica with a 10 s cold start */
	int id = aiwi_serving_add_replica(c, 10, true);
	ck_assert_int_eq(id, 3);
	ck_assert_int_eq(aiwi_serving_replica_state(c, 3), AIW_REPLICA_LOADING);
	ck_assert(aiwi_serving_replica_spot(c, 3));
	ck_assert_int_eq(aiwi_serving_add_replica(c, -1, false), AIW_ERANGE);
	AIW_OK_OR_FAIL(sim, aiw_sim_run_until(sim, 311));
	ck_assert_int_eq(aiwi_serving_replica_state(c, 3), AIW_REPLICA_READY);
	/* lose replica 0 abruptly: its requests restart elsewhere (its running
	 * ones count as preempted) */
	double pre0 = M(sim, "a", "preemptions");
	ck_assert_int_eq(aiwi_serving_fail_replica(c, 0), AIW_OK);
	ck_assert_int_eq(aiwi_serving_replica_state(c, 0), AIW_REPLICA_FREE);
	ck_assert_int_eq(aiwi_serving_fail_replica(c, 0), AIW_EINVAL);
	AIW_OK_OR_FAIL(sim, aiw_sim_run_until(sim, 312));
	ck_assert(M(sim, "a", "preemptions") >= pre0);
	check_conservation(sim, "a");
	/* the slot is reused by the next replica */
	ck_assert_int_eq(aiwi_serving_add_replica(c, 0, false), 0);
	/* remove: the least loaded ready one, drained */
	ck_assert(aiwi_serving_remove_replica(c, -1) >= 0);
	double busy, paid, wait;
	aiwi_serving_integrals(c, &busy, &paid, &wait);
	ck_assert(paid > busy && busy > 0 && wait >= 0);
	ck_assert(aiwi_serving_traffic(c) != NULL);
	ck_assert_int_eq(aiwi_serving_set_spot_factor(c, 2), AIW_ERANGE);
	AIW_OK_OR_FAIL(sim, aiwi_serving_set_spot_factor(c, 0.4));
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	check_conservation(sim, "a");
	ck_assert(M(sim, "a", "requests_dropped") == 0);
	aiw_sim_free(sim);
}
END_TEST

/* The autoscaler's port (autoscale/port.h) is the fleet's own interface:
 * every entry answers as the function of serving.h it stands for. */
START_TEST(autoscaler_port)
{
	aiw_sim *sim = load(8, "[sim]\nduration = 30min\n"
	                       "[inference a]\nreplicas = 2\nrate = 6/s\n");
	aiwi_comp *c = comp(sim, "a");
	const aiwi_fleet_port *p = &aiwi_serving_port;
	AIW_OK_OR_FAIL(sim, aiw_sim_run_until(sim, 120));
	aiwi_fleet_counts a, b;
	p->counts(c, &a);
	aiwi_serving_get_counts(c, &b);
	ck_assert(a.ready == 2 && !memcmp(&a, &b, sizeof a));
	ck_assert_uint_eq(p->slots(c), 2);
	int id = p->add_replica(c, 5, true);
	ck_assert_int_eq(id, 2);
	ck_assert_int_eq(p->replica_state(c, 2), AIW_REPLICA_LOADING);
	ck_assert(p->replica_spot(c, 2) && !p->replica_spot(c, 0));
	ck_assert_uint_eq(p->replica_outstanding(c, 0), aiwi_serving_replica_outstanding(c, 0));
	ck_assert(p->arrival_rate(c, 60) == aiwi_traffic_rate(aiwi_serving_traffic(c), 60));
	ck_assert(p->arrival_rate(c, 60) > 0);
	double busy, paid, wait, b2, p2, w2;
	p->integrals(c, &busy, &paid, &wait);
	aiwi_serving_integrals(c, &b2, &p2, &w2);
	ck_assert(busy == b2 && paid == p2 && wait == w2 && paid > 0);
	ck_assert_int_eq(p->remove_replica(c, 2), 2);
	ck_assert_int_eq(p->replica_state(c, 2), AIW_REPLICA_FREE);
	ck_assert_int_eq(p->fail_replica(c, 0), AIW_OK);
	ck_assert_int_eq(aiwi_serving_replica_state(c, 0), AIW_REPLICA_FREE);
	ck_assert_int_eq(p->set_spot_factor(c, 2), AIW_ERANGE);
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	check_conservation(sim, "a");
	aiw_sim_free(sim);
}
END_TEST

#if AIW_CHECKS
/* A checking build refuses a replica state change that is no arrow of
 * fleet.h's state machine: the state stays and the run fails. */
START_TEST(illegal_transition_refused)
{
	static const struct {
		int from_slot; /* 0: READY; 1: LOADING */
		aiwi_replica_state to;
	} moves[] = {{0, AIW_REPLICA_LOADING}, {0, AIW_REPLICA_READY}, {1, AIW_REPLICA_DRAINING}};
	for (size_t k = 0; k < sizeof moves / sizeof *moves; k++) {
		aiw_sim *sim = load(8, "[sim]\nduration = 10min\n"
		                       "[inference a]\nreplicas = 1\nrate = 2/s\n");
		aiwi_comp *c = comp(sim, "a");
		AIW_OK_OR_FAIL(sim, aiw_sim_run_until(sim, 60));
		ck_assert_int_eq(aiwi_serving_add_replica(c, 100, false), 1);
		aiwi_replica_state before = aiwi_serving_replica_state(c, moves[k].from_slot);
		ck_assert_int_eq(aiwi_serving_move_replica(c, moves[k].from_slot, moves[k].to),
		                 AIW_ESTATE);
		ck_assert_int_eq(aiwi_serving_replica_state(c, moves[k].from_slot), before);
		ck_assert_msg(strstr(aiw_sim_errmsg(sim), "no transition") != NULL, "message: %s",
		              aiw_sim_errmsg(sim));
		ck_assert_int_ne(aiw_sim_run(sim), AIW_OK);
		aiw_sim_free(sim);
	}
}
END_TEST
#endif

/* ------------------------------------------------------------------------ */
/* routers, traffic kinds, metrics                                           */
/* ------------------------------------------------------------------------ */
/* batching = none serves one request at a time: the 6 replicas complete
 * about 1.65 requests/s at saturation (timing = iteration; 5.2/s on the
 * roofline), so 1/s loads them to 60% and every batching mode clears its
 * queue within the run. */
START_TEST(every_router_and_traffic)
{
	static const char *routers[] = {"round_robin", "least_loaded", "p2c", "central"};
	static const char *batching[] = {"none", "dynamic", "continuous"};
	static const char *traffic[] = {"poisson", "diurnal", "bursty"};
	for (int r = 0; r < 4; r++)
		for (int b = 0; b < 3; b++) {
			char text[1024];
			snprintf(text, sizeof text,
			         "[sim]\nduration = 20min\n[site]\ngpus_per_rack = 5\n"
			         "[inference x]\nreplicas = 6\nrate = 1/s\nrouter = %s\nbatching = %s\n"
			         "model_params = 8e9\nlayers = 32\ngpus_per_replica = 2\n"
			         "traffic = %s\ncv = 3\nslo_ttft = 2s\nslo_tpot = 50ms\nslo_e2e = 60s\n",
			         routers[r], batching[b], traffic[(r + b) % 3]);
			aiw_sim *sim = load(1 + r, text);
			AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
			check_conservation(sim, "x");
			double arr = M(sim, "x", "requests_arrived");
			ck_assert_msg(M(sim, "x", "requests_completed") > 0.9 * arr, "%s/%s: %g of %g",
			              routers[r], batching[b], M(sim, "x", "requests_completed"), arr);
			/* percentiles ordered, attainments in [0, 1], goodput <= throughput */
			ck_assert(M(sim, "x", "ttft_p50_s") <= M(sim, "x", "ttft_p99_s"));
			ck_assert(M(sim, "x", "ttft_p99_s") <= M(sim, "x", "e2e_p99_s") * 1.02);
			double att = M(sim, "x", "slo_attainment");
			ck_assert(att >= 0 && att <= M(sim, "x", "slo_ttft_attainment"));
			ck_assert(M(sim, "x", "goodput_rps") <= M(sim, "x", "throughput_rps"));
			ck_assert(M(sim, "x", "cost_per_mtok_usd") > 0);
			ck_assert(M(sim, "x", "cost_per_request_usd") > 0);
			ck_assert(M(sim, "x", "compute_utilization") < M(sim, "x", "utilization"));
			/* 6 replicas x 2 GPUs in racks of 5 (one replica straddles two): 3 racks */
			ck_assert(aiwi_test_metric(sim, "site.racks") == 3);
			ck_assert(aiwi_test_metric(sim, "site.sum_of_rack_peaks_w") >=
			          aiwi_test_metric(sim, "site.power_peak_w") * (1 - 1e-12));
			/* the power curve integrates to the energy */
			double v[20];
			size_t n = curve(sim, "inference.x.power_w", NULL, v, 20);
			double e = 0;
			for (size_t i = 0; i < n; i++)
				e += v[i] * 60;
			ck_assert_rel(e, M(sim, "x", "energy_kwh") * 3.6e6, 1e-9);
			aiw_sim_free(sim);
		}
}
END_TEST

START_TEST(response_bytes_curve)
{
	aiw_sim *sim = load(6, "[sim]\nduration = 10min\n"
	                       "[inference r]\nreplicas = 2\nrate = 2/s\n"
	                       "response_bytes_per_token = 6\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	double v[10], tok[10];
	ck_assert_uint_eq(curve(sim, "inference.r.response_bytes_per_s", NULL, v, 10), 10);
	curve(sim, "inference.r.tokens_per_s", NULL, tok, 10);
	double sum = 0;
	for (int i = 0; i < 10; i++) {
		ck_assert_rel(v[i], 6 * tok[i], 1e-12);
		sum += tok[i] * 60;
	}
	ck_assert_rel(sum, M(sim, "r", "tokens_out"), 1e-9);
	ck_assert_rel(M(sim, "r", "response_bytes"), 6 * M(sim, "r", "tokens_out"), 1e-12);
	aiw_sim_free(sim);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* errors                                                                    */
/* ------------------------------------------------------------------------ */
static void expect_fail(const char *text, aiw_status code, const char *msg)
{
	aiw_sim *sim;
	ck_assert_int_eq(aiw_sim_create(&sim, 1), AIW_OK);
	aiw_status st = aiw_sim_load_string(sim, text, "bad");
	if (st == AIW_OK)
		st = aiw_sim_run(sim);
	/* code 0: any error (the scenario loader reports its own code) */
	ck_assert_msg(code ? st == code : st != AIW_OK, "%s: got %s (%s)", msg, aiw_status_name(st),
	              aiw_sim_errmsg(sim));
	ck_assert_msg(strstr(aiw_sim_errmsg(sim), msg), "message '%s' lacks '%s'",
	              aiw_sim_errmsg(sim), msg);
	aiw_sim_free(sim);
}

/* A trace that changes under a running replay (here cut to half its rows
 * between two run calls) stops the run with AIW_EIO and a message naming
 * the file and both row counts, as aiw_sim_run(3) says: at the failing
 * event, with the metrics of what ran, failed until a reset. */
START_TEST(trace_changed_during_run)
{
	char path[256];
	FILE *tf = aiwi_test_tmpfile(path, sizeof path);
	long half = 0;
	for (int i = 0; i < 100000; i++) {
		if (i == 50000)
			half = ftell(tf);
		fprintf(tf, "%.1f,100,10\n", 0.1 * i);
	}
	fclose(tf);
	char text[512];
	snprintf(text, sizeof text,
	         "[sim]\nduration = 3h\n"
	         "[inference t]\nreplicas = 2\nservice = exp(0.1)\ntraffic = trace\n"
	         "trace_file = %s\n",
	         path);
	aiw_sim *sim = load(1, text);
	AIW_OK_OR_FAIL(sim, aiw_sim_run_until(sim, 100));
	ck_assert_int_eq(truncate(path, half), 0);
	ck_assert_int_eq(aiw_sim_run(sim), AIW_EIO);
	const char *m = aiw_sim_errmsg(sim);
	ck_assert_msg(strstr(m, "inference.t: ") && strstr(m, path) &&
	                  strstr(m, "the file changed during the run (50000 rows, 100000 at start)"),
	              "%s", m);
	/* it stopped at the arrival it could read last, row 49,999 at 4999.9 s
	 * (whose successor could not be read: it never entered the model), and
	 * published the metrics of what ran: rows 0 to 49,998 */
	double now = 0;
	AIW_OK_OR_FAIL(sim, aiw_sim_now(sim, &now));
	ck_assert_msg(now == 4999.9, "stopped at %.17g s", now);
	ck_assert_msg(aiwi_test_metric(sim, "sim.time_s") == 4999.9, "metrics at %.17g s",
	              aiwi_test_metric(sim, "sim.time_s"));
	ck_assert_msg(M(sim, "t", "requests_arrived") == 49999, "%.17g arrived",
	              M(sim, "t", "requests_arrived"));
	check_conservation(sim, "t");
	/* until a reset, the run stays failed */
	ck_assert_int_eq(aiw_sim_run(sim), AIW_EIO);
	ck_assert_msg(strstr(aiw_sim_errmsg(sim), "the run failed earlier"), "%s",
	              aiw_sim_errmsg(sim));
	ck_assert_int_eq(aiw_sim_reset(sim), AIW_OK);
	aiw_sim_free(sim);
	unlink(path);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* eager cuts (fleet_eager.c): the same results as boundary events          */
/* ------------------------------------------------------------------------ */
/* Each inference component of sim set to do its cuts eagerly or not. */
static void set_eager(aiw_sim *sim, bool eager)
{
	for (size_t i = 0; aiwi_comp_at(sim, i); i++) {
		aiwi_comp *c = aiwi_comp_at(sim, i);
		if (aiwi_serving_active(c))
			AIW_OK_OR_FAIL(sim, aiwi_serving_set_eager(c, eager));
	}
}

/* Run text with eager cuts on (eager 1) or off (0), or on for the first
 * half of the steps and off from there (2: the cuts pending then are
 * undone), in `steps` calls of aiw_sim_run_until when steps > 1, so that
 * runs stop with admissions pending.  Every way starts the run at t = 0
 * first, where the components are set. */
static aiw_sim *run_cuts(const char *text, int eager, int steps)
{
	aiw_sim *sim = load(11, text);
	AIW_OK_OR_FAIL(sim, aiw_sim_run_until(sim, 0));
	set_eager(sim, eager != 0);
	if (steps > 1) {
		double d = NAN;
		AIW_OK_OR_FAIL(sim, aiw_sim_get_double(sim, "sim.duration", &d));
		for (int i = 1; i <= steps; i++) {
			AIW_OK_OR_FAIL(sim, aiw_sim_run_until(sim, i < steps ? d * i / steps + 0.0123 : d));
			if (eager == 2 && i == steps / 2)
				set_eager(sim, false);
		}
	} else {
		AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	}
	return sim;
}


START_TEST(eager_cuts_equal_boundary_events)
{
	static const char *const cases[][2] = {
	    {"KV pressure (preempted requests re-admitted first) and spot reclaims (requeued "
	     "ones too)",
	     "[sim]\nduration = 2h\nsample_interval = 1min\n"
	     "[inference kv]\ngpus_per_replica = 2\nmodel_params = 70e9\nreplicas = 6\n"
	     "traffic = bursty\ncv = 3\nrate = 12/s\nmax_batch = 48\n"
	     "prompt_tokens = lognormal(median=4000,sigma=1)\n"
	     "output_tokens = lognormal(median=800,sigma=1)\n"
	     "spot_fraction = 1\nspot_preemption_rate = 60/h\nspot_notice = 0\ncold_start = 20s\n"},
	    {"queue limit 1: the requests of a pending start still count in the queue",
	     "[sim]\nduration = 30min\nsample_interval = 1min\n"
	     "[inference q]\ngpus_per_replica = 1\nmodel_params = 8e9\nlayers = 32\n"
	     "replicas = 2\nrate = 150/s\nmax_batch = 64\nqueue_limit = 1\n"},
	    {"spot reclaims without notice (failures before a pending start), p2c, queue limit",
	     "[sim]\nduration = 2h\nsample_interval = 1min\n"
	     "[inference s]\ngpus_per_replica = 1\nmodel_params = 8e9\nlayers = 32\n"
	     "replicas = 8\nrate = 30/s\nrouter = p2c\nmax_batch = 32\nqueue_limit = 50\n"
	     "spot_fraction = 1\nspot_preemption_rate = 20/h\nspot_notice = 0\ncold_start = 30s\n"},
	    {"round robin, max_batch 3, queue limit 2; diurnal least loaded",
	     "[sim]\nduration = 40min\nsample_interval = 30s\n"
	     "[inference a]\ngpus_per_replica = 1\nmodel_params = 8e9\nlayers = 32\n"
	     "replicas = 4\nrate = 40/s\nrouter = round_robin\nmax_batch = 3\nqueue_limit = 2\n"
	     "[inference b]\ngpus_per_replica = 1\nmodel_params = 3e9\nlayers = 32\n"
	     "replicas = 7\nrate = 60/s\ntraffic = diurnal\npeak_hour = 0.3\nmax_batch = 16\n"},
	    {"HPA on the queue, scale-in drains",
	     "[sim]\nduration = 1h\nsample_interval = 1min\n"
	     "[inference h]\ngpus_per_replica = 1\nmodel_params = 8e9\nlayers = 32\n"
	     "replicas = 3\nrate = 25/s\ntraffic = diurnal\npeak_hour = 0.5\nmax_batch = 8\n"
	     "autoscaler = hpa\nmetric = queue\nmax_replicas = 9\ncold_start = 20s\n"},
	    {"speculative decoding (a draft model), spot reclaims",
	     "[sim]\nduration = 1h\nsample_interval = 1min\n"
	     "[inference d]\ngpus_per_replica = 1\nmodel_params = 8e9\nlayers = 32\n"
	     "replicas = 4\nrate = 40/s\nmax_batch = 32\nspeculative = draft\n"
	     "spot_fraction = 1\nspot_preemption_rate = 20/h\nspot_notice = 0\ncold_start = 30s\n"},
	};
	for (size_t i = 0; i < sizeof cases / sizeof *cases; i++)
		for (int steps = 1; steps <= 7; steps += 6) {
			aiw_sim *a = run_cuts(cases[i][1], 1, steps), *b = run_cuts(cases[i][1], 0, steps);
			aiwi_test_same_results(a, b, cases[i][0]);
			if (steps > 1) { /* eager cuts turned off in the middle of the run */
				aiw_sim *m = run_cuts(cases[i][1], 2, steps);
				aiwi_test_same_results(a, m, cases[i][0]);
				aiw_sim_free(m);
			}
			/* and with fewer events: a cut that admits is no event */
			double ea = aiwi_test_metric(a, "sim.events"), eb = aiwi_test_metric(b, "sim.events");
			ck_assert_msg(ea < eb, "%s: %g events eager, %g with boundary events", cases[i][0],
			              ea, eb);
			aiw_sim_free(a);
			aiw_sim_free(b);
		}
}
END_TEST

START_TEST(errors)
{
	expect_fail("[inference big]\ngpu = L4\ngpus_per_replica = 1\n", AIW_ERANGE, "do not fit");
	expect_fail("[inference t]\ntraffic = trace\n", AIW_EINVAL,
	            "inference.t.trace_file is not set");
	expect_fail("[inference t]\ngpu = H1000\n", AIW_EUNKNOWN, "H1000");
	expect_fail("[inference t]\nrouter = random\n", 0,
	            "'random' is not one of round_robin|least_loaded|p2c|central");
	expect_fail("[inference t]\nmax_batch = 0\n", 0, "max_batch");
	expect_fail("[inference t]\ntraffic = trace\ntrace_file = /nonexistent/x.csv\n", AIW_EIO,
	            "x.csv");
	/* replicas may change during a run, max_batch may not */
	aiw_sim *sim = load(1, "[sim]\nduration = 1h\n[inference t]\nrate = 0\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run_until(sim, 10));
	ck_assert_int_eq(aiw_sim_set(sim, "inference.t.max_batch", "4"), AIW_ESTATE);
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "inference.t.replicas", "3"));
	aiw_sim_free(sim);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("serving");
	TCase *tc = tcase_create("model");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, roofline_one_request);
	tcase_add_test(tc, prefill_energy_exact_at_ticks);
	tcase_add_test(tc, conservation_with_drops);
	tcase_add_test(tc, seeded_bit_reproducible);
	tcase_add_test(tc, progress_same_bits);
	tcase_add_test(tc, continuous_kv_and_batch_bounds);
	tcase_add_test(tc, running_set_heap_and_back);
	tcase_add_test(tc, dynamic_batcher_delay);
	tcase_add_test(tc, none_serves_one_at_a_time);
	tcase_add_test(tc, azure_code_trace);
	tcase_add_test(tc, azure_conv_trace);
	tcase_add_test(tc, diurnal_counts_per_hour);
	tcase_add_test(tc, replicas_change_exact_energy);
	tcase_add_test(tc, scale_down_drains);
	tcase_add_test(tc, internal_api);
	tcase_add_test(tc, autoscaler_port);
#if AIW_CHECKS
	tcase_add_test(tc, illegal_transition_refused);
#endif
	tcase_add_test(tc, every_router_and_traffic);
	tcase_add_test(tc, response_bytes_curve);
	tcase_add_test(tc, trace_changed_during_run);
	tcase_add_test(tc, eager_cuts_equal_boundary_events);
	tcase_add_test(tc, errors);
	suite_add_tcase(s, tc);
	return s;
}

AIW_TEST_MAIN(make_suite)
