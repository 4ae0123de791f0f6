/*
 * internal.h - private interfaces shared by the files of libaiworkload.
 * Nothing here is installed; everything here has hidden visibility.
 */
#ifndef AIW_INTERNAL_H
#define AIW_INTERNAL_H

#ifndef AIW_BUILDING_LIBRARY
#define AIW_BUILDING_LIBRARY 1
#endif
#include "aiworkload.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <gsl/gsl_rng.h>

#include "core/rng.h"

#if defined(__GNUC__)
#define AIW_PRINTF(a, b) __attribute__((format(printf, a, b)))
#define AIW_LIKELY(x) __builtin_expect(!!(x), 1)
#define AIW_UNLIKELY(x) __builtin_expect(!!(x), 0)
/* inlined whatever the compiler's estimate (hot paths, where a measured
 * gain says so) */
#define AIW_INLINE inline __attribute__((always_inline))
#else
#define AIW_PRINTF(a, b)
#define AIW_LIKELY(x) (x)
#define AIW_UNLIKELY(x) (x)
#define AIW_INLINE inline
#endif

typedef struct aiwi_comp aiwi_comp;
typedef struct aiwi_dist aiwi_dist;

/* ======================================================================== */
/* errors (sim.c)                                                            */
/* ======================================================================== */
/* Record a message on sim (may be NULL) and return code. */
aiw_status aiwi_err(aiw_sim *sim, aiw_status code, const char *fmt, ...) AIW_PRINTF(3, 4);
aiw_status aiwi_verr(aiw_sim *sim, aiw_status code, const char *fmt, va_list ap);
/* Warnings (warnings.c): a result the run gives but that the user should
 * not take at face value (a limit exceeded, a default that misleads).  The
 * run goes on; the caller reads them with aiw_sim_warning_count and
 * aiw_sim_warning.  An identical text is kept once; at most
 * AIWI_WARNINGS_MAX are kept (the last one then says how many more came).
 * Cleared by aiw_sim_reset. */
#define AIWI_WARNINGS_MAX 64
void aiwi_warn(aiw_sim *sim, const char *fmt, ...) AIW_PRINTF(2, 3);
void aiwi_warnings_clear(aiw_sim *sim);
struct aiwi_warnings **aiwi_sim_warnings(aiw_sim *sim); /* sim.c: the slot */
/* Results derived from input files, shared by the simulations of a sweep
 * (memo.c): keyed by a model's key string and the file's identity (device,
 * inode, size, modification time) as it was when read.  aiwi_memo_get
 * copies len bytes of a current entry into out (true), or counts a miss
 * (false: a changed or unreadable file, another key); aiwi_memo_put keeps
 * a result under the identity read_as that the caller took (stat) before
 * reading the file.  Thread-safe; freed with its last reference.  A
 * simulation holds one reference to its memo (aiwi_sim_set_memo; none by
 * default). */
typedef struct aiwi_memo aiwi_memo;
struct stat;
aiwi_memo *aiwi_memo_new(void);
void aiwi_memo_ref(aiwi_memo *m);
void aiwi_memo_unref(aiwi_memo *m);
bool aiwi_memo_get(aiwi_memo *m, const char *path, const char *key, void *out, size_t len);
void aiwi_memo_put(aiwi_memo *m, const char *path, const char *key, const void *val, size_t len,
                   const struct stat *read_as);
void aiwi_memo_counts(aiwi_memo *m, uint64_t *hits, uint64_t *misses);
void aiwi_sim_set_memo(aiw_sim *sim, aiwi_memo *m);
aiwi_memo *aiwi_sim_memo(const aiw_sim *sim);
/* Write into a caller buffer (may be NULL), return code. */
aiw_status aiwi_buferr(char *buf, size_t len, aiw_status code, const char *fmt, ...)
	AIW_PRINTF(4, 5);

/* ======================================================================== */
/* engine.c: pending-event set, a ladder queue keyed by (time, sequence)    */
/* ======================================================================== */
typedef void (*aiwi_evfn)(aiw_sim *sim, void *ctx, uint64_t arg);

/* An entry of the bottom heap is 16 bytes so that the four children of a
 * node fill one 64-byte cache line: the time's IEEE bits (times are >= 0, so
 * their bit patterns order like the values) and (sequence << 24 | slot). */
typedef struct aiwi_heap_entry {
	uint64_t tbits;
	uint64_t seqslot;
} aiwi_heap_entry;

/* One pending event.  The key is kept here too, so that the unsorted tiers
 * (the top list and the rungs' buckets) are just lists threaded through
 * `link', which is the free list when the slot is free. */
typedef struct aiwi_ev_slot {
	aiwi_heap_entry key;
	aiwi_evfn fn;
	void *ctx;
	uint64_t arg;
	uint32_t gen;  /* odd while pending; even once run or cancelled */
	uint32_t link; /* next slot in the same list (bucket, top or free) */
} aiwi_ev_slot;

/* A rung: nb equal-width buckets from base; bucket b holds the events whose
 * (t - base) * inv_w, clamped to nb - 1, is b.  Buckets below cur are spent. */
typedef struct aiwi_rung {
	double base, inv_w;
	uint32_t nb, cur, cap;
	uint32_t *head;
} aiwi_rung;

#define AIW_ENGINE_RUNGS 8

