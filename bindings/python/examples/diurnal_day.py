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
  - the library's own autoscaler policies (inference.NAME.autoscaler: none,
    hpa, predictive) when this build has them.
"""

import math

from _common import aiw, has, ini, parse_args, pyplot, require, save

PER_REPLICA = 4.0  # requests/s one replica (4 H100, 70B at 8 bits) serves with P99 TTFT well under 0.5 s
SLO_TTFT = 0.5


def scenario(a, replicas, extra=None):
    inf = {"gpu": "H100-SXM", "gpus_per_replica": 4, "model_params": "70e9", "weight_bits": 8,
           "traffic": "diurnal", "rate": "%g/s" % a.rate, "peak_to_trough": 10,
           "peak_hour": 14, "replicas": replicas, "slo_ttft": "%gs" % SLO_TTFT,
           "cold_start": "uniform(10s,30s)"}
    inf.update(extra or {})
    return ini([("sim", {"duration": "24h", "sample_interval": a.interval}),
                ("training pretrain", {"gpu": "H100-SXM", "gpus": a.train_gpus,
                                       "gpus_per_node": 8, "model_params": "70e9",
                                       "mfu": 0.45, "jitter": "lognormal(0,0.03)"}),
                ("inference chat", inf)])


def peak_rate(a):
    r = 10.0
    return a.rate * (1 + (r - 1) / (r + 1))


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
    extra = {"autoscaler": policy, "min_replicas": 2,
             "max_replicas": int(math.ceil(1.5 * peak_rate(a) / PER_REPLICA))}
    if has("inference.NAME.target_utilization"):
        extra["target_utilization"] = 0.6
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
        a.rate, a.train_gpus, a.interval = 8.0, 16, "15min"
    else:
        a.rate, a.train_gpus, a.interval = 40.0, 256, "5min"
    policies = [
        ("fixed at peak", lambda: run_fixed(a, int(math.ceil(peak_rate(a) / PER_REPLICA)))),
        ("fixed at mean", lambda: run_fixed(a, int(math.ceil(a.rate / PER_REPLICA)))),
        ("Python controller (run_until + set)", lambda: run_controller(a)),
    ]
    if has("inference.NAME.autoscaler"):
        for p in aiw.param_info("inference.NAME.autoscaler").choices:
            if p != "none":
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
    ax2.set_title("Replicas by sizing policy")
    ax2.legend(fontsize=8)
    ax2.grid(True, alpha=0.3)
    ax3.axhline(SLO_TTFT, color="red", ls="--", lw=1, label="SLO %g s" % SLO_TTFT)
    ax3.set_yscale("log")
    ax3.set_ylabel("P99 TTFT per interval (s)")
    ax3.set_xlabel("hour of day")
    ax3.set_title("Time to first token")
    ax3.legend(fontsize=8)
    ax3.grid(True, which="both", alpha=0.3)
    ax3.set_xlim(0, 24)
    fig.tight_layout()
    save(fig, a.output)


if __name__ == "__main__":
    main()
