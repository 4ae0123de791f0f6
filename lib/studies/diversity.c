/*
 * diversity.c - aiw_site_diversity_sweep: the site's diversity factor as a
 * function of the training share of its GPUs.
 */
#include "core/internal.h"
#include "hw/hw.h"
#include "site/cost.h"
#include "site/power.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* The training-share sweep: "ask for the training/inference ratio first".   */
/* ------------------------------------------------------------------------ */
#define SWEEP_MAX_STEPS 10001

static size_t param_or_none(const aiwi_kind *k, const char *key)
{
	return k->nparams ? aiwi_kind_param_index(k, key) : SIZE_MAX;
}

/* Copy every parameter value of src into a component of the same kind and
 * name in dst. */
static aiw_status copy_comp(aiw_sim *dst, const aiwi_comp *src)
{
	aiwi_comp *c;
	aiw_status st = aiwi_comp_get(dst, src->kind->name, src->name, true, &c);
	if (st != AIW_OK)
		return st;
	for (size_t j = 0; j < src->kind->nparams; j++)
		if ((st = aiwi_value_copy(&c->v[j], &src->v[j])) != AIW_OK)
			return aiwi_err(dst, st, "out of memory");
	return AIW_OK;
}

static aiw_status set_num(aiw_sim *sim, const aiwi_comp *c, const char *key, double v)
{
	char name[256];
	snprintf(name, sizeof name, "%s.%s", c->prefix, key);
	return aiw_sim_set_double(sim, name, v);
}

/* What one share's run is scaled from: the scenario's own run (the probe). */
typedef struct base_run {
	double train_gpus;      /* the scenario's training GPUs (0: unset) */
	double tokens_per_step; /* its tokens per step (0: unset) */
	double served_replicas; /* the replicas its fleet really used: the peak */
	double slo_attainment;  /* its SLO attainment */
	/* a training job with a layout (layers set): its model-parallel size
	 * tp x pp x cp (0: no layout) and its global_batch (0: unset) */
	double model_parallel;
	double global_batch;
} base_run;

/* A share is overloaded when its fleet serves clearly worse than the
 * scenario's own: SLO attainment more than OVERLOAD_SLO_DROP under the
 * scenario's, or more than OVERLOAD_IN_FLIGHT of its requests still in
 * flight at the end (a queue that grew through the run). */
#define OVERLOAD_SLO_DROP 0.05
#define OVERLOAD_IN_FLIGHT 0.01

static double metric_or_nan(aiw_sim *sim, const char *prefix, const char *key)
{
	char name[256];
	double v = NAN;
	snprintf(name, sizeof name, "%s.%s", prefix, key);
	if (aiw_sim_metric(sim, name, &v) != AIW_OK)
		return NAN;
	return v;
}

/* One share: a fresh sim from the probe's values with gt training GPUs and
 * reps inference replicas.  The fleet's rate is scaled by reps over the
 * replicas the scenario's fleet really used (its peak: an autoscaled fleet
 * grows past its initial count), so every replica sees the load it sees in
 * the scenario; the training job keeps the scenario's tokens per GPU per
 * step (weak scaling, as jobs grow their global batch with their GPUs): a
 * layout job's global_batch (when set) scales with its data-parallel size,
 * gt / (tp pp cp), as tokens_per_gpu scales tokens_per_step, and a dp it
 * sets follows.  *out: the sim (freed by the caller, also on error). */
