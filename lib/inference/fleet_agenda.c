/*
 * fleet_agenda.c - the agenda: the pending end of each slot in a winner
 * tree, and the one engine event (the master) at the earliest of it and the
 * next arrival.
 * Part of serving.c's translation unit: included by it after fleet.h, not
 * compiled alone (so that the hot path inlines as in one file).
 */

/* ======================================================================== */
/* the agenda: the pending span end of each replica, in a winner tree over  */
/* the slots (Knuth TAOCP 5.4.1), fed to the engine as one event at its     */
/* earliest time.  The keys live in one array by slot (f->end_keys); the tree     */
/* holds slot ids only (f->tree, node n in 1 .. leaves - 1 the winner of its      */
/* subtree, leaf leaves + i standing for slot i), so a winner's key is read     */
/* through its id.  Setting slot i's key recomputes its path (ag_set).     */
/* Ties go to the lower slot (keys compare as (key, slot)): deterministic,  */
/* and the order the slots' leaves give.                                    */
/* ======================================================================== */
/* No pending end: above the bits of every time (and one below UINT64_MAX,
 * so that key + 1 cannot wrap in ag_set's tie rule). */
#define NONE (UINT64_MAX - 1)

/* Times >= 0 as their IEEE bits, which order like the values. */
static inline uint64_t tbits(double t)
{
	uint64_t b;
	t += 0.0; /* -0 -> +0 */
	memcpy(&b, &t, sizeof b);
	return b;
}

static inline double btime(uint64_t b)
{
	double t;
	memcpy(&t, &b, sizeof t);
	return t;
}

/* Whether slot a with key ka comes before slot b with key kb. */
static inline bool ag_before(uint64_t ka, uint32_t a, uint64_t kb, uint32_t b)
{
	return ka < kb || (ka == kb && a < b);
}

/* Slot i's key is now k: recompute the winners on its path, leaf to root,
 * always the whole path (log2 leaves levels, leaves a power of two: a loop the
 * branch predictor learns) with selects instead of branches.  Stopping
 * early where the winner no longer changes saves a few levels but costs a
 * mispredicted branch at a random level; callgrind's branch simulation
 * counted 4.3 mispredictions per request here with the early stops.  At
 * each node the winner so far (carried in registers: the winner of the
 * child on the path) meets the winner of the sibling; the sibling wins ties
 * when it lies to the left (n odd), its slots being the lower ones. */
static void ag_set(fleet *f, uint32_t i, uint64_t k)
{
	uint32_t *t = f->tree;
	const uint64_t *ak = f->end_keys;
	f->end_keys[i] = k;
	uint64_t key = k;
	uint32_t id = i, n = f->leaves + i;
	/* the levels unrolled, entered at the tree's depth (a jump the
	 * predictor always takes the same way): no loop test per level */
#define AG_LEVEL                                                                 \
	do {                                                                     \
		uint32_t sid = t[n ^ 1];                                         \
		uint64_t sk = ak[sid];                                           \
		bool sw = sk < key + (n & 1);                                    \
		key = sw ? sk : key;                                             \
		id = sw ? sid : id;                                              \
		n >>= 1;                                                         \
		t[n] = id;                                                       \
	} while (0)
	switch (f->depth) {
	case 20: AG_LEVEL; /* fall through */
	case 19: AG_LEVEL; /* fall through */
	case 18: AG_LEVEL; /* fall through */
	case 17: AG_LEVEL; /* fall through */
	case 16: AG_LEVEL; /* fall through */
	case 15: AG_LEVEL; /* fall through */
	case 14: AG_LEVEL; /* fall through */
	case 13: AG_LEVEL; /* fall through */
	case 12: AG_LEVEL; /* fall through */
	case 11: AG_LEVEL; /* fall through */
	case 10: AG_LEVEL; /* fall through */
	case 9: AG_LEVEL; /* fall through */
	case 8: AG_LEVEL; /* fall through */
	case 7: AG_LEVEL; /* fall through */
	case 6: AG_LEVEL; /* fall through */
	case 5: AG_LEVEL; /* fall through */
	case 4: AG_LEVEL; /* fall through */
	case 3: AG_LEVEL; /* fall through */
	case 2: AG_LEVEL; /* fall through */
	case 1: AG_LEVEL; /* fall through */
	default: break;
	}
#undef AG_LEVEL
	f->top_slot = id;
	f->top_key = key;
}

