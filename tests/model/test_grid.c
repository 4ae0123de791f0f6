/* test_grid.c - the site as the grid sees it (site.grid = on, lib/site/grid.c):
 * the Welch spectrum of a sampled square wave against its discrete Fourier
 * coefficients and its Fourier series, the step-period line of a
 * synchronous training job, ramps, steps and drops of hand-built curves,
 * the warnings of a sample interval that cannot see the band, and that the
 * statistics change nothing else and are reproduced bit for bit. */
#include "core/internal.h"
#include "site/grid.h"
#include "../testutil.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_math.h>

static aiw_sim *load_text(const char *text, uint64_t seed)
{
	aiw_sim *sim;
	ck_assert_int_eq(aiw_sim_create(&sim, seed), AIW_OK);
	AIW_OK_OR_FAIL(sim, aiw_sim_load_string(sim, text, "test.ini"));
	return sim;
}

static aiw_sim *run_text(const char *text, uint64_t seed)
{
	aiw_sim *sim = load_text(text, seed);
	AIW_OK_OR_FAIL(sim, aiw_sim_run(sim));
	return sim;
}

#define M(sim, key) aiwi_test_metric(sim, "site." key)

/* A square wave of +-A about its mean, P = 20 samples a period (2 MW for
 * 1 s, 0 W for 1 s at 100 ms), in Welch segments of 200 samples: the
 * harmonics fall on bins 10 n.  The sampled wave is periodic in P samples;
 * its discrete Fourier coefficients are exactly |c_n| = 2 / (P sin(pi n /
 * P)) for odd n, 0 for even n (sum of a geometric series), so harmonic n
 * carries the power a_n^2 / 2 with a_n = 2 A |c_n|.  A periodic Hann window
 * spreads a line on bin k over k - 1 .. k + 1 and, for 2 <= k < n/2 - 1,
 * keeps its power (the window's square has components on bins 0, +-1 and
 * +-2 only): the three bins sum to a_n^2 / 2 up to rounding.  Against the
 * continuous Fourier series 4 A / (pi n): a_n / (4 A / (pi n)) = x / sin x,
 * x = pi n / P, the sampling's own error. */
START_TEST(square_wave_fourier_series)
{
	aiw_sim *sim = run_text("[sim]\nduration = 200s\nsample_interval = 100ms\n"
	                        "[site]\ngrid = on\ngrid_welch_segment = 200\n"
	                        "[load sq]\nprofile = 0:2MW, 1s:0W\nperiod = 2s\n",
	                        1);
	const aiwi_grid *g = aiwi_site_grid(sim);
	ck_assert_ptr_nonnull(g);
	size_t nb = 0, nseg = 0;
	double df = 0;
	const double *psd = aiwi_grid_psd(g, &nb, &df, &nseg);
	ck_assert_ptr_nonnull(psd);
	ck_assert_uint_eq(nb, 101);
	ck_assert_double_eq_tol(df, 0.05, 1e-15);
	/* 2000 samples, segments of 200 every 100 */
	ck_assert_uint_eq(nseg, 19);
	ck_assert_double_eq(M(sim, "grid_spectrum_segments"), 19);
	const double A = 1e6, P = 20;
	double total = 0;
	for (size_t k = 1; k < nb; k++)
		total += psd[k] * df;
	/* Parseval: the wave's variance A^2 */
	ck_assert_rel(total, A * A, 1e-9);
	for (int n = 1; n <= 9; n++) {
		size_t k = (size_t)(10 * n);
		double line = (psd[k - 1] + psd[k] + psd[k + 1]) * df;
		if (n % 2 == 0) {
			ck_assert_msg(line <= 1e-12 * A * A, "even harmonic %d: %g W^2", n, line);
			continue;
		}
		double x = M_PI * n / P;
		double an = 2 * A * 2 / (P * sin(x));
		ck_assert_rel(line, an * an / 2, 1e-9);
		/* the Fourier series, within the sampling's factor x / sin x */
		double amp = sqrt(2 * line), series = 4 * A / (M_PI * n);
		ck_assert_msg(fabs(amp / series - 1) <= x / sin(x) - 1 + 1e-9,
		              "harmonic %d: %.10g vs 4A/(pi n) %.10g", n, amp, series);
		/* nothing between the lines */
		ck_assert_msg(psd[k + 2] * df <= 1e-12 * A * A, "bin %zu: %g", k + 2, psd[k + 2]);
	}
	/* the fundamental dominates; at 100 ms the band 0.1-20 Hz is seen to
	 * 5 Hz, and holds every harmonic: the whole fluctuation */
	ck_assert_double_eq_tol(M(sim, "grid_dominant_frequency_hz"), 0.5, 1e-12);
	ck_assert_rel(M(sim, "grid_band_share"), 1, 1e-12);
	ck_assert_rel(M(sim, "grid_band_rms_w"), A, 1e-9);
	ck_assert(aiwi_test_warned(sim, "resolves up to 5 Hz (Nyquist) only"));
	aiw_sim_free(sim);
}
END_TEST

