/*
 * engine.c - the pending-event set of the discrete-event engine.
 *
 * A 4-ary implicit heap keyed by (time, insertion sequence): events at equal
 * times run first-in first-out, so a seeded run is deterministic.  Each heap
 * entry points at a slot holding the callback; the slot records the entry's
 * heap position so that cancelling through a handle is O(log n).  A handle is
 * (generation << 32 | slot + 1): a handle whose event already ran or was
 * cancelled is refused even if the slot was reused.
 *
 * A 4-ary heap halves the depth of a binary heap and keeps the four children
 * of a node in one or two cache lines (24-byte entries), which is what makes
 * pops cheap at 10^6 pending events (LaMarca & Ladner 1996).
 */
#include "internal.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define D 4u
#define NOPOS UINT32_MAX

void aiw_engine_init(aiw_engine *e)
{
	memset(e, 0, sizeof *e);
	e->free_head = NOPOS;
}

void aiw_engine_free(aiw_engine *e)
{
	free(e->heap);
	free(e->slots);
	free(e->free_next);
	aiw_engine_init(e);
}

void aiw_engine_clear(aiw_engine *e)
{
	/* Every slot becomes free; generations survive so old handles stay stale. */
	e->free_head = NOPOS;
	for (uint32_t i = e->nslots; i-- > 0;) {
		if (e->slots[i].pos != NOPOS)
			e->slots[i].gen++;
		e->slots[i].pos = NOPOS;
		e->free_next[i] = e->free_head;
		e->free_head = i;
	}
	e->n = 0;
	e->seq = 0;
	e->now = 0.0;
}

static inline bool before(const aiw_heap_entry *a, const aiw_heap_entry *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static void sift_up(aiw_engine *e, size_t i, aiw_heap_entry x)
{
	aiw_heap_entry *h = e->heap;
	aiw_ev_slot *s = e->slots;
	while (i > 0) {
		size_t p = (i - 1) / D;
		if (!before(&x, &h[p]))
			break;
		h[i] = h[p];
		s[h[i].slot].pos = (uint32_t)i;
		i = p;
	}
	h[i] = x;
	s[x.slot].pos = (uint32_t)i;
}

static void sift_down(aiw_engine *e, size_t i, aiw_heap_entry x)
{
	aiw_heap_entry *h = e->heap;
	aiw_ev_slot *s = e->slots;
	size_t n = e->n;
	for (;;) {
		size_t c = D * i + 1;
		if (c >= n)
			break;
		size_t best = c;
		size_t end = c + D < n ? c + D : n;
		for (size_t k = c + 1; k < end; k++)
			if (before(&h[k], &h[best]))
				best = k;
		if (!before(&h[best], &x))
			break;
		h[i] = h[best];
		s[h[i].slot].pos = (uint32_t)i;
		i = best;
	}
	h[i] = x;
	s[x.slot].pos = (uint32_t)i;
}

static bool grow(aiw_engine *e)
{
	size_t ncap = e->cap ? e->cap * 2 : 256;
	if (ncap > AIW_ENGINE_MAX_PENDING)
		ncap = AIW_ENGINE_MAX_PENDING;
	if (ncap <= e->cap)
		return false;
	aiw_heap_entry *h = realloc(e->heap, ncap * sizeof *h);
	if (!h)
		return false;
	e->heap = h;
	aiw_ev_slot *s = realloc(e->slots, ncap * sizeof *s);
	if (!s)
		return false;
	e->slots = s;
	uint32_t *f = realloc(e->free_next, ncap * sizeof *f);
	if (!f)
		return false;
	e->free_next = f;
	for (size_t i = ncap; i-- > e->nslots;) {
		s[i].pos = NOPOS;
		s[i].gen = 0;
		f[i] = e->free_head;
		e->free_head = (uint32_t)i;
	}
	e->nslots = (uint32_t)ncap;
	e->cap = ncap;
	return true;
}

uint64_t aiw_engine_push(aiw_engine *e, double t, aiw_evfn fn, void *ctx, uint64_t arg)
{
	if (AIW_UNLIKELY(e->free_head == NOPOS) && !grow(e))
		return 0;
	uint32_t slot = e->free_head;
	e->free_head = e->free_next[slot];
	aiw_ev_slot *s = &e->slots[slot];
	s->fn = fn;
	s->ctx = ctx;
	s->arg = arg;
	aiw_heap_entry x = {t, e->seq++, slot, 0};
	sift_up(e, e->n++, x);
	return ((uint64_t)s->gen << 32) | (uint64_t)(slot + 1u);
}

static void release(aiw_engine *e, uint32_t slot)
{
	e->slots[slot].pos = NOPOS;
	e->slots[slot].gen++;
	e->free_next[slot] = e->free_head;
	e->free_head = slot;
}

bool aiw_engine_cancel(aiw_engine *e, uint64_t handle)
{
	uint64_t lo = handle & 0xffffffffu;
	if (lo == 0 || lo > e->nslots)
		return false;
	uint32_t slot = (uint32_t)(lo - 1u);
	aiw_ev_slot *s = &e->slots[slot];
	if (s->pos == NOPOS || s->gen != (uint32_t)(handle >> 32))
		return false;
	size_t i = s->pos;
	release(e, slot);
	aiw_heap_entry last = e->heap[--e->n];
	if (i < e->n) {
		/* The moved entry may need to go either way. */
		if (i > 0 && before(&last, &e->heap[(i - 1) / D]))
			sift_up(e, i, last);
		else
			sift_down(e, i, last);
	}
	return true;
}

bool aiw_engine_pop(aiw_engine *e, aiw_evfn *fn, void **ctx, uint64_t *arg)
{
	if (e->n == 0)
		return false;
	aiw_heap_entry top = e->heap[0];
	aiw_ev_slot *s = &e->slots[top.slot];
	*fn = s->fn;
	*ctx = s->ctx;
	*arg = s->arg;
	release(e, top.slot);
	e->now = top.t;
	aiw_heap_entry last = e->heap[--e->n];
	if (e->n > 0)
		sift_down(e, 0, last);
	return true;
}
