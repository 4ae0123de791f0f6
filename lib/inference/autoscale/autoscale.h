/*
 * autoscale.h - autoscaling of an inference fleet: the parameters the
 * inference kind includes in its table, the hooks serving.c calls
 * (controller.c, which reaches the fleet through its port, port.h), and
 * the decision functions of the policies (hpa.c,
 * kpa.c, schedule.c), which take plain numbers and no fleet: the
 * simulation and the replay of recorded metrics run the same code.
 *
 * Policies (inference.NAME.autoscaler):
 *   none        the fleet keeps `replicas` (spot preemptions are replaced)
 *   hpa         the Kubernetes HorizontalPodAutoscaler (autoscaling/v2 with
 *               the default behavior), its arithmetic reproduced exactly
 *   kpa         the Knative Pod Autoscaler: stable and panic windows on
 *               concurrency (or requests per second), scale to zero
 *   predictive  the replicas the forecast rate needs one cold start ahead,
 *               with the HPA's recommendation as a reactive floor
 *   schedule    replicas by time of day from a table
 *
 * Every policy sets the fleet's desired replica count (the Deployment's
 * spec.replicas); a controller reconciles the fleet to it at once: new
 * replicas load for a cold start (`cold_start` of the inference kind),
 * removed ones drain.  Spot capacity (a share of the replicas at a
 * discount, preempted as a Poisson process with a notice) is managed by the
 * same controller for every policy.
 */
#ifndef AIW_AUTOSCALE_H
#define AIW_AUTOSCALE_H

#include "core/internal.h"
#include "inference/autoscale/port.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ======================================================================== */
/* parameters (included in the inference kind's table at index `first`)     */
/* ======================================================================== */
/* Indices relative to `first`, in the order of AIW_AUTOSCALE_PARAM_DEFS. */
enum {
	AIW_AS_AUTOSCALER,
	AIW_AS_MIN_REPLICAS,
	AIW_AS_MAX_REPLICAS,
	AIW_AS_METRIC,
	AIW_AS_TARGET_UTILIZATION,
	AIW_AS_TARGET_VALUE,
	AIW_AS_METRIC_INTERVAL,
	AIW_AS_HPA_SYNC_PERIOD,
	AIW_AS_HPA_TOLERANCE,
	AIW_AS_HPA_UPSCALE_STAB,
	AIW_AS_HPA_DOWNSCALE_STAB,
	AIW_AS_HPA_UP_PODS,
	AIW_AS_HPA_UP_PERCENT,
	AIW_AS_HPA_UP_SELECT,
	AIW_AS_HPA_DOWN_PODS,
	AIW_AS_HPA_DOWN_PERCENT,
	AIW_AS_HPA_DOWN_SELECT,
	AIW_AS_HPA_POLICY_PERIOD,
	AIW_AS_KPA_TARGET_UTILIZATION,
	AIW_AS_KPA_STABLE_WINDOW,
	AIW_AS_KPA_PANIC_WINDOW,
	AIW_AS_KPA_PANIC_THRESHOLD,
	AIW_AS_KPA_MAX_UP_RATE,
	AIW_AS_KPA_MAX_DOWN_RATE,
	AIW_AS_KPA_ZERO_GRACE,
	AIW_AS_KPA_TICK,
	AIW_AS_KPA_DOWN_DELAY,
	AIW_AS_PRED_SOURCE,
	AIW_AS_PRED_SMOOTHING,
	AIW_AS_PRED_BIN,
	AIW_AS_PRED_LEAD,
	AIW_AS_PRED_CAPACITY,
	AIW_AS_PRED_HEADROOM,
	AIW_AS_SCHEDULE,
	AIW_AS_SPOT_FRACTION,
	AIW_AS_SPOT_DISCOUNT,
	AIW_AS_SPOT_RATE,
	AIW_AS_SPOT_NOTICE,
	AIW_AS_SPOT_ACQ_FAILURE,
	AIW_AS_SPOT_MAX_FAILED,
	AIW_AS_SPOT_RETRY,
	AIW_AS_COMPARE_FIXED,
	AIW_AS_HPA_UP_POLICIES,
	AIW_AS_HPA_DOWN_POLICIES,
	AIW_AS_HPA_TOLERANCE_UP,
	AIW_AS_HPA_TOLERANCE_DOWN,
	AIW_AS_HPA_BEHAVIOR,
	AIW_AS_KPA_ACTIVATION_SCALE,
	AIW_AS_KPA_UNREACHABLE,
	AIW_AS_HPA_LEGACY_FACTOR,
	AIW_AS_HPA_LEGACY_MINIMUM,
	AIW_AS_HPA_CPU_INIT,
	AIW_AS_HPA_READINESS_DELAY,
	AIW_AS_KPA_POD_RETENTION,
	AIW_AS_KPA_TBC,
	AIW_AS_KPA_PROGRESS_DEADLINE,
	AIW_AS_KPA_RECONCILER,
	AIW_AS_COMPARE_FIXED_PRICING,
	AIW_AUTOSCALE_NPARAMS
};

enum { AIW_AS_NONE, AIW_AS_HPA, AIW_AS_KPA, AIW_AS_PREDICTIVE, AIW_AS_SCHEDULE_POLICY };
enum {
	AIW_AS_M_UTILIZATION,
	AIW_AS_M_CONCURRENCY,
	AIW_AS_M_QUEUE,
	AIW_AS_M_RPS,
	/* sampled every metric_interval from the fleet's load (port.h) */
	AIW_AS_M_QUEUED_PROMPT_TOKENS,
	AIW_AS_M_KV_OCCUPANCY
};
enum { AIW_AS_SRC_PROFILE, AIW_AS_SRC_HISTORY };

