/*
 * fleet_check.c - fleet_check: the fleet's invariants (fleet.h) verified on
 * its live state, after every event and at every sample, in a build
 * configured with --enable-checks (AIW_CHECKS=1); nothing in a release
 * build.  A broken invariant fails the run (AIW_ESTATE) with a message
 * naming it, the replica and the time.
 * Part of serving.c's translation unit: included by it after fleet.h, not
 * compiled alone.
 */
#if AIW_CHECKS
#include <stdarg.h>

static void check_broken(fleet *f, const char *fmt, ...)
{
	if (f->fail)
		return;
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	aiwi_err(f->sim, AIW_ESTATE, "%s: fleet invariant broken at t = %.17g s: %s",
	         f->comp->prefix, aiwi_now(f->sim), msg);
	aiwi_fail(f->sim, AIW_ESTATE);
	f->fail = true;
}

#define CHECK(cond, ...)                                                                           \
	do {                                                                                       \
		if (!(cond)) {                                                                     \
			check_broken(f, __VA_ARGS__);                                              \
			return;                                                                    \
		}                                                                                  \
	} while (0)
#define ULL(x) ((unsigned long long)(x))

/* Prefix caching: r's LRU list against its count, its entries' owners and
 * links (deep checks). */
static bool lru_sound(fleet *f, const replica *r, uint32_t slot)
{
	double blocks = 0;
	uint32_t prev = NIL, n = 0;
	for (uint32_t id = r->lru_head; id != NIL; id = pc_node_of(f, id)->next) {
		const pc_node *x = pc_node_of(f, id);
		if (x->prev != prev || x->blocks == 0 || ++n > 2 * MAX_IN_FLIGHT)
			return false;
		if (id & SYS_BIT ? (id & ~SYS_BIT) / f->nsys != slot || x->aux != 0 : x->aux != slot)
			return false;
		blocks += x->blocks;
		prev = id;
	}
	return prev == r->lru_tail && blocks == r->cached_blocks;
}

/* A queue's length and tail against its links (deep checks). */
static bool queue_sound(const fleet *f, const queue *q)
{
	uint32_t n = 0, last = NIL;
	for (uint32_t id = q->head; id != NIL && n <= q->length; id = f->requests[id].next) {
		last = id;
		n++;
	}
	return n == q->length && last == q->tail;
}

