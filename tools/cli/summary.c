/*
 * summary.c - the summary table of `aiworkload run` and the metric
 * descriptions it and aiworkload-params(7) show, read from the library's
 * metric catalogue (aiw_metric_info).
 */
#include "common.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* value with an SI prefix: 12.3 MW, 4.56 kWh */
static void fmt_si(char *buf, size_t len, double x, const char *unit)
{
	static const struct {
		double f;
		const char *p;
	} P[] = {{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}, {1, ""}, {1e-3, "m"}};
	double a = fabs(x);
	for (size_t i = 0; i < sizeof P / sizeof *P; i++)
		if (a >= P[i].f || i + 1 == sizeof P / sizeof *P) {
			if (a == 0)
				i = 4;
			snprintf(buf, len, "%.4g %s%s", x / P[i].f, P[i].p, unit);
			return;
		}
}

static void fmt_money(char *buf, size_t len, double x)
{
	if (fabs(x) >= 100)
		cli_fmt_group(buf + 1, len - 1, x, 0);
	else
		snprintf(buf + 1, len - 1, "%.4g", x);
	buf[0] = '$';
}

/* ======================================================================== */
/* metric descriptions: the summary table's labels and the man7 table       */
/* ======================================================================== */
typedef enum fmt_kind {
	F_AUTO,    /* from the name's unit suffix */
	F_POWER,   /* W */
	F_ENERGY,  /* kWh */
	F_MONEY,   /* USD */
	F_PCT,     /* fraction shown as % */
	F_RATIO,   /* plain ratio */
	F_TIME,    /* s */
	F_COUNT,   /* integer count */
	F_RATE,    /* 1/s */
	F_BYTES,   /* B */
	F_BYTES_RATE, /* B/s */
	F_POWER_RATE, /* W/s */
	F_MASS,    /* kg (t from 1,000 kg) */
	F_PRICE_KWH, /* USD/kWh */
	F_INTENSITY, /* g/kWh */
	F_PLAIN
} fmt_kind;

/* The display of a catalogued metric (aiw_metric_info): by its unit, and
 * for dimensionless ones by its flags. */
static fmt_kind fmt_of(const char *unit, unsigned flags)
{
	static const struct {
		const char *unit;
		fmt_kind fmt;
	} U[] = {{"W", F_POWER}, {"kWh", F_ENERGY}, {"USD", F_MONEY}, {"s", F_TIME},
	         {"1/s", F_RATE}, {"B", F_BYTES},   {"B/s", F_BYTES_RATE},
	         {"W/s", F_POWER_RATE}, {"kg", F_MASS}, {"USD/kWh", F_PRICE_KWH},
	         {"g/kWh", F_INTENSITY}};
	for (size_t i = 0; i < sizeof U / sizeof *U; i++)
		if (strcmp(unit, U[i].unit) == 0)
			return U[i].fmt;
	if (flags & AIW_METRIC_FRACTION)
		return F_PCT;
	if (flags & AIW_METRIC_RATIO)
		return F_RATIO;
	if (flags & AIW_METRIC_COUNT)
		return F_COUNT;
	return F_PLAIN;
}

/* Row i of the catalogue split: its kind and key ("training.NAME.goodput"
 * -> "training", "goodput"); false past the end. */
static bool catalog_row(size_t i, char *kind, size_t kl, const char **key, const char **label,
                        fmt_kind *fmt, unsigned *flags, const char **doc)
{
	const char *name, *unit;
	if (aiw_metric_info(i, &name, label, &unit, doc, NULL, NULL, flags) != AIW_OK)
		return false;
	const char *d1 = strchr(name, '.');
	snprintf(kind, kl, "%.*s", (int)(d1 - name), name);
	const char *k = strrchr(name, '.');
	*key = k + 1;
	*fmt = fmt_of(unit, *flags);
	return true;
}

const char *cli_metric_doc(const char *kind, const char *key)
{
	char k[64];
	const char *kk, *label, *doc;
	fmt_kind f;
	unsigned fl;
	for (size_t i = 0; catalog_row(i, k, sizeof k, &kk, &label, &f, &fl, &doc); i++)
		if (strcmp(k, kind) == 0 && strcmp(kk, key) == 0)
			return doc;
	return NULL;
}

