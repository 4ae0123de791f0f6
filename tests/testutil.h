/* testutil.h - small helpers shared by the Check suites. */
#ifndef AIW_TESTUTIL_H
#define AIW_TESTUTIL_H

#include <check.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

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
