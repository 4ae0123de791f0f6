/*
 * fleet_timing.c - timing = iteration: the span times of the per-iteration
 * model (iteration.h) instead of the plain roofline.  The coefficients are
 * the datasheet's (aiwi_iter_datasheet: the catalog's efficiencies, the
 * collective model on the replica's link, AIWI_ITER_OVERHEAD_S), a measured
 * profile's fit (profile = FILE, profile.h), or set one by one
 * (prefill.TERM, decode.TERM), in that order of precedence from the last;
 * they fold into the constants of the span maths (span.h), once per run.
 * Part of serving.c's translation unit: included by it after fleet.h.
 */
#include "inference/profile.h"

#include <sys/stat.h>

_Static_assert(P_COST - P_ITER_COEF == 2 * AIWI_IT_NTERMS,
               "serving_params: one prefill.TERM and one decode.TERM per term of iteration.h");

/* The coefficients of a fleet whose table is a profile: the fit of its rows
 * for the fleet's GPU (profile_gpu, else gpu), per phase, over all their
 * tensor- and pipeline-parallel degrees.  The table is read as measurements
 * of the profile's model (profile.h: Llama-2-70B), like `aiworkload
 * calibrate FILE`, whose snippet gives the same coefficients; they multiply
 * this fleet's own datasheet terms.  The table must have rows at the fleet's
 * tp (gpus_per_replica / pp) and pp together (a row without a pp column is
 * pp 1): a fit of free coefficients (the overhead can come out negative) is
 * only checked where it was measured, and between measured degrees it can
 * be far off (Splitwise's H100 rows, tp 2 and 8, fit a decode of 0.8 ms at
 * tp 4); the snippet's coefficients, set by hand, go anywhere. */
static aiw_status timing_profile(aiwi_comp *c, double tp, double pp,
                                 double beta[AIWI_PH_N][AIWI_IT_NTERMS])
{
	aiw_sim *sim = c->sim;
	const char *path = aiwi_ps(c, P_PROFILE);
	const char *gpu = aiwi_pset(c, P_PROFILE_GPU) ? aiwi_ps(c, P_PROFILE_GPU) : aiwi_ps(c, P_GPU);
	/* the fit of the same file for the same GPU and degrees, as another
	 * run of the sweep left it (core/memo.c): the table read once per
	 * sweep, not once per run */
	/* the key: the GPU's rows, the degrees checked, and the coefficients
	 * the fit starts from and holds (the fleet's datasheet ones, which a
	 * [gpu] section can change from one point to the next) */
	char key[1024];
	int kl = snprintf(key, sizeof key, "inference.profile fit|%s|%.17g|%.17g", gpu, tp, pp);
	for (int i = 0; i < AIWI_PH_N * AIWI_IT_NTERMS && kl > 0 && (size_t)kl < sizeof key; i++)
		kl += snprintf(key + kl, sizeof key - (size_t)kl, "|%a",
		               beta[i / AIWI_IT_NTERMS][i % AIWI_IT_NTERMS]);
	aiwi_memo *memo = kl > 0 && (size_t)kl < sizeof key ? aiwi_sim_memo(sim) : NULL;
	if (memo && aiwi_memo_get(memo, path, key, beta, sizeof(double[AIWI_PH_N][AIWI_IT_NTERMS])))
		return AIW_OK;
	struct stat read_as;
	bool known = memo && stat(path, &read_as) == 0;
	aiwi_profile *p = malloc(sizeof *p);
	if (!p)
		return aiwi_err(sim, AIW_ENOMEM, "out of memory");
	aiwi_prof_init(p);
	aiw_status st = aiwi_prof_read(p, path);
	if (st != AIW_OK) {
		st = aiwi_err(sim, st, "%s.profile: %s", c->prefix, p->err); /* it names the file */
		goto done;
	}
	int g = aiwi_prof_group_find(p, gpu);
	if (g < 0) {
		char have[400] = "";
		size_t len = 0;
		for (size_t i = 0; i < p->ngroups && len < sizeof have; i++)
			len += (size_t)snprintf(have + len, sizeof have - len, "%s%s (%s)", i ? ", " : "",
			                        p->groups[i].name, p->groups[i].gpu);
		st = aiwi_err(sim, AIW_EINVAL,
		              "%s.profile = %s: no rows for GPU %s (the table has %s); set "
		              "%s.profile_gpu to one of them",
		              c->prefix, path, gpu, p->ngroups ? have : "no rows", c->prefix);
		goto done;
	}
	bool at = false;
	char degs[200] = "";
	for (size_t i = 0, len = 0; i < p->nrows; i++) {
		const aiwi_prof_row *r = &p->rows[i];
		if (r->group != g)
			continue;
		at |= r->tp == tp && r->pp == pp;
		if (len >= sizeof degs)
			continue; /* the list is full: no more to name */
		bool seen = false; /* the table's degrees, each once */
		for (size_t j = 0; j < i && !seen; j++)
			seen = p->rows[j].group == g && p->rows[j].tp == r->tp && p->rows[j].pp == r->pp;
		if (seen || len >= sizeof degs)
			continue;
		if (r->pp == 1)
			len += (size_t)snprintf(degs + len, sizeof degs - len, "%s%g", len ? ", " : "", r->tp);
		else
			len += (size_t)snprintf(degs + len, sizeof degs - len, "%s%g pp %g",
			                        len ? ", " : "", r->tp, r->pp);
	}
	if (!at) {
		char want[64];
		if (pp == 1)
			snprintf(want, sizeof want, "tp %g (gpus_per_replica", tp);
		else
			snprintf(want, sizeof want, "tp %g pp %g (gpus_per_replica / pp, pp", tp, pp);
		st = aiwi_err(sim, AIW_EINVAL,
		              "%s.profile = %s: no rows for %s at %s; the table has tp %s): the fit "
		              "is only checked where it was measured (set the coefficients, e.g. "
		              "from aiworkload calibrate --out, to use it elsewhere)",
		              c->prefix, path, p->groups[g].name, want, degs);
		goto done;
	}
	for (int ph = 0; ph < AIWI_PH_N; ph++) {
		double se[AIWI_IT_NTERMS];
		size_t used = 0;
		st = aiwi_prof_fit(p, g, ph, NULL, beta[ph], se, &used);
		if (st != AIW_OK) {
			st = aiwi_err(sim, st, "%s.profile = %s: %s", c->prefix, path, p->err);
			goto done;
		}
	}
	if (known)
		aiwi_memo_put(memo, path, key, beta, sizeof(double[AIWI_PH_N][AIWI_IT_NTERMS]), &read_as);
done:
	aiwi_prof_clear(p);
	free(p);
	return st;
}

