/*
 * cost.h - pricing shared by the workload kinds (training, inference).
 *
 * Every workload kind includes AIW_COST_PARAM_DEFS in its parameter table
 * (at index `first`) and, in its start hook, calls aiwi_cost_pricing() to get
 * the cost of one provisioned GPU-second and the per-node power overhead.
 * A model then accumulates c->cost_usd += gpus_paid * dt * usd_per_gpu_s
 * (exact, piecewise-constant) and adds node overhead to its power.
 * Energy is priced by the site (facility energy x electricity price).
 */
#ifndef AIW_COST_H
#define AIW_COST_H

#include "hw/hw.h"
#include "core/internal.h"

#define AIW_PRICING_CHOICES "capex|ondemand|reserved|committed"
enum {
	AIW_PRICING_CAPEX = 0,
	AIW_PRICING_ONDEMAND = 1,
	AIW_PRICING_RESERVED = 2,
	AIW_PRICING_COMMITTED = 3
};

/* Reserved and committed-use pricing, as fractions of the on-demand price
 * per GPU-hour, by term (1 year, 3 years).  Both are paid for the whole
 * term whether the capacity is used or not.
 *  - reserved (capacity bought for the term: AWS Reserved Instances, Azure
 *    Reserved VM Instances, GCP resource-based commitments): 0.63 (1 year)
 *    and 0.45 (3 years).  AWS g6e.xlarge (1 L40S, us-east-1) lists $1.861/h
 *    on demand, ~$1.17/h reserved 1 year and ~$0.80/h 3 years, no upfront
 *    (0.63, 0.43; Modal, "How much does it cost to run NVIDIA L40S GPUs in
 *    2025?", 2025-08-12); Google Cloud's resource-based committed use
 *    discounts on GPUs are 37 % and 55 % (0.63, 0.45; Compute Engine
 *    committed use discounts, read 2026-12-01);
 *  - committed (a spend commitment applied to whatever runs: AWS Savings
 *    Plans, Azure savings plan, GCP spend-based commitments): 25 % (1 year)
 *    and 52 % (3 years) off on-demand, Google Cloud's spend-based figures
 *    (Lilly Tech Systems, "GCP AI cost: committed use discounts", read
 *    2026-12-01); AWS states up to 66 % for Savings Plans against up to
 *    72 % for Reserved Instances: a commitment that follows the workload
 *    gives less than a reservation. */
#define AIW_RESERVED_RATIO_1Y 0.63
#define AIW_RESERVED_RATIO_3Y 0.45
#define AIW_COMMITTED_DISCOUNT_1Y 0.25
#define AIW_COMMITTED_DISCOUNT_3Y 0.52

/* The entries, in this order; KIND is a string literal ("training").
 * Node power beyond the GPUs, typical against nameplate, for an 8-GPU
 * DGX/HGX H100 node: NVIDIA's DGX H100 user guide rates the system at
 * 10.2 kW max (six 3.3 kW supplies, 4+2 redundant), i.e. 4.6 kW beyond
 * 8 x 700 W GPUs: node_nameplate's default.  Measured, the node drew at
 * most ~8.4 kW training Llama2-13b and ResNet with the GPUs near full
 * utilisation, 18 % under the rating (Latif et al., "Single-Node Power
 * Demand During AI Training: Measurements on an 8-GPU NVIDIA H100 System",
 * IEEE Access 13:61740, 2025): with the GPUs at most 8 x 700 W, the rest
 * of the node drew at least 2.8 kW at that peak, AIW_NODE_OVERHEAD_MEASURED_W
 * of its AIW_NODE_NAMEPLATE_W rated beyond the GPUs.  node_overhead (drawn whatever
 * the GPUs do) defaults to that share of node_nameplate, whose default is
 * the catalog GPU's node rating (node_nameplate_w: DGX A100, H100, H200,
 * B200), else DGX H100's: 2.8 kW on H100, 2.0 kW on A100.
 * It is the measured figure at full training load, the least consistent
 * with the measurement; no published figure gives the non-GPU draw at
 * lighter loads (slower fans, idle CPUs), which it likely overstates.
 * Nameplate provisioning (site.nameplate_power_w) uses node_nameplate. */
