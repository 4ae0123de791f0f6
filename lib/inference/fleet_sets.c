/*
 * fleet_sets.c - the sets of slots: the ready set, the least-loaded buckets, the
 * central router's idle set, the heap of FREE slots.
 * Part of serving.c's translation unit: included by it after fleet.h, not
 * compiled alone (so that the hot path inlines as in one file).
 */

static bool bucket_grow_slow(fleet *f, uint32_t k)
{
	uint32_t n = f->nb ? f->nb : 64;
	while (n <= k)
		n *= 2;
	uint32_t *h = realloc(f->bhead, (size_t)n * sizeof *h);
	if (!h)
		return false;
	f->bhead = h;
	uint32_t *t = realloc(f->btail, (size_t)n * sizeof *t);
	if (!t)
		return false;
	f->btail = t;
	for (uint32_t i = f->nb; i < n; i++)
		h[i] = t[i] = NIL;
	if (f->bmin >= f->nb)
		f->bmin = n;
	f->nb = n;
	return true;
}

static inline bool bucket_grow(fleet *f, uint32_t k)
{
	return AIW_LIKELY(k < f->nb) || bucket_grow_slow(f, k);
}

/* (inline, as bucket_remove: a request moves its replica between two
 * buckets when it is routed and when it completes) */
static inline void bucket_insert(fleet *f, uint32_t id)
{
	replica *r = &f->rep[id];
	uint32_t k = r->outstanding;
	if (!bucket_grow(f, k)) {
		oom(f);
		return;
	}
	f->bl[id].next = NIL;
	f->bl[id].prev = f->btail[k];
	if (f->btail[k] == NIL)
		f->bhead[k] = id;
	else
		f->bl[f->btail[k]].next = id;
	f->btail[k] = id;
	r->inb = 1;
	if (k < f->bmin)
		f->bmin = k;
}

static inline void bucket_remove(fleet *f, uint32_t id)
{
	replica *r = &f->rep[id];
	uint32_t k = r->outstanding;
	struct blink *b = &f->bl[id];
	if (b->prev == NIL)
		f->bhead[k] = b->next;
	else
		f->bl[b->prev].next = b->next;
	if (b->next == NIL)
		f->btail[k] = b->prev;
	else
		f->bl[b->next].prev = b->prev;
	r->inb = 0;
	/* bmin may now point at an empty bucket: least_loaded() moves it up */
}

/* The least loaded ready replica (NIL if none).  Counts change by one at a
 * time, so the lazy scan from the last minimum is O(1) amortised. */
static inline uint32_t least_loaded(fleet *f)
{
	while (f->bmin < f->nb && f->bhead[f->bmin] == NIL)
		f->bmin++;
	return f->bmin < f->nb ? f->bhead[f->bmin] : NIL;
}

static inline void out_add(fleet *f, replica *r, int d)
{
	uint32_t id = (uint32_t)(r - f->rep);
	if (r->inb) {
		bucket_remove(f, id);
		r->outstanding += d;
		bucket_insert(f, id);
	} else {
		r->outstanding += d;
	}
}

static void ready_add(fleet *f, uint32_t id)
{
	f->rep[id].ready_pos = f->nready;
	f->ready[f->nready++] = id;
	bucket_insert(f, id);
}

static void ready_remove(fleet *f, uint32_t id)
{
	replica *r = &f->rep[id];
	uint32_t last = f->ready[--f->nready];
	f->ready[r->ready_pos] = last;
	f->rep[last].ready_pos = r->ready_pos;
	if (r->inb)
		bucket_remove(f, id);
}

static void idle_add(fleet *f, uint32_t id)
{
	if (f->rep[id].in_idle)
		return;
	f->rep[id].in_idle = 1;
	f->rep[id].idle_pos = f->nidle;
	f->idle[f->nidle++] = id;
}

static void idle_remove(fleet *f, uint32_t id)
{
	replica *r = &f->rep[id];
	if (!r->in_idle)
		return;
	uint32_t last = f->idle[--f->nidle];
	f->idle[r->idle_pos] = last;
	f->rep[last].idle_pos = r->idle_pos;
	r->in_idle = 0;
}

/* The FREE slots, lowest index first: a slot retired is reused before a new
 * one is appended, and replica ids stay as small as they can (the lowest
 * free index, as a scan would find, in O(log slots) instead of O(slots)). */
static void free_push(fleet *f, uint32_t id)
{
	uint32_t *h = f->freeh, i = f->nfree++;
	while (i > 0 && h[(i - 1) / 2] > id) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = id;
}

static uint32_t free_pop(fleet *f)
{
	uint32_t *h = f->freeh, top = h[0], last = h[--f->nfree], n = f->nfree, i = 0;
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && h[c + 1] < h[c])
			c++;
		if (h[c] >= last)
			break;
		h[i] = h[c];
		i = c;
	}
	if (n)
		h[i] = last;
	return top;
}

