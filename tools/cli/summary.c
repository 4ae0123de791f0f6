/*
 * summary.c - the summary table of `aiworkload run` and the metric
 * descriptions it and aiworkload-params(7) show (METRIC_DOCS).
 */
#include "common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* value with an SI prefix: 12.3 MW, 4.56 kWh */
static void fmt_si(char *buf, size_t len, double x, const char *unit)
{
	static const struct {
		double f;
		const char *p;
	} P[] = {{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}, {1, ""}, {1e-3, "m"}};
	double a = fabs(x);
	for (size_t i = 0; i < sizeof P / sizeof *P; i++)
		if (a >= P[i].f || i + 1 == sizeof P / sizeof *P) {
			if (a == 0)
				i = 4;
			snprintf(buf, len, "%.4g %s%s", x / P[i].f, P[i].p, unit);
			return;
		}
}

static void fmt_money(char *buf, size_t len, double x)
{
	if (fabs(x) >= 100)
		cli_fmt_group(buf + 1, len - 1, x, 0);
	else
		snprintf(buf + 1, len - 1, "%.4g", x);
	buf[0] = '$';
}

/* ======================================================================== */
/* metric descriptions: the summary table's labels and the man7 table       */
/* ======================================================================== */
typedef enum fmt_kind {
	F_AUTO,    /* from the name's unit suffix */
	F_POWER,   /* W */
	F_ENERGY,  /* kWh */
	F_MONEY,   /* USD */
	F_PCT,     /* fraction shown as % */
	F_RATIO,   /* plain ratio */
	F_TIME,    /* s */
	F_COUNT,   /* integer count */
	F_RATE,    /* 1/s */
	F_BYTES,   /* B */
	F_BYTES_RATE, /* B/s */
	F_PLAIN
} fmt_kind;

typedef struct metric_doc {
	const char *kind; /* "site", "training", "inference", "load", "sim", NULL = any */
	const char *key;
	const char *label; /* summary table */
	fmt_kind fmt;
	bool key_figure;  /* shown by --summary text (all are shown by full) */
	const char *doc;  /* manual page */
} metric_doc;

