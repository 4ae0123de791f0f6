#!/bin/sh
# openmetrics.sh - the simulated day inside a real Prometheus: `aiworkload
# run --openmetrics` (aiw_sim_write_openmetrics) writes the default day's
# curves and latency histograms as timestamped OpenMetrics series; promtool
# turns them into a TSDB; a Prometheus server (Debian's prometheus) started
# on 127.0.0.1 over it answers, through its HTTP API:
#   - the seed's query, histogram_quantile(0.99, sum(rate(
#     inference_request_duration_seconds_bucket[5m])) by (le)), at the
#     traffic's peak: within the bucket of the histogram (its resolution)
#     that holds the 99th percentile of the requests of those 5 minutes,
#     counted from the file's own buckets;
#   - the P99 time to first token of one sample interval from the buckets'
#     increase: within the bucket holding the library's own per-interval
#     figure (the curve inference.chat.ttft_p99_s);
#   - a training query, max_over_time(training_step_time_seconds[1h]) and
#     the job's power at one instant: the curves' own values.
# The server is stopped on every exit.  Skipped (exit 77) only when
# promtool or prometheus is missing and the test does not run as root (as
# root, `./quickstart test` installs Debian's prometheus).
set -u
. "$top_srcdir/tests/cli/common.sh"
py=${PYTHON3:-python3}
command -v "$py" >/dev/null 2>&1 || { echo "FAIL: no python3"; exit 1; }

# --- the file, without Prometheus --------------------------------------------
day=86400
start=$(( $(date +%s) / day * day - 2 * day )) # two days ago, midnight UTC
expect 0 "run --openmetrics (the default day)" -- "$aiw" run --summary none \
	--openmetrics "$tmp/day.om" --openmetrics-start "$start" --series "$tmp/day.csv"
[ "$(tail -n 1 "$tmp/day.om")" = "# EOF" ] && ok "the file ends with # EOF" || bad "no # EOF at the end"
has "$tmp/day.om" "# TYPE inference_request_duration_seconds histogram" "the seed's latency histogram"
has "$tmp/day.om" "inference_request_duration_seconds_bucket{component=\"chat\",le=\"+Inf\"}" \
	"its buckets, +Inf included"
has "$tmp/day.om" "# TYPE inference_requests counter" "counters from the rate curves"
has "$tmp/day.om" "aiworkload_info{version=" "the run's identity"
expect 2 "--openmetrics-start without --openmetrics" -- "$aiw" run --openmetrics-start 0
expect 2 "--openmetrics-start -5" -- "$aiw" run --openmetrics x.om --openmetrics-start -5
expect 2 "--openmetrics equal to --report" -- "$aiw" run --openmetrics "$tmp/x" --report "$tmp/x"
printf '[sim]\nduration = 1h\n' >"$tmp/in.ini"
expect 2 "--openmetrics equal to the scenario" -- "$aiw" run "$tmp/in.ini" --openmetrics "$tmp/in.ini"
has "$tmp/err" "--openmetrics" "the refusal names --openmetrics"
"$aiw" run --summary none --duration 2h --openmetrics "$tmp/a.om" --openmetrics-start 1e9 &&
	"$aiw" run --summary none --duration 2h --openmetrics "$tmp/b.om" --openmetrics-start 1e9 &&
	cmp -s "$tmp/a.om" "$tmp/b.om" && ok "the same run and start give the same file" ||
	bad "two identical runs gave different files"

# --- Prometheus ------------------------------------------------------------------
promtool=${PROMTOOL:-}
[ -n "$promtool" ] && [ -x "$promtool" ] || promtool=$(command -v promtool 2>/dev/null || true)
prometheus=$(command -v prometheus 2>/dev/null || true)
if [ -z "$promtool" ] || [ -z "$prometheus" ]; then
	if [ "$(id -u)" = 0 ]; then
		bad "no promtool or prometheus: as root, ./quickstart test installs them (apt-get install prometheus)"
		exit 1
	fi
	echo "SKIP: promtool or prometheus not found (Debian package prometheus; ./quickstart test as root installs it); other checks done"
	[ $fail = 0 ] && exit 77
	exit $fail
fi
if "$promtool" tsdb create-blocks-from openmetrics "$tmp/day.om" "$tmp/tsdb" >"$tmp/blocks" 2>&1; then
	ok "promtool tsdb create-blocks-from openmetrics: $(grep -c '^[0-9A-Z]\{26\}' "$tmp/blocks") blocks"
else
	bad "promtool tsdb create-blocks-from openmetrics:"; tail -5 "$tmp/blocks"; exit 1
