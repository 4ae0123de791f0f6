/*
 * bench/inference_day - a 24-hour diurnal day at a mean 1,000 requests/s
 * (~86 million requests), continuous batching, 1-minute curves, through the
 * public API.  Goals: under 30 s wall on one core, peak memory under
 * 256 MB, and the memory of a 7-day run within 10% of a 1-day run.
 *
 * Fleet: an 8B model (Llama 3 8B shape: 32 layers, 8 KV heads of 128, BF16)
 * on 300 single-H100 replicas, least-loaded routing, max_batch 64; traffic
 * peaks at 1,818 requests/s (peak/trough 10) at 14:00.
 *
 * Each run is a child process (fork), so that its peak RSS (getrusage of
 * the child) is its own.  The 7-day run is longer (about 7x the 1-day
 * wall time); --no-week skips it.  Two measurements, each of a 1-day and a
 * 7-day run:
 *
 *  - in memory (sim.series_keep = all, the default): curves take 8 bytes
 *    per point per curve (1,440 points a day; the recorder allocates the
 *    run's points at once), so the 7-day run holds 6 more days of them by
 *    design (memory is O(samples)); the comparison is also printed net of
 *    the curve storage, which is what depends on the number of requests.
 *  - streamed (sim.series_keep = 60, --keep N): each curve keeps its last
 *    60 points in memory and a sample callback (aiw_sim_set_sample_callback)
 *    receives every point of every curve as it is recorded; it integrates
 *    each curve over time (sum of value x interval, the points a CSV
 *    consumer would write) and the run prints the site's IT energy so
 *    integrated next to the site.energy_kwh metric.  Memory does not grow
 *    with the duration: this is the goal's measurement.
 *
 * --mode memory or --mode stream runs one of the two (default: both).
 *
 * Figures measured on this machine class, and the history of the changes
 * that brought the day under its goal (with what was tried and dropped),
 * are in doc/perf-log.md; bench/compare_day.sh and bench/interleave_day
 * compare two builds, bench/profile_day.sh gives callgrind's figures per
 * request.
 *
 * --peak-hour H moves the peak (default 14): with --days 0.0416667 and
 * --peak-hour 18 the run is one hour whose rate falls from the mean
 * (1,000/s) to 0.79 of it, a short slice of the day's typical load for
 * profilers (valgrind --tool=callgrind; run bench/.libs/inference_day).
 *
 * --print-scenario prints the scenario as an INI file and exits (for
 * bench/compare_metrics.sh and for running the day through the command).
 *
 * usage: bench/inference_day [--no-week] [--rate R] [--days D] [--peak-hour H]
 *                            [--mode both|memory|stream] [--keep N]
 *                            [--print-scenario]
 */
#define _DEFAULT_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "aiworkload.h"
#include "inference_day_scenario.h"
#include "bench.h"

static double peak_hour = 14;
static long keep_points = 60;

/* The streamed measurement's consumer: every curve integrated over time,
 * as the points arrive. */
typedef struct stream {
	double *integral; /* per curve: sum of finite value x interval */
	size_t n;
	double last_t;
	unsigned long ticks;
	int oom;
} stream;

static void on_sample(aiw_sim *sim, double t, const double *v, size_t n, void *payload)
{
	stream *s = payload;
	(void)sim;
	if (!s->integral && !s->oom) {
		s->integral = calloc(n ? n : 1, sizeof *s->integral);
		s->n = n;
		s->oom = !s->integral;
	}
	double dt = t - s->last_t;
	for (size_t i = 0; i < n && i < s->n && s->integral; i++)
		if (isfinite(v[i]))
			s->integral[i] += v[i] * dt;
	s->last_t = t;
	s->ticks++;
}

/* One run in this process; prints its figures and sets *curve_bytes to
 * the recorder's allocation (times and every curve, at its capacity).
 * streamed: keep_points points a curve, every point to on_sample. */
