/*
 * capping.c - the site's power capping controller: two thresholds, a
 * reaction time, levels by priority (capping.h); the demand-response
 * windows.  Pure state: site.c feeds it the ticks and applies its
 * decisions to the components (aiwi_comp_site_cap).
 */
#include "site/capping.h"

#include <math.h>

void aiwi_capping_init(aiwi_capping *k, size_t ngroups, double high_w, double low_w,
                       double reaction, double step, double min_frac)
{
	*k = (aiwi_capping){0};
	k->ngroups = ngroups > AIWI_CAPPING_GROUPS ? AIWI_CAPPING_GROUPS : ngroups;
	k->high_w = high_w;
	k->low_w = low_w;
	k->reaction = reaction;
	k->step = step;
	/* the deepest n with 1 - n step >= min_frac (a hair of slack for the
	 * decimal fractions: 1 - 5 x 0.1 is 0.5 to the user) */
	k->max_level = (int)floor((1 - min_frac) / step + 1e-9);
	k->over_since = k->under_since = NAN;
}

double aiwi_capping_frac(const aiwi_capping *k, size_t g)
{
	return g < k->ngroups ? 1 - k->level[g] * k->step : 1;
}

int aiwi_capping_tick(aiwi_capping *k, double t, double p, size_t *g)
{
	if (p > k->high_w) {
		k->under_since = NAN;
		if (isnan(k->over_since))
			k->over_since = t;
		if (!(t - k->over_since >= k->reaction))
			return AIWI_CAPPING_HOLD;
		/* the lowest priority with a level left */
		for (size_t i = 0; i < k->ngroups; i++)
			if (k->level[i] < k->max_level) {
				k->level[i]++;
				k->cap_events++;
				k->over_since = t; /* the next action waits a reaction time again */
				*g = i;
				return AIWI_CAPPING_LOWER;
			}
		return AIWI_CAPPING_HOLD; /* every group at its deepest cap */
	}
	k->over_since = NAN;
	if (!(p < k->low_w)) {
		k->under_since = NAN;
		return AIWI_CAPPING_HOLD;
	}
	if (isnan(k->under_since))
		k->under_since = t;
	if (!(t - k->under_since >= k->reaction))
		return AIWI_CAPPING_HOLD;
	/* the last capped: the highest priority below its full power */
	for (size_t i = k->ngroups; i-- > 0;)
		if (k->level[i] > 0) {
			k->level[i]--;
			k->release_events++;
			k->under_since = t;
			*g = i;
			return AIWI_CAPPING_RAISE;
		}
	return AIWI_CAPPING_HOLD;
}

long aiwi_dr_event(const aiwi_dr *d, double t)
{
	double x = t - (d->start - d->notice);
	if (!(x >= 0))
		return -1;
	long i = d->period > 0 ? (long)floor(x / d->period) : 0;
	double end = d->start + (double)i * d->period + d->duration;
	return t < end ? i : -1;
}

double aiwi_dr_overlap(const aiwi_dr *d, double a, double b)
{
	if (!(b > a) || !(d->duration > 0))
		return 0;
	long i0 = 0, i1 = 0;
	if (d->period > 0) {
		i0 = (long)floor((a - d->start) / d->period);
		i1 = (long)floor((b - d->start) / d->period);
		if (i0 < 0)
			i0 = 0;
	}
	double s = 0;
	for (long i = i0; i <= i1; i++) {
		double w0 = d->start + (double)i * d->period, w1 = w0 + d->duration;
		double lo = fmax(a, w0), hi = fmin(b, w1);
		if (hi > lo)
			s += hi - lo;
	}
	return s;
}
