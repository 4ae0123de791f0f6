#!/bin/sh
# doc/adding-a-model.md, followed literally, adds a working kind: its
# marked blocks are applied to a copy of the source tree (as a reader
# would type them), the copy is built by the doc's own commands, the tests
# a new kind concerns pass in the copy (tests/package/layers.sh,
# tests/package/docrefs.sh, tests/api/test_metrics, the parameters' manual
# against `aiworkload params --man`), and the pump's figures are the closed
# form the doc states (section "Tests"), at a whole number of cycles and
# at two durations that cut a cycle, while on and while off.
#
# Marks (an HTML comment on the line before a fenced block):
#   <!-- example-file: PATH -->    the block is the new file PATH
#   <!-- example-append: PATH -->  the block is appended to PATH
#   <!-- example-patch -->         the block is a patch (patch -p1, top of the tree)
#   <!-- example-shell -->         the block runs (sh -e) at the top of the tree
# Slow (it builds the library once more): about a minute of compiling.
set -u
: "${top_srcdir:?}" "${top_builddir:?}"
doc="$top_srcdir/doc/adding-a-model.md"
for t in autoreconf patch tar; do
	command -v $t >/dev/null 2>&1 || {
		echo "skip: no $t"
		exit 77
	}
done
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
fail=0
ok() { echo "ok   $1"; }
bad() {
	echo "FAIL $1"
	fail=1
}

# 1. The blocks: $tmp/blocks/N (content) and $tmp/blocks/list ("N ACTION [PATH]").
mkdir -p "$tmp/blocks"
awk -v dir="$tmp/blocks" '
	match($0, /^<!-- example-(file|append|patch|shell)(: [^ ]+)? -->$/) {
		mark = $0; sub(/^<!-- example-/, "", mark); sub(/ -->$/, "", mark); sub(/:/, "", mark)
		want = 1; next
	}
	want == 1 && /^```/ { n++; print n, mark >> (dir "/list"); want = 2; next }
	want == 1 && NF { print "a mark not followed by a fenced block: " mark > "/dev/stderr"; exit 1 }
	want == 2 && /^```$/ { want = 0; next }
	want == 2 { print > (dir "/" n) }
	END { if (want == 2) { print "an unclosed block after the mark " mark > "/dev/stderr"; exit 1 } }
' "$doc" || bad "doc/adding-a-model.md: the marked blocks do not parse"
list="$tmp/blocks/list"
if [ ! -s "$list" ]; then
	echo "FAIL doc/adding-a-model.md has no marked blocks"
	exit 1
fi
for a in file append patch shell; do
	grep -q " $a" "$list" || bad "doc/adding-a-model.md has no example-$a block"
done
grep -q ' file lib/pump/pump.c$' "$list" || bad "doc/adding-a-model.md does not create lib/pump/pump.c"

# 2. A copy of the source tree: no .git, no build folder (one with a
# config.status), writable (distcheck's source is read-only).
if [ -e "$top_srcdir/config.status" ]; then
	echo "skip: the source tree is built in place (the copy needs a separate build folder)"
	exit 77
fi
src="$tmp/src"
mkdir -p "$src"
tar -C "$top_srcdir" --exclude=.git --exclude=autom4te.cache --exclude-tag-all=config.status -cf - . |
	tar -C "$src" -xf - || {
	echo "FAIL: copying the source tree"
	exit 1
}
chmod -R u+w "$src"

# 3. The blocks, in the order of the doc.
while read -r n action path; do
	b="$tmp/blocks/$n"
	case "$action" in
	file)
		mkdir -p "$src/$(dirname "$path")" && cp "$b" "$src/$path" && ok "block $n: wrote $path"
		;;
	append)
		if [ -f "$src/$path" ]; then cat "$b" >>"$src/$path" && ok "block $n: appended to $path"; else bad "block $n: no $path to append to"; fi
		;;
	patch)
		if (cd "$src" && patch -p1 -s --fuzz=0 --no-backup-if-mismatch -r - <"$b") >"$tmp/patch.out" 2>&1; then
			ok "block $n: patched $(sed -n 's|^+++ b/||p' "$b" | head -n 1)"
		else
			bad "block $n: the patch does not apply: $(cat "$tmp/patch.out")"
		fi
		;;
	shell)
		echo "     block $n: running it (build and manual)"
		if (cd "$src" && sh -e "$b") >"$tmp/shell.out" 2>&1; then
			ok "block $n: ran"
		else
			bad "block $n failed: $(tail -n 30 "$tmp/shell.out")"
		fi
		;;
	esac
done <"$list"
[ $fail = 0 ] || exit 1
build="$src/build"
aiw="$build/tools/aiworkload"
[ -x "$aiw" ] || {
	echo "FAIL: the doc's commands built no $aiw"
	exit 1
}
"$aiw" params 2>/dev/null | grep -q '^pump\.NAME\.on_time' && ok "aiworkload params lists pump.NAME.on_time" ||
	bad "aiworkload params does not list pump.NAME.on_time"

# 4. The tests a new kind concerns, in the copy.
for t in layers docrefs; do
	if out=$(top_srcdir="$src" top_builddir="$build" sh "$src/tests/package/$t.sh" 2>&1); then
		ok "tests/package/$t.sh passes in the copy"
	else
		bad "tests/package/$t.sh fails in the copy: $out"
	fi
done
if "$aiw" params --man | cmp -s - "$src/man/man7/aiworkload-params.7"; then
	ok "man/man7/aiworkload-params.7 is aiworkload params --man"
