/* test_param.c - units, values, the registry, set/get by name. */
#include "core/internal.h"
#include "../testutil.h"

#include <string.h>

typedef struct {
	aiwi_ptype t;
	const char *text;
	double want;
} unit_case;

static const unit_case UNITS[] = {
	{AIW_PT_DURATION, "90d", 90 * 86400.0},     {AIW_PT_DURATION, "15min", 900},
	{AIW_PT_DURATION, "250ms", 0.25},           {AIW_PT_DURATION, "2h", 7200},
	{AIW_PT_DURATION, "42", 42},                {AIW_PT_DURATION, "1.5 s", 1.5},
	{AIW_PT_DURATION, "3us", 3e-6},             {AIW_PT_DURATION, "1w", 604800},
	{AIW_PT_DURATION, "1y", 31536000},          {AIW_PT_DURATION, "5m", 300},
	{AIW_PT_RATE, "20/s", 20},                  {AIW_PT_RATE, "0.05/h", 0.05 / 3600},
	{AIW_PT_RATE, "120/min", 2},                {AIW_PT_RATE, "86400/d", 1},
	{AIW_PT_RATE, "7", 7},                      {AIW_PT_SIZE, "80GB", 80e9},
	{AIW_PT_SIZE, "1GiB", 1073741824.0},        {AIW_PT_SIZE, "512MiB", 536870912.0},
	{AIW_PT_SIZE, "1.5TB", 1.5e12},             {AIW_PT_BANDWIDTH, "3.35TB/s", 3.35e12},
	{AIW_PT_BANDWIDTH, "400Gb/s", 5e10},        {AIW_PT_BANDWIDTH, "900GB/s", 9e11},
	{AIW_PT_BANDWIDTH, "100Gbps", 1.25e10},     {AIW_PT_POWER, "700W", 700},
	{AIW_PT_POWER, "1.2MW", 1.2e6},             {AIW_PT_POWER, "35kW", 35e3},
	{AIW_PT_ENERGY, "5kWh", 1.8e7},             {AIW_PT_ENERGY, "3MJ", 3e6},
	{AIW_PT_MONEY, "0.08", 0.08},               {AIW_PT_MONEY, "$30000", 30000},
	{AIW_PT_MONEY, "30k", 30000},               {AIW_PT_MONEY, "2.5 USD", 2.5},
	{AIW_PT_FLOPS, "989T", 989e12},             {AIW_PT_FLOPS, "989TFLOP/s", 989e12},
	{AIW_PT_FLOPS, "1.98PFLOP/s", 1.98e15},     {AIW_PT_REAL, "60%", 0.6},
	{AIW_PT_REAL, "-1e-3", -1e-3},              {AIW_PT_INT, "4k", 4000},
};

START_TEST(units_parse)
{
	for (size_t i = 0; i < sizeof UNITS / sizeof *UNITS; i++) {
		double x = NAN;
		char e[256] = "";
		aiw_status st = aiwi_parse_units(UNITS[i].t, UNITS[i].text, &x, e, sizeof e);
		ck_assert_msg(st == AIW_OK, "%s: %s", UNITS[i].text, e);
		ck_assert_msg(fabs(x - UNITS[i].want) <= 1e-12 * fabs(UNITS[i].want), "%s -> %.17g, want %.17g",
		              UNITS[i].text, x, UNITS[i].want);
	}
}
END_TEST