/* The lowest time of c0 + cm m + cu T + cv Q over a prefill's reachable
 * sizes: m prompts (1 .. mmax), T tokens (m .. cap), Q between T^2 / m (equal
 * lengths) and T^2 (one long prompt); *at_m and *at_t get where. */
static double timing_prefill_min(const double k[4], double mmax, double cap, double *at_m,
                                 double *at_t)
{
	double best = INFINITY;
	for (double m = 1; m <= mmax; m++) {
		double q = k[3] >= 0 ? k[3] / m : k[3]; /* the Q coefficient at its worst */
		double lo = m, hi = cap, cand[3] = {lo, hi, lo};
		if (q > 0) { /* the vertex of the quadratic in T, if inside */
			double v = -k[2] / (2 * q);
			cand[2] = v > lo && v < hi ? v : lo;
		}
		for (int i = 0; i < 3; i++) {
			double T = cand[i], t = k[0] + k[1] * m + k[2] * T + q * T * T;
			if (t < best)
				best = t, *at_m = m, *at_t = T;
		}
	}
	return best;
}

/* The model dimension d: hidden_size when set, else the d of a dense
 * transformer of model_params weights and `layers` layers, from
 * P = 12 L d^2 (Kaplan et al. 2020, "Scaling laws for neural language
 * models", eq. 2.1: the attention's 4 d^2 and the MLP's 8 d^2 per layer,
 * embeddings left out), not rounded.  Llama-2-70B's 68.98e9 weights over
 * its 80 layers give 8,476 against its 8,192 (its grouped-query attention
 * and 3.5 d MLP hold 12.8 d^2 per layer); GPT-3 175B's over 96 layers
 * give about 12,300 against 12,288. */
static double timing_hidden(const aiwi_comp *c, double params)
{
	if (aiwi_pset(c, P_HIDDEN))
		return aiwi_p(c, P_HIDDEN);
	return sqrt(params / (12 * aiwi_p(c, P_LAYERS)));
}

