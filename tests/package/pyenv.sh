# tests/package/pyenv.sh - sourced by the tests that run Python against the built
# library (python.sh, readme.sh): picks the interpreter and sets the
# environment.  Needs top_srcdir and top_builddir; sets py (empty: no
# python3) and exports what the bindings read.
# The interpreter: configure's PYTHON3, else python3 in PATH; prefer one that
# has Debian's numpy and matplotlib (a pyenv/venv python3 earlier in PATH may
# lack them, and the examples and numpy paths are then skipped).
py=""
for cand in "${PYTHON3:-}" "$(command -v python3 2>/dev/null || true)" /usr/bin/python3; do
	[ -n "$cand" ] && [ -x "$cand" ] || continue
	[ -n "$py" ] || py=$cand
	if "$cand" -c 'import numpy, matplotlib' >/dev/null 2>&1; then
		py=$cand
		break
	fi
done
AIWORKLOAD_LIBRARY="$top_builddir/.libs/libaiworkload.so"
[ -f "$AIWORKLOAD_LIBRARY" ] || { echo "FAIL: no $AIWORKLOAD_LIBRARY"; exit 1; }
PYTHONPATH="$top_srcdir/bindings/python${PYTHONPATH:+:$PYTHONPATH}"
AIWORKLOAD_HEADER="$top_srcdir/include/aiworkload.h"
# no __pycache__ in the source tree (distcheck makes it read-only)
PYTHONDONTWRITEBYTECODE=1
MPLBACKEND=Agg
export AIWORKLOAD_LIBRARY PYTHONPATH AIWORKLOAD_HEADER PYTHONDONTWRITEBYTECODE MPLBACKEND

if [ "${AIW_SANITIZED:-0}" = 1 ]; then
	# CC may carry flags ("gcc -std=gnu11"): let the shell split it
	asan=$(${CC:-cc} -print-file-name=libasan.so 2>/dev/null)
	case "$asan" in
	/*) [ -e "$asan" ] || asan="" ;;
	*) asan="" ;;
	esac
	if [ -z "$asan" ]; then
		echo "FAIL: AIW_SANITIZED=1 but \`${CC:-cc} -print-file-name=libasan.so\` names no file"
		exit 1
	fi
	LD_PRELOAD="$asan${LD_PRELOAD:+:$LD_PRELOAD}"
	ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
	export LD_PRELOAD ASAN_OPTIONS
	echo "python: sanitized build, LD_PRELOAD=$LD_PRELOAD"
fi

