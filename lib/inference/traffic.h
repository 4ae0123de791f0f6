/*
 * traffic.h - arrival processes for the inference model (internal).
 *
 * Kinds:
 *   poisson   homogeneous Poisson, rate lambda (1/s)
 *   diurnal   non-homogeneous Poisson with
 *               rate(t) = rate * w(day) * (1 + a sin(2 pi (h - peak_hour + 6) / 24)),
 *             h the hour of day of t (t = 0 is midnight of a Monday), a = (r-1)/(r+1)
 *             for the peak/trough ratio r, w = weekend_factor on days 5 and 6 of
 *             each week (Saturday, Sunday; day 0 = Monday) and 1 otherwise.  So
 *             `rate` is the mean of a weekday; the weekly mean is rate (5 + 2w) / 7.
 *             Generated exactly by thinning (Lewis and Shedler 1979) against
 *             a piecewise-constant envelope (the rate's maximum over each
 *             minute of the day): 1.001 candidates per arrival.
 *   bursty    gamma renewal process: interarrivals Gamma(shape 1/cv^2,
 *             scale cv^2/rate), so mean 1/rate and coefficient of variation cv
 *             (cv = 1 is Poisson).  With `modulate`, the renewal runs in
 *             operational time Lambda(t) = integral of the diurnal rate profile
 *             (time rescaling, Cinlar 1975; Gerhardt and Nelson 2009), inverted
 *             with a bracketing root finder (GSL Brent).
 *   trace     replay of a CSV file: TIMESTAMP,ContextTokens,GeneratedTokens as in
 *             the Azure LLM inference trace 2023 ("2023-11-16 18:17:03.9799600"),
 *             or plain seconds in the first column; optionally the timestamp
 *             alone.  Arrivals are relative to the first row (which arrives at 0),
 *             divided by time_scale (> 1 replays faster).  With `loop` the trace
 *             repeats every span + one mean interarrival (span = last - first).
 *             LF or CRLF line ends; blank lines and lines starting with '#' are
 *             skipped; a first line not starting like a number is a header;
 *             equal timestamps are accepted, decreasing ones and NUL bytes are
 *             errors ("path:line: ...").
 *             The file is streamed (memory O(1) in its length: one FILE*, one
 *             line buffer, a rate profile of at most AIW_TRACE_PROFILE_BINS
 *             bins); it is validated completely when the process is created.
 *
 * Every random draw comes from the gsl_rng passed to aiwi_traffic_next, so a
 * sequence depends only on the configuration and that stream's seed.
 */
#ifndef AIW_TRAFFIC_H
#define AIW_TRAFFIC_H

#include "core/internal.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

typedef enum aiwi_traffic_kind {
	AIW_TRAFFIC_POISSON,
	AIW_TRAFFIC_DIURNAL,
	AIW_TRAFFIC_BURSTY,
	AIW_TRAFFIC_TRACE,
	AIW_TRAFFIC_BATCH /* an offline job: batch_requests requests, all at batch_start */
} aiwi_traffic_kind;

/* Limits checked by aiwi_traffic_new (messages name the field). */
#define AIW_TRAFFIC_MAX_RATE 1e9          /* rate: [0, 1e9] 1/s */
#define AIW_TRAFFIC_MAX_RATIO 1e6         /* peak_to_trough: [1, 1e6] */
#define AIW_TRAFFIC_MAX_WEEKEND 1e3       /* weekend_factor: [0, 1e3] */
#define AIW_TRAFFIC_MAX_CV 100.0          /* cv: (0, 100] */
#define AIW_TRAFFIC_MAX_TIME_SCALE 1e9    /* time_scale: (0, 1e9] */
#define AIW_TRACE_MAX_LINE 4096           /* bytes per CSV line */
#define AIW_TRACE_PROFILE_BINS 4096       /* rate profile resolution cap */
#define AIW_TRACE_PROFILE_MIN_BIN 60.0    /* s of trace time per bin, at least */

typedef struct aiwi_traffic_conf {
	aiwi_traffic_kind kind;
	/* message prefix naming the component ("inference.chat"); may be NULL */
	const char *prefix;
	double rate;           /* poisson, diurnal, bursty: mean rate (1/s), weekday mean */
	double peak_to_trough; /* diurnal, modulated bursty: r >= 1 (1 = flat) */
	double peak_hour;      /* diurnal: hour of the peak, [0, 24) */
	double weekend_factor; /* diurnal: rate multiplier on days 5, 6 (1 = none) */
	double cv;             /* bursty: coefficient of variation of interarrivals */
	bool modulate;         /* bursty: follow the diurnal profile */
	const char *trace_path; /* trace: CSV file */
	const char *base_dir;  /* trace: resolves a relative trace_path; may be NULL */
	double time_scale;     /* trace: > 1 replays faster */
	bool loop;             /* trace: repeat at the end */
	double batch_requests; /* batch: requests of the job (a whole number >= 1) */
	double batch_start;    /* batch: the time they are all available (s, >= 0) */
} aiwi_traffic_conf;