/* Room for slots [0, n): rebuild with more leaves. */
static bool ag_grow(fleet *f, uint32_t n)
{
	if (n <= f->leaves)
		return true;
	uint32_t np = f->leaves ? f->leaves : 2;
	while (np < n)
		np *= 2;
	uint32_t *t = malloc(2 * (size_t)np * sizeof *t);
	uint64_t *ak = malloc((size_t)np * sizeof *ak);
	uint32_t *eo = malloc((size_t)np * sizeof *eo);
	if (!t || !ak || !eo) {
		free(t);
		free(ak);
		free(eo);
		return false;
	}
	for (uint32_t i = 0; i < np; i++) {
		ak[i] = i < f->leaves ? f->end_keys[i] : NONE;
		eo[i] = i < f->leaves ? f->end_out[i] : 0;
		t[np + i] = i;
	}
	for (uint32_t m = np - 1; m >= 1; m--) {
		uint32_t a = t[2 * m], b = t[2 * m + 1];
		t[m] = ag_before(ak[b], b, ak[a], a) ? b : a;
	}
	t[0] = 0;
	free(f->tree);
	free(f->end_keys);
	free(f->end_out);
	f->tree = t;
	f->end_keys = ak;
	f->end_out = eo;
	f->leaves = np;
	f->depth = (uint32_t)__builtin_ctz(np);
	f->top_slot = t[1];
	f->top_key = ak[t[1]];
	return true;
}

/* The earliest pending key and its slot. */
static inline uint64_t ag_top(const fleet *f, uint32_t *slot)
{
	*slot = f->top_slot;
	return f->top_key;
}

static inline bool ag_pending(const fleet *f, const replica *r)
{
	return f->end_keys[(uint32_t)(r - f->replicas)] != NONE;
}

static void ag_remove(fleet *f, replica *r)
{
	if (ag_pending(f, r))
		ag_set(f, (uint32_t)(r - f->replicas), NONE);
}

static void master_event(aiw_sim *sim, void *ctx, uint64_t arg);

/* aiwi_at for the master event: the engine's push without the call into
 * sim.c; a refused push (no memory, the limits: nothing changed) goes
 * through aiwi_at again, which reports it (or succeeds, memory having come
 * back). */
static inline uint64_t at(fleet *f, double t, aiwi_evfn fn)
{
	if (t < f->engine->now)
		t = f->engine->now;
	uint64_t h = aiwi_engine_push(f->engine, t, fn, f, 0);
	return AIW_LIKELY(h) ? h : aiwi_at(f->sim, t, fn, f, 0);
}

/* The component's next own event: the agenda's earliest span end or the
 * next arrival, whichever comes first (span ends first at equal times). */
static inline double next_own(const fleet *f)
{
	uint32_t s;
	uint64_t k = ag_top(f, &s);
	double t = k == NONE ? INFINITY : btime(k);
	return f->arrival_time < t ? f->arrival_time : t;
}

/* Keep the one engine event at the component's next own event.  A later
 * event left pending just finds nothing due and re-arms. */
static void ag_sync(fleet *f)
{
	if (f->in_master)
		return;
	double t = next_own(f);
	if (!(t < INFINITY))
		return;
	if (f->master && !(t < f->master_time))
		return;
	if (f->master)
		aiwi_cancel(f->sim, f->master);
	f->master_time = t;
	f->master = at(f, t, master_event);
	if (!f->master)
		f->fail = true;
}

static void schedule(fleet *f, replica *r, double t)
{
	uint32_t i = (uint32_t)(r - f->replicas);
	r->rescheduled = 1;
	/* the request the end completes first (the running set's front, just
	 * read: no miss; 0 when empty, a valid index all the same) is fetched
	 * now, a span ahead: it was last used seconds ago, and a span is short
	 * enough for it to stay in the second-level cache until its end (the
	 * master fetches it again into the first, end_out) */
	f->end_out[i] = r->run_count ? r->run[r->run_head].id : 0;
	if (r->run_count)
		__builtin_prefetch(&f->requests[f->end_out[i]], 1);
	ag_set(f, i, tbits(t));
	ag_sync(f);
}
