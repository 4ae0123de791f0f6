/*
 * sweep.c - `aiworkload sweep`: parse the command line, build an
 * aiw_sweep, run it on J threads with a progress bar on a terminal, stop
 * cleanly on Ctrl-C keeping the finished rows, write the result files.
 * Only the public API is used.  tools/aiworkload-mpi.c reuses every piece
 * but the run.
 */
#include "sweep.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common.h" /* cli_same_file */

const char *cli_sweep_prog = "aiworkload";

static void errorf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s sweep: ", cli_sweep_prog);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

static int usage_error(bool quiet, const char *fmt, ...)
{
	if (quiet)
		return EXIT_USAGE;
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s sweep: ", cli_sweep_prog);
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\nTry '%s sweep --help'.\n", cli_sweep_prog);
	va_end(ap);
	return EXIT_USAGE;
}

/* A library message, with the system's reason when st is AIW_EIO and the
 * message gives none (err: errno right after the call). */
static void lib_error(const char *msg, aiw_status st, int err)
{
	if (st == AIW_EIO && err != 0 && !strstr(msg, strerror(err)))
		errorf("%s: %s", msg, strerror(err));
	else
		errorf("%s", msg);
}

int cli_sweep_exit_code(aiw_status st)
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
	case AIW_ESTOPPED:
		return AIW_CLI_EXIT_INTERRUPTED;
	default:
		return EXIT_FAIL;
	}
}

void cli_sweep_usage(FILE *f)
{
	fprintf(f,
	        "usage: %s sweep SCENARIO.ini [options]\n"
	        "\n"
	        "Run a grid of parameter points, each replicated with independent seeds, and\n"
	        "write per point the mean, standard deviation and 95%% confidence half-width\n"
	        "(Student t) of every metric.\n"
	        "\n"
	        "  --set NAME=V1,V2,...     an axis of the grid (repeatable: cartesian product,\n"
	        "                           the last axis varying fastest); one value simply\n"
	        "                           sets the parameter.  Commas inside parentheses or\n"
	        "                           double quotes, or written \\, do not split\n"
	        "  --points FILE.csv        points from a CSV file: a header of parameter names,\n"
	        "                           one row per point (combined with the axes: each row\n"
	        "                           times the axes' grid)\n"
	        "  --add KIND.NAME          a component the scenario does not declare, created\n"
	        "                           by the axes or columns that set its parameters\n"
	        "                           (repeatable; without it a parameter of an undeclared\n"
	        "                           component is refused)\n"
	        "  --replications R         runs per point (default 1; 2 or more give sd and CI)\n"
	        "  --jobs J                 threads (default 0: one per processor)\n"
	        "  --metrics LIST           metrics to keep: names or shell patterns, comma-\n"
	        "                           separated (default: all)\n"
	        "  --seed N                 base seed of the replication seeds (default: the\n"
	        "                           scenario's sim.seed)\n"
	        "  --out FILE.csv           results, one row per point (default: standard output)\n"
	        "  --replications-out FILE.csv\n"
	        "                           every run: point, replication, seed, values, metrics\n"
	        "  --report FILE.html       the sweep's report: every point's means and 95%% CIs,\n"
	        "                           the refused points, a chart per metric (one file)\n"
	        "  --keep-going             a refused point does not stop the sweep: its row\n"
	        "                           has the columns status = refused and message\n"
	        "  --progress, --no-progress\n"
	        "                           progress bar on standard error (default: when it is\n"
	        "                           a terminal)\n"
	        "\n"
	        "Results do not depend on --jobs.  Ctrl-C stops, keeping the finished points.\n"
	        "Exit status: 0 success, 2 bad usage or invalid values, 1 other failure,\n"
	        "130 interrupted.\n",
	        cli_sweep_prog);
}

static bool parse_ull(const char *s, unsigned long long max, unsigned long long *out)
{
	if (!*s || *s == '-' || *s == '+' || *s == ' ')
		return false;
	errno = 0;
	char *e;
	unsigned long long v = strtoull(s, &e, 10);
	if (errno || *e || v > max)
		return false;
	*out = v;
	return true;
}

