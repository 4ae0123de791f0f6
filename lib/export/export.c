/*
 * export.c - writers: CSV of the curves, JSON of the summary metrics,
 * Prometheus text exposition of the final metrics, the curves as
 * `promtool test rules` input series, and an SVG chart of the run.
 * CSV and JSON numbers are written with %.17g so that a reader gets the
 * same doubles.
 *
 * Prometheus names follow the naming guide (prometheus.io/docs/practices/
 * naming): base units spelled out (seconds, watts, joules, bytes), snake
 * case, no abbreviated units, and the names operators already use for the
 * common series (gpu_utilization, power_watts, inference_replicas,
 * inference_request_duration_seconds).  Every summary metric is also
 * exported under a generic name aiworkload_<kind>_<key>{kind,component}.
 */
#include "core/internal.h"
#include "core/stats.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static FILE *open_out(aiw_sim *sim, const char *path, const char *fn)
{
	if (!path) {
		aiwi_err(sim, AIW_EINVAL, "%s: path is NULL", fn);
		return NULL;
	}
	FILE *f = fopen(path, "w");
	if (!f)
		aiwi_err(sim, AIW_EIO, "%s: cannot write '%s': %s", fn, path, strerror(errno));
	return f;
}

static aiw_status close_out(aiw_sim *sim, FILE *f, const char *path)
{
	/* a failed write leaves its errno; a failed close sets its own */
	int e = ferror(f) ? (errno ? errno : EIO) : 0;
	if (fclose(f) != 0 && !e)
		e = errno ? errno : EIO;
	if (e)
		return aiwi_err(sim, AIW_EIO, "error writing '%s': %s", path, strerror(e));
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
	aiwi_recorder *r = aiwi_sim_recorder(sim);
	size_t ns = aiwi_rec_count(r), len = aiwi_rec_length(r);
	fputs("time_s", f);
	for (size_t i = 0; i < ns; i++) {
		const char *u = aiwi_rec_unit(r, i);
		fprintf(f, ",%s [%s]", aiwi_rec_name(r, i), *u ? u : "1");
	}
	fputc('\n', f);
	const double *t = aiwi_rec_times(r);
	for (size_t k = 0; k < len; k++) {
		put_num(f, t[k]);
		for (size_t i = 0; i < ns; i++) {
			fputc(',', f);
			put_num(f, aiwi_rec_values(r, i)[k]);
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
	for (size_t i = 0; i < aiwi_ncomps(sim); i++) {
		aiwi_comp *c = aiwi_comp_at(sim, i);
		for (size_t j = 0; j < c->kind->nparams; j++) {
			char buf[4200];
			aiwi_value_format(&c->kind->params[j], &c->v[j], buf, sizeof buf);
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
	fprintf(f, "\n  }");
	/* the run's warnings (aiw_sim_warning), when it has any */
	size_t nw = 0;
	aiw_sim_warning_count(sim, &nw);
	for (size_t i = 0; i < nw; i++) {
		const char *text = "";
		aiw_sim_warning(sim, i, &text);
		fputs(i ? ",\n    " : ",\n  \"warnings\": [\n    ", f);
		json_str(f, text);
	}
	fprintf(f, "%s\n}\n", nw ? "\n  ]" : "");
	return close_out(sim, f, path);
}

/* ======================================================================== */
/* Names: "training.pretrain.step_time_mean_s" -> kind, component, key, and  */
/* the key in Prometheus form with base units ("step_time_mean_seconds").   */
/* ======================================================================== */
typedef struct split_name {
	char kind[64];
	char comp[80];
	char key[192];
} split_name;

static void split_full(const char *full, split_name *p)
{
	p->kind[0] = p->comp[0] = p->key[0] = 0;
	const char *d1 = strchr(full, '.');
	if (!d1) {
		snprintf(p->key, sizeof p->key, "%s", full);
		return;
	}
	snprintf(p->kind, sizeof p->kind, "%.*s", (int)(d1 - full), full);
	const aiwi_kind *k = aiwi_kind_find(p->kind);
	const char *d2 = strchr(d1 + 1, '.');
	if (k && !aiwi_kind_is(k, AIWI_KIND_SINGLETON) && d2) {
		snprintf(p->comp, sizeof p->comp, "%.*s", (int)(d2 - d1 - 1), d1 + 1);
		snprintf(p->key, sizeof p->key, "%s", d2 + 1);
	} else {
		snprintf(p->key, sizeof p->key, "%s", d1 + 1);
	}
}

/* The row of a curve in its kind's table (operator name, mode, help). */
static const aiwi_curve_def *alias_of(const split_name *p)
{
	const aiwi_curve_def *a = aiwi_curve_def_find(aiwi_kind_find(p->kind), p->comp[0] != 0, p->key);
	return a && a->prom ? a : NULL;
}

static void prom_labels(const split_name *p, bool comp_only, const char *extra, char *labels,
                        size_t llen)
{
	int o = 0;
	labels[0] = 0;
	if (p->comp[0] && comp_only)
		o = snprintf(labels, llen, "component=\"%s\"", p->comp);
	else if (p->comp[0])
		o = snprintf(labels, llen, "kind=\"%s\",component=\"%s\"", p->kind, p->comp);
	if (extra && o >= 0 && (size_t)o < llen)
		snprintf(labels + o, llen - (size_t)o, "%s%s", o ? "," : "", extra);
}

/* Generic name aiworkload_<kind>_<key in base units> and labels of a curve
 * or metric; returns the value factor. */
static double prom_generic(const char *full, char *name, size_t nlen, char *labels, size_t llen)
{
	split_name p;
	split_full(full, &p);
	prom_labels(&p, false, NULL, labels, llen);
	char key[256];
	double scale = aiwi_prom_key(p.key, key, sizeof key);
	if (p.kind[0])
		snprintf(name, nlen, "aiworkload_%s_%s", p.kind, key);
	else
		snprintf(name, nlen, "aiworkload_%s", key);
	return scale;
}

static void prom_num(FILE *f, double x)
{
	if (isnan(x))
		fputs("NaN", f);
	else if (isinf(x))
		fputs(x > 0 ? "+Inf" : "-Inf", f);
	else
		fprintf(f, "%.17g", x);
}

/* ======================================================================== */
/* Prometheus text exposition (format 0.0.4)                                 */
/* ======================================================================== */
typedef struct pentry {
	char *family, *labels, *help;
	const char *type;
	const char *suffix; /* sample name = family + suffix (histograms) */
	double value;
	size_t order;
} pentry;

typedef struct pset {
	pentry *e;
	size_t n, cap;
	bool oom;
} pset;

static void pset_add_sfx(pset *s, const char *family, const char *suffix, const char *labels,
                         const char *type, const char *help, double value);

static void pset_add(pset *s, const char *family, const char *labels, const char *type,
                     const char *help, double value)
{
	pset_add_sfx(s, family, "", labels, type, help, value);
}

static void pset_add_sfx(pset *s, const char *family, const char *suffix, const char *labels,
                         const char *type, const char *help, double value)
{
	if (s->oom)
		return;
	if (s->n == s->cap) {
		size_t n = s->cap ? 2 * s->cap : 64;
		pentry *p = realloc(s->e, n * sizeof *p);
		if (!p) {
			s->oom = true;
			return;
		}
		s->e = p;
		s->cap = n;
	}
	pentry *e = &s->e[s->n];
	e->family = strdup(family);
	e->labels = strdup(labels);
	e->help = strdup(help);
	e->type = type;
	e->suffix = suffix;
	e->value = value;
	e->order = s->n;
	if (!e->family || !e->labels || !e->help) {
		free(e->family);
		free(e->labels);
		free(e->help);
		s->oom = true;
		return;
	}
	s->n++;
}

static void pset_free(pset *s)
{
	for (size_t i = 0; i < s->n; i++) {
		free(s->e[i].family);
		free(s->e[i].labels);
		free(s->e[i].help);
	}
	free(s->e);
}

static int pentry_cmp(const void *a, const void *b)
{
	const pentry *x = a, *y = b;
	int c = strcmp(x->family, y->family);
	if (c)
		return c;
	return x->order < y->order ? -1 : x->order > y->order;
}

static void help_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", f);
		else if (*s == '\n')
			fputs("\\n", f);
		else
			fputc(*s, f);
	}
}

/* Latency histograms exported with `le` buckets: the bounds operators use
 * for request latencies (s), from 5 ms to 2 min. */
#define LE_BOUNDS aiwi_le_bounds

static const char *const LE_TEXT[] = {"0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5",
                                      "1",     "2.5",  "5",     "10",   "30",   "60",  "120"};

/* Cumulative `le` buckets from the log-bucketed histogram: exact for every
 * sample farther than its relative error (1%) from a bound. */
static void prom_histograms(pset *s, aiwi_comp *c)
{
	const aiwi_hist_def *fam = c->kind->histograms;
	if (!fam || !c->kind->histogram)
		return;
	char labels[256], help[256];
	for (; fam->key; fam++) {
		const aiwi_hist *h = c->kind->histogram(c, fam->key);
		if (!h)
			continue;
		snprintf(help, sizeof help, "%s", fam->help);
		for (size_t b = 0; b <= AIWI_NLE; b++) {
			bool inf = b == AIWI_NLE;
			snprintf(labels, sizeof labels, "component=\"%s\",le=\"%s\"", c->name,
			         inf ? "+Inf" : LE_TEXT[b]);
			double n = inf ? (double)aiwi_hist_count(h) : (double)aiwi_hist_count_le(h, LE_BOUNDS[b]);
			pset_add_sfx(s, fam->prom, "_bucket", labels, "histogram", help, n);
		}
		snprintf(labels, sizeof labels, "component=\"%s\"", c->name);
		pset_add_sfx(s, fam->prom, "_sum", labels, "histogram", help,
		             aiwi_hist_sum(h));
		pset_add_sfx(s, fam->prom, "_count", labels, "histogram", help,
		             (double)aiwi_hist_count(h));
	}
}

AIW_EXPORT aiw_status aiw_sim_write_prometheus(aiw_sim *sim, const char *path)
{
	if (!sim)
		return AIW_EINVAL;
	FILE *f = open_out(sim, path, "aiw_sim_write_prometheus");
	if (!f)
		return path ? AIW_EIO : AIW_EINVAL;
	pset s = {0};
	char name[352], labels[256], fam_help[512];
	/* every summary metric under its generic name, and the operator name
	 * for the counters and ratios operators watch */
	size_t nm = 0;
	aiw_sim_metric_count(sim, &nm);
	for (size_t i = 0; i < nm; i++) {
		const char *m;
		double v;
		if (aiw_sim_metric_name(sim, i, &m) != AIW_OK || aiw_sim_metric(sim, m, &v) != AIW_OK)
			continue;
		double scale = prom_generic(m, name, sizeof name, labels, sizeof labels);
		split_name p;
		split_full(m, &p);
		snprintf(fam_help, sizeof fam_help,
		         "libaiworkload summary metric %s%s%s at the end of the run%s", p.kind,
		         p.comp[0] ? ".NAME." : ".", p.key, scale != 1.0 ? " (in base units)" : "");
		pset_add(&s, name, labels, "gauge", fam_help, v * scale);
		const aiwi_metric_def *md = aiwi_metric_def_find(aiwi_kind_find(p.kind), p.key);
		if (md && md->prom && p.comp[0]) {
			prom_labels(&p, false, md->prom_labels, labels, sizeof labels);
			pset_add(&s, md->prom, labels, md->prom_type, md->prom_help, v);
		}
	}
	/* the last point of the standard curves, under the operators' names */
	aiwi_recorder *r = aiwi_sim_recorder(sim);
	size_t ns = aiwi_rec_count(r), len = aiwi_rec_length(r);
	for (size_t i = 0; len && i < ns; i++) {
		split_name p;
		split_full(aiwi_rec_name(r, i), &p);
		const aiwi_curve_def *a = alias_of(&p);
		if (!a || a->promtest_only || a->prom_mode != AIWI_CURVE_GAUGE)
			continue;
		prom_labels(&p, a->comp_only, a->prom_labels, labels, sizeof labels);
		snprintf(fam_help, sizeof fam_help, "%s, over the last sample interval of the run",
		         a->prom_help);
		pset_add(&s, a->prom, labels, "gauge", fam_help, aiwi_rec_values(r, i)[len - 1]);
	}
	/* latency histograms of the inference fleets */
	for (size_t i = 0; i < aiwi_ncomps(sim); i++)
		prom_histograms(&s, aiwi_comp_at(sim, i));
	if (s.oom) {
		pset_free(&s);
		fclose(f);
		return aiwi_err(sim, AIW_ENOMEM, "aiw_sim_write_prometheus: out of memory");
	}
	if (s.n)
		qsort(s.e, s.n, sizeof *s.e, pentry_cmp);
	char seed[32] = "";
	aiw_sim_get(sim, "sim.seed", seed, sizeof seed);
	fprintf(f, "# HELP aiworkload_info libaiworkload run: library version and seed\n"
	           "# TYPE aiworkload_info gauge\n"
	           "aiworkload_info{version=\"%s\",seed=\"%s\"} 1\n",
	        aiw_version_string(), seed);
	for (size_t i = 0; i < s.n; i++) {
		pentry *e = &s.e[i];
		if (i == 0 || strcmp(e->family, s.e[i - 1].family) != 0) {
			fprintf(f, "# HELP %s ", e->family);
			help_text(f, e->help);
			fprintf(f, "\n# TYPE %s %s\n", e->family, e->type);
		}
		fputs(e->family, f);
		fputs(e->suffix, f);
		if (e->labels[0])
			fprintf(f, "{%s}", e->labels);
		fputc(' ', f);
		prom_num(f, e->value);
		fputc('\n', f);
	}
	pset_free(&s);
	return close_out(sim, f, path);
}

/* ======================================================================== */
/* promtool test rules input: every curve as an input series               */
/* ======================================================================== */
/* Prometheus duration text of a sample interval ("60s", "100ms"). */
static bool prom_duration(double s, char *buf, size_t len)
{
	double ms = s * 1e3;
	if (!(ms >= 1) || fabs(ms - nearbyint(ms)) > 1e-6 * ms || ms > 9e15)
		return false;
	long long v = (long long)nearbyint(ms);
	if (v % 1000 == 0)
		snprintf(buf, len, "%llds", v / 1000);
	else
		snprintf(buf, len, "%lldms", v);
	return true;
}

/* A run of `run` copies of the value text `cur`, in promtool's notation:
 * "axN" is N+1 copies of a, but "_xN" is N blanks. */
static void promtest_run(FILE *f, const char *cur, size_t run)
{
	if (run == 1)
		fprintf(f, " %s", cur);
	else if (cur[0] == '_')
		fprintf(f, " _x%zu", run);
	else if (run == 2)
		fprintf(f, " %s %s", cur, cur);
	else
		fprintf(f, " %sx%zu", cur, run - 1);
}

static void promtest_values(FILE *f, const double *v, size_t n, double scale, uint64_t skip)
{
	/* index 0 (time 0) has no point: a curve's first point ends one interval
	 * in; then blanks for the points a bounded sim.series_keep dropped, so
	 * that sample k is still the point at time k x interval */
	fputs("'_", f);
	if (skip)
		fprintf(f, " _x%llu", (unsigned long long)skip);
	char cur[40] = "", nxt[40];
	size_t run = 0;
	for (size_t i = 0; i < n; i++) {
		if (isnan(v[i]))
			memcpy(nxt, "_", 2);
		else
			snprintf(nxt, sizeof nxt, "%.10g", v[i] * scale);
		if (run && strcmp(cur, nxt) == 0) {
			run++;
			continue;
		}
		if (run)
			promtest_run(f, cur, run);
		memcpy(cur, nxt, sizeof cur);
		run = 1;
	}
	if (run)
		promtest_run(f, cur, run);
	fputs("'\n", f);
}

AIW_EXPORT aiw_status aiw_sim_write_promtest(aiw_sim *sim, const char *path,
                                             const char *rule_files)
{
	if (!sim)
		return AIW_EINVAL;
	if (!path)
		return aiwi_err(sim, AIW_EINVAL, "aiw_sim_write_promtest: path is NULL");
	aiwi_recorder *r = aiwi_sim_recorder(sim);
	size_t ns = aiwi_rec_count(r), len = aiwi_rec_length(r);
	if (len == 0)
		return aiwi_err(sim, AIW_ESTATE, "aiw_sim_write_promtest: no curves yet (run first)");
	double si = NAN;
	aiw_sim_get_double(sim, "sim.sample_interval", &si);
	char dur[48];
	if (!prom_duration(si, dur, sizeof dur))
		return aiwi_err(sim, AIW_ERANGE,
		                "aiw_sim_write_promtest: sim.sample_interval = %g s is not a whole "
		                "number of milliseconds (promtool's resolution)",
		                si);
	if (rule_files && strpbrk(rule_files, "'\n\r"))
		return aiwi_err(sim, AIW_EINVAL,
		                "aiw_sim_write_promtest: rule file names may not contain a single "
		                "quote or a line break");
	FILE *f = open_out(sim, path, "aiw_sim_write_promtest");
	if (!f)
		return AIW_EIO;
	char seed[32] = "";
	aiw_sim_get(sim, "sim.seed", seed, sizeof seed);
	double now = 0;
	aiw_sim_now(sim, &now);
	fprintf(f,
	        "# The curves of a libaiworkload %s run (seed %s, %.17g s simulated) as\n"
	        "# `promtool test rules` input series, one sample per %s: the point that\n"
	        "# averages the interval ending at time t is the sample at t.  Add\n"
	        "# alert_rule_test or promql_expr_test entries to the test below.\n",
	        aiw_version_string(), seed[0] ? seed : "0", now, dur);
	uint64_t dropped = aiwi_rec_dropped(r);
	double t0 = aiwi_rec_window_start(r);
	if (dropped)
		fprintf(f,
		        "# sim.series_keep kept the last %zu points of each curve: the %llu samples\n"
		        "# up to %.17g s were streamed out and are blank here, and the counters\n"
		        "# count from %.17g s.\n",
		        len, (unsigned long long)dropped, t0, t0);
	fputs("rule_files:", f);
	bool any = false;
	if (rule_files) {
		const char *p = rule_files;
		while (*p) {
			const char *c = strchr(p, ',');
			size_t l = c ? (size_t)(c - p) : strlen(p);
			while (l && (*p == ' ' || *p == '\t'))
				p++, l--;
			while (l && (p[l - 1] == ' ' || p[l - 1] == '\t'))
				l--;
			if (l) {
				fprintf(f, "\n  - '%.*s'", (int)l, p);
				any = true;
			}
			if (!c)
				break;
			p = c + 1;
		}
	}
	fprintf(f, "%s\nevaluation_interval: %s\ntests:\n  - interval: %s\n    input_series:\n",
	        any ? "" : " []", dur, dur);
	char name[352], labels[256];
	double *acc = malloc(len * sizeof *acc);
	if (!acc) {
		fclose(f);
		return aiwi_err(sim, AIW_ENOMEM, "aiw_sim_write_promtest: out of memory");
	}
	const double *t = aiwi_rec_times(r);
	size_t per_tick = 0, ticks = 0;
	const double *snap = aiwi_rec_hist_snapshots(r, &per_tick, &ticks);
	for (size_t i = 0; i < ns; i++) {
		split_name p;
		split_full(aiwi_rec_name(r, i), &p);
		const aiwi_curve_def *a = alias_of(&p);
		const double *v = aiwi_rec_values(r, i);
		double scale = 1.0;
		/* a recording rule's name ("component:...:p99") stands in for the
		 * rule when there are no histograms; with them, the rule computes it */
		if (a && ticks == len && strncmp(a->prom, "component:", 10) == 0)
			continue;
		if (a) {
			snprintf(name, sizeof name, "%s", a->prom);
			prom_labels(&p, a->comp_only, a->prom_labels, labels, sizeof labels);
			if (a->prom_mode == AIWI_CURVE_COUNTER_OF_RATE) {
				/* a rate curve is count / interval: summing rate x interval gives
				 * back the counts, the counter operators scrape */
				double sum = 0;
				for (size_t k = 0; k < len; k++) {
					double dt = t[k] - (k ? t[k - 1] : t0);
					if (isfinite(v[k]))
						sum += v[k] * dt;
					acc[k] = sum;
				}
				v = acc;
			}
		} else {
			scale = prom_generic(aiwi_rec_name(r, i), name, sizeof name, labels, sizeof labels);
		}
		fprintf(f, "      - series: '%s%s%s%s'\n        values: ", name, labels[0] ? "{" : "",
		        labels, labels[0] ? "}" : "");
		promtest_values(f, v, len, scale, dropped);
	}
	/* the latency histograms at every tick (sim.histogram_series), so
	 * that rules on histogram_quantile(...) see the day too */
	size_t off = 0;
	for (size_t i = 0; ticks == len && i < aiwi_ncomps(sim); i++) {
		aiwi_comp *c = aiwi_comp_at(sim, i);
		if (!c->kind->histograms || !c->kind->histogram)
			continue;
		for (const aiwi_hist_def *d = c->kind->histograms; d->key; d++, off += AIWI_NLE + 2) {
			for (size_t b = 0; b <= AIWI_NLE + 2; b++) {
				/* le buckets, +Inf (the count), _count, _sum */
				size_t col = b <= AIWI_NLE ? b : b - 1;
				for (size_t k = 0; k < len; k++)
					acc[k] = snap[k * per_tick + off + col];
				if (b <= AIWI_NLE)
					fprintf(f, "      - series: '%s_bucket{component=\"%s\",le=\"%s\"}'\n", d->prom,
					        c->name, b < AIWI_NLE ? LE_TEXT[b] : "+Inf");
				else
					fprintf(f, "      - series: '%s_%s{component=\"%s\"}'\n", d->prom,
					        b == AIWI_NLE + 1 ? "count" : "sum", c->name);
				fputs("        values: ", f);
				promtest_values(f, acc, len, 1.0, dropped);
			}
		}
	}
	free(acc);
	return close_out(sim, f, path);
}

/* ======================================================================== */
/* SVG chart: site power (IT, facility), power by component stacked,        */
/* utilisation, replicas.  Curves longer than the plot is wide are drawn    */
/* per pixel column: lines through each column's minimum and maximum (so    */
/* dips and peaks stay visible), stacked areas from each column's mean (so  */
/* the area still integrates to the energy).                                */
/* ======================================================================== */
enum { SVG_W = 1000, SVG_LEFT = 90, SVG_PLOT_W = 660, SVG_PANEL_H = 190, SVG_GAP = 78,
       SVG_TOP = 78, SVG_LEGEND_X = SVG_LEFT + SVG_PLOT_W + 24, SVG_LEGEND_MAX = 10 };

static const char *const PALETTE[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                      "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#7f7f7f"};
#define NPALETTE (sizeof PALETTE / sizeof *PALETTE)

static void xml_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&apos;", f); break;
		default:
			if ((unsigned char)*s >= 0x20 || *s == '\t' || *s == '\n')
				fputc(*s, f);
		}
	}
}

