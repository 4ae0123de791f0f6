/*
 * traffic.c - arrival processes for inference: Poisson, diurnal
 * non-homogeneous Poisson, bursty gamma renewal (optionally diurnal) and
 * trace replay (Azure LLM inference trace 2023 format).
 *
 * Diurnal rate: rate(t) = lambda w(day) (1 + a sin(2 pi (h - peak_hour + 6)/24)),
 * a = (r - 1)/(r + 1), so max/min = r and the daily mean is lambda w(day).
 * Sampling by thinning (Lewis and Shedler, "Simulation of nonhomogeneous
 * Poisson processes by thinning", Naval Res. Logistics Quarterly 26(3),
 * 1979), which is exact against any envelope that dominates the rate: here
 * a piecewise-constant one, per ENV_BINS-th of a day the maximum of the rate
 * over the bin (closed form: the sinusoid peaks inside the bin or at one of
 * its ends), padded above its rounding.  Candidates come from inverting the
 * envelope's piecewise-linear integral (one exponential per candidate,
 * carried across bins and over whole days or weeks of envelope): 1.0011
 * candidates per arrival over a day at a ratio of 10 (1.0014 at 1000)
 * instead of lambda_max / mean = 1 + a = 1.82 with one envelope at the
 * peak.  The acceptance test u env < rate first tries the bin's minimum (a
 * squeeze, which decides exactly as the full test does): sin() runs for
 * 0.23% of the candidates.
 * Its integral is closed form: the sinusoid integrates to
 * -(a/omega) [cos(omega s + phi)] over a day fraction and to 0 over a day.
 *
 * Bursty: gamma renewal with shape 1/cv^2 and scale cv^2/lambda (mean
 * 1/lambda, CV cv).  Modulated by the diurnal profile through time rescaling:
 * the renewal runs in operational time M(t) = integral of the profile and
 * t = M^-1(.) is found per day with GSL's Brent solver (Brent 1973), bracketed
 * by the profile's bounds (1 - a) w <= M' <= (1 + a) w.
 *
 * Trace: the file is validated in one streaming pass at creation (row count,
 * span, token means, and a rate profile whose bins double in width whenever
 * the trace outgrows AIW_TRACE_PROFILE_BINS), then replayed row by row from
 * the same FILE*.  Memory is O(1) in the number of rows.
 */
/* GSL's inline gsl_rng_uniform & co. (its documented HAVE_INLINE): one call
 * less per draw on the hot path */
#define HAVE_INLINE 1
#include "inference/traffic.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_errno.h>
#include <gsl/gsl_math.h>
#include <gsl/gsl_randist.h>
#include <gsl/gsl_roots.h>

#define DAY_S 86400.0
#define WEEK_S (7.0 * DAY_S)
#define OMEGA (2.0 * M_PI / DAY_S) /* rad/s: one cycle per day */
#define MAX_FIELDS 3
#define ENV_BINS 1440 /* diurnal envelope bins per day (60 s each) */
#define ENV_W (DAY_S / ENV_BINS)

typedef enum { TS_UNKNOWN, TS_DATETIME, TS_SECONDS } ts_format;

/* Reference point and ordering state of one pass over a trace file. */
typedef struct trace_pass {
	uint64_t line;      /* current physical line (1-based) */
	uint64_t rows;      /* data rows seen */
	bool seen_content;  /* a non-blank line was seen (header allowed before) */
	double prev_rel;    /* previous row's relative time (s) */
	uint64_t prev_line;
} trace_pass;

struct aiwi_traffic {
	aiwi_traffic_kind kind;
	char *prefix; /* "inference.chat." or "" */
	double rate;  /* lambda (1/s) */
	double a;     /* diurnal amplitude (r - 1)/(r + 1) */
	double peak_hour;
	double phi;   /* phase at midnight: 2 pi (6 - peak_hour) / 24 */
	double w[7];  /* day factors, day 0 = Monday */
	double cumday[8]; /* M at the start of each day of the week (s) */
	double week_m;    /* M over one week (s) */
	double max_w;
	/* diurnal thinning envelope, per bin j of a day at w = 1: bounds of
	 * 1 + a sin(omega s + phi) over [j ENV_W, (j + 1) ENV_W], hi padded up,
	 * lo padded down (ENV_BINS entries) */
	struct env_bin {
		double hi, lo;
	} *env;
	double env_day;  /* ENV_W sum hi: envelope of one day at w = 1 (s) */
	double env_week; /* rate env_day sum w: envelope mass of one week */
	/* where the previous diurnal arrival (tr->last) lies: day (since t = 0),
	 * its day of the week, its bin, and seconds into the day, so that the
	 * next call continues from there without re-deriving them from t */
	double cur_day, cur_s;
	int cur_dw, cur_j;
	bool cur_ok;
	double inv_rate; /* 1 / rate (poisson) */
	double cv, shape, scale_m; /* gamma shape 1/cv^2, scale in M units */
	bool modulate;
	double last;  /* previous arrival (or restart) time */
	double op_m;  /* M(last) for the modulated renewal */
	gsl_root_fsolver *solver;

	/* trace */
	char *path;
	FILE *f;
	double time_scale;
	bool loop;
	ts_format fmt;
	int nfields;
	int64_t sec0, nsec0; /* first row, datetime format */
	double t0;           /* first row, seconds format */
	double offset;       /* simulated start of the current pass */
	double period_sim;   /* loop period in simulated seconds */
	bool ended;
	bool failed;         /* replay error: errmsg says why, next returns NAN */
	trace_pass pass;
	aiwi_trace_info info;
	double bin_w;        /* profile bin width in trace seconds */
	size_t nbins;
	double *cum;         /* nbins + 1 prefix sums of rows per bin */
	double period_trace; /* span + mean interarrival, trace seconds */
	char errmsg[512];
	/* batch: the job's requests, those not yet drawn, its start */
	double batch_n, batch_left, batch_start;
	char buf[AIW_TRACE_MAX_LINE + 1];
};

/* ======================================================================== */
/* configuration                                                             */
/* ======================================================================== */
void aiwi_traffic_conf_default(aiwi_traffic_conf *conf)
{
	memset(conf, 0, sizeof *conf);
	conf->kind = AIW_TRAFFIC_POISSON;
	conf->rate = 1.0;
	conf->peak_to_trough = 1.0;
	conf->peak_hour = 14.0;
	conf->weekend_factor = 1.0;
	conf->cv = 1.0;
	conf->time_scale = 1.0;
}

