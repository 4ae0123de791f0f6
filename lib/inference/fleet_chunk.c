/*
 * fleet_chunk.c - chunked prefill (chunked_prefill = on; doc/inference.md):
 * the budget's default, the mixed iteration that starts a span while
 * prompts are prefilling.
 * Part of serving.c's translation unit: included by it after
 * fleet_admit.c, not compiled alone.
 *
 * A prompt admitted under chunked prefill waits in its replica's
 * `prefilling` FIFO (out of the running set: it decodes nothing yet), its
 * KV context reserved (chunk_reserved).  A span that starts with prompts
 * prefilling begins with ONE mixed iteration: every running decode (n of
 * them, one token each) and then chunks of the prefilling prompts in
 * admission order, the head's rest first, with what is left of the budget
 * B - n; only the last prompt of an iteration can be cut, and it is the
 * head of the next (with long_prefill_token_threshold, each prompt's chunk
 * is capped at it too and any may be cut: chunks_capped).  A prompt whose
 * last chunk is in the iteration yields its first token at its end and
 * decodes from the next.  When no prompt is
 * left prefilling, the span goes on with its decode iterations (the
 * closed form of span.h, the new decoders in the batch); else it ends
 * after the mixed iteration and the next span continues the chunks.
 *
 * The mixed iteration's time, n decoders holding S tokens of context, m
 * chunks of T tokens in all, a chunk of t tokens at offset o adding
 * t (2 o + t) to Q (so that a whole prompt of L tokens adds L^2, as
 * unchunked):
 *   timing = iteration:  d(n, S) + cm m + cu T + cv Q, with d(n, S) the
 *                        decode iteration of the n decoders (span.h; its
 *                        fixed c0 included) and cm, cu, cv the prefill
 *                        fold's, or the prefill fold's c0 when n = 0
 *                        (then exactly the unchunked prefill's time);
 *   roofline:            max((n + T) 2P/F, W/B + S k/B).
 */

/* The token budget when max_num_batched_tokens is not given: vLLM V1's for
 * its OpenAI API server, 8192 on a GPU of at least 70 GiB whose name does
 * not contain "a100" (H100, H200, MI300X...) and 2048 on the others
 * (vllm/engine/arg_utils.py, EngineArgs._set_default_args,
 * default_max_num_batched_tokens for UsageContext.OPENAI_API_SERVER,
 * vllm-project/vllm commit 99d7eb5d6a51; the same split as
 * default_max_batch's, serving.c). */
#define VLLM_MAX_BATCHED_TOKENS_LARGE 8192.0
#define VLLM_MAX_BATCHED_TOKENS 2048.0
static double default_chunk_budget(const aiwi_gpu_spec *g)
{
	bool a100 = false;
	for (const char *p = g->name ? g->name : ""; *p && !a100; p++)
		a100 = (p[0] == 'a' || p[0] == 'A') && p[1] == '1' && p[2] == '0' && p[3] == '0';
	return g->mem_bytes >= 70.0 * 1073741824.0 && !a100 ? VLLM_MAX_BATCHED_TOKENS_LARGE
	                                                    : VLLM_MAX_BATCHED_TOKENS;
}

/* The chunks of a mixed iteration under long_prefill_token_threshold Th
 * (vLLM V1's Scheduler.schedule: each request's new tokens capped at Th,
 * then at what is left of the budget, in order): every prefilling prompt
 * in admission order takes min(its rest, Th, left) while left > 0, so that
 * several may stay partly prefilled; the prompts it finishes leave the FIFO
 * for `fin`, in order.  Adds to m, T, Q as the loop of start_chunked does;
 * r->chunk_done becomes the tokens done of the prompts still prefilling.
 * The tokens done, by request (chunk_prog), are 0 for every request out of
 * a prefilling FIFO (set back when it leaves: here, or fail_slot), so that
 * the admission need not touch them. */
