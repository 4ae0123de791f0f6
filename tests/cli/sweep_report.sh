#!/bin/sh
# sweep_report.sh - `aiworkload sweep --report FILE.html`
# (aiw_sweep_write_html): a small sweep's report holds a row per point with
# the means and CI half-widths of --out's CSV, a refused point's message,
# the same bytes for the same sweep; it loads in headless Chromium with no
# console error, no error event and no resource refused, and draws one
# chart per metric; the checks are shown to fail on a page with a planted
# script error.  An output equal to an input, or to another output, is
# refused.  Skipped (exit 77) only when Chromium is missing and the test
# does not run as root (as report.sh).
set -u
. "$top_srcdir/tests/cli/common.sh"

cat >"$tmp/q.ini" <<'INI'
[sim]
duration = 300s
sample_interval = 300s
[inference q]
traffic = poisson
rate = 1/s
service = exp(0.5s)
batching = none
replicas = 1
INI
metrics=inference.q.queue_wait_mean_s,inference.q.requests_arrived
expect 0 "sweep --report" -- "$aiw" sweep "$tmp/q.ini" --set inference.q.rate=0.5/s,1/s,1.5/s \
	--set inference.q.service='exp(0.5s),const(0.4s)' --replications 3 --seed 11 \
	--metrics "$metrics" --jobs 2 --no-progress --out "$tmp/q.csv" --report "$tmp/q.html"
has "$tmp/q.html" "Content-Security-Policy\" content=\"default-src 'none';" \
	"the page forbids network access (Content-Security-Policy)"
if grep -Eiq '<(link|iframe|object|embed)[ >]|(src|href)="(https?:)?//' "$tmp/q.html"; then
	bad "the report refers to an outside resource"
else
	ok "no outside resource"
fi
version=$("$aiw" --version | sed 's/.* //')
has "$tmp/q.html" "<td>libaiworkload $version</td>" "the library version"
has "$tmp/q.html" "<tr><td>Seed</td><td>11</td></tr>" "the seed"
has "$tmp/q.html" "<tr><td>Replications</td><td>3</td></tr>" "the replications"
has "$tmp/q.html" "<code>inference.q.rate</code> = 0.5/s, 1/s, 1.5/s" "the first axis and its values"
rows=$(grep -c '<tr class="point"' "$tmp/q.html")
[ "$rows" = 6 ] && ok "a row per point (6)" || bad "$rows point rows for 6 points"
# every point's means and CI half-widths are the CSV's (%.6g of the same numbers)
miss=0
tail -n +2 "$tmp/q.csv" | while IFS=, read -r p rate svc m1 s1 c1 n1 m2 s2 c2 n2; do
	cell=$(printf '<td class="num">%.6g &plusmn; %.6g</td><td class="num">%.6g &plusmn; %.6g</td>' \
		"$m1" "$c1" "$m2" "$c2")
	grep -qF "data-point=\"$p\" data-status=\"ok\"><td class=\"num\">$p</td><td>$rate</td><td>$svc</td>$cell" \
		"$tmp/q.html" || { echo "point $p: no row with $cell"; exit 1; }
done && ok "every point's means and CI half-widths match --out's CSV" ||
	bad "a point's row differs from the CSV"
"$aiw" sweep "$tmp/q.ini" --set inference.q.rate=0.5/s,1/s,1.5/s \
	--set inference.q.service='exp(0.5s),const(0.4s)' --replications 3 --seed 11 \
	--metrics "$metrics" --jobs 1 --no-progress --out "$tmp/q1.csv" --report "$tmp/q1.html"
cmp -s "$tmp/q.html" "$tmp/q1.html" && ok "the same sweep on 1 and 2 threads: the same report" ||
	bad "the same sweep gave different reports"
# a keep-going sweep's refused point and its message
printf '[sim]\nduration = 1h\n[training t]\ngpus = 64\nmemory_check = warn\n' >"$tmp/t.ini"
expect 2 "sweep --keep-going --report (a refused point)" -- "$aiw" sweep "$tmp/t.ini" \
	--set training.t.gpus=0,8 --metrics training.t.steps --keep-going --no-progress \
	--out "$tmp/t.csv" --report "$tmp/t.html"
