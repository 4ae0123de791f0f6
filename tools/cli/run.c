/*
 * run.c - `aiworkload run` and `aiworkload plot` (a run that writes an SVG
 * and no summary): options, configuration, the progress bar, --stream-csv
 * and the output files.
 */
#include "common.h"

#include "sweep.h" /* the signal handling sweeps use */

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* ======================================================================== */
/* progress bar                                                              */
/* ======================================================================== */
typedef struct progress {
	struct timespec start, last;
	bool drawn;
} progress;

static int progress_cb(aiw_sim *sim, double now, double end, void *payload)
{
	(void)sim;
	progress *p = payload;
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	if (p->drawn && cli_elapsed(&p->last, &t) < 0.1)
		return 0;
	p->last = t;
	p->drawn = true;
	double frac = end > 0 ? now / end : 1;
	if (frac > 1)
		frac = 1;
	int width = 30, fill = (int)(frac * width);
	char bar[64], a[32], b[32];
	for (int i = 0; i < width; i++)
		bar[i] = i < fill ? '#' : '.';
	bar[width] = 0;
	cli_fmt_duration(a, sizeof a, now);
	cli_fmt_duration(b, sizeof b, end);
	double wall = cli_elapsed(&p->start, &t);
	double eta = frac > 0.001 ? wall * (1 - frac) / frac : NAN;
	fprintf(stderr, "\r[%s] %3.0f%%  %s / %s", bar, frac * 100, a, b);
	if (isfinite(eta))
		fprintf(stderr, "  ETA %.0f s   ", eta);
	fflush(stderr);
	return 0;
}

static void progress_clear(progress *p)
{
	if (p->drawn) {
		fprintf(stderr, "\r%70s\r", "");
		fflush(stderr);
	}
}

/* ======================================================================== */
/* run                                                                       */
/* ======================================================================== */
static const char *scenario_label(const cli_run_opts *o)
{
	return o->nscenarios ? o->scenarios[0] : "built-in mixed site (aiworkload scenario)";
}

void cli_run_opts_free(cli_run_opts *o)
{
	free(o->scenarios);
	free(o->sets);
	free(o->adds);
	o->scenarios = NULL;
	o->sets = NULL;
	o->adds = NULL;
}

int cli_run_parse(int argc, char **argv, int first, bool plot, cli_run_opts *o)
{
	memset(o, 0, sizeof *o);
	o->progress = -1;
	size_t room = argc > 0 ? (size_t)argc : 1;
	o->scenarios = calloc(room, sizeof *o->scenarios);
	o->sets = calloc(room, sizeof *o->sets);
	o->adds = calloc(room, sizeof *o->adds);
	if (!o->scenarios || !o->sets || !o->adds) {
		cli_errorf("out of memory");
		return EXIT_FAIL;
	}
	const char *progress = NULL, *summary = NULL;
	const cli_opt opts[] = {
		{"--set", CLI_OPT_MANY, NULL, o->sets, &o->nsets},
		{"--add", CLI_OPT_MANY, NULL, o->adds, &o->nadds},
		{"--seed", CLI_OPT_ONE, &o->seed, NULL, NULL},
		{"--duration", CLI_OPT_ONE, &o->duration, NULL, NULL},
		{"--sample-interval", CLI_OPT_ONE, &o->sample_interval, NULL, NULL},
		{"--summary", CLI_OPT_ONE, &summary, NULL, NULL},
		{"--series", CLI_OPT_ONE, &o->series, NULL, NULL},
		{"--stream-csv", CLI_OPT_ONE, &o->stream_csv, NULL, NULL},
		{"--json", CLI_OPT_ONE, &o->json, NULL, NULL},
		{"--metrics", CLI_OPT_ONE, &o->metrics, NULL, NULL},
		{"--promtest", CLI_OPT_ONE, &o->promtest, NULL, NULL},
		{"--rules", CLI_OPT_ONE, &o->rules, NULL, NULL},
		{plot ? "-o|--output|--plot" : "--plot|--output|-o", CLI_OPT_ONE, &o->plot, NULL, NULL},
		{"--title", CLI_OPT_ONE, &o->title, NULL, NULL},
		{"--report", CLI_OPT_ONE, &o->report, NULL, NULL},
		{"--openmetrics", CLI_OPT_ONE, &o->openmetrics, NULL, NULL},
		{"--openmetrics-start", CLI_OPT_ONE, &o->om_start, NULL, NULL},
		{"--progress|--no-progress", CLI_OPT_FLAG, &progress, NULL, NULL},
	};
	const cli_cmd who = {cli_prog, NULL, false};
	bool help = false;
	int rc = cli_parse_options(&who, argc, argv, first, opts, sizeof opts / sizeof *opts,
	                           o->scenarios, &o->nscenarios, &help);
	if (rc)
		return rc;
	o->help = help;
	if (help)
		return 0;
	if (progress)
		o->progress = strcmp(progress, "--progress") == 0;
	for (size_t k = 0; k < o->nsets; k++)
		if (!strchr(o->sets[k], '='))
			return cli_usage_error("--set %s: expected NAME=VALUE", o->sets[k]);
	for (size_t k = 0; k < o->nadds; k++) {
		const char *v = o->adds[k], *dot = strchr(v, '.');
		if (!dot || dot == v || !dot[1] || strchr(dot + 1, '.'))
			return cli_usage_error("--add %s: expected KIND.NAME (inference.chat2)", v);
	}
	if (summary && strcmp(summary, "text") && strcmp(summary, "full") &&
	    strcmp(summary, "json") && strcmp(summary, "none"))
		return cli_usage_error("--summary %s: use text, full, json or none", summary);
	o->summary = summary ? summary : plot ? "none" : "text";
	if (plot && !o->plot)
		return cli_usage_error("plot: give the SVG file with -o FILE.svg");
	if (o->rules && !o->promtest)
		return cli_usage_error("--rules goes with --promtest FILE.yml");
	if (o->om_start && !o->openmetrics)
		return cli_usage_error("--openmetrics-start goes with --openmetrics FILE");
	if (o->om_start) {
		char *end;
		errno = 0;
		double v = strtod(o->om_start, &end);
		if (end == o->om_start || *end || errno || !(v >= 0 && v < 1e11))
			return cli_usage_error("--openmetrics-start %s: expected Unix seconds in [0, 1e11)",
			                       o->om_start);
	}
	return 0;
}