#define AIW_AS_P_(KIND, key) KIND ".NAME." key
/* The entries, in the order of the enum above; KIND is a string literal. */
#define AIW_AUTOSCALE_PARAM_DEFS(KIND)                                                         \
	{"autoscaler", AIW_AS_P_(KIND, "autoscaler"), AIW_PT_ENUM, "none", "", 0, 4,             \
	 "none|hpa|kpa|predictive|schedule", 0,                                                   \
	 "replica policy: none (fixed `replicas`), hpa (Kubernetes HPA), kpa (Knative), "        \
	 "predictive (forecast one cold start ahead), schedule (by time of day)",                \
	 0},                                                                                      \
	{"min_replicas", AIW_AS_P_(KIND, "min_replicas"), AIW_PT_INT, "1", "1", 0, 100000, NULL, \
	 AIW_PF_RUNTIME, "fewest replicas the autoscaler keeps (0: scale to zero, kpa only)", 0}, \
	{"max_replicas", AIW_AS_P_(KIND, "max_replicas"), AIW_PT_INT, "100", "1", 1, 100000,     \
	 NULL, AIW_PF_RUNTIME, "most replicas the autoscaler provisions", 0},                     \
	{"metric", AIW_AS_P_(KIND, "metric"), AIW_PT_ENUM, "utilization", "", 0, 5,               \
	 "utilization|concurrency|queue|rps|queued_prompt_tokens|kv_occupancy", 0,               \
	 "what the autoscaler measures per ready replica: busy fraction, requests in flight, "   \
	 "requests queued, arrivals per second, prompt tokens queued (a prefill pool's), or "    \
	 "the fraction of its KV memory its running requests hold (a decode pool's; both "       \
	 "sampled every metric_interval; hpa and predictive only) (kpa: concurrency unless rps)", \
	 0},                                                                                      \
	{"target_utilization", AIW_AS_P_(KIND, "target_utilization"), AIW_PT_REAL, "0.8", "1",   \
	 0, 1, NULL, AIW_PF_RUNTIME | AIW_PF_EXCL_MIN,                                            \
	 "target busy fraction per replica (metric = utilization; whole percent as Kubernetes; " \
	 "its default 80 %)",                                                                     \
	 0},                                                                                      \
	{"target_value", AIW_AS_P_(KIND, "target_value"), AIW_PT_REAL, "100", "1", 0, 1e9, NULL, \
	 AIW_PF_RUNTIME | AIW_PF_EXCL_MIN,                                                        \
	 "target per replica for metric = concurrency, queue (requests), rps (1/s), "            \
	 "queued_prompt_tokens (tokens) or kv_occupancy (fraction of the KV memory, in (0, 1]); " \
	 "Knative's default concurrency target is 100",                                           \
	 0},                                                                                      \
	{"metric_interval", AIW_AS_P_(KIND, "metric_interval"), AIW_PT_DURATION, "1s", "s", 0,   \
	 3600, NULL, AIW_PF_EXCL_MIN,                                                             \
	 "sampling interval of requests in flight (metric = concurrency, kpa windows) and of " \
	 "the load (metric = queued_prompt_tokens, kv_occupancy)", 0},                            \
	{"hpa_sync_period", AIW_AS_P_(KIND, "hpa_sync_period"), AIW_PT_DURATION, "15s", "s", 0,  \
	 86400, NULL, AIW_PF_EXCL_MIN,                                                            \
	 "HPA (and predictive) control loop period; the metric is averaged over it", 0},         \
	{"hpa_tolerance", AIW_AS_P_(KIND, "hpa_tolerance"), AIW_PT_REAL, "0.1", "1", 0, 10, NULL, \
	 AIW_PF_RUNTIME, "no change while |metric / target - 1| <= tolerance", 0},              \
	{"hpa_upscale_stabilization", AIW_AS_P_(KIND, "hpa_upscale_stabilization"),               \
	 AIW_PT_DURATION, "0s", "s", 0, 3600, NULL, 0,                                            \
	 "scaleUp.stabilizationWindowSeconds: the lowest recommendation in it wins", 0},         \
	{"hpa_downscale_stabilization", AIW_AS_P_(KIND, "hpa_downscale_stabilization"),           \
	 AIW_PT_DURATION, "300s", "s", 0, 3600, NULL, 0,                                          \
	 "scaleDown.stabilizationWindowSeconds: the highest recommendation in it wins", 0},      \
	{"hpa_scale_up_pods", AIW_AS_P_(KIND, "hpa_scale_up_pods"), AIW_PT_INT, "4", "1", 0,     \
	 1e6, NULL, AIW_PF_NONE, "scale-up policy: add at most this many per policy period "     \
	 "(none: no such policy)", 0},                                                            \
	{"hpa_scale_up_percent", AIW_AS_P_(KIND, "hpa_scale_up_percent"), AIW_PT_REAL, "100",    \
	 "%", 0, 1e6, NULL, AIW_PF_NONE,                                                          \
	 "scale-up policy: add at most this percentage per policy period (none: no such "       \
	 "policy)",                                                                               \
	 0},                                                                                      \
	{"hpa_scale_up_select", AIW_AS_P_(KIND, "hpa_scale_up_select"), AIW_PT_ENUM, "max", "",  \
	 0, 2, "max|min|disabled", 0,                                                             \
	 "selectPolicy of the scale-up policies: the larger change, the smaller, or none", 0},  \
	{"hpa_scale_down_pods", AIW_AS_P_(KIND, "hpa_scale_down_pods"), AIW_PT_INT, NULL, "1", 0, \
	 1e6, NULL, AIW_PF_NONE, "scale-down policy: remove at most this many per policy "       \
	 "period (none: no such policy)", 0},                                                     \
	{"hpa_scale_down_percent", AIW_AS_P_(KIND, "hpa_scale_down_percent"), AIW_PT_REAL, "100", \
	 "%", 0, 100, NULL, AIW_PF_NONE,                                                          \
	 "scale-down policy: remove at most this percentage per policy period (none: no such "  \
	 "policy)",                                                                               \
	 0},                                                                                      \
	{"hpa_scale_down_select", AIW_AS_P_(KIND, "hpa_scale_down_select"), AIW_PT_ENUM, "max",  \
	 "", 0, 2, "max|min|disabled", 0,                                                         \
	 "selectPolicy of the scale-down policies: the larger change, the smaller, or none", 0}, \
	{"hpa_policy_period", AIW_AS_P_(KIND, "hpa_policy_period"), AIW_PT_DURATION, "15s", "s", \
	 0, 1800, NULL, AIW_PF_EXCL_MIN, "periodSeconds of every scaling policy", 0},            \
	{"kpa_target_utilization", AIW_AS_P_(KIND, "kpa_target_utilization"), AIW_PT_REAL, "0.7", \
	 "1", 0, 1, NULL, AIW_PF_RUNTIME | AIW_PF_EXCL_MIN,                                       \
	 "kpa: share of target_value aimed at (Knative's target utilization, 70 %)", 0},        \
	{"kpa_stable_window", AIW_AS_P_(KIND, "kpa_stable_window"), AIW_PT_DURATION, "60s", "s",  \
	 6, 3600, NULL, 0, "kpa: averaging window of the stable mode", 0},                        \
	{"kpa_panic_window", AIW_AS_P_(KIND, "kpa_panic_window"), AIW_PT_DURATION, "6s", "s", 0, \
	 3600, NULL, AIW_PF_EXCL_MIN,                                                             \
	 "kpa: averaging window of the panic mode (Knative: 10 % of the stable window)", 0},     \
	{"kpa_panic_threshold", AIW_AS_P_(KIND, "kpa_panic_threshold"), AIW_PT_REAL, "2", "1",   \
	 1, 100, NULL, AIW_PF_EXCL_MIN,                                                           \
	 "kpa: panic when the panic-window demand reaches this multiple of the ready "           \
	 "capacity (200 %)",                                                                      \
	 0},                                                                                      \
	{"kpa_max_scale_up_rate", AIW_AS_P_(KIND, "kpa_max_scale_up_rate"), AIW_PT_REAL, "1000", \
	 "1", 1, 1e9, NULL, AIW_PF_EXCL_MIN, "kpa: at most this many times the ready replicas",  \
	 0},                                                                                      \
	{"kpa_max_scale_down_rate", AIW_AS_P_(KIND, "kpa_max_scale_down_rate"), AIW_PT_REAL, "2", \
	 "1", 1, 1e9, NULL, AIW_PF_EXCL_MIN,                                                      \
	 "kpa: at least the ready replicas divided by this", 0},                                 \
	{"kpa_scale_to_zero_grace", AIW_AS_P_(KIND, "kpa_scale_to_zero_grace"), AIW_PT_DURATION, \
	 "30s", "s", 0, 86400, NULL, 0,                                                           \
	 "kpa: the last replica goes once the revision has been inactive, or the activator in " \
	 "the path, for this long (Knative's scale-to-zero-grace-period)", 0},                  \
	{"kpa_tick", AIW_AS_P_(KIND, "kpa_tick"), AIW_PT_DURATION, "2s", "s", 0, 3600, NULL,     \
	 AIW_PF_EXCL_MIN, "kpa: decision interval (Knative's tick)", 0},                         \
	{"kpa_scale_down_delay", AIW_AS_P_(KIND, "kpa_scale_down_delay"), AIW_PT_DURATION, "0s", \
	 "s", 0, 3600, NULL, 0,                                                                   \
	 "kpa: a decision holds for this long against lower ones (Knative's scale-down-delay)",  \
	 0},                                                                                      \
	{"predictive_source", AIW_AS_P_(KIND, "predictive_source"), AIW_PT_ENUM, "profile", "",  \
	 0, 1, "profile|history", 0,                                                              \
	 "predictive: forecast from the configured traffic profile, or learned from the "       \
	 "previous days at the same time of day",                                                 \
	 0},                                                                                      \
	{"predictive_smoothing", AIW_AS_P_(KIND, "predictive_smoothing"), AIW_PT_REAL, "0.5",    \
	 "1", 0, 1, NULL, AIW_PF_EXCL_MIN,                                                        \
	 "predictive history: weight of the latest day in the smoothed daily profile", 0},       \
	{"predictive_bin", AIW_AS_P_(KIND, "predictive_bin"), AIW_PT_DURATION, "5min", "s", 1,   \
	 86400, NULL, 0, "predictive history: width of a time-of-day bin", 0},                   \
	{"predictive_lead", AIW_AS_P_(KIND, "predictive_lead"), AIW_PT_DURATION, "auto", "s", 0, \
	 86400, NULL, AIW_PF_AUTO,                                                                \
	 "predictive: how far ahead to provision (auto: the 99th percentile of cold_start plus " \
	 "one sync period)",                                                                      \
	 0},                                                                                      \
	{"predictive_capacity", AIW_AS_P_(KIND, "predictive_capacity"), AIW_PT_RATE, NULL, "1/s", \
	 0, 1e9, NULL, AIW_PF_NONE | AIW_PF_EXCL_MIN,                                             \
	 "predictive: requests per second one replica serves at the target (none: learned "     \
	 "from the run)",                                                                         \
	 0},                                                                                      \
	{"predictive_headroom", AIW_AS_P_(KIND, "predictive_headroom"), AIW_PT_REAL, "2", "1", 0, \
	 100, NULL, 0,                                                                            \
	 "predictive: standard deviations of the Poisson arrival count over the lead added to "  \
	 "the forecast rate (0: the mean)",                                                       \
	 0},                                                                                      \
	{"schedule", AIW_AS_P_(KIND, "schedule"), AIW_PT_STRING, NULL, "", 0, 0, NULL,            \
	 AIW_PF_NONE, "schedule: replicas from a time of day on, \"0h:2, 8h:10, 20h:4\"", 0},    \
	{"spot_fraction", AIW_AS_P_(KIND, "spot_fraction"), AIW_PT_REAL, "0", "1", 0, 1, NULL, 0, \
	 "share of the replicas provisioned on spot capacity", 0},                                \
	{"spot_discount", AIW_AS_P_(KIND, "spot_discount"), AIW_PT_REAL, "0.6", "1", 0, 1, NULL, \
	 AIW_PF_RUNTIME, "price reduction of a spot GPU against on-demand (0.6: pays 40 %)", 0}, \
	{"spot_preemption_rate", AIW_AS_P_(KIND, "spot_preemption_rate"), AIW_PT_RATE, "0.05/h", \
	 "1/s", 0, 1, NULL, 0, "preemptions per spot replica per unit time (Poisson)", 0},       \
	{"spot_notice", AIW_AS_P_(KIND, "spot_notice"), AIW_PT_DURATION, "2min", "s", 0, 3600,   \
	 NULL, 0,                                                                                 \
	 "warning before a preempted replica is reclaimed; it drains meanwhile (AWS 2 min, "     \
	 "GCP 30 s)",                                                                             \
	 0},                                                                                      \
	{"spot_acquire_failure", AIW_AS_P_(KIND, "spot_acquire_failure"), AIW_PT_REAL, "0", "1", \
	 0, 1, NULL, 0, "probability that an attempt to acquire a spot replica fails", 0},       \
	{"spot_max_failed_acquisitions", AIW_AS_P_(KIND, "spot_max_failed_acquisitions"),         \
	 AIW_PT_INT, "3", "1", 1, 1e6, NULL, 0,                                                   \
	 "consecutive failed spot acquisitions after which a replica is provisioned on-demand",  \
	 0},                                                                                      \
	{"spot_retry_interval", AIW_AS_P_(KIND, "spot_retry_interval"), AIW_PT_DURATION, "30s",  \
	 "s", 0, 86400, NULL, AIW_PF_EXCL_MIN, "wait before retrying a failed spot acquisition", \
	 0},                                                                                      \
	{"compare_fixed", AIW_AS_P_(KIND, "compare_fixed"), AIW_PT_INT, NULL, "1", 1, 100000,    \
	 NULL, AIW_PF_NONE | AIW_PF_AUTO,                                                         \
	 "also simulate this fleet fixed at N replicas (no spot share, priced as "               \
	 "compare_fixed_pricing says: by default as this fleet), same traffic and seed, for the " \
	 "fixed_* and *_saved metrics (auto: this run's peak; none: no comparison)",             \
	 0},                                                                                      \
	{"hpa_scale_up_policies", AIW_AS_P_(KIND, "hpa_scale_up_policies"), AIW_PT_STRING, NULL, \
	 "", 0, 0, NULL, AIW_PF_NONE,                                                             \
	 "scaleUp.policies, \"pods:4/15s, percent:100/15s\" (TYPE:VALUE/PERIOD, each its own "   \
	 "period; when set, hpa_scale_up_pods, _percent and hpa_policy_period do not apply "     \
	 "to scale-up)",                                                                          \
	 0},                                                                                      \
	{"hpa_scale_down_policies", AIW_AS_P_(KIND, "hpa_scale_down_policies"), AIW_PT_STRING,   \
	 NULL, "", 0, 0, NULL, AIW_PF_NONE,                                                       \
	 "scaleDown.policies, \"percent:10/60s, pods:5/60s\" (when set, hpa_scale_down_pods, "  \
	 "_percent and hpa_policy_period do not apply to scale-down)",                           \
	 0},                                                                                      \
	{"hpa_tolerance_up", AIW_AS_P_(KIND, "hpa_tolerance_up"), AIW_PT_REAL, NULL, "1", 0, 10, \
	 NULL, AIW_PF_RUNTIME | AIW_PF_NONE,                                                      \
	 "scaleUp.tolerance: no scale-up while metric / target <= 1 + this (none: "             \
	 "hpa_tolerance)",                                                                        \
	 0},                                                                                      \
	{"hpa_tolerance_down", AIW_AS_P_(KIND, "hpa_tolerance_down"), AIW_PT_REAL, NULL, "1", 0,  \
	 1, NULL, AIW_PF_RUNTIME | AIW_PF_NONE,                                                   \
	 "scaleDown.tolerance: no scale-down while metric / target >= 1 - this (none: "         \
	 "hpa_tolerance)",                                                                        \
	 0},                                                                                      \
	{"hpa_behavior", AIW_AS_P_(KIND, "hpa_behavior"), AIW_PT_ENUM, "set", "", 0, 1,          \
	 "set|legacy", 0,                                                                         \
	 "set: the behavior rules above; legacy: an HPA without behavior (scale-up at most to "  \
	 "max(2 x current, 4), hpa_downscale_stabilization, no rate policies)",                  \
	 0},                                                                                      \
	{"kpa_activation_scale", AIW_AS_P_(KIND, "kpa_activation_scale"), AIW_PT_INT, "1", "1",  \
	 1, 1e6, NULL, AIW_PF_RUNTIME,                                                            \
	 "kpa: at least this many replicas whenever there is demand (Knative's "                 \
	 "activation-scale; 1: none)",                                                            \
	 0},                                                                                      \
	{"kpa_unreachable", AIW_AS_P_(KIND, "kpa_unreachable"), AIW_PT_BOOL, "false", "", 0, 1,  \
	 NULL, AIW_PF_RUNTIME,                                                                    \
	 "kpa: the revision is unreachable (no route sends it traffic, Knative's Reachable = "   \
	 "false): no max scale-down rate and no scale-down delay",                                \
	 0},                                                                                      \
	{"hpa_legacy_up_factor", AIW_AS_P_(KIND, "hpa_legacy_up_factor"), AIW_PT_REAL, "2", "1",  \
	 1, 1000, NULL, AIW_PF_RUNTIME,                                                           \
	 "hpa_behavior = legacy: scale-up at most to this many times the current replicas "     \
	 "(horizontal.go, scaleUpLimitFactor)",                                                   \
	 0},                                                                                      \
	{"hpa_legacy_up_minimum", AIW_AS_P_(KIND, "hpa_legacy_up_minimum"), AIW_PT_REAL, "4",    \
	 "1", 0, 1e6, NULL, AIW_PF_RUNTIME,                                                       \
	 "hpa_behavior = legacy: scale-up at most to this many replicas when more than "        \
	 "hpa_legacy_up_factor x current (horizontal.go, scaleUpLimitMinimum)",                  \
	 0},                                                                                      \
	{"hpa_cpu_initialization_period", AIW_AS_P_(KIND, "hpa_cpu_initialization_period"),       \
	 AIW_PT_DURATION, "5min", "s", 0, 86400, NULL, 0,                                         \
	 "metric = utilization: a replica started less than this ago whose sample window "       \
	 "began before it was ready counts as unready (kube-controller-manager "                 \
	 "--horizontal-pod-autoscaler-cpu-initialization-period)",                               \
	 0},                                                                                      \
	{"hpa_initial_readiness_delay", AIW_AS_P_(KIND, "hpa_initial_readiness_delay"),           \
	 AIW_PT_DURATION, "30s", "s", 0, 86400, NULL, 0,                                          \
	 "metric = utilization: past the initialization period, an unready replica that last "   \
	 "changed readiness within this of its start (never ready) counts as unready "           \
	 "(--horizontal-pod-autoscaler-initial-readiness-delay)",                                \
	 0},                                                                                      \
	{"kpa_scale_to_zero_pod_retention", AIW_AS_P_(KIND, "kpa_scale_to_zero_pod_retention"),   \
	 AIW_PT_DURATION, "0s", "s", 0, 86400, NULL, 0,                                           \
	 "kpa: the last replica stays at least this long after the revision goes inactive "      \
	 "(Knative's scale-to-zero-pod-retention-period)",                                        \
	 0},                                                                                      \
	{"kpa_target_burst_capacity", AIW_AS_P_(KIND, "kpa_target_burst_capacity"), AIW_PT_REAL,  \
	 "211", "1", -1, 1e9, NULL, 0,                                                            \
	 "kpa: requests of headroom the activator stays in the path for (Knative's "             \
	 "target-burst-capacity: ready x target_value - this - panic demand < 0; -1: always, "   \
	 "0: only at zero); with it in the path the grace period may end at once",               \
	 0},                                                                                      \
	{"kpa_progress_deadline", AIW_AS_P_(KIND, "kpa_progress_deadline"), AIW_PT_DURATION,      \
	 "600s", "s", 0, 86400, NULL, 0,                                                          \
	 "kpa: a revision activating (scaled from zero, no replica ready) for longer than this " \
	 "plus 10 s goes back to zero (Knative's progress-deadline)",                             \
	 0},                                                                                      \
	{"kpa_reconciler", AIW_AS_P_(KIND, "kpa_reconciler"), AIW_PT_BOOL, "true", "", 0, 1,      \
	 NULL, 0,                                                                                 \
	 "kpa: Knative's reconciler applies the decision (the PodAutoscaler's active state, "    \
	 "scale to zero after the stable window, grace and pod retention); false: the "          \
	 "decider's count within min/max as is",                                                  \
	 0},                                                                                      \
	{"compare_fixed_pricing", AIW_AS_P_(KIND, "compare_fixed_pricing"), AIW_PT_ENUM, "same", \
	 "", 0, 1, "same|ondemand", 0,                                                            \
	 "pricing of the compare_fixed fleet: same (this fleet's pricing, capex included, "      \
	 "without its spot share) or ondemand (rented by the hour at ondemand_price)",           \
	 0}

