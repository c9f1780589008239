"""Stand-ins for ctypes and mmap in the data guest.

pandas imports both when it loads (pandas.errors, pandas.io.common); neither
can work in WebAssembly (no native code loading, no memory mapping). The
stand-ins import, their names exist (so `from ctypes import c_size_t` and
`isinstance(x, mmap.mmap)` work), and any use raises an error that says
what to do instead.
"""

from __future__ import annotations

import importlib.machinery
import sys
import types

NO_CTYPES = ("ctypes is not available in the sandbox: there is no native code to call in WebAssembly "
             "(numpy's and pandas' own functions work without it)")
NO_MMAP = "mmap is not available in the sandbox: read the file instead (open(), pandas.read_csv(path))"


class _Refused:
    """A name of a stand-in module: every use raises."""

    def __init__(self, why: str, name: str) -> None:
        self._why, self._name = why, name

    def _refuse(self, *args, **kwargs):
        raise OSError(f"{self._name}: {self._why}")

    __call__ = _refuse

    def __getattr__(self, name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        self._refuse()

    def __repr__(self) -> str:
        return f"<unavailable {self._name}>"


def _ctypes() -> types.ModuleType:
    m = types.ModuleType("ctypes", NO_CTYPES)

    def __getattr__(name: str):
        if name.startswith("__"):
            raise AttributeError(name)
        return _Refused(NO_CTYPES, f"ctypes.{name}")

    m.__getattr__ = __getattr__  # type: ignore[method-assign]
    return m


class _MmapType:
    """mmap.mmap: a class (isinstance works) that cannot be made."""

    def __init__(self, *args, **kwargs) -> None:
        raise OSError(NO_MMAP)


def _mmap() -> types.ModuleType:
    m = types.ModuleType("mmap", NO_MMAP)
    m.mmap = _MmapType  # type: ignore[attr-defined]
    m.error = OSError  # type: ignore[attr-defined]
    for i, name in enumerate(("ACCESS_DEFAULT", "ACCESS_READ", "ACCESS_WRITE", "ACCESS_COPY")):
        setattr(m, name, i)
    for name, value in (("PAGESIZE", 65536), ("ALLOCATIONGRANULARITY", 65536), ("MAP_SHARED", 1), ("MAP_PRIVATE", 2),
                        ("PROT_READ", 1), ("PROT_WRITE", 2)):
        setattr(m, name, value)
    return m


class _StandIn:
    def __init__(self, make) -> None:
        self._make = make

    def create_module(self, spec):
        return self._make()

    def exec_module(self, module) -> None:
        pass


class _Finder:
    MAKERS = {"ctypes": _ctypes, "mmap": _mmap}

    def find_spec(self, fullname, path=None, target=None):
        make = self.MAKERS.get(fullname)
        if make is None:
            return None
        return importlib.machinery.ModuleSpec(fullname, _StandIn(make))


def install() -> None:
    sys.meta_path.insert(0, _Finder())
