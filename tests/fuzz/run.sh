#!/bin/sh
# tests/fuzz/run.sh [SECONDS] - build the libFuzzer harnesses with clang
# (ASan + UBSan) straight from the sources and run each for SECONDS
# (default 30), seeded from examples/scenarios and tests/scenarios.
# Prints executions and findings; exits non-zero on a crash.  Replays
# tests/fuzz/regressions/<harness>/* first (and, with AIW_FUZZ_PENDING=1,
# tests/fuzz/pending/<harness>/*: findings whose fix has not landed).
set -eu
secs=${1:-30}
top=$(cd "$(dirname "$0")/../.." && pwd)
out=${AIW_FUZZ_DIR:-$top/build/fuzz}
command -v clang >/dev/null || { echo "SKIP: clang not found (Debian: clang libclang-rt-14-dev)"; exit 77; }
mkdir -p "$out"
flags="-g -O1 -std=gnu11 -D_POSIX_C_SOURCE=200809L -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined -I$top/include -I$top/lib"
libs="$(pkg-config --libs gsl inih) -lm"
objs=""
# the parts that a file includes (Makefile.am's FLEET_PARTS) are not
# compiled on their own
parts=$(awk '/^FLEET_PARTS *=/ { on = 1 } on { print; if (!/\\$/) exit }' "$top/Makefile.am" |
	tr ' \t\\' '\n\n\n' | grep '\.c$' || true)
for f in $(find "$top/lib" -name "*.c" | sort); do
	case " $(echo $parts) " in *" ${f#"$top"/} "*) continue ;; esac
	o="$out/$(echo "${f#"$top"/lib/}" | tr / _ | sed "s/\.c$//").o"
	clang $flags $(pkg-config --cflags gsl inih) -c "$f" -o "$o"
	objs="$objs $o"
done
status=0
# the command line's harness links the commands' sources (all but main.c)
cli_src="common.c run.c summary.c scenario.c sweep.c"
for h in scenario units trace api cli stepping; do
	extra=""
	if [ $h = cli ]; then
		for f in $cli_src; do extra="$extra $top/tools/cli/$f"; done
		extra="-I$top/tools/cli $extra"
	fi
	# shellcheck disable=SC2086 # $extra is a word list
	clang $flags -fsanitize=fuzzer "$top/tests/fuzz/fuzz_$h.c" $extra $objs $libs -o "$out/fuzz_$h"
	corpus="$out/corpus_$h"
	mkdir -p "$corpus"
	case $h in
	scenario) cp "$top"/examples/scenarios/*.ini "$top"/tests/scenarios/invalid/*.ini "$corpus"/ 2>/dev/null || true ;;
	cli) # argument vectors (command byte, NUL-separated arguments)
		printf '\000--set\000inference.chat.rate=5/s\000--seed\0002\000--json\000x.json' >"$corpus/run"
		printf '\001S.ini\000-o\000x.svg\000--title=t' >"$corpus/plot"
		printf '\002S.ini\000--set\000site.pue=1.1,1.2\000--replications\0003\000-j\0002' >"$corpus/sweep" ;;
	trace) for t in "$top"/examples/traces/*.csv; do head -c 4000 "$t" >"$corpus/$(basename "$t")"; done 2>/dev/null || true ;;
	esac
	if [ -d "$top/tests/fuzz/regressions/$h" ]; then
		# every crash or hang found once is replayed forever (a hang: 60 s)
		"$out/fuzz_$h" -timeout=60 "$top"/tests/fuzz/regressions/$h/* >"$out/regress_$h.log" 2>&1 || { cat "$out/regress_$h.log"; status=1; }
	fi
	if [ "${AIW_FUZZ_PENDING:-0}" = 1 ] && [ -d "$top/tests/fuzz/pending/$h" ]; then
		# findings whose fix is not in yet (see tests/fuzz/pending/README)
		"$out/fuzz_$h" -timeout=60 "$top"/tests/fuzz/pending/$h/* >"$out/pending_$h.log" 2>&1 || { tail -n 40 "$out/pending_$h.log"; status=1; }
	fi
	if "$out/fuzz_$h" -max_total_time="$secs" -rss_limit_mb=2048 -timeout=20 -print_final_stats=1 \
		-artifact_prefix="$out/crash_${h}_" "$corpus" >"$out/fuzz_$h.log" 2>&1; then
		execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$out/fuzz_$h.log" | grep -o '[0-9]*$')
		echo "fuzz_$h: ${execs:-?} executions in ${secs}s, no finding"
	else
		echo "fuzz_$h: FINDING"; tail -n 40 "$out/fuzz_$h.log"; status=1
	fi
done
exit $status
