#!/bin/sh
# aiworkload-mpi plan: `mpirun -np 1` and `-np 2` (loopback only) print the
# same table and write the same CSV as `aiworkload plan` with 1 thread, for
# a plan over aggregated and disaggregated candidates; a usage error on
# every rank gives exit 2 and one message.  Exit 77 (skipped) without
# mpirun or without tools/aiworkload-mpi (configure found no MPI).
set -u
. "$top_srcdir/tests/cli/common.sh"

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
args="--ttft-p99 400ms --tpot-p99 40ms --set-grid disaggregation=off,on
	--set-grid decode_replicas=1,2 --set-grid replicas=1..4 --recheck 1
	--recheck-replications 2"
# shellcheck disable=SC2086
expect 0 "plan, 1 thread" -- "$aiw" plan "$tmp/d.ini" $args --csv "$tmp/j1.csv"
cp "$tmp/out" "$tmp/j1.out"

mpi="$top_builddir/tools/aiworkload-mpi"
if ! command -v mpirun >/dev/null 2>&1; then
	echo "SKIP: mpirun not found"
	[ $fail -eq 0 ] && exit 77 || exit 1
fi
if [ ! -x "$mpi" ]; then
	echo "SKIP: tools/aiworkload-mpi not built (configure found no MPI)"
	[ $fail -eq 0 ] && exit 77 || exit 1
fi
# loopback only: shared memory and TCP on lo, no single-copy (containers)
export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include=lo \
	OMPI_MCA_oob_tcp_if_include=lo OMPI_MCA_btl_vader_single_copy_mechanism=none
# Open MPI's own allocations at exit are not this code's
export ASAN_OPTIONS="${ASAN_OPTIONS:-}${ASAN_OPTIONS:+:}detect_leaks=0"
to=""
command -v timeout >/dev/null 2>&1 && to="timeout 300"
for np in 1 2; do
	# shellcheck disable=SC2086
	$to mpirun --allow-run-as-root --oversubscribe -np $np "$mpi" plan "$tmp/d.ini" $args \
		--csv "$tmp/np$np.csv" >"$tmp/np$np.out" 2>"$tmp/np$np.err" &&
		ok "mpirun -np $np aiworkload-mpi plan" ||
		bad "mpirun -np $np exited $?: $(cat "$tmp/np$np.err")"
	cmp -s "$tmp/j1.out" "$tmp/np$np.out" && cmp -s "$tmp/j1.csv" "$tmp/np$np.csv" &&
		ok "-np $np: the same table and CSV as one process" ||
		bad "-np $np differs from aiworkload plan"
done
$to mpirun --allow-run-as-root --oversubscribe -np 2 "$mpi" plan "$tmp/d.ini" \
	--objective speed >"$tmp/mpi.out" 2>&1
rc=$?
[ $rc -eq 2 ] && ok "a usage error: exit 2" || bad "--objective speed: exit $rc"
[ "$(grep -c "cost_per_mtok" "$tmp/mpi.out")" -eq 1 ] && ok "one message" ||
	bad "expected one message: $(cat "$tmp/mpi.out")"
exit $fail
