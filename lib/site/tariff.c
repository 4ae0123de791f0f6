/*
 * tariff.c - step series in time (tariff.h): hourly electricity prices and
 * grid carbon intensities, their exact integrals over any interval.
 *
 * Integral over [a, b]: with the cumulative integral cum[i] at each step
 * time, F(x) = cum[i] + v[i] (x - t[i]) for t[i] <= x < t[i+1] (found by
 * binary search), and for a periodic series F(x) = k P + F(x - k P) with
 * P the integral over one period.  The integral is F(b) - F(a): O(log n)
 * per sample interval, whatever its length.
 */
#include "site/tariff.h"
#include "core/limits.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define DAY 86400.0
/* a series of more steps than this is refused: a year of 1-minute prices
 * is 525,600 */
#define TSERIES_MAX_STEPS 10000000u

void aiwi_tseries_free(aiwi_tseries *s)
{
	if (!s)
		return;
	free(s->t);
	free(s->v);
	free(s->cum);
	memset(s, 0, sizeof *s);
}

double aiwi_tseries_bytes(size_t n)
{
	return 24.0 * (double)n;
}

static bool grow(aiwi_tseries *s, size_t *cap)
{
	size_t n = *cap ? 2 * *cap : 64;
	if (n > TSERIES_MAX_STEPS)
		n = TSERIES_MAX_STEPS;
	double *t = realloc(s->t, n * sizeof *t);
	if (!t)
		return false;
	s->t = t;
	double *v = realloc(s->v, n * sizeof *v);
	if (!v)
		return false;
	s->v = v;
	*cap = n;
	return true;
}

/* cum[] from t[] and v[] */
static aiw_status finish(aiwi_tseries *s)
{
	if (!(s->cum = malloc(s->n * sizeof *s->cum)))
		return AIW_ENOMEM;
	s->cum[0] = 0;
	for (size_t i = 1; i < s->n; i++)
		s->cum[i] = s->cum[i - 1] + s->v[i - 1] * (s->t[i] - s->t[i - 1]);
	return AIW_OK;
}

aiw_status aiwi_tseries_daily(aiwi_tseries *s, const char *text, aiwi_ptype unit, double lo,
                              double hi, const char *what, char *err, size_t len)
{
	memset(s, 0, sizeof *s);
	size_t cap = 0;
	const char *p = text ? text : "";
	char tok[128], msg[256];
	while (*p) {
		while (*p && (isspace((unsigned char)*p) || *p == ','))
			p++;
		if (!*p)
			break;
		size_t w = strcspn(p, " \t\r\n,");
		if (w >= sizeof tok) {
			size_t k = s->n + 1;
			aiwi_tseries_free(s);
			return aiwi_buferr(err, len, AIW_EPARSE, "%s: value %zu is too long: '%.40s'", what,
			                   k, p);
		}
		memcpy(tok, p, w);
		tok[w] = 0;
		p += w;
		double x;
		size_t k = s->n + 1; /* this value's number (the error path clears s) */
		if (aiwi_parse_units(unit, tok, &x, msg, sizeof msg) != AIW_OK) {
			aiwi_tseries_free(s);
			return aiwi_buferr(err, len, AIW_EPARSE, "%s: value %zu: %s", what, k, msg);
		}
		if (!(x >= lo && x <= hi)) {
			aiwi_tseries_free(s);
			return aiwi_buferr(err, len, AIW_ERANGE,
			                   "%s: value %zu = %g is out of range [%g, %g]", what, k, x, lo,
			                   hi);
		}
		if (s->n == cap && (cap >= TSERIES_MAX_STEPS || !grow(s, &cap))) {
			aiwi_tseries_free(s);
			return cap >= TSERIES_MAX_STEPS
			               ? aiwi_buferr(err, len, AIW_ELIMIT, "%s: more than %u values", what,
			                             TSERIES_MAX_STEPS)
			               : AIW_ENOMEM;
		}
		s->v[s->n++] = x;
	}
	if (s->n == 0)
		return aiwi_buferr(err, len, AIW_EPARSE,
		                   "%s: no values (give N values for N equal parts of the day from "
		                   "midnight, e.g. 24 hourly ones)",
		                   what);
	for (size_t i = 0; i < s->n; i++)
		s->t[i] = DAY * (double)i / (double)s->n;
	s->period = DAY;
	aiw_status st = finish(s);
	if (st != AIW_OK)
		aiwi_tseries_free(s);
	return st;
}

/* one line, through its newline; 0 at the end (a NUL byte is data) */
static size_t read_line(FILE *f, char *buf, size_t size)
{
	size_t n = 0;
	int ch;
	while (n + 1 < size && (ch = getc(f)) != EOF) {
		buf[n++] = (char)ch;
		if (ch == '\n')
			break;
	}
	buf[n] = 0;
	return n;
}

/* the next comma- or blank-separated field of *pp into out */
static bool field(const char **pp, char *out, size_t size)
{
	const char *p = *pp;
	while (*p == ' ' || *p == '\t')
		p++;
	size_t w = strcspn(p, ",;\t\r\n# ");
	if (w == 0 || w >= size)
		return false;
	memcpy(out, p, w);
	out[w] = 0;
	p += w;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == ',' || *p == ';')
		p++;
	*pp = p;
	return true;
}

