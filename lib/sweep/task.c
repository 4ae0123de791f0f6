/*
 * task.c - a sweep's points and seeds, and one task: the simulation of point p,
 * replication r, with its seed M(M(base + G (p+1)) + G (r+1)).
 */
#include "sweep/sweep.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ======================================================================== */
/* points and seeds                                                          */
/* ======================================================================== */
static inline uint64_t mix64(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

uint64_t aiwi_sweep_seed_of(uint64_t base, size_t point, size_t rep)
{
	return mix64(mix64(base + GOLDEN * ((uint64_t)point + 1)) + GOLDEN * ((uint64_t)rep + 1));
}

const char *aiwi_sweep_value(const aiw_sweep *sw, size_t point, size_t i)
{
	size_t row = point / sw->axis_points, rem = point % sw->axis_points;
	if (i < sw->pf_ncols)
		return sw->pf_cells[row * sw->pf_ncols + i];
	size_t a = i - sw->pf_ncols;
	for (size_t j = sw->naxes; j-- > a + 1;)
		rem /= sw->axes[j].n;
	return sw->axes[a].vals[rem % sw->axes[a].n];
}

/* "name=value, name=value" of a point, shortened to fit. */
void aiwi_sweep_describe_point(const aiw_sweep *sw, size_t point, char *buf, size_t len)
{
	size_t o = 0;
	buf[0] = 0;
	for (size_t i = 0; i < sw->nparams && o + 1 < len; i++) {
		int k = snprintf(buf + o, len - o, "%s%s=%s", i ? ", " : "", sw->pnames[i],
		                 aiwi_sweep_value(sw, point, i));
		if (k < 0)
			break;
		o += (size_t)k;
	}
	if (o >= len && len > 4)
		memcpy(buf + len - 4, "...", 4);
}

/* A simulation for task (point, rep), configured, not started. */
aiw_status aiwi_sweep_build_sim(const aiw_sweep *sw, size_t point, size_t rep, aiw_sim **out,
                            char *err, size_t errlen)
{
	*out = NULL;
	uint64_t seed = aiwi_sweep_seed_of(sw->base, point, rep);
	aiw_sim *sim;
	aiw_status st = aiw_sim_create(&sim, seed);
	if (st != AIW_OK)
		return aiwi_buferr(err, errlen, st, "out of memory creating a simulation");
	if (sw->memo)
		aiwi_sim_set_memo(sim, sw->memo);
	if (sw->textlen &&
	    (st = aiwi_load(sim, sw->text, sw->textlen, sw->path ? sw->path : "<sweep scenario>",
	                    sw->base_dir ? sw->base_dir : "")) != AIW_OK) {
		aiwi_buferr(err, errlen, st, "%s", aiw_sim_errmsg(sim));
		aiw_sim_free(sim);
		return st;
	}
	for (size_t i = 0; i < sw->nparams; i++) {
		if ((st = aiw_sim_set(sim, sw->pnames[i], aiwi_sweep_value(sw, point, i))) != AIW_OK) {
			aiwi_buferr(err, errlen, st, "%s", aiw_sim_errmsg(sim));
			aiw_sim_free(sim);
			return st;
		}
	}
	char sb[32];
	snprintf(sb, sizeof sb, "%llu", (unsigned long long)seed);
	if ((st = aiw_sim_set(sim, "sim.seed", sb)) != AIW_OK) {
		aiwi_buferr(err, errlen, st, "%s", aiw_sim_errmsg(sim));
		aiw_sim_free(sim);
		return st;
	}
	*out = sim;
	return AIW_OK;
}

/* Progress callback of every task's simulation: stop when asked. */
static int stop_cb(aiw_sim *sim, double now, double end, void *payload)
{
	const aiw_sweep *sw = payload;
	return atomic_load_explicit(&((aiw_sweep *)sw)->stop, memory_order_relaxed) != 0;
}

/* Run one task into out[nmetrics]; err receives a message naming the task. */
aiw_status aiwi_sweep_task_exec(aiw_sweep *sw, size_t point, size_t rep, double *out, char *err,
                            size_t errlen)
{
	char m[ERRMSG_LEN] = "";
	aiw_sim *sim;
	aiw_status st = aiwi_sweep_build_sim(sw, point, rep, &sim, m, sizeof m);
	if (st == AIW_OK) {
		/* look at the stop flag ~1000 times per run whatever the sample
		 * interval (0: at every sample tick) */
		double dur = 0;
		aiw_sim_get_double(sim, "sim.duration", &dur);
		st = aiw_sim_set_progress(sim, stop_cb, sw, isfinite(dur) && dur > 0 ? dur / 1000 : 0);
		if (st == AIW_OK)
			st = aiw_sim_run(sim);
		if (st != AIW_OK && st != AIW_ESTOPPED)
			snprintf(m, sizeof m, "%s", aiw_sim_errmsg(sim));
	}
	if (st == AIW_OK) {
		for (size_t j = 0; j < sw->nmetrics; j++)
			if (aiw_sim_metric(sim, sw->mnames[j], &out[j]) != AIW_OK)
				out[j] = NAN;
	}
	aiw_sim_free(sim);
	if (st == AIW_ESTOPPED)
		return aiwi_buferr(err, errlen, st, "point %zu, replication %zu: stopped", point, rep);
	if (st != AIW_OK) {
		char d[256];
		aiwi_sweep_describe_point(sw, point, d, sizeof d);
		aiwi_buferr(err, errlen, st, "point %zu (%s), replication %zu (sim.seed = %llu): %s",
		            point, d[0] ? d : "base scenario", rep,
		            (unsigned long long)aiwi_sweep_seed_of(sw->base, point, rep), m);
	}
	return st;
}
