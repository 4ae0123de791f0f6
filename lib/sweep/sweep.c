/*
 * sweep.c - experiment sweeps: a base scenario, a grid of parameter points
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
 */
#include "core/internal.h"

#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_cdf.h>

#define ERRMSG_LEN 1024
#define MAX_REPLICATIONS 1000000u
#define MAX_JOBS 1024u
#define MAX_TASKS ((size_t)1 << 40)
#define MAX_RESULT_BYTES ((size_t)1 << 36) /* 64 GiB of result doubles */
#define MAX_FILE_BYTES (64u << 20)
#define GOLDEN 0x9e3779b97f4a7c15ull

typedef struct axis {
	char *name;
	char **vals;
	size_t n;
} axis;

/* Mutable shared state, reached through a pointer so that const accessors
 * can report errors and take the lock. */
typedef struct sw_sync {
	pthread_mutex_t mu;    /* results, counters, run state */
	pthread_mutex_t errmu; /* errmsg */
	pthread_cond_t cv;     /* a task finished or a worker left */
	char errmsg[ERRMSG_LEN];
} sw_sync;

struct aiw_sweep {
	/* description */
	char *path;           /* scenario file, or NULL */
	char *text;           /* scenario text (read from path at prepare) */
	size_t textlen;
	char *base_dir;       /* directory of path, for relative file names */
	axis *axes;
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
	aiw_sweep_fn cb;
	void *cb_payload;
	aiw_sweep_progress_fn prog;
	void *prog_payload;

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
	unsigned char *stored;
	size_t *left;         /* replications of each point not stored yet */
	size_t nstored;

	atomic_int stop;      /* 1: stop requested, 2: a task failed */
	sw_sync *sy;
	/* inside aiw_sweep_run (its callbacks run on the caller's thread): a
	 * second run is refused and aiw_sweep_free is deferred to the run's end */
	bool running, free_pending;
};

/* ======================================================================== */
/* errors                                                                    */
/* ======================================================================== */
static aiw_status sw_err(const aiw_sweep *sw, aiw_status code, const char *fmt, ...)
	AIW_PRINTF(3, 4);
static aiw_status sw_err(const aiw_sweep *sw, aiw_status code, const char *fmt, ...)
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
static void free_strv(char **v, size_t n)
{
	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

static void unprepare(aiw_sweep *sw)
{
	free(sw->pnames);
	free_strv(sw->mnames, sw->nmetrics);
	free(sw->vals);
	free(sw->stored);
	free(sw->left);
	if (sw->path) { /* the text is re-read from the file by the next prepare */
		free(sw->text);
		sw->text = NULL;
		sw->textlen = 0;
	}
	free(sw->base_dir);
	sw->base_dir = NULL;
	sw->pnames = NULL;
	sw->mnames = NULL;
	sw->vals = NULL;
	sw->stored = NULL;
	sw->left = NULL;
	sw->nmetrics = sw->nparams = sw->npoints = sw->ntasks = sw->nstored = 0;
	sw->prepared = false;
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
	unprepare(sw);
	free(sw->path);
	free(sw->text);
	for (size_t i = 0; i < sw->naxes; i++) {
		free(sw->axes[i].name);
		free_strv(sw->axes[i].vals, sw->axes[i].n);
	}
	free(sw->axes);
	free(sw->pf_path);
	free_strv(sw->pf_names, sw->pf_ncols);
	free_strv(sw->pf_cells, sw->pf_nrows * sw->pf_ncols);
	free(sw->pf_lines);
	free(sw->metrics_spec);
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
		return sw_err(sw, AIW_ESTATE, "%s: the sweep is prepared; its description is fixed",
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
		return sw_err(sw, AIW_ENOMEM, "out of memory");
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
			st = sw_err(sw, AIW_EPARSE, "%s = %s: unterminated double quote", param, s);
			break;
		}
		while (bl > keep && (buf[bl - 1] == ' ' || buf[bl - 1] == '\t'))
			bl--;
		buf[bl] = 0;
		if (bl == 0 && !any_quote) {
			st = sw_err(sw, AIW_EPARSE, "%s = %s: empty value in the list (value %zu)", param,
			            s, n + 1);
			break;
		}
		if (n == cap) {
			char **nv = realloc(v, 2 * cap * sizeof *v);
			if (!nv) {
				st = sw_err(sw, AIW_ENOMEM, "out of memory");
				break;
			}
			v = nv;
			cap *= 2;
		}
		if (!(v[n] = strdup(buf))) {
			st = sw_err(sw, AIW_ENOMEM, "out of memory");
			break;
		}
		n++;
		if (!*p)
			break;
		p++; /* the comma */
	}
	free(buf);
	if (st != AIW_OK) {
		free_strv(v, n);
		return st;
	}
	*out = v;
	*nout = n;
	return AIW_OK;
}

