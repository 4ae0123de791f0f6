/*
 * fleet_lifecycle.c - replica lifecycle: new slots, ready, add, remove (drain), fail.
 * Part of serving.c's translation unit: included by it after fleet.h, not
 * compiled alone (so that the hot path inlines as in one file).
 */

/* ======================================================================== */
/* replica lifecycle                                                         */
/* ======================================================================== */
static int slot_new(fleet *f)
{
	if (f->nfree)
		return (int)free_pop(f);
	if (f->nslots >= MAX_SLOTS)
		return aiwi_err(f->sim, AIW_ELIMIT, "%s: more than %u replica slots", f->c->prefix,
		                MAX_SLOTS);
	if (f->nslots == f->capslots) {
		uint32_t n = f->capslots ? 2 * f->capslots : 16;
		/* aligned to a cache line, as replica is (its layout is by line) */
		replica *p = aligned_alloc(_Alignof(replica), (size_t)n * sizeof *p);
		if (!p)
			return aiwi_err(f->sim, AIW_ENOMEM, "out of memory");
		if (f->nslots)
			memcpy(p, f->rep, (size_t)f->nslots * sizeof *p);
		free(f->rep);
		f->rep = p;
		struct blink *bl = realloc(f->bl, (size_t)n * sizeof *bl);
		if (!bl)
			return aiwi_err(f->sim, AIW_ENOMEM, "out of memory");
		f->bl = bl;
		uint32_t *a = realloc(f->ready, (size_t)n * sizeof *a);
		if (!a)
			return aiwi_err(f->sim, AIW_ENOMEM, "out of memory");
		f->ready = a;
		uint32_t *b = realloc(f->idle, (size_t)n * sizeof *b);
		if (!b)
			return aiwi_err(f->sim, AIW_ENOMEM, "out of memory");
		f->idle = b;
		uint32_t *h = realloc(f->freeh, (size_t)n * sizeof *h);
		if (!h)
			return aiwi_err(f->sim, AIW_ENOMEM, "out of memory");
		f->freeh = h;
		f->capslots = n;
	}
	if (!ag_grow(f, f->nslots + 1))
		return aiwi_err(f->sim, AIW_ENOMEM, "out of memory");
	replica *r = &f->rep[f->nslots];
	memset(r, 0, sizeof *r);
	double first = (double)f->nslots * f->g;
	r->rack0 = (uint32_t)(first / f->gpr);
	r->rack1 = (uint32_t)((first + f->g - 1) / f->gpr);
	r->state = AIW_REPLICA_FREE;
	r->phase = PH_OFF;
	f->nph[PH_OFF]++;
	f->nstate[AIW_REPLICA_FREE]++;
	return (int)f->nslots++;
}

static void make_ready(fleet *f, replica *r, double now)
{
	uint32_t id = (uint32_t)(r - f->rep);
	f->nstate[r->state]--;
	r->state = AIW_REPLICA_READY;
	f->nstate[AIW_REPLICA_READY]++;
	r->span = SPAN_NONE;
	set_phase(f, r, PH_IDLE, now);
	r->free_since = now;
	ready_add(f, id);
	if (f->router == RT_CENTRAL)
		idle_add(f, id);
	reroute_central(f, now);
	if (r->span == SPAN_NONE && r->state == AIW_REPLICA_READY)
		step(f, r, now);
}

int aiwi_serving_add_replica(aiwi_comp *c, double cold_start_s, bool spot)
{
	if (!aiwi_serving_active(c))
		return AIW_ESTATE;
	fleet *f = F_(c);
	if (!(cold_start_s >= 0) || !isfinite(cold_start_s))
		return aiwi_err(c->sim, AIW_ERANGE, "%s: cold start %g s must be finite and >= 0",
		                c->prefix, cold_start_s);
	int s = slot_new(f);
	if (s < 0)
		return s;
	replica *r = &f->rep[s];
	double now = aiwi_now(c->sim);
	q_init(&r->q);
	q_init(&r->pre);
	run_clear(r);
	r->S = r->resv = r->it = 0;
	r->outstanding = 0;
	r->tmr = 0;
	r->inb = r->in_idle = r->cut = 0;
	r->spot = spot ? 1 : 0;
	f->nstate[AIW_REPLICA_FREE]--;
	r->state = AIW_REPLICA_LOADING;
	f->nstate[AIW_REPLICA_LOADING]++;
	r->span = SPAN_LOAD;
	set_phase(f, r, PH_LOADING, now);
	if (cold_start_s > 0)
		schedule(f, r, now + cold_start_s);
	else
		make_ready(f, r, now);
	return f->fail ? AIW_ENOMEM : s;
}

static bool valid_id(const fleet *f, int id)
{
	return id >= 0 && (uint32_t)id < f->nslots && f->rep[id].state != AIW_REPLICA_FREE;
}

