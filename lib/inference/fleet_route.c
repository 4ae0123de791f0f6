/*
 * fleet_route.c - routing (round robin, least loaded, power of two choices,
 * central) and arrivals (times drawn ahead, sizes by table).
 * Part of serving.c's translation unit: included by it after fleet.h, not
 * compiled alone (so that the hot path inlines as in one file).
 */

/* ======================================================================== */
/* routing                                                                   */
/* ======================================================================== */
static uint32_t choose(fleet *f, uint32_t id)
{
	switch (f->router) {
	case RT_AFFINITY: {
		uint32_t h = affinity_home(f, id);
		return h != NIL ? h : least_loaded(f);
	}
	case RT_KV:
		return kv_least(f);
	case RT_ROUND_ROBIN:
		if (f->round_robin_next >= f->ready_count)
			f->round_robin_next = 0;
		return f->ready[f->round_robin_next++];
	case RT_LEAST_LOADED:
		return least_loaded(f);
	case RT_P2C: {
		if (f->ready_count == 1)
			return f->ready[0];
		uint32_t i = (uint32_t)gsl_rng_uniform_int(f->rng_route, f->ready_count);
		uint32_t j = (uint32_t)gsl_rng_uniform_int(f->rng_route, f->ready_count - 1);
		if (j >= i)
			j++;
		uint32_t a = f->ready[i], b = f->ready[j];
		return f->replicas[b].outstanding < f->replicas[a].outstanding ? b : a;
	}
	}
	return f->ready[0];
}

/* Place a request that is in no queue.  FRESH: a new arrival (queue limit
 * applies); MOVE: from the router's waiting queue to a replica's queue, in
 * arrival order; REQUEUE: restarted after its replica failed (in front, or
 * in the replica's preempted list). */
enum { FRESH, MOVE, REQUEUE };
static void route(fleet *f, uint32_t id, int how, double now)
{
	if (f->router == RT_CENTRAL || f->ready_count == 0) {
		if (how == FRESH) {
			purge(f, &f->central, NULL, now);
			if (f->central.length >= f->queue_limit) {
				drop(f, id, DROP_QUEUE_FULL);
				return;
			}
			q_push(f, &f->central, id);
		} else {
			q_push_front(f, &f->central, id);
		}
		waiting_add(f, now, +1);
		if (f->router == RT_CENTRAL)
			central_dispatch(f, now);
		return;
	}
	replica *r = &f->replicas[choose(f, id)];
	if (how == FRESH) {
		purge(f, &r->routed, r, now);
		/* (requests of a pending start are still in the queue) */
		if (r->routed.length + (r->pending && now < r->current.start ? r->pending_from_queue : 0) >=
		    f->queue_limit) {
			drop(f, id, DROP_QUEUE_FULL);
			return;
		}
		q_push(f, &r->routed, id);
	} else {
		q_push(f, how == MOVE ? &r->routed : &r->preempted, id);
	}
	waiting_add(f, now, +1);
	out_add(f, r, +1);
	kick(f, r, now);
}

static void route_fresh(fleet *f, uint32_t id, double now)
{
	route(f, id, FRESH, now);
}

/* Requests that waited at the router for a replica to be ready. */
static void reroute_central(fleet *f, double now)
{
	if (f->router == RT_CENTRAL) {
		central_dispatch(f, now);
		return;
	}
	while (f->central.length && f->ready_count) {
		uint32_t id = q_pop(f, &f->central);
		waiting_add(f, now, -1);
		route(f, id, MOVE, now);
	}
}

/* ======================================================================== */
/* arrivals                                                                  */
/* ======================================================================== */
static inline uint32_t tokens_of(double x)
{
	return aiwi_round_count(x);
}

/* A draw of d, the two common forms by the cheaper route: lognormals
 * through the ziggurat normal (no log per draw), exponentials through the
 * exponential ziggurat (lib/core/rng.h; tables built by inference_start). */
static inline double draw(const aiwi_dist *d, gsl_rng *r)
{
	if (d->kind == AIW_D_LOGNORMAL)
		return exp(d->a + d->b * gsl_ran_gaussian_ziggurat(r, 1.0));
	if (d->kind == AIW_D_EXP)
		return d->a * aiwi_rng_exponential(r);
	return aiwi_dist_sample(d, r);
}

/* The next arrival's sizes by table: their uniform words drawn now, one
 * arrival ahead (from the size stream, which nothing else draws from; a
 * tail's inversion draws its uniform when its arrival comes, after both
 * words), and the columns they pick fetched meanwhile, so that the arrival
 * finds them in the first-level cache (a table's columns are read at
 * random). */
static inline void sizes_ahead(fleet *f)
{
	if (f->prompt_sizes) {
		f->prompt_word = aiwi_rng_u32(f->rng_size);
		__builtin_prefetch(aiwi_count_slot(f->prompt_sizes, f->prompt_word));
	}
	if (f->output_sizes) {
		f->output_word = aiwi_rng_u32(f->rng_size);
		__builtin_prefetch(aiwi_count_slot(f->output_sizes, f->output_word));
	}
}

/* A size from its table and its word drawn ahead. */
static inline uint32_t size_by_table(const fleet *f, const aiwi_count_table *t, uint32_t x)
{
	uint32_t n = aiwi_count_pick(t, x);
	return AIW_LIKELY(n) ? n : aiwi_count_tail(t, f->rng_size);
}

