/*
 * controller.h - the controller's state and what a policy file (hpa.c,
 * kpa.c, predictive.c, schedule.c) may call on it.  The controller
 * (controller.c) reaches the fleet through its port only (port.h: the
 * fleet implements it): it measures what the fleet did, provisions and
 * removes replicas to reach the desired count (set_spec), and manages spot
 * capacity.  The policies see no fleet state: the numbers the controller
 * hands them only (aiwi_as_counts, aiwi_as_measure, aiwi_as_arrival_rate).
 * A policy is an entry of the table aiwi_as_policies: it validates its
 * parameters, schedules its own events, and turns measurements into a
 * desired count with its decision functions (declared in autoscale.h),
 * which take plain numbers and never a fleet, so that the replay
 * (lib/studies/replay.c) runs the same code on recorded metrics.
 */
#ifndef AIW_AUTOSCALE_CONTROLLER_H
#define AIW_AUTOSCALE_CONTROLLER_H

#include "inference/autoscale/autoscale.h"
#include "inference/autoscale/port.h"

#include <gsl/gsl_rng.h>

#define DEMAND_MEMORY_S 1800.0 /* predictive: memory of the demand per request */

/* What the controller knows of a replica slot it provisioned. */
typedef struct slotrec {
	double t_add, t_load_end; /* its cold start: [t_add, t_load_end) */
	uint64_t ev_notice, ev_kill;
	uint32_t gen;
	uint8_t used;  /* holds a loading interval not yet folded into load_done */
	uint8_t live;  /* spot and exposed to preemption (no notice yet) */
	uint8_t initial; /* one of the replicas ready at 0 (ready since ever) */
} slotrec;

typedef struct aiwi_as_policy aiwi_as_policy;

typedef struct autoscaler {
	aiwi_comp *c;                /* the fleet's component: the port's context */
	const aiwi_fleet_port *port; /* the fleet (port.h) */
	aiw_sim *sim;
	const aiwi_as_policy *pol;
	size_t p; /* index of the first autoscaling parameter */
	size_t i_replicas, i_cold;
	int policy, metric;
	double g; /* GPUs per replica */
	gsl_rng *rng_cold, *rng_spot;
	int32_t spec, peak;
	/* replicas */
	slotrec *rec;
	size_t nrec;
	double load_done;      /* replica-seconds of loading, folded */
	aiwi_integral spot_live; /* spot replicas exposed to preemption */
	uint32_t consec_fail;
	uint64_t retry_ev;
	/* measurement at the previous sync */
	double m_t, m_busy, m_paid, m_wait, m_load, m_infl;
	uint64_t m_arr, m_done;
	/* requests in flight, sampled every metric_interval */
	double infl_int;  /* request-seconds (left sums) */
	aiwi_kpa_ring ring; /* kpa: the last samples of the demand */
	uint64_t scrape_arr;
	/* hpa (and predictive's stabilisation) */
	aiwi_hpa_rules rules;
	aiwi_hpa_state hs;
	aiwi_hpa_scaling up_list, down_list; /* hpa_scale_{up,down}_policies, parsed */
	/* kpa */
	aiwi_kpa_conf kc;
	aiwi_kpa_state ks;
	double last_tick, panic_s;
	uint64_t panic_entries;
	/* predictive */
	double lead, d_busy, d_done, d_infl;
	double *est, bin;
	size_t nbins;
	uint64_t bin_arr;
	/* schedule */
	aiwi_sched_entry *sched;
	size_t nsched;
	/* counters */
	uint64_t syncs, ups, downs, added, removed, cold_starts;
	double cold_sum;
	uint64_t preemptions, reclaims, requeued, acq_fail, fallbacks;
	/* curves */
	int id_des, id_ready, id_load, id_drain, id_spot, id_panic;
	/* comparison */
	aiw_sim *fixed;
	int32_t fixed_n;
	bool fail;
	/* site.gpu_budget (site/budget.h): the arbiter and this fleet's member
	 * index (NULL: no budget); the replicas a grant lets reconcile add
	 * (0: none, a scale-up asks the arbiter first) */
	struct aiwi_budget *bud;
	int bud_m;
	uint32_t allow;
} autoscaler;

