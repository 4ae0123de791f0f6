/* test_export.c - the writers of export.c: Prometheus exposition (names,
 * base units, values equal to the metrics and curves), promtool test-rules
 * input series (decoded back to the curves), and the SVG chart (well-formed
 * XML, peaks kept by the per-column downsampling, errors). */
#include "core/internal.h"
#include "core/stats.h"
#include "../testutil.h"

#include <string.h>
#include <unistd.h>

/* Two loads whose power is known by hand (as in test_series): a 0-2h at
 * 10 kW then 2 kW; b 0-1h 2 kW, 1-3h 8 kW, then 4 kW; 4 h every 30 min. */
static aiw_sim *scripted(void)
{
	aiw_sim *sim;
	ck_assert_int_eq(aiw_sim_create(&sim, 7), AIW_OK);
	const char *text = "[sim]\nduration = 4h\nsample_interval = 30min\n"
	                   "[site]\npue = 1.5\nelectricity_price = 0.1\n"
	                   "[load a]\nprofile = 0:10kW, 2h:2kW\ngpus = 8\n"
	                   "[load b]\nprofile = 0:2kW, 1h:8kW, 3h:4kW\ngpus = 8\n";
	AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim, text, "scripted.ini"));
	return sim;
}

static char *tmpname(const char *tag)
{
	static char buf[8][64];
	static int k;
	char *p = buf[k++ % 8];
	snprintf(p, 64, "/tmp/aiw_%s_XXXXXX", tag);
	int fd = mkstemp(p);
	ck_assert(fd >= 0);
	close(fd);
	return p;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *s = malloc((size_t)n + 1);
	ck_assert(fread(s, 1, (size_t)n, f) == (size_t)n);
	s[n] = 0;
	fclose(f);
	return s;
}

/* Value of the exposition sample whose text before the value is `series`. */
static double prom_sample(const char *text, const char *series)
{
	size_t l = strlen(series);
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL) {
		if (strncmp(p, series, l) == 0 && p[l] == ' ')
			return strtod(p + l + 1, NULL);
	}
	ck_abort_msg("no sample '%s' in the exposition", series);
	return NAN;
}

