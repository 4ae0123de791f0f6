/*
 * results.c - a sweep's results: the accessors, and per point and metric the mean,
 * sample standard deviation and 95% confidence half-width (Student).
 */
#include "sweep/sweep.h"

#include <math.h>

#include <gsl/gsl_cdf.h>

/* ======================================================================== */
/* results                                                                   */
/* ======================================================================== */
static aiw_status check_prepared(const aiw_sweep *sw, const char *fn, const void *out)
{
	if (!sw->prepared)
		return aiwi_sweep_err(sw, AIW_ESTATE, "%s: call aiw_sweep_prepare (or aiw_sweep_run) first",
				      fn);
	if (!out)
		return aiwi_sweep_err(sw, AIW_EINVAL, "%s: out is NULL", fn);
	return AIW_OK;
}

AIW_EXPORT aiw_status aiw_sweep_npoints(const aiw_sweep *sw, size_t *out)
{
	if (!sw)
		return AIW_EINVAL;
	aiw_status st = check_prepared(sw, "aiw_sweep_npoints", out);
	if (st == AIW_OK)
		*out = sw->npoints;
	return st;
}

AIW_EXPORT aiw_status aiw_sweep_nparams(const aiw_sweep *sw, size_t *out)
{
	if (!sw)
		return AIW_EINVAL;
	aiw_status st = check_prepared(sw, "aiw_sweep_nparams", out);
	if (st == AIW_OK)
		*out = sw->nparams;
	return st;
}

AIW_EXPORT aiw_status aiw_sweep_param_name(const aiw_sweep *sw, size_t i, const char **out)
{
	if (!sw)
		return AIW_EINVAL;
	aiw_status st = check_prepared(sw, "aiw_sweep_param_name", out);
	if (st != AIW_OK)
		return st;
	if (i >= sw->nparams)
		return aiwi_sweep_err(sw, AIW_ERANGE, "aiw_sweep_param_name: index %zu: the sweep has %zu "
				      "parameters", i, sw->nparams);
	*out = sw->pnames[i];
	return AIW_OK;
}

AIW_EXPORT aiw_status aiw_sweep_point_value(const aiw_sweep *sw, size_t point, size_t i,
                                            const char **out)
{
	if (!sw)
		return AIW_EINVAL;
	aiw_status st = check_prepared(sw, "aiw_sweep_point_value", out);
	if (st != AIW_OK)
		return st;
	if (point >= sw->npoints)
		return aiwi_sweep_err(sw, AIW_ERANGE, "aiw_sweep_point_value: point %zu: the sweep has %zu",
				      point, sw->npoints);
	if (i >= sw->nparams)
		return aiwi_sweep_err(sw, AIW_ERANGE, "aiw_sweep_point_value: parameter %zu: the sweep has "
				      "%zu", i, sw->nparams);
	*out = aiwi_sweep_value(sw, point, i);
	return AIW_OK;
}

AIW_EXPORT aiw_status aiw_sweep_nmetrics(const aiw_sweep *sw, size_t *out)
{
	if (!sw)
		return AIW_EINVAL;
	aiw_status st = check_prepared(sw, "aiw_sweep_nmetrics", out);
	if (st == AIW_OK)
		*out = sw->nmetrics;
	return st;
}

AIW_EXPORT aiw_status aiw_sweep_metric_name(const aiw_sweep *sw, size_t i, const char **out)
{
	if (!sw)
		return AIW_EINVAL;
	aiw_status st = check_prepared(sw, "aiw_sweep_metric_name", out);
	if (st != AIW_OK)
		return st;
	if (i >= sw->nmetrics)
		return aiwi_sweep_err(sw, AIW_ERANGE, "aiw_sweep_metric_name: index %zu: the sweep has %zu "
				      "metrics", i, sw->nmetrics);
	*out = sw->mnames[i];
	return AIW_OK;
}

AIW_EXPORT aiw_status aiw_sweep_task_seed(const aiw_sweep *sw, size_t point, size_t rep,
                                          uint64_t *out)
{
	if (!sw)
		return AIW_EINVAL;
	aiw_status st = check_prepared(sw, "aiw_sweep_task_seed", out);
	if (st == AIW_OK)
		st = aiwi_sweep_check_task(sw, "aiw_sweep_task_seed", point, rep);
	if (st == AIW_OK)
		*out = aiwi_sweep_seed_of(sw->base, point, rep);
	return st;
}

/* Statistics of one (point, metric) over the finite replications, in
 * replication order: exact two-pass mean and sample variance. */
void aiwi_sweep_point_stats(const aiw_sweep *sw, size_t point, size_t metric, double *mean,
                        double *sd, double *ci, size_t *n)
{
	const double *v = sw->vals + point * sw->R * sw->nmetrics + metric;
	size_t k = 0;
	double sum = 0;
	for (size_t r = 0; r < sw->R; r++) {
		double x = v[r * sw->nmetrics];
		if (isfinite(x)) {
			sum += x;
			k++;
		}
	}
	double m = k ? sum / (double)k : NAN, ss = 0;
	for (size_t r = 0; r < sw->R && k; r++) {
		double x = v[r * sw->nmetrics];
		if (isfinite(x))
			ss += (x - m) * (x - m);
	}
	double s = k >= 2 ? sqrt(ss / (double)(k - 1)) : NAN;
	*mean = m;
	*sd = s;
	*ci = k >= 2 ? gsl_cdf_tdist_Pinv(0.975, (double)(k - 1)) * s / sqrt((double)k) : NAN;
	*n = k;
}

