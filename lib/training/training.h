/*
 * training.h - a synchronous data-parallel training job ([training NAME]):
 * steps that wait for the slowest GPU, all-reduce, failures, checkpoints.
 *
 * One step (aiworkload(7) "Training"): every GPU computes for t_c x M_i, where
 *   t_c = 6 params tokens_per_step / (gpus peak_flops mfu)   (or step_compute)
 * and M_i is the per-GPU, per-step jitter multiplier; the step waits for
 * the slowest, then the exposed part of the gradient all-reduce:
 *   step = t_c max_i M_i + max(0, t_comm - overlap t_c).
 * The maximum over the gpus - slow_gpus iid GPUs is one draw of the maximum
 * (aiwi_dist_sample_max: Q(1 - U^(1/n)), O(1) in n); the slow_gpus
 * persistent stragglers are a second class whose maximum (times
 * slow_factor) is drawn the same way, and the step takes the larger: exact
 * for the max over classes, one event and O(1) work per step for any N.
 * t_comm is the collective model of collective.c (Thakur, Rabenseifner &
 * Gropp 2005); a degraded link slows the ring it sits on (slowest link).
 *
 * Failures: the job's GPUs fail as a Poisson process of rate gpus / MTBF,
 * running through every phase; a failure loses everything since the last
 * completed checkpoint (a checkpoint being written is lost too), then the
 * job restarts after restart_time (+ replace_time when no hot spare is
 * free; a used spare returns after repair_time).  Checkpoints are blocking
 * writes of checkpoint_time, taken at the first step boundary once
 * checkpoint_interval of training has passed since the last checkpoint or
 * restart; `auto` is Daly's optimum (Daly, FGCS 22, 2006):
 *   tau = sqrt(2 d M) [1 + sqrt(d / 2M) / 3 + (d / 2M) / 9] - d,  d < 2M
 *   tau = M otherwise,  M = MTBF / gpus, d = checkpoint_time.
 *
 * Power by phase, per GPU from the catalog: compute_w while computing,
 * idle_w while waiting at the barrier for the slowest GPU, during
 * checkpoint writes and restarts (a documented level: the GPU sits in a
 * spinning collective or an idle process), comm_w during the exposed
 * all-reduce; plus node_overhead per node and idle_w for each hot spare.
 * Within a step the power steps down as GPUs finish their compute: the
 * slowest GPU of each class ends at its sampled time and the others of the
 * class at t_c x min(E[M], its max) (their expected compute time; the
 * conditional mean E[M | M <= max] differs from E[M] by a term that
 * vanishes as the class grows, and is exact for const jitter).  The
 * resulting piecewise-constant power is integrated exactly, so
 * c->energy_j is the exact integral of the power the model defines, at any
 * time, including mid-step.
 *
 * Memory is O(1) in gpus and in steps: no per-GPU or per-step storage (step
 * time quantiles come from a fixed-size log-bucketed histogram, stats.h).
 *
 * The kind is in one file per concern:
 *   params.c   the parameter table;
 *   config.c   the configuration derived and cross-checked from it (aiwi_tcfg);
 *   phase.c    steps and flat phases: piecewise-constant power, integrated;
 *   events.c   the job's events: steps, checkpoints, failures, restarts;
 *   account.c  energy, busy time and cost up to any time; the curves;
 *   metrics.c  the metric and curve tables, the metrics published;
 *   scaling.c  the scaling study (aiw_training_scaling);
 *   training.c the kind's descriptor and hooks.
 */
#ifndef AIW_TRAINING_TRAINING_H
#define AIW_TRAINING_TRAINING_H

#include "core/internal.h"
#include "core/stats.h"
#include "hw/hw.h"
#include "site/cost.h"
#include "site/power.h"
#include "training/layout.h"

#include <gsl/gsl_rng.h>

