/*
 * params.c - `aiworkload params`: the parameter registry as a table, and
 * with --man the aiworkload-params(7) manual page, generated.
 */
#include "common.h"

#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

/* ======================================================================== */
/* params                                                                    */
/* ======================================================================== */
static bool name_matches(const char *name, const char *pat)
{
	if (!pat || !*pat)
		return true;
	if (strpbrk(pat, "*?["))
		return fnmatch(pat, name, 0) == 0;
	return strstr(name, pat) != NULL;
}

static bool numeric_type(const char *type)
{
	return strcmp(type, "string") && strcmp(type, "enum") && strcmp(type, "dist") &&
	       strcmp(type, "bool");
}

/* Interval notation: "[0, 1e+06]", "(0, 3.2e+09]" when the minimum is
 * excluded (AIW_PARAM_MIN_EXCLUSIVE); an enum's choices; "-" for none. */
static void fmt_range(char *buf, size_t len, const char *type, double lo, double hi,
                      const char *choices, unsigned flags)
{
	if (strcmp(type, "enum") == 0)
		snprintf(buf, len, "%s", choices);
	else if (!numeric_type(type) || (lo == 0 && hi == 0))
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%s%g, %g]", flags & AIW_PARAM_MIN_EXCLUSIVE ? "(" : "[", lo, hi);
}

/* The flags of parameter i (0 when the library cannot say). */
static unsigned param_flags(size_t i)
{
	unsigned f = 0;
	if (aiw_param_flags(i, &f) != AIW_OK)
		f = 0;
	return f;
}

static int man_params(void);

static void params_usage(FILE *f)
{
	fprintf(f, "usage: aiworkload params [PATTERN] [--man]\n"
	           "\n"
	           "List the parameters a scenario sets: name, type, default, unit, range, when\n"
	           "it is read and what it means.\n"
	           "\n"
	           "  PATTERN   a substring or shell pattern of parameter names\n"
	           "  --man     the aiworkload-params(7) manual page, generated\n");
}

int cli_params(int argc, char **argv)
{
	const char *man = NULL, *ops[2] = {NULL, NULL};
	const char **opsv = calloc(argc > 0 ? (size_t)argc : 1, sizeof *opsv);
	if (!opsv) {
		cli_errorf("out of memory");
		return EXIT_FAIL;
	}
	const cli_opt opts[] = {{"--man", CLI_OPT_FLAG, &man, NULL, NULL}};
	const cli_cmd who = {cli_prog, "params", false};
	size_t nops = 0;
	bool help = false;
	int rc = cli_parse_options(&who, argc, argv, 2, opts, 1, opsv, &nops, &help);
	ops[0] = nops > 0 ? opsv[0] : NULL;
	ops[1] = nops > 1 ? opsv[1] : NULL;
	free(opsv);
	if (rc)
		return rc;
	if (help) {
		params_usage(stdout);
		return cli_flush_stdout();
	}
	if (ops[1])
		return cli_cmd_usage_error(&who, "one PATTERN at most");
	const char *pat = ops[0];
	if (man) {
		if (pat)
			return cli_cmd_usage_error(&who, "--man takes no PATTERN");
		return man_params();
	}
	size_t n = 0, shown = 0;
	aiw_param_count(&n);
	printf("%-36s %-9s %-14s %-8s %-22s %-7s %s\n", "NAME", "TYPE", "DEFAULT", "UNIT", "RANGE",
	       "WHEN", "DESCRIPTION");
	for (size_t i = 0; i < n; i++) {
		const char *name, *type, *def, *unit, *choices, *doc;
		double lo, hi;
		if (aiw_param_info(i, &name, &type, &def, &unit, &lo, &hi, &choices, &doc) != AIW_OK)
			continue;
		if (!name_matches(name, pat))
			continue;
		char range[128]; /* two %g numbers; an enum's choices are printed as they are */
		unsigned fl = param_flags(i);
		fmt_range(range, sizeof range, type, lo, hi, choices, fl);
		const char *mode = "";
		aiw_param_mode(i, &mode);
		printf("%-36s %-9s %-14s %-8s %-22s %-7s %s%s%s%s\n", name, type, *def ? def : "-",
		       *unit ? unit : "-", strcmp(type, "enum") == 0 ? choices : range,
		       fl & AIW_PARAM_RUNTIME ? "runtime" : "start", doc, *mode ? " [mode: " : "",
		       mode, *mode ? "]" : "");
		shown++;
	}
	if (shown == 0) {
		cli_errorf("no parameter matches '%s'", pat ? pat : "");
		return EXIT_USAGE;
	}
	printf("\nWHEN: runtime = may change during a run (aiw_sim_set between run calls, such as\n"
	       "aiw_sim_run_until steps); start = fixed when the run starts (aiw_sim_reset first).\n"
	       "RANGE: [a, b] includes both ends; (a, b] excludes a (the value must be > a).\n"
	       "[mode: M=V1|V2] the parameter has an effect only when its component's M is V1 or\n"
	       "V2 (conditions separated by spaces all hold; alternatives separated by ;); a run\n"
	       "warns of one given outside its mode.\n");
	return cli_flush_stdout();
}

/* ------------------------------------------------------------------------ */
/* aiworkload-params(7), generated: parameters from the registry, metrics   */
/* and curves from a short run of the built-in scenario plus a load.        */
/* ------------------------------------------------------------------------ */
#define MAN_DATE "November 29, 2026"

/* Text safe on an mdoc text line: escape backslashes, protect a leading dot
 * or apostrophe. */
static void man_text(const char *s)
{
	if (*s == '.' || *s == '\'')
		fputs("\\&", stdout);
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\e", stdout);
		else
			putchar(*s);
	}
}