/* A "nice" step (1, 2, 2.5, 5 x 10^k) giving about `ticks` intervals. */
static double nice_step(double span, int ticks)
{
	if (!(span > 0) || !isfinite(span))
		return 1;
	double raw = span / ticks, mag = pow(10, floor(log10(raw))), n = raw / mag;
	return (n <= 1 ? 1 : n <= 2 ? 2 : n <= 2.5 ? 2.5 : n <= 5 ? 5 : 10) * mag;
}

typedef struct axis {
	double lo, hi;  /* data range shown */
	double step;    /* tick step, data units */
	double div;     /* display = data / div */
	const char *unit;
} axis;

/* The time axis from start (0, or where the kept points of a bounded
 * sim.series_keep begin) to end; its unit follows the span shown. */
static void time_axis(double start, double end, axis *a)
{
	static const double mins[] = {1, 2, 5, 10, 15, 20, 30, 60};
	static const double hours[] = {1, 2, 3, 4, 6, 8, 12, 24};
	static const double days[] = {1, 2, 5, 7, 10, 14, 15, 30, 60, 90, 180, 365};
	a->lo = start > 0 && start < end ? start : 0;
	a->hi = end > a->lo ? end : a->lo + 1;
	const double *c = NULL;
	size_t nc = 0;
	double w = a->hi - a->lo;
	if (w <= 180) {
		a->div = 1, a->unit = "s";
	} else if (w <= 3 * 3600.0) {
		a->div = 60, a->unit = "min", c = mins, nc = sizeof mins / sizeof *mins;
	} else if (w <= 4 * 86400.0) {
		a->div = 3600, a->unit = "h", c = hours, nc = sizeof hours / sizeof *hours;
	} else {
		a->div = 86400, a->unit = "days", c = days, nc = sizeof days / sizeof *days;
	}
	double span = w / a->div;
	a->step = nice_step(span, 8);
	for (size_t i = 0; i < nc; i++)
		if (span / c[i] <= 10) {
			a->step = c[i];
			break;
		}
	a->step *= a->div;
}