/* Indexes of the parameter table (params.c). */
enum {
	P_GPU,
	P_GPUS,
	P_GPN,
	P_MODEL_PARAMS,
	P_TOKENS,
	P_TOKENS_PER_GPU,
	P_MFU,
	P_STEP_COMPUTE,
	P_GRAD_BYTES,
	P_ALLREDUCE,
	P_OVERLAP,
	P_JITTER,
	P_SLOW_GPUS,
	P_SLOW_FACTOR,
	P_DEG_LINKS,
	P_DEG_FACTOR,
	P_MTBF,
	P_RESTART,
	P_REPLACE,
	P_REPAIR,
	P_SPARES,
	P_CKPT_INTERVAL,
	P_CKPT_TIME,
	P_CKPT_BYTES,
	P_STORAGE_BW,
	P_CKPT_FAIL,
	P_START,
	P_MAX_STEPS,
	P_MAX_TOKENS,
	P_MEM_CHECK,
	P_START_WINDOW,
	P_START_POLICY,
	P_POWER_CAP,
	P_POWER_CAP_FLOOR,
	P_CAPPING_PRIORITY,
	P_POWER_FLOOR,
	P_RAMP_DOWN,
	P_COST,
	/* the layout model: from P_LAYOUT_FIRST to the end, read only when
	 * `layers` is set (refused otherwise, config.c) */
	P_TP = P_COST + AIW_COST_NPARAMS,
	P_PP,
	P_VSTAGES,
	P_FIRST_LAYERS,
	P_LAST_LAYERS,
	P_CP,
	P_EP,
	P_DP,
	P_MICRO_BATCH,
	P_GLOBAL_BATCH,
	P_SCHEDULE,
	P_ZERO,
	P_RECOMPUTE,
	P_SP,
	P_TP_OVERLAP,
	P_PRECISION,
	P_GEMM_EFF,
	P_OPTIM_BYTES,
	P_MEM_BUFFERS,
	P_LAYERS,
	P_HIDDEN,
	P_FFN,
	P_HEADS,
	P_KV_HEADS,
	P_VOCAB,
	P_SEQ,
	P_MLP,
	P_ATTENTION,
	P_TIED,
	P_EXPERTS,
	P_TOPK,
	P_EXPERT_FFN,
	P_BUBBLE_SHAPE,
	P_NPARAMS
};
#define P_LAYOUT_FIRST P_TP

#define MAX_GPUS 1e7

extern const aiwi_param_def aiwi_training_params[P_NPARAMS];

/* The configuration derived from the parameters (config.c). */
typedef struct aiwi_tcfg {
	aiwi_gpu_spec g;
	aiwi_link_spec intra, inter;
	aiwi_pricing price;
	int algo;
	double N, gpn, nodes, spares, nodes_spare;
	double n_fast, n_slow, slow_factor;
	double mu;          /* E[M], clamped at 0 */
	double t_c;         /* nominal per-GPU compute time of a step (s) */
	double clock;       /* power_cap: the compute's clock factor (1 uncapped) */
	double compute_w0;  /* the GPU's compute power before any cap (W) */
	double cap_floor_w; /* the cap law's static floor (power_cap_floor, else idle_w) */
	double grad_bytes;  /* S, bytes all-reduced per step */
	double t_comm;      /* all-reduce time, degraded links included (s) */
	double e;           /* exposed communication (s) */
	double e0;          /* exposed communication without degraded links (s) */
	double ew_node;     /* inter-node bytes per node per all-reduce */
	double tau;         /* checkpoint interval (s); INFINITY: never */
	double w;           /* checkpoint write time (s) */
	double ckpt_fail_p; /* probability that a checkpoint write fails */
	double fail_rate;   /* cluster failures per second (0: none) */
	double steps_budget;/* INFINITY: none */
	double tokens_per_step;
	double overlap;
	double fixed_w;     /* node overhead + idle spares (W) */
	/* the layout model */
	bool layout;
	aiwi_tarch A;
	aiwi_tlayout L;
	aiwi_tstep S;       /* nominal step */
	aiwi_tmem mem;
	aiwi_thw H;         /* hardware of the step model, degraded links included */
	double bubble;      /* pipeline bubble at nominal speed (s), scaled by the jitter */
	double ar_ranks;    /* ranks of the gradient reduction (busbw) */
	double flops_per_token, peak;
	/* telemetry (aiworkload(7) "Utilisation"): hardware FLOPs of one step
	 * (recomputation included) and the peak FLOP/s they are held to */
	double hw_flops_step, tel_peak;
	/* GPU power smoothing and the bubble's shape (phase.c) */
	double floor_w;     /* power_floor x tdp_w per GPU (0: none) */
	double ramp_down;   /* W/s per GPU (INFINITY: none) */
	bool smooth;        /* power_floor or power_ramp_down set */
	bool staggered;     /* bubble_shape = staggered with pp > 1 */
} aiwi_tcfg;

/* Phases: piecewise-constant power and busy GPUs, integrated exactly
 * (phase.c). */
enum { S_WAIT, S_STEP, S_CKPT, S_RESTART, S_DONE };

#define MAX_PIECES 8
typedef struct aiwi_tphase {
	double t0, dur;
	int n;
	double end[MAX_PIECES];   /* end of piece i, relative to t0 */
	double power[MAX_PIECES]; /* GPU power (W) */
	double busy[MAX_PIECES];  /* GPUs computing */
	double energy, busy_s;    /* integrals over the whole phase */
	double bytes, comm_len;   /* east-west bytes per node, over the last comm_len */
	double kb_gpus;           /* GPUs running a kernel all the phase (N in a step) */
	double flops;             /* hardware FLOPs of the phase, done as busy_s is */
	/* step only */
	double t_max;             /* compute of the slowest GPU */
	double e;                 /* exposed communication */
	double bubble;            /* pipeline bubble (layout model), after t_max */
	double base;              /* step without jitter, slow GPUs or degraded links */
	/* piecewise-linear pieces (smoothing or a staggered bubble; lin set):
	 * piece i runs from x_end[i-1] (0) to x_end[i], its power from x_p0[i]
	 * to x_p1[i], x_busy[i] GPUs computing; the arrays are the job's
	 * (aiwi_tjob), grown as needed */
	bool lin;
	int x_n;
	double *x_end, *x_p0, *x_p1, *x_busy;
} aiwi_tphase;

