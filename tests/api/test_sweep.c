/* test_sweep.c - experiment sweeps: grid expansion, seeds, statistics,
 * bit-identical results whatever the number of threads, callbacks, stop and
 * resume, errors, and the coverage of the 95% confidence interval on the
 * M/M/1 queue's mean wait. */
#include "../testutil.h"

#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <gsl/gsl_cdf.h>

/* Under valgrind (~50x slower) the statistical test runs fewer sweeps: there
 * the point is memory checking; the full test runs in the other builds. */
#define under_valgrind aiwi_test_under_valgrind

/* M/M/1: Poisson arrivals at lambda = 1/s, exponential service of mean
 * 0.5 s (mu = 2/s), one replica, no batching: rho = 0.5, mean wait in queue
 * W_q = rho / (mu - lambda) = 0.5 s. */
static const char MM1[] = "[sim]\n"
                          "duration = 200s\n"
                          "sample_interval = 200s\n"
                          "[inference q]\n"
                          "traffic = poisson\n"
                          "rate = 1/s\n"
                          "service = exp(0.5s)\n"
                          "batching = none\n"
                          "replicas = 1\n";
#define WAIT "inference.q.queue_wait_mean_s"
#define ARRIVED "inference.q.requests_arrived"

#define SW_OK(sw, call)                                                                    \
	do {                                                                               \
		aiw_status st_ = (call);                                                   \
		ck_assert_msg(st_ == AIW_OK, "%s -> %s: %s", #call, aiw_status_name(st_),  \
		              aiw_sweep_errmsg(sw));                                       \
	} while (0)

#define SW_FAILS(sw, call, code, needle)                                                   \
	do {                                                                               \
		aiw_status st_ = (call);                                                   \
		ck_assert_msg(st_ == (code), "%s -> %s, expected %s (%s)", #call,          \
		              aiw_status_name(st_), aiw_status_name(code), aiw_sweep_errmsg(sw)); \
		if (needle)                                                                \
			ck_assert_msg(strstr(aiw_sweep_errmsg(sw), (needle) ? (needle) : "") != NULL, \
			              "message '%s' lacks '%s'", aiw_sweep_errmsg(sw),       \
			              (needle) ? (needle) : "");                             \
	} while (0)

static aiw_sweep *new_sweep(const char *text)
{
	aiw_sweep *sw = NULL;
	ck_assert_int_eq(aiw_sweep_create(&sw, NULL, text), AIW_OK);
	ck_assert_ptr_nonnull(sw);
	return sw;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	ck_assert_msg(f != NULL, "cannot open %s", path);
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *s = malloc((size_t)n + 1);
	ck_assert_int_eq(fread(s, 1, (size_t)n, f), (size_t)n);
	s[n] = 0;
	fclose(f);
	return s;
}

static void tmp_path(char *buf, size_t len, const char *tag)
{
	snprintf(buf, len, "%s/test_sweep_%ld_%s", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp",
	         (long)getpid(), tag);
}

static void write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	fclose(f);
}

/* ------------------------------------------------------------------------ */
START_TEST(test_arguments)
{
	aiw_sweep *sw = NULL;
	ck_assert_int_eq(aiw_sweep_create(NULL, NULL, NULL), AIW_EINVAL);
	ck_assert_int_eq(aiw_sweep_create(&sw, "a.ini", "[sim]\n"), AIW_EINVAL);
	ck_assert_ptr_null(sw);
	ck_assert_int_eq(aiw_sweep_create(&sw, "", NULL), AIW_EINVAL);
	ck_assert_ptr_nonnull(aiw_sweep_errmsg(NULL));
	aiw_sweep_free(NULL);
	aiw_sweep_stop(NULL);
	ck_assert_int_eq(aiw_sweep_axis(NULL, "site.pue", "1"), AIW_EINVAL);
	ck_assert_int_eq(aiw_sweep_run(NULL), AIW_EINVAL);
	ck_assert_int_eq(aiw_sweep_prepare(NULL), AIW_EINVAL);
	size_t n;
	ck_assert_int_eq(aiw_sweep_npoints(NULL, &n), AIW_EINVAL);

	sw = new_sweep(MM1);
	ck_assert_str_eq(aiw_sweep_errmsg(sw), "");
	SW_FAILS(sw, aiw_sweep_axis(sw, NULL, "1"), AIW_EINVAL, "empty");
	SW_FAILS(sw, aiw_sweep_axis(sw, "site.pue", NULL), AIW_EINVAL, "site.pue");
	SW_FAILS(sw, aiw_sweep_axis(sw, "sim.seed", "1,2"), AIW_EINVAL, "aiw_sweep_set_seed");
	SW_FAILS(sw, aiw_sweep_axis(sw, "site.pue", "1.1,,1.3"), AIW_EPARSE, "empty value");
	SW_FAILS(sw, aiw_sweep_axis(sw, "site.pue", "\"1.1"), AIW_EPARSE, "quote");
	SW_FAILS(sw, aiw_sweep_set_replications(sw, 0), AIW_ERANGE, "replications");
	SW_FAILS(sw, aiw_sweep_set_replications(sw, 1000001), AIW_ERANGE, "replications");
	SW_FAILS(sw, aiw_sweep_set_jobs(sw, 1025), AIW_ERANGE, "jobs");
	SW_FAILS(sw, aiw_sweep_point_file(sw, NULL), AIW_EINVAL, "path");
	SW_FAILS(sw, aiw_sweep_point_file(sw, "/nonexistent/points.csv"), AIW_EIO,
	         "/nonexistent/points.csv");
	/* nothing is readable before prepare */
	SW_FAILS(sw, aiw_sweep_npoints(sw, &n), AIW_ESTATE, "prepare");
	double v[4];
	SW_FAILS(sw, aiw_sweep_run_task(sw, 0, 0, v), AIW_ESTATE, "prepare");
	SW_FAILS(sw, aiw_sweep_store(sw, 0, 0, v), AIW_ESTATE, "prepare");
	SW_FAILS(sw, aiw_sweep_result(sw, 0, 0, NULL, NULL, NULL, NULL), AIW_ESTATE, NULL);
	SW_FAILS(sw, aiw_sweep_write_csv(sw, "/tmp/x.csv"), AIW_ESTATE, NULL);

	SW_OK(sw, aiw_sweep_axis(sw, "site.pue", "1.1,1.2"));
	SW_OK(sw, aiw_sweep_set_replications(sw, 2));
	SW_OK(sw, aiw_sweep_set_metrics(sw, WAIT));
	SW_OK(sw, aiw_sweep_prepare(sw));
	SW_OK(sw, aiw_sweep_prepare(sw)); /* idempotent */
	/* the description is frozen */
	SW_FAILS(sw, aiw_sweep_axis(sw, "site.electricity_price", "0.1"), AIW_ESTATE, "fixed");
	SW_FAILS(sw, aiw_sweep_set_replications(sw, 3), AIW_ESTATE, NULL);
	SW_FAILS(sw, aiw_sweep_set_metrics(sw, ARRIVED), AIW_ESTATE, NULL);
	SW_FAILS(sw, aiw_sweep_set_seed(sw, 1), AIW_ESTATE, NULL);
	SW_FAILS(sw, aiw_sweep_npoints(sw, NULL), AIW_EINVAL, "NULL");
	SW_FAILS(sw, aiw_sweep_run_task(sw, 2, 0, v), AIW_ERANGE, "point 2");
	SW_FAILS(sw, aiw_sweep_run_task(sw, 0, 2, v), AIW_ERANGE, "replication 2");
	SW_FAILS(sw, aiw_sweep_run_task(sw, 0, 0, NULL), AIW_EINVAL, "NULL");
	SW_FAILS(sw, aiw_sweep_store(sw, 0, 0, NULL), AIW_EINVAL, "NULL");
	SW_FAILS(sw, aiw_sweep_result(sw, 0, 1, NULL, NULL, NULL, NULL), AIW_ERANGE, "metric 1");
	SW_FAILS(sw, aiw_sweep_result(sw, 0, 0, NULL, NULL, NULL, NULL), AIW_ESTATE,
	         "not complete");
	SW_FAILS(sw, aiw_sweep_replication(sw, 0, 0, 0, v), AIW_ESTATE, "has not run");
	SW_FAILS(sw, aiw_sweep_write_csv(sw, "/nonexistent/dir/out.csv"), AIW_EIO,
	         "/nonexistent/dir/out.csv");
	SW_FAILS(sw, aiw_sweep_write_csv(sw, NULL), AIW_EINVAL, NULL);
	const char *s;
	SW_FAILS(sw, aiw_sweep_param_name(sw, 1, &s), AIW_ERANGE, NULL);
	SW_FAILS(sw, aiw_sweep_metric_name(sw, 1, &s), AIW_ERANGE, NULL);
	SW_FAILS(sw, aiw_sweep_point_value(sw, 2, 0, &s), AIW_ERANGE, NULL);
	uint64_t seed;
	SW_FAILS(sw, aiw_sweep_task_seed(sw, 0, 2, &seed), AIW_ERANGE, NULL);
	aiw_sweep_free(sw);
}
END_TEST

