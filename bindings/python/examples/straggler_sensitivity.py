#!/usr/bin/env python3
"""Straggler sensitivity: how much slower a synchronous training step gets as
the job grows, for several per-GPU jitter levels, and with one slow GPU.

A step ends when the slowest of N GPUs is done, so the step time is the
maximum of N draws of the compute-time multiplier: with lognormal(0, s)
jitter the slowdown grows like exp(s E[max of N standard normals]) (dashed:
Blom's approximation of E[max]).  One persistently slow GPU (x1.3) sets a
floor the whole job runs at, whatever N: "one slow card slows everything".

Metric: training.NAME.straggler_slowdown = mean step / step without jitter.
The all-reduce is kept negligible (a 1e9-parameter model) so that the curve
is the straggler effect alone.
"""

import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree

import math
from statistics import NormalDist

from _common import aiw, ini, parse_args, pyplot, require, save


def expected_max_normal(n):
    """Blom (1958): E[max of n standard normals] ~ Phi^-1((n - 0.375) / (n + 0.25))."""
    if n <= 1:
        return 0.0
    return NormalDist().inv_cdf((n - 0.375) / (n + 0.25))


def slowdown(n, sigma, slow_gpus, seed, duration):
    text = ini([("sim", {"duration": duration, "sample_interval": duration}),
                ("training t", {"gpus": n, "gpus_per_node": min(8, n), "model_params": "1e9",
                                "step_compute": "1s",
                                "jitter": "lognormal(0,%g)" % sigma if sigma > 0 else "const(1)",
                                "slow_gpus": slow_gpus, "slow_factor": 1.3})])
    with aiw.Simulation(text, seed=seed) as sim:
        sim.run()
        return sim.metric("training.t.straggler_slowdown")


def main():
    a = parse_args(__doc__.split("\n")[0], "straggler_sensitivity.png")
    require("training.NAME.jitter", "training.NAME.slow_gpus", "training.NAME.slow_factor")
    if a.small:
        counts, sigmas, duration = [1, 100, 10000], [0.03], "10min"
    else:
        counts = [1, 3, 10, 30, 100, 300, 1000, 3000, 10000, 30000, 100000]
        sigmas, duration = [0.01, 0.03, 0.1], "1h"
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(8, 5))
    for sigma in sigmas:
        ys = [slowdown(n, sigma, 0, a.seed, duration) for n in counts]
        line, = ax.plot(counts, ys, "o-", label="jitter lognormal(0, %g)" % sigma)
        theory = [math.exp(sigma * expected_max_normal(n)) for n in counts]
        ax.plot(counts, theory, "--", color=line.get_color(), alpha=0.6,
                label="exp(%g E[max of N normals])" % sigma)
    sigma = 0.03
    ys = [slowdown(n, sigma, 1, a.seed, duration) for n in counts]
    ax.plot(counts, ys, "s-", color="black",
            label="jitter lognormal(0, %g) + one GPU at x1.3" % sigma)
    ax.set_xscale("log")
    ax.set_xlabel("GPUs in the synchronous job (N)")
    ax.set_ylabel("step-time slowdown (mean step / step without jitter)")
    ax.set_title("Straggler sensitivity: every step waits for the slowest GPU")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    save(fig, a.output)


if __name__ == "__main__":
    main()
