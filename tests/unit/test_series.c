/* test_series.c - the recorder: curves from exact integrals, copy-out,
 * CSV/JSON writers, peaks and diversity on scripted loads; streaming: the
 * sample callback and a bounded sim.series_keep (a ring of the last N
 * points), bit for bit against full retention. */
#include "core/internal.h"
#include "core/limits.h"
#include "../testutil.h"

#include <string.h>
#include <unistd.h>

static aiw_sim *scripted(void)
{
	aiw_sim *sim;
	ck_assert_int_eq(aiw_sim_create(&sim, 1), AIW_OK);
	/* two racks whose peaks do not coincide: a 0-2h at 10 kW then 2 kW;
	 * b 0-1h 2 kW, 1-3h 8 kW, then 4 kW; over 4 h sampled every 30 min. */
	const char *text = "[sim]\nduration = 4h\nsample_interval = 30min\n"
	                   "[site]\npue = 1.5\nelectricity_price = 0.1\n"
	                   "[load a]\nprofile = 0:10kW, 2h:2kW\ngpus = 8\n"
	                   "[load b]\nprofile = 0:2kW, 1h:8kW, 3h:4kW\ngpus = 8\n";
	AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim, text, "scripted.ini"));
	return sim;
}

START_TEST(exact_energy_and_peaks)
{
	aiw_sim *sim = scripted();
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	/* energy by hand: a = 2h*10 + 2h*2 = 24 kWh; b = 1*2 + 2*8 + 1*4 = 22 kWh */
	ck_assert_rel(aiwi_test_metric(sim, "load.a.energy_kwh"), 24.0, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "load.b.energy_kwh"), 22.0, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "site.energy_kwh"), 46.0, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "site.facility_energy_kwh"), 69.0, 1e-12);
	/* peaks: a 10 kW, b 8 kW, sum 18 kW; site peak 18 kW during 1-2h */
	ck_assert_rel(aiwi_test_metric(sim, "site.sum_of_peaks_w"), 18000.0, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "site.power_peak_w"), 18000.0, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "site.diversity_factor"), 1.0, 1e-12);
	/* energy cost: 69 kWh x 0.1 */
	ck_assert_rel(aiwi_test_metric(sim, "site.energy_cost_usd"), 6.9, 1e-12);
	/* the curve integrates back to the energy */
	size_t n;
	AIW_OK_OR_FAIL(sim, aiw_sim_series_length(sim, "site.power_w", &n));
	ck_assert_uint_eq(n, 8);
	double t[8], v[8];
	AIW_OK_OR_FAIL(sim, aiw_sim_series_copy(sim, "site.power_w", t, v, 8, &n));
	double e = 0;
	for (size_t i = 0; i < n; i++) {
		ck_assert(t[i] == 1800.0 * (double)(i + 1));
		e += v[i] * 1800.0;
	}
	ck_assert_rel(e / 3.6e6, 46.0, 1e-12);
	double want[8] = {12e3, 12e3, 18e3, 18e3, 10e3, 10e3, 6e3, 6e3};
	for (size_t i = 0; i < 8; i++)
		ck_assert_rel(v[i], want[i], 1e-12);
	/* utilisation: busy while power > 0: both always on */
	AIW_OK_OR_FAIL(sim, aiw_sim_series_copy(sim, "site.utilization", NULL, v, 8, &n));
	for (size_t i = 0; i < 8; i++)
		ck_assert_rel(v[i], 1.0, 1e-12);
	aiw_sim_free(sim);
}
END_TEST

START_TEST(diversity_non_coincident)
{
	/* a rack on for the first hour and one for the second: each peaks at
	 * 5 kW, the site never sees more than 5 kW: diversity factor 2 */
	aiw_sim *sim;
	ck_assert_int_eq(aiw_sim_create(&sim, 1), AIW_OK);
	AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim,
	                                        "[sim]\nduration = 2h\nsample_interval = 10min\n"
	                                        "[load x]\nprofile = 0:5kW, 1h:0W\n"
	                                        "[load y]\nprofile = 0:0W, 1h:5kW\n",
	                                        NULL));
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert_rel(aiwi_test_metric(sim, "site.diversity_factor"), 2.0, 1e-12);
	ck_assert_rel(aiwi_test_metric(sim, "site.power_peak_w"), 5000.0, 1e-12);
	aiw_sim_free(sim);
}
END_TEST

