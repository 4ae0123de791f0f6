/*
 * aiworkload.h - the one public header of libaiworkload.
 *
 * libaiworkload simulates AI training (synchronous all-reduce steps,
 * stragglers, failures, checkpoints) and inference (diurnal traffic,
 * batching, KV cache, routing, autoscaling) on one discrete-event clock and
 * reports power, utilization and cost curves and the site's electrical
 * diversity factor.
 *
 * ABI rules: opaque handles only, every symbol starts with aiw_, status codes
 * and functions are only ever appended.  Thread safety: there is no mutable
 * global state; one aiw_sim must be used by one thread at a time, distinct
 * aiw_sim objects may run concurrently in different threads.
 *
 * Units: SI base units everywhere (seconds, bytes, watts, joules, FLOP/s,
 * USD) unless a name says otherwise.
 */
#ifndef AIWORKLOAD_H
#define AIWORKLOAD_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(AIW_BUILDING_LIBRARY) && defined(__GNUC__)
#define AIW_EXPORT __attribute__((visibility("default")))
#else
#define AIW_EXPORT
#endif

/* Compile-time version of this header. */
#define AIW_VERSION_MAJOR 0
#define AIW_VERSION_MINOR 1
#define AIW_VERSION_PATCH 0
#define AIW_VERSION_NUMBER \
	((AIW_VERSION_MAJOR << 16) | (AIW_VERSION_MINOR << 8) | AIW_VERSION_PATCH)

/* ------------------------------------------------------------------------ */
/* Status codes: one table feeds the enum, aiw_strerror and aiw_status_name. */
/* New codes are only ever appended.                                         */
/* ------------------------------------------------------------------------ */
#define AIW_STATUS_MAP(XX)                                                  \
	XX(OK, 0, "success")                                                \
	XX(EINVAL, -1, "invalid argument")                                  \
	XX(ENOMEM, -2, "out of memory")                                     \
	XX(EUNKNOWN, -3, "unknown name")                                    \
	XX(ERANGE, -4, "value out of range")                                \
	XX(EPARSE, -5, "malformed value")                                   \
	XX(ESCENARIO, -6, "invalid scenario")                               \
	XX(EIO, -7, "input/output error")                                   \
	XX(ESTATE, -8, "operation not allowed in the current state")        \
	XX(ELIMIT, -9, "work or memory estimate exceeds a limit")           \
	XX(EBUFFER, -10, "buffer too small")                                \
	XX(ESTOPPED, -11, "run stopped by a callback")                      \
	XX(ENOTSUP, -12, "not supported in this build")

typedef enum aiw_status {
#define AIW_XX_ENUM(name, value, text) AIW_##name = value,
	AIW_STATUS_MAP(AIW_XX_ENUM)
#undef AIW_XX_ENUM
	AIW_STATUS_LAST_ = -13
} aiw_status;

/* Message for a status code ("invalid argument"); never NULL. */
AIW_EXPORT const char *aiw_strerror(int status);
/* Symbolic name of a status code ("AIW_EINVAL"); never NULL. */
AIW_EXPORT const char *aiw_status_name(int status);

/* Run-time library version: (major << 16) | (minor << 8) | patch. */
AIW_EXPORT unsigned aiw_version(void);
/* Run-time library version as "MAJOR.MINOR.PATCH". */
AIW_EXPORT const char *aiw_version_string(void);

/* ------------------------------------------------------------------------ */
/* Simulation object                                                         */
/* ------------------------------------------------------------------------ */
typedef struct aiw_sim aiw_sim;

/* Event callback for experiment drivers: t is the simulated time (s). */
typedef void (*aiw_event_fn)(aiw_sim *sim, double t, void *payload);
/* Progress callback: now and end in simulated seconds.  Return non-zero to
 * stop the run (the run function then returns AIW_ESTOPPED). */
typedef int (*aiw_progress_fn)(aiw_sim *sim, double now, double end, void *payload);
/* Sample callback: one call per sample tick at simulated time t, once every
 * curve has its point for that tick; values[i] (n of them) is the point of
 * the curve named by aiw_sim_series_name(sim, i).  values is valid only
 * during the call. */
typedef void (*aiw_sample_fn)(aiw_sim *sim, double t, const double *values, size_t n,
                              void *payload);

/* Create a simulation with the given seed.  *out is owned by the caller and
 * released with aiw_sim_free(). */
AIW_EXPORT aiw_status aiw_sim_create(aiw_sim **out, uint64_t seed);
/* Release a simulation and everything it owns.  NULL is accepted. */
AIW_EXPORT void aiw_sim_free(aiw_sim *sim);
/* Last error message recorded on this handle ("" when none); never NULL. */
AIW_EXPORT const char *aiw_sim_errmsg(const aiw_sim *sim);
/* Back to time 0 with the same parameters and seed: curves, metrics and
 * pending events are cleared; a new run reproduces the first bit for bit. */
AIW_EXPORT aiw_status aiw_sim_reset(aiw_sim *sim);
/* Warnings of the run so far: results to read with care (a contracted
 * site.capacity exceeded, ...).  A warning never fails a call; the library
 * never prints.  Each text is kept once, at most 64; the i-th (from 0) is
 * valid until the next aiw_sim_reset or aiw_sim_free. */
AIW_EXPORT aiw_status aiw_sim_warning_count(aiw_sim *sim, size_t *out);
AIW_EXPORT aiw_status aiw_sim_warning(aiw_sim *sim, size_t i, const char **out);
/* Files the parameters name, which the simulation reads: each set
 * parameter that is a file name (inference.NAME.profile, trace_file) and
 * each distribution empirical(FILE), in component order.  The i-th (from
 * 0): its component ("inference.chat"), its key ("profile") and the path
 * the library opens (a relative name resolved against the directory of the
 * scenario file that gave it).  The strings are valid until the parameter
 * is set again or sim is freed.  The scenario files themselves are not
 * listed (the caller named them). */
AIW_EXPORT aiw_status aiw_sim_input_count(aiw_sim *sim, size_t *out);
AIW_EXPORT aiw_status aiw_sim_input(aiw_sim *sim, size_t i, const char **component,
                                    const char **key, const char **path);

/* Parameters, by name: "sim.seed", "site.pue", "training.pretrain.gpus",
 * "inference.chat.max_batch".  Setting a parameter of a component that does
 * not exist yet creates it ("training.NAME.*" creates training NAME).
 * Values with units parse from strings ("90d", "250ms", "20/s", "80GB",
 * "3.35TB/s", "700W"); numbers alone are SI base units. */
AIW_EXPORT aiw_status aiw_sim_set(aiw_sim *sim, const char *name, const char *value);
AIW_EXPORT aiw_status aiw_sim_set_double(aiw_sim *sim, const char *name, double value);
/* Current value as text (canonical form) into buf of size len. */
AIW_EXPORT aiw_status aiw_sim_get(aiw_sim *sim, const char *name, char *buf, size_t len);
/* Current value of a numeric parameter in SI base units. */
AIW_EXPORT aiw_status aiw_sim_get_double(aiw_sim *sim, const char *name, double *out);
/* Add a component explicitly: kind "training" or "inference", a name made
 * of letters, digits, '_' and '-'. */
AIW_EXPORT aiw_status aiw_sim_add_component(aiw_sim *sim, const char *kind, const char *name);
/* The components of sim, in creation order (sim and site first): kind
 * ("training") and name ("pretrain"; "" for sim and site), valid until sim
 * is freed. */
AIW_EXPORT aiw_status aiw_sim_component_count(const aiw_sim *sim, size_t *out);
AIW_EXPORT aiw_status aiw_sim_component(aiw_sim *sim, size_t i, const char **kind,
                                        const char **name);

/* INI scenario files: [sim], [site], [training NAME], [inference NAME],
 * [gpu NAME]; keys are parameter names without the component prefix.
 * origin names the text in messages ("scenario.ini"); it may be NULL. */
AIW_EXPORT aiw_status aiw_sim_load_file(aiw_sim *sim, const char *path);
AIW_EXPORT aiw_status aiw_sim_load_string(aiw_sim *sim, const char *text, const char *origin);
/* The built-in scenario (static text, INI): a training cluster and an
 * autoscaled diurnal inference fleet on one site, one day.  `aiworkload
 * run` runs it when given no scenario, `aiworkload scenario` prints it,
 * aiw_site_diversity_sweep sweeps it when given NULL. */