bool aiwi_sweep_point_complete(const aiw_sweep *sw, size_t point)
{
	pthread_mutex_lock(&sw->sy->mu);
	bool done = sw->left[point] == 0;
	pthread_mutex_unlock(&sw->sy->mu);
	return done;
}

aiw_status aiwi_sweep_point_refusal(const aiw_sweep *sw, size_t point, const char **msg)
{
	pthread_mutex_lock(&sw->sy->mu);
	aiw_status st = sw->pst[point];
	const char *m = sw->pmsg[point];
	pthread_mutex_unlock(&sw->sy->mu);
	if (msg)
		*msg = m ? m : "";
	return st;
}

AIW_EXPORT aiw_status aiw_sweep_point_status(const aiw_sweep *sw, size_t point,
                                             aiw_status *status, const char **message)
{
	if (!sw)
		return AIW_EINVAL;
	aiw_status st = check_prepared(sw, "aiw_sweep_point_status", status);
	if (st != AIW_OK)
		return st;
	if (point >= sw->npoints)
		return aiwi_sweep_err(sw, AIW_ERANGE,
		                      "aiw_sweep_point_status: point %zu: the sweep has %zu", point,
		                      sw->npoints);
	const char *m;
	*status = aiwi_sweep_point_refusal(sw, point, &m);
	if (*status == AIW_OK && !aiwi_sweep_point_complete(sw, point)) {
		*status = AIW_ESTOPPED;
		m = "not run";
	}
	if (message)
		*message = m;
	return AIW_OK;
}

AIW_EXPORT aiw_status aiw_sweep_result(const aiw_sweep *sw, size_t point, size_t metric,
                                       double *mean, double *sd, double *ci95_half, size_t *n)
{
	if (!sw)
		return AIW_EINVAL;
	if (!sw->prepared)
		return aiwi_sweep_err(sw, AIW_ESTATE, "aiw_sweep_result: the sweep has not run");
	if (point >= sw->npoints)
		return aiwi_sweep_err(sw, AIW_ERANGE, "aiw_sweep_result: point %zu: the sweep has %zu", point,
				      sw->npoints);
	if (metric >= sw->nmetrics)
		return aiwi_sweep_err(sw, AIW_ERANGE, "aiw_sweep_result: metric %zu: the sweep has %zu",
				      metric, sw->nmetrics);
	if (!aiwi_sweep_point_complete(sw, point))
		return aiwi_sweep_err(sw, AIW_ESTATE, "aiw_sweep_result: point %zu is not complete", point);
	const char *why;
	aiw_status refused = aiwi_sweep_point_refusal(sw, point, &why);
	if (refused != AIW_OK)
		return aiwi_sweep_err(sw, refused, "aiw_sweep_result: point %zu was refused: %s", point,
		                      why);
	double a, b, c;
	size_t k;
	aiwi_sweep_point_stats(sw, point, metric, &a, &b, &c, &k);
	if (mean)
		*mean = a;
	if (sd)
		*sd = b;
	if (ci95_half)
		*ci95_half = c;
	if (n)
		*n = k;
	return AIW_OK;
}

AIW_EXPORT aiw_status aiw_sweep_replication(const aiw_sweep *sw, size_t point, size_t rep,
                                            size_t metric, double *out)
{
	if (!sw)
		return AIW_EINVAL;
	aiw_status st = check_prepared(sw, "aiw_sweep_replication", out);
	if (st == AIW_OK)
		st = aiwi_sweep_check_task(sw, "aiw_sweep_replication", point, rep);
	if (st != AIW_OK)
		return st;
	if (metric >= sw->nmetrics)
		return aiwi_sweep_err(sw, AIW_ERANGE, "aiw_sweep_replication: metric %zu: the sweep has %zu",
				      metric, sw->nmetrics);
	size_t t = point * sw->R + rep;
	pthread_mutex_lock(&sw->sy->mu);
	int have = sw->stored[t];
	pthread_mutex_unlock(&sw->sy->mu);
	if (have == TASK_REFUSED) {
		const char *why;
		aiw_status refused = aiwi_sweep_point_refusal(sw, point, &why);
		return aiwi_sweep_err(sw, refused,
		                      "aiw_sweep_replication: point %zu, replication %zu was refused (the "
		                      "point's first refusal: %s)",
		                      point, rep, why);
	}
	if (!have)
		return aiwi_sweep_err(sw, AIW_ESTATE,
				      "aiw_sweep_replication: point %zu, replication %zu has not run", point,
				      rep);
	*out = sw->vals[t * sw->nmetrics + metric];
	return AIW_OK;
}
