/*
 * fleet_pool.c - the request pool (32-byte requests, a free list), the FIFO queues linked
 * through the requests, and a replica's running set (sorted array or heap).
 * Part of serving.c's translation unit: included by it after fleet.h, not
 * compiled alone (so that the hot path inlines as in one file).
 */

static void oom(fleet *f)
{
	if (!f->fail) {
		aiwi_err(f->sim, AIW_ENOMEM, "%s: out of memory", f->c->prefix);
		aiwi_fail(f->sim, AIW_ENOMEM);
		f->fail = true;
	}
}

static uint32_t req_alloc(fleet *f)
{
	if (f->free_head == NIL) {
		if (f->nrq >= MAX_IN_FLIGHT)
			return NIL;
		uint32_t n = f->nrq ? 2 * f->nrq : 1024;
		if (n > MAX_IN_FLIGHT)
			n = MAX_IN_FLIGHT;
		/* aligned to a cache line: no request straddles two */
		req *p = aligned_alloc(64, (size_t)n * sizeof *p);
		if (!p)
			return NIL;
		if (f->nrq)
			memcpy(p, f->rq, (size_t)f->nrq * sizeof *p);
		free(f->rq);
		f->rq = p;
		for (uint32_t i = n; i-- > f->nrq;) {
			p[i].next = f->free_head;
			f->free_head = i;
		}
		f->nrq = n;
	}
	uint32_t id = f->free_head;
	f->free_head = f->rq[id].next;
	f->in_flight++;
	return id;
}

static void req_free(fleet *f, uint32_t id)
{
	f->rq[id].next = f->free_head;
	f->free_head = id;
	f->in_flight--;
}

static inline void q_init(queue *q)
{
	q->head = q->tail = NIL;
	q->len = 0;
}

static inline void q_push(fleet *f, queue *q, uint32_t id)
{
	f->rq[id].next = NIL;
	if (q->tail == NIL)
		q->head = id;
	else
		f->rq[q->tail].next = id;
	q->tail = id;
	q->len++;
}

static inline void q_push_front(fleet *f, queue *q, uint32_t id)
{
	f->rq[id].next = q->head;
	q->head = id;
	if (q->tail == NIL)
		q->tail = id;
	q->len++;
}

static inline uint32_t q_pop(fleet *f, queue *q)
{
	uint32_t id = q->head;
	q->head = f->rq[id].next;
	if (q->head == NIL)
		q->tail = NIL;
	q->len--;
	return id;
}

/* ---- the running requests of a replica, by key ----
 * Up to RUN_SORTED entries: a sorted array run[rh .. rh + nrun), stable
 * (equal keys in admission order).  A new request finds its place by a
 * branchless binary search and those after it move up by one entry (a
 * third of them on bench/inference_day's load: its whole output is still
 * ahead of it); the earliest leaves from the front in O(1) (rh moves up).  Past RUN_SORTED entries the array becomes a binary
 * min-heap (a sorted array is one: nothing to convert) and stays one until
 * the replica holds RUN_SORTED / 2, when it is sorted back: large batches
 * (service = DIST with thousands in service) keep O(log n) per operation,
 * without flapping at the bound. */
#define RUN_SORTED 64u

static void run_up(rent *h, uint32_t i)
{
	rent x = h[i];
	while (i > 0) {
		uint32_t p = (i - 1) / 2;
		if (!(x.key < h[p].key))
			break;
		h[i] = h[p];
		i = p;
	}
	h[i] = x;
}

static void run_down(rent *h, uint32_t n, uint32_t i)
{
	rent x = h[i];
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
static inline double run_min(const replica *r) { return r->run[r->rh].key; }

/* Entry i, 0 <= i < nrun, in no particular order. */
static inline rent *run_at(const replica *r, uint32_t i) { return &r->run[r->rh + i]; }

static inline void run_push(fleet *f, replica *r, uint32_t id, double key, uint32_t seq)
{
	rent *h = r->run;
	if (r->rheap || r->nrun >= RUN_SORTED) {
		if (!r->rheap && r->rh) { /* now a heap: from index 0 */
			memmove(h, h + r->rh, (size_t)r->nrun * sizeof *h);
			r->rh = 0;
		}
		r->rheap = 1;
	} else if (r->rh + r->nrun == r->caprun && r->rh) {
		memmove(h, h + r->rh, (size_t)r->nrun * sizeof *h);
		r->rh = 0;
	}
	if (r->rh + r->nrun == r->caprun) {
		uint32_t n = r->caprun ? 2 * r->caprun : 8;
		h = realloc(r->run, (size_t)n * sizeof *h);
		if (!h) {
			oom(f);
			return;
		}
		r->run = h;
		r->caprun = n;
	}
	if (r->rheap) {
		h[r->nrun] = (rent){key, id, seq};
		run_up(h, r->nrun++);
		return;
	}
	/* after the last entry <= key: a branchless binary search (the number
	 * of entries it passes varies from one request to the next, so a scan
	 * from the back would end on a mispredicted branch), then one move */
	rent *b = h + r->rh;
	uint32_t len = r->nrun;
	if (len) {
		while (len > 1) {
			uint32_t half = len / 2;
			b = b[half].key <= key ? b + half : b;
			len -= half;
		}
		b += b->key <= key;
	}
	rent *end = h + r->rh + r->nrun++;
	memmove(b + 1, b, (size_t)(end - b) * sizeof *b);
	*b = (rent){key, id, seq};
}

/* Insertion sort of a heap back into a sorted array (at most RUN_SORTED / 2
 * entries, once per return under the bound). */
static void run_sort(replica *r)
{
	rent *h = r->run;
	for (uint32_t i = 1; i < r->nrun; i++) {
		rent x = h[i];
		uint32_t j = i;
		while (j > 0 && h[j - 1].key > x.key) {
			h[j] = h[j - 1];
			j--;
		}
		h[j] = x;
	}
	r->rheap = 0;
}

/* The earliest running request out.  Heap: Floyd's variant of the
 * sift-down (Knuth TAOCP 5.2.3, exercise 18): the hole goes down to a leaf
 * through the smaller children, picked with a select, and the last entry
 * climbs back from there (seldom far: it came from the bottom). */
static inline rent run_pop(replica *r)
{
	rent *h = r->run, top = h[r->rh];
	uint32_t n = --r->nrun;
	if (!r->rheap) {
		r->rh = n ? r->rh + 1 : 0;
		return top;
	}
	if (n == 0) {
		r->rheap = 0;
		return top;
	}
	rent x = h[n];
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
static inline rent run_remove_at(replica *r, uint32_t i)
{
	rent *h = r->run + r->rh, x = h[i];
	r->nrun--;
	if (!r->rheap) {
		memmove(h + i, h + i + 1, (size_t)(r->nrun - i) * sizeof *h);
		if (!r->nrun)
			r->rh = 0;
	} else if (i < r->nrun) {
		h[i] = h[r->nrun];
		run_down(h, r->nrun, i);
		run_up(h, i);
	}
	if (r->rheap && r->nrun <= RUN_SORTED / 2)
		run_sort(r);
	return x;
}

/* No running request left (the replica failed). */
static inline void run_clear(replica *r)
{
	r->nrun = 0;
	r->rh = 0;
	r->rheap = 0;
}
