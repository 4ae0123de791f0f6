/* hostile.h - helpers shared by the hostile-input suites
 * (tests/api/test_hostile_*.c). */
#ifndef AIW_TEST_HOSTILE_H
#define AIW_TEST_HOSTILE_H

#include "core/internal.h"
#include "core/limits.h"
#include "../testutil.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* Under valgrind (~50x slower) the 1e7-event heap shrinks to 1e5, under
 * the sanitizers (AIW_SANITIZED=1, ~10x) to 1e6: there the point is memory
 * checking; the full size runs in the plain build (testutil.h). */
#define under_valgrind aiwi_test_under_valgrind
#define slowed aiwi_test_slowed

static inline aiw_sim *new_sim(void)
{
	aiw_sim *sim = NULL;
	ck_assert_int_eq(aiw_sim_create(&sim, 1), AIW_OK);
	return sim;
}

#define ck_assert_msg_eq(sim, want)                                                     \
	ck_assert_msg(strcmp(aiw_sim_errmsg(sim), (want)) == 0, "message\n  got:  %s\n  want: %s", \
	              aiw_sim_errmsg(sim), (want))

static inline void write_file(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_msg(fd >= 0, "cannot create %s", path);
	ck_assert(write(fd, data, len) == (ssize_t)len);
	close(fd);
}

/* Bytes this process has read so far (/proc/self/io rchar), or -1. */
static inline double bytes_read(void)
{
	FILE *f = fopen("/proc/self/io", "r");
	if (!f)
		return -1;
	char line[128];
	double v = -1;
	while (fgets(line, sizeof line, f))
		if (sscanf(line, "rchar: %lf", &v) == 1)
			break;
	fclose(f);
	return v;
}

/* Run a one-hour fleet on trace `path`; the status, message in *sim. */
static inline aiw_status run_trace(aiw_sim **out, const char *path, bool loop)
{
	aiw_sim *sim = new_sim();
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.duration", "1h"));
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.sample_interval", "10min"));
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "inference.a.traffic", "trace"));
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "inference.a.trace_file", path));
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "inference.a.trace_loop", loop ? "true" : "false"));
	*out = sim;
	return aiw_sim_run(sim);
}


#endif
