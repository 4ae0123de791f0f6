/* test_telemetry.c - the GPU telemetry figures (aiworkload(7)
 * "Utilisation"): kernel-busy time (nvidia-smi's utilization.gpu) and tensor
 * activity (FLOPs / peak, DCGM's tensor-pipe activity) of an inference fleet
 * and of a training job and DRAM activity (bytes / peak bandwidth, DCGM's
 * DRAM activity) of an inference fleet against closed forms, their curves integrating back
 * to the metrics, the site's figures as GPU-weighted means of the same
 * figure, and the summary's headline rows: no unlike figures averaged, no
 * 100 % busy line standing for what the GPUs compute. */
#include "core/internal.h"
#include "hw/hw.h"
#include "../testutil.h"

#include <stdarg.h>
#include <string.h>
#include <unistd.h>

static aiw_sim *load(const char *fmt, ...) AIW_PRINTF(1, 2);
static aiw_sim *load(const char *fmt, ...)
{
	char text[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	aiw_sim *sim;
	ck_assert_int_eq(aiw_sim_create(&sim, 1), AIW_OK);
	AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim, text, "test.ini"));
	return sim;
}

static double M(aiw_sim *sim, const char *name)
{
	return aiwi_test_metric(sim, name);
}

/* The interval average of a curve recorded every `dt' seconds over [0, T]:
 * sum of v_i x (t_i - t_{i-1}) / T. */
static double curve_mean(aiw_sim *sim, const char *name, double T)
{
	size_t n = 0, got = 0;
	AIW_OK_OR_FAIL(sim, aiw_sim_series_length(sim, name, &n));
	double *t = malloc(n * sizeof *t), *v = malloc(n * sizeof *v);
	ck_assert(t && v);
	AIW_OK_OR_FAIL(sim, aiw_sim_series_copy(sim, name, t, v, n, &got));
	double s = 0, prev = 0;
	for (size_t i = 0; i < got; i++) {
		s += v[i] * (t[i] - prev);
		prev = t[i];
	}
	free(t);
	free(v);
	return s / T;
}

/* The flags of a catalogued metric ("site.utilization",
 * "inference.NAME.kernel_busy"). */
static unsigned flags_of(const char *want)
{
	size_t n = 0;
	ck_assert_int_eq(aiw_metric_count(&n), AIW_OK);
	for (size_t i = 0; i < n; i++) {
		const char *name, *label, *unit, *doc;
		unsigned fl = 0;
		ck_assert_int_eq(aiw_metric_info(i, &name, &label, &unit, &doc, NULL, NULL, &fl),
		                 AIW_OK);
		if (strcmp(name, want) == 0)
			return fl;
	}
	ck_abort_msg("%s: not catalogued", want);
	return 0;
}

static double peak_bf16(void)
{
	const aiwi_gpu_spec *g = aiwi_hw_gpu(NULL, "H100-SXM");
	ck_assert(g != NULL);
	return g->bf16_flops;
}

/* ------------------------------------------------------------------------ */
/* inference                                                                 */
/* ------------------------------------------------------------------------ */
/* One request of 1000 prompt and 100 output tokens on one replica of 2 H100
 * (70B at 16 bits, batching none, timing = roofline set: the closed form
 * below is the roofline's): kernel-busy while it is served, prefill
 * then 99 decode iterations; 2 P FLOPs per token, prompt and output, and
 * the attention FLOPs, over the peak of the GPUs paid for the whole run. */
