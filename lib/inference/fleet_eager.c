/*
 * fleet_eager.c - eager cuts: an arrival's cut at the next iteration
 * boundary done at the arrival (the protocol: fleet.h).
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
 *    see the cut span (cut_span) as the running one;
 *  - an arrival before tb joins the boundary's admissions (eager_merge);
 *  - a failure before tb undoes the cut (eager_undo).
 * Used with continuous batching (either timing), routers other than central,
 * no timeout (a queue can then only grow before tb) and max_batch <=
 * RUN_SORTED (the running set stays a sorted array, which an undo restores
 * exactly), and not with chunked prefill or prefix caching (arrivals join at the next
 * span boundary: the lazy path).  Results equal those of the boundary event but for the rounding
 * of floating-point sums taken in another order (tests/model/test_serving.c runs
 * every feature both ways, aiwi_serving_set_eager). */

/* Whether the fleet's configuration allows eager cuts (above). */
static bool eager_possible(const fleet *f)
{
	return f->batching == B_CONTINUOUS && !f->service_mode && f->router != RT_CENTRAL &&
	       !(f->timeout < INFINITY) && f->max_batch <= RUN_SORTED && !f->chunked &&
	       !f->prefix && !f->batch_power;
}

/* Admit at r's pending start current.start what the boundary would (continuous
 * batching's admission, in the same order); the waiting integral counts
 * each request up to current.start. */
static void eager_admit(fleet *f, replica *r, double now)
{
	FLEET_REQUIRE(f, r->pending && now <= r->current.start);
	double t0 = r->current.start;
	while (r->run_count < f->max_batch) {
		queue *from = r->preempted.length ? &r->preempted : &r->routed;
		uint32_t id = from->head;
		if (id == NIL)
			break;
		req *q = &f->requests[id];
		double need = (double)q->prompt + q->generated + 1;
		if (r->run_count > 0 && r->context_tokens + need + (r->run_count + 1) > f->kv_capacity_tokens)
			break;
		q_pop(f, from);
		waiting_add(f, now, -1);
		f->waiting.sum += t0 - now;
		f->running_count++;
		uint32_t seq = f->admissions++;
		q->from_preempted = from == &r->preempted;
		r->pending_from_queue += !q->from_preempted;
		double len = (double)q->prompt + q->generated;
		r->current.prefill_tokens += len;
		r->prefill_sq += len * len;
		r->context_tokens += (double)q->prompt + q->generated + 1;
		q->generated++;
		q_push(f, &r->pending_admissions, id);
		run_push(f, r, id, r->iterations_done + (q->output - q->generated), seq);
	}
}

/* r's pending span from its admissions, as start_span computes it, and its
 * end scheduled. */
static void eager_span(fleet *f, replica *r)
{
	FLEET_REQUIRE(f, r->pending && r->pending_admissions.length > 0);
	r->current.first_tokens = r->pending_admissions.length;
	r->current.prefill_s = prefill_time(f, r->current.first_tokens, r->current.prefill_tokens,
	                                     r->prefill_sq);
	span_decode(f, r);
	schedule(f, r,
	         r->current.start + r->current.prefill_s +
	                 span_time(&r->current, r->current.end_iteration));
}

/* The cut of r's running span after kb iterations, at tb, done now (false:
 * the boundary would admit nothing, so it stays an event). */
static bool eager_cut(fleet *f, replica *r, double now, double kb, double tb)
{
	FLEET_REQUIRE(f, f->eager && r->span_kind == SPAN_RUN && !r->pending && !r->run_is_heap);
	FLEET_REQUIRE(f, kb <= r->current.end_iteration && r->current.start <= tb && now <= tb);
	const queue *from = r->preempted.length ? &r->preempted : &r->routed;
	if (from->head == NIL || r->run_count >= f->max_batch)
		return false;
	const req *q = &f->requests[from->head];
	double n = r->current.batch, S1 = kb > 0 ? r->context_tokens + n * kb : r->context_tokens;
	if (S1 + ((double)q->prompt + q->generated + 1) + (r->run_count + 1) > f->kv_capacity_tokens)
		return false;
	r->cut_span = r->current;
	r->cut_span.end_iteration = kb;
	r->iterations_before_cut = r->iterations_done;
	r->context_before_cut = r->context_tokens;
	r->first_admission_before_cut = r->first_admission;
	if (kb > 0) {
		r->iterations_done += kb;
		r->context_tokens = S1;
	}
	r->pending = 1;
	q_init(&r->pending_admissions);
	r->pending_from_queue = 0;
	r->first_admission = f->admissions;
	r->current.start = tb;
	r->current.prefill_tokens = 0;
	r->prefill_sq_before_cut = r->prefill_sq;
	r->prefill_sq = 0;
	eager_admit(f, r, now);
	eager_span(f, r);
	return true;
}

/* An arrival before r's pending start: the boundary admits it too if it
 * fits (and what waited before it did). */
