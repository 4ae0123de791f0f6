/*
 * profile.c - measured serving times and the least-squares fit of the
 * iteration model to them (profile.h), and the public aiw_profile_* calls.
 */
#include "inference/profile.h"

#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_multifit.h>
#include <gsl/gsl_statistics_double.h>
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

static aiw_status perr(aiwi_profile *p, aiw_status code, const char *fmt, ...) AIW_PRINTF(3, 4);
static aiw_status perr(aiwi_profile *p, aiw_status code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->err, sizeof p->err, fmt, ap);
	va_end(ap);
	return code;
}

void aiwi_prof_init(aiwi_profile *p)
{
	memset(p, 0, sizeof *p);
	p->shape = aiwi_iter_shape_default();
	p->overhead_s = AIWI_ITER_OVERHEAD_S;
	for (int ph = 0; ph < AIWI_PH_N; ph++)
		for (int j = 0; j < AIWI_IT_NTERMS; j++)
			p->held_at[ph][j] = NAN;
	p->hold[AIWI_PH_PREFILL][AIWI_IT_MEM] = true;
	p->hold[AIWI_PH_DECODE][AIWI_IT_ATTN] = true;
	p->hold[AIWI_PH_DECODE][AIWI_IT_MEM] = true;
}

void aiwi_prof_clear(aiwi_profile *p)
{
	free(p->rows);
	free(p->groups);
	free(p->weight);
	free(p->chash);
	p->chash = NULL;
	p->chcap = 0;
	p->weight = NULL;
	p->rows = NULL;
	p->groups = NULL;
	p->nrows = p->cap = p->ngroups = 0;
	p->nconfigs = 0;
}

/* ------------------------------------------------------------------------ */
/* groups                                                                    */
/* ------------------------------------------------------------------------ */
static const struct {
	const char *table, *gpu, *host;
} ALIASES[] = {
	/* Splitwise's hardware names; the power-capped H100 rows are H100s.
	 * host: the GPUs' PCIe link to the host (DGX A100: PCIe 4.0 x16 per
	 * GPU; DGX H100: PCIe 5.0 x16; NVIDIA DGX user guides) */
	{"a100-80gb", "A100-80GB", "PCIe4"},
	{"h100-80gb", "H100-SXM", "PCIe5"},
	{"h100-80gb-pcap", "H100-SXM", "PCIe5"},
};

int aiwi_prof_group_find(const aiwi_profile *p, const char *name)
{
	if (!name)
		return -1;
	for (size_t i = 0; i < p->ngroups; i++)
		if (aiwi_hw_ieq(p->groups[i].name, name))
			return (int)i;
	for (size_t i = 0; i < p->ngroups; i++)
		if (aiwi_hw_ieq(p->groups[i].gpu, name))
			return (int)i;
	return -1;
}

/* A group by its name, added if new; -1: out of memory.  Names longer than
 * a group holds are refused before (check_name). */
static int group_add(aiwi_profile *p, const char *name)
{
	for (size_t i = 0; i < p->ngroups; i++)
		if (strcmp(p->groups[i].name, name) == 0)
			return (int)i;
	aiwi_prof_group *g = realloc(p->groups, (p->ngroups + 1) * sizeof *g);
	if (!g)
		return -1;
	p->groups = g;
	aiwi_prof_group *n = &g[p->ngroups];
	snprintf(n->name, sizeof n->name, "%s", name);
	snprintf(n->gpu, sizeof n->gpu, "%s", name);
	n->host[0] = '\0';
	for (size_t k = 0; k < sizeof ALIASES / sizeof *ALIASES; k++)
		if (aiwi_hw_ieq(name, ALIASES[k].table)) {
			snprintf(n->gpu, sizeof n->gpu, "%s", ALIASES[k].gpu);
			snprintf(n->host, sizeof n->host, "%s", ALIASES[k].host);
		}
	return (int)p->ngroups++;
}

/* ------------------------------------------------------------------------ */
/* reading                                                                   */
/* ------------------------------------------------------------------------ */
#define MAXCOLS 32

/* Split line (modified in place) at commas; fields trimmed, quotes off. */
static int split(char *line, char **f, int max)
{
	int n = 0;
	char *s = line;
	for (;;) {
		char *e = strchr(s, ',');
		if (e)
			*e = '\0';
		while (*s == ' ' || *s == '\t')
			s++;
		size_t len = strlen(s);
		while (len && (s[len - 1] == ' ' || s[len - 1] == '\t' || s[len - 1] == '\r'))
			s[--len] = '\0';
		if (len >= 2 && s[0] == '"' && s[len - 1] == '"') {
			s[len - 1] = '\0';
			s++;
		}
		if (n < max)
			f[n++] = s;
		if (!e)
			return n;
		s = e + 1;
	}
}

enum { C_HW, C_TP, C_PROMPT, C_BATCH, C_TOKENS, C_PTIME, C_TTIME, NSW };
static const char *const SW_COLS[NSW] = {"hardware",   "tensor_parallel", "prompt_size",
                                         "batch_size", "token_size",      "prompt_time",
                                         "token_time"};
enum { N_PHASE, N_GPU, N_TP, N_BATCH, N_PROMPT, N_CONTEXT, N_TIME, N_PP, NNAT };
static const char *const NAT_COLS[NNAT] = {"phase",  "gpu",     "tp",     "batch",
                                           "prompt", "context", "time_s", "pp"};

static bool same_config(const aiwi_prof_row *o, const aiwi_prof_row *x)
{
	return o->phase == x->phase && o->group == x->group && o->tp == x->tp && o->pp == x->pp &&
	       o->batch == x->batch && o->prompt == x->prompt && o->context == x->context &&
	       (x->phase == AIWI_PH_PREFILL || o->out == x->out);
}

static uint64_t mix(uint64_t h, double v)
{
	uint64_t b;
	v = v == 0 ? 0 : v; /* -0 and 0 are one size */
	memcpy(&b, &v, sizeof b);
	/* MurmurHash3's 64-bit finalizer: the low bits depend on all of them
	 * (a small whole number's double has its low mantissa bits zero) */
	h ^= b + 0x9e3779b97f4a7c15u + (h << 6) + (h >> 2);
	h ^= h >> 33;
	h *= 0xff51afd7ed558ccdu;
	h ^= h >> 33;
	h *= 0xc4ceb9fe1a85ec53u;
	return h ^ (h >> 33);
}

