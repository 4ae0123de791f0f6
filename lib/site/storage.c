/*
 * storage.c - energy storage between the site's load and the grid
 * (storage.h has the model and its balance equations).
 */
#include "site/storage.h"

#include <math.h>

static double clamp(double x, double lo, double hi)
{
	return x < lo ? lo : x > hi ? hi : x;
}

void aiwi_storage_init(aiwi_storage *s, int mode, double capacity_j, double power_w, double eta,
                       double soc0, double limit_w, double ramp_w_s)
{
	*s = (aiwi_storage){0};
	s->mode = mode;
	s->capacity_j = capacity_j;
	s->power_w = power_w;
	s->eta = eta;
	s->limit_w = limit_w;
	s->ramp_w_s = ramp_w_s;
	s->soc_j = clamp(soc0, 0, 1) * capacity_j;
	s->soc_min_j = s->soc_max_j = s->soc_j;
}

double aiwi_storage_step(aiwi_storage *s, double p, double dt)
{
	if (!(dt > 0))
		return p;
	double se = sqrt(s->eta);
	/* the most the battery can give or take over this interval */
	double dmax = fmin(s->power_w, s->soc_j * se / dt);
	double cmax = fmin(s->power_w, (s->capacity_j - s->soc_j) / (se * dt));
	dmax = fmax(dmax, 0);
	cmax = fmax(cmax, 0);
	double b; /* battery power: > 0 discharging, < 0 charging */
	if (s->mode == AIWI_STORAGE_PEAK) {
		b = p > s->limit_w ? fmin(p - s->limit_w, dmax) : -fmin(s->limit_w - p, cmax);
	} else {
		if (!s->started)
			s->g_prev = p;
		double lo = s->g_prev - s->ramp_w_s * dt, hi = s->g_prev + s->ramp_w_s * dt;
		/* within the ramp band, toward half charge as fast as allowed */
		double half = 0.5 * s->capacity_j;
		double want = s->soc_j < half ? fmin((half - s->soc_j) / (se * dt), cmax)
		                              : -fmin((s->soc_j - half) * se / dt, dmax);
		double g = clamp(p + want, lo, hi);
		b = clamp(p - g, -cmax, dmax);
	}
	double g = p - b;
	if (b > 0) {
		s->discharged_j += b * dt;
		s->loss_j += (1 / se - 1) * b * dt;
		s->soc_j -= b * dt / se;
	} else if (b < 0) {
		s->charged_j += -b * dt;
		s->loss_j += (1 - se) * -b * dt;
		s->soc_j += -b * dt * se;
	}
	s->soc_j = clamp(s->soc_j, 0, s->capacity_j); /* rounding only */
	s->soc_min_j = fmin(s->soc_min_j, s->soc_j);
	s->soc_max_j = fmax(s->soc_max_j, s->soc_j);
	s->grid_j += g * dt;
	s->demand_j += p * dt;
	s->grid_peak_w = s->started ? fmax(s->grid_peak_w, g) : g;
	if (s->mode == AIWI_STORAGE_PEAK && g > s->limit_w * (1 + 1e-12))
		s->over_s += dt;
	if (s->mode == AIWI_STORAGE_RAMP && s->started &&
	    fabs(g - s->g_prev) > s->ramp_w_s * dt * (1 + 1e-12) + 1e-9)
		s->over_s += dt;
	s->g_prev = g;
	s->started = true;
	s->intervals++;
	return g;
}
