/*
 * plan_parts.c - aiw_plan_run_part and aiw_plan_merge: a plan's grid split
 * over processes (aiworkload-mpi plan), each part's results as bytes, the
 * parts merged into the same rows, ranking and bytes as aiw_plan_run.  The
 * search itself is plan.c's.
 */
#include "studies/plan.h"

#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------------ */
/* parts: the grid split over processes                                     */
/* ------------------------------------------------------------------------ */
/* A part's bytes: PART_MAGIC, the grid's combinations, part, nparts (each a
 * size_t), then per combination of the part: its index, its combo_res as
 * it is in memory (the pointers meaningless), and when it has a row the
 * index of its replica count and the lengths and bytes of its GPU name and
 * snippet.  The bytes of one build on one architecture: every process runs
 * the same program (as the MPI sweep sends doubles as they are). */
static const char PART_MAGIC[8] = "AIWPLN1";

typedef struct buf {
	unsigned char *b;
	size_t len, cap;
	bool bad;
} buf;

static void put(buf *o, const void *x, size_t n)
{
	if (o->bad)
		return;
	if (o->len + n > o->cap) {
		size_t cap = o->cap ? o->cap : 4096;
		while (cap < o->len + n)
			cap *= 2;
		unsigned char *b = realloc(o->b, cap);
		if (!b) {
			o->bad = true;
			return;
		}
		o->b = b;
		o->cap = cap;
	}
	memcpy(o->b + o->len, x, n);
	o->len += n;
}

static void put_size(buf *o, size_t v)
{
	put(o, &v, sizeof v);
}

aiw_status aiw_plan_run_part(aiw_plan *p, size_t part, size_t nparts, void **out, size_t *len)
{
	if (!p)
		return AIW_EINVAL;
	if (!out || !len)
		return aiwi_plan_err(p, AIW_EINVAL, "aiw_plan_run_part: out or len is NULL");
	*out = NULL;
	*len = 0;
	if (nparts == 0 || part >= nparts)
		return aiwi_plan_err(p, AIW_ERANGE,
		                     "aiw_plan_run_part: part %zu of %zu: a part from 0 to nparts - 1",
		                     part, nparts);
	size_t n[NAXES], combos, ended = 0;
	aiw_status st = aiwi_plan_prepare(p, n, &combos);
	if (st != AIW_OK)
		return st;
	if (p->training)
		return aiwi_plan_err(p, AIW_EINVAL,
		                     "aiw_plan_run_part: %s is a training job: its layout search "
		                     "runs whole (aiw_plan_run)",
		                     p->px);
	combo_res *res = aiwi_plan_new_results(p, combos);
	if (!res)
		return AIW_ENOMEM;
	aiwi_plan_share(p, n, combos, res, part, nparts, &ended);
	buf o = {0};
	put(&o, PART_MAGIC, sizeof PART_MAGIC);
	put_size(&o, combos);
	put_size(&o, part);
	put_size(&o, nparts);
	for (size_t ci = part; ci < combos; ci += nparts) {
		const combo_res *r = &res[ci];
		put_size(&o, ci);
		put(&o, r, sizeof *r);
		if (r->has_row) {
			size_t j = 0;
			const plan_row *row = &r->row;
			while (j < p->nax[AX_REPLICAS] && p->ax[AX_REPLICAS][j] != row->c.v[AX_REPLICAS])
				j++;
			size_t lg = strlen(r->row.gpu), ls = strlen(r->row.snippet);
			put_size(&o, j);
			put_size(&o, lg);
			put_size(&o, ls);
			put(&o, r->row.gpu, lg);
			put(&o, r->row.snippet, ls);
		}
	}
	aiwi_plan_free_results(res, combos);
	p->parted = true;
	if (o.bad) {
		free(o.b);
		return aiwi_plan_err(p, AIW_ENOMEM, "aiw_plan_run_part: out of memory");
	}
	*out = o.b;
	*len = o.len;
	return AIW_OK;
}

typedef struct rd {
	const unsigned char *b;
	size_t len, at;
} rd;

static bool get(rd *r, void *x, size_t n)
{
	if (r->len - r->at < n)
		return false;
	memcpy(x, r->b + r->at, n);
	r->at += n;
	return true;
}

