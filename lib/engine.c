/*
 * engine.c - the pending-event set of the discrete-event engine.
 *
 * A 4-ary implicit heap keyed by (time, insertion sequence): events at equal
 * times run first-in first-out, so a seeded run is deterministic.  Each heap
 * entry names a slot holding the callback.  Cancelling through a handle is
 * O(1): the slot is marked and its entry dropped when it reaches the top; if
 * cancelled entries ever outnumber live ones the heap is rebuilt without
 * them (O(n), amortised O(1) per cancel), so memory stays O(pending).  Not
 * tracking heap positions keeps every sift free of scattered writes, which
 * is what makes pops cheap at 10^6 pending.  A handle is
 * (generation << 32 | slot + 1): a handle whose event already ran or was
 * cancelled is refused even if the slot was reused.
 *
 * Why it is fast: an entry is 16 bytes (the time's IEEE bits, which order
 * like the values for times >= 0, and sequence << 24 | slot); the array is
 * offset so that the four children of a node share one 64-byte cache line;
 * a 4-ary heap halves the depth of a binary heap (LaMarca & Ladner 1996);
 * pops move the hole down to a leaf and sift the last entry up from there
 * (Floyd), since the last entry usually belongs near the bottom; the
 * smallest of four children is chosen without branches (a tournament of
 * masked selects): which child wins is a coin toss, and mispredicted
 * branches were most of a pop's cost (callgrind --branch-sim: 8.8 -> 1.2
 * mispredicts per hold at 10^4 pending).  Limits: 16,777,215 pending events
 * and 2^40 events per run, both refused cleanly (handle 0).
 */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define D 4u
#define NOPOS UINT32_MAX
#define SLOT_MASK ((UINT64_C(1) << AIW_ENGINE_SLOT_BITS) - 1)

static inline uint32_t slot_of(const aiw_heap_entry *x)
{
	return (uint32_t)(x->seqslot & SLOT_MASK);
}

void aiw_engine_init(aiw_engine *e)
{
	memset(e, 0, sizeof *e);
	e->free_head = NOPOS;
}

void aiw_engine_free(aiw_engine *e)
{
	free(e->heap_alloc);
	free(e->slots);
	free(e->free_next);
	aiw_engine_init(e);
}

static void release(aiw_engine *e, uint32_t slot)
{
	e->slots[slot].live = 0;
	e->free_next[slot] = e->free_head;
	e->free_head = slot;
}

void aiw_engine_clear(aiw_engine *e)
{
	/* Every slot becomes free; generations move on so old handles stay stale. */
	for (size_t i = 0; i < e->n; i++) {
		uint32_t slot = slot_of(&e->heap[i]);
		if (e->slots[slot].live)
			e->slots[slot].gen++;
		release(e, slot);
	}
	e->n = 0;
	e->ndead = 0;
	e->seq = 0;
	e->now = 0.0;
}

