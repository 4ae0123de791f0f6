/*
 * bench/hold - the classic hold model (Vaucher & Duval 1975; Jones 1986):
 * keep n events pending; each hold pops the earliest and pushes it again at
 * now + increment.  Measures the engine through the public API (callbacks,
 * argument checks and all) against a bare binary heap of (time, seq) pairs
 * timed in the same run on the same increments.
 *
 * Increments are exponential(1) draws precomputed into a table (cycled), so
 * that the random number generator is not what is measured; both sides read
 * the same table the same way.
 *
 * The engine is a ladder queue (lib/core/engine.c): O(1) amortised per
 * hold, so its rate falls with n only through the cache; the goal is 15 M
 * holds/s or more at 10^4 pending and no slower than the bare binary heap
 * at any size.  Measured figures: doc/perf-log.md.
 *
 * usage: bench/hold [holds_per_size]   prints one line per size
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "aiworkload.h"
#include "bench.h"

#define TABLE (1u << 20)
static double inc[TABLE];
static size_t next_inc;
static long holds_left;

static void hold_cb(aiw_sim *sim, double t, void *payload)
{
	if (--holds_left < 0)
		return; /* drain: stop re-scheduling */
	aiw_sim_schedule(sim, t + inc[next_inc++ & (TABLE - 1)], hold_cb, payload, NULL);
}

/* ---- the bare binary heap of (time, seq) pairs ---- */
typedef struct {
	double t;
	unsigned long long seq;
} pair;

static inline int less(const pair *a, const pair *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static void bh_push(pair *h, size_t *n, pair x)
{
	size_t i = (*n)++;
	while (i > 0) {
		size_t p = (i - 1) / 2;
		if (!less(&x, &h[p]))
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = x;
}

static pair bh_pop(pair *h, size_t *n)
{
	pair top = h[0], x = h[--*n];
	size_t i = 0, m = *n;
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= m)
			break;
		if (c + 1 < m && less(&h[c + 1], &h[c]))
			c++;
		if (!less(&h[c], &x))
			break;
		h[i] = h[c];
		i = c;
	}
	if (m)
		h[i] = x;
	return top;
}

int main(int argc, char **argv)
{
	long holds = argc > 1 ? atol(argv[1]) : 20000000L;
	unsigned long long s = 88172645463325252ull;
	for (size_t i = 0; i < TABLE; i++) { /* xorshift64 -> exp(1) */
		s ^= s << 13, s ^= s >> 7, s ^= s << 17;
		inc[i] = -log(((double)(s >> 11) + 0.5) / 9007199254740992.0);
	}
	size_t sizes[] = {1000, 10000, 1000000};
	printf("# hold model: %ld holds per size, exponential(1) increments\n", holds);
	printf("# %-9s %14s %14s %8s\n", "pending", "engine_Mops/s", "binheap_Mops/s", "ratio");
	for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
		size_t n = sizes[k];
		/* engine through the public API */
		aiw_sim *sim;
		aiw_sim_create(&sim, 1);
		aiw_sim_set(sim, "sim.duration", "1e9");
		aiw_sim_set(sim, "sim.sample_interval", "1e8");
		next_inc = 0;
		for (size_t i = 0; i < n; i++)
			aiw_sim_schedule(sim, inc[next_inc++ & (TABLE - 1)], hold_cb, NULL, NULL);
		holds_left = holds;
		double t0 = bench_clock_s(CLOCK_MONOTONIC);
		/* run until every hold is done: time advances ~holds/n per event */
		aiw_sim_run_until(sim, 1e9);
		double t_engine = bench_clock_s(CLOCK_MONOTONIC) - t0;
		aiw_sim_free(sim);

		/* bare binary heap on the same increments */
		pair *h = malloc(n * sizeof *h);
		size_t m = 0;
		unsigned long long seq = 0;
		next_inc = 0;
		for (size_t i = 0; i < n; i++)
			bh_push(h, &m, (pair){inc[next_inc++ & (TABLE - 1)], seq++});
		t0 = bench_clock_s(CLOCK_MONOTONIC);
		double sink = 0;
		for (long i = 0; i < holds; i++) {
			pair p = bh_pop(h, &m);
			sink += p.t;
			bh_push(h, &m, (pair){p.t + inc[next_inc++ & (TABLE - 1)], seq++});
		}
		while (m) /* the engine drains its n events too */
			sink += bh_pop(h, &m).t;
		double t_heap = bench_clock_s(CLOCK_MONOTONIC) - t0;
		free(h);
		double me = holds / t_engine / 1e6, mh = holds / t_heap / 1e6;
		printf("  %-9zu %14.2f %14.2f %8.2f%s\n", n, me, mh, me / mh, sink < 0 ? "!" : "");
	}
	print_machine();
	return 0;
}
