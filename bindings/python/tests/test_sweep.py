"""Sweeps from Python: grid, replications, statistics, reproducibility of a
single task, thread-count independence, callbacks and stopping."""

import csv
import math
import os
import statistics
import tempfile
import unittest

import aiworkload as aiw

import aiwtest

SCENARIO = ("[sim]\nduration = 10min\nsample_interval = 10min\nseed = 3\n"
            "[training t]\nmodel_params = 1e9\nstep_compute = 1s\n"
            "jitter = lognormal(0,0.03)\ngpus_per_node = 8\n")
METRIC = "training.t.straggler_slowdown"


def _need_training(test):
    missing = aiwtest.has_params("training.NAME.jitter", "training.NAME.step_compute")
    if missing:
        test.skipTest("the training model does not declare %s yet" % ", ".join(missing))


class Deterministic(unittest.TestCase):
    """Scripted loads: every replication equal, sd 0, energy by hand."""

    def test_grid_and_stats(self):
        with aiw.Sweep(aiwtest.SCRIPTED, replications=3, metrics="site.energy_kwh") as sw:
            sw.axis("load.a.profile", ["0:10kW, 2h:2kW", "0:5kW"])  # a comma inside a value
            sw.axis("site.pue", [1.2, 1.5])
            sw.prepare()
            self.assertEqual(sw.npoints, 4)
            self.assertEqual(sw.param_names(), ["load.a.profile", "site.pue"])
            # the last axis varies fastest
            self.assertEqual(sw.point(1), {"load.a.profile": "0:10kW, 2h:2kW", "site.pue": 1.5})
            self.assertEqual(sw.metric_names(), ["site.energy_kwh"])
            sw.run()
            rows = sw.results()
        # a: 24 kWh or 20 kWh (5 kW x 4 h); b: 22 kWh
        want = [46.0, 46.0, 42.0, 42.0]
        for row, w in zip(rows, want):
            self.assertAlmostEqual(row["site.energy_kwh"], w, places=9)
            self.assertEqual(row["site.energy_kwh.sd"], 0.0)
            self.assertEqual(row["site.energy_kwh.n"], 3)

    def test_typed_values(self):
        """point() and results() type each value as its parameter says;
        point_text() keeps the text."""
        with aiw.Sweep(aiwtest.SCRIPTED, metrics="site.energy_kwh") as sw:
            sw.axis("site.pue", ["1.25"])
            sw.axis("sim.duration", ["2h"])
            sw.axis("load.a.profile", ["0:5kW"])
            sw.axis("sim.series_keep", ["1000"])
            sw.run()
            pt = sw.point(0)
            self.assertEqual(sw.point_text(0)["sim.duration"], "2h")
            row = sw.results()[0]
        for got in (pt, row):
            self.assertIsInstance(got["site.pue"], float)
            self.assertEqual(got["site.pue"], 1.25)
            self.assertIsInstance(got["sim.duration"], float)
            self.assertEqual(got["sim.duration"], 7200.0)
            self.assertEqual(got["load.a.profile"], "0:5kW")
            self.assertIsInstance(got["sim.series_keep"], int)
            self.assertEqual(got["sim.series_keep"], 1000)

    def test_keep_going(self):
        """A refused point is kept with its status and message; the others
        run.  Without keep_going the refusal stops the sweep."""
        scen = "[sim]\nduration = 1h\n[training t]\ngpus = 64\nmemory_check = warn\n"
        with aiw.Sweep(scen, metrics="training.t.steps") as sw:
            sw.axis("training.t.gpus", [0, 8])
            with self.assertRaises(aiw.AiwError):
                sw.run()
        with aiw.Sweep(scen, metrics="training.t.steps", keep_going=True, jobs=2) as sw:
            sw.axis("training.t.gpus", [0, 8])
            sw.axis("training.t.zero_stage", [0, 1])
            sw.run()
            self.assertEqual(sw.point_status(2), ("AIW_OK", ""))
            st, msg = sw.point_status(0)
            self.assertEqual(st, "AIW_ERANGE")
            self.assertIn("training.t.gpus = 0", msg)
            st, msg = sw.point_status(3)
            self.assertEqual(st, "AIW_ESCENARIO")
            self.assertIn("zero_stage = 1 needs the architecture", msg)
            with self.assertRaises(aiw.AiwError):
                sw.result(3, 0)
            rows = sw.results()
            with tempfile.TemporaryDirectory() as d:
                path = os.path.join(d, "kg.csv")
                sw.write_csv(path)
                with open(path) as f:
                    table = list(csv.DictReader(f))
        self.assertEqual([r["status"] for r in rows],
                         ["AIW_ERANGE", "AIW_ERANGE", "AIW_OK", "AIW_ESCENARIO"])
        self.assertIsNone(rows[3]["training.t.steps"])
        self.assertEqual(rows[3]["training.t.steps.n"], 0)
        self.assertEqual(rows[2]["training.t.steps"], 7.0)
        self.assertEqual(rows[2]["training.t.gpus"], 8)
        self.assertEqual([r["status"] for r in table], ["refused", "refused", "ok", "refused"])

    def test_errors(self):
        with aiw.Sweep(aiwtest.SCRIPTED) as sw:
            sw.axis("site.pue", [0.5])
            with self.assertRaises(aiw.AiwError) as cm:
                sw.prepare()
            self.assertIn("site.pue", str(cm.exception))
            self.assertEqual(cm.exception.message, sw.errmsg)
        with aiw.Sweep(aiwtest.SCRIPTED) as sw:
            with self.assertRaises(aiw.AiwError):
                sw.axis("site.nothing", [1])
                sw.prepare()
        with self.assertRaises(aiw.AiwError):
            with aiw.Sweep("/nonexistent/scenario.ini") as sw:
                sw.prepare()


