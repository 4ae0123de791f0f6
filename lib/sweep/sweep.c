/*
 * sweep.c - a sweep's description: create and free, the axes (values split at
 * top-level commas), the point file (CSV, RFC 4180), replications, seed,
 * jobs and callbacks; the sweep's error message.
 */
#include "sweep/sweep.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ======================================================================== */
/* errors                                                                    */
/* ======================================================================== */
aiw_status aiwi_sweep_err(const aiw_sweep *sw, aiw_status code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	pthread_mutex_lock(&sw->sy->errmu);
	vsnprintf(sw->sy->errmsg, sizeof sw->sy->errmsg, fmt, ap);
	pthread_mutex_unlock(&sw->sy->errmu);
	va_end(ap);
	return code;
}

AIW_EXPORT const char *aiw_sweep_errmsg(const aiw_sweep *sw)
{
	return sw ? sw->sy->errmsg : "aiw_sweep_errmsg: sweep is NULL";
}

/* ======================================================================== */
/* create / free                                                             */
/* ======================================================================== */
void aiwi_sweep_free_strv(char **v, size_t n)
{
	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}


AIW_EXPORT void aiw_sweep_free(aiw_sweep *sw)
{
	if (!sw)
		return;
	if (sw->running) { /* from a callback: freed when aiw_sweep_run returns */
		sw->free_pending = true;
		aiw_sweep_stop(sw);
		return;
	}
	aiwi_sweep_unprepare(sw);
	free(sw->path);
	free(sw->text);
	for (size_t i = 0; i < sw->naxes; i++) {
		free(sw->axes[i].name);
		aiwi_sweep_free_strv(sw->axes[i].vals, sw->axes[i].n);
	}
	free(sw->axes);
	free(sw->pf_path);
	aiwi_sweep_free_strv(sw->pf_names, sw->pf_ncols);
	aiwi_sweep_free_strv(sw->pf_cells, sw->pf_nrows * sw->pf_ncols);
	free(sw->pf_lines);
	free(sw->metrics_spec);
	aiwi_memo_unref(sw->memo);
	if (sw->sy) {
		pthread_mutex_destroy(&sw->sy->mu);
		pthread_mutex_destroy(&sw->sy->errmu);
		pthread_cond_destroy(&sw->sy->cv);
		free(sw->sy);
	}
	free(sw);
}

AIW_EXPORT aiw_status aiw_sweep_create(aiw_sweep **out, const char *scenario_path,
                                       const char *scenario_text)
{
	if (!out)
		return AIW_EINVAL;
	*out = NULL;
	if (scenario_path && scenario_text)
		return AIW_EINVAL; /* one source only; there is no handle for a message yet */
	if (scenario_path && !*scenario_path)
		return AIW_EINVAL;
	aiw_sweep *sw = calloc(1, sizeof *sw);
	if (!sw)
		return AIW_ENOMEM;
	sw->sy = calloc(1, sizeof *sw->sy);
	if (!sw->sy) {
		free(sw);
		return AIW_ENOMEM;
	}
	if (pthread_mutex_init(&sw->sy->mu, NULL) != 0) {
		free(sw->sy);
		free(sw);
		return AIW_ENOMEM;
	}
	if (pthread_mutex_init(&sw->sy->errmu, NULL) != 0) {
		pthread_mutex_destroy(&sw->sy->mu);
		free(sw->sy);
		free(sw);
		return AIW_ENOMEM;
	}
	if (pthread_cond_init(&sw->sy->cv, NULL) != 0) {
		pthread_mutex_destroy(&sw->sy->mu);
		pthread_mutex_destroy(&sw->sy->errmu);
		free(sw->sy);
		free(sw);
		return AIW_ENOMEM;
	}
	atomic_init(&sw->stop, 0);
	sw->R = 1;
	sw->jobs = 1;
	/* results of input files its runs share (a profile's fit); without
	 * one (out of memory) every run computes its own */
	sw->memo = aiwi_memo_new();
	if (scenario_path && !(sw->path = strdup(scenario_path))) {
		aiw_sweep_free(sw);
		return AIW_ENOMEM;
	}
	if (scenario_text) {
		sw->textlen = strlen(scenario_text);
		if (!(sw->text = strdup(scenario_text))) {
			aiw_sweep_free(sw);
			return AIW_ENOMEM;
		}
	}
	*out = sw;
	return AIW_OK;
}

