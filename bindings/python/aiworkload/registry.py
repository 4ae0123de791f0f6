"""The parameter registry (no simulation needed): introspection, help text
and unit-aware value parsing, all from the library's own tables."""

import collections
import functools
import sys
import textwrap
from ctypes import byref, c_char_p, c_double, c_size_t, c_uint, create_string_buffer

from . import _capi
from .errors import AiwError

__all__ = ["Param", "params", "param_info", "Metric", "metrics", "metric_info", "Curve",
           "curves", "help_text", "help", "parse_value"]

Param = collections.namedtuple(
    "Param", "name type default unit min max choices doc min_exclusive runtime")
Param.__doc__ = """One declared parameter.

name: full name with NAME as the instance placeholder ("training.NAME.gpus");
type: int, real, duration, rate, size, bandwidth, power, energy, money,
flops, enum, string, dist or bool; default: text ("" when unset); unit: SI
unit ("" when none); min, max: numeric range in SI units; choices: tuple of
enum values (empty otherwise); doc: one line; min_exclusive: the range
excludes min (a value must be greater: sim.duration > 0); runtime: the
parameter may change during a run."""


def _s(b):
    return b.decode("utf-8", "replace") if b is not None else ""


def _info(i):
    name, typ, default, unit, choices, doc = (c_char_p() for _ in range(6))
    lo, hi = c_double(), c_double()
    _capi.lib.aiw_param_info(i, byref(name), byref(typ), byref(default), byref(unit),
                             byref(lo), byref(hi), byref(choices), byref(doc))
    flags = c_uint()
    _capi.lib.aiw_param_flags(i, byref(flags))
    ch = _s(choices.value)
    return Param(_s(name.value), _s(typ.value), _s(default.value), _s(unit.value), lo.value,
                 hi.value, tuple(ch.split("|")) if ch else (), _s(doc.value),
                 bool(flags.value & 0x1), bool(flags.value & 0x2))


@functools.lru_cache(maxsize=None)
def _all():
    n = c_size_t()
    _capi.lib.aiw_param_count(byref(n))
    return tuple(_info(i) for i in range(n.value))


def params(pattern=None):
    """Every declared parameter as a list of Param named tuples (the registry
    is fixed for a given library); pattern keeps names containing it."""
    return [p for p in _all() if pattern is None or pattern in p.name]


def param_info(name):
    """The Param of a full name ("inference.chat.max_batch" or
    "inference.NAME.max_batch").  UnknownName if it does not exist."""
    i = c_size_t()
    _capi.lib.aiw_param_find(name.encode("utf-8"), byref(i))
    return _all()[i.value]


Metric = collections.namedtuple(
    "Metric", "name label unit doc prom prom_type headline fraction count ratio")
Metric.__doc__ = """One summary metric a kind can publish (aiw_metric_info).

name: full name with NAME for the component ("training.NAME.goodput");
label: its label in the summary table; unit: W, W/s, kWh, USD, s, 1/s, B, B/s,
h or 1; doc: one line; prom, prom_type: the Prometheus family it is
exported under and its type; headline: a key figure of the short summary;
fraction, count, ratio: a share in [0, 1], a whole count, a ratio."""

_HEADLINE, _FRACTION, _COUNT, _RATIO = 1, 2, 4, 8


def _metric(i):
    name, label, unit, doc, prom, ptype = (c_char_p() for _ in range(6))
    flags = c_uint()
    _capi.lib.aiw_metric_info(i, byref(name), byref(label), byref(unit), byref(doc),
                              byref(prom), byref(ptype), byref(flags))
    f = flags.value
    return Metric(_s(name.value), _s(label.value).strip(), _s(unit.value), _s(doc.value),
                  _s(prom.value), _s(ptype.value), bool(f & _HEADLINE), bool(f & _FRACTION),
                  bool(f & _COUNT), bool(f & _RATIO))


@functools.lru_cache(maxsize=None)
def _all_metrics():
    n = c_size_t()
    _capi.lib.aiw_metric_count(byref(n))
    return tuple(_metric(i) for i in range(n.value))


def metrics(pattern=None):
    """Every summary metric the kinds can publish, as Metric named tuples
    (no simulation needed); pattern keeps names containing it."""
    return [m for m in _all_metrics() if pattern is None or pattern in m.name]


