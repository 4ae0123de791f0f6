#!/bin/sh
# rfail_day.sh - what serving replica failures cost in CPU: bench/
# inference_day's day (an 8B model on 300 H100, 1,000 requests/s on average,
# diurnal, peak at 14:00) with replica_failures = on against the same day
# with them off, timed in one process by bench/interleave_day (the same
# library loaded twice, the second copy's fleet failing), both load
# orders; its last lines give B/A, the CPU ratio on/off, and the machine.
#
#   bench/rfail_day.sh BUILD [DAYS [CHUNK_S [GPU_MTBF]]]
#
# BUILD: a configured and built tree (a release build: its
# bench/interleave_day and .libs/libaiworkload.so); DAYS: simulated days
# (default 1, the whole day); CHUNK_S: simulated seconds per turn (default
# 30); GPU_MTBF: the GPUs' mean time between failures (default 50000h, the
# parameter's default: Llama 3's 419 unexpected interruptions in 54 days on
# 16,384 H100, Grattafiori et al. 2024, section 3.3.4; 300 one-GPU replicas
# then fail 0.14 times a day on average, so a shorter one, 500h: 14 a day,
# shows the cost of the failures themselves).  Requests are requeued
# (failure_requests = requeue), a failed replica is out for repair_time =
# const(72h) (the rest of the day), no hot spare.  The requests differ
# between the two sides after a failure: compare the requests each side
# served.
set -eu
[ $# -ge 1 ] || { sed -n '2,23p' "$0"; exit 2; }
b=$(cd "$1" && pwd)
lib="$b/.libs/libaiworkload.so"
[ -x "$b/bench/interleave_day" ] && [ -f "$lib" ] || {
	echo "rfail_day: $b has no bench/interleave_day or .libs/libaiworkload.so (make it first)"
	exit 2
}
exec "$b/bench/interleave_day" "$lib" "$lib" "${2:-1}" "${3:-30}" 14 1000 \
	"replica_failures = on
gpu_mtbf = ${4:-50000h}
failure_requests = requeue
repair_time = const(72h)"
