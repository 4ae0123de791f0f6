/*
 * training.c - the [training NAME] kind: its descriptor and hooks (start, estimate,
 * parameter changes, destroy); the model is described in training.h.
 */
#include "training/training.h"

#include <math.h>
#include <stdlib.h>

#include <gsl/gsl_rng.h>

/* ------------------------------------------------------------------------ */
/* the kind's hooks                                                          */
/* ------------------------------------------------------------------------ */
static aiw_status training_start(aiwi_comp *c)
{
	aiw_sim *sim = c->sim;
	aiwi_tjob *T = calloc(1, sizeof *T);
	if (!T)
		return aiwi_err(sim, AIW_ENOMEM, "out of memory");
	c->state = T;
	T->ctl_frac = 1;
	aiw_status st = aiwi_training_derive(c, &T->k);
	if (st != AIW_OK)
		return st;
	char e[256];
	if ((st = aiwi_hist_init(&T->hist, AIW_HIST_MIN_S, AIW_HIST_MAX_S, 1e-3, e, sizeof e)) !=
	    AIW_OK)
		return aiwi_err(sim, st, "%s: %s", c->prefix, e);
	/* failures get their own stream, seeded from this component's, so the
	 * failure times do not change with the jitter model */
	T->frng = aiwi_rng_alloc();
	if (!T->frng)
		return aiwi_err(sim, AIW_ENOMEM, "out of memory");
	uint64_t s = gsl_rng_get(c->rng);
	gsl_rng_set(T->frng, (unsigned long)aiwi_stream_seed(s, "failures"));
	/* checkpoint outcomes too (drawn only when checkpoint_failure_prob > 0,
	 * so that a job without it draws exactly as before) */
	T->crng = aiwi_rng_alloc();
	if (!T->crng)
		return aiwi_err(sim, AIW_ENOMEM, "out of memory");
	gsl_rng_set(T->crng, (unsigned long)aiwi_stream_seed(s, "checkpoints"));
	char n[300];
	snprintf(n, sizeof n, "%s.step_time_s", c->prefix);
	T->id_step = aiwi_rec_add(sim, n, "s");
	snprintf(n, sizeof n, "%s.tokens", c->prefix);
	T->id_tokens = aiwi_rec_add(sim, n, "1");
	snprintf(n, sizeof n, "%s.east_west_bytes_per_s_per_node", c->prefix);
	T->id_ew = aiwi_rec_add(sim, n, "B/s");
	snprintf(n, sizeof n, "%s.checkpoint_failures", c->prefix);
	T->id_ckpt_fail = aiwi_rec_add(sim, n, "1");
	if (T->id_step < 0 || T->id_tokens < 0 || T->id_ew < 0 || T->id_ckpt_fail < 0)
		return T->id_step < 0      ? T->id_step
		       : T->id_tokens < 0  ? T->id_tokens
		       : T->id_ew < 0      ? T->id_ew
		                           : T->id_ckpt_fail;
	if (T->k.layout && aiwi_p(c, P_BUBBLE_SHAPE) == 1 && !(T->k.L.pp > 1))
		aiwi_warn(sim,
		          "%s.bubble_shape = staggered has no effect: it applies only with pp > 1 "
		          "(a pipeline bubble), and pp = %g",
		          c->prefix, T->k.L.pp);
	T->racks = ceil((T->k.N + T->k.spares) / aiwi_site_gpus_per_rack(sim));
	T->spares_free = T->k.spares;
	T->state = S_WAIT;
	T->t_start = aiwi_p(c, P_START);
	T->t_done = INFINITY;
	if (aiwi_pset(c, P_START_WINDOW) && !isfinite(T->k.steps_budget))
		return aiwi_err(sim, AIW_ESCENARIO,
		                "%s.start_window = %g s needs the job's length: set max_steps or "
		                "max_tokens",
		                c->prefix, aiwi_p(c, P_START_WINDOW));
	if (!aiwi_at(sim, T->t_start, aiwi_training_ev_start, c, 0))
		return AIW_ENOMEM;
	return AIW_OK;
}

static aiw_status training_param_changed(aiwi_comp *c, size_t idx)
{
	aiwi_tjob *T = c->state;
	aiwi_tcfg k;
	aiw_status st = aiwi_training_derive(c, &k);
	if (st != AIW_OK)
		return st;
	/* takes effect from the next step; the step in progress keeps its draws */
	T->k = k;
	if (T->kc)
		aiwi_training_cap_rebuild(c, T);
	if (idx == P_CKPT_INTERVAL)
		T->next_ckpt = T->last_commit + k.tau;
	return AIW_OK;
}

