"""Exceptions: one AiwError subclass per aiw_status code.

Each carries the C status (status, status_name), the C function that failed
(function) and the library's message (message: aiw_sim_errmsg for calls on
a simulation, which names the parameter and the bad value).  Subclasses also
derive from the closest built-in exception, so `except ValueError` catches
OutOfRange and ParseError, `except LookupError` catches UnknownName.
"""


class AiwError(Exception):
    """A libaiworkload call returned a negative aiw_status."""

    status = None
    status_name = "AIW_UNKNOWN_STATUS"

    def __init__(self, status, status_name, message, function=None):
        self.status = status
        self.status_name = status_name
        self.message = message
        self.function = function
        Exception.__init__(self, message)

    def __str__(self):
        where = " from %s" % self.function if self.function else ""
        return "%s (%s%s)" % (self.message, self.status_name, where)

    def __reduce__(self):
        return (self.__class__, (self.status, self.status_name, self.message, self.function))


class InvalidArgument(AiwError, ValueError):
    """AIW_EINVAL: invalid argument (NULL, empty name, wrong type of value)."""


InvalidParameter = InvalidArgument


class OutOfMemory(AiwError, MemoryError):
    """AIW_ENOMEM: out of memory."""


class UnknownName(AiwError, LookupError):
    """AIW_EUNKNOWN: unknown parameter, metric, curve, GPU or component kind."""


class OutOfRange(AiwError, ValueError):
    """AIW_ERANGE: a value outside its allowed range."""


class ParseError(AiwError, ValueError):
    """AIW_EPARSE: a malformed value ("90 days", "lognormal(")."""


class ScenarioError(AiwError):
    """AIW_ESCENARIO: an invalid scenario (file or text)."""


class IOError_(AiwError, OSError):
    """AIW_EIO: a file could not be read or written."""

    def __init__(self, status, status_name, message, function=None):
        AiwError.__init__(self, status, status_name, message, function)

    def __str__(self):
        return AiwError.__str__(self)


class StateError(AiwError):
    """AIW_ESTATE: not allowed now (e.g. a non-runtime parameter during a run)."""


class LimitError(AiwError):
    """AIW_ELIMIT: a work or memory estimate exceeds a limit."""


class BufferError_(AiwError, BufferError):
    """AIW_EBUFFER: a caller buffer is too small."""


class Stopped(AiwError):
    """AIW_ESTOPPED: a progress callback stopped the run."""


class NotSupported(AiwError):
    """AIW_ENOTSUP: not supported by this build (or missing from an older library)."""


class LibraryError(ImportError):
    """libaiworkload was not found, or its version does not match this package."""


_BY_NAME = {
    "AIW_EINVAL": InvalidArgument,
    "AIW_ENOMEM": OutOfMemory,
    "AIW_EUNKNOWN": UnknownName,
    "AIW_ERANGE": OutOfRange,
    "AIW_EPARSE": ParseError,
    "AIW_ESCENARIO": ScenarioError,
    "AIW_EIO": IOError_,
    "AIW_ESTATE": StateError,
    "AIW_ELIMIT": LimitError,
    "AIW_EBUFFER": BufferError_,
    "AIW_ESTOPPED": Stopped,
    "AIW_ENOTSUP": NotSupported,
}


def error_class(status_name):
    """The exception class of a status name ("AIW_ERANGE"); AiwError if new."""
    return _BY_NAME.get(status_name, AiwError)


def known_status_names():
    return sorted(_BY_NAME)