/* The order here is the order of the summary table within a component. */
static const metric_doc METRIC_DOCS[] = {
	/* site: power */
	{"site", "power_peak_w", "IT power peak", F_POWER, true,
	 "peak of the site IT power curve (sum of the components at each sample)"},
	{"site", "facility_power_peak_w", "Facility power peak", F_POWER, true,
	 "IT power peak x PUE"},
	{"site", "power_mean_w", "Mean IT power", F_POWER, false, "IT energy / simulated time"},
	{"site", "load_factor", "Load factor (mean / peak)", F_PCT, false,
	 "mean IT power / IT power peak"},
	{"site", "sum_of_peaks_w", "Sum of component peaks", F_POWER, true,
	 "sum of the components' individual IT power peaks"},
	{"site", "diversity_factor", "Diversity factor", F_RATIO, true,
	 "sum of the component peaks / peak of the sum (1: the peaks coincide)"},
	{"site", "sum_of_rack_peaks_w", "Sum of rack peaks", F_POWER, false,
	 "sum of every rack's own IT power peak"},
	{"site", "rack_diversity_factor", "Rack diversity factor", F_RATIO, true,
	 "sum of the rack peaks / site IT power peak"},
	{"site", "racks", "Racks", F_COUNT, false,
	 "racks of site.gpus_per_rack GPUs over all components"},
	{"site", "provisioned_power_w", "Provisioned power (recommended)", F_POWER, true,
	 "facility power peak x (1 + site.provisioning_margin)"},
	{"site", "capacity_headroom_w", "Capacity headroom", F_POWER, true,
	 "site.capacity - facility power peak (negative: the contract is exceeded)"},
	/* any component: power, utilisation */
	{NULL, "power_peak_w", "Power peak", F_POWER, true,
	 "peak of the component's IT power curve (GPUs and node overhead)"},
	{NULL, "utilization", "GPU utilisation (busy time)", F_PCT, true,
	 "busy GPU-seconds / provisioned GPU-seconds over the run"},
	{"site", "gpu_hours", "GPU-hours provisioned", F_COUNT, false,
	 "provisioned (paid) GPU-hours"},
	{"site", "busy_gpu_hours", "GPU-hours busy", F_COUNT, false,
	 "GPU-hours doing useful work"},
	/* training */
	{"training", "goodput", "Goodput (useful compute / wall)", F_PCT, true,
	 "useful compute time / wall time (work later lost to a failure is not useful)"},
	{"training", "ettr", "Effective training time ratio", F_PCT, false,
	 "time in steps (compute, exposed communication, straggler wait) / wall time"},
	{"training", "mfu_achieved", "MFU achieved", F_PCT, false,
	 "model FLOPs of the useful steps / (GPUs x peak FLOP/s x wall time)"},
	{"training", "steps", "Steps", F_COUNT, true, "optimizer steps completed"},
	{"training", "tokens", "Tokens trained", F_COUNT, true, "tokens of the completed steps"},
	{"training", "step_time_mean_s", "Step time (mean)", F_TIME, true, "mean step time"},
	{"training", "step_time_p50_s", "Step time (P50)", F_TIME, false, "median step time"},
	{"training", "step_time_p99_s", "Step time (P99)", F_TIME, false,
	 "99th percentile of the step time"},
	{"training", "step_compute_s", "Step compute (nominal)", F_TIME, false,
	 "per-GPU compute time of one step without jitter"},
	{"training", "straggler_slowdown", "Straggler slowdown", F_RATIO, true,
	 "mean step time / step time without jitter and slow parts"},
	{"training", "wall_s", "Wall time", F_TIME, false, "time the job ran"},
	{"training", "compute_s", "  compute", F_TIME, false,
	 "time breakdown: computing (nominal per-GPU compute)"},
	{"training", "exposed_comm_s", "  exposed communication", F_TIME, false,
	 "time breakdown: all-reduce not hidden behind compute"},
	{"training", "straggler_wait_s", "  straggler wait", F_TIME, false,
	 "time breakdown: waiting for the slowest GPU"},
	{"training", "checkpoint_s", "  checkpoint writes", F_TIME, false,
	 "time breakdown: blocking checkpoint writes"},
	{"training", "lost_s", "  lost work", F_TIME, false,
	 "time breakdown: work lost to failures (since the last checkpoint)"},
	{"training", "restart_s", "  restarts", F_TIME, false, "time breakdown: restarting"},
	{"training", "failures", "Failures", F_COUNT, true, "failures that interrupted the job"},
	{"training", "steps_lost", "Steps lost", F_COUNT, false, "steps redone after failures"},
	{"training", "checkpoints", "Checkpoints", F_COUNT, true, "checkpoints completed"},
	{"training", "checkpoint_interval_s", "Checkpoint interval", F_TIME, false,
	 "training time between checkpoints (Daly's optimum when auto)"},
	{"training", "checkpoint_time_s", "Checkpoint write time", F_TIME, false,
	 "blocking write time of one checkpoint"},
	{"training", "allreduce_s", "All-reduce time", F_TIME, false,
	 "gradient all-reduce time of one step"},
	{"training", "allreduce_busbw_bytes_per_s", "All-reduce bus bandwidth", F_BYTES_RATE, false,
	 "all-reduce bus bandwidth as nccl-tests defines it"},
	{"training", "east_west_bytes", "East-west traffic", F_BYTES, false,
	 "bytes all-reduced over the network by all nodes"},
	/* inference */
	/* shown by default: a replica with a request in its batch is busy, which
	 * continuous batching keeps near 100%, while its FLOPs are a fraction */
	{"inference", "compute_utilization", "Compute utilisation (FLOPs)", F_PCT, true,
	 "FLOPs executed / peak FLOPs of the provisioned GPUs"},
	{"inference", "requests_arrived", "Requests arrived", F_COUNT, true, "requests that arrived"},
	{"inference", "requests_completed", "Requests completed", F_COUNT, true,
	 "requests served to the end"},
	{"inference", "requests_dropped", "Requests dropped", F_COUNT, true,
	 "requests dropped, all reasons"},
	{"inference", "requests_dropped_timeout", "  timeout", F_COUNT, false,
	 "requests dropped: queued longer than the timeout"},
	{"inference", "requests_dropped_queue_full", "  queue full", F_COUNT, false,
	 "requests dropped: their queue held queue_limit requests"},
	{"inference", "requests_dropped_kv_too_large", "  too large for the KV cache", F_COUNT,
	 false, "requests dropped: prompt and output cannot fit an empty replica's KV cache"},
	{"inference", "requests_in_flight", "Requests in flight at the end", F_COUNT, false,
	 "requests queued or running at the end (arrived = completed + dropped + in flight)"},
	{"inference", "requests_waiting", "  waiting", F_COUNT, false,
	 "requests queued at the end"},
	{"inference", "requests_running", "  running", F_COUNT, false,
	 "requests in a batch at the end"},
	{"inference", "requests_started", "Requests started", F_COUNT, false,
	 "requests admitted to a batch at least once"},
	{"inference", "throughput_rps", "Throughput", F_RATE, true, "completed requests per second"},
	{"inference", "goodput_rps", "Goodput (requests meeting the SLOs)", F_RATE, false,
	 "requests meeting every latency objective, per second"},
	{"inference", "slo_attainment", "SLO attainment", F_PCT, true,
	 "fraction of ended requests meeting every latency objective"},
	{"inference", "slo_ttft_attainment", "  TTFT objective", F_PCT, false,
	 "fraction of ended requests meeting slo_ttft"},
	{"inference", "slo_tpot_attainment", "  TPOT objective", F_PCT, false,
	 "fraction of ended requests meeting slo_tpot"},
	{"inference", "slo_e2e_attainment", "  end-to-end objective", F_PCT, false,
	 "fraction of ended requests meeting slo_e2e"},
	{"inference", "ttft_p50_s", "TTFT P50", F_TIME, false, "median time to first token"},
	{"inference", "ttft_p95_s", "TTFT P95", F_TIME, false, "95th percentile of the TTFT"},
	{"inference", "ttft_p99_s", "TTFT P99", F_TIME, true, "99th percentile of the TTFT"},
	{"inference", "ttft_mean_s", "TTFT mean", F_TIME, false, "mean time to first token"},
	{"inference", "ttft_max_s", "TTFT max", F_TIME, false, "largest time to first token"},
	{"inference", "tpot_p50_s", "TPOT P50", F_TIME, false,
	 "median time per output token (after the first)"},
	{"inference", "tpot_p95_s", "TPOT P95", F_TIME, false, "95th percentile of the TPOT"},
	{"inference", "tpot_p99_s", "TPOT P99", F_TIME, true, "99th percentile of the TPOT"},
	{"inference", "tpot_mean_s", "TPOT mean", F_TIME, false, "mean time per output token"},
	{"inference", "tpot_max_s", "TPOT max", F_TIME, false, "largest time per output token"},
	{"inference", "e2e_p50_s", "End-to-end P50", F_TIME, false, "median request latency"},
	{"inference", "e2e_p95_s", "End-to-end P95", F_TIME, false,
	 "95th percentile of the request latency"},
	{"inference", "e2e_p99_s", "End-to-end P99", F_TIME, true,
	 "99th percentile of the request latency"},
	{"inference", "e2e_mean_s", "End-to-end mean", F_TIME, false, "mean request latency"},
	{"inference", "e2e_max_s", "End-to-end max", F_TIME, false, "largest request latency"},
	{"inference", "queue_wait_p50_s", "Queue wait P50", F_TIME, false,
	 "median wait before service"},
	{"inference", "queue_wait_p95_s", "Queue wait P95", F_TIME, false,
	 "95th percentile of the wait before service"},
	{"inference", "queue_wait_p99_s", "Queue wait P99", F_TIME, false,
	 "99th percentile of the wait before service"},
	{"inference", "queue_wait_mean_s", "Queue wait mean", F_TIME, false,
	 "mean wait before service"},
	{"inference", "queue_wait_max_s", "Queue wait max", F_TIME, false,
	 "longest wait before service"},
	{"inference", "queue_wait_count", "Queue waits measured", F_COUNT, false,
	 "requests whose wait before service is in the queue wait statistics"},
	{"inference", "queue_wait_sum_s", "Queue wait total", F_TIME, false,
	 "sum of the waits before service (with queue_wait_count: the exact mean)"},
	{"inference", "tokens_out", "Output tokens", F_COUNT, false, "output tokens generated"},
	{"inference", "tokens_per_s", "Output tokens per second", F_RATE, true,
	 "output tokens per second over the run"},
	{"inference", "prefill_tokens", "Prefill tokens", F_COUNT, false,
	 "prompt tokens prefilled (recomputed ones included)"},
	{"inference", "response_bytes", "Response bytes (north-south)", F_BYTES, false,
	 "bytes sent to clients"},
	{"inference", "preemptions", "Preemptions", F_COUNT, false,
	 "requests preempted out of a batch"},
	{"inference", "decode_iterations", "Decode iterations", F_COUNT, false,
	 "decode iterations of all replicas"},
	{"inference", "batch_size_mean", "Batch size (mean)", F_RATIO, true,
	 "mean batch size per decode iteration"},
	{"inference", "batch_size_p99", "Batch size (P99)", F_PLAIN, false,
	 "99th percentile of the batch size per decode iteration"},
	{"inference", "batch_size_max", "Batch size (max)", F_PLAIN, false,
	 "largest batch size"},
	{"inference", "batch_wait_max_s", "Batch wait (max)", F_TIME, false,
	 "dynamic batching: longest wait of a batch's first request"},
	{"inference", "kv_capacity_bytes", "KV cache capacity per replica", F_BYTES, false,
	 "KV cache bytes one replica holds"},
	{"inference", "kv_peak_bytes", "KV cache peak", F_BYTES, false,
	 "largest KV cache use of a replica"},
	{"inference", "kv_bytes_per_token", "KV bytes per token", F_BYTES, false,
	 "KV cache bytes per token of context"},
	{"inference", "weight_bytes", "Weights per replica", F_BYTES, false,
	 "model weight bytes of one replica"},
	{"inference", "gpu_hours", "GPU-hours provisioned", F_COUNT, false,
	 "provisioned GPU-hours"},
	{"inference", "replicas_peak", "Replicas (peak)", F_COUNT, true,
	 "most replicas provisioned at once"},
	{"inference", "replicas_mean", "Replicas (mean)", F_PLAIN, true,
	 "provisioned replicas averaged over the run (paid GPU-seconds / GPUs per replica / time)"},
	{"inference", "replicas_desired", "Replicas desired at the end", F_COUNT, false,
	 "the autoscaler's last decision"},
	{"inference", "replicas_added", "Replicas added", F_COUNT, false,
	 "replicas the autoscaler provisioned during the run"},
	{"inference", "replicas_removed", "Replicas removed", F_COUNT, false,
	 "replicas the autoscaler released during the run"},
	{"inference", "autoscale_syncs", "Autoscaler syncs", F_COUNT, false,
	 "control loop evaluations of the autoscaler"},
	{"inference", "autoscale_scale_ups", "Scale-ups", F_COUNT, false,
	 "syncs that raised the replica count"},
	{"inference", "autoscale_scale_downs", "Scale-downs", F_COUNT, false,
	 "syncs that lowered the replica count"},
	{"inference", "kpa_panic_entries", "KPA panic entries", F_COUNT, false,
	 "kpa: times the autoscaler entered panic mode"},
	{"inference", "kpa_panic_s", "KPA time in panic", F_TIME, false,
	 "kpa: time spent in panic mode"},
	{"inference", "cold_starts", "Cold starts", F_COUNT, false,
	 "replicas that loaded their weights during the run"},
	{"inference", "cold_start_mean_s", "Cold start (mean)", F_TIME, false,
	 "mean weight loading time of the cold starts"},
	{"inference", "gpu_hours_paid", "GPU-hours paid", F_COUNT, false,
	 "provisioned GPU-hours (loading and draining replicas included)"},
	{"inference", "gpu_hours_busy", "GPU-hours busy", F_COUNT, false,
	 "GPU-hours of replicas serving at least one request"},
	{"inference", "spot_preemptions", "Spot preemptions", F_COUNT, false,
	 "spot replicas reclaimed by the provider (notice given)"},
	{"inference", "spot_preemptions_expected", "  expected", F_RATIO, false,
	 "spot replica-hours x spot_preemption_rate: the Poisson mean of the preemptions"},
	{"inference", "spot_reclaims", "Spot reclaims before draining", F_COUNT, false,
	 "spot replicas taken away at the end of their notice with requests still running"},
	{"inference", "spot_exposure_h", "Spot replica-hours", F_PLAIN, false,
	 "hours of spot replicas provisioned"},
	{"inference", "spot_acquisition_failures", "Spot acquisition failures", F_COUNT, false,
	 "attempts to acquire a spot replica that failed"},
	{"inference", "spot_ondemand_fallbacks", "On-demand fallbacks", F_COUNT, false,
	 "replicas provisioned on-demand after repeated spot acquisition failures"},
	{"inference", "requests_requeued", "Requests re-queued", F_COUNT, false,
	 "requests sent back to the router when their replica was lost"},
	{"inference", "fixed_replicas", "Fixed fleet compared", F_COUNT, false,
	 "compare_fixed: replicas of the fixed fleet simulated alongside"},
	{"inference", "fixed_gpu_hours", "  its GPU-hours", F_COUNT, false,
	 "compare_fixed: GPU-hours of the fixed fleet"},
	{"inference", "fixed_cost_usd", "  its cost", F_MONEY, false,
	 "compare_fixed: cost of the fixed fleet"},
	{"inference", "fixed_hardware_cost_usd", "  its hardware cost", F_MONEY, false,
	 "compare_fixed: hardware cost of the fixed fleet"},
	{"inference", "fixed_energy_kwh", "  its energy", F_ENERGY, false,
	 "compare_fixed: IT energy of the fixed fleet"},
	{"inference", "fixed_slo_attainment", "  its SLO attainment", F_PCT, false,
	 "compare_fixed: SLO attainment of the fixed fleet"},
	{"inference", "fixed_ttft_p99_s", "  its TTFT P99", F_TIME, false,
	 "compare_fixed: TTFT P99 of the fixed fleet"},
	{"inference", "fixed_requests_completed", "  its requests completed", F_COUNT, false,
	 "compare_fixed: requests the fixed fleet completed"},
	{"inference", "gpu_hours_saved", "GPU-hours saved", F_COUNT, true,
	 "compare_fixed: GPU-hours of the fixed fleet minus this fleet's"},
	{"inference", "cost_saved_usd", "Cost saved", F_MONEY, true,
	 "compare_fixed: cost of the fixed fleet minus this fleet's"},
	{"inference", "cost_saved_fraction", "Cost saved (share)", F_PCT, false,
	 "compare_fixed: cost saved / cost of the fixed fleet"},
	{"inference", "energy_saved_kwh", "Energy saved", F_ENERGY, false,
	 "compare_fixed: IT energy of the fixed fleet minus this fleet's"},
	{"inference", "replicas_ready", "Replicas ready at the end", F_COUNT, false,
	 "replicas serving at the end"},
	{"inference", "replicas_loading", "Replicas loading at the end", F_COUNT, false,
	 "replicas in their cold start at the end"},
	{"inference", "replicas_draining", "Replicas draining at the end", F_COUNT, false,
	 "replicas finishing their requests before release, at the end"},
	/* energy */
	{"site", "energy_kwh", "IT energy", F_ENERGY, true, "IT energy of every component"},
	{"site", "facility_energy_kwh", "Facility energy", F_ENERGY, true, "IT energy x PUE"},
	{NULL, "energy_kwh", "Energy (IT)", F_ENERGY, true, "IT energy of the component"},
	/* cost */
	{NULL, "energy_cost_usd", "Energy cost", F_MONEY, false,
	 "facility energy x site.electricity_price"},
	{NULL, "hardware_cost_usd", "Hardware cost", F_MONEY, false,
	 "GPUs paid: purchase price amortised over the lifetime, or on-demand rent"},
	{"site", "capacity_cost_usd", "Capacity cost", F_MONEY, false,
	 "contracted facility power x site.capacity_price"},
	{NULL, "idle_cost_usd", "Idle cost (paid, not busy)", F_MONEY, false,
	 "hardware cost of the provisioned GPU-seconds that did no useful work"},
	{"site", "cost_usd", "Total cost", F_MONEY, true, "hardware, energy and capacity cost"},
	{NULL, "cost_usd", "Cost", F_MONEY, true, "hardware and energy cost of the component"},
	{"site", "cost_per_gpu_hour_usd", "Cost per GPU-hour", F_MONEY, false,
	 "total cost / provisioned GPU-hours"},
	{NULL, "cost_per_mtok_usd", "Cost per million tokens", F_MONEY, true,
	 "cost per million tokens (trained, or generated)"},
	{"inference", "cost_per_request_usd", "Cost per request", F_MONEY, false,
	 "cost per completed request"},
	/* run */
	{"sim", "time_s", "Simulated time", F_TIME, false, "simulated time reached"},
	{"sim", "events", "Events", F_COUNT, false, "events scheduled (run, cancelled, or run in place)"},
};