START_TEST(partial_interval_and_steps)
{
	/* duration not a multiple of the interval: a last, shorter point; and
	 * stepping with run_until gives the same curves as one run */
	aiw_sim *a = scripted(), *b = scripted();
	AIW_OK_OR_FAIL(a, aiw_sim_set(a, "sim.duration", "4000s"));
	AIW_OK_OR_FAIL(b, aiw_sim_set(b, "sim.duration", "4000s"));
	AIW_OK_OR_FAIL(a, aiw_sim_run(a));
	for (double t = 0; t < 4000; t += 333)
		AIW_OK_OR_FAIL(b, aiw_sim_run_until(b, t));
	AIW_OK_OR_FAIL(b, aiw_sim_run(b));
	size_t na, nb;
	AIW_OK_OR_FAIL(a, aiw_sim_series_length(a, "load.b.power_w", &na));
	AIW_OK_OR_FAIL(b, aiw_sim_series_length(b, "load.b.power_w", &nb));
	ck_assert_uint_eq(na, 3);
	ck_assert_uint_eq(nb, 3);
	double ta[3], va[3], tb[3], vb[3];
	AIW_OK_OR_FAIL(a, aiw_sim_series_copy(a, "load.b.power_w", ta, va, 3, &na));
	AIW_OK_OR_FAIL(b, aiw_sim_series_copy(b, "load.b.power_w", tb, vb, 3, &nb));
	ck_assert(ta[2] == 4000.0);
	/* 1h..4000s at 8 kW */
	ck_assert_rel(va[2], 8000.0, 1e-12);
	ck_assert_rel(va[1], (1800 * 2000.0 + 0 * 8000.0) / 1800, 1e-12);
	ck_assert(memcmp(va, vb, sizeof va) == 0 && memcmp(ta, tb, sizeof ta) == 0);
	ck_assert_rel(aiwi_test_metric(a, "load.b.energy_kwh"), 2 + 8 * (4000 - 3600) / 3600.0, 1e-12);
	aiw_sim_free(a);
	aiw_sim_free(b);
}
END_TEST

START_TEST(copy_out_and_errors)
{
	aiw_sim *sim = scripted();
	size_t n = 99;
	ck_assert_int_eq(aiw_sim_series_length(sim, "site.power_w", &n), AIW_EUNKNOWN); /* not run */
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	double t[4], v[4];
	ck_assert_int_eq(aiw_sim_series_copy(sim, "site.power_w", t, v, 4, &n), AIW_EBUFFER);
	ck_assert_uint_eq(n, 4);
	ck_assert(t[3] == 4 * 1800.0);
	ck_assert_int_eq(aiw_sim_series_copy(sim, "site.powr_w", t, v, 4, &n), AIW_EUNKNOWN);
	ck_assert_msg(strstr(aiw_sim_errmsg(sim), "did you mean 'site.power_w'"), "%s",
	              aiw_sim_errmsg(sim));
	ck_assert_int_eq(aiw_sim_series_copy(sim, NULL, t, v, 4, &n), AIW_EINVAL);
	ck_assert_int_eq(aiw_sim_series_copy(sim, "site.power_w", t, v, 0, &n), AIW_EBUFFER);
	size_t count;
	AIW_OK_OR_FAIL(sim, aiw_sim_series_count(sim, &count));
	/* per load: power, utilization, cost rate, cost_usd; site: 5 curves */
	ck_assert_uint_eq(count, 2 * 4 + 5);
	const char *name, *unit;
	for (size_t i = 0; i < count; i++) {
		AIW_OK_OR_FAIL(sim, aiw_sim_series_name(sim, i, &name));
		AIW_OK_OR_FAIL(sim, aiw_sim_series_unit(sim, name, &unit));
	}
	ck_assert_int_eq(aiw_sim_series_name(sim, count, &name), AIW_ERANGE);
	ck_assert_int_eq(aiw_sim_series_count(sim, NULL), AIW_EINVAL);
	ck_assert_int_eq(aiw_sim_metric(sim, "site.nothing", &v[0]), AIW_EUNKNOWN);
	ck_assert_int_eq(aiw_sim_metric(sim, NULL, &v[0]), AIW_EINVAL);
	ck_assert_int_eq(aiw_sim_metric_name(sim, 100000, &name), AIW_ERANGE);
	aiw_sim_free(sim);
}
END_TEST