static fmt_kind fmt_from_name(const char *key)
{
	if (cli_ends_with(key, "_w"))
		return F_POWER;
	if (cli_ends_with(key, "_kwh"))
		return F_ENERGY;
	if (cli_ends_with(key, "_usd"))
		return F_MONEY;
	if (cli_ends_with(key, "_bytes_per_s"))
		return F_BYTES_RATE;
	if (cli_ends_with(key, "_w_per_s"))
		return F_POWER_RATE;
	if (cli_ends_with(key, "_bytes"))
		return F_BYTES;
	if (cli_ends_with(key, "_per_s") || cli_ends_with(key, "_rps"))
		return F_RATE;
	if (cli_ends_with(key, "_s"))
		return F_TIME;
	if (cli_ends_with(key, "_ratio") || cli_ends_with(key, "attainment") || cli_ends_with(key, "goodput") ||
	    cli_ends_with(key, "utilization") || cli_ends_with(key, "efficiency") || cli_ends_with(key, "fraction") ||
	    cli_ends_with(key, "kernel_busy") || cli_ends_with(key, "activity"))
		return F_PCT;
	return F_PLAIN;
}

static void fmt_value(char *buf, size_t len, double v, fmt_kind k)
{
	if (isnan(v)) {
		snprintf(buf, len, "n/a");
		return;
	}
	if (isinf(v)) {
		snprintf(buf, len, "%s", v > 0 ? "inf" : "-inf");
		return;
	}
	switch (k) {
	case F_POWER: fmt_si(buf, len, v, "W"); break;
	case F_ENERGY: fmt_si(buf, len, v * 1e3, "Wh"); break;
	case F_MONEY: fmt_money(buf, len, v); break;
	case F_PCT: snprintf(buf, len, "%.3g %%", v * 100); break;
	case F_RATIO: snprintf(buf, len, "%.3f", v); break;
	case F_TIME: cli_fmt_duration(buf, len, v); break;
	case F_COUNT:
		if (fabs(v) >= 1e10)
			snprintf(buf, len, "%.4g", v);
		else
			cli_fmt_group(buf, len, v, 0);
		break;
	case F_RATE: snprintf(buf, len, "%.4g /s", v); break;
	case F_BYTES: fmt_si(buf, len, v, "B"); break;
	case F_BYTES_RATE: fmt_si(buf, len, v, "B/s"); break;
	case F_POWER_RATE: fmt_si(buf, len, v, "W/s"); break;
	case F_MASS:
		if (fabs(v) >= 1000)
			snprintf(buf, len, "%.4g t", v / 1000);
		else
			snprintf(buf, len, "%.4g kg", v);
		break;
	case F_PRICE_KWH: snprintf(buf, len, "$%.4g/kWh", v); break;
	case F_INTENSITY: snprintf(buf, len, "%.4g g/kWh", v); break;
	default:
		if (v == floor(v) && fabs(v) < 1e15)
			cli_fmt_group(buf, len, v, 0);
		else
			snprintf(buf, len, "%.4g", v);
	}
}

/* Time average of a curve (NAN without points): from the stream's sums
 * when the run streamed its curves, else from the kept points. */
static double curve_mean(aiw_sim *sim, const char *name, const cli_stream *s)
{
	if (s && s->sum && !s->oom) {
		for (size_t i = 0; i < s->n; i++) {
			const char *c;
			if (aiw_sim_series_name(sim, i, &c) == AIW_OK && strcmp(c, name) == 0)
				return s->span[i] > 0 ? s->sum[i] / s->span[i] : NAN;
		}
		return NAN;
	}
	size_t n = 0;
	if (aiw_sim_series_length(sim, name, &n) != AIW_OK || n == 0)
		return NAN;
	double *t = malloc(n * sizeof *t), *v = malloc(n * sizeof *v);
	double sum = 0, span = 0;
	if (t && v && aiw_sim_series_copy(sim, name, t, v, n, &n) == AIW_OK) {
		for (size_t i = 0; i < n; i++) {
			double dt = t[i] - (i ? t[i - 1] : 0);
			if (isfinite(v[i])) {
				sum += v[i] * dt;
				span += dt;
			}
		}
	}
	free(t);
	free(v);
	return span > 0 ? sum / span : NAN;
}

static void print_row(const char *label, const char *value)
{
	printf("  %-38s %16s\n", label, value);
}

/* A parameter's text (malloc'd), whatever its length; NULL when unset or
 * unknown. */
static char *param_text(aiw_sim *sim, const char *name)
{
	for (size_t len = 64; len <= ((size_t)1 << 20); len *= 4) {
		char *buf = malloc(len);
		if (!buf)
			return NULL;
		aiw_status st = aiw_sim_get(sim, name, buf, len);
		if (st == AIW_OK)
			return buf;
		free(buf);
		if (st != AIW_EBUFFER)
			return NULL;
	}
	return NULL;
}