static int set_param(aiw_sim *sim, const char *name, const char *value, const char *from)
{
	aiw_status st = aiw_sim_set(sim, name, value);
	if (st != AIW_OK) {
		cli_errorf("%s: %s", from, aiw_sim_errmsg(sim));
		return cli_exit_code(st) ? cli_exit_code(st) : EXIT_FAIL;
	}
	return 0;
}

int cli_run_configure(aiw_sim *sim, const cli_run_opts *o)
{
	aiw_status st;
	if (o->nscenarios == 0) {
		st = aiw_sim_load_string(sim, aiw_default_scenario(), "mixed-site.ini (built-in)");
		if (st != AIW_OK) {
			cli_errorf("%s", aiw_sim_errmsg(sim));
			return EXIT_FAIL; /* a library/default mismatch, not the user's */
		}
	}
	for (size_t i = 0; i < o->nscenarios; i++) {
		if ((st = aiw_sim_load_file(sim, o->scenarios[i])) != AIW_OK) {
			cli_errorf("%s", aiw_sim_errmsg(sim));
			return st == AIW_EIO ? EXIT_USAGE : cli_exit_code(st) ? cli_exit_code(st) : EXIT_FAIL;
		}
	}
	/* --add: components created explicitly, before any --set */
	for (size_t i = 0; i < o->nadds; i++) {
		const char *add = o->adds[i], *dot = strchr(add, '.');
		char kind[64];
		snprintf(kind, sizeof kind, "%.*s", (int)(dot - add < 63 ? dot - add : 63), add);
		if (cli_has_component(sim, kind, "")) {
			cli_errorf("--add %s: there is one %s, always: set its parameters with --set "
			           "%s.KEY=VALUE", add, kind, kind);
			return EXIT_USAGE;
		}
		if (cli_has_component(sim, kind, dot + 1)) {
			cli_errorf("--add %s: the scenario already declares %s: set its parameters with "
			           "--set %s.KEY=VALUE", add, add, add);
			return EXIT_USAGE;
		}
		if ((st = aiw_sim_add_component(sim, kind, dot + 1)) != AIW_OK) {
			cli_errorf("--add %s: %s", add, aiw_sim_errmsg(sim));
			return cli_exit_code(st) ? cli_exit_code(st) : EXIT_FAIL;
		}
	}
	int rc;
	for (size_t i = 0; i < o->nsets; i++) {
		/* NAME=VALUE of any length: the name copied, the value as given */
		const char *set = o->sets[i], *eq = strchr(set, '=');
		if (!eq) /* cli_run_parse refuses it; a caller that skipped it */
			return cli_usage_error("--set %s: expected NAME=VALUE", set);
		while (set < eq && isspace((unsigned char)*set))
			set++;
		const char *end = eq;
		while (end > set && isspace((unsigned char)end[-1]))
			end--;
		char *name = malloc((size_t)(end - set) + 1);
		if (!name) {
			cli_errorf("out of memory");
			return EXIT_FAIL;
		}
		memcpy(name, set, (size_t)(end - set));
		name[end - set] = 0;
		/* setting a parameter of a component the scenario does not declare
		 * would create it: a typo would add a fleet, silently */
		char why[512];
		if (cli_undeclared_component(sim, name, NULL, 0, why, sizeof why)) {
			const char *d1 = strchr(name, '.'), *d2 = strchr(d1 + 1, '.');
			cli_errorf("--set %s: %s (to create a component, give --add %.*s)", o->sets[i], why,
			           (int)(d2 - name), name);
			free(name);
			return EXIT_USAGE;
		}
		rc = set_param(sim, name, eq + 1, "--set");
		free(name);
		if (rc != 0)
			return rc;
	}
	if (o->seed && (rc = set_param(sim, "sim.seed", o->seed, "--seed")) != 0)
		return rc;
	if (o->duration && (rc = set_param(sim, "sim.duration", o->duration, "--duration")) != 0)
		return rc;
	if (o->sample_interval &&
	    (rc = set_param(sim, "sim.sample_interval", o->sample_interval, "--sample-interval")) != 0)
		return rc;
	return 0;
}

