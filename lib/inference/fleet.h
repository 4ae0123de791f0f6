/*
 * fleet.h - the private header of the inference fleet: its state, its
 * state machine and its invariants.  Included by serving.c only, which is
 * one translation unit with the fleet_*.c files it includes (the hot path
 * is inlined across them as if they were one file); doc/inference.md tells
 * the same in longer form and maps each concern to its file.
 *
 * ---- the replica state machine ----
 * A fleet is an array of replica slots.  A slot's `state`:
 *
 *     FREE --add(cold start > 0)--> LOADING --load done--> READY
 *     FREE --add(cold start = 0)--> LOADING --at once---> READY
 *     LOADING --remove--> FREE                   (the load is cancelled)
 *     READY --remove--> DRAINING --nothing held--> FREE
 *                       (at once when it is idle: the same instant)
 *     LOADING, READY, DRAINING --fail--> FREE    (its requests requeued, or
 *                       dropped by a replica failure: fleet_failure.c)
 *
 * A new slot (slot_new) starts FREE.  Every transition goes through
 * set_state (below), which moves the slot's state and state_count
 * together and, in a build configured with --enable-checks, refuses (and
 * fails the run on) one that is not an arrow of this diagram
 * (STATE_ARROWS).  Its callers: fleet_lifecycle.c (aiwi_serving_add/
 * remove_replica, make_ready) and fleet_events.c (retire, for remove,
 * fail and go_idle).  Only READY slots are in
 * the ready set (routable); a DRAINING one finishes every request it holds,
 * queued ones too, and takes nothing new.  Freed slots are reused lowest
 * index first; slot s holds GPUs [s g, s g + g) of the component.
 *
 * What a provisioned slot is doing, `span_kind` (SPAN_*):
 *   SPAN_LOAD     LOADING: its weights load; its agenda entry is the end.
 *   SPAN_NONE     READY or DRAINING, nothing in its batch: idle, no agenda
 *                 entry (dynamic batching: maybe a batch timer).
 *   SPAN_RUN      a span (`current`, span.h; its times from the roofline or
 *                 the iteration model, fleet_timing.c) runs, the prefill of
 *                 what was admitted at its start then decode iterations;
 *                 its agenda entry is the span's end,
 *                 start + prefill_s + T(end_iteration).
 *   SPAN_SERVICE  service = DIST: requests hold batch slots for sampled
 *                 times; its agenda entry is the earliest of them.
 * At a span end (replica_event) the departures leave, what fits is
 * admitted and the next span starts (step), or the replica goes idle.
 *
 * Power `phase` (PH_*), per GPU from the catalog: OFF (FREE), LOADING,
 * IDLE (SPAN_NONE), DECODE (SPAN_RUN and SPAN_SERVICE).  There is no
 * prefill phase: a span's prefill part is accounted as DECODE plus a
 * surcharge booked ahead (below), so that a span is one phase change at
 * most, not two.
 *
 * ---- the agenda ----
 * Every slot's pending end (SPAN_LOAD, SPAN_RUN, SPAN_SERVICE) is a key in
 * a winner tree over the slots (fleet_agenda.c); the earliest of it and the
 * next arrival stand behind one engine event, the master (fleet_events.c),
 * which runs every one of them due before the sim's other events in place.
 *
 * ---- the eager-cut protocol (continuous batching; fleet_eager.c) ----
 * A request routed to a replica in the middle of a span joins at the next
 * iteration boundary tb: the span is cut there (kick).  Lazily, tb is an
 * event of its own (the span's end_iteration becomes the boundary's and
 * `cut` is set).  Eagerly, the cut does tb's work at the arrival:
 *   cut     (eager_cut)    the running span, kept as `cut_span`, ends after
 *           kb iterations; the replica's iteration clock and context move to
 *           tb (their values before, kept); what tb would admit is admitted
 *           now into the running set (its requests listed, in admission
 *           order, in `pending_admissions`; `pending_from_queue` of them
 *           came from the replica's routed queue); the next span `current`,
 *           from current.start = tb, is computed and its end scheduled;
 *           `pending` is set.
 *   merge   (eager_merge)  an arrival before tb: tb admits it too if it
 *           fits; the pending span is recomputed.
 *   settle  (eager_settle) the clock reaches tb (the replica's next event
 *           or arrival, a sample, the end of the run, an autoscaler read):
 *           the sums, histograms and first-token times tb would have booked
 *           are booked, in tb's order; `pending` is cleared.
 *   undo    (eager_undo)   a failure before tb, or requeued requests that
 *           must go first: the admissions go back to their queues in front,
 *           the clock and context back to cut_span's, and tb is scheduled
 *           as an event (lazily) again.
 * Until tb, what the rest of the model reads is what the lazy boundary
 * would leave: span_at() gives cut_span before current.start,
 * eager_waiting() counts the pending admissions as waiting (the waiting
 * integral already holds their request-seconds up to tb, taken back for
 * reads before tb), and the queue limit still counts the
 * pending_from_queue ones.  Each step states its entry preconditions
 * as FLEET_REQUIRE (below; checked under --enable-checks, nothing in a
 * release build).  Used when `eager` is set: continuous batching
 * (either timing), a router other than central, no timeout (a queue can
 * then only grow before tb) and max_batch <= RUN_SORTED (the running set
 * stays a sorted array, which an undo restores exactly), and neither
 * chunked prefill nor prefix caching (an admission claims cache entries,
 * fleet_prefix.c, which an undo could not give back);
 * aiwi_serving_set_eager turns it off or on for a component (tests compare
 * both ways: the same results but for the rounding of sums taken in
 * another order).
 *
 * ---- energy booked ahead and taken back (fleet_energy.c) ----
 * The phase integrals come from integer counts of GPUs per phase, exact.
 * A span's prefill of prefill_s seconds draws prefill_w instead of
 * decode_w: the surcharge (prefill_w - decode_w) x seconds per GPU
 * (prefill_surcharge, the one place of that formula) is booked when the
 * span starts (start_span; eager_settle for a pending start), into the
 * fleet's energy_booked and its racks' `booked`, by GPUs (book_prefill); a
 * read at time t inside the prefill takes back the part still ahead of t,
 * the surcharge of start + prefill_s - t (prefill_pending: totals_at and
 * the racks' samples); a failure inside the prefill takes it back for good
 * (book_prefill with sign -1).  How far a span has got at a time
 * (span_progress) is computed in one place, for totals_at and a failure's
 * bookings alike.  Tokens and FLOPs likewise: a span's first
 * tokens and prefill FLOPs are booked at its start, its decode iterations
 * at its end, and totals_at corrects both to the time asked, so
 * that energy, tokens and FLOPs are exact at every sample.
 *
 * ---- invariants (checked by fleet_check, fleet_check.c, after every event
 * in a build configured with --enable-checks) ----
 *  requests  arrived = completed + dropped + in_flight (a prefill pool:
 *            + its KV transfers done), and in_flight = waiting_count +
 *            running_count (a prefill pool: + its transfers under way); waiting_count = the central
 *            queue + every slot's routed and preempted queues;
 *            running_count = every slot's running set and prefilling
 *            FIFO (chunked prefill, fleet_chunk.c); a slot's outstanding
 *            = routed + preempted + running + prefilling; the waiting
 *            integral's level = waiting_count.
 *  chunks    prompts prefilling only with chunked prefill, none under a
 *            span's decode part (end_iteration 0 while any is), none
 *            done or reserved when the FIFO is empty; a span's mixed
 *            iteration within the budget (decodes + chunk tokens).
 *  cache     prefix caching (fleet_prefix.c): a replica's cached blocks
 *            (16 tokens each) with its running KV and the span's decode
 *            growth within kv_capacity_tokens; its LRU list's links,
 *            owners and block count agree with cached_blocks (deep).
 *  replicas  state_count[s] = slots in state s (they sum to slot_count);
 *            the ready set holds exactly the READY slots, the free heap
 *            the FREE ones; phase_count[p] = slots in phase p; spot_count =
 *            provisioned spot slots; the racks' GPUs in phase p add up to
 *            replica_gpus phase_count[p]; the paid GPUs' level =
 *            replica_gpus (provisioned slots).
 *  spans     FREE: phase OFF, span NONE, nothing held, no agenda entry;
 *            LOADING: phase LOADING, span LOAD, nothing running, an agenda
 *            entry;
 *            READY / DRAINING: span NONE with phase IDLE, nothing running
 *            and no agenda entry, or span RUN / SERVICE with phase DECODE,
 *            something running and an agenda entry: RUN's at exactly
 *            start + prefill_s + T(end_iteration) of `current`, with
 *            current.batch running, SERVICE's at its earliest end; the
 *            agenda's root is its earliest entry, and the master event is
 *            at or before the next own event; `pending` only on an
 *            eager fleet's RUN span, with pending_from_queue <=
 *            pending_admissions.length <= run_count.
 */