/* ---- speculative decoding ----
 * A draft proposes k tokens per sequence, the target verifies them in one
 * iteration of k + 1 tokens per sequence, and each is accepted with
 * probability a, the same for every token (Leviathan, Kalman & Matias
 * 2023, "Fast Inference from Transformers via Speculative Decoding",
 * ICML: the i.i.d. assumption of their section 3.1); the tokens of a
 * verification, the accepted ones and the target's own after them, are
 * 1 + min(G, k) with G geometric, whose expectation is their eq. 1,
 *   E = (1 - a^(k+1)) / (1 - a)      (k + 1 at a = 1).
 * The model takes the expectation, not a draw: every sequence of a batch
 * gains E tokens per verification, so that a decode iteration of the span
 * maths (a token of every sequence, the context growing by n) is 1 / E of
 * a verification step, and its time is the step's over E:
 *   step(n, S) = verify(n, S) + k draft(n, S)
 * where verify is the decode iteration with k + 1 tokens per sequence (the
 * GEMM FLOPs, the attention FLOPs over the context and the all-reduces'
 * bytes k + 1 times; the weights, the KV cache, the fixed and per-sequence
 * costs once), and draft either the same model's decode terms for the draft
 * (draft: draft_params weights, draft_layers layers, d from P = 12 L d^2,
 * KV bytes per token in proportion to L d; without the fixed and
 * per-sequence costs, which the verification's iteration carries) or
 * draft_cost times the target's decode iteration (heads).  The draft
 * prefills the prompt too: its prefill terms (draft), or draft_cost times
 * the prefill (heads).  All are affine in (n, S), so the fold stays four
 * constants.  What the expectation leaves out: a request's last
 * verification is a whole step (here its fraction), and the spread of its
 * accepted tokens from step to step (doc/inference.md). */
static double spec_expected_tokens(double k, double a)
{
	return a < 1 ? (1 - pow(a, k + 1)) / (1 - a) : k + 1;
}

/* The mode, E and the draft's shape; the draft's weights and KV cache out
 * of the replica's memory; the FLOPs and bytes of a decode iteration (off:
 * the target's alone). */
static aiw_status spec_setup(aiwi_comp *c, fleet *f)
{
	aiw_sim *sim = c->sim;
	f->dec_flops_seq = 2 * f->model_params;
	f->dec_weight_bytes = f->weight_bytes;
	f->dec_kv_bytes = f->kv_bytes_per_token;
	f->spec_attn_factor = 1;
	f->spec = (int)aiwi_p(c, P_SPECULATIVE);
	if (f->spec == SPEC_OFF)
		return AIW_OK;
	const char *mode = f->spec == SPEC_DRAFT ? "draft" : "heads";
	if ((int)aiwi_p(c, P_TIMING) != TIMING_ITERATION || f->service_mode)
		return aiwi_err(sim, AIW_EINVAL,
		                "%s.speculative = %s needs timing = iteration and span times (service "
		                "unset): the verification's k + 1 tokens and the draft are terms of "
		                "the per-iteration model (here %s)",
		                c->prefix, mode, f->service_mode ? "service is set" : "timing = roofline");
	double k = aiwi_p(c, P_SPEC_TOKENS), a = aiwi_p(c, P_ACCEPTANCE);
	f->spec_k = k;
	f->spec_a = a;
	f->spec_E = spec_expected_tokens(k, a);
	double fg, fa, fw, fkv; /* per verification: GEMM, attention, weights, KV */
	if (f->spec == SPEC_DRAFT) {
		double P = f->model_params, Pd = aiwi_p(c, P_DRAFT_PARAMS), L = aiwi_p(c, P_LAYERS);
		if (!(Pd < P))
			return aiwi_err(sim, AIW_ERANGE,
			                "%s.draft_params = %g: a draft model has fewer parameters than the "
			                "target (allowed: above 0 and below model_params = %g)",
			                c->prefix, Pd, P);
		f->draft_params = Pd;
		f->draft_layers = aiwi_pset(c, P_DRAFT_LAYERS) ? aiwi_p(c, P_DRAFT_LAYERS)
		                                               : L * cbrt(Pd / P);
		f->draft_hidden = sqrt(Pd / (12 * f->draft_layers));
		f->draft_ratio = f->draft_layers * f->draft_hidden / (L * timing_hidden(c, P));
		fg = (k + 1) + k * Pd / P;
		fa = (k + 1) + k * f->draft_ratio;
		fw = 1 + k * Pd / P;
		fkv = 1 + k * f->draft_ratio;
		/* the draft's weights and its KV cache (draft_ratio of the target's
		 * per token) beside the target's */
		double usable = f->replica_gpus * f->gpu.mem_bytes * (1 - aiwi_p(c, P_KV_MARGIN));
		double Wd = Pd * aiwi_p(c, P_WEIGHT_BITS) / 8;
		f->kv_capacity_tokens = floor((usable - f->weight_bytes - Wd) /
		                              (f->kv_bytes_per_token * (1 + f->draft_ratio)));
		if (!(f->kv_capacity_tokens >= 2))
			return aiwi_err(sim, AIW_ERANGE,
			                "%s.draft_params = %g: the target's %.4g GB and the draft's %.4g GB "
			                "of weights leave no room for a KV cache in gpus_per_replica = %g "
			                "x %.4g GB less kv_margin; lower draft_params or raise "
			                "gpus_per_replica",
			                c->prefix, Pd, f->weight_bytes / 1e9, Wd / 1e9, f->replica_gpus,
			                f->gpu.mem_bytes / 1e9);
	} else {
		double dc = aiwi_p(c, P_DRAFT_COST);
		f->draft_cost = dc;
		fg = fa = (k + 1) + k * dc;
		fw = fkv = 1 + k * dc;
	}
	double E = f->spec_E;
	f->dec_flops_seq = 2 * f->model_params * (fg / E);
	f->spec_attn_factor = fa / E;
	f->dec_weight_bytes = f->weight_bytes * (fw / E);
	f->dec_kv_bytes = f->kv_bytes_per_token * (fkv / E);
	return AIW_OK;
}

