/*
 * plan.h - the plan's state (plan.c), shared with its HTML report
 * (plan_html.c).  Internal to lib/studies.
 */
#ifndef AIW_STUDIES_PLAN_H
#define AIW_STUDIES_PLAN_H

#include "core/internal.h"

#include <stdbool.h>
#include <stdint.h>

enum { AX_GPU, AX_TP, AX_BITS, AX_BATCH, AX_REPLICAS, NAXES };
extern const char *const aiwi_plan_axis[NAXES];
#define NOBJ 4
extern const char *const aiwi_plan_objective[NOBJ];
/* the CSV's column names */
extern const char *const aiwi_plan_colname[AIW_PLAN_NCOLUMNS];
extern const char *const aiwi_plan_tcolname[AIW_PLAN_T_NCOLUMNS];

typedef struct cand {
	const char *v[NAXES];
} cand;

typedef struct plan_row {
	double v[AIW_PLAN_NCOLUMNS];
	char *gpu, *snippet;
	size_t order; /* grid order of the combination */
	cand c;       /* its axis values (the plan's strings) */
} plan_row;

struct aiw_plan {
	char *path, *text, *comp;
	char px[300];
	bool training; /* a [training NAME] job: the layout search */
	double ttft, tpot, max_gpus, power_budget;
	size_t objective, reps, jobs;
	size_t recheck, recheck_reps; /* rows to confirm, runs per row */
	aiw_plan_progress_fn progress;
	void *progress_payload;
	bool stopped; /* the callback asked to stop */
	uint64_t seed;
	bool seed_set, ran;
	char **sets; /* "NAME=VALUE" for every candidate */
	size_t nsets;
	char **ax[NAXES]; /* values as text; NULL: the scenario's */
	size_t nax[NAXES];
	plan_row *rows;
	size_t nrows;
	size_t stats[AIW_PLAN_NSTATS];
	char verdict[2560];
	char err[2048];
};

#endif
