"""The Python guest's prelude: set-up once, then one run.

Importing this package (amla_init, before any snapshot) installs the
output streams, the event loop, the refusals of what the sandbox lacks,
imports the modules scripts use most, and freezes everything that exists
then out of the cyclic collector's sight, so a run's collections walk only
what the run made (and do not write to the snapshot's pages).

run() is one run: it reads the wire.Input, reseeds what a snapshot would
otherwise repeat in every run, puts the tools and helpers in the script's
globals, executes the script and returns its exit status.
"""

from __future__ import annotations

import builtins
import gc
import io
import json
import os
import sys

import _amla

from . import streams

sys.stdout = sys.__stdout__ = streams.text_output(1)
sys.stderr = sys.__stderr__ = streams.text_output(2)
sys.stdin = sys.__stdin__ = _EMPTY_STDIN = streams.text_input("")


def _empty_stdin() -> io.TextIOWrapper:
    """The empty stdin a run gets when its script has none: the set-up's
    own, unless a script of a kept session closed or detached it (reading
    an empty stream changes nothing)."""
    global _EMPTY_STDIN
    try:
        usable = not _EMPTY_STDIN.closed
    except ValueError:  # detached
        usable = False
    if not usable:
        _EMPTY_STDIN = streams.text_input("")
    return _EMPTY_STDIN

# What scripts import most, imported now so a run does not pay for it (a
# snapshot holds them ready). tempfile's name generator is not created
# here: it would repeat its names in every run.
import asyncio  # noqa: E402
import base64  # noqa: E402,F401
import collections  # noqa: E402,F401
import csv  # noqa: E402,F401
import dataclasses  # noqa: E402,F401
import datetime  # noqa: E402,F401
import decimal  # noqa: E402,F401
import fractions  # noqa: E402,F401
import functools  # noqa: E402,F401
import hashlib  # noqa: E402,F401
import heapq  # noqa: E402,F401
import itertools  # noqa: E402,F401
import math  # noqa: E402,F401
import pathlib  # noqa: E402,F401
import pprint  # noqa: E402,F401
import random  # noqa: E402
import re  # noqa: E402,F401
import shutil  # noqa: E402,F401
import sqlite3  # noqa: E402,F401
import statistics  # noqa: E402,F401
import string  # noqa: E402,F401
import textwrap  # noqa: E402,F401
import time  # noqa: E402,F401
import traceback  # noqa: E402,F401
import typing  # noqa: E402,F401
import urllib.parse  # noqa: E402,F401
import uuid  # noqa: E402,F401
import zlib  # noqa: E402,F401
import _sitebuiltins  # noqa: E402

from . import calls, loop, net, netclients, refuse, script, shellcmd, tools  # noqa: E402

calls.install()
loop.install()
refuse.install()
net.install()

# HTTP through the host (netclients.py): imported after refuse.install, so
# that they find the stand-in ssl and are patched as they are imported.
import http.client  # noqa: E402,F401
import urllib.request  # noqa: E402,F401

# json's functions as they were when the guest started: a script that replaces
# json.dumps or json.loads (in a kept session it stays replaced) does not change
# how the guest encodes tool calls, requests and results.
_json_dumps, _json_loads = json.dumps, json.loads

# Called at the start of every run that does not continue a session, after
# random.seed(): state a snapshot would otherwise repeat in every run.
reseeds: list = []

# The data guest (guests/python/data/) has numpy and pandas built in: they
# are imported now, so that a run finds them in the snapshot.
if "numpy._core._multiarray_umath" in sys.builtin_module_names:
    import _amla_data  # noqa: E402,F401

builtins.exit = _sitebuiltins.Quitter("exit", "Ctrl-D (i.e. EOF)")
builtins.quit = _sitebuiltins.Quitter("quit", "Ctrl-D (i.e. EOF)")

os.environ.clear()
os.environ.update({"HOME": "/workspace", "PWD": "/workspace", "LANG": "C.UTF-8", "PYTHONHASHSEED": "0"})

# sys.setrecursionlimit: Python frames live on the heap, so a limit of a
# million lets a runaway recursion eat the memory limit before it ends in
# RecursionError. Limits above what the run's memory allows are lowered.
_set_recursion_limit = sys.setrecursionlimit
_max_recursion = 20000
# Bytes of heap one Python frame of a small recursive function takes,
# rounded up generously.
_FRAME_BYTES = 512


