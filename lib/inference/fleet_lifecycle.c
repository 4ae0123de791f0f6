/*
 * fleet_lifecycle.c - replica lifecycle: new slots, ready, add, remove
 * (drain), fail.
 * Part of serving.c's translation unit: included by it after fleet.h, not
 * compiled alone (so that the hot path inlines as in one file).
 */

/* ======================================================================== */
/* replica lifecycle                                                         */
/* ======================================================================== */
static int slot_new(fleet *f)
{
	if (f->free_count)
		return (int)free_pop(f);
	if (f->slot_count >= MAX_SLOTS)
		return aiwi_err(f->sim, AIW_ELIMIT, "%s: more than %u replica slots", f->comp->prefix,
		                MAX_SLOTS);
	if (f->slot_count == f->slot_capacity) {
		uint32_t n = f->slot_capacity ? 2 * f->slot_capacity : 16;
		/* aligned to a cache line, as replica is (its layout is by line) */
		replica *p = aligned_alloc(_Alignof(replica), (size_t)n * sizeof *p);
		if (!p)
			return aiwi_err(f->sim, AIW_ENOMEM, "out of memory");
		if (f->slot_count)
			memcpy(p, f->replicas, (size_t)f->slot_count * sizeof *p);
		free(f->replicas);
		f->replicas = p;
		struct bucket_link *bl = realloc(f->bucket_links, (size_t)n * sizeof *bl);
		if (!bl)
			return aiwi_err(f->sim, AIW_ENOMEM, "out of memory");
		f->bucket_links = bl;
		uint32_t *a = realloc(f->ready, (size_t)n * sizeof *a);
		if (!a)
			return aiwi_err(f->sim, AIW_ENOMEM, "out of memory");
		f->ready = a;
		uint32_t *b = realloc(f->idle, (size_t)n * sizeof *b);
		if (!b)
			return aiwi_err(f->sim, AIW_ENOMEM, "out of memory");
		f->idle = b;
		uint32_t *h = realloc(f->free_heap, (size_t)n * sizeof *h);
		if (!h)
			return aiwi_err(f->sim, AIW_ENOMEM, "out of memory");
		f->free_heap = h;
		if (f->batch_power) {
			double *x = realloc(f->slot_extra_w, (size_t)n * sizeof *x);
			if (!x)
				return aiwi_err(f->sim, AIW_ENOMEM, "out of memory");
			f->slot_extra_w = x;
		}
		f->slot_capacity = n;
	}
	if (!ag_grow(f, f->slot_count + 1))
		return aiwi_err(f->sim, AIW_ENOMEM, "out of memory");
	replica *r = &f->replicas[f->slot_count];
	memset(r, 0, sizeof *r);
	if (f->batch_power)
		f->slot_extra_w[f->slot_count] = 0;
	double first = (double)f->slot_count * f->replica_gpus;
	r->first_rack = (uint32_t)(first / f->gpus_per_rack);
	r->last_rack = (uint32_t)((first + f->replica_gpus - 1) / f->gpus_per_rack);
	r->state = AIW_REPLICA_FREE; /* a new slot: counted FREE, no transition */
	r->phase = PH_OFF;
	f->phase_count[PH_OFF]++;
	f->state_count[AIW_REPLICA_FREE]++;
	return (int)f->slot_count++;
}

static void make_ready(fleet *f, replica *r, double now)
{
	uint32_t id = (uint32_t)(r - f->replicas);
	aiwi_site_cause(f->sim, AIWI_CAUSE_SCALE_UP);
	set_state(f, r, AIW_REPLICA_READY);
	r->span_kind = SPAN_NONE;
	set_phase(f, r, PH_IDLE, now);
	r->free_since = now;
	ready_add(f, id);
	if (f->router == RT_CENTRAL)
		idle_add(f, id);
	reroute_central(f, now);
	if (r->span_kind == SPAN_NONE && r->state == AIW_REPLICA_READY)
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
	replica *r = &f->replicas[s];
	double now = aiwi_now(c->sim);
	q_init(&r->routed);
	q_init(&r->preempted);
	q_init(&r->prefilling);
	r->chunk_done = r->chunk_reserved = 0;
	r->cached_blocks = 0;
	r->lru_head = r->lru_tail = NIL;
	if (!sys_nodes_fit(f, (size_t)s + 1))
		return aiwi_err(c->sim, AIW_ENOMEM, "out of memory");
	run_clear(r);
	r->context_tokens = r->reserved_tokens = r->iterations_done = 0;
	r->outstanding = 0;
	r->batch_timer = 0;
	r->in_bucket = r->in_idle = r->cut = 0;
	r->spot = spot ? 1 : 0;
	aiwi_site_cause(c->sim, AIWI_CAUSE_SCALE_UP);
	set_state(f, r, AIW_REPLICA_LOADING);
	r->span_kind = SPAN_LOAD;
	set_phase(f, r, PH_LOADING, now);
	if (AIW_UNLIKELY(f->failures))
		failure_arm(f, (uint32_t)s, now);
	if (cold_start_s > 0)
		schedule(f, r, now + cold_start_s);
	else
		make_ready(f, r, now);
	FLEET_CHECK(f);
	return f->fail ? AIW_ENOMEM : s;
}

