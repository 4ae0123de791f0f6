#!/bin/sh
# `aiworkload sweep`: --jobs 1 and --jobs 2 write byte-identical files, as do
# standard output and --out, and a point file listing the same grid; bad
# usage exits 2; SIGINT stops cleanly (exit 130) keeping complete rows;
# --keep-going records refused points with their messages and runs the rest.
# Then `mpirun -np 1` and `-np 2` of aiworkload-mpi (loopback only) write
# the same bytes as the threaded command (exit 77, skipped, without mpirun
# or without the MPI build).
set -u
: "${top_builddir:?}" "${top_srcdir:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() {
	echo "FAIL: $*"
	exit 1
}

sweep="$top_builddir/tools/aiworkload sweep"

cat >"$tmp/mm1.ini" <<'EOF'
[sim]
duration = 300s
sample_interval = 300s
[inference q]
traffic = poisson
rate = 1/s
service = exp(0.5s)
batching = none
replicas = 1
EOF
grid="--set inference.q.rate=0.5/s,1/s,1.5/s --set inference.q.service=exp(0.5s),const(0.4s)"
opts="--replications 5 --seed 3 --no-progress"

# shellcheck disable=SC2086
$sweep "$tmp/mm1.ini" $grid $opts --jobs 1 --out "$tmp/j1.csv" \
	--replications-out "$tmp/j1r.csv" || fail "--jobs 1 exited $?"
# shellcheck disable=SC2086
$sweep "$tmp/mm1.ini" $grid $opts --jobs 2 --out "$tmp/j2.csv" \
	--replications-out "$tmp/j2r.csv" || fail "--jobs 2 exited $?"
cmp "$tmp/j1.csv" "$tmp/j2.csv" || fail "results differ between --jobs 1 and --jobs 2"
cmp "$tmp/j1r.csv" "$tmp/j2r.csv" || fail "replications differ between --jobs 1 and 2"
[ "$(wc -l <"$tmp/j1.csv")" -eq 7 ] || fail "expected a header and 6 points"
[ "$(wc -l <"$tmp/j1r.csv")" -eq 31 ] || fail "expected a header and 30 runs"
head -n 1 "$tmp/j1.csv" | grep -q '^point,inference.q.rate,inference.q.service,.*,inference.q.queue_wait_mean_s.mean,inference.q.queue_wait_mean_s.sd,inference.q.queue_wait_mean_s.ci95,inference.q.queue_wait_mean_s.n,' ||
	fail "header: $(head -c 200 "$tmp/j1.csv")"

# standard output, and the same grid from a point file
# shellcheck disable=SC2086
$sweep "$tmp/mm1.ini" $grid $opts >"$tmp/stdout.csv" || fail "stdout run exited $?"
cmp "$tmp/j1.csv" "$tmp/stdout.csv" || fail "standard output differs from --out"
cat >"$tmp/points.csv" <<'EOF'
inference.q.rate,inference.q.service
# the grid above, row by row
0.5/s,exp(0.5s)
0.5/s,const(0.4s)
1/s,exp(0.5s)
1/s,const(0.4s)
1.5/s,exp(0.5s)
"1.5/s","const(0.4s)"
EOF
# shellcheck disable=SC2086
$sweep "$tmp/mm1.ini" --points "$tmp/points.csv" $opts --out "$tmp/points_out.csv" ||
	fail "--points exited $?"
cmp "$tmp/j1.csv" "$tmp/points_out.csv" || fail "--points differs from the same --set grid"