/* ======================================================================== */
/* hooks called by serving.c (controller.c)                                  */
/* ======================================================================== */
/* A fleet's autoscaler (controller.h; opaque to the fleet). */
typedef struct autoscaler aiwi_autoscaler;
/* After the initial replicas are in place: validate the autoscaling
 * parameters, build the state (*out: the fleet keeps it and passes it to
 * the hooks below; NULL when the fleet needs no controller: autoscaler =
 * none, no spot, no comparison), register the curves, schedule the first
 * events.  The controller reaches the fleet c through port only (port.h).
 * *out is set as soon as the state exists, so that aiwi_autoscale_destroy
 * frees it after an error too.  Errors name the parameter. */
aiw_status aiwi_autoscale_start(aiwi_comp *c, size_t first, const aiwi_fleet_port *port,
                                aiwi_autoscaler **out);
/* The sample tick at t: the replica curves.  a NULL: nothing (as below). */
void aiwi_autoscale_sample(aiwi_autoscaler *a, double t);
/* The end of a run call at t, after the fleet's metrics: the autoscaling,
 * spot and comparison metrics. */
void aiwi_autoscale_finish(aiwi_autoscaler *a, double t);
/* Free the state (before the fleet's). */
void aiwi_autoscale_destroy(aiwi_autoscaler *a);
/* With a controller, the fleet's replica count is its business: the fleet
 * forwards its parameter changes (`replicas` sets the desired count). */