START_TEST(units_reject)
{
	const struct {
		aiwi_ptype t;
		const char *text;
		const char *msg;
	} bad[] = {
		{AIW_PT_DURATION, "nan", "is not a duration"},
		{AIW_PT_DURATION, "inf", "is not a duration"},
		{AIW_PT_DURATION, "10 parsecs", "unknown unit 'parsecs'"},
		{AIW_PT_SIZE, "", "is not a size"},
		{AIW_PT_SIZE, "0x10", "is not a size"},
		{AIW_PT_POWER, "1e400W", "overflows"},
		{AIW_PT_BANDWIDTH, "400gb/s", "unknown unit"}, /* case matters: b is bits */
		{AIW_PT_RATE, "20/fortnight", "unknown unit"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
		double x;
		char e[256] = "";
		aiw_status st = aiwi_parse_units(bad[i].t, bad[i].text, &x, e, sizeof e);
		ck_assert_msg(st != AIW_OK, "%s accepted", bad[i].text);
		ck_assert_msg(strstr(e, bad[i].msg), "%s: message '%s' lacks '%s'", bad[i].text, e,
		              bad[i].msg);
	}
	/* the public wrapper */
	double x;
	char e[128];
	ck_assert_int_eq(aiw_parse_value("duration", "2h", &x, e, sizeof e), AIW_OK);
	ck_assert(x == 7200);
	ck_assert_int_eq(aiw_parse_value("colour", "2h", &x, e, sizeof e), AIW_EUNKNOWN);
	ck_assert_int_eq(aiw_parse_value("duration", NULL, &x, e, sizeof e), AIW_EINVAL);
	ck_assert_int_eq(aiw_parse_value("enum", "x", &x, NULL, 0), AIW_EUNKNOWN);
}
END_TEST

START_TEST(set_get_by_name)
{
	aiw_sim *sim;
	ck_assert_int_eq(aiw_sim_create(&sim, 3), AIW_OK);
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "site.pue", "1.25"));
	double v;
	AIW_OK_OR_FAIL(sim, aiw_sim_get_double(sim, "site.pue", &v));
	ck_assert(v == 1.25);
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.duration", "90d"));
	AIW_OK_OR_FAIL(sim, aiw_sim_get_double(sim, "sim.duration", &v));
	ck_assert(v == 90 * 86400.0);
	AIW_OK_OR_FAIL(sim, aiw_sim_set_double(sim, "sim.sample_interval", 0.1));
	char buf[64];
	AIW_OK_OR_FAIL(sim, aiw_sim_get(sim, "sim.sample_interval", buf, sizeof buf));
	ck_assert_str_eq(buf, "0.1"); /* shortest text that reads back exactly */
	AIW_OK_OR_FAIL(sim, aiw_sim_get(sim, "sim.seed", buf, sizeof buf));
	ck_assert_str_eq(buf, "3");
	/* a component is created by setting one of its parameters */
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "load.rack1.profile", "0:1kW,1h:2kW"));
	AIW_OK_OR_FAIL(sim, aiw_sim_get(sim, "load.rack1.profile", buf, sizeof buf));
	ck_assert_str_eq(buf, "0:1kW,1h:2kW");
	ck_assert_int_eq(aiw_sim_get(sim, "load.rack1.profile", buf, 4), AIW_EBUFFER);
	/* booleans: true/yes/on/1 and false/no/off/0, any case for the words */
	static const char *const yes[] = {"true", "YES", "On", "1"}, *const no[] = {"False", "no",
	                                                                          "OFF", "0"};
	for (size_t i = 0; i < 4; i++) {
		AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "inference.b.trace_loop", yes[i]));
		AIW_OK_OR_FAIL(sim, aiw_sim_get(sim, "inference.b.trace_loop", buf, sizeof buf));
		ck_assert_msg(strcmp(buf, "true") == 0, "%s -> %s", yes[i], buf);
		AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "inference.b.trace_loop", no[i]));
		AIW_OK_OR_FAIL(sim, aiw_sim_get(sim, "inference.b.trace_loop", buf, sizeof buf));
		ck_assert_msg(strcmp(buf, "false") == 0, "%s -> %s", no[i], buf);
	}
	ck_assert_int_eq(aiw_sim_set(sim, "inference.b.trace_loop", "maybe"), AIW_EPARSE);
	ck_assert_msg(strstr(aiw_sim_errmsg(sim), "inference.b.trace_loop") &&
	                  strstr(aiw_sim_errmsg(sim), "'maybe' is not true or false"),
	              "%s", aiw_sim_errmsg(sim));

	/* errors name the parameter, the value and the range */
	ck_assert_int_eq(aiw_sim_set(sim, "site.pue", "0.9"), AIW_ERANGE);
	ck_assert_msg(strstr(aiw_sim_errmsg(sim), "site.pue") && strstr(aiw_sim_errmsg(sim), "0.9") &&
	                  strstr(aiw_sim_errmsg(sim), "[1, 5]"),
	              "%s", aiw_sim_errmsg(sim));
	ck_assert_int_eq(aiw_sim_set(sim, "site.pue", "abc"), AIW_EPARSE);
	ck_assert_int_eq(aiw_sim_set_double(sim, "site.pue", NAN), AIW_ERANGE);
	ck_assert_int_eq(aiw_sim_set_double(sim, "site.pue", INFINITY), AIW_ERANGE);
	ck_assert_int_eq(aiw_sim_set(sim, "site.peu", "1.2"), AIW_EUNKNOWN);
	ck_assert_msg(strstr(aiw_sim_errmsg(sim), "did you mean 'pue'"), "%s", aiw_sim_errmsg(sim));
	ck_assert_int_eq(aiw_sim_set(sim, "trainin.x.gpus", "8"), AIW_EUNKNOWN);
	ck_assert_msg(strstr(aiw_sim_errmsg(sim), "did you mean 'training'"), "%s",
	              aiw_sim_errmsg(sim));
	ck_assert_int_eq(aiw_sim_set(sim, "load.bad name.profile", "0:1W"), AIW_EINVAL);
	ck_assert_int_eq(aiw_sim_set(sim, "nodots", "1"), AIW_EUNKNOWN);
	ck_assert_int_eq(aiw_sim_set(sim, "", "1"), AIW_EINVAL);
	ck_assert_int_eq(aiw_sim_set(sim, NULL, "1"), AIW_EINVAL);
	ck_assert_int_eq(aiw_sim_set(sim, "site.pue", NULL), AIW_EINVAL);
	ck_assert_int_eq(aiw_sim_set(NULL, "site.pue", "1"), AIW_EINVAL);
	ck_assert_int_eq(aiw_sim_get(sim, "site.pue", NULL, 0), AIW_EINVAL);
	ck_assert_int_eq(aiw_sim_get_double(sim, "site.pue", NULL), AIW_EINVAL);
	ck_assert_int_eq(aiw_sim_get_double(sim, "load.nosuch.profile", &v), AIW_EUNKNOWN);
	ck_assert_int_eq(aiw_sim_set_double(sim, "load.rack1.profile", 1), AIW_EINVAL);
	/* a failed set leaves the old value */
	AIW_OK_OR_FAIL(sim, aiw_sim_get_double(sim, "site.pue", &v));
	ck_assert(v == 1.25);
	/* fixed parameters cannot change during a run */
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.duration", "1h"));
	AIW_OK_OR_FAIL(sim, aiw_sim_run_until(sim, 60));
	ck_assert_int_eq(aiw_sim_set(sim, "sim.duration", "2h"), AIW_ESTATE);
	ck_assert_int_eq(aiw_sim_add_component(sim, "load", "late"), AIW_ESTATE);
	AIW_OK_OR_FAIL(sim, aiw_sim_reset(sim));
	AIW_OK_OR_FAIL(sim, aiw_sim_set(sim, "sim.duration", "2h"));
	ck_assert_int_eq(aiw_sim_add_component(sim, "nosuchkind", "x"), AIW_EUNKNOWN);
	ck_assert_int_eq(aiw_sim_add_component(sim, NULL, "x"), AIW_EINVAL);
	AIW_OK_OR_FAIL(sim, aiw_sim_add_component(sim, "load", "x"));
	aiw_sim_free(sim);
}
END_TEST

