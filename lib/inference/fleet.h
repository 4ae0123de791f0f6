/*
 * fleet.h - the private header of the inference fleet: its state, its
 * state machine and its invariants.  Included by serving.c only, which is
 * one translation unit with the fleet_*.c files it includes (the hot path
 * is inlined across them as it was in one file); doc/inference.md tells
 * the same in longer form and maps each concern to its file.
 *
 * ---- the replica state machine ----
 * A fleet is an array of replica slots.  A slot's `state`:
 *
 *     FREE --add(cold start > 0)--> LOADING --load done--> READY
 *     FREE --add(cold start = 0)--> LOADING --at once---> READY
 *     LOADING --remove--> FREE                   (the load is cancelled)
 *     READY --remove, idle--> FREE
 *     READY --remove, busy--> DRAINING --last request done--> FREE
 *     LOADING, READY, DRAINING --fail--> FREE    (its requests requeued)
 *
 * (fleet_lifecycle.c: slot_new, aiwi_serving_add/remove/fail_replica,
 * make_ready; fleet_events.c: retire, go_idle.)  Only READY slots are in
 * the ready set (routable); a DRAINING one finishes every request it holds,
 * queued ones too, and takes nothing new.  Freed slots are reused lowest
 * index first; slot s holds GPUs [s g, s g + g) of the component.
 *
 * What a provisioned slot is doing, `span` (SPAN_*):
 *   SPAN_LOAD     LOADING: its weights load; its agenda entry is the end.
 *   SPAN_NONE     READY or DRAINING, nothing in its batch: idle, no agenda
 *                 entry (dynamic batching: maybe a batch timer).
 *   SPAN_RUN      roofline: a span (span.h) runs, the prefill of what was
 *                 admitted at its start then decode iterations; its agenda
 *                 entry is the span's end, t0 + tp + T(k_end).
 *   SPAN_SERVICE  service = DIST: requests hold batch slots for sampled
 *                 times; its agenda entry is the earliest of them.
 * At a span end (replica_event) the departures leave, what fits is
 * admitted and the next span starts (step), or the replica goes idle.
 *
 * Power `phase` (PH_*), per GPU from the catalog: OFF (FREE), LOADING,
 * IDLE (SPAN_NONE), DECODE (SPAN_RUN and SPAN_SERVICE).  A span's prefill
 * part is accounted as DECODE plus a surcharge booked ahead (below).
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
 * event of its own.  Eagerly, the cut does tb's work at the arrival:
 *   cut     (eager_cut)    the running span, kept as `pv`, ends after kb
 *           iterations; the replica's iteration clock and context move to
 *           tb; what tb would admit is admitted now into the running set
 *           (its requests listed, in admission order, in `pq`; `pnq` of
 *           them came from the replica's queue); the next span `sp`, from
 *           sp.t0 = tb, is computed and its end scheduled; `pend` is set.
 *   merge   (eager_merge)  an arrival before tb: tb admits it too if it
 *           fits; the pending span is recomputed.
 *   settle  (eager_settle) the clock reaches tb (the replica's next event
 *           or arrival, a sample, the end of the run, an autoscaler read):
 *           the sums, histograms and first-token times tb would have booked
 *           are booked, in tb's order; `pend` is cleared.
 *   undo    (eager_undo)   a failure before tb, or requeued requests that
 *           must go first: the admissions go back to their queues in front,
 *           the clock and context back to pv's, and tb is scheduled as an
 *           event (lazily) again.
 * Until tb, what the rest of the model reads is what the lazy boundary
 * would leave: span_at() gives pv before sp.t0, eager_waiting() counts the
 * pending admissions as waiting (the waiting integral already holds their
 * request-seconds up to tb, taken back for reads before tb), and the queue
 * limit still counts the `pnq` pending ones.  Used when `eager` is set:
 * continuous batching on the roofline, a router other than central, no
 * timeout (a queue can then only grow before tb) and max_batch <=
 * RUN_SORTED (the running set stays a sorted array, which an undo restores
 * exactly); aiwi_serving_set_eager turns it off for a component (tests
 * compare both ways: the same results but for the rounding of sums taken
 * in another order).
 *
 * ---- energy booked ahead and taken back (fleet_energy.c) ----
 * The phase integrals come from integer counts of GPUs per phase, exact.
 * A span's prefill of tp seconds draws prefill_w instead of decode_w: the
 * surcharge (prefill_w - decode_w) tp per GPU (prefill_surcharge, the one
 * place of that formula) is booked when the span starts, into the fleet's
 * energy_adj and its racks' adj, by GPUs (book_prefill); a read at time t
 * inside the prefill takes back the part still ahead of t,
 * prefill_surcharge(t0 + tp - t) (prefill_pending: energy_at, the racks'
 * samples); a failure inside the prefill takes it back for good
 * (book_prefill with sign -1).  Tokens and FLOPs likewise: a span's first
 * tokens and prefill FLOPs are booked at its start, its decode iterations
 * at its end, and tokens_at / flops_at correct both to the time asked, so
 * that energy, tokens and FLOPs are exact at every sample.
 *
 * ---- invariants (checked by aiwi_fleet_check, fleet_check.c, after every
 * event in a build configured with --enable-checks) ----
 *  requests  arrived = completed + dropped + in_flight, in_flight =
 *            nwaiting + nrunning; nwaiting = central queue + every slot's
 *            queue and preempted list; nrunning = every slot's running set;
 *            a slot's outstanding = its queue + preempted + running; the
 *            waiting integral's level = nwaiting.
 *  replicas  nstate[s] = slots in state s (they sum to nslots); the ready
 *            set holds exactly the READY slots (nready = nstate[READY]),
 *            the free heap the FREE ones; nph[p] = slots in phase p; nspot
 *            = provisioned spot slots; each rack's GPUs per phase sum to g
 *            nph[p]; paid GPUs = g (provisioned slots).
 *  spans     FREE: phase OFF, span NONE, nothing held, no agenda entry;
 *            LOADING: phase LOADING, span LOAD, nothing running;
 *            READY / DRAINING: span NONE with phase IDLE, nothing running
 *            and no agenda entry, or span RUN / SERVICE with phase DECODE,
 *            something running and an agenda entry: RUN's at exactly
 *            t0 + tp + T(k_end) of its span, with sp.n running, SERVICE's at
 *            its earliest end; the agenda's root is the earliest entry;
 *            `pend` only on an eager fleet's RUN span, with pq.len <=
 *            nrunning and pnq <= pq.len.
 */
