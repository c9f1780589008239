"""What cannot work in the sandbox fails with an error that says why.

The sandbox has no network, runs no other processes (shell() asks the host
for a shell process instead), has one thread, and loads no native code.
CPython on WASI already fails in each case, but with messages that do not
say so ("wasi does not support processes.", "can't start new thread", a
missing _ctypes); these replace them. None of this is a security boundary:
the WebAssembly sandbox is, and these only explain it.
"""

from __future__ import annotations

import errno
import os
import socket
import subprocess
import sys
import threading
import _thread

NO_NETWORK = "the sandbox has no network access; use the tools it provides (list_tools())"
NO_PROCESSES = 'the sandbox runs no other processes; use shell("command") to run a shell command'
NO_THREADS = "the sandbox has no threads; use asyncio (tool calls awaited together run concurrently)"
NO_NATIVE = "the sandbox cannot load native code"


def _no_process(*args, **kwargs):
    raise OSError(errno.ENOTSUP, NO_PROCESSES)


def _no_thread(*args, **kwargs):
    raise RuntimeError("can't start a new thread: " + NO_THREADS)


def _no_network(*args, **kwargs):
    raise OSError(errno.ENETUNREACH, NO_NETWORK)


def _no_lookup(*args, **kwargs):
    raise socket.gaierror(socket.EAI_FAIL if hasattr(socket, "EAI_FAIL") else -4, NO_NETWORK)


class _Popen(subprocess.Popen):
    def __init__(self, *args, **kwargs):  # noqa: D107
        raise OSError(errno.ENOTSUP, NO_PROCESSES)


class _RefusedModules:
    """A meta path finder that refuses modules needing native code."""

    REFUSED = {"ctypes": NO_NATIVE, "_ctypes": NO_NATIVE, "_posixsubprocess": NO_PROCESSES,
               "_multiprocessing": NO_PROCESSES}

    def find_spec(self, fullname, path=None, target=None):
        why = self.REFUSED.get(fullname.partition(".")[0])
        if why is not None:
            raise ModuleNotFoundError(f"No module named {fullname!r}: {why}", name=fullname)
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
    socket.socket.connect = _no_network  # type: ignore[method-assign]
    socket.socket.connect_ex = _no_network  # type: ignore[method-assign]
    socket.socket.bind = _no_network  # type: ignore[method-assign]
    socket.create_connection = _no_network  # type: ignore[assignment]
    socket.create_server = _no_network  # type: ignore[assignment]
    socket.getaddrinfo = _no_lookup  # type: ignore[assignment]
    socket.gethostbyname = _no_lookup  # type: ignore[assignment]
    socket.gethostbyname_ex = _no_lookup  # type: ignore[assignment]
    socket.gethostbyaddr = _no_lookup  # type: ignore[assignment]
    sys.meta_path.insert(0, _RefusedModules())
