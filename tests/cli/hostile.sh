#!/bin/sh
# The aiworkload command against hostile command lines: --set of any length
# (no fixed buffer, no silent cut), options that take one value given
# twice, outputs that would overwrite an input or each other (through other
# spellings, symbolic and hard links), every writer's failure on a full
# device, and Ctrl-C during `run --stream-csv` (the file ends on a complete
# row, exit 130).
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
. "$top_srcdir/tests/cli/common.sh"
cat >"$tmp/s.ini" <<'EOF'
[sim]
duration = 2h
sample_interval = 1min
[load base]
profile = 0:100kW, 1h:200kW
[inference q]
gpu = H100-SXM
gpus_per_replica = 1
model_params = 7e9
rate = 5/s
replicas = 2
EOF
cp "$tmp/s.ini" "$tmp/keep.ini"
run="$aiw run --no-progress"

# --- --set of any length ------------------------------------------------------
long=$(awk 'BEGIN { for (i = 0; i < 3000; i++) printf "a" }')
expect 2 "--set with a 3000-byte name is refused, no crash" -- $run "$tmp/s.ini" --set "$long=1"
has "$tmp/err" "longer than" "the message says the name is too long"
zeros=$(awk 'BEGIN { for (i = 0; i < 2000; i++) printf "0" }')
expect 0 "--set with a 2000-byte value" -- $run "$tmp/s.ini" --summary json \
	--set "inference.q.rate=${zeros}5/s"
grep '"inference.q.requests_arrived"' "$tmp/out" >"$tmp/padded"
expect 0 "the same value unpadded" -- $run "$tmp/s.ini" --summary json --set "inference.q.rate=5/s"
grep '"inference.q.requests_arrived"' "$tmp/out" >"$tmp/plain"
if [ -s "$tmp/plain" ] && cmp -s "$tmp/padded" "$tmp/plain"; then
	ok "a padded value runs as the value itself ($(cat "$tmp/plain"))"
else
	bad "padded value: $(cat "$tmp/padded") vs $(cat "$tmp/plain")"
fi
expect 2 "--set with a 5000-byte bad value is refused" -- $run "$tmp/s.ini" \
	--set "inference.q.rate=${zeros}${zeros}${zeros}x"
expect 0 "--set NAME with spaces around it" -- $run "$tmp/s.ini" --summary none \
	--set "  inference.q.rate  =4/s"

# --- options that take one value, given twice -------------------------------
for o in --seed --duration --sample-interval --summary --series --stream-csv --json \
	--metrics --promtest --title; do
	case $o in
	--seed) a=1 b=2 ;; --duration | --sample-interval) a=1h b=2h ;;
	--summary) a=text b=json ;; *) a=$tmp/a b=$tmp/b ;;
	esac
	expect 2 "run $o given twice" -- $run "$tmp/s.ini" "$o" "$a" "$o=$b"
	has "$tmp/err" "$o given twice" "run $o twice: message"
done
expect 2 "run --plot and -o given both" -- $run "$tmp/s.ini" --plot "$tmp/a.svg" -o "$tmp/b.svg"
expect 2 "plot -o given twice" -- "$aiw" plot "$tmp/s.ini" -o "$tmp/a.svg" -o "$tmp/b.svg"
expect 2 "run --rules given twice" -- $run "$tmp/s.ini" --promtest "$tmp/t.yml" --rules a.yml \
	--rules b.yml
[ ! -e "$tmp/a" ] && [ ! -e "$tmp/b" ] && [ ! -e "$tmp/a.svg" ] && ok "nothing written" ||
	bad "a refused command line wrote a file"
expect 0 "--set stays repeatable" -- $run "$tmp/s.ini" --summary none --set inference.q.rate=4/s \
	--set inference.q.rate=3/s --set site.pue=1.2
for o in --seed --replications --jobs --metrics --out --replications-out --points; do
	case $o in
	--seed | --replications | --jobs) a=1 b=2 ;; --metrics) a=site.cost_usd b=sim.events ;;
	--points) printf 'site.pue\n1.1\n' >"$tmp/p1.csv"; a=$tmp/p1.csv b=$tmp/p1.csv ;;
	*) a=$tmp/a.csv b=$tmp/b.csv ;;
	esac
	expect 2 "sweep $o given twice" -- "$aiw" sweep "$tmp/s.ini" "$o" "$a" "$o" "$b"
	has "$tmp/err" "$o given twice" "sweep $o twice: message"
done

# --- outputs that would overwrite an input or each other ------------------
mkdir "$tmp/d"
ln -s "$tmp/s.ini" "$tmp/sym.ini"
ln "$tmp/s.ini" "$tmp/hard.ini"
for o in --json --series --stream-csv --metrics --promtest --plot; do
	for p in "$tmp/s.ini" "$tmp/d/../s.ini" "$tmp/sym.ini" "$tmp/hard.ini"; do
		expect 2 "run $o $p (the scenario)" -- $run "$tmp/s.ini" "$o" "$p"
	done
	has "$tmp/err" "would overwrite the scenario" "run $o: message"
done
(cd "$tmp" && $run ./s.ini --json s.ini >/dev/null 2>&1)
[ $? = 2 ] && ok "run ./s.ini --json s.ini refused" || bad "run ./s.ini --json s.ini not refused"
printf 'groups: []\n' >"$tmp/r.yml"
cp "$tmp/r.yml" "$tmp/r.keep"
expect 2 "run --promtest RULE (a rule file)" -- $run "$tmp/s.ini" --promtest "$tmp/d/../r.yml" \
	--rules "$tmp/x.yml,$tmp/r.yml"
