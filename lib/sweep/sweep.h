/*
 * sweep.h - experiment sweeps: a base scenario, a grid of parameter points
 * (cartesian product of axes, rows of a CSV file), R replications per point
 * with independent seeds, run on J POSIX threads (one aiw_sim per task),
 * and per point and metric the mean, the sample standard deviation and the
 * 95% confidence half-width t(0.975, n-1) s / sqrt(n) (Student; quantile
 * from gsl_cdf_tdist_Pinv).
 *
 * Determinism: a task (point p, replication r) depends only on the scenario,
 * the point's values and its seed M(M(base + G (p+1)) + G (r+1)) (M the
 * SplitMix64 finalizer, Steele, Lea & Flood 2014; G the golden-ratio
 * increment); results are stored by task index and reduced in replication
 * order (exact two-pass mean and variance), so they are bit-identical
 * whatever the number of threads or MPI ranks and whatever order tasks
 * finish in.
 *
 * Tasks are handed out in index order (point-major) from a shared cursor, one
 * at a time: a slow point never idles the other threads.  A stop request
 * (aiw_sweep_stop: one atomic store, async-signal-safe) is seen between
 * tasks and, through each simulation's progress callback, within a
 * thousandth of the running ones' simulated span; their partial results are
 * dropped.
 *
 * Memory: O(points x replications x metrics) doubles for the results; the
 * grid itself is never materialised (a point's values come from its index).

 *
 * One file per concern, sharing struct aiw_sweep below:
 *   sweep.c    the description: create and free, axes, the point file
 *              (CSV), replications, seed, jobs, callbacks;
 *   task.c     a point's values and seeds, one task's simulation;
 *   prepare.c  the checks and the metric list before the first task;
 *   run.c      the runner: tasks on threads, stop, callbacks, progress;
 *   results.c  the accessors and the per-point statistics;
 *   output.c   the CSV writers.
 */
#ifndef AIW_SWEEP_SWEEP_H
#define AIW_SWEEP_SWEEP_H

#include "core/internal.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ERRMSG_LEN 1024
#define MAX_REPLICATIONS 1000000u
#define MAX_JOBS 1024u
#define MAX_TASKS ((size_t)1 << 40)
#define MAX_RESULT_BYTES ((size_t)1 << 36) /* 64 GiB of result doubles */
#define MAX_FILE_BYTES (64u << 20)
#define GOLDEN 0x9e3779b97f4a7c15ull
#define TASK_DONE 1    /* stored[t]: results stored */
#define TASK_REFUSED 2 /* stored[t]: refused under keep_going */

typedef struct aiwi_sweep_axis {
	char *name;
	char **vals;
	size_t n;
} aiwi_sweep_axis;

/* Mutable shared state, reached through a pointer so that const accessors
 * can report errors and take the lock. */
typedef struct aiwi_sweep_sync {
	pthread_mutex_t mu;    /* results, counters, run state */
	pthread_mutex_t errmu; /* errmsg */
	pthread_cond_t cv;     /* a task finished or a worker left */
	char errmsg[ERRMSG_LEN];
} aiwi_sweep_sync;

struct aiw_sweep {
	/* description */
	char *path;           /* scenario file, or NULL */
	char *text;           /* scenario text (read from path at prepare) */
	size_t textlen;
	char *base_dir;       /* directory of path, for relative file names */
	aiwi_sweep_axis *axes;
	size_t naxes;
	char *pf_path;        /* point file */
	char **pf_names;      /* its header */
	size_t pf_ncols;
	char **pf_cells;      /* pf_nrows x pf_ncols */
	size_t pf_nrows;
	size_t *pf_lines;     /* file line of each row (messages) */
	size_t R;
	char *metrics_spec;
	bool seed_set;
	uint64_t seed;
	unsigned jobs;
	bool keep_going;      /* a refused task is recorded for its point */
	aiw_sweep_fn cb;
	void *cb_payload;
	aiw_sweep_progress_fn prog;
	void *prog_payload;
	aiwi_memo *memo;      /* shared by the tasks' simulations (core/memo.c) */

	/* prepared */
	bool prepared;
	uint64_t base;
	size_t nparams;
	const char **pnames;  /* into pf_names, then axes[].name */
	size_t axis_points;   /* product of the axis sizes */
	size_t npoints, ntasks;
	char **mnames;
	size_t nmetrics;
	double *vals;         /* ntasks x nmetrics, task t = point R + rep */
	unsigned char *stored; /* per task: 0 not run, TASK_DONE, TASK_REFUSED */
	aiw_status *pst;      /* per point: its refusal (AIW_OK: none) */
	size_t *prep;         /* per point: the refused replication kept */
	char **pmsg;          /* per point: the refusal's message */
	size_t *left;         /* replications of each point not stored yet */
	size_t nstored;

	atomic_int stop;      /* 1: stop requested, 2: a task failed */
	aiwi_sweep_sync *sy;
	/* inside aiw_sweep_run (its callbacks run on the caller's thread): a
	 * second run is refused and aiw_sweep_free is deferred to the run's end */
	bool running, free_pending;
};

/* sweep.c */
aiw_status aiwi_sweep_err(const aiw_sweep *sw, aiw_status code, const char *fmt, ...)
	AIW_PRINTF(3, 4);
void aiwi_sweep_free_strv(char **v, size_t n);
aiw_status aiwi_sweep_read_file(aiw_sweep *sw, const char *path, char **out, size_t *len);

/* task.c */
uint64_t aiwi_sweep_seed_of(uint64_t base, size_t point, size_t rep);
const char *aiwi_sweep_value(const aiw_sweep *sw, size_t point, size_t i);
void aiwi_sweep_describe_point(const aiw_sweep *sw, size_t point, char *buf, size_t len);
aiw_status aiwi_sweep_build_sim(const aiw_sweep *sw, size_t point, size_t rep, aiw_sim **out,
                                char *err, size_t errlen);
aiw_status aiwi_sweep_task_exec(aiw_sweep *sw, size_t point, size_t rep, double *out, char *err,
                                size_t errlen);

/* prepare.c */
void aiwi_sweep_unprepare(aiw_sweep *sw);

/* run.c */
aiw_status aiwi_sweep_check_task(const aiw_sweep *sw, const char *fn, size_t point, size_t rep);

/* results.c */
void aiwi_sweep_point_stats(const aiw_sweep *sw, size_t point, size_t metric, double *mean,
                            double *sd, double *ci, size_t *n);
bool aiwi_sweep_point_complete(const aiw_sweep *sw, size_t point);
/* The refusal kept for a point under keep_going (AIW_OK: none) and its
 * message ("" when none). */
aiw_status aiwi_sweep_point_refusal(const aiw_sweep *sw, size_t point, const char **msg);

#endif