#ifndef AIW_INFERENCE_FLEET_H
#define AIW_INFERENCE_FLEET_H

/* GSL's inline gsl_rng_uniform & co. (its documented HAVE_INLINE): one call
 * less per draw on the hot path */
#define HAVE_INLINE 1
#include "inference/serving.h"
#include "inference/serving_params.h"
#include "inference/span.h"
#include "inference/power_model.h"
#include "inference/iteration.h"

#include "inference/autoscale/autoscale.h"
#include "site/cost.h"
#include "hw/hw.h"
#include "site/power.h"
#include "core/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_randist.h>

/* ======================================================================== */
/* state                                                                     */
/* ======================================================================== */
#define NIL UINT32_MAX
#define MAX_IN_FLIGHT (1u << 24)
#define MAX_SLOTS 1000000u
/* Request sizes are drawn by table (aiwi_count_table, the counts beyond the
 * 1 - SIZE_TABLE_TAIL quantile by inversion) when the table fits in this
 * many entries (8 bytes each).  The draws pick a uniformly random column,
 * so the table's size, not the law's shape, sets its cache footprint: at
 * 1 - 1e-2 the default sizes take 53 + 10 KB (6,580 and 1,300 counts;
 * 20,070 and 3,450 at 1 - 1e-4), and one draw in a hundred inverts the
 * tail (about 300 instructions: 3 a draw). */
