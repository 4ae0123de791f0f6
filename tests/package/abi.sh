#!/bin/sh
# ABI guard: abidiff of the committed baseline against the built library.
# Additions are fine; any incompatible change fails.
set -u
lib="$top_builddir/.libs/libaiworkload.so"
base="$top_srcdir/abi/libaiworkload.abi"
if [ -z "${ABIDIFF:-}" ] || [ ! -x "$ABIDIFF" ]; then
	echo "SKIP: abidiff not found (Debian package abigail-tools)"; exit 77
fi
[ -f "$base" ] || { echo "FAIL: no baseline $base"; exit 1; }
out=$("$ABIDIFF" --headers-dir2 "$top_srcdir/include" "$base" "$lib" 2>&1)
rc=$?
printf '%s\n' "$out"
# abidiff status bits: 1 error, 2 usage, 4 ABI change, 8 incompatible change
if [ $((rc & 11)) -ne 0 ]; then
	echo "FAIL: abidiff status $rc (incompatible ABI change or error)"; exit 1
fi
[ $((rc & 4)) -ne 0 ] && echo "abi: compatible additions only"
echo "abi: no incompatible change against the baseline"
exit 0