START_TEST(inference_one_request)
{
	char path[256];
	FILE *f = aiwi_test_tmpfile(path, sizeof path);
	fprintf(f, "0,1000,100\n");
	fclose(f);
	aiw_sim *sim = load("[sim]\nduration = 600s\nsample_interval = 60s\n"
	                    "[inference one]\ngpus_per_replica = 2\nreplicas = 1\nbatching = none\n"
	                    "traffic = trace\ntrace_file = %s\ntiming = roofline\n",
	                    path);
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	unlink(path);
	const aiwi_gpu_spec *g = aiwi_hw_gpu(NULL, "H100-SXM");
	double P = 70e9, W = P * 2, kv = 2.0 * 80 * 8 * 128 * 2, G = 2, T = 600;
	double F = G * g->bf16_flops * 0.5, B = G * g->mem_bw * 0.7;
	double tp = fmax(2 * P * 1000 / F, W / B), td = 0;
	for (int j = 0; j < 99; j++)
		td += fmax(2 * P / F, (W + kv * (1001 + j)) / B);
	/* FLOPs: 2 P per token, attention's 2 L d 1000^2 for the prompt and
	 * 4 L d s per decoded token over s = 1001 .. 1099 tokens of context */
	double L = 80, d = sqrt(P / (12 * L)), fl = 2 * P * (1000 + 99) + 2 * L * d * 1e6;
	for (int j = 0; j < 99; j++)
		fl += 4 * L * d * (1001 + j);
	double kb = (tp + td) / T, ta = fl / (G * g->bf16_flops * T);
	ck_assert_rel(M(sim, "inference.one.kernel_busy"), kb, 1e-12);
	ck_assert_rel(M(sim, "inference.one.tensor_activity"), ta, 1e-12);
	/* the kept keys: the same figures */
	ck_assert_rel(M(sim, "inference.one.utilization"), kb, 1e-12);
	ck_assert_rel(M(sim, "inference.one.compute_utilization"), ta, 1e-12);
	/* the curves average back to them (equal intervals of 60 s) */
	ck_assert_rel(curve_mean(sim, "inference.one.kernel_busy", T), kb, 1e-12);
	ck_assert_rel(curve_mean(sim, "inference.one.tensor_activity", T), ta, 1e-12);
	/* DRAM: the prefill reads the weights once, decode iteration j the
	 * weights and the KV cache of its 1001 + j context tokens */
	double bytes = W;
	for (int j = 0; j < 99; j++)
		bytes += W + kv * (1001 + j);
	double da = bytes / (G * g->mem_bw * T);
	ck_assert_rel(M(sim, "inference.one.dram_activity"), da, 1e-12);
	ck_assert_rel(curve_mean(sim, "inference.one.dram_activity", T), da, 1e-12);
	/* one component: the site's figures are its own */
	ck_assert_rel(M(sim, "site.kernel_busy"), kb, 1e-12);
	ck_assert_rel(M(sim, "site.tensor_activity"), ta, 1e-12);
	ck_assert_rel(curve_mean(sim, "site.tensor_activity", T), ta, 1e-12);
	aiw_sim_free(sim);
}
END_TEST

/* A fixed fleet of 4 replicas kept busy by steady Poisson traffic under
 * continuous batching: busy near 100 % whatever the load, while the FLOPs
 * are a small share of the peak: 2 P tokens / (GPU-seconds x peak), tokens =
 * prompt + output tokens computed (the fleet's own counts), and attention's
 * FLOPs over the context. */
