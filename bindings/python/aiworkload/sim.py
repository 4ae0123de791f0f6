"""The Simulation class: a Pythonic handle on one aiw_sim.

    with Simulation("scenario.ini", seed=42, site__pue=1.2) as sim:
        sim.set("inference.chat.max_batch", 32)
        sim.run()
        print(sim.metric("site.diversity_factor"))
        t, p = sim.series("site.power_w")

Driver callbacks (schedule, set_progress, set_sample_callback) go through
module-level trampolines, so a Simulation holds no reference cycle and no
per-event ctypes thunk.  An exception raised inside a callback is captured, the run
is stopped at the next sample tick (later callbacks of that simulation are
skipped), and the exception is re-raised by the run call once the C
function has returned: it is never lost inside ctypes.
"""

import itertools
import math
import os
import threading
import weakref
from ctypes import byref, c_char_p, c_double, c_size_t, c_uint64, c_void_p, cast, \
    create_string_buffer

from . import _arrays, _capi
from ._capi import EVENT_FN, PROGRESS_FN, SAMPLE_FN, SIM
from .errors import AiwError, BufferError_, InvalidArgument, StateError


__all__ = ["Simulation"]

# Simulations by the address of their aiw_sim, for the trampolines.
_live = {}
_live_lock = threading.Lock()
_keys = itertools.count(1)


def _b(s):
    """str / bytes / PathLike -> bytes for a const char * argument."""
    if s is None:
        return None
    if isinstance(s, bytes):
        return s
    if isinstance(s, os.PathLike):
        return os.fsencode(s)
    return str(s).encode("utf-8")


def _s(b):
    return b.decode("utf-8", "replace") if b is not None else None


def _seconds(t):
    """A time in seconds from a number or a string with units ("2h")."""
    if isinstance(t, str):
        from .registry import parse_value
        return parse_value("duration", t)
    return float(t)


def _owner(addr):
    with _live_lock:
        ref = _live.get(addr)
    return ref() if ref is not None else None


def _guarded(simaddr, body):
    """Run body(sim) for the Simulation at simaddr from a C callback.

    Never lets anything escape into ctypes (it would print and be lost): a
    failure of the user's callback, or of the bookkeeping around it, is kept
    on the Simulation (the first one) and re-raised after the run.  body
    skips the user's callback once a previous one failed."""
    try:
        sim = _owner(simaddr)
        if sim is None:
            return
        try:
            body(sim)
        except BaseException as e:  # noqa: B902 - re-raised after the run
            if sim._exc is None:
                sim._fail(e)
    except BaseException as e:  # pragma: no cover - bookkeeping failure
        sim = _owner(simaddr)
        if sim is not None and sim._exc is None:
            sim._fail(e)


def _on_event(simaddr, t, payload):
    def body(sim):
        entry = sim._events.pop(payload or 0, None)
        if entry is None:
            return
        fn, handle = entry
        sim._handles.pop(handle, None)
        if sim._exc is None:  # a previous callback failed: skip
            fn(sim, t)

    _guarded(simaddr, body)


def _on_progress(simaddr, now, end, payload):
    try:
        sim = _owner(simaddr)
        if sim is None:
            return 0
        if sim._exc is not None:
            return 1
        fn = sim._progress[0] if sim._progress else None
        if fn is None:
            return 0
        try:
            return 1 if fn(sim, now, end) else 0
        except BaseException as e:  # noqa: B902
            sim._exc = e
            return 1
    except BaseException:  # pragma: no cover
        return 1


def _on_sample(simaddr, t, values, n, payload):
    def body(sim):
        if sim._exc is None and sim._sample is not None:
            sim._sample(sim, t, values[:n])

    _guarded(simaddr, body)


_EVENT_TRAMPOLINE = EVENT_FN(_on_event)
_PROGRESS_TRAMPOLINE = PROGRESS_FN(_on_progress)
_SAMPLE_TRAMPOLINE = SAMPLE_FN(_on_sample)


