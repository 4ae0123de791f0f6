/*
 * memory.c - memory per GPU of a training layout (layout.h).
 *
 * Model states (Rajbhandari et al., "ZeRO: Memory Optimizations Toward
 * Training Trillion Parameter Models", SC 2020, section 5): with Psi
 * parameters on a GPU, weight, gradient and optimizer bytes per parameter
 * w, g, k (mixed-precision Adam: 2, 2, 12) and N_d data-parallel ranks,
 *   stage 0: (w + g + k) Psi      stage 1: (w + g) Psi + k Psi / N_d
 *   stage 2: w Psi + (g + k) Psi / N_d      stage 3: (w + g + k) Psi / N_d
 * (7.5e9 parameters on 64 GPUs: 120, 31.4, 16.6, 1.9 GB, the paper's
 * Figure 1).  Psi on a GPU of the first pipeline stage: its L / pp layers'
 * dense weights and the input embedding (the output layer too when pp = 1
 * and it is not tied) over tp, the experts' over tp ep; the experts' states
 * shard over the expert data-parallel group dp / ep.
 *
 * Activations (Korthikanti et al., "Reducing Activation Recomputation in
 * Large Transformer Models", MLSys 2023, Table 2), per layer and
 * micro-batch of b sequences of s tokens (s = seq_len / cp), t = tp,
 * 16-bit values:
 *   no recomputation   sbh (10 + 24/t + 5as/(ht)), with SP sbh (34/t + 5as/(ht))
 *   selective          sbh (10 + 24/t),            with SP sbh 34/t
 *   full               sbh 2
 * The 16 sbh of the MLP's 4h intermediates (8 of them inside the 24/t)
 * scale with the MLP's real width: 16 r, r = f / 4h for gelu, 1.5 f / 4h
 * for swiglu (three f-wide tensors kept, not two), topk expert_ffn for a
 * mixture of experts.  Flash attention keeps no s^2 tensor, so the 5as/h
 * term goes as with selective recomputation.
 * Micro-batches in flight on the first stage: 1F1B and zb-h1 keep
 * min(m, pp) micro-batches of its L / pp layers, L layers' worth when
 * m >= pp; the interleaved schedule L (1 + (pp-1)/(pp v)) (Korthikanti et
 * al., section 4.2.3); without pipelining one micro-batch of L layers.
 * Uneven stages (first_layers, last_layers): stage i of pp holds
 * min(m, pp - i) micro-batches of its own layers, the first stage the input
 * embedding, the last the output layer (or the tied embedding's copy); the
 * fullest of the first, second and last stages is counted (the middle
 * stages after the second hold fewer micro-batches of as many layers).
 * Buffers: a fixed amount (CUDA context, NCCL buffers, fragmentation),
 * a parameter.
 */
#include "training/layout.h"

#include <math.h>

static double mlp_ratio(const aiwi_tarch *A)
{
	double f = A->experts > 1 ? A->topk * A->expert_ffn : A->ffn;
	if (A->mlp == AIWI_MLP_SWIGLU)
		f *= 1.5;
	return f / (4 * A->hidden);
}

static double act_layer(double s, double b, double h, double a, double t, bool sp, int rc,
                        int attention, double r)
{
	if (rc == AIWI_RC_FULL)
		return 2 * s * b * h;
	double quad = (rc == AIWI_RC_SELECTIVE || attention == AIWI_ATTN_FLASH) ? 0
	                                                                         : 5 * a * s / (h * t);
	double lin = sp ? (18 + 16 * r) / t : 10 + (8 + 16 * r) / t;
	return s * b * h * (lin + quad);
}

double aiwi_act_layer_bytes(double s, double b, double h, double a, double t, bool sp,
                            int recompute, int attention)
{
	return act_layer(s, b, h, a, t, sp, recompute, attention, 1);
}

double aiwi_act_in_flight(double layers, double pp, double v, double m, int schedule)
{
	if (pp <= 1)
		return layers;
	if (schedule == AIWI_SCHED_INTERLEAVED)
		return layers * (1 + (pp - 1) / (pp * v));
	return layers / pp * fmin(m, pp);
}

void aiwi_zero_states(double psi, double psi_e, double nd, double ne, int zero, double wb,
                      double gb, double ob, double out[3])
{
	double all = psi + psi_e, shard = psi / nd + psi_e / ne;
	out[0] = wb * (zero >= 3 ? shard : all);
	out[1] = gb * (zero >= 2 ? shard : all);
	out[2] = ob * (zero >= 1 ? shard : all);
}

