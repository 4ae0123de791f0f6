/*
 * phase.c - the phases of a training job (a step, a checkpoint write, a restart):
 * piecewise-constant GPU power and busy GPUs, integrated exactly.
 *
 * With GPU power smoothing (power_floor, power_ramp_down) or a staggered
 * pipeline bubble the phase is built from groups of GPUs instead: each
 * group has a piecewise-constant target power per GPU (compute_w while
 * computing, idle_w waiting, comm_w in the exposed communication, each
 * raised to the floor); a GPU's power jumps up to a higher target and
 * falls to a lower one at power_ramp_down W/s at most, burning the
 * difference, so that per GPU
 *   p(t) = max(target(t), max_{s <= t} target(s) - R (t - s))
 * (from the power the GPUs had at the end of the last phase), piecewise
 * linear.  The job's power is the sum over groups: piecewise linear too,
 * its pieces integrated exactly (the trapezoid of a linear piece).
 * The staggered bubble (bubble_shape): stage s of pp idles s / (pp - 1)
 * of the bubble before its compute and the rest after it, so the stages
 * start and stop one after another (a staircase) and the step's time, its
 * busy and its idle GPU-seconds are those of the aligned bubble.
 */
#include "training/training.h"

#include <math.h>
#include <stdlib.h>

static void piece_add(aiwi_tphase *ph, double end, double power, double busy)
{
	ph->end[ph->n] = end;
	ph->power[ph->n] = power;
	ph->busy[ph->n] = busy;
	ph->n++;
}

/* integrals of ph over [t0, t0 + x] */
void aiwi_tphase_partial(const aiwi_tphase *ph, double x, double *e, double *b, double *by)
{
	*e = *b = *by = 0;
	if (!(x > 0))
		return;
	if (x >= ph->dur) {
		*e = ph->energy;
		*b = ph->busy_s;
		*by = ph->bytes;
		return;
	}
	double t0 = 0;
	if (ph->lin) {
		for (int i = 0; i < ph->x_n && t0 < x; i++) {
			double len = ph->x_end[i] - t0, t1 = fmin(ph->x_end[i], x);
			if (t1 > t0) {
				double px = ph->x_p0[i] + (ph->x_p1[i] - ph->x_p0[i]) * ((t1 - t0) / len);
				*e += 0.5 * (ph->x_p0[i] + px) * (t1 - t0);
				*b += ph->x_busy[i] * (t1 - t0);
			}
			t0 = ph->x_end[i];
		}
	}
	for (int i = 0; !ph->lin && i < ph->n && t0 < x; i++) {
		double t1 = fmin(ph->end[i], x);
		if (t1 > t0) {
			*e += ph->power[i] * (t1 - t0);
			*b += ph->busy[i] * (t1 - t0);
		}
		t0 = ph->end[i];
	}
	if (ph->bytes > 0 && ph->comm_len > 0) {
		double f = (x - (ph->dur - ph->comm_len)) / ph->comm_len;
		*by = ph->bytes * fmin(1, fmax(0, f));
	}
}

/* telemetry integrals of ph over [t0, t0 + x]: kernel-busy GPU-seconds and
 * hardware FLOPs (spread over the phase as its computing GPU-seconds) */
void aiwi_tphase_telemetry(const aiwi_tphase *ph, double x, double *kb, double *fl)
{
	double e, b, by;
	aiwi_tphase_partial(ph, x, &e, &b, &by);
	*kb = ph->kb_gpus * fmin(fmax(x, 0), ph->dur);
	*fl = ph->busy_s > 0 ? ph->flops * fmin(1, b / ph->busy_s) : 0;
}

static void phase_close(aiwi_tphase *ph)
{
	ph->dur = ph->n ? ph->end[ph->n - 1] : 0;
	ph->energy = ph->busy_s = 0;
	double t0 = 0;
	for (int i = 0; i < ph->n; i++) {
		ph->energy += ph->power[i] * (ph->end[i] - t0);
		ph->busy_s += ph->busy[i] * (ph->end[i] - t0);
		t0 = ph->end[i];
	}
}


