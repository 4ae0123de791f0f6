/* test_engine.c - the pending-event set and public scheduling. */
#include "core/internal.h"
#include "../testutil.h"

#include <gsl/gsl_rng.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void rec(aiw_sim *sim, void *ctx, uint64_t arg)
{
	(void)sim;
	uint64_t **p = ctx;
	*(*p)++ = arg;
}

START_TEST(order_random_against_sort)
{
	/* 20,000 random times with many ties: pops come out sorted by (t, seq) */
	aiwi_engine e;
	aiwi_engine_init(&e);
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	enum { N = 20000 };
	static double t[N];
	for (uint64_t i = 0; i < N; i++) {
		t[i] = (double)gsl_rng_uniform_int(r, 500); /* ties on purpose */
		ck_assert(aiwi_engine_push(&e, t[i], rec, NULL, i) != 0);
	}
	double last_t = -1;
	uint64_t last_i = 0;
	for (size_t k = 0; k < N; k++) {
		aiwi_evfn fn;
		void *ctx;
		uint64_t arg;
		ck_assert(aiwi_engine_pop(&e, &fn, &ctx, &arg));
		ck_assert(fn == rec);
		ck_assert(t[arg] >= last_t);
		if (t[arg] == last_t)
			ck_assert_msg(arg > last_i, "FIFO tie broken: %llu after %llu",
			              (unsigned long long)arg, (unsigned long long)last_i);
		last_t = t[arg];
		last_i = arg;
		ck_assert(e.now == t[arg]);
	}
	aiwi_evfn fn;
	void *ctx;
	uint64_t arg;
	ck_assert(!aiwi_engine_pop(&e, &fn, &ctx, &arg));
	gsl_rng_free(r);
	aiwi_engine_free(&e);
}
END_TEST

START_TEST(cancel_random)
{
	/* cancel a random half (_i = 0) or 90 % (_i = 1: past half of the
	 * pending ones, cancelled entries are compacted away, and the times
	 * come in hundredths, so that many are equal); the rest still pops in
	 * order, equal times in push order, and stale handles fail */
	const double frac = _i ? 0.9 : 0.5;
	aiwi_engine e;
	aiwi_engine_init(&e);
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	enum { N = 5000 };
	static uint64_t h[N];
	static double t[N];
	static bool gone[N];
	for (uint64_t i = 0; i < N; i++) {
		t[i] = gsl_rng_uniform(r);
		if (_i)
			t[i] = floor(t[i] * 100) / 100;
		h[i] = aiwi_engine_push(&e, t[i], rec, NULL, i);
	}
	memset(gone, 0, sizeof gone);
	size_t kept = N;
	for (size_t i = 0; i < N; i++)
		if (gsl_rng_uniform(r) < frac) {
			ck_assert(aiwi_engine_cancel(&e, h[i]));
			ck_assert(!aiwi_engine_cancel(&e, h[i])); /* twice: refused */
			gone[i] = true;
			kept--;
		}
	ck_assert_uint_eq(aiwi_engine_pending(&e), kept);
	if (_i)
		ck_assert_msg(e.ndead < 1024, "%zu cancelled entries left: no compaction",
		              (size_t)e.ndead);
	double last = -1;
	uint64_t last_arg = 0;
	aiwi_evfn fn;
	void *ctx;
	uint64_t arg;
	size_t popped = 0;
	while (aiwi_engine_pop(&e, &fn, &ctx, &arg)) {
		ck_assert(!gone[arg]);
		ck_assert(t[arg] >= last);
		ck_assert_msg(t[arg] > last || arg > last_arg, "equal times out of push order");
		last = t[arg];
		last_arg = arg;
		ck_assert(!aiwi_engine_cancel(&e, h[arg])); /* already ran */
		popped++;
	}
	ck_assert_uint_eq(popped, kept);
	/* slots are reused: an old handle must not cancel the new event */
	uint64_t fresh = aiwi_engine_push(&e, 1.0, rec, NULL, 0);
	for (size_t i = 0; i < N; i++)
		ck_assert(!aiwi_engine_cancel(&e, h[i]));
	ck_assert(aiwi_engine_cancel(&e, fresh));
	ck_assert(!aiwi_engine_cancel(&e, 0));
	ck_assert(!aiwi_engine_cancel(&e, UINT64_MAX));
	ck_assert(!aiwi_engine_cancel(&e, 0xffffffffull));
	gsl_rng_free(r);
	aiwi_engine_free(&e);
}
END_TEST

