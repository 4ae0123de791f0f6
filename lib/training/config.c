/*
 * config.c - the configuration of a training job, derived from its parameters and
 * cross-checked (aiwi_tcfg): the step's compute and communication, the layout
 * model when `layers` is set, checkpoints, failures, the step budget.
 */
#include "training/training.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static double daly_tau(double d, double M)
{
	if (!(d < 2 * M))
		return M;
	double r = d / (2 * M);
	return sqrt(2 * d * M) * (1 + sqrt(r) / 3 + r / 9) - d;
}

/* Inter-node bytes leaving one node in one all-reduce of S bytes over p
 * ranks, n = ceil(p / g) nodes: a flat ring crosses each node boundary on
 * one hop, which carries 2 (p-1)/p S; the hierarchical rings (one per rail)
 * and the tree's inter-node levels move 2 (n-1)/n S per node (exact for the
 * rings when g divides p; the binomial tree's node-crossing edges form a
 * tree over the nodes). */
static double ew_bytes_per_node(int algo, double S, double p, double g)
{
	double n = ceil(p / g);
	if (n <= 1)
		return 0;
	if (algo == AIW_AR_RING)
		return 2 * (p - 1) / p * S;
	return 2 * (n - 1) / n * S;
}

double aiwi_training_comm_time(const aiwi_tcfg *k, double p, bool degraded, double deg_factor)
{
	return aiwi_allreduce(k->algo, k->grad_bytes, p, k->gpn, &k->intra, &k->inter,
	                     degraded ? deg_factor : 1.0);
}

/* Failures of the job's GPUs per second (0: none): gpus / gpu_mtbf. */
double aiwi_training_failure_rate(const aiwi_comp *c)
{
	return aiwi_pset(c, P_MTBF) ? aiwi_p(c, P_GPUS) / aiwi_p(c, P_MTBF) : 0;
}

enum { MEM_REFUSE, MEM_WARN }; /* memory_check */

/* The global batch in tokens when no parallel layout gives it: tokens_per_step,
 * or tokens_per_gpu x gpus (weak scaling), or 4e6; both set is refused. */
#define DEFAULT_TOKENS_PER_STEP 4e6
static aiw_status step_tokens(aiwi_comp *c, double *out)
{
	bool ts = aiwi_pset(c, P_TOKENS), tg = aiwi_pset(c, P_TOKENS_PER_GPU);
	if (ts && tg)
		return aiwi_err(c->sim, AIW_EINVAL,
		                "%s.tokens_per_step = %g and %s.tokens_per_gpu = %g are both set: set "
		                "one (tokens_per_step = tokens_per_gpu x gpus)",
		                c->prefix, aiwi_p(c, P_TOKENS), c->prefix, aiwi_p(c, P_TOKENS_PER_GPU));
	*out = ts ? aiwi_p(c, P_TOKENS)
	          : tg ? aiwi_p(c, P_TOKENS_PER_GPU) * aiwi_p(c, P_GPUS) : DEFAULT_TOKENS_PER_STEP;
	if (!(*out <= 1e12))
		return aiwi_err(c->sim, AIW_ERANGE,
		                "%s.tokens_per_gpu = %g x gpus = %g gives %g tokens per step; the "
		                "range of tokens_per_step is (0, 1e+12]",
		                c->prefix, aiwi_p(c, P_TOKENS_PER_GPU), aiwi_p(c, P_GPUS), *out);
	return AIW_OK;
}

/* The layout model's part of aiwi_training_derive(): architecture and layout, memory
 * (refused up front when it does not fit), the nominal step. */