/* The hash of what same_config compares. */
static size_t config_hash(const aiwi_prof_row *x)
{
	uint64_t h = (uint64_t)x->phase * 31u + (uint64_t)x->group;
	h = mix(mix(mix(mix(mix(h, x->tp), x->pp), x->batch), x->prompt), x->context);
	if (x->phase != AIWI_PH_PREFILL)
		h = mix(h, x->out);
	return (size_t)h;
}

static aiw_status row_add(aiwi_profile *p, const aiwi_prof_row *r)
{
	if (p->nrows == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 256;
		aiwi_prof_row *n = realloc(p->rows, cap * sizeof *n);
		if (!n)
			return perr(p, AIW_ENOMEM, "out of memory");
		p->rows = n;
		p->cap = cap;
	}
	aiwi_prof_row x = *r;
	/* the sizes of the terms */
	if (x.phase == AIWI_PH_PREFILL) {
		x.u = x.batch * x.prompt;
		x.v = x.batch * x.prompt * x.prompt;
	} else {
		x.u = x.batch;
		x.v = x.batch * x.context;
	}
	/* a configuration: the same phase, group and sizes (a prefill's time
	 * does not depend on how many tokens the decode goes on to make),
	 * found by hash: reading is linear in the rows */
	if ((size_t)p->nconfigs + 1 > p->chcap / 2) {
		size_t ncap = p->chcap ? 2 * p->chcap : 1024;
		size_t *nh = calloc(ncap, sizeof *nh);
		if (!nh)
			return perr(p, AIW_ENOMEM, "out of memory");
		for (size_t i = 0; i < p->chcap; i++)
			if (p->chash[i]) {
				size_t h = config_hash(&p->rows[p->chash[i] - 1]) & (ncap - 1);
				while (nh[h])
					h = (h + 1) & (ncap - 1);
				nh[h] = p->chash[i];
			}
		free(p->chash);
		p->chash = nh;
		p->chcap = ncap;
	}
	x.config = -1;
	size_t h = config_hash(&x) & (p->chcap - 1);
	for (; p->chash[h]; h = (h + 1) & (p->chcap - 1))
		if (same_config(&p->rows[p->chash[h] - 1], &x)) {
			x.config = p->rows[p->chash[h] - 1].config;
			break;
		}
	if (x.config < 0) {
		x.config = p->nconfigs++;
		p->chash[h] = p->nrows + 1;
	}
	p->rows[p->nrows++] = x;
	return AIW_OK;
}

static aiw_status number(aiwi_profile *p, const char *origin, int line, const char *col,
                         const char *s, double lo, bool integer, double *out)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || *end || !isfinite(v))
		return perr(p, AIW_EPARSE, "%s:%d: column %s = \"%s\" is not a number", origin, line,
		            col, s);
	if (v < lo || (integer && floor(v) != v) || v > 1e12)
		return perr(p, AIW_ERANGE, "%s:%d: column %s = %g must be %s in [%g, 1e+12]", origin,
		            line, col, v, integer ? "an integer" : "a number", lo);
	*out = v;
	return AIW_OK;
}

