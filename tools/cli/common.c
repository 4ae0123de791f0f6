/*
 * common.c - messages, exit statuses, the option parser, the check of
 * outputs against inputs and number formatting shared by the commands
 * (common.h).
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include "common.h"

#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char *cli_prog = "aiworkload";

void cli_errorf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s: ", cli_prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

int cli_exit_code(aiw_status st)
{
	switch (st) {
	case AIW_OK:
		return 0;
	case AIW_EINVAL:
	case AIW_EUNKNOWN:
	case AIW_ERANGE:
	case AIW_EPARSE:
	case AIW_ESCENARIO:
	case AIW_ELIMIT:
		return EXIT_USAGE;
	default:
		return EXIT_FAIL;
	}
}

int cli_usage_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s: ", cli_prog);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\nTry 'aiworkload --help'.\n");
	va_end(ap);
	return EXIT_USAGE;
}

static void vcmd_error(const cli_cmd *who, const char *fmt, va_list ap)
{
	const char *prog = who->prog ? who->prog : cli_prog;
	if (who->cmd)
		fprintf(stderr, "%s %s: ", prog, who->cmd);
	else
		fprintf(stderr, "%s: ", prog);
	vfprintf(stderr, fmt, ap);
	if (who->cmd)
		fprintf(stderr, "\nTry '%s %s --help'.\n", prog, who->cmd);
	else
		fprintf(stderr, "\nTry '%s --help'.\n", prog);
}

int cli_cmd_usage_error(const cli_cmd *who, const char *fmt, ...)
{
	if (who->quiet)
		return EXIT_USAGE;
	va_list ap;
	va_start(ap, fmt);
	vcmd_error(who, fmt, ap);
	va_end(ap);
	return EXIT_USAGE;
}

/* The name of names ("--plot|--output|-o") that a is, with its length;
 * NULL when none.  *eq: a is "NAME=VALUE". */
static const char *match_name(const char *names, const char *a, size_t *len, bool *eq)
{
	for (const char *p = names; *p;) {
		size_t n = strcspn(p, "|");
		if (strncmp(a, p, n) == 0 && (a[n] == 0 || a[n] == '=')) {
			*len = n;
			*eq = a[n] == '=';
			return p;
		}
		p += n + (p[n] == '|');
	}
	return NULL;
}

int cli_parse_options(const cli_cmd *who, int argc, char **argv, int first, const cli_opt *opts,
                      size_t nopts, const char **ops, size_t *nops, bool *help)
{
	*nops = 0;
	if (help)
		*help = false;
	for (size_t k = 0; k < nopts; k++) {
		if (opts[k].value)
			*opts[k].value = NULL;
		if (opts[k].n)
			*opts[k].n = 0;
	}
	for (int i = first; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--") == 0) {
			for (i++; i < argc; i++)
				ops[(*nops)++] = argv[i];
			break;
		}
		if (a[0] != '-' || strcmp(a, "-") == 0) {
			ops[(*nops)++] = a;
			continue;
		}
		if (help && (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)) {
			*help = true;
			return 0;
		}
		const cli_opt *o = NULL;
		size_t len = 0;
		bool eq = false;
		for (size_t k = 0; k < nopts && !o; k++)
			if (match_name(opts[k].names, a, &len, &eq))
				o = &opts[k];
		if (!o)
			return cli_cmd_usage_error(who, "unknown option '%s'", a);
		size_t nl = strcspn(o->names, "|");
		if (o->kind == CLI_OPT_FLAG) {
			if (eq)
				return cli_cmd_usage_error(who, "option %.*s takes no value", (int)len, a);
			if (*o->value) {
				if (strcmp(*o->value, a) == 0)
					return cli_cmd_usage_error(who, "%s given twice: give it once", a);
				return cli_cmd_usage_error(who, "%s and %s given both: give one", *o->value, a);
			}
			*o->value = a;
			continue;
		}
		const char *v;
		if (eq) {
			v = a + len + 1;
		} else if (i + 1 >= argc) {
			return cli_cmd_usage_error(who, "option %.*s needs a value", (int)len, a);
		} else {
			v = argv[++i];
		}
		if (o->kind == CLI_OPT_MANY) {
			o->list[(*o->n)++] = v;
		} else if (*o->value) {
			/* every spelling of it names it: "--plot given twice" */
			return cli_cmd_usage_error(who, "%.*s given twice ('%s' and '%s'): give it once",
			                           (int)nl, o->names, *o->value, v);
		} else {
			*o->value = v;
		}
	}
	return 0;
}

int cli_files_add(cli_files *l, const char *what, const char *path)
{
	if (!path)
		return 0;
	if (l->n == l->cap) {
		size_t cap = l->cap ? 2 * l->cap : 8;
		cli_file *v = realloc(l->v, cap * sizeof *v);
		if (!v) {
			cli_errorf("out of memory");
			return EXIT_FAIL;
		}
		l->v = v;
		l->cap = cap;
	}
	char *w = strdup(what);
	if (!w) {
		cli_errorf("out of memory");
		return EXIT_FAIL;
	}
	l->v[l->n++] = (cli_file){w, path};
	return 0;
}

