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


if __name__ == "__main__":
    unittest.main()