AIW_EXPORT const char *aiw_default_scenario(void);

/* Run to sim.duration, or up to simulated time t (s) so that a driver can
 * read metrics and change parameters between steps.  Summary metrics are
 * available after any run call and reflect the state at the current time
 * (after a run that failed: at the failing event, sim.time_s). */
AIW_EXPORT aiw_status aiw_sim_run(aiw_sim *sim);
AIW_EXPORT aiw_status aiw_sim_run_until(aiw_sim *sim, double t);
/* Current simulated time (s). */
AIW_EXPORT aiw_status aiw_sim_now(const aiw_sim *sim, double *out);
/* Progress callback, called about every `every` simulated seconds (0 means
 * once per sample tick).  fn NULL removes it. */
AIW_EXPORT aiw_status aiw_sim_set_progress(aiw_sim *sim, aiw_progress_fn fn, void *payload,
                                           double every);
/* Sample callback, called at every sample tick of run calls with every
 * curve's new point: the way to stream whole curves out of a run whose
 * sim.series_keep bounds the points kept in memory.  It runs inside the
 * run call (it may read results and set runtime parameters; run calls and
 * aiw_sim_reset from it fail with AIW_ESTATE).  fn NULL removes it; the
 * setting survives aiw_sim_reset. */
AIW_EXPORT aiw_status aiw_sim_set_sample_callback(aiw_sim *sim, aiw_sample_fn fn, void *payload);

/* Schedule fn(sim, t, payload) at simulated time t >= now.  Events at equal
 * times run in the order they were scheduled.  *out_handle (may be NULL)
 * can cancel the event before it runs. */
AIW_EXPORT aiw_status aiw_sim_schedule(aiw_sim *sim, double t, aiw_event_fn fn, void *payload,
                                       uint64_t *out_handle);
AIW_EXPORT aiw_status aiw_sim_cancel(aiw_sim *sim, uint64_t handle);
/* Number of events pending in the engine. */
AIW_EXPORT aiw_status aiw_sim_pending(const aiw_sim *sim, size_t *out);

/* ------------------------------------------------------------------------ */
/* Results                                                                   */
/* ------------------------------------------------------------------------ */
/* Summary metric by name ("site.power_peak_w"). */
AIW_EXPORT aiw_status aiw_sim_metric(aiw_sim *sim, const char *name, double *out);
AIW_EXPORT aiw_status aiw_sim_metric_count(aiw_sim *sim, size_t *out);
/* Name of the i-th metric; the string lives until the next run call. */
AIW_EXPORT aiw_status aiw_sim_metric_name(aiw_sim *sim, size_t i, const char **out);

/* Curves: fixed sample_interval, each point the average over the interval
 * that ends at its time.  With sim.series_keep = N (default all) only the
 * most recent N points of each curve stay in memory: the length, copy-out
 * and writers cover those, oldest first (older points went to the sample
 * callback, if any, and were dropped). */
AIW_EXPORT aiw_status aiw_sim_series_count(aiw_sim *sim, size_t *out);
AIW_EXPORT aiw_status aiw_sim_series_name(aiw_sim *sim, size_t i, const char **out);
AIW_EXPORT aiw_status aiw_sim_series_unit(aiw_sim *sim, const char *name, const char **out);
AIW_EXPORT aiw_status aiw_sim_series_length(aiw_sim *sim, const char *name, size_t *out);
/* Copy up to cap points of a curve into caller-owned buffers (t or v may be
 * NULL); *n receives the number copied.  AIW_EBUFFER if cap is too small
 * (the first cap points are still copied). */
AIW_EXPORT aiw_status aiw_sim_series_copy(aiw_sim *sim, const char *name, double *t, double *v,
                                          size_t cap, size_t *n);

/* Writers: CSV of all curves (time column first, units in the header) and
 * JSON of the summary metrics and run metadata. */
AIW_EXPORT aiw_status aiw_sim_write_csv(aiw_sim *sim, const char *path);
AIW_EXPORT aiw_status aiw_sim_write_json(aiw_sim *sim, const char *path);

/* ------------------------------------------------------------------------ */
/* Parameter registry introspection (no simulation needed)                  */
/* ------------------------------------------------------------------------ */
/* Number of declared parameters (component parameters appear once, with
 * NAME as the instance placeholder: "training.NAME.gpus"). */
AIW_EXPORT aiw_status aiw_param_count(size_t *out);
/* Fields of the i-th parameter; any out pointer may be NULL.  type is one of
 * int, real, duration, rate, size, bandwidth, power, energy, money, flops,
 * enum, string, dist, bool.  def is the default as text ("" when unset);
 * min/max bound numeric types (in SI units); choices lists enum values
 * ("ring|tree|hierarchical", "" otherwise). */
AIW_EXPORT aiw_status aiw_param_info(size_t i, const char **name, const char **type,
                                     const char **def, const char **unit, double *min,
                                     double *max, const char **choices, const char **doc);
/* What aiw_param_info's fields do not say, as bits of *out: the range
 * excludes its minimum (a value must be > min: sim.duration > 0), the
 * parameter may change during a run, it accepts "auto", "none" (unset),
 * or "all" (a count where 0 means no bound). */
#define AIW_PARAM_MIN_EXCLUSIVE 0x1u
#define AIW_PARAM_RUNTIME 0x2u
#define AIW_PARAM_AUTO 0x4u
#define AIW_PARAM_NONE 0x8u
#define AIW_PARAM_ALL 0x10u
AIW_EXPORT aiw_status aiw_param_flags(size_t i, unsigned *out);
/* The modes in which parameter i has an effect, as text (static): ""
 * when it always has one; else alternatives separated by "; ", each
 * conditions separated by spaces that must all hold, "MODE=V1|V2" (the
 * enum parameter MODE of the same component holds V1 or V2), e.g.
 * "timing=roofline".  A run warns (aiw_sim_warning) of a parameter given
 * whose modes do not hold. */
AIW_EXPORT aiw_status aiw_param_mode(size_t i, const char **out);
/* Index of a parameter given a full name ("inference.chat.max_batch"). */
AIW_EXPORT aiw_status aiw_param_find(const char *name, size_t *out);

/* ------------------------------------------------------------------------ */
/* Metric catalogue (no simulation needed)                                   */
/* ------------------------------------------------------------------------ */
/* Flags of a summary metric (aiw_metric_info). */
#define AIW_METRIC_HEADLINE 1u /* a key figure: in the short summary */
#define AIW_METRIC_FRACTION 2u /* a share in [0, 1] (shown as a percentage) */
#define AIW_METRIC_COUNT 4u    /* a count or a total of hours (shown whole) */
#define AIW_METRIC_RATIO 8u    /* a dimensionless ratio or mean (three decimals) */
/* Number of summary metrics the kinds can publish (each once, with NAME
 * for the component name: "training.NAME.goodput"). */
AIW_EXPORT aiw_status aiw_metric_count(size_t *out);
/* Fields of the i-th metric; any out pointer may be NULL.  unit is one of
 * W, W/s, kWh, USD, s, 1/s, B, B/s, h or 1; label names it in the summary table;
 * prom is the Prometheus family it is exported under (an operator name
 * such as inference_requests_total, or the generic aiworkload_<kind>_<key
 * in base units>, under which every metric is exported too), prom_type
 * "gauge" or "counter"; flags are AIW_METRIC_* bits. */
AIW_EXPORT aiw_status aiw_metric_info(size_t i, const char **name, const char **label,
                                      const char **unit, const char **doc, const char **prom,
                                      const char **prom_type, unsigned *flags);

/* Number of curves the kinds can record (each once, with NAME for the
 * component name: "inference.NAME.queue_length"; "site.power_w"), whether
 * or not a given configuration records them (an autoscaler's curves need
 * an autoscaler). */
AIW_EXPORT aiw_status aiw_curve_count(size_t *out);
/* Fields of the i-th curve; any out pointer may be NULL.  unit as
 * aiw_sim_series_unit gives it ("W", "1", "1/s", "USD/h", ...); doc is
 * one line, or "" where the kind gives none. */
AIW_EXPORT aiw_status aiw_curve_info(size_t i, const char **name, const char **unit,
                                     const char **doc);

/* Parse a number with units into SI base units: kind is one of the numeric
 * types above (int, real, duration, rate, size, bandwidth, power, energy,
 * money, flops); no range is applied.  errbuf (may be NULL) receives a
 * message on failure. */
