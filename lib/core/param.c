/*
 * param.c - the typed, unit-aware parameter registry.
 *
 * Each component kind declares its parameters once (name, type, default,
 * unit, range, one-line doc).  That table drives validation, the scenario
 * parser, `aiworkload params`, the man7 tables and Python help().  Values
 * with units parse into SI base units: "90d" -> 7776000 s, "3.35TB/s" ->
 * 3.35e12 B/s, "400Gb/s" -> 5e10 B/s, "700W" -> 700 W.
 */
#include "core/internal.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ------------------------------------------------------------------------ */
/* units                                                                     */
/* ------------------------------------------------------------------------ */
typedef struct unit {
	const char *sfx;
	double mul;
} unit;

static const unit U_DURATION[] = {
	{"", 1}, {"s", 1}, {"sec", 1}, {"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3},
	{"m", 60}, {"min", 60}, {"h", 3600}, {"hr", 3600}, {"d", 86400}, {"day", 86400},
	{"days", 86400}, {"w", 604800}, {"y", 31536000}, {NULL, 0}};
/* rates: events per unit of time */
static const unit U_RATE[] = {
	{"", 1}, {"/s", 1}, {"/ms", 1e3}, {"/min", 1.0 / 60}, {"/m", 1.0 / 60}, {"/h", 1.0 / 3600},
	{"/d", 1.0 / 86400}, {"/day", 1.0 / 86400}, {"hz", 1}, {"Hz", 1}, {NULL, 0}};
static const unit U_SIZE[] = {
	{"", 1}, {"B", 1}, {"kB", 1e3}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12},
	{"PB", 1e15}, {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0},
	{"TiB", 1099511627776.0}, {NULL, 0}};
/* bandwidth: bytes/s; lowercase b means bits */
static const unit U_BW[] = {
	{"", 1}, {"B/s", 1}, {"kB/s", 1e3}, {"KB/s", 1e3}, {"MB/s", 1e6}, {"GB/s", 1e9},
	{"TB/s", 1e12}, {"GiB/s", 1073741824.0}, {"b/s", 0.125}, {"kb/s", 125}, {"Mb/s", 1.25e5},
	{"Gb/s", 1.25e8}, {"Tb/s", 1.25e11}, {"Mbps", 1.25e5}, {"Gbps", 1.25e8}, {"Tbps", 1.25e11},
	{NULL, 0}};
static const unit U_POWER[] = {
	{"", 1}, {"W", 1}, {"kW", 1e3}, {"MW", 1e6}, {"GW", 1e9}, {NULL, 0}};
static const unit U_ENERGY[] = {
	{"", 1}, {"J", 1}, {"kJ", 1e3}, {"MJ", 1e6}, {"GJ", 1e9}, {"Wh", 3600}, {"kWh", 3.6e6},
	{"MWh", 3.6e9}, {"GWh", 3.6e12}, {NULL, 0}};
static const unit U_MONEY[] = {
	{"", 1}, {"USD", 1}, {"$", 1}, {"k", 1e3}, {"kUSD", 1e3}, {"M", 1e6}, {"MUSD", 1e6},
	{NULL, 0}};