int cli_files_add_sim(cli_files *l, aiw_sim *sim)
{
	size_t n = 0;
	if (aiw_sim_input_count(sim, &n) != AIW_OK)
		return 0;
	for (size_t i = 0; i < n; i++) {
		const char *comp, *key, *path;
		if (aiw_sim_input(sim, i, &comp, &key, &path) != AIW_OK)
			continue;
		size_t len = strlen(comp) + strlen(key) + 32;
		char *what = malloc(len);
		if (!what) {
			cli_errorf("out of memory");
			return EXIT_FAIL;
		}
		snprintf(what, len, "the file %s.%s names", comp, key);
		int rc = cli_files_add(l, what, path);
		free(what);
		if (rc)
			return rc;
	}
	return 0;
}

void cli_files_free(cli_files *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i].what);
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}

int cli_check_outputs(const cli_cmd *who, const cli_files *out, const cli_files *in)
{
	for (size_t i = 0; i < out->n; i++) {
		const cli_file *o = &out->v[i];
		for (size_t k = 0; in && k < in->n; k++)
			if (cli_same_file(o->path, in->v[k].path))
				return cli_cmd_usage_error(who, "%s %s would overwrite %s, '%s'", o->what,
				                           o->path, in->v[k].what, in->v[k].path);
		for (size_t k = 0; k < i; k++)
			if (cli_same_file(o->path, out->v[k].path))
				return cli_cmd_usage_error(who, "%s and %s name the same file ('%s' and '%s')",
				                           out->v[k].what, o->what, out->v[k].path, o->path);
	}
	return 0;
}

/* ======================================================================== */
/* number formatting                                                         */
/* ======================================================================== */
/* 1234567.8 -> "1,234,568" */
void cli_fmt_group(char *buf, size_t len, double x, int decimals)
{
	char tmp[400]; /* DBL_MAX has 309 digits */
	if (decimals < 0 || decimals > 30)
		decimals = decimals < 0 ? 0 : 30;
	snprintf(tmp, sizeof tmp, "%.*f", decimals, fabs(x));
	char *dot = strchr(tmp, '.');
	size_t ilen = dot ? (size_t)(dot - tmp) : strlen(tmp);
	size_t o = 0;
	if (x < 0 && o + 1 < len)
		buf[o++] = '-';
	for (size_t i = 0; i < ilen && o + 1 < len; i++) {
		if (i && (ilen - i) % 3 == 0 && o + 1 < len)
			buf[o++] = ',';
		buf[o++] = tmp[i];
	}
	for (const char *p = dot; p && *p && o + 1 < len; p++)
		buf[o++] = *p;
	buf[o] = 0;
}

void cli_fmt_duration(char *buf, size_t len, double s)
{
	double a = fabs(s);
	if (a == 0)
		snprintf(buf, len, "0 s");
	else if (a < 1e-3)
		snprintf(buf, len, "%.3g us", s * 1e6);
	else if (a < 1)
		snprintf(buf, len, "%.3g ms", s * 1e3);
	else if (a < 120)
		snprintf(buf, len, "%.4g s", s);
	else if (a < 7200)
		snprintf(buf, len, "%.4g min", s / 60);
	else if (a < 3 * 86400.0)
		snprintf(buf, len, "%.4g h", s / 3600);
	else
		snprintf(buf, len, "%.4g days", s / 86400);
}

bool cli_ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcmp(s + a - b, suffix) == 0;
}

double cli_elapsed(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + 1e-9 * (double)(b->tv_nsec - a->tv_nsec);
}

/* "training.pretrain.goodput" -> kind, component name, key */
void cli_split_metric(const char *full, char *kind, size_t kl, char *comp, size_t cl,
                      const char **key)
{
	const char *d1 = strchr(full, '.');
	if (!d1) {
		snprintf(kind, kl, "%s", "");
		snprintf(comp, cl, "%s", "");
		*key = full;
		return;
	}
	snprintf(kind, kl, "%.*s", (int)(d1 - full), full);
	bool singleton = strcmp(kind, "site") == 0 || strcmp(kind, "sim") == 0;
	const char *d2 = singleton ? NULL : strchr(d1 + 1, '.');
	if (d2) {
		snprintf(comp, cl, "%.*s", (int)(d2 - d1 - 1), d1 + 1);
		*key = d2 + 1;
	} else {
		snprintf(comp, cl, "%s", "");
		*key = d1 + 1;
	}
}


/* "DIR/NAME" with DIR resolved (NULL when DIR does not resolve). */
static char *canonical(const char *path)
{
	char *d = strdup(path), *b = strdup(path), *out = NULL;
	if (d && b) {
		char *dir = realpath(dirname(d), NULL);
		const char *name = basename(b);
		if (dir) {
			size_t n = strlen(dir) + strlen(name) + 2;
			out = malloc(n);
			if (out)
				snprintf(out, n, "%s/%s", dir, name);
			free(dir);
		}
	}
	free(d);
	free(b);
	return out;
}

