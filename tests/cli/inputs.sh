#!/bin/sh
# inputs.sh - no output of any command replaces a file the command reads:
# the scenario files and the files the scenario names (a measured profile,
# a trace, an empirical(FILE) distribution; aiw_sim_input), the points
# file, calibrate's measured table, autoscale-replay's metrics; each by
# the same name, another spelling, a symbolic link and a hard link.
# Every refusal exits 2 and leaves the input intact.  calibrate --out
# replaces its file whole or not at all.
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
. "$top_srcdir/tests/cli/common.sh"
csv="$top_srcdir/data/splitwise-perf/perf_model.csv"
mkdir "$tmp/d" "$tmp/sub"
cp "$csv" "$tmp/prof.csv"
printf 'TIMESTAMP,ContextTokens,GeneratedTokens\n0.5,100,20\n1.5,200,30\n3,50,10\n' \
	>"$tmp/trace.csv"
printf '# prompt lengths\n120\n300\n80\n' >"$tmp/sub/emp.txt"
# the empirical file is named relative to the scenario's directory
cat >"$tmp/s.ini" <<EOF
[sim]
duration = 10min
sample_interval = 1min
[inference p]
gpu = H100-SXM
gpus_per_replica = 8
replicas = 1
rate = 0.5/s
timing = iteration
profile = prof.csv
profile_gpu = h100-80gb
[inference t]
gpu = H100-SXM
gpus_per_replica = 1
model_params = 7e9
replicas = 1
traffic = trace
trace_file = trace.csv
[inference e]
gpu = H100-SXM
gpus_per_replica = 1
model_params = 7e9
replicas = 1
rate = 1/s
prompt_tokens = empirical(sub/emp.txt)
EOF
for f in prof.csv trace.csv sub/emp.txt; do cp "$tmp/$f" "$tmp/$f.keep"; done
intact() { # intact DESCRIPTION: every input as it was
	if cmp -s "$tmp/prof.csv" "$tmp/prof.csv.keep" && cmp -s "$tmp/trace.csv" "$tmp/trace.csv.keep" &&
		cmp -s "$tmp/sub/emp.txt" "$tmp/sub/emp.txt.keep"; then ok "$1: the inputs are intact"
	else bad "$1: an input was overwritten"; fi
}
run="$aiw run --no-progress --summary none"
expect 0 "the scenario runs (profile, trace, empirical)" -- $run "$tmp/s.ini"

# --- run: every output against every file the scenario names -------------
for f in prof.csv trace.csv sub/emp.txt; do
	ln -s "$tmp/$f" "$tmp/sym-$(basename "$f")"
	ln "$tmp/$f" "$tmp/hard-$(basename "$f")"
done
for o in --series --stream-csv --json --metrics --promtest --plot; do
	for f in prof.csv trace.csv sub/emp.txt; do
		b=$(basename "$f")
		for p in "$tmp/$f" "$tmp/d/../$f" "$tmp/sym-$b" "$tmp/hard-$b"; do
			expect 2 "run $o $p" -- $run "$tmp/s.ini" "$o" "$p"
		done
		has "$tmp/err" "would overwrite the file inference." "run $o onto $f: message"
	done
done
intact "run"
expect 2 "run --set inference.NAME.profile=FILE, --json FILE" -- $run "$tmp/s.ini" \
	--set "inference.p.profile=$tmp/hard-prof.csv" --json "$tmp/sym-prof.csv"
has "$tmp/err" "inference.p.profile" "the parameter is named"
(cd "$tmp" && $run s.ini --series sub/emp.txt >/dev/null 2>&1)
[ $? = 2 ] && ok "run s.ini --series sub/emp.txt (relative names) refused" ||
	bad "run s.ini --series sub/emp.txt not refused"
expect 2 "plot -o onto the trace" -- "$aiw" plot "$tmp/s.ini" -o "$tmp/trace.csv" --no-progress
intact "plot"

# --- sweep --------------------------------------------------------------------
for p in "$tmp/prof.csv" "$tmp/sym-trace.csv" "$tmp/hard-emp.txt"; do
	expect 2 "sweep --out $p" -- "$aiw" sweep "$tmp/s.ini" --set site.pue=1.1 --out "$p"
	expect 2 "sweep --replications-out $p" -- "$aiw" sweep "$tmp/s.ini" --set site.pue=1.1 \
		--replications-out "$p"
done
has "$tmp/err" "would overwrite the file inference." "sweep: message"
# files that the points' values name: an axis, a --points column
cp "$tmp/trace.csv" "$tmp/trace2.csv"
cp "$tmp/trace2.csv" "$tmp/trace2.keep"
expect 2 "sweep --set inference.t.trace_file=A,B --out B" -- "$aiw" sweep "$tmp/s.ini" \
	--set "inference.t.trace_file=$tmp/trace.csv,$tmp/trace2.csv" --out "$tmp/d/../trace2.csv"
has "$tmp/err" "the file inference.t.trace_file names at point 2" "sweep axis: message"
printf 'inference.t.trace_file\n%s\n' "$tmp/trace2.csv" >"$tmp/pts.csv"
expect 2 "sweep --points naming B --replications-out B" -- "$aiw" sweep "$tmp/s.ini" \
	--points "$tmp/pts.csv" --replications-out "$tmp/trace2.csv"