#define SIZE_TABLE_MAX 65536u
#define SIZE_TABLE_TAIL 1e-2

/* Power phases of a replica (above: a span's prefill is DECODE plus the
 * surcharge booked ahead). */
enum { PH_OFF, PH_LOADING, PH_IDLE, PH_DECODE, NPH };
enum { SPAN_NONE, SPAN_LOAD, SPAN_RUN, SPAN_SERVICE };
enum { DROP_TIMEOUT, DROP_QUEUE_FULL, DROP_KV_TOO_LARGE, DROP_FAILURE, NDROP };
static const char *const DROP_NAMES[NDROP] = {"timeout", "queue_full", "kv_too_large",
                                              "failure"};

/* One request: 32 bytes, two to a cache line (the pool is aligned to one,
 * see req_alloc): the requests in flight are most of the model's memory,
 * and a request is read at random times (admission, first token,
 * completion).  Pooled, freed when it ends. */
typedef struct req {
	double arrival;
	union {
		double first_token; /* roofline: time of the first token; NAN before */
		double key;         /* service mode, before admission: its sampled service time */
	};
	/* prompt <= 1e9 (aiwi_round_count) < 2^30 */
	uint32_t prompt : 30;
	uint32_t started : 1;        /* admitted at least once (queue wait recorded) */
	uint32_t from_preempted : 1; /* pending admission taken from the preempted list */
	uint32_t output, generated;  /* tokens streamed (or due by the span's prefill end) */
	uint32_t next;               /* queue link or free list */
} req;
_Static_assert(sizeof(req) == 32, "two requests to a cache line");

/* A FIFO of requests linked by their `next`. */
typedef struct queue {
	uint32_t head, tail;
	uint32_t length;
} queue;

/* A running request: the decode iteration (roofline) or the time (service)
 * at which it ends; the key sits next to the id for cache-friendly sifts. */
typedef struct run_entry {
	double key;
	uint32_t id;
	uint32_t admission; /* admission order, modulo 2^32 (preemption victim) */
} run_entry;

/* Laid out by use: the first four cache lines hold all that an arrival
 * (routing, an eager cut, its admissions, the next span) and a span end
 * (departures, admissions, the next span) read or write; the fifth what
 * the lifecycle, dynamic batching and the central router use.  A replica's
 * lines are mostly out of the first-level cache when its next event comes
 * (300 replicas take 94 KB), so each line an event touches is a miss. */