class Simulation(object):
    """One simulation (aiw_sim).

    Simulation(scenario=None, seed=None, **params)

    scenario: a path (str or PathLike) to an INI scenario file, or scenario
    text.  seed: the seed of every random stream; None keeps the scenario's
    [sim] seed (1 when it has none); a given seed overrides the scenario.
    params: parameters by full name, applied after the scenario in the order
    given; write dots as "__" (site__pue=1.2) or pass a dict with
    **{"training.pretrain.gpus": 4096}.  Values are numbers (SI units),
    booleans, or strings with units ("90d", "3.35TB/s").
    """

    def __init__(self, scenario=None, seed=None, **params):
        self._ptr = None
        self._events = {}
        self._handles = {}
        self._progress = None  # (fn, every) set by the user
        self._sample = None  # fn(sim, t, values) set by the user
        self._stop_armed = False
        self._exc = None
        self._running = False
        p = SIM()
        _capi.lib.aiw_sim_create(byref(p), 1 if seed is None else int(seed))
        self._ptr = p
        self._addr = cast(p, c_void_p).value
        with _live_lock:
            _live[self._addr] = weakref.ref(self)
        if scenario is not None:
            self.load(scenario)
        if seed is not None:
            self.set("sim.seed", int(seed))
        for k, v in params.items():
            self.set(k.replace("__", "."), v)

    # ---- lifecycle ---------------------------------------------------------
    def close(self):
        """Free the simulation (idempotent).  Not allowed from a callback."""
        if self._running:
            raise StateError(-8, "AIW_ESTATE", "Simulation.close() called from inside a run "
                             "(an event or progress callback)", "aiw_sim_free")
        p, self._ptr = self._ptr, None
        if p is None:
            return
        with _live_lock:
            _live.pop(self._addr, None)
        self._events.clear()
        self._handles.clear()
        _capi.lib.aiw_sim_free(p)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def __del__(self):
        # Guarded: may run at interpreter exit when modules are half gone,
        # or on an object whose __init__ failed.
        try:
            if getattr(self, "_ptr", None) is not None and not self._running:
                self.close()
        except Exception:
            pass

    @property
    def closed(self):
        return self._ptr is None

    def _p(self):
        if self._ptr is None:
            raise StateError(-8, "AIW_ESTATE", "the simulation is closed", None)
        return self._ptr

    def __repr__(self):
        if self._ptr is None:
            return "<aiworkload.Simulation closed>"
        return "<aiworkload.Simulation t=%g s, %d curves>" % (self.now, len(self.series_names()))

    def reset(self):
        """Back to time 0 with the same parameters and seed (aiw_sim_reset);
        pending events, driver callbacks included, are dropped."""
        _capi.lib.aiw_sim_reset(self._p())
        self._events.clear()
        self._handles.clear()
        return self

    # ---- parameters --------------------------------------------------------
    def set(self, name, value):
        """Set a parameter: numbers in SI units, bool, or text with units.

        Raises OutOfRange, ParseError, UnknownName (with a suggestion),
        StateError (a parameter that cannot change during a run)."""
        p = self._p()
        if isinstance(value, bool):
            _capi.lib.aiw_sim_set(p, _b(name), b"true" if value else b"false")
        elif isinstance(value, float):
            _capi.lib.aiw_sim_set_double(p, _b(name), value)
        elif isinstance(value, int):  # exact, even past 2**53 (seeds)
            _capi.lib.aiw_sim_set(p, _b(name), str(value).encode())
        elif hasattr(value, "item") and hasattr(value, "dtype"):  # numpy scalar
            self.set(name, value.item())
        else:
            _capi.lib.aiw_sim_set(p, _b(name), _b(value))
        return self

    def update(self, params=None, **kw):
        """Set several parameters (a dict and/or keywords with __ for dots)."""
        for k, v in dict(params or {}, **kw).items():
            self.set(k.replace("__", "."), v)
        return self

    def get_text(self, name):
        """A parameter's value in canonical text form (aiw_sim_get)."""
        p, bname = self._p(), _b(name)
        size = 256
        while True:
            buf = create_string_buffer(size)
            try:
                _capi.lib.aiw_sim_get(p, bname, buf, size)
                return _s(buf.value)
            except BufferError_:
                if size >= 1 << 20:
                    raise
                size *= 16

    def get(self, name):
        """A parameter's value: float for numeric types (int for int, bool for
        bool), text for enum, string and distribution parameters and for
        "auto"/unset numeric values."""
        from .registry import param_info
        typ = param_info(name).type
        if typ in ("enum", "string", "dist"):
            return self.get_text(name)
        out = c_double()
        _capi.lib.aiw_sim_get_double(self._p(), _b(name), byref(out))
        v = out.value
        if math.isnan(v):
            return self.get_text(name) or None
        if typ == "int":
            if abs(v) >= 2.0 ** 53:
                return int(self.get_text(name))
            return int(v)
        if typ == "bool":
            return bool(v)
        return v

    def __getitem__(self, name):
        return self.get(name)

    def __setitem__(self, name, value):
        self.set(name, value)

    def add_component(self, kind, name):
        """Add a component explicitly ("training", "pretrain")."""
        _capi.lib.aiw_sim_add_component(self._p(), _b(kind), _b(name))
        return self

    def components(self):
        """The components, in creation order, as (kind, name) pairs: ("sim",
        "") and ("site", "") first, then ("training", "pretrain"), ..."""
        p = self._p()
        n = c_size_t()
        _capi.lib.aiw_sim_component_count(p, byref(n))
        kind, name = c_char_p(), c_char_p()
        out = []
        for i in range(n.value):
            _capi.lib.aiw_sim_component(p, i, byref(kind), byref(name))
            out.append((_s(kind.value), _s(name.value)))
        return out

    def load(self, path_or_text, origin=None):
        """Load an INI scenario from a file (a PathLike, or a str naming a file)
        or from text (a str with a newline or starting with '[', or bytes)."""
        p = self._p()
        if isinstance(path_or_text, os.PathLike):
            _capi.lib.aiw_sim_load_file(p, os.fsencode(path_or_text))
        elif isinstance(path_or_text, bytes) or "\n" in path_or_text or \
                path_or_text.lstrip().startswith("["):
            _capi.lib.aiw_sim_load_string(p, _b(path_or_text), _b(origin))
        else:
            _capi.lib.aiw_sim_load_file(p, _b(path_or_text))
        return self

    # ---- running -----------------------------------------------------------
    def _fail(self, exc):
        """A callback raised: remember it and stop the run soon."""
        self._exc = exc
        if not self._stop_armed:
            self._stop_armed = True
            try:
                every = self.get("sim.sample_interval")
            except Exception:
                every = 1.0
            _capi.lib.aiw_sim_set_progress(self._ptr, _PROGRESS_TRAMPOLINE, None,
                                           float(every) if every else 1.0)

    def _call_run(self, fn, *args):
        p = self._p()
        if self._running:
            # from a callback: the C library refuses (AIW_ESTATE, with its
            # message); never touch the outer run's bookkeeping
            fn(p, *args)
            raise StateError(-8, "AIW_ESTATE", "run called from inside a run (a callback)",
                             getattr(fn, "__name__", None))
        self._running = True
        err = None
        try:
            fn(p, *args)
        except AiwError as e:
            err = e
        finally:
            self._running = False
            if self._stop_armed:
                self._stop_armed = False
                self._install_progress()
            if self._events:
                n = c_size_t()
                _capi.lib.aiw_sim_pending(p, byref(n))
                if n.value == 0:  # e.g. a failed start dropped every event
                    self._events.clear()
                    self._handles.clear()
        if self._exc is not None:
            exc, self._exc = self._exc, None
            raise exc
        if err is not None:
            raise err
        return self

    def run(self):
        """Run to sim.duration.  Returns self."""
        return self._call_run(_capi.lib.aiw_sim_run)

    def run_until(self, t):
        """Run up to simulated time t (seconds, or a string such as "6h"), so a
        driver can read metrics and change runtime parameters between steps.
        Returns self."""
        return self._call_run(_capi.lib.aiw_sim_run_until, _seconds(t))

    @property
    def now(self):
        """Current simulated time (s)."""
        out = c_double()
        _capi.lib.aiw_sim_now(self._p(), byref(out))
        return out.value

    @property
    def pending(self):
        """Number of events pending in the engine."""
        out = c_size_t()
        _capi.lib.aiw_sim_pending(self._p(), byref(out))
        return out.value

    @property
    def errmsg(self):
        """The library's last message on this simulation ("" if none)."""
        return _s(_capi.lib.aiw_sim_errmsg(self._p()))

    def schedule(self, t, callback):
        """Call callback(sim, t) at simulated time t (>= now; seconds or a
        string with units).  Returns a handle for cancel().  Events at equal
        times run in the order they were scheduled."""
        if not callable(callback):
            raise TypeError("schedule: callback must be callable")
        key = next(_keys)
        h = c_uint64()
        self._events[key] = (callback, None)
        try:
            _capi.lib.aiw_sim_schedule(self._p(), _seconds(t), _EVENT_TRAMPOLINE,
                                       c_void_p(key), byref(h))
        except BaseException:
            self._events.pop(key, None)
            raise
        self._events[key] = (callback, h.value)
        self._handles[h.value] = key
        return h.value

    def cancel(self, handle):
        """Cancel a scheduled event (UnknownName if it already ran)."""
        _capi.lib.aiw_sim_cancel(self._p(), handle)
        key = self._handles.pop(handle, None)
        if key is not None:
            self._events.pop(key, None)

    def set_progress(self, fn, every=0.0):
        """Call fn(sim, now, end) about every `every` simulated seconds (0: once
        per sample tick); a true return value stops the run (Stopped).  None
        removes it."""
        self._progress = (fn, _seconds(every)) if fn is not None else None
        self._install_progress()
        return self

    def set_sample_callback(self, fn):
        """Call fn(sim, t, values) at every sample tick, once every curve has
        its point: values is a list of floats, one per curve in the order of
        series_names().  With sim.series_keep = N the curves keep only their
        last N points in memory; the callback still sees every point, so it
        can stream whole curves out of a long run.  None removes it."""
        if fn is not None and not callable(fn):
            raise TypeError("set_sample_callback: fn must be callable or None")
        self._sample = fn
        _capi.lib.aiw_sim_set_sample_callback(
            self._p(), _SAMPLE_TRAMPOLINE if fn is not None else SAMPLE_FN(), None)
        return self

    def _install_progress(self):
        p = self._p()
        if self._progress is None:
            _capi.lib.aiw_sim_set_progress(p, PROGRESS_FN(), None, 0.0)
        else:
            _capi.lib.aiw_sim_set_progress(p, _PROGRESS_TRAMPOLINE, None,
                                           float(self._progress[1]))

    # ---- results -----------------------------------------------------------
    def metric(self, name):
        """A summary metric ("site.power_peak_w")."""
        out = c_double()
        _capi.lib.aiw_sim_metric(self._p(), _b(name), byref(out))
        return out.value

    def metric_names(self):
        p = self._p()
        n = c_size_t()
        _capi.lib.aiw_sim_metric_count(p, byref(n))
        name = c_char_p()
        out = []
        for i in range(n.value):
            _capi.lib.aiw_sim_metric_name(p, i, byref(name))
            out.append(_s(name.value))
        return out

    def metrics(self):
        """Every summary metric as {name: value} (after a run call)."""
        return {name: self.metric(name) for name in self.metric_names()}

    def warnings(self):
        """The run's warnings (results to read with care, e.g. site.capacity
        exceeded), as a list of strings; [] when none.  They never raise:
        the run's status is its own.  Cleared by reset()."""
        p = self._p()
        n = c_size_t()
        _capi.lib.aiw_sim_warning_count(p, byref(n))
        text = c_char_p()
        out = []
        for i in range(n.value):
            _capi.lib.aiw_sim_warning(p, i, byref(text))
            out.append(_s(text.value))
        return out

    def inputs(self):
        """The files the parameters name, which the simulation reads (a
        measured profile, a trace, empirical(FILE) samples), as a list of
        (parameter, path): ("inference.chat.profile", "/data/prof.csv").
        The path is the one the library opens (a relative name in a scenario
        file resolved against its directory).  Scenario files not included."""
        p = self._p()
        n = c_size_t()
        _capi.lib.aiw_sim_input_count(p, byref(n))
        comp, key, path = c_char_p(), c_char_p(), c_char_p()
        out = []
        for i in range(n.value):
            _capi.lib.aiw_sim_input(p, i, byref(comp), byref(key), byref(path))
            out.append((_s(comp.value) + "." + _s(key.value), _s(path.value)))
        return out

    def series_names(self):
        """Names of the recorded curves, in recorder order."""
        p = self._p()
        n = c_size_t()
        _capi.lib.aiw_sim_series_count(p, byref(n))
        name = c_char_p()
        out = []
        for i in range(n.value):
            _capi.lib.aiw_sim_series_name(p, i, byref(name))
            out.append(_s(name.value))
        return out

    def series_unit(self, name):
        out = c_char_p()
        _capi.lib.aiw_sim_series_unit(self._p(), _b(name), byref(out))
        return _s(out.value)

    def series_length(self, name):
        out = c_size_t()
        _capi.lib.aiw_sim_series_length(self._p(), _b(name), byref(out))
        return out.value

    def series(self, name):
        """A curve as (t, v): numpy float64 arrays when numpy is present, else
        array('d').  t is the end of each sample interval (s); v the average
        over the interval.  One aiw_sim_series_copy into preallocated
        buffers, no per-point call."""
        p, bname = self._p(), _b(name)
        n = c_size_t()
        _capi.lib.aiw_sim_series_length(p, bname, byref(n))
        n = n.value
        t, v = _arrays.empty(n), _arrays.empty(n)
        got = c_size_t()
        if n:
            _capi.lib.aiw_sim_series_copy(p, bname, _arrays.ptr(t), _arrays.ptr(v), n,
                                          byref(got))
        return t, v

    def training_scaling(self, component, gpu_counts, weak=False):
        """Scaling study of a training component from its current parameters
        (aiw_training_scaling): for each GPU count, the expected step time
        (s) and the parallel efficiency, as two arrays.  weak=True keeps the
        per-GPU batch fixed, False the global batch (strong scaling)."""
        counts = _arrays.from_values(gpu_counts)
        n = len(counts)
        step, eff = _arrays.empty(n), _arrays.empty(n)
        if n:
            _capi.lib.aiw_training_scaling(self._p(), _b(component), _arrays.ptr(counts), n,
                                           1 if weak else 0, _arrays.ptr(step),
                                           _arrays.ptr(eff))
        return step, eff

    # the columns of aiw_inference_capacity, in order (AIW_CAPACITY_*)
    CAPACITY_COLUMNS = ("offline_requests_per_s", "offline_output_tokens_per_s",
                        "offline_input_tokens_per_s", "offline_makespan_s", "offline_requests",
                        "server_rate", "server_rate_failed", "server_resolution",
                        "server_ttft_p99_s", "server_tpot_p99_s", "server_ttft_over",
                        "server_tpot_over", "server_requests", "server_duration_s",
                        "server_output_tokens_per_s", "runs", "seeds",
                        "server_rate_mean", "server_rate_sd", "server_rate_ci_lo",
                        "server_rate_ci_hi", "server_rate_min", "server_rate_max",
                        "offline_requests_per_s_mean", "offline_requests_per_s_sd",
                        "offline_requests_per_s_ci_lo", "offline_requests_per_s_ci_hi",
                        "offline_requests_per_s_min", "offline_requests_per_s_max")

    def inference_capacity(self, component=None, progress=None, **settings):
        """Offline throughput and the largest Poisson rate meeting P99 TTFT
        and TPOT limits of an inference fleet, as MLPerf Inference reports
        them (aiw_inference_capacity(3)); the simulation is a template, not
        run.  settings: ttft_p99, tpot_p99 ("2s", "200ms", or "none"),
        duration, min_requests, offline_requests, resolution, max_runs,
        seeds (N > 1: the measurement repeated with sim.seed + 0 .. N - 1,
        the rates' mean, sd, 95% interval, min and max in the *_mean ...
        *_max columns, the others the median seed's).
        progress(done, max_runs, rate, verdict), if given, is called after
        each simulation (done and max_runs over every seed; verdict 1 pass,
        0 fail, -1 offline); a true return
        stops the call (aiworkload.Stopped).  Returns a dict keyed by
        CAPACITY_COLUMNS."""
        from ctypes import c_char_p
        enc = ["%s=%s" % (k, v) for k, v in settings.items()]
        for x in enc:
            if "\0" in x:  # C text ends there: "seeds=2\0 9" would set 2
                raise InvalidArgument(-1, "AIW_EINVAL", "aiw_inference_capacity: setting %r "
                                      "holds a NUL byte at offset %d, where C text ends"
                                      % (x, x.index("\0")), "aiw_inference_capacity")
        arr = (c_char_p * max(1, len(enc)))(*[_b(x) for x in enc])
        w = len(self.CAPACITY_COLUMNS)
        out = _arrays.empty(w)
        raised = []

        def call(d, m, r, v, _p):
            # an exception (close() here among them) stops the call and is
            # raised once the library has returned
            try:
                return 1 if progress(d, m, r, v) else 0
            except BaseException as e:  # noqa: B036 - re-raised below
                raised.append(e)
                return 1

        cb = _capi.CAPACITY_PROGRESS_FN(call if progress else 0)
        p = self._p()
        # the simulation is in use until the call returns: close() from the
        # progress callback is refused (StateError), as from a run's
        running, self._running = self._running, True
        try:
            _capi.lib.aiw_inference_capacity(p, _b(component) if component else None, arr,
                                             len(enc), _arrays.ptr(out), w, cb, None)
        except AiwError:
            if raised:
                raise raised[0]
            raise
        finally:
            self._running = running
        if raised:
            raise raised[0]
        return {k: out[j] for j, k in enumerate(self.CAPACITY_COLUMNS)}

    def to_pandas(self):
        """Every curve in one pandas.DataFrame indexed by time_s (columns named
        by curve; units in df.attrs["units"])."""
        try:
            import pandas
        except ImportError:
            raise ImportError("Simulation.to_pandas() needs pandas (Debian: python3-pandas)")
        names = self.series_names()
        cols = {}
        t = None
        for name in names:
            t, v = self.series(name)
            cols[name] = v
        df = pandas.DataFrame(cols, index=pandas.Index(t if t is not None else [],
                                                       name="time_s"))
        df.attrs["units"] = {name: self.series_unit(name) for name in names}
        return df

    def metrics_to_pandas(self):
        """Every summary metric in one pandas.DataFrame indexed by name, with
        the columns kind, component ("" for sim and site), key, value, unit
        and label (the summary's).  Without pandas, metrics() gives the same
        values as a dict."""
        try:
            import pandas
        except ImportError:
            raise ImportError("Simulation.metrics_to_pandas() needs pandas "
                              "(Debian: python3-pandas); metrics() gives a dict")
        from . import registry
        info = {m.name: m for m in registry.metrics()}
        rows = []
        for name in self.metric_names():
            parts = name.split(".")
            kind = parts[0]
            comp = parts[1] if len(parts) > 2 else ""
            key = parts[-1]
            d = info.get(kind + (".NAME." if comp else ".") + key)
            rows.append({"name": name, "kind": kind, "component": comp, "key": key,
                         "value": self.metric(name), "unit": d.unit if d else "",
                         "label": d.label if d else ""})
        return pandas.DataFrame(rows, columns=["name", "kind", "component", "key", "value",
                                               "unit", "label"]).set_index("name")

    def write_csv(self, path):
        """CSV of every curve (time column first, units in the header)."""
        _capi.lib.aiw_sim_write_csv(self._p(), _b(path))

    def write_json(self, path):
        """JSON of the summary metrics and run metadata."""
        _capi.lib.aiw_sim_write_json(self._p(), _b(path))

    def write_prometheus(self, path):
        """Prometheus text exposition of the final state."""
        _capi.lib.aiw_sim_write_prometheus(self._p(), _b(path))

    def write_promtest(self, path, rule_files=None):
        """Every curve as `promtool test rules` input series; rule_files: a
        comma-separated string or a list of paths."""
        if rule_files is not None and not isinstance(rule_files, (str, bytes)):
            rule_files = ",".join(os.fspath(f) for f in rule_files)
        _capi.lib.aiw_sim_write_promtest(self._p(), _b(path), _b(rule_files))

    def write_svg(self, path, title=None):
        """SVG chart of the run (site power, components stacked, utilisation)."""
        _capi.lib.aiw_sim_write_svg(self._p(), _b(path), _b(title))

    def write_html(self, path):
        """The run's report: one self-contained HTML page (identity, power
        hierarchy, latency and SLO attainment, training time breakdown,
        costs, the summary, every curve as an interactive chart)."""
        _capi.lib.aiw_sim_write_html(self._p(), _b(path))

    def grid_spectrum(self):
        """The Welch power spectrum of site.power_w (site.grid = on): a pair
        of lists, frequencies (Hz) and one-sided densities (W^2/Hz)
        averaged over the segments completed, bins 0 .. segment / 2; empty
        lists before the first segment completes."""
        n = c_size_t(0)
        _capi.lib.aiw_sim_grid_spectrum(self._p(), None, None, 0, byref(n))
        f = (c_double * n.value)()
        p = (c_double * n.value)()
        _capi.lib.aiw_sim_grid_spectrum(self._p(), f, p, n.value, byref(n))
        return list(f), list(p)

    def write_openmetrics(self, path, start=0.0):
        """Every curve and the latency histograms as timestamped OpenMetrics
        series; start: the Unix time (s) of simulated time 0."""
        _capi.lib.aiw_sim_write_openmetrics(self._p(), _b(path), float(start))
