#!/bin/sh
# The scenario library runs and yields the figures its comments state.
#
# Every examples/scenarios/*.ini states its figures in `; check:` lines,
#   ; check: site.diversity_factor in [1.00, 1.01]
#   ; check: inference.chat.requests_dropped == 0
#   ; check: training.slow.step_time_mean_s / training.healthy.step_time_mean_s >= 1.25
# (metric names, numbers, + - * / and parentheses; `in [lo, hi]` or a
# comparison), and may shorten its run for the test with a `; test-run:`
# line of extra options (`; test-run: --duration 6h`).  A scenario whose
# `; requires:` parameter is not in the registry yet is skipped with a note.
# Runs from examples/scenarios so that relative trace paths resolve.
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
aiw="$top_builddir/tools/aiworkload"
py=${PYTHON3:-python3}
if ! command -v "$py" >/dev/null 2>&1; then
	echo "SKIP: python3 not found (it evaluates the checks)"
	exit 77
fi
[ -x "$aiw" ] || { echo "FAIL: no $aiw"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$top_srcdir/examples/scenarios" || exit 1

fail=0
ran=0
for f in *.ini; do
	req=$(sed -n 's/^; *requires: *//p' "$f")
	missing=""
	for p in $req; do
		"$aiw" params "$p" >/dev/null 2>&1 || missing="$missing $p"
	done
	if [ -n "$missing" ]; then
		echo "skip $f: parameter(s)$missing not in the registry yet"
		continue
	fi
	args=$(sed -n 's/^; *test-run: *//p' "$f")
	# shellcheck disable=SC2086
	if ! "$aiw" run "$f" $args --summary none --no-progress --json "$tmp/out.json" \
		2>"$tmp/err"; then
		echo "FAIL $f: aiworkload run $args failed:"
		cat "$tmp/err"
		fail=1
		continue
	fi
	ran=$((ran + 1))
	sed -n 's/^; *check: *//p' "$f" >"$tmp/checks"
	if [ ! -s "$tmp/checks" ]; then
		echo "FAIL $f: states no figures (no '; check:' line)"
		fail=1
		continue
	fi
	"$py" - "$tmp/out.json" "$tmp/checks" "$f" <<'EOF' || fail=1
import json, re, sys
metrics = json.load(open(sys.argv[1]))["metrics"]
name = re.compile(r"\b(?:sim|site|training|inference|load)(?:\.[A-Za-z0-9_-]+)+")
bad = 0
for line in open(sys.argv[2]):
    line = line.strip()
    if not line:
        continue
    m = re.fullmatch(r"(.*?)\s+in\s+\[\s*([^,\]]+),\s*([^\]]+)\]", line)
    expr = m.group(1) if m else line
    unknown = [n for n in name.findall(expr) if n not in metrics]
    if unknown:
        print("FAIL %s: no metric %s in: %s" % (sys.argv[3], ", ".join(unknown), line))
        bad = 1
        continue
    code = name.sub(lambda k: "M[%r]" % k.group(0), expr)
    if "__" in code or re.search(r"[^\sM\[\]'\"A-Za-z0-9_.+\-*/()<>=!]", code):
        print("FAIL %s: cannot read check: %s" % (sys.argv[3], line))
        bad = 1
        continue
    env = {"M": metrics, "__builtins__": {}}
    value = eval(code, env)
    ok = float(m.group(2)) <= value <= float(m.group(3)) if m else bool(value)
    shown = value if m else eval(name.sub(lambda k: "M[%r]" % k.group(0),
                                           re.split(r"[<>=!]=?", expr)[0]), env)
    print("%s %s: %s  (%.6g)" % ("ok  " if ok else "FAIL", sys.argv[3], line, shown))
    bad |= not ok
sys.exit(bad)
EOF
done
[ "$ran" -gt 0 ] || { echo "FAIL: no scenario ran"; exit 1; }
exit $fail