/* Value lists: commas inside parentheses and quotes, escapes, blanks. */
START_TEST(test_value_lists)
{
	aiw_sweep *sw = new_sweep(MM1);
	SW_OK(sw, aiw_sweep_axis(sw, "inference.q.prompt_tokens",
	                         " lognormal(median=1024,sigma=0.8) , const(100)"));
	SW_OK(sw, aiw_sweep_axis(sw, "load.x.profile", "\"0:1kW, 8h:3kW\",0:5kW\\, 1h:2kW"));
	SW_OK(sw, aiw_sweep_set_metrics(sw, "sim.time_s"));
	SW_OK(sw, aiw_sweep_prepare(sw));
	size_t n;
	SW_OK(sw, aiw_sweep_npoints(sw, &n));
	ck_assert_uint_eq(n, 4);
	const char *v;
	SW_OK(sw, aiw_sweep_point_value(sw, 0, 0, &v));
	ck_assert_str_eq(v, "lognormal(median=1024,sigma=0.8)");
	SW_OK(sw, aiw_sweep_point_value(sw, 2, 0, &v));
	ck_assert_str_eq(v, "const(100)");
	SW_OK(sw, aiw_sweep_point_value(sw, 0, 1, &v));
	ck_assert_str_eq(v, "0:1kW, 8h:3kW");
	SW_OK(sw, aiw_sweep_point_value(sw, 1, 1, &v));
	ck_assert_str_eq(v, "0:5kW, 1h:2kW");
	aiw_sweep_free(sw);
}
END_TEST

/* Grid order: point-file rows outermost, then the axes, the last fastest. */
START_TEST(test_grid_order)
{
	char path[256];
	tmp_path(path, sizeof path, "points.csv");
	write_text(path, "# a comment line\n"
	                 "site.pue, inference.q.rate\r\n"
	                 "\n"
	                 "1.1,\"0.5/s\"\r\n"
	                 "1.2 , 0.75/s\n");
	aiw_sweep *sw = new_sweep(MM1);
	SW_OK(sw, aiw_sweep_point_file(sw, path));
	SW_FAILS(sw, aiw_sweep_point_file(sw, path), AIW_ESTATE, "already");
	SW_OK(sw, aiw_sweep_axis(sw, "site.electricity_price", "0.1,0.2,0.3"));
	SW_OK(sw, aiw_sweep_axis(sw, "site.gpus_per_rack", "8,16"));
	SW_OK(sw, aiw_sweep_set_metrics(sw, "sim.time_s"));
	SW_OK(sw, aiw_sweep_prepare(sw));
	size_t np, npar;
	SW_OK(sw, aiw_sweep_npoints(sw, &np));
	SW_OK(sw, aiw_sweep_nparams(sw, &npar));
	ck_assert_uint_eq(np, 2 * 3 * 2);
	ck_assert_uint_eq(npar, 4);
	static const char *const names[4] = {"site.pue", "inference.q.rate",
	                                     "site.electricity_price", "site.gpus_per_rack"};
	for (size_t i = 0; i < 4; i++) {
		const char *s;
		SW_OK(sw, aiw_sweep_param_name(sw, i, &s));
		ck_assert_str_eq(s, names[i]);
	}
	static const char *const rows[2][2] = {{"1.1", "0.5/s"}, {"1.2", "0.75/s"}};
	static const char *const price[3] = {"0.1", "0.2", "0.3"};
	static const char *const rack[2] = {"8", "16"};
	for (size_t p = 0; p < np; p++) {
		const char *want[4] = {rows[p / 6][0], rows[p / 6][1], price[(p / 2) % 3], rack[p % 2]};
		for (size_t i = 0; i < 4; i++) {
			const char *s;
			SW_OK(sw, aiw_sweep_point_value(sw, p, i, &s));
			ck_assert_msg(strcmp(s, want[i]) == 0, "point %zu param %zu: %s, expected %s", p,
			              i, s, want[i]);
		}
	}
	aiw_sweep_free(sw);

	/* quoted fields: a comma and a line end inside, "" for a quote */
	char qpath[256];
	tmp_path(qpath, sizeof qpath, "quoted.csv");
	write_text(qpath, "inference.q.trace_file,load.x.profile\n"
	                 "\"my \"\"quoted\"\" trace.csv\" ,\"0:1kW, 8h:3kW\"\n"
	                 "\"two\nlines.csv\",0:2kW\n");
	sw = new_sweep(MM1);
	SW_OK(sw, aiw_sweep_point_file(sw, qpath));
	SW_OK(sw, aiw_sweep_prepare(sw));
	SW_OK(sw, aiw_sweep_npoints(sw, &np));
	ck_assert_uint_eq(np, 2);
	static const char *const quoted[2][2] = {{"my \"quoted\" trace.csv", "0:1kW, 8h:3kW"},
	                                         {"two\nlines.csv", "0:2kW"}};
	for (size_t p = 0; p < 2; p++)
		for (size_t i = 0; i < 2; i++) {
			const char *s;
			SW_OK(sw, aiw_sweep_point_value(sw, p, i, &s));
			ck_assert_msg(strcmp(s, quoted[p][i]) == 0, "point %zu param %zu: [%s]", p, i, s);
		}
	aiw_sweep_free(sw);
	unlink(qpath);

	/* a parameter in both the file and an axis */
	sw = new_sweep(MM1);
	SW_OK(sw, aiw_sweep_point_file(sw, path));
	SW_OK(sw, aiw_sweep_axis(sw, "site.pue", "1.3"));
	SW_FAILS(sw, aiw_sweep_prepare(sw), AIW_EINVAL, "site.pue is given twice");
	aiw_sweep_free(sw);
	unlink(path);
}
END_TEST

