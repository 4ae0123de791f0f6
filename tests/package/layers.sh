#!/bin/sh
# The library's layers (doc/design.md), checked twice: on the sources'
# #include lines and on the objects' symbols.
#
# Includes:
#   core (engine, components, parameters, curves) knows no model: it
#     includes nothing outside lib/core;
#   hw includes core only; site (the accounting) includes core and hw only;
#   a model (training, inference) includes core, hw and the accounting's
#     headers, never another model's; the autoscaling policies
#     (inference/autoscale) see no fleet state: core, hw, site and the
#     traffic law (inference/traffic.h) only;
#   export and sweep read metrics, curves and parameter tables: core only;
#   studies (drivers that compose models) may include any folder;
#   and the graph between folders has no cycle.
#
# Symbols (nm on the objects under $top_builddir/lib): every undefined
# aiwi_* symbol of an object built from lib/FOLDER/ is defined in FOLDER or
# in a lower folder, in the order
#   core < hw < site < inference/autoscale < training, inference
#        < export, sweep < studies
# (folders on one rung are peers: neither calls the other; the policies of
# inference/autoscale sit below the fleet and never call up into it).
# lib/kinds.c is the registry: any folder may reference what it defines,
# and it references the kinds' descriptors (aiwi_kind_NAME of
# lib/kinds.def) and the core only; those descriptor references are the
# registration, not calls, and are left out of the graph.  The call graph
# between folders (kinds.c counted as the core's) has no cycle.
#
# Last, the symbol check runs on a planted upward call (small objects
# compiled in a scratch directory, a core one calling a training symbol)
# and must fail there, and pass on the same objects without that call.
#
# Prints every offence; exits 1 if there is one.

