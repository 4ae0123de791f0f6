/*
 * serving_api.c - the internal interface of serving.h for the autoscaler
 * (its port, aiwi_serving_port: counts, slots, integrals, replicas added,
 * removed and failed), the exporters and tests (histograms, settings).
 * Part of serving.c's translation unit: included by it after fleet.h, not
 * compiled alone (so that the hot path inlines as in one file).
 */

/* ======================================================================== */
/* the internal API for the autoscaler                                       */
/* ======================================================================== */
void aiwi_serving_get_counts(const aiwi_comp *c, aiwi_serving_counts *out)
{
	memset(out, 0, sizeof *out);
	if (!aiwi_serving_active(c))
		return;
	const fleet *f = F_(c);
	out->ready = f->state_count[AIW_REPLICA_READY];
	out->loading = f->state_count[AIW_REPLICA_LOADING];
	out->draining = f->state_count[AIW_REPLICA_DRAINING];
	out->busy = f->phase_count[PH_DECODE];
	out->spot = f->spot_count;
	uint64_t ahead = eager_waiting(f, aiwi_now(c->sim), NULL);
	out->waiting = f->waiting_count + ahead;
	out->running = f->running_count - ahead;
	out->arrived = f->arrived;
	out->completed = f->completed;
	for (int i = 0; i < NDROP; i++)
		out->dropped += f->dropped[i];
}

size_t aiwi_serving_slots(const aiwi_comp *c)
{
	return aiwi_serving_active(c) ? F_(c)->slot_count : 0;
}

aiwi_replica_state aiwi_serving_replica_state(const aiwi_comp *c, size_t id)
{
	if (!aiwi_serving_active(c) || id >= F_(c)->slot_count)
		return AIW_REPLICA_FREE;
	return (aiwi_replica_state)F_(c)->replicas[id].state;
}

bool aiwi_serving_replica_spot(const aiwi_comp *c, size_t id)
{
	if (!aiwi_serving_active(c) || id >= F_(c)->slot_count)
		return false;
	return F_(c)->replicas[id].spot != 0;
}

uint32_t aiwi_serving_replica_outstanding(const aiwi_comp *c, size_t id)
{
	if (!aiwi_serving_active(c) || id >= F_(c)->slot_count)
		return 0;
	return F_(c)->replicas[id].outstanding;
}

void aiwi_serving_integrals(aiwi_comp *c, double *busy_gpu_s, double *paid_gpu_s,
                           double *waiting_req_s)
{
	double b = 0, p = 0, w = 0;
	if (aiwi_serving_active(c)) {
		fleet *f = F_(c);
		double now = aiwi_now(c->sim);
		advance(f, now);
		aiwi_int_advance(&f->waiting, now);
		double ahead = 0;
		eager_waiting(f, now, &ahead);
		b = f->busy.sum;
		p = f->paid.sum;
		w = f->waiting.sum - ahead;
	}
	if (busy_gpu_s)
		*busy_gpu_s = b;
	if (paid_gpu_s)
		*paid_gpu_s = p;
	if (waiting_req_s)
		*waiting_req_s = w;
}

const aiwi_traffic *aiwi_serving_traffic(const aiwi_comp *c)
{
	return aiwi_serving_active(c) ? F_(c)->traffic : NULL;
}

aiw_status aiwi_serving_set_spot_factor(aiwi_comp *c, double factor)
{
	if (!aiwi_serving_active(c))
		return AIW_ESTATE;
	if (!(factor >= 0 && factor <= 1))
		return aiwi_err(c->sim, AIW_ERANGE, "%s: spot price factor %g must be in [0, 1]",
		                c->prefix, factor);
	fleet *f = F_(c);
	advance(f, aiwi_now(c->sim));
	f->spot_factor = factor;
	levels(f);
	return AIW_OK;
}

static double arrival_rate(const aiwi_comp *c, double t)
{
	return aiwi_serving_active(c) ? aiwi_traffic_rate(F_(c)->traffic, t) : NAN;
}

/* The prompt tokens to prefill of queue q's requests (a preempted one's
 * prompt and the tokens it had generated). */
static double queue_prompt_tokens(const fleet *f, const queue *q)
{
	double n = 0;
	for (uint32_t id = q->head; id != NIL; id = f->requests[id].next)
		n += (double)f->requests[id].prompt + f->requests[id].generated;
	return n;
}

/* The autoscaler's load (port.h): a walk of the queues and the slots, at
 * each of its samples only. */
