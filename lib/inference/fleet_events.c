/*
 * fleet_events.c - the events: a slot leaving service or going idle, the
 * next step of a replica, span and service ends, the master event, cuts for
 * a new request (kick), dynamic-batch timers, the central router's
 * dispatch.
 * Part of serving.c's translation unit: included by it after fleet.h, not
 * compiled alone (so that the hot path inlines as in one file).
 */

static void retire(fleet *f, replica *r, double now)
{
	uint32_t id = (uint32_t)(r - f->replicas);
	ag_remove(f, r);
	if (r->batch_timer) {
		aiwi_cancel(f->sim, r->batch_timer);
		r->batch_timer = 0;
	}
	if (r->state == AIW_REPLICA_READY)
		ready_remove(f, id);
	idle_remove(f, id);
	set_state(f, r, AIW_REPLICA_FREE);
	free_push(f, id);
	if (AIW_UNLIKELY(f->prefix))
		pc_clear(f, r);
	r->span_kind = SPAN_NONE;
	set_phase(f, r, PH_OFF, now);
	r->spot = 0;
	if (AIW_UNLIKELY(f->failures))
		failure_disarm(f, id);
}

static void go_idle(fleet *f, replica *r, double now)
{
	r->span_kind = SPAN_NONE;
	if (r->phase != PH_IDLE) {
		set_phase(f, r, PH_IDLE, now);
		r->free_since = now;
	}
	if (r->state == AIW_REPLICA_DRAINING) {
		if (r->outstanding == 0)
			retire(f, r, now);
		return;
	}
	if (f->batching == B_DYNAMIC)
		ensure_timer(f, r, now);
	if (f->router == RT_CENTRAL)
		idle_add(f, (uint32_t)(r - f->replicas));
}

static void step(fleet *f, replica *r, double now)
{
	if (r->state != AIW_REPLICA_READY && r->state != AIW_REPLICA_DRAINING)
		return;
	double ptok[2] = {0, 0}; /* prompt tokens to prefill, the sum of their squared lengths */
	f->admitted_count = 0;
	uint32_t nadm = admit(f, r, now, ptok);
	if (r->run_count == 0 && !r->prefilling.length) {
		go_idle(f, r, now);
		return;
	}
	if (!f->service_mode) {
		start_span(f, r, now, nadm, ptok);
		return;
	}
	double t = run_min(r);
	r->span_kind = SPAN_SERVICE;
	set_phase(f, r, PH_DECODE, now);
	if (f->end_keys[(uint32_t)(r - f->replicas)] != tbits(t)) /* (none pending: NONE) */
		schedule(f, r, t);
}

/* End of a roofline span: its end_iteration decode iterations are done. */
static void span_done(fleet *f, replica *r, double now)
{
	double k = r->current.end_iteration, n = r->current.batch;
	if (k > 0) {
		f->dram_bytes += span_dram(f, &r->current, k, r->context_tokens);
		f->flops += span_flops(f, &r->current, k, r->context_tokens);
		spec_book(f, &r->current, k, r->context_tokens);
		r->iterations_done += k;
		r->context_tokens += n * k;
		f->tokens_out += n * k;
		f->batch_iterations[r->current.batch] += (uint64_t)k;
		if (f->batching == B_CONTINUOUS)
			f->kv_peak_tokens = r->context_tokens > f->kv_peak_tokens ? r->context_tokens
			                                                          : f->kv_peak_tokens;
	}
	while (r->run_count && run_min(r) <= r->iterations_done)
		complete(f, r, run_pop(r).id, now);
}

static void service_done(fleet *f, replica *r, double now)
{
	while (r->run_count && run_min(r) <= now)
		complete(f, r, run_pop(r).id, now);
}

static void make_ready(fleet *f, replica *r, double now);

static void replica_event(fleet *f, replica *r, double now)
{
	switch (r->span_kind) {
	case SPAN_LOAD:
		make_ready(f, r, now);
		return;
	case SPAN_RUN:
		if (r->pending)
			eager_settle(f, r);
		span_done(f, r, now);
		break;
	case SPAN_SERVICE:
		service_done(f, r, now);
		break;
	default:
		break;
	}
	r->span_kind = SPAN_NONE;
	step(f, r, now);
}

static bool arrive(fleet *f, double now);

/* The one engine event of the component: it runs the span ends and the
 * arrivals that are due, then the next ones for as long as they come before
 * every other event of the sim (most of the time under load), as the engine
 * would have run them, without a push and a pop each. */
