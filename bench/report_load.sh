#!/bin/sh
# report_load.sh - how long the default day's report (aiworkload run
# --report) takes to load in headless Chromium: the page's own figure (the
# time from navigation until its charts' script ends, performance.now(),
# which the page writes into data-ready-ms), and the wall time of a whole
# headless browser that loads it and dumps its DOM, against the same
# browser on an empty page in the same run (the difference is the
# report's).  The medians of ROUNDS rounds (default 5), each report and
# empty page in turn, then the machine.
#
#   bench/report_load.sh [BUILDDIR] [ROUNDS]     (defaults: ./build, 5)
#
# Needs chromium (Debian: chromium).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$here/build}" && pwd)
rounds=${2:-5}
chromium=$(command -v chromium 2>/dev/null || command -v chromium-browser 2>/dev/null || true)
[ -n "$chromium" ] || { echo "chromium not found (Debian: chromium)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$build/tools/aiworkload" run --summary none --report "$tmp/day.html"
printf '<!DOCTYPE html><html><head><meta charset="utf-8"><title>empty</title></head><body></body></html>\n' >"$tmp/empty.html"
echo "report: $(wc -c <"$tmp/day.html") bytes"
now() { date +%s.%N; }
load() { # load FILE: the wall time of a browser that loads it; the DOM in $tmp/dom
	t0=$(now)
	HOME="$tmp" "$chromium" --headless --disable-gpu --no-sandbox --user-data-dir="$tmp/profile" \
		--dump-dom "file://$1" >"$tmp/dom" 2>/dev/null
	t1=$(now)
	echo "$t0 $t1" | awk '{printf "%.3f", $2 - $1}'
}
load "$tmp/empty.html" >/dev/null # the profile, created once
: >"$tmp/rows"
for r in $(seq 1 "$rounds"); do
	a=$(load "$tmp/day.html")
	ms=$(grep -o 'data-ready-ms="[0-9]*"' "$tmp/dom" | sed 's/[^0-9]//g')
	b=$(load "$tmp/empty.html")
	echo "round $r: report ${a} s, empty page ${b} s, the page's own ${ms} ms"
	echo "$a $b $ms" >>"$tmp/rows"
done
median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
ra=$(cut -d' ' -f1 "$tmp/rows" | median)
rb=$(cut -d' ' -f2 "$tmp/rows" | median)
rm_=$(cut -d' ' -f3 "$tmp/rows" | median)
echo "median: the page's charts ready ${rm_} ms after navigation; browser with the report ${ra} s, with an empty page ${rb} s (+$(echo "$ra $rb" | awk '{printf "%.3f", $1 - $2}') s)"
model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)
echo "machine: ${model:-unknown processor}, $(nproc) CPU(s) online, $("$chromium" --version 2>/dev/null | head -n 1)"