/* The message of a failed run; the library names a component's values set
 * after its scenario section ("inference.chat (declared at FILE:LINE;
 * gpus_per_replica = 3 set after loading): ..."): the --set options that
 * set them go in front, since they are what the user changed. */
static void run_error(aiw_sim *sim, const cli_run_opts *o)
{
	const char *msg = aiw_sim_errmsg(sim), *paren = strstr(msg, " (declared at ");
	if (!paren || !strstr(paren, " set after loading): ")) {
		cli_errorf("%s", msg);
		return;
	}
	size_t pl = (size_t)(paren - msg);
	char lead[1024];
	size_t n = 0;
	lead[0] = 0;
	for (size_t i = 0; i < o->nsets && n < sizeof lead; i++) {
		const char *set = o->sets[i];
		while (isspace((unsigned char)*set))
			set++;
		if (strncmp(set, msg, pl) == 0 && set[pl] == '.')
			n += (size_t)snprintf(lead + n, sizeof lead - n, "%s--set %s", n ? ", " : "", set);
	}
	if (n)
		cli_errorf("%s: %s", lead, msg);
	else
		cli_errorf("%s", msg);
}

/* A temporary file TMPDIR/aiworkload-WHATXXXXXX (or in /tmp), created;
 * the path (malloc'd) or NULL with the message printed. */
static char *temp_file(const char *what)
{
	const char *td = getenv("TMPDIR");
	const char *dirs[] = {td && *td ? td : "/tmp", "/tmp"};
	int err = 0;
	for (size_t i = 0; i < 2; i++) {
		size_t n = strlen(dirs[i]) + strlen(what) + sizeof "/aiworkload-XXXXXX";
		char *path = malloc(n);
		if (!path) {
			cli_errorf("out of memory");
			return NULL;
		}
		snprintf(path, n, "%s/aiworkload-%sXXXXXX", dirs[i], what);
		int fd = mkstemp(path);
		if (fd >= 0) {
			close(fd);
			return path;
		}
		err = errno;
		free(path);
	}
	cli_errorf("cannot create a temporary file in %s: %s", dirs[0], strerror(err));
	return NULL;
}

/* The library's JSON with the command's metadata spliced in front, to out.
 * Returns 0, or EXIT_FAIL with the message printed when the library or the
 * temporary file fails (out's own errors are the caller's to report). */
