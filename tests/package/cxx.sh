#!/bin/sh
# The header compiles as C++ (extern "C" guards) and a C++ program links.
set -eu
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/t.cc" <<'CXX'
#include <aiworkload.h>
#include <cstdio>
#include <memory>
int main()
{
	aiw_sim *raw = nullptr;
	if (aiw_sim_create(&raw, 1) != AIW_OK) return 1;
	std::unique_ptr<aiw_sim, void (*)(aiw_sim *)> sim(raw, aiw_sim_free);
	if (aiw_sim_set(sim.get(), "site.pue", "1.2") != AIW_OK) return 1;
	std::printf("C++ ok: %s\n", aiw_version_string());
	return 0;
}
CXX
lib="$top_builddir/.libs"
${CXX:-c++} ${CXXFLAGS:-} -std=c++11 -Wall -Wextra -pedantic -I"$top_srcdir/include" -o "$tmp/t" "$tmp/t.cc" -L"$lib" -laiworkload ${LDFLAGS:-}
LD_LIBRARY_PATH="$lib" "$tmp/t"