void cli_sweep_opts_free(cli_sweep_opts *o)
{
	free(o->axes);
	o->axes = NULL;
	free(o->adds);
	o->adds = NULL;
}

int cli_sweep_parse(int argc, char **argv, cli_sweep_opts *o, bool quiet)
{
	memset(o, 0, sizeof *o);
	o->replications = 1;
	o->progress = -1;
	size_t room = argc > 0 ? (size_t)argc : 1;
	const char **ops = calloc(room, sizeof *ops);
	o->axes = calloc(room, sizeof *o->axes);
	o->adds = calloc(room, sizeof *o->adds);
	if (!ops || !o->axes || !o->adds) {
		if (!quiet)
			errorf("out of memory");
		free(ops);
		return EXIT_FAIL;
	}
	const char *reps_v = NULL, *jobs_v = NULL, *seed_v = NULL, *progress = NULL;
	const char *keep_going = NULL;
	const cli_opt opts[] = {
		{"--set", CLI_OPT_MANY, NULL, o->axes, &o->naxes},
		{"--add", CLI_OPT_MANY, NULL, o->adds, &o->nadds},
		{"--points", CLI_OPT_ONE, &o->points, NULL, NULL},
		{"--replications", CLI_OPT_ONE, &reps_v, NULL, NULL},
		{"--jobs|-j", CLI_OPT_ONE, &jobs_v, NULL, NULL},
		{"--metrics", CLI_OPT_ONE, &o->metrics, NULL, NULL},
		{"--out|-o", CLI_OPT_ONE, &o->out, NULL, NULL},
		{"--replications-out", CLI_OPT_ONE, &o->reps_out, NULL, NULL},
		{"--report", CLI_OPT_ONE, &o->report, NULL, NULL},
		{"--seed", CLI_OPT_ONE, &seed_v, NULL, NULL},
		{"--progress|--no-progress", CLI_OPT_FLAG, &progress, NULL, NULL},
		{"--keep-going", CLI_OPT_FLAG, &keep_going, NULL, NULL},
	};
	const cli_cmd who = {cli_sweep_prog, "sweep", quiet};
	size_t nops = 0;
	int rc = cli_parse_options(&who, argc, argv, 1, opts, sizeof opts / sizeof *opts, ops, &nops,
	                           &o->help);
	if (rc == 0 && !o->help) {
		unsigned long long r = 0, j = 0;
		for (size_t k = 0; k < o->naxes && !rc; k++)
			if (!strchr(o->axes[k], '=') || o->axes[k][0] == '=')
				rc = usage_error(quiet, "--set %s: expected NAME=V1,V2,...", o->axes[k]);
		for (size_t k = 0; k < o->nadds && !rc; k++) {
			const char *v = o->adds[k], *dot = strchr(v, '.');
			if (!dot || dot == v || !dot[1] || strchr(dot + 1, '.'))
				rc = usage_error(quiet, "--add %s: expected KIND.NAME (inference.chat2)", v);
		}
		if (!rc && reps_v && (!parse_ull(reps_v, 1000000, &r) || r < 1))
			rc = usage_error(quiet, "--replications %s: expected a whole number from 1 to "
			                 "1000000", reps_v);
		if (!rc && reps_v)
			o->replications = (size_t)r;
		if (!rc && jobs_v && !parse_ull(jobs_v, 1024, &j))
			rc = usage_error(quiet, "--jobs %s: expected 0 (one per processor) to 1024", jobs_v);
		if (!rc)
			o->jobs = (unsigned)j;
		if (!rc && seed_v && !parse_ull(seed_v, UINT64_MAX, &o->seed))
			rc = usage_error(quiet, "--seed %s: expected a whole number from 0 to "
			                 "18446744073709551615", seed_v);
		o->seed_set = seed_v != NULL;
		if (progress)
			o->progress = strcmp(progress, "--progress") == 0;
		o->keep_going = keep_going != NULL;
		if (!rc && nops > 1)
			rc = usage_error(quiet, "one scenario only ('%s' and '%s')", ops[0], ops[1]);
		if (nops)
			o->scenario = ops[0];
		if (!rc && !o->scenario)
			rc = usage_error(quiet, "give a scenario file (SCENARIO.ini)");
	}
	free(ops);
	return rc;
}

