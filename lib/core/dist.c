/*
 * dist.c - distribution specs ("lognormal(median=1024,sigma=0.8)") turned
 * into GSL samplers, with exact moments and upper-tail quantiles.
 *
 * Forms (scale arguments accept the parameter's units, e.g. uniform(10s,30s)):
 *   const(x)                      always x
 *   exp(mean)                     exponential with the given mean
 *   normal(mean,sd)               Gaussian
 *   lognormal(mu,sigma)           log-space parameters (GSL's zeta, sigma)
 *   lognormal(median=m,sigma=s)   the same with mu = log(m)
 *   lognormal(mean=m,sigma=s)     the same with mu = log(m) - s^2/2
 *   uniform(a,b)                  flat on [a,b)
 *   gamma(k,theta)                shape k, scale theta (mean k*theta)
 *   pareto(xm,alpha)              scale xm, shape alpha
 *   empirical(file)               bootstrap from the numbers in file (first
 *                                 field of each line, a decimal number
 *                                 ended by a blank, ',', ';' or the line's
 *                                 end; '#' comments; a first line that is
 *                                 not a number is a header)
 *
 * The maximum of n iid draws is sampled in O(1) as Q(U^(1/n)): the upper
 * tail 1 - U^(1/n) is computed as -expm1(log(U)/n), without cancellation
 * even for n = 1e7, and fed to an upper-tail inverse CDF (gsl_cdf_*_Qinv).
 *
 * Token counts (aiwi_count_table): round(X), at least 1, have the discrete
 * law P(n) = F(n + 1/2) - F(n - 1/2) (n = 1: F(3/2)), each difference taken
 * on the side of the median where it does not cancel (gsl_cdf_*_P below,
 * gsl_cdf_*_Q above).  A table of it up to K - 1 feeds Walker's alias method
 * (gsl_ran_discrete: one uniform, one lookup), and the counts from K on,
 * lumped into index 0, are drawn by inversion of the upper tail, X =
 * Q^-1(U Q(K - 1/2)) (K: where the tail's mass falls to a given bound).  The draws follow the same law as rounding draws of
 * X, to the precision of the CDFs; a lognormal draw (a Gaussian and an
 * exponential) costs about twice as much.
 */
#include "core/internal.h"
#include "core/limits.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_sort.h>
#include <gsl/gsl_statistics_double.h>

#define MAX_ARGS 3
#define EMPIRICAL_MAX_SAMPLES 50000000u

static const struct {
	const char *name;
	aiwi_dist_kind kind;
	int nargs;
	const char *usage;
} FORMS[] = {
	{"const", AIW_D_CONST, 1, "const(x)"},
	{"exp", AIW_D_EXP, 1, "exp(mean)"},
	{"normal", AIW_D_NORMAL, 2, "normal(mean,sd)"},
	{"lognormal", AIW_D_LOGNORMAL, 2,
	 "lognormal(mu,sigma), lognormal(median=m,sigma=s) or lognormal(mean=m,sigma=s)"},
	{"uniform", AIW_D_UNIFORM, 2, "uniform(a,b)"},
	{"gamma", AIW_D_GAMMA, 2, "gamma(k,theta)"},
	{"pareto", AIW_D_PARETO, 2, "pareto(xm,alpha)"},
	{"empirical", AIW_D_EMPIRICAL, 1, "empirical(file)"},
	{"beta", AIW_D_BETA, 2, "beta(a,b)"},
};
#define NFORMS (sizeof FORMS / sizeof *FORMS)

void aiwi_dist_free(aiwi_dist *d)
{
	if (!d)
		return;
	free(d->data);
	free(d->spec);
	free(d->path);
	free(d);
}

