"""The Sweep class: a grid of parameter values x replications run by the
library on its own threads (aiw_sweep_*), with per-point mean, standard
deviation and 95% confidence half-width.

    with Sweep("site.ini", replications=8, jobs=0,
               metrics=["site.diversity_factor"]) as sw:
        sw.axis("training.pretrain.gpus", [1024, 2048, 4096])
        sw.run()
        for row in sw.results():
            print(row["training.pretrain.gpus"], row["site.diversity_factor"])

Callbacks (per completed point, and per finished task for progress) run on
the thread that called run(); an exception raised in one stops the sweep
(aiw_sweep_stop) and is re-raised by run() once the C call has returned.
Ctrl-C during run() stops the sweep the same way: completed points keep
their results and a later run() continues.
"""

import os
import threading
import weakref
import math
from ctypes import byref, c_char_p, c_double, c_int, c_size_t, c_uint64, c_void_p, cast

from . import _arrays, _capi
from ._capi import SWEEP, SWEEP_FN, SWEEP_PROGRESS_FN
from .errors import AiwError, StateError

__all__ = ["Sweep"]

_live = {}
_live_lock = threading.Lock()


def _b(s):
    if s is None:
        return None
    if isinstance(s, bytes):
        return s
    if isinstance(s, os.PathLike):
        return os.fsencode(s)
    return str(s).encode("utf-8")


def _s(b):
    return b.decode("utf-8", "replace") if b is not None else None


def _csv(values):
    """A list of values -> the C side's comma-separated text (commas inside
    a value are escaped); a str is passed as it is."""
    if isinstance(values, (str, bytes)):
        return values
    out = []
    for v in values:
        if isinstance(v, bool):
            v = "true" if v else "false"
        elif isinstance(v, float):
            v = repr(v)
        out.append(str(v).replace("\\", "\\\\").replace(",", "\\,"))
    return ",".join(out)


def _typed(name, text):
    """A point's value text as the parameter's type says: int for int, bool
    for bool, float in SI units for the other numeric types ("90d" ->
    7776000.0), str for enum, string and distribution parameters; None for
    "none"; text the registry cannot type ("auto", an unknown name) stays
    text."""
    from .registry import param_info, parse_value
    try:
        typ = param_info(name).type
    except AiwError:
        return text
    t = text.strip()
    if typ in ("enum", "string", "dist"):
        return text
    if t.lower() == "none" or t == "":
        return None
    if typ == "bool":
        if t.lower() in ("true", "yes", "on", "1"):
            return True
        if t.lower() in ("false", "no", "off", "0"):
            return False
        return text
    try:
        v = parse_value("real" if typ == "int" else typ, t)
    except AiwError:
        return text
    if typ == "int" and math.isfinite(v) and v == math.floor(v):
        return int(t) if t.lstrip("+-").isdigit() else int(v)
    return v


def _owner(addr):
    with _live_lock:
        ref = _live.get(addr)
    return ref() if ref is not None else None


def _on_point(swaddr, point, payload):
    sw = _owner(swaddr)
    if sw is None or sw._exc is not None:
        return
    try:
        if sw._callback is not None:
            sw._callback(sw, point)
    except BaseException as e:  # noqa: B902 - re-raised after the run
        sw._exc = e
        _capi.lib.aiw_sweep_stop(sw._ptr)


def _on_progress(swaddr, done, total, payload):
    sw = _owner(swaddr)
    if sw is None:
        return 1
    if sw._exc is not None:
        return 1
    try:
        if sw._progress is not None and sw._progress(sw, done, total):
            return 1
    except BaseException as e:  # noqa: B902 - KeyboardInterrupt lands here too
        sw._exc = e
        return 1
    return 0


_POINT_TRAMPOLINE = SWEEP_FN(_on_point)
_PROGRESS_TRAMPOLINE = SWEEP_PROGRESS_FN(_on_progress)


