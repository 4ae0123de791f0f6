#!/bin/sh
# grid_report.sh - the grid section of `aiworkload run --report FILE.html`
# (aiw_sim_write_html with site.grid = on): a synchronous training job
# sampled at 100 ms (its power swings at the step frequency) with rows of
# racks.  Every figure of the grid tables carries the library's value as
# --summary json writes it (the same %.17g text); the spectrum's data
# holds one point per Welch bin above 0 Hz (segment / 2), its highest bin
# at the dominant frequency the library reports; the rows' peaks and
# diversity factors are in the power table.  In headless Chromium: no
# console error, error event or refused resource, both grid charts drawn,
# the spectrum chart with its segment / 2 points and the dominant
# frequency.  With site.grid = off the same run's report has no grid
# section, data or chart, and the default day's report stays under 2 MB
# with no grid section.  Skipped (exit 77) only when Chromium is missing
# and the test does not run as root (as report.sh).
set -u
. "$top_srcdir/tests/cli/common.sh"

cat >"$tmp/g.ini" <<'INI'
[sim]
duration = 20min
sample_interval = 100ms
[site]
grid = on
grid_drop_fraction = 0.2
racks_per_row = 2
[training t]
gpu = H100-SXM
gpus = 64
gpus_per_node = 8
model_params = 1e9
tokens_per_step = 1e6
step_compute = 1.3s
allreduce = ring
overlap = 0
INI
expect 0 "run --report with site.grid = on" -- "$aiw" run "$tmp/g.ini" --summary json \
	--no-progress --report "$tmp/g.html"
cp "$tmp/out" "$tmp/g.json"
size=$(wc -c <"$tmp/g.html")
[ "$size" -lt 2097152 ] && ok "the grid report is $size bytes (under 2 MB)" ||
	bad "the grid report is $size bytes (want < 2 MB)"
if grep -Eiq '<(link|iframe|object|embed)[ >]|(src|href)="(https?:)?//' "$tmp/g.html"; then
	bad "the report refers to an outside resource"
else
	ok "no outside resource"
fi
for t in 'id="grid"' 'id="grid-ramps"' 'id="grid-steps"' 'id="grid-spectrum"' 'id="aiw-grid"' \
	'<a href="#grid">Grid</a>'; do
	has "$tmp/g.html" "$t" "the grid section has $t"
done

# every figure of the grid tables: the library's value, the same text
n=0 wrong=0
grep -Eo 'data-metric="[a-z_.0-9]*"( data-scale="[^"]*")? data-value="[^"]*"' "$tmp/g.html" |
	sed 's/data-metric="\([^"]*\)".*data-value="\([^"]*\)"/\1 \2/' | sort -u >"$tmp/cells"
while read -r name val; do
	n=$((n + 1))
	lib=$(sed -n "s/^ *\"$name\": \([^,]*\),\{0,1\}\$/\1/p" "$tmp/g.json")
	[ "$lib" = "$val" ] || { bad "$name: the page has $val, the library $lib"; wrong=1; }
done <"$tmp/cells"
[ "$n" = 16 ] && [ $wrong = 0 ] &&
	ok "$n grid figures on the page equal the library's (ramps, steps, drop, events, spectrum)" ||
	bad "$n grid figures checked"
for m in grid_ramp_1_max_w_per_s grid_ramp_3_p99_w_per_s grid_drop_events grid_dominant_frequency_hz; do
	grep -q "^site\.$m " "$tmp/cells" && ok "the page shows site.$m" || bad "no site.$m on the page"
done
# the ramp in MW/min is the W/s figure times 60e-6
v=$(sed -n 's/^ *"site.grid_ramp_1_max_w_per_s": \([^,]*\),$/\1/p' "$tmp/g.json")
mw=$(awk -v v="$v" 'BEGIN { printf "%.4g", v * 6e-5 }')
grep -q "data-metric=\"site.grid_ramp_1_max_w_per_s\" data-scale=\"6e-05\" data-value=\"$v\">$mw</td>" \
	"$tmp/g.html" && ok "ramp 1 max shown as $mw MW/min" || bad "no ramp 1 max of $mw MW/min"

# the spectrum's data: segment / 2 bins, the highest at the dominant frequency
seg=$(sed -n 's/^ *"site.grid_welch_segment": "\([0-9]*\)",$/\1/p' "$tmp/g.json")
dom=$(sed -n 's/^ *"site.grid_dominant_frequency_hz": \([^,]*\),$/\1/p' "$tmp/g.json")
sed -n 's/.*<script type="application\/json" id="aiw-grid">\(.*\)<\/script>.*/\1/p' "$tmp/g.html" \
	>"$tmp/grid.json"