static aiw_status check_config(aiw_sweep *sw, const char *fn)
{
	if (sw->prepared)
		return aiwi_sweep_err(sw, AIW_ESTATE, "%s: the sweep is prepared; its description is fixed",
				      fn);
	return AIW_OK;
}

/* ======================================================================== */
/* description                                                               */
/* ======================================================================== */
/* Split a list of values at top-level commas: commas inside (), [], {} or
 * double quotes, or escaped as "\,", do not split.  Quotes are removed,
 * unquoted surrounding blanks trimmed. */
static aiw_status split_values(aiw_sweep *sw, const char *param, const char *s, char ***out,
                               size_t *nout)
{
	size_t len = strlen(s), cap = 8, n = 0;
	char **v = malloc(cap * sizeof *v);
	char *buf = malloc(len + 1);
	if (!v || !buf) {
		free(v);
		free(buf);
		return aiwi_sweep_err(sw, AIW_ENOMEM, "out of memory");
	}
	aiw_status st = AIW_OK;
	const char *p = s;
	for (;;) {
		size_t bl = 0, keep = 0; /* keep: length that must not be trimmed */
		int depth = 0;
		bool quoted = false, any_quote = false;
		while (*p == ' ' || *p == '\t')
			p++;
		for (; *p; p++) {
			char ch = *p;
			if (quoted) {
				if (ch == '"') {
					quoted = false;
					keep = bl;
					continue;
				}
			} else if (ch == '"') {
				quoted = any_quote = true;
				continue;
			} else if (ch == '\\' && p[1]) {
				ch = *++p;
				buf[bl++] = ch;
				keep = bl;
				continue;
			} else if (ch == '(' || ch == '[' || ch == '{') {
				depth++;
			} else if ((ch == ')' || ch == ']' || ch == '}') && depth > 0) {
				depth--;
			} else if (ch == ',' && depth == 0) {
				break;
			}
			buf[bl++] = ch;
			if (quoted)
				keep = bl;
		}
		if (quoted) {
			st = aiwi_sweep_err(sw, AIW_EPARSE, "%s = %s: unterminated double quote", param, s);
			break;
		}
		while (bl > keep && (buf[bl - 1] == ' ' || buf[bl - 1] == '\t'))
			bl--;
		buf[bl] = 0;
		if (bl == 0 && !any_quote) {
			st = aiwi_sweep_err(sw, AIW_EPARSE, "%s = %s: empty value in the list (value %zu)", param,
					    s, n + 1);
			break;
		}
		if (n == cap) {
			char **nv = realloc(v, 2 * cap * sizeof *v);
			if (!nv) {
				st = aiwi_sweep_err(sw, AIW_ENOMEM, "out of memory");
				break;
			}
			v = nv;
			cap *= 2;
		}
		if (!(v[n] = strdup(buf))) {
			st = aiwi_sweep_err(sw, AIW_ENOMEM, "out of memory");
			break;
		}
		n++;
		if (!*p)
			break;
		p++; /* the comma */
	}
	free(buf);
	if (st != AIW_OK) {
		aiwi_sweep_free_strv(v, n);
		return st;
	}
	*out = v;
	*nout = n;
	return AIW_OK;
}

static aiw_status check_param_name(aiw_sweep *sw, const char *fn, const char *param)
{
	if (!param || !*param)
		return aiwi_sweep_err(sw, AIW_EINVAL, "%s: parameter name is empty", fn);
	if (strlen(param) > 200)
		return aiwi_sweep_err(sw, AIW_EINVAL, "%s: parameter name longer than 200 characters", fn);
	if (strcmp(param, "sim.seed") == 0)
		return aiwi_sweep_err(sw, AIW_EINVAL,
				      "%s: sim.seed is set per replication from the base seed; use "
				      "aiw_sweep_set_seed (--seed)",
				      fn);
	return AIW_OK;
}

