"""The serving plan through the binding (aiw_plan_create(3))."""

import os
import tempfile
import unittest

import aiwtest  # noqa: F401 - finds the package and library of the source tree
import aiworkload

SCEN = """[sim]
seed = 11
duration = 1min
[inference chat]
gpu = H100-SXM
gpus_per_replica = 1
model_params = 13e9
traffic = poisson
rate = 12/s
prompt_tokens = lognormal(median=512,sigma=0.5)
output_tokens = lognormal(median=128,sigma=0.5)
"""


class PlanTest(unittest.TestCase):

    def test_plan_rows_and_rerun(self):
        with aiworkload.Plan(SCEN, "chat", ttft_p99="400ms", objective="gpus") as plan:
            plan.grid("gpu", ["H100-SXM", "L4"])
            plan.grid("weight_bits", "8,16")
            plan.grid("replicas", "1..8")
            plan.run()
            st = plan.stats()
            self.assertEqual(st["candidates"], 32)
            self.assertEqual(st["candidates"], st["pruned_memory"] + st["pruned_cap"] +
                             st["pruned_bisection"] + st["pruned_load"] + st["simulated"])
            rows = plan.rows()
            self.assertEqual(len(rows), st["rows"])
            self.assertGreater(len(rows), 0)
            self.assertEqual(plan.verdict(), "")
            best = rows[0]
            self.assertEqual(best["objective"], best["gpus"])
            with aiworkload.Simulation() as sim:
                sim.load(SCEN)
                for line in best["snippet"].splitlines():
                    k, v = line[len("--set "):].split("=", 1)
                    sim.set(k, v)
                sim.run()
                self.assertEqual(sim.metric("inference.chat.ttft_p99_s"), best["ttft_p99_s"])
            with tempfile.TemporaryDirectory() as d:
                plan.write_csv(os.path.join(d, "plan.csv"))
                with open(os.path.join(d, "plan.csv")) as f:
                    self.assertEqual(len(f.read().splitlines()), len(rows) + 1)
                plan.write_html(os.path.join(d, "plan.html"))
                with open(os.path.join(d, "plan.html")) as f:
                    html = f.read()
                self.assertEqual(html.count('<tr class="row"'), len(rows))
            try:
                import pandas  # noqa: F401
            except ImportError:
                pandas = None
            if pandas is not None:
                df = plan.to_pandas()
                self.assertEqual(len(df), len(rows))
                self.assertEqual(df.index[0], 1)
                self.assertEqual(df.loc[1, "ttft_p99_s"], best["ttft_p99_s"])
                self.assertEqual(df.loc[1, "gpu"], best["gpu"])

    def test_recheck_and_progress(self):
        with aiworkload.Plan(SCEN, "chat", ttft_p99="400ms", objective="gpus", recheck=1,
                             recheck_replications=3, settings={"sim.duration": "20s"}) as plan:
            plan.grid("weight_bits", "8,16")
            plan.grid("replicas", "1..4")
            seen = []
            plan.run(progress=lambda done, total: seen.append((done, total)) and False)
            st = plan.stats()
            self.assertEqual(seen[:2], [(1, 2), (2, 2)])
            self.assertEqual(len(seen), 2 + st["rechecked"])
            best = plan.rows()[0]
            self.assertIn(best["recheck_ok"], (0.0, 1.0))
            self.assertGreaterEqual(best["recheck_met_share"], 0.0)
        with aiworkload.Plan(SCEN, "chat", ttft_p99="400ms",
                             settings={"sim.duration": "20s"}) as plan:
            plan.grid("weight_bits", "8,16")
            plan.grid("replicas", "1..4")
            with self.assertRaises(aiworkload.Stopped):
                plan.run(progress=lambda done, total: True)
            self.assertEqual(plan.stats()["rows"], 0)

    def test_errors_carry_the_message(self):
        with aiworkload.Plan(SCEN, "chat") as plan:
            with self.assertRaises(aiworkload.UnknownName) as cm:
                plan.set("objective", "speed")
            self.assertIn("cost_per_mtok", str(cm.exception))
            with self.assertRaises(aiworkload.OutOfRange):
                plan.grid("replicas", "0")


if __name__ == "__main__":
    unittest.main()
