/*
 * grid.c - the site as the grid sees it: ramps, load steps, drops and the
 * Welch spectrum of the site's sampled IT power curve, streamed (grid.h).
 *
 * Memory: a ring of the last max(k_i, k_d) + 1 samples, a monotone deque
 * of at most k_d + 1 indices, three P-square workspaces, and the Welch
 * segment, window, FFT work space and n/2 + 1 bins: O(windows / dt +
 * segment), whatever the run's length.
 */
#include "site/grid.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_fft_real.h>
#include <gsl/gsl_math.h>
#include <gsl/gsl_rstat.h>

struct aiwi_grid {
	aiwi_grid_conf conf;
	size_t lag[AIWI_GRID_WINDOWS], lag_drop;
	/* the last L samples: sample j at j % L */
	size_t L;
	double *rt, *rp;
	size_t j; /* samples seen */
	/* ramps */
	double ramp_max[AIWI_GRID_WINDOWS];
	gsl_rstat_quantile_workspace *q99[AIWI_GRID_WINDOWS];
	size_t nramp[AIWI_GRID_WINDOWS];
	/* steps, and the largest |step| per cause (the last: none reported) */
	double up, up_t, down, down_t;
	double by_cause[AIWI_NCAUSES + 1];
	unsigned prev_causes;
	/* drops: deque of sample numbers, decreasing powers */
	size_t *dq, dq_cap, dq_head, dq_n;
	double drop_max;
	size_t drops;
	bool in_drop;
	/* Welch */
	size_t n, hop, fill, nseg;
	double *seg, *win, *work, *acc, *psd;
	double wsum2; /* sum of the window's squares */
	gsl_fft_real_wavetable *wt;
	gsl_fft_real_workspace *ws;
};

static size_t lag_of(double w, double dt)
{
	double k = round(w / dt);
	return k >= 1 ? (size_t)k : 1;
}

double aiwi_grid_bytes(const aiwi_grid_conf *conf)
{
	double L = 1, n = (double)conf->segment;
	for (int i = 0; i < AIWI_GRID_WINDOWS; i++)
		L = fmax(L, (double)lag_of(conf->window[i], conf->dt) + 1);
	L = fmax(L, (double)lag_of(conf->drop_window, conf->dt) + 1);
	/* ring (t, p), deque, segment + window + work + FFT (about 2n), bins */
	return sizeof(aiwi_grid) + 16 * L + 8 * L + 8 * 5 * n + 8 * (n + 2) + 1024;
}

void aiwi_grid_free(aiwi_grid *g)
{
	if (!g)
		return;
	free(g->rt);
	free(g->rp);
	free(g->dq);
	for (int i = 0; i < AIWI_GRID_WINDOWS; i++)
		if (g->q99[i])
			gsl_rstat_quantile_free(g->q99[i]);
	free(g->seg);
	free(g->win);
	free(g->work);
	free(g->acc);
	free(g->psd);
	if (g->wt)
		gsl_fft_real_wavetable_free(g->wt);
	if (g->ws)
		gsl_fft_real_workspace_free(g->ws);
	free(g);
}

