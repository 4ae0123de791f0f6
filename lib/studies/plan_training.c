/*
 * plan_training.c - the plan of a [training NAME] job (aiw_plan_create with
 * a training component): every tp x pp x dp = gpus (tp within a node) x
 * micro_batch 1, 2, 4, 8 (micro_batch x dp dividing global_batch) x
 * zero_stage 0..3 x recompute none, selective, full, each started to time
 * 0 so that the job's own start check decides feasibility (memory and the
 * layout's rules) and the layout model's step_time_model_s gives tokens/s
 * (global_batch x seq_len over it), ranked by tokens/s; an empty table
 * names the memory need of the closest layout.  Part of the plan
 * (plan.c; its state in plan.h), through the public API.
 */
#include "studies/plan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* 1: the scenario has [inference NAME], 2: only [training NAME], 0: neither
 * (or the scenario does not load: the serving path reports it). */
aiw_status aiwi_plan_component_kind(aiw_plan *p, int *kind)
{
	*kind = 0;
	aiw_sim *sim;
	if (aiw_sim_create(&sim, 1) != AIW_OK)
		return aiwi_plan_err(p, AIW_ENOMEM, "aiw_plan_run: out of memory");
	aiw_status st = p->path ? aiw_sim_load_file(sim, p->path)
	                        : aiw_sim_load_string(sim, p->text, "scenario");
	size_t nc = 0;
	if (st == AIW_OK)
		aiw_sim_component_count(sim, &nc);
	for (size_t i = 0; i < nc; i++) {
		const char *k, *name;
		aiw_sim_component(sim, i, &k, &name);
		if (strcmp(name, p->comp) != 0)
			continue;
		if (strcmp(k, "inference") == 0)
			*kind = 1;
		else if (strcmp(k, "training") == 0 && *kind == 0)
			*kind = 2;
	}
	aiw_sim_free(sim);
	return AIW_OK;
}

static const char *const RECOMPUTE[] = {"none", "selective", "full"};
static const double MICRO_BATCHES[] = {1, 2, 4, 8};

typedef struct tcand {
	double tp, pp, dp, zero, mb, rc;
} tcand;

/* the scenario, the plan's settings and the layout c (NULL: none) */
static aiw_status tload(aiw_plan *p, const tcand *c, bool warn, aiw_sim **out)
{
	aiw_sim *sim;
	aiw_status st;
	if (!(sim = aiwi_plan_scenario(p, &st)))
		return st;
	if (st == AIW_OK && p->seed_set) {
		char buf[32];
		snprintf(buf, sizeof buf, "%llu", (unsigned long long)p->seed);
		st = aiw_sim_set(sim, "sim.seed", buf);
	}
	char name[400], buf[32];
	if (c) {
		const char *key[] = {"tp", "pp", "dp", "zero_stage", "micro_batch"};
		const double val[] = {c->tp, c->pp, c->dp, c->zero, c->mb};
		for (size_t i = 0; i < 5 && st == AIW_OK; i++) {
			snprintf(name, sizeof name, "%s.%s", p->px, key[i]);
			snprintf(buf, sizeof buf, "%.0f", val[i]);
			st = aiw_sim_set(sim, name, buf);
		}
		if (st == AIW_OK) {
			snprintf(name, sizeof name, "%s.recompute", p->px);
			st = aiw_sim_set(sim, name, RECOMPUTE[(int)c->rc]);
		}
		if (st == AIW_OK) {
			snprintf(name, sizeof name, "%s.memory_check", p->px);
			st = aiw_sim_set(sim, name, warn ? "warn" : "refuse");
		}
	}
	if (st != AIW_OK) {
		aiwi_plan_err(p, st, "aiw_plan_run: %s", aiw_sim_errmsg(sim));
		aiw_sim_free(sim);
		return st;
	}
	*out = sim;
	return AIW_OK;
}

static char *tsnippet(const aiw_plan *p, const tcand *c)
{
	size_t len = 512 + 8 * strlen(p->px);
	for (size_t i = 0; i < p->nsets; i++)
		len += strlen(p->sets[i]) + 16;
	char *s = malloc(len);
	if (!s)
		return NULL;
	size_t o = 0;
	for (size_t i = 0; i < p->nsets; i++)
		o += (size_t)snprintf(s + o, len - o, "--set %s\n", p->sets[i]);
	o += (size_t)snprintf(s + o, len - o,
	                      "--set %s.tp=%.0f\n--set %s.pp=%.0f\n--set %s.dp=%.0f\n"
	                      "--set %s.zero_stage=%.0f\n--set %s.micro_batch=%.0f\n"
	                      "--set %s.recompute=%s\n",
	                      p->px, c->tp, p->px, c->pp, p->px, c->dp, p->px, c->zero, p->px, c->mb,
	                      p->px, RECOMPUTE[(int)c->rc]);
	if (p->seed_set)
		snprintf(s + o, len - o, "--set sim.seed=%llu\n", (unsigned long long)p->seed);
	return s;
}