aiwi_dist *aiwi_dist_clone(const aiwi_dist *d)
{
	aiwi_dist *c = malloc(sizeof *c);
	if (!c)
		return NULL;
	*c = *d;
	c->data = NULL;
	c->path = d->path ? strdup(d->path) : NULL;
	c->spec = strdup(d->spec ? d->spec : "");
	if (d->n) {
		c->data = malloc(d->n * sizeof *c->data);
		if (c->data)
			memcpy(c->data, d->data, d->n * sizeof *c->data);
	}
	if (!c->spec || (d->n && !c->data) || (d->path && !c->path)) {
		aiwi_dist_free(c);
		return NULL;
	}
	return c;
}

/* fgets that tells the length read (a NUL byte is data): up to size - 1
 * bytes, through the first newline; 0 at the end of the file. */
static size_t read_line(FILE *f, char *buf, size_t size)
{
	size_t n = 0;
	int ch;
	while (n + 1 < size && (ch = getc_unlocked(f)) != EOF) {
		buf[n++] = (char)ch;
		if (ch == '\n')
			break;
	}
	buf[n] = 0;
	return n;
}

static aiw_status load_empirical(aiwi_dist *d, const char *file, const char *base_dir, char *err,
                                 size_t len)
{
	char path[4096];
	if (file[0] != '/' && base_dir && *base_dir)
		snprintf(path, sizeof path, "%s/%s", base_dir, file);
	else
		snprintf(path, sizeof path, "%s", file);
	FILE *f = fopen(path, "rb");
	if (!f)
		return aiwi_buferr(err, len, AIW_EIO, "empirical(%s): cannot open '%s'", file, path);
	/* a file larger than the memory limit of a run is refused unread: a
	 * sample takes 8 bytes in memory, about as many as its line */
	struct stat sb;
	if (fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode) &&
	    (double)sb.st_size > AIW_LIMIT_MEMORY_BYTES) {
		fclose(f);
		return aiwi_buferr(err, len, AIW_ELIMIT,
		                   "%s: %.0f bytes, above the memory limit of a run (%.3g bytes; "
		                   "use a file of fewer samples)",
		                   path, (double)sb.st_size, AIW_LIMIT_MEMORY_BYTES);
	}
	size_t cap = 1024, n = 0, line = 0;
	double *x = malloc(cap * sizeof *x);
	char buf[1024];
	aiw_status st = x ? AIW_OK : AIW_ENOMEM;
	size_t bl;
	while (st == AIW_OK && (bl = read_line(f, buf, sizeof buf)) > 0) {
		line++;
		if (bl == sizeof buf - 1 && buf[bl - 1] != '\n') {
			st = aiwi_buferr(err, len, AIW_EPARSE, "%s:%zu: line too long", path, line);
			break;
		}
		if (memchr(buf, 0, bl)) { /* "200\0999" would read as 200 */
			st = aiwi_buferr(err, len, AIW_EPARSE,
			                 "%s:%zu: NUL byte in the line: not a text file", path, line);
			break;
		}
		char *p = buf;
		while (isspace((unsigned char)*p))
			p++;
		if (!*p || *p == '#')
			continue;
		char *end;
		double v = strtod(p, &end);
		/* the first field is the number: it ends at the line's end, a blank,
		 * a comma, a semicolon or a comment ("5abc" is not 5); strtod's hex
		 * ("0x1p3") is not a decimal number */
		const char *q = (*p == '-' || *p == '+') ? p + 1 : p;
		bool hex = q[0] == '0' && (q[1] == 'x' || q[1] == 'X');
		if (end != p && (hex || !(*end == 0 || isspace((unsigned char)*end) || *end == ',' ||
		                          *end == ';' || *end == '#'))) {
			size_t w = strcspn(p, " \t\r\n,;#");
			st = aiwi_buferr(err, len, AIW_EPARSE, "%s:%zu: not a number: '%.*s'", path, line,
			                 (int)(w > 40 ? 40 : w), p);
			break;
		}
		if (end == p || !isfinite(v)) {
			if (n == 0 && line == 1) /* a header line */
				continue;
			st = aiwi_buferr(err, len, AIW_EPARSE, "%s:%zu: not a number: '%.40s'", path,
			                 line, p);
			break;
		}
		if (n == EMPIRICAL_MAX_SAMPLES) {
			st = aiwi_buferr(err, len, AIW_ELIMIT, "%s:%zu: more than %u samples", path,
			                 line, EMPIRICAL_MAX_SAMPLES);
			break;
		}
		if (n == cap) { /* doubled, up to the limit exactly */
			size_t nc = 2 * cap < EMPIRICAL_MAX_SAMPLES ? 2 * cap : EMPIRICAL_MAX_SAMPLES;
			double *y = realloc(x, nc * sizeof *x);
			if (!y) {
				st = AIW_ENOMEM;
				break;
			}
			x = y;
			cap = nc;
		}
		x[n++] = v;
	}
	fclose(f);
	if (st == AIW_OK && n == 0)
		st = aiwi_buferr(err, len, AIW_EPARSE, "%s: no samples", path);
	if (st != AIW_OK) {
		free(x);
		return st;
	}
	if (!(d->path = strdup(path))) {
		free(x);
		return AIW_ENOMEM;
	}
	gsl_sort(x, 1, n);
	d->data = x;
	d->n = n;
	return AIW_OK;
}