typedef struct replica {
	/* line 1: what every event reads first */
	_Alignas(64) uint8_t state; /* AIW_REPLICA_* */
	uint8_t span_kind;          /* SPAN_* */
	uint8_t pending_from_queue; /* of pending_admissions, taken from `routed` (the
	                               queue limit counts them; eager cuts only: at
	                               most max_batch <= 64) */
	uint8_t cut : 1;            /* span already cut at a boundary for an admission */
	uint8_t pending : 1;        /* an eager cut's admissions are pending (fleet.h) */
	uint8_t rescheduled : 1;    /* scheduled while handling its own span end */
	uint8_t run_is_heap : 1;    /* the running set is a heap (else sorted) */
	uint8_t in_bucket : 1;      /* in a least-loaded bucket */
	uint8_t phase : 3;          /* PH_* */
	uint32_t run_count, run_head;
	uint32_t outstanding;       /* routed + preempted + running */
	run_entry *run;             /* running requests by key: sorted from run_head, or a
	                               heap (run_push) */
	double iterations_done;     /* decode iterations done: the clock of the roofline keys */
	double context_tokens;      /* KV context tokens of the running requests */
	span current;               /* the current span (roofline), into line 2 */
	queue routed;               /* routed here, waiting */
	queue preempted;            /* preempted / requeued: admitted before routed */
	uint32_t run_capacity;
	/* an eager cut (fleet_eager.c): `current` starts at current.start,
	 * later than the arrival that cut cut_span, the span before it, after
	 * cut_span.end_iteration iterations; its admissions are pending until
	 * the clock reaches current.start (pending_admissions: linked by next,
	 * in admission order) */
	queue pending_admissions;
	uint32_t first_admission; /* the first request admitted by the current span */
	uint32_t first_admission_before_cut;
	span cut_span;
	double iterations_before_cut, context_before_cut;
	uint32_t first_rack, last_rack; /* racks of its GPUs (see slot_racks) */
	/* line 5: the rest */
	double reserved_tokens; /* dynamic / none: tokens reserved (prompt + output) */
	uint64_t batch_timer;   /* pending dynamic-batch timer (engine handle) */
	double free_since;
	uint32_t ready_pos, idle_pos;
	uint8_t spot;
	uint8_t in_idle; /* in the central idle set */
	/* the sum of the squared prefill lengths of the current span's prefill
	 * (an eager cut's admissions while they are pending) and of cut_span's:
	 * the iteration model's prefill time, the prefills' attention FLOPs */
	double prefill_sq, prefill_sq_before_cut;
	/* chunked prefill (fleet_chunk.c): the admitted prompts still
	 * prefilling, in admission order (out of the running set, linked by
	 * next); the tokens already prefilled of the head (the only one a
	 * chunk can leave unfinished); the KV tokens they hold (prompt +
	 * tokens generated before a preemption + 1, as a decoder's context);
	 * the FLOPs and bytes of the current span's mixed iteration (booked at
	 * its start, taken back by totals_at inside it) and its tokens
	 * (decodes and chunks: at most the budget) */
	queue prefilling;
	double chunk_done, chunk_reserved, mixed_flops, mixed_dram, mixed_tokens;
	/* prefix caching (fleet_prefix.c): the cached blocks kept for reuse,
	 * evictable, and their entries (a conversation's context, a system
	 * prompt), most recently used first (pc_node links) */
	double cached_blocks;
	uint32_t lru_head, lru_tail;
} replica;
_Static_assert(offsetof(replica, current) + offsetof(span, memory_s) < 64 + 64 &&
               offsetof(replica, last_rack) + sizeof(uint32_t) <= 4 * 64 &&
               offsetof(replica, reserved_tokens) >= 4 * 64 && sizeof(replica) % 64 == 0,
               "replica's layout by cache line");

/* A rack of site.gpus_per_rack GPUs, for the site's rack power curves: 64
 * bytes, so that a span start's booking finds a replica's rack by a shift. */
typedef struct rack {
	aiwi_integral power;
	double prev_energy;          /* reported energy at the previous sample */
	aiwi_xsum booked;            /* prefill energy booked ahead (J), summed exactly */
	uint32_t gpus_by_phase[NPH]; /* GPUs of this rack per phase */
#if !defined(__SIZEOF_INT128__)
	uint32_t padding[2]; /* (aiwi_xsum is a double there) */
#endif
} rack;
_Static_assert(sizeof(rack) == 64, "a rack in 64 bytes");

