#!/bin/sh
# sweep_speedup.sh - wall-time speedup of `aiworkload sweep --jobs 2` over
# `--jobs 1` (goal on a 2-core machine: >= 1.8x), best of N repetitions
# each, and a check that both wrote the same bytes.
#
#   bench/sweep_speedup.sh [BUILDDIR] [REPEATS]     (defaults: ./build, 3)
#
# Workload: examples/scenarios/inference-only.ini (two diurnal 70B fleets)
# cut to 4 simulated hours, 3 x 2 replica counts, 4 replications: 24 runs
# of a few hundred milliseconds each.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
reps=${2:-3}
build=$(cd "$build" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

aiw=$build/tools/aiworkload
[ -f "$aiw" ] && [ -x "$aiw" ] || { echo "no $aiw: build first"; exit 1; }
sweep="$aiw sweep"

now() { date +%s.%N; }
best() { # best wall time of $reps runs with --jobs $1
	b=""
	i=0
	while [ $i -lt "$reps" ]; do
		t0=$(now)
		$sweep "$here/examples/scenarios/inference-only.ini" --set sim.duration=4h \
			--set inference.chat.replicas=8,10,12 --set inference.code.replicas=8,12 \
			--replications 4 --jobs "$1" --no-progress --out "$tmp/j$1.csv"
		t1=$(now)
		b=$(echo "$t0 $t1 ${b:-}" | awk '{ d = $2 - $1; if ($3 != "" && $3 < d) d = $3; printf "%.3f", d }')
		i=$((i + 1))
	done
	echo "$b"
}

load=$(cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo 0)
echo "$load" | awk '{ exit !($1 > 0.5) }' &&
	echo "note: load average $load before the run: other processes share the processors"
t1=$(best 1)
t2=$(best 2)
cmp -s "$tmp/j1.csv" "$tmp/j2.csv" || { echo "FAIL: --jobs 1 and --jobs 2 differ"; exit 1; }
echo "sweep of 24 runs (6 points x 4 replications), $(nproc 2>/dev/null || echo '?') processors, best of $reps:"
echo "  --jobs 1: $t1 s"
echo "  --jobs 2: $t2 s"
echo "$t1 $t2" | awk '{ printf "  speedup J=2/J=1: %.2fx (goal >= 1.8x)\n", $1 / $2 }'