static aiw_status derive_layout(aiwi_comp *c, aiwi_tcfg *k)
{
	aiw_sim *sim = c->sim;
	const char *p = c->prefix;
	static const size_t REQ[] = {P_HIDDEN, P_HEADS, P_VOCAB, P_SEQ};
	for (size_t i = 0; i < sizeof REQ / sizeof *REQ; i++)
		if (!aiwi_pset(c, REQ[i]))
			return aiwi_err(sim, AIW_ESCENARIO,
			                "%s.%s is not set: the layout model (layers = %g) needs layers, "
			                "hidden, heads, vocab and seq_len",
			                p, aiwi_training_params[REQ[i]].key, aiwi_p(c, P_LAYERS));
	aiwi_tarch *A = &k->A;
	A->layers = aiwi_p(c, P_LAYERS);
	A->hidden = aiwi_p(c, P_HIDDEN);
	A->ffn = aiwi_pset(c, P_FFN) ? aiwi_p(c, P_FFN) : 4 * A->hidden;
	A->heads = aiwi_p(c, P_HEADS);
	A->kv_heads = aiwi_pset(c, P_KV_HEADS) ? aiwi_p(c, P_KV_HEADS) : A->heads;
	A->vocab = aiwi_p(c, P_VOCAB);
	A->seq = aiwi_p(c, P_SEQ);
	A->experts = aiwi_p(c, P_EXPERTS);
	A->topk = aiwi_p(c, P_TOPK);
	A->expert_ffn = aiwi_pset(c, P_EXPERT_FFN) ? aiwi_p(c, P_EXPERT_FFN) : A->ffn;
	A->mlp = (int)aiwi_p(c, P_MLP);
	A->attention = (int)aiwi_p(c, P_ATTENTION);
	A->tied = aiwi_p(c, P_TIED) != 0;
	aiwi_tlayout *L = &k->L;
	L->gpus = k->N;
	L->gpn = k->gpn;
	L->tp = aiwi_p(c, P_TP);
	L->pp = aiwi_p(c, P_PP);
	L->v = aiwi_p(c, P_VSTAGES);
	L->first_layers = aiwi_pset(c, P_FIRST_LAYERS) ? aiwi_p(c, P_FIRST_LAYERS) : 0;
	L->last_layers = aiwi_pset(c, P_LAST_LAYERS) ? aiwi_p(c, P_LAST_LAYERS) : 0;
	L->cp = aiwi_p(c, P_CP);
	L->ep = aiwi_p(c, P_EP);
	L->dp = aiwi_pset(c, P_DP) ? aiwi_p(c, P_DP) : 0;
	L->micro_batch = aiwi_p(c, P_MICRO_BATCH);
	if (aiwi_pset(c, P_GLOBAL_BATCH)) {
		L->global_batch = aiwi_p(c, P_GLOBAL_BATCH);
	} else {
		double tokens;
		aiw_status tst = step_tokens(c, &tokens);
		if (tst != AIW_OK)
			return tst;
		L->global_batch = tokens / A->seq;
		if (floor(L->global_batch) != L->global_batch)
			return aiwi_err(sim, AIW_ERANGE,
			                "%s.tokens_per_step = %g is not a multiple of seq_len = %g: set "
			                "global_batch (sequences per step)",
			                p, tokens, A->seq);
	}
	L->schedule = (int)aiwi_p(c, P_SCHEDULE);
	L->zero = (int)aiwi_p(c, P_ZERO);
	L->recompute = (int)aiwi_p(c, P_RECOMPUTE);
	L->sp = aiwi_p(c, P_SP) != 0;
	L->tp_overlap = aiwi_p(c, P_TP_OVERLAP) != 0;
	L->precision = (int)aiwi_p(c, P_PRECISION);
	char e[400];
	if (aiwi_tlayout_check(L, A, e, sizeof e) != AIW_OK)
		return aiwi_err(sim, AIW_ERANGE, "%s: %s", p, e);
	k->tokens_per_step = L->global_batch * A->seq;
	/* memory, refused up front */
	double gb = aiwi_p(c, P_GRAD_BYTES), ob = aiwi_p(c, P_OPTIM_BYTES);
	aiwi_tmem_per_gpu(A, L, 2, gb, ob, aiwi_p(c, P_MEM_BUFFERS), &k->mem);
	const aiwi_tmem *M = &k->mem;
	if (M->total > k->g.mem_bytes && aiwi_p(c, P_MEM_CHECK) == MEM_WARN) {
		aiwi_warn(sim, "%s: the layout needs %.1f GB per GPU but %s has %.1f GB; run as "
		          "memory_check = warn",
		          p, M->total / 1e9, k->g.name, k->g.mem_bytes / 1e9);
	} else if (M->total > k->g.mem_bytes) {
		static const char *const HINT[AIWI_M_N] = {
			"raise tp or pp, or zero_stage = 3",
			"zero_stage = 2, or raise tp or pp",
			"zero_stage = 1 (or more), or raise tp or pp",
			"recompute = selective or full, sequence_parallel = true, a smaller "
			"micro_batch, or raise tp, pp or cp",
			"lower memory_buffers",
		};
		const char *hint = HINT[M->largest];
		if (M->largest == AIWI_M_OPTIM && L->zero >= 1)
			hint = "raise dp, tp or pp";
		if (M->largest == AIWI_M_GRADS && L->zero >= 2)
			hint = "raise dp, tp or pp";
		char where[96] = "";
		double n3[3];
		if (aiwi_tlayout_stages(L, A, n3))
			snprintf(where, sizeof where, " on pipeline stage %d of %g (%g layers)", M->stage,
			         L->pp, M->stage_layers);
		return aiwi_err(sim, AIW_ERANGE,
		                "%s: the layout needs %.1f GB per GPU%s but %s has %.1f GB (weights %.1f, "
		                "gradients %.1f, optimizer states %.1f, activations %.1f, buffers "
		                "%.1f GB); the largest term is %s (%.1f GB): try %s",
		                p, M->total / 1e9, where, k->g.name, k->g.mem_bytes / 1e9,
		                M->term[AIWI_M_WEIGHTS] / 1e9, M->term[AIWI_M_GRADS] / 1e9,
		                M->term[AIWI_M_OPTIM] / 1e9, M->term[AIWI_M_ACT] / 1e9,
		                M->term[AIWI_M_BUFFERS] / 1e9, aiwi_tmem_term_name(M->largest),
		                M->term[M->largest] / 1e9, hint);
	}
	/* hardware */
	aiwi_thw H = {.bf16_flops = k->g.bf16_flops, .fp8_flops = k->g.fp8_flops,
	              .bf16_eff = k->g.bf16_gemm_eff, .fp8_eff = k->g.fp8_gemm_eff,
	              .mem_bw = k->g.mem_bw, .intra = k->intra, .inter = k->inter,
	              .dp_algo = k->algo, .dp_link_factor = 1, .grad_bytes = gb,
	              .weight_bytes = 2};
	if (aiwi_pset(c, P_GEMM_EFF)) {
		if (L->precision == AIWI_PREC_FP8)
			H.fp8_eff = aiwi_p(c, P_GEMM_EFF);
		else
			H.bf16_eff = aiwi_p(c, P_GEMM_EFF);
	}
	if (L->precision == AIWI_PREC_FP8 && !(k->g.fp8_flops > 0))
		return aiwi_err(sim, AIW_ERANGE,
		                "%s.precision = fp8: %s.gpu = %s has no fp8_flops (use bf16)", p, p,
		                k->g.name);
	aiwi_tstep S0;
	if (aiwi_tstep_compute(A, L, &H, &S0, e, sizeof e) != AIW_OK)
		return aiwi_err(sim, AIW_ERANGE, "%s: %s", p, e);
	if (aiwi_p(c, P_DEG_LINKS) > 0)
		H.dp_link_factor = aiwi_p(c, P_DEG_FACTOR);
	if (aiwi_tstep_compute(A, L, &H, &k->S, e, sizeof e) != AIW_OK)
		return aiwi_err(sim, AIW_ERANGE, "%s: %s", p, e);
	k->H = H;
	const aiwi_tstep *S = &k->S;
	k->layout = true;
	k->t_c = S->compute;
	k->bubble = S->bubble;
	k->e = S->tp + S->cp + S->ep + S->pp_transfer + S->dp;
	k->e0 = S0.tp + S0.cp + S0.ep + S0.pp_transfer + S0.dp;
	k->t_comm = S->dp_total;
	double psi_d, psi_e, lds;
	aiwi_tlayout_stage_params(L, A, &psi_d, &psi_e, &lds);
	k->grad_bytes = gb * (psi_d + psi_e);
	k->ar_ranks = L->dp;
	/* east-west: the DP reduction's inter-node bytes, every GPU of a node */
	aiwi_tgroup gdp = aiwi_tlayout_group(L, AIWI_G_DP);
	double nodes_dp = gdp.n / gdp.per_node;
	k->ew_node = nodes_dp > 1 ? k->gpn * 2 * (nodes_dp - 1) / nodes_dp * k->grad_bytes /
	                                    gdp.per_node
	                          : 0;
	aiwi_tflops F;
	aiwi_tflops_per_token(A, L->recompute, &F);
	k->flops_per_token = F.model;
	k->peak = L->precision == AIWI_PREC_FP8 ? k->g.fp8_flops : k->g.bf16_flops;
	k->hw_flops_step = F.hardware * k->tokens_per_step;
	k->tel_peak = k->peak;
	return AIW_OK;
}

