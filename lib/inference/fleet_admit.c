/*
 * fleet_admit.c - request ends (completion, drops, timeouts), admission by
 * batching mode, preemption, and the start of a roofline span.
 * Part of serving.c's translation unit: included by it after fleet.h, not
 * compiled alone (so that the hot path inlines as in one file).
 */

/* ======================================================================== */
/* request ends                                                              */
/* ======================================================================== */
static void drop(fleet *f, uint32_t id, int why)
{
	f->dropped[why]++;
	if (AIW_UNLIKELY(f->sessions))
		session_drop(f, id);
	req_free(f, id);
}

static void disagg_send(fleet *f, replica *r, uint32_t id, double now);

static void complete(fleet *f, replica *r, uint32_t id, double now)
{
	req *q = &f->requests[id];
	if (AIW_UNLIKELY(f->disagg == DIS_PREFILL) && q->output > 1) {
		/* prefilled: its KV cache goes to the decode pool */
		disagg_send(f, r, id, now);
		return;
	}
	double e2e = now - q->arrival;
	bool ok_ttft, ok_tpot = true, ok_e2e = e2e <= f->slo_e2e;
	if (f->service_mode) {
		/* the response arrives whole: first token = completion, one
		 * histogram serves both (see emit_metrics) */
		aiwi_hist_add_fast(&f->ttft_win, e2e);
		ok_ttft = e2e <= f->slo_ttft;
		f->tokens_out += q->output;
	} else {
		aiwi_hist_add_fast(&f->e2e, e2e);
		ok_ttft = q->first_token - q->arrival <= f->slo_ttft;
		if (q->output > 1) {
			double tpot = (now - q->first_token) / (double)(q->output - 1);
			aiwi_hist_add_fast(&f->tpot, tpot);
			ok_tpot = tpot <= f->slo_tpot;
		}
		r->context_tokens -= (double)q->prompt + q->output;
		if (f->batching != B_CONTINUOUS)
			r->reserved_tokens -= (double)q->prompt + q->output;
	}
	f->met_ttft += ok_ttft;
	f->met_tpot += ok_tpot;
	f->met_e2e += ok_e2e;
	f->met_all += ok_ttft && ok_tpot && ok_e2e;
	f->completed++;
	f->running_count--;
	out_add(f, r, -1);
	if (AIW_UNLIKELY(f->sessions))
		session_turn_done(f, r, id, now);
	req_free(f, id);
}

/* Drop the expired requests at the head of a FIFO queue (timeout).  The
 * waiting integral is corrected for the time since each one expired. */
static void purge(fleet *f, queue *q, replica *owner, double now)
{
	if (!(f->timeout < INFINITY))
		return;
	while (q->head != NIL) {
		req *x = &f->requests[q->head];
		double deadline = x->arrival + f->timeout;
		if (x->started || !(now > deadline))
			break;
		uint32_t id = q_pop(f, q);
		waiting_add(f, now, -1);
		f->waiting.sum -= now - deadline;
		if (owner)
			out_add(f, owner, -1);
		drop(f, id, DROP_TIMEOUT);
	}
}

static void purge_all(fleet *f, double now)
{
	if (!(f->timeout < INFINITY))
		return;
	purge(f, &f->central, NULL, now);
	for (uint32_t i = 0; i < f->slot_count; i++)
		if (f->replicas[i].routed.length)
			purge(f, &f->replicas[i].routed, &f->replicas[i], now);
}

/* ======================================================================== */
/* admission                                                                 */
/* ======================================================================== */
static void ensure_timer(fleet *f, replica *r, double now);
static void step(fleet *f, replica *r, double now);

/* Where r admits from: the central queue, or its own (a draining replica
 * takes nothing new). */
static inline queue *source(fleet *f, replica *r)
{
	return f->router == RT_CENTRAL && r->state == AIW_REPLICA_READY ? &f->central : &r->routed;
}

/* Next candidate: preempted first, then the source queue (after expiry). */
static uint32_t peek(fleet *f, replica *r, queue **from, double now)
{
	if (r->preempted.length) {
		*from = &r->preempted;
		return r->preempted.head;
	}
	queue *s = source(f, r);
	purge(f, s, s == &r->routed ? r : NULL, now);
	*from = s;
	return s->head;
}

