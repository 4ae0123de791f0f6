"""python3 -m aiworkload: version, parameter help, or run a scenario.

    python3 -m aiworkload version
    python3 -m aiworkload params [PATTERN]
    python3 -m aiworkload run [SCENARIO.ini] [--set NAME=VALUE ...] [--seed N]
                              [--csv FILE] [--json FILE]
"""

import argparse
import sys

import aiworkload


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python3 -m aiworkload",
                                 description="libaiworkload from Python")
    sub = ap.add_subparsers(dest="cmd")
    sub.add_parser("version", help="library and package versions, and where the library is")
    p = sub.add_parser("params", help="parameter help from the registry")
    p.add_argument("pattern", nargs="?")
    r = sub.add_parser("run", help="run a scenario and print its metrics")
    r.add_argument("scenario", nargs="?")
    r.add_argument("--set", action="append", default=[], metavar="NAME=VALUE")
    r.add_argument("--seed", type=int)
    r.add_argument("--csv")
    r.add_argument("--json")
    a = ap.parse_args(argv)
    try:
        if a.cmd in (None, "version"):
            info = aiworkload.library_info()
            print("aiworkload (Python) %s, libaiworkload %s" % (aiworkload.__version__,
                                                               info["version"]))
            print("library: %s (found by %s)" % (info["path"], info["found_by"]))
            return 0
        if a.cmd == "params":
            aiworkload.help(a.pattern)
            return 0
        params = {}
        for kv in a.set:
            k, eq, v = kv.partition("=")
            if not eq:
                ap.error("--set wants NAME=VALUE, not %r" % kv)
            params[k] = v
        with aiworkload.Simulation(a.scenario, seed=a.seed, **params) as sim:
            sim.run()
            for name, value in sim.metrics().items():
                print("%-45s %.6g" % (name, value))
            if a.csv:
                sim.write_csv(a.csv)
            if a.json:
                sim.write_json(a.json)
        return 0
    except (aiworkload.AiwError, aiworkload.LibraryError) as e:
        print("aiworkload: %s" % e, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
