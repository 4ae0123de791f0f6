/* test_scenario.c - INI scenarios: valid files, and every file of
 * tests/scenarios/invalid/ failing with the message its first line expects
 * ("; expect: TEXT"). */
#include "core/internal.h"
#include "../testutil.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

START_TEST(valid_scenario)
{
	aiw_sim *sim;
	ck_assert_int_eq(aiw_sim_create(&sim, 1), AIW_OK);
	const char *text = "; a comment\n"
	                   "[sim]\nseed = 42\nduration = 2h   ; inline comment\nsample_interval = 1min\n"
	                   "[site]\npue = 1.3\nelectricity_price = 0.08\n"
	                   "[load cooling]\nprofile = 0:10kW, 1h:20kW\n"
	                   "[load empty]\n";
	AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim, text, "test.ini"));
	double v;
	AIW_OK_OR_FAIL(sim, aiw_sim_get_double(sim, "sim.duration", &v));
	ck_assert(v == 7200);
	AIW_OK_OR_FAIL(sim, aiw_sim_get_double(sim, "sim.seed", &v));
	ck_assert(v == 42);
	char buf[64];
	AIW_OK_OR_FAIL(sim, aiw_sim_get(sim, "load.empty.gpus", buf, sizeof buf)); /* created */
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	/* 1 h at 10 kW + 1 h at 20 kW = 30 kWh */
	ck_assert_rel(aiwi_test_metric(sim, "load.cooling.energy_kwh"), 30.0, 1e-12);
	aiw_sim_free(sim);
}
END_TEST

START_TEST(all_or_nothing)
{
	aiw_sim *sim;
	ck_assert_int_eq(aiw_sim_create(&sim, 1), AIW_OK);
	const char *text = "[site]\npue = 1.5\n[load x]\nprofil = 0:1W\n";
	ck_assert_int_eq(aiw_sim_load_string(sim, text, "s.ini"), AIW_ESCENARIO);
	ck_assert_str_eq(aiw_sim_errmsg(sim), "s.ini:4: unknown parameter 'profil' in [load x]; did "
	                                      "you mean 'profile'?");
	double v;
	AIW_OK_OR_FAIL(sim, aiw_sim_get_double(sim, "site.pue", &v));
	ck_assert(v == 1.3); /* untouched: nothing of a failed file is applied */
	ck_assert_int_eq(aiw_sim_get_double(sim, "load.x.gpus", &v), AIW_EUNKNOWN);
	ck_assert_int_eq(aiw_sim_load_string(sim, NULL, "x"), AIW_EINVAL);
	ck_assert_int_eq(aiw_sim_load_string(NULL, "", "x"), AIW_EINVAL);
	ck_assert_int_eq(aiw_sim_load_file(sim, NULL), AIW_EINVAL);
	ck_assert_int_eq(aiw_sim_load_file(sim, "/nonexistent/x.ini"), AIW_EIO);
	ck_assert_msg(strstr(aiw_sim_errmsg(sim), "/nonexistent/x.ini"), "%s", aiw_sim_errmsg(sim));
	AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim, "", NULL)); /* empty is fine */
	/* CRLF line ends are accepted */
	AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim, "[site]\r\npue = 1.4\r\n", "crlf.ini"));
	AIW_OK_OR_FAIL(sim, aiw_sim_get_double(sim, "site.pue", &v));
	ck_assert(v == 1.4);
	aiw_sim_free(sim);
}
END_TEST

/* The message of sim's last error starts with want. */
#define ck_assert_errmsg_starts(sim, want)                                              \
	ck_assert_msg(strncmp(aiw_sim_errmsg(sim), (want), strlen(want)) == 0,           \
	              "message\n  got:  %s\n  want: %s...", aiw_sim_errmsg(sim), (want))

/* A sim loaded from text (named origin) whose run returns want. */
static aiw_sim *refused_run(const char *text, const char *origin, aiw_status want)
{
	aiw_sim *sim;
	ck_assert_int_eq(aiw_sim_create(&sim, 1), AIW_OK);
	AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim, text, origin));
	ck_assert_int_eq(aiw_sim_run(sim), want);
	return sim;
}

/* Errors found when the run starts name the line of the component's
 * section, as load errors name theirs; a component made through the API has
 * no line, and its messages are unchanged. */
