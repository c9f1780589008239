"""Python tools for the MCP server tests ("pytools:add" in a config)."""

import threading

_released = threading.Event()


def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


def block() -> str:
    """Block (a plain function, as most tools are) until release() is called; at most 5 s."""
    released = _released.wait(5)
    _released.clear()
    return "released" if released else "timed out"


def release() -> str:
    """Let a block() call return."""
    _released.set()
    return "ok"