static const metric_doc *doc_of(const char *kind, const char *key)
{
	for (size_t i = 0; i < sizeof METRIC_DOCS / sizeof *METRIC_DOCS; i++) {
		const metric_doc *d = &METRIC_DOCS[i];
		if (strcmp(d->key, key) == 0 && (d->kind ? strcmp(d->kind, kind) == 0 : true))
			return d;
	}
	return NULL;
}

const char *cli_metric_doc(const char *kind, const char *key)
{
	const metric_doc *d = doc_of(kind, key);
	return d ? (d->doc ? d->doc : d->label) : NULL;
}

static fmt_kind fmt_from_name(const char *key)
{
	if (cli_ends_with(key, "_w"))
		return F_POWER;
	if (cli_ends_with(key, "_kwh"))
		return F_ENERGY;
	if (cli_ends_with(key, "_usd"))
		return F_MONEY;
	if (cli_ends_with(key, "_bytes_per_s"))
		return F_BYTES_RATE;
	if (cli_ends_with(key, "_bytes"))
		return F_BYTES;
	if (cli_ends_with(key, "_per_s") || cli_ends_with(key, "_rps"))
		return F_RATE;
	if (cli_ends_with(key, "_s"))
		return F_TIME;
	if (cli_ends_with(key, "_ratio") || cli_ends_with(key, "attainment") || cli_ends_with(key, "goodput") ||
	    cli_ends_with(key, "utilization") || cli_ends_with(key, "efficiency") || cli_ends_with(key, "fraction"))
		return F_PCT;
	return F_PLAIN;
}