# usage errors exit 2 with a message (either test failing fails)
$sweep >/dev/null 2>"$tmp/err"
# shellcheck disable=SC2015
[ $? -eq 2 ] && grep -q "scenario" "$tmp/err" || fail "no scenario: $(cat "$tmp/err")"
$sweep "$tmp/mm1.ini" --replications 0 >/dev/null 2>"$tmp/err"
# shellcheck disable=SC2015
[ $? -eq 2 ] && grep -q "replications" "$tmp/err" || fail "--replications 0: $(cat "$tmp/err")"
$sweep "$tmp/mm1.ini" --set inference.q.rat=1/s >/dev/null 2>"$tmp/err"
# shellcheck disable=SC2015
[ $? -eq 2 ] && grep -q "did you mean" "$tmp/err" || fail "misspelt parameter: $(cat "$tmp/err")"
$sweep "$tmp/nonexistent.ini" >/dev/null 2>"$tmp/err"
# shellcheck disable=SC2015
[ $? -eq 2 ] && grep -q "nonexistent.ini" "$tmp/err" || fail "missing scenario: $(cat "$tmp/err")"
# usage_err TEXT ARGS...: the sweep exits 2 and its message holds TEXT
usage_err() {
	want=$1
	shift
	# shellcheck disable=SC2086 # $sweep is a word list
	$sweep "$@" >/dev/null 2>"$tmp/err"
	rc=$?
	# shellcheck disable=SC2015
	[ $rc -eq 2 ] && grep -qF -- "$want" "$tmp/err" ||
		fail "sweep $*: exit $rc, expected 2 and '$want': $(cat "$tmp/err")"
}
usage_err "unknown option '--frob'" "$tmp/mm1.ini" --frob
usage_err "--set inference.q.rate: expected NAME=V1,V2,..." "$tmp/mm1.ini" --set inference.q.rate
usage_err "--points given twice" "$tmp/mm1.ini" --points a.csv --points b.csv
usage_err "--jobs 2000: expected 0 (one per processor) to 1024" "$tmp/mm1.ini" --jobs 2000
usage_err "--seed x: expected a whole number" "$tmp/mm1.ini" --seed x
usage_err "--out and --replications-out name the same file" "$tmp/mm1.ini" \
	--out "$tmp/x.csv" --replications-out "$tmp/x.csv"
usage_err "option --jobs needs a value" "$tmp/mm1.ini" --jobs
# --progress: a bar on standard error, ending at 100 % and then erased
# shellcheck disable=SC2086
$sweep "$tmp/mm1.ini" --set inference.q.rate=0.5/s,1/s --replications 2 --progress \
	--out "$tmp/bar.csv" 2>"$tmp/bar.err" || fail "--progress exited $?"
grep -q "100%  4/4 runs" "$tmp/bar.err" || fail "--progress: $(tr '\r' '\n' <"$tmp/bar.err" | head -3)"
$sweep --help >"$tmp/help" 2>&1 || fail "sweep --help exited $?"
grep -q "^usage: aiworkload sweep SCENARIO.ini" "$tmp/help" || fail "sweep --help: $(head -3 "$tmp/help")"

# SIGINT: stop, keep complete rows, exit 130.  A background job of a
# script ignores SIGINT (and so does the command then): restore it with
# env --default-signal where available, else use SIGTERM (same handler).
sig=INT
launch="env --default-signal=INT"
env --default-signal=INT true 2>/dev/null || { sig=TERM; launch=""; }
pues=$(awk 'BEGIN { for (i = 1; i <= 40; i++) printf "%s%.2f", (i > 1 ? "," : ""), 1 + i / 100 }')
# shellcheck disable=SC2086 # $launch and $sweep are word lists
$launch $sweep "$tmp/mm1.ini" --set sim.duration=3000000s --set sim.sample_interval=10000s \
	--set site.pue="$pues" --replications 2 --jobs 2 \
	--metrics inference.q.queue_wait_mean_s --out "$tmp/int.csv" --progress \
	2>"$tmp/int.err" &
