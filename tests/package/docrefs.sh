#!/bin/sh
# Every file the documentation names exists in the tree: the comments of
# lib/, the public header include/, the pages of doc/ and README.md.  A
# file moved or renamed without its mentions fails here, naming the file
# and line that still speak of it.
#
# What counts as a file name: a word that ends in the extension of a file
# of this tree's kinds (.c .h .def .sh .am .ac .md .py .map .in .ini .csv
# .yml .svg .json .toml .txt), or a manual page (man/manN/NAME.N or a bare
# lower-case NAME.N, N one of 1 3 5 7).  How it is resolved:
#   - a path (it has a slash) exists from the top of the tree, from lib/
#     (the library's includes name "core/internal.h"), from include/, or
#     from the directory of the file that names it;
#   - a bare name ("fleet_admit.c") is the name of some file in the tree.
# What is not checked (the explicit rules, one each below):
#   - system and library headers: a name right after "<" (#include
#     <stdio.h>, <gsl/gsl_rng.h>);
#   - files the build or the user makes, never in the tree (GENERATED);
#   - names of the user's own files in examples of use (USER_FILES);
#   - files a worked example creates: doc/adding-a-model.md marks its
#     blocks "<!-- example-file: PATH -->" (tests/package/adding_a_model.sh
#     builds them), and the paths so marked are the example's own;
#   - a URL's parts, and a printf conversion ("%s.csv");
# and a patch's "a/PATH" and "b/PATH" are PATH, a "../PATH" (from a build
# folder inside the tree, as in "cd build && ...") is PATH.
#   - doc/perf-log.md: a dated log, whose entries name the tree of their
#     day (it is history, like ChangeLog and NEWS, which are not read).
# Run with --self-test only (the test runs it first): the checker must
# find planted stale names, or it proves nothing.
set -u
: "${top_srcdir:?}"

