#!/bin/sh
# report.sh - `aiworkload run --report FILE.html` (aiw_sim_write_html): the
# default day's report is one self-contained file under 2 MB; it loads in
# headless Chromium with no console error, no error event and no resource
# refused (the page's Content-Security-Policy forbids any network access),
# and its DOM holds a chart for every curve of the run and every table;
# the checks are shown to fail on a page with a script error and on one
# that asks the network for an image.  The screenshot is kept as an
# artefact: $top_builddir/tests/cli/report-artefacts/report.png.
# An output equal to an input is refused.
# Skipped (exit 77) only when Chromium is missing and the test does not run
# as root: as root, `./quickstart test` installs it (Debian's chromium), so
# a missing browser is a failure.
set -u
. "$top_srcdir/tests/cli/common.sh"

# --- the file, without a browser --------------------------------------------
expect 0 "run --report (the default day)" -- "$aiw" run --summary none \
	--report "$tmp/day.html" --series "$tmp/day.csv"
size=$(wc -c <"$tmp/day.html")
[ "$size" -gt 100000 ] && [ "$size" -lt 2097152 ] &&
	ok "the default day's report is $size bytes (under 2 MB)" ||
	bad "the default day's report is $size bytes (want 100 kB .. 2 MB)"
has "$tmp/day.html" "Content-Security-Policy\" content=\"default-src 'none';" \
	"the page forbids network access (Content-Security-Policy)"
if grep -Eiq '<(link|iframe|object|embed)[ >]|(src|href)="(https?:)?//' "$tmp/day.html"; then
	bad "the report refers to an outside resource:"
	grep -Eio '<(link|iframe|object|embed)[^>]*>|(src|href)="(https?:)?//[^"]*"' \
		"$tmp/day.html" | head -5
else
	ok "no outside resource (link, iframe, object, embed, remote src or href)"
fi
has "$tmp/day.html" "uPlot 1.6.32 (MIT), embedded" "the charting library is named with its version"
# the run's identity: version, seed, the scenario's parameters
version=$("$aiw" --version | sed 's/.* //')
has "$tmp/day.html" "<td>libaiworkload $version</td>" "the library version"
expect 0 "run --report --seed 7" -- "$aiw" run --summary none --seed 7 --duration 2h \
	--set inference.chat.max_batch=48 --report "$tmp/s7.html"
has "$tmp/s7.html" "<tr><td>Seed</td><td>7</td></tr>" "the seed given"
has "$tmp/s7.html" "max_batch = 48" "a parameter set on the command line, in the scenario"
has "$tmp/s7.html" "duration = 7200" "the duration given"
# the same run twice: the same bytes
"$aiw" run --summary none --seed 7 --duration 2h --set inference.chat.max_batch=48 \
	--report "$tmp/s7b.html"
cmp -s "$tmp/s7.html" "$tmp/s7b.html" && ok "the same run gives the same report" ||
	bad "two identical runs gave different reports"
# refused: an output that is an input, and a path that cannot be written
printf '[sim]\nduration = 1h\n' >"$tmp/in.ini"
cp "$tmp/in.ini" "$tmp/in.copy"
expect 2 "--report equal to the scenario" -- "$aiw" run "$tmp/in.ini" --report "$tmp/in.ini"
has "$tmp/err" "--report" "the refusal names --report"
cmp -s "$tmp/in.ini" "$tmp/in.copy" && ok "the scenario is intact" || bad "the scenario was changed"
expect 2 "--report equal to --series" -- "$aiw" run "$tmp/in.ini" --report "$tmp/o.csv" \
	--series "$tmp/o.csv"
expect 1 "--report into a missing directory" -- "$aiw" run "$tmp/in.ini" --summary none \
	--report "$tmp/no/such/r.html"
has "$tmp/err" "cannot write" "the failure says why"
expect 2 "--report given twice" -- "$aiw" run "$tmp/in.ini" --report a.html --report b.html

# --- in a browser ------------------------------------------------------------
. "$top_srcdir/tests/cli/browser.sh"
ncurves=$(head -1 "$tmp/day.csv" | tr ',' '\n' | tail -n +2 | wc -l)
browse "$tmp/day.html" || bad "chromium --dump-dom exit $?"
if problems; then
	bad "the report has errors in the browser:"
	sed 's/^/     | /' "$tmp/problems" | head -10