typedef struct aiwi_engine {
	/* the bottom, bot[bhead..bend): sorted ascending while small (a pop is
	 * bhead++), else a 4-ary heap with bhead = 0 (bheap) */
	aiwi_heap_entry *bot;
	void *bot_alloc;      /* (the allocation starts 3 entries before bot) */
	size_t bhead, bend;
	size_t bot_split;     /* spread the bottom over a rung past this size */
	bool bheap;
	size_t n, cap;        /* entries held, live and cancelled; slots allocated */
	size_t ndead;         /* cancelled entries not yet removed */
	aiwi_ev_slot *slots;
	uint32_t nslots, free_head;
	uint32_t nfresh;      /* slots nfresh .. nslots - 1 never used (untouched) */
	uint32_t top_head;    /* the top: unsorted list of events after top_lo */
	uint32_t nrungs;
	size_t ntop;
	int64_t top_lo;       /* time bits; -1: every new event goes to the top */
	aiwi_rung rung[AIW_ENGINE_RUNGS];
	uint64_t seq;
	double now;
	/* kept by sim.c for aiwi_engine_run_inline: the end of the current run
	 * (-inf outside a run and after a failure), and the time before which
	 * the clock must be for no progress report to be due (+inf: none) */
	double inl_end, inl_before;
} aiwi_engine;

#define AIW_ENGINE_SLOT_BITS 24
#define AIW_ENGINE_SEQ_LIMIT (UINT64_C(1) << (64 - AIW_ENGINE_SLOT_BITS))
#define AIW_ENGINE_MAX_PENDING ((1u << AIW_ENGINE_SLOT_BITS) - 1u) /* 16,777,215 */
void aiwi_engine_init(aiwi_engine *e);
void aiwi_engine_clear(aiwi_engine *e);   /* drop pending events, time back to 0 */
void aiwi_engine_free(aiwi_engine *e);
/* Schedule at absolute time t (caller guarantees now <= t, finite).
 * Returns a handle (never 0) or 0 when memory or the pending limit
 * (AIW_ENGINE_MAX_PENDING) or the sequence limit (2^40 events) is reached. */
uint64_t aiwi_engine_push(aiwi_engine *e, double t, aiwi_evfn fn, void *ctx, uint64_t arg);
/* true if the handle was pending and is now cancelled.  O(1): the entry is
 * marked and dropped when it is reached; everything is compacted when
 * cancelled entries outnumber live ones, so memory stays O(pending). */
bool aiwi_engine_cancel(aiwi_engine *e, uint64_t handle);
static inline double aiwi_engine_time_of(uint64_t tbits)
{
	double t;
	__builtin_memcpy(&t, &tbits, sizeof t);
	return t;
}
/* Bring the earliest live event to bot[bhead] (drops cancelled entries
 * there, refills an empty bottom from the rungs or the top). */
void aiwi_engine_settle(aiwi_engine *e);
/* Time of the earliest pending (not cancelled) event, or +inf. */
static inline double aiwi_engine_peek(aiwi_engine *e)
{
	if (AIW_UNLIKELY(e->bhead == e->bend || e->ndead))
		aiwi_engine_settle(e);
	return e->bhead != e->bend ? aiwi_engine_time_of(e->bot[e->bhead].tbits) : __builtin_inf();
}
/* An event that would be scheduled now, from inside a callback, at t runs
 * in place when the engine would pop it right after the current callback
 * with nothing in between: every pending event comes strictly later (equal
 * times would run first, being older), t is inside the current run, no
 * progress report is due after the current event (the run loop checks
 * between events) and nothing failed.  Then the clock moves to t and the
 * event counts as scheduled (sim.events is the scheduled count, and later
 * events get the sequence numbers a push would have left), so a run is the
 * same, bit for bit, minus a push and a pop; the caller runs the event. */
static inline bool aiwi_engine_run_inline(aiwi_engine *e, double t)
{
	if (!(t >= e->now && t <= e->inl_end && e->now < e->inl_before) ||
	    e->seq >= AIW_ENGINE_SEQ_LIMIT)
		return false;
	if (e->n && !(t < aiwi_engine_peek(e)))
		return false;
	e->seq++;
	e->now = t + 0.0; /* as a pop gives it back: -0 -> +0 */
	return true;
}
/* Events pending and not cancelled. */
static inline size_t aiwi_engine_pending(const aiwi_engine *e)
{
	return e->n - e->ndead;
}
/* Pop the earliest event, advance now, and return its callback fields. */
bool aiwi_engine_pop(aiwi_engine *e, aiwi_evfn *fn, void **ctx, uint64_t *arg);

/* ======================================================================== */
/* dist.c: distribution specs -> GSL samplers                                */
/* ======================================================================== */
typedef enum aiwi_dist_kind {
	AIW_D_CONST,
	AIW_D_EXP,
	AIW_D_NORMAL,
	AIW_D_LOGNORMAL,
	AIW_D_UNIFORM,
	AIW_D_GAMMA,
	AIW_D_PARETO,
	AIW_D_EMPIRICAL,
	AIW_D_BETA
} aiwi_dist_kind;

struct aiwi_dist {
	aiwi_dist_kind kind;
	double a, b;       /* parameters in GSL's convention (see dist.c) */
	double *data;      /* empirical: sorted samples */
	size_t n;
	char *spec;        /* canonical text */
	char *path;        /* empirical: the file read, as opened (relative names
	                      resolved against the scenario's directory) */
};

/* Parse "lognormal(median=1024,sigma=0.8)" etc. into a new dist, or fail
 * with a message in errbuf.  Scale arguments parse with the units of
 * unit_type (an aiwi_ptype: "uniform(10s,30s)"); shape arguments are plain
 * numbers.  base_dir resolves a relative empirical(file). */
