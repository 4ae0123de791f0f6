/*
 * fleet_admit.c - request ends (completion, drops, timeouts), admission by batching
 * mode, preemption, and the start of a roofline span.
 * Part of serving.c's translation unit: included by it after fleet.h, not
 * compiled alone (so that the hot path inlines as in one file).
 */

/* ======================================================================== */
/* request ends                                                              */
/* ======================================================================== */
static void drop(fleet *f, uint32_t id, int why)
{
	f->dropped[why]++;
	req_free(f, id);
}

static void complete(fleet *f, replica *r, uint32_t id, double now)
{
	req *q = &f->rq[id];
	double e2e = now - q->t_arr;
	bool ok_ttft, ok_tpot = true, ok_e2e = e2e <= f->slo_e2e;
	if (f->service_mode) {
		/* the response arrives whole: first token = completion, one
		 * histogram serves both (see emit_metrics) */
		aiwi_hist_add_fast(&f->ttft_win, e2e);
		ok_ttft = e2e <= f->slo_ttft;
		f->tokens_out += q->output;
	} else {
		aiwi_hist_add_fast(&f->e2e, e2e);
		ok_ttft = q->t_first - q->t_arr <= f->slo_ttft;
		if (q->output > 1) {
			double tpot = (now - q->t_first) / (double)(q->output - 1);
			aiwi_hist_add_fast(&f->tpot, tpot);
			ok_tpot = tpot <= f->slo_tpot;
		}
		r->S -= (double)q->prompt + q->output;
		if (f->batching != B_CONTINUOUS)
			r->resv -= (double)q->prompt + q->output;
	}
	f->met_ttft += ok_ttft;
	f->met_tpot += ok_tpot;
	f->met_e2e += ok_e2e;
	f->met_all += ok_ttft && ok_tpot && ok_e2e;
	f->completed++;
	f->nrunning--;
	out_add(f, r, -1);
	req_free(f, id);
}

/* Drop the expired requests at the head of a FIFO queue (timeout).  The
 * waiting integral is corrected for the time since each one expired. */
