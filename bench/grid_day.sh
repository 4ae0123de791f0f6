#!/bin/sh
# grid_day.sh - what the site's grid statistics cost: the built-in mixed
# site's day (`aiworkload scenario`) at sim.sample_interval = 100 ms with
# site.grid = on and the row/hall hierarchy (site.racks_per_row = 8,
# site.rows_per_hall = 4), against the same day at 1 min with nothing on,
# and at 100 ms with nothing on; each run's CPU time (user + system) and
# peak resident memory by /usr/bin/time -v, best of N runs; then the CPU
# ratio of the 100 ms grid run to the 1 min run.  The 100 ms runs keep
# every curve point in memory unless KEEP is given (sim.series_keep).
#
#   bench/grid_day.sh BUILD [N [KEEP]]
#
# BUILD: a configured and built tree (tools/aiworkload); N: repetitions
# (default 3); KEEP: sim.series_keep for every run (default: all points).
set -eu
[ $# -ge 1 ] || { sed -n '2,14p' "$0"; exit 2; }
b=$(cd "$1" && pwd)
n=${2:-3}
keep=${3:-}
prog="$b/tools/aiworkload"
[ -x "$prog" ] && [ -x /usr/bin/time ] || { echo "grid_day: no $prog or /usr/bin/time"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
k=""
[ -n "$keep" ] && k="--set sim.series_keep=$keep"
# best CPU seconds and the largest RSS (kB) over n runs of the arguments
run() {
	best="" rss=0 i=0
	while [ "$i" -lt "$n" ]; do
		# shellcheck disable=SC2086
		/usr/bin/time -v "$prog" run --summary none $k "$@" >/dev/null 2>"$tmp/t"
		c=$(awk -F': ' '/User time/ {u = $2} /System time/ {s = $2} END {printf "%.2f", u + s}' "$tmp/t")
		m=$(awk -F': ' '/Maximum resident/ {print $2}' "$tmp/t")
		if [ -z "$best" ] || [ "$(echo "$c < $best" | bc)" = 1 ]; then best=$c; fi
		[ "$m" -gt "$rss" ] && rss=$m
		i=$((i + 1))
	done
	echo "$best $rss"
}
set -- $(run --sample-interval 1min)
c1=$1 m1=$2
set -- $(run --sample-interval 100ms)
c0=$1 m0=$2
set -- $(run --sample-interval 100ms --set site.grid=on --set site.racks_per_row=8 \
	--set site.rows_per_hall=4)
cg=$1 mg=$2
echo "1 min, nothing on:       CPU $c1 s, peak RSS $((m1 / 1024)) MB"
echo "100 ms, nothing on:      CPU $c0 s, peak RSS $((m0 / 1024)) MB"
echo "100 ms, grid + rows on:  CPU $cg s, peak RSS $((mg / 1024)) MB"
echo "CPU ratio 100 ms grid / 1 min: $(echo "scale=2; $cg / $c1" | bc)x (goal <= 2x)"
echo "CPU ratio 100 ms grid / 100 ms off: $(echo "scale=3; $cg / $c0" | bc)x"
# the machine line of the C benchmarks (bench/bench.h, print_machine)
field() { sed -n "s/^$1[[:space:]]*: //p" /proc/cpuinfo 2>/dev/null | head -1; }
cc=$(sed -n 's/^CC = //p' "$b/Makefile" 2>/dev/null)
ccv=$(${cc:-cc} --version 2>/dev/null | head -1)
model=$(field 'model name')
printf 'machine: %s (family %s, model %s), %s CPU(s) online, compiler %s\n' \
	"${model:-unknown processor}" "$(field 'cpu family')" "$(field 'model')" \
	"$(getconf _NPROCESSORS_ONLN)" "${ccv:-unknown}"