/* Defaults: poisson at 1/s, r = 1, peak_hour 14, weekend_factor 1, cv 1,
 * time_scale 1, no loop. */
void aiwi_traffic_conf_default(aiwi_traffic_conf *conf);

typedef struct aiwi_traffic aiwi_traffic;

/* Validate conf (messages "prefix.field = value ...: expected ...") and
 * create the process.  For traces, opens and validates the whole file
 * (streaming), reporting "path:line: ..." for the first bad row.
 * *out is owned by the caller, released with aiwi_traffic_free. */
aiw_status aiwi_traffic_new(aiwi_traffic **out, const aiwi_traffic_conf *conf, char *err,
                           size_t errlen);
void aiwi_traffic_free(aiwi_traffic *tr);
/* Back to the state after creation (rewinds a trace). */
aiw_status aiwi_traffic_reset(aiwi_traffic *tr);

/* Absolute time (s) of the next arrival at or after max(now, previous
 * arrival): call it at each arrival with now = that arrival's time.  A
 * later `now` restarts the process from there (a renewal restarts; a trace
 * skips its rows earlier than now).  Returns INFINITY when there are no
 * more arrivals (non-looping trace ended, or a rate of 0), and NAN on an
 * I/O error while replaying (message in aiwi_traffic_errmsg).
 * prompt_tokens / output_tokens (may be NULL) receive the trace row's
 * token counts, or NAN when the process does not carry sizes (then the
 * caller samples them from its distributions).  r is the component's
 * stream (a trace draws nothing from it and accepts NULL). */
double aiwi_traffic_next(aiwi_traffic *tr, gsl_rng *r, double now, double *prompt_tokens,
                        double *output_tokens);
/* The next n arrivals in one call, each drawn as aiwi_traffic_next draws it
 * at the one before (the first at `now`): the same times from the same
 * stream, in a loop that keeps the process's state in registers.  Stops
 * after a non-finite time (no more arrivals).  Returns how many it wrote
 * to t, or 0 for a trace (whose rows carry sizes and may fail to read:
 * call aiwi_traffic_next). */
size_t aiwi_traffic_next_n(aiwi_traffic *tr, gsl_rng *r, double now, double *t, size_t n);
/* Expected arrival rate (1/s) at time t: the intensity for poisson and
 * diurnal, rate times the profile for bursty, and for a trace the
 * piecewise-constant rate of its arrival counts per profile bin. */
double aiwi_traffic_rate(const aiwi_traffic *tr, double t);
/* Expected number of arrivals in [t0, t1] (closed form; 0 if t1 <= t0). */
double aiwi_traffic_integral(const aiwi_traffic *tr, double t0, double t1);
/* Long-run mean rate (1/s): over a week for diurnal profiles, over the
 * period for a looping trace (rows / (period / time_scale)). */
double aiwi_traffic_mean_rate(const aiwi_traffic *tr);
aiwi_traffic_kind aiwi_traffic_get_kind(const aiwi_traffic *tr);
/* Last replay error ("" when none); never NULL. */
const char *aiwi_traffic_errmsg(const aiwi_traffic *tr);

/* Trace facts gathered when the file was validated. */
typedef struct aiwi_trace_info {
	uint64_t rows;          /* data rows */
	int fields;             /* 1 (timestamp only) or 3 */
	double span_s;          /* last - first timestamp, trace time (s) */
	double period_s;        /* loop period in simulated time (s) */
	double mean_prompt;     /* mean ContextTokens (NAN without them) */
	double mean_output;     /* mean GeneratedTokens (NAN without them) */
} aiwi_trace_info;
/* AIW_EINVAL unless tr is a trace. */
aiw_status aiwi_traffic_trace_info(const aiwi_traffic *tr, aiwi_trace_info *out);

/* Timestamp parser used by the trace reader: "YYYY-MM-DD HH:MM:SS[.frac]"
 * (also 'T' between date and time) into whole seconds since 1970-01-01 of
 * that wall clock (no time zone) and nanoseconds; true on success. */
bool aiwi_trace_parse_datetime(const char *s, size_t len, int64_t *sec, int64_t *nsec);

#endif /* AIW_TRAFFIC_H */