static void value_axis(double max, bool power, axis *a)
{
	if (!(max > 0) || !isfinite(max))
		max = 1;
	a->lo = 0;
	a->div = 1;
	a->unit = "";
	if (power) {
		static const struct { double d; const char *u; } P[] = {
			{1e9, "GW"}, {1e6, "MW"}, {1e3, "kW"}, {1, "W"}};
		for (size_t i = 0; i < 4; i++)
			if (max >= P[i].d || i == 3) {
				a->div = P[i].d, a->unit = P[i].u;
				break;
			}
	}
	a->step = nice_step(max / a->div, 5) * a->div;
	a->hi = ceil(max / a->step * (1 - 1e-12)) * a->step;
	if (a->hi < max)
		a->hi += a->step;
}

typedef struct panel {
	double y0;      /* top of the plot area */
	axis x, y;
	FILE *f;
} panel;

static double px(const panel *p, double t)
{
	return SVG_LEFT + (t - p->x.lo) / (p->x.hi - p->x.lo) * SVG_PLOT_W;
}

static double py(const panel *p, double v)
{
	double u = (v - p->y.lo) / (p->y.hi - p->y.lo);
	if (u < 0)
		u = 0;
	if (u > 1.02)
		u = 1.02;
	return p->y0 + SVG_PANEL_H - u * SVG_PANEL_H;
}

