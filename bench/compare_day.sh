#!/bin/sh
# compare_day.sh - two builds of the library on bench/inference_day, in
# alternating runs (A B, B A, A B, ...), so that a machine whose speed drifts
# from one minute to the next (a shared VM: 30% here) weighs on both alike.
# Prints each pair's wall times, then the ratio B/A: the geometric mean over
# the pairs, its spread (two standard errors of the mean of log ratios) and
# the range, and each build's median.  A ratio whose interval contains 1 is
# no measured difference.
#
#   bench/compare_day.sh BUILD_A BUILD_B [PAIRS] [DAYS] [PEAK_HOUR]
#                        (defaults: 6 pairs of full days, peak at 14:00)
#
# BUILD_A, BUILD_B: configured build trees with `make bench/inference_day`
# done (e.g. a worktree of another commit).  Each run is the in-memory day
# without the week: inference_day --no-week --mode memory.  A short slice
# at the peak for quicker looks: DAYS 0.02, PEAK_HOUR 0.5.
# Whole runs one after the other vary by 0.7-1.3x per pair here: for
# changes under 10%, bench/interleave_day (both builds in one process, in
# turns of a fraction of a second) resolves about 1%.
set -eu
[ $# -ge 2 ] || { sed -n '2,20p' "$0"; exit 2; }
a=$(cd "$1" && pwd)
b=$(cd "$2" && pwd)
pairs=${3:-6}
days=${4:-1}
peak=${5:-14}
for d in "$a" "$b"; do
	[ -x "$d/bench/inference_day" ] || { echo "no $d/bench/inference_day: make -C $d bench/inference_day"; exit 1; }
done
wall() { # wall seconds of one run of build $1
	"$1/bench/inference_day" --no-week --mode memory --days "$days" --peak-hour "$peak" |
		sed -n '1s/.*wall_s=\([0-9.]*\).*/\1/p'
}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
i=1
while [ $i -le "$pairs" ]; do
	if [ $((i % 2)) = 1 ]; then
		x=$(wall "$a"); y=$(wall "$b")
	else
		y=$(wall "$b"); x=$(wall "$a")
	fi
	echo "$x $y" >>"$out"
	printf 'pair %d: A %s s, B %s s, B/A %s\n' "$i" "$x" "$y" "$(echo "$x $y" | awk '{printf "%.3f", $2 / $1}')"
	i=$((i + 1))
done
awk -v a="$a" -v b="$b" '
{ x[NR] = $1; y[NR] = $2; l = log($2 / $1); s += l; ss += l * l; r = $2 / $1
  if (NR == 1 || r < lo) lo = r; if (NR == 1 || r > hi) hi = r }
function median(v, n,   i, j, t) {
	for (i = 2; i <= n; i++) for (j = i; j > 1 && v[j - 1] > v[j]; j--) { t = v[j]; v[j] = v[j - 1]; v[j - 1] = t }
	return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
}
END {
	n = NR; m = s / n; sd = n > 1 ? sqrt((ss - n * m * m) / (n - 1)) : 0; se = sd / sqrt(n)
	printf "B/A: %.3f (%.3f-%.3f at two standard errors), %.3f-%.3f per pair, %d pairs\n", exp(m), exp(m - 2 * se), exp(m + 2 * se), lo, hi, n
	printf "median wall: A %.2f s (%s), B %.2f s (%s)\n", median(x, n), a, median(y, n), b
}' "$out"