static int write_json_meta(aiw_sim *sim, FILE *out, const cli_run_opts *o, double wall)
{
	char *path = temp_file("json");
	if (!path)
		return EXIT_FAIL;
	errno = 0;
	aiw_status st = aiw_sim_write_json(sim, path);
	int err = errno;
	FILE *in = st == AIW_OK ? fopen(path, "r") : NULL;
	if (!in) {
		if (st != AIW_OK)
			cli_lib_error(aiw_sim_errmsg(sim), st, err);
		else
			cli_errorf("cannot read '%s': %s", path, strerror(errno));
		unlink(path);
		free(path);
		return EXIT_FAIL;
	}
	int c;
	while ((c = fgetc(in)) != EOF && c != '{')
		;
	fputs("{\n  \"scenario\": \"", out);
	for (const char *s = scenario_label(o); *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', out);
		if ((unsigned char)*s >= 0x20)
			fputc(*s, out);
	}
	fprintf(out, "\",\n  \"wall_time_s\": %.6f,", wall);
	while ((c = fgetc(in)) != EOF)
		fputc(c, out);
	fclose(in);
	unlink(path);
	free(path);
	return 0;
}

/* ======================================================================== */
/* --stream-csv: the CSV of aiw_sim_write_csv, a row at every sample tick    */
/* ======================================================================== */
static void csv_num(FILE *f, double x)
{
	if (isfinite(x)) /* else an empty field, as aiw_sim_write_csv */
		fprintf(f, "%.17g", x);
}

static void stream_header(aiw_sim *sim, cli_stream *s)
{
	size_t n = 0;
	aiw_sim_series_count(sim, &n);
	fputs("time_s", s->f);
	for (size_t i = 0; i < n; i++) {
		const char *name = "", *unit = "";
		aiw_sim_series_name(sim, i, &name);
		aiw_sim_series_unit(sim, name, &unit);
		fprintf(s->f, ",%s [%s]", name, *unit ? unit : "1");
	}
	fputc('\n', s->f);
	s->header = true;
}

static void stream_sample(aiw_sim *sim, double t, const double *v, size_t n, void *payload)
{
	cli_stream *s = payload;
	if (!s->header) {
		stream_header(sim, s);
		s->n = n;
		s->sum = calloc(n ? n : 1, sizeof *s->sum);
		s->span = calloc(n ? n : 1, sizeof *s->span);
		s->oom = !s->sum || !s->span;
	}
	csv_num(s->f, t);
	for (size_t i = 0; i < n; i++) {
		fputc(',', s->f);
		csv_num(s->f, v[i]);
	}
	fputc('\n', s->f);
	/* the same sums, in the same order, as curve_mean over a whole curve */
	double dt = t - s->last_t;
	for (size_t i = 0; !s->oom && i < n && i < s->n; i++)
		if (isfinite(v[i])) {
			s->sum[i] += v[i] * dt;
			s->span[i] += dt;
		}
	s->last_t = t;
}

/* Close the stream (writing the header if no tick came); 0 or EXIT_FAIL. */
static int stream_close(aiw_sim *sim, cli_stream *s, const char *path)
{
	if (!s->f)
		return 0;
	if (!s->header)
		stream_header(sim, s);
	int rc = cli_close_output(s->f, path);
	s->f = NULL;
	return rc;
}

/* Outputs that would overwrite an input (the scenarios, the rule files,
 * the files the configured sim's parameters name), or each other: refused
 * before anything is written. */
static int check_paths(const cli_run_opts *o, aiw_sim *sim)
{
	const cli_cmd who = {cli_prog, NULL, false};
	cli_files out = {0}, in = {0};
	char *rules = o->rules ? strdup(o->rules) : NULL;
	int rc = o->rules && !rules ? (cli_errorf("out of memory"), EXIT_FAIL) : 0;
	if (!rc)
		rc = cli_files_add(&out, "--series", o->series) ||
		     cli_files_add(&out, "--stream-csv", o->stream_csv) ||
		     cli_files_add(&out, "--json", o->json) ||
		     cli_files_add(&out, "--metrics", o->metrics) ||
		     cli_files_add(&out, "--promtest", o->promtest) ||
		     cli_files_add(&out, "--plot", o->plot) ||
		     cli_files_add(&out, "--report", o->report) ||
		     cli_files_add(&out, "--openmetrics", o->openmetrics)
		         ? EXIT_FAIL : 0;
	for (size_t k = 0; !rc && k < o->nscenarios; k++)
		rc = cli_files_add(&in, "the scenario", o->scenarios[k]);
	for (char *r = rules, *save = NULL, *t; !rc && rules && (t = strtok_r(r, ",", &save));
	     r = NULL)
		rc = cli_files_add(&in, "the rule file", t);
	if (!rc)
		rc = cli_files_add_sim(&in, sim);
	if (!rc)
		rc = cli_check_outputs(&who, &out, &in);
	cli_files_free(&out);
	cli_files_free(&in);
	free(rules);
	return rc;
}