fi
port=$("$py" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
printf 'global:\n  scrape_interval: 1h\nscrape_configs: []\n' >"$tmp/prometheus.yml"
"$prometheus" --config.file="$tmp/prometheus.yml" --storage.tsdb.path="$tmp/tsdb" \
	--storage.tsdb.retention.time=30d --web.listen-address="127.0.0.1:$port" \
	>"$tmp/prometheus.log" 2>&1 &
server=$!
trap 'kill $server 2>/dev/null; wait $server 2>/dev/null; rm -rf "$tmp"' EXIT INT TERM
url="http://127.0.0.1:$port"
ready=0
for i in $(seq 1 120); do
	if curl -sf "$url/-/ready" >/dev/null 2>&1; then ready=1; break; fi
	kill -0 $server 2>/dev/null || break
	sleep 0.5
done
if [ $ready = 0 ]; then
	bad "Prometheus did not become ready on 127.0.0.1:$port:"; tail -5 "$tmp/prometheus.log"; exit 1
fi
ok "Prometheus ready on 127.0.0.1:$port over the simulated day's TSDB"
# query EXPR TIME: the single value of an instant query, or "none"
query() {
	curl -sf "$url/api/v1/query" --data-urlencode "query=$1" --data-urlencode "time=$2" |
		"$py" -c 'import json, sys
d = json.load(sys.stdin)
r = d["data"]["result"] if d.get("status") == "success" else []
print(r[0]["value"][1] if len(r) == 1 else "none")'
}
# The peak of the traffic (the curve of arrivals), its time on the TSDB's clock
peak=$("$py" - "$tmp/day.csv" <<'EOF'
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
h = rows[0]
a = h.index("inference.chat.arrival_rate [1/s]")
best = max(rows[1:], key=lambda r: float(r[a] or 0))
print(int(float(best[0])))
EOF
)
T=$((start + peak))
ok "the traffic peaks at $peak s of the day"

# 1. the seed's query, against the file's own 5-minute bucket increases
got=$(query 'histogram_quantile(0.99, sum(rate(inference_request_duration_seconds_bucket[5m])) by (le))' "$T")
"$py" - "$tmp/day.om" "$T" "$got" <<'EOF' >"$tmp/cmp1" 2>&1 && ok "seed's P99 query: $(cat "$tmp/cmp1")" || { bad "seed's P99 query:"; cat "$tmp/cmp1"; }
import sys
path, T, got = sys.argv[1], int(sys.argv[2]), sys.argv[3]
fam = 'inference_request_duration_seconds_bucket{component="chat",le="'
at = {}  # time -> {le: count}
for line in open(path):
    if line.startswith(fam):
        le = line[len(fam):].split('"', 1)[0]
        v, ts = line.rsplit(" ", 2)[1:]
        at.setdefault(round(float(ts)), {})[le] = float(v)
times = sorted(t for t in at if T - 300 <= t <= T)
a, b = at[times[0]], at[times[-1]]
les = sorted((k for k in b), key=lambda k: float("inf") if k == "+Inf" else float(k))
inc = [b[k] - a[k] for k in les]
rank = 0.99 * inc[-1]
i = next(i for i, c in enumerate(inc) if c >= rank)
lo = 0.0 if i == 0 else float(les[i - 1])
hi = float(les[i]) if les[i] != "+Inf" else float(les[i - 1])
g = float(got)
ok = lo - 1e-9 <= g <= hi + 1e-9
print("Prometheus %.4g s, the requests of those 5 minutes put the P99 in the bucket (%g, %g] s%s"
      % (g, lo, hi, "" if ok else ": OUTSIDE"))
sys.exit(0 if ok else 1)
EOF

# 2. one interval's P99 TTFT from the buckets, against the library's curve
got=$(query 'histogram_quantile(0.99, sum by (le) (inference_time_to_first_token_seconds_bucket - inference_time_to_first_token_seconds_bucket offset 1m))' "$T")
"$py" - "$tmp/day.csv" "$peak" "$got" <<'EOF' >"$tmp/cmp2" 2>&1 && ok "P99 TTFT of the peak minute: $(cat "$tmp/cmp2")" || { bad "P99 TTFT of the peak minute:"; cat "$tmp/cmp2"; }
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
c = rows[0].index("inference.chat.ttft_p99_s [s]")
lib = next(float(r[c]) for r in rows[1:] if int(float(r[0])) == int(sys.argv[2]))
g = float(sys.argv[3])
le = [0.0, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120]
i = next(i for i in range(1, len(le)) if lib <= le[i])
lo, hi = le[i - 1], le[i]
ok = lo - 1e-9 <= g <= hi + 1e-9
print("Prometheus %.4g s, the library's per-interval figure %.4g s, both in (%g, %g] s%s"
      % (g, lib, lo, hi, "" if ok else ": NOT"))
sys.exit(0 if ok else 1)
EOF

# 3. training: the slowest step of the hour before the peak, and the job's
# power at the peak, against the curves
got=$(query 'max_over_time(training_step_time_seconds{component="pretrain"}[1h])' "$T")
pw=$(query 'power_watts{component="pretrain"}' "$T")
"$py" - "$tmp/day.csv" "$peak" "$got" "$pw" <<'EOF' >"$tmp/cmp3" 2>&1 && ok "training queries: $(cat "$tmp/cmp3")" || { bad "training queries:"; cat "$tmp/cmp3"; }
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
h = rows[0]
s = h.index("training.pretrain.step_time_s [s]")
p = h.index("training.pretrain.power_w [W]")
peak = int(sys.argv[2])
# Prometheus 2's range (T - 1h, T] holds the points after T - 1h up to T
win = [float(r[s]) for r in rows[1:] if peak - 3600 < float(r[0]) <= peak and r[s]]
mx = max(win)
pw = next(float(r[p]) for r in rows[1:] if int(float(r[0])) == peak)
g, gp = float(sys.argv[3]), float(sys.argv[4])
ok = abs(g - mx) <= 1e-9 * mx and abs(gp - pw) <= 1e-9 * pw
print("max step time over the hour %.6g s (curve %.6g s), power %.6g W (curve %.6g W)%s"
      % (g, mx, gp, pw, "" if ok else ": DIFFER"))
sys.exit(0 if ok else 1)
EOF
exit $fail
