/* test_autoscale_replay.c - upstream autoscaler test cases (data files in
 * tests/model/data/autoscale/, listed with their sources in its README)
 * run through aiw_autoscale_replay: every sync's replica count must be the
 * upstream expectation exactly.  Also the replay's refusals.
 *
 * A data file holds cases: "# case: NAME", "# set: KEY=VALUE ...", then a
 * CSV header and rows whose `expect` column is the upstream count (empty on
 * a history row, which is no sync). */
#include <aiworkload.h>

#include <check.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef AIW_SRCDIR
#define AIW_SRCDIR "."
#endif

typedef struct kase {
	char name[256];
	char policy[8];
	char *set[32];
	size_t nset;
	FILE *csv;
	char path[64];
	int expect[4096];
	size_t nexpect;
	int col_expect;
} kase;

static int cases_run;

static void run_case(kase *k)
{
	if (!k->csv)
		return;
	fclose(k->csv);
	k->csv = NULL;
	char out[] = "/tmp/aiw_replay_out_XXXXXX";
	int fd = mkstemp(out);
	ck_assert(fd >= 0);
	close(fd);
	char err[1024];
	uint64_t n = 0;
	aiw_status st = aiw_autoscale_replay(k->policy, (const char **)k->set, k->nset,
	                                     k->path, out, &n, err, sizeof err);
	ck_assert_msg(st == AIW_OK, "%s: %s", k->name, err);
	ck_assert_msg(n == k->nexpect, "%s: %llu syncs, %zu expected", k->name,
	              (unsigned long long)n, k->nexpect);
	FILE *f = fopen(out, "r");
	char line[256];
	size_t i = 0;
	ck_assert(fgets(line, sizeof line, f)); /* header */
	while (fgets(line, sizeof line, f)) {
		double t;
		int r;
		ck_assert(sscanf(line, "%lf,%d", &t, &r) == 2);
		ck_assert_msg(i < k->nexpect && r == k->expect[i],
		              "%s: sync %zu at t = %g: %d replicas, upstream expects %d (%s)", k->name,
		              i + 1, t, r, i < k->nexpect ? k->expect[i] : -1, line);
		i++;
	}
	fclose(f);
	unlink(out);
	unlink(k->path);
	for (size_t j = 0; j < k->nset; j++)
		free(k->set[j]);
	k->nset = 0;
	cases_run++;
}

static void run_file(const char *file, const char *policy)
{
	char path[1024];
	snprintf(path, sizeof path, "%s/tests/model/data/autoscale/%s", AIW_SRCDIR, file);
	FILE *f = fopen(path, "r");
	ck_assert_msg(f, "%s", path);
	kase *k = calloc(1, sizeof *k);
	char line[1024];
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\r\n")] = 0;
		if (!strncmp(line, "# case: ", 8)) {
			run_case(k);
			snprintf(k->name, sizeof k->name, "%.60s: %.190s", file, line + 8);
			snprintf(k->policy, sizeof k->policy, "%s", policy);
			strcpy(k->path, "/tmp/aiw_replay_in_XXXXXX");
			int fd = mkstemp(k->path);
			ck_assert(fd >= 0);
			k->csv = fdopen(fd, "w");
			k->nexpect = 0;
			k->col_expect = -1;
		} else if (!strncmp(line, "# set: ", 7)) {
			for (char *t = strtok(line + 7, " "); t; t = strtok(NULL, " "))
				k->set[k->nset++] = strdup(t);
		} else if (line[0] != '#' && line[0] && k->csv) {
			fprintf(k->csv, "%s\n", line);
			/* split on every comma: an empty field is a column too */
			int c = 0;
			for (char *t = line, *next; t; t = next, c++) {
				next = strchr(t, ',');
				if (next)
					*next++ = 0;
				if (k->col_expect < 0 && !strcmp(t, "expect"))
					k->col_expect = c;
				else if (c == k->col_expect && strcmp(t, "expect") && *t) {
					ck_assert(k->nexpect < sizeof k->expect / sizeof k->expect[0]);
					k->expect[k->nexpect++] = atoi(t);
				}
			}
			if (k->col_expect < 0)
				k->col_expect = INT32_MAX; /* header without expect */
		}
	}
	run_case(k);
	fclose(f);
	free(k);
}

START_TEST(kubernetes_replica_calculator)
{
	cases_run = 0;
	run_file("kubernetes_replica_calculator.csv", "hpa");
	ck_assert_int_eq(cases_run, 47);
}
END_TEST

START_TEST(kubernetes_horizontal)
{
	cases_run = 0;
	run_file("kubernetes_horizontal.csv", "hpa");
	ck_assert_int_eq(cases_run, 65);
}
END_TEST

START_TEST(knative_autoscaler)
{
	cases_run = 0;
	run_file("knative_autoscaler.csv", "kpa");
	ck_assert_int_eq(cases_run, 31);
}
END_TEST

START_TEST(knative_scaler)
{
	cases_run = 0;
	run_file("knative_scaler.csv", "kpa");
	ck_assert_int_eq(cases_run, 35);
}
END_TEST