START_TEST(writers)
{
	aiw_sim *sim = scripted();
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	char csv[] = "/tmp/aiwi_csvXXXXXX", json[] = "/tmp/aiwi_jsonXXXXXX";
	close(mkstemp(csv));
	close(mkstemp(json));
	AIW_OK_OR_FAIL(sim, aiw_sim_write_csv(sim, csv));
	AIW_OK_OR_FAIL(sim, aiw_sim_write_json(sim, json));
	FILE *f = fopen(csv, "r");
	char line[4096];
	ck_assert(fgets(line, sizeof line, f));
	ck_assert_msg(strncmp(line, "time_s,", 7) == 0 && strstr(line, "site.power_w [W]"), "%s", line);
	/* find the site.power_w column and compare every row with the copy-out */
	int col = 0, k = 0;
	for (char *p = line; *p; p++)
		if (*p == ',') {
			k++;
			if (strncmp(p + 1, "site.power_w [", 14) == 0)
				col = k;
		}
	double v[8];
	size_t n;
	AIW_OK_OR_FAIL(sim, aiw_sim_series_copy(sim, "site.power_w", NULL, v, 8, &n));
	int rows = 0;
	while (fgets(line, sizeof line, f)) {
		char *p = line;
		for (int c = 0; c < col; c++)
			p = strchr(p, ',') + 1;
		ck_assert(strtod(p, NULL) == v[rows]);
		rows++;
	}
	ck_assert_int_eq(rows, 8);
	fclose(f);
	f = fopen(json, "r");
	static char doc[1 << 17]; /* the whole document: its parameters grow */
	size_t len = fread(doc, 1, sizeof doc - 1, f);
	doc[len] = 0;
	fclose(f);
	ck_assert_msg(strstr(doc, "\"site.diversity_factor\": 1") && strstr(doc, "\"seed\": 1"),
	              "%.2000s", doc);
	unlink(csv);
	unlink(json);
	ck_assert_int_eq(aiw_sim_write_csv(sim, "/nonexistent/dir/x.csv"), AIW_EIO);
	ck_assert_int_eq(aiw_sim_write_json(sim, NULL), AIW_EINVAL);
	aiw_sim_free(sim);
}
END_TEST

/* ======================================================================== */
/* streaming: the sample callback and sim.series_keep                        */
/* ======================================================================== */
/* Every model that records curves: loads (scripted, periodic, on/off
 * racks), a training job with failures, an inference fleet with an
 * autoscaler.  37 ticks of 10 min, the last one shorter (6 h 5 min). */
static const char *MIXED = "[sim]\nduration = 365min\nsample_interval = 10min\n"
                           "[load a]\nprofile = 0:1kW, 20min:3kW, 50min:2kW\nperiod = 1h\n"
                           "[load r]\non_time = exp(10min)\noff_time = exp(20min)\nracks = 4\n"
                           "on_power = 10kW\n"
                           "[training t]\ngpus = 64\njitter = lognormal(0,0.05)\n"
                           "gpu_mtbf = 200h\n"
                           "[inference c]\nrate = 2/s\nreplicas = 2\nautoscaler = kpa\n";

static aiw_sim *mixed(const char *keep)
{
	aiw_sim *sim;
	ck_assert_int_eq(aiw_sim_create(&sim, 7), AIW_OK);
	AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim, MIXED, "mixed.ini"));
	if (keep)
		AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.series_keep", keep));
	return sim;
}

/* What a sample callback saw: every tick's time and values. */
typedef struct rows {
	double *t, *v;
	size_t n, ncurves, cap, calls;
	bool bad_n;
} rows;

