/*
 * aiworkload - command-line front end of libaiworkload.
 *
 *   aiworkload [run] [SCENARIO.ini ...] [options]   run, print a summary table
 *   aiworkload plot SCENARIO.ini -o FILE.svg         run, write the chart
 *   aiworkload sweep SCENARIO.ini --set N=V1,V2 ...  sweeps (tools/sweep_cli.c)
 *   aiworkload params [PATTERN] [--man]              the parameter registry
 *   aiworkload catalog [GPU|LINK]                    built-in hardware
 *   aiworkload scenario                              print the built-in default
 *
 * Exit status: 0 success, 2 bad usage or invalid scenario (the message names
 * file:line or the parameter), 1 any other failure (I/O, memory, limits).
 * Everything here goes through the public API only.
 */
#include <ctype.h>
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "aiworkload.h"
#include "sweep_cli.h"

#define EXIT_USAGE 2
#define EXIT_FAIL 1

/* The built-in default: the seeds' situation, a training cluster and a
 * diurnal inference fleet on one site.  Shipped verbatim as
 * examples/scenarios/mixed-site.ini (tests/cli/test_cli.sh checks they agree). */
static const char DEFAULT_SCENARIO[] =
	"; mixed-site.ini - the built-in default of `aiworkload run` (the seeds'\n"
	"; situation): one site hosting a training cluster and an inference fleet.\n"
	";\n"
	"; What it shows: the training racks draw a flat plateau near TDP for the\n"
	"; whole day, with a dip at every checkpoint; the inference racks follow the\n"
	"; users' diurnal traffic (10x peak to trough, peak at 14:00) as the\n"
	"; Kubernetes-style autoscaler adds replicas on the morning ramp and removes\n"
	"; them at night: the seed's \"plateau\" and \"sawtooth\" on one chart\n"
	"; (aiworkload run --plot site.svg).  The site's diversity factor (sum of the\n"
	"; component peaks / peak of the sum) stays near 1: a plateau leaves nothing\n"
	"; to share, which is why the training / inference ratio decides how much\n"
	"; diversity a planner may count on.\n"
	";\n"
	"; Figures (seed 1, 24 h; tests/cli/test_examples.sh checks them):\n"
	";   site IT power peak 1.11 MW (facility 1.44 MW), diversity factor 1.00\n"
	";   training: goodput 90 %, step time 4.06 s, straggler slowdown 1.10\n"
	";   inference: 2.6 million requests, none dropped, 8 to 51 replicas (28 on\n"
	";   average), TTFT P99 0.72 s, SLO attainment (TTFT <= 500 ms) 97 %,\n"
	";   fleet cost $5,000 a day (a fleet fixed at 64 replicas: $11,300)\n"
	";\n"
	"; check: site.power_peak_w in [1.05e6, 1.16e6]\n"
	"; check: site.diversity_factor in [1.0, 1.02]\n"
	"; check: training.pretrain.goodput in [0.85, 0.95]\n"
	"; check: training.pretrain.straggler_slowdown in [1.05, 1.15]\n"
	"; check: inference.chat.requests_arrived in [2.5e6, 2.7e6]\n"
	"; check: inference.chat.requests_dropped == 0\n"
	"; check: inference.chat.replicas_peak in [40, 64]\n"
	"; check: inference.chat.replicas_mean in [22, 34]\n"
	"; check: inference.chat.ttft_p99_s in [0.4, 1.0]\n"
	"; check: inference.chat.slo_attainment in [0.93, 0.995]\n"
	";\n"
	"; Print it with `aiworkload scenario`; change it with --set, e.g.\n"
	";   aiworkload run --set inference.chat.target_value=6 --duration 48h\n"
	"[sim]\n"
	"seed = 1\n"
	"duration = 24h\n"
	"sample_interval = 1min\n"
	"\n"
	"[site]\n"
	"pue = 1.3\n"
	"electricity_price = 0.08        ; USD per kWh of facility energy\n"
	"gpus_per_rack = 32\n"
	"\n"
	"; 1,024 H100 (32 racks) pre-training a 70B model, 4M tokens per step\n"
	"[training pretrain]\n"
	"gpu = H100-SXM\n"
	"gpus = 1024\n"
	"gpus_per_node = 8\n"
	"model_params = 70e9\n"
	"tokens_per_step = 4e6\n"
	"mfu = 0.45\n"
	"allreduce = hierarchical        ; NVLink inside a node, InfiniBand across\n"
	"overlap = 0.7                   ; share of the all-reduce hidden behind compute\n"
	"jitter = lognormal(median=1,sigma=0.03)\n"
	"gpu_mtbf = 50000h               ; Llama 3's rate: one failure per ~3 h at 16k GPUs\n"
	"restart_time = const(10min)\n"
	"checkpoint_interval = auto      ; Daly's optimum\n"
	"checkpoint_time = 60s\n"
	"\n"
	"; a 405B chat model on 8-GPU replicas, diurnal users, autoscaled\n"
	"[inference chat]\n"
	"gpu = H100-SXM\n"
	"gpus_per_replica = 8\n"
	"model_params = 405e9\n"
	"layers = 126\n"
	"weight_bits = 8\n"
	"traffic = diurnal\n"
	"rate = 30/s                     ; daily mean; the peak is ~1.8x the mean\n"
	"peak_to_trough = 10\n"
	"peak_hour = 14\n"
	"prompt_tokens = lognormal(median=1024,sigma=0.8)\n"
	"output_tokens = lognormal(median=256,sigma=0.7)\n"
	"batching = continuous\n"
	"max_batch = 32\n"
	"router = least_loaded\n"
	"replicas = 16                   ; at the start; then the autoscaler decides\n"
	"autoscaler = hpa                ; Kubernetes HPA arithmetic and defaults\n"
	"metric = concurrency            ; requests in flight per ready replica\n"
	"target_value = 10\n"
	"min_replicas = 8\n"
	"max_replicas = 96\n"
	"cold_start = uniform(10s,30s)   ; loading the weights\n"
	"slo_ttft = 500ms\n";

static const char *prog = "aiworkload";

static void errorf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* Invalid input (parameters, scenario text, ranges) is a usage error (2);
 * everything else (memory, I/O, limits reached while running) is 1. */
