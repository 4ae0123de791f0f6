#!/bin/sh
# profile_day.sh - what one request of bench/inference_day costs, counted by
# callgrind (deterministic, unlike wall time on a shared machine): on a
# slice at the peak (--days 0.002 --peak-hour 0.5: 312,494 requests), per
# request, instructions, mispredicted branches, first-level cache misses
# and misses of a second level of LL_BYTES (default 524288: 512 KB, what is
# left of a shared 2 MB when a neighbour uses the rest; the machine's own
# size shows the working set's cold misses only).
#
#   bench/profile_day.sh [BUILDDIR] [LL_BYTES]     (defaults: ./build, 524288)
#
# Needs valgrind.  Takes about a minute.  The profile stays in
# BUILDDIR/callgrind.inference_day for callgrind_annotate.
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$here/build}
ll=${2:-524288}
build=$(cd "$build" && pwd)
command -v valgrind >/dev/null || { echo "valgrind not found (Debian: valgrind)"; exit 77; }
[ -x "$build/bench/inference_day" ] || { echo "no $build/bench/inference_day: make -C $build bench/inference_day"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the runs are children (fork): trace them, keep the largest profile
"$build/libtool" --mode=execute valgrind --tool=callgrind --cache-sim=yes --branch-sim=yes \
	--LL="$ll,16,64" --trace-children=yes --callgrind-out-file="$tmp/cg.%p" \
	"$build/bench/inference_day" --no-week --mode memory --days 0.002 --peak-hour 0.5 >"$tmp/out" 2>"$tmp/err" ||
	{ cat "$tmp/err"; exit 1; }
n=$(sed -n '1s/.*requests=\([0-9]*\).*/\1/p' "$tmp/out")
f=$(ls -S "$tmp"/cg.* | head -n 1)
cp "$f" "$build/callgrind.inference_day"
awk -v n="$n" -v ll="$ll" '
/^events:/ { for (i = 2; i <= NF; i++) name[i - 1] = $i }
/^summary:/ { for (i = 2; i <= NF; i++) v[name[i - 1]] = $i }
END {
	bm = v["Bcm"] + v["Bim"]; l1 = v["D1mr"] + v["D1mw"] + v["I1mr"]; l2 = v["DLmr"] + v["DLmw"] + v["ILmr"]
	printf "per request (%d requests): instructions %.0f, mispredicted branches %.2f, first-level misses %.2f, misses of a %d KB second level %.3f\n", n, v["Ir"] / n, bm / n, l1 / n, ll / 1024, l2 / n
}' "$f"