#define AIW_NODE_OVERHEAD_MEASURED_W 2800.0
#define AIW_NODE_NAMEPLATE_W 4600.0
#define AIW_COST_PARAM_DEFS(KIND)                                                             \
	{"pricing", KIND ".NAME.pricing", AIW_PT_ENUM, "capex", "", 0, 3, AIW_PRICING_CHOICES, 0, \
	 "capex: purchase price amortised over lifetime; ondemand: hourly rental; reserved: "     \
	 "capacity rented for a term at reserved_price, paid whether used or not; committed: "    \
	 "on-demand less committed_discount, the commitment (the component's GPUs) paid whether " \
	 "used or not", 0},                                                                      \
	{"gpu_price", KIND ".NAME.gpu_price", AIW_PT_MONEY, NULL, "USD", 0, 1e8, NULL,            \
	 AIW_PF_NONE | AIW_PF_EXCL_MIN, "purchase price per GPU (none: the catalog's)", 0},       \
	{"lifetime", KIND ".NAME.lifetime", AIW_PT_DURATION, "4y", "s", 0, 3.2e9, NULL,           \
	 AIW_PF_EXCL_MIN, "amortisation period of the purchase price (capex)", 0},               \
	{"ondemand_price", KIND ".NAME.ondemand_price", AIW_PT_MONEY, NULL, "USD/h", 0, 1e5,     \
	 NULL, AIW_PF_NONE | AIW_PF_EXCL_MIN,                                                    \
	 "rental price per GPU-hour (none: the catalog's)", 0},                                  \
	{"node_overhead", KIND ".NAME.node_overhead", AIW_PT_POWER, NULL, "W", 0, 1e6, NULL,     \
	 AIW_PF_NONE,                                                                            \
	 "power a node draws beyond its GPUs while running (CPUs, NICs, fans, switches); none: " \
	 "node_nameplate x 2.8/4.6, the least an HGX H100 node drew beyond its GPUs at its "      \
	 "measured training peak over its rating (2.8 kW on H100, 2.0 kW on A100)", 0},           \
	{"node_nameplate", KIND ".NAME.node_nameplate", AIW_PT_POWER, NULL, "W", 0, 1e6, NULL,   \
	 AIW_PF_NONE,                                                                            \
	 "rated power of a node beyond its GPUs, for nameplate provisioning; none: the catalog " \
	 "GPU's node_nameplate_w (DGX A100 3.3 kW, DGX H100 and H200 4.6 kW, DGX B200 6.3 kW: " \
	 "the system's maximum less its GPUs' TDP), DGX H100's 4.6 kW where it has none", 0},    \
	{"term", KIND ".NAME.term", AIW_PT_ENUM, "1y", "", 0, 1, "1y|3y", 0,                     \
	 "term of a reserved or committed pricing (the default price or discount follows it)",   \
	 0},                                                                                     \
	{"reserved_price", KIND ".NAME.reserved_price", AIW_PT_MONEY, NULL, "USD/h", 0, 1e5,     \
	 NULL, AIW_PF_NONE | AIW_PF_EXCL_MIN,                                                    \
	 "reserved price per GPU-hour (none: on-demand x 0.63 for a 1y term, x 0.45 for 3y, "     \
	 "published cloud reserved/on-demand ratios)", 0},                                        \
	{"committed_discount", KIND ".NAME.committed_discount", AIW_PT_REAL, NULL, "1", 0, 0.99, \
	 NULL, AIW_PF_NONE,                                                                      \
	 "committed-use discount on the on-demand price (none: 0.25 for a 1y term, 0.52 for 3y, " \
	 "published spend-commitment discounts)", 0},                                             \
	{"network_price", KIND ".NAME.network_price", AIW_PT_MONEY, "0", "USD", 0, 1e8, NULL, 0, \
	 "network fabric capex per GPU (NICs, switches, optics, cables), amortised over "        \
	 "lifetime on the provisioned GPU-seconds (network_cost_usd)", 0},                       \
	{"storage_price", KIND ".NAME.storage_price", AIW_PT_MONEY, "0", "USD", 0, 1e8, NULL, 0, \
	 "storage capex per GPU, amortised over lifetime on the provisioned GPU-seconds "        \
	 "(storage_cost_usd)", 0},                                                                \
	{"committed_gpus", KIND ".NAME.committed_gpus", AIW_PT_INT, NULL, "1", 0, 1e7, NULL,     \
	 AIW_PF_NONE,                                                                            \
	 "GPUs paid at the capex, reserved or committed rate for the whole run, used or not; "   \
	 "provisioned GPUs above them billed on demand; hardware_cost_usd counts the "           \
	 "provisioned GPU-seconds, hardware_bill_usd adds the unprovisioned commitment (none: "  \
	 "the commitment is the component's peak)", 0},                                           \
	{"network_price_per_h", KIND ".NAME.network_price_per_h", AIW_PT_MONEY, "0", "USD/h", 0,\
	 1e4, NULL, 0,                                                                           \
	 "network price per provisioned GPU-hour (cloud billing), added to network_price's "     \
	 "amortised capex in network_cost_usd", 0},                                              \
	{"storage_price_per_h", KIND ".NAME.storage_price_per_h", AIW_PT_MONEY, "0", "USD/h", 0,\
	 1e4, NULL, 0,                                                                           \
	 "storage price per provisioned GPU-hour (cloud billing: e.g. a checkpoint volume's "    \
	 "USD per TB-month x TB per GPU / 730 h), added to storage_price's amortised capex in "   \
	 "storage_cost_usd", 0}
