"""No leak when 10,000 simulations are created and closed (or dropped).

Each simulation loads a scenario, schedules a driver callback, runs a short
scripted day and copies a curve out, so the binding's bookkeeping
(trampoline registry, pending callbacks, buffers) is exercised as well as
aiw_sim_create/aiw_sim_free.  Two checks: the binding's own tables are back
to empty (exact), and the resident set grows by less than a bound.

The bound: one leaked aiw_sim (its components, parameter values, recorder)
is several kilobytes, so a per-simulation leak over 10,000 simulations would
add tens of megabytes; allocator noise after a warm-up is well under 8 MiB.
The RSS check is skipped under sanitizers (ASan quarantines freed memory on
purpose and checks leaks itself in the C suite).
"""

import gc
import os
import unittest

import aiworkload as aiw
from aiworkload import sim as simmod

import aiwtest

TEXT = ("[sim]\nduration = 2h\nsample_interval = 30min\n"
        "[load a]\nprofile = 0:10kW, 1h:2kW\ngpus = 8\n")
N = 10000
BOUND = 8 << 20


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


class NoLeak(unittest.TestCase):

    def _one(self, i, close):
        s = aiw.Simulation(TEXT, seed=i + 1)
        s.schedule(100.0, lambda sim, t: None)
        s.schedule(200.0, lambda sim, t: None)  # left pending if the run is stepped
        if i % 2:
            s.run()
            t, v = s.series("site.power_w")
            assert len(v) == 4
        else:
            s.run_until(150.0)
        if close:
            s.close()
        # else: dropped here, freed by __del__

    def test_10000_simulations(self):
        if not os.path.exists("/proc/self/statm"):
            self.skipTest("no /proc/self/statm")
        for i in range(500):  # warm up allocator pools and caches
            self._one(i, close=True)
        gc.collect()
        before = rss_bytes()
        for i in range(N):
            self._one(i, close=i % 2 == 0)
        gc.collect()
        after = rss_bytes()
        self.assertEqual(simmod._live, {}, "simulations left in the trampoline registry")
        if aiwtest.sanitized():
            self.skipTest("RSS bound not checked under sanitizers (growth %.1f MiB)"
                          % ((after - before) / 2.0 ** 20))
        self.assertLess(after - before, BOUND,
                        "RSS grew by %.1f MiB over %d simulations" % (
                            (after - before) / 2.0 ** 20, N))


if __name__ == "__main__":
    unittest.main()
