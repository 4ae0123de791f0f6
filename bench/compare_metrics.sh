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
#   - the `--summary json` metrics, and the parameters it echoes: a
#     parameter or metric of build A missing or with another value in build
#     B is a difference; one only build B has (a new parameter at its
#     default, a new metric) is reported but is not;
#   - the `--series` CSV: every curve of build A at every sample, found by
#     its column name in build B's file (B's new curves are reported).
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
			--series "$tmp/$side.csv") >"$tmp/$side.json" 2>"$tmp/$side.err" || {
			if [ $side = a ] && grep -q "unknown parameter" "$tmp/a.err"; then
				# an example of a newer model: build B alone can run it
				(cd "$dir" && "$(prog "$b")" run "$@" --no-progress --summary none) \
					>/dev/null 2>"$tmp/b.err" &&
					{ echo "new        $name (build A lacks its parameters)"; return; }
			fi
			echo "$name: build $side failed: $(head -n 3 "$tmp/$side.err")"
			bad=1
			return
		}
		# the metrics object, and the parameters echoed (a new parameter
		# with its default is listed by the newer build alone)
		awk '/^  "metrics": \{/ { on = 1 } on { print } on && /^  \}/ { on = 0 }' \
			"$tmp/$side.json" >"$tmp/$side.m"
		awk '/^  "parameters": \{/ { on = 1 } on { print } on && /^  \}/ { on = 0 }' \
			"$tmp/$side.json" | grep '^    "' | sed 's/,$//' | sort >"$tmp/$side.p"
	done
	added=$(comm -13 "$tmp/a.p" "$tmp/b.p" | wc -l)
	changed=$(comm -23 "$tmp/a.p" "$tmp/b.p" | wc -l)
	# metrics by name: each of A's must be in B with the same value; B's
	# new ones are listed, not a difference
	for side in a b; do grep '^    "' "$tmp/$side.m" | sed 's/,$//' | sort >"$tmp/$side.ms"; done
	mchanged=$(comm -23 "$tmp/a.ms" "$tmp/b.ms" | wc -l)
	madded=$(comm -13 "$tmp/a.ms" "$tmp/b.ms" | wc -l)
	# curves by column name: A's columns taken out of B's file, in A's order
	awk -F, 'NR == FNR { if (FNR == 1) for (i = 1; i <= NF; i++) want[i] = $i; nw = NF; next }
	         FNR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; newc = NF - nw }
	         { line = ""; for (i = 1; i <= nw; i++) {
	               v = (want[i] in col) ? $(col[want[i]]) : "MISSING"
	               line = line (i > 1 ? "," : "") v }
	           print line }
	         END { print newc > "/dev/stderr" }' \
		"$tmp/a.csv" "$tmp/b.csv" >"$tmp/b.sel.csv" 2>"$tmp/newcols"
	cadded=$(cat "$tmp/newcols")
	note=""
	[ "$added" -gt 0 ] && note="$note, $added new parameters"
	[ "$madded" -gt 0 ] && note="$note, $madded new metrics"
	[ "${cadded:-0}" -gt 0 ] && note="$note, $cadded new curves"
	if [ "$changed" -gt 0 ]; then
		echo "DIFFERENT  $name: parameters"
		comm -3 "$tmp/a.p" "$tmp/b.p" | head -n 10
		bad=1
	elif [ "$mchanged" = 0 ] && cmp -s "$tmp/a.csv" "$tmp/b.sel.csv"; then
		echo "same       $name ($(wc -l <"$tmp/a.ms") metrics, $(wc -l <"$tmp/a.csv") rows of curves$note)"
	else
		echo "DIFFERENT  $name"
		comm -3 "$tmp/a.ms" "$tmp/b.ms" | head -n 10
		cmp "$tmp/a.csv" "$tmp/b.sel.csv" || true
		bad=1
	fi
}

one "built-in default" "$src"
for f in "$src"/examples/scenarios/*.ini "$src"/examples/autoscaling/*.ini; do
	one "${f#"$src"/}" "$(dirname "$f")" "$(basename "$f")"
done
[ -f "$tmp/inference_day.ini" ] && one "bench/inference_day (peak slice)" "$tmp" inference_day.ini
exit $bad