static void fleet_check(fleet *f, bool deep)
{
	if (f->fail)
		return;
	double now = aiwi_now(f->sim);
	/* requests */
	uint64_t dropped = 0;
	for (int i = 0; i < NDROP; i++)
		dropped += f->dropped[i];
	CHECK(f->arrived == f->completed + f->kv_transfers + dropped + f->in_flight,
	      "arrived %llu != completed %llu + transferred %llu + dropped %llu + in flight %llu",
	      ULL(f->arrived), ULL(f->completed), ULL(f->kv_transfers), ULL(dropped),
	      ULL(f->in_flight));
	CHECK(f->in_flight == f->waiting_count + f->running_count + f->kv_in_transit,
	      "in flight %llu != waiting %llu + running %llu + in transfer %llu", ULL(f->in_flight),
	      ULL(f->waiting_count), ULL(f->running_count), ULL(f->kv_in_transit));
	CHECK(f->disagg == DIS_PREFILL || (f->kv_transfers == 0 && f->kv_in_transit == 0),
	      "KV transfers %llu (%llu under way) in a fleet that is no prefill pool",
	      ULL(f->kv_transfers), ULL(f->kv_in_transit));
	CHECK(f->disagg != DIS_DECODE || f->arrived == f->kv_received,
	      "decode pool: arrived %llu != received %llu", ULL(f->arrived), ULL(f->kv_received));
	CHECK(f->disagg == DIS_DECODE || f->kv_received == 0,
	      "%llu requests received by a fleet that is no decode pool", ULL(f->kv_received));
	CHECK(f->waiting.value == (double)f->waiting_count,
	      "waiting integral's level %.17g != waiting %llu", f->waiting.value,
	      ULL(f->waiting_count));
	CHECK(!deep || queue_sound(f, &f->central), "central queue's links and length disagree");
	/* replicas */
	uint64_t waiting = f->central.length, running = 0;
	uint32_t states[4] = {0}, phases[NPH] = {0}, spot = 0, ready = 0;
	for (uint32_t i = 0; i < f->slot_count; i++) {
		const replica *r = &f->replicas[i];
		CHECK(r->state <= AIW_REPLICA_DRAINING && r->phase < NPH && r->span_kind <= SPAN_SERVICE,
		      "replica %u: state %d, phase %d, span %d", i, r->state, r->phase, r->span_kind);
		states[r->state]++;
		phases[r->phase]++;
		spot += r->spot && r->phase != PH_OFF;
		waiting += r->routed.length + r->preempted.length;
		running += r->run_count + r->prefilling.length;
		CHECK(r->outstanding == r->routed.length + r->preempted.length + r->run_count +
		                                r->prefilling.length,
		      "replica %u: outstanding %u != routed %u + preempted %u + running %u + "
		      "prefilling %u",
		      i, r->outstanding, r->routed.length, r->preempted.length, r->run_count,
		      r->prefilling.length);
		CHECK(!deep || (queue_sound(f, &r->routed) && queue_sound(f, &r->preempted) &&
		                queue_sound(f, &r->prefilling)),
		      "replica %u: a queue's links and length disagree", i);
		CHECK(f->chunked || (!r->prefilling.length && r->chunk_reserved == 0),
		      "replica %u: %u prompts prefilling by chunks without chunked prefill", i,
		      r->prefilling.length);
		CHECK(r->prefilling.length || (r->chunk_done == 0 && r->chunk_reserved == 0),
		      "replica %u: no prompt prefilling, %g tokens done, %g reserved", i, r->chunk_done,
		      r->chunk_reserved);
		if (f->prefix) {
			/* the cache within what the running requests leave by the
			 * span's end */
			double grow = r->span_kind == SPAN_RUN ? (double)r->run_count * r->current.end_iteration : 0;
			CHECK(r->context_tokens + r->chunk_reserved + grow + PC_BLOCK * r->cached_blocks <=
			              f->kv_capacity_tokens,
			      "replica %u: %g cached blocks beside %g KV tokens running (%g to come) "
			      "pass the capacity %g",
			      i, r->cached_blocks, r->context_tokens + r->chunk_reserved, grow,
			      f->kv_capacity_tokens);
			CHECK(!deep || lru_sound(f, r, i), "replica %u: the prefix cache's LRU list and "
			      "its count disagree", i);
		}
		bool end = f->end_keys[i] != NONE;
		CHECK(!r->pending || (f->eager && r->span_kind == SPAN_RUN &&
		                      r->pending_from_queue <= r->pending_admissions.length &&
		                      r->pending_admissions.length <= r->run_count),
		      "replica %u: a pending start (span %d, %u admissions, %u from the queue, %u "
		      "running) where none can be",
		      i, r->span_kind, r->pending_admissions.length, r->pending_from_queue, r->run_count);
		switch (r->state) {
		case AIW_REPLICA_FREE:
			CHECK(r->phase == PH_OFF && r->span_kind == SPAN_NONE && !r->outstanding && !end,
			      "replica %u: FREE in phase %d, span %d, holding %u, end %s", i, r->phase,
			      r->span_kind, r->outstanding, end ? "pending" : "none");
			break;
		case AIW_REPLICA_LOADING:
			CHECK(r->phase == PH_LOADING && r->span_kind == SPAN_LOAD && !r->run_count &&
			              !r->prefilling.length && end,
			      "replica %u: LOADING in phase %d, span %d, %u running, end %s", i,
			      r->phase, r->span_kind, r->run_count, end ? "pending" : "none");
			break;
		default:
			if (r->state == AIW_REPLICA_READY) {
				ready++;
				CHECK(r->ready_pos < f->ready_count && f->ready[r->ready_pos] == i,
				      "replica %u: READY but not in the ready set", i);
			}
			if (r->span_kind == SPAN_NONE) {
				CHECK(r->phase == PH_IDLE && !r->run_count && !r->prefilling.length && !end,
				      "replica %u: idle in phase %d, %u running, end %s", i, r->phase,
				      r->run_count, end ? "pending" : "none");
			} else if (r->span_kind == SPAN_RUN) {
				const span *sp = &r->current;
				double t_end = sp->start + sp->prefill_s + span_time(sp, sp->end_iteration);
				CHECK(r->phase == PH_DECODE && (r->run_count || r->prefilling.length) &&
				              r->run_count == sp->batch,
				      "replica %u: span in phase %d, %u running for a batch of %u", i,
				      r->phase, r->run_count, sp->batch);
				/* chunked: a mixed iteration's decodes and chunks within the budget */
				CHECK(!f->chunked || !(sp->prefill_s > 0) || r->mixed_tokens <= f->chunk_budget,
				      "replica %u: a mixed iteration of %g tokens over the budget %g", i,
				      r->mixed_tokens, f->chunk_budget);
				CHECK(!r->prefilling.length || sp->end_iteration == 0,
				      "replica %u: %u prompts prefilling under a decode part of %g iterations",
				      i, r->prefilling.length, sp->end_iteration);
				CHECK(end && f->end_keys[i] == tbits(t_end) && t_end >= now,
				      "replica %u: span ends at %.17g s, its agenda entry %.17g s", i, t_end,
				      end ? btime(f->end_keys[i]) : INFINITY);
			} else if (r->span_kind == SPAN_SERVICE) {
				CHECK(r->phase == PH_DECODE && r->run_count && end &&
				      f->end_keys[i] == tbits(run_min(r)),
				      "replica %u: service in phase %d, %u running, its end %s", i, r->phase,
				      r->run_count, end ? "not the earliest" : "none");
			} else {
				CHECK(false, "replica %u: loading in state %d", i, r->state);
			}
		}
	}
	CHECK(waiting == f->waiting_count, "queues hold %llu, waiting %llu", ULL(waiting),
	      ULL(f->waiting_count));
	CHECK(running == f->running_count, "running sets hold %llu, running %llu", ULL(running),
	      ULL(f->running_count));
	for (int s = 0; s < 4; s++)
		CHECK(states[s] == f->state_count[s], "%u slots in state %d, counted %u", states[s], s,
		      f->state_count[s]);
	CHECK(ready == f->ready_count && f->free_count == states[AIW_REPLICA_FREE],
	      "ready set %u for %u READY, free heap %u for %u FREE", f->ready_count, ready,
	      f->free_count, states[AIW_REPLICA_FREE]);
	for (int p = 0; p < NPH; p++)
		CHECK(phases[p] == f->phase_count[p], "%u slots in phase %d, counted %u", phases[p], p,
		      f->phase_count[p]);
	CHECK(spot == f->spot_count, "%u spot replicas, counted %u", spot, f->spot_count);
	CHECK(f->spares_ready + f->spares_out == f->spares &&
	              (double)(f->missing + f->spares_out) <= f->failed_int.value,
	      "hot spares: %u ready + %u out != %u, or %u missing + %u out > %g in repair",
	      f->spares_ready, f->spares_out, f->spares, f->missing, f->spares_out,
	      f->failed_int.value);
	uint32_t provisioned = f->slot_count - phases[PH_OFF];
	CHECK(f->paid.value == f->replica_gpus * (double)(provisioned + f->spares_ready),
	      "paid GPUs' level %.17g for %u replicas", f->paid.value, provisioned);
	for (int p = PH_LOADING; p < NPH; p++) {
		double gpus = 0;
		for (size_t k = 0; k < f->racks_used; k++)
			gpus += f->racks[k].gpus_by_phase[p];
		CHECK(gpus == f->replica_gpus * phases[p], "racks hold %g GPUs in phase %d, slots %g",
		      gpus, p, f->replica_gpus * phases[p]);
	}
	if (f->batch_power) {
		/* power_model = batch: a level over decode_w only while decoding
		 * (the span's batch's), the fleet's and the racks' sums of them
		 * exact */
		aiwi_xsum fl = {0};
		for (uint32_t i = 0; i < f->slot_count; i++) {
			const replica *r = &f->replicas[i];
			double x = f->slot_extra_w[i];
			CHECK(r->phase == PH_DECODE || x == 0, "replica %u: level %g W in phase %d", i, x,
			      r->phase);
			CHECK(r->phase != PH_DECODE || r->span_kind != SPAN_RUN ||
			              x == batch_power_w(f, r->current.batch) - f->bp_base,
			      "replica %u: level %g W for a batch of %u", i, x, r->current.batch);
			aiwi_xsum_add(&fl, x * f->replica_gpus);
		}
		CHECK(aiwi_xsum_value(&fl) == aiwi_xsum_value(&f->extra_w),
		      "the levels add to %.17g W, the fleet's sum %.17g W", aiwi_xsum_value(&fl),
		      aiwi_xsum_value(&f->extra_w));
		aiwi_xsum *rs = calloc(f->racks_used + 1, sizeof *rs);
		size_t bad = SIZE_MAX;
		for (uint32_t i = 0; rs && i < f->slot_count; i++) {
			const replica *r = &f->replicas[i];
			if (f->slot_extra_w[i] != 0)
				for (size_t k = r->first_rack; k <= r->last_rack; k++)
					aiwi_xsum_add(&rs[k], f->slot_extra_w[i] * slot_gpus_in(f, i, k));
		}
		for (size_t k = 0; rs && k < f->racks_used && bad == SIZE_MAX; k++)
			if (aiwi_xsum_value(&rs[k]) != aiwi_xsum_value(&f->rack_extra_w[k]))
				bad = k;
		free(rs);
		CHECK(bad == SIZE_MAX, "rack %zu: its sum of the levels differs from its slots'", bad);
	}
	/* the agenda: its root is the earliest entry (ties: the lower slot) */
	uint32_t best = 0;
	for (uint32_t i = 1; i < f->leaves; i++)
		if (ag_before(f->end_keys[i], i, f->end_keys[best], best))
			best = i;
	CHECK(f->top_key == f->end_keys[best] && (f->top_key == NONE || f->top_slot == best),
	      "agenda's root slot %u, its earliest entry slot %u", f->top_slot, best);
	double next = next_own(f);
	CHECK(f->in_master || !(next < INFINITY) || (f->master && f->master_time <= next),
	      "the master event (%s at %.17g s) is not at the next own event %.17g s",
	      f->master ? "pending" : "none", f->master_time, next);
}
#undef CHECK
#undef ULL
#endif /* AIW_CHECKS */
