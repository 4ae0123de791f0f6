/*
 * run.c - `aiworkload run` and `aiworkload plot` (a run that writes an SVG
 * and no summary): options, configuration, the progress bar, --stream-csv
 * and the output files.
 */
#include "common.h"

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
typedef struct run_opts {
	const char **scenarios;
	size_t nscenarios;
	const char **sets; /* "NAME=VALUE" in command-line order */
	size_t nsets;
	const char *seed, *duration, *sample_interval;
	const char *summary;
	const char *series, *json, *metrics, *promtest, *rules, *plot, *title;
	const char *stream_csv;
	int progress; /* -1 auto, 0 off, 1 on */
} run_opts;

static const char *scenario_label(const run_opts *o)
{
	return o->nscenarios ? o->scenarios[0] : "built-in mixed site (aiworkload scenario)";
}

static int parse_run_opts(int argc, char **argv, int first, run_opts *o, bool plot)
{
	memset(o, 0, sizeof *o);
	o->progress = -1;
	o->summary = plot ? "none" : "text";
	o->scenarios = calloc((size_t)argc, sizeof *o->scenarios);
	o->sets = calloc((size_t)argc, sizeof *o->sets);
	if (!o->scenarios || !o->sets) {
		cli_errorf("out of memory");
		return EXIT_FAIL;
	}
	for (int i = first; i < argc; i++) {
		const char *a = argv[i], *v = NULL;
		int err = 0;
		if (strcmp(a, "--") == 0) {
			for (i++; i < argc; i++)
				o->scenarios[o->nscenarios++] = argv[i];
			break;
		}
		if (a[0] != '-' || strcmp(a, "-") == 0) {
			o->scenarios[o->nscenarios++] = a;
			continue;
		}
		if (cli_opt_value(argc, argv, &i, "--set", &v, &err)) {
			if (!err && !strchr(v, '='))
				err = cli_usage_error("--set %s: expected NAME=VALUE", v);
			if (!err)
				o->sets[o->nsets++] = v;
		} else if (cli_opt_value(argc, argv, &i, "--seed", &v, &err)) {
			o->seed = v;
		} else if (cli_opt_value(argc, argv, &i, "--duration", &v, &err)) {
			o->duration = v;
		} else if (cli_opt_value(argc, argv, &i, "--sample-interval", &v, &err)) {
			o->sample_interval = v;
		} else if (cli_opt_value(argc, argv, &i, "--summary", &v, &err)) {
			if (!err && strcmp(v, "text") && strcmp(v, "full") && strcmp(v, "json") &&
			    strcmp(v, "none"))
				err = cli_usage_error("--summary %s: use text, full, json or none", v);
			o->summary = v;
		} else if (cli_opt_value(argc, argv, &i, "--series", &v, &err)) {
			o->series = v;
		} else if (cli_opt_value(argc, argv, &i, "--stream-csv", &v, &err)) {
			o->stream_csv = v;
		} else if (cli_opt_value(argc, argv, &i, "--json", &v, &err)) {
			o->json = v;
		} else if (cli_opt_value(argc, argv, &i, "--metrics", &v, &err)) {
			o->metrics = v;
		} else if (cli_opt_value(argc, argv, &i, "--promtest", &v, &err)) {
			o->promtest = v;
		} else if (cli_opt_value(argc, argv, &i, "--rules", &v, &err)) {
			o->rules = v;
		} else if (cli_opt_value(argc, argv, &i, "--plot", &v, &err) ||
		           cli_opt_value(argc, argv, &i, "--output", &v, &err) ||
		           cli_opt_value(argc, argv, &i, "-o", &v, &err)) {
			o->plot = v;
		} else if (cli_opt_value(argc, argv, &i, "--title", &v, &err)) {
			o->title = v;
		} else if (strcmp(a, "--progress") == 0) {
			o->progress = 1;
		} else if (strcmp(a, "--no-progress") == 0) {
			o->progress = 0;
		} else {
			return cli_usage_error("unknown option '%s'", a);
		}
		if (err)
			return err;
	}
	if (plot && !o->plot)
		return cli_usage_error("plot: give the SVG file with -o FILE.svg");
	if (plot && o->nscenarios == 0)
		return cli_usage_error("plot: give a scenario file (or use `aiworkload run --plot FILE.svg`)");
	if (o->rules && !o->promtest)
		return cli_usage_error("--rules goes with --promtest FILE.yml");
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

static int configure(aiw_sim *sim, const run_opts *o)
{
	aiw_status st;
	if (o->nscenarios == 0) {
		st = aiw_sim_load_string(sim, cli_default_scenario, "mixed-site.ini (built-in)");
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
	int rc;
	for (size_t i = 0; i < o->nsets; i++) {
		char buf[1024];
		snprintf(buf, sizeof buf, "%s", o->sets[i]);
		char *eq = strchr(buf, '=');
		*eq = 0;
		char *name = buf, *value = eq + 1;
		while (isspace((unsigned char)*name))
			name++;
		for (char *e = eq; e > name && isspace((unsigned char)e[-1]);)
			*--e = 0;
		if ((rc = set_param(sim, name, value, "--set")) != 0)
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

/* The library's JSON with the command's metadata spliced in front. */
static int write_json_meta(aiw_sim *sim, FILE *out, const run_opts *o, double wall)
{
	char tmpl[] = "/tmp/aiworkload-jsonXXXXXX";
	const char *td = getenv("TMPDIR");
	char path[4096];
	snprintf(path, sizeof path, "%s/aiworkload-jsonXXXXXX", td && *td ? td : "/tmp");
	int fd = mkstemp(path);
	if (fd < 0) {
		fd = mkstemp(tmpl);
		snprintf(path, sizeof path, "%s", tmpl);
	}
	if (fd < 0) {
		cli_errorf("cannot create a temporary file: %s", strerror(errno));
		return EXIT_FAIL;
	}
	close(fd);
	aiw_status st = aiw_sim_write_json(sim, path);
	FILE *in = st == AIW_OK ? fopen(path, "r") : NULL;
	if (!in) {
		cli_errorf("%s", st != AIW_OK ? aiw_sim_errmsg(sim) : strerror(errno));
		unlink(path);
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
	return ferror(out) ? EXIT_FAIL : 0;
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
	bool bad = ferror(s->f) != 0;
	if (fclose(s->f) != 0 || bad) {
		cli_errorf("error writing '%s'", path);
		s->f = NULL;
		return EXIT_FAIL;
	}
	s->f = NULL;
	return 0;
}

int cli_run(int argc, char **argv, int first, bool plot)
{
	run_opts o;
	int rc = parse_run_opts(argc, argv, first, &o, plot);
	if (rc) {
		free(o.scenarios);
		free(o.sets);
		return rc;
	}
	aiw_sim *sim = NULL;
	if (aiw_sim_create(&sim, 1) != AIW_OK) {
		cli_errorf("out of memory");
		free(o.scenarios);
		free(o.sets);
		return EXIT_FAIL;
	}
	/* --stream-csv: a small ring of points in memory, unless the scenario or
	 * --set says otherwise (set first, they override it) or another output
	 * needs the whole curves */
	cli_stream st = {0};
	if (o.stream_csv && !o.series && !o.promtest && !o.plot) {
		char keep[32];
		snprintf(keep, sizeof keep, "%d", STREAM_KEEP);
		if (aiw_sim_set(sim, "sim.series_keep", keep) != AIW_OK) {
			cli_errorf("%s", aiw_sim_errmsg(sim)); /* a library without streaming */
			aiw_sim_free(sim);
			free(o.scenarios);
			free(o.sets);
			return EXIT_FAIL;
		}
	}
	rc = configure(sim, &o);
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
	if (rc == 0) {
		bool show = o.progress == 1 || (o.progress == -1 && isatty(STDERR_FILENO));
		double end = 0;
		aiw_sim_get_double(sim, "sim.duration", &end);
		clock_gettime(CLOCK_MONOTONIC, &pr.start);
		if (show)
			aiw_sim_set_progress(sim, progress_cb, &pr, end / 400);
		aiw_status st = aiw_sim_run(sim);
		progress_clear(&pr);
		if (st != AIW_OK) {
			cli_errorf("%s", aiw_sim_errmsg(sim));
			rc = cli_exit_code(st) ? cli_exit_code(st) : EXIT_FAIL;
		}
	}
	if (st.f) {
		int src = stream_close(sim, &st, o.stream_csv);
		if (rc == 0)
			rc = src;
	}
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double wall = cli_elapsed(&pr.start, &t1);
	struct {
		const char *path;
		aiw_status (*fn)(aiw_sim *, const char *);
	} writers[] = {{o.series, aiw_sim_write_csv}, {o.metrics, aiw_sim_write_prometheus}};
	for (size_t i = 0; rc == 0 && i < sizeof writers / sizeof *writers; i++)
		if (writers[i].path && writers[i].fn(sim, writers[i].path) != AIW_OK) {
			cli_errorf("%s", aiw_sim_errmsg(sim));
			rc = EXIT_FAIL;
		}
	if (rc == 0 && o.promtest && aiw_sim_write_promtest(sim, o.promtest, o.rules) != AIW_OK) {
		cli_errorf("%s", aiw_sim_errmsg(sim));
		rc = EXIT_FAIL;
	}
	if (rc == 0 && o.plot && aiw_sim_write_svg(sim, o.plot, o.title) != AIW_OK) {
		cli_errorf("%s", aiw_sim_errmsg(sim));
		rc = EXIT_FAIL;
	}
	if (rc == 0 && o.json) {
		FILE *f = fopen(o.json, "w");
		if (!f) {
			cli_errorf("cannot write '%s': %s", o.json, strerror(errno));
			rc = EXIT_FAIL;
		} else {
			rc = write_json_meta(sim, f, &o, wall);
			if (fclose(f) != 0 && rc == 0) {
				cli_errorf("error writing '%s'", o.json);
				rc = EXIT_FAIL;
			}
		}
	}
	if (rc == 0 && (strcmp(o.summary, "text") == 0 || strcmp(o.summary, "full") == 0))
		cli_print_summary(sim, scenario_label(&o), wall, strcmp(o.summary, "full") == 0, &st);
	else if (rc == 0 && strcmp(o.summary, "json") == 0)
		rc = write_json_meta(sim, stdout, &o, wall);
	if (rc == 0 && (fflush(stdout) != 0 || ferror(stdout))) {
		cli_errorf("error writing to standard output");
		rc = EXIT_FAIL;
	}
	aiw_sim_free(sim);
	free(st.sum);
	free(st.span);
	free(o.scenarios);
	free(o.sets);
	return rc;
}