/* Checkpoint write time of the layout model: the whole state (params x
 * checkpoint_bytes_per_param) at storage_bw, or each writer's shard at its
 * NIC when that is slower; writers: every GPU under ZeRO >= 1, one
 * data-parallel replica (tp x pp x cp GPUs) otherwise. */
static double layout_ckpt_time(aiwi_comp *c, const aiwi_tcfg *k)
{
	aiwi_tparams P;
	aiwi_tarch_params(&k->A, &P);
	double total = P.total * aiwi_p(c, P_CKPT_BYTES);
	double writers = k->L.zero >= 1 ? k->N : k->L.tp * k->L.pp * k->L.cp;
	return fmax(total / aiwi_p(c, P_STORAGE_BW), total / writers / k->g.nic_bw);
}

/* Without `layers` the step is 6 N D at mfu (or step_compute): no setting
 * of the layout model's part of the table (P_LAYOUT_FIRST on) is read, so
 * one whose value is not the table's default is refused (given as the
 * default, or "none" where that is the default, it changes nothing). */
static aiw_status check_layout_unused(aiwi_comp *c)
{
	for (size_t i = P_LAYOUT_FIRST; i < P_NPARAMS; i++) {
		const aiwi_param_def *d = &aiwi_training_params[i];
		const aiwi_value *v = &c->v[i];
		if (i == P_LAYERS)
			continue;
		bool differs = v->set;
		if (d->def) {
			aiwi_value dv = {0};
			char e[200];
			if (aiwi_value_parse(d, d->def, "", &dv, e, sizeof e) != AIW_OK)
				return aiwi_err(c->sim, AIW_EINVAL, "%s.%s: default '%s': %s", c->prefix,
				                d->key, d->def, e);
			differs = v->set != dv.set || (v->set && v->d != dv.d);
			aiwi_value_free(&dv);
		}
		if (!differs)
			continue;
		char text[64];
		if (v->s && *v->s)
			snprintf(text, sizeof text, "%s", v->s);
		else
			aiwi_value_format(d, v, text, sizeof text);
		return aiwi_err(c->sim, AIW_ESCENARIO,
		                "%s.%s = %s needs the architecture: it is a setting of the layout "
		                "model, read only when layers is set; set layers, hidden, heads, vocab "
		                "and seq_len, or remove %s (without layers a step is 6 x model_params "
		                "x tokens_per_step FLOP at mfu)",
		                c->prefix, d->key, text, d->key);
	}
	return AIW_OK;
}