START_TEST(prometheus_values_and_names)
{
	aiw_sim *sim = scripted();
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	char *path = tmpname("prom");
	AIW_OK_OR_FAIL(sim, aiw_sim_write_prometheus(sim, path));
	char *t = slurp(path);
	ck_assert_msg(strstr(t, "aiworkload_info{version=\"" ) != NULL, "%s", t);
	ck_assert(prom_sample(t, "aiworkload_info{version=\"0.1.0\",seed=\"7\"}") == 1.0);
	/* kWh become joules (x 3.6e6), _w watts, _s seconds: base units */
	ck_assert_rel(prom_sample(t, "aiworkload_site_energy_joules"), 46.0 * 3.6e6, 1e-12);
	ck_assert_rel(prom_sample(t, "aiworkload_site_facility_energy_joules"), 69.0 * 3.6e6, 1e-12);
	ck_assert(prom_sample(t, "aiworkload_site_power_peak_watts") ==
	          aiwi_test_metric(sim, "site.power_peak_w"));
	ck_assert(prom_sample(t, "aiworkload_sim_time_seconds") == 4 * 3600.0);
	ck_assert(prom_sample(t, "aiworkload_site_diversity_factor") ==
	          aiwi_test_metric(sim, "site.diversity_factor"));
	/* component metrics carry kind and component labels */
	ck_assert_rel(prom_sample(t, "aiworkload_load_energy_joules{kind=\"load\",component=\"a\"}"),
	              24.0 * 3.6e6, 1e-12);
	ck_assert_rel(prom_sample(t, "aiworkload_load_power_peak_watts{kind=\"load\",component=\"b\"}"),
	              8000.0, 1e-12);
	/* operator names: the last interval (3.5-4 h): a 2 kW, b 4 kW */
	ck_assert(prom_sample(t, "power_watts{kind=\"load\",component=\"a\"}") == 2000.0);
	ck_assert(prom_sample(t, "power_watts{kind=\"load\",component=\"b\"}") == 4000.0);
	ck_assert(prom_sample(t, "site_power_watts") == 6000.0);
	ck_assert(prom_sample(t, "site_facility_power_watts") == 9000.0);
	ck_assert(prom_sample(t, "gpu_utilization{kind=\"load\",component=\"a\"}") == 1.0);
	ck_assert(prom_sample(t, "site_gpu_utilization") == 1.0);
	/* every metric is exported, and every family has exactly one HELP and
	 * one TYPE line placed before its samples, its samples contiguous */
	size_t nm;
	AIW_OK_OR_FAIL(sim, aiw_sim_metric_count(sim, &nm));
	size_t samples = 0, types = 0;
	char fam[256] = "", seen[64][256];
	size_t nseen = 0;
	for (char *line = t; line && *line;) {
		char *nl = strchr(line, '\n');
		ck_assert_msg(nl != NULL, "last line without a newline");
		*nl = 0;
		if (strncmp(line, "# TYPE ", 7) == 0) {
			types++;
			char name[256];
			ck_assert(sscanf(line + 7, "%255s", name) == 1);
			for (size_t i = 0; i < nseen; i++)
				ck_assert_msg(strcmp(seen[i], name) != 0, "family %s split", name);
			if (nseen < 64)
				snprintf(seen[nseen++], sizeof seen[0], "%s", name);
			snprintf(fam, sizeof fam, "%s", name);
		} else if (line[0] != '#') {
			samples++;
			ck_assert_msg(strncmp(line, fam, strlen(fam)) == 0 &&
			                  (line[strlen(fam)] == ' ' || line[strlen(fam)] == '{'),
			              "sample '%s' outside its family %s", line, fam);
			/* names: [a-zA-Z_][a-zA-Z0-9_]* (no ':' either, per the linter) */
			for (const char *c = line; *c != ' ' && *c != '{'; c++)
				ck_assert_msg((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') ||
				                  *c == '_',
				              "bad name in '%s'", line);
		}
		line = nl + 1;
	}
	/* info + metrics + 3 curves of 2 loads + 3 site curves */
	ck_assert_uint_eq(samples, 1 + nm + 2 * 2 + 3);
	ck_assert_uint_eq(types, nseen);
	free(t);
	unlink(path);
	aiw_sim_free(sim);
}
END_TEST

START_TEST(prometheus_errors)
{
	aiw_sim *sim = scripted();
	ck_assert_int_eq(aiw_sim_write_prometheus(NULL, "/tmp/x"), AIW_EINVAL);
	ck_assert_int_eq(aiw_sim_write_prometheus(sim, NULL), AIW_EINVAL);
	ck_assert_int_eq(aiw_sim_write_prometheus(sim, "/nonexistent/dir/x.prom"), AIW_EIO);
	ck_assert_msg(strstr(aiw_sim_errmsg(sim), "/nonexistent/dir/x.prom"), "%s",
	              aiw_sim_errmsg(sim));
	/* a write that fails after the open names the file and the reason */
	if (access("/dev/full", W_OK) == 0) {
		ck_assert_int_eq(aiw_sim_write_prometheus(sim, "/dev/full"), AIW_EIO);
		ck_assert_msg(strstr(aiw_sim_errmsg(sim), "error writing '/dev/full': No space"),
		              "%s", aiw_sim_errmsg(sim));
	}
	/* before a run: only the info line, still a valid exposition */
	char *path = tmpname("prom0");
	AIW_OK_OR_FAIL(sim, aiw_sim_write_prometheus(sim, path));
	char *t = slurp(path);
	ck_assert_msg(strstr(t, "aiworkload_info{") && !strstr(t, "power_watts"), "%s", t);
	free(t);
	unlink(path);
	aiw_sim_free(sim);
}
END_TEST

/* The exposition's latency histograms come from the inference fleet through
 * aiwi_serving_hist() (export.c declares it weak).  This weak definition
 * stands in while serving.c has none: a known histogram for "e2e" only.
 * Once serving.c defines it (strong), that one wins and the test checks
 * the fleet's real histogram for consistency instead. */
static aiwi_hist test_hist;
static int test_hook_calls;
__attribute__((weak)) const aiwi_hist *aiwi_serving_hist(const aiwi_comp *c, const char *which);
__attribute__((weak)) const aiwi_hist *aiwi_serving_hist(const aiwi_comp *c, const char *which)
{
	test_hook_calls++;
	return strcmp(c->kind->name, "inference") == 0 && strcmp(which, "e2e") == 0 ? &test_hist
	                                                                             : NULL;
}

START_TEST(prometheus_histogram)
{
	/* 100 samples: 10 at 3 ms, 20 at 20 ms, 30 at 0.3 s, 40 at 3 s.  Every
	 * sample is more than 1% (the histogram's relative error) from every le
	 * bound, so the cumulative bucket counts are exact: le 0.005 -> 10,
	 * 0.025 -> 30, 0.5 -> 60, 5 -> 100; sum 0.03 + 0.4 + 9 + 120 = 129.43. */
	char e[128];
	AIW_OK_OR_FAIL(NULL, aiwi_hist_init(&test_hist, AIW_HIST_MIN_S, AIW_HIST_MAX_S,
	                                   AIW_HIST_REL_ERR, e, sizeof e));
	aiwi_hist_add_n(&test_hist, 0.003, 10);
	aiwi_hist_add_n(&test_hist, 0.02, 20);
	aiwi_hist_add_n(&test_hist, 0.3, 30);
	aiwi_hist_add_n(&test_hist, 3.0, 40);
	aiw_sim *sim;
	ck_assert_int_eq(aiw_sim_create(&sim, 3), AIW_OK);
	AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim,
	                                        "[sim]\nduration = 10min\n"
	                                        "[inference chat]\ngpus_per_replica = 2\n"
	                                        "weight_bits = 8\nrate = 2/s\nreplicas = 2\n",
	                                        NULL));
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	char *path = tmpname("hist");
	test_hook_calls = 0;
	AIW_OK_OR_FAIL(sim, aiw_sim_write_prometheus(sim, path));
	char *t = slurp(path);
	ck_assert_msg(strstr(t, "# TYPE inference_request_duration_seconds histogram\n"), "%s", t);
	const char *b = "inference_request_duration_seconds_bucket{component=\"chat\",le=";
	char k[200];
	if (test_hook_calls > 0) {
		static const char *const le[] = {"0.005", "0.01", "0.025", "0.05", "0.1", "0.25",
		                                 "0.5",   "1",    "2.5",   "5",    "10",  "+Inf"};
		static const double want[] = {10, 10, 30, 30, 30, 30, 60, 60, 60, 100, 100, 100};
		for (size_t i = 0; i < sizeof want / sizeof *want; i++) {
			snprintf(k, sizeof k, "%s\"%s\"}", b, le[i]);
			ck_assert_msg(prom_sample(t, k) == want[i], "%s", k);
		}
		ck_assert_rel(prom_sample(t, "inference_request_duration_seconds_sum{component=\"chat\"}"),
		              129.43, 1e-12);
		ck_assert(prom_sample(t, "inference_request_duration_seconds_count{component=\"chat\"}") ==
		          100);
		/* the hook was asked for the other families, which it does not have */
		ck_assert(!strstr(t, "inference_time_to_first_token_seconds_bucket"));
	} else {
		/* serving.c's own histograms: cumulative, and the +Inf bucket and the
		 * count are the completed requests */
		double prev = 0, done = aiwi_test_metric(sim, "inference.chat.requests_completed");
		static const char *const le[] = {"0.005", "0.01", "0.025", "0.05", "0.1", "0.25", "0.5",
		                                 "1",     "2.5",  "5",     "10",   "30",  "60",  "120",
		                                 "+Inf"};
		for (size_t i = 0; i < sizeof le / sizeof *le; i++) {
			snprintf(k, sizeof k, "%s\"%s\"}", b, le[i]);
			double v = prom_sample(t, k);
			ck_assert_msg(v >= prev, "%s not cumulative", k);
			prev = v;
		}
		ck_assert(prev == done);
		ck_assert(prom_sample(t, "inference_request_duration_seconds_count{component=\"chat\"}") ==
		          done);
	}
	free(t);
	unlink(path);
	aiw_sim_free(sim);
	aiwi_hist_free(&test_hist);
}
END_TEST

