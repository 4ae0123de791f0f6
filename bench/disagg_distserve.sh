#!/bin/sh
# disagg_distserve.sh - DistServe's motivating experiment (Zhong et al.,
# OSDI 2024, Figure 1; the authors' blog post, Figure 6): a 13B model
# (OPT-13B: 40 layers, hidden 5120, 40 heads of 128, FP16) on A100-80GB
# GPUs, Poisson arrivals of prompts of 512 tokens and outputs of 64, SLOs
# TTFT 0.4 s and TPOT 0.04 s.  Published: colocated (vLLM), 1.6 requests/s
# per GPU within both SLOs; two prefill GPUs and one decode GPU (2P1D),
# 10 requests/s, 3.3 per GPU (2.1x).  This script sweeps the rate and
# prints, for each set-up, the highest rate whose requests meet both SLOs
# at least 90% of the time (met / arrived over the run), per GPU.  Nothing
# is tuned: the catalog's A100-80GB and timing = iteration's datasheet
# coefficients, the KV cache over NVLink3 (one node, as DistServe places
# the pair).
#
#   bench/disagg_distserve.sh BUILD [DURATION]
#
# BUILD: a configured and built tree (tools/aiworkload); DURATION:
# simulated time per point (default 30min).
set -eu
[ $# -ge 1 ] || { sed -n '2,19p' "$0"; exit 2; }
aiw="$(cd "$1" && pwd)/tools/aiworkload"
dur=${2:-30min}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
model="gpu = A100-80GB
gpus_per_replica = 1
model_params = 13e9
layers = 40
kv_heads = 40
head_dim = 128
hidden_size = 5120
slo_ttft = 400ms
slo_tpot = 40ms"
load="traffic = poisson
prompt_tokens = const(512)
output_tokens = const(64)"
# met / arrived of a run: the fleet that reports goodput (the decode pool
# or the colocated fleet) over the requests that arrived (at the prefill
# pool or the colocated fleet)
share() { # FILE GOODPUT_FLEET ARRIVAL_FLEET
	"$aiw" run --summary json "$1" 2>/dev/null | awk -v g="inference.$2.goodput_rps:" \
		-v a="inference.$3.requests_arrived:" '
		{ gsub(/[",]/, "") }
		$1 == "sim.duration:" { d = $2 } $1 == g { gp = $2 } $1 == a { ar = $2 }
		END { printf "%.4f\n", (ar > 0 ? gp * d / ar : 0) }'
}
best_co=0 best_pd=0
for r in 0.5 1 1.5 2 2.5 2.75 3 3.25 3.5 3.75 4; do
	printf '[sim]\nseed = 1\nduration = %s\n[inference co]\n%s\n%s\nrate = %s/s\nreplicas = 1\n' \
		"$dur" "$model" "$load" "$r" >"$tmp/co.ini"
	s=$(share "$tmp/co.ini" co co)
	echo "colocated 1 GPU   rate $r/s: SLO attainment $s"
	awk -v s="$s" 'BEGIN { exit !(s >= 0.9) }' && best_co=$r
done
for r in 4 8 12 14 16 17 18 19 20 22 24 26; do
	printf '[sim]\nseed = 1\nduration = %s\n[inference p]\n%s\n%s\nrate = %s/s\nreplicas = 2\ndisaggregation = prefill\ndecode_fleet = d\nkv_link = NVLink3\n[inference d]\n%s\nreplicas = 1\ndisaggregation = decode\n' \
		"$dur" "$model" "$load" "$r" "$model" >"$tmp/pd.ini"
	s=$(share "$tmp/pd.ini" d p)
	echo "2P1D (3 GPUs)     rate $r/s: SLO attainment $s"
	awk -v s="$s" 'BEGIN { exit !(s >= 0.9) }' && best_pd=$r
done
awk -v c="$best_co" -v p="$best_pd" 'BEGIN {
	printf "goodput per GPU: colocated %.3g, 2P1D %.3g (%.3g/3); gain %.2fx (DistServe: 1.6, 3.3, 2.1x)\n", \
		c, p / 3, p, (c > 0 ? p / 3 / c : 0) }'
