#!/usr/bin/env python3
"""M/M/1 queue in SimPy: the peer benchmark for libaiworkload's engine.

The same model as the engine's M/M/1 benchmark: Poisson arrivals at rate
lambda = rho * mu, one server, exponential service at rate mu = 1/s, FIFO,
rho = 0.9, N customers.  Prints one line:

    simpy_mm1 customers=N wall_s=... customers_per_s=... mean_wait_s=... (theory=...)

mean_wait_s is the mean time in queue (before service); the M/M/1 value is
Wq = rho / (mu - lambda) (Kleinrock, Queueing Systems vol. 1, 1975, eq. 3.26).
At rho = 0.9 the sample mean converges slowly (waits are strongly
correlated), so expect a few percent from theory at N = 1e5.

Uses the classic SimPy 2 API (Debian's python3-simpy, SimPy 2.3.1) and falls
back to SimPy 3/4 (`import simpy`) where that is what is installed.  Python
interpreters that lack SimPy (e.g. a pyenv shim) re-run under /usr/bin/python3,
where Debian installs it.

Usage: mm1_simpy.py [N] [--seed S] [--rho R]
"""
import argparse
import os
import random
import sys
import time

SYSTEM_PYTHON = "/usr/bin/python3"


def run_simpy2(n, lam, mu, rng):
    from SimPy.Simulation import (Process, Resource, activate, hold, initialize, now,
                                  release, request, simulate)

    stats = {"wait": 0.0, "done": 0}
    server = None  # created after initialize(), below

    class Customer(Process):
        def visit(self, service):
            arrive = now()
            yield request, self, server
            stats["wait"] += now() - arrive
            yield hold, self, service
            yield release, self, server
            stats["done"] += 1

    class Source(Process):
        def generate(self):
            for _ in range(n):
                c = Customer()
                activate(c, c.visit(rng.expovariate(mu)))
                yield hold, self, rng.expovariate(lam)

    initialize()
    server = Resource(capacity=1, name="server", unitName="server")
    src = Source()
    activate(src, src.generate())
    simulate(until=float("inf"))
    return stats["wait"], stats["done"]


def run_simpy3(n, lam, mu, rng):
    import simpy

    env = simpy.Environment()
    server = simpy.Resource(env, capacity=1)
    stats = {"wait": 0.0, "done": 0}

    def customer(service):
        arrive = env.now
        with server.request() as req:
            yield req
            stats["wait"] += env.now - arrive
            yield env.timeout(service)
        stats["done"] += 1

    def source():
        for _ in range(n):
            env.process(customer(rng.expovariate(mu)))
            yield env.timeout(rng.expovariate(lam))

    env.process(source())
    env.run()
    return stats["wait"], stats["done"]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("n", nargs="?", type=int, default=1000000, help="customers (default 1e6)")
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--rho", type=float, default=0.9)
    args = ap.parse_args()
    if args.n < 1 or not 0 < args.rho < 1:
        ap.error("need N >= 1 and 0 < rho < 1")

    try:
        import SimPy.Simulation  # noqa: F401
        backend = run_simpy2
    except ImportError:
        try:
            import simpy  # noqa: F401
            backend = run_simpy3
        except ImportError:
            if os.path.exists(SYSTEM_PYTHON) and os.path.realpath(sys.executable) != \
                    os.path.realpath(SYSTEM_PYTHON) and "AIW_MM1_REEXEC" not in os.environ:
                os.environ["AIW_MM1_REEXEC"] = "1"
                os.execv(SYSTEM_PYTHON, [SYSTEM_PYTHON] + sys.argv)
            sys.exit("mm1_simpy: SimPy is not installed (apt-get install python3-simpy)")

    mu = 1.0
    lam = args.rho * mu
    rng = random.Random(args.seed)
    t0 = time.perf_counter()
    wait, done = backend(args.n, lam, mu, rng)
    wall = time.perf_counter() - t0
    if done != args.n:
        sys.exit("mm1_simpy: %d of %d customers finished" % (done, args.n))
    theory = args.rho / (mu - lam)
    print("simpy_mm1 customers=%d wall_s=%.3f customers_per_s=%.0f mean_wait_s=%.4f (theory=%.4f)"
          % (args.n, wall, args.n / wall, wait / args.n, theory))


if __name__ == "__main__":
    main()
