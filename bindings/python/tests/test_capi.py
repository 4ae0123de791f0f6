"""The signature table against the public header, loading and the version
check, status codes -> exception classes, and one call of every public C
function through the Pythonic layer."""

import os
import subprocess
import sys
import tempfile
import unittest

import aiworkload
from aiworkload import _capi, errors, functions, registry

import aiwtest

# Arguments of one valid call of each plain (pure) function.  A new pure C
# function fails test_every_function_called until it has an entry here.
EXAMPLE_ARGS = {
    "aiw_catalog_gpu_count": (),
    "aiw_catalog_gpu_name": (0,),
    "aiw_catalog_gpu_value": ("H100-SXM", "tdp_w"),
    "aiw_catalog_gpu_source": ("MI300X", "attn_eff"),
    "aiw_catalog_gpu_field": (0,),
    "aiw_catalog_link_count": (),
    "aiw_catalog_link_name": (0,),
    "aiw_catalog_link_value": (None, "bw"),  # None: the first link's name
    "aiw_catalog_link_field": (0,),
    "aiw_size_training_preset": ("mixed_adam",),
    "aiw_size_training_preset_name": (0,),
    "aiw_size_training_memory": (70e9, 12),
    "aiw_size_activations": (80, 4096, 1, 8192, 64, 8, "selective"),
    "aiw_size_activations_per_gpu": (80, 4096, 1, 8192, 64, 8, 1, 4, 1, 32, "selective"),
    "aiw_size_zero_state": (7.5e9, 64, 1, 2, 2, 12),
    "aiw_size_inference_weights": (70e9, 16),
    "aiw_size_kv_cache": (80, 8, 128, 16, 4096, 1),
    "aiw_size_max_sequences": (80e9, 14e9, 1.34e9, 0.1),
    "aiw_size_min_gpus": ("H100-SXM", 840e9, 0.1),
    "aiw_size_training_flops": (405e9, 15.6e12),
    "aiw_size_training_time": (3.8e25, "H100-SXM", 16384, 0.4),
    "aiw_allreduce_time": ("ring", 1e9, 8, 8, 5.7e-6, 450e9, 9.6e-6, 50e9, 1.0),
    "aiw_busbw": (1e9, 8, 0.01),
    "aiw_profile_term_name": (0,),
    "aiw_param_mode": (0,),
}


# a small site for aiw_site_diversity_sweep (the built-in one takes seconds)
SWEEP_SCENARIO = ("[sim]\nduration = 2h\nsample_interval = 5min\n"
                  "[training t]\ngpus_per_node = 8\nstep_compute = 1s\nmemory_check = warn\n"
                  "[inference chat]\ngpus_per_replica = 1\nmodel_params = 8e9\nrate = 1/s\n")


class HeaderTable(unittest.TestCase):
    """The one signature table covers the header, exactly."""

    @classmethod
    def setUpClass(cls):
        path = aiwtest.header_path()
        if not os.path.exists(path):
            raise unittest.SkipTest("no header at %s (installed package, not a source tree)"
                                    % path)
        cls.header = aiwtest.parse_header(path)

    def test_header_parsed(self):
        # the parser must see the long-standing functions, else it is broken
        for name in ("aiw_sim_create", "aiw_sim_series_copy", "aiw_param_info"):
            self.assertIn(name, self.header)
        self.assertGreater(len(self.header), 40)

    def test_every_public_function_in_table(self):
        missing = [n for n in self.header if n not in _capi.SIGNATURES]
        self.assertEqual(missing, [], "public functions of %s missing from the binding's "
                         "signature table (bindings/python/aiworkload/_capi.py SIGNATURES): %s"
                         % (aiwtest.header_path(), ", ".join(missing)))

    def test_no_stale_table_entries(self):
        stale = [n for n in _capi.SIGNATURES if n not in self.header]
        self.assertEqual(stale, [], "table entries not in the header: %s" % stale)

    def test_callback_typedefs_known(self):
        unknown = [t for t in aiwtest.callback_typedefs() if t not in _capi.CALLBACK_TYPES]
        # aiw_sweep_fn etc. need a CFUNCTYPE in _capi.CALLBACK_TYPES once used
        used = {t for _, args in self.header.values() for t, _ in args}
        self.assertEqual([t for t in unknown if t in used], [],
                         "callback typedefs without a CFUNCTYPE in _capi.CALLBACK_TYPES")

    def test_signatures_match_prototypes(self):
        problems = []
        for name, (ret, args) in self.header.items():
            if name not in _capi.SIGNATURES:
                continue
            restype, targs = _capi.SIGNATURES[name]
            if ret not in aiwtest.C_TO_CTYPES:
                problems.append("%s: return type %r has no ctypes mapping in tests" % (name, ret))
            elif aiwtest.C_TO_CTYPES[ret] is not restype:
                problems.append("%s returns %s, table says %s" % (
                    name, ret, aiwtest.ctype_name(restype)))
            if len(args) != len(targs):
                problems.append("%s: %d arguments in the header, %d in the table" % (
                    name, len(args), len(targs)))
                continue
            for (ctext, cname), (tname, ttype) in zip(args, targs):
                if ctext not in aiwtest.C_TO_CTYPES:
                    problems.append("%s(%s): C type %r has no ctypes mapping" % (
                        name, cname, ctext))
                elif aiwtest.C_TO_CTYPES[ctext] is not ttype:
                    problems.append("%s(%s): %s in the header, %s in the table" % (
                        name, cname, ctext, aiwtest.ctype_name(ttype)))
                if cname != tname:
                    problems.append("%s: argument %r is named %r in the table" % (
                        name, cname, tname))
        self.assertEqual(problems, [], "\n".join(problems))

    def test_library_exports_every_table_function(self):
        lib = _capi.load()
        self.assertEqual(lib.missing, [], "the loaded library %s lacks %s" % (
            lib.path, lib.missing))