AIW_EXPORT aiw_status aiw_parse_value(const char *kind, const char *text, double *out,
                                      char *errbuf, size_t errlen);

/* ---- outputs (export.c) ---- */
/* More writers of a run's results (see aiw_sim_write_csv above).  Each
 * writes the state after the last run call; path is created or truncated.
 * Errors: AIW_EINVAL (NULL path), AIW_EIO (cannot write), AIW_ESTATE (no
 * curves yet, for the writers that need them), AIW_ENOMEM. */
/* Prometheus text exposition (format 0.0.4) of the final state: every
 * summary metric as aiworkload_<kind>_<key>{kind,component} in base units
 * (seconds, watts, joules), the last sample of the standard curves under
 * the names operators use (site_power_watts, power_watts, gpu_utilization,
 * inference_replicas), and the inference latency histograms
 * (inference_request_duration_seconds with le buckets) when the fleet
 * keeps them.  Checked by `promtool check metrics`. */
AIW_EXPORT aiw_status aiw_sim_write_prometheus(aiw_sim *sim, const char *path);
/* Every curve as `promtool test rules` input series (same names as the
 * exposition), one sample per sim.sample_interval (a whole number of
 * milliseconds, else AIW_ERANGE), so that alerting rules can be unit-tested
 * against a simulated day.  rule_files: comma-separated rule file paths to
 * list in the file (NULL or "" for none). */
AIW_EXPORT aiw_status aiw_sim_write_promtest(aiw_sim *sim, const char *path,
                                             const char *rule_files);
/* SVG chart of the run: site power (IT and facility), IT power of each
 * component stacked (training at the bottom), GPU utilisation and, when an
 * inference fleet records them, replicas; axes with units, legends.  title
 * NULL or "" gives a title naming the components. */
AIW_EXPORT aiw_status aiw_sim_write_svg(aiw_sim *sim, const char *path, const char *title);
/* The run's report as one self-contained HTML file (no network access when
 * opened; the charting library, uPlot, is embedded in libaiworkload): the
 * run's identity (version, seed, simulated time, the parameters given), the
 * power hierarchy and diversity factors, latency percentiles and SLO
 * attainment per inference fleet, the training time breakdown, the costs,
 * with site.grid = on the grid statistics with the spectrum and ramp
 * charts, the summary table, and every curve as a chart with hover values
 * and zoom.  A default day at one-minute resolution is about 0.5 MB. */
AIW_EXPORT aiw_status aiw_sim_write_html(aiw_sim *sim, const char *path);
/* The Welch power spectrum of the site's power curve (site.grid = on): the
 * one-sided density of site.power_w in W^2/Hz averaged over the segments
 * completed so far, bins k = 0 .. site.grid_welch_segment / 2 at frequency
 * k / (segment x sim.sample_interval) Hz.  *nbins (required) gets the
 * number of bins, 0 before the first segment completes; the first
 * min(cap, *nbins) frequencies and densities go to freq_hz and psd (either
 * may be NULL).  AIW_ESTATE when the run keeps no grid statistics. */
AIW_EXPORT aiw_status aiw_sim_grid_spectrum(aiw_sim *sim, double *freq_hz, double *psd, size_t cap,
                                            size_t *nbins);
/* Every curve and the inference latency histograms as timestamped
 * OpenMetrics series (text format 1.0.0, ending with "# EOF"), the names
 * as in the exposition (inference_request_duration_seconds_bucket,
 * power_watts, gpu_utilization, training_step_time_seconds, ...; rates
 * integrated into counters), one sample per curve point, stamped start +
 * its simulated time (start: the Unix time of simulated time 0, seconds,
 * in [0, 1e11), else AIW_ERANGE), for `promtool tsdb create-blocks-from
 * openmetrics`.  The histograms are written when the run kept them at
 * every sample: sim.histogram_series = true (and sim.series_keep = all). */
AIW_EXPORT aiw_status aiw_sim_write_openmetrics(aiw_sim *sim, const char *path, double start);

/* ---- hardware catalog (lib/hw/gpu.c) ---- */
/* Built-in accelerators and links (no simulation needed; [gpu NAME]
 * scenario sections add GPUs to a simulation only).  Names and fields are
 * case-insensitive.  Strings are static.  Indexes past the end give
 * AIW_ERANGE, NULL out pointers AIW_EINVAL, unknown names AIW_EUNKNOWN.
 * Bandwidths are per GPU and per direction (NVLink datasheet figures are
 * bidirectional: H100's 900 GB/s is nvlink_bw = 450e9). */
AIW_EXPORT aiw_status aiw_catalog_gpu_count(size_t *out);
AIW_EXPORT aiw_status aiw_catalog_gpu_name(size_t i, const char **out);
/* Numeric field of a GPU: "bf16_flops", "fp8_flops", "mem_bytes", "mem_bw",
 * "tdp_w", "idle_w", "compute_w", "comm_w", "prefill_w", "decode_w",
 * "loading_w", "price_usd", "ondemand_usd_per_h", "nvlink_bw",
 * "nvlink_latency_s", "nic_bw", "nic_latency_s" (SI units). */
AIW_EXPORT aiw_status aiw_catalog_gpu_value(const char *gpu, const char *field, double *out);
/* Where a built-in GPU's field comes from: a static line that starts with
 * what it is ("datasheet:", "measured:", "calibrated:", "list price:",
 * "street price:", "estimate:", "unknown:") and names the source and its
 * date; "estimate" marks a value without a published measurement of that
 * GPU.  AIW_EUNKNOWN for a name or field that is not in the catalog. */
AIW_EXPORT aiw_status aiw_catalog_gpu_source(const char *gpu, const char *field, const char **out);
/* Name, unit and one-line doc of the i-th GPU field; any out may be NULL. */
AIW_EXPORT aiw_status aiw_catalog_gpu_field(size_t i, const char **name, const char **unit,
                                            const char **doc);
AIW_EXPORT aiw_status aiw_catalog_link_count(size_t *out);
AIW_EXPORT aiw_status aiw_catalog_link_name(size_t i, const char **out);
/* Numeric field of a link: "alpha_s" (s) or "bw" (B/s). */
AIW_EXPORT aiw_status aiw_catalog_link_value(const char *link, const char *field, double *out);
AIW_EXPORT aiw_status aiw_catalog_link_field(size_t i, const char **name, const char **unit,
                                             const char **doc);

/* ---- sizing calculators (sizing.c) ---- */
/* Pure functions, thread safe.  Numbers must be finite and in range, else
 * AIW_ERANGE; NULL pointers give AIW_EINVAL, unknown names AIW_EUNKNOWN.
 * Sizes are bytes (1 GB = 1e9 B). */
/* Training state bytes per parameter of a preset: "mixed_adam" (12),
 * "mixed_adam_fp32master" (16), "fp32_adam" (16), "bf16_sgd" (4),
 * "fp32_sgd_momentum" (12). */
AIW_EXPORT aiw_status aiw_size_training_preset(const char *preset, double *bytes_per_param);
/* Name of the i-th preset (AIW_ERANGE past the end). */
AIW_EXPORT aiw_status aiw_size_training_preset_name(size_t i, const char **out);
/* Weights + gradients + optimizer states: params x bytes_per_param. */
AIW_EXPORT aiw_status aiw_size_training_memory(double params, double bytes_per_param,
                                               double *out);
/* Activation memory of one micro-batch (Korthikanti et al. 2022, 16-bit
 * activations, sequence parallelism when tensor_parallel > 1); recompute
 * is "none", "selective" or "full". */
AIW_EXPORT aiw_status aiw_size_activations(double layers, double seq_len, double micro_batch,
                                           double hidden, double heads, double tensor_parallel,
                                           const char *recompute, double *out);
/* Per-GPU activation memory of the first pipeline stage (Korthikanti et
 * al. 2022): the bytes per layer of aiw_size_activations (with sequence
 * parallelism only when sequence_parallel is nonzero, then the
 * 10 sbh not split by tensor_parallel is) times the layers' worth in flight:
 * micro_batches <= pipeline_parallel under 1F1B keep micro_batches x
 * layers / pipeline_parallel, more keep layers; virtual_stages > 1
 * (interleaved) keep layers x (1 + (pp - 1) / (pp x virtual_stages)). */