#define AIW_COST_NPARAMS 14
/* offsets of the entries from `first' */
enum {
	AIW_COST_PRICING,
	AIW_COST_GPU_PRICE,
	AIW_COST_LIFETIME,
	AIW_COST_ONDEMAND_PRICE,
	AIW_COST_NODE_OVERHEAD,
	AIW_COST_NODE_NAMEPLATE,
	AIW_COST_TERM,
	AIW_COST_RESERVED_PRICE,
	AIW_COST_COMMITTED_DISCOUNT,
	AIW_COST_NETWORK_PRICE,
	AIW_COST_STORAGE_PRICE,
	AIW_COST_COMMITTED_GPUS,
	AIW_COST_NETWORK_PRICE_PER_H,
	AIW_COST_STORAGE_PRICE_PER_H
};

/* The summary metrics the site publishes for every accounted component
 * (site.c) and its IT energy, which each model publishes: rows every such
 * kind puts in its metric table, the first before its own rows, the others
 * after them (the order of the summary table). */
#define AIWI_ACCOUNT_METRICS_FIRST \
	{"power_peak_w", "Power peak", "W", AIW_METRIC_HEADLINE, \
	 "peak of the component's IT power curve (GPUs and node overhead)", NULL, NULL, NULL, NULL}
#define AIWI_ACCOUNT_METRICS_LAST \
	{"energy_kwh", "Energy (IT)", "kWh", AIW_METRIC_HEADLINE, \
	 "IT energy of the component", NULL, NULL, NULL, NULL}, \
	{"energy_cost_usd", "Energy cost", "USD", 0, \
	 "facility energy x site.electricity_price (or its series, each sample interval at its " \
	 "mean price)", NULL, NULL, NULL, NULL}, \
	{"hardware_cost_usd", "Hardware cost", "USD", 0, \
	 "provisioned GPU-seconds at their price: purchase price amortised over the lifetime, " \
	 "or on-demand, reserved or committed rent (above committed_gpus on demand); capacity " \
	 "paid but not provisioned is apart (hardware_bill_usd)", NULL, NULL, NULL, NULL}, \
	{"hardware_bill_usd", "Hardware bill (stranded included)", "USD", 0, \
	 "hardware_cost_usd plus the GPUs paid but not provisioned: the unprovisioned " \
	 "commitment (committed_gpus), or an autoscaled fleet's capacity released below its " \
	 "peak under capex, reserved or committed pricing (stranded_usd); what is paid for the " \
	 "GPUs whatever other work uses them", NULL, NULL, NULL, NULL}, \
	{"network_cost_usd", "Network cost", "USD", 0, \
	 "network_price per GPU amortised over the lifetime, on the provisioned GPU-seconds", \
	 NULL, NULL, NULL, NULL}, \
	{"storage_cost_usd", "Storage cost", "USD", 0, \
	 "storage_price per GPU amortised over the lifetime, on the provisioned GPU-seconds", \
	 NULL, NULL, NULL, NULL}, \
	{"ondemand_excess_gpu_hours", "GPU-hours above the commitment", "h", \
	 AIW_METRIC_HEADLINE | AIW_METRIC_COUNT, \
	 "committed_gpus set: provisioned GPU-hours above committed_gpus, the integral of " \
	 "max(0, provisioned - committed_gpus), billed on demand (published with it only)", \
	 NULL, NULL, NULL, NULL}, \
	{"ondemand_excess_usd", "  their on-demand cost", "USD", AIW_METRIC_HEADLINE, \
	 "committed_gpus set: the on-demand cost of ondemand_excess_gpu_hours (in " \
	 "hardware_cost_usd)", NULL, NULL, NULL, NULL}, \
	{"commitment_stranded_gpu_hours", "Committed GPU-hours not provisioned", "h", \
	 AIW_METRIC_HEADLINE | AIW_METRIC_COUNT, \
	 "committed_gpus set: committed GPU-hours not provisioned, the integral of " \
	 "max(0, committed_gpus - provisioned) (published with it only)", NULL, NULL, NULL, NULL}, \
	{"commitment_stranded_usd", "  their cost (paid, unused)", "USD", AIW_METRIC_HEADLINE, \
	 "committed_gpus set: the committed-rate cost of commitment_stranded_gpu_hours (in " \
	 "hardware_bill_usd, not in hardware_cost_usd: paid, idle unless other work uses it)", \
	 NULL, NULL, NULL, NULL}, \
	{"idle_cost_usd", "Hardware cost of paid time with no useful work", "USD", 0, \
	 "hardware cost of the provisioned GPU-seconds that did no useful work", NULL, NULL, NULL, NULL}, \
	{"cost_usd", "Cost", "USD", AIW_METRIC_HEADLINE, \
	 "hardware, network, storage and energy cost of the component", NULL, NULL, NULL, NULL}, \
	{"emissions_kg", "Emissions (CO2e)", "kg", 0, \
	 "site.carbon_intensity (or its series) set: the component's facility energy x the grid " \
	 "carbon intensity", NULL, NULL, NULL, NULL}
