#!/bin/sh
# README.md shows what it says: the default run's summary excerpt is what
# `aiworkload run` prints (line for line), the C example compiles against
# the built library and runs, the Python example runs, and the two error
# messages are the library's own.  Seeded runs give the same figures on
# every machine (the excerpt was written on an Intel Xeon; an AMD EPYC
# prints it alike), so a README left behind by a model change fails here.
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
readme="$top_srcdir/README.md"
aiw="$top_builddir/tools/aiworkload"
[ -x "$aiw" ] || { echo "FAIL: no $aiw"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { echo "ok   $1"; }
bad() {
	echo "FAIL $1"
	fail=1
}

# The fenced block after the first line that starts with $1, without its
# fences (a block opened by "```" + $2).
block() {
	awk -v h="$1" -v lang="$2" '
	!seen && index($0, h) == 1 { seen = 1; next }
	seen == 1 && $0 == "```" lang { seen = 2; next }
	seen == 2 && $0 == "```" { exit }
	seen == 2 { print }' "$readme"
}

# 1. The summary excerpt: every line of it, exactly, in the run's summary.
block '## What `./quickstart run` shows' "" >"$tmp/excerpt"
[ -s "$tmp/excerpt" ] || bad "no summary excerpt found in README.md"
if "$aiw" run --no-progress >"$tmp/run.out" 2>"$tmp/run.err"; then
	n=0
	before=$fail
	while IFS= read -r line; do
		n=$((n + 1))
		if ! grep -qxF -- "$line" "$tmp/run.out"; then
			label=$(printf '%s\n' "$line" | sed 's/^ *//; s/  .*//')
			now=$(grep -F -- "$label" "$tmp/run.out" | head -n 1)
			bad "README excerpt line '$line' is not in the run's summary (it prints '${now:-nothing of that name}')"
		fi
	done <"$tmp/excerpt"
	[ "$fail" != "$before" ] || ok "summary excerpt: its $n lines are in \`aiworkload run\`'s summary"
else
	bad "aiworkload run failed: $(cat "$tmp/run.err")"
fi

# 2. The C example: compiles warning-free against the built library and
# prints its figures (run from the source tree: it loads an example).
block '## A C example' "c" >"$tmp/demo.c"
lib="$top_builddir/.libs"
# CC may carry flags: let the shell split it
if ${CC:-cc} ${CFLAGS:-} -Wall -Wextra -Werror -I"$top_srcdir/include" -o "$tmp/demo" "$tmp/demo.c" \
	-L"$lib" -laiworkload ${LDFLAGS:-} 2>"$tmp/cc.err"; then
	if out=$(cd "$top_srcdir" && LD_LIBRARY_PATH="$lib" "$tmp/demo" 2>&1) &&
		printf '%s\n' "$out" | grep -qE '^peak [0-9.]+ kW, diversity factor [0-9.]+$'; then
		ok "C example: $out"
	else
		bad "C example printed: $out"
	fi
else
	bad "C example does not compile: $(cat "$tmp/cc.err")"
fi

# 3. The Python example (it reads numpy arrays: skipped without numpy).
block '## A Python example' "python" >"$tmp/example.py"
if out=$(
	. "$top_srcdir/tests/package/pyenv.sh" >/dev/null
	[ -n "$py" ] && "$py" -c 'import numpy' 2>/dev/null || exit 77
	cd "$top_srcdir" && "$py" "$tmp/example.py" 2>&1
); then
	if printf '%s\n' "$out" | grep -qE '^1\.[0-9]+$'; then
		ok "Python example: diversity factor $out"
	else
		bad "Python example printed: $out"
	fi
elif [ $? = 77 ]; then
	echo "skip Python example: no python3 with numpy"
else
	bad "Python example failed: $out"
fi

# 4. The error messages, as the library words them.
block 'names the parameter, the value and the allowed range:' "" >"$tmp/errors"
msg1=$(sed -n 1p "$tmp/errors")
msg2=$(sed -n 2p "$tmp/errors")
"$aiw" run --set site.pue=0.9 >/dev/null 2>"$tmp/e1"
if [ -n "$msg1" ] && grep -qF -- "$msg1" "$tmp/e1"; then ok "error message: $msg1"; else bad "README says '$msg1', the library says '$(cat "$tmp/e1")'"; fi
# scenario.ini whose line 12 misspells max_batch in [inference chat]
{
	echo "[inference chat]"
	for i in 2 3 4 5 6 7 8 9 10 11; do echo "; line $i"; done
	echo "max_bacth = 32"
} >"$tmp/scenario.ini"
(cd "$tmp" && "$aiw" run scenario.ini >/dev/null 2>"$tmp/e2")
if [ -n "$msg2" ] && grep -qF -- "$msg2" "$tmp/e2"; then ok "error message: $msg2"; else bad "README says '$msg2', the library says '$(cat "$tmp/e2")'"; fi

exit $fail