aiwi_traffic_kind aiwi_traffic_get_kind(const aiwi_traffic *tr)
{
	return tr->kind;
}

const char *aiwi_traffic_errmsg(const aiwi_traffic *tr)
{
	return tr ? tr->errmsg : "";
}

static aiw_status range_err(char *err, size_t len, const char *prefix, const char *field,
                            double v, const char *unit, const char *expect)
{
	return aiwi_buferr(err, len, AIW_ERANGE, "%s%s = %g%s is out of range: expected %s",
	                   prefix, field, v, unit, expect);
}

static char *dup_str(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);
	if (d)
		memcpy(d, s, n);
	return d;
}

/* ======================================================================== */
/* diurnal profile m(t) and its integral M(t) (seconds of "weekday mean")    */
/* ======================================================================== */
static inline int day_of_week(double day)
{
	double d = fmod(day, 7.0);
	if (d < 0.0)
		d += 7.0;
	int i = (int)d;
	return i > 6 ? 6 : i;
}

static double profile_m(const aiwi_traffic *tr, double t)
{
	double day = floor(t / DAY_S);
	double s = t - day * DAY_S;
	return tr->w[day_of_week(day)] * (1.0 + tr->a * sin(OMEGA * s + tr->phi));
}

/* Integral of the profile over [0, s] within one day of factor w. */
static inline double day_part(const aiwi_traffic *tr, double w, double s)
{
	return w * (s - tr->a / OMEGA * (cos(OMEGA * s + tr->phi) - cos(tr->phi)));
}

/* M(t) = integral over [0, t] of the profile (M(t) < 0 for t < 0). */
static double profile_int(const aiwi_traffic *tr, double t)
{
	double week = floor(t / WEEK_S);
	double in_week = t - week * WEEK_S;
	double dayf = floor(in_week / DAY_S);
	int d = dayf > 6.0 ? 6 : dayf < 0.0 ? 0 : (int)dayf;
	double s = in_week - d * DAY_S;
	return week * tr->week_m + tr->cumday[d] + day_part(tr, tr->w[d], s);
}

typedef struct {
	const aiwi_traffic *tr;
	double w, target;
} day_root;

static double day_root_f(double s, void *p)
{
	const day_root *dr = p;
	return day_part(dr->tr, dr->w, s) - dr->target;
}

/* Solve day_part(w, s) = target for s in [0, DAY_S]; target in [0, w DAY_S]. */
static double day_inverse(aiwi_traffic *tr, double w, double target)
{
	if (target <= 0.0)
		return 0.0;
	if (target >= w * DAY_S)
		return DAY_S;
	if (tr->a == 0.0)
		return target / w;
	day_root dr = {tr, w, target};
	gsl_function F = {day_root_f, &dr};
	/* (1 - a) w <= M' <= (1 + a) w brackets the root */
	double lo = target / (w * (1.0 + tr->a)), hi = target / (w * (1.0 - tr->a));
	if (hi > DAY_S)
		hi = DAY_S;
	if (lo > hi)
		lo = hi;
	if (day_root_f(lo, &dr) > 0.0)
		lo = 0.0;
	if (day_root_f(hi, &dr) < 0.0)
		hi = DAY_S;
	if (day_root_f(lo, &dr) == 0.0)
		return lo;
	if (day_root_f(hi, &dr) == 0.0)
		return hi;
	if (gsl_root_fsolver_set(tr->solver, &F, lo, hi) != GSL_SUCCESS)
		return 0.5 * (lo + hi); /* unreachable: the bracket straddles */
	for (int it = 0; it < 200; it++) {
		if (gsl_root_fsolver_iterate(tr->solver) != GSL_SUCCESS)
			break;
		lo = gsl_root_fsolver_x_lower(tr->solver);
		hi = gsl_root_fsolver_x_upper(tr->solver);
		if (gsl_root_test_interval(lo, hi, 1e-9, 0.0) == GSL_SUCCESS)
			break;
	}
	return gsl_root_fsolver_root(tr->solver);
}

/* t >= 0 with M(t) = y (the earliest such t), y >= 0. */
static double profile_inverse(aiwi_traffic *tr, double y)
{
	if (y <= 0.0)
		return 0.0;
	double week = floor(y / tr->week_m);
	double rem = y - week * tr->week_m;
	if (rem < 0.0)
		rem = 0.0;
	if (rem >= tr->week_m) {
		week += 1.0;
		rem -= tr->week_m;
	}
	int last = 0;
	for (int d = 0; d < 7; d++) {
		if (tr->w[d] <= 0.0)
			continue;
		last = d;
		if (rem <= tr->cumday[d + 1])
			return week * WEEK_S + d * DAY_S +
			       day_inverse(tr, tr->w[d], rem - tr->cumday[d]);
	}
	return week * WEEK_S + last * DAY_S + DAY_S;
}

/* ------------------------------------------------------------------------ */
/* the diurnal thinning envelope                                             */
/* ------------------------------------------------------------------------ */
/* Bounds of the profile's day shape 1 + a sin(omega s + phi) over the bin
 * [s0, s1] (shorter than half a day): the sinusoid's extremes are at the
 * ends unless a crest (pi/2 + 2 pi k) or a trough (3 pi/2 + 2 pi k) lies
 * inside.  The padding (1e-12, against the test's 1 + a sin(.) evaluated at
 * any s of the bin, whose rounding is a few 1e-15) keeps hi above and lo
 * below every value the acceptance test can compute. */
static struct env_bin env_bounds(double a, double phi, double s0, double s1)
{
	double th0 = OMEGA * s0 + phi, th1 = OMEGA * s1 + phi;
	double v0 = sin(th0), v1 = sin(th1);
	double smax = v0 > v1 ? v0 : v1, smin = v0 < v1 ? v0 : v1;
	if (M_PI_2 + 2.0 * M_PI * ceil((th0 - M_PI_2) / (2.0 * M_PI)) <= th1)
		smax = 1.0;
	if (1.5 * M_PI + 2.0 * M_PI * ceil((th0 - 1.5 * M_PI) / (2.0 * M_PI)) <= th1)
		smin = -1.0;
	return (struct env_bin){1.0 + a * smax + 1e-12, 1.0 + a * smin - 1e-12};
}