/* A synchronous training job with no jitter, failures or checkpoints
 * draws the same power every step: its spectrum's highest bin is the step
 * frequency 1 / step time, within half a bin (the step is not a whole
 * number of bins). */
START_TEST(training_step_line)
{
	aiw_sim *sim = run_text("[sim]\nduration = 20min\nsample_interval = 100ms\n"
	                        "[site]\ngrid = on\n"
	                        "[training t]\ngpu = H100-SXM\ngpus = 64\ngpus_per_node = 8\n"
	                        "model_params = 1e9\ntokens_per_step = 1e6\nstep_compute = 1.3s\n"
	                        "allreduce = ring\noverlap = 0\n",
	                        3);
	double step = aiwi_test_metric(sim, "training.t.step_time_mean_s");
	ck_assert_double_eq(aiwi_test_metric(sim, "training.t.step_time_p99_s"),
	                    aiwi_test_metric(sim, "training.t.step_time_p50_s"));
	double df = 1.0 / (1024 * 0.1);
	double f = M(sim, "grid_dominant_frequency_hz");
	ck_assert_msg(fabs(f - 1 / step) <= df / 2 + 1e-12, "dominant %g Hz, 1/step %g Hz (bin %g)", f,
	              1 / step, df);
	/* the swings are the step's: nearly all the energy is in the band */
	ck_assert(M(sim, "grid_band_share") > 0.99);
	aiw_sim_free(sim);
}
END_TEST

/* A staircase at 1 s samples, by hand: P = 0 (t = 1..5 s), 1 MW (6..8),
 * 4 MW (9..20), 1 MW (21..26), 0 (27..40): each sample the average over the
 * second ending at t. */
static const char STAIRS[] =
	"[sim]\nduration = 40s\nsample_interval = 1s\n"
	"[site]\ngrid = on\ngrid_ramp_window_1 = 1s\ngrid_ramp_window_2 = 5s\n"
	"grid_ramp_window_3 = 10s\ngrid_drop_window = 3s\ngrid_drop_fraction = 0.5\n"
	"grid_welch_segment = 8\n"
	"[load stairs]\nprofile = 0:0W, 5s:1MW, 8s:4MW, 20s:1MW, 26s:0W\n";

START_TEST(ramps_steps_drops_by_hand)
{
	aiw_sim *sim = run_text(STAIRS, 1);
	/* 1 s: the 3 MW steps; 5 s: 4 MW over 5 s (t = 9, 10); 10 s: 4 MW over
	 * 10 s (t = 11..15 and 27..30) */
	ck_assert_double_eq(M(sim, "grid_ramp_1_max_w_per_s"), 3e6);
	ck_assert_double_eq(M(sim, "grid_ramp_2_max_w_per_s"), 0.8e6);
	ck_assert_double_eq(M(sim, "grid_ramp_3_max_w_per_s"), 0.4e6);
	/* steps: +3 MW ending at 9 s, -3 MW ending at 21 s */
	ck_assert_double_eq(M(sim, "grid_step_up_max_w"), 3e6);
	ck_assert_double_eq(M(sim, "grid_step_up_time_s"), 9);
	ck_assert_double_eq(M(sim, "grid_step_down_max_w"), 3e6);
	ck_assert_double_eq(M(sim, "grid_step_down_time_s"), 21);
	/* drops below the highest of the 3 samples before: 0.75 at 21..23 s
	 * (1 MW under 4 MW), 1 at 27..29 s (0 under 1 MW): two events deeper
	 * than 0.5, the deepest 1 */
	ck_assert_double_eq(M(sim, "grid_drop_max_fraction"), 1);
	ck_assert_double_eq(M(sim, "grid_drop_events"), 2);
	const aiwi_grid *g = aiwi_site_grid(sim);
	ck_assert_uint_eq(aiwi_grid_lag(g, 0), 1);
	ck_assert_uint_eq(aiwi_grid_lag(g, 1), 5);
	ck_assert_uint_eq(aiwi_grid_lag(g, 2), 10);
	ck_assert_uint_eq(aiwi_grid_lag(g, -1), 3);
	aiw_sim_free(sim);

	/* with no threshold the events are not counted (no metric) */
	char text[1024];
	snprintf(text, sizeof text, "%s", STAIRS);
	char *p = strstr(text, "grid_drop_fraction = 0.5\n");
	memmove(p, p + strlen("grid_drop_fraction = 0.5\n"), strlen(p + 25) + 1);
	sim = run_text(text, 1);
	double v;
	ck_assert_int_ne(aiw_sim_metric(sim, "site.grid_drop_events", &v), AIW_OK);
	ck_assert_double_eq(M(sim, "grid_drop_max_fraction"), 1);
	aiw_sim_free(sim);
}
END_TEST

