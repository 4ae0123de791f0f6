/*
 * fleet_prefix.c - conversations (sessions = on) and each replica's prefix
 * cache (prefix_caching = on; doc/inference.md, "Sessions and prefix
 * caching").
 * Part of serving.c's translation unit: included by it after
 * fleet_sets.c and before fleet_admit.c, not compiled alone.
 *
 * ---- conversations ----
 * With sessions = on every arrival of the traffic starts a conversation:
 * its system prompt (one of system_prompts, picked with weight 1 / k^s by
 * GSL's discrete sampler; none when there are none) and a message of
 * prompt_tokens tokens make its first prompt; it draws session_turns turns.
 * A turn that completes leaves the conversation's context, its prompt and
 * output; the next turn arrives think_time later with the prompt context +
 * a new message (prompt_tokens) and an output of output_tokens.  A turn
 * dropped (timeout, queue full, too large for the KV cache) abandons its
 * conversation.  Follow-up turns are engine events of their own
 * (turn_event), one per conversation thinking; their sizes and think times
 * come from the conversations' own stream.  A conversation is a pool entry
 * (struct session), freed when it has ended and its context is cached
 * nowhere: memory in the conversations alive, not in the events.
 *
 * ---- the prefix cache (prefix_caching = on) ----
 * vLLM's automatic prefix caching keeps the KV cache of a finished request
 * in its blocks of PC_BLOCK tokens, each named by a hash of every token up
 * to its end, and a new request reuses the longest run of its leading
 * blocks that is still cached (vllm/v1/core/kv_cache_manager.py,
 * get_computed_blocks; only full blocks are cached, and a prompt hit whole
 * recomputes its last token).  The blocks of finished requests stay in the
 * free queue, evicted least recently used first, the tail blocks of a
 * request before its head ("We free the blocks in reverse order so that the
 * tail blocks are evicted first when caching is enabled", KVCacheManager.free,
 * vllm/v1/core/kv_cache_manager.py).  The model keeps, per
 * replica, an LRU list of entries, each a number of cached blocks:
 *   - a system prompt's entry (system_prompts per replica): its
 *     floor(S / PC_BLOCK) full blocks, shared by every conversation that
 *     starts with it; "pinned" (out of the list, counted whole as cached)
 *     while a running request uses it;
 *   - a conversation's entry: the full blocks of its last finished turn's
 *     computed tokens (prompt + output - 1: the last sampled token is never
 *     fed back) past its system prompt's full blocks, on the replica that
 *     ran that turn (one entry per conversation: a turn run elsewhere moves
 *     it, a lower bound on the hits of a router without affinity).
 * A request's first admission on replica r (pc_claim) hits its system
 * prompt's cached blocks and, when all of them are cached, its
 * conversation's blocks on r; its entry leaves the cache (its blocks are
 * the running request's now).  The prefill computes only the rest: t = L
 * - h new tokens of a prompt of L, h hit, their attention against the h
 * cached ones too (sum over the new tokens of their positions: t (2 h +
 * t), the chunk's form of fleet_chunk.c), so that the iteration model's
 * prefill terms count t tokens in cu and t (2 h + t) in cv, one prompt in
 * cm; its KV context is the whole prompt all the same.  A request admitted
 * again (preempted, requeued after a failure) recomputes all of it.
 * Capacity: the running requests' KV (context_tokens, chunk_reserved, and
 * the decode growth of the span) and the cached blocks share kv_capacity;
 * admission counts the cache as free, and every span start evicts (pc_fit)
 * the least recently used blocks its running set needs by the span's end.
 * A replica's cache is lost when it leaves service (retire) or fails.
 */

/* vLLM's KV block size when none is given: 16 tokens (the CUDA and ROCm
 * platforms' check_and_update_config, "if cache_config.block_size is None:
 * cache_config.block_size = 16", vllm/platforms/; CacheConfig.block_size,
 * vllm/config/cache.py).  SGLang's radix cache matches by token (page size
 * 1): a hit there is up to 15 tokens longer. */
