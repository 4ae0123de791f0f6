/*
 * plan_output.c - a plan's results as the caller reads them (plan.c runs
 * the plan): its counts (aiw_plan_stats), its ranked rows
 * (aiw_plan_row), the verdict of an empty table (aiw_plan_verdict), the
 * column names and the CSV (aiw_plan_write_csv).  The HTML report is
 * plan_html.c.
 */
#include "studies/plan.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

aiw_status aiw_plan_stats(const aiw_plan *p, size_t *out, size_t n)
{
	if (!p || !out)
		return AIW_EINVAL;
	if (n > AIW_PLAN_NSTATS)
		n = AIW_PLAN_NSTATS;
	if (!p->ran)
		return AIW_ESTATE;
	memcpy(out, p->stats, n * sizeof *out);
	return AIW_OK;
}

aiw_status aiw_plan_row(const aiw_plan *p, size_t i, double *out, size_t ncolumns,
                        const char **gpu, const char **snippet_out)
{
	if (!p)
		return AIW_EINVAL;
	if (!p->ran)
		return AIW_ESTATE;
	if (i >= p->nrows)
		return AIW_ERANGE;
	if (ncolumns > 0 && !out)
		return AIW_EINVAL;
	if (ncolumns > AIW_PLAN_NCOLUMNS)
		ncolumns = AIW_PLAN_NCOLUMNS;
	if (ncolumns)
		memcpy(out, p->rows[i].v, ncolumns * sizeof *out);
	if (gpu)
		*gpu = p->rows[i].gpu;
	if (snippet_out)
		*snippet_out = p->rows[i].snippet;
	return AIW_OK;
}

aiw_status aiw_plan_verdict(const aiw_plan *p, const char **out)
{
	if (!p || !out)
		return AIW_EINVAL;
	if (!p->ran)
		return AIW_ESTATE;
	*out = p->verdict;
	return AIW_OK;
}

const char *const aiwi_plan_axis[NAXES] = {"gpu", "gpus_per_replica", "weight_bits",
                                           "max_batch", "pp", "spot_fraction",
                                           "max_num_batched_tokens", "target", "disaggregation",
                                           "decode_replicas", "replicas"};
const char *const aiwi_plan_objective[NOBJ] = {"cost_per_mtok", "gpus", "energy", "peak_power"};

const char *const aiwi_plan_colname[AIW_PLAN_NCOLUMNS] = {
    "objective",        "gpus",         "replicas",         "gpus_per_replica",
    "weight_bits",      "max_batch",    "ttft_p99_s",       "ttft_p99_ci95_s",
    "tpot_p99_s",       "tpot_p99_ci95_s", "power_peak_w",  "energy_kwh",
    "cost_per_mtok_usd", "pareto_ttft", "pareto_power", "recheck_ttft_p99_s",
    "recheck_ttft_p99_ci95_s", "recheck_tpot_p99_s", "recheck_tpot_p99_ci95_s",
    "recheck_met_share", "recheck_ok", "pp", "spot_fraction", "max_num_batched_tokens",
    "autoscaler_target", "met_share", "attainment_lcb", "disaggregated", "decode_replicas",
    "decode_gpus"};

const char *const aiwi_plan_tcolname[AIW_PLAN_T_NCOLUMNS] = {
    "tokens_per_s", "gpus",        "tp",           "pp",
    "dp",           "zero_stage",  "micro_batch",  "recompute",
    "step_time_s",  "memory_per_gpu_bytes", "mfu", "train_solve_s", "ckpt_young_s",
    "ckpt_interval_s", "train_time_s", "train_cost_usd"};

aiw_status aiw_plan_write_csv(aiw_plan *p, const char *path)
{
	if (!p)
		return AIW_EINVAL;
	if (!path)
		return aiwi_plan_err(p, AIW_EINVAL, "aiw_plan_write_csv: path is NULL");
	if (!p->ran)
		return aiwi_plan_err(p, AIW_ESTATE, "aiw_plan_write_csv: the plan has not run");
	FILE *f = fopen(path, "w");
	if (!f)
		return aiwi_plan_err(p, AIW_EIO, "aiw_plan_write_csv: cannot open '%s'", path);
	size_t ncol = p->training ? AIW_PLAN_T_NCOLUMNS : AIW_PLAN_NCOLUMNS;
	fputs("rank,gpu", f);
	for (size_t j = 0; j < ncol; j++)
		fprintf(f, ",%s", p->training ? aiwi_plan_tcolname[j] : aiwi_plan_colname[j]);
	fputs(",snippet\n", f);
	for (size_t i = 0; i < p->nrows; i++) {
		fprintf(f, "%zu,%s", i + 1, p->rows[i].gpu);
		for (size_t j = 0; j < ncol; j++) {
			double v = p->rows[i].v[j];
			if (isfinite(v))
				fprintf(f, ",%.17g", v);
			else
				fputs(",", f);
		}
		fputs(",\"", f);
		/* RFC 4180: the lines joined by spaces, a quote doubled */
		for (const char *s = p->rows[i].snippet; *s; s++)
			fputs(*s == '\n' ? (s[1] ? " " : "") : *s == '"' ? "\"\"" : (char[2]){*s, 0}, f);
		fputs("\"\n", f);
	}
	bool bad = ferror(f) != 0;
	bad = fclose(f) != 0 || bad;
	if (bad)
		return aiwi_plan_err(p, AIW_EIO, "aiw_plan_write_csv: cannot write '%s'", path);
	return AIW_OK;
}
