/*
 * run.c - running a sweep: tasks handed out in index order to J POSIX threads,
 * results stored by task index, a stop seen between tasks and within
 * running ones, per-point callbacks and progress on the calling thread.
 */
#include "sweep/sweep.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* ======================================================================== */
/* running                                                                   */
/* ======================================================================== */
AIW_EXPORT void aiw_sweep_stop(aiw_sweep *sw)
{
	if (sw) {
		int expected = 0; /* an internal abort (2) stays */
		atomic_compare_exchange_strong(&sw->stop, &expected, 1);
	}
}

aiw_status aiwi_sweep_check_task(const aiw_sweep *sw, const char *fn, size_t point, size_t rep)
{
	if (!sw->prepared)
		return aiwi_sweep_err(sw, AIW_ESTATE, "%s: call aiw_sweep_prepare first", fn);
	if (point >= sw->npoints)
		return aiwi_sweep_err(sw, AIW_ERANGE, "%s: point %zu: the sweep has %zu points", fn, point,
				      sw->npoints);
	if (rep >= sw->R)
		return aiwi_sweep_err(sw, AIW_ERANGE, "%s: replication %zu: the sweep has %zu", fn, rep, sw->R);
	return AIW_OK;
}

/* Store under the lock (held by the caller). */
static void store_locked(aiw_sweep *sw, size_t t, const double *metrics)
{
	memcpy(sw->vals + t * sw->nmetrics, metrics, sw->nmetrics * sizeof *metrics);
	if (!sw->stored[t]) {
		sw->stored[t] = TASK_DONE;
		sw->nstored++;
		sw->left[t / sw->R]--;
	}
}

AIW_EXPORT aiw_status aiw_sweep_run_task(aiw_sweep *sw, size_t point, size_t rep,
                                         double *metrics_out)
{
	if (!sw)
		return AIW_EINVAL;
	aiw_status st = aiwi_sweep_check_task(sw, "aiw_sweep_run_task", point, rep);
	if (st != AIW_OK)
		return st;
	if (!metrics_out)
		return aiwi_sweep_err(sw, AIW_EINVAL, "aiw_sweep_run_task: metrics_out is NULL");
	char m[ERRMSG_LEN];
	st = aiwi_sweep_task_exec(sw, point, rep, metrics_out, m, sizeof m);
	if (st != AIW_OK)
		aiwi_sweep_err(sw, st, "%s", m);
	return st;
}

AIW_EXPORT aiw_status aiw_sweep_store(aiw_sweep *sw, size_t point, size_t rep,
                                      const double *metrics)
{
	if (!sw)
		return AIW_EINVAL;
	aiw_status st = aiwi_sweep_check_task(sw, "aiw_sweep_store", point, rep);
	if (st != AIW_OK)
		return st;
	if (!metrics)
		return aiwi_sweep_err(sw, AIW_EINVAL, "aiw_sweep_store: metrics is NULL");
	pthread_mutex_lock(&sw->sy->mu);
	store_locked(sw, point * sw->R + rep, metrics);
	pthread_mutex_unlock(&sw->sy->mu);
	return AIW_OK;
}

/* State of one aiw_sweep_run call, shared by its workers (under sy->mu). */
typedef struct run_ctx {
	aiw_sweep *sw;
	size_t cursor;        /* next task index to consider */
	unsigned active;      /* workers still running */
	size_t err_task;      /* lowest failed task, SIZE_MAX if none */
	aiw_status err_st;
	char errmsg[ERRMSG_LEN];
	unsigned char *pend;  /* points to complete in this call (callbacks) */
	size_t deliver;       /* next point whose callback may run */
	size_t reported;      /* nstored at the last progress call */
} run_ctx;

/* Claim the next task, or SIZE_MAX when done or stopping (lock held). */
static size_t claim(run_ctx *rc)
{
	aiw_sweep *sw = rc->sw;
	if (atomic_load(&sw->stop))
		return SIZE_MAX;
	while (rc->cursor < sw->ntasks && sw->stored[rc->cursor])
		rc->cursor++;
	return rc->cursor < sw->ntasks ? rc->cursor++ : SIZE_MAX;
}

