/* testutil.h - what the Check suites share: status and closeness
 * assertions, metric reads, request conservation, curve integrals, the
 * detection of slow builds (valgrind, the sanitizers), temporary files and
 * one main(). */
#ifndef AIW_TESTUTIL_H
#define AIW_TESTUTIL_H

#include <check.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#endif
#endif

#include "aiworkload.h"

/* Assert a call returns AIW_OK, showing the sim's message when it does not. */
#define AIW_OK_OR_FAIL(sim, call)                                                     \
	do {                                                                          \
		aiw_status st_ = (call);                                              \
		ck_assert_msg(st_ == AIW_OK, "%s -> %s: %s", #call, aiw_status_name(st_), \
		              (sim) ? aiw_sim_errmsg(sim) : "");                      \
	} while (0)

/* Relative closeness with a stated tolerance. */
#define ck_assert_rel(a, b, tol)                                                       \
	do {                                                                           \
		double a_ = (a), b_ = (b);                                             \
		double d_ = fabs(a_ - b_) / (fabs(b_) > 0 ? fabs(b_) : 1.0);           \
		ck_assert_msg(d_ <= (tol), "%s = %.17g vs %s = %.17g: relative error %.3g > %.3g", \
		              #a, a_, #b, b_, d_, (double)(tol));                     \
	} while (0)

static inline double aiwi_test_metric(aiw_sim *sim, const char *name)
{
	double v = NAN;
	aiw_status st = aiw_sim_metric(sim, name, &v);
	ck_assert_msg(st == AIW_OK, "metric %s: %s", name, aiw_sim_errmsg(sim));
	return v;
}

/* Whether one of sim's warnings contains needle (every call of the
 * warning API must succeed). */
static inline bool aiwi_test_warned(aiw_sim *sim, const char *needle)
{
	size_t n = 0;
	AIW_OK_OR_FAIL(sim, aiw_sim_warning_count(sim, &n));
	for (size_t i = 0; i < n; i++) {
		const char *w;
		AIW_OK_OR_FAIL(sim, aiw_sim_warning(sim, i, &w));
		if (strstr(w, needle))
			return true;
	}
	return false;
}

/* Request conservation of an inference component ("inference.chat"),
 * exactly: arrived = completed + dropped + in flight. */
static inline void aiwi_test_conservation(aiw_sim *sim, const char *prefix)
{
	char n[4][160];
	static const char *const key[4] = {"requests_arrived", "requests_completed",
	                                   "requests_dropped", "requests_in_flight"};
	double v[4];
	for (int i = 0; i < 4; i++) {
		snprintf(n[i], sizeof n[i], "%s.%s", prefix, key[i]);
		v[i] = aiwi_test_metric(sim, n[i]);
	}
	ck_assert_msg(v[0] == v[1] + v[2] + v[3],
	              "%s: arrived %.17g != completed %.17g + dropped %.17g + in flight %.17g", prefix,
	              v[0], v[1], v[2], v[3]);
}

/* The integral over time of a recorded curve: each point is the average
 * over the sample interval that ends at its time, so the integral is the
 * sum of point x interval (the first interval starts at 0).  All its points
 * must be kept (sim.series_keep = all). */
static inline double aiwi_test_curve_integral(aiw_sim *sim, const char *name)
{
	size_t n = 0;
	aiw_status st = aiw_sim_series_length(sim, name, &n);
	ck_assert_msg(st == AIW_OK, "curve %s: %s", name, aiw_sim_errmsg(sim));
	double *t = malloc((n ? n : 1) * sizeof *t), *v = malloc((n ? n : 1) * sizeof *v);
	ck_assert(t && v);
	size_t got = 0;
	st = aiw_sim_series_copy(sim, name, t, v, n, &got);
	ck_assert(got == n);
	ck_assert_msg(st == AIW_OK, "curve %s: %s", name, aiw_sim_errmsg(sim));
	double sum = 0, prev = 0;
	for (size_t i = 0; i < n; i++) {
		sum += v[i] * (t[i] - prev);
		prev = t[i];
	}
	free(t);
	free(v);
	return sum;
}

/* Running under valgrind (about 50 times slower): tests shrink their sizes
 * there, since the point is memory checking. */
/* Every metric (sim.events and the wall clock aside) and every point of
 * every curve of a and b equal, but for the rounding of sums taken in
 * another order: relative 1e-9 (a request, a token or a bucket count apart
 * is far more), a curve's point relative to the curve's largest value (a
 * point is the difference of a running integral over one interval, whose
 * rounding is that of the integral).  For runs that must agree up to that
 * rounding (eager cuts against boundary events); curves of up to 4096
 * points. */
static inline void aiwi_test_same_results(aiw_sim *a, aiw_sim *b, const char *what)
{
	size_t n = 0, nb = 0;
	ck_assert_int_eq(aiw_sim_metric_count(a, &n), AIW_OK);
	ck_assert_int_eq(aiw_sim_metric_count(b, &nb), AIW_OK);
	ck_assert_uint_eq(n, nb);
	for (size_t i = 0; i < n; i++) {
		const char *name;
		ck_assert_int_eq(aiw_sim_metric_name(a, i, &name), AIW_OK);
		if (!strcmp(name, "sim.events") || !strncmp(name, "sim.wall", 8))
			continue;
		double x = aiwi_test_metric(a, name), y = aiwi_test_metric(b, name);
		ck_assert_msg((isnan(x) && isnan(y)) || fabs(x - y) <= 1e-9 * fmax(fabs(x), fabs(y)),
		              "%s: %s eager %.17g, boundary events %.17g", what, name, x, y);
	}
	size_t nc = 0;
	ck_assert_int_eq(aiw_sim_series_count(a, &nc), AIW_OK);
	for (size_t i = 0; i < nc; i++) {
		const char *name;
		ck_assert_int_eq(aiw_sim_series_name(a, i, &name), AIW_OK);
		static double ta[4096], va[4096], tb[4096], vb[4096];
		size_t la = 0, lb = 0;
		ck_assert_int_eq(aiw_sim_series_copy(a, name, ta, va, 4096, &la), AIW_OK);
		ck_assert_int_eq(aiw_sim_series_copy(b, name, tb, vb, 4096, &lb), AIW_OK);
		ck_assert_uint_eq(la, lb);
		double top = 0;
		for (size_t j = 0; j < lb; j++)
			top = fabs(vb[j]) > top ? fabs(vb[j]) : top;
		for (size_t j = 0; j < la; j++)
			ck_assert_msg(ta[j] == tb[j] && ((isnan(va[j]) && isnan(vb[j])) ||
			                                 fabs(va[j] - vb[j]) <= 1e-9 * top),
			              "%s: %s[%zu] eager %.17g, boundary events %.17g", what, name, j,
			              va[j], vb[j]);
	}
}

static inline bool aiwi_test_under_valgrind(void)
{
#ifdef RUNNING_ON_VALGRIND
	if (RUNNING_ON_VALGRIND)
		return true;
#endif
	const char *p = getenv("LD_PRELOAD");
	return p && strstr(p, "vgpreload") != NULL;
}

/* Under valgrind or the sanitizers (AIW_SANITIZED=1, about 10 times
 * slower). */
static inline bool aiwi_test_slowed(void)
{
	const char *s = getenv("AIW_SANITIZED");
	return aiwi_test_under_valgrind() || (s && *s == '1');
}

/* A new temporary file, open for writing; its name goes to path (len bytes,
 * in $TMPDIR when set, else /tmp).  The caller closes it and unlinks path. */
static inline FILE *aiwi_test_tmpfile(char *path, size_t len)
{
	const char *dir = getenv("TMPDIR");
	snprintf(path, len, "%s/aiw-test-XXXXXX", dir && *dir ? dir : "/tmp");
	int fd = mkstemp(path);
	ck_assert_msg(fd >= 0, "mkstemp %s failed", path);
	FILE *f = fdopen(fd, "w");
	ck_assert_msg(f != NULL, "fdopen %s failed", path);
	return f;
}

/* Does the text file at path (at most 1 MiB read) contain want, the file's
 * line breaks and runs of spaces read as single spaces (a page wraps its
 * lines where it likes)?  Keeps a document's quoted figures current. */
static inline bool aiwi_test_file_says(const char *path, const char *want)
{
	FILE *f = fopen(path, "r");
	ck_assert_msg(f != NULL, "%s", path);
	static char doc[1 << 20];
	size_t n = fread(doc, 1, sizeof doc - 1, f);
	fclose(f);
	size_t w = 0;
	for (size_t r = 0; r < n; r++) {
		char ch = doc[r] == '\n' ? ' ' : doc[r];
		if (!(ch == ' ' && w > 0 && doc[w - 1] == ' '))
			doc[w++] = ch;
	}
	doc[w] = 0;
	return strstr(doc, want) != NULL;
}

/* main() for a file exposing `Suite *make_suite(void)` */
#define AIW_TEST_MAIN(make_suite)                                   \
	int main(void)                                              \
	{                                                           \
		SRunner *sr = srunner_create(make_suite());         \
		srunner_run_all(sr, CK_NORMAL);                     \
		int failed = srunner_ntests_failed(sr);             \
		srunner_free(sr);                                   \
		return failed ? EXIT_FAILURE : EXIT_SUCCESS;        \
	}

#endif
