/*
 * bench/interleave_day - two builds of the library on bench/inference_day's
 * scenario, compared in the same process: both are loaded (dlopen, each its
 * own copy), each runs the same day, and they advance in turns, a chunk of
 * simulated time at a time (which goes first alternates), each chunk timed
 * by the thread's CPU clock.
 *
 * Why: on a shared machine whose speed drifts by 20-40% from one minute to
 * the next, whole runs one after the other (bench/compare_day.sh) need tens
 * of pairs to see a 5% change.  Chunks of a fraction of a second put both
 * builds under the same conditions, so that changes of one or two percent
 * show.  The
 * price: each chunk starts with the caches holding the other build's
 * state (about 1 MB, which both pay alike, a few tenths of a percent per
 * chunk at the default size).
 *
 * usage: bench/interleave_day LIB_A LIB_B [DAYS [CHUNK_S [PEAK_HOUR [RATE [B_LINES [A_LINES]]]]]]
 *   LIB_A, LIB_B  paths of two builds' libaiworkload.so (BUILD/.libs/...)
 *   DAYS          simulated days (default 0.05: 1.2 h, at the peak
 *                 with the default PEAK_HOUR 0.6: 7.8 million requests)
 *   CHUNK_S       simulated seconds per turn (default 30: about 55,000
 *                 requests at the peak, 15-20 ms of CPU)
 *   PEAK_HOUR     the diurnal peak (default 0.6)
 *   RATE          mean requests/s (default 1000)
 *   B_LINES       settings of the [inference chat] section for LIB_B only,
 *                 one per line ("timing = iteration\nhidden_size = 4096":
 *                 a new build's other model against the old build's)
 *   A_LINES       the same for LIB_A ("mem_bw_efficiency = 0.45": an old
 *                 build's fleet in the same regime, batches as large)
 * The comparison runs twice, in a child process each, with A then with B
 * loaded first: the one loaded first gets other addresses, which moves a
 * run by about 2% here (two copies of one build: 0.98-1.00).  For each it
 * prints both builds' CPU time and requests, B/A over the run and the
 * geometric mean of the chunks' B/A with its two-standard-error interval
 * (chunks under 4 ms of CPU left out); then the geometric mean of the two
 * runs' B/A, the figure to quote.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "inference_day_scenario.h"

typedef struct aiw_sim aiw_sim;

/* the public functions used, as in include/aiworkload.h (aiw_status is an
 * int-sized enum) */
typedef struct lib {
	void *h;
	int (*create)(aiw_sim **, uint64_t);
	int (*load)(aiw_sim *, const char *, const char *);
	int (*until)(aiw_sim *, double);
	int (*metric)(aiw_sim *, const char *, double *);
	const char *(*errmsg)(const aiw_sim *);
	void (*destroy)(aiw_sim *);
	aiw_sim *sim;
} lib;

static int open_lib(lib *l, const char *path, const char *text)
{
	l->h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!l->h) {
		fprintf(stderr, "interleave_day: %s\n", dlerror());
		return 1;
	}
	*(void **)&l->create = dlsym(l->h, "aiw_sim_create");
	*(void **)&l->load = dlsym(l->h, "aiw_sim_load_string");
	*(void **)&l->until = dlsym(l->h, "aiw_sim_run_until");
	*(void **)&l->metric = dlsym(l->h, "aiw_sim_metric");
	*(void **)&l->errmsg = dlsym(l->h, "aiw_sim_errmsg");
	*(void **)&l->destroy = dlsym(l->h, "aiw_sim_free");
	if (!l->create || !l->load || !l->until || !l->metric || !l->errmsg || !l->destroy) {
		fprintf(stderr, "interleave_day: %s: not a libaiworkload\n", path);
		return 1;
	}
	if (l->create(&l->sim, 1) != 0) {
		fprintf(stderr, "interleave_day: %s: aiw_sim_create failed\n", path);
		return 1;
	}
	if (l->load(l->sim, text, "interleave_day") != 0) {
		fprintf(stderr, "interleave_day: %s: %s\n", path, l->errmsg(l->sim));
		return 1;
	}
	return 0;
}

/* One comparison, the library named first (order 0: A, 1: B) loaded first. */
typedef struct result {
	double cpu[2], req[2]; /* A, B */
	double m, se;          /* mean and standard error of the chunks' log(B/A) */
	long n;
} result;