START_TEST(test_point_file_errors)
{
	char path[256];
	tmp_path(path, sizeof path, "bad.csv");
	aiw_sweep *sw = new_sweep(MM1);
	write_text(path, "site.pue,inference.q.rate\n1.1,1/s\n1.2\n");
	SW_FAILS(sw, aiw_sweep_point_file(sw, path), AIW_EPARSE, ":3: 1 fields, the header has 2");
	write_text(path, "site.pue\n");
	SW_FAILS(sw, aiw_sweep_point_file(sw, path), AIW_EPARSE, "no points");
	write_text(path, "site.pue\n\"1.1\n");
	SW_FAILS(sw, aiw_sweep_point_file(sw, path), AIW_EPARSE, "quote");
	write_text(path, "sim.seed\n1\n");
	SW_FAILS(sw, aiw_sweep_point_file(sw, path), AIW_EINVAL, "sim.seed");
	/* a value the parameter refuses: the message names file and line */
	write_text(path, "site.pue\n1.1\n\n0.5\n");
	SW_OK(sw, aiw_sweep_point_file(sw, path));
	SW_FAILS(sw, aiw_sweep_prepare(sw), AIW_ERANGE, ":4:");
	aiw_sweep_free(sw);
	unlink(path);
}
END_TEST

/* Unknown parameters, bad values, unknown metrics: named in the message. */
START_TEST(test_validation)
{
	aiw_sweep *sw = new_sweep(MM1);
	SW_OK(sw, aiw_sweep_axis(sw, "inference.q.rat", "1/s"));
	SW_FAILS(sw, aiw_sweep_prepare(sw), AIW_EUNKNOWN, "did you mean 'rate'");
	aiw_sweep_free(sw);

	sw = new_sweep(MM1);
	SW_OK(sw, aiw_sweep_axis(sw, "inference.q.rate", "1/s,fast"));
	SW_FAILS(sw, aiw_sweep_prepare(sw), AIW_EPARSE, "fast");
	aiw_sweep_free(sw);

	sw = new_sweep(MM1);
	SW_OK(sw, aiw_sweep_set_metrics(sw, "inference.q.queue_wait_mean"));
	SW_FAILS(sw, aiw_sweep_prepare(sw), AIW_EUNKNOWN, "did you mean '" WAIT "'");
	aiw_sweep_free(sw);

	sw = new_sweep(MM1);
	SW_OK(sw, aiw_sweep_set_metrics(sw, "training.*"));
	SW_FAILS(sw, aiw_sweep_prepare(sw), AIW_EUNKNOWN, "pattern 'training.*'");
	aiw_sweep_free(sw);

	sw = new_sweep("[sim]\nduration = oops\n");
	SW_FAILS(sw, aiw_sweep_prepare(sw), AIW_ESCENARIO, "<sweep scenario>:2: sim.duration = oops");
	aiw_sweep_free(sw);

	ck_assert_int_eq(aiw_sweep_create(&sw, "/nonexistent/scenario.ini", NULL), AIW_OK);
	SW_FAILS(sw, aiw_sweep_prepare(sw), AIW_EIO, "/nonexistent/scenario.ini");
	aiw_sweep_free(sw);
}
END_TEST

/* Metric selection: names and patterns in the order given, no duplicates;
 * by default every metric point 0 publishes. */
START_TEST(test_metric_selection)
{
	aiw_sweep *sw = new_sweep(MM1);
	SW_OK(sw, aiw_sweep_set_metrics(sw, " " ARRIVED ", inference.q.queue_wait_p*_s ," WAIT "," ARRIVED));
	SW_OK(sw, aiw_sweep_prepare(sw));
	size_t nm;
	SW_OK(sw, aiw_sweep_nmetrics(sw, &nm));
	static const char *const want[] = {ARRIVED,
	                                   "inference.q.queue_wait_p50_s",
	                                   "inference.q.queue_wait_p95_s",
	                                   "inference.q.queue_wait_p99_s",
	                                   WAIT};
	ck_assert_uint_eq(nm, sizeof want / sizeof *want);
	for (size_t i = 0; i < nm; i++) {
		const char *s;
		SW_OK(sw, aiw_sweep_metric_name(sw, i, &s));
		ck_assert_str_eq(s, want[i]);
	}
	aiw_sweep_free(sw);

	/* default: all, in publication order */
	aiw_sim *sim;
	ck_assert_int_eq(aiw_sim_create(&sim, 1), AIW_OK);
	AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim, MM1, NULL));
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	size_t count;
	AIW_OK_OR_FAIL(sim, aiw_sim_metric_count(sim, &count));
	sw = new_sweep(MM1);
	SW_OK(sw, aiw_sweep_prepare(sw));
	SW_OK(sw, aiw_sweep_nmetrics(sw, &nm));
	ck_assert_uint_eq(nm, count);
	for (size_t i = 0; i < nm; i++) {
		const char *a, *b;
		SW_OK(sw, aiw_sweep_metric_name(sw, i, &a));
		AIW_OK_OR_FAIL(sim, aiw_sim_metric_name(sim, i, &b));
		ck_assert_str_eq(a, b);
	}
	aiw_sim_free(sim);
	aiw_sweep_free(sw);
}
END_TEST

/* SplitMix64 finalizer, as documented. */
static uint64_t mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static uint64_t doc_seed(uint64_t base, uint64_t p, uint64_t r)
{
	const uint64_t g = 0x9e3779b97f4a7c15ull;
	return mix(mix(base + g * (p + 1)) + g * (r + 1));
}

/* Seeds follow the documented formula; the base defaults to the scenario's
 * sim.seed; any task reruns alone, in a plain aiw_sim, bit for bit. */