static const unit U_FLOPS[] = {
	{"", 1}, {"FLOP/s", 1}, {"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"P", 1e15},
	{"E", 1e18}, {"GFLOP/s", 1e9}, {"TFLOP/s", 1e12}, {"PFLOP/s", 1e15}, {"EFLOP/s", 1e18},
	{"TFLOPS", 1e12}, {"PFLOPS", 1e15}, {NULL, 0}};
static const unit U_REAL[] = {{"", 1}, {"%", 0.01}, {NULL, 0}};
static const unit U_INT[] = {{"", 1}, {"k", 1e3}, {"M", 1e6}, {NULL, 0}};

static const char *const TYPE_NAMES[] = {
	"int", "real", "duration", "rate", "size", "bandwidth", "power", "energy",
	"money", "flops", "enum", "string", "dist", "bool"};

static const char *const UNIT_HINT[] = {
	"an integer", "a number", "a duration such as 90d, 15min, 250ms or seconds",
	"a rate such as 20/s, 0.05/h or events per second",
	"a size such as 80GB, 512MiB or bytes", "a bandwidth such as 3.35TB/s, 400Gb/s or bytes/s",
	"a power such as 700W, 1.2MW or watts", "an energy such as 5kWh, 3MJ or joules",
	"an amount of money in USD such as 30000 or 30k", "a compute rate such as 989T or FLOP/s",
	"one of the listed choices", "text", "a distribution such as exp(1), lognormal(0,0.5)",
	"true or false"};

const char *aiwi_ptype_name(aiwi_ptype t)
{
	return (unsigned)t < sizeof TYPE_NAMES / sizeof *TYPE_NAMES ? TYPE_NAMES[t] : "?";
}

static const unit *units_of(aiwi_ptype t)
{
	switch (t) {
	case AIW_PT_INT: return U_INT;
	case AIW_PT_REAL: return U_REAL;
	case AIW_PT_DURATION: return U_DURATION;
	case AIW_PT_RATE: return U_RATE;
	case AIW_PT_SIZE: return U_SIZE;
	case AIW_PT_BANDWIDTH: return U_BW;
	case AIW_PT_POWER: return U_POWER;
	case AIW_PT_ENERGY: return U_ENERGY;
	case AIW_PT_MONEY: return U_MONEY;
	case AIW_PT_FLOPS: return U_FLOPS;
	default: return NULL;
	}
}

aiw_status aiwi_buferr(char *buf, size_t len, aiw_status code, const char *fmt, ...)
{
	if (buf && len) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(buf, len, fmt, ap);
		va_end(ap);
	}
	return code;
}

static const char *skip_ws(const char *p)
{
	while (*p && isspace((unsigned char)*p))
		p++;
	return p;
}

aiw_status aiwi_parse_units(aiwi_ptype t, const char *text, double *out, char *errbuf,
                           size_t errlen)
{
	const unit *us = units_of(t);
	if (!text || !us)
		return aiwi_buferr(errbuf, errlen, AIW_EINVAL, "no value");
	const char *p = skip_ws(text);
	bool dollar = false;
	if (t == AIW_PT_MONEY && *p == '$') {
		dollar = true;
		p = skip_ws(p + 1);
	}
	/* strtod accepts "nan", "inf" and hex: refuse them up front, signed or
	 * not ("inf" and "-inf" are both not a number, alike) */
	const char *q = (*p == '-' || *p == '+') ? p + 1 : p;
	if (!(isdigit((unsigned char)*q) || *q == '.'))
		return aiwi_buferr(errbuf, errlen, AIW_EPARSE, "'%s' is not %s", text,
		                   UNIT_HINT[t]);
	if ((p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) ||
	    ((p[0] == '-' || p[0] == '+') && p[1] == '0' && (p[2] == 'x' || p[2] == 'X')))
		return aiwi_buferr(errbuf, errlen, AIW_EPARSE, "'%s' is not %s", text,
		                   UNIT_HINT[t]);
	char *end;
	errno = 0;
	double x = strtod(p, &end);
	if (end == p)
		return aiwi_buferr(errbuf, errlen, AIW_EPARSE, "'%s' is not %s", text,
		                   UNIT_HINT[t]);
	if (errno == ERANGE && fabs(x) > 1.0)
		return aiwi_buferr(errbuf, errlen, AIW_ERANGE, "'%s' overflows a double", text);
	const char *sfx = skip_ws(end);
	size_t n = strlen(sfx);
	while (n && isspace((unsigned char)sfx[n - 1]))
		n--;
	double mul = NAN;
	for (const unit *u = us; u->sfx; u++)
		if (strlen(u->sfx) == n && strncmp(u->sfx, sfx, n) == 0) {
			mul = u->mul;
			break;
		}
	if (isnan(mul)) {
		char accepted[256] = "";
		size_t k = 0;
		for (const unit *u = us; u->sfx; u++) {
			if (!*u->sfx)
				continue;
			int w = snprintf(accepted + k, sizeof accepted - k, "%s%s", k ? ", " : "",
			                 u->sfx);
			if (w < 0 || (size_t)w >= sizeof accepted - k)
				break;
			k += (size_t)w;
		}
		return aiwi_buferr(errbuf, errlen, AIW_EPARSE,
		                   "'%s': unknown unit '%.*s' (expected %s; units: %s)", text,
		                   (int)n, sfx, UNIT_HINT[t], accepted);
	}
	(void)dollar;
	x *= mul;
	if (!isfinite(x))
		return aiwi_buferr(errbuf, errlen, AIW_ERANGE, "'%s' is not a finite number", text);
	*out = x;
	return AIW_OK;
}

