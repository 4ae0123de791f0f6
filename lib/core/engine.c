/*
 * engine.c - the pending-event set of the discrete-event engine.
 *
 * Events run in (time, insertion sequence) order: events at equal times run
 * first-in first-out, so a seeded run is deterministic.  The set is a ladder
 * queue (Tang, Goh & Thng 2005, ACM TOMACS 15(3)) whose bottom is sorted:
 *
 *   top     an unsorted list of the events after top_lo (the far future),
 *   rungs   up to AIW_ENGINE_RUNGS arrays of equal-width buckets, each an
 *           unsorted set of lists; a rung spreads one bucket of the rung
 *           above (or, for the first rung, the whole top) over finer buckets,
 *   bottom  the earliest events (one bucket's worth), sorted while small
 *           (a pop is bhead++), a 4-ary heap when it grows.
 *
 * A push is O(1): a comparison with top_lo, then one bucket index per rung
 * ((t - base) * inv_w, clamped to the rung), then a list prepend.  When the
 * bottom runs dry the next non-empty bucket of the deepest rung is gathered
 * into it and sorted; a bucket of more than SPAWN events with distinct times
 * is spread over a new rung instead, and when the rungs are spent the whole
 * top becomes the first rung.  An event is thus moved once from the top and
 * at most once per rung: O(1) amortised per event as long as buckets split.
 *
 * Why it is exact: a bucket index is a monotone function of t (a subtraction
 * and a multiplication by positive constants round monotonically, and so do
 * the floor and the clamp), and one function per rung decides both where the
 * rung spreads its events and where later pushes go, so every bucket holds
 * only events after those of the buckets (and rungs, and bottom) it is routed
 * past.  Ties and order inside a bucket are settled by sorting on (time
 * bits, sequence << 24 | slot): first in, first out at equal times.
 *
 * Why it cannot degrade: whatever a rung cannot split (all times equal,
 * spans so small that the width would underflow, no memory for the bucket
 * array, the rung limit reached) stays in the bottom, which becomes a 4-ary
 * heap past SORTED_MAX entries: O(log k) per event like the plain heap this
 * replaces.  A bottom grown past BOTTOM_SPLIT by pushes into the current
 * bucket is spread over a new rung; a failed split is retried only when the
 * bottom has doubled.  The hold model on hostile distributions (all times
 * equal, times far apart, steps of 1e-300 or of one ulp) stays within a
 * small factor of the exponential case (doc/perf-log.md).
 *
 * Why it is fast: a push touches its slot and one list head (no sift); the
 * pop fast path needs no stack frame and the push one saves one register
 * (the slow paths are reached by tail calls), a push into a small sorted
 * bottom (a few events pending) inserting in place without a call; a bucket is LISTS lists, chosen by sequence number, walked
 * side by side when gathered, so that its cache misses overlap instead of
 * forming one chain (at 10^6 pending the single-list walk was 70% of the
 * time); slot 0 ends every list, so the walk loads through list ends without
 * a branch.  bench/hold measures it against a bare binary heap in the
 * same run (figures: doc/perf-log.md).
 *
 * Cancelling through a handle is O(1): the slot's generation moves on and
 * the entry is dropped where it is next met (gathered from a bucket, or at
 * the front of the bottom); if cancelled entries ever outnumber live ones
 * everything is put back into the top list without them (O(n), amortised
 * O(1) per cancel), so memory stays O(pending): 48 bytes a slot, 16 a bucket
 * (four list heads at one bucket per event), 16 an entry in the bottom, and
 * slots are touched only up to the peak of pending events.  A handle is
 * (generation << 32 | slot + 1), the generation odd while the event is
 * pending: a handle whose event already ran or was cancelled is refused even
 * if the slot was reused.  Limits: 16,777,215 pending events and 2^40 events
 * per run, both refused cleanly (handle 0).
 */