static int exit_code_of(aiw_status st)
{
	switch (st) {
	case AIW_OK:
		return 0;
	case AIW_EINVAL:
	case AIW_EUNKNOWN:
	case AIW_ERANGE:
	case AIW_EPARSE:
	case AIW_ESCENARIO:
	case AIW_ELIMIT:
		return EXIT_USAGE;
	default:
		return EXIT_FAIL;
	}
}

/* ======================================================================== */
/* help                                                                      */
/* ======================================================================== */
/* Points of each curve --stream-csv keeps in memory (sim.series_keep): an
 * hour at the default 1-minute interval, whatever the duration. */
#define STREAM_KEEP 60

static void usage_text(FILE *f)
{
	fprintf(f,
	        "usage: aiworkload [run] [SCENARIO.ini ...] [options]\n"
	        "       aiworkload plot SCENARIO.ini -o FILE.svg [options]\n"
	        "       aiworkload sweep SCENARIO.ini --set NAME=V1,V2,... [options]\n"
	        "       aiworkload params [PATTERN] [--man]\n"
	        "       aiworkload catalog [GPU|LINK]\n"
	        "       aiworkload scenario\n"
	        "       aiworkload --help | --version\n"
	        "\n"
	        "Simulate AI training and inference on one discrete-event clock and report\n"
	        "power, utilisation, latency and cost.  Without a scenario, run the built-in\n"
	        "mixed site (print it with `aiworkload scenario`).\n"
	        "\n"
	        "run and plot options:\n"
	        "  --set NAME=VALUE     set a parameter (site.pue=1.2, training.pretrain.gpus=2048)\n"
	        "  --seed N             sim.seed\n"
	        "  --duration D         sim.duration (90d, 36h, 15min)\n"
	        "  --sample-interval D  sim.sample_interval (resolution of curves and peaks)\n"
	        "  --summary FORMAT     text (key figures, default), full (every metric), json\n"
	        "                       or none, on standard output\n"
	        "  --series FILE.csv    every curve, one column each, units in the header\n"
	        "  --stream-csv FILE    the same CSV, written as the run goes; keeps only the\n"
	        "                       last %d points of each curve in memory (unless the\n"
	        "                       scenario or --set gives sim.series_keep, or --series,\n"
	        "                       --promtest or --plot needs the whole curves)\n"
	        "  --json FILE.json     summary metrics, parameters and run metadata\n"
	        "  --metrics FILE.prom  Prometheus text exposition of the final metrics\n"
	        "  --promtest FILE.yml  the curves as `promtool test rules` input series\n"
	        "  --rules FILES        rule files the --promtest file lists (comma-separated)\n"
	        "  --plot FILE.svg      chart: site power, power by component, utilisation\n"
	        "  -o, --output FILE    (plot) the SVG to write\n"
	        "  --title TEXT         title of the chart\n"
	        "  --progress, --no-progress\n"
	        "                       progress bar on standard error (default: when it is a\n"
	        "                       terminal)\n"
	        "\n"
	        "params options:\n"
	        "  PATTERN              substring or shell pattern of parameter names\n"
	        "  --man                the aiworkload-params(7) manual page, generated\n"
	        "\n"
	        "Exit status: 0 success, 2 bad usage or invalid scenario, 1 other failure.\n"
	        "`aiworkload sweep --help` describes sweeps.  See aiworkload(1),\n"
	        "aiworkload-scenario(5), aiworkload-params(7).\n",
	        STREAM_KEEP);
}

static int usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\nTry 'aiworkload --help'.\n");
	va_end(ap);
	return EXIT_USAGE;
}