nf=$(sed 's/.*"f":\[\([^]]*\)\].*/\1/' "$tmp/grid.json" | tr ',' '\n' | grep -c .)
np=$(sed 's/.*"psd":\[\([^]]*\)\].*/\1/' "$tmp/grid.json" | tr ',' '\n' | grep -c .)
[ "$nf" = $((seg / 2)) ] && [ "$np" = "$nf" ] &&
	ok "the spectrum has $nf points (segment $seg / 2: the bins above 0 Hz)" ||
	bad "the spectrum has $nf frequencies and $np densities for a segment of $seg"
sed 's/.*"f":\[\([^]]*\)\].*/\1/' "$tmp/grid.json" | tr ',' '\n' >"$tmp/f"
sed 's/.*"psd":\[\([^]]*\)\].*/\1/' "$tmp/grid.json" | tr ',' '\n' >"$tmp/p"
top=$(paste -d' ' "$tmp/f" "$tmp/p" |
	awk '$2 != "null" && (best == "" || $2 + 0 > best + 0) { best = $2; f = $1 } END { print f }')
[ -n "$dom" ] && [ "$top" = "$dom" ] &&
	ok "the spectrum's highest point is at the dominant frequency $dom Hz" ||
	bad "the spectrum's highest point is at ${top:-?} Hz, the library says ${dom:-?} Hz"
grep -q "\"dominant\":$dom," "$tmp/grid.json" && ok "the chart marks $dom Hz" ||
	bad "the chart's dominant frequency is not $dom"
# the hierarchy above the racks in the power table
for l in 'Rows (site.racks_per_row)' "Diversity of racks in rows (sum of rack peaks / sum of row peaks)"; do
	has "$tmp/g.html" "<tr><td>$l</td>" "the power table has '$l'"
done

# off: nothing of it
expect 0 "the same run with site.grid = off" -- "$aiw" run "$tmp/g.ini" --set site.grid=off \
	--summary none --no-progress --report "$tmp/off.html"
if grep -Eq 'id="grid|aiw-grid|href="#grid"|data-grid-charts' "$tmp/off.html"; then
	bad "the report with site.grid = off has a grid section"
else
	ok "no grid section, data or chart with site.grid = off"
fi
expect 0 "the default day's report" -- "$aiw" run --summary none --no-progress --report "$tmp/day.html"
size=$(wc -c <"$tmp/day.html")
[ "$size" -lt 2097152 ] && ! grep -q 'id="grid' "$tmp/day.html" &&
	ok "the default day's report is $size bytes, no grid section" ||
	bad "the default day's report: $size bytes, or a grid section"

# --- in a browser ------------------------------------------------------------
. "$top_srcdir/tests/cli/browser.sh"
browse "$tmp/g.html" || bad "chromium --dump-dom exit $?"
if problems; then
	bad "the grid report has errors in the browser:"
	sed 's/^/     | /' "$tmp/problems" | head -10
else
	ok "the grid report loads with no console error, error event or refused resource"
fi
html=$(tr '\n' ' ' <"$tmp/dom" | grep -o '<html[^>]*>')
echo "$html" | grep -q 'data-ready="1"' && ok "the curves' script ran to its end" ||
	bad "the curves' script did not finish"
echo "$html" | grep -q 'data-grid-charts="2"' && ok "both grid charts drawn" ||
	bad "grid charts: $(echo "$html" | grep -o 'data-grid-charts="[0-9]*"')"
div=$(grep -o '<div class="chart" id="grid-spectrum-chart"[^>]*>' "$tmp/dom")
echo "$div" | grep -q "data-points=\"$((seg / 2))\"" && ok "the spectrum chart drew $((seg / 2)) points" ||
	bad "the spectrum chart: $div"
shown=$(echo "$div" | sed -n 's/.*data-dominant="\([^"]*\)".*/\1/p')
awk -v a="$shown" -v b="$dom" 'BEGIN { exit !(a + 0 == b + 0 && b + 0 > 0) }' &&
	ok "the spectrum chart marks the dominant frequency $shown Hz" ||
	bad "the spectrum chart marks ${shown:-nothing}, the library $dom"
grep -q 'id="grid-ramp-chart"' "$tmp/dom" && ok "the ramp chart is in the DOM" || bad "no ramp chart"
ncurves=$(echo "$html" | sed -n 's/.*data-charts="\([0-9]*\)".*/\1/p')
canvases=$(grep -o '<canvas' "$tmp/dom" | wc -l)
[ "$canvases" = $((ncurves + 2)) ] && ok "$canvases canvases: the $ncurves curves and the 2 grid charts" ||
	bad "$canvases canvases for $ncurves curves and 2 grid charts"
browse "$tmp/off.html"
problems && bad "the grid-off report has errors in the browser" ||
	ok "the grid-off report loads with no error"
tr '\n' ' ' <"$tmp/dom" | grep -q 'data-grid-charts' && bad "grid charts drawn with site.grid = off" ||
	ok "no grid chart with site.grid = off"
exit $fail