static void tick_label(FILE *f, double v)
{
	if (fabs(v - nearbyint(v)) < 1e-9 * (fabs(v) + 1))
		fprintf(f, "%.0f", nearbyint(v) + 0.0); /* + 0.0: -0 reads 0 */
	else
		fprintf(f, "%g", v);
}

static void panel_frame(panel *p, const char *title, const char *ylabel, bool percent)
{
	FILE *f = p->f;
	fprintf(f, "<g class=\"panel\">\n<text x=\"%d\" y=\"%.1f\" class=\"ptitle\">", SVG_LEFT,
	        p->y0 - 10);
	xml_text(f, title);
	fputs("</text>\n", f);
	/* grid and y ticks */
	for (double v = p->y.lo; v <= p->y.hi * (1 + 1e-9); v += p->y.step) {
		double y = py(p, v);
		fprintf(f, "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" class=\"grid\"/>\n",
		        SVG_LEFT, y, SVG_LEFT + SVG_PLOT_W, y);
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" class=\"ytick\">", SVG_LEFT - 6, y + 4);
		tick_label(f, percent ? v * 100 : v / p->y.div);
		fputs("</text>\n", f);
	}
	/* x ticks, at multiples of the step */
	for (double t = ceil(p->x.lo / p->x.step - 1e-9) * p->x.step; t <= p->x.hi * (1 + 1e-9);
	     t += p->x.step) {
		double x = px(p, t);
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" class=\"grid\"/>\n", x,
		        p->y0, x, p->y0 + SVG_PANEL_H);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" class=\"xtick\">", x, p->y0 + SVG_PANEL_H + 16);
		tick_label(f, t / p->x.div);
		fputs("</text>\n", f);
	}
	fprintf(f,
	        "<rect x=\"%d\" y=\"%.1f\" width=\"%d\" height=\"%d\" class=\"frame\"/>\n"
	        "<text x=\"%.1f\" y=\"%.1f\" class=\"xlabel\">time (%s)</text>\n"
	        "<text transform=\"translate(%d,%.1f) rotate(-90)\" class=\"ylabel\">",
	        SVG_LEFT, p->y0, SVG_PLOT_W, SVG_PANEL_H, SVG_LEFT + SVG_PLOT_W / 2.0,
	        p->y0 + SVG_PANEL_H + 34, p->x.unit, SVG_LEFT - 58, p->y0 + SVG_PANEL_H / 2.0);
	xml_text(f, ylabel);
	if (percent)
		fputs(" (%)", f);
	else if (p->y.unit[0])
		fprintf(f, " (%s)", p->y.unit);
	fputs("</text>\n", f);
}

