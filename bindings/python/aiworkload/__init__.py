"""aiworkload: Python bindings of libaiworkload through ctypes (nothing to
compile).  The library simulates AI training and inference on one
discrete-event clock and reports power, utilisation and cost curves.

    import aiworkload as aiw
    with aiw.Simulation("examples/scenarios/mixed-site.ini", seed=42) as sim:
        sim.run()
        print(sim.metric("site.diversity_factor"))
        t, p = sim.series("site.power_w")      # numpy arrays when present

The shared library is found through AIWORKLOAD_LIBRARY, then
ctypes.util.find_library("aiworkload") and the loader's search path, then
the source tree's build directory (build/.libs); its version is checked
against the ABI this package was written for (library_info() says what was
loaded from where).

Errors raise AiwError subclasses (OutOfRange, UnknownName, StateError...)
carrying the library's message.  params() and help() read the parameter
registry; the sizing, collective and catalog calculators are plain
functions (size_training_memory, allreduce_time, gpu, ...).
"""

from . import _capi
from .errors import (AiwError, BufferError_, InvalidArgument, InvalidParameter, IOError_,
                     LibraryError, LimitError, NotSupported, OutOfMemory, OutOfRange,
                     ParseError, ScenarioError, StateError, Stopped, UnknownName)
from .functions import *  # noqa: F401,F403 - the generated plain functions
from .functions import __all__ as _functions_all
from .registry import (Curve, Metric, Param, curves, help, help_text, metric_info, metrics,
                       param_info, params, parse_value)
from .sim import Simulation
from .sweep import Sweep
from .profile import Profile
from .plan import Plan

__version__ = "0.1.0"


def library_version():
    """The loaded library's version as "MAJOR.MINOR.PATCH"."""
    return _capi.lib.aiw_version_string().decode()


def library_info():
    """{"path", "found_by", "version", "version_number", "missing"} of the
    loaded library (missing: table functions it does not export)."""
    lib = _capi.load()
    return {"path": lib.path, "found_by": lib.how, "version": library_version(),
            "version_number": _capi.lib.aiw_version(), "missing": list(lib.missing)}


def strerror(status):
    """Message of a status code ("invalid argument")."""
    return _capi.lib.aiw_strerror(int(status)).decode()


def status_name(status):
    """Symbolic name of a status code ("AIW_EINVAL")."""
    return _capi.lib.aiw_status_name(int(status)).decode()


__all__ = [
    "Simulation", "Sweep", "Profile", "Plan", "Param", "params", "param_info", "Metric", "metrics",
    "metric_info", "Curve", "curves", "help", "help_text", "parse_value",
    "library_version", "library_info", "strerror", "status_name",
    "AiwError", "InvalidArgument", "InvalidParameter", "OutOfMemory", "UnknownName",
    "OutOfRange", "ParseError", "ScenarioError", "IOError_", "StateError", "LimitError",
    "BufferError_", "Stopped", "NotSupported", "LibraryError",
] + list(_functions_all)
