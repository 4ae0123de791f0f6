/* test_hostile_surfaces.c - hostile input on the replay (aiw_autoscale_replay),
 * the capacity search's callback, measured profiles (aiw_profile_*, the
 * iteration timing) and empirical files: refused with FILE:LINE, bounded,
 * never a hang, a wrong value or a memory error. */
#include "hostile.h"
#include "inference/profile.h"

#include <sys/stat.h>
#include <time.h>

static char *tmp_path(void)
{
	static char path[64];
	snprintf(path, sizeof path, "/tmp/aiwi_hostile_surfXXXXXX");
	int fd = mkstemp(path);
	ck_assert(fd >= 0);
	close(fd);
	return path;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "cannot read %s", path);
	static char buf[1 << 16];
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

/* ======================================================================== */
/* the replay                                                                */
/* ======================================================================== */
typedef struct replay_case {
	const char *policy, *set, *data;
	size_t len;
	aiw_status st;
	const char *msg; /* after "PATH"; NULL: the status alone */
	uint64_t syncs;  /* when st is AIW_OK */
} replay_case;

#define RC(pol, set, s, st, msg, n) {pol, set, s, sizeof s - 1, st, msg, n}
static const replay_case REPLAY_CASES[] = {
	/* empty, comments only: no line 0 */
	RC("hpa", NULL, "", AIW_EPARSE, ": empty file: no header line (time, ready, metric, ...)", 0),
	RC("hpa", NULL, "# a comment\n\n", AIW_EPARSE,
	   ": no header line, only comments or blank lines (time, ready, metric, ...)", 0),
	/* a UTF-8 byte order mark before the header */
	RC("hpa", NULL, "\xEF\xBB\xBFtime,ready,metric\n0,2,0.5\n15,2,0.9\n", AIW_OK, NULL, 2),
	/* NUL bytes: "200\0999" is not 200 */
	RC("hpa", NULL, "time,ready,metric\n0,2,0.5\n15,200\0999,1\n", AIW_EPARSE,
	   ":3: row: NUL byte in the line: not a text CSV file", 0),
	RC("kpa", NULL, "time\0,ready,total\n", AIW_EPARSE,
	   ":1: row: NUL byte in the line: not a text CSV file", 0),
	/* pod counts past the replicas bound (their milli-unit sums would
	 * overflow int64) */
	RC("hpa", NULL, "time,ready,metric\n0,3000000000,1\n", AIW_EPARSE,
	   ":2: ready: 3000000000 pods: above 100000, the most replicas a fleet may have", 0),
	RC("hpa", NULL, "time,ready,metric,missing\n0,2,1,100001\n", AIW_EPARSE,
	   ":2: missing: 100001 pods: above 100000, the most replicas a fleet may have", 0),
	/* a `run --series` file: time_s and units read, the curves named */
	RC("hpa", NULL, "time_s [s],ready,metric\n0,2,0.5\n", AIW_OK, NULL, 1),
	RC("hpa", NULL, "time_s,inference.chat.replicas_ready [1]\n0,2\n", AIW_EPARSE,
	   ":1: header: 'inference.chat.replicas_ready' is a simulation curve (a `run --series` "
	   "file): the replay reads time (or time_s), ready, metric or total, unready, ... "
	   "(aiw_autoscale_replay(3)); rename one fleet's columns, e.g. its replicas_ready to "
	   "ready and its utilization to metric",
	   0),
	/* gaps and times past any period: one sync a row, no loop over the
	 * periods in between */
	RC("hpa", NULL, "time,ready,metric\n0,2,0.5\n1.4e17,2,1\n1e300,2,1\n", AIW_OK, NULL, 3),
	RC("hpa", "hpa_sync_period=1ns", "time,ready,metric\n0,2,0.5\n1.4e17,2,1\n1e300,2,1\n",
	   AIW_OK, NULL, 3),
	RC("kpa", "kpa_tick=1ns", "time,ready,total\n0,2,0.5\n1.4e17,2,1\n1e300,2,1\n", AIW_OK,
	   NULL, 3),
	RC("kpa", NULL, "time,ready,total\n0,2,0.5\n1e17,2,1\n1e17,2,1\n", AIW_EPARSE,
	   ":4: time: 1e+17 is not after the previous row's 1e+17 (times must increase)", 0),
	/* a stable window of 6e10 samples */
	RC("kpa", "metric_interval=1ns", "time,ready,total\n0,2,0.5\n", AIW_ELIMIT,
	   NULL, 0),
};