static void fmt_value(char *buf, size_t len, double v, fmt_kind k)
{
	if (isnan(v)) {
		snprintf(buf, len, "n/a");
		return;
	}
	if (isinf(v)) {
		snprintf(buf, len, "%s", v > 0 ? "inf" : "-inf");
		return;
	}
	switch (k) {
	case F_POWER: fmt_si(buf, len, v, "W"); break;
	case F_ENERGY: fmt_si(buf, len, v * 1e3, "Wh"); break;
	case F_MONEY: fmt_money(buf, len, v); break;
	case F_PCT: snprintf(buf, len, "%.3g %%", v * 100); break;
	case F_RATIO: snprintf(buf, len, "%.3f", v); break;
	case F_TIME: cli_fmt_duration(buf, len, v); break;
	case F_COUNT:
		if (fabs(v) >= 1e10)
			snprintf(buf, len, "%.4g", v);
		else
			cli_fmt_group(buf, len, v, 0);
		break;
	case F_RATE: snprintf(buf, len, "%.4g /s", v); break;
	case F_BYTES: fmt_si(buf, len, v, "B"); break;
	case F_BYTES_RATE: fmt_si(buf, len, v, "B/s"); break;
	default:
		if (v == floor(v) && fabs(v) < 1e15)
			cli_fmt_group(buf, len, v, 0);
		else
			snprintf(buf, len, "%.4g", v);
	}
}

