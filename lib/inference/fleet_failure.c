/*
 * fleet_failure.c - replica failures (replica_failures = on): a provisioned
 * replica fails after an exponential time, its requests are requeued or
 * dropped, it is out for repair_time, a hot spare takes its place at once
 * when one is ready.
 * Part of serving.c's translation unit: included by it after fleet.h, not
 * compiled alone (so that the hot path inlines as in one file).
 *
 * The conventions of the training kind's GPU failures (lib/training/
 * events.c): a GPU fails at 1 / gpu_mtbf (a Poisson process), and the
 * tp x pp GPUs of a replica fail together: a replica fails at
 * gpus_per_replica / gpu_mtbf (or replica_failure_rate).  The process is
 * memoryless, so each replica's failure time is drawn once, when it is
 * provisioned (loading, ready or draining alike: a GPU fails whatever it
 * does), from a stream of its own ("NAME/failure", aiwi_stream_seed), and
 * cancelled when it leaves service first (retire).
 *
 * At a failure (fail_event): the replica's span is booked to now and what
 * it held goes (fail_slot, the path of a spot replica reclaimed: requeued
 * in front of the router's queue, its KV context lost and counted as
 * tokens_lost_failure; or, failure_requests = drop, dropped with reason
 * failure); its slot is FREE (its GPUs draw nothing and are not paid); a
 * repair of repair_time starts.  Then:
 *   - a ready (or loading) replica and a ready hot spare: the spare is
 *     added in its place, ready at once (spares are loaded and idle); the
 *     spare pool refills when the repair ends (a draining replica, which
 *     was leaving, is not replaced);
 *   - else, with an autoscaler: the controller provisions what the desired
 *     count lacks at once, with a cold start (aiwi_autoscale_replica_failed,
 *     the ReplicaSet's replacement of a failed pod); the HPA and KPA see
 *     one ready replica less meanwhile;
 *   - else (a fixed fleet): the replica serves again, ready, when its
 *     repair ends.
 * A repair that ends returns its replica to service first (a fixed fleet
 * short of one), else to the spare pool (if a spare is out), else it is
 * released (the autoscaler replaced it).
 * Spares ready draw idle power and are paid (levels, fleet_energy.c); they
 * hold no slot, so the site's rack curves do not see them.
 */

static void fail_event(aiw_sim *sim, void *ctx, uint64_t arg);
static void repair_event(aiw_sim *sim, void *ctx, uint64_t arg);

/* The run's seed (the sim's `seed`), as the autoscaler's streams take it
 * (controller.c's sim_seed): the failure stream is derived from it and the
 * component's name, so that no other stream of the fleet draws less. */
static uint64_t failure_seed(aiw_sim *sim)
{
	aiwi_comp *sc = aiwi_simcomp(sim);
	size_t i = aiwi_kind_param_index(sc->kind, "seed");
	if (i == SIZE_MAX)
		return 1;
	double d = aiwi_p(sc, i);
	return d < 9007199254740992.0 ? (uint64_t)d : strtoull(aiwi_ps(sc, i), NULL, 10);
}

/* Schedule slot s's failure (a replica just provisioned). */
static void failure_arm(fleet *f, uint32_t s, double now)
{
	if (s >= f->fail_capacity) {
		uint32_t n = f->fail_capacity ? 2 * f->fail_capacity : 16;
		while (n <= s)
			n *= 2;
		uint64_t *p = realloc(f->fail_ev, (size_t)n * sizeof *p);
		if (!p) {
			oom(f);
			return;
		}
		memset(p + f->fail_capacity, 0, (size_t)(n - f->fail_capacity) * sizeof *p);
		f->fail_ev = p;
		f->fail_capacity = n;
	}
	double t = now + gsl_ran_exponential(f->rng_fail, 1 / f->fail_rate);
	f->fail_ev[s] = 0;
	if (isfinite(t) && !(f->fail_ev[s] = aiwi_at(f->sim, t, fail_event, f, s)))
		oom(f);
}

/* Slot s leaves service first (retire): its failure will not come. */
static void failure_disarm(fleet *f, uint32_t s)
{
	if (s < f->fail_capacity && f->fail_ev[s]) {
		aiwi_cancel(f->sim, f->fail_ev[s]);
		f->fail_ev[s] = 0;
	}
}

/* The hot spares ready changed by d at now (their power and price). */
static void spares_move(fleet *f, int d, double now)
{
	advance(f, now);
	f->spares_ready = (uint32_t)((int)f->spares_ready + d);
	aiwi_int_set(&f->spare_int, now, f->spares_ready);
	levels(f);
}

