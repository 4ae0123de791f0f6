#!/bin/sh
# prefix_day.sh - what conversations and prefix caching cost in CPU:
# bench/inference_day's day (an 8B model on 300 H100, 1,000 requests/s on
# average, diurnal, peak at 14:00) timed in one process by
# bench/interleave_day (the same library loaded twice), both load orders;
# its last lines give B/A, the CPU ratio, and the machine.
#
#   bench/prefix_day.sh BUILD [WHICH [DAYS [CHUNK_S]]]
#
# WHICH: "all" (default): A the day as it is (every mechanism off), B with
# chunked prefill, conversations and prefix caching on (router affinity);
# "mech": A with the conversations, chunked prefill and prefix caching off
# (router least_loaded), B with both on (router affinity): the mechanisms'
# cost on the same workload; "cache": A with the conversations and prefix
# caching off, B with it on (router affinity on both sides).  The
# conversations: 4 turns, 30 s think time on average, 100 system prompts
# of 1,000 tokens (Zipf 1), messages lognormal(median=200,sigma=0.8) tokens.
# BUILD: a configured and built tree (a release build: its
# bench/interleave_day and .libs/libaiworkload.so); DAYS: simulated days
# (default 1, the whole day); CHUNK_S: simulated seconds per turn (default
# 30).  The requests differ between the two sides: compare the requests
# each side served.
set -eu
[ $# -ge 1 ] || { sed -n '2,24p' "$0"; exit 2; }
b=$(cd "$1" && pwd)
lib="$b/.libs/libaiworkload.so"
[ -x "$b/bench/interleave_day" ] && [ -f "$lib" ] || {
	echo "prefix_day: $b has no bench/interleave_day or .libs/libaiworkload.so (make it first)"
	exit 2
}
conv="sessions = on
session_turns = const(4)
think_time = exp(30s)
system_prompts = 100
system_prompt_tokens = const(1000)
system_prompt_zipf = 1
prompt_tokens = lognormal(median=200,sigma=0.8)"
case "${2:-all}" in
all)
	exec "$b/bench/interleave_day" "$lib" "$lib" "${3:-1}" "${4:-30}" 14 1000 \
		"$conv
prefix_caching = on
chunked_prefill = on
router = affinity" ;;
mech)
	exec "$b/bench/interleave_day" "$lib" "$lib" "${3:-1}" "${4:-30}" 14 1000 \
		"$conv
prefix_caching = on
chunked_prefill = on
router = affinity" "$conv" ;;
cache)
	exec "$b/bench/interleave_day" "$lib" "$lib" "${3:-1}" "${4:-30}" 14 1000 \
		"$conv
prefix_caching = on
router = affinity" "$conv
router = affinity" ;;
*)
	echo "prefix_day: WHICH is all, mech or cache, not $2"
	exit 2 ;;
esac
