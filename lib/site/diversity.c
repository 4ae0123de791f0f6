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
/* The default mixed site (parameter names as in aiworkload(7)): a synchronous 70B
 * pre-training job and a 70B chat fleet on H100s, one diurnal day sampled
 * every 5 minutes.  The inference rate is that of the base fleet (1/s for
 * 8 two-GPU replicas: a busy fraction near 0.55, P99 TTFT under 0.5 s with
 * the inference model's default request sizes) and scales with the
 * replicas. */
static const char DEFAULT_SITE[] =
	"[sim]\nduration = 24h\nsample_interval = 5min\n"
	"[site]\npue = 1.3\ngpus_per_rack = 32\n"
	"[training train]\ngpu = H100-SXM\ngpus = 8\ngpus_per_node = 8\nmodel_params = 70e9\n"
	"tokens_per_step = 4e6\nmfu = 0.45\n"
	"[inference serve]\ngpu = H100-SXM\ngpus_per_replica = 2\nreplicas = 8\n"
	"model_params = 70e9\nweight_bits = 8\ntraffic = diurnal\nrate = 1/s\n"
	"peak_to_trough = 10\npeak_hour = 14\nbatching = continuous\nmax_batch = 32\n";

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

/* One share: a fresh sim from the probe's values with gt training GPUs and
 * reps inference replicas. */