aiw_status aiwi_autoscale_param_changed(aiwi_autoscaler *a, size_t idx);
/* Replica slot `failed` failed (the fleet's replica failures: it is FREE
 * now, its requests handled); `spare` >= 0: a hot spare took its place at
 * once in that slot, ready.  The controller stops counting the failed one
 * as its own (its loading interval, its spot exposure and notice), adopts
 * the spare as a replica ready since now, and provisions what the desired
 * count then lacks at once (the ReplicaSet's replacement of a failed pod).
 * a NULL: nothing. */
void aiwi_autoscale_replica_failed(aiwi_autoscaler *a, uint32_t failed, int spare);
/* A GPU budget (site.gpu_budget, site/budget.h): the fleet joined the
 * arbiter b as `member`; from now a scale-up asks it first.  The arbiter
 * granted n replicas (n > 0) of the last request: the controller
 * provisions up to n of what it still lacks, now.  a NULL: nothing. */
struct aiwi_budget;
void aiwi_autoscale_set_budget(aiwi_autoscaler *a, struct aiwi_budget *b, int member);
void aiwi_autoscale_budget_grant(aiwi_autoscaler *a, uint32_t n);
/* The desired replica count now (-1: a is NULL), whether the kpa is in
 * panic mode, the predictive policy's forecast rate (1/s) at time t (NAN
 * when it has none); the fleet's test hooks (serving.h) read them. */
