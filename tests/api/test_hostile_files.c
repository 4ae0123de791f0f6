/* test_hostile_files.c - hostile trace and scenario files, and files
 * refused without being read. */
#include "hostile.h"
#include "inference/traffic.h"

/* ======================================================================== */
/* hostile trace files                                                       */
/* ======================================================================== */
typedef struct trace_case {
	const char *data;
	size_t len;
	aiw_status st;
	const char *msg; /* after "PATH:" */
} trace_case;

#define TC(s, st, msg) {s, sizeof s - 1, st, msg}
static const trace_case TRACE_CASES[] = {
	TC("", AIW_EPARSE, " no data rows"),
	TC("TIMESTAMP,ContextTokens,GeneratedTokens\n", AIW_EPARSE, " no data rows"),
	TC("# only a comment\n\n\n", AIW_EPARSE, " no data rows"),
	/* malformed timestamps */
	TC("2023-11-16 18:17:03.9799600,10,10\n2023-13-16 18:17:04,1,1\n", AIW_EPARSE,
	   "2: timestamp '2023-13-16 18:17:04' is neither 'YYYY-MM-DD HH:MM:SS[.fraction]' nor a "
	   "number of seconds"),
	TC("2023-02-30 00:00:00,10,10\n", AIW_EPARSE,
	   "1: timestamp '2023-02-30 00:00:00' is neither 'YYYY-MM-DD HH:MM:SS[.fraction]' nor a "
	   "number of seconds"),
	TC("0,10,10\n12:00,1,1\n", AIW_EPARSE,
	   "2: timestamp '12:00' is neither 'YYYY-MM-DD HH:MM:SS[.fraction]' nor a number of "
	   "seconds"),
	TC("0,10,10\nnan,1,1\n", AIW_EPARSE,
	   "2: timestamp 'nan' is neither 'YYYY-MM-DD HH:MM:SS[.fraction]' nor a number of "
	   "seconds"),
	TC("0,10,10\n5,1,1\n3,1,1\n", AIW_EPARSE,
	   "3: timestamp '3' is earlier than the previous row's (line 2): rows must be in time "
	   "order (equal times are allowed)"),
	TC("0,10,10\n2023-11-16 18:17:04,1,1\n", AIW_EPARSE,
	   "2: timestamp '2023-11-16 18:17:04' is a date and time but the first row's is a number "
	   "of seconds"),
	TC("0,10\n", AIW_EPARSE,
	   "1: expected 3 fields (timestamp,prompt tokens,output tokens) or the timestamp alone, "
	   "found 2"),
	TC("0,10,10\n1,-5,3\n", AIW_EPARSE, "2: ContextTokens (prompt tokens) '-5' is not a number >= 0"),
	/* NUL bytes, in the first line and later */
	TC("0,1\0,1\n", AIW_EPARSE, "1: NUL byte in the line: not a text CSV file"),
	TC("0,10,10\n1,2\0,3\n", AIW_EPARSE, "2: NUL byte in the line: not a text CSV file"),
	/* carriage returns: CR alone does not end a line (a classic Mac OS file
	 * is one line, not a count of fields), a stray one is shown escaped */
	TC("0,10,10\r1,20,5\r2,3,3\r", AIW_EPARSE,
	   "1: carriage return (\\r) inside the line, at byte 8 ('0,10,10\\r1,20,5\\r2,3,3'): "
	   "lines must end with LF or CR LF (a file whose lines end with CR alone is one line)"),
	TC("0,10,10\r\n1,2\r0,3\r\n", AIW_EPARSE,
	   "2: carriage return (\\r) inside the line, at byte 4 ('1,2\\r0,3'): lines must end "
	   "with LF or CR LF (a file whose lines end with CR alone is one line)"),
	/* other control characters in a quoted field: escaped */
	TC("0,10,10\n1,\x1b[2J,3\n", AIW_EPARSE,
	   "2: ContextTokens (prompt tokens) '\\x1b[2J' is not a number >= 0"),
	TC("0,10,10\n1\t\x7f,2,3\n", AIW_EPARSE,
	   "2: timestamp '1\\t\\x7f' is neither 'YYYY-MM-DD HH:MM:SS[.fraction]' nor a number of "
	   "seconds"),
	/* a second 60 is a leap second only at 23:59 */
	TC("2016-12-31 12:00:60,1,1\n", AIW_EPARSE,
	   "1: timestamp '2016-12-31 12:00:60' is neither 'YYYY-MM-DD HH:MM:SS[.fraction]' nor a "
	   "number of seconds"),
	TC("2016-12-31 23:59:61,1,1\n", AIW_EPARSE,
	   "1: timestamp '2016-12-31 23:59:61' is neither 'YYYY-MM-DD HH:MM:SS[.fraction]' nor a "
	   "number of seconds"),
};

