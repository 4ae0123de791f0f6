/*
 * gen-validation.c - doc/validation.md: the serving iteration model's
 * predictions against measured prefill and decode times, with the
 * datasheet figures alone and calibrated on rows held out of the fit.
 *
 *   gen-validation                 compare $srcdir/doc/validation.md with a
 *                                  fresh one (the test: exit 1 if stale, 77
 *                                  if the measured table is absent)
 *   gen-validation -o FILE [CSV]   write it (regenerate: from a build
 *                                  directory, tools/gen-validation -o
 *                                  ../doc/validation.md)
 * CSV defaults to $srcdir/data/splitwise-perf/perf_model.csv.
 *
 * Predictions, per row of the table (each configuration's repeats share a
 * row, measured = their mean):
 *  - datasheet: catalog coefficients (iteration.c), no fit;
 *  - config held out: fitted on the same GPU's other configurations (both
 *    TP degrees), the row's own repeats left out (leave one out);
 *  - TP held out: fitted on the same GPU's other TP degree, the
 *    communication term held at the collective model (one TP degree cannot
 *    determine it);
 *  - GPU held out: fitted on the rows of the other catalog GPUs.
 * Every row of the table is counted; none is dropped.
 */
#include "inference/profile.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef AIW_SRCDIR
#define AIW_SRCDIR "."
#endif

enum { S_SHEET, S_CONFIG, S_TP, S_GPU, NS };
static const char *const SNAME[NS] = {"datasheet", "config held out", "TP held out",
                                      "GPU held out"};

typedef struct out {
	char *s;
	size_t n, cap;
} out;

