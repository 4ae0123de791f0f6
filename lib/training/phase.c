/*
 * phase.c - the phases of a training job (a step, a checkpoint write, a restart):
 * piecewise-constant GPU power and busy GPUs, integrated exactly.
 */
#include "training/training.h"

#include <math.h>

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
	for (int i = 0; i < ph->n && t0 < x; i++) {
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

/* A phase of dur at constant GPU power, no GPU computing, from t. */
void aiwi_tphase_flat(aiwi_tphase *ph, double t, double dur, double power)
{
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
}