/* A leap second (2016-12-31 23:59:60 UTC, valid ISO 8601) is a timestamp:
 * it counts as the next midnight, so the row after it may be equal. */
START_TEST(trace_leap_second)
{
	char path[] = "/tmp/aiwi_hostile_leapXXXXXX";
	int fd = mkstemp(path);
	ck_assert(fd >= 0);
	close(fd);
	const char rows[] = "2016-12-31 23:59:59.5,10,10\n2016-12-31 23:59:60,10,10\n"
	                    "2016-12-31 23:59:60.5,10,10\n2017-01-01 00:00:00.5,10,10\n"
	                    "2017-01-01 00:00:01,10,10\n";
	write_file(path, rows, sizeof rows - 1);
	aiw_sim *sim;
	AIW_OK_OR_FAIL(sim, run_trace(&sim, path, false));
	ck_assert(aiwi_test_metric(sim, "inference.a.requests_arrived") == 5);
	aiw_sim_free(sim);
	unlink(path);
}
END_TEST

START_TEST(trace_hostile)
{
	const trace_case *k = &TRACE_CASES[_i];
	char path[] = "/tmp/aiwi_hostile_traceXXXXXX";
	int fd = mkstemp(path);
	ck_assert(fd >= 0);
	close(fd);
	write_file(path, k->data, k->len);
	aiw_sim *sim;
	aiw_status st = run_trace(&sim, path, false);
	char want[1024];
	snprintf(want, sizeof want, "%s:%s", path, k->msg);
	ck_assert_msg(st == k->st, "case %d: %s (%s)", _i, aiw_status_name(st), aiw_sim_errmsg(sim));
	ck_assert_msg_eq(sim, want);
	aiw_sim_free(sim);
	unlink(path);
}
END_TEST

/* CRLF line ends and a header: read as LF; 3 rows arrive at 0, 1, 2.5 s. */
START_TEST(trace_crlf)
{
	char path[] = "/tmp/aiwi_hostile_crlfXXXXXX";
	int fd = mkstemp(path);
	ck_assert(fd >= 0);
	close(fd);
	const char rows[] = "TIMESTAMP,ContextTokens,GeneratedTokens\r\n0,10,10\r\n\r\n1,20,5\r\n"
	                    "2.5,3,3\r\n";
	write_file(path, rows, sizeof rows - 1);
	aiw_sim *sim;
	AIW_OK_OR_FAIL(sim, run_trace(&sim, path, false));
	ck_assert(aiwi_test_metric(sim, "inference.a.requests_arrived") == 3);
	ck_assert(aiwi_test_metric(sim, "inference.a.requests_completed") == 3);
	aiw_sim_free(sim);
	unlink(path);
}
END_TEST