/* The run's progress callback: the bar, when shown, and the stop that
 * SIGINT or SIGTERM asks for (--stream-csv). */
/* The run's warnings (aiw_sim_warning), one line each on stderr, after the
 * run and before the summary; they never change the exit code. */
static void print_warnings(aiw_sim *sim)
{
	size_t n = 0;
	const char *text;
	if (aiw_sim_warning_count(sim, &n) != AIW_OK)
		return;
	for (size_t i = 0; i < n; i++)
		if (aiw_sim_warning(sim, i, &text) == AIW_OK)
			fprintf(stderr, "%s: warning: %s\n", cli_prog, text);
}

typedef struct run_watch {
	progress *bar; /* NULL: no bar */
	bool signals;
} run_watch;

static int watch_cb(aiw_sim *sim, double now, double end, void *payload)
{
	run_watch *w = payload;
	if (w->signals && cli_sweep_signalled())
		return 1;
	return w->bar ? progress_cb(sim, now, end, w->bar) : 0;
}

/* A library writer's call, its failure reported. */
static int lib_write(aiw_sim *sim, aiw_status (*fn)(aiw_sim *, const char *), const char *path)
{
	errno = 0;
	aiw_status st = fn(sim, path);
	if (st == AIW_OK)
		return 0;
	cli_lib_error(aiw_sim_errmsg(sim), st, errno);
	return EXIT_FAIL;
}