#ifndef AIW_INFERENCE_FLEET_H
#define AIW_INFERENCE_FLEET_H

/* GSL's inline gsl_rng_uniform & co. (its documented HAVE_INLINE): one call
 * less per draw on the hot path */
#define HAVE_INLINE 1
#include "inference/serving.h"
#include "inference/serving_params.h"
#include "inference/span.h"

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

/* Power phases of a replica.  A roofline span (prefill of the admitted
 * prompts, then decode iterations) is accounted as DECODE throughout, its
 * prefill part adding (prefill_w - decode_w) through a correction that is
 * exact at every sample time (see prefill_pending). */
enum { PH_OFF, PH_LOADING, PH_IDLE, PH_PREFILL, PH_DECODE, NPH };
enum { SPAN_NONE, SPAN_LOAD, SPAN_RUN, SPAN_SERVICE };
enum { DROP_TIMEOUT, DROP_QUEUE_FULL, DROP_KV_TOO_LARGE, NDROP };
static const char *const DROP_NAMES[NDROP] = {"timeout", "queue_full", "kv_too_large"};

/* One request: 48 bytes, pooled, freed when it ends. */
/* 32 bytes, two to a cache line (the pool is aligned to one, see
 * req_alloc): the requests in flight are most of the model's memory, and a
 * request is read at random times (admission, first token, completion). */
typedef struct req {
	double t_arr;
	union {
		double t_first; /* roofline: time of the first token; NAN before */
		double key;     /* service mode, before admission: its sampled service time */
	};
	/* prompt <= 1e9 (aiwi_round_count) < 2^30 */
	uint32_t prompt : 30;
	uint32_t started : 1;  /* admitted at least once (queue wait recorded) */
	uint32_t from_pre : 1; /* pending admission taken from the preempted list */
	uint32_t output, gen;  /* gen: tokens streamed (or due by the span's prefill end) */
	uint32_t next;         /* queue link or free list */
} req;
_Static_assert(sizeof(req) == 32, "two requests to a cache line");