static void collect(aiw_sim *sim, double t, const double *values, size_t n, void *payload)
{
	rows *r = payload;
	size_t count = 0;
	aiw_sim_series_count(sim, &count);
	if (r->calls++ == 0)
		r->ncurves = n;
	if (n != r->ncurves || n != count)
		r->bad_n = true;
	if (r->n == r->cap) {
		r->cap = r->cap ? 2 * r->cap : 64;
		r->t = realloc(r->t, r->cap * sizeof *r->t);
		r->v = realloc(r->v, r->cap * r->ncurves * sizeof *r->v);
		ck_assert(r->t && r->v);
	}
	r->t[r->n] = t;
	memcpy(r->v + r->n * r->ncurves, values, r->ncurves * sizeof *values);
	r->n++;
}

static void rows_free(rows *r)
{
	free(r->t);
	free(r->v);
}

/* Curve i of sim, kept points, into new arrays. */
static size_t curve(aiw_sim *sim, size_t i, double **t, double **v)
{
	const char *name;
	size_t n;
	AIW_OK_OR_FAIL(sim, aiw_sim_series_name(sim, i, &name));
	AIW_OK_OR_FAIL(sim, aiw_sim_series_length(sim, name, &n));
	*t = malloc((n ? n : 1) * sizeof **t);
	*v = malloc((n ? n : 1) * sizeof **v);
	ck_assert(*t && *v);
	size_t got = 0;
	AIW_OK_OR_FAIL(sim, aiw_sim_series_copy(sim, name, *t, *v, n, &got));
	ck_assert_uint_eq(got, n);
	return n;
}

/* Same bits: memcmp, so that NaN points compare equal to NaN points. */
#define ck_assert_same_bits(a, b, n) ck_assert(memcmp((a), (b), (n) * sizeof *(a)) == 0)

START_TEST(callback_equals_copy)
{
	aiw_sim *sim = mixed(NULL);
	rows r = {0};
	AIW_OK_OR_FAIL(sim, aiw_sim_set_sample_callback(sim, collect, &r));
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	size_t ns;
	AIW_OK_OR_FAIL(sim, aiw_sim_series_count(sim, &ns));
	ck_assert_uint_ge(ns, 20); /* every model's curves take part */
	ck_assert(!r.bad_n);
	ck_assert_uint_eq(r.ncurves, ns);
	ck_assert_uint_eq(r.n, 37);
	ck_assert(r.t[36] == 6 * 3600.0 + 300);
	for (size_t i = 0; i < ns; i++) {
		double *t, *v;
		size_t n = curve(sim, i, &t, &v);
		ck_assert_uint_eq(n, r.n);
		ck_assert_same_bits(t, r.t, n);
		for (size_t k = 0; k < n; k++)
			ck_assert_msg(memcmp(&v[k], &r.v[k * ns + i], sizeof *v) == 0,
			              "curve %zu tick %zu: copy %.17g, callback %.17g", i, k, v[k],
			              r.v[k * ns + i]);
		free(t);
		free(v);
	}
	rows_free(&r);
	aiw_sim_free(sim);
}
END_TEST

/* Bits of every metric of a run, in publication order. */
static void same_metrics(aiw_sim *a, aiw_sim *b)
{
	size_t na, nb;
	AIW_OK_OR_FAIL(a, aiw_sim_metric_count(a, &na));
	AIW_OK_OR_FAIL(b, aiw_sim_metric_count(b, &nb));
	ck_assert_uint_eq(na, nb);
	ck_assert_uint_gt(na, 50);
	for (size_t i = 0; i < na; i++) {
		const char *ma, *mb;
		double va, vb;
		AIW_OK_OR_FAIL(a, aiw_sim_metric_name(a, i, &ma));
		AIW_OK_OR_FAIL(b, aiw_sim_metric_name(b, i, &mb));
		ck_assert_str_eq(ma, mb);
		AIW_OK_OR_FAIL(a, aiw_sim_metric(a, ma, &va));
		AIW_OK_OR_FAIL(b, aiw_sim_metric(b, mb, &vb));
		ck_assert_msg(memcmp(&va, &vb, sizeof va) == 0, "%s: %.17g vs %.17g", ma, va, vb);
	}
}