int cli_run(int argc, char **argv, int first, bool plot)
{
	cli_run_opts o;
	int rc = cli_run_parse(argc, argv, first, plot, &o);
	if (rc || o.help) {
		if (!rc) {
			cli_usage(stdout);
			rc = cli_flush_stdout();
		}
		cli_run_opts_free(&o);
		return rc;
	}
	aiw_sim *sim = NULL;
	if (aiw_sim_create(&sim, 1) != AIW_OK) {
		cli_errorf("out of memory");
		cli_run_opts_free(&o);
		return EXIT_FAIL;
	}
	/* --stream-csv: a small ring of points in memory, unless the scenario or
	 * --set says otherwise (set first, they override it) or another output
	 * needs the whole curves */
	cli_stream st = {0};
	if (o.stream_csv && !o.series && !o.promtest && !o.plot && !o.report && !o.openmetrics) {
		char keep[32];
		snprintf(keep, sizeof keep, "%d", STREAM_KEEP);
		if (aiw_sim_set(sim, "sim.series_keep", keep) != AIW_OK) {
			cli_errorf("%s", aiw_sim_errmsg(sim)); /* a library without streaming */
			aiw_sim_free(sim);
			cli_run_opts_free(&o);
			return EXIT_FAIL;
		}
	}
	/* --openmetrics and --promtest: the latency histograms at every sample
	 * (set first: the scenario or --set may say otherwise) */
	if ((o.openmetrics || o.promtest) &&
	    aiw_sim_set(sim, "sim.histogram_series", "true") != AIW_OK) {
		cli_errorf("%s", aiw_sim_errmsg(sim));
		aiw_sim_free(sim);
		cli_run_opts_free(&o);
		return EXIT_FAIL;
	}
	rc = cli_run_configure(sim, &o);
	if (rc == 0)
		rc = check_paths(&o, sim);
	if (rc == 0 && o.stream_csv) {
		st.f = fopen(o.stream_csv, "w");
		if (!st.f) {
			cli_errorf("cannot write '%s': %s", o.stream_csv, strerror(errno));
			rc = EXIT_FAIL;
		} else {
			aiw_sim_set_sample_callback(sim, stream_sample, &st);
		}
	}
	progress pr = {0};
	bool signals = false, interrupted = false;
	if (rc == 0) {
		bool show = o.progress == 1 || (o.progress == -1 && isatty(STDERR_FILENO));
		double end = 0;
		aiw_sim_get_double(sim, "sim.duration", &end);
		clock_gettime(CLOCK_MONOTONIC, &pr.start);
		/* with --stream-csv, Ctrl-C stops the run at the next sample tick, so
		 * that the file ends on a complete row */
		signals = st.f != NULL;
		run_watch w = {show ? &pr : NULL, signals};
		if (show)
			aiw_sim_set_progress(sim, watch_cb, &w, end / 400);
		else if (w.signals)
			aiw_sim_set_progress(sim, watch_cb, &w, 0);
		if (signals)
			cli_sweep_catch_signals(NULL);
		aiw_status st = aiw_sim_run(sim);
		progress_clear(&pr);
		interrupted = signals && cli_sweep_signalled();
		if (interrupted) {
			double now = NAN;
			aiw_sim_now(sim, &now);
			char t[32];
			cli_fmt_duration(t, sizeof t, now);
			cli_errorf("interrupted at %s simulated: '%s' holds the rows up to then; no other "
			           "output written", t, o.stream_csv);
			rc = AIW_CLI_EXIT_INTERRUPTED;
		} else if (st != AIW_OK) {
			run_error(sim, &o);
			rc = cli_exit_code(st) ? cli_exit_code(st) : EXIT_FAIL;
		}
	}
	if (st.f) {
		int src = stream_close(sim, &st, o.stream_csv);
		if (rc == 0)
			rc = src;
	}
	if (signals) /* after the stream's last row is out */
		cli_sweep_release_signals();
	print_warnings(sim);
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double wall = cli_elapsed(&pr.start, &t1);
	if (rc == 0 && o.series)
		rc = lib_write(sim, aiw_sim_write_csv, o.series);
	if (rc == 0 && o.metrics)
		rc = lib_write(sim, aiw_sim_write_prometheus, o.metrics);
	if (rc == 0 && o.promtest) {
		errno = 0;
		aiw_status ws = aiw_sim_write_promtest(sim, o.promtest, o.rules);
		if (ws != AIW_OK) {
			cli_lib_error(aiw_sim_errmsg(sim), ws, errno);
			rc = EXIT_FAIL;
		}
	}
	if (rc == 0 && o.plot) {
		errno = 0;
		aiw_status ws = aiw_sim_write_svg(sim, o.plot, o.title);
		if (ws != AIW_OK) {
			cli_lib_error(aiw_sim_errmsg(sim), ws, errno);
			rc = EXIT_FAIL;
		}
	}
	if (rc == 0 && o.report)
		rc = lib_write(sim, aiw_sim_write_html, o.report);
	if (rc == 0 && o.openmetrics) {
		/* default start: midnight UTC today less the run's whole days */
		double start, dur = 0;
		if (o.om_start) {
			start = strtod(o.om_start, NULL);
		} else {
			aiw_sim_get_double(sim, "sim.duration", &dur);
			double today = floor((double)time(NULL) / 86400) * 86400;
			start = today - ceil(dur / 86400) * 86400;
			if (start < 0)
				start = 0;
		}
		errno = 0;
		aiw_status ws = aiw_sim_write_openmetrics(sim, o.openmetrics, start);
		if (ws != AIW_OK) {
			cli_lib_error(aiw_sim_errmsg(sim), ws, errno);
			rc = EXIT_FAIL;
		}
	}
	if (rc == 0 && o.json) {
		FILE *f = fopen(o.json, "w");
		if (!f) {
			cli_errorf("cannot write '%s': %s", o.json, strerror(errno));
			rc = EXIT_FAIL;
		} else {
			rc = write_json_meta(sim, f, &o, wall);
			int crc = cli_close_output(f, o.json);
			if (rc == 0)
				rc = crc;
		}
	}
	if (rc == 0 && (strcmp(o.summary, "text") == 0 || strcmp(o.summary, "full") == 0))
		cli_print_summary(sim, scenario_label(&o), wall, strcmp(o.summary, "full") == 0, &st);
	else if (rc == 0 && strcmp(o.summary, "json") == 0)
		rc = write_json_meta(sim, stdout, &o, wall);
	if (rc == 0)
		rc = cli_flush_stdout();
	aiw_sim_free(sim);
	free(st.sum);
	free(st.span);
	cli_run_opts_free(&o);
	return rc;
}
