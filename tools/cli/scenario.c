/*
 * scenario.c - the built-in default scenario, and `aiworkload scenario`
 * that prints it.
 */
#include "common.h"

#include <stdlib.h>

/* The built-in default: the seeds' situation, a training cluster and a
 * diurnal inference fleet on one site.  Shipped verbatim as
 * examples/scenarios/mixed-site.ini (tests/cli/test_cli.sh checks they agree). */
const char cli_default_scenario[] =
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
	";   site IT power peak 1.58 MW (facility 2.05 MW), diversity factor 1.00\n"
	";   training: goodput 90 %, step time 4.06 s, straggler slowdown 1.10\n"
	";   inference: 2.6 million requests, none dropped, 8 to 89 replicas (49 on\n"
	";   average), TTFT P99 1.26 s, SLO attainment (TTFT <= 500 ms) 87 %,\n"
	";   fleet cost $8,700 a day (a fleet fixed at its peak of 89 replicas:\n"
	";   $15,700).  Seeds 1-24: IT peak 1.54-1.61 MW, replicas peak 83-94 and\n"
	";   mean 48.7-49.6, TTFT P99 1.24-1.26 s, SLO attainment 87.3-87.4 %.\n"
	";\n"
	"; check: site.power_peak_w in [1.45e6, 1.7e6]\n"
	"; check: site.diversity_factor in [1.0, 1.02]\n"
	"; check: training.pretrain.goodput in [0.85, 0.95]\n"
	"; check: training.pretrain.straggler_slowdown in [1.05, 1.15]\n"
	"; check: inference.chat.requests_arrived in [2.5e6, 2.7e6]\n"
	"; check: inference.chat.requests_dropped == 0\n"
	"; check: inference.chat.replicas_peak in [75, 96]\n"
	"; check: inference.chat.replicas_mean in [44, 55]\n"
	"; check: inference.chat.ttft_p99_s in [1.0, 1.6]\n"
	"; check: inference.chat.slo_attainment in [0.84, 0.91]\n"
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
	"tokens_per_gpu = 3906.25        ; 4e6 tokens per step at 1,024 GPUs, growing with gpus\n"
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

int cli_scenario(int argc, char **argv)
{
	const cli_cmd who = {cli_prog, "scenario", false};
	const char **ops = calloc(argc > 0 ? (size_t)argc : 1, sizeof *ops);
	if (!ops) {
		cli_errorf("out of memory");
		return EXIT_FAIL;
	}
	size_t nops = 0;
	bool help = false;
	int rc = cli_parse_options(&who, argc, argv, 2, NULL, 0, ops, &nops, &help);
	const char *first = nops ? ops[0] : NULL;
	free(ops);
	if (rc)
		return rc;
	if (help) {
		printf("usage: aiworkload scenario\n\nPrint the built-in default scenario "
		       "(examples/scenarios/mixed-site.ini),\nwhich `aiworkload run` runs without a "
		       "scenario file.\n");
		return cli_flush_stdout();
	}
	if (first)
		return cli_cmd_usage_error(&who, "takes no arguments ('%s')", first);
	fputs(cli_default_scenario, stdout);
	return cli_flush_stdout();
}