typedef struct queue {
	uint32_t head, tail;
	uint32_t len;
} queue;

/* A running request: the decode iteration (roofline) or the time (service)
 * at which it ends; the key sits next to the id for cache-friendly sifts. */
typedef struct rent {
	double key;
	uint32_t id;
	uint32_t seq; /* admission order, modulo 2^32 (preemption victim) */
} rent;


/* Laid out by use: the first four cache lines hold all that an arrival
 * (routing, an eager cut, its admissions, the next span) and a span end
 * (departures, admissions, the next span) read or write; the fifth what
 * the lifecycle, dynamic batching and the central router use.  A replica's
 * lines are mostly out of the first-level cache when its next event comes
 * (300 replicas take 94 KB), so each line an event touches is a miss. */
typedef struct replica {
	/* line 1: what every event reads first */
	_Alignas(64) uint8_t state;
	uint8_t span;
	uint8_t pnq;         /* of pq, taken from q (the queue limit counts them;
	                        eager cuts only: at most max_batch <= 64) */
	uint8_t cut : 1;     /* span already cut at a boundary for an admission */
	uint8_t pend : 1;    /* an eager cut's admissions are pending (see below) */
	uint8_t resched : 1; /* scheduled while handling its own span end */
	uint8_t rheap : 1;
	uint8_t inb : 1;     /* in a least-loaded bucket */
	uint8_t phase : 3;   /* PH_* */
	uint32_t nrun, rh;
	uint32_t outstanding;
	rent *run;        /* running requests by key: sorted from rh, or a heap (run_push) */
	double it;        /* decode iterations done: the clock of the roofline keys */
	double S;         /* KV context tokens of the running requests */
	span sp;          /* the current span (roofline), into line 2 */
	queue q;          /* routed here, waiting */
	queue pre;        /* preempted / requeued: admitted before q */
	uint32_t caprun;
	/* an eager cut (see eager_cut): sp starts at sp.t0, later than the
	 * arrival that cut pv, the span before it, after pv.k_end iterations;
	 * its admissions are pending until the clock reaches sp.t0 (pq: linked
	 * by next, in admission order) */
	queue pq;
	uint32_t seq0;    /* the first request admitted by the current span */
	uint32_t seq0_pv;
	span pv;
	double it_pv, S_pv; /* it and S before the cut */
	uint32_t rack0, rack1; /* racks of its GPUs (see slot_racks) */
	/* line 5: the rest */
	double resv;      /* dynamic / none: tokens reserved (prompt + output) */
	uint64_t tmr;     /* pending dynamic-batch timer (engine handle) */
	double free_since;
	uint32_t ready_pos, idle_pos;
	uint8_t spot;
	uint8_t in_idle;  /* in the central idle set */
} replica;
_Static_assert(offsetof(replica, sp) + offsetof(span, sa) < 64 + 64 &&
               offsetof(replica, rack1) + sizeof(uint32_t) <= 4 * 64 &&
               offsetof(replica, resv) >= 4 * 64 && sizeof(replica) % 64 == 0,
               "replica's layout by cache line");

typedef struct rack {
	aiwi_integral p;
	double prev;       /* reported energy at the previous sample */
	double adj;        /* prefill energy booked ahead (J) */
	uint32_t cnt[NPH]; /* GPUs of this rack per phase */
} rack;