START_TEST(large_times_keep_order)
{
	/* near 1e9 s a double still resolves 1e-7 s: order holds */
	aiwi_engine e;
	aiwi_engine_init(&e);
	double base = 1e9;
	for (uint64_t i = 0; i < 100; i++)
		aiwi_engine_push(&e, base + (double)(99 - i) * 1e-6, rec, NULL, i);
	uint64_t prev = 100;
	aiwi_evfn fn;
	void *ctx;
	uint64_t arg;
	while (aiwi_engine_pop(&e, &fn, &ctx, &arg)) {
		ck_assert(arg < prev);
		prev = arg;
	}
	aiwi_engine_free(&e);
}
END_TEST

/* ---- the ladder's tiers against a reference ----
 * A reference keeps every pending (time, sequence, id) in an array and pops
 * by linear search; the engine must pop exactly the same ids, whatever the
 * times.  Each mode is a time distribution that once broke, or could break,
 * a bucketed queue: ties, far outliers, times near 1e9 s one ulp apart,
 * spans that underflow the bucket width, spreads over many decades. */
typedef struct ref_ev {
	double t;
	uint64_t seq, h;
	uint32_t id;
} ref_ev;

typedef struct ref_q {
	ref_ev *ev;
	size_t n;
	uint64_t seq;
} ref_q;

static size_t ref_min(const ref_q *q)
{
	size_t m = 0;
	for (size_t i = 1; i < q->n; i++)
		if (q->ev[i].t < q->ev[m].t || (q->ev[i].t == q->ev[m].t && q->ev[i].seq < q->ev[m].seq))
			m = i;
	return m;
}

enum { M_EXP, M_NOW, M_ONE_TIME, M_FAR, M_NEAR_1E9, M_TINY, M_SUBNORMAL, M_DECADES, M_MIX, M_MODES };

static double next_time(gsl_rng *r, int mode, double now)
{
	if (mode == M_MIX)
		mode = (int)gsl_rng_uniform_int(r, M_MIX);
	switch (mode) {
	case M_EXP:
		return now - log1p(-gsl_rng_uniform(r));
	case M_NOW: /* half at the current time: FIFO inside the current bucket */
		return gsl_rng_uniform(r) < 0.5 ? now : now + gsl_rng_uniform(r) * 1e-3;
	case M_ONE_TIME:
		return now > 5.0 ? now : 5.0;
	case M_FAR: /* a dense near future and rare events a billion seconds on */
		return gsl_rng_uniform(r) < 0.98 ? now - log1p(-gsl_rng_uniform(r))
		                                 : now + 1e9 * gsl_rng_uniform(r);
	case M_NEAR_1E9: /* one ulp = 1.19e-7 s at 1e9 s */
		return (now > 1e9 ? now : 1e9) +
		       (double)gsl_rng_uniform_int(r, 64) * 1.1920928955078125e-07;
	case M_TINY:
		return now + (double)gsl_rng_uniform_int(r, 64) * 1e-300;
	case M_SUBNORMAL: /* spans of a few denormals: a width would underflow */
		return now < 1e-300 ? now + (double)gsl_rng_uniform_int(r, 64) * 4.9406564584124654e-324
		                    : now;
	case M_DECADES:
		return now + exp(gsl_rng_uniform(r) * 60.0 - 30.0);
	}
	return now;
}

