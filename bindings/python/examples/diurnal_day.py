#!/usr/bin/env python3
"""A diurnal day on one site: the training plateau against the inference
wave, and what each way of sizing the inference fleet does to replicas and
P99 time-to-first-token.

Top: IT power of a training job (flat, near TDP), of an inference fleet
under diurnal traffic (peak/trough 10, peak at 14:00) and of the site.
Middle and bottom: replicas and P99 TTFT over the day for each policy:
  - fixed at the peak (never late, mostly idle at night),
  - fixed at the mean (cheap, overloaded in the afternoon),
  - a reactive controller written in Python (co-simulation: every 5 minutes
    the driver reads the measured arrival rate and sets
    inference.chat.replicas, a runtime parameter, between run_until steps),
  - the library's own autoscaler policies (inference.NAME.autoscaler: hpa,
    kpa, predictive, and schedule with a time-of-day schedule sized from the
    diurnal profile) when this build has them.
"""

import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree

import math

from _common import aiw, has, ini, parse_args, pyplot, require, save

PER_REPLICA = 4.0  # requests/s one replica (4 H100, 70B at 8 bits) serves with P99 TTFT well under 0.5 s
SLO_TTFT = 0.5


def scenario(a, replicas, extra=None):
    inf = {"gpu": "H100-SXM", "gpus_per_replica": 4, "model_params": "70e9", "weight_bits": 8,
           "traffic": "diurnal", "rate": "%g/s" % a.rate, "peak_to_trough": 10,
           "peak_hour": 14, "replicas": replicas, "slo_ttft": "%gs" % SLO_TTFT,
           "cold_start": "uniform(10s,30s)",
           "output_tokens": "lognormal(median=%d,sigma=0.7)" % a.output_tokens}
    inf.update(extra or {})
    return ini([("sim", {"duration": "24h", "sample_interval": a.interval}),
                ("training pretrain", {"gpu": "H100-SXM", "gpus": a.train_gpus,
                                       "gpus_per_node": 8, "model_params": "70e9",
                                       "mfu": 0.45, "jitter": "lognormal(0,0.03)"}),
                ("inference chat", inf)])


def peak_rate(a):
    r = 10.0
    return a.rate * (1 + (r - 1) / (r + 1))


def rate_at(a, hour):
    """The diurnal profile of aiworkload(7): mean (1 + k sin(2 pi (h - peak + 6) / 24))."""
    r = 10.0
    k = (r - 1) / (r + 1)
    return a.rate * (1 + k * math.sin(2 * math.pi * (hour - 14 + 6) / 24.0))


def day_schedule(a, block=2):
    """A time-of-day schedule sized for the highest rate of each block."""
    steps = []
    for h in range(0, 24, block):
        peak = max(rate_at(a, h + x / 10.0) for x in range(10 * block + 1))
        steps.append("%dh:%d" % (h, int(math.ceil(1.2 * peak / PER_REPLICA))))
    return ", ".join(steps)


def run_fixed(a, replicas):
    with aiw.Simulation(scenario(a, replicas), seed=a.seed) as sim:
        sim.run()
        return curves(sim)


def run_controller(a, step=300.0):
    """Reactive sizing by the driver: replicas = ceil(measured rate / PER_REPLICA)."""
    with aiw.Simulation(scenario(a, int(math.ceil(a.rate / PER_REPLICA))), seed=a.seed) as sim:
        t = 0.0
        while t < 86400.0:
            t = min(t + step, 86400.0)
            sim.run_until(t)
            _, rate = sim.series("inference.chat.arrival_rate")
            if len(rate):
                want = max(1, int(math.ceil(rate[-1] * 1.2 / PER_REPLICA)))
                sim.set("inference.chat.replicas", want)
        sim.run()
        return curves(sim)


def run_autoscaler(a, policy):
    """The library's autoscaler (the keys this build declares are set)."""
    extra = {"autoscaler": policy}
    if policy == "schedule":
        extra["schedule"] = day_schedule(a)
    # Scale on arrivals per replica: under continuous batching a replica is
    # busy (utilization ~1) at any load, so the default utilization metric
    # would send every policy to max_replicas.
    wanted = {"min_replicas": 2,
              "max_replicas": int(math.ceil(1.5 * peak_rate(a) / PER_REPLICA)),
              "metric": "rps", "target_value": PER_REPLICA,
              "predictive_capacity": "%g/s" % PER_REPLICA}
    for k, v in wanted.items():
        if has("inference.NAME." + k):
            extra[k] = v
    with aiw.Simulation(scenario(a, int(math.ceil(a.rate / PER_REPLICA)), extra),
                        seed=a.seed) as sim:
        sim.run()
        return curves(sim)