aiw_status aiwi_dist_parse(const char *text, int unit_type, const char *base_dir, aiwi_dist **out,
                          char *errbuf, size_t errlen);
aiwi_dist *aiwi_dist_clone(const aiwi_dist *d);
void aiwi_dist_free(aiwi_dist *d);
double aiwi_dist_sample(const aiwi_dist *d, gsl_rng *r);
double aiwi_dist_mean(const aiwi_dist *d);
double aiwi_dist_variance(const aiwi_dist *d);
/* Q(q): the x with P(X > x) = q (upper-tail quantile), accurate for tiny q. */
double aiwi_dist_quantile_upper(const aiwi_dist *d, double q);
/* Lower support bound (min possible value). */
double aiwi_dist_min(const aiwi_dist *d);
/* One draw of max of n iid draws, in O(1): Q_upper(-expm1(log(U)/n)). */
double aiwi_dist_sample_max(const aiwi_dist *d, gsl_rng *r, double n);
/* P(X < x) and P(X > x) (each computed directly, accurate in its tail). */
double aiwi_dist_lower(const aiwi_dist *d, double x);
double aiwi_dist_upper(const aiwi_dist *d, double x);

/* Counts (tokens): x rounded half up, at least 1 and at most 1e9 (NaN: 1). */
uint32_t aiwi_round_count(double x);
/* aiwi_round_count(X) for X of a distribution, drawn in O(1) by Walker's
 * alias method (gsl_ran_discrete) over the counts 1 .. K - 1, whose
 * probabilities are differences of the distribution function, and the
 * counts >= K by inversion of the upper tail (K: about the smallest with
 * P(X >= K - 1/2) <= tail, 0 < tail < 1).  *out = NULL (no table: draw and
 * round) for const, empirical and gamma, and when K would exceed kmax (or
 * AIW_COUNT_KMAX). */
typedef struct aiwi_count_table aiwi_count_table;
aiw_status aiwi_count_table_new(const aiwi_dist *d, size_t kmax, double tail,
                               aiwi_count_table **out);
uint32_t aiwi_count_draw(const aiwi_count_table *t, gsl_rng *r);
/* The draw in two steps, for callers that draw ahead and prefetch: the
 * table's entry for a 32-bit uniform word x (aiwi_count_slot: the column
 * floor(x K / 2^32)), then the count it gives (aiwi_count_pick; 0: the
 * tail, drawn by aiwi_count_tail with more uniforms).  With x an MT19937
 * word, pick and tail are gsl_ran_discrete on GSL's table and the same
 * word, then the tail's inversion: the same count for the same state. */
#define AIW_COUNT_ABITS 20
#define AIW_COUNT_KMAX ((size_t)1 << AIW_COUNT_ABITS)
struct aiwi_count_table {
	/* column c: GSL's F[c] as the integer threshold T = ceil(F[c] 2^32),
	 * u < F[c] being x < T for u = x / 2^32 (exact: x K < 2^52), packed
	 * with GSL's alias A[c] as T << AIW_COUNT_ABITS | A[c]; 8 bytes a
	 * column (GSL's two arrays take 16) */
	uint64_t *e;
	uint64_t k;   /* counts 1 .. k - 1 tabulated; column 0's own: the tail */
	double qtail; /* P(X >= k - 1/2) */
	aiwi_dist *d;  /* a copy, for the tail */
	double *p;    /* the law, as tabulated (index 0: qtail) */
};
static inline const uint64_t *aiwi_count_slot(const aiwi_count_table *t, uint32_t x)
{
	return &t->e[((uint64_t)x * t->k) >> 32];
}
static inline uint32_t aiwi_count_pick(const aiwi_count_table *t, uint32_t x)
{
	const uint64_t *s = aiwi_count_slot(t, x);
	uint64_t e = *s;
	return x < (e >> AIW_COUNT_ABITS) ? (uint32_t)(s - t->e)
	                                  : (uint32_t)(e & (AIW_COUNT_KMAX - 1));
}
uint32_t aiwi_count_tail(const aiwi_count_table *t, gsl_rng *r);
/* K, and P(count = n) as tabulated (n = 0 or n >= K: the tail's mass; the
 * table is GSL's gsl_ran_discrete_preproc of P(0 .. K - 1)). */
size_t aiwi_count_table_k(const aiwi_count_table *t);
double aiwi_count_table_prob(const aiwi_count_table *t, uint32_t n);
void aiwi_count_table_free(aiwi_count_table *t);

/* ======================================================================== */
/* param.c: typed parameter registry                                         */
/* ======================================================================== */
typedef enum aiwi_ptype {
	AIW_PT_INT,
	AIW_PT_REAL,
	AIW_PT_DURATION,
	AIW_PT_RATE,
	AIW_PT_SIZE,
	AIW_PT_BANDWIDTH,
	AIW_PT_POWER,
	AIW_PT_ENERGY,
	AIW_PT_MONEY,
	AIW_PT_FLOPS,
	AIW_PT_ENUM,
	AIW_PT_STRING,
	AIW_PT_DIST,
	AIW_PT_BOOL
} aiwi_ptype;

