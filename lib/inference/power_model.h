/*
 * power_model.h - a decoding GPU's power by its running batch
 * (power_model = batch, doc/inference.md "Decode power by batch"): a
 * logistic in log2 of the batch between a low and a high level,
 *   P(n) = low + (high - low) / (1 + exp(-(log2 n - mid) / width)),
 * mid the log2 of the batch at the midpoint, width in doublings; low for
 * n < 1.  Its default levels: the ML.ENERGY Benchmark's H100 decode power
 * (serving.c).  Private to lib/inference/ and its tests.
 */
#ifndef AIW_INFERENCE_POWER_MODEL_H
#define AIW_INFERENCE_POWER_MODEL_H

#include <math.h>

static inline double aiwi_batch_power_w(double low, double high, double mid, double width,
                                        double n)
{
	if (!(n >= 1))
		return low;
	return low + (high - low) / (1 + exp(-(log2(n) - mid) / width));
}

#endif /* AIW_INFERENCE_POWER_MODEL_H */