/* Very long lines: 4096 bytes is the longest line; one more is refused. */
START_TEST(trace_long_lines)
{
	char path[] = "/tmp/aiwi_hostile_longXXXXXX";
	int fd = mkstemp(path);
	ck_assert(fd >= 0);
	close(fd);
	size_t n = 8 + AIW_TRACE_MAX_LINE + 2;
	char *buf = malloc(n + 1);
	/* "0,10,10\n" then "1,1,   ...   1": blanks around a field are trimmed;
	 * 4096 bytes */
	memcpy(buf, "0,10,10\n", 8);
	size_t len = AIW_TRACE_MAX_LINE;
	memcpy(buf + 8, "1,1,", 4);
	memset(buf + 12, ' ', len - 5);
	buf[8 + len - 1] = '1';
	buf[8 + len] = '\n';
	write_file(path, buf, 8 + len + 1);
	aiw_sim *sim;
	AIW_OK_OR_FAIL(sim, run_trace(&sim, path, false));
	ck_assert(aiwi_test_metric(sim, "inference.a.requests_arrived") == 2);
	aiw_sim_free(sim);
	/* one byte more */
	memmove(buf + 13, buf + 12, len - 4 + 1);
	buf[12] = ' ';
	write_file(path, buf, 8 + len + 2);
	aiw_status st = run_trace(&sim, path, false);
	ck_assert_int_eq(st, AIW_EPARSE);
	char want[512];
	snprintf(want, sizeof want, "%s:2: line longer than %d bytes", path, AIW_TRACE_MAX_LINE);
	ck_assert_msg_eq(sim, want);
	aiw_sim_free(sim);
	/* a megabyte on one line is refused after reading a little of it */
	size_t big = 1 << 20;
	char *line = malloc(big);
	memset(line, '7', big);
	line[big - 1] = '\n';
	write_file(path, line, big);
	double r0 = bytes_read();
	st = run_trace(&sim, path, false);
	double r1 = bytes_read();
	ck_assert_int_eq(st, AIW_EPARSE);
	snprintf(want, sizeof want, "%s:1: line longer than %d bytes", path, AIW_TRACE_MAX_LINE);
	ck_assert_msg_eq(sim, want);
	if (r0 >= 0)
		ck_assert_msg(r1 - r0 < 256 * 1024, "read %g bytes to refuse a 1 MB line", r1 - r0);
	aiw_sim_free(sim);
	free(line);
	free(buf);
	unlink(path);
}
END_TEST

/* 1 GB files: a sparse file of NULs, and one valid row before a hole.  The
 * reader streams, and these are refused after reading a few kilobytes
 * (not the gigabyte: /proc/self/io counts the bytes read). */
START_TEST(trace_one_gigabyte)
{
	char path[] = "/tmp/aiwi_hostile_1gbXXXXXX";
	int fd = mkstemp(path);
	ck_assert(fd >= 0);
	ck_assert(ftruncate(fd, (off_t)1 << 30) == 0);
	close(fd);
	aiw_sim *sim;
	double r0 = bytes_read();
	aiw_status st = run_trace(&sim, path, false);
	double r1 = bytes_read();
	ck_assert_int_eq(st, AIW_EPARSE);
	char want[512];
	snprintf(want, sizeof want, "%s:1: NUL byte in the line: not a text CSV file", path);
	ck_assert_msg_eq(sim, want);
	if (r0 >= 0)
		ck_assert_msg(r1 - r0 < (1 << 20), "read %g bytes to refuse a sparse 1 GB file",
		              r1 - r0);
	aiw_sim_free(sim);
	/* a valid first row, then the hole; looping or not */
	fd = open(path, O_WRONLY | O_TRUNC);
	ck_assert(fd >= 0);
	ck_assert(write(fd, "0,10,10\n", 8) == 8);
	ck_assert(ftruncate(fd, (off_t)1 << 30) == 0);
	close(fd);
	for (int loop = 0; loop < 2; loop++) {
		r0 = bytes_read();
		st = run_trace(&sim, path, loop);
		r1 = bytes_read();
		ck_assert_int_eq(st, AIW_EPARSE);
		snprintf(want, sizeof want, "%s:2: NUL byte in the line: not a text CSV file", path);
		ck_assert_msg_eq(sim, want);
		if (r0 >= 0)
			ck_assert_msg(r1 - r0 < (1 << 20), "read %g bytes", r1 - r0);
		aiw_sim_free(sim);
	}
	unlink(path);
}
END_TEST

/* Timestamps 6 and 1.1e308 s (or -1e308 and 1e308) once made the trace's
 * period infinite and traffic.c converted inf and NaN to size_t (undefined
 * behaviour found by fuzz_trace, caught by clang's -fsanitize=undefined or
 * gcc's -fsanitize=float-cast-overflow; tests/fuzz/regressions/trace/).
 * The reader now refuses rows more than 1e15 s after the first. */
START_TEST(trace_huge_timestamps)
{
	const char *texts[] = {"TI\n\n\n6\n11E307\n", "-1e308,1,1\n1e308,1,1\n"};
	for (size_t i = 0; i < 2; i++) {
		char path[] = "/tmp/aiwi_hostile_hugetsXXXXXX";
		int fd = mkstemp(path);
		ck_assert(fd >= 0);
		close(fd);
		write_file(path, texts[i], strlen(texts[i]));
		for (int loop = 0; loop < 2; loop++) {
			aiw_sim *sim;
			aiw_status st = run_trace(&sim, path, loop);
			/* refused up front, naming the bound */
			ck_assert_int_ne(st, AIW_OK);
			ck_assert_msg(strstr(aiw_sim_errmsg(sim), "more than 1e15 s after the first row"),
			              "%s", aiw_sim_errmsg(sim));
			aiw_sim_free(sim);
		}
		unlink(path);
	}
}
END_TEST