/* Take the head of `from` into r's batch.  Roofline: its prompt (plus the
 * tokens it already streamed, when it was preempted) is prefilled by the
 * span that starts now, which also yields its next token; prefill[0] gets
 * its length, prefill[1] its square (the iteration model's attention). */
static void take(fleet *f, replica *r, queue *from, double now, double prefill[2])
{
	uint32_t id = q_pop(f, from);
	waiting_add(f, now, -1);
	f->running_count++;
	if (from == &f->central)
		out_add(f, r, +1); /* central: outstanding counts batch members */
	req *q = &f->requests[id];
	/* prefix caching: the tokens of a first admission found cached */
	double hit = 0;
	if (AIW_UNLIKELY(f->prefix))
		f->side[id].hit = (uint32_t)(hit = q->started ? 0 : pc_claim(f, r, id));
	if (!q->started) {
		q->started = 1;
		f->started++;
		f->tokens_in += q->prompt;
		aiwi_hist_add_fast(&f->wait, now - q->arrival);
	}
	if (AIW_UNLIKELY(f->chunked)) {
		/* it prefills by chunks from the next span (fleet_chunk.c): its
		 * context reserved now, its admission order when it decodes */
		r->chunk_reserved += (double)q->prompt + q->generated + 1;
		q_push(f, &r->prefilling, id);
		return;
	}
	uint32_t seq = f->admissions++;
	if (f->service_mode) {
		run_push(f, r, id, now + q->key, seq);
		return;
	}
	if (AIW_UNLIKELY(f->disagg)) {
		if (f->disagg == DIS_DECODE) {
			/* its KV cache came from a prefill pool: no prefill, its
			 * first token given there (fleet_disagg.c) */
			r->context_tokens += (double)q->prompt + q->generated;
			run_push(f, r, id, r->iterations_done + (q->output - q->generated), seq);
			return;
		}
		/* a prefill pool: it leaves at the end of its prefill (its
		 * first token) */
		prefill[0] += (double)q->prompt + q->generated;
		prefill[1] += ((double)q->prompt + q->generated) * ((double)q->prompt + q->generated);
		r->context_tokens += (double)q->prompt + q->generated + 1;
		q->generated++;
		f->admitted[f->admitted_count++] = id;
		run_push(f, r, id, r->iterations_done, seq);
		return;
	}
	double len = (double)q->prompt + q->generated;
	if (AIW_UNLIKELY(f->prefix)) {
		/* the new tokens, their attention over the cached ones too */
		double t = len - hit;
		prefill[0] += t;
		prefill[1] += t * (2 * hit + t);
	} else {
		prefill[0] += len;
		prefill[1] += len * len;
	}
	r->context_tokens += (double)q->prompt + q->generated + 1;
	if (f->batching != B_CONTINUOUS)
		r->reserved_tokens += (double)q->prompt + q->output;
	q->generated++; /* due at the end of the prefill */
	f->admitted[f->admitted_count++] = id;
	/* it leaves after output - gen more decode iterations (0: right after
	 * the prefill); it is preempted at the earliest after that prefill */
	run_push(f, r, id, r->iterations_done + (q->output - q->generated), seq);
}

/* Requests r holds in its batch: running and, chunked, prefilling (what
 * max_batch, vLLM's max_num_seqs, bounds). */
static inline uint32_t batch_held(const fleet *f, const replica *r)
{
	return AIW_UNLIKELY(f->chunked) ? r->run_count + r->prefilling.length : r->run_count;
}

/* Whether a free replica starts a batch now (dynamic) or at all (none). */
static bool batch_ready(fleet *f, replica *r, double now)
{
	if (r->preempted.length)
		return true;
	queue *s = source(f, r);
	purge(f, s, s == &r->routed ? r : NULL, now);
	if (!s->length)
		return false;
	if (f->batching == B_NONE || s->length >= f->max_batch || r->state == AIW_REPLICA_DRAINING)
		return true;
	return now >= f->requests[s->head].arrival + f->max_delay;
}

/* Admit what r's batching allows; returns the count, adds the prompt
 * tokens to prefill to ptok[0], their squared lengths to ptok[1]. */