class Loading(unittest.TestCase):

    def test_version_matches_package_abi(self):
        info = aiworkload.library_info()
        v = info["version_number"]
        self.assertEqual(v >> 16, _capi.ABI_MAJOR)
        self.assertGreaterEqual((v >> 8) & 255, _capi.ABI_MINOR)
        self.assertEqual(info["version"], "%d.%d.%d" % (v >> 16, (v >> 8) & 255, v & 255))
        self.assertTrue(os.path.exists(info["path"]) or "/" not in info["path"])

    def test_compatibility_rule(self):
        M, m = _capi.ABI_MAJOR, _capi.ABI_MINOR
        self.assertTrue(_capi._compatible((M << 16) | (m << 8) | 7))
        self.assertTrue(_capi._compatible((M << 16) | ((m + 3) << 8)))
        self.assertFalse(_capi._compatible(((M + 1) << 16) | (m << 8)))
        if m > 0:
            self.assertFalse(_capi._compatible((M << 16) | ((m - 1) << 8)))

    def _import_with(self, env_value):
        env = dict(os.environ, AIWORKLOAD_LIBRARY=env_value)
        code = "import aiworkload; aiworkload.library_version()"
        return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                              text=True, timeout=60)

    def test_bad_env_library_is_a_clear_error(self):
        r = self._import_with("/nonexistent/libaiworkload.so")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("LibraryError", r.stderr)
        self.assertIn("AIWORKLOAD_LIBRARY=/nonexistent/libaiworkload.so", r.stderr)
        self.assertIn("no such file", r.stderr)

    def test_wrong_library_is_a_clear_error(self):
        import ctypes.util
        libm = ctypes.util.find_library("m")
        if not libm:
            self.skipTest("no libm to stand in for a wrong library")
        r = self._import_with(libm)
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("has no aiw_version()", r.stderr)

    def test_missing_symbol_raises_not_supported(self):
        f = _capi._missing("aiw_future_thing", "/x/libaiworkload.so", 0x000100)
        with self.assertRaises(aiworkload.NotSupported) as cm:
            f(1, 2)
        self.assertIn("aiw_future_thing is not exported by /x/libaiworkload.so (version 0.1.0)",
                      str(cm.exception))


