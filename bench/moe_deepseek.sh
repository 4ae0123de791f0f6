#!/bin/sh
# moe_deepseek.sh - DeepSeek-V3/R1's production serving figures (DeepSeek-AI,
# "DeepSeek-V3/R1 Inference System Overview", github.com/deepseek-ai/
# open-infra-index, 202502OpenSourceWeek, 2025-03-01) against this model.
# Published, over 24 hours on H800 nodes with prefill/decode
# disaggregation: decode at ~14.8k output tokens/s per node at an average
# output speed of 20-22 tokens/s per user, with 4,989 tokens of KV cache
# per output token on average; prefill at ~73.7k input tokens/s per node
# including cache hits (56.3% of the input tokens hit the cache: 32.2k
# computed).  Their layout: decode EP144 over 18 nodes (2 routed experts
# and 1 shared per GPU, 32 redundant experts), prefill EP32 over 4 nodes,
# attention data-parallel.
#
# The set-up here, nothing tuned: the DeepSeek-V3 preset of doc/inference.md
# (FP8 weights and activations), H800 = the catalog's H100-SXM with its
# NVLink at 400 GB/s (200 GB/s per direction), a decode replica of 128 GPUs
# (16 nodes) with ep = 128 (2 routed experts per GPU: ep must divide the
# 256 experts, so no redundant ones), a prefill replica of 32 GPUs with
# ep = 32, moe_alltoall = concurrent (DeepEP's kernels), Poisson arrivals
# of prompts of 4,383 tokens and outputs of 1,210 (the means that give both
# published ratios: P + D/2 = 4,989 and P/D = 608/168), no prefix cache.
# The script bisects the arrival rate for a mean TPOT of 1/22 and 1/20 s
# and prints the decode pool's output tokens/s per node there (over the
# run, whose first minute fills the batch, and in the steady state, the
# rate's output tokens: every request is served); then the prefill pool's
# saturation throughput per node.
#
#   bench/moe_deepseek.sh BUILD [DURATION]
#
# BUILD: a configured and built tree (tools/aiworkload); DURATION: simulated
# time per point (default 30min).
set -eu
[ $# -ge 1 ] || { sed -n '2,32p' "$0"; exit 2; }
aiw="$(cd "$1" && pwd)/tools/aiworkload"
dur=${2:-30min}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
model="gpu = H800
model_params = 671e9
layers = 61
hidden_size = 7168
kv_bytes_per_token = 70272
weight_bits = 8
activation_bits = 8
moe = on
experts = 256
experts_per_token = 8
shared_experts = 1
moe_layers = 58
active_params = 37e9
moe_alltoall = concurrent"
# ALLTOALL PREFILL_REPLICAS RATE: the scenario
scenario() {
	printf '[sim]\nseed = 1\nduration = %s\n[gpu H800]\nbase = H100-SXM\nnvlink_bw = 2e11\n' "$dur"
	printf '[inference p]\n%s\nmoe_alltoall = %s\ngpus_per_replica = 32\nep = 32\nreplicas = %s\n' "$model" "$1" "$2"
	printf 'traffic = poisson\nrate = %s/s\nprompt_tokens = const(4383)\noutput_tokens = const(1210)\n' "$3"
	printf 'disaggregation = prefill\ndecode_fleet = d\n'
	printf '[inference d]\n%s\nmoe_alltoall = %s\ngpus_per_replica = 128\nep = 128\nreplicas = 1\n' "$model" "$1"
	printf 'max_batch = 30000\ndisaggregation = decode\n'
}
# FILE: "tpot_mean_s decode_tokens_per_s prefill_utilization"
figures() {
	"$aiw" run --summary json "$1" 2>/dev/null | awk '
		{ gsub(/[",]/, "") }
		$1 == "inference.d.tpot_mean_s:" { t = $2 }
		$1 == "inference.d.tokens_per_s:" { k = $2 }
		$1 == "inference.p.utilization:" { u = $2 }
		END { printf "%s %s %s\n", t, k, u }'
}
for goal in 22 20; do
	lo=50 hi=400
	for i in 1 2 3 4 5 6 7 8 9 10; do
		mid=$(awk -v a="$lo" -v b="$hi" 'BEGIN { printf "%.2f", (a + b) / 2 }')
		scenario concurrent 24 "$mid" >"$tmp/s.ini"
		set -- $(figures "$tmp/s.ini")
		if awk -v t="$1" -v g="$goal" 'BEGIN { exit !(t <= 1 / g) }'; then lo=$mid; else hi=$mid; fi
	done
	scenario concurrent 24 "$lo" >"$tmp/s.ini"
	set -- $(figures "$tmp/s.ini")
	awk -v r="$lo" -v t="$1" -v k="$2" -v g="$goal" 'BEGIN {
		printf "decode at %g tokens/s per user (rate %g/s): TPOT %.1f ms, %.0f output tokens/s per node served over the run, %.0f in the steady state (rate x 1,210 / 16; published: 14.8k at 20-22)\n", \
			g, r, t * 1e3, k / 16, r * 1210 / 16 }'
done
# the prefill pool's saturation: its busy share at a rate it serves
scenario concurrent 24 100 >"$tmp/s.ini"
set -- $(figures "$tmp/s.ini")
awk -v u="$3" 'BEGIN { printf "prefill: %.0f computed input tokens/s per busy node (published: 73.7k with 56.3%% cache hits, 32.2k computed)\n", \
	100 * 4383 / (24 * 4 * u) }'
# the pairwise all-to-all (the default) cannot reach 20 tokens/s per user:
scenario pairwise 24 1 >"$tmp/s.ini"
set -- $(figures "$tmp/s.ini")
awk -v t="$1" 'BEGIN { printf "pairwise all-to-all: TPOT %.1f ms at 1 request/s\n", t * 1e3 }'
