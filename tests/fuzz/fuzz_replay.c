/* fuzz_replay - libFuzzer harness: arbitrary bytes as the recorded metrics
 * of aiw_autoscale_replay (the first byte picks hpa or kpa and a setting
 * among short periods and ticks), output to nowhere.  Every input returns,
 * bounded by its rows: no hang on gaps or huge times. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <aiworkload.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1 || size > 1 << 16)
		return 0;
	static const char *const sets[] = {"hpa_sync_period=1ns", "kpa_tick=1ns",
	                                   "metric_interval=1ms", "kpa_stable_window=6s",
	                                   "max_replicas=100000", "metric=concurrency",
	                                   "target_value=0.001", "replicas=1"};
	const char *policy = data[0] & 1 ? "kpa" : "hpa";
	const char *set[1] = {sets[(data[0] >> 1) % (sizeof sets / sizeof *sets)]};
	char path[] = "/tmp/aiwi_fuzz_replayXXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return 0;
	if (write(fd, data + 1, size - 1) != (ssize_t)(size - 1)) {
		close(fd);
		unlink(path);
		return 0;
	}
	close(fd);
	char err[1024];
	uint64_t syncs = 0;
	aiw_autoscale_replay(policy, set, (data[0] & 0x80) ? 1 : 0, path, NULL, &syncs, err,
	                     sizeof err);
	unlink(path);
	return 0;
}