double aiwi_plan_daly_time(double ts, double tau, double c, double r, double m)
{
	if (!(m < INFINITY))
		return ts; /* no failure */
	if (!(tau < ts)) /* one segment, no checkpoint */
		return m * exp(r / m) * expm1(ts / m);
	return m * exp(r / m) * expm1((tau + c) / m) * ts / tau;
}

/* The mean of the job's distribution parameter key (a duration); NaN when
 * it cannot be read. */
static double dist_mean(aiw_plan *p, aiw_sim *sim, const char *key)
{
	char name[400], text[MAX_TEXT + 1], err[256];
	snprintf(name, sizeof name, "%s.%s", p->px, key);
	if (aiw_sim_get(sim, name, text, sizeof text) != AIW_OK)
		return NAN;
	aiwi_dist *d;
	if (aiwi_dist_parse(text, AIW_PT_DURATION, NULL, &d, err, sizeof err) != AIW_OK)
		return NAN;
	double m = aiwi_dist_mean(d);
	aiwi_dist_free(d);
	return m;
}

/* Time and cost to train train_tokens with failures (the AIW_PLAN_T_TRAIN_*
 * columns) of the layout started in sim, its step time step: the solve
 * time ts = ceil(train_tokens / (global_batch x seq_len)) steps x step; the
 * job's MTBF M = gpu_mtbf / gpus (failures Poisson over its GPUs, as the
 * job draws them); its checkpoint write time C (checkpoint_time_s) and
 * interval tau (checkpoint_interval_s: auto is Daly's optimum); the
 * restart R the mean of restart_time, plus replace_time's when the job
 * keeps no hot spare; Young 1974's interval sqrt(2 C M) beside it; the
 * expected wall time Daly 2006's T = M e^(R/M) (e^((tau + C)/M) - 1) ts /
 * tau; its cost at the job's cost per wall second over its first
 * COST_STEPS steps (cost_usd / wall_s: the provisioned GPUs' hardware and
 * the energy at the step's power). */
#define COST_STEPS 10
static aiw_status train_columns(aiw_plan *p, aiw_sim *sim, double tokens_step, double step,
                                double *v)
{
	char name[400];
	double gpus = NAN, mtbf = NAN, spares = 0;
	snprintf(name, sizeof name, "%s.gpus", p->px);
	aiw_sim_get_double(sim, name, &gpus);
	snprintf(name, sizeof name, "%s.gpu_mtbf", p->px);
	if (aiw_sim_get_double(sim, name, &mtbf) != AIW_OK || !(mtbf > 0))
		mtbf = INFINITY;
	snprintf(name, sizeof name, "%s.hot_spares", p->px);
	aiw_sim_get_double(sim, name, &spares);
	double M = mtbf / gpus;
	double C = aiwi_plan_metric(sim, p->px, "checkpoint_time_s");
	double tau = aiwi_plan_metric(sim, p->px, "checkpoint_interval_s");
	double R = dist_mean(p, sim, "restart_time");
	if (!(spares >= 1))
		R += dist_mean(p, sim, "replace_time");
	double ts = ceil(p->train_tokens / tokens_step) * step;
	v[AIW_PLAN_T_TRAIN_SOLVE_S] = ts;
	v[AIW_PLAN_T_CKPT_YOUNG_S] = isfinite(M) ? sqrt(2 * C * M) : NAN;
	v[AIW_PLAN_T_CKPT_INTERVAL_S] = tau;
	v[AIW_PLAN_T_TRAIN_TIME_S] = aiwi_plan_daly_time(ts, tau, C, R, M);
	aiw_status st = aiw_sim_run_until(sim, COST_STEPS * step);
	if (st != AIW_OK)
		return aiwi_plan_err(p, st, "aiw_plan_run: %s", aiw_sim_errmsg(sim));
	double cost = aiwi_plan_metric(sim, p->px, "cost_usd"),
	       wall = aiwi_plan_metric(sim, p->px, "wall_s");
	v[AIW_PLAN_T_TRAIN_COST_USD] = wall > 0 ? cost / wall * v[AIW_PLAN_T_TRAIN_TIME_S] : NAN;
	return AIW_OK;
}