aiw_status aiwi_dist_parse(const char *text, int unit_type, const char *base_dir, aiwi_dist **out,
                          char *err, size_t len)
{
	if (!text || !out)
		return aiwi_buferr(err, len, AIW_EINVAL, "no distribution given");
	const char *p = text;
	while (isspace((unsigned char)*p))
		p++;
	const char *open = strchr(p, '(');
	size_t tl = strlen(p);
	while (tl && isspace((unsigned char)p[tl - 1]))
		tl--;
	if (!open || tl == 0 || p[tl - 1] != ')') {
		/* a bare number is a constant */
		double x;
		char e2[8];
		if (aiwi_parse_units((aiwi_ptype)unit_type, p, &x, e2, sizeof e2) == AIW_OK) {
			aiwi_dist *d = calloc(1, sizeof *d);
			if (!d || !(d->spec = strdup(p))) {
				free(d);
				return AIW_ENOMEM;
			}
			d->kind = AIW_D_CONST;
			d->a = x;
			*out = d;
			return AIW_OK;
		}
		return aiwi_buferr(err, len, AIW_EPARSE,
		                   "'%s' is not a distribution (expected a number or one of const(x), "
		                   "exp(mean), normal(mean,sd), lognormal(mu,sigma), "
		                   "lognormal(median=m,sigma=s), uniform(a,b), gamma(k,theta), "
		                   "pareto(xm,alpha), empirical(file))",
		                   text);
	}
	size_t nl = (size_t)(open - p);
	while (nl && isspace((unsigned char)p[nl - 1]))
		nl--;
	size_t f;
	for (f = 0; f < NFORMS; f++)
		if (strlen(FORMS[f].name) == nl && strncasecmp(FORMS[f].name, p, nl) == 0)
			break;
	if (f == NFORMS)
		return aiwi_buferr(err, len, AIW_EPARSE,
		                   "unknown distribution '%.*s' (known: const, exp, normal, lognormal, "
		                   "uniform, gamma, pareto, empirical, beta)",
		                   (int)nl, p);
	/* split the arguments */
	char inner[1024];
	size_t il = (size_t)(p + tl - 1 - (open + 1));
	if (il >= sizeof inner)
		return aiwi_buferr(err, len, AIW_EPARSE, "distribution arguments too long");
	memcpy(inner, open + 1, il);
	inner[il] = 0;
	aiwi_dist *d = calloc(1, sizeof *d);
	if (!d)
		return AIW_ENOMEM;
	d->kind = FORMS[f].kind;
	aiw_status st = AIW_OK;
	if (d->kind == AIW_D_EMPIRICAL) {
		char *s = inner;
		while (isspace((unsigned char)*s))
			s++;
		size_t sl = strlen(s);
		while (sl && isspace((unsigned char)s[sl - 1]))
			s[--sl] = 0;
		if (!*s)
			st = aiwi_buferr(err, len, AIW_EPARSE, "usage: %s", FORMS[f].usage);
		else
			st = load_empirical(d, s, base_dir, err, len);
		goto finish;
	}
	char *args[MAX_ARGS + 1];
	char *keys[MAX_ARGS + 1];
	int na = 0;
	for (char *save = NULL, *tok = strtok_r(inner, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (na == MAX_ARGS + 1) {
			na++;
			break;
		}
		char *eq = strchr(tok, '=');
		keys[na] = NULL;
		if (eq) {
			*eq = 0;
			keys[na] = tok;
			while (isspace((unsigned char)*keys[na]))
				keys[na]++;
			char *ke = eq;
			while (ke > keys[na] && isspace((unsigned char)ke[-1]))
				*--ke = 0;
			tok = eq + 1;
		}
		args[na++] = tok;
	}
	if (na != FORMS[f].nargs) {
		st = aiwi_buferr(err, len, AIW_EPARSE, "'%s': %s takes %d argument%s (usage: %s)",
		                 text, FORMS[f].name, FORMS[f].nargs, FORMS[f].nargs > 1 ? "s" : "",
		                 FORMS[f].usage);
		goto finish;
	}
	double v[MAX_ARGS];
	int lognormal_form = 0; /* 0 mu, 1 median, 2 mean */
	for (int i = 0; i < na; i++) {
		/* scale-like arguments carry the parameter's units; shapes are plain */
		bool shape = (d->kind == AIW_D_LOGNORMAL) || (d->kind == AIW_D_GAMMA && i == 0) ||
		             (d->kind == AIW_D_PARETO && i == 1) || d->kind == AIW_D_BETA;
		if (d->kind == AIW_D_LOGNORMAL && i == 0 && keys[0]) {
			if (!strcmp(keys[0], "median"))
				lognormal_form = 1, shape = false;
			else if (!strcmp(keys[0], "mean"))
				lognormal_form = 2, shape = false;
			else if (strcmp(keys[0], "mu")) {
				st = aiwi_buferr(err, len, AIW_EPARSE,
				                 "'%s': lognormal's first argument is mu=, median= or "
				                 "mean=, not '%s='",
				                 text, keys[0]);
				goto finish;
			}
		}
		char e2[256];
		st = aiwi_parse_units(shape ? AIW_PT_REAL : (aiwi_ptype)unit_type, args[i], &v[i], e2,
		                     sizeof e2);
		if (st != AIW_OK) {
			aiwi_buferr(err, len, st, "'%s': argument %d: %s", text, i + 1, e2);
			goto finish;
		}
	}
	switch (d->kind) {
	case AIW_D_CONST:
		d->a = v[0];
		break;
	case AIW_D_EXP:
		if (!(v[0] > 0))
			st = aiwi_buferr(err, len, AIW_ERANGE, "'%s': exp mean must be > 0", text);
		d->a = v[0];
		break;
	case AIW_D_NORMAL:
		if (!(v[1] >= 0))
			st = aiwi_buferr(err, len, AIW_ERANGE, "'%s': normal sd must be >= 0", text);
		d->a = v[0], d->b = v[1];
		break;
	case AIW_D_LOGNORMAL:
		if (!(v[1] >= 0) || v[1] > 20)
			st = aiwi_buferr(err, len, AIW_ERANGE, "'%s': lognormal sigma must be in [0, 20]",
			                 text);
		if (lognormal_form && !(v[0] > 0))
			st = aiwi_buferr(err, len, AIW_ERANGE, "'%s': lognormal %s must be > 0", text,
			                 lognormal_form == 1 ? "median" : "mean");
		d->b = v[1];
		d->a = lognormal_form == 0 ? v[0]
		       : lognormal_form == 1 ? log(v[0])
		                             : log(v[0]) - 0.5 * v[1] * v[1];
		if (st == AIW_OK && fabs(d->a) > 700)
			st = aiwi_buferr(err, len, AIW_ERANGE,
			                 "'%s': mu = %g makes exp(mu) overflow; for a median of %g "
			                 "write lognormal(median=%g,sigma=%g)",
			                 text, d->a, v[0], v[0], v[1]);
		break;
	case AIW_D_UNIFORM:
		if (!(v[0] <= v[1]))
			st = aiwi_buferr(err, len, AIW_ERANGE, "'%s': uniform needs a <= b", text);
		d->a = v[0], d->b = v[1];
		break;
	case AIW_D_GAMMA:
		if (!(v[0] > 0) || !(v[1] > 0))
			st = aiwi_buferr(err, len, AIW_ERANGE, "'%s': gamma needs k > 0 and theta > 0",
			                 text);
		d->a = v[0], d->b = v[1];
		break;
	case AIW_D_PARETO:
		if (!(v[0] > 0) || !(v[1] > 0))
			st = aiwi_buferr(err, len, AIW_ERANGE, "'%s': pareto needs xm > 0 and alpha > 0",
			                 text);
		d->a = v[0], d->b = v[1];
		break;
	case AIW_D_BETA:
		if (!(v[0] > 0) || !(v[1] > 0) || v[0] > 1e6 || v[1] > 1e6)
			st = aiwi_buferr(err, len, AIW_ERANGE, "'%s': beta needs a and b in (0, 1e6]",
			                 text);
		d->a = v[0], d->b = v[1];
		break;
	default:
		break;
	}
finish:
	if (st == AIW_OK && !(d->spec = malloc(tl + 1)))
		st = AIW_ENOMEM;
	if (st != AIW_OK) {
		aiwi_dist_free(d);
		return st;
	}
	memcpy(d->spec, p, tl);
	d->spec[tl] = 0;
	*out = d;
	return AIW_OK;
}

double aiwi_dist_sample(const aiwi_dist *d, gsl_rng *r)
{
	switch (d->kind) {
	case AIW_D_CONST: return d->a;
	case AIW_D_EXP: return gsl_ran_exponential(r, d->a);
	case AIW_D_NORMAL: return d->a + gsl_ran_gaussian_ziggurat(r, d->b);
	case AIW_D_LOGNORMAL: return gsl_ran_lognormal(r, d->a, d->b);
	case AIW_D_UNIFORM: return gsl_ran_flat(r, d->a, d->b);
	case AIW_D_GAMMA: return gsl_ran_gamma(r, d->a, d->b);
	case AIW_D_PARETO: return gsl_ran_pareto(r, d->b, d->a);
	case AIW_D_EMPIRICAL: return d->data[gsl_rng_uniform_int(r, d->n)];
	case AIW_D_BETA: return gsl_ran_beta(r, d->a, d->b);
	}
	return NAN;
}

double aiwi_dist_mean(const aiwi_dist *d)
{
	switch (d->kind) {
	case AIW_D_CONST: return d->a;
	case AIW_D_EXP: return d->a;
	case AIW_D_NORMAL: return d->a;
	case AIW_D_LOGNORMAL: return exp(d->a + 0.5 * d->b * d->b);
	case AIW_D_UNIFORM: return 0.5 * (d->a + d->b);
	case AIW_D_GAMMA: return d->a * d->b;
	case AIW_D_PARETO: return d->b > 1 ? d->b * d->a / (d->b - 1) : INFINITY;
	case AIW_D_EMPIRICAL: return gsl_stats_mean(d->data, 1, d->n);
	case AIW_D_BETA: return d->a / (d->a + d->b);
	}
	return NAN;
}

double aiwi_dist_variance(const aiwi_dist *d)
{
	switch (d->kind) {
	case AIW_D_CONST: return 0;
	case AIW_D_EXP: return d->a * d->a;
	case AIW_D_NORMAL: return d->b * d->b;
	case AIW_D_LOGNORMAL: {
		double s2 = d->b * d->b;
		return expm1(s2) * exp(2 * d->a + s2);
	}
	case AIW_D_UNIFORM: return (d->b - d->a) * (d->b - d->a) / 12.0;
	case AIW_D_GAMMA: return d->a * d->b * d->b;
	case AIW_D_PARETO:
		return d->b > 2 ? d->a * d->a * d->b / ((d->b - 1) * (d->b - 1) * (d->b - 2))
		                : INFINITY;
	case AIW_D_EMPIRICAL:
		/* population variance of the bootstrap distribution */
		return d->n > 1 ? gsl_stats_variance(d->data, 1, d->n) * (double)(d->n - 1) / (double)d->n
		                : 0;
	case AIW_D_BETA: {
		double n = d->a + d->b;
		return d->a * d->b / (n * n * (n + 1));
	}
	}
	return NAN;
}

double aiwi_dist_min(const aiwi_dist *d)
{
	switch (d->kind) {
	case AIW_D_CONST: return d->a;
	case AIW_D_NORMAL: return d->b > 0 ? -INFINITY : d->a;
	case AIW_D_UNIFORM: return d->a;
	case AIW_D_PARETO: return d->a;
	case AIW_D_EMPIRICAL: return d->data[0];
	default: return 0;
	}
}

double aiwi_dist_quantile_upper(const aiwi_dist *d, double q)
{
	if (!(q > 0))
		q = 0x1p-1074;
	if (q >= 1)
		q = 1 - 0x1p-53;
	switch (d->kind) {
	case AIW_D_CONST: return d->a;
	case AIW_D_EXP: return gsl_cdf_exponential_Qinv(q, d->a);
	case AIW_D_NORMAL: return d->a + d->b * gsl_cdf_ugaussian_Qinv(q);
	case AIW_D_LOGNORMAL: return gsl_cdf_lognormal_Qinv(q, d->a, d->b);
	case AIW_D_UNIFORM: return d->b - q * (d->b - d->a);
	case AIW_D_GAMMA: return gsl_cdf_gamma_Qinv(q, d->a, d->b);
	case AIW_D_PARETO: return d->a * pow(q, -1.0 / d->b);
	case AIW_D_BETA: return gsl_cdf_beta_Qinv(q, d->a, d->b);
	case AIW_D_EMPIRICAL: {
		/* the largest k with P(X >= data[k]) >= q, i.e. index ceil(n(1-q)) - 1 */
		double k = ceil((double)d->n * (1.0 - q)) - 1.0;
		if (k < 0)
			k = 0;
		if (k > (double)(d->n - 1))
			k = (double)(d->n - 1);
		return d->data[(size_t)k];
	}
	}
	return NAN;
}

double aiwi_dist_sample_max(const aiwi_dist *d, gsl_rng *r, double n)
{
	if (n <= 1)
		return n == 1 ? aiwi_dist_sample(d, r) : -INFINITY;
	if (d->kind == AIW_D_CONST)
		return d->a;
	/* P(max > x) = 1 - F(x)^n; with U uniform, F(x) = U^(1/n), tail q below */
	double u = gsl_rng_uniform_pos(r);
	double q = -expm1(log(u) / n);
	return aiwi_dist_quantile_upper(d, q);
}

/* ======================================================================== */
/* distribution functions and count tables                                   */
/* ======================================================================== */
double aiwi_dist_lower(const aiwi_dist *d, double x)
{
	if (isnan(x))
		return NAN;
	switch (d->kind) {
	case AIW_D_CONST: return x > d->a ? 1 : 0;
	case AIW_D_EXP: return x > 0 ? gsl_cdf_exponential_P(x, d->a) : 0;
	case AIW_D_NORMAL:
		return d->b > 0 ? gsl_cdf_gaussian_P(x - d->a, d->b) : (x > d->a ? 1 : 0);
	case AIW_D_LOGNORMAL:
		if (!(x > 0))
			return 0;
		return d->b > 0 ? gsl_cdf_lognormal_P(x, d->a, d->b) : (log(x) > d->a ? 1 : 0);
	case AIW_D_UNIFORM:
		return d->b > d->a ? gsl_cdf_flat_P(x, d->a, d->b) : (x > d->a ? 1 : 0);
	case AIW_D_GAMMA: return x > 0 ? gsl_cdf_gamma_P(x, d->a, d->b) : 0;
	case AIW_D_PARETO: return x > d->a ? gsl_cdf_pareto_P(x, d->b, d->a) : 0;
	case AIW_D_BETA: return x > 0 ? (x < 1 ? gsl_cdf_beta_P(x, d->a, d->b) : 1) : 0;
	case AIW_D_EMPIRICAL: {
		size_t lo = 0, hi = d->n; /* the samples < x */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (d->data[mid] < x)
				lo = mid + 1;
			else
				hi = mid;
		}
		return (double)lo / (double)d->n;
	}
	}
	return NAN;
}