static void legend_entry(panel *p, int k, int total, const char *color, const char *label,
                         bool dashed, bool area)
{
	FILE *f = p->f;
	if (k > SVG_LEGEND_MAX)
		return;
	double y = p->y0 + 8 + 17.0 * k;
	if (k == SVG_LEGEND_MAX) {
		fprintf(f, "<text x=\"%d\" y=\"%.1f\" class=\"legend\">and %d more</text>\n",
		        SVG_LEGEND_X + 26, y + 4, total - SVG_LEGEND_MAX);
		return;
	}
	if (area)
		fprintf(f, "<rect x=\"%d\" y=\"%.1f\" width=\"18\" height=\"10\" fill=\"%s\"/>\n",
		        SVG_LEGEND_X, y - 5, color);
	else
		fprintf(f,
		        "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"%s\" "
		        "stroke-width=\"2\"%s/>\n",
		        SVG_LEGEND_X, y, SVG_LEGEND_X + 18, y, color,
		        dashed ? " stroke-dasharray=\"5,3\"" : "");
	fprintf(f, "<text x=\"%d\" y=\"%.1f\" class=\"legend\">", SVG_LEGEND_X + 26, y + 4);
	xml_text(f, label);
	fputs("</text>\n", f);
}

/* A line through the points; with more points than pixel columns, a band
 * from each column's minimum to its maximum (so that a one-sample spike or
 * dip stays visible) under a line through the column means. */
static void draw_line(panel *p, const double *t, const double *v, size_t n, double mul,
                      const char *color, bool dashed)
{
	FILE *f = p->f;
	const char *dash = dashed ? " stroke-dasharray=\"5,3\"" : "";
	bool pen = false;
	if (n <= 2 * (size_t)SVG_PLOT_W) {
		fprintf(f, "<path fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"%s d=\"", color, dash);
		for (size_t i = 0; i < n; i++) {
			if (!isfinite(v[i])) {
				pen = false;
				continue;
			}
			fprintf(f, "%c%.1f %.1f", pen ? 'L' : 'M', px(p, t[i]), py(p, v[i] * mul));
			pen = true;
		}
		fputs("\"/>\n", f);
		return;
	}
	double x[SVG_PLOT_W], lo[SVG_PLOT_W], hi[SVG_PLOT_W], mean[SVG_PLOT_W];
	for (size_t c = 0; c < SVG_PLOT_W; c++) {
		size_t i0 = n * c / SVG_PLOT_W, i1 = n * (c + 1) / SVG_PLOT_W, k = 0;
		double a = INFINITY, b = -INFINITY, sum = 0;
		for (size_t i = i0; i < i1; i++) {
			if (!isfinite(v[i]))
				continue;
			a = fmin(a, v[i]);
			b = fmax(b, v[i]);
			sum += v[i];
			k++;
		}
		x[c] = px(p, 0.5 * (t[i0] + t[i1 - 1]));
		lo[c] = k ? py(p, a * mul) : NAN;
		hi[c] = k ? py(p, b * mul) : NAN;
		mean[c] = k ? py(p, sum / (double)k * mul) : NAN;
	}
	/* the band: one closed subpath per run of columns with data */
	fprintf(f, "<path class=\"band\" fill=\"%s\" fill-opacity=\"0.22\" stroke=\"none\" d=\"",
	        color);
	for (size_t c = 0; c < SVG_PLOT_W;) {
		if (isnan(lo[c])) {
			c++;
			continue;
		}
		size_t e = c;
		while (e < SVG_PLOT_W && !isnan(lo[e]))
			e++;
		for (size_t j = c; j < e; j++)
			fprintf(f, "%c%.1f %.1f", j == c ? 'M' : 'L', x[j], hi[j]);
		for (size_t j = e; j-- > c;)
			fprintf(f, "L%.1f %.1f", x[j], lo[j]);
		fputc('Z', f);
		c = e;
	}
	fprintf(f, "\"/>\n<path fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"%s d=\"", color,
	        dash);
	for (size_t c = 0; c < SVG_PLOT_W; c++) {
		if (isnan(mean[c])) {
			pen = false;
			continue;
		}
		fprintf(f, "%c%.1f %.1f", pen ? 'L' : 'M', x[c], mean[c]);
		pen = true;
	}
	fputs("\"/>\n", f);
}

typedef struct svg_comp {
	const char *label; /* prefix "training.pretrain" */
	int power, util, replicas;
	bool telemetry; /* util + 2, util + 3: kernel_busy, tensor_activity */
	bool base; /* a steady base load (AIWI_KIND_BASELOAD): stacked first */
} svg_comp;

static int svg_comp_cmp(const void *a, const void *b)
{
	const svg_comp *x = a, *y = b;
	if (x->base != y->base)
		return x->base ? -1 : 1;
	return x->power < y->power ? -1 : x->power > y->power;
}