AIW_EXPORT aiw_status aiw_parse_value(const char *kind, const char *text, double *out,
                                      char *errbuf, size_t errlen)
{
	if (!kind || !text || !out)
		return aiwi_buferr(errbuf, errlen, AIW_EINVAL,
		                   "aiw_parse_value: kind, text and out must not be NULL");
	for (size_t t = 0; t < sizeof TYPE_NAMES / sizeof *TYPE_NAMES; t++)
		if (strcmp(TYPE_NAMES[t], kind) == 0) {
			if (!units_of((aiwi_ptype)t))
				break;
			double x;
			aiw_status st = aiwi_parse_units((aiwi_ptype)t, text, &x, errbuf, errlen);
			if (st == AIW_OK && t == AIW_PT_INT && x != floor(x))
				return aiwi_buferr(errbuf, errlen, AIW_EPARSE, "'%s' is not an integer",
				                   text);
			if (st == AIW_OK)
				*out = x;
			return st;
		}
	return aiwi_buferr(errbuf, errlen, AIW_EUNKNOWN,
	                   "unknown value kind '%s' (expected int, real, duration, rate, size, "
	                   "bandwidth, power, energy, money or flops)",
	                   kind);
}

/* ------------------------------------------------------------------------ */
/* values                                                                    */
/* ------------------------------------------------------------------------ */
void aiwi_value_free(aiwi_value *v)
{
	free(v->s);
	aiwi_dist_free(v->dist);
	memset(v, 0, sizeof *v);
}

aiw_status aiwi_value_copy(aiwi_value *dst, const aiwi_value *src)
{
	aiwi_value n = *src;
	n.s = NULL;
	n.dist = NULL;
	if (src->s && !(n.s = strdup(src->s)))
		return AIW_ENOMEM;
	if (src->dist && !(n.dist = aiwi_dist_clone(src->dist))) {
		free(n.s);
		return AIW_ENOMEM;
	}
	aiwi_value_free(dst);
	*dst = n;
	return AIW_OK;
}

/* A bound in 6 significant digits when that reads back to it exactly, else
 * in full (23.999999 must not print as 24, contradicting "24 is outside"). */
static void fmt_bound(double x, char *buf, size_t len)
{
	snprintf(buf, len, "%.6g", x);
	if (strtod(buf, NULL) != x)
		aiwi_format_double(x, buf, len);
}

static void fmt_range(const aiwi_param_def *d, char *buf, size_t len)
{
	char lo[32], hi[32];
	fmt_bound(d->min, lo, sizeof lo);
	fmt_bound(d->max, hi, sizeof hi);
	snprintf(buf, len, "%s%s, %s]", (d->flags & AIW_PF_EXCL_MIN) ? "(" : "[", lo, hi);
}

static bool enum_index(const char *choices, const char *text, double *out)
{
	size_t n = strlen(text);
	double i = 0;
	for (const char *p = choices; *p;) {
		const char *bar = strchr(p, '|');
		size_t len = bar ? (size_t)(bar - p) : strlen(p);
		if (len == n && strncasecmp(p, text, n) == 0) {
			*out = i;
			return true;
		}
		i++;
		if (!bar)
			break;
		p = bar + 1;
	}
	return false;
}

/* An exact integer in [0, 2^64 - 1] from decimal text: digits, an optional
 * fraction and exponent and the int suffixes k and M, as long as the value
 * is exactly an integer ("1e16" is 10000000000000000, "1.5k" 1500; "1e-3",
 * "0.5" and "1e20" are refused).  canon gets the canonical digits. */