/* The 99th percentile: a triangle wave of 10 kW steps every second moves
 * by exactly 10 kW at every sample, so every 1 s ramp is 10 kW/s and the
 * P-square estimate of any quantile is that value exactly; a run with
 * fewer than five ramps gets the exact sample quantile (GSL keeps them
 * until then): ramps 0, 1, 3 MW/s -> the 0.99 quantile by linear
 * interpolation, 3 - 0.02 x 2 = 2.96 MW/s. */
START_TEST(ramp_quantiles)
{
	char prof[1024] = "";
	size_t o = 0;
	for (int i = 0; i < 20; i++) {
		int kw = i <= 10 ? 10 * i : 10 * (20 - i);
		o += (size_t)snprintf(prof + o, sizeof prof - o, "%s%ds:%dkW", i ? "," : "", i, kw);
	}
	char text[2048];
	snprintf(text, sizeof text,
	         "[sim]\nduration = 1000s\nsample_interval = 1s\n"
	         "[site]\ngrid = on\n[load tri]\nprofile = %s\nperiod = 20s\n",
	         prof);
	aiw_sim *sim = run_text(text, 1);
	ck_assert_double_eq(M(sim, "grid_ramp_1_max_w_per_s"), 1e4);
	ck_assert_double_eq(M(sim, "grid_ramp_1_p99_w_per_s"), 1e4);
	aiw_sim_free(sim);

	sim = run_text("[sim]\nduration = 4s\nsample_interval = 1s\n"
	               "[site]\ngrid = on\n"
	               "[load few]\nprofile = 0:0W, 1s:0W, 2s:1MW, 3s:4MW\n",
	               1);
	ck_assert_double_eq(M(sim, "grid_ramp_1_max_w_per_s"), 3e6);
	ck_assert_rel(M(sim, "grid_ramp_1_p99_w_per_s"), 2.96e6, 1e-15);
	/* windows longer than the run: no ramp */
	ck_assert(isnan(M(sim, "grid_ramp_2_max_w_per_s")));
	ck_assert(isnan(M(sim, "grid_ramp_3_p99_w_per_s")));
	/* fewer samples than a segment: no spectrum */
	ck_assert_double_eq(M(sim, "grid_spectrum_segments"), 0);
	ck_assert(isnan(M(sim, "grid_band_share")));
	ck_assert(isnan(M(sim, "grid_dominant_frequency_hz")));
	aiw_sim_free(sim);
}
END_TEST

/* What the sample interval cannot see is said, and not reported: at 10 s
 * the Nyquist frequency 0.05 Hz is below the band. */
