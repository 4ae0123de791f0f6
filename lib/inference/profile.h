/*
 * profile.h - measured serving times (a profile) and the fit of the
 * iteration model's coefficients (iteration.h) to them.
 *
 * A profile is a CSV table read as it is, in one of two layouts chosen by
 * its header:
 *  - Splitwise's profiling database (Patel et al., ISCA 2024, perf_model.csv:
 *    model, hardware, tensor_parallel, prompt_size, batch_size, token_size,
 *    prompt_time, token_time in ms, other columns ignored): every row is one
 *    prefill measurement (batch_size prompts of prompt_size tokens) and one
 *    decode measurement (batch_size sequences, the mean over the decode of
 *    prompt_size + token_size / 2 tokens of context each);
 *  - the library's own: phase (prefill|decode), gpu, tp, batch, prompt,
 *    context, time_s, and optionally pp: prompt is the prompt length of
 *    each sequence (prefill), context the tokens each sequence holds
 *    (decode).
 * Rows group by their GPU name (the hardware column as written); a group
 * maps to a catalog GPU for the datasheet terms (a100-80gb -> A100-80GB,
 * h100-80gb and h100-80gb-pcap -> H100-SXM, else the name itself).
 *
 * The fit, per group and phase, is the linear least-squares problem
 * y = sum_j beta_j x_j over the free coefficients (held ones at their
 * datasheet values move to the left side), on relative errors and robust
 * (profile.c): one point per configuration (its repeats' mean), divided by
 * the larger of its measured and predicted times; Huber's then Tukey's
 * bisquare weights by iteratively reweighted gsl_multifit_wlinear, so that
 * a configuration the others contradict gets weight 0 (rejected, in
 * weight[]); every coefficient at or above its physical bound
 * (aiwi_prof_lower_bound: one that crosses it is held there and the others
 * fitted again).  Standard errors are the last weighted fit's covariance
 * scaled by its reduced chi-square.  Tables that do not determine a free
 * coefficient are refused, the message naming what is missing.
 * With tp_link_pcie set the TP all-reduces run on the group's host PCIe
 * link instead of its scale-up link (a hypothesis to test on a table).
 */
#ifndef AIW_INFERENCE_PROFILE_H
#define AIW_INFERENCE_PROFILE_H

#include "inference/iteration.h"

#define AIWI_PROF_NAME 48

typedef struct aiwi_prof_row {
	int phase, group;
	double tp, pp;
	double batch, prompt, context, out; /* out: Splitwise's token_size, else 0 */
	double u, v;                        /* the sizes of the phase's terms */
	double y;                           /* measured time (s) */
	int config;                         /* rows that repeat one measurement share it */
} aiwi_prof_row;

typedef struct aiwi_prof_group {
	char name[AIWI_PROF_NAME]; /* as the table writes it */
	char gpu[AIWI_PROF_NAME];  /* catalog GPU */
	char host[16];             /* built-in link to the host (PCIe), "" if unknown */
} aiwi_prof_group;

typedef struct aiwi_profile {
	char err[512];
	aiwi_iter_shape shape; /* tp and pp come from each row */
	double overhead_s;     /* datasheet overhead */
	bool tp_link_pcie;     /* the TP all-reduces on the host PCIe link */
	bool hold[AIWI_PH_N][AIWI_IT_NTERMS];
	double held_at[AIWI_PH_N][AIWI_IT_NTERMS]; /* a held coefficient's value (NAN: datasheet) */
	aiwi_prof_row *rows;
	size_t nrows, cap;
	aiwi_prof_group *groups;
	size_t ngroups;
	int nconfigs;
	/* the configurations by their sizes (open addressing: a row of the
	 * configuration + 1, 0 empty), chcap a power of two */
	size_t *chash, chcap;
	int splitwise; /* the layout read */
	/* the robust fit's weight of every row in the last aiwi_prof_fit (0:
	 * rejected as inconsistent with the others; NAN: not in that fit) */
	double *weight;
} aiwi_profile;

/* Defaults: Llama-2-70B's shape, the overhead estimate, held terms
 * prefill.mem, decode.attn and decode.mem (the weights' read is constant
 * at a TP degree, as the overhead; the KV reads and the decode attention
 * grow with the context alone, which tables vary little: the fit cannot
 * tell them apart, and the read of the weights at the HBM bandwidth is the
 * datasheet figure least in doubt). */
void aiwi_prof_init(aiwi_profile *p);
void aiwi_prof_clear(aiwi_profile *p);
/* Read a CSV file (appends rows); messages name file:line and the column. */
aiw_status aiwi_prof_read(aiwi_profile *p, const char *path);
aiw_status aiwi_prof_read_text(aiwi_profile *p, const char *text, const char *origin);
/* A group by its name or its catalog GPU's (case-insensitive), or -1. */
int aiwi_prof_group_find(const aiwi_profile *p, const char *name);
/* The terms of row r at datasheet peaks. */
aiw_status aiwi_prof_terms(aiwi_profile *p, const aiwi_prof_row *r, double x[AIWI_IT_NTERMS]);
/* Datasheet coefficients of a group's GPU for a phase. */
aiw_status aiwi_prof_datasheet(aiwi_profile *p, int group, int phase,
                               double beta[AIWI_IT_NTERMS]);
/* Fit a phase on the rows of `group` (-1: every group) for which use[i]
 * is true (use NULL: all).  beta gets every coefficient (held ones at
 * their datasheet values: those of the group, or of the first group in
 * the rows when group is -1), se the standard errors (0 for held ones). */
aiw_status aiwi_prof_fit(aiwi_profile *p, int group, int phase, const bool *use,
                         double beta[AIWI_IT_NTERMS], double se[AIWI_IT_NTERMS], size_t *nused);
/* The physical lower bound of a coefficient: 0 for the host costs
 * (overhead, seq: s), 1 for the others (1 / an efficiency, at most the
 * peak). */
double aiwi_prof_lower_bound(int term);
/* Predicted time of row r with coefficients beta. */
double aiwi_prof_predict(aiwi_profile *p, const aiwi_prof_row *r, const double beta[AIWI_IT_NTERMS]);

#endif /* AIW_INFERENCE_PROFILE_H */