typedef struct fleet {
	aiwi_comp *c;
	aiw_sim *sim;
	aiwi_engine *eng; /* the sim's, for at() */
	aiwi_gpu_spec gpu;
	aiwi_pricing price;
	int batching, router;
	bool service_mode;
	bool eager;        /* cuts admit at the arrival (eager_cut) */
	/* model */
	double g, P, Wb, kvpt, cap_tokens, F, BW, t_weights, gpr;
	/* per span: a prefill of T tokens takes T pf_s (compute), a decode
	 * iteration of n requests holding S tokens max(n pf_s, t_weights + S
	 * kv_s) (products instead of divisions on every span start) */
	double pf_s, kv_s;
	uint32_t max_batch;
	double max_delay, timeout, slo_ttft, slo_tpot, slo_e2e, resp_bytes;
	uint64_t qlimit;
	double w_tot[NPH]; /* W per GPU by phase, node overhead included */
	double w_pre_extra; /* W per GPU of prefill over decode */
	double spot_factor;
	/* requests */
	req *rq;
	uint32_t nrq, free_head;
	uint64_t in_flight, nwaiting, nrunning;
	uint32_t seq;
	/* replicas */
	replica *rep;
	uint32_t nslots, capslots;
	uint32_t *freeh, nfree; /* min-heap of FREE slot indexes (capslots long) */
	uint32_t *ready, nready;
	uint32_t *idle, nidle;
	uint32_t *bhead, *btail, nb, bmin;
	/* least-loaded bucket links by slot (capslots long): apart from the
	 * replicas, so that moving one touches its neighbours' links, not
	 * their whole state */
	struct blink {
		uint32_t prev, next;
	} *bl;
	uint32_t rr;
	uint32_t nstate[4];
	uint32_t nph[NPH], nspot;
	queue cq;
	uint64_t cq_tmr;
	/* the agenda of span ends, behind one engine event */
	uint32_t *at;     /* winner tree of slot ids: node n in 1 .. np - 1, leaf of slot i at np + i */
	uint64_t *ak;     /* pending span end of each slot (its time's IEEE bits, or NONE) */
	uint32_t np;      /* leaves: a power of two >= slots */
	uint32_t depth;   /* log2 np (np <= 2^20: MAX_SLOTS) */
	uint32_t at_id;   /* the root's winner and its key (at[1], ak[at[1]]), kept */
	uint64_t at_key;  /* beside the fleet's other hot fields by ag_set */
	uint64_t master;
	double master_t;
	bool in_master;
	double arr_t;     /* the next arrival (+inf: none), run by the master */
	/* arrivals drawn ahead (aiwi_traffic_next_n: all but a trace's), the
	 * next at abuf[ai]; an = 0: drawn one at a time */
	uint32_t ai, an;
	double *abuf;
	/* integrals */
	aiwi_integral energy, busy, paid, cost, waiting;
	double energy_adj; /* prefill energy booked ahead (J) */
	rack *racks;
	size_t nracks, racks_used; /* allocated; touched by a replica so far */
	/* traffic */
	aiwi_traffic *tr;
	double next_p, next_o;
	aiwi_count_table *tok_p, *tok_o; /* prompt and output sizes (NULL: draw and round) */
	uint32_t xp, xo; /* the next arrival's words for tok_p, tok_o (sizes_ahead) */
	gsl_rng *rng_size, *rng_route, *rng_life;
	/* statistics */
	aiwi_hist ttft, ttft_win, tpot, e2e, wait;
	uint64_t *bs; /* decode iterations by batch size */
	uint32_t *adm, nadm; /* requests admitted at this instant (max_batch) */
	uint64_t arrived, completed, dropped[NDROP], started, preemptions;
	uint64_t met_all, met_ttft, met_tpot, met_e2e;
	double tokens_out, tokens_prefill, flops;
	double tokens_in; /* prompt tokens of the admitted requests, each once */
	double kv_peak_tokens, batch_wait_max;
	uint32_t batch_peak;
	/* curves */
	int id_arr, id_thr, id_good, id_ttft99, id_qlen, id_busy, id_reps, id_resp, id_tok, id_cu;
	uint64_t prev_arrived, prev_completed, prev_met;
	double prev_tokens, prev_waiting, prev_busy, prev_paid, prev_flops;
	void *autoscale; /* the autoscaler's state (autoscale.c owns it) */
	bool fail;
} fleet;


static inline fleet *F_(const aiwi_comp *c) { return (fleet *)c->state; }

/* The fleet's invariants (above) on its live state, in a build configured
 * with --enable-checks (AIW_CHECKS): a broken one fails the run with
 * AIW_ESTATE and a message naming it.  Nothing in a release build. */
#if AIW_CHECKS
static void aiwi_fleet_check(fleet *f);
#define FLEET_CHECK(f) aiwi_fleet_check(f)
#else
#define FLEET_CHECK(f) ((void)0)
#endif

#endif /* AIW_INFERENCE_FLEET_H */