int32_t aiwi_as_desired(const aiwi_autoscaler *a);
bool aiwi_as_panicking(const aiwi_autoscaler *a);
double aiwi_as_forecast(const aiwi_autoscaler *a, double t);
/* Before a run (estimate.c): whether compare_fixed asks for a second,
 * fixed fleet; and the autoscaler's share of the up-front estimate of the
 * run (control ticks, KPA window, spot preemptions), returning the replica
 * slots the fleet may hold (replicas, or max_replicas when a policy scales). */
bool aiwi_autoscale_compare_fixed(const aiwi_comp *c, size_t first);
double aiwi_autoscale_estimate(aiwi_comp *c, size_t first, double replicas, aiwi_estimate *E);
/* The curves the autoscaler records (metrics.c), ended by a NULL key, and
 * its summary metrics. */
#define AIWI_AUTOSCALE_CURVE_DEFS                                                              \
	{"replicas_desired", "1", NULL, NULL, 0, false, false,                                   \
	 "replicas the autoscaler asks for at the end of the interval"},                       \
	{"replicas_ready", "1", NULL, NULL, 0, false, false,                                     \
	 "replicas ready to serve at the end of the interval"},                                \
	{"replicas_loading", "1", NULL, NULL, 0, false, false,                                   \
	 "replicas loading their weights (cold start) at the end of the interval"},            \
	{"replicas_draining", "1", NULL, NULL, 0, false, false,                                  \
	 "replicas finishing their requests before release at the end of the interval"},       \
	{"replicas_spot", "1", NULL, NULL, 0, false, false,                                      \
	 "provisioned spot replicas at the end of the interval"},                              \
	{"kpa_panic", "1", NULL, NULL, 0, false, false,                                          \
	 "1 while the KPA is in panic mode at the end of the interval, else 0"}