int cli_sweep_check_paths(const cli_sweep_opts *o, bool quiet)
{
	const cli_cmd who = {cli_sweep_prog, "sweep", quiet};
	cli_files out = {0}, in = {0};
	int rc = cli_files_add(&out, "--out", o->out) ||
	                 cli_files_add(&out, "--replications-out", o->reps_out) ||
	                 cli_files_add(&out, "--report", o->report) ||
	                 cli_files_add(&in, "the scenario", o->scenario) ||
	                 cli_files_add(&in, "the points file", o->points)
	             ? EXIT_FAIL : 0;
	/* the files the scenario names (a scenario that does not load is the
	 * sweep's to report) */
	aiw_sim *sim = NULL;
	if (!rc && out.n && o->scenario && aiw_sim_create(&sim, 1) == AIW_OK &&
	    aiw_sim_load_file(sim, o->scenario) == AIW_OK)
		rc = cli_files_add_sim(&in, sim);
	if (!rc)
		rc = cli_check_outputs(&who, &out, &in);
	cli_files_free(&out);
	cli_files_free(&in);
	aiw_sim_free(sim);
	return rc;
}

/* The column names of a points file's header (its first line that is not
 * blank or a # comment), as the library reads them: comma-separated,
 * blanks trimmed, double quotes removed.  Returns the count (at most max),
 * 0 when the file cannot be read (the library reports it). */
static size_t points_header(const char *path, char names[][256], size_t max)
{
	FILE *f = fopen(path, "r");
	if (!f)
		return 0;
	static char line[65536];
	size_t n = 0;
	while (fgets(line, sizeof line, f)) {
		const char *s = line;
		while (*s == ' ' || *s == '\t' || *s == '\r')
			s++;
		if (*s == '\n' || *s == '#' || !*s)
			continue;
		for (;;) {
			while (*s == ' ' || *s == '\t')
				s++;
			size_t k = 0;
			bool quoted = *s == '"';
			if (quoted)
				s++;
			while (*s && *s != '\n' && (quoted ? *s != '"' : *s != ',')) {
				if (k + 1 < 256)
					names[n][k++] = *s;
				s++;
			}
			if (quoted && *s == '"')
				s++;
			while (k > 0 && (names[n][k - 1] == ' ' || names[n][k - 1] == '\t' ||
			                 names[n][k - 1] == '\r'))
				k--;
			names[n][k] = 0;
			if (n < max)
				n++;
			while (*s && *s != ',' && *s != '\n')
				s++;
			if (*s != ',' || n >= max)
				break;
			s++;
		}
		break;
	}
	fclose(f);
	return n;
}

/* The name before '=' of an axis, blanks trimmed; false if too long. */
static bool axis_name(const char *axis, char *name, size_t len)
{
	const char *a = axis, *eq = strchr(axis, '=');
	while (a < eq && (*a == ' ' || *a == '\t'))
		a++;
	const char *e = eq;
	while (e > a && (e[-1] == ' ' || e[-1] == '\t'))
		e--;
	if (e - a >= (long)len)
		return false;
	snprintf(name, len, "%.*s", (int)(e - a), a);
	return true;
}

/* Whether param (KIND.NAME.key) is on component add (KIND.NAME). */
static bool on_component(const char *param, const char *add)
{
	size_t l = strlen(add);
	return strncmp(param, add, l) == 0 && param[l] == '.';
}

#define MAX_COLUMNS 1024

/* An axis or a points column on a component the scenario does not declare
 * is refused, unless --add names it: each run would create it (a typo
 * would add a fleet).  0 or EXIT_USAGE. */