has "$tmp/err" "would overwrite the rule file" "run --promtest RULE: message"
expect 2 "run --json and --series the same new file" -- $run "$tmp/s.ini" --json "$tmp/o" \
	--series "$tmp/d/../o"
has "$tmp/err" "name the same file" "two outputs, one file: message"
expect 0 "run --json and --metrics both /dev/null" -- $run "$tmp/s.ini" --json /dev/null \
	--metrics /dev/null --summary none
printf 'site.pue\n1.1\n1.2\n' >"$tmp/p.csv"
cp "$tmp/p.csv" "$tmp/p.keep"
expect 2 "sweep --out SCENARIO" -- "$aiw" sweep "$tmp/s.ini" --out "$tmp/sym.ini"
has "$tmp/err" "would overwrite the scenario" "sweep --out SCENARIO: message"
expect 2 "sweep --replications-out POINTS" -- "$aiw" sweep "$tmp/s.ini" --points "$tmp/p.csv" \
	--replications-out "$tmp/d/../p.csv"
has "$tmp/err" "would overwrite the points file" "sweep --replications-out POINTS: message"
expect 2 "sweep --out and --replications-out one file" -- "$aiw" sweep "$tmp/s.ini" \
	--out "$tmp/x.csv" --replications-out "$tmp/d/../x.csv"
cmp -s "$tmp/s.ini" "$tmp/keep.ini" && cmp -s "$tmp/p.csv" "$tmp/p.keep" &&
	cmp -s "$tmp/r.yml" "$tmp/r.keep" && ok "the inputs are intact" || bad "an input was overwritten"

# --- every writer on a full device ---------------------------------------
if [ -w /dev/full ]; then
	for o in --json --series --stream-csv --metrics --promtest --plot; do
		expect 1 "run $o /dev/full" -- $run "$tmp/s.ini" --summary none "$o" /dev/full
		has "$tmp/err" "error writing '/dev/full': " "run $o /dev/full: message with the reason"
	done
	for s in json text full; do
		$run "$tmp/s.ini" --summary $s >/dev/full 2>"$tmp/err"
		[ $? = 1 ] && ok "run --summary $s >/dev/full (exit 1)" ||
			bad "run --summary $s >/dev/full: not exit 1"
		has "$tmp/err" "error writing standard output: " "--summary $s >/dev/full: message"
	done
	for c in "--help" "--version" "params" "params --man" "catalog" "catalog H100-SXM" "scenario"; do
		# shellcheck disable=SC2086 # $c is a word list
		"$aiw" $c >/dev/full 2>"$tmp/err"
		[ $? = 1 ] && grep -q "error writing standard output: " "$tmp/err" &&
			ok "$c >/dev/full: exit 1 with a message" || bad "$c >/dev/full: $(cat "$tmp/err")"
	done
	expect 1 "sweep --out /dev/full" -- "$aiw" sweep "$tmp/s.ini" --metrics sim.events \
		--out /dev/full
	has "$tmp/err" "error writing '/dev/full': " "sweep --out /dev/full: message with the reason"
	"$aiw" sweep "$tmp/s.ini" --metrics sim.events >/dev/full 2>"$tmp/err"
	[ $? = 1 ] && grep -q "standard output: " "$tmp/err" && ok "sweep >/dev/full: exit 1, message" ||
		bad "sweep >/dev/full: $(cat "$tmp/err")"
else
	echo "skip /dev/full checks (no /dev/full)"
fi

# --- Ctrl-C during run --stream-csv -----------------------------------------
# A background job of a script ignores SIGINT (and so would the command):
# restore it with env --default-signal where available, else use SIGTERM
# (the same handler).
sig=INT
launch="env --default-signal=INT"
env --default-signal=INT true 2>/dev/null || { sig=TERM; launch=""; }
# shellcheck disable=SC2086 # $launch is a word list
$launch $run --duration 400d --stream-csv "$tmp/st.csv" --json "$tmp/st.json" \
	>"$tmp/st.out" 2>"$tmp/st.err" &
pid=$!
# signal once a few rows are out (not after a fixed delay)
i=0
while [ "$(cat "$tmp/st.csv" 2>/dev/null | wc -l)" -lt 3 ] && [ $i -lt 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
kill -s $sig "$pid"
wait "$pid"
rc=$?
[ $rc = 130 ] && ok "SIG$sig during --stream-csv: exit 130" ||
	bad "SIG$sig during --stream-csv: exit $rc ($(cat "$tmp/st.err"))"
has "$tmp/st.err" "interrupted at" "SIG$sig: message"
if [ -s "$tmp/st.csv" ] && [ "$(tail -c 1 "$tmp/st.csv" | od -An -c | tr -d ' ')" = '\n' ] &&
	awk -F, 'NR == 1 { n = NF } NF != n { bad = 1 } END { exit bad }' "$tmp/st.csv"; then
	ok "SIG$sig: the CSV ends on a complete row ($(($(wc -l <"$tmp/st.csv") - 1)) rows)"
else
	bad "SIG$sig: the CSV ends mid-row: $(tail -c 80 "$tmp/st.csv")"
fi
rows=$(($(wc -l <"$tmp/st.csv") - 1))
[ "$rows" -lt $((400 * 1440)) ] && ok "SIG$sig: the run stopped early" || bad "SIG$sig: not stopped"
[ ! -e "$tmp/st.json" ] && ok "SIG$sig: no other output written" || bad "SIG$sig: --json written"
exit $fail
