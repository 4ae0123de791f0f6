/*
 * hw.h - hardware catalog (gpu.c) and collective cost model (collective.c):
 * the internal API the training, inference, power and cost models use.
 *
 * Conventions, all SI: FLOP/s, bytes, B/s, W, s, USD.  Every bandwidth is
 * per GPU and per direction (what the alpha-beta model's B is): vendors
 * quote NVLink as the bidirectional total, so H100's "900 GB/s" is stored
 * as nvlink_bw = 450e9.
 */
#ifndef AIW_HW_H
#define AIW_HW_H

#include "core/internal.h"

/* One accelerator model.  Power levels are board power per phase; the power
 * model picks the level of the phase a GPU is in. */
typedef struct aiwi_gpu_spec {
	const char *name;          /* "H100-SXM", or the NAME of a [gpu NAME] section */
	double bf16_flops;         /* dense BF16 tensor throughput (FLOP/s) */
	double fp8_flops;          /* dense FP8 tensor throughput (FLOP/s); 0: no FP8 */
	double mem_bytes;          /* device memory (B) */
	double mem_bw;             /* device memory bandwidth (B/s) */
	double tdp_w;              /* board power limit (W) */
	double idle_w;             /* powered on, no kernel running (W) */
	double compute_w;          /* training compute, dense GEMMs (W) */
	double comm_w;             /* exposed collective communication (W) */
	double prefill_w;          /* inference prefill, compute-bound (W) */
	double decode_w;           /* inference decode, memory-bound (W) */
	double loading_w;          /* loading weights, cold start (W) */
	double price_usd;          /* purchase price (USD); 0: unknown */
	double ondemand_usd_per_h; /* cloud on-demand price per GPU-hour (USD/h); 0: unknown */
	double nvlink_bw;          /* scale-up fabric per GPU per direction (B/s) */
	double nvlink_latency_s;   /* scale-up per-step latency, alpha (s) */
	double nic_bw;             /* scale-out network per GPU per direction (B/s) */
	double nic_latency_s;      /* scale-out per-step latency, alpha (s) */
	double bf16_gemm_eff;      /* achievable fraction of bf16_flops on a transformer's GEMMs */
	double fp8_gemm_eff;       /* the same for fp8_flops */
	/* achievable fractions of the peaks (serving iterations, iteration.c) */
	double matmul_eff;           /* large BF16 GEMMs over bf16_flops */
	double fp8_matmul_eff;       /* large FP8 GEMMs over fp8_flops */
	double attn_eff;           /* attention kernels over bf16_flops */
	double mem_bw_eff;         /* streaming reads over mem_bw */
	/* an 8-GPU node's rated power beyond its GPUs (W): the system's
	 * maximum less 8 x tdp_w; 0: unknown */
	double node_nameplate_w;
} aiwi_gpu_spec;

/* One link type of the alpha-beta model: a message of m bytes takes
 * alpha_s + m / bw seconds. */
typedef struct aiwi_link_spec {
	const char *name; /* "NVLink4", "IB-NDR", "RoCE-400G", "PCIe5" */
	double alpha_s;   /* per-message (per ring step) latency (s) */
	double bw;        /* bandwidth per direction (B/s) */
} aiwi_link_spec;

/* Look a GPU up by name, case-insensitively: first the [gpu NAME] sections
 * of sim (sim may be NULL), then the built-in catalog.  A user GPU is built
 * from its parameters (unset ones from `base`, or from the built-in of the
 * same name, or scaled from H100-SXM by TDP) and validated each call.
 * Unknown names and invalid specs record a message on sim (with the closest
 * names as suggestions) and return AIW_EUNKNOWN / AIW_ERANGE /
 * AIW_ESCENARIO.  *out stays valid while sim lives (user GPUs) or forever
 * (built-ins); models should copy the struct in their start hook. */