def setrecursionlimit(limit: int, /) -> None:
    """sys.setrecursionlimit, capped at what the sandbox's memory allows."""
    if not isinstance(limit, int) or isinstance(limit, bool):
        raise TypeError(f"'{type(limit).__name__}' object cannot be interpreted as an integer")
    _set_recursion_limit(min(limit, _max_recursion) if limit > 0 else limit)


sys.setrecursionlimit = setrecursionlimit


# Where Sandbox(python_packages=...) mounts its packages (gocore/pycore).
SITE_PACKAGES = "/usr/lib/python3.13/site-packages"

HELPERS = {
    "shell": shellcmd.shell,
    "ShellError": shellcmd.ShellError,
    "list_tools": tools.list_tools,
    "get_tool_info": tools.get_tool_info,
    "call_tool": tools.call_tool,
    "ToolError": calls.ToolError,
    "ToolDenied": calls.ToolDenied,
}
for _name, _value in HELPERS.items():
    setattr(builtins, _name, _value)


def _box(value: object) -> list:
    """[value], once JSON is known to carry value (json.dumps raises the
    TypeError or ValueError that names what it cannot): the final
    expression of the FastMCP adapter's runs
    (amla_sandbox/integrations/fastmcp.py): one short statement for the
    guest to compile in every run."""
    _json_dumps(value, allow_nan=False)
    return [value]


builtins.__amla_box__ = _box


def run() -> int:
    """One run of the script the host hands in; returns its exit status."""
    return _run(_json_loads(_amla.input()))


# Runs made in this instance. A sandbox with keep_state (docs/sessions.md)
# runs script after script in one instance, in one __main__ namespace,
# which run() never clears: what a script defines stays for the next.
_runs = 0
# Whether the sandbox mounts packages, as the session's first run found:
# mounts are fixed for a sandbox's life, and a stat costs a host call.
_has_site_packages = False