/* ======================================================================== */
/* hostile scenario files                                                    */
/* ======================================================================== */
static aiw_status load_bytes(aiw_sim **out, const char *data, size_t len, char *path,
                             size_t pathlen)
{
	snprintf(path, pathlen, "/tmp/aiwi_hostile_scnXXXXXX");
	int fd = mkstemp(path);
	ck_assert(fd >= 0);
	close(fd);
	write_file(path, data, len);
	aiw_sim *sim = new_sim();
	*out = sim;
	return aiw_sim_load_file(sim, path);
}

START_TEST(scenario_files)
{
	char path[64], want[512];
	aiw_sim *sim;
	/* NUL bytes */
	const char nul[] = "[sim]\nduration = 1h\0\nsample_interval = 10min\n";
	ck_assert_int_eq(load_bytes(&sim, nul, sizeof nul - 1, path, sizeof path), AIW_ESCENARIO);
	snprintf(want, sizeof want, "%s:2: NUL byte in scenario text", path);
	ck_assert_msg_eq(sim, want);
	aiw_sim_free(sim);
	unlink(path);
	/* CRLF line ends: read like LF */
	const char crlf[] = "[sim]\r\nduration = 2h\r\nsample_interval = 10min\r\n[site]\r\n"
	                    "pue = 1.25\r\n";
	AIW_OK_OR_FAIL(sim, load_bytes(&sim, crlf, sizeof crlf - 1, path, sizeof path));
	double v;
	AIW_OK_OR_FAIL(sim, aiw_sim_get_double(sim, "sim.duration", &v));
	ck_assert(v == 7200);
	AIW_OK_OR_FAIL(sim, aiw_sim_get_double(sim, "site.pue", &v));
	ck_assert(v == 1.25);
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	aiw_sim_free(sim);
	unlink(path);
	/* very long lines; all-or-nothing: the line before does not apply */
	char longl[400];
	int n = snprintf(longl, sizeof longl, "[sim]\nsample_interval = 10min\nduration = 1");
	memset(longl + n, '0', 300);
	longl[n + 300] = '\n';
	ck_assert_int_eq(load_bytes(&sim, longl, (size_t)n + 301, path, sizeof path), AIW_ESCENARIO);
	snprintf(want, sizeof want, "%s:3: line longer than 198 characters", path);
	ck_assert_msg_eq(sim, want);
	AIW_OK_OR_FAIL(sim, aiw_sim_get_double(sim, "sim.sample_interval", &v));
	ck_assert(v == 60);
	aiw_sim_free(sim);
	unlink(path);
	/* an empty file is an empty scenario */
	AIW_OK_OR_FAIL(sim, load_bytes(&sim, "", 0, path, sizeof path));
	aiw_sim_free(sim);
	unlink(path);
	/* 1 GB, sparse: refused by its size, without reading it */
	snprintf(path, sizeof path, "/tmp/aiwi_hostile_bigXXXXXX");
	int fd = mkstemp(path);
	ck_assert(fd >= 0);
	ck_assert(ftruncate(fd, (off_t)1 << 30) == 0);
	close(fd);
	sim = new_sim();
	ck_assert_int_eq(aiw_sim_load_file(sim, path), AIW_ELIMIT);
	snprintf(want, sizeof want, "%s: 1073741824 bytes, larger than the limit of 67108864 bytes", path);
	ck_assert_msg_eq(sim, want);
	aiw_sim_free(sim);
	unlink(path);
	/* a directory, a missing file */
	sim = new_sim();
	ck_assert_int_eq(aiw_sim_load_file(sim, "/"), AIW_EIO);
	ck_assert_int_eq(aiw_sim_load_file(sim, "/nonexistent/aiw.ini"), AIW_EIO);
	ck_assert_msg_eq(sim, "/nonexistent/aiw.ini: No such file or directory");
	ck_assert_int_eq(aiw_sim_load_file(sim, NULL), AIW_EINVAL);
	ck_assert_int_eq(aiw_sim_load_string(sim, NULL, NULL), AIW_EINVAL);
	aiw_sim_free(sim);
}
END_TEST

