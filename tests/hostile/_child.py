"""The child side of the hostile suite: helpers every scenario script gets
(`from _child import *`). A scenario reports with `emit(name=value, ...)`."""

from __future__ import annotations

import asyncio
import json
import os
import re
import signal
import sys
import threading
import time
from collections.abc import Awaitable, Callable
from typing import Any

import amla_sandbox
from amla_sandbox import (
    ConstraintSet,
    MethodCapability,
    Param,
    Runtime,
    RuntimeConfig,
    Sandbox,
    SandboxTool,
    ToolDefinition,
    create_sandbox_tool,
)

RESULT_PREFIX = "@@RESULT "
_emit_lock = threading.Lock()


def emit(**values: Any) -> None:
    line = RESULT_PREFIX + json.dumps(values, default=repr)
    with _emit_lock:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()


def _type_name(e: BaseException) -> str:
    t = type(e)
    if t.__module__.startswith("amla_sandbox"):
        return f"amla_sandbox.{t.__qualname__}"
    if t.__module__ in ("builtins", "asyncio.exceptions"):
        return t.__qualname__ if t.__module__ == "builtins" else f"asyncio.{t.__qualname__}"
    return f"{t.__module__}.{t.__qualname__}"


def _value(v: Any) -> Any:
    if isinstance(v, str):
        return v[:4000]
    return v


def attempt(fn: Callable[[], Any]) -> dict[str, Any]:
    """Call fn; report how it ended and how long it took."""
    t = time.monotonic()
    try:
        v = fn()
    except BaseException as e:  # noqa: BLE001  (KeyboardInterrupt is an outcome here)
        return {"ok": False, "type": _type_name(e), "msg": str(e)[:4000], "dt": time.monotonic() - t}
    return {"ok": True, "value": _value(v), "type": None, "msg": None, "dt": time.monotonic() - t}


async def attempt_async(make: Callable[[], Awaitable[Any]], wait_s: float) -> dict[str, Any]:
    """Await make() under asyncio.wait_for(wait_s); report how it ended."""
    t = time.monotonic()
    try:
        v = await asyncio.wait_for(make(), wait_s)
    except BaseException as e:  # noqa: BLE001
        return {"ok": False, "type": _type_name(e), "msg": str(e)[:4000], "dt": time.monotonic() - t}
    return {"ok": True, "value": _value(v), "type": None, "msg": None, "dt": time.monotonic() - t}


def loop_stays_responsive(make: Callable[[], Awaitable[Any]], wait_s: float) -> dict[str, Any]:
    """Run make() under wait_for in a fresh loop while a ticker counts how
    often the loop gets control; a frozen loop shows as few ticks."""

    async def main() -> dict[str, Any]:
        ticks = 0
        stop = False

        async def ticker() -> None:
            nonlocal ticks
            while not stop:
                ticks += 1
                await asyncio.sleep(0.05)

        tick_task = asyncio.create_task(ticker())
        outcome = await attempt_async(make, wait_s)
        stop = True
        await tick_task
        outcome["ticks"] = ticks
        return outcome

    return asyncio.run(main())


def ends(text: str, n: int = 300) -> dict[str, Any]:
    """Length and tail of a long output (reported values are trimmed to 4,000 characters)."""
    return {"len": len(text), "tail": text[-n:], "head": text[:n]}


def tool(name: str, **props: str) -> ToolDefinition:
    properties = {k: {"type": v} for k, v in props.items()}
    return ToolDefinition(name=name, description=name, parameters={"type": "object", "properties": properties})


def echo_handler(method: str, params: Any) -> Any:
    return params


def rss_bytes() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise OSError("no VmRSS in /proc/self/status")


def hwm_bytes() -> int:
    """Peak RSS of this process so far (VmHWM)."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    raise OSError("no VmHWM in /proc/self/status")


def reset_hwm() -> bool:
    """Reset VmHWM to the current RSS (Linux: write 5 to clear_refs)."""
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def measure_rss(fn: Callable[[], Any]) -> dict[str, Any]:
    """attempt(fn), plus the host RSS before and at its peak during fn
    (VmHWM after a reset, and a 10 ms sampler as a cross-check)."""
    before = rss_bytes()
    hwm_ok = reset_hwm()
    peak = before
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, rss_bytes())
            done.wait(0.01)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    outcome = attempt(fn)
    done.set()
    sampler.join()
    if hwm_ok:
        peak = max(peak, hwm_bytes())
    outcome.update(rss_before=before, rss_peak=peak, rss_growth=peak - before, rss_after=rss_bytes())
    return outcome


def dir_bytes(path: str) -> int:
    total = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_blocks * 512
            except OSError:
                pass
    return total


def in_thread(fn: Callable[[], Any], delay_s: float) -> threading.Thread:
    """Call fn after delay_s from another thread (daemon: never holds exit)."""

    def run() -> None:
        time.sleep(delay_s)
        fn()

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


__all__ = [name for name in dir() if not name.startswith("_")] + ["_type_name"]