/* ops random operations with about `size' pending; returns the pops */
static size_t run_against_ref(int mode, size_t size, size_t ops, unsigned long seed,
                              size_t *max_rungs, size_t *tier_cancels)
{
	aiwi_engine e;
	aiwi_engine_init(&e);
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	gsl_rng_set(r, seed);
	ref_q q = {malloc(4 * size * sizeof(ref_ev)), 0, 0};
	ck_assert(q.ev != NULL);
	uint32_t next_id = 0;
	size_t pops = 0;
	for (size_t op = 0; op < ops; op++) {
		double u = gsl_rng_uniform(r);
		/* push more when below size, pop more when above */
		double p_push = q.n < size ? 0.6 : 0.4;
		if (q.n < 4 * size - 1 && (u < p_push || q.n == 0)) {
			double t = next_time(r, mode, e.now);
			uint64_t h = aiwi_engine_push(&e, t, rec, NULL, next_id);
			ck_assert(h != 0);
			q.ev[q.n++] = (ref_ev){t, q.seq++, h, next_id++};
		} else if (u < p_push + 0.1 && q.n) {
			size_t i = gsl_rng_uniform_int(r, q.n);
			/* which tier it sits in: the top, a rung or the bottom */
			aiwi_ev_slot *s = &e.slots[(q.ev[i].h & 0xffffffffu) - 1u];
			int tier = (int64_t)s->key.tbits > e.top_lo ? 0 : 1;
			for (size_t k = e.bhead; k < e.bend; k++)
				if (e.bot[k].seqslot == s->key.seqslot)
					tier = 2;
			tier_cancels[tier]++;
			ck_assert(aiwi_engine_cancel(&e, q.ev[i].h));
			ck_assert(!aiwi_engine_cancel(&e, q.ev[i].h));
			q.ev[i] = q.ev[--q.n];
		} else {
			size_t m = ref_min(&q);
			ck_assert(aiwi_engine_peek(&e) == q.ev[m].t);
			aiwi_evfn fn;
			void *ctx;
			uint64_t arg;
			ck_assert(aiwi_engine_pop(&e, &fn, &ctx, &arg));
			ck_assert_msg(arg == q.ev[m].id, "mode %d op %zu: popped %llu at %.17g, want %u at %.17g",
			              mode, op, (unsigned long long)arg, e.now, q.ev[m].id, q.ev[m].t);
			ck_assert(e.now == q.ev[m].t);
			ck_assert(!aiwi_engine_cancel(&e, q.ev[m].h)); /* ran: stale */
			q.ev[m] = q.ev[--q.n];
			pops++;
		}
		ck_assert_uint_eq(aiwi_engine_pending(&e), q.n);
		if (e.nrungs > *max_rungs)
			*max_rungs = e.nrungs;
	}
	/* drain */
	while (q.n) {
		size_t m = ref_min(&q);
		aiwi_evfn fn;
		void *ctx;
		uint64_t arg;
		ck_assert(aiwi_engine_pop(&e, &fn, &ctx, &arg));
		ck_assert_uint_eq(arg, q.ev[m].id);
		q.ev[m] = q.ev[--q.n];
	}
	aiwi_evfn fn;
	void *ctx;
	uint64_t arg;
	ck_assert(!aiwi_engine_pop(&e, &fn, &ctx, &arg));
	ck_assert(aiwi_engine_peek(&e) == INFINITY);
	free(q.ev);
	gsl_rng_free(r);
	aiwi_engine_free(&e);
	return pops;
}

START_TEST(tiers_against_reference)
{
	for (int mode = 0; mode < M_MODES; mode++) {
		const size_t sizes[] = {3, 300, 2000};
		size_t rungs = 0, tiers[3] = {0, 0, 0};
		for (size_t k = 0; k < 3; k++)
			ck_assert(run_against_ref(mode, sizes[k], 40000, 11u + (unsigned)mode, &rungs, tiers) > 0);
		/* spreadable distributions must actually use the rungs, and
		 * cancels must have hit every tier at least somewhere */
		if (mode == M_EXP || mode == M_FAR || mode == M_DECADES || mode == M_MIX)
			ck_assert_msg(rungs >= 1, "mode %d: no rung was ever made", mode);
		if (mode == M_EXP || mode == M_MIX)
			ck_assert_msg(tiers[0] && tiers[1] && tiers[2], "mode %d: cancels %zu/%zu/%zu", mode,
			              tiers[0], tiers[1], tiers[2]);
	}
}
END_TEST

/* Equal times across bucket boundaries and epochs: events at the same time
 * scheduled before a rung is made, while it is being consumed, and after the
 * time has become the current one, all run in scheduling order. */
