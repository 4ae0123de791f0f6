/*
 * export.c - writers: CSV of the curves, JSON of the summary metrics.
 * Numbers are written with %.17g so that a reader gets the same doubles.
 */
#include "internal.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static FILE *open_out(aiw_sim *sim, const char *path, const char *fn)
{
	if (!path) {
		aiw__err(sim, AIW_EINVAL, "%s: path is NULL", fn);
		return NULL;
	}
	FILE *f = fopen(path, "w");
	if (!f)
		aiw__err(sim, AIW_EIO, "%s: cannot write '%s': %s", fn, path, strerror(errno));
	return f;
}

static aiw_status close_out(aiw_sim *sim, FILE *f, const char *path)
{
	bool bad = ferror(f) != 0;
	if (fclose(f) != 0 || bad)
		return aiw__err(sim, AIW_EIO, "error writing '%s'", path);
	return AIW_OK;
}

static void put_num(FILE *f, double x)
{
	if (isfinite(x))
		fprintf(f, "%.17g", x);
	else
		fputs("", f); /* empty field (CSV) */
}

AIW_EXPORT aiw_status aiw_sim_write_csv(aiw_sim *sim, const char *path)
{
	if (!sim)
		return AIW_EINVAL;
	FILE *f = open_out(sim, path, "aiw_sim_write_csv");
	if (!f)
		return aiw_sim_errmsg(sim)[0] && !path ? AIW_EINVAL : AIW_EIO;
	const aiw_recorder *r = aiw__recorder(sim);
	size_t ns = aiw_rec_count(r), len = aiw_rec_length(r);
	fputs("time_s", f);
	for (size_t i = 0; i < ns; i++) {
		const char *u = aiw_rec_unit(r, i);
		fprintf(f, ",%s [%s]", aiw_rec_name(r, i), *u ? u : "1");
	}
	fputc('\n', f);
	const double *t = aiw_rec_times(r);
	for (size_t k = 0; k < len; k++) {
		put_num(f, t[k]);
		for (size_t i = 0; i < ns; i++) {
			fputc(',', f);
			put_num(f, aiw_rec_values(r, i)[k]);
		}
		fputc('\n', f);
	}
	return close_out(sim, f, path);
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void json_num(FILE *f, double x)
{
	if (isfinite(x))
		fprintf(f, "%.17g", x);
	else
		fputs("null", f);
}

AIW_EXPORT aiw_status aiw_sim_write_json(aiw_sim *sim, const char *path)
{
	if (!sim)
		return AIW_EINVAL;
	FILE *f = open_out(sim, path, "aiw_sim_write_json");
	if (!f)
		return path ? AIW_EIO : AIW_EINVAL;
	size_t n = 0;
	aiw_sim_metric_count(sim, &n);
	double now = 0;
	aiw_sim_now(sim, &now);
	char seed[32] = "";
	aiw_sim_get(sim, "sim.seed", seed, sizeof seed);
	fprintf(f, "{\n  \"library\": \"libaiworkload\",\n  \"version\": ");
	json_str(f, aiw_version_string());
	fprintf(f, ",\n  \"seed\": %s,\n  \"time_s\": ", seed[0] ? seed : "0");
	json_num(f, now);
	fprintf(f, ",\n  \"parameters\": {");
	size_t first = 1;
	for (size_t i = 0; i < aiw__ncomps(sim); i++) {
		aiw_comp *c = aiw__comp_at(sim, i);
		for (size_t j = 0; j < c->kind->nparams; j++) {
			char buf[4200];
			aiw_value_format(&c->kind->params[j], &c->v[j], buf, sizeof buf);
			fprintf(f, "%s\n    ", first ? "" : ",");
			first = 0;
			char name[400];
			snprintf(name, sizeof name, "%s.%s", c->prefix, c->kind->params[j].key);
			json_str(f, name);
			fputs(": ", f);
			json_str(f, buf);
		}
	}
	fprintf(f, "\n  },\n  \"metrics\": {");
	for (size_t i = 0; i < n; i++) {
		const char *name;
		double v;
		aiw_sim_metric_name(sim, i, &name);
		aiw_sim_metric(sim, name, &v);
		fprintf(f, "%s\n    ", i ? "," : "");
		json_str(f, name);
		fputs(": ", f);
		json_num(f, v);
	}
	fprintf(f, "\n  }\n}\n");
	return close_out(sim, f, path);
}