#define PC_BLOCK 16.0
#define SYS_BIT 0x80000000u

typedef struct pc_node {
	uint32_t prev, next; /* LRU links: a conversation's id, or SYS_BIT | a system prompt entry */
	uint32_t blocks;     /* blocks cached */
	uint32_t aux;        /* conversation: the replica holding its blocks (NIL: none);
	                        system prompt: running requests that use it (pinned) */
} pc_node;

typedef struct session {
	pc_node node;
	double context;      /* tokens of its last finished turn: prompt + output */
	uint32_t turns_left; /* turns after the current one */
	uint32_t sys;        /* its system prompt (NIL: none) */
	uint32_t home;       /* the replica of its last turn (router = affinity; NIL) */
	uint32_t next_free;  /* free list */
	uint32_t ended;      /* freed once its entry is cached nowhere */
} session;

struct req_side {
	uint32_t session; /* its conversation */
	uint32_t hit;     /* tokens of its prompt found cached at its first admission */
	uint32_t pinned;  /* it holds its system prompt's entry on its replica */
};

static inline pc_node *pc_node_of(fleet *f, uint32_t id)
{
	return id & SYS_BIT ? &f->sys_nodes[id & ~SYS_BIT] : &f->sess[id].node;
}

/* The request side table as long as the request pool. */
static bool side_fit(fleet *f)
{
	if (f->side_capacity >= f->request_capacity)
		return true;
	struct req_side *p = realloc(f->side, (size_t)f->request_capacity * sizeof *p);
	if (!p)
		return false;
	f->side = p;
	f->side_capacity = f->request_capacity;
	return true;
}

/* System prompt entries for slots [0, slots). */
static bool sys_nodes_fit(fleet *f, size_t slots)
{
	if (!f->nsys || slots <= f->sys_nodes_capacity)
		return true;
	size_t n = f->sys_nodes_capacity ? 2 * f->sys_nodes_capacity : 16;
	n = n < slots ? slots : n;
	pc_node *p = realloc(f->sys_nodes, n * f->nsys * sizeof *p);
	if (!p)
		return false;
	for (size_t i = f->sys_nodes_capacity * f->nsys; i < n * f->nsys; i++)
		p[i] = (pc_node){NIL, NIL, 0, 0};
	f->sys_nodes = p;
	f->sys_nodes_capacity = n;
	return true;
}

/* ---- the LRU list of a replica ---- */
static void lru_unlink(fleet *f, replica *r, uint32_t id)
{
	pc_node *n = pc_node_of(f, id);
	if (n->prev != NIL)
		pc_node_of(f, n->prev)->next = n->next;
	else
		r->lru_head = n->next;
	if (n->next != NIL)
		pc_node_of(f, n->next)->prev = n->prev;
	else
		r->lru_tail = n->prev;
	n->prev = n->next = NIL;
	r->cached_blocks -= n->blocks;
}

/* A list entry is in r's list when it has a neighbour or heads it. */
static inline bool lru_listed(const replica *r, const pc_node *n, uint32_t id)
{
	return n->prev != NIL || n->next != NIL || r->lru_head == id;
}

/* Most recently used first. */
static void lru_push(fleet *f, replica *r, uint32_t id)
{
	pc_node *n = pc_node_of(f, id);
	n->prev = NIL;
	n->next = r->lru_head;
	if (r->lru_head != NIL)
		pc_node_of(f, r->lru_head)->prev = id;
	else
		r->lru_tail = id;
	r->lru_head = id;
	r->cached_blocks += n->blocks;
}

static void session_free(fleet *f, uint32_t s)
{
	f->sess[s].next_free = f->sess_free;
	f->sess_free = s;
}

/* A conversation's entry left the cache: free the conversation if it has
 * ended. */