AIW_EXPORT aiw_status aiw_sweep_axis(aiw_sweep *sw, const char *param, const char *values_csv)
{
	if (!sw)
		return AIW_EINVAL;
	aiw_status st = check_config(sw, "aiw_sweep_axis");
	if (st != AIW_OK || (st = check_param_name(sw, "aiw_sweep_axis", param)) != AIW_OK)
		return st;
	if (!values_csv)
		return aiwi_sweep_err(sw, AIW_EINVAL, "aiw_sweep_axis: values of %s are NULL", param);
	if (sw->naxes >= 1024)
		return aiwi_sweep_err(sw, AIW_ELIMIT, "aiw_sweep_axis: more than 1024 axes");
	aiwi_sweep_axis a = {0};
	if ((st = split_values(sw, param, values_csv, &a.vals, &a.n)) != AIW_OK)
		return st;
	aiwi_sweep_axis *na = realloc(sw->axes, (sw->naxes + 1) * sizeof *na);
	if (!na || !(a.name = strdup(param))) {
		if (na)
			sw->axes = na;
		aiwi_sweep_free_strv(a.vals, a.n);
		return aiwi_sweep_err(sw, AIW_ENOMEM, "out of memory");
	}
	sw->axes = na;
	sw->axes[sw->naxes++] = a;
	return AIW_OK;
}

/* Read a whole file (at most MAX_FILE_BYTES) into a NUL-terminated buffer. */
aiw_status aiwi_sweep_read_file(aiw_sweep *sw, const char *path, char **out, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return aiwi_sweep_err(sw, AIW_EIO, "%s: %s", path, strerror(errno));
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	aiw_status st = buf ? AIW_OK : aiwi_sweep_err(sw, AIW_ENOMEM, "out of memory reading %s", path);
	while (st == AIW_OK) {
		if (n + 1 >= cap) {
			if (cap >= MAX_FILE_BYTES) {
				st = aiwi_sweep_err(sw, AIW_ELIMIT, "%s: larger than %u bytes", path, MAX_FILE_BYTES);
				break;
			}
			char *nb = realloc(buf, 2 * cap);
			if (!nb) {
				st = aiwi_sweep_err(sw, AIW_ENOMEM, "out of memory reading %s", path);
				break;
			}
			buf = nb;
			cap *= 2;
		}
		size_t k = fread(buf + n, 1, cap - 1 - n, f);
		n += k;
		if (k == 0) {
			if (ferror(f))
				st = aiwi_sweep_err(sw, AIW_EIO, "%s: read error", path);
			break;
		}
	}
	fclose(f);
	if (st != AIW_OK) {
		free(buf);
		return st;
	}
	buf[n] = 0;
	*out = buf;
	*len = n;
	return AIW_OK;
}

/* One CSV record (RFC 4180: quoted fields, "" inside quotes; unquoted
 * fields trimmed).  *p advances past the record's line end.  Returns the
 * number of fields or -1 (unterminated quote). */
static long csv_record(const char **p, const char *end, char ***fields, size_t *line)
{
	size_t cap = 8, n = 0;
	char **v = malloc(cap * sizeof *v);
	char *buf = malloc((size_t)(end - *p) + 1);
	if (!v || !buf) {
		free(v);
		free(buf);
		return -2;
	}
	const char *s = *p;
	for (;;) {
		size_t bl = 0, keep = 0;
		while (s < end && (*s == ' ' || *s == '\t'))
			s++;
		if (s < end && *s == '"') {
			s++;
			for (;;) {
				if (s >= end) {
					aiwi_sweep_free_strv(v, n);
					free(buf);
					return -1;
				}
				if (*s == '"') {
					if (s + 1 < end && s[1] == '"') {
						buf[bl++] = '"';
						s += 2;
						continue;
					}
					s++;
					break;
				}
				if (*s == '\n')
					(*line)++;
				buf[bl++] = *s++;
			}
			keep = bl;
		}
		while (s < end && *s != ',' && *s != '\n')
			buf[bl++] = *s++;
		while (bl > keep && (buf[bl - 1] == ' ' || buf[bl - 1] == '\t' || buf[bl - 1] == '\r'))
			bl--;
		buf[bl] = 0;
		if (n == cap) {
			char **nv = realloc(v, 2 * cap * sizeof *v);
			if (!nv) {
				aiwi_sweep_free_strv(v, n);
				free(buf);
				return -2;
			}
			v = nv;
			cap *= 2;
		}
		if (!(v[n] = strdup(buf))) {
			aiwi_sweep_free_strv(v, n);
			free(buf);
			return -2;
		}
		n++;
		if (s < end && *s == ',') {
			s++;
			continue;
		}
		break;
	}
	if (s < end && *s == '\n') {
		s++;
		(*line)++;
	}
	*p = s;
	free(buf);
	*fields = v;
	return (long)n;
}

