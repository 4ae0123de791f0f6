/*
 * replay.c - aiw_autoscale_replay: a policy's decisions on recorded
 * metrics, without a fleet.  The settings are the inference kind's
 * autoscaling parameters (validated by the parameter table, on a component
 * that is never started); the decisions are the functions the simulation
 * calls (aiwi_hpa_calc_r and aiwi_hpa_sync_r, aiwi_kpa_step_r and
 * aiwi_kpa_ring).
 *
 * Input: CSV with a header naming its columns, '#' lines ignored.
 *   time     seconds, strictly increasing (required)
 *   ready    ready pods with a metric (required)
 *   metric   the metric of each ready pod, or
 *   total    its sum over the ready pods (one of the two; kpa: the demand)
 *   unready  (or starts) pods started and not ready yet (hpa)
 *   missing  ready pods without a sample (hpa)
 *   current  spec.replicas before this row (default: the last decision)
 *   stable, panic   kpa: the window averages themselves (each row a tick)
 *   recommendation  hpa: the metric's recommendation itself (the replica
 *            calculator's result; each row a sync, no metric needed)
 *   up_event, down_event, past_recommendation   hpa: the controller's
 *            history before the replay (a scale event of that many
 *            replicas, a recommendation); such a row is no sync
 *   reachable  kpa: 0 when the revision is unreachable at this tick, 1
 *            when it is (default: kpa_unreachable)
 *   desired  kpa: the decider's count itself (-1: no metrics yet); the row
 *            is one pass of the reconciler (aiwi_kpa_reconcile_r), no
 *            demand needed
 *   active_for, inactive_for, activating_for   kpa: the PodAutoscaler is
 *            in that state since that many seconds before this row
 *   proxy_for  kpa: the activator has been in the path for that long
 *   activator  kpa: 0 when the activator probe fails at this row
 *   expect   ignored (tests keep the expected count there)
 * An empty field is a value not given (time must be given).
 * hpa: a sync at the first row and then at the first row at or past each
 * hpa_sync_period; its metric is the mean of the rows since the previous
 * sync.  kpa: the rows are the samples of the demand (every
 * metric_interval), a tick at the first row at or past each kpa_tick,
 * unless stable and panic are given.  The kpa decider is created at the
 * first row with `replicas` ready pods (more than one: in panic mode).
 * Output: CSV time,replicas,reason (one line a sync).
 */
#include "inference/autoscale/controller.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { C_TIME, C_READY, C_METRIC, C_TOTAL, C_UNREADY, C_MISSING, C_CURRENT, C_STABLE, C_PANIC,
       C_EXPECT, C_REC, C_UP_EVENT, C_DOWN_EVENT, C_PAST_REC, C_REACHABLE, C_DESIRED,
       C_ACTIVE_FOR, C_INACTIVE_FOR, C_ACTIVATING_FOR, C_PROXY_FOR, C_ACTIVATOR, NCOLS };
static const char *const colname[NCOLS] = {
	"time",  "ready",  "metric", "total",          "unready",  "missing",    "current",
	"stable", "panic", "expect", "recommendation", "up_event", "down_event",
	"past_recommendation", "reachable", "desired", "active_for", "inactive_for",
	"activating_for", "proxy_for", "activator"};

typedef struct rp {
	autoscaler a; /* only c, sim, p, metric and the policy state are used */
	FILE *out;
	const char *path;
	char *err;
	size_t errlen;
	int32_t spec;
	uint64_t syncs;
} rp;

static aiw_status fail_at(rp *r, size_t line, const char *field, const char *fmt, const char *v)
{
	char msg[512];
	snprintf(msg, sizeof msg, fmt, v);
	return aiwi_buferr(r->err, r->errlen, AIW_EPARSE, "%s:%zu: %s: %s", r->path, line, field,
	                   msg);
}

/* Pod counts (the columns that must be whole numbers) are at most the
 * simulation's replicas bound. */
#define AIW_REPLAY_MAX_PODS 100000
/* kpa: samples in the stable window (one double each: 80 MB) */
#define AIW_REPLAY_MAX_WINDOW 1e7
static bool is_pods(int c)
{
	return c == C_READY || c == C_UNREADY || c == C_MISSING || c == C_CURRENT ||
	       c == C_REC || c == C_UP_EVENT || c == C_DOWN_EVENT || c == C_PAST_REC ||
	       c == C_DESIRED;
}

