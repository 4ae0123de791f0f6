#!/bin/sh
# Python bindings (bindings/python): the unittest suite, run against the
# freshly built shared library through ctypes.  Skips only without python3.
# Under sanitizer builds (AIW_SANITIZED=1) the library loaded by ctypes needs
# the ASan runtime first in the process: it is preloaded, and leak checking
# is off (the interpreter's own allocations are not ours to judge).
set -u
: "${top_srcdir:=$(cd "$(dirname "$0")/.." && pwd)}"
: "${top_builddir:=$top_srcdir/build}"

. "$top_srcdir/tests/package/pyenv.sh"
if [ -z "$py" ]; then
	echo "SKIP: python3 not found"
	exit 77
fi
echo "python: $("$py" --version 2>&1) ($py), library $AIWORKLOAD_LIBRARY"
exec "$py" -m unittest discover -s "$top_srcdir/bindings/python/tests" -v