START_TEST(test_seeds_and_rerun)
{
	char text[1024];
	snprintf(text, sizeof text, "%s[sim]\nseed = 99\n", MM1);
	aiw_sweep *sw = new_sweep(text);
	SW_OK(sw, aiw_sweep_axis(sw, "inference.q.rate", "0.5/s,1/s"));
	SW_OK(sw, aiw_sweep_set_replications(sw, 3));
	SW_OK(sw, aiw_sweep_set_metrics(sw, WAIT "," ARRIVED ",sim.events"));
	SW_OK(sw, aiw_sweep_set_jobs(sw, 2));
	SW_OK(sw, aiw_sweep_run(sw));
	for (size_t p = 0; p < 2; p++)
		for (size_t r = 0; r < 3; r++) {
			uint64_t s;
			SW_OK(sw, aiw_sweep_task_seed(sw, p, r, &s));
			ck_assert_uint_eq(s, doc_seed(99, p, r));
		}
	/* task (1, 2) alone: a simulation configured by hand */
	uint64_t seed;
	SW_OK(sw, aiw_sweep_task_seed(sw, 1, 2, &seed));
	aiw_sim *sim;
	ck_assert_int_eq(aiw_sim_create(&sim, 5), AIW_OK);
	AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim, text, NULL));
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "inference.q.rate", "1/s"));
	char sb[32];
	snprintf(sb, sizeof sb, "%llu", (unsigned long long)seed);
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.seed", sb));
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	static const char *const names[3] = {WAIT, ARRIVED, "sim.events"};
	double again[3];
	SW_OK(sw, aiw_sweep_run_task(sw, 1, 2, again));
	for (size_t m = 0; m < 3; m++) {
		double stored, alone = aiwi_test_metric(sim, names[m]);
		SW_OK(sw, aiw_sweep_replication(sw, 1, 2, m, &stored));
		ck_assert_msg(stored == alone && again[m] == alone, "%s: sweep %.17g, alone %.17g, "
		              "run_task %.17g", names[m], stored, alone, again[m]);
	}
	/* replications differ from each other */
	double a, b;
	SW_OK(sw, aiw_sweep_replication(sw, 1, 0, 1, &a));
	SW_OK(sw, aiw_sweep_replication(sw, 1, 1, 1, &b));
	ck_assert(a != b);
	aiw_sim_free(sim);
	aiw_sweep_free(sw);

	/* an explicit base seed replaces the scenario's */
	sw = new_sweep(text);
	SW_OK(sw, aiw_sweep_set_seed(sw, UINT64_MAX));
	SW_OK(sw, aiw_sweep_prepare(sw));
	uint64_t s;
	SW_OK(sw, aiw_sweep_task_seed(sw, 0, 0, &s));
	ck_assert_uint_eq(s, doc_seed(UINT64_MAX, 0, 0));
	aiw_sweep_free(sw);
}
END_TEST

/* A sweep of 3 x 2 points, 4 replications, the given number of jobs;
 * duration (NULL: 200 s) sets the length of every run. */
static aiw_sweep *sized_sweep(unsigned jobs, const char *duration)
{
	aiw_sweep *sw = new_sweep(MM1);
	if (duration)
		SW_OK(sw, aiw_sweep_axis(sw, "sim.duration", duration));
	SW_OK(sw, aiw_sweep_axis(sw, "inference.q.rate", "0.5/s,1/s,1.5/s"));
	SW_OK(sw, aiw_sweep_axis(sw, "inference.q.service", "exp(0.5s),const(0.4s)"));
	SW_OK(sw, aiw_sweep_set_replications(sw, 4));
	SW_OK(sw, aiw_sweep_set_seed(sw, 2024));
	SW_OK(sw, aiw_sweep_set_jobs(sw, jobs));
	return sw;
}

static aiw_sweep *small_sweep(unsigned jobs)
{
	return sized_sweep(jobs, NULL);
}

static void assert_files_equal(const char *a, const char *b)
{
	char *x = slurp(a), *y = slurp(b);
	ck_assert_msg(strcmp(x, y) == 0, "%s and %s differ", a, b);
	free(x);
	free(y);
}

/* J = 1, 2, 3 and a hand-distributed run (run_task + store, as the MPI
 * driver does, in reverse order) give byte-identical files. */
START_TEST(test_jobs_identical)
{
	char out[4][256], reps[4][256];
	for (unsigned k = 0; k < 4; k++) {
		char tag[32];
		snprintf(tag, sizeof tag, "out%u.csv", k);
		tmp_path(out[k], sizeof out[k], tag);
		snprintf(tag, sizeof tag, "reps%u.csv", k);
		tmp_path(reps[k], sizeof reps[k], tag);
		aiw_sweep *sw = small_sweep(k < 3 ? k + 1 : 1);
		if (k < 3) {
			SW_OK(sw, aiw_sweep_run(sw));
		} else {
			SW_OK(sw, aiw_sweep_prepare(sw));
			size_t np, nm;
			SW_OK(sw, aiw_sweep_npoints(sw, &np));
			SW_OK(sw, aiw_sweep_nmetrics(sw, &nm));
			double *v = malloc(nm * sizeof *v);
			for (size_t t = np * 4; t-- > 0;) {
				SW_OK(sw, aiw_sweep_run_task(sw, t / 4, t % 4, v));
				SW_OK(sw, aiw_sweep_store(sw, t / 4, t % 4, v));
			}
			free(v);
		}
		SW_OK(sw, aiw_sweep_write_csv(sw, out[k]));
		SW_OK(sw, aiw_sweep_write_replications_csv(sw, reps[k]));
		aiw_sweep_free(sw);
	}
	for (unsigned k = 1; k < 4; k++) {
		assert_files_equal(out[0], out[k]);
		assert_files_equal(reps[0], reps[k]);
	}
	/* shape: header + 6 rows; 1 + 24 rows */
	char *s = slurp(out[0]);
	size_t lines = 0;
	for (char *p = s; *p; p++)
		lines += *p == '\n';
	ck_assert_uint_eq(lines, 7);
	ck_assert_msg(strncmp(s, "point,inference.q.rate,inference.q.service,", 43) == 0, "%.80s",
	              s);
	ck_assert_ptr_nonnull(strstr(s, "\n5,1.5/s,const(0.4s),"));
	free(s);
	s = slurp(reps[0]);
	lines = 0;
	for (char *p = s; *p; p++)
		lines += *p == '\n';
	ck_assert_uint_eq(lines, 25);
	ck_assert_msg(strncmp(s, "point,replication,seed,inference.q.rate,", 40) == 0, "%.80s",
	              s);
	free(s);
	for (unsigned k = 0; k < 4; k++) {
		unlink(out[k]);
		unlink(reps[k]);
	}
}
END_TEST

/* Statistics from stored values: exact two-pass mean, sample sd, Student t
 * half-width (t quantiles from tables, independent of GSL); non-finite
 * values are left out and counted out of n. */
