/*
 * estimate.c - the inference kind's up-front estimate (aiwi_kind.estimate):
 * the expected requests of the fleet's traffic, as the traffic its start
 * builds (aiwi_serving_traffic_conf) integrates them over the run, the
 * autoscaler's work (autoscale/estimate.c), and the fleet's memory, timers
 * and racks.
 */
#include "core/limits.h"
#include "inference/autoscale/autoscale.h"
#include "inference/serving.h"
#include "inference/serving_params.h"
#include "inference/traffic.h"
#include "site/power.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

/* The first TRACE_PRECHECK bytes of a trace: a NUL byte or a line longer
 * than AIW_TRACE_MAX_LINE there is refused at once with the reader's own
 * message, whichever comes first.  (The reader reports them only at the end
 * of the line, so a sparse file of NULs, or one line of a gigabyte, would be
 * read whole first.)  Returns AIW_OK when the prefix is clean or the file
 * cannot be read (the model reports that). */
#define TRACE_PRECHECK 65536
static aiw_status trace_precheck(aiw_sim *sim, const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return AIW_OK;
	unsigned char *buf = malloc(TRACE_PRECHECK);
	size_t n = buf ? fread(buf, 1, TRACE_PRECHECK, f) : 0;
	fclose(f);
	aiw_status st = AIW_OK;
	unsigned long long line = 1;
	size_t len = 0;
	for (size_t i = 0; i < n && st == AIW_OK; i++) {
		if (buf[i] == '\n') {
			line++, len = 0;
		} else if (buf[i] == 0) {
			st = aiwi_err(sim, AIW_EPARSE, "%s:%llu: NUL byte in the line: not a text CSV file",
			              path, line);
		} else if (++len > AIW_TRACE_MAX_LINE) {
			st = aiwi_err(sim, AIW_EPARSE, "%s:%llu: line longer than %d bytes", path, line,
			              AIW_TRACE_MAX_LINE);
		}
	}
	free(buf);
	return st;
}

/* Expected requests of the fleet over [0, D], twice with compare_fixed (a
 * second fleet replays the same traffic). */
static void requests(aiwi_comp *c, aiwi_estimate *E, bool twice_)
{
	aiw_sim *sim = c->sim;
	double D = aiwi_est_duration(E);
	char a[64], b[64], d[64];
	aiwi_traffic_conf tc;
	if (!aiwi_serving_traffic_conf(c, &tc) || (tc.kind == AIW_TRAFFIC_TRACE && !tc.trace_path))
		return; /* the model reports it */
	double mult = twice_ ? 2 : 1;
	const char *twice = mult > 1 ? ", twice with compare_fixed" : "";
	if (tc.kind == AIW_TRAFFIC_TRACE) {
		/* a trace without loop has at most one row per 2 bytes ("0\n"):
		 * below the limit, the file need not be read twice */
		struct stat sb;
		char path[4096];
		if (tc.trace_path[0] != '/' && tc.base_dir && *tc.base_dir)
			snprintf(path, sizeof path, "%s/%s", tc.base_dir, tc.trace_path);
		else
			snprintf(path, sizeof path, "%s", tc.trace_path);
		if (stat(path, &sb) != 0)
			return;
		if (!aiwi_est_refused(E)) {
			aiw_status st = trace_precheck(sim, path);
			if (st != AIW_OK) {
				aiwi_est_refuse(E, st);
				return;
			}
		}
		double bound = mult * (double)sb.st_size / 2;
		if (!tc.loop && bound <= AIW_LIMIT_WORK) {
			aiwi_est_work(E, bound, "", "%s: at most @ requests (%s bytes of trace%s)",
			              c->prefix, aiwi_est_num(b, sizeof b, (double)sb.st_size), twice);
			return;
		}
	}
	if (tc.kind != AIW_TRAFFIC_TRACE && tc.kind != AIW_TRAFFIC_BATCH && !(tc.rate > 0))
		return;
	char e[512];
	aiwi_traffic *tr = NULL;
	if (aiwi_traffic_new(&tr, &tc, e, sizeof e) != AIW_OK)
		return; /* invalid: the model's start says why */
	double n = mult * aiwi_traffic_integral(tr, 0, D);
	if (tc.kind == AIW_TRAFFIC_TRACE) {
		aiwi_trace_info ti;
		double rows = 0, per = 0;
		if (aiwi_traffic_trace_info(tr, &ti) == AIW_OK)
			rows = (double)ti.rows, per = ti.period_s;
		double reps = tc.loop && per > 0 ? D / per : 1;
		aiwi_est_work(E, n, "lower trace_time_scale or sim.duration, or unset trace_loop",
		              "%s: about @ requests (%s trace rows x %s replays in %s%s)", c->prefix,
		              aiwi_est_num(a, sizeof a, rows), aiwi_est_num(b, sizeof b, reps),
		              aiwi_est_dur(d, sizeof d, D), twice);
	} else if (tc.kind == AIW_TRAFFIC_BATCH) {
		aiwi_est_work(E, n, "lower batch_requests", "%s: @ requests (an offline job%s)",
		              c->prefix, twice);
	} else if (tc.kind == AIW_TRAFFIC_POISSON ||
	           (tc.kind == AIW_TRAFFIC_BURSTY && !tc.modulate)) {
		aiwi_est_work(E, n, "lower rate or sim.duration", "%s: about @ requests (rate %s/s x %s%s)",
		              c->prefix, aiwi_est_num(a, sizeof a, tc.rate), aiwi_est_dur(d, sizeof d, D),
		              twice);
	} else {
		aiwi_est_work(E, n, "lower rate or sim.duration",
		              "%s: about @ requests (mean rate %s/s of the daily profile x %s%s)",
		              c->prefix, aiwi_est_num(a, sizeof a, D > 0 ? n / mult / D : 0),
		              aiwi_est_dur(d, sizeof d, D), twice);
	}
	aiwi_traffic_free(tr);
}

void aiwi_inference_estimate(aiwi_comp *c, aiwi_estimate *E)
{
	aiwi_serving_fleet fc;
	aiwi_serving_fleet_conf(c, &fc);
	requests(c, E, aiwi_autoscale_compare_fixed(c, fc.autoscale_first));
	double slots = aiwi_autoscale_estimate(c, fc.autoscale_first, fc.replicas, E);
	double gpr = aiwi_site_gpus_per_rack(c->sim);
	double racks = ceil(slots * fc.gpus_per_replica / gpr);
	aiwi_est_racks(E, racks, racks + slots);
	/* per slot: load, drain, spot timers; replica failures: its failure and
	 * a repair */
	aiwi_est_pending(E, ((int)aiwi_p(c, P_FAILURES) == 1 ? 5 : 3) * slots + 8);
	char a[64], b[64], d[64], g[64];
	aiwi_est_memory(E, 160.0 * 1024 + 320 * slots + 56 * racks,
	                "lower replicas / max_replicas or gpus_per_replica, or raise "
	                "site.gpus_per_rack",
	                "%s: about @ bytes (%s replica slots of %s GPUs, %s racks of %s GPUs)",
	                c->prefix, aiwi_est_num(a, sizeof a, slots),
	                aiwi_est_num(b, sizeof b, fc.gpus_per_replica),
	                aiwi_est_num(d, sizeof d, racks), aiwi_est_num(g, sizeof g, gpr));
}