static bool valid_id(const fleet *f, int id)
{
	return id >= 0 && (uint32_t)id < f->slot_count && f->replicas[id].state != AIW_REPLICA_FREE;
}

int aiwi_serving_remove_replica(aiwi_comp *c, int id)
{
	if (!aiwi_serving_active(c))
		return AIW_ESTATE;
	fleet *f = F_(c);
	double now = aiwi_now(c->sim);
	aiwi_site_cause(c->sim, AIWI_CAUSE_SCALE_DOWN);
	if (id < 0) {
		for (uint32_t i = f->slot_count; i-- > 0;)
			if (f->replicas[i].state == AIW_REPLICA_LOADING) {
				id = (int)i;
				break;
			}
		if (id < 0 && f->ready_count) {
			uint32_t ll = least_loaded(f);
			id = (int)(ll != NIL ? ll : f->ready[0]);
		}
		if (id < 0)
			return aiwi_err(c->sim, AIW_ESTATE, "%s: no loading or ready replica to remove",
			                c->prefix);
	} else if (!valid_id(f, id) || f->replicas[id].state == AIW_REPLICA_DRAINING) {
		return aiwi_err(c->sim, AIW_EINVAL, "%s: replica %d is not loading or ready",
		                c->prefix, id);
	}
	replica *r = &f->replicas[id];
	if (r->state == AIW_REPLICA_LOADING) {
		retire(f, r, now);
		FLEET_CHECK(f);
		return id;
	}
	ready_remove(f, (uint32_t)id);
	idle_remove(f, (uint32_t)id);
	set_state(f, r, AIW_REPLICA_DRAINING);
	if (r->batch_timer) { /* a draining replica serves what it holds without waiting */
		aiwi_cancel(f->sim, r->batch_timer);
		r->batch_timer = 0;
	}
	if (r->span_kind == SPAN_NONE) {
		if (r->outstanding == 0)
			retire(f, r, now);
		else
			step(f, r, now);
	}
	FLEET_CHECK(f);
	return id;
}

/* Replica id (provisioned) lost now: what it ran is booked to now, and
 * every request it held goes back to the router (requeue) or, drop_them,
 * is dropped with reason failure.  ctx_lost grows by the KV context its
 * running requests held (prompt and tokens so far; a prefill caught
 * midway for its part done; the chunks prefilled of its prefilling
 * prompts). */