bool cli_same_file(const char *a, const char *b)
{
	struct stat sa, sb;
	bool ea = stat(a, &sa) == 0, eb = stat(b, &sb) == 0;
	if (ea && eb)
		return S_ISREG(sa.st_mode) && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
	if (ea != eb)
		return false;
	/* neither exists yet: the same place? */
	char *ca = canonical(a), *cb = canonical(b);
	bool same = ca && cb ? strcmp(ca, cb) == 0 : strcmp(a, b) == 0;
	free(ca);
	free(cb);
	return same;
}

int cli_flush_stdout(void)
{
	if (fflush(stdout) != 0 || ferror(stdout)) {
		cli_errorf("error writing standard output: %s", strerror(errno ? errno : EIO));
		return EXIT_FAIL;
	}
	return 0;
}

void cli_lib_error(const char *msg, aiw_status st, int err)
{
	if (st == AIW_EIO && err != 0 && !strstr(msg, strerror(err)))
		cli_errorf("%s: %s", msg, strerror(err));
	else
		cli_errorf("%s", msg);
}

int cli_close_output(FILE *f, const char *path)
{
	bool bad = ferror(f) != 0; /* errno: the failed write's reason */
	if (fclose(f) != 0 || bad) {
		cli_errorf("error writing '%s': %s", path, strerror(errno ? errno : EIO));
		return EXIT_FAIL;
	}
	return 0;
}

/* Levenshtein distance between a and b (short names). */
static size_t edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 200 || lb > 200)
		return SIZE_MAX;
	size_t row[201];
	for (size_t j = 0; j <= lb; j++)
		row[j] = j;
	for (size_t i = 1; i <= la; i++) {
		size_t diag = row[0];
		row[0] = i;
		for (size_t j = 1; j <= lb; j++) {
			size_t up = row[j];
			size_t best = diag + (a[i - 1] != b[j - 1]);
			if (row[j] + 1 < best)
				best = row[j] + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			row[j] = best;
			diag = up;
		}
	}
	return row[lb];
}

bool cli_has_component(aiw_sim *sim, const char *kind, const char *name)
{
	size_t n = 0;
	aiw_sim_component_count(sim, &n);
	for (size_t i = 0; i < n; i++) {
		const char *k, *c;
		if (aiw_sim_component(sim, i, &k, &c) == AIW_OK && strcmp(k, kind) == 0 &&
		    strcmp(c, name) == 0)
			return true;
	}
	return false;
}

/* Whether kind names a kind with named components (training, inference,
 * ...): its parameters are listed as KIND.NAME.key. */
static bool kind_has_names(const char *kind)
{
	size_t n = 0, kl = strlen(kind);
	aiw_param_count(&n);
	for (size_t i = 0; i < n; i++) {
		const char *name = NULL;
		if (aiw_param_info(i, &name, NULL, NULL, NULL, NULL, NULL, NULL, NULL) != AIW_OK ||
		    !name)
			continue;
		if (strncmp(name, kind, kl) == 0 && name[kl] == '.')
			return strncmp(name + kl + 1, "NAME.", 5) == 0;
	}
	return false;
}

bool cli_undeclared_component(aiw_sim *sim, const char *param, const char *const *added,
                              size_t nadded, char *msg, size_t len)
{
	const char *d1 = strchr(param, '.'), *d2 = d1 ? strchr(d1 + 1, '.') : NULL;
	if (!d1 || !d2 || d1 == param || d2 == d1 + 1 || d2 - param > 200)
		return false; /* not KIND.NAME.key: the library names the mistake */
	char kind[208], comp[208];
	snprintf(kind, sizeof kind, "%.*s", (int)(d1 - param), param);
	snprintf(comp, sizeof comp, "%.*s", (int)(d2 - d1 - 1), d1 + 1);
	if (!kind_has_names(kind) || cli_has_component(sim, kind, comp))
		return false;
	for (size_t i = 0; i < nadded; i++) {
		size_t kl = strlen(kind);
		if (strncmp(added[i], kind, kl) == 0 && added[i][kl] == '.' &&
		    strcmp(added[i] + kl + 1, comp) == 0)
			return false;
	}
	/* the nearest component of the same kind */
	const char *best = NULL;
	size_t bd = SIZE_MAX, n = 0;
	aiw_sim_component_count(sim, &n);
	for (size_t i = 0; i < n; i++) {
		const char *k, *c;
		if (aiw_sim_component(sim, i, &k, &c) != AIW_OK || strcmp(k, kind) != 0)
			continue;
		size_t d = edit_distance(c, comp);
		if (d < bd)
			bd = d, best = c;
	}
	if (best)
		snprintf(msg, len, "the scenario declares no %s.%s; did you mean %s.%s?", kind, comp,
		         kind, best);
	else
		snprintf(msg, len, "the scenario declares no %s component (%s.%s)", kind, kind, comp);
	return true;
}
