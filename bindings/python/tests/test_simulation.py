"""The Pythonic layer: construction, parameters, curves (checked against the
CSV writer), metrics (against the JSON writer), stepping, scheduling, and
co-simulation equivalence."""

import csv
import json
import math
import os
import tempfile
import unittest
from array import array

import aiworkload as aiw
from aiworkload import _arrays

import aiwtest


def _exact_equal(a, b):
    """Element-wise identity of two float sequences (NaN equals NaN)."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if not (x == y or (math.isnan(x) and math.isnan(y))):
            return False
    return True


class Construction(unittest.TestCase):

    def test_kwargs_dotted_and_dunder(self):
        with aiw.Simulation(aiwtest.SCRIPTED, site__pue=1.2,
                            **{"load.a.gpus": 16, "sim.sample_interval": "15min"}) as sim:
            self.assertEqual(sim.get("site.pue"), 1.2)
            self.assertEqual(sim.get("load.a.gpus"), 16)
            self.assertIsInstance(sim.get("load.a.gpus"), int)
            self.assertEqual(sim.get("sim.sample_interval"), 900.0)
            self.assertEqual(sim["site.pue"], 1.2)
            sim["site.pue"] = 1.4
            self.assertEqual(sim.get("site.pue"), 1.4)
            sim.update({"site.pue": 1.1}, site__gpus_per_rack=16)
            self.assertEqual(sim.get("site.gpus_per_rack"), 16)
            self.assertEqual(sim.get("load.a.profile"), "0:10kW, 2h:2kW")

    def test_seed_semantics(self):
        # None keeps the scenario's seed; a given seed overrides it
        text = "[sim]\nseed = 42\n"
        with aiw.Simulation(text) as sim:
            self.assertEqual(sim.get("sim.seed"), 42)
        with aiw.Simulation(text, seed=7) as sim:
            self.assertEqual(sim.get("sim.seed"), 7)
        with aiw.Simulation() as sim:
            self.assertEqual(sim.get("sim.seed"), 1)
        big = 2 ** 64 - 1  # past 2**53: set and read as text, exactly
        with aiw.Simulation(seed=big) as sim:
            self.assertEqual(sim.get("sim.seed"), big)

    def test_load_file_text_and_pathlike(self):
        import pathlib
        with tempfile.TemporaryDirectory() as d:
            p = pathlib.Path(d) / "s.ini"
            p.write_text(aiwtest.SCRIPTED)
            for src in (str(p), p, aiwtest.SCRIPTED, aiwtest.SCRIPTED.encode()):
                with aiw.Simulation(src) as sim:
                    sim.run()
                    self.assertAlmostEqual(sim.metric("site.energy_kwh"), 46.0, places=9)

    def test_values_of_each_type(self):
        with aiw.Simulation() as sim:
            sim.set("training.t.jitter", "lognormal(0,0.03)")
            self.assertIn("lognormal", sim.get("training.t.jitter"))
            sim.set("training.t.allreduce", "ring")
            self.assertEqual(sim.get("training.t.allreduce"), "ring")
            sim.set("training.t.checkpoint_interval", "auto")
            self.assertEqual(sim.get("training.t.checkpoint_interval"), "auto")
            sim.set("sim.duration", "2d")
            self.assertEqual(sim.get("sim.duration"), 172800.0)

    def test_numpy_scalars_and_bools(self):
        with aiw.Simulation() as sim:
            if _arrays.np is not None:
                np = _arrays.np
                sim.set("site.gpus_per_rack", np.int64(16))
                sim.set("site.pue", np.float32(1.25))
                self.assertEqual(sim.get("site.gpus_per_rack"), 16)
                self.assertEqual(sim.get("site.pue"), 1.25)
            if not aiwtest.has_params("inference.NAME.modulate"):  # a bool parameter
                sim.set("inference.chat.modulate", True)
                self.assertIs(sim.get("inference.chat.modulate"), True)
                sim.set("inference.chat.modulate", False)
                self.assertIs(sim.get("inference.chat.modulate"), False)

    def test_repr_and_context(self):
        sim = aiw.Simulation(aiwtest.SCRIPTED)
        with sim as s:
            self.assertIs(s, sim)
            self.assertIn("t=0 s", repr(sim))
        self.assertTrue(sim.closed)


class Curves(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        cls.sim = aiw.Simulation(aiwtest.SCRIPTED)
        cls.sim.run()

    @classmethod
    def tearDownClass(cls):
        cls.sim.close()

    def test_known_curve(self):
        t, v = self.sim.series("site.power_w")
        self.assertEqual(list(t), [1800.0 * (i + 1) for i in range(8)])
        # by hand (tests/unit/test_series.c): a 10 kW then 2 kW, b 2/8/4 kW
        self.assertEqual(list(v), [12e3, 12e3, 18e3, 18e3, 10e3, 10e3, 6e3, 6e3])
        self.assertEqual(self.sim.series_unit("site.power_w"), "W")
        self.assertEqual(self.sim.series_length("site.power_w"), 8)

    def test_series_equals_csv_writer(self):
        names = self.sim.series_names()
        self.assertIn("site.power_w", names)
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "out.csv")
            self.sim.write_csv(path)
            with open(path, newline="") as f:
                rows = list(csv.reader(f))
        header, body = rows[0], rows[1:]
        self.assertEqual(header[0], "time_s")
        cols = [h.rsplit(" [", 1)[0] for h in header[1:]]
        units = [h.rsplit(" [", 1)[1].rstrip("]") for h in header[1:]]
        self.assertEqual(cols, names)
        for j, name in enumerate(names):
            t, v = self.sim.series(name)
            self.assertEqual(units[j], self.sim.series_unit(name) or "1")
            csv_t = [float(r[0]) for r in body]
            csv_v = [float(r[j + 1]) if r[j + 1] != "" else float("nan") for r in body]
            # %.17g text round-trips doubles exactly: no tolerance
            self.assertTrue(_exact_equal(list(t), csv_t), name)
            self.assertTrue(_exact_equal(list(v), csv_v), name)

    def test_metrics_equal_json_writer(self):
        m = self.sim.metrics()
        self.assertEqual(m["site.energy_kwh"], self.sim.metric("site.energy_kwh"))
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "out.json")
            self.sim.write_json(path)
            with open(path) as f:
                doc = json.load(f)
        self.assertEqual(doc["seed"], 1)
        for name, value in doc["metrics"].items():
            if value is None:
                self.assertTrue(math.isnan(m[name]), name)
            else:
                self.assertEqual(m[name], value, name)
        self.assertEqual(set(doc["metrics"]), set(m))
        self.assertAlmostEqual(m["site.energy_kwh"], 46.0, places=12)
        self.assertEqual(m["site.power_peak_w"], 18000.0)

    def test_numpy_and_array_paths_agree(self):
        t1, v1 = self.sim.series("site.utilization")
        saved = _arrays.np
        _arrays.np = None
        try:
            t2, v2 = self.sim.series("site.utilization")
        finally:
            _arrays.np = saved
        self.assertIsInstance(t2, array)
        self.assertEqual(t2.typecode, "d")
        self.assertEqual(list(t1), list(t2))
        self.assertEqual(list(v1), list(v2))
        if saved is not None:
            self.assertEqual(t1.dtype.name, "float64")

    def test_warnings(self):
        # site.capacity below the facility peak (40 kW x PUE 1.3 = 52 kW):
        # the run succeeds and says so; reset() clears it
        sim = aiw.Simulation("[sim]\nduration = 1h\n[load a]\nprofile = 0:40kW\n"
                             "[site]\ncapacity = 50kW\n")
        self.assertEqual(sim.warnings(), [])
        sim.run()
        w = sim.warnings()
        self.assertEqual(len(w), 1)
        self.assertIn("site.capacity 50 kW exceeded: facility power peak 52 kW", w[0])
        self.assertLess(sim.metric("site.capacity_headroom_w"), 0)
        sim.reset()
        self.assertEqual(sim.warnings(), [])
        sim.close()

    def test_grid_statistics(self):
        # a 2 MW square wave of period 2 s at 100 ms: its 1 s ramp is 2 MW/s,
        # its spectrum peaks at 0.5 Hz (segments of 200 samples: 0.05 Hz
        # bins), and the band 0.1-20 Hz is seen up to 5 Hz only (warned)
        with aiw.Simulation("[sim]\nduration = 200s\nsample_interval = 100ms\n"
                            "[site]\ngrid = on\ngrid_welch_segment = 200\n"
                            "[load sq]\nprofile = 0:2MW, 1s:0W\nperiod = 2s\n") as sim:
            sim.run()
            self.assertAlmostEqual(sim.metric("site.grid_ramp_1_max_w_per_s"), 2e6, delta=1e-3)
            self.assertAlmostEqual(sim.metric("site.grid_dominant_frequency_hz"), 0.5, places=12)
            self.assertAlmostEqual(sim.metric("site.grid_band_rms_w"), 1e6, delta=1e-3)
            self.assertTrue(any("resolves up to 5 Hz" in w for w in sim.warnings()))
            self.assertEqual(aiw.metric_info("site.grid_ramp_1_max_w_per_s").unit, "W/s")
            # the spectrum itself: 101 bins 0.05 Hz apart, the highest above
            # 0 Hz at the dominant frequency, Parseval: the bins above 0 Hz
            # times the bin width hold the wave's variance, A^2 = 1e12 W^2
            f, p = sim.grid_spectrum()
            self.assertEqual(len(f), 101)
            self.assertEqual(len(p), 101)
            self.assertAlmostEqual(f[1], 0.05, places=15)
            k = max(range(1, 101), key=lambda i: p[i])
            self.assertEqual(f[k], sim.metric("site.grid_dominant_frequency_hz"))
            self.assertAlmostEqual(sum(p[1:]) * f[1] / 1e12, 1, places=9)
        with aiw.Simulation("[sim]\nduration = 10s\n[load sq]\nprofile = 0:2MW\n") as sim:
            sim.run()
            with self.assertRaises(aiw.errors.StateError):
                sim.grid_spectrum()

    def test_empty_before_run(self):
        with aiw.Simulation(aiwtest.SCRIPTED) as sim:
            self.assertEqual(sim.series_names(), [])
            self.assertEqual(sim.metrics(), {})

    def test_to_pandas(self):
        try:
            import pandas  # noqa: F401
        except ImportError:
            with self.assertRaises(ImportError) as cm:
                self.sim.to_pandas()
            self.assertIn("pandas", str(cm.exception))
            self.skipTest("pandas is not installed (Debian: python3-pandas)")
        df = self.sim.to_pandas()
        self.assertEqual(list(df.columns), self.sim.series_names())
        self.assertEqual(list(df["site.power_w"]), list(self.sim.series("site.power_w")[1]))
        self.assertEqual(df.attrs["units"]["site.power_w"], "W")

    def test_metrics_to_pandas(self):
        try:
            import pandas  # noqa: F401
        except ImportError:
            with self.assertRaises(ImportError) as cm:
                self.sim.metrics_to_pandas()
            self.assertIn("pandas", str(cm.exception))
            self.skipTest("pandas is not installed (Debian: python3-pandas)")
        df = self.sim.metrics_to_pandas()
        m = self.sim.metrics()
        self.assertEqual(list(df.index), list(m))
        for name, v in m.items():
            self.assertEqual(df.loc[name, "value"], v)
        self.assertEqual(df.loc["site.power_peak_w", "unit"], "W")
        self.assertEqual(df.loc["site.power_peak_w", "component"], "")
        self.assertEqual(df.loc["site.power_peak_w", "kind"], "site")

    def test_other_writers(self):
        with tempfile.TemporaryDirectory() as d:
            svg = os.path.join(d, "o.svg")
            self.sim.write_svg(svg, title="scripted loads")
            with open(svg) as f:
                self.assertIn("<svg", f.read(200))
            prom = os.path.join(d, "o.prom")
            self.sim.write_prometheus(prom)
            with open(prom) as f:
                self.assertIn("aiworkload_site_", f.read())
            html = os.path.join(d, "o.html")
            self.sim.write_html(html)
            with open(html) as f:
                text = f.read()
            self.assertTrue(text.startswith("<!DOCTYPE html>"))
            for name in self.sim.series_names():
                self.assertIn('{"name":"%s"' % name, text)
            with self.assertRaises(OSError):
                self.sim.write_html(os.path.join(d, "no", "such", "o.html"))
            om = os.path.join(d, "o.om")
            self.sim.write_openmetrics(om, start=1.8e9)
            with open(om) as f:
                lines = f.read().splitlines()
            self.assertEqual(lines[-1], "# EOF")
            t, p = self.sim.series("site.power_w")
            last = [x for x in lines if x.startswith("site_power_watts ")][-1].split()
            self.assertEqual(float(last[1]), p[-1])
            self.assertAlmostEqual(float(last[2]), 1.8e9 + t[-1], places=3)
            with self.assertRaises(ValueError):
                self.sim.write_openmetrics(om, start=-1)


class Stepping(unittest.TestCase):

    def _curves(self, sim):
        return {n: tuple(map(list, sim.series(n))) for n in sim.series_names()}

    def test_run_until_steps_equal_one_run(self):
        with aiw.Simulation(aiwtest.SCRIPTED, **{"sim.duration": "4000s"}) as a, \
                aiw.Simulation(aiwtest.SCRIPTED, **{"sim.duration": "4000s"}) as b:
            a.run()
            for t in range(0, 3600, 333):
                b.run_until(t)
                self.assertEqual(b.now, float(t))
            b.run_until("1h")
            self.assertEqual(b.now, 3600.0)
            b.run()
            self.assertEqual(self._curves(a), self._curves(b))
            self.assertEqual(a.metrics(), b.metrics())

    def test_schedule_order_and_time(self):
        with aiw.Simulation(aiwtest.SCRIPTED) as sim:
            seen = []
            sim.schedule(60, lambda s, t: seen.append(("b", t)))
            sim.schedule("30s", lambda s, t: seen.append(("a", t)))
            sim.schedule(60, lambda s, t: seen.append(("c", t)))  # FIFO at equal times

            def chain(s, t):
                seen.append(("d", t, s.now))
                s.schedule(t + 10, lambda s2, t2: seen.append(("e", t2)))

            sim.schedule(100, chain)
            h = sim.schedule(50, lambda s, t: seen.append(("cancelled", t)))
            sim.cancel(h)
            with self.assertRaises(aiw.UnknownName):
                sim.cancel(h)
            sim.run()
            self.assertEqual(seen, [("a", 30.0), ("b", 60.0), ("c", 60.0), ("d", 100.0, 100.0),
                                    ("e", 110.0)])
            self.assertEqual(sim._events, {})
            with self.assertRaises(aiw.OutOfRange):
                sim.schedule(10, lambda s, t: None)  # in the past

    def test_reset_drops_callbacks(self):
        with aiw.Simulation(aiwtest.SCRIPTED) as sim:
            seen = []
            sim.schedule(10, lambda s, t: seen.append(t))
            sim.reset()
            self.assertEqual(sim.pending, 0)
            self.assertEqual(sim._events, {})
            sim.run()
            self.assertEqual(seen, [])
            # after a reset the run reproduces the first bit for bit
            first = self._curves(sim)
            sim.reset()
            sim.run()
            self.assertEqual(self._curves(sim), first)


class Streaming(unittest.TestCase):
    """The sample callback sees every point, the same as the curves of a run
    that keeps them all; sim.series_keep keeps the last points only."""

    def _streamed(self, **params):
        rows = []
        with aiw.Simulation(aiwtest.SCRIPTED, **params) as sim:
            sim.set_sample_callback(lambda s, t, values: rows.append((t, values)))
            sim.run()
            names = sim.series_names()
            curves = {n: tuple(map(list, sim.series(n))) for n in names}
            metrics = sim.metrics()
        return rows, names, curves, metrics

    def test_callback_equals_curves(self):
        rows, names, curves, _ = self._streamed()
        self.assertEqual(len(rows), 8)
        for i, n in enumerate(names):
            t, v = curves[n]
            self.assertEqual([r[0] for r in rows], t)
            self.assertTrue(_exact_equal([r[1][i] for r in rows], v), n)

    def test_series_keep_is_the_tail(self):
        rows, names, curves, metrics = self._streamed()
        rows3, names3, curves3, metrics3 = self._streamed(**{"sim.series_keep": 3})
        self.assertEqual(names, names3)
        self.assertEqual(len(rows3), len(rows))
        for a, b in zip(rows, rows3):
            self.assertTrue(a[0] == b[0] and _exact_equal(a[1], b[1]))
        for n in names:
            t, v = curves[n]
            t3, v3 = curves3[n]
            self.assertEqual(t3, t[-3:])
            self.assertTrue(_exact_equal(v3, v[-3:]), n)
        self.assertEqual(set(metrics), set(metrics3))
        self.assertTrue(all(_exact_equal([metrics[k]], [metrics3[k]]) for k in metrics))
        with aiw.Simulation(aiwtest.SCRIPTED) as sim:
            with self.assertRaises(aiw.OutOfRange):
                sim.set("sim.series_keep", -1)
            sim.set("sim.series_keep", "all")
            self.assertEqual(sim.get_text("sim.series_keep"), "all")

    def test_remove_reenter_and_raise(self):
        with aiw.Simulation(aiwtest.SCRIPTED) as sim:
            seen = []
            sim.set_sample_callback(lambda s, t, v: seen.append(t))
            sim.set_sample_callback(None)
            sim.run()
            self.assertEqual(seen, [])
            sim.reset()

            def reenter(s, t, values):
                seen.append(t)
                s.run()

            sim.set_sample_callback(reenter)
            with self.assertRaises(aiw.StateError):
                sim.run()
            self.assertEqual(len(seen), 1)  # the run stops at the failing tick
            sim.reset()

            def raising(s, t, values):
                raise KeyError("from the sample callback")

            sim.set_sample_callback(raising)
            with self.assertRaises(KeyError):
                sim.run()
            sim.reset()
            sim.set_sample_callback(None)
            sim.run()
            self.assertEqual(sim.now, 4 * 3600.0)


class CoSimulation(unittest.TestCase):
    """A driver loop that changes a runtime parameter between run_until steps
    gives exactly the result of one run with the same change scheduled."""

    T_CHANGE = 3600.5  # between sample ticks and between any other events

    def _equivalent(self, scenario, name, value):
        with aiw.Simulation(scenario) as loop, aiw.Simulation(scenario) as sched:
            loop.run_until(self.T_CHANGE)
            loop.set(name, value)
            loop.run()
            sched.schedule(self.T_CHANGE, lambda s, t: s.set(name, value))
            sched.run()
            with aiw.Simulation(scenario) as unchanged:
                unchanged.run()
                base = unchanged.metrics()
            a, b = loop.metrics(), sched.metrics()
            self.assertEqual(set(a), set(b))
            # the scheduled driver callback is one more engine event
            self.assertEqual(b.pop("sim.events"), a.pop("sim.events") + 1)
            diff = [k for k in a if not _exact_equal([a[k]], [b[k]])]
            self.assertEqual(diff, [], "metrics differ: %s" % [(k, a[k], b[k]) for k in diff])
            for n in loop.series_names():
                ta, va = loop.series(n)
                tb, vb = sched.series(n)
                self.assertTrue(_exact_equal(list(ta), list(tb)) and
                                _exact_equal(list(va), list(vb)), n)
            # and the change did change something
            changed = [k for k in a if k in base and not _exact_equal([a[k]], [base[k]])]
            self.assertTrue(changed, "setting %s = %r changed no metric" % (name, value))
            return a

    def test_inference_replicas(self):
        missing = aiwtest.has_params("inference.NAME.replicas", "inference.NAME.rate")
        if missing:
            self.skipTest("the inference model does not declare %s yet" % ", ".join(missing))
        scenario = ("[sim]\nduration = 2h\nsample_interval = 1min\nseed = 5\n"
                    "[inference chat]\ngpu = H100-SXM\ngpus_per_replica = 1\n"
                    "model_params = 8e9\ntraffic = poisson\nrate = 4/s\nreplicas = 2\n"
                    "prompt_tokens = lognormal(median=512,sigma=0.5)\noutput_tokens = lognormal(median=128,sigma=0.5)\n")
        m = self._equivalent(scenario, "inference.chat.replicas", 4)
        self.assertGreater(m["inference.chat.requests_arrived"], 0)

    def test_training_slow_gpus(self):
        missing = aiwtest.has_params("training.NAME.slow_gpus", "training.NAME.jitter")
        if missing:
            self.skipTest("the training model does not declare %s yet" % ", ".join(missing))
        scenario = ("[sim]\nduration = 2h\nsample_interval = 1min\nseed = 5\n"
                    "[training t]\ngpus = 256\njitter = lognormal(0,0.03)\n"
                    "step_compute = 2s\n")
        self._equivalent(scenario, "training.t.slow_gpus", 1)



class Capacity(unittest.TestCase):
    """aiw_inference_capacity: the offline figure of an M/D/4 fleet is 4 / 2 s
    exactly; settings reach the call and bad ones name themselves."""
    MDC = ("[inference q]\nreplicas = 4\nservice = const(2s)\nbatching = none\n"
           "router = central\n")

    def test_offline_exact_and_search(self):
        seen = []
        with aiw.Simulation(self.MDC) as sim:
            r = sim.inference_capacity("q", progress=lambda *a: seen.append(a),
                                       offline_requests=4000, min_requests=1000,
                                       duration="100s", ttft_p99="2.5s", tpot_p99="none")
        self.assertEqual(r["offline_requests_per_s"], 2.0)
        self.assertEqual(r["offline_makespan_s"], 2000.0)
        self.assertGreater(r["server_rate"], 0)
        self.assertLessEqual(r["server_resolution"], 0.01)
        self.assertEqual(len(seen), r["runs"])
        self.assertEqual(seen[0][3], -1)

    def test_seeds(self):
        # M/D/4: the offline rate is 2/s at every seed; the server rates'
        # mean lies within their min and max, the median seed's is reported
        seen = []
        with aiw.Simulation(self.MDC) as sim:
            r = sim.inference_capacity("q", progress=lambda *a: seen.append(a),
                                       offline_requests=4000, min_requests=1000,
                                       duration="100s", ttft_p99="2.5s", tpot_p99="none",
                                       seeds=3)
        self.assertEqual(r["seeds"], 3)
        self.assertEqual(r["offline_requests_per_s_mean"], 2.0)
        self.assertEqual(r["offline_requests_per_s_sd"], 0.0)
        self.assertLessEqual(r["server_rate_min"], r["server_rate_mean"])
        self.assertLessEqual(r["server_rate_mean"], r["server_rate_max"])
        self.assertLess(r["server_rate_ci_lo"], r["server_rate_mean"])
        self.assertGreater(r["server_rate_ci_hi"], r["server_rate_mean"])
        self.assertLessEqual(r["server_rate_min"], r["server_rate"])
        self.assertLessEqual(r["server_rate"], r["server_rate_max"])
        self.assertEqual(len(seen), r["runs"])
        self.assertEqual(seen[0][1], 3 * 40)

    def test_bad_setting_named(self):
        with aiw.Simulation(self.MDC) as sim:
            with self.assertRaises(aiw.OutOfRange) as cm:
                sim.inference_capacity(resolution=2)
            self.assertIn("resolution = 2", str(cm.exception))
            with self.assertRaises(aiw.OutOfRange) as cm:
                sim.inference_capacity(seeds=0)
            self.assertIn("seeds = 0 (seeds measured) out of range: an integer from 1 to 1000",
                          str(cm.exception))
            with self.assertRaises(aiw.Stopped):
                sim.inference_capacity(offline_requests=100, min_requests=100,
                                       progress=lambda *a: True)


if __name__ == "__main__":
    unittest.main()