/* The folds under speculative decoding: the prefill's kp gains the
 * draft's prefill, the decode's d[4] (c0, cm, cu, cv) becomes a step's
 * over E; the draft's share of it into f->draft_fold.  s, h: the target's
 * shape and hardware; x: scratch. */
static void spec_fold(fleet *f, const aiwi_iter_shape *s, const aiwi_iter_hw *h,
                      const double beta[AIWI_PH_N][AIWI_IT_NTERMS], double kp[4], double d[4])
{
	double k = f->spec_k, E = f->spec_E, one[4], v[4], dr[4], dp[4];
	aiwi_iter_affine x[AIWI_IT_NTERMS];
	aiwi_iter_terms(AIWI_PH_DECODE, s, h, x);
	aiwi_iter_fold(x, beta[AIWI_PH_DECODE], &one[0], &one[1], &one[2], &one[3]);
	/* the verification: k + 1 tokens of every sequence */
	x[AIWI_IT_GEMM].b *= k + 1;
	x[AIWI_IT_ATTN].c *= k + 1;
	x[AIWI_IT_COMM].b *= k + 1;
	aiwi_iter_fold(x, beta[AIWI_PH_DECODE], &v[0], &v[1], &v[2], &v[3]);
	if (f->spec == SPEC_DRAFT) {
		aiwi_iter_shape ds = *s;
		ds.params = f->draft_params;
		ds.layers = f->draft_layers;
		ds.hidden = f->draft_hidden;
		ds.kv_bytes = s->kv_bytes * f->draft_ratio;
		const aiwi_iter_affine none = {0, 0, 0, 0};
		aiwi_iter_terms(AIWI_PH_DECODE, &ds, h, x);
		x[AIWI_IT_OVERHEAD] = x[AIWI_IT_SEQ] = none;
		aiwi_iter_fold(x, beta[AIWI_PH_DECODE], &dr[0], &dr[1], &dr[2], &dr[3]);
		aiwi_iter_terms(AIWI_PH_PREFILL, &ds, h, x);
		x[AIWI_IT_OVERHEAD] = x[AIWI_IT_SEQ] = none;
		aiwi_iter_fold(x, beta[AIWI_PH_PREFILL], &dp[0], &dp[1], &dp[2], &dp[3]);
	} else {
		for (int i = 0; i < 4; i++) {
			dr[i] = f->draft_cost * one[i];
			dp[i] = f->draft_cost * kp[i];
		}
	}
	for (int i = 0; i < 4; i++) {
		f->draft_fold[i] = k * dr[i] / E;
		d[i] = (v[i] + k * dr[i]) / E;
		kp[i] += dp[i];
	}
}