START_TEST(replay_hostile)
{
	const replay_case *c = &REPLAY_CASES[_i];
	char in[64], out[64];
	snprintf(in, sizeof in, "%s", tmp_path());
	snprintf(out, sizeof out, "%s", tmp_path());
	write_file(in, c->data, c->len);
	char err[1024] = "";
	uint64_t n = 0;
	const char *set[1] = {c->set};
	aiw_status st =
		aiw_autoscale_replay(c->policy, set, c->set ? 1 : 0, in, out, &n, err, sizeof err);
	ck_assert_msg(st == c->st, "case %d: status %d, want %d: %s", _i, st, c->st, err);
	if (c->msg) {
		char want[1024];
		snprintf(want, sizeof want, "%s%s", in, c->msg);
		ck_assert_msg(strcmp(err, want) == 0, "case %d\n  got:  %s\n  want: %s", _i, err,
		              want);
	}
	if (st == AIW_OK)
		ck_assert_msg(n == c->syncs, "case %d: %llu syncs, want %llu", _i,
		              (unsigned long long)n, (unsigned long long)c->syncs);
	unlink(in);
	unlink(out);
}
END_TEST

/* A refused file writes nothing: the output keeps what it had (no header
 * before the refusal, no truncation). */
START_TEST(replay_validates_first)
{
	char in[64], out[64];
	snprintf(in, sizeof in, "%s", tmp_path());
	snprintf(out, sizeof out, "%s", tmp_path());
	const char rows[] = "time,ready,metric\n0,2,0.5\n15,2,0.9\n30,x,1\n";
	write_file(in, rows, sizeof rows - 1);
	write_file(out, "kept\n", 5);
	char err[512];
	ck_assert_int_eq(aiw_autoscale_replay("hpa", NULL, 0, in, out, NULL, err, sizeof err),
	                 AIW_EPARSE);
	ck_assert_str_eq(slurp(out), "kept\n");
	unlink(in);
	unlink(out);
}
END_TEST

/* out_path "-" is the process's standard output stream, written where it
 * stands: a file it points to (appending or not) keeps what was written
 * before and after; never reopened by name. */
START_TEST(replay_stdout_stream)
{
	char in[64], log[64];
	snprintf(in, sizeof in, "%s", tmp_path());
	snprintf(log, sizeof log, "%s", tmp_path());
	const char rows[] = "time,ready,metric\n0,2,0.5\n15,2,0.9\n";
	write_file(in, rows, sizeof rows - 1);
	for (int append = 0; append < 2; append++) {
		write_file(log, "", 0);
		fflush(stdout);
		int saved = dup(1);
		int fd = open(log, O_WRONLY | (append ? O_APPEND : 0));
		ck_assert(saved >= 0 && fd >= 0);
		ck_assert(dup2(fd, 1) == 1);
		close(fd);
		fputs("before\n", stdout);
		char err[512] = "";
		aiw_status st = aiw_autoscale_replay("hpa", NULL, 0, in, "-", NULL, err, sizeof err);
		fputs("after\n", stdout);
		fflush(stdout);
		ck_assert(dup2(saved, 1) == 1);
		close(saved);
		ck_assert_msg(st == AIW_OK, "%s", err);
		ck_assert_str_eq(slurp(log), "before\ntime,replicas,reason\n0,2,scale\n15,3,scale\nafter\n");
	}
	unlink(in);
	unlink(log);
}
END_TEST

/* Milli-unit sums of 1e5 pods at 1e9 each (utilization: 1e14 milli, x 100
 * for percent) stay in int64: the decision is the maximum, not "no metric"
 * from a wrapped negative sum. */