START_TEST(equal_times_fifo_across_epochs)
{
	aiwi_engine e;
	aiwi_engine_init(&e);
	enum { T = 40, PER = 100 };
	uint64_t id = 0;
	/* phase 1: T times x PER, spread over [0, 40): becomes a rung */
	for (int k = 0; k < PER; k++)
		for (int t = 0; t < T; t++)
			aiwi_engine_push(&e, t, rec, NULL, (uint64_t)t * 1000000u + id++);
	uint64_t last_seq_at[T] = {0};
	aiwi_evfn fn;
	void *ctx;
	uint64_t arg;
	size_t popped = 0;
	double last = -1;
	while (aiwi_engine_pop(&e, &fn, &ctx, &arg)) {
		double t = e.now;
		uint64_t seq = arg % 1000000u;
		ck_assert(t >= last);
		if (t == last)
			ck_assert_msg(seq > last_seq_at[(int)t], "FIFO broken at t = %g", t);
		last_seq_at[(int)t] = seq;
		last = t;
		popped++;
		/* phase 2: while running, more at the current time and at
		 * later integer times (already in the rung's buckets) */
		if (popped % 7 == 0 && id < 3 * T * PER) {
			aiwi_engine_push(&e, t, rec, NULL, (uint64_t)t * 1000000u + id++);
			int later = (int)t + 1 + (int)(popped % 5);
			if (later < T)
				aiwi_engine_push(&e, later, rec, NULL, (uint64_t)later * 1000000u + id++);
		}
	}
	ck_assert_uint_eq(popped, id);
	aiwi_engine_free(&e);
}
END_TEST

/* Pushes that keep landing in the current bucket (a bottom grown by pushes,
 * then spread over a new rung), and far-future events scheduled past the
 * current epoch (the top), interleaved: order holds. */
START_TEST(bottom_split_and_far_future)
{
	aiwi_engine e;
	aiwi_engine_init(&e);
	/* one far event first: an epoch of one event puts it in the bottom,
	 * then everything before it lands in the bottom too */
	aiwi_engine_push(&e, 1e9, rec, NULL, 0);
	aiwi_evfn fn;
	void *ctx;
	uint64_t arg;
	ck_assert(aiwi_engine_peek(&e) == 1e9);
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	for (uint64_t i = 1; i <= 5000; i++)
		aiwi_engine_push(&e, gsl_rng_uniform(r) * 100.0, rec, NULL, i);
	ck_assert_msg(e.nrungs >= 1, "the bottom was never spread over a rung");
	ck_assert(e.bend - e.bhead <= 2 * 256 + 1);
	double last = 0;
	size_t n = 0;
	while (aiwi_engine_pop(&e, &fn, &ctx, &arg)) {
		ck_assert(e.now >= last);
		last = e.now;
		n++;
		if (n < 4000) /* keep scheduling, some far past the epoch */
			aiwi_engine_push(&e, e.now + (n % 10 ? 1.0 : 5e8), rec, NULL, 9000000 + n);
	}
	ck_assert(last == 1e9 + 0.0 || last > 1e9 - 1);
	gsl_rng_free(r);
	aiwi_engine_free(&e);
}
END_TEST

/* Memory stays O(pending) under cancel churn in every tier: a steady
 * population with every event cancelled and replaced. */
START_TEST(cancel_churn_bounded)
{
	aiwi_engine e;
	aiwi_engine_init(&e);
	enum { N = 1000 };
	static uint64_t h[N];
	gsl_rng *r = gsl_rng_alloc(gsl_rng_mt19937);
	for (size_t i = 0; i < N; i++)
		h[i] = aiwi_engine_push(&e, gsl_rng_uniform(r) * 10.0, rec, NULL, i);
	aiwi_evfn fn;
	void *ctx;
	uint64_t arg;
	for (size_t round = 0; round < 200000; round++) {
		size_t i = gsl_rng_uniform_int(r, N);
		ck_assert(aiwi_engine_cancel(&e, h[i]));
		double t = e.now + gsl_rng_uniform(r) * (round % 3 ? 10.0 : 1e6);
		h[i] = aiwi_engine_push(&e, t, rec, NULL, i);
		if (round % 50 == 0) { /* and run one now and then */
			ck_assert(aiwi_engine_pop(&e, &fn, &ctx, &arg));
			h[arg] = aiwi_engine_push(&e, e.now + gsl_rng_uniform(r), rec, NULL, arg);
		}
		ck_assert_uint_eq(aiwi_engine_pending(&e), N);
	}
	ck_assert_msg(e.cap <= 8 * N, "slots grew to %zu for %d pending", e.cap, N);
	for (size_t k = 0; k < AIW_ENGINE_RUNGS; k++)
		ck_assert(e.rung[k].cap <= 16 * N);
	gsl_rng_free(r);
	aiwi_engine_free(&e);
}
END_TEST

