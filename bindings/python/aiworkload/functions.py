"""Plain functions: every pure C function of the table (no simulation
argument) as a Python function named without the aiw_ prefix, generated
from the signature table so that new calculators appear with the header:

    aiworkload.size_training_memory(70e9, 12)        -> 8.4e11
    aiworkload.allreduce_time("ring", 1e9, 8, 8, 5.7e-6, 450e9, 9.6e-6, 50e9, 1)
    aiworkload.catalog_gpu_value("H100-SXM", "tdp_w") -> 700.0

Inputs are the C arguments that are not pointers, in order (str for
const char *); the C outputs come back as the return value (a float, int or
str, or a tuple when there are several).  Errors raise AiwError subclasses
("aiw_size_training_memory(params=-1.0, bytes_per_param=12.0): value out of
range").  Friendlier views of the catalog follow: gpus(), gpu(name),
links(), link(name).
"""

import ctypes
import inspect
from ctypes import POINTER, c_char_p, c_double, c_size_t, c_uint64

from . import _arrays, _capi
from ._capi import SIGNATURES

# Functions with a hand-written wrapper elsewhere (or not meant as plain
# functions): version and status helpers, the registry, parse_value.
_SPECIAL = {
    "aiw_strerror", "aiw_status_name", "aiw_version", "aiw_version_string",
    "aiw_default_scenario",
    "aiw_param_count", "aiw_param_info", "aiw_param_find", "aiw_parse_value",
    "aiw_metric_count", "aiw_metric_info", "aiw_curve_count", "aiw_curve_info",
}

_OUT_TYPES = {
    POINTER(c_double): (c_double, lambda v: v),
    POINTER(c_size_t): (c_size_t, lambda v: v),
    POINTER(c_uint64): (c_uint64, lambda v: v),
    POINTER(c_char_p): (c_char_p, lambda v: v.decode("utf-8", "replace") if v is not None
                        else None),
}


def plain_function_names():
    """C names of the functions exposed here as plain Python functions."""
    return [c for c, (_, args) in SIGNATURES.items()
            if c not in _SPECIAL and c not in _capi.ARRAY_FUNCTIONS and not _capi.takes_sim(c)
            and not any(n == "errbuf" for n, _ in args)
            and all(t in _OUT_TYPES or not _capi.is_output(t) for _, t in args)]


def _make(cname):
    restype, args = SIGNATURES[cname]
    ins = [(n, t) for n, t in args if not _capi.is_output(t)]
    outs = [(n, t) for n, t in args if _capi.is_output(t)]
    pyname = cname[4:]

    def fn(*a, **kw):
        bound = sig.bind(*a, **kw)
        vals = dict(bound.arguments)
        cargs = []
        holders = []
        for n, t in args:
            if _capi.is_output(t):
                h = _OUT_TYPES[t][0]()
                holders.append((h, _OUT_TYPES[t][1]))
                cargs.append(ctypes.byref(h))
            elif t is c_char_p:
                v = vals[n]
                cargs.append(v.encode("utf-8") if isinstance(v, str) else v)
            else:
                cargs.append(vals[n])
        ret = getattr(_capi.lib, cname)(*cargs)
        results = [conv(h.value) for h, conv in holders]
        if restype is not _capi.STATUS and restype is not None:
            results.insert(0, ret)
        if not results:
            return None
        return results[0] if len(results) == 1 else tuple(results)

    sig = inspect.Signature([inspect.Parameter(n, inspect.Parameter.POSITIONAL_OR_KEYWORD)
                             for n, _ in ins])
    fn.__signature__ = sig
    fn.__name__ = fn.__qualname__ = pyname
    fn.__doc__ = "%s(%s) -> %s\n\nThe C function %s (see %s(3)); outputs returned." % (
        pyname, ", ".join(n for n, _ in ins),
        ", ".join(n for n, _ in outs) or "None", cname, cname)
    return fn


__all__ = []
for _c in plain_function_names():
    globals()[_c[4:]] = _make(_c)
    __all__.append(_c[4:])


def default_scenario():
    """The built-in scenario as INI text (aiw_default_scenario): what
    `aiworkload run` runs without one and the site diversity functions
    sweep when given None."""
    return _capi.lib.aiw_default_scenario().decode("utf-8")