enum {
	AIW_PF_RUNTIME = 1u << 0, /* may change during a run (param_changed hook) */
	AIW_PF_AUTO = 1u << 1,    /* accepts "auto" (stored as NAN) */
	AIW_PF_NONE = 1u << 2,    /* accepts "none"/"" meaning unset */
	AIW_PF_EXCL_MIN = 1u << 3, /* range open at min: value must be > min */
	AIW_PF_PATH = 1u << 4,     /* a file name: relative ones resolve against the
	                              scenario file's directory when loaded from one */
	AIW_PF_ALL = 1u << 5,      /* a count where 0 means no bound: accepts "all"
	                              (stored as 0), and 0 formats as "all" */
	AIW_PF_U64 = 1u << 6       /* an exact integer in [0, 2^64 - 1] (a seed): text
	                              is its canonical decimal digits, d its nearest
	                              double; anything not exactly such an integer
	                              is refused */
};

typedef struct aiwi_param_def {
	const char *key;     /* name within the component: "max_batch" */
	const char *full;    /* registry name: "inference.NAME.max_batch" */
	aiwi_ptype type;
	const char *def;     /* default as text; NULL means unset */
	const char *unit;    /* "s", "1/s", "B", "W", "USD", ... ("" if none) */
	double min, max;     /* numeric range, inclusive unless AIW_PF_EXCL_MIN */
	const char *choices; /* enum: "ring|tree|hierarchical" */
	unsigned flags;
	const char *doc;     /* one line */
	int dist_units;      /* for AIW_PT_DIST: aiwi_ptype of scale arguments */
} aiwi_param_def;

typedef struct aiwi_value {
	double d;       /* numeric value in SI units; enum index; NAN for auto */
	char *s;        /* text as given (strings, enums, canonical text) */
	aiwi_dist *dist; /* for AIW_PT_DIST */
	bool set;       /* false: unset (no default, or "none") */
	bool given;     /* set through aiw_sim_set or a scenario, not the default */
	bool is_auto;
} aiwi_value;

/* A summary metric a kind publishes (aiwi_metric): one row describes it to
 * every reader (aiw_metric_info, the CLI summary, the Prometheus exposition,
 * the manual).  unit: "W", "W/s", "kWh", "USD", "s", "1/s", "B", "B/s", "h" or "1";
 * flags: AIW_METRIC_* of aiworkload.h.  A metric with an operator name
 * (prom) is exported under it too, with extra labels prom_labels
 * ("outcome=\"completed\"" or NULL), type prom_type and HELP prom_help;
 * every metric is exported under its generic name
 * aiworkload_<kind>_<key in base units>. */
typedef struct aiwi_metric_def {
	const char *key;   /* "step_time_mean_s" */
	const char *label; /* in the summary table ("Step time (mean)") */
	const char *unit;
	unsigned flags;
	const char *doc;   /* one line, for the manual */
	const char *prom, *prom_type, *prom_labels, *prom_help;
} aiwi_metric_def;

/* A curve a kind records (aiwi_rec_add).  Exported to Prometheus under the
 * operator name prom when set: its last point as a gauge (AIWI_CURVE_GAUGE),
 * or, in the promtool input only, integrated into a counter
 * (AIWI_CURVE_COUNTER_OF_RATE), or a count since the start already, typed
 * counter in OpenMetrics (AIWI_CURVE_COUNTER; prom ends in _total). */
enum { AIWI_CURVE_GAUGE, AIWI_CURVE_COUNTER_OF_RATE, AIWI_CURVE_COUNTER };
typedef struct aiwi_curve_def {
	const char *key;  /* "queue_length" */
	const char *unit; /* "1", "W", "1/s", ... */
	const char *prom;
	const char *prom_labels; /* extra labels, or NULL */
	int prom_mode;
	bool promtest_only;      /* not in the final exposition */
	bool comp_only;          /* only the component label (as `sum by (component)` leaves) */
	const char *prom_help;
} aiwi_curve_def;

/* A latency histogram a kind keeps (Prometheus histograms with `le`
 * buckets, export.c): its key for the kind's histogram hook, the family's
 * name and HELP text. */
typedef struct aiwi_hist_def {
	const char *key;  /* "ttft" */
	const char *prom; /* "inference_time_to_first_token_seconds" */
	const char *help;
} aiwi_hist_def;
typedef struct aiwi_hist aiwi_hist;

/* The run's estimate (limits.c) that a kind's estimate hook adds to: work
 * items (expected counts of events), memory (bytes), events pending at once,
 * racks.  `what' is a printf format whose one '@' stands for the number
 * (in the refusal: "inference.chat: about 8.6e13 requests (rate 1e9/s x
 * 1 d)"), `fix' the change that lowers it ("" when none). */
typedef struct aiwi_estimate aiwi_estimate;
void aiwi_est_work(aiwi_estimate *E, double n, const char *fix, const char *what, ...)
	AIW_PRINTF(4, 5);
void aiwi_est_memory(aiwi_estimate *E, double bytes, const char *fix, const char *what, ...)
	AIW_PRINTF(4, 5);
void aiwi_est_pending(aiwi_estimate *E, double events);
/* racks the site keeps a peak for, and racks and replica slots each sample
 * tick visits */
void aiwi_est_racks(aiwi_estimate *E, double site_racks, double tick_units);
/* the site racks the components added so far (the aggregator's hook runs
 * after every other one: all of them) */
double aiwi_est_site_racks(const aiwi_estimate *E);
double aiwi_est_duration(const aiwi_estimate *E); /* sim.duration (s) */
/* A configuration the estimate must refuse at once with the message on sim
 * (a trace the reader would read whole before failing). */
void aiwi_est_refuse(aiwi_estimate *E, aiw_status st);
bool aiwi_est_refused(const aiwi_estimate *E);
/* Numbers and durations as the messages write them: "8.6e16", "86400",
 * "1 d"; buf of at least 64 bytes. */
