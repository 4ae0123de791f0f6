/*
 * fleet_pool.c - the request pool (32-byte requests, a free list), the FIFO
 * queues linked through the requests, and a replica's running set (sorted
 * array or heap).
 * Part of serving.c's translation unit: included by it after fleet.h, not
 * compiled alone (so that the hot path inlines as in one file).
 */

static void oom(fleet *f)
{
	if (!f->fail) {
		aiwi_err(f->sim, AIW_ENOMEM, "%s: out of memory", f->comp->prefix);
		aiwi_fail(f->sim, AIW_ENOMEM);
		f->fail = true;
	}
}

static uint32_t req_alloc(fleet *f)
{
	if (f->free_head == NIL) {
		if (f->request_capacity >= MAX_IN_FLIGHT)
			return NIL;
		uint32_t n = f->request_capacity ? 2 * f->request_capacity : 1024;
		if (n > MAX_IN_FLIGHT)
			n = MAX_IN_FLIGHT;
		/* aligned to a cache line: no request straddles two */
		req *p = aligned_alloc(64, (size_t)n * sizeof *p);
		if (!p)
			return NIL;
		if (f->request_capacity)
			memcpy(p, f->requests, (size_t)f->request_capacity * sizeof *p);
		free(f->requests);
		f->requests = p;
		for (uint32_t i = n; i-- > f->request_capacity;) {
			p[i].next = f->free_head;
			f->free_head = i;
		}
		f->request_capacity = n;
	}
	uint32_t id = f->free_head;
	f->free_head = f->requests[id].next;
	f->in_flight++;
	return id;
}

/* acceptance_dist: a request's own acceptance rate a, drawn at arrival
 * (its stream "NAME/acceptance", so that no other stream draws less), sets
 * the decode iterations that give its own verification steps: a "decode
 * iteration" of the span maths is 1 / spec_E of a step (doc/inference.md),
 * and a request of E(a) = (1 - a^(k+1)) / (1 - a) tokens per step needs
 * (output - 1) / E(a) steps after its first token, hence
 * 1 + round((output - 1) spec_E / E(a)) iterations (at least 2 when it
 * decodes at all; at most 1e9). */
static uint32_t spec_iterations(fleet *f, uint32_t output)
{
	if (output < 2)
		return output;
	double a = aiwi_dist_sample(f->accept_dist, f->rng_accept);
	a = a > 0 ? (a < 1 ? a : 1) : 0; /* (the law's support is checked in [0, 1]) */
	double it = 1 + nearbyint((output - 1.0) * f->spec_E / spec_expected_tokens(f->spec_k, a));
	return it < 2 ? 2 : it > 1e9 ? 1000000000u : (uint32_t)it;
}

/* The table of output tokens as long as the request pool. */
static bool spec_out_fit(fleet *f)
{
	if (f->spec_out_capacity >= f->request_capacity)
		return true;
	uint32_t *p = realloc(f->spec_out, (size_t)f->request_capacity * sizeof *p);
	if (!p)
		return false;
	f->spec_out = p;
	f->spec_out_capacity = f->request_capacity;
	return true;
}

static void req_free(fleet *f, uint32_t id)
{
	f->requests[id].next = f->free_head;
	f->free_head = id;
	f->in_flight--;
}

static inline void q_init(queue *q)
{
	q->head = q->tail = NIL;
	q->length = 0;
}

static inline void q_push(fleet *f, queue *q, uint32_t id)
{
	f->requests[id].next = NIL;
	if (q->tail == NIL)
		q->head = id;
	else
		f->requests[q->tail].next = id;
	q->tail = id;
	q->length++;
}

static inline void q_push_front(fleet *f, queue *q, uint32_t id)
{
	f->requests[id].next = q->head;
	q->head = id;
	if (q->tail == NIL)
		q->tail = id;
	q->length++;
}

static inline uint32_t q_pop(fleet *f, queue *q)
{
	uint32_t id = q->head;
	q->head = f->requests[id].next;
	if (q->head == NIL)
		q->tail = NIL;
	q->length--;
	return id;
}

/* ---- the running requests of a replica, by key ----
 * Up to RUN_SORTED entries: a sorted array run[run_head .. run_head + run_count), stable
 * (equal keys in admission order).  A new request finds its place by
 * counting the entries <= its key and those after it move up by one entry (a
 * third of them on bench/inference_day's load: its whole output is still
 * ahead of it); the earliest leaves from the front in O(1) (run_head moves
 * up).  Past RUN_SORTED entries the array becomes a binary
 * min-heap (a sorted array is one: nothing to convert) and stays one until
 * the replica holds RUN_SORTED / 2, when it is sorted back: large batches
 * (service = DIST with thousands in service) keep O(log n) per operation,
 * without flapping at the bound. */
#define RUN_SORTED 64u

