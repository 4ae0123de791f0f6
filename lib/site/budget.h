/*
 * budget.h - a GPU budget shared by several serving fleets (site.gpu_budget)
 * and its arbiter (budget.c).
 *
 * Every [inference NAME] fleet of a run with site.gpu_budget set is a
 * member: it holds GPUs (its provisioned replicas, loading, ready or
 * draining, times gpus_per_replica; a fleet without an autoscaler also
 * reserves the replicas out for repair, which come back on their own), and
 * only an autoscaler's scale-up asks for more.  A request names the
 * replicas a fleet lacks; the requests made at one instant are settled
 * together by one event at that instant, run after every event already
 * due then (the engine's first-in, first-out order at equal times), so
 * that fleets whose decisions coincide (HPA syncs on the same period) are
 * arbitrated together.  The room is the budget less the GPUs held by every
 * member; it is shared by site.budget_rule (aiwi_budget_split).  A request
 * granted in part or not at all is a denied scale-up; the fleet asks again
 * at its next decision.  Nothing is taken back from a fleet already
 * holding GPUs (no preemption between fleets).
 */
#ifndef AIW_SITE_BUDGET_H
#define AIW_SITE_BUDGET_H

#include "core/internal.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* site.budget_rule */
enum { AIW_BUDGET_PRIORITY, AIW_BUDGET_PROPORTIONAL, AIW_BUDGET_WEIGHTED };

/* One request to split: replicas asked (want), GPUs per replica (g), the
 * fleet's priority and weight. */
typedef struct aiwi_budget_ask {
	uint32_t want;
	double g, priority, weight;
} aiwi_budget_ask;

/* Split `room` GPUs among n requests by `rule`; grant[i] <= ask[i].want and
 * sum grant[i] g_i <= room.  The requests are in member order (the fleets'
 * order in the scenario), which breaks every tie:
 *  priority      highest priority first, each granted all that fits
 *                (floor(room left / g) at most);
 *  proportional  each a share of room proportional to its demand
 *                want g (all of it when the demands fit);
 *  weighted      max-min fair by weight (water-filling): each a share of
 *                room proportional to its weight, a request below its share
 *                granted in full and the rest shared again among the others.
 * The shares of proportional and weighted are GPUs, rounded down to whole
 * replicas; the GPUs left over go one replica at a time to the requests
 * by largest remainder of their share (in GPUs), then member order, that
 * still want one and whose replica fits. */
void aiwi_budget_split(int rule, size_t n, const aiwi_budget_ask *ask, double room,
                       uint32_t *grant);

typedef struct aiwi_budget aiwi_budget;

/* A member's hooks: the GPUs it holds now; provision up to n replicas now
 * (n > 0). */
typedef double (*aiwi_budget_held_fn)(void *ctx);
typedef void (*aiwi_budget_grant_fn)(void *ctx, uint32_t n);

/* The run's budget (NULL: site.gpu_budget unset). */
aiwi_budget *aiwi_site_budget(const aiw_sim *sim);

aiwi_budget *aiwi_budget_new(aiw_sim *sim, double gpus, int rule);
void aiwi_budget_free(aiwi_budget *b);
/* Join as a member (at its start, its initial replicas provisioned): its
 * index, or a negative status when out of memory or when the members'
 * GPUs exceed the budget (the message names both). */
int aiwi_budget_join(aiwi_budget *b, const char *name, double g, double priority, double weight,
                     aiwi_budget_held_fn held, aiwi_budget_grant_fn grant, void *ctx);
/* Member m lacks `want` replicas now (0: it lacks none, a pending request
 * is withdrawn). */
void aiwi_budget_request(aiwi_budget *b, int m, uint32_t want);
/* site.budget_rule (AIW_BUDGET_*). */
int aiwi_budget_rule(const aiwi_budget *b);
/* GPUs held by every member now. */
double aiwi_budget_used(const aiwi_budget *b);
/* The peak of the GPUs held, at every decision and sample. */
void aiwi_budget_sample(aiwi_budget *b);
/* Publish the budget's metrics (site.budget_*) and each member's
 * (PREFIX.budget_denied_*). */
void aiwi_budget_finish(aiwi_budget *b);

#endif /* AIW_SITE_BUDGET_H */