static void training_destroy(aiwi_comp *c)
{
	aiwi_tjob *T = c->state;
	aiwi_hist_free(&T->hist);
	free(T->kc);
	aiwi_tphase_free(T);
	if (T->frng)
		gsl_rng_free(T->frng);
	if (T->crng)
		gsl_rng_free(T->crng);
	free(T);
	c->state = NULL;
}

/* The run's work from the configuration start derives (aiwi_training_derive(), the
 * layout model's step when `layers` is set): steps of a lower bound of the
 * expected step time, (t_c + bubble) max(E[M], 1e-6) plus the exposed
 * communication without degraded links (the slowest GPU's multiplier has a
 * mean >= E[M]), up to the step budget; failures of the GPUs over the
 * job's span. */
static void training_estimate(aiwi_comp *c, aiwi_estimate *E)
{
	aiw_sim *sim = c->sim;
	double span = fmax(0, aiwi_est_duration(E) - aiwi_p(c, P_START));
	char a[64], d[64], p[64];
	aiwi_tcfg k;
	if (aiwi_training_derive(c, &k) == AIW_OK) {
		/* a layout's pipeline bubble stretches with the slowest stage */
		double step = (k.t_c + (k.layout ? k.bubble : 0)) * fmax(k.mu, 1e-6) +
		              (isfinite(k.e0) ? k.e0 : 0);
		if (step > 0)
			aiwi_est_work(E, fmin(span / step, k.steps_budget),
			              "lower sim.duration, or raise the step time (step_compute, "
			              "model_params or tokens_per_step), or set max_steps",
			              "%s: about @ steps (%s / step time %s)", c->prefix,
			              aiwi_est_dur(d, sizeof d, span), aiwi_est_dur(p, sizeof p, step));
	}
	double rate = aiwi_training_failure_rate(c), N = aiwi_p(c, P_GPUS);
	if (rate > 0) {
		aiwi_est_work(E, rate * span, "raise gpu_mtbf or lower sim.duration",
		              "%s: about @ failures (gpus %s / gpu_mtbf %s x %s)", c->prefix,
		              aiwi_est_num(a, sizeof a, N), aiwi_est_dur(p, sizeof p, aiwi_p(c, P_MTBF)),
		              aiwi_est_dur(d, sizeof d, span));
		/* a failure that takes a hot spare schedules its repair */
		aiwi_est_pending(E, fmin(aiwi_p(c, P_SPARES), rate * span + 1));
	}
	aiwi_est_racks(E, ceil((N + aiwi_p(c, P_SPARES)) / aiwi_site_gpus_per_rack(sim)), 0);
	aiwi_est_pending(E, 4);
	aiwi_est_memory(E, 256.0 * 1024, NULL, "%s", ""); /* the step time histogram */
}

static bool training_query(const aiwi_comp *c, aiwi_query q, aiwi_answer *out)
{
	if (q == AIWI_Q_CAPPING_PRIORITY) { /* the layout model takes no cap (config.c) */
		if (aiwi_pset(c, P_LAYERS))
			return false;
		out->num = aiwi_p(c, P_CAPPING_PRIORITY);
		return true;
	}
	return aiwi_cost_query(c, P_COST, P_GPU, P_GPN, q, out);
}

const aiwi_kind aiwi_kind_training = {
	.name = "training",
	.flags = AIWI_KIND_ACCOUNTED | AIWI_KIND_TELEMETRY | AIWI_KIND_WORKLOAD | AIWI_KIND_BASELOAD,
	.params = aiwi_training_params,
	.nparams = P_NPARAMS,
	.metrics = aiwi_training_metrics,
	.curves = aiwi_training_curves,
	.estimate = training_estimate,
	.start = training_start,
	.sample = aiwi_training_sample,
	.finish = aiwi_training_finish,
	.param_changed = training_param_changed,
	.destroy = training_destroy,
	.query = training_query,
	.site_cap = aiwi_training_site_cap,
};

double aiwi_training_layout_step(aiwi_comp *c, double *t_c)
{
	if (!c || c->kind != &aiwi_kind_training || !aiwi_pset(c, P_LAYERS))
		return NAN;
	char saved[1024];
	snprintf(saved, sizeof saved, "%s", aiw_sim_errmsg(c->sim));
	aiwi_tcfg k;
	aiw_status st = aiwi_training_derive(c, &k);
	aiwi_err(c->sim, AIW_OK, "%s", saved); /* the model's start reports errors */
	if (st != AIW_OK)
		return NAN;
	if (t_c)
		*t_c = k.t_c;
	return k.t_c * fmax(k.mu, 1e-6) + k.bubble * fmax(k.mu, 1e-6) + k.e;
}