class StatusCodes(unittest.TestCase):

    def test_every_status_has_a_class(self):
        # walk the library's codes until it no longer knows one
        known = []
        code = -1
        while True:
            name = aiworkload.status_name(code)
            if name == "AIW_UNKNOWN_STATUS":
                break
            known.append(name)
            code -= 1
        self.assertGreaterEqual(len(known), 12)
        for name in known:
            cls = errors.error_class(name)
            self.assertIsNot(cls, aiworkload.AiwError,
                             "status %s has no AiwError subclass in errors.py" % name)
        self.assertEqual(aiworkload.status_name(0), "AIW_OK")
        self.assertEqual(aiworkload.strerror(-1), "invalid argument")
        self.assertEqual(aiworkload.strerror(-12345), "unknown status code")

    def test_classes_by_code(self):
        expect = {-1: aiworkload.InvalidArgument, -2: aiworkload.OutOfMemory,
                  -3: aiworkload.UnknownName, -4: aiworkload.OutOfRange,
                  -5: aiworkload.ParseError, -6: aiworkload.ScenarioError,
                  -7: aiworkload.IOError_, -8: aiworkload.StateError,
                  -9: aiworkload.LimitError, -10: aiworkload.BufferError_,
                  -11: aiworkload.Stopped, -12: aiworkload.NotSupported}
        for code, cls in expect.items():
            e = _capi.make_error(code, "msg", "f")
            self.assertIs(type(e), cls)
            self.assertEqual(e.status, code)
            self.assertTrue(e.status_name.startswith("AIW_E"))
        self.assertIs(aiworkload.InvalidParameter, aiworkload.InvalidArgument)
        self.assertTrue(issubclass(aiworkload.OutOfRange, ValueError))
        self.assertTrue(issubclass(aiworkload.UnknownName, LookupError))
        self.assertTrue(issubclass(aiworkload.IOError_, OSError))


class _Recorder(object):
    """Stands in for _capi.lib and notes which C functions were called."""

    def __init__(self, real):
        self._real = real
        self.called = set()

    def __getattr__(self, name):
        attr = getattr(self._real, name)
        if name.startswith("aiw_"):
            called = self.called

            def call(*a):
                called.add(name)
                return attr(*a)
            return call
        return attr