/* clear: handles go stale, the structure starts over empty */
START_TEST(clear_resets_tiers)
{
	aiwi_engine e;
	aiwi_engine_init(&e);
	uint64_t h[3000];
	for (int i = 0; i < 3000; i++)
		h[i] = aiwi_engine_push(&e, (double)(i % 977), rec, NULL, (uint64_t)i);
	ck_assert(aiwi_engine_peek(&e) == 0.0); /* builds the rungs */
	aiwi_engine_clear(&e);
	ck_assert_uint_eq(aiwi_engine_pending(&e), 0);
	ck_assert(aiwi_engine_peek(&e) == INFINITY);
	for (int i = 0; i < 3000; i++)
		ck_assert(!aiwi_engine_cancel(&e, h[i]));
	/* slot 0 (the end of every list, generation 1) and slots never used
	 * (memory not yet touched) are no events */
	ck_assert(!aiwi_engine_cancel(&e, (UINT64_C(1) << 32) | 1u));
	ck_assert(e.nfresh < e.nslots);
	ck_assert(!aiwi_engine_cancel(&e, (UINT64_C(1) << 32) | (e.nfresh + 1u)));
	ck_assert(!aiwi_engine_cancel(&e, (UINT64_C(0) << 32) | (e.nfresh + 1u)));
	aiwi_engine_push(&e, 2.0, rec, NULL, 1);
	aiwi_engine_push(&e, 1.0, rec, NULL, 2);
	aiwi_evfn fn;
	void *ctx;
	uint64_t arg;
	ck_assert(aiwi_engine_pop(&e, &fn, &ctx, &arg) && arg == 2);
	ck_assert(aiwi_engine_pop(&e, &fn, &ctx, &arg) && arg == 1);
	ck_assert(!aiwi_engine_pop(&e, &fn, &ctx, &arg));
	aiwi_engine_free(&e);
}
END_TEST

/* ---- public scheduling through a simulation ---- */
typedef struct log_ {
	double t[64];
	int id[64];
	int n;
	uint64_t h_cancel;
} log_;

static log_ LOG;

static void cb(aiw_sim *sim, double t, void *payload)
{
	(void)sim;
	LOG.t[LOG.n] = t;
	LOG.id[LOG.n++] = (int)(intptr_t)payload;
}

static void cb_resched(aiw_sim *sim, double t, void *payload)
{
	cb(sim, t, payload);
	/* an event scheduled at the current time runs after those already queued */
	ck_assert_int_eq(aiw_sim_schedule(sim, t, cb, (void *)(intptr_t)99, NULL), AIW_OK);
	ck_assert_int_eq(aiw_sim_cancel(sim, LOG.h_cancel), AIW_OK);
	/* the past is refused */
	ck_assert_int_eq(aiw_sim_schedule(sim, t - 1, cb, NULL, NULL), AIW_ERANGE);
	/* nested runs are refused */
	ck_assert_int_eq(aiw_sim_run(sim), AIW_ESTATE);
}