AIW_EXPORT aiw_status aiw_size_activations_per_gpu(double layers, double seq_len,
                                                   double micro_batch, double hidden,
                                                   double heads, double tensor_parallel,
                                                   int sequence_parallel,
                                                   double pipeline_parallel,
                                                   double virtual_stages, double micro_batches,
                                                   const char *recompute, double *out);
/* Per-GPU model states under ZeRO (Rajbhandari et al. 2020) over
 * data_parallel ranks: stage 0 (w + g + o) P, 1 (w + g) P + o P / N,
 * 2 w P + (g + o) P / N, 3 (w + g + o) P / N, for weight, gradient and
 * optimizer bytes per parameter w, g, o (mixed-precision Adam: 2, 2, 12). */
AIW_EXPORT aiw_status aiw_size_zero_state(double params, double data_parallel, int zero_stage,
                                          double weight_bytes, double grad_bytes,
                                          double optimizer_bytes, double *out);
/* Weights at weight_bits bits per parameter: params x weight_bits / 8. */
AIW_EXPORT aiw_status aiw_size_inference_weights(double params, double weight_bits,
                                                 double *out);
/* KV cache: 2 x layers x kv_heads x head_dim x kv_bits/8 x tokens x sequences. */
AIW_EXPORT aiw_status aiw_size_kv_cache(double layers, double kv_heads, double head_dim,
                                        double kv_bits, double tokens, double sequences,
                                        double *out);
/* Sequences whose KV cache fits next to the weights in mem_bytes, keeping a
 * fraction headroom in [0, 1) free: floor((mem (1 - headroom) - weights) /
 * kv_per_sequence), 0 when the weights do not fit. */
AIW_EXPORT aiw_status aiw_size_max_sequences(double mem_bytes, double weight_bytes,
                                             double kv_bytes_per_sequence, double headroom,
                                             double *out);
/* Fewest GPUs of a built-in type whose memory, less a fraction headroom in
 * [0, 1), holds bytes: ceil(bytes / (mem_bytes (1 - headroom))). */
AIW_EXPORT aiw_status aiw_size_min_gpus(const char *gpu, double bytes, double headroom,
                                        double *out);
/* Training compute 6 N D (FLOP) for N parameters and D tokens. */
AIW_EXPORT aiw_status aiw_size_training_flops(double params, double tokens, double *out);
/* Wall time (s) of flops on gpus GPUs of a built-in type at model FLOP
 * utilization mfu in (0, 1]: flops / (gpus x bf16_flops x mfu). */
AIW_EXPORT aiw_status aiw_size_training_time(double flops, const char *gpu, double gpus,
                                             double mfu, double *out);

/* ---- collectives (collective.c) ---- */
/* All-reduce time (s) of bytes over ranks GPUs, gpus_per_node per node, in
 * the alpha-beta model (Thakur, Rabenseifner & Gropp 2005): algo "ring",
 * "tree" or "hierarchical"; alpha_* per-step latencies (s) and bw_* per
 * direction bandwidths (B/s) of the intra-node and inter-node links;
 * slow_link_factor in (0, 1] is the bandwidth of one degraded link relative
 * to nominal (1: none).  See aiw_allreduce_time(3) for the formulas. */
AIW_EXPORT aiw_status aiw_allreduce_time(const char *algo, double bytes, double ranks,
                                         double gpus_per_node, double alpha_intra,
                                         double bw_intra, double alpha_inter, double bw_inter,
                                         double slow_link_factor, double *out);
/* nccl-tests all-reduce bus bandwidth (B/s): bytes / seconds x 2(ranks-1)/ranks. */
AIW_EXPORT aiw_status aiw_busbw(double bytes, double ranks, double seconds, double *out);

/* ---- site studies (lib/studies/diversity.c) ---- */
/* The training/inference ratio question as one call: for shares s = k /
 * (steps - 1), k = 0 .. steps-1, build a simulation from scenario (INI text
 * with exactly one [training NAME] and one [inference NAME] section; NULL:
 * the built-in site, aiw_default_scenario()) with round(s total_gpus)
 * training GPUs (whole nodes) and the rest as inference replicas (whole
 * replicas; the inference rate scales with the replica count), run it and
 * record the achieved training share, site.rack_diversity_factor,
 * site.provisioned_power_w, site.power_peak_w and site.sum_of_rack_peaks_w
 * in the caller's arrays of `steps` entries (any may be NULL).  Every share
 * uses the scenario's seed.  errbuf (may be NULL) receives a message on
 * failure.  AIW_ERANGE for bad numbers, AIW_ESCENARIO for a scenario
 * without the two sections, AIW_ENOTSUP when this build's models lack the
 * parameters, or the status of the failing run. */
AIW_EXPORT aiw_status aiw_site_diversity_sweep(const char *scenario, double total_gpus,
                                               size_t steps, double *share, double *diversity,
                                               double *provisioned_w, double *peak_w,
                                               double *sum_of_peaks_w, char *errbuf,
                                               size_t errlen);

/* The same question for chosen shares, with a progress callback and a
 * flag per share whose inference fleet is overloaded.  out receives n rows
 * of ncolumns doubles (row k for shares[k], each in [0, 1]), the columns
 * below (a wider row gets NaN beyond them; a narrower one the first
 * ncolumns).  Before the shares, the scenario itself is run once: its
 * fleet's peak replica count is what the fleet really serves (an
 * autoscaled fleet grows past its initial count), and every share's rate
 * is scaled by its replicas over that count; the training job keeps the
 * scenario's tokens per GPU per step.  A share is flagged overloaded
 * (column AIW_DIVERSITY_OVERLOADED = 1) when its SLO attainment is more
 * than 0.05 under the scenario's own, or more than 1% of its requests are
 * still in flight at the end.  progress (may be NULL) is called with done
 * = 0 ... n + 1 runs of total = n + 1 (the scenario's own run first); a
 * non-zero return stops the call with AIW_ESTOPPED, the rows not run left
 * NaN.  See aiw_site_diversity_shares(3). */
enum {
	AIW_DIVERSITY_SHARE = 0,          /* training share achieved (whole nodes) */
	AIW_DIVERSITY_TRAINING_GPUS = 1,  /* training GPUs */
	AIW_DIVERSITY_REPLICAS = 2,       /* inference replicas (initial, and the autoscaler's max) */
	AIW_DIVERSITY_RACK_FACTOR = 3,    /* site.rack_diversity_factor */
	AIW_DIVERSITY_PROVISIONED_W = 4,  /* site.provisioned_power_w */
	AIW_DIVERSITY_PEAK_W = 5,         /* site.power_peak_w */
	AIW_DIVERSITY_SUM_OF_PEAKS_W = 6, /* site.sum_of_rack_peaks_w */
	AIW_DIVERSITY_SLO_ATTAINMENT = 7, /* the fleet's slo_attainment (NaN: no fleet, or no
	                                     slo_ttft, slo_tpot or slo_e2e set) */
	AIW_DIVERSITY_TTFT_P99_S = 8,     /* the fleet's ttft_p99_s (NaN: no fleet) */
	AIW_DIVERSITY_OVERLOADED = 9,     /* 1 if overloaded (above), else 0 */
	AIW_DIVERSITY_NCOLUMNS = 10
};
typedef int (*aiw_diversity_progress_fn)(size_t done, size_t total, void *payload);
AIW_EXPORT aiw_status aiw_site_diversity_shares(const char *scenario, double total_gpus,
                                                const double *shares, size_t n, double *out,
                                                size_t ncolumns,
                                                aiw_diversity_progress_fn progress,
                                                void *payload, char *errbuf, size_t errlen);