const char *aiwi_est_num(char *buf, size_t len, double x);
const char *aiwi_est_dur(char *buf, size_t len, double s);

/* What a kind is, as the core and the other layers ask it (aiwi_kind.flags).
 * The core reads these bits, never a kind's name or descriptor. */
enum {
	/* one instance, created with every simulation, addressed without a
	 * name ("site.pue"): sim, site */
	AIWI_KIND_SINGLETON = 1u << 0,
	/* sums what the others publish: sampled after them at every tick,
	 * finished after them at every run call, and its estimate hook runs
	 * after theirs (the site) */
	AIWI_KIND_AGGREGATOR = 1u << 1,
	/* takes part in the power and cost accounting: keeps energy_j,
	 * busy_gpu_s, paid_gpu_s and cost_usd, which the recorder turns into
	 * <prefix>.power_w, .utilization and .cost_rate_usd_per_h and the
	 * aggregator sums (needs a sample hook) */
	AIWI_KIND_ACCOUNTED = 1u << 2,
	/* its components keep kbusy_gpu_s, flops and peak_flop_s: the recorder
	 * adds their <prefix>.kernel_busy and .tensor_activity (rows
	 * AIWI_TELEMETRY_CURVES of its table) */
	AIWI_KIND_TELEMETRY = 1u << 3,
	/* a workload model (runs jobs or serves requests on GPUs of its own):
	 * what a study's copy of a scenario keeps */
	AIWI_KIND_WORKLOAD = 1u << 4,
	/* a steady base load (a synchronous training job): stacked plots draw
	 * it at the bottom */
	AIWI_KIND_BASELOAD = 1u << 5,
};

/* What another layer may ask a component through its kind's query hook,
 * instead of reading its parameters by name.  A kind answers what it
 * knows; the default (no hook, or a question the hook does not take) is
 * "unknown". */
typedef enum aiwi_query {
	/* num: the IT power one of its GPUs is rated for, W (the catalog GPU's
	 * TDP + its node's nameplate / GPUs per node) */
	AIWI_Q_NAMEPLATE_PER_GPU_W,
	/* num: the GPUs of a commitment of its own (committed_gpus) */
	AIWI_Q_COMMITTED_GPUS,
	/* num: its pricing mode (AIW_PRICING_* of site/cost.h) */
	AIWI_Q_PRICING,
	/* text: the catalog name of the GPU it runs on */
	AIWI_Q_GPU_TYPE,
	/* text: the key of its replica-count curve ("replicas": the curve
	 * <prefix>.replicas) */
	AIWI_Q_REPLICA_CURVE,
	/* num: its network and storage price per provisioned GPU-second,
	 * USD/s (capex over the lifetime plus the hourly price) */
	AIWI_Q_NETWORK_RATE,
	AIWI_Q_STORAGE_RATE,
	/* num: its place in the site's capping order (capping_priority: the
	 * lowest is capped first); unknown: the site's controller cannot cap it */
	AIWI_Q_CAPPING_PRIORITY,
} aiwi_query;
typedef struct aiwi_answer {
	double num;
	const char *text; /* owned by the component; valid while it is unchanged */
} aiwi_answer;

/* A component kind: its parameter table, metric and curve tables and model
 * hooks.  Every kind is one line of lib/kinds.def. */
/* A parameter that has an effect only in some modes of its component (the
 * values of enum parameters of the same component).  when: alternatives
 * separated by "; ", each conditions separated by spaces that must all
 * hold, "MODE=V1|V2": the enum parameter MODE holds V1 or V2.  Example:
 * "autoscaler=hpa|predictive metric=concurrency|queue|rps; autoscaler=kpa".
 * A run warns of every such parameter given whose modes do not hold
 * (aiwi_param_modes_check); aiw_param_mode shows when. */
typedef struct aiwi_param_mode {
	const char *key;
	const char *when;
} aiwi_param_mode;

/* Warn (aiwi_warn) of every parameter of c given but without effect in
 * the modes c is in (its kind's `modes`). */
void aiwi_param_modes_check(aiwi_comp *c);

/* The first parameter of c given but without effect in the modes c is in:
 * "KEY = VALUE has no effect: it applies only when WHEN, and MODE = NOW"
 * in msg (len bytes), true; false when every given one has an effect. */
bool aiwi_param_modes_first(const aiwi_comp *c, char *msg, size_t len);