static inline void session_uncached(fleet *f, uint32_t s)
{
	f->sess[s].node.aux = NIL;
	f->sess[s].node.blocks = 0;
	if (f->sess[s].ended)
		session_free(f, s);
}

/* Evict `need` blocks from r, least recently used first, an entry's tail
 * blocks before its head. */
static void pc_evict(fleet *f, replica *r, double need)
{
	while (need > 0 && r->lru_tail != NIL) {
		uint32_t id = r->lru_tail;
		pc_node *n = pc_node_of(f, id);
		double k = n->blocks < need ? n->blocks : need;
		n->blocks -= (uint32_t)k;
		r->cached_blocks -= k;
		need -= k;
		f->evicted_blocks += k;
		if (n->blocks == 0) {
			lru_unlink(f, r, id);
			if (!(id & SYS_BIT))
				session_uncached(f, id);
		}
	}
}

/* Evict what KV tokens `used` of running requests need of r's memory. */
static inline void pc_fit(fleet *f, replica *r, double used)
{
	double excess = used + PC_BLOCK * r->cached_blocks - f->kv_capacity_tokens;
	if (excess > 0)
		pc_evict(f, r, ceil(excess / PC_BLOCK));
}

/* r's cache dropped (it leaves service or failed; nothing pins it). */
static void pc_clear(fleet *f, replica *r)
{
	while (r->lru_head != NIL) {
		uint32_t id = r->lru_head;
		lru_unlink(f, r, id);
		pc_node_of(f, id)->blocks = 0;
		if (!(id & SYS_BIT))
			session_uncached(f, id);
	}
	r->cached_blocks = 0;
	size_t base = (size_t)(r - f->replicas) * f->nsys;
	for (uint32_t s = 0; s < f->nsys; s++)
		f->sys_nodes[base + s].blocks = 0;
}

/* Full blocks of conversation s's system prompt. */
static inline double sys_blocks(const fleet *f, const session *s)
{
	return s->sys == NIL ? 0 : floor(f->sys_tokens[s->sys] / PC_BLOCK);
}

/* Request id's first admission on r: the tokens of its prompt found cached
 * (above); its entries leave the cache, its system prompt's pinned. */
static double pc_claim(fleet *f, replica *r, uint32_t id)
{
	struct req_side *sd = &f->side[id];
	uint32_t sid = sd->session, slot = (uint32_t)(r - f->replicas);
	session *s = &f->sess[sid];
	double hit = 0;
	bool chain = true; /* every block before is cached */
	if (s->sys != NIL) {
		uint32_t e = slot * f->nsys + s->sys;
		pc_node *n = &f->sys_nodes[e];
		double full = sys_blocks(f, s), have = n->aux ? full : n->blocks;
		hit = have;
		chain = have == full;
		if (!n->aux && lru_listed(r, n, SYS_BIT | e))
			lru_unlink(f, r, SYS_BIT | e);
		n->aux++;
		sd->pinned = 1;
	}
	if (s->node.aux != NIL) {
		if (chain && s->node.aux == slot)
			hit += s->node.blocks;
		lru_unlink(f, &f->replicas[s->node.aux], sid);
		s->node.aux = NIL;
		s->node.blocks = 0;
	}
	double L = f->requests[id].prompt, most = floor((L - 1) / PC_BLOCK);
	hit = PC_BLOCK * (hit < most ? hit : most);
	f->cache_lookup_tokens += L;
	f->cache_hit_tokens += hit;
	sd->hit = (uint32_t)hit;
	return hit;
}

/* Request id stops using its system prompt's entry on r (it ends, is
 * preempted or requeued): the entry, whole, is the most recent. */
static void pc_unpin(fleet *f, replica *r, uint32_t id)
{
	struct req_side *sd = &f->side[id];
	if (!sd->pinned)
		return;
	sd->pinned = 0;
	const session *s = &f->sess[sd->session];
	uint32_t e = (uint32_t)(r - f->replicas) * f->nsys + s->sys;
	pc_node *n = &f->sys_nodes[e];
	n->blocks = (uint32_t)sys_blocks(f, s);
	if (--n->aux == 0 && n->blocks)
		lru_push(f, r, SYS_BIT | e);
}

