# browser.sh - sourced by the HTML report tests (report.sh,
# sweep_report.sh, plan_report.sh) after common.sh and their other checks:
# finds Chromium ($CHROMIUM, else chromium or chromium-browser on PATH).
# Without it the test ends here: skipped (exit 77) when the other checks
# passed and it does not run as root, failed as root (./quickstart test
# installs it).  Then defines:
#   browse FILE   the DOM after load in $tmp/dom, the browser's log in $tmp/log
#   problems      the errors the page recorded and the console lines of the
#                 log in $tmp/problems; true when there is any
chromium=${CHROMIUM:-}
[ -n "$chromium" ] || chromium=$(command -v chromium 2>/dev/null || command -v chromium-browser 2>/dev/null || true)
if [ -z "$chromium" ]; then
	if [ "$(id -u)" = 0 ]; then
		bad "no chromium: as root, ./quickstart test installs it (apt-get install chromium)"
		exit 1
	fi
	echo "SKIP: chromium not found (Debian package chromium; ./quickstart test as root installs it); other checks done"
	[ $fail = 0 ] && exit 77
	exit $fail
fi
browse() {
	HOME="$tmp" timeout 120 "$chromium" --headless --disable-gpu --no-sandbox \
		--user-data-dir="$tmp/profile" --virtual-time-budget=10000 \
		--enable-logging=stderr --v=0 --dump-dom "file://$1" >"$tmp/dom" 2>"$tmp/log"
}
problems() {
	{
		tr '\n' ' ' <"$tmp/dom" | grep -o '<html[^>]*data-errors="[^"]*"' | sed 's/.*data-errors=/page: /'
		grep -E 'CONSOLE|Uncaught' "$tmp/log"
	} >"$tmp/problems"
	[ -s "$tmp/problems" ]
}