aiw_status aiwi_prof_read_text(aiwi_profile *p, const char *text, const char *origin)
{
	if (!text)
		return perr(p, AIW_EINVAL, "profile text is NULL");
	if (!origin)
		origin = "profile";
	int idx[(int)NNAT > (int)NSW ? (int)NNAT : (int)NSW];
	int layout = -1, ncol = 0, lineno = 0, data = 0;
	const char *s = text;
	char buf[4096];
	while (*s) {
		const char *e = strchr(s, '\n');
		size_t len = e ? (size_t)(e - s) : strlen(s);
		lineno++;
		if (len >= sizeof buf)
			return perr(p, AIW_EPARSE, "%s:%d: line longer than %zu characters", origin, lineno,
			            sizeof buf - 1);
		memcpy(buf, s, len);
		buf[len] = '\0';
		s = e ? e + 1 : s + len;
		char *t = buf;
		while (*t == ' ' || *t == '\t' || *t == '\r')
			t++;
		if (!*t || *t == '#')
			continue;
		char *f[MAXCOLS];
		int n = split(buf, f, MAXCOLS);
		if (layout < 0) {
			/* the header decides the layout */
			const char *const *want[2] = {SW_COLS, NAT_COLS};
			int nwant[2] = {NSW, NNAT}, nreq[2] = {NSW, NNAT - 1};
			for (int l = 0; l < 2 && layout < 0; l++) {
				int found = 0;
				for (int k = 0; k < nwant[l]; k++) {
					idx[k] = -1;
					for (int c = 0; c < n; c++)
						if (aiwi_hw_ieq(f[c], want[l][k]))
							idx[k] = c;
					if (idx[k] >= 0 && k < nreq[l])
						found++;
				}
				if (found == nreq[l])
					layout = l;
			}
			if (layout < 0)
				return perr(p, AIW_EPARSE,
				            "%s:%d: header names neither Splitwise's columns (hardware, "
				            "tensor_parallel, prompt_size, batch_size, token_size, "
				            "prompt_time, token_time) nor phase, gpu, tp, batch, prompt, "
				            "context, time_s",
				            origin, lineno);
			ncol = n;
			p->splitwise = layout == 0;
			continue;
		}
		if (n != ncol)
			return perr(p, AIW_EPARSE, "%s:%d: %d columns, the header has %d", origin, lineno,
			            n, ncol);
		aiw_status st;
		aiwi_prof_row r = {0};
		r.pp = 1;
		if (layout == 0) {
			double tp, pr, b, tok, pt, tt;
			if ((st = number(p, origin, lineno, "tensor_parallel", f[idx[C_TP]], 1, true, &tp)) ||
			    (st = number(p, origin, lineno, "prompt_size", f[idx[C_PROMPT]], 1, true, &pr)) ||
			    (st = number(p, origin, lineno, "batch_size", f[idx[C_BATCH]], 1, true, &b)) ||
			    (st = number(p, origin, lineno, "token_size", f[idx[C_TOKENS]], 1, true, &tok)) ||
			    (st = number(p, origin, lineno, "prompt_time", f[idx[C_PTIME]], 0, false, &pt)) ||
			    (st = number(p, origin, lineno, "token_time", f[idx[C_TTIME]], 0, false, &tt)))
				return st;
			if (!f[idx[C_HW]][0])
				return perr(p, AIW_EPARSE, "%s:%d: column hardware is empty", origin, lineno);
			if (strlen(f[idx[C_HW]]) >= AIWI_PROF_NAME)
				return perr(p, AIW_EPARSE,
				            "%s:%d: column hardware = \"%.40s...\": a GPU name of %zu "
				            "characters, longer than %d",
				            origin, lineno, f[idx[C_HW]], strlen(f[idx[C_HW]]), AIWI_PROF_NAME - 1);
			int g = group_add(p, f[idx[C_HW]]);
			if (g < 0)
				return perr(p, AIW_ENOMEM, "out of memory");
			r.group = g;
			r.tp = tp;
			r.batch = b;
			r.prompt = pr;
			r.out = tok;
			if (pt > 0) {
				r.phase = AIWI_PH_PREFILL;
				r.y = pt * 1e-3;
				if ((st = row_add(p, &r)))
					return st;
			}
			if (tt > 0 && tok > 1) {
				r.phase = AIWI_PH_DECODE;
				r.context = pr + tok / 2; /* the mean over the decode */
				r.y = tt * 1e-3;
				if ((st = row_add(p, &r)))
					return st;
			}
		} else {
			int ph = aiwi_iter_phase_index(f[idx[N_PHASE]]);
			if (ph < 0)
				return perr(p, AIW_EPARSE, "%s:%d: column phase = \"%s\" must be prefill or decode",
				            origin, lineno, f[idx[N_PHASE]]);
			r.phase = ph;
			if ((st = number(p, origin, lineno, "tp", f[idx[N_TP]], 1, true, &r.tp)) ||
			    (st = number(p, origin, lineno, "batch", f[idx[N_BATCH]], 1, true, &r.batch)) ||
			    (st = number(p, origin, lineno, "time_s", f[idx[N_TIME]], 0, false, &r.y)))
				return st;
			if (idx[N_PP] >= 0 &&
			    (st = number(p, origin, lineno, "pp", f[idx[N_PP]], 1, true, &r.pp)))
				return st;
			if (ph == AIWI_PH_PREFILL &&
			    (st = number(p, origin, lineno, "prompt", f[idx[N_PROMPT]], 1, true, &r.prompt)))
				return st;
			if (ph == AIWI_PH_DECODE &&
			    (st = number(p, origin, lineno, "context", f[idx[N_CONTEXT]], 0, false,
			                 &r.context)))
				return st;
			if (!(r.y > 0))
				return perr(p, AIW_ERANGE, "%s:%d: column time_s = %g must be > 0", origin,
				            lineno, r.y);
			if (!f[idx[N_GPU]][0])
				return perr(p, AIW_EPARSE, "%s:%d: column gpu is empty", origin, lineno);
			if (strlen(f[idx[N_GPU]]) >= AIWI_PROF_NAME)
				return perr(p, AIW_EPARSE,
				            "%s:%d: column gpu = \"%.40s...\": a GPU name of %zu "
				            "characters, longer than %d",
				            origin, lineno, f[idx[N_GPU]], strlen(f[idx[N_GPU]]), AIWI_PROF_NAME - 1);
			int g = group_add(p, f[idx[N_GPU]]);
			if (g < 0)
				return perr(p, AIW_ENOMEM, "out of memory");
			r.group = g;
			if ((st = row_add(p, &r)))
				return st;
		}
		data++;
	}
	if (layout < 0)
		return perr(p, AIW_EPARSE, "%s: no header line", origin);
	if (!data)
		return perr(p, AIW_EPARSE, "%s: no data rows", origin);
	return AIW_OK;
}

aiw_status aiwi_prof_read(aiwi_profile *p, const char *path)
{
	if (!path)
		return perr(p, AIW_EINVAL, "profile path is NULL");
	FILE *fp = fopen(path, "rb");
	if (!fp)
		return perr(p, AIW_EIO, "%s: cannot open", path);
	size_t cap = 1 << 16, n = 0;
	char *buf = malloc(cap);
	for (;;) {
		if (!buf) {
			fclose(fp);
			return perr(p, AIW_ENOMEM, "out of memory");
		}
		n += fread(buf + n, 1, cap - n - 1, fp);
		if (n < cap - 1)
			break;
		if (cap >= (size_t)1 << 30) {
			free(buf);
			fclose(fp);
			return perr(p, AIW_ELIMIT, "%s: larger than 1 GB", path);
		}
		cap *= 2;
		char *nb = realloc(buf, cap);
		if (!nb)
			free(buf);
		buf = nb;
	}
	bool bad = ferror(fp);
	fclose(fp);
	if (bad) {
		free(buf);
		return perr(p, AIW_EIO, "%s: read error", path);
	}
	buf[n] = '\0';
	const char *nul = memchr(buf, 0, n);
	if (nul) {
		/* the text would end there, every row after it dropped */
		int line = 1;
		for (const char *c = buf; c < nul; c++)
			line += *c == '\n';
		free(buf);
		return perr(p, AIW_EPARSE, "%s:%d: NUL byte in the line: not a text CSV file", path,
		            line);
	}
	aiw_status st = aiwi_prof_read_text(p, buf, path);
	free(buf);
	return st;
}

/* ------------------------------------------------------------------------ */
/* terms and the fit                                                         */
/* ------------------------------------------------------------------------ */
static aiw_status group_hw(aiwi_profile *p, int group, const aiwi_iter_shape *s,
                           const aiwi_gpu_spec **g, aiwi_iter_hw *h)
{
	if (group < 0 || (size_t)group >= p->ngroups)
		return perr(p, AIW_ERANGE, "group %d out of range", group);
	*g = aiwi_hw_gpu(NULL, p->groups[group].gpu);
	if (!*g)
		return perr(p, AIW_EUNKNOWN,
		            "GPU \"%s\" of the profile is not in the catalog (aiworkload catalog lists "
		            "it)",
		            p->groups[group].gpu);
	aiwi_iter_hw_of(*g, s, true, h);
	if (p->tp_link_pcie) {
		/* the TP all-reduces over the GPUs' host PCIe link */
		const aiwi_link_spec *l = NULL;
		for (size_t i = 0; i < aiwi_hw_link_builtin_count() && p->groups[group].host[0]; i++)
			if (aiwi_hw_ieq(aiwi_hw_link_builtin(i)->name, p->groups[group].host))
				l = aiwi_hw_link_builtin(i);
		if (!l)
			return perr(p, AIW_EUNKNOWN,
			            "GPU \"%s\" of the profile: its host PCIe link is not known "
			            "(tp_link_pcie = 1 knows a100-80gb, h100-80gb); set tp_link_pcie = 0",
			            p->groups[group].name);
		h->tp_link = *l;
	}
	return AIW_OK;
}