/* ======================================================================== */
/* number formatting                                                         */
/* ======================================================================== */
/* 1234567.8 -> "1,234,568" */
static void fmt_group(char *buf, size_t len, double x, int decimals)
{
	char tmp[64];
	snprintf(tmp, sizeof tmp, "%.*f", decimals, fabs(x));
	char *dot = strchr(tmp, '.');
	size_t ilen = dot ? (size_t)(dot - tmp) : strlen(tmp);
	size_t o = 0;
	if (x < 0 && o + 1 < len)
		buf[o++] = '-';
	for (size_t i = 0; i < ilen && o + 1 < len; i++) {
		if (i && (ilen - i) % 3 == 0 && o + 1 < len)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	for (const char *p = dot; p && *p && o + 1 < len; p++)
		buf[o++] = *p;
	buf[o] = 0;
}

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

static void fmt_duration(char *buf, size_t len, double s)
{
	double a = fabs(s);
	if (a == 0)
		snprintf(buf, len, "0 s");
	else if (a < 1e-3)
		snprintf(buf, len, "%.3g us", s * 1e6);
	else if (a < 1)
		snprintf(buf, len, "%.3g ms", s * 1e3);
	else if (a < 120)
		snprintf(buf, len, "%.4g s", s);
	else if (a < 7200)
		snprintf(buf, len, "%.4g min", s / 60);
	else if (a < 3 * 86400.0)
		snprintf(buf, len, "%.4g h", s / 3600);
	else
		snprintf(buf, len, "%.4g days", s / 86400);
}

static void fmt_money(char *buf, size_t len, double x)
{
	if (fabs(x) >= 100)
		fmt_group(buf + 1, len - 1, x, 0);
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

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

static fmt_kind fmt_from_name(const char *key)
{
	if (ends_with(key, "_w"))
		return F_POWER;
	if (ends_with(key, "_kwh"))
		return F_ENERGY;
	if (ends_with(key, "_usd"))
		return F_MONEY;
	if (ends_with(key, "_bytes_per_s"))
		return F_BYTES_RATE;
	if (ends_with(key, "_bytes"))
		return F_BYTES;
	if (ends_with(key, "_per_s") || ends_with(key, "_rps"))
		return F_RATE;
	if (ends_with(key, "_s"))
		return F_TIME;
	if (ends_with(key, "_ratio") || ends_with(key, "attainment") || ends_with(key, "goodput") ||
	    ends_with(key, "utilization") || ends_with(key, "efficiency") || ends_with(key, "fraction"))
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
	case F_TIME: fmt_duration(buf, len, v); break;
	case F_COUNT:
		if (fabs(v) >= 1e10)
			snprintf(buf, len, "%.4g", v);
		else
			fmt_group(buf, len, v, 0);
		break;
	case F_RATE: snprintf(buf, len, "%.4g /s", v); break;
	case F_BYTES: fmt_si(buf, len, v, "B"); break;
	case F_BYTES_RATE: fmt_si(buf, len, v, "B/s"); break;
	default:
		if (v == floor(v) && fabs(v) < 1e15)
			fmt_group(buf, len, v, 0);
		else
			snprintf(buf, len, "%.4g", v);
	}
}

/* "training.pretrain.goodput" -> kind, component name, key */
static void split_metric(const char *full, char *kind, size_t kl, char *comp, size_t cl,
                         const char **key)
{
	const char *d1 = strchr(full, '.');
	if (!d1) {
		snprintf(kind, kl, "%s", "");
		snprintf(comp, cl, "%s", "");
		*key = full;
		return;
	}
	snprintf(kind, kl, "%.*s", (int)(d1 - full), full);
	bool singleton = strcmp(kind, "site") == 0 || strcmp(kind, "sim") == 0;
	const char *d2 = singleton ? NULL : strchr(d1 + 1, '.');
	if (d2) {
		snprintf(comp, cl, "%.*s", (int)(d2 - d1 - 1), d1 + 1);
		*key = d2 + 1;
	} else {
		snprintf(comp, cl, "%s", "");
		*key = d1 + 1;
	}
}

/* ======================================================================== */
/* progress bar                                                              */
/* ======================================================================== */
typedef struct progress {
	struct timespec start, last;
	bool drawn;
} progress;

static double elapsed(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + 1e-9 * (double)(b->tv_nsec - a->tv_nsec);
}

static int progress_cb(aiw_sim *sim, double now, double end, void *payload)
{
	(void)sim;
	progress *p = payload;
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	if (p->drawn && elapsed(&p->last, &t) < 0.1)
		return 0;
	p->last = t;
	p->drawn = true;
	double frac = end > 0 ? now / end : 1;
	if (frac > 1)
		frac = 1;
	int width = 30, fill = (int)(frac * width);
	char bar[64], a[32], b[32];
	for (int i = 0; i < width; i++)
		bar[i] = i < fill ? '#' : '.';
	bar[width] = 0;
	fmt_duration(a, sizeof a, now);
	fmt_duration(b, sizeof b, end);
	double wall = elapsed(&p->start, &t);
	double eta = frac > 0.001 ? wall * (1 - frac) / frac : NAN;
	fprintf(stderr, "\r[%s] %3.0f%%  %s / %s", bar, frac * 100, a, b);
	if (isfinite(eta))
		fprintf(stderr, "  ETA %.0f s   ", eta);
	fflush(stderr);
	return 0;
}

static void progress_clear(progress *p)
{
	if (p->drawn) {
		fprintf(stderr, "\r%70s\r", "");
		fflush(stderr);
	}
}

/* ======================================================================== */
/* run                                                                       */
/* ======================================================================== */
typedef struct run_opts {
	const char **scenarios;
	size_t nscenarios;
	const char **sets; /* "NAME=VALUE" in command-line order */
	size_t nsets;
	const char *seed, *duration, *sample_interval;
	const char *summary;
	const char *series, *json, *metrics, *promtest, *rules, *plot, *title;
	const char *stream_csv;
	int progress; /* -1 auto, 0 off, 1 on */
} run_opts;

static const char *scenario_label(const run_opts *o)
{
	return o->nscenarios ? o->scenarios[0] : "built-in mixed site (aiworkload scenario)";
}

/* Option with a value: "--opt VALUE" or "--opt=VALUE". */
static bool opt_value(int argc, char **argv, int *i, const char *name, const char **out,
                      int *err)
{
	const char *a = argv[*i];
	size_t n = strlen(name);
	if (strncmp(a, name, n) != 0)
		return false;
	if (a[n] == '=') {
		*out = a + n + 1;
		return true;
	}
	if (a[n] != 0)
		return false;
	if (*i + 1 >= argc) {
		*err = usage_error("option %s needs a value", name);
		return true;
	}
	*out = argv[++*i];
	return true;
}

static int parse_run_opts(int argc, char **argv, int first, run_opts *o, bool plot)
{
	memset(o, 0, sizeof *o);
	o->progress = -1;
	o->summary = plot ? "none" : "text";
	o->scenarios = calloc((size_t)argc, sizeof *o->scenarios);
	o->sets = calloc((size_t)argc, sizeof *o->sets);
	if (!o->scenarios || !o->sets) {
		errorf("out of memory");
		return EXIT_FAIL;
	}
	for (int i = first; i < argc; i++) {
		const char *a = argv[i], *v = NULL;
		int err = 0;
		if (strcmp(a, "--") == 0) {
			for (i++; i < argc; i++)
				o->scenarios[o->nscenarios++] = argv[i];
			break;
		}
		if (a[0] != '-' || strcmp(a, "-") == 0) {
			o->scenarios[o->nscenarios++] = a;
			continue;
		}
		if (opt_value(argc, argv, &i, "--set", &v, &err)) {
			if (!err && !strchr(v, '='))
				err = usage_error("--set %s: expected NAME=VALUE", v);
			if (!err)
				o->sets[o->nsets++] = v;
		} else if (opt_value(argc, argv, &i, "--seed", &v, &err)) {
			o->seed = v;
		} else if (opt_value(argc, argv, &i, "--duration", &v, &err)) {
			o->duration = v;
		} else if (opt_value(argc, argv, &i, "--sample-interval", &v, &err)) {
			o->sample_interval = v;
		} else if (opt_value(argc, argv, &i, "--summary", &v, &err)) {
			if (!err && strcmp(v, "text") && strcmp(v, "full") && strcmp(v, "json") &&
			    strcmp(v, "none"))
				err = usage_error("--summary %s: use text, full, json or none", v);
			o->summary = v;
		} else if (opt_value(argc, argv, &i, "--series", &v, &err)) {
			o->series = v;
		} else if (opt_value(argc, argv, &i, "--stream-csv", &v, &err)) {
			o->stream_csv = v;
		} else if (opt_value(argc, argv, &i, "--json", &v, &err)) {
			o->json = v;
		} else if (opt_value(argc, argv, &i, "--metrics", &v, &err)) {
			o->metrics = v;
		} else if (opt_value(argc, argv, &i, "--promtest", &v, &err)) {
			o->promtest = v;
		} else if (opt_value(argc, argv, &i, "--rules", &v, &err)) {
			o->rules = v;
		} else if (opt_value(argc, argv, &i, "--plot", &v, &err) ||
		           opt_value(argc, argv, &i, "--output", &v, &err) ||
		           opt_value(argc, argv, &i, "-o", &v, &err)) {
			o->plot = v;
		} else if (opt_value(argc, argv, &i, "--title", &v, &err)) {
			o->title = v;
		} else if (strcmp(a, "--progress") == 0) {
			o->progress = 1;
		} else if (strcmp(a, "--no-progress") == 0) {
			o->progress = 0;
		} else {
			return usage_error("unknown option '%s'", a);
		}
		if (err)
			return err;
	}
	if (plot && !o->plot)
		return usage_error("plot: give the SVG file with -o FILE.svg");
	if (plot && o->nscenarios == 0)
		return usage_error("plot: give a scenario file (or use `aiworkload run --plot FILE.svg`)");
	if (o->rules && !o->promtest)
		return usage_error("--rules goes with --promtest FILE.yml");
	return 0;
}

static int set_param(aiw_sim *sim, const char *name, const char *value, const char *from)
{
	aiw_status st = aiw_sim_set(sim, name, value);
	if (st != AIW_OK) {
		errorf("%s: %s", from, aiw_sim_errmsg(sim));
		return exit_code_of(st) ? exit_code_of(st) : EXIT_FAIL;
	}
	return 0;
}

static int configure(aiw_sim *sim, const run_opts *o)
{
	aiw_status st;
	if (o->nscenarios == 0) {
		st = aiw_sim_load_string(sim, DEFAULT_SCENARIO, "mixed-site.ini (built-in)");
		if (st != AIW_OK) {
			errorf("%s", aiw_sim_errmsg(sim));
			return EXIT_FAIL; /* a library/default mismatch, not the user's */
		}
	}
	for (size_t i = 0; i < o->nscenarios; i++) {
		if ((st = aiw_sim_load_file(sim, o->scenarios[i])) != AIW_OK) {
			errorf("%s", aiw_sim_errmsg(sim));
			return st == AIW_EIO ? EXIT_USAGE : exit_code_of(st) ? exit_code_of(st) : EXIT_FAIL;
		}
	}
	int rc;
	for (size_t i = 0; i < o->nsets; i++) {
		char buf[1024];
		snprintf(buf, sizeof buf, "%s", o->sets[i]);
		char *eq = strchr(buf, '=');
		*eq = 0;
		char *name = buf, *value = eq + 1;
		while (isspace((unsigned char)*name))
			name++;
		for (char *e = eq; e > name && isspace((unsigned char)e[-1]);)
			*--e = 0;
		if ((rc = set_param(sim, name, value, "--set")) != 0)
			return rc;
	}
	if (o->seed && (rc = set_param(sim, "sim.seed", o->seed, "--seed")) != 0)
		return rc;
	if (o->duration && (rc = set_param(sim, "sim.duration", o->duration, "--duration")) != 0)
		return rc;
	if (o->sample_interval &&
	    (rc = set_param(sim, "sim.sample_interval", o->sample_interval, "--sample-interval")) != 0)
		return rc;
	return 0;
}

/* The library's JSON with the command's metadata spliced in front. */
static int write_json_meta(aiw_sim *sim, FILE *out, const run_opts *o, double wall)
{
	char tmpl[] = "/tmp/aiworkload-jsonXXXXXX";
	const char *td = getenv("TMPDIR");
	char path[4096];
	snprintf(path, sizeof path, "%s/aiworkload-jsonXXXXXX", td && *td ? td : "/tmp");
	int fd = mkstemp(path);
	if (fd < 0) {
		fd = mkstemp(tmpl);
		snprintf(path, sizeof path, "%s", tmpl);
	}
	if (fd < 0) {
		errorf("cannot create a temporary file: %s", strerror(errno));
		return EXIT_FAIL;
	}
	close(fd);
	aiw_status st = aiw_sim_write_json(sim, path);
	FILE *in = st == AIW_OK ? fopen(path, "r") : NULL;
	if (!in) {
		errorf("%s", st != AIW_OK ? aiw_sim_errmsg(sim) : strerror(errno));
		unlink(path);
		return EXIT_FAIL;
	}
	int c;
	while ((c = fgetc(in)) != EOF && c != '{')
		;
	fputs("{\n  \"scenario\": \"", out);
	for (const char *s = scenario_label(o); *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', out);
		if ((unsigned char)*s >= 0x20)
			fputc(*s, out);
	}
	fprintf(out, "\",\n  \"wall_time_s\": %.6f,", wall);
	while ((c = fgetc(in)) != EOF)
		fputc(c, out);
	fclose(in);
	unlink(path);
	return ferror(out) ? EXIT_FAIL : 0;
}

/* ======================================================================== */
/* --stream-csv: the CSV of aiw_sim_write_csv, a row at every sample tick    */
/* ======================================================================== */
typedef struct stream {
	FILE *f;
	bool header;
	size_t n;           /* curves */
	double *sum, *span; /* per curve: integral of its finite points and their
	                       time span, for the summary's time averages (the
	                       curves keep only their last points in memory) */
	double last_t;
	bool oom;
} stream;

static void csv_num(FILE *f, double x)
{
	if (isfinite(x)) /* else an empty field, as aiw_sim_write_csv */
		fprintf(f, "%.17g", x);
}

static void stream_header(aiw_sim *sim, stream *s)
{
	size_t n = 0;
	aiw_sim_series_count(sim, &n);
	fputs("time_s", s->f);
	for (size_t i = 0; i < n; i++) {
		const char *name = "", *unit = "";
		aiw_sim_series_name(sim, i, &name);
		aiw_sim_series_unit(sim, name, &unit);
		fprintf(s->f, ",%s [%s]", name, *unit ? unit : "1");
	}
	fputc('\n', s->f);
	s->header = true;
}

static void stream_sample(aiw_sim *sim, double t, const double *v, size_t n, void *payload)
{
	stream *s = payload;
	if (!s->header) {
		stream_header(sim, s);
		s->n = n;
		s->sum = calloc(n ? n : 1, sizeof *s->sum);
		s->span = calloc(n ? n : 1, sizeof *s->span);
		s->oom = !s->sum || !s->span;
	}
	csv_num(s->f, t);
	for (size_t i = 0; i < n; i++) {
		fputc(',', s->f);
		csv_num(s->f, v[i]);
	}
	fputc('\n', s->f);
	/* the same sums, in the same order, as curve_mean over a whole curve */
	double dt = t - s->last_t;
	for (size_t i = 0; !s->oom && i < n && i < s->n; i++)
		if (isfinite(v[i])) {
			s->sum[i] += v[i] * dt;
			s->span[i] += dt;
		}
	s->last_t = t;
}

/* Close the stream (writing the header if no tick came); 0 or EXIT_FAIL. */
static int stream_close(aiw_sim *sim, stream *s, const char *path)
{
	if (!s->f)
		return 0;
	if (!s->header)
		stream_header(sim, s);
	bool bad = ferror(s->f) != 0;
	if (fclose(s->f) != 0 || bad) {
		errorf("error writing '%s'", path);
		s->f = NULL;
		return EXIT_FAIL;
	}
	s->f = NULL;
	return 0;
}

/* Time average of a curve (NAN without points): from the stream's sums
 * when the run streamed its curves, else from the kept points. */
static double curve_mean(aiw_sim *sim, const char *name, const stream *s)
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

/* Summary table: site first, then each component in creation order with
 * its metrics (known ones labelled, in METRIC_DOCS order, then the rest). */
static void print_summary(aiw_sim *sim, const run_opts *o, double wall, bool full,
                          const stream *s)
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
	for (size_t i = 0; i < n; i++)
		aiw_sim_metric_name(sim, i, &names[i]);
	double simt = NAN, events = NAN;
	aiw_sim_metric(sim, "sim.time_s", &simt);
	aiw_sim_metric(sim, "sim.events", &events);
	char seed[32] = "?", a[64], b[64];
	aiw_sim_get(sim, "sim.seed", seed, sizeof seed);
	fmt_duration(a, sizeof a, simt);
	fmt_group(b, sizeof b, events, 0);
	printf("aiworkload %s: %s\nseed %s, %s simulated, %s events, %.2f s wall\n",
	       aiw_version_string(), scenario_label(o), seed, a, b, wall);
	for (size_t i = 0; i < n; i++)
		if (strncmp(names[i], "sim.", 4) == 0)
			done[i] = true;
	/* groups in order of first appearance, site first */
	char kind[64], comp[96], gk[64], gc[96];
	const char *key;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t g = 0; g < n; g++) {
			if (done[g])
				continue;
			split_metric(names[g], gk, sizeof gk, gc, sizeof gc, &key);
			bool is_site = strcmp(gk, "site") == 0;
			if ((pass == 0) != is_site)
				continue;
			/* header */
			if (is_site) {
				printf("\nsite\n");
			} else {
				char prefix[200], p1[256], gpu[64] = "", cnt[64] = "";
				snprintf(prefix, sizeof prefix, "%s.%s", gk, gc);
				snprintf(p1, sizeof p1, "%s.gpu", prefix);
				bool hg = aiw_sim_get(sim, p1, gpu, sizeof gpu) == AIW_OK && gpu[0] &&
				          strcmp(gpu, "none") != 0;
				snprintf(p1, sizeof p1, "%s.gpus", prefix);
				bool hc = aiw_sim_get(sim, p1, cnt, sizeof cnt) == AIW_OK && cnt[0];
				char reps[32] = "", gpr[32] = "";
				snprintf(p1, sizeof p1, "%s.replicas", prefix);
				bool hr = aiw_sim_get(sim, p1, reps, sizeof reps) == AIW_OK && reps[0];
				snprintf(p1, sizeof p1, "%s.gpus_per_replica", prefix);
				bool hp = aiw_sim_get(sim, p1, gpr, sizeof gpr) == AIW_OK && gpr[0];
				printf("\n%s %s", gk, gc);
				if (hg && hc)
					printf(" (%s x %s)", cnt, gpu);
				else if (hg && hr && hp)
					printf(" (%s replicas x %s x %s at start)", reps, gpr, gpu);
				else if (hg)
					printf(" (%s)", gpu);
				putchar('\n');
			}
			/* known metrics first, in table order; the utilisation from the
			 * curve, at its place, when the model publishes none */
			char cname[256];
			snprintf(cname, sizeof cname, "%s%s%s.utilization", gk, is_site ? "" : ".",
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
					split_metric(names[i], kind, sizeof kind, comp, sizeof comp, &key);
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
				split_metric(names[i], kind, sizeof kind, comp, sizeof comp, &key);
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
	free(names);
	free(done);
}

static int cmd_run(int argc, char **argv, int first, bool plot)
{
	run_opts o;
	int rc = parse_run_opts(argc, argv, first, &o, plot);
	if (rc) {
		free(o.scenarios);
		free(o.sets);
		return rc;
	}
	aiw_sim *sim = NULL;
	if (aiw_sim_create(&sim, 1) != AIW_OK) {
		errorf("out of memory");
		free(o.scenarios);
		free(o.sets);
		return EXIT_FAIL;
	}
	/* --stream-csv: a small ring of points in memory, unless the scenario or
	 * --set says otherwise (set first, they override it) or another output
	 * needs the whole curves */
	stream st = {0};
	if (o.stream_csv && !o.series && !o.promtest && !o.plot) {
		char keep[32];
		snprintf(keep, sizeof keep, "%d", STREAM_KEEP);
		if (aiw_sim_set(sim, "sim.series_keep", keep) != AIW_OK) {
			errorf("%s", aiw_sim_errmsg(sim)); /* a library without streaming */
			aiw_sim_free(sim);
			free(o.scenarios);
			free(o.sets);
			return EXIT_FAIL;
		}
	}
	rc = configure(sim, &o);
	if (rc == 0 && o.stream_csv) {
		st.f = fopen(o.stream_csv, "w");
		if (!st.f) {
			errorf("cannot write '%s': %s", o.stream_csv, strerror(errno));
			rc = EXIT_FAIL;
		} else {
			aiw_sim_set_sample_callback(sim, stream_sample, &st);
		}
	}
	progress pr = {0};
	if (rc == 0) {
		bool show = o.progress == 1 || (o.progress == -1 && isatty(STDERR_FILENO));
		double end = 0;
		aiw_sim_get_double(sim, "sim.duration", &end);
		clock_gettime(CLOCK_MONOTONIC, &pr.start);
		if (show)
			aiw_sim_set_progress(sim, progress_cb, &pr, end / 400);
		aiw_status st = aiw_sim_run(sim);
		progress_clear(&pr);
		if (st != AIW_OK) {
			errorf("%s", aiw_sim_errmsg(sim));
			rc = exit_code_of(st) ? exit_code_of(st) : EXIT_FAIL;
		}
	}
	if (st.f) {
		int src = stream_close(sim, &st, o.stream_csv);
		if (rc == 0)
			rc = src;
	}
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double wall = elapsed(&pr.start, &t1);
	struct {
		const char *path;
		aiw_status (*fn)(aiw_sim *, const char *);
	} writers[] = {{o.series, aiw_sim_write_csv}, {o.metrics, aiw_sim_write_prometheus}};
	for (size_t i = 0; rc == 0 && i < sizeof writers / sizeof *writers; i++)
		if (writers[i].path && writers[i].fn(sim, writers[i].path) != AIW_OK) {
			errorf("%s", aiw_sim_errmsg(sim));
			rc = EXIT_FAIL;
		}
	if (rc == 0 && o.promtest && aiw_sim_write_promtest(sim, o.promtest, o.rules) != AIW_OK) {
		errorf("%s", aiw_sim_errmsg(sim));
		rc = EXIT_FAIL;
	}
	if (rc == 0 && o.plot && aiw_sim_write_svg(sim, o.plot, o.title) != AIW_OK) {
		errorf("%s", aiw_sim_errmsg(sim));
		rc = EXIT_FAIL;
	}
	if (rc == 0 && o.json) {
		FILE *f = fopen(o.json, "w");
		if (!f) {
			errorf("cannot write '%s': %s", o.json, strerror(errno));
			rc = EXIT_FAIL;
		} else {
			rc = write_json_meta(sim, f, &o, wall);
			if (fclose(f) != 0 && rc == 0) {
				errorf("error writing '%s'", o.json);
				rc = EXIT_FAIL;
			}
		}
	}
	if (rc == 0 && (strcmp(o.summary, "text") == 0 || strcmp(o.summary, "full") == 0))
		print_summary(sim, &o, wall, strcmp(o.summary, "full") == 0, &st);
	else if (rc == 0 && strcmp(o.summary, "json") == 0)
		rc = write_json_meta(sim, stdout, &o, wall);
	if (rc == 0 && (fflush(stdout) != 0 || ferror(stdout))) {
		errorf("error writing to standard output");
		rc = EXIT_FAIL;
	}
	aiw_sim_free(sim);
	free(st.sum);
	free(st.span);
	free(o.scenarios);
	free(o.sets);
	return rc;
}

/* ======================================================================== */
/* params                                                                    */
/* ======================================================================== */
static bool name_matches(const char *name, const char *pat)
{
	if (!pat || !*pat)
		return true;
	if (strpbrk(pat, "*?["))
		return fnmatch(pat, name, 0) == 0;
	return strstr(name, pat) != NULL;
}

static bool numeric_type(const char *type)
{
	return strcmp(type, "string") && strcmp(type, "enum") && strcmp(type, "dist") &&
	       strcmp(type, "bool");
}

static void fmt_range(char *buf, size_t len, const char *type, double lo, double hi,
                      const char *choices)
{
	if (strcmp(type, "enum") == 0)
		snprintf(buf, len, "%s", choices);
	else if (!numeric_type(type) || (lo == 0 && hi == 0))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%g..%g", lo, hi);
}

static int man_params(void);

static int cmd_params(int argc, char **argv)
{
	const char *pat = NULL;
	bool man = false;
	for (int i = 2; i < argc; i++) {
		if (strcmp(argv[i], "--man") == 0)
			man = true;
		else if (argv[i][0] == '-')
			return usage_error("params: unknown option '%s'", argv[i]);
		else if (pat)
			return usage_error("params: one PATTERN at most");
		else
			pat = argv[i];
	}
	if (man) {
		if (pat)
			return usage_error("params --man takes no PATTERN");
		return man_params();
	}
	size_t n = 0, shown = 0;
	aiw_param_count(&n);
	printf("%-36s %-9s %-14s %-8s %-22s %s\n", "NAME", "TYPE", "DEFAULT", "UNIT", "RANGE",
	       "DESCRIPTION");
	for (size_t i = 0; i < n; i++) {
		const char *name, *type, *def, *unit, *choices, *doc;
		double lo, hi;
		if (aiw_param_info(i, &name, &type, &def, &unit, &lo, &hi, &choices, &doc) != AIW_OK)
			continue;
		if (!name_matches(name, pat))
			continue;
		char range[128];
		fmt_range(range, sizeof range, type, lo, hi, choices);
		printf("%-36s %-9s %-14s %-8s %-22s %s\n", name, type, *def ? def : "-",
		       *unit ? unit : "-", range, doc);
		shown++;
	}
	if (shown == 0) {
		errorf("no parameter matches '%s'", pat ? pat : "");
		return EXIT_USAGE;
	}
	return 0;
}

/* ------------------------------------------------------------------------ */
/* aiworkload-params(7), generated: parameters from the registry, metrics   */
/* and curves from a short run of the built-in scenario plus a load.        */
/* ------------------------------------------------------------------------ */
#define MAN_DATE "November 29, 2026"

/* Text safe on an mdoc text line: escape backslashes, protect a leading dot
 * or apostrophe. */
static void man_text(const char *s)
{
	if (*s == '.' || *s == '\'')
		fputs("\\&", stdout);
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\e", stdout);
		else
			putchar(*s);
	}
}