/* ---- conversations ---- */
static uint32_t session_alloc(fleet *f)
{
	if (f->sess_free == NIL) {
		if (f->sess_capacity >= MAX_IN_FLIGHT)
			return NIL;
		uint32_t n = f->sess_capacity ? 2 * f->sess_capacity : 1024;
		session *p = realloc(f->sess, (size_t)n * sizeof *p);
		if (!p)
			return NIL;
		f->sess = p;
		for (uint32_t i = n; i-- > f->sess_capacity;)
			session_free(f, i);
		f->sess_capacity = n;
	}
	uint32_t s = f->sess_free;
	f->sess_free = f->sess[s].next_free;
	return s;
}

/* A conversation ends (its last turn done, or a turn dropped). */
static void session_end(fleet *f, uint32_t s)
{
	f->sess[s].ended = 1;
	if (f->sess[s].node.aux == NIL)
		session_free(f, s);
}

/* Start a conversation with an arrival of the traffic whose message has
 * *prompt tokens: its system prompt goes first.  NIL: no memory. */
static uint32_t session_start(fleet *f, uint32_t *prompt)
{
	uint32_t s = session_alloc(f);
	if (s == NIL)
		return NIL;
	session *x = &f->sess[s];
	x->node = (pc_node){NIL, NIL, 0, NIL};
	x->context = 0;
	x->home = NIL;
	x->ended = 0;
	x->sys = f->nsys ? (uint32_t)gsl_ran_discrete(f->rng_session, f->sys_pick) : NIL;
	x->turns_left = aiwi_round_count(aiwi_dist_sample(aiwi_pd(f->comp, P_SESSION_TURNS), f->rng_session)) - 1;
	if (x->sys != NIL) {
		double p = (double)*prompt + f->sys_tokens[x->sys];
		*prompt = p < 1e9 ? (uint32_t)p : 1000000000u;
	}
	f->sessions_started++;
	return s;
}

static void route_fresh(fleet *f, uint32_t id, double now);
static void turn_event(aiw_sim *sim, void *ctx, uint64_t arg);
static inline double draw(const aiwi_dist *d, gsl_rng *r);

/* A size for a turn: by the size table when there is one (the counts'
 * law exactly, one uniform word; the tail by inversion), else drawn and
 * rounded; from the conversations' stream. */
static inline double turn_size(fleet *f, const aiwi_count_table *t, int p)
{
	if (t) {
		uint32_t n = aiwi_count_pick(t, aiwi_rng_u32(f->rng_session));
		return AIW_LIKELY(n) ? n : aiwi_count_tail(t, f->rng_session);
	}
	return aiwi_round_count(draw(aiwi_pd(f->comp, p), f->rng_session));
}

/* Request id of a conversation completed on r at now: its context cached
 * there (prefix caching), and the next turn scheduled or the conversation
 * done. */
static void session_turn_done(fleet *f, replica *r, uint32_t id, double now)
{
	const req *q = &f->requests[id];
	uint32_t sid = f->side[id].session;
	session *s = &f->sess[sid];
	s->context = (double)q->prompt + (f->accept_dist ? f->spec_out[id] : q->output);
	s->home = (uint32_t)(r - f->replicas);
	if (f->prefix) {
		pc_unpin(f, r, id);
		double pb = floor((s->context - 1) / PC_BLOCK) - sys_blocks(f, s);
		if (pb > 0) {
			s->node.blocks = (uint32_t)pb;
			s->node.aux = s->home;
			lru_push(f, r, sid);
		}
	}
	if (s->turns_left == 0) {
		f->sessions_completed++;
		session_end(f, sid);
		return;
	}
	s->turns_left--;
	double think = draw(aiwi_pd(f->comp, P_THINK_TIME), f->rng_session);
	/* the engine's push as at() (fleet_agenda.c), aiwi_at reporting a
	 * refusal */
	double t = now + (think > 0 ? think : 0);
	if (!aiwi_engine_push(f->engine, t, turn_event, f, sid) && !aiwi_at(f->sim, t, turn_event, f, sid))
		f->fail = true;
}