static int run(double days, double rate, int streamed, double *curve_bytes)
{
	char text[2048];
	inference_day_scenario(text, sizeof text, days, rate, peak_hour);
	aiw_sim *sim;
	if (aiw_sim_create(&sim, 1) != AIW_OK)
		return 1;
	stream st = {0};
	double t0 = bench_clock_s(CLOCK_MONOTONIC);
	clock_t c0 = clock();
	if (aiw_sim_load_string(sim, text, "inference_day") != AIW_OK ||
	    (streamed && (aiw_sim_set_double(sim, "sim.series_keep", (double)keep_points) != AIW_OK ||
	                  aiw_sim_set_sample_callback(sim, on_sample, &st) != AIW_OK)) ||
	    aiw_sim_run(sim) != AIW_OK) {
		fprintf(stderr, "inference_day: %s\n", aiw_sim_errmsg(sim));
		aiw_sim_free(sim);
		return 1;
	}
	double wall = bench_clock_s(CLOCK_MONOTONIC) - t0, cpu = (double)(clock() - c0) / CLOCKS_PER_SEC;
	double arr = bench_metric(sim, "inference.chat.requests_arrived");
	size_t ncurves = 0, len = 0;
	aiw_sim_series_count(sim, &ncurves);
	aiw_sim_series_length(sim, "inference.chat.arrival_rate", &len);
	printf("%s days=%g requests=%.0f events=%.0f wall_s=%.2f cpu_s=%.2f requests_per_s=%.3g "
	       "ns_per_request=%.0f\n",
	       streamed ? "streamed" : "in-memory", days, arr, bench_metric(sim, "sim.events"), wall, cpu,
	       arr / cpu, cpu / arr * 1e9);
	printf("  completed=%.0f in_flight=%.0f ttft_p99_s=%.4g tpot_p99_s=%.4g e2e_p99_s=%.4g "
	       "batch_mean=%.3g utilization=%.3g compute_util=%.3g\n",
	       bench_metric(sim, "inference.chat.requests_completed"),
	       bench_metric(sim, "inference.chat.requests_in_flight"),
	       bench_metric(sim, "inference.chat.ttft_p99_s"), bench_metric(sim, "inference.chat.tpot_p99_s"),
	       bench_metric(sim, "inference.chat.e2e_p99_s"), bench_metric(sim, "inference.chat.batch_size_mean"),
	       bench_metric(sim, "inference.chat.utilization"),
	       bench_metric(sim, "inference.chat.compute_utilization"));
	printf("  slo_attainment=%.4g energy_kwh=%.4g cost_per_mtok_usd=%.4g curves=%zu x %zu "
	       "points (%.2f MB)\n",
	       bench_metric(sim, "inference.chat.slo_attainment"),
	       bench_metric(sim, "inference.chat.energy_kwh"),
	       bench_metric(sim, "inference.chat.cost_per_mtok_usd"), ncurves, len,
	       (double)ncurves * (double)len * 8 / 1e6);
	/* the recorder allocates the run's ticks at once, or a ring of
	 * keep_points (lib/core/series.c); len is what it holds */
	*curve_bytes = ((double)ncurves + 1) * (double)len * 8;
	if (streamed) {
		double e = NAN;
		for (size_t i = 0; i < ncurves && st.integral; i++) {
			const char *name;
			if (aiw_sim_series_name(sim, i, &name) == AIW_OK && !strcmp(name, "site.power_w"))
				e = st.integral[i] / 3.6e6;
		}
		printf("  streamed %lu ticks x %zu curves to the callback (%zu points kept): site IT "
		       "energy integrated from the stream %.9g kWh, site.energy_kwh %.9g kWh\n",
		       st.ticks, st.n, len, e, bench_metric(sim, "site.energy_kwh"));
	}
	free(st.integral);
	fflush(stdout);
	aiw_sim_free(sim);
	return 0;
}

/* Run in a child; its peak RSS in MB (NAN on failure), and the curve
 * storage in MB. */
static double child(double days, double rate, int streamed, double *curve_mb)
{
	int fd[2];
	*curve_mb = NAN;
	if (pipe(fd) != 0)
		return NAN;
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0)
		return NAN;
	if (pid == 0) {
		double cb = NAN;
		int rc = run(days, rate, streamed, &cb);
		if (write(fd[1], &cb, sizeof cb) != (ssize_t)sizeof cb)
			rc = 1;
		_exit(rc);
	}
	close(fd[1]);
	double cb = NAN;
	if (read(fd[0], &cb, sizeof cb) == (ssize_t)sizeof cb)
		*curve_mb = cb / 1048576.0;
	close(fd[0]);
	int status;
	struct rusage ru;
	if (wait4(pid, &status, 0, &ru) != pid || !WIFEXITED(status) || WEXITSTATUS(status))
		return NAN;
	return (double)ru.ru_maxrss / 1024.0; /* KB on Linux */
}