/* A component's parameter as text: "KIND.COMP.KEY", NULL when it has none
 * or it is empty. */
static char *comp_param(aiw_sim *sim, const char *kind, const char *comp, const char *key)
{
	size_t n = strlen(kind) + strlen(comp) + strlen(key) + 3;
	char *name = malloc(n), *v = NULL;
	if (name) {
		snprintf(name, n, "%s.%s.%s", kind, comp, key);
		v = param_text(sim, name);
		free(name);
	}
	if (v && !v[0]) {
		free(v);
		v = NULL;
	}
	return v;
}

/* The efficiencies of the built-in GPUs the components use that no
 * published measurement of that GPU backs (aiw_catalog_gpu_source says
 * "estimate"): the times depend on them, so a comparison of GPUs on them
 * compares assumptions.  A GPU that a [gpu NAME] section defines or
 * overrides is the user's and is not listed. */
static void print_estimates(aiw_sim *sim)
{
	static const char *const EFF[] = {"bf16_gemm_eff", "fp8_gemm_eff", "matmul_eff",
	                                  "fp8_matmul_eff", "attn_eff", "mem_bw_eff"};
	size_t nc = 0;
	aiw_sim_component_count(sim, &nc);
	bool header = false;
	for (size_t i = 0; i < nc; i++) {
		const char *kind, *name;
		if (aiw_sim_component(sim, i, &kind, &name) != AIW_OK || !name[0])
			continue;
		char *gpu = comp_param(sim, kind, name, "gpu");
		const char *src;
		bool seen = false, own = false;
		if (gpu) {
			for (size_t j = 0; j < i && !seen; j++) { /* each GPU once */
				const char *k2, *n2;
				if (aiw_sim_component(sim, j, &k2, &n2) != AIW_OK || !n2[0])
					continue;
				char *g2 = comp_param(sim, k2, n2, "gpu");
				seen = g2 && strcmp(g2, gpu) == 0;
				free(g2);
			}
			for (size_t j = 0; j < nc && !own; j++) { /* a [gpu NAME] of that name */
				const char *k2, *n2;
				own = aiw_sim_component(sim, j, &k2, &n2) == AIW_OK && strcmp(k2, "gpu") == 0 &&
				      strcasecmp(n2, gpu) == 0;
			}
		}
		if (!gpu || seen || own || aiw_catalog_gpu_source(gpu, EFF[0], &src) != AIW_OK) {
			free(gpu);
			continue;
		}
		char list[256] = "";
		size_t len = 0;
		for (size_t e = 0; e < sizeof EFF / sizeof *EFF; e++)
			if (aiw_catalog_gpu_source(gpu, EFF[e], &src) == AIW_OK &&
			    strncmp(src, "estimate", 8) == 0 && len < sizeof list)
				len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", len ? ", " : "",
				                        EFF[e]);
		if (len) {
			if (!header)
				printf("\nEstimated GPU efficiencies (no published measurement of that GPU; "
				       "aiworkload catalog NAME):\n");
			header = true;
			printf("  %s: %s\n", gpu, list);
		}
		free(gpu);
	}
}

/* Summary table: site first, then each component in creation order with
 * its metrics (catalogued ones labelled, in the kind's table order, then the
 * rest). */