static uint32_t admit(fleet *f, replica *r, double now, double ptok[2])
{
	uint32_t n0 = r->run_count, k = 0;
	queue *from;
	if (f->batching == B_CONTINUOUS) {
		if (AIW_UNLIKELY(f->chunked)) {
			/* the same rule over what the replica holds: the running
			 * decodes and the prompts prefilling, their reservations */
			uint32_t held;
			while ((held = r->run_count + r->prefilling.length) < f->max_batch) {
				uint32_t id = peek(f, r, &from, now);
				if (id == NIL)
					break;
				const req *q = &f->requests[id];
				double need = (double)q->prompt + q->generated + 1;
				if (held > 0 && r->context_tokens + r->chunk_reserved + need + (held + 1) >
				                        f->kv_capacity_tokens)
					break;
				take(f, r, from, now, ptok);
				k++;
			}
		} else while (r->run_count < f->max_batch) {
			uint32_t id = peek(f, r, &from, now);
			if (id == NIL)
				break;
			const req *q = &f->requests[id];
			if (!f->service_mode) {
				double need = (double)q->prompt + q->generated + 1;
				/* the batch after admission must still fit one more token
				 * per request; an empty replica takes anything that fits */
				if (r->run_count > 0 && r->context_tokens + need + (r->run_count + 1) > f->kv_capacity_tokens)
					break;
			}
			take(f, r, from, now, ptok);
			k++;
		}
	} else if (n0 == 0 && batch_ready(f, r, now)) {
		uint32_t maxb = f->batching == B_NONE ? 1 : f->max_batch;
		double head_arr = NAN;
		while (k < maxb) {
			uint32_t id = peek(f, r, &from, now);
			if (id == NIL)
				break;
			const req *q = &f->requests[id];
			if (k > 0 && !f->service_mode &&
			    r->reserved_tokens + (double)q->prompt + q->output > f->kv_capacity_tokens)
				break;
			if (k == 0)
				head_arr = q->arrival;
			take(f, r, from, now, ptok);
			k++;
		}
		if (k) {
			/* a replica still in a phase other than idle finished its
			 * previous batch just now */
			double free_t = r->phase == PH_IDLE ? r->free_since : now;
			double w = now - fmax(head_arr, free_t);
			if (w > f->batch_wait_max)
				f->batch_wait_max = w;
			if (r->batch_timer) {
				aiwi_cancel(f->sim, r->batch_timer);
				r->batch_timer = 0;
			}
		}
	}
	if (k) {
		uint32_t held = batch_held(f, r);
		f->batch_peak = held > f->batch_peak ? held : f->batch_peak;
		double kv = f->batching == B_CONTINUOUS ? r->context_tokens : r->reserved_tokens;
		if (AIW_UNLIKELY(f->chunked))
			kv += r->chunk_reserved;
		f->kv_peak_tokens = kv > f->kv_peak_tokens ? kv : f->kv_peak_tokens;
		if (r->in_idle)
			idle_remove(f, (uint32_t)(r - f->replicas));
	}
	return k;
}

/* ======================================================================== */
/* replica spans                                                             */
/* ======================================================================== */
/* Preempt the most recently admitted running request (continuous). */
static void preempt_one(fleet *f, replica *r, double now)
{
	uint32_t best = 0, age = UINT32_MAX; /* the youngest: seq counts modulo 2^32 */
	for (uint32_t i = 0; i < r->run_count; i++) {
		uint32_t a = f->admissions - run_at(r, i)->admission;
		if (a < age)
			age = a, best = i;
	}
	run_entry x = run_remove_at(r, best);
	req *q = &f->requests[x.id];
	if (AIW_UNLIKELY(f->prefix))
		pc_unpin(f, r, x.id);
	q->generated = q->output - (uint32_t)(x.key - r->iterations_done);
	r->context_tokens -= (double)q->prompt + q->generated;
	q_push_front(f, &r->preempted, x.id);
	f->running_count--;
	waiting_add(f, now, +1);
	f->preemptions++;
}

/* Start a span at now: the prefill of what was just admitted (tp seconds,
 * none if nothing was), then decode iterations until the first departure or
 * until the KV cache is full. */
/* The prefill of m prompts of ptok > 0 tokens in all, psq the sum of their
 * squared lengths: on the roofline compute-bound or one read of the
 * weights; on the iteration model its folded prefill (span.h). */
