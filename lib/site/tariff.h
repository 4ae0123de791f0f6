/*
 * tariff.h - step series in time: an electricity price or a grid carbon
 * intensity that changes with the hour (site.electricity_price_daily,
 * site.electricity_price_file, site.carbon_intensity_*; tariff.c).
 *
 * A series is a step function of the simulated clock: value v[i] holds on
 * [t[i], t[i+1]).  A daily series repeats every 86,400 s from midnight
 * (t = 0 is midnight, as the diurnal traffic's clock); a file's series
 * starts at its first row's time (the value before it is the first row's)
 * and its last value holds to the end.  Integrals are exact for a step
 * function: the site prices each sample interval's energy at the
 * interval's mean value (aiworkload(7) "Price and carbon").
 */
#ifndef AIW_TARIFF_H
#define AIW_TARIFF_H

#include "core/internal.h"

typedef struct aiwi_tseries {
	double *t;     /* n step times, increasing (t[0] = 0 for a daily series) */
	double *v;     /* n values */
	double *cum;   /* n: integral of the series from t[0] to t[i] */
	size_t n;
	double period; /* 86400 for a daily series, 0: not periodic */
} aiwi_tseries;

/* Parse "v1, v2, ..., vN" (commas or blanks) of quantities of type `unit`
 * (AIW_PT_MONEY, AIW_PT_REAL), each in [lo, hi], as N equal parts of a day
 * from midnight.  `what` names the parameter in messages. */
aiw_status aiwi_tseries_daily(aiwi_tseries *s, const char *text, aiwi_ptype unit, double lo,
                              double hi, const char *what, char *err, size_t len);

/* Read a CSV file of TIME,VALUE rows (TIME a duration since the start, a
 * plain number in seconds or with a unit: "3600", "1h"; a first line that
 * does not parse is a header; '#' starts a comment), times strictly
 * increasing, each value in [lo, hi]. */
aiw_status aiwi_tseries_file(aiwi_tseries *s, const char *path, aiwi_ptype unit, double lo,
                             double hi, const char *what, char *err, size_t len);

void aiwi_tseries_free(aiwi_tseries *s);

/* The value at time t (t >= 0). */
double aiwi_tseries_at(const aiwi_tseries *s, double t);

/* The integral of the series over [a, b] (0 <= a <= b), exact. */
double aiwi_tseries_integral(const aiwi_tseries *s, double a, double b);

/* The mean over [a, b]; the value at a when b <= a. */
double aiwi_tseries_mean(const aiwi_tseries *s, double a, double b);

/* The first step time of s, other than 0, that is not a whole number of
 * sample intervals dt (relative tolerance 1e-9), or a negative number when
 * every step falls on a sample tick. */
double aiwi_tseries_off_tick(const aiwi_tseries *s, double dt);

/* Bytes a series of n steps holds. */
double aiwi_tseries_bytes(size_t n);

#endif /* AIW_TARIFF_H */