class EveryFunction(unittest.TestCase):
    """Each public C function is reachable from Python: one call each."""

    def test_every_function_called(self):
        real = _capi.load()
        rec = _Recorder(real)
        _capi.lib = rec
        registry._all.cache_clear()
        registry._all_metrics.cache_clear()
        try:
            self._exercise()
        finally:
            _capi.lib = real
            registry._all.cache_clear()
            registry._all_metrics.cache_clear()
        missing = [n for n in _capi.SIGNATURES if n not in rec.called]
        self.assertEqual(missing, [], "not called through the Python layer: %s" % missing)

    def _exercise(self):
        self.assertIn("[inference chat]", aiworkload.default_scenario())
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "p.csv")
            with open(path, "w") as f:
                f.write("phase,gpu,tp,batch,prompt,context,time_s\n")
                for tp in (2, 8):
                    for b in (1, 4, 16):
                        for c in (256, 2048):
                            f.write("decode,H100-SXM,%d,%d,0,%d,%g\n"
                                    % (tp, b, c, 0.02 + 0.01 / tp + 1e-4 * b + 1e-7 * b * c))
            p = aiworkload.Profile(path, layers=80)
            self.assertEqual(p.groups(), [("H100-SXM", "H100-SXM")])
            fit = p.fit("H100-SXM", "decode")
            self.assertIn("overhead", fit)
            self.assertGreater(p.predict(0, fit), 0)
            self.assertGreater(p.datasheet("H100-SXM", "decode")["gemm"], 1)
            self.assertEqual(len(p.rows()), 12)
            self.assertEqual(p.errmsg(), "")
            with self.assertRaises(errors.AiwError):
                p.set("no_such_setting", 1)
            p.close()
        scen = ("[sim]\nduration = 30s\n[inference chat]\nmodel_params = 8e9\n"
                "gpus_per_replica = 1\ntraffic = poisson\nrate = 2/s\n")
        with aiworkload.Plan(scen, "chat", ttft_p99="2s") as plan:
            plan.grid("replicas", "1..2")
            plan.run(progress=lambda done, total: False)
            self.assertEqual(len(plan.rows()), plan.stats()["rows"])
            self.assertEqual(plan.verdict(), "")
            self.assertEqual(plan.errmsg(), "")
            with tempfile.TemporaryDirectory() as d:
                plan.write_csv(os.path.join(d, "plan.csv"))
                plan.write_html(os.path.join(d, "plan.html"))
            whole = plan.rows()
        parts = []
        merged = None
        for k in range(2):  # the grid in two parts, merged on the second plan
            p = aiworkload.Plan(scen, "chat", ttft_p99="2s")
            p.grid("replicas", "1..2")
            parts.append(p.run_part(k, 2))
            if merged:
                merged.close()
            merged = p
        merged.merge(parts)
        self.assertEqual(repr(merged.rows()), repr(whole))  # NaN columns: by text
        merged.close()
        aiworkload.strerror(-1)
        aiworkload.status_name(-1)
        aiworkload.library_info()  # aiw_version, aiw_version_string
        aiworkload.params()  # aiw_param_count, aiw_param_info
        aiworkload.param_info("site.pue")  # aiw_param_find
        aiworkload.metrics()  # aiw_metric_count, aiw_metric_info
        self.assertIn("site.power_w", [c.name for c in aiworkload.curves()])  # aiw_curve_*
        self.assertEqual(aiworkload.parse_value("duration", "90d"), 90 * 86400.0)
        with tempfile.TemporaryDirectory() as d:
            m = os.path.join(d, "m.csv")
            with open(m, "w") as f:
                f.write("time,ready,metric\n0,2,0.9\n")
            self.assertEqual(aiworkload.autoscale_replay("hpa", m, ["replicas=2"]), 1)
        with tempfile.TemporaryDirectory() as d:
            ini = os.path.join(d, "s.ini")
            with open(ini, "w") as f:
                f.write(aiwtest.SCRIPTED)
            sim = aiworkload.Simulation(ini, seed=3)  # create, load_file, set
            sim.load(aiwtest.SCRIPTED)  # load_string
            sim.set("site.pue", 1.25)  # set_double
            self.assertEqual(sim.get("site.pue"), 1.25)  # get_double
            self.assertEqual(sim.get_text("sim.duration"), "14400")  # get
            sim.add_component("load", "c")
            self.assertIn(("load", "c"), sim.components())  # component_count, component
            self.assertEqual(sim.components()[:2], [("sim", ""), ("site", "")])
            sim.set_progress(lambda s, now, end: False, every=3600)
            sim.set_sample_callback(lambda s, t, values: None)
            h = sim.schedule(100, lambda s, t: None)
            self.assertEqual(sim.pending, 1)
            sim.cancel(h)
            sim.schedule(200, lambda s, t: None)
            sim.run_until(1000)
            self.assertEqual(sim.now, 1000.0)
            sim.run()
            sim.set_progress(None)
            with self.assertRaises(aiworkload.UnknownName):
                sim.metric("site.nothing")  # errmsg
            self.assertGreater(len(sim.metrics()), 5)  # metric_count/name, metric
            self.assertEqual(sim.warnings(), [])  # warning_count
            self.assertEqual(sim.inputs(), [])  # input_count
            names = sim.series_names()  # series_count, series_name
            sim.series_unit(names[0])
            sim.series_length(names[0])
            sim.series(names[0])  # series_copy
            sim.write_csv(os.path.join(d, "o.csv"))
            sim.write_json(os.path.join(d, "o.json"))
            sim.write_prometheus(os.path.join(d, "o.prom"))
            sim.write_promtest(os.path.join(d, "o.yml"))
            sim.write_svg(os.path.join(d, "o.svg"), "t")
            sim.write_html(os.path.join(d, "o.html"))
            sim.write_openmetrics(os.path.join(d, "o.om"), 1.8e9)
            sim.reset()
            sim.close()  # free
        with aiworkload.Simulation("[load a]\nprofile = 0:40kW\n[site]\ncapacity = 1kW\n",
                                   sim__duration=60) as sim:
            sim.run()
            self.assertEqual(len(sim.warnings()), 1)  # warning_count, warning
        with aiworkload.Simulation("[load a]\nprofile = 0:40kW, 1s:0W\nperiod = 2s\n"
                                   "[site]\ngrid = on\ngrid_welch_segment = 8\n",
                                   sim__duration=60, sim__sample_interval=1) as sim:
            sim.run()
            self.assertEqual(len(sim.grid_spectrum()[0]), 5)  # grid_spectrum
        with aiworkload.Simulation(**{"inference.q.profile": path}) as sim:
            self.assertEqual(sim.inputs(), [("inference.q.profile", path)])  # input
        with aiworkload.Simulation(**{"training.t.gpus": 64}) as sim:
            step, eff = sim.training_scaling("t", [8, 64])
            self.assertEqual(len(step), 2)
        with aiworkload.Simulation("[inference q]\nservice = const(1s)\nbatching = none\n") as sim:
            r = sim.inference_capacity(offline_requests=10, min_requests=100, max_runs=3)
            self.assertEqual(r["offline_requests_per_s"], 1.0)
        try:  # needs the training and inference models
            r = aiworkload.site_diversity_sweep(SWEEP_SCENARIO, 16, 3)
            self.assertEqual(list(r["share"]), [0.0, 0.5, 1.0])
            seen = []
            c = aiworkload.site_diversity_shares(SWEEP_SCENARIO, 16, [0.5],
                                                 progress=lambda d, t: seen.append((d, t)))
            self.assertEqual(list(c["share"]), [0.5])
            self.assertEqual(c["diversity"][0], r["diversity"][1])
            self.assertEqual(c["overloaded"][0], 0.0)
            self.assertEqual(seen, [(0, 2), (1, 2), (2, 2)])
            with self.assertRaises(aiworkload.Stopped):
                aiworkload.site_diversity_shares(SWEEP_SCENARIO, 16, [0.5, 1.0],
                                                 progress=lambda d, t: d >= 1)
        except aiworkload.NotSupported:
            pass
        with tempfile.TemporaryDirectory() as d:
            pts = os.path.join(d, "points.csv")
            with open(pts, "w") as f:
                f.write("site.pue\n1.2\n1.4\n")
            # create, set_callback, set_progress, point_file, set_replications,
            # set_metrics, set_seed, set_jobs, set_keep_going
            with aiworkload.Sweep(aiwtest.SCRIPTED, point_file=pts, replications=2,
                                  metrics=["site.energy_kwh"], seed=5, jobs=1,
                                  keep_going=False) as sw:
                sw.axis("load.a.gpus", [4, 8])
                sw.prepare()
                self.assertEqual(sw.errmsg, "")
                sw.stop()  # not running: harmless
                sw.run()
                self.assertEqual(sw.npoints, 4)
                self.assertEqual(sw.point(3), {"site.pue": 1.4, "load.a.gpus": 8})
                self.assertEqual(sw.point_status(3), ("AIW_OK", ""))
                self.assertEqual(sw.metric_names(), ["site.energy_kwh"])
                sw.task_seed(0, 1)
                v = sw.run_task(0, 1)
                self.assertEqual(v[0], sw.replication(0, 1, 0))
                self.assertEqual(sw.result(0, "site.energy_kwh")[3], 2)
                sw.write_csv(os.path.join(d, "s.csv"))
                sw.write_replications_csv(os.path.join(d, "r.csv"))
                sw.write_html(os.path.join(d, "s.html"))
                with aiworkload.Sweep(aiwtest.SCRIPTED, point_file=pts, replications=2,
                                      metrics=["site.energy_kwh"]) as dst:
                    dst.axis("load.a.gpus", [4, 8])
                    dst.prepare()
                    dst.store(0, 1, v)
        plain = functions.plain_function_names()
        no_example = [c for c in plain if c not in EXAMPLE_ARGS]
        self.assertEqual(no_example, [], "add an example call to EXAMPLE_ARGS in %s" % __file__)
        first_link = functions.links()[0]
        for cname in plain:
            args = tuple(first_link if a is None else a for a in EXAMPLE_ARGS[cname])
            getattr(aiworkload, cname[4:])(*args)