double aiwi_dist_upper(const aiwi_dist *d, double x)
{
	if (isnan(x))
		return NAN;
	switch (d->kind) {
	case AIW_D_CONST: return x < d->a ? 1 : 0;
	case AIW_D_EXP: return x > 0 ? gsl_cdf_exponential_Q(x, d->a) : 1;
	case AIW_D_NORMAL:
		return d->b > 0 ? gsl_cdf_gaussian_Q(x - d->a, d->b) : (x < d->a ? 1 : 0);
	case AIW_D_LOGNORMAL:
		if (!(x > 0))
			return 1;
		return d->b > 0 ? gsl_cdf_lognormal_Q(x, d->a, d->b) : (log(x) < d->a ? 1 : 0);
	case AIW_D_UNIFORM:
		return d->b > d->a ? gsl_cdf_flat_Q(x, d->a, d->b) : (x < d->a ? 1 : 0);
	case AIW_D_GAMMA: return x > 0 ? gsl_cdf_gamma_Q(x, d->a, d->b) : 1;
	case AIW_D_PARETO: return x > d->a ? gsl_cdf_pareto_Q(x, d->b, d->a) : 1;
	case AIW_D_BETA: return x > 0 ? (x < 1 ? gsl_cdf_beta_Q(x, d->a, d->b) : 0) : 1;
	case AIW_D_EMPIRICAL: {
		size_t lo = 0, hi = d->n; /* the samples <= x */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (d->data[mid] <= x)
				lo = mid + 1;
			else
				hi = mid;
		}
		return (double)(d->n - lo) / (double)d->n;
	}
	}
	return NAN;
}