#if defined(__GNUC__)
__attribute__((noinline, cold)) /* kept out of the span's step, which inlines its caller */
#endif
static void chunks_capped(fleet *f, replica *r, double left, double *m, double *T, double *Q,
                          queue *fin)
{
	if (f->chunk_prog_capacity < f->request_capacity) { /* as long as the pool, the new part 0 */
		uint32_t *p = realloc(f->chunk_prog, (size_t)f->request_capacity * sizeof *p);
		if (!p) {
			f->fail = true;
			return;
		}
		memset(p + f->chunk_prog_capacity, 0,
		       (size_t)(f->request_capacity - f->chunk_prog_capacity) * sizeof *p);
		f->chunk_prog = p;
		f->chunk_prog_capacity = f->request_capacity;
	}
	double th = f->chunk_threshold, held = 0;
	uint32_t prev = NIL;
	for (uint32_t id = r->prefilling.head; id != NIL;) {
		const req *q = &f->requests[id];
		uint32_t nx = q->next;
		double o = f->chunk_prog[id];
		if (!(left > 0)) { /* no budget left: it waits */
			held += o;
			prev = id;
			id = nx;
			continue;
		}
		if (AIW_UNLIKELY(f->prefix) && o < f->side[id].hit)
			o = f->side[id].hit; /* its cached blocks are not computed */
		double L = (double)q->prompt + q->generated, t = L - o;
		t = t < th ? t : th;
		t = t < left ? t : left;
		*m += 1;
		*T += t;
		*Q += t * (2 * o + t);
		left -= t;
		if (o + t < L) { /* cut: it goes on in the next iteration */
			f->chunk_prog[id] = (uint32_t)(o + t);
			held += o + t;
			prev = id;
		} else { /* its last chunk: out of the FIFO, its entry 0 again */
			f->chunk_prog[id] = 0;
			if (prev == NIL)
				r->prefilling.head = nx;
			else
				f->requests[prev].next = nx;
			if (r->prefilling.tail == id)
				r->prefilling.tail = prev;
			r->prefilling.length--;
			q_push(f, fin, id);
		}
		id = nx;
	}
	r->chunk_done = held;
}

/* Start a span at now on r, whose prefilling FIFO is not empty: its mixed
 * iteration (above), then its decode part if no prompt is left
 * prefilling. */
