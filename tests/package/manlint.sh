#!/bin/sh
# Every public function has a man3 page; every page is mandoc -Tlint clean.
set -u
if [ -z "${MANDOC:-}" ] || [ ! -x "$MANDOC" ]; then
	echo "SKIP: mandoc not found"; exit 77
fi
fail=0
for f in $(grep -oE '\baiw_[a-z0-9_]+[[:space:]]*\(' "$top_srcdir/include/aiworkload.h" | tr -d '( \t' | sort -u); do
	case "$f" in aiw_event_fn|aiw_progress_fn|aiw_sweep_fn) continue ;; esac
	if [ ! -f "$top_srcdir/man/man3/$f.3" ] && ! grep -qs "^\.Nm $f\$" "$top_srcdir"/man/man3/*.3; then
		echo "FAIL: no man page for $f"; fail=1
	fi
done
for p in "$top_srcdir"/man/man*/*.[0-9]; do
	[ -e "$p" ] || continue
	out=$("$MANDOC" -Tlint -W warning "$p" 2>&1)
	if [ -n "$out" ]; then echo "$out"; fail=1; fi
	# quotes that render broken although lint is silent: chained Qq/Dq
	# macros inside one Pq print as ("90d, "250ms, ... "700W""""")
	bad=$("$MANDOC" -Tascii "$p" 2>/dev/null | sed 's/.//g' | grep -n '"""')
	if [ -n "$bad" ]; then echo "FAIL: $p renders nested quotes: $bad"; fail=1; fi
done
[ $fail = 0 ] && echo "man: $(ls "$top_srcdir"/man/man*/*.[0-9] | wc -l) pages lint clean"
exit $fail