START_TEST(test_statistics)
{
	aiw_sweep *sw = new_sweep(MM1);
	SW_OK(sw, aiw_sweep_axis(sw, "site.pue", "1.1,1.2,1.3"));
	SW_OK(sw, aiw_sweep_set_replications(sw, 5));
	SW_OK(sw, aiw_sweep_set_metrics(sw, "sim.time_s,sim.events"));
	SW_OK(sw, aiw_sweep_prepare(sw));
	const double a[5] = {1, 2, 3, 4, 10};          /* mean 4, ss 50 */
	const double b[5] = {1, NAN, 3, 5, 7};         /* n 4, mean 4, ss 20 */
	const double c[5] = {2.5, 2.5, 2.5, 2.5, 2.5}; /* sd 0 */
	for (size_t r = 0; r < 5; r++) {
		double v0[2] = {a[r], b[r]}, v1[2] = {c[r], r == 2 ? 7.0 : NAN};
		SW_OK(sw, aiw_sweep_store(sw, 0, r, v0));
		SW_OK(sw, aiw_sweep_store(sw, 1, r, v1));
	}
	double mean, sd, ci;
	size_t n;
	SW_OK(sw, aiw_sweep_result(sw, 0, 0, &mean, &sd, &ci, &n));
	ck_assert_uint_eq(n, 5);
	ck_assert_double_eq_tol(mean, 4.0, 1e-15);
	ck_assert_double_eq_tol(sd, sqrt(50.0 / 4), 1e-15);
	/* t(0.975, 4) = 2.7764451051977987 */
	ck_assert_double_eq_tol(ci, 2.7764451051977987 * sqrt(12.5) / sqrt(5.0), 1e-12);
	SW_OK(sw, aiw_sweep_result(sw, 0, 1, &mean, &sd, &ci, &n));
	ck_assert_uint_eq(n, 4);
	ck_assert_double_eq_tol(mean, 4.0, 1e-15);
	ck_assert_double_eq_tol(sd, sqrt(20.0 / 3), 1e-14);
	/* t(0.975, 3) = 3.1824463052837091 */
	ck_assert_double_eq_tol(ci, 3.1824463052837091 * sqrt(20.0 / 3) / 2, 1e-12);
	SW_OK(sw, aiw_sweep_result(sw, 1, 0, &mean, &sd, &ci, &n));
	ck_assert(mean == 2.5 && sd == 0 && ci == 0 && n == 5);
	SW_OK(sw, aiw_sweep_result(sw, 1, 1, &mean, &sd, &ci, &n)); /* one finite value */
	ck_assert(mean == 7 && isnan(sd) && isnan(ci) && n == 1);
	SW_OK(sw, aiw_sweep_result(sw, 1, 1, NULL, NULL, NULL, NULL));
	SW_FAILS(sw, aiw_sweep_result(sw, 2, 0, &mean, &sd, &ci, &n), AIW_ESTATE, "point 2");

	/* the CSV: complete points only, empty fields for non-finite values */
	char path[256];
	tmp_path(path, sizeof path, "stats.csv");
	SW_OK(sw, aiw_sweep_write_csv(sw, path));
	char *s = slurp(path);
	char want[2048];
	snprintf(want, sizeof want,
	         "point,site.pue,sim.time_s.mean,sim.time_s.sd,sim.time_s.ci95,sim.time_s.n,"
	         "sim.events.mean,sim.events.sd,sim.events.ci95,sim.events.n\n"
	         "0,1.1,4,%.17g,%.17g,5,4,%.17g,%.17g,4\n"
	         "1,1.2,2.5,0,0,5,7,,,1\n",
	         sqrt(12.5), 2.7764451051977987 * sqrt(12.5) / sqrt(5.0), sqrt(20.0 / 3),
	         3.1824463052837091 * sqrt(20.0 / 3) / 2);
	/* the t quantile comes from GSL: compare the numbers, not the digits */
	double x[4];
	ck_assert_int_eq(sscanf(strchr(s, '\n') + 1, "0,1.1,4,%lf,%lf,5,4,%lf,%lf,4", &x[0], &x[1],
	                        &x[2], &x[3]),
	                 4);
	ck_assert_double_eq_tol(x[0], sqrt(12.5), 1e-15);
	ck_assert_double_eq_tol(x[1], 2.7764451051977987 * sqrt(12.5) / sqrt(5.0), 1e-12);
	ck_assert_double_eq_tol(x[2], sqrt(20.0 / 3), 1e-14);
	ck_assert_double_eq_tol(x[3], 3.1824463052837091 * sqrt(20.0 / 3) / 2, 1e-12);
	ck_assert_ptr_nonnull(strstr(s, "\n1,1.2,2.5,0,0,5,7,,,1\n"));
	ck_assert_msg(strncmp(s, want, strchr(want, '\n') - want + 1) == 0, "header: %.200s", s);
	free(s);
	unlink(path);

	/* R = 1: the mean only */
	aiw_sweep_free(sw);
	sw = new_sweep(MM1);
	SW_OK(sw, aiw_sweep_set_metrics(sw, ARRIVED));
	SW_OK(sw, aiw_sweep_run(sw));
	SW_OK(sw, aiw_sweep_result(sw, 0, 0, &mean, &sd, &ci, &n));
	ck_assert(mean > 100 && isnan(sd) && isnan(ci) && n == 1);
	aiw_sweep_free(sw);
}
END_TEST

/* Callbacks: once per point, in point order, from the calling thread,
 * with the point's results readable; progress counts up to the total. */
typedef struct cb_log {
	pthread_t self;
	size_t next, calls;
	bool ok;
	size_t last_done, prog_calls, stop_at;
	char msg[256];
} cb_log;

static void on_point(const aiw_sweep *sw, size_t point, void *payload)
{
	cb_log *l = payload;
	if (!pthread_equal(l->self, pthread_self()) || point < l->next) {
		snprintf(l->msg, sizeof l->msg, "point %zu: wrong thread or order (next %zu)", point,
		         l->next);
		l->ok = false;
	}
	double mean;
	size_t n;
	if (aiw_sweep_result(sw, point, 0, &mean, NULL, NULL, &n) != AIW_OK || n != 4) {
		snprintf(l->msg, sizeof l->msg, "point %zu: results not readable", point);
		l->ok = false;
	}
	l->next = point + 1;
	l->calls++;
}

static int on_progress(const aiw_sweep *sw, size_t done, size_t total, void *payload)
{
	cb_log *l = payload;
	if (!pthread_equal(l->self, pthread_self()) || done < l->last_done || total != 24) {
		snprintf(l->msg, sizeof l->msg, "progress %zu/%zu after %zu", done, total,
		         l->last_done);
		l->ok = false;
	}
	l->last_done = done;
	l->prog_calls++;
	return l->stop_at && done >= l->stop_at;
}

START_TEST(test_callbacks)
{
	for (unsigned jobs = 1; jobs <= 2; jobs++) {
		cb_log l = {.self = pthread_self(), .ok = true};
		aiw_sweep *sw = small_sweep(jobs);
		SW_OK(sw, aiw_sweep_set_callback(sw, on_point, &l));
		SW_OK(sw, aiw_sweep_set_progress(sw, on_progress, &l));
		SW_OK(sw, aiw_sweep_run(sw));
		ck_assert_msg(l.ok, "jobs %u: %s", jobs, l.msg);
		ck_assert_uint_eq(l.calls, 6);
		ck_assert_uint_eq(l.next, 6);
		ck_assert_uint_eq(l.last_done, 24);
		ck_assert_uint_ge(l.prog_calls, 1);
		/* a second run has nothing left to do and calls nothing */
		l.calls = 0;
		SW_OK(sw, aiw_sweep_run(sw));
		ck_assert_uint_eq(l.calls, 0);
		aiw_sweep_free(sw);
	}
}
END_TEST

/* A progress callback stops the sweep: finished points stay, the others
 * are not readable, and a second run completes exactly the same results.
 * With one job the stop comes exactly after task 6 (point 0 complete); with
 * two, after the first task, while the other thread's task (~15 ms of
 * simulation) and 22 more are left, so that the stop surely comes early. */