/* A data-parallel job (no layers) that cannot hold its model states on
 * its GPUs under any layout is refused: weights 2, gradients
 * grad_bytes_per_param and optimizer optimizer_bytes_per_param bytes per
 * parameter (2 + 2 + 12 = 16 for mixed-precision Adam, Rajbhandari et al.
 * 2020), sharded over every GPU, plus memory_buffers (aiwi_tmem_data_parallel);
 * the message names the need, the memory, the largest term and the GPUs
 * from which the states fit. */
static aiw_status check_dp_memory(aiwi_comp *c, aiwi_tcfg *k, double params)
{
	double wb = 2, gb = aiwi_p(c, P_GRAD_BYTES), ob = aiwi_p(c, P_OPTIM_BYTES);
	double buffers = aiwi_p(c, P_MEM_BUFFERS);
	aiwi_tmem M;
	aiwi_tmem_data_parallel(params, k->N, wb, gb, ob, buffers, &M);
	if (!(M.total > k->g.mem_bytes))
		return AIW_OK;
	if (aiwi_p(c, P_MEM_CHECK) == MEM_WARN) {
		aiwi_warn(c->sim,
		          "%s: model_params = %g needs at least %.1f GB per GPU on gpus = %g (model "
		          "states sharded over every GPU, %g B per parameter) but %s has %.1f GB; run "
		          "as memory_check = warn",
		          c->prefix, params, M.total / 1e9, k->N, wb + gb + ob, k->g.name,
		          k->g.mem_bytes / 1e9);
		return AIW_OK;
	}
	double room = k->g.mem_bytes - buffers;
	char fit[160];
	if (room > 0)
		snprintf(fit, sizeof fit, "the states fit from gpus = %.0f (%g B x %g / %.1f GB)",
		         ceil((wb + gb + ob) * params / room), wb + gb + ob, params, room / 1e9);
	else
		snprintf(fit, sizeof fit, "%s's memory does not hold the buffers", k->g.name);
	return aiwi_err(c->sim, AIW_ERANGE,
	                "%s: model_params = %g needs at least %.1f GB per GPU on gpus = %g but %s "
	                "has %.1f GB (model states sharded over every GPU, %g B per parameter: "
	                "weights %.1f, gradients %.1f, optimizer states %.1f, buffers %.1f GB; "
	                "activations not counted); the largest term is %s (%.1f GB): %s; set layers "
	                "and the architecture for the layout model, which checks a layout (tp, pp, "
	                "zero_stage) with its activations",
	                c->prefix, params, M.total / 1e9, k->N, k->g.name, k->g.mem_bytes / 1e9,
	                wb + gb + ob, M.term[AIWI_M_WEIGHTS] / 1e9, M.term[AIWI_M_GRADS] / 1e9,
	                M.term[AIWI_M_OPTIM] / 1e9, buffers / 1e9, aiwi_tmem_term_name(M.largest),
	                M.term[M.largest] / 1e9, fit);
}