uint32_t aiwi_round_count(double x)
{
	if (!(x >= 1))
		return 1;
	if (x > 1e9)
		return 1000000000u;
	/* llround(x) for 1 <= x <= 1e9: x + 0.5 is exact there, or rounds to
	 * the next power of two that llround also gives */
	return (uint32_t)(x + 0.5);
}

aiw_status aiwi_count_table_new(const aiwi_dist *d, size_t kmax, double tail,
                               aiwi_count_table **out)
{
	*out = NULL;
	if (!(tail > 0 && tail < 1))
		return AIW_EINVAL;
	/* laws with closed-form distribution functions (not gamma: its
	 * incomplete gamma function can run out of iterations) */
	if (d->kind == AIW_D_CONST || d->kind == AIW_D_EMPIRICAL || d->kind == AIW_D_GAMMA)
		return AIW_OK;
	double x = aiwi_dist_quantile_upper(d, tail);
	if (!(x < (double)kmax)) /* (NaN too) */
		return AIW_OK;
	size_t k = x > 1 ? (size_t)ceil(x + 0.5) + 1 : 2;
	if (k > kmax || k > AIW_COUNT_KMAX)
		return AIW_OK;
	aiwi_count_table *t = calloc(1, sizeof *t);
	if (!t || !(t->p = malloc(k * sizeof *t->p)) || !(t->d = aiwi_dist_clone(d))) {
		aiwi_count_table_free(t);
		return AIW_ENOMEM;
	}
	t->k = k;
	t->qtail = aiwi_dist_upper(d, (double)k - 0.5);
	t->p[0] = t->qtail;
	/* each boundary's P and Q once, the difference on the side of the
	 * median where it does not cancel */
	double lo_a = aiwi_dist_lower(d, 1.5), up_a = aiwi_dist_upper(d, 1.5);
	t->p[1] = lo_a;
	for (size_t n = 2; n < k; n++) {
		double b = (double)n + 0.5, lo_b = aiwi_dist_lower(d, b), up_b = aiwi_dist_upper(d, b);
		double m = up_a > 0.5 ? lo_b - lo_a : up_a - up_b;
		t->p[n] = m > 0 ? m : 0;
		lo_a = lo_b;
		up_a = up_b;
	}
	double sum = 0;
	for (size_t n = 0; n < k; n++)
		sum += t->p[n];
	gsl_ran_discrete_t *g;
	if (!(sum > 0.5 && sum < 1.5) || !(g = gsl_ran_discrete_preproc(k, t->p))) {
		/* a law the CDFs do not resolve here (e.g. under- or overflow):
		 * no table; memory, if that was it, shows again at the draws */
		aiwi_count_table_free(t);
		return AIW_OK;
	}
	t->e = malloc(k * sizeof *t->e);
	if (!t->e) {
		gsl_ran_discrete_free(g);
		aiwi_count_table_free(t);
		return AIW_ENOMEM;
	}
	for (size_t c = 0; c < k; c++) {
		double f = g->F[c] < 1 ? g->F[c] : 1; /* (GSL's is at most 1) */
		uint64_t th = f > 0 ? (uint64_t)ceil(f * 4294967296.0) : 0;
		t->e[c] = th << AIW_COUNT_ABITS | (uint64_t)g->A[c];
	}
	gsl_ran_discrete_free(g);
	*out = t;
	return AIW_OK;
}