/* ------------------------------------------------------------------------ */
/* groups of GPUs: smoothing and the staggered bubble                         */
/* ------------------------------------------------------------------------ */
typedef struct tev {
	double t, jump, dslope, dbusy;
	int dramp; /* groups ramping down: +1 starts, -1 ends */
} tev;

typedef struct tgroup_build {
	tev *ev;
	int ne, cap;
	bool oom;
} tgroup_build;

static void emit(tgroup_build *B, double t, double jump, double dslope, double dbusy, int dramp)
{
	if (B->oom)
		return;
	if (B->ne == B->cap) {
		int nc = B->cap ? 2 * B->cap : 64;
		tev *n = realloc(B->ev, (size_t)nc * sizeof *n);
		if (!n) {
			B->oom = true;
			return;
		}
		B->ev = n;
		B->cap = nc;
	}
	B->ev[B->ne++] = (tev){t, jump, dslope, dbusy, dramp};
}

/* A group of n GPUs: targets lv[k] on [b[k-1], b[k]) (b[-1] = 0), busy[k]
 * its GPUs computing, from v0 W per GPU at 0, falling at R W/s at most.
 * Returns the power per GPU at the group's end. */
static double group_emit(tgroup_build *B, double n, int ns, const double *b, const double *lv,
                         const bool *busy, double v0, double R)
{
	double a = 0, v = v0;
	bool ramping = false;
	emit(B, 0, n * v0, 0, 0, 0);
	for (int k = 0; k < ns; a = b[k], k++) {
		if (!(b[k] > a))
			continue;
		if (busy[k]) {
			emit(B, a, 0, 0, n, 0);
			emit(B, b[k], 0, 0, -n, 0);
		}
		double L = lv[k];
		if (L >= v || !isfinite(R)) {
			emit(B, a, n * (L - v), ramping ? n * R : 0, 0, ramping ? -1 : 0);
			v = L;
			ramping = false;
			continue;
		}
		if (!ramping)
			emit(B, a, 0, -n * R, 0, 1);
		ramping = true;
		double tr = a + (v - L) / R;
		if (tr < b[k]) {
			emit(B, tr, 0, n * R, 0, -1);
			ramping = false;
			v = L;
		} else {
			v -= R * (b[k] - a);
		}
	}
	return v;
}

static int ev_cmp(const void *x, const void *y)
{
	double a = ((const tev *)x)->t, b = ((const tev *)y)->t;
	return (a > b) - (a < b);
}

static bool buf_reserve(aiwi_tbuf *f, int n)
{
	if (n <= f->cap)
		return true;
	int nc = f->cap ? f->cap : 16;
	while (nc < n)
		nc *= 2;
	double *p[4] = {f->end, f->p0, f->p1, f->busy};
	for (int i = 0; i < 4; i++) {
		double *q = realloc(p[i], (size_t)nc * sizeof *q);
		if (!q)
			return false;
		p[i] = q;
		if (i == 0)
			f->end = q;
		else if (i == 1)
			f->p0 = q;
		else if (i == 2)
			f->p1 = q;
		else
			f->busy = q;
	}
	f->cap = nc;
	return true;
}

