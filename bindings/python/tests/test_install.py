"""`pip install bindings/python` works offline with no compiler, and the
installed copy is complete."""

import os
import subprocess
import sys
import tarfile
import tempfile
import unittest
import zipfile

import aiwtest


def _backend():
    sys.path.insert(0, os.path.join(aiwtest.PKG_ROOT, "_build"))
    try:
        import aiw_build
    finally:
        sys.path.pop(0)
    return aiw_build


PACKAGE_FILES = sorted("aiworkload/" + f
                       for f in os.listdir(os.path.join(aiwtest.PKG_ROOT, "aiworkload"))
                       if f.endswith(".py"))


class Backend(unittest.TestCase):

    def test_wheel_and_sdist(self):
        b = _backend()
        with tempfile.TemporaryDirectory() as d:
            whl = b.build_wheel(d)
            self.assertRegex(whl, r"^aiworkload-[0-9.]+-py3-none-any\.whl$")
            with zipfile.ZipFile(os.path.join(d, whl)) as z:
                names = z.namelist()
                self.assertIsNone(z.testzip())
                record = z.read([n for n in names if n.endswith("/RECORD")][0]).decode()
            self.assertEqual(sorted(n for n in names if n.startswith("aiworkload/")),
                             PACKAGE_FILES)
            for n in PACKAGE_FILES:
                self.assertIn(n + ",sha256=", record)
            sd = b.build_sdist(d)
            with tarfile.open(os.path.join(d, sd)) as t:
                members = t.getnames()
            base = sd[:-len(".tar.gz")]
            for rel in ["PKG-INFO", "pyproject.toml", "_build/aiw_build.py"] + PACKAGE_FILES:
                self.assertIn("%s/%s" % (base, rel), members)


class PipInstall(unittest.TestCase):

    def test_pip_install_offline(self):
        r = subprocess.run([sys.executable, "-m", "pip", "--version"], capture_output=True)
        if r.returncode != 0:
            self.skipTest("pip is not available for %s" % sys.executable)
        with tempfile.TemporaryDirectory() as d:
            target = os.path.join(d, "site")
            env = dict(os.environ, PIP_NO_INDEX="1", PIP_DISABLE_PIP_VERSION_CHECK="1")
            env.pop("PIP_FIND_LINKS", None)
            r = subprocess.run([sys.executable, "-m", "pip", "install", "--no-index", "--no-deps",
                                "--target", target, aiwtest.PKG_ROOT], env=env,
                               capture_output=True, text=True, timeout=300)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            # the installed copy, alone on the path, works
            env = dict(os.environ, PYTHONPATH=target)
            code = ("import aiworkload, sys; "
                    "assert aiworkload.__file__.startswith(sys.argv[1]), aiworkload.__file__; "
                    "print(aiworkload.size_training_memory(70e9, 12))")
            r = subprocess.run([sys.executable, "-c", code, target], env=env, cwd=d,
                               capture_output=True, text=True, timeout=60)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertEqual(float(r.stdout), 840e9)
            # nothing was left in the source tree
            self.assertEqual(sorted(f for f in os.listdir(aiwtest.PKG_ROOT)
                                    if f.endswith(".egg-info") or f in ("build", "dist")), [])


if __name__ == "__main__":
    unittest.main()