class Sweep(object):
    """An experiment sweep (aiw_sweep).

    Sweep(scenario=None, axes=None, replications=None, metrics=None, seed=None,
          jobs=None, point_file=None)

    scenario: a scenario file (PathLike, or a str naming a file) or INI text;
    axes: {parameter: [values]} (the last varies fastest); metrics: names or
    shell patterns to keep (default: every metric); jobs: worker threads (0:
    one per processor); seed: base of the replication seeds (default: the
    scenario's sim.seed); keep_going: a refused point does not stop the
    sweep (set_keep_going).
    """

    def __init__(self, scenario=None, axes=None, replications=None, metrics=None, seed=None,
                 jobs=None, point_file=None, keep_going=None):
        self._ptr = None
        self._exc = None
        self._callback = None
        self._progress = None
        self._running = False
        self._keep_going = False
        path = text = None
        if isinstance(scenario, os.PathLike):
            path = os.fsencode(scenario)
        elif isinstance(scenario, bytes) or (isinstance(scenario, str) and (
                "\n" in scenario or scenario.lstrip().startswith("["))):
            text = _b(scenario)
        elif scenario is not None:
            path = _b(scenario)
        p = SWEEP()
        _capi.lib.aiw_sweep_create(byref(p), path, text)
        self._ptr = p
        self._addr = cast(p, c_void_p).value
        with _live_lock:
            _live[self._addr] = weakref.ref(self)
        _capi.lib.aiw_sweep_set_callback(p, _POINT_TRAMPOLINE, None)
        _capi.lib.aiw_sweep_set_progress(p, _PROGRESS_TRAMPOLINE, None)
        if point_file is not None:
            self.point_file(point_file)
        for k, v in (axes or {}).items():
            self.axis(k, v)
        if replications is not None:
            self.set_replications(replications)
        if metrics is not None:
            self.set_metrics(metrics)
        if seed is not None:
            self.set_seed(seed)
        if jobs is not None:
            self.set_jobs(jobs)
        if keep_going is not None:
            self.set_keep_going(keep_going)

    # ---- lifecycle ---------------------------------------------------------
    def close(self):
        """Free the sweep (idempotent; not from inside run())."""
        if self._running:
            raise StateError(-8, "AIW_ESTATE", "Sweep.close() called from inside run()",
                             "aiw_sweep_free")
        p, self._ptr = self._ptr, None
        if p is None:
            return
        with _live_lock:
            _live.pop(self._addr, None)
        _capi.lib.aiw_sweep_free(p)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        try:
            if getattr(self, "_ptr", None) is not None and not self._running:
                self.close()
        except Exception:
            pass

    def _p(self):
        if self._ptr is None:
            raise StateError(-8, "AIW_ESTATE", "the sweep is closed", None)
        return self._ptr

    @property
    def errmsg(self):
        return _s(_capi.lib.aiw_sweep_errmsg(self._p()))

    # ---- description -------------------------------------------------------
    def axis(self, param, values):
        """Add an axis: a parameter and its values (a list, or C-style
        comma-separated text)."""
        _capi.lib.aiw_sweep_axis(self._p(), _b(param), _b(_csv(values)))
        return self

    def point_file(self, path):
        """Points from a CSV file: a header of parameter names, one row per point."""
        _capi.lib.aiw_sweep_point_file(self._p(), _b(path))
        return self

    def set_replications(self, r):
        _capi.lib.aiw_sweep_set_replications(self._p(), int(r))
        return self

    def set_metrics(self, metrics):
        """Metric names or shell patterns to keep (a list or comma-separated)."""
        if metrics is not None and not isinstance(metrics, (str, bytes)):
            metrics = ",".join(metrics)
        _capi.lib.aiw_sweep_set_metrics(self._p(), _b(metrics))
        return self

    def set_seed(self, seed):
        _capi.lib.aiw_sweep_set_seed(self._p(), int(seed))
        return self

    def set_jobs(self, jobs):
        """Worker threads, 1 to 1024, or 0 for one per online processor."""
        _capi.lib.aiw_sweep_set_jobs(self._p(), int(jobs))
        return self

    def set_keep_going(self, keep_going=True):
        """A point whose run is refused does not stop the sweep: its status
        and message are kept (point_status), the other points run, and
        results() and write_csv() carry a status and a message per point.
        Before prepare()."""
        _capi.lib.aiw_sweep_set_keep_going(self._p(), 1 if keep_going else 0)
        self._keep_going = bool(keep_going)
        return self

    def prepare(self):
        """Read the scenario, expand the grid, check every value (idempotent)."""
        _capi.lib.aiw_sweep_prepare(self._p())
        return self

    # ---- running -----------------------------------------------------------
    def run(self, callback=None, progress=None):
        """Run every task not yet done.  callback(sweep, point) after each
        completed point (in point order); progress(sweep, done, total) after
        each task, a true return stops the sweep (Stopped).  Returns self."""
        p = self._p()
        if self._running:
            raise StateError(-8, "AIW_ESTATE", "Sweep.run() called from inside run()",
                             "aiw_sweep_run")
        self._callback, self._progress, self._exc = callback, progress, None
        self._running = True
        err = None
        try:
            _capi.lib.aiw_sweep_run(p)
        except AiwError as e:
            err = e
        finally:
            self._running = False
            self._callback = self._progress = None
        if self._exc is not None:
            exc, self._exc = self._exc, None
            raise exc
        if err is not None:
            raise err
        return self

    def stop(self):
        """Ask a running sweep to stop soon (any thread)."""
        _capi.lib.aiw_sweep_stop(self._p())

    # ---- grid and results --------------------------------------------------
    def _count(self, fn):
        out = c_size_t()
        fn(self._p(), byref(out))
        return out.value

    @property
    def npoints(self):
        return self._count(_capi.lib.aiw_sweep_npoints)

    def param_names(self):
        n = self._count(_capi.lib.aiw_sweep_nparams)
        out, name = [], c_char_p()
        for i in range(n):
            _capi.lib.aiw_sweep_param_name(self._p(), i, byref(name))
            out.append(_s(name.value))
        return out

    def point_text(self, point):
        """{parameter: value text} of a point, as given."""
        out, val = {}, c_char_p()
        for i, name in enumerate(self.param_names()):
            _capi.lib.aiw_sweep_point_value(self._p(), point, i, byref(val))
            out[name] = _s(val.value)
        return out

    def point(self, point):
        """{parameter: value} of a point, typed as the parameter's type says:
        int, bool, float in SI units ("90d" -> 7776000.0), str for enum,
        string and distribution parameters, None for "none"."""
        return {k: _typed(k, v) for k, v in self.point_text(point).items()}

    def point_status(self, point):
        """(status, message) of a point after run(): ("AIW_OK", "") with
        results; under keep_going a refused point's status name
        ("AIW_ERANGE", ...) and message; ("AIW_ESTOPPED", "not run") when it
        has not run."""
        st, msg = c_int(), c_char_p()
        _capi.lib.aiw_sweep_point_status(self._p(), point, byref(st), byref(msg))
        return _s(_capi.lib.aiw_status_name(st.value)), _s(msg.value) or ""

    def metric_names(self):
        n = self._count(_capi.lib.aiw_sweep_nmetrics)
        out, name = [], c_char_p()
        for i in range(n):
            _capi.lib.aiw_sweep_metric_name(self._p(), i, byref(name))
            out.append(_s(name.value))
        return out

    def _metric_index(self, metric):
        if isinstance(metric, int):
            return metric
        names = self.metric_names()
        try:
            return names.index(metric)
        except ValueError:
            from .errors import UnknownName
            raise UnknownName(-3, "AIW_EUNKNOWN", "the sweep keeps no metric %r (it keeps %s)"
                              % (metric, ", ".join(names)), None)

    def task_seed(self, point, rep):
        """sim.seed of replication rep of point."""
        out = c_uint64()
        _capi.lib.aiw_sweep_task_seed(self._p(), point, rep, byref(out))
        return out.value

    def run_task(self, point, rep):
        """Run one task on this thread; its metric vector (NaN: not published)."""
        buf = _arrays.empty(self._count(_capi.lib.aiw_sweep_nmetrics))
        _capi.lib.aiw_sweep_run_task(self._p(), point, rep, _arrays.ptr(buf))
        return buf

    def store(self, point, rep, values):
        """Store a task's metric vector computed elsewhere."""
        n = self._count(_capi.lib.aiw_sweep_nmetrics)
        buf = _arrays.from_values(values)
        if len(buf) != n:
            raise ValueError("store: %d values for %d metrics" % (len(buf), n))
        _capi.lib.aiw_sweep_store(self._p(), point, rep, _arrays.ptr(buf))

    def result(self, point, metric):
        """(mean, sd, ci95_half, n) of a metric (name or index) at a complete point."""
        mean, sd, ci, n = c_double(), c_double(), c_double(), c_size_t()
        _capi.lib.aiw_sweep_result(self._p(), point, self._metric_index(metric), byref(mean),
                                   byref(sd), byref(ci), byref(n))
        return mean.value, sd.value, ci.value, n.value

    def replication(self, point, rep, metric):
        out = c_double()
        _capi.lib.aiw_sweep_replication(self._p(), point, rep, self._metric_index(metric),
                                        byref(out))
        return out.value

    def results(self):
        """One dict per complete point: "point", the parameters (typed as
        point() types them), and per metric M: M (mean), M.sd, M.ci95, M.n.
        Under keep_going also "status" and "message" (point_status), and
        the refused points with their metrics None and M.n 0."""
        names = self.metric_names()
        rows = []
        for p in range(self.npoints):
            row = {"point": p}
            row.update(self.point(p))
            if self._keep_going:
                status, message = self.point_status(p)
                if status == "AIW_ESTOPPED":
                    continue  # not run (stopped sweep)
                row["status"], row["message"] = status, message
                if status != "AIW_OK":
                    for m in names:
                        row[m] = row[m + ".sd"] = row[m + ".ci95"] = None
                        row[m + ".n"] = 0
                    rows.append(row)
                    continue
            try:
                for i, m in enumerate(names):
                    mean, sd, ci, n = self.result(p, i)
                    row[m], row[m + ".sd"], row[m + ".ci95"], row[m + ".n"] = mean, sd, ci, n
            except StateError:
                continue  # not complete (stopped sweep)
            rows.append(row)
        return rows

    def to_pandas(self):
        try:
            import pandas
        except ImportError:
            raise ImportError("Sweep.to_pandas() needs pandas (Debian: python3-pandas)")
        return pandas.DataFrame(self.results())

    def write_csv(self, path):
        _capi.lib.aiw_sweep_write_csv(self._p(), _b(path))

    def write_replications_csv(self, path):
        _capi.lib.aiw_sweep_write_replications_csv(self._p(), _b(path))

    def write_html(self, path):
        """The sweep's report: one self-contained HTML page (identity, every
        point's means and 95% confidence half-widths, the refused points, a
        chart per metric against the first parameter)."""
        _capi.lib.aiw_sweep_write_html(self._p(), _b(path))