static int check_components(const cli_sweep_opts *o, bool quiet)
{
	aiw_sim *sim;
	if (aiw_sim_create(&sim, 1) != AIW_OK)
		return 0; /* out of memory: the sweep reports it */
	int rc = 0;
	static char cols[MAX_COLUMNS][256];
	size_t ncols = o->points ? points_header(o->points, cols, MAX_COLUMNS) : 0;
	if (aiw_sim_load_file(sim, o->scenario) == AIW_OK) {
		char kind[64];
		for (size_t i = 0; i < o->nadds && rc == 0; i++) {
			const char *add = o->adds[i], *dot = strchr(add, '.');
			snprintf(kind, sizeof kind, "%.*s", (int)(dot - add < 63 ? dot - add : 63), add);
			bool used = false;
			char name[256];
			for (size_t k = 0; k < o->naxes && !used; k++)
				used = axis_name(o->axes[k], name, sizeof name) && on_component(name, add);
			for (size_t k = 0; k < ncols && !used; k++)
				used = on_component(cols[k], add);
			if (cli_has_component(sim, kind, dot + 1))
				rc = usage_error(quiet, "--add %s: %s already declares it", add, o->scenario);
			else if (!used)
				rc = usage_error(quiet, "--add %s: no --set axis or --points column sets "
				                 "a parameter of it (%s.KEY)", add, add);
		}
		for (size_t i = 0; i < ncols && rc == 0; i++) {
			char why[512];
			if (!cli_undeclared_component(sim, cols[i], o->adds, o->nadds, why, sizeof why))
				continue;
			const char *d1 = strchr(cols[i], '.'), *d2 = strchr(d1 + 1, '.');
			rc = usage_error(quiet, "--points %s: column %zu, %s: %s (to create a component, "
			                 "give --add %.*s, or declare it in %s)", o->points, i + 1,
			                 cols[i], why, (int)(d2 - cols[i]), cols[i], o->scenario);
		}
		for (size_t i = 0; i < o->naxes && rc == 0; i++) {
			char name[256], why[512];
			if (!axis_name(o->axes[i], name, sizeof name))
				continue;
			if (cli_undeclared_component(sim, name, o->adds, o->nadds, why, sizeof why)) {
				const char *d2 = strchr(strchr(name, '.') + 1, '.');
				rc = usage_error(quiet, "--set %s: %s (to create a component, give --add "
				                 "%.*s, or declare it in %s)", o->axes[i], why,
				                 (int)(d2 - name), name, o->scenario);
			}
		}
	}
	aiw_sim_free(sim);
	return rc;
}

/* The files the points' values name (--set inference.chat.profile=a.csv,
 * b.csv, or a --points column): each point's values applied in turn to the
 * scenario as a run applies them, the outputs checked against the files
 * the simulation then names.  0 or EXIT_USAGE with the message. */
static int check_point_inputs(const cli_sweep_opts *o, const aiw_sweep *sw, bool quiet)
{
	if (!o->out && !o->reps_out && !o->report)
		return 0;
	size_t np = 0, nparams = 0;
	aiw_sweep_npoints(sw, &np);
	aiw_sweep_nparams(sw, &nparams);
	aiw_sim *sim = NULL;
	if (!nparams || aiw_sim_create(&sim, 1) != AIW_OK ||
	    aiw_sim_load_file(sim, o->scenario) != AIW_OK) {
		aiw_sim_free(sim);
		return 0; /* the sweep reports what does not load */
	}
	const char **last = calloc(nparams, sizeof *last);
	char **owned = NULL;
	size_t nowned = 0, capowned = 0;
	cli_files outs = {0}, in = {0};
	int rc = !last || cli_files_add(&outs, "--out", o->out) ||
	                 cli_files_add(&outs, "--replications-out", o->reps_out) ||
	                 cli_files_add(&outs, "--report", o->report)
	             ? EXIT_FAIL : 0;
	for (size_t p = 0; p < np && !rc; p++) {
		bool changed = false;
		for (size_t i = 0; i < nparams; i++) {
			const char *name, *v;
			if (aiw_sweep_param_name(sw, i, &name) != AIW_OK ||
			    aiw_sweep_point_value(sw, p, i, &v) != AIW_OK ||
			    (last[i] && strcmp(last[i], v) == 0))
				continue;
			last[i] = v;
			changed |= aiw_sim_set(sim, name, v) == AIW_OK;
		}
		size_t n = 0;
		if (!changed || aiw_sim_input_count(sim, &n) != AIW_OK)
			continue;
		for (size_t k = 0; k < n && !rc; k++) {
			const char *comp, *key, *path;
			if (aiw_sim_input(sim, k, &comp, &key, &path) != AIW_OK)
				continue;
			bool seen = false;
			for (size_t j = 0; j < nowned && !seen; j++)
				seen = strcmp(owned[j], path) == 0;
			if (seen)
				continue;
			if (nowned == capowned) {
				size_t cap = capowned ? 2 * capowned : 8;
				char **g = realloc(owned, cap * sizeof *g);
				if (!g) {
					rc = EXIT_FAIL;
					break;
				}
				owned = g;
				capowned = cap;
			}
			char what[300];
			snprintf(what, sizeof what, "the file %s.%s names at point %zu", comp, key, p + 1);
			if (!(owned[nowned] = strdup(path)) ||
			    cli_files_add(&in, what, owned[nowned]) != 0) {
				free(owned[nowned]);
				rc = EXIT_FAIL;
				break;
			}
			nowned++;
		}
	}
	if (rc == EXIT_FAIL && !quiet)
		errorf("out of memory");
	if (!rc) {
		const cli_cmd who = {cli_sweep_prog, "sweep", quiet};
		rc = cli_check_outputs(&who, &outs, &in);
	}
	cli_files_free(&outs);
	cli_files_free(&in);
	for (size_t j = 0; j < nowned; j++)
		free(owned[j]);
	free(owned);
	free(last);
	aiw_sim_free(sim);
	return rc;
}