/* The GPU telemetry figures of a component (published by the site, site.c,
 * for the kinds that keep them: aiwi_comp kbusy_gpu_s, flops, peak_flop_s). */
#define AIWI_TELEMETRY_METRICS \
	{"kernel_busy", "GPU busy (kernel-busy, nvidia-smi)", "1", \
	 AIW_METRIC_HEADLINE | AIW_METRIC_FRACTION, \
	 "GPU-seconds with a kernel running / provisioned GPU-seconds: nvidia-smi's " \
	 "utilization.gpu (DCGM_FI_DEV_GPU_UTIL)", NULL, NULL, NULL, NULL}, \
	{"tensor_activity", "Tensor activity (FLOPs/peak, DCGM)", "1", \
	 AIW_METRIC_HEADLINE | AIW_METRIC_FRACTION, \
	 "hardware FLOPs executed / (provisioned GPU-seconds x peak FLOP/s at the precision run): " \
	 "the model's DCGM_FI_PROF_PIPE_TENSOR_ACTIVE", NULL, NULL, NULL, NULL}
/* Their curves, recorded by series.c for a kind with `telemetry' set (rows
 * of its curve table, so that the catalogue lists them for it alone). */
#define AIWI_TELEMETRY_CURVES \
	{"kernel_busy", "1", "gpu_kernel_busy_ratio", NULL, AIWI_CURVE_GAUGE, false, false, \
	 "kernel-busy GPU-seconds / provisioned GPU-seconds of a component over the interval, " \
	 "what nvidia-smi reports as utilization.gpu (0-1; NaN where the model keeps none)"}, \
	{"tensor_activity", "1", "gpu_tensor_activity_ratio", NULL, AIWI_CURVE_GAUGE, false, false, \
	 "hardware FLOPs / (provisioned GPU-seconds x peak FLOP/s at the precision run) of a " \
	 "component over the interval, the model's DCGM_FI_PROF_PIPE_TENSOR_ACTIVE (0-1)"}
