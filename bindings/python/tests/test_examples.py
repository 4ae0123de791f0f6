"""The example drivers run at small sizes and write their PNGs."""

import os
import subprocess
import sys
import tempfile
import unittest

import aiwtest

# example -> parameters its models need (skipped, with the reason, without)
EXAMPLES = {
    "straggler_sensitivity.py": ("training.NAME.jitter", "training.NAME.slow_gpus"),
    "diversity_vs_training_share.py": ("training.NAME.gpus", "inference.NAME.replicas",
                                       "inference.NAME.traffic"),
    "diurnal_day.py": ("training.NAME.gpus", "inference.NAME.replicas",
                       "inference.NAME.traffic"),
    "notebook_day.py": (),  # NotebookExample: no plot, pandas or numpy or neither
}


class Examples(unittest.TestCase):

    @classmethod
    def setUpClass(cls):
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            raise unittest.SkipTest("matplotlib is not installed (Debian: python3-matplotlib)")

    def test_all_examples_listed(self):
        found = sorted(f for f in os.listdir(aiwtest.EXAMPLES)
                       if f.endswith(".py") and not f.startswith("_"))
        self.assertEqual(found, sorted(EXAMPLES))

    def _run(self, name):
        missing = aiwtest.has_params(*EXAMPLES[name])
        if missing:
            self.skipTest("the models of this build lack %s" % ", ".join(missing))
        with tempfile.TemporaryDirectory() as d:
            png = os.path.join(d, name.replace(".py", ".png"))
            env = dict(os.environ, MPLBACKEND="Agg", MPLCONFIGDIR=d)
            r = subprocess.run([sys.executable, os.path.join(aiwtest.EXAMPLES, name), "--small",
                                "-o", png], env=env, capture_output=True, text=True,
                               timeout=120)
            self.assertEqual(r.returncode, 0, "%s failed:\n%s\n%s" % (name, r.stdout, r.stderr))
            self.assertIn("wrote %s" % png, r.stdout)
            with open(png, "rb") as f:
                head = f.read(8)
            self.assertEqual(head, b"\x89PNG\r\n\x1a\n")
            self.assertGreater(os.path.getsize(png), 10000)  # axes, curves, text
            return r.stdout

    def test_missing_plot_packages_said_first(self):
        # Without numpy and matplotlib (python -S: no site-packages) an
        # example stops at once, naming what is missing and how to get it,
        # instead of running its simulations and failing on the import.
        env = dict(os.environ)
        env.pop("PYTHONPATH", None)
        r = subprocess.run([sys.executable, "-S", "-E",
                            os.path.join(aiwtest.EXAMPLES, "diurnal_day.py"), "--small"],
                           capture_output=True, text=True, timeout=30, env=env)
        self.assertEqual(r.returncode, 1, r.stderr)
        self.assertIn("needs numpy and matplotlib", r.stderr)
        self.assertIn("apt-get install python3-numpy python3-matplotlib", r.stderr)
        self.assertEqual(r.stdout, "")

    def test_straggler_sensitivity(self):
        self._run("straggler_sensitivity.py")

    def test_diversity_vs_training_share(self):
        out = self._run("diversity_vs_training_share.py")
        self.assertIn("training share 1.00", out)

    def test_diurnal_day(self):
        out = self._run("diurnal_day.py")
        self.assertIn("Python controller", out)



class NotebookExample(unittest.TestCase):
    """notebook_day.py, the notebook-style tour (DataFrames with pandas,
    arrays without): it runs, and its hourly site power is the curve's."""

    def test_notebook_day(self):
        env = dict(os.environ, MPLBACKEND="Agg")
        r = subprocess.run([sys.executable, os.path.join(aiwtest.EXAMPLES, "notebook_day.py"),
                            "--small"], env=env, capture_output=True, text=True, timeout=300)
        self.assertEqual(r.returncode, 0, "notebook_day.py failed:\n%s\n%s" % (r.stdout,
                                                                                r.stderr))
        out = r.stdout
        self.assertIn("simulated 6 h, ", out)
        self.assertIn("SLO attainment ", out)
        import aiworkload
        with aiworkload.Simulation(aiworkload.default_scenario(), seed=1,
                                   sim__duration=6 * 3600) as sim:
            sim.run()
            t, p = sim.series("site.power_w")
            slo = sim.metric("inference.chat.slo_attainment")
        step = t[1] - t[0]
        hours = {}
        for ti, pi in zip(t, p):
            hours.setdefault(int((ti - step) // 3600), []).append(pi)
        self.assertEqual(sorted(hours), list(range(6)))
        for k, v in hours.items():
            self.assertIn("%.3f" % (sum(v) / len(v) / 1e6), out, "hour %d" % k)
        self.assertIn("SLO attainment %.1f %%" % (100 * slo), out)
        try:
            import pandas  # noqa: F401
        except ImportError:
            return
        self.assertIn("latency percentiles of the chat fleet (s):", out)
        self.assertIn("worst minute's P99 TTFT per hour (s):", out)


if __name__ == "__main__":
    unittest.main()