aiwi_grid *aiwi_grid_new(const aiwi_grid_conf *conf)
{
	aiwi_grid *g = calloc(1, sizeof *g);
	if (!g)
		return NULL;
	g->conf = *conf;
	g->L = 1;
	for (int i = 0; i < AIWI_GRID_WINDOWS; i++) {
		g->lag[i] = lag_of(conf->window[i], conf->dt);
		if (g->lag[i] + 1 > g->L)
			g->L = g->lag[i] + 1;
		g->ramp_max[i] = NAN;
		if (!(g->q99[i] = gsl_rstat_quantile_alloc(0.99)))
			goto fail;
	}
	g->lag_drop = lag_of(conf->drop_window, conf->dt);
	if (g->lag_drop + 1 > g->L)
		g->L = g->lag_drop + 1;
	g->dq_cap = g->lag_drop + 1;
	g->rt = malloc(g->L * sizeof *g->rt);
	g->rp = malloc(g->L * sizeof *g->rp);
	g->dq = malloc(g->dq_cap * sizeof *g->dq);
	g->up = g->down = 0;
	g->up_t = g->down_t = g->drop_max = NAN;
	size_t n = conf->segment;
	g->n = n;
	g->hop = n - n / 2; /* 50 % overlap: n / 2 samples shared */
	g->seg = malloc(n * sizeof *g->seg);
	g->win = malloc(n * sizeof *g->win);
	g->work = malloc(n * sizeof *g->work);
	g->acc = calloc(n / 2 + 1, sizeof *g->acc);
	g->psd = calloc(n / 2 + 1, sizeof *g->psd);
	g->wt = gsl_fft_real_wavetable_alloc(n);
	g->ws = gsl_fft_real_workspace_alloc(n);
	if (!g->rt || !g->rp || !g->dq || !g->seg || !g->win || !g->work || !g->acc || !g->psd ||
	    !g->wt || !g->ws)
		goto fail;
	/* the periodic ("DFT-even") Hann window, scipy.signal.get_window's
	 * default for spectra: a line on bin k leaks into k - 1 and k + 1 only */
	g->wsum2 = 0;
	for (size_t m = 0; m < n; m++) {
		g->win[m] = 0.5 - 0.5 * cos(2 * M_PI * (double)m / (double)n);
		g->wsum2 += g->win[m] * g->win[m];
	}
	return g;
fail:
	aiwi_grid_free(g);
	return NULL;
}

/* One complete segment into the average. */
static void welch_segment(aiwi_grid *g)
{
	size_t n = g->n;
	double mean = 0;
	for (size_t m = 0; m < n; m++)
		mean += g->seg[m];
	mean /= (double)n;
	for (size_t m = 0; m < n; m++)
		g->work[m] = (g->seg[m] - mean) * g->win[m];
	/* halfcomplex result: [0] = Re X_0, [2k-1], [2k] = Re, Im X_k, and for
	 * an even n [n-1] = Re X_(n/2) */
	if (gsl_fft_real_transform(g->work, 1, n, g->wt, g->ws) != 0)
		return;
	/* one-sided density: 2 |X_k|^2 / (fs sum w^2), DC and Nyquist once */
	double norm = g->conf.dt / g->wsum2;
	size_t nb = n / 2 + 1;
	g->acc[0] += g->work[0] * g->work[0] * norm;
	for (size_t k = 1; k < nb; k++) {
		double p;
		if (2 * k == n)
			p = g->work[n - 1] * g->work[n - 1];
		else
			p = 2 * (g->work[2 * k - 1] * g->work[2 * k - 1] + g->work[2 * k] * g->work[2 * k]);
		g->acc[k] += p * norm;
	}
	g->nseg++;
	for (size_t k = 0; k < nb; k++)
		g->psd[k] = g->acc[k] / (double)g->nseg;
}