/* ---- fleet capacity: MLPerf offline and server (lib/studies/capacity.c) ---- */
/* What the [inference NAME] fleet `component` of sim ("NAME" or
 * "inference.NAME"; NULL: the only one) serves, as MLPerf Inference
 * measures a data-centre system; sim is read, never run.
 * Offline: offline_requests requests all arriving at t = 0 (MLPerf's
 * offline scenario), their sizes drawn from prompt_tokens and
 * output_tokens; requests, output and input tokens per second until the
 * last one ends.  Server: the largest Poisson rate at which the P99 TTFT
 * and the P99 TPOT stay within their limits, over runs of at least
 * `duration` and min_requests arrivals, every run with the scenario's
 * sim.seed (common random numbers), found by doubling or halving from the
 * offline rate and bisection until the bracket is within resolution.  The
 * fleet keeps `replicas` (no autoscaler); other components are left out.
 * settings: nsettings "KEY=VALUE" strings: ttft_p99 (default 2s),
 * tpot_p99 (200ms; either may be none), duration (600s), min_requests
 * (270336), offline_requests (24576), resolution (0.01), max_runs (40 per
 * seed, the offline run included), seeds (1; N: the whole measurement is
 * repeated with sim.seed + k, k = 0 .. N - 1, and the server rate and the
 * offline request rate summarised over them).  out receives ncolumns
 * doubles, the columns below (a wider row gets NaN beyond them, a
 * narrower one the first ncolumns).  progress (may be NULL) is called
 * after each run: done runs, every seed, of at most seeds x max_runs, the
 * rate (the offline run: its request rate), verdict 1 pass, 0 fail, -1
 * offline; a non-zero return stops the call with AIW_ESTOPPED, the
 * columns known so far filled (aiw_sim_free(sim) there is deferred to the
 * call's end, which then returns AIW_ESTOPPED).  Messages on sim
 * (aiw_sim_errmsg).  See
 * aiw_inference_capacity(3). */
enum {
	AIW_CAPACITY_OFFLINE_REQUESTS_PER_S = 0,      /* offline requests/s */
	AIW_CAPACITY_OFFLINE_OUTPUT_TOKENS_PER_S = 1, /* offline output tokens/s */
	AIW_CAPACITY_OFFLINE_INPUT_TOKENS_PER_S = 2,  /* offline input (prompt) tokens/s */
	AIW_CAPACITY_OFFLINE_MAKESPAN_S = 3,          /* when the last offline request ended */
	AIW_CAPACITY_OFFLINE_REQUESTS = 4,            /* offline requests completed */
	AIW_CAPACITY_SERVER_RATE = 5,        /* largest rate that passed (1/s; 0: none,
	                                        NaN: none within max_runs) */
	AIW_CAPACITY_SERVER_RATE_FAILED = 6, /* smallest rate that failed (inf: every
	                                        rate tried passed) */
	AIW_CAPACITY_SERVER_RESOLUTION = 7,  /* failed / passed - 1 */
	AIW_CAPACITY_SERVER_TTFT_P99_S = 8,  /* at the passing rate */
	AIW_CAPACITY_SERVER_TPOT_P99_S = 9,  /* at the passing rate */
	AIW_CAPACITY_SERVER_TTFT_OVER = 10,  /* fraction over the TTFT limit there */
	AIW_CAPACITY_SERVER_TPOT_OVER = 11,  /* fraction over the TPOT limit there */
	AIW_CAPACITY_SERVER_REQUESTS = 12,   /* requests issued in that run */
	AIW_CAPACITY_SERVER_DURATION_S = 13, /* simulated span of that run */
	AIW_CAPACITY_SERVER_OUTPUT_TOKENS_PER_S = 14, /* output tokens/s there */
	AIW_CAPACITY_RUNS = 15,              /* simulations run, every seed */
	/* over the seeds (settings seeds=N; the columns above: the median
	 * seed's search, AIW_CAPACITY_RUNS the sum) */
	AIW_CAPACITY_SEEDS = 16,                /* seeds measured to the end */
	AIW_CAPACITY_SERVER_RATE_MEAN = 17,     /* mean of the seeds' SERVER_RATE */
	AIW_CAPACITY_SERVER_RATE_SD = 18,       /* their sample standard deviation */
	AIW_CAPACITY_SERVER_RATE_CI_LO = 19,    /* 95% Student interval of the mean */
	AIW_CAPACITY_SERVER_RATE_CI_HI = 20,
	AIW_CAPACITY_SERVER_RATE_MIN = 21,
	AIW_CAPACITY_SERVER_RATE_MAX = 22,
	AIW_CAPACITY_OFFLINE_REQUESTS_PER_S_MEAN = 23, /* the same of OFFLINE_REQUESTS_PER_S */
	AIW_CAPACITY_OFFLINE_REQUESTS_PER_S_SD = 24,
	AIW_CAPACITY_OFFLINE_REQUESTS_PER_S_CI_LO = 25,
	AIW_CAPACITY_OFFLINE_REQUESTS_PER_S_CI_HI = 26,
	AIW_CAPACITY_OFFLINE_REQUESTS_PER_S_MIN = 27,
	AIW_CAPACITY_OFFLINE_REQUESTS_PER_S_MAX = 28,
	AIW_CAPACITY_NCOLUMNS = 29
};
typedef int (*aiw_capacity_progress_fn)(size_t done, size_t max_runs, double rate, int verdict,
                                        void *payload);
AIW_EXPORT aiw_status aiw_inference_capacity(aiw_sim *sim, const char *component,
                                             const char **settings, size_t nsettings,
                                             double *out, size_t ncolumns,
                                             aiw_capacity_progress_fn progress, void *payload);

/* ---- training studies (scaling.c) ---- */
/* Scaling study of the [training NAME] component `component` ("NAME" or
 * "training.NAME"), from its current parameters: for each of the n GPU
 * counts, the expected step time (s) and the parallel efficiency.  weak
 * non-zero keeps the per-GPU batch (per-GPU compute time) fixed, zero keeps
 * the global batch fixed (strong scaling).  The step model is evaluated
 * analytically: E[max of the per-GPU compute times] by deterministic
 * quadrature of the quantile function, plus the exposed all-reduce;
 * failures and checkpoints are not included.  efficiency = per-GPU
 * compute x E[jitter] / step time (1: perfect scaling); it may be NULL.
 * Counts must be integers in 1 to 1e7 (AIW_ERANGE). */
AIW_EXPORT aiw_status aiw_training_scaling(aiw_sim *sim, const char *component,
                                           const double *gpu_counts, size_t n, int weak,
                                           double *step_time_s, double *efficiency);

/* ---- sweeps (sweep.c) ---- */
/* An experiment sweep: a base scenario, a grid of parameter values (the
 * cartesian product of axes, and/or rows of a CSV file of points), R
 * replications of every point with independent seeds, and per point and
 * metric the mean, sample standard deviation and 95% confidence
 * half-width (Student t).  Tasks (point, replication) run on J threads,
 * one aiw_sim per task; results are stored by index and reduced in
 * replication order, so they are bit-identical whatever J (or the number
 * of MPI ranks of tools/aiworkload-mpi).
 *
 * Points: the rows of the point file (if any) form the outermost level,
 * then the axes in the order they were added, the last varying fastest.
 * Seeds: replication r of point p runs with sim.seed =
 * M(M(base + G (p + 1)) + G (r + 1)), M the SplitMix64 finalizer, G =
 * 0x9e3779b97f4a7c15, base the aiw_sweep_set_seed value or else the
 * scenario's sim.seed; so a single task reruns alone identically
 * (aiw_sweep_task_seed, aiw_sweep_run_task).
 *
 * Thread safety: one thread uses a sweep at a time, except aiw_sweep_stop
 * (any thread, and async-signal-safe) and, once the sweep is prepared,
 * aiw_sweep_run_task and aiw_sweep_store (concurrently from any threads). */
typedef struct aiw_sweep aiw_sweep;
/* Called from the thread that called aiw_sweep_run, once per completed
 * point, in increasing point order (a point waits for the points before
 * it); its results are readable from the callback. */
typedef void (*aiw_sweep_fn)(const aiw_sweep *sw, size_t point, void *payload);
/* Called from the thread that called aiw_sweep_run after each finished
 * task: done of total tasks.  Return non-zero to stop the sweep. */
typedef int (*aiw_sweep_progress_fn)(const aiw_sweep *sw, size_t done, size_t total,
                                     void *payload);

/* New sweep of the scenario file scenario_path or the INI text
 * scenario_text (at most one non-NULL; both NULL: defaults only).  The
 * file is read, and everything checked, by aiw_sweep_prepare. */
AIW_EXPORT aiw_status aiw_sweep_create(aiw_sweep **out, const char *scenario_path,
                                       const char *scenario_text);
/* Release a sweep (NULL is accepted). */
AIW_EXPORT void aiw_sweep_free(aiw_sweep *sw);
/* Last error message on this handle ("" when none); never NULL. */
AIW_EXPORT const char *aiw_sweep_errmsg(const aiw_sweep *sw);
/* Add an axis: parameter name and its values, comma-separated (commas
 * inside parentheses or double quotes, or escaped as "\,", do not split). */