START_TEST(replay_milli_overflow)
{
	char in[64], out[64];
	snprintf(in, sizeof in, "%s", tmp_path());
	snprintf(out, sizeof out, "%s", tmp_path());
	const char *set[] = {"max_replicas=100000", "replicas=100000"};
	static const char *const rows[] = {"time,ready,metric\n0,100000,1e9\n",
	                                   "time,ready,metric\n0,100000,5e6\n",
	                                   "time,ready,metric\n0,99999,1e12\n"};
	for (size_t i = 0; i < 3; i++) {
		write_file(in, rows[i], strlen(rows[i]));
		char err[512] = "";
		uint64_t n = 0;
		ck_assert_msg(aiw_autoscale_replay("hpa", set, 2, in, out, &n, err, sizeof err) ==
		                      AIW_OK,
		              "%s", err);
		ck_assert_str_eq(slurp(out), "time,replicas,reason\n0,100000,max\n");
	}
	unlink(in);
	unlink(out);
}
END_TEST

/* ======================================================================== */
/* aiw_sim_free from aiw_inference_capacity's progress callback: deferred    */
/* ======================================================================== */
static int free_in_capacity(size_t done, size_t max, double rate, int verdict, void *payload)
{
	(void)done, (void)max, (void)rate, (void)verdict;
	aiw_sim **sim = payload;
	aiw_sim_free(sim[0]);
	aiw_sim_free(sim[0]); /* twice: still deferred, still once */
	++*(int *)sim[1];
	return 0;
}

START_TEST(capacity_free_from_progress)
{
	aiw_sim *sim = new_sim();
	AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim,
	                                        "[inference q]\nreplicas = 2\nservice = const(0.5s)\n"
	                                        "batching = none\nrouter = central\n",
	                                        "test"));
	int calls = 0;
	void *payload[2] = {sim, &calls};
	const char *set[] = {"offline_requests=100", "min_requests=100", "duration=20s"};
	double out[AIW_CAPACITY_NCOLUMNS];
	/* the call stops after the callback and frees sim on its way out (the
	 * sanitizers and valgrind see any use after) */
	ck_assert_int_eq(aiw_inference_capacity(sim, "q", set, 3, out, AIW_CAPACITY_NCOLUMNS,
	                                        free_in_capacity, payload),
	                 AIW_ESTOPPED);
	ck_assert_int_eq(calls, 1);
}
END_TEST

/* ======================================================================== */
/* profiles                                                                  */
/* ======================================================================== */
static const char NAT[] = "phase,gpu,tp,batch,prompt,context,time_s\n";

static aiw_status read_profile(aiw_profile **pr, const char *data, size_t len, char *path)
{
	snprintf(path, 64, "%s", tmp_path());
	write_file(path, data, len);
	ck_assert_int_eq(aiw_profile_create(pr), AIW_OK);
	return aiw_profile_read(*pr, path);
}

/* A NUL byte ends C text: every row after it would be dropped. */
START_TEST(profile_nul)
{
	char data[512], path[64];
	int n = snprintf(data, sizeof data,
	                 "%sdecode,H100-SXM,8,1,0,100,0.01\ndecode,H100-SXM,8,2,0,100,0.0",
	                 NAT);
	data[n++] = '\0';
	n += snprintf(data + n, sizeof data - (size_t)n, "2\ndecode,H100-SXM,8,4,0,100,0.02\n");
	aiw_profile *pr;
	ck_assert_int_eq(read_profile(&pr, data, (size_t)n, path), AIW_EPARSE);
	char want[128];
	snprintf(want, sizeof want, "%s:3: NUL byte in the line: not a text CSV file", path);
	ck_assert_str_eq(aiw_profile_errmsg(pr), want);
	aiw_profile_free(pr);
	unlink(path);
}
END_TEST

/* A GPU name longer than a group holds was one group a row (its stored
 * copy, cut, never matched): refused, naming the column. */