#define U64_MAX_TEXT "18446744073709551615"
static aiw_status parse_u64(const char *t, uint64_t *out, char *canon, size_t clen,
                            char *errbuf, size_t errlen)
{
	const char *p = t;
	bool neg = false;
	if (*p == '+' || *p == '-')
		neg = *p++ == '-';
	char dig[4200];
	size_t nd = 0, nfrac = 0;
	bool any = false;
	for (; isdigit((unsigned char)*p); p++, any = true)
		if (nd || *p != '0')
			dig[nd++] = *p;
	if (*p == '.') {
		for (p++; isdigit((unsigned char)*p); p++, any = true) {
			dig[nd++] = *p;
			nfrac++;
		}
		if (!nd) /* 0.000: only zeros so far */
			nfrac = 0;
	}
	if (!any)
		return aiwi_buferr(errbuf, errlen, AIW_EPARSE, "'%s' is not an integer", t);
	long exp10 = 0;
	if (*p == 'e' || *p == 'E') {
		const char *q = p + 1;
		bool eneg = false;
		if (*q == '+' || *q == '-')
			eneg = *q++ == '-';
		if (!isdigit((unsigned char)*q))
			return aiwi_buferr(errbuf, errlen, AIW_EPARSE, "'%s' is not an integer", t);
		for (; isdigit((unsigned char)*q); q++)
			if (exp10 < 100000)
				exp10 = exp10 * 10 + (*q - '0');
		exp10 = eneg ? -exp10 : exp10;
		p = q;
	}
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == 'k' && !p[1])
		exp10 += 3, p++;
	else if (*p == 'M' && !p[1])
		exp10 += 6, p++;
	if (*p)
		return aiwi_buferr(errbuf, errlen, AIW_EPARSE, "'%s' is not an integer", t);
	long net = exp10 - (long)nfrac;
	while (nd && net < 0 && dig[nd - 1] == '0')
		nd--, net++;
	if (!nd) { /* zero, however written */
		snprintf(canon, clen, "0");
		*out = 0;
		return AIW_OK;
	}
	if (net < 0)
		return aiwi_buferr(errbuf, errlen, AIW_EPARSE, "'%s' is not an integer", t);
	if (neg || (long)nd + net > 20) /* (nd digits, the first not 0) */
		return aiwi_buferr(errbuf, errlen, AIW_ERANGE,
		                   "%s is outside the range [0, " U64_MAX_TEXT "]", t);
	while (net-- > 0)
		dig[nd++] = '0';
	dig[nd] = 0;
	if (nd == 20 && strcmp(dig, U64_MAX_TEXT) > 0)
		return aiwi_buferr(errbuf, errlen, AIW_ERANGE,
		                   "%s is outside the range [0, " U64_MAX_TEXT "]", t);
	if (clen > nd) /* nd <= 20 here */
		memcpy(canon, dig, nd + 1);
	*out = strtoull(dig, NULL, 10);
	return AIW_OK;
}

static char *trimmed_dup(const char *text)
{
	const char *p = skip_ws(text);
	size_t n = strlen(p);
	while (n && isspace((unsigned char)p[n - 1]))
		n--;
	char *s = malloc(n + 1);
	if (s) {
		memcpy(s, p, n);
		s[n] = 0;
	}
	return s;
}