AIW_EXPORT aiw_status aiw_sweep_axis(aiw_sweep *sw, const char *param, const char *values_csv);
/* Points from a CSV file (RFC 4180 quoting): a header of parameter names,
 * one row of values per point; blank lines and lines starting with '#'
 * are skipped.  At most one file per sweep. */
AIW_EXPORT aiw_status aiw_sweep_point_file(aiw_sweep *sw, const char *path);
/* Replications per point, 1 to 1e6 (default 1). */
AIW_EXPORT aiw_status aiw_sweep_set_replications(aiw_sweep *sw, size_t r);
/* Metrics to keep: comma-separated names or shell patterns
 * ("inference.*.ttft_p99_s"); NULL or "" (default): every metric point 0
 * publishes. */
AIW_EXPORT aiw_status aiw_sweep_set_metrics(aiw_sweep *sw, const char *metrics_csv);
/* Base seed of the replication seeds (default: the scenario's sim.seed). */
AIW_EXPORT aiw_status aiw_sweep_set_seed(aiw_sweep *sw, uint64_t seed);
/* Worker threads of aiw_sweep_run, 1 to 1024, or 0 for the number of
 * online processors (default 1). */
AIW_EXPORT aiw_status aiw_sweep_set_jobs(aiw_sweep *sw, unsigned jobs);
/* keep_going nonzero: a point whose run is refused (a value out of range,
 * a scenario its start refuses) does not stop the sweep; its first
 * refused replication's status and message are kept for the point
 * (aiw_sweep_point_status), the other points run, and aiw_sweep_write_csv
 * adds the columns status and message.  Default 0: the first refusal stops
 * the sweep and aiw_sweep_run returns it.  Before aiw_sweep_prepare. */
AIW_EXPORT aiw_status aiw_sweep_set_keep_going(aiw_sweep *sw, int keep_going);
/* Per-point callback of aiw_sweep_run (fn NULL removes it). */
AIW_EXPORT aiw_status aiw_sweep_set_callback(aiw_sweep *sw, aiw_sweep_fn fn, void *payload);
/* Per-task progress callback of aiw_sweep_run (fn NULL removes it). */
AIW_EXPORT aiw_status aiw_sweep_set_progress(aiw_sweep *sw, aiw_sweep_progress_fn fn,
                                             void *payload);
/* Freeze the description: read the scenario, expand the grid, check every
 * parameter value, and resolve the metrics by starting point 0 (a
 * zero-length run).  Idempotent; aiw_sweep_run calls it. */
AIW_EXPORT aiw_status aiw_sweep_prepare(aiw_sweep *sw);
/* Run every task not yet stored, on the configured threads.  AIW_ESTOPPED
 * after aiw_sweep_stop or a progress callback's request: completed points
 * keep their results and a later call runs the rest. */
AIW_EXPORT aiw_status aiw_sweep_run(aiw_sweep *sw);
/* Ask a running aiw_sweep_run or aiw_sweep_run_task to stop soon (between
 * tasks, and inside running simulations within 1/1000 of their span).
 * Async-signal-safe: callable from a SIGINT handler. */
AIW_EXPORT void aiw_sweep_stop(aiw_sweep *sw);

/* Grid and metric names (after aiw_sweep_prepare).  Strings live as long
 * as the sweep. */
AIW_EXPORT aiw_status aiw_sweep_npoints(const aiw_sweep *sw, size_t *out);
AIW_EXPORT aiw_status aiw_sweep_nparams(const aiw_sweep *sw, size_t *out);
AIW_EXPORT aiw_status aiw_sweep_param_name(const aiw_sweep *sw, size_t i, const char **out);
/* Value (text) of parameter i at a point. */
AIW_EXPORT aiw_status aiw_sweep_point_value(const aiw_sweep *sw, size_t point, size_t i,
                                            const char **out);
AIW_EXPORT aiw_status aiw_sweep_nmetrics(const aiw_sweep *sw, size_t *out);
AIW_EXPORT aiw_status aiw_sweep_metric_name(const aiw_sweep *sw, size_t i, const char **out);
/* sim.seed of replication rep of point (the formula above). */
AIW_EXPORT aiw_status aiw_sweep_task_seed(const aiw_sweep *sw, size_t point, size_t rep,
                                          uint64_t *out);

/* Distributed drivers: run one task on the calling thread (its own
 * aiw_sim) and get its metric vector (aiw_sweep_nmetrics values, NaN for a
 * metric the run did not publish); store a task's vector computed
 * elsewhere.  A point is complete when all its replications are stored. */
AIW_EXPORT aiw_status aiw_sweep_run_task(aiw_sweep *sw, size_t point, size_t rep,
                                         double *metrics_out);
AIW_EXPORT aiw_status aiw_sweep_store(aiw_sweep *sw, size_t point, size_t rep,
                                      const double *metrics);

/* Results of a complete point (AIW_ESTATE otherwise) for metric index
 * metric, over its n finite replication values: mean, sample standard
 * deviation, and 95% confidence half-width t(0.975, n-1) sd / sqrt(n)
 * (NaN when n < 2).  Any out pointer may be NULL. */
AIW_EXPORT aiw_status aiw_sweep_result(const aiw_sweep *sw, size_t point, size_t metric,
                                       double *mean, double *sd, double *ci95_half, size_t *n);
/* Status of a point after aiw_sweep_run: AIW_OK when it is complete with
 * results; under aiw_sweep_set_keep_going, the status of its refused
 * replication of lowest index, and its message in *message; AIW_ESTOPPED
 * with "not run" when neither (a stopped sweep).  *message (may be NULL)
 * lives as long as the sweep. */
AIW_EXPORT aiw_status aiw_sweep_point_status(const aiw_sweep *sw, size_t point,
                                             aiw_status *status, const char **message);
/* One stored replication value (AIW_ESTATE if that task is not stored). */
AIW_EXPORT aiw_status aiw_sweep_replication(const aiw_sweep *sw, size_t point, size_t rep,
                                            size_t metric, double *out);
/* CSV, one row per complete point: point, the parameters, then for each
 * metric M the columns M.mean, M.sd, M.ci95, M.n (%.17g; empty when not
 * finite); under aiw_sweep_set_keep_going also status ("ok" or
 * "refused") and message, a refused point's metric columns empty and its
 * n 0. */
AIW_EXPORT aiw_status aiw_sweep_write_csv(aiw_sweep *sw, const char *path);
/* CSV, one row per stored task: point, replication, seed, the parameters,
 * the metrics. */
AIW_EXPORT aiw_status aiw_sweep_write_replications_csv(aiw_sweep *sw, const char *path);
/* The sweep's report as one self-contained HTML page (no network access:
 * its Content-Security-Policy forbids it; the charting library is
 * embedded): the sweep's identity, a table of every point with each
 * metric's mean and 95% confidence half-width (as aiw_sweep_result), the
 * refused points with their messages, and one chart per metric against
 * the first parameter, a line per value of the others with its confidence
 * band.  The same sweep gives the same bytes.  After aiw_sweep_run (or
 * aiw_sweep_prepare and the tasks stored).  Since AIW_1.1. */
AIW_EXPORT aiw_status aiw_sweep_write_html(const aiw_sweep *sw, const char *path);

/* ---- autoscaler replay ---------------------------------------------------- */
/* Run the decisions of autoscaler policy "hpa" or "kpa" on recorded
 * metrics, without simulating a fleet: the same code the simulation's
 * controller calls.  settings: nsettings "KEY=VALUE" strings, KEY an
 * autoscaling parameter of the inference kind (hpa_tolerance,
 * hpa_scale_up_policies, kpa_stable_window, replicas, ...), validated as in
 * a scenario.  metrics_path: CSV with a header; columns time (s, strictly
 * increasing), ready (pods), metric (per ready pod) or total (their sum),
 * optional unready (or starts), missing, current, stable and panic (kpa
 * window averages), expect (ignored); '#' lines ignored.  out_path (may
 * be NULL: no output; "-": the process's standard output stream, flushed,
 * not closed) receives "time,replicas,reason" at each sync (hpa: every
 * hpa_sync_period; kpa: every kpa_tick, or every row when stable and panic
 * are given), once the whole file has been checked (a refused file writes
 * nothing).  *syncs (may be NULL) the number of syncs.  Errors
 * (message in err, errlen bytes): AIW_EINVAL (policy, NULL), a setting's
 * status with its message, AIW_EPARSE "FILE:LINE: FIELD: ..." for bad
 * rows (unsorted times, negative or non-numeric values, unknown columns),
 * AIW_EIO, AIW_ENOMEM. */
