/*
 * power.h - power helpers for the workload models.
 *
 * The site (site.c) sums the components' exact energy integrals into
 * curves, peaks, diversity factors and costs; a model only keeps its
 * c->energy_j, c->busy_gpu_s, c->paid_gpu_s, c->cost_usd up to date and,
 * once per sample tick, reports its racks with aiwi_site_rack_power() or
 * aiwi_site_racks_uniform() (internal.h).
 */
#ifndef AIW_POWER_H
#define AIW_POWER_H

#include "core/internal.h"

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

/* site.pue and the electricity price per joule of facility energy
 * (site.electricity_price / 3.6e6). */
double aiwi_site_pue(const aiw_sim *sim);
double aiwi_site_price_per_j(const aiw_sim *sim);

#endif /* AIW_POWER_H */