/* gsl_ran_discrete(r, g) for GSL's table g of the law, the same value for
 * the same generator state (aiwi_count_pick on the generator's word; GSL's
 * tables follow Knuth's convention, F[c] = (c + f_c) / K, compared with u
 * itself, and its early return on F[c] = 1 gives what the comparison
 * gives), then the tail's inversion.  Other generators than the library's
 * MT19937 draw u as GSL does and use its first 32 bits. */
uint32_t aiwi_count_draw(const aiwi_count_table *t, gsl_rng *r)
{
	uint32_t n = aiwi_count_pick(t, aiwi_rng_u32(r));
	return AIW_LIKELY(n) ? n : aiwi_count_tail(t, r);
}

/* The tail, X >= k - 1/2: Q(X) is uniform on (0, qtail]. */
uint32_t aiwi_count_tail(const aiwi_count_table *t, gsl_rng *r)
{
	uint32_t x = aiwi_round_count(aiwi_dist_quantile_upper(t->d, t->qtail * aiwi_rng_uniform_pos(r)));
	return x >= t->k ? x : (uint32_t)t->k; /* (the boundary's rounding) */
}

size_t aiwi_count_table_k(const aiwi_count_table *t)
{
	return t->k;
}

double aiwi_count_table_prob(const aiwi_count_table *t, uint32_t n)
{
	return n >= t->k ? t->qtail : t->p[n];
}

void aiwi_count_table_free(aiwi_count_table *t)
{
	if (!t)
		return;
	free(t->e);
	aiwi_dist_free(t->d);
	free(t->p);
	free(t);
}