AIW_EXPORT aiw_status aiw_autoscale_replay(const char *policy, const char **settings,
                                           size_t nsettings, const char *metrics_path,
                                           const char *out_path, uint64_t *syncs, char *err,
                                           size_t errlen);
/* ---- measured serving profiles (profile.c) ---- */
/* A table of measured prefill and decode times (Splitwise's perf_model.csv
 * as it is, or phase,gpu,tp,batch,prompt,context,time_s[,pp]) and the
 * least-squares fit of the serving iteration model's coefficients (terms
 * "overhead" in s per iteration, "gemm", "attn", "mem", "comm" as
 * multipliers of their datasheet times, "seq" in s per sequence;
 * aiw_profile_term_name) per GPU and phase ("prefill", "decode").  coef and
 * stderr_out arrays hold n >= 6 values in term order.
 * Messages: aiw_profile_errmsg.  One handle per thread. */
typedef struct aiw_profile aiw_profile;
AIW_EXPORT aiw_status aiw_profile_create(aiw_profile **out);
AIW_EXPORT void aiw_profile_free(aiw_profile *profile);
AIW_EXPORT const char *aiw_profile_errmsg(const aiw_profile *profile);
/* Model shape and fit options: model_params, layers, hidden,
 * kv_bytes_per_token, weight_bits, act_bits, overhead (datasheet, s),
 * tp_link_pcie (1: the TP all-reduces on the GPUs' host PCIe link),
 * hold.PHASE.TERM (1: held at the datasheet value, 0: fitted). */
AIW_EXPORT aiw_status aiw_profile_set(aiw_profile *profile, const char *name, double value);
AIW_EXPORT aiw_status aiw_profile_read(aiw_profile *profile, const char *path);
AIW_EXPORT aiw_status aiw_profile_group_count(const aiw_profile *profile, size_t *out);
AIW_EXPORT aiw_status aiw_profile_group_name(const aiw_profile *profile, size_t i,
                                             const char **name, const char **gpu);
AIW_EXPORT aiw_status aiw_profile_term_name(size_t i, const char **out);
AIW_EXPORT aiw_status aiw_profile_datasheet(aiw_profile *profile, const char *gpu,
                                            const char *phase, double *coef, size_t n);
AIW_EXPORT aiw_status aiw_profile_fit(aiw_profile *profile, const char *gpu, const char *phase,
                                      double *coef, double *stderr_out, size_t n);
AIW_EXPORT aiw_status aiw_profile_row_count(const aiw_profile *profile, size_t *out);
AIW_EXPORT aiw_status aiw_profile_row(const aiw_profile *profile, size_t i, const char **gpu,
                                      const char **phase, double *tp, double *batch,
                                      double *prompt, double *context, double *measured_s);
AIW_EXPORT aiw_status aiw_profile_predict(aiw_profile *profile, size_t row, const double *coef,
                                          size_t n, double *out);


/* ---- serving plan (lib/studies/plan.c) ---- */
/* The cheapest configuration of one [inference NAME] fleet of a scenario
 * that meets P99 TTFT and TPOT limits under caps: a search over gpu x
 * gpus_per_replica x weight_bits x max_batch x pp x spot_fraction x
 * max_num_batched_tokens x target x replicas (each axis the
 * scenario's value unless aiw_plan_grid gives values), the fleet's traffic
 * and the rest of the scenario as written, its autoscaler off.  Per
 * combination of the first four axes: the fleet's start check (memory),
 * the GPU cap, a bound of the offered load against a replica's offline
 * throughput, then a bisection on replicas (assumed: latencies do not
 * increase and the objectives do not decrease with replicas); the ranked
 * table has each combination's smallest feasible replica count.  The
 * combinations run on `jobs` threads (default 1, the caller's), merged in
 * grid order: the same output whatever the count.  One thread uses a plan
 * at a time.
 * A [training NAME] job (component "training.NAME", or a NAME that is a
 * training job and no fleet) plans its layout instead: every tp x pp x dp
 * = gpus (tp <= gpus_per_node) x micro_batch 1, 2, 4, 8 (micro_batch x dp
 * dividing global_batch) x zero_stage 0..3 x recompute none, selective,
 * full the job's start check accepts, ranked by global_batch x seq_len /
 * step_time_model_s (tokens/s); rows in the AIW_PLAN_T_* columns, no
 * limits, objective or grid. */
typedef struct aiw_plan aiw_plan;
/* Columns of aiw_plan_row. */
enum {
	AIW_PLAN_OBJECTIVE = 0,        /* the chosen objective's value */
	AIW_PLAN_GPUS = 1,             /* replicas x gpus_per_replica */
	AIW_PLAN_REPLICAS = 2,
	AIW_PLAN_GPUS_PER_REPLICA = 3,
	AIW_PLAN_WEIGHT_BITS = 4,
	AIW_PLAN_MAX_BATCH = 5,        /* NaN when the fleet has no limit */
	AIW_PLAN_TTFT_P99_S = 6,       /* mean over the replications */
	AIW_PLAN_TTFT_P99_CI95 = 7,    /* 95% Student half-width (NaN: 1 replication) */
	AIW_PLAN_TPOT_P99_S = 8,
	AIW_PLAN_TPOT_P99_CI95 = 9,
	AIW_PLAN_POWER_PEAK_W = 10,    /* site.power_peak_w, mean */
	AIW_PLAN_ENERGY_KWH = 11,      /* site.energy_kwh, mean */
	AIW_PLAN_COST_PER_MTOK_USD = 12, /* the fleet's cost_per_mtok_blended_usd, mean */
	AIW_PLAN_PARETO_TTFT = 13,     /* 1: on the front of objective vs P99 TTFT */
	AIW_PLAN_PARETO_POWER = 14,    /* 1: on the front of objective vs peak power */
	/* the re-check at recheck_replications further seeds (NaN: the row was
	 * not re-checked; see aiw_plan_set's recheck) */
	AIW_PLAN_RECHECK_TTFT_P99_S = 15,    /* mean over the re-check's runs */
	AIW_PLAN_RECHECK_TTFT_P99_CI95 = 16, /* 95% Student half-width */
	AIW_PLAN_RECHECK_TPOT_P99_S = 17,
	AIW_PLAN_RECHECK_TPOT_P99_CI95 = 18,
	AIW_PLAN_RECHECK_MET_SHARE = 19, /* share of its runs whose P99s both met the limits */
	AIW_PLAN_RECHECK_OK = 20,        /* 1: the re-check's means meet the limits, 0: not */
	AIW_PLAN_PP = 21,                /* pipeline stages of a replica */
	AIW_PLAN_SPOT_FRACTION = 22,     /* share of the replicas on spot capacity */
	AIW_PLAN_MAX_NUM_BATCHED_TOKENS = 23, /* NaN: chunked prefill off (or the default) */
	AIW_PLAN_AUTOSCALER_TARGET = 24, /* the target the autoscaler reads; NaN: none */
	AIW_PLAN_MET_SHARE = 25,         /* share of the search's runs whose P99s both met the limits */
	AIW_PLAN_ATTAINMENT_LCB = 26,    /* its one-sided Clopper-Pearson lower bound at the
	                                  * plan's confidence (NaN: no attainment set) */
	AIW_PLAN_DISAGGREGATED = 27,     /* 1: prefill/decode pools, 0: aggregated; NaN: no such axis */
	AIW_PLAN_DECODE_REPLICAS = 28,   /* the decode pool's replicas (0 when aggregated) */
	AIW_PLAN_DECODE_GPUS = 29,       /* its GPUs, counted in AIW_PLAN_GPUS */
	AIW_PLAN_NCOLUMNS = 30
};
/* Columns of aiw_plan_row for a [training NAME] job (the layout search). */
enum {
	AIW_PLAN_T_TOKENS_PER_S = 0,   /* global_batch x seq_len / step time: the objective */
	AIW_PLAN_T_GPUS = 1,
	AIW_PLAN_T_TP = 2,
	AIW_PLAN_T_PP = 3,
	AIW_PLAN_T_DP = 4,
	AIW_PLAN_T_ZERO_STAGE = 5,
	AIW_PLAN_T_MICRO_BATCH = 6,
	AIW_PLAN_T_RECOMPUTE = 7,      /* 0 none, 1 selective, 2 full */
	AIW_PLAN_T_STEP_TIME_S = 8,    /* the layout model's step_time_model_s */
	AIW_PLAN_T_MEMORY_PER_GPU_BYTES = 9,
	AIW_PLAN_T_MFU = 10,           /* mfu_model */
	/* train_tokens set (else NaN): failures at the job's gpus / gpu_mtbf */
	AIW_PLAN_T_TRAIN_SOLVE_S = 11, /* train_tokens / tokens_per_s, no failure */
	AIW_PLAN_T_CKPT_YOUNG_S = 12,  /* Young 1974: sqrt(2 C M) */
	AIW_PLAN_T_CKPT_INTERVAL_S = 13, /* the interval the job uses (auto: Daly 2006) */
	AIW_PLAN_T_TRAIN_TIME_S = 14,  /* Daly 2006's expected wall time at that interval */
	AIW_PLAN_T_TRAIN_COST_USD = 15, /* the expected time at the job's cost per second */
	AIW_PLAN_T_NCOLUMNS = 16
};
/* Counts of aiw_plan_stats. */
enum {
	AIW_PLAN_STAT_CANDIDATES = 0,       /* grid size */
	AIW_PLAN_STAT_PRUNED_MEMORY = 1,    /* refused by the start check */
	AIW_PLAN_STAT_PRUNED_CAP = 2,       /* over max_gpus */
	AIW_PLAN_STAT_PRUNED_BISECTION = 3, /* decided by the bisection unsimulated */
	AIW_PLAN_STAT_SIMULATED = 4,        /* candidates simulated */
	AIW_PLAN_STAT_RUNS = 5,             /* simulations (x replications) */
	AIW_PLAN_STAT_ROWS = 6,             /* rows of the table */
	AIW_PLAN_STAT_PRUNED_LOAD = 7,      /* below the offered load's bound */
	AIW_PLAN_STAT_RECHECKED = 8,        /* rows re-checked at further seeds */
	AIW_PLAN_STAT_RECHECK_FAILED = 9,   /* of which missed the limits */
	AIW_PLAN_NSTATS = 10
};
/* New plan of the fleet `component` ("NAME", "inference.NAME" or
 * "training.NAME") of the
 * scenario file scenario_path or the INI text scenario_text (exactly one
 * non-NULL).  Errors: AIW_EINVAL (NULL out or component, both or neither
 * scenario), AIW_ERANGE (a name of 0 or over 200 characters), AIW_EPARSE
 * (a character other than letters, digits, '_', '-'), AIW_ENOMEM. */
