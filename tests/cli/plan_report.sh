#!/bin/sh
# plan_report.sh - `aiworkload plan --report FILE.html`
# (aiw_plan_write_html): a small serving plan's report holds a row per row
# of --csv with the same figures and --set lines, the re-check's verdicts,
# the same bytes on 1 and 2 threads, and the verdict of an empty table; a
# training plan's report holds its layouts.  Every page loads in headless
# Chromium with no console error, no error event and no resource refused;
# the serving page draws its two Pareto plots with a point per row, the
# training page its one plot; a planted script error is caught.  An output
# equal to the scenario, or to the other output, is refused.  Skipped (exit
# 77) only when Chromium is missing and the test does not run as root (as
# report.sh).
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
grid="--set-grid gpu=H100-SXM,L4 --set-grid gpus_per_replica=1,2 --set-grid weight_bits=8,16 --set-grid replicas=1..8"

expect 0 "plan --report" -- "$aiw" plan --ttft-p99 300ms $grid --recheck 2 \
	--recheck-replications 3 --no-progress --csv "$tmp/a.csv" --report "$tmp/a.html" "$tmp/s.ini"
has "$tmp/a.html" "Content-Security-Policy\" content=\"default-src 'none';" \
	"the page forbids network access (Content-Security-Policy)"
if grep -Eiq '<(link|iframe|object|embed)[ >]|(src|href)="(https?:)?//' "$tmp/a.html"; then
	bad "the report refers to an outside resource"
else
	ok "no outside resource"
fi
version=$("$aiw" --version | sed 's/.* //')
has "$tmp/a.html" "<td>libaiworkload $version</td>" "the library version"
has "$tmp/a.html" "<code>gpu</code> = H100-SXM, L4" "the GPU axis and its values"
has "$tmp/a.html" "<tr><td>P99 TTFT limit</td><td>0.3 s</td></tr>" "the TTFT limit"
nrows=$(($(wc -l <"$tmp/a.csv") - 1))
rows=$(grep -c '<tr class="row"' "$tmp/a.html")
[ "$nrows" -gt 1 ] && [ "$rows" = "$nrows" ] && ok "a row per CSV row ($rows)" ||
	bad "$rows report rows for $nrows CSV rows"
# every row's objective, P99 TTFT and peak power are the CSV's (%.6g of the
# same numbers), in the same order, and its --set lines are the CSV's
miss=0
tail -n +2 "$tmp/a.csv" | while IFS= read -r line; do
	rank=$(echo "$line" | cut -d, -f1)
	gpu=$(echo "$line" | cut -d, -f2)
	obj=$(printf '%.6g' "$(echo "$line" | cut -d, -f3)")
	ttft=$(printf '%.6g' "$(echo "$line" | cut -d, -f9)")
	peak=$(printf '%.6g' "$(echo "$line" | cut -d, -f13)")
	snip=$(echo "$line" | sed 's/.*,"\(.*\)"$/\1/')
	tr '\n' ' ' <"$tmp/a.html" | grep -o "<tr class=\"row\" data-rank=\"$rank\">.*" |
		sed 's|</tr>.*||' >"$tmp/row"
	for want in "<td>$gpu</td>" "<td class=\"num\">$obj</td><td class=\"num\">$ttft" \
		"<td class=\"num\">$peak</td>"; do
		grep -qF "$want" "$tmp/row" || { echo "rank $rank: no '$want'"; exit 1; }
	done
	grep -qF "<tr class=\"snippet\" data-rank=\"$rank\"><td></td><td colspan=\"16\"><code>$snip</code>" \
		"$tmp/a.html" || { echo "rank $rank: no snippet row '$snip'"; exit 1; }
done && ok "every row's figures and --set lines match --csv" || bad "a row differs from the CSV"
rechecked=$(grep -c '<td>\(ok\|MISS\) [0-9]*%</td>' "$tmp/a.html")
[ "$rechecked" -ge 1 ] && ok "re-check verdicts in the table ($rechecked)" ||
	bad "no re-check verdict in the table"
"$aiw" plan --ttft-p99 300ms $grid --recheck 2 --recheck-replications 3 --no-progress \
	--jobs 2 --report "$tmp/b.html" "$tmp/s.ini" >/dev/null 2>&1
cmp -s "$tmp/a.html" "$tmp/b.html" && ok "1 and 2 threads: the same report" ||
	bad "the same plan gave different reports on 1 and 2 threads"