AIW_EXPORT aiw_status aiw_sim_write_svg(aiw_sim *sim, const char *path, const char *title)
{
	if (!sim)
		return AIW_EINVAL;
	if (!path)
		return aiwi_err(sim, AIW_EINVAL, "aiw_sim_write_svg: path is NULL");
	aiwi_recorder *r = aiwi_sim_recorder(sim);
	size_t len = aiwi_rec_length(r);
	int it = aiwi_rec_find(r, "site.power_w"), fac = aiwi_rec_find(r, "site.facility_power_w");
	int sutil = aiwi_rec_find(r, "site.utilization");
	if (len == 0 || it < 0)
		return aiwi_err(sim, AIW_ESTATE, "aiw_sim_write_svg: no curves yet (run first)");
	size_t nc = aiwi_ncomps(sim), ncomp = 0, nrep = 0;
	svg_comp *comps = calloc(nc ? nc : 1, sizeof *comps);
	double *stack = NULL, *tm = NULL;
	size_t m = len > 2 * SVG_PLOT_W ? SVG_PLOT_W : len;
	stack = calloc((m + 1) * 2, sizeof *stack);
	tm = calloc(m + 1, sizeof *tm);
	if (!comps || !stack || !tm) {
		free(comps);
		free(stack);
		free(tm);
		return aiwi_err(sim, AIW_ENOMEM, "aiw_sim_write_svg: out of memory");
	}
	for (size_t i = 0; i < nc; i++) {
		aiwi_comp *c = aiwi_comp_at(sim, i);
		if (!c->accounted || c->series_base < 0)
			continue;
		svg_comp *s = &comps[ncomp++];
		s->label = c->prefix;
		s->power = c->series_base;
		s->util = c->series_base + 1;
		s->telemetry = aiwi_kind_is(c->kind, AIWI_KIND_TELEMETRY);
		s->replicas = -1;
		aiwi_answer rc;
		if (aiwi_comp_query(c, AIWI_Q_REPLICA_CURVE, &rc)) {
			char n[256];
			snprintf(n, sizeof n, "%s.%s", c->prefix, rc.text);
			s->replicas = aiwi_rec_find(r, n);
		}
		s->base = aiwi_kind_is(c->kind, AIWI_KIND_BASELOAD);
		nrep += s->replicas >= 0;
	}
	qsort(comps, ncomp, sizeof *comps, svg_comp_cmp);
	FILE *f = open_out(sim, path, "aiw_sim_write_svg");
	if (!f) {
		free(comps);
		free(stack);
		free(tm);
		return AIW_EIO;
	}
	const double *t = aiwi_rec_times(r);
	double end = t[len - 1], start = aiwi_rec_window_start(r);
	int npanels = 1 + (ncomp > 0) + (ncomp > 0 || sutil >= 0) + (nrep > 0);
	int height = SVG_TOP + npanels * (SVG_PANEL_H + SVG_GAP) + 10;
	fprintf(f,
	        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
	        "viewBox=\"0 0 %d %d\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" "
	        "font-size=\"12\">\n<title>",
	        SVG_W, height, SVG_W, height);
	char seed[32] = "", def_title[512];
	aiw_sim_get(sim, "sim.seed", seed, sizeof seed);
	if (!title || !*title) {
		size_t o = (size_t)snprintf(def_title, sizeof def_title, "libaiworkload run:");
		for (size_t i = 0; i < ncomp && o < sizeof def_title; i++)
			o += (size_t)snprintf(def_title + o, sizeof def_title - o, "%s %s", i ? "," : "",
			                      comps[i].label);
		if (ncomp == 0)
			snprintf(def_title + o, sizeof def_title - o, " site");
		title = def_title;
	}
	xml_text(f, title);
	fputs("</title>\n<style>\n"
	      ".title{font-size:18px;font-weight:bold}\n.sub{font-size:12px;fill:#444}\n"
	      ".ptitle{font-size:14px;font-weight:bold}\n"
	      ".grid{stroke:#e4e4e4;stroke-width:1}\n.frame{fill:none;stroke:#555;stroke-width:1}\n"
	      ".ytick{text-anchor:end;fill:#333}\n.xtick{text-anchor:middle;fill:#333}\n"
	      ".xlabel{text-anchor:middle;fill:#222}\n.ylabel{text-anchor:middle;fill:#222}\n"
	      ".legend{fill:#222}\n</style>\n"
	      "<rect width=\"100%\" height=\"100%\" fill=\"#ffffff\"/>\n",
	      f);
	fprintf(f, "<text x=\"%d\" y=\"28\" class=\"title\">", SVG_LEFT);
	xml_text(f, title);
	double peak = NAN, div = NAN;
	aiw_sim_metric(sim, "site.power_peak_w", &peak);
	aiw_sim_metric(sim, "site.diversity_factor", &div);
	axis ta, whole;
	time_axis(start, end, &ta);
	time_axis(0, end, &whole);
	fprintf(f, "</text>\n<text x=\"%d\" y=\"48\" class=\"sub\">libaiworkload %s, seed %s, %g %s "
	           "simulated, one point per %g s",
	        SVG_LEFT, aiw_version_string(), seed, end / whole.div, whole.unit,
	        len > 1 ? t[1] - t[0] : t[0] - start);
	if (start > 0)
		fprintf(f, ", the last %zu points (sim.series_keep; from %g %s)", len,
		        start / ta.div, ta.unit);
	if (isfinite(peak)) {
		axis pa;
		value_axis(peak, true, &pa);
		fprintf(f, ", IT peak %.4g %s", peak / pa.div, pa.unit);
	}
	if (isfinite(div))
		fprintf(f, ", diversity factor %.3f", div);
	fputs("</text>\n", f);

	panel p = {.f = f, .x = ta};
	int k = 0;
	/* 1: site power */
	{
		const double *vi = aiwi_rec_values(r, (size_t)it);
		const double *vf = fac >= 0 ? aiwi_rec_values(r, (size_t)fac) : NULL;
		double mx = 0;
		for (size_t i = 0; i < len; i++) {
			if (vi[i] > mx)
				mx = vi[i];
			if (vf && vf[i] > mx)
				mx = vf[i];
		}
		value_axis(mx, true, &p.y);
		p.y0 = SVG_TOP + 20 + k++ * (SVG_PANEL_H + SVG_GAP);
		panel_frame(&p, "Site power: IT and facility (IT x PUE)", "power", false);
		if (vf)
			draw_line(&p, t, vf, len, 1, "#888888", true);
		draw_line(&p, t, vi, len, 1, "#222222", false);
		legend_entry(&p, 0, 2, "#222222", "IT power", false, false);
		if (vf)
			legend_entry(&p, 1, 2, "#888888", "facility power", true, false);
		fputs("</g>\n", f);
	}
	/* 2: power by component, stacked (training at the bottom) */
	if (ncomp > 0) {
		/* column means: stack[j] lower, stack[m+1+j] upper */
		double mx = 0;
		double *lo = stack, *hi = stack + m + 1;
		for (size_t j = 0; j < m; j++)
			lo[j] = 0;
		for (size_t j = 0; j < m; j++)
			tm[j] = t[len * (j + 1) / m - 1];
		/* first pass for the maximum of the total */
		for (size_t j = 0; j < m; j++) {
			size_t i0 = len * j / m, i1 = len * (j + 1) / m;
			double sum = 0;
			for (size_t c = 0; c < ncomp; c++) {
				const double *v = aiwi_rec_values(r, (size_t)comps[c].power);
				double a = 0;
				for (size_t i = i0; i < i1; i++)
					a += isfinite(v[i]) ? v[i] : 0;
				sum += a / (double)(i1 - i0);
			}
			if (sum > mx)
				mx = sum;
		}
		value_axis(mx, true, &p.y);
		p.y0 = SVG_TOP + 20 + k++ * (SVG_PANEL_H + SVG_GAP);
		panel_frame(&p, "IT power by component (stacked)", "power", false);
		for (size_t c = 0; c < ncomp; c++) {
			const double *v = aiwi_rec_values(r, (size_t)comps[c].power);
			for (size_t j = 0; j < m; j++) {
				size_t i0 = len * j / m, i1 = len * (j + 1) / m;
				double a = 0;
				for (size_t i = i0; i < i1; i++)
					a += isfinite(v[i]) ? v[i] : 0;
				hi[j] = lo[j] + a / (double)(i1 - i0);
			}
			const char *col = PALETTE[c % NPALETTE];
			fprintf(f, "<path fill=\"%s\" fill-opacity=\"0.85\" stroke=\"%s\" "
			           "stroke-width=\"0.5\" d=\"M%.1f %.1f",
			        col, col, px(&p, start), py(&p, lo[0]));
			fprintf(f, "L%.1f %.1f", px(&p, start), py(&p, hi[0]));
			for (size_t j = 0; j < m; j++)
				fprintf(f, "L%.1f %.1f", px(&p, tm[j]), py(&p, hi[j]));
			for (size_t j = m; j-- > 0;)
				fprintf(f, "L%.1f %.1f", px(&p, tm[j]), py(&p, lo[j]));
			fputs("Z\"/>\n", f);
			legend_entry(&p, (int)c, (int)ncomp, col, comps[c].label, false, true);
			memcpy(lo, hi, m * sizeof *lo);
		}
		fputs("</g>\n", f);
	}
	/* 3: utilisation */
	if (ncomp > 0 || sutil >= 0) {
		p.y = (axis){.lo = 0, .hi = 1, .step = 0.2, .div = 1, .unit = ""};
		p.y0 = SVG_TOP + 20 + k++ * (SVG_PANEL_H + SVG_GAP);
		/* per component: kernel-busy time (nvidia-smi) solid, tensor
		 * activity (FLOPs / peak, DCGM) dashed; a component without
		 * them (a scripted load) its busy time; the site's useful-work
		 * line only when no component has the telemetry figures */
		size_t ntel = 0;
		for (size_t c = 0; c < ncomp; c++)
			ntel += comps[c].telemetry;
		if (ntel)
			sutil = -1;
		panel_frame(&p,
		            ntel ? "GPU utilisation: kernel-busy as nvidia-smi (solid), tensor "
		                   "activity as DCGM (dashed)"
		                 : "GPU utilisation (busy / provisioned GPU-seconds)",
		            "utilisation", true);
		int e = 0, total = (int)(ncomp + ntel) + (sutil >= 0);
		for (size_t c = 0; c < ncomp; c++) {
			const char *col = PALETTE[c % NPALETTE];
			char lab[300];
			if (!comps[c].telemetry) {
				draw_line(&p, t, aiwi_rec_values(r, (size_t)comps[c].util), len, 1, col,
				          false);
				legend_entry(&p, e++, total, col, comps[c].label, false, false);
				continue;
			}
			draw_line(&p, t, aiwi_rec_values(r, (size_t)comps[c].util + 2), len, 1, col,
			          false);
			snprintf(lab, sizeof lab, "%s kernel-busy", comps[c].label);
			legend_entry(&p, e++, total, col, lab, false, false);
			draw_line(&p, t, aiwi_rec_values(r, (size_t)comps[c].util + 3), len, 1, col,
			          true);
			snprintf(lab, sizeof lab, "%s tensor", comps[c].label);
			legend_entry(&p, e++, total, col, lab, true, false);
		}
		if (sutil >= 0) {
			draw_line(&p, t, aiwi_rec_values(r, (size_t)sutil), len, 1, "#222222", true);
			legend_entry(&p, e++, total, "#222222", "site", true, false);
		}
		fputs("</g>\n", f);
	}
	/* 4: replicas */
	if (nrep > 0) {
		double mx = 0;
		for (size_t c = 0; c < ncomp; c++) {
			if (comps[c].replicas < 0)
				continue;
			const double *v = aiwi_rec_values(r, (size_t)comps[c].replicas);
			for (size_t i = 0; i < len; i++)
				if (v[i] > mx)
					mx = v[i];
		}
		value_axis(mx, false, &p.y);
		if (p.y.step < 1) {
			p.y.step = 1;
			p.y.hi = ceil(p.y.hi);
		}
		p.y0 = SVG_TOP + 20 + k++ * (SVG_PANEL_H + SVG_GAP);
		panel_frame(&p, "Inference replicas", "replicas", false);
		int e = 0;
		for (size_t c = 0; c < ncomp; c++) {
			if (comps[c].replicas < 0)
				continue;
			const char *col = PALETTE[c % NPALETTE];
			draw_line(&p, t, aiwi_rec_values(r, (size_t)comps[c].replicas), len, 1, col, false);
			legend_entry(&p, e++, (int)nrep, col, comps[c].label, false, false);
		}
		fputs("</g>\n", f);
	}
	fputs("</svg>\n", f);
	free(comps);
	free(stack);
	free(tm);
	return close_out(sim, f, path);
}