/* The kept points of ring are the last points of full, bit for bit. */
static void tail_equals(aiw_sim *full, aiw_sim *ring, size_t keep)
{
	size_t ns, ns2;
	AIW_OK_OR_FAIL(full, aiw_sim_series_count(full, &ns));
	AIW_OK_OR_FAIL(ring, aiw_sim_series_count(ring, &ns2));
	ck_assert_uint_eq(ns, ns2);
	for (size_t i = 0; i < ns; i++) {
		double *tf, *vf, *tr, *vr;
		size_t nf = curve(full, i, &tf, &vf), nr = curve(ring, i, &tr, &vr);
		size_t want = nf < keep ? nf : keep;
		ck_assert_uint_eq(nr, want);
		ck_assert_same_bits(tr, tf + (nf - nr), nr);
		const char *name;
		aiw_sim_series_name(ring, i, &name);
		for (size_t k = 0; k < nr; k++)
			ck_assert_msg(memcmp(&vr[k], &vf[nf - nr + k], sizeof *vr) == 0,
			              "keep %zu, %s point %zu of %zu: ring %.17g, full %.17g", keep, name,
			              k, nr, vr[k], vf[nf - nr + k]);
		free(tf), free(vf), free(tr), free(vr);
	}
}

/* Reading the curves during the run (which rotates a wrapped ring in
 * place) must not disturb the recording: a callback that copies a curve
 * out at every tick and checks its newest point. */
static void read_back(aiw_sim *sim, double t, const double *values, size_t n, void *payload)
{
	int *bad = payload;
	const char *name;
	size_t len = 0, got = 0;
	double tt[64], vv[64];
	aiw_sim_series_name(sim, n - 1, &name);
	if (aiw_sim_series_length(sim, name, &len) != AIW_OK || len == 0 || len > 64 ||
	    aiw_sim_series_copy(sim, name, tt, vv, len, &got) != AIW_OK || got != len ||
	    tt[len - 1] != t || memcmp(&vv[len - 1], &values[n - 1], sizeof *vv) != 0)
		++*bad;
	for (size_t k = 1; k < got; k++)
		if (!(tt[k] > tt[k - 1]))
			++*bad;
}

START_TEST(keep_is_the_tail)
{
	aiw_sim *full = mixed(NULL);
	rows rf = {0};
	AIW_OK_OR_FAIL(full, aiw_sim_set_sample_callback(full, collect, &rf));
	AIW_OK_OR_FAIL(full, aiw_sim_run(full));
	/* keeps that wrap at different offsets of 37 ticks, one that holds
	 * them all, and 1 */
	static const size_t KEEPS[] = {1, 5, 7, 16, 36, 37, 1000};
	for (size_t j = 0; j < sizeof KEEPS / sizeof *KEEPS; j++) {
		char keep[32];
		snprintf(keep, sizeof keep, "%zu", KEEPS[j]);
		aiw_sim *ring = mixed(keep);
		char got[32];
		AIW_OK_OR_FAIL(ring, aiw_sim_get(ring, "sim.series_keep", got, sizeof got));
		ck_assert_str_eq(got, keep);
		rows rr = {0};
		AIW_OK_OR_FAIL(ring, aiw_sim_set_sample_callback(ring, collect, &rr));
		AIW_OK_OR_FAIL(ring, aiw_sim_run(ring));
		tail_equals(full, ring, KEEPS[j]);
		same_metrics(full, ring);
		/* the callback saw every tick, the same as with full retention */
		ck_assert_uint_eq(rr.n, rf.n);
		ck_assert_same_bits(rr.t, rf.t, rf.n);
		ck_assert_same_bits(rr.v, rf.v, rf.n * rf.ncurves);
		/* allocation: min(ticks, keep) points */
		size_t want = KEEPS[j] < 37 ? KEEPS[j] : 37;
		ck_assert_uint_eq(aiwi_rec_capacity(aiwi_sim_recorder(ring)), want);
		rows_free(&rr);
		aiw_sim_free(ring);
	}
	rows_free(&rf);
	aiw_sim_free(full);
	/* the same in steps (each run call brings the models' integrals to its
	 * end, which rounds differently from one run: compare with a full run
	 * made of the same steps), reading the curves at every tick and
	 * between steps */
	full = mixed(NULL);
	aiw_sim *ring = mixed("7");
	int bad = 0;
	AIW_OK_OR_FAIL(ring, aiw_sim_set_sample_callback(ring, read_back, &bad));
	for (double t = 0; t < 6 * 3600.0; t += 1337) {
		AIW_OK_OR_FAIL(full, aiw_sim_run_until(full, t));
		AIW_OK_OR_FAIL(ring, aiw_sim_run_until(ring, t));
		double tt[8];
		size_t n;
		AIW_OK_OR_FAIL(ring, aiw_sim_series_copy(ring, "site.power_w", tt, NULL, 8, &n));
		tail_equals(full, ring, 7);
	}
	AIW_OK_OR_FAIL(full, aiw_sim_run(full));
	AIW_OK_OR_FAIL(ring, aiw_sim_run(ring));
	ck_assert_int_eq(bad, 0);
	tail_equals(full, ring, 7);
	same_metrics(full, ring);
	aiw_sim_free(ring);
	aiw_sim_free(full);
}
END_TEST