/* Decode a promtool values string ("_ 1 2x3 _x2") into v; returns count.
 * promtool: "a+bxn" is n+1 values a, a+b, ...; "axn" is a+0xn; "_xn" is n
 * blanks (NAN here). */
static size_t decode_values(const char *s, double *v, size_t cap)
{
	size_t n = 0;
	char tok[64];
	int used;
	while (sscanf(s, "%63s%n", tok, &used) == 1) {
		s += used;
		char *x = strchr(tok, 'x');
		if (tok[0] == '_') {
			size_t k = x ? strtoul(x + 1, NULL, 10) : 1;
			for (size_t i = 0; i < k && n < cap; i++)
				v[n++] = NAN;
			continue;
		}
		size_t k = x ? strtoul(x + 1, NULL, 10) + 1 : 1;
		if (x)
			*x = 0; /* "0x7" is not hexadecimal here */
		double a = strtod(tok, NULL);
		for (size_t i = 0; i < k && n < cap; i++)
			v[n++] = a;
	}
	return n;
}

/* The values string of a series in a promtest file. */
static char *promtest_values(const char *text, const char *series)
{
	char key[300];
	snprintf(key, sizeof key, "- series: '%s'\n        values: '", series);
	const char *p = strstr(text, key);
	ck_assert_msg(p != NULL, "no series %s", series);
	p += strlen(key);
	const char *q = strchr(p, '\'');
	char *out = strndup(p, (size_t)(q - p));
	return out;
}

