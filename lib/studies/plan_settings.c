/*
 * plan_settings.c - a plan's settings: aiw_plan_set (the limits, the
 * objective, replications, threads, seeds) and aiw_plan_grid (an axis's
 * values: lists and ranges), each value checked with its range in the
 * message.  The search is plan.c's.
 */
#include "studies/plan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static aiw_status parse_num(aiw_plan *p, const char *key, const char *kind, const char *value,
                            double lo, double hi, bool whole, bool none, double *out)
{
	if (none && strcmp(value, "none") == 0) {
		*out = INFINITY;
		return AIW_OK;
	}
	char err[256];
	double v;
	aiw_status st = aiw_parse_value(kind, value, &v, err, sizeof err);
	if (st != AIW_OK)
		return aiwi_plan_err(p, st, "aiw_plan_set: %s = '%s': %s (%s from %g to %g%s)", key, value, err,
		            whole ? "an integer" : "a value", lo, hi, none ? ", or none" : "");
	if (!isfinite(v) || v < lo || v > hi || (whole && v != floor(v)))
		return aiwi_plan_err(p, AIW_ERANGE, "aiw_plan_set: %s = %g out of range: %s from %g to %g%s",
		            key, v, whole ? "an integer" : "a value", lo, hi, none ? ", or none" : "");
	*out = v;
	return AIW_OK;
}

aiw_status aiw_plan_set(aiw_plan *p, const char *key, const char *value)
{
	if (!p)
		return AIW_EINVAL;
	if (!key || !value)
		return aiwi_plan_err(p, AIW_EINVAL, "aiw_plan_set: %s is NULL", key ? "value" : "key");
	if (p->ran)
		return aiwi_plan_err(p, AIW_ESTATE, "aiw_plan_set: the plan has run (set before aiw_plan_run)");
	if (strlen(value) > MAX_TEXT)
		return aiwi_plan_err(p, AIW_ERANGE, "aiw_plan_set: %s: value of %zu characters (at most %d)",
		            key, strlen(value), MAX_TEXT);
	double v;
	aiw_status st;
	if (strcmp(key, "ttft_p99") == 0 || strcmp(key, "tpot_p99") == 0) {
		st = parse_num(p, key, "duration", value, 1e-9, 3.2e9, false, true, &v);
		if (st == AIW_OK)
			*(key[1] == 't' ? &p->ttft : &p->tpot) = v;
		return st;
	}
	if (strcmp(key, "max_gpus") == 0) {
		st = parse_num(p, key, "int", value, 1, 1e7, true, true, &v);
		if (st == AIW_OK)
			p->max_gpus = v;
		return st;
	}
	if (strcmp(key, "power_budget") == 0) {
		st = parse_num(p, key, "power", value, 1e-9, 1e12, false, true, &v);
		if (st == AIW_OK)
			p->power_budget = v;
		return st;
	}
	if (strcmp(key, "replications") == 0) {
		st = parse_num(p, key, "int", value, 1, MAX_REPS, true, false, &v);
		if (st == AIW_OK)
			p->reps = (size_t)v;
		return st;
	}
	if (strcmp(key, "recheck") == 0) {
		st = parse_num(p, key, "int", value, 0, 1000, true, false, &v);
		if (st == AIW_OK)
			p->recheck = (size_t)v;
		return st;
	}
	if (strcmp(key, "recheck_replications") == 0) {
		st = parse_num(p, key, "int", value, 2, MAX_REPS, true, false, &v);
		if (st == AIW_OK)
			p->recheck_reps = (size_t)v;
		return st;
	}
	if (strcmp(key, "attainment") == 0 || strcmp(key, "confidence") == 0) {
		bool att = key[0] == 'a';
		if (att && strcmp(value, "none") == 0) {
			p->attainment = NAN;
			return AIW_OK;
		}
		double lo = att ? 0 : 0.5;
		char err[256];
		st = aiw_parse_value("real", value, &v, err, sizeof err);
		if (st != AIW_OK)
			return aiwi_plan_err(p, st, "aiw_plan_set: %s = '%s': %s (a value above %g and "
			                            "below 1%s)",
			                     key, value, err, lo, att ? ", or none" : "");
		if (!(v > lo && v < 1))
			return aiwi_plan_err(p, AIW_ERANGE,
			                     "aiw_plan_set: %s = %g out of range: a value above %g and "
			                     "below 1%s",
			                     key, v, lo, att ? ", or none" : "");
		*(att ? &p->attainment : &p->confidence) = v;
		return AIW_OK;
	}
	if (strcmp(key, "train_tokens") == 0) {
		st = parse_num(p, key, "real", value, 1, 1e18, false, true, &v);
		if (st == AIW_OK)
			p->train_tokens = isfinite(v) ? v : NAN;
		return st;
	}
	if (strcmp(key, "jobs") == 0) {
		st = parse_num(p, key, "int", value, 0, 1024, true, false, &v);
		if (st == AIW_OK) {
			long on = v == 0 ? sysconf(_SC_NPROCESSORS_ONLN) : (long)v;
			p->jobs = on >= 1 ? (size_t)on : 1;
		}
		return st;
	}
	if (strcmp(key, "seed") == 0) {
		char *end;
		unsigned long long s = strtoull(value, &end, 10);
		if (!*value || *end || value[0] == '-')
			return aiwi_plan_err(p, AIW_EPARSE,
			            "aiw_plan_set: seed = '%s': expected an integer from 0 to 2^64 - 1",
			            value);
		p->seed = s;
		p->seed_set = true;
		return AIW_OK;
	}
	if (strcmp(key, "objective") == 0) {
		for (size_t i = 0; i < NOBJ; i++)
			if (strcmp(value, aiwi_plan_objective[i]) == 0) {
				p->objective = i;
				return AIW_OK;
			}
		return aiwi_plan_err(p, AIW_EUNKNOWN,
		            "aiw_plan_set: objective = '%s': one of cost_per_mtok, gpus, energy, "
		            "peak_power",
		            value);
	}
	if (strchr(key, '.')) { /* a scenario parameter of every candidate */
		/* checked now on a scratch simulation (name, type, range) */
		aiw_sim *s;
		if (aiw_sim_create(&s, 1) != AIW_OK)
			return aiwi_plan_err(p, AIW_ENOMEM, "aiw_plan_set: out of memory");
		st = aiw_sim_set(s, key, value);
		if (st != AIW_OK)
			aiwi_plan_err(p, st, "aiw_plan_set: %s", aiw_sim_errmsg(s));
		aiw_sim_free(s);
		if (st != AIW_OK)
			return st;
		size_t len = strlen(key) + strlen(value) + 2;
		char *kv = malloc(len), **l = realloc(p->sets, (p->nsets + 1) * sizeof *l);
		if (!kv || !l) {
			free(kv);
			if (l)
				p->sets = l;
			return aiwi_plan_err(p, AIW_ENOMEM, "aiw_plan_set: out of memory");
		}
		p->sets = l;
		snprintf(kv, len, "%s=%s", key, value);
		p->sets[p->nsets++] = kv;
		return AIW_OK;
	}
	return aiwi_plan_err(p, AIW_EUNKNOWN,
	            "aiw_plan_set: unknown key '%s' (ttft_p99, tpot_p99, objective, max_gpus, "
	            "power_budget, replications, recheck, recheck_replications, attainment, "
	            "confidence, train_tokens, seed, jobs, or a scenario parameter NAME.KEY)",
	            key);
}