static int man_params(void)
{
	printf(".\\\" Generated by `aiworkload params --man` from the parameter registry\n"
	       ".\\\" and the metric and curve catalogues; do not edit (tests/cli/test_cli.sh\n"
	       ".\\\" checks that this page equals the generated one).\n"
	       ".Dd %s\n.Dt AIWORKLOAD-PARAMS 7\n.Os libaiworkload %s\n"
	       ".Sh NAME\n.Nm aiworkload-params\n"
	       ".Nd parameters, metrics and curves of libaiworkload\n"
	       ".Sh DESCRIPTION\n"
	       "Every parameter of a simulation, as declared once in the library's\n"
	       "registry: the names scenario files, command-line\n"
	       ".Fl -set\n"
	       "options and\n.Xr aiw_sim_set 3\n"
	       "use.\n"
	       "In a name,\n.Ql NAME\n"
	       "stands for the component name of the scenario section:\n"
	       ".Ql [training pretrain]\n"
	       "gives\n.Ql training.pretrain.gpus .\n"
	       "Values take units, such as\n"
	       ".Ql 90d ,\n.Ql 250ms ,\n.Ql 20/s ,\n.Ql 80GB ,\n.Ql 3.35TB/s\nor\n.Ql 700W ;\n"
	       "a bare number is in SI base units, and so are the ranges below:\n"
	       ".Ql [a, b]\nincludes both ends,\n.Ql (a, b]\nexcludes\n.Ar a\n"
	       "(the value must be greater).\n"
	       "A parameter marked\n.Dq May change during a run\n"
	       "may be set between run calls\n.Pq Xr aiw_sim_run_until 3 ;\n"
	       "the others are fixed when the run starts.\n",
	       MAN_DATE, aiw_version_string());
	/* parameters grouped by kind */
	size_t n = 0;
	aiw_param_count(&n);
	char cur[64] = "";
	for (size_t i = 0; i < n; i++) {
		const char *name, *type, *def, *unit, *choices, *doc;
		double lo, hi;
		if (aiw_param_info(i, &name, &type, &def, &unit, &lo, &hi, &choices, &doc) != AIW_OK)
			continue;
		const char *dot = strchr(name, '.');
		size_t kl = dot ? (size_t)(dot - name) : strlen(name);
		if (strlen(cur) != kl || strncmp(cur, name, kl) != 0) {
			if (cur[0])
				printf(".El\n");
			snprintf(cur, sizeof cur, "%.*s", (int)kl, name);
			printf(".Ss Parameters of %s\n.Bl -tag -width Ds\n", cur);
		}
		bool has_unit = *unit && strcmp(unit, "1") != 0;
		unsigned fl = param_flags(i);
		printf(".It Li %s Pq Vt %s\n", name, type);
		man_text(doc);
		printf(".\nDefault:\n");
		if (*def)
			printf(".Ql %s ;\n", def);
		else
			printf("none;\n");
		if (strcmp(type, "enum") == 0)
			printf("one of\n.Ql %s .\n", choices);
		else if (numeric_type(type) && !(lo == 0 && hi == 0))
			printf("range %s%g, %g]%s%s.\n", fl & AIW_PARAM_MIN_EXCLUSIVE ? "(" : "[", lo, hi,
			       has_unit ? " " : "", has_unit ? unit : "");
		else if (has_unit)
			printf("unit %s.\n", unit);
		else
			printf("no range.\n");
		if (fl & AIW_PARAM_RUNTIME)
			printf("May change during a run.\n");
		const char *mode = "";
		if (aiw_param_mode(i, &mode) == AIW_OK && *mode)
			printf("Has an effect only in the mode\n.Ql \"%s\" .\n", mode);
	}
	if (cur[0])
		printf(".El\n");
	/* metrics, from the kinds' tables (aiw_metric_info) */
	size_t nm = 0;
	aiw_metric_count(&nm);
	printf(".Sh METRICS\n"
	       "Summary metrics, read with\n.Xr aiw_sim_metric 3\n"
	       "after a run call, written by\n.Xr aiw_sim_write_json 3\n"
	       "and exported by\n.Xr aiw_sim_write_prometheus 3 ;\n"
	       "a component publishes those its configuration gives (an autoscaler's\n"
	       "need an autoscaler).\n"
	       "The unit is the name's suffix:\n"
	       ".Ql _s\nseconds,\n.Ql _w\nwatts,\n.Ql _kwh\nkilowatt-hours,\n.Ql _usd\nUS dollars,\n"
	       ".Ql _per_s\nper second; other metrics are counts or ratios.\n"
	       ".Bl -tag -width Ds\n");
	for (size_t i = 0; i < nm; i++) {
		const char *name, *doc;
		if (aiw_metric_info(i, &name, NULL, NULL, &doc, NULL, NULL, NULL) != AIW_OK)
			continue;
		printf(".It Li %s\n", name);
		man_text(doc && *doc ? doc : "(no description yet)");
		printf(".\n");
	}
	printf(".El\n");
	/* curves, from the kinds' tables (aiw_curve_info) */
	size_t nc = 0;
	aiw_curve_count(&nc);
	printf(".Sh CURVES\n"
	       "Time series at\n.Li sim.sample_interval ,\n"
	       "each point the average over the interval that ends at its time, read with\n"
	       ".Xr aiw_sim_series_copy 3\n"
	       "and written by\n.Xr aiw_sim_write_csv 3 ;\n"
	       ".Li sim.series_keep\n"
	       "bounds the points each keeps in memory, and\n"
	       ".Xr aiw_sim_set_sample_callback 3\n"
	       "streams every point as it is recorded.\n"
	       ".Bl -tag -width Ds\n");
	for (size_t i = 0; i < nc; i++) {
		const char *name, *unit, *doc;
		if (aiw_curve_info(i, &name, &unit, &doc) != AIW_OK)
			continue;
		printf(".It Li %s Pq %s\n", name, unit && *unit ? unit : "1");
		man_text(doc && *doc ? doc : "(no description yet)");
		printf(".\n");
	}
	printf(".El\n");
	printf(".Sh SEE ALSO\n.Xr aiworkload 1 ,\n.Xr aiw_param_info 3 ,\n.Xr aiw_sim_set 3 ,\n"
	       ".Xr aiworkload-scenario 5\n");
	return cli_flush_stdout();
}

