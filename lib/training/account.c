/*
 * account.c - a training job's accounting: energy, busy and kernel-busy
 * GPU-seconds, FLOPs and cost up to any time, mid-phase included; its
 * curves at each sample tick.
 */
#include "training/training.h"

#include <math.h>

/* Seconds the job has been provisioned up to t. */
double aiwi_training_active_s(const aiwi_tjob *T, double t)
{
	return clamp0(fmin(t, T->t_done) - T->t_start);
}

void aiwi_training_account(aiwi_comp *c, double t)
{
	aiwi_tjob *T = c->state;
	double e = 0, b = 0, by = 0;
	if (T->state == S_STEP || T->state == S_CKPT || T->state == S_RESTART)
		aiwi_tphase_partial(&T->ph, t - T->ph.t0, &e, &b, &by);
	double act = aiwi_training_active_s(T, t);
	c->energy_j = T->e_done + e + T->k.fixed_w * act;
	c->busy_gpu_s = T->busy_done + b;
	aiwi_cost_account_fixed(c, &T->k.price, T->k.N + T->k.spares, act);
	double kb = 0, fl = 0;
	if (T->state == S_STEP)
		aiwi_tphase_telemetry(&T->ph, t - T->ph.t0, &kb, &fl);
	c->kbusy_gpu_s = T->kbusy_done + kb;
	c->flops = T->flops_done + fl;
	c->peak_flop_s = T->k.tel_peak;
}

double aiwi_training_bytes_at(const aiwi_tjob *T, double t)
{
	double e, b, by = 0;
	if (T->state == S_STEP)
		aiwi_tphase_partial(&T->ph, t - T->ph.t0, &e, &b, &by);
	return T->bytes_done + by;
}

void aiwi_training_sample(aiwi_comp *c, double t)
{
	aiwi_tjob *T = c->state;
	aiw_sim *sim = c->sim;
	aiwi_training_account(c, t);
	double dt = aiwi_rec_dt(sim);
	aiwi_rec_put(sim, T->id_step, T->tick_steps > 0 ? T->tick_step_sum / T->tick_steps : NAN);
	T->tick_steps = T->tick_step_sum = 0;
	aiwi_rec_put(sim, T->id_tokens, (T->c_steps + T->p_steps) * T->k.tokens_per_step);
	aiwi_rec_put(sim, T->id_ckpt_fail, T->ckpt_failed);
	double by = aiwi_training_bytes_at(T, t);
	aiwi_rec_put(sim, T->id_ew, dt > 0 ? (by - T->prev_bytes) / dt : 0);
	T->prev_bytes = by;
	if (dt > 0) {
		/* every rack gets the same average, so the site's running maxima
		 * change only when it beats the largest reported so far: calling
		 * only then is exact and keeps a tick O(1) in the number of racks */
		double p = (c->energy_j - T->prev_e) / dt / T->racks;
		if (T->racks > 0 && p > T->rack_peak) {
			aiwi_site_racks_uniform(sim, c, (size_t)T->racks, p);
			T->rack_peak = p;
		}
	}
	T->prev_e = c->energy_j;
}