START_TEST(test_stop_and_resume)
{
	char a[256], b[256];
	tmp_path(a, sizeof a, "resumed.csv");
	tmp_path(b, sizeof b, "straight.csv");
	for (unsigned jobs = 1; jobs <= 2; jobs++) {
		const char *dur = jobs == 1 ? NULL : "20000s";
		cb_log l = {.self = pthread_self(), .ok = true, .stop_at = jobs == 1 ? 6 : 1};
		aiw_sweep *sw = sized_sweep(jobs, dur);
		SW_OK(sw, aiw_sweep_set_callback(sw, on_point, &l));
		SW_OK(sw, aiw_sweep_set_progress(sw, on_progress, &l));
		SW_FAILS(sw, aiw_sweep_run(sw), AIW_ESTOPPED, "stopped");
		ck_assert_msg(l.ok, "%s", l.msg);
		size_t complete = 0;
		for (size_t p = 0; p < 6; p++)
			complete += aiw_sweep_result(sw, p, 0, NULL, NULL, NULL, NULL) == AIW_OK;
		ck_assert_uint_lt(complete, 6);
		ck_assert_uint_eq(l.calls, complete);
		if (jobs == 1) { /* point 0 = tasks 0-3 */
			ck_assert_uint_eq(complete, 1);
			SW_OK(sw, aiw_sweep_result(sw, 0, 0, NULL, NULL, NULL, NULL));
		}
		/* the partial CSV holds the complete points */
		SW_OK(sw, aiw_sweep_write_csv(sw, a));
		char *s = slurp(a);
		size_t lines = 0;
		for (char *p = s; *p; p++)
			lines += *p == '\n';
		free(s);
		ck_assert_uint_eq(lines, 1 + complete);
		/* resume */
		l.stop_at = 0;
		SW_OK(sw, aiw_sweep_run(sw));
		ck_assert_uint_eq(l.calls, 6);
		SW_OK(sw, aiw_sweep_write_csv(sw, a));
		aiw_sweep_free(sw);
		sw = sized_sweep(2, dur);
		SW_OK(sw, aiw_sweep_run(sw));
		SW_OK(sw, aiw_sweep_write_csv(sw, b));
		aiw_sweep_free(sw);
		assert_files_equal(a, b);
	}
	unlink(a);
	unlink(b);
}
END_TEST

/* aiw_sweep_stop from a signal handler and from another thread; the second
 * reaches inside running simulations (the tasks here last 2e7 customers). */
static aiw_sweep *volatile g_sw;
static void on_usr1(int sig)
{
	(void)sig;
	aiw_sweep_stop(g_sw);
}

static void raise_at_point(const aiw_sweep *sw, size_t point, void *payload)
{
	if (point == 1)
		raise(SIGUSR1);
}

static void *stopper(void *arg)
{
	struct timespec ts = {0, 50 * 1000 * 1000};
	nanosleep(&ts, NULL);
	aiw_sweep_stop(arg);
	return NULL;
}

START_TEST(test_stop_async)
{
	aiw_sweep *sw = small_sweep(1); /* the callback runs between tasks */
	g_sw = sw;
	struct sigaction sa, old;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_usr1;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGUSR1, &sa, &old);
	SW_OK(sw, aiw_sweep_set_callback(sw, raise_at_point, NULL));
	SW_FAILS(sw, aiw_sweep_run(sw), AIW_ESTOPPED, NULL);
	sigaction(SIGUSR1, &old, NULL);
	SW_OK(sw, aiw_sweep_result(sw, 1, 0, NULL, NULL, NULL, NULL));
	SW_FAILS(sw, aiw_sweep_result(sw, 5, 0, NULL, NULL, NULL, NULL), AIW_ESTATE, NULL);
	aiw_sweep_free(sw);

	/* long tasks (~15 s each), stopped from another thread after 50 ms */
	sw = new_sweep(MM1);
	SW_OK(sw, aiw_sweep_axis(sw, "sim.duration", "20000000s"));
	SW_OK(sw, aiw_sweep_axis(sw, "sim.sample_interval", "10000s"));
	SW_OK(sw, aiw_sweep_set_replications(sw, 2));
	SW_OK(sw, aiw_sweep_set_metrics(sw, WAIT));
	SW_OK(sw, aiw_sweep_set_jobs(sw, 2));
	SW_OK(sw, aiw_sweep_prepare(sw));
	pthread_t th;
	ck_assert_int_eq(pthread_create(&th, NULL, stopper, sw), 0);
	SW_FAILS(sw, aiw_sweep_run(sw), AIW_ESTOPPED, "0 of 2 runs");
	pthread_join(th, NULL);
	double v;
	SW_FAILS(sw, aiw_sweep_replication(sw, 0, 0, 0, &v), AIW_ESTATE, NULL);
	aiw_sweep_free(sw);
}
END_TEST

/* A task that fails when its simulation starts: the run returns the
 * simulation's error, naming the point, its values and its seed; the
 * earlier points keep their results. */
START_TEST(test_task_error)
{
	for (unsigned jobs = 1; jobs <= 2; jobs++) {
		aiw_sweep *sw = new_sweep("[sim]\nduration = 1h\n[load x]\nprofile = 0:1kW\n");
		SW_OK(sw, aiw_sweep_axis(sw, "load.x.profile", "0:1kW,0:2kW,garbage,0:3kW"));
		SW_OK(sw, aiw_sweep_set_metrics(sw, "site.energy_kwh"));
		SW_OK(sw, aiw_sweep_set_jobs(sw, jobs));
		aiw_status st = aiw_sweep_run(sw);
		ck_assert_msg(st != AIW_OK && st != AIW_ESTOPPED, "%s", aiw_status_name(st));
		const char *m = aiw_sweep_errmsg(sw);
		ck_assert_msg(strstr(m, "point 2 (load.x.profile=garbage), replication 0 (sim.seed = ") &&
		                      strstr(m, "garbage"),
		              "%s", m);
		if (jobs == 1) { /* with 2, the failure may stop task 0 in flight */
			double mean;
			SW_OK(sw, aiw_sweep_result(sw, 1, 0, &mean, NULL, NULL, NULL));
			ck_assert_double_eq_tol(mean, 2.0, 1e-12); /* 2 kW for 1 h */
			SW_FAILS(sw, aiw_sweep_result(sw, 3, 0, NULL, NULL, NULL, NULL), AIW_ESTATE,
			         NULL);
		}
		aiw_sweep_free(sw);
	}
	/* point 0 failing is found by prepare */
	aiw_sweep *sw = new_sweep("[sim]\nduration = 1h\n");
	SW_OK(sw, aiw_sweep_axis(sw, "load.x.profile", "garbage"));
	SW_FAILS(sw, aiw_sweep_prepare(sw), AIW_EPARSE, "point 0 (load.x.profile=garbage)");
	aiw_sweep_free(sw);
}
END_TEST

/* keep_going: a refused point (a value out of range, a start that refuses
 * the configuration) is recorded with its status and message, the other
 * points run and the results name the refusal; point 0 refused does not
 * stop prepare.  The same sweep without it stops at the refusal. */
