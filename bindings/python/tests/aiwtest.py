"""Shared helpers of the binding's tests: the public header parsed into
prototypes, the C-type -> ctypes map, small scripted scenarios."""

import ctypes
import os
import re
from ctypes import POINTER, c_char_p, c_double, c_int, c_size_t, c_uint, c_uint64, c_void_p

from aiworkload import _capi

HERE = os.path.dirname(os.path.abspath(__file__))
PKG_ROOT = os.path.dirname(HERE)  # bindings/python
EXAMPLES = os.path.join(PKG_ROOT, "examples")


def header_path():
    """include/aiworkload.h of the source tree (AIWORKLOAD_HEADER overrides)."""
    env = os.environ.get("AIWORKLOAD_HEADER")
    if env:
        return env
    return os.path.normpath(os.path.join(PKG_ROOT, "..", "..", "include", "aiworkload.h"))


def _strip(text):
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    text = re.sub(r"\\\n", " ", text)  # continuation lines of macros
    return "\n".join(line for line in text.split("\n") if not line.lstrip().startswith("#"))


def _ctype_text(t):
    t = " ".join(t.split())
    stars = t.count("*")
    base = t.replace("*", " ").split()
    return " ".join(base) + (" " + "*" * stars if stars else "")


PROTO = re.compile(r"AIW_EXPORT\s+([^;{}()]*?)\b(aiw_\w+)\s*\(([^()]*)\)\s*;")


def parse_header(path=None):
    """{name: (return type text, [(type text, argument name)])} in header order."""
    with open(path or header_path()) as f:
        text = _strip(f.read())
    out = {}
    for m in PROTO.finditer(text):
        ret, name, args = _ctype_text(m.group(1)), m.group(2), m.group(3).strip()
        params = []
        if args and args != "void":
            for a in args.split(","):
                a = " ".join(a.split())
                am = re.match(r"^(.*?)\s*\b(\w+)$", a)
                if not am or not am.group(1).strip():
                    raise ValueError("%s: cannot parse argument %r" % (name, a))
                params.append((_ctype_text(am.group(1)), am.group(2)))
        out[name] = (ret, params)
    return out


def callback_typedefs(path=None):
    """Names of the function-pointer typedefs ("aiw_event_fn")."""
    with open(path or header_path()) as f:
        text = _strip(f.read())
    return re.findall(r"typedef[^;]*?\(\s*\*\s*(aiw_\w+)\s*\)", text)


# C type text -> the ctypes type the table must use
C_TO_CTYPES = {
    "aiw_status": _capi.STATUS,
    "void": None,
    "int": c_int,
    "unsigned": c_uint,
    "unsigned int": c_uint,
    "double": c_double,
    "size_t": c_size_t,
    "uint64_t": c_uint64,
    "const char *": c_char_p,
    "char *": c_char_p,
    "const char **": POINTER(c_char_p),
    "double *": POINTER(c_double),
    "const double *": POINTER(c_double),
    "size_t *": POINTER(c_size_t),
    "aiw_status *": POINTER(c_int),
    "unsigned *": POINTER(c_uint),
    "uint64_t *": POINTER(c_uint64),
    "unsigned *": POINTER(c_uint),
    "aiw_sim *": _capi.SIM,
    "const aiw_sim *": _capi.SIM,
    "aiw_sim **": POINTER(_capi.SIM),
    "aiw_sweep *": _capi.SWEEP,
    "const aiw_sweep *": _capi.SWEEP,
    "aiw_sweep **": POINTER(_capi.SWEEP),
    "aiw_profile *": _capi.PROFILE,
    "const aiw_profile *": _capi.PROFILE,
    "aiw_profile **": POINTER(_capi.PROFILE),
    "aiw_plan *": _capi.PLAN,
    "const aiw_plan *": _capi.PLAN,
    "aiw_plan **": POINTER(_capi.PLAN),
    "void *": c_void_p,
    "void **": POINTER(c_void_p),
    "const void const **": POINTER(c_void_p),  # the parser's text of const void *const *
    "const size_t *": POINTER(c_size_t),
}
for _name, _t in _capi.CALLBACK_TYPES.items():
    C_TO_CTYPES[_name] = _t


def ctype_name(t):
    if t is None:
        return "None"
    if isinstance(t, str):
        return t
    return getattr(t, "__name__", repr(t))


# Two racks whose peaks do not coincide (the C suite's tests/unit/test_series.c):
# a 0-2h at 10 kW then 2 kW; b 0-1h 2 kW, 1-3h 8 kW, then 4 kW; 4 h every
# 30 min.  Energy 24 + 22 = 46 kWh, site peak 18 kW.
SCRIPTED = ("[sim]\nduration = 4h\nsample_interval = 30min\n"
            "[site]\npue = 1.5\nelectricity_price = 0.1\n"
            "[load a]\nprofile = 0:10kW, 2h:2kW\ngpus = 8\n"
            "[load b]\nprofile = 0:2kW, 1h:8kW, 3h:4kW\ngpus = 8\n")


def has_params(*names):
    """The names among `names` that the registry does not declare."""
    import aiworkload
    missing = []
    for n in names:
        try:
            aiworkload.param_info(n)
        except aiworkload.UnknownName:
            missing.append(n)
    return missing


def sanitized():
    return os.environ.get("AIW_SANITIZED", "0") == "1"


__all__ = ["parse_header", "C_TO_CTYPES", "SCRIPTED", "has_params", "header_path",
           "callback_typedefs", "ctype_name", "sanitized", "EXAMPLES", "PKG_ROOT", "ctypes"]