/* A turn dropped: its conversation is abandoned. */
static void session_drop(fleet *f, uint32_t id)
{
	f->sessions_abandoned++;
	session_end(f, f->side[id].session);
}

/* The next turn of conversation arg arrives. */
static void turn_event(aiw_sim *sim, void *ctx, uint64_t arg)
{
	fleet *f = ctx;
	aiwi_comp *c = f->comp;
	double now = aiwi_now(sim);
	uint32_t sid = (uint32_t)arg;
	session *s = &f->sess[sid];
	double msg = turn_size(f, f->prompt_sizes, P_PROMPT_TOKENS);
	double out = turn_size(f, f->output_sizes, P_OUTPUT_TOKENS), tokens = out;
	if (AIW_UNLIKELY(f->accept_dist != NULL))
		out = spec_iterations(f, (uint32_t)out);
	double prompt = s->context + msg;
	f->arrived++;
	if (prompt + out > f->kv_capacity_tokens || prompt > 1e9) {
		f->dropped[DROP_KV_TOO_LARGE]++;
		f->sessions_abandoned++;
		session_end(f, sid);
		FLEET_CHECK(f);
		return;
	}
	uint32_t id = req_alloc(f);
	if (id == NIL || !side_fit(f) || (f->accept_dist && !spec_out_fit(f))) {
		bool limit = id == NIL && f->request_capacity >= MAX_IN_FLIGHT;
		if (limit)
			aiwi_err(sim, AIW_ELIMIT,
			         "%s: more than %u requests in flight (the fleet is overloaded); set "
			         "queue_limit or timeout, or add replicas",
			         c->prefix, MAX_IN_FLIGHT);
		else
			aiwi_err(sim, AIW_ENOMEM, "%s: out of memory", c->prefix);
		aiwi_fail(sim, limit ? AIW_ELIMIT : AIW_ENOMEM);
		if (id != NIL)
			req_free(f, id);
		f->arrived--;
		return;
	}
	req *q = &f->requests[id];
	q->arrival = now;
	q->first_token = NAN;
	q->prompt = (uint32_t)prompt;
	q->output = (uint32_t)out;
	q->generated = 0;
	q->started = 0;
	f->side[id] = (struct req_side){sid, 0, 0};
	if (AIW_UNLIKELY(f->accept_dist != NULL))
		f->spec_out[id] = (uint32_t)tokens;
	route_fresh(f, id, now);
	FLEET_CHECK(f);
}

/* The replica holding conversation-affine work for request id (router =
 * affinity): its last turn's, while ready. */
static inline uint32_t affinity_home(const fleet *f, uint32_t id)
{
	if (!f->sessions)
		return NIL;
	uint32_t h = f->sess[f->side[id].session].home;
	return h != NIL && h < f->slot_count && f->replicas[h].state == AIW_REPLICA_READY ? h : NIL;
}

/* router = kv_aware: the ready replica whose running requests hold the
 * fewest KV tokens, each queued request counted as a mean one (ties: the
 * first in the ready set). */
static uint32_t kv_least(const fleet *f)
{
	uint32_t best = f->ready[0];
	double bk = INFINITY;
	for (uint32_t i = 0; i < f->ready_count; i++) {
		const replica *r = &f->replicas[f->ready[i]];
		double held = r->run_count + r->prefilling.length;
		double k = r->context_tokens + r->chunk_reserved +
		           ((double)r->outstanding - held) * f->mean_request_tokens;
		if (k < bk)
			bk = k, best = f->ready[i];
	}
	return best;
}