void aiwi_grid_add(aiwi_grid *g, double t, double p, unsigned causes)
{
	size_t j = g->j, L = g->L;
	/* ramps over each window: the sample lag[i] intervals before */
	for (int i = 0; i < AIWI_GRID_WINDOWS; i++) {
		size_t k = g->lag[i];
		if (j < k)
			continue;
		size_t o = (j - k) % L;
		double span = t - g->rt[o];
		if (!(span > 0))
			continue;
		double r = fabs(p - g->rp[o]) / span;
		if (!(r <= g->ramp_max[i]))
			g->ramp_max[i] = r;
		gsl_rstat_quantile_add(r, g->q99[i]);
		g->nramp[i]++;
	}
	/* the step from the previous sample */
	if (j >= 1) {
		double d = p - g->rp[(j - 1) % L];
		if (d > g->up) {
			g->up = d;
			g->up_t = t;
		}
		if (-d > g->down) {
			g->down = -d;
			g->down_t = t;
		}
		unsigned m = causes | g->prev_causes;
		double a = fabs(d);
		for (int c = 0; c < AIWI_NCAUSES; c++)
			if ((m >> c & 1u) && a > g->by_cause[c])
				g->by_cause[c] = a;
		if (!m && a > g->by_cause[AIWI_NCAUSES])
			g->by_cause[AIWI_NCAUSES] = a;
	}
	g->prev_causes = causes;
	/* drops below the highest of the lag_drop samples before */
	while (g->dq_n && g->dq[g->dq_head] + g->lag_drop < j) {
		g->dq_head = (g->dq_head + 1) % g->dq_cap;
		g->dq_n--;
	}
	if (g->dq_n) {
		double M = g->rp[g->dq[g->dq_head] % L];
		double f = M > 0 ? (M - p) / M : 0;
		if (f < 0)
			f = 0;
		if (!(f <= g->drop_max))
			g->drop_max = f;
		bool in = g->conf.drop_fraction > 0 && f > g->conf.drop_fraction;
		if (in && !g->in_drop)
			g->drops++;
		g->in_drop = in;
	}
	while (g->dq_n && g->rp[g->dq[(g->dq_head + g->dq_n - 1) % g->dq_cap] % L] <= p)
		g->dq_n--;
	g->rt[j % L] = t;
	g->rp[j % L] = p;
	g->dq[(g->dq_head + g->dq_n) % g->dq_cap] = j;
	g->dq_n++;
	g->j = j + 1;
	/* Welch: a segment every hop samples once the first is full */
	g->seg[g->fill++] = p;
	if (g->fill == g->n) {
		welch_segment(g);
		memmove(g->seg, g->seg + g->hop, (g->n - g->hop) * sizeof *g->seg);
		g->fill = g->n - g->hop;
	}
}

const double *aiwi_grid_psd(const aiwi_grid *g, size_t *nbins, double *df, size_t *nseg)
{
	if (nbins)
		*nbins = g->n / 2 + 1;
	if (df)
		*df = 1.0 / ((double)g->n * g->conf.dt);
	if (nseg)
		*nseg = g->nseg;
	return g->nseg ? g->psd : NULL;
}

AIW_EXPORT aiw_status aiw_sim_grid_spectrum(aiw_sim *sim, double *freq_hz, double *psd, size_t cap,
                                            size_t *nbins)
{
	if (!sim)
		return AIW_EINVAL;
	if (!nbins)
		return aiwi_err(sim, AIW_EINVAL, "aiw_sim_grid_spectrum: nbins is NULL");
	*nbins = 0;
	const aiwi_grid *g = aiwi_site_grid(sim);
	if (!g)
		return aiwi_err(sim, AIW_ESTATE,
		                "aiw_sim_grid_spectrum: no grid statistics (set site.grid = on and run)");
	size_t nb;
	double df;
	const double *p = aiwi_grid_psd(g, &nb, &df, NULL);
	if (!p)
		return AIW_OK;
	*nbins = nb;
	for (size_t k = 0; k < nb && k < cap; k++) {
		if (freq_hz)
			freq_hz[k] = (double)k * df;
		if (psd)
			psd[k] = p[k];
	}
	return AIW_OK;
}

size_t aiwi_grid_lag(const aiwi_grid *g, int i)
{
	return i >= 0 && i < AIWI_GRID_WINDOWS ? g->lag[i] : g->lag_drop;
}