/* ======================================================================== */
/* Kubernetes HPA (pkg/controller/podautoscaler: replica_calculator.go and   */
/* horizontal.go of autoscaling/v2), as pure functions                       */
/* ======================================================================== */
/* One metric evaluation (replica_calculator.go).  Pods with a metric have
 * the same value (the fleet measures one average); quantities are the
 * integers Kubernetes computes with: utilisation in whole percent of the
 * request (resource metrics), other metrics in milli-units (Quantity). */
typedef struct aiwi_hpa_calc_in {
	int32_t current;  /* spec.replicas */
	int32_t ready;    /* ready pods with a metric sample */
	int32_t unready;  /* pods not ready yet (loading, pending): no sample */
	int32_t missing;  /* ready pods without a sample */
	double value;     /* the metric of each ready pod: utilisation (fraction of
	                   * the request) or the value (requests, 1/s) */
	double target;    /* target utilisation (fraction) or target value */
	double tolerance; /* 0.1 */
	bool resource;    /* a resource utilisation metric (else a pods metric) */
	/* per direction (behavior.scaleUp/scaleDown.tolerance, Kubernetes
	 * 1.33, replica_calculator.go, Tolerances.isWithin: no change while
	 * 1 - down <= ratio <= 1 + up), used when per_direction is set; else
	 * |1 - ratio| <= tolerance as in earlier releases */
	bool per_direction;
	double tolerance_up, tolerance_down;
	/* the metric as Kubernetes sums it, exact: when have_sum, sum_milli is
	 * the sum over the ready pods of their usage in milli-units (resource:
	 * millicores of a 1000m request per pod; pods metric: milli-values),
	 * used instead of ready x floor(1000 x value) (the replay reads it) */
	bool have_sum;
	int64_t sum_milli;
} aiwi_hpa_calc_in;

/* The recommendation, or -1 when no pod has a metric (the HPA then does
 * not scale).  As Kubernetes: ratio = usage / target; without unready pods
 * on a scale-up and without missing pods, the current count if |ratio - 1|
 * <= tolerance, else ceil(ratio * ready); otherwise missing pods count as
 * using the target (pods metric) or max(100 %, target) (resource) on a
 * scale-down and 0 on a scale-up, unready pods as 0 on a scale-up (they
 * are set aside on a scale-down), the ratio is recomputed, and a change
 * within tolerance or of the other direction is dropped. */
int32_t aiwi_hpa_calc(const aiwi_hpa_calc_in *in);
/* The same, telling in *reason (may be NULL) AIW_AS_R_TOLERANCE when the
 * ratio was within tolerance (or turned direction), AIW_AS_R_NO_METRIC
 * when it returns -1, AIW_AS_R_SCALE otherwise. */
int32_t aiwi_hpa_calc_r(const aiwi_hpa_calc_in *in, int *reason);

/* One pod as groupPods (replica_calculator.go) sees it, to count the
 * ready, unready, missing and ignored pods of aiwi_hpa_calc_in.  Times in
 * seconds on the simulation's clock. */
enum { AIW_HPA_POD_PENDING, AIW_HPA_POD_RUNNING, AIW_HPA_POD_FAILED };
typedef struct aiwi_hpa_pod {
	int phase;          /* AIW_HPA_POD_* (Status.Phase) */
	bool deleting;      /* DeletionTimestamp set */
	bool has_metric;    /* a sample in the metrics */
	bool has_condition; /* a PodReady condition and a StartTime */
	bool ready;         /* the PodReady condition's status is True */
	double start;       /* Status.StartTime */
	double transition;  /* the PodReady condition's LastTransitionTime */
	double metric_time; /* the sample's Timestamp */
	double metric_window; /* the sample's Window */
} aiwi_hpa_pod;

typedef struct aiwi_hpa_groups {
	int32_t ready, unready, missing, ignored;
} aiwi_hpa_groups;

/* Count one pod into *g as groupPods does: deleting or failed pods are
 * ignored; pending pods are unready; a pod without a sample is missing;
 * on the CPU resource metric only (cpu true), a pod is also unready when it
 * has no condition or start time, or, started less than cpu_init ago, when
 * it is not ready or its sample's window began before it last changed
 * readiness (metric_time < transition + metric_window), or, started
 * longer ago, when it is not ready and last changed readiness less than
 * readiness_delay after its start (it has never been ready); every other
 * pod is ready. */
void aiwi_hpa_group(const aiwi_hpa_pod *pod, bool cpu, double now, double cpu_init,
                    double readiness_delay, aiwi_hpa_groups *g);

/* Why a decision is what it is (the replay prints them). */
enum {
	AIW_AS_R_SCALE,       /* the metric's recommendation, within every limit */
	AIW_AS_R_TOLERANCE,   /* within tolerance: no change */
	AIW_AS_R_NO_METRIC,   /* no pod had a metric: no change */
	AIW_AS_R_DISABLED,    /* spec.replicas = 0 with min_replicas > 0 */
	AIW_AS_R_STABILIZED,  /* the stabilisation window held it */
	AIW_AS_R_LIMIT,       /* a scaling policy (or the legacy 2x / 4) limited it */
	AIW_AS_R_MAX,         /* max_replicas */
	AIW_AS_R_MIN,         /* min_replicas */
	AIW_AS_R_PANIC,       /* kpa: panic mode (no scale-down) */
	AIW_AS_R_DELAY,       /* kpa: the scale-down delay held it */
	AIW_AS_R_GRACE,       /* kpa: the grace period before zero held it */
	AIW_AS_R_RATE,        /* kpa: max scale-up or scale-down rate */
	AIW_AS_R_ACTIVATION,  /* kpa: activation scale */
	AIW_AS_R_STABLE,      /* kpa: stable mode */
	AIW_AS_R_IDLE,        /* kpa: active for less than a stable window: 1 */
	AIW_AS_R_DEACTIVATE,  /* kpa: zero wanted, the revision marked inactive */
	AIW_AS_R_RETENTION,   /* kpa: the pod retention period holds the last one */
	AIW_AS_R_ACTIVATING,  /* kpa: activating (no ready replica yet): kept */
	AIW_AS_R_PROBE,       /* kpa: the activator is not in the path yet: kept */
	AIW_AS_NREASONS
};
/* "scale", "tolerance", "no-metric", ...; NULL out of range */
const char *aiwi_as_reason_name(int reason);