cmp -s "$tmp/trace2.csv" "$tmp/trace2.keep" && ok "sweep: the points' files are intact" ||
	bad "sweep: a file a point names was overwritten"
intact "sweep"

# --- calibrate --out ------------------------------------------------------------
for p in "$tmp/prof.csv" "$tmp/d/../prof.csv" "$tmp/sym-prof.csv" "$tmp/hard-prof.csv"; do
	expect 2 "calibrate prof.csv --out $p" -- "$aiw" calibrate "$tmp/prof.csv" \
		--gpu h100-80gb --out "$p"
done
has "$tmp/err" "would overwrite the measured table" "calibrate --out TABLE: message"
intact "calibrate"
printf '; an older snippet\n' >"$tmp/old.ini"
cp "$tmp/old.ini" "$tmp/old.keep"
printf 'gpu,tp,batch,prompt,context,phase,time\nh100-80gb,8,1,100,0,prefill,zero\n' \
	>"$tmp/badtable.csv"
expect 2 "calibrate of a bad table --out OLD" -- "$aiw" calibrate "$tmp/badtable.csv" \
	--out "$tmp/old.ini"
cmp -s "$tmp/old.ini" "$tmp/old.keep" && ok "a failed calibrate keeps the old snippet" ||
	bad "a failed calibrate replaced the old snippet"
# a fit that fails once the snippet has begun (one TP degree: the TP term
# is not determined): no partial snippet, the old one stays
printf 'phase,gpu,tp,batch,prompt,context,time_s\nprefill,h100-80gb,8,1,512,0,0.05\n%s\n' \
	'prefill,h100-80gb,8,2,512,0,0.09' >"$tmp/onetp.csv"
expect 2 "calibrate that fails mid-fit --out OLD" -- "$aiw" calibrate "$tmp/onetp.csv" \
	--out "$tmp/old.ini"
has "$tmp/err" "is not determined" "the fit's refusal is reported"
cmp -s "$tmp/old.ini" "$tmp/old.keep" && ok "a failed fit keeps the old snippet" ||
	bad "a failed fit replaced the old snippet: $(head -c 300 "$tmp/old.ini")"
expect 2 "calibrate that fails mid-fit --out NEW" -- "$aiw" calibrate "$tmp/onetp.csv" \
	--out "$tmp/new.ini"
[ ! -e "$tmp/new.ini" ] && ok "a failed fit leaves no snippet" || bad "a failed fit left new.ini"
if [ -w /dev/full ]; then
	expect 1 "calibrate --out /dev/full" -- "$aiw" calibrate "$tmp/prof.csv" --gpu h100-80gb \
		--out /dev/full
fi
ls -a "$tmp" | grep -q '^\.old\.ini\.\|^\.new\.ini\.' && bad "a temporary file was left" ||
	ok "no temporary file left"
expect 0 "calibrate --out OLD replaces it" -- "$aiw" calibrate "$tmp/prof.csv" --gpu h100-80gb \
	--out "$tmp/old.ini"
has "$tmp/old.ini" "[inference chat]" "the new snippet is in place"
ln -s old.ini "$tmp/link.ini"
expect 0 "calibrate --out through a symbolic link" -- "$aiw" calibrate "$tmp/prof.csv" \
	--gpu h100-80gb --component viaLink --out "$tmp/link.ini"
[ -L "$tmp/link.ini" ] && ok "the symbolic link stays" || bad "the symbolic link was replaced"
has "$tmp/old.ini" "[inference viaLink]" "the link's target is replaced"

# --out /dev/stdout: the snippet follows the fit on the stream, never a
# reopened (truncated) file
echo before >"$tmp/log"
"$aiw" calibrate "$tmp/prof.csv" --gpu h100-80gb --out /dev/stdout >>"$tmp/log" 2>"$tmp/err"
echo after >>"$tmp/log"
if [ "$(head -n 1 "$tmp/log")" = before ] && [ "$(tail -n 1 "$tmp/log")" = after ] &&
	awk '/^\[inference chat\]/ { s = NR } /median \|error\|/ { f = NR } END { exit !(s > f && f) }' \
		"$tmp/log"; then
	ok "calibrate --out /dev/stdout >> LOG: kept, the snippet after the fit"
else
	bad "calibrate --out /dev/stdout >> LOG: $(head -c 200 "$tmp/log")"
fi

# --- autoscale-replay --out ------------------------------------------------------
printf 'time,ready,metric\n0,2,0.9\n15,2,0.95\n30,2,0.4\n' >"$tmp/m.csv"
cp "$tmp/m.csv" "$tmp/m.keep"
ln -s "$tmp/m.csv" "$tmp/sym-m.csv"
ln "$tmp/m.csv" "$tmp/hard-m.csv"
for p in "$tmp/m.csv" "$tmp/d/../m.csv" "$tmp/sym-m.csv" "$tmp/hard-m.csv"; do
	expect 2 "autoscale-replay --out $p" -- "$aiw" autoscale-replay --policy hpa \
		"$tmp/m.csv" --out "$p"
done
has "$tmp/err" "would overwrite the metrics" "autoscale-replay --out METRICS: message"
cmp -s "$tmp/m.csv" "$tmp/m.keep" && ok "autoscale-replay: the metrics are intact" ||
	bad "autoscale-replay: the metrics were overwritten"
exit $fail
