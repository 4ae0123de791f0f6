"""Shared plumbing of the example drivers: command line, the aiworkload
import from a source tree, matplotlib on the Agg backend, and a check that
the library's models declare the parameters an example needs."""

import argparse
import importlib.util
import os
import sys

# The examples draw with numpy and matplotlib: say so before any simulation
# runs, with the interpreter in use (Debian's packages serve /usr/bin/python3,
# not an interpreter of another installation).
_missing = [m for m in ("numpy", "matplotlib") if importlib.util.find_spec(m) is None]
if _missing:
    sys.exit("%s: this example needs %s, which %s cannot import.\n"
             "On Debian: apt-get install %s, then run it with /usr/bin/python3."
             % (os.path.basename(sys.argv[0]) or "example", " and ".join(_missing),
                sys.executable, " ".join("python3-" + m for m in _missing)))

try:
    import aiworkload as aiw
except ImportError:  # run from the source tree without installing
    sys.path.insert(0, os.path.normpath(os.path.join(os.path.dirname(__file__), "..")))
    import aiworkload as aiw


def parse_args(description, default_png, extra=()):
    """--small, -o/--output, --seed, plus (flag, argparse keywords) in extra."""
    ap = argparse.ArgumentParser(description=description)
    for flag, kw in extra:
        ap.add_argument(flag, **kw)
    ap.add_argument("--small", action="store_true",
                    help="a few points at small sizes (seconds; used by the test suite)")
    ap.add_argument("-o", "--output", default=default_png, help="PNG to write (%(default)s)")
    ap.add_argument("--seed", type=int, default=1)
    return ap.parse_args()


def pyplot():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


def require(*names):
    """Exit with a clear message when the library lacks a parameter."""
    missing = []
    for n in names:
        try:
            aiw.param_info(n)
        except aiw.UnknownName:
            missing.append(n)
    if missing:
        sys.exit("%s: this build of libaiworkload %s does not declare %s" % (
            os.path.basename(sys.argv[0]), aiw.library_version(), ", ".join(missing)))


def has(name):
    try:
        aiw.param_info(name)
        return True
    except aiw.UnknownName:
        return False


def save(fig, path):
    d = os.path.dirname(os.path.abspath(path))
    os.makedirs(d, exist_ok=True)
    fig.savefig(path, dpi=110)
    print("wrote %s" % path)


def ini(sections):
    """INI text from [(header, {key: value})]."""
    out = []
    for header, kv in sections:
        out.append("[%s]" % header)
        out.extend("%s = %s" % (k, v) for k, v in kv.items())
    return "\n".join(out) + "\n"