enum { AIW_HPA_SELECT_MAX, AIW_HPA_SELECT_MIN, AIW_HPA_SELECT_DISABLED };

enum { AIW_HPA_PODS, AIW_HPA_PERCENT };
#define AIW_HPA_MAX_POLICIES 16

/* One HPAScalingPolicy: at most `value` pods or percent per `period`. */
typedef struct aiwi_hpa_policy {
	int type;     /* AIW_HPA_PODS, AIW_HPA_PERCENT */
	double value; /* pods, or percent */
	double period; /* periodSeconds (s), > 0 */
} aiwi_hpa_policy;

/* HPAScalingRules of one direction. */
typedef struct aiwi_hpa_scaling {
	aiwi_hpa_policy policies[AIW_HPA_MAX_POLICIES];
	size_t npolicies;
	int select;    /* AIW_HPA_SELECT_* */
	double window; /* stabilizationWindowSeconds (s) */
} aiwi_hpa_scaling;

/* behavior: the scaling rules (defaults: up 100 % or 4 pods per 15 s, the
 * larger; down 100 % per 15 s; down stabilisation 300 s).  legacy: an HPA
 * without behavior (horizontal.go, normalizeDesiredReplicas): the highest
 * recommendation of the last down.window seconds, then at most max(2 x
 * current, 4), no scale events. */
typedef struct aiwi_hpa_rules {
	int32_t min_replicas, max_replicas;
	bool legacy;
	/* legacy: at most max(up_factor x current, up_minimum) (2 and 4) */
	double legacy_up_factor, legacy_up_minimum;
	aiwi_hpa_scaling up, down;
} aiwi_hpa_rules;

/* Parse a list of policies, "pods:4/15s, percent:100/15s" (TYPE:VALUE/
 * PERIOD; pods an integer >= 1, percent > 0, period in (0, 1800 s]).
 * Errors name the entry and the allowed range. */
aiw_status aiwi_hpa_policies_parse(const char *text, aiwi_hpa_scaling *out, char *err,
                                  size_t errlen);

typedef struct aiwi_hpa_sample {
	double t;
	int32_t v; /* recommendation, or replica change of a scale event */
} aiwi_hpa_sample;

/* The controller's memory: recommendations and scale events, each reusing
 * its outdated entries as Kubernetes does (bounded by window / sync). */
typedef struct aiwi_hpa_state {
	aiwi_hpa_sample *recs, *ups, *downs;
	size_t nrecs, nups, ndowns, caprecs, capups, capdowns;
} aiwi_hpa_state;

void aiwi_hpa_state_init(aiwi_hpa_state *s);
void aiwi_hpa_state_free(aiwi_hpa_state *s);

/* One sync of the controller at time now (reconcileAutoscaler): current =
 * spec.replicas, recommendation = aiwi_hpa_calc's result (-1: no metric).
 * current 0 with min_replicas > 0 disables autoscaling (returns 0);
 * current above max or below min goes to the bound; otherwise the
 * recommendation is stabilised (the lowest in the up window, the highest
 * in the down window, both including itself) and limited by the policies
 * (replicas changed within the last period counted from the scale events;
 * the percentage rounds up on scale-up and down on scale-down).  A change
 * is recorded as a scale event.  Returns the new spec.replicas, or a
 * negative aiw_status on ENOMEM. */
int32_t aiwi_hpa_sync(const aiwi_hpa_rules *r, aiwi_hpa_state *s, double now, int32_t current,
                     int32_t recommendation);
/* The same, telling in *reason (may be NULL) why (AIW_AS_R_*). */
int32_t aiwi_hpa_sync_r(const aiwi_hpa_rules *r, aiwi_hpa_state *s, double now,
                       int32_t current, int32_t recommendation, int *reason);

/* A controller's history, for a replay that starts from it: a scale event
 * (replicas added, up, or removed) or a recommendation at time t, stored as
 * the controller stores them.  Returns false on ENOMEM. */
bool aiwi_hpa_record_event(aiwi_hpa_state *s, double t, bool up, int32_t change);
bool aiwi_hpa_record_recommendation(aiwi_hpa_state *s, double t, int32_t rec);

/* The stabilisation step alone (stabilizeRecommendationWithBehaviors):
 * records the recommendation and returns the stabilised value. */
int32_t aiwi_hpa_stabilize(const aiwi_hpa_rules *r, aiwi_hpa_state *s, double now,
                          int32_t current, int32_t recommendation, bool *enomem);

/* ======================================================================== */
/* Knative KPA (pkg/autoscaler/scaling/autoscaler.go, Scale)                  */
/* ======================================================================== */
typedef struct aiwi_kpa_conf {
	double target;          /* TargetValue per pod: target x target utilisation */
	double panic_threshold; /* 2.0 */
	double max_up_rate;     /* 1000 */
	double max_down_rate;   /* 2 */
	double stable_window;   /* 60 s */
	/* aiwi_kpa_step only */
	double down_delay;      /* scale-down delay (s), 0: none */
	double zero_grace;      /* scale-to-zero grace period (s) */
	int32_t min_replicas, max_replicas;
	/* autoscaler.go, Scale: activation scale (0 or 1: none), and whether
	 * the revision is unreachable (then no max scale-down rate applies);
	 * zero-initialised: none and reachable, as the simulation runs */
	int32_t activation_scale;
	bool unreachable;
	/* the reconciler (pkg/reconciler/autoscaling/kpa: scaler.go,
	 * handleScaleToZero; kpa.go, computeActiveCondition and the SKS mode):
	 * off (false), aiwi_kpa_step applies the decision within min/max */
	bool reconciler;
	double pod_retention;     /* scale-to-zero-pod-retention-period (s) */
	double burst_capacity;    /* target-burst-capacity (-1: the activator always in the path) */
	double total_value;       /* target per pod before the utilisation (TotalValue) */
	double progress_deadline; /* s; activation fails after it + 10 s */
	bool no_activator;        /* the activator probe fails (the replay's activator = 0) */
} aiwi_kpa_conf;