START_TEST(profile_long_gpu_name)
{
	char data[1024], path[64], name[64];
	memset(name, 'G', 60);
	name[60] = 0;
	int n = snprintf(data, sizeof data, "%sdecode,%s,8,1,0,100,0.01\ndecode,%s,8,2,0,100,0.02\n",
	                 NAT, name, name);
	aiw_profile *pr;
	ck_assert_int_eq(read_profile(&pr, data, (size_t)n, path), AIW_EPARSE);
	char want[256];
	snprintf(want, sizeof want,
	         "%s:2: column gpu = \"%.40s...\": a GPU name of 60 characters, longer than 47", path,
	         name);
	ck_assert_str_eq(aiw_profile_errmsg(pr), want);
	aiw_profile_free(pr);
	/* 47 characters: one group for both rows */
	name[47] = 0;
	n = snprintf(data, sizeof data, "%sdecode,%s,8,1,0,100,0.01\ndecode,%s,8,2,0,100,0.02\n", NAT,
	             name, name);
	ck_assert_int_eq(read_profile(&pr, data, (size_t)n, path), AIW_OK);
	size_t groups = 0;
	ck_assert_int_eq(aiw_profile_group_count(pr, &groups), AIW_OK);
	ck_assert_uint_eq(groups, 1);
	aiw_profile_free(pr);
	unlink(path);
}
END_TEST

/* Reading is linear in the distinct configurations (a search of every
 * earlier row took 39 s for 200,000): 200,000 distinct decode rows and
 * their repeats read in well under the quadratic time, and repeats share
 * their configuration (the fit's one point per configuration). */
START_TEST(profile_read_linear)
{
	enum { N = 200000 };
	char path[64];
	snprintf(path, sizeof path, "%s", tmp_path());
	FILE *f = fopen(path, "w");
	ck_assert(f != NULL);
	fputs(NAT, f);
	for (int i = 0; i < N; i++)
		fprintf(f, "decode,H100-SXM,8,%d,0,%d,0.01\n", 1 + i % 1000, 100 + i / 1000);
	for (int i = 0; i < 1000; i++) /* repeats of the first 1000 */
		fprintf(f, "decode,H100-SXM,8,%d,0,100,0.011\n", 1 + i);
	fclose(f);
	aiw_profile *pr;
	ck_assert_int_eq(aiw_profile_create(&pr), AIW_OK);
	/* CPU time: the machine's load does not count */
	clock_t t0 = clock();
	ck_assert_int_eq(aiw_profile_read(pr, path), AIW_OK);
	double s = (double)(clock() - t0) / CLOCKS_PER_SEC;
	size_t rows = 0;
	ck_assert_int_eq(aiw_profile_row_count(pr, &rows), AIW_OK);
	ck_assert_uint_eq(rows, N + 1000);
	aiw_profile *p = pr;
	/* the internal handle's first member is the profile (profile.c) */
	const aiwi_profile *ip = (const aiwi_profile *)(const void *)p;
	ck_assert_int_eq(ip->nconfigs, N);
	for (size_t i = 0; i < 1000; i++)
		ck_assert_int_eq(ip->rows[N + i].config, ip->rows[i].config);
	/* quadratic: ~39 s of CPU; linear: ~0.4 s (a few times that under the
	 * sanitizers and valgrind) */
	if (!under_valgrind()) /* there the point is memory checking */
		ck_assert_msg(s < (slowed() ? 10.0 : 4.0), "%.2f s of CPU to read %d rows", s, N);
	aiw_profile_free(pr);
	unlink(path);
}
END_TEST

/* A value past the table's bound says the bound. */
START_TEST(profile_value_bound)
{
	char data[256], path[64];
	int n = snprintf(data, sizeof data, "%sdecode,H100-SXM,8,2e12,0,100,0.01\n", NAT);
	aiw_profile *pr;
	ck_assert_int_eq(read_profile(&pr, data, (size_t)n, path), AIW_ERANGE);
	char want[256];
	snprintf(want, sizeof want, "%s:2: column batch = 2e+12 must be an integer in [1, 1e+12]",
	         path);
	ck_assert_str_eq(aiw_profile_errmsg(pr), want);
	aiw_profile_free(pr);
	unlink(path);
}
END_TEST

