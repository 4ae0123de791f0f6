#!/bin/sh
# The shared library exports exactly the aiw_* functions the header declares.
set -eu
lib="$top_builddir/.libs/libaiworkload.so"
[ -f "$lib" ] || { echo "no $lib"; exit 1; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRV]$/ {print $3}' | sed 's/@.*//' | sort -u >"$tmp/exported"
grep -oE '\baiw_[a-z0-9_]+[[:space:]]*\(' "$top_srcdir/include/aiworkload.h" | tr -d '( \t' | sort -u >"$tmp/declared"
# function-pointer typedef names in the header are not functions
grep -oE '\(\*aiw_[a-z0-9_]+\)' "$top_srcdir/include/aiworkload.h" | tr -d '(*)' | sort -u >"$tmp/typedefs"
comm -23 "$tmp/declared" "$tmp/typedefs" >"$tmp/functions"
if ! diff -u "$tmp/functions" "$tmp/exported"; then
	echo "FAIL: exported symbols (+) differ from the header's functions (-)"
	exit 1
fi
echo "exports: $(wc -l <"$tmp/exported") aiw_* symbols, exactly the header's functions"