void cli_print_summary(aiw_sim *sim, const char *label, double wall, bool full,
                       const cli_stream *s)
{
	size_t hidden = 0;
	size_t n = 0;
	aiw_sim_metric_count(sim, &n);
	const char **names = calloc(n ? n : 1, sizeof *names);
	bool *done = calloc(n ? n : 1, sizeof *done);
	if (!names || !done) {
		free(names);
		free(done);
		return;
	}
	/* metric names are the user's component names: buffers of their size */
	size_t width = sizeof "site.utilization";
	for (size_t i = 0; i < n; i++) {
		if (aiw_sim_metric_name(sim, i, &names[i]) != AIW_OK)
			names[i] = "";
		if (strlen(names[i]) + sizeof ".utilization" > width)
			width = strlen(names[i]) + sizeof ".utilization";
	}
	char *kind = malloc(width), *comp = malloc(width), *gk = malloc(width),
	     *gc = malloc(width), *cname = malloc(2 * width);
	if (!kind || !comp || !gk || !gc || !cname) {
		free(kind);
		free(comp);
		free(gk);
		free(gc);
		free(cname);
		free(names);
		free(done);
		return;
	}
	double simt = NAN, events = NAN;
	aiw_sim_metric(sim, "sim.time_s", &simt);
	aiw_sim_metric(sim, "sim.events", &events);
	char *seed = param_text(sim, "sim.seed"), a[64], b[64];
	cli_fmt_duration(a, sizeof a, simt);
	cli_fmt_group(b, sizeof b, events, 0);
	printf("aiworkload %s: %s\nseed %s, %s simulated, %s events, %.2f s wall\n",
	       aiw_version_string(), label, seed ? seed : "?", a, b, wall);
	free(seed);
	for (size_t i = 0; i < n; i++)
		if (strncmp(names[i], "sim.", 4) == 0)
			done[i] = true;
	/* groups in order of first appearance, site first */
	const char *key;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t g = 0; g < n; g++) {
			if (done[g])
				continue;
			cli_split_metric(names[g], gk, width, gc, width, &key);
			bool is_site = strcmp(gk, "site") == 0;
			if ((pass == 0) != is_site)
				continue;
			/* header */
			if (is_site) {
				printf("\nsite\n");
			} else {
				char *gpu = comp_param(sim, gk, gc, "gpu");
				char *cnt = comp_param(sim, gk, gc, "gpus");
				char *reps = comp_param(sim, gk, gc, "replicas");
				char *gpr = comp_param(sim, gk, gc, "gpus_per_replica");
				bool hg = gpu && strcmp(gpu, "none") != 0, hc = cnt, hr = reps, hp = gpr;
				printf("\n%s %s", gk, gc);
				if (hg && hc)
					printf(" (%s x %s)", cnt, gpu);
				else if (hg && hr && hp)
					printf(" (%s replicas x %s x %s at start)", reps, gpr, gpu);
				else if (hg)
					printf(" (%s)", gpu);
				putchar('\n');
				free(gpu);
				free(cnt);
				free(reps);
				free(gpr);
			}
			/* known metrics first, in table order; the utilisation from the
			 * curve, at its place, when the model publishes none */
			snprintf(cname, 2 * width, "%s%s%s.utilization", gk, is_site ? "" : ".",
			         is_site ? "" : gc);
			double um;
			bool has_util = aiw_sim_metric(sim, cname, &um) == AIW_OK;
			/* a component with the telemetry figures needs no fallback */
			snprintf(cname, 2 * width, "%s%s%s.kernel_busy", gk, is_site ? "" : ".",
			         is_site ? "" : gc);
			if (aiw_sim_metric(sim, cname, &um) == AIW_OK)
				has_util = true;
			snprintf(cname, 2 * width, "%s%s%s.utilization", gk, is_site ? "" : ".",
			         is_site ? "" : gc);
			char rk[64];
			const char *rkey, *rlabel, *rdoc;
			fmt_kind rfmt;
			unsigned rflags;
			for (size_t d = 0;
			     catalog_row(d, rk, sizeof rk, &rkey, &rlabel, &rfmt, &rflags, &rdoc); d++) {
				if (strcmp(rk, gk) != 0)
					continue;
				for (size_t i = 0; i < n; i++) {
					if (done[i])
						continue;
					cli_split_metric(names[i], kind, width, comp, width, &key);
					if (strcmp(kind, gk) || strcmp(comp, gc) || strcmp(rkey, key))
						continue;
					done[i] = true;
					if (!full && !(rflags & AIW_METRIC_HEADLINE)) {
						hidden++;
						continue;
					}
					double v = NAN;
					aiw_sim_metric(sim, names[i], &v);
					char val[64];
					fmt_value(val, sizeof val, v, rfmt);
					print_row(rlabel, val);
				}
				/* after the power peak: the utilisation's time average, when
				 * the model publishes no utilisation */
				if (!has_util && strcmp(rkey, "power_peak_w") == 0) {
					um = curve_mean(sim, cname, s);
					if (isfinite(um)) {
						char val[64];
						fmt_value(val, sizeof val, um, F_PCT);
						print_row("Busy time (time average)", val);
					}
				}
			}
			/* the rest, in the order the model published them */
			for (size_t i = 0; i < n; i++) {
				if (done[i])
					continue;
				cli_split_metric(names[i], kind, width, comp, width, &key);
				if (strcmp(kind, gk) || strcmp(comp, gc))
					continue;
				done[i] = true;
				if (!full) {
					hidden++;
					continue;
				}
				double v = NAN;
				aiw_sim_metric(sim, names[i], &v);
				char val[64];
				fmt_value(val, sizeof val, v, fmt_from_name(key));
				print_row(key, val);
			}
		}
	}
	if (hidden)
		printf("\n(%zu more metrics: --summary full, or --json FILE)\n", hidden);
	print_estimates(sim);
	free(kind);
	free(comp);
	free(gk);
	free(gc);
	free(cname);
	free(names);
	free(done);
}