pid=$!
# Signal once the progress bar shows a finished run (not after a fixed delay:
# a fast machine finished all 80 runs within one second).
i=0
while ! { tr '\r' '\n' <"$tmp/int.err"; } 2>/dev/null | grep -q ' [1-9][0-9]*/80 runs' && [ $i -lt 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
kill -s $sig "$pid"
wait "$pid"
rc=$?
[ $rc -eq 130 ] || fail "SIG$sig: exit $rc, expected 130 ($(cat "$tmp/int.err"))"
grep -q "interrupted: kept" "$tmp/int.err" || fail "SIG$sig message: $(cat "$tmp/int.err")"
[ "$(head -n 1 "$tmp/int.csv")" = "point,sim.duration,sim.sample_interval,site.pue,inference.q.queue_wait_mean_s.mean,inference.q.queue_wait_mean_s.sd,inference.q.queue_wait_mean_s.ci95,inference.q.queue_wait_mean_s.n" ] ||
	fail "SIG$sig: header $(head -n 1 "$tmp/int.csv")"
rows=$(($(wc -l <"$tmp/int.csv") - 1))
[ "$rows" -lt 40 ] || fail "SIG$sig: all 40 points finished; the sweep did not stop"
tail -n +2 "$tmp/int.csv" | awk -F, '$8 != 2 { bad = 1 } END { exit bad }' ||
	fail "SIG$sig: an incomplete row was written"
echo "threads: --jobs 1 = --jobs 2 = stdout = --points; SIG$sig kept $rows complete points"

# --keep-going: a refused point (a value out of range, a start that refuses
# the scenario) gets a row with status refused and its message; the others
# run; exit 2 with the first refusal and a count.  Without it: nothing
# written, exit 2.
printf '[sim]\nduration = 1h\n[training t]\ngpus = 64\nmemory_check = warn\n' >"$tmp/tr.ini"
kg="--set training.t.gpus=0,8 --set training.t.zero_stage=0,1 --metrics training.t.steps"
# shellcheck disable=SC2086
$sweep "$tmp/tr.ini" $kg --no-progress --out "$tmp/nokg.csv" 2>"$tmp/nokg.err"
rc=$?
[ $rc -eq 2 ] || fail "a refused point without --keep-going: exit $rc, expected 2"
[ ! -s "$tmp/nokg.csv" ] || fail "a refused point without --keep-going wrote rows"
# shellcheck disable=SC2086
$sweep "$tmp/tr.ini" $kg --no-progress --keep-going --jobs 2 --out "$tmp/kg.csv" \
	2>"$tmp/kg.err"
rc=$?
[ $rc -eq 2 ] || fail "--keep-going with refused points: exit $rc, expected 2 ($(cat "$tmp/kg.err"))"
kgcsv=$(cat "$tmp/kg.csv")
[ "$(head -n 1 "$tmp/kg.csv")" = "point,training.t.gpus,training.t.zero_stage,training.t.steps.mean,training.t.steps.sd,training.t.steps.ci95,training.t.steps.n,status,message" ] ||
	fail "--keep-going header: $kgcsv"
[ "$(wc -l <"$tmp/kg.csv")" -eq 5 ] || fail "--keep-going: $kgcsv"
grep -q '^0,0,0,,,,0,refused,"point 0 (.*training.t.gpus = 0' "$tmp/kg.csv" ||
	fail "--keep-going: point 0 (gpus = 0): $kgcsv"
grep -q '^2,8,0,7,,,1,ok,$' "$tmp/kg.csv" || fail "--keep-going: point 2 did not run: $kgcsv"
grep -q '^3,8,1,,,,0,refused,"point 3 (.*zero_stage = 1 needs the architecture' \
	"$tmp/kg.csv" || fail "--keep-going: point 3 (zero_stage = 1): $kgcsv"
grep -q '3 of 4 points refused' "$tmp/kg.err" || fail "--keep-going message: $(cat "$tmp/kg.err")"
echo "--keep-going: 1 of 4 points ran, 3 refused with their messages"

# MPI
mpi="$top_builddir/tools/aiworkload-mpi"
if ! command -v mpirun >/dev/null 2>&1; then
	echo "SKIP: mpirun not found (the MPI part)"
	exit 77
fi
if [ ! -x "$mpi" ]; then
	echo "SKIP: tools/aiworkload-mpi not built (configure found no MPI)"
	exit 77
fi
# loopback only: shared memory and TCP on lo, no single-copy (containers)
export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include=lo \
	OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_btl_vader_single_copy_mechanism=none
# Open MPI itself leaks at exit (its plugins' allocations): under a
# sanitizer build the leak check is for our code, above, not for MPI's
export ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}detect_leaks=0"
to=""
command -v timeout >/dev/null 2>&1 && to="timeout 300"
for np in 1 2; do
	# shellcheck disable=SC2086
	$to mpirun --allow-run-as-root --oversubscribe -np $np "$mpi" sweep "$tmp/mm1.ini" \
		$grid $opts --out "$tmp/np$np.csv" --replications-out "$tmp/np${np}r.csv" \
		>"$tmp/mpi.out" 2>&1 || fail "mpirun -np $np exited $?: $(cat "$tmp/mpi.out")"
	cmp "$tmp/j1.csv" "$tmp/np$np.csv" || fail "mpirun -np $np differs from --jobs 1"
	cmp "$tmp/j1r.csv" "$tmp/np${np}r.csv" || fail "mpirun -np $np replications differ"
done
# a usage error on every rank: exit 2, one message
$to mpirun --allow-run-as-root --oversubscribe -np 2 "$mpi" sweep "$tmp/mm1.ini" \
	--replications 0 >"$tmp/mpi.out" 2>&1
rc=$?
[ $rc -eq 2 ] || fail "mpirun --replications 0: exit $rc: $(cat "$tmp/mpi.out")"
[ "$(grep -c "replications" "$tmp/mpi.out")" -eq 1 ] ||
	fail "mpirun --replications 0: expected one message: $(cat "$tmp/mpi.out")"
echo "mpi: -np 1 = -np 2 = --jobs 1, byte for byte"
