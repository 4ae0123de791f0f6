#!/bin/sh
# budget_day.sh - what a GPU budget shared by several fleets costs in CPU
# per request: four serving fleets (an 8B model on one H100 a replica,
# diurnal traffic peaking at 14:00, each an HPA on requests in flight)
# under one site.gpu_budget, against one such fleet carrying their
# traffic together alone; each run's CPU time (user + system) by
# /usr/bin/time -v, best of N runs, divided by the requests it completed;
# then the ratio four fleets / one fleet per request (goal <= 1.2x) and the
# machine.
#
#   bench/budget_day.sh BUILD [DURATION [RATE [BUDGET [N [RULE]]]]]
#
# BUILD: a configured and built tree (tools/aiworkload; a release build
# for figures); DURATION: simulated time (default 6h, from midnight, the
# morning ramp included); RATE: the total mean rate (default 1000/s, a
# quarter to each of the four); BUDGET: site.gpu_budget, GPUs (default
# 200: the four fleets' demand at the peak is above it, so that scale-ups
# are denied); N: repetitions (default 3); RULE: site.budget_rule (default
# weighted, weights 4:3:2:1).  The denied scale-ups are printed: the four
# fleets serve under the cap, the one fleet without one.  The four fleets
# without the budget are timed too: the ratio to them is the arbiter's own
# cost, the rest that of four fleets apart.
set -eu
[ $# -ge 1 ] || { sed -n '2,23p' "$0"; exit 2; }
b=$(cd "$1" && pwd)
dur=${2:-6h}
rate=${3:-1000}
budget=${4:-200}
n=${5:-3}
rule=${6:-weighted}
prog="$b/tools/aiworkload"
[ -x "$prog" ] && [ -x /usr/bin/time ] || { echo "budget_day: no $prog or /usr/bin/time"; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fleet() { # name rate weight
	cat <<EOT
[inference $1]
model_params = 8e9
layers = 32
gpus_per_replica = 1
traffic = diurnal
rate = $2/s
peak_to_trough = 4
peak_hour = 14
replicas = 8
autoscaler = hpa
min_replicas = 2
max_replicas = 1000
metric = concurrency
target_value = 24
cold_start = uniform(10s,30s)
slo_ttft = 500ms
budget_weight = $3
EOT
}
simhead() {
	printf '[sim]\nseed = 1\nduration = %s\nsample_interval = 1min\n' "$dur"
}
{ simhead; fleet one "$rate" 1; } >"$tmp/one.ini"
q=$(echo "scale=6; $rate / 4" | bc)
{
	simhead
	printf '[site]\ngpu_budget = %s\nbudget_rule = %s\n' "$budget" "$rule"
	fleet a "$q" 4
	fleet b "$q" 3
	fleet c "$q" 2
	fleet d "$q" 1
} >"$tmp/four.ini"
# the same four fleets without the budget: what four fleets cost apart
# from the arbiter
grep -v '^gpu_budget\|^budget_rule\|^\[site\]' "$tmp/four.ini" >"$tmp/free.ini"
# best CPU seconds over n runs of a scenario, and its requests completed
run() {
	best="" i=0
	while [ "$i" -lt "$n" ]; do
		/usr/bin/time -v "$prog" run "$1" --no-progress --summary json >"$tmp/j" 2>"$tmp/t"
		c=$(awk -F': ' '/User time/ {u = $2} /System time/ {s = $2} END {printf "%.2f", u + s}' "$tmp/t")
		if [ -z "$best" ] || [ "$(echo "$c < $best" | bc)" = 1 ]; then best=$c; fi
		i=$((i + 1))
	done
	done_=$(python3 -c "
import json, sys
m = json.load(open('$tmp/j'))['metrics']
print(int(sum(v for k, v in m.items() if k.endswith('.requests_completed'))),
      int(m.get('site.budget_denied_scaleups', 0)), int(m.get('site.budget_peak_gpus', 0)))")
	echo "$best $done_"
}
set -- $(run "$tmp/one.ini")
c1=$1 r1=$2
set -- $(run "$tmp/four.ini")
c4=$1 r4=$2 den=$3 peak=$4
set -- $(run "$tmp/free.ini")
cf=$1 rf=$2
u1=$(echo "scale=3; $c1 * 1000000 / $r1" | bc)
u4=$(echo "scale=3; $c4 * 1000000 / $r4" | bc)
uf=$(echo "scale=3; $cf * 1000000 / $rf" | bc)
echo "one fleet:                CPU $c1 s, $r1 requests, $u1 us a request"
echo "four fleets, budget $budget: CPU $c4 s, $r4 requests, $u4 us a request ($den scale-ups denied, peak $peak GPUs)"
echo "four fleets, no budget:   CPU $cf s, $rf requests, $uf us a request"
echo "CPU per request, four under the budget / one: $(echo "scale=3; $u4 / $u1" | bc)x (goal <= 1.2x)"
echo "CPU per request, four under the budget / four without: $(echo "scale=3; $u4 / $uf" | bc)x"
# the machine line of the C benchmarks (bench/bench.h, print_machine)
field() { sed -n "s/^$1[[:space:]]*: //p" /proc/cpuinfo 2>/dev/null | head -1; }
cc=$(sed -n 's/^CC = //p' "$b/Makefile" 2>/dev/null)
ccv=$(${cc:-cc} --version 2>/dev/null | head -1)
model=$(field 'model name')
printf 'machine: %s (family %s, model %s), %s CPU(s) online, compiler %s\n' \
	"${model:-unknown processor}" "$(field 'cpu family')" "$(field 'model')" \
	"$(getconf _NPROCESSORS_ONLN)" "${ccv:-unknown}"