typedef struct fleet {
	aiwi_comp *comp;
	aiw_sim *sim;
	aiwi_engine *engine; /* the sim's, for at() */
	aiwi_gpu_spec gpu;
	aiwi_pricing price;
	int batching, router;
	bool service_mode;
	bool eager; /* cuts admit at the arrival (eager_cut) */
	bool iteration; /* timing = iteration: span times from the iteration model */
	/* model: GPUs of a replica, parameters, weight bytes, KV bytes per
	 * token, KV capacity of a replica in tokens, its FLOP/s and bytes/s
	 * (derated), the time of one read of the weights, GPUs per rack */
	double replica_gpus, model_params, weight_bytes, kv_bytes_per_token, kv_capacity_tokens,
	        flops_per_s, bytes_per_s, weights_read_s, gpus_per_rack;
	/* per span: a prefill of T tokens takes T prefill_s_per_token
	 * (compute), a decode iteration of n requests holding S tokens
	 * max(n prefill_s_per_token, weights_read_s + S kv_s_per_token +
	 * n decode_s_per_seq) (products instead of divisions on every span
	 * start).  The roofline's decode_s_per_seq is 0; timing = iteration
	 * sets prefill_s_per_token = 0 (no compute floor: its terms add) and the
	 * other three to its folded decode c0, cv and cm + cu (span.h) */
	double prefill_s_per_token, kv_s_per_token;
	uint32_t max_batch;
	double max_delay, timeout, slo_ttft, slo_tpot, slo_e2e, response_bytes;
	uint64_t queue_limit;
	double watts[NPH];      /* W per GPU by phase, node overhead included */
	double decode_s_per_seq; /* (above) where a fifth phase's watts were: the
	                           fields below keep the offsets they were measured
	                           with (the agenda's root beside the next arrival) */
	double prefill_extra_w; /* W per GPU of prefill over decode */
	double spot_factor;
	/* requests */
	req *requests;
	uint32_t request_capacity, free_head;
	uint64_t in_flight, waiting_count, running_count;
	uint32_t admissions; /* admissions so far, modulo 2^32 */
	/* replicas */
	replica *replicas;
	uint32_t slot_count, slot_capacity;
	uint32_t *free_heap, free_count; /* min-heap of FREE slot indexes (slot_capacity long) */
	uint32_t *ready, ready_count;
	uint32_t *idle, idle_count;
	uint32_t *bucket_head, *bucket_tail, bucket_count, bucket_min;
	/* least-loaded bucket links by slot (slot_capacity long): apart from
	 * the replicas, so that moving one touches its neighbours' links, not
	 * their whole state */
	struct bucket_link {
		uint32_t prev, next;
	} *bucket_links;
	uint32_t round_robin_next;
	uint32_t state_count[4];
	uint32_t phase_count[NPH], spot_count;
	queue central;
	uint64_t central_timer;
	/* the agenda of span ends, behind one engine event */
	uint32_t *tree;     /* winner tree of slot ids: node n in 1 .. leaves - 1, leaf of
	                       slot i at leaves + i */
	uint64_t *end_keys; /* pending span end of each slot (its time's IEEE bits, or NONE) */
	uint32_t leaves;    /* a power of two >= slots */
	uint32_t depth;     /* log2 leaves (leaves <= 2^20: MAX_SLOTS) */
	uint32_t top_slot;  /* the root's winner and its key (tree[1], end_keys[tree[1]]), */
	uint64_t top_key;   /* kept beside the fleet's other hot fields by ag_set */
	uint64_t master;
	double master_time;
	bool in_master;
	double arrival_time; /* the next arrival (+inf: none), run by the master */
	/* arrivals drawn ahead (aiwi_traffic_next_n: all but a trace's), the
	 * next at ahead_times[ahead_next]; ahead_count = 0: drawn one at a time */
	uint32_t ahead_next, ahead_count;
	double *ahead_times;
	/* integrals */
	aiwi_integral energy, busy, paid, cost, waiting;
	/* committed_gpus (price.commit_gpus >= 0): non-spot GPUs provisioned
	 * above the commitment, and the commitment's GPUs not provisioned */
	aiwi_integral excess, stranded;
	aiwi_xsum energy_booked; /* prefill energy booked ahead (J), summed exactly (stepped runs
	                          * settle in another order: the same sum) */
	rack *racks;
	size_t rack_capacity, racks_used; /* allocated; touched by a replica so far */
	/* traffic */
	aiwi_traffic *traffic;
	double next_prompt, next_output;
	aiwi_count_table *prompt_sizes, *output_sizes; /* sizes by table (NULL: draw and round) */
	uint32_t prompt_word, output_word; /* the next arrival's words for them (sizes_ahead) */
	gsl_rng *rng_size, *rng_route, *rng_life;
	/* statistics */
	aiwi_hist ttft, ttft_win, tpot, e2e, wait;
	uint64_t *batch_iterations;           /* decode iterations by batch size */
	uint32_t *admitted, admitted_count;   /* requests admitted at this instant (max_batch) */
	uint64_t arrived, completed, dropped[NDROP], started, preemptions;
	uint64_t met_all, met_ttft, met_tpot, met_e2e;
	double tokens_out, tokens_prefill, flops;
	double dram_bytes; /* bytes read from GPU memory, booked like flops: a
	                      prefill's weights at its start, decode iterations
	                      as they end (totals_at corrects both to a time) */
	double tokens_in; /* prompt tokens of the admitted requests, each once */
	double kv_peak_tokens, batch_wait_max;
	uint32_t batch_peak;
	/* curves */
	int curve_arrival_rate, curve_throughput, curve_goodput, curve_ttft_p99, curve_queue_length,
	        curve_busy, curve_replicas, curve_response_bytes, curve_tokens, curve_compute,
	        curve_dram;
	uint64_t prev_arrived, prev_completed, prev_met;
	double prev_tokens, prev_waiting, prev_busy, prev_paid, prev_flops, prev_dram;
	aiwi_autoscaler *autoscale; /* its autoscaler (autoscale/controller.c owns it) */
	bool fail;
	/* timing = iteration: the folded prefill c0, cm, cu, cv (a prefill of m
	 * prompts, T tokens, Q their squared lengths: span_iteration_prefill)
	 * and the coefficients beta by phase and term (iteration.h) */
	double iter_prefill[4];
	/* attention FLOPs (as iteration.h counts them): 2 L d per squared
	 * token of a prompt, twice that per decoded token per token of its
	 * context (d: hidden_size, else timing_hidden's) */
	double attn_flops_sq;
	/* timing = iteration over pp > 1 stages: pp, and the folded decode cm
	 * (host, per sequence) and cu (GPU, per sequence) apart, for a batch of
	 * n < pp sequences, whose terms in n and S count pp / n times
	 * (iteration.h, aiwi_iter_decode_share); 0 (calloc) on the roofline,
	 * which never scales them */
	double decode_pp, decode_host_s_per_seq, decode_gpu_s_per_seq;
	/* by slot (leaves long, beside end_keys): the request at the front of
	 * the running set when the slot's end was scheduled, the first to
	 * complete at that end, fetched ahead by the master (a hint only: read
	 * for a prefetch, never for a result) */
	uint32_t *end_out;
	bool overload_warned; /* the overload warning given (aiwi_warn, once) */
	/* chunked prefill (fleet_chunk.c): on, its token budget per iteration
	 * (max_num_batched_tokens), the mixed iterations, the prefill chunks
	 * and the prompts prefilled to their end so far */
	bool chunked;
	/* sessions and prefix caching on (fleet_prefix.c; read on the hot path
	 * beside `chunked`, in its padding); a mixture of experts on
	 * (fleet_timing.c, moe_setup; there too) */
	bool sessions, prefix, moe;
	/* power_model = batch and power_cap on (below; read on the hot path
	 * beside `chunked`, in its padding) */
	bool batch_power, capped;
	bool batch_job; /* traffic = batch (fleet_budget.c; beside them, in the padding) */
	double chunk_budget;
	uint64_t mixed_iterations, prefill_chunks, chunked_prompts;
	/* speculative decoding (fleet_timing.c, spec_setup): the mode (SPEC_*),
	 * its draft tokens k per verification, acceptance a and expected tokens
	 * per verification E; a "decode iteration" of the span maths is then a
	 * token of every sequence, 1 / E of a verification step (doc/
	 * inference.md); the draft model's shape (draft mode); the FLOPs and
	 * bytes of one decode iteration per sequence, per token of context and
	 * per iteration (off: 2P, 2 attn_flops_sq, weight_bytes,
	 * kv_bytes_per_token, so that span_flops and span_dram are what they
	 * were, bit for bit); the draft's folded time per decode iteration (c0,
	 * cm, cu, cv, as the decode's); the decode and draft seconds of the
	 * decode iterations booked so far */
	int spec;
	double spec_k, spec_a, spec_E;
	double draft_params, draft_layers, draft_hidden, draft_ratio, draft_cost;
	double dec_flops_seq, dec_attn_ctx, dec_weight_bytes, dec_kv_bytes, spec_attn_factor;
	double draft_fold[4];
	double spec_decode_s, spec_draft_s;
	/* acceptance_dist (fleet_timing.c, spec_draw): its law and stream,
	 * each request's output tokens (request_capacity long: its `output`
	 * holds the decode iterations at spec_E that give its own steps), and
	 * the output tokens less the iterations of the requests completed */
	const aiwi_dist *accept_dist;
	gsl_rng *rng_accept;
	uint32_t *spec_out, spec_out_capacity;
	double spec_corr;
	/* mixture of experts (fleet_timing.c, moe_setup and moe_fold; on:
	 * `moe` above): the routed experts E and k per token, the parameters of one token's
	 * FLOPs (model_params when off, the active ones on), the bytes of one
	 * distinct expert in every MoE layer, the seconds of reading one
	 * (beta_mem included) by phase, the all-to-alls' latency and seconds
	 * per token by phase (beta_comm included), the distinct experts of a
	 * decode iteration of n sequences (max_batch + 1 long, a table: not
	 * linear in n), and the decode spans' all-to-all seconds booked so far
	 * (spec_book) */
	double moe_E, moe_k, flops_params, moe_expert_bytes, moe_read_s[2], moe_a2a[2][2];
	double *moe_distinct;
	double moe_a2a_s, moe_a2a_bytes_tok; /* (above); bytes sent per token routed */
	/* sessions and prefix caching (fleet_prefix.c): the conversations
	 * (a pool, free list through next_free), each request's conversation
	 * and cache hit (request_capacity long), the system prompts' lengths,
	 * their picker and their cache entries (slot_capacity x system_prompts),
	 * the stream of turns, think times and picks; the figures */
	struct session *sess;
	uint32_t sess_capacity, sess_free;
	struct req_side *side;
	uint32_t side_capacity, nsys;
	double *sys_tokens;
	struct pc_node *sys_nodes;
	size_t sys_nodes_capacity; /* slots with entries */
	gsl_ran_discrete_t *sys_pick;
	gsl_rng *rng_session;
	double mean_request_tokens; /* kv_aware: a queued request's KV estimate */
	uint64_t sessions_started, sessions_completed, sessions_abandoned;
	double cache_lookup_tokens, cache_hit_tokens, evicted_blocks;
	int curve_cache;
	/* power_model = batch (fleet_energy.c, batch_power_w): the decode
	 * power's logistic in log2 of the running batch, its low and high
	 * levels (W per GPU), midpoint (log2 of a batch) and width (doublings);
	 * each slot's level over the constant decode_w while it decodes (W per
	 * GPU, slot_capacity long), their sums over the fleet's and each rack's
	 * GPUs (W, exact: a level taken back cancels its booking), rack_capacity
	 * long */
	double bp_low, bp_high, bp_mid, bp_width, bp_base; /* bp_base: the constant level (W) */
	double *slot_extra_w;
	aiwi_xsum extra_w;
	aiwi_xsum *rack_extra_w;
	/* power_cap (serving.c, cap_setup): the cap and its static floor
	 * (W per GPU), the clock factors of prefill and decode (1 below the
	 * cap), the prefill GPU-seconds booked ahead and taken back as the
	 * surcharge (book_prefill) */
	double cap_w, cap_floor_w, clock_prefill, clock_decode;
	aiwi_xsum prefill_gpu_s;
	/* prefill/decode disaggregation (fleet_disagg.c): the role (DIS_*);
	 * a prefill pool's decode pool, its link (latency, bandwidth of the
	 * replica's links together), the layers of the overlap, the
	 * transfers under way, done, their bytes and seconds; a decode
	 * pool's requests received and refused (KV too large) */
	int disagg;
	bool kv_overlap;
	aiwi_comp *decode_comp;
	double kv_alpha, kv_bw, kv_layers;
	uint64_t kv_in_transit, kv_transfers, kv_received;
	double kv_transfer_bytes, kv_transfer_s;
	uint64_t prefill_spans;    /* a prefill pool's prefills (spans that admitted) */
	double tokens_prefill_reqs; /* and the requests they prefilled */
	/* replica failures (fleet_failure.c): on, the requests' fate (drop,
	 * else requeue), the failures per replica-second; the hot spares (the
	 * pool's size, those ready, those used and not yet back from repair),
	 * the replicas out for repair that return to service (a fleet without
	 * an autoscaler), each slot's failure event (fail_capacity long), the
	 * stream, the replicas in repair over time (failed_int) and the
	 * figures; ctx_lost: the context tokens of the running requests of
	 * every replica lost so far (fail_slot, whatever the cause) */
	bool failures, fail_drop;
	double fail_rate;
	uint32_t spares, spares_ready, spares_out, missing, fail_capacity;
	uint64_t *fail_ev;
	gsl_rng *rng_fail;
	aiwi_integral failed_int, spare_int; /* replicas in repair, spares ready */
	double prev_failed, ctx_lost, tokens_lost_failure;
	uint64_t replica_failures, requeued_failure, spares_used;
	int curve_failed;
	/* traffic = batch (fleet_budget.c): the job's requests, its deadline
	 * (s; +inf: none), the time its last request completed (NAN: not
	 * yet), the requests completed and output tokens done by the
	 * deadline (NAN: not reached), the deadline's event */
	uint64_t batch_n;
	double batch_deadline, batch_done_t, batch_done_by_dl, batch_tokens_by_dl;
	uint64_t batch_ev;
	/* long_prefill_token_threshold (0: none): a prompt's chunk at most
	 * this; with it, each prefilling prompt's tokens done, by request
	 * (chunk_prog_capacity long; fleet_chunk.c).  Read under `chunked`
	 * only: here, off the hot lines above */
	double chunk_threshold;
	uint32_t *chunk_prog;
	uint32_t chunk_prog_capacity;
} fleet;