START_TEST(promtest_series_decode_to_curves)
{
	aiw_sim *sim = scripted();
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	char *path = tmpname("ptest");
	AIW_OK_OR_FAIL(sim, aiw_sim_write_promtest(sim, path, "rules/a.yml, b.yml"));
	char *t = slurp(path);
	ck_assert_msg(strstr(t, "rule_files:\n  - 'rules/a.yml'\n  - 'b.yml'\n"), "%s", t);
	ck_assert_msg(strstr(t, "evaluation_interval: 1800s\n"), "%s", t);
	ck_assert_msg(strstr(t, "tests:\n  - interval: 1800s\n    input_series:\n"), "%s", t);
	/* exact text for a curve known by hand: runs of two stay explicit */
	char *v = promtest_values(t, "site_power_watts");
	ck_assert_str_eq(v, "_ 12000 12000 18000 18000 10000 10000 6000 6000");
	free(v);
	v = promtest_values(t, "gpu_utilization{kind=\"load\",component=\"a\"}");
	ck_assert_str_eq(v, "_ 1x7"); /* eight ones: "1x7" is 7 + 1 values */
	free(v);
	/* every curve decodes back to its points (time 0 blank), in %.10g */
	size_t ns;
	AIW_OK_OR_FAIL(sim, aiw_sim_series_count(sim, &ns));
	const char *alias[][2] = {{"site.power_w", "site_power_watts"},
	                          {"site.facility_power_w", "site_facility_power_watts"},
	                          {"load.b.power_w", "power_watts{kind=\"load\",component=\"b\"}"},
	                          {"load.b.cost_rate_usd_per_h",
	                           "aiworkload_load_cost_rate_usd_per_second{kind=\"load\","
	                           "component=\"b\"}"}};
	for (size_t a = 0; a < sizeof alias / sizeof *alias; a++) {
		double pts[8], dec[16];
		size_t n;
		AIW_OK_OR_FAIL(sim, aiw_sim_series_copy(sim, alias[a][0], NULL, pts, 8, &n));
		v = promtest_values(t, alias[a][1]);
		size_t m = decode_values(v, dec, 16);
		ck_assert_uint_eq(m, n + 1);
		ck_assert(isnan(dec[0]));
		double scale = strstr(alias[a][1], "per_second") ? 1 / 3600.0 : 1.0;
		for (size_t i = 0; i < n; i++)
			ck_assert_rel(dec[i + 1], pts[i] * scale, 1e-9);
		free(v);
	}
	free(t);
	unlink(path);
	/* no rule files: an empty list */
	AIW_OK_OR_FAIL(sim, aiw_sim_write_promtest(sim, path, NULL));
	t = slurp(path);
	ck_assert_msg(strstr(t, "rule_files: []\n"), "%s", t);
	free(t);
	unlink(path);
	aiw_sim_free(sim);
}
END_TEST

