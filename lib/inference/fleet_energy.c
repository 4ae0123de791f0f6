/*
 * fleet_energy.c - accounting: power, busy, paid and cost integrals from integer counts
 * of GPUs per phase, the racks, the phase changes, the prefill surcharge
 * booked ahead and taken back (fleet.h), the waiting integral, and the
 * values at a time t between events (tokens_at, flops_at, energy_at).
 * Part of serving.c's translation unit: included by it after fleet.h, not
 * compiled alone (so that the hot path inlines as in one file).
 */

static void levels(fleet *f)
{
	double w = 0;
	uint32_t prov = 0;
	for (int p = PH_LOADING; p < NPH; p++) {
		w += f->nph[p] * f->w_tot[p];
		prov += f->nph[p];
	}
	f->energy.value = f->g * w;
	f->busy.value = f->g * (double)(f->nph[PH_PREFILL] + f->nph[PH_DECODE]);
	f->paid.value = f->g * (double)prov;
	f->cost.value = f->g * ((double)(prov - f->nspot) + (double)f->nspot * f->spot_factor) *
	                f->price.usd_per_gpu_s;
}

static void advance(fleet *f, double now)
{
	aiwi_int_advance(&f->energy, now);
	aiwi_int_advance(&f->busy, now);
	aiwi_int_advance(&f->paid, now);
	aiwi_int_advance(&f->cost, now);
}

static bool ensure_racks(fleet *f, size_t need)
{
	if (need > f->racks_used)
		f->racks_used = need;
	if (need <= f->nracks)
		return true;
	size_t n = f->nracks ? 2 * f->nracks : 8;
	while (n < need)
		n *= 2;
	rack *p = realloc(f->racks, n * sizeof *p);
	if (!p)
		return false;
	double now = aiwi_now(f->sim);
	for (size_t i = f->nracks; i < n; i++) {
		memset(&p[i], 0, sizeof p[i]);
		aiwi_int_init(&p[i].p, now, 0); /* a new rack held nothing before */
	}
	f->racks = p;
	f->nracks = n;
	return true;
}

/* Replica slot s holds GPUs [s g, s g + g): racks r0..r1 of gpus_per_rack
 * (kept in the replica from its slot's creation: g and gpr are integers
 * fixed for the run). */
static inline void slot_racks(const fleet *f, uint32_t s, size_t *r0, size_t *r1)
{
	*r0 = f->rep[s].rack0;
	*r1 = f->rep[s].rack1;
}

/* GPUs of slot s in rack k of its racks r0..r1: all g of them when it sits
 * in one rack (exactly what the general expression gives then). */
static inline double slot_gpus_in(const fleet *f, uint32_t s, size_t k)
{
	const replica *r = &f->rep[s];
	if (r->rack0 == r->rack1)
		return f->g;
	double first = (double)s * f->g, last = first + f->g;
	return fmin(last, ((double)k + 1) * f->gpr) - fmax(first, (double)k * f->gpr);
}

/* Move replica slot s's GPUs from phase a to phase b in the racks. */
static void rack_move(fleet *f, uint32_t s, int a, int b, double now)
{
	size_t r0, r1;
	slot_racks(f, s, &r0, &r1);
	if (!ensure_racks(f, r1 + 1)) {
		oom(f);
		return;
	}
	for (size_t k = r0; k <= r1; k++) {
		uint32_t n = (uint32_t)slot_gpus_in(f, s, k);
		rack *rk = &f->racks[k];
		aiwi_int_advance(&rk->p, now);
		rk->cnt[a] -= (uint32_t)n;
		rk->cnt[b] += (uint32_t)n;
		double w = 0;
		for (int p = PH_LOADING; p < NPH; p++)
			w += rk->cnt[p] * f->w_tot[p];
		rk->p.value = w;
	}
}

static void phase_change(fleet *f, replica *r, int ph, double now)
{
	int old = r->phase;
	advance(f, now);
	f->nph[old]--;
	f->nph[ph]++;
	if (r->spot) {
		if (old == PH_OFF)
			f->nspot++;
		else if (ph == PH_OFF)
			f->nspot--;
	}
	r->phase = (uint8_t)ph;
	levels(f);
	rack_move(f, (uint32_t)(r - f->rep), old, ph, now);
}

/* The check inline: a busy replica starting its next span stays in its phase. */
static inline void set_phase(fleet *f, replica *r, int ph, double now)
{
	if (r->phase != ph)
		phase_change(f, r, ph, now);
}

/* Book the extra energy of a span's prefill (prefill over decode power). */
static inline void book_prefill(fleet *f, replica *r, double tp, double sign)
{
	double per_gpu = sign * f->w_pre_extra * tp;
	uint32_t s = (uint32_t)(r - f->rep);
	size_t r0, r1;
	slot_racks(f, s, &r0, &r1);
	f->energy_adj += per_gpu * f->g;
	for (size_t k = r0; k <= r1; k++)
		f->racks[k].adj += per_gpu * slot_gpus_in(f, s, k);
}

/* The span r runs at time t: the cut one while a pending start is ahead. */
static inline const span *span_at(const replica *r, double t)
{
	return r->pend && t < r->sp.t0 ? &r->pv : &r->sp;
}

/* Part of the booked prefill energy of replica r still ahead of time t. */
static double prefill_pending(const fleet *f, const replica *r, double t)
{
	const span *sp = span_at(r, t);
	if (r->span != SPAN_RUN || !(t < sp->t0 + sp->tp))
		return 0;
	return f->w_pre_extra * (sp->t0 + sp->tp - t); /* per GPU */
}

static void waiting_add(fleet *f, double now, int d)
{
	aiwi_int_advance(&f->waiting, now);
	f->nwaiting += d;
	f->waiting.value = (double)f->nwaiting;
}

/* Output tokens emitted up to t: the decode iterations of the spans in
 * progress count as they finish, a span's prefill tokens at its end. */
static double tokens_at(const fleet *f, double t)
{
	double tok = f->tokens_out;
	if (f->service_mode)
		return tok;
	for (uint32_t i = 0; i < f->nslots; i++) {
		const replica *r = &f->rep[i];
		if (r->span != SPAN_RUN)
			continue;
		const span *sp = span_at(r, t);
		double x = t - sp->t0 - sp->tp;
		if (x < 0)
			tok -= sp->nfirst;
		else
			tok += sp->n * fmin(span_done_by(sp, x), sp->k_end);
	}
	return tok;
}

/* FLOPs done up to t: prefill FLOPs are booked when a span starts and run
 * at a constant rate over its prefill; decode iterations count as they end. */
static double flops_at(const fleet *f, double t)
{
	double fl = f->flops;
	if (f->service_mode)
		return fl;
	for (uint32_t i = 0; i < f->nslots; i++) {
		const replica *r = &f->rep[i];
		if (r->span != SPAN_RUN)
			continue;
		const span *sp = span_at(r, t);
		double x = t - sp->t0 - sp->tp;
		if (x < 0)
			fl -= 2 * f->P * sp->ptok * (-x / sp->tp);
		else
			fl += 2 * f->P * sp->n * fmin(span_done_by(sp, x), sp->k_end);
	}
	return fl;
}

/* IT energy up to t: the phase integral, plus the prefill energy booked by
 * the spans, less what of it lies after t. */
static double energy_at(const fleet *f, double t)
{
	double e = f->energy.sum + f->energy_adj;
	if (f->service_mode)
		return e;
	for (uint32_t i = 0; i < f->nslots; i++)
		e -= prefill_pending(f, &f->rep[i], t) * f->g;
	return e;
}
