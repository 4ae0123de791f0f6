"""C statuses become exceptions carrying the library's message; exceptions
raised inside driver callbacks are re-raised after the C call returns."""

import traceback
import unittest

import aiworkload as aiw

import aiwtest


class StatusToException(unittest.TestCase):

    def setUp(self):
        self.sim = aiw.Simulation(aiwtest.SCRIPTED)

    def tearDown(self):
        self.sim.close()

    def test_embedded_nul_is_refused(self):
        # C would see only "1" of "1\x0099": every text argument refuses a NUL
        for value in ("1\x0099", b"1\x0099"):
            with self.assertRaises(aiw.InvalidArgument) as cm:
                self.sim.set("site.pue", value)
            self.assertEqual(cm.exception.status_name, "AIW_EINVAL")
            self.assertIn("NUL byte at offset 1", str(cm.exception))
        with self.assertRaises(aiw.InvalidArgument):
            self.sim.set("site.pue\x00x", "1.2")
        with self.assertRaises(aiw.InvalidArgument):
            aiw.parse_value("duration", "1h\x00junk")

    def test_exclusive_minimum_is_introspected(self):
        d = aiw.param_info("sim.duration")
        self.assertTrue(d.min_exclusive)
        self.assertEqual(d.min, 0)
        with self.assertRaises(aiw.OutOfRange):
            self.sim.set("sim.duration", d.min)
        self.assertFalse(aiw.param_info("site.pue").min_exclusive)
        self.sim.set("site.pue", aiw.param_info("site.pue").min)

    def test_out_of_range_names_the_parameter(self):
        with self.assertRaises(aiw.OutOfRange) as cm:
            self.sim.set("site.pue", 0.5)
        e = cm.exception
        self.assertIn("site.pue", str(e))
        self.assertIn("site.pue", e.message)
        self.assertEqual(e.status, -4)
        self.assertEqual(e.status_name, "AIW_ERANGE")
        self.assertEqual(e.function, "aiw_sim_set_double")
        self.assertEqual(e.message, self.sim.errmsg)  # the C message, verbatim
        self.assertIsInstance(e, ValueError)
        # the same through the text path
        with self.assertRaises(aiw.OutOfRange) as cm:
            self.sim.set("site.pue", "0.5")
        self.assertEqual(cm.exception.function, "aiw_sim_set")
        self.assertIn("site.pue", str(cm.exception))
        # the value did not change
        self.assertEqual(self.sim.get("site.pue"), 1.5)

    def test_unknown_name_suggests(self):
        with self.assertRaises(aiw.UnknownName) as cm:
            self.sim.set("site.peu", 1.2)
        self.assertIn("did you mean 'pue'", str(cm.exception))
        with self.assertRaises(aiw.UnknownName) as cm:
            self.sim.set("sight.pue", 1.2)
        self.assertIn("sight", str(cm.exception))
        with self.assertRaises(LookupError):
            aiw.param_info("site.nothing_like_this")

    def test_parse_error(self):
        with self.assertRaises(aiw.ParseError) as cm:
            self.sim.set("sim.duration", "ten days")
        self.assertIn("sim.duration", str(cm.exception))
        with self.assertRaises(aiw.ParseError) as cm:
            aiw.parse_value("duration", "12 parsecs")
        self.assertIn("12 parsecs", str(cm.exception))
        self.assertEqual(cm.exception.function, "aiw_parse_value")
        with self.assertRaises(aiw.UnknownName) as cm:
            aiw.parse_value("colour", "red")
        self.assertIn("unknown value kind 'colour'", str(cm.exception))

    def test_scenario_errors(self):
        with self.assertRaises(aiw.AiwError) as cm:
            self.sim.load("[site]\npue = 7\n")
        self.assertIn("pue", str(cm.exception))
        with self.assertRaises(aiw.AiwError) as cm:
            self.sim.load("[nonsense thing]\nx = 1\n")
        self.assertIn("nonsense", str(cm.exception))
        with self.assertRaises(aiw.IOError_) as cm:
            self.sim.load("/nonexistent/scenario.ini")
        self.assertIn("/nonexistent/scenario.ini", str(cm.exception))
        self.assertIsInstance(cm.exception, OSError)

    def test_io_error_on_write(self):
        self.sim.run()
        with self.assertRaises(aiw.IOError_) as cm:
            self.sim.write_csv("/nonexistent/dir/x.csv")
        self.assertIn("/nonexistent/dir/x.csv", str(cm.exception))

    def test_metric_before_run(self):
        with self.assertRaises(aiw.UnknownName) as cm:
            self.sim.metric("site.power_peak_w")
        self.assertIn("metrics exist after a run call", str(cm.exception))
        self.sim.run()
        with self.assertRaises(aiw.UnknownName) as cm:
            self.sim.metric("site.power_peek_w")
        self.assertIn("did you mean 'site.power_peak_w'", str(cm.exception))
        with self.assertRaises(aiw.UnknownName) as cm:
            self.sim.series("site.powr_w")
        self.assertIn("did you mean 'site.power_w'", str(cm.exception))

    def test_non_runtime_parameter_during_run(self):
        # `load` parameters are fixed at start: StateError with the message
        self.sim.run_until(3600)
        with self.assertRaises(aiw.StateError) as cm:
            self.sim.set("load.a.gpus", 4)
        self.assertIn("load.a.gpus cannot change during a run", str(cm.exception))
        self.sim.reset()
        self.sim.set("load.a.gpus", 4)  # fine again before the run
        self.assertEqual(self.sim.get("load.a.gpus"), 4)

    def test_pure_function_errors_name_arguments(self):
        with self.assertRaises(aiw.OutOfRange) as cm:
            aiw.size_training_memory(-1.0, 12)
        msg = str(cm.exception)
        self.assertIn("aiw_size_training_memory(params=-1.0, bytes_per_param=12", msg)
        with self.assertRaises(aiw.UnknownName) as cm:
            aiw.catalog_gpu_value("H999", "tdp_w")
        self.assertIn("gpu='H999'", str(cm.exception))
        with self.assertRaises(TypeError):
            aiw.size_training_memory(1.0)  # missing argument: Python's own error

    def test_closed_simulation(self):
        self.sim.close()
        self.sim.close()  # idempotent
        self.assertTrue(self.sim.closed)
        with self.assertRaises(aiw.StateError):
            self.sim.run()
        self.assertEqual(repr(self.sim), "<aiworkload.Simulation closed>")