START_TEST(promtest_blanks_and_errors)
{
	aiw_sim *sim = scripted();
	char *path = tmpname("ptest2");
	ck_assert_int_eq(aiw_sim_write_promtest(sim, path, NULL), AIW_ESTATE); /* not run */
	ck_assert_int_eq(aiw_sim_write_promtest(sim, NULL, NULL), AIW_EINVAL);
	ck_assert_int_eq(aiw_sim_write_promtest(NULL, path, NULL), AIW_EINVAL);
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert_int_eq(aiw_sim_write_promtest(sim, path, "a'b.yml"), AIW_EINVAL);
	ck_assert_int_eq(aiw_sim_write_promtest(sim, "/nonexistent/dir/t.yml", NULL), AIW_EIO);
	aiw_sim_free(sim);
	/* sub-millisecond sample interval: promtool cannot express it */
	ck_assert_int_eq(aiw_sim_create(&sim, 1), AIW_OK);
	AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim,
	                                        "[sim]\nduration = 10ms\nsample_interval = 0.5ms\n"
	                                        "[load a]\nprofile = 0:1kW\n",
	                                        NULL));
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert_int_eq(aiw_sim_write_promtest(sim, path, NULL), AIW_ERANGE);
	ck_assert_msg(strstr(aiw_sim_errmsg(sim), "sample_interval"), "%s", aiw_sim_errmsg(sim));
	/* 100 ms is fine and written in milliseconds */
	AIW_OK_OR_FAIL(sim, aiw_sim_reset(sim));
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.sample_interval", "100ms"));
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.duration", "1s"));
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	AIW_OK_OR_FAIL(sim, aiw_sim_write_promtest(sim, path, NULL));
	char *t = slurp(path);
	ck_assert_msg(strstr(t, "interval: 100ms\n"), "%s", t);
	char *v = promtest_values(t, "power_watts{kind=\"load\",component=\"a\"}");
	ck_assert_str_eq(v, "_ 1000x9");
	free(v);
	free(t);
	unlink(path);
	aiw_sim_free(sim);
}
END_TEST

/* ------------------------------------------------------------------------ */
/* SVG                                                                       */
/* ------------------------------------------------------------------------ */
/* Well-formedness of the subset the writer emits: balanced elements,
 * quoted attributes, entities only &amp; &lt; &gt; &quot; &apos;. */
static void check_xml(const char *s)
{
	const char *stack[64];
	size_t sl[64], depth = 0;
	ck_assert_msg(strncmp(s, "<?xml version=\"1.0\"", 19) == 0, "no XML declaration");
	s = strstr(s, "?>") + 2;
	int roots = 0;
	while (*s) {
		if (*s == '&') {
			ck_assert_msg(strncmp(s, "&amp;", 5) == 0 || strncmp(s, "&lt;", 4) == 0 ||
			                  strncmp(s, "&gt;", 4) == 0 || strncmp(s, "&quot;", 6) == 0 ||
			                  strncmp(s, "&apos;", 6) == 0,
			              "bad entity at '%.20s'", s);
			s++;
			continue;
		}
		if (*s == '>') {
			ck_abort_msg("stray '>' at '%.30s'", s);
		}
		if (*s != '<') {
			s++;
			continue;
		}
		if (s[1] == '/') {
			const char *e = strchr(s, '>');
			ck_assert(e && depth > 0);
			depth--;
			ck_assert_msg((size_t)(e - s - 2) == sl[depth] &&
			                  strncmp(s + 2, stack[depth], sl[depth]) == 0,
			              "mismatched close tag at '%.30s'", s);
			s = e + 1;
			continue;
		}
		const char *name = s + 1;
		size_t nl = strcspn(name, " />\n");
		ck_assert(nl > 0);
		const char *p = name + nl;
		/* attributes: name="value" with no '<' in values */
		for (;;) {
			while (*p == ' ' || *p == '\n')
				p++;
			if (*p == '>' || (p[0] == '/' && p[1] == '>'))
				break;
			const char *eq = strchr(p, '=');
			ck_assert_msg(eq && eq[1] == '"', "unquoted attribute at '%.30s'", p);
			const char *q = strchr(eq + 2, '"');
			ck_assert(q);
			ck_assert_msg(memchr(eq + 2, '<', (size_t)(q - eq - 2)) == NULL, "'<' in attribute");
			p = q + 1;
		}
		if (*p == '/') {
			s = p + 2;
			if (depth == 0)
				roots++;
			continue;
		}
		if (depth == 0)
			roots++;
		ck_assert(depth < 64);
		stack[depth] = name;
		sl[depth++] = nl;
		s = p + 1;
	}
	ck_assert_uint_eq(depth, 0);
	ck_assert_int_eq(roots, 1);
}

