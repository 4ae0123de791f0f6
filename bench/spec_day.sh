#!/bin/sh
# spec_day.sh - what speculative decoding costs in CPU: bench/inference_day's
# day (an 8B model on 300 H100, 1,000 requests/s on average, diurnal, peak
# at 14:00) with speculative = draft (a 1.24e9-weight draft of 16 layers,
# Llama-3.2-1B's size, k = 4, a = 0.7) against the same day with it off,
# timed in one process by bench/interleave_day (the same library loaded
# twice, the second copy's fleet speculating), both load orders; its last
# lines give B/A, the CPU ratio on/off, and the machine.
#
#   bench/spec_day.sh BUILD [DAYS [CHUNK_S]]
#
# BUILD: a configured and built tree (a release build: its
# bench/interleave_day and .libs/libaiworkload.so); DAYS: simulated days
# (default 1, the whole day); CHUNK_S: simulated seconds per turn (default
# 30).  The requests differ between the two sides (speculation changes the
# schedule, not the arrivals): compare the requests each side served.
set -eu
[ $# -ge 1 ] || { sed -n '2,16p' "$0"; exit 2; }
b=$(cd "$1" && pwd)
lib="$b/.libs/libaiworkload.so"
[ -x "$b/bench/interleave_day" ] && [ -f "$lib" ] || {
	echo "spec_day: $b has no bench/interleave_day or .libs/libaiworkload.so (make it first)"
	exit 2
}
exec "$b/bench/interleave_day" "$lib" "$lib" "${2:-1}" "${3:-30}" 14 1000 \
	"speculative = draft
speculative_tokens = 4
acceptance_rate = 0.7
draft_params = 1.24e9
draft_layers = 16"