aiw_status aiwi_value_parse(const aiwi_param_def *def, const char *text, const char *base_dir,
                           aiwi_value *v, char *errbuf, size_t errlen)
{
	if (!text)
		return aiwi_buferr(errbuf, errlen, AIW_EINVAL, "no value given");
	if (strlen(text) > 4096)
		return aiwi_buferr(errbuf, errlen, AIW_ERANGE, "value longer than 4096 characters");
	aiwi_value n = {0};
	char *t = trimmed_dup(text);
	if (!t)
		return AIW_ENOMEM;
	aiw_status st = AIW_OK;
	if ((def->flags & AIW_PF_NONE) && (!*t || strcasecmp(t, "none") == 0)) {
		n.set = false;
		n.d = NAN;
		goto done;
	}
	if ((def->flags & AIW_PF_ALL) && strcasecmp(t, "all") == 0) {
		n.set = true;
		n.d = 0;
		goto done;
	}
	if ((def->flags & AIW_PF_AUTO) && strcasecmp(t, "auto") == 0) {
		n.set = true;
		n.is_auto = true;
		n.d = NAN;
		goto done;
	}
	n.set = true;
	if (def->flags & AIW_PF_U64) {
		char canon[24];
		uint64_t u;
		st = parse_u64(t, &u, canon, sizeof canon, errbuf, errlen);
		if (st == AIW_OK) {
			char *c = strdup(canon);
			if (!c) {
				free(t);
				return AIW_ENOMEM;
			}
			free(t);
			t = c;
			n.d = (double)u;
		}
		goto done;
	}
	switch (def->type) {
	case AIW_PT_ENUM:
		if (!enum_index(def->choices, t, &n.d))
			st = aiwi_buferr(errbuf, errlen, AIW_EPARSE, "'%s' is not one of %s", t,
			                 def->choices);
		break;
	case AIW_PT_STRING:
		if (!*t && !(def->flags & AIW_PF_NONE))
			st = aiwi_buferr(errbuf, errlen, AIW_EPARSE, "empty text");
		n.d = 0;
		break;
	case AIW_PT_BOOL:
		if (!strcasecmp(t, "true") || !strcasecmp(t, "yes") || !strcasecmp(t, "on") ||
		    !strcmp(t, "1"))
			n.d = 1;
		else if (!strcasecmp(t, "false") || !strcasecmp(t, "no") ||
		         !strcasecmp(t, "off") || !strcmp(t, "0"))
			n.d = 0;
		else
			st = aiwi_buferr(errbuf, errlen, AIW_EPARSE, "'%s' is not true or false", t);
		break;
	case AIW_PT_DIST:
		st = aiwi_dist_parse(t, def->dist_units, base_dir, &n.dist, errbuf, errlen);
		if (st == AIW_OK) {
			n.d = aiwi_dist_mean(n.dist);
			double lo = aiwi_dist_min(n.dist);
			if (lo < def->min) {
				char r[96]; /* "[" lo ", " hi "]": up to 2 x 31 + 5 */
				fmt_range(def, r, sizeof r);
				st = aiwi_buferr(errbuf, errlen, AIW_ERANGE,
				                 "'%s' can take values down to %g; allowed %s %s", t,
				                 lo, r, def->unit);
			} else if (!(n.d <= def->max)) {
				char r[96]; /* "[" lo ", " hi "]": up to 2 x 31 + 5 */
				fmt_range(def, r, sizeof r);
				st = aiwi_buferr(errbuf, errlen, AIW_ERANGE,
				                 "'%s' has mean %g; allowed %s %s", t, n.d, r,
				                 def->unit);
			}
		}
		break;
	default:
		st = aiwi_parse_units(def->type, t, &n.d, errbuf, errlen);
		if (st == AIW_EPARSE && (def->flags & AIW_PF_ALL))
			st = aiwi_buferr(errbuf, errlen, AIW_EPARSE, "'%s' is not all or %s", t,
			                 UNIT_HINT[def->type]);
		if (st == AIW_OK && def->type == AIW_PT_INT && n.d != floor(n.d))
			st = aiwi_buferr(errbuf, errlen, AIW_EPARSE, "'%s' is not an integer", t);
		if (st == AIW_OK &&
		    (n.d < def->min || n.d > def->max ||
		     ((def->flags & AIW_PF_EXCL_MIN) && n.d <= def->min))) {
			char r[96]; /* "[" lo ", " hi "]": up to 2 x 31 + 5 */
			fmt_range(def, r, sizeof r);
			bool unitless = !*def->unit || !strcmp(def->unit, "1");
			st = aiwi_buferr(errbuf, errlen, AIW_ERANGE, "%s is outside the range %s%s%s",
			                 t, r, unitless ? "" : " ", unitless ? "" : def->unit);
		}
		break;
	}
done:
	if (st != AIW_OK) {
		free(t);
		aiwi_dist_free(n.dist);
		return st;
	}
	if (def->type == AIW_PT_STRING && (def->flags & AIW_PF_PATH) && base_dir && *base_dir &&
	    *t && t[0] != '/') {
		size_t len = strlen(base_dir) + strlen(t) + 2;
		char *joined = malloc(len);
		if (!joined) {
			free(t);
			return AIW_ENOMEM;
		}
		snprintf(joined, len, "%s/%s", base_dir, t);
		free(t);
		t = joined;
	}
	n.s = t;
	aiwi_value_free(v);
	*v = n;
	return AIW_OK;
}