int cli_sweep_build(const cli_sweep_opts *o, aiw_sweep **out, bool quiet)
{
	*out = NULL;
	int rc = cli_sweep_check_paths(o, quiet);
	if (rc != 0)
		return rc;
	aiw_sweep *sw;
	aiw_status st = aiw_sweep_create(&sw, o->scenario, NULL);
	if (st != AIW_OK) {
		if (!quiet)
			errorf("%s: %s", o->scenario, aiw_strerror(st));
		return cli_sweep_exit_code(st);
	}
	if ((rc = check_components(o, quiet)) != 0) {
		aiw_sweep_free(sw);
		return rc;
	}
	for (size_t i = 0; i < o->naxes && st == AIW_OK; i++) {
		char *name = strdup(o->axes[i]);
		if (!name) {
			st = AIW_ENOMEM;
			break;
		}
		char *eq = strchr(name, '=');
		*eq = 0;
		char *n = name;
		while (*n == ' ' || *n == '\t')
			n++;
		for (char *e = eq; e > n && (e[-1] == ' ' || e[-1] == '\t');)
			*--e = 0;
		st = aiw_sweep_axis(sw, n, eq + 1);
		free(name);
	}
	if (st == AIW_OK && o->points)
		st = aiw_sweep_point_file(sw, o->points);
	if (st == AIW_OK)
		st = aiw_sweep_set_replications(sw, o->replications);
	if (st == AIW_OK)
		st = aiw_sweep_set_metrics(sw, o->metrics);
	if (st == AIW_OK && o->seed_set)
		st = aiw_sweep_set_seed(sw, (uint64_t)o->seed);
	if (st == AIW_OK)
		st = aiw_sweep_set_jobs(sw, o->jobs);
	if (st == AIW_OK)
		st = aiw_sweep_set_keep_going(sw, o->keep_going);
	if (st == AIW_OK)
		st = aiw_sweep_prepare(sw);
	if (st != AIW_OK) {
		if (!quiet)
			errorf("%s", aiw_sweep_errmsg(sw)[0] ? aiw_sweep_errmsg(sw) : aiw_strerror(st));
		aiw_sweep_free(sw);
		/* an unreadable scenario or point file is the user's input: usage */
		return st == AIW_EIO ? EXIT_USAGE : cli_sweep_exit_code(st);
	}
	if ((rc = check_point_inputs(o, sw, quiet)) != 0) {
		aiw_sweep_free(sw);
		return rc;
	}
	*out = sw;
	return 0;
}

/* ======================================================================== */
/* progress bar                                                              */
/* ======================================================================== */
struct cli_bar {
	struct timespec start, last;
	bool drawn;
};

static double elapsed(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + 1e-9 * (double)(b->tv_nsec - a->tv_nsec);
}