/* Text of a file (NUL-terminated, caller frees). */
static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	ck_assert(f);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *s = malloc((size_t)n + 1);
	ck_assert(s && fread(s, 1, (size_t)n, f) == (size_t)n);
	s[n] = 0;
	fclose(f);
	return s;
}

START_TEST(writers_on_the_ring)
{
	aiw_sim *full = mixed(NULL), *ring = mixed("5");
	AIW_OK_OR_FAIL(full, aiw_sim_run(full));
	AIW_OK_OR_FAIL(ring, aiw_sim_run(ring));
	char a[] = "/tmp/aiwi_ringaXXXXXX", b[] = "/tmp/aiwi_ringbXXXXXX";
	close(mkstemp(a));
	close(mkstemp(b));
	/* CSV: the header and the last 5 rows of the full run's file */
	AIW_OK_OR_FAIL(full, aiw_sim_write_csv(full, a));
	AIW_OK_OR_FAIL(ring, aiw_sim_write_csv(ring, b));
	char *fa = slurp(a), *fb = slurp(b);
	char *hdr_end = strchr(fa, '\n');
	ck_assert(hdr_end && strncmp(fa, fb, (size_t)(hdr_end - fa + 1)) == 0);
	char *tail = fa + strlen(fa);
	for (int k = 0; k < 6; k++) /* back over 5 lines and their newlines */
		while (tail > fa && *--tail != '\n')
			;
	ck_assert_str_eq(tail + 1, strchr(fb, '\n') + 1);
	free(fa), free(fb);
	/* promtest: blanks for the 32 points streamed out, a note */
	AIW_OK_OR_FAIL(ring, aiw_sim_write_promtest(ring, b, NULL));
	fb = slurp(b);
	ck_assert_msg(strstr(fb, "values: '_ _x32 ") && strstr(fb, "sim.series_keep kept the last 5"),
	              "%s", fb);
	free(fb);
	/* the SVG's time axis starts where the kept points do */
	AIW_OK_OR_FAIL(ring, aiw_sim_write_svg(ring, b, NULL));
	fb = slurp(b);
	ck_assert_msg(strstr(fb, "the last 5 points (sim.series_keep; from 320 min)"), "%s", fb);
	free(fb);
	/* the Prometheus exposition's last points, the same in both */
	AIW_OK_OR_FAIL(full, aiw_sim_write_prometheus(full, a));
	AIW_OK_OR_FAIL(ring, aiw_sim_write_prometheus(ring, b));
	fa = slurp(a), fb = slurp(b);
	ck_assert_str_eq(fa, fb);
	free(fa), free(fb);
	unlink(a);
	unlink(b);
	aiw_sim_free(full);
	aiw_sim_free(ring);
}
END_TEST

static void sum_curves(aiw_sim *sim, double t, const double *values, size_t n, void *payload)
{
	double *sum = payload;
	for (size_t i = 0; i < n && i < 16; i++)
		if (isfinite(values[i]))
			sum[i] += values[i];
}

