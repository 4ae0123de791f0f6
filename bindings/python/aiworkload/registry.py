"""The parameter registry (no simulation needed): introspection, help text
and unit-aware value parsing, all from the library's own tables."""

import collections
import functools
import sys
import textwrap
from ctypes import byref, c_char_p, c_double, c_size_t, create_string_buffer

from . import _capi
from .errors import AiwError

__all__ = ["Param", "params", "param_info", "help_text", "help", "parse_value"]

Param = collections.namedtuple(
    "Param", "name type default unit min max choices doc")
Param.__doc__ = """One declared parameter.

name: full name with NAME as the instance placeholder ("training.NAME.gpus");
type: int, real, duration, rate, size, bandwidth, power, energy, money,
flops, enum, string, dist or bool; default: text ("" when unset); unit: SI
unit ("" when none); min, max: numeric range in SI units; choices: tuple of
enum values (empty otherwise); doc: one line."""


def _s(b):
    return b.decode("utf-8", "replace") if b is not None else ""


def _info(i):
    name, typ, default, unit, choices, doc = (c_char_p() for _ in range(6))
    lo, hi = c_double(), c_double()
    _capi.lib.aiw_param_info(i, byref(name), byref(typ), byref(default), byref(unit),
                             byref(lo), byref(hi), byref(choices), byref(doc))
    ch = _s(choices.value)
    return Param(_s(name.value), _s(typ.value), _s(default.value), _s(unit.value), lo.value,
                 hi.value, tuple(ch.split("|")) if ch else (), _s(doc.value))


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


def _fmt_range(p):
    if p.type in ("enum", "string", "dist", "bool"):
        return ""
    lo = "%g" % p.min
    hi = "%g" % p.max
    return "[%s, %s]" % (lo, hi)


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
        for line in textwrap.wrap(body, width - 4) or [""]:
            out.append("    " + line)
        out.append("    " + "; ".join(extra))
    return "\n".join(out) + ("\n" if out else "")


def help(pattern=None, file=None):
    """Print help_text(pattern) (the registry's names, types, units, ranges,
    defaults and docs)."""
    text = help_text(pattern)
    if not text:
        text = "no parameter matches %r\n" % pattern
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