static aiw_status build_share(const aiw_sim *probe, const aiwi_comp *T, const aiwi_comp *I,
                              const base_run *base, double gt, double reps, aiw_sim **out)
{
	aiw_sim *sim;
	aiw_status st = aiw_sim_create(&sim, 1);
	*out = sim;
	if (st != AIW_OK)
		return st;
	for (size_t i = 0; i < aiwi_ncomps(probe) && st == AIW_OK; i++) {
		const aiwi_comp *c = aiwi_comp_at(probe, i);
		if ((c == T && gt == 0) || (c == I && reps == 0))
			continue;
		st = copy_comp(sim, c);
	}
	if (st == AIW_OK && gt > 0) {
		st = set_num(sim, T, "gpus", gt);
		if (st == AIW_OK && base->model_parallel > 0 && base->global_batch > 0 &&
		    base->train_gpus > 0)
			st = set_num(sim, T, "global_batch", base->global_batch * gt / base->train_gpus);
		else if (st == AIW_OK && base->tokens_per_step > 0 && base->train_gpus > 0)
			st = set_num(sim, T, "tokens_per_step",
			             base->tokens_per_step * gt / base->train_gpus);
		size_t idp = param_or_none(T->kind, "dp");
		if (st == AIW_OK && base->model_parallel > 0 && idp != SIZE_MAX && aiwi_pset(T, idp))
			st = set_num(sim, T, "dp", gt / base->model_parallel);
	}
	if (st == AIW_OK && reps > 0) {
		const aiwi_kind *k = I->kind;
		st = set_num(sim, I, "replicas", reps);
		size_t ir = param_or_none(k, "rate");
		if (st == AIW_OK && ir != SIZE_MAX && aiwi_pset(I, ir) && k->params[ir].type == AIW_PT_RATE)
			st = set_num(sim, I, "rate", aiwi_p(I, ir) * reps / base->served_replicas);
		/* an autoscaled fleet stays within its GPU share */
		size_t imax = param_or_none(k, "max_replicas"), imin = param_or_none(k, "min_replicas");
		if (st == AIW_OK && imax != SIZE_MAX && aiwi_pset(I, imax))
			st = set_num(sim, I, "max_replicas", reps);
		if (st == AIW_OK && imin != SIZE_MAX && aiwi_pset(I, imin) && aiwi_p(I, imin) > reps)
			st = set_num(sim, I, "min_replicas", reps);
	}
	return st;
}

/* Run one share (build_share) and read its AIW_DIVERSITY_* columns into
 * out[]. */
static aiw_status sweep_one(const aiw_sim *probe, const aiwi_comp *T, const aiwi_comp *I,
                            const base_run *base, double gt, double reps,
                            double out[AIW_DIVERSITY_NCOLUMNS], char *msg, size_t msglen)
{
	aiw_sim *sim;
	aiw_status st = build_share(probe, T, I, base, gt, reps, &sim);
	if (!sim)
		return aiwi_buferr(msg, msglen, st, "out of memory");
	if (st == AIW_OK)
		st = aiw_sim_run(sim);
	static const struct {
		int col;
		const char *name;
	} M[] = {{AIW_DIVERSITY_RACK_FACTOR, "site.rack_diversity_factor"},
	         {AIW_DIVERSITY_PROVISIONED_W, "site.provisioned_power_w"},
	         {AIW_DIVERSITY_PEAK_W, "site.power_peak_w"},
	         {AIW_DIVERSITY_SUM_OF_PEAKS_W, "site.sum_of_rack_peaks_w"}};
	for (size_t k = 0; k < sizeof M / sizeof *M && st == AIW_OK; k++)
		st = aiw_sim_metric(sim, M[k].name, &out[M[k].col]);
	out[AIW_DIVERSITY_SLO_ATTAINMENT] = NAN;
	out[AIW_DIVERSITY_TTFT_P99_S] = NAN;
	out[AIW_DIVERSITY_OVERLOADED] = 0;
	if (st == AIW_OK && reps > 0) {
		double att = metric_or_nan(sim, I->prefix, "slo_attainment");
		double arr = metric_or_nan(sim, I->prefix, "requests_arrived");
		double infl = metric_or_nan(sim, I->prefix, "requests_in_flight");
		/* no objective set: no attainment to report (every request
		 * "meets" none) */
		bool slo = false;
		static const char *const SLO[] = {"slo_ttft", "slo_tpot", "slo_e2e"};
		for (size_t k = 0; k < sizeof SLO / sizeof *SLO; k++) {
			size_t j = param_or_none(I->kind, SLO[k]);
			slo = slo || (j != SIZE_MAX && aiwi_pset(I, j));
		}
		if (!slo)
			att = NAN;
		out[AIW_DIVERSITY_SLO_ATTAINMENT] = att;
		out[AIW_DIVERSITY_TTFT_P99_S] = metric_or_nan(sim, I->prefix, "ttft_p99_s");
		out[AIW_DIVERSITY_OVERLOADED] =
			(att < base->slo_attainment - OVERLOAD_SLO_DROP) ||
			(arr > 0 && infl > OVERLOAD_IN_FLIGHT * arr);
	}
	if (st != AIW_OK)
		aiwi_buferr(msg, msglen, st, "%s", aiw_sim_errmsg(sim));
	aiw_sim_free(sim);
	return st;
}

/* The scenario parsed into a probe simulation and its two workload
 * components found (base, but for what the probe's run measures:
 * run_probe).  fn: the public function called, for messages. */