START_TEST(schedule_run_until)
{
	aiw_sim *sim;
	ck_assert_int_eq(aiw_sim_create(&sim, 7), AIW_OK);
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.duration", "100s"));
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.sample_interval", "10s"));
	memset(&LOG, 0, sizeof LOG);
	AIW_OK_OR_FAIL(sim, aiw_sim_schedule(sim, 5, cb, (void *)1, NULL));
	AIW_OK_OR_FAIL(sim, aiw_sim_schedule(sim, 5, cb_resched, (void *)2, NULL));
	AIW_OK_OR_FAIL(sim, aiw_sim_schedule(sim, 5, cb, (void *)3, NULL));
	AIW_OK_OR_FAIL(sim, aiw_sim_schedule(sim, 50, cb, (void *)4, &LOG.h_cancel));
	AIW_OK_OR_FAIL(sim, aiw_sim_schedule(sim, 60, cb, (void *)5, NULL));
	AIW_OK_OR_FAIL(sim, aiw_sim_run_until(sim, 5));
	double now;
	aiw_sim_now(sim, &now);
	ck_assert(now == 5.0);
	ck_assert_int_eq(LOG.n, 4);
	int want[] = {1, 2, 3, 99};
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(LOG.id[i], want[i]);
	ck_assert_int_eq(aiw_sim_run_until(sim, 4), AIW_ERANGE); /* backwards */
	AIW_OK_OR_FAIL(sim, aiw_sim_run_until(sim, 59.5));
	ck_assert_int_eq(LOG.n, 4); /* event 4 was cancelled */
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert_int_eq(LOG.n, 5);
	ck_assert_int_eq(LOG.id[4], 5);
	ck_assert(LOG.t[4] == 60.0);
	aiw_sim_now(sim, &now);
	ck_assert(now == 100.0);
	/* bad arguments */
	ck_assert_int_eq(aiw_sim_schedule(NULL, 1, cb, NULL, NULL), AIW_EINVAL);
	ck_assert_int_eq(aiw_sim_schedule(sim, 200, NULL, NULL, NULL), AIW_EINVAL);
	ck_assert_int_eq(aiw_sim_schedule(sim, NAN, cb, NULL, NULL), AIW_ERANGE);
	ck_assert_int_eq(aiw_sim_schedule(sim, INFINITY, cb, NULL, NULL), AIW_ERANGE);
	ck_assert_int_eq(aiw_sim_cancel(sim, 12345), AIW_EUNKNOWN);
	ck_assert_int_eq(aiw_sim_run_until(sim, NAN), AIW_ERANGE);
	aiw_sim_free(sim);
}
END_TEST

static int stop_at_30(aiw_sim *sim, double now, double end, void *p)
{
	(void)sim;
	(void)end;
	int *calls = p;
	(*calls)++;
	return now >= 30;
}

START_TEST(progress_and_stop)
{
	aiw_sim *sim;
	ck_assert_int_eq(aiw_sim_create(&sim, 7), AIW_OK);
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.duration", "100s"));
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.sample_interval", "10s"));
	int calls = 0;
	AIW_OK_OR_FAIL(sim, aiw_sim_set_progress(sim, stop_at_30, &calls, 10));
	ck_assert_int_eq(aiw_sim_run(sim), AIW_ESTOPPED);
	ck_assert_int_eq(calls, 3);
	double now;
	aiw_sim_now(sim, &now);
	ck_assert(now == 30.0);
	ck_assert_int_eq(aiw_sim_set_progress(sim, NULL, NULL, -1), AIW_ERANGE);
	/* reset and rerun without the callback reaches the end */
	AIW_OK_OR_FAIL(sim, aiw_sim_reset(sim));
	AIW_OK_OR_FAIL(sim, aiw_sim_set_progress(sim, NULL, NULL, 0));
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	aiw_sim_now(sim, &now);
	ck_assert(now == 100.0);
	aiw_sim_free(sim);
}
END_TEST

START_TEST(pending_count)
{
	aiw_sim *sim;
	ck_assert_int_eq(aiw_sim_create(&sim, 1), AIW_OK);
	size_t n = 99;
	AIW_OK_OR_FAIL(sim, aiw_sim_pending(sim, &n));
	ck_assert_uint_eq(n, 0);
	for (int i = 0; i < 10; i++)
		AIW_OK_OR_FAIL(sim, aiw_sim_schedule(sim, i, cb, NULL, NULL));
	AIW_OK_OR_FAIL(sim, aiw_sim_pending(sim, &n));
	ck_assert_uint_eq(n, 10);
	ck_assert_int_eq(aiw_sim_pending(sim, NULL), AIW_EINVAL);
	aiw_sim_free(sim);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("engine");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, order_random_against_sort);
	tcase_add_loop_test(tc, cancel_random, 0, 2);
	tcase_add_test(tc, large_times_keep_order);
	tcase_add_test(tc, tiers_against_reference);
	tcase_add_test(tc, equal_times_fifo_across_epochs);
	tcase_add_test(tc, bottom_split_and_far_future);
	tcase_add_test(tc, cancel_churn_bounded);
	tcase_add_test(tc, clear_resets_tiers);
	tcase_add_test(tc, schedule_run_until);
	tcase_add_test(tc, progress_and_stop);
	tcase_add_test(tc, pending_count);
	suite_add_tcase(s, tc);
	return s;
}

AIW_TEST_MAIN(make_suite)
