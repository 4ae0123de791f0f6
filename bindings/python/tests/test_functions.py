"""Plain functions (catalog, sizing, collectives) against their closed forms,
the registry introspection, help text and unit parsing."""

import inspect
import io
import unittest

import aiworkload as aiw


class Sizing(unittest.TestCase):
    # closed forms of aiworkload(7); tolerances: the C computes the same
    # products in double precision, a few ulps at most

    def test_training_memory(self):
        self.assertEqual(aiw.size_training_preset("mixed_adam"), 12.0)
        self.assertAlmostEqual(aiw.size_training_memory(70e9, 12) / 840e9, 1.0, places=14)
        presets = aiw.training_presets()
        self.assertEqual(presets["mixed_adam"], 12.0)
        self.assertEqual(presets["bf16_sgd"], 4.0)

    def test_inference_memory(self):
        self.assertAlmostEqual(aiw.size_inference_weights(70e9, 16) / 140e9, 1.0, places=14)
        kv = aiw.size_kv_cache(layers=80, kv_heads=8, head_dim=128, kv_bits=16, tokens=4096,
                               sequences=2)
        self.assertEqual(kv, 2 * 80 * 8 * 128 * 2 * 4096 * 2)
        self.assertEqual(aiw.size_max_sequences(80e9, 16e9, 1e9, 0.0), 64.0)
        self.assertEqual(aiw.size_min_gpus("H100-SXM", 840e9, 0.0), 11.0)  # ceil(840/80)

    def test_flops_and_time(self):
        f = aiw.size_training_flops(405e9, 15.6e12)
        self.assertAlmostEqual(f / (6 * 405e9 * 15.6e12), 1.0, places=14)
        peak = aiw.catalog_gpu_value("H100-SXM", "bf16_flops")
        t = aiw.size_training_time(f, "H100-SXM", 16384, 0.4)
        self.assertAlmostEqual(t / (f / (16384 * peak * 0.4)), 1.0, places=12)

    def test_keywords_and_signature(self):
        sig = inspect.signature(aiw.size_kv_cache)
        self.assertEqual(list(sig.parameters),
                         ["layers", "kv_heads", "head_dim", "kv_bits", "tokens", "sequences"])
        self.assertIn("aiw_size_kv_cache", aiw.size_kv_cache.__doc__)
        self.assertEqual(aiw.size_kv_cache.__name__, "size_kv_cache")


class Collectives(unittest.TestCase):

    def test_busbw(self):
        # nccl-tests: algbw x 2(p-1)/p
        self.assertAlmostEqual(aiw.busbw(1e9, 8, 0.01) / (1e11 * 14 / 8), 1.0, places=14)

    def test_ring_across_nodes(self):
        # one GPU per node: every hop on the NIC, 2(p-1) a + 2(p-1)/p S/B
        p, S, a, B = 16, 1e9, 9.6e-6, 50e9
        t = aiw.allreduce_time("ring", S, p, 1, 5.7e-6, 450e9, a, B, 1.0)
        self.assertAlmostEqual(t / (2 * (p - 1) * a + 2 * (p - 1) / p * S / B), 1.0, places=12)
        # a slow link slows the whole ring
        slow = aiw.allreduce_time("ring", S, p, 1, 5.7e-6, 450e9, a, B, 0.5)
        self.assertGreater(slow, t)
        with self.assertRaises(aiw.UnknownName):
            aiw.allreduce_time("butterfly", S, p, 1, 5.7e-6, 450e9, a, B, 1.0)


class Catalog(unittest.TestCase):

    def test_gpus(self):
        names = aiw.gpus()
        self.assertIn("H100-SXM", names)
        h100 = aiw.gpu("H100-SXM")
        self.assertEqual(h100["tdp_w"], 700.0)
        self.assertEqual(h100["mem_bytes"], 80e9)
        self.assertEqual(h100["nvlink_bw"], 450e9)
        fields = [f for f, _, _ in aiw.gpu_fields()]
        self.assertEqual(sorted(fields), sorted(h100))
        self.assertEqual(aiw.catalog_gpu_count(), len(names))

    def test_links(self):
        names = aiw.links()
        self.assertTrue(names)
        first = aiw.link(names[0])
        self.assertIn("bw", first)
        self.assertIn("alpha_s", first)
        self.assertGreater(first["bw"], 0)