__all__.append("default_scenario")


# ---- friendlier catalog views ------------------------------------------------
def _names(count, name):
    return [name(i) for i in range(count())]


def gpus():
    """Names of the built-in accelerators."""
    return _names(catalog_gpu_count, catalog_gpu_name)  # noqa: F821


def gpu_fields():
    """[(field, unit, doc)] of the GPU catalog."""
    n = _count_fields(catalog_gpu_field)  # noqa: F821
    return [catalog_gpu_field(i) for i in range(n)]  # noqa: F821


def gpu(name):
    """Every field of a built-in GPU as {field: value in SI units}."""
    return {f: catalog_gpu_value(name, f) for f, _, _ in gpu_fields()}  # noqa: F821


def gpu_sources(name):
    """Where each field of a built-in GPU comes from, as {field: source line}
    ("measured: ...", "datasheet: ...", "estimate: ..." and so on)."""
    return {f: catalog_gpu_source(name, f) for f, _, _ in gpu_fields()}  # noqa: F821


def links():
    """Names of the built-in links."""
    return _names(catalog_link_count, catalog_link_name)  # noqa: F821


def link_fields():
    """[(field, unit, doc)] of the link catalog."""
    n = _count_fields(catalog_link_field)  # noqa: F821
    return [catalog_link_field(i) for i in range(n)]  # noqa: F821


def link(name):
    """Every field of a built-in link as {field: value in SI units}."""
    return {f: catalog_link_value(name, f) for f, _, _ in link_fields()}  # noqa: F821


def training_presets():
    """Names of the training-state presets with their bytes per parameter."""
    from .errors import OutOfRange
    out = {}
    i = 0
    while True:
        try:
            name = size_training_preset_name(i)  # noqa: F821
        except OutOfRange:
            return out
        out[name] = size_training_preset(name)  # noqa: F821
        i += 1


def _count_fields(field_fn):
    from .errors import OutOfRange
    i = 0
    while True:
        try:
            field_fn(i)
        except OutOfRange:
            return i
        i += 1


def site_diversity_sweep(scenario=None, total_gpus=1024, steps=11):
    """The training/inference ratio question in one call
    (aiw_site_diversity_sweep): for `steps` training shares from 0 to 1 of
    total_gpus GPUs, run the scenario (INI text, a path, or None for the
    built-in site, default_scenario()) and return {"share", "diversity",
    "provisioned_w", "peak_w", "sum_of_peaks_w"} as arrays (numpy when
    present): the achieved training share, site.rack_diversity_factor,
    site.provisioned_power_w, site.power_peak_w, site.sum_of_rack_peaks_w."""
    import os
    from ctypes import create_string_buffer
    from .registry import _raw
    if isinstance(scenario, os.PathLike) or (isinstance(scenario, str) and "\n" not in scenario
                                             and not scenario.lstrip().startswith("[")):
        with open(scenario, "rb") as f:
            scenario = f.read()
    elif isinstance(scenario, str):
        scenario = scenario.encode("utf-8")
    keys = ("share", "diversity", "provisioned_w", "peak_w", "sum_of_peaks_w")
    out = {k: _arrays.empty(steps) for k in keys}
    err = create_string_buffer(1024)
    st = _raw(_capi.lib.aiw_site_diversity_sweep)(
        scenario, float(total_gpus), int(steps), *[_arrays.ptr(out[k]) for k in keys], err,
        len(err))
    if st != 0:
        msg = err.value.decode("utf-8", "replace") or \
            _capi.lib.aiw_strerror(st).decode("utf-8", "replace")
        raise _capi.make_error(st, msg, "aiw_site_diversity_sweep")
    return out


# the columns of aiw_site_diversity_shares, in order (AIW_DIVERSITY_*)
DIVERSITY_COLUMNS = ("share", "training_gpus", "replicas", "diversity", "provisioned_w",
                     "peak_w", "sum_of_peaks_w", "slo_attainment", "ttft_p99_s", "overloaded")


