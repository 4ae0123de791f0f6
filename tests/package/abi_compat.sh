#!/bin/sh
# ABI guard, the program side: a program written and compiled against the
# first release's header (abi/aiworkload-0.1.0.h, a verbatim copy of
# include/aiworkload.h at 0.1.0) still compiles, links and runs against the
# library built now.  It calls every function family of 0.1.0 and checks
# results that cannot drift: status codes and their names, closed forms of
# the sizing and collective calculators, a seeded run's conservation, the
# registry, the writers, a sweep.  (tests/package/abi.sh compares the binary
# interface with abidiff; this test is what an application sees.)
set -eu
base="$top_srcdir/abi/aiworkload-0.1.0.h"
lib="$top_builddir/.libs"
[ -f "$base" ] || { echo "FAIL: no baseline header $base"; exit 1; }
[ -f "$lib/libaiworkload.so" ] || { echo "FAIL: no $lib/libaiworkload.so"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/include"
cp "$base" "$tmp/include/aiworkload.h"
cat >"$tmp/old.c" <<'C'
#include <aiworkload.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

static int failures;
#define CHECK(cond)                                                              \
	do {                                                                     \
		if (!(cond)) {                                                   \
			fprintf(stderr, "abi_compat: line %d: %s\n", __LINE__, #cond); \
			failures++;                                              \
		}                                                                \
	} while (0)
#define OK(sim, call)                                                                 \
	do {                                                                          \
		aiw_status st_ = (call);                                              \
		if (st_ != AIW_OK) {                                                  \
			fprintf(stderr, "abi_compat: line %d: %s -> %s: %s\n", __LINE__, #call, \
			        aiw_status_name(st_), (sim) ? aiw_sim_errmsg(sim) : "");       \
			failures++;                                                   \
		}                                                                     \
	} while (0)

static int ticks;
static void on_event(aiw_sim *sim, double t, void *payload)
{
	(void)sim;
	(void)t;
	++*(int *)payload;
}
static int on_progress(aiw_sim *sim, double now, double end, void *payload)
{
	(void)sim;
	(void)now;
	(void)end;
	(void)payload;
	ticks++;
	return 0;
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : "/tmp";
	/* the version: same major, not older than the header */
	CHECK(aiw_version() >> 16 == AIW_VERSION_MAJOR);
	CHECK(aiw_version() >= AIW_VERSION_NUMBER);
	CHECK(strchr(aiw_version_string(), '.') != NULL);
	/* status codes: the values compiled in keep their meaning */
#define XX(name, value, text)                                              \
	CHECK(AIW_##name == value);                                        \
	CHECK(strcmp(aiw_status_name(AIW_##name), "AIW_" #name) == 0);     \
	CHECK(strcmp(aiw_strerror(AIW_##name), text) == 0);
	AIW_STATUS_MAP(XX)
#undef XX

	/* registry (no simulation) */
	size_t np = 0, idx = 0;
	OK(NULL, aiw_param_count(&np));
	CHECK(np > 50);
	OK(NULL, aiw_param_find("training.NAME.gpus", &idx));
	const char *name, *type, *def, *unit, *choices, *doc;
	double mn, mx;
	OK(NULL, aiw_param_info(idx, &name, &type, &def, &unit, &mn, &mx, &choices, &doc));
	CHECK(strcmp(name, "training.NAME.gpus") == 0 && strcmp(type, "int") == 0);
	double v = 0;
	OK(NULL, aiw_parse_value("duration", "90d", &v, NULL, 0));
	CHECK(v == 90 * 86400.0);
	char eb[128];
	CHECK(aiw_parse_value("duration", "nan", &v, eb, sizeof eb) != AIW_OK && eb[0]);

	/* catalog, sizing, collectives: closed forms */
	size_t ng = 0;
	OK(NULL, aiw_catalog_gpu_count(&ng));
	CHECK(ng >= 7);
	const char *g0;
	OK(NULL, aiw_catalog_gpu_name(0, &g0));
	OK(NULL, aiw_catalog_gpu_value("H100-SXM", "tdp_w", &v));
	CHECK(v == 700);
	OK(NULL, aiw_catalog_gpu_field(0, &name, &unit, &doc));
	size_t nl = 0;
	OK(NULL, aiw_catalog_link_count(&nl));
	CHECK(nl > 0);
	OK(NULL, aiw_catalog_link_name(0, &name));
	OK(NULL, aiw_catalog_link_value(name, "bw", &v));
	CHECK(v > 0);
	OK(NULL, aiw_catalog_link_field(0, &name, &unit, &doc));
	double bpp = 0;
	OK(NULL, aiw_size_training_preset("mixed_adam", &bpp));
	CHECK(bpp == 12);
	OK(NULL, aiw_size_training_preset_name(0, &name));
	OK(NULL, aiw_size_training_memory(70e9, bpp, &v));
	CHECK(v == 840e9);
	OK(NULL, aiw_size_inference_weights(70e9, 16, &v));
	CHECK(v == 140e9);
	OK(NULL, aiw_size_kv_cache(80, 8, 128, 16, 4096, 1, &v));
	CHECK(v == 2.0 * 80 * 8 * 128 * 2 * 4096);
	OK(NULL, aiw_size_max_sequences(80e9, 40e9, 1e9, 0, &v));
	CHECK(v == 40);
	OK(NULL, aiw_size_min_gpus("H100-SXM", 160e9, 0, &v));
	CHECK(v == 2);
	OK(NULL, aiw_size_training_flops(405e9, 15.6e12, &v));
	CHECK(fabs(v - 6 * 405e9 * 15.6e12) <= 1e-12 * v);
	OK(NULL, aiw_size_training_time(1e24, "H100-SXM", 1000, 0.5, &v));
	CHECK(v > 0);
	OK(NULL, aiw_size_activations(80, 4096, 1, 8192, 64, 8, "selective", &v));
	CHECK(v > 0);
	/* ring all-reduce of S over p ranks on one link: 2(p-1)a + 2(p-1)/p S/B */
	OK(NULL, aiw_allreduce_time("ring", 1e9, 8, 8, 1e-6, 100e9, 1e-5, 50e9, 1, &v));
	CHECK(fabs(v - (14 * 1e-6 + 2 * 7.0 / 8 * 1e9 / 100e9)) <= 1e-12);
	OK(NULL, aiw_busbw(1e9, 8, 0.5, &v));
	CHECK(fabs(v - 1e9 / 0.5 * 2 * 7.0 / 8) <= 1e-3);

	/* a simulation: parameters, scenario text, stepping, events, results */
	aiw_sim *sim = NULL;
	OK(NULL, aiw_sim_create(&sim, 42));
	CHECK(sim != NULL);
	OK(sim, aiw_sim_load_string(sim,
	                            "[sim]\nduration = 6h\nsample_interval = 10min\n"
	                            "[inference chat]\nrate = 2/s\nreplicas = 2\n",
	                            "abi.ini"));
	OK(sim, aiw_sim_add_component(sim, "training", "t"));
	OK(sim, aiw_sim_set(sim, "training.t.gpus", "64"));
	OK(sim, aiw_sim_set_double(sim, "site.pue", 1.25));
	char buf[64];
	OK(sim, aiw_sim_get(sim, "training.t.gpus", buf, sizeof buf));
	CHECK(strcmp(buf, "64") == 0);
	OK(sim, aiw_sim_get_double(sim, "site.pue", &v));
	CHECK(v == 1.25);
	CHECK(aiw_sim_set(sim, "training.t.gpus", "0") == AIW_ERANGE);
	CHECK(strlen(aiw_sim_errmsg(sim)) > 0);
	int fired = 0;
	uint64_t h = 0;
	OK(sim, aiw_sim_schedule(sim, 3600, on_event, &fired, NULL));
	OK(sim, aiw_sim_schedule(sim, 7200, on_event, &fired, &h));
	OK(sim, aiw_sim_cancel(sim, h));
	size_t pend = 0;
	OK(sim, aiw_sim_pending(sim, &pend));
	CHECK(pend == 1);
	OK(sim, aiw_sim_set_progress(sim, on_progress, NULL, 0));
	OK(sim, aiw_sim_run_until(sim, 3 * 3600));
	double now = 0;
	OK(sim, aiw_sim_now(sim, &now));
	CHECK(now == 3 * 3600);
	OK(sim, aiw_sim_run(sim));
	CHECK(fired == 1 && ticks > 0);
	double a, c, d, f;
	OK(sim, aiw_sim_metric(sim, "inference.chat.requests_arrived", &a));
	OK(sim, aiw_sim_metric(sim, "inference.chat.requests_completed", &c));
	OK(sim, aiw_sim_metric(sim, "inference.chat.requests_dropped", &d));
	OK(sim, aiw_sim_metric(sim, "inference.chat.requests_in_flight", &f));
	CHECK(a > 0 && a == c + d + f);
	size_t nm = 0, ns = 0, len = 0, got = 0;
	OK(sim, aiw_sim_metric_count(sim, &nm));
	CHECK(nm > 10);
	OK(sim, aiw_sim_metric_name(sim, 0, &name));
	OK(sim, aiw_sim_series_count(sim, &ns));
	CHECK(ns > 5);
	OK(sim, aiw_sim_series_name(sim, 0, &name));
	OK(sim, aiw_sim_series_unit(sim, "site.power_w", &unit));
	CHECK(strcmp(unit, "W") == 0);
	OK(sim, aiw_sim_series_length(sim, "site.power_w", &len));
	CHECK(len == 36);
	double t[36], p[36], e_kwh = 0, e = 0;
	OK(sim, aiw_sim_series_copy(sim, "site.power_w", t, p, 36, &got));
	CHECK(got == 36);
	for (size_t i = 0; i < got; i++)
		e += p[i] * 600;
	OK(sim, aiw_sim_metric(sim, "site.energy_kwh", &e_kwh));
	CHECK(fabs(e - e_kwh * 3.6e6) <= 1e-9 * e);
	char path[512];
	snprintf(path, sizeof path, "%s/abi.csv", dir);
	OK(sim, aiw_sim_write_csv(sim, path));
	snprintf(path, sizeof path, "%s/abi.json", dir);
	OK(sim, aiw_sim_write_json(sim, path));
	snprintf(path, sizeof path, "%s/abi.prom", dir);
	OK(sim, aiw_sim_write_prometheus(sim, path));
	snprintf(path, sizeof path, "%s/abi.yml", dir);
	OK(sim, aiw_sim_write_promtest(sim, path, NULL));
	snprintf(path, sizeof path, "%s/abi.svg", dir);
	OK(sim, aiw_sim_write_svg(sim, path, "abi"));
	double counts[2] = {8, 64}, st[2], eff[2];
	OK(sim, aiw_training_scaling(sim, "t", counts, 2, 1, st, eff));
	CHECK(st[0] > 0 && eff[1] > 0 && eff[1] <= 1 + 1e-12);
	OK(sim, aiw_sim_reset(sim));
	OK(sim, aiw_sim_now(sim, &now));
	CHECK(now == 0);
	aiw_sim_free(sim);
	aiw_sim_free(NULL);
	snprintf(path, sizeof path, "%s/abi.ini", dir);
	FILE *fp = fopen(path, "w");
	CHECK(fp != NULL);
	if (fp) {
		fputs("[sim]\nduration = 1h\n", fp);
		fclose(fp);
	}
	OK(NULL, aiw_sim_create(&sim, 1));
	OK(sim, aiw_sim_load_file(sim, path));
	OK(sim, aiw_sim_run(sim));
	aiw_sim_free(sim);

	/* a site study and a sweep */
	double share[2], div[2];
	char err[256];
	aiw_status sst = aiw_site_diversity_sweep(NULL, 64, 2, share, div, NULL, NULL, NULL, err,
	                                          sizeof err);
	if (sst != AIW_OK)
		fprintf(stderr, "abi_compat: diversity sweep: %s\n", err);
	CHECK(sst == AIW_OK && share[0] == 0);
	aiw_sweep *sw = NULL;
	OK(NULL, aiw_sweep_create(&sw, NULL,
	                          "[sim]\nduration = 1h\nsample_interval = 10min\n"
	                          "[inference a]\nrate = 1/s\n"));
	OK(NULL, aiw_sweep_axis(sw, "inference.a.rate", "1/s,2/s"));
	OK(NULL, aiw_sweep_set_replications(sw, 2));
	OK(NULL, aiw_sweep_set_metrics(sw, "inference.a.requests_arrived"));
	OK(NULL, aiw_sweep_set_seed(sw, 9));
	OK(NULL, aiw_sweep_set_jobs(sw, 1));
	OK(NULL, aiw_sweep_run(sw));
	size_t npts = 0, nmet = 0;
	OK(NULL, aiw_sweep_npoints(sw, &npts));
	OK(NULL, aiw_sweep_nmetrics(sw, &nmet));
	CHECK(npts == 2 && nmet == 1);
	double mean = 0, sd = 0, ci = 0;
	size_t n = 0;
	OK(NULL, aiw_sweep_result(sw, 1, 0, &mean, &sd, &ci, &n));
	CHECK(n == 2 && mean > 0);
	uint64_t seed = 0;
	OK(NULL, aiw_sweep_task_seed(sw, 0, 0, &seed));
	CHECK(strlen(aiw_sweep_errmsg(sw)) < 1000);
	aiw_sweep_free(sw);

	if (failures)
		fprintf(stderr, "abi_compat: %d failures\n", failures);
	else
		printf("abi_compat: a program built against the 0.1.0 header runs on %s\n",
		       aiw_version_string());
	return failures ? 1 : 0;
}
C
${CC:-cc} ${CFLAGS:-} -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror \
	-I"$tmp/include" -o "$tmp/old" "$tmp/old.c" -L"$lib" -laiworkload -lm ${LDFLAGS:-}
LD_LIBRARY_PATH="$lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$tmp/old" "$tmp"