static inline bool lt(const aiw_heap_entry *a, const aiw_heap_entry *b)
{
	return a->tbits < b->tbits || (a->tbits == b->tbits && a->seqslot < b->seqslot);
}
static void sift_up(aiw_engine *e, size_t i, aiw_heap_entry x)
{
	aiw_heap_entry *h = e->heap;
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
static inline size_t pick(const aiw_heap_entry *h, size_t ia, size_t ib)
{
	const aiw_heap_entry *a = &h[ia], *b = &h[ib];
	unsigned lt = (unsigned)(b->tbits < a->tbits) |
	              ((unsigned)(b->tbits == a->tbits) & (unsigned)(b->seqslot < a->seqslot));
	size_t mask = (size_t)0 - (size_t)lt;
	return (ib & mask) | (ia & ~mask);
}

static void sift_down(aiw_engine *e, size_t i, aiw_heap_entry x)
{
	/* Floyd: move the hole to a leaf along the smallest children, then
	 * sift x up from there (x, the last entry, usually belongs low) */
	aiw_heap_entry *h = e->heap;
	size_t n = e->n;
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

static bool grow(aiw_engine *e)
{
	size_t ncap = e->cap ? e->cap * 2 : 256;
	if (ncap > AIW_ENGINE_MAX_PENDING)
		ncap = AIW_ENGINE_MAX_PENDING;
	if (ncap <= e->cap)
		return false;
	/* heap: 64-byte aligned with 3 spare entries in front, so that the
	 * children 4i+1..4i+4 of node i start on a cache line */
	size_t bytes = (ncap + 4) * sizeof(aiw_heap_entry);
	bytes = (bytes + 63) & ~(size_t)63;
	void *ha = aligned_alloc(64, bytes);
	if (!ha)
		return false;
	aiw_heap_entry *h = (aiw_heap_entry *)ha + 3;
	if (e->n)
		memcpy(h, e->heap, e->n * sizeof *h);
	aiw_ev_slot *s = realloc(e->slots, ncap * sizeof *s);
	if (!s) {
		free(ha);
		return false;
	}
	e->slots = s;
	uint32_t *f = realloc(e->free_next, ncap * sizeof *f);
	if (!f) {
		free(ha);
		return false;
	}
	e->free_next = f;
	free(e->heap_alloc);
	e->heap_alloc = ha;
	e->heap = h;
	for (size_t i = ncap; i-- > e->nslots;) {
		s[i].gen = 0;
		s[i].live = 0;
		f[i] = e->free_head;
		e->free_head = (uint32_t)i;
	}
	e->nslots = (uint32_t)ncap;
	e->cap = ncap;
	return true;
}

/* Rebuild the heap without its cancelled entries (Floyd's heapify). */
static void compact(aiw_engine *e)
{
	size_t k = 0;
	for (size_t i = 0; i < e->n; i++) {
		uint32_t slot = slot_of(&e->heap[i]);
		if (e->slots[slot].live)
			e->heap[k++] = e->heap[i];
		else
			release(e, slot);
	}
	e->n = k;
	e->ndead = 0;
	for (size_t i = k / D + 1; i-- > 0;)
		if (i < k)
			sift_down(e, i, e->heap[i]);
}

uint64_t aiw_engine_push(aiw_engine *e, double t, aiw_evfn fn, void *ctx, uint64_t arg)
{
	if (AIW_UNLIKELY(e->free_head == NOPOS)) {
		if (e->ndead)
			compact(e);
		if (e->free_head == NOPOS && !grow(e))
			return 0;
	}
	if (AIW_UNLIKELY(e->seq >= AIW_ENGINE_SEQ_LIMIT))
		return 0;
	uint32_t slot = e->free_head;
	e->free_head = e->free_next[slot];
	aiw_ev_slot *s = &e->slots[slot];
	s->fn = fn;
	s->ctx = ctx;
	s->arg = arg;
	s->live = 1;
	t += 0.0; /* -0.0 -> +0.0: the bit order needs non-negative zero */
	aiw_heap_entry x;
	memcpy(&x.tbits, &t, sizeof t);
	x.seqslot = (e->seq++ << AIW_ENGINE_SLOT_BITS) | slot;
	sift_up(e, e->n++, x);
	return ((uint64_t)s->gen << 32) | (uint64_t)(slot + 1u);
}

bool aiw_engine_cancel(aiw_engine *e, uint64_t handle)
{
	uint64_t lo = handle & 0xffffffffu;
	if (lo == 0 || lo > e->nslots)
		return false;
	aiw_ev_slot *s = &e->slots[lo - 1u];
	if (!s->live || s->gen != (uint32_t)(handle >> 32))
		return false;
	s->live = 0;
	s->gen++;
	e->ndead++;
	if (e->ndead > 1024 && 2 * e->ndead > e->n)
		compact(e);
	return true;
}

/* Drop cancelled entries from the top. */
void aiw_engine_purge_top(aiw_engine *e)
{
	while (e->n && e->ndead) {
		uint32_t slot = slot_of(&e->heap[0]);
		if (e->slots[slot].live)
			return;
		release(e, slot);
		e->ndead--;
		aiw_heap_entry last = e->heap[--e->n];
		if (e->n > 0)
			sift_down(e, 0, last);
	}
}

bool aiw_engine_pop(aiw_engine *e, aiw_evfn *fn, void **ctx, uint64_t *arg)
{
	if (AIW_UNLIKELY(e->ndead))
		aiw_engine_purge_top(e);
	if (e->n == 0)
		return false;
	aiw_heap_entry top = e->heap[0];
	uint32_t slot = slot_of(&top);
	aiw_ev_slot *s = &e->slots[slot];
	*fn = s->fn;
	*ctx = s->ctx;
	*arg = s->arg;
	s->gen++;
	release(e, slot);
	e->now = aiw_engine_time_of(top.tbits);
	aiw_heap_entry last = e->heap[--e->n];
	if (e->n > 0)
		sift_down(e, 0, last);
	return true;
}