static void purge(fleet *f, queue *q, replica *owner, double now)
{
	if (!(f->timeout < INFINITY))
		return;
	while (q->head != NIL) {
		req *x = &f->rq[q->head];
		double deadline = x->t_arr + f->timeout;
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
	purge(f, &f->cq, NULL, now);
	for (uint32_t i = 0; i < f->nslots; i++)
		if (f->rep[i].q.len)
			purge(f, &f->rep[i].q, &f->rep[i], now);
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
	return f->router == RT_CENTRAL && r->state == AIW_REPLICA_READY ? &f->cq : &r->q;
}

/* Next candidate: preempted first, then the source queue (after expiry). */
static uint32_t peek(fleet *f, replica *r, queue **from, double now)
{
	if (r->pre.len) {
		*from = &r->pre;
		return r->pre.head;
	}
	queue *s = source(f, r);
	purge(f, s, s == &r->q ? r : NULL, now);
	*from = s;
	return s->head;
}

/* Take the head of `from` into r's batch.  Roofline: its prompt (plus the
 * tokens it already streamed, when it was preempted) is prefilled by the
 * span that starts now, which also yields its next token. */
static void take(fleet *f, replica *r, queue *from, double now, double *prefill_tokens)
{
	uint32_t id = q_pop(f, from);
	waiting_add(f, now, -1);
	f->nrunning++;
	if (from == &f->cq)
		out_add(f, r, +1); /* central: outstanding counts batch members */
	req *q = &f->rq[id];
	if (!q->started) {
		q->started = 1;
		f->started++;
		f->tokens_in += q->prompt;
		aiwi_hist_add_fast(&f->wait, now - q->t_arr);
	}
	uint32_t seq = f->seq++;
	if (f->service_mode) {
		run_push(f, r, id, now + q->key, seq);
		return;
	}
	*prefill_tokens += (double)q->prompt + q->gen;
	r->S += (double)q->prompt + q->gen + 1;
	if (f->batching != B_CONTINUOUS)
		r->resv += (double)q->prompt + q->output;
	q->gen++; /* due at the end of the prefill */
	f->adm[f->nadm++] = id;
	/* it leaves after output - gen more decode iterations (0: right after
	 * the prefill); it is preempted at the earliest after that prefill */
	run_push(f, r, id, r->it + (q->output - q->gen), seq);
}

/* Whether a free replica starts a batch now (dynamic) or at all (none). */
static bool batch_ready(fleet *f, replica *r, double now)
{
	if (r->pre.len)
		return true;
	queue *s = source(f, r);
	purge(f, s, s == &r->q ? r : NULL, now);
	if (!s->len)
		return false;
	if (f->batching == B_NONE || s->len >= f->max_batch || r->state == AIW_REPLICA_DRAINING)
		return true;
	return now >= f->rq[s->head].t_arr + f->max_delay;
}

/* Admit what r's batching allows; returns the count, adds the prompt
 * tokens to prefill to *ptok. */
static uint32_t admit(fleet *f, replica *r, double now, double *ptok)
{
	uint32_t n0 = r->nrun, k = 0;
	queue *from;
	if (f->batching == B_CONTINUOUS) {
		while (r->nrun < f->max_batch) {
			uint32_t id = peek(f, r, &from, now);
			if (id == NIL)
				break;
			const req *q = &f->rq[id];
			if (!f->service_mode) {
				double need = (double)q->prompt + q->gen + 1;
				/* the batch after admission must still fit one more token
				 * per request; an empty replica takes anything that fits */
				if (r->nrun > 0 && r->S + need + (r->nrun + 1) > f->cap_tokens)
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
			const req *q = &f->rq[id];
			if (k > 0 && !f->service_mode &&
			    r->resv + (double)q->prompt + q->output > f->cap_tokens)
				break;
			if (k == 0)
				head_arr = q->t_arr;
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
			if (r->tmr) {
				aiwi_cancel(f->sim, r->tmr);
				r->tmr = 0;
			}
		}
	}
	if (k) {
		f->batch_peak = r->nrun > f->batch_peak ? r->nrun : f->batch_peak;
		double kv = f->batching == B_CONTINUOUS ? r->S : r->resv;
		f->kv_peak_tokens = kv > f->kv_peak_tokens ? kv : f->kv_peak_tokens;
		if (r->in_idle)
			idle_remove(f, (uint32_t)(r - f->rep));
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
	for (uint32_t i = 0; i < r->nrun; i++) {
		uint32_t a = f->seq - run_at(r, i)->seq;
		if (a < age)
			age = a, best = i;
	}
	rent x = run_remove_at(r, best);
	req *q = &f->rq[x.id];
	q->gen = q->output - (uint32_t)(x.key - r->it);
	r->S -= (double)q->prompt + q->gen;
	q_push_front(f, &r->pre, x.id);
	f->nrunning--;
	waiting_add(f, now, +1);
	f->preemptions++;
}

/* Start a span at now: the prefill of what was just admitted (tp seconds,
 * none if nothing was), then decode iterations until the first departure or
 * until the KV cache is full. */
/* The prefill of ptok > 0 prompt tokens: compute-bound, or one read of the
 * weights. */
static inline double prefill_time(const fleet *f, double ptok)
{
	return span_prefill_time(ptok, f->pf_s, f->t_weights);
}

/* The decode part of r's span (sp) from its running set: the iterations to
 * the first departure (continuous batching: or to a full KV cache; 0 is a
 * boundary right after the prefill, where the preemption happens), and the
 * terms of their times. */
static AIW_INLINE void span_decode(fleet *f, replica *r)
{
	double n = r->nrun;
	double k = run_min(r) - r->it;
	if (f->batching == B_CONTINUOUS) {
		double kkv = floor_nonneg((f->cap_tokens - r->S) / n);
		double kk = kkv > 0 ? kkv : 0;
		k = kkv < k ? kk : k; /* selects: which bound comes first varies */
	}
	r->sp.sc = n * f->pf_s;
	r->sp.sa = f->t_weights + r->S * f->kv_s;
	r->sp.sb = n * f->kv_s;
	r->sp.js = span_js(&r->sp);
	r->sp.k_end = k;
	r->sp.n = r->nrun;
	r->cut = 0;
}

static void start_span(fleet *f, replica *r, double now, uint32_t nadm, double ptok)
{
	double tp = 0;
	if (nadm) {
		f->tokens_prefill += ptok;
		f->flops += 2 * f->P * ptok;
		tp = prefill_time(f, ptok);
		double t1 = now + tp;
		for (uint32_t i = 0; i < f->nadm; i++) {
			req *q = &f->rq[f->adm[i]];
			if (isnan(q->t_first)) {
				q->t_first = t1;
				aiwi_hist_add_fast(&f->ttft_win, t1 - q->t_arr);
			}
		}
		f->tokens_out += nadm;
		r->seq0 = f->seq - nadm; /* the admitted ones have seq >= seq0 */
	} else if (f->batching == B_CONTINUOUS) {
		while (r->nrun > 1 && r->S + r->nrun > f->cap_tokens)
			preempt_one(f, r, now);
	}
	r->sp.t0 = now;
	r->sp.tp = tp;
	r->sp.ptok = nadm ? ptok : 0;
	r->sp.nfirst = nadm;
	span_decode(f, r);
	r->span = SPAN_RUN;
	set_phase(f, r, PH_DECODE, now);
	if (tp > 0)
		book_prefill(f, r, tp, +1);
	schedule(f, r, now + tp + span_T(&r->sp, r->sp.k_end));
}