/* Blank line or '#' comment at p: skip it. */
static bool skip_ignorable(const char **p, const char *end, size_t *line)
{
	const char *s = *p;
	while (s < end && (*s == ' ' || *s == '\t' || *s == '\r'))
		s++;
	if (s < end && *s != '\n' && *s != '#')
		return false;
	while (s < end && *s != '\n')
		s++;
	if (s < end) {
		s++;
		(*line)++;
	}
	*p = s;
	return true;
}

AIW_EXPORT aiw_status aiw_sweep_point_file(aiw_sweep *sw, const char *path)
{
	if (!sw)
		return AIW_EINVAL;
	aiw_status st = check_config(sw, "aiw_sweep_point_file");
	if (st != AIW_OK)
		return st;
	if (!path || !*path)
		return aiwi_sweep_err(sw, AIW_EINVAL, "aiw_sweep_point_file: path is NULL or empty");
	if (sw->pf_path)
		return aiwi_sweep_err(sw, AIW_ESTATE, "aiw_sweep_point_file: %s already gives the points",
				      sw->pf_path);
	char *text;
	size_t len;
	if ((st = aiwi_sweep_read_file(sw, path, &text, &len)) != AIW_OK)
		return st;
	const char *p = text, *end = text + len;
	size_t line = 1;
	char **names = NULL, **cells = NULL;
	size_t *lines = NULL;
	size_t ncols = 0, nrows = 0, cap = 0;
	while (p < end && skip_ignorable(&p, end, &line))
		;
	if (p >= end) {
		st = aiwi_sweep_err(sw, AIW_EPARSE, "%s: no header line (parameter names)", path);
		goto fail;
	}
	size_t l0 = line;
	long k = csv_record(&p, end, &names, &line);
	if (k < 0) {
		st = k == -1 ? aiwi_sweep_err(sw, AIW_EPARSE, "%s:%zu: unterminated double quote", path, l0)
		             : aiwi_sweep_err(sw, AIW_ENOMEM, "out of memory");
		goto fail;
	}
	ncols = (size_t)k;
	for (size_t i = 0; i < ncols; i++) {
		if ((st = check_param_name(sw, "aiw_sweep_point_file", names[i])) != AIW_OK) {
			char m[ERRMSG_LEN];
			snprintf(m, sizeof m, "%s", sw->sy->errmsg);
			st = aiwi_sweep_err(sw, st, "%s:%zu: column %zu: %s", path, l0, i + 1, m);
			goto fail;
		}
	}
	while (p < end) {
		if (skip_ignorable(&p, end, &line))
			continue;
		size_t lr = line;
		char **row;
		k = csv_record(&p, end, &row, &line);
		if (k < 0) {
			st = k == -1 ? aiwi_sweep_err(sw, AIW_EPARSE, "%s:%zu: unterminated double quote", path, lr)
			             : aiwi_sweep_err(sw, AIW_ENOMEM, "out of memory");
			goto fail;
		}
		if ((size_t)k != ncols) {
			aiwi_sweep_free_strv(row, (size_t)k);
			st = aiwi_sweep_err(sw, AIW_EPARSE, "%s:%zu: %ld fields, the header has %zu", path, lr, k,
					    ncols);
			goto fail;
		}
		for (size_t i = 0; i < ncols; i++)
			if (!row[i][0]) {
				aiwi_sweep_free_strv(row, ncols);
				st = aiwi_sweep_err(sw, AIW_EPARSE, "%s:%zu: empty value for %s", path, lr, names[i]);
				goto fail;
			}
		if (nrows == cap) {
			size_t nc = cap ? 2 * cap : 16;
			char **ncl = realloc(cells, nc * ncols * sizeof *ncl);
			if (ncl)
				cells = ncl;
			size_t *nl = realloc(lines, nc * sizeof *nl);
			if (nl)
				lines = nl;
			if (!ncl || !nl) {
				aiwi_sweep_free_strv(row, ncols);
				st = aiwi_sweep_err(sw, AIW_ENOMEM, "out of memory");
				goto fail;
			}
			cap = nc;
		}
		memcpy(cells + nrows * ncols, row, ncols * sizeof *row);
		free(row);
		lines[nrows++] = lr;
	}
	if (nrows == 0) {
		st = aiwi_sweep_err(sw, AIW_EPARSE, "%s: a header but no points", path);
		goto fail;
	}
	if (!(sw->pf_path = strdup(path))) {
		st = aiwi_sweep_err(sw, AIW_ENOMEM, "out of memory");
		goto fail;
	}
	free(text);
	sw->pf_names = names;
	sw->pf_ncols = ncols;
	sw->pf_cells = cells;
	sw->pf_nrows = nrows;
	sw->pf_lines = lines;
	return AIW_OK;
fail:
	free(text);
	aiwi_sweep_free_strv(names, ncols);
	aiwi_sweep_free_strv(cells, nrows * ncols);
	free(lines);
	return st;
}

