/* fuzz_trace - libFuzzer harness: arbitrary bytes as a request trace CSV,
 * replayed through the traffic process (the reader validates the whole
 * file up front, then streams it). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_rng.h>

#include "core/internal.h"
#include "inference/traffic.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 1 << 16)
		return 0;
	char path[] = "/tmp/aiwi_fuzz_traceXXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		unlink(path);
		return 0;
	}
	close(fd);
	aiwi_traffic_conf conf;
	aiwi_traffic_conf_default(&conf);
	conf.kind = AIW_TRAFFIC_TRACE;
	conf.trace_path = path;
	conf.loop = size & 1;
	char err[256];
	aiwi_traffic *tr;
	if (aiwi_traffic_new(&tr, &conf, err, sizeof err) == AIW_OK) {
		gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
		double now = 0, p, o;
		for (int i = 0; i < 2000; i++) {
			double t = aiwi_traffic_next(tr, r, now, &p, &o);
			if (!(t >= now) || t == __builtin_inf())
				break;
			now = t;
		}
		gsl_rng_free(r);
		aiwi_traffic_free(tr);
	}
	unlink(path);
	return 0;
}