static void fail_event(aiw_sim *sim, void *ctx, uint64_t arg)
{
	fleet *f = ctx;
	uint32_t s = (uint32_t)arg;
	if (f->fail || s >= f->slot_count || f->replicas[s].state == AIW_REPLICA_FREE)
		return;
	f->fail_ev[s] = 0;
	double now = aiwi_now(sim);
	/* a draining replica was leaving: nothing takes its place */
	bool wanted = f->replicas[s].state != AIW_REPLICA_DRAINING;
	uint32_t held = f->replicas[s].outstanding;
	double lost = f->ctx_lost;
	f->replica_failures++;
	aiwi_site_cause(f->sim, AIWI_CAUSE_FAILURE);
	aiw_status st = fail_slot(f, (int)s, f->fail_drop);
	if (st != AIW_OK) {
		aiwi_fail(sim, st);
		f->fail = true;
		return;
	}
	f->tokens_lost_failure += f->ctx_lost - lost;
	if (!f->fail_drop)
		f->requeued_failure += held;
	/* its repair */
	double d = aiwi_dist_sample(aiwi_pd(f->comp, P_REPAIR_TIME), f->rng_fail);
	d = d > 0 && isfinite(d) ? d : 0;
	aiwi_int_set(&f->failed_int, now, f->failed_int.value + 1);
	if (!aiwi_at(sim, now + d, repair_event, f, 0)) {
		oom(f);
		return;
	}
	int spare = -1;
	if (wanted && f->spares_ready > 0) {
		spares_move(f, -1, now);
		f->spares_out++;
		f->spares_used++;
		spare = aiwi_serving_add_replica(f->comp, 0, false);
		if (spare < 0) {
			aiwi_fail(sim, (aiw_status)spare);
			f->fail = true;
			return;
		}
	} else if (wanted && !f->autoscale) {
		f->missing++;
	}
	aiwi_autoscale_replica_failed(f->autoscale, s, spare);
}

static void repair_event(aiw_sim *sim, void *ctx, uint64_t arg)
{
	(void)arg;
	fleet *f = ctx;
	if (f->fail)
		return;
	double now = aiwi_now(sim);
	aiwi_int_set(&f->failed_int, now, f->failed_int.value - 1);
	if (f->missing > 0) {
		f->missing--;
		int s = aiwi_serving_add_replica(f->comp, 0, false);
		if (s < 0) {
			aiwi_fail(sim, (aiw_status)s);
			f->fail = true;
		}
	} else if (f->spares_out > 0) {
		f->spares_out--;
		spares_move(f, +1, now);
	}
	FLEET_CHECK(f);
}

/* At the start (inference_start, after the integrals, before the initial
 * replicas): the rate, the stream, the spare pool, the curve. */
static aiw_status failure_setup(aiwi_comp *c, fleet *f)
{
	if ((int)aiwi_p(c, P_FAILURES) != 1)
		return AIW_OK;
	f->failures = true;
	f->fail_drop = (int)aiwi_p(c, P_FAIL_REQUESTS) == FAILREQ_DROP;
	f->fail_rate = aiwi_pset(c, P_FAIL_RATE) ? aiwi_p(c, P_FAIL_RATE)
	                                         : f->replica_gpus / aiwi_p(c, P_GPU_MTBF);
	f->rng_fail = aiwi_rng_alloc();
	if (!f->rng_fail)
		return aiwi_err(c->sim, AIW_ENOMEM, "out of memory");
	char label[512];
	snprintf(label, sizeof label, "%s/failure", c->prefix);
	gsl_rng_set(f->rng_fail, (unsigned long)aiwi_stream_seed(failure_seed(c->sim), label));
	aiwi_int_init(&f->failed_int, 0, 0);
	aiwi_int_init(&f->spare_int, 0, 0);
	f->spares = (uint32_t)aiwi_p(c, P_HOT_SPARES);
	spares_move(f, (int)f->spares, 0);
	snprintf(label, sizeof label, "%s.replicas_failed", c->prefix);
	if ((f->curve_failed = aiwi_rec_add(c->sim, label, "1")) < 0)
		return (aiw_status)f->curve_failed;
	return AIW_OK;
}

/* The sample at t (inference_sample): the replicas in repair, on average
 * over the interval dt (the curve NAME.replicas_failed, registered only
 * when failures are on, as the prefix cache's cached_tokens: outside the
 * kind's curve table, which the up-front estimate counts for every fleet). */
static void failure_sample(fleet *f, double t, double dt)
{
	aiwi_int_advance(&f->failed_int, t);
	if (dt > 0)
		aiwi_rec_put(f->sim, f->curve_failed, (f->failed_int.sum - f->prev_failed) / dt);
	f->prev_failed = f->failed_int.sum;
}