double aiwi_act_layer_arch(const aiwi_tarch *A, const aiwi_tlayout *L, int recompute)
{
	return act_layer(A->seq / L->cp, L->micro_batch, A->hidden, A->heads, L->tp, L->sp,
	                 recompute, A->attention, mlp_ratio(A));
}

/* Memory of stage i with n layers, emb embedding parameters and in_flight
 * layers' worth of activations. */
static void stage_mem(const aiwi_tarch *A, const aiwi_tlayout *L, const aiwi_tparams *P,
                      double n, double emb, double in_flight, double wb, double gb, double ob,
                      double buffers, aiwi_tmem *out)
{
	double dense = (n * P->per_layer_dense + emb) / L->tp;
	double expert = n * P->per_layer_expert / (L->tp * L->ep);
	double st[3];
	aiwi_zero_states(dense, expert, L->dp, L->dp / L->ep, L->zero, wb, gb, ob, st);
	double w = st[0], g = st[1], o = st[2];
	double per = aiwi_act_layer_arch(A, L, L->recompute);
	out->term[AIWI_M_WEIGHTS] = w;
	out->term[AIWI_M_GRADS] = g;
	out->term[AIWI_M_OPTIM] = o;
	out->term[AIWI_M_ACT] = per * in_flight;
	out->term[AIWI_M_BUFFERS] = buffers;
	out->in_flight = in_flight;
	out->stage_layers = n;
	out->total = 0;
	out->largest = 0;
	for (int i = 0; i < AIWI_M_N; i++) {
		out->total += out->term[i];
		if (out->term[i] > out->term[out->largest])
			out->largest = i;
	}
}

void aiwi_tmem_per_gpu(const aiwi_tarch *A, const aiwi_tlayout *L, double wb, double gb,
                       double ob, double buffers, aiwi_tmem *out)
{
	aiwi_tparams P;
	aiwi_tarch_params(A, &P);
	double n[3];
	bool uneven = aiwi_tlayout_stages(L, A, n);
	double emb = A->vocab * A->hidden * (!A->tied && L->pp == 1 ? 2 : 1);
	if (!uneven) {
		double in_flight = aiwi_act_in_flight(A->layers, L->pp, L->v, L->m, L->schedule);
		stage_mem(A, L, &P, n[0], emb, in_flight, wb, gb, ob, buffers, out);
		out->stage = 0;
		return;
	}
	/* 1F1B and zb-h1 (uneven stages exclude the interleaved schedule):
	 * stage i holds min(m, pp - i) micro-batches of its layers; the input
	 * embedding sits on the first stage, the output layer (or the tied
	 * embedding's copy) on the last */
	double pp = L->pp, vh = A->vocab * A->hidden;
	struct {
		int stage;
		double n, emb;
	} S[3] = {{0, n[0], vh}, {1, n[1], pp == 2 ? vh : 0}, {(int)pp - 1, n[2], vh}};
	for (int i = 0; i < 3; i++) {
		aiwi_tmem m;
		stage_mem(A, L, &P, S[i].n, S[i].emb, S[i].n * fmin(L->m, pp - S[i].stage), wb, gb, ob,
		          buffers, &m);
		m.stage = S[i].stage;
		if (i == 0 || m.total > out->total)
			*out = m;
	}
}

void aiwi_tmem_data_parallel(double psi, double n, double wb, double gb, double ob,
                             double buffers, aiwi_tmem *out)
{
	double st[3];
	aiwi_zero_states(psi, 0, n, 1, 3, wb, gb, ob, st);
	out->term[AIWI_M_WEIGHTS] = st[0];
	out->term[AIWI_M_GRADS] = st[1];
	out->term[AIWI_M_OPTIM] = st[2];
	out->term[AIWI_M_ACT] = 0;
	out->term[AIWI_M_BUFFERS] = buffers;
	out->in_flight = 0;
	out->stage = 0;
	out->stage_layers = 0;
	out->total = 0;
	out->largest = 0;
	for (int i = 0; i < AIWI_M_N; i++) {
		out->total += out->term[i];
		if (out->term[i] > out->term[out->largest])
			out->largest = i;
	}
}

const char *aiwi_tmem_term_name(int term)
{
	static const char *const N[AIWI_M_N] = {"weights", "gradients", "optimizer states",
	                                        "activations", "buffers"};
	return term >= 0 && term < AIWI_M_N ? N[term] : "?";
}