static bool env_build(aiwi_traffic *tr)
{
	tr->env = malloc(ENV_BINS * sizeof *tr->env);
	if (!tr->env)
		return false;
	double day = 0.0;
	for (int j = 0; j < ENV_BINS; j++) {
		tr->env[j] = env_bounds(tr->a, tr->phi, j * ENV_W, (j + 1) * ENV_W);
		day += tr->env[j].hi * ENV_W;
	}
	tr->env_day = day;
	tr->env_week = tr->rate * day * (tr->week_m / DAY_S); /* week_m / DAY_S = sum w */
	return true;
}

/* Where the diurnal process stands: day number, second of the day, day of
 * the week and envelope bin. */
struct dcur {
	double day, s;
	int dw, j;
};

/* The next candidate kept from the cursor on (rate > 0): candidates of the
 * binned envelope, each kept with probability rate / envelope.  Returns its
 * time, the cursor moved there. */
static inline double diurnal_step(const aiwi_traffic *tr, gsl_rng *r, struct dcur *cur)
{
	const struct env_bin *env = tr->env;
	double day = cur->day, s = cur->s;
	int dw = cur->dw, j = cur->j;
	double wr = tr->rate * tr->w[dw]; /* rate = wr (1 + a sin(.)) this day */
	for (;;) {
		/* envelope mass to the next candidate, spent bin by bin */
		double e = aiwi_rng_exponential(r);
		for (;;) {
			double l = wr * env[j].hi, end = (j + 1) * ENV_W;
			double room = l * (end - s);
			if (e < room) {
				s += e / l;
				break;
			}
			e -= room;
			s = end;
			if (++j < ENV_BINS)
				continue;
			j = 0;
			s = 0.0;
			day += 1.0;
			dw = dw == 6 ? 0 : dw + 1;
			wr = tr->rate * tr->w[dw];
			if (e >= tr->env_week) { /* whole weeks (the day of week stays) */
				double rem = fmod(e, tr->env_week); /* exact */
				day += 7.0 * nearbyint((e - rem) / tr->env_week);
				e = rem;
			}
			while (e >= wr * tr->env_day) { /* whole days */
				e -= wr * tr->env_day;
				day += 1.0;
				dw = dw == 6 ? 0 : dw + 1;
				wr = tr->rate * tr->w[dw];
			}
		}
		double u = aiwi_rng_uniform(r) * env[j].hi;
		if (u < env[j].lo || u < 1.0 + tr->a * sin(OMEGA * s + tr->phi))
			break;
	}
	cur->day = day;
	cur->s = s;
	cur->dw = dw;
	cur->j = j;
	return day * DAY_S + s;
}

/* Next diurnal arrival after `from` (rate > 0), from the kept cursor when
 * `from` is the previous arrival. */
static double next_diurnal(aiwi_traffic *tr, gsl_rng *r, double from)
{
	struct dcur c;
	if (tr->cur_ok && from == tr->last) {
		c = (struct dcur){tr->cur_day, tr->cur_s, tr->cur_dw, tr->cur_j};
	} else {
		c.day = floor(from / DAY_S);
		c.s = from - c.day * DAY_S;
		if (c.s < 0.0)
			c.s = 0.0;
		if (c.s >= DAY_S) {
			c.day += 1.0;
			c.s = 0.0;
		}
		c.dw = day_of_week(c.day);
		c.j = (int)(c.s / ENV_W);
		if (c.j >= ENV_BINS)
			c.j = ENV_BINS - 1;
	}
	double t = diurnal_step(tr, r, &c);
	if (t < from)
		t = from;
	tr->cur_day = c.day;
	tr->cur_s = c.s;
	tr->cur_dw = c.dw;
	tr->cur_j = c.j;
	tr->cur_ok = true; /* valid while tr->last = t */
	return t;
}

/* ======================================================================== */
/* trace reading                                                             */
/* ======================================================================== */
static void trace_err(aiwi_traffic *tr, const char *fmt, ...) AIW_PRINTF(2, 3);
static void trace_err(aiwi_traffic *tr, const char *fmt, ...)
{
	int n = snprintf(tr->errmsg, sizeof tr->errmsg, "%s:%llu: ", tr->path,
	                 (unsigned long long)tr->pass.line);
	if (n < 0 || (size_t)n >= sizeof tr->errmsg)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(tr->errmsg + n, sizeof tr->errmsg - (size_t)n, fmt, ap);
	va_end(ap);
}

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant,
 * "chrono-Compatible Low-Level Date Algorithms", days_from_civil). */
static int64_t days_from_civil(int64_t y, int m, int d)
{
	y -= m <= 2;
	int64_t era = (y >= 0 ? y : y - 399) / 400;
	int64_t yoe = y - era * 400;
	int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + doe - 719468;
}

static bool digits(const char *s, int n, int *out)
{
	int v = 0;
	for (int i = 0; i < n; i++) {
		if (!isdigit((unsigned char)s[i]))
			return false;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return true;
}

bool aiwi_trace_parse_datetime(const char *s, size_t len, int64_t *sec, int64_t *nsec)
{
	static const int mdays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	int Y, M, D, h, mi, se;
	if (len < 19 || !digits(s, 4, &Y) || s[4] != '-' || !digits(s + 5, 2, &M) ||
	    s[7] != '-' || !digits(s + 8, 2, &D) || (s[10] != ' ' && s[10] != 'T') ||
	    !digits(s + 11, 2, &h) || s[13] != ':' || !digits(s + 14, 2, &mi) || s[16] != ':' ||
	    !digits(s + 17, 2, &se))
		return false;
	bool leap = (Y % 4 == 0 && Y % 100 != 0) || Y % 400 == 0;
	/* a leap second, 23:59:60 (UTC, ISO 8601), counts as the next day's
	 * 00:00:00, as POSIX time does: equal times are allowed in order */
	if (M < 1 || M > 12 || D < 1 || D > mdays[M - 1] + (M == 2 && leap) || h > 23 ||
	    mi > 59 || se > 60 || (se == 60 && !(h == 23 && mi == 59)))
		return false;
	int64_t ns = 0;
	size_t i = 19;
	if (i < len) {
		if (s[i] != '.' || i + 1 == len)
			return false;
		int nd = 0;
		for (i++; i < len; i++) {
			if (!isdigit((unsigned char)s[i]))
				return false;
			if (nd < 9) {
				ns = ns * 10 + (s[i] - '0');
				nd++;
			}
		}
		for (; nd < 9; nd++)
			ns *= 10;
	}
	*sec = days_from_civil(Y, M, D) * 86400 + h * 3600 + mi * 60 + se;
	*nsec = ns;
	return true;
}

/* Strict decimal number (no hex, inf or nan): digits, sign, '.', exponent. */
static bool parse_number(const char *s, size_t len, double *out)
{
	char tmp[64];
	if (len == 0 || len >= sizeof tmp)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!isdigit((unsigned char)s[i]) && !strchr("+-.eE", s[i]))
			return false;
	memcpy(tmp, s, len);
	tmp[len] = 0;
	char *end;
	errno = 0;
	double v = strtod(tmp, &end);
	if (end != tmp + len || !isfinite(v) || errno == ERANGE)
		return false;
	*out = v;
	return true;
}