aiw_status aiwi_prof_terms(aiwi_profile *p, const aiwi_prof_row *r, double x[AIWI_IT_NTERMS])
{
	aiwi_iter_shape s = p->shape;
	s.tp = r->tp;
	s.pp = r->pp;
	const aiwi_gpu_spec *g;
	aiwi_iter_hw h;
	aiw_status st = group_hw(p, r->group, &s, &g, &h);
	if (st)
		return st;
	aiwi_iter_affine t[AIWI_IT_NTERMS];
	aiwi_iter_terms(r->phase, &s, &h, t);
	/* a decode batch smaller than the stages: n micro-batches of one */
	double k = r->phase == AIWI_PH_DECODE ? aiwi_iter_decode_share(r->batch, r->pp) : 1;
	aiwi_iter_eval(t, r->batch, k * r->u, k * r->v, x);
	return AIW_OK;
}

aiw_status aiwi_prof_datasheet(aiwi_profile *p, int group, int phase, double beta[AIWI_IT_NTERMS])
{
	const aiwi_gpu_spec *g;
	aiwi_iter_hw h;
	aiw_status st = group_hw(p, group, &p->shape, &g, &h);
	if (st)
		return st;
	(void)phase;
	aiwi_iter_datasheet(g, &h, p->overhead_s, beta);
	return AIW_OK;
}

double aiwi_prof_predict(aiwi_profile *p, const aiwi_prof_row *r, const double beta[AIWI_IT_NTERMS])
{
	double x[AIWI_IT_NTERMS];
	if (aiwi_prof_terms(p, r, x))
		return NAN;
	return aiwi_iter_time(beta, x);
}

/* Distinct values of f over the rows used (up to 3 counted). */
static int distinct(const aiwi_profile *p, const int *ix, size_t n, double (*f)(const aiwi_prof_row *),
                    double *first)
{
	double seen[3];
	int k = 0;
	for (size_t i = 0; i < n && k < 3; i++) {
		double v = f(&p->rows[ix[i]]);
		bool dup = false;
		for (int j = 0; j < k; j++)
			dup |= fabs(seen[j] - v) <= 1e-9 * fabs(v);
		if (!dup)
			seen[k++] = v;
	}
	if (first)
		*first = k ? seen[0] : NAN;
	return k;
}
double aiwi_prof_lower_bound(int term)
{
	return term == AIWI_IT_OVERHEAD || term == AIWI_IT_SEQ ? 0 : 1;
}

/* The robust fit (aiwi_prof_fit): Tukey's bisquare and Huber's constants
 * (95% efficiency at normal errors), the floor of the robust scale (relative:
 * the spread of a measured configuration's repeats), the reweighting
 * iterations at most. */
#define BISQUARE_C 4.685
#define HUBER_C 1.345
#define SCALE_FLOOR 0.01
#define IRLS_MAX 100

static double f_tp(const aiwi_prof_row *r) { return r->tp; }
static double f_u(const aiwi_prof_row *r) { return r->u; }
static double f_m(const aiwi_prof_row *r) { return r->batch; }
static double f_len(const aiwi_prof_row *r) { return r->v / r->u; }
static double f_ctx(const aiwi_prof_row *r) { return r->v; }

