#!/bin/sh
# replay.sh - `aiworkload autoscale-replay` on a shared standard output (the
# CSV goes where stdout stands, in a file appended to or not, never reopened
# by name), nothing written before a refusal, no hang on a gap between rows.
. "$top_srcdir/tests/cli/common.sh"
printf 'time,ready,metric\n0,2,0.5\n15,2,0.9\n30,2,1.5\n' >"$tmp/m.csv"
csv='time,replicas,reason
0,2,scale
15,3,scale
30,4,scale'
# a subshell's stdout: what follows the command is kept
( "$aiw" autoscale-replay --policy hpa "$tmp/m.csv"; echo after ) >"$tmp/log"
if [ "$(cat "$tmp/log")" = "$csv
after" ]; then ok "a shared stdout keeps what follows"; else
	bad "a shared stdout: got"; sed 's/^/     | /' "$tmp/log"; fi
# appended to: what was there is kept
echo before >"$tmp/log2"
"$aiw" autoscale-replay --policy hpa "$tmp/m.csv" >>"$tmp/log2"
if [ "$(cat "$tmp/log2")" = "before
$csv" ]; then ok "stdout appended to keeps what was before"; else
	bad "stdout appended to: got"; sed 's/^/     | /' "$tmp/log2"; fi
# a refused file: no header printed, the message names file:line
printf 'time,ready,metric\n0,2,0.5\n15,x,1\n' >"$tmp/bad.csv"
expect 2 "a bad row is refused" -- "$aiw" autoscale-replay --policy hpa "$tmp/bad.csv"
if [ -s "$tmp/out" ]; then bad "a refused file printed: $(head -1 "$tmp/out")"; else
	ok "a refused file prints nothing"; fi
has "$tmp/err" "bad.csv:3: ready: 'x' is not a finite number" "the refusal names file:line"
: >"$tmp/empty.csv"
expect 2 "an empty file is refused" -- "$aiw" autoscale-replay --policy hpa "$tmp/empty.csv"
has "$tmp/err" "empty.csv: empty file: no header line" "an empty file is said so, no line 0"
# a setting the policy does not read is refused, nothing printed
expect 2 "target_value under hpa's metric = utilization is refused" -- \
	"$aiw" autoscale-replay --policy hpa --set target_value=20 "$tmp/m.csv"
if [ -s "$tmp/out" ]; then bad "a refused setting printed: $(head -1 "$tmp/out")"; else
	ok "a refused setting prints nothing"; fi
has "$tmp/err" "target_value = 20 has no effect" "the refusal names the setting and its value"
has "$tmp/err" "metric = utilization" "the refusal names the mode"
# a gap of 1.4e17 s, a 1 ns tick: one decision a row
printf 'time,ready,total\n0,2,0.5\n1.4e17,2,1\n' >"$tmp/gap.csv"
expect 0 "a gap of 1.4e17 s with kpa_tick = 1ns" -- \
	timeout 60 "$aiw" autoscale-replay --policy kpa --set kpa_tick=1ns "$tmp/gap.csv"
[ "$(wc -l <"$tmp/out")" = 3 ] && ok "two decisions" || bad "$(wc -l <"$tmp/out") lines"
# no file named "-" or "/dev/stdout" is written
[ ! -e ./- ] && ok "no file named '-'" || bad "a file named '-' was written"
exit $fail
