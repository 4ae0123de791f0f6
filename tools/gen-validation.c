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
 *  - TP held out, other GPU's comm: the same with the comm coefficient
 *    held at the one fitted on the other catalog GPUs' rows;
 *  - GPU held out: fitted on the rows of the other catalog GPUs.
 * Every row of the table is counted; none is dropped.  The page also gives
 * the coefficients fitted on every row of a GPU and phase (and the comm
 * coefficient with the all-reduces on PCIe), each row's robust weight in
 * that fit (0: rejected), and, for the shipped table, what it shows.
 */
#include "hw/hw.h"
#include "inference/profile.h"

#include <gsl/gsl_errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef AIW_SRCDIR
#define AIW_SRCDIR "."
#endif

enum { S_SHEET, S_CONFIG, S_TP, S_TPX, S_GPU, NS };
static const char *const SNAME[NS] = {"datasheet", "config held out", "TP held out",
                                      "TP held out, other GPU's comm", "GPU held out"};

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
			/* the comm coefficient fitted on the other catalog GPUs' rows
			 * (both TP degrees): the second TP-held-out variant holds it */
			for (size_t k = 0; k < n; k++)
				use[k] = strcmp(p->groups[p->rows[k].group].gpu, p->groups[g].gpu) != 0;
			double comm_o = aiwi_prof_fit(p, -1, ph, use, beta, se, NULL) == AIW_OK
			                    ? beta[AIWI_IT_COMM]
			                    : NAN;
			for (int v = S_TP; v <= S_TPX; v++)
				for (size_t i = 0; i < n; i++) {
					aiwi_prof_row *r = &p->rows[i];
					if (r->group != (int)g || r->phase != ph || !isnan(pred[v][i]))
						continue;
					if (v == S_TPX && isnan(comm_o))
						break;
					for (size_t k = 0; k < n; k++)
						use[k] = p->rows[k].tp != r->tp;
					/* one TP degree: the communication term and the weights'
					 * read (constant at one degree, as the overhead) held, and
					 * in decode the GEMM FLOPs (n / tp, as the host work per
					 * sequence n at one degree) */
					bool saved[AIWI_IT_NTERMS];
					memcpy(saved, p->hold[ph], sizeof saved);
					p->hold[ph][AIWI_IT_COMM] = p->hold[ph][AIWI_IT_MEM] = true;
					if (ph == AIWI_PH_DECODE)
						p->hold[ph][AIWI_IT_GEMM] = true;
					if (v == S_TPX)
						p->held_at[ph][AIWI_IT_COMM] = comm_o;
					aiw_status st = aiwi_prof_fit(p, (int)g, ph, use, beta, se, NULL);
					memcpy(p->hold[ph], saved, sizeof saved);
					p->held_at[ph][AIWI_IT_COMM] = NAN;
					if (st == AIW_OK)
						for (size_t k = 0; k < n; k++)
							if (p->rows[k].group == (int)g && p->rows[k].phase == ph &&
							    p->rows[k].tp == r->tp)
								pred[v][k] = aiwi_prof_predict(p, &p->rows[k], beta);
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

/* The fit on every row of a group and phase: coefficients, standard
 * errors (0: held or at its bound), and the robust weight of every row. */
typedef struct allfit {
	int ok;
	double beta[AIWI_IT_NTERMS], se[AIWI_IT_NTERMS];
	double comm_pcie, comm_pcie_se; /* the comm coefficient with the all-reduces on PCIe */
} allfit;

static void fit_all(aiwi_profile *p, allfit *f, double *weight)
{
	for (size_t i = 0; i < p->nrows; i++)
		weight[i] = NAN;
	for (size_t g = 0; g < p->ngroups; g++)
		for (int ph = 0; ph < AIWI_PH_N; ph++) {
			allfit *a = &f[g * AIWI_PH_N + (size_t)ph];
			double se[AIWI_IT_NTERMS], b[AIWI_IT_NTERMS];
			a->ok = aiwi_prof_fit(p, (int)g, ph, NULL, a->beta, a->se, NULL) == AIW_OK;
			if (a->ok)
				for (size_t i = 0; i < p->nrows; i++)
					if (p->rows[i].group == (int)g && p->rows[i].phase == ph)
						weight[i] = p->weight[i];
			p->tp_link_pcie = true;
			bool okp = aiwi_prof_fit(p, (int)g, ph, NULL, b, se, NULL) == AIW_OK;
			a->comm_pcie = okp ? b[AIWI_IT_COMM] : NAN;
			a->comm_pcie_se = okp ? se[AIWI_IT_COMM] : NAN;
			p->tp_link_pcie = false;
		}
}

static bool synthetic(const aiwi_profile *p, int group)
{
	return strstr(p->groups[group].name, "pcap") != NULL;
}

static void findings(out *o, double med[2][AIWI_PH_N][NS])
{
	put(o,
	    "## What the table shows\n\n"
	    "- **The fit.** Least squares on relative errors divided by the measurement let one "
	    "configuration measured far faster than the model says outweigh the table: the TP 2, "
	    "batch 64 prefills, measured below batch 4 (796 ms against 6.6 s at batch 32 on the "
	    "A100), have a residual of about -10, squared 100, against 0.01 for a row 10%% off, "
	    "and the fitted GEMM coefficient came out negative; a bisquare fit started there "
	    "stayed there, and the prefill fits held out predicted worse than the datasheet. "
	    "The fit now takes one point per configuration (the mean of its repeats, which "
	    "measure noise, not the model), divides it by the larger of its measured and "
	    "predicted times (a residual is then at most 1 in size), weighs the points by "
	    "Huber's weights and then Tukey's bisquare (iteratively reweighted "
	    "gsl_multifit_wlinear, the robust scale at least 1%%, the spread of a "
	    "configuration's repeats) and keeps every coefficient within its physical "
	    "bound (an efficiency at most 1, a host cost at least 0: a coefficient that crosses "
	    "its bound is held there and the others fitted again). The rows it rejects (fit "
	    "weight 0 in the tables below) are the TP 2, batch 64 rows of both GPUs, prefill "
	    "and decode; they stay in every median. Why they are off the table does not say: "
	    "at TP 2 the weights (138 GB) leave the two GPUs about 6 GB at vLLM's default "
	    "gpu_memory_utilization of 0.9, against 13.4 GB of KV cache for 64 sequences of 640 "
	    "tokens, so the run probably held fewer sequences than asked.\n"
	    "- **Prefill does not scale with TP as the terms do.** From TP 2 to TP 8 a long "
	    "prefill gets only 1.6-1.9 times faster per token, where the GEMM term divides by 4. "
	    "The term that grows with TP is the two all-reduces per layer of the T x d "
	    "activations: fitted, its coefficient is about 2.8 (A100) and 2.5 (H100) times the "
	    "collective model on NVLink, an all-reduce bus bandwidth of about 105 and 180 GB/s "
	    "where nccl-tests measure about 200 GB/s on 8 A100s (NVIDIA/nccl-tests#149) and up "
	    "to 480 GB/s on 8 H100s (NVIDIA/nccl#1374). On the GPUs' PCIe links instead "
	    "(`tp_link_pcie = 1`: PCIe 4.0 x16 per GPU on DGX A100, 5.0 on DGX H100) the fits "
	    "put the prefill all-reduces at their bound, faster than PCIe can carry: PCIe is not "
	    "the path. The rest of the misfit is not a linear term: at TP 8, iterations of up "
	    "to about 2,048 tokens cost about half as much per token as longer ones (H100: 0.05 "
	    "ms per token up to 2,048, 0.09-0.12 beyond, batched and single prompts alike: the "
	    "iteration's token count, not a prompt's attention), and the A100 rows' peak power "
	    "is within 10%% of the 400 W cap from 2,048 tokens on at TP 8 and at every size at "
	    "TP 2. Power-capped clocks are the likeliest cause; a sum of linear terms cannot "
	    "represent them, and the fit spends the attention and per-sequence coefficients and "
	    "the overhead (at its bound 0) on it. That is what keeps the prefill medians above "
	    "their goals.\n"
	    "- **Decode: the weights' read is the term the table determines.** The decode rows "
	    "vary the context little: a free memory coefficient came out of the KV slope (6.4 on "
	    "the A100, with a negative overhead to match), and the GPU-held-out prediction was "
	    "off by 78%%. It is held at the datasheet (1 / 0.9 of the HBM peak) in every fit.\n"
	    "- **Decode grows with the batch by a host cost per sequence.** About 0.2-0.3 ms per "
	    "sequence per iteration, at TP 2 and TP 8 alike and the same on both GPUs (term seq), "
	    "where "
	    "the GEMM FLOPs of a sequence take 0.02-0.2 ms and divide by TP: the serving stack's "
	    "CPU loop over the sequences (scheduling, sampling, detokenising). It transfers from "
	    "one GPU to the other.\n"
	    "- **What does not transfer across GPUs.** The overhead is seconds of host work per "
	    "iteration: about 17 ms on the DGX A100, 12 ms on the DGX H100, machines with "
	    "different CPUs; a GPU-held-out prediction carries the other machine's figure, most "
	    "of its error. The decode comm coefficient (2.4 on the A100, 1.6 on the H100) is a "
	    "cost per TP all-reduce above the collective model's NCCL step latencies (2 (p - 1) x "
	    "3.4 us): 11-116 us per all-reduce in all, where vLLM's own NCCL all-reduce of 32 KB "
	    "takes 8.7, 9.2 and 11.8 us on 2, 4 and 8 H100s without CUDA graphs "
	    "(sgl-project/sglang#2904). The rest likely follows the host too: vLLM then "
	    "launched each of the 160 all-reduces of an iteration from tp worker processes, "
	    "without CUDA graphs, and each waits for the slowest.\n"
	    "- **TP held out.** One TP degree determines neither the comm term (held at the "
	    "collective model, which the fits put 1.6-2.8 times too fast) nor, in decode, the "
	    "GEMM FLOPs apart from the cost per sequence (the GEMM held at the datasheet): the "
	    "TP-held-out error is the comm term's. Held at the other GPU's fitted comm "
	    "coefficient instead, the prefill median goes from %.1f%% to %.1f%% (the prefill "
	    "all-reduces' efficiency carries across the two GPUs), the decode one from %.1f%% "
	    "to %.1f%% (it does not: it follows the host).\n\n",
	    100 * med[0][AIWI_PH_PREFILL][S_TP], 100 * med[0][AIWI_PH_PREFILL][S_TPX],
	    100 * med[0][AIWI_PH_DECODE][S_TP], 100 * med[0][AIWI_PH_DECODE][S_TPX]);
}

/* ---- power capping (doc/inference.md, "Power capping") ----
 * The law f = ((cap - floor) / (draw - floor))^(1/3) for a phase drawing
 * more than the cap, its GEMM and attention terms 1/f longer (as the fleet
 * does: lib/inference/fleet_timing.c), checked on the source's h100-80gb-pcap
 * rows against its h100-80gb rows of the same configuration: the law's
 * predicted ratio capped / uncapped (the datasheet's terms) against the
 * measured one.  Its one free parameter, the floor, is fitted on one TP
 * degree's prefill configurations (the least median error on a 0.1 W
 * grid) and predicts the other's. */
#define CAP_FRACTION 0.70 /* the source's cap: 70% of TDP (data/splitwise-perf/README.md) */

/* The datasheet time of row r, its compute terms at clock factor clk. */
static double cap_time(aiwi_profile *p, const aiwi_prof_row *r, double clk)
{
	double beta[AIWI_IT_NTERMS];
	if (aiwi_prof_datasheet(p, r->group, r->phase, beta))
		return NAN;
	beta[AIWI_IT_GEMM] /= clk;
	beta[AIWI_IT_ATTN] /= clk;
	return aiwi_prof_predict(p, r, beta);
}

static double cap_clock(double cap, double floor_w, double draw)
{
	return draw > cap ? cbrt((cap - floor_w) / (draw - floor_w)) : 1;
}

typedef struct cap_pair {
	size_t row;           /* a pcap row of the configuration */
	double ratio;         /* measured: pcap mean / uncapped mean */
	double tp, draw;      /* its TP degree, uncapped draw (W) */
} cap_pair;

/* Relative errors of the law's ratio over the pairs of TP degree tp (0:
 * all), floor f, into e; their count. */
static size_t cap_errors(aiwi_profile *p, const cap_pair *q, size_t nq, double tp, double cap,
                         double f, double *e)
{
	size_t k = 0;
	for (size_t i = 0; i < nq; i++) {
		if (tp && q[i].tp != tp)
			continue;
		const aiwi_prof_row *r = &p->rows[q[i].row];
		double clk = cap_clock(cap, f, q[i].draw);
		double pr = cap_time(p, r, clk) / cap_time(p, r, 1);
		e[k++] = fabs(pr / q[i].ratio - 1);
	}
	return k;
}

static void cap_section(aiwi_profile *p, const double *meas, out *o)
{
	size_t n = p->nrows;
	int nc = p->nconfigs;
	cap_pair *q = calloc((size_t)nc, sizeof *q);
	double *e = malloc((n + (size_t)nc + 1) * sizeof(double));
	size_t nq[AIWI_PH_N] = {0, 0};
	/* pairs: each pcap configuration and the uncapped one of the same shape */
	size_t np = 0;
	cap_pair *pairs[AIWI_PH_N];
	pairs[0] = q;
	pairs[1] = calloc((size_t)nc, sizeof *q);
	bool *seen = calloc((size_t)nc, sizeof *seen);
	const aiwi_gpu_spec *g = NULL;
	for (size_t i = 0; i < n; i++) {
		const aiwi_prof_row *r = &p->rows[i];
		if (!synthetic(p, r->group) || seen[r->config])
			continue;
		seen[r->config] = true;
		for (size_t j = 0; j < n; j++) {
			const aiwi_prof_row *u = &p->rows[j];
			if (synthetic(p, u->group) || strcmp(p->groups[u->group].gpu, p->groups[r->group].gpu) ||
			    u->phase != r->phase || u->tp != r->tp || u->batch != r->batch ||
			    u->prompt != r->prompt || u->context != r->context || u->out != r->out)
				continue;
			g = aiwi_hw_gpu(NULL, p->groups[r->group].gpu);
			if (!g)
				break;
			cap_pair *c = &pairs[r->phase][nq[r->phase]++];
			c->row = i;
			c->ratio = meas[r->config] / meas[u->config];
			c->tp = r->tp;
			c->draw = r->phase == AIWI_PH_PREFILL ? g->prefill_w : g->decode_w;
			np++;
			break;
		}
	}
	free(seen);
	if (!np || !g) {
		free(q);
		free(pairs[1]);
		free(e);
		return;
	}
	double cap = CAP_FRACTION * g->prefill_w;
	put(o, "## Power capping\n\n"
	       "The law of `power_cap` (doc/inference.md, \"Power capping\"): a phase drawing D "
	       "above a cap c runs at clock f = ((c - s) / (D - s))^(1/3), s the static floor, its "
	       "GEMM and attention terms 1/f longer, its other terms as they were. Checked on the "
	       "source's `h100-80gb-pcap` rows, whose cap is %.0f%% of TDP (%.0f W on the catalog's "
	       "%s, prefill_w %.0f W, decode_w %.0f W, idle_w %.0f W): the law's ratio capped / "
	       "uncapped of the datasheet times against the measured ratio of each pcap "
	       "configuration's mean to the `h100-80gb` one of the same shape. The pcap rows are "
	       "synthetic (a prompt time 1.30 x, a token time 1.00 x): they fix the slowdown at one "
	       "cap, not the law's shape across caps.\n\n",
	       CAP_FRACTION * 100, cap, p->groups[p->rows[pairs[0][0].row].group].gpu, g->prefill_w,
	       g->decode_w, g->idle_w);
	put(o, "| phase | floor s | fitted on | predicted | configurations | median | worst |\n"
	       "|---|---|---|---|---:|---:|---:|\n");
	for (int ph = 0; ph < AIWI_PH_N; ph++) {
		if (!nq[ph])
			continue;
		const char *phn = ph == AIWI_PH_PREFILL ? "prefill (TTFT)" : "decode (TPOT)";
		size_t k = cap_errors(p, pairs[ph], nq[ph], 0, cap, g->idle_w, e);
		double m = median(e, k), w = 0;
		for (size_t i = 0; i < k; i++)
			w = fmax(w, e[i]);
		put(o, "| %s | %.0f W (idle_w, the default) | - | every TP | %zu | %.1f%% | %.1f%% |\n", phn,
		    g->idle_w, k, 100 * m, 100 * w);
		if (ph != AIWI_PH_PREFILL)
			continue;
		/* the floor fitted on one TP degree, predicting the other */
		const double tps[2] = {2, 8};
		for (int a = 0; a < 2; a++) {
			double best = NAN, bm = INFINITY;
			for (double f = 0; f < cap - 0.05; f += 0.1) {
				size_t kk = cap_errors(p, pairs[ph], nq[ph], tps[a], cap, f, e);
				if (!kk)
					break;
				double mm = median(e, kk);
				if (mm < bm) {
					bm = mm;
					best = f;
				}
			}
			if (isnan(best))
				continue;
			size_t kk = cap_errors(p, pairs[ph], nq[ph], tps[1 - a], cap, best, e);
			double pm = median(e, kk), pw = 0;
			for (size_t i = 0; i < kk; i++)
				pw = fmax(pw, e[i]);
			put(o, "| %s | %.1f W (fitted) | TP %.0f (median %.2f%%) | TP %.0f | %zu | %.2f%% | %.2f%% |\n",
			    phn, best, tps[a], 100 * bm, tps[1 - a], kk, 100 * pm, 100 * pw);
		}
	}
	/* the datasheet's serving prediction of the pcap rows, with and without the law */
	put(o, "\nThe datasheet's prediction of the pcap rows themselves (every row), without the "
	       "cap and with it (floor idle_w):\n\n"
	       "| phase | prediction | rows | median | worst |\n|---|---|---:|---:|---:|\n");
	for (int ph = 0; ph < AIWI_PH_N; ph++)
		for (int capped = 0; capped < 2; capped++) {
			size_t k = 0;
			double w = 0;
			double draw = ph == AIWI_PH_PREFILL ? g->prefill_w : g->decode_w;
			double clk = capped ? cap_clock(cap, g->idle_w, draw) : 1;
			for (size_t i = 0; i < n; i++) {
				const aiwi_prof_row *r = &p->rows[i];
				if (!synthetic(p, r->group) || r->phase != ph)
					continue;
				e[k] = fabs(cap_time(p, r, clk) / r->y - 1);
				w = fmax(w, e[k]);
				k++;
			}
			if (!k)
				continue;
			put(o, "| %s | datasheet%s | %zu | %.1f%% | %.1f%% |\n",
			    ph == AIWI_PH_PREFILL ? "prefill (TTFT)" : "decode (TPOT)",
			    capped ? ", capped" : "", k, 100 * median(e, k), 100 * w);
		}
	put(o, "\n");
	free(q);
	free(pairs[1]);
	free(e);
}

static void generate(aiwi_profile *p, const char *source, bool shipped, out *o)
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
	allfit *fa = calloc(p->ngroups * AIWI_PH_N, sizeof *fa);
	double *weight = malloc(n * sizeof(double));
	fit_all(p, fa, weight);
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
	       "comm + seq: a fixed host cost, each GPU term a datasheet time scaled by a "
	       "coefficient (1 / its efficiency), and a host cost per sequence. Predictions:\n\n"
	       "- **datasheet**: catalog coefficients, no fit (efficiencies from the catalog, the "
	       "collective model on NVLink, %.0f ms overhead per iteration, no cost per sequence);\n"
	       "- **config held out**: fitted on the same GPU's other configurations, both TP "
	       "degrees; the configuration's repeats left out (for a prefill, those of every "
	       "decode length);\n"
	       "- **TP held out**: fitted on the same GPU's other TP degree only, the communication "
	       "term and the weights' read held at the datasheet (and in decode the GEMM FLOPs: at "
	       "one TP degree they grow with the batch as the cost per sequence does);\n"
	       "- **TP held out, other GPU's comm**: the same, the communication coefficient held "
	       "at the one fitted on the other catalog GPU's rows (both TP degrees): whether the "
	       "all-reduces' efficiency carries from one GPU to the other;\n"
	       "- **GPU held out**: fitted on the other catalog GPU's rows.\n\n"
	       "The fit (lib/inference/profile.h): robust least squares on relative errors, one "
	       "point per configuration divided by the larger of its measured and predicted "
	       "times, Huber then bisquare weights, every coefficient within its physical bound. Held "
	       "coefficients in every fit: prefill mem (weights read once, inseparable from the "
	       "overhead at a TP degree), decode attn and mem (the table varies the context too "
	       "little to tell them apart or from the overhead).\n\n",
	       p->overhead_s * 1e3);

	/* per configuration: mean measured, the predictions (equal for repeats) */
	int nc = p->nconfigs;
	double *meas = calloc((size_t)nc, sizeof(double));
	double *wsum = calloc((size_t)nc, sizeof(double));
	int *cnt = calloc((size_t)nc, sizeof(int));
	size_t *row0 = malloc((size_t)nc * sizeof(size_t));
	for (int c = 0; c < nc; c++)
		row0[c] = SIZE_MAX;
	for (size_t i = 0; i < n; i++) {
		int c = p->rows[i].config;
		meas[c] += p->rows[i].y;
		wsum[c] += weight[i];
		cnt[c]++;
		if (row0[c] == SIZE_MAX)
			row0[c] = i;
	}
	for (int c = 0; c < nc; c++) {
		meas[c] /= cnt[c];
		wsum[c] /= cnt[c];
	}

	/* the headline: measured rows (groups other than the synthetic one) */
	put(o, "## Summary\n\nMedian and worst absolute relative error over configurations "
	       "(repeats averaged), then over every individual row.\n\n");
	put(o, "| rows | phase | prediction | configurations | median | worst | rows | median "
	       "(rows) | worst (rows) |\n|---|---|---|---:|---:|---:|---:|---:|---:|\n");
	double *e = malloc((n + (size_t)nc) * sizeof(double));
	double med[2][AIWI_PH_N][NS], wst[2][AIWI_PH_N][NS], wacc[2][AIWI_PH_N][NS];
	for (int synth = 0; synth < 2; synth++)
		for (int ph = 0; ph < AIWI_PH_N; ph++)
			for (int s = 0; s < NS; s++) {
				size_t k = 0, kr = 0;
				double worst = 0, worstr = 0, worsta = 0;
				for (int c = 0; c < nc; c++) {
					aiwi_prof_row *r = &p->rows[row0[c]];
					if (r->phase != ph || synthetic(p, r->group) != (bool)synth)
						continue;
					double er = fabs(pred[s][row0[c]] / meas[c] - 1);
					if (isnan(er))
						er = INFINITY;
					e[k++] = er;
					worst = fmax(worst, er);
					if (wsum[c] > 0)
						worsta = fmax(worsta, er);
				}
				med[synth][ph][s] = median(e, k);
				wst[synth][ph][s] = worst;
				wacc[synth][ph][s] = worsta;
				for (size_t i = 0; i < n; i++) {
					aiwi_prof_row *r = &p->rows[i];
					if (r->phase != ph || synthetic(p, r->group) != (bool)synth)
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
				    100 * med[synth][ph][s], 100 * worst, kr, 100 * medr, 100 * worstr);
			}
	put(o, "\nGoals: calibrated (held out) median <= 10%%, datasheet median <= 25%%, on the "
	       "measured rows. Reached:\n\n");
	for (int ph = 0; ph < AIWI_PH_N; ph++) {
		const char *pn = ph == AIWI_PH_PREFILL ? "prefill (TTFT)" : "decode (TPOT)";
		put(o, "- %s: datasheet %.1f%% (%s);", pn, 100 * med[0][ph][S_SHEET],
		    med[0][ph][S_SHEET] <= 0.25 ? "met" : "not met");
		for (int s = S_CONFIG; s < NS; s++)
			put(o, " %s %.1f%% (%s; worst configuration %.0f%%, of those not rejected %.0f%%)%s",
			    SNAME[s], 100 * med[0][ph][s], med[0][ph][s] <= 0.10 ? "met" : "not met",
			    100 * wst[0][ph][s], 100 * wacc[0][ph][s], s + 1 < NS ? ";" : ".\n");
	}
	put(o, "\n");

	/* the coefficients of the all-rows fits */
	put(o, "## Fitted coefficients\n\nFitted on every row of a GPU and phase (standard error "
	       "in brackets; held: at the datasheet; bound: at its physical bound). overhead and "
	       "seq in ms (per iteration, per sequence); the others multiply their datasheet "
	       "times. comm, PCIe: the comm coefficient when the TP all-reduces are put on the "
	       "GPUs' PCIe links (`tp_link_pcie = 1`).\n\n| GPU | phase |");
	for (int j = 0; j < AIWI_IT_NTERMS; j++)
		put(o, " %s |", aiwi_iter_term_names[j]);
	put(o, " comm, PCIe |\n|---|---|");
	for (int j = 0; j <= AIWI_IT_NTERMS; j++)
		put(o, "---:|");
	put(o, "\n");
	for (size_t g = 0; g < p->ngroups; g++)
		for (int ph = 0; ph < AIWI_PH_N; ph++) {
			allfit *a = &fa[g * AIWI_PH_N + (size_t)ph];
			put(o, "| %s | %s |", p->groups[g].name, aiwi_iter_phase_names[ph]);
			if (!a->ok) {
				for (int j = 0; j <= AIWI_IT_NTERMS; j++)
					put(o, " - |");
				put(o, "\n");
				continue;
			}
			for (int j = 0; j < AIWI_IT_NTERMS; j++) {
				double k = j == AIWI_IT_OVERHEAD || j == AIWI_IT_SEQ ? 1e3 : 1;
				if (a->se[j] > 0)
					put(o, " %.3g (%.2g) |", k * a->beta[j], k * a->se[j]);
				else
					put(o, " %.3g %s |", k * a->beta[j], p->hold[ph][j] ? "held" : "bound");
			}
			if (a->comm_pcie_se > 0)
				put(o, " %.3g (%.2g) |\n", a->comm_pcie, a->comm_pcie_se);
			else
				put(o, " %.3g bound |\n", a->comm_pcie);
		}
	put(o, "\n");
	if (shipped)
		findings(o, med);

	cap_section(p, meas, o);

	/* a table per source group */
	for (size_t g = 0; g < p->ngroups; g++) {
		put(o, "## %s (catalog %s)\n\n", p->groups[g].name, p->groups[g].gpu);
		put(o, "Times in ms; error = predicted / measured - 1. Configuration: TP, batch, "
		       "prompt tokens (prefill) or context tokens per sequence (decode); n repeats; "
		       "fit weight: the robust weight of its rows in the fit on every row (0: "
		       "rejected).\n\n");
		for (int ph = 0; ph < AIWI_PH_N; ph++) {
			put(o, "### %s\n\n", ph == AIWI_PH_PREFILL ? "Prefill (TTFT)" : "Decode (TPOT)");
			put(o, "| tp | batch | %s | n | measured |", ph == AIWI_PH_PREFILL ? "prompt" : "context");
			for (int s = 0; s < NS; s++)
				put(o, " %s | err |", SNAME[s]);
			put(o, " fit weight |\n|---:|---:|---:|---:|---:|");
			for (int s = 0; s < NS; s++)
				put(o, "---:|---:|");
			put(o, "---:|\n");
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
				if (isnan(wsum[c]))
					put(o, " | - |\n");
				else if (wsum[c] == 0)
					put(o, " | **0 (rejected)** |\n");
				else
					put(o, " | %.2f |\n", wsum[c]);
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
			put(o, " | |\n\n");
		}
	}
	free(e);
	free(meas);
	free(wsum);
	free(cnt);
	free(row0);
	free(fa);
	free(weight);
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
	generate(&p, source, csv == shipped, &o);
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