AIW_EXPORT aiw_status aiw_plan_create(aiw_plan **out, const char *scenario_path,
                                      const char *scenario_text, const char *component);
AIW_EXPORT void aiw_plan_free(aiw_plan *plan);
AIW_EXPORT const char *aiw_plan_errmsg(const aiw_plan *plan);
/* Settings: ttft_p99, tpot_p99 (durations, or "none"; at least one limit),
 * objective (cost_per_mtok, gpus, energy, peak_power; default
 * cost_per_mtok), max_gpus (integer, or "none"), power_budget (power, or
 * "none"; compared with site.power_peak_w), replications (1 to 1000,
 * default 1), recheck (0 to 1000, default 0: the ranked rows are run
 * again, in order, at recheck_replications further seeds until that many
 * pass or four times as many were examined; AIW_PLAN_RECHECK_* columns),
 * recheck_replications (2 to 1000, default 10), attainment (0 to 1
 * exclusive, default none: a row is feasible when the one-sided
 * Clopper-Pearson lower bound, at `confidence`, of the share of its
 * replications whose own P99s met the limits is at least this, instead of
 * the means meeting them), confidence (0.5 to 1 exclusive, default 0.95),
 * train_tokens (a training plan: tokens to train, 1 to 1e18; each row gets
 * its expected time and cost with failures and checkpoints,
 * AIW_PLAN_T_TRAIN_*), seed (the first
 * replication's sim.seed; default the
 * scenario's), jobs (threads, 0 to 1024, 0: one per online processor;
 * default 1); a key with a '.' is a scenario parameter set in every
 * candidate ("sim.duration", "30min"). */
AIW_EXPORT aiw_status aiw_plan_set(aiw_plan *plan, const char *key, const char *value);
/* Values of an axis: param one of gpu, gpus_per_replica, weight_bits,
 * max_batch, pp, spot_fraction (the fleet's spot share), max_num_batched_tokens
 * (chunked prefill on), target (the autoscaler's target_utilization or
 * target_value, whichever its metric reads; the fleet must autoscale:
 * replicas then sets max_replicas and every count is simulated), replicas
 * (required); comma-separated values, integer ranges A..B expanded. */
AIW_EXPORT aiw_status aiw_plan_grid(aiw_plan *plan, const char *param, const char *values_csv);
/* Run the search (once). */
AIW_EXPORT aiw_status aiw_plan_run(aiw_plan *plan);
/* The serving plan split over processes (each runs the same program, the
 * same plan): aiw_plan_run_part runs the grid's combinations part, part +
 * nparts, part + 2 nparts, ... (0 <= part < nparts) on the plan's threads
 * and returns their results as bytes in *out (free() them; *len bytes);
 * one process then gives every part's bytes, in any order, to
 * aiw_plan_merge on its plan (the one that ran a part), which ranks,
 * flags and re-checks as aiw_plan_run does: the same table, the same
 * bytes, whatever the parts.  Errors: AIW_ERANGE (part >= nparts),
 * AIW_EINVAL (a training plan; parts not of this grid, missing or given
 * twice), AIW_ESTATE (merge before a part, or twice); the plan's errors. */
AIW_EXPORT aiw_status aiw_plan_run_part(aiw_plan *plan, size_t part, size_t nparts, void **out,
                                        size_t *len);
AIW_EXPORT aiw_status aiw_plan_merge(aiw_plan *plan, const void *const *parts,
                                     const size_t *lens, size_t nparts);
/* Progress of a serving plan: called after each combination of the grid
 * ends (done of total) and after each re-checked row (done = total), one
 * call at a time, from the thread that ran it.  Return non-zero to stop:
 * aiw_plan_run then returns AIW_ESTOPPED with an empty table. */
typedef int (*aiw_plan_progress_fn)(const aiw_plan *plan, size_t done, size_t total,
                                    void *payload);
/* Set (fn NULL: remove) the progress callback, before aiw_plan_run
 * (AIW_ESTATE after). */
AIW_EXPORT aiw_status aiw_plan_set_progress(aiw_plan *plan, aiw_plan_progress_fn fn,
                                            void *payload);
/* The first n counts AIW_PLAN_STAT_* (AIW_ESTATE before the run). */
AIW_EXPORT aiw_status aiw_plan_stats(const aiw_plan *plan, size_t *out, size_t n);
/* Row i of the ranked table (from 0: the best): the first ncolumns
 * AIW_PLAN_* columns, the GPU name and the scenario snippet that
 * reproduces it (one "--set NAME=VALUE" line per parameter); gpu and
 * snippet may be NULL, strings valid until aiw_plan_free.  AIW_ERANGE past
 * the last row (aiw_plan_stats AIW_PLAN_STAT_ROWS). */
AIW_EXPORT aiw_status aiw_plan_row(const aiw_plan *plan, size_t i, double *out,
                                   size_t ncolumns, const char **gpu, const char **snippet);
/* With an empty table: which constraint removed the last candidates and
 * by how much ("latency: P99 TTFT 0.62 s at the closest candidate (...),
 * limit 0.5 s (24% over)"); "" when the table has rows. */
AIW_EXPORT aiw_status aiw_plan_verdict(const aiw_plan *plan, const char **out);
/* CSV of the table: rank, gpu, the columns, snippet (%.17g, empty when not
 * finite). */
AIW_EXPORT aiw_status aiw_plan_write_csv(aiw_plan *plan, const char *path);
/* The plan's report as one self-contained HTML page (no outside resource):
 * the plan's settings and counts, the ranked table with each row's --set
 * lines (or the verdict of an empty table), and Pareto plots of the
 * objective against P99 TTFT and against peak power (a training plan:
 * tokens/s against memory per GPU).  AIW_ESTATE before the run or after a
 * stopped one, AIW_EIO when the file cannot be written. */
AIW_EXPORT aiw_status aiw_plan_write_html(aiw_plan *plan, const char *path);

#ifdef __cplusplus
}
#endif

#endif /* AIWORKLOAD_H */