aiw_status aiw_plan_merge(aiw_plan *p, const void *const *parts, const size_t *lens,
                          size_t nparts)
{
	if (!p)
		return AIW_EINVAL;
	if (!parts || !lens || nparts == 0)
		return aiwi_plan_err(p, AIW_EINVAL, "aiw_plan_merge: no parts");
	if (!p->parted || p->merged)
		return aiwi_plan_err(p, AIW_ESTATE,
		                     "aiw_plan_merge: %s",
		                     p->merged ? "the plan has merged its parts already"
		                               : "the plan has not run a part (aiw_plan_run_part)");
	size_t n[NAXES], combos = 1;
	for (size_t a = 0; a < NAXES; a++) {
		n[a] = p->ax[a] ? p->nax[a] : 1;
		if (a != AX_REPLICAS)
			combos *= n[a];
	}
	combo_res *res = aiwi_plan_new_results(p, combos);
	if (!res)
		return AIW_ENOMEM;
	bool *seen = calloc(combos, sizeof *seen);
	aiw_status st = seen ? AIW_OK : aiwi_plan_err(p, AIW_ENOMEM, "aiw_plan_merge: out of memory");
	size_t ended = 0;
	for (size_t k = 0; k < nparts && st == AIW_OK; k++) {
		rd r = {parts[k], lens[k], 0};
		char magic[sizeof PART_MAGIC];
		size_t nc, part, np;
		if (!parts[k] || !get(&r, magic, sizeof magic) ||
		    memcmp(magic, PART_MAGIC, sizeof magic) != 0 || !get(&r, &nc, sizeof nc) ||
		    !get(&r, &part, sizeof part) || !get(&r, &np, sizeof np) || nc != combos ||
		    np != nparts || part >= np) {
			st = aiwi_plan_err(p, AIW_EINVAL,
			                   "aiw_plan_merge: part %zu is not a part of this plan's grid "
			                   "in %zu parts",
			                   k, nparts);
			break;
		}
		for (size_t ci = part; ci < combos && st == AIW_OK; ci += np) {
			size_t at;
			combo_res *c = &res[ci];
			/* a combination seen already keeps its row (freed with res); one
			 * read in part has garbage for pointers: no row */
			bool bad = !get(&r, &at, sizeof at) || at != ci || seen[ci];
			if (bad || !get(&r, c, sizeof *c)) {
				st = aiwi_plan_err(p, AIW_EINVAL,
				                   "aiw_plan_merge: part %zu: combination %zu missing or "
				                   "given twice",
				                   k, ci);
				if (!bad)
					c->has_row = false;
				break;
			}
			seen[ci] = true;
			ended += c->st != AIW_ESTOPPED;
			if (!c->has_row)
				continue;
			c->row.gpu = c->row.snippet = NULL;
			size_t j, lg, ls;
			bool ok = get(&r, &j, sizeof j) && get(&r, &lg, sizeof lg) &&
			          get(&r, &ls, sizeof ls) && j < n[AX_REPLICAS] && lg < r.len &&
			          ls < r.len;
			if (ok) {
				c->row.gpu = calloc(1, lg + 1);
				c->row.snippet = calloc(1, ls + 1);
				ok = c->row.gpu && c->row.snippet && get(&r, c->row.gpu, lg) &&
				     get(&r, c->row.snippet, ls);
			}
			if (!ok) {
				st = aiwi_plan_err(p, AIW_EINVAL, "aiw_plan_merge: part %zu truncated", k);
				break;
			}
			plan_row *row = &c->row;
			aiwi_plan_combo_cand(p, ci, n, &row->c);
			row->c.v[AX_REPLICAS] = p->ax[AX_REPLICAS][j];
		}
		if (st == AIW_OK && r.at != r.len)
			st = aiwi_plan_err(p, AIW_EINVAL, "aiw_plan_merge: part %zu: trailing bytes", k);
	}
	for (size_t ci = 0; ci < combos && st == AIW_OK; ci++)
		if (!seen[ci])
			st = aiwi_plan_err(p, AIW_EINVAL,
			                   "aiw_plan_merge: combination %zu in no part (every part "
			                   "from 0 to %zu is needed)",
			                   ci, nparts - 1);
	free(seen);
	if (st != AIW_OK) {
		aiwi_plan_free_results(res, combos);
		return st;
	}
	p->merged = true;
	return aiwi_plan_finish(p, combos, res, ended);
}