START_TEST(inference_busy_is_not_compute)
{
	aiw_sim *sim = load("[sim]\nduration = 1h\nsample_interval = 60s\n"
	                    "[inference chat]\nreplicas = 4\ngpus_per_replica = 8\n"
	                    "model_params = 70e9\nbatching = continuous\nrate = 8/s\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	double kb = M(sim, "inference.chat.kernel_busy"), ta = M(sim, "inference.chat.tensor_activity");
	ck_assert_msg(kb > 0.95, "kernel-busy %g", kb);
	ck_assert_msg(ta < 0.25 * kb, "tensor activity %g against busy %g", ta, kb);
	/* decode FLOPs: 2 P per output token but the first (made by the
	 * prefill), prefill 2 P per prompt token; the run ends with requests in
	 * flight, so bound it by the completed and the started requests' tokens */
	double gs = M(sim, "inference.chat.gpu_hours") * 3600, pk = peak_bf16();
	double tok = M(sim, "inference.chat.tokens_out") + M(sim, "inference.chat.prefill_tokens");
	double hi = 2 * 70e9 * tok / (gs * pk);
	/* attention adds 2 L d T per prompt token of a prompt of T, 4 L d s per
	 * decoded token over s of context: at most 2 L d C / P more per token,
	 * C the largest context a replica held (kv_peak_bytes / kv_bytes_per_token
	 * >= any one sequence's) */
	double L = 80, d = sqrt(70e9 / (12 * L));
	double C = M(sim, "inference.chat.kv_peak_bytes") / M(sim, "inference.chat.kv_bytes_per_token");
	ck_assert_msg(ta <= hi * (1 + 2 * L * d * C / 70e9) * (1 + 1e-12) && ta >= 0.9 * hi,
	              "tensor %g, 2 P tokens / peak %g", ta, hi);
	/* decode is memory-bound: DRAM activity at most busy x mem_bw_efficiency
	 * (0.7) and, the batches being small, well above the tensor activity */
	double da = M(sim, "inference.chat.dram_activity");
	ck_assert_msg(da <= 0.7 * kb * (1 + 1e-9) && da > 2 * ta, "dram %g, busy %g, tensor %g", da,
	              kb, ta);
	/* the summary's headline: both figures, and the busy-time key no longer
	 * one (it is the same figure as kernel_busy) */
	unsigned fk = 0, ft = 0, fu = 0;
	fk = flags_of("inference.NAME.kernel_busy");
	ft = flags_of("inference.NAME.tensor_activity");
	fu = flags_of("inference.NAME.utilization");
	ck_assert(fk & AIW_METRIC_HEADLINE);
	ck_assert(ft & AIW_METRIC_HEADLINE);
	ck_assert(!(fu & AIW_METRIC_HEADLINE));
	aiw_sim_free(sim);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* training                                                                  */
/* ------------------------------------------------------------------------ */
#define NOCOMM "grad_bytes_per_param=0\nallreduce=tree\noverlap=1\n"

/* No jitter, no failures, hidden communication, step_compute = 10 s: 100.5
 * steps in 1005 s, every GPU in a kernel all the time; FLOPs 6 N D per step
 * (the half step's half of them) over N x peak x time. */
START_TEST(training_no_jitter)
{
	aiw_sim *sim = load("[sim]\nduration = 1005s\nsample_interval = 67s\n"
	                    "[training t]\ngpus = 64\nstep_compute = 10s\nmodel_params = 7e9\n"
	                    "tokens_per_step = 1e6\n" NOCOMM);
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	double T = 1005, N = 64, ta = 6 * 7e9 * 1e6 * 100.5 / (N * peak_bf16() * T);
	ck_assert_rel(M(sim, "training.t.kernel_busy"), 1.0, 1e-12);
	ck_assert_rel(M(sim, "training.t.tensor_activity"), ta, 1e-9);
	ck_assert_rel(curve_mean(sim, "training.t.kernel_busy", T), 1.0, 1e-12);
	ck_assert_rel(curve_mean(sim, "training.t.tensor_activity", T), ta, 1e-9);
	aiw_sim_free(sim);
}
END_TEST

/* Checkpoints: the GPUs run no kernel while one is written, so kernel-busy =
 * 1 - checkpoint time / wall; the useful-work utilisation (compute only)
 * differs from it by the exposed communication (overlap 0: all of it). */
START_TEST(training_checkpoints_idle)
{
	aiw_sim *sim = load("[sim]\nduration = 2h\nsample_interval = 60s\n"
	                    "[training t]\ngpus = 256\ncheckpoint_interval = 10min\n"
	                    "checkpoint_time = 30s\noverlap = 0\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	double wall = M(sim, "training.t.wall_s"), ck = M(sim, "training.t.checkpoint_s");
	ck_assert(ck > 0);
	ck_assert_rel(M(sim, "training.t.kernel_busy"), 1 - ck / wall, 1e-12);
	ck_assert_rel(curve_mean(sim, "training.t.kernel_busy", wall), 1 - ck / wall, 1e-12);
	/* FLOPs of the steps executed, the last one in part: between the
	 * completed steps' and one step more */
	double pk = peak_bf16(), N = 256, fs = 6 * 70e9 * 4e6;
	double steps = M(sim, "training.t.steps"), ta = M(sim, "training.t.tensor_activity");
	ck_assert(ta >= fs * steps / (N * pk * wall) && ta <= fs * (steps + 1) / (N * pk * wall));
	/* compute only (the useful-work curve) is below the kernel-busy time */
	double u = curve_mean(sim, "training.t.utilization", wall);
	ck_assert_msg(u < M(sim, "training.t.kernel_busy") - 0.01, "useful %g", u);
	aiw_sim_free(sim);
}
END_TEST

/* A layout job that ends before the run: the hardware FLOPs of full
 * recomputation, 3 fwd + L (gemm + attn) per token, over the model's 3 fwd
 * (fwd = L (gemm + attn) + 2 h V) is tensor activity / MFU achieved. */
START_TEST(training_layout_recompute)
{
	for (int full = 0; full < 2; full++) {
		aiw_sim *sim = load("[sim]\nduration = 1h\nsample_interval = 60s\n"
		                    "[training t]\ngpu = H100-SXM\ngpus = 8\n"
		                    "layers = 2\nhidden = 64\nheads = 2\nvocab = 100\n"
		                    "seq_len = 8\nglobal_batch = 8\nmax_steps = 1000\nrecompute = %s\n",
		                    full ? "full" : "none");
		AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
		double mfu = M(sim, "training.t.mfu_achieved"), ta = M(sim, "training.t.tensor_activity");
		ck_assert(M(sim, "training.t.steps") == 1000);
		double wall = M(sim, "training.t.wall_s"), tokens = M(sim, "training.t.tokens");
		double model = mfu * 8 * peak_bf16() * wall / tokens; /* model FLOPs per token */
		double want = full ? 1 + (model / 3 - 2 * 64 * 100) / model : 1;
		ck_assert_rel(ta / mfu, want, 1e-9);
		aiw_sim_free(sim);
	}
}
END_TEST

/* ------------------------------------------------------------------------ */
/* the site                                                                  */
/* ------------------------------------------------------------------------ */
/* A training job and an inference fleet: each site figure is the GPU-weighted
 * mean of the same figure of the components, never one kind's busy time
 * averaged with another's compute time; the old site.utilization stays (the
 * sum of each kind's useful work) but is no headline. */
START_TEST(site_weighted_means)
{
	aiw_sim *sim = load("[sim]\nduration = 2h\nsample_interval = 60s\n"
	                    "[training t]\ngpus = 128\n"
	                    "[inference chat]\nreplicas = 4\ngpus_per_replica = 8\n"
	                    "model_params = 70e9\nrate = 4/s\n");
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	double T = 7200;
	double gt = 128 * T, gi = M(sim, "inference.chat.gpu_hours") * 3600;
	const char *fig[] = {"kernel_busy", "tensor_activity"};
	for (int k = 0; k < 2; k++) {
		char a[64], b[64], s[64];
		snprintf(a, sizeof a, "training.t.%s", fig[k]);
		snprintf(b, sizeof b, "inference.chat.%s", fig[k]);
		snprintf(s, sizeof s, "site.%s", fig[k]);
		double want = (M(sim, a) * gt + M(sim, b) * gi) / (gt + gi);
		ck_assert_rel(M(sim, s), want, 1e-12);
		ck_assert_rel(curve_mean(sim, s, T), want, 1e-9);
	}
	unsigned fl = 0;
	fl = flags_of("site.utilization");
	ck_assert(!(fl & AIW_METRIC_HEADLINE));
	fl = flags_of("site.kernel_busy");
	ck_assert(fl & AIW_METRIC_HEADLINE);
	fl = flags_of("site.tensor_activity");
	ck_assert(fl & AIW_METRIC_HEADLINE);
	aiw_sim_free(sim);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* the autoscaling trap                                                      */
/* ------------------------------------------------------------------------ */
/* An HPA on the busy fraction of a continuously batching fleet whose load
 * two replicas serve within 16 requests in flight each climbs to
 * max_replicas, with a warning naming the reason and the fix; on
 * concurrency it stays small, unwarned. */
START_TEST(autoscale_busy_metric_warned)
{
	for (int conc = 0; conc < 2; conc++) {
		aiw_sim *sim = load("[sim]\nduration = 2h\nsample_interval = 60s\n"
		                    "[inference chat]\nreplicas = 2\ngpus_per_replica = 8\n"
		                    "model_params = 70e9\nbatching = continuous\nrate = 4/s\n"
		                    "autoscaler = hpa\nmin_replicas = 1\nmax_replicas = 12\n%s",
		                    conc ? "metric = concurrency\ntarget_value = 16\n" : "");
		AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
		double peak = M(sim, "inference.chat.replicas_peak");
		bool w = aiwi_test_warned(sim, "metric = utilization with continuous batching");
		if (conc) {
			ck_assert_msg(!w, "warned on concurrency");
			ck_assert_msg(peak <= 4, "peak %g replicas on concurrency", peak);
		} else {
			ck_assert_msg(w, "no warning for the busy-time metric");
			ck_assert(aiwi_test_warned(sim, "metric = concurrency"));
			ck_assert_msg(peak == 12, "peak %g replicas on the busy time", peak);
		}
		aiw_sim_free(sim);
	}
}
END_TEST

Suite *make_suite(void)
{
	Suite *s = suite_create("telemetry");
	TCase *t = tcase_create("closed forms");
	tcase_set_timeout(t, 120);
	tcase_add_test(t, inference_one_request);
	tcase_add_test(t, inference_busy_is_not_compute);
	tcase_add_test(t, training_no_jitter);
	tcase_add_test(t, training_checkpoints_idle);
	tcase_add_test(t, training_layout_recompute);
	tcase_add_test(t, site_weighted_means);
	tcase_add_test(t, autoscale_busy_metric_warned);
	suite_add_tcase(s, t);
	return s;
}

AIW_TEST_MAIN(make_suite)