/* ======================================================================== */
/* refused without reading: findings of the first hardening pass             */
/* ======================================================================== */
/* A trace whose first 128 KiB are valid rows and then holds a gigabyte
 * hole (NUL bytes): the reader stops at the first NUL byte, past limits.c's
 * 64 KiB pre-check, instead of reading the gigabyte to the line's end. */
START_TEST(trace_hole_after_64k)
{
	char path[] = "/tmp/aiwi_hostile_hole64kXXXXXX";
	int fd = mkstemp(path);
	ck_assert(fd >= 0);
	char row[32];
	size_t rows = 0;
	for (off_t off = 0; off < 128 * 1024; rows++) {
		int n = snprintf(row, sizeof row, "%zu,10,10\n", rows);
		ck_assert(write(fd, row, (size_t)n) == n);
		off += n;
	}
	ck_assert(ftruncate(fd, (off_t)1 << 30) == 0);
	close(fd);
	aiw_sim *sim;
	double r0 = bytes_read();
	aiw_status st = run_trace(&sim, path, false);
	double r1 = bytes_read();
	ck_assert_int_eq(st, AIW_EPARSE);
	if (r0 >= 0)
		ck_assert_msg(r1 - r0 < 16 << 20, "read %g bytes to refuse a hole at 128 KiB", r1 - r0);
	aiw_sim_free(sim);
	unlink(path);
}
END_TEST

/* empirical(FILE): the first field is a whole decimal number ("5abc" was
 * read as 5 and "0x1p3" as 8, silently); ", x" and "# c" may follow it. */
START_TEST(empirical_numbers)
{
	static const struct {
		const char *data, *msg; /* after "PATH:" */
	} bad[] = {
		{"1\n5abc\n", "2: not a number: '5abc'"},
		{"5abc\n1\n", "1: not a number: '5abc'"},
		{"1\n0x1p3\n", "2: not a number: '0x1p3'"},
		{"-0X10\n", "1: not a number: '-0X10'"},
		{"1\n2.5e\n", "2: not a number: '2.5e'"},
		{"1\n1e3s,2\n", "2: not a number: '1e3s'"},
	};
	char path[] = "/tmp/aiwi_hostile_empXXXXXX";
	int fd = mkstemp(path);
	ck_assert(fd >= 0);
	close(fd);
	char spec[128], want[256];
	snprintf(spec, sizeof spec, "empirical(%s)", path);
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		write_file(path, bad[i].data, strlen(bad[i].data));
		aiw_sim *sim = new_sim();
		ck_assert_int_eq(aiw_sim_set(sim, "inference.a.prompt_tokens", spec), AIW_EPARSE);
		snprintf(want, sizeof want, "inference.a.prompt_tokens = %s: %s:%s", spec, path,
		         bad[i].msg);
		ck_assert_msg_eq(sim, want);
		aiw_sim_free(sim);
	}
	/* a header, fields after the number, comments: 3 samples, mean 20 */
	const char ok[] = "tokens,weight\n10,1\n20 x\n30;y # z\n# 1000\n";
	write_file(path, ok, sizeof ok - 1);
	aiw_sim *sim = new_sim();
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "inference.a.prompt_tokens", spec));
	double mean;
	AIW_OK_OR_FAIL(sim, aiw_sim_get_double(sim, "inference.a.prompt_tokens", &mean));
	ck_assert(mean == 20);
	aiw_sim_free(sim);
	unlink(path);
}
END_TEST

/* A run that fails mid-way publishes the metrics of what ran, at the
 * failing event: here a trace of one row every 0.1 s (2 MiB of rows, about
 * 190,000, 5 h), cut to half its size by an event at t = 100 s: the reader
 * fails at the cut, near t = 2.3 h. */
static void cut_file(aiw_sim *sim, double t, void *payload)
{
	(void)sim, (void)t;
	ck_assert(truncate(payload, 1 << 20) == 0);
}

