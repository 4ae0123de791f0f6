/*
 * budget.c - the arbiter of a GPU budget shared by serving fleets
 * (site.gpu_budget; budget.h states the protocol and the rules, and
 * doc/inference.md "A GPU budget shared by fleets" the model).  No fleet state here: a member is
 * its hooks (GPUs held, grant), so that lib/site/ stays below
 * lib/inference/.
 */
#include "site/budget.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct member {
	char name[128];
	double g, priority, weight;
	aiwi_budget_held_fn held;
	aiwi_budget_grant_fn grant;
	void *ctx;
	uint32_t want; /* pending request (replicas; 0: none) */
	uint64_t asks, denied, denied_replicas, granted;
} member;

struct aiwi_budget {
	aiw_sim *sim;
	double cap;
	int rule;
	member *m;
	size_t n, capn;
	uint64_t ev; /* the settling event pending at this instant (0: none) */
	double peak;
	uint64_t decisions, denied;
	double denied_gpus;
	/* scratch for a settling: n long */
	aiwi_budget_ask *ask;
	uint32_t *grant, *idx;
	bool failed;
};

/* ---- the rules ---- */

/* Whole replicas of continuous shares s[i] (GPUs), then the GPUs left over
 * by largest remainder (ties: member order), one replica each at most. */
static void round_shares(size_t n, const aiwi_budget_ask *ask, const double *s, double room,
                         uint32_t *grant)
{
	double left = room;
	for (size_t i = 0; i < n; i++) {
		/* 1e-9 of a replica absorbs the rounding of s = room x w / W */
		double x = ask[i].g > 0 ? floor(s[i] / ask[i].g + 1e-9) : 0;
		if (x > ask[i].want)
			x = ask[i].want;
		if (x < 0)
			x = 0;
		grant[i] = (uint32_t)x;
		left -= x * ask[i].g;
	}
	/* largest remainder first: a selection each time (n is the fleets) */
	bool used_extra[64] = {false};
	bool *done = n <= 64 ? used_extra : calloc(n, sizeof *done);
	if (!done)
		return; /* out of memory: the floors only (never above the room) */
	for (size_t k = 0; k < n; k++) {
		size_t best = SIZE_MAX;
		double br = -INFINITY;
		for (size_t i = 0; i < n; i++) {
			if (done[i])
				continue;
			double r = s[i] - grant[i] * ask[i].g;
			if (r > br) {
				br = r;
				best = i;
			}
		}
		if (best == SIZE_MAX)
			break;
		done[best] = true;
		if (grant[best] < ask[best].want && ask[best].g <= left + 1e-9 && br > 1e-9) {
			grant[best]++;
			left -= ask[best].g;
		}
	}
	if (done != used_extra)
		free(done);
}

