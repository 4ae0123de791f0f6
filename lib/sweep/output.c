/*
 * output.c - a sweep's CSV writers: one row per complete point (statistics), one
 * row per replication run.
 */
#include "sweep/sweep.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* ======================================================================== */
/* writers                                                                   */
/* ======================================================================== */
static void put_field(FILE *f, const char *s)
{
	bool quote = strpbrk(s, ",\"\r\n") != NULL || s[0] == ' ' ||
	             (s[0] && s[strlen(s) - 1] == ' ');
	if (!quote) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static void put_num(FILE *f, double x)
{
	if (isfinite(x))
		fprintf(f, "%.17g", x);
}

static aiw_status open_out(aiw_sweep *sw, const char *fn, const char *path, FILE **out)
{
	if (!sw->prepared)
		return aiwi_sweep_err(sw, AIW_ESTATE, "%s: the sweep has not run", fn);
	if (!path || !*path)
		return aiwi_sweep_err(sw, AIW_EINVAL, "%s: path is NULL or empty", fn);
	*out = fopen(path, "w");
	if (!*out)
		return aiwi_sweep_err(sw, AIW_EIO, "%s: cannot write '%s': %s", fn, path, strerror(errno));
	return AIW_OK;
}

static aiw_status close_out(aiw_sweep *sw, FILE *f, const char *path)
{
	/* a failed write leaves its errno; a failed close sets its own */
	int e = ferror(f) ? (errno ? errno : EIO) : 0;
	if (fclose(f) != 0 && !e)
		e = errno ? errno : EIO;
	if (e)
		return aiwi_sweep_err(sw, AIW_EIO, "error writing '%s': %s", path, strerror(e));
	return AIW_OK;
}

AIW_EXPORT aiw_status aiw_sweep_write_csv(aiw_sweep *sw, const char *path)
{
	if (!sw)
		return AIW_EINVAL;
	FILE *f;
	aiw_status st = open_out(sw, "aiw_sweep_write_csv", path, &f);
	if (st != AIW_OK)
		return st;
	fputs("point", f);
	for (size_t i = 0; i < sw->nparams; i++) {
		fputc(',', f);
		put_field(f, sw->pnames[i]);
	}
	static const char *const stat_names[4] = {"mean", "sd", "ci95", "n"};
	for (size_t j = 0; j < sw->nmetrics; j++)
		for (int s = 0; s < 4; s++) {
			char h[512];
			snprintf(h, sizeof h, "%s.%s", sw->mnames[j], stat_names[s]);
			fputc(',', f);
			put_field(f, h);
		}
	if (sw->keep_going)
		fputs(",status,message", f);
	fputc('\n', f);
	for (size_t p = 0; p < sw->npoints; p++) {
		if (!aiwi_sweep_point_complete(sw, p))
			continue;
		fprintf(f, "%zu", p);
		for (size_t i = 0; i < sw->nparams; i++) {
			fputc(',', f);
			put_field(f, aiwi_sweep_value(sw, p, i));
		}
		const char *why;
		if (sw->keep_going && aiwi_sweep_point_refusal(sw, p, &why) != AIW_OK) {
			for (size_t j = 0; j < sw->nmetrics; j++)
				fputs(",,,,0", f);
			fputs(",refused,", f);
			put_field(f, why);
			fputc('\n', f);
			continue;
		}
		for (size_t j = 0; j < sw->nmetrics; j++) {
			double mean, sd, ci;
			size_t n;
			aiwi_sweep_point_stats(sw, p, j, &mean, &sd, &ci, &n);
			fputc(',', f);
			put_num(f, mean);
			fputc(',', f);
			put_num(f, sd);
			fputc(',', f);
			put_num(f, ci);
			fprintf(f, ",%zu", n);
		}
		if (sw->keep_going)
			fputs(",ok,", f);
		fputc('\n', f);
	}
	return close_out(sw, f, path);
}

AIW_EXPORT aiw_status aiw_sweep_write_replications_csv(aiw_sweep *sw, const char *path)
{
	if (!sw)
		return AIW_EINVAL;
	FILE *f;
	aiw_status st = open_out(sw, "aiw_sweep_write_replications_csv", path, &f);
	if (st != AIW_OK)
		return st;
	fputs("point,replication,seed", f);
	for (size_t i = 0; i < sw->nparams; i++) {
		fputc(',', f);
		put_field(f, sw->pnames[i]);
	}
	for (size_t j = 0; j < sw->nmetrics; j++) {
		fputc(',', f);
		put_field(f, sw->mnames[j]);
	}
	fputc('\n', f);
	pthread_mutex_lock(&sw->sy->mu);
	for (size_t t = 0; t < sw->ntasks; t++) {
		if (sw->stored[t] != TASK_DONE)
			continue;
		size_t p = t / sw->R, r = t % sw->R;
		fprintf(f, "%zu,%zu,%llu", p, r, (unsigned long long)aiwi_sweep_seed_of(sw->base, p, r));
		for (size_t i = 0; i < sw->nparams; i++) {
			fputc(',', f);
			put_field(f, aiwi_sweep_value(sw, p, i));
		}
		const double *v = sw->vals + t * sw->nmetrics;
		for (size_t j = 0; j < sw->nmetrics; j++) {
			fputc(',', f);
			put_num(f, v[j]);
		}
		fputc('\n', f);
	}
	pthread_mutex_unlock(&sw->sy->mu);
	return close_out(sw, f, path);
}