/* One value of an integer axis range "A..B" expanded, else the value. */
static aiw_status add_value(aiw_plan *p, char ***l, size_t *n, const char *v, size_t len)
{
	if (*n >= MAX_VALUES)
		return aiwi_plan_err(p, AIW_ELIMIT, "aiw_plan_grid: more than %d values", MAX_VALUES);
	char **nl = realloc(*l, (*n + 1) * sizeof *nl);
	if (!nl)
		return aiwi_plan_err(p, AIW_ENOMEM, "aiw_plan_grid: out of memory");
	*l = nl;
	char *s = malloc(len + 1);
	if (!s)
		return aiwi_plan_err(p, AIW_ENOMEM, "aiw_plan_grid: out of memory");
	memcpy(s, v, len);
	s[len] = '\0';
	nl[(*n)++] = s;
	return AIW_OK;
}

aiw_status aiw_plan_grid(aiw_plan *p, const char *param, const char *values_csv)
{
	if (!p)
		return AIW_EINVAL;
	if (!param || !values_csv)
		return aiwi_plan_err(p, AIW_EINVAL, "aiw_plan_grid: %s is NULL", param ? "values_csv" : "param");
	if (p->ran)
		return aiwi_plan_err(p, AIW_ESTATE, "aiw_plan_grid: the plan has run (set before aiw_plan_run)");
	size_t a = 0;
	while (a < NAXES && strcmp(aiwi_plan_axis[a], param) != 0)
		a++;
	if (a == NAXES)
		return aiwi_plan_err(p, AIW_EUNKNOWN,
		            "aiw_plan_grid: param '%s': one of gpu, gpus_per_replica, weight_bits, "
		            "max_batch, pp, spot_fraction, max_num_batched_tokens, target, "
		            "disaggregation, decode_replicas, replicas",
		            param);
	char **l = NULL;
	size_t n = 0;
	aiw_status st = AIW_OK;
	const char *s = values_csv;
	while (st == AIW_OK) {
		const char *e = strchr(s, ',');
		size_t len = e ? (size_t)(e - s) : strlen(s);
		if (len == 0 || len > 200) {
			st = aiwi_plan_err(p, AIW_EPARSE,
			          "aiw_plan_grid: %s: empty or too long value in '%s' (comma-separated "
			          "values, integer ranges A..B)",
			          param, values_csv);
			break;
		}
		char buf[256];
		memcpy(buf, s, len);
		buf[len] = '\0';
		char *dots = strstr(buf, "..");
		if (dots && a != AX_GPU && a != AX_DISAGG) {
			*dots = '\0';
			char *e1, *e2;
			long lo = strtol(buf, &e1, 10), hi = strtol(dots + 2, &e2, 10);
			if (!*buf || *e1 || !dots[2] || *e2 || lo < 0 || hi < lo || hi - lo >= MAX_VALUES) {
				st = aiwi_plan_err(p, AIW_EPARSE,
				          "aiw_plan_grid: %s: range '%.*s': expected A..B, integers, 0 <= "
				          "A <= B, at most %d values",
				          param, (int)len, s, MAX_VALUES);
				break;
			}
			for (long v = lo; v <= hi && st == AIW_OK; v++) {
				char t[32];
				int tl = snprintf(t, sizeof t, "%ld", v);
				st = add_value(p, &l, &n, t, (size_t)tl);
			}
		} else {
			st = add_value(p, &l, &n, buf, len);
		}
		if (!e)
			break;
		s = e + 1;
	}
	/* every value checked now, on a scratch fleet */
	aiw_sim *sim = NULL;
	if (st == AIW_OK && aiw_sim_create(&sim, 1) != AIW_OK)
		st = aiwi_plan_err(p, AIW_ENOMEM, "aiw_plan_grid: out of memory");
	for (size_t i = 0; i < n && st == AIW_OK; i++) {
		char name[340];
		snprintf(name, sizeof name, "%s.%s", p->px,
		         a == AX_TARGET ? "target_value" : a == AX_DREPL ? "replicas" : aiwi_plan_axis[a]);
		if (a == AX_DISAGG) {
			if (strcmp(l[i], "off") != 0 && strcmp(l[i], "on") != 0)
				st = aiwi_plan_err(p, AIW_EINVAL,
				                   "aiw_plan_grid: disaggregation = %s: allowed off (the "
				                   "fleet aggregated) and on (the prefill pool of its "
				                   "decode_fleet)",
				                   l[i]);
			for (size_t j = 0; j < i && st == AIW_OK; j++)
				if (strcmp(l[j], l[i]) == 0)
					st = aiwi_plan_err(p, AIW_EINVAL,
					                   "aiw_plan_grid: disaggregation = %s given twice",
					                   l[i]);
			continue;
		}
		if (a == AX_GPU) {
			double d;
			if (aiw_catalog_gpu_value(l[i], "mem_bytes", &d) != AIW_OK)
				continue; /* a [gpu NAME] of the scenario: checked at the run */
		}
		aiw_status s2 = aiw_sim_set(sim, name, l[i]);
		if (s2 != AIW_OK)
			st = aiwi_plan_err(p, s2, "aiw_plan_grid: %s", aiw_sim_errmsg(sim));
		if (st == AIW_OK && (a == AX_REPLICAS || a == AX_DREPL)) {
			double r;
			aiw_sim_get_double(sim, name, &r);
			if (!(r >= 1))
				st = aiwi_plan_err(p, AIW_ERANGE,
				          "aiw_plan_grid: %s = %s out of range: an integer from 1 to "
				          "100000",
				          aiwi_plan_axis[a], l[i]);
		}
	}
	aiw_sim_free(sim);
	if (st != AIW_OK) {
		aiwi_plan_free_list(l, n);
		return st;
	}
	aiwi_plan_free_list(p->ax[a], p->nax[a]);
	p->ax[a] = l;
	p->nax[a] = n;
	return AIW_OK;
}