START_TEST(start_errors_name_the_section)
{
	aiw_sim *sim = refused_run("[sim]\nduration = 1h\n\n[inference a]\nreplicas = 1\n"
	                           "model_params = 1e13\n[inference a]\nrate = 2/s\n",
	                           "w.ini", AIW_ERANGE);
	ck_assert_errmsg_starts(sim, "w.ini:4: inference.a: weights of ");
	ck_assert_msg(strstr(aiw_sim_errmsg(sim), "model_params 1e+13"), "%s", aiw_sim_errmsg(sim));
	/* a second failed start does not stack the prefix */
	ck_assert_int_eq(aiw_sim_run(sim), AIW_ERANGE);
	ck_assert_errmsg_starts(sim, "w.ini:4: inference.a: ");
	ck_assert_msg(!strstr(aiw_sim_errmsg(sim) + 1, "w.ini"), "%s", aiw_sim_errmsg(sim));
	aiw_sim_free(sim);

	/* an unknown GPU is named with its parameter, as training names it */
	sim = refused_run("[inference b]\ngpu = H100-SMX\n", "g.ini", AIW_EUNKNOWN);
	ck_assert_errmsg_starts(sim, "g.ini:1: inference.b.gpu = H100-SMX: unknown GPU");
	aiw_sim_free(sim);

	/* the up-front limits (lib/core/limits.c) name the section whose parameters
	 * went past them: the component's, or [sim]'s for the recorder */
	sim = refused_run("[sim]\nduration = 1y\n\n[inference fast]\nrate = 1e6/s\n", "l.ini",
	                  AIW_ELIMIT);
	ck_assert_errmsg_starts(sim, "l.ini:4: inference.fast: about 3.2e13 requests");
	aiw_sim_free(sim);
	sim = refused_run("\n[sim]\nduration = 100y\nsample_interval = 1s\n", "s.ini", AIW_ELIMIT);
	ck_assert_errmsg_starts(sim, "s.ini:2: sim.duration / sim.sample_interval = 3.15e+09 samples");
	/* 3.2e7 ticks visiting 1,000 replica slots and their 125 racks */
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.duration", "1y"));
	AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim, "[inference big]\nreplicas = 1000\nrate = 1/s\n",
	                                        "b.ini"));
	ck_assert_int_eq(aiw_sim_run(sim), AIW_ELIMIT);
	ck_assert_errmsg_starts(sim, "s.ini:2: the recorder: about 3.5e10 rack and replica samples");
	aiw_sim_free(sim);

	/* a value set after loading is named beside the section's line */
	ck_assert_int_eq(aiw_sim_create(&sim, 1), AIW_OK);
	AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim, "[sim]\nduration = 1h\n[inference a]\n"
	                                        "model_params = 8e9\n", "v.ini"));
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "inference.a.model_params", "1e13"));
	ck_assert_int_eq(aiw_sim_run(sim), AIW_ERANGE);
	ck_assert_errmsg_starts(sim, "inference.a (declared at v.ini:3; model_params = 10000000000000 "
	                             "set after loading): weights of ");
	aiw_sim_free(sim);

	/* the components, listed in creation order */
	ck_assert_int_eq(aiw_sim_create(&sim, 1), AIW_OK);
	AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim, "[training t]\n[inference chat]\n", "c.ini"));
	size_t nc = 0;
	const char *ck = NULL, *cn = NULL;
	AIW_OK_OR_FAIL(sim, aiw_sim_component_count(sim, &nc));
	ck_assert_uint_ge(nc, 4);
	AIW_OK_OR_FAIL(sim, aiw_sim_component(sim, 0, &ck, &cn));
	ck_assert_str_eq(ck, "sim");
	ck_assert_str_eq(cn, "");
	AIW_OK_OR_FAIL(sim, aiw_sim_component(sim, nc - 1, &ck, &cn));
	ck_assert_str_eq(ck, "inference");
	ck_assert_str_eq(cn, "chat");
	ck_assert_int_eq(aiw_sim_component(sim, nc, &ck, &cn), AIW_ERANGE);
	ck_assert_int_eq(aiw_sim_component(sim, 0, NULL, &cn), AIW_EINVAL);
	ck_assert_int_eq(aiw_sim_component_count(NULL, &nc), AIW_EINVAL);
	aiw_sim_free(sim);

	/* through the API: no origin */
	ck_assert_int_eq(aiw_sim_create(&sim, 1), AIW_OK);
	AIW_OK_OR_FAIL(sim, aiw_sim_add_component(sim, "inference", "c"));
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "inference.c.model_params", "1e13"));
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.duration", "1h"));
	ck_assert_int_eq(aiw_sim_run(sim), AIW_ERANGE);
	ck_assert_errmsg_starts(sim, "inference.c: weights of ");
	aiw_sim_free(sim);
}
END_TEST