/* Up to 40 bytes of a field as a message shows them: control characters
 * escaped ("\\r", "\\t", "\\x1b"), so that a stray carriage return cannot
 * rewrite the terminal line the message is printed on. */
static const char *shown(const char *s, size_t len, char *out, size_t cap)
{
	size_t o = 0;
	for (size_t i = 0; i < len && i < 40 && o + 5 < cap; i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\r')
			o += (size_t)snprintf(out + o, cap - o, "\\r");
		else if (c == '\t')
			o += (size_t)snprintf(out + o, cap - o, "\\t");
		else if (c < 0x20 || c == 0x7f)
			o += (size_t)snprintf(out + o, cap - o, "\\x%02x", c);
		else
			out[o++] = (char)c;
	}
	out[o] = 0;
	return out;
}

typedef enum { LINE_OK, LINE_EOF, LINE_ERR } line_status;

/* Read one physical line into tr->buf (without "\n" or "\r\n"). */
static line_status read_line(aiwi_traffic *tr, size_t *len)
{
	size_t n = 0;
	bool nul = false, too_long = false;
	int c;
	/* Stop at the first NUL byte or the first byte past the limit: the rest
	 * of such a file is never read (a gigabyte hole is refused at once). */
	while ((c = getc(tr->f)) != EOF && c != '\n') {
		if (c == 0) {
			nul = true;
			break;
		}
		if (n >= AIW_TRACE_MAX_LINE) {
			too_long = true;
			break;
		}
		tr->buf[n++] = (char)c;
	}
	if (c == EOF && n == 0 && !nul && !too_long) {
		if (ferror(tr->f)) {
			tr->pass.line++;
			trace_err(tr, "read error: %s", strerror(errno));
			return LINE_ERR;
		}
		return LINE_EOF;
	}
	tr->pass.line++;
	if (nul) {
		trace_err(tr, "NUL byte in the line: not a text CSV file");
		return LINE_ERR;
	}
	if (too_long) {
		trace_err(tr, "line longer than %d bytes", AIW_TRACE_MAX_LINE);
		return LINE_ERR;
	}
	if (n > 0 && tr->buf[n - 1] == '\r')
		n--;
	tr->buf[n] = 0;
	const char *cr = memchr(tr->buf, '\r', n);
	if (cr) {
		/* a file whose lines end with CR alone (classic Mac OS) reads as one
		 * line: say so, rather than count its fields */
		char sh[4 * 40 + 1];
		size_t at = (size_t)(cr - tr->buf);
		size_t from = at > 20 ? at - 20 : 0;
		trace_err(tr,
		          "carriage return (\\r) inside the line, at byte %zu ('%s'): lines must "
		          "end with LF or CR LF (a file whose lines end with CR alone is one line)",
		          at + 1, shown(tr->buf + from, n - from, sh, sizeof sh));
		return LINE_ERR;
	}
	*len = n;
	return LINE_OK;
}

typedef struct field {
	const char *s;
	size_t len;
} field;

/* Split on commas, trimming blanks and one pair of double quotes. */
static int split_fields(char *line, size_t len, field *f, int max)
{
	int n = 0;
	size_t i = 0;
	for (;;) {
		size_t j = i;
		while (j < len && line[j] != ',')
			j++;
		size_t a = i, b = j;
		while (a < b && (line[a] == ' ' || line[a] == '\t'))
			a++;
		while (b > a && (line[b - 1] == ' ' || line[b - 1] == '\t'))
			b--;
		if (b - a >= 2 && line[a] == '"' && line[b - 1] == '"') {
			a++;
			b--;
		}
		if (n < max) {
			f[n].s = line + a;
			f[n].len = b - a;
		}
		n++;
		if (j >= len)
			break;
		i = j + 1;
	}
	return n;
}

static const char *const FIELD_NAMES[MAX_FIELDS] = {"timestamp", "ContextTokens (prompt tokens)",
                                                    "GeneratedTokens (output tokens)"};

typedef enum { ROW_DATA, ROW_SKIP, ROW_EOF, ROW_ERR } row_status;

