/*
 * catalog.c - the metric and curve catalogues (aiw_metric_count,
 * aiw_metric_info, aiw_curve_count, aiw_curve_info): every summary metric
 * and every curve the kinds can publish, read from their tables
 * (aiwi_kind.metrics, .curves, and the standard curves of the components
 * that take part in the accounting) without a simulation; and the
 * Prometheus form of a metric key (aiwi_prom_key), which the exposition
 * (export.c) uses too.
 */
#include "core/internal.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Keys are spelled with their units: prom_key rewrites each abbreviated
 * unit as the Prometheus base unit (naming guide, prometheus.io/docs/
 * practices/naming) and returns the factor to it. */
/* Abbreviated units in metric keys and their Prometheus base units. */
static const struct unit_word {
	const char *abbr, *base, *per; /* base after a number, per after "per" */
	double scale;                  /* value in base units = value x scale */
} UNIT_WORDS[] = {
	{"s", "seconds", "second", 1},        {"ms", "seconds", "second", 1e-3},
	{"us", "seconds", "second", 1e-6},    {"min", "seconds", "second", 60},
	{"h", "seconds", "second", 3600},     {"hours", "seconds", "second", 3600},
	{"days", "seconds", "second", 86400}, {"w", "watts", "watt", 1},
	{"kw", "watts", "watt", 1e3},         {"j", "joules", "joule", 1},
	{"wh", "joules", "joule", 3600},      {"kwh", "joules", "joule", 3.6e6},
	{"mwh", "joules", "joule", 3.6e9},    {"b", "bytes", "byte", 1},
	{"kb", "bytes", "byte", 1e3},         {"mb", "bytes", "byte", 1e6},
	{"gb", "bytes", "byte", 1e9},         {"tb", "bytes", "byte", 1e12},
};

/* Prometheus form of a metric key into out; returns the factor that turns
 * the library's value into the exported one. */
double aiwi_prom_key(const char *key, char *out, size_t len)
{
	char buf[256];
	size_t n = 0;
	for (const char *s = key; *s && n + 1 < sizeof buf; s++) {
		char c = *s;
		if (c >= 'A' && c <= 'Z')
			c = (char)(c - 'A' + 'a');
		buf[n++] = ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) ? c : '_';
	}
	buf[n] = 0;
	double scale = 1.0;
	size_t o = 0;
	bool per = false;
	out[0] = 0;
	char *save = NULL;
	for (char *tok = strtok_r(buf, "_", &save); tok; tok = strtok_r(NULL, "_", &save)) {
		const char *rep = tok;
		for (size_t i = 0; i < sizeof UNIT_WORDS / sizeof *UNIT_WORDS; i++)
			if (strcmp(tok, UNIT_WORDS[i].abbr) == 0) {
				rep = per ? UNIT_WORDS[i].per : UNIT_WORDS[i].base;
				scale = per ? scale / UNIT_WORDS[i].scale : scale * UNIT_WORDS[i].scale;
				break;
			}
		per = strcmp(tok, "per") == 0;
		int w = snprintf(out + o, len - o, "%s%s", o ? "_" : "", rep);
		if (w < 0 || (size_t)w >= len - o)
			break;
		o += (size_t)w;
	}
	/* suffixes the exposition format reserves for counters and histograms */
	static const char *const reserved[] = {"_total", "_count", "_sum", "_bucket"};
	for (size_t i = 0; i < 4; i++) {
		size_t rl = strlen(reserved[i]);
		if (o >= rl && strcmp(out + o - rl, reserved[i]) == 0 && o + 7 < len) {
			strcat(out, "_value");
			break;
		}
	}
	return scale;
}

/* ------------------------------------------------------------------------ */
/* the catalogue, built once from the kinds' tables                         */
/* ------------------------------------------------------------------------ */
typedef struct entry {
	char name[160]; /* "training.NAME.goodput", "site.power_peak_w" */
	char prom[240]; /* the operator family, or the generic one */
	const aiwi_metric_def *def;
} entry;

static entry *catalog;
static size_t ncatalog;
static pthread_once_t catalog_once = PTHREAD_ONCE_INIT;