def _run(inp: dict) -> int:
    global _max_recursion, _runs, _has_site_packages
    # A kept session continues where its last run left off: its random
    # state and working directory as well as its variables.
    continuing = bool(inp.get("keep_state")) and _runs > 0
    _runs += 1
    if not continuing:
        # 256 bits from the host seed the Mersenne Twister: as many streams
        # as random.seed() gives in practice, for a third of its cost (it
        # asks for the generator's whole 2.5 KB state).
        random.seed(int.from_bytes(os.urandom(32), "little"))
        for reseed in reseeds:
            reseed()
    script.keep_loop = bool(inp.get("keep_state"))
    if script.keep_loop:
        loop.session_loop()
    limit = inp.get("memory_limit") or 0
    script.memory_limit = limit
    if limit > 0:
        _max_recursion = max(1000, min(100_000, limit // 4 // _FRAME_BYTES))
    main = sys.modules["__main__"].__dict__
    if continuing:
        # The run's tools are the ones its input lists (a sandbox's tools
        # may change between runs: add_tools, remove_tools).
        tools.registry.__init__()
    if isinstance(inp.get("tool_index"), str):
        tools.install_deferred(inp["tool_index"], main)
    else:
        tools.install(inp.get("tools") or [], main)
    main.update(HELPERS)
    # Top-level await is allowed, so asyncio is at hand without an import.
    main.setdefault("asyncio", asyncio)
    # The run's variables (the placeholders of the network policy's exposed
    # secrets): strings only.
    env = inp.get("env")
    if isinstance(env, dict):
        os.environ.update({k: v for k, v in env.items() if isinstance(k, str) and isinstance(v, str) and k and "=" not in k
                           and "\0" not in k and "\0" not in v})
    stdin = inp.get("stdin") if inp.get("has_stdin") else ""
    sys.stdin = streams.text_input(stdin) if stdin else _empty_stdin()
    # Modules the script keeps in /workspace are importable (after the
    # standard library, which no file there can replace), and so are the
    # packages the sandbox mounts.
    sys.path[:] = ["/workspace"]
    if not continuing:
        # The host lists what it mounts (wire.Input.Mounts); asking the file
        # system would cost a hand-off to another thread in the host.
        _has_site_packages = SITE_PACKAGES in (inp.get("mounts") or ())
    if _has_site_packages:
        sys.path.append(SITE_PACKAGES)
    # A child process (python from the shell) starts where its parent is.
    # A kept session stays where its last run left it.
    # getcwd is the C library's own record; chdir asks the host (a
    # hand-off to another thread there), so it is skipped when the process
    # is already there, as every run from the snapshot is in /workspace.
    if not continuing:
        cwd = inp.get("dir") or "/workspace"
        if cwd != os.getcwd():
            try:
                os.chdir(cwd)
            except OSError:
                os.chdir("/workspace")
    cwd = os.getcwd()
    if os.environ.get("PWD") != cwd:
        os.environ["PWD"] = cwd
    # argv is the command line after "python": ["-c", ...] for code given
    # as text (the API's runs), ["-", ...] for a script read from stdin,
    # [path, ...] for a script file, which is then the code's filename.
    argv = inp.get("argv")
    sys.argv = [str(a) for a in argv] if isinstance(argv, list) and argv else ["-c"]
    # A script file's name is absolute, as CPython makes it.
    filename = "<string>" if sys.argv[0] == "-c" else "<stdin>" if sys.argv[0] == "-" else os.path.abspath(sys.argv[0])
    if inp.get("keep_state") and filename == "<string>":
        # Functions of earlier runs stay, and their tracebacks show their
        # own run's lines (linecache holds each run's source by name).
        filename = f"<run {_runs}>"
    if sys.argv[0] not in ("-c", "-"):
        main["__file__"] = filename
        script_dir = os.path.dirname(os.path.abspath(filename))
        if script_dir not in sys.path:
            sys.path.insert(0, script_dir)
    status = script.execute(inp.get("code") or "", filename, main)
    try:
        import atexit

        atexit._run_exitfuncs()
    finally:
        for stream in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001  (a replaced stream may fail; the status stands)
                pass
    return status


# Scripts with top-level await, for _warm_up: the event loop's set-up, a
# coroutine, tasks woken by a future, gather, a TaskGroup and an error.
# (Only what needs no host: sleep(0) yields without a timer.)
_ASYNC_WARM_UP = (
    "await asyncio.sleep(0)",
    "async def f(x):\n    return x\nawait f(1)",
    "async def f(x):\n    await asyncio.sleep(0)\n    return x\nawait asyncio.gather(f(1), f(2))",
    "async def f(x):\n    await asyncio.sleep(0)\n    return x\n"
    "async with asyncio.TaskGroup() as tg:\n    t = tg.create_task(f(1))\nt.result()",
    "async def f():\n    raise ValueError('x')\nawait f()",
)


def _warm_up() -> None:
    """Runs a few small scripts during set-up, with output going nowhere.

    CPython specialises the bytecode it runs and counts executions in the
    code objects themselves: the first runs of any code write to its pages.
    Done here, before the snapshot, those writes are in the snapshot's
    image, and each run writes (and the host copies back, or a fresh
    instance faults in) only the pages that run really changes."""
    import io
    import linecache

    global _runs
    saved = sys.stdout, sys.stderr, sys.stdin, sys.argv[:], sys.path[:]
    main = sys.modules["__main__"].__dict__
    before = dict(main)
    sink = io.StringIO()
    try:
        sys.stdout = sys.stderr = sink
        script.recording = False  # set-up may call no host function
        netclients.warm_up()
        for _ in range(4):
            for code in ("print(1)", "1 + 1", "x = {'a': [1, 2.5, None]}\nx", "'text'", "import json\n_json_dumps(_json_loads('[1]'))",
                         "def f(n):\n    return n and f(n - 1)\nf(3)", "raise ValueError('x')") + _ASYNC_WARM_UP:
                _run({"code": code, "memory_limit": 256 << 20})
    finally:
        script.recording = True
        sys.stdout, sys.stderr, sys.stdin = saved[:3]
        sys.argv[:], sys.path[:] = saved[3], saved[4]
        main.clear()
        main.update(before)
        linecache.cache.clear()
        tools.registry.__init__()
        _runs = 0


_warm_up()
gc.collect()
from . import immortal  # noqa: E402

immortal.everything()
gc.freeze()
