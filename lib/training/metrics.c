/*
 * metrics.c - the metrics of a training job: the summary metric and curve tables
 * and the values published at the end of each run call.
 */
#include "training/training.h"

#include <math.h>

void aiwi_training_finish(aiwi_comp *c, double t)
{
	aiwi_tjob *T = c->state;
	if (!T)
		return;
	aiw_sim *sim = c->sim;
	const aiwi_tcfg *k = &T->k;
	aiwi_training_account(c, t);
	/* the phase in progress, without changing the state (finish may be
	 * called again later) */
	double steps = T->c_steps + T->p_steps;
	double compute = T->c_compute + T->p_compute, wait = T->c_wait + T->p_wait;
	double comm = T->c_comm + T->p_comm, bubble = T->c_bubble + T->p_bubble;
	double ckpt = T->ckpt_s + T->p_ckpt_s, restart = T->restart_s;
	if (T->state == S_STEP || T->state == S_CKPT || T->state == S_RESTART) {
		const aiwi_tphase *ph = &T->ph;
		double x = fmin(clamp0(t - ph->t0), ph->dur);
		if (T->state == S_STEP) {
			double cpt = fmin(ph->t_max, k->t_c);
			compute += fmin(x, cpt);
			wait += fmin(clamp0(x - cpt), clamp0(ph->t_max - cpt));
			if (ph->bubble > 0) {
				bubble += fmin(clamp0(x - ph->t_max), ph->bubble);
				comm += clamp0(x - ph->t_max - ph->bubble);
			} else {
				comm += clamp0(x - ph->t_max);
			}
		} else if (T->state == S_CKPT) {
			ckpt += x;
		} else {
			restart += x;
		}
	}
	double wall = aiwi_training_active_s(T, t);
	double tokens = steps * k->tokens_per_step;
	double useful = steps * k->t_c;
	/* what the site charges (site/cost.h: the one formula of the energy
	 * price), so that cost_per_mtok_usd agrees with the published cost */
	double energy_cost = aiwi_cost_energy_usd(c);
	double cost = c->cost_usd + energy_cost + aiwi_cost_extra_usd(c);
	double mean = T->steps_exec > 0 ? T->step_sum / T->steps_exec : NAN;
	const char *p = c->prefix;
#define M(key, v) aiwi_metric(sim, p, key, v)
	M("steps", steps);
	M("tokens", tokens);
	M("steps_lost", T->steps_lost);
	M("step_time_mean_s", mean);
	M("step_time_p50_s", aiwi_hist_quantile(&T->hist, 0.5));
	M("step_time_p99_s", aiwi_hist_quantile(&T->hist, 0.99));
	M("step_compute_s", k->t_c);
	if (aiwi_pset(c, P_START_WINDOW))
		M("start_deferred_s", T->deferred_s);
	M("goodput", wall > 0 ? useful / wall : NAN);
	M("ettr", wall > 0 ? (compute + wait + comm + bubble) / wall : NAN);
	M("straggler_slowdown", T->steps_exec > 0 ? T->step_sum / T->base_sum : NAN);
	M("clock_factor", aiwi_pset(c, P_POWER_CAP) ? k->clock : NAN);
	if (k->smooth) {
		double sm = T->smooth_done + aiwi_training_smooth_partial(T, t);
		M("smoothing_energy_kwh", sm / 3.6e6);
		M("smoothing_overhead", c->energy_j > sm ? sm / (c->energy_j - sm) : NAN);
	}
	M("wall_s", wall);
	M("compute_s", compute);
	M("exposed_comm_s", comm);
	M("straggler_wait_s", wait);
	M("checkpoint_s", ckpt);
	M("lost_s", T->lost_s);
	M("restart_s", restart);
	M("failures", T->failures);
	M("checkpoints", T->checkpoints);
	M("checkpoint_failures", T->ckpt_failed);
	M("checkpoint_interval_s", k->tau);
	M("checkpoint_time_s", k->w);
	if (k->layout)
		M("mfu_achieved", wall > 0 ? k->flops_per_token * tokens / (k->N * k->peak * wall) : NAN);
	else
		M("mfu_achieved",
		  wall > 0 && k->g.bf16_flops > 0
		          ? 6 * aiwi_p(c, P_MODEL_PARAMS) * tokens / (k->N * k->g.bf16_flops * wall)
		          : NAN);
	M("allreduce_s", k->t_comm);
	M("allreduce_busbw_bytes_per_s",
	  k->t_comm > 0 ? k->grad_bytes / k->t_comm * aiwi_busbw_factor(k->ar_ranks) : NAN);
	M("east_west_bytes", aiwi_training_bytes_at(T, t) * k->nodes);
	M("energy_kwh", c->energy_j / 3.6e6);
	M("hardware_cost_usd", c->cost_usd);
	M("energy_cost_usd", energy_cost);
	M("cost_usd", cost);
	M("cost_per_mtok_usd", tokens > 0 ? cost / (tokens / 1e6) : NAN);
	if (k->layout) {
		/* the layout model: the nominal step, its breakdown, memory; the
		 * time totals count the steps kept, like compute_s */
		const aiwi_tstep *S = &k->S;
		M("mfu_model", S->mfu);
		M("step_time_model_s", k->t_c + k->bubble + k->e);
		M("dp", k->L.dp);
		M("micro_batches", k->L.m);
		M("pp_bubble_s", bubble);
		M("tp_s", steps * S->tp);
		M("cp_s", steps * S->cp);
		M("ep_s", steps * S->ep);
		M("pp_transfer_s", steps * S->pp_transfer);
		M("dp_exposed_s", steps * S->dp);
		M("step_tp_s", S->tp);
		M("step_pp_bubble_s", S->bubble);
		M("step_pp_transfer_s", S->pp_transfer);
		M("step_dp_exposed_s", S->dp);
		M("step_cp_s", S->cp);
		M("step_ep_s", S->ep);
		M("memory_per_gpu_bytes", k->mem.total);
		M("memory_weights_bytes", k->mem.term[AIWI_M_WEIGHTS]);
		M("memory_gradients_bytes", k->mem.term[AIWI_M_GRADS]);
		M("memory_optimizer_bytes", k->mem.term[AIWI_M_OPTIM]);
		M("memory_activations_bytes", k->mem.term[AIWI_M_ACT]);
		M("memory_buffers_bytes", k->mem.term[AIWI_M_BUFFERS]);
		M("memory_largest_term", k->mem.largest);
	}
#undef M
}