static aiw_status open_probe(const char *fn, const char *scenario, aiw_sim **out,
                             const aiwi_comp **T, const aiwi_comp **I, base_run *base,
                             char *errbuf, size_t errlen)
{
	/* the workload models must provide the parameters the sweep sets */
	static const struct {
		const char *kind;
		const char *key;
	} NEED[] = {{"training", "gpus"}, {"inference", "replicas"}, {"inference", "gpus_per_replica"}};
	const aiwi_kind *training = aiwi_kind_find("training");
	const aiwi_kind *inference = aiwi_kind_find("inference");
	for (size_t i = 0; i < sizeof NEED / sizeof *NEED; i++) {
		const aiwi_kind *k = aiwi_kind_find(NEED[i].kind);
		if (!k || param_or_none(k, NEED[i].key) == SIZE_MAX)
			return aiwi_buferr(errbuf, errlen, AIW_ENOTSUP,
			                   "%s: the %s model of this build has no parameter %s.NAME.%s",
			                   fn, NEED[i].kind, NEED[i].kind, NEED[i].key);
	}
	aiw_sim *probe;
	aiw_status st = aiw_sim_create(&probe, 1);
	if (st != AIW_OK)
		return aiwi_buferr(errbuf, errlen, st, "out of memory");
	st = aiw_sim_load_string(probe, scenario ? scenario : aiw_default_scenario(),
	                         scenario ? "scenario" : "mixed-site.ini (built-in)");
	if (st != AIW_OK) {
		aiwi_buferr(errbuf, errlen, st, "%s", aiw_sim_errmsg(probe));
		aiw_sim_free(probe);
		return st;
	}
	*T = *I = NULL;
	int nt = 0, ni = 0;
	for (size_t i = 0; i < aiwi_ncomps(probe); i++) {
		const aiwi_comp *c = aiwi_comp_at(probe, i);
		if (c->kind == training && nt++ == 0)
			*T = c;
		if (c->kind == inference && ni++ == 0)
			*I = c;
	}
	if (nt != 1 || ni != 1) {
		aiw_sim_free(probe);
		return aiwi_buferr(errbuf, errlen, AIW_ESCENARIO,
		                   "%s: the scenario needs exactly one [training NAME] and one "
		                   "[inference NAME] section (it has %d and %d)",
		                   fn, nt, ni);
	}
	size_t irep = param_or_none((*I)->kind, "replicas");
	size_t ig = param_or_none((*T)->kind, "gpus");
	size_t itok = param_or_none((*T)->kind, "tokens_per_step");
	double reps0 = aiwi_pset(*I, irep) && aiwi_p(*I, irep) >= 1 ? aiwi_p(*I, irep) : 1;
	base->train_gpus = aiwi_pset(*T, ig) ? aiwi_p(*T, ig) : 0;
	/* tokens_per_gpu scales with the job by itself; an unset tokens_per_step
	 * is training's 4e6 (training.NAME.tokens_per_step) */
	size_t itpg = param_or_none((*T)->kind, "tokens_per_gpu");
	bool per_gpu = itpg != SIZE_MAX && aiwi_pset(*T, itpg);
	base->tokens_per_step =
		per_gpu ? 0
		: itok != SIZE_MAX && aiwi_pset(*T, itok) && (*T)->kind->params[itok].type != AIW_PT_STRING
			? aiwi_p(*T, itok)
			: 4e6;
	if (!(base->tokens_per_step > 0) || !isfinite(base->tokens_per_step))
		base->tokens_per_step = 0;
	/* a layout job: its model-parallel size and global batch */
	size_t ilay = param_or_none((*T)->kind, "layers");
	base->model_parallel = 0;
	base->global_batch = 0;
	if (ilay != SIZE_MAX && aiwi_pset(*T, ilay)) {
		static const char *const MP[] = {"tp", "pp", "cp"};
		base->model_parallel = 1;
		for (size_t i = 0; i < sizeof MP / sizeof *MP; i++) {
			size_t j = param_or_none((*T)->kind, MP[i]);
			if (j != SIZE_MAX && aiwi_pset(*T, j))
				base->model_parallel *= aiwi_p(*T, j);
		}
		size_t igb = param_or_none((*T)->kind, "global_batch");
		if (igb != SIZE_MAX && aiwi_pset(*T, igb))
			base->global_batch = aiwi_p(*T, igb);
	}
	base->served_replicas = reps0;
	base->slo_attainment = NAN;
	*out = probe;
	return AIW_OK;
}