/* "training.pretrain.goodput" -> "training.NAME.goodput" */
static void generic_name(const char *full, char *out, size_t len)
{
	char kind[64], comp[96];
	const char *key;
	split_metric(full, kind, sizeof kind, comp, sizeof comp, &key);
	if (comp[0])
		snprintf(out, len, "%s.NAME.%s", kind, key);
	else
		snprintf(out, len, "%s", full);
}

static int str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int man_params(void)
{
	aiw_sim *sim;
	if (aiw_sim_create(&sim, 1) != AIW_OK)
		return EXIT_FAIL;
	aiw_status st = aiw_sim_load_string(sim, DEFAULT_SCENARIO, "mixed-site.ini (built-in)");
	if (st == AIW_OK)
		st = aiw_sim_load_string(sim, "[sim]\nduration = 2h\n[load aux]\nprofile = 0:1kW\n",
		                         "man page run");
	if (st == AIW_OK)
		st = aiw_sim_run(sim);
	if (st != AIW_OK) {
		errorf("%s", aiw_sim_errmsg(sim));
		aiw_sim_free(sim);
		return EXIT_FAIL;
	}
	printf(".\\\" Generated by `aiworkload params --man` from the parameter registry\n"
	       ".\\\" and a run of the built-in scenario; do not edit (tests/cli/test_cli.sh\n"
	       ".\\\" checks that this page equals the generated one).\n"
	       ".Dd %s\n.Dt AIWORKLOAD-PARAMS 7\n.Os libaiworkload %s\n"
	       ".Sh NAME\n.Nm aiworkload-params\n"
	       ".Nd parameters, metrics and curves of libaiworkload\n"
	       ".Sh DESCRIPTION\n"
	       "Every parameter of a simulation, as declared once in the library's\n"
	       "registry: the names scenario files, command-line\n"
	       ".Fl -set\n"
	       "options and\n.Xr aiw_sim_set 3\n"
	       "use.\n"
	       "In a name,\n.Ql NAME\n"
	       "stands for the component name of the scenario section:\n"
	       ".Ql [training pretrain]\n"
	       "gives\n.Ql training.pretrain.gpus .\n"
	       "Values take units, such as\n"
	       ".Ql 90d ,\n.Ql 250ms ,\n.Ql 20/s ,\n.Ql 80GB ,\n.Ql 3.35TB/s\nor\n.Ql 700W ;\n"
	       "a bare number is in SI base units, and so are the ranges below.\n",
	       MAN_DATE, aiw_version_string());
	/* parameters grouped by kind */
	size_t n = 0;
	aiw_param_count(&n);
	char cur[64] = "";
	for (size_t i = 0; i < n; i++) {
		const char *name, *type, *def, *unit, *choices, *doc;
		double lo, hi;
		if (aiw_param_info(i, &name, &type, &def, &unit, &lo, &hi, &choices, &doc) != AIW_OK)
			continue;
		const char *dot = strchr(name, '.');
		size_t kl = dot ? (size_t)(dot - name) : strlen(name);
		if (strlen(cur) != kl || strncmp(cur, name, kl) != 0) {
			if (cur[0])
				printf(".El\n");
			snprintf(cur, sizeof cur, "%.*s", (int)kl, name);
			printf(".Ss Parameters of %s\n.Bl -tag -width Ds\n", cur);
		}
		bool has_unit = *unit && strcmp(unit, "1") != 0;
		printf(".It Li %s Pq Vt %s\n", name, type);
		man_text(doc);
		printf(".\nDefault:\n");
		if (*def)
			printf(".Ql %s ;\n", def);
		else
			printf("none;\n");
		if (strcmp(type, "enum") == 0)
			printf("one of\n.Ql %s .\n", choices);
		else if (numeric_type(type) && !(lo == 0 && hi == 0))
			printf("range %g to %g%s%s.\n", lo, hi, has_unit ? " " : "", has_unit ? unit : "");
		else if (has_unit)
			printf("unit %s.\n", unit);
		else
			printf("no range.\n");
	}
	if (cur[0])
		printf(".El\n");
	/* metrics */
	size_t nm = 0;
	aiw_sim_metric_count(sim, &nm);
	char **gen = calloc(nm ? nm : 1, sizeof *gen);
	size_t ng = 0;
	for (size_t i = 0; gen && i < nm; i++) {
		const char *m;
		char buf[256];
		if (aiw_sim_metric_name(sim, i, &m) != AIW_OK)
			continue;
		generic_name(m, buf, sizeof buf);
		if (strncmp(buf, "load.", 5) == 0 && strncmp(m, "load.aux.", 9) != 0)
			continue;
		gen[ng] = strdup(buf);
		if (gen[ng])
			ng++;
	}
	qsort(gen, ng, sizeof *gen, str_cmp);
	printf(".Sh METRICS\n"
	       "Summary metrics, read with\n.Xr aiw_sim_metric 3\n"
	       "after a run call, written by\n.Xr aiw_sim_write_json 3\n"
	       "and exported by\n.Xr aiw_sim_write_prometheus 3 .\n"
	       "The unit is the name's suffix:\n"
	       ".Ql _s\nseconds,\n.Ql _w\nwatts,\n.Ql _kwh\nkilowatt-hours,\n.Ql _usd\nUS dollars,\n"
	       ".Ql _per_s\nper second; other metrics are counts or ratios.\n"
	       ".Bl -tag -width Ds\n");
	for (size_t i = 0; i < ng; i++) {
		if (i && strcmp(gen[i], gen[i - 1]) == 0)
			continue;
		char kind[64], comp[96];
		const char *key;
		split_metric(gen[i], kind, sizeof kind, comp, sizeof comp, &key);
		const metric_doc *d = doc_of(kind, key);
		printf(".It Li %s\n", gen[i]);
		man_text(d ? (d->doc ? d->doc : d->label) : "(no description yet)");
		printf(".\n");
	}
	printf(".El\n");
	for (size_t i = 0; i < ng; i++)
		free(gen[i]);
	free(gen);
	/* curves */
	size_t nc = 0;
	aiw_sim_series_count(sim, &nc);
	char **cv = calloc(nc ? nc : 1, sizeof *cv);
	size_t ncv = 0;
	for (size_t i = 0; cv && i < nc; i++) {
		const char *c, *u = "";
		char buf[256], line[320];
		if (aiw_sim_series_name(sim, i, &c) != AIW_OK)
			continue;
		aiw_sim_series_unit(sim, c, &u);
		generic_name(c, buf, sizeof buf);
		if (strncmp(buf, "load.", 5) == 0 && strncmp(c, "load.aux.", 9) != 0)
			continue;
		snprintf(line, sizeof line, "%s\t%s", buf, u);
		cv[ncv] = strdup(line);
		if (cv[ncv])
			ncv++;
	}
	qsort(cv, ncv, sizeof *cv, str_cmp);
	printf(".Sh CURVES\n"
	       "Time series at\n.Li sim.sample_interval ,\n"
	       "each point the average over the interval that ends at its time, read with\n"
	       ".Xr aiw_sim_series_copy 3\n"
	       "and written by\n.Xr aiw_sim_write_csv 3 ;\n"
	       ".Li sim.series_keep\n"
	       "bounds the points each keeps in memory, and\n"
	       ".Xr aiw_sim_set_sample_callback 3\n"
	       "streams every point as it is recorded.\n"
	       ".Bl -column \"inference.NAME.cost_rate_usd_per_h\" \"USD/h\" -offset indent\n"
	       ".It Sy curve Ta Sy unit\n");
	for (size_t i = 0; i < ncv; i++) {
		if (i && strcmp(cv[i], cv[i - 1]) == 0)
			continue;
		char *tab = strchr(cv[i], '\t');
		*tab = 0;
		printf(".It Li %s Ta %s\n", cv[i], tab[1] ? tab + 1 : "1");
	}
	printf(".El\n");
	for (size_t i = 0; i < ncv; i++)
		free(cv[i]);
	free(cv);
	printf(".Sh SEE ALSO\n.Xr aiworkload 1 ,\n.Xr aiw_param_info 3 ,\n.Xr aiw_sim_set 3 ,\n"
	       ".Xr aiworkload-scenario 5\n");
	aiw_sim_free(sim);
	return fflush(stdout) == 0 && !ferror(stdout) ? 0 : EXIT_FAIL;
}

