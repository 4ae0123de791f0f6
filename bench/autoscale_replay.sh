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
# the machine line of the C benchmarks (bench/bench.h, print_machine)
field() { sed -n "s/^$1[[:space:]]*: //p" /proc/cpuinfo 2>/dev/null | head -1; }
cc=$(sed -n 's/^CC = //p' "$b/Makefile" 2>/dev/null)
ccv=$(${cc:-cc} --version 2>/dev/null | head -1)
model=$(field 'model name')
printf 'machine: %s (family %s, model %s), %s CPU(s) online, compiler %s\n' \
	"${model:-unknown processor}" "$(field 'cpu family')" "$(field 'model')" \
	"$(getconf _NPROCESSORS_ONLN)" "${ccv:-unknown}"