/* A step whose exposed communication (k->e, healthy links) exceeds its
 * compute is communication-bound: the run goes on, with a warning giving
 * both, the compute's share of the nominal step and the model's MFU. */
static void warn_comm_bound(aiwi_comp *c, const aiwi_tcfg *k)
{
	if (!(k->e0 > k->t_c))
		return;
	double step = k->t_c + k->e0 + (k->layout ? k->bubble : 0);
	double mfu = k->layout ? k->S.mfu * k->S.step / step : 0;
	if (!k->layout && !aiwi_pset(c, P_STEP_COMPUTE))
		mfu = aiwi_p(c, P_MFU) * k->t_c / step;
	char m[64] = "";
	if (mfu > 0)
		snprintf(m, sizeof m, ", MFU %.1f%%", 100 * mfu);
	aiwi_warn(c->sim,
	          "%s: communication-bound: exposed communication %.3g s per step exceeds the "
	          "compute %.3g s (compute %.0f%% of the step%s); %s",
	          c->prefix, k->e0, k->t_c, 100 * k->t_c / step, m,
	          k->layout ? "a larger global_batch or fewer gpus per step, or a layout with "
	                      "less exposed communication (step_*_s metrics)"
	                    : "a larger tokens_per_step (or tokens_per_gpu), fewer gpus, or more "
	                      "overlap");
}

/* Read and cross-check every parameter of c into *k.  Messages name the
 * parameter, its value and the allowed range. */