void aiwi_format_double(double x, char *buf, size_t len)
{
	/* the shortest of %.15g..%.17g that reads back to the same double */
	for (int prec = 15; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, x);
		if (strtod(buf, NULL) == x)
			return;
	}
}

static void enum_text(const char *choices, double idx, char *buf, size_t len)
{
	const char *p = choices;
	for (int i = 0; i < (int)idx && p; i++) {
		p = strchr(p, '|');
		if (p)
			p++;
	}
	if (!p) {
		snprintf(buf, len, "?");
		return;
	}
	size_t n = strcspn(p, "|");
	snprintf(buf, len, "%.*s", (int)n, p);
}

void aiwi_value_format(const aiwi_param_def *def, const aiwi_value *v, char *buf, size_t len)
{
	if (!len)
		return;
	if (!v->set)
		snprintf(buf, len, "none");
	else if (v->is_auto)
		snprintf(buf, len, "auto");
	else if ((def->flags & AIW_PF_ALL) && v->d == 0)
		snprintf(buf, len, "all");
	else if (def->type == AIW_PT_DIST && v->dist)
		snprintf(buf, len, "%s", v->dist->spec);
	else if (def->type == AIW_PT_ENUM)
		enum_text(def->choices, v->d, buf, len);
	else if (def->type == AIW_PT_STRING)
		snprintf(buf, len, "%s", v->s ? v->s : "");
	else if (def->type == AIW_PT_BOOL)
		snprintf(buf, len, "%s", v->d != 0 ? "true" : "false");
	else if ((def->flags & AIW_PF_U64) && v->s)
		snprintf(buf, len, "%s", v->s); /* the exact digits */
	else if (def->type == AIW_PT_INT && fabs(v->d) >= 9007199254740992.0 && v->s)
		snprintf(buf, len, "%s", v->s); /* beyond 2^53 the text is exact */
	else if (def->type == AIW_PT_INT)
		snprintf(buf, len, "%.0f", v->d);
	else
		aiwi_format_double(v->d, buf, len);
}

/* ------------------------------------------------------------------------ */
/* the registry                                                              */
/* ------------------------------------------------------------------------ */
size_t aiwi_kind_param_index(const aiwi_kind *k, const char *key)
{
	for (size_t i = 0; i < k->nparams; i++)
		if (strcmp(k->params[i].key, key) == 0)
			return i;
	return SIZE_MAX;
}