/* Sweep the events into ph's linear pieces over [0, dur]. */
static bool sweep(aiwi_tphase *ph, aiwi_tbuf *f, tgroup_build *B, double dur)
{
	if (B->oom)
		return false;
	qsort(B->ev, (size_t)B->ne, sizeof *B->ev, ev_cmp);
	if (!buf_reserve(f, B->ne + 1))
		return false;
	ph->lin = true;
	ph->x_end = f->end, ph->x_p0 = f->p0, ph->x_p1 = f->p1, ph->x_busy = f->busy;
	ph->x_n = 0;
	ph->n = 0;
	double V = 0, S = 0, busy = 0, t = 0, E = 0, BS = 0, scale = 0;
	int ramps = 0;
	for (int i = 0; i < B->ne; i++)
		scale += fabs(B->ev[i].dbusy);
	for (int i = 0; i < B->ne;) {
		double te = B->ev[i].t;
		for (; i < B->ne && B->ev[i].t == te; i++) {
			V += B->ev[i].jump;
			S += B->ev[i].dslope;
			busy += B->ev[i].dbusy;
			ramps += B->ev[i].dramp;
		}
		if (ramps == 0)
			S = 0; /* no group ramping: flat, whatever the sums' rounding */
		double t1 = i < B->ne ? fmin(B->ev[i].t, dur) : dur;
		if (!(t1 > te))
			continue;
		int j = ph->x_n++;
		double p1 = V + S * (t1 - te);
		ph->x_end[j] = t1;
		ph->x_p0[j] = V;
		ph->x_p1[j] = p1;
		ph->x_busy[j] = busy > 1e-12 * scale ? busy : 0; /* the sums' rounding: none */
		E += 0.5 * (V + p1) * (t1 - te);
		BS += ph->x_busy[j] * (t1 - te);
		V = p1;
		t = t1;
	}
	(void)t;
	ph->dur = dur;
	ph->energy = E;
	ph->busy_s = BS;
	return true;
}

/* Power of ph at x (linear pieces; W, the whole job). */
double aiwi_tphase_power_at(const aiwi_tphase *ph, double x)
{
	if (!ph->lin || ph->x_n == 0)
		return 0;
	double t0 = 0;
	for (int i = 0; i < ph->x_n; i++) {
		if (x <= ph->x_end[i] || i == ph->x_n - 1) {
			double len = ph->x_end[i] - t0, f = len > 0 ? fmin(1, fmax(0, (x - t0) / len)) : 1;
			return ph->x_p0[i] + (ph->x_p1[i] - ph->x_p0[i]) * f;
		}
		t0 = ph->x_end[i];
	}
	return 0;
}

/* The step's groups: jitter groups gt (compute ends), gn (GPUs), each split
 * into pp stages when staggered; floor F, ramp R; per-GPU start v0. */
static bool build_step(aiwi_tphase *ph, aiwi_tbuf *f, const aiwi_tcfg *k, const double *gt,
                       const double *gn, int ng, double tmax, double bub, double F, double R,
                       double v0, double *v_end)
{
	tgroup_build B = {f->ev, 0, f->ecap, false}; /* the events' storage, reused */
	double idle = fmax(k->g.idle_w, F), comp = fmax(k->g.compute_w, F);
	double comm = fmax(k->g.comm_w, F);
	double tb = tmax + bub, dur = k->e > 0 ? tb + k->e : tb;
	int stages = k->staggered ? (int)k->L.pp : 1;
	double vsum = 0, nsum = 0;
	for (int s = 0; s < stages; s++) {
		double w = stages > 1 ? bub * s / (stages - 1) : 0;
		for (int i = 0; i < ng; i++) {
			double ce = gt[i] > 0 ? fmin(gt[i], tmax) : 0, n = gn[i] / stages;
			double b[4] = {w, w + ce, tb, dur}, lv[4] = {idle, comp, idle, comm};
			bool bz[4] = {false, true, false, false};
			vsum += n * group_emit(&B, n, 4, b, lv, bz, v0, R);
			nsum += n;
		}
	}
	bool ok = sweep(ph, f, &B, dur);
	f->ev = B.ev;
	f->ecap = B.cap;
	*v_end = nsum > 0 ? vsum / nsum : v0;
	return ok;
}

/* The GPUs' power per GPU now, from the phase in progress (smoothing's
 * start of the next phase). */
static double gpu_power_now(const aiwi_tjob *T, double t)
{
	return T->ph.lin && T->k.N > 0 ? aiwi_tphase_power_at(&T->ph, t - T->ph.t0) / T->k.N : 0;
}