else
	bad "man/man7/aiworkload-params.7 differs from aiworkload params --man"
fi
if grep -q '^CHECK_LIBS = *[^ ]' "$build/Makefile"; then
	if make -C "$build" tests/api/test_metrics >"$tmp/make.out" 2>&1; then
		if out=$(cd "$src" && CK_FORK=no "$build/tests/api/test_metrics" 2>&1); then
			ok "tests/api/test_metrics passes with the pump's section"
		else
			bad "tests/api/test_metrics fails in the copy: $out"
		fi
	else
		bad "tests/api/test_metrics does not build in the copy: $(tail -n 20 "$tmp/make.out")"
	fi
else
	echo "skip tests/api/test_metrics: built without Check"
fi

# 5. The closed form of the doc: n = floor(D / period), cycles = n + 1,
# energy = power x (n x on_time + min(on_time, D - n x period)).
cat >"$tmp/pump.c" <<'EOF'
#include <aiworkload.h>
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	aiw_sim *sim;
	double cycles, kwh;
	if (argc != 2 || aiw_sim_create(&sim, 1) != AIW_OK)
		return 2;
	if (aiw_sim_load_string(sim, argv[1], "pump") != AIW_OK || aiw_sim_run(sim) != AIW_OK ||
	    aiw_sim_metric(sim, "pump.p.cycles", &cycles) != AIW_OK ||
	    aiw_sim_metric(sim, "pump.p.energy_kwh", &kwh) != AIW_OK) {
		fprintf(stderr, "%s\n", aiw_sim_errmsg(sim));
		return 1;
	}
	printf("%.17g %.17g\n", cycles, kwh);
	aiw_sim_free(sim);
	return 0;
}
EOF
if ${CC:-cc} ${CFLAGS:-} -I"$src/include" -o "$tmp/pump" "$tmp/pump.c" -L"$build/.libs" -laiworkload \
	${LDFLAGS:-} 2>"$tmp/cc.err"; then
	# power W, period s, on_time s, D s: whole cycles; D cuts a cycle while
	# on; D cuts a cycle while off; the defaults over the default day
	for c in "5000 900 300 3600" "5000 900 300 3720" "7000 600 180 3900" "default"; do
		if [ "$c" = default ]; then
			set -- 5000 900 300 86400
			ini="[pump p]"
			# the doc's own figure for this case
			said=$(tr '\n' ' ' <"$doc" | sed -n 's/.*D = 24 h and the defaults, \([0-9]*\) cycles and \([0-9.]*\) kWh.*/\1 \2/p')
			if [ -n "$said" ] && LD_LIBRARY_PATH="$build/.libs" "$tmp/pump" "$ini" | awk -v said="$said" '
				{ split(said, w, " "); exit !($1 == w[1] && $2 == w[2]) }'; then
				ok "the doc's figure at 24 h and the defaults: $said"
			else
				bad "the doc's figure at 24 h and the defaults ('${said:-none found}') is not the run's"
			fi
		else
			set -- $c
			ini="[sim]
duration = $4s
[pump p]
power = ${1}W
period = $2s
on_time = $3s"
		fi
		want=$(awk -v P="$1" -v T="$2" -v on="$3" -v D="$4" 'BEGIN {
			n = int(D / T); last = D - n * T; if (last > on) last = on
			printf "%d %.17g", n + 1, P * (n * on + last) / 3.6e6 }')
		if got=$(LD_LIBRARY_PATH="$build/.libs" "$tmp/pump" "$ini" 2>&1) &&
			awk -v got="$got" -v want="$want" 'BEGIN { split(got, g, " "); split(want, w, " ");
				d = g[2] - w[2]; if (d < 0) d = -d
				exit !(g[1] == w[1] && d <= 1e-12 * w[2]) }'; then
			ok "power $1 W, period $2 s, on_time $3 s, D = $4 s: cycles and kWh $got (closed form $want)"
		else
			bad "power $1 W, period $2 s, on_time $3 s, D = $4 s: the run gives '$got', the closed form '$want'"
		fi
	done
else
	bad "the closed-form program does not compile: $(cat "$tmp/cc.err")"
fi

# 6. The refusals the doc promises: on_time above period, naming both; a
# period of 1 ns over a year, by the estimate (before any event runs).
printf '[pump p]\nperiod = 10min\non_time = 11min\n' >"$tmp/long.ini"
if "$aiw" run --no-progress "$tmp/long.ini" >/dev/null 2>"$tmp/long.err"; then
	bad "on_time = 11min above period = 10min runs"
elif grep -q 'pump\.p\.on_time.*pump\.p\.period' "$tmp/long.err"; then
	ok "on_time above period refused: $(cat "$tmp/long.err")"
else
	bad "on_time above period refused without naming both: $(cat "$tmp/long.err")"
fi
printf '[sim]\nduration = 8760h\n[pump p]\nperiod = 1ns\non_time = 0\n' >"$tmp/year.ini"
to=
command -v timeout >/dev/null 2>&1 && to="timeout 300"
if $to "$aiw" run --no-progress "$tmp/year.ini" >/dev/null 2>"$tmp/year.err"; then
	bad "period = 1ns over a year runs"
elif grep -q 'pump\.p' "$tmp/year.err"; then
	ok "period = 1ns over a year refused up front: $(head -n 1 "$tmp/year.err")"
else
	bad "period = 1ns over a year refused without naming the pump: $(cat "$tmp/year.err")"
fi
exit $fail