size_t aiwi_edit_distance(const char *a, const char *b)
{
	/* Damerau-Levenshtein (optimal string alignment), short strings only */
	size_t n = strlen(a), m = strlen(b);
	if (n > 63 || m > 63)
		return SIZE_MAX;
	size_t d[64][64];
	for (size_t i = 0; i <= n; i++)
		d[i][0] = i;
	for (size_t j = 0; j <= m; j++)
		d[0][j] = j;
	for (size_t i = 1; i <= n; i++)
		for (size_t j = 1; j <= m; j++) {
			size_t cost = tolower((unsigned char)a[i - 1]) != tolower((unsigned char)b[j - 1]);
			size_t x = d[i - 1][j] + 1, y = d[i][j - 1] + 1, z = d[i - 1][j - 1] + cost;
			size_t best = x < y ? x : y;
			best = best < z ? best : z;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[n][m];
}

const char *aiwi_kind_suggest(const aiwi_kind *k, const char *key)
{
	const char *best = NULL;
	size_t bd = SIZE_MAX;
	for (size_t i = 0; i < k->nparams; i++) {
		size_t dd = aiwi_edit_distance(k->params[i].key, key);
		if (dd < bd) {
			bd = dd;
			best = k->params[i].key;
		}
	}
	size_t len = strlen(key);
	return (best && bd <= (len < 6 ? 2 : 3)) ? best : NULL;
}

const aiwi_kind *aiwi_kind_find(const char *name)
{
	for (size_t i = 0; aiwi_kinds[i]; i++)
		if (strcmp(aiwi_kinds[i]->name, name) == 0)
			return aiwi_kinds[i];
	return NULL;
}

static const aiwi_param_def *param_at(size_t i)
{
	for (size_t k = 0; aiwi_kinds[k]; k++) {
		if (i < aiwi_kinds[k]->nparams)
			return &aiwi_kinds[k]->params[i];
		i -= aiwi_kinds[k]->nparams;
	}
	return NULL;
}

AIW_EXPORT aiw_status aiw_param_count(size_t *out)
{
	if (!out)
		return AIW_EINVAL;
	size_t n = 0;
	for (size_t k = 0; aiwi_kinds[k]; k++)
		n += aiwi_kinds[k]->nparams;
	*out = n;
	return AIW_OK;
}

AIW_EXPORT aiw_status aiw_param_info(size_t i, const char **name, const char **type,
                                     const char **def, const char **unit, double *min,
                                     double *max, const char **choices, const char **doc)
{
	const aiwi_param_def *d = param_at(i);
	if (!d)
		return AIW_ERANGE;
	if (name)
		*name = d->full;
	if (type)
		*type = aiwi_ptype_name(d->type);
	if (def)
		*def = d->def ? d->def : "";
	if (unit)
		*unit = d->unit ? d->unit : "";
	if (min)
		*min = d->min;
	if (max)
		*max = d->max;
	if (choices)
		*choices = d->choices ? d->choices : "";
	if (doc)
		*doc = d->doc ? d->doc : "";
	return AIW_OK;
}

AIW_EXPORT aiw_status aiw_param_flags(size_t i, unsigned *out)
{
	if (!out)
		return AIW_EINVAL;
	const aiwi_param_def *d = param_at(i);
	if (!d)
		return AIW_ERANGE;
	unsigned f = 0;
	if (d->flags & AIW_PF_EXCL_MIN)
		f |= AIW_PARAM_MIN_EXCLUSIVE;
	if (d->flags & AIW_PF_RUNTIME)
		f |= AIW_PARAM_RUNTIME;
	if (d->flags & AIW_PF_AUTO)
		f |= AIW_PARAM_AUTO;
	if (d->flags & AIW_PF_NONE)
		f |= AIW_PARAM_NONE;
	if (d->flags & AIW_PF_ALL)
		f |= AIW_PARAM_ALL;
	*out = f;
	return AIW_OK;
}

/* ------------------------------------------------------------------------ */
/* Modes: parameters that have an effect only in some (aiwi_param_mode)      */
/* ------------------------------------------------------------------------ */
/* Does the condition "MODE=V1|V2" (n bytes of it) hold for c?  A MODE that
 * is no enum parameter of c's kind holds (the table's own error, caught by
 * the tests). */
static bool mode_cond_holds(const aiwi_comp *c, const char *cond, size_t n, char *mode,
                            size_t mlen, char *now, size_t nlen)
{
	const char *eq = memchr(cond, '=', n);
	if (!eq)
		return true;
	snprintf(mode, mlen, "%.*s", (int)(eq - cond), cond);
	size_t j = aiwi_kind_param_index(c->kind, mode);
	if (j == SIZE_MAX || c->kind->params[j].type != AIW_PT_ENUM)
		return true;
	aiwi_value_format(&c->kind->params[j], &c->v[j], now, nlen);
	const char *v = eq + 1, *end = cond + n;
	size_t nl = strlen(now);
	while (v < end) {
		const char *bar = memchr(v, '|', (size_t)(end - v));
		size_t vl = (size_t)((bar ? bar : end) - v);
		if (vl == nl && strncmp(v, now, vl) == 0)
			return true;
		v = bar ? bar + 1 : end;
	}
	return false;
}

/* Does `when' hold for c?  On false, why: the modes c is in that fail the
 * first alternative ("timing = iteration"). */
static bool mode_holds(const aiwi_comp *c, const char *when, char *why, size_t wlen)
{
	why[0] = 0;
	const char *alt = when;
	bool first = true;
	while (*alt) {
		const char *semi = strchr(alt, ';');
		const char *aend = semi ? semi : alt + strlen(alt);
		bool all = true;
		const char *p = alt;
		while (p < aend) {
			while (p < aend && *p == ' ')
				p++;
			const char *sp = p;
			while (sp < aend && *sp != ' ')
				sp++;
			char mode[64], now[64];
			if (sp > p && !mode_cond_holds(c, p, (size_t)(sp - p), mode, sizeof mode, now,
			                               sizeof now)) {
				all = false;
				if (first) {
					size_t l = strlen(why);
					snprintf(why + l, wlen - l, "%s%s = %s", l ? ", " : "", mode, now);
				}
			}
			p = sp;
		}
		if (all)
			return true;
		first = false;
		alt = semi ? semi + 1 : aend;
	}
	return false;
}

/* Is m's parameter given in c outside its modes?  On true, its value and
 * why (the modes c is in). */
static bool mode_unmet(const aiwi_comp *c, const aiwi_param_mode *m, char *val, size_t vlen,
                       char *why, size_t wlen)
{
	size_t j = aiwi_kind_param_index(c->kind, m->key);
	if (j == SIZE_MAX || !c->v[j].given || mode_holds(c, m->when, why, wlen))
		return false;
	aiwi_value_format(&c->kind->params[j], &c->v[j], val, vlen);
	return true;
}

void aiwi_param_modes_check(aiwi_comp *c)
{
	const aiwi_param_mode *m = c->kind->modes;
	for (; m && m->key; m++) {
		char val[128], why[256];
		if (!mode_unmet(c, m, val, sizeof val, why, sizeof why))
			continue;
		aiwi_warn(c->sim,
		          "%s.%s = %s has no effect: it applies only when %s, and %s (remove it or "
		          "change the mode; aiworkload params shows each parameter's mode)",
		          c->prefix, m->key, val, m->when, why);
	}
}

bool aiwi_param_modes_first(const aiwi_comp *c, char *msg, size_t len)
{
	for (const aiwi_param_mode *m = c->kind->modes; m && m->key; m++) {
		char val[128], why[256];
		if (mode_unmet(c, m, val, sizeof val, why, sizeof why)) {
			snprintf(msg, len, "%s = %s has no effect: it applies only when %s, and %s",
			         m->key, val, m->when, why);
			return true;
		}
	}
	return false;
}

AIW_EXPORT aiw_status aiw_param_mode(size_t i, const char **out)
{
	if (!out)
		return AIW_EINVAL;
	size_t base = 0;
	for (size_t k = 0; aiwi_kinds[k]; k++) {
		const aiwi_kind *kd = aiwi_kinds[k];
		if (i < base + kd->nparams) {
			*out = "";
			for (const aiwi_param_mode *m = kd->modes; m && m->key; m++)
				if (strcmp(m->key, kd->params[i - base].key) == 0)
					*out = m->when;
			return AIW_OK;
		}
		base += kd->nparams;
	}
	return AIW_ERANGE;
}

AIW_EXPORT aiw_status aiw_param_find(const char *name, size_t *out)
{
	if (!name || !out)
		return AIW_EINVAL;
	/* accept both "training.NAME.gpus" and "training.pretrain.gpus" */
	size_t base = 0;
	for (size_t k = 0; aiwi_kinds[k]; k++) {
		const aiwi_kind *kd = aiwi_kinds[k];
		size_t kl = strlen(kd->name);
		if (strncmp(name, kd->name, kl) == 0 && name[kl] == '.') {
			const char *key = name + kl + 1;
			if (!aiwi_kind_is(kd, AIWI_KIND_SINGLETON)) {
				const char *dot = strchr(key, '.');
				key = dot ? dot + 1 : "";
			}
			size_t j = aiwi_kind_param_index(kd, key);
			if (j != SIZE_MAX) {
				*out = base + j;
				return AIW_OK;
			}
		}
		base += kd->nparams;
	}
	return AIW_EUNKNOWN;
}