aiw_status aiwi_tseries_file(aiwi_tseries *s, const char *path, aiwi_ptype unit, double lo,
                             double hi, const char *what, char *err, size_t len)
{
	memset(s, 0, sizeof *s);
	FILE *f = fopen(path, "rb");
	if (!f)
		return aiwi_buferr(err, len, AIW_EIO, "%s: cannot open '%s'", what, path);
	struct stat sb;
	if (fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode) &&
	    (double)sb.st_size > AIW_LIMIT_MEMORY_BYTES) {
		fclose(f);
		return aiwi_buferr(err, len, AIW_ELIMIT, "%s: '%s' is %.0f bytes, above the memory "
		                   "limit of a run (%.3g bytes)", what, path, (double)sb.st_size,
		                   AIW_LIMIT_MEMORY_BYTES);
	}
	size_t cap = 0, line = 0, bl;
	char buf[1024], a[128], b[128], msg[256];
	aiw_status st = AIW_OK;
	while (st == AIW_OK && (bl = read_line(f, buf, sizeof buf)) > 0) {
		line++;
		if (bl == sizeof buf - 1 && buf[bl - 1] != '\n') {
			st = aiwi_buferr(err, len, AIW_EPARSE, "%s:%zu: line too long", path, line);
			break;
		}
		if (memchr(buf, 0, bl)) {
			st = aiwi_buferr(err, len, AIW_EPARSE, "%s:%zu: NUL byte in the line: not a text file",
			                 path, line);
			break;
		}
		const char *p = buf;
		while (isspace((unsigned char)*p))
			p++;
		if (!*p || *p == '#')
			continue;
		double t, x;
		bool ok = field(&p, a, sizeof a) && field(&p, b, sizeof b);
		if (ok) {
			while (isspace((unsigned char)*p))
				p++;
			ok = !*p || *p == '#';
		}
		aiw_status ta = ok ? aiwi_parse_units(AIW_PT_DURATION, a, &t, msg, sizeof msg) : AIW_EPARSE;
		aiw_status tb = ok && ta == AIW_OK ? aiwi_parse_units(unit, b, &x, msg, sizeof msg)
		                                   : AIW_EPARSE;
		if (ta != AIW_OK || tb != AIW_OK) {
			if (s->n == 0 && line == 1) /* a header */
				continue;
			st = aiwi_buferr(err, len, AIW_EPARSE,
			                 "%s:%zu: expected TIME,VALUE (a duration since the start and a "
			                 "value)%s%s",
			                 path, line, ok ? ": " : "", ok ? msg : "");
			break;
		}
		if (!(t >= 0 && isfinite(t)) || (s->n > 0 && !(t > s->t[s->n - 1]))) {
			st = aiwi_buferr(err, len, AIW_EPARSE,
			                 "%s:%zu: time %g s: times must be >= 0 and strictly increasing%s",
			                 path, line, t, s->n > 0 ? " (after the previous row's)" : "");
			break;
		}
		if (!(x >= lo && x <= hi)) {
			st = aiwi_buferr(err, len, AIW_ERANGE, "%s:%zu: value %g is out of range [%g, %g]",
			                 path, line, x, lo, hi);
			break;
		}
		if (s->n == cap && (cap >= TSERIES_MAX_STEPS || !grow(s, &cap))) {
			st = cap >= TSERIES_MAX_STEPS
			             ? aiwi_buferr(err, len, AIW_ELIMIT, "%s:%zu: more than %u rows", path,
			                           line, TSERIES_MAX_STEPS)
			             : AIW_ENOMEM;
			break;
		}
		s->t[s->n] = t;
		s->v[s->n++] = x;
	}
	fclose(f);
	if (st == AIW_OK && s->n == 0)
		st = aiwi_buferr(err, len, AIW_EPARSE, "%s: '%s' has no TIME,VALUE rows", what, path);
	if (st == AIW_OK)
		st = finish(s);
	if (st != AIW_OK)
		aiwi_tseries_free(s);
	return st;
}

/* index of the step holding x (t[0] <= x), by binary search */
static size_t step_of(const aiwi_tseries *s, double x)
{
	size_t lo = 0, hi = s->n; /* t[lo] <= x < t[hi] (t[n] = +inf) */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;
		if (s->t[mid] <= x)
			lo = mid;
		else
			hi = mid;
	}
	return lo;
}

double aiwi_tseries_at(const aiwi_tseries *s, double t)
{
	if (s->period > 0)
		t = fmod(t, s->period);
	if (t < s->t[0])
		return s->v[0];
	return s->v[step_of(s, t)];
}

/* F(x): the integral from 0 to x (x >= 0) */
static double integral_to(const aiwi_tseries *s, double x)
{
	double whole = 0;
	if (s->period > 0) {
		double k = floor(x / s->period);
		double per = s->cum[s->n - 1] + s->v[s->n - 1] * (s->period - s->t[s->n - 1]);
		whole = k * per;
		x -= k * s->period;
	}
	if (x <= s->t[0]) /* before the first row: its value */
		return whole - s->v[0] * (s->t[0] - x);
	size_t i = step_of(s, x);
	return whole + s->cum[i] + s->v[i] * (x - s->t[i]);
}

double aiwi_tseries_integral(const aiwi_tseries *s, double a, double b)
{
	if (!(b > a))
		return 0;
	return integral_to(s, b) - integral_to(s, a);
}

double aiwi_tseries_mean(const aiwi_tseries *s, double a, double b)
{
	if (!(b > a))
		return aiwi_tseries_at(s, a);
	return aiwi_tseries_integral(s, a, b) / (b - a);
}

double aiwi_tseries_off_tick(const aiwi_tseries *s, double dt)
{
	if (!(dt > 0))
		return -1;
	for (size_t i = 0; i < s->n; i++) {
		double k = s->t[i] / dt;
		if (s->t[i] > 0 && fabs(k - nearbyint(k)) > 1e-9 * fmax(1, k))
			return s->t[i];
	}
	return -1;
}
