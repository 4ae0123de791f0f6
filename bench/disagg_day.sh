#!/bin/sh
# disagg_day.sh - what prefill/decode disaggregation costs in CPU:
# bench/inference_day's day (an 8B model on 300 H100, 1,000 requests/s on
# average, diurnal, peak at 14:00) split into a prefill pool of 100
# replicas and a decode pool of 200 (the same 300 GPUs, the same arrivals;
# the KV caches over IB-NDR, sent layer by layer) against the same day
# aggregated, timed in one process by bench/interleave_day (the same
# library loaded twice, the second copy's scenario disaggregated), both
# load orders; its last lines give B/A, the CPU ratio disaggregated /
# aggregated, and the machine.  Then the peak memory (maximum resident
# set) of one run of each side by `aiworkload run`, over the same span.
#
#   bench/disagg_day.sh BUILD [DAYS [CHUNK_S]]
#
# BUILD: a configured and built tree (a release build: its
# bench/interleave_day, .libs/libaiworkload.so and tools/aiworkload);
# DAYS: simulated days (default 1, the whole day); CHUNK_S: simulated
# seconds per turn (default 30).  Requests per side: the arrivals, the
# same on both sides.
set -eu
[ $# -ge 1 ] || { sed -n '2,19p' "$0"; exit 2; }
b=$(cd "$1" && pwd)
lib="$b/.libs/libaiworkload.so"
[ -x "$b/bench/interleave_day" ] && [ -f "$lib" ] || {
	echo "disagg_day: $b has no bench/interleave_day or .libs/libaiworkload.so (make it first)"
	exit 2
}
days=${2:-1}
dec="disaggregation = prefill
decode_fleet = dec
kv_transfer_overlap = on
replicas = 100
[inference dec]
gpu = H100-SXM
gpus_per_replica = 1
model_params = 8e9
layers = 32
kv_heads = 8
head_dim = 128
weight_bits = 16
replicas = 200
router = least_loaded
batching = continuous
max_batch = 64
slo_ttft = 500ms
slo_tpot = 50ms
disaggregation = decode"
"$b/bench/interleave_day" "$lib" "$lib" "$days" "${3:-30}" 14 1000 "$dec"
# peak memory: each side alone (GNU time's maximum resident set)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ -x "$b/bench/inference_day" ] && command -v /usr/bin/time >/dev/null; then
	"$b/bench/inference_day" --print-scenario --days "$days" --peak-hour 14 >"$tmp/a.ini"
	{ cat "$tmp/a.ini"; echo "$dec"; } >"$tmp/b.ini"
	for s in a b; do
		/usr/bin/time -f "%M" -o "$tmp/$s.rss" "$b/tools/aiworkload" run "$tmp/$s.ini" \
			>/dev/null 2>&1 || true
		echo "peak memory ($([ $s = a ] && echo aggregated || echo disaggregated)): $(cat "$tmp/$s.rss") KB"
	done
fi