def curves(sim):
    out = {}
    for name in ("site.power_w", "training.pretrain.power_w", "inference.chat.power_w",
                 "inference.chat.replicas", "inference.chat.ttft_p99_s"):
        t, v = sim.series(name)
        out[name] = ([x / 3600.0 for x in t], list(v))
    out["metrics"] = sim.metrics()
    return out


def main():
    a = parse_args(__doc__.split("\n")[0], "diurnal_day.png")
    require("inference.NAME.replicas", "inference.NAME.traffic", "training.NAME.gpus")
    if a.small:
        a.rate, a.train_gpus, a.interval, a.output_tokens = 4.0, 16, "30min", 32
    else:
        a.rate, a.train_gpus, a.interval, a.output_tokens = 40.0, 256, "5min", 256
    policies = [
        ("fixed at peak", lambda: run_fixed(a, int(math.ceil(peak_rate(a) / PER_REPLICA)))),
        ("fixed at mean", lambda: run_fixed(a, int(math.ceil(a.rate / PER_REPLICA)))),
        ("Python controller (run_until + set)", lambda: run_controller(a)),
    ]
    if has("inference.NAME.autoscaler"):
        for p in aiw.param_info("inference.NAME.autoscaler").choices:
            if p == "none" or (p == "schedule" and not has("inference.NAME.schedule")):
                continue
            if a.small and p != "hpa":
                continue  # --small: one library policy is enough for a smoke test
            policies.append(("autoscaler = %s" % p, lambda p=p: run_autoscaler(a, p)))
    else:
        print("note: this build has no inference.NAME.autoscaler; library policies skipped")
    results = []
    for label, fn in policies:
        r = fn()
        m = r["metrics"]
        print("%-40s P99 TTFT %8.3f s, GPU-hours %7.1f, cost %8.1f USD" % (
            label, m["inference.chat.ttft_p99_s"], m["inference.chat.gpu_hours"],
            m["inference.chat.cost_usd"]))
        results.append((label, r))

    plt = pyplot()
    fig, (ax1, ax2, ax3) = plt.subplots(3, 1, figsize=(9, 10), sharex=True)
    base = dict(results)["Python controller (run_until + set)"]  # replicas follow the load
    for name, label in (("site.power_w", "site (sum)"),
                        ("training.pretrain.power_w", "training: plateau"),
                        ("inference.chat.power_w", "inference: diurnal wave")):
        h, v = base[name]
        ax1.plot(h, [x / 1e3 for x in v], label=label)
    ax1.set_ylabel("IT power (kW)")
    ax1.set_title("One day: %d training GPUs + inference at %g req/s mean (peak/trough 10)\n"
                  "power with the fleet sized by the Python controller" % (a.train_gpus, a.rate))
    ax1.legend(fontsize=8)
    ax1.grid(True, alpha=0.3)
    for label, r in results:
        h, v = r["inference.chat.replicas"]
        ax2.step(h, v, where="post", label=label)
        h, v = r["inference.chat.ttft_p99_s"]
        ax3.plot(h, [x if x > 0 else float("nan") for x in v], label=label)
    ax2.set_ylabel("inference replicas")
    ax2.set_title("Replicas by sizing policy" + (
        "" if has("inference.NAME.autoscaler") else
        " (this build has no library autoscaler: inference.NAME.autoscaler)"))
    ax2.legend(fontsize=7, ncol=2, loc="upper left")
    ax2.grid(True, alpha=0.3)
    ax3.axhline(SLO_TTFT, color="red", ls="--", lw=1, label="SLO %g s" % SLO_TTFT)
    ax3.set_yscale("log")
    ax3.set_ylabel("P99 TTFT per interval (s)")
    ax3.set_xlabel("hour of day")
    ax3.set_title("Time to first token")
    ax3.legend(fontsize=7, ncol=2, loc="upper left")
    ax3.grid(True, which="both", alpha=0.3)
    ax3.set_xlim(0, 24)
    fig.tight_layout()
    save(fig, a.output)


if __name__ == "__main__":
    main()