/* ---- mixture of experts ----
 * The model: model_params P holds every weight; each of the moe_layers MoE
 * layers has E routed experts of expert_params p each, of which a token
 * runs k, and the rest of the weights (attention, embeddings, the shared
 * experts, the dense layers' MLPs) are dense, P_d = P - moe_layers E p.  A
 * token's FLOPs are 2 P_a, P_a = P_d + moe_layers k p the active weights
 * (given: p = (P - P_a) / (moe_layers (E - k))).  A stage of tp ep GPUs
 * holds P_d on each of its ep groups and the routed experts once, E / ep
 * per group (moe_setup: the KV cache gets the rest).  The times
 * (iteration.c, moe_terms): the GEMMs at the active weights (the experts'
 * part times moe_imbalance), the dense weights read every iteration, the
 * routed experts' weights as far as the tokens touch them (the distinct
 * experts E (1 - (1 - k/E)^B) of B tokens: a decode iteration's a table
 * by batch size, its n tokens fixed within a span; a prefill's and a
 * mixed iteration's evaluated), two all-to-alls per MoE layer over the
 * expert-parallel ranks. */
static aiw_status moe_setup(aiwi_comp *c, fleet *f)
{
	aiw_sim *sim = c->sim;
	f->flops_params = f->model_params;
	f->moe = (int)aiwi_p(c, P_MOE) == 1;
	if (!f->moe)
		return AIW_OK;
	if ((int)aiwi_p(c, P_TIMING) != TIMING_ITERATION || f->service_mode)
		return aiwi_err(sim, AIW_EINVAL,
		                "%s.moe = on needs timing = iteration and span times (service unset): "
		                "the experts' reads and all-to-alls are terms of the per-iteration "
		                "model (here %s)",
		                c->prefix, f->service_mode ? "service is set" : "timing = roofline");
	if (f->spec)
		return aiwi_err(sim, AIW_EINVAL,
		                "%s.moe = on with %s.speculative = %s: a verification's k + 1 tokens "
		                "per sequence would touch more experts, which the model does not "
		                "count yet (set one of them off)",
		                c->prefix, c->prefix, f->spec == SPEC_DRAFT ? "draft" : "heads");
	double E = aiwi_p(c, P_EXPERTS), k = aiwi_p(c, P_TOPK), L = aiwi_p(c, P_LAYERS);
	double Lm = aiwi_pset(c, P_MOE_LAYERS) ? aiwi_p(c, P_MOE_LAYERS) : L;
	double ep = aiwi_p(c, P_EP), pp = aiwi_p(c, P_PP), P = f->model_params;
	double shared = aiwi_p(c, P_SHARED_EXPERTS);
	if (k > E)
		return aiwi_err(sim, AIW_ERANGE,
		                "%s.experts_per_token = %g exceeds experts = %g: a token runs distinct "
		                "routed experts (allowed: 1 to %g)",
		                c->prefix, k, E, E);
	if (Lm > L)
		return aiwi_err(sim, AIW_ERANGE,
		                "%s.moe_layers = %g exceeds layers = %g (allowed: 1 to %g)", c->prefix,
		                Lm, L, L);
	if (fmod(E, ep) != 0)
		return aiwi_err(sim, AIW_EINVAL,
		                "%s.ep = %g does not divide experts = %g: every expert-parallel group "
		                "holds experts / ep routed experts (allowed: a divisor of %g)",
		                c->prefix, ep, E, E);
	double stage = f->replica_gpus / pp;
	if (fmod(stage, ep) != 0)
		return aiwi_err(sim, AIW_EINVAL,
		                "%s.ep = %g does not divide gpus_per_replica / pp = %g: a stage is ep "
		                "groups of tensor-parallel GPUs (allowed: a divisor of %g)",
		                c->prefix, ep, stage, stage);
	double pe;
	if (aiwi_pset(c, P_EXPERT_PARAMS)) {
		pe = aiwi_p(c, P_EXPERT_PARAMS);
	} else if (aiwi_pset(c, P_ACTIVE_PARAMS)) {
		double Pa = aiwi_p(c, P_ACTIVE_PARAMS);
		if (!(Pa < P))
			return aiwi_err(sim, AIW_ERANGE,
			                "%s.active_params = %g: a mixture of experts runs fewer weights "
			                "per token than it holds (allowed: above 0 and below model_params "
			                "= %g)",
			                c->prefix, Pa, P);
		if (k == E)
			return aiwi_err(sim, AIW_EINVAL,
			                "%s.active_params: with experts_per_token = experts = %g every "
			                "expert is active, so active_params cannot give expert_params "
			                "(set expert_params)",
			                c->prefix, E);
		pe = (P - Pa) / (Lm * (E - k));
	} else {
		return aiwi_err(sim, AIW_EINVAL,
		                "%s.moe = on needs %s.expert_params or %s.active_params (the size of "
		                "a routed expert)",
		                c->prefix, c->prefix, c->prefix);
	}
	double routed = Lm * E * pe, dense = P - routed;
	if (!(dense >= Lm * shared * pe))
		return aiwi_err(sim, AIW_ERANGE,
		                "%s.expert_params = %g: moe_layers %g x (experts %g + shared_experts %g) "
		                "experts of it are %g parameters, more than model_params = %g "
		                "(allowed: at most %g)",
		                c->prefix, pe, Lm, E, shared, Lm * (E + shared) * pe, P,
		                P / (Lm * (E + shared)));
	f->moe_E = E;
	f->moe_k = k;
	f->flops_params = dense + Lm * k * pe;
	f->moe_expert_bytes = Lm * pe * aiwi_p(c, P_WEIGHT_BITS) / 8;
	/* every group holds the dense weights: ep - 1 copies more than
	 * model_params' bytes, all pp stages together */
	double wd = dense * aiwi_p(c, P_WEIGHT_BITS) / 8;
	double usable = f->replica_gpus * f->gpu.mem_bytes * (1 - aiwi_p(c, P_KV_MARGIN));
	f->kv_capacity_tokens = floor((usable - f->weight_bytes - (ep - 1) * wd) / f->kv_bytes_per_token);
	f->dec_flops_seq = 2 * f->flops_params;
	f->dec_weight_bytes = ep * wd;
	return AIW_OK;
}

