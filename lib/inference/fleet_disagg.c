/*
 * fleet_disagg.c - prefill/decode disaggregation (Splitwise, Patel et al.,
 * ISCA 2024; DistServe, Zhong et al., OSDI 2024): two fleets, a prefill
 * pool (disaggregation = prefill) and a decode pool (disaggregation =
 * decode) that it names (decode_fleet), each with its own GPU, replicas,
 * parallelism, router, autoscaler and accounting.
 *
 * A request arrives at the prefill pool, is routed and admitted there as
 * in any fleet, and its prefill gives its first token (TTFT ends there).
 * A request of one output token then completes in the prefill pool; any
 * other leaves its prefill replica's batch at the prefill's end (its KV
 * memory free there from then on) and its KV cache of kv_bytes_per_token x
 * prompt bytes moves to the decode pool over kv_link (transfer_time),
 * during which it is the prefill pool's (in flight, "in transfer").  At the
 * transfer's end the decode pool receives it (disagg_receive): it is
 * routed by the decode pool's router and waits in its queues until a
 * replica's KV memory takes it (the same admission rule as a fleet's:
 * its context of prompt + 1 tokens and a token more per running request
 * must fit), then decodes its output - 1 remaining tokens with no prefill
 * (its context is the KV received).
 *
 * Part of serving.c's translation unit: included by it after fleet.h, not
 * compiled alone.
 */

/* The seconds a KV cache of B bytes takes to move after a prefill of tp
 * seconds: alpha + B / bw without overlap; with it (layer by layer), layer
 * l's B / L bytes ready at tp l / L and sent one layer after another, the
 * last is sent at max(tp + B / (L bw), tp / L + B / bw), that is
 * max(B / (L bw), B / bw - (L - 1) tp / L) after the prefill's end. */
static inline double transfer_time(const fleet *f, double bytes, double tp)
{
	double s = bytes / f->kv_bw;
	if (f->kv_overlap) {
		double last = s / f->kv_layers, rest = s - (f->kv_layers - 1) / f->kv_layers * tp;
		s = last > rest ? last : rest;
	}
	return f->kv_alpha + s;
}

static void transfer_done(aiw_sim *sim, void *ctx, uint64_t arg);

/* A request of the prefill pool f whose prefill (tp seconds) ended at now
 * on r: out of r's batch, its KV cache on its way to the decode pool. */
static void disagg_send(fleet *f, replica *r, uint32_t id, double now)
{
	req *q = &f->requests[id];
	r->context_tokens -= (double)q->prompt + q->generated;
	f->running_count--;
	out_add(f, r, -1);
	double bytes = f->kv_bytes_per_token * q->prompt;
	double dt = transfer_time(f, bytes, r->current.prefill_s);
	f->kv_in_transit++;
	f->kv_transfer_bytes += bytes;
	f->kv_transfer_s += dt;
	if (!aiwi_at(f->sim, now + dt, transfer_done, f, id))
		f->fail = true;
}

/* The decode pool d receives request q of the prefill pool at now. */
static void disagg_receive(fleet *d, const req *q, double now)
{
	aiw_sim *sim = d->sim;
	d->arrived++;
	d->kv_received++;
	if ((double)q->prompt + q->output > d->kv_capacity_tokens) {
		d->dropped[DROP_KV_TOO_LARGE]++;
		return;
	}
	uint32_t id = req_alloc(d);
	if (id == NIL) {
		aiwi_err(sim, d->request_capacity >= MAX_IN_FLIGHT ? AIW_ELIMIT : AIW_ENOMEM,
		         "%s: more than %u requests in flight (the decode pool is overloaded), or "
		         "out of memory",
		         d->comp->prefix, d->request_capacity);
		aiwi_fail(sim, d->request_capacity >= MAX_IN_FLIGHT ? AIW_ELIMIT : AIW_ENOMEM);
		d->arrived--;
		d->kv_received--;
		return;
	}
	req *x = &d->requests[id];
	*x = *q;
	x->started = 1; /* its wait and prompt were the prefill pool's */
	x->from_preempted = 0;
	route(d, id, FRESH, now);
}