static aiw_status sweep_one(const aiw_sim *probe, const aiwi_comp *T, const aiwi_comp *I,
                            double gt, double reps, double reps0, double out[4], char *msg,
                            size_t msglen)
{
	aiw_sim *sim;
	aiw_status st = aiw_sim_create(&sim, 1);
	if (st != AIW_OK)
		return aiwi_buferr(msg, msglen, st, "out of memory");
	for (size_t i = 0; i < aiwi_ncomps(probe) && st == AIW_OK; i++) {
		const aiwi_comp *c = aiwi_comp_at(probe, i);
		if ((c == T && gt == 0) || (c == I && reps == 0))
			continue;
		st = copy_comp(sim, c);
	}
	if (st == AIW_OK && gt > 0)
		st = set_num(sim, T, "gpus", gt);
	if (st == AIW_OK && reps > 0) {
		const aiwi_kind *k = I->kind;
		st = set_num(sim, I, "replicas", reps);
		size_t ir = param_or_none(k, "rate");
		if (st == AIW_OK && ir != SIZE_MAX && aiwi_pset(I, ir) && k->params[ir].type == AIW_PT_RATE)
			st = set_num(sim, I, "rate", aiwi_p(I, ir) * reps / reps0);
		/* an autoscaled fleet stays within its GPU share */
		size_t imax = param_or_none(k, "max_replicas"), imin = param_or_none(k, "min_replicas");
		if (st == AIW_OK && imax != SIZE_MAX && aiwi_pset(I, imax))
			st = set_num(sim, I, "max_replicas", reps);
		if (st == AIW_OK && imin != SIZE_MAX && aiwi_pset(I, imin) && aiwi_p(I, imin) > reps)
			st = set_num(sim, I, "min_replicas", reps);
	}
	if (st == AIW_OK)
		st = aiw_sim_run(sim);
	static const char *const M[4] = {"site.rack_diversity_factor", "site.provisioned_power_w",
	                                 "site.power_peak_w", "site.sum_of_rack_peaks_w"};
	for (int k = 0; k < 4 && st == AIW_OK; k++)
		st = aiw_sim_metric(sim, M[k], &out[k]);
	if (st != AIW_OK)
		aiwi_buferr(msg, msglen, st, "%s", aiw_sim_errmsg(sim));
	aiw_sim_free(sim);
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
	/* the workload models must provide the parameters the sweep sets */
	static const struct {
		const aiwi_kind *k;
		const char *key;
	} NEED[] = {{&aiwi_kind_training, "gpus"},
	            {&aiwi_kind_inference, "replicas"},
	            {&aiwi_kind_inference, "gpus_per_replica"}};
	for (size_t i = 0; i < sizeof NEED / sizeof *NEED; i++)
		if (param_or_none(NEED[i].k, NEED[i].key) == SIZE_MAX)
			return aiwi_buferr(errbuf, errlen, AIW_ENOTSUP,
			                   "aiw_site_diversity_sweep: the %s model of this build has no "
			                   "parameter %s.NAME.%s",
			                   NEED[i].k->name, NEED[i].k->name, NEED[i].key);
	aiw_sim *probe;
	aiw_status st = aiw_sim_create(&probe, 1);
	if (st != AIW_OK)
		return aiwi_buferr(errbuf, errlen, st, "out of memory");
	st = aiw_sim_load_string(probe, scenario ? scenario : DEFAULT_SITE,
	                         scenario ? "scenario" : "default site");
	if (st != AIW_OK) {
		aiwi_buferr(errbuf, errlen, st, "%s", aiw_sim_errmsg(probe));
		aiw_sim_free(probe);
		return st;
	}
	const aiwi_comp *T = NULL, *I = NULL;
	int nt = 0, ni = 0;
	for (size_t i = 0; i < aiwi_ncomps(probe); i++) {
		const aiwi_comp *c = aiwi_comp_at(probe, i);
		if (c->kind == &aiwi_kind_training && nt++ == 0)
			T = c;
		if (c->kind == &aiwi_kind_inference && ni++ == 0)
			I = c;
	}
	if (nt != 1 || ni != 1) {
		aiw_sim_free(probe);
		return aiwi_buferr(errbuf, errlen, AIW_ESCENARIO,
		                   "aiw_site_diversity_sweep: the scenario needs exactly one [training "
		                   "NAME] and one [inference NAME] section (it has %d and %d)",
		                   nt, ni);
	}
	size_t igpr = param_or_none(I->kind, "gpus_per_replica");
	size_t irep = param_or_none(I->kind, "replicas");
	size_t ignode = param_or_none(T->kind, "gpus_per_node");
	double gpr = aiwi_pset(I, igpr) && aiwi_p(I, igpr) >= 1 ? aiwi_p(I, igpr) : 1;
	double reps0 = aiwi_pset(I, irep) && aiwi_p(I, irep) >= 1 ? aiwi_p(I, irep) : 1;
	double gnode = ignode != SIZE_MAX && aiwi_pset(T, ignode) && aiwi_p(T, ignode) >= 1
	                       ? aiwi_p(T, ignode)
	                       : 1;
	for (size_t k = 0; k < steps && st == AIW_OK; k++) {
		double s = (double)k / (double)(steps - 1);
		/* whole nodes of training, whole replicas of inference; leftovers idle */
		double gt = gnode * round(s * total_gpus / gnode);
		if (gt > total_gpus)
			gt -= gnode;
		double reps = floor((total_gpus - gt) / gpr);
		if (gt == 0 && reps == 0) {
			st = aiwi_buferr(errbuf, errlen, AIW_ERANGE,
			                 "aiw_site_diversity_sweep: total_gpus = %g holds neither a training "
			                 "node (%g GPUs) nor an inference replica (%g GPUs)",
			                 total_gpus, gnode, gpr);
			break;
		}
		double out[4];
		char msg[1024];
		st = sweep_one(probe, T, I, gt, reps, reps0, out, msg, sizeof msg);
		if (st != AIW_OK) {
			aiwi_buferr(errbuf, errlen, st, "aiw_site_diversity_sweep: training share %g (%g "
			            "training GPUs, %g replicas): %s",
			            s, gt, reps, msg);
			break;
		}
		if (share)
			share[k] = gt / total_gpus;
		if (diversity)
			diversity[k] = out[0];
		if (provisioned_w)
			provisioned_w[k] = out[1];
		if (peak_w)
			peak_w[k] = out[2];
		if (sum_of_peaks_w)
			sum_of_peaks_w[k] = out[3];
	}
	aiw_sim_free(probe);
	return st;
}
