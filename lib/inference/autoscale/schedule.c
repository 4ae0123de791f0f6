/*
 * schedule.c - autoscaler = schedule: replicas by time of day from a
 * table ("0h:2, 8h:10, 20h:4").
 */
#include "inference/autoscale/controller.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

aiw_status aiwi_sched_parse(const char *text, aiwi_sched_entry **out, size_t *n, char *err,
                           size_t errlen)
{
	if (!text || !out || !n)
		return aiwi_buferr(err, errlen, AIW_EINVAL, "no schedule given");
	*out = NULL;
	*n = 0;
	size_t cap = 1;
	for (const char *p = text; *p; p++)
		cap += *p == ',';
	aiwi_sched_entry *e = calloc(cap, sizeof *e);
	if (!e)
		return AIW_ENOMEM;
	size_t k = 0;
	const char *p = text;
	aiw_status st = AIW_OK;
	for (;;) {
		size_t len = strcspn(p, ",");
		char item[128];
		while (len && (*p == ' ' || *p == '\t')) {
			p++;
			len--;
		}
		while (len && (p[len - 1] == ' ' || p[len - 1] == '\t'))
			len--;
		if (len == 0 || len >= sizeof item) {
			st = aiwi_buferr(err, errlen, AIW_EPARSE,
			                 len ? "entry too long"
			                     : "empty entry: expected TIME:REPLICAS");
			break;
		}
		memcpy(item, p, len);
		item[len] = 0;
		char *colon = strrchr(item, ':');
		if (!colon) {
			st = aiwi_buferr(err, errlen, AIW_EPARSE,
			                 "'%s': expected TIME:REPLICAS (\"8h:10\")", item);
			break;
		}
		*colon = 0;
		char e2[256];
		double tod;
		if (aiwi_parse_units(AIW_PT_DURATION, item, &tod, e2, sizeof e2) != AIW_OK) {
			st = aiwi_buferr(err, errlen, AIW_EPARSE, "time '%s': %s", item, e2);
			break;
		}
		char *end;
		double r = strtod(colon + 1, &end);
		while (*end == ' ' || *end == '\t')
			end++;
		if (end == colon + 1 || *end || r != floor(r) || r < 0 || r > 100000) {
			st = aiwi_buferr(err, errlen, AIW_ERANGE,
			                 "replicas '%s' at %s: expected an integer in [0, 100000]",
			                 colon + 1, item);
			break;
		}
		if (!(tod >= 0 && tod < 86400)) {
			st = aiwi_buferr(err, errlen, AIW_ERANGE,
			                 "time %s is outside one day [0, 24h)", item);
			break;
		}
		if (k && !(tod > e[k - 1].tod)) {
			st = aiwi_buferr(err, errlen, AIW_EPARSE,
			                 "time %s is not after the previous entry's (times must "
			                 "increase)",
			                 item);
			break;
		}
		e[k].tod = tod;
		e[k].replicas = (int32_t)r;
		k++;
		p += strcspn(p, ",");
		if (!*p)
			break;
		p++;
	}
	if (st != AIW_OK) {
		free(e);
		return st;
	}
	*out = e;
	*n = k;
	return AIW_OK;
}

static size_t sched_index(const aiwi_sched_entry *e, size_t n, double t)
{
	double tod = fmod(t, 86400.0);
	size_t i = n - 1; /* before the first entry: the day before's last */
	for (size_t j = 0; j < n; j++)
		if (e[j].tod <= tod)
			i = j;
	return i;
}

int32_t aiwi_sched_at(const aiwi_sched_entry *e, size_t n, double t)
{
	if (!e || !n)
		return 0;
	return e[sched_index(e, n, t)].replicas;
}

double aiwi_sched_next(const aiwi_sched_entry *e, size_t n, double t)
{
	if (!e || !n)
		return INFINITY;
	double day = floor(t / 86400.0);
	double tod = t - day * 86400.0;
	for (size_t j = 0; j < n; j++)
		if (e[j].tod > tod)
			return day * 86400.0 + e[j].tod;
	return (day + 1) * 86400.0 + e[0].tod;
}

/* ======================================================================== */
/* the policy                                                                */
/* ======================================================================== */
static void sched_event(aiw_sim *sim, void *ctx, uint64_t i)
{
	autoscaler *a = ctx;
	double now = aiwi_now(sim);
	a->syncs++;
	aiwi_as_set_spec(a, a->sched[i].replicas);
	/* the next entry, by index (no time-of-day rounding can repeat one):
	 * the day of this entry (-1 for the day before's last at t = 0) */
	double day = floor((now - a->sched[i].tod) / 86400.0 + 0.5);
	size_t j = (size_t)i + 1;
	double t = j < a->nsched ? day * 86400.0 + a->sched[j].tod
	                         : (day + 1) * 86400.0 + a->sched[0].tod;
	if (j >= a->nsched)
		j = 0;
	if (!aiwi_at(sim, t, sched_event, a, j))
		aiwi_as_fail(a, AIW_ENOMEM);
}


static aiw_status sched_check(autoscaler *a)
{
	aiwi_comp *c = a->c;
	const char *px = c->prefix;
	if (!PSET(a, AIW_AS_SCHEDULE))
		return aiwi_err(a->sim, AIW_EINVAL,
		                "%s.schedule is not set: autoscaler = schedule needs a table "
		                "(\"0h:2, 8h:10, 20h:4\")",
		                px);
	char e[256];
	aiw_status st = aiwi_sched_parse(aiwi_ps(c, a->p + AIW_AS_SCHEDULE), &a->sched,
	                                 &a->nsched, e, sizeof e);
	if (st == AIW_ENOMEM)
		return aiwi_err(a->sim, st, "out of memory");
	if (st != AIW_OK)
		return aiwi_err(a->sim, st, "%s.schedule = %s: %s", px,
		                aiwi_ps(c, a->p + AIW_AS_SCHEDULE), e);
	if (!a->nsched)
		return aiwi_err(a->sim, AIW_EINVAL, "%s.schedule is empty", px);
	return AIW_OK;
}

static aiw_status sched_start(autoscaler *a)
{
	size_t i = sched_index(a->sched, a->nsched, 0);
	if (!aiwi_at(a->sim, 0, sched_event, a, i))
		return AIW_ENOMEM;
	return AIW_OK;
}

static void sched_free(autoscaler *a)
{
	free(a->sched);
	a->sched = NULL;
}

const aiwi_as_policy aiwi_as_policy_schedule = {
	.name = "schedule",
	.id = AIW_AS_SCHEDULE_POLICY,
	.params = "schedule",
	.check = sched_check,
	.start = sched_start,
	.free = sched_free,
};