START_TEST(long_run_bounded)
{
	/* 30 days of 1-minute points (43,200 ticks) with 16 kept: the
	 * recorder allocates 16 points a curve, the estimate says so, and the
	 * callback still sees every tick (the energy integrates back) */
	aiw_sim *sim;
	ck_assert_int_eq(aiw_sim_create(&sim, 1), AIW_OK);
	AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim,
	                                        "[sim]\nduration = 30d\nsample_interval = 1min\n"
	                                        "series_keep = 16\n"
	                                        "[load a]\nprofile = 0:10kW, 6h:4kW\nperiod = 1d\n",
	                                        "long.ini"));
	aiwi_limits_est e;
	AIW_OK_OR_FAIL(sim, aiwi_limits_estimate(sim, &e));
	ck_assert(e.samples == 43201);
	ck_assert(e.points == 16);
	double sum[16] = {0};
	AIW_OK_OR_FAIL(sim, aiw_sim_set_sample_callback(sim, sum_curves, sum));
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert_uint_eq(aiwi_rec_capacity(aiwi_sim_recorder(sim)), 16);
	size_t n, ns;
	AIW_OK_OR_FAIL(sim, aiw_sim_series_count(sim, &ns));
	for (size_t i = 0; i < ns; i++) {
		const char *name;
		AIW_OK_OR_FAIL(sim, aiw_sim_series_name(sim, i, &name));
		AIW_OK_OR_FAIL(sim, aiw_sim_series_length(sim, name, &n));
		ck_assert_uint_eq(n, 16);
		if (strcmp(name, "site.power_w") == 0) /* sum of 1-min averages x 60 s = energy */
			ck_assert_rel(sum[i] * 60 / 3.6e6, aiwi_test_metric(sim, "site.energy_kwh"), 1e-9);
	}
	double t[16];
	AIW_OK_OR_FAIL(sim, aiw_sim_series_copy(sim, "site.power_w", t, NULL, 16, &n));
	for (size_t k = 0; k < 16; k++)
		ck_assert(t[k] == 60.0 * (double)(43200 - 15 + k));
	/* without a bound the estimate is the full run */
	AIW_OK_OR_FAIL(sim, aiw_sim_reset(sim));
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.series_keep", "all"));
	AIW_OK_OR_FAIL(sim, aiwi_limits_estimate(sim, &e));
	ck_assert(e.points == 43201);
	char buf[16];
	AIW_OK_OR_FAIL(sim, aiw_sim_get(sim, "sim.series_keep", buf, sizeof buf));
	ck_assert_str_eq(buf, "all");
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.series_keep", "0"));
	AIW_OK_OR_FAIL(sim, aiw_sim_get(sim, "sim.series_keep", buf, sizeof buf));
	ck_assert_str_eq(buf, "all");
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.series_keep", "ALL"));
	aiw_sim_free(sim);
}
END_TEST

static void count_calls(aiw_sim *sim, double t, const double *values, size_t n, void *payload)
{
	++*(int *)payload;
}

static void remove_self(aiw_sim *sim, double t, const double *values, size_t n, void *payload)
{
	++*(int *)payload;
	aiw_sim_set_sample_callback(sim, NULL, NULL);
}

START_TEST(callback_set_and_removed)
{
	aiw_sim *sim = scripted(); /* 8 ticks */
	int calls = 0, other = 0;
	ck_assert_int_eq(aiw_sim_set_sample_callback(NULL, count_calls, &calls), AIW_EINVAL);
	AIW_OK_OR_FAIL(sim, aiw_sim_set_sample_callback(sim, count_calls, &calls));
	AIW_OK_OR_FAIL(sim, aiw_sim_set_sample_callback(sim, NULL, &calls)); /* removes it */
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert_int_eq(calls, 0);
	/* set mid-run: the ticks from then on; the setting survives a reset */
	AIW_OK_OR_FAIL(sim, aiw_sim_reset(sim));
	AIW_OK_OR_FAIL(sim, aiw_sim_run_until(sim, 2 * 3600.0));
	AIW_OK_OR_FAIL(sim, aiw_sim_set_sample_callback(sim, count_calls, &calls));
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert_int_eq(calls, 4);
	AIW_OK_OR_FAIL(sim, aiw_sim_reset(sim));
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert_int_eq(calls, 12);
	/* replaced, and removed from inside the callback */
	AIW_OK_OR_FAIL(sim, aiw_sim_reset(sim));
	AIW_OK_OR_FAIL(sim, aiw_sim_set_sample_callback(sim, remove_self, &other));
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert_int_eq(other, 1);
	ck_assert_int_eq(calls, 12);
	aiw_sim_free(sim);
}
END_TEST

