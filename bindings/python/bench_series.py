#!/usr/bin/env python3
"""Benchmark: Simulation.series() of a 1,000,000-point curve.

A [load] component over 1e6 s sampled every second gives curves of 10^6
points; series() makes one aiw_sim_series_copy into two preallocated
buffers (numpy when present, else array('d')).  Goal: under 50 ms.  Prints
the best and median of several calls for each buffer kind.

    AIWORKLOAD_LIBRARY=build/.libs/libaiworkload.so python3 bindings/python/bench_series.py
"""

import os
import statistics
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree

try:
    import aiworkload as aiw
except ImportError:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import aiworkload as aiw
from aiworkload import _arrays

POINTS = 1000000
TEXT = ("[sim]\nduration = %ds\nsample_interval = 1s\n"
        "[load a]\nprofile = 0:10kW, 1h:2kW, 2h:6kW\nperiod = 3h\ngpus = 8\n" % POINTS)


def bench(sim, name, repeat):
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        t, v = sim.series(name)
        times.append(time.perf_counter() - t0)
    assert len(t) == POINTS and len(v) == POINTS, len(t)
    return min(times), statistics.median(times)


def main():
    repeat = int(sys.argv[1]) if len(sys.argv) > 1 else 20
    t0 = time.perf_counter()
    with aiw.Simulation(TEXT) as sim:
        sim.run()
        print("setup: %d-point curves simulated in %.2f s (library %s, %s)" % (
            sim.series_length("site.power_w"), time.perf_counter() - t0, aiw.library_version(),
            aiw.library_info()["path"]))
        kinds = [("numpy", _arrays.np)] if _arrays.np is not None else []
        kinds.append(("array('d')", None))
        saved = _arrays.np
        try:
            for label, np in kinds:
                _arrays.np = np
                best, med = bench(sim, "site.power_w", repeat)
                print("series('site.power_w'), %d points, %-10s: best %.2f ms, median %.2f ms "
                      "(goal < 50 ms)" % (POINTS, label, best * 1e3, med * 1e3))
        finally:
            _arrays.np = saved


if __name__ == "__main__":
    main()