START_TEST(failed_run_metrics)
{
	char path[] = "/tmp/aiwi_hostile_failXXXXXX";
	int fd = mkstemp(path);
	ck_assert(fd >= 0);
	FILE *f = fdopen(fd, "w");
	ck_assert(f != NULL);
	size_t rows = 0;
	for (long off = 0; off < 2 << 20; rows++)
		off += fprintf(f, "%zu.%zu,10,10\n", rows / 10, rows % 10);
	fclose(f);
	aiw_sim *sim = new_sim();
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.duration", "1d"));
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.sample_interval", "10min"));
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "inference.a.traffic", "trace"));
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "inference.a.trace_file", path));
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "inference.a.replicas", "4"));
	AIW_OK_OR_FAIL(sim, aiw_sim_schedule(sim, 100, cut_file, path, NULL));
	ck_assert_int_ne(aiw_sim_run(sim), AIW_OK); /* (the cut leaves half a row) */
	ck_assert_msg(strstr(aiw_sim_errmsg(sim), path) != NULL, "%s", aiw_sim_errmsg(sim));
	double t = aiwi_test_metric(sim, "sim.time_s");
	double arrived = aiwi_test_metric(sim, "inference.a.requests_arrived");
	ck_assert_msg(t > 100 && t < 0.1 * (double)rows, "failed at t = %g s", t);
	ck_assert_msg(fabs(arrived - 10 * t) <= 100,
	              "%g requests arrived by t = %g s of %zu rows", arrived, t, rows);
	aiw_sim_free(sim);
	unlink(path);
}
END_TEST

/* A 1 GB scenario file is refused from its size: less than 1 MiB read. */
START_TEST(scenario_size_unread)
{
	char path[] = "/tmp/aiwi_hostile_bigscnXXXXXX";
	int fd = mkstemp(path);
	ck_assert(fd >= 0);
	ck_assert(ftruncate(fd, (off_t)1 << 30) == 0);
	close(fd);
	aiw_sim *sim = new_sim();
	double r0 = bytes_read();
	ck_assert_int_eq(aiw_sim_load_file(sim, path), AIW_ELIMIT);
	double r1 = bytes_read();
	if (r0 >= 0)
		ck_assert_msg(r1 - r0 < (1 << 20), "read %g bytes to refuse a 1 GB scenario",
		              r1 - r0);
	aiw_sim_free(sim);
	unlink(path);
}
END_TEST

/* An empirical(FILE) file larger than the memory limit of a run (4e9
 * bytes) is refused from its size: a valid first line, then a hole to 5e9
 * bytes, which a reading parser would refuse at line 2 instead. */
START_TEST(empirical_size_unread)
{
	char path[] = "/tmp/aiwi_hostile_bigempXXXXXX";
	int fd = mkstemp(path);
	ck_assert(fd >= 0);
	ck_assert(write(fd, "1\n", 2) == 2);
	ck_assert(ftruncate(fd, (off_t)5000000000) == 0);
	close(fd);
	char spec[128], want[512];
	snprintf(spec, sizeof spec, "empirical(%s)", path);
	aiw_sim *sim = new_sim();
	double r0 = bytes_read();
	ck_assert_int_eq(aiw_sim_set(sim, "inference.a.prompt_tokens", spec), AIW_ELIMIT);
	double r1 = bytes_read();
	snprintf(want, sizeof want,
	         "inference.a.prompt_tokens = %s: %s: 5000000000 bytes, above the memory limit "
	         "of a run (4e+09 bytes; use a file of fewer samples)",
	         spec, path);
	ck_assert_msg_eq(sim, want);
	if (r0 >= 0)
		ck_assert_msg(r1 - r0 < (1 << 20), "read %g bytes to refuse a 5 GB empirical file",
		              r1 - r0);
	aiw_sim_free(sim);
	unlink(path);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("hostile_files");
	TCase *tc = tcase_create("files");
	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, trace_hostile, 0, (int)(sizeof TRACE_CASES / sizeof *TRACE_CASES));
	tcase_add_test(tc, trace_crlf);
	tcase_add_test(tc, trace_leap_second);
	tcase_add_test(tc, trace_long_lines);
	tcase_add_test(tc, trace_one_gigabyte);
	tcase_add_test(tc, trace_huge_timestamps);
	tcase_add_test(tc, scenario_files);
	tcase_add_test(tc, empirical_numbers);
	suite_add_tcase(s, tc);

	tc = tcase_create("unread");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, trace_hole_after_64k);
	tcase_add_test(tc, scenario_size_unread);
	tcase_add_test(tc, empirical_size_unread);
	tcase_add_test(tc, failed_run_metrics);
	suite_add_tcase(s, tc);
	return s;
}

AIW_TEST_MAIN(make_suite)
