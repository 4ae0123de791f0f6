/*
 * storage.h - energy storage between the site's load and the grid
 * (site.storage_*, storage.c): a battery that shaves the site's peaks
 * against a grid limit, or limits the ramp rate the grid sees.
 *
 * The battery acts on the site's sampled power, one sample interval at a
 * time, on interval averages (so the sample interval is its control
 * resolution): with demand P (W) over an interval of dt seconds it
 * discharges d or charges c (W, at most its power rating, and within its
 * state of charge), and the grid draws G = P - d + c.  Round-trip
 * efficiency eta is split evenly between the two directions: charging c
 * for dt stores c dt sqrt(eta), discharging d for dt takes d dt / sqrt(eta)
 * out of the battery.  So, exactly,
 *   sum G dt = sum P dt + sum c dt - sum d dt   (grid energy)
 *   E_end - E_0 = sqrt(eta) sum c dt - sum d dt / sqrt(eta)
 *   losses = (1 - sqrt(eta)) sum c dt + (1 / sqrt(eta) - 1) sum d dt.
 * Modes:
 *  - peak shaving: G = min(P, L) while the battery can discharge; below
 *    the limit it recharges with up to L - P;
 *  - ramp limiting: G follows P but moves by at most r dt per interval,
 *    the battery making up the difference (and drifting back to half
 *    charge when P is steady).
 */
#ifndef AIW_STORAGE_H
#define AIW_STORAGE_H

#include <stdbool.h>
#include <stddef.h>

enum { AIWI_STORAGE_PEAK = 0, AIWI_STORAGE_RAMP = 1 };

typedef struct aiwi_storage {
	int mode;
	double capacity_j;  /* usable energy (J) */
	double power_w;     /* charge and discharge rating (W) */
	double eta;         /* round-trip efficiency, (0, 1] */
	double limit_w;     /* peak shaving: the grid limit (W) */
	double ramp_w_s;    /* ramp limiting: the largest |dG/dt| (W/s) */
	/* state */
	double soc_j;       /* stored energy (J) */
	double g_prev;      /* the grid's power over the previous interval */
	bool started;
	/* integrals and extremes */
	double charged_j, discharged_j, loss_j, grid_j, demand_j;
	double soc_min_j, soc_max_j, grid_peak_w;
	double over_s; /* time the grid drew above the limit, or ramped faster than allowed */
	size_t intervals;
} aiwi_storage;

/* Start with soc0 (fraction of capacity) stored. */
void aiwi_storage_init(aiwi_storage *s, int mode, double capacity_j, double power_w, double eta,
                       double soc0, double limit_w, double ramp_w_s);

/* One interval of dt seconds with demand p (W): the grid's draw (W). */
double aiwi_storage_step(aiwi_storage *s, double p, double dt);

#endif /* AIW_STORAGE_H */