static void put(out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
#include <stdarg.h>
static void put(out *o, const char *fmt, ...)
{
	for (;;) {
		va_list ap;
		va_start(ap, fmt);
		int k = vsnprintf(o->s + o->n, o->cap - o->n, fmt, ap);
		va_end(ap);
		if (k < 0)
			exit(2);
		if (o->n + (size_t)k < o->cap) {
			o->n += (size_t)k;
			return;
		}
		o->cap = 2 * (o->cap + (size_t)k + 64);
		o->s = realloc(o->s, o->cap);
		if (!o->s)
			exit(2);
	}
}

static int cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, size_t n)
{
	if (!n)
		return NAN;
	qsort(v, n, sizeof *v, cmpd);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* pred[s][row]: the prediction of every row by every scheme (NAN: none) */
static int predict_all(aiwi_profile *p, double *pred[NS], char *why, size_t whylen)
{
	size_t n = p->nrows;
	bool *use = malloc(n * sizeof *use);
	double beta[AIWI_IT_NTERMS], se[AIWI_IT_NTERMS];
	for (int s = 0; s < NS; s++)
		for (size_t i = 0; i < n; i++)
			pred[s][i] = NAN;
	for (size_t i = 0; i < n; i++) {
		aiwi_prof_row *r = &p->rows[i];
		if (aiwi_prof_datasheet(p, r->group, r->phase, beta))
			goto fail;
		pred[S_SHEET][i] = aiwi_prof_predict(p, r, beta);
	}
	/* config held out: one fit per configuration */
	for (int c = 0; c < p->nconfigs; c++) {
		size_t first = SIZE_MAX;
		for (size_t i = 0; i < n; i++)
			if (p->rows[i].config == c) {
				first = i;
				break;
			}
		if (first == SIZE_MAX)
			continue;
		aiwi_prof_row *r0 = &p->rows[first];
		for (size_t i = 0; i < n; i++)
			use[i] = p->rows[i].config != c;
		if (aiwi_prof_fit(p, r0->group, r0->phase, use, beta, se, NULL) == AIW_OK) {
			for (size_t i = 0; i < n; i++)
				if (p->rows[i].config == c)
					pred[S_CONFIG][i] = aiwi_prof_predict(p, &p->rows[i], beta);
		}
	}
	/* TP held out, GPU held out: one fit per (group, phase, tp) */
	for (size_t g = 0; g < p->ngroups; g++)
		for (int ph = 0; ph < AIWI_PH_N; ph++) {
			for (size_t i = 0; i < n; i++) {
				aiwi_prof_row *r = &p->rows[i];
				if (r->group != (int)g || r->phase != ph || !isnan(pred[S_TP][i]))
					continue;
				for (size_t k = 0; k < n; k++)
					use[k] = p->rows[k].tp != r->tp;
				/* one TP degree: the communication term and the weights'
				 * read (constant at one degree, as the overhead) held */
				bool held_c = p->hold[ph][AIWI_IT_COMM], held_m = p->hold[ph][AIWI_IT_MEM];
				p->hold[ph][AIWI_IT_COMM] = p->hold[ph][AIWI_IT_MEM] = true;
				aiw_status st = aiwi_prof_fit(p, (int)g, ph, use, beta, se, NULL);
				p->hold[ph][AIWI_IT_COMM] = held_c;
				p->hold[ph][AIWI_IT_MEM] = held_m;
				if (st == AIW_OK)
					for (size_t k = 0; k < n; k++)
						if (p->rows[k].group == (int)g && p->rows[k].phase == ph &&
						    p->rows[k].tp == r->tp)
							pred[S_TP][k] = aiwi_prof_predict(p, &p->rows[k], beta);
				if (st != AIW_OK)
					break;
			}
			/* the other catalog GPUs, as one group of rows */
			for (size_t k = 0; k < n; k++)
				use[k] = strcmp(p->groups[p->rows[k].group].gpu, p->groups[g].gpu) != 0;
			if (aiwi_prof_fit(p, -1, ph, use, beta, se, NULL) == AIW_OK)
				for (size_t k = 0; k < n; k++)
					if (p->rows[k].group == (int)g && p->rows[k].phase == ph)
						pred[S_GPU][k] = aiwi_prof_predict(p, &p->rows[k], beta);
		}
	free(use);
	return 0;
fail:
	snprintf(why, whylen, "%s", p->err);
	free(use);
	return 1;
}

static void generate(aiwi_profile *p, const char *source, out *o)
{
	size_t n = p->nrows;
	double *pred[NS];
	for (int s = 0; s < NS; s++)
		pred[s] = malloc(n * sizeof(double));
	char why[512];
	if (predict_all(p, pred, why, sizeof why)) {
		fprintf(stderr, "gen-validation: %s\n", why);
		exit(2);
	}
	put(o, "# Validation of the serving iteration model\n\n");
	put(o, "Generated by `tools/gen-validation -o doc/validation.md` (tests check it is "
	       "current); do not edit.\n\n");
	put(o, "Source: %s: measured prefill (time to first token of a batch, TTFT) and decode "
	       "(time per output token, TPOT) times of Llama-2-70B served by vLLM on DGX-A100 and "
	       "DGX-H100 at tensor parallelism 2 and 8 (Splitwise, Patel et al., ISCA 2024; "
	       "`data/splitwise-perf/`, MIT licence). Its `h100-80gb-pcap` rows are synthetic in the "
	       "source (prompt time 1.30 x the H100 rows', token time the same): they are shown "
	       "apart and kept out of the headline figures, which count every measured row.\n\n",
	       source);
	put(o, "Model (lib/inference/iteration.h): per iteration, t = overhead + gemm + attn + mem + "
	       "comm, each a datasheet time scaled by a coefficient. Predictions:\n\n"
	       "- **datasheet**: catalog coefficients, no fit (efficiencies from the catalog, the "
	       "collective model, %.0f ms overhead per iteration);\n"
	       "- **config held out**: fitted (weighted least squares on relative errors) on the "
	       "same GPU's other configurations, both TP degrees; the row's own repeats left out;\n"
	       "- **TP held out**: fitted on the same GPU's other TP degree only, the communication "
	       "term held at the collective model;\n"
	       "- **GPU held out**: fitted on the other catalog GPU's rows.\n\n"
	       "Held coefficients in every fit: prefill mem (weights read once, inseparable from the "
	       "overhead at a TP degree), decode attn (grows with the context as the KV reads do).\n\n",
	       p->overhead_s * 1e3);

	/* per configuration: mean measured, the predictions (equal for repeats) */
	int nc = p->nconfigs;
	double *meas = calloc((size_t)nc, sizeof(double));
	int *cnt = calloc((size_t)nc, sizeof(int));
	size_t *row0 = malloc((size_t)nc * sizeof(size_t));
	for (int c = 0; c < nc; c++)
		row0[c] = SIZE_MAX;
	for (size_t i = 0; i < n; i++) {
		int c = p->rows[i].config;
		meas[c] += p->rows[i].y;
		cnt[c]++;
		if (row0[c] == SIZE_MAX)
			row0[c] = i;
	}
	for (int c = 0; c < nc; c++)
		meas[c] /= cnt[c];

	/* the headline: measured rows (groups other than the synthetic one) */
	put(o, "## Summary\n\nMedian and worst absolute relative error over configurations "
	       "(repeats averaged), then over every individual row.\n\n");
	put(o, "| rows | phase | prediction | configurations | median | worst | rows | median "
	       "(rows) | worst (rows) |\n|---|---|---|---:|---:|---:|---:|---:|---:|\n");
	double *e = malloc((n + (size_t)nc) * sizeof(double));
	for (int synth = 0; synth < 2; synth++)
		for (int ph = 0; ph < AIWI_PH_N; ph++)
			for (int s = 0; s < NS; s++) {
				size_t k = 0, kr = 0;
				double worst = 0, worstr = 0;
				for (int c = 0; c < nc; c++) {
					aiwi_prof_row *r = &p->rows[row0[c]];
					bool sy = strstr(p->groups[r->group].name, "pcap") != NULL;
					if (r->phase != ph || sy != (bool)synth)
						continue;
					double er = fabs(pred[s][row0[c]] / meas[c] - 1);
					if (isnan(er))
						er = INFINITY;
					e[k++] = er;
					worst = fmax(worst, er);
				}
				double med = median(e, k);
				for (size_t i = 0; i < n; i++) {
					aiwi_prof_row *r = &p->rows[i];
					bool sy = strstr(p->groups[r->group].name, "pcap") != NULL;
					if (r->phase != ph || sy != (bool)synth)
						continue;
					double er = fabs(pred[s][i] / r->y - 1);
					if (isnan(er))
						er = INFINITY;
					e[kr++] = er;
					worstr = fmax(worstr, er);
				}
				double medr = median(e, kr);
				put(o, "| %s | %s | %s | %zu | %.1f%% | %.1f%% | %zu | %.1f%% | %.1f%% |\n",
				    synth ? "synthetic (pcap)" : "measured",
				    ph == AIWI_PH_PREFILL ? "prefill (TTFT)" : "decode (TPOT)", SNAME[s], k,
				    100 * med, 100 * worst, kr, 100 * medr, 100 * worstr);
			}
	put(o, "\nGoals: calibrated (held out) median <= 10%%, datasheet median <= 25%%.\n\n");

	/* a table per source group */
	for (size_t g = 0; g < p->ngroups; g++) {
		put(o, "## %s (catalog %s)\n\n", p->groups[g].name, p->groups[g].gpu);
		put(o, "Times in ms; error = predicted / measured - 1. Configuration: TP, batch, "
		       "prompt tokens (prefill) or context tokens per sequence (decode); n repeats.\n\n");
		for (int ph = 0; ph < AIWI_PH_N; ph++) {
			put(o, "### %s\n\n", ph == AIWI_PH_PREFILL ? "Prefill (TTFT)" : "Decode (TPOT)");
			put(o, "| tp | batch | %s | n | measured | datasheet | err | config held out | err "
			       "| TP held out | err | GPU held out | err |\n"
			       "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n",
			    ph == AIWI_PH_PREFILL ? "prompt" : "context");
			double *es[NS];
			size_t k = 0;
			for (int s = 0; s < NS; s++)
				es[s] = malloc((size_t)nc * sizeof(double));
			for (int c = 0; c < nc; c++) {
				aiwi_prof_row *r = &p->rows[row0[c]];
				if (r->group != (int)g || r->phase != ph)
					continue;
				put(o, "| %g | %g | %g | %d | %.1f", r->tp, r->batch,
				    ph == AIWI_PH_PREFILL ? r->prompt : r->context, cnt[c], meas[c] * 1e3);
				for (int s = 0; s < NS; s++) {
					double pv = pred[s][row0[c]], er = pv / meas[c] - 1;
					es[s][k] = isnan(er) ? INFINITY : fabs(er);
					if (isnan(pv))
						put(o, " | - | -");
					else
						put(o, " | %.1f | %+.1f%%", pv * 1e3, 100 * er);
				}
				put(o, " |\n");
				k++;
			}
			put(o, "| | | | | **median** |");
			for (int s = 0; s < NS; s++) {
				double w = 0;
				for (size_t i = 0; i < k; i++)
					w = fmax(w, es[s][i]);
				put(o, " | %.1f%% | worst %.1f%%", 100 * median(es[s], k), 100 * w);
				free(es[s]);
			}
			put(o, " |\n\n");
		}
	}
	free(e);
	free(meas);
	free(cnt);
	free(row0);
	for (int s = 0; s < NS; s++)
		free(pred[s]);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 16, n = 0;
	char *s = malloc(cap);
	while (s) {
		n += fread(s + n, 1, cap - n - 1, f);
		if (n < cap - 1)
			break;
		cap *= 2;
		s = realloc(s, cap);
	}
	fclose(f);
	if (s)
		s[n] = '\0';
	return s;
}

int main(int argc, char **argv)
{
	const char *outpath = NULL, *csv = NULL;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "-o") == 0 && i + 1 < argc)
			outpath = argv[++i];
		else if (argv[i][0] != '-')
			csv = argv[i];
		else {
			fprintf(stderr, "usage: gen-validation [-o FILE] [CSV]\n");
			return 2;
		}
	}
	char shipped[4096];
	snprintf(shipped, sizeof shipped, "%s/data/splitwise-perf/perf_model.csv", AIW_SRCDIR);
	const char *source = "data/splitwise-perf/perf_model.csv";
	if (!csv) {
		FILE *f = fopen(shipped, "rb");
		if (f) {
			fclose(f);
			csv = shipped;
		} else {
			printf("SKIP: no measured table (%s)\n", shipped);
			return 77;
		}
	} else {
		source = csv;
	}
	gsl_set_error_handler_off();
	aiwi_profile p;
	aiwi_prof_init(&p);
	if (aiwi_prof_read(&p, csv)) {
		fprintf(stderr, "gen-validation: %s\n", p.err);
		return 2;
	}
	out o = {0};
	generate(&p, source, &o);
	aiwi_prof_clear(&p);
	if (outpath) {
		FILE *f = strcmp(outpath, "-") ? fopen(outpath, "w") : stdout;
		if (!f || fwrite(o.s, 1, o.n, f) != o.n || (f != stdout && fclose(f))) {
			fprintf(stderr, "gen-validation: cannot write %s\n", outpath);
			return 1;
		}
		free(o.s);
		return 0;
	}
	char page[4096];
	snprintf(page, sizeof page, "%s/doc/validation.md", AIW_SRCDIR);
	char *cur = slurp(page);
	int stale = !cur || strcmp(cur, o.s) != 0;
	if (stale)
		printf("FAIL: %s is stale: regenerate with tools/gen-validation -o %s\n", page, page);
	else
		printf("%s is current\n", page);
	free(cur);
	free(o.s);
	return stale;
}