/* The shape's expert fields, the links of the all-to-all. */
static void moe_shape(const aiwi_comp *c, const fleet *f, aiwi_iter_shape *s, aiwi_iter_hw *h)
{
	double E = f->moe_E, k = f->moe_k, L = aiwi_p(c, P_LAYERS);
	s->experts = E;
	s->topk = k;
	s->moe_layers = aiwi_pset(c, P_MOE_LAYERS) ? aiwi_p(c, P_MOE_LAYERS) : L;
	s->expert_params = f->moe_expert_bytes / (s->moe_layers * s->weight_bits / 8);
	s->imbalance = aiwi_p(c, P_MOE_IMBALANCE);
	s->ep = aiwi_p(c, P_EP);
	s->a2a_concurrent = (int)aiwi_p(c, P_MOE_ALLTOALL) == 1;
	s->tp /= s->ep;
	aiwi_hw_gpu_links(&f->gpu, &h->ep_intra, &h->ep_inter);
	/* the groups of a stage lie tp GPUs apart: gpus_per_node / tp of them
	 * per node */
	double per_node = aiwi_p(c, P_GPUS_PER_NODE);
	h->ep_per_node = fmax(1, fmin(s->ep, floor(per_node / s->tp)));
}

/* The decode table and the constants of the experts' reads and
 * all-to-alls for the coefficients beta. */
static aiw_status moe_fold(aiwi_comp *c, fleet *f, const aiwi_iter_shape *s,
                           const aiwi_iter_hw *h, const double beta[AIWI_PH_N][AIWI_IT_NTERMS])
{
	double a, b;
	aiwi_iter_moe_alltoall(s, h, &a, &b);
	for (int ph = 0; ph < AIWI_PH_N; ph++) {
		f->moe_read_s[ph] = beta[ph][AIWI_IT_MEM] * aiwi_iter_moe_read(s, h, 1);
		double g = beta[ph][AIWI_IT_COMM] * s->moe_layers;
		f->moe_a2a[ph][0] = g * a;
		f->moe_a2a[ph][1] = g * b / (ph == AIWI_PH_DECODE ? s->pp : 1);
	}
	f->moe_a2a_bytes_tok = s->ep > 1 ? 2 * s->moe_layers * s->topk * s->hidden *
	                                           (s->act_bits / 8) * (s->ep - 1) / s->ep
	                                 : 0;
	f->moe_distinct = malloc(((size_t)f->max_batch + 1) * sizeof *f->moe_distinct);
	if (!f->moe_distinct)
		return aiwi_err(c->sim, AIW_ENOMEM, "out of memory");
	for (uint32_t n = 0; n <= f->max_batch; n++)
		f->moe_distinct[n] = n ? aiwi_iter_moe_distinct(s->experts, s->topk,
		                                               aiwi_iter_moe_tokens(n, s->pp))
		                       : 0;
	return AIW_OK;
}