/* Next data row of the current pass: relative trace time and tokens. */
static row_status next_row(aiwi_traffic *tr, double *rel, double *prompt, double *output)
{
	for (;;) {
		size_t len;
		line_status ls = read_line(tr, &len);
		if (ls == LINE_EOF)
			return ROW_EOF;
		if (ls == LINE_ERR)
			return ROW_ERR;
		char *p = tr->buf;
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '#')
			continue; /* blank line or comment */
		field f[MAX_FIELDS];
		char sh[4 * 40 + 1]; /* a field as messages show it */
		int nf = split_fields(tr->buf, len, f, MAX_FIELDS);
		/* a header: the first non-blank line, not starting like a number */
		bool first = !tr->pass.seen_content;
		tr->pass.seen_content = true;
		if (first && f[0].len > 0 && !isdigit((unsigned char)f[0].s[0]) &&
		    !strchr("+-.", f[0].s[0]))
			continue;
		if (tr->nfields == 0) {
			if (nf != 1 && nf != 3) {
				trace_err(tr,
				          "expected 3 fields (timestamp,prompt tokens,output tokens) "
				          "or the timestamp alone, found %d",
				          nf);
				return ROW_ERR;
			}
			tr->nfields = nf;
		} else if (nf != tr->nfields) {
			trace_err(tr, "found %d fields where the first row has %d", nf, tr->nfields);
			return ROW_ERR;
		}
		/* timestamp */
		int64_t sec = 0, nsec = 0;
		double secs = 0.0;
		bool is_dt = aiwi_trace_parse_datetime(f[0].s, f[0].len, &sec, &nsec);
		bool is_num = !is_dt && parse_number(f[0].s, f[0].len, &secs);
		if (!is_dt && !is_num) {
			trace_err(tr,
			          "timestamp '%s' is neither 'YYYY-MM-DD HH:MM:SS[.fraction]' "
			          "nor a number of seconds",
			          shown(f[0].s, f[0].len, sh, sizeof sh));
			return ROW_ERR;
		}
		ts_format fmt = is_dt ? TS_DATETIME : TS_SECONDS;
		if (tr->fmt == TS_UNKNOWN) {
			tr->fmt = fmt;
			tr->sec0 = sec;
			tr->nsec0 = nsec;
			tr->t0 = secs;
		} else if (fmt != tr->fmt) {
			trace_err(tr, "timestamp '%s' is %s but the first row's is %s",
			          shown(f[0].s, f[0].len, sh, sizeof sh),
			          is_dt ? "a date and time" : "a number of seconds",
			          is_dt ? "a number of seconds" : "a date and time");
			return ROW_ERR;
		}
		double r = fmt == TS_DATETIME
		               ? (double)(sec - tr->sec0) + (double)(nsec - tr->nsec0) * 1e-9
		               : secs - tr->t0;
		if (tr->pass.rows > 0 && r < tr->pass.prev_rel) {
			trace_err(tr,
			          "timestamp '%s' is earlier than the previous row's (line %llu): "
			          "rows must be in time order (equal times are allowed)",
			          shown(f[0].s, f[0].len, sh, sizeof sh),
			          (unsigned long long)tr->pass.prev_line);
			return ROW_ERR;
		}
		if (r < 0.0) { /* only possible for the numeric form before row 1 */
			trace_err(tr, "timestamp before the first row's");
			return ROW_ERR;
		}
		if (!(r <= 1e15)) { /* ~31.7 million years: keeps every span finite */
			trace_err(tr, "timestamp '%s' is more than 1e15 s after the first row's",
			          shown(f[0].s, f[0].len, sh, sizeof sh));
			return ROW_ERR;
		}
		double tok[MAX_FIELDS] = {NAN, NAN, NAN};
		for (int k = 1; k < nf; k++) {
			if (!parse_number(f[k].s, f[k].len, &tok[k]) || tok[k] < 0.0) {
				trace_err(tr, "%s '%s' is not a number >= 0", FIELD_NAMES[k],
				          shown(f[k].s, f[k].len, sh, sizeof sh));
				return ROW_ERR;
			}
		}
		tr->pass.rows++;
		tr->pass.prev_rel = r;
		tr->pass.prev_line = tr->pass.line;
		*rel = r;
		*prompt = tok[1];
		*output = tok[2];
		return ROW_DATA;
	}
}

static aiw_status trace_rewind(aiwi_traffic *tr)
{
	errno = 0;
	if (fseek(tr->f, 0L, SEEK_SET) != 0) {
		snprintf(tr->errmsg, sizeof tr->errmsg, "%s: cannot rewind: %s", tr->path,
		         strerror(errno));
		return AIW_EIO;
	}
	clearerr(tr->f);
	memset(&tr->pass, 0, sizeof tr->pass);
	return AIW_OK;
}

/* Count one row at trace time rel into the profile, doubling the bin
 * width (merging pairs) when it falls past the last bin. */
static void profile_add(aiwi_traffic *tr, double rel)
{
	double b = floor(rel / tr->bin_w);
	while (b >= (double)AIW_TRACE_PROFILE_BINS) {
		for (size_t j = 0; j < AIW_TRACE_PROFILE_BINS / 2; j++)
			tr->cum[j] = tr->cum[2 * j] + tr->cum[2 * j + 1];
		for (size_t j = AIW_TRACE_PROFILE_BINS / 2; j < AIW_TRACE_PROFILE_BINS; j++)
			tr->cum[j] = 0.0;
		tr->bin_w *= 2.0;
		b = floor(rel / tr->bin_w);
	}
	tr->cum[(size_t)b] += 1.0;
}

/* First pass at creation: validate every row, gather the facts, build the
 * profile (counts per bin, turned into prefix sums at the end). */
static aiw_status trace_scan(aiwi_traffic *tr, char *err, size_t errlen)
{
	tr->cum = calloc(AIW_TRACE_PROFILE_BINS + 1, sizeof *tr->cum);
	if (!tr->cum)
		return AIW_ENOMEM;
	tr->bin_w = AIW_TRACE_PROFILE_MIN_BIN;
	double rel = 0.0, p, o, sum_p = 0.0, sum_o = 0.0, span = 0.0;
	row_status rs;
	while ((rs = next_row(tr, &rel, &p, &o)) == ROW_DATA) {
		span = rel;
		sum_p += p;
		sum_o += o;
		profile_add(tr, rel);
	}
	if (rs == ROW_ERR)
		return aiwi_buferr(err, errlen, AIW_EPARSE, "%s", tr->errmsg);
	uint64_t rows = tr->pass.rows;
	if (rows == 0)
		return aiwi_buferr(err, errlen, AIW_EPARSE, "%s: no data rows", tr->path);
	if (tr->loop && !(rows >= 2 && span > 0.0))
		return aiwi_buferr(err, errlen, AIW_EINVAL,
		                   "%s: a looping trace needs at least 2 rows spanning a positive "
		                   "time (%llu rows over %g s)",
		                   tr->path, (unsigned long long)rows, span);
	tr->period_trace = rows >= 2 ? span * (double)rows / (double)(rows - 1) : 0.0;
	tr->period_sim = tr->period_trace / tr->time_scale;
	double cover = tr->period_trace > 0.0 ? tr->period_trace : tr->bin_w;
	double nb = ceil(cover / tr->bin_w); /* finite: timestamps are bounded */
	tr->nbins = !(nb < (double)AIW_TRACE_PROFILE_BINS) ? AIW_TRACE_PROFILE_BINS
	            : nb < 1.0                              ? 1
	                                                    : (size_t)nb;
	if (tr->nbins < 1)
		tr->nbins = 1;
	if (tr->nbins > AIW_TRACE_PROFILE_BINS)
		tr->nbins = AIW_TRACE_PROFILE_BINS;
	/* counts -> prefix sums: cum[j] = rows in bins [0, j) */
	double acc = 0.0;
	for (size_t j = 0; j <= tr->nbins; j++) {
		double c = j < AIW_TRACE_PROFILE_BINS ? tr->cum[j] : 0.0;
		tr->cum[j] = acc;
		acc += c;
	}
	tr->cum[tr->nbins] = (double)rows; /* rows beyond nbins (none) fold in */
	tr->info.rows = rows;
	tr->info.fields = tr->nfields;
	tr->info.span_s = span;
	tr->info.period_s = tr->period_sim;
	tr->info.mean_prompt = tr->nfields == 3 ? sum_p / (double)rows : NAN;
	tr->info.mean_output = tr->nfields == 3 ? sum_o / (double)rows : NAN;
	if (trace_rewind(tr) != AIW_OK)
		return aiwi_buferr(err, errlen, AIW_EIO, "%s", tr->errmsg);
	return AIW_OK;
}