static aiw_status check_param_name(aiw_sweep *sw, const char *fn, const char *param)
{
	if (!param || !*param)
		return sw_err(sw, AIW_EINVAL, "%s: parameter name is empty", fn);
	if (strlen(param) > 200)
		return sw_err(sw, AIW_EINVAL, "%s: parameter name longer than 200 characters", fn);
	if (strcmp(param, "sim.seed") == 0)
		return sw_err(sw, AIW_EINVAL,
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
		return sw_err(sw, AIW_EINVAL, "aiw_sweep_axis: values of %s are NULL", param);
	if (sw->naxes >= 1024)
		return sw_err(sw, AIW_ELIMIT, "aiw_sweep_axis: more than 1024 axes");
	axis a = {0};
	if ((st = split_values(sw, param, values_csv, &a.vals, &a.n)) != AIW_OK)
		return st;
	axis *na = realloc(sw->axes, (sw->naxes + 1) * sizeof *na);
	if (!na || !(a.name = strdup(param))) {
		if (na)
			sw->axes = na;
		free_strv(a.vals, a.n);
		return sw_err(sw, AIW_ENOMEM, "out of memory");
	}
	sw->axes = na;
	sw->axes[sw->naxes++] = a;
	return AIW_OK;
}

/* Read a whole file (at most MAX_FILE_BYTES) into a NUL-terminated buffer. */
static aiw_status read_file(aiw_sweep *sw, const char *path, char **out, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return sw_err(sw, AIW_EIO, "%s: %s", path, strerror(errno));
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	aiw_status st = buf ? AIW_OK : sw_err(sw, AIW_ENOMEM, "out of memory reading %s", path);
	while (st == AIW_OK) {
		if (n + 1 >= cap) {
			if (cap >= MAX_FILE_BYTES) {
				st = sw_err(sw, AIW_ELIMIT, "%s: larger than %u bytes", path, MAX_FILE_BYTES);
				break;
			}
			char *nb = realloc(buf, 2 * cap);
			if (!nb) {
				st = sw_err(sw, AIW_ENOMEM, "out of memory reading %s", path);
				break;
			}
			buf = nb;
			cap *= 2;
		}
		size_t k = fread(buf + n, 1, cap - 1 - n, f);
		n += k;
		if (k == 0) {
			if (ferror(f))
				st = sw_err(sw, AIW_EIO, "%s: read error", path);
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
					free_strv(v, n);
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
				free_strv(v, n);
				free(buf);
				return -2;
			}
			v = nv;
			cap *= 2;
		}
		if (!(v[n] = strdup(buf))) {
			free_strv(v, n);
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
		return sw_err(sw, AIW_EINVAL, "aiw_sweep_point_file: path is NULL or empty");
	if (sw->pf_path)
		return sw_err(sw, AIW_ESTATE, "aiw_sweep_point_file: %s already gives the points",
		              sw->pf_path);
	char *text;
	size_t len;
	if ((st = read_file(sw, path, &text, &len)) != AIW_OK)
		return st;
	const char *p = text, *end = text + len;
	size_t line = 1;
	char **names = NULL, **cells = NULL;
	size_t *lines = NULL;
	size_t ncols = 0, nrows = 0, cap = 0;
	while (p < end && skip_ignorable(&p, end, &line))
		;
	if (p >= end) {
		st = sw_err(sw, AIW_EPARSE, "%s: no header line (parameter names)", path);
		goto fail;
	}
	size_t l0 = line;
	long k = csv_record(&p, end, &names, &line);
	if (k < 0) {
		st = k == -1 ? sw_err(sw, AIW_EPARSE, "%s:%zu: unterminated double quote", path, l0)
		             : sw_err(sw, AIW_ENOMEM, "out of memory");
		goto fail;
	}
	ncols = (size_t)k;
	for (size_t i = 0; i < ncols; i++) {
		if ((st = check_param_name(sw, "aiw_sweep_point_file", names[i])) != AIW_OK) {
			char m[ERRMSG_LEN];
			snprintf(m, sizeof m, "%s", sw->sy->errmsg);
			st = sw_err(sw, st, "%s:%zu: column %zu: %s", path, l0, i + 1, m);
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
			st = k == -1 ? sw_err(sw, AIW_EPARSE, "%s:%zu: unterminated double quote", path, lr)
			             : sw_err(sw, AIW_ENOMEM, "out of memory");
			goto fail;
		}
		if ((size_t)k != ncols) {
			free_strv(row, (size_t)k);
			st = sw_err(sw, AIW_EPARSE, "%s:%zu: %ld fields, the header has %zu", path, lr, k,
			            ncols);
			goto fail;
		}
		for (size_t i = 0; i < ncols; i++)
			if (!row[i][0]) {
				free_strv(row, ncols);
				st = sw_err(sw, AIW_EPARSE, "%s:%zu: empty value for %s", path, lr, names[i]);
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
				free_strv(row, ncols);
				st = sw_err(sw, AIW_ENOMEM, "out of memory");
				goto fail;
			}
			cap = nc;
		}
		memcpy(cells + nrows * ncols, row, ncols * sizeof *row);
		free(row);
		lines[nrows++] = lr;
	}
	if (nrows == 0) {
		st = sw_err(sw, AIW_EPARSE, "%s: a header but no points", path);
		goto fail;
	}
	if (!(sw->pf_path = strdup(path))) {
		st = sw_err(sw, AIW_ENOMEM, "out of memory");
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
	free_strv(names, ncols);
	free_strv(cells, nrows * ncols);
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
		return sw_err(sw, AIW_ERANGE, "replications = %zu: must be 1 to %u", r,
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
		return sw_err(sw, AIW_ENOMEM, "out of memory");
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
		return sw_err(sw, AIW_ERANGE, "jobs = %u: must be 0 (one per processor) to %u", jobs,
		              MAX_JOBS);
	sw->jobs = jobs;
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

/* ======================================================================== */
/* points and seeds                                                          */
/* ======================================================================== */
static inline uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t task_seed(uint64_t base, size_t point, size_t rep)
{
	return mix64(mix64(base + GOLDEN * ((uint64_t)point + 1)) + GOLDEN * ((uint64_t)rep + 1));
}

static const char *point_value(const aiw_sweep *sw, size_t point, size_t i)
{
	size_t row = point / sw->axis_points, rem = point % sw->axis_points;
	if (i < sw->pf_ncols)
		return sw->pf_cells[row * sw->pf_ncols + i];
	size_t a = i - sw->pf_ncols;
	for (size_t j = sw->naxes; j-- > a + 1;)
		rem /= sw->axes[j].n;
	return sw->axes[a].vals[rem % sw->axes[a].n];
}

/* "name=value, name=value" of a point, shortened to fit. */
static void describe_point(const aiw_sweep *sw, size_t point, char *buf, size_t len)
{
	size_t o = 0;
	buf[0] = 0;
	for (size_t i = 0; i < sw->nparams && o + 1 < len; i++) {
		int k = snprintf(buf + o, len - o, "%s%s=%s", i ? ", " : "", sw->pnames[i],
		                 point_value(sw, point, i));
		if (k < 0)
			break;
		o += (size_t)k;
	}
	if (o >= len && len > 4)
		memcpy(buf + len - 4, "...", 4);
}

/* A simulation for task (point, rep), configured, not started. */
static aiw_status build_sim(const aiw_sweep *sw, size_t point, size_t rep, aiw_sim **out,
                            char *err, size_t errlen)
{
	*out = NULL;
	uint64_t seed = task_seed(sw->base, point, rep);
	aiw_sim *sim;
	aiw_status st = aiw_sim_create(&sim, seed);
	if (st != AIW_OK)
		return aiwi_buferr(err, errlen, st, "out of memory creating a simulation");
	if (sw->textlen &&
	    (st = aiwi_load(sim, sw->text, sw->textlen, sw->path ? sw->path : "<sweep scenario>",
	                    sw->base_dir ? sw->base_dir : "")) != AIW_OK) {
		aiwi_buferr(err, errlen, st, "%s", aiw_sim_errmsg(sim));
		aiw_sim_free(sim);
		return st;
	}
	for (size_t i = 0; i < sw->nparams; i++) {
		if ((st = aiw_sim_set(sim, sw->pnames[i], point_value(sw, point, i))) != AIW_OK) {
			aiwi_buferr(err, errlen, st, "%s", aiw_sim_errmsg(sim));
			aiw_sim_free(sim);
			return st;
		}
	}
	char sb[32];
	snprintf(sb, sizeof sb, "%llu", (unsigned long long)seed);
	if ((st = aiw_sim_set(sim, "sim.seed", sb)) != AIW_OK) {
		aiwi_buferr(err, errlen, st, "%s", aiw_sim_errmsg(sim));
		aiw_sim_free(sim);
		return st;
	}
	*out = sim;
	return AIW_OK;
}

/* Progress callback of every task's simulation: stop when asked. */
static int stop_cb(aiw_sim *sim, double now, double end, void *payload)
{
	const aiw_sweep *sw = payload;
	return atomic_load_explicit(&((aiw_sweep *)sw)->stop, memory_order_relaxed) != 0;
}

/* Run one task into out[nmetrics]; err receives a message naming the task. */
static aiw_status task_exec(aiw_sweep *sw, size_t point, size_t rep, double *out, char *err,
                            size_t errlen)
{
	char m[ERRMSG_LEN] = "";
	aiw_sim *sim;
	aiw_status st = build_sim(sw, point, rep, &sim, m, sizeof m);
	if (st == AIW_OK) {
		/* look at the stop flag ~1000 times per run whatever the sample
		 * interval (0: at every sample tick) */
		double dur = 0;
		aiw_sim_get_double(sim, "sim.duration", &dur);
		st = aiw_sim_set_progress(sim, stop_cb, sw, isfinite(dur) && dur > 0 ? dur / 1000 : 0);
		if (st == AIW_OK)
			st = aiw_sim_run(sim);
		if (st != AIW_OK && st != AIW_ESTOPPED)
			snprintf(m, sizeof m, "%s", aiw_sim_errmsg(sim));
	}
	if (st == AIW_OK) {
		for (size_t j = 0; j < sw->nmetrics; j++)
			if (aiw_sim_metric(sim, sw->mnames[j], &out[j]) != AIW_OK)
				out[j] = NAN;
	}
	aiw_sim_free(sim);
	if (st == AIW_ESTOPPED)
		return aiwi_buferr(err, errlen, st, "point %zu, replication %zu: stopped", point, rep);
	if (st != AIW_OK) {
		char d[256];
		describe_point(sw, point, d, sizeof d);
		aiwi_buferr(err, errlen, st, "point %zu (%s), replication %zu (sim.seed = %llu): %s",
		            point, d[0] ? d : "base scenario", rep,
		            (unsigned long long)task_seed(sw->base, point, rep), m);
	}
	return st;
}

/* ======================================================================== */
/* prepare                                                                   */
/* ======================================================================== */
static bool is_pattern(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* Append name to the list unless it is there already. */
static aiw_status add_metric(aiw_sweep *sw, char ***names, size_t *n, size_t *cap,
                             const char *name)
{
	for (size_t j = 0; j < *n; j++)
		if (strcmp((*names)[j], name) == 0)
			return AIW_OK;
	if (*n == *cap) {
		char **nn = realloc(*names, 2 * *cap * sizeof *nn);
		if (!nn)
			return sw_err(sw, AIW_ENOMEM, "out of memory");
		*names = nn;
		*cap *= 2;
	}
	if (!((*names)[*n] = strdup(name)))
		return sw_err(sw, AIW_ENOMEM, "out of memory");
	(*n)++;
	return AIW_OK;
}

/* Resolve the metric list (names and shell patterns, in the order given)
 * against the names point 0 publishes; without a list, all of them. */
static aiw_status resolve_metrics(aiw_sweep *sw, aiw_sim *probe)
{
	size_t count = 0;
	aiw_sim_metric_count(probe, &count);
	const char **have = malloc((count ? count : 1) * sizeof *have);
	size_t cap = 16, n = 0;
	char **names = malloc(cap * sizeof *names);
	char *spec = sw->metrics_spec ? strdup(sw->metrics_spec) : NULL;
	aiw_status st = AIW_OK;
	if (!have || !names || (sw->metrics_spec && !spec)) {
		st = sw_err(sw, AIW_ENOMEM, "out of memory");
		goto done;
	}
	for (size_t i = 0; i < count; i++)
		aiw_sim_metric_name(probe, i, &have[i]);
	if (!spec) {
		for (size_t i = 0; i < count && st == AIW_OK; i++)
			st = add_metric(sw, &names, &n, &cap, have[i]);
	}
	char *save = NULL;
	for (char *tok = spec ? strtok_r(spec, ",", &save) : NULL; tok && st == AIW_OK;
	     tok = strtok_r(NULL, ",", &save)) {
		while (*tok == ' ' || *tok == '\t')
			tok++;
		char *e = tok + strlen(tok);
		while (e > tok && (e[-1] == ' ' || e[-1] == '\t'))
			*--e = 0;
		if (!*tok)
			continue;
		bool pat = is_pattern(tok);
		size_t matched = 0;
		for (size_t i = 0; i < count && st == AIW_OK; i++)
			if (pat ? fnmatch(tok, have[i], 0) == 0 : strcmp(tok, have[i]) == 0) {
				matched++;
				st = add_metric(sw, &names, &n, &cap, have[i]);
			}
		if (st != AIW_OK || matched)
			continue;
		const char *best = NULL;
		size_t bd = SIZE_MAX;
		for (size_t i = 0; i < count && !pat; i++) {
			size_t d = aiwi_edit_distance(have[i], tok);
			if (d < bd)
				bd = d, best = have[i];
		}
		if (best && bd <= 3)
			st = sw_err(sw, AIW_EUNKNOWN,
			            "metrics: no metric '%s' in this scenario; did you mean '%s'?", tok,
			            best);
		else
			st = sw_err(sw, AIW_EUNKNOWN,
			            "metrics: %s '%s' matches no metric of this scenario (list them with "
			            "`aiworkload run --summary json`)",
			            pat ? "pattern" : "name", tok);
	}
	if (st == AIW_OK && n == 0)
		st = sw_err(sw, AIW_EUNKNOWN, "metrics: the list selects no metric");
	if (st == AIW_OK) {
		sw->mnames = names;
		sw->nmetrics = n;
		names = NULL;
	}
done:
	free_strv(names, n);
	free(spec);
	free(have);
	return st;
}

/* Check every distinct value of every column on one configured sim. */
static aiw_status check_values(aiw_sweep *sw)
{
	aiw_sim *sim;
	char m[ERRMSG_LEN];
	aiw_status st = aiw_sim_create(&sim, 1);
	if (st != AIW_OK)
		return sw_err(sw, st, "out of memory");
	if (sw->textlen &&
	    (st = aiwi_load(sim, sw->text, sw->textlen, sw->path ? sw->path : "<sweep scenario>",
	                    sw->base_dir ? sw->base_dir : "")) != AIW_OK) {
		st = sw_err(sw, st, "%s", aiw_sim_errmsg(sim));
		aiw_sim_free(sim);
		return st;
	}
	if (!sw->seed_set) {
		char buf[64];
		if ((st = aiw_sim_get(sim, "sim.seed", buf, sizeof buf)) != AIW_OK) {
			st = sw_err(sw, st, "%s", aiw_sim_errmsg(sim));
			aiw_sim_free(sim);
			return st;
		}
		sw->base = strtoull(buf, NULL, 10);
	} else {
		sw->base = sw->seed;
	}
	for (size_t i = 0; i < sw->pf_ncols && st == AIW_OK; i++)
		for (size_t r = 0; r < sw->pf_nrows; r++) {
			const char *v = sw->pf_cells[r * sw->pf_ncols + i];
			if ((st = aiw_sim_set(sim, sw->pf_names[i], v)) != AIW_OK) {
				snprintf(m, sizeof m, "%s", aiw_sim_errmsg(sim));
				st = sw_err(sw, st, "%s:%zu: %s", sw->pf_path, sw->pf_lines[r], m);
				break;
			}
		}
	for (size_t a = 0; a < sw->naxes && st == AIW_OK; a++)
		for (size_t k = 0; k < sw->axes[a].n; k++)
			if ((st = aiw_sim_set(sim, sw->axes[a].name, sw->axes[a].vals[k])) != AIW_OK) {
				snprintf(m, sizeof m, "%s", aiw_sim_errmsg(sim));
				st = sw_err(sw, st, "axis %s: %s", sw->axes[a].name, m);
				break;
			}
	aiw_sim_free(sim);
	return st;
}

static bool mul_ok(size_t a, size_t b, size_t *out)
{
	if (a && b > SIZE_MAX / a)
		return false;
	*out = a * b;
	return true;
}

AIW_EXPORT aiw_status aiw_sweep_prepare(aiw_sweep *sw)
{
	if (!sw)
		return AIW_EINVAL;
	if (sw->prepared)
		return AIW_OK;
	aiw_status st = AIW_OK;
	if (sw->path) {
		if ((st = read_file(sw, sw->path, &sw->text, &sw->textlen)) != AIW_OK)
			return st;
		char *dir = strdup(sw->path);
		if (!dir) {
			st = sw_err(sw, AIW_ENOMEM, "out of memory");
			goto fail;
		}
		char *slash = strrchr(dir, '/');
		if (slash)
			*(slash == dir ? slash + 1 : slash) = 0;
		else
			strcpy(dir, ".");
		sw->base_dir = dir;
	}
	/* parameter columns: the point file's, then the axes' */
	sw->nparams = sw->pf_ncols + sw->naxes;
	sw->pnames = malloc((sw->nparams ? sw->nparams : 1) * sizeof *sw->pnames);
	if (!sw->pnames) {
		st = sw_err(sw, AIW_ENOMEM, "out of memory");
		goto fail;
	}
	for (size_t i = 0; i < sw->pf_ncols; i++)
		sw->pnames[i] = sw->pf_names[i];
	for (size_t a = 0; a < sw->naxes; a++)
		sw->pnames[sw->pf_ncols + a] = sw->axes[a].name;
	for (size_t i = 0; i < sw->nparams; i++)
		for (size_t j = 0; j < i; j++)
			if (strcmp(sw->pnames[i], sw->pnames[j]) == 0) {
				st = sw_err(sw, AIW_EINVAL, "parameter %s is given twice (axes and point file)",
				            sw->pnames[i]);
				goto fail;
			}
	sw->axis_points = 1;
	for (size_t a = 0; a < sw->naxes; a++)
		if (!mul_ok(sw->axis_points, sw->axes[a].n, &sw->axis_points) ||
		    sw->axis_points > MAX_TASKS) {
			st = sw_err(sw, AIW_ELIMIT, "the grid has more than 2^40 points");
			goto fail;
		}
	if (!mul_ok(sw->axis_points, sw->pf_nrows ? sw->pf_nrows : 1, &sw->npoints) ||
	    !mul_ok(sw->npoints, sw->R, &sw->ntasks) || sw->ntasks > MAX_TASKS) {
		st = sw_err(sw, AIW_ELIMIT, "points x replications exceeds 2^40 tasks");
		goto fail;
	}
	if ((st = check_values(sw)) != AIW_OK)
		goto fail;

	/* the metrics: start point 0, replication 0 (a zero-length run) */
	aiw_sim *probe;
	char m[ERRMSG_LEN];
	if ((st = build_sim(sw, 0, 0, &probe, m, sizeof m)) != AIW_OK) {
		st = sw_err(sw, st, "%s", m);
		goto fail;
	}
	if ((st = aiw_sim_run_until(probe, 0)) != AIW_OK) {
		char d[256];
		describe_point(sw, 0, d, sizeof d);
		st = sw_err(sw, st, "point 0 (%s): %s", d[0] ? d : "base scenario",
		            aiw_sim_errmsg(probe));
		aiw_sim_free(probe);
		goto fail;
	}
	st = resolve_metrics(sw, probe);
	aiw_sim_free(probe);
	if (st != AIW_OK)
		goto fail;

	size_t nvals, bytes;
	if (!mul_ok(sw->ntasks, sw->nmetrics, &nvals) || !mul_ok(nvals, sizeof(double), &bytes) ||
	    bytes > MAX_RESULT_BYTES) {
		st = sw_err(sw, AIW_ELIMIT,
		            "%zu points x %zu replications x %zu metrics: more than 64 GiB of results",
		            sw->npoints, sw->R, sw->nmetrics);
		goto fail;
	}
	sw->vals = malloc(bytes ? bytes : 1);
	sw->stored = calloc(sw->ntasks, 1);
	sw->left = malloc(sw->npoints * sizeof *sw->left);
	if (!sw->vals || !sw->stored || !sw->left) {
		st = sw_err(sw, AIW_ENOMEM, "out of memory for %zu x %zu results", sw->ntasks,
		            sw->nmetrics);
		goto fail;
	}
	for (size_t i = 0; i < nvals; i++)
		sw->vals[i] = NAN;
	for (size_t p = 0; p < sw->npoints; p++)
		sw->left[p] = sw->R;
	sw->nstored = 0;
	sw->prepared = true;
	return AIW_OK;
fail:
	unprepare(sw);
	return st;
}

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

static aiw_status check_task(const aiw_sweep *sw, const char *fn, size_t point, size_t rep)
{
	if (!sw->prepared)
		return sw_err(sw, AIW_ESTATE, "%s: call aiw_sweep_prepare first", fn);
	if (point >= sw->npoints)
		return sw_err(sw, AIW_ERANGE, "%s: point %zu: the sweep has %zu points", fn, point,
		              sw->npoints);
	if (rep >= sw->R)
		return sw_err(sw, AIW_ERANGE, "%s: replication %zu: the sweep has %zu", fn, rep, sw->R);
	return AIW_OK;
}

/* Store under the lock (held by the caller). */
static void store_locked(aiw_sweep *sw, size_t t, const double *metrics)
{
	memcpy(sw->vals + t * sw->nmetrics, metrics, sw->nmetrics * sizeof *metrics);
	if (!sw->stored[t]) {
		sw->stored[t] = 1;
		sw->nstored++;
		sw->left[t / sw->R]--;
	}
}

AIW_EXPORT aiw_status aiw_sweep_run_task(aiw_sweep *sw, size_t point, size_t rep,
                                         double *metrics_out)
{
	if (!sw)
		return AIW_EINVAL;
	aiw_status st = check_task(sw, "aiw_sweep_run_task", point, rep);
	if (st != AIW_OK)
		return st;
	if (!metrics_out)
		return sw_err(sw, AIW_EINVAL, "aiw_sweep_run_task: metrics_out is NULL");
	char m[ERRMSG_LEN];
	st = task_exec(sw, point, rep, metrics_out, m, sizeof m);
	if (st != AIW_OK)
		sw_err(sw, st, "%s", m);
	return st;
}

AIW_EXPORT aiw_status aiw_sweep_store(aiw_sweep *sw, size_t point, size_t rep,
                                      const double *metrics)
{
	if (!sw)
		return AIW_EINVAL;
	aiw_status st = check_task(sw, "aiw_sweep_store", point, rep);
	if (st != AIW_OK)
		return st;
	if (!metrics)
		return sw_err(sw, AIW_EINVAL, "aiw_sweep_store: metrics is NULL");
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

/* Record a task's outcome (lock held). */
static void finish_task(run_ctx *rc, size_t t, aiw_status st, const double *buf,
                        const char *msg)
{
	aiw_sweep *sw = rc->sw;
	if (st == AIW_OK) {
		store_locked(sw, t, buf);
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
		aiw_status st = task_exec(sw, t / sw->R, t % sw->R, buf, msg, ERRMSG_LEN);
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
		return sw_err(sw, AIW_ESTATE,
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
		return sw_err(sw, AIW_ENOMEM, "out of memory");
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
			aiw_status ts = task_exec(sw, t / sw->R, t % sw->R, buf, msg, ERRMSG_LEN);
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
		return sw_err(sw, rc.err_st, "%s", rc.errmsg);
	if (sw->nstored < sw->ntasks)
		return sw_err(sw, AIW_ESTOPPED, "sweep stopped: %zu of %zu runs done", sw->nstored,
		              sw->ntasks);
	return AIW_OK;
}

/* ======================================================================== */
/* results                                                                   */
/* ======================================================================== */
static aiw_status check_prepared(const aiw_sweep *sw, const char *fn, const void *out)
{
	if (!sw->prepared)
		return sw_err(sw, AIW_ESTATE, "%s: call aiw_sweep_prepare (or aiw_sweep_run) first",
		              fn);
	if (!out)
		return sw_err(sw, AIW_EINVAL, "%s: out is NULL", fn);
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
		return sw_err(sw, AIW_ERANGE, "aiw_sweep_param_name: index %zu: the sweep has %zu "
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
		return sw_err(sw, AIW_ERANGE, "aiw_sweep_point_value: point %zu: the sweep has %zu",
		              point, sw->npoints);
	if (i >= sw->nparams)
		return sw_err(sw, AIW_ERANGE, "aiw_sweep_point_value: parameter %zu: the sweep has "
		              "%zu", i, sw->nparams);
	*out = point_value(sw, point, i);
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
		return sw_err(sw, AIW_ERANGE, "aiw_sweep_metric_name: index %zu: the sweep has %zu "
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
		st = check_task(sw, "aiw_sweep_task_seed", point, rep);
	if (st == AIW_OK)
		*out = task_seed(sw->base, point, rep);
	return st;
}

/* Statistics of one (point, metric) over the finite replications, in
 * replication order: exact two-pass mean and sample variance. */
static void point_stats(const aiw_sweep *sw, size_t point, size_t metric, double *mean,
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

static bool point_complete(const aiw_sweep *sw, size_t point)
{
	pthread_mutex_lock(&sw->sy->mu);
	bool done = sw->left[point] == 0;
	pthread_mutex_unlock(&sw->sy->mu);
	return done;
}

AIW_EXPORT aiw_status aiw_sweep_result(const aiw_sweep *sw, size_t point, size_t metric,
                                       double *mean, double *sd, double *ci95_half, size_t *n)
{
	if (!sw)
		return AIW_EINVAL;
	if (!sw->prepared)
		return sw_err(sw, AIW_ESTATE, "aiw_sweep_result: the sweep has not run");
	if (point >= sw->npoints)
		return sw_err(sw, AIW_ERANGE, "aiw_sweep_result: point %zu: the sweep has %zu", point,
		              sw->npoints);
	if (metric >= sw->nmetrics)
		return sw_err(sw, AIW_ERANGE, "aiw_sweep_result: metric %zu: the sweep has %zu",
		              metric, sw->nmetrics);
	if (!point_complete(sw, point))
		return sw_err(sw, AIW_ESTATE, "aiw_sweep_result: point %zu is not complete", point);
	double a, b, c;
	size_t k;
	point_stats(sw, point, metric, &a, &b, &c, &k);
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
		st = check_task(sw, "aiw_sweep_replication", point, rep);
	if (st != AIW_OK)
		return st;
	if (metric >= sw->nmetrics)
		return sw_err(sw, AIW_ERANGE, "aiw_sweep_replication: metric %zu: the sweep has %zu",
		              metric, sw->nmetrics);
	size_t t = point * sw->R + rep;
	pthread_mutex_lock(&sw->sy->mu);
	bool have = sw->stored[t];
	pthread_mutex_unlock(&sw->sy->mu);
	if (!have)
		return sw_err(sw, AIW_ESTATE,
		              "aiw_sweep_replication: point %zu, replication %zu has not run", point,
		              rep);
	*out = sw->vals[t * sw->nmetrics + metric];
	return AIW_OK;
}

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
		return sw_err(sw, AIW_ESTATE, "%s: the sweep has not run", fn);
	if (!path || !*path)
		return sw_err(sw, AIW_EINVAL, "%s: path is NULL or empty", fn);
	*out = fopen(path, "w");
	if (!*out)
		return sw_err(sw, AIW_EIO, "%s: cannot write '%s': %s", fn, path, strerror(errno));
	return AIW_OK;
}

static aiw_status close_out(aiw_sweep *sw, FILE *f, const char *path)
{
	/* a failed write leaves its errno; a failed close sets its own */
	int e = ferror(f) ? (errno ? errno : EIO) : 0;
	if (fclose(f) != 0 && !e)
		e = errno ? errno : EIO;
	if (e)
		return sw_err(sw, AIW_EIO, "error writing '%s': %s", path, strerror(e));
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
	fputc('\n', f);
	for (size_t p = 0; p < sw->npoints; p++) {
		if (!point_complete(sw, p))
			continue;
		fprintf(f, "%zu", p);
		for (size_t i = 0; i < sw->nparams; i++) {
			fputc(',', f);
			put_field(f, point_value(sw, p, i));
		}
		for (size_t j = 0; j < sw->nmetrics; j++) {
			double mean, sd, ci;
			size_t n;
			point_stats(sw, p, j, &mean, &sd, &ci, &n);
			fputc(',', f);
			put_num(f, mean);
			fputc(',', f);
			put_num(f, sd);
			fputc(',', f);
			put_num(f, ci);
			fprintf(f, ",%zu", n);
		}
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
		if (!sw->stored[t])
			continue;
		size_t p = t / sw->R, r = t % sw->R;
		fprintf(f, "%zu,%zu,%llu", p, r, (unsigned long long)task_seed(sw->base, p, r));
		for (size_t i = 0; i < sw->nparams; i++) {
			fputc(',', f);
			put_field(f, point_value(sw, p, i));
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
