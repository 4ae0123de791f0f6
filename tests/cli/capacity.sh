#!/bin/sh
# aiworkload capacity: usage and exit codes, the offline figure of an M/D/c
# fleet exactly (c / s), the server search's report, determinism, the
# progress lines on stderr only when asked, refused options named.
set -u
. "$top_srcdir/tests/cli/common.sh"

# 4 replicas of a fixed 2 s service, one request each: offline 2 requests/s
cat >"$tmp/mdc.ini" <<'EOF'
[inference q]
replicas = 4
service = const(2s)
batching = none
router = central
EOF
fast="--min-requests 1000 --duration 100s --offline-requests 4000"

expect 0 "capacity --help" -- "$aiw" capacity --help
has "$tmp/out" "usage: aiworkload capacity" "--help prints the command's usage"
has "$tmp/out" "--ttft-p99" "--help lists --ttft-p99"
expect 0 "aiworkload --help lists capacity" -- "$aiw" --help
has "$tmp/out" "aiworkload capacity" "the main usage names the command"
expect 2 "capacity without a scenario" -- "$aiw" capacity
has "$tmp/err" "no scenario" "a missing scenario is named"
expect 2 "capacity, unknown option" -- "$aiw" capacity --frobnicate "$tmp/mdc.ini"
has "$tmp/err" "--frobnicate" "the unknown option is named"
expect 2 "capacity --ttft-p99 0" -- "$aiw" capacity --ttft-p99 0 "$tmp/mdc.ini"
has "$tmp/err" "ttft_p99 = 0" "a limit out of range is named with its value"
expect 2 "capacity --resolution x" -- "$aiw" capacity --resolution x "$tmp/mdc.ini"
has "$tmp/err" "resolution=x" "a malformed value is named"
expect 2 "capacity --component nope" -- "$aiw" capacity --component nope "$tmp/mdc.ini"
has "$tmp/err" "component 'nope'" "an unknown fleet is named"
expect 2 "capacity --set of an undeclared fleet" -- \
	"$aiw" capacity --set inference.w.replicas=2 "$tmp/mdc.ini"
has "$tmp/err" "inference.w" "the undeclared component is named"
expect 2 "capacity of a two-fleet scenario without --component" -- \
	"$aiw" capacity "$top_srcdir/examples/scenarios/inference-only.ini"
has "$tmp/err" "2 inference fleets (chat, code): choose one with --component NAME" \
	"two fleets and no --component: the fleets and the option named"
expect 2 "capacity of two scenarios" -- "$aiw" capacity "$tmp/mdc.ini" "$tmp/mdc.ini"

# a limit the fleet misses without load: refused with the figure, no search
# shellcheck disable=SC2086
expect 2 "capacity under the unloaded latency" -- "$aiw" capacity $fast --ttft-p99 1s \
	--tpot-p99 none "$tmp/mdc.ini"
has "$tmp/err" "misses the limits (ttft_p99 = 1000 ms) without load: P99 TTFT 2000 ms" \
	"the unloaded P99 TTFT and the limit are named"

# shellcheck disable=SC2086
expect 0 "capacity of an M/D/4 fleet" -- "$aiw" capacity $fast --ttft-p99 2.5s \
	--tpot-p99 none "$tmp/mdc.ini"
grep -qx "  requests/s              2" "$tmp/out" && ok "offline: c / s = 4 / 2 s exactly" ||
	bad "offline: not 2 requests/s: $(cat "$tmp/out")"
has "$tmp/out" "last one ends at 33.33 min" "offline: 4000 requests end at 1000 x 2 s"
has "$tmp/out" "largest rate passing" "the server rate is reported"
has "$tmp/out" "resolution" "with its resolution"
has "$tmp/out" "P99 TTFT 2.5s, P99 TPOT none" "the limits used are printed"
[ -s "$tmp/err" ] && bad "stderr without --progress: $(cat "$tmp/err")" || ok "no progress unless asked"
cp "$tmp/out" "$tmp/first"
# shellcheck disable=SC2086
expect 0 "capacity again, with progress" -- "$aiw" capacity $fast --ttft-p99 2.5s \
	--tpot-p99 none --progress "$tmp/mdc.ini"
cmp -s "$tmp/first" "$tmp/out" && ok "the same figures, run after run" ||
	bad "two runs differ: $(diff "$tmp/first" "$tmp/out")"
has "$tmp/err" "capacity: run 1/40: offline 2/s" "--progress: one line per run"
has "$tmp/err" "passes" "--progress gives each verdict"
# shellcheck disable=SC2086
expect 0 "capacity --seed 2" -- "$aiw" capacity $fast --ttft-p99 2.5s --tpot-p99 none \
	--seed 2 "$tmp/mdc.ini"
cmp -s "$tmp/first" "$tmp/out" && bad "--seed 2 gives the figures of seed 1" ||
	ok "--seed changes the arrivals"
# --seeds: 1 is the default's output; N > 1 adds the rates over the seeds
# shellcheck disable=SC2086
expect 0 "capacity --seeds 1" -- "$aiw" capacity $fast --ttft-p99 2.5s --tpot-p99 none \
	--seeds 1 "$tmp/mdc.ini"
cmp -s "$tmp/first" "$tmp/out" && ok "--seeds 1: the figures without it" ||
	bad "--seeds 1 differs: $(diff "$tmp/first" "$tmp/out")"
# shellcheck disable=SC2086
expect 0 "capacity --seeds 3" -- "$aiw" capacity $fast --ttft-p99 2.5s --tpot-p99 none \
	--seeds 3 --progress "$tmp/mdc.ini"
has "$tmp/out" "Over 3 seeds (sim.seed 1 to 3; the figures above: the median seed's)" \
	"--seeds 3: the seeds named"
grep -Eq '^  server rate +[0-9.]+/s \+- [0-9.e-]+/s \(95% CI ' "$tmp/out" &&
	ok "--seeds 3: the server rate's mean +- its 95% interval" ||
	bad "--seeds 3: no mean +- CI line: $(cat "$tmp/out")"
has "$tmp/out" "  offline requests/s      2 +- 0 (95% CI 2 to 2" \
	"--seeds 3: M/D/c's offline rate is 2/s at every seed"
has "$tmp/err" "capacity: run 1/120: offline 2/s" "--progress counts of seeds x max_runs"
expect 2 "capacity --seeds 0" -- "$aiw" capacity --seeds 0 "$tmp/mdc.ini"
has "$tmp/err" "seeds = 0 (seeds measured) out of range: an integer from 1 to 1000" \
	"--seeds out of range: the setting, its value and the range named"
# a --set applies before the measurement: 8 replicas serve 4 requests/s offline
# shellcheck disable=SC2086
expect 0 "capacity --set replicas" -- "$aiw" capacity $fast --max-runs 3 \
	--set inference.q.replicas=8 "$tmp/mdc.ini"
grep -qx "  requests/s              4" "$tmp/out" && ok "--set inference.q.replicas=8: 8 / 2 s" ||
	bad "--set replicas=8: not 4 requests/s: $(cat "$tmp/out")"
exit $fail
