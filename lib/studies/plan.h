/*
 * plan.h - the plan's state (plan.c), shared with its HTML report
 * (plan_html.c).  Internal to lib/studies.
 */
#ifndef AIW_STUDIES_PLAN_H
#define AIW_STUDIES_PLAN_H

#include "core/internal.h"

#include <stdbool.h>
#include <stdint.h>

/* the longest text value of an axis or setting */
#define MAX_TEXT 1024
/* replications per candidate at most; grid values per axis at most */
#define MAX_REPS 1000
#define MAX_VALUES 100000

/* the axes; replicas last (the search's inner axis), target's value set
 * on the parameter the fleet's autoscaler reads (aiwi_plan_target_key) */
enum {
	AX_GPU, AX_TP, AX_BITS, AX_BATCH, AX_PP, AX_SPOT, AX_MNBT, AX_TARGET,
	AX_DISAGG, /* off | on: the fleet aggregated or the prefill pool of decode_fleet */
	AX_DREPL,  /* the decode pool's replicas (disaggregated candidates) */
	AX_REPLICAS, NAXES
};
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
	double attainment, confidence; /* attainment NaN: the means' criterion */
	double train_tokens;           /* NaN: no time-to-train columns */
	char target_key[32];           /* the target axis's parameter (run time) */
	char dpx[300];                 /* the decode pool's prefix; "": no disaggregation axis */
	size_t objective, reps, jobs;
	size_t recheck, recheck_reps; /* rows to confirm, runs per row */
	aiw_plan_progress_fn progress;
	void *progress_payload;
	bool stopped; /* the callback asked to stop */
	uint64_t seed;
	bool seed_set, ran;
	bool parted, merged; /* aiw_plan_run_part ran; aiw_plan_merge ran */
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

/* plan.c: the plan's message (aiw_plan_errmsg) set, st returned; a copy
 * of s (NULL out of memory); the scenario with the plan's settings
 * (aiwi_plan_scenario, plan.c); the metric px.key (px NULL: key) of sim, NaN
 * when it has none */
aiw_status aiwi_plan_err(aiw_plan *p, aiw_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
char *aiwi_plan_dupstr(const char *s);
aiw_sim *aiwi_plan_scenario(aiw_plan *p, aiw_status *st);
double aiwi_plan_metric(aiw_sim *sim, const char *px, const char *key);
/* plan_training.c: 1 the scenario has [inference NAME], 2 only [training
 * NAME], 0 neither; the layout search of a training job */
aiw_status aiwi_plan_component_kind(aiw_plan *p, int *kind);
aiw_status aiwi_plan_run_training(aiw_plan *p);
/* the one-sided Clopper-Pearson lower bound at confidence conf of a
 * binomial share from k successes in n trials (0 when k = 0) */
double aiwi_plan_attainment_lcb(size_t k, size_t n, double conf);
/* Daly 2006's expected wall time of a job of solve time ts (no failure),
 * checkpoint interval tau, checkpoint write time c, restart time r and
 * MTBF m, failures exponential: m e^(r/m) (e^((tau + c)/m) - 1) ts / tau */
double aiwi_plan_daly_time(double ts, double tau, double c, double r, double m);


/* the closest miss of each constraint, for the refusal */
typedef struct miss {
	bool any;
	double ratio, value, limit;
	char where[512];
} miss;

/* One combination of the axes but replicas (index ci in grid order), on the
 * worker's copy of the plan p (its own stats and message), into res. */
typedef struct combo_res {
	aiw_status st;
	char err[2048];
	size_t stats[AIW_PLAN_NSTATS];
	bool mem_refused, has_row;
	char memmsg[1024];
	size_t cap_gpus; /* the GPUs of the smallest count over the cap, or SIZE_MAX */
	miss slo, pow;
	plan_row row;
} combo_res;

/* plan.c's steps, shared with plan_parts.c (the grid split over
 * processes): the checks and the grid's sizes, the results of every
 * combination, the combinations of a share (part of nparts) run on the
 * plan's threads, the ranking and recheck of the results. */
aiw_status aiwi_plan_prepare(aiw_plan *p, size_t *n, size_t *combos);
combo_res *aiwi_plan_new_results(aiw_plan *p, size_t combos);
void aiwi_plan_free_results(combo_res *res, size_t combos);
void aiwi_plan_share(aiw_plan *p, const size_t *n, size_t combos, combo_res *res, size_t part,
                     size_t nparts, size_t *ended);
aiw_status aiwi_plan_finish(aiw_plan *p, size_t combos, combo_res *res, size_t ended);
bool aiwi_plan_combo_cand(const aiw_plan *p, size_t ci, const size_t *n, cand *c);

/* Free a list of n strings (plan.c). */
void aiwi_plan_free_list(char **l, size_t n);

#endif
