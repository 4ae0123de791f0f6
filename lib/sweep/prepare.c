/*
 * prepare.c - preparing a sweep: the scenario read, every value checked, the
 * parameter columns, the grid's size, the metric list resolved on point 0,
 * the result storage.
 */
#include "sweep/sweep.h"

#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void aiwi_sweep_unprepare(aiw_sweep *sw)
{
	free(sw->pnames);
	aiwi_sweep_free_strv(sw->mnames, sw->nmetrics);
	free(sw->vals);
	free(sw->stored);
	free(sw->left);
	free(sw->pst);
	free(sw->prep);
	aiwi_sweep_free_strv(sw->pmsg, sw->pmsg ? sw->npoints : 0);
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
	sw->pst = NULL;
	sw->prep = NULL;
	sw->pmsg = NULL;
	sw->nmetrics = sw->nparams = sw->npoints = sw->ntasks = sw->nstored = 0;
	sw->prepared = false;
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
			return aiwi_sweep_err(sw, AIW_ENOMEM, "out of memory");
		*names = nn;
		*cap *= 2;
	}
	if (!((*names)[*n] = strdup(name)))
		return aiwi_sweep_err(sw, AIW_ENOMEM, "out of memory");
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
		st = aiwi_sweep_err(sw, AIW_ENOMEM, "out of memory");
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
			st = aiwi_sweep_err(sw, AIW_EUNKNOWN,
					    "metrics: no metric '%s' in this scenario; did you mean '%s'?", tok,
					    best);
		else
			st = aiwi_sweep_err(sw, AIW_EUNKNOWN,
					    "metrics: %s '%s' matches no metric of this scenario (list them with "
					    "`aiworkload run --summary json`)",
					    pat ? "pattern" : "name", tok);
	}
	if (st == AIW_OK && n == 0)
		st = aiwi_sweep_err(sw, AIW_EUNKNOWN, "metrics: the list selects no metric");
	if (st == AIW_OK) {
		sw->mnames = names;
		sw->nmetrics = n;
		names = NULL;
	}
done:
	aiwi_sweep_free_strv(names, n);
	free(spec);
	free(have);
	return st;
}

/* Check every distinct value of every column on one configured sim (under
 * keep_going a refused value refuses its points only, when they run). */
