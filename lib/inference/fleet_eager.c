/*
 * fleet_eager.c - eager cuts: an arrival's cut at the next iteration boundary done at
 * the arrival (the protocol: fleet.h).
 * Part of serving.c's translation unit: included by it after fleet.h, not
 * compiled alone (so that the hot path inlines as in one file).
 */

/* ---- eager cuts ----
 * An arrival that cuts a busy replica's span at its next iteration boundary
 * tb (continuous batching) would make tb an event of its own: the
 * iterations so far booked, what fits admitted, the next span started.
 * Until tb nothing can change that replica but more arrivals routed to it,
 * which the same boundary admits.  So the cut does the boundary's work at
 * the arrival (eager_cut): the replica's iteration clock and KV context move
 * to tb, what fits is admitted and the next span, from tb, is computed and
 * scheduled; one event per cut fewer, a third of all (bench/inference_day).
 * What the rest of the model could see before tb stays as the boundary
 * event would leave it:
 *  - the global sums, the histograms and the admission counts of the
 *    boundary are booked when the clock reaches tb (eager_settle: at the
 *    replica's next event or arrival, a sample, the end of the run, a
 *    failure, an autoscaler's read);
 *  - the waiting integral counts the admitted requests up to tb, and the
 *    samples, counts and metrics taken before tb count them as waiting and
 *    see the cut span (pv) as the running one;
 *  - an arrival before tb joins the boundary's admissions (eager_merge);
 *  - a failure before tb undoes the cut (eager_undo).
 * Used with continuous batching on the roofline, routers other than central,
 * no timeout (a queue can then only grow before tb) and max_batch <=
 * RUN_SORTED (the running set stays a sorted array, which an undo restores
 * exactly).  Results equal those of the boundary event but for the rounding
 * of floating-point sums taken in another order (tests/model/test_serving.c runs
 * every feature both ways). */
int aiwi_serving_eager = 1;

/* Admit at r's pending start sp.t0 what the boundary would (continuous
 * batching's admission, in the same order); the waiting integral counts
 * each request up to sp.t0. */
static void eager_admit(fleet *f, replica *r, double now)
{
	double t0 = r->sp.t0;
	while (r->nrun < f->max_batch) {
		queue *from = r->pre.len ? &r->pre : &r->q;
		uint32_t id = from->head;
		if (id == NIL)
			break;
		req *q = &f->rq[id];
		double need = (double)q->prompt + q->gen + 1;
		if (r->nrun > 0 && r->S + need + (r->nrun + 1) > f->cap_tokens)
			break;
		q_pop(f, from);
		waiting_add(f, now, -1);
		f->waiting.sum += t0 - now;
		f->nrunning++;
		uint32_t seq = f->seq++;
		q->from_pre = from == &r->pre;
		r->pnq += !q->from_pre;
		r->sp.ptok += (double)q->prompt + q->gen;
		r->S += (double)q->prompt + q->gen + 1;
		q->gen++;
		q_push(f, &r->pq, id);
		run_push(f, r, id, r->it + (q->output - q->gen), seq);
	}
}

/* r's pending span from its admissions, as start_span computes it, and its
 * end scheduled. */
static void eager_span(fleet *f, replica *r)
{
	r->sp.tp = prefill_time(f, r->sp.ptok);
	r->sp.nfirst = r->pq.len;
	span_decode(f, r);
	schedule(f, r, r->sp.t0 + r->sp.tp + span_T(&r->sp, r->sp.k_end));
}

/* The cut of r's running span after kb iterations, at tb, done now (false:
 * the boundary would admit nothing, so it stays an event). */
static bool eager_cut(fleet *f, replica *r, double now, double kb, double tb)
{
	const queue *from = r->pre.len ? &r->pre : &r->q;
	if (from->head == NIL || r->nrun >= f->max_batch)
		return false;
	const req *q = &f->rq[from->head];
	double n = r->sp.n, S1 = kb > 0 ? r->S + n * kb : r->S;
	if (S1 + ((double)q->prompt + q->gen + 1) + (r->nrun + 1) > f->cap_tokens)
		return false;
	r->pv = r->sp;
	r->pv.k_end = kb;
	r->it_pv = r->it;
	r->S_pv = r->S;
	r->seq0_pv = r->seq0;
	if (kb > 0) {
		r->it += kb;
		r->S = S1;
	}
	r->pend = 1;
	q_init(&r->pq);
	r->pnq = 0;
	r->seq0 = f->seq;
	r->sp.t0 = tb;
	r->sp.ptok = 0;
	eager_admit(f, r, now);
	eager_span(f, r);
	return true;
}