static inline double prefill_time(const fleet *f, double m, double ptok, double psq)
{
	if (f->iteration) {
		double t = span_iteration_prefill(f->iter_prefill, m, ptok, psq);
		if (AIW_UNLIKELY(f->moe)) /* the distinct experts of its ptok tokens */
			t += f->moe_read_s[0] * aiwi_iter_moe_distinct(f->moe_E, f->moe_k, ptok);
		return t;
	}
	return span_prefill_time(ptok, f->prefill_s_per_token, f->weights_read_s);
}

/* The decode part of r's span (current) from its running set: the iterations to
 * the first departure (continuous batching: or to a full KV cache; 0 is a
 * boundary right after the prefill, where the preemption happens), and the
 * terms of their times. */
static AIW_INLINE void span_decode(fleet *f, replica *r)
{
	double n = r->run_count;
	double k = run_min(r) - r->iterations_done;
	if (f->batching == B_CONTINUOUS) {
		double kkv = floor_nonneg((f->kv_capacity_tokens - r->context_tokens) / n);
		double kk = kkv > 0 ? kkv : 0;
		k = kkv < k ? kk : k; /* selects: which bound comes first varies */
	}
	/* roofline: decode_s_per_seq = 0 (exact: the same sums as the plain
	 * max(c, a + b j)); iteration: prefill_s_per_token = 0, no floor; a
	 * batch of fewer sequences than pipeline stages: n micro-batches of
	 * one, its GPU terms pp / n times (iteration.h) */
	double kv = f->kv_s_per_token, ds = f->decode_s_per_seq;
	if (AIW_UNLIKELY(n < f->decode_pp)) {
		double g = aiwi_iter_decode_share(n, f->decode_pp);
		kv *= g;
		ds = f->decode_host_s_per_seq + f->decode_gpu_s_per_seq * g;
	}
	double w = f->weights_read_s;
	if (AIW_UNLIKELY(f->moe)) /* the distinct experts of a batch of n: a table */
		w += f->moe_read_s[1] * f->moe_distinct[r->run_count];
	span_decode_terms(&r->current, n, r->context_tokens, f->prefill_s_per_token, w, kv, ds);
	r->current.end_iteration = k;
	r->current.batch = r->run_count;
	r->cut = 0;
}

static void start_chunked(fleet *f, replica *r, double now);

static void start_span(fleet *f, replica *r, double now, uint32_t nadm, const double pf[2])
{
	if (AIW_UNLIKELY(f->chunked) && r->prefilling.length) {
		start_chunked(f, r, now);
		return;
	}
	double tp = 0, ptok = pf[0];
	if (AIW_UNLIKELY(f->disagg == DIS_DECODE))
		nadm = 0; /* (what it admitted came prefilled) */
	if (nadm) {
		f->tokens_prefill += ptok;
		f->flops += prefill_flops(f, ptok, pf[1]);
		f->dram_bytes += f->weight_bytes;
		tp = prefill_time(f, nadm, ptok, pf[1]);
		double t1 = now + tp;
		for (uint32_t i = 0; i < f->admitted_count; i++) {
			req *q = &f->requests[f->admitted[i]];
			if (isnan(q->first_token)) {
				q->first_token = t1;
				aiwi_hist_add_fast(&f->ttft_win, t1 - q->arrival);
			}
		}
		f->tokens_out += nadm;
		if (AIW_UNLIKELY(f->disagg)) {
			f->prefill_spans++;
			f->tokens_prefill_reqs += nadm;
		}
		r->first_admission = f->admissions - nadm; /* the admitted ones have seq >= first_admission */
	} else if (f->batching == B_CONTINUOUS) {
		while (r->run_count > 1 && r->context_tokens + r->run_count > f->kv_capacity_tokens)
			preempt_one(f, r, now);
	}
	r->current.start = now;
	r->current.prefill_s = tp;
	r->current.prefill_tokens = nadm ? ptok : 0;
	r->prefill_sq = nadm ? pf[1] : 0;
	r->current.first_tokens = nadm;
	span_decode(f, r);
	if (AIW_UNLIKELY(f->prefix))
		pc_fit(f, r, r->context_tokens + (double)r->run_count * r->current.end_iteration);
	r->span_kind = SPAN_RUN;
	set_phase(f, r, PH_DECODE, now);
	batch_level(f, r, r->current.batch, now);
	if (tp > 0)
		book_prefill(f, r, tp, +1);
	schedule(f, r, now + tp + span_time(&r->current, r->current.end_iteration));
}