#include "core/internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define D 4u
/* Slot 0 is never an event: it ends every list (its link is 0), which lets
 * a list walk load through the end of a list without a branch.  Its
 * generation is odd, so that the walk's test for cancelled entries is
 * (almost) never taken; no handle names it (slot + 1 >= 2). */
#define NIL 0u
#define SLOT_MASK ((UINT64_C(1) << AIW_ENGINE_SLOT_BITS) - 1)
#if defined(__GNUC__)
#define AIW_NOINLINE __attribute__((noinline))
#else
#define AIW_NOINLINE
#endif
#if defined(__GNUC__) && !defined(__clang__)
#define AIW_UNROLL _Pragma("GCC unroll 4")
#else
#define AIW_UNROLL
#endif
/* a gathered bucket of more events than this is spread over a new rung */
#define SPAWN 48u
/* a sorted bottom grown past this by pushes becomes a heap */
#define SORTED_MAX 64u
/* a bottom grown past this by pushes is spread over a new rung */
#define BOTTOM_SPLIT 256u
/* buckets per event when a rung is made: more buckets, fewer events per
 * bucket near the front (where the density is highest) but more empty
 * buckets to step over and more memory; 1 and 2 measured alike on the hold
 * model (1 is as fast at 10^6 and halves the bucket memory), 4 and more
 * were slower */
#define BUCKETS_PER_EVENT 1.0
/* lists per bucket, chosen by sequence number: gathering a bucket walks
 * them side by side, so that its cache misses overlap instead of forming
 * one chain (at 10^6 pending the walk was 70% of the time) */
#define LISTS 4u

static inline uint32_t slot_of(const aiwi_heap_entry *x)
{
	return (uint32_t)(x->seqslot & SLOT_MASK);
}

static inline bool live(const aiwi_ev_slot *s)
{
	return s->gen & 1u;
}

void aiwi_engine_init(aiwi_engine *e)
{
	memset(e, 0, sizeof *e);
	e->free_head = NIL;
	e->top_head = NIL;
	e->top_lo = -1;
	e->bot_split = BOTTOM_SPLIT;
	e->inl_end = -INFINITY;
	e->inl_before = INFINITY;
}

void aiwi_engine_free(aiwi_engine *e)
{
	free(e->bot_alloc);
	free(e->slots);
	for (size_t r = 0; r < AIW_ENGINE_RUNGS; r++)
		free(e->rung[r].head);
	aiwi_engine_init(e);
}

/* A slot whose entry has left the structure goes back to the free list. */
static inline void release(aiwi_engine *e, uint32_t slot)
{
	e->slots[slot].link = e->free_head;
	e->free_head = slot;
}

void aiwi_engine_clear(aiwi_engine *e)
{
	/* Every slot becomes free; generations move on so old handles stay
	 * stale.  The rung arrays are kept for the next run. */
	e->free_head = NIL;
	for (uint32_t i = e->nfresh; i-- > 1;) {
		if (live(&e->slots[i]))
			e->slots[i].gen++;
		release(e, i);
	}
	e->bhead = e->bend = 0;
	e->bheap = false;
	e->bot_split = BOTTOM_SPLIT;
	e->n = 0;
	e->ndead = 0;
	e->top_head = NIL;
	e->ntop = 0;
	e->top_lo = -1;
	e->nrungs = 0;
	e->seq = 0;
	e->now = 0.0;
	e->inl_end = -INFINITY;
	e->inl_before = INFINITY;
}

/* ---- the bottom: a 4-ary heap ---- */
static inline bool lt(const aiwi_heap_entry *a, const aiwi_heap_entry *b)
{
	return a->tbits < b->tbits || (a->tbits == b->tbits && a->seqslot < b->seqslot);
}

