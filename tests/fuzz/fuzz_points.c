/* fuzz_points - libFuzzer harness: arbitrary bytes as the points file of a
 * sweep (`aiworkload sweep --points FILE.csv`, aiw_sweep_point_file: a
 * header of parameter names, one row of values per point, RFC 4180
 * quoting), read and then prepared (every value checked against the
 * registry, point 0 started for a zero-length run) on a small scenario;
 * nothing is run. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <aiworkload.h>

static const char SCENARIO[] = "[sim]\nduration = 1min\n"
                               "[inference chat]\nrate = 1/s\ngpus_per_replica = 1\n"
                               "model_params = 8e9\n"
                               "[training t]\ngpus = 8\nstep_compute = 1s\n";

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 1 << 14)
		return 0;
	char path[] = "/tmp/aiwi_fuzz_pointsXXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		unlink(path);
		return 0;
	}
	close(fd);
	aiw_sweep *sw = NULL;
	if (aiw_sweep_create(&sw, NULL, SCENARIO) == AIW_OK) {
		aiw_sweep_set_keep_going(sw, (size & 1) != 0);
		if (aiw_sweep_point_file(sw, path) == AIW_OK) {
			size_t np = 0;
			/* points beyond a few hundred only repeat the checks */
			if (aiw_sweep_prepare(sw) == AIW_OK)
				aiw_sweep_npoints(sw, &np);
		}
		(void)aiw_sweep_errmsg(sw);
	}
	aiw_sweep_free(sw);
	unlink(path);
	return 0;
}