/* The scenario's own run: what its fleet really serves. */
static aiw_status run_probe(const char *fn, aiw_sim *probe, const aiwi_comp *I, base_run *base,
                            char *errbuf, size_t errlen)
{
	aiw_status st = aiw_sim_run(probe);
	if (st != AIW_OK)
		return aiwi_buferr(errbuf, errlen, st, "%s: the scenario's own run: %s", fn,
		                   aiw_sim_errmsg(probe));
	double peak = metric_or_nan(probe, I->prefix, "replicas_peak");
	if (peak >= 1)
		base->served_replicas = peak;
	base->slo_attainment = metric_or_nan(probe, I->prefix, "slo_attainment");
	return AIW_OK;
}

static double gcd(double a, double b)
{
	while (b > 0) {
		double r = fmod(a, b);
		a = b;
		b = r;
	}
	return a;
}

/* Training GPUs and replicas of a share s of total: whole nodes of
 * training (for a layout job, whole multiples of the least common multiple
 * of gpus_per_node and tp x pp x cp), whole replicas of inference;
 * leftovers stay dark. */
static aiw_status split_share(const char *fn, const aiwi_comp *T, const aiwi_comp *I,
                              const base_run *base, double total, double s, double *gt,
                              double *reps, char *errbuf, size_t errlen)
{
	size_t igpr = param_or_none(I->kind, "gpus_per_replica");
	size_t ignode = param_or_none(T->kind, "gpus_per_node");
	double gpr = aiwi_pset(I, igpr) && aiwi_p(I, igpr) >= 1 ? aiwi_p(I, igpr) : 1;
	double gnode = ignode != SIZE_MAX && aiwi_pset(T, ignode) && aiwi_p(T, ignode) >= 1
	                       ? aiwi_p(T, ignode)
	                       : 1;
	double unit = gnode;
	if (base->model_parallel > 0) {
		double mp = base->model_parallel;
		unit = gnode / gcd(gnode, mp) * mp;
	}
	*gt = unit * round(s * total / unit);
	if (*gt > total)
		*gt -= unit;
	*reps = floor((total - *gt) / gpr);
	if (*gt == 0 && *reps == 0)
		return aiwi_buferr(errbuf, errlen, AIW_ERANGE,
		                   "%s: total_gpus = %g holds neither a training %s (%g GPUs) nor an "
		                   "inference replica (%g GPUs)",
		                   fn, total,
		                   base->model_parallel > 0 ? "unit (whole nodes of tp x pp x cp)"
		                                            : "node",
		                   unit, gpr);
	return AIW_OK;
}

/* Start one share for CHECK_DURATION seconds of simulated time: every
 * start-time check of its components (a layout that does not divide the
 * GPUs, a batch, memory) runs, at the cost of a start. */
#define CHECK_DURATION 1.0
static aiw_status check_share(const aiw_sim *probe, const aiwi_comp *T, const aiwi_comp *I,
                              const base_run *base, double gt, double reps, char *msg,
                              size_t msglen)
{
	aiw_sim *sim;
	aiw_status st = build_share(probe, T, I, base, gt, reps, &sim);
	if (!sim)
		return aiwi_buferr(msg, msglen, st, "out of memory");
	if (st == AIW_OK)
		st = aiw_sim_set_double(sim, "sim.duration", CHECK_DURATION);
	if (st == AIW_OK)
		st = aiw_sim_run(sim);
	if (st != AIW_OK)
		aiwi_buferr(msg, msglen, st, "%s", aiw_sim_errmsg(sim));
	aiw_sim_free(sim);
	return st;
}

/* The shares' runs, in order; out: n rows of AIW_DIVERSITY_NCOLUMNS (NaN
 * where not run).  Every share is split and started first (check_share),
 * so that a share its components refuse is reported before any full run.
 * refuse_overload: an overloaded share is an error (AIW_ERANGE) instead of
 * a flag.  fn: the public function called, for messages. */
