/*
 * fleet_energy.c - accounting: power, busy, paid and cost integrals from
 * integer counts of GPUs per phase, the racks, the phase changes, the
 * prefill surcharge booked ahead and taken back (fleet.h), the waiting
 * integral, and the totals at a time t between events (totals_at: tokens,
 * FLOPs, bytes read, energy).
 * Part of serving.c's translation unit: included by it after fleet.h, not
 * compiled alone (so that the hot path inlines as in one file).
 */

static void levels(fleet *f)
{
	double w = 0;
	uint32_t prov = 0;
	for (int p = PH_LOADING; p < NPH; p++) {
		w += f->phase_count[p] * f->watts[p];
		prov += f->phase_count[p];
	}
	/* replica failures' hot spares ready: loaded, idle and paid */
	if (AIW_UNLIKELY(f->spares_ready)) {
		w += f->spares_ready * f->watts[PH_IDLE];
		prov += f->spares_ready;
	}
	f->energy.value = f->replica_gpus * w;
	if (AIW_UNLIKELY(f->batch_power))
		f->energy.value += aiwi_xsum_value(&f->extra_w);
	f->busy.value = f->replica_gpus * (double)f->phase_count[PH_DECODE];
	f->paid.value = f->replica_gpus * (double)prov;
	if (f->price.commit_gpus >= 0) {
		/* the commitment whatever is provisioned, non-spot GPUs above it
		 * on demand, spot replicas at the on-demand price less the discount */
		double g = f->replica_gpus * (double)(prov - f->spot_count);
		double x = g - f->price.commit_gpus;
		f->excess.value = x > 0 ? x : 0;
		f->stranded.value = x < 0 ? -x : 0;
		f->cost.value = aiwi_cost_commit_rate(&f->price, g) +
		                f->replica_gpus * (double)f->spot_count * f->spot_factor *
		                        f->price.spot_base_usd_per_gpu_s;
	} else if (f->price.spot_base_usd_per_gpu_s == f->price.usd_per_gpu_s)
		f->cost.value =
		        f->replica_gpus *
		        ((double)(prov - f->spot_count) + (double)f->spot_count * f->spot_factor) *
		        f->price.usd_per_gpu_s;
	else /* reserved, committed: spot replicas at the on-demand price less the discount */
		f->cost.value = f->replica_gpus *
		                ((double)(prov - f->spot_count) * f->price.usd_per_gpu_s +
		                 (double)f->spot_count * f->spot_factor *
		                         f->price.spot_base_usd_per_gpu_s);
}

static void advance(fleet *f, double now)
{
	aiwi_int_advance(&f->energy, now);
	aiwi_int_advance(&f->busy, now);
	aiwi_int_advance(&f->paid, now);
	aiwi_int_advance(&f->cost, now);
	if (f->price.commit_gpus >= 0) {
		aiwi_int_advance(&f->excess, now);
		aiwi_int_advance(&f->stranded, now);
	}
}

static bool ensure_racks(fleet *f, size_t need)
{
	if (need > f->racks_used)
		f->racks_used = need;
	if (need <= f->rack_capacity)
		return true;
	size_t n = f->rack_capacity ? 2 * f->rack_capacity : 8;
	while (n < need)
		n *= 2;
	rack *p = realloc(f->racks, n * sizeof *p);
	if (!p)
		return false;
	f->racks = p;
	if (f->batch_power) {
		aiwi_xsum *x = realloc(f->rack_extra_w, n * sizeof *x);
		if (!x)
			return false;
		memset(x + f->rack_capacity, 0, (n - f->rack_capacity) * sizeof *x);
		f->rack_extra_w = x;
	}
	double now = aiwi_now(f->sim);
	for (size_t i = f->rack_capacity; i < n; i++) {
		memset(&p[i], 0, sizeof p[i]);
		aiwi_int_init(&p[i].power, now, 0); /* a new rack held nothing before */
	}
	f->racks = p;
	f->rack_capacity = n;
	return true;
}

/* Replica slot s holds GPUs [s g, s g + g): racks r0..r1 of gpus_per_rack
 * (kept in the replica from its slot's creation: g and gpr are integers
 * fixed for the run). */
static inline void slot_racks(const fleet *f, uint32_t s, size_t *r0, size_t *r1)
{
	*r0 = f->replicas[s].first_rack;
	*r1 = f->replicas[s].last_rack;
}

/* GPUs of slot s in rack k of its racks r0..r1: all g of them when it sits
 * in one rack (exactly what the general expression gives then). */
static inline double slot_gpus_in(const fleet *f, uint32_t s, size_t k)
{
	const replica *r = &f->replicas[s];
	if (r->first_rack == r->last_rack)
		return f->replica_gpus;
	double first = (double)s * f->replica_gpus, last = first + f->replica_gpus;
	return fmin(last, ((double)k + 1) * f->gpus_per_rack) - fmax(first, (double)k * f->gpus_per_rack);
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
		aiwi_int_advance(&rk->power, now);
		rk->gpus_by_phase[a] -= (uint32_t)n;
		rk->gpus_by_phase[b] += (uint32_t)n;
		double w = 0;
		for (int p = PH_LOADING; p < NPH; p++)
			w += rk->gpus_by_phase[p] * f->watts[p];
		if (AIW_UNLIKELY(f->batch_power))
			w += aiwi_xsum_value(&f->rack_extra_w[k]);
		rk->power.value = w;
	}
}

