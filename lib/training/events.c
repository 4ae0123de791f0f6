/*
 * events.c - the events of a training job: the start, step ends, checkpoint
 * writes, failures (Poisson over the job's GPUs), restarts and hot-spare
 * repairs.
 */
#include "training/training.h"

#include <math.h>

#include <gsl/gsl_randist.h>

static void ev_step_end(aiw_sim *sim, void *ctx, uint64_t arg);
static void ev_ckpt_end(aiw_sim *sim, void *ctx, uint64_t arg);
static void ev_restart_end(aiw_sim *sim, void *ctx, uint64_t arg);
static void ev_failure(aiw_sim *sim, void *ctx, uint64_t arg);

/* Draw one step and schedule its end. */
static void begin_step(aiwi_comp *c, aiwi_tjob *T, double t)
{
	if (AIW_UNLIKELY(T->kc)) { /* the site's controller caps it (config.c) */
		aiwi_tcfg k = T->k;
		T->k = *T->kc;
		aiwi_tphase_step(c, T, t);
		T->k = k;
	} else
		aiwi_tphase_step(c, T, t);
	T->state = S_STEP;
	T->ev_phase = aiwi_at(c->sim, t + T->ph.dur, ev_step_end, c, 0);
}

static void begin_flat(aiwi_comp *c, aiwi_tjob *T, double t, double dur, int state, aiwi_evfn fn)
{
	T->raw_on = false;
	if (!T->k.smooth || !aiwi_tphase_flat_smooth(T, t, dur)) {
		if (T->k.smooth) {
			aiwi_err(c->sim, AIW_ENOMEM, "%s: out of memory building a phase", c->prefix);
			aiwi_fail(c->sim, AIW_ENOMEM);
		}
		aiwi_tphase_flat(&T->ph, t, dur, T->k.N * (T->kc ? T->kc : &T->k)->g.idle_w);
	}
	T->state = state;
	T->ev_phase = aiwi_at(c->sim, t + dur, fn, c, 0);
}

static void finish_job(aiwi_comp *c, aiwi_tjob *T, double t)
{
	aiwi_site_cause(c->sim, AIWI_CAUSE_JOB_STOP);
	T->state = S_DONE;
	T->t_done = t;
	if (T->ev_fail)
		aiwi_cancel(c->sim, T->ev_fail);
	T->ev_fail = T->ev_phase = 0;
	c->gpus = 0;
}

static void ev_step_end(aiw_sim *sim, void *ctx, uint64_t arg)
{
	aiwi_comp *c = ctx;
	aiwi_tjob *T = c->state;
	aiwi_tphase *ph = &T->ph;
	double t = aiwi_now(sim);
	T->ev_phase = 0;
	T->e_done += ph->energy;
	if (T->raw_on)
		T->smooth_done += ph->energy - T->raw.energy;
	T->busy_done += ph->busy_s;
	T->bytes_done += ph->bytes;
	T->kbusy_done += ph->kb_gpus * ph->dur;
	T->flops_done += ph->flops;
	T->steps_exec++;
	T->step_sum += ph->dur;
	T->base_sum += ph->base;
	T->tick_steps++;
	T->tick_step_sum += ph->dur;
	aiwi_hist_add(&T->hist, ph->dur);
	double tc = T->k.t_c;
	T->p_steps++;
	T->p_compute += fmin(ph->t_max, tc);
	T->p_wait += fmax(0, ph->t_max - tc);
	T->p_comm += ph->e;
	T->p_bubble += ph->bubble;
	if (T->c_steps + T->p_steps >= T->k.steps_budget)
		finish_job(c, T, t);
	else if (t >= T->next_ckpt) {
		aiwi_site_cause(sim, AIWI_CAUSE_CHECKPOINT);
		begin_flat(c, T, t, T->k.w, S_CKPT, ev_ckpt_end);
	}
	else
		begin_step(c, T, t);
}

static void ev_ckpt_end(aiw_sim *sim, void *ctx, uint64_t arg)
{
	aiwi_comp *c = ctx;
	aiwi_tjob *T = c->state;
	double t = aiwi_now(sim);
	T->ev_phase = 0;
	T->e_done += T->ph.energy;
	if (T->raw_on)
		T->smooth_done += T->ph.energy - T->raw.energy;
	aiwi_site_cause(sim, AIWI_CAUSE_CHECKPOINT);
	if (T->k.ckpt_fail_p > 0 && gsl_rng_uniform(T->crng) < T->k.ckpt_fail_p) {
		/* nothing saved: the write's time joins the work at risk (lost with
		 * it at a failure, booked as checkpoint time at the next save) */
		T->ckpt_failed++;
		T->p_ckpt_s += T->ph.dur;
		T->next_ckpt = t + T->k.tau;
		begin_step(c, T, t);
		return;
	}
	T->checkpoints++;
	T->ckpt_s += T->ph.dur + T->p_ckpt_s;
	T->p_ckpt_s = 0;
	T->c_steps += T->p_steps;
	T->c_compute += T->p_compute;
	T->c_wait += T->p_wait;
	T->c_comm += T->p_comm;
	T->c_bubble += T->p_bubble;
	T->p_steps = T->p_compute = T->p_wait = T->p_comm = T->p_bubble = 0;
	T->last_commit = t;
	T->next_ckpt = t + T->k.tau;
	begin_step(c, T, t);
}