static int cmp_trows(const void *a, const void *b)
{
	const plan_row *x = a, *y = b;
	if (x->v[AIW_PLAN_T_TOKENS_PER_S] != y->v[AIW_PLAN_T_TOKENS_PER_S])
		return x->v[AIW_PLAN_T_TOKENS_PER_S] > y->v[AIW_PLAN_T_TOKENS_PER_S] ? -1 : 1;
	double mx = x->v[AIW_PLAN_T_MEMORY_PER_GPU_BYTES], my = y->v[AIW_PLAN_T_MEMORY_PER_GPU_BYTES];
	if (mx != my)
		return mx < my ? -1 : 1;
	return (x->order > y->order) - (x->order < y->order);
}

aiw_status aiwi_plan_run_training(aiw_plan *p)
{
	for (size_t a = 0; a < NAXES; a++)
		if (p->ax[a])
			return aiwi_plan_err(p, AIW_EINVAL,
			            "aiw_plan_run: %s is a training job: its grid is tp x pp x dp x "
			            "zero_stage x micro_batch x recompute, aiw_plan_grid's '%s' does "
			            "not apply",
			            p->px, aiwi_plan_axis[a]);
	if (isfinite(p->attainment))
		return aiwi_plan_err(p, AIW_EINVAL,
		            "aiw_plan_run: attainment = %g applies to a serving plan; %s is a training "
		            "job",
		            p->attainment, p->px);
	aiw_sim *sim;
	aiw_status st = tload(p, NULL, false, &sim);
	if (st != AIW_OK)
		return st;
	double gpus = NAN, gpn = NAN, gb = NAN, seq = NAN, layers = NAN;
	char name[400];
	const char *key[] = {"gpus", "gpus_per_node", "global_batch", "seq_len", "layers"};
	double *val[] = {&gpus, &gpn, &gb, &seq, &layers};
	for (size_t i = 0; i < 5; i++) {
		snprintf(name, sizeof name, "%s.%s", p->px, key[i]);
		if (aiw_sim_get_double(sim, name, val[i]) != AIW_OK)
			*val[i] = NAN;
	}
	aiw_sim_free(sim);
	for (size_t i = 0; i < 5; i++)
		if (!(isfinite(*val[i]) && *val[i] >= 1 && floor(*val[i]) == *val[i]))
			return aiwi_plan_err(p, AIW_EINVAL,
			            "aiw_plan_run: %s.%s = %g: the layout search needs a whole "
			            "number >= 1 (the layout model's layers, hidden, heads, seq_len and "
			            "global_batch, the job's gpus and gpus_per_node)",
			            p->px, key[i], *val[i]);
	if (gpus > 1e6)
		return aiwi_plan_err(p, AIW_ERANGE, "aiw_plan_run: %s.gpus = %g: the search takes 1 to 1e6",
		            p->px, gpus);
	p->ran = true;
	size_t cap = 0, order = 0;
	double best_need = INFINITY;
	char memmsg[1024] = "", other[1024] = "";
	for (double tp = 1; tp <= fmin(gpus, gpn); tp++) {
		if (fmod(gpus, tp) != 0)
			continue;
		for (double pp = 1; pp <= gpus / tp; pp++) {
			if (fmod(gpus / tp, pp) != 0)
				continue;
			double dp = gpus / (tp * pp);
			for (size_t m = 0; m < sizeof MICRO_BATCHES / sizeof *MICRO_BATCHES; m++) {
				double mb = MICRO_BATCHES[m];
				if (fmod(gb, mb * dp) != 0)
					continue;
				for (int zero = 0; zero <= 3; zero++)
					for (int rc = 0; rc <= 2; rc++) {
						tcand c = {tp, pp, dp, zero, mb, rc};
						p->stats[AIW_PLAN_STAT_CANDIDATES]++;
						size_t ord = order++;
						if ((st = tload(p, &c, false, &sim)) != AIW_OK)
							return st;
						st = aiw_sim_run_until(sim, 0);
						if (st == AIW_ERANGE || st == AIW_EINVAL || st == AIW_ESCENARIO) {
							p->stats[AIW_PLAN_STAT_PRUNED_MEMORY]++;
							/* the refusal, kept before its simulation goes */
							char keep[1024];
							snprintf(keep, sizeof keep, "%s", aiw_sim_errmsg(sim));
							aiw_sim_free(sim);
							bool mem = strstr(keep, "the layout needs") != NULL;
							if (!mem && !other[0])
								snprintf(other, sizeof other, "%s", keep);
							if (!mem)
								continue;
							/* the memory need, from the same model run as warn */
							if ((st = tload(p, &c, true, &sim)) != AIW_OK)
								return st;
							double need = NAN;
							if (aiw_sim_run_until(sim, 0) == AIW_OK)
								need = aiwi_plan_metric(sim, p->px, "memory_per_gpu_bytes");
							aiw_sim_free(sim);
							if (isfinite(need) && need < best_need) {
								best_need = need;
								snprintf(memmsg, sizeof memmsg, "%s", keep);
							}
							continue;
						} else if (st != AIW_OK) {
							aiwi_plan_err(p, st, "aiw_plan_run: %s", aiw_sim_errmsg(sim));
							aiw_sim_free(sim);
							return st;
						}
						double step = aiwi_plan_metric(sim, p->px, "step_time_model_s");
						plan_row r = {.order = ord};
						for (size_t j = 0; j < AIW_PLAN_NCOLUMNS; j++)
							r.v[j] = NAN;
						r.v[AIW_PLAN_T_TOKENS_PER_S] = gb * seq / step;
						r.v[AIW_PLAN_T_GPUS] = gpus;
						r.v[AIW_PLAN_T_TP] = tp;
						r.v[AIW_PLAN_T_PP] = pp;
						r.v[AIW_PLAN_T_DP] = dp;
						r.v[AIW_PLAN_T_ZERO_STAGE] = zero;
						r.v[AIW_PLAN_T_MICRO_BATCH] = mb;
						r.v[AIW_PLAN_T_RECOMPUTE] = rc;
						r.v[AIW_PLAN_T_STEP_TIME_S] = step;
						r.v[AIW_PLAN_T_MEMORY_PER_GPU_BYTES] =
						    aiwi_plan_metric(sim, p->px, "memory_per_gpu_bytes");
						r.v[AIW_PLAN_T_MFU] = aiwi_plan_metric(sim, p->px, "mfu_model");
						if (isfinite(p->train_tokens) && step > 0 && isfinite(step) &&
						    (st = train_columns(p, sim, gb * seq, step, r.v)) != AIW_OK) {
							aiw_sim_free(sim);
							return st;
						}
						char g[256] = "";
						snprintf(name, sizeof name, "%s.gpu", p->px);
						aiw_sim_get(sim, name, g, sizeof g);
						aiw_sim_free(sim);
						if (!(step > 0 && isfinite(step)))
							return aiwi_plan_err(p, AIW_ERANGE,
							            "aiw_plan_run: %s: step_time_model_s = %g for "
							            "tp = %g, pp = %g, dp = %g",
							            p->px, step, tp, pp, dp);
						r.gpu = aiwi_plan_dupstr(g);
						r.snippet = tsnippet(p, &c);
						if (p->nrows == cap) {
							size_t nc = cap ? 2 * cap : 64;
							plan_row *nr = realloc(p->rows, nc * sizeof *nr);
							if (!nr) {
								free(r.gpu);
								free(r.snippet);
								return aiwi_plan_err(p, AIW_ENOMEM, "aiw_plan_run: out of memory");
							}
							p->rows = nr;
							cap = nc;
						}
						p->rows[p->nrows++] = r;
						if (!r.gpu || !r.snippet)
							return aiwi_plan_err(p, AIW_ENOMEM, "aiw_plan_run: out of memory");
					}
			}
		}
	}
	if (p->nrows > 1) /* no rows: no array (qsort's argument must not be NULL) */
		qsort(p->rows, p->nrows, sizeof *p->rows, cmp_trows);
	p->stats[AIW_PLAN_STAT_SIMULATED] = p->nrows;
	p->stats[AIW_PLAN_STAT_RUNS] = p->stats[AIW_PLAN_STAT_CANDIDATES];
	p->stats[AIW_PLAN_STAT_ROWS] = p->nrows;
	if (p->nrows == 0) {
		if (memmsg[0])
			snprintf(p->verdict, sizeof p->verdict,
			         "memory: no layout of the %zu fits; the closest needs %.1f GB per GPU: %s",
			         p->stats[AIW_PLAN_STAT_CANDIDATES], best_need / 1e9, memmsg);
		else if (other[0])
			snprintf(p->verdict, sizeof p->verdict,
			         "layout: every candidate refused by the job's start check (the first: %s)",
			         other);
		else
			snprintf(p->verdict, sizeof p->verdict,
			         "layout: no tp x pp x dp x micro_batch of gpus = %g (gpus_per_node = %g) "
			         "divides global_batch = %g",
			         gpus, gpn, gb);
	}
	return AIW_OK;
}