/* The fleet of a started inference component. */
static inline fleet *F_(const aiwi_comp *c) { return (fleet *)c->state; }

/* The arrows of the replica state machine (the diagram above): bit `to` of
 * STATE_ARROWS[from] is set when from --> to is one. */
#define STATE_BIT(s) (1u << (s))
static const uint8_t STATE_ARROWS[4] = {
	[AIW_REPLICA_FREE] = STATE_BIT(AIW_REPLICA_LOADING),
	[AIW_REPLICA_LOADING] = STATE_BIT(AIW_REPLICA_READY) | STATE_BIT(AIW_REPLICA_FREE),
	[AIW_REPLICA_READY] = STATE_BIT(AIW_REPLICA_DRAINING) | STATE_BIT(AIW_REPLICA_FREE),
	[AIW_REPLICA_DRAINING] = STATE_BIT(AIW_REPLICA_FREE),
};

/* Checks that cost nothing in a release build, active in a build
 * configured with --enable-checks (AIW_CHECKS=1): a false condition fails
 * the run with AIW_ESTATE and a message naming the function and the
 * condition (check_broken, fleet_check.c); the code goes on, and the run
 * stops at the end of the event.  FLEET_REQUIRE states a function's entry
 * preconditions (the eager-cut protocol's: fleet_eager.c). */
