"""What cannot work in the sandbox fails with an error that says why and
what to use instead.

The sandbox has no sockets (HTTP requests go through the host: net.py),
runs no other processes (shell() asks the host for a shell process
instead), has one thread, and loads no native code.
CPython on WASI already fails in each case, but with messages that do not
say so ("[Errno 58] Not supported", "wasi does not support processes.",
"can't start new thread", a missing _ctypes);
these replace them. None of this is a security boundary: the WebAssembly
sandbox is, and these only explain it.

Modules a script may never import are patched when they are imported (see
_Refusals.find_spec), so the set-up imports nothing for them.
"""

from __future__ import annotations

import errno
import os
import socket
import subprocess
import sys
import threading
import _thread
import importlib.machinery

from . import netclients, tls

NO_NETWORK = ("the sandbox has no sockets: HTTP and HTTPS requests go through the host under the sandbox's network "
              "policy (Sandbox(network=...)) with urllib.request, http.client, or requests/httpx added with "
              "python_packages; otherwise use the tools it provides (list_tools())")
NO_PROCESSES = 'the sandbox runs no other processes; use shell("command") to run a shell command'
NO_THREADS = "the sandbox has no threads; use asyncio (tool calls awaited together run concurrently)"
NO_NATIVE = ("the sandbox cannot load native code; use pure-Python modules "
             "(Sandbox(python_packages=...) adds them) or the tools it provides (list_tools())")
NO_DATA = ("numpy and pandas run in the Python data guest: create the sandbox with Sandbox(python_data=True), "
           "on an installation built with it (AMLA_SANDBOX_DATA=1 pip install --no-binary amla-sandbox amla-sandbox; "
           "docs/python.md, \"numpy and pandas\")")
# Packages only the data guest has (guests/python/data/), each with one of
# its extension modules, built in where the package is.
DATA_PACKAGES = {"numpy": "numpy._core._multiarray_umath", "pandas": "pandas._libs.lib"}


def _no_process(*args, **kwargs):
    raise OSError(errno.ENOTSUP, NO_PROCESSES)


def _no_thread(*args, **kwargs):
    raise RuntimeError("can't start a new thread: " + NO_THREADS)


def _no_network(*args, **kwargs):
    raise OSError(errno.ENETUNREACH, NO_NETWORK)


def no_lookup(*args, **kwargs):
    raise socket.gaierror(socket.EAI_FAIL if hasattr(socket, "EAI_FAIL") else -4, NO_NETWORK)


def _no_socket(self, *args, **kwargs):
    raise OSError(errno.ENOTSUP, NO_NETWORK)


class _Popen(subprocess.Popen):
    def __init__(self, *args, **kwargs):  # noqa: D107
        raise OSError(errno.ENOTSUP, NO_PROCESSES)


# -- modules patched when imported ------------------------------------------


def _patch_multiprocessing_process(m) -> None:
    m.BaseProcess.start = _no_process


def _patch_multiprocessing_pool(m) -> None:
    # Refused before an object exists: a half-made Pool's __del__ fails.
    def refuse(cls, *args, **kwargs):
        if issubclass(cls, m.ThreadPool):
            _no_thread()
        _no_process()

    m.Pool.__new__ = staticmethod(refuse)


def _patch_process_pool(m) -> None:
    m.ProcessPoolExecutor.__init__ = _no_process


class _Patching:
    """A loader that runs another and then patches the module it made."""

    def __init__(self, loader, patch) -> None:
        self._loader = loader
        self._patch = patch

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module) -> None:
        self._loader.exec_module(module)
        self._patch(module)

    def __getattr__(self, name: str):
        return getattr(self._loader, name)


class _StandIn:
    """A loader giving a module the prelude made (the stand-in ssl)."""

    def __init__(self, module) -> None:
        self._module = module

    def create_module(self, spec):
        return self._module

    def exec_module(self, module) -> None:
        pass


class _Refusals:
    """A meta path finder: refuses modules needing what the sandbox lacks,
    and patches the ones that would fail unclearly once imported."""

    REFUSED = {"ctypes": NO_NATIVE, "_ctypes": NO_NATIVE, "_posixsubprocess": NO_PROCESSES,
               "_multiprocessing": NO_PROCESSES, "_ssl": NO_NETWORK}
    PATCHED = {"http.client": netclients.patch_http_client, "multiprocessing.process": _patch_multiprocessing_process,
               "multiprocessing.pool": _patch_multiprocessing_pool, "concurrent.futures.process": _patch_process_pool,
               "urllib3": netclients.patch_urllib3, "httpx": netclients.patch_httpx}

    def find_spec(self, fullname, path=None, target=None):
        if fullname == "ssl":
            return importlib.machinery.ModuleSpec("ssl", _StandIn(tls))
        why = self.REFUSED.get(fullname.partition(".")[0])
        if why is not None:
            raise ModuleNotFoundError(f"No module named {fullname!r}: {why}", name=fullname)
        patch = self.PATCHED.get(fullname)
        if patch is None:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None:
                    spec.loader = _Patching(spec.loader, patch)
                return spec
        return None


class _NoDataGuest:
    """Last on the meta path: numpy and pandas, where they are not built in
    and nothing else provides them, fail saying how to get them."""

    def __init__(self, missing: frozenset) -> None:
        self._missing = missing

    def find_spec(self, fullname, path=None, target=None):
        if fullname.partition(".")[0] in self._missing:
            raise ModuleNotFoundError(f"No module named {fullname!r}: {NO_DATA}", name=fullname)
        return None


def install() -> None:
    subprocess.Popen = _Popen  # type: ignore[misc]
    os.system = _no_process  # type: ignore[assignment]
    os.popen = _no_process  # type: ignore[assignment]
    for name in ("fork", "forkpty", "execv", "execve", "spawnv", "spawnve", "posix_spawn", "posix_spawnp"):
        if not hasattr(os, name):
            setattr(os, name, _no_process)
    threading.Thread.start = _no_thread  # type: ignore[method-assign]
    _thread.start_new_thread = _no_thread  # type: ignore[assignment]
    if hasattr(_thread, "start_joinable_thread"):
        _thread.start_joinable_thread = _no_thread  # type: ignore[attr-defined]
    socket.socket.__init__ = _no_socket  # type: ignore[method-assign]
    socket.socket.connect = _no_network  # type: ignore[method-assign]
    socket.socket.connect_ex = _no_network  # type: ignore[method-assign]
    socket.socket.bind = _no_network  # type: ignore[method-assign]
    socket.create_connection = _no_network  # type: ignore[assignment]
    socket.create_server = _no_network  # type: ignore[assignment]
    socket.getaddrinfo = no_lookup  # type: ignore[assignment]
    socket.gethostbyname = no_lookup  # type: ignore[assignment]
    socket.gethostbyname_ex = no_lookup  # type: ignore[assignment]
    socket.gethostbyaddr = no_lookup  # type: ignore[assignment]
    for name in _Refusals.PATCHED:
        if name in sys.modules:
            _Refusals.PATCHED[name](sys.modules[name])
    sys.meta_path.insert(0, _Refusals())
    missing = frozenset(p for p, marker in DATA_PACKAGES.items() if marker not in sys.builtin_module_names)
    if missing:
        sys.meta_path.append(_NoDataGuest(missing))