has "$tmp/t.html" '<ul id="refused-list">' "the refused points are listed"
has "$tmp/t.html" 'training.t.gpus = 0' "with their message"
# refused outputs
cp "$tmp/q.ini" "$tmp/q.copy"
expect 2 "--report equal to the scenario" -- "$aiw" sweep "$tmp/q.ini" --set inference.q.rate=1/s \
	--report "$tmp/q.ini"
has "$tmp/err" "--report" "the refusal names --report"
cmp -s "$tmp/q.ini" "$tmp/q.copy" && ok "the scenario is intact" || bad "the scenario was changed"
expect 2 "--report equal to --out" -- "$aiw" sweep "$tmp/q.ini" --set inference.q.rate=1/s \
	--out "$tmp/o.x" --report "$tmp/o.x"
expect 1 "--report into a missing directory" -- "$aiw" sweep "$tmp/q.ini" --set inference.q.rate=1/s \
	--no-progress --out "$tmp/o.csv" --report "$tmp/no/such/r.html"
has "$tmp/err" "cannot write" "the failure says why"

# --- in a browser ------------------------------------------------------------
. "$top_srcdir/tests/cli/browser.sh"
for page in q t; do
	browse "$tmp/$page.html" || bad "chromium --dump-dom exit $?"
	if problems; then
		bad "$page.html has errors in the browser:"
		sed 's/^/     | /' "$tmp/problems" | head -10
	else
		ok "$page.html loads with no console error, error event or refused resource"
	fi
	tr '\n' ' ' <"$tmp/dom" | grep -q '<html[^>]*data-ready="1"' && ok "$page.html: the charts' script ran to its end" ||
		bad "$page.html: the charts' script did not finish (no data-ready)"
done
# the last DOM is t.html's: one metric, one chart
drawn=$(tr '\n' ' ' <"$tmp/dom" | grep -o '<html[^>]*data-charts="[0-9]*"' | sed 's/.*data-charts="//; s/"//')
[ "${drawn:-0}" = 1 ] && ok "t.html: 1 chart (1 metric)" || bad "t.html: ${drawn:-no} charts for 1 metric"
browse "$tmp/q.html"
drawn=$(tr '\n' ' ' <"$tmp/dom" | grep -o '<html[^>]*data-charts="[0-9]*"' | sed 's/.*data-charts="//; s/"//')
[ "${drawn:-0}" = 2 ] && ok "q.html: 2 charts, one per metric" || bad "q.html: ${drawn:-no} charts for 2 metrics"
canvases=$(grep -o '<canvas' "$tmp/dom" | wc -l)
[ "$canvases" = 2 ] && ok "2 canvases in the DOM" || bad "$canvases canvases for 2 metrics"
for m in inference.q.queue_wait_mean_s inference.q.requests_arrived; do
	grep -qF "data-metric=\"$m\"" "$tmp/dom" && ok "a chart for $m" || bad "no chart for $m"
done
grep -q 'class="u-legend' "$tmp/dom" && ok "charts have their hover legend" || bad "no uPlot legend"
# two lines (one per service), each with its CI band: 1 + 2 x 3 series
series=$(grep -o '<tr class="u-series' "$tmp/dom" | wc -l)
[ "$series" = 14 ] && ok "7 series per chart (x, and per service: mean, +ci95, -ci95)" ||
	bad "$series legend series in 2 charts (want 14)"
for t in 'id="identity-table"' 'id="points-table"'; do
	grep -qF "$t" "$tmp/dom" && ok "table $t" || bad "no table $t in the DOM"
done
sed 's|<h1>|<script>no_such_function();</script><h1>|' "$tmp/q.html" >"$tmp/broken.html"
browse "$tmp/broken.html"
problems && grep -q 'no_such_function' "$tmp/problems" &&
	ok "a script error is caught" || bad "a planted script error went unnoticed"
art="$top_builddir/tests/cli/report-artefacts"
mkdir -p "$art"
HOME="$tmp" timeout 120 "$chromium" --headless --disable-gpu --no-sandbox --hide-scrollbars \
	--user-data-dir="$tmp/profile" --virtual-time-budget=10000 --window-size=1100,2000 \
	--screenshot="$art/sweep_report.png" "file://$tmp/q.html" >/dev/null 2>&1
[ -s "$art/sweep_report.png" ] && ok "screenshot kept: $art/sweep_report.png" || bad "no screenshot"
exit $fail