typedef struct aiwi_kind {
	const char *name;             /* "training" */
	const aiwi_param_def *params;
	size_t nparams;
	unsigned flags;               /* AIWI_KIND_* */
	size_t state_size;            /* unused by the core; for kinds' use */
	/* summary metrics, in the order of the summary table (a component that
	 * takes part in the accounting also has the site's per-component rows,
	 * AIWI_ACCOUNT_METRICS_* of site/cost.h, in its table) */
	const aiwi_metric_def *metrics; /* ended by a row whose key is NULL */
	/* curves of its own (the standard curves of an accounted component,
	 * aiwi_component_curves, are not repeated here), ended likewise */
	const aiwi_curve_def *curves;
	/* latency histograms it keeps, ended by a row whose key is NULL, and
	 * the hook that returns one of a started component (NULL: none yet) */
	const aiwi_hist_def *histograms;
	const aiwi_hist *(*histogram)(const aiwi_comp *c, const char *key);
	/* up-front estimate of the run's work and memory from the parameters,
	 * before start: calls the derivations start runs; parameters start
	 * would reject add nothing (its message reaches the user) */
	void (*estimate)(aiwi_comp *c, aiwi_estimate *E);
	/* run start: cross-check parameters, build state, schedule first events */
	aiw_status (*start)(aiwi_comp *c);
	/* sample tick at time t: bring integrals up to t and report (see below) */
	void (*sample)(aiwi_comp *c, double t);
	/* end of a run call at time t: bring integrals to t, publish metrics */
	void (*finish)(aiwi_comp *c, double t);
	/* a runtime parameter changed while running */
	aiw_status (*param_changed)(aiwi_comp *c, size_t idx);
	/* free the model state (c->state); the core frees the rest */
	void (*destroy)(aiwi_comp *c);
	/* answer a question of another layer (aiwi_query) into *out; false:
	 * unknown (NULL hook: every answer unknown).  Reads parameters and
	 * state only, before or after start. */
	bool (*query)(const aiwi_comp *c, aiwi_query q, aiwi_answer *out);
	/* parameters that have an effect only in some modes, ended by a row
	 * whose key is NULL (NULL: none) */
	const aiwi_param_mode *modes;
	/* the site's capping controller (lib/site/capping.c): cap every GPU
	 * of c at `frac` of its TDP from now on, by the kind's own cap law (a
	 * training job from its next step); frac >= 1 releases it.  NULL: the
	 * kind is never capped by the site */
	void (*site_cap)(aiwi_comp *c, double frac);
} aiwi_kind;

struct aiwi_comp {
	const aiwi_kind *kind;
	aiw_sim *sim;
	char *name;     /* "pretrain" ("" for singletons) */
	char *prefix;   /* "training.pretrain" or "site" */
	char *origin;   /* "FILE:LINE" of the scenario section that declared it first, or NULL */
	aiwi_value *v;   /* one per kind->params entry */
	unsigned char *late; /* per parameter: set through aiw_sim_set after the scenario
	                        section that declared the component (sim.c names them
	                        in the component's start-time errors) */
	gsl_rng *rng;   /* this component's stream: seed + prefix */
	void *state;    /* model state, built by start() */
	size_t order;   /* creation order */
	/* standard accounting, cumulative since t=0, kept by the model and
	 * read by the recorder at each tick (see series.c) */
	double energy_j;      /* IT energy of the component's GPUs and nodes */
	double busy_gpu_s;    /* GPU-seconds doing useful work */
	double paid_gpu_s;    /* GPU-seconds provisioned (paid) */
	double cost_usd;      /* money spent (hardware + energy at PUE) */
	/* at a commitment (cost.h, committed_gpus): provisioned GPU-seconds
	 * above it and their on-demand cost, committed GPU-seconds not
	 * provisioned and their cost (both within cost_usd) */
	double excess_gpu_s, excess_usd, stranded_gpu_s, stranded_usd;
	double gpus;          /* GPUs currently provisioned (for utilisation) */
	/* GPU telemetry as nvidia-smi and DCGM report it (aiworkload(7)
	 * "Utilisation"): a model that sets peak_flop_s > 0 keeps them */
	double kbusy_gpu_s;   /* GPU-seconds with a kernel running (utilization.gpu) */
	double flops;         /* hardware FLOPs executed (lost work included) */
	double peak_flop_s;   /* dense peak FLOP/s of one GPU at the precision run */
	/* filled by the recorder at each tick from the deltas of the above:
	 * interval averages over the tick that just ended */
	double tick_power_w, tick_util, tick_cost_rate, tick_gpus, tick_kbusy, tick_tensor;
	double prev_energy_j, prev_busy_gpu_s, prev_paid_gpu_s, prev_cost_usd;
	double prev_kbusy_gpu_s, prev_flops;
	int series_base;      /* recorder id of <prefix>.power_w (then util, cost,
	                       * and, for a telemetry kind, kernel_busy and
	                       * tensor_activity) */
	bool accounted;       /* takes part in power/cost accounting (an
	                       * AIWI_KIND_ACCOUNTED kind's, from the recorder's
	                       * start of a run) */
};

/* Kinds known to the library (lib/kinds.def, NULL-terminated; the
 * descriptors themselves, aiwi_kind_NAME, are named in lib/kinds.c alone:
 * the core tells kinds apart by their flags). */
extern const aiwi_kind *const aiwi_kinds[];
const aiwi_kind *aiwi_kind_find(const char *name);
/* k has one of the AIWI_KIND_* bits of flag */
static inline bool aiwi_kind_is(const aiwi_kind *k, unsigned flag)
{
	return (k->flags & flag) != 0;
}
/* Ask component c (its kind's query hook); false, *out untouched: unknown. */
bool aiwi_comp_query(const aiwi_comp *c, aiwi_query q, aiwi_answer *out);
/* Cap component c's GPUs at frac of their TDP (its kind's site_cap hook;
 * frac >= 1: release); false, nothing done: its kind takes no such cap. */
bool aiwi_comp_site_cap(aiwi_comp *c, double frac);
/* The standard curves of every component that takes part in the accounting
 * (<prefix>.power_w, .utilization, .cost_rate_usd_per_h, recorded by
 * series.c, and <prefix>.cost_usd, by the site). */
extern const aiwi_curve_def aiwi_component_curves[]; /* ended by a NULL key */
/* The Prometheus form of a metric or curve key, base units spelled out
 * ("step_time_mean_s" -> "step_time_mean_seconds"), into out; returns the
 * factor from the library's value to the exported one (catalog.c). */