/* The 1-day (or --days) and 7-times-longer runs of one measurement; 0 when
 * they ran.  *m1, *m7: peak RSS in MB. */
static int measure(double days, double rate, int week, int streamed, double *m1, double *m7)
{
	double c1, c7;
	const char *what = streamed ? "streamed" : "in-memory";
	*m1 = child(days, rate, streamed, &c1);
	*m7 = NAN;
	printf("%s: peak_rss_mb=%.2f (goal < 256), of which curves %.2f\n", what, *m1, c1);
	if (!week)
		return isnan(*m1);
	*m7 = child(7 * days, rate, streamed, &c7);
	printf("%s: peak_rss_mb=%.2f for %g days: %+.1f%% vs %g day(s) (goal within 10%%: %s); of "
	       "which curves %.2f; net of curves %.2f vs %.2f MB: %+.1f%%\n",
	       what, *m7, 7 * days, (*m7 / *m1 - 1) * 100, days,
	       fabs(*m7 / *m1 - 1) <= 0.10 ? "met" : "missed", c7, *m7 - c7, *m1 - c1,
	       ((*m7 - c7) / (*m1 - c1) - 1) * 100);
	return isnan(*m1) || isnan(*m7);
}

int main(int argc, char **argv)
{
	int week = 1, memory = 1, streamed = 1, print_only = 0;
	double rate = 1000, days = 1;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--no-week"))
			week = 0;
		else if (!strcmp(argv[i], "--mode") && i + 1 < argc) {
			const char *m = argv[++i];
			memory = !strcmp(m, "both") || !strcmp(m, "memory");
			streamed = !strcmp(m, "both") || !strcmp(m, "stream");
			if (!memory && !streamed) {
				fprintf(stderr, "inference_day: --mode both, memory or stream\n");
				return 2;
			}
		} else if (!strcmp(argv[i], "--keep") && i + 1 < argc)
			keep_points = atol(argv[++i]);
		else if (!strcmp(argv[i], "--rate") && i + 1 < argc)
			rate = atof(argv[++i]);
		else if (!strcmp(argv[i], "--days") && i + 1 < argc)
			days = atof(argv[++i]);
		else if (!strcmp(argv[i], "--peak-hour") && i + 1 < argc)
			peak_hour = atof(argv[++i]);
		else if (!strcmp(argv[i], "--print-scenario"))
			print_only = 1;
		else {
			fprintf(stderr, "usage: inference_day [--no-week] [--rate R] [--days D] "
			                "[--peak-hour H] [--mode both|memory|stream] [--keep N] "
			                "[--print-scenario]\n");
			return 2;
		}
	}
	if (!(rate > 0) || !(days > 0) || !(peak_hour >= 0 && peak_hour < 24) || keep_points < 1) {
		fprintf(stderr, "inference_day: rate and days must be > 0, peak hour in [0, 24), "
		                "keep >= 1\n");
		return 2;
	}
	if (print_only) { /* the scenario as an INI file (bench/compare_metrics.sh) */
		char text[2048];
		inference_day_scenario(text, sizeof text, days, rate, peak_hour);
		fputs(text, stdout);
		return 0;
	}
	double a1 = NAN, a7 = NAN, b1 = NAN, b7 = NAN;
	int bad = 0;
	if (memory)
		bad |= measure(days, rate, week, 0, &a1, &a7);
	if (streamed)
		bad |= measure(days, rate, week, 1, &b1, &b7);
	if (memory && streamed && week)
		printf("summary: peak RSS %g d -> %g d: in memory %.2f -> %.2f MB (%+.1f%%), streamed "
		       "(series_keep %ld) %.2f -> %.2f MB (%+.1f%%); goal within 10%%\n",
		       days, 7 * days, a1, a7, (a7 / a1 - 1) * 100, keep_points, b1, b7,
		       (b7 / b1 - 1) * 100);
	print_machine();
	return bad;
}
