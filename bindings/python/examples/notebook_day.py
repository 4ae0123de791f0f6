"""A simulated day as a notebook would explore it: run, then look at the
curves and the metrics as tables (pandas DataFrames when pandas is
installed, numpy arrays otherwise).  Each "# %%" cell runs as it is in
Jupyter or VS Code; as a script it prints every cell's result.

    PYTHONPATH=bindings/python python3 bindings/python/examples/notebook_day.py [--small]

--small simulates 6 hours instead of 24.
"""
import sys

import aiworkload as aiw

try:
    import pandas as pd
except ImportError:
    pd = None

hours = 6 if "--small" in sys.argv[1:] else 24

# %% The built-in mixed site (a training cluster next to a chat fleet)
sim = aiw.Simulation(aiw.default_scenario(), seed=1, sim__duration=hours * 3600)
sim.run()
print("simulated %g h, %d curves, %d metrics" % (sim.now / 3600, len(sim.series_names()),
                                                 len(sim.metric_names())))

# %% Curves: one DataFrame indexed by time, one column per curve
if pd is not None:
    curves = sim.to_pandas()
    # a point averages the interval that ends at its time: label it by the start
    step = curves.index[1] - curves.index[0]
    curves.index = pd.to_timedelta(curves.index - step, unit="s")
    hourly = curves[["site.power_w", "training.pretrain.power_w", "inference.chat.power_w",
                     "inference.chat.replicas"]].resample("1h").mean()
    hourly[["site.power_w", "training.pretrain.power_w", "inference.chat.power_w"]] /= 1e6
    print("hourly means (power in MW):")
    print(hourly.round(3).to_string())
else:  # numpy arrays (or the array module's) as sim.series() gives them
    t, p = sim.series("site.power_w")
    step = t[1] - t[0]
    sums = {}
    for ti, pi in zip(t, p):
        sums.setdefault(int((ti - step) // 3600), []).append(pi)
    print("hourly mean site power (MW):")
    for k in sorted(sums):
        print("  hour %2d  %.3f" % (k, sum(sums[k]) / len(sums[k]) / 1e6))

# %% Metrics: one row per metric, with its component, unit and label
if pd is not None:
    metrics = sim.metrics_to_pandas()
    site = metrics[metrics.kind == "site"]
    print(site.loc[["site.power_peak_w", "site.diversity_factor", "site.cost_usd"],
                   ["value", "unit", "label"]].to_string())
    lat = metrics[(metrics.component == "chat") & metrics.key.str.match(r"(ttft|tpot|e2e)_p\d+_s")]
    table = lat.assign(latency=lat.key.str.split("_").str[0],
                       pct=lat.key.str.split("_").str[1]).pivot(index="latency", columns="pct",
                                                                values="value")
    print("latency percentiles of the chat fleet (s):")
    print(table.round(4).to_string())
else:
    m = sim.metrics()
    for k in ("site.power_peak_w", "site.diversity_factor", "site.cost_usd"):
        print("%-28s %.6g" % (k, m[k]))

# %% The P99 time to first token per hour against the SLO attainment
if pd is not None:
    p99 = curves["inference.chat.ttft_p99_s"].resample("1h").max()
    print("worst minute's P99 TTFT per hour (s):")
    print(p99.round(3).to_string())
print("SLO attainment %.1f %%" % (100 * sim.metric("inference.chat.slo_attainment")))
sim.close()