/* Under keep_going: record task t's refusal for its point (lock held).
 * The point keeps the refusal of its lowest replication, whatever order
 * the threads finish in. */
static void refuse_locked(aiw_sweep *sw, size_t t, aiw_status st, const char *msg)
{
	size_t p = t / sw->R, rep = t % sw->R;
	if (rep < sw->prep[p]) {
		char *m = strdup(msg);
		if (m) { /* out of memory: the point keeps its earlier message */
			free(sw->pmsg[p]);
			sw->pmsg[p] = m;
			sw->prep[p] = rep;
			sw->pst[p] = st;
		} else if (sw->pst[p] == AIW_OK) {
			sw->pst[p] = st;
		}
	}
	sw->stored[t] = TASK_REFUSED;
	sw->nstored++;
	sw->left[p]--;
}

/* Record a task's outcome (lock held). */
static void finish_task(run_ctx *rc, size_t t, aiw_status st, const double *buf,
                        const char *msg)
{
	aiw_sweep *sw = rc->sw;
	if (st == AIW_OK) {
		store_locked(sw, t, buf);
	} else if (sw->keep_going && buf && st != AIW_ESTOPPED && st != AIW_ENOMEM) {
		refuse_locked(sw, t, st, msg);
	} else if (st != AIW_ESTOPPED || !atomic_load(&sw->stop)) {
		if (t < rc->err_task) {
			rc->err_task = t;
			rc->err_st = st;
			snprintf(rc->errmsg, sizeof rc->errmsg, "%s", msg);
		}
		int expected = 0;
		atomic_compare_exchange_strong(&sw->stop, &expected, 2);
	}
}

static void *worker(void *arg)
{
	run_ctx *rc = arg;
	aiw_sweep *sw = rc->sw;
	double *buf = malloc((sw->nmetrics ? sw->nmetrics : 1) * sizeof *buf);
	char *msg = malloc(ERRMSG_LEN);
	pthread_mutex_lock(&sw->sy->mu);
	for (;;) {
		if (!buf || !msg) {
			finish_task(rc, 0, AIW_ENOMEM, NULL, "out of memory in a sweep worker");
			break;
		}
		size_t t = claim(rc);
		if (t == SIZE_MAX)
			break;
		pthread_mutex_unlock(&sw->sy->mu);
		aiw_status st = aiwi_sweep_task_exec(sw, t / sw->R, t % sw->R, buf, msg, ERRMSG_LEN);
		pthread_mutex_lock(&sw->sy->mu);
		finish_task(rc, t, st, buf, msg);
		pthread_cond_broadcast(&sw->sy->cv);
	}
	rc->active--;
	pthread_cond_broadcast(&sw->sy->cv);
	pthread_mutex_unlock(&sw->sy->mu);
	free(buf);
	free(msg);
	return NULL;
}

/* Callbacks and progress, from the calling thread (lock held on entry and
 * exit; released around the user's functions).  final: deliver every
 * completed point left, skipping the ones that did not complete. */
static void notify(run_ctx *rc, bool final)
{
	aiw_sweep *sw = rc->sw;
	while (rc->deliver < sw->npoints) {
		size_t p = rc->deliver;
		if (!rc->pend[p] || (final && sw->left[p])) {
			rc->deliver++;
			continue;
		}
		if (sw->left[p])
			break;
		rc->deliver++;
		if (sw->cb && !sw->free_pending) {
			pthread_mutex_unlock(&sw->sy->mu);
			sw->cb(sw, p, sw->cb_payload);
			pthread_mutex_lock(&sw->sy->mu);
		}
	}
	if (rc->reported != sw->nstored) {
		rc->reported = sw->nstored;
		if (sw->prog && !sw->free_pending) {
			size_t done = sw->nstored;
			pthread_mutex_unlock(&sw->sy->mu);
			if (sw->prog(sw, done, sw->ntasks, sw->prog_payload))
				aiw_sweep_stop(sw);
			pthread_mutex_lock(&sw->sy->mu);
		}
	}
}