/* Draw one step starting at t into T->ph. */
void aiwi_tphase_step(aiwi_comp *c, aiwi_tjob *T, double t)
{
	const aiwi_tcfg *k = &T->k;
	const aiwi_dist *jit = aiwi_pd(c, P_JITTER);
	double N = k->N, tc = k->t_c, mu = k->mu;
	/* class maxima of the multiplier (slow class includes slow_factor) */
	double mf = -INFINITY, ms = -INFINITY;
	if (k->n_fast > 0)
		mf = clamp0(aiwi_dist_sample_max(jit, c->rng, k->n_fast));
	if (k->n_slow > 0)
		ms = k->slow_factor * clamp0(aiwi_dist_sample_max(jit, c->rng, k->n_slow));
	double m = fmax(fmax(mf, ms), 1e-6); /* a step takes at least 1e-6 t_c */
	/* compute end of each group: the class maxima and the rest of each class
	 * at its expected compute time (capped by its class maximum) */
	double gt[4], gn[4];
	int ng = 0;
	if (k->n_fast >= 2)
		gt[ng] = tc * fmin(mu, mf), gn[ng++] = k->n_fast - 1;
	if (k->n_fast >= 1)
		gt[ng] = tc * mf, gn[ng++] = 1;
	if (k->n_slow >= 2)
		gt[ng] = tc * fmin(k->slow_factor * mu, ms), gn[ng++] = k->n_slow - 1;
	if (k->n_slow >= 1)
		gt[ng] = tc * ms, gn[ng++] = 1;
	for (int i = 1; i < ng; i++) /* insertion sort by end time */
		for (int j = i; j > 0 && gt[j] < gt[j - 1]; j--) {
			double a = gt[j], b = gn[j];
			gt[j] = gt[j - 1], gn[j] = gn[j - 1];
			gt[j - 1] = a, gn[j - 1] = b;
		}
	aiwi_tphase *ph = &T->ph;
	if (k->smooth || k->staggered) {
		double tmax = tc * m, bub = k->bubble > 0 ? k->bubble * m : 0, v_end;
		double v0 = gpu_power_now(T, t);
		bool ok = true;
		T->raw_on = k->smooth;
		if (k->smooth) {
			T->raw.t0 = t;
			ok = build_step(&T->raw, &T->rbuf, k, gt, gn, ng, tmax, bub, 0, INFINITY, 0, &v_end);
		}
		ph->t0 = t;
		ok = ok && build_step(ph, &T->buf, k, gt, gn, ng, tmax, bub, k->floor_w, k->ramp_down,
		                      v0, &v_end);
		if (!ok) { /* out of memory: the step as if unsmoothed */
			aiwi_err(c->sim, AIW_ENOMEM, "%s: out of memory building a step", c->prefix);
			aiwi_fail(c->sim, AIW_ENOMEM);
			ph->lin = false;
			T->raw_on = false;
		} else {
			ph->t_max = tmax;
			ph->e = k->e;
			ph->bubble = bub;
			ph->base = k->bubble > 0 ? tc + k->bubble + k->e0 : tc + k->e0;
			ph->bytes = k->ew_node;
			ph->comm_len = fmin(k->t_comm, ph->dur);
			ph->kb_gpus = N;
			ph->flops = k->hw_flops_step;
			return;
		}
	}
	ph->lin = false;
	T->raw_on = false;
	ph->t0 = t;
	ph->n = 0;
	double idle = N * k->g.idle_w, dw = k->g.compute_w - k->g.idle_w;
	double running = N, tmax = tc * m;
	for (int i = 0; i < ng; i++) {
		if (gt[i] > 0)
			piece_add(ph, fmin(gt[i], tmax), idle + dw * running, running);
		running -= gn[i];
	}
	if (ph->n == 0 || ph->end[ph->n - 1] < tmax) /* the 1e-6 floor */
		piece_add(ph, tmax, idle, 0);
	/* the pipeline bubble runs at the slowest stage's pace (the jitter's
	 * maximum), every GPU waiting in it at idle power */
	double bub = k->bubble > 0 ? k->bubble * m : 0, tb = tmax + bub;
	if (bub > 0)
		piece_add(ph, tb, idle, 0);
	if (k->e > 0)
		piece_add(ph, tb + k->e, N * k->g.comm_w, 0);
	phase_close(ph);
	ph->t_max = tmax;
	ph->e = k->e;
	ph->bubble = bub;
	ph->base = k->bubble > 0 ? tc + k->bubble + k->e0 : tc + k->e0;
	ph->bytes = k->ew_node;
	ph->comm_len = fmin(k->t_comm, ph->dur);
	/* kernel-busy: a GPU that finished its compute waits for the slowest
	 * inside the gradient reduction's NCCL kernel, and a pipeline stage
	 * in the bubble inside its NCCL receive, both spinning on the GPU,
	 * which nvidia-smi counts as busy: the whole step, on every GPU */
	ph->kb_gpus = N;
	ph->flops = k->hw_flops_step;
}