static void eager_merge(fleet *f, replica *r, double now)
{
	FLEET_REQUIRE(f, f->eager && r->pending && now < r->current.start && !r->preempted.length);
	uint32_t pn = r->pending_admissions.length;
	eager_admit(f, r, now);
	if (r->pending_admissions.length != pn)
		eager_span(f, r);
}

/* The clock reached r's pending start: book what the boundary event would
 * have booked (span_done's sums for the cut span, take's and start_span's
 * for the admissions), in its order. */
static void eager_settle(fleet *f, replica *r)
{
	FLEET_REQUIRE(f, r->pending && r->span_kind == SPAN_RUN);
	r->pending = 0;
	double k = r->cut_span.end_iteration, n = r->cut_span.batch;
	if (k > 0) {
		f->tokens_out += n * k;
		f->flops += span_flops(f, &r->cut_span, k, r->context_before_cut);
		f->dram_bytes += span_dram(f, &r->cut_span, k, r->context_before_cut);
		spec_book(f, &r->cut_span, k, r->context_before_cut);
		f->batch_iterations[r->cut_span.batch] += (uint64_t)k;
		double S1 = r->context_before_cut + n * k;
		f->kv_peak_tokens = S1 > f->kv_peak_tokens ? S1 : f->kv_peak_tokens;
	}
	/* take's queue waits and start_span's first tokens, in one pass (each
	 * histogram gets its values in the boundary's order) */
	double t0 = r->current.start, t1 = t0 + r->current.prefill_s;
	for (uint32_t id = r->pending_admissions.head; id != NIL; id = f->requests[id].next) {
		req *q = &f->requests[id];
		if (!q->started) {
			q->started = 1;
			f->started++;
			f->tokens_in += q->prompt;
			aiwi_hist_add_fast(&f->wait, t0 - q->arrival);
		}
		if (isnan(q->first_token)) {
			q->first_token = t1;
			aiwi_hist_add_fast(&f->ttft_win, t1 - q->arrival);
		}
	}
	/* (selects: the peaks' updates, rare, as stores without branches) */
	f->batch_peak = r->current.batch > f->batch_peak ? r->current.batch : f->batch_peak;
	f->kv_peak_tokens = r->context_tokens > f->kv_peak_tokens ? r->context_tokens : f->kv_peak_tokens;
	f->tokens_prefill += r->current.prefill_tokens;
	f->flops += prefill_flops(f, r->current.prefill_tokens, r->prefill_sq);
	if (r->pending_admissions.length)
		f->dram_bytes += f->weight_bytes;
	f->tokens_out += r->pending_admissions.length;
	if (r->current.prefill_s > 0)
		book_prefill(f, r, r->current.prefill_s, +1);
}

/* Every pending start reached by t. */
static void eager_settle_all(fleet *f, double t)
{
	if (!f->eager)
		return;
	for (uint32_t i = 0; i < f->slot_count; i++)
		if (f->replicas[i].pending && f->replicas[i].current.start <= t)
			eager_settle(f, &f->replicas[i]);
}

/* Requests admitted at pending starts after t (still waiting at t), and,
 * when waiting is not NULL, the request-seconds from t to those starts
 * that the waiting integral already holds. */
static uint64_t eager_waiting(const fleet *f, double t, double *ahead)
{
	uint64_t n = 0;
	double w = 0;
	for (uint32_t i = 0; f->eager && i < f->slot_count; i++) {
		const replica *r = &f->replicas[i];
		if (r->pending && t < r->current.start) {
			n += r->pending_admissions.length;
			w += r->pending_admissions.length * (r->current.start - t);
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
	FLEET_REQUIRE(f, r->pending && now < r->current.start && !r->run_is_heap);
	double t0 = r->current.start;
	uint32_t last = NIL;
	for (uint32_t id = r->pending_admissions.head; id != NIL;) { /* reverse the list */
		uint32_t nx = f->requests[id].next;
		f->requests[id].next = last;
		last = id;
		id = nx;
	}
	/* the running set without them (the requests it admitted since the
	 * cut: first_admission on), the others in their order */
	run_entry *h = r->run + r->run_head;
	uint32_t m = 0;
	for (uint32_t i = 0; i < r->run_count; i++)
		if ((uint32_t)(h[i].admission - r->first_admission) >=
		    (uint32_t)(f->admissions - r->first_admission))
			h[m++] = h[i];
	r->run_count = m;
	for (uint32_t id = last; id != NIL;) {
		req *q = &f->requests[id];
		uint32_t nx = q->next;
		q->generated--;
		q_push_front(f, q->from_preempted ? &r->preempted : &r->routed, id);
		f->running_count--;
		waiting_add(f, now, +1);
		f->waiting.sum -= t0 - now;
		id = nx;
	}
	r->pending = 0;
	r->iterations_done = r->iterations_before_cut;
	r->context_tokens = r->context_before_cut;
	r->first_admission = r->first_admission_before_cut;
	r->current = r->cut_span;
	r->prefill_sq = r->prefill_sq_before_cut;
	r->cut = 1;
	schedule(f, r, t0);
}
