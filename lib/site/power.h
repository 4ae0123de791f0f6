/*
 * power.h - the site's services to the workload models (site.c).
 *
 * The site sums the components' exact energy integrals into curves, peaks,
 * diversity factors and costs; a model only keeps its c->energy_j,
 * c->busy_gpu_s, c->paid_gpu_s, c->cost_usd up to date and, once per sample
 * tick, reports its racks with aiwi_site_rack_power() or
 * aiwi_site_racks_uniform() (below).
 */
#ifndef AIW_POWER_H
#define AIW_POWER_H

#include "core/internal.h"
#include "site/grid.h"

/* Utilisation power curves. */
enum { AIW_POWER_LINEAR = 0, AIW_POWER_FAN = 1 };
#define AIW_POWER_CURVE_CHOICES "linear|fan"

/* Power (W) of a device at utilisation u in [0, 1] (clamped) between its
 * idle and busy power levels:
 *   linear (curve 0): P = idle + (busy - idle) u
 *   fan    (curve 1): P = idle + (busy - idle) (2u - u^1.4)
 * (Fan, Weber & Barroso, "Power provisioning for a warehouse-sized
 * computer", ISCA 2007, their empirical model with r = 1.4).  Both give idle
 * at u = 0 and busy at u = 1; fan is concave (higher power at partial load).
 * An unknown curve value is treated as linear. */
double aiwi_power_fan(double idle, double busy, double u, int curve);

/* Rack-level peaks.  From a component's sample hook, once per tick, report
 * the interval-average IT power of each of its racks (GPUs grouped by
 * site.gpus_per_rack in the component's own GPU order).  The site keeps a
 * running maximum per rack: O(racks) memory over any run length. */
void aiwi_site_rack_power(aiw_sim *sim, aiwi_comp *c, size_t rack, double avg_w);
/* Same for nracks identical racks (a synchronous training job). */
void aiwi_site_racks_uniform(aiw_sim *sim, aiwi_comp *c, size_t nracks, double avg_w_each);
/* site.gpus_per_rack */
double aiwi_site_gpus_per_rack(const aiw_sim *sim);

/* site.pue and the electricity price per joule of facility energy
 * (site.electricity_price / 3.6e6). */
double aiwi_site_pue(const aiw_sim *sim);
double aiwi_site_price_per_j(const aiw_sim *sim);
/* Component k's energy cost so far (USD): k->energy_j x pue x the price per
 * joule, or, with a price series, the site's per-interval pricing up to
 * now (site.c; aiwi_cost_energy_usd in cost.h says more). */
double aiwi_site_energy_cost_usd(const aiwi_comp *k);

/* What happened now (AIWI_CAUSE_* of site/grid.h: a job start, a
 * checkpoint, a failure, a scale event), for the grid statistics to
 * attribute the load steps; nothing without site.grid = on. */
void aiwi_site_cause(aiw_sim *sim, int cause);

/* Deferrable work: the start x in [a, b] that minimises the integral of the
 * site's price series (carbon: its carbon intensity series) over
 * [x, x + d], the earliest of equals; a without such a series.  Exact for
 * a step series (tariff.h); a work of constant power over d costs least
 * there.  aiwi_site_has_series: whether the site has that series (after
 * the site's start). */
double aiwi_site_best_start(const aiw_sim *sim, bool carbon, double a, double b, double d);
bool aiwi_site_has_series(const aiw_sim *sim, bool carbon);

#endif /* AIW_POWER_H */