class Stochastic(unittest.TestCase):

    def setUp(self):
        _need_training(self)

    def _sweep(self, jobs):
        sw = aiw.Sweep(SCENARIO, axes={"training.t.gpus": [8, 512]}, replications=4,
                       metrics=[METRIC], jobs=jobs)
        self.addCleanup(sw.close)
        return sw

    def test_statistics_and_reproducibility(self):
        sw = self._sweep(2)
        points = []
        sw.run(callback=lambda s, p: points.append(p))
        self.assertEqual(points, [0, 1])  # in point order
        for p in range(2):
            reps = [sw.replication(p, r, METRIC) for r in range(4)]
            mean, sd, ci, n = sw.result(p, METRIC)
            self.assertEqual(n, 4)
            self.assertAlmostEqual(mean, statistics.fmean(reps), places=14)
            self.assertAlmostEqual(sd, statistics.stdev(reps), places=14)
            # Student t(0.975, 3) = 3.182446305284263
            self.assertAlmostEqual(ci, 3.182446305284263 * sd / 2.0, places=12)
            # one task reruns alone, and as a plain Simulation with its seed
            self.assertEqual(sw.run_task(p, 2)[0], reps[2])
            gpus = int(sw.point(p)["training.t.gpus"])
            with aiw.Simulation(SCENARIO, seed=sw.task_seed(p, 2),
                                **{"training.t.gpus": gpus}) as sim:
                sim.run()
                self.assertEqual(sim.metric(METRIC), reps[2])
        # straggler slowdown grows with the job: E[max] of 512 vs 8 lognormals
        self.assertGreater(sw.result(1, METRIC)[0], sw.result(0, METRIC)[0])

    def test_threads_do_not_change_results(self):
        a, b = self._sweep(1), self._sweep(2)
        a.run()
        b.run()
        self.assertEqual(a.results(), b.results())

    def test_store_and_csv(self):
        src = self._sweep(1)
        src.run()
        dst = self._sweep(1)
        dst.prepare()
        for p in range(dst.npoints):  # a distributed driver: results computed elsewhere
            for r in range(4):
                dst.store(p, r, [src.replication(p, r, METRIC)])
        self.assertEqual(dst.results(), src.results())
        with self.assertRaises(ValueError):
            dst.store(0, 0, [1.0, 2.0])
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "sweep.csv")
            dst.write_csv(path)
            with open(path, newline="") as f:
                rows = list(csv.DictReader(f))
            self.assertEqual(len(rows), 2)
            self.assertEqual(float(rows[1][METRIC + ".mean"]), src.result(1, METRIC)[0])
            dst.write_replications_csv(os.path.join(d, "reps.csv"))
            # the HTML report: a row per point, the same bytes for the same sweep
            a, b = os.path.join(d, "a.html"), os.path.join(d, "b.html")
            src.write_html(a)
            dst.write_html(b)
            with open(a, "rb") as f:
                page = f.read()
            with open(b, "rb") as f:
                self.assertEqual(f.read(), page)
            self.assertEqual(page.count(b'<tr class="point"'), 2)
            self.assertIn(METRIC.encode(), page)
            with self.assertRaises(aiw.AiwError):
                src.write_html(os.path.join(d, "no", "such", "r.html"))

    def test_callback_exception_and_stop(self):
        sw = self._sweep(1)

        def bad(s, p):
            raise RuntimeError("point %d" % p)

        with self.assertRaises(RuntimeError) as cm:
            sw.run(callback=bad)
        self.assertEqual(str(cm.exception), "point 0")
        sw.run()  # the rest runs later
        self.assertEqual(len(sw.results()), 2)

        sw2 = self._sweep(1)
        seen = []

        def progress(s, done, total):
            seen.append((done, total))
            return done >= 2

        with self.assertRaises(aiw.Stopped):
            sw2.run(progress=progress)
        self.assertEqual(seen[-1], (2, 8))
        sw2.run()
        self.assertEqual(len(sw2.results()), 2)
        self.assertTrue(all(math.isfinite(r[METRIC]) for r in sw2.results()))


if __name__ == "__main__":
    unittest.main()
