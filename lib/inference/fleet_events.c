/*
 * fleet_events.c - the events: a slot leaving service or going idle, the next step
 * of a replica, span and service ends, the master event, cuts for a new
 * request (kick), dynamic-batch timers, the central router's dispatch.
 * Part of serving.c's translation unit: included by it after fleet.h, not
 * compiled alone (so that the hot path inlines as in one file).
 */

static void retire(fleet *f, replica *r, double now)
{
	uint32_t id = (uint32_t)(r - f->rep);
	ag_remove(f, r);
	if (r->tmr) {
		aiwi_cancel(f->sim, r->tmr);
		r->tmr = 0;
	}
	if (r->state == AIW_REPLICA_READY)
		ready_remove(f, id);
	idle_remove(f, id);
	f->nstate[r->state]--;
	r->state = AIW_REPLICA_FREE;
	f->nstate[AIW_REPLICA_FREE]++;
	free_push(f, id);
	r->span = SPAN_NONE;
	set_phase(f, r, PH_OFF, now);
	r->spot = 0;
}

static void go_idle(fleet *f, replica *r, double now)
{
	r->span = SPAN_NONE;
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
		idle_add(f, (uint32_t)(r - f->rep));
}

static void step(fleet *f, replica *r, double now)
{
	if (r->state != AIW_REPLICA_READY && r->state != AIW_REPLICA_DRAINING)
		return;
	double ptok = 0;
	f->nadm = 0;
	uint32_t nadm = admit(f, r, now, &ptok);
	if (r->nrun == 0) {
		go_idle(f, r, now);
		return;
	}
	if (!f->service_mode) {
		start_span(f, r, now, nadm, ptok);
		return;
	}
	double t = run_min(r);
	r->span = SPAN_SERVICE;
	set_phase(f, r, PH_DECODE, now);
	if (f->ak[(uint32_t)(r - f->rep)] != tbits(t)) /* (none pending: NONE) */
		schedule(f, r, t);
}

/* End of a roofline span: its k_end decode iterations are done. */
static void span_done(fleet *f, replica *r, double now)
{
	double k = r->sp.k_end, n = r->sp.n;
	if (k > 0) {
		r->it += k;
		r->S += n * k;
		f->tokens_out += n * k;
		f->flops += 2 * f->P * n * k;
		f->bs[r->sp.n] += (uint64_t)k;
		if (f->batching == B_CONTINUOUS)
			f->kv_peak_tokens = r->S > f->kv_peak_tokens ? r->S : f->kv_peak_tokens;
	}
	while (r->nrun && run_min(r) <= r->it)
		complete(f, r, run_pop(r).id, now);
}

static void service_done(fleet *f, replica *r, double now)
{
	while (r->nrun && run_min(r) <= now)
		complete(f, r, run_pop(r).id, now);
}

static void make_ready(fleet *f, replica *r, double now);

static void replica_event(fleet *f, replica *r, double now)
{
	switch (r->span) {
	case SPAN_LOAD:
		make_ready(f, r, now);
		return;
	case SPAN_RUN:
		if (r->pend)
			eager_settle(f, r);
		span_done(f, r, now);
		break;
	case SPAN_SERVICE:
		service_done(f, r, now);
		break;
	default:
		break;
	}
	r->span = SPAN_NONE;
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
		uint64_t k = ag_top(f, &s), ab = tbits(f->arr_t);
		bool span = k <= ab;
		uint64_t tb = span ? k : ab;
		if (tb > nowb) {
			double t = btime(tb);
			if (!(t < INFINITY) || !aiwi_engine_run_inline(f->eng, t))
				break;
			now = f->eng->now;
			nowb = tbits(now);
		}
		if (span) {
			/* the replica keeps its entry while it handles its event, so
			 * that a new span end updates its path once; if it scheduled
			 * nothing, its entry goes */
			replica *r = &f->rep[s];
			r->resched = 0;
			replica_event(f, r, now);
			if (!r->resched)
				ag_remove(f, r);
		} else {
			/* the first span end is most often the next event after
			 * this arrival: its replica's first line comes in
			 * meanwhile (it is out of the cache more often than not) */
			if (k != NONE)
				__builtin_prefetch(&f->rep[s], 1);
			if (!arrive(f, now))
				break;
		}
	}
	f->in_master = false;
	ag_sync(f);
}

/* A request became available to r: start it, or cut the running span at its
 * next iteration boundary so that it joins there (continuous). */
static void kick(fleet *f, replica *r, double now)
{
	switch (r->span) {
	case SPAN_NONE:
		step(f, r, now);
		break;
	case SPAN_RUN: {
		if (r->pend) {
			if (now < r->sp.t0) {
				if (!r->pre.len) {
					eager_merge(f, r, now);
					break;
				}
				/* requeued requests (a failed replica's) go first at
				 * the boundary: its admissions again, in that order */
				double kb = r->pv.k_end, tb = r->sp.t0;
				eager_undo(f, r, now);
				eager_cut(f, r, now, kb, tb);
				break;
			}
			eager_settle(f, r);
		}
		if (f->batching != B_CONTINUOUS || r->cut || r->nrun >= f->max_batch)
			break;
		double x = now - r->sp.t0 - r->sp.tp;
		double tn = NAN; /* T(kb) when span_done_by_next computed it */
		double kb = x < 0 ? 0 : span_done_by_next(&r->sp, x, &tn) + 1;
		r->cut = 1;
		if (kb < r->sp.k_end) {
			double tb = r->sp.t0 + r->sp.tp + (isnan(tn) ? span_T(&r->sp, kb) : tn);
			if (!f->eager || !eager_cut(f, r, now, kb, tb)) {
				r->sp.k_end = kb;
				schedule(f, r, tb);
			}
		}
		break;
	}
	case SPAN_SERVICE:
		if (f->batching == B_CONTINUOUS && r->nrun < f->max_batch)
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
		f->cq_tmr = 0;
		central_dispatch(f, now);
		return;
	}
	replica *r = &f->rep[arg];
	r->tmr = 0;
	if (r->span == SPAN_NONE)
		step(f, r, now);
}

static void ensure_timer(fleet *f, replica *r, double now)
{
	queue *s = source(f, r);
	if (!s->len)
		return;
	double t = f->rq[s->head].t_arr + f->max_delay;
	if (s == &f->cq) {
		if (!f->cq_tmr)
			f->cq_tmr = aiwi_at(f->sim, t, timer_event, f, NIL);
	} else if (!r->tmr) {
		r->tmr = aiwi_at(f->sim, t, timer_event, f, (uint64_t)(r - f->rep));
	}
}

/* Central queue: let idle replicas pull; for continuous batching with no
 * idle replica, cut the least loaded busy one that has room. */
static void central_dispatch(fleet *f, double now)
{
	purge(f, &f->cq, NULL, now);
	while (f->cq.len && f->nidle) {
		replica *r = &f->rep[f->idle[f->nidle - 1]];
		idle_remove(f, (uint32_t)(r - f->rep));
		step(f, r, now);
		if (r->span == SPAN_NONE) /* rule not met (dynamic): wait for the timer */
			break;
	}
	uint32_t ll;
	if (f->cq.len && f->batching == B_CONTINUOUS && f->nidle == 0 &&
	    (ll = least_loaded(f)) != NIL) {
		replica *r = &f->rep[ll];
		if (r->nrun < f->max_batch)
			kick(f, r, now);
	}
	if (f->cq.len && f->batching == B_DYNAMIC && f->nidle && !f->cq_tmr)
		ensure_timer(f, &f->rep[f->idle[f->nidle - 1]], now);
}
