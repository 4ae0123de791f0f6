/*
 * limits.h - up-front work and memory estimates of a run (limits.c).
 *
 * A configuration can be valid parameter by parameter and still ask for
 * more than a machine can give: 1e9 requests per second for a year, a
 * training step of a nanosecond for a century, curves of 5e7 points times
 * forty.  Before the components start, sim.c calls aiwi_limits_check, which
 * estimates from the parameters alone (no simulation, no allocation beyond
 * a trace scan for looping traces) the work and the memory of the run and
 * refuses it with AIW_ELIMIT and a message naming the estimate, its
 * factors, the limit and the parameter to change, e.g.
 *   "inference.chat: about 8.6e13 requests (rate 1e9/s x 1 d); the limit
 *    is 1e10 (lower rate or sim.duration)".
 * Estimates are expectations (the renewal count duration / mean
 * interval); they err towards more work, never by more than the models'
 * own slack.  Parameters a model would reject are skipped here so that the
 * model's own message reaches the user.
 */
#ifndef AIW_LIMITS_H
#define AIW_LIMITS_H

#include "core/internal.h"

/* Expected work items of one run (requests, training steps, failures,
 * load toggles, autoscaler ticks, spot preemptions, sample ticks), each
 * item alone and all together: at about a microsecond each, 1e10 is some
 * hours of CPU. */
#define AIW_LIMIT_WORK 1e10
/* Estimated memory of one run: curves (samples x curves x 8 B, grown by
 * doubling, or sim.series_keep x curves x 8 B), racks, load racks, histograms, replica slots, pending events. */
#define AIW_LIMIT_MEMORY_BYTES 4e9
/* Events pending at once (the engine's own limit, 2^24 - 1). */
#define AIW_LIMIT_PENDING ((double)AIW_ENGINE_MAX_PENDING)

typedef struct aiwi_limits_est {
	double work;         /* expected work items of the run (sum) */
	double work_max;     /* the largest single item */
	double memory_bytes; /* estimated peak memory of the run */
	double pending;      /* estimated events pending at once (upper bound) */
	double samples;      /* points per curve (ticks of the run) */
	double points;       /* points each curve allocates: samples, or the ring of
	                        sim.series_keep (the recorder's capacity) */
	double curves;       /* curves recorded (an upper bound) */
} aiwi_limits_est;

/* Estimate the run of sim as configured (state CONFIG) into *out.  Never
 * fails on a configuration the models would reject: such parts count as
 * no work.  Returns AIW_OK, or AIW_EINVAL for NULL arguments. */
aiw_status aiwi_limits_estimate(aiw_sim *sim, aiwi_limits_est *out);

/* The same estimate, checked: AIW_ELIMIT with a message naming the largest
 * work item when it is above AIW_LIMIT_WORK, else the total work, the
 * memory or the pending events above their limits; AIW_OK otherwise (the
 * message on sim is then left as it was).  A trace file (traffic = trace)
 * whose first 64 KiB hold a NUL byte or a line longer than
 * AIW_TRACE_MAX_LINE gives AIW_EPARSE with the trace reader's message
 * ("path:LINE: NUL byte in the line: not a text CSV file"): the reader
 * would read such a line, a sparse file's gigabyte of NULs, to its end. */
aiw_status aiwi_limits_check(aiw_sim *sim);

#endif /* AIW_LIMITS_H */