# built by configure or make, or written by a run: never in the source tree
# (build/ is the folder of the build commands "mkdir build && cd build")
GENERATED='config.h config.log config.status Makefile.in aiworkload.pc
test-suite.log build/ html_assets.c'
# the user's own files in examples of use, named bare (outputs and inputs
# the reader makes: "aiworkload run SCENARIO.ini --svg out.svg")
USER_FILES='demo.c out.csv out.json out.svg r.csv run.json series.csv
site.svg scenario.ini SCENARIO.ini T.csv snippet.ini METRICS.csv FILE.csv'
# other projects' files, cited with their project ("nccl-tests
# (doc/PERFORMANCE.md)", "Megatron-LM examples/sc21/run_table_1.sh",
# vLLM's vllm/engine/arg_utils.py, vllm/v1/core/kv_cache_manager.py,
# vllm/config/cache.py and vllm/v1/core/sched/scheduler.py, Megatron-LM's
# megatron/training/arguments.py, Sarathi-Serve's experiment configuration
# and trace)
EXTERNAL='doc/PERFORMANCE.md examples/sc21/run_table_1.sh vllm/engine/arg_utils.py
vllm/v1/core/kv_cache_manager.py vllm/config/cache.py megatron/training/arguments.py
vllm/v1/core/sched/scheduler.py osdi-experiments/figure-5-6/mistral7b_strict.yml
sharegpt_8k_filtered_stats_llama2_tokenizer.csv'

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# check ROOT TREE FILE...: every FILE (read as ROOT/FILE) names files and
# folders that TREE (the tree's files, one path a line) holds; prints
# "FILE:LINE: WORD" for each name that it does not, returns 1 then.
check() {
	root=$1 tree=$2
	shift 2
	: >"$tmp/made"
	[ -f "$root/doc/adding-a-model.md" ] &&
		sed -n 's/^<!-- example-file: \([^ ]*\) -->$/\1/p' "$root/doc/adding-a-model.md" >"$tmp/made"
	for f in "$@"; do
		# a URL is not a path of this tree
		sed -e 's|[a-zA-Z][a-zA-Z+.-]*://[^[:space:])>"`]*||g' "$root/$f" | sed "s|^|$f |"
	done | awk -v skip="$GENERATED" -v user="$USER_FILES" -v ext="$EXTERNAL" \
		-v treef="$tree" -v madef="$tmp/made" '
	function dirs(path,   d) {
		d = path
		while (sub(/\/[^\/]*$/, "", d)) isdir[d] = 1
	}
	BEGIN {
		n = split(skip, a, /[ \n]+/); for (i = 1; i <= n; i++) generated[a[i]] = 1
		n = split(user, a, /[ \n]+/); for (i = 1; i <= n; i++) userf[a[i]] = 1
		n = split(ext, a, /[ \n]+/); for (i = 1; i <= n; i++) external[a[i]] = 1
		while ((getline p < treef) > 0) {
			file[p] = 1; b = p; sub(/.*\//, "", b); name[b] = 1; dirs(p)
		}
		while ((getline p < madef) > 0) {
			made[p] = 1; b = p; sub(/.*\//, "", b); made[b] = 1; dirs(p)
		}
	}
	function report(w) { print f ":" line[f] ": " w; bad = 1 }
	{
		f = $1
		line[f]++
		s = substr($0, length(f) + 2)
		# a patch names its files "a/PATH" and "b/PATH"
		if (s ~ /^(---|\+\+\+) [ab]\//) s = substr(s, 1, 4) substr(s, 7)
		dir = f; if (!sub(/\/[^\/]*$/, "", dir)) dir = "."
		# files: a word ending in one of the extensions (or a manual page)
		t = s
		while (match(t, /[<%]?[A-Za-z0-9_.+\/-]*[A-Za-z0-9_+-]\.(c|h|def|sh|am|ac|md|py|map|in|ini|csv|yml|svg|json|toml|txt|[1357])([^A-Za-z0-9_]|$)/)) {
			w = substr(t, RSTART, RLENGTH)
			t = substr(t, RSTART + RLENGTH - 1)
			sub(/[^A-Za-z0-9_]$/, "", w)
			if (w ~ /^[<%]/) continue          # <stdio.h>, "%s.csv"
			sub(/^(\.\/)+/, "", w)
			sub(/^\.\.\//, "", w)         # ../man/...: from a build folder in the tree
			if (w ~ /\.[1357]$/ && w !~ /(^|\/)man\/man[1357]\/[a-z0-9_.-]+$/ && w !~ /^[a-z_-]+\.[1357]$/)
				continue                       # a version: 4.2.3, v0.5, SSE4.1
			b = w; sub(/.*\//, "", b)
			if (b in generated || w in userf || w in external || w in made) continue
			if (w ~ /\//) {
				if (w in file || ("lib/" w) in file || ("include/" w) in file || (dir "/" w) in file) continue
			} else if (w in name) continue
			report(w)
		}
		# folders: a path from the top that ends in a slash ("lib/core/",
		# "tests/api/"); a bare "core/" is read in its sentence, not here
		t = s
		while (match(t, /(^|[^A-Za-z0-9_.\/-])[A-Za-z_][A-Za-z0-9_.-]*(\/[A-Za-z0-9_.-]+)*\/([^A-Za-z0-9_\/*-]|$)/)) {
			w = substr(t, RSTART, RLENGTH)
			t = substr(t, RSTART + RLENGTH - 1)
			sub(/^[^A-Za-z_]/, "", w); sub(/[^\/]$/, "", w); sub(/\/$/, "", w)
			top = w; sub(/\/.*/, "", top)
			if (!(top in isdir) || w in isdir || (w "/") in generated) continue
			report(w "/")
		}
	}
	END { exit bad }'
}

# The tree: its files, one path a line (no build folder: one holds a
# config.status; no .git or autom4te.cache).
tree() {
	(cd "$1" && find . \( -name .git -o -name autom4te.cache \) -prune -o \
		-type d -exec test -e '{}/config.status' ';' -prune -o -type f -print) | sed 's|^\./||'
}

# The files this test reads, as paths under ROOT.
scanned() {
	(cd "$1" && {
		find lib include -type f \( -name '*.[ch]' -o -name '*.def' -o -name '*.map' \)
		find doc -type f -name '*.md' ! -name perf-log.md
		echo README.md
	} | sort)
}

fail=0
tree "$top_srcdir" >"$tmp/tree"
scanned "$top_srcdir" >"$tmp/list"

# 1. The checker on planted names: the real README.md, then the same with
# one line added that names a moved file three ways (bare, a path from the
# top, a path from lib/) and a moved folder; the checker must pass the
# first and report exactly the four names of the second.  Then a comment
# with one word for each skip rule and one stale name: only that one.
self_test() {
	s=$tmp/selftest
	mkdir -p "$s/lib/core" "$s/doc"
	cp "$top_srcdir/README.md" "$top_srcdir/doc/adding-a-model.md" "$s/" &&
		mv "$s/adding-a-model.md" "$s/doc/" || return 1
	if ! out=$(check "$s" "$tmp/tree" README.md); then
		echo "FAIL self-test: the real README.md fails in the self-test: $out"
		return 1
	fi
	n=$(($(wc -l <"$s/README.md") + 1))
	echo 'Planted: hw.c, lib/core/power_stale.c, inference/autoscale.c, lib/studies_stale/.' >>"$s/README.md"
	if out=$(check "$s" "$tmp/tree" README.md); then
		echo "FAIL self-test: a README.md naming hw.c, lib/core/power_stale.c, inference/autoscale.c and lib/studies_stale/ passes"
		return 1
	fi
	want="README.md:$n: hw.c
README.md:$n: lib/core/power_stale.c
README.md:$n: inference/autoscale.c
README.md:$n: lib/studies_stale/"
	if [ "$out" != "$want" ]; then
		printf 'FAIL self-test: the planted names reported as\n%s\nexpected\n%s\n' "$out" "$want"
		return 1
	fi
	printf '%s\n' '#include <stdio.h>' '#include <gsl/gsl_stale.h>' \
		'/* "%s.csv", https://example.org/x/gone.c, config.h, out.svg, lib/pump/pump.c */' \
		'/* lib/core/sim.c, core/sim.c, sim.c, aiworkload-params.7, lib/core/; v4.2.3 is a version */' \
		'/* gone.h does not exist */' >"$s/lib/core/planted.c"
	out=$(check "$s" "$tmp/tree" lib/core/planted.c)
	if [ "$out" != "lib/core/planted.c:5: gone.h" ]; then
		printf 'FAIL self-test: lib/core/planted.c reported as\n%s\nexpected only line 5, gone.h\n' "$out"
		return 1
	fi
	echo "ok   self-test: planted stale names fail (bare, from the top, from lib/, a folder); the skip rules skip only theirs"
}
self_test || fail=1
[ "${1:-}" = --self-test ] && exit $fail

# 2. The tree.
if out=$(cd "$top_srcdir" && check . "$tmp/tree" $(cat "$tmp/list")); then
	echo "ok   docrefs: every file and folder named in the $(wc -l <"$tmp/list") files of lib/, include/, doc/ and README.md exists"
else
	echo "FAIL stale file names (file:line: name):"
	echo "$out"
	fail=1
fi
exit $fail
