"""The serving plan: the cheapest configuration of one inference fleet that
meets P99 latency limits under caps (aiw_plan_create(3))."""

import ctypes
from ctypes import byref, c_char_p, c_double, c_size_t, c_void_p

from . import _capi

COLUMNS = ("objective", "gpus", "replicas", "gpus_per_replica", "weight_bits", "max_batch",
           "ttft_p99_s", "ttft_p99_ci95_s", "tpot_p99_s", "tpot_p99_ci95_s", "power_peak_w",
           "energy_kwh", "cost_per_mtok_usd", "pareto_ttft", "pareto_power",
           "recheck_ttft_p99_s", "recheck_ttft_p99_ci95_s", "recheck_tpot_p99_s",
           "recheck_tpot_p99_ci95_s", "recheck_met_share", "recheck_ok", "pp", "spot_fraction",
           "max_num_batched_tokens", "autoscaler_target", "met_share", "attainment_lcb",
           "disaggregated", "decode_replicas", "decode_gpus")
STATS = ("candidates", "pruned_memory", "pruned_cap", "pruned_bisection", "simulated", "runs",
         "rows", "pruned_load", "rechecked", "recheck_failed")


def _b(s):
    return s.encode("utf-8") if isinstance(s, str) else s


def _s(b):
    return b.decode("utf-8") if b else ""


class Plan(object):
    """plan = Plan("scenario.ini", "chat", ttft_p99="500ms", objective="gpus")
    plan.grid("gpu", "H100-SXM,L4"); plan.grid("replicas", "1..16")
    plan.run(); plan.rows()[0]["gpu"], plan.stats(), plan.verdict()

    scenario: a file path, or INI text when it holds a newline.  Keyword
    settings go to aiw_plan_set (a key with a '.' in it: pass a dict as
    settings=)."""

    def __init__(self, scenario, component, settings=None, **kw):
        self._p = _capi.PLAN()
        text = "\n" in scenario
        _capi.lib.aiw_plan_create(byref(self._p), None if text else _b(str(scenario)),
                                  _b(scenario) if text else None, _b(component))
        for k, v in list((settings or {}).items()) + list(kw.items()):
            self.set(k, v)

    def close(self):
        if self._p:
            _capi.lib.aiw_plan_free(self._p)
            self._p = _capi.PLAN()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass

    def errmsg(self):
        return _s(_capi.lib.aiw_plan_errmsg(self._p))

    def set(self, key, value):
        _capi.lib.aiw_plan_set(self._p, _b(key), _b(str(value)))

    def grid(self, param, values):
        if not isinstance(values, (str, bytes)):
            values = ",".join(str(v) for v in values)
        _capi.lib.aiw_plan_grid(self._p, _b(param), _b(values))

    def run(self, progress=None):
        """Run the search.  progress(done, total), when given, is called
        after each combination (and each re-checked row); a true return
        stops the plan (aiworkload.Stopped)."""
        if progress is None:
            _capi.lib.aiw_plan_run(self._p)
            return

        def cb(_plan, done, total, _payload):
            try:
                return 1 if progress(int(done), int(total)) else 0
            except Exception:  # an exception in the callback stops the plan
                return 1

        fn = _capi.PLAN_PROGRESS_FN(cb)
        _capi.lib.aiw_plan_set_progress(self._p, fn, None)
        _capi.lib.aiw_plan_run(self._p)

    def run_part(self, part, nparts):
        """Run combinations part, part + nparts, ... of the grid (one
        process's share; aiw_plan_run_part) and return their results as
        bytes, for merge() on one plan."""
        out = c_void_p()
        n = c_size_t()
        _capi.lib.aiw_plan_run_part(self._p, part, nparts, byref(out), byref(n))
        try:
            return ctypes.string_at(out, n.value)
        finally:
            ctypes.CDLL(None).free(out)

    def merge(self, parts):
        """Merge every part's bytes (run_part of each process, this plan's
        among them) into the ranked table: the same as run()."""
        bufs = [ctypes.create_string_buffer(bytes(b), len(b)) for b in parts]
        ptrs = (c_void_p * len(bufs))(*[ctypes.cast(b, c_void_p) for b in bufs])
        lens = (c_size_t * len(bufs))(*[len(b) for b in parts])
        _capi.lib.aiw_plan_merge(self._p, ptrs, lens, len(bufs))

    def stats(self):
        out = (c_size_t * len(STATS))()
        _capi.lib.aiw_plan_stats(self._p, out, len(STATS))
        return dict(zip(STATS, (int(v) for v in out)))

    def rows(self):
        """The ranked table: dicts of the columns, "gpu" and "snippet"."""
        out = []
        for i in range(self.stats()["rows"]):
            v = (c_double * len(COLUMNS))()
            gpu, snip = c_char_p(), c_char_p()
            _capi.lib.aiw_plan_row(self._p, i, v, len(COLUMNS), byref(gpu), byref(snip))
            row = dict(zip(COLUMNS, list(v)))
            row["gpu"] = _s(gpu.value)
            row["snippet"] = _s(snip.value)
            out.append(row)
        return out

    def verdict(self):
        p = c_char_p()
        _capi.lib.aiw_plan_verdict(self._p, byref(p))
        return _s(p.value)

    def write_csv(self, path):
        _capi.lib.aiw_plan_write_csv(self._p, _b(str(path)))

    def write_html(self, path):
        """The plan's self-contained HTML report (aiw_plan_write_html(3))."""
        _capi.lib.aiw_plan_write_html(self._p, _b(str(path)))

    def to_pandas(self):
        """The ranked table as a pandas.DataFrame, one row per rank (from 1),
        the columns of rows().  Needs pandas."""
        try:
            import pandas
        except ImportError:
            raise ImportError("Plan.to_pandas() needs pandas (Debian: python3-pandas)")
        rows = self.rows()
        df = pandas.DataFrame(rows, columns=list(COLUMNS) + ["gpu", "snippet"])
        df.index = pandas.RangeIndex(1, len(rows) + 1, name="rank")
        return df