int aiwi_serving_remove_replica(aiwi_comp *c, int id)
{
	if (!aiwi_serving_active(c))
		return AIW_ESTATE;
	fleet *f = F_(c);
	double now = aiwi_now(c->sim);
	if (id < 0) {
		for (uint32_t i = f->nslots; i-- > 0;)
			if (f->rep[i].state == AIW_REPLICA_LOADING) {
				id = (int)i;
				break;
			}
		if (id < 0 && f->nready) {
			uint32_t ll = least_loaded(f);
			id = (int)(ll != NIL ? ll : f->ready[0]);
		}
		if (id < 0)
			return aiwi_err(c->sim, AIW_ESTATE, "%s: no loading or ready replica to remove",
			                c->prefix);
	} else if (!valid_id(f, id) || f->rep[id].state == AIW_REPLICA_DRAINING) {
		return aiwi_err(c->sim, AIW_EINVAL, "%s: replica %d is not loading or ready",
		                c->prefix, id);
	}
	replica *r = &f->rep[id];
	if (r->state == AIW_REPLICA_LOADING) {
		retire(f, r, now);
		return id;
	}
	ready_remove(f, (uint32_t)id);
	idle_remove(f, (uint32_t)id);
	f->nstate[r->state]--;
	r->state = AIW_REPLICA_DRAINING;
	f->nstate[AIW_REPLICA_DRAINING]++;
	if (r->tmr) { /* a draining replica serves what it holds without waiting */
		aiwi_cancel(f->sim, r->tmr);
		r->tmr = 0;
	}
	if (r->span == SPAN_NONE) {
		if (r->outstanding == 0)
			retire(f, r, now);
		else
			step(f, r, now);
	}
	return id;
}

aiw_status aiwi_serving_fail_replica(aiwi_comp *c, int id)
{
	if (!aiwi_serving_active(c))
		return AIW_ESTATE;
	fleet *f = F_(c);
	if (!valid_id(f, id))
		return aiwi_err(c->sim, AIW_EINVAL, "%s: replica %d is not provisioned", c->prefix, id);
	double now = aiwi_now(c->sim);
	replica *r = &f->rep[id];
	if (r->pend) {
		if (now < r->sp.t0)
			eager_undo(f, r, now);
		else
			eager_settle(f, r);
	}
	uint32_t nhold = r->nrun + r->pre.len + r->q.len;
	uint32_t *hold = nhold ? malloc((size_t)nhold * sizeof *hold) : NULL;
	if (nhold && !hold)
		return aiwi_err(c->sim, AIW_ENOMEM, "out of memory");
	uint32_t k = 0;
	if (r->span == SPAN_RUN) {
		/* the state at now: decode iterations done, the prefill not yet
		 * finished (its tokens were booked ahead: take them back) */
		double x = now - r->sp.t0 - r->sp.tp;
		bool in_prefill = x < 0;
		double done = in_prefill ? 0 : fmin(span_done_by(&r->sp, x), r->sp.k_end);
		r->it += done;
		f->tokens_out += r->sp.n * done;
		f->flops += 2 * f->P * r->sp.n * done;
		f->bs[r->sp.n] += (uint64_t)done;
		if (in_prefill) {
			double undone = (r->sp.t0 + r->sp.tp - now) / r->sp.tp;
			book_prefill(f, r, r->sp.t0 + r->sp.tp - now, -1);
			f->tokens_out -= r->sp.nfirst;
			f->flops -= 2 * f->P * r->sp.ptok * undone;
			f->tokens_prefill -= r->sp.ptok * undone;
		}
		for (uint32_t i = 0; i < r->nrun; i++) {
			req *q = &f->rq[run_at(r, i)->id];
			/* admitted by this span: since seq0 */
			if (in_prefill && (uint32_t)(run_at(r, i)->seq - r->seq0) < (uint32_t)(f->seq - r->seq0)) {
				q->gen--; /* its prefill token never came */
				if (q->t_first == r->sp.t0 + r->sp.tp)
					q->t_first = NAN; /* (its TTFT sample stays recorded) */
			} else {
				q->gen = q->output - (uint32_t)(run_at(r, i)->key - r->it);
			}
		}
	}
	for (uint32_t i = 0; i < r->nrun; i++) {
		const rent *e = run_at(r, i);
		req *q = &f->rq[e->id];
		if (f->service_mode) /* what is left of its service */
			q->key = e->key > now ? e->key - now : 0;
		hold[k++] = e->id;
	}
	uint32_t nrun = r->nrun;
	f->nrunning -= nrun;
	f->preemptions += nrun;
	waiting_add(f, now, (int)nrun);
	while (r->pre.len)
		hold[k++] = q_pop(f, &r->pre);
	while (r->q.len)
		hold[k++] = q_pop(f, &r->q);
	run_clear(r);
	r->S = r->resv = 0;
	if (r->inb)
		bucket_remove(f, (uint32_t)id);
	r->outstanding = 0;
	retire(f, r, now);
	/* the router's queue takes them in front: requeue in reverse there to
	 * keep their order; a replica's preempted list takes them at the back */
	waiting_add(f, now, -(int)k);
	bool front = f->router == RT_CENTRAL || f->nready == 0;
	for (uint32_t i = 0; i < k; i++)
		route(f, hold[front ? k - 1 - i : i], REQUEUE, now);
	free(hold);
	return AIW_OK;
}