/* The summary metrics, in the order of the summary table. */
const aiwi_metric_def aiwi_training_metrics[] = {
	AIWI_ACCOUNT_METRICS_FIRST,
	AIWI_TELEMETRY_METRICS,
	{"goodput", "Goodput (useful compute / wall)", "1", AIW_METRIC_HEADLINE | AIW_METRIC_FRACTION,
	 "useful compute time / wall time (work later lost to a failure is not useful)",
	 "training_goodput_ratio", "gauge", NULL,
	 "useful compute time / wall time of a training job"},
	{"ettr", "Effective training time ratio", "1", AIW_METRIC_FRACTION,
	 "time in steps (compute, exposed communication, straggler wait) / wall time", NULL, NULL, NULL, NULL},
	{"mfu_achieved", "MFU achieved", "1", AIW_METRIC_FRACTION,
	 "model FLOPs of the useful steps / (GPUs x peak FLOP/s x wall time)", NULL, NULL, NULL, NULL},
	{"steps", "Steps", "1", AIW_METRIC_HEADLINE | AIW_METRIC_COUNT,
	 "optimizer steps completed",
	 "training_progress_steps", "gauge", NULL,
	 "steps in the model's current state (rolled back when a failure loses work)"},
	{"start_deferred_s", "Start deferred by", "s", 0,
	 "start_window set: how long after `start` the job started, placed where the site's "
	 "price or carbon series over its expected length is least", NULL, NULL, NULL, NULL},
	{"tokens", "Tokens trained", "1", AIW_METRIC_HEADLINE | AIW_METRIC_COUNT,
	 "tokens of the completed steps",
	 "training_progress_tokens", "gauge", NULL,
	 "tokens in the model's current state (rolled back when a failure loses work)"},
	{"step_time_mean_s", "Step time (mean)", "s", AIW_METRIC_HEADLINE,
	 "mean step time", NULL, NULL, NULL, NULL},
	{"step_time_p50_s", "Step time (P50)", "s", 0,
	 "median step time", NULL, NULL, NULL, NULL},
	{"step_time_p99_s", "Step time (P99)", "s", 0,
	 "99th percentile of the step time", NULL, NULL, NULL, NULL},
	{"step_compute_s", "Step compute (nominal)", "s", 0,
	 "per-GPU compute time of one step without jitter", NULL, NULL, NULL, NULL},
	{"straggler_slowdown", "Straggler slowdown", "1", AIW_METRIC_HEADLINE | AIW_METRIC_RATIO,
	 "mean step time / step time without jitter and slow parts", NULL, NULL, NULL, NULL},
	{"clock_factor", "Power cap: compute clock factor", "1", AIW_METRIC_RATIO,
	 "power_cap: ((cap - floor) / (compute_w - floor))^(1/3), the compute's clock over its "
	 "uncapped one (1 when compute draws less than the cap; not a number without power_cap)",
	 NULL, NULL, NULL, NULL},
	{"smoothing_energy_kwh", "GPU power smoothing: energy burnt", "kWh", 0,
	 "power_floor or power_ramp_down set: the energy the job's GPUs drew above the same phases "
	 "without smoothing (the floor's and the ramp's burn), exact integrals of both",
	 NULL, NULL, NULL, NULL},
	{"smoothing_overhead", "GPU power smoothing: energy overhead", "1", AIW_METRIC_RATIO,
	 "smoothing_energy_kwh / the job's energy without it (GPUs, node overhead and spares)",
	 NULL, NULL, NULL, NULL},
	{"wall_s", "Wall time", "s", 0,
	 "time the job ran", NULL, NULL, NULL, NULL},
	{"compute_s", "  compute", "s", 0,
	 "time breakdown: computing (nominal per-GPU compute)", NULL, NULL, NULL, NULL},
	{"exposed_comm_s", "  exposed communication", "s", 0,
	 "time breakdown: all-reduce not hidden behind compute", NULL, NULL, NULL, NULL},
	{"straggler_wait_s", "  straggler wait", "s", 0,
	 "time breakdown: waiting for the slowest GPU", NULL, NULL, NULL, NULL},
	{"pp_bubble_s", "  pipeline bubble", "s", 0,
	 "time breakdown: pipeline bubble of the steps kept (idle stages)", NULL, NULL, NULL, NULL},
	{"checkpoint_s", "  checkpoint writes", "s", 0,
	 "time breakdown: blocking checkpoint writes", NULL, NULL, NULL, NULL},
	{"lost_s", "  lost work", "s", 0,
	 "time breakdown: work lost to failures (since the last checkpoint)", NULL, NULL, NULL, NULL},
	{"restart_s", "  restarts", "s", 0,
	 "time breakdown: restarting", NULL, NULL, NULL, NULL},
	{"checkpoint_failures", "Checkpoint failures", "1", AIW_METRIC_COUNT,
	 "checkpoint writes that failed (checkpoint_failure_prob)",
	 "training_checkpoint_failures_total", "counter", NULL,
	 "checkpoint writes of a training job that failed"},
	{"failures", "Failures", "1", AIW_METRIC_HEADLINE | AIW_METRIC_COUNT,
	 "failures that interrupted the job",
	 "training_failures_total", "counter", NULL,
	 "failures that interrupted a training job"},
	{"steps_lost", "Steps lost", "1", AIW_METRIC_COUNT,
	 "steps redone after failures", NULL, NULL, NULL, NULL},
	{"checkpoints", "Checkpoints", "1", AIW_METRIC_HEADLINE | AIW_METRIC_COUNT,
	 "checkpoints completed",
	 "training_checkpoints_total", "counter", NULL,
	 "checkpoints a training job completed"},
	{"checkpoint_interval_s", "Checkpoint interval", "s", 0,
	 "training time between checkpoints (Daly's optimum when auto)", NULL, NULL, NULL, NULL},
	{"checkpoint_time_s", "Checkpoint write time", "s", 0,
	 "blocking write time of one checkpoint", NULL, NULL, NULL, NULL},
	{"allreduce_s", "All-reduce time", "s", 0,
	 "gradient all-reduce time of one step", NULL, NULL, NULL, NULL},
	{"allreduce_busbw_bytes_per_s", "All-reduce bus bandwidth", "B/s", 0,
	 "all-reduce bus bandwidth as nccl-tests defines it", NULL, NULL, NULL, NULL},
	{"east_west_bytes", "East-west traffic", "B", 0,
	 "bytes all-reduced over the network by all nodes", NULL, NULL, NULL, NULL},
	{"mfu_model", "MFU of the layout (nominal step)", "1", AIW_METRIC_FRACTION,
	 "model FLOPs of one step / (GPUs x peak FLOP/s x the nominal step time) of the parallel layout", NULL, NULL, NULL, NULL},
	{"step_time_model_s", "Step time of the layout (nominal)", "s", 0,
	 "nominal step time of the parallel layout: compute + pipeline bubble + exposed communication, without jitter", NULL, NULL, NULL, NULL},
	{"dp", "Data-parallel degree", "1", AIW_METRIC_COUNT,
	 "data-parallel replicas of the layout (gpus / (tp x pp x cp))", NULL, NULL, NULL, NULL},
	{"micro_batches", "Micro-batches per step", "1", AIW_METRIC_COUNT,
	 "micro-batches per data-parallel replica and step (global_batch / (dp x micro_batch))", NULL, NULL, NULL, NULL},
	{"tp_s", "Steps kept: tensor-parallel communication", "s", 0,
	 "time breakdown: exposed tensor-parallel collectives of the steps kept", NULL, NULL, NULL, NULL},
	{"cp_s", "Steps kept: context-parallel communication", "s", 0,
	 "time breakdown: exposed context-parallel collectives of the steps kept", NULL, NULL, NULL, NULL},
	{"ep_s", "Steps kept: expert-parallel all-to-all", "s", 0,
	 "time breakdown: exposed expert-parallel all-to-all of the steps kept", NULL, NULL, NULL, NULL},
	{"pp_transfer_s", "Steps kept: pipeline transfers", "s", 0,
	 "time breakdown: exposed point-to-point activation transfers of the steps kept", NULL, NULL, NULL, NULL},
	{"dp_exposed_s", "Steps kept: data-parallel reduction (exposed)", "s", 0,
	 "time breakdown: data-parallel gradient reduction not hidden behind the backward pass, steps kept", NULL, NULL, NULL, NULL},
	{"step_tp_s", "Step: tensor-parallel communication", "s", 0,
	 "tensor-parallel collectives of one nominal step", NULL, NULL, NULL, NULL},
	{"step_pp_bubble_s", "Step: pipeline bubble", "s", 0,
	 "pipeline bubble of one nominal step", NULL, NULL, NULL, NULL},
	{"step_pp_transfer_s", "Step: pipeline transfers", "s", 0,
	 "point-to-point transfers of one nominal step", NULL, NULL, NULL, NULL},
	{"step_dp_exposed_s", "Step: exposed data-parallel reduction", "s", 0,
	 "exposed data-parallel reduction of one nominal step", NULL, NULL, NULL, NULL},
	{"step_cp_s", "Step: context-parallel communication", "s", 0,
	 "context-parallel collectives of one nominal step", NULL, NULL, NULL, NULL},
	{"step_ep_s", "Step: expert-parallel all-to-all", "s", 0,
	 "expert-parallel all-to-all of one nominal step", NULL, NULL, NULL, NULL},
	{"memory_per_gpu_bytes", "Memory per GPU", "B", AIW_METRIC_HEADLINE,
	 "memory one GPU needs under the layout (weights, gradients, optimizer states, activations in flight, buffers)", NULL, NULL, NULL, NULL},
	{"memory_weights_bytes", "  weights", "B", 0,
	 "memory per GPU: weights (sharded by tp, pp, ep; by dp under ZeRO-3)", NULL, NULL, NULL, NULL},
	{"memory_gradients_bytes", "  gradients", "B", 0,
	 "memory per GPU: gradients (sharded over dp from ZeRO-2)", NULL, NULL, NULL, NULL},
	{"memory_optimizer_bytes", "  optimizer states", "B", 0,
	 "memory per GPU: optimizer states (sharded over dp from ZeRO-1)", NULL, NULL, NULL, NULL},
	{"memory_activations_bytes", "  activations", "B", 0,
	 "memory per GPU: activations of the micro-batches in flight on the first stage (Korthikanti et al. 2022)", NULL, NULL, NULL, NULL},
	{"memory_buffers_bytes", "  buffers", "B", 0,
	 "memory per GPU: communication and framework buffers (memory_buffers)", NULL, NULL, NULL, NULL},
	{"memory_largest_term", "Largest memory term", "1", 0,
	 "index of the largest memory term: 0 weights, 1 gradients, 2 optimizer states, 3 activations, 4 buffers", NULL, NULL, NULL, NULL},
	AIWI_ACCOUNT_METRICS_LAST,
	AIWI_METRIC_COST_PER_MTOK("Cost per million tokens trained"),
	{NULL, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL},
};

const aiwi_curve_def aiwi_training_curves[] = {
	AIWI_TELEMETRY_CURVES,
	{"step_time_s", "s", "training_step_time_seconds", NULL, AIWI_CURVE_GAUGE, false, false,
	 "mean duration of the training steps that ended in the sample interval (s)"},
	{"tokens", "1", "training_progress_tokens", NULL, AIWI_CURVE_GAUGE, true, false,
	 "tokens in the model's current state at the end of the interval"},
	{"east_west_bytes_per_s_per_node", "B/s", NULL, NULL, 0, false, false,
	 "network bytes per second one node sends for the gradient reduction, interval average"},
	{"checkpoint_failures", "1", "training_checkpoint_failures_total", NULL, AIWI_CURVE_COUNTER,
	 true, false, "checkpoint writes that failed since the job started"},
	{NULL, NULL, NULL, NULL, 0, false, false, NULL},
};