static void serving_load(const aiwi_comp *c, double *queued_prompt_tokens, double *kv_occupancy)
{
	double tok = 0, occ = 0;
	if (aiwi_serving_active(c)) {
		const fleet *f = F_(c);
		double now = aiwi_now(c->sim);
		tok = queue_prompt_tokens(f, &f->central);
		for (uint32_t i = 0; i < f->slot_count; i++) {
			const replica *r = &f->replicas[i];
			tok += queue_prompt_tokens(f, &r->routed) + queue_prompt_tokens(f, &r->preempted);
			if (f->eager && r->pending && now < r->current.start) /* waiting, as counts */
				tok += queue_prompt_tokens(f, &r->pending_admissions);
			if (r->state == AIW_REPLICA_READY && f->kv_capacity_tokens > 0)
				occ += (r->context_tokens + r->chunk_reserved) / f->kv_capacity_tokens;
		}
	}
	*queued_prompt_tokens = tok;
	*kv_occupancy = occ;
}

const aiwi_fleet_port aiwi_serving_port = {
	.add_replica = aiwi_serving_add_replica,
	.remove_replica = aiwi_serving_remove_replica,
	.fail_replica = aiwi_serving_fail_replica,
	.counts = aiwi_serving_get_counts,
	.slots = aiwi_serving_slots,
	.replica_state = aiwi_serving_replica_state,
	.replica_spot = aiwi_serving_replica_spot,
	.replica_outstanding = aiwi_serving_replica_outstanding,
	.integrals = aiwi_serving_integrals,
	.arrival_rate = arrival_rate,
	.set_spot_factor = aiwi_serving_set_spot_factor,
	.load = serving_load,
};

/* The fleet's autoscaler (NULL: none, or not started). */
static aiwi_autoscaler *autoscaler_of(const aiwi_comp *c)
{
	return aiwi_serving_active(c) ? F_(c)->autoscale : NULL;
}

int32_t aiwi_autoscale_desired(const aiwi_comp *c)
{
	return aiwi_as_desired(autoscaler_of(c));
}

bool aiwi_autoscale_panicking(const aiwi_comp *c)
{
	return aiwi_as_panicking(autoscaler_of(c));
}

double aiwi_autoscale_forecast(const aiwi_comp *c, double t)
{
	return aiwi_as_forecast(autoscaler_of(c), t);
}

#if AIW_CHECKS
aiw_status aiwi_serving_move_replica(aiwi_comp *c, int id, aiwi_replica_state to)
{
	if (!aiwi_serving_active(c))
		return AIW_ESTATE;
	fleet *f = F_(c);
	if (id < 0 || (uint32_t)id >= f->slot_count)
		return aiwi_err(c->sim, AIW_EINVAL, "%s: replica %d: no such slot (0 .. %u)",
		                c->prefix, id, f->slot_count);
	if (to > AIW_REPLICA_DRAINING)
		return aiwi_err(c->sim, AIW_EINVAL, "%s: state %d: not a replica state (0 .. %d)",
		                c->prefix, (int)to, AIW_REPLICA_DRAINING);
	set_state(f, &f->replicas[id], to);
	return f->fail ? AIW_ESTATE : AIW_OK;
}
#endif

const aiwi_hist *aiwi_serving_hist(const aiwi_comp *c, const char *which)
{
	if (!c || !which || c->kind != &aiwi_kind_inference || !c->state)
		return NULL;
	fleet *f = F_(c);
	eager_settle_all(f, aiwi_now(c->sim));
	if (!strcmp(which, "ttft"))
		return &f->ttft;
	if (!strcmp(which, "tpot"))
		return &f->tpot;
	if (!strcmp(which, "e2e"))
		return f->service_mode ? &f->ttft : &f->e2e;
	if (!strcmp(which, "queue_wait"))
		return &f->wait;
	return NULL;
}

aiw_status aiwi_serving_set_eager(aiwi_comp *c, bool eager)
{
	if (!aiwi_serving_active(c))
		return AIW_ESTATE;
	fleet *f = F_(c);
	if (!eager && f->eager) {
		double now = aiwi_now(c->sim);
		for (uint32_t i = 0; i < f->slot_count; i++) {
			replica *r = &f->replicas[i];
			if (!r->pending)
				continue;
			if (now < r->current.start)
				eager_undo(f, r, now);
			else
				eager_settle(f, r);
		}
	}
	f->eager = eager && eager_possible(f);
	FLEET_CHECK(f);
	return f->fail ? AIW_ENOMEM : AIW_OK;
}