def metric_info(name):
    """The Metric of a name ("inference.chat.ttft_p99_s" or
    "inference.NAME.ttft_p99_s").  KeyError if no kind publishes it."""
    parts = name.split(".")
    generic = ".".join([parts[0], "NAME"] + parts[2:]) if len(parts) > 2 else name
    for m in _all_metrics():
        if m.name in (name, generic):
            return m
    raise KeyError("no metric %r (see aiworkload.metrics())" % name)


Curve = collections.namedtuple("Curve", "name unit doc")
Curve.__doc__ = """One curve a kind can record (aiw_curve_info): name with NAME for
the component ("inference.NAME.queue_length"), unit, one-line doc."""


@functools.lru_cache(maxsize=None)
def _all_curves():
    n = c_size_t()
    _capi.lib.aiw_curve_count(byref(n))
    out = []
    for i in range(n.value):
        name, unit, doc = c_char_p(), c_char_p(), c_char_p()
        _capi.lib.aiw_curve_info(i, byref(name), byref(unit), byref(doc))
        out.append(Curve(_s(name.value), _s(unit.value), _s(doc.value)))
    return tuple(out)


def curves(pattern=None):
    """Every curve the kinds can record, as Curve named tuples (no
    simulation needed); pattern keeps names containing it."""
    return [c for c in _all_curves() if pattern is None or pattern in c.name]


def _fmt_range(p):
    if p.type in ("enum", "string", "dist", "bool"):
        return ""
    lo = "%g" % p.min
    hi = "%g" % p.max
    return "%s%s, %s]" % ("(" if p.min_exclusive else "[", lo, hi)


def help_text(pattern=None, width=78):
    """Help on parameters from the registry: one block per parameter whose
    name contains pattern (every parameter when None)."""
    out = []
    for p in params(pattern):
        head = "%s (%s%s)" % (p.name, p.type, ", " + p.unit if p.unit and p.unit != "1" else "")
        out.append(head)
        body = p.doc
        extra = []
        extra.append("default: %s" % (p.default if p.default else "unset"))
        if p.choices:
            extra.append("one of: %s" % " | ".join(p.choices))
        rng = _fmt_range(p)
        if rng:
            extra.append("range: %s" % rng)
        extra.append("may change during a run" if p.runtime else "fixed at start")
        for line in textwrap.wrap(body, width - 4) or [""]:
            out.append("    " + line)
        out.append("    " + "; ".join(extra))
    return "\n".join(out) + ("\n" if out else "")


def metric_help_text(pattern=None, width=78):
    """Help on summary metrics: one block per metric whose name contains
    pattern (every metric when None)."""
    out = []
    for m in metrics(pattern):
        out.append("%s (%s%s)" % (m.name, m.unit, ", headline" if m.headline else ""))
        for line in textwrap.wrap("%s: %s" % (m.label, m.doc), width - 4) or [""]:
            out.append("    " + line)
        out.append("    Prometheus: %s (%s)" % (m.prom, m.prom_type))
    return "\n".join(out) + ("\n" if out else "")


def help(pattern=None, file=None):
    """Print help_text(pattern) (the registry's names, types, units, ranges,
    defaults and docs), then the summary metrics matching pattern."""
    text = help_text(pattern)
    mtext = metric_help_text(pattern)
    if mtext:
        text += ("\n" if text else "") + "Metrics:\n" + mtext
    if not text:
        text = "no parameter matches %r (nor any metric)\n" % pattern
    (file or sys.stdout).write(text)


def parse_value(kind, text):
    """Parse a value with units into SI base units: parse_value("duration",
    "90d") -> 7776000.0.  kind: int, real, duration, rate, size, bandwidth,
    power, energy, money or flops.  ParseError / UnknownName with the
    library's message otherwise."""
    out = c_double()
    err = create_string_buffer(512)
    f = _capi.lib.aiw_parse_value
    # the message is in err, not on a simulation: call without errcheck
    st = _raw(f)(str(kind).encode("utf-8"), str(text).encode("utf-8"), byref(out), err,
                 len(err))
    if st != 0:
        msg = _s(err.value) or _s(_capi.lib.aiw_strerror(st))
        raise _capi.make_error(st, msg, "aiw_parse_value")
    return out.value


def _raw(f):
    """The ctypes function without its errcheck (for errbuf-style messages)."""
    def call(*args):
        try:
            return f(*args)
        except AiwError as e:
            return e.status
    return call