/* Set the fleet's span terms from the iteration model when timing =
 * iteration; refuse the model's settings without it.  A fleet with a
 * sampled service time has no span times: the default timing does not
 * apply to it, an explicit timing = iteration is refused. */
static aiw_status timing_setup(aiwi_comp *c, fleet *f)
{
	aiw_sim *sim = c->sim;
	f->iteration = (int)aiwi_p(c, P_TIMING) == TIMING_ITERATION &&
	               !(f->service_mode && !aiwi_pgiven(c, P_TIMING));
	if (!f->iteration) {
		int set = aiwi_pset(c, P_PROFILE) ? P_PROFILE : aiwi_pset(c, P_PROFILE_GPU) ? P_PROFILE_GPU : -1;
		for (int i = 0; set < 0 && i < 2 * AIWI_IT_NTERMS; i++)
			if (aiwi_pset(c, P_ITER_COEF + i))
				set = P_ITER_COEF + i;
		if (set >= 0 && f->service_mode)
			return aiwi_err(sim, AIW_EINVAL,
			                "%s.%s with %s.service set: a sampled service time replaces the "
			                "span times of timing = iteration (unset one of them)",
			                c->prefix, aiwi_inference_params[set].key, c->prefix);
		if (set >= 0)
			return aiwi_err(sim, AIW_EINVAL,
			                "%s.%s is set but timing = roofline: it is a setting of timing = "
			                "iteration (set %s.timing = iteration)",
			                c->prefix, aiwi_inference_params[set].key, c->prefix);
		return AIW_OK;
	}
	if (f->service_mode)
		return aiwi_err(sim, AIW_EINVAL,
		                "%s.timing = iteration with %s.service set: a sampled service time "
		                "replaces the span times (unset one of them)",
		                c->prefix, c->prefix);
	/* pp stages of tp GPUs (pp divides gpus_per_replica: inference_start).
	 * A decode batch runs as pp micro-batches in flight (iteration.h), as
	 * vLLM's pipeline parallelism keeps pipeline_parallel_size batches in
	 * flight, one per "virtual engine" with its own scheduler
	 * (vllm-project/vllm#11945: "we create multiple virtual engines to match
	 * the number of pipeline stages ... so that they can schedule multiple
	 * batches simultaneously ... saturating all pipeline stages"). */
	double pp = aiwi_p(c, P_PP), tp = f->replica_gpus / pp, per_node = aiwi_p(c, P_GPUS_PER_NODE);
	aiwi_iter_shape s = {.params = f->model_params,
	                     .layers = aiwi_p(c, P_LAYERS),
	                     .hidden = timing_hidden(c, f->flops_params),
	                     .kv_bytes = f->kv_bytes_per_token,
	                     .weight_bits = aiwi_p(c, P_WEIGHT_BITS),
	                     .act_bits = aiwi_p(c, P_ACT_BITS),
	                     .tp = tp,
	                     .pp = pp};
	aiwi_iter_hw h;
	/* the stages talk over the scale-up link while the whole replica fits in
	 * a node, else over the scale-out link */
	aiwi_iter_hw_of(&f->gpu, &s, pp == 1 || f->replica_gpus <= per_node, &h);
	if (f->moe)
		moe_shape(c, f, &s, &h), tp = s.tp;
	if (tp > per_node) {
		/* a stage over several nodes all-reduces on the scale-out link */
		aiwi_link_spec intra, inter;
		aiwi_hw_gpu_links(&f->gpu, &intra, &inter);
		h.tp_link = inter;
	}
	double beta[AIWI_PH_N][AIWI_IT_NTERMS];
	aiwi_iter_datasheet(&f->gpu, &h, AIWI_ITER_OVERHEAD_S, beta[AIWI_PH_PREFILL]);
	memcpy(beta[AIWI_PH_DECODE], beta[AIWI_PH_PREFILL], sizeof beta[0]);
	if (aiwi_pset(c, P_PROFILE)) {
		aiw_status st = timing_profile(c, tp, pp, beta);
		if (st != AIW_OK)
			return st;
	}
	for (int i = 0; i < 2 * AIWI_IT_NTERMS; i++)
		if (aiwi_pset(c, P_ITER_COEF + i))
			beta[i / AIWI_IT_NTERMS][i % AIWI_IT_NTERMS] = aiwi_p(c, P_ITER_COEF + i);
	/* power_cap: a phase's compute terms run at its clock factor (1 below
	 * the cap), its memory, communication and host terms as they are
	 * (serving.c, cap_setup) */
	if (f->capped)
		for (int ph = 0; ph < AIWI_PH_N; ph++) {
			double clk = ph == AIWI_PH_PREFILL ? f->clock_prefill : f->clock_decode;
			beta[ph][AIWI_IT_GEMM] /= clk;
			beta[ph][AIWI_IT_ATTN] /= clk;
		}
	aiwi_iter_affine x[AIWI_IT_NTERMS];
	double *k = f->iter_prefill, c0, cm, cu, cv;
	aiwi_iter_terms(AIWI_PH_PREFILL, &s, &h, x);
	aiwi_iter_fold(x, beta[AIWI_PH_PREFILL], &k[0], &k[1], &k[2], &k[3]);
	aiwi_iter_terms(AIWI_PH_DECODE, &s, &h, x);
	aiwi_iter_fold(x, beta[AIWI_PH_DECODE], &c0, &cm, &cu, &cv);
	if (f->moe) {
		aiw_status st = moe_fold(c, f, &s, &h, beta);
		if (st != AIW_OK)
			return st;
	}
	if (f->spec) {
		double d[4];
		spec_fold(f, &s, &h, beta, k, d);
		c0 = d[0], cm = d[1], cu = d[2], cv = d[3];
	}
	/* span.h's mapping: no compute floor, t_j = (c0 + cv S + (cm + cu) n) + cv n j */
	f->prefill_s_per_token = 0;
	f->weights_read_s = c0;
	f->kv_s_per_token = cv;
	f->decode_s_per_seq = cm + cu;
	f->decode_pp = pp;
	f->decode_host_s_per_seq = cm;
	f->decode_gpu_s_per_seq = cu;
	/* the span maths needs positive times that only lengthen within a span
	 * (fitted coefficients can be negative: refuse those that break it) */
	double cap = f->kv_capacity_tokens, B = fmin(f->max_batch, cap), mm = 0, tt = 0;
	if (!(cv >= 0))
		return aiwi_err(sim, AIW_ERANGE,
		                "%s: timing = iteration: a decode iteration's time falls as the context "
		                "grows (%.4g s per token of context): the coefficients (decode.attn "
		                "= %g, decode.mem = %g) must not make it negative",
		                c->prefix, cv, beta[AIWI_PH_DECODE][AIWI_IT_ATTN],
		                beta[AIWI_PH_DECODE][AIWI_IT_MEM]);
	/* the corners first, then every batch size the fleet can reach: with pp
	 * > 1 a batch of fewer sequences than stages runs its GPU terms pp / n
	 * times (aiwi_iter_decode_share), so the time is not linear in n (a
	 * negative decode.seq can make a batch of pp - 1 the fastest); it is
	 * linear in S, whose least is n and greatest cap */
	double corner[4][2] = {{1, 1}, {1, cap}, {B, B}, {B, cap}};
	for (double i = 0; i < 4 + 2 * B; i++) {
		double n = i < 4 ? corner[(int)i][0] : floor((i - 4) / 2) + 1;
		double S = i < 4 ? corner[(int)i][1] : fmod(i, 2) == 0 ? n : cap;
		double g = aiwi_iter_decode_share(n, pp);
		double t = c0 + cv * g * S + cm * n + cu * g * n;
		if (!(t > 0))
			return aiwi_err(sim, AIW_ERANGE,
			                "%s: timing = iteration: a decode iteration of %g sequences "
			                "holding %g tokens would take %.4g s: the coefficients must give "
			                "positive times (decode.overhead = %g, decode.gemm = %g)",
			                c->prefix, n, S, t, beta[AIWI_PH_DECODE][AIWI_IT_OVERHEAD],
			                beta[AIWI_PH_DECODE][AIWI_IT_GEMM]);
	}
	double tmin = timing_prefill_min(k, B, cap, &mm, &tt);
	if (!(tmin > 0))
		return aiwi_err(sim, AIW_ERANGE,
		                "%s: timing = iteration: a prefill of %g prompts of %.4g tokens in all "
		                "would take %.4g s: the coefficients must give positive times "
		                "(prefill.overhead = %g, prefill.gemm = %g)",
		                c->prefix, mm, tt, tmin, beta[AIWI_PH_PREFILL][AIWI_IT_OVERHEAD],
		                beta[AIWI_PH_PREFILL][AIWI_IT_GEMM]);
	return AIW_OK;
}