START_TEST(unresolved_band_warned)
{
	aiw_sim *sim = run_text("[sim]\nduration = 1d\nsample_interval = 10s\n"
	                        "[site]\ngrid = on\n"
	                        "[load sq]\nprofile = 0:2MW, 10min:0W\nperiod = 20min\n",
	                        1);
	ck_assert(isnan(M(sim, "grid_band_share")));
	ck_assert(isnan(M(sim, "grid_band_rms_w")));
	ck_assert(aiwi_test_warned(sim, "is above the highest frequency the sample interval resolves"));
	ck_assert(aiwi_test_warned(sim, "grid_ramp_window_1 = 1 s is shorter than sim.sample_interval"));
	/* the slow square wave is still seen: its fundamental, 1 / 20 min */
	ck_assert_double_eq_tol(M(sim, "grid_dominant_frequency_hz"), 1.0 / 1200,
	                        0.5 / (1024 * 10.0));
	aiw_sim_free(sim);

	/* a band below the segment's first bin */
	sim = run_text("[sim]\nduration = 1h\nsample_interval = 1s\n"
	               "[site]\ngrid = on\ngrid_band_low = 0.0001Hz\ngrid_band_high = 0.0005Hz\n"
	               "[load a]\nprofile = 0:1MW\n",
	               1);
	ck_assert(isnan(M(sim, "grid_band_share")));
	ck_assert(aiwi_test_warned(sim, "below the lowest frequency a Welch segment of 1024 samples"));
	aiw_sim_free(sim);

	/* settings without grid = on: the mode table's warning */
	sim = run_text("[sim]\nduration = 1h\n[site]\ngrid_welch_segment = 256\n"
	               "[load a]\nprofile = 0:1MW\n",
	               1);
	ck_assert(aiwi_test_warned(sim, "grid_welch_segment"));
	double v;
	ck_assert_int_ne(aiw_sim_metric(sim, "site.grid_ramp_1_max_w_per_s", &v), AIW_OK);
	aiw_sim_free(sim);

	/* an empty band is refused, naming both edges */
	sim = load_text("[sim]\nduration = 1h\n[site]\ngrid = on\ngrid_band_low = 5Hz\n"
	                "grid_band_high = 1Hz\n[load a]\nprofile = 0:1MW\n",
	                1);
	ck_assert_int_eq(aiw_sim_run(sim), AIW_ERANGE);
	ck_assert_ptr_nonnull(strstr(aiw_sim_errmsg(sim), "site.grid_band_low = 5 Hz must be below "
	                                                  "site.grid_band_high = 1 Hz"));
	aiw_sim_free(sim);
}
END_TEST

/* A mixed site with random loads and a training job. */
#define MIXED_SIM "[sim]\nduration = 2h\nsample_interval = 1s\n"
#define MIXED_ON "[site]\ngrid = on\ngrid_drop_fraction = 0.2\nracks_per_row = 4\n"
#define MIXED_LOADS \
	"[load onoff]\non_time = exp(3min)\noff_time = uniform(1min,5min)\non_power = 900kW\n" \
	"racks = 7\n"                                                                         \
	"[load duty]\nduty = 0.4\nslot = 2min\non_power = 500kW\nracks = 5\n"                 \
	"[training t]\ngpu = H100-SXM\ngpus = 64\ngpus_per_node = 8\nmodel_params = 1e9\n"   \
	"tokens_per_step = 1e6\njitter = lognormal(median=1,sigma=0.05)\n"
static const char MIXED[] = MIXED_SIM MIXED_ON MIXED_LOADS;
static const char MIXED_OFF[] = MIXED_SIM "[site]\ngrid = off\n" MIXED_LOADS;

/* the metrics of site.grid and site.racks_per_row */
static bool is_new(const char *name)
{
	static const char *const NEW[] = {
		"site.rows", "site.halls", "site.sum_of_row_peaks_w", "site.sum_of_hall_peaks_w",
		"site.diversity_racks_in_rows", "site.diversity_rows_in_halls",
		"site.diversity_halls_in_site", "site.rack_peaks_to_nameplate",
		"site.row_peaks_to_nameplate", "site.hall_peaks_to_nameplate",
		"site.site_peak_to_nameplate"};
	for (size_t i = 0; i < sizeof NEW / sizeof *NEW; i++)
		if (!strcmp(name, NEW[i]))
			return true;
	return !strncmp(name, "site.grid_", 10);
}

static void same_bits(aiw_sim *a, aiw_sim *b, bool skip_grid)
{
	size_t n = 0, nb = 0;
	ck_assert_int_eq(aiw_sim_metric_count(a, &n), AIW_OK);
	for (size_t i = 0; i < n; i++) {
		const char *name;
		ck_assert_int_eq(aiw_sim_metric_name(a, i, &name), AIW_OK);
		if (!strcmp(name, "sim.events") || !strncmp(name, "sim.wall", 8) ||
		    (skip_grid && is_new(name)))
			continue;
		double x = aiwi_test_metric(a, name), y = aiwi_test_metric(b, name);
		ck_assert_msg(memcmp(&x, &y, sizeof x) == 0, "%s: %.17g vs %.17g", name, x, y);
		nb++;
	}
	ck_assert_uint_gt(nb, 20);
	size_t nc = 0, ncb = 0;
	ck_assert_int_eq(aiw_sim_series_count(a, &nc), AIW_OK);
	ck_assert_int_eq(aiw_sim_series_count(b, &ncb), AIW_OK);
	ck_assert_uint_eq(nc, ncb);
	static double ta[8192], va[8192], tb[8192], vb[8192];
	for (size_t i = 0; i < nc; i++) {
		const char *name;
		ck_assert_int_eq(aiw_sim_series_name(a, i, &name), AIW_OK);
		size_t la = 0, lb = 0;
		ck_assert_int_eq(aiw_sim_series_copy(a, name, ta, va, 8192, &la), AIW_OK);
		ck_assert_int_eq(aiw_sim_series_copy(b, name, tb, vb, 8192, &lb), AIW_OK);
		ck_assert_uint_eq(la, lb);
		ck_assert_msg(!memcmp(ta, tb, la * sizeof *ta) && !memcmp(va, vb, la * sizeof *va),
		              "curve %s differs", name);
	}
}

