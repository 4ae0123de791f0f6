"""Caller-owned double buffers for the C functions that fill arrays: numpy
float64 arrays when numpy is importable, array('d') otherwise.  Tests set
`np = None` here to exercise the fallback."""

from array import array
from ctypes import cast

from ._capi import PD

try:
    import numpy as np
except ImportError:
    np = None


def empty(n):
    """A writable buffer of n doubles (contents undefined for numpy)."""
    if np is not None:
        return np.empty(n)
    return array("d", bytes(8 * n))


def from_values(values):
    """A contiguous float64 copy of an iterable of numbers."""
    if np is not None:
        return np.ascontiguousarray(values, dtype=np.float64)
    return array("d", (float(x) for x in values))


def ptr(buf):
    """double * to the first element of a buffer made here."""
    if np is not None and isinstance(buf, np.ndarray):
        return buf.ctypes.data_as(PD)
    return cast(buf.buffer_info()[0], PD)