else
	ok "the report loads with no console error, error event or refused resource"
fi
tr '\n' ' ' <"$tmp/dom" | grep -q '<html[^>]*data-ready="1"' && ok "the charts' script ran to its end" ||
	bad "the charts' script did not finish (no data-ready)"
drawn=$(tr '\n' ' ' <"$tmp/dom" | grep -o '<html[^>]*data-charts="[0-9]*"' | sed 's/.*data-charts="//; s/"//')
[ "${drawn:-0}" = "$ncurves" ] && [ "$ncurves" -gt 10 ] &&
	ok "$drawn charts drawn, one per curve" || bad "${drawn:-no} charts drawn for $ncurves curves"
canvases=$(grep -o '<canvas' "$tmp/dom" | wc -l)
[ "$canvases" = "$ncurves" ] && ok "$canvases canvases in the DOM" ||
	bad "$canvases canvases for $ncurves curves"
missing=0
for c in $(head -1 "$tmp/day.csv" | tr ',' '\n' | tail -n +2 | sed 's/ \[.*//'); do
	grep -qF "data-curve=\"$c\"" "$tmp/dom" || { bad "no chart for the curve $c"; missing=1; }
done
[ $missing = 0 ] && ok "every curve of the CSV has its chart"
# uPlot's legend (the hover values) and its title for a curve
grep -q 'class="u-legend' "$tmp/dom" && ok "charts have their hover legend" || bad "no uPlot legend"
for t in 'id="identity-table"' 'id="scenario"' 'id="summary-table"' 'id="power-table"' \
	'class="latency-table" data-component="inference.chat"' \
	'class="slo-table" data-component="inference.chat"' \
	'class="training-table" data-component="training.pretrain"' 'id="costs-table"'; do
	grep -qF "$t" "$tmp/dom" && ok "table $t" || bad "no table $t in the DOM"
done
grep -qF '<td>Diversity factor (sum of component peaks / site peak)</td>' "$tmp/dom" &&
	ok "the diversity factor is in the power table" || bad "no diversity factor row"
# the summary holds every metric of the run
nmetrics=$("$aiw" run --summary json --duration 2h | grep -c '^    "[a-z]*\.[a-z_.]*": [-0-9n]')
rows=$(grep -o '<td><code>[a-z_]*\.[a-z_.]*</code></td></tr>' "$tmp/s7.html" | wc -l)
[ "$rows" -ge "$nmetrics" ] && [ "$nmetrics" -gt 50 ] &&
	ok "the report has a row for each of the $nmetrics metrics" ||
	bad "$rows metric rows for $nmetrics metrics"

# the checks fail on a page with a script error, and on one that asks the
# network for an image (refused by the page's policy)
sed 's|<h1>|<script>no_such_function();</script><h1>|' "$tmp/day.html" >"$tmp/broken.html"
browse "$tmp/broken.html"
problems && grep -q 'no_such_function' "$tmp/problems" &&
	ok "a script error is caught" || bad "a planted script error went unnoticed"
sed 's|<h1>|<img src="http://127.0.0.1:9/x.png"><h1>|' "$tmp/day.html" >"$tmp/remote.html"
browse "$tmp/remote.html"
problems && grep -q '127.0.0.1:9/x.png' "$tmp/problems" &&
	ok "a request to the network is refused and caught" || bad "a planted remote image went unnoticed"

# the screenshot, kept as an artefact
art="$top_builddir/tests/cli/report-artefacts"
mkdir -p "$art"
HOME="$tmp" timeout 120 "$chromium" --headless --disable-gpu --no-sandbox --hide-scrollbars \
	--user-data-dir="$tmp/profile" --virtual-time-budget=10000 --window-size=1100,3000 \
	--screenshot="$art/report.png" "file://$tmp/day.html" >/dev/null 2>&1
cp "$tmp/day.html" "$art/report.html"
if [ -s "$art/report.png" ] && [ "$(head -c 4 "$art/report.png" | od -An -c | tr -d ' ')" = '211PNG' ]; then
	ok "screenshot kept: $art/report.png ($(wc -c <"$art/report.png") bytes)"
else
	bad "no screenshot"
fi
exit $fail