static aiw_status replay_text(const char *policy, const char *text, const char *set, char *err,
                              size_t errlen)
{
	char in[] = "/tmp/aiw_replay_bad_XXXXXX";
	int fd = mkstemp(in);
	ck_assert(fd >= 0);
	ck_assert(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
	close(fd);
	const char *s[1] = {set};
	aiw_status st = aiw_autoscale_replay(policy, s, set ? 1 : 0, in, NULL, NULL, err, errlen);
	unlink(in);
	return st;
}

START_TEST(refusals)
{
	char err[1024];
	/* unsorted times: the line and the field */
	ck_assert_int_ne(replay_text("hpa", "time,ready,metric\n5,1,1\n3,1,1\n", NULL, err,
	                             sizeof err), AIW_OK);
	ck_assert_msg(strstr(err, ":3: time:"), "%s", err);
	/* a negative metric */
	ck_assert_int_ne(replay_text("hpa", "time,ready,total\n0,1,-2\n", NULL, err, sizeof err),
	                 AIW_OK);
	ck_assert_msg(strstr(err, ":2: total:") && strstr(err, "negative"), "%s", err);
	/* a policy with period 0 */
	ck_assert_int_ne(replay_text("hpa", "time,ready,metric\n0,1,1\n",
	                             "hpa_scale_up_policies=pods:4/0s", err, sizeof err),
	                 AIW_OK);
	ck_assert_msg(strstr(err, "hpa_scale_up_policies") && strstr(err, "(0, 1800 s]"), "%s",
	              err);
	/* an unknown select rule */
	ck_assert_int_ne(replay_text("hpa", "time,ready,metric\n0,1,1\n",
	                             "hpa_scale_down_select=median", err, sizeof err),
	                 AIW_OK);
	ck_assert_msg(strstr(err, "hpa_scale_down_select") && strstr(err, "median"), "%s", err);
	/* an unknown column, an unknown policy */
	ck_assert_int_ne(replay_text("hpa", "time,ready,cpu\n0,1,1\n", NULL, err, sizeof err),
	                 AIW_OK);
	ck_assert_msg(strstr(err, ":1: header:") && strstr(err, "'cpu'"), "%s", err);
	ck_assert_int_eq(replay_text("vpa", "time,ready,metric\n0,1,1\n", NULL, err, sizeof err),
	                 AIW_EINVAL);
	/* kpa's reconciler columns: a decider's count below -1, a kpa column
	 * for hpa, a burst capacity between -1 and 0 */
	ck_assert_int_ne(replay_text("kpa", "time,current,desired\n0,1,-2\n", NULL, err,
	                             sizeof err), AIW_OK);
	ck_assert_msg(strstr(err, ":2: desired:") && strstr(err, "negative"), "%s", err);
	ck_assert_int_ne(replay_text("hpa", "time,ready,metric,inactive_for\n0,1,1,5\n", NULL,
	                             err, sizeof err), AIW_OK);
	ck_assert_msg(strstr(err, ":1: header:") && strstr(err, "kpa columns"), "%s", err);
	ck_assert_int_ne(replay_text("kpa", "time,current,desired\n0,1,0\n",
	                             "kpa_target_burst_capacity=-0.5", err, sizeof err),
	                 AIW_OK);
	ck_assert_msg(strstr(err, "kpa_target_burst_capacity") && strstr(err, "-1"), "%s", err);
	/* a setting the policy does not read: hpa reads target_utilization
	 * under metric = utilization (the default), kpa reads target_value */
	ck_assert_int_eq(replay_text("hpa", "time,ready,metric\n0,1,1\n", "target_value=20", err,
	                             sizeof err),
	                 AIW_EINVAL);
	ck_assert_msg(strstr(err, "policy hpa") && strstr(err, "target_value = 20 has no effect") &&
	                  strstr(err, "metric = utilization"),
	              "%s", err);
	ck_assert_int_eq(replay_text("kpa", "time,ready,total\n0,1,1\n", "target_utilization=0.5",
	                             err, sizeof err),
	                 AIW_EINVAL);
	ck_assert_msg(strstr(err, "policy kpa") &&
	                  strstr(err, "target_utilization = 0.5 has no effect") &&
	                  strstr(err, "autoscaler = kpa"),
	              "%s", err);
	ck_assert_int_eq(replay_text("hpa", "time,ready,metric\n0,1,1\n", "target_utilization=0.5",
	                             err, sizeof err),
	                 AIW_OK);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("autoscale_replay");
	TCase *tc = tcase_create("replay");
	tcase_add_test(tc, kubernetes_replica_calculator);
	tcase_add_test(tc, kubernetes_horizontal);
	tcase_add_test(tc, knative_autoscaler);
	tcase_add_test(tc, knative_scaler);
	tcase_add_test(tc, refusals);
	suite_add_tcase(s, tc);
	SRunner *sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	int nf = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nf ? 1 : 0;
}