static void sift_up(aiwi_heap_entry *h, size_t i, aiwi_heap_entry x)
{
	while (i > 0) {
		size_t p = (i - 1) / D;
		if (!lt(&x, &h[p]))
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = x;
}

/* branch-free "b before a" for the child selection: which child is
 * smallest is a coin toss, so branches there mispredict half the time */
static inline size_t pick(const aiwi_heap_entry *h, size_t ia, size_t ib)
{
	const aiwi_heap_entry *a = &h[ia], *b = &h[ib];
	unsigned lt = (unsigned)(b->tbits < a->tbits) |
	              ((unsigned)(b->tbits == a->tbits) & (unsigned)(b->seqslot < a->seqslot));
	size_t mask = (size_t)0 - (size_t)lt;
	return (ib & mask) | (ia & ~mask);
}

static void sift_down(aiwi_heap_entry *h, size_t n, size_t i, aiwi_heap_entry x)
{
	/* Floyd: move the hole to a leaf along the smallest children, then
	 * sift x up from there (x, the last entry, usually belongs low) */
	size_t start = i;
	for (;;) {
		size_t c = D * i + 1;
		if (c + D <= n) {
			size_t m01 = pick(h, c, c + 1), m23 = pick(h, c + 2, c + 3);
			size_t best = pick(h, m01, m23);
			h[i] = h[best];
			i = best;
			continue;
		}
		if (c >= n)
			break;
		size_t best = c;
		for (size_t k = c + 1; k < n; k++)
			best = pick(h, best, k);
		h[i] = h[best];
		i = best;
	}
	while (i > start) {
		size_t p = (i - 1) / D;
		if (!lt(&x, &h[p]))
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = x;
}

static void heapify(aiwi_heap_entry *h, size_t n)
{
	if (n < 2)
		return;
	for (size_t i = (n - 2) / D + 1; i-- > 0;)
		sift_down(h, n, i, h[i]);
}

/* Remove bot[bhead], the earliest entry of the bottom. */
static inline void bot_pop(aiwi_engine *e)
{
	if (AIW_LIKELY(!e->bheap)) {
		e->bhead++;
		return;
	}
	aiwi_heap_entry last = e->bot[--e->bend];
	if (e->bend > 0)
		sift_down(e->bot, e->bend, 0, last);
}

/* Sort the few entries of a gathered bucket (insertion sort: k is at most
 * SPAWN here, and usually 1 to 4). */
static void sort_small(aiwi_heap_entry *h, size_t k)
{
	for (size_t i = 1; i < k; i++) {
		aiwi_heap_entry x = h[i];
		size_t j = i;
		for (; j > 0 && lt(&x, &h[j - 1]); j--)
			h[j] = h[j - 1];
		h[j] = x;
	}
}

/* ---- memory ---- */
static bool grow(aiwi_engine *e)
{
	/* slots 1 .. ncap - 1 hold events; slot 0 is the end of every list */
	size_t ncap = e->cap ? e->cap * 2 : 256;
	if (ncap > (size_t)AIW_ENGINE_MAX_PENDING + 1u)
		ncap = (size_t)AIW_ENGINE_MAX_PENDING + 1u;
	if (ncap <= e->cap)
		return false;
	/* bottom: 64-byte aligned with 3 spare entries in front, so that the
	 * children 4i+1..4i+4 of node i start on a cache line; room for every
	 * event, so that falling back to the heap never needs memory */
	size_t bytes = (ncap + 4) * sizeof(aiwi_heap_entry);
	bytes = (bytes + 63) & ~(size_t)63;
	void *ba = aligned_alloc(64, bytes);
	if (!ba)
		return false;
	aiwi_heap_entry *b = (aiwi_heap_entry *)ba + 3;
	aiwi_ev_slot *s = realloc(e->slots, ncap * sizeof *s);
	if (!s) {
		free(ba);
		return false;
	}
	e->slots = s;
	/* the bottom moves to the front of the new array */
	if (e->bend > e->bhead)
		memcpy(b, e->bot + e->bhead, (e->bend - e->bhead) * sizeof *b);
	e->bend -= e->bhead;
	e->bhead = 0;
	free(e->bot_alloc);
	e->bot_alloc = ba;
	e->bot = b;
	if (e->nslots == 0) {
		memset(&s[0], 0, sizeof s[0]);
		s[0].gen = 1;
		e->nfresh = 1;
	}
	/* the new slots are handed out by fresh(), so that memory is touched
	 * only as far as the peak of pending events, not the capacity */
	e->nslots = (uint32_t)ncap;
	e->cap = ncap;
	return true;
}

/* ---- the rungs ---- */
/* The bucket of t in rung r, as a double (negative: before the rung), and
 * the one function that both spreads and routes, so the two always agree. */
static inline double where(const aiwi_rung *r, double t)
{
	return (t - r->base) * r->inv_w;
}

static inline uint32_t bucket(const aiwi_rung *r, double d)
{
	return d < (double)(r->nb - 1u) ? (uint32_t)d : r->nb - 1u;
}

/* the list of bucket b that takes the entry with this seqslot */
static inline uint32_t *list_of(aiwi_rung *r, uint32_t b, uint64_t seqslot)
{
	return &r->head[(size_t)b * LISTS + ((seqslot >> AIW_ENGINE_SLOT_BITS) & (LISTS - 1u))];
}

static inline bool bucket_empty(const aiwi_rung *r, uint32_t b)
{
	uint32_t any = 0;
	for (uint32_t j = 0; j < LISTS; j++)
		any |= r->head[(size_t)b * LISTS + j];
	return any == NIL;
}

static inline void link_into(aiwi_engine *e, uint32_t *head, uint32_t slot)
{
	e->slots[slot].link = *head;
	*head = slot;
}

/* Spread the k entries x[0..k) (times lo..hi as bits) over a new
 * deepest rung.  false (nothing changed) when they cannot be split: equal
 * times, a width that would underflow, no memory, or the rung limit. */
static bool spawn(aiwi_engine *e, const aiwi_heap_entry *x, size_t k, uint64_t lo_bits,
                  uint64_t hi_bits)
{
	if (e->nrungs >= AIW_ENGINE_RUNGS || lo_bits == hi_bits)
		return false;
	double lo = aiwi_engine_time_of(lo_bits), hi = aiwi_engine_time_of(hi_bits);
	double inv_w = BUCKETS_PER_EVENT * (double)k / (hi - lo);
	if (!isfinite(inv_w))
		return false;
	/* about BUCKETS_PER_EVENT * k; the bound only guards the rounding */
	double dmax = (hi - lo) * inv_w;
	if (!(dmax < BUCKETS_PER_EVENT * (double)k + 8.0))
		return false;
	uint32_t nb = (uint32_t)dmax + 1u;
	aiwi_rung *r = &e->rung[e->nrungs];
	if (r->cap < nb) {
		/* grown geometrically, kept between epochs: O(peak pending) */
		uint32_t ncap = r->cap ? r->cap : 64u;
		while (ncap < nb)
			ncap = ncap > UINT32_MAX / 2 ? nb : 2 * ncap;
		uint32_t *h = realloc(r->head, (size_t)ncap * LISTS * sizeof *h);
		if (!h)
			return false;
		r->head = h;
		r->cap = ncap;
	}
	memset(r->head, 0, (size_t)nb * LISTS * sizeof *r->head); /* NIL */
	r->base = lo;
	r->inv_w = inv_w;
	r->nb = nb;
	r->cur = 0;
	for (size_t i = 0; i < k; i++) {
		double t = aiwi_engine_time_of(x[i].tbits);
		link_into(e, list_of(r, bucket(r, where(r, t)), x[i].seqslot), slot_of(&x[i]));
	}
	e->nrungs++;
	return true;
}

/* Move the LISTS lists head[0..LISTS) into bot[0..k), dropping cancelled
 * entries; returns k.  The lists are walked side by side, each step loading
 * from LISTS independent chains; a finished list keeps loading slot 0, whose
 * entry is written but not counted (no branch: which list ends first is a
 * coin toss). */
static size_t gather(aiwi_engine *e, uint32_t *head)
{
	size_t k = 0;
	uint32_t at[LISTS], any = 0;
	for (uint32_t j = 0; j < LISTS; j++) {
		at[j] = head[j];
		any |= at[j];
		head[j] = NIL;
	}
	aiwi_ev_slot *slots = e->slots;
	aiwi_heap_entry *bot = e->bot;
	while (any != NIL) {
		any = 0;
		AIW_UNROLL
		for (uint32_t j = 0; j < LISTS; j++) {
			uint32_t i = at[j];
			const aiwi_ev_slot *s = &slots[i];
			at[j] = s->link;
			any |= s->link;
			if (AIW_UNLIKELY(!live(s))) { /* (slot 0 reads as live) */
				release(e, i);
				e->ndead--;
				e->n--;
				continue;
			}
			bot[k] = s->key;
			k += i != NIL;
		}
	}
	return k;
}

/* The smallest and largest time bits of bot[0..k). */
static void span_of(const aiwi_engine *e, size_t k, uint64_t *lo, uint64_t *hi)
{
	uint64_t mn = UINT64_MAX, mx = 0;
	for (size_t i = 0; i < k; i++) {
		uint64_t b = e->bot[e->bhead + i].tbits;
		mn = b < mn ? b : mn;
		mx = b > mx ? b : mx;
	}
	*lo = mn;
	*hi = mx;
}

void aiwi_engine_settle(aiwi_engine *e)
{
	for (;;) {
		/* cancelled entries at the top of the bottom heap */
		while (e->bhead != e->bend && e->ndead) {
			uint32_t slot = slot_of(&e->bot[e->bhead]);
			if (live(&e->slots[slot]))
				return;
			release(e, slot);
			e->ndead--;
			e->n--;
			bot_pop(e);
		}
		if (e->bhead != e->bend)
			return;
		e->bhead = e->bend = 0;
		e->bheap = false;
		size_t k;
		if (e->nrungs == 0) {
			/* a new epoch: the whole top becomes the first rung, and
			 * later events after its last time go to a new top */
			if (e->ntop == 0) {
				e->top_lo = -1;
				return;
			}
			uint32_t top[LISTS] = {e->top_head};
			k = gather(e, top);
			e->top_head = NIL;
			e->ntop = 0;
			if (k == 0)
				continue;
			uint64_t lo, hi;
			span_of(e, k, &lo, &hi);
			e->top_lo = (int64_t)hi;
		} else {
			aiwi_rung *r = &e->rung[e->nrungs - 1];
			while (r->cur < r->nb && bucket_empty(r, r->cur))
				r->cur++;
			if (r->cur == r->nb) {
				e->nrungs--; /* spent: what is left is above it */
				continue;
			}
			k = gather(e, &r->head[(size_t)r->cur++ * LISTS]);
			if (r->cur == r->nb)
				e->nrungs--; /* its last bucket: the new rung replaces it */
			if (k == 0)
				continue;
		}
		if (k > SPAWN) {
			uint64_t lo, hi;
			span_of(e, k, &lo, &hi);
			if (spawn(e, e->bot, k, lo, hi))
				continue;
		}
		e->bend = k;
		e->bot_split = 2 * k + BOTTOM_SPLIT;
		if (k <= SPAWN) {
			sort_small(e->bot, k);
		} else {
			heapify(e->bot, k);
			e->bheap = true;
		}
		return;
	}
}

/* Rebuild without the cancelled entries: every live event goes back to the
 * top list (O(n + buckets)); the next settle spreads it again. */
static void compact(aiwi_engine *e)
{
	uint32_t head = NIL;
	size_t k = 0;
#define KEEP(i)                                      \
	do {                                         \
		uint32_t slot_ = (i);                \
		if (live(&e->slots[slot_])) {        \
			link_into(e, &head, slot_);  \
			k++;                         \
		} else {                             \
			release(e, slot_);           \
		}                                    \
	} while (0)
	for (size_t i = e->bhead; i < e->bend; i++)
		KEEP(slot_of(&e->bot[i]));
	for (uint32_t r = 0; r < e->nrungs; r++) {
		aiwi_rung *g = &e->rung[r];
		for (size_t b = (size_t)g->cur * LISTS; b < (size_t)g->nb * LISTS; b++)
			for (uint32_t i = g->head[b]; i != NIL;) {
				uint32_t next = e->slots[i].link;
				KEEP(i);
				i = next;
			}
	}
	for (uint32_t i = e->top_head; i != NIL;) {
		uint32_t next = e->slots[i].link;
		KEEP(i);
		i = next;
	}
#undef KEEP
	e->top_head = head;
	e->ntop = k;
	e->n = k;
	e->ndead = 0;
	e->bhead = e->bend = 0;
	e->bheap = false;
	e->bot_split = BOTTOM_SPLIT;
	e->nrungs = 0;
	e->top_lo = -1;
}

/* An event in the current bucket: into the bottom. */
static AIW_NOINLINE uint64_t push_bottom(aiwi_engine *e, aiwi_heap_entry x, uint64_t handle)
{
	size_t size = e->bend - e->bhead;
	if (!e->bheap && size >= SORTED_MAX) {
		/* an ascending array is already a heap: only move it to the front */
		memmove(e->bot, e->bot + e->bhead, size * sizeof *e->bot);
		e->bhead = 0;
		e->bend = size;
		e->bheap = true;
	}
	if (e->bheap) {
		sift_up(e->bot, e->bend++, x);
	} else {
		if (e->bend > e->cap) {
			/* drifted to the end of the array (there is room for cap + 1) */
			memmove(e->bot, e->bot + e->bhead, size * sizeof *e->bot);
			e->bhead = 0;
			e->bend = size;
		}
		size_t i = e->bend++;
		for (; i > e->bhead && lt(&x, &e->bot[i - 1]); i--)
			e->bot[i] = e->bot[i - 1];
		e->bot[i] = x;
	}
	if (AIW_UNLIKELY(size + 1 > e->bot_split)) {
		/* pushes keep landing in the current bucket: spread it over a
		 * finer rung (bounded by the rung limit); if it cannot be split,
		 * try again only when it has doubled, so the scans stay O(1)
		 * per push */
		uint64_t lo, hi;
		span_of(e, e->bend - e->bhead, &lo, &hi);
		if (spawn(e, e->bot + e->bhead, e->bend - e->bhead, lo, hi)) {
			e->bhead = e->bend = 0;
			e->bheap = false;
			e->bot_split = BOTTOM_SPLIT;
		} else {
			e->bot_split = 2 * (e->bend - e->bhead);
		}
	}
	return handle;
}

/* Put up to 256 never-used slots on the free list. */
static bool fresh(aiwi_engine *e)
{
	uint32_t end = e->nslots - e->nfresh > 256u ? e->nfresh + 256u : e->nslots;
	for (uint32_t i = end; i-- > e->nfresh;) {
		e->slots[i].gen = 0;
		release(e, i);
	}
	e->nfresh = end;
	return e->free_head != NIL;
}

/* No free slot (drop cancelled entries, or grow), or the sequence limit.
 * The slow paths are reached by tail calls, so that the common push needs
 * no more than one saved register. */
static AIW_NOINLINE uint64_t push_slow(aiwi_engine *e, double t, aiwi_evfn fn, void *ctx,
                                       uint64_t arg)
{
	if (e->seq >= AIW_ENGINE_SEQ_LIMIT)
		return 0;
	if (e->free_head == NIL && e->ndead)
		compact(e);
	if (e->free_head == NIL && !fresh(e) && !(grow(e) && fresh(e)))
		return 0;
	return aiwi_engine_push(e, t, fn, ctx, arg);
}

uint64_t aiwi_engine_push(aiwi_engine *e, double t, aiwi_evfn fn, void *ctx, uint64_t arg)
{
	if (AIW_UNLIKELY(e->free_head == NIL || e->seq >= AIW_ENGINE_SEQ_LIMIT))
		return push_slow(e, t, fn, ctx, arg);
	uint32_t slot = e->free_head;
	aiwi_ev_slot *s = &e->slots[slot];
	e->free_head = s->link;
	t += 0.0; /* -0.0 -> +0.0: the bit order needs non-negative zero */
	uint64_t tb;
	memcpy(&tb, &t, sizeof t);
	s->key.tbits = tb;
	s->key.seqslot = (e->seq++ << AIW_ENGINE_SLOT_BITS) | slot;
	s->fn = fn;
	s->ctx = ctx;
	s->arg = arg;
	s->gen++; /* odd: pending */
	e->n++;
	uint64_t h = ((uint64_t)s->gen << 32) | (uint64_t)(slot + 1u);
	if ((int64_t)tb > e->top_lo) {
		link_into(e, &e->top_head, slot);
		e->ntop++;
		return h;
	}
	/* the coarsest rung that has not yet reached t takes it */
	for (uint32_t r = 0; r < e->nrungs; r++) {
		aiwi_rung *g = &e->rung[r];
		double d = where(g, t);
		if (d >= (double)g->cur) {
			link_into(e, list_of(g, bucket(g, d), s->key.seqslot), slot);
			return h;
		}
	}
	/* push_bottom's common case here, without its call: a small sorted
	 * bottom (a few events pending, as in a loaded inference fleet) takes
	 * it by insertion, from the back where a new event usually belongs */
	size_t size = e->bend - e->bhead;
	if (AIW_LIKELY(!e->bheap && size < SORTED_MAX && e->bend <= e->cap && size < e->bot_split)) {
		aiwi_heap_entry x = s->key;
		size_t i = e->bend++;
		for (; i > e->bhead && lt(&x, &e->bot[i - 1]); i--)
			e->bot[i] = e->bot[i - 1];
		e->bot[i] = x;
		return h;
	}
	return push_bottom(e, s->key, h);
}

bool aiwi_engine_cancel(aiwi_engine *e, uint64_t handle)
{
	uint64_t lo = handle & 0xffffffffu;
	if (lo <= 1 || lo > e->nfresh) /* (slot 0 is no event) */
		return false;
	aiwi_ev_slot *s = &e->slots[lo - 1u];
	if (!live(s) || s->gen != (uint32_t)(handle >> 32))
		return false;
	s->gen++;
	e->ndead++;
	if (e->ndead > 1024 && 2 * e->ndead > e->n)
		compact(e);
	return true;
}

/* The bottom is empty or cancelled entries may sit at its front. */
static AIW_NOINLINE bool pop_slow(aiwi_engine *e, aiwi_evfn *fn, void **ctx, uint64_t *arg)
{
	aiwi_engine_settle(e);
	if (e->bhead == e->bend)
		return false;
	/* bot[bhead] is live now, and ndead only falls: no second settle */
	return aiwi_engine_pop(e, fn, ctx, arg);
}

bool aiwi_engine_pop(aiwi_engine *e, aiwi_evfn *fn, void **ctx, uint64_t *arg)
{
	if (AIW_UNLIKELY(e->bhead == e->bend || e->ndead)) {
		/* (with cancelled entries pending, bot[bhead] may still be live) */
		if (e->bhead == e->bend || !live(&e->slots[slot_of(&e->bot[e->bhead])]))
			return pop_slow(e, fn, ctx, arg);
	}
	aiwi_heap_entry top = e->bot[e->bhead];
	uint32_t slot = slot_of(&top);
	aiwi_ev_slot *s = &e->slots[slot];
	*fn = s->fn;
	*ctx = s->ctx;
	*arg = s->arg;
	s->gen++;
	release(e, slot);
	e->n--;
	e->now = aiwi_engine_time_of(top.tbits);
	bot_pop(e);
	return true;
}