set -u
: "${top_srcdir:?}" "${top_builddir:?}"
builddir=$(cd "$top_builddir" && pwd) || exit 1
cd "$top_srcdir/lib" || exit 1
srclib=$(pwd)
tmp=$(mktemp)
scratch=$(mktemp -d)
trap 'rm -rf "$tmp" "$tmp".* "$scratch"' EXIT
# "from-folder to-folder file header" for every include between folders
find . -name '*.[ch]' -o -name '*.def' | sed 's|^\./||' | sort | while read -r f; do
	from=$(dirname "$f")
	grep -o '^[[:space:]]*#[[:space:]]*include[[:space:]]*"[^"]*"' "$f" |
		sed 's/.*"\(.*\)"/\1/' | while read -r h; do
		case "$h" in
		aiworkload.h) continue ;; # the public header
		*/*) to=$(dirname "$h") ;;
		*) to=$from ;;
		esac
		[ "$h" = kinds.def ] && to=kinds
		[ "$to" != "$from" ] && echo "$from $to $f $h"
	done
done >"$tmp"

bad=0
offend() {
	echo "FAIL: $3 includes $4: $5"
	bad=1
}
while read -r from to f h; do
	case "$from" in
	core) offend "$from" "$to" "$f" "$h" "core knows no model or driver (it includes lib/core only)" ;;
	hw) [ "$to" = core ] || offend "$from" "$to" "$f" "$h" "hw includes core only" ;;
	site) case "$to" in core | hw) ;; *) offend "$from" "$to" "$f" "$h" "the accounting knows no model" ;; esac ;;
	training) case "$to" in core | hw | site) ;; *) offend "$from" "$to" "$f" "$h" "a model includes core, hw and site only" ;; esac ;;
	inference) case "$to" in core | hw | site | inference/autoscale) ;; *) offend "$from" "$to" "$f" "$h" "a model includes core, hw and site only" ;; esac ;;
	inference/autoscale)
		case "$to:$h" in
		core:* | hw:* | site:* | inference:inference/traffic.h) ;;
		*) offend "$from" "$to" "$f" "$h" "the autoscaling policies see no fleet state (the fleet gives them numbers)" ;;
		esac
		;;
	export | sweep) [ "$to" = core ] || offend "$from" "$to" "$f" "$h" "drivers read the core's tables only" ;;
	studies) ;; # drivers that compose models: every folder is below them
	.) ;; # lib/kinds.c: the list of kinds, which names every model
	*) offend "$from" "$to" "$f" "$h" "a folder this test does not know: add it to the layers" ;;
	esac
done <"$tmp"

# no cycle between folders (tsort reports one on standard error); the
# policies of inference/autoscale count as the inference folder's
awk '{ f = $1; t = $2; sub(/^inference\/autoscale$/, "inference", f);
       sub(/^inference\/autoscale$/, "inference", t); if (f != t) print f, t }' "$tmp" |
	sort -u >"$tmp.pairs"
if ! tsort "$tmp.pairs" >/dev/null 2>"$tmp.err" || [ -s "$tmp.err" ]; then
	echo "FAIL: a cycle between folders:"
	cat "$tmp.err"
	bad=1
fi
[ $bad = 0 ] && echo "layers: $(wc -l <"$tmp") includes between folders, all downward, no cycle"

# ------------------------------------------------------------------------
# symbols
# ------------------------------------------------------------------------
# symbols_of ROOT SRCROOT: "folder U|D symbol object" for every global
# aiwi_* symbol of the objects under ROOT (libtool's ROOT/FOLDER/.libs/x.o
# counts as FOLDER's; ROOT's own objects, lib/kinds.c's, as folder ".")
# whose source SRCROOT/FOLDER/x.c exists, or ROOT/FOLDER/x.c when the
# build generates it (an object left by a file since moved is not the
# library's)
symbols_of() {
	(cd "$1" && find . -name '*.o' | sed 's|^\./||' | sort) | while read -r o; do
		d=$(dirname "$o")
		d=${d%/.libs}
		[ "$d" = .libs ] && d=.
		b=$(basename "$o" .o)
		# (or ROOT/FOLDER/x.c: a source the build generates, html_assets.c)
		[ -f "$2/$d/${b#*_la-}.c" ] || [ -f "$1/$d/${b#*_la-}.c" ] || continue
		${NM:-nm} -P "$1/$o" | awk -v d="$d" -v o="$o" '
			$1 ~ /^aiwi_/ && $2 == "U" { print d, "U", $1, o }
			$1 ~ /^aiwi_/ && $2 ~ /^[A-TV-Z]$/ { print d, "D", $1, o }'
	done
}

# check_symbols LISTING KINDS_DEF: a FAIL line per offence, and
# "PAIR from to" per reference between folders (for the cycle check)
check_symbols() {
	awk '
	BEGIN {
		split("core hw site inference/autoscale training inference export sweep studies", n, " ")
		split("0 1 2 3 4 4 5 5 6", r, " ")
		for (i in n)
			rank[n[i]] = r[i] + 0
		rank["."] = 0
	}
	FNR == NR {
		if (match($0, /^AIWI_KIND\([a-z_0-9]+\)/))
			descr["aiwi_kind_" substr($0, 11, RLENGTH - 11)] = 1
		next
	}
	$2 == "D" { def[$3] = $1; next }
	$2 == "U" { nu++; uf[nu] = $1; us[nu] = $3; uo[nu] = $4 }
	END {
		for (i = 1; i <= nu; i++) {
			f = uf[i]; s = us[i]; o = uo[i]
			if (!(f in rank)) {
				printf "FAIL: %s: a folder this test does not know: add it to the layers\n", o
				continue
			}
			if (!(s in def)) {
				printf "FAIL: %s uses %s, which no object of lib/ defines\n", o, s
				continue
			}
			t = def[s]
			if (t == f)
				continue
			if (t == ".") { # the registry, counted as the core
				if (f != "core")
					print "PAIR", f, "core"
				continue
			}
			if (f == ".") {
				if (s in descr) # the registry lists every kind
					continue
				if (t == "core")
					continue
				printf "FAIL: %s uses %s of lib/%s: the registry references the kinds and the core only\n", o, s, t
				continue
			}
			if (!(rank[t] < rank[f])) {
				printf "FAIL: %s (lib/%s) uses %s of lib/%s: an upward or sideways call\n", o, f, s, t
				continue
			}
			print "PAIR", f, t
		}
	}' "$2" "$1"
}

# symbol_check ROOT SRCROOT: 0 when every undefined aiwi_* symbol of the
# objects under ROOT is defined in its folder or below and the folders
# make no cycle (SRCROOT: the sources, kinds.def among them); the listing
# stays in $tmp.sym
symbol_check() {
	symbols_of "$1" "$2" >"$tmp.sym"
	if ! grep -q ' U ' "$tmp.sym"; then
		echo "FAIL: no aiwi_* reference in the objects under $1 (build the library first)"
		return 1
	fi
	check_symbols "$tmp.sym" "$2/kinds.def" >"$tmp.chk"
	ok=0
	grep '^FAIL' "$tmp.chk" | sort -u | grep . && ok=1
	awk '$1 == "PAIR" { print $2, $3 }' "$tmp.chk" | sort -u >"$tmp.spairs"
	if ! tsort "$tmp.spairs" >/dev/null 2>"$tmp.err" || [ -s "$tmp.err" ]; then
		echo "FAIL: a cycle between folders, by symbols:"
		cat "$tmp.err"
		ok=1
	fi
	return $ok
}

if symbol_check "$builddir/lib" "$srclib"; then
	echo "layers: $(grep -c ' U ' "$tmp.sym") undefined aiwi_* references in" \
		"$(cut -d' ' -f4 "$tmp.sym" | sort -u | wc -l) objects, all defined in their folder or below, no cycle"
else
	bad=1
fi

# The check must catch a planted upward call: lib/core/up.o calls
# aiwi_training_planted of lib/training/t.o (which calls the core, as it
# may).  Without that call (lib/core/ok.o instead) the same pair passes.
mkdir -p "$scratch/lib/core" "$scratch/lib/training"
printf 'AIWI_KIND(training)\n' >"$scratch/lib/kinds.def"
printf '%s\n' 'void aiwi_core_planted(void);' \
	'void aiwi_training_planted(void) { aiwi_core_planted(); }' >"$scratch/lib/training/t.c"
printf '%s\n' 'void aiwi_training_planted(void);' \
	'void aiwi_core_planted(void) { aiwi_training_planted(); }' >"$scratch/lib/core/up.c"
printf '%s\n' 'void aiwi_core_planted(void) {}' >"$scratch/lib/core/ok.c"
cc=${CC:-cc}
if ! $cc -c -o "$scratch/lib/training/t.o" "$scratch/lib/training/t.c" ||
	! $cc -c -o "$scratch/lib/core/ok.o" "$scratch/lib/core/ok.c"; then
	echo "FAIL: cannot compile the planted objects with $cc"
	bad=1
elif ! symbol_check "$scratch/lib" "$scratch/lib" >"$tmp.self"; then
	echo "FAIL: the symbol check refuses objects with no upward call:"
	cat "$tmp.self"
	bad=1
elif ! rm "$scratch/lib/core/ok.o" || ! $cc -c -o "$scratch/lib/core/up.o" "$scratch/lib/core/up.c"; then
	echo "FAIL: cannot compile the planted upward call with $cc"
	bad=1
elif symbol_check "$scratch/lib" "$scratch/lib" >"$tmp.self" ||
	! grep -q '^FAIL: core/up.o (lib/core) uses aiwi_training_planted of lib/training' "$tmp.self"; then
	echo "FAIL: the symbol check lets a planted upward call (core -> training) pass:"
	cat "$tmp.self"
	bad=1
else
	echo "layers: a planted upward call is refused:"
	sed 's/^/  /' "$tmp.self"
fi
exit $bad