static aiw_status run_shares(const char *fn, const char *scenario, double total,
                             const double *shares, size_t n, double *out, bool refuse_overload,
                             aiw_diversity_progress_fn progress, void *payload, char *errbuf,
                             size_t errlen)
{
	for (size_t k = 0; k < n * AIW_DIVERSITY_NCOLUMNS; k++)
		out[k] = NAN;
	if (progress && progress(0, n + 1, payload))
		return aiwi_buferr(errbuf, errlen, AIW_ESTOPPED, "%s: stopped by the progress callback",
		                   fn);
	aiw_sim *probe = NULL;
	const aiwi_comp *T = NULL, *I = NULL;
	base_run base = {0};
	aiw_status st = open_probe(fn, scenario, &probe, &T, &I, &base, errbuf, errlen);
	if (st != AIW_OK)
		return st;
	char msg[1024];
	/* the scenario itself first (its own start: a copy with no component
	 * left out or changed), then every share */
	if ((st = check_share(probe, NULL, NULL, &base, 0, 0, msg, sizeof msg)) != AIW_OK) {
		aiwi_buferr(errbuf, errlen, st, "%s: the scenario's own run: %s", fn, msg);
		aiw_sim_free(probe);
		return st;
	}
	for (size_t k = 0; k < n && st == AIW_OK; k++) {
		double gt, reps;
		if ((st = split_share(fn, T, I, &base, total, shares[k], &gt, &reps, errbuf, errlen)) !=
		    AIW_OK)
			break;
		st = check_share(probe, T, I, &base, gt, reps, msg, sizeof msg);
		if (st != AIW_OK)
			aiwi_buferr(errbuf, errlen, st,
			            "%s: training share %g (%g training GPUs, %g replicas): %s (every "
			            "share is checked before the first runs)",
			            fn, shares[k], gt, reps, msg);
	}
	if (st == AIW_OK)
		st = run_probe(fn, probe, I, &base, errbuf, errlen);
	for (size_t k = 0; k < n && st == AIW_OK; k++) {
		if (progress && progress(k + 1, n + 1, payload)) {
			st = aiwi_buferr(errbuf, errlen, AIW_ESTOPPED,
			                 "%s: stopped by the progress callback after %zu of %zu shares", fn,
			                 k, n);
			break;
		}
		double gt, reps, *row = out + k * AIW_DIVERSITY_NCOLUMNS;
		if ((st = split_share(fn, T, I, &base, total, shares[k], &gt, &reps, errbuf, errlen)) !=
		    AIW_OK)
			break;
		st = sweep_one(probe, T, I, &base, gt, reps, row, msg, sizeof msg);
		if (st != AIW_OK) {
			aiwi_buferr(errbuf, errlen, st, "%s: training share %g (%g training GPUs, %g "
			            "replicas): %s",
			            fn, shares[k], gt, reps, msg);
			break;
		}
		row[AIW_DIVERSITY_SHARE] = gt / total;
		row[AIW_DIVERSITY_TRAINING_GPUS] = gt;
		row[AIW_DIVERSITY_REPLICAS] = reps;
		if (refuse_overload && row[AIW_DIVERSITY_OVERLOADED] != 0) {
			st = aiwi_buferr(errbuf, errlen, AIW_ERANGE,
			                 "%s: training share %g (%g training GPUs, %g replicas): the "
			                 "inference fleet is overloaded (SLO attainment %.3f against the "
			                 "scenario's %.3f, P99 TTFT %.3g s); its power figures would not "
			                 "be those of a fleet that serves its users",
			                 fn, shares[k], gt, reps, row[AIW_DIVERSITY_SLO_ATTAINMENT],
			                 base.slo_attainment, row[AIW_DIVERSITY_TTFT_P99_S]);
			break;
		}
	}
	if (st == AIW_OK && progress)
		progress(n + 1, n + 1, payload);
	aiw_sim_free(probe);
	return st;
}