/* The PodAutoscaler's Active condition. */
enum { AIW_KPA_PA_ACTIVATING, AIW_KPA_PA_ACTIVE, AIW_KPA_PA_INACTIVE };
#define AIWI_KPA_ACTIVATION_BUFFER 10.0 /* s: scaler.go, activationTimeoutBuffer */

/* The bucket of Knative's scale-down delay window (aggregation/max,
 * TimeWindow over 2 s buckets). */
typedef struct aiwi_kpa_bucket {
	int64_t index; /* floor(time / 2 s) */
	int32_t value;
} aiwi_kpa_bucket;
#define AIWI_KPA_DELAY_BUCKET 2.0 /* s: Knative's tickInterval, the granularity of the window */

typedef struct aiwi_kpa_state {
	double panic_time;      /* last time over the threshold; NAN: not panicking */
	int32_t max_panic_pods;
	/* the reconciler: the PodAutoscaler's Active condition since pa_since,
	 * the ServerlessService in proxy mode (the activator in the path)
	 * since proxy_since (NAN: serve mode) */
	int pa;
	double pa_since, proxy_since;
	/* the scale-down delay window: descending maxima in a ring of
	 * ceil(delay / 2 s) buckets (Knative's max.window) */
	aiwi_kpa_bucket *delay;
	size_t capdelay, first, ndelay;
} aiwi_kpa_state;

void aiwi_kpa_state_init(aiwi_kpa_state *s);
/* The decider's creation at time now with `ready` pods ready
 * (autoscaler.go, newAutoscaler): more than one ready pod starts in panic
 * mode (panic since now), and the panic's highest count is the ready
 * count, so that a restarted autoscaler without metric history keeps the
 * current scale until it has data. */
void aiwi_kpa_state_start(aiwi_kpa_state *s, double now, int32_t ready);
/* (The PodAutoscaler starts active since now with ready pods, else
 * inactive with the activator in the path.) */
void aiwi_kpa_state_free(aiwi_kpa_state *s);
/* One decision at time now from the stable- and panic-window averages of
 * the total demand (requests in flight, or per second): dspc =
 * ceil(stable / target), dppc = ceil(panic / target), both kept in
 * [floor(ready / max_down_rate), ceil(ready x max_up_rate)] with ready =
 * max(1, ready pods).  Panic starts (or is extended) when dppc / ready >=
 * panic_threshold and ends when below it more than stable_window after the
 * last time above; in panic the count never decreases and is the larger of
 * the two.  Returns the desired pod count (before min/max). */
int32_t aiwi_kpa_decide(const aiwi_kpa_conf *k, aiwi_kpa_state *s, double now, uint32_t ready,
                       double stable, double panic);
/* The whole decision of a tick: aiwi_kpa_decide, then the scale-down delay
 * (reachable revisions only: the highest decision recorded in the last
 * ceil(down_delay / 2 s) buckets of 2 s, the bucket of a time t being
 * floor(t / 2 s), wins), the excess burst capacity (floor(ready x
 * total_value - burst_capacity - panic), -1 when burst_capacity < 0, 0
 * when it is 0), then the reconciler (aiwi_kpa_reconcile_r), run again
 * while a pass changes the PodAutoscaler's state or the proxy mode (its
 * status update queues it again at once); without the reconciler, min/max
 * only.  current is the Deployment's count before this tick.  Returns the
 * new count, or AIW_ENOMEM. */
int32_t aiwi_kpa_step(const aiwi_kpa_conf *k, aiwi_kpa_state *s, double now, int32_t current,
                     uint32_t ready, double stable, double panic);
/* The same, telling in *reason (may be NULL) why (AIW_AS_R_*). */
int32_t aiwi_kpa_step_r(const aiwi_kpa_conf *k, aiwi_kpa_state *s, double now,
                       int32_t current, uint32_t ready, double stable, double panic,
                       int *reason);

/* One pass of Knative's reconciler with the decider's count `want` (-1:
 * no metrics yet) and its excess burst capacity `ebc`: min/max (no minimum
 * for an unreachable revision); a zero is applied only when the
 * PodAutoscaler is inactive for max(zero_grace, pod_retention), or for
 * pod_retention with the activator in the path for zero_grace; while
 * active for less than stable_window the count is 1; once active for
 * stable_window it is marked inactive (count kept); while activating for
 * more than progress_deadline + 10 s the count goes to zero, else it is
 * kept.  Then the Active condition from the returned count and the ready
 * pods (at least max(min, 1) ready: active), and the proxy mode (a count
 * of 0, ebc < 0, or -1 while inactive).  Returns the Deployment's new
 * count (current when not applied). */
int32_t aiwi_kpa_reconcile_r(const aiwi_kpa_conf *k, aiwi_kpa_state *s, double now,
                            int32_t current, uint32_t ready, int32_t want, int32_t ebc,
                            int *reason);

/* The last samples of the demand, for the window averages. */
typedef struct aiwi_kpa_ring {
	double *v;
	size_t cap, pos, n;
} aiwi_kpa_ring;

aiw_status aiwi_kpa_ring_init(aiwi_kpa_ring *r, size_t cap);
void aiwi_kpa_ring_free(aiwi_kpa_ring *r);
void aiwi_kpa_ring_push(aiwi_kpa_ring *r, double x);
/* The mean of the last `last` samples (of fewer if fewer were pushed; 0 if
 * none), newest first. */
double aiwi_kpa_ring_mean(const aiwi_kpa_ring *r, size_t last);

/* ======================================================================== */
/* schedule tables                                                           */
/* ======================================================================== */
typedef struct aiwi_sched_entry {
	double tod;      /* time of day (s), [0, 86400) */
	int32_t replicas;
} aiwi_sched_entry;

/* Parse "0h:2, 8h:10, 20h:4" (times with units, increasing, within a day;
 * replicas >= 0).  *out (malloc'ed, *n entries) is owned by the caller. */
aiw_status aiwi_sched_parse(const char *text, aiwi_sched_entry **out, size_t *n, char *err,
                           size_t errlen);
/* Replicas at time t (t = 0 is midnight): the last entry at or before the
 * time of day, wrapping to the last entry of the day before. */
int32_t aiwi_sched_at(const aiwi_sched_entry *e, size_t n, double t);
/* The first time > t at which the table's value may change. */
double aiwi_sched_next(const aiwi_sched_entry *e, size_t n, double t);

#endif /* AIW_AUTOSCALE_H */