/* Seeded runs give the same grid statistics bit for bit; with them on,
 * every other metric and every curve is bit for bit as with them off. */
START_TEST(reproduced_and_nothing_else_changes)
{
	aiw_sim *a = run_text(MIXED, 42), *b = run_text(MIXED, 42);
	same_bits(a, b, false);
	ck_assert(M(a, "grid_drop_events") > 0);
	ck_assert(M(a, "grid_ramp_2_p99_w_per_s") <= M(a, "grid_ramp_2_max_w_per_s"));
	aiw_sim *off = run_text(MIXED_OFF, 42);
	same_bits(a, off, true);
	ck_assert_ptr_null(aiwi_site_grid(off));
	aiw_sim_free(a);
	aiw_sim_free(b);
	aiw_sim_free(off);
}
END_TEST

/* The hierarchy by hand: load a draws 4 MW over 2 racks for 10 s, then
 * nothing; load b nothing, then 2 MW over 2 racks.  Rack peaks 2, 2, 1, 1
 * MW (6 MW).  Three racks a row: row 0 = a0 a1 b0 peaks at 4 MW (before
 * 10 s), row 1 = b1 at 1 MW: 5 MW, racks within rows 6 / 5.  One row a
 * hall: halls 5 MW, rows within halls 1, halls within the site (peak
 * 4 MW) 5 / 4; the three multiply to the rack diversity factor 6 / 4.  All
 * rows in one hall: its peak 4 MW, rows within halls 5 / 4, halls within
 * the site 1.  Nameplate: loads without a GPU type count their own peaks,
 * 4 + 2 MW. */
START_TEST(hierarchy_by_hand)
{
	static const char LOADS[] = "[load a]\nprofile = 0:4MW, 10s:0W\nracks = 2\n"
	                            "[load b]\nprofile = 0:0W, 10s:2MW\nracks = 2\n";
	char text[1024];
	snprintf(text, sizeof text,
	         "[sim]\nduration = 20s\nsample_interval = 1s\n"
	         "[site]\nracks_per_row = 3\nrows_per_hall = 1\n%s",
	         LOADS);
	aiw_sim *sim = run_text(text, 1);
	ck_assert_double_eq(M(sim, "sum_of_rack_peaks_w"), 6e6);
	ck_assert_double_eq(M(sim, "rows"), 2);
	ck_assert_double_eq(M(sim, "halls"), 2);
	ck_assert_double_eq(M(sim, "sum_of_row_peaks_w"), 5e6);
	ck_assert_double_eq(M(sim, "sum_of_hall_peaks_w"), 5e6);
	ck_assert_double_eq(M(sim, "diversity_racks_in_rows"), 6.0 / 5);
	ck_assert_double_eq(M(sim, "diversity_rows_in_halls"), 1);
	ck_assert_double_eq(M(sim, "diversity_halls_in_site"), 5.0 / 4);
	ck_assert_rel(M(sim, "diversity_racks_in_rows") * M(sim, "diversity_rows_in_halls") *
	                      M(sim, "diversity_halls_in_site"),
	              M(sim, "rack_diversity_factor"), 1e-15);
	ck_assert_double_eq(M(sim, "rack_peaks_to_nameplate"), 1);
	ck_assert_double_eq(M(sim, "row_peaks_to_nameplate"), 5.0 / 6);
	ck_assert_double_eq(M(sim, "site_peak_to_nameplate"), 4.0 / 6);
	aiw_sim_free(sim);

	snprintf(text, sizeof text,
	         "[sim]\nduration = 20s\nsample_interval = 1s\n[site]\nracks_per_row = 3\n%s",
	         LOADS);
	sim = run_text(text, 1);
	ck_assert_double_eq(M(sim, "halls"), 1);
	ck_assert_double_eq(M(sim, "sum_of_hall_peaks_w"), 4e6);
	ck_assert_double_eq(M(sim, "diversity_rows_in_halls"), 5.0 / 4);
	ck_assert_double_eq(M(sim, "diversity_halls_in_site"), 1);
	aiw_sim_free(sim);

	/* halls need rows; without racks_per_row no hierarchy metric */
	sim = load_text("[sim]\nduration = 1h\n[site]\nrows_per_hall = 4\n", 1);
	ck_assert_int_eq(aiw_sim_run(sim), AIW_ESCENARIO);
	ck_assert_ptr_nonnull(strstr(aiw_sim_errmsg(sim), "site.rows_per_hall = 4 is set without"));
	aiw_sim_free(sim);
	snprintf(text, sizeof text, "[sim]\nduration = 20s\nsample_interval = 1s\n%s", LOADS);
	sim = run_text(text, 1);
	double v;
	ck_assert_int_ne(aiw_sim_metric(sim, "site.diversity_racks_in_rows", &v), AIW_OK);
	aiw_sim_free(sim);
}
END_TEST

