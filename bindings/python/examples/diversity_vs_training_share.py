#!/usr/bin/env python3
"""Diversity factor and provisioned power vs the training share of a site.

A fixed pool of GPUs is split between one synchronous training job (a flat
power plateau near TDP) and an inference fleet following diurnal traffic
(a daily wave).  For each training share the driver builds the site, runs
one simulated day and reads:

  site.diversity_factor       sum of the components' peaks / peak of the sum
  site.rack_diversity_factor  the same at rack level (site.gpus_per_rack)
  site.provisioned_power_w    facility peak x (1 + margin): what to provision
  site.power_peak_w, site.sum_of_peaks_w

A pure training site has a diversity factor near 1 (every rack peaks at
once); inference adds headroom that is never used simultaneously.  With
--c-sweep the same question is answered by the library's own
aiw_site_diversity_sweep (rack level only) and overlaid.
"""

import sys

sys.dont_write_bytecode = True  # no __pycache__ in the source tree

from _common import aiw, ini, parse_args, pyplot, require, save

GPUS_PER_REPLICA = 4
RATE_PER_REPLICA = 0.2  # requests/s (diurnal mean) per replica: busy by day, idle gaps at night


def scenario(train_gpus, replicas, duration, interval):
    sections = [("sim", {"duration": duration, "sample_interval": interval}),
                ("site", {"gpus_per_rack": 32, "pue": 1.3})]
    if train_gpus:
        sections.append(("training pretrain", {
            "gpu": "H100-SXM", "gpus": train_gpus, "gpus_per_node": 8, "model_params": "70e9",
            "tokens_per_step": "4e6", "mfu": 0.45, "jitter": "lognormal(0,0.03)"}))
    if replicas:
        sections.append(("inference chat", {
            "gpu": "H100-SXM", "gpus_per_replica": GPUS_PER_REPLICA, "model_params": "70e9",
            "weight_bits": 8, "traffic": "diurnal", "peak_to_trough": 10, "peak_hour": 14,
            "rate": "%g/s" % (RATE_PER_REPLICA * replicas), "replicas": replicas,
            "slo_ttft": "500ms"}))
    return ini(sections)


def split(total, share):
    train = int(round(share * total / 8.0)) * 8
    replicas = (total - train) // GPUS_PER_REPLICA
    return train, replicas


def main():
    a = parse_args(__doc__.split("\n")[0], "diversity_vs_training_share.png",
                   [("--c-sweep", {"action": "store_true",
                                   "help": "overlay aiw_site_diversity_sweep's rack figures"})])
    require("training.NAME.gpus", "inference.NAME.replicas", "inference.NAME.traffic")
    if a.small:
        total, shares, interval = 64, [0.0, 0.5, 1.0], "15min"
    else:
        total, shares, interval = 512, [i / 10.0 for i in range(11)], "5min"
    rows = []
    for share in shares:
        train, replicas = split(total, share)
        with aiw.Simulation(scenario(train, replicas, "24h", interval), seed=a.seed) as sim:
            sim.run()
            m = sim.metrics()
        achieved = train / float(train + replicas * GPUS_PER_REPLICA)
        rows.append((achieved, m["site.diversity_factor"], m["site.rack_diversity_factor"],
                     m["site.provisioned_power_w"], m["site.power_peak_w"],
                     m["site.sum_of_peaks_w"]))
        print("training share %.2f: diversity %.3f (racks %.3f), provisioned %.1f kW" % (
            achieved, rows[-1][1], rows[-1][2], rows[-1][3] / 1e3))
    x = [r[0] for r in rows]
    plt = pyplot()
    fig, (ax1, ax2) = plt.subplots(2, 1, figsize=(8, 7), sharex=True)
    ax1.plot(x, [r[1] for r in rows], "o-", label="components (site.diversity_factor)")
    ax1.plot(x, [r[2] for r in rows], "s-", label="racks (site.rack_diversity_factor)")
    if a.c_sweep:
        base = scenario(8, 1, "24h", interval)
        sweep = aiw.site_diversity_sweep(base, total, len(shares))
        ax1.plot(list(sweep["share"]), list(sweep["diversity"]), "x--",
                 label="racks, aiw_site_diversity_sweep")
    ax1.axhline(1.0, color="grey", lw=0.8)
    ax1.set_ylabel("diversity factor (sum of peaks / peak of sum)")
    ax1.set_title("Site of %d H100 GPUs: training job + diurnal inference fleet, one day"
                  % total)
    ax1.legend(fontsize=8)
    ax1.grid(True, alpha=0.3)
    ax2.plot(x, [r[3] / 1e3 for r in rows], "o-", label="provisioned (facility peak x 1.1)")
    ax2.plot(x, [r[4] / 1e3 for r in rows], "s-", label="IT peak of the sum")
    ax2.plot(x, [r[5] / 1e3 for r in rows], "^--", label="IT sum of component peaks")
    ax2.set_xlabel("training share of the GPUs")
    ax2.set_ylabel("power (kW)")
    ax2.legend(fontsize=8)
    ax2.grid(True, alpha=0.3)
    fig.tight_layout()
    save(fig, a.output)


if __name__ == "__main__":
    main()