static void start_chunked(fleet *f, replica *r, double now)
{
	/* the decoders grow by a token each in the mixed iteration: preempt the
	 * youngest while they do not fit (the prompts' reservations fitted
	 * when they were admitted) */
	while (r->run_count && r->context_tokens + r->chunk_reserved + r->run_count > f->kv_capacity_tokens)
		preempt_one(f, r, now);
	double n = r->run_count, S = r->context_tokens;
	/* the chunks: the budget less one token per decode (>= 1: max_batch <=
	 * budget and a prompt is held), in admission order */
	double left = f->chunk_budget - n, T = 0, Q = 0, m = 0, o = r->chunk_done;
	uint32_t done = 0;
	queue fin = {NIL, NIL, 0}; /* long_prefill_token_threshold: the prompts finished */
	if (AIW_UNLIKELY(f->chunk_threshold > 0)) {
		chunks_capped(f, r, left, &m, &T, &Q, &fin);
		done = fin.length;
	}
	for (uint32_t id = AIW_UNLIKELY(f->chunk_threshold > 0) ? NIL : r->prefilling.head;
	     id != NIL && left > 0; id = f->requests[id].next) {
		const req *q = &f->requests[id];
		if (AIW_UNLIKELY(f->prefix) && o < f->side[id].hit)
			o = f->side[id].hit; /* its cached blocks are not computed */
		double L = (double)q->prompt + q->generated, t = L - o;
		t = t < left ? t : left;
		m++;
		T += t;
		Q += t * (2 * o + t);
		left -= t;
		if (o + t < L) {
			o += t; /* cut: the head of the next span */
			break;
		}
		o = 0;
		done++;
	}
	/* its time */
	double tp;
	if (f->iteration) {
		const double *c = f->iter_prefill;
		double d = c[0];
		if (n > 0) {
			double kv = f->kv_s_per_token, ds = f->decode_s_per_seq;
			if (AIW_UNLIKELY(n < f->decode_pp)) {
				double g = aiwi_iter_decode_share(n, f->decode_pp);
				kv *= g;
				ds = f->decode_host_s_per_seq + f->decode_gpu_s_per_seq * g;
			}
			d = f->weights_read_s + S * kv + n * ds;
		}
		tp = d + c[1] * m + c[2] * T + c[3] * Q;
		if (AIW_UNLIKELY(f->moe)) /* the distinct experts of its n + T tokens */
			tp += f->moe_read_s[n > 0] * aiwi_iter_moe_distinct(f->moe_E, f->moe_k, n + T);
	} else {
		double tc = (n + T) * f->prefill_s_per_token, tm = f->weights_read_s + S * f->kv_s_per_token;
		tp = tc > tm ? tc : tm;
	}
	/* booked at its start, taken back by totals_at inside it: its FLOPs,
	 * bytes (the weights once, the decoders' KV cache) and tokens */
	double fl = prefill_flops(f, T, Q) + f->dec_flops_seq * n + f->dec_attn_ctx * S;
	double by = f->weight_bytes + f->kv_bytes_per_token * S;
	f->tokens_prefill += T;
	f->flops += fl;
	f->dram_bytes += by;
	f->tokens_out += n + done;
	f->mixed_iterations++;
	f->prefill_chunks += (uint64_t)m;
	f->chunked_prompts += done;
	if (n > 0)
		f->batch_iterations[r->run_count]++;
	r->mixed_flops = fl;
	r->mixed_dram = by;
	r->mixed_tokens = n + T;
	/* the decoders' iteration: their clock and context move to its end */
	r->iterations_done += 1;
	r->context_tokens += n;
	/* the prompts it finishes decode from its end */
	double t1 = now + tp;
	for (uint32_t i = 0; i < done; i++) {
		uint32_t id = AIW_UNLIKELY(f->chunk_threshold > 0) ? q_pop(f, &fin)
		                                                   : q_pop(f, &r->prefilling);
		req *q = &f->requests[id];
		double need = (double)q->prompt + q->generated + 1;
		r->chunk_reserved -= need;
		r->context_tokens += need;
		q->generated++;
		if (isnan(q->first_token)) {
			q->first_token = t1;
			aiwi_hist_add_fast(&f->ttft_win, t1 - q->arrival);
		}
		run_push(f, r, id, r->iterations_done + (q->output - q->generated), f->admissions++);
	}
	r->first_admission = f->admissions - done; /* the finished ones have seq >= first_admission */
	if (!AIW_UNLIKELY(f->chunk_threshold > 0))
		r->chunk_done = r->prefilling.length ? o : 0;
	r->current.start = now;
	r->current.prefill_s = tp;
	r->current.prefill_tokens = T;
	r->prefill_sq = Q;
	r->current.first_tokens = (uint32_t)n + done;
	if (r->run_count) {
		span_decode(f, r);
		if (r->prefilling.length)
			r->current.end_iteration = 0; /* the next span continues the chunks */
	} else {
		/* nothing decodes: the span is its mixed iteration (terms that
		 * give T(0) = 0 and a finite inverse) */
		r->current.compute_s = r->current.memory_step_s = r->current.memory_from = 0;
		r->current.memory_s = tp;
		r->current.end_iteration = 0;
		r->current.batch = 0;
		r->cut = 0;
	}
	if (AIW_UNLIKELY(f->prefix))
		pc_fit(f, r, r->context_tokens + r->chunk_reserved +
		                     (double)r->run_count * r->current.end_iteration);
	double kv = r->context_tokens + r->chunk_reserved;
	f->kv_peak_tokens = kv > f->kv_peak_tokens ? kv : f->kv_peak_tokens;
	r->span_kind = SPAN_RUN;
	set_phase(f, r, PH_DECODE, now);
	batch_level(f, r, r->current.batch, now);
	book_prefill(f, r, tp, +1);
	schedule(f, r, now + tp + span_time(&r->current, r->current.end_iteration));
}