AIW_EXPORT aiw_status aiw_sweep_set_replications(aiw_sweep *sw, size_t r)
{
	if (!sw)
		return AIW_EINVAL;
	aiw_status st = check_config(sw, "aiw_sweep_set_replications");
	if (st != AIW_OK)
		return st;
	if (r < 1 || r > MAX_REPLICATIONS)
		return aiwi_sweep_err(sw, AIW_ERANGE, "replications = %zu: must be 1 to %u", r,
				      MAX_REPLICATIONS);
	sw->R = r;
	return AIW_OK;
}

AIW_EXPORT aiw_status aiw_sweep_set_metrics(aiw_sweep *sw, const char *metrics_csv)
{
	if (!sw)
		return AIW_EINVAL;
	aiw_status st = check_config(sw, "aiw_sweep_set_metrics");
	if (st != AIW_OK)
		return st;
	char *s = NULL;
	if (metrics_csv && *metrics_csv && !(s = strdup(metrics_csv)))
		return aiwi_sweep_err(sw, AIW_ENOMEM, "out of memory");
	free(sw->metrics_spec);
	sw->metrics_spec = s;
	return AIW_OK;
}

AIW_EXPORT aiw_status aiw_sweep_set_seed(aiw_sweep *sw, uint64_t seed)
{
	if (!sw)
		return AIW_EINVAL;
	aiw_status st = check_config(sw, "aiw_sweep_set_seed");
	if (st != AIW_OK)
		return st;
	sw->seed = seed;
	sw->seed_set = true;
	return AIW_OK;
}

AIW_EXPORT aiw_status aiw_sweep_set_jobs(aiw_sweep *sw, unsigned jobs)
{
	if (!sw)
		return AIW_EINVAL;
	if (jobs > MAX_JOBS)
		return aiwi_sweep_err(sw, AIW_ERANGE, "jobs = %u: must be 0 (one per processor) to %u", jobs,
				      MAX_JOBS);
	sw->jobs = jobs;
	return AIW_OK;
}

AIW_EXPORT aiw_status aiw_sweep_set_keep_going(aiw_sweep *sw, int keep_going)
{
	if (!sw)
		return AIW_EINVAL;
	aiw_status st = check_config(sw, "aiw_sweep_set_keep_going");
	if (st != AIW_OK)
		return st;
	sw->keep_going = keep_going != 0;
	return AIW_OK;
}

AIW_EXPORT aiw_status aiw_sweep_set_callback(aiw_sweep *sw, aiw_sweep_fn fn, void *payload)
{
	if (!sw)
		return AIW_EINVAL;
	sw->cb = fn;
	sw->cb_payload = payload;
	return AIW_OK;
}

AIW_EXPORT aiw_status aiw_sweep_set_progress(aiw_sweep *sw, aiw_sweep_progress_fn fn,
                                             void *payload)
{
	if (!sw)
		return AIW_EINVAL;
	sw->prog = fn;
	sw->prog_payload = payload;
	return AIW_OK;
}