void aiwi_grid_check(const aiwi_grid_conf *c, aiw_sim *sim)
{
	double nyq = 0.5 / c->dt, df = 1.0 / ((double)c->segment * c->dt);
	if (c->band_lo > nyq)
		aiwi_warn(sim,
		          "site.grid_band %.4g-%.4g Hz is above the highest frequency the sample "
		          "interval resolves (Nyquist %.4g Hz at sim.sample_interval = %.4g s): "
		          "grid_band_share is not computed; set sim.sample_interval <= %.4g s",
		          c->band_lo, c->band_hi, nyq, c->dt, 0.5 / c->band_hi);
	else if (c->band_hi > nyq)
		aiwi_warn(sim,
		          "site.grid_band %.4g-%.4g Hz: sim.sample_interval = %.4g s resolves up to "
		          "%.4g Hz (Nyquist) only: grid_band_share covers %.4g-%.4g Hz, and "
		          "interval averages hide faster swings (set sim.sample_interval <= %.4g s "
		          "to see the whole band)",
		          c->band_lo, c->band_hi, c->dt, nyq, c->band_lo, nyq, 0.5 / c->band_hi);
	if (c->band_hi < df)
		aiwi_warn(sim,
		          "site.grid_band %.4g-%.4g Hz is below the lowest frequency a Welch segment "
		          "of %zu samples resolves (%.4g Hz): grid_band_share is not computed; raise "
		          "site.grid_welch_segment",
		          c->band_lo, c->band_hi, c->segment, df);
	for (int i = 0; i < AIWI_GRID_WINDOWS; i++)
		if (c->window[i] < c->dt)
			aiwi_warn(sim,
			          "site.grid_ramp_window_%d = %.4g s is shorter than sim.sample_interval "
			          "= %.4g s: its ramps are over one sample interval",
			          i + 1, c->window[i], c->dt);
}

void aiwi_grid_publish(const aiwi_grid *g, aiw_sim *sim)
{
	static const char *const RMAX[] = {"grid_ramp_1_max_w_per_s", "grid_ramp_2_max_w_per_s",
	                                   "grid_ramp_3_max_w_per_s"};
	static const char *const RQ[] = {"grid_ramp_1_p99_w_per_s", "grid_ramp_2_p99_w_per_s",
	                                 "grid_ramp_3_p99_w_per_s"};
	for (int i = 0; i < AIWI_GRID_WINDOWS; i++) {
		aiwi_metric(sim, "site", RMAX[i], g->ramp_max[i]);
		aiwi_metric(sim, "site", RQ[i],
		            g->nramp[i] ? gsl_rstat_quantile_get(g->q99[i]) : NAN);
	}
	aiwi_metric(sim, "site", "grid_step_up_max_w", g->up);
	aiwi_metric(sim, "site", "grid_step_up_time_s", g->up_t);
	aiwi_metric(sim, "site", "grid_step_down_max_w", g->down);
	aiwi_metric(sim, "site", "grid_step_down_time_s", g->down_t);
	static const char *const CAUSE[AIWI_NCAUSES + 1] = {
	        "grid_step_max_w_job_start",  "grid_step_max_w_job_stop",
	        "grid_step_max_w_checkpoint", "grid_step_max_w_failure",
	        "grid_step_max_w_restart",    "grid_step_max_w_scale_up",
	        "grid_step_max_w_scale_down", "grid_step_max_w_preemption",
	        "grid_step_max_w_load"};
	for (int c = 0; c <= AIWI_NCAUSES; c++)
		aiwi_metric(sim, "site", CAUSE[c], g->by_cause[c]);
	aiwi_metric(sim, "site", "grid_drop_max_fraction", g->drop_max);
	if (g->conf.drop_fraction > 0)
		aiwi_metric(sim, "site", "grid_drop_events", (double)g->drops);
	/* the spectrum */
	double df = 1.0 / ((double)g->n * g->conf.dt), nyq = 0.5 / g->conf.dt;
	size_t nb = g->n / 2 + 1;
	double total = 0, band = 0, best = 0, fbest = NAN;
	bool seen = g->conf.band_lo <= nyq && g->conf.band_hi >= df;
	for (size_t k = 1; g->nseg && k < nb; k++) {
		double f = (double)k * df, p = g->psd[k];
		total += p;
		if (f >= g->conf.band_lo && f <= g->conf.band_hi)
			band += p;
		if (p > best) {
			best = p;
			fbest = f;
		}
	}
	aiwi_metric(sim, "site", "grid_spectrum_segments", (double)g->nseg);
	aiwi_metric(sim, "site", "grid_band_share",
	            g->nseg && seen && total > 0 ? band / total : NAN);
	aiwi_metric(sim, "site", "grid_band_rms_w", g->nseg && seen ? sqrt(band * df) : NAN);
	aiwi_metric(sim, "site", "grid_dominant_frequency_hz", fbest);
}