/* A call's message is its own, never an earlier call's. */
START_TEST(profile_message_own)
{
	char data[256], path[64];
	int n = snprintf(data, sizeof data, "%sdecode,H100-SXM,8,1,0,100,0.01\n", NAT);
	aiw_profile *pr;
	ck_assert_int_eq(read_profile(&pr, data, (size_t)n, path), AIW_OK);
	ck_assert_int_ne(aiw_profile_set(pr, "no_such_option", 1), AIW_OK);
	double coef[6] = {0}, t;
	ck_assert_int_eq(aiw_profile_predict(pr, 5, coef, 6, &t), AIW_ERANGE);
	ck_assert_str_eq(aiw_profile_errmsg(pr), "aiw_profile_predict: row 5: the profile has 1 rows");
	ck_assert_int_eq(aiw_profile_predict(pr, 0, NULL, 6, &t), AIW_EINVAL);
	ck_assert_str_eq(aiw_profile_errmsg(pr), "aiw_profile_predict: coef or out is NULL");
	const char *g, *ph;
	ck_assert_int_eq(aiw_profile_row(pr, 3, &g, &ph, NULL, NULL, NULL, NULL, NULL),
	                 AIW_ERANGE);
	ck_assert_str_eq(aiw_profile_errmsg(pr), "aiw_profile_row: row 3: the profile has 1 rows");
	aiw_profile_free(pr);
	unlink(path);
}
END_TEST

/* With pp > 1 a decode batch of fewer sequences than stages runs its GPU
 * terms pp / n times: a negative decode.seq makes the batch of pp - 1 the
 * fastest, below zero where the four corners are not (8,000 tokens decoded
 * in no time).  Every batch size is checked. */
START_TEST(iteration_pp_negative_seq)
{
	aiw_sim *sim = new_sim();
	AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim,
	                                        "[sim]\nduration = 10min\n"
	                                        "[inference a]\ntiming = iteration\nrate = 1/s\n"
	                                        "gpus_per_replica = 64\npp = 64\nmax_batch = 4096\n"
	                                        "decode.overhead = -0.0472\ndecode.seq = -2e-6\n",
	                                        "test"));
	/* positive at one sequence and at 4096, not at 24 */
	ck_assert_int_eq(aiw_sim_run(sim), AIW_ERANGE);
	ck_assert_msg(strstr(aiw_sim_errmsg(sim), "a decode iteration of 24 sequences holding 24 "
	                                          "tokens would take -4.036e-07 s") != NULL,
	              "%s", aiw_sim_errmsg(sim));
	aiw_sim_free(sim);
}
END_TEST

/* ======================================================================== */
/* empirical files                                                           */
/* ======================================================================== */
START_TEST(empirical_nul)
{
	char path[64], spec[128], want[512];
	snprintf(path, sizeof path, "%s", tmp_path());
	write_file(path, "1\n200\0" "999\n3\n", 12);
	snprintf(spec, sizeof spec, "empirical(%s)", path);
	aiw_sim *sim = new_sim();
	ck_assert_int_eq(aiw_sim_set(sim, "inference.a.prompt_tokens", spec), AIW_EPARSE);
	snprintf(want, sizeof want,
	         "inference.a.prompt_tokens = %s: %s:2: NUL byte in the line: not a text file", spec,
	         path);
	ck_assert_msg_eq(sim, want);
	aiw_sim_free(sim);
	unlink(path);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("hostile_surfaces");
	TCase *tc = tcase_create("replay");
	tcase_set_timeout(tc, 30);
	tcase_add_loop_test(tc, replay_hostile, 0, (int)(sizeof REPLAY_CASES / sizeof *REPLAY_CASES));
	tcase_add_test(tc, replay_validates_first);
	tcase_add_test(tc, replay_stdout_stream);
	tcase_add_test(tc, replay_milli_overflow);
	suite_add_tcase(s, tc);
	tc = tcase_create("capacity");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, capacity_free_from_progress);
	suite_add_tcase(s, tc);
	tc = tcase_create("profile");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, profile_nul);
	tcase_add_test(tc, profile_long_gpu_name);
	tcase_add_test(tc, profile_read_linear);
	tcase_add_test(tc, profile_message_own);
	tcase_add_test(tc, profile_value_bound);
	tcase_add_test(tc, iteration_pp_negative_seq);
	tcase_add_test(tc, empirical_nul);
	suite_add_tcase(s, tc);
	return s;
}

AIW_TEST_MAIN(make_suite)