static aiw_status check_values(aiw_sweep *sw)
{
	aiw_sim *sim;
	char m[ERRMSG_LEN];
	aiw_status st = aiw_sim_create(&sim, 1);
	if (st != AIW_OK)
		return aiwi_sweep_err(sw, st, "out of memory");
	if (sw->textlen &&
	    (st = aiwi_load(sim, sw->text, sw->textlen, sw->path ? sw->path : "<sweep scenario>",
	                    sw->base_dir ? sw->base_dir : "")) != AIW_OK) {
		st = aiwi_sweep_err(sw, st, "%s", aiw_sim_errmsg(sim));
		aiw_sim_free(sim);
		return st;
	}
	if (!sw->seed_set) {
		char buf[64];
		if ((st = aiw_sim_get(sim, "sim.seed", buf, sizeof buf)) != AIW_OK) {
			st = aiwi_sweep_err(sw, st, "%s", aiw_sim_errmsg(sim));
			aiw_sim_free(sim);
			return st;
		}
		sw->base = strtoull(buf, NULL, 10);
	} else {
		sw->base = sw->seed;
	}
	for (size_t i = 0; i < sw->pf_ncols && st == AIW_OK && !sw->keep_going; i++)
		for (size_t r = 0; r < sw->pf_nrows; r++) {
			const char *v = sw->pf_cells[r * sw->pf_ncols + i];
			if ((st = aiw_sim_set(sim, sw->pf_names[i], v)) != AIW_OK) {
				snprintf(m, sizeof m, "%s", aiw_sim_errmsg(sim));
				st = aiwi_sweep_err(sw, st, "%s:%zu: %s", sw->pf_path, sw->pf_lines[r], m);
				break;
			}
		}
	for (size_t a = 0; a < sw->naxes && st == AIW_OK && !sw->keep_going; a++)
		for (size_t k = 0; k < sw->axes[a].n; k++)
			if ((st = aiw_sim_set(sim, sw->axes[a].name, sw->axes[a].vals[k])) != AIW_OK) {
				snprintf(m, sizeof m, "%s", aiw_sim_errmsg(sim));
				st = aiwi_sweep_err(sw, st, "axis %s: %s", sw->axes[a].name, m);
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
		if ((st = aiwi_sweep_read_file(sw, sw->path, &sw->text, &sw->textlen)) != AIW_OK)
			return st;
		char *dir = strdup(sw->path);
		if (!dir) {
			st = aiwi_sweep_err(sw, AIW_ENOMEM, "out of memory");
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
		st = aiwi_sweep_err(sw, AIW_ENOMEM, "out of memory");
		goto fail;
	}
	for (size_t i = 0; i < sw->pf_ncols; i++)
		sw->pnames[i] = sw->pf_names[i];
	for (size_t a = 0; a < sw->naxes; a++)
		sw->pnames[sw->pf_ncols + a] = sw->axes[a].name;
	for (size_t i = 0; i < sw->nparams; i++)
		for (size_t j = 0; j < i; j++)
			if (strcmp(sw->pnames[i], sw->pnames[j]) == 0) {
				st = aiwi_sweep_err(sw, AIW_EINVAL, "parameter %s is given twice (axes and point file)",
						    sw->pnames[i]);
				goto fail;
			}
	sw->axis_points = 1;
	for (size_t a = 0; a < sw->naxes; a++)
		if (!mul_ok(sw->axis_points, sw->axes[a].n, &sw->axis_points) ||
		    sw->axis_points > MAX_TASKS) {
			st = aiwi_sweep_err(sw, AIW_ELIMIT, "the grid has more than 2^40 points");
			goto fail;
		}
	if (!mul_ok(sw->axis_points, sw->pf_nrows ? sw->pf_nrows : 1, &sw->npoints) ||
	    !mul_ok(sw->npoints, sw->R, &sw->ntasks) || sw->ntasks > MAX_TASKS) {
		st = aiwi_sweep_err(sw, AIW_ELIMIT, "points x replications exceeds 2^40 tasks");
		goto fail;
	}
	if ((st = check_values(sw)) != AIW_OK)
		goto fail;

	/* the metrics: start point 0, replication 0 (a zero-length run); under
	 * keep_going the first point that starts */
	aiw_sim *probe = NULL;
	for (size_t p = 0; p < sw->npoints; p++) {
		char m[ERRMSG_LEN];
		if ((st = aiwi_sweep_build_sim(sw, p, 0, &probe, m, sizeof m)) == AIW_OK &&
		    (st = aiw_sim_run_until(probe, 0)) != AIW_OK) {
			char d[256];
			aiwi_sweep_describe_point(sw, p, d, sizeof d);
			snprintf(m, sizeof m, "point %zu (%s): %s", p, d[0] ? d : "base scenario",
			         aiw_sim_errmsg(probe));
			aiw_sim_free(probe);
			probe = NULL;
		}
		if (st == AIW_OK)
			break;
		if (p == 0) /* the message of point 0, when no point starts */
			aiwi_sweep_err(sw, st, "%s", m);
		if (!sw->keep_going)
			break;
	}
	if (!probe) {
		if (sw->keep_going && sw->npoints > 1) {
			char m[ERRMSG_LEN];
			snprintf(m, sizeof m, "%s", sw->sy->errmsg);
			st = aiwi_sweep_err(sw, st, "no point of the %zu starts; %s", sw->npoints, m);
		}
		goto fail;
	}
	st = resolve_metrics(sw, probe);
	aiw_sim_free(probe);
	if (st != AIW_OK)
		goto fail;

	size_t nvals, bytes;
	if (!mul_ok(sw->ntasks, sw->nmetrics, &nvals) || !mul_ok(nvals, sizeof(double), &bytes) ||
	    bytes > MAX_RESULT_BYTES) {
		st = aiwi_sweep_err(sw, AIW_ELIMIT,
				    "%zu points x %zu replications x %zu metrics: more than 64 GiB of results",
				    sw->npoints, sw->R, sw->nmetrics);
		goto fail;
	}
	sw->vals = malloc(bytes ? bytes : 1);
	sw->stored = calloc(sw->ntasks, 1);
	sw->left = malloc(sw->npoints * sizeof *sw->left);
	sw->pst = malloc(sw->npoints * sizeof *sw->pst);
	sw->prep = malloc(sw->npoints * sizeof *sw->prep);
	sw->pmsg = calloc(sw->npoints, sizeof *sw->pmsg);
	if (!sw->vals || !sw->stored || !sw->left || !sw->pst || !sw->prep || !sw->pmsg) {
		st = aiwi_sweep_err(sw, AIW_ENOMEM, "out of memory for %zu x %zu results", sw->ntasks,
				    sw->nmetrics);
		goto fail;
	}
	for (size_t i = 0; i < nvals; i++)
		sw->vals[i] = NAN;
	for (size_t p = 0; p < sw->npoints; p++) {
		sw->left[p] = sw->R;
		sw->pst[p] = AIW_OK;
		sw->prep[p] = SIZE_MAX;
	}
	sw->nstored = 0;
	sw->prepared = true;
	return AIW_OK;
fail:
	aiwi_sweep_unprepare(sw);
	return st;
}