/* The load steps and their causes: a training job that starts at 30 min,
 * writes a 5-minute checkpoint every hour and stops after 3 h of steps,
 * alone on the site.  Its largest rise is its start; its end, inside a
 * sample interval, falls over two steps (the larger at least half the
 * job's power); its largest fall is a checkpoint's or its end; the steps
 * with no event (its steps averaged over each minute) are far smaller. */
START_TEST(step_causes)
{
	aiw_sim *sim = run_text("[sim]\nduration = 5h\nsample_interval = 1min\n"
	                        "[site]\ngrid = on\n"
	                        "[training t]\ngpu = H100-SXM\ngpus = 64\nmodel_params = 1e9\n"
	                        "tokens_per_step = 1e6\nstep_compute = 1.3s\noverlap = 0\n"
	                        "start = 30min\ncheckpoint_interval = 1h\ncheckpoint_time = 5min\n"
	                        "max_steps = 8000\n",
	                        3);
	double up = M(sim, "grid_step_up_max_w"), down = M(sim, "grid_step_down_max_w");
	ck_assert(up > 0 && down > 0);
	ck_assert(M(sim, "grid_step_max_w_job_start") == up);
	double ck = M(sim, "grid_step_max_w_checkpoint"), stop = M(sim, "grid_step_max_w_job_stop");
	ck_assert(stop >= 0.5 * up && stop <= up);
	ck_assert(fmax(ck, stop) >= down);
	ck_assert(ck > 0.3 * up && ck < up);
	ck_assert(M(sim, "grid_step_max_w_load") < 0.05 * ck);
	ck_assert(M(sim, "grid_step_max_w_failure") == 0);
	ck_assert(M(sim, "grid_step_max_w_scale_up") == 0);
	ck_assert(M(sim, "grid_step_max_w_preemption") == 0);
	ck_assert(aiwi_test_metric(sim, "training.t.checkpoints") >= 2);
	aiw_sim_free(sim);
	/* a serving fleet's initial replicas are a scale-up at t = 0; the
	 * steps of its traffic are the load's */
	sim = run_text("[sim]\nduration = 2h\nsample_interval = 1min\n[site]\ngrid = on\n"
	               "[inference c]\nreplicas = 2\nrate = 5\n",
	               3);
	ck_assert(M(sim, "grid_step_max_w_load") > 0);
	ck_assert(M(sim, "grid_step_max_w_checkpoint") == 0);
	aiw_sim_free(sim);
}
END_TEST

/* The run report's grid section holds the library's spectrum exactly:
 * one point per bin above 0 Hz at k df, each density the Welch average
 * aiwi_grid_psd gives (written with %.17g, read back bit for bit; an
 * empty bin is null, since a log axis has no place for it), the band and
 * the dominant frequency; with the statistics off there is no section. */