/* Time average of a curve (NAN without points): from the stream's sums
 * when the run streamed its curves, else from the kept points. */
static double curve_mean(aiw_sim *sim, const char *name, const cli_stream *s)
{
	if (s && s->sum && !s->oom) {
		for (size_t i = 0; i < s->n; i++) {
			const char *c;
			if (aiw_sim_series_name(sim, i, &c) == AIW_OK && strcmp(c, name) == 0)
				return s->span[i] > 0 ? s->sum[i] / s->span[i] : NAN;
		}
		return NAN;
	}
	size_t n = 0;
	if (aiw_sim_series_length(sim, name, &n) != AIW_OK || n == 0)
		return NAN;
	double *t = malloc(n * sizeof *t), *v = malloc(n * sizeof *v);
	double sum = 0, span = 0;
	if (t && v && aiw_sim_series_copy(sim, name, t, v, n, &n) == AIW_OK) {
		for (size_t i = 0; i < n; i++) {
			double dt = t[i] - (i ? t[i - 1] : 0);
			if (isfinite(v[i])) {
				sum += v[i] * dt;
				span += dt;
			}
		}
	}
	free(t);
	free(v);
	return span > 0 ? sum / span : NAN;
}

static void print_row(const char *label, const char *value)
{
	printf("  %-38s %16s\n", label, value);
}