aiw_status aiwi_training_derive(aiwi_comp *c, aiwi_tcfg *k)
{
	aiw_sim *sim = c->sim;
	memset(k, 0, sizeof *k);
	const aiwi_gpu_spec *gs = NULL;
	aiw_status st = aiwi_hw_gpu_get(sim, aiwi_ps(c, P_GPU), &gs);
	if (st != AIW_OK) {
		char msg[700];
		snprintf(msg, sizeof msg, "%s", aiw_sim_errmsg(sim));
		return aiwi_err(sim, st, "%s.gpu = %s: %s", c->prefix, aiwi_ps(c, P_GPU), msg);
	}
	k->g = *gs;
	aiwi_hw_gpu_links(&k->g, &k->intra, &k->inter);
	if ((st = aiwi_cost_pricing(c, P_COST, &k->g, &k->price)) != AIW_OK)
		return st;
	k->algo = (int)aiwi_p(c, P_ALLREDUCE);
	k->N = aiwi_p(c, P_GPUS);
	k->gpn = aiwi_p(c, P_GPN);
	k->nodes = ceil(k->N / k->gpn);
	k->spares = aiwi_p(c, P_SPARES);
	k->nodes_spare = ceil(k->spares / k->gpn);
	k->n_slow = aiwi_p(c, P_SLOW_GPUS);
	if (k->n_slow > k->N)
		return aiwi_err(sim, AIW_ERANGE,
		                "%s.slow_gpus = %g exceeds %s.gpus = %g (allowed 0 to gpus)", c->prefix,
		                k->n_slow, c->prefix, k->N);
	k->n_fast = k->N - k->n_slow;
	k->slow_factor = aiwi_p(c, P_SLOW_FACTOR);
	const aiwi_dist *jit = aiwi_pd(c, P_JITTER);
	double mu = aiwi_dist_mean(jit);
	if (!(mu > 0))
		return aiwi_err(sim, AIW_ERANGE,
		                "%s.jitter = %s has mean %g: a compute time multiplier needs a mean > 0 "
		                "(e.g. lognormal(0,0.03))",
		                c->prefix, aiwi_ps(c, P_JITTER), mu);
	k->mu = mu;
	if ((st = step_tokens(c, &k->tokens_per_step)) != AIW_OK)
		return st;
	double params = aiwi_p(c, P_MODEL_PARAMS);
	k->ar_ranks = k->N;
	if (!aiwi_pset(c, P_LAYERS) && (st = check_layout_unused(c)) != AIW_OK)
		return st;
	if (aiwi_pset(c, P_LAYERS) && aiwi_pset(c, P_POWER_CAP))
		return aiwi_err(sim, AIW_EINVAL,
		                "%s.power_cap needs the mfu or step_compute model (layers unset): the "
		                "layout model's element-wise kernels are memory-bound",
		                c->prefix);
	if (aiwi_pset(c, P_LAYERS)) {
		if ((st = derive_layout(c, k)) != AIW_OK)
			return st;
		k->overlap = aiwi_p(c, P_OVERLAP);
	} else if (aiwi_pset(c, P_STEP_COMPUTE)) {
		k->t_c = aiwi_p(c, P_STEP_COMPUTE);
	} else {
		if (!(k->g.bf16_flops > 0))
			return aiwi_err(sim, AIW_ERANGE,
			                "%s.gpu = %s has no bf16_flops: set %s.step_compute instead of mfu",
			                c->prefix, k->g.name, c->prefix);
		k->t_c = 6 * params * k->tokens_per_step / (k->N * k->g.bf16_flops * aiwi_p(c, P_MFU));
	}
	if (!(k->t_c > 0 && isfinite(k->t_c)))
		return aiwi_err(sim, AIW_ERANGE, "%s: step compute time %g s is not a positive finite time",
		                c->prefix, k->t_c);
	/* power_cap: the serving fleet's law (lib/inference/serving.c,
	 * cap_setup): compute drawing compute_w above the cap c runs at
	 * f = ((c - s) / (compute_w - s))^(1/3) and draws c, s the static floor;
	 * the whole compute time of this model is FLOP-bound (6 P tokens / (N
	 * peak mfu), or step_compute), so it takes 1/f longer; the collectives
	 * keep their time, every phase draws the cap at most */
	k->clock = 1;
	k->compute_w0 = k->g.compute_w;
	k->cap_floor_w = aiwi_pset(c, P_POWER_CAP_FLOOR) ? aiwi_p(c, P_POWER_CAP_FLOOR) : k->g.idle_w;
	if (aiwi_pset(c, P_POWER_CAP)) {
		double cap = aiwi_p(c, P_POWER_CAP);
		double s = k->cap_floor_w;
		if (!(s < cap))
			return aiwi_err(sim, AIW_EINVAL,
			                "%s.power_cap = %g W is not above its static floor power_cap_floor = "
			                "%g W: the range is (power_cap_floor, 1e5] W",
			                c->prefix, cap, s);
		if (k->g.compute_w > cap) {
			k->clock = cbrt((cap - s) / (k->g.compute_w - s));
			k->t_c /= k->clock;
		}
		k->g.compute_w = fmin(k->g.compute_w, cap);
		k->g.comm_w = fmin(k->g.comm_w, cap);
		k->g.idle_w = fmin(k->g.idle_w, cap);
		k->g.loading_w = fmin(k->g.loading_w, cap);
	}
	/* GPU power smoothing (phase.c): the floor in W, the ramp-down rate;
	 * the staggered bubble (layout model) */
	k->floor_w = aiwi_pset(c, P_POWER_FLOOR) ? aiwi_p(c, P_POWER_FLOOR) * k->g.tdp_w : 0;
	if (aiwi_pset(c, P_POWER_FLOOR) && !(k->g.tdp_w > 0))
		return aiwi_err(sim, AIW_ERANGE,
		                "%s.power_floor = %g needs the GPU's tdp_w (%s has tdp_w = %g W)",
		                c->prefix, aiwi_p(c, P_POWER_FLOOR), k->g.name, k->g.tdp_w);
	if (aiwi_pset(c, P_POWER_CAP) && k->floor_w > aiwi_p(c, P_POWER_CAP))
		return aiwi_err(sim, AIW_EINVAL,
		                "%s.power_floor = %g (%g W of tdp_w %g W) is above power_cap = %g W: "
		                "the range is [0, %g]",
		                c->prefix, aiwi_p(c, P_POWER_FLOOR), k->floor_w, k->g.tdp_w,
		                aiwi_p(c, P_POWER_CAP), aiwi_p(c, P_POWER_CAP) / k->g.tdp_w);
	k->ramp_down = aiwi_pset(c, P_RAMP_DOWN) ? aiwi_p(c, P_RAMP_DOWN) : INFINITY;
	k->staggered = k->layout && aiwi_p(c, P_BUBBLE_SHAPE) == 1 && k->L.pp > 1;
	k->smooth = aiwi_pset(c, P_POWER_FLOOR) || aiwi_pset(c, P_RAMP_DOWN);
	if (!k->layout && (st = check_dp_memory(c, k, params)) != AIW_OK)
		return st;
	if (!k->layout) {
		k->grad_bytes = params * aiwi_p(c, P_GRAD_BYTES);
		k->overlap = aiwi_p(c, P_OVERLAP);
		bool degraded = aiwi_p(c, P_DEG_LINKS) > 0;
		k->t_comm = aiwi_training_comm_time(k, k->N, degraded, aiwi_p(c, P_DEG_FACTOR));
		double t_comm0 = aiwi_training_comm_time(k, k->N, false, 1);
		k->e = fmax(0, k->t_comm - k->overlap * k->t_c);
		k->e0 = fmax(0, t_comm0 - k->overlap * k->t_c);
		k->ew_node = ew_bytes_per_node(k->algo, k->grad_bytes, k->N, k->gpn);
	}
	/* checkpoints */
	if (aiwi_pset(c, P_CKPT_TIME) && !c->v[P_CKPT_TIME].is_auto)
		k->w = aiwi_p(c, P_CKPT_TIME);
	else if (k->layout)
		k->w = layout_ckpt_time(c, k);
	else
		k->w = params * aiwi_p(c, P_CKPT_BYTES) / aiwi_p(c, P_STORAGE_BW);
	if (!isfinite(k->w) || k->w > 1e7)
		return aiwi_err(sim, AIW_ERANGE,
		                "%s: checkpoint_time = %g s (model_params x checkpoint_bytes_per_param "
		                "/ storage_bw) is above 1e7 s: raise storage_bw",
		                c->prefix, k->w);
	k->fail_rate = aiwi_training_failure_rate(c);
	if (!aiwi_pset(c, P_CKPT_INTERVAL))
		k->tau = INFINITY;
	else if (c->v[P_CKPT_INTERVAL].is_auto)
		k->tau = k->fail_rate > 0 ? daly_tau(k->w, 1 / k->fail_rate) : INFINITY;
	else
		k->tau = aiwi_p(c, P_CKPT_INTERVAL);
	k->ckpt_fail_p = aiwi_p(c, P_CKPT_FAIL);
	if (k->ckpt_fail_p > 0 && !isfinite(k->tau))
		aiwi_warn(sim,
		          "%s: checkpoint_failure_prob = %g has no effect: the job never checkpoints "
		          "(checkpoint_interval = none, or auto without failures)",
		          c->prefix, k->ckpt_fail_p);
	k->steps_budget = INFINITY;
	if (aiwi_pset(c, P_MAX_STEPS))
		k->steps_budget = aiwi_p(c, P_MAX_STEPS);
	if (aiwi_pset(c, P_MAX_TOKENS))
		k->steps_budget = fmin(k->steps_budget, ceil(aiwi_p(c, P_MAX_TOKENS) / k->tokens_per_step));
	k->fixed_w = (k->nodes + k->nodes_spare) * k->price.node_overhead_w + k->spares * k->g.idle_w;
	if (!k->layout) { /* 6 N D: forward and backward, no recomputation */
		k->hw_flops_step = 6 * params * k->tokens_per_step;
		k->tel_peak = k->g.bf16_flops > 0 ? k->g.bf16_flops : 0;
	}
	warn_comm_bound(c, k);
	return AIW_OK;
}

