/*
 * serving.h - internal interface of the inference fleet (serving.c), for
 * the autoscaler (through its port, aiwi_serving_port), the exporters and
 * tests.
 *
 * A fleet is a set of replica slots.  A slot is FREE, LOADING (weights
 * loading for its cold start: paid, drawing loading power, not routable),
 * READY (routable) or DRAINING (not routable; finishes the requests it
 * holds, then becomes FREE).  Slot ids are stable while a replica lives and
 * are reused lowest-first afterwards (they also fix the replica's place in
 * the racks: slot s holds GPUs [s g, s g + g) of the component).
 *
 * Every function takes the started component (kind->start succeeded) and
 * acts at the current simulated time aiwi_now(c->sim); they are meant to
 * be called from event callbacks or between run_until steps.
 */
#ifndef AIW_SERVING_H
#define AIW_SERVING_H

#include "core/internal.h"
#include "core/stats.h"
#include "inference/autoscale/port.h"
#include "inference/traffic.h"

#include <stdbool.h>
#include <stdint.h>

/* (the replica states and the counts: the autoscaler's port, port.h) */
typedef aiwi_fleet_counts aiwi_serving_counts;

/* The fleet's traffic as its start configures it (also before a run, for
 * the estimate); false when traffic = trace has no trace_file (start
 * refuses that). */
bool aiwi_serving_traffic_conf(const aiwi_comp *c, aiwi_traffic_conf *tc);
/* The fleet's size as configured, and where its autoscaler parameters
 * start in its table (AIW_AUTOSCALE_PARAM_DEFS). */
typedef struct aiwi_serving_fleet {
	double replicas, gpus_per_replica;
	size_t autoscale_first;
} aiwi_serving_fleet;
void aiwi_serving_fleet_conf(const aiwi_comp *c, aiwi_serving_fleet *out);

/* The kind's tables and estimate (metrics.c, estimate.c). */
extern const aiwi_metric_def aiwi_inference_metrics[];
extern const aiwi_curve_def aiwi_inference_curves[];
extern const aiwi_hist_def aiwi_inference_histograms[];
void aiwi_inference_estimate(aiwi_comp *c, aiwi_estimate *E);

/* True if c is an inference component whose run has started. */
bool aiwi_serving_active(const aiwi_comp *c);

/* Provision one replica now.  cold_start_s >= 0: it loads its weights for
 * that long (loading power, paid) before it takes requests; 0 makes it
 * ready at once.  spot marks it for spot pricing (aiwi_serving_set_spot_factor).
 * Returns the slot id (>= 0) or a negative aiw_status (message on c->sim). */
int aiwi_serving_add_replica(aiwi_comp *c, double cold_start_s, bool spot);

/* Take one replica out of service.  id < 0 chooses: the most recent LOADING
 * replica (its load is cancelled) else the READY one with the fewest
 * outstanding requests.  A LOADING or idle replica is freed at once; a busy
 * one DRAINS: the router stops sending to it, it finishes every request it
 * holds (queued ones too), then it is freed.  Returns the slot id or a
 * negative status (AIW_ESTATE when there is nothing to remove). */
int aiwi_serving_remove_replica(aiwi_comp *c, int id);

/* Lose a replica abruptly (spot reclaim, failure): it is freed now; its
 * running requests restart elsewhere from a recompute of their prompt and
 * the tokens already streamed (as a preemption), its queued requests are
 * routed again.  Neither is subject to the queue timeout or limit again. */
aiw_status aiwi_serving_fail_replica(aiwi_comp *c, int id);

void aiwi_serving_get_counts(const aiwi_comp *c, aiwi_serving_counts *out);
/* Number of slots (ids are 0 .. slots - 1; some may be FREE). */
size_t aiwi_serving_slots(const aiwi_comp *c);
aiwi_replica_state aiwi_serving_replica_state(const aiwi_comp *c, size_t id);
bool aiwi_serving_replica_spot(const aiwi_comp *c, size_t id);
/* Requests a replica holds: queued + preempted + in its batch. */
uint32_t aiwi_serving_replica_outstanding(const aiwi_comp *c, size_t id);

/* Cumulative integrals from 0 to now, for windowed averages: GPU-seconds
 * busy (prefill or decode) and provisioned, request-seconds of waiting. */
void aiwi_serving_integrals(aiwi_comp *c, double *busy_gpu_s, double *paid_gpu_s,
                           double *waiting_req_s);
/* The arrival process (for forecasts: aiwi_traffic_rate / _integral). */
const aiwi_traffic *aiwi_serving_traffic(const aiwi_comp *c);
/* Price of a spot GPU-second relative to on-demand, in [0, 1] (default 1). */
aiw_status aiwi_serving_set_spot_factor(aiwi_comp *c, double factor);

/* The fleet as its autoscaler sees it (port.h): these functions and the
 * traffic law's rate at a time. */
extern const aiwi_fleet_port aiwi_serving_port;

/* For tests, on a started inference component: its autoscaler's desired
 * replica count now (-1 without one), whether the kpa is in panic mode,
 * and the predictive policy's forecast rate (1/s) at time t (NAN when it
 * has none: other policies, or no history for that time yet). */
int32_t aiwi_autoscale_desired(const aiwi_comp *c);
bool aiwi_autoscale_panicking(const aiwi_comp *c);
double aiwi_autoscale_forecast(const aiwi_comp *c, double t);

#if AIW_CHECKS
/* For tests of a build configured with --enable-checks: move replica id to
 * state `to` through the fleet's one transition function (set_state,
 * fleet.h), as nothing but the lifecycle does.  A move that is no arrow of
 * the state machine is refused: the state stays and the run fails
 * (AIW_ESTATE).  A legal move leaves the fleet's sets behind (only the
 * state and its count change): for refusals only. */
aiw_status aiwi_serving_move_replica(aiwi_comp *c, int id, aiwi_replica_state to);
#endif

/* Latency histogram of an inference component for exporters: which is
 * "ttft", "tpot", "e2e" or "queue_wait"; NULL for anything else.  The
 * TTFT histogram holds the completed sample windows (all of a run that
 * reached a sample tick at its end). */
const aiwi_hist *aiwi_serving_hist(const aiwi_comp *c, const char *which);

/* Whether c does its cuts eagerly from now on (fleet.h, "the eager-cut
 * protocol"): on by default where c's configuration allows it (then `true`
 * turns it back on; elsewhere it stays off).  Turning it off first undoes
 * the cuts whose boundaries are still ahead (they become events again, as
 * if never done eagerly) and settles the others.  For tests, which compare
 * both ways.  AIW_ESTATE if c is not a started inference component. */
aiw_status aiwi_serving_set_eager(aiwi_comp *c, bool eager);

#endif /* AIW_SERVING_H */
