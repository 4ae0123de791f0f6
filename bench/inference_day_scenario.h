/*
 * bench/inference_day_scenario.h - the scenario of bench/inference_day (and
 * bench/interleave_day, which runs it in two builds of the library): an 8B
 * model on 300 single-H100 replicas, least-loaded routing, continuous
 * batching (max_batch 64), diurnal traffic of mean `rate` requests/s
 * (peak/trough 10, peak at `peak_hour`), 1-minute curves, seed 1.
 */
#ifndef BENCH_INFERENCE_DAY_SCENARIO_H
#define BENCH_INFERENCE_DAY_SCENARIO_H

#include <stdio.h>

static inline int inference_day_scenario(char *text, size_t size, double days, double rate,
                                         double peak_hour)
{
	return snprintf(text, size,
	                "[sim]\nseed = 1\nduration = %gd\nsample_interval = 1min\n"
	                "[inference chat]\ngpu = H100-SXM\ngpus_per_replica = 1\n"
	                "model_params = 8e9\nlayers = 32\nkv_heads = 8\nhead_dim = 128\n"
	                "weight_bits = 16\nreplicas = 300\nrouter = least_loaded\n"
	                "traffic = diurnal\nrate = %g/s\npeak_to_trough = 10\npeak_hour = %g\n"
	                "batching = continuous\nmax_batch = 64\n"
	                "slo_ttft = 500ms\nslo_tpot = 50ms\n",
	                days, rate, peak_hour);
}

#endif