/* The end of a KV transfer (arg: the request in the prefill pool f). */
static void transfer_done(aiw_sim *sim, void *ctx, uint64_t arg)
{
	fleet *f = ctx;
	double now = aiwi_now(sim);
	uint32_t id = (uint32_t)arg;
	fleet *d = F_(f->decode_comp);
	f->kv_in_transit--;
	f->kv_transfers++;
	if (!d->fail)
		disagg_receive(d, &f->requests[id], now);
	req_free(f, id);
	ag_sync(d);
	FLEET_CHECK(f);
	FLEET_CHECK(d);
}

/* The role of c and what it needs: refusals of what disaggregation does
 * not combine with, a prefill pool's decode pool and link. */
static aiw_status disagg_setup(aiwi_comp *c, fleet *f)
{
	aiw_sim *sim = c->sim;
	f->disagg = (int)aiwi_p(c, P_DISAGG);
	if (f->disagg == DIS_OFF)
		return AIW_OK;
	const char *role = f->disagg == DIS_PREFILL ? "prefill" : "decode";
	const char *bad = f->batching != B_CONTINUOUS ? "batching (allowed: continuous)"
	                  : f->service_mode       ? "service (allowed: unset)"
	                  : f->chunked            ? "chunked_prefill (allowed: off)"
	                  : f->spec               ? "speculative (allowed: off)"
	                  : f->sessions           ? "sessions (allowed: off)"
	                                          : NULL;
	if (bad)
		return aiwi_err(sim, AIW_EINVAL,
		                "%s.disaggregation = %s does not combine with %s.%s: a pool of "
		                "continuous batching with span times prefills or decodes whole "
		                "requests",
		                c->prefix, role, c->prefix, bad);
	f->eager = false; /* admissions are taken and given by the pools' own rules */
	if (f->disagg == DIS_DECODE)
		return AIW_OK;
	if (!aiwi_pset(c, P_DECODE_FLEET))
		return aiwi_err(sim, AIW_EINVAL,
		                "%s.decode_fleet is not set: disaggregation = prefill needs the name of "
		                "an [inference NAME] section with disaggregation = decode",
		                c->prefix);
	const char *name = aiwi_ps(c, P_DECODE_FLEET);
	aiwi_comp *d = NULL;
	if (aiwi_comp_get(sim, "inference", name, false, &d) != AIW_OK || !d)
		return aiwi_err(sim, AIW_EINVAL,
		                "%s.decode_fleet = %s: no [inference %s] section (allowed: the name of "
		                "one with disaggregation = decode)",
		                c->prefix, name, name);
	if ((int)aiwi_p(d, P_DISAGG) != DIS_DECODE)
		return aiwi_err(sim, AIW_EINVAL,
		                "%s.decode_fleet = %s: %s.disaggregation is not decode (allowed: the "
		                "name of an [inference NAME] section with disaggregation = decode)",
		                c->prefix, name, d->prefix);
	f->decode_comp = d;
	const aiwi_link_spec *l = aiwi_hw_link(sim, aiwi_ps(c, P_KV_LINK));
	if (!l) {
		char msg[600];
		snprintf(msg, sizeof msg, "%s", aiw_sim_errmsg(sim));
		return aiwi_err(sim, AIW_EUNKNOWN, "%s.kv_link = %s: %s", c->prefix,
		                aiwi_ps(c, P_KV_LINK), msg);
	}
	f->kv_alpha = l->alpha_s;
	f->kv_bw = l->bw * f->replica_gpus;
	f->kv_layers = aiwi_p(c, P_LAYERS);
	f->kv_overlap = (int)aiwi_p(c, P_KV_OVERLAP) == 1;
	return AIW_OK;
}