/* The first sync time after t on the grid next + k period (the first: t +
 * period), in one step whatever the gap: a sync never waits on more than
 * one row, so the replay's work is its rows. */
static double next_sync(double next, double t, double period)
{
	if (!isfinite(next))
		return t + period;
	if ((t - next) / period < 1e6) {
		/* the grid as the controller steps it, period by period */
		while (next <= t && next + period > next)
			next += period;
		if (next > t)
			return next;
	}
	double n = next + (floor((t - next) / period) + 1) * period;
	if (!(n > t))
		n = t + period; /* rounding at a huge t, or the period below t's resolution */
	return n;
}

static void emit(rp *r, double t, int32_t n, int why)
{
	r->syncs++;
	if (r->out)
		fprintf(r->out, "%.9g,%d,%s\n", t, (int)n, aiwi_as_reason_name(why));
}

aiw_status aiw_autoscale_replay(const char *policy, const char **settings,
                                size_t nsettings, const char *metrics_path,
                                const char *out_path, uint64_t *syncs, char *err,
                                size_t errlen)
{
	if (!policy || (strcmp(policy, "hpa") && strcmp(policy, "kpa")))
		return aiwi_buferr(err, errlen, AIW_EINVAL, "policy = %s: expected hpa or kpa",
		                   policy ? policy : "(null)");
	if (!metrics_path)
		return aiwi_buferr(err, errlen, AIW_EINVAL, "metrics_path is NULL");
	if (nsettings && !settings)
		return aiwi_buferr(err, errlen, AIW_EINVAL, "settings is NULL with nsettings = %zu",
		                   nsettings);
	bool kpa = !strcmp(policy, "kpa");
	aiw_sim *sim = NULL;
	aiw_status st = aiw_sim_create(&sim, 1);
	if (st != AIW_OK)
		return aiwi_buferr(err, errlen, st, "out of memory");
	rp *r = calloc(1, sizeof *r);
	FILE *in = NULL;
	char *line = NULL;
	if (!r) {
		aiw_sim_free(sim);
		return aiwi_buferr(err, errlen, AIW_ENOMEM, "out of memory");
	}
	r->path = metrics_path;
	r->err = err;
	r->errlen = errlen;
	st = aiw_sim_set(sim, "inference.replay.autoscaler", policy);
	for (size_t i = 0; i < nsettings && st == AIW_OK; i++) {
		const char *eq = settings[i] ? strchr(settings[i], '=') : NULL;
		if (!eq || eq == settings[i]) {
			st = aiwi_buferr(err, errlen, AIW_EPARSE, "setting %zu '%s': expected KEY=VALUE",
			                 i + 1, settings[i] ? settings[i] : "(null)");
			goto done;
		}
		char key[256];
		snprintf(key, sizeof key, "inference.replay.%.*s", (int)(eq - settings[i]),
		         settings[i]);
		if ((st = aiw_sim_set(sim, key, eq + 1)) != AIW_OK) {
			aiwi_buferr(err, errlen, st, "setting %zu: %s", i + 1, aiw_sim_errmsg(sim));
			goto done;
		}
	}
	if (st != AIW_OK) {
		aiwi_buferr(err, errlen, st, "%s", aiw_sim_errmsg(sim));
		goto done;
	}
	aiwi_comp *c = NULL;
	for (size_t i = 0; i < aiwi_ncomps(sim); i++)
		if (!strcmp(aiwi_comp_at(sim, i)->prefix, "inference.replay"))
			c = aiwi_comp_at(sim, i);
	size_t first = c ? aiwi_kind_param_index(c->kind, "autoscaler") : SIZE_MAX;
	size_t irep = c ? aiwi_kind_param_index(c->kind, "replicas") : SIZE_MAX;
	if (first == SIZE_MAX || irep == SIZE_MAX) {
		st = aiwi_buferr(err, errlen, AIW_EINVAL, "no inference kind to read settings from");
		goto done;
	}
	/* a setting the policy does not read is refused: the replay has no
	 * channel for warnings */
	char unread[512];
	if (aiwi_param_modes_first(c, unread, sizeof unread)) {
		st = aiwi_buferr(err, errlen, AIW_EINVAL,
		                 "policy %s: setting %s (remove it or change the mode)", policy,
		                 unread);
		goto done;
	}
	autoscaler *a = &r->a;
	a->c = c;
	a->sim = sim;
	a->p = first;
	a->pol = aiwi_as_policies[kpa ? AIW_AS_KPA : AIW_AS_HPA];
	a->metric = (int)P(a, AIW_AS_METRIC);
	aiwi_hpa_state_init(&a->hs);
	aiwi_kpa_state_init(&a->ks);
	r->spec = (int32_t)aiwi_p(c, irep);
	double lo = P(a, AIW_AS_MIN_REPLICAS), hi = P(a, AIW_AS_MAX_REPLICAS);
	if (lo > hi) {
		st = aiwi_buferr(err, errlen, AIW_ERANGE, "min_replicas = %g is above max_replicas = %g",
		                 lo, hi);
		goto done;
	}
	if (!kpa) {
		if ((st = aiwi_as_hpa_check_policies(a)) != AIW_OK) {
			aiwi_buferr(err, errlen, st, "%s", aiw_sim_errmsg(sim));
			goto done;
		}
		aiwi_as_hpa_refresh_rules(a);
	} else {
		double iv = P(a, AIW_AS_METRIC_INTERVAL);
		if (P(a, AIW_AS_KPA_STABLE_WINDOW) / iv > AIW_REPLAY_MAX_WINDOW) {
			st = aiwi_buferr(err, errlen, AIW_ELIMIT,
			                 "kpa_stable_window / metric_interval = %g s / %g s: %.3g samples "
			                 "in the window, above %g (raise metric_interval)",
			                 P(a, AIW_AS_KPA_STABLE_WINDOW), iv,
			                 P(a, AIW_AS_KPA_STABLE_WINDOW) / iv, AIW_REPLAY_MAX_WINDOW);
			goto done;
		}
		if ((st = aiwi_kpa_ring_init(&a->ring,
		                             (size_t)ceil(P(a, AIW_AS_KPA_STABLE_WINDOW) / iv - 1e-9))) !=
		    AIW_OK) {
			aiwi_buferr(err, errlen, st, "out of memory");
			goto done;
		}
		a->kc.panic_threshold = P(a, AIW_AS_KPA_PANIC_THRESHOLD);
		a->kc.max_up_rate = P(a, AIW_AS_KPA_MAX_UP_RATE);
		a->kc.max_down_rate = P(a, AIW_AS_KPA_MAX_DOWN_RATE);
		a->kc.stable_window = P(a, AIW_AS_KPA_STABLE_WINDOW);
		a->kc.target = P(a, AIW_AS_TARGET_VALUE) * P(a, AIW_AS_KPA_TARGET_UTILIZATION);
		a->kc.down_delay = P(a, AIW_AS_KPA_DOWN_DELAY);
		a->kc.zero_grace = P(a, AIW_AS_KPA_ZERO_GRACE);
		a->kc.pod_retention = P(a, AIW_AS_KPA_POD_RETENTION);
		a->kc.burst_capacity = P(a, AIW_AS_KPA_TBC);
		if (a->kc.burst_capacity < 0 && a->kc.burst_capacity != -1) {
			st = aiwi_buferr(err, errlen, AIW_ERANGE,
			                 "kpa_target_burst_capacity = %g: expected -1 (the activator "
			                 "always in the path) or a value >= 0",
			                 a->kc.burst_capacity);
			goto done;
		}
		a->kc.total_value = P(a, AIW_AS_TARGET_VALUE);
		a->kc.progress_deadline = P(a, AIW_AS_KPA_PROGRESS_DEADLINE);
		a->kc.reconciler = P(a, AIW_AS_KPA_RECONCILER) != 0;
		a->kc.min_replicas = (int32_t)lo;
		a->kc.max_replicas = (int32_t)hi;
		a->kc.activation_scale = (int32_t)P(a, AIW_AS_KPA_ACTIVATION_SCALE);
		a->kc.unreachable = P(a, AIW_AS_KPA_UNREACHABLE) != 0;
	}
	bool unreachable = a->kc.unreachable, started = false;
	if (!(in = fopen(metrics_path, "r"))) {
		st = aiwi_buferr(err, errlen, AIW_EIO, "%s: %s", metrics_path, strerror(errno));
		goto done;
	}
	int col[NCOLS];
	size_t ncol = 0;
	int have[NCOLS] = {0};
	size_t cap = 0, lineno = 0;
	ssize_t len;
	bool header = false;
	double last_t = -INFINITY, next = -INFINITY, acc = 0, acc_total = 0;
	size_t nacc = 0;
	double iv = kpa ? P(a, AIW_AS_METRIC_INTERVAL) : 0;
	size_t ns = kpa ? (size_t)ceil(P(a, AIW_AS_KPA_STABLE_WINDOW) / iv - 1e-9) : 0;
	size_t np = kpa ? (size_t)ceil(P(a, AIW_AS_KPA_PANIC_WINDOW) / iv - 1e-9) : 0;
	double period = kpa ? P(a, AIW_AS_KPA_TICK) : P(a, AIW_AS_HPA_SYNC_PERIOD);
	/* pass 0 validates the whole file, pass 1 decides and writes: a
	 * refused file writes nothing, not even the header */
	for (int pass = 0; pass < 2; pass++) {
		if (pass == 1) {
			if (out_path && !strcmp(out_path, "-"))
				r->out = stdout;
			else if (out_path && !(r->out = fopen(out_path, "w"))) {
				st = aiwi_buferr(err, errlen, AIW_EIO, "%s: %s", out_path, strerror(errno));
				goto done;
			}
			if (r->out)
				fputs("time,replicas,reason\n", r->out);
			rewind(in);
			lineno = 0;
			header = false;
			last_t = -INFINITY;
		}
		while ((len = getline(&line, &cap, in)) >= 0) {
			lineno++;
			if (memchr(line, 0, (size_t)len)) {
				st = fail_at(r, lineno, "row", "%s", "NUL byte in the line: not a text CSV file");
				goto done;
			}
			while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
				line[--len] = 0;
			char *p = line;
			if (lineno == 1 && !strncmp(p, "\xEF\xBB\xBF", 3))
				p += 3; /* a UTF-8 byte order mark */
			while (*p == ' ' || *p == '\t')
				p++;
			if (!*p || *p == '#')
				continue;
			if (!header && pass == 1) {
				header = true;
				continue;
			}
			if (!header) {
				for (char *tok = strtok(p, ","); tok; tok = strtok(NULL, ",")) {
					while (*tok == ' ')
						tok++;
					size_t tl = strlen(tok);
					while (tl && tok[tl - 1] == ' ')
						tok[--tl] = 0;
					/* a unit in brackets after the name ("time_s [s]") */
					char *br = strchr(tok, '[');
					if (br && tl && tok[tl - 1] == ']') {
						*br = 0;
						for (tl = strlen(tok); tl && tok[tl - 1] == ' ';)
							tok[--tl] = 0;
					}
					int k = -1;
					for (int j = 0; j < NCOLS; j++)
						if (!strcmp(tok, colname[j]) ||
						    (j == C_UNREADY && !strcmp(tok, "starts")) ||
						    (j == C_TIME && !strcmp(tok, "time_s")))
							k = j;
					if (k < 0 && strchr(tok, '.')) {
						st = fail_at(r, lineno, "header",
						             "'%s' is a simulation curve (a `run --series` file): the "
						             "replay reads time (or time_s), ready, metric or total, "
						             "unready, ... (aiw_autoscale_replay(3)); rename one "
						             "fleet's columns, e.g. its replicas_ready to ready and "
						             "its utilization to metric",
						             tok);
						goto done;
					}
					if (k < 0 || ncol == NCOLS) {
						st = fail_at(r, lineno, "header",
						             "unknown column '%s' (time or time_s, ready, metric or "
						             "total, unready, missing, current, stable, panic, "
						             "recommendation, up_event, down_event, "
						             "past_recommendation, reachable, desired, active_for, "
						             "inactive_for, activating_for, proxy_for, activator, "
						             "expect; a `run --series` file: keep time_s and name one "
						             "fleet's series ready and metric or total)",
						             tok);
						goto done;
					}
					if (have[k]) {
						st = fail_at(r, lineno, "header", "column '%s' given twice", tok);
						goto done;
					}
					have[k] = 1;
					col[ncol++] = k;
				}
				bool kpa_direct = kpa && ((have[C_STABLE] && have[C_PANIC]) || have[C_DESIRED]);
				bool hpa_direct = !kpa && have[C_REC];
				const char *miss = !have[C_TIME] ? "time"
				                   : !have[C_READY] && !hpa_direct && !have[C_DESIRED] ? "ready"
				                   : !kpa_direct && !hpa_direct && !have[C_METRIC] &&
				                                   !have[C_TOTAL]
				                           ? "metric or total"
				                           : NULL;
				if (miss) {
					st = fail_at(r, lineno, "header", "no '%s' column", miss);
					goto done;
				}
				if (!kpa && (have[C_REACHABLE] || have[C_DESIRED] || have[C_ACTIVE_FOR] ||
				             have[C_INACTIVE_FOR] || have[C_ACTIVATING_FOR] || have[C_PROXY_FOR] ||
				             have[C_ACTIVATOR])) {
					st = fail_at(r, lineno, "header", "%s",
					             "reachable, desired, active_for, inactive_for, activating_for, "
					             "proxy_for and activator are kpa columns");
					goto done;
				}
				if (kpa && (have[C_REC] || have[C_UP_EVENT] || have[C_DOWN_EVENT] ||
				            have[C_PAST_REC])) {
					st = fail_at(r, lineno, "header", "%s",
					             "recommendation, up_event, down_event and "
					             "past_recommendation are hpa columns");
					goto done;
				}
				if (have[C_METRIC] && have[C_TOTAL]) {
					st = fail_at(r, lineno, "header", "%s", "both 'metric' and 'total': give one");
					goto done;
				}
				header = true;
				continue;
			}
			double v[NCOLS];
			for (int j = 0; j < NCOLS; j++)
				v[j] = NAN;
			size_t k = 0;
			for (char *tok = p, *next; tok; tok = next, k++) {
				next = strchr(tok, ',');
				if (next)
					*next++ = 0;
				if (k >= ncol) {
					st = fail_at(r, lineno, "row", "more fields than the header's %s", "columns");
					goto done;
				}
				char *end;
				while (*tok == ' ')
					tok++;
				if (!*tok && col[k] != C_TIME)
					continue; /* not given */
				double x = strtod(tok, &end);
				while (*end == ' ')
					end++;
				if (end == tok || *end || !isfinite(x)) {
					st = fail_at(r, lineno, colname[col[k]], "'%s' is not a finite number", tok);
					goto done;
				}
				if (x < 0 && !(col[k] == C_DESIRED && x == -1)) {
					st = fail_at(r, lineno, colname[col[k]],
					             col[k] == C_DESIRED ? "%s is negative (-1: no metrics yet)"
					                                 : "%s is negative",
					             tok);
					goto done;
				}
				if (col[k] != C_TIME && col[k] != C_METRIC && col[k] != C_TOTAL &&
				    col[k] != C_STABLE && col[k] != C_PANIC && col[k] != C_EXPECT &&
				    col[k] != C_ACTIVE_FOR && col[k] != C_INACTIVE_FOR &&
				    col[k] != C_ACTIVATING_FOR && col[k] != C_PROXY_FOR && x != floor(x)) {
					st = fail_at(r, lineno, colname[col[k]], "%s is not a whole pod count", tok);
					goto done;
				}
				if (is_pods(col[k]) && x > AIW_REPLAY_MAX_PODS) {
					st = fail_at(r, lineno, colname[col[k]],
					             "%s pods: above 100000, the most replicas a fleet may have", tok);
					goto done;
				}
				v[col[k]] = x;
			}
			if (k < ncol) {
				st = fail_at(r, lineno, "row", "fewer fields than the header's %s", "columns");
				goto done;
			}
			double t = v[C_TIME];
			if (!(t > last_t)) {
				char b[64];
				snprintf(b, sizeof b, "%.9g is not after the previous row's %.9g", t, last_t);
				st = fail_at(r, lineno, "time", "%s (times must increase)", b);
				goto done;
			}
			last_t = t;
			if (pass == 0)
				continue;
			if (!isnan(v[C_CURRENT]))
				r->spec = (int32_t)fmin(v[C_CURRENT], INT32_MAX);
			int32_t ready = isnan(v[C_READY]) ? 0 : (int32_t)fmin(v[C_READY], INT32_MAX);
			double row_total = !isnan(v[C_TOTAL])                  ? v[C_TOTAL]
			                   : !isnan(v[C_METRIC]) && !isnan(v[C_READY]) ? v[C_METRIC] * ready
			                                                           : NAN;
			double per_pod = !isnan(v[C_METRIC]) ? v[C_METRIC]
			                 : ready > 0         ? v[C_TOTAL] / ready
			                                     : NAN;
			int why = AIW_AS_R_SCALE;
			int32_t n;
			if (!kpa) {
				/* the controller's history before the replay: no sync */
				if (!isnan(v[C_UP_EVENT]) || !isnan(v[C_DOWN_EVENT]) || !isnan(v[C_PAST_REC])) {
					bool ok = true;
					if (!isnan(v[C_UP_EVENT]))
						ok = ok && aiwi_hpa_record_event(&a->hs, t, true,
						                                 (int32_t)fmin(v[C_UP_EVENT], INT32_MAX));
					if (!isnan(v[C_DOWN_EVENT]))
						ok = ok && aiwi_hpa_record_event(&a->hs, t, false,
						                                 (int32_t)fmin(v[C_DOWN_EVENT], INT32_MAX));
					if (!isnan(v[C_PAST_REC]))
						ok = ok && aiwi_hpa_record_recommendation(
							       &a->hs, t, (int32_t)fmin(v[C_PAST_REC], INT32_MAX));
					if (!ok) {
						st = aiwi_buferr(err, errlen, AIW_ENOMEM, "out of memory");
						goto done;
					}
					continue;
				}
				bool direct = !isnan(v[C_REC]);
				if (!direct) {
					if (!isnan(per_pod)) {
						acc += per_pod;
						acc_total += row_total;
						nacc++;
					}
					if (t < next)
						continue;
					next = next_sync(next, t, period);
				}
				double mean_total = nacc ? acc_total / (double)nacc : NAN;
				double mean_pod = nacc ? acc / (double)nacc : NAN;
				aiwi_hpa_calc_in ci = {
					.current = r->spec,
					.ready = ready,
					.unready = isnan(v[C_UNREADY]) ? 0 : (int32_t)fmin(v[C_UNREADY], INT32_MAX),
					.missing = isnan(v[C_MISSING]) ? 0 : (int32_t)fmin(v[C_MISSING], INT32_MAX),
					.value = mean_pod,
					.target = a->metric == AIW_AS_M_UTILIZATION ? P(a, AIW_AS_TARGET_UTILIZATION)
					                                            : P(a, AIW_AS_TARGET_VALUE),
					.tolerance = P(a, AIW_AS_HPA_TOLERANCE),
					.resource = a->metric == AIW_AS_M_UTILIZATION,
					.per_direction = PSET(a, AIW_AS_HPA_TOLERANCE_UP) ||
					                 PSET(a, AIW_AS_HPA_TOLERANCE_DOWN),
					.tolerance_up = PSET(a, AIW_AS_HPA_TOLERANCE_UP)
					                        ? P(a, AIW_AS_HPA_TOLERANCE_UP)
					                        : P(a, AIW_AS_HPA_TOLERANCE),
					.tolerance_down = PSET(a, AIW_AS_HPA_TOLERANCE_DOWN)
					                          ? P(a, AIW_AS_HPA_TOLERANCE_DOWN)
					                          : P(a, AIW_AS_HPA_TOLERANCE),
					/* Kubernetes sums integer milli-units: the recorded values
					 * rounded to them (per pod for `metric`); ready <=
					 * AIW_REPLAY_MAX_PODS and the bounds on the values keep the
					 * sum, x 100 for percent, in int64 */
					.have_sum = nacc > 0,
					.sum_milli = !nacc ? 0
					             : have[C_TOTAL]
					                     ? (int64_t)llround(fmin(mean_total, 1e12) * 1000)
					                     : (int64_t)llround(fmin(mean_pod, a->metric ==
					                                                AIW_AS_M_UTILIZATION
					                                            ? 1e6
					                                            : 1e9) *
					                                        1000) *
					                           (int64_t)ready,
				};
				acc = 0;
				acc_total = 0;
				nacc = 0;
				int cwhy = AIW_AS_R_SCALE;
				int32_t rec = direct ? (int32_t)fmin(v[C_REC], INT32_MAX) : aiwi_hpa_calc_r(&ci, &cwhy);
				n = aiwi_hpa_sync_r(&a->rules, &a->hs, t, r->spec, rec, &why);
				if (why == AIW_AS_R_SCALE && cwhy == AIW_AS_R_TOLERANCE && n == r->spec)
					why = AIW_AS_R_TOLERANCE;
			} else {
				if (!started) {
					aiwi_kpa_state_start(&a->ks, t, r->spec);
					started = true;
				}
				a->kc.unreachable = isnan(v[C_REACHABLE]) ? unreachable : v[C_REACHABLE] == 0;
				a->kc.no_activator = !isnan(v[C_ACTIVATOR]) && v[C_ACTIVATOR] == 0;
				/* the PodAutoscaler's state and the proxy mode before this row */
				static const int pa_col[3] = {C_ACTIVE_FOR, C_INACTIVE_FOR, C_ACTIVATING_FOR};
				static const int pa_state[3] = {AIW_KPA_PA_ACTIVE, AIW_KPA_PA_INACTIVE,
				                                AIW_KPA_PA_ACTIVATING};
				for (int j = 0; j < 3; j++)
					if (!isnan(v[pa_col[j]])) {
						a->ks.pa = pa_state[j];
						a->ks.pa_since = t - v[pa_col[j]];
					}
				if (!isnan(v[C_PROXY_FOR]))
					a->ks.proxy_since = t - v[C_PROXY_FOR];
				double stable, panic;
				if (!isnan(v[C_DESIRED])) {
					/* the decider's count given: one pass of the reconciler */
					why = AIW_AS_R_SCALE;
					n = aiwi_kpa_reconcile_r(&a->kc, &a->ks, t, r->spec, (uint32_t)ready,
					                         (int32_t)fmin(v[C_DESIRED], INT32_MAX), 0, &why);
					r->spec = n;
					emit(r, t, n, why);
					continue;
				}
				if (have[C_STABLE] && have[C_PANIC]) {
					stable = v[C_STABLE];
					panic = v[C_PANIC];
				} else {
					double total = !isnan(v[C_TOTAL]) ? v[C_TOTAL] : v[C_METRIC] * ready;
					aiwi_kpa_ring_push(&a->ring, total);
					if (t < next)
						continue;
					next = next_sync(next, t, period);
					stable = aiwi_kpa_ring_mean(&a->ring, ns);
					panic = aiwi_kpa_ring_mean(&a->ring, np ? np : 1);
				}
				n = aiwi_kpa_step_r(&a->kc, &a->ks, t, r->spec, (uint32_t)ready, stable, panic,
				                    &why);
			}
			if (n < 0) {
				st = aiwi_buferr(err, errlen, (aiw_status)n, "out of memory");
				goto done;
			}
			r->spec = n;
			emit(r, t, n, why);
		}
		if (!header) {
			st = aiwi_buferr(err, errlen, AIW_EPARSE,
			                 lineno ? "%s: no header line, only comments or blank lines "
			                          "(time, ready, metric, ...)"
			                        : "%s: empty file: no header line (time, ready, metric, ...)",
			                 metrics_path);
			goto done;
		}
		if (ferror(in)) {
			st = aiwi_buferr(err, errlen, AIW_EIO, "%s: read error", metrics_path);
			goto done;
		}
	}
done:
	if (st == AIW_OK && syncs)
		*syncs = r->syncs;
	if (r->out == stdout) {
		/* the process's stream, never closed here */
		if ((fflush(stdout) != 0 || ferror(stdout)) && st == AIW_OK)
			st = aiwi_buferr(err, errlen, AIW_EIO, "standard output: write failed");
	} else if (r->out && fclose(r->out) != 0 && st == AIW_OK)
		st = aiwi_buferr(err, errlen, AIW_EIO, "%s: write failed", out_path);
	if (in)
		fclose(in);
	free(line);
	aiwi_hpa_state_free(&r->a.hs);
	aiwi_kpa_state_free(&r->a.ks);
	aiwi_kpa_ring_free(&r->a.ring);
	free(r);
	aiw_sim_free(sim);
	return st;
}