static void run_up(run_entry *h, uint32_t i)
{
	run_entry x = h[i];
	while (i > 0) {
		uint32_t p = (i - 1) / 2;
		if (!(x.key < h[p].key))
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = x;
}

static void run_down(run_entry *h, uint32_t n, uint32_t i)
{
	run_entry x = h[i];
	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && h[c + 1].key < h[c].key)
			c++;
		if (!(h[c].key < x.key))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = x;
}

/* The earliest key (nrun > 0). */
static inline double run_min(const replica *r) { return r->run[r->run_head].key; }

/* Entry i, 0 <= i < nrun, in no particular order. */
static inline run_entry *run_at(const replica *r, uint32_t i) { return &r->run[r->run_head + i]; }

static inline void run_push(fleet *f, replica *r, uint32_t id, double key, uint32_t seq)
{
	run_entry *h = r->run;
	if (r->run_is_heap || r->run_count >= RUN_SORTED) {
		if (!r->run_is_heap && r->run_head) { /* now a heap: from index 0 */
			memmove(h, h + r->run_head, (size_t)r->run_count * sizeof *h);
			r->run_head = 0;
		}
		r->run_is_heap = 1;
	} else if (r->run_head + r->run_count == r->run_capacity && r->run_head) {
		memmove(h, h + r->run_head, (size_t)r->run_count * sizeof *h);
		r->run_head = 0;
	}
	if (r->run_head + r->run_count == r->run_capacity) {
		uint32_t n = r->run_capacity ? 2 * r->run_capacity : 8;
		h = realloc(r->run, (size_t)n * sizeof *h);
		if (!h) {
			oom(f);
			return;
		}
		r->run = h;
		r->run_capacity = n;
	}
	if (r->run_is_heap) {
		h[r->run_count] = (run_entry){key, id, seq};
		run_up(h, r->run_count++);
		return;
	}
	/* after the last entry <= key, i.e. after every entry <= key (the
	 * set is sorted): counted over the whole set, then one move.  The
	 * count's loads do not hang on one another, so that a set out of the
	 * cache (as when an arrival picks the replica) costs about one miss,
	 * not a binary search's chain of them (log2 n dependent loads: with
	 * it, bench/interleave_day took 1.06 times as long, at 46 entries a
	 * set on average); a scan from the back stopping at the place would
	 * end on a mispredicted branch (the number of entries it passes
	 * varies). */
	run_entry *b = h + r->run_head;
	uint32_t len = r->run_count, at = 0;
	for (uint32_t j = 0; j < len; j++)
		at += b[j].key <= key;
	b += at;
	run_entry *end = h + r->run_head + r->run_count++;
	memmove(b + 1, b, (size_t)(end - b) * sizeof *b);
	*b = (run_entry){key, id, seq};
}

/* Insertion sort of a heap back into a sorted array (at most RUN_SORTED / 2
 * entries, once per return under the bound). */
static void run_sort(replica *r)
{
	run_entry *h = r->run;
	for (uint32_t i = 1; i < r->run_count; i++) {
		run_entry x = h[i];
		uint32_t j = i;
		while (j > 0 && h[j - 1].key > x.key) {
			h[j] = h[j - 1];
			j--;
		}
		h[j] = x;
	}
	r->run_is_heap = 0;
}

/* The earliest running request out.  Heap: Floyd's variant of the
 * sift-down (Knuth TAOCP 5.2.3, exercise 18): the hole goes down to a leaf
 * through the smaller children, picked with a select, and the last entry
 * climbs back from there (seldom far: it came from the bottom). */
static inline run_entry run_pop(replica *r)
{
	run_entry *h = r->run, top = h[r->run_head];
	uint32_t n = --r->run_count;
	if (!r->run_is_heap) {
		r->run_head = n ? r->run_head + 1 : 0;
		return top;
	}
	if (n == 0) {
		r->run_is_heap = 0;
		return top;
	}
	run_entry x = h[n];
	uint32_t i = 0, c;
	while ((c = 2 * i + 1) + 1 < n) {
		c += h[c + 1].key < h[c].key;
		h[i] = h[c];
		i = c;
	}
	if (c < n) { /* a last child without a sibling */
		h[i] = h[c];
		i = c;
	}
	h[i] = x;
	run_up(h, i);
	if (n <= RUN_SORTED / 2)
		run_sort(r);
	return top;
}

/* Entry i (as run_at numbers them) out. */
static inline run_entry run_remove_at(replica *r, uint32_t i)
{
	run_entry *h = r->run + r->run_head, x = h[i];
	r->run_count--;
	if (!r->run_is_heap) {
		memmove(h + i, h + i + 1, (size_t)(r->run_count - i) * sizeof *h);
		if (!r->run_count)
			r->run_head = 0;
	} else if (i < r->run_count) {
		h[i] = h[r->run_count];
		run_down(h, r->run_count, i);
		run_up(h, i);
	}
	if (r->run_is_heap && r->run_count <= RUN_SORTED / 2)
		run_sort(r);
	return x;
}

/* No running request left (the replica failed). */
static inline void run_clear(replica *r)
{
	r->run_count = 0;
	r->run_head = 0;
	r->run_is_heap = 0;
}