class Registry(unittest.TestCase):

    def test_params(self):
        ps = aiw.params()
        names = [p.name for p in ps]
        self.assertEqual(len(names), len(set(names)))
        self.assertIn("site.pue", names)
        types = {"int", "real", "duration", "rate", "size", "bandwidth", "power", "energy",
                 "money", "flops", "enum", "string", "dist", "bool"}
        self.assertEqual([p for p in ps if p.type not in types], [])
        pue = aiw.param_info("site.pue")
        self.assertEqual((pue.type, pue.default, pue.min, pue.max), ("real", "1.3", 1.0, 5.0))
        self.assertEqual(aiw.params("site.pue"), [pue])
        # an instance name resolves to the declared NAME placeholder
        g = aiw.param_info("training.pretrain.gpus")
        self.assertEqual(g.name, "training.NAME.gpus")
        self.assertEqual(aiw.param_info("training.NAME.allreduce").choices,
                         ("ring", "tree", "hierarchical"))

    def test_help(self):
        text = aiw.help_text("site.pue")
        self.assertIn("site.pue (real)", text)
        self.assertIn("power usage effectiveness", text)
        self.assertIn("default: 1.3", text)
        self.assertIn("range: [1, 5]", text)
        self.assertIn("fixed at start", text)
        self.assertIn("range: (0, 3.2e+09]", aiw.help_text("sim.duration"))
        self.assertIn("may change during a run", aiw.help_text("training.NAME.jitter"))
        out = io.StringIO()
        aiw.help("site.", file=out)
        self.assertIn("site.electricity_price", out.getvalue())
        out = io.StringIO()
        aiw.help("no.such.thing", file=out)
        self.assertIn("no parameter matches", out.getvalue())

    def test_metrics(self):
        ms = aiw.metrics()
        self.assertGreater(len(ms), 100)
        m = aiw.metric_info("inference.chat.requests_arrived")
        self.assertEqual(m.name, "inference.NAME.requests_arrived")
        self.assertEqual((m.prom, m.prom_type), ("inference_requests_arrived_total", "counter"))
        self.assertTrue(m.headline and m.count)
        self.assertEqual(aiw.metric_info("site.power_peak_w").unit, "W")
        self.assertEqual(aiw.metrics("training.NAME.goodput")[0].label,
                         "Goodput (useful compute / wall)")
        with self.assertRaises(KeyError):
            aiw.metric_info("site.no_such_metric")
        out = io.StringIO()
        aiw.help("ttft_p99", file=out)
        self.assertIn("inference.NAME.ttft_p99_s (s, headline)", out.getvalue())

    def test_parse_value(self):
        self.assertEqual(aiw.parse_value("duration", "90d"), 7776000.0)
        self.assertEqual(aiw.parse_value("duration", "250ms"), 0.25)
        self.assertEqual(aiw.parse_value("bandwidth", "3.35TB/s"), 3.35e12)
        self.assertEqual(aiw.parse_value("bandwidth", "400Gb/s"), 5e10)
        self.assertEqual(aiw.parse_value("power", "700W"), 700.0)
        self.assertEqual(aiw.parse_value("rate", "20/s"), 20.0)
        self.assertEqual(aiw.parse_value("size", "80GB"), 80e9)


class Cli(unittest.TestCase):

    def test_main(self):
        from aiworkload import __main__ as cli
        import contextlib
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            self.assertEqual(cli.main(["version"]), 0)
            self.assertEqual(cli.main(["params", "site.pue"]), 0)
            self.assertEqual(cli.main(["run", "--set", "sim.duration=1h"]), 0)
        text = out.getvalue()
        self.assertIn("libaiworkload", text)
        self.assertIn("site.pue (real)", text)
        self.assertIn("site.power_peak_w", text)
        err = io.StringIO()
        with contextlib.redirect_stderr(err):
            self.assertEqual(cli.main(["run", "--set", "site.pue=0.5"]), 2)
        self.assertIn("site.pue", err.getvalue())


if __name__ == "__main__":
    unittest.main()