cli_bar *cli_bar_new(void)
{
	cli_bar *b = calloc(1, sizeof *b);
	if (b)
		clock_gettime(CLOCK_MONOTONIC, &b->start);
	return b;
}

void cli_bar_draw(cli_bar *b, size_t done, size_t total)
{
	if (!b)
		return;
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	if (b->drawn && done < total && elapsed(&b->last, &t) < 0.1)
		return;
	b->last = t;
	b->drawn = true;
	double frac = total ? (double)done / (double)total : 1;
	int width = 30, fill = (int)(frac * width);
	char bar[64];
	for (int i = 0; i < width; i++)
		bar[i] = i < fill ? '#' : '.';
	bar[width] = 0;
	double wall = elapsed(&b->start, &t);
	fprintf(stderr, "\r[%s] %3.0f%%  %zu/%zu runs", bar, frac * 100, done, total);
	if (done > 0 && done < total)
		fprintf(stderr, "  ETA %.0f s   ", wall * (double)(total - done) / (double)done);
	else
		fprintf(stderr, "             ");
	fflush(stderr);
}

void cli_bar_free(cli_bar *b)
{
	if (b && b->drawn) {
		fprintf(stderr, "\r%75s\r", "");
		fflush(stderr);
	}
	free(b);
}

int cli_bar_cb(const aiw_sweep *sw, size_t done, size_t total, void *payload)
{
	(void)sw;
	cli_bar_draw(payload, done, total);
	return 0;
}

bool cli_sweep_want_bar(const cli_sweep_opts *o)
{
	return o->progress == 1 || (o->progress == -1 && isatty(2));
}

/* ======================================================================== */
/* signals                                                                   */
/* ======================================================================== */
static aiw_sweep *volatile g_sweep;
static volatile sig_atomic_t g_caught;
static struct sigaction g_old_int, g_old_term;

static void on_signal(int sig)
{
	(void)sig;
	g_caught = 1;
	if (g_sweep)
		aiw_sweep_stop(g_sweep); /* async-signal-safe */
}

void cli_sweep_catch_signals(aiw_sweep *sw)
{
	g_sweep = sw;
	g_caught = 0;
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = SA_RESETHAND; /* a second Ctrl-C terminates at once */
	/* a signal the caller ignores (`cmd &` in a script ignores SIGINT) stays
	 * ignored */
	sigaction(SIGINT, NULL, &g_old_int);
	sigaction(SIGTERM, NULL, &g_old_term);
	if (g_old_int.sa_handler != SIG_IGN)
		sigaction(SIGINT, &sa, NULL);
	if (g_old_term.sa_handler != SIG_IGN)
		sigaction(SIGTERM, &sa, NULL);
}

bool cli_sweep_signalled(void)
{
	return g_caught != 0;
}

bool cli_sweep_release_signals(void)
{
	sigaction(SIGINT, &g_old_int, NULL);
	sigaction(SIGTERM, &g_old_term, NULL);
	g_sweep = NULL;
	return g_caught != 0;
}

/* ======================================================================== */
/* output                                                                    */
/* ======================================================================== */
/* The library writes files; standard output gets a temporary file's bytes
 * (so that `>>` appends and pipes work). */
static aiw_status write_stdout(aiw_sweep *sw)
{
	const char *td = getenv("TMPDIR");
	td = td && *td ? td : "/tmp";
	size_t len = strlen(td) + sizeof "/aiworkload-sweepXXXXXX";
	char *path = malloc(len);
	if (!path) {
		errorf("out of memory");
		return AIW_ENOMEM;
	}
	snprintf(path, len, "%s/aiworkload-sweepXXXXXX", td);
	int fd = mkstemp(path);
	if (fd < 0) {
		errorf("cannot create a temporary file in %s: %s", td, strerror(errno));
		free(path);
		return AIW_EIO;
	}
	close(fd);
	errno = 0;
	aiw_status st = aiw_sweep_write_csv(sw, path);
	if (st != AIW_OK) {
		lib_error(aiw_sweep_errmsg(sw), st, errno);
		unlink(path);
		free(path);
		return st;
	}
	FILE *f = fopen(path, "rb");
	if (!f)
		errorf("%s: %s", path, strerror(errno));
	unlink(path);
	free(path);
	if (!f)
		return AIW_EIO;
	char buf[65536];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		if (fwrite(buf, 1, n, stdout) != n)
			break;
	bool bad = ferror(f) != 0;
	fclose(f);
	if (bad || fflush(stdout) != 0 || ferror(stdout)) {
		errorf("error writing the results to standard output: %s", strerror(errno ? errno : EIO));
		return AIW_EIO;
	}
	return AIW_OK;
}

