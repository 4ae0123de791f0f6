/*
 * port.h - the fleet as the autoscaler sees it: the table of functions
 * (aiwi_fleet_port) through which the controller (controller.c) reads the
 * fleet and provisions, drains and fails its replicas.  The fleet
 * implements it (serving_api.c, aiwi_serving_port) and hands it to
 * aiwi_autoscale_start; every function takes the fleet's component, the
 * port's context, and acts at the current simulated time.  The autoscaler
 * calls nothing of the fleet's by name, so lib/inference/autoscale/ sits
 * below lib/inference/ by symbols as well as by includes.
 */
#ifndef AIW_AUTOSCALE_PORT_H
#define AIW_AUTOSCALE_PORT_H

#include "core/internal.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A replica slot's state (fleet.h draws the state machine): FREE, LOADING
 * (weights loading for its cold start: paid, not routable), READY
 * (routable), DRAINING (not routable; finishes what it holds, then FREE). */
typedef enum aiwi_replica_state {
	AIW_REPLICA_FREE,
	AIW_REPLICA_LOADING,
	AIW_REPLICA_READY,
	AIW_REPLICA_DRAINING
} aiwi_replica_state;

/* The fleet's counts now. */
typedef struct aiwi_fleet_counts {
	uint32_t ready, loading, draining; /* replicas by state */
	uint32_t busy;     /* ready or draining replicas serving a request */
	uint32_t spot;     /* provisioned (loading, ready, draining) spot replicas */
	uint64_t waiting;  /* requests queued (router queue, replica queues, preempted) */
	uint64_t running;  /* requests in a batch (prefill or decode) */
	uint64_t arrived, completed, dropped; /* cumulative; in flight = waiting + running */
} aiwi_fleet_counts;

typedef struct aiwi_fleet_port {
	/* provision a replica that loads for cold_start_s (0: ready at once),
	 * spot or on-demand: its slot id, or a negative aiw_status */
	int (*add_replica)(aiwi_comp *fleet, double cold_start_s, bool spot);
	/* take replica id out of service (a loading or idle one at once, a
	 * busy one drains): its slot id, or a negative aiw_status */
	int (*remove_replica)(aiwi_comp *fleet, int id);
	/* lose replica id now, its requests routed again */
	aiw_status (*fail_replica)(aiwi_comp *fleet, int id);
	void (*counts)(const aiwi_comp *fleet, aiwi_fleet_counts *out);
	/* slots (ids 0 .. slots - 1, some FREE) and, by slot, its state, whether
	 * it is spot, the requests it holds (queued, preempted, in its batch) */
	size_t (*slots)(const aiwi_comp *fleet);
	aiwi_replica_state (*replica_state)(const aiwi_comp *fleet, size_t id);
	bool (*replica_spot)(const aiwi_comp *fleet, size_t id);
	uint32_t (*replica_outstanding)(const aiwi_comp *fleet, size_t id);
	/* from 0 to now: GPU-seconds busy and provisioned, request-seconds waiting */
	void (*integrals)(aiwi_comp *fleet, double *busy_gpu_s, double *paid_gpu_s,
	                  double *waiting_req_s);
	/* the traffic law's arrival rate (1/s) at time t (the predictive
	 * policy's forecast) */
	double (*arrival_rate)(const aiwi_comp *fleet, double t);
	/* the price of a spot GPU-second relative to on-demand, in [0, 1] */
	aiw_status (*set_spot_factor)(aiwi_comp *fleet, double factor);
	/* the load now: prompt tokens still to prefill of the queued requests
	 * (a preempted one's prompt and tokens generated), and the sum over the
	 * ready replicas of the fraction of its KV memory its running requests
	 * hold (evictable cached prefixes not counted) */
	void (*load)(const aiwi_comp *fleet, double *queued_prompt_tokens, double *kv_occupancy);
} aiwi_fleet_port;

#endif /* AIW_AUTOSCALE_PORT_H */