double aiwi_prom_key(const char *key, char *out, size_t len);
/* Rows of a kind's metric and curve tables. */
size_t aiwi_kind_metric_count(const aiwi_kind *k);
size_t aiwi_kind_curve_count(const aiwi_kind *k);
/* The row of key in a metric or curve table, or NULL. */
const aiwi_metric_def *aiwi_metric_def_find(const aiwi_kind *k, const char *key);
const aiwi_curve_def *aiwi_curve_def_find(const aiwi_kind *k, bool component, const char *key);

/* Parse text into v according to def; errbuf gets "expects ..." text. */
aiw_status aiwi_value_parse(const aiwi_param_def *def, const char *text, const char *base_dir,
                           aiwi_value *v, char *errbuf, size_t errlen);
void aiwi_value_free(aiwi_value *v);
aiw_status aiwi_value_copy(aiwi_value *dst, const aiwi_value *src);
/* Canonical text of a value into buf. */
void aiwi_value_format(const aiwi_param_def *def, const aiwi_value *v, char *buf, size_t len);
const char *aiwi_ptype_name(aiwi_ptype t);
/* The shortest decimal text that reads back to exactly x. */
void aiwi_format_double(double x, char *buf, size_t len);
/* Parse a number with units of the given type ("90d", "3.35TB/s"). */
aiw_status aiwi_parse_units(aiwi_ptype t, const char *text, double *out, char *errbuf,
                           size_t errlen);
size_t aiwi_kind_param_index(const aiwi_kind *k, const char *key); /* SIZE_MAX if none */
/* The closest key of kind k to a misspelt key (edit distance), or NULL. */
const char *aiwi_kind_suggest(const aiwi_kind *k, const char *key);
size_t aiwi_edit_distance(const char *a, const char *b);

/* Shorthands for models reading their parameters by index. */
static inline double aiwi_p(const aiwi_comp *c, size_t i) { return c->v[i].d; }
static inline const aiwi_dist *aiwi_pd(const aiwi_comp *c, size_t i) { return c->v[i].dist; }
static inline const char *aiwi_ps(const aiwi_comp *c, size_t i) { return c->v[i].s; }
static inline bool aiwi_pset(const aiwi_comp *c, size_t i) { return c->v[i].set; }
/* the parameter was set (aiw_sim_set, a scenario), even to its default */
static inline bool aiwi_pgiven(const aiwi_comp *c, size_t i) { return c->v[i].given; }

/* ======================================================================== */
/* sim.c: components, run loop, metrics                                      */
/* ======================================================================== */
/* Find or create a component.  kind NULL searches by prefix only. */
/* For tests: the entries a lookup compares, of the component (kind, name)
 * when kind is given, else of the metric metric_name (hash tables: about
 * 1 to 2 at the tables' load, whatever the number of entries). */
size_t aiwi_sim_lookup_probes(const aiw_sim *sim, const char *kind, const char *name,
                              const char *metric_name);
aiw_status aiwi_comp_get(aiw_sim *sim, const char *kind, const char *name, bool create,
                         aiwi_comp **out);
size_t aiwi_ncomps(const aiw_sim *sim);
aiwi_comp *aiwi_comp_at(const aiw_sim *sim, size_t i);
/* the one component of an AIWI_KIND_AGGREGATOR kind (the site) */
aiwi_comp *aiwi_aggregator(const aiw_sim *sim);
aiwi_comp *aiwi_simcomp(const aiw_sim *sim);
aiwi_engine *aiwi_sim_engine(aiw_sim *sim);
double aiwi_now(const aiw_sim *sim);
double aiwi_end(const aiw_sim *sim);   /* sim.duration */
/* sim.duration, sim.sample_interval and sim.series_keep as configured (0
 * when unset), before a run too */
void aiwi_run_conf(const aiw_sim *sim, double *duration, double *interval, double *keep);
/* Schedule an internal event; returns handle (0 on ENOMEM, recorded). */
uint64_t aiwi_at(aiw_sim *sim, double t, aiwi_evfn fn, void *ctx, uint64_t arg);
bool aiwi_cancel(aiw_sim *sim, uint64_t handle);
/* Publish a summary metric "prefix.key" (replaces an existing value). */
aiw_status aiwi_metric(aiw_sim *sim, const char *prefix, const char *key, double value);
/* Derive a component stream seed from (sim seed, text). */
uint64_t aiwi_stream_seed(uint64_t seed, const char *text);
/* Directory of the scenario file being loaded ("" otherwise). */
const char *aiwi_base_dir(const aiw_sim *sim);
/* Mark a fatal model error during a run: the run call returns it. */
void aiwi_fail(aiw_sim *sim, aiw_status code);
/* The sample callback (aiw_sim_set_sample_callback) and its payload, or
 * NULL when none is set. */
aiw_sample_fn aiwi_sample_fn(const aiw_sim *sim, void **payload);

/* ======================================================================== */
/* series.c: recorder of fixed-interval curves                               */
/* ======================================================================== */
/* Register a curve; returns its id (>= 0) or a negative status. */
int aiwi_rec_add(aiw_sim *sim, const char *name, const char *unit);
/* Give the value of curve id for the tick being recorded (gauges; interval
 * averages are computed by the model from its own integrals). */
void aiwi_rec_put(aiw_sim *sim, int id, double value);
/* Interval length of the current tick (s) and its start. */
double aiwi_rec_dt(const aiw_sim *sim);

typedef struct aiwi_recorder aiwi_recorder;
aiwi_recorder *aiwi_rec_new(void);
void aiwi_rec_free(aiwi_recorder *r);
void aiwi_rec_clear(aiwi_recorder *r);
/* Called by sim.c: start of a run (keep: sim.series_keep, 0 keeps every
 * point, else a ring of at most keep points), one tick, series access. */