START_TEST(registry_every_default_parses)
{
	/* every kind's defaults parse: create one of each, read every parameter */
	aiw_sim *sim;
	ck_assert_int_eq(aiw_sim_create(&sim, 1), AIW_OK);
	size_t n;
	ck_assert_int_eq(aiw_param_count(&n), AIW_OK);
	ck_assert(n > 10);
	for (size_t i = 0; i < n; i++) {
		const char *name, *type, *def, *unit, *choices, *doc;
		double lo, hi;
		ck_assert_int_eq(aiw_param_info(i, &name, &type, &def, &unit, &lo, &hi, &choices, &doc),
		                 AIW_OK);
		ck_assert_msg(strlen(doc) > 10, "%s has no doc", name);
		ck_assert_msg(lo <= hi || !strcmp(type, "string") || !strcmp(type, "enum"), "%s range", name);
		size_t j;
		ck_assert_int_eq(aiw_param_find(name, &j), AIW_OK);
		ck_assert_uint_eq(i, j);
		/* "training.NAME.gpus" -> set on an instance named t0 */
		char inst[256];
		const char *ph = strstr(name, ".NAME.");
		if (ph)
			snprintf(inst, sizeof inst, "%.*s.t0.%s", (int)(ph - name), name, ph + 6);
		else
			snprintf(inst, sizeof inst, "%s", name);
		char buf[4200];
		if (ph) {
			char kind[64];
			snprintf(kind, sizeof kind, "%.*s", (int)(ph - name), name);
			aiw_sim_add_component(sim, kind, "t0");
		}
		ck_assert_msg(aiw_sim_get(sim, inst, buf, sizeof buf) == AIW_OK, "%s: %s", inst,
		              aiw_sim_errmsg(sim));
		if (*def && strcmp(type, "dist") && strcmp(type, "string"))
			ck_assert_msg(aiw_sim_set(sim, inst, buf) == AIW_OK, "%s = %s does not round-trip: %s",
			              inst, buf, aiw_sim_errmsg(sim));
	}
	ck_assert_int_eq(aiw_param_info(n, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL), AIW_ERANGE);
	ck_assert_int_eq(aiw_param_count(NULL), AIW_EINVAL);
	size_t j;
	ck_assert_int_eq(aiw_param_find("site.nope", &j), AIW_EUNKNOWN);
	ck_assert_int_eq(aiw_param_find(NULL, &j), AIW_EINVAL);
	aiw_sim_free(sim);
}
END_TEST

