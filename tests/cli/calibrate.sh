#!/bin/sh
# calibrate.sh - `aiworkload calibrate`: the fit printed per GPU and phase,
# and its snippet (--out), a scenario input that layered on a scenario gives
# the run that profile = FILE gives, every final metric bit for bit; the
# refusals (several GPUs for one snippet, a GPU the table lacks).
. "$top_srcdir/tests/cli/common.sh"
csv="$top_srcdir/data/splitwise-perf/perf_model.csv"
cat >"$tmp/fleet.ini" <<EOT
[sim]
seed = 3
duration = 15min
[inference chat]
gpu = H100-SXM
gpus_per_replica = 8
replicas = 2
rate = 1.5/s
max_batch = 16
EOT
expect 0 "calibrate --gpu h100-80gb --out" -- "$aiw" calibrate "$csv" --gpu h100-80gb --out "$tmp/snip.ini"
has "$tmp/out" "h100-80gb (H100-SXM), decode" "the fit is printed per GPU and phase"
has "$tmp/snip.ini" "[inference chat]" "the snippet is the component's section"
has "$tmp/snip.ini" "timing = iteration" "the snippet turns the iteration model on"
expect 0 "the snippet layered on a scenario" -- \
	"$aiw" run "$tmp/fleet.ini" "$tmp/snip.ini" --summary none --metrics "$tmp/snip.prom"
expect 0 "the profile itself" -- "$aiw" run "$tmp/fleet.ini" --summary none \
	--set inference.chat.timing=iteration --set inference.chat.profile="$csv" \
	--set inference.chat.profile_gpu=h100-80gb --metrics "$tmp/prof.prom"
grep -v '^#' "$tmp/snip.prom" | grep -v wall >"$tmp/a"
grep -v '^#' "$tmp/prof.prom" | grep -v wall >"$tmp/b"
if [ -s "$tmp/a" ] && cmp -s "$tmp/a" "$tmp/b"; then
	ok "snippet and profile: the same $(wc -l <"$tmp/a") final metrics, bit for bit"
else
	bad "snippet and profile differ:"; diff "$tmp/a" "$tmp/b" | head -10
fi
grep -q 'ttft_mean_seconds.* [0-9]\.' "$tmp/a" && ok "the run served requests in seconds" || bad "no TTFT under 10 s in the run"
expect 0 "the snippet under another name" -- \
	"$aiw" calibrate "$csv" --gpu h100-80gb-pcap --out "$tmp/pcap.ini" --component api
has "$tmp/pcap.ini" "[inference api]" "--component names the section"
expect 2 "one snippet, several GPUs" -- "$aiw" calibrate "$csv" --out "$tmp/x.ini"
has "$tmp/err" "choose one with --gpu" "several GPUs for one snippet are refused"
expect 2 "a GPU the table lacks" -- "$aiw" calibrate "$csv" --gpu v100 --out "$tmp/x.ini"
has "$tmp/err" "no rows for GPU v100" "the missing GPU is named"
exit $fail