aiw_status aiwi_hw_gpu_get(aiw_sim *sim, const char *name, const aiwi_gpu_spec **out);
/* The same, returning NULL on error (message on sim). */
const aiwi_gpu_spec *aiwi_hw_gpu(aiw_sim *sim, const char *name);
/* Built-in link type by name, case-insensitive; NULL (message on sim) if unknown. */
const aiwi_link_spec *aiwi_hw_link(aiw_sim *sim, const char *name);
/* The scale-up (intra-node) and scale-out (inter-node) links of a GPU. */
void aiwi_hw_gpu_links(const aiwi_gpu_spec *g, aiwi_link_spec *intra, aiwi_link_spec *inter);
/* Check a spec's self-consistency (idle < compute <= tdp, ...); messages
 * name the parameter as "<prefix>.<field>" ("gpu.MYCHIP.idle_w"). */
aiw_status aiwi_hw_gpu_check(aiw_sim *sim, const char *prefix, const aiwi_gpu_spec *g);
/* Built-in tables, for tests and listings. */
size_t aiwi_hw_gpu_builtin_count(void);
const aiwi_gpu_spec *aiwi_hw_gpu_builtin(size_t i);
size_t aiwi_hw_link_builtin_count(void);
const aiwi_link_spec *aiwi_hw_link_builtin(size_t i);
/* Case-insensitive ASCII string equality (locale-independent). */
bool aiwi_hw_ieq(const char *a, const char *b);

/* ------------------------------------------------------------------------ */
/* collective.c: all-reduce cost (Thakur, Rabenseifner & Gropp 2005)         */
/* ------------------------------------------------------------------------ */
/* Algorithm index: the order of AIW_AR_CHOICES, so an enum parameter's
 * index (aiwi_p(c, i)) can be passed straight to aiwi_allreduce(). */
enum { AIW_AR_RING = 0, AIW_AR_TREE = 1, AIW_AR_HIERARCHICAL = 2 };
#define AIW_AR_CHOICES "ring|tree|hierarchical"
/* Index of an algorithm name (case-insensitive), or -1. */
int aiwi_allreduce_algo(const char *name);

/* Time (s) to all-reduce S bytes over p ranks with g GPUs per node.
 *  ring:  one flat ring; within a node (p <= g) on intra, otherwise every
 *         step waits for its slowest hop: alpha = max, bw = min of the links.
 *         T = 2(p-1) alpha + 2(p-1)/p * S / (f bw)
 *  tree:  binomial reduce then broadcast, L = ceil(log2 p) levels, links
 *         chosen as for ring; a degraded link slows one level per phase:
 *         T = 2 L alpha + 2 (L - 1 + 1/f) S / bw
 *  hierarchical: intra-node reduce-scatter, g concurrent inter-node rings
 *         (one per rail) over the S/g shards among n = ceil(p/g) nodes,
 *         intra-node all-gather; the two intra phases add up to one ring:
 *         T = ring(g', S, intra) + ring(n, S/r, inter),  g' = min(g, p),
 *         r = p - (n-1) g' the GPUs of the last node (= g' when g divides
 *         p: a partial node's fewer NICs carry larger shards), with f on
 *         the inter stage (on the intra stage if n = 1).
 * f = slow_link_factor in (0, 1]: bandwidth of the one degraded link
 * relative to nominal (1: none).  p = 1 gives 0.  Arguments are trusted
 * (the public aiw_allreduce_time() validates); invalid algo gives NAN. */
double aiwi_allreduce(int algo, double S, double p, double g, const aiwi_link_spec *intra,
                     const aiwi_link_spec *inter, double slow_link_factor);
/* Closed forms on one link type, f = 1. */
double aiwi_allreduce_ring(double S, double p, double alpha, double bw);
double aiwi_allreduce_tree(double S, double p, double alpha, double bw);
/* ceil(log2 p) for p >= 1 (0 for p <= 1), exact. */
double aiwi_ceil_log2(double p);
/* nccl-tests bus-bandwidth factor for all-reduce: 2(p-1)/p. */
double aiwi_busbw_factor(double p);

#endif /* AIW_HW_H */