def site_diversity_shares(scenario=None, total_gpus=1024, shares=(0.3, 0.5, 0.7),
                          progress=None):
    """The training/inference question at chosen shares
    (aiw_site_diversity_shares): run the scenario (INI text, a path, or None
    for the built-in site, default_scenario()) once, then once per training share of
    total_gpus GPUs, and return a dict of arrays (numpy when present) keyed
    by DIVERSITY_COLUMNS: the achieved share, training GPUs, replicas,
    site.rack_diversity_factor, site.provisioned_power_w, site.power_peak_w,
    site.sum_of_rack_peaks_w, the fleet's slo_attainment (NaN when the
    scenario sets no slo_ttft, slo_tpot or slo_e2e) and ttft_p99_s, and
    overloaded (1.0 where the fleet serves clearly worse than the scenario's
    own: its power figures are not those of a fleet that serves its users).
    progress(done, total), if given, is called after each run; a true
    return stops the call (aiworkload.Stopped)."""
    import os
    from ctypes import create_string_buffer
    from .registry import _raw
    if isinstance(scenario, os.PathLike) or (isinstance(scenario, str) and "\n" not in scenario
                                             and not scenario.lstrip().startswith("[")):
        with open(scenario, "rb") as f:
            scenario = f.read()
    elif isinstance(scenario, str):
        scenario = scenario.encode("utf-8")
    shares = [float(s) for s in shares]
    n, w = len(shares), len(DIVERSITY_COLUMNS)
    sh = _arrays.empty(n)
    for i, s in enumerate(shares):
        sh[i] = s
    out = _arrays.empty(n * w)
    err = create_string_buffer(1024)
    cb = _capi.DIVERSITY_PROGRESS_FN(
        (lambda done, total, _p: 1 if progress(done, total) else 0) if progress else 0)
    st = _raw(_capi.lib.aiw_site_diversity_shares)(
        scenario, float(total_gpus), _arrays.ptr(sh), n, _arrays.ptr(out), w, cb, None, err,
        len(err))
    if st != 0:
        msg = err.value.decode("utf-8", "replace") or \
            _capi.lib.aiw_strerror(st).decode("utf-8", "replace")
        raise _capi.make_error(st, msg, "aiw_site_diversity_shares")
    cols = {}
    for j, k in enumerate(DIVERSITY_COLUMNS):
        col = _arrays.empty(n)
        for i in range(n):
            col[i] = out[i * w + j]
        cols[k] = col
    return cols


def autoscale_replay(policy, metrics_path, settings=(), out_path=None):
    """The decisions of autoscaler policy "hpa" or "kpa" on a recorded metric
    CSV (aiw_autoscale_replay(3)); settings: "KEY=VALUE" strings; out_path
    receives time,replicas,reason per sync.  Returns the number of syncs."""
    from ctypes import byref, create_string_buffer
    from .registry import _raw
    from .errors import InvalidArgument
    named = [("policy", policy), ("metrics_path", metrics_path), ("out_path", out_path)]
    named += [("settings[%d]" % i, x) for i, x in enumerate(settings)]
    for name, x in named:
        # C text ends at a NUL byte: "replicas=2\0 99" would set 2
        if x is not None and "\0" in str(x):
            raise InvalidArgument(-1, "AIW_EINVAL", "aiw_autoscale_replay: %s %r holds a NUL "
                                  "byte at offset %d, where C text ends"
                                  % (name, str(x), str(x).index("\0")), "aiw_autoscale_replay")
    enc = [str(x).encode("utf-8") for x in settings]
    arr = (c_char_p * max(1, len(enc)))(*enc)
    n = c_uint64(0)
    err = create_string_buffer(1024)
    st = _raw(_capi.lib.aiw_autoscale_replay)(
        str(policy).encode("utf-8"), arr, len(enc), str(metrics_path).encode("utf-8"),
        str(out_path).encode("utf-8") if out_path is not None else None, byref(n), err,
        len(err))
    if st != 0:
        msg = err.value.decode("utf-8", "replace") or \
            _capi.lib.aiw_strerror(st).decode("utf-8", "replace")
        raise _capi.make_error(st, msg, "aiw_autoscale_replay")
    return n.value


__all__ += ["autoscale_replay"]
__all__ += ["site_diversity_shares", "DIVERSITY_COLUMNS"]
__all__ += ["site_diversity_sweep", "gpus", "gpu", "gpu_fields", "gpu_sources", "links", "link", "link_fields", "training_presets"]