static void master_event(aiw_sim *sim, void *ctx, uint64_t arg)
{
	fleet *f = ctx;
	double now = aiwi_now(sim);
	f->master = 0;
	f->in_master = true;
	uint64_t nowb = tbits(now);
	while (!f->fail) {
		/* the earlier of the agenda's first span end and the next arrival
		 * (span ends first at equal times; NONE and +inf's bits are above
		 * every time's): one branch on which it is, rather than a loop
		 * over each kind, whose exits the predictor would miss */
		uint32_t s;
		uint64_t k = ag_top(f, &s), ab = tbits(f->arrival_time);
		bool span = k <= ab;
		uint64_t tb = span ? k : ab;
		if (tb > nowb) {
			double t = btime(tb);
			if (!(t < INFINITY) || !aiwi_engine_run_inline(f->engine, t))
				break;
			now = f->engine->now;
			nowb = tbits(now);
		}
		if (span) {
			/* the replica keeps its entry while it handles its event, so
			 * that a new span end updates its path once; if it scheduled
			 * nothing, its entry goes */
			replica *r = &f->replicas[s];
			if (f->requests) /* (not fetched ahead when no arrival came between) */
				__builtin_prefetch(&f->requests[f->end_out[s]], 1);
			r->rescheduled = 0;
			replica_event(f, r, now);
			if (!r->rescheduled)
				ag_remove(f, r);
			FLEET_CHECK(f);
		} else {
			/* the first span end is most often the next event after
			 * this arrival: its replica's first line comes in
			 * meanwhile (it is out of the cache more often than not),
			 * and so does the request it completes first, read at
			 * random seconds after its last use (a miss per request
			 * otherwise, a fifth of the time on bench/inference_day) */
			if (k != NONE) {
				__builtin_prefetch(&f->replicas[s], 1);
				if (f->requests)
					__builtin_prefetch(&f->requests[f->end_out[s]], 1);
			}
			if (!arrive(f, now))
				break;
			FLEET_CHECK(f);
		}
	}
	f->in_master = false;
	ag_sync(f);
	FLEET_CHECK(f);
}

/* A request became available to r: start it, or cut the running span at its
 * next iteration boundary so that it joins there (continuous). */
static void kick(fleet *f, replica *r, double now)
{
	switch (r->span_kind) {
	case SPAN_NONE:
		step(f, r, now);
		break;
	case SPAN_RUN: {
		if (r->pending) {
			if (now < r->current.start) {
				if (!r->preempted.length) {
					eager_merge(f, r, now);
					break;
				}
				/* requeued requests (a failed replica's) go first at
				 * the boundary: its admissions again, in that order */
				double kb = r->cut_span.end_iteration, tb = r->current.start;
				eager_undo(f, r, now);
				eager_cut(f, r, now, kb, tb);
				break;
			}
			eager_settle(f, r);
		}
		if (f->batching != B_CONTINUOUS || r->cut || batch_held(f, r) >= f->max_batch)
			break;
		double x = now - r->current.start - r->current.prefill_s;
		double tn = NAN; /* T(kb) when span_iterations_by_next computed it */
		double kb = x < 0 ? 0 : span_iterations_by_next(&r->current, x, &tn) + 1;
		r->cut = 1;
		if (kb < r->current.end_iteration) {
			double tb = r->current.start + r->current.prefill_s +
			            (isnan(tn) ? span_time(&r->current, kb) : tn);
			if (!f->eager || !eager_cut(f, r, now, kb, tb)) {
				r->current.end_iteration = kb;
				schedule(f, r, tb);
			}
		}
		break;
	}
	case SPAN_SERVICE:
		if (f->batching == B_CONTINUOUS && r->run_count < f->max_batch)
			step(f, r, now);
		break;
	default:
		break; /* loading: it admits when ready */
	}
}

/* ---- dynamic-batch timers ---- */
static void central_dispatch(fleet *f, double now);

static void timer_event(aiw_sim *sim, void *ctx, uint64_t arg)
{
	fleet *f = ctx;
	double now = aiwi_now(sim);
	if (arg == NIL) {
		f->central_timer = 0;
		central_dispatch(f, now);
		FLEET_CHECK(f);
		return;
	}
	replica *r = &f->replicas[arg];
	r->batch_timer = 0;
	if (r->span_kind == SPAN_NONE)
		step(f, r, now);
	FLEET_CHECK(f);
}

static void ensure_timer(fleet *f, replica *r, double now)
{
	queue *s = source(f, r);
	if (!s->length)
		return;
	double t = f->requests[s->head].arrival + f->max_delay;
	if (s == &f->central) {
		if (!f->central_timer)
			f->central_timer = aiwi_at(f->sim, t, timer_event, f, NIL);
	} else if (!r->batch_timer) {
		r->batch_timer = aiwi_at(f->sim, t, timer_event, f, (uint64_t)(r - f->replicas));
	}
}

/* Central queue: let idle replicas pull; for continuous batching with no
 * idle replica, cut the least loaded busy one that has room. */
static void central_dispatch(fleet *f, double now)
{
	purge(f, &f->central, NULL, now);
	while (f->central.length && f->idle_count) {
		replica *r = &f->replicas[f->idle[f->idle_count - 1]];
		idle_remove(f, (uint32_t)(r - f->replicas));
		step(f, r, now);
		if (r->span_kind == SPAN_NONE) /* rule not met (dynamic): wait for the timer */
			break;
	}
	uint32_t ll;
	if (f->central.length && f->batching == B_CONTINUOUS && f->idle_count == 0 &&
	    (ll = least_loaded(f)) != NIL) {
		replica *r = &f->replicas[ll];
		if (batch_held(f, r) < f->max_batch)
			kick(f, r, now);
	}
	if (f->central.length && f->batching == B_DYNAMIC && f->idle_count && !f->central_timer)
		ensure_timer(f, &f->replicas[f->idle[f->idle_count - 1]], now);
}