/* Expected rows in trace time [0, tau] of one pass (tau in [0, period]). */
static double trace_cum(const aiwi_traffic *tr, double tau)
{
	if (tau <= 0.0)
		return 0.0;
	double end = tr->period_trace > 0.0 ? tr->period_trace : tr->bin_w;
	if (tau >= end)
		return tr->cum[tr->nbins];
	size_t j = (size_t)(tau / tr->bin_w);
	if (j >= tr->nbins)
		return tr->cum[tr->nbins];
	double lo = (double)j * tr->bin_w;
	double hi = fmin(lo + tr->bin_w, end);
	return tr->cum[j] + (tr->cum[j + 1] - tr->cum[j]) * (tau - lo) / (hi - lo);
}

/* Expected rows in simulated [0, t]. */
static double trace_expected(const aiwi_traffic *tr, double t)
{
	if (t <= 0.0)
		return 0.0;
	if (!tr->loop || tr->period_sim <= 0.0)
		return trace_cum(tr, t * tr->time_scale);
	double k = floor(t / tr->period_sim);
	double rem = t - k * tr->period_sim;
	return k * (double)tr->info.rows + trace_cum(tr, rem * tr->time_scale);
}

/* ======================================================================== */
/* create / free / reset                                                     */
/* ======================================================================== */
void aiwi_traffic_free(aiwi_traffic *tr)
{
	if (!tr)
		return;
	if (tr->f)
		fclose(tr->f);
	if (tr->solver)
		gsl_root_fsolver_free(tr->solver);
	free(tr->cum);
	free(tr->env);
	free(tr->path);
	free(tr->prefix);
	free(tr);
}

static aiw_status validate(const aiwi_traffic_conf *c, const char *px, char *err, size_t len)
{
	if ((unsigned)c->kind > AIW_TRAFFIC_BATCH)
		return aiwi_buferr(err, len, AIW_EINVAL,
		                   "%skind = %d is unknown: expected poisson, diurnal, bursty, "
		                   "trace or batch",
		                   px, (int)c->kind);
	if (c->kind == AIW_TRAFFIC_BATCH) {
		if (!(c->batch_requests >= 1 && c->batch_requests <= 1e9 &&
		      c->batch_requests == floor(c->batch_requests)))
			return range_err(err, len, px, "batch_requests", c->batch_requests, "",
			                 "a whole number, 1 <= batch_requests <= 1e9");
		if (!(c->batch_start >= 0 && c->batch_start <= 3.2e9))
			return range_err(err, len, px, "batch_start", c->batch_start, " s",
			                 "0 <= batch_start <= 3.2e9 s");
	} else if (c->kind != AIW_TRAFFIC_TRACE) {
		if (!(c->rate >= 0.0 && c->rate <= AIW_TRAFFIC_MAX_RATE))
			return range_err(err, len, px, "rate", c->rate, " /s", "0 <= rate <= 1e9 /s");
	}
	bool diurnal = c->kind == AIW_TRAFFIC_DIURNAL || (c->kind == AIW_TRAFFIC_BURSTY && c->modulate);
	if (diurnal) {
		if (!(c->peak_to_trough >= 1.0 && c->peak_to_trough <= AIW_TRAFFIC_MAX_RATIO))
			return range_err(err, len, px, "peak_to_trough", c->peak_to_trough, "",
			                 "1 <= peak_to_trough <= 1e6 (peak rate / trough rate)");
		if (!(c->peak_hour >= 0.0 && c->peak_hour < 24.0))
			return range_err(err, len, px, "peak_hour", c->peak_hour, " h",
			                 "0 <= peak_hour < 24 (hour of day of the peak)");
		if (!(c->weekend_factor >= 0.0 && c->weekend_factor <= AIW_TRAFFIC_MAX_WEEKEND))
			return range_err(err, len, px, "weekend_factor", c->weekend_factor, "",
			                 "0 <= weekend_factor <= 1000 (rate multiplier on days 5 "
			                 "and 6, day 0 = Monday)");
	}
	if (c->kind == AIW_TRAFFIC_BURSTY && !(c->cv > 0.0 && c->cv <= AIW_TRAFFIC_MAX_CV))
		return range_err(err, len, px, "cv", c->cv, "",
		                 "0 < cv <= 100 (coefficient of variation of interarrival times)");
	if (c->kind == AIW_TRAFFIC_TRACE) {
		if (!c->trace_path || !*c->trace_path)
			return aiwi_buferr(err, len, AIW_EINVAL,
			                   "%strace_path is not set: a trace needs a CSV file", px);
		if (!(c->time_scale > 0.0 && c->time_scale <= AIW_TRAFFIC_MAX_TIME_SCALE))
			return range_err(err, len, px, "time_scale", c->time_scale, "",
			                 "0 < time_scale <= 1e9 (> 1 replays faster)");
	}
	return AIW_OK;
}

