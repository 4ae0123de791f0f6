/*
 * grid.h - the site as the grid sees it (grid.c): streaming statistics of
 * the site's sampled IT power curve, kept by the site when site.grid = on.
 *
 * Everything is computed as the curve is sampled, with memory bounded by
 * the parameters (the longest window in samples and the Welch segment),
 * never by the run's length:
 *  - ramps: for each of three windows of k_i = max(1, round(W_i / dt))
 *    sample intervals, |P_j - P_(j-k)| / (t_j - t_(j-k)) at every sample j,
 *    its maximum and its 99th percentile (GSL's P-square estimator,
 *    gsl_rstat_quantile: exact below 5 values and for a constant series,
 *    an estimate otherwise);
 *  - load steps: the largest rise and the largest drop between two
 *    consecutive samples and when they ended;
 *  - drops: the deepest fall of a sample below the highest of the k_d
 *    samples before it, as a fraction of that maximum, and, when a
 *    threshold is set, how many times the curve entered such a fall;
 *  - spectrum: Welch's averaged periodogram (segments of n samples, a
 *    periodic Hann window, 50 % overlap, each segment's mean removed,
 *    one-sided density as scipy.signal.welch's defaults), with GSL's
 *    mixed-radix real FFT; the share of the fluctuation energy in a band
 *    and the frequency of the highest bin.
 */
#ifndef AIW_GRID_H
#define AIW_GRID_H

#include "core/internal.h"

#define AIWI_GRID_WINDOWS 3

/* What happened in a sample interval, as the models report it to the site
 * (aiwi_site_cause, power.h): the load steps are attributed to the causes
 * of the two intervals they join (an event inside an interval moves its
 * average and the next one's). */
enum {
	AIWI_CAUSE_JOB_START,  /* a training job starts */
	AIWI_CAUSE_JOB_STOP,   /* a training job ends */
	AIWI_CAUSE_CHECKPOINT, /* a checkpoint write starts or ends */
	AIWI_CAUSE_FAILURE,    /* a GPU or replica fails */
	AIWI_CAUSE_RESTART,    /* a job resumes after a failure */
	AIWI_CAUSE_SCALE_UP,   /* replicas added or made ready */
	AIWI_CAUSE_SCALE_DOWN, /* replicas removed */
	AIWI_CAUSE_PREEMPTION, /* spot capacity reclaimed */
	AIWI_NCAUSES
};

typedef struct aiwi_grid_conf {
	double dt;                       /* sample interval (s) */
	double window[AIWI_GRID_WINDOWS]; /* ramp windows (s) */
	double drop_window;              /* s */
	double drop_fraction;            /* > 0: count drop events deeper than it */
	size_t segment;                  /* Welch segment (samples, >= 4) */
	double band_lo, band_hi;         /* Hz */
} aiwi_grid_conf;

typedef struct aiwi_grid aiwi_grid;

/* A new accumulator, or NULL when out of memory. */
aiwi_grid *aiwi_grid_new(const aiwi_grid_conf *conf);
void aiwi_grid_free(aiwi_grid *g);
/* The sample of the curve at time t: the interval average p (W); causes:
 * the bits (1u << AIWI_CAUSE_*) of what happened in the interval. */
void aiwi_grid_add(aiwi_grid *g, double t, double p, unsigned causes);
/* Publish the site.grid_* metrics on sim. */
void aiwi_grid_publish(const aiwi_grid *g, aiw_sim *sim);
/* Bytes an accumulator of conf holds (the up-front estimate). */
double aiwi_grid_bytes(const aiwi_grid_conf *conf);
/* Warn (aiwi_warn) of what the sample interval and segment cannot see. */
void aiwi_grid_check(const aiwi_grid_conf *conf, aiw_sim *sim);

/* The Welch estimate so far: *nbins one-sided bins k = 0 .. n/2 at
 * frequency k df (Hz), density in W^2/Hz (the mean over the segments done,
 * *nseg), NULL when no segment is complete. */
const double *aiwi_grid_psd(const aiwi_grid *g, size_t *nbins, double *df, size_t *nseg);
/* The site's accumulator (site.grid = on, after a run's start), or NULL. */
const aiwi_grid *aiwi_site_grid(const aiw_sim *sim);
/* Lag in samples of ramp window i, and of the drop window. */
size_t aiwi_grid_lag(const aiwi_grid *g, int i);

#endif /* AIW_GRID_H */