/* ======================================================================== */
/* OpenMetrics: every curve and the latency histograms as timestamped       */
/* series, for `promtool tsdb create-blocks-from openmetrics`               */
/* ======================================================================== */
typedef struct om_entry {
	char family[352], labels[256];
	const char *type; /* "gauge", "counter", "histogram" */
	bool of_rate;     /* a rate curve integrated into its counter */
	const char *help;
	size_t curve;     /* curves: the recorder's index */
	double scale;
	size_t snap;      /* histograms: offset of the family in a tick's snapshot */
	size_t order;
} om_entry;

static int om_cmp(const void *a, const void *b)
{
	const om_entry *x = a, *y = b;
	int c = strcmp(x->family, y->family);
	if (c)
		return c;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* " SECONDS.MMM\n": milliseconds, Prometheus' resolution, written exactly */
static void om_ts_text(char *buf, size_t len, double start, double t)
{
	long long ms = (long long)llround((start + t) * 1e3);
	snprintf(buf, len, " %lld.%03lld\n", ms / 1000, ms % 1000);
}

static void om_ts(FILE *f, double start, double t)
{
	char buf[48];
	om_ts_text(buf, sizeof buf, start, t);
	fputs(buf, f);
}

/* a count (a whole number below 2^53), without printf */
static void om_count(FILE *f, double x)
{
	if (!(x >= 0 && x < 9007199254740992.0)) {
		fprintf(f, " %.17g", x);
		return;
	}
	char buf[24], *p = buf + sizeof buf;
	unsigned long long v = (unsigned long long)x;
	*--p = 0;
	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	*--p = ' ';
	fputs(p, f);
}

static void om_labels(FILE *f, const char *labels, const char *extra)
{
	if (!labels[0] && !extra)
		return;
	fprintf(f, "{%s%s%s}", labels, labels[0] && extra ? "," : "", extra ? extra : "");
}

AIW_EXPORT aiw_status aiw_sim_write_openmetrics(aiw_sim *sim, const char *path, double start)
{
	if (!sim)
		return AIW_EINVAL;
	if (!path)
		return aiwi_err(sim, AIW_EINVAL, "aiw_sim_write_openmetrics: path is NULL");
	if (!path[0])
		return aiwi_err(sim, AIW_EINVAL, "aiw_sim_write_openmetrics: path is empty");
	if (!(start >= 0 && start < 1e11))
		return aiwi_err(sim, AIW_ERANGE,
		                "aiw_sim_write_openmetrics: start = %g is outside [0, 1e11) (the Unix "
		                "time of simulated time 0, in seconds)",
		                start);
	aiwi_recorder *r = aiwi_sim_recorder(sim);
	size_t ns = aiwi_rec_count(r), len = aiwi_rec_length(r);
	if (len == 0)
		return aiwi_err(sim, AIW_ESTATE, "aiw_sim_write_openmetrics: no curves yet (run first)");
	size_t per_tick = 0, ticks = 0;
	const double *snap = aiwi_rec_hist_snapshots(r, &per_tick, &ticks);
	size_t nh = 0;
	for (size_t i = 0; ticks && i < aiwi_ncomps(sim); i++) {
		aiwi_comp *c = aiwi_comp_at(sim, i);
		if (c->kind->histograms && c->kind->histogram)
			for (const aiwi_hist_def *d = c->kind->histograms; d->key; d++)
				nh++;
	}
	om_entry *e = calloc(ns + nh + 1, sizeof *e);
	double *acc = malloc(len * sizeof *acc);
	if (!e || !acc) {
		free(e);
		free(acc);
		return aiwi_err(sim, AIW_ENOMEM, "aiw_sim_write_openmetrics: out of memory");
	}
	size_t n = 0;
	char name[352];
	for (size_t i = 0; i < ns; i++, n++) {
		split_name p;
		split_full(aiwi_rec_name(r, i), &p);
		const aiwi_curve_def *a = alias_of(&p);
		om_entry *x = &e[n];
		x->curve = i;
		x->order = n;
		x->scale = 1.0;
		if (a) {
			snprintf(name, sizeof name, "%s", a->prom);
			prom_labels(&p, a->comp_only, a->prom_labels, x->labels, sizeof x->labels);
			x->help = a->prom_help ? a->prom_help : "";
			x->type = a->prom_mode != AIWI_CURVE_GAUGE ? "counter" : "gauge";
			x->of_rate = a->prom_mode == AIWI_CURVE_COUNTER_OF_RATE;
		} else {
			x->scale = prom_generic(aiwi_rec_name(r, i), name, sizeof name, x->labels,
			                        sizeof x->labels);
			x->help = "a libaiworkload curve, interval averages in base units";
			x->type = "gauge";
		}
		size_t l = strlen(name);
		if (!strcmp(x->type, "counter") && l > 6 && !strcmp(name + l - 6, "_total"))
			name[l - 6] = 0; /* the family; its samples are FAMILY_total */
		snprintf(x->family, sizeof x->family, "%s", name);
	}
	size_t off = 0;
	for (size_t i = 0; ticks && i < aiwi_ncomps(sim); i++) {
		aiwi_comp *c = aiwi_comp_at(sim, i);
		if (!c->kind->histograms || !c->kind->histogram)
			continue;
		for (const aiwi_hist_def *d = c->kind->histograms; d->key; d++, n++) {
			om_entry *x = &e[n];
			snprintf(x->family, sizeof x->family, "%s", d->prom);
			snprintf(x->labels, sizeof x->labels, "component=\"%s\"", c->name);
			x->type = "histogram";
			x->help = d->help;
			x->snap = off;
			x->order = n;
			off += AIWI_NLE + 2;
		}
	}
	qsort(e, n, sizeof *e, om_cmp);
	FILE *f = open_out(sim, path, "aiw_sim_write_openmetrics");
	if (!f) {
		free(e);
		free(acc);
		return AIW_EIO;
	}
	char seed[32] = "";
	aiw_sim_get(sim, "sim.seed", seed, sizeof seed);
	const double *t = aiwi_rec_times(r);
	double t0 = aiwi_rec_window_start(r);
	fprintf(f, "# TYPE aiworkload info\n# HELP aiworkload libaiworkload run: library version "
	           "and seed\naiworkload_info{version=\"%s\",seed=\"%s\"} 1",
	        aiw_version_string(), seed[0] ? seed : "0");
	om_ts(f, start, t0);
	for (size_t j = 0; j < n; j++) {
		om_entry *x = &e[j];
		if (j == 0 || strcmp(x->family, e[j - 1].family) != 0) {
			fprintf(f, "# TYPE %s %s\n# HELP %s ", x->family, x->type, x->family);
			help_text(f, x->help);
			fputc('\n', f);
		}
		if (!strcmp(x->type, "histogram")) {
			for (size_t k = 0; k < ticks; k++) {
				const double *s = snap + k * per_tick + x->snap;
				if (isnan(s[AIWI_NLE]))
					continue;
				char ts[48];
				om_ts_text(ts, sizeof ts, start, t[k]);
				for (size_t b = 0; b <= AIWI_NLE; b++) {
					fputs(x->family, f);
					fputs("_bucket{", f);
					fputs(x->labels, f);
					fputs(x->labels[0] ? ",le=\"" : "le=\"", f);
					fputs(b < AIWI_NLE ? LE_TEXT[b] : "+Inf", f);
					fputs("\"}", f);
					om_count(f, b < AIWI_NLE ? s[b] : s[AIWI_NLE]);
					fputs(ts, f);
				}
				fprintf(f, "%s_count", x->family);
				om_labels(f, x->labels, NULL);
				om_count(f, s[AIWI_NLE]);
				fputs(ts, f);
				fprintf(f, "%s_sum", x->family);
				om_labels(f, x->labels, NULL);
				fprintf(f, " %.17g", s[AIWI_NLE + 1]);
				fputs(ts, f);
			}
			continue;
		}
		const double *v = aiwi_rec_values(r, x->curve);
		bool counter = !strcmp(x->type, "counter");
		if (x->of_rate) { /* rate x interval summed: the counts, from 0 at the window's start */
			double sum = 0;
			for (size_t k = 0; k < len; k++) {
				double dt = t[k] - (k ? t[k - 1] : t0);
				if (isfinite(v[k]))
					sum += v[k] * dt;
				acc[k] = sum;
			}
			v = acc;
		}
		for (size_t k = 0; k < len; k++) {
			if (!isfinite(v[k]))
				continue;
			fprintf(f, "%s%s", x->family, counter ? "_total" : "");
			om_labels(f, x->labels, NULL);
			fputc(' ', f);
			fprintf(f, "%.17g", v[k] * x->scale);
			om_ts(f, start, t[k]);
		}
	}
	fputs("# EOF\n", f);
	free(e);
	free(acc);
	return close_out(sim, f, path);
}