class CallbackExceptions(unittest.TestCase):

    def _sim(self):
        sim = aiw.Simulation(aiwtest.SCRIPTED)
        self.addCleanup(sim.close)
        return sim

    def test_exception_in_event_is_reraised_and_stops_the_run(self):
        sim = self._sim()
        seen = []

        def bad(s, t):
            seen.append(t)
            raise ZeroDivisionError("boom at %g" % t)

        sim.schedule(1000, bad)
        sim.schedule(1001, lambda s, t: seen.append(t))  # skipped after the failure
        try:
            sim.run()
        except ZeroDivisionError as e:
            self.assertIn("boom at 1000", str(e))
            # the traceback reaches into the callback
            frames = [f.name for f in traceback.extract_tb(e.__traceback__)]
            self.assertIn("bad", frames)
        else:
            self.fail("the callback's exception was lost")
        self.assertEqual(seen, [1000.0])
        # stopped at the next sample tick (30 min), not run to the end (4 h)
        self.assertLessEqual(sim.now, 1000 + 2 * 1800)
        self.assertLess(sim.now, 4 * 3600)
        # the simulation is usable afterwards: the run goes on
        sim.run()
        self.assertEqual(sim.now, 4 * 3600.0)
        self.assertAlmostEqual(sim.metric("site.energy_kwh"), 46.0, places=9)

    def test_library_error_inside_callback(self):
        sim = self._sim()

        def change(s, t):
            s.set("load.a.gpus", 1)  # not runtime: StateError inside the callback

        sim.schedule(600, change)
        with self.assertRaises(aiw.StateError) as cm:
            sim.run()
        self.assertIn("load.a.gpus cannot change during a run", str(cm.exception))

    def test_run_from_callback_is_refused(self):
        sim = self._sim()
        sim.schedule(10, lambda s, t: s.run())
        with self.assertRaises(aiw.StateError) as cm:
            sim.run()
        self.assertIn("inside a run", str(cm.exception))

    def test_close_from_callback_is_refused(self):
        sim = self._sim()
        sim.schedule(10, lambda s, t: s.close())
        with self.assertRaises(aiw.StateError):
            sim.run()
        self.assertFalse(sim.closed)

    def test_progress_stop_and_exception(self):
        sim = self._sim()
        calls = []

        def prog(s, now, end):
            calls.append((now, end))
            return now >= 3600

        sim.set_progress(prog, every=1800)
        with self.assertRaises(aiw.Stopped) as cm:
            sim.run()
        self.assertIn("stopped by the progress callback", str(cm.exception))
        self.assertEqual(calls[0][1], 4 * 3600.0)
        self.assertGreaterEqual(sim.now, 3600)
        self.assertLess(sim.now, 4 * 3600)

        sim.reset()

        def raising(s, now, end):
            raise KeyError("from progress")

        sim.set_progress(raising, every=1800)
        with self.assertRaises(KeyError):
            sim.run()
        sim.set_progress(None)
        sim.run()
        self.assertEqual(sim.now, 4 * 3600.0)

    def test_exception_after_failure_with_user_progress_restored(self):
        sim = self._sim()
        ticks = []
        sim.set_progress(lambda s, now, end: ticks.append(now), every=1800)
        sim.schedule(100, lambda s, t: 1 / 0)
        with self.assertRaises(ZeroDivisionError):
            sim.run()
        ticks.clear()
        sim.run()
        self.assertTrue(ticks, "the user's progress callback was not restored")

    def test_keyboard_interrupt_is_carried_too(self):
        sim = self._sim()

        def interrupt(s, t):
            raise KeyboardInterrupt()

        sim.schedule(5, interrupt)
        with self.assertRaises(KeyboardInterrupt):
            sim.run()


if __name__ == "__main__":
    unittest.main()