# an empty table: the verdict, and exit 1 after writing the report
expect 1 "plan --report, nothing feasible" -- "$aiw" plan --ttft-p99 1ms $grid --no-progress \
	--report "$tmp/e.html" "$tmp/s.ini"
has "$tmp/e.html" '<p id="verdict">No feasible candidate: latency: P99 TTFT' \
	"the empty table's verdict"
# a training plan
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
expect 0 "plan --report, a training job" -- "$aiw" plan --component pretrain --no-progress \
	--csv "$tmp/t.csv" --report "$tmp/t.html" "$tmp/t.ini"
nt=$(($(wc -l <"$tmp/t.csv") - 1))
rt=$(grep -c '<tr class="row"' "$tmp/t.html")
[ "$nt" -gt 1 ] && [ "$rt" = "$nt" ] && ok "a row per feasible layout ($rt)" ||
	bad "$rt report rows for $nt layouts"
# refused outputs
cp "$tmp/s.ini" "$tmp/s.copy"
expect 2 "--report equal to the scenario" -- "$aiw" plan --ttft-p99 1s --report "$tmp/s.ini" "$tmp/s.ini"
has "$tmp/err" "--report" "the refusal names --report"
cmp -s "$tmp/s.ini" "$tmp/s.copy" && ok "the scenario is intact" || bad "the scenario was changed"
expect 2 "--csv equal to --report" -- "$aiw" plan --ttft-p99 1s --csv "$tmp/o.x" --report "$tmp/o.x" \
	"$tmp/s.ini"
expect 1 "--report into a missing directory" -- "$aiw" plan --ttft-p99 1s --set-grid replicas=1..2 \
	--no-progress --report "$tmp/no/such/r.html" "$tmp/s.ini"
has "$tmp/err" "cannot write" "the failure says why"

# --- in a browser ------------------------------------------------------------
. "$top_srcdir/tests/cli/browser.sh"
attr() { tr '\n' ' ' <"$tmp/dom" | grep -o "$1=\"[0-9]*\"" | head -1 | sed 's/.*="//; s/"//'; }
for page in a e t; do
	browse "$tmp/$page.html" || bad "chromium --dump-dom exit $?"
	if problems; then
		bad "$page.html has errors in the browser:"
		sed 's/^/     | /' "$tmp/problems" | head -10
	else
		ok "$page.html loads with no console error, error event or refused resource"
	fi
	tr '\n' ' ' <"$tmp/dom" | grep -q '<html[^>]*data-ready="1"' && ok "$page.html: the charts' script ran to its end" ||
		bad "$page.html: the charts' script did not finish (no data-ready)"
	case $page in
	a) [ "$(attr data-charts)" = 2 ] && ok "a.html: 2 Pareto plots" || bad "a.html: $(attr data-charts) charts"
		for c in chart-ttft chart-power; do
			pts=$(tr '\n' ' ' <"$tmp/dom" | grep -o "id=\"$c\" data-points=\"[0-9]*\"" | sed 's/.*="//; s/"//')
			[ "$pts" = "$rows" ] && ok "$c: a point per row ($pts)" || bad "$c: ${pts:-no} points for $rows rows"
		done
		grep -q 'class="u-legend' "$tmp/dom" && ok "the plots have their hover legend" || bad "no uPlot legend" ;;
	e) [ "$(attr data-charts)" = 2 ] && ok "e.html: the empty plots drawn without error" ||
		bad "e.html: $(attr data-charts) charts" ;;
	t) [ "$(attr data-charts)" = 1 ] && ok "t.html: 1 plot (tokens/s against memory)" ||
		bad "t.html: $(attr data-charts) charts" ;;
	esac
done
sed 's|<h1>|<script>no_such_function();</script><h1>|' "$tmp/a.html" >"$tmp/broken.html"
browse "$tmp/broken.html"
problems && grep -q 'no_such_function' "$tmp/problems" &&
	ok "a script error is caught" || bad "a planted script error went unnoticed"
art="$top_builddir/tests/cli/report-artefacts"
mkdir -p "$art"
HOME="$tmp" timeout 120 "$chromium" --headless --disable-gpu --no-sandbox --hide-scrollbars \
	--user-data-dir="$tmp/profile" --virtual-time-budget=10000 --window-size=1100,2000 \
	--screenshot="$art/plan_report.png" "file://$tmp/a.html" >/dev/null 2>&1
[ -s "$art/plan_report.png" ] && ok "screenshot kept: $art/plan_report.png" || bad "no screenshot"
exit $fail