static int run(const char *pa, const char *pb, int order, const char *const text[2],
               double end, double chunk, result *out)
{
	lib l[2] = {{0}};
	const char *path[2] = {pa, pb};
	for (int j = 0; j < 2; j++) {
		int k = order ? 1 - j : j;
		if (open_lib(&l[k], path[k], text[k]))
			return 1;
	}
	double tot[2] = {0, 0}, s = 0, ss = 0;
	long n = 0, turn = 0;
	for (double t = 0; t < end; turn++) {
		t = fmin(end, t + chunk);
		double d[2];
		for (int j = 0; j < 2; j++) {
			int k = (int)((turn + j) & 1);
			double c0 = bench_clock_s(CLOCK_THREAD_CPUTIME_ID);
			if (l[k].until(l[k].sim, t) != 0) {
				fprintf(stderr, "interleave_day: %s: %s\n", path[k], l[k].errmsg(l[k].sim));
				return 1;
			}
			d[k] = bench_clock_s(CLOCK_THREAD_CPUTIME_ID) - c0;
			tot[k] += d[k];
		}
		if (d[0] > 0.004 && d[1] > 0.004) {
			double x = log(d[1] / d[0]);
			s += x;
			ss += x * x;
			n++;
		}
	}
	for (int k = 0; k < 2; k++) {
		out->cpu[k] = tot[k];
		out->req[k] = NAN;
		l[k].metric(l[k].sim, "inference.chat.requests_arrived", &out->req[k]);
		l[k].destroy(l[k].sim);
	}
	out->n = n;
	out->m = n ? s / n : 0;
	out->se = n > 1 ? sqrt(fmax(0, (ss - n * out->m * out->m) / (n - 1))) / sqrt(n) : 0;
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 3 || argc > 9) {
		fprintf(stderr, "usage: interleave_day LIB_A LIB_B [DAYS [CHUNK_S [PEAK_HOUR "
		                "[RATE [B_LINES [A_LINES]]]]]]\n");
		return 2;
	}
	double days = argc > 3 ? atof(argv[3]) : 0.05, chunk = argc > 4 ? atof(argv[4]) : 30;
	double peak = argc > 5 ? atof(argv[5]) : 0.6, rate = argc > 6 ? atof(argv[6]) : 1000;
	if (!(days > 0) || !(chunk > 0) || !(peak >= 0 && peak < 24) || !(rate > 0)) {
		fprintf(stderr, "interleave_day: DAYS, CHUNK_S and RATE > 0, PEAK_HOUR in [0, 24)\n");
		return 2;
	}
	char text[2048], text_a[4096], text_b[4096];
	inference_day_scenario(text, sizeof text, days, rate, peak);
	if (snprintf(text_b, sizeof text_b, "%s%s\n", text, argc > 7 ? argv[7] : "") >=
	            (int)sizeof text_b ||
	    snprintf(text_a, sizeof text_a, "%s%s\n", text, argc > 8 ? argv[8] : "") >=
	            (int)sizeof text_a) {
		fprintf(stderr, "interleave_day: B_LINES or A_LINES too long\n");
		return 2;
	}
	const char *texts[2] = {text_a, text_b};
	/* the two load orders, each in a child of its own: the library loaded
	 * first gets other addresses (heap, mappings), which moves a run by
	 * about 2% here; the geometric mean of the two cancels that */
	result r[2];
	for (int order = 0; order < 2; order++) {
		int fd[2];
		if (pipe(fd) != 0) {
			perror("interleave_day: pipe");
			return 1;
		}
		fflush(stdout);
		pid_t pid = fork();
		if (pid < 0) {
			perror("interleave_day: fork");
			return 1;
		}
		if (pid == 0) {
			close(fd[0]);
			result x;
			int rc = run(argv[1], argv[2], order, texts, days * 86400, chunk, &x);
			if (write(fd[1], &x, sizeof x) != (ssize_t)sizeof x)
				rc = 1;
			_exit(rc);
		}
		close(fd[1]);
		ssize_t got = read(fd[0], &r[order], sizeof r[order]);
		close(fd[0]);
		int status;
		if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) ||
		    got != (ssize_t)sizeof r[order])
			return 1;
		printf("%s loaded first: A %.3f s CPU (%.0f requests, %.0f ns each), B %.3f s CPU "
		       "(%.0f requests, %.0f ns each); B/A %.4f over the run",
		       order ? "B" : "A", r[order].cpu[0], r[order].req[0],
		       r[order].cpu[0] / r[order].req[0] * 1e9, r[order].cpu[1], r[order].req[1],
		       r[order].cpu[1] / r[order].req[1] * 1e9, r[order].cpu[1] / r[order].cpu[0]);
		if (r[order].n > 1)
			printf(", per chunk %.4f (%.4f-%.4f at two standard errors, %ld chunks)",
			       exp(r[order].m), exp(r[order].m - 2 * r[order].se),
			       exp(r[order].m + 2 * r[order].se), r[order].n);
		printf("\n");
	}
	printf("B/A %.4f (geometric mean of the two orders' ratios over the run)\n",
	       sqrt(r[0].cpu[1] / r[0].cpu[0] * (r[1].cpu[1] / r[1].cpu[0])));
	print_machine();
	return 0;
}