void aiwi_budget_split(int rule, size_t n, const aiwi_budget_ask *ask, double room,
                       uint32_t *grant)
{
	if (!(room > 0))
		room = 0;
	double demand = 0;
	for (size_t i = 0; i < n; i++)
		demand += ask[i].want * ask[i].g;
	if (demand <= room) { /* everything fits: every rule grants it all */
		for (size_t i = 0; i < n; i++)
			grant[i] = ask[i].want;
		return;
	}
	if (rule == AIW_BUDGET_PRIORITY) {
		/* highest priority first, member order among equals */
		bool small[64] = {false};
		bool *done = n <= 64 ? small : calloc(n, sizeof *done);
		for (size_t i = 0; i < n; i++)
			grant[i] = 0;
		if (!done)
			return;
		double left = room;
		for (size_t k = 0; k < n; k++) {
			size_t best = SIZE_MAX;
			for (size_t i = 0; i < n; i++)
				if (!done[i] && (best == SIZE_MAX || ask[i].priority > ask[best].priority))
					best = i;
			done[best] = true;
			double fit = ask[best].g > 0 ? floor(left / ask[best].g + 1e-9) : 0;
			uint32_t x = fit >= ask[best].want ? ask[best].want : (uint32_t)fit;
			grant[best] = x;
			left -= x * ask[best].g;
		}
		if (done != small)
			free(done);
		return;
	}
	double small_s[64];
	double *s = n <= 64 ? small_s : calloc(n, sizeof *s);
	if (!s) {
		for (size_t i = 0; i < n; i++)
			grant[i] = 0;
		return;
	}
	if (rule == AIW_BUDGET_PROPORTIONAL) {
		for (size_t i = 0; i < n; i++)
			s[i] = room * (ask[i].want * ask[i].g) / demand;
	} else { /* weighted: water-filling */
		for (size_t i = 0; i < n; i++)
			s[i] = -1; /* not settled */
		double left = room;
		for (;;) {
			double W = 0;
			for (size_t i = 0; i < n; i++)
				if (s[i] < 0)
					W += ask[i].weight;
			if (!(W > 0))
				break;
			bool any = false;
			for (size_t i = 0; i < n; i++) {
				double d = ask[i].want * ask[i].g;
				if (s[i] < 0 && d <= left * ask[i].weight / W) {
					s[i] = d; /* below its share: all of it */
					any = true;
				}
			}
			if (!any) {
				for (size_t i = 0; i < n; i++)
					if (s[i] < 0)
						s[i] = left * ask[i].weight / W;
				break;
			}
			left = room;
			for (size_t i = 0; i < n; i++)
				if (s[i] >= 0)
					left -= s[i];
		}
		for (size_t i = 0; i < n; i++)
			if (s[i] < 0)
				s[i] = 0;
	}
	round_shares(n, ask, s, room, grant);
	if (s != small_s)
		free(s);
}

/* ---- the arbiter ---- */

aiwi_budget *aiwi_budget_new(aiw_sim *sim, double gpus, int rule)
{
	aiwi_budget *b = calloc(1, sizeof *b);
	if (!b)
		return NULL;
	b->sim = sim;
	b->cap = gpus;
	b->rule = rule;
	return b;
}

void aiwi_budget_free(aiwi_budget *b)
{
	if (!b)
		return;
	free(b->m);
	free(b->ask);
	free(b->grant);
	free(b->idx);
	free(b);
}

int aiwi_budget_rule(const aiwi_budget *b) { return b->rule; }

double aiwi_budget_used(const aiwi_budget *b)
{
	double u = 0;
	for (size_t i = 0; i < b->n; i++)
		u += b->m[i].held(b->m[i].ctx);
	return u;
}

/* The GPUs held now: their peak, and the invariant (never above the cap;
 * a run that breaks it fails with AIW_ESTATE). */
static void check_used(aiwi_budget *b)
{
	double u = aiwi_budget_used(b);
	if (u > b->peak)
		b->peak = u;
	if (u > b->cap && !b->failed) {
		b->failed = true;
		aiwi_err(b->sim, AIW_ESTATE, "site.gpu_budget: %g GPUs held, above the budget of %g",
		         u, b->cap);
		aiwi_fail(b->sim, AIW_ESTATE);
	}
}

