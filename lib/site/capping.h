/*
 * capping.h - the site's power capping controller (site.capping, capping.c)
 * and its demand-response events.
 *
 * Two thresholds and a reaction time, as POLCA (Patel et al., "POLCA:
 * Power Oversubscription in LLM Cloud Providers", arXiv:2308.12908; ASPLOS
 * 2024) and Meta's Thunderbolt run them: when the site's power stays above
 * the high threshold for the reaction time, the controller lowers the GPU
 * power cap of the components of the lowest capping priority by one level;
 * when it stays below the low threshold for the reaction time, it raises
 * the cap of the last group it capped by one level.  Between the two it
 * holds (hysteresis).
 *
 * The controller acts at the site's sample ticks, on the interval averages
 * of the facility power: a reaction time counts from the first tick above
 * (below) the threshold and is met at the first tick at least that much
 * later, so it is rounded up to whole sample intervals (0: the first tick
 * above acts).  After each action the count starts again.
 *
 * Levels: a group at level n is capped at 1 - n x step of its GPUs' TDP,
 * n from 0 (uncapped) to the deepest level whose cap is still at least
 * `min_frac`.  Groups are the distinct priorities, lowest first; each
 * takes every level before the next is touched.
 *
 * Memory: O(groups); nothing per tick.
 */
#ifndef AIW_CAPPING_H
#define AIW_CAPPING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define AIWI_CAPPING_GROUPS 10 /* priorities 0..9 */

typedef struct aiwi_capping {
	double high_w, low_w; /* the thresholds now (W; demand response may lower them) */
	double reaction;      /* s */
	double step;          /* of the TDP per level */
	int max_level;
	size_t ngroups;
	int level[AIWI_CAPPING_GROUPS]; /* per group, lowest priority first */
	double over_since, under_since; /* the tick a run above high (below low) began; NAN */
	uint64_t cap_events, release_events;
} aiwi_capping;

enum { AIWI_CAPPING_HOLD = 0, AIWI_CAPPING_LOWER = 1, AIWI_CAPPING_RAISE = -1 };

/* ngroups groups, levels of `step` down to min_frac of the TDP. */
void aiwi_capping_init(aiwi_capping *k, size_t ngroups, double high_w, double low_w,
                       double reaction, double step, double min_frac);

/* The tick at time t with facility power p (the interval's average):
 * AIWI_CAPPING_LOWER (group *g goes one level lower), _RAISE (one level
 * higher) or _HOLD; the level is already changed on return. */
int aiwi_capping_tick(aiwi_capping *k, double t, double p, size_t *g);

/* The cap of group g now, a fraction of the TDP (1: uncapped). */
double aiwi_capping_frac(const aiwi_capping *k, size_t g);

/* Demand response: an event i has its window [start + i period, + duration)
 * (period 0: one event), announced `notice` before its start. */
typedef struct aiwi_dr {
	double start, duration, period, notice;
} aiwi_dr;

/* The event whose announcement-to-end span [start - notice, end) holds t:
 * its index (>= 0), or -1. */
long aiwi_dr_event(const aiwi_dr *d, double t);

/* The length of [a, b] inside the windows (not the notices) of the events. */
double aiwi_dr_overlap(const aiwi_dr *d, double a, double b);

#endif /* AIW_CAPPING_H */