/* ======================================================================== */
/* catalog                                                                   */
/* ======================================================================== */
static double gpu_val(const char *gpu, const char *field)
{
	double v = NAN;
	aiw_catalog_gpu_value(gpu, field, &v);
	return v;
}

static int cmd_catalog(int argc, char **argv)
{
	if (argc > 3)
		return usage_error("catalog: at most one GPU or link name");
	const char *one = argc == 3 ? argv[2] : NULL;
	size_t ng = 0, nl = 0;
	aiw_catalog_gpu_count(&ng);
	aiw_catalog_link_count(&nl);
	if (one) {
		double v;
		bool gpu = aiw_catalog_gpu_value(one, "tdp_w", &v) == AIW_OK;
		bool link = !gpu && aiw_catalog_link_value(one, "bw", &v) == AIW_OK;
		if (!gpu && !link) {
			errorf("no GPU or link named '%s' (see `aiworkload catalog`)", one);
			return EXIT_USAGE;
		}
		printf("%s %s\n", gpu ? "GPU" : "link", one);
		for (size_t i = 0;; i++) {
			const char *f, *u, *d;
			aiw_status st = gpu ? aiw_catalog_gpu_field(i, &f, &u, &d)
			                    : aiw_catalog_link_field(i, &f, &u, &d);
			if (st != AIW_OK)
				break;
			double x = NAN;
			if (gpu)
				aiw_catalog_gpu_value(one, f, &x);
			else
				aiw_catalog_link_value(one, f, &x);
			printf("  %-20s %14.6g %-8s %s\n", f, x, u, d);
		}
		return 0;
	}
	printf("GPUs (aiworkload catalog NAME shows every field; [gpu NAME] sections add more)\n");
	printf("  %-10s %7s %8s %9s %9s %6s %6s %9s %8s %8s %7s\n", "NAME", "MEM", "MEM BW",
	       "BF16", "FP8", "TDP", "IDLE", "PRICE", "RENT", "NVLINK", "NIC");
	printf("  %-10s %7s %8s %9s %9s %6s %6s %9s %8s %8s %7s\n", "", "GB", "TB/s", "TFLOP/s",
	       "TFLOP/s", "W", "W", "USD", "USD/h", "GB/s", "GB/s");
	for (size_t i = 0; i < ng; i++) {
		const char *g;
		if (aiw_catalog_gpu_name(i, &g) != AIW_OK)
			continue;
		char price[32];
		double pu = gpu_val(g, "price_usd"), rent = gpu_val(g, "ondemand_usd_per_h");
		if (pu > 0)
			fmt_group(price, sizeof price, pu, 0);
		else
			snprintf(price, sizeof price, "-");
		printf("  %-10s %7.0f %8.2f %9.0f %9.0f %6.0f %6.0f %9s ", g,
		       gpu_val(g, "mem_bytes") / 1e9, gpu_val(g, "mem_bw") / 1e12,
		       gpu_val(g, "bf16_flops") / 1e12, gpu_val(g, "fp8_flops") / 1e12,
		       gpu_val(g, "tdp_w"), gpu_val(g, "idle_w"), price);
		if (rent > 0)
			printf("%8.2f", rent);
		else
			printf("%8s", "-");
		printf(" %8.0f %7.0f\n", gpu_val(g, "nvlink_bw") / 1e9, gpu_val(g, "nic_bw") / 1e9);
	}
	printf("  (bandwidths per GPU and per direction)\n\nLinks (alpha-beta model: a message of m "
	       "bytes takes alpha + m / bw)\n");
	printf("  %-10s %10s %10s\n", "NAME", "ALPHA us", "BW GB/s");
	for (size_t i = 0; i < nl; i++) {
		const char *l;
		double a = NAN, b = NAN;
		if (aiw_catalog_link_name(i, &l) != AIW_OK)
			continue;
		aiw_catalog_link_value(l, "alpha_s", &a);
		aiw_catalog_link_value(l, "bw", &b);
		printf("  %-10s %10.3g %10.4g\n", l, a * 1e6, b / 1e9);
	}
	return fflush(stdout) == 0 && !ferror(stdout) ? 0 : EXIT_FAIL;
}