aiw_status aiwi_prof_fit(aiwi_profile *p, int group, int phase, const bool *use,
                         double beta[AIWI_IT_NTERMS], double se[AIWI_IT_NTERMS], size_t *nused)
{
	if (phase < 0 || phase >= AIWI_PH_N)
		return perr(p, AIW_ERANGE, "phase %d out of range", phase);
	int *ix = malloc((p->nrows ? p->nrows : 1) * sizeof *ix);
	if (!ix)
		return perr(p, AIW_ENOMEM, "out of memory");
	size_t n = 0;
	aiwi_prof_row *cr = NULL;
	int *cof = NULL, *ccnt = NULL;
	for (size_t i = 0; i < p->nrows; i++)
		if (p->rows[i].phase == phase && (group < 0 || p->rows[i].group == group) &&
		    (!use || use[i]))
			ix[n++] = (int)i;
	const char *ph = aiwi_iter_phase_names[phase];
	const char *gname = group >= 0 && (size_t)group < p->ngroups ? p->groups[group].name : "all";
	aiw_status st = AIW_OK;
	if (nused)
		*nused = n;
	/* the weights of this fit (NAN until it succeeds), one per row */
	double *wt = realloc(p->weight, (p->nrows ? p->nrows : 1) * sizeof *wt);
	if (!wt) {
		free(ix);
		return perr(p, AIW_ENOMEM, "out of memory");
	}
	p->weight = wt;
	for (size_t i = 0; i < p->nrows; i++)
		wt[i] = NAN;
	if (n == 0) {
		st = perr(p, AIW_ESCENARIO, "no %s rows for %s in the profile", ph, gname);
		goto out;
	}
	/* the datasheet values of the held coefficients */
	aiw_status dst = aiwi_prof_datasheet(p, group >= 0 ? group : p->rows[ix[0]].group, phase, beta);
	if (dst) {
		st = dst;
		goto out;
	}
	for (int j = 0; j < AIWI_IT_NTERMS; j++)
		if (p->hold[phase][j] && isfinite(p->held_at[phase][j]))
			beta[j] = p->held_at[phase][j];
	int freej[AIWI_IT_NTERMS], k = 0;
	for (int j = 0; j < AIWI_IT_NTERMS; j++) {
		se[j] = 0;
		if (!p->hold[phase][j])
			freej[k++] = j;
	}
	/* what the table must vary for each free term */
	double v0;
	for (int q = 0; q < k; q++) {
		int j = freej[q];
		if (j == AIWI_IT_COMM && distinct(p, ix, n, f_tp, &v0) < 2) {
			st = perr(p, AIW_ESCENARIO,
			          "%s, %s: only one tensor-parallel degree (tp = %g): the TP "
			          "communication term is not determined; hold it at the collective "
			          "model (hold %s.comm)",
			          gname, ph, v0, ph);
			goto out;
		}
		if (j == AIWI_IT_GEMM && distinct(p, ix, n, f_u, &v0) < 2) {
			st = perr(p, AIW_ESCENARIO,
			          "%s, %s: only one %s (%g): the GEMM term, which grows with it, is not "
			          "determined",
			          gname, ph, phase == AIWI_PH_PREFILL ? "token count" : "batch size", v0);
			goto out;
		}
		if (j == AIWI_IT_SEQ && distinct(p, ix, n, f_m, &v0) < 2) {
			st = perr(p, AIW_ESCENARIO,
			          "%s, %s: only one batch size (%g): the per-sequence term is not "
			          "determined; hold it (hold %s.seq)",
			          gname, ph, v0, ph);
			goto out;
		}
		if (j == AIWI_IT_ATTN && phase == AIWI_PH_PREFILL &&
		    distinct(p, ix, n, f_len, &v0) < 2) {
			st = perr(p, AIW_ESCENARIO,
			          "%s, %s: only one prompt length (%g tokens): the attention term "
			          "(quadratic in the prompt) is not determined",
			          gname, ph, v0);
			goto out;
		}
		if ((j == AIWI_IT_MEM || j == AIWI_IT_ATTN) && phase == AIWI_PH_DECODE &&
		    distinct(p, ix, n, f_ctx, &v0) < 2) {
			st = perr(p, AIW_ESCENARIO,
			          "%s, %s: only one context size (%g tokens): the %s term, which grows "
			          "with it, is not determined",
			          gname, ph, v0, aiwi_iter_term_names[j]);
			goto out;
		}
	}
	/* One point per configuration, its repeats' mean: repeats measure the
	 * noise, not the model's error, and counted one by one the many repeats
	 * of a few configurations would set the robust scale (and so which
	 * rows the bisquare rejects) */
	size_t nf = 0;
	cr = malloc(n * sizeof *cr);
	cof = malloc(n * sizeof *cof);
	ccnt = calloc(n, sizeof *ccnt);
	if (!cr || !cof || !ccnt) {
		st = perr(p, AIW_ENOMEM, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const aiwi_prof_row *r = &p->rows[ix[i]];
		size_t q = 0;
		while (q < nf && cr[q].config != r->config)
			q++;
		if (q == nf) {
			cr[nf] = *r;
			cr[nf++].y = 0;
		}
		cr[q].y += r->y;
		ccnt[q]++;
		cof[i] = (int)q;
	}
	for (size_t q = 0; q < nf; q++)
		cr[q].y /= ccnt[q];
	if (nf < (size_t)k + 1) {
		st = perr(p, AIW_ESCENARIO,
		          "%s, %s: %zu configurations for %d coefficients: at least %d are needed",
		          gname, ph, nf, k, k + 1);
		goto out;
	}
	/* Bounds: a coefficient is 1 / an efficiency (at most the peak: >= 1)
	 * or a host cost (overhead, seq: >= 0).  A fit that crosses one holds the coefficient
	 * furthest past its bound at the bound and fits the others again (an
	 * active-set solution of the bounded least-squares problem): a table
	 * that the model does not describe then shows as rows the fit misses,
	 * not as a negative overhead or a GEMM faster than the peak. */
	bool held[AIWI_IT_NTERMS];
	for (int j = 0; j < AIWI_IT_NTERMS; j++)
		held[j] = p->hold[phase][j];
	for (int round = 0; round < AIWI_IT_NTERMS; round++) {
		k = 0;
		for (int j = 0; j < AIWI_IT_NTERMS; j++)
			if (!held[j])
				freej[k++] = j;
		if (k == 0)
			break;
		gsl_matrix *X = gsl_matrix_alloc(nf, (size_t)k);
		gsl_vector *y = gsl_vector_alloc(nf), *w = gsl_vector_alloc(nf), *c = gsl_vector_alloc((size_t)k);
		gsl_matrix *cov = gsl_matrix_alloc((size_t)k, (size_t)k);
		if (!X || !y || !w || !c || !cov) {
			st = perr(p, AIW_ENOMEM, "out of memory");
			goto free;
		}
		/* columns scaled to unit size in the weighted norm: the rank test
		 * below then compares like with like */
		double scale[AIWI_IT_NTERMS] = {0};
		for (size_t i = 0; i < nf; i++) {
			const aiwi_prof_row *r = &cr[i];
			double x[AIWI_IT_NTERMS];
			if ((st = aiwi_prof_terms(p, r, x)))
				goto free;
			double rhs = r->y;
			for (int j = 0; j < AIWI_IT_NTERMS; j++)
				if (held[j])
					rhs -= beta[j] * x[j];
			for (int q = 0; q < k; q++) {
				gsl_matrix_set(X, i, (size_t)q, x[freej[q]]);
				scale[q] += x[freej[q]] * x[freej[q]] / (r->y * r->y);
			}
			gsl_vector_set(y, i, rhs);
			gsl_vector_set(w, i, 1 / (r->y * r->y));
		}
		for (int q = 0; q < k; q++) {
			scale[q] = sqrt(scale[q] / (double)nf);
			if (!(scale[q] > 0)) {
				st = perr(p, AIW_ESCENARIO, "%s, %s: the %s term is zero on every row", gname, ph,
				          aiwi_iter_term_names[freej[q]]);
				goto free;
			}
			gsl_vector_view col = gsl_matrix_column(X, (size_t)q);
			gsl_vector_scale(&col.vector, 1 / scale[q]);
		}
		/* rank: singular values of the weighted, scaled design */
		{
			gsl_matrix *A = gsl_matrix_alloc(nf, (size_t)k);
			gsl_matrix *V = gsl_matrix_alloc((size_t)k, (size_t)k);
			gsl_vector *S = gsl_vector_alloc((size_t)k), *wk = gsl_vector_alloc((size_t)k);
			if (!A || !V || !S || !wk) {
				gsl_matrix_free(A);
				gsl_matrix_free(V);
				gsl_vector_free(S);
				gsl_vector_free(wk);
				st = perr(p, AIW_ENOMEM, "out of memory");
				goto free;
			}
			for (size_t i = 0; i < nf; i++)
				for (int q = 0; q < k; q++)
					gsl_matrix_set(A, i, (size_t)q,
					               gsl_matrix_get(X, i, (size_t)q) * sqrt(gsl_vector_get(w, i)));
			gsl_linalg_SV_decomp(A, V, S, wk);
			double smax = gsl_vector_get(S, 0), smin = gsl_vector_get(S, (size_t)k - 1);
			if (!(smin > 1e-9 * smax)) {
				/* the term with the largest share of the null direction */
				int worst = 0;
				for (int q = 1; q < k; q++)
					if (fabs(gsl_matrix_get(V, (size_t)q, (size_t)k - 1)) >
					    fabs(gsl_matrix_get(V, (size_t)worst, (size_t)k - 1)))
						worst = q;
				st = perr(p, AIW_ESCENARIO,
				          "%s, %s: the rows do not tell the %s term from the others (singular "
				          "values %.3g of %.3g); add rows that vary it, or hold it",
				          gname, ph, aiwi_iter_term_names[freej[worst]], smin, smax);
			}
			gsl_matrix_free(A);
			gsl_matrix_free(V);
			gsl_vector_free(S);
			gsl_vector_free(wk);
			if (st)
				goto free;
		}
		/* Relative errors, robustly.  Every point is divided by the larger of
		 * its measurement and its prediction, so that its residual is at most
		 * 1 in size however far the model is from it (divided by the
		 * measurement alone, one point measured ten times too fast outweighs
		 * the table), and weighed by Tukey's bisquare (iteratively
		 * reweighted least squares, gsl_multifit_wlinear): points whose
		 * residual exceeds BISQUARE_C robust scales get weight zero
		 * (p->weight: the rejected rows).  The scale is the residuals'
		 * median absolute deviation / 0.6745, at least SCALE_FLOOR: the
		 * repeats of a measured configuration spread by about 1% (the
		 * shipped table's), below which a residual is noise, not misfit.
		 * The division starts from the datasheet prediction and follows
		 * the fit. */
		{
			gsl_matrix *X0 = gsl_matrix_alloc(nf, (size_t)k);
			gsl_vector *y0 = gsl_vector_alloc(nf), *res = gsl_vector_alloc(nf);
			gsl_multifit_linear_workspace *lw = gsl_multifit_linear_alloc(nf, (size_t)k);
			double *ar = malloc(nf * sizeof *ar);
			if (!X0 || !y0 || !res || !lw || !ar) {
				gsl_matrix_free(X0);
				gsl_vector_free(y0);
				gsl_vector_free(res);
				if (lw)
					gsl_multifit_linear_free(lw);
				free(ar);
				st = perr(p, AIW_ENOMEM, "out of memory");
				goto free;
			}
			gsl_matrix_memcpy(X0, X);
			gsl_vector_memcpy(y0, y);
			for (int q = 0; q < k; q++)
				gsl_vector_set(c, (size_t)q, beta[freej[q]] * scale[q]);
			gsl_vector_set_all(w, 1);
			int rc = GSL_SUCCESS;
			double chisq = 0;
			/* Huber's weights first (a convex problem: one solution, which
			 * a gross outlier moves only boundedly), then bisquare's from
			 * there (which rejects it) */
			bool huber = true;
			for (int it = 0; it < 2 * IRLS_MAX; it++) {
				/* divide by the larger of measured and predicted */
				for (size_t i = 0; i < nf; i++) {
					double yi = cr[i].y, fi = yi - gsl_vector_get(y0, i);
					for (int q = 0; q < k; q++)
						fi += gsl_matrix_get(X0, i, (size_t)q) * gsl_vector_get(c, (size_t)q);
					double m = fmax(yi, fi);
					for (int q = 0; q < k; q++)
						gsl_matrix_set(X, i, (size_t)q, gsl_matrix_get(X0, i, (size_t)q) / m);
					gsl_vector_set(y, i, gsl_vector_get(y0, i) / m);
				}
				gsl_vector *prev = gsl_vector_alloc((size_t)k);
				if (!prev) {
					rc = GSL_ENOMEM;
					break;
				}
				gsl_vector_memcpy(prev, c);
				rc = gsl_multifit_wlinear(X, w, y, c, cov, &chisq, lw);
				if (rc) {
					gsl_vector_free(prev);
					break;
				}
				gsl_multifit_linear_residuals(X, y, c, res);
				for (size_t i = 0; i < nf; i++)
					ar[i] = fabs(gsl_vector_get(res, i));
				double sigma = fmax(gsl_stats_median(ar, 1, nf) / 0.6745, SCALE_FLOOR);
				double moved = 0;
				for (int q = 0; q < k; q++)
					moved = fmax(moved, fabs(gsl_vector_get(c, (size_t)q) -
					                         gsl_vector_get(prev, (size_t)q)) /
					                        fmax(fabs(gsl_vector_get(c, (size_t)q)), 1e-12));
				gsl_vector_free(prev);
				bool converged = it > 0 && moved < 1e-10;
				if (!huber && (converged || it == 2 * IRLS_MAX - 1))
					break; /* w: the weights of the fit in c */
				if (huber && (converged || it == IRLS_MAX - 1))
					huber = false;
				for (size_t i = 0; i < nf; i++) {
					double r = gsl_vector_get(res, i), u;
					if (huber) {
						u = fabs(r) / (HUBER_C * sigma);
						gsl_vector_set(w, i, u <= 1 ? 1 : 1 / u);
					} else {
						u = r / (BISQUARE_C * sigma);
						gsl_vector_set(w, i, fabs(u) < 1 ? (1 - u * u) * (1 - u * u) : 0);
					}
				}
			}
			if (rc == GSL_SUCCESS) {
				/* the covariance of the last weighted fit, scaled by its
				 * reduced chi-square (the weights' sum stands for the
				 * points that count) */
				double wn = 0;
				for (size_t i = 0; i < nf; i++)
					wn += gsl_vector_get(w, i);
				double dof = wn - (double)k;
				gsl_matrix_scale(cov, dof > 0 ? chisq / dof : 0);
				for (size_t i = 0; i < n; i++)
					p->weight[ix[i]] = gsl_vector_get(w, (size_t)cof[i]);
			}
			gsl_multifit_linear_free(lw);
			gsl_matrix_free(X0);
			gsl_vector_free(y0);
			gsl_vector_free(res);
			free(ar);
			if (rc != GSL_SUCCESS) {
				st = perr(p, AIW_ESCENARIO, "%s, %s: the least-squares fit failed (%s)", gname,
				          ph, gsl_strerror(rc));
				goto free;
			}
		}
		for (int q = 0; q < k; q++) {
			int j = freej[q];
			beta[j] = gsl_vector_get(c, (size_t)q) / scale[q];
			se[j] = sqrt(gsl_matrix_get(cov, (size_t)q, (size_t)q)) / scale[q];
		}
	free:
		gsl_matrix_free(cov);
		gsl_vector_free(c);
		gsl_vector_free(w);
		gsl_vector_free(y);
		gsl_matrix_free(X);
		if (st)
			break;
		int worst = -1;
		double past = 0;
		for (int q = 0; q < k; q++) {
			int j = freej[q];
			double lb = aiwi_prof_lower_bound(j), v = (lb - beta[j]) / (lb > 0 ? lb : 1);
			if (beta[j] < lb && v > past) {
				past = v;
				worst = j;
			}
		}
		if (worst < 0)
			break;
		held[worst] = true;
		beta[worst] = aiwi_prof_lower_bound(worst);
		se[worst] = 0;
	}
out:
	free(cr);
	free(cof);
	free(ccnt);
	free(ix);
	return st;
}

/* ------------------------------------------------------------------------ */
/* public                                                                    */
/* ------------------------------------------------------------------------ */
struct aiw_profile {
	aiwi_profile p;
};

static pthread_once_t gsl_once = PTHREAD_ONCE_INIT;

static void gsl_setup(void)
{
	/* as aiw_sim_create: GSL's default handler aborts */
	gsl_error_handler_t *prev = gsl_set_error_handler_off();
	if (prev)
		gsl_set_error_handler(prev);
}

AIW_EXPORT aiw_status aiw_profile_create(aiw_profile **out)
{
	if (!out)
		return AIW_EINVAL;
	pthread_once(&gsl_once, gsl_setup);
	*out = calloc(1, sizeof **out);
	if (!*out)
		return AIW_ENOMEM;
	aiwi_prof_init(&(*out)->p);
	return AIW_OK;
}

AIW_EXPORT void aiw_profile_free(aiw_profile *pr)
{
	if (!pr)
		return;
	aiwi_prof_clear(&pr->p);
	free(pr);
}

AIW_EXPORT const char *aiw_profile_errmsg(const aiw_profile *pr)
{
	return pr ? pr->p.err : "";
}

static const struct {
	const char *name;
	size_t off;
	double lo, hi;
} SHAPE_KEYS[] = {
	{"model_params", offsetof(aiwi_iter_shape, params), 1, 1e15},
	{"layers", offsetof(aiwi_iter_shape, layers), 1, 1e5},
	{"hidden", offsetof(aiwi_iter_shape, hidden), 1, 1e7},
	{"kv_bytes_per_token", offsetof(aiwi_iter_shape, kv_bytes), 0, 1e12},
	{"weight_bits", offsetof(aiwi_iter_shape, weight_bits), 1, 64},
	{"act_bits", offsetof(aiwi_iter_shape, act_bits), 1, 64},
};

AIW_EXPORT aiw_status aiw_profile_set(aiw_profile *pr, const char *name, double value)
{
	if (!pr || !name)
		return pr ? perr(&pr->p, AIW_EINVAL, "aiw_profile_set: name is NULL") : AIW_EINVAL;
	aiwi_profile *p = &pr->p;
	for (size_t i = 0; i < sizeof SHAPE_KEYS / sizeof *SHAPE_KEYS; i++) {
		if (!aiwi_hw_ieq(name, SHAPE_KEYS[i].name))
			continue;
		if (!isfinite(value) || value < SHAPE_KEYS[i].lo || value > SHAPE_KEYS[i].hi)
			return perr(p, AIW_ERANGE, "%s = %g must be in [%g, %g]", name, value,
			            SHAPE_KEYS[i].lo, SHAPE_KEYS[i].hi);
		*(double *)(void *)((char *)&p->shape + SHAPE_KEYS[i].off) = value;
		return AIW_OK;
	}
	if (aiwi_hw_ieq(name, "tp_link_pcie")) {
		if (value != 0 && value != 1)
			return perr(p, AIW_ERANGE,
			            "tp_link_pcie = %g must be 0 (the scale-up link) or 1 (PCIe)", value);
		p->tp_link_pcie = value != 0;
		return AIW_OK;
	}
	if (aiwi_hw_ieq(name, "overhead")) {
		if (!isfinite(value) || value < 0 || value > 10)
			return perr(p, AIW_ERANGE, "overhead = %g s must be in [0, 10]", value);
		p->overhead_s = value;
		return AIW_OK;
	}
	/* hold.PHASE.TERM = 1 (held at the datasheet) or 0 (fitted) */
	if (strncmp(name, "hold.", 5) == 0) {
		char ph[16];
		const char *dot = strchr(name + 5, '.');
		size_t len = dot ? (size_t)(dot - name - 5) : 0;
		if (dot && len < sizeof ph) {
			memcpy(ph, name + 5, len);
			ph[len] = '\0';
			int phase = aiwi_iter_phase_index(ph), term = aiwi_iter_term_index(dot + 1);
			if (phase >= 0 && term >= 0) {
				if (value != 0 && value != 1)
					return perr(p, AIW_ERANGE, "%s = %g must be 0 (fit) or 1 (hold)", name,
					            value);
				p->hold[phase][term] = value != 0;
				return AIW_OK;
			}
		}
		return perr(p, AIW_EUNKNOWN,
		            "%s: expected hold.PHASE.TERM, PHASE prefill or decode, TERM overhead, "
		            "gemm, attn, mem, comm or seq",
		            name);
	}
	return perr(p, AIW_EUNKNOWN,
	            "unknown profile setting \"%s\" (model_params, layers, hidden, "
	            "kv_bytes_per_token, weight_bits, act_bits, overhead, tp_link_pcie, "
	            "hold.PHASE.TERM)",
	            name);
}

AIW_EXPORT aiw_status aiw_profile_read(aiw_profile *pr, const char *path)
{
	if (!pr || !path)
		return pr ? perr(&pr->p, AIW_EINVAL, "aiw_profile_read: path is NULL") : AIW_EINVAL;
	return aiwi_prof_read(&pr->p, path);
}

AIW_EXPORT aiw_status aiw_profile_group_count(const aiw_profile *pr, size_t *out)
{
	if (!pr || !out)
		return AIW_EINVAL;
	*out = pr->p.ngroups;
	return AIW_OK;
}

AIW_EXPORT aiw_status aiw_profile_group_name(const aiw_profile *pr, size_t i, const char **name,
                                             const char **gpu)
{
	if (!pr)
		return AIW_EINVAL;
	if (i >= pr->p.ngroups)
		return perr((aiwi_profile *)&pr->p, AIW_ERANGE,
		            "aiw_profile_group_name: group %zu: the profile has %zu", i, pr->p.ngroups);
	if (name)
		*name = pr->p.groups[i].name;
	if (gpu)
		*gpu = pr->p.groups[i].gpu;
	return AIW_OK;
}

AIW_EXPORT aiw_status aiw_profile_term_name(size_t i, const char **out)
{
	if (!out)
		return AIW_EINVAL;
	if (i >= AIWI_IT_NTERMS)
		return AIW_ERANGE;
	*out = aiwi_iter_term_names[i];
	return AIW_OK;
}

static aiw_status phase_group(aiw_profile *pr, const char *group, const char *phase, int *g,
                              int *ph)
{
	aiwi_profile *p = &pr->p;
	*ph = aiwi_iter_phase_index(phase);
	if (*ph < 0)
		return perr(p, AIW_EUNKNOWN, "phase \"%s\" must be prefill or decode",
		            phase ? phase : "(null)");
	*g = aiwi_prof_group_find(p, group);
	if (*g < 0) {
		char names[256] = "";
		size_t n = 0;
		for (size_t i = 0; i < p->ngroups && n < sizeof names; i++)
			n += (size_t)snprintf(names + n, sizeof names - n, "%s%s", i ? ", " : "",
			                      p->groups[i].name);
		return perr(p, AIW_EUNKNOWN, "GPU \"%s\" has no rows in the profile (it has: %s)",
		            group ? group : "(null)", names);
	}
	return AIW_OK;
}

AIW_EXPORT aiw_status aiw_profile_datasheet(aiw_profile *pr, const char *group, const char *phase,
                                            double *coef, size_t n)
{
	if (!pr || !group || !phase || !coef)
		return pr ? perr(&pr->p, AIW_EINVAL, "aiw_profile_datasheet: group, phase or coef is NULL")
		          : AIW_EINVAL;
	if (n < AIWI_IT_NTERMS)
		return perr(&pr->p, AIW_EBUFFER, "coefficients: %zu slots, %d needed", n,
		            AIWI_IT_NTERMS);
	int g, ph;
	aiw_status st = phase_group(pr, group, phase, &g, &ph);
	return st ? st : aiwi_prof_datasheet(&pr->p, g, ph, coef);
}

AIW_EXPORT aiw_status aiw_profile_fit(aiw_profile *pr, const char *group, const char *phase,
                                      double *coef, double *stderr_out, size_t n)
{
	if (!pr || !group || !phase || !coef)
		return pr ? perr(&pr->p, AIW_EINVAL, "aiw_profile_fit: group, phase or coef is NULL")
		          : AIW_EINVAL;
	if (n < AIWI_IT_NTERMS)
		return perr(&pr->p, AIW_EBUFFER, "coefficients: %zu slots, %d needed", n,
		            AIWI_IT_NTERMS);
	int g, ph;
	aiw_status st = phase_group(pr, group, phase, &g, &ph);
	if (st)
		return st;
	double se[AIWI_IT_NTERMS];
	st = aiwi_prof_fit(&pr->p, g, ph, NULL, coef, se, NULL);
	if (st == AIW_OK && stderr_out)
		memcpy(stderr_out, se, sizeof se);
	return st;
}

AIW_EXPORT aiw_status aiw_profile_row_count(const aiw_profile *pr, size_t *out)
{
	if (!pr || !out)
		return AIW_EINVAL;
	*out = pr->p.nrows;
	return AIW_OK;
}

AIW_EXPORT aiw_status aiw_profile_row(const aiw_profile *pr, size_t i, const char **group,
                                      const char **phase, double *tp, double *batch,
                                      double *prompt, double *context, double *measured)
{
	if (!pr)
		return AIW_EINVAL;
	if (i >= pr->p.nrows)
		return perr((aiwi_profile *)&pr->p, AIW_ERANGE,
		            "aiw_profile_row: row %zu: the profile has %zu rows", i, pr->p.nrows);
	const aiwi_prof_row *r = &pr->p.rows[i];
	if (group)
		*group = pr->p.groups[r->group].name;
	if (phase)
		*phase = aiwi_iter_phase_names[r->phase];
	if (tp)
		*tp = r->tp;
	if (batch)
		*batch = r->batch;
	if (prompt)
		*prompt = r->prompt;
	if (context)
		*context = r->context;
	if (measured)
		*measured = r->y;
	return AIW_OK;
}

AIW_EXPORT aiw_status aiw_profile_predict(aiw_profile *pr, size_t i, const double *coef, size_t n,
                                          double *out)
{
	if (!pr || !coef || !out)
		return pr ? perr(&pr->p, AIW_EINVAL, "aiw_profile_predict: coef or out is NULL")
		          : AIW_EINVAL;
	if (i >= pr->p.nrows)
		return perr(&pr->p, AIW_ERANGE, "aiw_profile_predict: row %zu: the profile has %zu rows",
		            i, pr->p.nrows);
	if (n < AIWI_IT_NTERMS)
		return perr(&pr->p, AIW_EBUFFER, "coefficients: %zu slots, %d needed", n,
		            AIWI_IT_NTERMS);
	for (size_t j = 0; j < AIWI_IT_NTERMS; j++)
		if (!isfinite(coef[j]) || fabs(coef[j]) > 1e6)
			return perr(&pr->p, AIW_ERANGE, "coefficient %s = %g must be in [-1e6, 1e6]",
			            aiwi_iter_term_names[j], coef[j]);
	double x[AIWI_IT_NTERMS];
	aiw_status st = aiwi_prof_terms(&pr->p, &pr->p.rows[i], x);
	if (st)
		return st;
	*out = aiwi_iter_time(coef, x);
	return AIW_OK;
}