/* An arrival before r's pending start: the boundary admits it too if it
 * fits (and what waited before it did). */
static void eager_merge(fleet *f, replica *r, double now)
{
	uint32_t pn = r->pq.len;
	eager_admit(f, r, now);
	if (r->pq.len != pn)
		eager_span(f, r);
}

/* The clock reached r's pending start: book what the boundary event would
 * have booked (span_done's sums for the cut span, take's and start_span's
 * for the admissions), in its order. */
static void eager_settle(fleet *f, replica *r)
{
	r->pend = 0;
	double k = r->pv.k_end, n = r->pv.n;
	if (k > 0) {
		f->tokens_out += n * k;
		f->flops += 2 * f->P * n * k;
		f->bs[r->pv.n] += (uint64_t)k;
		double S1 = r->S_pv + n * k;
		f->kv_peak_tokens = S1 > f->kv_peak_tokens ? S1 : f->kv_peak_tokens;
	}
	/* take's queue waits and start_span's first tokens, in one pass (each
	 * histogram gets its values in the boundary's order) */
	double t0 = r->sp.t0, t1 = t0 + r->sp.tp;
	for (uint32_t id = r->pq.head; id != NIL; id = f->rq[id].next) {
		req *q = &f->rq[id];
		if (!q->started) {
			q->started = 1;
			f->started++;
			f->tokens_in += q->prompt;
			aiwi_hist_add_fast(&f->wait, t0 - q->t_arr);
		}
		if (isnan(q->t_first)) {
			q->t_first = t1;
			aiwi_hist_add_fast(&f->ttft_win, t1 - q->t_arr);
		}
	}
	/* (selects: the peaks' updates, rare, as stores without branches) */
	f->batch_peak = r->sp.n > f->batch_peak ? r->sp.n : f->batch_peak;
	f->kv_peak_tokens = r->S > f->kv_peak_tokens ? r->S : f->kv_peak_tokens;
	f->tokens_prefill += r->sp.ptok;
	f->flops += 2 * f->P * r->sp.ptok;
	f->tokens_out += r->pq.len;
	if (r->sp.tp > 0)
		book_prefill(f, r, r->sp.tp, +1);
}

/* Every pending start reached by t. */
static void eager_settle_all(fleet *f, double t)
{
	if (!f->eager)
		return;
	for (uint32_t i = 0; i < f->nslots; i++)
		if (f->rep[i].pend && f->rep[i].sp.t0 <= t)
			eager_settle(f, &f->rep[i]);
}

/* Requests admitted at pending starts after t (still waiting at t), and,
 * when waiting is not NULL, the request-seconds from t to those starts
 * that the waiting integral already holds. */
static uint64_t eager_waiting(const fleet *f, double t, double *ahead)
{
	uint64_t n = 0;
	double w = 0;
	for (uint32_t i = 0; f->eager && i < f->nslots; i++) {
		const replica *r = &f->rep[i];
		if (r->pend && t < r->sp.t0) {
			n += r->pq.len;
			w += r->pq.len * (r->sp.t0 - t);
		}
	}
	if (ahead)
		*ahead = w;
	return n;
}

/* A failure of r before its pending start: back to the cut span, the
 * admitted requests back in their queues (in order, in front), as if the
 * boundary had not come. */
static void eager_undo(fleet *f, replica *r, double now)
{
	double t0 = r->sp.t0;
	uint32_t last = NIL;
	for (uint32_t id = r->pq.head; id != NIL;) { /* reverse the list */
		uint32_t nx = f->rq[id].next;
		f->rq[id].next = last;
		last = id;
		id = nx;
	}
	/* the running set without them (the requests it admitted since the
	 * cut: seq0 on), the others in their order */
	rent *h = r->run + r->rh;
	uint32_t m = 0;
	for (uint32_t i = 0; i < r->nrun; i++)
		if ((uint32_t)(h[i].seq - r->seq0) >= (uint32_t)(f->seq - r->seq0))
			h[m++] = h[i];
	r->nrun = m;
	for (uint32_t id = last; id != NIL;) {
		req *q = &f->rq[id];
		uint32_t nx = q->next;
		q->gen--;
		q_push_front(f, q->from_pre ? &r->pre : &r->q, id);
		f->nrunning--;
		waiting_add(f, now, +1);
		f->waiting.sum -= t0 - now;
		id = nx;
	}
	r->pend = 0;
	r->it = r->it_pv;
	r->S = r->S_pv;
	r->seq0 = r->seq0_pv;
	r->sp = r->pv;
	r->cut = 1;
	schedule(f, r, t0);
}
