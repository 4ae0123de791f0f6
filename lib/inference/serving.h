/*
 * serving.h - internal interface of the inference fleet (serving.c), for
 * the autoscaler (autoscale.c) and for tests.
 *
 * A fleet is a set of replica slots.  A slot is FREE, LOADING (weights
 * loading for its cold start: paid, drawing loading power, not routable),
 * READY (routable) or DRAINING (not routable; finishes the requests it
 * holds, then becomes FREE).  Slot ids are stable while a replica lives and
 * are reused lowest-first afterwards (they also fix the replica's place in
 * the racks: slot s holds GPUs [s g, s g + g) of the component).
 *
 * Every function takes the started component (kind->start succeeded) and
 * acts at the current simulated time aiw__now(c->sim); they are meant to
 * be called from event callbacks or between run_until steps.
 */
#ifndef AIW_SERVING_H
#define AIW_SERVING_H

#include "core/internal.h"
#include "core/stats.h"
#include "inference/traffic.h"

#include <stdbool.h>
#include <stdint.h>

typedef enum aiw_replica_state {
	AIW_REPLICA_FREE,
	AIW_REPLICA_LOADING,
	AIW_REPLICA_READY,
	AIW_REPLICA_DRAINING
} aiw_replica_state;

typedef struct aiw_serving_counts {
	uint32_t ready, loading, draining; /* replicas by state */
	uint32_t busy;     /* ready or draining replicas serving a request */
	uint32_t spot;     /* provisioned (loading, ready, draining) spot replicas */
	uint64_t waiting;  /* requests queued (router queue, replica queues, preempted) */
	uint64_t running;  /* requests in a batch (prefill or decode) */
	uint64_t arrived, completed, dropped; /* cumulative; in flight = waiting + running */
} aiw_serving_counts;

/* True if c is an inference component whose run has started. */
bool aiw_serving_active(const aiw_comp *c);

/* Provision one replica now.  cold_start_s >= 0: it loads its weights for
 * that long (loading power, paid) before it takes requests; 0 makes it
 * ready at once.  spot marks it for spot pricing (aiw_serving_set_spot_factor).
 * Returns the slot id (>= 0) or a negative aiw_status (message on c->sim). */
int aiw_serving_add_replica(aiw_comp *c, double cold_start_s, bool spot);

/* Take one replica out of service.  id < 0 chooses: the most recent LOADING
 * replica (its load is cancelled) else the READY one with the fewest
 * outstanding requests.  A LOADING or idle replica is freed at once; a busy
 * one DRAINS: the router stops sending to it, it finishes every request it
 * holds (queued ones too), then it is freed.  Returns the slot id or a
 * negative status (AIW_ESTATE when there is nothing to remove). */
int aiw_serving_remove_replica(aiw_comp *c, int id);

/* Lose a replica abruptly (spot reclaim, failure): it is freed now; its
 * running requests restart elsewhere from a recompute of their prompt and
 * the tokens already streamed (as a preemption), its queued requests are
 * routed again.  Neither is subject to the queue timeout or limit again. */
aiw_status aiw_serving_fail_replica(aiw_comp *c, int id);

void aiw_serving_get_counts(const aiw_comp *c, aiw_serving_counts *out);
/* Number of slots (ids are 0 .. slots - 1; some may be FREE). */
size_t aiw_serving_slots(const aiw_comp *c);
aiw_replica_state aiw_serving_replica_state(const aiw_comp *c, size_t id);
bool aiw_serving_replica_spot(const aiw_comp *c, size_t id);
/* Requests a replica holds: queued + preempted + in its batch. */
uint32_t aiw_serving_replica_outstanding(const aiw_comp *c, size_t id);

/* Cumulative integrals from 0 to now, for windowed averages: GPU-seconds
 * busy (prefill or decode) and provisioned, request-seconds of waiting. */
void aiw_serving_integrals(aiw_comp *c, double *busy_gpu_s, double *paid_gpu_s,
                           double *waiting_req_s);
/* The arrival process (for forecasts: aiw_traffic_rate / _integral). */
const aiw_traffic *aiw_serving_traffic(const aiw_comp *c);
/* Price of a spot GPU-second relative to on-demand, in [0, 1] (default 1). */
aiw_status aiw_serving_set_spot_factor(aiw_comp *c, double factor);

/* The autoscaler's state, kept for autoscale.c (which allocates and frees
 * it: serving.c calls its hooks, aiw_autoscale_destroy before its own). */
void *aiw_serving_autoscale(const aiw_comp *c);
void aiw_serving_set_autoscale(aiw_comp *c, void *state);

/* Latency histogram of an inference component for exporters: which is
 * "ttft", "tpot", "e2e" or "queue_wait"; NULL for anything else.  The
 * TTFT histogram holds the completed sample windows (all of a run that
 * reached a sample tick at its end). */
const aiw_hist *aiw_serving_hist(const aiw_comp *c, const char *which);

/* Whether inference components started from now on do their cuts eagerly
 * (serving.c, "eager cuts"; default 1).  For tests, which compare both
 * ways; not thread-safe to change while runs are going. */
extern int aiw__serving_eager;

#endif /* AIW_SERVING_H */