/* A flat phase (checkpoint write, restart) of dur from t with smoothing:
 * the GPUs idle at the floor, falling from their power now. */
bool aiwi_tphase_flat_smooth(aiwi_tjob *T, double t, double dur)
{
	const aiwi_tcfg *k = &T->k;
	double v0 = gpu_power_now(T, t), N = k->N, b[1] = {dur};
	bool bz[1] = {false};
	tgroup_build B = {T->buf.ev, 0, T->buf.ecap, false}, R = {T->rbuf.ev, 0, T->rbuf.ecap, false};
	double lv[1] = {fmax(k->g.idle_w, k->floor_w)}, l0[1] = {k->g.idle_w};
	group_emit(&B, N, 1, b, lv, bz, v0, k->ramp_down);
	group_emit(&R, N, 1, b, l0, bz, 0, INFINITY);
	T->ph.t0 = T->raw.t0 = t;
	bool ok = sweep(&T->ph, &T->buf, &B, dur) && sweep(&T->raw, &T->rbuf, &R, dur);
	T->buf.ev = B.ev, T->buf.ecap = B.cap;
	T->rbuf.ev = R.ev, T->rbuf.ecap = R.cap;
	T->raw_on = ok;
	T->ph.bytes = T->ph.comm_len = 0;
	T->ph.kb_gpus = T->ph.flops = 0;
	return ok;
}

void aiwi_tphase_free(aiwi_tjob *T)
{
	aiwi_tbuf *f[2] = {&T->buf, &T->rbuf};
	for (int i = 0; i < 2; i++) {
		free(f[i]->end);
		free(f[i]->p0);
		free(f[i]->p1);
		free(f[i]->busy);
		free(f[i]->ev);
	}
}

/* A phase of dur at constant GPU power, no GPU computing, from t. */
void aiwi_tphase_flat(aiwi_tphase *ph, double t, double dur, double power)
{
	ph->lin = false;
	ph->t0 = t;
	ph->n = 0;
	piece_add(ph, dur, power, 0);
	phase_close(ph);
	ph->bytes = ph->comm_len = 0;
	ph->kb_gpus = ph->flops = 0; /* checkpoint writes, restarts: no kernel */
}

/* Add the current phase's integrals up to t to the finished totals. */
void aiwi_training_close_phase_at(aiwi_tjob *T, double t)
{
	double e, b, by;
	aiwi_tphase_partial(&T->ph, t - T->ph.t0, &e, &b, &by);
	T->e_done += e;
	T->busy_done += b;
	T->bytes_done += by;
	double kb, fl;
	aiwi_tphase_telemetry(&T->ph, t - T->ph.t0, &kb, &fl);
	T->kbusy_done += kb;
	T->flops_done += fl;
	if (T->raw_on) {
		double er, br, byr;
		aiwi_tphase_partial(&T->raw, t - T->raw.t0, &er, &br, &byr);
		T->smooth_done += e - er;
	}
}

/* The smoothing's energy of the phase in progress up to t (J). */
double aiwi_training_smooth_partial(const aiwi_tjob *T, double t)
{
	if (!T->raw_on || !(T->state == S_STEP || T->state == S_CKPT || T->state == S_RESTART))
		return 0;
	double e, b, by, er;
	aiwi_tphase_partial(&T->ph, t - T->ph.t0, &e, &b, &by);
	aiwi_tphase_partial(&T->raw, t - T->raw.t0, &er, &b, &by);
	return e - er;
}