/* power_model = batch: a GPU's decode power with a running batch of n,
 * P(n) = low + (high - low) / (1 + exp(-(log2 n - mid) / width)), low for
 * n < 1 (a span of no decode: its time is all prefill, drawn at prefill_w
 * by the surcharge).  doc/inference.md, "Decode power by batch". */
static inline double batch_power_w(const fleet *f, double n)
{
	return aiwi_batch_power_w(f->bp_low, f->bp_high, f->bp_mid, f->bp_width, n);
}

/* power_model = batch: set slot s's level over the constant decode power
 * to x W per GPU from now on: the fleet's and its racks' power integrals
 * advanced to now, the old level taken back and the new one added
 * (exact sums: a level taken back cancels its booking to the bit). */
static void slot_level(fleet *f, uint32_t s, double x, double now)
{
	double old = f->slot_extra_w[s];
	if (old == x)
		return;
	size_t r0, r1;
	slot_racks(f, s, &r0, &r1);
	if (!ensure_racks(f, r1 + 1)) {
		oom(f);
		return;
	}
	advance(f, now);
	aiwi_xsum_add(&f->extra_w, -old * f->replica_gpus);
	aiwi_xsum_add(&f->extra_w, x * f->replica_gpus);
	f->slot_extra_w[s] = x;
	levels(f);
	for (size_t k = r0; k <= r1; k++) {
		double g = slot_gpus_in(f, s, k);
		rack *rk = &f->racks[k];
		aiwi_int_advance(&rk->power, now);
		aiwi_xsum_add(&f->rack_extra_w[k], -old * g);
		aiwi_xsum_add(&f->rack_extra_w[k], x * g);
		double w = 0;
		for (int p = PH_LOADING; p < NPH; p++)
			w += rk->gpus_by_phase[p] * f->watts[p];
		rk->power.value = w + aiwi_xsum_value(&f->rack_extra_w[k]);
	}
}

/* power_model = batch: r starts a span whose decode runs a batch of n (its
 * prefill draws prefill_w: the surcharge is booked over this level). */
static inline void batch_level(fleet *f, replica *r, double n, double now)
{
	if (AIW_UNLIKELY(f->batch_power))
		slot_level(f, (uint32_t)(r - f->replicas), batch_power_w(f, n) - f->bp_base,
		           now);
}

static void phase_change(fleet *f, replica *r, int ph, double now)
{
	int old = r->phase;
	advance(f, now);
	f->phase_count[old]--;
	f->phase_count[ph]++;
	if (r->spot) {
		if (old == PH_OFF)
			f->spot_count++;
		else if (ph == PH_OFF)
			f->spot_count--;
	}
	r->phase = (uint8_t)ph;
	levels(f);
	rack_move(f, (uint32_t)(r - f->replicas), old, ph, now);
	if (AIW_UNLIKELY(f->batch_power) && old == PH_DECODE)
		slot_level(f, (uint32_t)(r - f->replicas), 0, now);
}

/* The check inline: a busy replica starting its next span stays in its phase. */
static inline void set_phase(fleet *f, replica *r, int ph, double now)
{
	if (r->phase != ph)
		phase_change(f, r, ph, now);
}

/* The energy a GPU draws over `seconds` of prefill beyond what the DECODE
 * phase's integral counts for them, in J: the one formula of the prefill
 * surcharge, booked ahead and taken back (fleet.h). */
static inline double prefill_surcharge(const fleet *f, const replica *r, double seconds)
{
	if (AIW_UNLIKELY(f->batch_power)) /* over the span's level (batch_level) */
		return (f->prefill_extra_w - f->slot_extra_w[r - f->replicas]) * seconds;
	return f->prefill_extra_w * seconds;
}

/* Book (sign +1) or take back for good (sign -1) the surcharge of
 * `seconds` of prefill on replica r: into the fleet's energy and its racks'
 * by GPUs. */
static inline void book_prefill(fleet *f, replica *r, double seconds, double sign)
{
	double per_gpu = sign * prefill_surcharge(f, r, seconds);
	uint32_t s = (uint32_t)(r - f->replicas);
	size_t r0, r1;
	slot_racks(f, s, &r0, &r1);
	aiwi_xsum_add(&f->energy_booked, per_gpu * f->replica_gpus);
	if (AIW_UNLIKELY(f->capped))
		aiwi_xsum_add(&f->prefill_gpu_s, sign * seconds * f->replica_gpus);
	for (size_t k = r0; k <= r1; k++)
		aiwi_xsum_add(&f->racks[k].booked, per_gpu * slot_gpus_in(f, s, k));
}