START_TEST(invalid_folder)
{
	char dir[4096];
	snprintf(dir, sizeof dir, "%s/tests/scenarios/invalid", AIW_SRCDIR);
	DIR *d = opendir(dir);
	ck_assert_msg(d != NULL, "cannot open %s", dir);
	int files = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t l = strlen(de->d_name);
		if (l < 5 || strcmp(de->d_name + l - 4, ".ini"))
			continue;
		char path[4400];
		snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
		FILE *f = fopen(path, "rb");
		char first[512] = "";
		ck_assert(fgets(first, sizeof first, f));
		fclose(f);
		const char *tag = "; expect: ";
		ck_assert_msg(strncmp(first, tag, strlen(tag)) == 0, "%s: first line must be '%sTEXT'",
		              path, tag);
		char *want = first + strlen(tag);
		want[strcspn(want, "\r\n")] = 0;
		aiw_sim *sim;
		ck_assert_int_eq(aiw_sim_create(&sim, 1), AIW_OK);
		aiw_status st = aiw_sim_load_file(sim, path);
		if (st == AIW_OK) /* some errors only show when the run starts */
			st = aiw_sim_run(sim);
		ck_assert_msg(st != AIW_OK, "%s was accepted", de->d_name);
		ck_assert_msg(strstr(aiw_sim_errmsg(sim), want), "%s: message '%s' lacks '%s'",
		              de->d_name, aiw_sim_errmsg(sim), want);
		aiw_sim_free(sim);
		files++;
	}
	closedir(d);
	ck_assert_msg(files >= 10, "only %d invalid scenarios", files);
}
END_TEST

/* aiw_sim_input: the files the parameters name (a profile, a trace, an
 * empirical distribution), as the library opens them: a relative name in a
 * scenario file resolved against its directory, one set by aiw_sim_set
 * as given; the scenario file itself not listed. */
START_TEST(input_files)
{
	char dir[] = "/tmp/aiw-inputs-XXXXXX";
	ck_assert_ptr_nonnull(mkdtemp(dir));
	char ini[300], emp[300], path[300];
	snprintf(emp, sizeof emp, "%s/emp.txt", dir);
	FILE *f = fopen(emp, "w");
	ck_assert_ptr_nonnull(f);
	fputs("100\n200\n", f);
	fclose(f);
	snprintf(ini, sizeof ini, "%s/s.ini", dir);
	f = fopen(ini, "w");
	ck_assert_ptr_nonnull(f);
	fputs("[inference a]\nprompt_tokens = empirical(emp.txt)\nprofile = prof.csv\n"
	      "[inference b]\ntrace_file = none\n",
	      f);
	fclose(f);
	aiw_sim *sim;
	ck_assert_int_eq(aiw_sim_create(&sim, 1), AIW_OK);
	size_t n = 99;
	ck_assert_int_eq(aiw_sim_input_count(sim, &n), AIW_OK);
	ck_assert_uint_eq(n, 0);
	AIW_OK_OR_FAIL(sim, aiw_sim_load_file(sim, ini));
	AIW_OK_OR_FAIL(sim, aiw_sim_input_count(sim, &n));
	ck_assert_uint_eq(n, 2); /* trace_file = none is unset */
	const char *comp, *key, *p;
	AIW_OK_OR_FAIL(sim, aiw_sim_input(sim, 0, &comp, &key, &p));
	ck_assert_str_eq(comp, "inference.a");
	ck_assert_str_eq(key, "prompt_tokens");
	ck_assert_str_eq(p, emp);
	AIW_OK_OR_FAIL(sim, aiw_sim_input(sim, 1, &comp, &key, &p));
	ck_assert_str_eq(key, "profile");
	snprintf(path, sizeof path, "%s/prof.csv", dir);
	ck_assert_str_eq(p, path);
	/* set after loading: as given */
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "inference.b.trace_file", "t.csv"));
	AIW_OK_OR_FAIL(sim, aiw_sim_input_count(sim, &n));
	ck_assert_uint_eq(n, 3);
	AIW_OK_OR_FAIL(sim, aiw_sim_input(sim, 2, &comp, &key, &p));
	ck_assert_str_eq(comp, "inference.b");
	ck_assert_str_eq(p, "t.csv");
	ck_assert_int_eq(aiw_sim_input(sim, 3, &comp, &key, &p), AIW_ERANGE);
	ck_assert_ptr_nonnull(strstr(aiw_sim_errmsg(sim), "name 3 files"));
	ck_assert_int_eq(aiw_sim_input(sim, 0, NULL, &key, &p), AIW_EINVAL);
	ck_assert_int_eq(aiw_sim_input_count(sim, NULL), AIW_EINVAL);
	ck_assert_int_eq(aiw_sim_input_count(NULL, &n), AIW_EINVAL);
	ck_assert_int_eq(aiw_sim_input(NULL, 0, &comp, &key, &p), AIW_EINVAL);
	/* a constant in place of the empirical distribution: one file fewer */
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "inference.a.prompt_tokens", "const(100)"));
	AIW_OK_OR_FAIL(sim, aiw_sim_input_count(sim, &n));
	ck_assert_uint_eq(n, 2);
	aiw_sim_free(sim);
	unlink(emp);
	unlink(ini);
	rmdir(dir);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("scenario");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, valid_scenario);
	tcase_add_test(tc, all_or_nothing);
	tcase_add_test(tc, invalid_folder);
	tcase_add_test(tc, start_errors_name_the_section);
	tcase_add_test(tc, input_files);
	suite_add_tcase(s, tc);
	return s;
}

AIW_TEST_MAIN(make_suite)