/* A parameter's text (malloc'd), whatever its length; NULL when unset or
 * unknown. */
static char *param_text(aiw_sim *sim, const char *name)
{
	for (size_t len = 64; len <= ((size_t)1 << 20); len *= 4) {
		char *buf = malloc(len);
		if (!buf)
			return NULL;
		aiw_status st = aiw_sim_get(sim, name, buf, len);
		if (st == AIW_OK)
			return buf;
		free(buf);
		if (st != AIW_EBUFFER)
			return NULL;
	}
	return NULL;
}

/* A component's parameter as text: "KIND.COMP.KEY", NULL when it has none
 * or it is empty. */
static char *comp_param(aiw_sim *sim, const char *kind, const char *comp, const char *key)
{
	size_t n = strlen(kind) + strlen(comp) + strlen(key) + 3;
	char *name = malloc(n), *v = NULL;
	if (name) {
		snprintf(name, n, "%s.%s.%s", kind, comp, key);
		v = param_text(sim, name);
		free(name);
	}
	if (v && !v[0]) {
		free(v);
		v = NULL;
	}
	return v;
}

/* Summary table: site first, then each component in creation order with
 * its metrics (known ones labelled, in METRIC_DOCS order, then the rest). */
void cli_print_summary(aiw_sim *sim, const char *label, double wall, bool full,
                       const cli_stream *s)
{
	size_t hidden = 0;
	size_t n = 0;
	aiw_sim_metric_count(sim, &n);
	const char **names = calloc(n ? n : 1, sizeof *names);
	bool *done = calloc(n ? n : 1, sizeof *done);
	if (!names || !done) {
		free(names);
		free(done);
		return;
	}
	/* metric names are the user's component names: buffers of their size */
	size_t width = sizeof "site.utilization";
	for (size_t i = 0; i < n; i++) {
		if (aiw_sim_metric_name(sim, i, &names[i]) != AIW_OK)
			names[i] = "";
		if (strlen(names[i]) + sizeof ".utilization" > width)
			width = strlen(names[i]) + sizeof ".utilization";
	}
	char *kind = malloc(width), *comp = malloc(width), *gk = malloc(width),
	     *gc = malloc(width), *cname = malloc(2 * width);
	if (!kind || !comp || !gk || !gc || !cname) {
		free(kind);
		free(comp);
		free(gk);
		free(gc);
		free(cname);
		free(names);
		free(done);
		return;
	}
	double simt = NAN, events = NAN;
	aiw_sim_metric(sim, "sim.time_s", &simt);
	aiw_sim_metric(sim, "sim.events", &events);
	char *seed = param_text(sim, "sim.seed"), a[64], b[64];
	cli_fmt_duration(a, sizeof a, simt);
	cli_fmt_group(b, sizeof b, events, 0);
	printf("aiworkload %s: %s\nseed %s, %s simulated, %s events, %.2f s wall\n",
	       aiw_version_string(), label, seed ? seed : "?", a, b, wall);
	free(seed);
	for (size_t i = 0; i < n; i++)
		if (strncmp(names[i], "sim.", 4) == 0)
			done[i] = true;
	/* groups in order of first appearance, site first */
	const char *key;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t g = 0; g < n; g++) {
			if (done[g])
				continue;
			cli_split_metric(names[g], gk, width, gc, width, &key);
			bool is_site = strcmp(gk, "site") == 0;
			if ((pass == 0) != is_site)
				continue;
			/* header */
			if (is_site) {
				printf("\nsite\n");
			} else {
				char *gpu = comp_param(sim, gk, gc, "gpu");
				char *cnt = comp_param(sim, gk, gc, "gpus");
				char *reps = comp_param(sim, gk, gc, "replicas");
				char *gpr = comp_param(sim, gk, gc, "gpus_per_replica");
				bool hg = gpu && strcmp(gpu, "none") != 0, hc = cnt, hr = reps, hp = gpr;
				printf("\n%s %s", gk, gc);
				if (hg && hc)
					printf(" (%s x %s)", cnt, gpu);
				else if (hg && hr && hp)
					printf(" (%s replicas x %s x %s at start)", reps, gpr, gpu);
				else if (hg)
					printf(" (%s)", gpu);
				putchar('\n');
				free(gpu);
				free(cnt);
				free(reps);
				free(gpr);
			}
			/* known metrics first, in table order; the utilisation from the
			 * curve, at its place, when the model publishes none */
			snprintf(cname, 2 * width, "%s%s%s.utilization", gk, is_site ? "" : ".",
			         is_site ? "" : gc);
			double um;
			bool has_util = aiw_sim_metric(sim, cname, &um) == AIW_OK;
			for (size_t d = 0; d < sizeof METRIC_DOCS / sizeof *METRIC_DOCS; d++) {
				const metric_doc *md = &METRIC_DOCS[d];
				if (!has_util && !md->kind && strcmp(md->key, "utilization") == 0) {
					um = curve_mean(sim, cname, s);
					if (isfinite(um)) {
						char val[64];
						fmt_value(val, sizeof val, um, F_PCT);
						print_row("GPU utilisation (time average)", val);
					}
				}
				for (size_t i = 0; i < n; i++) {
					if (done[i])
						continue;
					cli_split_metric(names[i], kind, width, comp, width, &key);
					if (strcmp(kind, gk) || strcmp(comp, gc))
						continue;
					if (strcmp(md->key, key) || (md->kind && strcmp(md->kind, kind)) ||
					    doc_of(kind, key) != md)
						continue;
					done[i] = true;
					if (!full && !md->key_figure) {
						hidden++;
						continue;
					}
					double v = NAN;
					aiw_sim_metric(sim, names[i], &v);
					char val[64];
					fmt_value(val, sizeof val, v, md->fmt);
					print_row(md->label, val);
				}
			}
			/* the rest, in the order the model published them */
			for (size_t i = 0; i < n; i++) {
				if (done[i])
					continue;
				cli_split_metric(names[i], kind, width, comp, width, &key);
				if (strcmp(kind, gk) || strcmp(comp, gc))
					continue;
				done[i] = true;
				if (!full) {
					hidden++;
					continue;
				}
				double v = NAN;
				aiw_sim_metric(sim, names[i], &v);
				char val[64];
				fmt_value(val, sizeof val, v, fmt_from_name(key));
				print_row(key, val);
			}
		}
	}
	if (hidden)
		printf("\n(%zu more metrics: --summary full, or --json FILE)\n", hidden);
	free(kind);
	free(comp);
	free(gk);
	free(gc);
	free(cname);
	free(names);
	free(done);
}