static unsigned online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1u : n > (long)MAX_JOBS ? MAX_JOBS : (unsigned)n;
}

static aiw_status sweep_run(aiw_sweep *sw);

AIW_EXPORT aiw_status aiw_sweep_run(aiw_sweep *sw)
{
	if (!sw)
		return AIW_EINVAL;
	if (sw->running)
		return aiwi_sweep_err(sw, AIW_ESTATE,
				      "aiw_sweep_run: called from inside the sweep's own callback (the run "
				      "in progress is not finished)");
	atomic_store(&sw->stop, 0);
	aiw_status st = aiw_sweep_prepare(sw);
	if (st != AIW_OK)
		return st;
	sw->running = true;
	st = sweep_run(sw);
	sw->running = false;
	if (sw->free_pending) {
		aiw_sweep_free(sw);
		return AIW_ESTOPPED;
	}
	return st;
}

static aiw_status sweep_run(aiw_sweep *sw)
{
	run_ctx rc = {.sw = sw, .err_task = SIZE_MAX, .err_st = AIW_OK};
	rc.pend = malloc(sw->npoints);
	if (!rc.pend)
		return aiwi_sweep_err(sw, AIW_ENOMEM, "out of memory");
	for (size_t p = 0; p < sw->npoints; p++)
		rc.pend[p] = sw->left[p] != 0;
	rc.reported = sw->nstored;
	size_t todo = sw->ntasks - sw->nstored;
	unsigned jobs = sw->jobs ? sw->jobs : online_cpus();
	if (jobs > todo)
		jobs = todo ? (unsigned)todo : 1u;

	pthread_t *th = NULL;
	unsigned started = 0;
	if (jobs > 1 && (th = malloc(jobs * sizeof *th))) {
		pthread_mutex_lock(&sw->sy->mu);
		rc.active = jobs;
		for (unsigned i = 0; i < jobs; i++) {
			if (pthread_create(&th[i], NULL, worker, &rc) != 0) {
				rc.active -= jobs - i;
				break;
			}
			started++;
		}
		pthread_mutex_unlock(&sw->sy->mu);
	}
	pthread_mutex_lock(&sw->sy->mu);
	if (started > 0) {
		for (;;) {
			notify(&rc, false);
			if (rc.active == 0)
				break;
			if (rc.reported == sw->nstored)
				pthread_cond_wait(&sw->sy->cv, &sw->sy->mu);
		}
	} else { /* one job, or no thread could start: run here */
		double *buf = malloc((sw->nmetrics ? sw->nmetrics : 1) * sizeof *buf);
		char *msg = malloc(ERRMSG_LEN);
		for (;;) {
			if (!buf || !msg) {
				finish_task(&rc, 0, AIW_ENOMEM, NULL, "out of memory");
				break;
			}
			size_t t = claim(&rc);
			if (t == SIZE_MAX)
				break;
			pthread_mutex_unlock(&sw->sy->mu);
			aiw_status ts = aiwi_sweep_task_exec(sw, t / sw->R, t % sw->R, buf, msg, ERRMSG_LEN);
			pthread_mutex_lock(&sw->sy->mu);
			finish_task(&rc, t, ts, buf, msg);
			notify(&rc, false);
		}
		free(buf);
		free(msg);
	}
	pthread_mutex_unlock(&sw->sy->mu);
	for (unsigned i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	free(th);
	pthread_mutex_lock(&sw->sy->mu);
	notify(&rc, true);
	pthread_mutex_unlock(&sw->sy->mu);
	free(rc.pend);

	if (rc.err_st != AIW_OK)
		return aiwi_sweep_err(sw, rc.err_st, "%s", rc.errmsg);
	if (sw->nstored < sw->ntasks)
		return aiwi_sweep_err(sw, AIW_ESTOPPED, "sweep stopped: %zu of %zu runs done", sw->nstored,
				      sw->ntasks);
	return AIW_OK;
}
