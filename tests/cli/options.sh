#!/bin/sh
# options.sh - the one option parser of every command: an option that takes
# one value is refused when given twice (capacity, calibrate,
# autoscale-replay, params, as run and sweep), two flags of one choice are
# refused, "--opt=VALUE" is "--opt VALUE"; every command answers --help with
# its own usage; calibrate's --gpu takes the catalog's names and its
# --component is checked; plot without a scenario plots the built-in one; a
# profile value past 1e12 is reported with its real range.
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
. "$top_srcdir/tests/cli/common.sh"
csv="$top_srcdir/data/splitwise-perf/perf_model.csv"
cat >"$tmp/s.ini" <<'EOF'
[sim]
duration = 10min
[inference q]
gpu = H100-SXM
gpus_per_replica = 1
model_params = 7e9
rate = 1/s
replicas = 2
EOF
printf 'time,ready,metric\n0,2,0.9\n15,2,0.95\n' >"$tmp/m.csv"

# --- an option given twice ------------------------------------------------------
for o in --ttft-p99 --tpot-p99 --duration --min-requests --offline-requests --resolution \
	--max-runs --seeds --component --seed; do
	case $o in
	--ttft-p99 | --tpot-p99 | --duration) a=1s b=2s ;; --resolution) a=0.1 b=0.2 ;;
	--component) a=q b=r ;; *) a=1 b=2 ;;
	esac
	expect 2 "capacity $o given twice" -- "$aiw" capacity "$o" "$a" "$o=$b" "$tmp/s.ini"
	has "$tmp/err" "$o given twice" "capacity $o twice: message"
done
for o in --gpu --out --component; do
	expect 2 "calibrate $o given twice" -- "$aiw" calibrate "$csv" "$o" "$tmp/a" "$o" "$tmp/b"
	has "$tmp/err" "$o given twice" "calibrate $o twice: message"
done
[ ! -e "$tmp/a" ] && [ ! -e "$tmp/b" ] && ok "calibrate: nothing written" ||
	bad "calibrate: a refused command line wrote a file"
expect 2 "autoscale-replay --policy given twice" -- "$aiw" autoscale-replay --policy hpa \
	--policy kpa "$tmp/m.csv"
has "$tmp/err" "--policy given twice" "autoscale-replay --policy twice: message"
expect 2 "autoscale-replay --out given twice" -- "$aiw" autoscale-replay --policy hpa \
	--out "$tmp/a" --out="$tmp/b" "$tmp/m.csv"
has "$tmp/err" "--out given twice" "autoscale-replay --out twice: message"
[ ! -e "$tmp/a" ] && [ ! -e "$tmp/b" ] && ok "autoscale-replay: nothing written" ||
	bad "autoscale-replay: a refused command line wrote a file"
expect 2 "params --man given twice" -- "$aiw" params --man --man
for c in "run $tmp/s.ini" "sweep $tmp/s.ini" "capacity $tmp/s.ini"; do
	# shellcheck disable=SC2086 # $c is a word list
	expect 2 "$c --progress --no-progress" -- "$aiw" $c --progress --no-progress
	has "$tmp/err" "given both" "$c: two flags of one choice: message"
done
expect 2 "run --no-progress=1 (a flag with a value)" -- "$aiw" run "$tmp/s.ini" --no-progress=1
expect 0 "--set and --add stay repeatable" -- "$aiw" run "$tmp/s.ini" --no-progress \
	--summary none --add inference.r --set inference.r.gpu=H100-SXM \
	--set inference.r.model_params=7e9 --set inference.q.rate=2/s --set inference.q.rate=1/s
expect 0 "autoscale-replay --policy=hpa --set=K=V" -- "$aiw" autoscale-replay --policy=hpa \
	--set=hpa_tolerance=0.1 --set replicas=2 "$tmp/m.csv"
has "$tmp/out" "time,replicas,reason" "autoscale-replay: the decisions are printed"

# --- every command answers --help with its own usage ---------------------------
for c in run plot sweep params catalog scenario calibrate capacity autoscale-replay; do
	case $c in
	run | plot) usage="usage: aiworkload [run]" ;;
	*) usage="usage: aiworkload $c" ;;
	esac
	expect 0 "$c --help" -- "$aiw" $c --help
	has "$tmp/out" "$usage" "$c --help: its usage"
	expect 0 "$c ... -h" -- "$aiw" $c "$tmp/s.ini" -h
	has "$tmp/out" "$usage" "$c -h after an operand: its usage"
done
expect 2 "an unknown option before --help is reported" -- "$aiw" calibrate --frob --help
has "$tmp/err" "unknown option '--frob'" "calibrate --frob: message"
has "$tmp/err" "Try 'aiworkload calibrate --help'" "calibrate: the pointer to its own --help"

# --- calibrate --gpu and --component ------------------------------------------------
expect 0 "calibrate --gpu H100-SXM (the catalog's name) --out" -- \
	"$aiw" calibrate "$csv" --gpu H100-SXM --out "$tmp/cat.ini"
has "$tmp/cat.ini" "; rows of h100-80gb" "--gpu H100-SXM: the rows a fleet of H100-SXM fits"
expect 0 "calibrate --gpu h100-80gb --out" -- "$aiw" calibrate "$csv" --gpu h100-80gb \
	--out "$tmp/name.ini"
cmp -s "$tmp/cat.ini" "$tmp/name.ini" && ok "--gpu H100-SXM and h100-80gb: the same snippet" ||
	bad "--gpu H100-SXM and h100-80gb differ"
expect 0 "calibrate --gpu h100-sxm (any case)" -- "$aiw" calibrate "$csv" --gpu h100-sxm
has "$tmp/out" "h100-80gb (H100-SXM), decode" "--gpu h100-sxm: printed"
expect 2 "calibrate --gpu of no row" -- "$aiw" calibrate "$csv" --gpu B200
has "$tmp/err" "no rows for GPU B200" "--gpu B200: message"
for n in "a b" "" "x.y" "$(printf 'n%070d' 0)"; do
	expect 2 "calibrate --component '$n'" -- "$aiw" calibrate "$csv" --gpu h100-80gb \
		--out "$tmp/c.ini" --component "$n"
	has "$tmp/err" "--component" "calibrate --component '$n': message"
done
[ ! -e "$tmp/c.ini" ] && ok "a refused --component writes nothing" || bad "c.ini written"
expect 2 "calibrate --component without --out" -- "$aiw" calibrate "$csv" --component api
has "$tmp/err" "give --out" "--component without --out: message"

# --- plot without a scenario: the built-in one, as run -------------------------------
expect 0 "plot -o FILE.svg (the built-in scenario)" -- "$aiw" plot -o "$tmp/p.svg" \
	--duration 1h --no-progress
grep -q '<svg' "$tmp/p.svg" && ok "plot wrote the chart" || bad "plot: no chart"
expect 2 "plot without -o" -- "$aiw" plot "$tmp/s.ini"

# --- a profile value past 1e12: its real range -----------------------------------------
printf 'phase,gpu,tp,batch,prompt,context,time_s\nprefill,h100-80gb,8,2e12,512,0,0.05\n' \
	>"$tmp/big.csv"
expect 2 "calibrate: batch 2e12" -- "$aiw" calibrate "$tmp/big.csv"
has "$tmp/err" "must be an integer in [1, 1e+12]" "batch 2e12: the range, both ends"
exit $fail