int cli_sweep_finish(aiw_sweep *sw, const cli_sweep_opts *o, aiw_status st,
                         const char *errmsg, bool interrupted)
{
	int rc = 0;
	if (st != AIW_OK && st != AIW_ESTOPPED) {
		errorf("%s", errmsg && *errmsg ? errmsg : aiw_strerror(st));
		rc = cli_sweep_exit_code(st);
	}
	errno = 0;
	aiw_status ws = o->out ? aiw_sweep_write_csv(sw, o->out) : write_stdout(sw);
	if (ws != AIW_OK && o->out)
		lib_error(aiw_sweep_errmsg(sw), ws, errno);
	errno = 0;
	if (ws == AIW_OK && o->reps_out &&
	    (ws = aiw_sweep_write_replications_csv(sw, o->reps_out)) != AIW_OK)
		lib_error(aiw_sweep_errmsg(sw), ws, errno);
	errno = 0;
	if (ws == AIW_OK && o->report && (ws = aiw_sweep_write_html(sw, o->report)) != AIW_OK)
		lib_error(aiw_sweep_errmsg(sw), ws, errno);
	if (ws != AIW_OK && rc == 0)
		rc = EXIT_FAIL;
	size_t np = 0, refused = 0;
	aiw_sweep_npoints(sw, &np);
	for (size_t p = 0; p < np && o->keep_going; p++) {
		aiw_status ps;
		const char *why;
		if (aiw_sweep_point_status(sw, p, &ps, &why) != AIW_OK || ps == AIW_OK ||
		    ps == AIW_ESTOPPED)
			continue;
		if (refused++ == 0) {
			errorf("%s", why);
			if (rc == 0)
				rc = cli_sweep_exit_code(ps);
		}
	}
	if (refused)
		errorf("%zu of %zu points refused (status and message columns)", refused, np);
	if (st != AIW_OK) {
		size_t np = 0, done = 0;
		aiw_sweep_npoints(sw, &np);
		for (size_t p = 0; p < np; p++)
			done += aiw_sweep_result(sw, p, 0, NULL, NULL, NULL, NULL) == AIW_OK;
		if (st == AIW_ESTOPPED)
			errorf("%s: kept %zu of %zu points", interrupted ? "interrupted" : "stopped", done,
			       np);
		else if (done)
			errorf("kept the %zu points that finished (of %zu)", done, np);
		if (rc == 0)
			rc = AIW_CLI_EXIT_INTERRUPTED;
	}
	return rc;
}

/* ======================================================================== */
int cli_sweep(int argc, char **argv)
{
	cli_sweep_opts o;
	int rc = cli_sweep_parse(argc, argv, &o, false);
	if (rc != 0 || o.help) {
		if (rc == 0)
			cli_sweep_usage(stdout);
		cli_sweep_opts_free(&o);
		return rc;
	}
	aiw_sweep *sw;
	if ((rc = cli_sweep_build(&o, &sw, false)) != 0) {
		cli_sweep_opts_free(&o);
		return rc;
	}
	cli_bar *bar = cli_sweep_want_bar(&o) ? cli_bar_new() : NULL;
	if (bar)
		aiw_sweep_set_progress(sw, cli_bar_cb, bar);
	cli_sweep_catch_signals(sw);
	aiw_status st = aiw_sweep_run(sw);
	bool interrupted = cli_sweep_release_signals();
	cli_bar_free(bar);
	rc = cli_sweep_finish(sw, &o, st, aiw_sweep_errmsg(sw), interrupted);
	aiw_sweep_free(sw);
	cli_sweep_opts_free(&o);
	return rc;
}