static size_t count(const char *s, const char *needle)
{
	size_t n = 0;
	for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

START_TEST(svg_well_formed)
{
	aiw_sim *sim = scripted();
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	char *path = tmpname("svg");
	AIW_OK_OR_FAIL(sim, aiw_sim_write_svg(sim, path, "Site <A> & \"B\""));
	char *s = slurp(path);
	check_xml(s);
	ck_assert_msg(strstr(s, "<title>Site &lt;A&gt; &amp; &quot;B&quot;</title>"), "%.400s", s);
	/* three panels (site power, stacked, utilisation; no replicas): three
	 * frames; two stacked areas; legends name both loads */
	ck_assert_uint_eq(count(s, "class=\"frame\""), 3);
	ck_assert_uint_eq(count(s, "fill-opacity=\"0.85\""), 2);
	ck_assert(count(s, ">load.a</text>") == 2 && count(s, ">load.b</text>") == 2);
	ck_assert(strstr(s, "power (kW)") && strstr(s, "utilisation (%)") && strstr(s, "time (h)"));
	/* the time axis starts at 0, which reads "0", never "-0" */
	ck_assert_uint_eq(count(s, "class=\"xtick\">0</text>"), 3);
	ck_assert_msg(!strstr(s, ">-0</text>"), "a tick label reads -0");
	free(s);
	/* default title names the components */
	AIW_OK_OR_FAIL(sim, aiw_sim_write_svg(sim, path, NULL));
	s = slurp(path);
	check_xml(s);
	ck_assert_msg(strstr(s, "<title>libaiworkload run: load.a, load.b</title>"), "%.300s", s);
	free(s);
	unlink(path);
	aiw_sim_free(sim);
}
END_TEST

/* parse "M x y L x y ...": the minimum y (the highest point), the maximum
 * y (the lowest point) and the number of points */
static double path_min_y(const char *d, size_t *npts, double *maxy)
{
	double miny = INFINITY;
	size_t n = 0;
	*maxy = -INFINITY;
	while (*d && *d != '"') {
		if (*d == 'M' || *d == 'L') {
			double x, y;
			ck_assert(sscanf(d + 1, "%lf %lf", &x, &y) == 2);
			if (y < miny)
				miny = y;
			if (y > *maxy)
				*maxy = y;
			n++;
		}
		d++;
	}
	*npts = n;
	return miny;
}

START_TEST(svg_downsampling_keeps_spikes)
{
	/* 100,000 one-second points, far more than the 660 px plot: a single
	 * 1-second spike to 5 kW over a 1 kW base must still reach its height
	 * in the min-max band (a per-column mean flattens it to 1 + 4/151 kW).  Heights above
	 * the axis: spike / base = 5 (to the 0.1 px rounding of coordinates,
	 * 0.1 px on the ~24 px of 1 kW: 0.5%); facility = 1.5 x IT on the same
	 * axis (0.1 / 190 px < 1e-3). */
	aiw_sim *sim;
	ck_assert_int_eq(aiw_sim_create(&sim, 1), AIW_OK);
	AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim,
	                                        "[sim]\nduration = 100000s\nsample_interval = 1s\n"
	                                        "[site]\npue = 1.5\n"
	                                        "[load x]\nprofile = 0:1kW, 50000s:5kW, 50001s:1kW\n",
	                                        NULL));
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	char *path = tmpname("svg2");
	AIW_OK_OR_FAIL(sim, aiw_sim_write_svg(sim, path, NULL));
	char *s = slurp(path);
	check_xml(s);
	const char *fr = strstr(s, "class=\"frame\"");
	ck_assert(fr);
	/* <rect x="90" y="Y0" width=".." height="190" class="frame"/> */
	const char *ry = fr;
	while (ry > s && strncmp(ry, "<rect", 5) != 0)
		ry--;
	double y0 = strtod(strstr(ry, "y=\"") + 3, NULL), base = y0 + 190;
	/* downsampled: a min-max band per curve (under a line of column means) */
	const char *fac = strstr(s, "class=\"band\" fill=\"#888888\"");
	const char *it = strstr(s, "class=\"band\" fill=\"#222222\"");
	ck_assert(fac && it);
	size_t nfac, nit;
	double yf_low, yi_low;
	double yf = path_min_y(strstr(fac, "d=\"") + 3, &nfac, &yf_low);
	double yi = path_min_y(strstr(it, "d=\"") + 3, &nit, &yi_low);
	ck_assert_rel((base - yi) / (base - yf), 1 / 1.5, 1e-3);
	ck_assert_rel((base - yi) / (base - yi_low), 5.0, 1e-2);
	/* the band: a maximum and a minimum per pixel column, one closed path */
	ck_assert_msg(nit == 2 * 660 && nfac == 2 * 660, "%zu, %zu points", nit, nfac);
	/* the axis covers the facility peak, 7.5 kW: ticks up to 8 */
	ck_assert_msg(strstr(s, "class=\"ytick\">8</text>"), "no 8 kW tick");
	free(s);
	unlink(path);
	aiw_sim_free(sim);
}
END_TEST