/* An inference fleet is overloaded (its cost per token is that of a
 * saturated fleet, not a price) when more than this share of its arrivals
 * went unserved: still waiting at the end, or dropped for waiting (the
 * share of requests in flight by which aiw_site_diversity_sweep flags a
 * share overloaded). */
#define AIWI_OVERLOAD_UNSERVED 0.01
/* The cost per million tokens, for the kinds that count tokens; LABEL says
 * which tokens (training: trained; inference: output, the prompts free). */
#define AIWI_METRIC_COST_PER_MTOK(LABEL) \
	{"cost_per_mtok_usd", LABEL, "USD", AIW_METRIC_HEADLINE, \
	 "cost / million tokens: training, tokens trained; inference, the whole cost over the " \
	 "output tokens alone (prompt tokens count for nothing: see cost_per_mtok_input_usd, " \
	 "_output_usd and _blended_usd for prices as serving quotes them)", NULL, NULL, NULL, NULL}

/* Inference: how the cost splits between input and output tokens, as
 * serving is priced (a price per million input tokens and a higher one per
 * million output tokens).  With C the fleet's cost, N_in and N_out its
 * tokens and k this ratio, the break-even prices are
 *   input  = C / (N_in + k N_out),   output = k x input,
 * so that N_in x input + N_out x output = C.  Default 4: the median
 * output/input price multiple of 198 API models (D. Rosehill, "Output/Input
 * Price Multiple Analysis", Hugging Face space agentic-llm-price-comparisons,
 * read 2026-12-01); OpenAI GPT-4o lists $2.50 / $10 (4x), Anthropic's
 * models 5x, many open-weight hosts 1x. */
#define AIW_TOKEN_PRICE_PARAM_DEFS(KIND) \
	{"output_price_ratio", KIND ".NAME.output_price_ratio", AIW_PT_REAL, "4", "1", 0.01, 1000, \
	 NULL, 0, \
	 "price of an output token / price of an input token, to split the cost between them " \
	 "(cost_per_mtok_input_usd, _output_usd); 4: the median of published API prices", 0}
#define AIW_TOKEN_PRICE_NPARAMS 1

typedef struct aiwi_pricing {
	double usd_per_gpu_s;  /* cost of one provisioned GPU for one second */
	double node_overhead_w; /* power per node beyond the GPUs (W) */
	/* the price a spot discount applies to: the on-demand price (spot
	 * capacity is rented, neither reserved nor owned), usd_per_gpu_s when
	 * no on-demand price is known */
	double spot_base_usd_per_gpu_s;
	/* committed_gpus: -1 when unset (the commitment is the peak, every
	 * provisioned GPU-second at usd_per_gpu_s); else the GPUs paid at
	 * usd_per_gpu_s for the whole run, used or not, and the on-demand rate
	 * of the provisioned GPUs above them */
	double commit_gpus;
	double ondemand_usd_per_gpu_s;
} aiwi_pricing;

/* Cost rate (USD/s) of g GPUs provisioned at a commitment (commit_gpus >= 0):
 * the provisioned GPUs up to the commitment at its rate, those above it on
 * demand.  The commitment's unprovisioned GPUs, max(0, N - g), are paid but
 * not provisioned: stranded, kept apart (the bill adds them), as the
 * capacity a fleet without a commitment releases below its peak. */