START_TEST(report_holds_the_spectrum)
{
	static const char SQ[] = "[sim]\nduration = 200s\nsample_interval = 100ms\n"
	                         "[site]\ngrid = on\ngrid_welch_segment = 200\n"
	                         "[load sq]\nprofile = 0:2MW, 1s:0W\nperiod = 2s\n";
	aiw_sim *sim = run_text(SQ, 1);
	char path[] = "/tmp/aiw_grid_reportXXXXXX";
	int fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	AIW_OK_OR_FAIL(sim, aiw_sim_write_html(sim, path));
	FILE *f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	static char page[4 << 20];
	size_t n = fread(page, 1, sizeof page - 1, f);
	page[n] = 0;
	fclose(f);
	unlink(path);
	const aiwi_grid *g = aiwi_site_grid(sim);
	size_t nb = 0, nseg = 0;
	double df = 0;
	const double *psd = aiwi_grid_psd(g, &nb, &df, &nseg);
	ck_assert_ptr_nonnull(psd);
	ck_assert_uint_eq(nb, 101);
	const char *data = strstr(page, "id=\"aiw-grid\">{\"f\":[");
	ck_assert_ptr_nonnull(data);
	const char *fp = data + strlen("id=\"aiw-grid\">{\"f\":[");
	const char *pp = strstr(data, "\"psd\":[");
	ck_assert_ptr_nonnull(pp);
	pp += strlen("\"psd\":[");
	size_t empty = 0;
	for (size_t k = 1; k < nb; k++) {
		char *e;
		double x = strtod(fp, &e);
		ck_assert_msg(e > fp, "bin %zu: no frequency", k);
		ck_assert_double_eq(x, (double)k * df);
		fp = e + 1;
		if (!strncmp(pp, "null", 4)) {
			ck_assert_msg(!(psd[k] > 0), "bin %zu: null for %g", k, psd[k]);
			empty++;
			pp += 4;
		} else {
			double y = strtod(pp, &e);
			ck_assert_msg(e > pp, "bin %zu: no density", k);
			ck_assert_double_eq(y, psd[k]);
			pp = e;
		}
		ck_assert_int_eq(*pp, k + 1 < nb ? ',' : ']');
		pp++;
	}
	ck_assert_int_eq(fp[-1], ']');
	/* a square wave has no even harmonics: bins between lines are empty
	 * or rounding; the lines (bins 10 n, n odd) are all there */
	ck_assert(empty < nb - 1);
	ck_assert_ptr_nonnull(strstr(data, "\"band\":[0.1,20],\"dominant\":0.5,"));
	ck_assert_ptr_nonnull(strstr(page, "<table id=\"grid-ramps\">"));
	ck_assert_ptr_nonnull(strstr(page, "data-metric=\"site.grid_dominant_frequency_hz\" "
	                                   "data-value=\"0.5\">0.5 Hz</td>"));
	aiw_sim_free(sim);
	/* off: no section */
	char off[sizeof SQ];
	memcpy(off, SQ, sizeof SQ);
	memcpy(strstr(off, "grid = on"), "grid =off", 9);
	sim = run_text(off, 1);
	strcpy(path, "/tmp/aiw_grid_reportXXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	AIW_OK_OR_FAIL(sim, aiw_sim_write_html(sim, path));
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	n = fread(page, 1, sizeof page - 1, f);
	page[n] = 0;
	fclose(f);
	unlink(path);
	ck_assert_ptr_null(strstr(page, "aiw-grid"));
	ck_assert_ptr_null(strstr(page, "id=\"grid"));
	aiw_sim_free(sim);
	/* a segment of 40,000 samples: 20,000 bins above 0 Hz, past the
	 * page's 8,192 points, are written as the highest of each run of
	 * ceil(20,000 / 8,192) = 3 bins: 6,667 points, the dominant among
	 * them */
	sim = run_text("[sim]\nduration = 400s\nsample_interval = 10ms\n"
	               "[site]\ngrid = on\ngrid_welch_segment = 40000\n"
	               "[load sq]\nprofile = 0:2MW, 1s:0W\nperiod = 2s\n",
	               1);
	psd = aiwi_grid_psd(aiwi_site_grid(sim), &nb, &df, &nseg);
	ck_assert_ptr_nonnull(psd);
	ck_assert_uint_eq(nb, 20001);
	strcpy(path, "/tmp/aiw_grid_reportXXXXXX");
	fd = mkstemp(path);
	ck_assert_int_ge(fd, 0);
	close(fd);
	AIW_OK_OR_FAIL(sim, aiw_sim_write_html(sim, path));
	f = fopen(path, "r");
	ck_assert_ptr_nonnull(f);
	n = fread(page, 1, sizeof page - 1, f);
	page[n] = 0;
	fclose(f);
	unlink(path);
	data = strstr(page, "id=\"aiw-grid\">{\"f\":[");
	ck_assert_ptr_nonnull(data);
	fp = data + strlen("id=\"aiw-grid\">{\"f\":[");
	pp = strstr(data, "\"psd\":[") + strlen("\"psd\":[");
	size_t pts = 0;
	bool dominant = false;
	double fdom = M(sim, "grid_dominant_frequency_hz");
	for (size_t k = 1; k < nb; k += 3, pts++) {
		char *e;
		double x = strtod(fp, &e);
		size_t best = k;
		for (size_t j = k; j < k + 3 && j < nb; j++)
			if (psd[j] > psd[best])
				best = j;
		ck_assert_double_eq(x, (double)best * df);
		dominant = dominant || x == fdom;
		fp = e + 1;
		if (!strncmp(pp, "null", 4)) {
			ck_assert(!(psd[best] > 0));
			pp += 5;
		} else {
			ck_assert_double_eq(strtod(pp, &e), psd[best]);
			pp = e + 1;
		}
	}
	ck_assert_uint_eq(pts, 6667);
	ck_assert_int_eq(fp[-1], ']');
	ck_assert_int_eq(pp[-1], ']');
	ck_assert(dominant);
	aiw_sim_free(sim);
}
END_TEST

/* aiw_sim_grid_spectrum: the accumulator's bins bit for bit at k df, the
 * count alone with cap 0, a cap below the count filling only cap, no bins
 * before the first segment completes, and the refusals. */
START_TEST(public_spectrum)
{
	aiw_sim *sim = run_text("[sim]\nduration = 200s\nsample_interval = 100ms\n"
	                        "[site]\ngrid = on\ngrid_welch_segment = 200\n"
	                        "[load sq]\nprofile = 0:2MW, 1s:0W\nperiod = 2s\n",
	                        1);
	size_t nb = 0, n = 99, nseg = 0;
	double df = 0;
	const double *psd = aiwi_grid_psd(aiwi_site_grid(sim), &nb, &df, &nseg);
	ck_assert_int_eq(aiw_sim_grid_spectrum(sim, NULL, NULL, 0, &n), AIW_OK);
	ck_assert_uint_eq(n, nb);
	ck_assert_uint_eq(n, 101);
	double f[101], p[101];
	ck_assert_int_eq(aiw_sim_grid_spectrum(sim, f, p, 101, &n), AIW_OK);
	for (size_t k = 0; k < nb; k++) {
		ck_assert_double_eq(f[k], (double)k * df);
		ck_assert_double_eq(p[k], psd[k]);
	}
	ck_assert_double_eq_tol(f[10], 0.5, 1e-15);
	/* a cap of 3 writes 3 */
	double g[4] = {-1, -1, -1, -1};
	ck_assert_int_eq(aiw_sim_grid_spectrum(sim, NULL, g, 3, &n), AIW_OK);
	ck_assert_uint_eq(n, 101);
	ck_assert_double_eq(g[2], psd[2]);
	ck_assert_double_eq(g[3], -1);
	ck_assert_int_eq(aiw_sim_grid_spectrum(sim, f, p, 101, NULL), AIW_EINVAL);
	ck_assert_int_eq(aiw_sim_grid_spectrum(NULL, f, p, 101, &n), AIW_EINVAL);
	aiw_sim_free(sim);
	/* shorter than a segment: no bins */
	sim = run_text("[sim]\nduration = 10s\nsample_interval = 100ms\n"
	               "[site]\ngrid = on\ngrid_welch_segment = 200\n"
	               "[load sq]\nprofile = 0:2MW, 1s:0W\nperiod = 2s\n",
	               1);
	n = 99;
	ck_assert_int_eq(aiw_sim_grid_spectrum(sim, f, p, 101, &n), AIW_OK);
	ck_assert_uint_eq(n, 0);
	aiw_sim_free(sim);
	/* off */
	sim = run_text("[sim]\nduration = 10s\nsample_interval = 100ms\n"
	               "[load sq]\nprofile = 0:2MW, 1s:0W\nperiod = 2s\n",
	               1);
	ck_assert_int_eq(aiw_sim_grid_spectrum(sim, f, p, 101, &n), AIW_ESTATE);
	ck_assert_uint_eq(n, 0);
	ck_assert_ptr_nonnull(strstr(aiw_sim_errmsg(sim), "site.grid = on"));
	aiw_sim_free(sim);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("grid");
	TCase *tc = tcase_create("core");
	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, square_wave_fourier_series);
	tcase_add_test(tc, training_step_line);
	tcase_add_test(tc, ramps_steps_drops_by_hand);
	tcase_add_test(tc, ramp_quantiles);
	tcase_add_test(tc, unresolved_band_warned);
	tcase_add_test(tc, reproduced_and_nothing_else_changes);
	tcase_add_test(tc, hierarchy_by_hand);
	tcase_add_test(tc, step_causes);
	tcase_add_test(tc, report_holds_the_spectrum);
	tcase_add_test(tc, public_spectrum);
	suite_add_tcase(s, tc);
	return s;
}

AIW_TEST_MAIN(make_suite)
