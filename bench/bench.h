/*
 * bench/bench.h - what the benchmarks share: clocks (bench_clock_s), a
 * metric read that says why it failed (bench_metric), and the line a
 * benchmark ends with (print_machine): which processor, how many of them,
 * which compiler.  Timings are only comparable on one
 * machine: the same code on two processors of one machine class can differ
 * by a factor of two (doc/perf-log.md).
 */
#ifndef AIW_BENCH_H
#define AIW_BENCH_H

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* Seconds on a clock: CLOCK_MONOTONIC (wall), CLOCK_PROCESS_CPUTIME_ID,
 * CLOCK_THREAD_CPUTIME_ID. */
static inline double bench_clock_s(clockid_t id)
{
	struct timespec ts;
	clock_gettime(id, &ts);
	return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

#ifdef AIWORKLOAD_H
/* A metric's value, or NaN with the library's message on standard error. */
static inline double bench_metric(aiw_sim *sim, const char *name)
{
	double v = NAN;
	if (aiw_sim_metric(sim, name, &v) != AIW_OK)
		fprintf(stderr, "metric %s: %s\n", name, aiw_sim_errmsg(sim));
	return v;
}
#endif

/* the value of /proc/cpuinfo's first "key : value" line, or "" */
static inline void cpuinfo_field(const char *key, char *out, size_t size)
{
	char line[512];
	out[0] = '\0';
	FILE *f = fopen("/proc/cpuinfo", "r");
	if (!f)
		return;
	size_t k = strlen(key);
	while (fgets(line, sizeof line, f)) {
		char *colon = strchr(line, ':');
		if (colon && !strncmp(line, key, k) && (line[k] == ' ' || line[k] == '\t')) {
			colon += 1 + (colon[1] == ' ');
			colon[strcspn(colon, "\n")] = '\0';
			snprintf(out, size, "%s", colon);
			break;
		}
	}
	fclose(f);
}

static inline void print_machine(void)
{
	char model[256], family[32], number[32];
	cpuinfo_field("model name", model, sizeof model);
	cpuinfo_field("cpu family", family, sizeof family);
	cpuinfo_field("model", number, sizeof number);
	printf("machine: %s (family %s, model %s), %ld CPU(s) online, compiler %s\n",
	       model[0] ? model : "unknown processor", family[0] ? family : "?",
	       number[0] ? number : "?", sysconf(_SC_NPROCESSORS_ONLN),
#if defined(__clang__)
	       __VERSION__
#elif defined(__GNUC__)
	       "gcc " __VERSION__
#else
	       "unknown"
#endif
	);
}

#endif