#if AIW_CHECKS
static void check_broken(fleet *f, const char *fmt, ...);
#define FLEET_REQUIRE(f, cond)                                                                     \
	((cond) ? (void)0 : check_broken((f), "%s: precondition %s does not hold", __func__, #cond))
#else
#define FLEET_REQUIRE(f, cond) ((void)0)
#endif

/* Move slot r to state `to` with its count (state_count).  In a checking
 * build a move that is not an arrow of the diagram is refused: the state
 * stays, and the run fails naming both states. */
static inline void set_state(fleet *f, replica *r, unsigned to)
{
#if AIW_CHECKS
	if (!(STATE_ARROWS[r->state] & STATE_BIT(to))) {
		check_broken(f, "replica %u: state %u -> %u is no transition of the diagram",
		             (unsigned)(r - f->replicas), (unsigned)r->state, to);
		return;
	}
#endif
	f->state_count[r->state]--;
	r->state = (uint8_t)to;
	f->state_count[to]++;
}

/* Bytes read from GPU memory by the first k decode iterations of sp, whose
 * batch held S tokens of context at its start: the weights and the KV
 * cache every iteration.  Under the roofline this is its memory time times
 * the bandwidth; the iteration model's span times hold other terms, so the
 * bytes are counted themselves. */
static inline double span_dram(const fleet *f, const span *sp, double k, double S)
{
	if (!f->iteration)
		return f->bytes_per_s * span_memory_time(sp, k);
	double w = f->dec_weight_bytes;
	if (AIW_UNLIKELY(f->moe)) /* the distinct routed experts the batch touches */
		w += f->moe_expert_bytes * f->moe_distinct[sp->batch];
	return k * w + f->dec_kv_bytes * (k * S + sp->batch * k * (k - 1) * 0.5);
}

/* FLOPs of a prefill of T prompt tokens, Q the sum of their squared
 * lengths: the weights' 2P per token, attention's 2 L d T^2 per prompt of T
 * tokens (causal QK^T and AV). */
static inline double prefill_flops(const fleet *f, double T, double Q)
{
	return 2 * f->flops_params * T + f->attn_flops_sq * Q;
}

/* FLOPs of the first k decode iterations of sp, whose batch of n held S
 * tokens of context at its start: 2P per token and, per token, 4 L d per
 * token of its context, which holds S + n j tokens at iteration j (the
 * sum of the arithmetic series, as span_dram's KV bytes).  Speculative
 * decoding: per token, the verification's k + 1 tokens and the draft's k
 * over E (spec_setup). */
static inline double span_flops(const fleet *f, const span *sp, double k, double S)
{
	double n = sp->batch;
	return f->dec_flops_seq * n * k + f->dec_attn_ctx * (k * S + n * k * (k - 1) * 0.5);
}

/* Speculative decoding and mixture of experts: book the decode seconds of the first k decode
 * iterations of sp (a batch of n from S tokens of context) and the draft's
 * share of them, the draft's fold summed over the context growing by n a
 * iteration (with the pipeline share of a batch under pp, as span_decode's
 * terms); a mixture of experts' all-to-all seconds instead of the draft's.
 * Nothing when both are off. */
static inline void spec_book(fleet *f, const span *sp, double k, double S)
{
	if (AIW_LIKELY(!(f->spec | (int)f->moe)) || !(k > 0))
		return;
	double n = sp->batch, g = aiwi_iter_decode_share(n, f->decode_pp);
	if (f->moe) {
		f->moe_a2a_s += k * (f->moe_a2a[1][0] + f->moe_a2a[1][1] * g * n);
	} else {
		const double *d = f->draft_fold;
		f->spec_draft_s += k * (d[0] + d[1] * n + d[2] * g * n + d[3] * g * S) +
		                   d[3] * g * n * k * (k - 1) * 0.5;
	}
	f->spec_decode_s += span_time(sp, k);
}

/* The fleet's invariants (above) on its live state, in a build configured
 * with --enable-checks (AIW_CHECKS=1; fleet_check.c): after every event
 * (FLEET_CHECK) and, walking every queue too, at every sample
 * (FLEET_CHECK_DEEP).  A broken one fails the run with AIW_ESTATE and a
 * message naming it.  Nothing in a release build. */
/* Replica failures (fleet_failure.c): a provisioned slot's failure drawn
 * and scheduled, or cancelled when it leaves service first (retire). */
static void failure_arm(fleet *f, uint32_t s, double now);
static void failure_disarm(fleet *f, uint32_t s);

#if AIW_CHECKS
static void fleet_check(fleet *f, bool deep);
#define FLEET_CHECK(f) fleet_check((f), false)
#define FLEET_CHECK_DEEP(f) fleet_check((f), true)
#else
#define FLEET_CHECK(f) ((void)0)
#define FLEET_CHECK_DEEP(f) ((void)0)
#endif

/* Speculative decoding's expected tokens per verification of k draft
 * tokens at acceptance a (Leviathan et al. 2023, eq. 1; fleet_timing.c). */
static inline double spec_expected_tokens(double k, double a)
{
	return a < 1 ? (1 - pow(a, k + 1)) / (1 - a) : k + 1;
}

#endif /* AIW_INFERENCE_FLEET_H */