/* The site's capping controller (lib/site/capping.c): the same law as
 * power_cap above, at the lower of the two caps.  The configuration T->kc
 * is T->k with the compute at the new clock (t_c x clock / f), the exposed
 * communication shortened by what the longer compute now hides, and every
 * phase drawing the cap at most; the steps drawn from now on take it (the
 * step in progress keeps its draws: its energy stays exact).  A cap at or
 * below the static floor would stop the clock: it is held at the floor +
 * 1 % of the dynamic range. */
void aiwi_training_cap_rebuild(aiwi_comp *c, aiwi_tjob *T)
{
	free(T->kc);
	T->kc = NULL;
	const aiwi_tcfg *k = &T->k;
	if (!(T->ctl_frac < 1) || k->layout)
		return;
	double s = k->cap_floor_w, D = k->compute_w0;
	double cap = fmax(T->ctl_frac * k->g.tdp_w, s + 0.01 * fmax(D - s, 0));
	aiwi_tcfg *q = malloc(sizeof *q);
	if (!q) {
		aiwi_err(c->sim, AIW_ENOMEM, "out of memory capping %s", c->prefix);
		aiwi_fail(c->sim, AIW_ENOMEM);
		return;
	}
	*q = *k;
	if (cap < k->g.compute_w) {
		q->clock = cbrt((cap - s) / (D - s));
		q->t_c = k->t_c * k->clock / q->clock;
		q->e = fmax(0, k->t_comm - k->overlap * q->t_c);
		q->e0 = fmax(0, k->e0 - k->overlap * (q->t_c - k->t_c));
	}
	q->g.compute_w = fmin(k->g.compute_w, cap);
	q->g.comm_w = fmin(k->g.comm_w, cap);
	q->g.idle_w = fmin(k->g.idle_w, cap);
	q->g.loading_w = fmin(k->g.loading_w, cap);
	T->kc = q;
}

void aiwi_training_site_cap(aiwi_comp *c, double frac)
{
	aiwi_tjob *T = c->state;
	if (!T || T->ctl_frac == frac)
		return;
	T->ctl_frac = frac;
	aiwi_training_cap_rebuild(c, T);
}