START_TEST(status_table)
{
	ck_assert_str_eq(aiw_strerror(AIW_OK), "success");
	ck_assert_str_eq(aiw_status_name(AIW_EINVAL), "AIW_EINVAL");
	ck_assert_str_eq(aiw_strerror(12345), "unknown status code");
	for (int c = 0; c > AIW_STATUS_LAST_; c--) {
		ck_assert(strncmp(aiw_status_name(c), "AIW_", 4) == 0);
		ck_assert(strcmp(aiw_strerror(c), "unknown status code") != 0);
	}
	ck_assert_uint_eq(aiw_version(), AIW_VERSION_NUMBER);
	char v[32];
	snprintf(v, sizeof v, "%d.%d.%d", AIW_VERSION_MAJOR, AIW_VERSION_MINOR, AIW_VERSION_PATCH);
	ck_assert_str_eq(aiw_version_string(), v);
}
END_TEST

START_TEST(edit_distance)
{
	ck_assert_uint_eq(aiwi_edit_distance("max_batch", "max_bacth"), 1);
	ck_assert_uint_eq(aiwi_edit_distance("", "abc"), 3);
	ck_assert_uint_eq(aiwi_edit_distance("pue", "pue"), 0);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("param");
	TCase *tc = tcase_create("core");
	tcase_add_test(tc, units_parse);
	tcase_add_test(tc, units_reject);
	tcase_add_test(tc, set_get_by_name);
	tcase_add_test(tc, registry_every_default_parses);
	tcase_add_test(tc, status_table);
	tcase_add_test(tc, edit_distance);
	suite_add_tcase(s, tc);
	return s;
}

AIW_TEST_MAIN(make_suite)