AIW_EXPORT aiw_status aiw_site_diversity_sweep(const char *scenario, double total_gpus,
                                               size_t steps, double *share, double *diversity,
                                               double *provisioned_w, double *peak_w,
                                               double *sum_of_peaks_w, char *errbuf,
                                               size_t errlen)
{
	if (errbuf && errlen)
		errbuf[0] = 0;
	if (!(total_gpus >= 1 && total_gpus <= 1e7) || total_gpus != floor(total_gpus))
		return aiwi_buferr(errbuf, errlen, AIW_ERANGE,
		                   "aiw_site_diversity_sweep: total_gpus = %g must be a whole number in "
		                   "[1, 1e7]",
		                   total_gpus);
	if (steps < 2 || steps > SWEEP_MAX_STEPS)
		return aiwi_buferr(errbuf, errlen, AIW_ERANGE,
		                   "aiw_site_diversity_sweep: steps = %zu must be in [2, %d] (shares 0, "
		                   "1/(steps-1), ..., 1)",
		                   steps, SWEEP_MAX_STEPS);
	double *shares = malloc(steps * sizeof *shares);
	double *out = malloc(steps * AIW_DIVERSITY_NCOLUMNS * sizeof *out);
	if (!shares || !out) {
		free(shares);
		free(out);
		return aiwi_buferr(errbuf, errlen, AIW_ENOMEM, "out of memory");
	}
	for (size_t k = 0; k < steps; k++)
		shares[k] = (double)k / (double)(steps - 1);
	aiw_status st =
		run_shares("aiw_site_diversity_sweep", scenario, total_gpus, shares, steps, out, true,
		           NULL, NULL, errbuf, errlen);
	for (size_t k = 0; k < steps; k++) {
		const double *row = out + k * AIW_DIVERSITY_NCOLUMNS;
		if (isnan(row[AIW_DIVERSITY_SHARE]))
			break; /* not run: the caller's arrays keep what they held */
		if (share)
			share[k] = row[AIW_DIVERSITY_SHARE];
		if (diversity)
			diversity[k] = row[AIW_DIVERSITY_RACK_FACTOR];
		if (provisioned_w)
			provisioned_w[k] = row[AIW_DIVERSITY_PROVISIONED_W];
		if (peak_w)
			peak_w[k] = row[AIW_DIVERSITY_PEAK_W];
		if (sum_of_peaks_w)
			sum_of_peaks_w[k] = row[AIW_DIVERSITY_SUM_OF_PEAKS_W];
	}
	free(shares);
	free(out);
	return st;
}

AIW_EXPORT aiw_status aiw_site_diversity_shares(const char *scenario, double total_gpus,
                                                const double *shares, size_t n, double *out,
                                                size_t ncolumns,
                                                aiw_diversity_progress_fn progress,
                                                void *payload, char *errbuf, size_t errlen)
{
	if (errbuf && errlen)
		errbuf[0] = 0;
	if (!(total_gpus >= 1 && total_gpus <= 1e7) || total_gpus != floor(total_gpus))
		return aiwi_buferr(errbuf, errlen, AIW_ERANGE,
		                   "aiw_site_diversity_shares: total_gpus = %g must be a whole number "
		                   "in [1, 1e7]",
		                   total_gpus);
	if (n < 1 || n > SWEEP_MAX_STEPS)
		return aiwi_buferr(errbuf, errlen, AIW_ERANGE,
		                   "aiw_site_diversity_shares: n = %zu shares must be in [1, %d]", n,
		                   SWEEP_MAX_STEPS);
	if (!shares || !out)
		return aiwi_buferr(errbuf, errlen, AIW_EINVAL,
		                   "aiw_site_diversity_shares: %s is NULL", !shares ? "shares" : "out");
	if (ncolumns < 1 || ncolumns > 4096)
		return aiwi_buferr(errbuf, errlen, AIW_ERANGE,
		                   "aiw_site_diversity_shares: ncolumns = %zu must be in [1, 4096] "
		                   "(AIW_DIVERSITY_NCOLUMNS = %d are filled)",
		                   ncolumns, AIW_DIVERSITY_NCOLUMNS);
	for (size_t k = 0; k < n; k++)
		if (!(shares[k] >= 0 && shares[k] <= 1))
			return aiwi_buferr(errbuf, errlen, AIW_ERANGE,
			                   "aiw_site_diversity_shares: shares[%zu] = %g must be in [0, 1]",
			                   k, shares[k]);
	double *rows = malloc(n * AIW_DIVERSITY_NCOLUMNS * sizeof *rows);
	if (!rows)
		return aiwi_buferr(errbuf, errlen, AIW_ENOMEM, "out of memory");
	aiw_status st = run_shares("aiw_site_diversity_shares", scenario, total_gpus, shares, n,
	                           rows, false, progress, payload, errbuf, errlen);
	/* the caller's rows are ncolumns wide: the known columns, NaN beyond */
	for (size_t k = 0; k < n; k++)
		for (size_t j = 0; j < ncolumns; j++)
			out[k * ncolumns + j] = j < AIW_DIVERSITY_NCOLUMNS ? rows[k * AIW_DIVERSITY_NCOLUMNS + j]
			                                                   : NAN;
	free(rows);
	return st;
}