/* One policy (autoscaler = NAME).  Every hook but name is optional. */
struct aiwi_as_policy {
	const char *name;   /* as written in the scenario */
	int id;             /* AIW_AS_* */
	const char *params; /* the parameters it reads besides the shared ones */
	bool min_one;       /* min_replicas >= 1 (Kubernetes' rule) */
	/* validate the parameters (after the shared checks) */
	aiw_status (*check)(autoscaler *a);
	/* build its state and schedule its first events */
	aiw_status (*start)(autoscaler *a);
	/* a request reached an empty fleet (Knative's activator) */
	void (*activate)(autoscaler *a);
	/* its own metrics at the end of a run call */
	void (*finish)(autoscaler *a, double t);
	/* free its state */
	void (*free)(autoscaler *a);
};

/* The table, indexed by AIW_AS_* (the order of the autoscaler enum). */
extern const aiwi_as_policy *const aiwi_as_policies[];

extern const aiwi_as_policy aiwi_as_policy_none, aiwi_as_policy_hpa, aiwi_as_policy_kpa,
	aiwi_as_policy_predictive, aiwi_as_policy_schedule;

static inline double P(const autoscaler *a, int i) { return aiwi_p(a->c, a->p + (size_t)i); }
static inline bool PSET(const autoscaler *a, int i) { return aiwi_pset(a->c, a->p + (size_t)i); }

/* What the fleet did over a window (measure). */
typedef struct window {
	double dt, busy_rep_s, serving_rep_s, wait_s, infl_s;
	uint64_t arrived, completed;
} window;

/* ---- the controller (controller.c), for the policies ---- */
/* Record a failure once (ENOMEM gets its message). */
void aiwi_as_fail(autoscaler *a, aiw_status st);
/* Set the desired count and reconcile the fleet to it. */
void aiwi_as_set_spec(autoscaler *a, int32_t n);
/* What the fleet did since the previous call. */
void aiwi_as_measure(autoscaler *a, window *w);
/* The metric of each ready replica over the window (NAN: none served). */
double aiwi_as_metric_value(const autoscaler *a, const window *w);
/* The fleet's replica counts now and its arrivals so far. */
typedef struct aiwi_as_fleet {
	uint32_t ready, loading, draining; /* replicas by state */
	uint64_t arrived;                  /* requests arrived (cumulative) */
} aiwi_as_fleet;
void aiwi_as_counts(const autoscaler *a, aiwi_as_fleet *k);
/* The HPA's pod groups now for a sample over window w (aiwi_hpa_group on
 * every replica the controller asked for): a replica not provisioned yet
 * is a pending pod; a loading one a running pod not ready since its start,
 * with a sample on metric = utilization (the resource metric, read from
 * the running container) and none on the others (the serving process
 * exports them once loaded); a ready one a running, ready pod with a
 * sample, ready since its cold start ended (the initial replicas since
 * ever); a draining one a pod being deleted. */
void aiwi_as_pod_groups(const autoscaler *a, const window *w, aiwi_hpa_groups *g);
/* The fleet's traffic law's arrival rate (1/s) at time t (the predictive
 * policy's forecast). */
double aiwi_as_arrival_rate(const autoscaler *a, double t);
/* The metric is sampled every metric_interval (aiwi_as_start_scrape):
 * requests in flight, or the fleet's load (port.h). */
static inline bool aiwi_as_sampled(const autoscaler *a)
{
	return a->metric == AIW_AS_M_CONCURRENCY || a->metric == AIW_AS_M_QUEUED_PROMPT_TOKENS ||
	       a->metric == AIW_AS_M_KV_OCCUPANCY;
}

/* Start sampling requests in flight every metric_interval. */
aiw_status aiwi_as_start_scrape(autoscaler *a);

/* ---- predictive.c, for the controller ---- */
/* The forecast rate (1/s) at time t, NAN without history for it. */
double aiwi_as_predictive_forecast(const autoscaler *a, double t);

/* ---- hpa.c, for predictive.c ---- */
/* The HPA's recommendation from the window (aiwi_hpa_calc on the fleet). */
int32_t aiwi_as_hpa_recommendation(const autoscaler *a, const window *w);
/* The behavior read from the parameters (they may change at run time). */
void aiwi_as_hpa_refresh_rules(autoscaler *a);
/* Parse hpa_scale_{up,down}_policies (errors name the parameter). */
aiw_status aiwi_as_hpa_check_policies(autoscaler *a);

#endif /* AIW_AUTOSCALE_CONTROLLER_H */