class Flags(unittest.TestCase):
    """What the library flags reaches Python: the overload warning and
    flag, a setting without effect, the parameter modes, the one built-in
    scenario."""

    def test_overloaded_fleet(self):
        ini = ("[sim]\nduration = 20min\n[inference chat]\ngpus_per_replica = 8\n"
               "replicas = 3\nmodel_params = 70e9\nrate = 60/s\n")
        with aiworkload.Simulation(ini) as sim:
            sim.run()
            self.assertEqual(sim.metric("inference.chat.overloaded"), 1.0)
            self.assertTrue(any("inference.chat is overloaded" in w for w in sim.warnings()))
        with aiworkload.Simulation(ini, **{"inference.chat.rate": "2/s"}) as sim:
            sim.run()
            self.assertEqual(sim.warnings(), [])
            self.assertNotIn("inference.chat.overloaded", sim.metrics())

    def test_setting_without_effect(self):
        with aiworkload.Simulation("[sim]\nduration = 1min\n[inference chat]\n",
                                   **{"inference.chat.mfu": 0.4}) as sim:
            sim.run()
            self.assertTrue(any("inference.chat.mfu = 0.4 has no effect" in w
                                for w in sim.warnings()), sim.warnings())
        names = [p.name for p in aiworkload.params()]
        i = names.index("inference.NAME.mfu")
        self.assertEqual(aiworkload.param_mode(i), "timing=roofline")
        self.assertEqual(aiworkload.param_mode(names.index("inference.NAME.replicas")), "")

    def test_one_builtin_scenario(self):
        text = aiworkload.default_scenario()
        path = os.path.join(os.path.dirname(__file__), "..", "..", "..", "examples",
                            "scenarios", "mixed-site.ini")
        if os.path.exists(path):
            with open(path) as f:
                self.assertEqual(text, f.read())
        self.assertIn("slo_ttft = 500ms", text)


if __name__ == "__main__":
    unittest.main()