aiw_status aiwi_traffic_new(aiwi_traffic **out, const aiwi_traffic_conf *conf, char *err,
                           size_t errlen)
{
	if (!out || !conf)
		return aiwi_buferr(err, errlen, AIW_EINVAL, "traffic: NULL argument");
	*out = NULL;
	char px[256] = "";
	if (conf->prefix && *conf->prefix)
		snprintf(px, sizeof px, "%s.", conf->prefix);
	aiw_status st = validate(conf, px, err, errlen);
	if (st != AIW_OK)
		return st;
	aiwi_rng_exp_init();
	aiwi_traffic *tr = calloc(1, sizeof *tr);
	if (!tr || !(tr->prefix = dup_str(px))) {
		free(tr);
		return aiwi_buferr(err, errlen, AIW_ENOMEM, "traffic: out of memory");
	}
	tr->kind = conf->kind;
	tr->rate = conf->rate;
	if (conf->kind == AIW_TRAFFIC_BATCH) {
		tr->batch_n = tr->batch_left = conf->batch_requests;
		tr->batch_start = conf->batch_start;
	}
	bool diurnal = conf->kind == AIW_TRAFFIC_DIURNAL ||
	               (conf->kind == AIW_TRAFFIC_BURSTY && conf->modulate);
	double r = diurnal ? conf->peak_to_trough : 1.0;
	tr->a = (r - 1.0) / (r + 1.0);
	tr->peak_hour = diurnal ? conf->peak_hour : 0.0;
	tr->phi = 2.0 * M_PI * (6.0 - tr->peak_hour) / 24.0;
	tr->max_w = 1.0;
	tr->cumday[0] = 0.0;
	for (int d = 0; d < 7; d++) {
		tr->w[d] = diurnal && d >= 5 ? conf->weekend_factor : 1.0;
		if (tr->w[d] > tr->max_w)
			tr->max_w = tr->w[d];
		tr->cumday[d + 1] = tr->cumday[d] + tr->w[d] * DAY_S;
	}
	tr->week_m = tr->cumday[7];
	tr->inv_rate = conf->rate > 0.0 ? 1.0 / conf->rate : 0.0;
	if (conf->kind == AIW_TRAFFIC_DIURNAL && !env_build(tr)) {
		aiwi_traffic_free(tr);
		return aiwi_buferr(err, errlen, AIW_ENOMEM, "traffic: out of memory");
	}
	tr->modulate = conf->kind == AIW_TRAFFIC_BURSTY && conf->modulate;
	tr->cv = conf->cv;
	if (conf->kind == AIW_TRAFFIC_BURSTY) {
		tr->shape = 1.0 / (conf->cv * conf->cv);
		tr->scale_m = conf->rate > 0.0 ? conf->cv * conf->cv / conf->rate : 0.0;
	}
	if (tr->modulate && tr->a > 0.0) {
		tr->solver = gsl_root_fsolver_alloc(gsl_root_fsolver_brent);
		if (!tr->solver) {
			aiwi_traffic_free(tr);
			return aiwi_buferr(err, errlen, AIW_ENOMEM, "traffic: out of memory");
		}
	}
	if (conf->kind == AIW_TRAFFIC_TRACE) {
		tr->time_scale = conf->time_scale;
		tr->loop = conf->loop;
		const char *p = conf->trace_path;
		size_t need = strlen(p) + 1;
		bool rel = p[0] != '/' && conf->base_dir && *conf->base_dir;
		if (rel)
			need += strlen(conf->base_dir) + 1;
		tr->path = malloc(need);
		if (!tr->path) {
			aiwi_traffic_free(tr);
			return aiwi_buferr(err, errlen, AIW_ENOMEM, "traffic: out of memory");
		}
		if (rel)
			snprintf(tr->path, need, "%s/%s", conf->base_dir, p);
		else
			memcpy(tr->path, p, need);
		errno = 0;
		tr->f = fopen(tr->path, "rb");
		if (!tr->f) {
			st = aiwi_buferr(err, errlen, AIW_EIO, "%strace_path: cannot open '%s': %s", px,
			                 tr->path, strerror(errno));
			aiwi_traffic_free(tr);
			return st;
		}
		st = trace_scan(tr, err, errlen);
		if (st != AIW_OK) {
			aiwi_traffic_free(tr);
			return st;
		}
		tr->errmsg[0] = 0;
	}
	*out = tr;
	return AIW_OK;
}

aiw_status aiwi_traffic_reset(aiwi_traffic *tr)
{
	if (!tr)
		return AIW_EINVAL;
	tr->last = 0.0;
	tr->op_m = 0.0;
	tr->cur_ok = false;
	tr->errmsg[0] = 0;
	tr->batch_left = tr->batch_n;
	if (tr->kind == AIW_TRAFFIC_TRACE) {
		tr->offset = 0.0;
		tr->ended = false;
		tr->failed = false;
		return trace_rewind(tr);
	}
	return AIW_OK;
}

aiw_status aiwi_traffic_trace_info(const aiwi_traffic *tr, aiwi_trace_info *out)
{
	if (!tr || !out || tr->kind != AIW_TRAFFIC_TRACE)
		return AIW_EINVAL;
	*out = tr->info;
	return AIW_OK;
}

/* ======================================================================== */
/* sampling                                                                  */
/* ======================================================================== */
static double next_trace(aiwi_traffic *tr, double from, double *prompt, double *output)
{
	for (;;) {
		if (tr->failed)
			return NAN;
		if (tr->ended)
			return INFINITY;
		/* a pass that would end before `from`: skip whole periods */
		if (tr->loop && tr->pass.line == 0 && from > tr->offset + tr->period_sim)
			tr->offset += floor((from - tr->offset) / tr->period_sim) * tr->period_sim;
		double rel, p, o;
		row_status rs = next_row(tr, &rel, &p, &o);
		if (rs == ROW_ERR) {
			tr->failed = true;
			return NAN;
		}
		if (rs == ROW_EOF) {
			if (tr->pass.rows != tr->info.rows) {
				snprintf(tr->errmsg, sizeof tr->errmsg,
				         "%s: the file changed during the run (%llu rows, %llu at start)",
				         tr->path, (unsigned long long)tr->pass.rows,
				         (unsigned long long)tr->info.rows);
				tr->failed = true;
				return NAN;
			}
			if (!tr->loop) {
				tr->ended = true;
				return INFINITY;
			}
			if (trace_rewind(tr) != AIW_OK) {
				tr->failed = true;
				return NAN;
			}
			tr->offset += tr->period_sim;
			continue;
		}
		double t = tr->offset + rel / tr->time_scale;
		if (t < from)
			continue;
		*prompt = p;
		*output = o;
		return t;
	}
}

