/* fuzz_profile - libFuzzer harness: arbitrary bytes as a measured serving
 * profile (Splitwise's perf_model.csv or phase,gpu,tp,...), read and fitted
 * per GPU and phase, every row predicted. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <aiworkload.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > 1 << 16)
		return 0;
	char path[] = "/tmp/aiwi_fuzz_profileXXXXXX";
	int fd = mkstemp(path);
	if (fd < 0)
		return 0;
	if (write(fd, data, size) != (ssize_t)size) {
		close(fd);
		unlink(path);
		return 0;
	}
	close(fd);
	aiw_profile *pr;
	if (aiw_profile_create(&pr) != AIW_OK) {
		unlink(path);
		return 0;
	}
	if (aiw_profile_read(pr, path) == AIW_OK) {
		size_t ng = 0, nr = 0;
		aiw_profile_group_count(pr, &ng);
		aiw_profile_row_count(pr, &nr);
		double coef[8], se[8], t;
		for (size_t g = 0; g < ng && g < 4; g++) {
			const char *name, *gpu;
			if (aiw_profile_group_name(pr, g, &name, &gpu) != AIW_OK)
				continue;
			for (int ph = 0; ph < 2; ph++)
				if (aiw_profile_fit(pr, name, ph ? "decode" : "prefill", coef, se, 8) ==
				    AIW_OK)
					for (size_t i = 0; i < nr && i < 64; i++)
						aiw_profile_predict(pr, i, coef, 8, &t);
		}
	}
	aiw_profile_free(pr);
	unlink(path);
	return 0;
}