/* ======================================================================== */
int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : "run";
	if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 || strcmp(cmd, "help") == 0) {
		usage_text(stdout);
		return 0;
	}
	if (strcmp(cmd, "--version") == 0 || strcmp(cmd, "-V") == 0) {
		printf("aiworkload (libaiworkload) %s\n", aiw_version_string());
		return 0;
	}
	if (strcmp(cmd, "sweep") == 0) /* tools/sweep_cli.c */
		return cli_sweep(argc - 1, argv + 1);
	for (int i = 2; i < argc; i++)
		if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
			usage_text(stdout);
			return 0;
		}
	if (strcmp(cmd, "run") == 0)
		return cmd_run(argc, argv, 2, false);
	if (strcmp(cmd, "plot") == 0)
		return cmd_run(argc, argv, 2, true);
	if (strcmp(cmd, "params") == 0)
		return cmd_params(argc, argv);
	if (strcmp(cmd, "catalog") == 0)
		return cmd_catalog(argc, argv);
	if (strcmp(cmd, "scenario") == 0) {
		if (argc > 2)
			return usage_error("scenario takes no arguments");
		fputs(DEFAULT_SCENARIO, stdout);
		return fflush(stdout) == 0 ? 0 : EXIT_FAIL;
	}
	/* `aiworkload FILE.ini ...` and `aiworkload --set ...` mean run */
	if (cmd[0] == '-' || ends_with(cmd, ".ini"))
		return cmd_run(argc, argv, 1, false);
	return usage_error("unknown command '%s'", cmd);
}