static aiw_status fail_slot(fleet *f, int id, bool drop_them)
{
	aiwi_comp *c = f->comp;
	double now = aiwi_now(c->sim);
	replica *r = &f->replicas[id];
	if (r->pending) {
		if (now < r->current.start)
			eager_undo(f, r, now);
		else
			eager_settle(f, r);
	}
	uint32_t nhold = r->run_count + r->prefilling.length + r->preempted.length + r->routed.length;
	uint32_t *hold = nhold ? malloc((size_t)nhold * sizeof *hold) : NULL;
	if (nhold && !hold)
		return aiwi_err(c->sim, AIW_ENOMEM, "out of memory");
	uint32_t k = 0;
	if (r->span_kind == SPAN_RUN) {
		/* the state at now (no pending start: settled or undone above):
		 * decode iterations done, the prefill not yet finished (its
		 * tokens, FLOPs, bytes and surcharge were booked ahead: take back
		 * what lies after now) */
		progress p = span_progress(f, r, now);
		FLEET_REQUIRE(f, p.sp == &r->current);
		bool in_prefill = p.in_prefill;
		r->iterations_done += p.k;
		f->tokens_out += r->current.batch * p.k;
		f->flops += span_flops(f, &r->current, p.k, p.S);
		f->dram_bytes += span_dram(f, &r->current, p.k, p.S);
		spec_book(f, &r->current, p.k, p.S);
		f->batch_iterations[r->current.batch] += (uint64_t)p.k;
		if (in_prefill) {
			book_prefill(f, r, r->current.start + r->current.prefill_s - now, -1);
			f->tokens_out -= r->current.first_tokens;
			if (f->chunked) {
				/* a mixed iteration (fleet_chunk.c): its decoders' token
				 * never came either */
				f->flops -= r->mixed_flops * p.undone;
				f->dram_bytes -= r->mixed_dram * p.undone;
				r->iterations_done -= 1;
			} else {
				f->flops -= prefill_flops(f, r->current.prefill_tokens, p.Q) * p.undone;
				f->dram_bytes -= f->weight_bytes * p.undone;
			}
			f->tokens_prefill -= r->current.prefill_tokens * p.undone;
		}
		for (uint32_t i = 0; i < r->run_count; i++) {
			req *q = &f->requests[run_at(r, i)->id];
			/* admitted by this span: since first_admission */
			if (in_prefill && (uint32_t)(run_at(r, i)->admission - r->first_admission) <
			                          (uint32_t)(f->admissions - r->first_admission)) {
				q->generated--; /* its prefill token never came */
				if (q->first_token == r->current.start + r->current.prefill_s)
					q->first_token = NAN; /* (its TTFT sample stays recorded) */
				f->ctx_lost += ((double)q->prompt + q->generated) * (1 - p.undone);
			} else {
				q->generated = q->output - (uint32_t)(run_at(r, i)->key - r->iterations_done);
				f->ctx_lost += (double)q->prompt + q->generated;
			}
		}
	}
	for (uint32_t i = 0; i < r->run_count; i++) {
		const run_entry *e = run_at(r, i);
		req *q = &f->requests[e->id];
		if (f->service_mode) /* what is left of its service */
			q->key = e->key > now ? e->key - now : 0;
		hold[k++] = e->id;
	}
	uint32_t nrun = r->run_count + r->prefilling.length;
	f->ctx_lost += r->chunk_done;
	while (r->prefilling.length) { /* their chunks are lost with the replica */
		hold[k] = q_pop(f, &r->prefilling);
		if (AIW_UNLIKELY(f->chunk_threshold > 0) && hold[k] < f->chunk_prog_capacity)
			f->chunk_prog[hold[k]] = 0; /* (fleet_chunk.c, chunks_capped) */
		k++;
	}
	if (f->prefix) /* (the cache goes with the replica: retire) */
		for (uint32_t i = 0; i < nrun; i++)
			pc_unpin(f, r, hold[i]);
	r->chunk_done = r->chunk_reserved = 0;
	f->running_count -= nrun;
	f->preemptions += nrun;
	waiting_add(f, now, (int)nrun);
	while (r->preempted.length)
		hold[k++] = q_pop(f, &r->preempted);
	while (r->routed.length)
		hold[k++] = q_pop(f, &r->routed);
	run_clear(r);
	r->context_tokens = r->reserved_tokens = 0;
	if (r->in_bucket)
		bucket_remove(f, (uint32_t)id);
	r->outstanding = 0;
	retire(f, r, now);
	/* the router's queue takes them in front: requeue in reverse there to
	 * keep their order; a replica's preempted list takes them at the back */
	waiting_add(f, now, -(int)k);
	bool front = f->router == RT_CENTRAL || f->ready_count == 0;
	for (uint32_t i = 0; i < k; i++) {
		if (AIW_UNLIKELY(drop_them))
			drop(f, hold[i], DROP_FAILURE);
		else
			route(f, hold[front ? k - 1 - i : i], REQUEUE, now);
	}
	free(hold);
	FLEET_CHECK(f);
	return AIW_OK;
}

aiw_status aiwi_serving_fail_replica(aiwi_comp *c, int id)
{
	if (!aiwi_serving_active(c))
		return AIW_ESTATE;
	fleet *f = F_(c);
	if (!valid_id(f, id))
		return aiwi_err(c->sim, AIW_EINVAL, "%s: replica %d is not provisioned", c->prefix, id);
	aiwi_site_cause(c->sim, f->replicas[id].spot ? AIWI_CAUSE_PREEMPTION : AIWI_CAUSE_FAILURE);
	return fail_slot(f, id, false);
}
