#!/bin/sh
# aiworkload plan: usage and exit codes, the ranked table and its CSV, the
# best row re-run with `run` and its --set lines gives the row's P99 TTFT,
# the same output twice, the refusal of an empty feasible set named.
set -u
. "$top_srcdir/tests/cli/common.sh"

cat >"$tmp/s.ini" <<'EOF2'
[sim]
seed = 3
duration = 1min
[inference chat]
gpu = H100-SXM
gpus_per_replica = 1
model_params = 13e9
traffic = poisson
rate = 12/s
prompt_tokens = lognormal(median=512,sigma=0.5)
output_tokens = lognormal(median=128,sigma=0.5)
EOF2
grid="--set-grid gpu=H100-SXM,L4 --set-grid weight_bits=8,16 --set-grid replicas=1..8"

expect 0 "plan --help" -- "$aiw" plan --help
has "$tmp/out" "usage: aiworkload plan" "--help prints the command's usage"
expect 0 "aiworkload --help lists plan" -- "$aiw" --help
has "$tmp/out" "aiworkload plan" "the main usage names the command"
expect 2 "plan without a scenario" -- "$aiw" plan
has "$tmp/err" "no scenario" "a missing scenario is named"
expect 2 "plan --objective speed" -- "$aiw" plan --ttft-p99 1 --objective speed "$tmp/s.ini"
has "$tmp/err" "cost_per_mtok" "the objectives are listed"
expect 2 "plan --set-grid pp=1" -- "$aiw" plan --ttft-p99 1 --set-grid pp=1 "$tmp/s.ini"
has "$tmp/err" "gpus_per_replica" "the axes are listed"
expect 2 "plan --set-grid replicas=0" -- "$aiw" plan --ttft-p99 1 --set-grid replicas=0 "$tmp/s.ini"
has "$tmp/err" "replicas" "a replica count out of range is named"
expect 2 "plan without a limit" -- "$aiw" plan "$tmp/s.ini"
has "$tmp/err" "latency limit" "a plan without a limit is refused"

expect 0 "plan, objective gpus" -- "$aiw" plan --ttft-p99 400ms --objective gpus $grid \
	--csv "$tmp/a.csv" "$tmp/s.ini"
has "$tmp/out" "Candidates 32: pruned" "the counts of pruned and simulated candidates"
has "$tmp/out" "--set inference.chat.autoscaler=none" "each row has its --set lines"
cp "$tmp/out" "$tmp/first"
expect 0 "plan again, 2 threads" -- "$aiw" plan --ttft-p99 400ms --objective gpus $grid \
	--csv "$tmp/b.csv" --jobs 2 "$tmp/s.ini"
cmp -s "$tmp/first" "$tmp/out" && cmp -s "$tmp/a.csv" "$tmp/b.csv" &&
	ok "the same table and CSV with 1 and 2 threads" || bad "two plans differ"
[ "$(wc -l <"$tmp/a.csv")" -gt 1 ] && ok "the CSV has rows" || bad "empty CSV"
# the best row's --set lines with run: the same P99 TTFT (17 digits in the CSV)
sets=$(sed -n 5p "$tmp/first")
want=$(awk -F, 'NR == 2 { print $9 }' "$tmp/a.csv")
# shellcheck disable=SC2086
"$aiw" run "$tmp/s.ini" $sets --summary json >"$tmp/run.json" 2>"$tmp/err" &&
	ok "run with the best row's --set lines" || bad "run of the snippet: $(cat "$tmp/err")"
got=$(tr ',' '\n' <"$tmp/run.json" | grep '"inference.chat.ttft_p99_s"' | sed 's/.*: *//')
awk -v a="$got" -v b="$want" 'BEGIN { exit !(a + 0 == b + 0 && b + 0 > 0) }' &&
	ok "the snippet reproduces the row's P99 TTFT ($want s)" ||
	bad "snippet's P99 TTFT $got, row $want"

expect 1 "plan, an unmeetable limit" -- "$aiw" plan --ttft-p99 1ms $grid "$tmp/s.ini"
has "$tmp/err" "no feasible candidate: latency: P99 TTFT" "the binding constraint is named"
has "$tmp/err" "limit 0.001 s" "with its limit"
expect 1 "plan, a GPU cap below every layout" -- "$aiw" plan --ttft-p99 1 \
	--set inference.chat.gpus_per_replica=4 --max-gpus 3 "$tmp/s.ini"
has "$tmp/err" "max_gpus: the smallest candidate that fits memory needs 4 GPUs, cap 3" \
	"the cap is named with the smallest need"
exit $fail