START_TEST(svg_errors)
{
	aiw_sim *sim = scripted();
	char *path = tmpname("svg3");
	ck_assert_int_eq(aiw_sim_write_svg(sim, path, NULL), AIW_ESTATE); /* not run */
	ck_assert_int_eq(aiw_sim_write_svg(NULL, path, NULL), AIW_EINVAL);
	ck_assert_int_eq(aiw_sim_write_svg(sim, NULL, NULL), AIW_EINVAL);
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert_int_eq(aiw_sim_write_svg(sim, "/nonexistent/dir/x.svg", NULL), AIW_EIO);
	unlink(path);
	aiw_sim_free(sim);
}
END_TEST

/* The report: self-contained (the embedded charting library, no outside
 * resource), one chart record per curve, the tables, text escaped. */
START_TEST(html_report)
{
	aiw_sim *sim = scripted();
	char *path = tmpname("html");
	ck_assert_int_eq(aiw_sim_write_html(sim, path), AIW_ESTATE); /* not run */
	ck_assert_msg(strstr(aiw_sim_errmsg(sim), "run first"), "%s", aiw_sim_errmsg(sim));
	ck_assert_int_eq(aiw_sim_write_html(NULL, path), AIW_EINVAL);
	ck_assert_int_eq(aiw_sim_write_html(sim, NULL), AIW_EINVAL);
	ck_assert_msg(strstr(aiw_sim_errmsg(sim), "aiw_sim_write_html: path is NULL"), "%s",
	              aiw_sim_errmsg(sim));
	ck_assert_int_eq(aiw_sim_write_html(sim, ""), AIW_EINVAL);
	ck_assert_msg(strstr(aiw_sim_errmsg(sim), "path is empty"), "%s", aiw_sim_errmsg(sim));
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert_int_eq(aiw_sim_write_html(sim, "/nonexistent/dir/x.html"), AIW_EIO);
	ck_assert_msg(strstr(aiw_sim_errmsg(sim), "/nonexistent/dir/x.html"), "%s",
	              aiw_sim_errmsg(sim));
	AIW_OK_OR_FAIL(sim, aiw_sim_write_html(sim, path));
	char *s = slurp(path);
	ck_assert_ptr_nonnull(s);
	ck_assert_msg(strncmp(s, "<!DOCTYPE html>", 15) == 0, "no doctype");
	ck_assert_msg(strstr(s, "default-src 'none'"), "no Content-Security-Policy");
	ck_assert_msg(strstr(s, "uPlot"), "the charting library is not embedded");
	ck_assert_msg(strstr(s, ".uplot"), "uPlot's style is not embedded");
	ck_assert_msg(strstr(s, "</html>\n"), "the page is not complete");
	size_t n = 0;
	AIW_OK_OR_FAIL(sim, aiw_sim_series_count(sim, &n));
	ck_assert_uint_gt(n, 3);
	for (size_t i = 0; i < n; i++) {
		const char *name;
		char want[256];
		AIW_OK_OR_FAIL(sim, aiw_sim_series_name(sim, i, &name));
		snprintf(want, sizeof want, "{\"name\":\"%s\"", name);
		ck_assert_msg(strstr(s, want), "no chart data for %s", name);
	}
	ck_assert_msg(strstr(s, "id=\"power-table\""), "no power table");
	ck_assert_msg(strstr(s, "id=\"summary-table\""), "no summary table");
	free(s);
	unlink(path);
	aiw_sim_free(sim);
}
END_TEST

