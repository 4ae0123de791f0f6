#!/bin/sh
# moe_day.sh - what a mixture of experts costs in CPU: bench/inference_day's
# day (an 8B model on 300 H100, 1,000 requests/s on average, diurnal, peak
# at 14:00) with moe = on (8 experts, 2 per token, 2.5e9 active weights of
# the 8e9) against the same dense day, timed in one process by
# bench/interleave_day (the same library loaded twice, the second copy's
# fleet a mixture of experts), both load orders; its last lines give B/A,
# the CPU ratio on/off, and the machine.
#
#   bench/moe_day.sh BUILD [DAYS [CHUNK_S]]
#
# BUILD: a configured and built tree (a release build: its
# bench/interleave_day and .libs/libaiworkload.so); DAYS: simulated days
# (default 1, the whole day); CHUNK_S: simulated seconds per turn (default
# 30).  The requests differ between the two sides (the experts change the
# schedule, not the arrivals): compare the requests each side served.
set -eu
[ $# -ge 1 ] || { sed -n '2,16p' "$0"; exit 2; }
b=$(cd "$1" && pwd)
lib="$b/.libs/libaiworkload.so"
[ -x "$b/bench/interleave_day" ] && [ -f "$lib" ] || {
	echo "moe_day: $b has no bench/interleave_day or .libs/libaiworkload.so (make it first)"
	exit 2
}
exec "$b/bench/interleave_day" "$lib" "$lib" "${2:-1}" "${3:-30}" 14 1000 \
	"moe = on
experts = 8
experts_per_token = 2
active_params = 2.5e9"
