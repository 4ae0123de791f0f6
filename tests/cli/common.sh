# common.sh - what the command's script tests share (sourced, not run):
# $aiw (the built program), $tmp (a directory removed on exit), and the
# checks ok, bad, expect and has, which count failures in $fail.
: "${top_srcdir:?}" "${top_builddir:?}"
aiw="$top_builddir/tools/aiworkload"
[ -x "$aiw" ] || { echo "FAIL: no $aiw"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }

# expect STATUS DESCRIPTION -- command...: run, keep stdout/stderr in $tmp
expect() {
	want=$1 what=$2
	shift 3
	"$@" >"$tmp/out" 2>"$tmp/err"
	got=$?
	if [ "$got" = "$want" ]; then ok "$what (exit $got)"; else
		bad "$what: exit $got, expected $want"
		sed 's/^/     | /' "$tmp/err" | head -5
	fi
}
has() { # has FILE TEXT DESCRIPTION
	if grep -qF -- "$2" "$1"; then ok "$3"; else
		bad "$3: no '$2' in"
		sed 's/^/     | /' "$1" | head -8
	fi
}