/* OpenMetrics: argument checks; every curve's points stamped start + t,
 * the values the curves hold; # EOF last. */
START_TEST(openmetrics_series)
{
	aiw_sim *sim = scripted();
	char *path = tmpname("om");
	ck_assert_int_eq(aiw_sim_write_openmetrics(sim, path, 0), AIW_ESTATE); /* not run */
	ck_assert_int_eq(aiw_sim_write_openmetrics(NULL, path, 0), AIW_EINVAL);
	ck_assert_int_eq(aiw_sim_write_openmetrics(sim, NULL, 0), AIW_EINVAL);
	ck_assert_msg(strstr(aiw_sim_errmsg(sim), "path is NULL"), "%s", aiw_sim_errmsg(sim));
	ck_assert_int_eq(aiw_sim_write_openmetrics(sim, "", 0), AIW_EINVAL);
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert_int_eq(aiw_sim_write_openmetrics(sim, path, -1), AIW_ERANGE);
	ck_assert_msg(strstr(aiw_sim_errmsg(sim), "start = -1"), "%s", aiw_sim_errmsg(sim));
	ck_assert_int_eq(aiw_sim_write_openmetrics(sim, path, NAN), AIW_ERANGE);
	ck_assert_int_eq(aiw_sim_write_openmetrics(sim, path, 1e11), AIW_ERANGE);
	ck_assert_int_eq(aiw_sim_write_openmetrics(sim, "/nonexistent/dir/x.om", 0), AIW_EIO);
	AIW_OK_OR_FAIL(sim, aiw_sim_write_openmetrics(sim, path, 1.5e9));
	char *s = slurp(path);
	ck_assert_ptr_nonnull(s);
	size_t l = strlen(s);
	ck_assert_msg(l > 6 && strcmp(s + l - 6, "# EOF\n") == 0, "no # EOF at the end");
	/* the site's power: one line per point, its value and time */
	size_t n = 0;
	AIW_OK_OR_FAIL(sim, aiw_sim_series_length(sim, "site.power_w", &n));
	ck_assert_uint_gt(n, 2);
	double *t = malloc(n * sizeof *t), *v = malloc(n * sizeof *v);
	ck_assert_ptr_nonnull(t);
	ck_assert_ptr_nonnull(v);
	AIW_OK_OR_FAIL(sim, aiw_sim_series_copy(sim, "site.power_w", t, v, n, &n));
	const char *p = s;
	size_t k = 0;
	while ((p = strstr(p, "\nsite_power_watts "))) {
		double val, ts;
		ck_assert_int_eq(sscanf(p + 18, "%lf %lf", &val, &ts), 2);
		ck_assert_uint_lt(k, n);
		ck_assert_msg(val == v[k], "point %zu: %.17g, curve %.17g", k, val, v[k]);
		ck_assert_msg(fabs(ts - (1.5e9 + t[k])) < 1e-3, "point %zu at %.3f", k, ts);
		k++;
		p++;
	}
	ck_assert_uint_eq(k, n);
	ck_assert_msg(strstr(s, "# TYPE site_power_watts gauge\n"), "no gauge family");
	free(t);
	free(v);
	free(s);
	unlink(path);
	aiw_sim_free(sim);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("export");
	TCase *tc = tcase_create("prometheus");
	tcase_add_test(tc, prometheus_values_and_names);
	tcase_add_test(tc, prometheus_errors);
	tcase_add_test(tc, prometheus_histogram);
	tcase_add_test(tc, promtest_series_decode_to_curves);
	tcase_add_test(tc, promtest_blanks_and_errors);
	suite_add_tcase(s, tc);
	tc = tcase_create("svg");
	tcase_add_test(tc, svg_well_formed);
	tcase_add_test(tc, svg_downsampling_keeps_spikes);
	tcase_add_test(tc, svg_errors);
	tcase_add_test(tc, html_report);
	tcase_add_test(tc, openmetrics_series);
	tcase_set_timeout(tc, 60);
	suite_add_tcase(s, tc);
	return s;
}

AIW_TEST_MAIN(make_suite)