/* growable storage of a phase's linear pieces and its builder's events */
typedef struct aiwi_tbuf {
	int cap;
	double *end, *p0, *p1, *busy;
	int ecap;
	void *ev;
} aiwi_tbuf;

/* A job's state (c->state). */
typedef struct aiwi_tjob {
	aiwi_tcfg k;
	gsl_rng *frng; /* failures, restarts, repairs: a stream of their own */
	gsl_rng *crng; /* checkpoint write outcomes: another */
	int state;
	aiwi_tphase ph;
	/* smoothing: the phase as it would be without it (its energy is the
	 * reference of smoothing_energy_kwh), the storage, the GPUs' power at
	 * the end of the last phase (per GPU) */
	aiwi_tphase raw;
	aiwi_tbuf buf, rbuf;
	double smooth_done; /* smoothing's energy of finished phases (J) */
	bool raw_on;        /* raw holds the phase in progress unsmoothed */
	uint64_t ev_phase, ev_fail;
	double t_start, t_done;
	double deferred_s; /* start_window: the start's delay past `start` */
	/* integrals of finished phases */
	double e_done, busy_done, bytes_done, kbusy_done, flops_done;
	/* persisted progress: committed at checkpoints, pending since */
	double c_steps, c_compute, c_wait, c_comm, c_bubble;
	double p_steps, p_compute, p_wait, p_comm, p_bubble;
	double last_commit, next_ckpt;
	/* totals */
	double steps_exec, steps_lost, step_sum, base_sum;
	double ckpt_s, lost_s, restart_s;
	double failures, checkpoints;
	double ckpt_failed;   /* checkpoint writes that failed */
	double p_ckpt_s;      /* failed writes' time since the last saved checkpoint (at risk) */
	double spares_free;
	aiwi_hist hist;
	/* curves */
	int id_step, id_tokens, id_ew, id_ckpt_fail;
	double tick_steps, tick_step_sum, prev_e, prev_bytes;
	double racks, rack_peak;
	/* the site's capping controller (site_cap): the configuration its
	 * cap gives the steps drawn from now on (NULL: none) */
	aiwi_tcfg *kc;
	double ctl_frac; /* its cap, a fraction of the TDP (1: none) */
} aiwi_tjob;

static inline double clamp0(double x)
{
	return x > 0 ? x : 0;
}

/* config.c */
aiw_status aiwi_training_derive(aiwi_comp *c, aiwi_tcfg *k);
double aiwi_training_failure_rate(const aiwi_comp *c);
double aiwi_training_comm_time(const aiwi_tcfg *k, double p, bool degraded, double deg_factor);

/* phase.c */
void aiwi_tphase_partial(const aiwi_tphase *ph, double x, double *e, double *b, double *by);
void aiwi_tphase_telemetry(const aiwi_tphase *ph, double x, double *kb, double *fl);
void aiwi_tphase_step(aiwi_comp *c, aiwi_tjob *T, double t);
/* The site's capping controller's hook (config.c): cap the job's GPUs at
 * frac x TDP from its next step (frac >= 1: release). */
void aiwi_training_site_cap(aiwi_comp *c, double frac);
/* Rebuild T->kc from T->k and T->ctl_frac (after a change of either). */
void aiwi_training_cap_rebuild(aiwi_comp *c, aiwi_tjob *T);
void aiwi_tphase_flat(aiwi_tphase *ph, double t, double dur, double power);
void aiwi_training_close_phase_at(aiwi_tjob *T, double t);
double aiwi_tphase_power_at(const aiwi_tphase *ph, double x);
bool aiwi_tphase_flat_smooth(aiwi_tjob *T, double t, double dur);
void aiwi_tphase_free(aiwi_tjob *T);
double aiwi_training_smooth_partial(const aiwi_tjob *T, double t);

/* events.c */
void aiwi_training_ev_start(aiw_sim *sim, void *ctx, uint64_t arg);

/* account.c */
double aiwi_training_active_s(const aiwi_tjob *T, double t);
void aiwi_training_account(aiwi_comp *c, double t);
double aiwi_training_bytes_at(const aiwi_tjob *T, double t);
void aiwi_training_sample(aiwi_comp *c, double t);

/* metrics.c */
extern const aiwi_metric_def aiwi_training_metrics[];
extern const aiwi_curve_def aiwi_training_curves[];
void aiwi_training_finish(aiwi_comp *c, double t);

#endif