static void catalog_build(void)
{
	size_t n = 0;
	for (size_t k = 0; aiwi_kinds[k]; k++)
		n += aiwi_kind_metric_count(aiwi_kinds[k]);
	entry *e = calloc(n ? n : 1, sizeof *e);
	if (!e)
		return; /* aiw_metric_count reports ENOMEM */
	size_t o = 0;
	for (size_t k = 0; aiwi_kinds[k]; k++) {
		const aiwi_kind *kd = aiwi_kinds[k];
		for (size_t i = 0; kd->metrics && kd->metrics[i].key; i++, o++) {
			const aiwi_metric_def *d = &kd->metrics[i];
			snprintf(e[o].name, sizeof e[o].name, "%s%s.%s", kd->name,
			         aiwi_kind_is(kd, AIWI_KIND_SINGLETON) ? "" : ".NAME", d->key);
			if (d->prom) {
				snprintf(e[o].prom, sizeof e[o].prom, "%s", d->prom);
			} else {
				char key[200];
				aiwi_prom_key(d->key, key, sizeof key);
				snprintf(e[o].prom, sizeof e[o].prom, "aiworkload_%s_%s", kd->name, key);
			}
			e[o].def = d;
		}
	}
	catalog = e;
	ncatalog = n;
}

AIW_EXPORT aiw_status aiw_metric_count(size_t *out)
{
	if (!out)
		return AIW_EINVAL;
	pthread_once(&catalog_once, catalog_build);
	if (!catalog)
		return AIW_ENOMEM;
	*out = ncatalog;
	return AIW_OK;
}

AIW_EXPORT aiw_status aiw_metric_info(size_t i, const char **name, const char **label,
                                      const char **unit, const char **doc, const char **prom,
                                      const char **prom_type, unsigned *flags)
{
	pthread_once(&catalog_once, catalog_build);
	if (!catalog)
		return AIW_ENOMEM;
	if (i >= ncatalog)
		return AIW_ERANGE;
	const entry *e = &catalog[i];
	if (name)
		*name = e->name;
	if (label)
		*label = e->def->label;
	if (unit)
		*unit = e->def->unit;
	if (doc)
		*doc = e->def->doc;
	if (prom)
		*prom = e->prom;
	if (prom_type)
		*prom_type = e->def->prom_type ? e->def->prom_type : "gauge";
	if (flags)
		*flags = e->def->flags;
	return AIW_OK;
}

/* ------------------------------------------------------------------------ */
/* the curve catalogue                                                      */
/* ------------------------------------------------------------------------ */
typedef struct curve_entry {
	char name[160]; /* "inference.NAME.queue_length", "site.power_w" */
	const aiwi_curve_def *def;
} curve_entry;

static curve_entry *curves;
static size_t ncurves;
static pthread_once_t curves_once = PTHREAD_ONCE_INIT;

/* A kind's components take part in the accounting (and have the standard
 * curves) when the kind says so (AIWI_KIND_ACCOUNTED, as the recorder reads
 * it in series.c). */
static bool accounted_kind(const aiwi_kind *k)
{
	return aiwi_kind_is(k, AIWI_KIND_ACCOUNTED);
}

static size_t rows(const aiwi_curve_def *d)
{
	size_t n = 0;
	while (d && d[n].key)
		n++;
	return n;
}

static void curves_build(void)
{
	size_t n = 0;
	for (size_t k = 0; aiwi_kinds[k]; k++)
		n += rows(aiwi_kinds[k]->curves) +
		     (accounted_kind(aiwi_kinds[k]) ? rows(aiwi_component_curves) : 0);
	curve_entry *e = calloc(n ? n : 1, sizeof *e);
	if (!e)
		return; /* aiw_curve_count reports ENOMEM */
	size_t o = 0;
	for (size_t k = 0; aiwi_kinds[k]; k++) {
		const aiwi_kind *kd = aiwi_kinds[k];
		for (int part = 0; part < 2; part++) {
			const aiwi_curve_def *d = part == 0 ? (accounted_kind(kd) ? aiwi_component_curves
			                                                          : NULL)
			                                    : kd->curves;
			for (size_t i = 0; d && d[i].key; i++, o++) {
				snprintf(e[o].name, sizeof e[o].name, "%s%s.%s", kd->name,
				         aiwi_kind_is(kd, AIWI_KIND_SINGLETON) ? "" : ".NAME", d[i].key);
				e[o].def = &d[i];
			}
		}
	}
	curves = e;
	ncurves = n;
}

AIW_EXPORT aiw_status aiw_curve_count(size_t *out)
{
	if (!out)
		return AIW_EINVAL;
	pthread_once(&curves_once, curves_build);
	if (!curves)
		return AIW_ENOMEM;
	*out = ncurves;
	return AIW_OK;
}

AIW_EXPORT aiw_status aiw_curve_info(size_t i, const char **name, const char **unit,
                                     const char **doc)
{
	pthread_once(&curves_once, curves_build);
	if (!curves)
		return AIW_ENOMEM;
	if (i >= ncurves)
		return AIW_ERANGE;
	const curve_entry *e = &curves[i];
	if (name)
		*name = e->name;
	if (unit)
		*unit = e->def->unit;
	if (doc)
		*doc = e->def->prom_help ? e->def->prom_help : "";
	return AIW_OK;
}