double aiwi_traffic_next(aiwi_traffic *tr, gsl_rng *r, double now, double *prompt_tokens,
                        double *output_tokens)
{
	double p = NAN, o = NAN, t;
	double from = now > tr->last ? now : tr->last; /* NaN now: from last */
	switch (tr->kind) {
	case AIW_TRAFFIC_POISSON:
		/* exponential by inversion: -log U, U uniform on (0, 1) */
		t = tr->rate > 0.0 ? from + aiwi_rng_exponential(r) * tr->inv_rate : INFINITY;
		break;
	case AIW_TRAFFIC_DIURNAL:
		t = tr->rate > 0.0 ? next_diurnal(tr, r, from) : INFINITY;
		break;
	case AIW_TRAFFIC_BURSTY:
		if (tr->rate <= 0.0) {
			t = INFINITY;
			break;
		}
		if (!tr->modulate) {
			t = from + gsl_ran_gamma(r, tr->shape, tr->scale_m);
			break;
		}
		if (from > tr->last) /* (re)start the renewal at `from` */
			tr->op_m = profile_int(tr, from);
		tr->op_m += gsl_ran_gamma(r, tr->shape, tr->scale_m);
		t = profile_inverse(tr, tr->op_m);
		if (t < from) /* rounding of M^-1 at the last ulp */
			t = from;
		break;
	case AIW_TRAFFIC_TRACE:
		t = next_trace(tr, from, &p, &o);
		break;
	case AIW_TRAFFIC_BATCH: /* every request at the start (or now, if later) */
		if (tr->batch_left >= 1) {
			tr->batch_left -= 1;
			t = from > tr->batch_start ? from : tr->batch_start;
		} else {
			t = INFINITY;
		}
		break;
	default:
		t = NAN;
	}
	if (isfinite(t))
		tr->last = t;
	if (prompt_tokens)
		*prompt_tokens = p;
	if (output_tokens)
		*output_tokens = o;
	return t;
}

size_t aiwi_traffic_next_n(aiwi_traffic *tr, gsl_rng *r, double now, double *t, size_t n)
{
	if (tr->kind == AIW_TRAFFIC_TRACE || n == 0)
		return 0;
	if (tr->kind == AIW_TRAFFIC_DIURNAL && tr->rate > 0.0) {
		/* the first as aiwi_traffic_next, the rest from the cursor it
		 * leaves (all finite) */
		double prev = aiwi_traffic_next(tr, r, now, NULL, NULL);
		t[0] = prev;
		struct dcur c = {tr->cur_day, tr->cur_s, tr->cur_dw, tr->cur_j};
		for (size_t k = 1; k < n; k++) {
			double x = diurnal_step(tr, r, &c);
			prev = t[k] = x < prev ? prev : x;
		}
		tr->cur_day = c.day;
		tr->cur_s = c.s;
		tr->cur_dw = c.dw;
		tr->cur_j = c.j;
		tr->last = prev;
		return n;
	}
	size_t k = 0;
	while (k < n) {
		double x = aiwi_traffic_next(tr, r, now, NULL, NULL);
		t[k++] = x;
		if (!isfinite(x))
			break;
		now = x;
	}
	return k;
}

double aiwi_traffic_rate(const aiwi_traffic *tr, double t)
{
	switch (tr->kind) {
	case AIW_TRAFFIC_POISSON:
		return tr->rate;
	case AIW_TRAFFIC_DIURNAL:
		return tr->rate * profile_m(tr, t);
	case AIW_TRAFFIC_BURSTY:
		return tr->modulate ? tr->rate * profile_m(tr, t) : tr->rate;
	case AIW_TRAFFIC_TRACE: {
		if (t < 0.0 || (!tr->loop && t >= tr->period_sim && tr->period_sim > 0.0))
			return 0.0;
		double tau = tr->loop ? fmod(t, tr->period_sim) * tr->time_scale : t * tr->time_scale;
		double end = tr->period_trace > 0.0 ? tr->period_trace : tr->bin_w;
		size_t j = (size_t)(tau / tr->bin_w);
		if (j >= tr->nbins)
			return 0.0;
		double lo = (double)j * tr->bin_w, hi = fmin(lo + tr->bin_w, end);
		return (tr->cum[j + 1] - tr->cum[j]) / (hi - lo) * tr->time_scale;
	}
	case AIW_TRAFFIC_BATCH: /* a point mass at batch_start: no rate */
		return 0.0;
	}
	return NAN;
}

double aiwi_traffic_integral(const aiwi_traffic *tr, double t0, double t1)
{
	if (!(t1 > t0))
		return 0.0;
	switch (tr->kind) {
	case AIW_TRAFFIC_POISSON:
		return tr->rate * (t1 - t0);
	case AIW_TRAFFIC_DIURNAL:
		return tr->rate * (profile_int(tr, t1) - profile_int(tr, t0));
	case AIW_TRAFFIC_BURSTY:
		return tr->modulate ? tr->rate * (profile_int(tr, t1) - profile_int(tr, t0))
		                    : tr->rate * (t1 - t0);
	case AIW_TRAFFIC_TRACE:
		return trace_expected(tr, t1) - trace_expected(tr, t0);
	case AIW_TRAFFIC_BATCH: /* [t0, t1) holds the start or not */
		return t0 <= tr->batch_start && tr->batch_start < t1 ? tr->batch_n : 0.0;
	}
	return NAN;
}

double aiwi_traffic_mean_rate(const aiwi_traffic *tr)
{
	switch (tr->kind) {
	case AIW_TRAFFIC_POISSON:
		return tr->rate;
	case AIW_TRAFFIC_DIURNAL:
		return tr->rate * tr->week_m / WEEK_S;
	case AIW_TRAFFIC_BURSTY:
		return tr->modulate ? tr->rate * tr->week_m / WEEK_S : tr->rate;
	case AIW_TRAFFIC_TRACE:
		return tr->period_sim > 0.0 ? (double)tr->info.rows / tr->period_sim : NAN;
	case AIW_TRAFFIC_BATCH: /* one job, no long-run rate */
		return 0.0;
	}
	return NAN;
}