/* A callback that calls back into the simulation: run calls and reset are
 * refused with AIW_ESTATE, reading works, so do writers and setting runtime
 * parameters; the run itself is unaffected. */
typedef struct hostile_cb {
	int calls, refused, read_ok, other_ok;
	char csv[32];
} hostile_cb;

static void noop_event(aiw_sim *sim, double t, void *payload)
{
	(void)sim, (void)t, (void)payload;
}

static void reenter(aiw_sim *sim, double t, const double *values, size_t n, void *payload)
{
	hostile_cb *h = payload;
	h->calls++;
	h->refused += aiw_sim_run(sim) == AIW_ESTATE;
	h->refused += aiw_sim_run_until(sim, t + 3600) == AIW_ESTATE;
	h->refused += aiw_sim_reset(sim) == AIW_ESTATE;
	h->refused += aiw_sim_set(sim, "sim.series_keep", "3") == AIW_ESTATE;
	h->refused += aiw_sim_add_component(sim, "load", "late") == AIW_ESTATE;
	double v = 0, now = -1;
	size_t len = 0, got = 0;
	double tt[8], vv[8];
	const char *name;
	aiw_status m = aiw_sim_metric(sim, "site.power_peak_w", &v);
	if ((m == AIW_OK || m == AIW_EUNKNOWN) && aiw_sim_now(sim, &now) == AIW_OK && now == t &&
	    aiw_sim_series_name(sim, 0, &name) == AIW_OK &&
	    aiw_sim_series_length(sim, name, &len) == AIW_OK && len >= 1 && len <= 8 &&
	    aiw_sim_series_copy(sim, name, tt, vv, 8, &got) == AIW_OK && got == len &&
	    tt[len - 1] == t && memcmp(&vv[len - 1], &values[0], sizeof v) == 0)
		h->read_ok++;
	if (aiw_sim_write_csv(sim, h->csv) == AIW_OK &&
	    aiw_sim_schedule(sim, t + 1, noop_event, NULL, NULL) == AIW_OK &&
	    aiw_sim_set_sample_callback(sim, reenter, h) == AIW_OK)
		h->other_ok++;
}

START_TEST(callback_reentrancy)
{
	aiw_sim *plain = scripted(), *sim = scripted();
	AIW_OK_OR_FAIL(plain, aiw_sim_set(plain, "sim.series_keep", "8"));
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.series_keep", "3"));
	hostile_cb h = {.csv = "/tmp/aiwi_reenterXXXXXX"};
	close(mkstemp(h.csv));
	AIW_OK_OR_FAIL(sim, aiw_sim_set_sample_callback(sim, reenter, &h));
	AIW_OK_OR_FAIL(plain, aiw_sim_run(plain));
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	ck_assert_int_eq(h.calls, 8);
	ck_assert_int_eq(h.refused, 5 * 8);
	ck_assert_int_eq(h.read_ok, 8);
	ck_assert_int_eq(h.other_ok, 8);
	unlink(h.csv);
	/* the scheduled no-op events add to sim.events only */
	tail_equals(plain, sim, 3);
	ck_assert(aiwi_test_metric(plain, "site.energy_kwh") == aiwi_test_metric(sim, "site.energy_kwh"));
	ck_assert(aiwi_test_metric(plain, "site.power_peak_w") ==
	          aiwi_test_metric(sim, "site.power_peak_w"));
	ck_assert(aiwi_test_metric(sim, "sim.events") == aiwi_test_metric(plain, "sim.events") + 8);
	aiw_sim_free(plain);
	aiw_sim_free(sim);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("series");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, exact_energy_and_peaks);
	tcase_add_test(tc, diversity_non_coincident);
	tcase_add_test(tc, partial_interval_and_steps);
	tcase_add_test(tc, copy_out_and_errors);
	tcase_add_test(tc, writers);
	suite_add_tcase(s, tc);
	tc = tcase_create("stream");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, callback_equals_copy);
	tcase_add_test(tc, keep_is_the_tail);
	tcase_add_test(tc, writers_on_the_ring);
	tcase_add_test(tc, long_run_bounded);
	tcase_add_test(tc, callback_set_and_removed);
	tcase_add_test(tc, callback_reentrancy);
	suite_add_tcase(s, tc);
	return s;
}

AIW_TEST_MAIN(make_suite)