int aiwi_budget_join(aiwi_budget *b, const char *name, double g, double priority, double weight,
                     aiwi_budget_held_fn held, aiwi_budget_grant_fn grant, void *ctx)
{
	if (b->n == b->capn) {
		size_t n = b->capn ? 2 * b->capn : 8;
		member *m = realloc(b->m, n * sizeof *m);
		if (!m)
			return aiwi_err(b->sim, AIW_ENOMEM, "out of memory");
		b->m = m;
		aiwi_budget_ask *a = realloc(b->ask, n * sizeof *a);
		if (!a)
			return aiwi_err(b->sim, AIW_ENOMEM, "out of memory");
		b->ask = a;
		uint32_t *gr = realloc(b->grant, n * sizeof *gr);
		if (!gr)
			return aiwi_err(b->sim, AIW_ENOMEM, "out of memory");
		b->grant = gr;
		uint32_t *ix = realloc(b->idx, n * sizeof *ix);
		if (!ix)
			return aiwi_err(b->sim, AIW_ENOMEM, "out of memory");
		b->idx = ix;
		b->capn = n;
	}
	member *m = &b->m[b->n];
	memset(m, 0, sizeof *m);
	snprintf(m->name, sizeof m->name, "%s", name);
	m->g = g;
	m->priority = priority;
	m->weight = weight;
	m->held = held;
	m->grant = grant;
	m->ctx = ctx;
	b->n++;
	double u = aiwi_budget_used(b);
	if (u > b->cap)
		return aiwi_err(b->sim, AIW_ESCENARIO,
		                "site.gpu_budget = %g GPUs: the fleets' initial replicas hold %g GPUs "
		                "(up to %s), more than the budget",
		                b->cap, u, name);
	if (u > b->peak)
		b->peak = u;
	return (int)(b->n - 1);
}

static void settle_event(aiw_sim *sim, void *ctx, uint64_t arg)
{
	(void)sim;
	(void)arg;
	aiwi_budget *b = ctx;
	b->ev = 0;
	size_t k = 0;
	for (size_t i = 0; i < b->n; i++) {
		member *m = &b->m[i];
		if (!m->want)
			continue;
		b->ask[k] = (aiwi_budget_ask){m->want, m->g, m->priority, m->weight};
		b->idx[k++] = (uint32_t)i;
	}
	if (!k)
		return;
	b->decisions++;
	double room = b->cap - aiwi_budget_used(b);
	aiwi_budget_split(b->rule, k, b->ask, room, b->grant);
	for (size_t j = 0; j < k; j++) {
		member *m = &b->m[b->idx[j]];
		uint32_t want = m->want, got = b->grant[j];
		m->want = 0;
		m->asks++;
		m->granted += got;
		if (got < want) {
			m->denied++;
			m->denied_replicas += want - got;
			b->denied++;
			b->denied_gpus += (want - got) * m->g;
		}
		if (got)
			m->grant(m->ctx, got);
	}
	check_used(b);
}

void aiwi_budget_request(aiwi_budget *b, int mi, uint32_t want)
{
	if (mi < 0 || (size_t)mi >= b->n)
		return;
	b->m[mi].want = want;
	if (want && !b->ev && !(b->ev = aiwi_at(b->sim, aiwi_now(b->sim), settle_event, b, 0)))
		aiwi_fail(b->sim, AIW_ENOMEM);
}

void aiwi_budget_sample(aiwi_budget *b)
{
	if (b)
		check_used(b);
}

void aiwi_budget_finish(aiwi_budget *b)
{
	if (!b)
		return;
	check_used(b);
	aiwi_metric(b->sim, "site", "budget_gpus", b->cap);
	aiwi_metric(b->sim, "site", "budget_peak_gpus", b->peak);
	aiwi_metric(b->sim, "site", "budget_decisions", (double)b->decisions);
	aiwi_metric(b->sim, "site", "budget_denied_scaleups", (double)b->denied);
	aiwi_metric(b->sim, "site", "budget_denied_gpus", b->denied_gpus);
	for (size_t i = 0; i < b->n; i++) {
		const member *m = &b->m[i];
		aiwi_metric(b->sim, m->name, "budget_requests", (double)m->asks);
		aiwi_metric(b->sim, m->name, "budget_denied_scaleups", (double)m->denied);
		aiwi_metric(b->sim, m->name, "budget_denied_replicas", (double)m->denied_replicas);
		aiwi_metric(b->sim, m->name, "budget_denied_gpus", m->denied_replicas * m->g);
		aiwi_metric(b->sim, m->name, "budget_granted_replicas", (double)m->granted);
	}
}
