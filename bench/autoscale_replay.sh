#!/bin/sh
# autoscale_replay.sh - time `aiworkload autoscale-replay` on 1,000,000
# metric samples (one a second, a sinusoidal load), hpa and kpa.
#   bench/autoscale_replay.sh BUILD
set -eu
b=${1:?usage: bench/autoscale_replay.sh BUILD}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
awk 'BEGIN { print "time,ready,total"; for (i = 0; i < 1000000; i++)
	printf "%d,%d,%.3f\n", i, 10, 400 + 300 * sin(i / 3600.0) }' >"$tmp/m.csv"
for p in hpa kpa; do
	s=$(date +%s.%N)
	"$b/tools/aiworkload" autoscale-replay --policy $p --set metric=concurrency \
		--set target_value=50 "$tmp/m.csv" --out "$tmp/out.csv"
	e=$(date +%s.%N)
	echo "$p: 1000000 samples, $(($(wc -l <"$tmp/out.csv") - 1)) syncs, $(echo "$e - $s" | bc) s"
done
printf 'machine: %s, %s CPUs\n' "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)" "$(nproc)"
