#!/bin/sh
# compare_metrics.sh - do two builds give the same results, bit for bit?
#
#   bench/compare_metrics.sh BUILD_A BUILD_B [SRCDIR]
#
# Runs every example scenario (examples/scenarios/*.ini,
# examples/autoscaling/*.ini), the built-in default and a slice of
# bench/inference_day's scenario (written by BUILD_B's
# `bench/inference_day --print-scenario`, at the peak hour) through both
# builds' `aiworkload run`, and compares, byte for byte:
#   - the `--summary json` output with its one varying field (wall_time_s)
#     removed: every metric and parameter;
#   - the `--series` CSV: every curve at every sample.
# Prints one line per scenario (same / DIFFERENT) and exits 1 if any
# differs.  BUILD_A, BUILD_B: configured and built trees (tools/aiworkload).
# SRCDIR (default: this script's checkout) holds the scenarios; both builds
# read the same files.
set -eu
[ $# -ge 2 ] || { sed -n '2,17p' "$0"; exit 2; }
a=$(cd "$1" && pwd)
b=$(cd "$2" && pwd)
src=$(cd "${3:-$(dirname "$0")/..}" && pwd)
prog() { # the command in build tree $1
	echo "$1/tools/aiworkload"
}
for d in "$a" "$b"; do
	p=$(prog "$d")
	[ -f "$p" ] && [ -x "$p" ] || { echo "no $p"; exit 2; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

if [ -x "$b/bench/inference_day" ]; then
	"$b/bench/inference_day" --print-scenario --days 0.01 --peak-hour 14 >"$tmp/inference_day.ini"
fi

bad=0
one() { # one() NAME DIR ARGS...: run both builds in DIR, compare
	name=$1 dir=$2
	shift 2
	for side in a b; do
		eval "bld=\$$side"
		(cd "$dir" && "$(prog "$bld")" run "$@" --no-progress --summary json \
			--series "$tmp/$side.csv") >"$tmp/$side.json" 2>"$tmp/$side.err" ||
			{ echo "$name: build $side failed: $(head -n 3 "$tmp/$side.err")"; bad=1; return; }
		grep -v '"wall_time_s"' "$tmp/$side.json" >"$tmp/$side.m"
	done
	if cmp -s "$tmp/a.m" "$tmp/b.m" && cmp -s "$tmp/a.csv" "$tmp/b.csv"; then
		echo "same       $name ($(grep -c '^    "' "$tmp/a.m") lines of JSON, $(wc -l <"$tmp/a.csv") rows of curves)"
	else
		echo "DIFFERENT  $name"
		diff "$tmp/a.m" "$tmp/b.m" | head -n 10
		cmp "$tmp/a.csv" "$tmp/b.csv" || true
		bad=1
	fi
}

one "built-in default" "$src"
for f in "$src"/examples/scenarios/*.ini "$src"/examples/autoscaling/*.ini; do
	one "${f#"$src"/}" "$(dirname "$f")" "$(basename "$f")"
done
[ -f "$tmp/inference_day.ini" ] && one "bench/inference_day (peak slice)" "$tmp" inference_day.ini
exit $bad
