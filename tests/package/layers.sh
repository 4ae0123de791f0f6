#!/bin/sh
# The library's layers, read off its #include lines (doc/design.md):
#   core (engine, components, parameters, curves) knows no model: it
#     includes nothing outside lib/core but the one list of kinds
#     (lib/kinds.def, declarations only);
#   hw includes core only; site (the accounting) includes core and hw only;
#   a model (training, inference) includes core, hw and the accounting's
#     headers, never another model's; the autoscaling policies
#     (inference/autoscale) see no fleet state: core, hw, site and the
#     traffic law (inference/traffic.h) only;
#   export and sweep read metrics, curves and parameter tables: core only;
#   studies (drivers that compose models) may include any folder;
#   and the graph between folders has no cycle.
# Prints every offending include; exits 1 if there is one.
set -u
: "${top_srcdir:?}"
cd "$top_srcdir/lib" || exit 1
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
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
	core) [ "$to" = kinds ] || offend "$from" "$to" "$f" "$h" "core knows no model or driver" ;;
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
rm -f "$tmp.pairs" "$tmp.err"
[ $bad = 0 ] && echo "layers: $(wc -l <"$tmp") includes between folders, all downward, no cycle"
exit $bad