/* The span r runs at time t: the cut one while a pending start is ahead. */
static inline const span *span_at(const replica *r, double t)
{
	return r->pending && t < r->current.start ? &r->cut_span : &r->current;
}

/* Part of the prefill surcharge booked for replica r still ahead of time t
 * (J per GPU): what a read at t takes back. */
static double prefill_pending(const fleet *f, const replica *r, double t)
{
	const span *sp = span_at(r, t);
	if (r->span_kind != SPAN_RUN || !(t < sp->start + sp->prefill_s))
		return 0;
	return prefill_surcharge(f, r, sp->start + sp->prefill_s - t);
}

/* power_cap: GPU-seconds of replica r's prefill still ahead of time t
 * (booked ahead with the surcharge, book_prefill). */
static double prefill_gpu_s_pending(const fleet *f, const replica *r, double t)
{
	const span *sp = span_at(r, t);
	if (r->span_kind != SPAN_RUN || !(t < sp->start + sp->prefill_s))
		return 0;
	return (sp->start + sp->prefill_s - t) * f->replica_gpus;
}

static void waiting_add(fleet *f, double now, int d)
{
	aiwi_int_advance(&f->waiting, now);
	f->waiting_count += d;
	f->waiting.value = (double)f->waiting_count;
}

/* How far replica r's running span (SPAN_RUN) has got at time t: the span
 * it runs then (span_at), inside its prefill or past it.  What totals_at
 * corrects the booked totals by, and what a failure at t books for good
 * (aiwi_serving_fail_replica). */
typedef struct progress {
	const span *sp; /* the span at t (cut_span before a pending start) */
	double S;       /* context tokens at its start */
	double Q;       /* the sum of the squared lengths of its prefill's prompts */
	bool in_prefill; /* t is before the end of its prefill */
	double undone;  /* in_prefill: the fraction of its prefill still ahead of t */
	double k;       /* past it: decode iterations done by t (at most end_iteration) */
} progress;

static inline progress span_progress(const fleet *f, const replica *r, double t)
{
	progress p;
	p.sp = span_at(r, t);
	bool cut = p.sp == &r->cut_span;
	p.S = cut ? r->context_before_cut : r->context_tokens;
	p.Q = cut ? r->prefill_sq_before_cut : r->prefill_sq;
	double x = t - p.sp->start - p.sp->prefill_s;
	p.in_prefill = x < 0;
	p.undone = p.in_prefill ? -x / p.sp->prefill_s : 0;
	p.k = p.in_prefill ? 0 : fmin(span_iterations_by(p.sp, x), p.sp->end_iteration);
	return p;
}

/* The fleet's totals at a time t between events, in one pass over the
 * slots (each total adds its terms in slot order, as it would alone):
 *  - tokens: output tokens emitted up to t: the decode iterations of the
 *    spans in progress count as they finish, a span's prefill tokens at
 *    its end;
 *  - flops: FLOPs done up to t, attention's included (prefill_flops,
 *    span_flops): prefill FLOPs are booked when a span starts and run at a
 *    constant rate over its prefill; decode iterations count as they end;
 *  - dram: bytes read from GPU memory up to t, as the FLOPs: a prefill
 *    reads the weights once, at a constant rate over it; decode iteration
 *    j of a span reads the weights and the batch's KV cache (span_dram);
 *  - energy: IT energy up to t: the phase integral, plus the prefill energy
 *    booked by the spans, less what of it lies after t. */
typedef struct fleet_at {
	double tokens, flops, dram, energy;
} fleet_at;

static void totals_at(const fleet *f, double t, fleet_at *o)
{
	double tok = f->tokens_out, fl = f->flops, by = f->dram_bytes;
	double e = f->energy.sum + aiwi_xsum_value(&f->energy_booked);
	if (!f->service_mode) {
		for (uint32_t i = 0; i < f->slot_count; i++) {
			const replica *r = &f->replicas[i];
			e -= prefill_pending(f, r, t) * f->replica_gpus;
			if (r->span_kind != SPAN_RUN)
				continue;
			progress p = span_progress(f, r, t);
			if (p.in_prefill && AIW_UNLIKELY(f->chunked)) {
				/* a mixed iteration: the decoders' tokens, FLOPs and
				 * bytes with the chunks' (fleet_chunk.c) */
				tok -= p.sp->first_tokens;
				fl -= r->mixed_flops * p.undone;
				by -= r->mixed_dram * p.undone;
			} else if (p.in_prefill) {
				tok -= p.sp->first_tokens;
				fl -= prefill_flops(f, p.sp->prefill_tokens, p.Q) * p.undone;
				if (p.sp->prefill_s > 0)
					by -= f->weight_bytes * p.undone;
			} else {
				tok += p.sp->batch * p.k;
				fl += span_flops(f, p.sp, p.k, p.S);
				by += span_dram(f, p.sp, p.k, p.S);
			}
		}
	}
	o->tokens = tok;
	o->flops = fl;
	o->dram = by;
	o->energy = e;
}