static void ev_restart_end(aiw_sim *sim, void *ctx, uint64_t arg)
{
	aiwi_comp *c = ctx;
	aiwi_tjob *T = c->state;
	double t = aiwi_now(sim);
	T->ev_phase = 0;
	T->e_done += T->ph.energy;
	if (T->raw_on)
		T->smooth_done += T->ph.energy - T->raw.energy;
	aiwi_site_cause(sim, AIWI_CAUSE_RESTART);
	T->restart_s += T->ph.dur;
	T->last_commit = t;
	T->next_ckpt = t + T->k.tau;
	begin_step(c, T, t);
}

static void ev_repair(aiw_sim *sim, void *ctx, uint64_t arg)
{
	aiwi_comp *c = ctx;
	aiwi_tjob *T = c->state;
	T->spares_free++;
}

static void schedule_failure(aiwi_comp *c, aiwi_tjob *T, double t)
{
	T->ev_fail = 0;
	if (T->k.fail_rate > 0)
		T->ev_fail = aiwi_at(c->sim, t + gsl_ran_exponential(T->frng, 1 / T->k.fail_rate),
		                     ev_failure, c, 0);
}

static void ev_failure(aiw_sim *sim, void *ctx, uint64_t arg)
{
	aiwi_comp *c = ctx;
	aiwi_tjob *T = c->state;
	double t = aiwi_now(sim);
	T->ev_fail = 0;
	if (T->state == S_DONE || T->state == S_WAIT)
		return;
	T->failures++;
	aiwi_site_cause(sim, AIWI_CAUSE_FAILURE);
	if (T->ev_phase)
		aiwi_cancel(sim, T->ev_phase);
	T->ev_phase = 0;
	aiwi_training_close_phase_at(T, t);
	if (T->state == S_RESTART) {
		T->restart_s += t - T->ph.t0;
	} else {
		/* everything since the last completed checkpoint is lost */
		T->lost_s += t - T->last_commit;
		T->steps_lost += T->p_steps;
		T->p_steps = T->p_compute = T->p_wait = T->p_comm = T->p_bubble = 0;
		T->p_ckpt_s = 0; /* failed writes since the last save: in lost_s */
	}
	double down = clamp0(aiwi_dist_sample(aiwi_pd(c, P_RESTART), T->frng));
	if (T->spares_free >= 1) {
		T->spares_free--;
		double rep = clamp0(aiwi_dist_sample(aiwi_pd(c, P_REPAIR), T->frng));
		aiwi_at(sim, t + rep, ev_repair, c, 0);
	} else {
		down += clamp0(aiwi_dist_sample(aiwi_pd(c, P_REPLACE), T->frng));
	}
	begin_flat(c, T, t, down, S_RESTART, ev_restart_end);
	schedule_failure(c, T, t);
}

/* The job's expected length without failures and checkpoints: its step
 * budget x a step's expected time as the run's estimate takes it
 * (training.c: (t_c + bubble) E[M] + exposed communication). */
static double expected_length(const aiwi_tcfg *k)
{
	double step = (k->t_c + (k->layout ? k->bubble : 0)) * fmax(k->mu, 1e-6) +
	              (isfinite(k->e0) ? k->e0 : 0);
	return k->steps_budget * step;
}

void aiwi_training_ev_start(aiw_sim *sim, void *ctx, uint64_t arg)
{
	aiwi_comp *c = ctx;
	aiwi_tjob *T = c->state;
	double t = aiwi_now(sim);
	/* deferrable (start_window): placed once, at the window's opening,
	 * where the site's series over the job's expected length is least */
	if (arg == 0 && aiwi_pset(c, P_START_WINDOW)) {
		bool carbon = aiwi_p(c, P_START_POLICY) == 1;
		if (!aiwi_site_has_series(sim, carbon))
			aiwi_warn(sim,
			          "%s.start_window: the site has no %s series (site.%s_daily or _file): "
			          "every start costs the same, the job starts at %g s",
			          c->prefix, carbon ? "carbon intensity" : "electricity price",
			          carbon ? "carbon_intensity" : "electricity_price", t);
		double s = aiwi_site_best_start(sim, carbon, t, t + aiwi_p(c, P_START_WINDOW),
		                                expected_length(&T->k));
		T->deferred_s = s - t;
		if (s > t) {
			T->t_start = s;
			if (!aiwi_at(sim, s, aiwi_training_ev_start, c, 1)) {
				aiwi_err(sim, AIW_ENOMEM, "out of memory deferring %s", c->prefix);
				aiwi_fail(sim, AIW_ENOMEM);
			}
			return;
		}
	}
	c->gpus = T->k.N + T->k.spares;
	aiwi_site_cause(sim, AIWI_CAUSE_JOB_START);
	T->last_commit = t;
	T->next_ckpt = t + T->k.tau;
	if (T->k.steps_budget < 1) {
		finish_job(c, T, t);
		return;
	}
	begin_step(c, T, t);
	schedule_failure(c, T, t);
}