START_TEST(test_keep_going)
{
	const char *scen = "[sim]\nduration = 1h\n[training t]\ngpus = 64\nmemory_check = warn\n";
	for (unsigned jobs = 1; jobs <= 2; jobs++) {
		aiw_sweep *sw = new_sweep(scen);
		SW_OK(sw, aiw_sweep_axis(sw, "training.t.gpus", "0,8,16"));
		SW_OK(sw, aiw_sweep_axis(sw, "training.t.zero_stage", "0,2"));
		SW_OK(sw, aiw_sweep_set_metrics(sw, "training.t.steps"));
		SW_OK(sw, aiw_sweep_set_replications(sw, 2));
		SW_OK(sw, aiw_sweep_set_jobs(sw, jobs));
		SW_OK(sw, aiw_sweep_set_keep_going(sw, 1));
		SW_OK(sw, aiw_sweep_run(sw));
		SW_FAILS(sw, aiw_sweep_set_keep_going(sw, 0), AIW_ESTATE, "prepared");
		size_t np;
		SW_OK(sw, aiw_sweep_npoints(sw, &np));
		ck_assert_uint_eq(np, 6);
		for (size_t p = 0; p < np; p++) {
			aiw_status ps;
			const char *why = NULL;
			SW_OK(sw, aiw_sweep_point_status(sw, p, &ps, &why));
			double mean;
			if (p < 2) { /* gpus = 0: out of range */
				ck_assert_int_eq(ps, AIW_ERANGE);
				ck_assert_msg(strstr(why, "replication 0 ") &&
				                      strstr(why, "training.t.gpus = 0"),
				              "%s", why);
				SW_FAILS(sw, aiw_sweep_result(sw, p, 0, &mean, NULL, NULL, NULL),
				         AIW_ERANGE, "was refused");
				SW_FAILS(sw, aiw_sweep_replication(sw, p, 1, 0, &mean), AIW_ERANGE,
				         "replication 1 was refused");
			} else if (p % 2) { /* zero_stage = 2 without layers */
				ck_assert_int_eq(ps, AIW_ESCENARIO);
				ck_assert_msg(strstr(why, "training.t.zero_stage = 2 needs the "
				                          "architecture"),
				              "%s", why);
			} else {
				ck_assert_int_eq(ps, AIW_OK);
				ck_assert_str_eq(why, "");
				SW_OK(sw, aiw_sweep_result(sw, p, 0, &mean, NULL, NULL, NULL));
				ck_assert_double_gt(mean, 0);
			}
		}
		char path[512];
		tmp_path(path, sizeof path, "keep_going.csv");
		SW_OK(sw, aiw_sweep_write_csv(sw, path));
		char *csv = slurp(path);
		ck_assert_msg(strstr(csv, ",status,message\n") &&
		                      strstr(csv, "\n2,8,0,") && strstr(csv, ",ok,\n") &&
		                      strstr(csv, "\n3,8,2,,,,0,refused,\"point 3 ("),
		              "%s", csv);
		free(csv);
		SW_OK(sw, aiw_sweep_write_replications_csv(sw, path));
		csv = slurp(path);
		ck_assert_msg(strstr(csv, "\n2,0,") && !strstr(csv, "\n3,0,") && !strstr(csv, "\n0,0,"),
		              "%s", csv);
		free(csv);
		unlink(path);
		aiw_sweep_free(sw);
	}
	/* without keep_going the first refusal stops the sweep */
	aiw_sweep *sw = new_sweep(scen);
	SW_OK(sw, aiw_sweep_axis(sw, "training.t.gpus", "8,16"));
	SW_OK(sw, aiw_sweep_axis(sw, "training.t.zero_stage", "0,2"));
	SW_FAILS(sw, aiw_sweep_run(sw), AIW_ESCENARIO, "point 1 (");
	aiw_sweep_free(sw);
	/* every point refused: prepare says so */
	sw = new_sweep(scen);
	SW_OK(sw, aiw_sweep_axis(sw, "training.t.zero_stage", "1,2"));
	SW_OK(sw, aiw_sweep_set_keep_going(sw, 1));
	SW_FAILS(sw, aiw_sweep_prepare(sw), AIW_ESCENARIO, "no point of the 2 starts; point 0 (");
	aiw_sweep_free(sw);
	/* arguments */
	ck_assert_int_eq(aiw_sweep_set_keep_going(NULL, 1), AIW_EINVAL);
	sw = new_sweep(scen);
	aiw_status ps;
	SW_FAILS(sw, aiw_sweep_point_status(sw, 0, &ps, NULL), AIW_ESTATE, "prepare");
	SW_OK(sw, aiw_sweep_prepare(sw));
	SW_FAILS(sw, aiw_sweep_point_status(sw, 1, &ps, NULL), AIW_ERANGE, "point 1");
	SW_FAILS(sw, aiw_sweep_point_status(sw, 0, NULL, NULL), AIW_EINVAL, "NULL");
	SW_OK(sw, aiw_sweep_point_status(sw, 0, &ps, NULL));
	ck_assert_int_eq(ps, AIW_ESTOPPED); /* not run yet */
	aiw_sweep_free(sw);
}
END_TEST

/* The scenario from a file, with relative paths resolved from its folder. */
START_TEST(test_scenario_file)
{
	char path[256];
	tmp_path(path, sizeof path, "scenario.ini");
	write_text(path, MM1);
	aiw_sweep *sw;
	ck_assert_int_eq(aiw_sweep_create(&sw, path, NULL), AIW_OK);
	SW_OK(sw, aiw_sweep_set_metrics(sw, ARRIVED));
	SW_OK(sw, aiw_sweep_set_replications(sw, 2));
	SW_OK(sw, aiw_sweep_run(sw));
	aiw_sweep *sw2 = new_sweep(MM1);
	SW_OK(sw2, aiw_sweep_set_metrics(sw2, ARRIVED));
	SW_OK(sw2, aiw_sweep_set_replications(sw2, 2));
	SW_OK(sw2, aiw_sweep_run(sw2));
	for (size_t r = 0; r < 2; r++) {
		double x, y;
		SW_OK(sw, aiw_sweep_replication(sw, 0, r, 0, &x));
		SW_OK(sw2, aiw_sweep_replication(sw2, 0, r, 0, &y));
		ck_assert(x == y);
	}
	aiw_sweep_free(sw);
	aiw_sweep_free(sw2);
	unlink(path);
}
END_TEST

/* Coverage of the 95% confidence interval.  Each of K = 200 sweeps (base
 * seeds 1..200) replicates the M/M/1 queue R = 10 times for T = 2000 s
 * (about 2000 customers) and gives a t interval for W_q; the number of
 * intervals holding the true W_q = 0.5 s is Binomial(K, 0.95) if the
 * intervals are right, and the test accepts the central 99.9% of that law.
 * Bias: a run starts empty, so its mean wait is low by about 0.0025 s at
 * T = 2000 s (measured over 4000 runs: 0.4975 +- 0.0009), 0.13 standard
 * errors of a 10-run mean (sd of one run 0.059 s): coverage ~94.7%
 * (measured over 2000 sweeps: 94.65%), well inside the band; the interval
 * half-width (~0.042 s) dwarfs the bias.  (K = 40 under valgrind.) */
START_TEST(test_ci_coverage_mm1)
{
	const unsigned K = under_valgrind() ? 40 : 200;
	const double truth = 0.5 / (2.0 - 1.0);
	unsigned covered = 0;
	for (unsigned k = 1; k <= K; k++) {
		aiw_sweep *sw = new_sweep(MM1);
		SW_OK(sw, aiw_sweep_axis(sw, "sim.duration", "2000s"));
		SW_OK(sw, aiw_sweep_axis(sw, "sim.sample_interval", "2000s"));
		SW_OK(sw, aiw_sweep_set_replications(sw, 10));
		SW_OK(sw, aiw_sweep_set_metrics(sw, WAIT));
		SW_OK(sw, aiw_sweep_set_seed(sw, k));
		SW_OK(sw, aiw_sweep_set_jobs(sw, 2));
		SW_OK(sw, aiw_sweep_run(sw));
		double mean, ci;
		size_t n;
		SW_OK(sw, aiw_sweep_result(sw, 0, 0, &mean, NULL, &ci, &n));
		ck_assert_uint_eq(n, 10);
		covered += fabs(mean - truth) <= ci;
		aiw_sweep_free(sw);
	}
	unsigned lo = 0, hi = K;
	while (gsl_cdf_binomial_P(lo, 0.95, K) <= 0.0005)
		lo++;
	while (hi > 0 && gsl_cdf_binomial_P(hi - 1, 0.95, K) >= 0.9995)
		hi--;
	ck_assert_msg(covered >= lo && covered <= hi,
	              "%u of %u intervals cover W_q = %g; Binomial(%u, 0.95) central 99.9%%: "
	              "[%u, %u]",
	              covered, K, truth, K, lo, hi);
}
END_TEST

