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
expect 2 "plan --set-grid tp=1" -- "$aiw" plan --ttft-p99 1 --set-grid tp=1 "$tmp/s.ini"
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

# a [training NAME] job: the layout search
cat >"$tmp/t.ini" <<'EOF2'
[sim]
duration = 1h
[training pretrain]
gpu = H100-SXM
gpus = 8
gpus_per_node = 8
layers = 32
hidden = 4096
ffn_hidden = 11008
heads = 32
kv_heads = 32
vocab = 32000
seq_len = 4096
mlp = swiglu
global_batch = 16
EOF2
expect 0 "plan of a training job" -- "$aiw" plan "$tmp/t.ini" --component pretrain --top 3 \
	--csv "$tmp/t.csv"
has "$tmp/out" "training job pretrain" "the header names the training job"
has "$tmp/out" "A run of the best layout: tokens 3.95903e+08 wall_s 3600" \
	"the training metrics of a run of the best layout"
has "$tmp/out" "Candidates 432: refused 28 by the start check" "the grid and the refusals counted"
has "$tmp/t.csv" "rank,gpu,tokens_per_s,gpus,tp,pp,dp,zero_stage,micro_batch,recompute" \
	"the CSV has the training columns"
[ "$(grep -c '^[0-9]' "$tmp/t.csv")" = 404 ] && ok "a CSV row per feasible layout" ||
	bad "CSV rows: $(grep -c '^[0-9]' "$tmp/t.csv")"
tsets=$(sed -n 2p "$tmp/t.csv" | sed 's/.*"\(.*\)"/\1/')
twant=$(sed -n 2p "$tmp/t.csv" | cut -d, -f11)
"$aiw" run "$tmp/t.ini" $tsets --set sim.duration=10min --summary json >"$tmp/trun.json" \
	2>"$tmp/err" && ok "run with the best layout's --set lines" ||
	bad "run of the training snippet: $(cat "$tmp/err")"
tgot=$(tr ',' '\n' <"$tmp/trun.json" | grep '"training.pretrain.step_time_model_s"' |
	sed 's/.*: *//')
awk -v a="$tgot" -v b="$twant" 'BEGIN { exit !(a + 0 == b + 0 && b + 0 > 0) }' &&
	ok "the snippet reproduces the best layout's step time ($twant s)" ||
	bad "snippet's step time $tgot, row $twant"
expect 1 "plan of a training job nothing fits" -- "$aiw" plan "$tmp/t.ini" \
	--component training.pretrain --set training.pretrain.gpus=1 \
	--set training.pretrain.layers=80 --set training.pretrain.hidden=8192
has "$tmp/err" "no feasible layout: memory: no layout of the 48 fits; the closest needs" \
	"the refusal names the closest layout's need"
has "$tmp/err" "H100-SXM has 80.0 GB" "and the GPU's memory"
# the further axes, attainment at a confidence, a training job's time to train
expect 0 "plan over pp and the chunked-prefill budget" -- "$aiw" plan --ttft-p99 400ms \
	--set inference.chat.chunked_prefill=on --set-grid pp=1,2 \
	--set-grid max_num_batched_tokens=2048,8192 --set-grid replicas=1..4 "$tmp/s.ini"
has "$tmp/out" "--set inference.chat.pp=" "a row's --set lines carry pp"
has "$tmp/out" "--set inference.chat.max_num_batched_tokens=" "and the token budget"
expect 2 "a token budget with chunked prefill off" -- "$aiw" plan --ttft-p99 400ms \
	--set-grid max_num_batched_tokens=2048 --set-grid replicas=1..4 "$tmp/s.ini"
has "$tmp/err" "chunked_prefill = off" "the setting it needs is named"
expect 2 "attainment that the replications cannot show" -- "$aiw" plan --ttft-p99 400ms \
	--attainment 0.99 --replications 10 --set-grid replicas=1..4 "$tmp/s.ini"
has "$tmp/err" "replications from 299" "the least replications that can show it"
expect 0 "plan with attainment at a confidence" -- "$aiw" plan --ttft-p99 400ms \
	--attainment 0.8 --confidence 0.9 --replications 11 --set-grid replicas=1..4 "$tmp/s.ini"
has "$tmp/out" "lower bound" "each row has the attainment's lower bound"
expect 0 "a training job's time to train" -- "$aiw" plan "$tmp/t.ini" --component pretrain \
	--top 1 --train-tokens 1e10 --set training.pretrain.gpu_mtbf=50000h
has "$tmp/out" "to train: " "the expected time and cost with failures"
has "$tmp/out" "(Young " "Young's interval beside the job's"
# aggregated vs disaggregated: the columns of the axes given, the best row's
# --set lines re-run to its P99 TTFT and TPOT (the decode pool's)
cat >"$tmp/d.ini" <<'EOF2'
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
decode_fleet = dec
[inference dec]
gpu = H100-SXM
gpus_per_replica = 1
model_params = 13e9
disaggregation = decode
EOF2
expect 0 "plan over disaggregation" -- "$aiw" plan "$tmp/d.ini" --ttft-p99 400ms \
	--tpot-p99 40ms --set-grid disaggregation=off,on --set-grid decode_replicas=1,2 \
	--set-grid replicas=1..4 --csv "$tmp/d.csv" --report "$tmp/d.html"
has "$tmp/out" "fleet chat:" "the fleet that is not a decode pool is the default"
has "$tmp/out" " disagg    dec " "the disaggregation and decode-replica columns"
has "$tmp/d.html" "<th>decode replicas</th>" "the report's column"
sets=$(sed -n 5p "$tmp/out")
dis=$(awk -F, 'NR == 2 { print $30 }' "$tmp/d.csv")
want_ttft=$(awk -F, 'NR == 2 { print $9 }' "$tmp/d.csv")
want_tpot=$(awk -F, 'NR == 2 { print $11 }' "$tmp/d.csv")
pool=chat
[ "$dis" = 1 ] && pool=dec
# shellcheck disable=SC2086
"$aiw" run "$tmp/d.ini" $sets --summary json >"$tmp/run.json" 2>"$tmp/err" &&
	ok "run with the best row's --set lines" || bad "run of the snippet: $(cat "$tmp/err")"
got_ttft=$(tr ',' '\n' <"$tmp/run.json" | grep '"inference.chat.ttft_p99_s"' | sed 's/.*: *//')
got_tpot=$(tr ',' '\n' <"$tmp/run.json" | grep "\"inference.$pool.tpot_p99_s\"" | sed 's/.*: *//')
awk -v a="$got_ttft" -v b="$want_ttft" -v c="$got_tpot" -v d="$want_tpot" \
	'BEGIN { exit !(a + 0 == b + 0 && c + 0 == d + 0 && b + 0 > 0 && d + 0 > 0) }' &&
	ok "the snippet reproduces the row's P99 TTFT and TPOT ($want_ttft s, $want_tpot s)" ||
	bad "snippet's P99 TTFT $got_ttft TPOT $got_tpot, row $want_ttft $want_tpot"
exit $fail
