"""Hostile use of the replay, the capacity search and profiles from Python:
close() from the capacity's progress callback is refused (no use after
free), NUL bytes in the replay's arguments are refused, a profile's error
carries the failing call's message."""

import os
import tempfile
import unittest

import aiworkload as aiw
from aiworkload import errors


class CapacityClose(unittest.TestCase):
    MDC = ("[inference q]\nreplicas = 2\nservice = const(0.5s)\nbatching = none\n"
           "router = central\n")

    def test_close_from_progress(self):
        sim = aiw.Simulation(self.MDC)
        calls = []

        def progress(*a):
            calls.append(a)
            sim.close()

        with self.assertRaises(errors.StateError):
            sim.inference_capacity("q", progress=progress, offline_requests=100,
                                   min_requests=100, duration="20s")
        self.assertEqual(len(calls), 1)
        self.assertFalse(sim.closed)  # refused: the simulation is still there
        r = sim.inference_capacity("q", offline_requests=100, min_requests=100,
                                   duration="20s", max_runs=3)
        self.assertEqual(r["offline_requests_per_s"], 4.0)
        sim.close()
        self.assertTrue(sim.closed)

    def test_nul_in_settings(self):
        with aiw.Simulation(self.MDC) as sim:
            with self.assertRaises(errors.InvalidArgument) as cm:
                sim.inference_capacity("q", seeds="2\x009")
            self.assertIn("NUL byte", str(cm.exception))


class ReplayNul(unittest.TestCase):
    def setUp(self):
        fd, self.path = tempfile.mkstemp(suffix=".csv")
        with os.fdopen(fd, "w") as f:
            f.write("time,ready,metric\n0,2,0.5\n15,2,0.9\n")

    def tearDown(self):
        os.unlink(self.path)

    def test_settings(self):
        # "replicas=2\0 99" would set 2
        for bad in (dict(settings=["replicas=2\x0099"]), dict(policy="hpa\x00kpa")):
            kw = dict(policy="hpa", metrics_path=self.path)
            kw.update(bad)
            with self.assertRaises(errors.InvalidArgument) as cm:
                aiw.autoscale_replay(**kw)
            self.assertIn("NUL byte", str(cm.exception))
        self.assertEqual(aiw.autoscale_replay("hpa", self.path, ["replicas=2"]), 2)


class ProfileMessages(unittest.TestCase):
    def test_predict_message_is_its_own(self):
        fd, path = tempfile.mkstemp(suffix=".csv")
        with os.fdopen(fd, "w") as f:
            f.write("phase,gpu,tp,batch,prompt,context,time_s\n"
                    "decode,H100-SXM,8,1,0,100,0.01\n")
        try:
            p = aiw.Profile(path)
            with self.assertRaises(errors.AiwError):
                p.set("no_such_setting", 1)
            coef = {t: 1.0 for t in aiw.profile_terms()} if hasattr(aiw, "profile_terms") \
                else None
            if coef is None:
                from aiworkload.profile import terms
                coef = {t: 1.0 for t in terms()}
            with self.assertRaises(errors.AiwError) as cm:
                p.predict(5, coef)
            self.assertIn("row 5: the profile has 1 rows", str(cm.exception))
            self.assertNotIn("no_such_setting", str(cm.exception))
            p.close()
        finally:
            os.unlink(path)


if __name__ == "__main__":
    unittest.main()
