"""In-tree PEP 517 / PEP 660 build backend of the aiworkload package.

Why not setuptools: pip builds in an isolated environment and would have to
download setuptools (pip's default), which an offline machine cannot; and
pip without `wheel` installed refuses the legacy setup.py path.  The package
is a handful of .py files, so the wheel is written here with zipfile, from
the standard library alone.  Metadata: aiworkload/__init__.py's __version__.
"""

import base64
import hashlib
import io
import os
import re
import tarfile
import time
import zipfile

NAME = "aiworkload"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SUMMARY = "Python bindings (ctypes) of libaiworkload, the AI training/inference simulator"


def _version():
    with open(os.path.join(ROOT, NAME, "__init__.py")) as f:
        m = re.search(r'^__version__ = "([^"]+)"', f.read(), re.M)
    return m.group(1)


def _metadata():
    readme = os.path.join(ROOT, "README.md")
    desc = ""
    if os.path.exists(readme):
        with open(readme) as f:
            desc = f.read()
    head = ("Metadata-Version: 2.1\nName: %s\nVersion: %s\nSummary: %s\n"
            "License: see the libaiworkload distribution\nRequires-Python: >=3.7\n"
            "Description-Content-Type: text/markdown\n" % (NAME, _version(), SUMMARY))
    return (head + "\n" + desc).encode("utf-8")


def _package_files():
    pkg = os.path.join(ROOT, NAME)
    for name in sorted(os.listdir(pkg)):
        if name.endswith(".py"):
            yield "%s/%s" % (NAME, name), os.path.join(pkg, name)


def _dist_info():
    return "%s-%s.dist-info" % (NAME, _version())


def _wheel_name():
    return "%s-%s-py3-none-any.whl" % (NAME, _version())


class _Wheel(object):
    def __init__(self, path):
        self.z = zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED)
        self.record = []

    def add(self, arcname, data):
        info = zipfile.ZipInfo(arcname, date_time=(2020, 1, 1, 0, 0, 0))
        info.external_attr = 0o644 << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        self.z.writestr(info, data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
        self.record.append("%s,sha256=%s,%d" % (arcname, digest.decode(), len(data)))

    def close(self):
        di = _dist_info()
        self.add(di + "/METADATA", _metadata())
        self.add(di + "/WHEEL", b"Wheel-Version: 1.0\nGenerator: aiw_build\n"
                 b"Root-Is-Purelib: true\nTag: py3-none-any\n")
        self.add(di + "/top_level.txt", (NAME + "\n").encode())
        self.record.append(di + "/RECORD,,")
        info = zipfile.ZipInfo(di + "/RECORD", date_time=(2020, 1, 1, 0, 0, 0))
        info.external_attr = 0o644 << 16
        self.z.writestr(info, "\n".join(self.record) + "\n")
        self.z.close()


# ---- PEP 517 -----------------------------------------------------------------
def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    di = os.path.join(metadata_directory, _dist_info())
    os.makedirs(di, exist_ok=True)
    with open(os.path.join(di, "METADATA"), "wb") as f:
        f.write(_metadata())
    return _dist_info()


prepare_metadata_for_build_editable = prepare_metadata_for_build_wheel


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    w = _Wheel(os.path.join(wheel_directory, _wheel_name()))
    for arc, path in _package_files():
        with open(path, "rb") as f:
            w.add(arc, f.read())
    w.close()
    return _wheel_name()


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    """PEP 660: a wheel whose .pth puts this source directory on sys.path."""
    w = _Wheel(os.path.join(wheel_directory, _wheel_name()))
    w.add("_aiworkload_editable.pth", (ROOT + "\n").encode())
    w.close()
    return _wheel_name()


def build_sdist(sdist_directory, config_settings=None):
    base = "%s-%s" % (NAME, _version())
    name = base + ".tar.gz"
    with tarfile.open(os.path.join(sdist_directory, name), "w:gz", format=tarfile.PAX_FORMAT) as t:
        def add_bytes(arc, data):
            info = tarfile.TarInfo("%s/%s" % (base, arc))
            info.size, info.mtime, info.mode = len(data), time.time(), 0o644
            t.addfile(info, io.BytesIO(data))
        add_bytes("PKG-INFO", _metadata())
        for rel in ("pyproject.toml", "README.md", "bench_series.py", "_build/aiw_build.py"):
            p = os.path.join(ROOT, rel)
            if os.path.exists(p):
                with open(p, "rb") as f:
                    add_bytes(rel, f.read())
        for sub in (NAME, "tests", "examples"):
            d = os.path.join(ROOT, sub)
            for fn in sorted(os.listdir(d)) if os.path.isdir(d) else ():
                if fn.endswith(".py"):
                    with open(os.path.join(d, fn), "rb") as f:
                        add_bytes("%s/%s" % (sub, fn), f.read())
    return name
