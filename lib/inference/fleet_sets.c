/*
 * fleet_sets.c - the sets of slots: the ready set, the least-loaded
 * buckets, the central router's idle set, the heap of FREE slots.
 * Part of serving.c's translation unit: included by it after fleet.h, not
 * compiled alone (so that the hot path inlines as in one file).
 */

static bool bucket_grow_slow(fleet *f, uint32_t k)
{
	uint32_t n = f->bucket_count ? f->bucket_count : 64;
	while (n <= k)
		n *= 2;
	uint32_t *h = realloc(f->bucket_head, (size_t)n * sizeof *h);
	if (!h)
		return false;
	f->bucket_head = h;
	uint32_t *t = realloc(f->bucket_tail, (size_t)n * sizeof *t);
	if (!t)
		return false;
	f->bucket_tail = t;
	for (uint32_t i = f->bucket_count; i < n; i++)
		h[i] = t[i] = NIL;
	if (f->bucket_min >= f->bucket_count)
		f->bucket_min = n;
	f->bucket_count = n;
	return true;
}

static inline bool bucket_grow(fleet *f, uint32_t k)
{
	return AIW_LIKELY(k < f->bucket_count) || bucket_grow_slow(f, k);
}

/* (inline, as bucket_remove: a request moves its replica between two
 * buckets when it is routed and when it completes) */
static inline void bucket_insert(fleet *f, uint32_t id)
{
	replica *r = &f->replicas[id];
	uint32_t k = r->outstanding;
	if (!bucket_grow(f, k)) {
		oom(f);
		return;
	}
	f->bucket_links[id].next = NIL;
	f->bucket_links[id].prev = f->bucket_tail[k];
	if (f->bucket_tail[k] == NIL)
		f->bucket_head[k] = id;
	else
		f->bucket_links[f->bucket_tail[k]].next = id;
	f->bucket_tail[k] = id;
	r->in_bucket = 1;
	if (k < f->bucket_min)
		f->bucket_min = k;
}

static inline void bucket_remove(fleet *f, uint32_t id)
{
	replica *r = &f->replicas[id];
	uint32_t k = r->outstanding;
	struct bucket_link *b = &f->bucket_links[id];
	if (b->prev == NIL)
		f->bucket_head[k] = b->next;
	else
		f->bucket_links[b->prev].next = b->next;
	if (b->next == NIL)
		f->bucket_tail[k] = b->prev;
	else
		f->bucket_links[b->next].prev = b->prev;
	r->in_bucket = 0;
	/* bmin may now point at an empty bucket: least_loaded() moves it up */
}

/* The least loaded ready replica (NIL if none).  Counts change by one at a
 * time, so the lazy scan from the last minimum is O(1) amortised. */
static inline uint32_t least_loaded(fleet *f)
{
	while (f->bucket_min < f->bucket_count && f->bucket_head[f->bucket_min] == NIL)
		f->bucket_min++;
	return f->bucket_min < f->bucket_count ? f->bucket_head[f->bucket_min] : NIL;
}

static inline void out_add(fleet *f, replica *r, int d)
{
	uint32_t id = (uint32_t)(r - f->replicas);
	if (r->in_bucket) {
		bucket_remove(f, id);
		r->outstanding += d;
		bucket_insert(f, id);
	} else {
		r->outstanding += d;
	}
}

static void ready_add(fleet *f, uint32_t id)
{
	f->replicas[id].ready_pos = f->ready_count;
	f->ready[f->ready_count++] = id;
	bucket_insert(f, id);
}

static void ready_remove(fleet *f, uint32_t id)
{
	replica *r = &f->replicas[id];
	uint32_t last = f->ready[--f->ready_count];
	f->ready[r->ready_pos] = last;
	f->replicas[last].ready_pos = r->ready_pos;
	if (r->in_bucket)
		bucket_remove(f, id);
}

static void idle_add(fleet *f, uint32_t id)
{
	if (f->replicas[id].in_idle)
		return;
	f->replicas[id].in_idle = 1;
	f->replicas[id].idle_pos = f->idle_count;
	f->idle[f->idle_count++] = id;
}

static void idle_remove(fleet *f, uint32_t id)
{
	replica *r = &f->replicas[id];
	if (!r->in_idle)
		return;
	uint32_t last = f->idle[--f->idle_count];
	f->idle[r->idle_pos] = last;
	f->replicas[last].idle_pos = r->idle_pos;
	r->in_idle = 0;
}

/* The FREE slots, lowest index first: a slot retired is reused before a new
 * one is appended, and replica ids stay as small as they can (the lowest
 * free index, as a scan would find, in O(log slots) instead of O(slots)). */
static void free_push(fleet *f, uint32_t id)
{
	uint32_t *h = f->free_heap, i = f->free_count++;
	while (i > 0 && h[(i - 1) / 2] > id) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = id;
}

static uint32_t free_pop(fleet *f)
{
	uint32_t *h = f->free_heap, top = h[0], last = h[--f->free_count], n = f->free_count, i = 0;
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