static inline double aiwi_cost_commit_rate(const aiwi_pricing *p, double g)
{
	double x = g - p->commit_gpus;
	return (x > 0 ? p->commit_gpus * p->usd_per_gpu_s + x * p->ondemand_usd_per_gpu_s
	              : g * p->usd_per_gpu_s);
}

/* A component holding g GPUs for t seconds (training, a scripted load):
 * sets c->paid_gpu_s, c->cost_usd and, at a commitment, the excess and
 * stranded figures (c->excess_gpu_s, excess_usd, stranded_gpu_s,
 * stranded_usd) in closed form; without one, cost = paid x usd_per_gpu_s. */
void aiwi_cost_account_fixed(aiwi_comp *c, const aiwi_pricing *p, double g, double t);

/* The price per GPU-hour of a reserved (ratio of on-demand) or committed
 * (discount on on-demand) pricing for a term (0: 1 year, 1: 3 years). */
double aiwi_cost_term_factor(int mode, int term);

/* Resolve the pricing of component c whose cost entries start at index
 * `first`, for GPU g.  Errors (no price known) are recorded on c->sim. */
aiw_status aiwi_cost_pricing(const aiwi_comp *c, size_t first, const aiwi_gpu_spec *g,
                            aiwi_pricing *out);

/* The rated power beyond its GPUs of a node of component c, whose
 * node_nameplate entry is at index `idx`, on GPU g (may be NULL): the
 * entry when set, else g's catalog node rating, else DGX H100's. */
double aiwi_cost_node_nameplate_w(const aiwi_comp *c, size_t idx, const aiwi_gpu_spec *g);

/* The answers a workload kind's query hook (aiwi_kind.query) gives from
 * its cost entries (at index `first`) and its catalog GPU (the parameter
 * at index igpu; gpus_per_node at ipn, SIZE_MAX: 8 GPUs a node):
 * AIWI_Q_NAMEPLATE_PER_GPU_W (the GPU's TDP + node_nameplate / GPUs per
 * node; unknown without a catalog GPU), AIWI_Q_COMMITTED_GPUS (unknown
 * when unset), AIWI_Q_PRICING, AIWI_Q_GPU_TYPE, AIWI_Q_NETWORK_RATE and
 * AIWI_Q_STORAGE_RATE; false for any other question. */
bool aiwi_cost_query(const aiwi_comp *c, size_t first, size_t igpu, size_t ipn, aiwi_query q,
                     aiwi_answer *out);

/* Whether component c (a kind with AIW_COST_PARAM_DEFS, answering
 * AIWI_Q_PRICING) pays for its GPUs whether it uses them or not: capex
 * (owned) and reserved (committed) pricing.  Capacity such a component releases (an autoscaler scaling
 * down) is stranded, not saved, unless other work uses it. */
bool aiwi_cost_committed(const aiwi_comp *c);

/* Network and storage price of component c per provisioned GPU-second
 * (network_price, storage_price over lifetime plus network_price_per_h,
 * storage_price_per_h / 3600, as the component answers AIWI_Q_NETWORK_RATE
 * and AIWI_Q_STORAGE_RATE; 0 for a kind that does not know them),
 * and their cost over its provisioned GPU-seconds so far: the site adds
 * them to <prefix>.cost_usd, a model to its own cost summaries. */
double aiwi_cost_network_rate(const aiwi_comp *c);
double aiwi_cost_storage_rate(const aiwi_comp *c);
double aiwi_cost_extra_usd(const aiwi_comp *c);

/* What the site charges component k for its IT energy so far (k->energy_j):
 * facility energy (x site.pue) at site.electricity_price, or, with a price
 * series (site.electricity_price_daily or _file), each sample interval's
 * energy at that interval's mean price.  The site publishes it per
 * component as <prefix>.energy_cost_usd; a model uses it for its own
 * summaries (cost per million tokens, per step) so they agree with the
 * site's <prefix>.cost_usd = c->cost_usd + energy cost. */
double aiwi_cost_energy_usd(const aiwi_comp *k);

#endif