/* aiw_sweep_write_html: its argument checks; the page holds every point
 * (one row each, its values and each metric's mean and CI half-width as
 * aiw_sweep_result gives them), every metric's chart slot and a refused
 * point's message; the same sweep gives the same bytes, whatever the
 * number of threads. */
static size_t count_of(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
		n++;
	return n;
}

START_TEST(test_html)
{
	char a[256], b[256], bad[256];
	tmp_path(a, sizeof a, "a.html");
	tmp_path(b, sizeof b, "b.html");
	tmp_path(bad, sizeof bad, "no/such/dir/r.html");
	ck_assert_int_eq(aiw_sweep_write_html(NULL, a), AIW_EINVAL);
	aiw_sweep *sw = small_sweep(1);
	SW_FAILS(sw, aiw_sweep_write_html(sw, NULL), AIW_EINVAL, "path is NULL");
	SW_FAILS(sw, aiw_sweep_write_html(sw, ""), AIW_EINVAL, "path is empty");
	SW_FAILS(sw, aiw_sweep_write_html(sw, a), AIW_ESTATE, "has not run");
	SW_OK(sw, aiw_sweep_set_metrics(sw, WAIT "," ARRIVED));
	SW_OK(sw, aiw_sweep_run(sw));
	SW_FAILS(sw, aiw_sweep_write_html(sw, bad), AIW_EIO, "cannot write");
	SW_OK(sw, aiw_sweep_write_html(sw, a));
	char *page = slurp(a);
	size_t np, nm, npar;
	SW_OK(sw, aiw_sweep_npoints(sw, &np));
	SW_OK(sw, aiw_sweep_nmetrics(sw, &nm));
	SW_OK(sw, aiw_sweep_nparams(sw, &npar));
	ck_assert_uint_eq(np, 6);
	ck_assert_uint_eq(nm, 2);
	ck_assert_uint_eq(count_of(page, "<tr class=\"point\""), np);
	ck_assert_uint_eq(count_of(page, "data-status=\"ok\""), np);
	ck_assert_ptr_nonnull(strstr(page, "default-src 'none'"));
	ck_assert_ptr_nonnull(strstr(page, "<tr><td>Seed</td><td>2024</td></tr>"));
	ck_assert_ptr_nonnull(strstr(page, "<tr><td>Replications</td><td>4</td></tr>"));
	ck_assert_ptr_nonnull(strstr(page, "data-expected=\"2\""));
	char buf[512];
	for (size_t j = 0; j < nm; j++) {
		const char *m;
		SW_OK(sw, aiw_sweep_metric_name(sw, j, &m));
		snprintf(buf, sizeof buf, "<th><code>%s</code></th>", m);
		ck_assert_msg(strstr(page, buf), "no column %s", m);
	}
	for (size_t p = 0; p < np; p++) {
		char row[4096];
		int k = snprintf(row, sizeof row,
		                 "<tr class=\"point\" data-point=\"%zu\" data-status=\"ok\"><td "
		                 "class=\"num\">%zu</td>", p, p);
		for (size_t i = 0; i < npar; i++) {
			const char *v;
			SW_OK(sw, aiw_sweep_point_value(sw, p, i, &v));
			k += snprintf(row + k, sizeof row - (size_t)k, "<td>%s</td>", v);
		}
		for (size_t j = 0; j < nm; j++) {
			double mean, ci;
			SW_OK(sw, aiw_sweep_result(sw, p, j, &mean, NULL, &ci, NULL));
			ck_assert(isfinite(mean) && isfinite(ci) && ci > 0);
			k += snprintf(row + k, sizeof row - (size_t)k,
			              "<td class=\"num\">%.6g &plusmn; %.6g</td>", mean, ci);
		}
		ck_assert_msg(strstr(page, row), "point %zu: no row %s", p, row);
	}
	free(page);
	/* the same sweep on two threads: the same bytes */
	aiw_sweep *sw2 = small_sweep(2);
	SW_OK(sw2, aiw_sweep_set_metrics(sw2, WAIT "," ARRIVED));
	SW_OK(sw2, aiw_sweep_run(sw2));
	SW_OK(sw2, aiw_sweep_write_html(sw2, b));
	assert_files_equal(a, b);
	aiw_sweep_free(sw2);
	aiw_sweep_free(sw);
	/* a refused point and its message (text escaped) */
	sw = new_sweep("[sim]\nduration = 1h\n[training t]\ngpus = 64\nmemory_check = warn\n");
	SW_OK(sw, aiw_sweep_axis(sw, "training.t.gpus", "0,8"));
	SW_OK(sw, aiw_sweep_set_metrics(sw, "training.t.steps"));
	SW_OK(sw, aiw_sweep_set_keep_going(sw, 1));
	SW_OK(sw, aiw_sweep_run(sw));
	SW_OK(sw, aiw_sweep_write_html(sw, a));
	page = slurp(a);
	ck_assert_uint_eq(count_of(page, "data-status=\"refused\""), 1);
	ck_assert_uint_eq(count_of(page, "data-status=\"ok\""), 1);
	ck_assert_ptr_nonnull(strstr(page, "<ul id=\"refused-list\">"));
	aiw_status ps;
	const char *why;
	SW_OK(sw, aiw_sweep_point_status(sw, 0, &ps, &why));
	ck_assert_int_ne(ps, AIW_OK);
	ck_assert_msg(strstr(page, "training.t.gpus = 0"), "the refusal's message is missing");
	free(page);
	aiw_sweep_free(sw);
	remove(a);
	remove(b);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("sweep");
	TCase *tc = tcase_create("sweep");
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_arguments);
	tcase_add_test(tc, test_value_lists);
	tcase_add_test(tc, test_grid_order);
	tcase_add_test(tc, test_point_file_errors);
	tcase_add_test(tc, test_validation);
	tcase_add_test(tc, test_metric_selection);
	tcase_add_test(tc, test_seeds_and_rerun);
	tcase_add_test(tc, test_jobs_identical);
	tcase_add_test(tc, test_statistics);
	tcase_add_test(tc, test_callbacks);
	tcase_add_test(tc, test_stop_and_resume);
	tcase_add_test(tc, test_stop_async);
	tcase_add_test(tc, test_task_error);
	tcase_add_test(tc, test_keep_going);
	tcase_add_test(tc, test_scenario_file);
	tcase_add_test(tc, test_ci_coverage_mm1);
	suite_add_tcase(s, tc);
	TCase *th = tcase_create("html");
	tcase_set_timeout(th, 300);
	tcase_add_test(th, test_html);
	suite_add_tcase(s, th);
	return s;
}

AIW_TEST_MAIN(make_suite)
