#!/bin/sh
# Install into a temporary prefix; a 10-line program builds with nothing but
# `pkg-config --cflags --libs aiworkload` and runs.
set -eu
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
make -C "$top_builddir" install prefix="$tmp/prefix" >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; exit 1; }
cat >"$tmp/hello.c" <<'C'
#include <stdio.h>
#include <aiworkload.h>
int main(void)
{
	aiw_sim *sim;
	if (aiw_sim_create(&sim, 42) != AIW_OK) return 1;
	aiw_status st = aiw_sim_run(sim);
	printf("libaiworkload %s: %s\n", aiw_version_string(), aiw_strerror(st));
	aiw_sim_free(sim);
	return st != AIW_OK;
}
C
export PKG_CONFIG_PATH="$tmp/prefix/lib/pkgconfig"
grep -q '^Requires.private:.*gsl' "$tmp/prefix/lib/pkgconfig/aiworkload.pc" || { echo "FAIL: gsl not in Requires.private"; exit 1; }
# the .pc was written for the configured prefix: point it at the temporary one
pc="pkg-config --define-variable=prefix=$tmp/prefix"
${CC:-cc} ${CFLAGS:-} -o "$tmp/hello" "$tmp/hello.c" $($pc --cflags --libs aiworkload) ${LDFLAGS:-}
LD_LIBRARY_PATH="$tmp/prefix/lib" "$tmp/hello"