/* Arrivals drawn ahead, from now on (the traffic draws from the component's
 * stream only, so they are the times it would give one at a time). */
#define ABUF 64
static void arrivals_ahead(fleet *f, double now)
{
	f->ahead_count =
	        (uint32_t)aiwi_traffic_next_n(f->traffic, f->comp->rng, now, f->ahead_times, ABUF);
	f->ahead_next = 0;
}

/* The arrival after the one at now: from the buffer, refilled when empty
 * (a trace's one row at a time, its sizes to next_p, next_o). */
static inline double next_arrival(fleet *f, double now)
{
	if (f->ahead_count) {
		if (AIW_UNLIKELY(f->ahead_next == f->ahead_count))
			arrivals_ahead(f, now);
		return f->ahead_times[f->ahead_next++];
	}
	return aiwi_traffic_next(f->traffic, f->comp->rng, now, &f->next_prompt, &f->next_output);
}

/* The arrival due at now (run by the master event); false when the run
 * fails here (the trace could not be read, too many requests in flight). */
static bool arrive(fleet *f, double now)
{
	aiwi_comp *c = f->comp;
	aiw_sim *sim = f->sim;
	double p = f->next_prompt, o = f->next_output;
	/* the next arrival first: its sizes come with it from a trace */
	double nt = next_arrival(f, now);
	f->arrival_time = INFINITY;
	if (isnan(nt)) {
		aiwi_err(sim, AIW_EIO, "%s: %s", c->prefix, aiwi_traffic_errmsg(f->traffic));
		aiwi_fail(sim, AIW_EIO);
		return false;
	}
	if (isfinite(nt))
		f->arrival_time = nt;
	f->arrived++;
	uint32_t prompt, output;
	double svc = 0;
	if (f->service_mode) {
		/* a queue: sizes only matter for the token counts, taken from a
		 * trace when there is one and not drawn otherwise */
		svc = draw(aiwi_pd(c, P_SERVICE), f->rng_size);
		prompt = isnan(p) ? 0 : tokens_of(p);
		output = isnan(o) ? 0 : tokens_of(o);
	} else {
		/* sizes from the trace, or drawn: by table (dist.c), or drawn
		 * and rounded */
		prompt = !isnan(p) ? tokens_of(p)
		         : f->prompt_sizes ? size_by_table(f, f->prompt_sizes, f->prompt_word)
		                    : tokens_of(draw(aiwi_pd(c, P_PROMPT_TOKENS), f->rng_size));
		output = !isnan(o) ? tokens_of(o)
		         : f->output_sizes ? size_by_table(f, f->output_sizes, f->output_word)
		                    : tokens_of(draw(aiwi_pd(c, P_OUTPUT_TOKENS), f->rng_size));
		sizes_ahead(f);
	}
	uint32_t sid = NIL;
	if (AIW_UNLIKELY(f->sessions) && (sid = session_start(f, &prompt)) == NIL) {
		aiwi_err(sim, AIW_ENOMEM, "%s: out of memory", c->prefix);
		aiwi_fail(sim, AIW_ENOMEM);
		f->arrived--;
		return false;
	}
	uint32_t tokens = output; /* (acceptance_dist: output becomes its iterations) */
	if (AIW_UNLIKELY(f->accept_dist != NULL))
		output = spec_iterations(f, output);
	/* a prefill pool holds the prompt and the first token only (the
	 * decode pool checks its own memory: fleet_disagg.c) */
	double held = AIW_UNLIKELY(f->disagg == DIS_PREFILL) && output > 1 ? 1 : output;
	if (!f->service_mode && (double)prompt + held > f->kv_capacity_tokens) {
		f->dropped[DROP_KV_TOO_LARGE]++;
		if (AIW_UNLIKELY(f->sessions)) {
			f->sessions_abandoned++;
			session_end(f, sid);
		}
		return true;
	}
	uint32_t id = req_alloc(f);
	if (AIW_UNLIKELY(f->sessions) && id != NIL && !side_fit(f)) {
		req_free(f, id);
		id = NIL;
	}
	if (AIW_UNLIKELY(f->accept_dist != NULL) && id != NIL) {
		if (spec_out_fit(f)) {
			f->spec_out[id] = tokens;
		} else {
			req_free(f, id);
			id = NIL;
		}
	}
	if (id == NIL) {
		bool limit = f->request_capacity >= MAX_IN_FLIGHT;
		if (limit)
			aiwi_err(sim, AIW_ELIMIT,
			         "%s: more than %u requests in flight (the fleet is overloaded); set "
			         "queue_limit or timeout, or add replicas",
			         c->prefix, MAX_IN_FLIGHT);
		else
			aiwi_err(sim, AIW_ENOMEM, "%s: out of memory", c->prefix);
		aiwi_fail(sim, limit ? AIW_ELIMIT : AIW_ENOMEM);
		f->arrived--; /* never entered the model: the run stops here */
		return false;
	}
	req *q = &f->requests[id];
	q->arrival = now;
	if (f->service_mode)
		q->key = svc > 0 ? svc : 0;
	else
		q->first_token = NAN;
	q->prompt = prompt;
	q->output = output;
	q->generated = 0;
	q->started = 0;
	if (AIW_UNLIKELY(f->sessions))
		f->side[id] = (struct req_side){sid, 0, 0};
	route(f, id, FRESH, now);
	return true;
}