aiw_status aiwi_rec_begin(aiw_sim *sim, double interval, size_t keep);
void aiwi_rec_tick(aiw_sim *sim, double t);
size_t aiwi_rec_count(const aiwi_recorder *r);
const char *aiwi_rec_name(const aiwi_recorder *r, size_t i);
const char *aiwi_rec_unit(const aiwi_recorder *r, size_t i);
int aiwi_rec_find(const aiwi_recorder *r, const char *name);
/* Points kept per curve (<= series_keep when that is set). */
size_t aiwi_rec_length(const aiwi_recorder *r);
/* Points allocated per curve (what the memory of the curves is). */
size_t aiwi_rec_capacity(const aiwi_recorder *r);
/* Points recorded and no longer kept (streamed out of the ring). */
uint64_t aiwi_rec_dropped(const aiwi_recorder *r);
/* Start of the interval the oldest kept point averages: 0 unless points
 * were dropped. */
double aiwi_rec_window_start(const aiwi_recorder *r);
/* The `le` bounds (s) of the latency histograms' exported buckets, from
 * 5 ms to 2 min (export.c writes them; the recorder snapshots them). */
#define AIWI_NLE 14
extern const double aiwi_le_bounds[AIWI_NLE];
/* Snapshots of the kinds' latency histograms at every tick, for the
 * timestamped OpenMetrics series: per tick, for each component with
 * histograms (creation order) and each of its families (table order),
 * AIWI_NLE cumulative counts at aiwi_le_bounds, the count and the sum
 * (NaN where the hook gives no histogram).  Kept when sim.histogram_series
 * is on and every curve point is kept (sim.series_keep = 0); *ticks is 0
 * otherwise.  Tick k is at aiwi_rec_times()[k]. */
const double *aiwi_rec_hist_snapshots(const aiwi_recorder *r, size_t *per_tick, size_t *ticks);
/* Whether a run keeps those snapshots: sim.histogram_series = true and
 * sim.series_keep = all. */
bool aiwi_hist_series(const aiw_sim *sim);
/* The kept times and the values of curve i, oldest first, length
 * aiwi_rec_length.  Not const: a ring that wrapped is rotated in place, so
 * the pointers are valid until the next tick. */
const double *aiwi_rec_times(aiwi_recorder *r);
const double *aiwi_rec_values(aiwi_recorder *r, size_t i);
aiwi_recorder *aiwi_sim_recorder(aiw_sim *sim);
/* A call that runs user callbacks outside aiw_sim_run (aiw_inference_capacity)
 * holds sim as a run does: aiw_sim_free from a callback is deferred.
 * aiwi_sim_hold returns the state to give back; aiwi_sim_release gives it
 * back and returns true when it freed sim (the caller then touches nothing
 * of it). */
bool aiwi_sim_hold(aiw_sim *sim);
bool aiwi_sim_release(aiw_sim *sim, bool held);
bool aiwi_sim_freeing(const aiw_sim *sim); /* aiw_sim_free deferred */

/* ======================================================================== */
/* integrals of piecewise-constant quantities (exact energy and busy time)   */
/* ======================================================================== */
typedef struct aiwi_integral {
	double t;     /* time of last update */
	double value; /* current level */
	double sum;   /* integral from 0 to t */
} aiwi_integral;

/* The end of a run call publishes metrics at a time that is generally not
 * a sample tick: the integrals a kind's finish hook advances to that time
 * are logged first (while aiwi_int_peek is set, by sim.c) and put back
 * afterwards, so that a run stepped by aiw_sim_run_until adds exactly the
 * same terms, in the same order, as one aiw_sim_run: the sums are split
 * only at level changes and sample ticks, however a run is stepped. */
typedef struct aiwi_int_saved {
	aiwi_integral *x;
	aiwi_integral was;
} aiwi_int_saved;
typedef struct aiwi_int_log {
	aiwi_int_saved *v;
	size_t n, cap;
	bool lost; /* a save failed for memory: that integral stays advanced */
} aiwi_int_log;
#if defined(__GNUC__)
#define AIW_TLS_IE __attribute__((tls_model("initial-exec")))
#else
#define AIW_TLS_IE
#endif
extern _Thread_local aiwi_int_log *aiwi_int_peek AIW_TLS_IE;
void aiwi_int_save(aiwi_integral *x);

static inline void aiwi_int_init(aiwi_integral *x, double t, double value)
{
	x->t = t;
	x->value = value;
	x->sum = 0.0;
}
/* Advance the integral to time t at the current level. */
static inline void aiwi_int_advance(aiwi_integral *x, double t)
{
	if (t > x->t) {
		if (AIW_UNLIKELY(aiwi_int_peek != NULL))
			aiwi_int_save(x);
		x->sum += x->value * (t - x->t);
		x->t = t;
	}
}
/* Change the level at time t. */
static inline void aiwi_int_set(aiwi_integral *x, double t, double value)
{
	if (AIW_UNLIKELY(aiwi_int_peek != NULL))
		aiwi_int_save(x);
	aiwi_int_advance(x, t);
	x->value = value;
}

/* ======================================================================== */
/* scenario.c                                                                */
/* ======================================================================== */
aiw_status aiwi_load(aiw_sim *sim, const char *text, size_t len, const char *origin,
                     const char *base_dir);

#endif /* AIW_INTERNAL_H */
